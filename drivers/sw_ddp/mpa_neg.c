// SPDX-License-Identifier: GPL-2.0
/*
 * MPA connection parameters (RFC 5044 "Connection Setup", RFC 6581): what
 * the initiator's Request asks for, what the responder answers, and what
 * the two then use.  No I/O: llp_tcp.c sends and receives the frames.
 */
#include <linux/bitops.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <kunit/visibility.h>

#include "llp_tcp.h"
#include "sw_ddp.h"

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
		if (offer->p2p) {
			req->ird |= MPA_V2_IRD_P2P;
			if (offer->rtr & SW_DDP_RTR_SEND)
				req->ird |= MPA_V2_IRD_RTR_SEND;
			if (offer->rtr & SW_DDP_RTR_WRITE)
				req->ord |= MPA_V2_ORD_RTR_WRITE;
			if (offer->rtr & SW_DDP_RTR_READ)
				req->ord |= MPA_V2_ORD_RTR_READ;
		}
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

/* Responder's pick among the offered RTRs: Write, then Read, then Send. */
static enum sw_ddp_rtr mpa_rtr_pick(u8 offered, u8 local)
{
	static const enum sw_ddp_rtr pref[] = {
		SW_DDP_RTR_WRITE, SW_DDP_RTR_READ, SW_DDP_RTR_SEND,
	};
	unsigned int i;

	/* RFC 6581 leaves "P2P, no type" open: a Write, as siw assumes. */
	if (!offered)
		offered = SW_DDP_RTR_WRITE;
	for (i = 0; i < ARRAY_SIZE(pref); i++)
		if (offered & local & pref[i])
			return pref[i];
	return SW_DDP_RTR_NONE;
}

static void mpa_rtr_encode(struct mpa_rr_info *info, enum sw_ddp_rtr rtr)
{
	info->ird |= MPA_V2_IRD_P2P;
	if (rtr == SW_DDP_RTR_SEND)
		info->ird |= MPA_V2_IRD_RTR_SEND;
	else if (rtr == SW_DDP_RTR_WRITE)
		info->ord |= MPA_V2_ORD_RTR_WRITE;
	else
		info->ord |= MPA_V2_ORD_RTR_READ;
}

/*
 * RFC 6581 IRD/ORD for the responder: it may issue no more Reads than
 * the initiator serves (its ORD <= the initiator's IRD) and serves at least
 * as many as the initiator issues, raising its IRD up to the device limit.
 */
static int mpa_answer_ird_ord(const struct mpa_rr_info *req,
			      const struct sw_ddp_mpa_cfg *local,
			      struct sw_ddp_mpa_conn *conn)
{
	u16 peer_ird = req->ird & MPA_V2_IRD_ORD_MASK;
	u16 peer_ord = req->ord & MPA_V2_IRD_ORD_MASK;

	if (peer_ord > SW_DDP_MAX_IRD)
		return -ENOMEM;		/* RFC 6581: insufficient IRD */
	conn->ord = min(local->ord, peer_ird);
	conn->ird = max(local->ird, peer_ord);
	return 0;
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
 * wants to receive markers, and the peer's choice wins.  RFC 6581: IRD/ORD
 * and at most one RTR type, picked from those offered.
 *
 * Return: 0, or -ENOMEM when we cannot serve the Reads the peer issues.
 */
int sw_ddp_mpa_answer(const struct mpa_rr_info *req,
		      const struct sw_ddp_mpa_cfg *local,
		      struct mpa_rr_info *rep, struct sw_ddp_mpa_conn *conn)
{
	int err;

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
		err = mpa_answer_ird_ord(req, local, conn);
		if (err)
			return err;
		rep->flags |= MPA_FLAG_ENHANCED;
		rep->ird = conn->ird;
		rep->ord = conn->ord;
		if ((req->ird & MPA_V2_IRD_P2P) && local->p2p)
			conn->rtr = mpa_rtr_pick(mpa_rtr_bits(req), local->rtr);
		if (conn->rtr) {
			mpa_rtr_encode(rep, conn->rtr);
			conn->rtr_wait = true;
		}
	}
	rep->pdata = local->pdata;
	rep->pdata_len = local->pdata_len;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mpa_answer);

/* RFC 6581 on the initiator: the Reply's IRD/ORD and RTR. */
static int mpa_conclude_v2(const struct sw_ddp_mpa_cfg *offer,
			   const struct mpa_rr_info *rep,
			   struct sw_ddp_mpa_conn *conn)
{
	u16 peer_ird = rep->ird & MPA_V2_IRD_ORD_MASK;
	u16 peer_ord = rep->ord & MPA_V2_IRD_ORD_MASK;
	u8 rtr = mpa_rtr_bits(rep);

	if (peer_ord > max_t(u16, offer->ird, SW_DDP_MAX_IRD))
		return -ENOMEM;		/* insufficient IRD */
	conn->ird = max(offer->ird, peer_ord);
	conn->ord = min(offer->ord, peer_ird);
	if (!offer->p2p || !(rep->ird & MPA_V2_IRD_P2P))
		return 0;
	/* exactly one type, one we offered */
	if (hweight8(rtr) != 1 || !(rtr & offer->rtr))
		return -EPROTO;		/* no matching RTR */
	conn->rtr = rtr;
	conn->rtr_send = true;
	return 0;
}

/**
 * sw_ddp_mpa_conclude() - the initiator's side of the negotiation
 * @offer: what our Request asked for
 * @rep: the peer's valid, accepting Reply
 * @conn: the outcome (marker bases are the caller's)
 *
 * Return: 0, -EPROTO for a Reply that does not answer our Request (higher
 * revision, RFC 6581 data missing, no RTR type of ours) or -ENOMEM when
 * the peer's ORD exceeds what we can serve.
 */
int sw_ddp_mpa_conclude(const struct sw_ddp_mpa_cfg *offer,
			const struct mpa_rr_info *rep,
			struct sw_ddp_mpa_conn *conn)
{
	bool asked_v2 = offer->rev >= MPA_REV_2;

	memset(conn, 0, sizeof(*conn));
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
	conn->ird = offer->ird;
	conn->ord = offer->ord;
	if (!conn->enhanced)
		return 0;
	return mpa_conclude_v2(offer, rep, conn);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mpa_conclude);
