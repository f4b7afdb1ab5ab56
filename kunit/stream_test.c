// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the RDMAP/DDP engine end to end between two real QPs, joined by
 * the in-memory wire of stream_pipe.c.
 * Parameterized cases run RFC 6581 peer-to-peer mode: end 0 the
 * initiator, end 1 the responder.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "cq.h"
#include "queue_fixture.h"
#include "rdmap.h"
#include "stream_pipe.h"

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
	struct stream_fx *sf = sp_fx(test);
	struct ib_wc wc;

	qf_fill(sf->buf[0], SP_BUF_LEN, 1);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_RDMA_WRITE, SP_BUF_LEN,
					sf->pd->unsafe_global_rkey), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_MEMEQ(test, sf->buf[1], sf->buf[0], SP_BUF_LEN);
}

/*
 * A chain refused at a later WR (here an opcode iWARP has not) posts
 * those before it, and they go: nothing else would wake the engine.
 */
static void stream_write_before_bad_wr(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct ib_sge sge = {
		.addr = (uintptr_t)sf->buf[0],
		.length = SP_BUF_LEN,
		.lkey = sf->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = 7, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = (uintptr_t)sf->buf[1],
		.rkey = sf->pd->unsafe_global_rkey,
	};
	struct ib_send_wr bad_wr = { .wr_id = 8, .opcode = IB_WR_SEND_WITH_IMM };
	const struct ib_send_wr *bad = NULL;
	struct ib_wc wc;

	qf_fill(sf->buf[0], SP_BUF_LEN, 5);
	wr.wr.next = &bad_wr;
	KUNIT_EXPECT_EQ(test, ib_post_send(sf->end[0].qp, &wr.wr, &bad),
			-EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, (const struct ib_send_wr *)&bad_wr);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7ULL);
	KUNIT_EXPECT_MEMEQ(test, sf->buf[1], sf->buf[0], SP_BUF_LEN);
}

/* RFC 5040 §5.2 RDMA Read: the response lands in the requester's buffer */
static void stream_read(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct ib_wc wc;

	qf_fill(sf->buf[1], SP_BUF_LEN, 7);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_RDMA_READ, SP_BUF_LEN,
					sf->pd->unsafe_global_rkey), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, wc.byte_len, SP_BUF_LEN);
	KUNIT_EXPECT_MEMEQ(test, sf->buf[0], sf->buf[1], SP_BUF_LEN);
	KUNIT_EXPECT_EQ(test, sf->end[1].nnow, 0);	/* too long for that */
}

/*
 * A short Read is answered by the receive upcall that brought the
 * Request (SW_DDP_SEG_NOW); if the LLP cannot take it there, by the work
 * item, the same response.
 */
static void stream_read_short(struct kunit *test, bool refuse)
{
	struct stream_fx *sf = sp_fx(test);
	struct ib_wc wc;

	sf->end[1].refuse_now = refuse;
	qf_fill(sf->buf[1], 128, 5);
	memset(sf->buf[0], 0, 129);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_RDMA_READ, 128,
					sf->pd->unsafe_global_rkey), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 128);
	KUNIT_EXPECT_MEMEQ(test, sf->buf[0], sf->buf[1], 128);
	KUNIT_EXPECT_EQ(test, sf->buf[0][128], 0);
	KUNIT_EXPECT_EQ(test, sf->end[1].nnow, 1);
	/* the one Read Response either way */
	KUNIT_EXPECT_EQ(test, sf->end[1].nsent, 1);
	KUNIT_EXPECT_EQ(test, rdmap_ctrl_opcode(sf->end[1].first[1]),
			RDMAP_OP_READ_RESP);
}

static void stream_read_short_now(struct kunit *test)
{
	stream_read_short(test, false);
}

static void stream_read_short_refused(struct kunit *test)
{
	stream_read_short(test, true);
}

/* IB_WR_REG_MR with @access on end 0, signalled, and its completion. */
static enum ib_wc_status reg_mr(struct stream_fx *sf, struct ib_mr *mr,
				int access)
{
	struct ib_reg_wr reg = {
		.wr = { .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.mr = mr,
		.key = mr->rkey,
		.access = access,
	};
	struct ib_wc wc;

	if (ib_post_send(sf->end[0].qp, &reg.wr, NULL) ||
	    !qf_poll_one(sf->cq[0], &wc))
		return IB_WC_GENERAL_ERR;
	return wc.status;
}

/*
 * A fast-register MR (sf->mr[0]) over the first @len octets of end @at's
 * buffer, mapped; not yet registered.
 */
static struct ib_mr *fast_reg_map(struct kunit *test, struct stream_fx *sf,
				  int at, u32 len)
{
	struct scatterlist sg;
	struct ib_mr *mr;

	mr = ib_alloc_mr(sf->pd, IB_MR_TYPE_MEM_REG, 2);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	sf->mr[0] = mr;
	sg_init_one(&sg, sf->buf[at], len);
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(sf->pd->device, &sg, 1,
					    DMA_BIDIRECTIONAL), 1);
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE), 1);
	return mr;
}

/*
 * A Read with Local Invalidate, as rdma_rw posts for every Read on iWARP
 * (the sink a fast-register MR, invalidate_rkey that MR with the key it
 * had before rdma_rw registered it again): the data lands, then the STag
 * is invalid, so registering it again succeeds (a valid one is refused).
 * One that names another MR is refused at post.
 */
static void stream_read_inv(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct ib_mr *mr = fast_reg_map(test, sf, 0, 256);
	const struct ib_send_wr *bad;
	struct ib_rdma_wr rd;
	struct ib_sge sge;
	struct ib_wc wc;
	u32 old_key;

	old_key = mr->lkey;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->lkey));
	KUNIT_ASSERT_EQ(test, reg_mr(sf, mr, IB_ACCESS_LOCAL_WRITE),
			IB_WC_SUCCESS);

	qf_fill(sf->buf[1], 256, 11);
	memset(sf->buf[0], 0, 256);
	sge = (struct ib_sge){ .addr = mr->iova, .length = 256,
			       .lkey = mr->lkey };
	rd = (struct ib_rdma_wr){
		.wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_RDMA_READ_WITH_INV,
			.send_flags = IB_SEND_SIGNALED,
			.ex.invalidate_rkey = mr->lkey + 0x100 },
		.remote_addr = (uintptr_t)sf->buf[1],
		.rkey = sf->pd->unsafe_global_rkey,
	};
	KUNIT_EXPECT_EQ(test, ib_post_send(sf->end[0].qp, &rd.wr, &bad),
			-EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, &rd.wr);

	/* as rdma_rw posts it: the MR's key before its registration */
	rd.wr.ex.invalidate_rkey = old_key;
	KUNIT_ASSERT_EQ(test, ib_post_send(sf->end[0].qp, &rd.wr, NULL), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 256);
	KUNIT_EXPECT_MEMEQ(test, sf->buf[0], sf->buf[1], 256);
	KUNIT_EXPECT_EQ(test, reg_mr(sf, mr, IB_ACCESS_LOCAL_WRITE),
			IB_WC_SUCCESS);
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
	struct stream_fx *sf = sp_fx(test);
	struct ib_wc wc;
	u32 len = 3 * PAGE_SIZE + 5;

	qf_fill(sf->buf[0], len, 3);
	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, SP_BUF_LEN), 0);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, len, 0), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[1], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.byte_len, len);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7);
	KUNIT_EXPECT_MEMEQ(test, sf->buf[1], sf->buf[0], len);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
}

/* A zero-length Send still consumes and completes a receive. */
static void stream_send_zero(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, 64), 0);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, 0, 0), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[1], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 0);
}

/*
 * RFC 5041 §7.1: a Write to an STag the sink does not have.  The sink
 * terminates, places nothing, and both QPs end in ERROR.
 */
static void stream_write_bad_stag(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);

	memset(sf->buf[1], 0, SP_BUF_LEN);
	qf_fill(sf->buf[0], SP_BUF_LEN, 9);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_RDMA_WRITE, 100,
					sf->pd->unsafe_global_rkey + 0x1000),
			0);
	KUNIT_EXPECT_TRUE(test, qf_wait_error(sf->end[1].qp));
	KUNIT_EXPECT_TRUE(test, qf_wait_error(sf->end[0].qp));
	KUNIT_EXPECT_NULL(test, memchr_inv(sf->buf[1], 0, SP_BUF_LEN));
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_eq(sf->end[1].stream->term,
						   DDP_ERR_T_INVALID_STAG));
	KUNIT_EXPECT_GE(test, qf_events(test, IB_EVENT_QP_FATAL), 1);
}

/* RFC 5041 §7.1: a Send with no receive posted is "no buffer". */
static void stream_send_no_buffer(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);

	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, 10, 0), 0);
	KUNIT_EXPECT_TRUE(test, qf_wait_error(sf->end[1].qp));
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_eq(sf->end[1].stream->term,
						   DDP_ERR_UT_MSN_NO_BUF));
}

/*
 * A QP the consumer moved to ERROR places nothing more, though its LLP
 * still delivers (TCP closes from a work item): a Write's bytes stay out
 * of the MR, and no completion follows the flush.
 */
static void stream_error_stops_placement(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, SP_BUF_LEN), 0);
	KUNIT_ASSERT_EQ(test, qf_modify_state(sf->end[1].qp, IB_QPS_ERR), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[1], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	sf->end[1].closed = false;	/* the LLP has not closed yet */

	qf_fill(sf->buf[0], SP_BUF_LEN, 9);
	memset(sf->buf[1], 0, SP_BUF_LEN);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_RDMA_WRITE, SP_BUF_LEN,
					sf->pd->unsafe_global_rkey), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(sf->buf[1], 0, SP_BUF_LEN), NULL);
	KUNIT_EXPECT_EQ(test, 0, ib_poll_cq(sf->cq[1], 1, &wc));
}

/*
 * The QP goes to ERROR while a segment is half received (TCP delivers a
 * segment in as many pieces as it likes): its receive is flushed, and
 * the rest of the segment lands nowhere.  Without CRCs its first part
 * was placed as it came; with them (this suite's framing) it was staged
 * for its CRC, and none of it lands.
 */
static void stream_error_mid_segment(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	u32 len = 1000, placed = sf->end[1].crc ? 0 :
				 100 - MPA_ULPDU_LEN_SIZE - DDP_UNTAGGED_HDR_LEN;
	struct ib_wc wc;

	qf_fill(sf->buf[0], len, 5);
	memset(sf->buf[1], 0, SP_BUF_LEN);
	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, SP_BUF_LEN), 0);
	sf->end[0].cut = 100;
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, len, 0), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	/* the FPDU: ULPDU_Length, header, payload, PAD, CRC */
	KUNIT_ASSERT_EQ(test, sf->end[0].kept,
			MPA_ULPDU_LEN_SIZE + DDP_UNTAGGED_HDR_LEN + len +
			mpa_pad_len(DDP_UNTAGGED_HDR_LEN + len) +
			MPA_CRC_SIZE - 100);
	KUNIT_EXPECT_MEMEQ(test, sf->buf[1], sf->buf[0], placed);

	KUNIT_ASSERT_EQ(test, qf_modify_state(sf->end[1].qp, IB_QPS_ERR), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[1], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	sp_deliver_kept(&sf->end[0]);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(sf->buf[1] + placed, 0,
					     SP_BUF_LEN - placed), NULL);
	KUNIT_EXPECT_EQ(test, 0, ib_poll_cq(sf->cq[1], 1, &wc));
}

static void stream_kick_end(struct stream_fx *sf, int i)
{
	queue_work(system_unbound_wq, &sf->end[i].stream->tx_work);
}

/* Wait until @v reads @want, or a few seconds pass. */
static bool wait_atomic(atomic_t *v, int want)
{
	int i;

	for (i = 0; i < 300 && atomic_read(v) != want; i++)
		usleep_range(10000, 20000);
	return atomic_read(v) == want;
}

/* No Read of ours outstanding, or a few seconds passed. */
static bool ord_idle(struct sw_ddp_stream *s)
{
	bool idle = false;
	int i;

	for (i = 0; i < 300 && !idle; i++) {
		spin_lock_bh(&s->lock);
		idle = s->ord_get == s->ord_put;
		spin_unlock_bh(&s->lock);
		if (!idle)
			usleep_range(10000, 20000);
	}
	return idle;
}

/*
 * @n signalled Reads chained, wr_id i bringing piece i (@piece octets)
 * of end 1's buffer to the same place in end 0's.
 */
static void reads_chain(struct stream_fx *sf, struct ib_rdma_wr *wr,
			struct ib_sge *sge, int n, u32 piece)
{
	int i;

	for (i = 0; i < n; i++) {
		sge[i] = (struct ib_sge){
			.addr = (uintptr_t)sf->buf[0] + i * piece,
			.length = piece,
			.lkey = sf->pd->local_dma_lkey,
		};
		wr[i].wr = (struct ib_send_wr){
			.wr_id = i, .sg_list = &sge[i], .num_sge = 1,
			.opcode = IB_WR_RDMA_READ,
			.send_flags = IB_SEND_SIGNALED,
			.next = i < n - 1 ? &wr[i + 1].wr : NULL,
		};
		wr[i].remote_addr = (uintptr_t)sf->buf[1] + i * piece;
		wr[i].rkey = sf->pd->unsafe_global_rkey;
	}
}

/*
 * More Reads than ORD (4 here), the eighth fenced, then a fenced Write
 * (IB_SEND_FENCE): the fifth Read waits for the first response, the
 * fenced ones for all before them; a completion wakes the engine only
 * for such a wait.  All complete, in order, each piece where it belongs.
 */
static void stream_read_ord(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct ib_rdma_wr wr[9] = {};
	struct ib_sge sge[9];
	const u32 piece = 512;
	struct ib_wc wc;
	int i;

	qf_fill(sf->buf[1], SP_BUF_LEN, 3);
	memset(sf->buf[0], 0, SP_BUF_LEN);
	reads_chain(sf, wr, sge, 9, piece);
	/* a fenced Read, then one Write back of the first piece */
	wr[7].wr.send_flags |= IB_SEND_FENCE;
	wr[8].wr.opcode = IB_WR_RDMA_WRITE;
	wr[8].wr.send_flags |= IB_SEND_FENCE;
	wr[8].remote_addr = (uintptr_t)sf->buf[1] + 4 * PAGE_SIZE;
	sge[8].addr = (uintptr_t)sf->buf[0];

	KUNIT_ASSERT_EQ(test, ib_post_send(sf->end[0].qp, &wr[0].wr, NULL), 0);
	for (i = 0; i < 9; i++) {
		KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.wr_id, (u64)i);
		KUNIT_EXPECT_EQ(test, wc.opcode,
				i < 8 ? IB_WC_RDMA_READ : IB_WC_RDMA_WRITE);
	}
	KUNIT_EXPECT_MEMEQ(test, sf->buf[0], sf->buf[1], 8 * piece);
	KUNIT_EXPECT_MEMEQ(test, sf->buf[1] + 4 * PAGE_SIZE, sf->buf[1], piece);
	KUNIT_EXPECT_TRUE(test, ord_idle(sf->end[0].stream));
}

static u8 rtr_opcode(enum sw_ddp_rtr rtr)
{
	if (rtr == SW_DDP_RTR_WRITE)
		return RDMAP_OP_WRITE;
	return rtr == SW_DDP_RTR_READ ? RDMAP_OP_READ_REQ : RDMAP_OP_SEND;
}

static const struct rtr_case rtr_good[] = {
	{ "Write RTR", SW_DDP_RTR_WRITE, SW_DDP_RTR_WRITE },
	{ "Read RTR", SW_DDP_RTR_READ, SW_DDP_RTR_READ },
	{ "Send RTR", SW_DDP_RTR_SEND, SW_DDP_RTR_SEND },
};

static void rtr_case_desc(const struct rtr_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rtr_good, rtr_good, rtr_case_desc);

/*
 * RFC 6581 §9.2: the initiator's RTR is the first message on the wire;
 * the responder sends nothing before it has taken it, reports it once,
 * and neither consumer sees it: no receive consumed (a Send RTR), no
 * completion (a Read RTR's zero-length response is the engine's).
 */
static void stream_rtr(struct kunit *test)
{
	const struct rtr_case *rc = test->param_value;
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *ini = &sf->end[0], *resp = &sf->end[1];
	u32 len = 2 * PAGE_SIZE + 9;
	struct ib_wc wc;

	/* the responder's Write is held back until the RTR is in */
	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, SP_BUF_LEN), 0);
	qf_fill(sf->buf[1], SP_BUF_LEN, 5);
	memset(sf->buf[0], 0, SP_BUF_LEN);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 1, IB_WR_RDMA_WRITE, len,
					sf->pd->unsafe_global_rkey), 0);
	msleep(100);
	KUNIT_EXPECT_EQ(test, 0, resp->nsent);
	KUNIT_EXPECT_EQ(test, 0, ib_poll_cq(sf->cq[1], 1, &wc));

	stream_kick_end(sf, 0);
	KUNIT_ASSERT_TRUE(test, wait_atomic(&resp->rtr_received, 1));
	KUNIT_EXPECT_EQ(test, ddp_ctrl_tagged(ini->first[0]),
			rc->send == SW_DDP_RTR_WRITE);
	KUNIT_EXPECT_EQ(test, rtr_opcode(rc->send),
			rdmap_ctrl_opcode(ini->first[1]));
	KUNIT_EXPECT_EQ(test, 0, ini->first_len);

	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[1], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_MEMEQ(test, sf->buf[0], sf->buf[1], len);
	/* a Read RTR's ORD slot is free again, with no completion */
	KUNIT_EXPECT_TRUE(test, ord_idle(ini->stream));
	KUNIT_EXPECT_EQ(test, 0, ib_poll_cq(sf->cq[0], 1, &wc));

	/* the consumers' own messages follow, MSNs in step */
	qf_fill(sf->buf[0], len, 11);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, len, 0), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[1], &wc));
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.byte_len, len);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_RDMA_READ, len,
					sf->pd->unsafe_global_rkey), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);

	KUNIT_EXPECT_EQ(test, 1, atomic_read(&resp->rtr_received));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&ini->rtr_received));
	KUNIT_EXPECT_EQ(test, IB_QPS_RTS, qf_state(test, ini->qp));
	KUNIT_EXPECT_EQ(test, IB_QPS_RTS, qf_state(test, resp->qp));
}

static const struct rtr_case rtr_bad[] = {
	{ "Write for Send", SW_DDP_RTR_WRITE, SW_DDP_RTR_SEND },
	{ "Send for Read", SW_DDP_RTR_SEND, SW_DDP_RTR_READ },
	{ "Read for Write", SW_DDP_RTR_READ, SW_DDP_RTR_WRITE },
	{ "a Send for Write", SW_DDP_RTR_NONE, SW_DDP_RTR_WRITE },
};

KUNIT_ARRAY_PARAM(rtr_bad, rtr_bad, rtr_case_desc);

/* The Terminate @e received, whole. */
static int term_received_info(struct pipe_end *e, struct rdmap_term_info *ti)
{
	return rdmap_term_parse(e->stream->term_rx, e->stream->term_rx_len,
				ti);
}

/* The Terminate @e received, decoded. */
static struct sw_ddp_term_err term_received(struct pipe_end *e)
{
	struct rdmap_term_info ti;

	if (term_received_info(e, &ti))
		return SW_DDP_TERM_OK;
	return ti.err;
}

/*
 * RFC 6581 §8, §9.2: anything but the agreed RTR first (another type, or
 * the consumer's message) is a connection model the responder does not
 * share: it terminates with "No matching RTR option".
 */
static void stream_rtr_mismatch(struct kunit *test)
{
	const struct rtr_case *rc = test->param_value;
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *ini = &sf->end[0], *resp = &sf->end[1];

	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, SP_BUF_LEN), 0);
	if (rc->send)
		stream_kick_end(sf, 0);
	else
		KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, 8, 0), 0);
	KUNIT_EXPECT_TRUE(test, qf_wait_error(resp->qp));
	KUNIT_EXPECT_TRUE(test, qf_wait_error(ini->qp));
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(MPA_ERR_NO_MATCHING_RTR),
			sw_ddp_term_err_pack(resp->stream->term));
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(MPA_ERR_NO_MATCHING_RTR),
			sw_ddp_term_err_pack(term_received(ini)));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&resp->rtr_received));
}

static const struct rtr_case rtr_term[] = {
	{ "Terminate for Write", SW_DDP_RTR_NONE, SW_DDP_RTR_WRITE },
};

KUNIT_ARRAY_PARAM(rtr_term, rtr_term, rtr_case_desc);

/*
 * A Terminate instead of the RTR ends the stream as any Terminate does:
 * here the initiator's, for a Write whose local buffer it cannot use.
 */
static void stream_rtr_terminate(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *ini = &sf->end[0], *resp = &sf->end[1];
	struct ib_sge sge = { .addr = (uintptr_t)sf->buf[0], .length = 8,
			      .lkey = sf->pd->local_dma_lkey + 0x1000 };
	struct ib_rdma_wr wr = {
		.wr = { .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE },
		.remote_addr = (uintptr_t)sf->buf[1],
		.rkey = sf->pd->unsafe_global_rkey,
	};

	KUNIT_ASSERT_EQ(test, ib_post_send(ini->qp, &wr.wr, NULL), 0);
	KUNIT_EXPECT_TRUE(test, qf_wait_error(resp->qp));
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(RDMAP_ERR_LOCAL_CATASTROPHIC),
			sw_ddp_term_err_pack(term_received(resp)));
	/* the peer's Terminate is not answered (RFC 5040) */
	KUNIT_EXPECT_EQ(test, 0, resp->nsent);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&resp->rtr_received));
}

/* One segment as end @e's peer would see it sent: @p within one page. */
static void inject(struct pipe_end *e, const void *hdr, u32 hdr_len,
		   void *p, u32 len)
{
	struct bio_vec bv = {
		.bv_page = virt_to_page(p),
		.bv_offset = offset_in_page(p),
		.bv_len = len,
	};

	e->llp.ops->send_segment(&e->llp, hdr, hdr_len, len ? &bv : NULL, !!len,
				 len, 0);
}

/*
 * A Read Request for 64 octets from end 1's buffer into end 0's, with
 * @msn, as end 0 would send it (built past any response these cases ask
 * for).
 */
static void inject_read_req(struct stream_fx *sf, u32 msn)
{
	struct rdmap_read_req rr = {
		.sink_stag = sf->pd->unsafe_global_rkey,
		.sink_to = (uintptr_t)sf->buf[0],
		.size = 64,
		.src_stag = sf->pd->unsafe_global_rkey,
		.src_to = (uintptr_t)sf->buf[1],
	};
	struct rdmap_read_req_hdr *req = (void *)(sf->buf[0] + 4 * SP_SEG_MAX);
	struct ddp_untagged_hdr h;

	rdmap_read_req_put(req, &rr);
	rdmap_untagged_init(&h, RDMAP_OP_READ_REQ, true, 0, msn, 0);
	inject(&sf->end[0], &h, sizeof(h), req, sizeof(*req));
}

/* End 1 failed with @err, and its receive (wr_id 7) completed @status. */
static void expect_recv_failed(struct kunit *test, struct stream_fx *sf,
			       struct sw_ddp_term_err err,
			       enum ib_wc_status status)
{
	struct ib_wc wc;

	KUNIT_EXPECT_TRUE(test, qf_wait_error(sf->end[1].qp));
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(err),
			sw_ddp_term_err_pack(sf->end[1].stream->term));
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[1], &wc));
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7ULL);
	KUNIT_EXPECT_EQ(test, wc.status, status);
}

/* A Send of @len octets, then an empty last segment at MO @tail_mo. */
static void inject_send_empty_tail(struct stream_fx *sf, u32 len, u32 tail_mo)
{
	struct ddp_untagged_hdr h;

	qf_fill(sf->buf[0], len, 4);
	rdmap_untagged_init(&h, RDMAP_OP_SEND, false, 0, 1, 0);
	inject(&sf->end[0], &h, sizeof(h), sf->buf[0], len);
	rdmap_untagged_init(&h, RDMAP_OP_SEND, true, 0, 1, tail_mo);
	inject(&sf->end[0], &h, sizeof(h), sf->buf[0], 0);
}

/* RFC 5041 §5.4: an empty last segment at the buffer's end is legal. */
static void stream_send_empty_tail(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, 64), 0);
	inject_send_empty_tail(sf, 64, 64);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[1], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 64);
	KUNIT_EXPECT_MEMEQ(test, sf->buf[1], sf->buf[0], 64);
}

/*
 * An empty last segment whose MO lies past the receive buffer would make
 * the message that long (§5.4): the consumer would be told of octets
 * past its buffer.  It is an invalid MO (§7.2: 0x2/0x04), and the
 * receive completes with IB_WC_LOC_LEN_ERR, not that length.
 */
static void stream_send_empty_tail_past_end(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);

	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, 64), 0);
	inject_send_empty_tail(sf, 32, 0xfffffff0);
	expect_recv_failed(test, sf, DDP_ERR_UT_INVALID_MO, IB_WC_LOC_LEN_ERR);
}

/*
 * A Send's segments come up in order (RFC 5041 §5.4), so one that does
 * not begin where the last ended skipped octets that will never come: an
 * invalid MO (§7.2: 0x2/0x04), and the receive is not completed as if the
 * octets left out were the message's.
 */
static void stream_send_gap(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct ddp_untagged_hdr h;

	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, 64), 0);
	qf_fill(sf->buf[0], 64, 5);
	rdmap_untagged_init(&h, RDMAP_OP_SEND, false, 0, 1, 0);
	inject(&sf->end[0], &h, sizeof(h), sf->buf[0], 16);
	rdmap_untagged_init(&h, RDMAP_OP_SEND, true, 0, 1, 32);
	inject(&sf->end[0], &h, sizeof(h), sf->buf[0] + 32, 32);
	expect_recv_failed(test, sf, DDP_ERR_UT_INVALID_MO, IB_WC_LOC_LEN_ERR);
}

/* Nor may a Send's first segment begin past MO 0, empty or not. */
static void stream_send_late_start(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct ddp_untagged_hdr h;

	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, 64), 0);
	rdmap_untagged_init(&h, RDMAP_OP_SEND, true, 0, 1, 64);
	inject(&sf->end[0], &h, sizeof(h), sf->buf[0], 0);
	expect_recv_failed(test, sf, DDP_ERR_UT_INVALID_MO, IB_WC_LOC_LEN_ERR);
}

/*
 * A Send longer than the receive it lands in (RFC 5041 §7.2: 0x2/0x05):
 * the receive completes with IB_WC_LOC_LEN_ERR, as siw's does, not as
 * flushed, so the consumer can tell its buffer was too short.
 */
static void stream_send_too_long(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);

	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, 64), 0);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, 100, 0), 0);
	expect_recv_failed(test, sf, DDP_ERR_UT_TOO_LONG, IB_WC_LOC_LEN_ERR);
}

/*
 * A receive the consumer posted malformed (here, more SGEs than any RQE
 * has) completes with IB_WC_LOC_QP_OP_ERR when a Send comes for it.  The
 * fault is ours: the Terminate says Local Catastrophic, not that the
 * peer sent with no buffer posted (RFC 5041 §7.2: 0x2/0x01).
 */
static void stream_rqe_malformed(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct sw_ddp_rq *rq = &to_qp(sf->end[1].qp)->rq;

	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, 64), 0);
	rq->ring[rq->get & (rq->num - 1)].num_sge = SIW_MAX_SGE + 1;
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, 10, 0), 0);
	expect_recv_failed(test, sf, DDP_ERR_LOCAL_CATASTROPHIC,
			   IB_WC_LOC_QP_OP_ERR);
}

/* Keep the engine from running, once a run of its own has ended. */
static void hold_engine(struct kunit *test, struct sw_ddp_stream *s)
{
	int i;

	for (i = 0; i < 100 && !rdmap_tx_trylock(s); i++)
		usleep_range(10000, 20000);
	KUNIT_ASSERT_LT(test, i, 100);
}

/* Has the engine wound the stream up, within a few seconds? */
static bool wait_dead(struct sw_ddp_stream *s)
{
	int i;

	for (i = 0; i < 100 && !READ_ONCE(s->dead); i++)
		usleep_range(10000, 20000);
	return READ_ONCE(s->dead);
}

/*
 * An SQE found malformed in the ring (as a user's may be) completes with
 * IB_WC_LOC_QP_OP_ERR, and the engine stops there: the Send posted after
 * it is flushed, not sent, and the peer gets a Local Catastrophic
 * Terminate.
 */
static void stream_sqe_malformed(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct sw_ddp_stream *s = sf->end[0].stream;
	struct sw_ddp_sq *sq = &to_qp(sf->end[0].qp)->sq;
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, 64), 0);
	/* the engine kept from the SQ while both are posted */
	hold_engine(test, s);
	KUNIT_EXPECT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, 10, 0), 0);
	KUNIT_EXPECT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, 10, 0), 0);
	sq->ring[sq->next & (sq->num - 1)].num_sge = SIW_MAX_SGE + 1;
	rdmap_tx_unlock(s);
	sw_ddp_stream_kick(s);

	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_QP_OP_ERR);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test,
			sw_ddp_term_err_pack(RDMAP_ERR_LOCAL_CATASTROPHIC),
			sw_ddp_term_err_pack(s->term));
	KUNIT_EXPECT_TRUE(test, qf_wait_error(sf->end[1].qp));
	KUNIT_EXPECT_FALSE(test, qf_poll_one(sf->cq[1], &wc) &&
			   wc.status == IB_WC_SUCCESS);
}

/* The QP_FATAL events of both ends, once their failures have settled. */
static int fatal_events(struct kunit *test, struct stream_fx *sf)
{
	int i;

	for (i = 0; i < 2; i++)
		flush_work(&to_qp(sf->end[i].qp)->fatal_work);
	return qf_events(test, IB_EVENT_QP_FATAL);
}

/* Fill end @i's CQ (both its queues') with CQEs: its next one is lost. */
static void fill_cq(struct kunit *test, struct stream_fx *sf, int i)
{
	struct sw_ddp_wc wc = {
		.qp = &to_qp(sf->end[i].qp)->base,
		.opcode = SIW_OP_RECEIVE,
		.status = IB_WC_SUCCESS,
	};
	int n;

	for (n = 0; n < sf->cq[i]->cqe; n++)
		KUNIT_ASSERT_EQ(test, sw_ddp_cq_post(to_cq(sf->cq[i]), &wc), 0);
}

/*
 * A Send arrives and its receive's CQE is lost to a full CQ: the QP
 * fails (Local Catastrophic), its Terminate first.  The completion leaves
 * that to the engine, held here: until it runs, the stream stays open and
 * nothing has queued the QP's move to ERROR, which would close it.
 */
static void stream_recv_cq_overflow(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *e = &sf->end[1];
	struct sw_ddp_stream *s = e->stream;
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, 64), 0);
	fill_cq(test, sf, 1);
	hold_engine(test, s);
	KUNIT_EXPECT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, 10, 0), 0);
	/* sent, so end 1 took it in: the wire delivers as it sends */
	KUNIT_EXPECT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test,
			sw_ddp_term_err_pack(RDMAP_ERR_LOCAL_CATASTROPHIC),
			sw_ddp_term_err_pack(s->term));
	flush_work(&to_qp(e->qp)->fatal_work);
	KUNIT_EXPECT_FALSE(test, e->closed);
	/* not qf_state(): it may abort the case with the engine held */
	KUNIT_EXPECT_EQ(test, SW_DDP_QPS_RTS, READ_ONCE(to_qp(e->qp)->state));
	rdmap_tx_unlock(s);
	sw_ddp_stream_kick(s);

	KUNIT_EXPECT_TRUE(test, qf_wait_error(e->qp));
	/* both ends', once each: end 0 fails on our Terminate */
	KUNIT_EXPECT_TRUE(test, qf_wait_events(test, IB_EVENT_QP_FATAL, 2));
	KUNIT_EXPECT_EQ(test, 2, fatal_events(test, sf));
	KUNIT_EXPECT_EQ(test, 1, e->nterm);
	KUNIT_EXPECT_EQ(test,
			sw_ddp_term_err_pack(RDMAP_ERR_LOCAL_CATASTROPHIC),
			sw_ddp_term_err_pack(term_received(&sf->end[0])));
}

/*
 * A Send's own CQE is lost to a full CQ: the engine fails the stream
 * (Local Catastrophic) and the peer, which took the Send, gets the
 * Terminate.
 */
static void stream_send_cq_overflow(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *e = &sf->end[0];
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, 64), 0);
	fill_cq(test, sf, 0);
	KUNIT_EXPECT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, 10, 0), 0);

	KUNIT_EXPECT_TRUE(test, qf_wait_error(e->qp));
	KUNIT_EXPECT_TRUE(test, qf_wait_events(test, IB_EVENT_QP_FATAL, 2));
	KUNIT_EXPECT_EQ(test, 2, fatal_events(test, sf));
	KUNIT_EXPECT_EQ(test,
			sw_ddp_term_err_pack(RDMAP_ERR_LOCAL_CATASTROPHIC),
			sw_ddp_term_err_pack(e->stream->term));
	KUNIT_EXPECT_EQ(test, 1, e->nterm);
	KUNIT_EXPECT_EQ(test,
			sw_ddp_term_err_pack(RDMAP_ERR_LOCAL_CATASTROPHIC),
			sw_ddp_term_err_pack(term_received(&sf->end[1])));
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[1], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7ULL);
}

/*
 * The stream ends with a Read outstanding, and the Read's flushed CQE is
 * lost to a full CQ.  No Terminate can go now; the QP still goes to
 * ERROR with its event.
 */
static void stream_flush_cq_overflow(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *e = &sf->end[0];
	struct sw_ddp_stream *s = e->stream;
	int i;

	fill_cq(test, sf, 0);	/* the Read makes no CQE until it ends */
	/* the responder held, so the Read stays outstanding */
	hold_engine(test, sf->end[1].stream);
	KUNIT_EXPECT_EQ(test, post_rdma(sf, 0, IB_WR_RDMA_READ, 64,
					sf->pd->unsafe_global_rkey), 0);
	for (i = 0; i < 300 && !READ_ONCE(e->nsent); i++)
		usleep_range(10000, 20000);
	KUNIT_EXPECT_EQ(test, 1, READ_ONCE(e->nsent));
	/* the LLP stops: the response will find the wire closed */
	e->closed = true;
	sw_ddp_stream_detach(s);
	sw_ddp_stream_destroy(s);
	e->stream = NULL;

	KUNIT_EXPECT_TRUE(test, qf_wait_error(e->qp));
	KUNIT_EXPECT_TRUE(test, qf_wait_events(test, IB_EVENT_QP_FATAL, 1));
	KUNIT_EXPECT_EQ(test, 1, fatal_events(test, sf));
	rdmap_tx_unlock(sf->end[1].stream);
}

/* A stream torn down by a thread of its own, as the LLP's teardown. */
struct stream_stop {
	struct sw_ddp_stream *s;
	struct completion done;
};

static int stream_stop_fn(void *arg)
{
	struct stream_stop *st = arg;

	sw_ddp_stream_detach(st->s);
	sw_ddp_stream_destroy(st->s);
	kthread_complete_and_exit(&st->done, 0);
}

/* Tear end @e's stream down in a thread; NULL if none could start. */
static struct stream_stop *stream_stop_async(struct kunit *test,
					     struct pipe_end *e)
{
	struct stream_stop *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);

	if (!st)
		return NULL;
	st->s = e->stream;
	init_completion(&st->done);
	if (IS_ERR(kthread_run(stream_stop_fn, st, "sw_ddp_stop")))
		return NULL;
	e->stream = NULL;	/* the thread's now */
	return st;
}

/* Has the thread ended the stream, within a few seconds?  It must end. */
static bool stream_stopped(struct stream_stop *st)
{
	if (wait_for_completion_timeout(&st->done, 5 * HZ))
		return true;
	/* it uses the QP, and @st: both go with the case */
	wait_for_completion(&st->done);
	return false;
}

/*
 * A failure is recorded, and the LLP closes before the engine can wind it
 * up (a bad segment and the peer's FIN in one packet): the stream ends
 * with the engine held, which then finds it dead.  The QP still goes to
 * ERROR with its event.
 */
static void stream_fail_then_close(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *e = &sf->end[1];
	struct sw_ddp_stream *s = e->stream;
	struct stream_stop *st;

	hold_engine(test, s);
	sw_ddp_stream_fail(s, RDMAP_ERR_LOCAL_CATASTROPHIC, true);
	st = stream_stop_async(test, e);
	if (!st) {
		rdmap_tx_unlock(s);
		KUNIT_FAIL_AND_ABORT(test, "no thread to stop the stream");
	}
	KUNIT_EXPECT_TRUE(test, wait_dead(s));
	rdmap_tx_unlock(s);
	KUNIT_EXPECT_TRUE(test, stream_stopped(st));

	KUNIT_EXPECT_TRUE(test, qf_wait_events(test, IB_EVENT_QP_FATAL, 1));
	KUNIT_EXPECT_TRUE(test, qf_wait_error(e->qp));
	KUNIT_EXPECT_EQ(test, 1, fatal_events(test, sf));
}

/*
 * Holds end 0's engine in a segment's send, after the wire's check that
 * it is open, until the stream's teardown began (or its QP is in ERROR,
 * if @error); then closes the wire, if @close.
 */
struct send_wait {
	struct sw_ddp_stream *s;
	bool error;
	bool close;
	bool sending;
	bool go;		/* the test lets it go on */
};

static bool send_wait_over(struct send_wait *w)
{
	if (READ_ONCE(w->go))
		return true;
	if (w->error)
		return READ_ONCE(w->s->qp->state) == SW_DDP_QPS_ERROR;
	return READ_ONCE(w->s->dead);
}

static unsigned int send_wait_fn(struct pipe_end *e, u8 *ulpdu, u32 *len)
{
	struct send_wait *w = e->mutate_priv;
	int i;

	WRITE_ONCE(w->sending, true);
	for (i = 0; i < 300 && !send_wait_over(w); i++)
		usleep_range(10000, 20000);
	if (w->close)
		e->closed = true;
	return 1;
}

/* End 0's next segment sent waits there, as the send_wait says. */
static struct send_wait *send_wait_arm(struct kunit *test, bool error,
				       bool close)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *e = &sf->end[0];
	struct send_wait *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	e->ulpdu = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, e->ulpdu);
	w->s = e->stream;
	w->error = error;
	w->close = close;
	e->mutate_priv = w;
	e->mutate = send_wait_fn;
	return w;
}

/* ...and the engine has come to it. */
static void send_wait_reached(struct kunit *test, struct send_wait *w)
{
	int i;

	for (i = 0; i < 300 && !READ_ONCE(w->sending); i++)
		usleep_range(10000, 20000);
	KUNIT_ASSERT_TRUE(test, READ_ONCE(w->sending));
}

/*
 * End 0 sends @len octets with a full CQ, held in its first segment's
 * send as send_wait says.
 */
static void send_held(struct kunit *test, u32 len, bool error, bool close)
{
	struct stream_fx *sf = sp_fx(test);
	struct send_wait *w;

	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, SP_BUF_LEN), 0);
	fill_cq(test, sf, 0);
	w = send_wait_arm(test, error, close);
	KUNIT_EXPECT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, len, 0), 0);
	send_wait_reached(test, w);
}

/*
 * The stream's teardown begins while the engine sends a Send, whose CQE
 * is then lost to a full CQ: one that went whole, or one cut short
 * (@cut) as the LLP stopped under it.  No Terminate can go any more; the
 * QP still goes to ERROR with its event.
 */
static void teardown_cq_overflow(struct kunit *test, bool cut)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *e = &sf->end[0];
	struct stream_stop *st;

	/* two segments, if cut: the wire closes after the first */
	send_held(test, cut ? SP_SEG_MAX + 100 : 10, false, cut);
	st = stream_stop_async(test, e);
	KUNIT_ASSERT_NOT_NULL(test, st);

	KUNIT_EXPECT_TRUE(test, stream_stopped(st));
	KUNIT_EXPECT_TRUE(test, qf_wait_events(test, IB_EVENT_QP_FATAL, 1));
	KUNIT_EXPECT_TRUE(test, qf_wait_error(e->qp));
	KUNIT_EXPECT_EQ(test, 1, fatal_events(test, sf));
	KUNIT_EXPECT_EQ(test, 0, e->nterm);
}

/* (Not parameterized: this suite's parameters are RFC 6581 modes.) */
static void stream_teardown_cq_overflow(struct kunit *test)
{
	teardown_cq_overflow(test, false);
}

static void stream_teardown_cut_cq_overflow(struct kunit *test)
{
	teardown_cq_overflow(test, true);
}

/*
 * The LLP closes gracefully, ours or the peer's, while the engine sends
 * a Send: the Send is cut short.  It completes flushed, as the Send
 * posted behind it does once the QP reaches ERROR; the close is no
 * failure: no Terminate, no event.
 */
static void stream_close_cuts_send(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *e = &sf->end[0];
	struct send_wait *w;
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, SP_BUF_LEN), 0);
	/* two segments: the wire closes after the first */
	w = send_wait_arm(test, false, true);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, SP_SEG_MAX + 100,
					0), 0);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, 10, 0), 0);
	send_wait_reached(test, w);
	WRITE_ONCE(w->go, true);

	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_TRUE(test, wait_dead(e->stream));
	/* the teardown that follows the LLP's close */
	sw_ddp_stream_detach(e->stream);
	sw_ddp_stream_destroy(e->stream);
	e->stream = NULL;
	KUNIT_EXPECT_EQ(test, qf_modify_state(e->qp, IB_QPS_ERR), 0);

	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, 1, e->nsent);
	KUNIT_EXPECT_EQ(test, 0, e->nterm);
	KUNIT_EXPECT_EQ(test, 0, fatal_events(test, sf));
}

/*
 * The LLP's close has gone so far that it takes no segment of any size
 * (TCP: its socket released), and the teardown has not reached the
 * stream yet when a Send is posted: the Send is flushed, and the close
 * is no failure.
 */
static void stream_post_while_llp_closes(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *e = &sf->end[0];
	struct ib_wc wc;

	WRITE_ONCE(e->no_segment, true);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, 10, 0), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_TRUE(test, wait_dead(e->stream));
	KUNIT_EXPECT_EQ(test, 0, e->nsent);
	KUNIT_EXPECT_EQ(test, 0, e->nterm);
	KUNIT_EXPECT_EQ(test, 0, fatal_events(test, sf));
}

/*
 * A QP the consumer closes (CLOSING: a graceful disconnect) starts none
 * of the SQEs still waiting, which the LLP's close would cut short; they
 * are flushed when the QP reaches ERROR.
 */
static void stream_closing_starts_nothing(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *e = &sf->end[0];
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, SP_BUF_LEN), 0);
	hold_engine(test, e->stream);
	KUNIT_EXPECT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, 10, 0), 0);
	KUNIT_EXPECT_EQ(test, qf_modify_state(e->qp, IB_QPS_SQD), 0);
	e->closed = false;	/* the LLP has not closed yet */
	rdmap_tx_unlock(e->stream);
	sw_ddp_stream_kick(e->stream);
	flush_work(&e->stream->tx_work);
	KUNIT_EXPECT_EQ(test, 0, e->nsent);
	KUNIT_EXPECT_EQ(test, 0, ib_poll_cq(sf->cq[0], 1, &wc));

	KUNIT_EXPECT_EQ(test, qf_modify_state(e->qp, IB_QPS_ERR), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, 0, fatal_events(test, sf));
}

/*
 * The consumer deregisters a Send's source MR while the engine sends it:
 * the next segment's check fails, the SQE completes with a protection
 * error, and the peer gets a Local Catastrophic Terminate (RFC 5040
 * §7.2), as when the MR was bad at the take.
 */
static void stream_send_source_gone(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	const u32 len = SP_SEG_MAX + 100;	/* two segments */
	struct ib_mr *mr = fast_reg_map(test, sf, 0, len);
	struct send_wait *w;
	struct ib_send_wr wr;
	struct ib_sge sge;
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, reg_mr(sf, mr, IB_ACCESS_LOCAL_WRITE),
			IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, SP_BUF_LEN), 0);

	w = send_wait_arm(test, false, false);
	sge = (struct ib_sge){ .addr = mr->iova, .length = len,
			       .lkey = mr->lkey };
	wr = (struct ib_send_wr){ .wr_id = 9, .sg_list = &sge, .num_sge = 1,
				  .opcode = IB_WR_SEND,
				  .send_flags = IB_SEND_SIGNALED };
	KUNIT_ASSERT_EQ(test, ib_post_send(sf->end[0].qp, &wr, NULL), 0);
	send_wait_reached(test, w);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	sf->mr[0] = NULL;
	WRITE_ONCE(w->go, true);

	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_PROT_ERR);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 9ULL);
	KUNIT_EXPECT_TRUE(test, qf_wait_error(sf->end[1].qp));
	KUNIT_EXPECT_EQ(test,
			sw_ddp_term_err_pack(RDMAP_ERR_LOCAL_CATASTROPHIC),
			sw_ddp_term_err_pack(term_received(&sf->end[1])));
}

/*
 * The consumer moves the QP to ERROR while the engine sends a Send: the
 * SQE is flushed, and its CQE lost to a full CQ.  No Terminate is owed
 * for a flushed SQE, and none goes.
 */
static void stream_flushed_cq_overflow(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *e = &sf->end[0];

	send_held(test, 10, true, false);
	KUNIT_EXPECT_EQ(test, qf_modify_state(e->qp, IB_QPS_ERR), 0);
	KUNIT_ASSERT_TRUE(test, qf_wait_events(test, IB_EVENT_CQ_ERR, 1));
	/* the CQE is lost; the engine's run ends, and any it queued */
	hold_engine(test, e->stream);
	rdmap_tx_unlock(e->stream);
	flush_work(&e->stream->tx_work);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(e->stream->dead));
	KUNIT_EXPECT_EQ(test, 0, e->nterm);
	KUNIT_EXPECT_EQ(test, 0, fatal_events(test, sf));
}

/*
 * RFC 5040: a Terminate is the last message of its stream.  A Write that
 * follows it on the wire, to memory the peer may write, is not placed,
 * and no Terminate goes back.
 */
static void stream_terminate_ends_rx(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *peer = &sf->end[0], *e = &sf->end[1];
	struct rdmap_term_info ti = { .err = RDMAP_ERR_OP_UNSPECIFIED };
	struct ddp_untagged_hdr th;
	struct ddp_tagged_hdr wh;
	u8 *term = sf->buf[0], *data = sf->buf[0] + 64;
	int n;

	memset(sf->buf[1], 0, SP_BUF_LEN);
	qf_fill(data, 64, 3);
	n = rdmap_term_build(term, 64, &ti);
	KUNIT_ASSERT_GT(test, n, 0);
	rdmap_untagged_init(&th, RDMAP_OP_TERMINATE, true, 0, 1, 0);
	inject(peer, &th, sizeof(th), term, n);
	rdmap_tagged_init(&wh, RDMAP_OP_WRITE, true,
			  sf->pd->unsafe_global_rkey, (uintptr_t)sf->buf[1]);
	inject(peer, &wh, sizeof(wh), data, 64);
	KUNIT_EXPECT_TRUE(test, qf_wait_error(e->qp));
	KUNIT_EXPECT_NULL(test, memchr_inv(sf->buf[1], 0, SP_BUF_LEN));
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(RDMAP_ERR_OP_UNSPECIFIED),
			sw_ddp_term_err_pack(term_received(e)));
	KUNIT_EXPECT_EQ(test, 0, e->nsent);
}

/*
 * RFC 5041 §5.2: the STag and TO of a zero-length Tagged DDP Message are
 * not checked.  A zero-length Read answered with an STag and TO of the
 * responder's choosing (not the Request's sink) completes.
 */
static void stream_read_zero_any_stag(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct ib_wc wc;

	sf->end[1].zero_resp_any = true;
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_RDMA_READ, 0,
					sf->pd->unsafe_global_rkey), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 0);
	KUNIT_EXPECT_EQ(test, sf->end[1].nrewritten, 1);
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_ok(sf->end[0].stream->term));
}

/*
 * A connection whose IRD is zero takes no Read Request: RFC 5041 §7.1,
 * no buffer on queue 1.  (The ring behind it still has one slot.)
 */
static void stream_ird_zero(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);

	sf->end[1].stream->ird_neg = 0;	/* as a connection may agree */
	qf_fill(sf->buf[1], 64, 1);
	memset(sf->buf[0], 0, 64);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_RDMA_READ, 64,
					sf->pd->unsafe_global_rkey), 0);
	KUNIT_EXPECT_TRUE(test, qf_wait_error(sf->end[1].qp));
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_eq(sf->end[1].stream->term,
						   DDP_ERR_UT_MSN_NO_BUF));
	KUNIT_EXPECT_NULL(test, memchr_inv(sf->buf[0], 0, 64));
}

/*
 * A connection whose ORD is zero sends no Read Request: the Read fails
 * here, with a local error, rather than on the peer's Terminate.
 */
static void stream_ord_zero(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *e = &sf->end[0];
	struct ib_wc wc;

	e->stream->ord_neg = 0;	/* as a connection may agree */
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_RDMA_READ, 64,
					sf->pd->unsafe_global_rkey), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_QP_OP_ERR);
	KUNIT_EXPECT_TRUE(test, qf_wait_error(e->qp));
	/* what went out was our Terminate, not the Read Request */
	KUNIT_EXPECT_EQ(test, 1, e->nsent);
	KUNIT_EXPECT_EQ(test, RDMAP_OP_TERMINATE, rdmap_ctrl_opcode(e->first[1]));
	KUNIT_EXPECT_EQ(test, 0, sf->end[1].stream->ird_put);
}

/*
 * RFC 5041 §5.4: Read Requests are taken in MSN order.  One whose MSN
 * skips the next (IRD room for both) is refused, not answered with the
 * skipped MSN then taken as the next one's, which would answer its
 * repeat too.
 */
static void stream_read_req_msn_skipped(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *e = &sf->end[1];

	KUNIT_ASSERT_GE(test, e->stream->ird_neg, 2);
	qf_fill(sf->buf[1], 64, 1);
	memset(sf->buf[0], 0, 64);
	inject_read_req(sf, 2);
	KUNIT_EXPECT_TRUE(test, qf_wait_error(e->qp));
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_eq(e->stream->term,
						   DDP_ERR_UT_MSN_NO_BUF));
	KUNIT_EXPECT_NULL(test, memchr_inv(sf->buf[0], 0, 64));
}

/*
 * A Read Response the LLP fails to send (the connection is going) ends
 * the stream as a local error with no Terminate, as an SQE's failure
 * does, not as an access violation charged to the peer.
 */
static void stream_read_resp_llp_fails(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *e = &sf->end[1];

	e->fail_read_resp = -EPIPE;
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_RDMA_READ, 64,
					sf->pd->unsafe_global_rkey), 0);
	KUNIT_EXPECT_TRUE(test, qf_wait_error(e->qp));
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_eq(e->stream->term,
						   RDMAP_ERR_LOCAL_CATASTROPHIC));
	KUNIT_EXPECT_EQ(test, 0, e->nterm);
}

/* How end 1 spoils the Read Response it sends (one segment). */
struct resp_bad_case {
	const char *name;
	u32 stag_add;
	u64 to_add;
	int len_add;		/* payload octets added, or cut if less */
	bool bad_stag;		/* Terminate: Invalid STag, else Base/Bounds */
	enum ib_wc_status status;
};

static const struct resp_bad_case resp_bad_cases[] = {
	{ "another STag", 0x100, 0, 0, true, IB_WC_LOC_PROT_ERR },
	{ "another TO", 0, 8, 0, false, IB_WC_LOC_PROT_ERR },
	{ "longer than the Read", 0, 0, 16, false, IB_WC_LOC_LEN_ERR },
	{ "shorter than the Read", 0, 0, -16, false, IB_WC_LOC_LEN_ERR },
};

static void resp_bad_desc(const struct resp_bad_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(resp_bad, resp_bad_cases, resp_bad_desc);

static unsigned int resp_spoil(struct pipe_end *e, u8 *ulpdu, u32 *len)
{
	const struct resp_bad_case *c = e->mutate_priv;
	struct ddp_tagged_hdr *h = (void *)ulpdu;

	if (ddp_ctrl_tagged(h->ctrl) &&
	    rdmap_ctrl_opcode(h->rsvdulp) == RDMAP_OP_READ_RESP) {
		h->stag = cpu_to_be32(be32_to_cpu(h->stag) + c->stag_add);
		h->to = cpu_to_be64(be64_to_cpu(h->to) + c->to_add);
		*len += c->len_add;
	}
	return 1;
}

/*
 * A Read Response that fails its checks fails the Read it answers: the
 * Read completes with that error, as siw's (a protection error for the
 * wrong place, a length error for more or less than it asked), not
 * flushed like the Read posted after it; the responder hears why.
 */
static void stream_read_resp_bad(struct kunit *test)
{
	const struct resp_bad_case *c = test->param_value;
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *e = &sf->end[1];
	struct sw_ddp_term_err err = c->bad_stag ? DDP_ERR_T_INVALID_STAG :
						   DDP_ERR_T_BASE_BOUNDS;
	struct ib_rdma_wr wr[2] = {};
	struct ib_sge sge[2];
	struct ib_wc wc;

	e->ulpdu = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->ulpdu);
	e->mutate_priv = (void *)c;
	e->mutate = resp_spoil;
	qf_fill(sf->buf[1], SP_BUF_LEN, 3);
	reads_chain(sf, wr, sge, 2, 64);
	KUNIT_ASSERT_EQ(test, ib_post_send(sf->end[0].qp, &wr[0].wr, NULL), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.wr_id, 0ULL);
	KUNIT_EXPECT_EQ(test, wc.status, c->status);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_TRUE(test, qf_wait_error(sf->end[1].qp));
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(err),
			sw_ddp_term_err_pack(sf->end[0].stream->term));
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(err),
			sw_ddp_term_err_pack(term_received(e)));
}

/*
 * The consumer deregisters a Read's Data Sink while the Read Response is
 * on its way: the response places nothing, and the Read completes with
 * a protection error, as siw's (RFC 5041 §7.1: Invalid STag to the peer).
 */
static void stream_read_sink_gone(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct ib_mr *mr = fast_reg_map(test, sf, 0, 256);
	struct pipe_end *e = &sf->end[1];
	struct ib_rdma_wr rd;
	struct ib_sge sge;
	struct ib_wc wc;
	int i;

	KUNIT_ASSERT_EQ(test, reg_mr(sf, mr, IB_ACCESS_LOCAL_WRITE),
			IB_WC_SUCCESS);
	memset(sf->buf[0], 0, 256);
	qf_fill(sf->buf[1], 256, 12);
	e->cut = 1;		/* the response waits on the wire */
	sge = (struct ib_sge){ .addr = mr->iova, .length = 256,
			       .lkey = mr->lkey };
	rd = (struct ib_rdma_wr){
		.wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_RDMA_READ,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = (uintptr_t)sf->buf[1],
		.rkey = sf->pd->unsafe_global_rkey,
	};
	KUNIT_ASSERT_EQ(test, ib_post_send(sf->end[0].qp, &rd.wr, NULL), 0);
	for (i = 0; i < 100 && !READ_ONCE(e->kept); i++)
		usleep_range(10000, 20000);
	KUNIT_ASSERT_GT(test, READ_ONCE(e->kept), 0U);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	sf->mr[0] = NULL;
	sp_deliver_kept(e);
	e->cut = 0;

	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_PROT_ERR);
	KUNIT_EXPECT_NULL(test, memchr_inv(sf->buf[0], 0, 256));
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_eq(sf->end[0].stream->term,
						   DDP_ERR_T_INVALID_STAG));
}

/*
 * A stream that failed on its transmit side (recorded here as the engine
 * records it, the engine held so that neither its Terminate nor the QP's
 * ERROR has followed yet) receives nothing more: a Write is not placed,
 * a Send takes no receive, which is flushed with the QP.  RFC 5040: the
 * Terminate is the stream's last message; siw too receives only in RTS.
 */
static void stream_failed_receives_nothing(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct sw_ddp_stream *s = sf->end[1].stream;
	struct ddp_untagged_hdr sh;
	struct ddp_tagged_hdr wh;
	u8 *data = sf->buf[0];
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, 64), 0);
	memset(sf->buf[1], 0, SP_BUF_LEN);
	qf_fill(data, 64, 8);
	hold_engine(test, s);
	KUNIT_ASSERT_TRUE(test, sw_ddp_stream_fail(s,
						   RDMAP_ERR_LOCAL_CATASTROPHIC,
						   true));
	rdmap_tagged_init(&wh, RDMAP_OP_WRITE, true,
			  sf->pd->unsafe_global_rkey,
			  (uintptr_t)sf->buf[1] + 128);
	inject(&sf->end[0], &wh, sizeof(wh), data, 64);
	rdmap_untagged_init(&sh, RDMAP_OP_SEND, true, 0, 1, 0);
	inject(&sf->end[0], &sh, sizeof(sh), data, 64);
	KUNIT_EXPECT_EQ(test, READ_ONCE(to_qp(sf->end[1].qp)->state),
			SW_DDP_QPS_RTS);
	rdmap_tx_unlock(s);

	KUNIT_EXPECT_TRUE(test, qf_wait_error(sf->end[1].qp));
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[1], &wc));
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_NULL(test, memchr_inv(sf->buf[1], 0, SP_BUF_LEN));
	KUNIT_EXPECT_EQ(test,
			sw_ddp_term_err_pack(RDMAP_ERR_LOCAL_CATASTROPHIC),
			sw_ddp_term_err_pack(term_received(&sf->end[0])));
}

/*
 * RFC 5040 "Terminate Header": a Read Request refused for its Data Source
 * is quoted whole, its DDP header (D, with its length, M) and its own
 * header after it (R).
 */
static void stream_read_refused_quoted(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	u32 rkey = sf->pd->unsafe_global_rkey + 0x1000;
	struct rdmap_term_info ti;
	struct rdmap_read_req rr;

	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_RDMA_READ, 100, rkey),
			0);
	KUNIT_ASSERT_TRUE(test, qf_wait_error(sf->end[0].qp));
	KUNIT_ASSERT_EQ(test, term_received_info(&sf->end[0], &ti), 0);
	KUNIT_EXPECT_EQ(test, ti.err.layer, SW_DDP_LAYER_RDMAP);
	KUNIT_EXPECT_EQ(test, ti.err.etype, RDMAP_ETYPE_REMOTE_PROT);
	KUNIT_EXPECT_EQ(test, ti.hdrct, RDMAP_TERM_HDRCT_M |
			RDMAP_TERM_HDRCT_D | RDMAP_TERM_HDRCT_R);
	KUNIT_EXPECT_EQ(test, ti.seg_len,
			DDP_UNTAGGED_HDR_LEN + RDMAP_READ_REQ_LEN);
	KUNIT_ASSERT_EQ(test, ti.rdmap_len, RDMAP_READ_REQ_LEN);
	rdmap_read_req_get((const void *)ti.rdmap_hdr, &rr);
	KUNIT_EXPECT_EQ(test, rr.src_stag, rkey);
	KUNIT_EXPECT_EQ(test, rr.src_to, (uintptr_t)sf->buf[1]);
	KUNIT_EXPECT_EQ(test, rr.size, 100);
}

/*
 * A QP its consumer moved to ERROR is not reset while its stream is still
 * closing: the old connection could deliver into WQEs posted for a new
 * one.  The pipe's close() leaves the stream attached until the end.
 */
static void stream_reset_while_closing(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct ib_qp *qp = sf->end[0].qp;
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;

	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	KUNIT_EXPECT_EQ(test, qf_modify_state(qp, IB_QPS_RESET), -EBUSY);
	KUNIT_EXPECT_EQ(test, qf_modify_state(qp, IB_QPS_INIT), -EBUSY);
	KUNIT_ASSERT_EQ(test, ib_query_qp(qp, &attr, IB_QP_STATE, &init), 0);
	KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_ERR);
}

/*
 * Raw FPDU octets into end 1's MPA receive, and MPA's error, if any, to
 * the stream as the LLP hands it on (llp.h).
 */
static struct sw_ddp_term_err feed_raw(struct stream_fx *sf, const u8 *wire,
				       u32 len)
{
	return sp_feed(&sf->end[0], wire, len, true);
}

/*
 * End 1 failed quoting no header, and end 0 got that Terminate (in @ti)
 * with none either.
 */
static void expect_quoted_none(struct kunit *test, struct stream_fx *sf,
			       struct rdmap_term_info *ti)
{
	KUNIT_EXPECT_EQ(test, sf->end[1].stream->term_hdr_len, 0);
	KUNIT_ASSERT_TRUE(test, qf_wait_error(sf->end[0].qp));
	KUNIT_ASSERT_EQ(test, term_received_info(&sf->end[0], ti), 0);
	KUNIT_EXPECT_EQ(test, ti->hdrct, 0);
}

/*
 * An MPA framing error before a segment's DDP header (ULPDU_Length 1,
 * shorter than DDP's control octets, and its CRC bad) quotes no header
 * in its Terminate: not the segment before it, whose header DDP still
 * had.
 */
static void stream_llp_error_quotes_none(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	u8 bad[12] = { 0x00, 0x01, 0x41, 0x41, 0x41, 0x41 };
	struct sw_ddp_term_err err;
	struct rdmap_term_info ti;
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_RDMA_WRITE, 100,
					sf->pd->unsafe_global_rkey), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_ASSERT_EQ(test, wc.status, IB_WC_SUCCESS);
	err = feed_raw(sf, bad, sizeof(bad));
	KUNIT_ASSERT_FALSE(test, sw_ddp_term_err_ok(err));
	KUNIT_EXPECT_TRUE(test, qf_wait_error(sf->end[1].qp));
	KUNIT_EXPECT_FALSE(test, sw_ddp_term_err_ok(sf->end[1].stream->term));
	expect_quoted_none(test, sf, &ti);
}

/*
 * A segment shorter than its DDP header (RFC 5041 §4) is judged as DDP
 * judges any, its version first (§7.2: 0x2/0x06), over MPA as over SCTP;
 * the Terminate quotes none of the header it does not have.
 */
static void stream_short_segment_version(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	static const u8 seg[4] = { 0x42, 0x43 };	/* untagged Send, DV 2 */
	struct mpa_fpdu_cfg fc = { .crc = true };	/* its CRC good */
	struct rdmap_term_info ti;
	u8 fpdu[12];

	KUNIT_ASSERT_EQ(test, mpa_fpdu_build(fpdu, sizeof(fpdu), seg,
					     sizeof(seg), &fc), 12);
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_UT_VERSION),
			sw_ddp_term_err_pack(feed_raw(sf, fpdu, sizeof(fpdu))));
	KUNIT_EXPECT_TRUE(test, qf_wait_error(sf->end[1].qp));
	expect_quoted_none(test, sf, &ti);
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_UT_VERSION),
			sw_ddp_term_err_pack(ti.err));
}

/*
 * A segment of another DDP version (RFC 5041 §4.1) is refused (§7.2:
 * 0x2/0x06), and its header, whose layout may not be ours, not quoted.
 */
static void stream_bad_version_quotes_none(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *peer = &sf->end[0], *e = &sf->end[1];
	struct ddp_untagged_hdr h;
	struct rdmap_term_info ti;

	rdmap_untagged_init(&h, RDMAP_OP_SEND, true, 0, 1, 0);
	h.ctrl = (h.ctrl & ~DDP_CTRL_DV_MASK) | 2;
	inject(peer, &h, sizeof(h), sf->buf[0], 0);
	KUNIT_EXPECT_TRUE(test, qf_wait_error(e->qp));
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_UT_VERSION),
			sw_ddp_term_err_pack(e->stream->term));
	expect_quoted_none(test, sf, &ti);
}

/* A Write of 64 octets to @stag at @to, from end 0 to end 1 */
static void inject_write(struct stream_fx *sf, u32 stag, u64 to)
{
	struct ddp_tagged_hdr wh;
	u8 *data = sf->buf[0] + 64;

	qf_fill(data, 64, 3);
	rdmap_tagged_init(&wh, RDMAP_OP_WRITE, true, stag, to);
	inject(&sf->end[0], &wh, sizeof(wh), data, 64);
}

/*
 * RFC 5041 §7.1 checks a tagged segment's STag first and its TO's wrap
 * last: a Write to an STag the sink does not have, at a TO that wraps, is
 * an invalid STag (0x1/0x00).
 */
static void stream_write_bad_stag_wraps(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *e = &sf->end[1];

	inject_write(sf, sf->pd->unsafe_global_rkey + 0x1000, U64_MAX - 8);
	KUNIT_EXPECT_TRUE(test, qf_wait_error(e->qp));
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_T_INVALID_STAG),
			sw_ddp_term_err_pack(e->stream->term));
}

/* The same Write to an STag the sink has: TO wrap (0x1/0x03). */
static void stream_write_to_wraps(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *e = &sf->end[1];

	inject_write(sf, sf->pd->unsafe_global_rkey, U64_MAX - 8);
	KUNIT_EXPECT_TRUE(test, qf_wait_error(e->qp));
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_T_TO_WRAP),
			sw_ddp_term_err_pack(e->stream->term));
}

/* What the responder made of the peer's Read Requests past its IRD */
struct ird_probe {
	struct stream_fx *sf;
	bool at_last;		/* after the response's last segment */
	bool done;
	u32 queued;		/* Read Requests queued after them */
	struct sw_ddp_term_err term;
};

static struct ird_probe the_probe;

/*
 * As @e's Read Response goes (after its first segment, or its last), the
 * peer sends IRD Read Requests more, the next MSNs, in one go.
 */
static void ird_probe_send(struct pipe_end *e, bool last)
{
	struct ird_probe *p = &the_probe;
	u32 i;

	if (p->done || last != p->at_last)
		return;
	p->done = true;
	for (i = 0; i < e->stream->ird_neg; i++)
		inject_read_req(p->sf, 2 + i);
	spin_lock_bh(&e->stream->lock);
	p->queued = e->stream->ird_put - e->stream->ird_get;
	p->term = e->stream->term;
	spin_unlock_bh(&e->stream->lock);
}

/*
 * The peer sends IRD Read Requests more as the response to its first goes,
 * after the segment @at_last says, and a Read of three segments starts it.
 */
static void ird_probe_run(struct kunit *test, bool at_last)
{
	struct stream_fx *sf = sp_fx(test);
	struct pipe_end *e = &sf->end[1];
	struct ird_probe *p = &the_probe;

	KUNIT_ASSERT_GE(test, e->stream->ird_neg, 1);
	*p = (struct ird_probe){ .sf = sf, .at_last = at_last };
	e->read_resp_sent = ird_probe_send;
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_RDMA_READ, 3 * SP_SEG_MAX,
					sf->pd->unsafe_global_rkey), 0);
	/* refused, or answered to a peer that had not asked */
	KUNIT_ASSERT_TRUE(test, qf_wait_error(e->qp));
	KUNIT_ASSERT_TRUE(test, p->done);
	KUNIT_EXPECT_EQ(test, p->queued, e->stream->ird_neg);
}

/*
 * The peer may have IRD Read Requests outstanding, no more: one is
 * outstanding until the last segment of its response has reached the
 * peer.  IRD more, sent after the response's first segment, are one too
 * many: the last is refused (RFC 5041 §7.1, no buffer on queue 1).
 */
static void stream_ird_one_too_many(struct kunit *test)
{
	ird_probe_run(test, false);
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_UT_MSN_NO_BUF),
			sw_ddp_term_err_pack(the_probe.term));
}

/* Sent once the response's last segment has reached the peer, they fit. */
static void stream_ird_free_at_last(struct kunit *test)
{
	ird_probe_run(test, true);
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_ok(the_probe.term));
}

static struct kunit_case stream_test_cases[] = {
	KUNIT_CASE(stream_write),
	KUNIT_CASE(stream_write_before_bad_wr),
	KUNIT_CASE(stream_read),
	KUNIT_CASE(stream_read_short_now),
	KUNIT_CASE(stream_read_short_refused),
	KUNIT_CASE(stream_read_inv),
	KUNIT_CASE(stream_read_ord),
	KUNIT_CASE(stream_send),
	KUNIT_CASE(stream_send_zero),
	KUNIT_CASE(stream_send_empty_tail),
	KUNIT_CASE(stream_send_empty_tail_past_end),
	KUNIT_CASE(stream_send_gap),
	KUNIT_CASE(stream_send_late_start),
	KUNIT_CASE(stream_send_too_long),
	KUNIT_CASE(stream_rqe_malformed),
	KUNIT_CASE(stream_sqe_malformed),
	KUNIT_CASE(stream_recv_cq_overflow),
	KUNIT_CASE(stream_send_cq_overflow),
	KUNIT_CASE(stream_flush_cq_overflow),
	KUNIT_CASE(stream_fail_then_close),
	KUNIT_CASE(stream_teardown_cq_overflow),
	KUNIT_CASE(stream_teardown_cut_cq_overflow),
	KUNIT_CASE(stream_close_cuts_send),
	KUNIT_CASE(stream_closing_starts_nothing),
	KUNIT_CASE(stream_post_while_llp_closes),
	KUNIT_CASE(stream_send_source_gone),
	KUNIT_CASE(stream_flushed_cq_overflow),
	KUNIT_CASE(stream_write_bad_stag),
	KUNIT_CASE(stream_send_no_buffer),
	KUNIT_CASE(stream_error_stops_placement),
	KUNIT_CASE(stream_error_mid_segment),
	KUNIT_CASE(stream_terminate_ends_rx),
	KUNIT_CASE(stream_read_zero_any_stag),
	KUNIT_CASE(stream_ird_zero),
	KUNIT_CASE(stream_ord_zero),
	KUNIT_CASE(stream_read_req_msn_skipped),
	KUNIT_CASE(stream_ird_one_too_many),
	KUNIT_CASE(stream_ird_free_at_last),
	KUNIT_CASE(stream_read_resp_llp_fails),
	KUNIT_CASE_PARAM(stream_read_resp_bad, resp_bad_gen_params),
	KUNIT_CASE(stream_read_sink_gone),
	KUNIT_CASE(stream_failed_receives_nothing),
	KUNIT_CASE(stream_read_refused_quoted),
	KUNIT_CASE(stream_llp_error_quotes_none),
	KUNIT_CASE(stream_short_segment_version),
	KUNIT_CASE(stream_bad_version_quotes_none),
	KUNIT_CASE(stream_write_bad_stag_wraps),
	KUNIT_CASE(stream_write_to_wraps),
	KUNIT_CASE(stream_reset_while_closing),
	KUNIT_CASE_PARAM(stream_rtr, rtr_good_gen_params),
	KUNIT_CASE_PARAM(stream_rtr_mismatch, rtr_bad_gen_params),
	KUNIT_CASE_PARAM(stream_rtr_terminate, rtr_term_gen_params),
	{}
};

static struct kunit_suite stream_test_suite = {
	.name = "sw_ddp_stream",
	.init = sp_init,
	.exit = sp_exit,
	.test_cases = stream_test_cases,
};

/* Both ends' Read counters two short of their wrap, as after 2^32 - 2. */
static void reads_near_wrap(struct sw_ddp_stream *s)
{
	spin_lock_bh(&s->lock);
	s->ord_put = 0xfffffffe;
	s->ord_get = 0xfffffffe;
	s->ird_put = 0xfffffffe;
	s->ird_get = 0xfffffffe;
	spin_unlock_bh(&s->lock);
}

/*
 * Reads across the wrap of the ORD and IRD counters, with three of each:
 * three Reads outstanding at 0xfffffffe, 0xffffffff and 0 keep three
 * slots, and each response lands where its own Read asked.
 */
static void stream_reads_wrap(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct ib_rdma_wr wr[8] = {};
	struct ib_sge sge[8];
	const u32 piece = 512;
	struct ib_wc wc;
	int i;

	reads_near_wrap(sf->end[0].stream);
	reads_near_wrap(sf->end[1].stream);
	qf_fill(sf->buf[1], SP_BUF_LEN, 6);
	memset(sf->buf[0], 0, SP_BUF_LEN);
	reads_chain(sf, wr, sge, 8, piece);
	KUNIT_ASSERT_EQ(test, ib_post_send(sf->end[0].qp, &wr[0].wr, NULL), 0);
	for (i = 0; i < 8; i++) {
		KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.wr_id, (u64)i);
	}
	KUNIT_EXPECT_MEMEQ(test, sf->buf[0], sf->buf[1], 8 * piece);
	KUNIT_EXPECT_TRUE(test, ord_idle(sf->end[0].stream));
	KUNIT_EXPECT_EQ(test, sf->end[0].stream->ord_get, 6U);
}

static int sp_init_reads3(struct kunit *test)
{
	return sp_init_reads(test, 3);
}

static struct kunit_case stream_reads3_cases[] = {
	KUNIT_CASE(stream_reads_wrap),
	{}
};

static struct kunit_suite stream_reads3_suite = {
	.name = "sw_ddp_stream_reads3",
	.init = sp_init_reads3,
	.exit = sp_exit,
	.test_cases = stream_reads3_cases,
};

/* One receive of 64 octets on end 1's SRQ, its SGE's lkey @lkey. */
static void post_srq_recv(struct kunit *test, struct stream_fx *sf, u32 lkey)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)sf->buf[1], .length = 64, .lkey = lkey,
	};
	struct ib_recv_wr wr = { .wr_id = 8, .sg_list = &sge, .num_sge = 1 };

	KUNIT_ASSERT_EQ(test, ib_post_srq_recv(sf->srq, &wr, NULL), 0);
}

/*
 * An SRQ may have a PD other than its QPs'; the receives it holds are
 * its own, checked against its PD (as siw checks them).  A Send lands in
 * one whose SGE is of the SRQ's PD...
 */
static void stream_srq_own_pd(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct ib_wc wc;

	qf_fill(sf->buf[0], 10, 2);
	post_srq_recv(test, sf, sf->srq_pd->local_dma_lkey);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, 10, 0), 0);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[1], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 8ULL);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 10);
	KUNIT_EXPECT_MEMEQ(test, sf->buf[1], sf->buf[0], 10);
}

/* ...and not in one whose SGE is of the QP's PD, not the SRQ's. */
static void stream_srq_qp_pd(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct ib_wc wc;

	memset(sf->buf[1], 0, 64);
	post_srq_recv(test, sf, sf->pd->local_dma_lkey);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, 10, 0), 0);
	KUNIT_EXPECT_TRUE(test, qf_wait_error(sf->end[1].qp));
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(DDP_ERR_LOCAL_CATASTROPHIC),
			sw_ddp_term_err_pack(sf->end[1].stream->term));
	KUNIT_EXPECT_NULL(test, memchr_inv(sf->buf[1], 0, 64));
	/* as a send queue's SGE would */
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[1], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_PROT_ERR);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 8ULL);
	/* once: the stream's teardown, begun when dead, flushes nothing */
	KUNIT_EXPECT_TRUE(test, wait_dead(sf->end[1].stream));
	msleep(200);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(sf->cq[1], 1, &wc), 0);
}

/* What a consumer's ib_modify_qp() on another CPU may do meanwhile. */
static void srq_event_error(struct stream_fx *sf)
{
	qf_modify_state(sf->end[1].qp, IB_QPS_ERR);
}

/*
 * The consumer moves the QP to ERROR just as a Send's first segment takes
 * its receive (here from the SRQ's limit event, which the taking raises):
 * the receive is flushed, and the peer is not sent a "no buffer"
 * Terminate for an abort of ours.
 */
static void stream_srq_error_taking(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct ib_srq_attr attr = { .srq_limit = 1 };
	struct pipe_end *e = &sf->end[1];
	struct ib_wc wc;

	post_srq_recv(test, sf, sf->srq_pd->local_dma_lkey);
	KUNIT_ASSERT_EQ(test, ib_modify_srq(sf->srq, &attr, IB_SRQ_LIMIT), 0);
	sf->srq_event = srq_event_error;
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, 10, 0), 0);
	KUNIT_EXPECT_TRUE(test, wait_dead(e->stream));
	KUNIT_EXPECT_EQ(test, 0, e->nterm);
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_eq(e->stream->term,
						   DDP_ERR_LOCAL_CATASTROPHIC));
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[1], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 8ULL);
}

static struct kunit_case stream_srq_cases[] = {
	KUNIT_CASE(stream_srq_own_pd),
	KUNIT_CASE(stream_srq_qp_pd),
	KUNIT_CASE(stream_srq_error_taking),
	{}
};

static struct kunit_suite stream_srq_suite = {
	.name = "sw_ddp_stream_srq",
	.init = sp_init_srq,
	.exit = sp_exit,
	.test_cases = stream_srq_cases,
};

/*
 * sw_ddp_stream_crc: a segment spoilt on the wire, past TCP's checksum,
 * in its DDP header.  With CRCs the FPDU's CRC decides first (RFC 5044
 * §8): the stream ends with an MPA CRC error, whatever the header then
 * seemed to say, the receive is flushed rather than completed for it,
 * and nothing lands.  Without, the header's checks are all there is.
 * Each FPDU goes in one piece, mapped (framed where it lies) or to be
 * read (its CRC summed ahead), or in two to be read, cut inside its
 * payload (staged until whole, then framed).
 */
struct crc_case {
	const char *name;
	bool crc;
	u32 split;		/* 0: whole */
	bool unmapped;
};

static const struct crc_case crc_cases[] = {
	{ "CRC, whole", true, 0, false },
	{ "CRC, whole, not mapped", true, 0, true },
	{ "CRC, in pieces", true, 26, true },
	{ "no CRC, whole", false, 0, false },
	{ "no CRC, in pieces", false, 26, true },
};

static void crc_case_desc(const struct crc_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(crc, crc_cases, crc_case_desc);

static int sp_init_crc_case(struct kunit *test)
{
	const struct crc_case *c = test->param_value;

	return sp_init_crc(test, c->crc);
}

/* The first FPDU end 0 sends has @bits of its octet @at flipped. */
struct wire_flip {
	const struct crc_case *c;
	u32 at;
	u8 bits;
	int seen;
};

static unsigned int wire_flip_first(struct pipe_end *e, struct sp_wire *w)
{
	struct wire_flip *f = e->mutate_priv;

	if (f->seen++ || f->at >= w->len)
		return 1;
	w->p[f->at] ^= f->bits;
	w->split = f->c->split;
	w->unmapped = f->c->unmapped;
	return 1;
}

static void wire_flip_arm(struct kunit *test, struct stream_fx *sf, u32 at,
			  u8 bits)
{
	struct wire_flip *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->c = test->param_value;
	f->at = MPA_ULPDU_LEN_SIZE + at;
	f->bits = bits;
	sf->end[0].mutate_priv = f;
	sf->end[0].wire_mutate = wire_flip_first;
}

/* End 1 failed with @want, and its Terminate told end 0 so. */
static void expect_failed_with(struct kunit *test, struct stream_fx *sf,
			       struct sw_ddp_term_err want)
{
	KUNIT_EXPECT_TRUE(test, qf_wait_error(sf->end[1].qp));
	KUNIT_EXPECT_TRUE(test, qf_wait_error(sf->end[0].qp));
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(want),
			sw_ddp_term_err_pack(sf->end[1].stream->term));
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(want),
			sw_ddp_term_err_pack(term_received(&sf->end[0])));
}

/* A Send whose MO (RFC 5041 §4.3) was spoilt: past the receive's end. */
static void stream_crc_send_mo(struct kunit *test)
{
	const struct crc_case *c = test->param_value;
	struct stream_fx *sf = sp_fx(test);
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, post_recv(sf, 1, 64), 0);
	memset(sf->buf[1], 0, 64);
	wire_flip_arm(test, sf, offsetof(struct ddp_untagged_hdr, mo), 0x80);
	qf_fill(sf->buf[0], 32, 3);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_SEND, 32, 0), 0);
	if (!c->crc) {
		expect_recv_failed(test, sf, DDP_ERR_UT_INVALID_MO,
				   IB_WC_LOC_LEN_ERR);
		return;
	}
	expect_failed_with(test, sf, MPA_ERR_CRC);
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[1], &wc));
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(sf->buf[1], 0, 64));
}

/*
 * Post an RDMA Write of 64 octets into a fast-register MR (sf->mr[0])
 * over the first 256 octets of end 1's buffer, zeroed, whose header has
 * @bits of its octet @at flipped on the wire.
 */
static void crc_write_post(struct kunit *test, struct stream_fx *sf, u32 at,
			   u8 bits)
{
	struct ib_mr *mr = fast_reg_map(test, sf, 1, 256);

	KUNIT_ASSERT_EQ(test, reg_mr(sf, mr, IB_ACCESS_LOCAL_WRITE |
					     IB_ACCESS_REMOTE_WRITE),
			IB_WC_SUCCESS);

	memset(sf->buf[1], 0, 256);
	wire_flip_arm(test, sf, at, bits);
	qf_fill(sf->buf[0], 64, 4);
	KUNIT_ASSERT_EQ(test, post_rdma(sf, 0, IB_WR_RDMA_WRITE, 64, mr->rkey),
			0);
}

/* crc_write_post()'s Write: nothing of it lands, whichever way it ends. */
static void crc_write_spoilt(struct kunit *test, u32 at, u8 bits,
			     struct sw_ddp_term_err want)
{
	const struct crc_case *c = test->param_value;
	struct stream_fx *sf = sp_fx(test);

	crc_write_post(test, sf, at, bits);
	expect_failed_with(test, sf, c->crc ? MPA_ERR_CRC : want);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(sf->buf[1], 0, 256));
}

/* Its STag's index spoilt: none such (begin() refuses it). */
static void stream_crc_write_stag(struct kunit *test)
{
	crc_write_spoilt(test, offsetof(struct ddp_tagged_hdr, stag), 0x80,
			 DDP_ERR_T_INVALID_STAG);
}

/* Its TO spoilt by 512: outside the MR (payload() refuses it). */
static void stream_crc_write_to(struct kunit *test)
{
	crc_write_spoilt(test, offsetof(struct ddp_tagged_hdr, to) + 6, 0x02,
			 DDP_ERR_T_BASE_BOUNDS);
}

/*
 * Its TO spoilt to 64 octets further on, still inside the MR: DDP's
 * checks pass, and only the CRC can tell.  With CRCs, an FPDU is checked
 * before any of it is placed: one that arrives whole, mapped or not,
 * where it lies; one that comes in two pieces, from an input that can
 * neither look past itself nor wait for the rest (the pipe's), from the
 * stage it is copied to.  Without CRCs it lands where its header says.
 */
static void stream_crc_write_to_inside(struct kunit *test)
{
	const struct crc_case *c = test->param_value;
	struct stream_fx *sf = sp_fx(test);
	struct ib_wc wc;
	int i;

	/* so that the flip adds 64 */
	KUNIT_ASSERT_EQ(test, 0UL, (uintptr_t)sf->buf[1] & 0x40);
	crc_write_post(test, sf, offsetof(struct ddp_tagged_hdr, to) + 7, 0x40);
	if (c->crc) {
		expect_failed_with(test, sf, MPA_ERR_CRC);
		KUNIT_EXPECT_TRUE(test, !memchr_inv(sf->buf[1], 0, 256));
		return;
	}
	KUNIT_ASSERT_TRUE(test, qf_poll_one(sf->cq[0], &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	for (i = 0; i < 100 && memcmp(sf->buf[1] + 64, sf->buf[0], 64); i++)
		msleep(20);
	KUNIT_EXPECT_MEMEQ(test, sf->buf[1] + 64, sf->buf[0], 64);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(sf->buf[1], 0, 64));
}

static struct kunit_case stream_crc_cases[] = {
	KUNIT_CASE_PARAM(stream_crc_send_mo, crc_gen_params),
	KUNIT_CASE_PARAM(stream_crc_write_stag, crc_gen_params),
	KUNIT_CASE_PARAM(stream_crc_write_to, crc_gen_params),
	KUNIT_CASE_PARAM(stream_crc_write_to_inside, crc_gen_params),
	{}
};

static struct kunit_suite stream_crc_suite = {
	.name = "sw_ddp_stream_crc",
	.init = sp_init_crc_case,
	.exit = sp_exit,
	.test_cases = stream_crc_cases,
};

kunit_test_suites(&stream_test_suite, &stream_reads3_suite,
		  &stream_srq_suite, &stream_crc_suite);
