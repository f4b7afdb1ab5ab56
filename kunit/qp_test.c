// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: sw_ddp queue pairs and SRQs through ib_core on a real device:
 * creation limits, the iWARP verbs state machine, posting, flushing into
 * the CQ, the engine's consume/complete helpers, SRQs and the limit event.
 */
#include <kunit/test.h>
#include <linux/pid.h>

#include "qp.h"
#include "queue_fixture.h"
#include "srq.h"

/* Four batches of a flush */
#define FLUSH_RING	(4 * SW_DDP_FLUSH_BATCH)

static struct sw_ddp_dev *fx_sdev(struct kunit *test)
{
	return to_sdev(((struct qfix *)test->priv)->ibdev);
}

/* Expect creation to fail with @err; a QP made anyway is cleaned up. */
static void expect_create_fails(struct kunit *test,
				struct ib_qp_init_attr *attr, long err)
{
	struct qfix *fx = test->priv;
	struct ib_qp *qp = ib_create_qp(fx->pd, attr);

	if (!IS_ERR(qp)) {
		ib_destroy_qp(qp);
		KUNIT_FAIL(test, "ib_create_qp succeeded");
		return;
	}
	KUNIT_EXPECT_EQ(test, PTR_ERR(qp), err);
}

static void expect_wc(struct kunit *test, const struct ib_wc *wc, u64 wr_id,
		      enum ib_wc_opcode opcode, enum ib_wc_status status)
{
	KUNIT_EXPECT_EQ(test, wc->wr_id, wr_id);
	KUNIT_EXPECT_EQ(test, wc->opcode, opcode);
	KUNIT_EXPECT_EQ(test, wc->status, status);
}

static void create_reports_caps(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 16);
	struct ib_qp_init_attr attr, init;
	struct ib_qp_attr qattr;
	struct ib_qp *qp;

	qf_init_attr(test, &attr, cq, 5, 3);
	attr.cap.max_inline_data = 10;
	qp = qf_qp_attr(test, &attr);

	KUNIT_EXPECT_EQ(test, attr.cap.max_send_wr, 8);
	KUNIT_EXPECT_EQ(test, attr.cap.max_recv_wr, 4);
	KUNIT_EXPECT_EQ(test, attr.cap.max_send_sge, SW_DDP_MAX_SGE);
	KUNIT_EXPECT_EQ(test, attr.cap.max_inline_data, SW_DDP_MAX_INLINE);
	KUNIT_EXPECT_NE(test, qp->qp_num, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx_sdev(test)->num_qp), 1);

	KUNIT_ASSERT_EQ(test, ib_query_qp(qp, &qattr, IB_QP_STATE, &init), 0);
	KUNIT_EXPECT_EQ(test, qattr.qp_state, IB_QPS_RESET);
	KUNIT_EXPECT_EQ(test, qattr.cap.max_send_wr, 8);
	KUNIT_EXPECT_EQ(test, init.qp_type, IB_QPT_RC);
	KUNIT_EXPECT_PTR_EQ(test, init.send_cq, cq);
}

static void create_refuses_bad_attrs(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 16);
	struct ib_qp_init_attr attr;

	qf_init_attr(test, &attr, cq, 4, 4);
	attr.qp_type = IB_QPT_UD;
	expect_create_fails(test, &attr, -EOPNOTSUPP);

	qf_init_attr(test, &attr, cq, 0, 4);
	expect_create_fails(test, &attr, -EINVAL);
	qf_init_attr(test, &attr, cq, SW_DDP_MAX_QP_WR + 1, 4);
	expect_create_fails(test, &attr, -EINVAL);
	qf_init_attr(test, &attr, cq, 4, SW_DDP_MAX_QP_WR + 1);
	expect_create_fails(test, &attr, -EINVAL);

	qf_init_attr(test, &attr, cq, 4, 4);
	attr.cap.max_send_sge = SW_DDP_MAX_SGE + 1;
	expect_create_fails(test, &attr, -EINVAL);
	qf_init_attr(test, &attr, cq, 4, 4);
	attr.cap.max_recv_sge = SW_DDP_MAX_SGE + 1;
	expect_create_fails(test, &attr, -EINVAL);
	qf_init_attr(test, &attr, cq, 4, 4);
	attr.cap.max_inline_data = SW_DDP_MAX_INLINE + 1;
	expect_create_fails(test, &attr, -EINVAL);
	qf_init_attr(test, &attr, cq, 4, 4);
	attr.sq_sig_type = 7;
	expect_create_fails(test, &attr, -EINVAL);
	qf_init_attr(test, &attr, cq, 4, 4);
	attr.recv_cq = NULL;
	expect_create_fails(test, &attr, -EINVAL);

	/* Nothing half-made is left counted. */
	KUNIT_EXPECT_EQ(test, atomic_read(&fx_sdev(test)->num_qp), 0);
	KUNIT_EXPECT_TRUE(test, xa_empty(&fx_sdev(test)->qp_xa));
}

/* RTS needs a connection, which only the connection manager brings. */
static void rts_needs_connection(struct kunit *test)
{
	struct ib_qp *qp = qf_qp(test, qf_cq(test, 4), 4, 4);

	KUNIT_EXPECT_EQ(test, qf_modify_state(qp, IB_QPS_INIT), 0);
	/* RTR is still IDLE for iWARP: rdma_cm moves there before connecting */
	KUNIT_EXPECT_EQ(test, qf_modify_state(qp, IB_QPS_RTR), 0);
	KUNIT_EXPECT_EQ(test, qf_modify_state(qp, IB_QPS_RTS), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, qf_state(test, qp), IB_QPS_RTR);
}

static void modify_refuses_illegal(struct kunit *test)
{
	struct ib_qp *qp = qf_qp(test, qf_cq(test, 4), 4, 4);
	struct ib_qp_attr attr = {};

	KUNIT_EXPECT_EQ(test, qf_modify_state(qp, IB_QPS_SQD), -EINVAL);
	KUNIT_EXPECT_EQ(test, qf_modify_state(qp, IB_QPS_SQE), -EINVAL);
	KUNIT_EXPECT_EQ(test, qf_modify_state(qp, IB_QPS_ERR + 1), -EINVAL);

	/* Straight to the driver: ib_core reads port data before checking. */
	attr.port_num = 2;
	KUNIT_EXPECT_EQ(test, qp->device->ops.modify_qp(qp, &attr, IB_QP_PORT,
							NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_CAP), -EOPNOTSUPP);

	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	KUNIT_EXPECT_EQ(test, qf_modify_state(qp, IB_QPS_RTS), -EINVAL);
	KUNIT_EXPECT_EQ(test, qf_modify_state(qp, IB_QPS_SQD), -EINVAL);

	/* The current state, if given, must be the current state. */
	attr.qp_state = IB_QPS_RESET;
	attr.cur_qp_state = IB_QPS_INIT;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &attr,
					   IB_QP_STATE | IB_QP_CUR_STATE),
			-EINVAL);
	/* ORD and IRD change only in IDLE. */
	attr.max_rd_atomic = 1;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_MAX_QP_RD_ATOMIC),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, qf_state(test, qp), IB_QPS_ERR);
}

static void modify_all_or_nothing(struct kunit *test)
{
	struct ib_qp *qp = qf_qp(test, qf_cq(test, 4), 4, 4);
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_ERR,
		.max_rd_atomic = 4,
		.max_dest_rd_atomic = SW_DDP_MAX_IRD + 1,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE,
	};
	int mask = IB_QP_STATE | IB_QP_MAX_QP_RD_ATOMIC |
		   IB_QP_MAX_DEST_RD_ATOMIC;
	struct ib_qp_init_attr init;
	struct ib_qp_attr out;

	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &attr, mask), -EINVAL);
	KUNIT_ASSERT_EQ(test, ib_query_qp(qp, &out, mask, &init), 0);
	KUNIT_EXPECT_EQ(test, out.qp_state, IB_QPS_RESET);
	KUNIT_EXPECT_EQ(test, out.max_rd_atomic, 0);

	attr.qp_state = IB_QPS_INIT;
	attr.max_dest_rd_atomic = 8;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &attr,
					   mask | IB_QP_ACCESS_FLAGS), 0);
	KUNIT_ASSERT_EQ(test, ib_query_qp(qp, &out, mask, &init), 0);
	KUNIT_EXPECT_EQ(test, out.max_rd_atomic, 4);
	KUNIT_EXPECT_EQ(test, out.max_dest_rd_atomic, 8);
	KUNIT_EXPECT_EQ(test, out.qp_access_flags, IB_ACCESS_REMOTE_WRITE);
}

static void idle_error_idle(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_qp *qp = qf_qp(test, cq, 4, 4);
	struct ib_wc wc[2];

	KUNIT_EXPECT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	KUNIT_EXPECT_EQ(test, qf_state(test, qp), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	KUNIT_EXPECT_EQ(test, qf_modify_state(qp, IB_QPS_RESET), 0);
	KUNIT_EXPECT_EQ(test, qf_state(test, qp), IB_QPS_RESET);

	/* Back in IDLE, receives wait again. */
	KUNIT_EXPECT_EQ(test, qf_post_recv(qp, 1), 0);
	KUNIT_EXPECT_EQ(test, qf_poll(cq, wc, 2), 0);
	KUNIT_EXPECT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	KUNIT_EXPECT_EQ(test, qf_poll(cq, wc, 2), 1);
	KUNIT_EXPECT_EQ(test, qf_modify_state(qp, IB_QPS_INIT), 0);
	KUNIT_EXPECT_EQ(test, qf_state(test, qp), IB_QPS_INIT);
}

/*
 * A failure is its connection's: one whose work runs after the consumer
 * has reset the QP leaves the QP, and the failures after it, alone.
 */
static void fatal_then_reset(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_qp *ibqp = qf_qp(test, cq, 4, 4);
	struct sw_ddp_qp *qp = to_qp(ibqp);
	struct ib_qp_attr attr = {};

	/* It fails; the consumer moves it to ERROR and back first. */
	mutex_lock(&qp->state_mutex);
	sw_ddp_qp_fatal(qp);
	attr.qp_state = IB_QPS_ERR;
	KUNIT_EXPECT_EQ(test, sw_ddp_qp_modify_locked(qp, &attr,
						      IB_QP_STATE), 0);
	attr.qp_state = IB_QPS_RESET;
	KUNIT_EXPECT_EQ(test, sw_ddp_qp_modify_locked(qp, &attr,
						      IB_QP_STATE), 0);
	mutex_unlock(&qp->state_mutex);
	flush_work(&qp->fatal_work);
	KUNIT_EXPECT_EQ(test, qf_state(test, ibqp), IB_QPS_RESET);
	KUNIT_EXPECT_EQ(test, qf_events(test, IB_EVENT_QP_FATAL), 0);

	/* It owes no event for the failure before the reset. */
	KUNIT_ASSERT_EQ(test, qf_modify_state(ibqp, IB_QPS_ERR), 0);
	sw_ddp_qp_fatal(qp);
	flush_work(&qp->fatal_work);
	KUNIT_EXPECT_EQ(test, qf_events(test, IB_EVENT_QP_FATAL), 0);

	/* A failure after the reset is the new connection's. */
	KUNIT_ASSERT_EQ(test, qf_modify_state(ibqp, IB_QPS_RESET), 0);
	sw_ddp_qp_fatal(qp);
	flush_work(&qp->fatal_work);
	KUNIT_EXPECT_EQ(test, qf_state(test, ibqp), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, qf_events(test, IB_EVENT_QP_FATAL), 1);
}

static void error_flushes_receives_in_order(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_qp *qp = qf_qp(test, cq, 4, 4);
	struct ib_wc wc[4];
	int i;

	for (i = 1; i <= 3; i++)
		KUNIT_ASSERT_EQ(test, qf_post_recv(qp, i), 0);
	KUNIT_EXPECT_EQ(test, qf_poll(cq, wc, 4), 0);

	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 4), 3);
	for (i = 0; i < 3; i++) {
		expect_wc(test, &wc[i], i + 1, IB_WC_RECV, IB_WC_WR_FLUSH_ERR);
		KUNIT_EXPECT_PTR_EQ(test, wc[i].qp, qp);
	}
}

/* Sends wait in IDLE; ERROR flushes them all, signalled or not. */
static void error_flushes_queued_sends(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_qp *qp = qf_qp(test, cq, 4, 4);
	struct ib_wc wc[4];

	KUNIT_ASSERT_EQ(test, qf_post_send(qp, 10, IB_WR_SEND,
					   IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qf_post_send(qp, 11, IB_WR_RDMA_WRITE, 0), 0);
	KUNIT_ASSERT_EQ(test, qf_post_send(qp, 12, IB_WR_RDMA_READ,
					   IB_SEND_SIGNALED), 0);
	KUNIT_EXPECT_EQ(test, qf_poll(cq, wc, 4), 0);

	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 4), 3);
	expect_wc(test, &wc[0], 10, IB_WC_SEND, IB_WC_WR_FLUSH_ERR);
	expect_wc(test, &wc[1], 11, IB_WC_RDMA_WRITE, IB_WC_WR_FLUSH_ERR);
	expect_wc(test, &wc[2], 12, IB_WC_RDMA_READ, IB_WC_WR_FLUSH_ERR);
}

static void post_in_error_flushes_at_once(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_qp *qp = qf_qp(test, cq, 4, 4);
	struct ib_wc wc[2];

	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	KUNIT_EXPECT_EQ(test, qf_post_recv(qp, 5), 0);
	KUNIT_EXPECT_EQ(test, qf_post_send(qp, 6, IB_WR_SEND, 0), 0);
	KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 2), 2);
	expect_wc(test, &wc[0], 5, IB_WC_RECV, IB_WC_WR_FLUSH_ERR);
	expect_wc(test, &wc[1], 6, IB_WC_SEND, IB_WC_WR_FLUSH_ERR);
}

/*
 * A WR posted in ERROR whose flush completion the CQ cannot take (it has
 * overflowed) is refused: ib_drain_qp() would wait for it forever.
 */
static void post_in_error_cq_full(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 2);
	struct ib_qp *qp = qf_qp(test, cq, 4, 4);
	int i, err = 0;

	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	for (i = 0; i < 1024 && !err; i++)
		err = qf_post_send(qp, i, IB_WR_SEND, 0);
	KUNIT_EXPECT_EQ(test, err, -ENOMEM);
	KUNIT_EXPECT_GE(test, i, 3);
	KUNIT_EXPECT_EQ(test, qf_post_recv(qp, 99), -ENOMEM);
}

static int post_one(struct ib_qp *qp, struct ib_send_wr *wr)
{
	const struct ib_send_wr *bad = NULL;

	return ib_post_send(qp, wr, &bad);
}

static void post_send_refuses_bad_wrs(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_qp *qp = qf_qp(test, cq, 8, 4);
	static u8 buf[128];
	struct ib_sge sge[SW_DDP_MAX_SGE + 1] = {
		[0] = { .addr = (uintptr_t)buf, .length = sizeof(buf) },
		[1] = { .addr = (uintptr_t)buf, .length = 8 },
	};
	struct ib_send_wr wr[3] = {};
	const struct ib_send_wr *bad;
	struct ib_wc wc[4];

	/* A chain stops at the first bad WR; those before it are posted. */
	wr[0] = (struct ib_send_wr){ .wr_id = 1, .opcode = IB_WR_SEND,
				     .next = &wr[1] };
	wr[1] = (struct ib_send_wr){ .wr_id = 2, .opcode = IB_WR_SEND_WITH_IMM,
				     .next = &wr[2] };
	wr[2] = (struct ib_send_wr){ .wr_id = 3, .opcode = IB_WR_SEND };
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, &wr[0], &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, (const struct ib_send_wr *)&wr[1]);

	wr[0] = (struct ib_send_wr){ .opcode = IB_WR_ATOMIC_FETCH_AND_ADD };
	KUNIT_EXPECT_EQ(test, post_one(qp, &wr[0]), -EINVAL);
	wr[0] = (struct ib_send_wr){ .opcode = IB_WR_SEND, .sg_list = sge,
				     .num_sge = SW_DDP_MAX_SGE + 1 };
	KUNIT_EXPECT_EQ(test, post_one(qp, &wr[0]), -EINVAL);
	/* max_msg_sz: the SGEs together name more than U32_MAX octets */
	wr[0].num_sge = 2;
	sge[0].length = 0x80000000;
	sge[1].length = 0x80000000;
	KUNIT_EXPECT_EQ(test, post_one(qp, &wr[0]), -EINVAL);
	sge[1].length = 8;
	/* RFC 5040: one Data Sink per Read, and the device says so */
	KUNIT_EXPECT_EQ(test, qp->device->attrs.max_sge_rd, 1);
	wr[0] = (struct ib_send_wr){ .opcode = IB_WR_RDMA_READ, .sg_list = sge,
				     .num_sge = 2 };
	KUNIT_EXPECT_EQ(test, post_one(qp, &wr[0]), -EINVAL);
	/* Inline: Sends and Writes only, at most SIW_MAX_INLINE bytes */
	wr[0].num_sge = 1;
	wr[0].send_flags = IB_SEND_INLINE;
	sge[0].length = 8;
	KUNIT_EXPECT_EQ(test, post_one(qp, &wr[0]), -EINVAL);
	wr[0].opcode = IB_WR_SEND;
	sge[0].length = SW_DDP_MAX_INLINE + 1;
	KUNIT_EXPECT_EQ(test, post_one(qp, &wr[0]), -EINVAL);
	sge[0].length = SW_DDP_MAX_INLINE;
	KUNIT_EXPECT_EQ(test, post_one(qp, &wr[0]), 0);
	/* as siw and libsiw take it */
	wr[0].wr_id = 5;
	wr[0].opcode = IB_WR_SEND_WITH_INV;
	wr[0].ex.invalidate_rkey = 0x1234;
	KUNIT_EXPECT_EQ(test, post_one(qp, &wr[0]), 0);

	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 4), 3);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 1);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 0);
	KUNIT_EXPECT_EQ(test, wc[2].wr_id, 5);
}

/*
 * IB_WR_REG_MR: what makes it fail whenever it runs is refused at post,
 * with *bad_wr on it and nothing posted.
 */
static void post_refuses_bad_reg(struct kunit *test)
{
	struct qfix *fx = test->priv;
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_qp *qp = qf_qp(test, cq, 4, 4);
	struct ib_pd *other = ib_alloc_pd(fx->ibdev, 0);
	struct ib_mr *mr = ib_alloc_mr(fx->pd, IB_MR_TYPE_MEM_REG, 2);
	struct ib_mr *theirs = ib_alloc_mr(other, IB_MR_TYPE_MEM_REG, 2);
	struct ib_reg_wr reg = {
		.wr = { .opcode = IB_WR_REG_MR },
		.access = IB_ACCESS_LOCAL_WRITE,
	};
	const struct ib_send_wr *bad = NULL;
	struct ib_wc wc;

	KUNIT_ASSERT_FALSE(test, IS_ERR(other));
	KUNIT_EXPECT_FALSE(test, IS_ERR(mr));
	KUNIT_EXPECT_FALSE(test, IS_ERR(theirs));
	if (IS_ERR(mr) || IS_ERR(theirs))
		goto out;
	/* no MR */
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, &reg.wr, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, &reg.wr);
	/* remote write without local write (ib_check_mr_access()) */
	reg.mr = mr;
	reg.key = mr->rkey;
	reg.access = IB_ACCESS_REMOTE_WRITE;
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, &reg.wr, &bad), -EINVAL);
	/* a key of another STag index */
	reg.access = IB_ACCESS_LOCAL_WRITE;
	reg.key = mr->rkey + 0x100;
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, &reg.wr, &bad), -EINVAL);
	/* an MR of another PD */
	reg.mr = theirs;
	reg.key = theirs->rkey;
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, &reg.wr, &bad), -EACCES);
	/* nothing was posted */
	KUNIT_EXPECT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 1, &wc), 0);
out:
	if (!IS_ERR(theirs))
		ib_dereg_mr(theirs);
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
	ib_dealloc_pd(other);
}

static void post_refuses_when_full(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_qp *qp = qf_qp(test, cq, 2, 2);
	struct ib_recv_wr rwr[3] = {
		{ .wr_id = 1, .next = &rwr[1] },
		{ .wr_id = 2, .next = &rwr[2] },
		{ .wr_id = 3 },
	};
	struct ib_send_wr swr[3] = {
		{ .wr_id = 4, .opcode = IB_WR_SEND, .next = &swr[1] },
		{ .wr_id = 5, .opcode = IB_WR_SEND, .next = &swr[2] },
		{ .wr_id = 6, .opcode = IB_WR_SEND },
	};
	const struct ib_recv_wr *rbad;
	const struct ib_send_wr *sbad;
	struct ib_sge sge[SW_DDP_MAX_SGE + 1] = {};
	struct ib_recv_wr big = { .sg_list = sge,
				  .num_sge = SW_DDP_MAX_SGE + 1 };
	struct ib_wc wc[8];

	KUNIT_EXPECT_EQ(test, ib_post_recv(qp, &big, &rbad), -EINVAL);
	/* more than max_msg_sz (U32_MAX) octets in one receive */
	big.num_sge = 2;
	sge[0].length = 0x80000000;
	sge[1].length = 0x80000000;
	KUNIT_EXPECT_EQ(test, ib_post_recv(qp, &big, &rbad), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_post_recv(qp, rwr, &rbad), -ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, rbad, (const struct ib_recv_wr *)&rwr[2]);
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, swr, &sbad), -ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, sbad, (const struct ib_send_wr *)&swr[2]);

	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	KUNIT_EXPECT_EQ(test, qf_poll(cq, wc, 8), 4);
}

struct drain_ctx {
	struct ib_cqe cqe;
	atomic_t flushed;
};

static void drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct drain_ctx *ctx = container_of(wc->wr_cqe, struct drain_ctx, cqe);

	if (wc->status == IB_WC_WR_FLUSH_ERR)
		atomic_inc(&ctx->flushed);
}

/* ib_drain_qp(): ERROR, then a marker WR per queue that must flush. */
static void drain_qp_completes(struct kunit *test)
{
	struct qfix *fx = test->priv;
	struct drain_ctx ctx = { .cqe.done = drain_done };
	struct ib_recv_wr wr = { .wr_cqe = &ctx.cqe };
	struct ib_qp_init_attr attr;
	struct ib_cq *cq;
	struct ib_qp *qp;

	cq = ib_alloc_cq(fx->ibdev, NULL, 16, 0, IB_POLL_WORKQUEUE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	qf_init_attr(test, &attr, cq, 4, 4);
	qp = ib_create_qp(fx->pd, &attr);
	if (IS_ERR(qp)) {
		ib_free_cq(cq);
		KUNIT_FAIL(test, "ib_create_qp: %ld", PTR_ERR(qp));
		return;
	}

	KUNIT_EXPECT_EQ(test, ib_post_recv(qp, &wr, NULL), 0);
	KUNIT_EXPECT_EQ(test, ib_post_recv(qp, &wr, NULL), 0);
	ib_drain_qp(qp);	/* hangs, and fails the run, if flushing does */
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx.flushed), 2);
	KUNIT_EXPECT_EQ(test, qf_state(test, qp), IB_QPS_ERR);

	ib_destroy_qp(qp);
	ib_free_cq(cq);
}

/*
 * Destroying a QP cleans its CQs of it: of the CQEs its outstanding WQEs
 * flush to, and of those not polled yet.  The other QPs' stay, in order.
 */
static void destroy_cleans_cqs(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_qp *qp = qf_qp(test, cq, 4, 4);
	struct ib_qp *other = qf_qp(test, cq, 4, 4);
	struct ib_wc wc[8];
	int i;

	KUNIT_ASSERT_EQ(test, qf_modify_state(other, IB_QPS_ERR), 0);
	KUNIT_ASSERT_EQ(test, qf_post_recv(other, 1), 0);
	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	KUNIT_ASSERT_EQ(test, qf_post_recv(qp, 2), 0);
	KUNIT_ASSERT_EQ(test, qf_post_recv(other, 3), 0);
	KUNIT_ASSERT_EQ(test, qf_post_recv(qp, 4), 0);
	KUNIT_ASSERT_EQ(test, qf_post_recv(other, 5), 0);
	qf_destroy_qp(test, qp);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx_sdev(test)->num_qp), 1);

	KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 8), 3);
	expect_wc(test, &wc[0], 1, IB_WC_RECV, IB_WC_WR_FLUSH_ERR);
	expect_wc(test, &wc[1], 3, IB_WC_RECV, IB_WC_WR_FLUSH_ERR);
	expect_wc(test, &wc[2], 5, IB_WC_RECV, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, other);
	KUNIT_EXPECT_PTR_EQ(test, wc[2].qp, other);

	/* The slots it held are free: the CQ takes all it can hold again. */
	KUNIT_ASSERT_EQ(test, cq->cqe, 8);
	for (i = 0; i < 8; i++)
		KUNIT_ASSERT_EQ(test, qf_post_recv(other, 10 + i), 0);
	KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 8), 8);
	expect_wc(test, &wc[7], 17, IB_WC_RECV, IB_WC_WR_FLUSH_ERR);

	/* Outstanding WQEs flush on destroy, and go with the QP. */
	qp = qf_qp(test, cq, 4, 4);
	KUNIT_ASSERT_EQ(test, qf_post_recv(qp, 20), 0);
	KUNIT_ASSERT_EQ(test, qf_post_send(qp, 21, IB_WR_SEND, 0), 0);
	qf_destroy_qp(test, qp);
	KUNIT_EXPECT_EQ(test, qf_poll(cq, wc, 8), 0);
}

/* The iw_cm's view: QPN lookup and references. */
static void iw_lookup_and_refs(struct kunit *test)
{
	struct qfix *fx = test->priv;
	struct ib_qp *qp = qf_qp(test, qf_cq(test, 4), 4, 4);
	const struct ib_device_ops *ops = &fx->ibdev->ops;
	u32 qpn = qp->qp_num;
	struct sw_ddp_qp *found;

	KUNIT_EXPECT_PTR_EQ(test, ops->iw_get_qp(fx->ibdev, qpn), qp);
	KUNIT_EXPECT_NULL(test, ops->iw_get_qp(fx->ibdev, qpn + 1));
	KUNIT_EXPECT_NULL(test, ops->iw_get_qp(fx->ibdev, -1));

	KUNIT_EXPECT_EQ(test, kref_read(&to_qp(qp)->ref), 1);
	ops->iw_add_ref(qp);
	KUNIT_EXPECT_EQ(test, kref_read(&to_qp(qp)->ref), 2);
	ops->iw_rem_ref(qp);

	/* The connection manager's lookup, counted */
	found = sw_ddp_qp_get_named(fx_sdev(test), qpn);
	KUNIT_EXPECT_PTR_EQ(test, found, to_qp(qp));
	KUNIT_EXPECT_EQ(test, kref_read(&to_qp(qp)->ref), 2);
	if (found)
		sw_ddp_qp_put(found);
	KUNIT_EXPECT_NULL(test, sw_ddp_qp_get_named(fx_sdev(test), qpn + 1));

	/* by the same rule: another process's QP is not this one's */
	to_qp(qp)->owner = find_get_pid(1);
	KUNIT_ASSERT_NOT_NULL(test, to_qp(qp)->owner);
	KUNIT_EXPECT_NULL(test, ops->iw_get_qp(fx->ibdev, qpn));
	found = sw_ddp_qp_get_named(fx_sdev(test), qpn);
	KUNIT_EXPECT_NULL(test, found);
	if (found)
		sw_ddp_qp_put(found);
	KUNIT_EXPECT_EQ(test, kref_read(&to_qp(qp)->ref), 1);
	put_pid(to_qp(qp)->owner);
	to_qp(qp)->owner = NULL;

	qf_destroy_qp(test, qp);
	KUNIT_EXPECT_NULL(test, ops->iw_get_qp(fx->ibdev, qpn));
	KUNIT_EXPECT_NULL(test, sw_ddp_qp_get_named(fx_sdev(test), qpn));
}

/* The engine finishes SQEs in any order; they complete in posting order. */
static void sq_completes_in_order(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_qp *qp = qf_qp(test, cq, 4, 4);
	struct sw_ddp_qp *sqp = to_qp(qp);
	struct siw_sqe sqe;
	u32 seq[3];
	struct ib_wc wc[4];
	int i;

	KUNIT_ASSERT_EQ(test, qf_post_send(qp, 1, IB_WR_SEND,
					   IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qf_post_send(qp, 2, IB_WR_RDMA_WRITE, 0), 0);
	KUNIT_ASSERT_EQ(test, qf_post_send(qp, 3, IB_WR_RDMA_READ,
					   IB_SEND_SIGNALED), 0);
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, sw_ddp_sq_next(sqp, &sqe, &seq[i]), 0);
		KUNIT_EXPECT_EQ(test, sqe.id, i + 1);
	}
	KUNIT_EXPECT_EQ(test, sqe.opcode, SIW_OP_READ);
	KUNIT_EXPECT_EQ(test, sqe.rkey, 0x1234);
	KUNIT_EXPECT_EQ(test, sw_ddp_sq_next(sqp, &sqe, &seq[0]), -ENOENT);
	KUNIT_EXPECT_FALSE(test, sw_ddp_sq_pending(sqp));

	KUNIT_EXPECT_EQ(test, sw_ddp_sq_complete(sqp, seq[2], 16, 0), 0);
	KUNIT_EXPECT_EQ(test, sw_ddp_sq_complete(sqp, seq[1], 16, 0), 0);
	KUNIT_EXPECT_EQ(test, qf_poll(cq, wc, 4), 0);
	KUNIT_EXPECT_EQ(test, sw_ddp_sq_complete(sqp, seq[0], 16, 0), 0);

	/* The unsignalled Write completes silently. */
	KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 4), 2);
	expect_wc(test, &wc[0], 1, IB_WC_SEND, IB_WC_SUCCESS);
	expect_wc(test, &wc[1], 3, IB_WC_RDMA_READ, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[1].byte_len, 16);
	KUNIT_EXPECT_EQ(test, sw_ddp_sq_complete(sqp, seq[0], 0, 0),
			-ECANCELED);

	/* Freed slots take new SQEs. */
	KUNIT_EXPECT_EQ(test, qf_post_send(qp, 4, IB_WR_SEND, 0), 0);
	KUNIT_EXPECT_TRUE(test, sw_ddp_sq_pending(sqp));
}

/* Post into a ring as libsiw does: the SQE, then its flags. */
static void user_post(struct siw_sqe *slot, u64 id, u8 opcode, u16 flags)
{
	*slot = (struct siw_sqe){ .id = id, .opcode = opcode };
	/* the SQE is complete before it is valid */
	smp_store_release(&slot->flags, flags);
}

/* ERROR flushes taken SQEs first; those that ended keep their outcome. */
static void sq_flush_taken_first(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_qp *qp = qf_qp(test, cq, 4, 4);
	struct sw_ddp_qp *sqp = to_qp(qp);
	struct siw_sqe sqe;
	struct ib_wc wc[4];
	u32 seq[2];

	KUNIT_ASSERT_EQ(test, qf_post_send(qp, 1, IB_WR_SEND, 0), 0);
	KUNIT_ASSERT_EQ(test, qf_post_send(qp, 2, IB_WR_SEND,
					   IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, qf_post_send(qp, 3, IB_WR_SEND, 0), 0);
	KUNIT_ASSERT_EQ(test, sw_ddp_sq_next(sqp, &sqe, &seq[0]), 0);
	KUNIT_ASSERT_EQ(test, sw_ddp_sq_next(sqp, &sqe, &seq[1]), 0);
	KUNIT_ASSERT_EQ(test, sw_ddp_sq_complete(sqp, seq[1], 8, 0), 0);

	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 4), 3);
	expect_wc(test, &wc[0], 1, IB_WC_SEND, IB_WC_WR_FLUSH_ERR);
	expect_wc(test, &wc[1], 2, IB_WC_SEND, IB_WC_SUCCESS);
	expect_wc(test, &wc[2], 3, IB_WC_SEND, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, sw_ddp_sq_complete(sqp, seq[0], 0, 0),
			-ECANCELED);
}

/*
 * The SQE the engine is sending is busy: its buffers may still be read,
 * so a flush leaves its completion, and every later one, the drain's WR
 * among them, to the engine.  One the engine released (a Read whose
 * Request is out, an SQE that waits) is flushed at once, and not sent.
 */
static void sq_flush_leaves_busy(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_qp *qp = qf_qp(test, cq, 4, 4);
	struct sw_ddp_qp *sqp = to_qp(qp);
	struct siw_sqe sqe;
	struct ib_wc wc[4];
	u32 seq;

	KUNIT_ASSERT_EQ(test, qf_post_send(qp, 1, IB_WR_SEND, 0), 0);
	KUNIT_ASSERT_EQ(test, qf_post_send(qp, 2, IB_WR_SEND, 0), 0);
	KUNIT_ASSERT_EQ(test, sw_ddp_sq_next(sqp, &sqe, &seq), 0);
	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	KUNIT_EXPECT_EQ(test, qf_poll(cq, wc, 4), 0);
	KUNIT_EXPECT_EQ(test, qf_post_send(qp, 3, IB_WR_SEND, 0), 0);
	KUNIT_EXPECT_EQ(test, qf_poll(cq, wc, 4), 0);
	KUNIT_EXPECT_EQ(test, sw_ddp_sq_complete(sqp, seq, 8, IB_WC_SUCCESS),
			0);
	KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 4), 3);
	expect_wc(test, &wc[0], 1, IB_WC_SEND, IB_WC_WR_FLUSH_ERR);
	expect_wc(test, &wc[1], 2, IB_WC_SEND, IB_WC_WR_FLUSH_ERR);
	expect_wc(test, &wc[2], 3, IB_WC_SEND, IB_WC_WR_FLUSH_ERR);

	/* released, then flushed: not to be sent */
	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_RESET), 0);
	KUNIT_ASSERT_EQ(test, qf_post_send(qp, 4, IB_WR_SEND, 0), 0);
	KUNIT_ASSERT_EQ(test, sw_ddp_sq_next(sqp, &sqe, &seq), 0);
	sw_ddp_sq_release(sqp, seq);
	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 4), 1);
	expect_wc(test, &wc[0], 4, IB_WC_SEND, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_FALSE(test, sw_ddp_sq_claim(sqp, seq));

	/* released and claimed again: busy, and flushed when released */
	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_RESET), 0);
	KUNIT_ASSERT_EQ(test, qf_post_send(qp, 5, IB_WR_SEND, 0), 0);
	KUNIT_ASSERT_EQ(test, sw_ddp_sq_next(sqp, &sqe, &seq), 0);
	sw_ddp_sq_release(sqp, seq);
	KUNIT_EXPECT_TRUE(test, sw_ddp_sq_claim(sqp, seq));
	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	KUNIT_EXPECT_EQ(test, qf_poll(cq, wc, 4), 0);
	sw_ddp_sq_release(sqp, seq);
	KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 4), 1);
	expect_wc(test, &wc[0], 5, IB_WC_SEND, IB_WC_WR_FLUSH_ERR);
}

/*
 * A user posts behind the SQE the engine is sending when the QP goes to
 * ERROR; libsiw rings no doorbell, the slot before being valid.  The
 * engine does not send it, and once the busy one completes it is
 * flushed too, in order.
 */
static void sq_flush_after_busy(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_qp *qp = qf_qp(test, cq, 4, 4);
	struct sw_ddp_qp *sqp = to_qp(qp);
	struct siw_sqe *ring = sqp->sq.ring;
	struct siw_sqe sqe;
	struct ib_wc wc[4];
	u32 seq, other;
	int i;

	sqp->user = true;	/* read the ring as a libsiw ring */
	for (i = 0; i < 2; i++)
		user_post(&ring[i], 1 + i, SIW_OP_SEND, SIW_WQE_VALID);
	KUNIT_ASSERT_EQ(test, sw_ddp_sq_next(sqp, &sqe, &seq), 0);
	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	user_post(&ring[2], 3, SIW_OP_SEND, SIW_WQE_VALID);
	KUNIT_EXPECT_EQ(test, sw_ddp_sq_next(sqp, &sqe, &other), -ENOENT);
	KUNIT_EXPECT_EQ(test, qf_poll(cq, wc, 4), 0);

	KUNIT_EXPECT_EQ(test, sw_ddp_sq_complete(sqp, seq, 8, IB_WC_SUCCESS),
			0);
	flush_work(&sqp->flush_work);
	sqp->user = false;
	KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 4), 3);
	for (i = 0; i < 3; i++) {
		expect_wc(test, &wc[i], 1 + i, IB_WC_SEND, IB_WC_WR_FLUSH_ERR);
		KUNIT_EXPECT_EQ(test, ring[i].flags, 0);
	}
}

/*
 * SQEs are checked after they are copied out of the ring, as user space
 * may write anything there.  Stand in for libsiw by writing the ring.
 */
static void sq_refuses_malformed_sqe(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_qp *qp = qf_qp(test, cq, 4, 4);
	struct sw_ddp_qp *sqp = to_qp(qp);
	struct siw_sqe *slot = &sqp->sq.ring[0];
	struct siw_sqe sqe;
	struct ib_wc wc;
	u32 seq;

	KUNIT_ASSERT_EQ(test, qf_post_send(qp, 1, IB_WR_SEND, 0), 0);
	slot->num_sge = SIW_MAX_SGE + 1;
	KUNIT_EXPECT_EQ(test, sw_ddp_sq_next(sqp, &sqe, &seq), -EINVAL);
	KUNIT_ASSERT_EQ(test, qf_poll(cq, &wc, 1), 1);
	expect_wc(test, &wc, 1, IB_WC_SEND, IB_WC_LOC_QP_OP_ERR);
	/* the QP is the engine's to fail, its Terminate first (stream_test) */
	KUNIT_EXPECT_EQ(test, qf_state(test, qp), IB_QPS_RESET);
}

/* A user SQE may not carry a kernel pointer (REG_MR) or unknown flags. */
static void sq_user_sqe_rules(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_qp *qp = qf_qp(test, cq, 4, 4);
	struct sw_ddp_qp *sqp = to_qp(qp);
	struct siw_sqe *ring = sqp->sq.ring;
	struct siw_sqe sqe;
	struct ib_wc wc[2];
	u32 seq;

	/* Each malformed SQE completes in error (the engine fails the QP). */
	sqp->user = true;	/* read the ring as a libsiw ring */
	user_post(&ring[0], 7, SIW_OP_REG_MR, SIW_WQE_VALID);
	KUNIT_EXPECT_EQ(test, sw_ddp_sq_next(sqp, &sqe, &seq), -EINVAL);

	/* with a flag libsiw never sets */
	user_post(&ring[1], 8, SIW_OP_SEND, SIW_WQE_VALID | 0x100);
	KUNIT_EXPECT_EQ(test, sw_ddp_sq_next(sqp, &sqe, &seq), -EINVAL);
	sqp->user = false;

	KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 2), 2);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 7);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 8);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_LOC_QP_OP_ERR);
	/* Completed, the slots are free again. */
	KUNIT_EXPECT_EQ(test, ring[0].flags, 0);
	KUNIT_EXPECT_EQ(test, ring[1].flags, 0);
}

/*
 * A completion handler that, as many consumers do, polls what is there
 * and arms again: each call sees what one batch of a flush completed.
 */
struct flush_watch {
	u64 ids[FLUSH_RING];
	int n;
	int not_flushed;
	int calls;
	int most;			/* CQEs seen in one call */
};

static void flush_watch_comp(struct ib_cq *cq, void *context)
{
	struct flush_watch *w = context;
	struct ib_wc wc;
	int got = 0;

	while (ib_poll_cq(cq, 1, &wc) == 1) {
		if (w->n < FLUSH_RING)
			w->ids[w->n] = wc.wr_id;
		if (wc.status != IB_WC_WR_FLUSH_ERR)
			w->not_flushed++;
		w->n++;
		got++;
	}
	w->calls++;
	w->most = max(w->most, got);
	ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
}

static void expect_flushed_in_batches(struct kunit *test,
				      struct flush_watch *w, u64 first)
{
	int i;

	KUNIT_EXPECT_EQ(test, w->n, FLUSH_RING);
	KUNIT_EXPECT_EQ(test, w->not_flushed, 0);
	for (i = 0; i < min(w->n, FLUSH_RING); i++)
		if (w->ids[i] != first + i) {
			KUNIT_FAIL(test, "CQE %d: wr_id %llu", i, w->ids[i]);
			break;
		}
	/* the handler ran between batches, each of them bounded */
	KUNIT_EXPECT_EQ(test, w->calls, FLUSH_RING / SW_DDP_FLUSH_BATCH);
	KUNIT_EXPECT_LE(test, w->most, SW_DDP_FLUSH_BATCH);
}

/*
 * A user QP in ERROR whose process marks its whole SQ valid and rings the
 * doorbell has every SQE flushed, in order, a malformed one too, in
 * batches with the SQ's lock dropped between them; then again.
 */
static void doorbell_in_error_flushes_in_batches(struct kunit *test)
{
	struct flush_watch *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct sw_ddp_qp *sqp;
	struct siw_sqe *ring;
	int round, i, err;

	KUNIT_ASSERT_NOT_NULL(test, w);
	cq = qf_cq_handler(test, 2 * FLUSH_RING, flush_watch_comp, w);
	qp = qf_qp(test, cq, FLUSH_RING, 4);
	sqp = to_qp(qp);
	ring = sqp->sq.ring;
	KUNIT_ASSERT_EQ(test, sqp->sq.num, FLUSH_RING);
	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);

	for (round = 0; round < 2; round++) {
		memset(w, 0, sizeof(*w));
		ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
		sqp->user = true;	/* read the ring as a libsiw ring */
		/* one a user may not post among them: flushed, too */
		for (i = 0; i < FLUSH_RING; i++)
			user_post(&ring[i], round * FLUSH_RING + i,
				  i == 100 ? SIW_OP_REG_MR : SIW_OP_SEND,
				  SIW_WQE_VALID);
		err = ib_post_send(qp, NULL, NULL);
		sqp->user = false;
		KUNIT_ASSERT_EQ(test, err, 0);

		expect_flushed_in_batches(test, w, round * FLUSH_RING);
		for (i = 0; i < FLUSH_RING; i++)
			KUNIT_ASSERT_EQ_MSG(test, ring[i].flags, 0,
					    "slot %d still valid", i);
	}
}

/* ERROR flushes a full RQ in batches too, in posting order. */
static void error_flushes_rq_in_batches(struct kunit *test)
{
	struct flush_watch *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct ib_cq *cq;
	struct ib_qp *qp;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, w);
	cq = qf_cq_handler(test, 2 * FLUSH_RING, flush_watch_comp, w);
	qp = qf_qp(test, cq, 4, FLUSH_RING);
	KUNIT_ASSERT_EQ(test, to_qp(qp)->rq.num, FLUSH_RING);
	for (i = 0; i < FLUSH_RING; i++)
		KUNIT_ASSERT_EQ(test, qf_post_recv(qp, 1000 + i), 0);

	ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	expect_flushed_in_batches(test, w, 1000);
}

static void rq_get_and_complete(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_qp *qp = qf_qp(test, cq, 4, 4);
	struct sw_ddp_wc swc = { .bytes = 10 };
	struct siw_rqe rqe;
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, qf_post_recv(qp, 7), 0);
	KUNIT_ASSERT_EQ(test, qf_post_recv(qp, 8), 0);
	KUNIT_ASSERT_EQ(test, sw_ddp_rq_get(to_qp(qp), &rqe), 0);
	KUNIT_EXPECT_EQ(test, rqe.id, 7);
	KUNIT_EXPECT_EQ(test, rqe.num_sge, 1);
	KUNIT_EXPECT_EQ(test, rqe.sge[0].length, 64);

	swc.wr_id = rqe.id;
	KUNIT_EXPECT_EQ(test, sw_ddp_rq_complete(to_qp(qp), &swc), 0);
	KUNIT_ASSERT_EQ(test, qf_poll(cq, &wc, 1), 1);
	expect_wc(test, &wc, 7, IB_WC_RECV, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 10);
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, qp);

	KUNIT_EXPECT_EQ(test, sw_ddp_rq_get(to_qp(qp), &rqe), 0);
	KUNIT_EXPECT_EQ(test, rqe.id, 8);
	KUNIT_EXPECT_EQ(test, sw_ddp_rq_get(to_qp(qp), &rqe), -ENOENT);
}

static void rq_refuses_malformed_rqe(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_qp *qp = qf_qp(test, cq, 4, 4);
	struct sw_ddp_qp *sqp = to_qp(qp);
	struct siw_rqe rqe, *slot;
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, qf_post_recv(qp, 9), 0);
	sqp->rq.ring[0].num_sge = SIW_MAX_SGE + 1;
	KUNIT_EXPECT_EQ(test, sw_ddp_rq_get(sqp, &rqe), -EINVAL);
	KUNIT_ASSERT_EQ(test, qf_poll(cq, &wc, 1), 1);
	expect_wc(test, &wc, 9, IB_WC_RECV, IB_WC_LOC_QP_OP_ERR);
	/* the QP is DDP's to fail, its Terminate first (stream_test) */
	KUNIT_EXPECT_EQ(test, qf_state(test, qp), IB_QPS_RESET);

	/* SGEs whose lengths wrap a u32 together, as a user ring may say */
	KUNIT_ASSERT_EQ(test, qf_post_recv(qp, 10), 0);
	slot = &sqp->rq.ring[sqp->rq.get & (sqp->rq.num - 1)];
	KUNIT_ASSERT_EQ(test, slot->id, 10);
	slot->num_sge = 2;
	slot->sge[0].length = 0xfffffff0;
	slot->sge[1].length = 0x20;
	KUNIT_EXPECT_EQ(test, sw_ddp_rq_get(sqp, &rqe), -EINVAL);
	KUNIT_ASSERT_EQ(test, qf_poll(cq, &wc, 1), 1);
	expect_wc(test, &wc, 10, IB_WC_RECV, IB_WC_LOC_QP_OP_ERR);
}

static void srq_create_checks(struct kunit *test)
{
	struct qfix *fx = test->priv;
	struct ib_srq_init_attr bad[] = {
		{ .attr = { .max_wr = 0 } },
		{ .attr = { .max_wr = SW_DDP_MAX_SRQ_WR + 1 } },
		{ .attr = { .max_wr = 4, .max_sge = SW_DDP_MAX_SGE + 1 } },
		{ .attr = { .max_wr = 4, .srq_limit = 5 } },
	};
	struct ib_srq_attr attr;
	struct ib_srq *srq;
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		srq = ib_create_srq(fx->pd, &bad[i]);
		KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(srq), -EINVAL);
		if (!IS_ERR(srq))
			ib_destroy_srq(srq);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&fx_sdev(test)->num_srq), 0);

	srq = qf_srq(test, 5, 0);
	KUNIT_ASSERT_EQ(test, ib_query_srq(srq, &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.max_wr, 8);
	KUNIT_EXPECT_EQ(test, attr.srq_limit, 0);
	attr.max_wr = 16;
	KUNIT_EXPECT_EQ(test, ib_modify_srq(srq, &attr, IB_SRQ_MAX_WR),
			-EOPNOTSUPP);
	attr.srq_limit = 9;
	KUNIT_EXPECT_EQ(test, ib_modify_srq(srq, &attr, IB_SRQ_LIMIT),
			-EINVAL);
}

static int post_srq(struct ib_srq *srq, u64 wr_id)
{
	struct ib_recv_wr wr = { .wr_id = wr_id };

	return ib_post_srq_recv(srq, &wr, NULL);
}

static void srq_post_and_take(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_srq *srq = qf_srq(test, 4, 0);
	struct ib_qp_init_attr attr;
	struct siw_rqe rqe;
	struct ib_qp *qp;
	int i;

	qf_init_attr(test, &attr, cq, 4, 0);
	attr.srq = srq;
	qp = qf_qp_attr(test, &attr);
	KUNIT_EXPECT_EQ(test, attr.cap.max_recv_wr, 0);

	/* Receives go to the SRQ, not to the QP. */
	KUNIT_EXPECT_EQ(test, qf_post_recv(qp, 1), -EINVAL);
	for (i = 1; i <= 4; i++)
		KUNIT_ASSERT_EQ(test, post_srq(srq, i), 0);
	KUNIT_EXPECT_EQ(test, post_srq(srq, 5), -ENOMEM);

	for (i = 1; i <= 4; i++) {
		KUNIT_ASSERT_EQ(test, sw_ddp_rq_get(to_qp(qp), &rqe), 0);
		KUNIT_EXPECT_EQ(test, rqe.id, i);
	}
	KUNIT_EXPECT_EQ(test, sw_ddp_rq_get(to_qp(qp), &rqe), -ENOENT);
	KUNIT_EXPECT_EQ(test, post_srq(srq, 5), 0);
}

static void srq_limit_event(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_srq *srq = qf_srq(test, 8, 0);
	struct ib_srq_attr sattr = { .srq_limit = 2 };
	struct ib_qp_init_attr attr;
	struct siw_rqe rqe;
	struct ib_qp *qp;
	int i;

	qf_init_attr(test, &attr, cq, 4, 0);
	attr.srq = srq;
	qp = qf_qp_attr(test, &attr);
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, post_srq(srq, i), 0);

	/* Unarmed: no event. */
	KUNIT_ASSERT_EQ(test, sw_ddp_rq_get(to_qp(qp), &rqe), 0);
	KUNIT_ASSERT_EQ(test, ib_modify_srq(srq, &sattr, IB_SRQ_LIMIT), 0);

	/* 3 left, then 2: not below the limit of 2 */
	KUNIT_ASSERT_EQ(test, sw_ddp_rq_get(to_qp(qp), &rqe), 0);
	KUNIT_EXPECT_EQ(test, qf_events(test, IB_EVENT_SRQ_LIMIT_REACHED), 0);
	/* 1 left: the event, once */
	KUNIT_ASSERT_EQ(test, sw_ddp_rq_get(to_qp(qp), &rqe), 0);
	KUNIT_EXPECT_EQ(test, qf_events(test, IB_EVENT_SRQ_LIMIT_REACHED), 1);
	KUNIT_ASSERT_EQ(test, sw_ddp_rq_get(to_qp(qp), &rqe), 0);
	KUNIT_EXPECT_EQ(test, qf_events(test, IB_EVENT_SRQ_LIMIT_REACHED), 1);

	/* Re-armed, it fires again. */
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, post_srq(srq, i), 0);
	KUNIT_ASSERT_EQ(test, ib_modify_srq(srq, &sattr, IB_SRQ_LIMIT), 0);
	KUNIT_ASSERT_EQ(test, sw_ddp_rq_get(to_qp(qp), &rqe), 0);
	KUNIT_EXPECT_EQ(test, qf_events(test, IB_EVENT_SRQ_LIMIT_REACHED), 1);
	KUNIT_ASSERT_EQ(test, sw_ddp_rq_get(to_qp(qp), &rqe), 0);
	KUNIT_EXPECT_EQ(test, qf_events(test, IB_EVENT_SRQ_LIMIT_REACHED), 2);
}

/* A QP's ERROR leaves the SRQ alone: another QP still gets its RQEs. */
static void srq_survives_qp_error(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_srq *srq = qf_srq(test, 4, 0);
	struct ib_qp_init_attr attr;
	struct ib_qp *qp1, *qp2;
	struct siw_rqe rqe;
	struct ib_wc wc;
	int i;

	qf_init_attr(test, &attr, cq, 4, 0);
	attr.srq = srq;
	qp1 = qf_qp_attr(test, &attr);
	qp2 = qf_qp_attr(test, &attr);
	for (i = 1; i <= 3; i++)
		KUNIT_ASSERT_EQ(test, post_srq(srq, i), 0);

	KUNIT_ASSERT_EQ(test, qf_modify_state(qp1, IB_QPS_ERR), 0);
	KUNIT_EXPECT_EQ(test, qf_poll(cq, &wc, 1), 0);
	KUNIT_EXPECT_EQ(test, qf_events(test, IB_EVENT_QP_LAST_WQE_REACHED), 1);

	for (i = 1; i <= 3; i++) {
		KUNIT_ASSERT_EQ(test, sw_ddp_rq_get(to_qp(qp2), &rqe), 0);
		KUNIT_EXPECT_EQ(test, rqe.id, i);
	}
}

/*
 * The RQE the engine took is older than those still posted: ERROR flushes
 * it first (ib_drain_rq()'s marker must complete last), and the engine's
 * own completion, coming after, is dropped.  A QP in ERROR takes no more.
 */
static void error_flushes_taken_rqe_first(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_qp *qp = qf_qp(test, cq, 4, 4);
	struct sw_ddp_wc swc = { .bytes = 10 };
	struct siw_rqe rqe;
	struct ib_wc wc[4];
	int i;

	for (i = 1; i <= 3; i++)
		KUNIT_ASSERT_EQ(test, qf_post_recv(qp, i), 0);
	KUNIT_ASSERT_EQ(test, sw_ddp_rq_get(to_qp(qp), &rqe), 0);
	KUNIT_EXPECT_EQ(test, rqe.id, 1);

	KUNIT_ASSERT_EQ(test, qf_modify_state(qp, IB_QPS_ERR), 0);
	KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 4), 3);
	for (i = 0; i < 3; i++)
		expect_wc(test, &wc[i], i + 1, IB_WC_RECV, IB_WC_WR_FLUSH_ERR);

	swc.wr_id = rqe.id;
	KUNIT_EXPECT_EQ(test, sw_ddp_rq_complete(to_qp(qp), &swc), -ECANCELED);
	KUNIT_EXPECT_EQ(test, qf_poll(cq, wc, 4), 0);
	KUNIT_EXPECT_EQ(test, sw_ddp_rq_get(to_qp(qp), &rqe), -ENOENT);
}

/* The same for an RQE taken from an SRQ; the rest of the SRQ stays. */
static void error_flushes_taken_srq_rqe(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_srq *srq = qf_srq(test, 4, 0);
	struct sw_ddp_wc swc = {};
	struct ib_qp_init_attr attr;
	struct ib_qp *qp1, *qp2;
	struct siw_rqe rqe;
	struct ib_wc wc[2];

	qf_init_attr(test, &attr, cq, 4, 0);
	attr.srq = srq;
	qp1 = qf_qp_attr(test, &attr);
	qp2 = qf_qp_attr(test, &attr);
	KUNIT_ASSERT_EQ(test, post_srq(srq, 1), 0);
	KUNIT_ASSERT_EQ(test, post_srq(srq, 2), 0);
	KUNIT_ASSERT_EQ(test, sw_ddp_rq_get(to_qp(qp1), &rqe), 0);

	KUNIT_ASSERT_EQ(test, qf_modify_state(qp1, IB_QPS_ERR), 0);
	KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 2), 1);
	expect_wc(test, &wc[0], 1, IB_WC_RECV, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, qp1);
	swc.wr_id = rqe.id;
	KUNIT_EXPECT_EQ(test, sw_ddp_rq_complete(to_qp(qp1), &swc),
			-ECANCELED);

	/* qp1 takes nothing more; qp2 gets what is left */
	KUNIT_EXPECT_EQ(test, sw_ddp_rq_get(to_qp(qp1), &rqe), -ENOENT);
	KUNIT_ASSERT_EQ(test, sw_ddp_rq_get(to_qp(qp2), &rqe), 0);
	KUNIT_EXPECT_EQ(test, rqe.id, 2);
	KUNIT_EXPECT_EQ(test, qf_poll(cq, wc, 2), 0);
}

static struct kunit_case qp_test_cases[] = {
	KUNIT_CASE(create_reports_caps),
	KUNIT_CASE(create_refuses_bad_attrs),
	KUNIT_CASE(rts_needs_connection),
	KUNIT_CASE(modify_refuses_illegal),
	KUNIT_CASE(modify_all_or_nothing),
	KUNIT_CASE(idle_error_idle),
	KUNIT_CASE(fatal_then_reset),
	KUNIT_CASE(error_flushes_receives_in_order),
	KUNIT_CASE(error_flushes_queued_sends),
	KUNIT_CASE(post_in_error_flushes_at_once),
	KUNIT_CASE(post_in_error_cq_full),
	KUNIT_CASE(post_send_refuses_bad_wrs),
	KUNIT_CASE(post_refuses_bad_reg),
	KUNIT_CASE(post_refuses_when_full),
	KUNIT_CASE(drain_qp_completes),
	KUNIT_CASE(destroy_cleans_cqs),
	KUNIT_CASE(iw_lookup_and_refs),
	KUNIT_CASE(sq_completes_in_order),
	KUNIT_CASE(sq_flush_taken_first),
	KUNIT_CASE(sq_flush_leaves_busy),
	KUNIT_CASE(sq_flush_after_busy),
	KUNIT_CASE(sq_refuses_malformed_sqe),
	KUNIT_CASE(sq_user_sqe_rules),
	KUNIT_CASE(doorbell_in_error_flushes_in_batches),
	KUNIT_CASE(error_flushes_rq_in_batches),
	KUNIT_CASE(rq_get_and_complete),
	KUNIT_CASE(rq_refuses_malformed_rqe),
	KUNIT_CASE(srq_create_checks),
	KUNIT_CASE(srq_post_and_take),
	KUNIT_CASE(srq_limit_event),
	KUNIT_CASE(srq_survives_qp_error),
	KUNIT_CASE(error_flushes_taken_rqe_first),
	KUNIT_CASE(error_flushes_taken_srq_rqe),
	{}
};

static struct kunit_suite qp_test_suite = {
	.name = "sw_ddp_qp",
	.init = qf_init,
	.exit = qf_exit,
	.test_cases = qp_test_cases,
};

kunit_test_suites(&qp_test_suite);
