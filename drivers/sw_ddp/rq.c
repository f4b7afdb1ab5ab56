// SPDX-License-Identifier: GPL-2.0
/*
 * sw_ddp receive queues: posting, the engine's view, and flushing.
 *
 * An RQ (and an SRQ, srq.c) is an array of struct siw_rqe.  libsiw writes
 * a user QP's RQEs straight into the mapped ring and sets SIW_WQE_VALID
 * last; there is no doorbell.  Kernel QPs post through sw_ddp_post_recv()
 * into the same layout.  The engine takes RQEs in order with
 * sw_ddp_rq_get(), from the RQ or the QP's SRQ, which copies each RQE and
 * frees its slot at once: the taken RQE is the engine's until it hands it
 * back with sw_ddp_rq_complete().  The RQ remembers it (held), so that a
 * flush completes it before the ring's, in posting order (ib_drain_rq()
 * relies on its marker completing last), and the engine's completion,
 * coming later, is dropped.
 *
 * Locking: rq->lock (IRQ-safe) covers the ring cursors; flush CQEs are
 * added under it (cq->lock nests inside), and completion handlers are
 * called after it is dropped.  A flush drops it every SW_DDP_FLUSH_BATCH
 * RQEs.
 */
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>

#include "qp.h"
#include "srq.h"
#include "umap.h"

static struct siw_rqe *rq_slot(struct sw_ddp_rq *rq, u32 idx)
{
	return &rq->ring[idx & (rq->num - 1)];
}

/* @num is 0 for a QP with an SRQ: no ring, and a key libsiw ignores. */
int sw_ddp_rq_init(struct sw_ddp_qp *qp, u32 num, struct ib_ucontext *uctx,
		   u64 *key)
{
	struct sw_ddp_rq *rq = &qp->rq;
	size_t size = num * sizeof(struct siw_rqe);
	int err;

	spin_lock_init(&rq->lock);
	rq->num = num;
	*key = 0;
	if (!num)
		return 0;

	rq->ring = sw_ddp_ring_alloc(size, !!uctx);
	if (!rq->ring)
		return -ENOMEM;
	if (uctx) {
		err = sw_ddp_ring_publish(uctx, rq->ring, size, &rq->umap, key);
		if (err) {
			vfree(rq->ring);
			rq->ring = NULL;
			return err;
		}
	}
	return 0;
}

void sw_ddp_rq_fini(struct sw_ddp_qp *qp)
{
	sw_ddp_ring_free(qp->rq.ring, qp->rq.umap);
}

/* Post a kernel consumer's receive WR into a free slot, the flag last. */
int sw_ddp_rqe_fill(struct siw_rqe *slot, const struct ib_recv_wr *wr)
{
	int i;

	if (wr->num_sge < 0 || wr->num_sge > SW_DDP_MAX_SGE)
		return -EINVAL;

	slot->id = wr->wr_id;
	slot->num_sge = wr->num_sge;
	slot->opcode = SIW_OP_RECEIVE;
	slot->unused = 0;
	for (i = 0; i < wr->num_sge; i++) {
		slot->sge[i].laddr = wr->sg_list[i].addr;
		slot->sge[i].length = wr->sg_list[i].length;
		slot->sge[i].lkey = wr->sg_list[i].lkey;
	}
	/* the slot is not valid yet: nothing is posted */
	if (!sw_ddp_sge_len_ok(slot->sge, wr->num_sge))
		return -EINVAL;
	/* The RQE is complete before it is valid to the taker. */
	smp_store_release(&slot->flags, SIW_WQE_VALID);
	return 0;
}

/*
 * Take the RQE in @slot: copy it, free the slot, then check the copy.
 * -ENOENT if none is posted there; -EINVAL if the RQE is malformed (libsiw
 * sets the valid flag and nothing else); either way @rqe->id is its wr_id.
 */
int sw_ddp_rqe_take(struct siw_rqe *slot, struct siw_rqe *rqe)
{
	/* Valid first, then the RQE its poster wrote before setting it. */
	u16 flags = smp_load_acquire(&slot->flags);

	if (!(flags & SIW_WQE_VALID))
		return -ENOENT;

	memcpy(rqe, slot, sizeof(*rqe));
	/* Copied before the poster may reuse the slot. */
	smp_store_release(&slot->flags, 0);
	rqe->flags = flags;
	rqe->opcode = SIW_OP_RECEIVE;
	if (flags != SIW_WQE_VALID || rqe->num_sge > SIW_MAX_SGE ||
	    !sw_ddp_sge_len_ok(rqe->sge, rqe->num_sge))
		return -EINVAL;
	return 0;
}

static void rq_wc(struct sw_ddp_qp *qp, u64 wr_id, enum ib_wc_status status,
		  struct sw_ddp_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->qp = &qp->base;
	wc->opcode = SIW_OP_RECEIVE;
	wc->status = status;
}

/*
 * Flush the RQE the engine holds, then up to @budget posted ones.  A user
 * can keep setting valid flags: @taken counts those taken since the flush
 * began, one pass over the ring at most.  Returns true if it stopped at
 * @budget.
 */
static bool rq_flush_some_locked(struct sw_ddp_qp *qp, bool *notify,
				 u32 budget, u32 *taken)
{
	struct sw_ddp_rq *rq = &qp->rq;
	struct sw_ddp_wc wc;
	struct siw_rqe rqe;

	if (rq->held) {
		rq->held = false;
		rq_wc(qp, rq->held_id, IB_WC_WR_FLUSH_ERR, &wc);
		sw_ddp_cq_add(qp_rcq(qp), &wc, notify);
	}
	for (; budget; budget--) {
		if (!rq->ring || *taken == rq->num ||
		    sw_ddp_rqe_take(rq_slot(rq, rq->get), &rqe) == -ENOENT)
			return false;
		(*taken)++;
		rq->get++;
		rq_wc(qp, rqe.id, IB_WC_WR_FLUSH_ERR, &wc);
		sw_ddp_cq_add(qp_rcq(qp), &wc, notify);
	}
	return true;
}

static void rq_flush_locked(struct sw_ddp_qp *qp, bool *notify)
{
	u32 taken = 0;

	rq_flush_some_locked(qp, notify, U32_MAX, &taken);
}

/**
 * sw_ddp_rq_flush() - complete the RQ's RQEs with a flush error
 * @qp: the QP, in ERROR
 *
 * An SRQ is not flushed, other QPs share it; only the RQE this QP took
 * from it.  In batches (sw_ddp_wq_flush()).  Process context.
 */
void sw_ddp_rq_flush(struct sw_ddp_qp *qp)
{
	sw_ddp_wq_flush(qp, &qp->rq.lock, qp_rcq(qp), rq_flush_some_locked);
}

static int rq_post_locked(struct sw_ddp_qp *qp, const struct ib_recv_wr **wr)
{
	struct sw_ddp_rq *rq = &qp->rq;
	int err;

	for (; *wr; *wr = (*wr)->next) {
		if (rq->put - rq->get == rq->num)
			return -ENOMEM;
		err = sw_ddp_rqe_fill(rq_slot(rq, rq->put), *wr);
		if (err)
			return err;
		rq->put++;
	}
	return 0;
}

/*
 * In ERROR: flush what the ring holds, then each WR (ib_drain_rq()); one
 * the CQ cannot take is refused, as for sends (sq.c).
 */
static int rq_post_flush_locked(struct sw_ddp_qp *qp,
				const struct ib_recv_wr **wr, bool *notify)
{
	struct sw_ddp_wc wc;

	rq_flush_locked(qp, notify);
	for (; *wr; *wr = (*wr)->next) {
		if ((*wr)->num_sge < 0 || (*wr)->num_sge > SW_DDP_MAX_SGE)
			return -EINVAL;
		rq_wc(qp, (*wr)->wr_id, IB_WC_WR_FLUSH_ERR, &wc);
		if (sw_ddp_cq_add(qp_rcq(qp), &wc, notify))
			return -ENOMEM;
	}
	return 0;
}

/*
 * ops.post_recv, for kernel QPs without an SRQ.  IDLE and RTS queue, ERROR
 * flushes, CLOSING and TERMINATE refuse, as for sends.
 */
int sw_ddp_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr)
{
	struct sw_ddp_qp *qp = to_qp(ibqp);
	bool notify = false;
	unsigned long flags;
	int err;

	if (qp->user || !qp->rq.ring) {
		*bad_wr = wr;	/* the user ring, or the SRQ */
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->rq.lock, flags);
	switch (READ_ONCE(qp->state)) {
	case SW_DDP_QPS_IDLE:
	case SW_DDP_QPS_RTS:
		err = rq_post_locked(qp, &wr);
		break;
	case SW_DDP_QPS_ERROR:
		err = rq_post_flush_locked(qp, &wr, &notify);
		break;
	default:
		err = -ENOTCONN;
		break;
	}
	spin_unlock_irqrestore(&qp->rq.lock, flags);

	if (notify)
		sw_ddp_cq_notify(qp_rcq(qp));
	if (err)
		*bad_wr = wr;
	return err;
}

/**
 * sw_ddp_rq_get() - take the next RQE for an arriving untagged message
 * @qp: the QP
 * @rqe: the RQE, copied and checked; the caller owns it and must complete
 *	it with sw_ddp_rq_complete(), on error too (IB_WC_WR_FLUSH_ERR if
 *	the QP goes to ERROR first)
 *
 * Any context.  From the QP's SRQ if it has one, which may raise
 * IB_EVENT_SRQ_LIMIT_REACHED.
 *
 * Return: 0; -ENOENT if no RQE is posted; -EINVAL if it was malformed: it
 * completes with IB_WC_LOC_QP_OP_ERR, and the caller (DDP) fails the QP,
 * its Terminate first.
 */
int sw_ddp_rq_get(struct sw_ddp_qp *qp, struct siw_rqe *rqe)
{
	struct sw_ddp_rq *rq = &qp->rq;
	bool notify = false;
	struct sw_ddp_wc wc;
	unsigned long flags;
	int err;

	if (READ_ONCE(qp->state) == SW_DDP_QPS_ERROR)
		return -ENOENT;		/* flushed, or about to be */

	if (qp->base.srq) {
		/* not under rq->lock: the SRQ's limit event is raised */
		err = sw_ddp_srq_get(to_srq(qp->base.srq), rqe);
		spin_lock_irqsave(&rq->lock, flags);
	} else {
		spin_lock_irqsave(&rq->lock, flags);
		err = sw_ddp_rqe_take(rq_slot(rq, rq->get), rqe);
		if (err != -ENOENT)
			rq->get++;
	}
	if (!err && READ_ONCE(qp->state) == SW_DDP_QPS_ERROR) {
		/* the flush ran meanwhile: this one goes after it */
		rq_wc(qp, rqe->id, IB_WC_WR_FLUSH_ERR, &wc);
		sw_ddp_cq_add(qp_rcq(qp), &wc, &notify);
		err = -ENOENT;
	} else if (!err) {
		rq->held = true;
		rq->held_id = rqe->id;
	} else if (err == -EINVAL) {
		/* in the section that took it: no flush's CQE goes first */
		rq_wc(qp, rqe->id, IB_WC_LOC_QP_OP_ERR, &wc);
		sw_ddp_cq_add(qp_rcq(qp), &wc, &notify);
	}
	spin_unlock_irqrestore(&rq->lock, flags);
	if (notify)
		sw_ddp_cq_notify(qp_rcq(qp));
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_rq_get);

/**
 * sw_ddp_rq_complete() - complete an RQE taken with sw_ddp_rq_get()
 * @qp: the QP
 * @wc: wr_id, status, bytes, and for a Send with the Solicited Event bit
 *	or with Invalidate, solicited or inval and inval_stag; qp and opcode
 *	are filled in here
 *
 * Any context, no QP lock held.  Completions go out in the order of the
 * calls: the engine makes that the order of the messages (RFC 5041 §5.4).
 *
 * Return: 0; -ECANCELED if the RQE was flushed meanwhile (the QP went to
 * ERROR); -EOVERFLOW if the receive CQ overflowed.  Then the caller fails
 * the QP: the engine fails the stream, its Terminate first (Local
 * Catastrophic, unless one is recorded already); with sw_ddp_qp_fatal()
 * where none can go (the stream's teardown).
 */
int sw_ddp_rq_complete(struct sw_ddp_qp *qp, struct sw_ddp_wc *wc)
{
	struct sw_ddp_rq *rq = &qp->rq;
	bool notify = false;
	unsigned long flags;
	int err = 0;

	wc->qp = &qp->base;
	wc->opcode = SIW_OP_RECEIVE;
	spin_lock_irqsave(&rq->lock, flags);
	if (!rq->held)
		err = -ECANCELED;
	else if (sw_ddp_cq_add(qp_rcq(qp), wc, &notify))
		err = -EOVERFLOW;
	rq->held = false;
	spin_unlock_irqrestore(&rq->lock, flags);

	if (notify)
		sw_ddp_cq_notify(qp_rcq(qp));
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_rq_complete);
