/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DDP over SCTP (RFC 5043): chunk validation and Stream Session Control
 * messages.  Wire layout lives in <sw_ddp/sctp_ddp.h>; this header is
 * module-internal.
 */
#ifndef SW_DDP_LLP_SCTP_H
#define SW_DDP_LLP_SCTP_H

#include <linux/types.h>
#include <sw_ddp/sctp_ddp.h>

/* Receive state a chunk is checked against. */
struct sctp_ddp_rx_limits {
	u16 next_ssn;	/* lowest DDP-SSN not yet received */
	u16 window;	/* DDP-SSNs accepted from next_ssn on, <= 32767 */
	u32 max_seg;	/* largest DDP Segment advertised (§9) */
};

u32 sctp_ddp_max_seg(u32 path_limit);
bool sctp_ddp_ssn_in_window(u16 ssn, u16 next, u16 window);
enum sctp_ddp_verdict sctp_ddp_validate_adapt(const void *param, u32 len);
enum sctp_ddp_verdict
sctp_ddp_validate_chunk(u32 ppid, const void *chunk, u32 len,
			const struct sctp_ddp_rx_limits *lim);
int sctp_ddp_session_ctrl_build(u8 *buf, u32 size, u16 ssn,
				enum sctp_ddp_func func, const void *pdata,
				u16 pdata_len);

#endif /* SW_DDP_LLP_SCTP_H */
