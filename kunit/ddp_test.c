// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: DDP wire format and validation (RFC 5041).
 *
 * Known answers are octets written from the RFC 5041 §4 figures; error
 * numbers are those of the RFC 5041 §7.2 table.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/stddef.h>

#include "ddp.h"

#define EXPECT_DDP_ERR(test, got, want)				\
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(got),	\
			sw_ddp_term_err_pack(want))

/* RFC 5041 §4.1: |T|L| Rsvd |DV|, DV = 1 on transmit, Rsvd zero */
static void ddp_ctrl_encode(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ddp_ctrl_make(true, true), 0xc1);
	KUNIT_EXPECT_EQ(test, ddp_ctrl_make(true, false), 0x81);
	KUNIT_EXPECT_EQ(test, ddp_ctrl_make(false, true), 0x41);
	KUNIT_EXPECT_EQ(test, ddp_ctrl_make(false, false), 0x01);
}

/* RFC 5041 §4.1: field extraction; Rsvd bits do not leak into others */
static void ddp_ctrl_decode(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ddp_ctrl_tagged(0x81));
	KUNIT_EXPECT_FALSE(test, ddp_ctrl_last(0x81));
	KUNIT_EXPECT_EQ(test, ddp_ctrl_dv(0x81), 1);
	KUNIT_EXPECT_FALSE(test, ddp_ctrl_tagged(0x42));
	KUNIT_EXPECT_TRUE(test, ddp_ctrl_last(0x42));
	KUNIT_EXPECT_EQ(test, ddp_ctrl_dv(0x42), 2);
	/* 1011 1101: T=1 L=0 Rsvd=1111 DV=01 */
	KUNIT_EXPECT_TRUE(test, ddp_ctrl_tagged(0xbd));
	KUNIT_EXPECT_FALSE(test, ddp_ctrl_last(0xbd));
	KUNIT_EXPECT_EQ(test, ddp_ctrl_dv(0xbd), 1);
}

/* RFC 5041 §4.2 Figure 4 and §4.3 Figure 5: sizes and field offsets */
static void ddp_hdr_layout(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct ddp_tagged_hdr), 14);
	KUNIT_EXPECT_EQ(test, offsetof(struct ddp_tagged_hdr, rsvdulp), 1);
	KUNIT_EXPECT_EQ(test, offsetof(struct ddp_tagged_hdr, stag), 2);
	KUNIT_EXPECT_EQ(test, offsetof(struct ddp_tagged_hdr, to), 6);
	KUNIT_EXPECT_EQ(test, sizeof(struct ddp_untagged_hdr), 18);
	KUNIT_EXPECT_EQ(test, offsetof(struct ddp_untagged_hdr, rsvdulp1), 2);
	KUNIT_EXPECT_EQ(test, offsetof(struct ddp_untagged_hdr, qn), 6);
	KUNIT_EXPECT_EQ(test, offsetof(struct ddp_untagged_hdr, msn), 10);
	KUNIT_EXPECT_EQ(test, offsetof(struct ddp_untagged_hdr, mo), 14);
	KUNIT_EXPECT_EQ(test, ddp_hdr_len(0x81), 14);
	KUNIT_EXPECT_EQ(test, ddp_hdr_len(0x41), 18);
}

/* RFC 5041 §4.2 Figure 4: tagged header, encode */
static void ddp_tagged_encode(struct kunit *test)
{
	static const u8 want[] = {
		0xc1, 0x40,			/* T L DV=1, RsvdULP */
		0x12, 0x34, 0x56, 0x78,		/* STag */
		0x00, 0x11, 0x22, 0x33,		/* TO */
		0x44, 0x55, 0x66, 0x77,
	};
	struct ddp_tagged_hdr h;

	ddp_tagged_hdr_init(&h, true, 0x40, 0x12345678,
			    0x0011223344556677ULL);
	KUNIT_EXPECT_MEMEQ(test, &h, want, sizeof(want));
}

/* RFC 5041 §4.2 Figure 4: tagged header, decode */
static void ddp_tagged_decode(struct kunit *test)
{
	static const u8 wire[] = {
		0x81, 0x42,
		0xde, 0xad, 0xbe, 0xef,
		0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	};
	const struct ddp_tagged_hdr *h = (const void *)wire;

	KUNIT_EXPECT_TRUE(test, ddp_ctrl_tagged(h->ctrl));
	KUNIT_EXPECT_FALSE(test, ddp_ctrl_last(h->ctrl));
	KUNIT_EXPECT_EQ(test, h->rsvdulp, 0x42);
	KUNIT_EXPECT_EQ(test, ddp_tagged_stag(h), 0xdeadbeef);
	KUNIT_EXPECT_EQ(test, ddp_tagged_to(h), 0x8000000000000001ULL);
}

/* RFC 5041 §4.3 Figure 5: untagged header, encode (RsvdULP 40 bits) */
static void ddp_untagged_encode(struct kunit *test)
{
	static const u8 want[] = {
		0x41, 0x43,			/* T=0 L DV=1, RsvdULP[0:7] */
		0xca, 0xfe, 0xf0, 0x0d,		/* RsvdULP[8:39] */
		0x00, 0x00, 0x00, 0x01,		/* QN */
		0x00, 0x00, 0x00, 0x02,		/* MSN */
		0x00, 0x00, 0x10, 0x00,		/* MO */
	};
	struct ddp_untagged_fields f = {
		.rsvdulp0 = 0x43, .rsvdulp1 = 0xcafef00d,
		.qn = 1, .msn = 2, .mo = 0x1000,
	};
	struct ddp_untagged_hdr h;

	ddp_untagged_hdr_init(&h, true, &f);
	KUNIT_EXPECT_MEMEQ(test, &h, want, sizeof(want));
}

/* RFC 5041 §4.3 Figure 5: untagged header, decode */
static void ddp_untagged_decode(struct kunit *test)
{
	static const u8 wire[] = {
		0x01, 0xff,
		0x01, 0x02, 0x03, 0x04,
		0xff, 0xff, 0xff, 0xfe,
		0x80, 0x00, 0x00, 0x00,
		0x00, 0x01, 0x00, 0x00,
	};
	const struct ddp_untagged_hdr *h = (const void *)wire;
	struct ddp_untagged_fields f;

	ddp_untagged_hdr_get(h, &f);
	KUNIT_EXPECT_FALSE(test, ddp_ctrl_tagged(h->ctrl));
	KUNIT_EXPECT_FALSE(test, ddp_ctrl_last(h->ctrl));
	KUNIT_EXPECT_EQ(test, f.rsvdulp0, 0xff);
	KUNIT_EXPECT_EQ(test, f.rsvdulp1, 0x01020304);
	KUNIT_EXPECT_EQ(test, f.qn, 0xfffffffe);
	KUNIT_EXPECT_EQ(test, f.msn, 0x80000000);
	KUNIT_EXPECT_EQ(test, f.mo, 0x00010000);
}

/* RFC 5041 §5.2 example: untagged 2048 octets, MULPDU 1500 -> 1482+566 */
static void ddp_seg_untagged_example(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ddp_seg_payload_max(1500, false), 1482);
	KUNIT_EXPECT_EQ(test, ddp_seg_count(2048, 1500, false), 2);
	KUNIT_EXPECT_EQ(test, 2048 - ddp_seg_payload_max(1500, false), 566);
}

/* RFC 5041 §5.2 example: tagged 2048 at TO 16384 -> 1486 + 562 at 17870 */
static void ddp_seg_tagged_example(struct kunit *test)
{
	u32 first = ddp_seg_payload_max(1500, true);

	KUNIT_EXPECT_EQ(test, first, 1486);
	KUNIT_EXPECT_EQ(test, ddp_seg_count(2048, 1500, true), 2);
	KUNIT_EXPECT_EQ(test, 16384 + first, 17870);
	KUNIT_EXPECT_EQ(test, 2048 - first, 562);
}

/* RFC 5041 §5.2: a zero-length message consumes exactly one segment */
static void ddp_seg_zero_length(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ddp_seg_count(0, 1500, true), 1);
	KUNIT_EXPECT_EQ(test, ddp_seg_count(0, 1500, false), 1);
	KUNIT_EXPECT_EQ(test, ddp_seg_count(1482, 1500, false), 1);
	KUNIT_EXPECT_EQ(test, ddp_seg_count(1483, 1500, false), 2);
	/* MULPDU that cannot carry a header and one octet */
	KUNIT_EXPECT_EQ(test, ddp_seg_count(1, 14, true), 0);
	KUNIT_EXPECT_EQ(test, ddp_seg_count(1, 18, false), 0);
}

/* RFC 5041 §7.2: the error numbers, by hand from the table */
static void ddp_error_table(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_LOCAL_CATASTROPHIC),
			0x010000);
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_T_INVALID_STAG),
			0x010100);
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_T_BASE_BOUNDS),
			0x010101);
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_T_STAG_NOT_ASSOC),
			0x010102);
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_T_TO_WRAP),
			0x010103);
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_T_VERSION),
			0x010104);
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_UT_INVALID_QN),
			0x010201);
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_UT_MSN_NO_BUF),
			0x010202);
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_UT_MSN_RANGE),
			0x010203);
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_UT_INVALID_MO),
			0x010204);
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_UT_TOO_LONG),
			0x010205);
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_UT_VERSION),
			0x010206);
}

/* A registered buffer at TO 0x1000, 0x1000 octets long. */
static const struct sw_ddp_stag_view good_stag = {
	.valid = true, .stream_ok = true, .access_ok = true,
	.base = 0x1000, .len = 0x1000,
};

static void tagged_hdr(struct ddp_tagged_hdr *h, u64 to)
{
	ddp_tagged_hdr_init(h, true, 0, 0x100, to);
}

/* RFC 5041 §7.1: a segment inside its buffer passes */
static void ddp_tagged_valid(struct kunit *test)
{
	struct ddp_tagged_hdr h;

	tagged_hdr(&h, 0x1000);
	EXPECT_DDP_ERR(test, ddp_validate_tagged(&h, 14 + 0x1000, &good_stag),
		       SW_DDP_TERM_OK);
	tagged_hdr(&h, 0x1fff);
	EXPECT_DDP_ERR(test, ddp_validate_tagged(&h, 14 + 1, &good_stag),
		       SW_DDP_TERM_OK);
}

/* RFC 5041 §4.1: DV must be 1 -> §7.2 0x1/0x04 Invalid DDP version */
static void ddp_tagged_bad_version(struct kunit *test)
{
	struct ddp_tagged_hdr h;

	tagged_hdr(&h, 0x1000);
	h.ctrl = DDP_CTRL_T | DDP_CTRL_L;		/* DV = 0 */
	EXPECT_DDP_ERR(test, ddp_validate_tagged(&h, 20, &good_stag),
		       DDP_ERR_T_VERSION);
	h.ctrl = DDP_CTRL_T | 2;
	EXPECT_DDP_ERR(test, ddp_validate_tagged(&h, 20, NULL),
		       DDP_ERR_T_VERSION);
	h.ctrl = DDP_CTRL_T | 3;
	EXPECT_DDP_ERR(test, ddp_validate_tagged(&h, 20, NULL),
		       DDP_ERR_T_VERSION);
}

/* RFC 5041 §4.1: Rsvd is "not checked on receive" */
static void ddp_rsvd_not_checked(struct kunit *test)
{
	struct ddp_tagged_hdr th;
	struct ddp_untagged_hdr uh = { .ctrl = DDP_CTRL_RSVD_MASK | 1 };

	tagged_hdr(&th, 0x1000);
	th.ctrl |= DDP_CTRL_RSVD_MASK;
	EXPECT_DDP_ERR(test, ddp_validate_tagged(&th, 30, &good_stag),
		       SW_DDP_TERM_OK);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&uh, 30, NULL),
		       SW_DDP_TERM_OK);
}

/* RFC 5041 §3 item 7: the LLP length must cover the header */
static void ddp_short_segment(struct kunit *test)
{
	struct ddp_tagged_hdr th;
	struct ddp_untagged_hdr uh = { .ctrl = 0x41 };

	tagged_hdr(&th, 0x1000);
	EXPECT_DDP_ERR(test, ddp_validate_tagged(&th, 13, NULL),
		       DDP_ERR_LOCAL_CATASTROPHIC);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&uh, 17, NULL),
		       DDP_ERR_LOCAL_CATASTROPHIC);
	EXPECT_DDP_ERR(test, ddp_validate_segment(&uh, 0, NULL, NULL),
		       DDP_ERR_LOCAL_CATASTROPHIC);
}

/* RFC 5041 §7.1 tagged 1 -> §7.2 0x1/0x00 Invalid STag */
static void ddp_tagged_invalid_stag(struct kunit *test)
{
	struct sw_ddp_stag_view v = good_stag;
	struct ddp_tagged_hdr h;

	v.valid = false;
	tagged_hdr(&h, 0x1000);
	EXPECT_DDP_ERR(test, ddp_validate_tagged(&h, 15, &v),
		       DDP_ERR_T_INVALID_STAG);
}

/* RFC 5041 §7.1 tagged 1, §8.2 -> §7.2 0x1/0x02 not associated */
static void ddp_tagged_not_assoc(struct kunit *test)
{
	struct sw_ddp_stag_view v = good_stag;
	struct ddp_tagged_hdr h;

	v.stream_ok = false;
	tagged_hdr(&h, 0x1000);
	EXPECT_DDP_ERR(test, ddp_validate_tagged(&h, 15, &v),
		       DDP_ERR_T_STAG_NOT_ASSOC);
}

/* RFC 5041 §7.1 tagged 3 -> §7.2 0x1/0x01 Base or bounds violation */
static void ddp_tagged_below_base(struct kunit *test)
{
	struct ddp_tagged_hdr h;

	tagged_hdr(&h, 0xfff);
	EXPECT_DDP_ERR(test, ddp_validate_tagged(&h, 15, &good_stag),
		       DDP_ERR_T_BASE_BOUNDS);
	tagged_hdr(&h, 0x2000);
	EXPECT_DDP_ERR(test, ddp_validate_tagged(&h, 15, &good_stag),
		       DDP_ERR_T_BASE_BOUNDS);
}

/* RFC 5041 §7.1 tagged 4 -> §7.2 0x1/0x01: TO + length past the end */
static void ddp_tagged_past_end(struct kunit *test)
{
	struct ddp_tagged_hdr h;

	tagged_hdr(&h, 0x1800);
	EXPECT_DDP_ERR(test, ddp_validate_tagged(&h, 14 + 0x800, &good_stag),
		       SW_DDP_TERM_OK);
	EXPECT_DDP_ERR(test, ddp_validate_tagged(&h, 14 + 0x801, &good_stag),
		       DDP_ERR_T_BASE_BOUNDS);
}

/*
 * RFC 5041 §7.1 tagged 5 -> §7.2 0x1/0x03 TO wrap, checked after the
 * STag (tagged 1): not from the header alone.
 */
static void ddp_tagged_to_wrap(struct kunit *test)
{
	struct sw_ddp_stag_view bad = good_stag;
	struct ddp_tagged_hdr h;

	bad.valid = false;
	tagged_hdr(&h, U64_MAX - 9);
	EXPECT_DDP_ERR(test, ddp_validate_tagged(&h, 14 + 9, &good_stag),
		       DDP_ERR_T_BASE_BOUNDS);
	EXPECT_DDP_ERR(test, ddp_validate_tagged(&h, 14 + 10, &good_stag),
		       DDP_ERR_T_TO_WRAP);
	EXPECT_DDP_ERR(test, ddp_validate_tagged(&h, 14 + 10, &bad),
		       DDP_ERR_T_INVALID_STAG);
	EXPECT_DDP_ERR(test, ddp_validate_tagged(&h, 14 + 10, NULL),
		       SW_DDP_TERM_OK);
}

/* RFC 5041 §5.2: STag and TO MUST NOT be checked at zero length */
static void ddp_tagged_zero_length(struct kunit *test)
{
	struct sw_ddp_stag_view v = good_stag;
	struct ddp_tagged_hdr h;

	v.valid = false;
	tagged_hdr(&h, U64_MAX);
	EXPECT_DDP_ERR(test, ddp_validate_tagged(&h, 14, &v), SW_DDP_TERM_OK);
}

/* Queue 0 with buffers for MSN 5..8, 100 octets each. */
static const struct sw_ddp_queue_view good_queue = {
	.qn_valid = true, .msn_first = 5, .nbufs = 4, .buf_len = 100,
};

static void untagged_hdr(struct ddp_untagged_hdr *h, u32 msn, u32 mo)
{
	struct ddp_untagged_fields f = { .msn = msn, .mo = mo };

	ddp_untagged_hdr_init(h, true, &f);
}

/* RFC 5041 §7.1: a segment within its buffer passes */
static void ddp_untagged_valid(struct kunit *test)
{
	struct ddp_untagged_hdr h;

	untagged_hdr(&h, 5, 0);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 18 + 100, &good_queue),
		       SW_DDP_TERM_OK);
	untagged_hdr(&h, 8, 99);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 18 + 1, &good_queue),
		       SW_DDP_TERM_OK);
}

/* RFC 5041 §4.1: DV must be 1 -> §7.2 0x2/0x06 Invalid DDP version */
static void ddp_untagged_bad_version(struct kunit *test)
{
	struct ddp_untagged_hdr h;

	untagged_hdr(&h, 5, 0);
	h.ctrl = DDP_CTRL_L;
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 20, &good_queue),
		       DDP_ERR_UT_VERSION);
	h.ctrl = 3;
	EXPECT_DDP_ERR(test, ddp_validate_segment(&h, 20, NULL, NULL),
		       DDP_ERR_UT_VERSION);
}

/* RFC 5041 §7.1 untagged 1 -> §7.2 0x2/0x01 Invalid QN */
static void ddp_untagged_invalid_qn(struct kunit *test)
{
	struct sw_ddp_queue_view v = good_queue;
	struct ddp_untagged_hdr h;

	v.qn_valid = false;
	untagged_hdr(&h, 5, 0);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 19, &v),
		       DDP_ERR_UT_INVALID_QN);
}

/* RFC 5041 §7.1 untagged 2 -> §7.2 0x2/0x02 Invalid MSN, no buffer */
static void ddp_untagged_msn_no_buffer(struct kunit *test)
{
	struct sw_ddp_queue_view v = good_queue;
	struct ddp_untagged_hdr h;

	untagged_hdr(&h, 9, 0);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 19, &v),
		       DDP_ERR_UT_MSN_NO_BUF);
	v.nbufs = 0;
	untagged_hdr(&h, 5, 0);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 19, &v),
		       DDP_ERR_UT_MSN_NO_BUF);
}

/* RFC 5041 §7.1 untagged 5 -> §7.2 0x2/0x03 MSN range is not valid */
static void ddp_untagged_msn_range(struct kunit *test)
{
	struct ddp_untagged_hdr h;

	untagged_hdr(&h, 4, 0);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 19, &good_queue),
		       DDP_ERR_UT_MSN_RANGE);
	untagged_hdr(&h, 5 + 0x80000000u, 0);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 19, &good_queue),
		       DDP_ERR_UT_MSN_RANGE);
}

/* RFC 5041 §4.3: MSN wraps to 0 after 0xFFFFFFFF */
static void ddp_untagged_msn_wrap(struct kunit *test)
{
	struct sw_ddp_queue_view v = good_queue;
	struct ddp_untagged_hdr h;

	v.msn_first = 0xfffffffe;
	untagged_hdr(&h, 0xffffffff, 0);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 19, &v),
		       SW_DDP_TERM_OK);
	untagged_hdr(&h, 1, 0);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 19, &v),
		       SW_DDP_TERM_OK);
	untagged_hdr(&h, 2, 0);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 19, &v),
		       DDP_ERR_UT_MSN_NO_BUF);
	untagged_hdr(&h, 0xfffffffd, 0);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 19, &v),
		       DDP_ERR_UT_MSN_RANGE);
}

/* RFC 5041 §7.1 untagged 3 -> §7.2 0x2/0x04 Invalid MO */
static void ddp_untagged_invalid_mo(struct kunit *test)
{
	struct ddp_untagged_hdr h;

	untagged_hdr(&h, 6, 100);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 19, &good_queue),
		       DDP_ERR_UT_INVALID_MO);
	untagged_hdr(&h, 6, 0xffffffff);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 19, &good_queue),
		       DDP_ERR_UT_INVALID_MO);
}

/*
 * A zero-length segment places nothing, but its MO sets the length of
 * the message delivered (RFC 5041 §5.4): at most the buffer's end.
 */
static void ddp_untagged_zero_length_mo(struct kunit *test)
{
	struct ddp_untagged_hdr h;

	untagged_hdr(&h, 6, 0);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 18, &good_queue),
		       SW_DDP_TERM_OK);
	untagged_hdr(&h, 6, 100);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 18, &good_queue),
		       SW_DDP_TERM_OK);
	untagged_hdr(&h, 6, 101);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 18, &good_queue),
		       DDP_ERR_UT_INVALID_MO);
	untagged_hdr(&h, 6, 0xfffffff0);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 18, &good_queue),
		       DDP_ERR_UT_INVALID_MO);
}

/* RFC 5041 §7.1 untagged 4 -> §7.2 0x2/0x05 too long for the buffer */
static void ddp_untagged_too_long(struct kunit *test)
{
	struct ddp_untagged_hdr h;

	untagged_hdr(&h, 6, 50);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 18 + 50, &good_queue),
		       SW_DDP_TERM_OK);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 18 + 51, &good_queue),
		       DDP_ERR_UT_TOO_LONG);
	untagged_hdr(&h, 6, 0);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 18 + 101, &good_queue),
		       DDP_ERR_UT_TOO_LONG);
}

/*
 * RFC 5041 §7.1 lists placement checks for non-zero length segments; a
 * zero-length message is still Delivered (§5.4), so QN/MSN are checked
 * (its MO too: ddp_untagged_zero_length_mo).
 */
static void ddp_untagged_zero_length(struct kunit *test)
{
	struct sw_ddp_queue_view v = good_queue;
	struct ddp_untagged_hdr h;

	untagged_hdr(&h, 5, 100);
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 18, &v),
		       SW_DDP_TERM_OK);
	v.qn_valid = false;
	EXPECT_DDP_ERR(test, ddp_validate_untagged(&h, 18, &v),
		       DDP_ERR_UT_INVALID_QN);
}

/* RFC 5041 §4.1: the T flag selects the header format */
static void ddp_segment_dispatch(struct kunit *test)
{
	struct sw_ddp_stag_view sv = good_stag;
	struct ddp_untagged_hdr uh;
	struct ddp_tagged_hdr th;

	sv.valid = false;
	tagged_hdr(&th, 0x1000);
	untagged_hdr(&uh, 4, 0);
	EXPECT_DDP_ERR(test, ddp_validate_segment(&th, 15, &sv, &good_queue),
		       DDP_ERR_T_INVALID_STAG);
	EXPECT_DDP_ERR(test, ddp_validate_segment(&uh, 19, &sv, &good_queue),
		       DDP_ERR_UT_MSN_RANGE);
}

static struct kunit_case sw_ddp_ddp_cases[] = {
	KUNIT_CASE(ddp_ctrl_encode),
	KUNIT_CASE(ddp_ctrl_decode),
	KUNIT_CASE(ddp_hdr_layout),
	KUNIT_CASE(ddp_tagged_encode),
	KUNIT_CASE(ddp_tagged_decode),
	KUNIT_CASE(ddp_untagged_encode),
	KUNIT_CASE(ddp_untagged_decode),
	KUNIT_CASE(ddp_seg_untagged_example),
	KUNIT_CASE(ddp_seg_tagged_example),
	KUNIT_CASE(ddp_seg_zero_length),
	KUNIT_CASE(ddp_error_table),
	KUNIT_CASE(ddp_tagged_valid),
	KUNIT_CASE(ddp_tagged_bad_version),
	KUNIT_CASE(ddp_rsvd_not_checked),
	KUNIT_CASE(ddp_short_segment),
	KUNIT_CASE(ddp_tagged_invalid_stag),
	KUNIT_CASE(ddp_tagged_not_assoc),
	KUNIT_CASE(ddp_tagged_below_base),
	KUNIT_CASE(ddp_tagged_past_end),
	KUNIT_CASE(ddp_tagged_to_wrap),
	KUNIT_CASE(ddp_tagged_zero_length),
	KUNIT_CASE(ddp_untagged_valid),
	KUNIT_CASE(ddp_untagged_bad_version),
	KUNIT_CASE(ddp_untagged_invalid_qn),
	KUNIT_CASE(ddp_untagged_msn_no_buffer),
	KUNIT_CASE(ddp_untagged_msn_range),
	KUNIT_CASE(ddp_untagged_msn_wrap),
	KUNIT_CASE(ddp_untagged_invalid_mo),
	KUNIT_CASE(ddp_untagged_zero_length_mo),
	KUNIT_CASE(ddp_untagged_too_long),
	KUNIT_CASE(ddp_untagged_zero_length),
	KUNIT_CASE(ddp_segment_dispatch),
	{}
};

static struct kunit_suite sw_ddp_ddp_suite = {
	.name = "sw_ddp_ddp",
	.test_cases = sw_ddp_ddp_cases,
};

kunit_test_suites(&sw_ddp_ddp_suite);
