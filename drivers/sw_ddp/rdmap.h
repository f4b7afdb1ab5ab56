/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RDMAP (RFC 5040): receive-side validation and the Terminate message
 * codec.  Wire layout lives in <sw_ddp/rdmap.h>; this header is
 * module-internal.
 */
#ifndef SW_DDP_RDMAP_H
#define SW_DDP_RDMAP_H

#include <linux/types.h>
#include <sw_ddp/rdmap.h>

#include "ddp.h"

/*
 * Contents of a Terminate message after the DDP header (RFC 5040
 * "Terminate Header").  The DDP Segment Length field is on the wire when
 * M or D is set; the terminated DDP header (14 or 18 octets, by its T
 * flag) when D is; the terminated RDMA header (0..28 octets, the rest of
 * the message) when R is.  R requires D.
 */
struct rdmap_term_info {
	struct sw_ddp_term_err err;
	u16 hdrct;		/* RDMAP_TERM_HDRCT_{M,D,R} */
	u16 seg_len;		/* DDP Segment Length, meaningful with M */
	const u8 *ddp_hdr;	/* with D */
	const u8 *rdmap_hdr;	/* with R, may be NULL if rdmap_len is 0 */
	u32 rdmap_len;
};

struct sw_ddp_term_err rdmap_validate_ctrl(const void *seg, u32 seg_len);
struct sw_ddp_term_err
rdmap_validate_read_req(const struct rdmap_read_req_hdr *rr,
			const struct sw_ddp_stag_view *src);
struct sw_ddp_term_err rdmap_src_err(enum sw_ddp_mem_err e);

int rdmap_term_build(u8 *buf, u32 size, const struct rdmap_term_info *ti);
int rdmap_term_parse(const u8 *buf, u32 len, struct rdmap_term_info *ti);

#endif /* SW_DDP_RDMAP_H */
