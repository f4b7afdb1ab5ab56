// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: hostile segments through the whole receive path (fuzz.h).  Two
 * QPs run a script of Writes, Sends and Reads each way, and the
 * transport between them spoils some segments on their way, from a
 * seed: bits flipped, header fields replaced with real STags, offsets at
 * the edges of real regions and odd lengths, segments cut short,
 * lengthened, dropped or sent twice.  The transport frames (and sums)
 * what was spoilt, so DDP and RDMAP see all of it; or, under MPA, it
 * spoils the FPDUs as framed (fz_mutate_wire()), so MPA sees it first.
 *
 * Whatever the peer sends (RFC 5041 §7, RFC 5040 §7):
 * - no octet changes outside what the peer may write: its MR with
 *   remote write access, the posted receives, the posted Read sinks;
 * - no Read Response carries an octet from outside what the peer may
 *   read (the guards around the MRs are filled with FZ_POISON);
 * - every work request completes exactly once, in its work queue's
 *   posting order, at the latest when the consumer moves its QP to
 *   error at the end;
 * - a QP that fails by itself has sent or received a Terminate (or its
 *   peer closed the stream first), and reported IB_EVENT_QP_FATAL.
 * A seed that happens to spoil nothing has no QP fail and every work
 * request that was due succeed.  Seed 0 spoils nothing by design, and
 * there every message must arrive intact.  Where a CRC covers all that
 * is spoilt (fz->summed), every Send and Read that completes well must
 * have arrived intact too.
 * Each seed runs on a new device and QPs; a case runs a block of them.
 * A seed fixes the scripts and each end's spoiling, not the order in
 * which an end's own messages and its Read Responses interleave (both
 * ends run at once), so a failing seed may need a few runs to repeat.
 * KASAN and kmemleak (make check's kernel) watch the rest.
 */
#include <linux/delay.h>
#include <linux/moduleparam.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "ddp.h"
#include "fuzz.h"
#include "mpa.h"
#include "queue_fixture.h"
#include "rdmap.h"

#define FZ_POISON	0xa5	/* what the guards hold, */
#define FZ_POISON_RUN	4	/* and a run of it no data has */
#define FZ_TARGET(end, r)	(3 * (end) + (r))	/* r: FZ_RW, FZ_RO, 2 */

static const u32 fz_len[FZ_REGIONS] = {
	[FZ_RW] = FZ_RW_LEN,
	[FZ_RO] = FZ_RO_LEN,
	[FZ_RECV] = FZ_NRECV * FZ_RECV_LEN,
	[FZ_SINK] = FZ_OPS * FZ_SINK_LEN,	/* one slot per Read */
	[FZ_SRC] = FZ_WRITE_MAX,		/* Write and Send sources */
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
	return (g < FZ_REGIONS ? fz_off(g) : FZ_BUF_LEN) - fz_guard_off(g);
}

/*
 * The regions with data (no byte repeats the one before it), the guards
 * with FZ_POISON.
 */
static void fz_fill(u8 *buf, u8 seed)
{
	int g;

	qf_fill(buf, FZ_BUF_LEN, seed);
	for (g = 0; g <= FZ_REGIONS; g++)
		memset(buf + fz_guard_off(g), FZ_POISON, fz_guard_len(g));
}

static u8 *fz_dup(struct kunit *test, const u8 *p, u32 len)
{
	u8 *copy = kunit_kmalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, copy);
	return memcpy(copy, p, len);
}

u32 fz_rand(struct rnd_state *rnd, u32 n)
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

/* Look at a ULPDU as the engine sent it (fz_leaks()), spoiling nothing. */
void fz_watch(struct fz_end *fe, const u8 *ulpdu, u32 len)
{
	fe->leaks += fz_leaks(ulpdu, len);
}

/* Up to 64 octets of noise after the @n at @p, within @size: the length. */
static u32 fz_lengthen(struct rnd_state *rnd, u8 *p, u32 n, u32 size)
{
	u32 add = min_t(u32, 1 + fz_rand(rnd, 64), size - n), i;

	for (i = 0; i < add; i++)
		p[n + i] = prandom_u32_state(rnd);
	return n + add;
}

/*
 * Spoil one ULPDU (DDP header and payload) in @rate of a thousand, in
 * place: *@len may change, up to a page.  Return how many times it goes
 * on the wire: 0, 1 or 2.
 */
unsigned int fz_mutate(struct fz_end *fe, u8 *p, u32 *len)
{
	struct rnd_state *rnd = &fe->rnd;
	u32 n = *len, i;

	fz_watch(fe, p, n);
	if (fz_rand(rnd, 1000) >= fe->rate || !n)
		return 1;
	fe->spoilt++;
	switch (fz_rand(rnd, 12)) {
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
		*len = fz_lengthen(rnd, p, n, PAGE_SIZE);
		break;
	case 6:		/* left out, or sent twice */
		return fz_rand(rnd, 2) ? 0 : 2;
	case 7:		/* emptied, its MO about a receive's end (§5.4) */
		if (n >= DDP_UNTAGGED_HDR_LEN && !ddp_ctrl_tagged(p[0])) {
			fz_put(p, FZ_MO, fz_near(rnd, FZ_RECV_LEN));
			*len = DDP_UNTAGGED_HDR_LEN;
		}
		break;
	default:	/* the most of them: aimed */
		fz_aim(fe->fz, rnd, p, n);
		break;
	}
	return 1;
}

/* A ULPDU_Length for an FPDU of @n octets: its edges, or noise. */
static u16 fz_ulpdu_len(struct rnd_state *rnd, u32 n)
{
	switch (fz_rand(rnd, 4)) {
	case 0:		/* shorter than DDP's control octets, or its header */
		return fz_rand(rnd, DDP_UNTAGGED_HDR_LEN + 2);
	case 1:		/* about what the FPDU holds */
		return fz_near(rnd, n - MPA_ULPDU_LEN_SIZE - MPA_CRC_SIZE);
	case 2:
		return U16_MAX - fz_rand(rnd, 4);
	default:
		return prandom_u32_state(rnd);
	}
}

/*
 * Spoil one FPDU on the wire, after MPA framed and summed it (RFC 5044
 * "FPDU Format", "MPA Markers"), in @rate of a thousand: what a CRC, if
 * negotiated, must catch, and what without one only DDP's and RDMAP's
 * checks stand against.  *@len may change, up to @size.  Return how many
 * times it goes on the wire: 0, 1 or 2.  A segment that is dropped,
 * doubled, cut or lengthened shifts every marker and FPDU after it.
 * With fz->summed none is dropped or doubled, which TCP would not do
 * and MPA's CRC cannot see; all the rest changes octets the CRC covers.
 */
unsigned int fz_mutate_wire(struct fz_end *fe, u8 *p, u32 *len, u32 size)
{
	struct rnd_state *rnd = &fe->rnd;
	u32 n = *len, i;
	__be16 v;

	if (fz_rand(rnd, 1000) >= fe->rate || !n)
		return 1;
	fe->spoilt++;
	switch (fz_rand(rnd, fe->fz->summed ? 7 : 8)) {
	case 0:		/* ULPDU_Length, or a marker ahead of it */
		p[fz_rand(rnd, min(n, 6U))] ^= 1 << fz_rand(rnd, 8);
		break;
	case 1:		/* ULPDU_Length replaced (or that marker spoilt) */
		if (n < sizeof(v))
			break;
		v = cpu_to_be16(fz_ulpdu_len(rnd, n));
		memcpy(p, &v, sizeof(v));
		break;
	case 2:		/* the end: payload, PAD, CRC */
		p[n - 1 - fz_rand(rnd, min(n, 8U))] ^= 1 << fz_rand(rnd, 8);
		break;
	case 3:		/* any bit */
		p[fz_rand(rnd, n)] ^= 1 << fz_rand(rnd, 8);
		break;
	case 4:		/* any two octets */
		for (i = 0; i < 2; i++)
			p[fz_rand(rnd, n)] = prandom_u32_state(rnd);
		break;
	case 5:		/* cut short */
		*len = fz_rand(rnd, n);
		break;
	case 6:		/* lengthened */
		*len = fz_lengthen(rnd, p, n, size);
		break;
	default:	/* left out, or sent twice: not with fz->summed */
		return fz_rand(rnd, 2) ? 0 : 2;
	}
	return 1;
}

/* A fast-register MR over @len octets at @p, registered on end @i. */
static struct fz_target fz_mr(struct kunit *test, struct fz *fz, int i,
			      int slot, u8 *p, u32 len, int access)
{
	struct fz_link *l = fz->link;
	struct scatterlist sg;
	struct ib_reg_wr reg;
	struct ib_mr *mr;
	struct ib_wc wc;

	mr = ib_alloc_mr(l->pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	l->mr[slot] = mr;
	sg_init_one(&sg, p, len);
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(l->pd->device, &sg, 1,
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
	KUNIT_ASSERT_EQ(test, ib_post_send(l->qp[i], &reg.wr, NULL), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(l->cq[i], &wc));
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
	struct fz_link *l = fz->link;
	struct fz_end *fe = &fz->end[i];
	struct fz_op *op = &fe->op[k];
	const struct fz_target *t = &fz->target[FZ_TARGET(!i, op->target)];
	u8 *buf = l->buf[i];
	struct ib_sge sge = {
		.addr = (uintptr_t)buf + fz_off(FZ_SRC) + op->src,
		.length = op->len,
		.lkey = l->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = k, .sg_list = &sge, .num_sge = 1,
			.opcode = op->op, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = t->base + op->remote,
		.rkey = t->stag,
	};

	if (op->op == IB_WR_RDMA_READ)
		sge.addr = (uintptr_t)buf + fz_off(FZ_SINK) + k * FZ_SINK_LEN;
	return ib_post_send(l->qp[i], &wr.wr, NULL);
}

static int fz_post_recv(struct fz *fz, int i, int k)
{
	struct fz_link *l = fz->link;
	struct ib_sge sge = {
		.addr = (uintptr_t)l->buf[i] + fz_off(FZ_RECV) +
			k * FZ_RECV_LEN,
		.length = FZ_RECV_LEN,
		.lkey = l->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_id = FZ_OPS + k, .sg_list = &sge,
				 .num_sge = 1 };

	return ib_post_recv(l->qp[i], &wr, NULL);
}

static int fz_sends(const struct fz_end *fe)
{
	int k, n = 0;

	for (k = 0; k < FZ_OPS; k++)
		n += fe->op[k].op == IB_WR_SEND;
	return n;
}

/*
 * Each work queue completes in posting order, flushed ones too (RFC 5040
 * §5.5; the verbs' rule): a Write or Send posted after a Read does not
 * complete before the Read's Response is placed, and a receive does not
 * complete before the one posted before it.
 */
static void fz_check_order(struct kunit *test, struct fz_end *fe, int i,
			   const struct ib_wc *wc)
{
	bool rq = wc->wr_id >= FZ_OPS;
	u32 k = rq ? wc->wr_id - FZ_OPS : wc->wr_id;

	KUNIT_EXPECT_GE_MSG(test, k, fe->wq_next[rq],
			    "end %d: %s %u completed after %u", i,
			    rq ? "receive" : "work request", k,
			    fe->wq_next[rq] - 1);
	fe->wq_next[rq] = k + 1;
}

/*
 * Take what both CQs have; each work request completes once and in its
 * turn, and a receive that completes well says no more arrived than it
 * holds.
 */
static int fz_poll(struct kunit *test, struct fz *fz)
{
	struct ib_wc wc;
	int i, n = 0;

	for (i = 0; i < 2; i++) {
		struct fz_end *fe = &fz->end[i];

		while (ib_poll_cq(fz->link->cq[i], 1, &wc) == 1) {
			KUNIT_ASSERT_LT(test, wc.wr_id, FZ_OPS + FZ_NRECV);
			KUNIT_EXPECT_FALSE_MSG(test, fe->seen[wc.wr_id],
					       "end %d: wr_id %llu twice", i,
					       wc.wr_id);
			fz_check_order(test, fe, i, &wc);
			fe->seen[wc.wr_id] = true;
			fe->wc[wc.wr_id] = wc;
			if (wc.wr_id >= FZ_OPS && wc.status == IB_WC_SUCCESS)
				KUNIT_EXPECT_LE_MSG(test, wc.byte_len,
						    FZ_RECV_LEN,
						    "end %d: receive %llu", i,
						    wc.wr_id - FZ_OPS);
			n++;
		}
	}
	return n;
}

/*
 * Completions not yet in: of every work request posted, or (@due) only
 * of those that must complete while the QPs run, the receives the
 * peer's Sends take and not the spare ones.
 */
static int fz_missing(struct fz *fz, bool due)
{
	int i, k, n = 0, nrecv;

	for (i = 0; i < 2; i++) {
		struct fz_end *fe = &fz->end[i];

		nrecv = due ? fz_sends(&fz->end[!i]) : FZ_NRECV;
		for (k = 0; k < FZ_OPS; k++)
			n += fe->op[k].posted && !fe->seen[k];
		for (k = 0; k < nrecv; k++)
			n += fe->recv_posted[k] && !fe->seen[FZ_OPS + k];
	}
	return n;
}

/* Poll until the completions are in, or nothing came for @idle_ms. */
static void fz_collect(struct kunit *test, struct fz *fz, bool due,
		       int idle_ms)
{
	unsigned long idle_end = jiffies + msecs_to_jiffies(idle_ms);

	while (fz_missing(fz, due) && time_before(jiffies, idle_end)) {
		if (fz_poll(test, fz))
			idle_end = jiffies + msecs_to_jiffies(idle_ms);
		else
			usleep_range(5000, 10000);
	}
}

/* Nothing spoilt: both QPs run, and all that was due completed well. */
static void fz_check_done(struct kunit *test, struct fz *fz)
{
	int i, k;

	KUNIT_EXPECT_EQ(test, fz_missing(fz, true), 0);
	for (i = 0; i < 2; i++) {
		struct fz_end *fe = &fz->end[i];

		KUNIT_EXPECT_EQ_MSG(test, qf_state(test, fz->link->qp[i]),
				    IB_QPS_RTS, "end %d", i);
		for (k = 0; k < FZ_OPS + fz_sends(&fz->end[!i]); k++)
			if (fe->seen[k])
				KUNIT_EXPECT_EQ_MSG(test, fe->wc[k].status,
						    IB_WC_SUCCESS,
						    "end %d wr %d", i, k);
	}
}

/* A work request that completed, and completed well */
static bool fz_ok(const struct fz_end *fe, u32 wr_id)
{
	return fe->seen[wr_id] && fe->wc[wr_id].status == IB_WC_SUCCESS;
}

/*
 * What completed well arrived as it was sent: a Read from the peer's
 * read-only MR, a receive (the peer's Sends take them in turn).  With
 * @clean (seed 0), everything completed, and every Write landed too.
 */
static void fz_check_arrived(struct kunit *test, struct fz *fz, bool clean)
{
	struct fz_link *l = fz->link;
	int i, k;

	for (i = 0; i < 2; i++) {
		struct fz_end *fe = &fz->end[i], *peer = &fz->end[!i];
		u8 *shadow = fz_dup(test, fe->orig + fz_off(FZ_RW),
				    fz_len[FZ_RW]);
		u8 *buf = l->buf[i];
		int recv = 0;

		for (k = 0; k < FZ_OPS; k++) {
			struct fz_op *op = &fe->op[k], *pop = &peer->op[k];
			u8 *src = peer->orig + fz_off(FZ_SRC) + pop->src;

			if (op->op == IB_WR_RDMA_READ && op->target == FZ_RO &&
			    (clean || fz_ok(fe, k)))
				KUNIT_EXPECT_MEMEQ_MSG(test, buf + fz_off(FZ_SINK) +
						       k * FZ_SINK_LEN,
						       peer->orig + fz_off(FZ_RO) +
						       op->remote, op->len,
						       "end %d: Read %d", i, k);
			if (pop->op == IB_WR_RDMA_WRITE)
				memcpy(shadow + pop->remote, src, pop->len);
			if (pop->op != IB_WR_SEND)
				continue;
			if (clean || fz_ok(fe, FZ_OPS + recv)) {
				KUNIT_EXPECT_EQ(test,
						fe->wc[FZ_OPS + recv].byte_len,
						pop->len);
				KUNIT_EXPECT_MEMEQ_MSG(test, buf + fz_off(FZ_RECV) +
						       recv * FZ_RECV_LEN, src,
						       pop->len,
						       "end %d: receive %d", i,
						       recv);
			}
			recv++;
		}
		if (clean)
			KUNIT_EXPECT_MEMEQ(test, buf + fz_off(FZ_RW), shadow,
					   fz_len[FZ_RW]);
	}
}

/* What no peer may write: the guards, the read-only MR, the sources. */
static void fz_check_untouched(struct kunit *test, struct fz *fz, int i)
{
	const u8 *buf = fz->link->buf[i], *orig = fz->end[i].orig;
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

/* Each end's MRs and buffer; the scripts. */
static void fz_prepare(struct kunit *test, struct fz *fz, u32 seed)
{
	struct fz_link *l = fz->link;
	struct rnd_state script;
	int i;

	for (i = 0; i < 2; i++) {
		struct fz_end *fe = &fz->end[i];
		u8 *buf = l->buf[i];

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
			l->pd->local_dma_lkey,
			(uintptr_t)buf + fz_off(FZ_SRC), fz_len[FZ_SRC] };
		fz_fill(buf, seed * 2 + i);
		fe->orig = fz_dup(test, buf, FZ_BUF_LEN);
	}
	prandom_seed_state(&script, seed);
	fz_script(fz, &script, !seed);
}

/* Post the receives, then both scripts, in turn; the transport spoils. */
static void fz_start(struct kunit *test, struct fz *fz, bool clean)
{
	int i, k, nrecv;

	for (i = 0; i < 2; i++) {
		/* clean, as many as the peer sends, so that all complete */
		nrecv = clean ? fz_sends(&fz->end[!i]) : FZ_NRECV;
		for (k = 0; k < nrecv; k++) {
			KUNIT_ASSERT_EQ(test, fz_post_recv(fz, i, k), 0);
			fz->end[i].recv_posted[k] = true;
		}
	}
	fz->tp->arm(fz);
	/* A QP may fail while the script is posted: the rest is refused. */
	for (k = 0; k < FZ_OPS; k++)
		for (i = 0; i < 2; i++) {
			fz->end[i].op[k].posted = !fz_post_op(fz, i, k);
			if (clean)
				KUNIT_EXPECT_TRUE(test,
						  fz->end[i].op[k].posted);
		}
}

/*
 * A QP that failed by itself says why: a Terminate, and an event.  One
 * whose peer ended the stream is in ERROR too, but owes no event.
 */
static int fz_check_failed(struct kunit *test, struct fz *fz, bool *failed)
{
	const struct fz_transport *tp = fz->tp;
	int i, nfailed = 0, nfatal = 0;

	for (i = 0; i < 2; i++) {
		struct ib_qp *qp = fz->link->qp[i];

		failed[i] = qf_state(test, qp) != IB_QPS_RTS;
		if (!failed[i])
			continue;
		nfailed++;
		KUNIT_EXPECT_TRUE(test, qf_wait_error(qp));
		if (tp->peer_closed && tp->peer_closed(fz, i))
			continue;
		nfatal++;
		KUNIT_EXPECT_TRUE_MSG(test, tp->told(fz, i),
				      "end %d failed with no Terminate", i);
	}
	/* the event comes from a work item: it may follow the ERROR */
	KUNIT_EXPECT_TRUE_MSG(test, qf_wait_events(test, IB_EVENT_QP_FATAL,
						   nfatal),
			      "%d QP_FATAL events for %d QPs",
			      qf_events(test, IB_EVENT_QP_FATAL), nfatal);
	return nfailed;
}

/* Nothing spoilt yet (the transport spoils on its own thread). */
static bool fz_quiet(struct fz *fz)
{
	return !READ_ONCE(fz->end[0].spoilt) && !READ_ONCE(fz->end[1].spoilt);
}

/* One seed's run on a fresh pair of QPs. */
static void fz_one(struct kunit *test, const struct fz_transport *tp,
		   u32 seed)
{
	bool failed[2];
	struct fz *fz;
	int i, nfailed;

	fz = kunit_kzalloc(test, sizeof(*fz), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fz);
	fz->tp = tp;
	fz->link = tp->link(test);
	fz_prepare(test, fz, seed);
	fz_start(test, fz, !seed);

	fz_collect(test, fz, false, seed ? 150 : 3000);
	/*
	 * Nothing spoilt so far: then nothing may fail (a reordering is
	 * not an error), and all that is due must come, if it takes long.
	 * Once it is in, nothing more goes on the wire to be spoilt.
	 */
	if (fz_quiet(fz)) {
		fz_collect(test, fz, true, 3000);
		if (fz_quiet(fz))
			fz_check_done(test, fz);
	}
	if (!seed || fz->summed)
		fz_check_arrived(test, fz, !seed);
	nfailed = fz_check_failed(test, fz, failed);

	/* The consumer ends both: everything left is flushed. */
	for (i = 0; i < 2; i++)
		if (!failed[i])
			KUNIT_EXPECT_EQ(test, qf_modify_state(fz->link->qp[i],
							      IB_QPS_ERR), 0);
	fz_collect(test, fz, false, 3000);
	KUNIT_EXPECT_EQ(test, fz_missing(fz, false), 0);
	tp->quiesce(test, fz);
	for (i = 0; i < 2; i++)
		fz_check_untouched(test, fz, i);
	KUNIT_EXPECT_EQ(test, fz->end[0].leaks + fz->end[1].leaks, 0);
	kunit_info(test, "seed %u: spoilt %u and %u, %d failed, Terminates %d and %d\n",
		   seed, fz->end[0].spoilt, fz->end[1].spoilt, nfailed,
		   tp->nterm(fz, 0), tp->nterm(fz, 1));
}

/* The parameter is a slot of this array; its index is the block. */
static const u8 fz_block_slot[16];

/*
 * Where the seeds of every fuzz case start (these suites', and the MPA
 * and SCTP session control fuzz cases'): 0 in make check, which runs the
 * same seeds every time.  make fuzz loads the module again and again
 * with other bases (scripts/guest/fuzz.sh).
 */
static unsigned int seed_base;
module_param(seed_base, uint, 0444);
MODULE_PARM_DESC(seed_base, "first seed of the fuzz cases (default 0)");

/* Seed @n of a fuzz case's run, counted from seed_base. */
u32 fz_seed(u32 n)
{
	return seed_base + n;
}

static u32 fz_block(const void *param)
{
	return (const u8 *)param - fz_block_slot;
}

/* For a case's gen_params: @nblocks blocks of @per_block seeds. */
const void *fz_next_block(const void *prev, char *desc, u32 nblocks,
			  u32 per_block)
{
	const u8 *b = prev ? (const u8 *)prev + 1 : fz_block_slot;

	if (WARN_ON(nblocks > ARRAY_SIZE(fz_block_slot)) ||
	    b == fz_block_slot + nblocks)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "seeds %u to %u",
		 fz_seed(fz_block(b) * per_block),
		 fz_seed((fz_block(b) + 1) * per_block - 1));
	return b;
}

/*
 * A case: tp->per_block seeds from fz_seed(@first), each on a new device
 * and QPs (the suite's init made the first), until one fails.
 */
void fz_run(struct kunit *test, const struct fz_transport *tp, u32 first)
{
	u32 seed;

	first = fz_seed(first);
	for (seed = first; seed < first + tp->per_block; seed++) {
		if (seed > first) {
			tp->exit(test);
			KUNIT_ASSERT_EQ(test, tp->init(test), 0);
		}
		fz_one(test, tp, seed);
		if (test->status == KUNIT_FAILURE) {
			kunit_err(test, "%s: seed %u failed\n", tp->name,
				  seed);
			return;
		}
	}
}

/* The case: its block of seeds (fz_next_block()). */
void fz_seeds(struct kunit *test, const struct fz_transport *tp)
{
	fz_run(test, tp, fz_block(test->param_value) * tp->per_block);
}
