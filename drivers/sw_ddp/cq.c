// SPDX-License-Identifier: GPL-2.0
/*
 * sw_ddp completion queues.
 *
 * A CQ is a ring of struct siw_cqe followed by struct siw_cq_ctrl, the
 * layout libsiw maps (num_cqe * sizeof(struct siw_cqe) + sizeof(struct
 * siw_cq_ctrl) bytes at the cq_key offset).  The kernel writes a CQE and
 * sets SIW_WQE_VALID last; the consumer (libsiw's poll_cq, or
 * sw_ddp_poll_cq() for kernel CQs) reads it and clears the flag.  A CQE
 * slot whose flag is still set when a producer needs it means the CQ is
 * full.
 *
 * siw_cq_ctrl.flags is the armed state, written by libsiw's req_notify_cq
 * (or ours) as SIW_NOTIFY_SOLICITED, optionally with
 * SIW_NOTIFY_NEXT_COMPLETION, and cleared by the producer that fires the
 * completion handler: arming is one-shot.
 *
 * Kernel CQs use the same ring with two differences: a CQE names its QP
 * by pointer (base_qp) rather than number, and its status field holds the
 * enum ib_wc_status itself, which has more values than the siw ABI's.
 *
 * Producers (QP flush, and the RDMAP engine to come) run in any context;
 * cq->lock is IRQ-safe and is the innermost lock: producers take it inside
 * their work queue lock.
 */
#include <linux/log2.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "cq.h"
#include "umap.h"

static const enum ib_wc_opcode sw_ddp_wc_opcode[SIW_NUM_OPCODES] = {
	[SIW_OP_WRITE] = IB_WC_RDMA_WRITE,
	[SIW_OP_READ] = IB_WC_RDMA_READ,
	[SIW_OP_READ_LOCAL_INV] = IB_WC_RDMA_READ,
	[SIW_OP_SEND] = IB_WC_SEND,
	[SIW_OP_SEND_WITH_IMM] = IB_WC_SEND,
	[SIW_OP_SEND_REMOTE_INV] = IB_WC_SEND,
	[SIW_OP_FETCH_AND_ADD] = IB_WC_FETCH_ADD,
	[SIW_OP_COMP_AND_SWAP] = IB_WC_COMP_SWAP,
	[SIW_OP_RECEIVE] = IB_WC_RECV,
	[SIW_OP_INVAL_STAG] = IB_WC_LOCAL_INV,
	[SIW_OP_REG_MR] = IB_WC_REG_MR,
};

/* The siw ABI's statuses; the others reach libsiw as a general error. */
static u16 siw_status(enum ib_wc_status status)
{
	switch (status) {
	case IB_WC_SUCCESS:
		return SIW_WC_SUCCESS;
	case IB_WC_LOC_LEN_ERR:
		return SIW_WC_LOC_LEN_ERR;
	case IB_WC_LOC_PROT_ERR:
		return SIW_WC_LOC_PROT_ERR;
	case IB_WC_LOC_QP_OP_ERR:
		return SIW_WC_LOC_QP_OP_ERR;
	case IB_WC_WR_FLUSH_ERR:
		return SIW_WC_WR_FLUSH_ERR;
	case IB_WC_BAD_RESP_ERR:
		return SIW_WC_BAD_RESP_ERR;
	case IB_WC_LOC_ACCESS_ERR:
		return SIW_WC_LOC_ACCESS_ERR;
	case IB_WC_REM_ACCESS_ERR:
		return SIW_WC_REM_ACCESS_ERR;
	case IB_WC_REM_INV_REQ_ERR:
		return SIW_WC_REM_INV_REQ_ERR;
	default:
		return SIW_WC_GENERAL_ERR;
	}
}

static size_t cq_ring_size(u32 num)
{
	return num * sizeof(struct siw_cqe) + sizeof(struct siw_cq_ctrl);
}

static struct siw_cqe *cq_slot(struct sw_ddp_cq *cq, u32 idx)
{
	return &cq->ring[idx & (cq->num - 1)];
}

/* Is @cqe's slot free?  Then its consumer is done reading it. */
static bool cqe_free(struct siw_cqe *cqe)
{
	/* Pairs with the consumer's clearing of the flag. */
	return !(smp_load_acquire(&cqe->flags) & SIW_WQE_VALID);
}

static void cq_event(struct sw_ddp_cq *cq, enum ib_event_type type)
{
	struct ib_event event = {
		.device = cq->base.device,
		.element.cq = &cq->base,
		.event = type,
	};

	if (cq->base.event_handler)
		cq->base.event_handler(&event, cq->base.cq_context);
}

static void cq_write(struct sw_ddp_cq *cq, struct siw_cqe *cqe,
		     const struct sw_ddp_wc *wc)
{
	u8 flags = SIW_WQE_VALID;

	cqe->id = wc->wr_id;
	cqe->opcode = wc->opcode;
	cqe->bytes = wc->bytes;
	cqe->imm_data = 0;
	if (wc->inval) {
		flags |= SIW_WQE_REM_INVAL;
		cqe->inval_stag = wc->inval_stag;
	}
	if (cq->user) {
		cqe->status = siw_status(wc->status);
		cqe->qp_id = wc->qp ? wc->qp->qp_num : 0;
	} else {
		cqe->status = wc->status;
		cqe->base_qp = wc->qp;
	}
	/* The fields, then the flag the consumer polls on. */
	smp_store_release(&cqe->flags, flags);
}

/*
 * Is the completion handler due for this CQE?  Armed for the next
 * completion, or for a solicited one, which an unsuccessful completion
 * also is (ibv_req_notify_cq(3)).  Disarms.
 */
static bool cq_notify_due(struct sw_ddp_cq *cq, const struct sw_ddp_wc *wc)
{
	u32 armed;

	/*
	 * The CQE is visible before the arm is read; the consumer arms before
	 * it polls once more.  So it sees this CQE, or we see its arm.
	 */
	smp_mb();
	armed = READ_ONCE(cq->ctrl->flags);
	if (!(armed & SIW_NOTIFY_NEXT_COMPLETION) &&
	    !((armed & SIW_NOTIFY_SOLICITED) &&
	      (wc->solicited || wc->status != IB_WC_SUCCESS)))
		return false;

	/* The ctrl word is shared with user space: disarm what we read. */
	return cmpxchg(&cq->ctrl->flags, armed, SIW_NOTIFY_NOT) == armed;
}

/**
 * sw_ddp_cq_add() - add one CQE, without calling the completion handler
 * @cq: the CQ
 * @wc: the completion
 * @notify: set to true if the completion handler is due; the caller calls
 *	sw_ddp_cq_notify() once it has dropped its own locks
 *
 * Any context.  A full CQ overflows (a CQ overrun in the verbs): it goes
 * to error, reports IB_EVENT_CQ_ERR once, and takes no more CQEs.
 *
 * Return: 0, or -EOVERFLOW if the CQE was lost.
 */
int sw_ddp_cq_add(struct sw_ddp_cq *cq, const struct sw_ddp_wc *wc,
		  bool *notify)
{
	bool overflow = false;
	struct siw_cqe *cqe;
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&cq->lock, flags);
	cqe = cq_slot(cq, cq->put);
	if (cq->error) {
		err = -EOVERFLOW;
	} else if (!cqe_free(cqe)) {
		cq->error = true;
		overflow = true;
		err = -EOVERFLOW;
	} else {
		cq_write(cq, cqe, wc);
		cq->put++;
		if (cq_notify_due(cq, wc))
			*notify = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	if (overflow)
		cq_event(cq, IB_EVENT_CQ_ERR);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_cq_add);

/* Call the completion handler; not under any lock the handler may need. */
void sw_ddp_cq_notify(struct sw_ddp_cq *cq)
{
	if (cq->base.comp_handler)
		cq->base.comp_handler(&cq->base, cq->base.cq_context);
}

/**
 * sw_ddp_cq_post() - add one CQE and call the completion handler if due
 * @cq: the CQ
 * @wc: the completion
 *
 * Any context, but not under a lock that a completion handler may take
 * (a QP's work queue locks: handlers may post work requests).
 *
 * Return: as sw_ddp_cq_add().
 */
int sw_ddp_cq_post(struct sw_ddp_cq *cq, const struct sw_ddp_wc *wc)
{
	bool notify = false;
	int err;

	err = sw_ddp_cq_add(cq, wc, &notify);
	if (notify)
		sw_ddp_cq_notify(cq);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_cq_post);

/*
 * A kernel QP is going away: its CQEs still in @cq go with it, as a
 * hardware RNIC cleans its CQs of a destroyed QP.  A ULP that destroys a
 * QP it did not drain frees what their wr_id (or wr_cqe) points at once
 * ib_destroy_qp() returns, and reads wc->qp: no ib_poll_cq() may return
 * one.  The other QPs' CQEs close up, in their order.  Receives taken
 * from an SRQ go too: their SRQ slots were free again once their RQEs
 * were taken (srq.c), where mlx5 holds a slot until its CQE is polled
 * and frees it here, and the buffers are the ULP's, on any device.
 */
void sw_ddp_cq_forget_qp(struct sw_ddp_cq *cq, struct ib_qp *qp)
{
	unsigned long flags;
	u32 idx, keep;

	if (cq->user)
		return;

	spin_lock_irqsave(&cq->lock, flags);
	keep = cq->get;
	for (idx = cq->get; idx != cq->put; idx++) {
		struct siw_cqe *cqe = cq_slot(cq, idx);

		if (cqe->base_qp == qp)
			continue;
		if (keep != idx)
			*cq_slot(cq, keep) = *cqe;
		keep++;
	}
	for (idx = keep; idx != cq->put; idx++)
		WRITE_ONCE(cq_slot(cq, idx)->flags, 0);
	cq->put = keep;
	spin_unlock_irqrestore(&cq->lock, flags);
}

static int cq_publish(struct sw_ddp_cq *cq, struct ib_udata *udata)
{
	struct sw_ddp_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct sw_ddp_ucontext, base);
	struct siw_uresp_create_cq uresp = {
		.cq_id = cq->id,
		.num_cqe = cq->num,
	};
	int err;

	err = sw_ddp_ring_publish(&uctx->base, cq->ring, cq_ring_size(cq->num),
				  &cq->umap, &uresp.cq_key);
	if (err)
		return err;
	return ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

int sw_ddp_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		     struct sw_ddp_cq_uarg *uarg)
{
	struct ib_udata *udata = sw_ddp_cq_udata(uarg);
	struct sw_ddp_dev *sdev = to_sdev(ibcq->device);
	struct sw_ddp_cq *cq = to_cq(ibcq);
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > SW_DDP_MAX_CQE ||
	    attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(struct siw_uresp_create_cq))
		return -EINVAL;

	if (atomic_inc_return(&sdev->num_cq) > SW_DDP_MAX_CQ) {
		err = -ENOMEM;
		goto err_count;
	}

	spin_lock_init(&cq->lock);
	cq->user = !!udata;
	cq->num = roundup_pow_of_two(attr->cqe);
	cq->id = atomic_inc_return(&sdev->cq_ids);
	cq->ring = sw_ddp_ring_alloc(cq_ring_size(cq->num), cq->user);
	if (!cq->ring) {
		err = -ENOMEM;
		goto err_count;
	}
	cq->ctrl = (struct siw_cq_ctrl *)&cq->ring[cq->num];

	if (udata) {
		err = cq_publish(cq, udata);
		if (err)
			goto err_ring;
	}
	ibcq->cqe = cq->num;
	return 0;

err_ring:
	sw_ddp_ring_free(cq->ring, cq->umap);
err_count:
	atomic_dec(&sdev->num_cq);
	return err;
}

/* ib_core destroys a CQ only once no QP uses it: no producer is left. */
int sw_ddp_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sw_ddp_cq *cq = to_cq(ibcq);

	sw_ddp_ring_free(cq->ring, cq->umap);
	atomic_dec(&to_sdev(ibcq->device)->num_cq);
	return 0;
}

/* Move the CQEs not yet polled to the start of @ring, of @num entries. */
static int cq_move(struct sw_ddp_cq *cq, struct siw_cqe *ring, u32 num)
{
	u32 used = cq->put - cq->get;
	u32 i;

	if (used > num)
		return -EINVAL;

	for (i = 0; i < used; i++)
		ring[i] = *cq_slot(cq, cq->get + i);
	((struct siw_cq_ctrl *)&ring[num])->flags = cq->ctrl->flags;

	cq->ring = ring;
	cq->ctrl = (struct siw_cq_ctrl *)&ring[num];
	cq->num = num;
	cq->get = 0;
	cq->put = used;
	return 0;
}

/*
 * Kernel CQs only: libsiw has no resize_cq (ibv_resize_cq() fails with
 * EOPNOTSUPP before it reaches the kernel) and could not remap the ring.
 */
int sw_ddp_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sw_ddp_cq *cq = to_cq(ibcq);
	struct siw_cqe *ring, *old;
	unsigned long flags;
	u32 num;
	int err;

	if (cq->user || udata)
		return -EOPNOTSUPP;
	if (cqe < 1 || cqe > SW_DDP_MAX_CQE)
		return -EINVAL;

	num = roundup_pow_of_two(cqe);
	ring = sw_ddp_ring_alloc(cq_ring_size(num), false);
	if (!ring)
		return -ENOMEM;

	spin_lock_irqsave(&cq->lock, flags);
	old = cq->ring;
	err = cq_move(cq, ring, num);
	if (!err)
		ibcq->cqe = num;
	spin_unlock_irqrestore(&cq->lock, flags);

	vfree(err ? ring : old);
	return err;
}

static void cqe_to_wc(const struct siw_cqe *cqe, struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->id;
	wc->status = cqe->status;
	wc->opcode = sw_ddp_wc_opcode[cqe->opcode % SIW_NUM_OPCODES];
	wc->byte_len = cqe->bytes;
	wc->qp = cqe->base_qp;
	if (cqe->flags & SIW_WQE_REM_INVAL) {
		wc->wc_flags = IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = cqe->inval_stag;
	}
}

/* Kernel CQs; libsiw polls user CQs in user space. */
int sw_ddp_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sw_ddp_cq *cq = to_cq(ibcq);
	unsigned long flags;
	int n;

	if (cq->user)
		return -EINVAL;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries; n++) {
		struct siw_cqe *cqe = cq_slot(cq, cq->get);

		if (!(READ_ONCE(cqe->flags) & SIW_WQE_VALID))
			break;
		cqe_to_wc(cqe, &wc[n]);
		WRITE_ONCE(cqe->flags, 0);
		cq->get++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int sw_ddp_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sw_ddp_cq *cq = to_cq(ibcq);
	u32 arm = SIW_NOTIFY_SOLICITED;
	unsigned long irqflags;
	int missed = 0;

	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_NEXT_COMP)
		arm |= SIW_NOTIFY_NEXT_COMPLETION;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* Armed, then look: pairs with cq_notify_due(). */
	smp_store_mb(cq->ctrl->flags, arm);
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && !cq->user)
		missed = READ_ONCE(cq_slot(cq, cq->get)->flags) & SIW_WQE_VALID;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return missed;
}
