/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * DDP over SCTP wire format, RFC 5043 (Stream Control Transmission
 * Protocol (SCTP) Direct Data Placement (DDP) Adaptation), section 5.
 *
 * Every DDP payload data chunk starts with a 16-bit DDP-SSN; a DDP
 * Segment Chunk then carries one DDP Segment (<sw_ddp/ddp.h>) starting at
 * its control octet, a Stream Session Control chunk a function code and
 * private data.  The chunk kind is told apart by the SCTP Payload
 * Protocol Identifier, not by anything in the chunk itself.
 */
#ifndef SW_DDP_WIRE_SCTP_DDP_H
#define SW_DDP_WIRE_SCTP_DDP_H

#include <sw_ddp/wire.h>

/* RFC 5043 §5.2 and §12: Payload Protocol Identifiers (host order) */
enum {
	SCTP_DDP_PPID_SEGMENT = 16,	/* DDP Segment Chunk */
	SCTP_DDP_PPID_SESSION_CTRL = 17,	/* DDP Stream Session Control */
};

/* RFC 5043 §5.1: Adaptation Layer Indication parameter (RFC 5061) */
enum {
	SCTP_DDP_ADAPT_PARAM_TYPE = 0xc006,
	SCTP_DDP_ADAPT_IND_DDP = 0x00000001,
};

struct sctp_ddp_adapt_param {
	__be16 type;		/* 0xC006 */
	__be16 length;		/* 8: the whole parameter */
	__be32 indication;	/* 0x00000001 for DDP */
} __packed;

static_assert(sizeof(struct sctp_ddp_adapt_param) == 8);

/* RFC 5043 §5.2.2: DDP Segment Chunk, | DDP-SSN (16) | DDP Segment ... */
struct sctp_ddp_seg_chunk {
	__be16 ssn;
} __packed;

/*
 * RFC 5043 §5.2.3: DDP Stream Session Control,
 * | DDP-SSN (16) | Function Code (16) | Private Data ...
 */
struct sctp_ddp_session_ctrl {
	__be16 ssn;
	__be16 func;
} __packed;

static_assert(sizeof(struct sctp_ddp_seg_chunk) == 2);
static_assert(sizeof(struct sctp_ddp_session_ctrl) == 4);

/* RFC 5043 §5.2.3: Function Codes */
enum sctp_ddp_func {
	SCTP_DDP_FUNC_INITIATE = 0x001,
	SCTP_DDP_FUNC_ACCEPT = 0x002,
	SCTP_DDP_FUNC_REJECT = 0x003,
	SCTP_DDP_FUNC_TERMINATE = 0x004,
};

enum {
	SCTP_DDP_PDATA_MAX = 512,	/* §5.2.3 */
	SCTP_DDP_MIN_SEG_LIMIT = 516,	/* §9: smallest max segment size */
	SCTP_DDP_SSN_WINDOW_MAX = 32767,	/* §10: in-flight chunks */
};

/*
 * Validation verdicts.  RFC 5043 defines no Terminate error numbers; a
 * chunk that breaks a rule below ends the DDP Stream Session (§6.1: "MUST
 * be terminated"), which the LLP does with a Session Terminate message.
 */
enum sctp_ddp_verdict {
	SCTP_DDP_OK = 0,
	SCTP_DDP_BAD_LEN,	/* shorter than its fixed part */
	SCTP_DDP_BAD_FUNC,	/* §5.2.3: unknown function code */
	SCTP_DDP_BAD_PDATA,	/* §5.2.3: private data > 512 octets */
	SCTP_DDP_PDATA_ON_TERM,	/* §5.2.3: Terminate carries private data */
	SCTP_DDP_BAD_SSN,	/* §10: DDP-SSN outside the legal window */
	SCTP_DDP_SEG_TOO_BIG,	/* §9: segment above the advertised max */
	SCTP_DDP_BAD_ADAPT,	/* §5.1, §11.1: not the DDP indication */
	SCTP_DDP_BAD_PPID,	/* §5.1, §5.2: only PPIDs 16 and 17 */
};

static inline u16 sctp_ddp_ssn(const void *chunk)
{
	return be16_to_cpu(((const struct sctp_ddp_seg_chunk *)chunk)->ssn);
}

/*
 * DDP-SSN comparison in 16-bit serial arithmetic (RFC 1982), which §10
 * makes sound by keeping fewer than 32768 chunks in flight: true if @a
 * comes before @b.
 */
static inline bool sctp_ddp_ssn_before(u16 a, u16 b)
{
	return (a - b) & 0x8000;	/* (a - b) mod 2^16 >= 2^15 */
}

/* Distance from @from forward to @to, modulo 2^16. */
static inline u16 sctp_ddp_ssn_delta(u16 from, u16 to)
{
	return (to - from) & 0xffff;
}

static inline void sctp_ddp_adapt_param_init(struct sctp_ddp_adapt_param *p)
{
	p->type = cpu_to_be16(SCTP_DDP_ADAPT_PARAM_TYPE);
	p->length = cpu_to_be16(sizeof(*p));
	p->indication = cpu_to_be32(SCTP_DDP_ADAPT_IND_DDP);
}

#endif /* SW_DDP_WIRE_SCTP_DDP_H */
