// SPDX-License-Identifier: GPL-2.0
/*
 * DDP over SCTP (RFC 5043 §5.2.2): one received DDP Segment Chunk handed
 * to DDP's receive upcalls.  A chunk holds one whole DDP Segment, from
 * its control octet on: there is no framing to undo, and SCTP's own
 * checksum already covered it.  Its headers are flat; its payload may
 * still be in the socket's skb, and DDP then copies it from there
 * straight into place.
 */
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "llp_sctp.h"

/**
 * sw_ddp_sctp_chunk_copy() - read octets of a received chunk
 * @c: the chunk
 * @off: from this octet of it
 * @dst: to here
 * @len: this many
 *
 * Return: 0, or -EINVAL past its end.
 */
int sw_ddp_sctp_chunk_copy(const struct sw_ddp_sctp_chunk *c, u32 off,
			   void *dst, u32 len)
{
	if (off > c->len || len > c->len - off)
		return -EINVAL;
	if (off + len <= sw_ddp_sctp_chunk_flat(c)) {
		memcpy(dst, (const u8 *)c->data + off, len);
		return 0;
	}
	return skb_copy_bits(c->skb, c->skb_off + off, dst, len);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_chunk_copy);

/* The payload after the header, for DDP to pull into place. */
struct sctp_seg_src {
	struct sw_ddp_rx_src src;
	const struct sw_ddp_sctp_chunk *seg;
	u32 pos;
};

static int sctp_seg_copy(struct sw_ddp_rx_src *src, void *dst,
			 unsigned int len)
{
	struct sctp_seg_src *s = container_of(src, struct sctp_seg_src, src);
	int err;

	err = sw_ddp_sctp_chunk_copy(s->seg, s->pos, dst, len);
	if (!err)
		s->pos += len;
	return err;
}

/*
 * Header octets as DDP sizes them from the first two, or all of a
 * segment too short to hold them: begin() then finds it short (RFC 5041
 * §4.2, §4.3) and nothing past @len is read.  *@whole tells which.
 */
static unsigned int sctp_seg_hdr_len(const struct sw_ddp_rx_ops *rx,
				     void *upper, const u8 *seg, u32 len,
				     bool *whole)
{
	unsigned int want = len >= 2 ? rx->hdr_len(upper, seg) : 2;

	*whole = want <= len;
	return min_t(u32, want, len);
}

/**
 * sw_ddp_sctp_seg_rx() - hand one DDP Segment to DDP
 * @rx: DDP's receive upcalls
 * @upper: their context (the stream)
 * @seg: the segment, from its DDP control octet, its first
 *	 SW_DDP_SCTP_RX_HEAD octets (or all) flat
 * @early: it arrived ahead of its turn: take it only if DDP may place
 *	   it now (rx->may_place_early())
 *
 * Return: 1 taken; 0 not taken (@early only: keep it for its turn);
 * -EPROTO if DDP refused it, and has then failed the stream.
 */
int sw_ddp_sctp_seg_rx(const struct sw_ddp_rx_ops *rx, void *upper,
		       const struct sw_ddp_sctp_chunk *seg, bool early)
{
	struct sctp_seg_src src = { .src.copy = sctp_seg_copy, .seg = seg };
	struct sw_ddp_term_err err;
	unsigned int hdr_len;
	bool whole;
	u32 left;

	hdr_len = sctp_seg_hdr_len(rx, upper, seg->data, seg->len, &whole);
	if (WARN_ON_ONCE(hdr_len > sw_ddp_sctp_chunk_flat(seg))) {
		rx->error(upper, DDP_ERR_LOCAL_CATASTROPHIC);
		return -EPROTO;
	}
	if (early && (!whole || !rx->may_place_early ||
		      !rx->may_place_early(upper, seg->data, hdr_len)))
		return 0;

	src.pos = hdr_len;
	left = seg->len - hdr_len;
	err = rx->begin(upper, seg->data, hdr_len, left);
	if (sw_ddp_term_err_ok(err) && left) {
		err = rx->payload(upper, &src.src, left);
		/* DDP must take all it was offered, as over MPA */
		if (sw_ddp_term_err_ok(err) && src.pos != seg->len)
			err = DDP_ERR_LOCAL_CATASTROPHIC;
	}
	if (sw_ddp_term_err_ok(err))
		err = rx->end(upper);
	/* SCTP's own CRC32c checked the chunk (RFC 4960 §6.8): report it */
	if (!sw_ddp_term_err_ok(err)) {
		rx->error(upper, err);
		return -EPROTO;
	}
	return 1;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_seg_rx);
