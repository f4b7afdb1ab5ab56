/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A DDP stream (RFC 5041 §1.3) and the RDMAP stream on it: the state of
 * one connected QP's data path, whatever the LLP.  Created when the
 * connection manager hands an established LLP endpoint to the QP.
 *
 *   receive (ddp_rx.c, rdmap_rx.c): the LLP's rx context, one segment at
 *   a time, never sleeping: softirq for TCP.
 *   transmit (rdmap_tx.c, ddp_tx.c): the stream's work item, which may
 *   sleep in the LLP's send_segment().
 */
#ifndef SW_DDP_STREAM_H
#define SW_DDP_STREAM_H

#include <linux/bvec.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <sw_ddp/ddp.h>
#include <sw_ddp/rdmap.h>

#include "llp.h"
#include "mem.h"
#include "qp.h"

/* Terminate Control, DDP Segment Length, the DDP and RDMA headers */
#define SW_DDP_TERM_MAX	64

/*
 * An RDMA Read in flight: one we sent (ORD, completed by the Read
 * Response) or one the peer sent (IRD, answered by our Read Response).
 */
struct sw_ddp_read {
	struct rdmap_read_req req;
	u32 sq_seq;			/* ORD: the Read SQE */
	bool rtr;			/* ORD: our RFC 6581 RTR, no SQE */
	bool inval;			/* ORD: then invalidate inval_stag */
	u32 inval_stag;			/* (Read with Local Invalidate) */
	u32 done;			/* octets placed (ORD) or sent (IRD) */
	struct sw_ddp_mr *mr;		/* IRD: the Data Source */
};

/* The untagged message being received on queue 0 (a Send). */
struct sw_ddp_rx_send {
	bool active;
	struct siw_rqe rqe;
	struct ib_sge sge[SIW_MAX_SGE];	/* rqe's, as the memory layer takes them */
	struct sw_ddp_mr *mr[SIW_MAX_SGE];
	u32 buf_len;			/* of the RQE's SGEs together */
	u32 len;			/* of the message so far */
};

/* The segment being received, between begin() and end(). */
struct sw_ddp_rx_seg {
	u8 hdr[DDP_UNTAGGED_HDR_LEN + RDMAP_READ_REQ_LEN];
	u32 hdr_len;
	u32 len;			/* payload octets */
	u32 done;			/* payload octets placed */
	enum rdmap_opcode op;
	bool last;
	struct sw_ddp_mr *mr;		/* tagged: the target */
	u64 to;
	u32 qn, msn, mo;
	bool rtr;			/* the RFC 6581 RTR: not the consumer's */
	enum ib_wc_status read_fail;	/* a Read Response failed its Read so */
};

struct sw_ddp_stream {
	struct sw_ddp_qp *qp;
	struct sw_ddp_dev *sdev;
	struct sw_ddp_llp *llp;
	u8 ord, ird;			/* Reads outstanding: at least one */
	u8 ord_neg, ird_neg;		/* as negotiated: may be zero */

	/* Receive side; only the LLP's receive context touches it. */
	struct sw_ddp_rx_seg seg;
	struct sw_ddp_rx_send send;
	u32 msn_rx[RDMAP_QN_COUNT];	/* MSN of the next message, per QN */
	u8 term_rx[SW_DDP_TERM_MAX];	/* an arriving Terminate */
	u32 term_rx_len;

	/* Transmit side: tx_work, and the queues both sides share. */
	struct work_struct tx_work;
	unsigned long tx_busy;		/* bit 0: the engine is running */
	spinlock_t lock;		/* read queues, term, dead, rtr_wait */
	u32 msn_tx[RDMAP_QN_COUNT];
	struct sw_ddp_read *ord_q;	/* ring: sw_ddp_ord_slot() */
	u32 ord_put, ord_get;
	bool ord_wait;			/* an SQE waits for ord_get to move */
	struct sw_ddp_read *ird_q;	/* ring: sw_ddp_ird_slot() */
	u32 ird_put, ird_get;
	u16 ord_mask, ird_mask;		/* the rings' sizes, less one */
	struct sw_ddp_term_err term;	/* first error: a Terminate to send */
	u8 term_hdr[DDP_UNTAGGED_HDR_LEN + RDMAP_READ_REQ_LEN];
	u32 term_hdr_len, term_seg_len;
	bool term_pending;		/* term set, not yet sent */
	bool failed;			/* term set: nothing more received */
	bool dead;			/* no more traffic either way */
	struct bio_vec *bv;		/* payload of one segment */
	unsigned int max_bv;
	struct page *inline_page;	/* inline data of the current SQE */
	/*
	 * The engine's SQE: being sent, or (holding) waiting for ORD, a
	 * fence or the RTR, released to a flush while it waits (parked).
	 */
	struct siw_sqe held;
	u32 held_seq;
	bool holding;
	bool parked;
	enum sw_ddp_rtr rtr_send;	/* RFC 6581: ours to send first */
	enum sw_ddp_rtr rtr_wait;	/* RFC 6581: to take first; lock */
};

/*
 * The Read rings' slots.  Their counters run on through 2^32, so each
 * ring has a power of two entries, which divides that: a count keeps its
 * slot across the wrap (with three, 0xffffffff and 0 would share one).
 */
static inline struct sw_ddp_read *
sw_ddp_ord_slot(struct sw_ddp_stream *s, u32 n)
{
	return &s->ord_q[n & s->ord_mask];
}

static inline struct sw_ddp_read *
sw_ddp_ird_slot(struct sw_ddp_stream *s, u32 n)
{
	return &s->ird_q[n & s->ird_mask];
}

struct sw_ddp_stream *sw_ddp_stream_create(struct sw_ddp_qp *qp,
					   struct sw_ddp_llp *llp, u8 ord,
					   u8 ird);
void sw_ddp_stream_destroy(struct sw_ddp_stream *s);
void sw_ddp_stream_attach(struct sw_ddp_stream *s);
void sw_ddp_stream_detach(struct sw_ddp_stream *s);

/* qp.c: a connected QP's data path over @llp, started and stopped. */
int sw_ddp_stream_start(struct sw_ddp_qp *qp, struct sw_ddp_llp *llp);
void sw_ddp_stream_stop(struct sw_ddp_qp *qp);

/* The LLP's receive upcalls; upper is the stream. */
extern const struct sw_ddp_rx_ops sw_ddp_stream_rx_ops;

/* Something to send: new SQEs, a Read to answer, a Terminate. */
int sw_ddp_stream_init(void);
void sw_ddp_stream_exit(void);
void sw_ddp_stream_kick(struct sw_ddp_stream *s);
void sw_ddp_stream_kick_away(struct sw_ddp_stream *s);

/* A WQE's SGEs as struct ib_sge; returns their total length. */
static inline u32 sw_ddp_sge_from_siw(const struct siw_sge *in, u32 n,
				      struct ib_sge *out)
{
	u32 i, len = 0;

	for (i = 0; i < n; i++) {
		out[i].addr = in[i].laddr;
		out[i].length = in[i].length;
		out[i].lkey = in[i].lkey;
		len += in[i].length;
	}
	return len;
}

/*
 * The stream failed (any context): remember the first error, send it in a
 * Terminate unless @send is false (the LLP is gone, or the peer sent the
 * Terminate), and take the QP to ERROR with an async event.  No segment
 * is received from then on.  Returns
 * false if the stream's teardown began first: then the caller fails the
 * QP itself, if need be.
 */
bool sw_ddp_stream_fail(struct sw_ddp_stream *s, struct sw_ddp_term_err err,
			bool send);
void sw_ddp_stream_fail_rx(struct sw_ddp_stream *s,
			   struct sw_ddp_term_err err);
void sw_ddp_stream_closing(struct sw_ddp_stream *s);

/* rdmap_rx.c, for ddp_rx.c: a message or Read Request has arrived whole. */
struct sw_ddp_term_err rdmap_rx_send_done(struct sw_ddp_stream *s);
struct sw_ddp_term_err rdmap_rx_read_req(struct sw_ddp_stream *s);
struct sw_ddp_term_err rdmap_rx_read_resp_begin(struct sw_ddp_stream *s);
struct sw_ddp_term_err rdmap_rx_read_resp_done(struct sw_ddp_stream *s);
void rdmap_rx_terminate(struct sw_ddp_stream *s);
int rdmap_rx_send_fail(struct sw_ddp_stream *s, enum ib_wc_status status);
void rdmap_rx_read_resp_fail(struct sw_ddp_stream *s,
			     enum ib_wc_status status);
void rdmap_rx_flush(struct sw_ddp_stream *s);

/* rdmap_rtr.c: the RFC 6581 RTR, sent (tx work) or taken (rx). */
void rdmap_rtr_send(struct sw_ddp_stream *s);
bool rdmap_rtr_awaited(struct sw_ddp_stream *s);
struct sw_ddp_term_err rdmap_rtr_rx_begin(struct sw_ddp_stream *s);
struct sw_ddp_term_err rdmap_rtr_rx_end(struct sw_ddp_stream *s);

/*
 * rdmap_tx.c: the transmit engine, run by the work item or, for a few
 * small messages, in a poster's system call; one at a time (TX_BUSY).
 */
void rdmap_tx_work(struct work_struct *work);
bool rdmap_tx_trylock(struct sw_ddp_stream *s);
void rdmap_tx_unlock(struct sw_ddp_stream *s);
void rdmap_tx_wait_idle(struct sw_ddp_stream *s);

/* What a doorbell's run leaves to the work item, and on which CPU. */
enum rdmap_tx_rest {
	RDMAP_TX_DONE,		/* nothing */
	RDMAP_TX_HERE,		/* the rest, on this CPU */
	RDMAP_TX_AWAY,		/* a long message, on the next CPU */
};

enum rdmap_tx_rest rdmap_tx_inline(struct sw_ddp_stream *s);
bool rdmap_tx_read_resp_now(struct sw_ddp_stream *s);
void rdmap_tx_flush(struct sw_ddp_stream *s);

/* ddp_tx.c, for rdmap_tx.c: send one message in segments. */
struct sw_ddp_tx_msg {
	enum rdmap_opcode op;
	u32 stag;			/* tagged: sink STag */
	u64 to;				/* tagged: sink TO */
	u32 inval_stag;			/* Send with Invalidate */
	u32 msn;			/* untagged */
	u32 len;
	const void *extra;		/* Read Request, Terminate: header */
	u32 extra_len;
	/* payload: local SGEs with their MRs, or a source MR range */
	const struct ib_sge *sge;
	struct sw_ddp_mr **sge_mr;
	u32 num_sge;
	struct sw_ddp_mr *src_mr;	/* Read Response: Data Source */
	u32 src_stag;
	u64 src_to;
	bool inline_data;		/* in s->inline_page */
	bool zcopy;			/* SW_DDP_SEG_ZCOPY allowed */
	bool now;			/* one SW_DDP_SEG_NOW segment */
	/* called just before the last segment goes to the LLP, if at all */
	void (*last_seg)(struct sw_ddp_stream *s);
};

int ddp_tx_message(struct sw_ddp_stream *s, const struct sw_ddp_tx_msg *m);
u32 ddp_tx_room(struct sw_ddp_stream *s);

#endif /* SW_DDP_STREAM_H */
