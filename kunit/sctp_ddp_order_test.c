// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: out-of-order placement and in-order completion over SCTP
 * (RFC 5043 §10; RFC 5041 §5.3, §5.4), on the real engine between two
 * real QPs.  Each end's LLP captures the DDP segments its stream sends,
 * numbered with DDP-SSNs as DDP Segment Chunks; the test then hands them
 * to the other end in a shuffled order through the session's receive
 * sequence (sctp_seq.c) and sctp_seg.c, as SCTP's unordered delivery
 * might.  Writes must be placed as they arrive, everything else in turn,
 * and the memory and completions must come out as if nothing had been
 * reordered.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "ddp.h"
#include "llp_sctp.h"
#include "queue_fixture.h"
#include "skb_fixture.h"
#include "stream.h"

#define SEG_MAX		600		/* DDP segment, header included */
#define CHUNKS_MAX	64
#define MEM_LEN		(4 * PAGE_SIZE)
#define HELD_MAX	(256 * 1024)

struct cap_chunk {
	u16 ssn;
	u32 len;
	u8 *seg;			/* from the DDP control octet */
};

/*
 * One QP and its stream.  What the stream sends is captured; what it
 * receives goes through @seq.  @mem is where its work requests point.
 */
struct cap_end {
	struct sw_ddp_llp llp;
	struct ib_qp *qp;
	struct ib_cq *cq;
	struct sw_ddp_stream *stream;
	struct sw_ddp_sctp_seq seq;
	struct mutex lock;		/* the capture */
	struct cap_chunk chunk[CHUNKS_MAX];
	u32 nr;
	u16 ssn_tx;
	bool closed;
	u8 *mem;
	u8 *want;			/* what @mem must end up as */
};

struct order_fx {
	struct ib_pd *pd;
	struct cap_end end[2];		/* 0 sends, 1 receives */
};

/* Cases run one at a time; the suite's init and exit share this. */
static struct order_fx *the_of;

/*
 * What end 0 sends, in posting order: @at is in its memory (the Read's
 * sink), @peer_at in end 1's (Write target, receive buffer of @buf_len,
 * Read source).
 */
struct order_msg {
	enum ib_wr_opcode op;
	u32 at, len, peer_at, buf_len;
};

static const struct order_msg order_msgs[] = {
	{ IB_WR_RDMA_WRITE, 0x0000, 3000, 0x0103 },
	{ IB_WR_SEND, 0x0c00, 1000, 0x1800, 1024 },
	{ IB_WR_RDMA_WRITE, 0x1000, 1500, 0x0d00 },
	{ IB_WR_RDMA_READ, 0x2007, 2000, 0x2000 },
	{ IB_WR_SEND, 0x1600, 10, 0x1c00, 64 },
	{ IB_WR_RDMA_WRITE, 0x1700, 700, 0x1400 },
	{ IB_WR_SEND, 0x1a00, 0, 0x1c80, 64 },
};

#define NR_SENDS	3
#define READ_MSG	3

static u32 cap_max_segment(struct sw_ddp_llp *llp)
{
	return SEG_MAX;
}

/* One DDP segment, flattened into a chunk with the next DDP-SSN. */
static int cap_send_segment(struct sw_ddp_llp *llp, const void *hdr,
			    unsigned int hdr_len, const struct bio_vec *bv,
			    unsigned int nr_bv, u32 len, unsigned int flags)
{
	struct cap_end *e = container_of(llp, struct cap_end, llp);
	u8 *seg = kmalloc(hdr_len + len, GFP_KERNEL);
	u32 i, off = hdr_len;
	int err = 0;

	if (!seg)
		return -ENOMEM;
	memcpy(seg, hdr, hdr_len);
	for (i = 0; i < nr_bv; i++) {
		if (bv[i].bv_len > hdr_len + len - off)
			break;
		memcpy_from_page(seg + off, bv[i].bv_page, bv[i].bv_offset,
				 bv[i].bv_len);
		off += bv[i].bv_len;
	}
	mutex_lock(&e->lock);
	if (off != hdr_len + len)
		err = -EINVAL;
	else if (READ_ONCE(e->closed))
		err = -ENOTCONN;
	else if (e->nr == CHUNKS_MAX)
		err = -ENOSPC;
	if (!err) {
		e->chunk[e->nr++] = (struct cap_chunk){
			.ssn = e->ssn_tx++, .len = off, .seg = seg,
		};
		seg = NULL;
	}
	mutex_unlock(&e->lock);
	kfree(seg);
	return err;
}

static void cap_close(struct sw_ddp_llp *llp, bool abortive)
{
	WRITE_ONCE(container_of(llp, struct cap_end, llp)->closed, true);
}

static const struct sw_ddp_llp_ops cap_ops = {
	.max_segment = cap_max_segment,
	.send_segment = cap_send_segment,
	.close = cap_close,
};

static u32 cap_count(struct cap_end *e)
{
	u32 n;

	mutex_lock(&e->lock);
	n = e->nr;
	mutex_unlock(&e->lock);
	return n;
}

static void fill(u8 *p, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(i * 13 + seed + (i >> 8));
}

/* End @i on its own QP, its stream over the capturing LLP, in RTS. */
static void end_connect(struct kunit *test, struct order_fx *f, int i)
{
	struct cap_end *e = &f->end[i];
	struct ib_qp_init_attr attr;
	struct sw_ddp_qp *qp;

	mutex_init(&e->lock);
	KUNIT_ASSERT_EQ(test, sw_ddp_sctp_seq_init(&e->seq, HELD_MAX), 0);
	e->mem = kunit_kzalloc(test, MEM_LEN, GFP_KERNEL);
	e->want = kunit_kzalloc(test, MEM_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->mem);
	KUNIT_ASSERT_NOT_NULL(test, e->want);
	fill(e->mem, MEM_LEN, 0x40 + i);
	memcpy(e->want, e->mem, MEM_LEN);

	e->cq = qf_cq(test, 64);
	qf_init_attr(test, &attr, e->cq, 16, 16);
	e->qp = ib_create_qp(f->pd, &attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(e->qp));
	qp = to_qp(e->qp);
	e->llp.ops = &cap_ops;
	e->llp.qp = qp;
	e->stream = sw_ddp_stream_create(qp, &e->llp, 4, 4);
	KUNIT_ASSERT_FALSE(test, IS_ERR(e->stream));
	qp->llp = &e->llp;
	sw_ddp_stream_attach(e->stream);
	KUNIT_ASSERT_EQ(test, qf_modify_state(e->qp, IB_QPS_RTS), 0);
}

static int order_init(struct kunit *test)
{
	struct order_fx *f;
	int err;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	the_of = f;
	err = qf_init_pd(test, IB_PD_UNSAFE_GLOBAL_RKEY, &f->pd);
	if (err)
		return err;
	end_connect(test, f, 0);
	end_connect(test, f, 1);
	return 0;
}

static void end_free(struct cap_end *e)
{
	u32 i;

	if (e->stream)
		sw_ddp_stream_destroy(e->stream);
	if (e->qp) {
		to_qp(e->qp)->llp = NULL;
		ib_destroy_qp(e->qp);
	}
	if (e->seq.seen)
		sw_ddp_sctp_seq_fini(&e->seq);
	for (i = 0; i < e->nr; i++)
		kfree(e->chunk[i].seg);
}

/* Nothing sends once both ends are closed and their work is gone. */
static void order_exit(struct kunit *test)
{
	struct order_fx *f = the_of;
	int i;

	for (i = 0; f && i < 2; i++)
		WRITE_ONCE(f->end[i].closed, true);
	for (i = 0; f && i < 2; i++)
		if (f->end[i].stream) {
			sw_ddp_stream_detach(f->end[i].stream);
			cancel_work_sync(&f->end[i].stream->tx_work);
		}
	for (i = 0; f && i < 2; i++)
		end_free(&f->end[i]);
	if (f && f->pd)
		ib_dealloc_pd(f->pd);
	the_of = NULL;
	qf_exit(test);
}

static int post_recv_at(struct order_fx *f, u64 id, u32 at, u32 len)
{
	struct cap_end *e = &f->end[1];
	struct ib_sge sge = {
		.addr = (uintptr_t)(e->mem + at),
		.length = len,
		.lkey = f->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(e->qp, &wr, NULL);
}

static int post_msg(struct order_fx *f, u64 id, const struct order_msg *m)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)(f->end[0].mem + m->at),
		.length = m->len,
		.lkey = f->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = id, .sg_list = &sge, .num_sge = 1,
			.opcode = m->op, .send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = (uintptr_t)(f->end[1].mem + m->peer_at),
		.rkey = f->pd->unsafe_global_rkey,
	};

	return ib_post_send(f->end[0].qp, &wr.wr, NULL);
}

/* What each message must leave behind, in the want copies. */
static void order_expect(struct order_fx *f, const struct order_msg *m)
{
	u8 *mem0 = f->end[0].mem, *mem1 = f->end[1].mem;

	if (m->op == IB_WR_RDMA_READ)
		memcpy(f->end[0].want + m->at, mem1 + m->peer_at, m->len);
	else
		memcpy(f->end[1].want + m->peer_at, mem0 + m->at, m->len);
}

static u32 msg_segments(const struct order_msg *m)
{
	if (m->op == IB_WR_RDMA_READ)
		return 1;			/* the Read Request */
	return ddp_seg_count(m->len, SEG_MAX, m->op == IB_WR_RDMA_WRITE);
}

/*
 * Until the engine is idle: a run that used up its time slice queued
 * itself again, which one flush_work() does not wait for.
 */
static void engine_flush(struct sw_ddp_stream *s)
{
	while (flush_work(&s->tx_work))
		;
}

/*
 * Post the receives at end 1 and every message at end 0, and let end 0's
 * stream send them all: its capture then holds the whole 0 -> 1 stream.
 */
static void order_send_all(struct kunit *test, struct order_fx *f)
{
	u32 i, n = 0, r = 0;

	for (i = 0; i < ARRAY_SIZE(order_msgs); i++) {
		const struct order_msg *m = &order_msgs[i];

		if (m->op == IB_WR_SEND)
			KUNIT_ASSERT_EQ(test, post_recv_at(f, r++, m->peer_at,
							   m->buf_len), 0);
		order_expect(f, m);
		n += msg_segments(m);
	}
	for (i = 0; i < ARRAY_SIZE(order_msgs); i++)
		KUNIT_ASSERT_EQ(test, post_msg(f, 100 + i, &order_msgs[i]), 0);
	engine_flush(f->end[0].stream);
	KUNIT_ASSERT_EQ(test, cap_count(&f->end[0]), n);
}

/* One direction: the chunks @from captured, handed to @to's session. */
struct order_run {
	struct kunit *test;
	struct cap_end *to;
	struct cap_end *from;
	u32 nr;
	u32 arriving;			/* the chunk being handed over */
	bool arrived[CHUNKS_MAX];
	bool taken_early[CHUNKS_MAX];
	u32 turn;			/* the next chunk deliver() must see */
	u32 early, delivered;
	u32 recvs, reads, others;	/* completions at @to */
	/*
	 * Hand chunks over as the association's receive side does: left in
	 * an skb (headers in its head, payload in page fragments), only
	 * the first SW_DDP_SCTP_RX_HEAD octets flat.
	 */
	bool skb;
	u8 flat[SW_DDP_SCTP_RX_HEAD];
};

static bool seg_is_write(const u8 *seg)
{
	return ddp_ctrl_tagged(seg[0]) &&
	       rdmap_ctrl_opcode(seg[1]) == RDMAP_OP_WRITE;
}

/* The last segment of a Send (QN 0) or of a Read Response */
static bool seg_ends_send(const u8 *seg)
{
	u8 op = rdmap_ctrl_opcode(seg[1]);

	return !ddp_ctrl_tagged(seg[0]) && ddp_ctrl_last(seg[0]) &&
	       op >= RDMAP_OP_SEND && op <= RDMAP_OP_SEND_SE_INV;
}

static bool seg_ends_read(const u8 *seg)
{
	return ddp_ctrl_tagged(seg[0]) && ddp_ctrl_last(seg[0]) &&
	       rdmap_ctrl_opcode(seg[1]) == RDMAP_OP_READ_RESP;
}

/*
 * Chunk @i was just placed in turn: a receive completes now if it ended
 * a Send, in posting order, and a Read if it ended the Read Response;
 * nothing else completes at the sink, and everything before @i is here.
 */
static void run_check_turn(struct order_run *r, u32 i)
{
	struct kunit *test = r->test;
	const u8 *seg = r->from->chunk[i].seg;
	u32 recvs = r->recvs, reads = r->reads, j;
	struct ib_wc wc;

	while (ib_poll_cq(r->to->cq, 1, &wc) == 1) {
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		if (wc.opcode == IB_WC_RECV) {
			KUNIT_EXPECT_EQ(test, wc.wr_id, r->recvs);
			r->recvs++;
		} else if (wc.opcode == IB_WC_RDMA_READ) {
			KUNIT_EXPECT_EQ(test, wc.wr_id, 100 + READ_MSG);
			KUNIT_EXPECT_EQ(test, wc.byte_len,
					order_msgs[READ_MSG].len);
			r->reads++;
		} else {
			r->others++;	/* source completions behind the Read */
		}
	}
	KUNIT_EXPECT_EQ(test, r->recvs - recvs, seg_ends_send(seg) ? 1 : 0);
	KUNIT_EXPECT_EQ(test, r->reads - reads, seg_ends_read(seg) ? 1 : 0);
	for (j = 0; j <= i; j++)
		KUNIT_EXPECT_TRUE(test, r->arrived[j]);
}

/* In turn: it must be the next chunk not placed early, whole. */
static int run_deliver(void *ctx, const struct sw_ddp_sctp_chunk *c)
{
	struct order_run *r = ctx;
	struct kunit *test = r->test;
	const struct cap_chunk *want;
	int ret;

	while (r->turn < r->nr && r->taken_early[r->turn])
		r->turn++;
	KUNIT_EXPECT_LT(test, r->turn, r->nr);
	if (r->turn >= r->nr)
		return -EINVAL;
	want = &r->from->chunk[r->turn];
	KUNIT_EXPECT_EQ(test, c->len, want->len);
	KUNIT_EXPECT_EQ(test, c->ppid, SCTP_DDP_PPID_SEGMENT);
	KUNIT_EXPECT_MEMEQ(test, c->data, want->seg,
			   min(sw_ddp_sctp_chunk_flat(c), want->len));

	ret = sw_ddp_sctp_seg_rx(&sw_ddp_stream_rx_ops, r->to->stream, c,
				 false);
	KUNIT_EXPECT_NE(test, ret, 0);		/* in turn: always taken */
	r->delivered++;
	if (ret > 0)
		run_check_turn(r, r->turn);
	r->turn++;
	return ret < 0 ? ret : 0;
}

static int run_early(void *ctx, const struct sw_ddp_sctp_chunk *c)
{
	struct order_run *r = ctx;
	int ret;

	ret = sw_ddp_sctp_seg_rx(&sw_ddp_stream_rx_ops, r->to->stream, c,
				 true);
	if (ret == 1) {
		r->taken_early[r->arriving] = true;
		r->early++;
	}
	return ret;
}

static const struct sw_ddp_sctp_seq_ops run_ops = {
	.deliver = run_deliver,
	.early = run_early,
};

static void run_init(struct order_run *r, struct kunit *test,
		     struct cap_end *from, struct cap_end *to)
{
	*r = (struct order_run){
		.test = test, .from = from, .to = to, .nr = cap_count(from),
	};
}

/* Hand chunk @i over, as its session would on SCTP's upcall. */
static int run_one(struct order_run *r, u32 i)
{
	const struct cap_chunk *ch = &r->from->chunk[i];
	struct sw_ddp_sctp_chunk c = {
		.ppid = SCTP_DDP_PPID_SEGMENT, .data = ch->seg, .len = ch->len,
	};
	struct sk_buff *skb = NULL;
	int ret;

	r->arriving = i;
	r->arrived[i] = true;
	if (r->skb) {
		skb = fx_skb(ch->seg, ch->len, min_t(u32, ch->len, 20),
			     PAGE_SIZE / 2);
		KUNIT_ASSERT_NOT_NULL(r->test, skb);
		c.head = min_t(u32, ch->len, sizeof(r->flat));
		memcpy(r->flat, ch->seg, c.head);
		c.data = r->flat;
		c.skb = skb;
	}
	ret = sw_ddp_sctp_seq_rx(&r->to->seq, ch->ssn, &c, &run_ops, r);
	kfree_skb(skb);
	if (r->skb)
		memset(r->flat, 0xee, sizeof(r->flat));
	return ret;
}

/* Seed 0 is the reverse order; others a fixed pseudo-random shuffle. */
static void shuffle(u32 *order, u32 n, u64 seed)
{
	struct rnd_state rnd;
	u32 i, j;

	for (i = 0; i < n; i++)
		order[i] = seed ? i : n - 1 - i;
	if (!seed)
		return;
	prandom_seed_state(&rnd, seed);
	for (i = n - 1; i > 0; i--) {
		j = prandom_u32_state(&rnd) % (i + 1);
		swap(order[i], order[j]);
	}
}

/* Writes arriving before their turn: those DDP must have placed early. */
static u32 writes_ahead(const struct order_run *r, const u32 *order,
			bool (*pick)(const u8 *seg))
{
	bool seen[CHUNKS_MAX] = {};
	u32 k, next = 0, n = 0;

	for (k = 0; k < r->nr; k++) {
		seen[order[k]] = true;
		if (order[k] != next)
			n += pick(r->from->chunk[order[k]].seg);
		while (next < r->nr && seen[next])
			next++;
	}
	return n;
}

static bool seg_any(const u8 *seg)
{
	return true;
}

static void run_all(struct kunit *test, struct order_run *r, u64 seed)
{
	u32 order[CHUNKS_MAX], k;

	shuffle(order, r->nr, seed);
	for (k = 0; k < r->nr; k++)
		KUNIT_ASSERT_EQ(test, run_one(r, order[k]), 0);
	KUNIT_EXPECT_EQ(test, r->early, writes_ahead(r, order, seg_is_write));
	KUNIT_EXPECT_EQ(test, r->early + r->delivered, r->nr);
	KUNIT_EXPECT_EQ(test, r->to->seq.next, r->nr);
	KUNIT_EXPECT_EQ(test, r->to->seq.held_bytes, 0);
	kunit_info(test, "seed %llu: %u of %u chunks ahead, %u placed early\n",
		   seed, writes_ahead(r, order, seg_any), r->nr, r->early);
}

static const u64 order_seeds[] = { 0, 1, 2, 3, 5381, 0x5eed };

static void order_seed_desc(const u64 *seed, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "seed %llu", *seed);
}

KUNIT_ARRAY_PARAM(order_seed, order_seeds, order_seed_desc);

/*
 * Writes, Sends and a Read, shuffled both ways: Write segments placed
 * as they come, receives completing in order once all before them are
 * here, the Read Response kept for its turn, memory byte-exact with
 * every octet outside the targets untouched.
 */
static void order_shuffled_run(struct kunit *test, bool skb)
{
	struct order_fx *f = the_of;
	u64 seed = *(const u64 *)test->param_value;
	struct order_run *r;
	struct ib_wc wc;
	u32 done0 = 0;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	order_send_all(test, f);
	while (ib_poll_cq(f->end[0].cq, 1, &wc) == 1) {
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		done0++;
	}
	KUNIT_EXPECT_EQ(test, done0, READ_MSG);	/* those before the Read */

	run_init(r, test, &f->end[0], &f->end[1]);
	r->skb = skb;
	run_all(test, r, seed);
	KUNIT_EXPECT_GT(test, r->early, 0);
	KUNIT_EXPECT_EQ(test, r->recvs, NR_SENDS);
	KUNIT_EXPECT_EQ(test, r->reads + r->others, 0);
	KUNIT_EXPECT_MEMEQ(test, f->end[1].mem, f->end[1].want, MEM_LEN);

	/* The Read Response, back the other way */
	engine_flush(f->end[1].stream);
	KUNIT_ASSERT_EQ(test, cap_count(&f->end[1]),
			ddp_seg_count(order_msgs[READ_MSG].len, SEG_MAX, true));
	run_init(r, test, &f->end[1], &f->end[0]);
	r->skb = skb;
	run_all(test, r, seed + 1);
	KUNIT_EXPECT_EQ(test, r->early, 0);
	KUNIT_EXPECT_EQ(test, r->reads, 1);
	KUNIT_EXPECT_EQ(test, done0 + r->reads + r->others,
			ARRAY_SIZE(order_msgs));
	KUNIT_EXPECT_MEMEQ(test, f->end[0].mem, f->end[0].want, MEM_LEN);
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_ok(f->end[0].stream->term));
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_ok(f->end[1].stream->term));
}

static void order_shuffled(struct kunit *test)
{
	order_shuffled_run(test, false);
}

/* The same, each chunk's payload read from an skb, as SCTP hands it up */
static void order_shuffled_skb(struct kunit *test)
{
	order_shuffled_run(test, true);
}

/* What the session does when its sequence refuses a chunk (§6.1). */
#define SESSION_ERR	DDP_ERR_LOCAL_CATASTROPHIC

static void order_session_fail(struct cap_end *e)
{
	sw_ddp_stream_rx_ops.error(e->stream, SESSION_ERR);
}

/* The stream failed with @err: QP in ERROR, the session takes no more. */
static void order_expect_failed(struct kunit *test, struct order_run *r,
				struct sw_ddp_term_err err)
{
	struct cap_end *e = r->to;

	KUNIT_EXPECT_TRUE(test, qf_wait_error(e->qp));
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_eq(e->stream->term, err));
	KUNIT_EXPECT_TRUE(test, e->seq.dead);
	KUNIT_EXPECT_EQ(test, run_one(r, r->nr - 1), -EPROTO);
	KUNIT_EXPECT_GE(test, qf_events(test, IB_EVENT_QP_FATAL), 1);
}

/* A chunk @i with its payload changed, as a replay would bring it. */
static int order_replay_one(struct kunit *test, struct order_run *r, u32 i)
{
	const struct cap_chunk *ch = &r->from->chunk[i];
	struct sw_ddp_sctp_chunk c = {
		.ppid = SCTP_DDP_PPID_SEGMENT, .len = ch->len,
	};
	u8 *copy = kunit_kmalloc(test, ch->len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, copy);
	memcpy(copy, ch->seg, DDP_TAGGED_HDR_LEN);
	memset(copy + DDP_TAGGED_HDR_LEN, 0xee, ch->len - DDP_TAGGED_HDR_LEN);
	c.data = copy;
	return sw_ddp_sctp_seq_rx(&r->to->seq, ch->ssn, &c, &run_ops, r);
}

/* Write segments: 1 was placed in turn, 5 early (§10 replays) */
static const u32 order_replays[] = { 1, 5 };

static void order_replay_desc(const u32 *i, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "chunk %u %s", *i,
		 *i == 5 ? "seen ahead" : "before next");
}

KUNIT_ARRAY_PARAM(order_replay, order_replays, order_replay_desc);

/*
 * A replayed chunk, its payload changed: refused and not placed again;
 * the session then ends the stream.
 */
static void order_replay(struct kunit *test)
{
	struct order_fx *f = the_of;
	u32 replay = *(const u32 *)test->param_value;
	struct order_run *r;
	u8 *before;
	u32 i;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	before = kunit_kmalloc(test, MEM_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, before);
	order_send_all(test, f);
	run_init(r, test, &f->end[0], &f->end[1]);
	KUNIT_ASSERT_TRUE(test, seg_is_write(f->end[0].chunk[5].seg));
	KUNIT_ASSERT_EQ(test, run_one(r, 5), 0);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, run_one(r, i), 0);
	KUNIT_ASSERT_EQ(test, r->early, 1);
	KUNIT_ASSERT_EQ(test, r->delivered, 3);
	memcpy(before, f->end[1].mem, MEM_LEN);

	KUNIT_EXPECT_EQ(test, order_replay_one(test, r, replay), -EPROTO);
	KUNIT_EXPECT_EQ(test, r->early, 1);
	KUNIT_EXPECT_EQ(test, r->delivered, 3);
	KUNIT_EXPECT_MEMEQ(test, f->end[1].mem, before, MEM_LEN);
	order_session_fail(&f->end[1]);
	order_expect_failed(test, r, SESSION_ERR);
}

/* §10: a DDP-SSN one past the window ends the session. */
static void order_out_of_window(struct kunit *test)
{
	struct order_fx *f = the_of;
	struct cap_chunk *ch = &f->end[0].chunk[0];
	struct sw_ddp_sctp_chunk c;
	struct order_run *r;
	u8 *before;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	before = kunit_kmalloc(test, MEM_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, before);
	memcpy(before, f->end[1].mem, MEM_LEN);
	order_send_all(test, f);
	run_init(r, test, &f->end[0], &f->end[1]);
	c = (struct sw_ddp_sctp_chunk){
		.ppid = SCTP_DDP_PPID_SEGMENT, .data = ch->seg, .len = ch->len,
	};
	KUNIT_EXPECT_EQ(test, sw_ddp_sctp_seq_rx(&f->end[1].seq,
						 SCTP_DDP_SSN_WINDOW_MAX, &c,
						 &run_ops, r), -EPROTO);
	KUNIT_EXPECT_EQ(test, r->early + r->delivered, 0);
	KUNIT_EXPECT_MEMEQ(test, f->end[1].mem, before, MEM_LEN);
	order_session_fail(&f->end[1]);
	order_expect_failed(test, r, SESSION_ERR);
}

/*
 * A Write segment ahead of its turn with an STag the sink does not
 * have: the stream fails there and then, with the Terminate an in-turn
 * one would get (RFC 5041 §7.1), and nothing is placed.
 */
static void order_early_bad_stag(struct kunit *test)
{
	struct order_fx *f = the_of;
	struct order_run *r;
	struct ddp_tagged_hdr *h;
	u8 *before;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	before = kunit_kmalloc(test, MEM_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, before);
	memcpy(before, f->end[1].mem, MEM_LEN);
	order_send_all(test, f);
	run_init(r, test, &f->end[0], &f->end[1]);
	h = (struct ddp_tagged_hdr *)f->end[0].chunk[2].seg;
	KUNIT_ASSERT_TRUE(test, seg_is_write((u8 *)h));
	h->stag = cpu_to_be32(f->pd->unsafe_global_rkey + 0x1000);

	KUNIT_EXPECT_EQ(test, run_one(r, 2), -EPROTO);
	KUNIT_EXPECT_EQ(test, r->early, 0);
	KUNIT_EXPECT_MEMEQ(test, f->end[1].mem, before, MEM_LEN);
	order_expect_failed(test, r, DDP_ERR_T_INVALID_STAG);
	KUNIT_EXPECT_EQ(test, run_one(r, 0), -EPROTO);
	KUNIT_EXPECT_MEMEQ(test, f->end[1].mem, before, MEM_LEN);
}

/*
 * A segment shorter than its DDP header, ahead of its turn: not placed
 * early, and it fails the stream when its turn comes (RFC 5041 §4.2).
 */
static void order_short_segment(struct kunit *test)
{
	struct order_fx *f = the_of;
	struct cap_chunk *ch;
	struct sw_ddp_sctp_chunk c;
	struct order_run *r;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	order_send_all(test, f);
	run_init(r, test, &f->end[0], &f->end[1]);
	ch = &f->end[0].chunk[1];
	c = (struct sw_ddp_sctp_chunk){
		.ppid = SCTP_DDP_PPID_SEGMENT, .data = ch->seg,
		.len = DDP_TAGGED_HDR_LEN - 1,
	};
	r->arrived[1] = true;
	KUNIT_ASSERT_EQ(test, sw_ddp_sctp_seq_rx(&f->end[1].seq, 1, &c,
						 &run_ops, r), 0);
	KUNIT_EXPECT_EQ(test, r->early, 0);
	KUNIT_EXPECT_GT(test, f->end[1].seq.held_bytes, 0);
	ch->len = c.len;		/* what deliver() must see */
	KUNIT_EXPECT_EQ(test, run_one(r, 0), -EPROTO);
	KUNIT_EXPECT_EQ(test, r->delivered, 2);
	order_expect_failed(test, r, DDP_ERR_LOCAL_CATASTROPHIC);
}

static struct kunit_case sctp_order_cases[] = {
	KUNIT_CASE_PARAM(order_shuffled, order_seed_gen_params),
	KUNIT_CASE_PARAM(order_shuffled_skb, order_seed_gen_params),
	KUNIT_CASE_PARAM(order_replay, order_replay_gen_params),
	KUNIT_CASE(order_out_of_window),
	KUNIT_CASE(order_early_bad_stag),
	KUNIT_CASE(order_short_segment),
	{}
};

static struct kunit_suite sctp_order_suite = {
	.name = "sw_ddp_sctp_order",
	.init = order_init,
	.exit = order_exit,
	.test_cases = sctp_order_cases,
};

kunit_test_suites(&sctp_order_suite);
