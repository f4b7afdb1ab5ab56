/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MPA wire format: RFC 5044 (Marker PDU Aligned Framing for TCP) and
 * RFC 6581 (Enhanced RDMA Connection Establishment, "MPA v2").
 *
 * FPDU on the TCP stream (markers, when enabled, may sit anywhere in it
 * on a 512-octet grid of TCP sequence space):
 *
 *   | ULPDU_Length (16) | ULPDU ... | PAD (0-3) | CRC (32) |
 *
 * The CRC is CRC32c (the iSCSI polynomial, RFC 3720) over every octet of
 * the FPDU before the CRC field, markers included; it is stored on the
 * wire least significant octet first, exactly as the RFC 3720 B.4 test
 * vectors list it.  There is therefore no struct field for it here; the
 * kernel side stores it little-endian (drivers/sw_ddp/mpa.c).
 *
 * RFC 5044 and RFC 6581 sections are named by title, not number.
 */
#ifndef SW_DDP_WIRE_MPA_H
#define SW_DDP_WIRE_MPA_H

#include <sw_ddp/wire.h>

enum {
	MPA_ULPDU_LEN_SIZE = 2,		/* RFC 5044 FPDU: ULPDU_Length */
	MPA_CRC_SIZE = 4,		/* RFC 5044 FPDU: CRC */
	MPA_FPDU_OVERHEAD = 6,		/* length field + CRC */
	MPA_ALIGN = 4,			/* FPDU is a multiple of 4 octets */
	MPA_MARKER_SIZE = 4,
	MPA_MARKER_INTERVAL = 512,	/* one marker per 512 octets of seq */
};

/* RFC 5044 FPDU format: the field in front of every ULPDU. */
struct mpa_fpdu_hdr {
	__be16 ulpdu_len;	/* ULPDU octets: no header, pad, CRC, markers */
} __packed;

/*
 * RFC 5044 "Marker Format": |RESERVED (16)|FPDUPTR (16)|.  FPDUPTR is the
 * number of octets from the ULPDU_Length field to the first octet of the
 * marker, a multiple of 4 (FPDUs and markers are 4-octet aligned in the
 * stream); a marker right in front of the ULPDU_Length carries 0 (see
 * drivers/sw_ddp/mpa.c).
 */
struct mpa_marker {
	__be16 rsvd;		/* zero on transmit, ignored on receive */
	__be16 fpduptr;
} __packed;

static_assert(sizeof(struct mpa_fpdu_hdr) == MPA_ULPDU_LEN_SIZE);
static_assert(sizeof(struct mpa_marker) == MPA_MARKER_SIZE);

/* RFC 5044 MPA Request/Reply Frame keys, 16 octets, no terminator */
#define MPA_KEY_REQ "MPA ID Req Frame"
#define MPA_KEY_REP "MPA ID Rep Frame"
enum { MPA_KEY_LEN = 16 };

/*
 * RFC 5044 MPA Request and Reply Frame:
 *   | Key (16 octets) |M|C|R| Res | Rev (8) | PD_Length (16) | Private Data
 */
struct mpa_rr_hdr {
	u8 key[MPA_KEY_LEN];
	u8 flags;		/* M, C, R, then reserved */
	u8 rev;
	__be16 pd_len;
} __packed;

static_assert(sizeof(struct mpa_rr_hdr) == 20);

enum {
	MPA_FLAG_M = 0x80,	/* receiver requires markers */
	MPA_FLAG_C = 0x40,	/* CRC preferred */
	MPA_FLAG_R = 0x20,	/* reply: connection rejected */
	/*
	 * RFC 6581 enhanced connection data follows the header.  This is
	 * the first "Res" bit; siw (and cxgb4) set and require it together
	 * with Rev 2, so interoperability dictates its position.
	 */
	MPA_FLAG_ENHANCED = 0x10,
	MPA_FLAG_RSVD_MASK = 0x0f,
};

enum {
	MPA_REV_1 = 1,		/* RFC 5044 */
	MPA_REV_2 = 2,		/* RFC 6581 */
	MPA_PD_MAX = 512,	/* RFC 5044: Private Data 0..512 octets */
};

/*
 * RFC 6581 Enhanced MPA connection data, the first 4 octets of the
 * Private Data (and counted in PD_Length):
 *   |A|B|     IRD (14)     |C|D|     ORD (14)     |
 * A: peer-to-peer mode; B: zero-length Send is an allowed RTR;
 * C: zero-length RDMA Write RTR; D: zero-length RDMA Read RTR.
 */
struct mpa_v2_conn_data {
	__be16 ird;
	__be16 ord;
} __packed;

static_assert(sizeof(struct mpa_v2_conn_data) == 4);

enum {
	MPA_V2_IRD_P2P = 0x8000,	/* A */
	MPA_V2_IRD_RTR_SEND = 0x4000,	/* B */
	MPA_V2_ORD_RTR_WRITE = 0x8000,	/* C */
	MPA_V2_ORD_RTR_READ = 0x4000,	/* D */
	MPA_V2_IRD_ORD_MASK = 0x3fff,
};

/* RFC 5044 errors (RFC 6581 adds 0x05-0x07): LLP layer, EType MPA */
enum { MPA_ETYPE = 0x0 };

enum mpa_ecode {
	MPA_ECODE_CONN_LOST = 0x01,	/* TCP closed, terminated or lost */
	MPA_ECODE_CRC = 0x02,		/* MPA CRC Error */
	MPA_ECODE_MARKER = 0x03,	/* Marker and ULPDU_Length mismatch */
	MPA_ECODE_REQ_REP = 0x04,	/* invalid Request/Reply Frame */
	MPA_ECODE_LOCAL_CATASTROPHIC = 0x05,	/* RFC 6581 */
	MPA_ECODE_INSUFFICIENT_IRD = 0x06,	/* RFC 6581 */
	MPA_ECODE_NO_MATCHING_RTR = 0x07,	/* RFC 6581 */
};

/* RFC 5044 FPDU: PAD makes the FPDU an integral multiple of four. */
static inline unsigned int mpa_pad_len(u16 ulpdu_len)
{
	return (MPA_ALIGN - (MPA_ULPDU_LEN_SIZE + ulpdu_len) % MPA_ALIGN) %
	       MPA_ALIGN;
}

/* FPDU length on the wire without markers. */
static inline u32 mpa_fpdu_len(u16 ulpdu_len)
{
	return MPA_FPDU_OVERHEAD + ulpdu_len + mpa_pad_len(ulpdu_len);
}

static inline u16 mpa_fpdu_ulpdu_len(const struct mpa_fpdu_hdr *h)
{
	return be16_to_cpu(h->ulpdu_len);
}

/*
 * FPDUPTR as a receiver reads it: RFC 5044 "MPA Markers" has the sender
 * set its two low bits to zero and the receiver treat them as zero,
 * whatever they are.
 */
static inline u16 mpa_marker_fpduptr(const struct mpa_marker *m)
{
	return be16_to_cpu(m->fpduptr) & ~3U;
}

static inline void mpa_marker_init(struct mpa_marker *m, u16 fpduptr)
{
	m->rsvd = 0;
	m->fpduptr = cpu_to_be16(fpduptr);
}

static inline u16 mpa_rr_pd_len(const struct mpa_rr_hdr *h)
{
	return be16_to_cpu(h->pd_len);
}

#endif /* SW_DDP_WIRE_MPA_H */
