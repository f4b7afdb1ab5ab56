// SPDX-License-Identifier: GPL-2.0
/*
 * MPA (RFC 5044, RFC 6581): CRC32c, marker placement, MULPDU, FPDU
 * framing and MPA Request/Reply frames.
 *
 * Markers (RFC 5044 "MPA Markers", "Marker Format"): one every 512
 * octets of TCP sequence space counted from the first FPDU octet of the
 * stream.  A marker belongs to the FPDU whose octets surround it; one
 * that falls exactly where an FPDU starts precedes that FPDU's
 * ULPDU_Length and belongs to it.  FPDUPTR is the distance from the
 * ULPDU_Length field to the marker; for a marker in front of the
 * ULPDU_Length it is 0 (the one value no other marker can have, since
 * ULPDU_Length is 2 octets and markers are 4-octet aligned).  The CRC
 * covers every FPDU octet before it, markers included (RFC 5044 "CRC
 * Calculation").
 */
#include <linux/module.h>
#include <linux/crc32c.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "mpa.h"

/**
 * mpa_crc32c() - the MPA CRC of @len octets at @buf
 * @buf: data
 * @len: octets
 *
 * CRC32c as iSCSI computes it (RFC 3720 §12.1, vectors in B.4): preset
 * to ones, reflected, result complemented.  The kernel's crc32c() does
 * the reflected polynomial division; the pre-set and final complement are
 * the caller's.
 *
 * Return: the CRC value; it goes on the wire least significant octet
 * first.
 */
u32 mpa_crc32c(const void *buf, u32 len)
{
	return ~crc32c(~0U, buf, len);
}
EXPORT_SYMBOL_IF_KUNIT(mpa_crc32c);

static void mpa_crc_put(u8 *dst, u32 crc)
{
	__le32 v = cpu_to_le32(crc);

	memcpy(dst, &v, sizeof(v));
}

static u32 mpa_crc_get(const u8 *src)
{
	__le32 v;

	memcpy(&v, src, sizeof(v));
	return le32_to_cpu(v);
}

/**
 * mpa_mulpdu() - largest ULPDU that always fits one TCP segment
 * @emss: effective MSS of the connection
 * @markers: whether markers are inserted in this direction
 *
 * RFC 5044 "FPDU Size Considerations":
 * MULPDU = EMSS - (6 + 4 * Ceiling(EMSS / 512) + EMSS mod 4), and without
 * markers the 4 * Ceiling(EMSS / 512) term is dropped.  Capped to what
 * the 16-bit ULPDU_Length can express.
 *
 * Return: MULPDU in octets, 0 if @emss is too small for any.
 */
u32 mpa_mulpdu(u32 emss, bool markers)
{
	u32 overhead = MPA_FPDU_OVERHEAD + emss % MPA_ALIGN;

	if (markers)
		overhead += MPA_MARKER_SIZE *
			    DIV_ROUND_UP(emss, MPA_MARKER_INTERVAL);
	if (emss <= overhead)
		return 0;
	return min_t(u32, emss - overhead, U16_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(mpa_mulpdu);

/**
 * mpa_marker_offset() - distance from @seq to the next marker position
 * @marker_base: TCP sequence number of the stream's first FPDU octet
 * @seq: a TCP sequence number at or after it (modulo 2^32)
 *
 * Return: 0..511; 0 if a marker goes exactly at @seq.
 */
u32 mpa_marker_offset(u32 marker_base, u32 seq)
{
	return (MPA_MARKER_INTERVAL - (seq - marker_base) % MPA_MARKER_INTERVAL) %
	       MPA_MARKER_INTERVAL;
}
EXPORT_SYMBOL_IF_KUNIT(mpa_marker_offset);

/* Offset of the FPDU's first marker, U32_MAX when there are none. */
static u32 mpa_first_marker(const struct mpa_fpdu_cfg *cfg)
{
	if (!cfg->markers)
		return U32_MAX;
	return mpa_marker_offset(cfg->marker_base, cfg->seq);
}

/* Offset of ULPDU_Length: behind a marker that starts the FPDU. */
static u32 mpa_hdr_offset(const struct mpa_fpdu_cfg *cfg)
{
	return mpa_first_marker(cfg) ? 0 : MPA_MARKER_SIZE;
}

/*
 * FPDUPTR of the marker at wire offset @off of this FPDU; more than 16
 * bits hold only in an FPDU longer than any MULPDU allows.
 */
static u32 mpa_fpduptr(const struct mpa_fpdu_cfg *cfg, u32 off)
{
	return off ? off - mpa_hdr_offset(cfg) : 0;
}

static u32 mpa_markers_within(u32 first, u32 len)
{
	return first < len ? (len - first - 1) / MPA_MARKER_INTERVAL + 1 : 0;
}

/**
 * mpa_fpdu_wire_len() - octets an FPDU occupies on the TCP stream
 * @cfg: its position and the negotiated marker setting
 * @ulpdu_len: its ULPDU_Length
 *
 * Markers lengthen the FPDU, which may pull in another marker; iterate
 * to the fixed point (at most a couple of rounds).
 *
 * Return: ULPDU_Length field, ULPDU, PAD, CRC and markers, in octets.
 */
u32 mpa_fpdu_wire_len(const struct mpa_fpdu_cfg *cfg, u16 ulpdu_len)
{
	u32 plain = mpa_fpdu_len(ulpdu_len), first = mpa_first_marker(cfg);
	u32 n = 0, m;

	for (;;) {
		m = mpa_markers_within(first, plain + n * MPA_MARKER_SIZE);
		if (m == n)
			return plain + n * MPA_MARKER_SIZE;
		n = m;
	}
}
EXPORT_SYMBOL_IF_KUNIT(mpa_fpdu_wire_len);

/*
 * Walk an FPDU on the wire: runs of FPDU content ("plain" octets, as if
 * there were no markers) and the markers between them.
 */
struct mpa_walker {
	const struct mpa_fpdu_cfg *cfg;
	u32 wire_len;
	void (*span)(struct mpa_walker *w, u32 wire_off, u32 plain_off,
		     u32 len);
	int (*marker)(struct mpa_walker *w, u32 wire_off);
};

static int mpa_walk(struct mpa_walker *w)
{
	u32 off = 0, plain = 0, next = mpa_first_marker(w->cfg), len;
	int rv;

	while (off < w->wire_len) {
		if (off == next) {
			rv = w->marker(w, off);
			if (rv)
				return rv;
			off += MPA_MARKER_SIZE;
			next += MPA_MARKER_INTERVAL;
			continue;
		}
		len = min(next, w->wire_len) - off;
		w->span(w, off, plain, len);
		off += len;
		plain += len;
	}
	return 0;
}

struct mpa_builder {
	struct mpa_walker w;
	u8 *out;
	const u8 *ulpdu;
	u16 ulpdu_len;
};

/* Plain octets: ULPDU_Length, ULPDU, then zeros (PAD, CRC slot). */
static u32 mpa_plain_chunk(const struct mpa_builder *b, u8 *dst, u32 plain,
			   u32 len)
{
	u32 ulpdu_end = MPA_ULPDU_LEN_SIZE + b->ulpdu_len;
	__be16 hdr = cpu_to_be16(b->ulpdu_len);

	if (plain < MPA_ULPDU_LEN_SIZE) {
		len = min(len, MPA_ULPDU_LEN_SIZE - plain);
		memcpy(dst, (u8 *)&hdr + plain, len);
	} else if (plain < ulpdu_end) {
		len = min(len, ulpdu_end - plain);
		memcpy(dst, b->ulpdu + plain - MPA_ULPDU_LEN_SIZE, len);
	} else {
		memset(dst, 0, len);
	}
	return len;
}

static void mpa_build_span(struct mpa_walker *w, u32 wire_off, u32 plain,
			   u32 len)
{
	struct mpa_builder *b = container_of(w, struct mpa_builder, w);
	u32 done;

	while (len) {
		done = mpa_plain_chunk(b, b->out + wire_off, plain, len);
		wire_off += done;
		plain += done;
		len -= done;
	}
}

static int mpa_build_marker(struct mpa_walker *w, u32 wire_off)
{
	struct mpa_builder *b = container_of(w, struct mpa_builder, w);
	struct mpa_marker m;

	/* past 16 bits it wraps: KUnit builds such FPDUs to be refused */
	mpa_marker_init(&m, (u16)mpa_fpduptr(w->cfg, wire_off));
	memcpy(b->out + wire_off, &m, sizeof(m));
	return 0;
}

/**
 * mpa_fpdu_build() - frame one ULPDU as it goes on the TCP stream
 * @out: destination
 * @size: room at @out
 * @ulpdu: the ULPDU (a DDP segment)
 * @ulpdu_len: its length
 * @cfg: stream position, markers and CRC as negotiated
 *
 * PAD octets are zero (RFC 5044 "FPDU Format"); without CRCs the CRC
 * field is present and zero.
 *
 * Return: octets written, or -ENOSPC.
 */
int mpa_fpdu_build(u8 *out, u32 size, const void *ulpdu, u16 ulpdu_len,
		   const struct mpa_fpdu_cfg *cfg)
{
	struct mpa_builder b = {
		.w = { .cfg = cfg, .span = mpa_build_span,
		       .marker = mpa_build_marker },
		.out = out, .ulpdu = ulpdu, .ulpdu_len = ulpdu_len,
	};
	u32 wire_len = mpa_fpdu_wire_len(cfg, ulpdu_len);

	if (wire_len > size)
		return -ENOSPC;
	b.w.wire_len = wire_len;
	mpa_walk(&b.w);
	if (cfg->crc)
		mpa_crc_put(out + wire_len - MPA_CRC_SIZE,
			    mpa_crc32c(out, wire_len - MPA_CRC_SIZE));
	return wire_len;
}
EXPORT_SYMBOL_IF_KUNIT(mpa_fpdu_build);

struct mpa_checker {
	struct mpa_walker w;
	const u8 *wire;
	u8 *ulpdu;
	u16 ulpdu_len;
};

/* Copy the part of a plain run that is ULPDU. */
static void mpa_check_span(struct mpa_walker *w, u32 wire_off, u32 plain,
			   u32 len)
{
	struct mpa_checker *c = container_of(w, struct mpa_checker, w);
	u32 start = max_t(u32, plain, MPA_ULPDU_LEN_SIZE);
	u32 end = min_t(u32, plain + len, MPA_ULPDU_LEN_SIZE + c->ulpdu_len);

	if (start < end)
		memcpy(c->ulpdu + start - MPA_ULPDU_LEN_SIZE,
		       c->wire + wire_off + start - plain, end - start);
}

static int mpa_check_marker(struct mpa_walker *w, u32 wire_off)
{
	struct mpa_checker *c = container_of(w, struct mpa_checker, w);
	struct mpa_marker m;

	memcpy(&m, c->wire + wire_off, sizeof(m));
	/*
	 * RFC 5044 "Marker Format": RESERVED is ignored on receive.  A
	 * marker further in than 16 bits reach is refused, as by mpa_rx.
	 */
	return mpa_marker_fpduptr(&m) == mpa_fpduptr(w->cfg, wire_off) ?
	       0 : -EPROTO;
}

/* ULPDU_Length of the FPDU at @wire, once @wire_len covers it. */
static bool mpa_read_ulpdu_len(const u8 *wire, u32 wire_len,
			       const struct mpa_fpdu_cfg *cfg, u16 *ulpdu_len)
{
	u32 off = mpa_hdr_offset(cfg);
	struct mpa_fpdu_hdr h;

	if (wire_len < off + sizeof(h))
		return false;
	memcpy(&h, wire + off, sizeof(h));
	*ulpdu_len = mpa_fpdu_ulpdu_len(&h);
	return true;
}

/**
 * mpa_fpdu_validate() - check one received FPDU and extract its ULPDU
 * @wire: the FPDU as it was on the TCP stream, from its first octet
 * @wire_len: its length on the stream, markers included
 * @cfg: stream position, markers and CRC as negotiated
 * @ulpdu: destination for the ULPDU, markers removed
 * @size: room at @ulpdu
 * @ulpdu_len: set to the ULPDU length
 *
 * Checks, in this order: the ULPDU_Length agrees with the framing, the
 * CRC (RFC 5044 "CRC Calculation"), every marker's FPDUPTR.
 *
 * Return: SW_DDP_TERM_OK, MPA_ERR_MARKER, MPA_ERR_CRC, or
 * MPA_ERR_LOCAL_CATASTROPHIC if @ulpdu is too small.
 */
struct sw_ddp_term_err mpa_fpdu_validate(const u8 *wire, u32 wire_len,
					 const struct mpa_fpdu_cfg *cfg,
					 u8 *ulpdu, u32 size, u16 *ulpdu_len)
{
	struct mpa_checker c = {
		.w = { .cfg = cfg, .wire_len = wire_len,
		       .span = mpa_check_span, .marker = mpa_check_marker },
		.wire = wire, .ulpdu = ulpdu,
	};
	u32 crc_off = wire_len - MPA_CRC_SIZE;

	if (!mpa_read_ulpdu_len(wire, wire_len, cfg, &c.ulpdu_len) ||
	    mpa_fpdu_wire_len(cfg, c.ulpdu_len) != wire_len)
		return MPA_ERR_MARKER;
	if (c.ulpdu_len > size)
		return MPA_ERR_LOCAL_CATASTROPHIC;
	if (cfg->crc && mpa_crc_get(wire + crc_off) != mpa_crc32c(wire, crc_off))
		return MPA_ERR_CRC;
	if (mpa_walk(&c.w))
		return MPA_ERR_MARKER;
	*ulpdu_len = c.ulpdu_len;
	return SW_DDP_TERM_OK;
}
EXPORT_SYMBOL_IF_KUNIT(mpa_fpdu_validate);

static const char *mpa_key(bool reply)
{
	return reply ? MPA_KEY_REP : MPA_KEY_REQ;
}

/* RFC 6581: Rev 2 frames flagged enhanced start with IRD/ORD. */
bool mpa_rr_enhanced(const struct mpa_rr_info *info)
{
	return info->rev >= MPA_REV_2 && (info->flags & MPA_FLAG_ENHANCED);
}
EXPORT_SYMBOL_IF_KUNIT(mpa_rr_enhanced);

/* RFC 5044: Res zero on send, R zero in a Request; enhanced needs Rev 2 */
static u8 mpa_rr_tx_flags(const struct mpa_rr_info *info, bool reply)
{
	u8 flags = info->flags & (MPA_FLAG_M | MPA_FLAG_C | MPA_FLAG_R);

	if (!reply)
		flags &= ~MPA_FLAG_R;
	if (mpa_rr_enhanced(info))
		flags |= MPA_FLAG_ENHANCED;
	return flags;
}

/**
 * mpa_rr_build() - write an MPA Request or Reply frame
 * @out: destination
 * @size: room at @out
 * @info: contents; RFC 6581 IRD/ORD are written when enhanced
 * @reply: Reply ("MPA ID Rep Frame") rather than Request
 *
 * Return: frame length, -EINVAL for a bad revision or too much private
 * data (RFC 5044: at most 512 octets, RFC 6581 data included), -ENOSPC.
 */
int mpa_rr_build(u8 *out, u32 size, const struct mpa_rr_info *info,
		 bool reply)
{
	struct mpa_rr_hdr *h = (struct mpa_rr_hdr *)out;
	struct mpa_v2_conn_data cd;
	u32 v2 = mpa_rr_enhanced(info) ? sizeof(cd) : 0;
	u32 pd_len = v2 + info->pdata_len;

	if (info->rev < MPA_REV_1 || info->rev > MPA_REV_2 ||
	    pd_len > MPA_PD_MAX)
		return -EINVAL;
	if (sizeof(*h) + pd_len > size)
		return -ENOSPC;
	memcpy(h->key, mpa_key(reply), MPA_KEY_LEN);
	h->flags = mpa_rr_tx_flags(info, reply);
	h->rev = info->rev;
	h->pd_len = cpu_to_be16(pd_len);
	cd.ird = cpu_to_be16(info->ird);
	cd.ord = cpu_to_be16(info->ord);
	memcpy(out + sizeof(*h), &cd, v2);
	if (info->pdata_len)
		memcpy(out + sizeof(*h) + v2, info->pdata, info->pdata_len);
	return sizeof(*h) + pd_len;
}
EXPORT_SYMBOL_IF_KUNIT(mpa_rr_build);

/* Private Data split into RFC 6581 data and what the ULP sent. */
static bool mpa_rr_split_pdata(const u8 *pd, u16 pd_len,
			       struct mpa_rr_info *info)
{
	struct mpa_v2_conn_data cd;
	u16 v2 = mpa_rr_enhanced(info) ? sizeof(cd) : 0;

	if (pd_len < v2)
		return false;
	if (v2) {
		memcpy(&cd, pd, sizeof(cd));
		info->ird = be16_to_cpu(cd.ird);
		info->ord = be16_to_cpu(cd.ord);
	}
	info->pdata_len = pd_len - v2;
	info->pdata = info->pdata_len ? pd + v2 : NULL;
	return true;
}

/**
 * mpa_rr_validate() - check a received MPA Request or Reply frame
 * @frame: the whole frame, key through private data
 * @len: its length
 * @reply: a Reply is expected (else a Request)
 * @info: filled in; @info->pdata points into @frame
 *
 * RFC 5044 "MPA Request and Reply Frame Format": the key must be the
 * one expected, Rev one this implementation interoperates with (1, or 2
 * from RFC 6581), PD_Length at most 512 and equal to the private data
 * present; an enhanced frame needs room for IRD/ORD.  Res and, in a
 * Request, R are not checked.
 *
 * Return: SW_DDP_TERM_OK or MPA_ERR_REQ_REP.
 */
struct sw_ddp_term_err mpa_rr_validate(const u8 *frame, u32 len, bool reply,
				       struct mpa_rr_info *info)
{
	const struct mpa_rr_hdr *h = (const struct mpa_rr_hdr *)frame;
	u16 pd_len;

	memset(info, 0, sizeof(*info));
	if (len < sizeof(*h) || memcmp(h->key, mpa_key(reply), MPA_KEY_LEN))
		return MPA_ERR_REQ_REP;
	if (h->rev < MPA_REV_1 || h->rev > MPA_REV_2)
		return MPA_ERR_REQ_REP;
	pd_len = mpa_rr_pd_len(h);
	if (pd_len > MPA_PD_MAX || len - sizeof(*h) != pd_len)
		return MPA_ERR_REQ_REP;
	info->flags = h->flags;
	info->rev = h->rev;
	if (!mpa_rr_split_pdata(frame + sizeof(*h), pd_len, info))
		return MPA_ERR_REQ_REP;
	return SW_DDP_TERM_OK;
}
EXPORT_SYMBOL_IF_KUNIT(mpa_rr_validate);
