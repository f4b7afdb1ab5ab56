/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queue pairs: the iWARP verbs QP (RC only), its send and receive queues in
 * siw's shared-ring layout, and the interface the RDMAP/DDP engine uses to
 * consume work requests and produce completions.
 */
#ifndef SW_DDP_QP_H
#define SW_DDP_QP_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include "cq.h"
#include "sw_ddp.h"

struct sw_ddp_llp;
struct sw_ddp_stream;

/* QP states of the iWARP verbs (RDMA Consortium, "RDMA Protocol Verbs"). */
enum sw_ddp_qp_state {
	SW_DDP_QPS_IDLE,
	SW_DDP_QPS_RTS,
	SW_DDP_QPS_CLOSING,
	SW_DDP_QPS_TERMINATE,
	SW_DDP_QPS_ERROR,
};

/*
 * An SQE the engine has taken: what its completion needs, from the copy
 * that was checked (the engine holds the rest), and how it ended.
 */
struct sw_ddp_swqe {
	u64 id;
	u32 bytes;
	enum ib_wc_status status;
	u16 flags;
	u8 opcode;
	bool done;
	bool flushed;		/* while the engine sent it: it completes it */
};

/*
 * Send queue.  Three free-running counters index the ring: get <= next <=
 * put.  SQEs from get to next are taken (being transmitted, or waiting for
 * an RDMA Read Response) and keep their slot until they complete, in
 * order; SQEs from next on are posted and not yet taken.  put is known only
 * for kernel QPs: for user QPs the posted SQEs are those whose slot has
 * SIW_WQE_VALID set.
 */
struct sw_ddp_sq {
	spinlock_t lock;		/* all below; IRQ-safe */
	struct siw_sqe *ring;
	struct sw_ddp_swqe *taken;	/* indexed like ring */
	u32 num;			/* entries, a power of two */
	u32 put;
	u32 next;
	u32 get;
	/*
	 * The SQE the engine is sending, its buffers still being read: a
	 * flush leaves its completion to the engine (sq.c).
	 */
	u32 busy_seq;
	bool busy;
	struct rdma_user_mmap_entry *umap;	/* user QPs */
};

/* Receive queue: RQEs are taken from get, in order; none with an SRQ. */
struct sw_ddp_rq {
	spinlock_t lock;		/* all below; IRQ-safe */
	struct siw_rqe *ring;
	u32 num;			/* entries, a power of two; 0: SRQ */
	u32 put;			/* kernel QPs */
	u32 get;
	struct rdma_user_mmap_entry *umap;	/* user QPs */
	/*
	 * The RQE the engine took and has not completed (at most one: one
	 * Send message is placed at a time), from the ring or the SRQ.  It
	 * is older than anything in the ring, so a flush completes it first.
	 */
	bool held;
	u64 held_id;
};

struct sw_ddp_qp {
	struct ib_qp base;

	/* Lifetime: the QPN table holds one reference until destroy. */
	struct kref ref;
	struct completion released;
	struct work_struct fatal_work;
	struct work_struct flush_work;	/* sw_ddp_qp_flush_later() */
	bool fatal_owed;		/* failed short of ERROR: the event due */
	bool fatal_reported;		/* this epoch's; state_mutex */
	u32 epoch;			/* resets from ERROR; state_mutex */
	u32 fatal_epoch;		/* the epoch the last failure was in */

	struct mutex state_mutex;	/* serializes state changes */
	enum sw_ddp_qp_state state;	/* READ_ONCE() outside state_mutex */
	enum ib_qp_state ib_idle;	/* IDLE is RESET or INIT to IB */
	bool user;			/* rings mapped by libsiw */
	struct pid *owner;		/* a user QP's process: iw_get_qp */
	bool iw_named;			/* iw_get_qp() found it */
	bool destroying;		/* no more async events */
	bool sig_all;
	u8 ord;				/* RDMA Reads we may have in flight */
	u8 ird;				/* RDMA Reads the peer may have */
	int access;			/* IB_ACCESS_REMOTE_{READ,WRITE} */

	struct sw_ddp_sq sq;
	struct sw_ddp_rq rq;

	/* The LLP endpoint, set by the connection manager (cm.c). */
	struct sw_ddp_llp *llp;
	/* The data path while connected (stream.c); RCU for the kickers. */
	struct sw_ddp_stream __rcu *stream;
};

static inline struct sw_ddp_qp *to_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sw_ddp_qp, base);
}

static inline struct sw_ddp_cq *qp_scq(struct sw_ddp_qp *qp)
{
	return to_cq(qp->base.send_cq);
}

static inline struct sw_ddp_cq *qp_rcq(struct sw_ddp_qp *qp)
{
	return to_cq(qp->base.recv_cq);
}

/* qp.c: device setup (main.c), lifetime and lookup */
void sw_ddp_queues_init(struct sw_ddp_dev *sdev);
void sw_ddp_queues_fini(struct sw_ddp_dev *sdev);
struct sw_ddp_qp *sw_ddp_qp_get_named(struct sw_ddp_dev *sdev, u32 qpn);
void sw_ddp_qp_get(struct sw_ddp_qp *qp);
void sw_ddp_qp_put(struct sw_ddp_qp *qp);
void sw_ddp_qp_fatal(struct sw_ddp_qp *qp);
void sw_ddp_qp_flush_sq(struct sw_ddp_qp *qp);
void sw_ddp_qp_flush_later(struct sw_ddp_qp *qp);
#if IS_ENABLED(CONFIG_KUNIT)
int sw_ddp_qp_modify_locked(struct sw_ddp_qp *qp, struct ib_qp_attr *attr,
			    int mask);
#endif
void sw_ddp_qp_terminate(struct sw_ddp_qp *qp);

/* qp.c, for the connection manager: the QP's LLP stream comes and goes */
bool sw_ddp_qp_llp_ready(struct sw_ddp_qp *qp);
int sw_ddp_qp_llp_attach(struct sw_ddp_qp *qp, struct sw_ddp_llp *llp,
			 u16 ird, u16 ord);
void sw_ddp_qp_llp_detach(struct sw_ddp_qp *qp);

/*
 * A flush completes this many WQEs at most between two looks at the
 * scheduler, its work queue's lock dropped: sw_ddp_wq_flush() calls @some
 * with that budget, under the lock, until it returns false.
 */
#define SW_DDP_FLUSH_BATCH	64
typedef bool (*sw_ddp_flush_fn)(struct sw_ddp_qp *qp, bool *notify,
				u32 budget, u32 *taken);
void sw_ddp_wq_flush(struct sw_ddp_qp *qp, spinlock_t *lock,
		     struct sw_ddp_cq *cq, sw_ddp_flush_fn some);

/* sq.c, rq.c: set-up and flush, for qp.c */
int sw_ddp_sq_init(struct sw_ddp_qp *qp, u32 num, struct ib_ucontext *uctx,
		   u64 *key);
void sw_ddp_sq_fini(struct sw_ddp_qp *qp);
void sw_ddp_sq_flush(struct sw_ddp_qp *qp);
int sw_ddp_rq_init(struct sw_ddp_qp *qp, u32 num, struct ib_ucontext *uctx,
		   u64 *key);
void sw_ddp_rq_fini(struct sw_ddp_qp *qp);
void sw_ddp_rq_flush(struct sw_ddp_qp *qp);

/* rq.c: RQE slots, shared with SRQs */
int sw_ddp_rqe_fill(struct siw_rqe *slot, const struct ib_recv_wr *wr);
int sw_ddp_rqe_take(struct siw_rqe *slot, struct siw_rqe *rqe);

/*
 * The engine's interface (RDMAP/DDP, to come): any context, no locks held
 * that a completion handler may take.  See sq.c and rq.c.
 */
int sw_ddp_sq_next(struct sw_ddp_qp *qp, struct siw_sqe *sqe, u32 *seq);

/*
 * A WQE's SGEs name at most max_msg_sz (U32_MAX) octets together: more
 * would wrap the u32 message length the engine counts in.
 */
static inline bool sw_ddp_sge_len_ok(const struct siw_sge *sge, u32 n)
{
	u64 len = 0;
	u32 i;

	for (i = 0; i < n; i++)
		len += sge[i].length;
	return len <= U32_MAX;
}

/* An RDMA Read, with Local Invalidate or without: it takes an ORD slot. */
static inline bool sw_ddp_sqe_is_read(const struct siw_sqe *sqe)
{
	return sqe->opcode == SIW_OP_READ ||
	       sqe->opcode == SIW_OP_READ_LOCAL_INV;
}

int sw_ddp_sq_complete(struct sw_ddp_qp *qp, u32 seq, u32 bytes,
		       enum ib_wc_status status);
void sw_ddp_sq_release(struct sw_ddp_qp *qp, u32 seq);
bool sw_ddp_sq_claim(struct sw_ddp_qp *qp, u32 seq);
bool sw_ddp_sq_pending(struct sw_ddp_qp *qp);
int sw_ddp_rq_get(struct sw_ddp_qp *qp, struct siw_rqe *rqe);
int sw_ddp_rq_complete(struct sw_ddp_qp *qp, struct sw_ddp_wc *wc);

/* stream.c: new SQEs for a connected QP's engine */
void sw_ddp_qp_kick(struct sw_ddp_qp *qp);
void sw_ddp_qp_doorbell(struct sw_ddp_qp *qp);

/* ib_device_ops */
int sw_ddp_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		     struct ib_udata *udata);
int sw_ddp_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		     int mask, struct ib_udata *udata);
int sw_ddp_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_qp_init_attr *init_attr);
int sw_ddp_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int sw_ddp_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr);
int sw_ddp_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr);
void sw_ddp_iw_add_ref(struct ib_qp *ibqp);
void sw_ddp_iw_rem_ref(struct ib_qp *ibqp);
struct ib_qp *sw_ddp_iw_get_qp(struct ib_device *ibdev, int qpn);

#endif /* SW_DDP_QP_H */
