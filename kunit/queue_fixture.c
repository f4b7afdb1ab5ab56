// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit fixture for the queue suites: see queue_fixture.h.
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>

#include "queue_fixture.h"
#include "sw_ddp.h"

#define QF_IBDEV	"swddp_kq0"

static const u8 qf_mac[ETH_ALEN] = { 0x02, 0x00, 0x5e, 0x10, 0x20, 0x40 };

static netdev_tx_t qf_xmit(struct sk_buff *skb, struct net_device *netdev)
{
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops qf_netdev_ops = {
	.ndo_start_xmit = qf_xmit,
};

static void qf_event(struct ib_event *event, void *context)
{
	struct qfix *fx = context;

	if (event->event < QF_EVENTS)
		atomic_inc(&fx->events[event->event]);
	complete(&fx->event);
}

static void qf_comp(struct ib_cq *cq, void *context)
{
	struct qfix *fx = context;

	atomic_inc(&fx->comp_calls);
}

static int qf_netdev(struct qfix *fx)
{
	struct net_device *netdev = alloc_etherdev(0);
	int err;

	if (!netdev)
		return -ENOMEM;
	netdev->netdev_ops = &qf_netdev_ops;
	eth_hw_addr_set(netdev, qf_mac);
	strscpy(netdev->name, "swddpq%d", sizeof(netdev->name));
	err = register_netdev(netdev);
	if (err) {
		free_netdev(netdev);
		return err;
	}
	fx->netdev = netdev;
	rtnl_lock();
	err = dev_open(netdev, NULL);
	rtnl_unlock();
	return err;
}

int qf_init(struct kunit *test)
{
	struct qfix *fx;
	int err;

	fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	if (!fx)
		return -ENOMEM;
	init_completion(&fx->event);
	test->priv = fx;

	err = qf_netdev(fx);
	if (err)
		return err;
	err = sw_ddp_newlink(QF_IBDEV, fx->netdev, SW_DDP_LLP_TCP);
	if (err)
		return err;

	/* No reference kept: the exit hook removes the device with IF. */
	fx->ibdev = ib_device_get_by_name(QF_IBDEV, RDMA_DRIVER_UNKNOWN);
	if (!fx->ibdev)
		return -ENODEV;
	ib_device_put(fx->ibdev);

	fx->pd = ib_alloc_pd(fx->ibdev, 0);
	if (IS_ERR(fx->pd)) {
		err = PTR_ERR(fx->pd);
		fx->pd = NULL;
	}
	return err;
}

/*
 * qf_init(), then a PD of the caller's on the fixture's device, made with
 * @pd_flags, in *@pd (NULL if it failed).  The caller deallocates it
 * before qf_exit().
 */
int qf_init_pd(struct kunit *test, int pd_flags, struct ib_pd **pd)
{
	struct qfix *fx;
	int err;

	*pd = NULL;
	err = qf_init(test);
	if (err)
		return err;
	fx = test->priv;
	*pd = ib_alloc_pd(fx->ibdev, pd_flags);
	if (IS_ERR(*pd)) {
		err = PTR_ERR(*pd);
		*pd = NULL;
	}
	return err;
}

void qf_exit(struct kunit *test)
{
	struct qfix *fx = test->priv;
	int i;

	if (!fx)	/* qf_init() never ran, or could not allocate */
		return;
	for (i = 0; i < QF_MAX_OBJ; i++)
		if (fx->qp[i])
			ib_destroy_qp(fx->qp[i]);
	for (i = 0; i < QF_MAX_OBJ; i++)
		if (fx->srq[i])
			ib_destroy_srq(fx->srq[i]);
	for (i = 0; i < QF_MAX_OBJ; i++)
		if (fx->cq[i])
			ib_destroy_cq(fx->cq[i]);
	if (fx->pd)
		ib_dealloc_pd(fx->pd);
	if (fx->netdev) {
		unregister_netdev(fx->netdev);
		free_netdev(fx->netdev);
	}
}

/* Track @obj in the first free slot of @slots, or fail the case. */
static void qf_track(struct kunit *test, void **slots, void *obj)
{
	int i;

	for (i = 0; i < QF_MAX_OBJ; i++) {
		if (!slots[i]) {
			slots[i] = obj;
			return;
		}
	}
	KUNIT_FAIL(test, "fixture: too many objects");
}

static void qf_untrack(void **slots, void *obj)
{
	int i;

	for (i = 0; i < QF_MAX_OBJ; i++)
		if (slots[i] == obj)
			slots[i] = NULL;
}

struct ib_cq *qf_cq(struct kunit *test, int cqe)
{
	return qf_cq_handler(test, cqe, qf_comp, test->priv);
}

/*
 * A CQ whose completion handler is @comp, called with @context; its async
 * events are recorded only if @context is the fixture.
 */
struct ib_cq *qf_cq_handler(struct kunit *test, int cqe,
			    ib_comp_handler comp, void *context)
{
	struct qfix *fx = test->priv;
	struct ib_cq_init_attr attr = { .cqe = cqe };
	struct ib_cq *cq;

	cq = ib_create_cq(fx->ibdev, comp, context == fx ? qf_event : NULL,
			  context, &attr);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(cq), "ib_create_cq: %ld",
			       PTR_ERR(cq));
	qf_track(test, (void **)fx->cq, cq);
	return cq;
}

void qf_init_attr(struct kunit *test, struct ib_qp_init_attr *attr,
		  struct ib_cq *cq, u32 send_wr, u32 recv_wr)
{
	memset(attr, 0, sizeof(*attr));
	attr->event_handler = qf_event;
	attr->qp_context = test->priv;
	attr->send_cq = cq;
	attr->recv_cq = cq;
	attr->qp_type = IB_QPT_RC;
	attr->sq_sig_type = IB_SIGNAL_REQ_WR;
	attr->cap.max_send_wr = send_wr;
	attr->cap.max_recv_wr = recv_wr;
	attr->cap.max_send_sge = 2;
	attr->cap.max_recv_sge = 2;
}

struct ib_qp *qf_qp_attr(struct kunit *test, struct ib_qp_init_attr *attr)
{
	struct qfix *fx = test->priv;
	struct ib_qp *qp;

	qp = ib_create_qp(fx->pd, attr);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(qp), "ib_create_qp: %ld",
			       PTR_ERR(qp));
	qf_track(test, (void **)fx->qp, qp);
	return qp;
}

struct ib_qp *qf_qp(struct kunit *test, struct ib_cq *cq, u32 send_wr,
		    u32 recv_wr)
{
	struct ib_qp_init_attr attr;

	qf_init_attr(test, &attr, cq, send_wr, recv_wr);
	return qf_qp_attr(test, &attr);
}

struct ib_srq *qf_srq(struct kunit *test, u32 max_wr, u32 limit)
{
	struct qfix *fx = test->priv;
	struct ib_srq_init_attr attr = {
		.event_handler = qf_event,
		.srq_context = fx,
		.attr = { .max_wr = max_wr, .max_sge = 1, .srq_limit = limit },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_srq *srq;

	srq = ib_create_srq(fx->pd, &attr);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(srq), "ib_create_srq: %ld",
			       PTR_ERR(srq));
	qf_track(test, (void **)fx->srq, srq);
	return srq;
}

void qf_destroy_qp(struct kunit *test, struct ib_qp *qp)
{
	struct qfix *fx = test->priv;

	qf_untrack((void **)fx->qp, qp);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
}

void qf_destroy_cq(struct kunit *test, struct ib_cq *cq)
{
	struct qfix *fx = test->priv;

	qf_untrack((void **)fx->cq, cq);
	ib_destroy_cq(cq);
}

int qf_events(struct kunit *test, enum ib_event_type type)
{
	struct qfix *fx = test->priv;

	return atomic_read(&fx->events[type]);
}

/* Wait up to 5 s for @n events of @type in all (for async work). */
bool qf_wait_events(struct kunit *test, enum ib_event_type type, int n)
{
	struct qfix *fx = test->priv;
	unsigned long end = jiffies + 5 * HZ;

	while (qf_events(test, type) < n) {
		long left = (long)(end - jiffies);

		if (left <= 0 || !wait_for_completion_timeout(&fx->event, left))
			return qf_events(test, type) >= n;
	}
	return true;
}

/* Wait up to a few seconds for @qp to be in ERROR. */
bool qf_wait_error(struct ib_qp *qp)
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

int qf_state(struct kunit *test, struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;

	KUNIT_ASSERT_EQ(test, ib_query_qp(qp, &attr, IB_QP_STATE, &init), 0);
	return attr.qp_state;
}

int qf_modify_state(struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };

	return ib_modify_qp(qp, &attr, IB_QP_STATE);
}

static u8 qf_buf[64];

int qf_post_recv(struct ib_qp *qp, u64 wr_id)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)qf_buf, .length = sizeof(qf_buf), .lkey = 1,
	};
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(qp, &wr, NULL);
}

int qf_post_send(struct ib_qp *qp, u64 wr_id, enum ib_wr_opcode opcode,
		 int send_flags)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)qf_buf, .length = 16, .lkey = 1,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
			.opcode = opcode, .send_flags = send_flags,
		},
		.remote_addr = 0x1000, .rkey = 0x1234,
	};

	return ib_post_send(qp, &wr.wr, NULL);
}

int qf_poll(struct ib_cq *cq, struct ib_wc *wc, int n)
{
	return ib_poll_cq(cq, n, wc);
}

/* Test data: no octet repeats the one before it. */
void qf_fill(u8 *p, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(i * 31 + seed);
}

/* Poll @cq until one completion arrives, or a few seconds pass. */
bool qf_poll_one(struct ib_cq *cq, struct ib_wc *wc)
{
	int i;

	for (i = 0; i < 300; i++) {
		if (ib_poll_cq(cq, 1, wc) == 1)
			return true;
		usleep_range(10000, 20000);
	}
	return false;
}
