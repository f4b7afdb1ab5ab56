// SPDX-License-Identifier: GPL-2.0
/*
 * DDP receive (RFC 5041): check each arriving segment and place its
 * payload straight into the target memory, tagged or untagged; hand whole
 * messages to RDMAP (rdmap_rx.c).
 *
 * These are the LLP's receive upcalls for a stream.  They run in the
 * LLP's receive context, one segment at a time, and never sleep.  Checks
 * run in the order the RFCs list them, DDP's before RDMAP's, and every
 * byte is placed only after the STag, PD, rights and bounds were checked
 * in the same access section (mem.h).
 */
#include <linux/highmem.h>
#include <linux/module.h>
#include <kunit/visibility.h>

#include "ddp.h"
#include "rdmap.h"
#include "stream.h"

static unsigned int ddp_rx_hdr_len(void *upper, const u8 *ctrl)
{
	if (ddp_ctrl_tagged(ctrl[0]))
		return DDP_TAGGED_HDR_LEN;
	/* The Read Request header is gathered with the DDP header. */
	if (rdmap_ctrl_opcode(ctrl[1]) == RDMAP_OP_READ_REQ)
		return DDP_UNTAGGED_HDR_LEN + RDMAP_READ_REQ_LEN;
	return DDP_UNTAGGED_HDR_LEN;
}

/*
 * The PD a receive's SGEs are checked against: an SRQ's own, which need
 * not be its QP's, for the RQEs it holds (as siw checks them).
 */
static struct ib_pd *ddp_rx_rqe_pd(struct sw_ddp_stream *s)
{
	struct ib_qp *qp = &s->qp->base;

	return qp->srq ? qp->srq->pd : qp->pd;
}

/*
 * Nothing more is received once the stream has failed, whichever side
 * found the error: our Terminate is, or is about to be, the last message
 * of the stream (RFC 5040 §5.4), which has ended for the QP, though its
 * move to ERROR (from a work item) is still to come: no Send completes,
 * no Write lands.  siw too receives only in RTS.  Nor once the consumer
 * moved the QP to ERROR and its WQEs are flushed: no byte more is placed,
 * nothing completes, and no Terminate goes out; the LLP is closing the
 * stream.  Asked before each segment and each piece of one: a segment
 * may arrive in several (TCP).  The QP waits for an upcall under way
 * (llp ops rx_sync) before it flushes.
 */
static bool ddp_rx_stopped(struct sw_ddp_stream *s)
{
	if (unlikely(READ_ONCE(s->failed)))
		return true;
	if (likely(READ_ONCE(s->qp->state) != SW_DDP_QPS_ERROR))
		return false;
	sw_ddp_stream_fail(s, DDP_ERR_LOCAL_CATASTROPHIC, false);
	return true;
}

/* Queue 0: the message's RQE, taken when its first segment arrives. */
static struct sw_ddp_term_err ddp_rx_take_rqe(struct sw_ddp_stream *s)
{
	struct sw_ddp_rx_send *m = &s->send;
	u32 bad;
	int err;

	err = sw_ddp_rq_get(s->qp, &m->rqe);
	/*
	 * None because the consumer moved the QP to ERROR since this
	 * segment began (its RQE, if taken, is flushed): no "no buffer"
	 * Terminate for an abort of our own.
	 */
	if (err == -ENOENT && ddp_rx_stopped(s))
		return DDP_ERR_LOCAL_CATASTROPHIC;
	if (err == -ENOENT)
		return SW_DDP_TERM_OK;		/* none: "no buffer" below */
	/* A malformed RQE (completed already) is our fault, not the peer's. */
	if (err)
		return DDP_ERR_LOCAL_CATASTROPHIC;
	m->active = true;
	m->len = 0;
	m->buf_len = sw_ddp_sge_from_siw(m->rqe.sge, m->rqe.num_sge, m->sge);
	/*
	 * So is a receive buffer we cannot use: it completes as a send
	 * queue's would, with a protection error (a CQE lost to a full CQ
	 * changes nothing, the stream fails either way).
	 */
	if (sw_ddp_mem_get_sgl(s->sdev, ddp_rx_rqe_pd(s), m->sge,
			       m->rqe.num_sge, IB_ACCESS_LOCAL_WRITE, m->mr,
			       &bad)) {
		rdmap_rx_send_fail(s, IB_WC_LOC_PROT_ERR);
		return DDP_ERR_LOCAL_CATASTROPHIC;
	}
	return SW_DDP_TERM_OK;
}

/* What the sink has for the segment's QN and MSN (RFC 5041 §7.1). */
static struct sw_ddp_term_err ddp_rx_queue_view(struct sw_ddp_stream *s,
						struct sw_ddp_queue_view *v)
{
	struct sw_ddp_rx_seg *seg = &s->seg;
	struct sw_ddp_term_err err = SW_DDP_TERM_OK;

	*v = (struct sw_ddp_queue_view){ .qn_valid = seg->qn < RDMAP_QN_COUNT };
	if (!v->qn_valid)
		return err;
	v->msn_first = s->msn_rx[seg->qn];
	switch (seg->qn) {
	case RDMAP_QN_SEND:
		if (!s->send.active && seg->msn == v->msn_first)
			err = ddp_rx_take_rqe(s);
		v->nbufs = s->send.active;
		v->buf_len = s->send.buf_len;
		break;
	case RDMAP_QN_READ_REQ:
		/*
		 * IRD buffers: Read Requests the peer may have outstanding;
		 * none if the connection's IRD is zero.  As on the Send
		 * queue, only the next MSN has one: both LLPs hand untagged
		 * segments up in order, so a later MSN means the peer skipped
		 * one, which would never come (RFC 5041 §5.4: each message
		 * delivered once, in order).
		 */
		spin_lock_bh(&s->lock);
		v->nbufs = s->ird_put - s->ird_get < s->ird_neg;
		spin_unlock_bh(&s->lock);
		v->buf_len = RDMAP_READ_REQ_LEN;
		break;
	default:
		v->nbufs = 1;
		v->buf_len = SW_DDP_TERM_MAX;
		break;
	}
	return err;
}

static struct sw_ddp_term_err ddp_rx_untagged_begin(struct sw_ddp_stream *s)
{
	struct sw_ddp_rx_seg *seg = &s->seg;
	struct ddp_untagged_fields f;
	struct sw_ddp_queue_view v;
	struct sw_ddp_term_err err;
	u32 seg_len = seg->hdr_len + seg->len;

	ddp_untagged_hdr_get((struct ddp_untagged_hdr *)seg->hdr, &f);
	seg->qn = f.qn;
	seg->msn = f.msn;
	seg->mo = f.mo;
	err = ddp_rx_queue_view(s, &v);
	if (sw_ddp_term_err_ok(err))
		err = ddp_validate_untagged((void *)seg->hdr, seg_len, &v);
	/*
	 * RFC 5041 §5.4: a message is Delivered once all of it is placed,
	 * its length where its last segment ends.  Both LLPs hand up a
	 * message's segments in order, so each begins where the one before
	 * it ended: octets skipped would never come.
	 */
	if (sw_ddp_term_err_ok(err) && seg->qn == RDMAP_QN_SEND &&
	    seg->mo != s->send.len)
		err = DDP_ERR_UT_INVALID_MO;
	if (sw_ddp_term_err_ok(err))
		err = rdmap_validate_ctrl(seg->hdr, seg_len);
	return err;
}

/*
 * A tagged segment's target refused it (RFC 5041 §7.1).  For a Read
 * Response that target is our own Data Sink, which the consumer has
 * invalidated or deregistered since it posted the Read: the Read fails
 * with a protection error, as siw's does.
 */
static struct sw_ddp_term_err ddp_rx_tagged_err(struct sw_ddp_stream *s,
						enum sw_ddp_mem_err e)
{
	if (s->seg.op == RDMAP_OP_READ_RESP)
		s->seg.read_fail = IB_WC_LOC_PROT_ERR;
	return ddp_stag_err(e);
}

/* Resolve the target STag; ddp_rx_place_tagged() checks the access. */
static struct sw_ddp_term_err ddp_rx_tagged_begin(struct sw_ddp_stream *s)
{
	struct sw_ddp_rx_seg *seg = &s->seg;
	const struct ddp_tagged_hdr *h = (void *)seg->hdr;
	struct sw_ddp_term_err err;

	err = rdmap_validate_ctrl(seg->hdr, seg->hdr_len + seg->len);
	if (!sw_ddp_term_err_ok(err))
		return err;
	seg->to = ddp_tagged_to(h);
	if (seg->op == RDMAP_OP_READ_RESP) {
		err = rdmap_rx_read_resp_begin(s);
		if (!sw_ddp_term_err_ok(err))
			return err;
	}
	/* RFC 5041 §5.2: a zero-length segment's STag is not checked */
	if (!seg->len)
		return SW_DDP_TERM_OK;
	/*
	 * The STag's MR, referenced; its checks (RFC 5041 §7.1) come with
	 * the first payload, in the section that places it, and cover the
	 * whole segment.  Payload always follows a non-empty header.
	 */
	seg->mr = sw_ddp_mem_get(s->sdev, ddp_tagged_stag(h));
	if (!seg->mr)
		return ddp_rx_tagged_err(s, SW_DDP_MEM_INVALID_STAG);
	return SW_DDP_TERM_OK;
}

static struct sw_ddp_term_err ddp_rx_begin(void *upper, const void *hdr,
					   unsigned int hdr_len,
					   u32 payload_len)
{
	struct sw_ddp_stream *s = upper;
	struct sw_ddp_rx_seg *seg = &s->seg;
	struct sw_ddp_term_err err;

	if (ddp_rx_stopped(s))
		return DDP_ERR_LOCAL_CATASTROPHIC;
	if (hdr_len > sizeof(seg->hdr))
		return DDP_ERR_LOCAL_CATASTROPHIC;
	/* A segment shorter than its header (SCTP) leaves zeros, not stale */
	memset(seg->hdr + hdr_len, 0, sizeof(seg->hdr) - hdr_len);
	memcpy(seg->hdr, hdr, hdr_len);
	seg->hdr_len = hdr_len;
	seg->len = payload_len;
	seg->done = 0;
	seg->mr = NULL;
	seg->rtr = false;
	seg->read_fail = IB_WC_SUCCESS;
	seg->op = rdmap_ctrl_opcode(seg->hdr[1]);
	seg->last = ddp_ctrl_last(seg->hdr[0]);

	/* RFC 5041 §4.1, §4.2, §4.3: version and header first */
	err = ddp_validate_segment(seg->hdr, hdr_len + payload_len, NULL,
				   NULL);
	/* RFC 6581 §9.2: a responder's first message is the RTR */
	if (sw_ddp_term_err_ok(err) && unlikely(s->rtr_wait))
		err = rdmap_rtr_rx_begin(s);
	if (sw_ddp_term_err_ok(err) && !seg->rtr)
		err = ddp_ctrl_tagged(seg->hdr[0]) ? ddp_rx_tagged_begin(s) :
						     ddp_rx_untagged_begin(s);
	return err;
}

/* Copy from the LLP into one chunk of target memory. */
static int ddp_rx_place_bvec(void *ctx, const struct bio_vec *bv)
{
	struct sw_ddp_rx_src *src = ctx;
	void *p = kmap_local_page(bv->bv_page);
	int err = src->copy(src, p + bv->bv_offset, bv->bv_len);

	kunmap_local(p);
	return err;
}

/*
 * Tagged: check and place, in one access section.  The check covers the
 * rest of the segment, not only this piece: no octet of a segment that
 * fails it is placed (RFC 5041 §7.1), and the MR may have changed since
 * the segment's last piece.
 */
static struct sw_ddp_term_err ddp_rx_place_tagged(struct sw_ddp_stream *s,
						  struct sw_ddp_rx_src *src,
						  u32 len)
{
	struct sw_ddp_rx_seg *seg = &s->seg;
	int access = seg->op == RDMAP_OP_READ_RESP ? IB_ACCESS_LOCAL_WRITE :
						     IB_ACCESS_REMOTE_WRITE;
	u32 stag = ddp_tagged_stag((void *)seg->hdr);
	struct sw_ddp_mem_iter it;
	enum sw_ddp_mem_err e;
	struct bio_vec bv;
	int err = 0;

	sw_ddp_mem_lock(seg->mr);
	e = sw_ddp_mem_check_locked(seg->mr, stag, s->qp->base.pd, access,
				    seg->to + seg->done, seg->len - seg->done);
	if (!e) {
		sw_ddp_mem_iter_start(&it, seg->mr, seg->to + seg->done, len);
		while (!err && sw_ddp_mem_iter_next(&it, &bv))
			err = ddp_rx_place_bvec(src, &bv);
		err = err ?: it.err;
	}
	sw_ddp_mem_unlock(seg->mr);
	if (e)
		return ddp_rx_tagged_err(s, e);
	return err ? DDP_ERR_LOCAL_CATASTROPHIC : SW_DDP_TERM_OK;
}

static struct sw_ddp_term_err ddp_rx_place_untagged(struct sw_ddp_stream *s,
						    struct sw_ddp_rx_src *src,
						    u32 len)
{
	struct sw_ddp_rx_send *m = &s->send;

	if (sw_ddp_mem_sgl_walk(m->sge, m->mr, m->rqe.num_sge,
				ddp_rx_rqe_pd(s), IB_ACCESS_LOCAL_WRITE,
				s->seg.mo + s->seg.done, len, ddp_rx_place_bvec,
				src))
		return DDP_ERR_LOCAL_CATASTROPHIC;
	return SW_DDP_TERM_OK;
}

static struct sw_ddp_term_err ddp_rx_payload(void *upper,
					     struct sw_ddp_rx_src *src,
					     u32 len)
{
	struct sw_ddp_stream *s = upper;
	struct sw_ddp_rx_seg *seg = &s->seg;
	struct sw_ddp_term_err err = DDP_ERR_LOCAL_CATASTROPHIC;

	if (ddp_rx_stopped(s))
		return err;
	switch (seg->op) {
	case RDMAP_OP_WRITE:
	case RDMAP_OP_READ_RESP:
		err = ddp_rx_place_tagged(s, src, len);
		break;
	case RDMAP_OP_TERMINATE:
		if (!src->copy(src, s->term_rx + seg->mo + seg->done, len))
			err = SW_DDP_TERM_OK;
		break;
	case RDMAP_OP_READ_REQ:
		break;		/* its header took all of it */
	default:
		err = ddp_rx_place_untagged(s, src, len);
		break;
	}
	seg->done += len;
	return err;
}

/* A segment is whole: for its message's last, tell RDMAP. */
static struct sw_ddp_term_err ddp_rx_end_seg(struct sw_ddp_stream *s)
{
	struct sw_ddp_rx_seg *seg = &s->seg;
	struct sw_ddp_term_err err = SW_DDP_TERM_OK;

	if (seg->mr) {
		sw_ddp_mem_put(seg->mr);
		seg->mr = NULL;
	}
	if (ddp_rx_stopped(s))
		return DDP_ERR_LOCAL_CATASTROPHIC;
	if (unlikely(seg->rtr))
		return rdmap_rtr_rx_end(s);
	switch (seg->op) {
	case RDMAP_OP_WRITE:
		break;
	case RDMAP_OP_READ_RESP:
		err = rdmap_rx_read_resp_done(s);
		break;
	case RDMAP_OP_READ_REQ:
		err = rdmap_rx_read_req(s);
		break;
	case RDMAP_OP_TERMINATE:
		s->term_rx_len = max(s->term_rx_len, seg->mo + seg->len);
		if (!seg->last)
			break;
		rdmap_rx_terminate(s);
		/*
		 * A Terminate is the last message of its stream (RFC 5040,
		 * "Terminate Message"): an error stops the LLP's reception
		 * here.  The stream has failed already, with no Terminate
		 * back, so this error is not recorded.
		 */
		err = RDMAP_ERR_OP_UNSPECIFIED;
		break;
	default:
		s->send.len += seg->len;
		if (seg->last)
			err = rdmap_rx_send_done(s);
		break;
	}
	/* RFC 5041 §5.4: the next message on this queue has the next MSN */
	if (!ddp_ctrl_tagged(seg->hdr[0]) && seg->last && seg->qn < RDMAP_QN_COUNT)
		s->msn_rx[seg->qn]++;
	return err;
}

static struct sw_ddp_term_err ddp_rx_end(void *upper)
{
	struct sw_ddp_stream *s = upper;
	struct sw_ddp_term_err err = ddp_rx_end_seg(s);

	/*
	 * An LLP error before the next begin() quotes no segment's header;
	 * this segment's own error quotes it.
	 */
	if (sw_ddp_term_err_ok(err))
		s->seg.hdr_len = 0;
	return err;
}

/*
 * The stream fails: for what an upcall returned, once the LLP knows the
 * segment arrived as sent, or for the LLP's own error.  The Terminate
 * quotes the segment's header if begin() had it.
 */
static void ddp_rx_error(void *upper, struct sw_ddp_term_err err)
{
	struct sw_ddp_stream *s = upper;

	/* A message too long for its receive completes it so, as siw's. */
	if (s->seg.qn == RDMAP_QN_SEND && s->send.active &&
	    (sw_ddp_term_err_eq(err, DDP_ERR_UT_TOO_LONG) ||
	     sw_ddp_term_err_eq(err, DDP_ERR_UT_INVALID_MO)))
		rdmap_rx_send_fail(s, IB_WC_LOC_LEN_ERR);
	sw_ddp_stream_fail_rx(s, err);
	/*
	 * A failed Read Response fails its Read, once the engine sends no
	 * more: that frees its ORD slot, for which a fence may be waiting.
	 */
	if (s->seg.read_fail != IB_WC_SUCCESS)
		rdmap_rx_read_resp_fail(s, s->seg.read_fail);
}

/*
 * RFC 5041 §5.3: the Data Sink MAY place segments out of order; §5.4:
 * it delivers messages in order.  Over SCTP a segment may arrive before
 * earlier ones (RFC 5043 §10), and only an RDMA Write's is placed then:
 * it completes nothing at the sink, and no earlier segment changes the
 * checks begin() makes but a Send with Invalidate.  A Write the peer
 * sent after one for its STag may thus land before that Send arrives:
 * the same bytes the peer could have written just before the Send, and
 * the ULP sees them only after the Send completes.  An error still
 * fails the stream at once, as in turn.
 *
 * Read Responses are kept for their turn: rdmap_rx_read_resp_begin()
 * checks each segment against the oldest outstanding Read, at the next
 * octet, and a later Read's segments could overtake the end of an
 * earlier one.  Untagged segments wait too: their RQE, Read Request
 * slot or Terminate is chosen by MSN in order.
 */
static bool ddp_rx_may_place_early(void *upper, const void *hdr,
				   unsigned int hdr_len)
{
	const u8 *ctrl = hdr;

	return hdr_len >= DDP_TAGGED_HDR_LEN && ddp_ctrl_tagged(ctrl[0]) &&
	       rdmap_ctrl_opcode(ctrl[1]) == RDMAP_OP_WRITE;
}

const struct sw_ddp_rx_ops sw_ddp_stream_rx_ops = {
	.hdr_len = ddp_rx_hdr_len,
	.begin = ddp_rx_begin,
	.payload = ddp_rx_payload,
	.end = ddp_rx_end,
	.error = ddp_rx_error,
	.may_place_early = ddp_rx_may_place_early,
};
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_stream_rx_ops);
