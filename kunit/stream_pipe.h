/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit fixture: two real QPs whose streams are joined by an in-memory
 * "wire".  Each end's segments are framed by mpa_tx, flattened and fed
 * to the other end's mpa_rx, exactly as over TCP but without a socket.
 * The sw_ddp_stream suite runs the engine over it; sw_ddp_stream_fuzz
 * spoils what crosses it.
 */
#ifndef SW_DDP_STREAM_PIPE_H
#define SW_DDP_STREAM_PIPE_H

#include <kunit/test.h>
#include <rdma/ib_verbs.h>

#include "llp.h"
#include "mpa.h"
#include "stream.h"

#define SP_SEG_MAX	2048	/* small, so messages take many segments */
#define SP_BUF_LEN	(5 * PAGE_SIZE + 123)
#define SP_WIRE_MAX	(SP_SEG_MAX + 1024)
#define SP_MRS		4	/* fast-register MRs a case may keep */

struct pipe_end;

/*
 * A segment's ULPDU (DDP header and payload), flattened into one page,
 * before it is framed: a mutator may change its octets and *len (up to
 * a page) and returns how many times it goes on the wire (0, 1 or 2).
 */
typedef unsigned int (*sp_mutator)(struct pipe_end *e, u8 *ulpdu, u32 *len);

/* An FPDU as MPA framed it, and how it is to reach the peer. */
struct sp_wire {
	u8 *p;
	u32 len;
	u32 size;		/* octets of room at p */
	u32 split;		/* fed in two pieces, the first this long */
	bool unmapped;		/* offered to be read, not mapped */
};

/*
 * The FPDU on its way: a mutator may change its octets, its length (up
 * to w->size) and how it is fed, and returns how many times it goes on
 * the wire (0, 1 or 2).
 */
typedef unsigned int (*sp_wire_mutator)(struct pipe_end *e, struct sp_wire *w);

struct pipe_end {
	struct sw_ddp_llp llp;
	struct pipe_end *peer;
	struct mpa_tx tx;
	struct mpa_rx rx;
	struct sw_ddp_stream *stream;
	struct ib_qp *qp;
	u8 *wire;
	bool crc, markers;		/* the framing, both ways */
	bool rx_dead;			/* MPA failed: what follows is dropped */
	bool closed;
	bool no_segment;		/* max_segment() 0: closing (llp.h) */
	atomic_t rtr_received;		/* llp->ops->rtr_received() calls */
	u32 cut;			/* deliver only this much, keep the rest */
	u32 kept;			/* octets kept in wire after cut */
	int nsent;			/* segments sent */
	int nnow;			/* SW_DDP_SEG_NOW segments offered */
	bool refuse_now;		/* and refused, as an LLP may */
	bool zero_resp_any;		/* zero-length Read Responses: any STag, TO */
	int fail_read_resp;		/* Read Responses fail so, as an LLP may */
	int nrewritten;			/* such responses sent */
	u8 first[2];			/* the first one's DDP, RDMAP control */
	u32 first_len;			/* and its payload length */
	int nterm;			/* Terminates the engine handed over */
	/* if set, after each Read Response segment went to the peer */
	void (*read_resp_sent)(struct pipe_end *e, bool last);
	sp_mutator mutate;		/* if set, with its page and state: */
	u8 *ulpdu;
	void *mutate_priv;
	sp_wire_mutator wire_mutate;	/* if set, with mutate_priv */
};

struct stream_fx {
	struct ib_pd *pd;
	struct ib_cq *cq[2];
	struct pipe_end end[2];
	u8 *buf[2];
	struct ib_mr *mr[SP_MRS];	/* a case's, freed before the PD */
	struct ib_pd *srq_pd;		/* sp_init_srq(): end 1's SRQ's */
	struct ib_srq *srq;
	/* if set, called by the SRQ's limit event, where it is raised */
	void (*srq_event)(struct stream_fx *sf);
};

/* RFC 6581: the RTR end 0 sends first, the one end 1 waits for. */
struct rtr_case {
	const char *name;
	enum sw_ddp_rtr send, wait;
};

int sp_init(struct kunit *test);
int sp_init_pd(struct kunit *test, int pd_flags, const struct rtr_case *rc);
int sp_init_reads(struct kunit *test, u8 reads);
int sp_init_srq(struct kunit *test);
int sp_init_crc(struct kunit *test, bool crc);
int sp_init_framing(struct kunit *test, bool crc, bool markers);
void sp_exit(struct kunit *test);
struct stream_fx *sp_fx(struct kunit *test);

void sp_deliver_kept(struct pipe_end *e);
struct sw_ddp_term_err sp_feed(struct pipe_end *e, const u8 *p, u32 len,
			       bool mapped);

#endif /* SW_DDP_STREAM_PIPE_H */
