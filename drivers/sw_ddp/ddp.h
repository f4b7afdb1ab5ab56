/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DDP (RFC 5041): receive-side validation and segmentation arithmetic.
 * Wire layout lives in <sw_ddp/ddp.h>; this header is module-internal.
 */
#ifndef SW_DDP_DDP_H
#define SW_DDP_DDP_H

#include <linux/types.h>
#include <sw_ddp/ddp.h>
#include <sw_ddp/rdmap.h>

#include "mem.h"

/*
 * What the Data Sink resolved an STag to, for the RFC 5041 §7.1 tagged
 * checks (and the RDMAP Remote Protection checks of a Read Request's
 * Data Source).  Filled in by whoever owns the memory registrations.
 */
struct sw_ddp_stag_view {
	bool valid;		/* the STag names a live buffer */
	bool stream_ok;		/* and is associated with this stream */
	bool access_ok;		/* and allows the operation (RDMAP only) */
	u64 base;		/* lowest legal Tagged Offset */
	u64 len;		/* octets of the buffer from @base */
};

/*
 * What the Data Sink has for an untagged (QN, MSN), for the RFC 5041
 * §7.1 untagged checks: buffers are posted for MSNs msn_first ..
 * msn_first + nbufs - 1 (modulo 2^32), and the one this MSN maps to is
 * buf_len octets long.
 */
struct sw_ddp_queue_view {
	bool qn_valid;
	u32 msn_first;
	u32 nbufs;
	u32 buf_len;
};

/*
 * Why an STag check failed is mem.h's enum sw_ddp_mem_err, whether mem.c
 * or sw_ddp_stag_check() found it; each layer maps it to its own code.
 */
enum sw_ddp_mem_err sw_ddp_stag_check(const struct sw_ddp_stag_view *v,
				      u64 to, u64 len, bool check_access);
struct sw_ddp_term_err ddp_stag_err(enum sw_ddp_mem_err e);

struct sw_ddp_term_err ddp_validate_tagged(const struct ddp_tagged_hdr *h,
					   u32 seg_len,
					   const struct sw_ddp_stag_view *v);
struct sw_ddp_term_err
ddp_validate_untagged(const struct ddp_untagged_hdr *h, u32 seg_len,
		      const struct sw_ddp_queue_view *v);
struct sw_ddp_term_err ddp_validate_segment(const void *seg, u32 seg_len,
					    const struct sw_ddp_stag_view *sv,
					    const struct sw_ddp_queue_view *qv);

u32 ddp_seg_payload_max(u32 mulpdu, bool tagged);
u32 ddp_seg_count(u32 msg_len, u32 mulpdu, bool tagged);

#endif /* SW_DDP_DDP_H */
