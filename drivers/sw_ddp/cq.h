/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Completion queues: a ring of struct siw_cqe followed by struct siw_cq_ctrl,
 * shared with libsiw for user CQs and the same in kernel memory otherwise.
 */
#ifndef SW_DDP_CQ_H
#define SW_DDP_CQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include "sw_ddp.h"

struct sw_ddp_cq {
	struct ib_cq base;

	spinlock_t lock;		/* all below; IRQ-safe */
	struct siw_cqe *ring;
	struct siw_cq_ctrl *ctrl;	/* armed state, right after the ring */
	u32 num;			/* entries, a power of two */
	u32 put;			/* next CQE to write */
	u32 get;			/* next CQE to poll (kernel CQs only) */
	bool user;			/* polled by libsiw */
	bool error;			/* overflowed: takes no more CQEs */
	struct rdma_user_mmap_entry *umap;	/* user CQs */
	u32 id;
};

/*
 * One work completion, as a producer describes it.  @qp may be NULL (a
 * destroyed QP), @opcode is the WQE's siw opcode, @solicited marks a
 * received Send with the Solicited Event (RFC 5040 §4.2), @inval a
 * received Send with Invalidate of @inval_stag.
 */
struct sw_ddp_wc {
	u64 wr_id;
	struct ib_qp *qp;
	u8 opcode;
	enum ib_wc_status status;
	u32 bytes;
	u32 inval_stag;
	bool inval;
	bool solicited;
};

static inline struct sw_ddp_cq *to_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sw_ddp_cq, base);
}

/* Producers: see cq.c for the context and locking rules. */
int sw_ddp_cq_add(struct sw_ddp_cq *cq, const struct sw_ddp_wc *wc,
		  bool *notify);
void sw_ddp_cq_notify(struct sw_ddp_cq *cq);
int sw_ddp_cq_post(struct sw_ddp_cq *cq, const struct sw_ddp_wc *wc);
void sw_ddp_cq_forget_qp(struct sw_ddp_cq *cq, struct ib_qp *qp);

/* ib_device_ops */
int sw_ddp_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		     struct sw_ddp_cq_uarg *uarg);
int sw_ddp_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sw_ddp_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int sw_ddp_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int sw_ddp_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

#endif /* SW_DDP_CQ_H */
