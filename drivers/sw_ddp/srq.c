// SPDX-License-Identifier: GPL-2.0
/*
 * sw_ddp shared receive queues.
 *
 * An SRQ has the layout of a QP's RQ (rq.c): libsiw maps num_rqe *
 * sizeof(struct siw_rqe) bytes at srq_key and writes RQEs with
 * SIW_WQE_VALID last; kernel consumers post with ib_post_srq_recv().  The
 * QPs attached to it take RQEs through sw_ddp_rq_get(), which lands here.
 * A QP that goes to ERROR leaves the SRQ's RQEs alone.
 *
 * The limit event of the verbs: once armed, by create or by
 * modify_srq(IB_SRQ_LIMIT), IB_EVENT_SRQ_LIMIT_REACHED fires when taking
 * an RQE leaves fewer than the limit posted, and disarms.  The kernel does
 * not know how many RQEs user space posted, but posted RQEs are contiguous
 * from get, so fewer than limit remain exactly when the slot limit - 1
 * after get is not valid.
 */
#include <linux/log2.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "qp.h"
#include "srq.h"
#include "umap.h"

static struct siw_rqe *srq_slot(struct sw_ddp_srq *srq, u32 idx)
{
	return &srq->ring[idx & (srq->num - 1)];
}

static void srq_event(struct sw_ddp_srq *srq, enum ib_event_type type)
{
	struct ib_event event = {
		.device = srq->base.device,
		.element.srq = &srq->base,
		.event = type,
	};

	if (srq->base.event_handler)
		srq->base.event_handler(&event, srq->base.srq_context);
}

/* After taking an RQE: armed, and fewer than limit left?  Disarms. */
static bool srq_limit_reached(struct sw_ddp_srq *srq)
{
	struct siw_rqe *last = srq_slot(srq, srq->get + srq->limit - 1);

	if (!srq->armed || (READ_ONCE(last->flags) & SIW_WQE_VALID))
		return false;
	srq->armed = false;
	return true;
}

/* Take the next RQE for a QP; as sw_ddp_rq_get(). */
int sw_ddp_srq_get(struct sw_ddp_srq *srq, struct siw_rqe *rqe)
{
	bool limit = false;
	unsigned long flags;
	int err;

	spin_lock_irqsave(&srq->lock, flags);
	err = sw_ddp_rqe_take(srq_slot(srq, srq->get), rqe);
	if (err != -ENOENT) {
		srq->get++;
		limit = srq_limit_reached(srq);
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	if (limit)
		srq_event(srq, IB_EVENT_SRQ_LIMIT_REACHED);
	return err;
}

static int srq_check(const struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	const struct ib_srq_attr *attr = &init->attr;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > SW_DDP_MAX_SRQ_WR ||
	    attr->max_sge > SW_DDP_MAX_SGE || attr->srq_limit > attr->max_wr)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(struct siw_uresp_create_srq))
		return -EINVAL;
	return 0;
}

static int srq_publish(struct sw_ddp_srq *srq, struct ib_udata *udata)
{
	struct sw_ddp_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct sw_ddp_ucontext, base);
	struct siw_uresp_create_srq uresp = { .num_rqe = srq->num };
	int err;

	err = sw_ddp_ring_publish(&uctx->base, srq->ring,
				  srq->num * sizeof(struct siw_rqe),
				  &srq->umap, &uresp.srq_key);
	if (err)
		return err;
	return ib_copy_to_udata(udata, &uresp, sizeof(uresp));
}

int sw_ddp_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		      struct ib_udata *udata)
{
	struct sw_ddp_dev *sdev = to_sdev(ibsrq->device);
	struct sw_ddp_srq *srq = to_srq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	int err;

	err = srq_check(init, udata);
	if (err)
		return err;
	if (atomic_inc_return(&sdev->num_srq) > SW_DDP_MAX_SRQ) {
		err = -ENOMEM;
		goto err_count;
	}

	spin_lock_init(&srq->lock);
	srq->user = !!udata;
	srq->num = roundup_pow_of_two(attr->max_wr);
	srq->limit = attr->srq_limit;
	srq->armed = srq->limit;
	srq->ring = sw_ddp_ring_alloc(srq->num * sizeof(struct siw_rqe),
				      srq->user);
	if (!srq->ring) {
		err = -ENOMEM;
		goto err_count;
	}
	if (udata) {
		err = srq_publish(srq, udata);
		if (err)
			goto err_ring;
	}
	attr->max_wr = srq->num;
	attr->max_sge = SW_DDP_MAX_SGE;
	return 0;

err_ring:
	sw_ddp_ring_free(srq->ring, srq->umap);
err_count:
	atomic_dec(&sdev->num_srq);
	return err;
}

/* Arm or disarm the limit event; no resizing (libsiw cannot remap). */
int sw_ddp_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		      enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sw_ddp_srq *srq = to_srq(ibsrq);
	unsigned long flags;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->num)
		return -EINVAL;

	spin_lock_irqsave(&srq->lock, flags);
	srq->limit = attr->srq_limit;
	srq->armed = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

int sw_ddp_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sw_ddp_srq *srq = to_srq(ibsrq);
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	attr->max_wr = srq->num;
	attr->max_sge = SW_DDP_MAX_SGE;
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

/* ib_core destroys an SRQ only once no QP uses it; its RQEs just go. */
int sw_ddp_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sw_ddp_srq *srq = to_srq(ibsrq);

	sw_ddp_ring_free(srq->ring, srq->umap);
	atomic_dec(&to_sdev(ibsrq->device)->num_srq);
	return 0;
}

/* ops.post_srq_recv, for kernel SRQs: libsiw posts into the ring. */
int sw_ddp_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr)
{
	struct sw_ddp_srq *srq = to_srq(ibsrq);
	unsigned long flags;
	int err = 0;

	if (srq->user) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		if (srq->put - srq->get == srq->num) {
			err = -ENOMEM;
			break;
		}
		err = sw_ddp_rqe_fill(srq_slot(srq, srq->put), wr);
		if (err)
			break;
		srq->put++;
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	if (err)
		*bad_wr = wr;
	return err;
}
