// SPDX-License-Identifier: GPL-2.0
/*
 * RDMAP receive (RFC 5040): what a whole message means.  A Send completes
 * its receive WQE (invalidating an STag first for the Invalidate kinds), a
 * Read Request becomes a Read Response to send, a Read Response completes
 * our Read, a Terminate ends the stream.  Called by ddp_rx.c in the LLP's
 * receive context.
 */
#include "ddp.h"
#include "rdmap.h"
#include "stream.h"

static void rdmap_rx_put_send_mrs(struct sw_ddp_rx_send *m)
{
	sw_ddp_mem_put_sgl(m->mr, m->rqe.num_sge);
	m->active = false;
}

/* RFC 5040 "Send with Invalidate": the STag must be ours to invalidate. */
static struct sw_ddp_term_err rdmap_rx_invalidate(struct sw_ddp_stream *s,
						  u32 stag)
{
	switch (sw_ddp_mem_remote_invalidate(s->sdev, s->qp->base.pd, stag)) {
	case SW_DDP_MEM_OK:
		return SW_DDP_TERM_OK;
	case SW_DDP_MEM_PD_MISMATCH:
		return RDMAP_ERR_PROT_STAG_NOT_ASSOC;
	case SW_DDP_MEM_CANNOT_INVALIDATE:
		return RDMAP_ERR_PROT_CANNOT_INVALIDATE;
	default:
		return RDMAP_ERR_PROT_INVALID_STAG;
	}
}

/* The last segment of a Send arrived: complete its receive WQE. */
struct sw_ddp_term_err rdmap_rx_send_done(struct sw_ddp_stream *s)
{
	struct sw_ddp_rx_send *m = &s->send;
	const struct ddp_untagged_hdr *h = (void *)s->seg.hdr;
	struct sw_ddp_term_err err = SW_DDP_TERM_OK;
	struct sw_ddp_wc wc = {
		.wr_id = m->rqe.id,
		.status = IB_WC_SUCCESS,
		.bytes = m->len,
		.solicited = s->seg.op == RDMAP_OP_SEND_SE ||
			     s->seg.op == RDMAP_OP_SEND_SE_INV,
	};

	if (!m->active)		/* a zero-length message needs its WQE too */
		return DDP_ERR_UT_MSN_NO_BUF;
	if (rdmap_opcode_invalidates(s->seg.op)) {
		wc.inval = true;
		wc.inval_stag = be32_to_cpu(h->rsvdulp1);
		err = rdmap_rx_invalidate(s, wc.inval_stag);
		if (!sw_ddp_term_err_ok(err))
			wc.status = IB_WC_REM_INV_REQ_ERR;
	}
	rdmap_rx_put_send_mrs(m);
	if (sw_ddp_rq_complete(s->qp, &wc) == -EOVERFLOW)
		return RDMAP_ERR_LOCAL_CATASTROPHIC;	/* CQ overflow */
	return err;
}

/*
 * RFC 5040 §4.4: a Read Request.  Its Data Source is checked now, so the
 * Terminate names the request; the response goes out from the transmit
 * side, in request order, interleaved at message boundaries: a lone
 * short one from here, the rest from the work item on the next CPU.
 */
struct sw_ddp_term_err rdmap_rx_read_req(struct sw_ddp_stream *s)
{
	const struct rdmap_read_req_hdr *rr =
		(void *)(s->seg.hdr + DDP_UNTAGGED_HDR_LEN);
	struct sw_ddp_mr *mr = NULL;
	struct sw_ddp_read *rd;
	struct rdmap_read_req req;
	enum sw_ddp_mem_err e = SW_DDP_MEM_OK;

	rdmap_read_req_get(rr, &req);
	if (req.size)
		e = sw_ddp_mem_get_checked(s->sdev, req.src_stag,
					   s->qp->base.pd,
					   IB_ACCESS_REMOTE_READ, req.src_to,
					   req.size, &mr);
	if (e)
		return rdmap_src_err(e);

	spin_lock_bh(&s->lock);
	rd = sw_ddp_ird_slot(s, s->ird_put);
	*rd = (struct sw_ddp_read){ .req = req, .mr = mr };
	s->ird_put++;
	spin_unlock_bh(&s->lock);
	if (!rdmap_tx_read_resp_now(s))
		sw_ddp_stream_kick_away(s);
	return SW_DDP_TERM_OK;
}

/* The oldest Read we sent, which Read Responses answer in order. */
static struct sw_ddp_read *rdmap_rx_ord_head(struct sw_ddp_stream *s)
{
	struct sw_ddp_read *rd = NULL;

	spin_lock_bh(&s->lock);
	if (s->ord_put != s->ord_get)
		rd = sw_ddp_ord_slot(s, s->ord_get);
	spin_unlock_bh(&s->lock);
	return rd;
}

/* RFC 5040 "RDMA Read Response": it must answer our oldest Read. */
struct sw_ddp_term_err rdmap_rx_read_resp_begin(struct sw_ddp_stream *s)
{
	const struct ddp_tagged_hdr *h = (void *)s->seg.hdr;
	struct sw_ddp_read *rd = rdmap_rx_ord_head(s);

	if (!rd)
		return RDMAP_ERR_OP_OPCODE;
	/*
	 * RFC 5041 §5.2: a zero-length Tagged DDP Message's STag and TO
	 * are not checked; read_resp_done() still wants all of the Read.
	 */
	if (!s->seg.len)
		return SW_DDP_TERM_OK;
	/* Each fails the Read too: ddp_rx_error() completes it so. */
	if (ddp_tagged_stag(h) != rd->req.sink_stag) {
		s->seg.read_fail = IB_WC_LOC_PROT_ERR;
		return DDP_ERR_T_INVALID_STAG;
	}
	if (s->seg.to != rd->req.sink_to + rd->done) {
		s->seg.read_fail = IB_WC_LOC_PROT_ERR;
		return DDP_ERR_T_BASE_BOUNDS;
	}
	if (s->seg.len > rd->req.size - rd->done) {
		s->seg.read_fail = IB_WC_LOC_LEN_ERR;	/* as siw's */
		return DDP_ERR_T_BASE_BOUNDS;
	}
	return SW_DDP_TERM_OK;
}

/*
 * The oldest Read @rd leaves the ORD, copied to @out first: its slot is
 * the transmit side's again once ord_get moves.  Returns whether an SQE
 * was waiting for that slot.
 */
static bool rdmap_rx_ord_pop(struct sw_ddp_stream *s,
			     const struct sw_ddp_read *rd,
			     struct sw_ddp_read *out)
{
	bool waited;

	*out = *rd;
	spin_lock_bh(&s->lock);
	s->ord_get++;
	waited = s->ord_wait;
	s->ord_wait = false;
	spin_unlock_bh(&s->lock);
	return waited;
}

/*
 * The last Read Response segment has landed: complete the Read.  A Read
 * with Local Invalidate invalidates its Data Sink's STag before it
 * completes; if it cannot (the consumer's error, not the peer's), the
 * Read completes in error and the stream ends, as for any local work
 * request that fails.
 */
struct sw_ddp_term_err rdmap_rx_read_resp_done(struct sw_ddp_stream *s)
{
	struct sw_ddp_read *rd = rdmap_rx_ord_head(s);
	struct sw_ddp_read done;
	enum ib_wc_status status = IB_WC_SUCCESS;
	bool kick;

	rd->done += s->seg.len;
	if (!s->seg.last)
		return SW_DDP_TERM_OK;
	if (rd->done != rd->req.size) {
		s->seg.read_fail = IB_WC_LOC_LEN_ERR;
		return DDP_ERR_T_BASE_BOUNDS;
	}
	kick = rdmap_rx_ord_pop(s, rd, &done);
	if (done.inval && sw_ddp_mem_invalidate(s->sdev, s->qp->base.pd,
						done.inval_stag))
		status = IB_WC_LOC_PROT_ERR;
	/* RFC 6581: our Read RTR was answered; it has no SQE to complete */
	if (!done.rtr && sw_ddp_sq_complete(s->qp, done.sq_seq, done.req.size,
					    status) == -EOVERFLOW)
		return RDMAP_ERR_LOCAL_CATASTROPHIC;
	if (status != IB_WC_SUCCESS)
		return RDMAP_ERR_LOCAL_CATASTROPHIC;
	/*
	 * The engine goes on if an SQE waits for this slot, or if libsiw
	 * posted behind the Read: it rings no doorbell while the slot before
	 * its SQE is still valid (sq.c).  Not here, where the responses
	 * arrive (over veth, the CPU the peer's engine sends them from):
	 * our next Read Requests would leave from there too, the peer's
	 * engine would stay there to answer them, and both ends' work would
	 * pile onto that one CPU for good (Documentation/performance.rst,
	 * "Read Requests from the next CPU").
	 */
	if (kick || sw_ddp_sq_pending(s->qp))
		sw_ddp_stream_kick_away(s);
	return SW_DDP_TERM_OK;
}

/*
 * The Read Response in hand failed its checks, or could not be placed:
 * the oldest Read, which it answers, completes with @status now, as
 * siw's does, not flushed like the work requests after it, so that the
 * consumer sees which one failed and how.  It leaves the ORD.  The
 * stream has failed already (ddp_rx_error()), so a CQE lost to a full CQ
 * changes nothing.
 */
void rdmap_rx_read_resp_fail(struct sw_ddp_stream *s, enum ib_wc_status status)
{
	struct sw_ddp_read *rd = rdmap_rx_ord_head(s);
	struct sw_ddp_read failed;

	if (!rd)
		return;
	rdmap_rx_ord_pop(s, rd, &failed);	/* no kick: the stream failed */
	if (!failed.rtr)
		sw_ddp_sq_complete(s->qp, failed.sq_seq, failed.done, status);
}

/* The peer terminated the stream: no Terminate goes back (RFC 5040). */
void rdmap_rx_terminate(struct sw_ddp_stream *s)
{
	struct rdmap_term_info ti;

	/* peers choose how often: rate-limited */
	if (!rdmap_term_parse(s->term_rx, s->term_rx_len, &ti))
		ibdev_info_ratelimited(&s->sdev->ibdev,
				       "QP %u: peer sent Terminate %x/%x/%02x\n",
				       s->qp->base.qp_num, ti.err.layer,
				       ti.err.etype, ti.err.ecode);
	sw_ddp_stream_fail(s, RDMAP_ERR_OP_UNSPECIFIED, false);
}

/*
 * The Send's receive WQE completes now, in error: the message failed, and
 * the stream with it (or the stream is being torn down), so a lost CQE
 * needs no Terminate of its own.  Returns as sw_ddp_rq_complete().
 */
int rdmap_rx_send_fail(struct sw_ddp_stream *s, enum ib_wc_status status)
{
	struct sw_ddp_wc wc = {
		.wr_id = s->send.rqe.id,
		.status = status,
	};

	rdmap_rx_put_send_mrs(&s->send);
	return sw_ddp_rq_complete(s->qp, &wc);
}

/*
 * For stream teardown: a receive WQE taken but never completed.  The
 * stream can send no Terminate now; a CQE lost to a full CQ fails the QP.
 */
void rdmap_rx_flush(struct sw_ddp_stream *s)
{
	if (s->send.active &&
	    rdmap_rx_send_fail(s, IB_WC_WR_FLUSH_ERR) == -EOVERFLOW)
		sw_ddp_qp_fatal(s->qp);
}
