// SPDX-License-Identifier: GPL-2.0
/*
 * MPA receive framing (RFC 5044): turn a TCP byte stream, arriving in
 * pieces of any size, into DDP segments for the layer above.
 *
 * Octets are consumed exactly once, straight from the socket's buffers:
 * the ULPDU_Length and DDP header are gathered into a small buffer, the
 * payload is pulled by the layer above directly into its target memory,
 * markers are checked and skipped wherever they fall, and the CRC runs
 * over everything as it goes by.  The same walk as mpa_fpdu_validate(),
 * but resumable at any octet.  An FPDU that arrives whole in one mapped
 * piece, the common case, is framed where it lies instead
 * (mpa_rx_whole()).
 *
 * With CRCs, nothing of an FPDU goes up before its CRC is known good
 * (RFC 5044 §8: an FPDU is verified before its ULPDU is passed on), so
 * one corrupted in flight past TCP's checksum ends the stream with an
 * MPA CRC error, whatever its header seemed to say, and places nothing.
 * An FPDU received whole is checked first where it lies (mpa_rx_whole(),
 * mpa_rx_check_ahead()); one still arriving is left unread until it is
 * whole where the LLP can wait for it (for TCP, where its window lets
 * the rest in), and is otherwise copied aside as it comes (the stage,
 * mpa_rx_stage()), to be framed from there once whole.  Should a check
 * ahead find no verdict (an input that cannot look), the FPDU is framed
 * as it comes, and an error the layer above reports is held until the
 * CRC at its end is known good (mpa_rx_hold()).
 */
#include <linux/crc32c.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "mpa.h"

static bool mpa_rx_failed(const struct mpa_rx *rx)
{
	return !sw_ddp_term_err_ok(rx->err);
}

/* The layer above refused this FPDU; its CRC is still to come. */
static bool mpa_rx_holding(const struct mpa_rx *rx)
{
	return !sw_ddp_term_err_ok(rx->held);
}

/*
 * What the layer above said of this FPDU: an error stops the stream at
 * once without CRCs, and is held for the CRC with them.  Nothing of the
 * FPDU goes up after it.
 */
static void mpa_rx_hold(struct mpa_rx *rx, struct sw_ddp_term_err err)
{
	if (rx->crc && !sw_ddp_term_err_ok(err))
		rx->held = err;
	else
		rx->err = err;
}

/*
 * Read @len octets of the stream into @dst.  All of an FPDU but its CRC
 * field counts for the CRC (RFC 5044 "CRC Calculation"), markers too.
 */
static int mpa_rx_read(struct mpa_rx *rx, void *dst, u32 len, bool sum)
{
	int err = rx->in->read(rx->in, dst, len);

	if (err)
		return err;
	if (rx->crc && sum && !rx->crc_good)
		rx->crc_acc = crc32c(rx->crc_acc, dst, len);
	rx->in->avail -= len;
	rx->seq += len;
	rx->fpdu_off += len;
	return 0;
}

/*
 * Payload of an FPDU the layer above refused, read only for its CRC.
 * Once per stream at most: the stream ends at this FPDU's end.
 */
static void mpa_rx_discard(struct mpa_rx *rx, u32 n)
{
	u8 buf[128];
	u32 k;

	for (; n; n -= k) {
		k = min_t(u32, n, sizeof(buf));
		if (mpa_rx_read(rx, buf, k, true)) {
			rx->err = MPA_ERR_LOCAL_CATASTROPHIC;
			return;
		}
		rx->left -= k;
	}
}

/* sw_ddp_rx_src.copy: how the layer above pulls payload. */
static int mpa_rx_src_copy(struct sw_ddp_rx_src *src, void *dst,
			   unsigned int len)
{
	struct mpa_rx *rx = container_of(src, struct mpa_rx, src);

	if (len > rx->pulled_max - rx->pulled)
		return -EINVAL;
	rx->pulled += len;
	return mpa_rx_read(rx, dst, len, true);
}

/* whole_src.copy: payload of an FPDU framed where it lies */
static int mpa_rx_src_whole(struct sw_ddp_rx_src *src, void *dst,
			    unsigned int len)
{
	struct mpa_rx *rx = container_of(src, struct mpa_rx, whole_src);

	if (len > rx->pulled_max - rx->pulled)
		return -EINVAL;
	memcpy(dst, rx->whole + rx->pulled, len);
	rx->pulled += len;
	return 0;
}

static int mpa_flat_read(struct mpa_rx_in *in, void *dst, u32 len)
{
	struct mpa_flat_in *f = container_of(in, struct mpa_flat_in, in);

	memcpy(dst, f->pos, len);
	f->pos += len;
	return 0;
}

static u32 mpa_flat_mapped(struct mpa_rx_in *in, const u8 **p)
{
	*p = container_of(in, struct mpa_flat_in, in)->pos;
	return in->avail;
}

static void mpa_flat_skip(struct mpa_rx_in *in, u32 len)
{
	container_of(in, struct mpa_flat_in, in)->pos += len;
}

static int mpa_flat_peek(struct mpa_rx_in *in, u32 off, void *dst, u32 len)
{
	memcpy(dst, container_of(in, struct mpa_flat_in, in)->pos + off, len);
	return 0;
}

static int mpa_flat_crc(struct mpa_rx_in *in, u32 len, u32 *crc)
{
	*crc = crc32c(*crc, container_of(in, struct mpa_flat_in, in)->pos, len);
	return 0;
}

/**
 * mpa_flat_in_init() - octets in memory as an mpa_rx input
 * @f: the input
 * @pos: the octets
 * @len: how many
 * @mapped: offer mapped() and skip() too, so that FPDUs wholly inside are
 *	    framed in place; peek() and crc() are always there
 */
void mpa_flat_in_init(struct mpa_flat_in *f, const u8 *pos, u32 len,
		      bool mapped)
{
	*f = (struct mpa_flat_in){
		.in = {
			.read = mpa_flat_read,
			.peek = mpa_flat_peek,
			.crc = mpa_flat_crc,
			.avail = len,
		},
		.pos = pos,
	};
	if (mapped) {
		f->in.mapped = mpa_flat_mapped;
		f->in.skip = mpa_flat_skip;
	}
}
EXPORT_SYMBOL_IF_KUNIT(mpa_flat_in_init);

/* Octets until the next marker position, or U32_MAX without markers. */
static u32 mpa_rx_to_marker(const struct mpa_rx *rx)
{
	if (!rx->markers)
		return U32_MAX;
	return mpa_marker_offset(rx->marker_base, rx->seq);
}

/*
 * Octets of a marker before the FPDU's next octet: one partly read, or
 * one at the next octet.  FPDUs and markers both start 4-aligned from the
 * stream's first FPDU (RFC 5044 "MPA Markers": FPDU lengths are multiples
 * of four), so no marker splits ULPDU_Length or the CRC field.
 */
static u32 mpa_rx_marker_ahead(const struct mpa_rx *rx)
{
	if (rx->marker_have)
		return MPA_MARKER_SIZE - rx->marker_have;
	return mpa_rx_to_marker(rx) ? 0 : MPA_MARKER_SIZE;
}

static void mpa_rx_start_fpdu(struct mpa_rx *rx)
{
	rx->state = MPA_RX_HDR;
	rx->fpdu_off = 0;
	rx->hdr_off = 0;
	rx->have = 0;
	rx->need = MPA_RX_CTRL_END;	/* ULPDU_Length, both controls */
	rx->crc_acc = ~0U;
	rx->crc_good = false;
	rx->held = SW_DDP_TERM_OK;
}

/*
 * RFC 5044 "Marker Format": FPDUPTR is the distance back to this FPDU's
 * ULPDU_Length, or zero for a marker that starts the FPDU.
 */
static void mpa_rx_marker(struct mpa_rx *rx)
{
	struct mpa_marker *m = &rx->marker;
	u32 n = min(rx->in->avail, MPA_MARKER_SIZE - rx->marker_have);
	u32 off = rx->fpdu_off - rx->marker_have;

	if (mpa_rx_read(rx, (u8 *)m + rx->marker_have, n, true)) {
		rx->err = MPA_ERR_LOCAL_CATASTROPHIC;
		return;
	}
	rx->marker_have += n;
	if (rx->marker_have < MPA_MARKER_SIZE)
		return;

	rx->marker_have = 0;
	if (!off)
		rx->hdr_off = MPA_MARKER_SIZE;
	if (mpa_marker_fpduptr(m) != (off ? off - rx->hdr_off : 0))
		rx->err = MPA_ERR_MARKER;
}

/* Header gathered: the layer above checks it and readies placement. */
static void mpa_rx_begin(struct mpa_rx *rx)
{
	u32 hdr_len = rx->need - MPA_ULPDU_LEN_SIZE;

	rx->left = rx->ulpdu_len - hdr_len;
	mpa_rx_hold(rx, rx->ops->begin(rx->upper, rx->hdr + MPA_ULPDU_LEN_SIZE,
				       hdr_len, rx->left));
	rx->state = MPA_RX_PAYLOAD;
}

/*
 * The header length the layer above asked for is within what we gather,
 * and the ULPDU holds the two control octets it was sized from.
 */
static struct sw_ddp_term_err mpa_rx_hdr_len_check(u32 hdr_len, u16 ulpdu_len)
{
	if (hdr_len > MPA_RX_HDR_MAX || hdr_len < MPA_RX_CTRL_END - 2)
		return MPA_ERR_LOCAL_CATASTROPHIC;
	/* RFC 5041 §4: no DDP segment is shorter than its control octets */
	if (ulpdu_len < MPA_RX_CTRL_END - 2)
		return DDP_ERR_LOCAL_CATASTROPHIC;
	return SW_DDP_TERM_OK;
}

/*
 * The first four octets tell the FPDU's ULPDU_Length and, from the DDP
 * and RDMAP control octets, how much header follows.  A ULPDU shorter
 * than that header is all header: the layer above judges what there is
 * (RFC 5041 §7.2, its version first), as over SCTP.
 */
static void mpa_rx_size_hdr(struct mpa_rx *rx)
{
	struct sw_ddp_term_err err;
	u32 hdr_len;

	rx->ulpdu_len = mpa_fpdu_ulpdu_len((struct mpa_fpdu_hdr *)rx->hdr);
	hdr_len = rx->ops->hdr_len(rx->upper, rx->hdr + MPA_ULPDU_LEN_SIZE);
	err = mpa_rx_hdr_len_check(hdr_len, rx->ulpdu_len);
	if (sw_ddp_term_err_ok(err)) {
		rx->need = MPA_ULPDU_LEN_SIZE +
			   min_t(u32, hdr_len, rx->ulpdu_len);
		return;
	}
	/*
	 * A ULPDU of less than two octets: what was gathered is all of
	 * the FPDU but its CRC (ULPDU_Length, ULPDU and PAD fill four
	 * octets), which decides, if negotiated, what it was.
	 */
	if (rx->crc && sw_ddp_term_err_eq(err, DDP_ERR_LOCAL_CATASTROPHIC)) {
		rx->held = err;
		rx->state = MPA_RX_TRAILER;
		rx->have = mpa_pad_len(rx->ulpdu_len);
		return;
	}
	rx->err = err;
}

static void mpa_rx_hdr(struct mpa_rx *rx, u32 n)
{
	n = min(n, rx->need - rx->have);
	if (mpa_rx_read(rx, rx->hdr + rx->have, n, true)) {
		rx->err = MPA_ERR_LOCAL_CATASTROPHIC;
		return;
	}
	rx->have += n;
	if (rx->have < rx->need)
		return;
	if (rx->need == MPA_RX_CTRL_END) {
		mpa_rx_size_hdr(rx);
		if (mpa_rx_failed(rx) || rx->state != MPA_RX_HDR ||
		    rx->have < rx->need)
			return;
	}
	mpa_rx_begin(rx);
}

static void mpa_rx_payload(struct mpa_rx *rx, u32 n)
{
	struct sw_ddp_term_err err;

	n = min(n, rx->left);
	if (mpa_rx_holding(rx)) {
		mpa_rx_discard(rx, n);
		return;
	}
	rx->pulled = 0;
	rx->pulled_max = n;
	err = rx->ops->payload(rx->upper, &rx->src, n);
	rx->left -= rx->pulled;
	if (!sw_ddp_term_err_ok(err)) {
		mpa_rx_hold(rx, err);
		return;
	}
	/* The layer above must take exactly what it was offered. */
	if (rx->pulled != n)
		rx->err = MPA_ERR_LOCAL_CATASTROPHIC;
}

static void mpa_rx_end(struct mpa_rx *rx)
{
	u32 pad = mpa_pad_len(rx->ulpdu_len);
	__le32 crc;

	/* RFC 5044 "CRC Calculation": checked only where negotiated */
	memcpy(&crc, rx->trailer + pad, sizeof(crc));
	if (rx->crc && !rx->crc_good && le32_to_cpu(crc) != ~rx->crc_acc) {
		rx->err = MPA_ERR_CRC;
		return;
	}
	if (mpa_rx_holding(rx)) {
		rx->err = rx->held;
		return;
	}
	rx->err = rx->ops->end(rx->upper);
	mpa_rx_start_fpdu(rx);
}

/* PAD, then the CRC field. */
static void mpa_rx_trailer(struct mpa_rx *rx, u32 n)
{
	u32 pad = mpa_pad_len(rx->ulpdu_len);
	bool in_pad = rx->have < pad;

	n = min(n, (in_pad ? pad : pad + MPA_CRC_SIZE) - rx->have);
	if (mpa_rx_read(rx, rx->trailer + rx->have, n, in_pad)) {
		rx->err = MPA_ERR_LOCAL_CATASTROPHIC;
		return;
	}
	rx->have += n;
	if (rx->have == pad + MPA_CRC_SIZE)
		mpa_rx_end(rx);
}

/* One step: a marker, or FPDU octets up to the next marker. */
static void mpa_rx_step(struct mpa_rx *rx)
{
	u32 n;

	if (mpa_rx_marker_ahead(rx)) {
		mpa_rx_marker(rx);
		return;
	}
	n = min(rx->in->avail, mpa_rx_to_marker(rx));

	switch (rx->state) {
	case MPA_RX_HDR:
		mpa_rx_hdr(rx, n);
		break;
	case MPA_RX_PAYLOAD:
		if (rx->left)
			mpa_rx_payload(rx, n);
		if (!mpa_rx_failed(rx) && !rx->left) {
			rx->state = MPA_RX_TRAILER;
			rx->have = 0;
		}
		break;
	case MPA_RX_TRAILER:
		mpa_rx_trailer(rx, n);
		break;
	}
}

/*
 * An FPDU that starts here and lies wholly in the input's current mapped
 * piece, with no marker inside it, is framed in place: the same upcalls
 * and checks as octet by octet, in the same order but for the CRC, which
 * goes first, without gathering its header or trailer.  This is the
 * common case (an FPDU per TCP segment, in the skb's linear part or one
 * page fragment).  False, having
 * consumed nothing, for anything else, the malformed included: the
 * step-by-step path then frames it, and reports what is wrong.
 */
static bool mpa_rx_whole(struct mpa_rx *rx)
{
	struct mpa_rx_in *in = rx->in;
	struct sw_ddp_term_err err;
	u32 n, hdr_len, left, wire;
	u16 ulpdu_len;
	const u8 *p;
	__le32 crc;

	n = in->mapped(in, &p);
	if (n < MPA_RX_CTRL_END)
		return false;
	ulpdu_len = mpa_fpdu_ulpdu_len((const struct mpa_fpdu_hdr *)p);
	wire = mpa_fpdu_len(ulpdu_len);
	/* a marker at the next octet, or inside, is not "no marker" */
	if (wire > n || wire > mpa_rx_to_marker(rx))
		return false;
	/*
	 * RFC 5044 "CRC Calculation": all but the CRC field, if negotiated.
	 * All of the FPDU is here, so it is checked before anything of it
	 * goes up: one spoilt in flight places nothing, and the Terminate
	 * quotes no header (no begin()).
	 */
	memcpy(&crc, p + wire - MPA_CRC_SIZE, sizeof(crc));
	if (rx->crc &&
	    le32_to_cpu(crc) != ~crc32c(~0U, p, wire - MPA_CRC_SIZE)) {
		rx->err = MPA_ERR_CRC;
		return true;
	}
	hdr_len = rx->ops->hdr_len(rx->upper, p + MPA_ULPDU_LEN_SIZE);
	if (!sw_ddp_term_err_ok(mpa_rx_hdr_len_check(hdr_len, ulpdu_len)) ||
	    hdr_len > ulpdu_len)
		return false;

	left = ulpdu_len - hdr_len;
	err = rx->ops->begin(rx->upper, p + MPA_ULPDU_LEN_SIZE, hdr_len, left);
	if (sw_ddp_term_err_ok(err) && left) {
		rx->whole = p + MPA_ULPDU_LEN_SIZE + hdr_len;
		rx->pulled = 0;
		rx->pulled_max = left;
		err = rx->ops->payload(rx->upper, &rx->whole_src, left);
		rx->whole = NULL;
		if (sw_ddp_term_err_ok(err) && rx->pulled != left) {
			rx->err = MPA_ERR_LOCAL_CATASTROPHIC;
			return true;
		}
	}
	if (!sw_ddp_term_err_ok(err)) {
		rx->err = err;
		return true;
	}
	rx->err = rx->ops->end(rx->upper);
	in->skip(in, wire);
	in->avail -= wire;
	rx->seq += wire;
	return true;
}

/* Octets received from the next one on: @want, if there are, or all. */
static u32 mpa_rx_received(struct mpa_rx_in *in, u32 want)
{
	if (want <= in->avail || !in->ahead)
		return in->avail;
	return in->avail + in->ahead(in, want - in->avail);
}

/* @rest octets of the FPDU are still to come: wait, if the input can. */
static void mpa_rx_wait(struct mpa_rx *rx, u32 rest)
{
	if (rx->in->hold && rx->in->hold(rx->in, rest))
		rx->waiting = true;
}

/* Octets on the stream of the FPDU being read, markers included. */
static u32 mpa_rx_fpdu_span(const struct mpa_rx *rx, u16 ulpdu_len)
{
	struct mpa_fpdu_cfg cfg = {
		.markers = rx->markers,
		.marker_base = rx->marker_base,
		.seq = rx->seq - rx->fpdu_off,
	};

	return mpa_fpdu_wire_len(&cfg, ulpdu_len);
}

/*
 * The FPDU's last @wire octets are still to come and the input cannot
 * wait for them: copy them aside as they arrive (mpa_rx_stage()).  They
 * fit: an FPDU is at most MPA_FPDU_MAX octets and its markers.  The
 * stage's own input holds all of an FPDU's rest, so it never stages.
 */
static void mpa_rx_stage_start(struct mpa_rx *rx, u32 wire)
{
	if (!rx->stage || wire > MPA_RX_STAGE_MAX || rx->staged) {
		rx->err = MPA_ERR_LOCAL_CATASTROPHIC;
		return;
	}
	rx->stage_len = wire;
	rx->stage_have = 0;
}

/*
 * With CRCs, while an FPDU's header is being gathered (nothing of it
 * has gone up yet), check its CRC ahead if the rest of it has been
 * received: in the input, in whatever pieces (mpa_rx_whole() takes those
 * in one mapped piece), or after it (ahead()).  A bad one is the
 * stream's MPA CRC error; a good one is read octet by octet without
 * summing again (its markers are still checked as they are read).  If
 * the rest is still to come and the input can wait for it (hold()),
 * nothing more is read (rx->waiting): the next input starts here again.
 * If it cannot, the rest is staged.
 */
static void mpa_rx_check_ahead(struct mpa_rx *rx)
{
	u32 got = min_t(u32, rx->have, MPA_ULPDU_LEN_SIZE);
	u32 need = MPA_ULPDU_LEN_SIZE - got, have, wire, crc, at;
	struct mpa_rx_in *in = rx->in;
	__le32 want;
	__be16 len;

	if (!in->peek)
		return;
	/* ULPDU_Length: what of it is not gathered yet, past any marker */
	at = need ? mpa_rx_marker_ahead(rx) : 0;
	have = mpa_rx_received(in, at + need);
	if (have < at + need) {
		mpa_rx_wait(rx, at + need - have);
		return;
	}
	memcpy(&len, rx->hdr, got);
	if (need && in->peek(in, at, (u8 *)&len + got, need))
		return;
	/* what of the FPDU is still to be read */
	wire = mpa_rx_fpdu_span(rx, be16_to_cpu(len));
	if (wire < rx->fpdu_off + MPA_CRC_SIZE)
		return;		/* framing will say what is wrong */
	wire -= rx->fpdu_off;
	have = mpa_rx_received(in, wire);
	if (have < wire) {
		mpa_rx_wait(rx, wire - have);
		if (!rx->waiting)
			mpa_rx_stage_start(rx, wire);
		return;
	}
	/* RFC 5044 "CRC Calculation": markers count, the CRC field not */
	crc = rx->crc_acc;
	if (in->peek(in, wire - MPA_CRC_SIZE, &want, sizeof(want)) ||
	    in->crc(in, wire - MPA_CRC_SIZE, &crc))
		return;
	if (le32_to_cpu(want) != ~crc)
		rx->err = MPA_ERR_CRC;
	else
		rx->crc_good = true;
}

/**
 * mpa_rx_init() - set up the receive side of an MPA stream
 * @rx: state to initialise
 * @ops: the layer above
 * @upper: its context
 * @crc: CRCs were negotiated
 * @markers: this side asked for markers (M bit of our frame)
 * @seq: sequence number of the first FPDU octet to arrive; markers, when
 *	 on, lie at @seq + n * 512 (RFC 5044 "MPA Markers")
 *
 * May sleep: with CRCs, the stage is allocated here, so that reception,
 * in softirq, never waits for memory or goes without.
 *
 * Return: 0, or -ENOMEM (@rx then needs no mpa_rx_fini()).
 */
int mpa_rx_init(struct mpa_rx *rx, const struct sw_ddp_rx_ops *ops,
		void *upper, bool crc, bool markers, u32 seq)
{
	memset(rx, 0, sizeof(*rx));
	if (crc) {
		rx->stage = kvmalloc(MPA_RX_STAGE_MAX, GFP_KERNEL);
		if (!rx->stage)
			return -ENOMEM;
	}
	rx->ops = ops;
	rx->upper = upper;
	rx->crc = crc;
	rx->markers = markers;
	rx->marker_base = seq;
	rx->seq = seq;
	rx->src.copy = mpa_rx_src_copy;
	rx->whole_src.copy = mpa_rx_src_whole;
	rx->err = SW_DDP_TERM_OK;
	mpa_rx_start_fpdu(rx);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(mpa_rx_init);

/* Free what mpa_rx_init() allocated; once more does nothing. */
void mpa_rx_fini(struct mpa_rx *rx)
{
	kvfree(rx->stage);
	rx->stage = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(mpa_rx_fini);

static void mpa_rx_run(struct mpa_rx *rx, struct mpa_rx_in *in);

/*
 * The rest of an FPDU the input could not wait for (mpa_rx_stage_start()),
 * copied aside as it arrives, unseen; all of it in, it is framed from
 * there as from any input, its CRC checked ahead, before anything of it
 * goes up.  Nothing of it counts as read until then: the stream's place
 * (rx->seq, rx->fpdu_off) and its markers are where the stage starts.
 */
static void mpa_rx_stage(struct mpa_rx *rx)
{
	struct mpa_rx_in *in = rx->in;
	u32 n = min(in->avail, rx->stage_len - rx->stage_have);
	struct mpa_flat_in staged;

	if (in->read(in, rx->stage + rx->stage_have, n)) {
		rx->err = MPA_ERR_LOCAL_CATASTROPHIC;
		return;
	}
	in->avail -= n;
	rx->stage_have += n;
	if (rx->stage_have < rx->stage_len)
		return;

	mpa_flat_in_init(&staged, rx->stage, rx->stage_len, true);
	rx->stage_len = 0;
	rx->staged = true;
	mpa_rx_run(rx, &staged.in);
	rx->staged = false;
	rx->in = in;
	/* it held the FPDU's rest, no more: framed, it ends there */
	if (!mpa_rx_failed(rx) && (staged.in.avail || !mpa_rx_idle(rx)))
		rx->err = MPA_ERR_LOCAL_CATASTROPHIC;
}

static void mpa_rx_run(struct mpa_rx *rx, struct mpa_rx_in *in)
{
	bool fresh = true;	/* nothing of this input read yet */

	rx->in = in;
	rx->waiting = false;
	for (; in->avail && !mpa_rx_failed(rx); fresh = false) {
		if (rx->stage_len) {
			mpa_rx_stage(rx);
			continue;
		}
		if (mpa_rx_idle(rx) && in->mapped && mpa_rx_whole(rx))
			continue;
		/*
		 * What a check ahead finds changes only with a new input or
		 * a new FPDU: reading the header shortens what is left of
		 * both the FPDU and the input alike.
		 */
		if (rx->crc && rx->state == MPA_RX_HDR && !rx->crc_good &&
		    (fresh || !rx->fpdu_off)) {
			mpa_rx_check_ahead(rx);
			if (mpa_rx_failed(rx) || rx->waiting)
				break;
			if (rx->stage_len)
				continue;
		}
		mpa_rx_step(rx);
	}
}

/**
 * mpa_rx_feed() - consume arriving stream octets
 * @rx: the stream
 * @in: the octets; all of them are consumed unless an error stops it,
 *	or an FPDU is left to be checked once it has all arrived
 *	(@in->avail says how many are left, to be fed again)
 *
 * Return: SW_DDP_TERM_OK, or the first error: from the framing (MPA
 * layer) or from the layer above.  Errors are sticky.
 */
struct sw_ddp_term_err mpa_rx_feed(struct mpa_rx *rx, struct mpa_rx_in *in)
{
	mpa_rx_run(rx, in);
	rx->in = NULL;
	return rx->err;
}
EXPORT_SYMBOL_IF_KUNIT(mpa_rx_feed);

/*
 * At an FPDU boundary, nothing of the next one read, left waiting or
 * staged: where an FPDU may be framed whole, and, at the end of the
 * stream, none was cut short (RFC 5044 "Connection lost").
 */
bool mpa_rx_idle(const struct mpa_rx *rx)
{
	return rx->state == MPA_RX_HDR && !rx->fpdu_off && !rx->waiting &&
	       !rx->stage_len;
}
EXPORT_SYMBOL_IF_KUNIT(mpa_rx_idle);
