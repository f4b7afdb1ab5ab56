/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit fixture for the queue suites (sw_ddp_qp, sw_ddp_cq): a registered
 * sw_ddp device on a dummy Ethernet netdev, a PD, and the QPs, CQs and
 * SRQs a case makes through ib_core, all destroyed by the exit hook.
 * It also records the async events and completion upcalls they raise.
 */
#ifndef SW_DDP_QUEUE_FIXTURE_H
#define SW_DDP_QUEUE_FIXTURE_H

#include <kunit/test.h>
#include <linux/completion.h>
#include <rdma/ib_verbs.h>

#define QF_MAX_OBJ	8
#define QF_EVENTS	32

struct qfix {
	struct net_device *netdev;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_qp *qp[QF_MAX_OBJ];
	struct ib_srq *srq[QF_MAX_OBJ];
	struct ib_cq *cq[QF_MAX_OBJ];

	atomic_t events[QF_EVENTS];	/* by enum ib_event_type */
	struct completion event;	/* any event */
	atomic_t comp_calls;		/* completion handler upcalls */
};

int qf_init(struct kunit *test);
int qf_init_pd(struct kunit *test, int pd_flags, struct ib_pd **pd);
void qf_exit(struct kunit *test);

struct ib_cq *qf_cq(struct kunit *test, int cqe);
struct ib_cq *qf_cq_handler(struct kunit *test, int cqe,
			    ib_comp_handler comp, void *context);
struct ib_qp *qf_qp_attr(struct kunit *test, struct ib_qp_init_attr *attr);
struct ib_qp *qf_qp(struct kunit *test, struct ib_cq *cq, u32 send_wr,
		    u32 recv_wr);
struct ib_srq *qf_srq(struct kunit *test, u32 max_wr, u32 limit);
void qf_destroy_qp(struct kunit *test, struct ib_qp *qp);
void qf_destroy_cq(struct kunit *test, struct ib_cq *cq);
void qf_init_attr(struct kunit *test, struct ib_qp_init_attr *attr,
		  struct ib_cq *cq, u32 send_wr, u32 recv_wr);

int qf_events(struct kunit *test, enum ib_event_type type);
bool qf_wait_events(struct kunit *test, enum ib_event_type type, int n);
int qf_state(struct kunit *test, struct ib_qp *qp);
bool qf_wait_error(struct ib_qp *qp);
int qf_modify_state(struct ib_qp *qp, enum ib_qp_state state);
int qf_post_recv(struct ib_qp *qp, u64 wr_id);
int qf_post_send(struct ib_qp *qp, u64 wr_id, enum ib_wr_opcode opcode,
		 int send_flags);
int qf_poll(struct ib_cq *cq, struct ib_wc *wc, int n);
bool qf_poll_one(struct ib_cq *cq, struct ib_wc *wc);
void qf_fill(u8 *p, u32 len, u8 seed);

#endif /* SW_DDP_QUEUE_FIXTURE_H */
