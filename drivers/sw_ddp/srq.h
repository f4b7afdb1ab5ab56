/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared receive queues: a ring of struct siw_rqe, as a QP's RQ, from
 * which any QP attached to the SRQ takes its RQEs.
 */
#ifndef SW_DDP_SRQ_H
#define SW_DDP_SRQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

struct sw_ddp_srq {
	struct ib_srq base;

	spinlock_t lock;		/* all below; IRQ-safe */
	struct siw_rqe *ring;
	u32 num;			/* entries, a power of two */
	u32 put;			/* kernel SRQs */
	u32 get;
	u32 limit;			/* IB_EVENT_SRQ_LIMIT_REACHED below it */
	bool armed;
	bool user;			/* ring mapped by libsiw */
	struct rdma_user_mmap_entry *umap;	/* user SRQs */
};

static inline struct sw_ddp_srq *to_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sw_ddp_srq, base);
}

int sw_ddp_srq_get(struct sw_ddp_srq *srq, struct siw_rqe *rqe);

/* ib_device_ops */
int sw_ddp_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		      struct ib_udata *udata);
int sw_ddp_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		      enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sw_ddp_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sw_ddp_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int sw_ddp_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr);

#endif /* SW_DDP_SRQ_H */
