/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * DDP wire format, RFC 5041 (Direct Data Placement over Reliable
 * Transports), section 4.
 *
 * Every DDP header starts with the one-octet DDP Control Field.  Over MPA
 * the two-octet ULPDU_Length precedes it; that field belongs to MPA
 * (<sw_ddp/mpa.h>), and SCTP carries no such field, so the structures
 * here start at the control octet.  The octet after it (RsvdULP[0:7]) is
 * opaque to DDP; RDMAP (<sw_ddp/rdmap.h>) uses it as its control field.
 */
#ifndef SW_DDP_WIRE_DDP_H
#define SW_DDP_WIRE_DDP_H

#include <sw_ddp/wire.h>

/* RFC 5041 §4.1: DDP Control Field, |T|L| Rsvd (4) | DV (2)| */
enum {
	DDP_CTRL_T = 0x80,		/* Tagged flag */
	DDP_CTRL_L = 0x40,		/* Last flag */
	DDP_CTRL_RSVD_MASK = 0x3c,	/* zero on transmit, not checked */
	DDP_CTRL_DV_MASK = 0x03,	/* DDP version */
};

/* RFC 5041 §4.1: "This field MUST be set to one" */
enum { DDP_VERSION = 1 };

/* RFC 5041 §4.2 / §4.3: header lengths, control octet included */
enum {
	DDP_TAGGED_HDR_LEN = 14,
	DDP_UNTAGGED_HDR_LEN = 18,
};

/* RFC 5041 §4.2, Figure 4: Tagged Buffer DDP Header */
struct ddp_tagged_hdr {
	u8 ctrl;		/* T=1, L, Rsvd, DV */
	u8 rsvdulp;		/* RsvdULP, 8 bits, opaque to DDP */
	__be32 stag;		/* Steering Tag */
	__be64 to;		/* Tagged Offset */
} __packed;

/* RFC 5041 §4.3, Figure 5: Untagged Buffer DDP Header */
struct ddp_untagged_hdr {
	u8 ctrl;		/* T=0, L, Rsvd, DV */
	u8 rsvdulp0;		/* RsvdULP[0:7] */
	__be32 rsvdulp1;	/* RsvdULP[8:39] */
	__be32 qn;		/* Queue Number */
	__be32 msn;		/* Message Sequence Number */
	__be32 mo;		/* Message Offset */
} __packed;

static_assert(sizeof(struct ddp_tagged_hdr) == DDP_TAGGED_HDR_LEN);
static_assert(sizeof(struct ddp_untagged_hdr) == DDP_UNTAGGED_HDR_LEN);

/* RFC 5041 §7.2: Error Types (4 bits) */
enum ddp_etype {
	DDP_ETYPE_CATASTROPHIC = 0x0,	/* Local Catastrophic */
	DDP_ETYPE_TAGGED = 0x1,		/* Tagged Buffer Error */
	DDP_ETYPE_UNTAGGED = 0x2,	/* Untagged Buffer Error */
	DDP_ETYPE_RSVD_LLP = 0x3,	/* Reserved for the use by the LLP */
};

/* RFC 5041 §7.2: Error Codes (8 bits) for Error Type 0x1 */
enum ddp_ecode_tagged {
	DDP_ECODE_T_INVALID_STAG = 0x00,
	DDP_ECODE_T_BASE_BOUNDS = 0x01,
	DDP_ECODE_T_STAG_NOT_ASSOC = 0x02,	/* with DDP Stream */
	DDP_ECODE_T_TO_WRAP = 0x03,
	DDP_ECODE_T_VERSION = 0x04,		/* invalid DDP version */
};

/* RFC 5041 §7.2: Error Codes (8 bits) for Error Type 0x2 */
enum ddp_ecode_untagged {
	DDP_ECODE_UT_INVALID_QN = 0x01,
	DDP_ECODE_UT_MSN_NO_BUF = 0x02,		/* no buffer available */
	DDP_ECODE_UT_MSN_RANGE = 0x03,		/* MSN range is not valid */
	DDP_ECODE_UT_INVALID_MO = 0x04,
	DDP_ECODE_UT_TOO_LONG = 0x05,		/* too long for buffer */
	DDP_ECODE_UT_VERSION = 0x06,		/* invalid DDP version */
};

/* RFC 5041 §7.2: Local Catastrophic carries Error Code 0x00 */
enum { DDP_ECODE_CATASTROPHIC = 0x00 };

/* Build a control octet: Rsvd zero (§4.1), DV = 1 (§4.1). */
static inline u8 ddp_ctrl_make(bool tagged, bool last)
{
	return (tagged ? DDP_CTRL_T : 0) | (last ? DDP_CTRL_L : 0) |
	       DDP_VERSION;
}

static inline bool ddp_ctrl_tagged(u8 ctrl)
{
	return ctrl & DDP_CTRL_T;
}

static inline bool ddp_ctrl_last(u8 ctrl)
{
	return ctrl & DDP_CTRL_L;
}

static inline u8 ddp_ctrl_dv(u8 ctrl)
{
	return ctrl & DDP_CTRL_DV_MASK;
}

/* Header length selected by the T flag (RFC 5041 §4.2, §4.3). */
static inline unsigned int ddp_hdr_len(u8 ctrl)
{
	return ddp_ctrl_tagged(ctrl) ? DDP_TAGGED_HDR_LEN :
				       DDP_UNTAGGED_HDR_LEN;
}

static inline void ddp_tagged_hdr_init(struct ddp_tagged_hdr *h, bool last,
				       u8 rsvdulp, u32 stag, u64 to)
{
	h->ctrl = ddp_ctrl_make(true, last);
	h->rsvdulp = rsvdulp;
	h->stag = cpu_to_be32(stag);
	h->to = cpu_to_be64(to);
}

static inline u32 ddp_tagged_stag(const struct ddp_tagged_hdr *h)
{
	return be32_to_cpu(h->stag);
}

static inline u64 ddp_tagged_to(const struct ddp_tagged_hdr *h)
{
	return be64_to_cpu(h->to);
}

/*
 * Untagged header fields other than the control octet.  @rsvdulp0 and
 * @rsvdulp1 are RsvdULP[0:7] and RsvdULP[8:39] (RFC 5041 §4.3).
 */
struct ddp_untagged_fields {
	u8 rsvdulp0;
	u32 rsvdulp1;
	u32 qn;
	u32 msn;
	u32 mo;
};

static inline void ddp_untagged_hdr_init(struct ddp_untagged_hdr *h,
					 bool last,
					 const struct ddp_untagged_fields *f)
{
	h->ctrl = ddp_ctrl_make(false, last);
	h->rsvdulp0 = f->rsvdulp0;
	h->rsvdulp1 = cpu_to_be32(f->rsvdulp1);
	h->qn = cpu_to_be32(f->qn);
	h->msn = cpu_to_be32(f->msn);
	h->mo = cpu_to_be32(f->mo);
}

static inline void ddp_untagged_hdr_get(const struct ddp_untagged_hdr *h,
					struct ddp_untagged_fields *f)
{
	f->rsvdulp0 = h->rsvdulp0;
	f->rsvdulp1 = be32_to_cpu(h->rsvdulp1);
	f->qn = be32_to_cpu(h->qn);
	f->msn = be32_to_cpu(h->msn);
	f->mo = be32_to_cpu(h->mo);
}

#endif /* SW_DDP_WIRE_DDP_H */
