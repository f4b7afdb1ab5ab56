// SPDX-License-Identifier: GPL-2.0
/*
 * A QP's data path over one LLP endpoint: creation when the connection is
 * established, the transmit kick, failure, and teardown.
 */
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "stream.h"

/**
 * sw_ddp_stream_create() - start the data path of a connected QP
 * @qp: the QP
 * @llp: its established LLP endpoint; it must deliver received segments
 *	 to sw_ddp_stream_rx_ops with the returned stream as upper.  Its
 *	 RFC 6581 RTR to send or to wait for (llp.h) is taken over.
 * @ord: RDMA Reads we may have outstanding (RFC 6581 negotiated)
 * @ird: RDMA Reads the peer may have outstanding
 *
 * Return: the stream, or an ERR_PTR.
 */
struct sw_ddp_stream *sw_ddp_stream_create(struct sw_ddp_qp *qp,
					   struct sw_ddp_llp *llp, u8 ord,
					   u8 ird)
{
	struct sw_ddp_stream *s = kzalloc(sizeof(*s), GFP_KERNEL);
	u32 i;

	if (!s)
		return ERR_PTR(-ENOMEM);
	s->qp = qp;
	s->sdev = to_sdev(qp->base.device);
	s->llp = llp;
	s->rtr_send = llp->rtr_send;
	s->rtr_wait = llp->rtr_wait;
	s->ord = max_t(u8, ord, 1);
	s->ird = max_t(u8, ird, 1);
	s->ord_neg = ord;
	s->ird_neg = ird;
	/* RFC 5041 §4.3: the first MSN of every queue is one */
	for (i = 0; i < RDMAP_QN_COUNT; i++) {
		s->msn_rx[i] = 1;
		s->msn_tx[i] = 1;
	}
	s->term = SW_DDP_TERM_OK;
	spin_lock_init(&s->lock);
	INIT_WORK(&s->tx_work, rdmap_tx_work);

	/*
	 * A segment's payload is cut at every page, or fast-register block
	 * (never below 4 KiB), of each SGE it takes from.  The LLP's maximum
	 * segment changes with the path (MSS), but never exceeds what a
	 * 16-bit ULPDU_Length (MPA) or SCTP chunk can carry; each SGE may
	 * begin and end inside blocks of its own, two more than its octets
	 * fill.
	 */
	s->max_bv = DIV_ROUND_UP(U16_MAX, SZ_4K) + 2 * SIW_MAX_SGE;
	s->bv = kcalloc(s->max_bv, sizeof(*s->bv), GFP_KERNEL);
	s->ord_mask = roundup_pow_of_two(s->ord) - 1;
	s->ird_mask = roundup_pow_of_two(s->ird) - 1;
	s->ord_q = kcalloc(s->ord_mask + 1, sizeof(*s->ord_q), GFP_KERNEL);
	s->ird_q = kcalloc(s->ird_mask + 1, sizeof(*s->ird_q), GFP_KERNEL);
	s->inline_page = alloc_page(GFP_KERNEL);
	if (!s->bv || !s->ord_q || !s->ird_q || !s->inline_page) {
		sw_ddp_stream_destroy(s);
		return ERR_PTR(-ENOMEM);
	}
	return s;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_stream_create);

/**
 * sw_ddp_stream_destroy() - end the data path
 * @s: the stream
 *
 * The LLP must have stopped calling the receive upcalls.  Work requests
 * the engine had taken complete as flushed.  A failure the engine had no
 * run to wind up (the LLP closed first: a bad segment and the peer's FIN
 * in one packet) still moves the QP to ERROR with its event, as does a
 * CQE lost to a full CQ from now on (rdmap_tx_flush(), rdmap_rx_flush(),
 * rdmap_tx_cqe_lost()): no Terminate can go.  (No event for a QP the
 * consumer moved to ERROR.)
 */
void sw_ddp_stream_destroy(struct sw_ddp_stream *s)
{
	bool unwound;

	spin_lock_bh(&s->lock);
	unwound = !s->dead && !sw_ddp_term_err_ok(s->term);
	s->dead = true;
	spin_unlock_bh(&s->lock);
	/* A doorbell's engine run ends first: it may queue the work. */
	rdmap_tx_wait_idle(s);
	cancel_work_sync(&s->tx_work);
	if (unwound)
		sw_ddp_qp_fatal(s->qp);

	if (s->seg.mr)
		sw_ddp_mem_put(s->seg.mr);
	rdmap_rx_flush(s);
	if (s->ord_q && s->ird_q)
		rdmap_tx_flush(s);
	if (s->inline_page)
		__free_page(s->inline_page);
	kfree(s->ird_q);
	kfree(s->ord_q);
	kfree(s->bv);
	kfree(s);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_stream_destroy);

/*
 * The transmit engine's workqueue: high priority, so a kick runs before a
 * consumer busy-polling its CQ gets the CPU back.  Per CPU, so a kick can
 * choose where the engine runs (one workqueue: a work item queued on it
 * never runs twice at once, which sw_ddp_stream_destroy() relies on).
 */
static struct workqueue_struct *sw_ddp_tx_wq;

int sw_ddp_stream_init(void)
{
	sw_ddp_tx_wq = alloc_workqueue("sw_ddp_tx", WQ_HIGHPRI, 0);
	return sw_ddp_tx_wq ? 0 : -ENOMEM;
}

void sw_ddp_stream_exit(void)
{
	destroy_workqueue(sw_ddp_tx_wq);
}

/* Run the engine on this CPU: the consumer's sends, errors, the RTR. */
void sw_ddp_stream_kick(struct sw_ddp_stream *s)
{
	queue_work(sw_ddp_tx_wq, &s->tx_work);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_stream_kick);

/*
 * Run the engine on the next CPU: for Read Responses, for the Requests a
 * Read's completion lets go (rdmap_rx_read_resp_done()), and for a
 * consumer's long messages (rdmap_tx_inline()).  The Read Request came in
 * where the LLP receives, which over veth is the requester's own CPU,
 * busy-polling for completions.  Answered there, every Request costs two
 * context switches and the responses leave one by one; from another CPU
 * they stream out while Requests keep coming (ib_read_bw 4 KiB: twice the
 * rate, Documentation/performance.rst).  A lone short Read answered by
 * the work item there saved the IPI, and ib_read_lat took longer all the
 * same; the receive upcall now answers those itself
 * (rdmap_tx_read_resp_now()) when it can.
 */
void sw_ddp_stream_kick_away(struct sw_ddp_stream *s)
{
	queue_work_on(sw_ddp_next_cpu(), sw_ddp_tx_wq, &s->tx_work);
}

/* ib_post_send() and libsiw's doorbell: wake the engine, if connected. */
void sw_ddp_qp_kick(struct sw_ddp_qp *qp)
{
	struct sw_ddp_stream *s;

	rcu_read_lock();
	s = rcu_dereference(qp->stream);
	if (s && !READ_ONCE(s->dead))
		sw_ddp_stream_kick(s);
	rcu_read_unlock();
}

/*
 * libsiw's doorbell, in the poster's system call: a few small messages go
 * out from here, when the LLP takes them without waiting, and save the
 * work item's wake-up (latency).  Otherwise, or for the rest, the work:
 * here, or on the next CPU for a long message.
 */
void sw_ddp_qp_doorbell(struct sw_ddp_qp *qp)
{
	struct sw_ddp_stream *s;

	rcu_read_lock();
	s = rcu_dereference(qp->stream);
	if (!s || READ_ONCE(s->dead)) {
		rcu_read_unlock();
		return;
	}
	if (!rdmap_tx_trylock(s)) {
		sw_ddp_stream_kick(s);	/* it waits for the running engine */
		rcu_read_unlock();
		return;
	}
	/* Ours while TX_BUSY: sw_ddp_stream_destroy() waits for that. */
	rcu_read_unlock();
	switch (rdmap_tx_inline(s)) {
	case RDMAP_TX_DONE:
		break;
	case RDMAP_TX_HERE:
		sw_ddp_stream_kick(s);
		break;
	case RDMAP_TX_AWAY:
		sw_ddp_stream_kick_away(s);
		break;
	}
	rdmap_tx_unlock(s);
}

/*
 * Publish the stream on its QP, and take it back before destroying it:
 * once sw_ddp_stream_detach() returns, nobody can kick it any more.
 */
void sw_ddp_stream_attach(struct sw_ddp_stream *s)
{
	rcu_assign_pointer(s->qp->stream, s);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_stream_attach);

void sw_ddp_stream_detach(struct sw_ddp_stream *s)
{
	RCU_INIT_POINTER(s->qp->stream, NULL);
	synchronize_rcu();
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_stream_detach);

/* The LLP delivers to the stream once it is published on the QP. */
int sw_ddp_stream_start(struct sw_ddp_qp *qp, struct sw_ddp_llp *llp)
{
	struct sw_ddp_stream *s;
	int err;

	s = sw_ddp_stream_create(qp, llp, qp->ord, qp->ird);
	if (IS_ERR(s))
		return PTR_ERR(s);
	err = llp->ops->start(llp, &sw_ddp_stream_rx_ops, s, s->max_bv);
	if (err) {
		sw_ddp_stream_destroy(s);
		return err;
	}
	/*
	 * Published only now that the LLP can send, so a doorbell never
	 * sends on a half-started LLP; the kick takes what was posted while
	 * connecting, and an initiator's RTR first (RFC 6581 §9.2).
	 */
	sw_ddp_stream_attach(s);
	sw_ddp_stream_kick(s);
	return 0;
}

/* No segment in or out once the LLP stopped; then the stream goes. */
void sw_ddp_stream_stop(struct sw_ddp_qp *qp)
{
	struct sw_ddp_stream *s = rcu_dereference_protected(qp->stream, 1);

	qp->llp->ops->stop(qp->llp);
	if (s) {
		sw_ddp_stream_detach(s);
		sw_ddp_stream_destroy(s);
	}
}

/*
 * False if the stream's teardown began before any failure: nothing fails
 * the QP for this one.  A stream that failed before fails its QP (the
 * wind-up, or sw_ddp_stream_destroy()).
 */
static bool sw_ddp_stream_record(struct sw_ddp_stream *s,
				 struct sw_ddp_term_err err, bool send,
				 const u8 *hdr, u32 hdr_len, u32 seg_len)
{
	bool failed;

	spin_lock_bh(&s->lock);
	failed = !sw_ddp_term_err_ok(s->term);
	if (s->dead || failed) {
		spin_unlock_bh(&s->lock);
		return failed;
	}
	s->term = err;
	WRITE_ONCE(s->failed, true);
	s->term_pending = send;
	if (hdr) {
		/* the DDP header, and a Read Request's own after it */
		s->term_hdr_len = min_t(u32, hdr_len, sizeof(s->term_hdr));
		memcpy(s->term_hdr, hdr, s->term_hdr_len);
		s->term_seg_len = seg_len;
	}
	spin_unlock_bh(&s->lock);
	sw_ddp_stream_kick(s);
	return true;
}

bool sw_ddp_stream_fail(struct sw_ddp_stream *s, struct sw_ddp_term_err err,
			bool send)
{
	return sw_ddp_stream_record(s, err, send, NULL, 0, 0);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_stream_fail);

/*
 * The LLP took no more: its stream is closing (-ESHUTDOWN from
 * send_segment(), llp.h).  Our close, the peer's, or a failure the LLP
 * reports itself; the QP's teardown follows and flushes what is left.
 * Unless the stream failed first, its teardown begins here: nothing more
 * is sent, and nothing that fails from now on is a failure of the
 * stream (no Terminate, no event).
 */
void sw_ddp_stream_closing(struct sw_ddp_stream *s)
{
	spin_lock_bh(&s->lock);
	if (sw_ddp_term_err_ok(s->term))
		s->dead = true;
	spin_unlock_bh(&s->lock);
}

/*
 * Whether the Terminate for a received segment quotes its DDP header: if
 * it had one whole, of a layout we know.  A segment shorter than its
 * header (RFC 5041 §4) is not quoted: the rest would be octets the peer
 * never sent; nor one of another DDP version (§4.1), whose header may
 * not be laid out as ours, as siw does not.
 */
static bool sw_ddp_stream_quotes(const struct sw_ddp_rx_seg *seg)
{
	return seg->hdr_len && ddp_ctrl_dv(seg->hdr[0]) == DDP_VERSION &&
	       seg->hdr_len >= ddp_hdr_len(seg->hdr[0]);
}

/* A received segment failed its checks: the Terminate says which. */
void sw_ddp_stream_fail_rx(struct sw_ddp_stream *s,
			   struct sw_ddp_term_err err)
{
	struct sw_ddp_rx_seg *seg = &s->seg;

	sw_ddp_stream_record(s, err, true,
			     sw_ddp_stream_quotes(seg) ? seg->hdr : NULL,
			     seg->hdr_len, seg->hdr_len + seg->len);
}
