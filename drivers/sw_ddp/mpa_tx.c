// SPDX-License-Identifier: GPL-2.0
/*
 * MPA transmit framing (RFC 5044): wrap a DDP segment into an FPDU as a
 * list of bio_vecs for one sendmsg().
 *
 * A payload's pages appear in the list as they are, split where a marker
 * falls.  ULPDU_Length, the DDP header, markers, PAD and CRC live in the
 * endpoint's small scratch buffers; pieces that follow each other in
 * memory as on the wire share a bio_vec.  The CRC runs over the FPDU in
 * wire order, markers included (RFC 5044 "CRC Calculation"), which needs
 * one read of the payload.
 *
 * Without markers, an FPDU with at most MPA_TX_COPY_MAX payload octets is
 * built whole in the scratch frame, payload copied: one bio_vec, which
 * costs the socket less than three, and the small messages latency
 * depends on less framing work.
 */
#include <linux/crc32c.h>
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "mpa.h"

static u32 mpa_tx_crc_bvec(u32 crc, const struct bio_vec *bv)
{
	void *p = kmap_local_page(bv->bv_page);

	crc = crc32c(crc, p + bv->bv_offset, bv->bv_len);
	kunmap_local(p);
	return crc;
}

static int mpa_tx_push(struct mpa_tx *tx, struct page *page, u32 off, u32 len)
{
	struct bio_vec *prev = tx->nr_bv ? &tx->bv[tx->nr_bv - 1] : NULL;
	struct bio_vec piece;

	bvec_set_page(&piece, page, len, off);
	if (tx->crc_on && tx->summing)
		tx->crc = mpa_tx_crc_bvec(tx->crc, &piece);
	/* right after the previous piece in the same page: one bio_vec */
	if (prev && prev->bv_page == page &&
	    prev->bv_offset + prev->bv_len == off) {
		prev->bv_len += len;
	} else {
		if (tx->nr_bv == tx->max_bv)
			return -EMSGSIZE;
		tx->bv[tx->nr_bv++] = piece;
	}
	tx->seq += len;
	tx->fpdu_off += len;
	return 0;
}

static int mpa_tx_push_virt(struct mpa_tx *tx, void *p, u32 len)
{
	return mpa_tx_push(tx, virt_to_page(p), offset_in_page(p), len);
}

/*
 * RFC 5044 "MPA Markers": one where the sequence space says, FPDUPTR
 * pointing back at this FPDU's ULPDU_Length (0 if it leads the FPDU).
 * FPDUPTR has 16 bits: an FPDU with a marker further in than that cannot
 * be framed (only one longer than any MULPDU is), and mpa_rx would
 * refuse it.
 */
static int mpa_tx_marker(struct mpa_tx *tx)
{
	u32 ptr = tx->fpdu_off ? tx->fpdu_off - tx->hdr_off : 0;
	struct mpa_marker *m;

	if (tx->nr_marks == tx->max_marks || ptr > U16_MAX)
		return -EMSGSIZE;
	m = &tx->marks[tx->nr_marks++];
	if (!tx->fpdu_off)
		tx->hdr_off = MPA_MARKER_SIZE;
	mpa_marker_init(m, ptr);
	return mpa_tx_push_virt(tx, m, sizeof(*m));
}

static u32 mpa_tx_to_marker(const struct mpa_tx *tx)
{
	if (!tx->markers)
		return U32_MAX;
	return mpa_marker_offset(tx->marker_base, tx->seq);
}

/* Append [page + off, + len) to the FPDU, with markers as they fall. */
static int mpa_tx_add(struct mpa_tx *tx, struct page *page, u32 off, u32 len)
{
	u32 n;
	int err;

	while (len) {
		if (!mpa_tx_to_marker(tx)) {
			err = mpa_tx_marker(tx);
			if (err)
				return err;
			continue;
		}
		n = min(len, mpa_tx_to_marker(tx));
		/* Stay within one page so each bio_vec is one mapping. */
		page += off >> PAGE_SHIFT;
		off &= ~PAGE_MASK;
		n = min_t(u32, n, PAGE_SIZE - off);
		err = mpa_tx_push(tx, page, off, n);
		if (err)
			return err;
		off += n;
		len -= n;
	}
	return 0;
}

static int mpa_tx_add_virt(struct mpa_tx *tx, void *p, u32 len)
{
	return mpa_tx_add(tx, virt_to_page(p), offset_in_page(p), len);
}

static int mpa_tx_add_payload(struct mpa_tx *tx, const struct bio_vec *bv,
			      unsigned int nr_bv, u32 len)
{
	unsigned int i;
	u32 n;
	int err;

	for (i = 0; i < nr_bv && len; i++) {
		n = min(len, bv[i].bv_len);
		err = mpa_tx_add(tx, bv[i].bv_page, bv[i].bv_offset, n);
		if (err)
			return err;
		len -= n;
	}
	return len ? -EINVAL : 0;
}

/*
 * PAD, then the CRC field, at @tail in tx->frame: a marker may still fall
 * before the CRC.
 */
static int mpa_tx_trailer(struct mpa_tx *tx, u8 *tail, u16 ulpdu_len)
{
	u32 pad = mpa_pad_len(ulpdu_len);
	__le32 crc;
	int err;

	memset(tail, 0, pad);
	err = mpa_tx_add_virt(tx, tail, pad);
	if (err)
		return err;
	if (!mpa_tx_to_marker(tx)) {
		err = mpa_tx_marker(tx);
		if (err)
			return err;
	}
	/* RFC 5044: without CRCs the field is there, and zero */
	crc = cpu_to_le32(tx->crc_on ? ~tx->crc : 0);
	memcpy(tail + pad, &crc, sizeof(crc));
	tx->summing = false;
	return mpa_tx_push_virt(tx, tail + pad, MPA_CRC_SIZE);
}

/*
 * A short FPDU without markers, whole in tx->frame (its header is there
 * already): payload copied, PAD, CRC over all but the CRC field.
 */
static int mpa_tx_frame_short(struct mpa_tx *tx, u32 hdr_len,
			      const struct bio_vec *payload,
			      unsigned int nr_bv, u32 len)
{
	u32 ulpdu_len = hdr_len + len, pad = mpa_pad_len(ulpdu_len);
	u32 summed = MPA_ULPDU_LEN_SIZE + ulpdu_len + pad;
	u8 *p = tx->frame + MPA_ULPDU_LEN_SIZE + hdr_len;
	__le32 crc = 0;
	unsigned int i;
	u32 n;

	for (i = 0; i < nr_bv && len; i++) {
		n = min(len, payload[i].bv_len);
		memcpy_from_page(p, payload[i].bv_page, payload[i].bv_offset,
				 n);
		p += n;
		len -= n;
	}
	if (len)
		return -EINVAL;
	memset(p, 0, pad);
	/* RFC 5044: without CRCs the field is there, and zero */
	if (tx->crc_on)
		crc = cpu_to_le32(~crc32c(~0U, tx->frame, summed));
	memcpy(tx->frame + summed, &crc, sizeof(crc));

	bvec_set_page(&tx->bv[0], virt_to_page(tx->frame),
		      summed + MPA_CRC_SIZE, offset_in_page(tx->frame));
	tx->nr_bv = 1;
	tx->fpdu_off = summed + MPA_CRC_SIZE;
	tx->seq += tx->fpdu_off;
	return tx->fpdu_off;
}

/**
 * mpa_tx_frame() - build the next FPDU of the stream
 * @tx: the stream's transmit framing state
 * @hdr: DDP (and RDMAP) header octets
 * @hdr_len: their number
 * @payload: payload pages; they must stay unchanged until sent
 * @nr_bv: number of bio_vecs in @payload
 * @len: payload octets
 *
 * On success tx->bv[0 .. tx->nr_bv) is the FPDU as it goes on the wire,
 * and the stream position has moved past it.  On error nothing moved.
 * The list points into @tx's scratch: send it before the next frame.
 *
 * Return: the FPDU's length on the wire, or -EMSGSIZE if it exceeds
 * what mpa_tx_init() sized the state for or a marker's FPDUPTR.
 */
int mpa_tx_frame(struct mpa_tx *tx, const void *hdr, u32 hdr_len,
		 const struct bio_vec *payload, unsigned int nr_bv, u32 len)
{
	u32 seq = tx->seq, ulpdu_len = hdr_len + len;
	struct mpa_fpdu_hdr *fh = (struct mpa_fpdu_hdr *)tx->frame;
	int err;

	if (ulpdu_len > U16_MAX || hdr_len > MPA_TX_HDR_MAX)
		return -EMSGSIZE;
	tx->nr_bv = 0;
	tx->nr_marks = 0;
	tx->fpdu_off = 0;
	tx->hdr_off = 0;
	tx->crc = ~0U;
	tx->summing = true;

	fh->ulpdu_len = cpu_to_be16(ulpdu_len);
	memcpy(tx->frame + MPA_ULPDU_LEN_SIZE, hdr, hdr_len);
	if (len <= MPA_TX_COPY_MAX && tx->short_whole)
		return mpa_tx_frame_short(tx, hdr_len, payload, nr_bv, len);

	err = mpa_tx_add_virt(tx, tx->frame, MPA_ULPDU_LEN_SIZE + hdr_len);
	if (!err)
		err = mpa_tx_add_payload(tx, payload, nr_bv, len);
	if (!err)
		err = mpa_tx_trailer(tx, tx->frame + MPA_ULPDU_LEN_SIZE + hdr_len,
				     ulpdu_len);
	if (err) {
		tx->seq = seq;
		return err;
	}
	return tx->seq - seq;
}
EXPORT_SYMBOL_IF_KUNIT(mpa_tx_frame);

/**
 * mpa_tx_init() - set up the transmit side of an MPA stream
 * @tx: state to initialise
 * @crc: CRCs were negotiated
 * @markers: the peer asked for markers
 * @seq: sequence number of the first FPDU octet we send
 * @max_ulpdu: the longest ULPDU we will frame (the MULPDU)
 * @max_payload_bv: most bio_vecs a payload comes in
 *
 * Return: 0 or -ENOMEM.
 */
int mpa_tx_init(struct mpa_tx *tx, bool crc, bool markers, u32 seq,
		u32 max_ulpdu, unsigned int max_payload_bv)
{
	/* Markers split runs; every page boundary may too. */
	u32 marks = markers ? max_ulpdu / MPA_MARKER_INTERVAL + 2 : 0;
	u32 pages = DIV_ROUND_UP(max_ulpdu, PAGE_SIZE) + 1;

	memset(tx, 0, sizeof(*tx));
	tx->crc_on = crc;
	tx->markers = markers;
	tx->marker_base = seq;
	tx->seq = seq;
	tx->max_marks = marks;
	/* one bio_vec is one mapping: the frame must not cross a page */
	tx->short_whole = !markers &&
			  virt_to_page(tx->frame) ==
			  virt_to_page(tx->frame + sizeof(tx->frame) - 1);
	tx->max_bv = 2 * marks + max_payload_bv + pages + 4;
	tx->bv = kcalloc(tx->max_bv, sizeof(*tx->bv), GFP_KERNEL);
	tx->marks = kcalloc(max(marks, 1U), sizeof(*tx->marks), GFP_KERNEL);
	if (!tx->bv || !tx->marks) {
		mpa_tx_fini(tx);
		return -ENOMEM;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(mpa_tx_init);

void mpa_tx_fini(struct mpa_tx *tx)
{
	kfree(tx->bv);
	kfree(tx->marks);
	tx->bv = NULL;
	tx->marks = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(mpa_tx_fini);
