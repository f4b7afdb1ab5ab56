// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: cm.c through the real iw_cm, on a registered sw_ddp device with
 * real QPs, over loopback: the events each side sees, and that each comes
 * exactly once.
 */
#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/net.h>
#include <linux/pid.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <rdma/iw_cm.h>

#include "llp_tcp.h"
#include "qp.h"
#include "queue_fixture.h"
#include "raw_peer.h"

#define IW_WAIT		msecs_to_jiffies(3000)
#define IW_EVENTS	16

/* The iw_cm events one side's cm_ids got. */
struct iw_rec {
	spinlock_t lock;	/* all below */
	wait_queue_head_t wait;
	int n;
	struct {
		int type;
		int status;
		u8 pdata[16];
		u8 pdata_len;
		u8 ird, ord;
	} ev[IW_EVENTS];
	struct iw_cm_id *req_id;	/* from CONNECT_REQUEST */
};

struct iw_test {
	struct iw_rec act, pas;
	struct iw_cm_id *lid, *aid;
	struct ib_qp *qa, *qp;
	struct sockaddr_in laddr;
	struct socket *raw;		/* a peer of our own making */
};

/* The case running now, for the exit hook (the fixture has test->priv). */
static struct iw_test *iw_current;

static int iw_handler(struct iw_cm_id *id, struct iw_cm_event *e)
{
	struct iw_rec *r = id->context;
	unsigned long flags;

	spin_lock_irqsave(&r->lock, flags);
	if (r->n < IW_EVENTS) {
		r->ev[r->n].type = e->event;
		r->ev[r->n].status = e->status;
		r->ev[r->n].ird = e->ird;
		r->ev[r->n].ord = e->ord;
		r->ev[r->n].pdata_len = min_t(u8, e->private_data_len, 16);
		memcpy(r->ev[r->n].pdata, e->private_data,
		       r->ev[r->n].pdata_len);
		r->n++;
	}
	if (e->event == IW_CM_EVENT_CONNECT_REQUEST)
		r->req_id = id;
	spin_unlock_irqrestore(&r->lock, flags);
	wake_up(&r->wait);
	return 0;
}

static int iw_count(struct iw_rec *r, int type)
{
	unsigned long flags;
	int i, n = 0;

	spin_lock_irqsave(&r->lock, flags);
	for (i = 0; i < r->n; i++)
		n += r->ev[i].type == type;
	spin_unlock_irqrestore(&r->lock, flags);
	return n;
}

/* Wait for an event of @type; return its index. */
static int iw_wait(struct kunit *test, struct iw_rec *r, int type)
{
	int i;

	KUNIT_ASSERT_NE_MSG(test, 0L,
			    wait_event_timeout(r->wait, iw_count(r, type),
					       IW_WAIT),
			    "no iw_cm event %d", type);
	for (i = 0; i < r->n; i++)
		if (r->ev[i].type == type)
			break;
	return i;
}

static void iw_rec_init(struct iw_rec *r)
{
	spin_lock_init(&r->lock);
	init_waitqueue_head(&r->wait);
}

static struct iw_test *iw_setup(struct kunit *test)
{
	struct qfix *fx = test->priv;
	struct iw_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct sw_ddp_tcp_ep *l;
	struct ib_cq *cq;
	int len;

	KUNIT_ASSERT_NOT_NULL(test, t);
	iw_current = t;
	iw_rec_init(&t->act);
	iw_rec_init(&t->pas);
	cq = qf_cq(test, 16);
	t->qa = qf_qp(test, cq, 4, 4);
	t->qp = qf_qp(test, cq, 4, 4);

	t->lid = iw_create_cm_id(fx->ibdev, iw_handler, &t->pas);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->lid));
	t->laddr.sin_family = AF_INET;
	t->laddr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	memcpy(&t->lid->local_addr, &t->laddr, sizeof(t->laddr));
	KUNIT_ASSERT_EQ(test, 0, iw_cm_listen(t->lid, 4));
	l = t->lid->provider_data;
	len = kernel_getsockname(l->sock, (struct sockaddr *)&t->laddr);
	KUNIT_ASSERT_GT(test, len, 0);

	t->aid = iw_create_cm_id(fx->ibdev, iw_handler, &t->act);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->aid));
	memcpy(&t->aid->remote_addr, &t->laddr, sizeof(t->laddr));
	((struct sockaddr_in *)&t->aid->local_addr)->sin_family = AF_INET;
	((struct sockaddr_in *)&t->aid->local_addr)->sin_addr.s_addr =
		htonl(INADDR_LOOPBACK);
	return t;
}

/* Reset a stream still on @qp, as qp.c's move to ERROR is to do. */
static void iw_reset_qp(struct ib_qp *qp, struct iw_rec *r)
{
	struct sw_ddp_llp *llp = qp ? READ_ONCE(to_qp(qp)->llp) : NULL;

	if (llp) {
		llp->ops->close(llp, true);
		wait_event_timeout(r->wait, iw_count(r, IW_CM_EVENT_CLOSE),
				   IW_WAIT);
	}
}

/*
 * Exit hook: destroy what iw_setup() made, whatever the case got to,
 * before the fixture destroys the QPs (which waits for the iw_cm's and
 * cm.c's references on them).
 */
static void cm_iw_exit(struct kunit *test)
{
	struct iw_test *t = iw_current;

	iw_current = NULL;
	if (t) {
		iw_reset_qp(t->qa, &t->act);
		iw_reset_qp(t->qp, &t->pas);
		if (t->pas.req_id)
			iw_destroy_cm_id(t->pas.req_id);
		if (t->aid && !IS_ERR(t->aid))
			iw_destroy_cm_id(t->aid);
		if (t->lid && !IS_ERR(t->lid))
			iw_destroy_cm_id(t->lid);
		if (t->raw)
			sock_release(t->raw);
	}
	qf_exit(test);
}

static void iw_connect(struct kunit *test, struct iw_test *t)
{
	struct iw_cm_conn_param p = {
		.private_data = "hi", .private_data_len = 2,
		.ird = 2, .ord = 3, .qpn = t->qa->qp_num,
	};
	int i;

	KUNIT_ASSERT_EQ(test, 0, iw_cm_connect(t->aid, &p));
	i = iw_wait(test, &t->pas, IW_CM_EVENT_CONNECT_REQUEST);
	KUNIT_EXPECT_EQ(test, 2, t->pas.ev[i].pdata_len);
	KUNIT_EXPECT_MEMEQ(test, "hi", t->pas.ev[i].pdata, 2);
	KUNIT_ASSERT_NOT_NULL(test, t->pas.req_id);
}

static void iw_accept(struct kunit *test, struct iw_test *t)
{
	struct iw_cm_conn_param p = {
		.private_data = "ok", .private_data_len = 2,
		.ird = 3, .ord = 2, .qpn = t->qp->qp_num,
	};
	int i;

	KUNIT_ASSERT_EQ(test, 0, iw_cm_accept(t->pas.req_id, &p));
	iw_wait(test, &t->pas, IW_CM_EVENT_ESTABLISHED);
	i = iw_wait(test, &t->act, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, 0, t->act.ev[i].status);
	KUNIT_EXPECT_EQ(test, 2, t->act.ev[i].pdata_len);
	KUNIT_EXPECT_MEMEQ(test, "ok", t->act.ev[i].pdata, 2);
}

/* Connect, accept, the active side closes: every event once. */
static void cm_iw_connect_close(struct kunit *test)
{
	struct iw_test *t = iw_setup(test);
	struct sw_ddp_llp *llp;

	iw_connect(test, t);
	iw_accept(test, t);
	KUNIT_EXPECT_EQ(test, IB_QPS_RTS, qf_state(test, t->qa));
	KUNIT_EXPECT_EQ(test, IB_QPS_RTS, qf_state(test, t->qp));
	llp = to_qp(t->qa)->llp;
	KUNIT_ASSERT_NOT_NULL(test, llp);
	KUNIT_EXPECT_PTR_EQ(test, to_qp(t->qa), llp->qp);

	/* what qp.c does when the QP leaves RTS gracefully */
	llp->ops->close(llp, false);
	iw_wait(test, &t->act, IW_CM_EVENT_CLOSE);
	iw_wait(test, &t->pas, IW_CM_EVENT_CLOSE);
	msleep(100);
	/* DISCONNECT only moves iw_cm to CLOSING: its client never sees it */
	KUNIT_EXPECT_EQ(test, 1, iw_count(&t->act, IW_CM_EVENT_CONNECT_REPLY));
	KUNIT_EXPECT_EQ(test, 1, iw_count(&t->act, IW_CM_EVENT_CLOSE));
	KUNIT_EXPECT_EQ(test, 1, iw_count(&t->pas,
					  IW_CM_EVENT_CONNECT_REQUEST));
	KUNIT_EXPECT_EQ(test, 1, iw_count(&t->pas, IW_CM_EVENT_ESTABLISHED));
	KUNIT_EXPECT_EQ(test, 1, iw_count(&t->pas, IW_CM_EVENT_CLOSE));
	KUNIT_EXPECT_EQ(test, 5, t->act.n + t->pas.n);
	/* the streams are gone from both QPs */
	KUNIT_EXPECT_NULL(test, to_qp(t->qa)->llp);
	KUNIT_EXPECT_NULL(test, to_qp(t->qp)->llp);
	KUNIT_EXPECT_EQ(test, IB_QPS_ERR, qf_state(test, t->qa));
	KUNIT_EXPECT_EQ(test, IB_QPS_ERR, qf_state(test, t->qp));
}

/*
 * iw_cm's own handler for the active cm_id, and how many successful
 * CONNECT_REPLYs with private data it was kept from: iw_cm refuses one
 * whose data its GFP_ATOMIC copy fails for.
 */
static int (*iw_real_handler)(struct iw_cm_id *id, struct iw_cm_event *e);
static int iw_refused;

static int iw_refuse_reply(struct iw_cm_id *id, struct iw_cm_event *e)
{
	if (e->event == IW_CM_EVENT_CONNECT_REPLY && !e->status &&
	    e->private_data_len) {
		iw_refused++;
		return -ENOMEM;
	}
	return iw_real_handler(id, e);
}

/*
 * A CONNECT_REPLY iw_cm refuses (above) fails the connection: without
 * the reply its cm_id would wait in CONN_SENT for good, and destroying
 * it would hang.  The active side hears -ENOMEM, without the data, its
 * QP leaves the stream and goes to ERROR; the passive side is reset.
 */
static void cm_iw_reply_refused(struct kunit *test)
{
	struct iw_test *t = iw_setup(test);
	struct iw_cm_conn_param p = {
		.private_data = "ok", .private_data_len = 2,
		.ird = 3, .ord = 2, .qpn = t->qp->qp_num,
	};
	int i;

	iw_refused = 0;
	iw_real_handler = t->aid->event_handler;
	t->aid->event_handler = iw_refuse_reply;
	iw_connect(test, t);
	KUNIT_ASSERT_EQ(test, 0, iw_cm_accept(t->pas.req_id, &p));
	i = iw_wait(test, &t->act, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, -ENOMEM, t->act.ev[i].status);
	KUNIT_EXPECT_EQ(test, 0, t->act.ev[i].pdata_len);
	KUNIT_EXPECT_EQ(test, 1, iw_refused);
	KUNIT_EXPECT_NULL(test, to_qp(t->qa)->llp);
	KUNIT_EXPECT_EQ(test, IB_QPS_ERR, qf_state(test, t->qa));
	i = iw_wait(test, &t->pas, IW_CM_EVENT_CLOSE);
	KUNIT_EXPECT_EQ(test, -ECONNRESET, t->pas.ev[i].status);
	msleep(100);
	KUNIT_EXPECT_EQ(test, 1, t->act.n);
	iw_destroy_cm_id(t->aid);	/* does not wait: iw_cm had its reply */
	t->aid = NULL;
}

/* Reject with private data: CONNECT_REPLY -ECONNREFUSED carries it. */
static void cm_iw_reject(struct kunit *test)
{
	struct iw_test *t = iw_setup(test);
	int i;

	iw_connect(test, t);
	KUNIT_EXPECT_EQ(test, 0, iw_cm_reject(t->pas.req_id, "no", 2));
	i = iw_wait(test, &t->act, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, -ECONNREFUSED, t->act.ev[i].status);
	KUNIT_EXPECT_EQ(test, 2, t->act.ev[i].pdata_len);
	KUNIT_EXPECT_MEMEQ(test, "no", t->act.ev[i].pdata, 2);
	msleep(100);
	KUNIT_EXPECT_EQ(test, 1, t->act.n);
	KUNIT_EXPECT_EQ(test, 1, t->pas.n);
	KUNIT_EXPECT_NULL(test, to_qp(t->qa)->llp);
}

/* A failed accept: no event on the passive side, a reset on the other. */
static void cm_iw_accept_fails(struct kunit *test)
{
	struct iw_test *t = iw_setup(test);
	struct iw_cm_conn_param p = {
		.ird = SW_DDP_MAX_IRD + 1, .qpn = t->qp->qp_num,
	};
	int i;

	iw_connect(test, t);
	KUNIT_EXPECT_EQ(test, -EINVAL, iw_cm_accept(t->pas.req_id, &p));
	i = iw_wait(test, &t->act, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, -ECONNRESET, t->act.ev[i].status);
	msleep(100);
	KUNIT_EXPECT_EQ(test, 1, t->pas.n);
	KUNIT_EXPECT_EQ(test, 1, t->act.n);
}

/* The listener and then the unanswered request go away. */
static void cm_iw_listener_destroyed(struct kunit *test)
{
	struct iw_test *t = iw_setup(test);
	int i;

	iw_connect(test, t);
	iw_destroy_cm_id(t->lid);
	t->lid = NULL;
	iw_destroy_cm_id(t->pas.req_id);	/* iw_cm rejects it */
	t->pas.req_id = NULL;
	i = iw_wait(test, &t->act, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, -ECONNREFUSED, t->act.ev[i].status);
}

/* The peer resets an established connection. */
static void cm_iw_peer_reset(struct kunit *test)
{
	struct iw_test *t = iw_setup(test);
	struct sw_ddp_llp *llp;
	int i;

	iw_connect(test, t);
	iw_accept(test, t);
	llp = to_qp(t->qp)->llp;
	KUNIT_ASSERT_NOT_NULL(test, llp);
	llp->ops->close(llp, true);
	i = iw_wait(test, &t->act, IW_CM_EVENT_CLOSE);
	KUNIT_EXPECT_EQ(test, -ECONNRESET, t->act.ev[i].status);
	i = iw_wait(test, &t->pas, IW_CM_EVENT_CLOSE);
	KUNIT_EXPECT_EQ(test, 0, t->pas.ev[i].status);
	msleep(100);
	KUNIT_EXPECT_EQ(test, 2, t->act.n);	/* REPLY, CLOSE */
	KUNIT_EXPECT_EQ(test, 3, t->pas.n);	/* REQUEST, ESTABLISHED, CLOSE */
	KUNIT_EXPECT_EQ(test, IB_QPS_ERR, qf_state(test, t->qa));
}

/*
 * iw_cm passes an answer on until it has processed the ESTABLISHED that
 * follows a successful accept (iw_cm_reject() checks only that a request
 * came; destroying the cm_id rejects), so a second answer can reach us
 * after the first.  It is refused, and the connection goes on.
 */
static void cm_iw_second_answer(struct kunit *test)
{
	struct iw_test *t = iw_setup(test);
	struct iw_cm_conn_param p = { .ird = 1, .ord = 1,
				      .qpn = t->qp->qp_num };
	struct iw_cm_id *id;
	struct sw_ddp_llp *llp;

	iw_connect(test, t);
	iw_accept(test, t);
	id = t->pas.req_id;
	/* as iw_cm would pass them on before it had seen ESTABLISHED */
	KUNIT_EXPECT_EQ(test, -EINVAL, id->device->ops.iw_reject(id, NULL, 0));
	KUNIT_EXPECT_EQ(test, -EINVAL, id->device->ops.iw_accept(id, &p));
	msleep(100);
	KUNIT_EXPECT_EQ(test, IB_QPS_RTS, qf_state(test, t->qp));
	llp = to_qp(t->qp)->llp;
	KUNIT_ASSERT_NOT_NULL(test, llp);
	llp->ops->close(llp, false);
	iw_wait(test, &t->act, IW_CM_EVENT_CLOSE);
	iw_wait(test, &t->pas, IW_CM_EVENT_CLOSE);
	msleep(100);
	KUNIT_EXPECT_EQ(test, 1, iw_count(&t->act, IW_CM_EVENT_CLOSE));
	KUNIT_EXPECT_EQ(test, 1, iw_count(&t->pas, IW_CM_EVENT_CLOSE));
	KUNIT_EXPECT_EQ(test, 3, t->pas.n);	/* REQUEST, ESTABLISHED, CLOSE */
}

/* No QP by that number: iw_cm refuses before we are called. */
static void cm_iw_connect_no_qp(struct kunit *test)
{
	struct iw_test *t = iw_setup(test);
	struct iw_cm_conn_param p = { .qpn = 0xfffff };

	KUNIT_EXPECT_EQ(test, -EINVAL, iw_cm_connect(t->aid, &p));
}

/*
 * A QP that cannot take a stream (here in ERROR) fails the connect at
 * once: no connection is set up, and no peer hears of it.
 */
static void cm_iw_connect_qp_not_idle(struct kunit *test)
{
	struct iw_test *t = iw_setup(test);
	struct iw_cm_conn_param p = { .ird = 2, .ord = 2,
				      .qpn = t->qa->qp_num };

	KUNIT_ASSERT_EQ(test, 0, qf_modify_state(t->qa, IB_QPS_ERR));
	KUNIT_EXPECT_EQ(test, -EINVAL, iw_cm_connect(t->aid, &p));
	msleep(200);
	KUNIT_EXPECT_EQ(test, 0, iw_count(&t->pas,
					  IW_CM_EVENT_CONNECT_REQUEST));
	KUNIT_EXPECT_EQ(test, 0, t->act.n);
}

/*
 * rdma_ucm passes a user's QP number as it is: a user QP of another
 * process is not found for this one (pid 1 stands in for its owner), so
 * iw_cm refuses before we are called, and that QP is left as it was.
 * (iw_cm does not take a second connect on this cm_id.)
 */
static void cm_iw_connect_not_owner(struct kunit *test)
{
	struct iw_test *t = iw_setup(test);
	struct sw_ddp_qp *qp = to_qp(t->qa);
	struct iw_cm_conn_param p = { .ird = 2, .ord = 2,
				      .qpn = t->qa->qp_num };

	qp->owner = find_get_pid(1);
	KUNIT_ASSERT_NOT_NULL(test, qp->owner);
	KUNIT_EXPECT_EQ(test, -EINVAL, iw_cm_connect(t->aid, &p));
	KUNIT_EXPECT_EQ(test, IB_QPS_RESET, qf_state(test, t->qa));
	put_pid(qp->owner);
	qp->owner = NULL;	/* a kernel QP again; the e2e tests use their own */
}

/*
 * Nor is a kernel QP found for an unprivileged process: rdma_ucm would
 * let it name one by its number (credentials without CAP_NET_ADMIN stand
 * in for such a process).
 */
static void cm_iw_connect_kernel_qp_unprivileged(struct kunit *test)
{
	struct iw_test *t = iw_setup(test);
	struct iw_cm_conn_param p = { .ird = 2, .ord = 2,
				      .qpn = t->qa->qp_num };
	const struct cred *old;
	struct cred *cred = prepare_creds();
	int err;

	KUNIT_ASSERT_NOT_NULL(test, cred);
	cap_lower(cred->cap_effective, CAP_NET_ADMIN);
	old = override_creds(cred);
	err = iw_cm_connect(t->aid, &p);
	revert_creds(old);
	put_cred(cred);
	KUNIT_EXPECT_EQ(test, -EINVAL, err);
	KUNIT_EXPECT_EQ(test, IB_QPS_RESET, qf_state(test, t->qa));
}

struct iw_destroy {
	struct kunit *test;
	struct ib_qp *qp;
	struct completion done;
};

static int iw_destroy_fn(void *arg)
{
	struct iw_destroy *d = arg;

	qf_destroy_qp(d->test, d->qp);
	complete(&d->done);
	return 0;
}

/*
 * The iw_cm takes its QP reference (iw_add_ref) after iw_get_qp() has
 * returned, under its spinlock with interrupts off, as here.  A destroy
 * on another CPU in between must wait for that reference, not free the
 * QP under it.
 */
static void cm_iw_get_qp_then_destroy(struct kunit *test)
{
	struct ib_cq *cq = qf_cq(test, 4);
	struct iw_destroy d = { .test = test, .qp = qf_qp(test, cq, 4, 4) };
	const struct ib_device_ops *ops = &d.qp->device->ops;
	struct task_struct *task;
	struct ib_qp *got;
	unsigned long flags;
	bool early = false;

	if (num_online_cpus() < 2)
		kunit_skip(test, "the destroy needs a CPU of its own");
	init_completion(&d.done);
	task = kthread_create(iw_destroy_fn, &d, "sw_ddp_destroy");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));

	local_irq_save(flags);
	got = ops->iw_get_qp(d.qp->device, d.qp->qp_num);
	if (got) {
		wake_up_process(task);
		mdelay(500);
		early = completion_done(&d.done);
		ops->iw_add_ref(got);
	}
	local_irq_restore(flags);
	if (got)
		ops->iw_rem_ref(got);
	else
		wake_up_process(task);
	wait_for_completion(&d.done);
	KUNIT_EXPECT_NOT_NULL_MSG(test, got, "iw_get_qp found no QP");
	KUNIT_EXPECT_FALSE_MSG(test, early,
			       "destroyed before iw_add_ref could take hold");
}

/* Read exactly @len octets from the raw peer. */
static void iw_raw_read(struct kunit *test, struct iw_test *t, void *buf,
			size_t len)
{
	struct kvec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {};

	KUNIT_ASSERT_EQ(test, (int)len, kernel_recvmsg(t->raw, &msg, &iov, 1,
						       len, MSG_WAITALL));
}

/*
 * An initiator of our own making (t->raw) connects and sends @len octets
 * of @buf; its reads give up after @rcvtimeo.
 */
static void iw_raw_initiate(struct kunit *test, struct iw_test *t,
			    const void *buf, int len, long rcvtimeo)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = {};

	KUNIT_ASSERT_EQ(test, 0, sock_create_kern(&init_net, AF_INET,
						  SOCK_STREAM, IPPROTO_TCP,
						  &t->raw));
	t->raw->sk->sk_rcvtimeo = rcvtimeo;
	KUNIT_ASSERT_EQ(test, 0, kernel_connect(t->raw,
						(struct sockaddr *)&t->laddr,
						sizeof(t->laddr), 0));
	KUNIT_ASSERT_EQ(test, len, kernel_sendmsg(t->raw, &msg, &iov, 1, len));
}

/* The next thing the raw initiator reads must be a valid MPA Reply. */
static void iw_raw_reply(struct kunit *test, struct iw_test *t,
			 struct mpa_rr_info *rep)
{
	u8 frame[sizeof(struct mpa_rr_hdr) + MPA_PD_MAX];
	struct mpa_rr_hdr *h = (struct mpa_rr_hdr *)frame;
	struct sw_ddp_term_err err;
	u16 pd_len;

	iw_raw_read(test, t, frame, sizeof(*h));
	KUNIT_ASSERT_EQ(test, 0, memcmp(h->key, MPA_KEY_REP, MPA_KEY_LEN));
	pd_len = be16_to_cpu(h->pd_len);
	KUNIT_ASSERT_LE(test, pd_len, MPA_PD_MAX);
	iw_raw_read(test, t, frame + sizeof(*h), pd_len);
	err = mpa_rr_validate(frame, sizeof(*h) + pd_len, true, rep);
	KUNIT_ASSERT_TRUE(test, sw_ddp_term_err_ok(err));
}

/*
 * RFC 6581 peer-to-peer: an initiator (a raw socket) asks for a Write
 * RTR and never sends it.  Once the MPA timeout has passed, the responder
 * sends a Terminate carrying MPA's Local Catastrophic Error (RFC 6581 §8)
 * as its first FPDU and closes gracefully; its QP goes to ERROR with a
 * fatal event, and its iw_cm client hears ESTABLISHED -ETIMEDOUT, then
 * CLOSE, once each.
 */
static void cm_iw_rtr_timeout(struct kunit *test)
{
	struct iw_test *t = iw_setup(test);
	struct iw_cm_conn_param p = { .ird = 1, .ord = 1,
				      .qpn = t->qp->qp_num };
	const struct mpa_rr_info req = {
		.flags = MPA_FLAG_ENHANCED, .rev = MPA_REV_2,
		.ird = 1 | MPA_V2_IRD_P2P, .ord = 1 | MPA_V2_ORD_RTR_WRITE,
	};
	u8 frame[sizeof(struct mpa_rr_hdr) + MPA_PD_MAX];
	struct mpa_fpdu_cfg cfg = {};
	struct mpa_rr_info rep;
	unsigned long start;
	int len, i;

	len = mpa_rr_build(frame, sizeof(frame), &req, false);
	KUNIT_ASSERT_GT(test, len, 0);
	iw_raw_initiate(test, t, frame, len,
			3 * msecs_to_jiffies(SW_DDP_MPA_TIMEOUT_MS));
	iw_wait(test, &t->pas, IW_CM_EVENT_CONNECT_REQUEST);
	KUNIT_ASSERT_NOT_NULL(test, t->pas.req_id);
	KUNIT_ASSERT_EQ(test, 0, iw_cm_accept(t->pas.req_id, &p));
	start = jiffies;

	/* the Reply: peer-to-peer, a Write RTR */
	iw_raw_reply(test, t, &rep);
	KUNIT_EXPECT_TRUE(test, rep.ird & MPA_V2_IRD_P2P);
	KUNIT_EXPECT_TRUE(test, rep.ord & MPA_V2_ORD_RTR_WRITE);
	cfg.crc = rep.flags & MPA_FLAG_C;
	KUNIT_EXPECT_EQ(test, 0, iw_count(&t->pas, IW_CM_EVENT_ESTABLISHED));

	/* nothing until the timeout; then the Terminate, then FIN */
	raw_peer_expect_term(test, t->raw, &cfg, MPA_ERR_LOCAL_CATASTROPHIC);
	KUNIT_EXPECT_GE(test, jiffies - start,
			msecs_to_jiffies(SW_DDP_MPA_TIMEOUT_MS) - 1);

	i = iw_wait(test, &t->pas, IW_CM_EVENT_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, -ETIMEDOUT, t->pas.ev[i].status);
	iw_wait(test, &t->pas, IW_CM_EVENT_CLOSE);
	KUNIT_EXPECT_TRUE(test, qf_wait_events(test, IB_EVENT_QP_FATAL, 1));
	msleep(100);
	KUNIT_EXPECT_EQ(test, 3, t->pas.n);	/* REQUEST, ESTABLISHED, CLOSE */
	KUNIT_EXPECT_EQ(test, IB_QPS_ERR, qf_state(test, t->qp));
	KUNIT_EXPECT_NULL(test, to_qp(t->qp)->llp);
	KUNIT_EXPECT_EQ(test, 1, qf_events(test, IB_EVENT_QP_FATAL));
}

/*
 * The raw initiator's MPA v2 Request, no private data, with @ird and @ord
 * (flags included), handed up: the CONNECT_REQUEST's index.
 */
static int iw_raw_request(struct kunit *test, struct iw_test *t, u16 ird,
			  u16 ord)
{
	const struct mpa_rr_info req = {
		.flags = MPA_FLAG_ENHANCED, .rev = MPA_REV_2,
		.ird = ird, .ord = ord,
	};
	u8 frame[sizeof(struct mpa_rr_hdr) + sizeof(struct mpa_v2_conn_data)];
	int len, i;

	len = mpa_rr_build(frame, sizeof(frame), &req, false);
	KUNIT_ASSERT_GT(test, len, 0);
	iw_raw_initiate(test, t, frame, len, IW_WAIT);
	i = iw_wait(test, &t->pas, IW_CM_EVENT_CONNECT_REQUEST);
	KUNIT_ASSERT_NOT_NULL(test, t->pas.req_id);
	return i;
}

/*
 * RFC 6581 §9.1: a Request's IRD and ORD reach the ULP within what the
 * device can do, so that a ULP passing them back to accept, as rdma_cm
 * hands them up (initiator depth from IRD, responder resources from
 * ORD), is not refused.  0x3FFF, no limit, gets the device's.
 */
static void cm_iw_request_ird_ord(struct kunit *test)
{
	struct iw_test *t = iw_setup(test);
	struct iw_cm_conn_param p = { .qpn = t->qp->qp_num };
	struct mpa_rr_info rep;
	int i;

	i = iw_raw_request(test, t, MPA_V2_IRD_ORD_MASK, MPA_V2_IRD_ORD_MASK);
	KUNIT_EXPECT_EQ(test, SW_DDP_MAX_ORD, t->pas.ev[i].ird);
	KUNIT_EXPECT_EQ(test, SW_DDP_MAX_IRD, t->pas.ev[i].ord);
	p.ord = t->pas.ev[i].ird;
	p.ird = t->pas.ev[i].ord;
	KUNIT_ASSERT_EQ(test, 0, iw_cm_accept(t->pas.req_id, &p));
	/* the Reply; all ones asked for no negotiation, and get all ones */
	iw_raw_reply(test, t, &rep);
	KUNIT_EXPECT_EQ(test, MPA_V2_IRD_ORD_MASK,
			rep.ird & MPA_V2_IRD_ORD_MASK);
	KUNIT_EXPECT_EQ(test, MPA_V2_IRD_ORD_MASK,
			rep.ord & MPA_V2_IRD_ORD_MASK);
	KUNIT_EXPECT_EQ(test, SW_DDP_MAX_IRD, to_qp(t->qp)->ird);
	KUNIT_EXPECT_EQ(test, SW_DDP_MAX_ORD, to_qp(t->qp)->ord);
}

/*
 * An accept with a QP that cannot take a stream (here in ERROR) does not
 * tell the peer yes: no Reply goes, the connection is reset, and the ULP
 * gets -EINVAL.  (Accepted, the initiator would report the connection,
 * then lose it.)  cm_iw_connect_qp_not_idle is the connect's case.
 */
static void cm_iw_accept_qp_not_idle(struct kunit *test)
{
	struct iw_test *t = iw_setup(test);
	struct iw_cm_conn_param p = { .ird = 1, .ord = 1,
				      .qpn = t->qp->qp_num };
	u8 frame[sizeof(struct mpa_rr_hdr) + MPA_PD_MAX];
	int got;

	iw_raw_request(test, t, 1, 1);
	KUNIT_ASSERT_EQ(test, 0, qf_modify_state(t->qp, IB_QPS_ERR));
	KUNIT_EXPECT_EQ(test, -EINVAL, iw_cm_accept(t->pas.req_id, &p));
	KUNIT_EXPECT_EQ(test, -ECONNRESET,
			raw_peer_drain(t->raw, frame, sizeof(frame), &got));
	KUNIT_EXPECT_EQ(test, 0, got);
}

/*
 * RFC 5044 §7.1: the Reply comes before any FPDU of the responder's.  An
 * initiator (a raw socket) sends a zero-length RDMA Read Request right
 * behind its Request, before it has any Reply: the responder reads it
 * when its QP takes the stream, and may answer it there and then, but
 * its Reply is on the wire first, the Read Response after it.
 */
static void cm_iw_reply_first(struct kunit *test)
{
	struct iw_test *t = iw_setup(test);
	struct iw_cm_conn_param p = { .ird = 1, .ord = 1,
				      .qpn = t->qp->qp_num };
	const struct mpa_rr_info req = {
		.flags = MPA_FLAG_ENHANCED, .rev = MPA_REV_2,
		.ird = 1, .ord = 1,
	};
	const struct rdmap_read_req rd = { .sink_stag = 0x1234, .size = 0 };
	u8 ulpdu[DDP_UNTAGGED_HDR_LEN + RDMAP_READ_REQ_LEN];
	u8 frame[sizeof(struct mpa_rr_hdr) + MPA_PD_MAX + 64];
	struct mpa_fpdu_cfg cfg = {};
	struct sw_ddp_term_err err;
	struct mpa_rr_info rep;
	u8 resp[DDP_TAGGED_HDR_LEN];
	u16 resp_len;
	int len, n;

	len = mpa_rr_build(frame, sizeof(frame), &req, false);
	KUNIT_ASSERT_GT(test, len, 0);
	rdmap_untagged_init((struct ddp_untagged_hdr *)ulpdu,
			    RDMAP_OP_READ_REQ, true, 0, 1, 0);
	rdmap_read_req_put((struct rdmap_read_req_hdr *)
			   (ulpdu + DDP_UNTAGGED_HDR_LEN), &rd);
	n = mpa_fpdu_build(frame + len, sizeof(frame) - len, ulpdu,
			   sizeof(ulpdu), &cfg);
	KUNIT_ASSERT_GT(test, n, 0);
	iw_raw_initiate(test, t, frame, len + n, IW_WAIT);
	iw_wait(test, &t->pas, IW_CM_EVENT_CONNECT_REQUEST);
	KUNIT_ASSERT_NOT_NULL(test, t->pas.req_id);
	KUNIT_ASSERT_EQ(test, 0, iw_cm_accept(t->pas.req_id, &p));

	/* first the Reply */
	iw_raw_reply(test, t, &rep);
	KUNIT_EXPECT_FALSE(test, rep.flags & MPA_FLAG_C);

	/* then the Read Response: zero-length, to the Request's sink */
	n = mpa_fpdu_wire_len(&cfg, DDP_TAGGED_HDR_LEN);
	iw_raw_read(test, t, frame, n);
	err = mpa_fpdu_validate(frame, n, &cfg, resp, sizeof(resp), &resp_len);
	KUNIT_ASSERT_TRUE(test, sw_ddp_term_err_ok(err));
	KUNIT_ASSERT_EQ(test, DDP_TAGGED_HDR_LEN, resp_len);
	KUNIT_EXPECT_EQ(test, ddp_ctrl_make(true, true), resp[0]);
	KUNIT_EXPECT_EQ(test, rdmap_ctrl_make(RDMAP_OP_READ_RESP), resp[1]);
	KUNIT_EXPECT_EQ(test, rd.sink_stag,
			ddp_tagged_stag((struct ddp_tagged_hdr *)resp));
}

/*
 * iw_cm carries at most 255 octets of private data, RFC 5044 up to 512.
 * A Request with more is not handed up cut short: no CONNECT_REQUEST,
 * and the connection is reset.
 */
static void cm_iw_request_pdata_too_long(struct kunit *test)
{
	static const u8 pdata[U8_MAX + 1];
	const struct mpa_rr_info req = {
		.flags = MPA_FLAG_ENHANCED, .rev = MPA_REV_2, .ird = 1,
		.ord = 1, .pdata = pdata, .pdata_len = sizeof(pdata),
	};
	struct iw_test *t = iw_setup(test);
	u8 frame[sizeof(struct mpa_rr_hdr) + MPA_PD_MAX];
	int len, got;

	len = mpa_rr_build(frame, sizeof(frame), &req, false);
	KUNIT_ASSERT_GT(test, len, 0);
	iw_raw_initiate(test, t, frame, len, IW_WAIT);
	KUNIT_EXPECT_EQ(test, -ECONNRESET,
			raw_peer_drain(t->raw, frame, sizeof(frame), &got));
	KUNIT_EXPECT_EQ(test, 0, got);
	msleep(100);
	KUNIT_EXPECT_EQ(test, 0, t->pas.n);
}

/*
 * The Reply side of the same: an accepting Reply with more private data
 * than iw_cm carries fails the connect (CONNECT_REPLY -EMSGSIZE, and a
 * reset), a rejecting one reports none.  300 octets: a u8 would keep 44.
 */
static void iw_reply_pdata_too_long(struct kunit *test, u8 flags,
				    int status)
{
	static const u8 pdata[300];
	const struct mpa_rr_info rep = {
		.flags = MPA_FLAG_ENHANCED | flags, .rev = MPA_REV_2, .ird = 2,
		.ord = 2, .pdata = pdata, .pdata_len = sizeof(pdata),
	};
	struct iw_test *t = iw_setup(test);
	struct iw_cm_conn_param p = { .ird = 2, .ord = 2,
				      .qpn = t->qa->qp_num };
	struct sockaddr_in raddr = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	u8 frame[sizeof(struct mpa_rr_hdr) + MPA_PD_MAX];
	struct mpa_rr_hdr *h = (struct mpa_rr_hdr *)frame;
	struct kvec iov = { .iov_base = frame };
	struct msghdr msg = {};
	struct socket *conn;
	u16 pd_len;
	int len, i;

	/* a raw responder */
	KUNIT_ASSERT_EQ(test, 0, sock_create_kern(&init_net, AF_INET,
						  SOCK_STREAM, IPPROTO_TCP,
						  &t->raw));
	KUNIT_ASSERT_EQ(test, 0, kernel_bind(t->raw, (struct sockaddr *)&raddr,
					     sizeof(raddr)));
	KUNIT_ASSERT_EQ(test, 0, kernel_listen(t->raw, 1));
	KUNIT_ASSERT_GT(test, kernel_getsockname(t->raw,
						 (struct sockaddr *)&raddr), 0);
	memcpy(&t->aid->remote_addr, &raddr, sizeof(raddr));
	KUNIT_ASSERT_EQ(test, 0, iw_cm_connect(t->aid, &p));
	KUNIT_ASSERT_EQ(test, 0, kernel_accept(t->raw, &conn, 0));
	conn->sk->sk_rcvtimeo = IW_WAIT;

	/* the Request, whole; then the Reply */
	iov.iov_len = sizeof(*h);
	len = kernel_recvmsg(conn, &msg, &iov, 1, sizeof(*h), MSG_WAITALL);
	KUNIT_EXPECT_EQ(test, (int)sizeof(*h), len);
	pd_len = be16_to_cpu(h->pd_len);
	KUNIT_ASSERT_LE(test, pd_len, MPA_PD_MAX);
	iov.iov_len = pd_len;
	len = kernel_recvmsg(conn, &msg, &iov, 1, pd_len, MSG_WAITALL);
	KUNIT_EXPECT_EQ(test, (int)pd_len, len);
	len = mpa_rr_build(frame, sizeof(frame), &rep, true);
	KUNIT_ASSERT_GT(test, len, 0);
	iov.iov_len = len;
	KUNIT_EXPECT_EQ(test, len, kernel_sendmsg(conn, &msg, &iov, 1, len));

	i = iw_wait(test, &t->act, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, status, t->act.ev[i].status);
	KUNIT_EXPECT_EQ(test, 0, t->act.ev[i].pdata_len);
	msleep(100);
	KUNIT_EXPECT_EQ(test, 1, t->act.n);
	KUNIT_EXPECT_NULL(test, to_qp(t->qa)->llp);
	sock_release(conn);
}

static void cm_iw_accept_pdata_too_long(struct kunit *test)
{
	iw_reply_pdata_too_long(test, 0, -EMSGSIZE);
}

static void cm_iw_reject_pdata_too_long(struct kunit *test)
{
	iw_reply_pdata_too_long(test, MPA_FLAG_R, -ECONNREFUSED);
}

static struct kunit_case cm_iw_test_cases[] = {
	KUNIT_CASE(cm_iw_connect_close),
	KUNIT_CASE(cm_iw_reject),
	KUNIT_CASE(cm_iw_accept_fails),
	KUNIT_CASE(cm_iw_listener_destroyed),
	KUNIT_CASE(cm_iw_peer_reset),
	KUNIT_CASE(cm_iw_connect_no_qp),
	KUNIT_CASE(cm_iw_connect_qp_not_idle),
	KUNIT_CASE(cm_iw_accept_qp_not_idle),
	KUNIT_CASE(cm_iw_connect_not_owner),
	KUNIT_CASE(cm_iw_connect_kernel_qp_unprivileged),
	KUNIT_CASE(cm_iw_get_qp_then_destroy),
	KUNIT_CASE(cm_iw_second_answer),
	KUNIT_CASE(cm_iw_reply_first),
	KUNIT_CASE(cm_iw_reply_refused),
	KUNIT_CASE(cm_iw_request_ird_ord),
	KUNIT_CASE(cm_iw_request_pdata_too_long),
	KUNIT_CASE(cm_iw_accept_pdata_too_long),
	KUNIT_CASE(cm_iw_reject_pdata_too_long),
	KUNIT_CASE_SLOW(cm_iw_rtr_timeout),
	{}
};

static struct kunit_suite cm_iw_test_suite = {
	.name = "sw_ddp_cm_iw",
	.init = qf_init,
	.exit = cm_iw_exit,
	.test_cases = cm_iw_test_cases,
};

kunit_test_suites(&cm_iw_test_suite);
