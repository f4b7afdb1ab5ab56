// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the RDMAP/DDP engine end to end between two real QPs, joined by
 * an in-memory "wire": each end's segments are framed by mpa_tx, flattened
 * and fed to the other end's mpa_rx, exactly as over TCP but without a
 * socket.  Real PDs, MRs, QPs and CQs from ib_core; real placement.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/slab.h>

#include "mpa.h"
#include "queue_fixture.h"
#include "stream.h"

#define SEG_MAX		2048	/* small, so messages take many segments */
#define BUF_LEN		(5 * PAGE_SIZE + 123)
#define WIRE_MAX	(SEG_MAX + 1024)

struct pipe_end {
	struct sw_ddp_llp llp;
	struct pipe_end *peer;
	struct mpa_tx tx;
	struct mpa_rx rx;
	struct sw_ddp_stream *stream;
	struct ib_qp *qp;
	u8 *wire;
	bool closed;
};

struct flat_in {
	struct mpa_rx_in in;
	const u8 *pos;
};

struct stream_fx {
	struct ib_pd *pd;
	struct ib_cq *cq[2];
	struct pipe_end end[2];
	u8 *buf[2];
};

/* Cases run one at a time; the suite's init and exit share this. */
static struct stream_fx *the_sf;

static int flat_read(struct mpa_rx_in *in, void *dst, u32 len)
{
	struct flat_in *f = container_of(in, struct flat_in, in);

	memcpy(dst, f->pos, len);
	f->pos += len;
	return 0;
}

static u32 pipe_max_segment(struct sw_ddp_llp *llp)
{
	return SEG_MAX;
}

/* Frame as MPA would, then deliver to the peer's receive side. */
static int pipe_send_segment(struct sw_ddp_llp *llp, const void *hdr,
			     unsigned int hdr_len, const struct bio_vec *bv,
			     unsigned int nr_bv, u32 len)
{
	struct pipe_end *e = container_of(llp, struct pipe_end, llp);
	struct flat_in f = { .in.read = flat_read, .pos = e->wire };
	u32 i, n = 0;
	int wire_len;

	if (e->closed || e->peer->closed)
		return -ENOTCONN;
	wire_len = mpa_tx_frame(&e->tx, hdr, hdr_len, bv, nr_bv, len);
	if (wire_len < 0)
		return wire_len;
	for (i = 0; i < e->tx.nr_bv; i++) {
		memcpy_from_bvec(e->wire + n, &e->tx.bv[i]);
		n += e->tx.bv[i].bv_len;
	}
	f.in.avail = n;
	mpa_rx_feed(&e->peer->rx, &f.in);
	return 0;
}

static void pipe_close(struct sw_ddp_llp *llp, bool abortive)
{
	container_of(llp, struct pipe_end, llp)->closed = true;
}

static const struct sw_ddp_llp_ops pipe_ops = {
	.max_segment = pipe_max_segment,
	.send_segment = pipe_send_segment,
	.close = pipe_close,
};

static struct ib_qp *stream_qp(struct kunit *test, struct stream_fx *sf,
			       int i)
{
	struct ib_qp_init_attr attr;
	struct ib_qp *qp;

	qf_init_attr(test, &attr, sf->cq[i], 16, 16);
	qp = ib_create_qp(sf->pd, &attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	return qp;
}

/* Connect end i to the other: what the connection manager will do. */
static void stream_connect(struct kunit *test, struct stream_fx *sf, int i)
{
	struct pipe_end *e = &sf->end[i];
	struct sw_ddp_qp *qp;

	e->qp = stream_qp(test, sf, i);
	qp = to_qp(e->qp);
	e->peer = &sf->end[!i];
	e->llp.ops = &pipe_ops;
	e->llp.qp = qp;
	e->wire = kunit_kzalloc(test, WIRE_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->wire);
	KUNIT_ASSERT_EQ(test, mpa_tx_init(&e->tx, true, false, 0, SEG_MAX, 8),
			0);
	e->stream = sw_ddp_stream_create(qp, &e->llp, 4, 4);
	KUNIT_ASSERT_FALSE(test, IS_ERR(e->stream));
	mpa_rx_init(&e->rx, &sw_ddp_stream_rx_ops, e->stream, true, false, 0);
	qp->llp = &e->llp;
	sw_ddp_stream_attach(e->stream);
	KUNIT_ASSERT_EQ(test, qf_modify_state(e->qp, IB_QPS_RTS), 0);
}

/* Stop both ends before freeing either: each one's sender feeds the other. */
static void stream_exit(struct kunit *test)
{
	struct stream_fx *sf = the_sf;
	int i;

	for (i = 0; sf && i < 2; i++)
		sf->end[i].closed = true;
	for (i = 0; sf && i < 2; i++)
		if (sf->end[i].stream) {
			sw_ddp_stream_detach(sf->end[i].stream);
			cancel_work_sync(&sf->end[i].stream->tx_work);
		}
	for (i = 0; sf && i < 2; i++) {
		struct pipe_end *e = &sf->end[i];

		if (e->stream)
			sw_ddp_stream_destroy(e->stream);
		if (e->qp) {
			to_qp(e->qp)->llp = NULL;
			ib_destroy_qp(e->qp);
		}
		mpa_tx_fini(&e->tx);
	}
	if (sf && sf->pd)
		ib_dealloc_pd(sf->pd);
	the_sf = NULL;
	qf_exit(test);
}

static int stream_init(struct kunit *test)
{
	struct stream_fx *sf;
	struct qfix *fx;
	int err, i;

	err = qf_init(test);
	if (err)
		return err;
	fx = test->priv;
	sf = kunit_kzalloc(test, sizeof(*sf), GFP_KERNEL);
	if (!sf)
		return -ENOMEM;
	the_sf = sf;
	sf->pd = ib_alloc_pd(fx->ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(sf->pd)) {
		err = PTR_ERR(sf->pd);
		sf->pd = NULL;
		return err;
	}
	for (i = 0; i < 2; i++) {
		sf->cq[i] = qf_cq(test, 64);
		sf->buf[i] = kunit_kzalloc(test, BUF_LEN, GFP_KERNEL);
		if (!sf->buf[i])
			return -ENOMEM;
	}
	stream_connect(test, sf, 0);
	stream_connect(test, sf, 1);
	return 0;
}

static struct stream_fx *sfx(struct kunit *test)
{
	return the_sf;
}

/* Poll @cq until one completion arrives, or a few seconds pass. */
static bool poll_one(struct ib_cq *cq, struct ib_wc *wc)
{
	int i;

	for (i = 0; i < 300; i++) {
		if (ib_poll_cq(cq, 1, wc) == 1)
			return true;
		usleep_range(10000, 20000);
	}
	return false;
}

static void fill(u8 *p, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(i * 31 + seed);
}

static int post_rdma(struct stream_fx *sf, int from, enum ib_wr_opcode op,
		     u32 len, u32 rkey)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)sf->buf[from],
		.length = len,
		.lkey = sf->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = 42, .sg_list = &sge, .num_sge = 1,
			.opcode = op, .send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = (uintptr_t)sf->buf[!from],
		.rkey = rkey,
	};

	return ib_post_send(sf->end[from].qp, &wr.wr, NULL);
}

/* RFC 5040 §5.1 RDMA Write: placed at the sink, completed at the source */
static void stream_write(struct kunit *test)
{
	struct stream_fx *sf = sfx(test);
	struct ib_wc wc;

	fill(sf->buf[0], BUF_LEN, 1);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_RDMA_WRITE, BUF_LEN,
					sf->pd->unsafe_global_rkey), 0);
	KUNIT_ASSERT_TRUE(test, poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_MEMEQ(test, sf->buf[1], sf->buf[0], BUF_LEN);
}

/* RFC 5040 §5.2 RDMA Read: the response lands in the requester's buffer */
static void stream_read(struct kunit *test)
{
	struct stream_fx *sf = sfx(test);
	struct ib_wc wc;

	fill(sf->buf[1], BUF_LEN, 7);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_RDMA_READ, BUF_LEN,
					sf->pd->unsafe_global_rkey), 0);
	KUNIT_ASSERT_TRUE(test, poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, wc.byte_len, BUF_LEN);
	KUNIT_EXPECT_MEMEQ(test, sf->buf[0], sf->buf[1], BUF_LEN);
}

static int post_recv(struct stream_fx *sf, int at, u32 len)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)sf->buf[at],
		.length = len,
		.lkey = sf->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(sf->end[at].qp, &wr, NULL);
}

/* RFC 5040 §5.3 Send: untagged, into the next posted receive */
static void stream_send(struct kunit *test)
{
	struct stream_fx *sf = sfx(test);
	struct ib_wc wc;
	u32 len = 3 * PAGE_SIZE + 5;

	fill(sf->buf[0], len, 3);
	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, BUF_LEN), 0);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, len, 0), 0);
	KUNIT_ASSERT_TRUE(test, poll_one(sf->cq[1], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.byte_len, len);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7);
	KUNIT_EXPECT_MEMEQ(test, sf->buf[1], sf->buf[0], len);
	KUNIT_ASSERT_TRUE(test, poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
}

/* A zero-length Send still consumes and completes a receive. */
static void stream_send_zero(struct kunit *test)
{
	struct stream_fx *sf = sfx(test);
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, 64), 0);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, poll_one(sf->cq[1], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 0);
}

static bool wait_error(struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	int i;

	for (i = 0; i < 300; i++) {
		if (!ib_query_qp(qp, &attr, IB_QP_STATE, &init) &&
		    attr.qp_state == IB_QPS_ERR)
			return true;
		usleep_range(10000, 20000);
	}
	return false;
}

/*
 * RFC 5041 §7.1: a Write to an STag the sink does not have.  The sink
 * terminates, places nothing, and both QPs end in ERROR.
 */
static void stream_write_bad_stag(struct kunit *test)
{
	struct stream_fx *sf = sfx(test);

	memset(sf->buf[1], 0, BUF_LEN);
	fill(sf->buf[0], BUF_LEN, 9);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_RDMA_WRITE, 100,
					sf->pd->unsafe_global_rkey + 0x1000),
			0);
	KUNIT_EXPECT_TRUE(test, wait_error(sf->end[1].qp));
	KUNIT_EXPECT_TRUE(test, wait_error(sf->end[0].qp));
	KUNIT_EXPECT_NULL(test, memchr_inv(sf->buf[1], 0, BUF_LEN));
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_eq(sf->end[1].stream->term,
						   DDP_ERR_T_INVALID_STAG));
	KUNIT_EXPECT_GE(test, qf_events(test, IB_EVENT_QP_FATAL), 1);
}

/* RFC 5041 §7.1: a Send with no receive posted is "no buffer". */
static void stream_send_no_buffer(struct kunit *test)
{
	struct stream_fx *sf = sfx(test);

	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, 10, 0), 0);
	KUNIT_EXPECT_TRUE(test, wait_error(sf->end[1].qp));
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_eq(sf->end[1].stream->term,
						   DDP_ERR_UT_MSN_NO_BUF));
}

static struct kunit_case stream_test_cases[] = {
	KUNIT_CASE(stream_write),
	KUNIT_CASE(stream_read),
	KUNIT_CASE(stream_send),
	KUNIT_CASE(stream_send_zero),
	KUNIT_CASE(stream_write_bad_stag),
	KUNIT_CASE(stream_send_no_buffer),
	{}
};

static struct kunit_suite stream_test_suite = {
	.name = "sw_ddp_stream",
	.init = stream_init,
	.exit = stream_exit,
	.test_cases = stream_test_cases,
};

kunit_test_suites(&stream_test_suite);
