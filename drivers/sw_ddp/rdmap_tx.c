// SPDX-License-Identifier: GPL-2.0
/*
 * RDMAP transmit (RFC 5040): the stream's engine.  It sends, in this
 * order of priority, a pending Terminate, an RFC 6581 initiator's RTR
 * (rdmap_rtr.c), Read Responses the peer asked for (in request order), and
 * the send queue's work requests as RDMAP messages, which an RFC 6581
 * responder holds back until the RTR has come in; and it executes local
 * work requests (fast registration, local invalidation) in their place in
 * the queue.  It runs as a work item, briefly in libsiw's doorbell, and
 * for a lone short Read Response in the receive upcall.
 */
#include <linux/highmem.h>
#include <linux/moduleparam.h>
#include <linux/sched/clock.h>
#include <linux/wait_bit.h>
#include <kunit/visibility.h>

#include "rdmap.h"
#include "stream.h"

static bool zcopy_tx = true;
module_param(zcopy_tx, bool, 0644);
MODULE_PARM_DESC(zcopy_tx,
		 "send Read Responses by page reference, not copied (default on)");

/*
 * RFC 5040 "Terminate Header": the error and the headers that caused it.
 * A Read Request refused for its Data Source (an RDMAP Remote Protection
 * error) also carries the Request's own header, flagged R, as siw's do.
 */
static void rdmap_tx_terminate(struct sw_ddp_stream *s)
{
	struct rdmap_term_info ti = { .err = s->term };
	struct sw_ddp_tx_msg m = { .op = RDMAP_OP_TERMINATE };
	u8 buf[SW_DDP_TERM_MAX];
	u32 ddp_len;
	int len;

	if (s->term_hdr_len) {
		ti.hdrct = RDMAP_TERM_HDRCT_M | RDMAP_TERM_HDRCT_D;
		ti.seg_len = s->term_seg_len;
		ti.ddp_hdr = s->term_hdr;
		ddp_len = ddp_hdr_len(s->term_hdr[0]);
		if (s->term.layer == SW_DDP_LAYER_RDMAP &&
		    s->term.etype == RDMAP_ETYPE_REMOTE_PROT &&
		    s->term_hdr_len == ddp_len + RDMAP_READ_REQ_LEN) {
			ti.hdrct |= RDMAP_TERM_HDRCT_R;
			ti.rdmap_hdr = s->term_hdr + ddp_len;
			ti.rdmap_len = RDMAP_READ_REQ_LEN;
		}
	}
	len = rdmap_term_build(buf, sizeof(buf), &ti);
	if (len < 0)
		return;
	m.extra = buf;
	m.extra_len = len;
	m.msn = s->msn_tx[RDMAP_QN_TERMINATE]++;
	ddp_tx_message(s, &m);
}

/* RFC 5040 §4.5: the response to @rd, all it asked for */
static void rdmap_tx_read_resp_msg(const struct sw_ddp_read *rd,
				   struct sw_ddp_tx_msg *m)
{
	*m = (struct sw_ddp_tx_msg){
		.op = RDMAP_OP_READ_RESP,
		.stag = rd->req.sink_stag,
		.to = rd->req.sink_to,
		.len = rd->req.size,
		.src_mr = rd->mr,
		.src_stag = rd->req.src_stag,
		.src_to = rd->req.src_to,
		/*
		 * No completion here: the responder's memory as it is when
		 * sent.  Below a page, copying into the skb costs less than
		 * a reference.
		 */
		.zcopy = zcopy_tx && rd->req.size >= PAGE_SIZE,
	};
}

/*
 * A source MR failed its check again as a segment took its pages
 * (ddp_tx.c): invalidated, deregistered or its pages gone since it was
 * first checked.  The consumer's error, and the peer hears of it.
 */
static bool rdmap_tx_source_bad(int err)
{
	return err == -EACCES || err == -EFAULT;
}

/*
 * A Send's, Write's or Read Request's status for ddp_tx_message()'s
 * error.  One the LLP's close cut short is flushed, as those behind it
 * will be when the QP reaches ERROR: the close is no failure of the WR.
 * A source MR found bad is the consumer's error; any other failure is
 * the LLP's or ours.
 */
static enum ib_wc_status rdmap_tx_status(int err)
{
	if (!err)
		return IB_WC_SUCCESS;
	if (err == -ESHUTDOWN)
		return IB_WC_WR_FLUSH_ERR;
	if (rdmap_tx_source_bad(err))
		return IB_WC_LOC_PROT_ERR;
	return IB_WC_GENERAL_ERR;
}

/*
 * The response went, or failed: the entry's reference goes too.  The
 * Data Source, checked when the Request came, may have been invalidated
 * since, or its pages be gone: the peer hears why.  Any other failure is
 * the LLP's or ours, and as for an SQE no Terminate follows.
 */
static void rdmap_tx_read_resp_sent(struct sw_ddp_stream *s,
				    struct sw_ddp_read *rd, int err)
{
	if (rd->mr)
		sw_ddp_mem_put(rd->mr);
	if (rdmap_tx_source_bad(err))
		sw_ddp_stream_fail(s, RDMAP_ERR_PROT_ACCESS, true);
	else if (err)
		sw_ddp_stream_fail(s, RDMAP_ERR_LOCAL_CATASTROPHIC, false);
}

/* The oldest Read Request's IRD slot: the engine's to give back. */
static void rdmap_tx_ird_free(struct sw_ddp_stream *s)
{
	spin_lock_bh(&s->lock);
	s->ird_get++;
	spin_unlock_bh(&s->lock);
}

/*
 * RFC 5040 §4.5: answer the oldest Read Request.  It keeps its IRD slot
 * until the last segment of its response is about to go, and no longer:
 * once that segment reaches the peer, the peer may send its next Read
 * Request at once (its ORD slot is free), so the slot must be free
 * before.  The peer can then have IRD Requests outstanding, not one more.
 * The entry, and its reference on the Data Source, are ours while we
 * send: only the engine takes entries.
 */
static bool rdmap_tx_read_resp(struct sw_ddp_stream *s)
{
	struct sw_ddp_tx_msg m;
	struct sw_ddp_read rd;
	bool found = false;
	u32 get = 0;
	int err;

	spin_lock_bh(&s->lock);
	if (s->ird_put != s->ird_get) {
		get = s->ird_get;
		rd = *sw_ddp_ird_slot(s, get);
		found = true;
	}
	spin_unlock_bh(&s->lock);
	if (!found)
		return false;

	rdmap_tx_read_resp_msg(&rd, &m);
	m.last_seg = rdmap_tx_ird_free;
	err = ddp_tx_message(s, &m);
	if (s->ird_get == get)		/* failed before its last segment */
		rdmap_tx_ird_free(s);
	rdmap_tx_read_resp_sent(s, &rd, err);
	return true;
}

static enum rdmap_opcode rdmap_tx_send_op(const struct siw_sqe *sqe)
{
	bool se = sqe->flags & SIW_WQE_SOLICITED;

	if (sqe->opcode == SIW_OP_SEND_REMOTE_INV)
		return se ? RDMAP_OP_SEND_SE_INV : RDMAP_OP_SEND_INV;
	return se ? RDMAP_OP_SEND_SE : RDMAP_OP_SEND;
}

/* Send and Write: the payload from local SGEs or inline data. */
static enum ib_wc_status rdmap_tx_data(struct sw_ddp_stream *s,
				       const struct siw_sqe *sqe, u32 *bytes)
{
	struct sw_ddp_mr *mr[SIW_MAX_SGE] = {};
	struct ib_sge sge[SIW_MAX_SGE];
	struct sw_ddp_tx_msg m = { .sge = sge, .sge_mr = mr };
	u32 bad;
	int err;

	if (sqe->flags & SIW_WQE_INLINE) {
		m.inline_data = true;
		m.len = sqe->sge[0].length;
		memcpy_to_page(s->inline_page, 0, (void *)&sqe->sge[1], m.len);
	} else {
		m.len = sw_ddp_sge_from_siw(sqe->sge, sqe->num_sge, sge);
		m.num_sge = sqe->num_sge;
		if (sw_ddp_mem_get_sgl(s->sdev, s->qp->base.pd, sge,
				       sqe->num_sge, 0, mr, &bad))
			return IB_WC_LOC_PROT_ERR;
	}
	if (sqe->opcode == SIW_OP_WRITE) {
		m.op = RDMAP_OP_WRITE;
		m.stag = sqe->rkey;
		m.to = sqe->raddr;
	} else {
		m.op = rdmap_tx_send_op(sqe);
		m.inval_stag = sqe->rkey;
		m.msn = s->msn_tx[RDMAP_QN_SEND]++;
	}
	/*
	 * Always copied: this WR's completion (or a later one's) tells the
	 * consumer it may reuse the buffer, and TCP may still have to
	 * retransmit from it.  Zero copy here needs completion on ACK.
	 */
	err = ddp_tx_message(s, &m);
	sw_ddp_mem_put_sgl(mr, m.num_sge);
	*bytes = m.len;
	if (err)
		ibdev_dbg(&s->sdev->ibdev, "QP %u: %s of %u bytes failed: %d\n",
			  s->qp->base.qp_num, rdmap_opcode_tagged(m.op) ?
			  "Write" : "Send", m.len, err);
	return rdmap_tx_status(err);
}

/*
 * RFC 5040 §4.4: a Read Request.  Its one sink buffer is the SQE's one
 * SGE; the SQE completes when the last Read Response segment lands.
 */
static enum ib_wc_status rdmap_tx_read(struct sw_ddp_stream *s,
				       const struct siw_sqe *sqe, u32 seq)
{
	struct sw_ddp_tx_msg m = { .op = RDMAP_OP_READ_REQ };
	struct rdmap_read_req_hdr hdr;
	struct sw_ddp_read *rd;
	struct sw_ddp_mr *mr;
	u32 len = sqe->num_sge ? sqe->sge[0].length : 0;

	/*
	 * An ORD of zero (the peer's IRD in its MPA Reply, or the
	 * consumer's max_rd_atomic): the peer takes no Read Request, and
	 * one sent would only get its Terminate.
	 */
	if (sqe->num_sge > 1 || !s->ord_neg)
		return IB_WC_LOC_QP_OP_ERR;
	if (len && sw_ddp_mem_get_checked(s->sdev, sqe->sge[0].lkey,
					  s->qp->base.pd,
					  IB_ACCESS_LOCAL_WRITE,
					  sqe->sge[0].laddr, len, &mr))
		return IB_WC_LOC_PROT_ERR;
	if (len)
		sw_ddp_mem_put(mr);	/* checked again as responses land */

	spin_lock_bh(&s->lock);
	rd = sw_ddp_ord_slot(s, s->ord_put);
	*rd = (struct sw_ddp_read){
		.req = {
			.sink_stag = len ? sqe->sge[0].lkey : 0,
			.sink_to = len ? sqe->sge[0].laddr : 0,
			.size = len,
			.src_stag = sqe->rkey,
			.src_to = sqe->raddr,
		},
		.sq_seq = seq,
		.inval = sqe->opcode == SIW_OP_READ_LOCAL_INV,
		.inval_stag = sqe->sge[0].lkey,
	};
	s->ord_put++;
	spin_unlock_bh(&s->lock);

	rdmap_read_req_put(&hdr, &rd->req);
	m.extra = &hdr;
	m.extra_len = sizeof(hdr);
	m.msn = s->msn_tx[RDMAP_QN_READ_REQ]++;
	return rdmap_tx_status(ddp_tx_message(s, &m));
}

/* Local work requests, for kernel QPs: mem.c does the work. */
static enum ib_wc_status rdmap_tx_local(struct sw_ddp_stream *s,
					const struct siw_sqe *sqe)
{
	struct ib_reg_wr reg = {
		.mr = (struct ib_mr *)(uintptr_t)sqe->base_mr,
		.key = sqe->rkey,
		.access = sqe->access,
	};

	if (sqe->opcode == SIW_OP_INVAL_STAG)
		return sw_ddp_mem_invalidate(s->sdev, s->qp->base.pd,
					     sqe->rkey) ?
		       IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
	return sw_ddp_mem_fast_reg(s->qp->base.pd, &reg) ?
	       IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
}

/*
 * An SQE must wait: ORD is used up, or it fences on earlier Reads.  The
 * receive side kicks the engine when a Read completes while one waits
 * (ord_wait, under the lock, so no completion slips between).
 */
static bool rdmap_tx_must_wait_locked(struct sw_ddp_stream *s,
				      const struct siw_sqe *sqe)
{
	u32 reads = s->ord_put - s->ord_get;

	lockdep_assert_held(&s->lock);
	s->ord_wait = (sw_ddp_sqe_is_read(sqe) && reads >= s->ord) ||
		      (reads && sqe->flags & SIW_WQE_READ_FENCE);
	return s->ord_wait;
}

static bool rdmap_tx_must_wait(struct sw_ddp_stream *s,
			       const struct siw_sqe *sqe)
{
	bool wait;

	spin_lock_bh(&s->lock);
	wait = rdmap_tx_must_wait_locked(s, sqe);
	spin_unlock_bh(&s->lock);
	return wait;
}

/*
 * An SQE's CQE was lost to a full CQ: a Local Catastrophic Error, our
 * Terminate first (unless one is recorded already).  None is owed for an
 * SQE flushed in ERROR, nor can one go once the stream is being torn
 * down: the QP fails as it is.
 */
static void rdmap_tx_cqe_lost(struct sw_ddp_stream *s)
{
	if (READ_ONCE(s->qp->state) == SW_DDP_QPS_ERROR ||
	    !sw_ddp_stream_fail(s, RDMAP_ERR_LOCAL_CATASTROPHIC, true))
		sw_ddp_qp_fatal(s->qp);
}

static void rdmap_tx_sqe(struct sw_ddp_stream *s, const struct siw_sqe *sqe,
			 u32 seq)
{
	enum ib_wc_status status;
	u32 bytes = 0;
	int err;

	switch (sqe->opcode) {
	case SIW_OP_WRITE:
	case SIW_OP_SEND:
	case SIW_OP_SEND_REMOTE_INV:
		status = rdmap_tx_data(s, sqe, &bytes);
		break;
	case SIW_OP_READ:
	case SIW_OP_READ_LOCAL_INV:
		status = rdmap_tx_read(s, sqe, seq);
		if (status == IB_WC_SUCCESS) {
			/* it completes with its Response */
			sw_ddp_sq_release(s->qp, seq);
			return;
		}
		break;
	case SIW_OP_INVAL_STAG:
	case SIW_OP_REG_MR:
		status = rdmap_tx_local(s, sqe);
		break;
	default:
		status = IB_WC_LOC_QP_OP_ERR;
		break;
	}
	err = sw_ddp_sq_complete(s->qp, seq, bytes, status);
	/*
	 * A flushed SQE fails nothing: the LLP's close cut it short, and
	 * the teardown that follows takes the QP to ERROR.  Any other
	 * failure fails the stream, unless its teardown began first (the
	 * LLP stopped under it): then the CQE alone tells the consumer.
	 */
	if (status != IB_WC_SUCCESS && status != IB_WC_WR_FLUSH_ERR)
		sw_ddp_stream_fail(s, RDMAP_ERR_LOCAL_CATASTROPHIC,
				   status != IB_WC_GENERAL_ERR);
	if (err == -EOVERFLOW)
		rdmap_tx_cqe_lost(s);
}

/*
 * Take the SQ's next SQE into held.  One the SQ found malformed has
 * completed with IB_WC_LOC_QP_OP_ERR and the QP goes to ERROR: nothing
 * posted after it may go meanwhile, and the peer hears why.
 */
static bool rdmap_tx_take_sqe(struct sw_ddp_stream *s)
{
	int err = sw_ddp_sq_next(s->qp, &s->held, &s->held_seq);

	/* found in the stream's teardown, it fails the QP all the same */
	if (err == -EINVAL &&
	    !sw_ddp_stream_fail(s, RDMAP_ERR_LOCAL_CATASTROPHIC, true))
		sw_ddp_qp_fatal(s->qp);
	if (err)
		return false;
	s->holding = true;
	s->parked = false;
	return true;
}

/*
 * The held SQE waits: none of its buffers is read until it goes, so a
 * flush meanwhile may complete it (sw_ddp_sq_release()).
 */
static void rdmap_tx_park(struct sw_ddp_stream *s)
{
	if (!s->parked)
		sw_ddp_sq_release(s->qp, s->held_seq);
	s->parked = true;
}

/* The held SQE goes now, unless a flush completed it while it waited. */
static bool rdmap_tx_unpark(struct sw_ddp_stream *s)
{
	s->holding = false;
	return !s->parked || sw_ddp_sq_claim(s->qp, s->held_seq);
}

/*
 * Is there an SQE to send now, the held one first?  It is sent from
 * held, which only the engine, that is we, uses: good until our next
 * look at the SQ.
 */
static bool rdmap_tx_next_sqe(struct sw_ddp_stream *s)
{
	if (!s->holding && !rdmap_tx_take_sqe(s))
		return false;
	if (rdmap_tx_must_wait(s, &s->held)) {
		rdmap_tx_park(s);
		return false;
	}
	return rdmap_tx_unpark(s);
}

static bool rdmap_tx_failed_locked(struct sw_ddp_stream *s)
{
	lockdep_assert_held(&s->lock);
	return s->dead || !sw_ddp_term_err_ok(s->term);
}

static bool rdmap_tx_failed(struct sw_ddp_stream *s)
{
	bool failed;

	spin_lock_bh(&s->lock);
	failed = rdmap_tx_failed_locked(s);
	spin_unlock_bh(&s->lock);
	return failed;
}

/*
 * After the first error: the Terminate if one is owed, then the LLP
 * stream closes and the QP goes to ERROR (RFC 5040 "Terminate Header":
 * nothing more is sent on the stream).
 */
static void rdmap_tx_wind_up(struct sw_ddp_stream *s)
{
	bool send;

	spin_lock_bh(&s->lock);
	if (s->dead) {
		spin_unlock_bh(&s->lock);
		return;
	}
	send = s->term_pending;
	s->term_pending = false;
	s->dead = true;
	spin_unlock_bh(&s->lock);

	if (send)
		rdmap_tx_terminate(s);
	sw_ddp_qp_terminate(s->qp);
}

/*
 * A run gives its worker back after this long and queues itself again.
 * A work item that runs 10 ms or more without sleeping is taken for
 * CPU-bound (the workqueue's cpu_intensive_thresh_us): then whatever is
 * queued on this CPU behind it (an LLP's receive work, another stream's
 * engine) gets a worker of its own, which preempts the engine at its
 * next cond_resched(), two context switches for each kick, for as long
 * as the run goes on (over SCTP, two a message: Documentation/
 * performance.rst).  Given back in time, the one worker runs what queued
 * up behind the engine, then the engine again, without a switch.
 */
#define RDMAP_TX_SLICE_NS	NSEC_PER_MSEC

/*
 * Everything the engine may do now, then, after an error, the wind-up.
 * Return: true if its time is up and there may be more to do.
 */
static bool rdmap_tx_run(struct sw_ddp_stream *s)
{
	u64 start = local_clock();

	while (!rdmap_tx_failed(s)) {
		/* A deep send queue must not hold the CPU (no preemption). */
		cond_resched();
		if (local_clock() - start > RDMAP_TX_SLICE_NS)
			return true;
		if (unlikely(s->rtr_send)) {
			rdmap_rtr_send(s);
			continue;
		}
		if (rdmap_tx_read_resp(s))
			continue;
		if (unlikely(rdmap_rtr_awaited(s)))
			return false;
		if (!rdmap_tx_next_sqe(s))
			return false;
		rdmap_tx_sqe(s, &s->held, s->held_seq);
	}
	rdmap_tx_wind_up(s);
	return false;
}

/*
 * One engine at a time per stream: the work item, or a doorbell's
 * rdmap_tx_inline().  A bit, not a mutex: the stream may be freed as soon
 * as it is clear (sw_ddp_stream_destroy() waits for it).
 */
#define RDMAP_TX_BUSY	0

bool rdmap_tx_trylock(struct sw_ddp_stream *s)
{
	return !test_and_set_bit_lock(RDMAP_TX_BUSY, &s->tx_busy);
}
EXPORT_SYMBOL_IF_KUNIT(rdmap_tx_trylock);

void rdmap_tx_unlock(struct sw_ddp_stream *s)
{
	clear_and_wake_up_bit(RDMAP_TX_BUSY, &s->tx_busy);
}
EXPORT_SYMBOL_IF_KUNIT(rdmap_tx_unlock);

void rdmap_tx_wait_idle(struct sw_ddp_stream *s)
{
	wait_on_bit(&s->tx_busy, RDMAP_TX_BUSY, TASK_UNINTERRUPTIBLE);
}

void rdmap_tx_work(struct work_struct *work)
{
	struct sw_ddp_stream *s = container_of(work, struct sw_ddp_stream,
					       tx_work);
	bool more;

	/* A doorbell's run is short: it sends only what needs no wait. */
	wait_on_bit_lock(&s->tx_busy, RDMAP_TX_BUSY, TASK_UNINTERRUPTIBLE);
	more = rdmap_tx_run(s);
	rdmap_tx_unlock(s);
	/* Behind what was queued meanwhile; sw_ddp_stream_destroy() cancels. */
	if (more)
		sw_ddp_stream_kick(s);
}

/*
 * Messages a doorbell sends itself: small ones (the latency-bound kind),
 * a few, and only while the LLP has room for them, so the consumer's
 * system call does not wait on the network.  The room is an estimate:
 * under global TCP memory pressure a send may still wait, and a signal
 * pending for the caller then fails it, and the stream (known limit).
 *
 * A longer message goes out from the work item on the next CPU: the
 * consumer keeps its own CPU to post and poll while the engine streams
 * on the other, with the peer's receive behind it (over veth, in the
 * engine's softirq), as siw's per-CPU transmit threads do.  Woken on the
 * poster's CPU, the engine took that CPU from the poster at every
 * doorbell, two context switches a message (Documentation/performance.rst).
 */
#define RDMAP_TX_INLINE_MAX	4096	/* payload octets */
#define RDMAP_TX_INLINE_SQES	16
#define RDMAP_TX_INLINE_SLACK	512	/* headers, framing, for each */

static u64 rdmap_tx_sqe_len(const struct siw_sqe *sqe)
{
	u64 len = 0;
	int i;

	if (sqe->flags & SIW_WQE_INLINE)
		return sqe->sge[0].length;
	if (sqe->opcode != SIW_OP_WRITE && sqe->opcode != SIW_OP_SEND &&
	    sqe->opcode != SIW_OP_SEND_REMOTE_INV)
		return 0;	/* a Read Request, or local */
	for (i = 0; i < sqe->num_sge; i++)
		len += sqe->sge[i].length;
	return len;
}

/*
 * Before each message a doorbell sends, in one locked section (the
 * system call pays for each): may it go on, must the work item take over
 * (an error, an RTR to send, a Read to answer), or must it stop (an RTR
 * awaited, or the SQE waits for Reads)?
 */
enum rdmap_tx_inline_next {
	RDMAP_TX_INLINE_GO,
	RDMAP_TX_INLINE_TO_WORK,
	RDMAP_TX_INLINE_STOP,
};

static enum rdmap_tx_inline_next rdmap_tx_inline_next(struct sw_ddp_stream *s,
						      const struct siw_sqe *sqe)
{
	enum rdmap_tx_inline_next next = RDMAP_TX_INLINE_GO;

	spin_lock_bh(&s->lock);
	if (rdmap_tx_failed_locked(s) || s->rtr_send ||
	    s->ird_put != s->ird_get)
		next = RDMAP_TX_INLINE_TO_WORK;
	else if (s->rtr_wait != SW_DDP_RTR_NONE ||
		 rdmap_tx_must_wait_locked(s, sqe))
		next = RDMAP_TX_INLINE_STOP;
	spin_unlock_bh(&s->lock);
	return next;
}

/**
 * rdmap_tx_inline() - run the engine briefly from a doorbell
 * @s: the stream, its engine locked (rdmap_tx_trylock())
 *
 * The SQE is taken first, so that an empty queue costs no stream lock;
 * one that may not go now stays held at the head of the queue for the
 * work item, as rdmap_tx_next_sqe() leaves it.  Errors, RTRs and Read
 * Requests kick the work item themselves.
 *
 * Return: whether the work item must carry on, and where: RDMAP_TX_HERE
 * for more to send than a doorbell sends, no room, a Read Response, an
 * RTR or an error; RDMAP_TX_AWAY for a message too long to send here.
 */
enum rdmap_tx_rest rdmap_tx_inline(struct sw_ddp_stream *s)
{
	unsigned int n;
	u64 len;

	for (n = 0; n < RDMAP_TX_INLINE_SQES; n++) {
		if (!s->holding && !rdmap_tx_take_sqe(s))
			return RDMAP_TX_DONE;
		switch (rdmap_tx_inline_next(s, &s->held)) {
		case RDMAP_TX_INLINE_TO_WORK:
			return RDMAP_TX_HERE;
		case RDMAP_TX_INLINE_STOP:
			rdmap_tx_park(s);
			return RDMAP_TX_DONE;
		case RDMAP_TX_INLINE_GO:
			break;
		}
		len = rdmap_tx_sqe_len(&s->held);
		if (len > RDMAP_TX_INLINE_MAX)
			return RDMAP_TX_AWAY;	/* bulk: the work sends it */
		if (len + RDMAP_TX_INLINE_SLACK > ddp_tx_room(s))
			return RDMAP_TX_HERE;
		/* only the engine, that is we, uses held */
		if (!rdmap_tx_unpark(s))
			return RDMAP_TX_DONE;	/* flushed while it waited */
		rdmap_tx_sqe(s, &s->held, s->held_seq);
	}
	return RDMAP_TX_HERE;
}

/* Read Responses the receive upcall answers itself, payload octets */
#define RDMAP_TX_NOW_MAX	128

static bool read_resp_now = true;
module_param(read_resp_now, bool, 0644);
MODULE_PARM_DESC(read_resp_now,
		 "answer a lone short Read from the receive upcall (default on)");

/* May the upcall answer the one Read queued?  Copied to @rd if so. */
static bool rdmap_tx_read_resp_now_ok(struct sw_ddp_stream *s,
				      struct sw_ddp_read *rd)
{
	bool ok;

	spin_lock_bh(&s->lock);
	ok = !rdmap_tx_failed_locked(s) && !s->rtr_send &&
	     s->ird_put - s->ird_get == 1 &&
	     sw_ddp_ird_slot(s, s->ird_get)->req.size <= RDMAP_TX_NOW_MAX;
	if (ok)
		*rd = *sw_ddp_ird_slot(s, s->ird_get);
	spin_unlock_bh(&s->lock);
	return ok;
}

/**
 * rdmap_tx_read_resp_now() - answer a lone short Read where it arrived
 * @s: the stream, in its receive upcall, the Request just queued
 *
 * A Read Request comes in on the CPU where the LLP receives, which over
 * veth is the requester's, inside its own send.  A work item there costs
 * two context switches per Read, on the next CPU an IPI and a wake-up
 * (Documentation/performance.rst); answering from the upcall costs
 * neither.  Only when nothing else is owed first: the engine idle (not
 * between the segments of a message), no RTR or Terminate to send, no
 * older Request, and the response short enough to copy in atomic context.
 * The entry stays queued until it has gone, so that a response the LLP
 * cannot take now goes from the work item as before; its IRD slot is not
 * needed sooner, as the peer's next Request comes in through this upcall,
 * after it.
 *
 * Return: true if answered (or the stream failed trying), false if the
 * work item must answer it.
 */
bool rdmap_tx_read_resp_now(struct sw_ddp_stream *s)
{
	struct sw_ddp_tx_msg m;
	struct sw_ddp_read rd;
	int err;

	/* look first: a work item the bit held up would sleep and wake */
	if (!READ_ONCE(read_resp_now) || !rdmap_tx_read_resp_now_ok(s, &rd))
		return false;
	if (!rdmap_tx_trylock(s))
		return false;
	if (!rdmap_tx_read_resp_now_ok(s, &rd)) {
		rdmap_tx_unlock(s);
		return false;
	}

	rdmap_tx_read_resp_msg(&rd, &m);
	m.now = true;
	m.zcopy = false;
	err = ddp_tx_message(s, &m);
	if (err != -EAGAIN) {
		/* only the engine takes entries, and we hold it */
		rdmap_tx_ird_free(s);
		rdmap_tx_read_resp_sent(s, &rd, err);
	}
	rdmap_tx_unlock(s);
	return err != -EAGAIN;
}

/* Stream teardown: the SQE at @seq completes flushed.  Was its CQE lost? */
static bool rdmap_tx_flush_sqe(struct sw_ddp_stream *s, u32 seq)
{
	return sw_ddp_sq_complete(s->qp, seq, 0, IB_WC_WR_FLUSH_ERR) ==
	       -EOVERFLOW;
}

/*
 * Stream teardown: what the engine took and will not finish.  The stream
 * can send no Terminate now; a CQE lost to a full CQ fails the QP.
 */
void rdmap_tx_flush(struct sw_ddp_stream *s)
{
	bool lost = false;

	if (s->holding)
		lost |= rdmap_tx_flush_sqe(s, s->held_seq);
	s->holding = false;
	while (s->ord_get != s->ord_put) {
		const struct sw_ddp_read *rd = sw_ddp_ord_slot(s, s->ord_get);

		if (!rd->rtr)
			lost |= rdmap_tx_flush_sqe(s, rd->sq_seq);
		s->ord_get++;
	}
	if (lost)
		sw_ddp_qp_fatal(s->qp);
	while (s->ird_get != s->ird_put) {
		struct sw_ddp_mr *mr = sw_ddp_ird_slot(s, s->ird_get)->mr;

		if (mr)
			sw_ddp_mem_put(mr);
		s->ird_get++;
	}
}
