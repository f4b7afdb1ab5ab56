// SPDX-License-Identifier: GPL-2.0
/*
 * RFC 6581 peer-to-peer mode in the engine: the Ready to Receive (RTR)
 * indication, a zero-length RDMA Write, RDMA Read or Send that the
 * initiator sends before any other message (RFC 6581 §5) and that the
 * responder must have received before it sends anything (§9.2).  The LLP
 * negotiated which one (llp.h: rtr_send, rtr_wait).
 *
 * The RTR belongs to the provider, not to the consumers (RFC 6581 §4.4.2):
 * no work request sends it, no receive takes it, no completion reports it,
 * and a Read RTR's zero-length Read Response is consumed here too.
 */
#include "rdmap.h"
#include "stream.h"

/*
 * The STag a zero-length Write or Read RTR names.  RFC 5041 §5.2: nobody
 * checks it; it is not 0, which some RNICs treat as special.
 */
#define RDMAP_RTR_STAG	1

/* A Read RTR holds the first ORD slot (always free) until its response. */
static void rdmap_rtr_read(struct sw_ddp_stream *s,
			   struct rdmap_read_req_hdr *hdr)
{
	struct sw_ddp_read *rd;

	spin_lock_bh(&s->lock);
	rd = sw_ddp_ord_slot(s, s->ord_put);
	*rd = (struct sw_ddp_read){
		.req = {
			.sink_stag = RDMAP_RTR_STAG,
			.src_stag = RDMAP_RTR_STAG,
		},
		.rtr = true,
	};
	s->ord_put++;
	spin_unlock_bh(&s->lock);
	rdmap_read_req_put(hdr, &rd->req);
}

/**
 * rdmap_rtr_send() - the initiator's RTR, as the stream's first message
 * @s: the stream, in its transmit work, with s->rtr_send set
 *
 * RFC 6581 §9.2 and §9.3: the initiator sends the negotiated RTR before
 * any other FPDU; every later message follows it in the same work item.
 */
void rdmap_rtr_send(struct sw_ddp_stream *s)
{
	struct sw_ddp_tx_msg m = { .stag = RDMAP_RTR_STAG };
	struct rdmap_read_req_hdr hdr;
	enum sw_ddp_rtr rtr = s->rtr_send;

	s->rtr_send = SW_DDP_RTR_NONE;
	switch (rtr) {
	case SW_DDP_RTR_WRITE:
		m.op = RDMAP_OP_WRITE;
		break;
	case SW_DDP_RTR_SEND:
		m.op = RDMAP_OP_SEND;
		m.msn = s->msn_tx[RDMAP_QN_SEND]++;
		break;
	case SW_DDP_RTR_READ:
		rdmap_rtr_read(s, &hdr);
		m.op = RDMAP_OP_READ_REQ;
		m.extra = &hdr;
		m.extra_len = sizeof(hdr);
		m.msn = s->msn_tx[RDMAP_QN_READ_REQ]++;
		break;
	default:
		return;
	}
	if (ddp_tx_message(s, &m))
		sw_ddp_stream_fail(s, RDMAP_ERR_LOCAL_CATASTROPHIC, false);
}

/* Responder: the consumer's messages wait until the RTR has come in. */
bool rdmap_rtr_awaited(struct sw_ddp_stream *s)
{
	bool awaited;

	spin_lock_bh(&s->lock);
	awaited = s->rtr_wait != SW_DDP_RTR_NONE;
	spin_unlock_bh(&s->lock);
	return awaited;
}

/* The RTR type a message of opcode @op would be. */
static enum sw_ddp_rtr rdmap_rtr_type(enum rdmap_opcode op)
{
	switch (op) {
	case RDMAP_OP_WRITE:
		return SW_DDP_RTR_WRITE;
	case RDMAP_OP_READ_REQ:
		return SW_DDP_RTR_READ;
	case RDMAP_OP_SEND:
	case RDMAP_OP_SEND_SE:
		return SW_DDP_RTR_SEND;
	default:
		return SW_DDP_RTR_NONE;
	}
}

/*
 * The segment is the agreed RTR: of its type, one whole message of no
 * payload; untagged, the first message of its queue at MO 0; a Read, of
 * size 0.  A Write's STag and TO are not checked (RFC 5041 §5.2).
 */
static bool rdmap_rtr_matches(struct sw_ddp_stream *s)
{
	struct sw_ddp_rx_seg *seg = &s->seg;
	struct ddp_untagged_fields f;
	struct rdmap_read_req req;

	if (rdmap_rtr_type(seg->op) != s->rtr_wait || seg->len || !seg->last)
		return false;
	if (ddp_ctrl_tagged(seg->hdr[0]))
		return true;
	ddp_untagged_hdr_get((struct ddp_untagged_hdr *)seg->hdr, &f);
	seg->qn = f.qn;
	seg->msn = f.msn;
	seg->mo = f.mo;
	if (f.msn != s->msn_rx[f.qn] || f.mo)
		return false;
	if (seg->op != RDMAP_OP_READ_REQ)
		return true;
	rdmap_read_req_get((const void *)(seg->hdr + DDP_UNTAGGED_HDR_LEN),
			   &req);
	return !req.size;
}

/**
 * rdmap_rtr_rx_begin() - a responder's segment while the RTR is awaited
 * @s: the stream, its receive side; s->seg has passed the DDP checks
 *
 * RFC 6581 §9.2: the first message must be the negotiated RTR; it is
 * marked s->seg.rtr, and the rest of the receive path leaves it to
 * rdmap_rtr_rx_end().  A Terminate is taken as any Terminate is.
 * Anything else is answered with "No matching RTR option" (RFC 6581 §8):
 * the connection models do not match.
 *
 * Return: SW_DDP_TERM_OK, or the error to terminate with.
 */
struct sw_ddp_term_err rdmap_rtr_rx_begin(struct sw_ddp_stream *s)
{
	struct sw_ddp_rx_seg *seg = &s->seg;
	struct sw_ddp_term_err err;

	if (seg->op == RDMAP_OP_TERMINATE)
		return SW_DDP_TERM_OK;
	err = rdmap_validate_ctrl(seg->hdr, seg->hdr_len + seg->len);
	if (!sw_ddp_term_err_ok(err))
		return err;
	if (!rdmap_rtr_matches(s))
		return MPA_ERR_NO_MATCHING_RTR;
	seg->rtr = true;
	return SW_DDP_TERM_OK;
}

/**
 * rdmap_rtr_rx_end() - the responder's RTR has arrived whole
 * @s: the stream, its receive side
 *
 * The stream may send from now on; a Read RTR is answered like any Read,
 * by a zero-length Read Response.  The LLP tells the connection manager,
 * which reports the connection established.
 *
 * Return: SW_DDP_TERM_OK, or the error to terminate with.
 */
struct sw_ddp_term_err rdmap_rtr_rx_end(struct sw_ddp_stream *s)
{
	struct sw_ddp_rx_seg *seg = &s->seg;
	struct sw_ddp_term_err err = SW_DDP_TERM_OK;

	spin_lock_bh(&s->lock);
	s->rtr_wait = SW_DDP_RTR_NONE;
	spin_unlock_bh(&s->lock);
	/* RFC 5041 §5.4: the queue's next message has the next MSN */
	if (!ddp_ctrl_tagged(seg->hdr[0]))
		s->msn_rx[seg->qn]++;
	if (seg->op == RDMAP_OP_READ_REQ)
		err = rdmap_rx_read_req(s);
	sw_ddp_llp_rtr_received(s->llp);
	sw_ddp_stream_kick(s);
	return err;
}
