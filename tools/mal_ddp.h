/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hostile DDP/RDMAP segments of mal_peer (over MPA) and mal_peer_sctp
 * (over SCTP): each builds one DDP Segment, from its control octet, aimed
 * at what rdma_victim exposed, and names the Terminate error RFC 5040 and
 * RFC 5041 require for it.  The LLP that carries the segment is the
 * caller's.
 */
#ifndef SW_DDP_TOOLS_MAL_DDP_H
#define SW_DDP_TOOLS_MAL_DDP_H

#include <sw_ddp/ddp.h>
#include <sw_ddp/rdmap.h>
#include "victim.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Room for the largest segment any case builds. */
#define MAL_SEG_MAX	(70 * 1024)

struct mal_seg_case {
	const char *name;
	/* Write the segment to @seg; return its length. */
	u32 (*build)(const struct victim_info *v, u8 *seg);
	struct sw_ddp_term_err expect;
};

extern const struct mal_seg_case mal_seg_cases[];
extern const unsigned int mal_seg_ncases;

const struct mal_seg_case *mal_seg_case_find(const char *name);

/* Building blocks for the LLPs' own cases. */
u32 mal_write_to(u8 *seg, u32 stag, u64 to, u32 len);
u32 mal_send_msg(u8 *seg, u32 msn, u32 mo, u32 len);
/* A 64-octet RDMA Write into the victim's read/write region: valid. */
u32 mal_good_write(const struct victim_info *v, u8 *seg);
/* The same Write to an STag that names nothing: DDP_ERR_T_INVALID_STAG. */
u32 mal_bad_stag(const struct victim_info *v, u8 *seg);

#endif /* SW_DDP_TOOLS_MAL_DDP_H */
