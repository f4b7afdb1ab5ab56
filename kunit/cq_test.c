// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: sw_ddp completion queues through ib_core on a real device:
 * creation limits, the one-shot arming of req_notify_cq (next completion
 * and solicited), overflow, resizing, and the CQE a kernel consumer polls.
 * CQEs are produced with the helpers the RDMAP engine will use.
 */
#include <kunit/test.h>

#include "cq.h"
#include "qp.h"
#include "queue_fixture.h"

static struct sw_ddp_dev *fx_sdev(struct kunit *test)
{
	return to_sdev(((struct qfix *)test->priv)->ibdev);
}

static int comp_calls(struct kunit *test)
{
	return atomic_read(&((struct qfix *)test->priv)->comp_calls);
}

static int post(struct ib_cq *cq, u64 wr_id, enum ib_wc_status status,
		bool solicited)
{
	struct sw_ddp_wc wc = {
		.wr_id = wr_id,
		.opcode = SIW_OP_RECEIVE,
		.status = status,
		.solicited = solicited,
	};

	return sw_ddp_cq_post(to_cq(cq), &wc);
}

static void expect_create_fails(struct kunit *test,
				struct ib_cq_init_attr *attr, long err)
{
	struct qfix *fx = test->priv;
	struct ib_cq *cq = ib_create_cq(fx->ibdev, NULL, NULL, NULL, attr);

	if (!IS_ERR(cq)) {
		ib_destroy_cq(cq);
		KUNIT_FAIL(test, "ib_create_cq succeeded");
		return;
	}
	KUNIT_EXPECT_EQ(test, PTR_ERR(cq), err);
}

static void create_checks(struct kunit *test)
{
	struct ib_cq_init_attr attr = {};
	struct ib_cq *cq;

	expect_create_fails(test, &attr, -EINVAL);
	attr.cqe = SW_DDP_MAX_CQE + 1;
	expect_create_fails(test, &attr, -EINVAL);
	attr.cqe = 4;
	attr.comp_vector = 1;
	expect_create_fails(test, &attr, -EINVAL);
	attr.comp_vector = 0;
	attr.flags = IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
	expect_create_fails(test, &attr, -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx_sdev(test)->num_cq), 0);

	cq = qf_cq(test, 5);
	KUNIT_EXPECT_EQ(test, cq->cqe, 8);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx_sdev(test)->num_cq), 1);
	qf_destroy_cq(test, cq);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx_sdev(test)->num_cq), 0);
}

/* A new CQ is not armed: completions come silently. */
static void unarmed_is_silent(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 4);

	KUNIT_EXPECT_EQ(test, post(cq, 1, IB_WC_SUCCESS, true), 0);
	KUNIT_EXPECT_EQ(test, post(cq, 2, IB_WC_GENERAL_ERR, false), 0);
	KUNIT_EXPECT_EQ(test, comp_calls(test), 0);
}

static void notify_next_completion(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);

	KUNIT_ASSERT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, post(cq, 1, IB_WC_SUCCESS, false), 0);
	KUNIT_EXPECT_EQ(test, comp_calls(test), 1);
	/* One shot: the CQ disarmed itself. */
	KUNIT_EXPECT_EQ(test, post(cq, 2, IB_WC_SUCCESS, false), 0);
	KUNIT_EXPECT_EQ(test, comp_calls(test), 1);

	KUNIT_ASSERT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, post(cq, 3, IB_WC_SUCCESS, false), 0);
	KUNIT_EXPECT_EQ(test, comp_calls(test), 2);
}

/* Solicited: a solicited completion or an unsuccessful one. */
static void notify_solicited(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);

	KUNIT_ASSERT_EQ(test, ib_req_notify_cq(cq, IB_CQ_SOLICITED), 0);
	KUNIT_EXPECT_EQ(test, post(cq, 1, IB_WC_SUCCESS, false), 0);
	KUNIT_EXPECT_EQ(test, comp_calls(test), 0);
	KUNIT_EXPECT_EQ(test, post(cq, 2, IB_WC_SUCCESS, true), 0);
	KUNIT_EXPECT_EQ(test, comp_calls(test), 1);
	KUNIT_EXPECT_EQ(test, post(cq, 3, IB_WC_SUCCESS, true), 0);
	KUNIT_EXPECT_EQ(test, comp_calls(test), 1);

	KUNIT_ASSERT_EQ(test, ib_req_notify_cq(cq, IB_CQ_SOLICITED), 0);
	KUNIT_EXPECT_EQ(test, post(cq, 4, IB_WC_WR_FLUSH_ERR, false), 0);
	KUNIT_EXPECT_EQ(test, comp_calls(test), 2);
}

static void report_missed_events(struct kunit *test)
{
	enum ib_cq_notify_flags arm = IB_CQ_NEXT_COMP |
				      IB_CQ_REPORT_MISSED_EVENTS;
	struct ib_cq *cq = qf_cq(test, 4);
	struct ib_wc wc;

	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, arm), 0);
	KUNIT_EXPECT_EQ(test, post(cq, 1, IB_WC_SUCCESS, false), 0);
	KUNIT_EXPECT_EQ(test, comp_calls(test), 1);
	/* A CQE is waiting: re-arming says so. */
	KUNIT_EXPECT_GT(test, ib_req_notify_cq(cq, arm), 0);
	KUNIT_EXPECT_EQ(test, qf_poll(cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, arm), 0);
}

static void poll_in_order_and_partial(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 8);
	struct ib_wc wc[8];
	int i;

	for (i = 0; i < 5; i++)
		KUNIT_ASSERT_EQ(test, post(cq, i, IB_WC_SUCCESS, false), 0);
	KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 2), 2);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 0);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 1);
	KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 8), 3);
	KUNIT_EXPECT_EQ(test, wc[2].wr_id, 4);
	KUNIT_EXPECT_EQ(test, qf_poll(cq, wc, 8), 0);
}

/* What a kernel consumer sees of a CQE. */
static void kernel_cqe_fields(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 4);
	struct ib_qp *qp = qf_qp(test, cq, 1, 1);
	struct sw_ddp_wc swc = {
		.wr_id = 42, .qp = qp, .opcode = SIW_OP_RECEIVE, .bytes = 99,
		.inval = true, .inval_stag = 0xabcd01,
	};
	struct ib_wc wc[2];

	KUNIT_ASSERT_EQ(test, sw_ddp_cq_post(to_cq(cq), &swc), 0);
	/* Kernel CQs keep statuses the siw ABI has no code for. */
	swc = (struct sw_ddp_wc){ .wr_id = 43, .opcode = SIW_OP_READ,
				  .status = IB_WC_REM_OP_ERR };
	KUNIT_ASSERT_EQ(test, sw_ddp_cq_post(to_cq(cq), &swc), 0);

	KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 2), 2);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 42);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, qp);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc[0].byte_len, 99);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_TRUE(test, wc[0].wc_flags & IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc[0].ex.invalidate_rkey, 0xabcd01);
	KUNIT_EXPECT_EQ(test, wc[1].opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_REM_OP_ERR);
	KUNIT_EXPECT_FALSE(test, wc[1].wc_flags & IB_WC_WITH_INVALIDATE);
}

/* A full CQ overflows: CQ_ERR once, and it takes no more CQEs. */
static void overflow_event(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 1);
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, cq->cqe, 1);
	KUNIT_EXPECT_EQ(test, post(cq, 1, IB_WC_SUCCESS, false), 0);
	KUNIT_EXPECT_EQ(test, qf_events(test, IB_EVENT_CQ_ERR), 0);
	KUNIT_EXPECT_EQ(test, post(cq, 2, IB_WC_SUCCESS, false), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, qf_events(test, IB_EVENT_CQ_ERR), 1);
	KUNIT_EXPECT_EQ(test, post(cq, 3, IB_WC_SUCCESS, false), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, qf_events(test, IB_EVENT_CQ_ERR), 1);

	/* What made it in can still be polled; the CQ stays in error. */
	KUNIT_ASSERT_EQ(test, qf_poll(cq, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1);
	KUNIT_EXPECT_EQ(test, post(cq, 4, IB_WC_SUCCESS, false), -EOVERFLOW);
}

/*
 * A completion lost to a full CQ is the caller's to make fatal to its QP:
 * the engine's, which sends its Terminate first (sw_ddp_stream's
 * *_cq_overflow cases).  The QP is left as it was until then.
 */
static void overflow_left_to_caller(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 1);
	struct ib_qp *qp = qf_qp(test, cq, 1, 2);
	int state = qf_state(test, qp);
	struct sw_ddp_wc swc = {};
	struct siw_rqe rqe;

	KUNIT_ASSERT_EQ(test, qf_post_recv(qp, 1), 0);
	KUNIT_ASSERT_EQ(test, qf_post_recv(qp, 2), 0);
	KUNIT_ASSERT_EQ(test, sw_ddp_rq_get(to_qp(qp), &rqe), 0);
	swc.wr_id = rqe.id;
	KUNIT_EXPECT_EQ(test, sw_ddp_rq_complete(to_qp(qp), &swc), 0);
	KUNIT_ASSERT_EQ(test, sw_ddp_rq_get(to_qp(qp), &rqe), 0);
	swc.wr_id = rqe.id;
	KUNIT_EXPECT_EQ(test, sw_ddp_rq_complete(to_qp(qp), &swc), -EOVERFLOW);

	KUNIT_EXPECT_EQ(test, qf_events(test, IB_EVENT_CQ_ERR), 1);
	flush_work(&to_qp(qp)->fatal_work);
	KUNIT_EXPECT_EQ(test, qf_events(test, IB_EVENT_QP_FATAL), 0);
	KUNIT_EXPECT_EQ(test, qf_state(test, qp), state);
}

static void resize_keeps_cqes(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 4);
	struct ib_wc wc[8];
	int i;

	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, post(cq, i, IB_WC_SUCCESS, false), 0);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(cq, 2), -EINVAL);	/* 3 wait */
	KUNIT_EXPECT_EQ(test, ib_resize_cq(cq, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(cq, SW_DDP_MAX_CQE + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, cq->cqe, 4);

	/* Armed before, armed after. */
	KUNIT_ASSERT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP), 0);
	KUNIT_ASSERT_EQ(test, ib_resize_cq(cq, 9), 0);
	KUNIT_EXPECT_EQ(test, cq->cqe, 16);
	for (i = 3; i < 16; i++)
		KUNIT_ASSERT_EQ(test, post(cq, i, IB_WC_SUCCESS, false), 0);
	KUNIT_EXPECT_EQ(test, comp_calls(test), 1);
	KUNIT_EXPECT_EQ(test, post(cq, 16, IB_WC_SUCCESS, false), -EOVERFLOW);

	for (i = 0; i < 16; i += 8) {
		KUNIT_ASSERT_EQ(test, qf_poll(cq, wc, 8), 8);
		KUNIT_EXPECT_EQ(test, wc[0].wr_id, i);
		KUNIT_EXPECT_EQ(test, wc[7].wr_id, i + 7);
	}
}

static struct kunit_case cq_test_cases[] = {
	KUNIT_CASE(create_checks),
	KUNIT_CASE(unarmed_is_silent),
	KUNIT_CASE(notify_next_completion),
	KUNIT_CASE(notify_solicited),
	KUNIT_CASE(report_missed_events),
	KUNIT_CASE(poll_in_order_and_partial),
	KUNIT_CASE(kernel_cqe_fields),
	KUNIT_CASE(overflow_event),
	KUNIT_CASE(overflow_left_to_caller),
	KUNIT_CASE(resize_keeps_cqes),
	{}
};

static struct kunit_suite cq_test_suite = {
	.name = "sw_ddp_cq",
	.init = qf_init,
	.exit = qf_exit,
	.test_cases = cq_test_cases,
};

kunit_test_suites(&cq_test_suite);
