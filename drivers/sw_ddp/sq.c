// SPDX-License-Identifier: GPL-2.0
/*
 * sw_ddp send queues: posting, the engine's view, and flushing.
 *
 * The SQ is an array of struct siw_sqe.  libsiw writes a user QP's SQEs
 * straight into the mapped ring, sets SIW_WQE_VALID last, and rings the
 * doorbell (a post_send with no work requests) only when the slot before
 * the first SQE it wrote is free, that is, when the SQ looked idle.  So an
 * SQE keeps its slot, valid, until it completes, and whoever frees a slot
 * must then look at the next one: the engine's loop does, and a Read's
 * completion, which comes with its response, calls sw_ddp_sq_pending().
 * Kernel QPs post through sw_ddp_post_send() into the same ring layout.
 *
 * The engine takes SQEs in order with sw_ddp_sq_next(), which copies each
 * SQE before checking it (user SQEs are hostile and may change under us),
 * and reports each outcome with sw_ddp_sq_complete(), in any order.  SQEs
 * complete, and free their slots, in posting order, as the verbs require.
 * The SQE taken last is busy until the engine completes or releases it
 * (a Read once its Request is out, an SQE that must wait): the engine may
 * be reading its buffers, so a flush marks it and leaves its completion,
 * and with it every later one, to the engine.  A consumer that drains the
 * QP and frees its buffers then frees none the engine still sends from.
 * In ERROR the engine takes no SQE: what a user posts behind a busy one,
 * ringing no doorbell, is flushed once that one completes.
 *
 * Locking: sq->lock (IRQ-safe) covers the ring cursors and the taken
 * records (next is also read without it, by sq_idle()); CQEs are added
 * under it (cq->lock nests inside), and completion handlers are called
 * after it is dropped.  A flush drops it every SW_DDP_FLUSH_BATCH SQEs.
 */
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>

#include "mem.h"
#include "qp.h"
#include "umap.h"

#define SQE_FLAGS	(SIW_WQE_VALID | SIW_WQE_INLINE | SIW_WQE_SIGNALLED | \
			 SIW_WQE_SOLICITED | SIW_WQE_READ_FENCE)

static struct siw_sqe *sq_slot(struct sw_ddp_sq *sq, u32 idx)
{
	return &sq->ring[idx & (sq->num - 1)];
}

static struct sw_ddp_swqe *sq_taken(struct sw_ddp_sq *sq, u32 idx)
{
	return &sq->taken[idx & (sq->num - 1)];
}

int sw_ddp_sq_init(struct sw_ddp_qp *qp, u32 num, struct ib_ucontext *uctx,
		   u64 *key)
{
	struct sw_ddp_sq *sq = &qp->sq;
	size_t size = num * sizeof(struct siw_sqe);
	int err;

	spin_lock_init(&sq->lock);
	sq->num = num;
	/* a user's QP charges its cgroup for this too, as for its rings */
	sq->taken = kvcalloc(num, sizeof(*sq->taken),
			     uctx ? GFP_KERNEL_ACCOUNT : GFP_KERNEL);
	if (!sq->taken)
		return -ENOMEM;
	sq->ring = sw_ddp_ring_alloc(size, !!uctx);
	if (!sq->ring) {
		err = -ENOMEM;
		goto err_taken;
	}
	if (uctx) {
		err = sw_ddp_ring_publish(uctx, sq->ring, size, &sq->umap, key);
		if (err)
			goto err_ring;
	}
	return 0;

err_ring:
	vfree(sq->ring);
	sq->ring = NULL;
err_taken:
	kvfree(sq->taken);
	sq->taken = NULL;
	return err;
}

void sw_ddp_sq_fini(struct sw_ddp_qp *qp)
{
	sw_ddp_ring_free(qp->sq.ring, qp->sq.umap);
	kvfree(qp->sq.taken);
}

static bool sqe_opcode_ok(u8 opcode, bool user)
{
	switch (opcode) {
	case SIW_OP_WRITE:
	case SIW_OP_READ:
	case SIW_OP_READ_LOCAL_INV:
	case SIW_OP_SEND:
	case SIW_OP_SEND_REMOTE_INV:
		return true;
	case SIW_OP_INVAL_STAG:
	case SIW_OP_REG_MR:
		/* Kernel only: base_mr is a kernel pointer. */
		return !user;
	default:
		return false;
	}
}

/* Inline data is a payload: Sends (with Invalidate too) and Writes. */
static bool sqe_inline_ok(u8 opcode)
{
	return opcode == SIW_OP_SEND || opcode == SIW_OP_SEND_REMOTE_INV ||
	       opcode == SIW_OP_WRITE;
}

/* Check an SQE the kernel has copied; a user QP's SQEs are hostile. */
static int sqe_check(const struct siw_sqe *sqe, bool user)
{
	if ((sqe->flags & ~SQE_FLAGS) || !sqe_opcode_ok(sqe->opcode, user))
		return -EINVAL;
	if (sqe->flags & SIW_WQE_INLINE)
		return sqe_inline_ok(sqe->opcode) &&
		       sqe->sge[0].length <= SIW_MAX_INLINE ? 0 : -EINVAL;
	if (sqe->opcode == SIW_OP_REG_MR || sqe->opcode == SIW_OP_INVAL_STAG)
		return sqe->num_sge ? -EINVAL : 0;
	if (sqe->num_sge > SIW_MAX_SGE ||
	    !sw_ddp_sge_len_ok(sqe->sge, sqe->num_sge))
		return -EINVAL;
	/* A Read Request names one Data Sink (RFC 5040 §4.4). */
	if (sw_ddp_sqe_is_read(sqe) && sqe->num_sge != 1)
		return -EINVAL;
	return 0;
}

static int sqe_opcode_from_wr(enum ib_wr_opcode opcode)
{
	switch (opcode) {
	case IB_WR_RDMA_WRITE:
		return SIW_OP_WRITE;
	case IB_WR_RDMA_READ:
		return SIW_OP_READ;
	case IB_WR_RDMA_READ_WITH_INV:
		return SIW_OP_READ_LOCAL_INV;
	case IB_WR_SEND:
		return SIW_OP_SEND;
	case IB_WR_SEND_WITH_INV:
		return SIW_OP_SEND_REMOTE_INV;
	case IB_WR_LOCAL_INV:
		return SIW_OP_INVAL_STAG;
	case IB_WR_REG_MR:
		return SIW_OP_REG_MR;
	default:
		return -EINVAL;	/* no immediate data or atomics in iWARP */
	}
}

/* Inline data goes into the SQE from sge[1] on, sge[0] says how much. */
static int sqe_copy_inline(struct siw_sqe *sqe, const struct ib_send_wr *wr)
{
	char *data = (char *)&sqe->sge[1];
	u32 bytes = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		u32 len = wr->sg_list[i].length;

		if (len > SIW_MAX_INLINE - bytes)
			return -EINVAL;
		/* ib_uses_virt_dma(): addresses are kernel virtual */
		memcpy(data + bytes, (void *)(uintptr_t)wr->sg_list[i].addr,
		       len);
		bytes += len;
	}
	sqe->sge[0].laddr = 0;
	sqe->sge[0].length = bytes;
	sqe->sge[0].lkey = 0;
	sqe->num_sge = 1;
	return 0;
}

static void sqe_copy_sgl(struct siw_sqe *sqe, const struct ib_send_wr *wr)
{
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		sqe->sge[i].laddr = wr->sg_list[i].addr;
		sqe->sge[i].length = wr->sg_list[i].length;
		sqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	sqe->num_sge = wr->num_sge;
}

static void sqe_copy_target(struct siw_sqe *sqe, const struct ib_send_wr *wr)
{
	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		sqe->raddr = rdma_wr(wr)->remote_addr;
		sqe->rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		sqe->rkey = wr->ex.invalidate_rkey;
		break;
	case IB_WR_REG_MR:
		sqe->base_mr = (uintptr_t)reg_wr(wr)->mr;
		sqe->rkey = reg_wr(wr)->key;
		sqe->access = reg_wr(wr)->access;
		break;
	default:
		break;
	}
}

static u16 sqe_flags_from_wr(const struct ib_send_wr *wr, bool sig_all)
{
	u16 flags = SIW_WQE_VALID;

	if (sig_all || (wr->send_flags & IB_SEND_SIGNALED))
		flags |= SIW_WQE_SIGNALLED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		flags |= SIW_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		flags |= SIW_WQE_READ_FENCE;
	if (wr->send_flags & IB_SEND_INLINE)
		flags |= SIW_WQE_INLINE;
	return flags;
}

/*
 * A kernel consumer's send WR as an SQE: what can be refused at post is
 * (-EINVAL; -EACCES, -EOPNOTSUPP for a registration), not when it runs.
 */
static int sqe_from_wr(struct sw_ddp_qp *qp, struct siw_sqe *sqe,
		       const struct ib_send_wr *wr)
{
	int opcode = sqe_opcode_from_wr(wr->opcode);
	int err = 0;

	if (opcode < 0 || wr->num_sge < 0 || wr->num_sge > SW_DDP_MAX_SGE)
		return -EINVAL;
	/*
	 * A Read with Local Invalidate invalidates its Data Sink's STag
	 * once the data is there (siw's rule too).  rdma_rw, which posts one
	 * for every Read on iWARP, names that MR but with the key it had
	 * before it re-registered it: the index must match, not the key.
	 */
	if (wr->opcode == IB_WR_RDMA_READ_WITH_INV &&
	    (wr->num_sge != 1 ||
	     sw_ddp_stag_index(wr->ex.invalidate_rkey) !=
	     sw_ddp_stag_index(wr->sg_list[0].lkey)))
		return -EINVAL;
	if (wr->opcode == IB_WR_REG_MR) {
		err = sw_ddp_mem_fast_reg_check(qp->base.pd, reg_wr(wr));
		if (err)
			return err;
	}

	memset(sqe, 0, sizeof(*sqe));
	sqe->id = wr->wr_id;
	sqe->opcode = opcode;
	sqe->flags = sqe_flags_from_wr(wr, qp->sig_all);
	sqe_copy_target(sqe, wr);
	/* copy no inline data for another */
	if ((sqe->flags & SIW_WQE_INLINE) && !sqe_inline_ok(opcode))
		return -EINVAL;
	if (sqe->flags & SIW_WQE_INLINE)
		err = sqe_copy_inline(sqe, wr);
	else if (opcode != SIW_OP_REG_MR)	/* sge[] holds its access */
		sqe_copy_sgl(sqe, wr);
	return err ?: sqe_check(sqe, false);
}

/* Fill a free slot and make it valid, the flag last. */
static void sqe_publish(struct siw_sqe *slot, const struct siw_sqe *sqe)
{
	u16 flags = sqe->flags;

	memcpy(slot, sqe, sizeof(*slot));
	slot->flags = 0;
	/* The SQE is complete before it is valid to the taker. */
	smp_store_release(&slot->flags, flags);
}

static void sq_flush_wc(struct sw_ddp_qp *qp, u64 id, u8 opcode,
			struct sw_ddp_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = id;
	wc->qp = &qp->base;
	/* A hostile opcode must not reach libsiw's opcode table. */
	wc->opcode = opcode < SIW_NUM_OPCODES ? opcode : SIW_OP_SEND;
	wc->status = IB_WC_WR_FLUSH_ERR;
}

/*
 * Complete the done SQE at the head, if there is one, and free its slot.
 * A successful unsignalled SQE completes without a CQE; a failed one
 * always has one.  Returns -EAGAIN if the head is not done (or there is
 * none), -EOVERFLOW if its CQE was lost.
 */
static int sq_retire_one_locked(struct sw_ddp_qp *qp, bool *notify)
{
	struct sw_ddp_sq *sq = &qp->sq;
	struct sw_ddp_swqe *t = sq_taken(sq, sq->get);
	struct sw_ddp_wc wc;

	if (sq->get == sq->next || !t->done)
		return -EAGAIN;
	/*
	 * The slot is free before its completion is visible: a consumer that
	 * sees the CQE may post into the slot at once (libsiw fails a post
	 * to a slot still marked valid).  A full barrier: libsiw also tests
	 * this flag for its doorbell.
	 */
	smp_store_mb(sq_slot(sq, sq->get)->flags, 0);
	sq->get++;
	if (t->status == IB_WC_SUCCESS && !(t->flags & SIW_WQE_SIGNALLED))
		return 0;
	sq_flush_wc(qp, t->id, t->opcode, &wc);
	wc.status = t->status;
	wc.bytes = t->bytes;
	return sw_ddp_cq_add(qp_scq(qp), &wc, notify);
}

/*
 * Complete the done SQEs at the head, in posting order.  Returns
 * -EOVERFLOW if a CQE was lost.
 */
static int sq_retire_locked(struct sw_ddp_qp *qp, bool *notify)
{
	int err = 0, ret;

	while ((ret = sq_retire_one_locked(qp, notify)) != -EAGAIN)
		if (ret)
			err = ret;
	return err;
}

/*
 * Nothing at next, looked at without the lock, so that the engine's last
 * look of each run, after its last SQE, costs no lock round trip.  A slot
 * becomes valid with its SQE in place (sqe_publish(), or libsiw) before
 * the doorbell or kick that runs the engine again, so an SQE posted after
 * this look is taken by that run, as after a look under the lock.  A
 * valid slot, even a taken one (a full ring), goes to sq_take_locked()
 * for the exact answer.  next moves under the lock (takes, a flush): a
 * stale one sends us to the lock, or finds an idle slot of a queue that
 * a flush is emptying.
 */
static bool sq_idle(struct sw_ddp_sq *sq)
{
	u32 next = READ_ONCE(sq->next);

	return !(READ_ONCE(sq_slot(sq, next)->flags) & SIW_WQE_VALID);
}

/*
 * Take the SQE at next: copy it into @sqe, then check the copy; its
 * taken record keeps what its completion needs.  -ENOENT if none is
 * posted; -EINVAL if it is malformed, when it is taken and done with
 * IB_WC_LOC_QP_OP_ERR.
 */
static int sq_take_locked(struct sw_ddp_qp *qp, struct siw_sqe *sqe,
			  u32 *seq)
{
	struct sw_ddp_sq *sq = &qp->sq;
	struct siw_sqe *slot = sq_slot(sq, sq->next);
	struct sw_ddp_swqe *t = sq_taken(sq, sq->next);
	u16 flags;

	if (sq->next - sq->get == sq->num ||
	    (!qp->user && sq->next == sq->put))
		return -ENOENT;
	/* Valid first, then the SQE libsiw wrote before setting it. */
	flags = smp_load_acquire(&slot->flags);
	if (!(flags & SIW_WQE_VALID))
		return -ENOENT;

	memcpy(sqe, slot, sizeof(*sqe));
	sqe->flags = flags;
	t->id = sqe->id;
	t->flags = flags;
	t->opcode = sqe->opcode;
	t->bytes = 0;
	t->status = IB_WC_SUCCESS;
	t->done = false;
	t->flushed = false;
	*seq = sq->next;
	WRITE_ONCE(sq->next, *seq + 1);	/* sq_idle() reads it unlocked */

	if (sqe_check(sqe, qp->user)) {
		t->status = IB_WC_LOC_QP_OP_ERR;
		t->done = true;
		return -EINVAL;
	}
	if (sqe->flags & SIW_WQE_INLINE)
		sqe->num_sge = 1;
	return 0;
}

/*
 * Flushing (QP in ERROR) goes in two steps: the taken SQEs are marked
 * first, as they are older, then each is completed, and those never taken
 * are taken and completed, in posting order.  The busy one, whose buffers
 * the engine may still be reading, is the engine's to complete, and with
 * it every later one.
 */
static void sq_flush_mark_locked(struct sw_ddp_sq *sq)
{
	u32 idx;

	for (idx = sq->get; idx != sq->next; idx++) {
		struct sw_ddp_swqe *t = sq_taken(sq, idx);

		if (t->done)
			continue;
		if (sq->busy && idx == sq->busy_seq) {
			t->flushed = true;	/* the engine completes it */
			continue;
		}
		t->status = IB_WC_WR_FLUSH_ERR;
		t->done = true;
	}
}

/*
 * Up to @budget steps of a flush, each completing one done SQE or taking
 * one and completing it (unless the busy one still holds it up).  A user
 * can keep setting valid flags: @taken counts those taken since the flush
 * began, one pass over the ring at most.  Returns true if it stopped at
 * @budget.
 */
static bool sq_flush_some_locked(struct sw_ddp_qp *qp, bool *notify,
				 u32 budget, u32 *taken)
{
	struct sw_ddp_sq *sq = &qp->sq;
	struct siw_sqe sqe;
	u32 seq;

	for (; budget; budget--) {
		if (sq_retire_one_locked(qp, notify) != -EAGAIN)
			continue;
		if (*taken == sq->num ||
		    sq_take_locked(qp, &sqe, &seq) == -ENOENT)
			return false;
		(*taken)++;
		/* a malformed one too: it is flushed, not failed */
		sq_taken(sq, seq)->status = IB_WC_WR_FLUSH_ERR;
		sq_taken(sq, seq)->done = true;
		sq_retire_one_locked(qp, notify);
	}
	return true;
}

/* The whole flush at once, for a kernel consumer's post in ERROR. */
static void sq_flush_locked(struct sw_ddp_qp *qp, bool *notify)
{
	u32 taken = 0;

	sq_flush_mark_locked(&qp->sq);
	sq_flush_some_locked(qp, notify, U32_MAX, &taken);
}

/**
 * sw_ddp_sq_flush() - complete the SQ's SQEs with a flush error
 * @qp: the QP, in ERROR
 *
 * The taken ones are marked, then all complete in batches
 * (sw_ddp_wq_flush()): a user QP's process can mark its whole ring valid
 * before each doorbell.  Process context.
 */
void sw_ddp_sq_flush(struct sw_ddp_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->sq.lock, flags);
	sq_flush_mark_locked(&qp->sq);
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	sw_ddp_wq_flush(qp, &qp->sq.lock, qp_scq(qp), sq_flush_some_locked);
}

static int sq_post_locked(struct sw_ddp_qp *qp, const struct ib_send_wr **wr)
{
	struct sw_ddp_sq *sq = &qp->sq;
	struct siw_sqe sqe;
	int err;

	for (; *wr; *wr = (*wr)->next) {
		if (sq->put - sq->get == sq->num)
			return -ENOMEM;
		err = sqe_from_wr(qp, &sqe, *wr);
		if (err)
			return err;
		sqe_publish(sq_slot(sq, sq->put), &sqe);
		sq->put++;
	}
	return 0;
}

/*
 * Posting to a QP in ERROR completes each WR with a flush error right away
 * (ib_drain_sq() relies on it), after what the ring still holds.  A WR
 * whose completion the CQ cannot take (it overflowed) is not posted: the
 * caller hears -ENOMEM, not a completion that never comes.
 */
static int sq_post_flush_locked(struct sw_ddp_qp *qp,
				const struct ib_send_wr **wr, bool *notify)
{
	struct sw_ddp_wc wc;
	struct siw_sqe sqe;
	int err;

	sq_flush_locked(qp, notify);
	if (qp->sq.get != qp->sq.next) {
		/* The engine still sends one: these complete after it. */
		err = sq_post_locked(qp, wr);
		sq_flush_locked(qp, notify);
		return err;
	}
	for (; *wr; *wr = (*wr)->next) {
		err = sqe_from_wr(qp, &sqe, *wr);
		if (err)
			return err;
		sq_flush_wc(qp, sqe.id, sqe.opcode, &wc);
		if (sw_ddp_cq_add(qp_scq(qp), &wc, notify))
			return -ENOMEM;
	}
	return 0;
}

/*
 * libsiw's doorbell, in the poster's system call.  SQEs of a QP in IDLE
 * wait for RTS; in RTS the engine runs, here if it can (stream.c).
 */
static int sq_doorbell(struct sw_ddp_qp *qp)
{
	switch (READ_ONCE(qp->state)) {
	case SW_DDP_QPS_ERROR:
		sw_ddp_qp_flush_sq(qp);
		return 0;
	case SW_DDP_QPS_IDLE:
		return 0;
	case SW_DDP_QPS_RTS:
		sw_ddp_qp_doorbell(qp);
		return 0;
	default:
		return -ENOTCONN;
	}
}

/*
 * ops.post_send.  A QP in IDLE or RTS queues the WRs, one in ERROR flushes
 * them, and one in CLOSING or TERMINATE refuses them.
 */
int sw_ddp_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr)
{
	const struct ib_send_wr *first = wr;
	struct sw_ddp_qp *qp = to_qp(ibqp);
	bool notify = false;
	unsigned long flags;
	int err;

	if (qp->user) {
		if (!wr)
			return sq_doorbell(qp);
		*bad_wr = wr;		/* user SQEs come through the ring */
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->sq.lock, flags);
	switch (READ_ONCE(qp->state)) {
	case SW_DDP_QPS_IDLE:
	case SW_DDP_QPS_RTS:
		err = sq_post_locked(qp, &wr);
		break;
	case SW_DDP_QPS_ERROR:
		err = sq_post_flush_locked(qp, &wr, &notify);
		break;
	default:
		err = -ENOTCONN;
		break;
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);

	if (notify)
		sw_ddp_cq_notify(qp_scq(qp));
	if (err)
		*bad_wr = wr;
	/* those before a refused WR are posted, and go (as siw's) */
	if (wr != first && READ_ONCE(qp->state) == SW_DDP_QPS_RTS)
		sw_ddp_qp_kick(qp);
	return err;
}

/* Is the SQE at @seq taken and not yet retired? */
static bool sq_outstanding(const struct sw_ddp_sq *sq, u32 seq)
{
	return seq - sq->get < sq->next - sq->get;
}

/*
 * After a completion, outside sq->lock: the handler.  With the SQE a
 * flush left to the engine (@refill) done, what a user posted behind it
 * since is flushed too.
 */
static void sq_completed(struct sw_ddp_qp *qp, bool notify, bool refill)
{
	if (notify)
		sw_ddp_cq_notify(qp_scq(qp));
	if (refill && qp->user)
		sw_ddp_qp_flush_later(qp);
}

/**
 * sw_ddp_sq_next() - take the next SQE to transmit
 * @qp: the QP
 * @sqe: the SQE, checked, copied out of the ring; inline data is in
 *	@sqe->sge[1] on, @sqe->sge[0].length bytes of it.  Not to be used
 *	after an error.
 * @seq: its sequence number, for sw_ddp_sq_complete()
 *
 * Any context.  SQEs are taken in posting order; a taken SQE keeps its
 * slot until it completes, and is busy until the engine completes or
 * releases it (sw_ddp_sq_release()).
 *
 * Return: 0; -ENOENT if no SQE is waiting, or the QP is closing or in
 * ERROR (the flush in ERROR takes them); -EINVAL if the SQE was
 * malformed: it completes with IB_WC_LOC_QP_OP_ERR, and the caller (the
 * engine) fails the QP, its Terminate first.
 */
int sw_ddp_sq_next(struct sw_ddp_qp *qp, struct siw_sqe *sqe, u32 *seq)
{
	enum sw_ddp_qp_state state;
	bool notify = false;
	unsigned long flags;
	int err;

	if (sq_idle(&qp->sq))
		return -ENOENT;
	spin_lock_irqsave(&qp->sq.lock, flags);
	/*
	 * In ERROR an SQE is flushed, not sent.  The state changes before
	 * the flush takes this lock: the flush marks an SQE taken before
	 * it, and we leave one posted after it to the next flush.  A QP
	 * closing (CLOSING, TERMINATE) starts nothing new either: the LLP
	 * would cut it short, and ERROR follows.
	 */
	state = READ_ONCE(qp->state);
	if (state == SW_DDP_QPS_ERROR || state == SW_DDP_QPS_CLOSING ||
	    state == SW_DDP_QPS_TERMINATE)
		err = -ENOENT;
	else
		err = sq_take_locked(qp, sqe, seq);
	if (!err) {
		qp->sq.busy = true;
		qp->sq.busy_seq = *seq;
	} else if (err == -EINVAL) {
		sq_retire_locked(qp, &notify);
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);

	if (notify)
		sw_ddp_cq_notify(qp_scq(qp));
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sq_next);

/**
 * sw_ddp_sq_complete() - an SQE taken with sw_ddp_sq_next() has ended
 * @qp: the QP
 * @seq: the SQE's sequence number
 * @bytes: bytes transferred
 * @status: its outcome
 *
 * Any context.  The SQE and those after it that ended already complete
 * now, in order, unless one before it is still outstanding.  A failed
 * status does not change the QP's state: the engine does that, after its
 * Terminate message (RFC 5040, "Terminate Header").
 *
 * Return: 0; -ECANCELED if the SQE was flushed meanwhile (the QP went to
 * ERROR; a busy one completes now, flushed); -EOVERFLOW if the send CQ
 * overflowed.  Then the caller fails the QP: the engine with its
 * Terminate first (Local Catastrophic); with sw_ddp_qp_fatal() where none
 * can go (the stream's teardown) or none is owed (the QP is in ERROR).
 */
int sw_ddp_sq_complete(struct sw_ddp_qp *qp, u32 seq, u32 bytes,
		       enum ib_wc_status status)
{
	struct sw_ddp_sq *sq = &qp->sq;
	bool notify = false, refill = false;
	unsigned long flags;
	int err;

	spin_lock_irqsave(&sq->lock, flags);
	if (sq->busy && sq->busy_seq == seq)
		sq->busy = false;
	if (!sq_outstanding(sq, seq)) {
		err = -ECANCELED;
	} else {
		struct sw_ddp_swqe *t = sq_taken(sq, seq);

		t->bytes = bytes;
		t->status = t->flushed ? IB_WC_WR_FLUSH_ERR : status;
		t->done = true;
		refill = t->flushed;
		err = sq_retire_locked(qp, &notify);
	}
	spin_unlock_irqrestore(&sq->lock, flags);

	sq_completed(qp, notify, refill);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sq_complete);

/**
 * sw_ddp_sq_release() - the engine reads no more of a busy SQE's buffers
 * @qp: the QP
 * @seq: the SQE's sequence number
 *
 * A Read whose Request went out (it completes with its Response), or an
 * SQE that must wait (sw_ddp_sq_claim() takes it back).  One flushed while
 * busy completes now.  Any context.
 */
void sw_ddp_sq_release(struct sw_ddp_qp *qp, u32 seq)
{
	struct sw_ddp_sq *sq = &qp->sq;
	bool notify = false, refill = false;
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&sq->lock, flags);
	if (sq->busy && sq->busy_seq == seq) {
		struct sw_ddp_swqe *t = sq_taken(sq, seq);

		sq->busy = false;
		if (t->flushed) {
			t->status = IB_WC_WR_FLUSH_ERR;
			t->done = true;
			refill = true;
			err = sq_retire_locked(qp, &notify);
		}
	}
	spin_unlock_irqrestore(&sq->lock, flags);

	sq_completed(qp, notify, refill);
	/* flushed, so the QP is in ERROR: no Terminate is owed */
	if (err == -EOVERFLOW)
		sw_ddp_qp_fatal(qp);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sq_release);

/**
 * sw_ddp_sq_claim() - the engine sends a released SQE after all
 * @qp: the QP
 * @seq: the SQE's sequence number
 *
 * Any context.
 *
 * Return: true, the SQE busy again; false if it was flushed meanwhile:
 * it has completed, and the engine must not send it.
 */
bool sw_ddp_sq_claim(struct sw_ddp_qp *qp, u32 seq)
{
	struct sw_ddp_sq *sq = &qp->sq;
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&sq->lock, flags);
	ok = sq_outstanding(sq, seq) && !sq_taken(sq, seq)->done;
	if (ok) {
		sq->busy = true;
		sq->busy_seq = seq;
	}
	spin_unlock_irqrestore(&sq->lock, flags);
	return ok;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sq_claim);

/*
 * Is an SQE waiting to be taken?  Asked after a completion outside the
 * engine's loop, as libsiw rings no doorbell while the slot before its new
 * SQEs is valid.
 */
bool sw_ddp_sq_pending(struct sw_ddp_qp *qp)
{
	struct sw_ddp_sq *sq = &qp->sq;
	unsigned long flags;
	bool pending;

	spin_lock_irqsave(&sq->lock, flags);
	pending = sq->next - sq->get < sq->num &&
		  (qp->user || sq->next != sq->put) && !sq_idle(sq);
	spin_unlock_irqrestore(&sq->lock, flags);
	return pending;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sq_pending);
