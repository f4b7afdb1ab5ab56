// SPDX-License-Identifier: GPL-2.0
/*
 * DDP over SCTP (RFC 5043 §5.2.2): one received DDP Segment Chunk handed
 * to DDP's receive upcalls.  A chunk holds one whole DDP Segment in one
 * flat buffer, from its control octet on: there is no framing to undo,
 * and SCTP's own checksum already covered it.
 */
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "llp_sctp.h"

/* The payload after the header, for DDP to pull into place. */
struct sctp_seg_src {
	struct sw_ddp_rx_src src;
	const u8 *pos;
	u32 left;
};

static int sctp_seg_copy(struct sw_ddp_rx_src *src, void *dst,
			 unsigned int len)
{
	struct sctp_seg_src *s = container_of(src, struct sctp_seg_src, src);

	if (len > s->left)
		return -EINVAL;
	memcpy(dst, s->pos, len);
	s->pos += len;
	s->left -= len;
	return 0;
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
 * @seg: the segment, from its DDP control octet
 * @len: its length
 * @early: it arrived ahead of its turn: take it only if DDP may place
 *	   it now (rx->may_place_early())
 *
 * Return: 1 taken; 0 not taken (@early only: keep it for its turn);
 * -EPROTO if DDP refused it, and has then failed the stream.
 */
int sw_ddp_sctp_seg_rx(const struct sw_ddp_rx_ops *rx, void *upper,
		       const void *seg, u32 len, bool early)
{
	struct sctp_seg_src src = { .src.copy = sctp_seg_copy };
	struct sw_ddp_term_err err;
	unsigned int hdr_len;
	bool whole;

	hdr_len = sctp_seg_hdr_len(rx, upper, seg, len, &whole);
	if (early && (!whole || !rx->may_place_early ||
		      !rx->may_place_early(upper, seg, hdr_len)))
		return 0;

	src.pos = (const u8 *)seg + hdr_len;
	src.left = len - hdr_len;
	err = rx->begin(upper, seg, hdr_len, src.left);
	if (sw_ddp_term_err_ok(err) && src.left) {
		err = rx->payload(upper, &src.src, src.left);
		/* DDP must take all it was offered, as over MPA */
		if (sw_ddp_term_err_ok(err) && src.left) {
			err = DDP_ERR_LOCAL_CATASTROPHIC;
			rx->error(upper, err);
		}
	}
	if (sw_ddp_term_err_ok(err))
		err = rx->end(upper);
	return sw_ddp_term_err_ok(err) ? 1 : -EPROTO;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_seg_rx);
