/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What rdma_victim tells a connecting peer in its MPA reply's private
 * data: the STags it registered, so mal_peer can aim at them.
 */
#ifndef SW_DDP_TOOLS_VICTIM_H
#define SW_DDP_TOOLS_VICTIM_H

#include <linux/types.h>

struct victim_info {
	__be32 rw_stag;		/* remote read/write, this QP's PD */
	__be32 rw_len;
	__be64 rw_addr;
	__be32 ro_stag;		/* remote read only */
	__be32 ro_len;
	__be64 ro_addr;
	__be32 other_stag;	/* remote write, but another PD */
	__be32 recv_len;	/* each posted receive buffer */
	__be64 other_addr;
} __packed;

#endif /* SW_DDP_TOOLS_VICTIM_H */
