/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit: hostile segments through the whole receive path, whatever LLP
 * carries them (fuzz.c).  A transport joins two real QPs and hands each
 * ULPDU one end sends to fz_mutate() before the other end sees it: the
 * stream pipe under MPA (stream_fuzz_test.c), real SCTP associations
 * through a proxy (sctp_fuzz_test.c).  The pipe also hands whole FPDUs,
 * as framed, to fz_mutate_wire().
 */
#ifndef SW_DDP_KUNIT_FUZZ_H
#define SW_DDP_KUNIT_FUZZ_H

#include <kunit/test.h>
#include <linux/prandom.h>
#include <rdma/ib_verbs.h>

#define FZ_OPS		5	/* work requests each end posts */
#define FZ_NRECV	4	/* receives each end posts */
#define FZ_GUARD	128	/* octets between regions, never written */
#define FZ_RECV_LEN	600	/* each receive */
#define FZ_SINK_LEN	1400	/* each Read's sink */
#define FZ_WRITE_MAX	3000	/* two segments at most over the pipe */
#define FZ_RW_LEN	4800	/* the MR the peer may read and write */
#define FZ_RO_LEN	2500	/* the MR the peer may only read */
/* the regions, a guard before each and one after the last */
#define FZ_BUF_LEN	(FZ_GUARD * (FZ_REGIONS + 1) + FZ_RW_LEN + FZ_RO_LEN + \
			 FZ_NRECV * FZ_RECV_LEN + FZ_OPS * FZ_SINK_LEN + \
			 FZ_WRITE_MAX)
#define FZ_MRS		4	/* each end's FZ_RW and FZ_RO */

/* The regions of each end's buffer, in order, a guard before each. */
enum fz_region { FZ_RW, FZ_RO, FZ_RECV, FZ_SINK, FZ_SRC, FZ_REGIONS };

struct fz_op {
	enum ib_wr_opcode op;
	u32 len;
	u32 src;		/* Write, Send: offset in FZ_SRC */
	u32 remote;		/* Write, Read: offset in the peer's region */
	enum fz_region target;	/* Read: the peer's FZ_RW or FZ_RO */
	bool posted;
};

struct fz;

/* One end: what it posts, and the spoiling of what it sends. */
struct fz_end {
	struct rnd_state rnd;	/* this end's segments' spoiling */
	u32 rate;		/* segments spoilt, per thousand */
	u32 spoilt;		/* so far */
	u32 leaks;		/* Read Responses with guard octets in them */
	struct fz *fz;
	struct fz_op op[FZ_OPS];
	bool recv_posted[FZ_NRECV];
	struct ib_wc wc[FZ_OPS + FZ_NRECV];	/* by wr_id */
	bool seen[FZ_OPS + FZ_NRECV];
	u32 wq_next[2];		/* SQ, RQ: the first that may complete next */
	u8 *orig;		/* the buffer as filled */
};

/*
 * What a spoilt STag and offset may name, three for each end: its MR the
 * peer may write (FZ_RW), the one it may only read (FZ_RO), and the
 * PD's DMA MR (local access only) over the end's sources.
 */
struct fz_target {
	u32 stag;
	u64 base;
	u32 len;
};

#define FZ_TARGETS	6

/* Two connected QPs in RTS, whatever joins them, and their memory. */
struct fz_link {
	struct ib_pd *pd;
	struct ib_cq *cq[2];
	struct ib_qp *qp[2];
	u8 *buf[2];		/* FZ_BUF_LEN octets each */
	struct ib_mr **mr;	/* FZ_MRS slots the transport frees */
	void *priv;		/* the transport's */
};

struct fz_transport {
	const char *name;
	u32 per_block;		/* seeds a case runs */
	/* A new device and pair of QPs for each seed; in test->priv. */
	int (*init)(struct kunit *test);
	void (*exit)(struct kunit *test);
	struct fz_link *(*link)(struct kunit *test);
	/* From now on, hand what end i sends to fz_mutate(&fz->end[i]). */
	void (*arm)(struct fz *fz);
	/* End @i sent or received a Terminate, or its peer closed first. */
	bool (*told)(struct fz *fz, int i);
	/*
	 * End @i's LLP stream was ended by its peer, in order (optional):
	 * a disconnect, which leaves the QP in ERROR with no async event.
	 */
	bool (*peer_closed)(struct fz *fz, int i);
	/* Terminates end @i sent. */
	int (*nterm)(struct fz *fz, int i);
	/* Nothing places into either end's memory any more. */
	void (*quiesce)(struct kunit *test, struct fz *fz);
};

struct fz {
	const struct fz_transport *tp;
	struct fz_link *link;
	/*
	 * Set by arm(): a CRC covers every octet spoilt, so whatever
	 * completes well must have arrived intact (fz_mutate_wire()).
	 */
	bool summed;
	struct fz_end end[2];
	struct fz_target target[FZ_TARGETS];
};

u32 fz_rand(struct rnd_state *rnd, u32 n);
unsigned int fz_mutate(struct fz_end *fe, u8 *ulpdu, u32 *len);
void fz_watch(struct fz_end *fe, const u8 *ulpdu, u32 len);
unsigned int fz_mutate_wire(struct fz_end *fe, u8 *p, u32 *len, u32 size);
u32 fz_seed(u32 n);
void fz_run(struct kunit *test, const struct fz_transport *tp, u32 first);
void fz_seeds(struct kunit *test, const struct fz_transport *tp);
const void *fz_next_block(const void *prev, char *desc, u32 nblocks,
			  u32 per_block);

#endif /* SW_DDP_KUNIT_FUZZ_H */
