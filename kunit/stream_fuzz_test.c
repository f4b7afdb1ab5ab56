// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: hostile segments through the whole receive path.  Two QPs run a
 * script of Writes, Sends and Reads each way over the stream pipe
 * (stream_pipe.c), and the pipe spoils some segments on their way, from
 * a seed: bits flipped, header fields replaced with real STags, offsets
 * at the edges of real regions and odd lengths, segments cut short,
 * lengthened, dropped or sent twice.  MPA frames (and sums) what was
 * spoilt, so DDP and RDMAP see all of it.
 *
 * Whatever the peer sends (RFC 5041 §7, RFC 5040 §7):
 * - no octet changes outside what the peer may write: its MR with
 *   remote write access, the posted receives, the posted Read sinks;
 * - no Read Response carries an octet from outside what the peer may
 *   read (the guards around the MRs are filled with FZ_POISON);
 * - every work request completes exactly once, at the latest when the
 *   consumer moves its QP to error at the end;
 * - a QP that fails by itself has sent or received a Terminate (or its
 *   peer closed the stream first), and reported IB_EVENT_QP_FATAL.
 * Seed 0 spoils nothing, and there every message must arrive intact.
 * Each seed runs on a new device and QPs; a case runs a block of them.
 * A seed fixes the scripts and each end's spoiling, not the order in
 * which an end's own messages and its Read Responses interleave (both
 * ends run at once), so a failing seed may need a few runs to repeat.
 * KASAN and kmemleak (make check's kernel) watch the rest.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/prandom.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "queue_fixture.h"
#include "rdmap.h"
#include "stream_pipe.h"

#define FZ_BLOCKS	8	/* cases, each with its seeds: */
#define FZ_PER_BLOCK	32
#define FZ_OPS		5	/* work requests each end posts */
#define FZ_NRECV	4	/* receives each end posts */
#define FZ_GUARD	128	/* octets between regions, never written */
#define FZ_POISON	0xa5	/* what the guards hold, */
#define FZ_POISON_RUN	4	/* and a run of it no data has */
#define FZ_RECV_LEN	600	/* each receive */
#define FZ_SINK_LEN	1400	/* each Read's sink */
#define FZ_WRITE_MAX	3000	/* two segments at most */
#define FZ_RW_LEN	4800	/* the MR the peer may read and write */
#define FZ_RO_LEN	2500	/* the MR the peer may only read */

/* The regions of each end's buffer, in order, a guard before each. */
enum fz_region { FZ_RW, FZ_RO, FZ_RECV, FZ_SINK, FZ_SRC, FZ_REGIONS };

static const u32 fz_len[FZ_REGIONS] = {
	[FZ_RW] = FZ_RW_LEN,
	[FZ_RO] = FZ_RO_LEN,
	[FZ_RECV] = FZ_NRECV * FZ_RECV_LEN,
	[FZ_SINK] = FZ_OPS * FZ_SINK_LEN,	/* one slot per Read */
	[FZ_SRC] = FZ_WRITE_MAX,		/* Write and Send sources */
};

struct fz_op {
	enum ib_wr_opcode op;
	u32 len;
	u32 src;		/* Write, Send: offset in FZ_SRC */
	u32 remote;		/* Write, Read: offset in the peer's region */
	enum fz_region target;	/* Read: the peer's FZ_RW or FZ_RO */
	bool posted;
};

struct fz;

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
#define FZ_TARGET(end, r)	(3 * (end) + (r))	/* r: FZ_RW, FZ_RO, 2 */

struct fz {
	struct stream_fx *sf;
	struct fz_end end[2];
	struct fz_target target[FZ_TARGETS];
};

static u32 fz_off(enum fz_region r)
{
	u32 off = FZ_GUARD;
	int i;

	for (i = 0; i < r; i++)
		off += fz_len[i] + FZ_GUARD;
	return off;
}

/* Guard @g: before region @g, or after the last one (FZ_REGIONS). */
static u32 fz_guard_off(int g)
{
	return g ? fz_off(g - 1) + fz_len[g - 1] : 0;
}

static u32 fz_guard_len(int g)
{
	return (g < FZ_REGIONS ? fz_off(g) : SP_BUF_LEN) - fz_guard_off(g);
}

static_assert(FZ_GUARD * (FZ_REGIONS + 1) + FZ_RW_LEN + FZ_RO_LEN +
	      FZ_NRECV * FZ_RECV_LEN + FZ_OPS * FZ_SINK_LEN + FZ_WRITE_MAX <=
	      SP_BUF_LEN);

/*
 * The regions with data (no byte repeats the one before it), the guards
 * with FZ_POISON.
 */
static void fz_fill(u8 *buf, u8 seed)
{
	int g;

	sp_fill(buf, SP_BUF_LEN, seed);
	for (g = 0; g <= FZ_REGIONS; g++)
		memset(buf + fz_guard_off(g), FZ_POISON, fz_guard_len(g));
}

static u8 *fz_dup(struct kunit *test, const u8 *p, u32 len)
{
	u8 *copy = kunit_kmalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, copy);
	return memcpy(copy, p, len);
}

static u32 fz_rand(struct rnd_state *rnd, u32 n)
{
	return n ? prandom_u32_state(rnd) % n : 0;
}

static const u32 fz_edges[] = {
	U32_MAX, U32_MAX - 1, 0x80000000, 0x7fffffff, FZ_RECV_LEN, 1U << 16,
};

static const enum ib_wr_opcode fz_opcodes[] = {
	IB_WR_RDMA_WRITE, IB_WR_SEND, IB_WR_RDMA_READ,
};

static const struct fz_target *fz_pick(struct fz *fz, struct rnd_state *rnd)
{
	return &fz->target[fz_rand(rnd, FZ_TARGETS)];
}

/* A value for a 32-bit field: an STag we know, an edge, or noise. */
static u32 fz_word(struct fz *fz, struct rnd_state *rnd, u32 old)
{
	switch (fz_rand(rnd, 5)) {
	case 0:
		return fz_pick(fz, rnd)->stag;
	case 1:
		return fz_rand(rnd, 4);
	case 2:
		return old + fz_rand(rnd, 3) - 1;
	case 3:
		return fz_edges[fz_rand(rnd, ARRAY_SIZE(fz_edges))];
	default:
		return prandom_u32_state(rnd);
	}
}

/* Within a few octets either side of @edge. */
static u64 fz_near(struct rnd_state *rnd, u64 edge)
{
	return edge + fz_rand(rnd, 24) - 8;
}

/*
 * An offset into @t that @span octets will be placed at or read from:
 * so that they end at its edge, or begin just below it; or noise.
 */
static u64 fz_offset(struct rnd_state *rnd, const struct fz_target *t,
		     u32 span)
{
	switch (fz_rand(rnd, 4)) {
	case 0:
	case 1:
		return fz_near(rnd, t->base + t->len - span);
	case 2:
		return fz_near(rnd, t->base) - 8;
	default:
		return (u64)prandom_u32_state(rnd) << 32 |
		       prandom_u32_state(rnd);
	}
}

/*
 * The STag and offset pairs of the headers (RFC 5041 §4, RFC 5040 §4.4),
 * by the STag's place in the ULPDU: a Tagged segment's, a Read
 * Request's sink and source.
 */
#define FZ_TAGGED_STAG	2
#define FZ_SINK_STAG	18
#define FZ_SRC_STAG	34
#define FZ_READ_SIZE	30
#define FZ_MO		14

static void fz_get(const u8 *p, u32 off, u32 *v)
{
	__be32 w;

	memcpy(&w, p + off, sizeof(w));
	*v = be32_to_cpu(w);
}

static void fz_put(u8 *p, u32 off, u32 v)
{
	__be32 w = cpu_to_be32(v);

	memcpy(p + off, &w, sizeof(w));
}

static void fz_put64(u8 *p, u32 off, u64 v)
{
	__be64 q = cpu_to_be64(v);

	memcpy(p + off, &q, sizeof(q));
}

/*
 * Aim a segment where it may not go: one STag and offset pair changed
 * together, so that each check (access, bounds, wrap) in turn is the
 * only one that can refuse it.
 */
static void fz_aim(struct fz *fz, struct rnd_state *rnd, u8 *p, u32 len)
{
	const struct fz_target *t = fz_pick(fz, rnd);
	u32 at, span;

	/* half of them at an MR the peer may write: its bounds */
	if (fz_rand(rnd, 2))
		t = &fz->target[FZ_TARGET(fz_rand(rnd, 2), FZ_RW)];

	if (ddp_ctrl_tagged(p[0])) {
		at = FZ_TAGGED_STAG;
		span = len - DDP_TAGGED_HDR_LEN;
	} else if (len >= DDP_UNTAGGED_HDR_LEN + RDMAP_READ_REQ_LEN) {
		at = fz_rand(rnd, 2) ? FZ_SRC_STAG : FZ_SINK_STAG;
		fz_get(p, FZ_READ_SIZE, &span);
	} else {
		return;
	}
	if (len < at + 12)
		return;
	if (fz_rand(rnd, 4))
		fz_put(p, at, t->stag);
	fz_put64(p, at + 4, fz_offset(rnd, t, span));
}

/* One 32-bit field of the untagged header or the Read Request. */
static void fz_field(struct fz *fz, struct rnd_state *rnd, u8 *p, u32 len)
{
	static const u8 words[] = { 2, 6, 10, FZ_MO, FZ_READ_SIZE };
	u32 at = words[fz_rand(rnd, ARRAY_SIZE(words))], v;

	if (ddp_ctrl_tagged(p[0]) || len < at + 4)
		return;
	fz_get(p, at, &v);
	/* a Send that ends at the edge of a receive, or past it */
	if (at == FZ_MO && fz_rand(rnd, 2))
		v = fz_near(rnd, FZ_RECV_LEN - (len - DDP_UNTAGGED_HDR_LEN));
	else if (at == FZ_READ_SIZE && fz_rand(rnd, 2))
		v = fz_near(rnd, fz_pick(fz, rnd)->len);
	else
		v = fz_word(fz, rnd, v);
	fz_put(p, at, v);
}

/*
 * A Read Response as the engine sent it, before any spoiling: does it
 * carry guard octets, read from outside the MR its Request named?
 */
static bool fz_leaks(const u8 *p, u32 len)
{
	u32 i, run = 0;

	if (len < DDP_TAGGED_HDR_LEN || !ddp_ctrl_tagged(p[0]) ||
	    rdmap_ctrl_opcode(p[1]) != RDMAP_OP_READ_RESP)
		return false;
	for (i = DDP_TAGGED_HDR_LEN; i < len && run < FZ_POISON_RUN; i++)
		run = p[i] == FZ_POISON ? run + 1 : 0;
	return run == FZ_POISON_RUN;
}

/* The pipe's mutator: spoil one segment in @rate of a thousand. */
static unsigned int fz_mutate(struct pipe_end *e, u8 *p, u32 *len)
{
	struct fz_end *fe = e->mutate_priv;
	struct rnd_state *rnd = &fe->rnd;
	u32 n = *len, add, i;

	fe->leaks += fz_leaks(p, n);
	if (fz_rand(rnd, 1000) >= fe->rate || !n)
		return 1;
	fe->spoilt++;
	switch (fz_rand(rnd, 11)) {
	case 0:		/* the DDP or the RDMAP control octet */
		p[fz_rand(rnd, min(n, 2U))] ^= 1 << fz_rand(rnd, 8);
		break;
	case 1:		/* any bit of the headers */
		i = fz_rand(rnd, min_t(u32, n, DDP_UNTAGGED_HDR_LEN +
						 RDMAP_READ_REQ_LEN));
		p[i] ^= 1 << fz_rand(rnd, 8);
		break;
	case 2:		/* any bit */
		p[fz_rand(rnd, n)] ^= 1 << fz_rand(rnd, 8);
		break;
	case 3:		/* RsvdULP (Send with Invalidate's STag), QN, MSN, MO */
		fz_field(fe->fz, rnd, p, n);
		break;
	case 4:		/* cut short, headers too */
		*len = fz_rand(rnd, n);
		break;
	case 5:		/* lengthened */
		add = min_t(u32, 1 + fz_rand(rnd, 64), PAGE_SIZE - n);
		for (i = 0; i < add; i++)
			p[n + i] = prandom_u32_state(rnd);
		*len = n + add;
		break;
	case 6:		/* left out, or sent twice */
		return fz_rand(rnd, 2) ? 0 : 2;
	default:	/* the most of them: aimed */
		fz_aim(fe->fz, rnd, p, n);
		break;
	}
	return 1;
}

/* A fast-register MR over @len octets at @p, registered on end @i. */
static struct fz_target fz_mr(struct kunit *test, struct fz *fz, int i,
			      int slot, u8 *p, u32 len, int access)
{
	struct stream_fx *sf = fz->sf;
	struct scatterlist sg;
	struct ib_reg_wr reg;
	struct ib_mr *mr;
	struct ib_wc wc;

	mr = ib_alloc_mr(sf->pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	sf->mr[slot] = mr;
	sg_init_one(&sg, p, len);
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(sf->pd->device, &sg, 1,
					    DMA_BIDIRECTIONAL), 1);
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE), 1);
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->lkey));
	reg = (struct ib_reg_wr){
		.wr = { .opcode = IB_WR_REG_MR, .send_flags = IB_SEND_SIGNALED,
			.wr_id = U64_MAX },
		.mr = mr,
		.key = mr->rkey,
		.access = IB_ACCESS_LOCAL_WRITE | access,
	};
	KUNIT_ASSERT_EQ(test, ib_post_send(sf->end[i].qp, &reg.wr, NULL), 0);
	KUNIT_ASSERT_TRUE(test, sp_poll_one(sf->cq[i], &wc));
	KUNIT_ASSERT_EQ(test, wc.status, IB_WC_SUCCESS);
	return (struct fz_target){ mr->rkey, mr->iova, len };
}

/* Each end's script: what it posts, from the seed. */
static void fz_script(struct fz *fz, struct rnd_state *rnd, bool clean)
{
	int i, k, sends;

	for (i = 0; i < 2; i++) {
		struct fz_end *fe = &fz->end[i];

		for (k = 0, sends = 0; k < FZ_OPS; k++) {
			struct fz_op *op = &fe->op[k];

			op->op = fz_opcodes[fz_rand(rnd, ARRAY_SIZE(fz_opcodes))];
			if (op->op == IB_WR_SEND && ++sends > FZ_NRECV)
				op->op = IB_WR_RDMA_WRITE;
			switch (op->op) {
			case IB_WR_SEND:
				op->len = fz_rand(rnd, FZ_RECV_LEN + 1);
				break;
			case IB_WR_RDMA_WRITE:
				op->len = fz_rand(rnd, FZ_WRITE_MAX + 1);
				op->target = FZ_RW;
				break;
			default:
				/* clean, from where nothing changes */
				op->target = clean || fz_rand(rnd, 2) ? FZ_RO :
									FZ_RW;
				op->len = fz_rand(rnd, FZ_SINK_LEN + 1);
				break;
			}
			op->src = fz_rand(rnd, fz_len[FZ_SRC] - op->len + 1);
			if (op->op != IB_WR_SEND)
				op->remote = fz_rand(rnd, fz_len[op->target] -
							  op->len + 1);
		}
	}
}

static int fz_post_op(struct fz *fz, int i, int k)
{
	struct stream_fx *sf = fz->sf;
	struct fz_end *fe = &fz->end[i];
	struct fz_op *op = &fe->op[k];
	const struct fz_target *t = &fz->target[FZ_TARGET(!i, op->target)];
	u8 *buf = sf->buf[i];
	struct ib_sge sge = {
		.addr = (uintptr_t)buf + fz_off(FZ_SRC) + op->src,
		.length = op->len,
		.lkey = sf->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = k, .sg_list = &sge, .num_sge = 1,
			.opcode = op->op, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = t->base + op->remote,
		.rkey = t->stag,
	};

	if (op->op == IB_WR_RDMA_READ)
		sge.addr = (uintptr_t)buf + fz_off(FZ_SINK) + k * FZ_SINK_LEN;
	return ib_post_send(sf->end[i].qp, &wr.wr, NULL);
}

static int fz_post_recv(struct fz *fz, int i, int k)
{
	struct stream_fx *sf = fz->sf;
	struct ib_sge sge = {
		.addr = (uintptr_t)sf->buf[i] + fz_off(FZ_RECV) +
			k * FZ_RECV_LEN,
		.length = FZ_RECV_LEN,
		.lkey = sf->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_id = FZ_OPS + k, .sg_list = &sge,
				 .num_sge = 1 };

	return ib_post_recv(sf->end[i].qp, &wr, NULL);
}

static int fz_sends(const struct fz_end *fe)
{
	int k, n = 0;

	for (k = 0; k < FZ_OPS; k++)
		n += fe->op[k].op == IB_WR_SEND;
	return n;
}

/* Take what both CQs have; each work request completes once. */
static int fz_poll(struct kunit *test, struct fz *fz)
{
	struct ib_wc wc;
	int i, n = 0;

	for (i = 0; i < 2; i++) {
		struct fz_end *fe = &fz->end[i];

		while (ib_poll_cq(fz->sf->cq[i], 1, &wc) == 1) {
			KUNIT_ASSERT_LT(test, wc.wr_id, FZ_OPS + FZ_NRECV);
			KUNIT_EXPECT_FALSE_MSG(test, fe->seen[wc.wr_id],
					       "end %d: wr_id %llu twice", i,
					       wc.wr_id);
			fe->seen[wc.wr_id] = true;
			fe->wc[wc.wr_id] = wc;
			n++;
		}
	}
	return n;
}

static int fz_missing(struct fz *fz)
{
	int i, k, n = 0;

	for (i = 0; i < 2; i++) {
		struct fz_end *fe = &fz->end[i];

		for (k = 0; k < FZ_OPS; k++)
			n += fe->op[k].posted && !fe->seen[k];
		for (k = 0; k < FZ_NRECV; k++)
			n += fe->recv_posted[k] && !fe->seen[FZ_OPS + k];
	}
	return n;
}

/* Poll until every completion is in, or nothing came for @idle_ms. */
static void fz_collect(struct kunit *test, struct fz *fz, int idle_ms)
{
	unsigned long idle_end = jiffies + msecs_to_jiffies(idle_ms);

	while (fz_missing(fz) && time_before(jiffies, idle_end)) {
		if (fz_poll(test, fz))
			idle_end = jiffies + msecs_to_jiffies(idle_ms);
		else
			usleep_range(5000, 10000);
	}
}

/* Seed 0: every message arrived, where it belongs. */
static void fz_check_clean(struct kunit *test, struct fz *fz)
{
	struct stream_fx *sf = fz->sf;
	int i, k;

	for (i = 0; i < 2; i++) {
		struct fz_end *fe = &fz->end[i], *peer = &fz->end[!i];
		u8 *shadow = fz_dup(test, fe->orig + fz_off(FZ_RW),
				    fz_len[FZ_RW]);
		u8 *buf = sf->buf[i];
		int recv = 0;

		KUNIT_EXPECT_EQ(test, qf_state(test, sf->end[i].qp),
				IB_QPS_RTS);
		for (k = 0; k < FZ_OPS + fz_sends(peer); k++)
			KUNIT_EXPECT_EQ_MSG(test, fe->wc[k].status,
					    IB_WC_SUCCESS, "end %d wr %d", i,
					    k);
		for (k = 0; k < FZ_OPS; k++) {
			struct fz_op *op = &fe->op[k], *pop = &peer->op[k];
			u8 *src = peer->orig + fz_off(FZ_SRC) + pop->src;

			if (op->op == IB_WR_RDMA_READ)
				KUNIT_EXPECT_MEMEQ(test, buf + fz_off(FZ_SINK) +
						   k * FZ_SINK_LEN,
						   peer->orig + fz_off(FZ_RO) +
						   op->remote, op->len);
			if (pop->op == IB_WR_RDMA_WRITE)
				memcpy(shadow + pop->remote, src, pop->len);
			if (pop->op != IB_WR_SEND)
				continue;
			KUNIT_EXPECT_EQ(test, fe->wc[FZ_OPS + recv].byte_len,
					pop->len);
			KUNIT_EXPECT_MEMEQ(test, buf + fz_off(FZ_RECV) +
					   recv * FZ_RECV_LEN, src, pop->len);
			recv++;
		}
		KUNIT_EXPECT_MEMEQ(test, buf + fz_off(FZ_RW), shadow,
				   fz_len[FZ_RW]);
	}
}

/* What no peer may write: the guards, the read-only MR, the sources. */
static void fz_check_untouched(struct kunit *test, struct fz *fz, int i)
{
	const u8 *buf = fz->sf->buf[i], *orig = fz->end[i].orig;
	static const enum fz_region kept[] = { FZ_RO, FZ_SRC };
	u32 at;
	int g;

	for (g = 0; g <= FZ_REGIONS; g++) {
		at = fz_guard_off(g);
		KUNIT_EXPECT_MEMEQ_MSG(test, buf + at, orig + at,
				       fz_guard_len(g),
				       "end %d: guard before region %d", i, g);
	}
	for (g = 0; g < ARRAY_SIZE(kept); g++) {
		at = fz_off(kept[g]);
		KUNIT_EXPECT_MEMEQ_MSG(test, buf + at, orig + at,
				       fz_len[kept[g]], "end %d: region %d", i,
				       kept[g]);
	}
}

/* The parameter is a slot of this array; its index is the block. */
static const u8 fz_block_slot[FZ_BLOCKS];

static u32 fz_block(const void *param)
{
	return (const u8 *)param - fz_block_slot;
}

/* Each end's MRs, buffer and mutator; the scripts. */
static void fz_prepare(struct kunit *test, struct fz *fz, u32 seed)
{
	struct stream_fx *sf = fz->sf;
	struct rnd_state script;
	int i;

	for (i = 0; i < 2; i++) {
		struct fz_end *fe = &fz->end[i];
		u8 *buf = sf->buf[i];

		fe->fz = fz;
		prandom_seed_state(&fe->rnd, seed * 2 + i + 1);
		fe->rate = seed ? 50 + seed % 8 * 50 : 0;
		fz->target[FZ_TARGET(i, FZ_RW)] =
			fz_mr(test, fz, i, 2 * i, buf + fz_off(FZ_RW),
			      FZ_RW_LEN, IB_ACCESS_REMOTE_WRITE |
			      IB_ACCESS_REMOTE_READ);
		fz->target[FZ_TARGET(i, FZ_RO)] =
			fz_mr(test, fz, i, 2 * i + 1, buf + fz_off(FZ_RO),
			      FZ_RO_LEN, IB_ACCESS_REMOTE_READ);
		fz->target[FZ_TARGET(i, 2)] = (struct fz_target){
			sf->pd->local_dma_lkey,
			(uintptr_t)buf + fz_off(FZ_SRC), fz_len[FZ_SRC] };
		fz_fill(buf, seed * 2 + i);
		fe->orig = fz_dup(test, buf, SP_BUF_LEN);
		sf->end[i].ulpdu = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, sf->end[i].ulpdu);
		sf->end[i].mutate_priv = fe;
	}
	prandom_seed_state(&script, seed);
	fz_script(fz, &script, !seed);
}

/* Post the receives, then both scripts, in turn; the pipe spoils. */
static void fz_start(struct kunit *test, struct fz *fz, bool clean)
{
	struct stream_fx *sf = fz->sf;
	int i, k, nrecv;

	for (i = 0; i < 2; i++) {
		/* clean, as many as the peer sends, so that all complete */
		nrecv = clean ? fz_sends(&fz->end[!i]) : FZ_NRECV;
		for (k = 0; k < nrecv; k++) {
			KUNIT_ASSERT_EQ(test, fz_post_recv(fz, i, k), 0);
			fz->end[i].recv_posted[k] = true;
		}
		sf->end[i].mutate = fz_mutate;
	}
	/* A QP may fail while the script is posted: the rest is refused. */
	for (k = 0; k < FZ_OPS; k++)
		for (i = 0; i < 2; i++) {
			fz->end[i].op[k].posted = !fz_post_op(fz, i, k);
			if (clean)
				KUNIT_EXPECT_TRUE(test,
						  fz->end[i].op[k].posted);
		}
}

/* A QP that failed by itself says why: a Terminate, and an event. */
static int fz_check_failed(struct kunit *test, struct fz *fz, bool *failed)
{
	int i, nfailed = 0;

	for (i = 0; i < 2; i++) {
		struct pipe_end *e = &fz->sf->end[i];

		failed[i] = qf_state(test, e->qp) != IB_QPS_RTS;
		if (!failed[i])
			continue;
		nfailed++;
		KUNIT_EXPECT_TRUE(test, qf_wait_error(e->qp));
		KUNIT_EXPECT_TRUE_MSG(test, e->nterm || e->stream->term_rx_len ||
				      e->peer->closed,
				      "end %d failed with no Terminate", i);
	}
	KUNIT_EXPECT_GE(test, qf_events(test, IB_EVENT_QP_FATAL), nfailed);
	return nfailed;
}

/* One seed's run on a fresh pair of QPs. */
static void fz_one(struct kunit *test, u32 seed)
{
	struct stream_fx *sf = sp_fx(test);
	bool failed[2];
	struct fz *fz;
	int i, k, nfailed;

	fz = kunit_kzalloc(test, sizeof(*fz), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fz);
	fz->sf = sf;
	fz_prepare(test, fz, seed);
	fz_start(test, fz, !seed);

	fz_collect(test, fz, seed ? 150 : 3000);
	if (!seed) {
		KUNIT_ASSERT_EQ(test, fz_missing(fz), 0);
		fz_check_clean(test, fz);
	}
	nfailed = fz_check_failed(test, fz, failed);

	/* The consumer ends both: everything left is flushed. */
	for (i = 0; i < 2; i++)
		if (!failed[i])
			KUNIT_EXPECT_EQ(test, qf_modify_state(sf->end[i].qp,
							      IB_QPS_ERR), 0);
	fz_collect(test, fz, 3000);
	KUNIT_EXPECT_EQ(test, fz_missing(fz), 0);
	/* nothing still placing: each end's sender feeds the other */
	for (k = 0; k < 2; k++)
		for (i = 0; i < 2; i++)
			flush_work(&sf->end[i].stream->tx_work);
	for (i = 0; i < 2; i++)
		fz_check_untouched(test, fz, i);
	KUNIT_EXPECT_EQ(test, fz->end[0].leaks + fz->end[1].leaks, 0);
	kunit_info(test, "seed %u: spoilt %u and %u, %d failed, Terminates %d and %d\n",
		   seed, fz->end[0].spoilt, fz->end[1].spoilt, nfailed,
		   sf->end[0].nterm, sf->end[1].nterm);
}

/* A block of seeds, each on a new device, until one fails. */
static void stream_fuzz(struct kunit *test)
{
	u32 first = fz_block(test->param_value) * FZ_PER_BLOCK, seed;

	for (seed = first; seed < first + FZ_PER_BLOCK; seed++) {
		if (seed > first) {
			sp_exit(test);
			KUNIT_ASSERT_EQ(test, sp_init_pd(test, 0, NULL), 0);
		}
		fz_one(test, seed);
		if (test->status == KUNIT_FAILURE) {
			kunit_err(test, "seed %u failed\n", seed);
			return;
		}
	}
}

static const void *fz_gen_params(const void *prev, char *desc)
{
	const u8 *b = prev ? (const u8 *)prev + 1 : fz_block_slot;

	if (b == fz_block_slot + FZ_BLOCKS)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "seeds %u to %u",
		 fz_block(b) * FZ_PER_BLOCK,
		 (fz_block(b) + 1) * FZ_PER_BLOCK - 1);
	return b;
}

/* No rkey for all memory: only the MRs a case makes are remote. */
static int stream_fuzz_init(struct kunit *test)
{
	return sp_init_pd(test, 0, NULL);
}

static struct kunit_case stream_fuzz_cases[] = {
	KUNIT_CASE_PARAM_ATTR(stream_fuzz, fz_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite stream_fuzz_suite = {
	.name = "sw_ddp_stream_fuzz",
	.init = stream_fuzz_init,
	.exit = sp_exit,
	.test_cases = stream_fuzz_cases,
};

kunit_test_suites(&stream_fuzz_suite);
