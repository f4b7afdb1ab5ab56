/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RDMAP wire format, RFC 5040 (A Remote Direct Memory Access Protocol
 * Specification), section 4, and the Terminate error numbers of every
 * layer, which the RDMAP Terminate message carries.
 *
 * Sections of RFC 5040 other than §4.1, §4.2 and §4.4 are named by
 * title ("Terminate Header") rather than number.
 *
 * The RDMAP control octet is DDP's RsvdULP[0:7]; for untagged messages
 * RsvdULP[8:39] is the Invalidate STag (RFC 5040 §4.1).  RDMAP messages
 * are therefore DDP headers with these octets filled in.
 */
#ifndef SW_DDP_WIRE_RDMAP_H
#define SW_DDP_WIRE_RDMAP_H

#include <sw_ddp/wire.h>
#include <sw_ddp/ddp.h>
#include <sw_ddp/mpa.h>

/* RFC 5040 §4.1: RDMAP control octet, | RV (2) | Rsv (2) | OpCode (4) | */
enum {
	RDMAP_CTRL_RV_MASK = 0xc0,
	RDMAP_CTRL_RV_SHIFT = 6,
	RDMAP_CTRL_RSVD_MASK = 0x30,	/* zero on transmit, not checked */
	RDMAP_CTRL_OPCODE_MASK = 0x0f,
};

/* RFC 5040 §4.1: "RDMA Version ... MUST be set to 01b" */
enum { RDMAP_VERSION = 1 };

/* RFC 5040 §4.2: RDMA Message OpCodes; 1000b-1111b are reserved. */
enum rdmap_opcode {
	RDMAP_OP_WRITE = 0x0,
	RDMAP_OP_READ_REQ = 0x1,
	RDMAP_OP_READ_RESP = 0x2,
	RDMAP_OP_SEND = 0x3,
	RDMAP_OP_SEND_INV = 0x4,
	RDMAP_OP_SEND_SE = 0x5,
	RDMAP_OP_SEND_SE_INV = 0x6,
	RDMAP_OP_TERMINATE = 0x7,
	RDMAP_OP_LAST = RDMAP_OP_TERMINATE,
};

/* RFC 5040 §4.2: untagged DDP Queue Numbers used by RDMAP */
enum rdmap_qn {
	RDMAP_QN_SEND = 0,
	RDMAP_QN_READ_REQ = 1,
	RDMAP_QN_TERMINATE = 2,
	RDMAP_QN_COUNT = 3,
};

/* RFC 5040 §4.4: RDMA Read Request Header, the 28-octet ULP payload */
struct rdmap_read_req_hdr {
	__be32 sink_stag;	/* SinkSTag */
	__be64 sink_to;		/* SinkTO */
	__be32 size;		/* RDMARDSZ, RDMA Read Message Size */
	__be32 src_stag;	/* SrcSTag */
	__be64 src_to;		/* SrcTO */
} __packed;

enum { RDMAP_READ_REQ_LEN = 28 };
static_assert(sizeof(struct rdmap_read_req_hdr) == RDMAP_READ_REQ_LEN);

/*
 * RFC 5040 "Terminate Header": the 32-bit Terminate Control
 *   | Layer (4) | EType (4) | Error Code (8) |M|D|R| Reserved (13) |
 * is followed, as the Hdrct bits say, by the DDP Segment Length (16 bits,
 * present with M or D, valid with M), the Terminated DDP Header (14 or 18
 * octets, with D) and the Terminated RDMA Header (with R, after D).
 */
struct rdmap_term_hdr {
	__be32 ctrl;
} __packed;

static_assert(sizeof(struct rdmap_term_hdr) == 4);

enum {
	RDMAP_TERM_LAYER_SHIFT = 28,
	RDMAP_TERM_ETYPE_SHIFT = 24,
	RDMAP_TERM_ECODE_SHIFT = 16,
	RDMAP_TERM_HDRCT_M = 0x8000,	/* DDP Segment Length valid */
	RDMAP_TERM_HDRCT_D = 0x4000,	/* DDP Header included */
	RDMAP_TERM_HDRCT_R = 0x2000,	/* RDMAP Header included */
	RDMAP_TERM_HDRCT_MASK = 0xe000,
	RDMAP_TERM_RSVD_MASK = 0x1fff,
	RDMAP_TERM_SEGLEN_SIZE = 2,
	/* control + segment length + untagged DDP hdr + Read Request */
	RDMAP_TERM_MAX_LEN = 4 + 2 + DDP_UNTAGGED_HDR_LEN + RDMAP_READ_REQ_LEN,
};

/* RFC 5040 "Terminate Header": Layer */
enum sw_ddp_term_layer {
	SW_DDP_LAYER_RDMAP = 0x0,
	SW_DDP_LAYER_DDP = 0x1,
	SW_DDP_LAYER_LLP = 0x2,		/* MPA, or SCTP */
	SW_DDP_LAYER_NONE = 0xff,	/* not a wire value: "no error" */
};

/* RFC 5040 "Terminate Header": RDMAP Error Types */
enum rdmap_etype {
	RDMAP_ETYPE_CATASTROPHIC = 0x0,		/* Local Catastrophic */
	RDMAP_ETYPE_REMOTE_PROT = 0x1,		/* Remote Protection */
	RDMAP_ETYPE_REMOTE_OP = 0x2,		/* Remote Operation */
};

/* RFC 5040 "Terminate Header": RDMAP Error Codes */
enum rdmap_ecode {
	RDMAP_ECODE_INVALID_STAG = 0x00,
	RDMAP_ECODE_BASE_BOUNDS = 0x01,
	RDMAP_ECODE_ACCESS = 0x02,		/* access rights violation */
	RDMAP_ECODE_STAG_NOT_ASSOC = 0x03,	/* with RDMAP Stream */
	RDMAP_ECODE_TO_WRAP = 0x04,
	RDMAP_ECODE_VERSION = 0x05,		/* invalid RDMAP version */
	RDMAP_ECODE_OPCODE = 0x06,		/* unexpected OpCode */
	RDMAP_ECODE_CATASTROPHIC_STREAM = 0x07,
	RDMAP_ECODE_CATASTROPHIC_GLOBAL = 0x08,
	RDMAP_ECODE_CANNOT_INVALIDATE = 0x09,
	RDMAP_ECODE_UNSPECIFIED = 0xff,
};

/*
 * One Terminate error: what goes into Layer/EType/Error Code.  Layer
 * SW_DDP_LAYER_NONE means "no error" and is never put on the wire.
 */
struct sw_ddp_term_err {
	u8 layer;
	u8 etype;
	u8 ecode;
};

#define SW_DDP_TERM_ERR(l, t, c) \
	((struct sw_ddp_term_err){ .layer = (l), .etype = (t), .ecode = (c) })

#define SW_DDP_TERM_OK SW_DDP_TERM_ERR(SW_DDP_LAYER_NONE, 0, 0)

/* RFC 5040 "Terminate Header", RDMAP layer */
#define RDMAP_ERR(t, c) SW_DDP_TERM_ERR(SW_DDP_LAYER_RDMAP, t, c)
#define RDMAP_ERR_LOCAL_CATASTROPHIC \
	RDMAP_ERR(RDMAP_ETYPE_CATASTROPHIC, 0x00)
#define RDMAP_ERR_PROT_INVALID_STAG \
	RDMAP_ERR(RDMAP_ETYPE_REMOTE_PROT, RDMAP_ECODE_INVALID_STAG)
#define RDMAP_ERR_PROT_BASE_BOUNDS \
	RDMAP_ERR(RDMAP_ETYPE_REMOTE_PROT, RDMAP_ECODE_BASE_BOUNDS)
#define RDMAP_ERR_PROT_ACCESS \
	RDMAP_ERR(RDMAP_ETYPE_REMOTE_PROT, RDMAP_ECODE_ACCESS)
#define RDMAP_ERR_PROT_STAG_NOT_ASSOC \
	RDMAP_ERR(RDMAP_ETYPE_REMOTE_PROT, RDMAP_ECODE_STAG_NOT_ASSOC)
#define RDMAP_ERR_PROT_TO_WRAP \
	RDMAP_ERR(RDMAP_ETYPE_REMOTE_PROT, RDMAP_ECODE_TO_WRAP)
#define RDMAP_ERR_PROT_CANNOT_INVALIDATE \
	RDMAP_ERR(RDMAP_ETYPE_REMOTE_PROT, RDMAP_ECODE_CANNOT_INVALIDATE)
#define RDMAP_ERR_PROT_UNSPECIFIED \
	RDMAP_ERR(RDMAP_ETYPE_REMOTE_PROT, RDMAP_ECODE_UNSPECIFIED)
#define RDMAP_ERR_OP_VERSION \
	RDMAP_ERR(RDMAP_ETYPE_REMOTE_OP, RDMAP_ECODE_VERSION)
#define RDMAP_ERR_OP_OPCODE \
	RDMAP_ERR(RDMAP_ETYPE_REMOTE_OP, RDMAP_ECODE_OPCODE)
#define RDMAP_ERR_OP_CATASTROPHIC_STREAM \
	RDMAP_ERR(RDMAP_ETYPE_REMOTE_OP, RDMAP_ECODE_CATASTROPHIC_STREAM)
#define RDMAP_ERR_OP_CATASTROPHIC_GLOBAL \
	RDMAP_ERR(RDMAP_ETYPE_REMOTE_OP, RDMAP_ECODE_CATASTROPHIC_GLOBAL)
#define RDMAP_ERR_OP_CANNOT_INVALIDATE \
	RDMAP_ERR(RDMAP_ETYPE_REMOTE_OP, RDMAP_ECODE_CANNOT_INVALIDATE)
#define RDMAP_ERR_OP_UNSPECIFIED \
	RDMAP_ERR(RDMAP_ETYPE_REMOTE_OP, RDMAP_ECODE_UNSPECIFIED)

/* RFC 5041 §7.2, DDP layer */
#define DDP_ERR(t, c) SW_DDP_TERM_ERR(SW_DDP_LAYER_DDP, t, c)
#define DDP_ERR_LOCAL_CATASTROPHIC \
	DDP_ERR(DDP_ETYPE_CATASTROPHIC, DDP_ECODE_CATASTROPHIC)
#define DDP_ERR_T_INVALID_STAG \
	DDP_ERR(DDP_ETYPE_TAGGED, DDP_ECODE_T_INVALID_STAG)
#define DDP_ERR_T_BASE_BOUNDS \
	DDP_ERR(DDP_ETYPE_TAGGED, DDP_ECODE_T_BASE_BOUNDS)
#define DDP_ERR_T_STAG_NOT_ASSOC \
	DDP_ERR(DDP_ETYPE_TAGGED, DDP_ECODE_T_STAG_NOT_ASSOC)
#define DDP_ERR_T_TO_WRAP \
	DDP_ERR(DDP_ETYPE_TAGGED, DDP_ECODE_T_TO_WRAP)
#define DDP_ERR_T_VERSION \
	DDP_ERR(DDP_ETYPE_TAGGED, DDP_ECODE_T_VERSION)
#define DDP_ERR_UT_INVALID_QN \
	DDP_ERR(DDP_ETYPE_UNTAGGED, DDP_ECODE_UT_INVALID_QN)
#define DDP_ERR_UT_MSN_NO_BUF \
	DDP_ERR(DDP_ETYPE_UNTAGGED, DDP_ECODE_UT_MSN_NO_BUF)
#define DDP_ERR_UT_MSN_RANGE \
	DDP_ERR(DDP_ETYPE_UNTAGGED, DDP_ECODE_UT_MSN_RANGE)
#define DDP_ERR_UT_INVALID_MO \
	DDP_ERR(DDP_ETYPE_UNTAGGED, DDP_ECODE_UT_INVALID_MO)
#define DDP_ERR_UT_TOO_LONG \
	DDP_ERR(DDP_ETYPE_UNTAGGED, DDP_ECODE_UT_TOO_LONG)
#define DDP_ERR_UT_VERSION \
	DDP_ERR(DDP_ETYPE_UNTAGGED, DDP_ECODE_UT_VERSION)

/* RFC 5044 MPA errors and RFC 6581, LLP layer with Error Type MPA */
#define MPA_ERR(c) SW_DDP_TERM_ERR(SW_DDP_LAYER_LLP, MPA_ETYPE, c)
#define MPA_ERR_CONN_LOST MPA_ERR(MPA_ECODE_CONN_LOST)
#define MPA_ERR_CRC MPA_ERR(MPA_ECODE_CRC)
#define MPA_ERR_MARKER MPA_ERR(MPA_ECODE_MARKER)
#define MPA_ERR_REQ_REP MPA_ERR(MPA_ECODE_REQ_REP)
#define MPA_ERR_LOCAL_CATASTROPHIC MPA_ERR(MPA_ECODE_LOCAL_CATASTROPHIC)
#define MPA_ERR_INSUFFICIENT_IRD MPA_ERR(MPA_ECODE_INSUFFICIENT_IRD)
#define MPA_ERR_NO_MATCHING_RTR MPA_ERR(MPA_ECODE_NO_MATCHING_RTR)

static inline bool sw_ddp_term_err_ok(struct sw_ddp_term_err e)
{
	return e.layer == SW_DDP_LAYER_NONE;
}

/* Layer, EType and Error Code in one number, for logs and tests. */
static inline u32 sw_ddp_term_err_pack(struct sw_ddp_term_err e)
{
	return (u32)e.layer << 16 | (u32)e.etype << 8 | e.ecode;
}

static inline bool sw_ddp_term_err_eq(struct sw_ddp_term_err a,
				      struct sw_ddp_term_err b)
{
	return sw_ddp_term_err_pack(a) == sw_ddp_term_err_pack(b);
}

/* RFC 5040 §4.1: RV = 01b, reserved bits zero on transmit. */
static inline u8 rdmap_ctrl_make(enum rdmap_opcode op)
{
	return RDMAP_VERSION << RDMAP_CTRL_RV_SHIFT |
	       (op & RDMAP_CTRL_OPCODE_MASK);
}

static inline u8 rdmap_ctrl_rv(u8 ctrl)
{
	return (ctrl & RDMAP_CTRL_RV_MASK) >> RDMAP_CTRL_RV_SHIFT;
}

static inline u8 rdmap_ctrl_opcode(u8 ctrl)
{
	return ctrl & RDMAP_CTRL_OPCODE_MASK;
}

/* RFC 5040 §4.2: Write, Read Response and nothing else are tagged. */
static inline bool rdmap_opcode_tagged(enum rdmap_opcode op)
{
	return op == RDMAP_OP_WRITE || op == RDMAP_OP_READ_RESP;
}

/* RFC 5040 §4.1: Invalidate STag is valid for these two only. */
static inline bool rdmap_opcode_invalidates(enum rdmap_opcode op)
{
	return op == RDMAP_OP_SEND_INV || op == RDMAP_OP_SEND_SE_INV;
}

/* RFC 5040 §4.2: the DDP queue each untagged message travels on */
static inline u32 rdmap_opcode_qn(enum rdmap_opcode op)
{
	if (op == RDMAP_OP_READ_REQ)
		return RDMAP_QN_READ_REQ;
	if (op == RDMAP_OP_TERMINATE)
		return RDMAP_QN_TERMINATE;
	return RDMAP_QN_SEND;
}

/* Write or Read Response: the DDP tagged header with RDMAP control. */
static inline void rdmap_tagged_init(struct ddp_tagged_hdr *h,
				     enum rdmap_opcode op, bool last,
				     u32 stag, u64 to)
{
	ddp_tagged_hdr_init(h, last, rdmap_ctrl_make(op), stag, to);
}

/*
 * Send family, Read Request or Terminate: the DDP untagged header with
 * RDMAP control in RsvdULP[0:7] and the Invalidate STag in RsvdULP[8:39]
 * (RFC 5040 §4.1: zero unless the opcode invalidates).
 */
static inline void rdmap_untagged_init(struct ddp_untagged_hdr *h,
				       enum rdmap_opcode op, bool last,
				       u32 inv_stag, u32 msn, u32 mo)
{
	struct ddp_untagged_fields f = {
		.rsvdulp0 = rdmap_ctrl_make(op),
		.rsvdulp1 = rdmap_opcode_invalidates(op) ? inv_stag : 0,
		.qn = rdmap_opcode_qn(op),
		.msn = msn,
		.mo = mo,
	};

	ddp_untagged_hdr_init(h, last, &f);
}

/* RFC 5040 §4.4: host-order view of a Read Request */
struct rdmap_read_req {
	u32 sink_stag;
	u64 sink_to;
	u32 size;
	u32 src_stag;
	u64 src_to;
};

static inline void rdmap_read_req_put(struct rdmap_read_req_hdr *h,
				      const struct rdmap_read_req *r)
{
	h->sink_stag = cpu_to_be32(r->sink_stag);
	h->sink_to = cpu_to_be64(r->sink_to);
	h->size = cpu_to_be32(r->size);
	h->src_stag = cpu_to_be32(r->src_stag);
	h->src_to = cpu_to_be64(r->src_to);
}

static inline void rdmap_read_req_get(const struct rdmap_read_req_hdr *h,
				      struct rdmap_read_req *r)
{
	r->sink_stag = be32_to_cpu(h->sink_stag);
	r->sink_to = be64_to_cpu(h->sink_to);
	r->size = be32_to_cpu(h->size);
	r->src_stag = be32_to_cpu(h->src_stag);
	r->src_to = be64_to_cpu(h->src_to);
}

/* RFC 5040 "Terminate Header": Terminate Control word */
static inline __be32 rdmap_term_ctrl_make(struct sw_ddp_term_err e,
					  u16 hdrct)
{
	return cpu_to_be32((u32)(e.layer & 0xf) << RDMAP_TERM_LAYER_SHIFT |
			   (u32)(e.etype & 0xf) << RDMAP_TERM_ETYPE_SHIFT |
			   (u32)e.ecode << RDMAP_TERM_ECODE_SHIFT |
			   (hdrct & RDMAP_TERM_HDRCT_MASK));
}

static inline struct sw_ddp_term_err rdmap_term_ctrl_err(__be32 ctrl)
{
	u32 v = be32_to_cpu(ctrl);

	return SW_DDP_TERM_ERR(v >> RDMAP_TERM_LAYER_SHIFT & 0xf,
			       v >> RDMAP_TERM_ETYPE_SHIFT & 0xf,
			       v >> RDMAP_TERM_ECODE_SHIFT & 0xff);
}

static inline u16 rdmap_term_ctrl_hdrct(__be32 ctrl)
{
	return be32_to_cpu(ctrl) & RDMAP_TERM_HDRCT_MASK;
}

#endif /* SW_DDP_WIRE_RDMAP_H */
