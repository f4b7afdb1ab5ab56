// SPDX-License-Identifier: GPL-2.0
/*
 * MPA connection parameters (RFC 5044 "Connection Setup", RFC 6581): what
 * the initiator's Request asks for, what the responder answers, and what
 * the two then use.  No I/O: llp_tcp.c sends and receives the frames.
 */
#include <linux/minmax.h>
#include <linux/module.h>
#include <kunit/visibility.h>

#include "llp_tcp.h"
#include "sw_ddp.h"

/* RFC 6581 §9: A, and the B, C, D flags of every type in @mask. */
static void mpa_rtr_encode(struct mpa_rr_info *info, u8 mask)
{
	info->ird |= MPA_V2_IRD_P2P;
	if (mask & SW_DDP_RTR_SEND)
		info->ird |= MPA_V2_IRD_RTR_SEND;
	if (mask & SW_DDP_RTR_WRITE)
		info->ord |= MPA_V2_ORD_RTR_WRITE;
	if (mask & SW_DDP_RTR_READ)
		info->ord |= MPA_V2_ORD_RTR_READ;
}

/* RFC 5044: the Request as the initiator sends it. */
void sw_ddp_mpa_offer(const struct sw_ddp_mpa_cfg *offer,
		      struct mpa_rr_info *req)
{
	memset(req, 0, sizeof(*req));
	req->rev = offer->rev;
	if (offer->crc)
		req->flags |= MPA_FLAG_C;
	if (offer->markers)
		req->flags |= MPA_FLAG_M;
	if (offer->rev >= MPA_REV_2) {
		/* RFC 6581: IRD/ORD, and the RTR types we can send */
		req->flags |= MPA_FLAG_ENHANCED;
		req->ird = offer->ird & MPA_V2_IRD_ORD_MASK;
		req->ord = offer->ord & MPA_V2_IRD_ORD_MASK;
		if (offer->p2p)
			mpa_rtr_encode(req, offer->rtr);
	}
	req->pdata = offer->pdata;
	req->pdata_len = offer->pdata_len;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mpa_offer);

/* RTR types a frame's RFC 6581 data names. */
static u8 mpa_rtr_bits(const struct mpa_rr_info *info)
{
	u8 rtr = 0;

	if (info->ird & MPA_V2_IRD_RTR_SEND)
		rtr |= SW_DDP_RTR_SEND;
	if (info->ord & MPA_V2_ORD_RTR_WRITE)
		rtr |= SW_DDP_RTR_WRITE;
	if (info->ord & MPA_V2_ORD_RTR_READ)
		rtr |= SW_DDP_RTR_READ;
	return rtr;
}

/* One RTR type out of @mask, by preference: Write, then Read, then Send. */
static enum sw_ddp_rtr mpa_rtr_pick(u8 mask)
{
	static const enum sw_ddp_rtr pref[] = {
		SW_DDP_RTR_WRITE, SW_DDP_RTR_READ, SW_DDP_RTR_SEND,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pref); i++)
		if (mask & pref[i])
			return pref[i];
	return SW_DDP_RTR_NONE;
}

/*
 * RFC 6581 §9.1 on the responder: its ORD at most the initiator's IRD, its
 * IRD at least the initiator's ORD as far as the device goes (the
 * initiator then lowers its ORD to our IRD).  An all-ones value asks for
 * no negotiation: our value stays as it is and all ones go back.
 */
static void mpa_answer_ird_ord(const struct mpa_rr_info *req,
			       const struct sw_ddp_mpa_cfg *local,
			       struct mpa_rr_info *rep,
			       struct sw_ddp_mpa_conn *conn)
{
	u16 peer_ird = req->ird & MPA_V2_IRD_ORD_MASK;
	u16 peer_ord = req->ord & MPA_V2_IRD_ORD_MASK;

	conn->ord = local->ord;
	conn->ird = local->ird;
	rep->ord = MPA_V2_IRD_ORD_MASK;
	rep->ird = MPA_V2_IRD_ORD_MASK;
	if (peer_ird != MPA_V2_IRD_ORD_MASK) {
		conn->ord = min(local->ord, peer_ird);
		rep->ord = conn->ord;
	}
	if (peer_ord != MPA_V2_IRD_ORD_MASK) {
		conn->ird = max_t(u16, local->ird,
				  min_t(u16, peer_ord, SW_DDP_MAX_IRD));
		rep->ird = conn->ird;
	}
}

/*
 * RFC 6581 §9.2 on the responder: A is answered with A and the RTR type
 * picked from those offered; when none of them is one we take, with the
 * types we take, and the initiator then terminates ("No matching RTR
 * option").  Either way nothing goes out before an RTR has come in.
 */
static void mpa_answer_p2p(const struct mpa_rr_info *req,
			   const struct sw_ddp_mpa_cfg *local,
			   struct mpa_rr_info *rep,
			   struct sw_ddp_mpa_conn *conn)
{
	u8 offered = mpa_rtr_bits(req);

	/* RFC 6581 leaves "P2P, no type" open: a Write, as siw assumes. */
	if (!offered)
		offered = SW_DDP_RTR_WRITE;
	conn->rtr = mpa_rtr_pick(offered & local->rtr);
	mpa_rtr_encode(rep, conn->rtr ? conn->rtr : local->rtr);
	if (!conn->rtr)
		conn->rtr = mpa_rtr_pick(local->rtr);
	conn->rtr_wait = true;
	/* §9.1: a Read RTR needs an IRD of one, raised if need be */
	if (conn->rtr == SW_DDP_RTR_READ && !conn->ird) {
		conn->ird = 1;
		rep->ird = (rep->ird & ~MPA_V2_IRD_ORD_MASK) | 1;
	}
}

/**
 * sw_ddp_mpa_answer() - the responder's side of the negotiation
 * @req: the peer's valid Request
 * @local: what we accept with; its private data goes in the Reply
 * @rep: the Reply to send
 * @conn: the outcome (marker bases are the caller's)
 *
 * RFC 5044: the Reply carries the Request's revision or a lower one we
 * prefer; CRCs are used when either side asks (C); each side's M says it
 * wants to receive markers, and the peer's choice wins.  RFC 6581: IRD/ORD,
 * and peer-to-peer mode whenever the initiator asks for it, with one RTR
 * type picked from those offered (@local->p2p is the initiator's choice).
 */
void sw_ddp_mpa_answer(const struct mpa_rr_info *req,
		       const struct sw_ddp_mpa_cfg *local,
		       struct mpa_rr_info *rep, struct sw_ddp_mpa_conn *conn)
{
	memset(rep, 0, sizeof(*rep));
	memset(conn, 0, sizeof(*conn));
	conn->rev = min(req->rev, local->rev);
	conn->enhanced = conn->rev >= MPA_REV_2 && mpa_rr_enhanced(req);
	conn->crc = (req->flags & MPA_FLAG_C) || local->crc;
	conn->tx_markers = req->flags & MPA_FLAG_M;
	conn->rx_markers = local->markers;
	conn->ird = local->ird;
	conn->ord = local->ord;

	rep->rev = conn->rev;
	rep->flags = (conn->crc ? MPA_FLAG_C : 0) |
		     (conn->rx_markers ? MPA_FLAG_M : 0);
	if (conn->enhanced) {
		rep->flags |= MPA_FLAG_ENHANCED;
		mpa_answer_ird_ord(req, local, rep, conn);
		if (req->ird & MPA_V2_IRD_P2P)
			mpa_answer_p2p(req, local, rep, conn);
	}
	rep->pdata = local->pdata;
	rep->pdata_len = local->pdata_len;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mpa_answer);

/*
 * RFC 6581 §9.1 on the initiator: IRD raised at least to the responder's
 * ORD, ORD lowered at most to the responder's IRD, all ones leaving ours
 * as it is.  An IRD we cannot raise that far is "Insufficient IRD
 * resources", which the initiator reports in a Terminate.
 */
static int mpa_conclude_ird_ord(const struct sw_ddp_mpa_cfg *offer,
				const struct mpa_rr_info *rep,
				struct sw_ddp_mpa_conn *conn,
				struct sw_ddp_term_err *term)
{
	u16 peer_ird = rep->ird & MPA_V2_IRD_ORD_MASK;
	u16 peer_ord = rep->ord & MPA_V2_IRD_ORD_MASK;

	if (peer_ird != MPA_V2_IRD_ORD_MASK)
		conn->ord = min(offer->ord, peer_ird);
	if (peer_ord != MPA_V2_IRD_ORD_MASK)
		conn->ird = max(offer->ird, peer_ord);
	if (conn->ird > max_t(u16, offer->ird, SW_DDP_MAX_IRD)) {
		*term = MPA_ERR_INSUFFICIENT_IRD;
		return -ENOMEM;
	}
	return 0;
}

/*
 * RFC 6581 §9.2 on the initiator: the Reply must answer A with A and name
 * at least one RTR type we offered, of which we send one; otherwise we
 * terminate with "No matching RTR option".
 */
static int mpa_conclude_p2p(const struct sw_ddp_mpa_cfg *offer,
			    const struct mpa_rr_info *rep,
			    struct sw_ddp_mpa_conn *conn,
			    struct sw_ddp_term_err *term)
{
	u8 rtr = mpa_rtr_bits(rep) & offer->rtr;

	if (!(rep->ird & MPA_V2_IRD_P2P) || !rtr) {
		*term = MPA_ERR_NO_MATCHING_RTR;
		return -EPROTO;
	}
	conn->rtr = mpa_rtr_pick(rtr);
	conn->rtr_send = true;
	return 0;
}

/**
 * sw_ddp_mpa_conclude() - the initiator's side of the negotiation
 * @offer: what our Request asked for
 * @rep: the peer's valid, accepting Reply
 * @conn: the outcome (marker bases are the caller's)
 * @term: on error, the Terminate RFC 6581 §8 has the initiator send in
 *	  FPDU mode before it closes, or SW_DDP_TERM_OK for none
 *
 * Return: 0, -EPROTO for a Reply that does not answer our Request (higher
 * revision, RFC 6581 data missing; no peer-to-peer mode or RTR type of
 * ours when we asked for it: *@term says so) or -ENOMEM when the peer's
 * ORD exceeds what we can serve (*@term too).  @conn holds the negotiated
 * IRD and ORD in every case, to be reported (RFC 6581 §9.1).
 */
int sw_ddp_mpa_conclude(const struct sw_ddp_mpa_cfg *offer,
			const struct mpa_rr_info *rep,
			struct sw_ddp_mpa_conn *conn,
			struct sw_ddp_term_err *term)
{
	bool asked_v2 = offer->rev >= MPA_REV_2;
	int err;

	memset(conn, 0, sizeof(*conn));
	*term = SW_DDP_TERM_OK;
	conn->ird = offer->ird;
	conn->ord = offer->ord;
	if (rep->rev > offer->rev)
		return -EPROTO;
	/* RFC 6581: a Rev 2 responder answers an enhanced Request in kind */
	if (asked_v2 && rep->rev >= MPA_REV_2 && !mpa_rr_enhanced(rep))
		return -EPROTO;
	conn->rev = rep->rev;
	conn->enhanced = asked_v2 && mpa_rr_enhanced(rep);
	conn->crc = offer->crc || (rep->flags & MPA_FLAG_C);
	conn->tx_markers = rep->flags & MPA_FLAG_M;
	conn->rx_markers = offer->markers;
	if (!conn->enhanced)
		return 0;
	err = mpa_conclude_ird_ord(offer, rep, conn, term);
	if (!err && offer->p2p)
		err = mpa_conclude_p2p(offer, rep, conn, term);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mpa_conclude);
