// SPDX-License-Identifier: GPL-2.0
/*
 * sw_ddp queue pairs: creation, the iWARP verbs state machine, lifetime.
 *
 * iWARP is connection oriented: every QP is RC.  Its states are the
 * iWARP verbs' IDLE, RTS, CLOSING, TERMINATE and ERROR; ib_modify_qp()
 * speaks IB, whose states map onto them: RESET and INIT are IDLE, RTR and
 * RTS are RTS, SQD is CLOSING, SQE is TERMINATE, ERR is ERROR.  Queried,
 * IDLE is RESET until the consumer moves the QP to INIT, as in IB.  A QP
 * enters RTS only with a connection, which the connection manager (cm.c,
 * to come) attaches as its LLP endpoint; a consumer's move to RTS without
 * one fails with -ENOTCONN.  Entering ERROR flushes the SQ and RQ: every
 * outstanding WQE completes with IB_WC_WR_FLUSH_ERR, in order, and once
 * ib_modify_qp() has returned no received byte is placed any more.
 *
 * A QP is referenced by its QPN table entry (dropped at destroy), by the
 * iw_cm (iw_add_ref/iw_rem_ref), by the engine while it works on it, and
 * by a pending fatal-error work item.  Destroy waits for them all before
 * ib_core frees the QP.
 *
 * Locks: state_mutex serializes state changes (process context).  The
 * state itself is read locklessly: posting paths read it under their work
 * queue lock, and a state change to ERROR is written before the flush
 * takes that lock, so a WR is either flushed by the flush or sees ERROR
 * and flushes itself after the ring.
 */
#include <linux/capability.h>
#include <linux/log2.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <kunit/visibility.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "llp.h"
#include "qp.h"
#include "stream.h"
#include "umap.h"

#define SW_DDP_QPN_MAX	((1U << 24) - 1)	/* as IB's, for tools */

/* IB attributes with no meaning for iWARP, accepted and ignored. */
#define QP_IB_ONLY	(IB_QP_PKEY_INDEX | IB_QP_QKEY | IB_QP_AV | \
			 IB_QP_PATH_MTU | IB_QP_TIMEOUT | IB_QP_RETRY_CNT | \
			 IB_QP_RNR_RETRY | IB_QP_RQ_PSN | IB_QP_SQ_PSN | \
			 IB_QP_MIN_RNR_TIMER | IB_QP_DEST_QPN | \
			 IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE | \
			 IB_QP_EN_SQD_ASYNC_NOTIFY)

static const enum sw_ddp_qp_state iw_state[IB_QPS_ERR + 1] = {
	[IB_QPS_RESET] = SW_DDP_QPS_IDLE,
	[IB_QPS_INIT] = SW_DDP_QPS_IDLE,
	/* rdma_cm moves a QP to RTR before it connects: still IDLE */
	[IB_QPS_RTR] = SW_DDP_QPS_IDLE,
	[IB_QPS_RTS] = SW_DDP_QPS_RTS,
	[IB_QPS_SQD] = SW_DDP_QPS_CLOSING,
	[IB_QPS_SQE] = SW_DDP_QPS_TERMINATE,
	[IB_QPS_ERR] = SW_DDP_QPS_ERROR,
};

static const enum ib_qp_state ib_state[] = {
	[SW_DDP_QPS_IDLE] = IB_QPS_INIT,	/* or RESET: qp->ib_idle */
	[SW_DDP_QPS_RTS] = IB_QPS_RTS,
	[SW_DDP_QPS_CLOSING] = IB_QPS_SQD,
	[SW_DDP_QPS_TERMINATE] = IB_QPS_SQE,
	[SW_DDP_QPS_ERROR] = IB_QPS_ERR,
};

/* The queue counters and the QPN table of a new device (main.c). */
void sw_ddp_queues_init(struct sw_ddp_dev *sdev)
{
	/*
	 * libsiw's SQ doorbell is the legacy write() command POST_SEND,
	 * which ib_core leaves disabled unless the driver asks for it.
	 */
	sdev->ibdev.uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND);
	atomic_set(&sdev->num_qp, 0);
	atomic_set(&sdev->num_cq, 0);
	atomic_set(&sdev->num_srq, 0);
	atomic_set(&sdev->cq_ids, 0);
	xa_init_flags(&sdev->qp_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	sdev->qp_next = 1;
}

void sw_ddp_queues_fini(struct sw_ddp_dev *sdev)
{
	WARN_ON(!xa_empty(&sdev->qp_xa));
	xa_destroy(&sdev->qp_xa);
}

static void qp_released(struct kref *ref)
{
	complete(&container_of(ref, struct sw_ddp_qp, ref)->released);
}

void sw_ddp_qp_get(struct sw_ddp_qp *qp)
{
	kref_get(&qp->ref);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_qp_get);

void sw_ddp_qp_put(struct sw_ddp_qp *qp)
{
	kref_put(&qp->ref, qp_released);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_qp_put);

static void qp_event(struct sw_ddp_qp *qp, enum ib_event_type type)
{
	struct ib_event event = {
		.device = qp->base.device,
		.element.qp = &qp->base,
		.event = type,
	};

	/* A QP being destroyed reports nothing more. */
	if (!qp->destroying && qp->base.event_handler)
		qp->base.event_handler(&event, qp->base.qp_context);
}

/**
 * sw_ddp_wq_flush() - flush a work queue in batches
 * @qp: the QP, in ERROR
 * @lock: the work queue's lock (IRQ-safe)
 * @cq: its CQ
 * @some: one batch: completes up to its budget of WQEs under @lock, and
 *	returns true if there may be more; @taken is its count across
 *	batches, zero at first
 *
 * A user QP's rings hold up to SW_DDP_MAX_QP_WR WQEs, all of which its
 * process may have marked valid: between batches the lock is dropped,
 * the completion handler called if due, and the CPU offered.  Process
 * context.
 */
void sw_ddp_wq_flush(struct sw_ddp_qp *qp, spinlock_t *lock,
		     struct sw_ddp_cq *cq, sw_ddp_flush_fn some)
{
	unsigned long flags;
	bool notify, more;
	u32 taken = 0;

	might_sleep();
	do {
		notify = false;
		spin_lock_irqsave(lock, flags);
		more = some(qp, &notify, SW_DDP_FLUSH_BATCH, &taken);
		spin_unlock_irqrestore(lock, flags);
		if (notify)
			sw_ddp_cq_notify(cq);
		if (more)
			cond_resched();
	} while (more);
}

/* Apply a state change that qp_check_state() allowed. */
static void qp_set_state(struct sw_ddp_qp *qp, enum sw_ddp_qp_state to)
{
	enum sw_ddp_qp_state from = qp->state;

	lockdep_assert_held(&qp->state_mutex);
	WRITE_ONCE(qp->state, to);
	/*
	 * Leaving RTS ends the LLP stream: gracefully to CLOSING (a
	 * disconnect) or TERMINATE (after a Terminate message), abortively
	 * when the consumer moves the QP straight to ERROR.
	 */
	if (qp->llp && from == SW_DDP_QPS_RTS && to != from)
		qp->llp->ops->close(qp->llp, to == SW_DDP_QPS_ERROR);
	/*
	 * The stream may still deliver until the LLP has closed: a segment
	 * DDP is placing on another CPU ends first, and later ones see
	 * ERROR, so nothing lands in a buffer once its WQE is flushed.
	 */
	if (qp->llp && to == SW_DDP_QPS_ERROR && from != to &&
	    qp->llp->ops->rx_sync)
		qp->llp->ops->rx_sync(qp->llp);
	if (to == SW_DDP_QPS_ERROR || from == SW_DDP_QPS_ERROR) {
		/* ERROR to IDLE: first what user space posted meanwhile. */
		sw_ddp_sq_flush(qp);
		sw_ddp_rq_flush(qp);
	}
	/*
	 * A reset ends the QP's last connection, and with it any failure
	 * of that connection still on its way to qp_fatal_work().
	 */
	if (from == SW_DDP_QPS_ERROR && to == SW_DDP_QPS_IDLE) {
		WRITE_ONCE(qp->epoch, qp->epoch + 1);
		WRITE_ONCE(qp->fatal_owed, false);
		qp->fatal_reported = false;
	}
	/* IB: no more of the SRQ's WQEs will complete on this QP. */
	if (to == SW_DDP_QPS_ERROR && from != to && qp->base.srq)
		qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}

/*
 * The state changes a consumer may ask for.  ERROR is always allowed.
 * IDLE is left for RTS by the connection manager with a connection, and
 * re-entered from ERROR once the LLP stream has closed (-EBUSY before:
 * the old connection could still deliver into WQEs posted for a new
 * one).  CLOSING (a graceful close) is entered from RTS;
 * TERMINATE only by the engine, on a Terminate message.  Leaving RTS also
 * involves the LLP: the connection manager's part (cm.c, to come).
 */
static int qp_check_state(struct sw_ddp_qp *qp, enum sw_ddp_qp_state to)
{
	enum sw_ddp_qp_state from = qp->state;

	if (to == from || to == SW_DDP_QPS_ERROR)
		return 0;
	switch (to) {
	case SW_DDP_QPS_IDLE:
		if (from != SW_DDP_QPS_ERROR)
			return -EINVAL;
		return qp->llp ? -EBUSY : 0;
	case SW_DDP_QPS_RTS:
		if (from != SW_DDP_QPS_IDLE)
			return -EINVAL;
		return qp->llp ? 0 : -ENOTCONN;
	case SW_DDP_QPS_CLOSING:
		return from == SW_DDP_QPS_RTS ? 0 : -EINVAL;
	default:
		return -EINVAL;
	}
}

/* Check all of a modify before any of it is applied. */
static int qp_check_modify(struct sw_ddp_qp *qp, const struct ib_qp_attr *attr,
			   int mask)
{
	if (mask & ~(IB_QP_STATE | IB_QP_CUR_STATE | IB_QP_ACCESS_FLAGS |
		     IB_QP_PORT | IB_QP_MAX_QP_RD_ATOMIC |
		     IB_QP_MAX_DEST_RD_ATOMIC | QP_IB_ONLY))
		return -EOPNOTSUPP;	/* IB_QP_CAP: no resizing */

	if ((mask & IB_QP_CUR_STATE) &&
	    (attr->cur_qp_state > IB_QPS_ERR ||
	     iw_state[attr->cur_qp_state] != qp->state))
		return -EINVAL;
	if ((mask & IB_QP_PORT) && attr->port_num != SW_DDP_PORT)
		return -EINVAL;
	/* ORD and IRD are set while IDLE, before MPA negotiates them */
	if ((mask & (IB_QP_MAX_QP_RD_ATOMIC | IB_QP_MAX_DEST_RD_ATOMIC)) &&
	    qp->state != SW_DDP_QPS_IDLE)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SW_DDP_MAX_ORD)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SW_DDP_MAX_IRD)
		return -EINVAL;
	if (!(mask & IB_QP_STATE))
		return 0;
	if (attr->qp_state > IB_QPS_ERR)
		return -EINVAL;
	return qp_check_state(qp, iw_state[attr->qp_state]);
}

static void qp_apply_modify(struct sw_ddp_qp *qp, const struct ib_qp_attr *attr,
			    int mask)
{
	/*
	 * Kept and reported, not enforced: an STag's rights decide (see
	 * Documentation/design.rst, "QP access flags").  rdma_cm gives an
	 * active-side user QP on iWARP no remote rights at all.
	 */
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags &
			     (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE);
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->ord = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->ird = attr->max_dest_rd_atomic;
	if (!(mask & IB_QP_STATE))
		return;
	/* IB consumers see the IDLE they asked for, RESET or INIT. */
	if (iw_state[attr->qp_state] == SW_DDP_QPS_IDLE)
		qp->ib_idle = attr->qp_state;
	qp_set_state(qp, iw_state[attr->qp_state]);
}

/* A modify, all of it or nothing, under state_mutex. */
VISIBLE_IF_KUNIT int sw_ddp_qp_modify_locked(struct sw_ddp_qp *qp,
					     struct ib_qp_attr *attr, int mask)
{
	int err;

	lockdep_assert_held(&qp->state_mutex);
	err = qp_check_modify(qp, attr, mask);
	if (!err)
		qp_apply_modify(qp, attr, mask);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_qp_modify_locked);

int sw_ddp_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		     struct ib_udata *udata)
{
	struct sw_ddp_qp *qp = to_qp(ibqp);
	int err;

	mutex_lock(&qp->state_mutex);
	err = sw_ddp_qp_modify_locked(qp, attr, mask);
	mutex_unlock(&qp->state_mutex);
	return err;
}

static void qp_fatal_work(struct work_struct *work)
{
	struct sw_ddp_qp *qp = container_of(work, struct sw_ddp_qp, fatal_work);

	mutex_lock(&qp->state_mutex);
	/* Failed before a reset: that connection is gone, this one is not. */
	if (READ_ONCE(qp->fatal_epoch) != qp->epoch)
		goto out;
	if (qp->state != SW_DDP_QPS_ERROR) {
		qp_set_state(qp, SW_DDP_QPS_ERROR);
		WRITE_ONCE(qp->fatal_owed, true);
	}
	/*
	 * Once per connection: a caller that saw the QP short of ERROR may
	 * set fatal_owed again after an earlier run of this work reported.
	 */
	if (READ_ONCE(qp->fatal_owed)) {
		WRITE_ONCE(qp->fatal_owed, false);
		if (!qp->fatal_reported)
			qp_event(qp, IB_EVENT_QP_FATAL);
		qp->fatal_reported = true;
	}
out:
	mutex_unlock(&qp->state_mutex);
	sw_ddp_qp_put(qp);
}

/*
 * The engine sent or received a Terminate (any context but softirq): the
 * QP is in TERMINATE, its stream closing, until the ERROR that follows.
 */
void sw_ddp_qp_terminate(struct sw_ddp_qp *qp)
{
	mutex_lock(&qp->state_mutex);
	if (qp->state == SW_DDP_QPS_RTS)
		qp_set_state(qp, SW_DDP_QPS_TERMINATE);
	/*
	 * Owed from here, in the same section: a consumer's move to ERROR
	 * right after it would otherwise leave sw_ddp_qp_fatal() nothing
	 * short of ERROR to see.
	 */
	if (qp->state != SW_DDP_QPS_ERROR) {
		WRITE_ONCE(qp->fatal_owed, true);
		WRITE_ONCE(qp->fatal_epoch, qp->epoch);
	}
	mutex_unlock(&qp->state_mutex);
	sw_ddp_qp_fatal(qp);
}

/*
 * Move a QP to ERROR from any context, reporting IB_EVENT_QP_FATAL once
 * per connection: its stream failed, a completion was lost to a full CQ,
 * or a WQE was malformed.  A QP already in ERROR reports nothing more, so
 * a caller that cannot tell may call this anyway.  The caller holds a
 * reference or a verbs call on @qp.
 */
void sw_ddp_qp_fatal(struct sw_ddp_qp *qp)
{
	/*
	 * A QP that failed before it reached ERROR owes the event even if
	 * something else takes it there before this work runs.  Over SCTP
	 * the session the engine just ended with its Terminate may detach
	 * the QP first (RFC 5043 §6.2: our Terminate follows RDMAP's).
	 * The epoch ties the failure to this connection: a consumer that
	 * resets the QP before the work runs has a new one, which this
	 * failure must not end.
	 */
	if (READ_ONCE(qp->state) != SW_DDP_QPS_ERROR)
		WRITE_ONCE(qp->fatal_owed, true);
	WRITE_ONCE(qp->fatal_epoch, READ_ONCE(qp->epoch));
	sw_ddp_qp_get(qp);
	if (!queue_work(system_wq, &qp->fatal_work))
		sw_ddp_qp_put(qp);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_qp_fatal);

/*
 * Flush the SQ of a QP still in ERROR, outside a state change (the flush
 * work, a user's doorbell).  Under state_mutex: the flush drops the SQ's
 * lock between batches, and a QP reset and connected again meanwhile
 * must not see its new SQEs flushed.  Process context.
 */
void sw_ddp_qp_flush_sq(struct sw_ddp_qp *qp)
{
	mutex_lock(&qp->state_mutex);
	if (qp->state == SW_DDP_QPS_ERROR)
		sw_ddp_sq_flush(qp);
	mutex_unlock(&qp->state_mutex);
}

static void qp_flush_work(struct work_struct *work)
{
	struct sw_ddp_qp *qp = container_of(work, struct sw_ddp_qp, flush_work);

	sw_ddp_qp_flush_sq(qp);
	sw_ddp_qp_put(qp);
}

/*
 * Flush a user QP's SQ again, from a work item: the SQE the engine was
 * sending when the QP went to ERROR has completed, and libsiw rang no
 * doorbell for what it posted behind it meanwhile (the slot before was
 * still valid).  Any context; the caller holds a reference or a verbs
 * call on @qp.
 */
void sw_ddp_qp_flush_later(struct sw_ddp_qp *qp)
{
	sw_ddp_qp_get(qp);
	if (!queue_work(system_wq, &qp->flush_work))
		sw_ddp_qp_put(qp);
}

/* IDLE, no stream, not being destroyed: what sw_ddp_qp_llp_attach() takes. */
static bool qp_llp_ready_locked(struct sw_ddp_qp *qp)
{
	lockdep_assert_held(&qp->state_mutex);
	return !qp->destroying && !qp->llp && qp->state == SW_DDP_QPS_IDLE;
}

/**
 * sw_ddp_qp_llp_ready() - could @qp take a stream now?
 * @qp: the QP
 *
 * Asked before a connection is set up or a Reply goes, so that a QP
 * that cannot take the stream fails the connect or the accept at once
 * instead of after the peer has been told yes.  A QP that changes state
 * in between still fails sw_ddp_qp_llp_attach(), and the stream is reset.
 */
bool sw_ddp_qp_llp_ready(struct sw_ddp_qp *qp)
{
	bool ready;

	mutex_lock(&qp->state_mutex);
	ready = qp_llp_ready_locked(qp);
	mutex_unlock(&qp->state_mutex);
	return ready;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_qp_llp_ready);

/**
 * sw_ddp_qp_llp_attach() - give an IDLE QP its established LLP stream
 * @qp: the QP
 * @llp: the stream, connected (for TCP, MPA negotiation done)
 * @ird: negotiated RDMA Read resources we serve (RFC 6581)
 * @ord: negotiated RDMA Reads we may issue
 *
 * The connection manager calls this before the responder's last
 * connection message goes out and before the initiator reports the
 * connection, so nothing the peer sends is missed: the QP goes to RTS and
 * its data path starts on @llp.
 *
 * Return: 0; -EINVAL if @qp is not IDLE, has a stream or is being
 * destroyed; or the LLP's error starting, with the QP back in ERROR.
 */
int sw_ddp_qp_llp_attach(struct sw_ddp_qp *qp, struct sw_ddp_llp *llp,
			 u16 ird, u16 ord)
{
	int err;

	mutex_lock(&qp->state_mutex);
	if (!qp_llp_ready_locked(qp)) {
		mutex_unlock(&qp->state_mutex);
		return -EINVAL;
	}
	llp->qp = qp;
	qp->llp = llp;
	qp->ird = min_t(u16, ird, SW_DDP_MAX_IRD);
	qp->ord = min_t(u16, ord, SW_DDP_MAX_ORD);
	WRITE_ONCE(qp->state, SW_DDP_QPS_RTS);
	mutex_unlock(&qp->state_mutex);

	err = sw_ddp_stream_start(qp, llp);
	if (err)
		sw_ddp_qp_llp_detach(qp);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_qp_llp_attach);

/**
 * sw_ddp_qp_llp_detach() - the QP's LLP stream has closed
 * @qp: the QP
 *
 * Stops the data path (WQEs the engine held complete as flushed), then
 * moves a QP still in RTS, CLOSING or TERMINATE to ERROR.
 */
void sw_ddp_qp_llp_detach(struct sw_ddp_qp *qp)
{
	/* Not under state_mutex: the engine's work takes it as it ends. */
	if (qp->llp)
		sw_ddp_stream_stop(qp);

	mutex_lock(&qp->state_mutex);
	if (qp->llp)
		qp->llp->qp = NULL;
	qp->llp = NULL;
	if (qp->state == SW_DDP_QPS_RTS || qp->state == SW_DDP_QPS_CLOSING ||
	    qp->state == SW_DDP_QPS_TERMINATE)
		qp_set_state(qp, SW_DDP_QPS_ERROR);
	mutex_unlock(&qp->state_mutex);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_qp_llp_detach);

static int qp_check_create(const struct ib_qp_init_attr *attr,
			   struct ib_udata *udata)
{
	const struct ib_qp_cap *cap = &attr->cap;

	if (attr->qp_type != IB_QPT_RC || attr->create_flags)
		return -EOPNOTSUPP;
	if (!attr->send_cq || !attr->recv_cq)
		return -EINVAL;
	if (!cap->max_send_wr || cap->max_send_wr > SW_DDP_MAX_QP_WR ||
	    cap->max_recv_wr > SW_DDP_MAX_QP_WR ||
	    cap->max_send_sge > SW_DDP_MAX_SGE ||
	    cap->max_recv_sge > SW_DDP_MAX_SGE ||
	    cap->max_inline_data > SW_DDP_MAX_INLINE)
		return -EINVAL;
	if (attr->sq_sig_type != IB_SIGNAL_ALL_WR &&
	    attr->sq_sig_type != IB_SIGNAL_REQ_WR)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(struct siw_uresp_create_qp))
		return -EINVAL;
	return 0;
}

static void qp_init(struct sw_ddp_qp *qp, const struct ib_qp_init_attr *attr,
		    struct ib_udata *udata)
{
	kref_init(&qp->ref);
	init_completion(&qp->released);
	INIT_WORK(&qp->fatal_work, qp_fatal_work);
	INIT_WORK(&qp->flush_work, qp_flush_work);
	mutex_init(&qp->state_mutex);
	qp->state = SW_DDP_QPS_IDLE;
	qp->ib_idle = IB_QPS_RESET;
	qp->user = !!udata;
	if (udata)
		qp->owner = get_pid(task_tgid(current));
	qp->sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
}

/* What the QP can do, which may be more than was asked for. */
static void qp_report_caps(const struct sw_ddp_qp *qp, struct ib_qp_cap *cap)
{
	cap->max_send_wr = qp->sq.num;
	cap->max_recv_wr = qp->rq.num;
	cap->max_send_sge = SW_DDP_MAX_SGE;
	cap->max_recv_sge = qp->rq.num ? SW_DDP_MAX_SGE : 0;
	cap->max_inline_data = SW_DDP_MAX_INLINE;
}

/* The rings; a QP without an SRQ gets an RQ even if it asked for none. */
static int qp_alloc_queues(struct sw_ddp_qp *qp,
			   const struct ib_qp_init_attr *attr,
			   struct ib_udata *udata,
			   struct siw_uresp_create_qp *uresp)
{
	struct ib_ucontext *uctx = NULL;
	u32 num_rqe = 0;
	int err;

	if (udata)
		uctx = &rdma_udata_to_drv_context(udata, struct sw_ddp_ucontext,
						  base)->base;
	if (!attr->srq)
		num_rqe = roundup_pow_of_two(max(attr->cap.max_recv_wr, 1U));

	err = sw_ddp_sq_init(qp, roundup_pow_of_two(attr->cap.max_send_wr),
			     uctx, &uresp->sq_key);
	if (err)
		return err;
	err = sw_ddp_rq_init(qp, num_rqe, uctx, &uresp->rq_key);
	if (err)
		sw_ddp_sq_fini(qp);
	return err;
}

static void qp_free_queues(struct sw_ddp_qp *qp)
{
	sw_ddp_rq_fini(qp);
	sw_ddp_sq_fini(qp);
}

/* Reserve a QPN; the QP becomes visible to lookups in qp_publish(). */
static int qp_alloc_qpn(struct sw_ddp_dev *sdev, struct sw_ddp_qp *qp)
{
	int err;

	err = xa_alloc_cyclic_irq(&sdev->qp_xa, &qp->base.qp_num, NULL,
				  XA_LIMIT(1, SW_DDP_QPN_MAX), &sdev->qp_next,
				  GFP_KERNEL);
	return err < 0 ? err : 0;
}

static int qp_publish(struct sw_ddp_dev *sdev, struct sw_ddp_qp *qp)
{
	return xa_err(xa_store_irq(&sdev->qp_xa, qp->base.qp_num, qp,
				   GFP_KERNEL));
}

static int qp_respond(struct sw_ddp_qp *qp, struct ib_udata *udata,
		      struct siw_uresp_create_qp *uresp)
{
	uresp->qp_id = qp->base.qp_num;
	uresp->num_sqe = qp->sq.num;
	uresp->num_rqe = qp->rq.num;
	return ib_copy_to_udata(udata, uresp, sizeof(*uresp));
}

int sw_ddp_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		     struct ib_udata *udata)
{
	struct sw_ddp_dev *sdev = to_sdev(ibqp->device);
	struct siw_uresp_create_qp uresp = {};
	struct sw_ddp_qp *qp = to_qp(ibqp);
	int err;

	err = qp_check_create(attr, udata);
	if (err)
		return err;
	if (atomic_inc_return(&sdev->num_qp) > SW_DDP_MAX_QP) {
		err = -ENOMEM;
		goto err_count;
	}

	qp_init(qp, attr, udata);
	err = qp_alloc_queues(qp, attr, udata, &uresp);
	if (err)
		goto err_count;
	err = qp_alloc_qpn(sdev, qp);
	if (err)
		goto err_queues;
	if (udata) {
		err = qp_respond(qp, udata, &uresp);
		if (err)
			goto err_qpn;
	}
	err = qp_publish(sdev, qp);
	if (err)
		goto err_qpn;
	qp_report_caps(qp, &attr->cap);
	return 0;

err_qpn:
	xa_erase_irq(&sdev->qp_xa, ibqp->qp_num);
err_queues:
	qp_free_queues(qp);
err_count:
	put_pid(qp->owner);
	atomic_dec(&sdev->num_qp);
	return err;
}

/*
 * Outstanding WQEs are flushed into the CQs.  A kernel QP's CQEs, those
 * and any not yet polled, then leave its CQs with it
 * (sw_ddp_cq_forget_qp()); a user QP's stay, naming it by number.
 */
int sw_ddp_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sw_ddp_dev *sdev = to_sdev(ibqp->device);
	struct sw_ddp_qp *qp = to_qp(ibqp);

	xa_erase_irq(&sdev->qp_xa, ibqp->qp_num);
	/*
	 * The iw_cm takes its reference after iw_get_qp() has returned, in
	 * the same section under its spinlock, interrupts off: an RCU
	 * read-side section.  A grace period lets every caller that found
	 * the QP before it left the table hold its reference before ours
	 * goes; the wait below then waits for it too.
	 */
	if (READ_ONCE(qp->iw_named))
		synchronize_rcu();

	mutex_lock(&qp->state_mutex);
	qp->destroying = true;
	qp_set_state(qp, SW_DDP_QPS_ERROR);
	mutex_unlock(&qp->state_mutex);

	sw_ddp_qp_put(qp);
	wait_for_completion(&qp->released);

	sw_ddp_cq_forget_qp(qp_scq(qp), ibqp);
	sw_ddp_cq_forget_qp(qp_rcq(qp), ibqp);
	qp_free_queues(qp);
	put_pid(qp->owner);
	mutex_destroy(&qp->state_mutex);
	atomic_dec(&sdev->num_qp);
	return 0;
}

int sw_ddp_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_qp_init_attr *init_attr)
{
	struct sw_ddp_qp *qp = to_qp(ibqp);
	struct net_device *netdev = to_sdev(ibqp->device)->netdev;

	memset(attr, 0, sizeof(*attr));
	memset(init_attr, 0, sizeof(*init_attr));

	mutex_lock(&qp->state_mutex);
	attr->qp_state = qp->state == SW_DDP_QPS_IDLE ? qp->ib_idle :
							ib_state[qp->state];
	mutex_unlock(&qp->state_mutex);
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = ib_mtu_int_to_enum(READ_ONCE(netdev->mtu));
	attr->qp_access_flags = qp->access;
	attr->max_rd_atomic = qp->ord;
	attr->max_dest_rd_atomic = qp->ird;
	attr->port_num = SW_DDP_PORT;
	qp_report_caps(qp, &attr->cap);

	init_attr->qp_type = IB_QPT_RC;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	init_attr->cap = attr->cap;
	init_attr->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR :
					       IB_SIGNAL_REQ_WR;
	return 0;
}

/* iw_cm glue: a QP's lifetime as the iw_cm sees it. */
void sw_ddp_iw_add_ref(struct ib_qp *ibqp)
{
	sw_ddp_qp_get(to_qp(ibqp));
}

void sw_ddp_iw_rem_ref(struct ib_qp *ibqp)
{
	sw_ddp_qp_put(to_qp(ibqp));
}

/*
 * iw_cm asks from its caller's context (iw_cm_connect(), iw_cm_accept()),
 * with a QP number rdma_ucm takes from user space as it is.  A user QP is
 * found only for its own process, so one cannot put its connection on
 * another's QP (its queues, its PD's memory).  A kernel QP is found only
 * for a caller with CAP_NET_ADMIN: the kernel's own threads have it, and
 * so do the processes kernel consumers connect from (nvme-cli, mount,
 * iscsid); an unprivileged process cannot take one over through rdma_ucm.
 */
static bool iw_may_name(const struct sw_ddp_qp *qp)
{
	if (qp->owner)
		return qp->owner == task_tgid(current);
	return ns_capable_noaudit(&init_user_ns, CAP_NET_ADMIN);
}

/* The QP numbered @qpn if the caller may name it; the table's lock held. */
static struct sw_ddp_qp *qp_find_named(struct sw_ddp_dev *sdev, u32 qpn)
{
	struct sw_ddp_qp *qp = xa_load(&sdev->qp_xa, qpn);

	return qp && iw_may_name(qp) ? qp : NULL;
}

/*
 * Called under the iw_cm's spinlock, interrupts off; it then takes its
 * own reference with iw_add_ref() (sw_ddp_destroy_qp() says how that is
 * kept safe from a destroy in between).
 */
struct ib_qp *sw_ddp_iw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct sw_ddp_dev *sdev = to_sdev(ibdev);
	struct sw_ddp_qp *qp;
	unsigned long flags;

	xa_lock_irqsave(&sdev->qp_xa, flags);
	qp = qp_find_named(sdev, qpn);
	if (qp)
		WRITE_ONCE(qp->iw_named, true);
	xa_unlock_irqrestore(&sdev->qp_xa, flags);
	return qp ? &qp->base : NULL;
}

/**
 * sw_ddp_qp_get_named() - the QP a connection is for, referenced
 * @sdev: the device
 * @qpn: the number the caller gave
 *
 * iw_cm gives the connection manager the QP's number again (iw_connect,
 * iw_accept), from the same caller's context, after sw_ddp_iw_get_qp()
 * found it: the number is looked up again by the same rule, so one
 * reused in between (a destroy and 2^24 creations) is not taken either.
 * The table's reference lives as long as the entry, so one can be taken
 * under the table's lock.
 *
 * Return: the QP, referenced, or NULL.
 */
struct sw_ddp_qp *sw_ddp_qp_get_named(struct sw_ddp_dev *sdev, u32 qpn)
{
	struct sw_ddp_qp *qp;
	unsigned long flags;

	xa_lock_irqsave(&sdev->qp_xa, flags);
	qp = qp_find_named(sdev, qpn);
	if (qp)
		sw_ddp_qp_get(qp);
	xa_unlock_irqrestore(&sdev->qp_xa, flags);
	return qp;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_qp_get_named);
