// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: MPA transmit framing (mpa_tx.c).  Each FPDU, flattened from its
 * bio_vecs, must be byte for byte what the known-answer-tested
 * mpa_fpdu_build() makes of the same ULPDU at the same stream position.
 */
#include <kunit/test.h>
#include <linux/highmem.h>
#include <linux/slab.h>

#include "mpa.h"

#define PAYLOAD_ORDER	2		/* four pages, to cross boundaries */
#define WIRE_MAX	(5 * PAGE_SIZE)

struct tx_ctx {
	struct page *pages;
	u8 *payload;			/* the pages' kernel address */
	u8 *wire, *ref, *ulpdu;
	struct mpa_tx tx;
};

static void tx_ctx_exit(void *data)
{
	struct tx_ctx *c = data;

	mpa_tx_fini(&c->tx);
	if (c->pages)
		__free_pages(c->pages, PAYLOAD_ORDER);
}

static struct tx_ctx *tx_ctx_make(struct kunit *test)
{
	struct tx_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->pages = alloc_pages(GFP_KERNEL, PAYLOAD_ORDER);
	KUNIT_ASSERT_NOT_NULL(test, c->pages);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tx_ctx_exit, c),
			0);
	c->payload = page_address(c->pages);
	for (i = 0; i < (PAGE_SIZE << PAYLOAD_ORDER); i++)
		c->payload[i] = (u8)(i * 13 + 5);
	c->wire = kunit_kzalloc(test, WIRE_MAX, GFP_KERNEL);
	c->ref = kunit_kzalloc(test, WIRE_MAX, GFP_KERNEL);
	c->ulpdu = kunit_kzalloc(test, WIRE_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->wire);
	KUNIT_ASSERT_NOT_NULL(test, c->ref);
	KUNIT_ASSERT_NOT_NULL(test, c->ulpdu);
	return c;
}

static u32 flatten(const struct mpa_tx *tx, u8 *out)
{
	u32 i, n = 0;

	for (i = 0; i < tx->nr_bv; i++) {
		memcpy_from_bvec(out + n, &tx->bv[i]);
		n += tx->bv[i].bv_len;
	}
	return n;
}

/*
 * Frame @len payload octets from offset @off of the pages, given as two
 * bio_vecs split at @split, and compare with the reference framing.
 */
static void frame_and_compare(struct kunit *test, struct tx_ctx *c,
			      const struct mpa_fpdu_cfg *ref_cfg, u32 off,
			      u32 len, u32 split)
{
	static const u8 hdr[DDP_TAGGED_HDR_LEN] = {
		0xc1, 0x40, 0x12, 0x34, 0x56, 0x78, 0, 0, 0, 0, 0, 0, 0x10, 0,
	};
	struct bio_vec bv[2];
	struct mpa_fpdu_cfg cfg = *ref_cfg;
	int n, ref;

	bvec_set_page(&bv[0], c->pages, split, off);
	bvec_set_page(&bv[1], c->pages, len - split, off + split);
	cfg.seq = c->tx.seq;

	n = mpa_tx_frame(&c->tx, hdr, sizeof(hdr), bv, 2, len);
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_EQ(test, flatten(&c->tx, c->wire), (u32)n);

	memcpy(c->ulpdu, hdr, sizeof(hdr));
	memcpy(c->ulpdu + sizeof(hdr), c->payload + off, len);
	ref = mpa_fpdu_build(c->ref, WIRE_MAX, c->ulpdu, sizeof(hdr) + len,
			     &cfg);
	KUNIT_ASSERT_EQ(test, n, ref);
	KUNIT_EXPECT_MEMEQ(test, c->wire, c->ref, n);
}

static void check_stream(struct kunit *test, bool crc, bool markers,
			 u32 base)
{
	static const u32 lens[] = {
		0, 1, 3, 500, 4096, 5000, 9000, 12,
		MPA_TX_COPY_MAX, MPA_TX_COPY_MAX + 1,
	};
	struct mpa_fpdu_cfg cfg = {
		.crc = crc, .markers = markers, .marker_base = base,
	};
	struct tx_ctx *c = tx_ctx_make(test);
	u32 i;

	KUNIT_ASSERT_EQ(test, mpa_tx_init(&c->tx, crc, markers, base,
					  DDP_TAGGED_HDR_LEN + 9000, 2), 0);
	for (i = 0; i < ARRAY_SIZE(lens); i++)
		frame_and_compare(test, c, &cfg, 100 + i, lens[i],
				  lens[i] / 3);
}

/* RFC 5044 "FPDU Format": length, ULPDU, PAD, (zero) CRC */
static void mpa_tx_plain(struct kunit *test)
{
	check_stream(test, false, false, 0);
}

/* RFC 5044 "CRC Calculation" over header and scattered payload pages */
static void mpa_tx_crc(struct kunit *test)
{
	check_stream(test, true, false, 7);
}

/* RFC 5044 "MPA Markers": inserted mid-payload, mid-header, before CRC */
static void mpa_tx_markers(struct kunit *test)
{
	check_stream(test, false, true, 0);
	check_stream(test, true, true, 3000);
	check_stream(test, true, true, 0xffffff00);	/* seq wraps */
}

/* A frame larger than the state was sized for fails, changing nothing. */
static void mpa_tx_too_big(struct kunit *test)
{
	struct tx_ctx *c = tx_ctx_make(test);
	u8 hdr[DDP_TAGGED_HDR_LEN] = { 0xc1 };
	struct bio_vec bv;
	u32 seq;

	KUNIT_ASSERT_EQ(test, mpa_tx_init(&c->tx, true, true, 0, 1024, 1), 0);
	seq = c->tx.seq;
	bvec_set_page(&bv, c->pages, 4 * PAGE_SIZE, 0);
	KUNIT_EXPECT_EQ(test, mpa_tx_frame(&c->tx, hdr, sizeof(hdr), &bv, 1,
					   4 * PAGE_SIZE), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, c->tx.seq, seq);
}

/* @len payload octets over the pages again and again; the bio_vecs used */
static unsigned int long_payload(struct tx_ctx *c, struct bio_vec *bv,
				 unsigned int max, u32 len)
{
	const u32 chunk = PAGE_SIZE << PAYLOAD_ORDER;
	unsigned int i;

	for (i = 0; len && i < max; i++, len -= min(len, chunk))
		bvec_set_page(&bv[i], c->pages, min(len, chunk), 0);
	return len ? 0 : i;
}

/*
 * RFC 5044 "MPA Markers": FPDUPTR has 16 bits.  At 504 octets before a
 * marker, a ULPDU of 65522 octets frames, its last marker 65528 octets
 * in; one of 65523 would put a marker 66040 octets in, and fails,
 * changing nothing.  Neither is longer than mpa_tx_init() sized for.
 */
static void mpa_tx_fpduptr_max(struct kunit *test)
{
	struct mpa_fpdu_cfg cfg = { .crc = true, .markers = true };
	u8 hdr[DDP_TAGGED_HDR_LEN] = { 0xc1 };
	struct tx_ctx *c = tx_ctx_make(test);
	struct bio_vec bv[5];
	unsigned int nr;
	u32 len, seq;
	int n;

	KUNIT_ASSERT_EQ(test, mpa_tx_init(&c->tx, true, true, 0, U16_MAX,
					  ARRAY_SIZE(bv)), 0);
	/* markers at 0 and 512, 520 octets in all */
	bvec_set_page(&bv[0], c->pages, 492, 0);
	KUNIT_ASSERT_EQ(test, mpa_tx_frame(&c->tx, hdr, sizeof(hdr), bv, 1,
					   492), 520);
	seq = c->tx.seq;
	KUNIT_ASSERT_EQ(test, mpa_marker_offset(0, seq), 504U);

	len = 65523 - sizeof(hdr);
	nr = long_payload(c, bv, ARRAY_SIZE(bv), len);
	KUNIT_ASSERT_GT(test, nr, 0U);
	KUNIT_EXPECT_EQ(test, mpa_tx_frame(&c->tx, hdr, sizeof(hdr), bv, nr,
					   len), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, c->tx.seq, seq);

	len--;
	nr = long_payload(c, bv, ARRAY_SIZE(bv), len);
	n = mpa_tx_frame(&c->tx, hdr, sizeof(hdr), bv, nr, len);
	cfg.seq = seq;
	KUNIT_EXPECT_EQ(test, n, (int)mpa_fpdu_wire_len(&cfg, 65522));
	KUNIT_ASSERT_EQ(test, c->tx.nr_marks, 128U);
	KUNIT_EXPECT_EQ(test, mpa_marker_fpduptr(&c->tx.marks[127]), 65528);
}

/* Payload bio_vecs shorter than the stated length are refused. */
static void mpa_tx_short_payload(struct kunit *test)
{
	struct tx_ctx *c = tx_ctx_make(test);
	u8 hdr[DDP_TAGGED_HDR_LEN] = { 0xc1 };
	struct bio_vec bv;

	KUNIT_ASSERT_EQ(test, mpa_tx_init(&c->tx, false, false, 0, 8192, 1),
			0);
	bvec_set_page(&bv, c->pages, 100, 0);
	KUNIT_EXPECT_EQ(test, mpa_tx_frame(&c->tx, hdr, sizeof(hdr), &bv, 1,
					   200), -EINVAL);
	KUNIT_EXPECT_EQ(test, c->tx.seq, 0);
	/* and when a short payload is copied */
	bvec_set_page(&bv, c->pages, 10, 0);
	KUNIT_EXPECT_EQ(test, mpa_tx_frame(&c->tx, hdr, sizeof(hdr), &bv, 1,
					   20), -EINVAL);
	KUNIT_EXPECT_EQ(test, c->tx.seq, 0);
}

/*
 * Without markers a short FPDU is built whole: one bio_vec, with CRC or
 * without; one with a longer payload is three (header, payload, trailer).
 */
static void mpa_tx_short_one_bvec(struct kunit *test)
{
	struct tx_ctx *c = tx_ctx_make(test);
	u8 hdr[DDP_TAGGED_HDR_LEN] = { 0xc1 };
	struct bio_vec bv;
	bool crc;

	for (crc = false; ; crc = true) {
		KUNIT_ASSERT_EQ(test, mpa_tx_init(&c->tx, crc, false, 0, 8192,
						  1), 0);
		bvec_set_page(&bv, c->pages, 8, 1);
		KUNIT_EXPECT_GT(test, mpa_tx_frame(&c->tx, hdr, sizeof(hdr),
						   &bv, 1, 8), 0);
		/* not if the frame happens to cross a page boundary */
		KUNIT_EXPECT_EQ(test, c->tx.nr_bv,
				c->tx.short_whole ? 1U : 3U);
		bvec_set_page(&bv, c->pages, MPA_TX_COPY_MAX + 1, 1);
		KUNIT_EXPECT_GT(test, mpa_tx_frame(&c->tx, hdr, sizeof(hdr),
						   &bv, 1,
						   MPA_TX_COPY_MAX + 1), 0);
		KUNIT_EXPECT_EQ(test, c->tx.nr_bv, 3U);
		mpa_tx_fini(&c->tx);
		if (crc)
			break;
	}
}

static struct kunit_case mpa_tx_test_cases[] = {
	KUNIT_CASE(mpa_tx_plain),
	KUNIT_CASE(mpa_tx_crc),
	KUNIT_CASE(mpa_tx_markers),
	KUNIT_CASE(mpa_tx_too_big),
	KUNIT_CASE(mpa_tx_fpduptr_max),
	KUNIT_CASE(mpa_tx_short_payload),
	KUNIT_CASE(mpa_tx_short_one_bvec),
	{}
};

static struct kunit_suite mpa_tx_test_suite = {
	.name = "sw_ddp_mpa_tx",
	.test_cases = mpa_tx_test_cases,
};

kunit_test_suites(&mpa_tx_test_suite);
