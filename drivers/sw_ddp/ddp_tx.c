// SPDX-License-Identifier: GPL-2.0
/*
 * DDP transmit (RFC 5041 §5.2): cut one RDMAP message into segments no
 * larger than the LLP carries whole, give each its header, and hand them
 * to the LLP with the payload as page references, from local SGEs (Send,
 * Write), a source MR (Read Response) or inline data.
 *
 * Runs in the stream's transmit work item and may sleep in the LLP; a
 * message marked now, from a receive upcall, does neither.
 */
#include <linux/mm.h>

#include "ddp.h"
#include "stream.h"

/* Header, and RDMAP's own header (Read Request, Terminate) after it. */
#define DDP_TX_HDR_MAX	(DDP_UNTAGGED_HDR_LEN + SW_DDP_TERM_MAX)

struct ddp_tx_seg {
	u8 hdr[DDP_TX_HDR_MAX];
	u32 hdr_len;
	unsigned int nr_bv;
};

static void ddp_tx_put_pages(struct sw_ddp_stream *s, unsigned int nr)
{
	while (nr--)
		put_page(s->bv[nr].bv_page);
}

/*
 * Page references for [to, to + len) of @mr, appended to s->bv.  Taken
 * inside an access section, so the pages stay ours while the LLP copies
 * them even if the MR is invalidated meanwhile.
 */
static int ddp_tx_mr_pages(struct sw_ddp_stream *s, struct ddp_tx_seg *seg,
			   struct sw_ddp_mr *mr, u32 stag, int access, u64 to,
			   u32 len)
{
	struct bio_vec *bv = s->bv + seg->nr_bv;
	int n = -EACCES, i;

	sw_ddp_mem_lock(mr);
	if (!sw_ddp_mem_check_locked(mr, stag, s->qp->base.pd, access, to,
				     len))
		n = sw_ddp_mem_bvecs(mr, to, len, bv,
				     s->max_bv - seg->nr_bv);
	for (i = 0; i < n; i++)
		get_page(bv[i].bv_page);
	sw_ddp_mem_unlock(mr);
	if (n < 0)
		return n;
	seg->nr_bv += n;
	return 0;
}

/* Message octets [off, off + len) from the local SGE list. */
static int ddp_tx_sge_pages(struct sw_ddp_stream *s, struct ddp_tx_seg *seg,
			    const struct sw_ddp_tx_msg *m, u32 off, u32 len)
{
	const struct ib_sge *sge = m->sge;
	u32 i, n;
	int err;

	for (i = 0; i < m->num_sge && len; i++) {
		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = min(len, sge[i].length - off);
		err = ddp_tx_mr_pages(s, seg, m->sge_mr[i], sge[i].lkey, 0,
				      sge[i].addr + off, n);
		if (err)
			return err;
		off = 0;
		len -= n;
	}
	return len ? -EMSGSIZE : 0;
}

static int ddp_tx_payload(struct sw_ddp_stream *s, struct ddp_tx_seg *seg,
			  const struct sw_ddp_tx_msg *m, u32 off, u32 len)
{
	seg->nr_bv = 0;
	if (!len)
		return 0;
	if (m->inline_data) {
		/* Inline data was copied into the stream's own page. */
		bvec_set_page(&s->bv[0], s->inline_page, len, off);
		get_page(s->inline_page);
		seg->nr_bv = 1;
		return 0;
	}
	if (m->src_mr)
		return ddp_tx_mr_pages(s, seg, m->src_mr, m->src_stag,
				       IB_ACCESS_REMOTE_READ, m->src_to + off,
				       len);
	return ddp_tx_sge_pages(s, seg, m, off, len);
}

/* RFC 5041 §4.2, §4.3 with RDMAP's control and §4.1's L flag. */
static void ddp_tx_header(struct ddp_tx_seg *seg,
			  const struct sw_ddp_tx_msg *m, u32 off, bool last)
{
	if (rdmap_opcode_tagged(m->op)) {
		rdmap_tagged_init((struct ddp_tagged_hdr *)seg->hdr, m->op,
				  last, m->stag, m->to + off);
		seg->hdr_len = DDP_TAGGED_HDR_LEN;
		return;
	}
	rdmap_untagged_init((struct ddp_untagged_hdr *)seg->hdr, m->op, last,
			    m->inval_stag, m->msn, off);
	memcpy(seg->hdr + DDP_UNTAGGED_HDR_LEN, m->extra, m->extra_len);
	seg->hdr_len = DDP_UNTAGGED_HDR_LEN + m->extra_len;
}

/* What the LLP takes now without waiting; 0 if it cannot tell. */
u32 ddp_tx_room(struct sw_ddp_stream *s)
{
	const struct sw_ddp_llp_ops *ops = s->llp->ops;

	return ops->tx_room ? ops->tx_room(s->llp) : 0;
}

/* The LLP's stream is closing (llp.h): so is ours. */
static int ddp_tx_closing(struct sw_ddp_stream *s)
{
	sw_ddp_stream_closing(s);
	return -ESHUTDOWN;
}

/**
 * ddp_tx_message() - send one RDMAP message as DDP segments
 * @s: the stream
 * @m: the message
 *
 * A zero-length message is one segment (RFC 5041 §5.2).  The header
 * @m->extra (Read Request, Terminate) travels whole in the one segment
 * such messages have.  With @m->now the message must fit one segment,
 * which goes out with SW_DDP_SEG_NOW.  @m->last_seg, if set, is called
 * once the last segment is ready, just before the LLP has it.
 *
 * Return: 0, or a negative errno once the LLP or the memory fails;
 * -EAGAIN for @m->now: nothing was sent, the work item must send it;
 * -ESHUTDOWN: the LLP's stream is closing, and so is ours
 * (sw_ddp_stream_closing()).
 */
int ddp_tx_message(struct sw_ddp_stream *s, const struct sw_ddp_tx_msg *m)
{
	struct ddp_tx_seg seg;
	u32 max = s->llp->ops->max_segment(s->llp), room, off = 0, n;
	unsigned int flags = (m->zcopy ? SW_DDP_SEG_ZCOPY : 0) |
			     (m->now ? SW_DDP_SEG_NOW : 0);
	bool last;
	int err;

	if (m->extra_len > SW_DDP_TERM_MAX)
		return -EINVAL;
	if (!max)
		return ddp_tx_closing(s);
	room = rdmap_opcode_tagged(m->op) ? DDP_TAGGED_HDR_LEN :
					    DDP_UNTAGGED_HDR_LEN;
	room += m->extra_len;
	if (max <= room)
		return -EMSGSIZE;
	room = max - room;
	if (m->now && m->len > room)
		return -EAGAIN;		/* not one segment: the work item's */

	do {
		n = min(room, m->len - off);
		last = off + n == m->len;
		ddp_tx_header(&seg, m, off, last);
		err = ddp_tx_payload(s, &seg, m, off, n);
		if (!err && last && m->last_seg)
			m->last_seg(s);
		if (!err)
			err = s->llp->ops->send_segment(s->llp, seg.hdr,
							seg.hdr_len, s->bv,
							seg.nr_bv, n, flags);
		ddp_tx_put_pages(s, seg.nr_bv);
		if (err == -ESHUTDOWN)
			return ddp_tx_closing(s);
		if (err)
			return err;
		off += n;
		/* a 1 MiB message in tiny segments (MSS shrunk): yield */
		if (!last)
			cond_resched();
	} while (!last);
	return 0;
}
