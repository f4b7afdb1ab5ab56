// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: RDMAP wire format, validation and Terminate codec (RFC 5040),
 * and the Terminate error numbers of all layers.
 *
 * Known answers are octets written from the RFC 5040 §4 figures; the
 * RDMAP control octet is DDP's RsvdULP[0:7] (RFC 5040 §4.1).
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/string.h>

#include "rdmap.h"

#define EXPECT_RDMAP_ERR(test, got, want)			\
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(got),	\
			sw_ddp_term_err_pack(want))

/* RFC 5040 §4.1: | RV=01b | Rsv=00 | OpCode |, opcodes of §4.2 */
static void rdmap_ctrl_all_opcodes(struct kunit *test)
{
	static const u8 want[] = {
		0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47,
	};
	int op;

	for (op = RDMAP_OP_WRITE; op <= RDMAP_OP_TERMINATE; op++)
		KUNIT_EXPECT_EQ(test, rdmap_ctrl_make(op), want[op]);
	KUNIT_EXPECT_EQ(test, RDMAP_OP_WRITE, 0x0);
	KUNIT_EXPECT_EQ(test, RDMAP_OP_READ_REQ, 0x1);
	KUNIT_EXPECT_EQ(test, RDMAP_OP_READ_RESP, 0x2);
	KUNIT_EXPECT_EQ(test, RDMAP_OP_SEND, 0x3);
	KUNIT_EXPECT_EQ(test, RDMAP_OP_SEND_INV, 0x4);
	KUNIT_EXPECT_EQ(test, RDMAP_OP_SEND_SE, 0x5);
	KUNIT_EXPECT_EQ(test, RDMAP_OP_SEND_SE_INV, 0x6);
	KUNIT_EXPECT_EQ(test, RDMAP_OP_TERMINATE, 0x7);
}

/* RFC 5040 §4.1: decoding RV and OpCode; Rsv does not leak */
static void rdmap_ctrl_decode(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rdmap_ctrl_rv(0x43), 1);
	KUNIT_EXPECT_EQ(test, rdmap_ctrl_opcode(0x43), RDMAP_OP_SEND);
	KUNIT_EXPECT_EQ(test, rdmap_ctrl_rv(0x87), 2);
	KUNIT_EXPECT_EQ(test, rdmap_ctrl_opcode(0x87), RDMAP_OP_TERMINATE);
	KUNIT_EXPECT_EQ(test, rdmap_ctrl_rv(0x7f), 1);
	KUNIT_EXPECT_EQ(test, rdmap_ctrl_opcode(0x7f), 0xf);
}

/* RFC 5040 §4.2 table: Tagged Flag, Queue Number, Invalidate STag */
static void rdmap_message_table(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, rdmap_opcode_tagged(RDMAP_OP_WRITE));
	KUNIT_EXPECT_TRUE(test, rdmap_opcode_tagged(RDMAP_OP_READ_RESP));
	KUNIT_EXPECT_FALSE(test, rdmap_opcode_tagged(RDMAP_OP_READ_REQ));
	KUNIT_EXPECT_FALSE(test, rdmap_opcode_tagged(RDMAP_OP_SEND_SE));
	KUNIT_EXPECT_FALSE(test, rdmap_opcode_tagged(RDMAP_OP_TERMINATE));
	KUNIT_EXPECT_EQ(test, rdmap_opcode_qn(RDMAP_OP_SEND), 0);
	KUNIT_EXPECT_EQ(test, rdmap_opcode_qn(RDMAP_OP_SEND_SE_INV), 0);
	KUNIT_EXPECT_EQ(test, rdmap_opcode_qn(RDMAP_OP_READ_REQ), 1);
	KUNIT_EXPECT_EQ(test, rdmap_opcode_qn(RDMAP_OP_TERMINATE), 2);
	KUNIT_EXPECT_TRUE(test, rdmap_opcode_invalidates(RDMAP_OP_SEND_INV));
	KUNIT_EXPECT_TRUE(test,
			  rdmap_opcode_invalidates(RDMAP_OP_SEND_SE_INV));
	KUNIT_EXPECT_FALSE(test, rdmap_opcode_invalidates(RDMAP_OP_SEND_SE));
}

/* RFC 5040 §4.3: RDMA Write = tagged DDP header, opcode 0000b */
static void rdmap_write_encode(struct kunit *test)
{
	static const u8 want[] = {
		0xc1, 0x40,
		0x00, 0x00, 0x01, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
	};
	struct ddp_tagged_hdr h;

	rdmap_tagged_init(&h, RDMAP_OP_WRITE, true, 0x100, 0x1000);
	KUNIT_EXPECT_MEMEQ(test, &h, want, sizeof(want));
}

/* RFC 5040 §4.5: RDMA Read Response = tagged, opcode 0010b */
static void rdmap_read_resp_encode(struct kunit *test)
{
	static const u8 want[] = {
		0x81, 0x42,
		0xff, 0xee, 0xdd, 0xcc,
		0x00, 0x00, 0x7f, 0xff, 0x00, 0x00, 0x00, 0x08,
	};
	struct ddp_tagged_hdr h;

	rdmap_tagged_init(&h, RDMAP_OP_READ_RESP, false, 0xffeeddcc,
			  0x00007fff00000008ULL);
	KUNIT_EXPECT_MEMEQ(test, &h, want, sizeof(want));
}

/* RFC 5040 §4.1/§4.6: Send, QN 0; Invalidate STag zero when unused */
static void rdmap_send_encode(struct kunit *test)
{
	static const u8 want[] = {
		0x41, 0x43,
		0x00, 0x00, 0x00, 0x00,		/* not an invalidating op */
		0x00, 0x00, 0x00, 0x00,		/* QN 0 */
		0x00, 0x00, 0x00, 0x01,		/* MSN 1 */
		0x00, 0x00, 0x00, 0x00,
	};
	struct ddp_untagged_hdr h;

	rdmap_untagged_init(&h, RDMAP_OP_SEND, true, 0xdead, 1, 0);
	KUNIT_EXPECT_MEMEQ(test, &h, want, sizeof(want));
}

/* RFC 5040 §4.1: Send with Invalidate carries the STag in RsvdULP */
static void rdmap_send_inv_encode(struct kunit *test)
{
	static const u8 want[] = {
		0x01, 0x44,
		0x11, 0x22, 0x33, 0x44,
		0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x05,
		0x00, 0x00, 0x00, 0x20,
	};
	struct ddp_untagged_hdr h;

	rdmap_untagged_init(&h, RDMAP_OP_SEND_INV, false, 0x11223344, 5,
			    0x20);
	KUNIT_EXPECT_MEMEQ(test, &h, want, sizeof(want));
}

/* RFC 5040 §4.2: Send with SE (0101b) and with SE and Invalidate (0110b) */
static void rdmap_send_se_encode(struct kunit *test)
{
	static const u8 want_se[] = {
		0x41, 0x45, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
		0x00, 0x00, 0x00, 0x00,
	};
	static const u8 want_se_inv[] = {
		0x41, 0x46, 0x80, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
		0x00, 0x00, 0x00, 0x00,
	};
	struct ddp_untagged_hdr h;

	rdmap_untagged_init(&h, RDMAP_OP_SEND_SE, true, 0x80000001, 2, 0);
	KUNIT_EXPECT_MEMEQ(test, &h, want_se, sizeof(want_se));
	rdmap_untagged_init(&h, RDMAP_OP_SEND_SE_INV, true, 0x80000001, 3, 0);
	KUNIT_EXPECT_MEMEQ(test, &h, want_se_inv, sizeof(want_se_inv));
}

/* A Read Request message from RFC 5040 §4.4, QN 1, MSN 7 */
static const u8 read_req_msg[] = {
	0x41, 0x41, 0x00, 0x00, 0x00, 0x00,		/* DDP, opcode 0001b */
	0x00, 0x00, 0x00, 0x01,				/* QN 1 */
	0x00, 0x00, 0x00, 0x07,				/* MSN 7 */
	0x00, 0x00, 0x00, 0x00,				/* MO 0 */
	0x0a, 0x0b, 0x0c, 0x0d,				/* SinkSTag */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x02, 0x00,	/* SinkTO */
	0x00, 0x00, 0x10, 0x00,				/* RDMARDSZ */
	0x01, 0x02, 0x03, 0x04,				/* SrcSTag */
	0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,	/* SrcTO */
};

static const struct rdmap_read_req read_req_fields = {
	.sink_stag = 0x0a0b0c0d, .sink_to = 0x0000000100000200ULL,
	.size = 0x1000, .src_stag = 0x01020304,
	.src_to = 0xfedcba9876543210ULL,
};

/* RFC 5040 §4.4: RDMA Read Request header, encode */
static void rdmap_read_req_encode(struct kunit *test)
{
	u8 buf[sizeof(read_req_msg)];

	rdmap_untagged_init((struct ddp_untagged_hdr *)buf, RDMAP_OP_READ_REQ,
			    true, 0, 7, 0);
	rdmap_read_req_put((struct rdmap_read_req_hdr *)(buf + 18),
			   &read_req_fields);
	KUNIT_EXPECT_MEMEQ(test, buf, read_req_msg, sizeof(read_req_msg));
}

/* RFC 5040 §4.4: RDMA Read Request header, decode */
static void rdmap_read_req_decode(struct kunit *test)
{
	struct rdmap_read_req r;

	rdmap_read_req_get((const void *)(read_req_msg + 18), &r);
	KUNIT_EXPECT_EQ(test, r.sink_stag, read_req_fields.sink_stag);
	KUNIT_EXPECT_EQ(test, r.sink_to, read_req_fields.sink_to);
	KUNIT_EXPECT_EQ(test, r.size, read_req_fields.size);
	KUNIT_EXPECT_EQ(test, r.src_stag, read_req_fields.src_stag);
	KUNIT_EXPECT_EQ(test, r.src_to, read_req_fields.src_to);
	KUNIT_EXPECT_EQ(test, sizeof(struct rdmap_read_req_hdr), 28);
}

/* RFC 5040 §4.2: Terminate rides QN 2, one segment (L=1, MO 0) */
static void rdmap_terminate_hdr_encode(struct kunit *test)
{
	static const u8 want[] = {
		0x41, 0x47, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x02,
		0x00, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x00,
	};
	struct ddp_untagged_hdr h;

	rdmap_untagged_init(&h, RDMAP_OP_TERMINATE, true, 0, 1, 0);
	KUNIT_EXPECT_MEMEQ(test, &h, want, sizeof(want));
}

/* RFC 5040 Terminate Header: | Layer | EType | ECode |M|D|R| Rsvd | */
static void rdmap_term_ctrl_encode(struct kunit *test)
{
	static const u8 want_ddp[] = { 0x12, 0x04, 0xc0, 0x00 };
	static const u8 want_llp[] = { 0x20, 0x02, 0x00, 0x00 };
	static const u8 want_rdmap[] = { 0x01, 0x02, 0xe0, 0x00 };
	__be32 c;

	c = rdmap_term_ctrl_make(DDP_ERR_UT_INVALID_MO,
				 RDMAP_TERM_HDRCT_M | RDMAP_TERM_HDRCT_D);
	KUNIT_EXPECT_MEMEQ(test, &c, want_ddp, 4);
	c = rdmap_term_ctrl_make(MPA_ERR_CRC, 0);
	KUNIT_EXPECT_MEMEQ(test, &c, want_llp, 4);
	c = rdmap_term_ctrl_make(RDMAP_ERR_PROT_ACCESS, RDMAP_TERM_HDRCT_MASK);
	KUNIT_EXPECT_MEMEQ(test, &c, want_rdmap, 4);
}

/* RFC 5040 Terminate Header: decode, Rsvd bits ignored */
static void rdmap_term_ctrl_decode(struct kunit *test)
{
	static const u8 wire[] = { 0x02, 0x06, 0x5f, 0xff };
	__be32 c;

	memcpy(&c, wire, 4);
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(rdmap_term_ctrl_err(c)),
			sw_ddp_term_err_pack(RDMAP_ERR_OP_OPCODE));
	KUNIT_EXPECT_EQ(test, rdmap_term_ctrl_hdrct(c), RDMAP_TERM_HDRCT_D);
}

/* A Write that failed DDP's bounds check, as copied into a Terminate */
static const u8 bad_write_hdr[] = {
	0xc1, 0x40, 0x00, 0x00, 0x01, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00,
};

/* RFC 5040 Terminate Header with M|D and a tagged DDP header */
static void rdmap_term_build_ddp(struct kunit *test)
{
	static const u8 want[] = {
		0x11, 0x01, 0xc0, 0x00,		/* DDP, tagged, bounds, M D */
		0x01, 0x00,			/* DDP Segment Length 256 */
		0xc1, 0x40, 0x00, 0x00, 0x01, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00,
	};
	struct rdmap_term_info ti = {
		.err = DDP_ERR_T_BASE_BOUNDS,
		.hdrct = RDMAP_TERM_HDRCT_M | RDMAP_TERM_HDRCT_D,
		.seg_len = 256, .ddp_hdr = bad_write_hdr,
	};
	u8 buf[RDMAP_TERM_MAX_LEN];

	KUNIT_ASSERT_EQ(test, rdmap_term_build(buf, sizeof(buf), &ti),
			(int)sizeof(want));
	KUNIT_EXPECT_MEMEQ(test, buf, want, sizeof(want));
}

/* RFC 5040 Terminate Header with M|D|R and a whole Read Request */
static void rdmap_term_build_read_req(struct kunit *test)
{
	static const u8 head[] = { 0x01, 0x02, 0xe0, 0x00, 0x00, 0x1c };
	struct rdmap_term_info ti = {
		.err = RDMAP_ERR_PROT_ACCESS, .hdrct = RDMAP_TERM_HDRCT_MASK,
		.seg_len = 28, .ddp_hdr = read_req_msg,
		.rdmap_hdr = read_req_msg + 18, .rdmap_len = 28,
	};
	u8 buf[RDMAP_TERM_MAX_LEN];

	KUNIT_ASSERT_EQ(test, rdmap_term_build(buf, sizeof(buf), &ti), 52);
	KUNIT_EXPECT_MEMEQ(test, buf, head, sizeof(head));
	KUNIT_EXPECT_MEMEQ(test, buf + 6, read_req_msg, sizeof(read_req_msg));
}

/* RFC 5040 Terminate Header: no Hdrct bits, the control word only */
static void rdmap_term_build_ctrl_only(struct kunit *test)
{
	static const u8 want[] = { 0x02, 0x05, 0x00, 0x00 };
	struct rdmap_term_info ti = { .err = RDMAP_ERR_OP_VERSION };
	u8 buf[8];

	KUNIT_ASSERT_EQ(test, rdmap_term_build(buf, sizeof(buf), &ti), 4);
	KUNIT_EXPECT_MEMEQ(test, buf, want, sizeof(want));
}

/* Inconsistent Terminate contents are refused, never half-written */
static void rdmap_term_build_rejects(struct kunit *test)
{
	struct rdmap_term_info ti = {
		.err = DDP_ERR_T_BASE_BOUNDS, .hdrct = RDMAP_TERM_HDRCT_R,
	};
	u8 buf[RDMAP_TERM_MAX_LEN];

	KUNIT_EXPECT_EQ(test, rdmap_term_build(buf, sizeof(buf), &ti),
			-EINVAL);
	ti.hdrct = RDMAP_TERM_HDRCT_D;
	KUNIT_EXPECT_EQ(test, rdmap_term_build(buf, sizeof(buf), &ti),
			-EINVAL);
	ti.ddp_hdr = bad_write_hdr;
	KUNIT_EXPECT_EQ(test, rdmap_term_build(buf, 19, &ti), -ENOSPC);
	KUNIT_EXPECT_EQ(test, rdmap_term_build(buf, 20, &ti), 20);
	ti.err = SW_DDP_TERM_OK;
	KUNIT_EXPECT_EQ(test, rdmap_term_build(buf, sizeof(buf), &ti),
			-EINVAL);
}

/* RFC 5040 Terminate Header: parse what was built by hand above */
static void rdmap_term_parse_read_req(struct kunit *test)
{
	u8 buf[52] = { 0x01, 0x02, 0xe0, 0x00, 0x00, 0x1c };
	struct rdmap_term_info ti;

	memcpy(buf + 6, read_req_msg, sizeof(read_req_msg));
	KUNIT_ASSERT_EQ(test, rdmap_term_parse(buf, sizeof(buf), &ti), 0);
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(ti.err),
			sw_ddp_term_err_pack(RDMAP_ERR_PROT_ACCESS));
	KUNIT_EXPECT_EQ(test, ti.hdrct, RDMAP_TERM_HDRCT_MASK);
	KUNIT_EXPECT_EQ(test, ti.seg_len, 28);
	KUNIT_EXPECT_PTR_EQ(test, ti.ddp_hdr, (const u8 *)buf + 6);
	KUNIT_EXPECT_PTR_EQ(test, ti.rdmap_hdr, (const u8 *)buf + 24);
	KUNIT_EXPECT_EQ(test, ti.rdmap_len, 28);
}

/* R with no RDMA octets: the RDMAP header of a Send is inside DDP's */
static void rdmap_term_parse_send(struct kunit *test)
{
	u8 buf[24] = { 0x01, 0x00, 0xe0, 0x00, 0x00, 0x10 };
	struct rdmap_term_info ti;

	rdmap_untagged_init((struct ddp_untagged_hdr *)(buf + 6),
			    RDMAP_OP_SEND, true, 0, 3, 0);
	KUNIT_ASSERT_EQ(test, rdmap_term_parse(buf, sizeof(buf), &ti), 0);
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(ti.err),
			sw_ddp_term_err_pack(RDMAP_ERR_PROT_INVALID_STAG));
	KUNIT_EXPECT_PTR_EQ(test, ti.ddp_hdr, (const u8 *)buf + 6);
	KUNIT_EXPECT_EQ(test, ti.rdmap_len, 0);
	KUNIT_EXPECT_PTR_EQ(test, ti.rdmap_hdr, NULL);
}

/* Terminates whose Hdrct bits announce more than is there */
static void rdmap_term_parse_truncated(struct kunit *test)
{
	u8 buf[24] = { 0x11, 0x01, 0xc0, 0x00, 0x00, 0x10, 0xc1 };
	struct rdmap_term_info ti;

	KUNIT_EXPECT_EQ(test, rdmap_term_parse(buf, 3, &ti), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmap_term_parse(buf, 5, &ti), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmap_term_parse(buf, 6, &ti), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmap_term_parse(buf, 19, &ti), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmap_term_parse(buf, 20, &ti), 0);
	buf[2] = 0x20;					/* R without D */
	KUNIT_EXPECT_EQ(test, rdmap_term_parse(buf, 20, &ti), -EINVAL);
}

/* RFC 5040 Terminate Header error table, RDMAP layer, by hand */
static void rdmap_error_table(struct kunit *test)
{
	static const struct {
		struct sw_ddp_term_err err;
		u32 want;
	} t[] = {
		{ RDMAP_ERR_LOCAL_CATASTROPHIC, 0x000000 },
		{ RDMAP_ERR_PROT_INVALID_STAG, 0x000100 },
		{ RDMAP_ERR_PROT_BASE_BOUNDS, 0x000101 },
		{ RDMAP_ERR_PROT_ACCESS, 0x000102 },
		{ RDMAP_ERR_PROT_STAG_NOT_ASSOC, 0x000103 },
		{ RDMAP_ERR_PROT_TO_WRAP, 0x000104 },
		{ RDMAP_ERR_PROT_CANNOT_INVALIDATE, 0x000109 },
		{ RDMAP_ERR_PROT_UNSPECIFIED, 0x0001ff },
		{ RDMAP_ERR_OP_VERSION, 0x000205 },
		{ RDMAP_ERR_OP_OPCODE, 0x000206 },
		{ RDMAP_ERR_OP_CATASTROPHIC_STREAM, 0x000207 },
		{ RDMAP_ERR_OP_CATASTROPHIC_GLOBAL, 0x000208 },
		{ RDMAP_ERR_OP_CANNOT_INVALIDATE, 0x000209 },
		{ RDMAP_ERR_OP_UNSPECIFIED, 0x0002ff },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(t[i].err),
				t[i].want);
}

/* RFC 5044 error list and RFC 6581 additions: LLP layer, EType 0 */
static void rdmap_error_table_llp(struct kunit *test)
{
	static const struct {
		struct sw_ddp_term_err err;
		u32 want;
	} t[] = {
		{ MPA_ERR_CONN_LOST, 0x020001 },
		{ MPA_ERR_CRC, 0x020002 },
		{ MPA_ERR_MARKER, 0x020003 },
		{ MPA_ERR_REQ_REP, 0x020004 },
		{ MPA_ERR_LOCAL_CATASTROPHIC, 0x020005 },
		{ MPA_ERR_INSUFFICIENT_IRD, 0x020006 },
		{ MPA_ERR_NO_MATCHING_RTR, 0x020007 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(t[i].err),
				t[i].want);
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_ok(SW_DDP_TERM_OK));
	KUNIT_EXPECT_FALSE(test,
			   sw_ddp_term_err_ok(RDMAP_ERR_LOCAL_CATASTROPHIC));
	KUNIT_EXPECT_FALSE(test, sw_ddp_term_err_eq(SW_DDP_TERM_OK,
						    RDMAP_ERR_LOCAL_CATASTROPHIC));
}

/* Segment under test: an untagged RDMAP header plus @payload octets. */
static u32 untagged_seg(u8 *buf, enum rdmap_opcode op, u32 payload)
{
	memset(buf, 0, DDP_UNTAGGED_HDR_LEN + payload);
	rdmap_untagged_init((struct ddp_untagged_hdr *)buf, op, true, 0, 1, 0);
	return DDP_UNTAGGED_HDR_LEN + payload;
}

static void set_qn(u8 *buf, u32 qn)
{
	((struct ddp_untagged_hdr *)buf)->qn = cpu_to_be32(qn);
}

/* RFC 5040 §4.2: each well-formed message kind passes */
static void rdmap_valid_messages(struct kunit *test)
{
	struct ddp_tagged_hdr th;
	u8 buf[64];
	u32 len;

	rdmap_tagged_init(&th, RDMAP_OP_WRITE, true, 1, 0);
	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(&th, 14), SW_DDP_TERM_OK);
	rdmap_tagged_init(&th, RDMAP_OP_READ_RESP, false, 1, 0);
	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(&th, 20), SW_DDP_TERM_OK);
	len = untagged_seg(buf, RDMAP_OP_SEND_SE_INV, 10);
	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(buf, len), SW_DDP_TERM_OK);
	len = untagged_seg(buf, RDMAP_OP_READ_REQ, 28);
	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(buf, len), SW_DDP_TERM_OK);
	len = untagged_seg(buf, RDMAP_OP_TERMINATE, 4);
	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(buf, len), SW_DDP_TERM_OK);
}

/* RFC 5040 §4.1: RV must be 01b -> Remote Operation, Invalid version */
static void rdmap_bad_version(struct kunit *test)
{
	static const u8 bad_rv[] = { 0, 2, 3 };
	u8 buf[64];
	u32 len = untagged_seg(buf, RDMAP_OP_SEND, 0);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_rv); i++) {
		buf[1] = bad_rv[i] << RDMAP_CTRL_RV_SHIFT | RDMAP_OP_SEND;
		EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(buf, len),
				 RDMAP_ERR_OP_VERSION);
	}
}

/* RFC 5040 §4.2: OpCodes 1000b..1111b reserved -> Unexpected OpCode */
static void rdmap_reserved_opcode(struct kunit *test)
{
	u8 buf[64];
	u32 len = untagged_seg(buf, RDMAP_OP_SEND, 0);
	u8 op;

	for (op = 0x8; op <= 0xf; op++) {
		buf[1] = 0x40 | op;
		EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(buf, len),
				 RDMAP_ERR_OP_OPCODE);
	}
}

/* RFC 5040 §4.2: Tagged Flag must match the opcode */
static void rdmap_tagged_mismatch(struct kunit *test)
{
	struct ddp_tagged_hdr th;
	u8 buf[64];
	u32 len;

	rdmap_tagged_init(&th, RDMAP_OP_SEND, true, 1, 0);
	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(&th, 14),
			 RDMAP_ERR_OP_OPCODE);
	len = untagged_seg(buf, RDMAP_OP_SEND, 0);
	buf[1] = rdmap_ctrl_make(RDMAP_OP_WRITE);
	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(buf, len),
			 RDMAP_ERR_OP_OPCODE);
}

/* RFC 5040 §4.2: each untagged opcode has its Queue Number */
static void rdmap_queue_mismatch(struct kunit *test)
{
	u8 buf[64];
	u32 len;

	len = untagged_seg(buf, RDMAP_OP_SEND, 0);
	set_qn(buf, RDMAP_QN_READ_REQ);
	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(buf, len),
			 RDMAP_ERR_OP_OPCODE);
	len = untagged_seg(buf, RDMAP_OP_READ_REQ, 28);
	set_qn(buf, RDMAP_QN_SEND);
	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(buf, len),
			 RDMAP_ERR_OP_OPCODE);
	len = untagged_seg(buf, RDMAP_OP_TERMINATE, 4);
	set_qn(buf, RDMAP_QN_READ_REQ);
	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(buf, len),
			 RDMAP_ERR_OP_OPCODE);
}

/* RFC 5040 §4.2: RDMAP defines QN 0..2; others are DDP Invalid QN */
static void rdmap_invalid_qn(struct kunit *test)
{
	u8 buf[64];
	u32 len = untagged_seg(buf, RDMAP_OP_SEND, 0);

	set_qn(buf, 3);
	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(buf, len),
			 DDP_ERR_UT_INVALID_QN);
	set_qn(buf, U32_MAX);
	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(buf, len),
			 DDP_ERR_UT_INVALID_QN);
}

/* RFC 5040 §4.4: a Read Request is one 28-octet message at MO 0 */
static void rdmap_read_req_shape(struct kunit *test)
{
	u8 buf[64];
	u32 len;

	len = untagged_seg(buf, RDMAP_OP_READ_REQ, 28);
	((struct ddp_untagged_hdr *)buf)->mo = cpu_to_be32(4);
	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(buf, len),
			 DDP_ERR_UT_INVALID_MO);
	len = untagged_seg(buf, RDMAP_OP_READ_REQ, 29);
	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(buf, len),
			 DDP_ERR_UT_TOO_LONG);
	len = untagged_seg(buf, RDMAP_OP_READ_REQ, 28);
	buf[0] &= ~DDP_CTRL_L;
	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(buf, len),
			 DDP_ERR_UT_TOO_LONG);
	len = untagged_seg(buf, RDMAP_OP_READ_REQ, 27);
	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(buf, len),
			 RDMAP_ERR_OP_UNSPECIFIED);
}

/* RFC 5040 Terminate Header: the Terminate Control word must be there */
static void rdmap_terminate_shape(struct kunit *test)
{
	u8 buf[64];
	u32 len = untagged_seg(buf, RDMAP_OP_TERMINATE, 3);

	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(buf, len),
			 RDMAP_ERR_OP_UNSPECIFIED);
	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(buf, 10),
			 DDP_ERR_LOCAL_CATASTROPHIC);
}

/* RFC 5040 §4.1: Rsv bits and an unused Invalidate STag not checked */
static void rdmap_rsvd_not_checked(struct kunit *test)
{
	u8 buf[64];
	u32 len = untagged_seg(buf, RDMAP_OP_SEND, 8);

	buf[1] |= RDMAP_CTRL_RSVD_MASK;
	memset(buf + 2, 0xff, 4);
	EXPECT_RDMAP_ERR(test, rdmap_validate_ctrl(buf, len), SW_DDP_TERM_OK);
}

/* The Read Request of read_req_msg with its source resolved to @v. */
static struct sw_ddp_term_err check_src(const struct sw_ddp_stag_view *v)
{
	return rdmap_validate_read_req((const void *)(read_req_msg + 18), v);
}

/* Source buffer covering SrcTO .. SrcTO + 0x1000 exactly. */
static const struct sw_ddp_stag_view src_ok = {
	.valid = true, .stream_ok = true, .access_ok = true,
	.base = 0xfedcba9876543210ULL, .len = 0x1000,
};

/* RFC 5040 Remote Protection Errors for a Read Request's source */
static void rdmap_read_req_source(struct kunit *test)
{
	struct sw_ddp_stag_view v = src_ok;

	EXPECT_RDMAP_ERR(test, check_src(&v), SW_DDP_TERM_OK);
	v.valid = false;
	EXPECT_RDMAP_ERR(test, check_src(&v), RDMAP_ERR_PROT_INVALID_STAG);
	v = src_ok;
	v.stream_ok = false;
	EXPECT_RDMAP_ERR(test, check_src(&v), RDMAP_ERR_PROT_STAG_NOT_ASSOC);
	v = src_ok;
	v.access_ok = false;
	EXPECT_RDMAP_ERR(test, check_src(&v), RDMAP_ERR_PROT_ACCESS);
	v = src_ok;
	v.len = 0xfff;
	EXPECT_RDMAP_ERR(test, check_src(&v), RDMAP_ERR_PROT_BASE_BOUNDS);
	v = src_ok;
	v.base += 1;
	EXPECT_RDMAP_ERR(test, check_src(&v), RDMAP_ERR_PROT_BASE_BOUNDS);
}

/* RFC 5040 Remote Protection: TO wrap; zero-length reads unchecked */
static void rdmap_read_req_wrap_and_zero(struct kunit *test)
{
	struct rdmap_read_req r = read_req_fields;
	struct rdmap_read_req_hdr h;
	struct sw_ddp_stag_view bad = { .valid = false };

	r.src_to = U64_MAX - 0xfff;
	rdmap_read_req_put(&h, &r);
	EXPECT_RDMAP_ERR(test, rdmap_validate_read_req(&h, NULL),
			 RDMAP_ERR_PROT_TO_WRAP);
	r.size = 0xfff;
	rdmap_read_req_put(&h, &r);
	EXPECT_RDMAP_ERR(test, rdmap_validate_read_req(&h, NULL),
			 SW_DDP_TERM_OK);
	r.size = 0;
	rdmap_read_req_put(&h, &r);
	EXPECT_RDMAP_ERR(test, rdmap_validate_read_req(&h, &bad),
			 SW_DDP_TERM_OK);
}

static struct kunit_case sw_ddp_rdmap_cases[] = {
	KUNIT_CASE(rdmap_ctrl_all_opcodes),
	KUNIT_CASE(rdmap_ctrl_decode),
	KUNIT_CASE(rdmap_message_table),
	KUNIT_CASE(rdmap_write_encode),
	KUNIT_CASE(rdmap_read_resp_encode),
	KUNIT_CASE(rdmap_send_encode),
	KUNIT_CASE(rdmap_send_inv_encode),
	KUNIT_CASE(rdmap_send_se_encode),
	KUNIT_CASE(rdmap_read_req_encode),
	KUNIT_CASE(rdmap_read_req_decode),
	KUNIT_CASE(rdmap_terminate_hdr_encode),
	KUNIT_CASE(rdmap_term_ctrl_encode),
	KUNIT_CASE(rdmap_term_ctrl_decode),
	KUNIT_CASE(rdmap_term_build_ddp),
	KUNIT_CASE(rdmap_term_build_read_req),
	KUNIT_CASE(rdmap_term_build_ctrl_only),
	KUNIT_CASE(rdmap_term_build_rejects),
	KUNIT_CASE(rdmap_term_parse_read_req),
	KUNIT_CASE(rdmap_term_parse_send),
	KUNIT_CASE(rdmap_term_parse_truncated),
	KUNIT_CASE(rdmap_error_table),
	KUNIT_CASE(rdmap_error_table_llp),
	KUNIT_CASE(rdmap_valid_messages),
	KUNIT_CASE(rdmap_bad_version),
	KUNIT_CASE(rdmap_reserved_opcode),
	KUNIT_CASE(rdmap_tagged_mismatch),
	KUNIT_CASE(rdmap_queue_mismatch),
	KUNIT_CASE(rdmap_invalid_qn),
	KUNIT_CASE(rdmap_read_req_shape),
	KUNIT_CASE(rdmap_terminate_shape),
	KUNIT_CASE(rdmap_rsvd_not_checked),
	KUNIT_CASE(rdmap_read_req_source),
	KUNIT_CASE(rdmap_read_req_wrap_and_zero),
	{}
};

static struct kunit_suite sw_ddp_rdmap_suite = {
	.name = "sw_ddp_rdmap",
	.test_cases = sw_ddp_rdmap_cases,
};

kunit_test_suites(&sw_ddp_rdmap_suite);
