// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the TCP LLP's skb reader (llp_tcp_data.c), which mpa_rx pulls
 * every received octet through.  Skbs laid out as a socket hands them up
 * (head, page fragments, and a frag_list its cursor cannot map) are read
 * from every start offset in pieces of awkward sizes; what comes out must
 * be the octets that went in, in order, with the piece that runs past the
 * end refused.  The same walks through mapped() and skip() must see the
 * same octets in place, and every one of head and fragments mapped; and
 * peek() and crc(), which look ahead, the octets still to come, also in
 * the skbs queued after the input's, as a socket's receive queue holds
 * them.
 */
#include <kunit/test.h>
#include <linux/crc32c.h>
#include <linux/slab.h>
#include <net/tcp.h>

#include "llp_tcp.h"
#include "skb_fixture.h"

#define DATA_LEN	700U

static u8 *pattern(struct kunit *test)
{
	u8 *data = kunit_kmalloc(test, DATA_LEN, GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, data);
	for (i = 0; i < DATA_LEN; i++)
		data[i] = (u8)(i * 7 + 3);
	return data;
}

static void skb_free(void *skb)
{
	kfree_skb(skb);
}

/* Read [off, len) in pieces of @step; compare with data. */
static void read_all(struct kunit *test, const struct sk_buff *skb,
		     const u8 *data, u32 len, u32 off, u32 step)
{
	u8 *out = kunit_kmalloc(test, DATA_LEN, GFP_KERNEL);
	struct sw_ddp_tcp_skb_in in;
	u32 pos, n;

	KUNIT_ASSERT_NOT_NULL(test, out);
	sw_ddp_tcp_skb_in_init(&in, skb, off, len - off);
	for (pos = off; pos < len; pos += n) {
		n = min(step, len - pos);
		KUNIT_ASSERT_EQ(test, in.in.read(&in.in, out + pos, n), 0);
	}
	KUNIT_EXPECT_MEMEQ(test, out + off, data + off, len - off);
	/* nothing is left: one more octet is refused */
	KUNIT_EXPECT_NE(test, in.in.read(&in.in, out, 1), 0);
	kunit_kfree(test, out);
}

/*
 * Walk [off, len) as mpa_rx frames whole FPDUs: at most @step octets at
 * a time where mapped() shows them, skip()ped; read where it shows none,
 * which it may only do outside the head and page fragments (@frags_end).
 */
static void walk_mapped(struct kunit *test, const struct sk_buff *skb,
			const u8 *data, u32 len, u32 frags_end, u32 off,
			u32 step)
{
	u8 *out = kunit_kmalloc(test, DATA_LEN, GFP_KERNEL);
	struct sw_ddp_tcp_skb_in in;
	const u8 *p;
	u32 pos, n;

	KUNIT_ASSERT_NOT_NULL(test, out);
	sw_ddp_tcp_skb_in_init(&in, skb, off, len - off);
	for (pos = off; pos < len; pos += n) {
		n = in.in.mapped(&in.in, &p);
		KUNIT_ASSERT_LE(test, n, in.in.avail);
		if (n) {
			n = min(n, step);
			KUNIT_EXPECT_MEMEQ(test, p, data + pos, n);
			in.in.skip(&in.in, n);
		} else {
			KUNIT_ASSERT_GE(test, pos, frags_end);
			n = min(step, len - pos);
			KUNIT_ASSERT_EQ(test, in.in.read(&in.in, out, n), 0);
			KUNIT_EXPECT_MEMEQ(test, out, data + pos, n);
		}
		in.in.avail -= n;
	}
	KUNIT_EXPECT_EQ(test, in.in.mapped(&in.in, &p), 0);
	kunit_kfree(test, out);
}

/*
 * From @off, and again after every @step octets read: crc() and peek()
 * over what follows see the octets that went in, and leave the cursor
 * where it was, so that the read after them gets the right octets.
 */
static void peek_ahead(struct kunit *test, const struct sk_buff *skb,
		       const u8 *data, u32 len, u32 off, u32 step)
{
	u8 *out = kunit_kmalloc(test, DATA_LEN, GFP_KERNEL);
	struct sw_ddp_tcp_skb_in in;
	u32 pos, n, rest, crc;

	KUNIT_ASSERT_NOT_NULL(test, out);
	sw_ddp_tcp_skb_in_init(&in, skb, off, len - off);
	for (pos = off; pos < len; pos += n) {
		rest = len - pos;
		crc = ~0U;
		KUNIT_ASSERT_EQ(test, in.in.crc(&in.in, rest, &crc), 0);
		KUNIT_EXPECT_EQ(test, crc, crc32c(~0U, data + pos, rest));
		n = rest - rest / 2;
		KUNIT_ASSERT_EQ(test, in.in.peek(&in.in, rest / 2, out, n), 0);
		KUNIT_EXPECT_MEMEQ(test, out, data + pos + rest / 2, n);
		n = min(step, rest);
		KUNIT_ASSERT_EQ(test, in.in.read(&in.in, out, n), 0);
		KUNIT_EXPECT_MEMEQ(test, out, data + pos, n);
		in.in.avail -= n;
	}
	kunit_kfree(test, out);
}

static void read_every_way(struct kunit *test, const struct sk_buff *skb,
			   const u8 *data, u32 len, u32 frags_end)
{
	static const u32 steps[] = { 1, 2, 3, 4, 5, 14, 64, 333, DATA_LEN };
	u32 off, i;

	for (i = 0; i < ARRAY_SIZE(steps); i++)
		for (off = 0; off < len; off += 37) {
			read_all(test, skb, data, len, off, steps[i]);
			walk_mapped(test, skb, data, len, frags_end, off,
				    steps[i]);
			if (steps[i] >= 4)
				peek_ahead(test, skb, data, len, off,
					   steps[i]);
		}
}

/* Head and fragments of several sizes, from a tiny one up */
static void tcp_skb_read_frags(struct kunit *test)
{
	static const u32 layouts[][2] = {	/* linear, fragment size */
		{ DATA_LEN, 1 }, { 0, 1 }, { 0, 7 }, { 20, 100 },
		{ 1, 256 }, { 66, DATA_LEN },
	};
	u8 *data = pattern(test);
	struct sk_buff *skb;
	u32 i, len;

	for (i = 0; i < ARRAY_SIZE(layouts); i++) {
		/* no more fragments than an skb holds */
		len = min(DATA_LEN, layouts[i][0] + 16 * layouts[i][1]);
		skb = fx_skb(data, len, min(layouts[i][0], len),
			     layouts[i][1]);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		read_every_way(test, skb, data, len, len);
		kfree_skb(skb);
	}
}

/* Octets in a frag_list, after head and fragments: skb_copy_bits() */
static void tcp_skb_read_frag_list(struct kunit *test)
{
	u8 *data = pattern(test);
	struct sk_buff *skb, *next;

	skb = fx_skb(data, 300, 40, 130);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, skb_free, skb),
			0);
	next = fx_skb(data + 300, DATA_LEN - 300, 10, 128);
	KUNIT_ASSERT_NOT_NULL(test, next);
	skb_shinfo(skb)->frag_list = next;
	skb->len += next->len;
	skb->data_len += next->len;
	skb->truesize += next->truesize;
	read_every_way(test, skb, data, DATA_LEN, 300);
}

/*
 * A receive queue: pieces of the pattern in stream order, the second
 * overlapping the first (taken from the out-of-order queue with its start
 * received already), one of head only, an empty one as a FIN's; sequence
 * numbers that wrap.
 */
struct ahead_piece {
	u32 start, len, linear, frag;
};

static const struct ahead_piece ahead_pieces[] = {
	{ 0, 200, 20, 60 },
	{ 190, 250, 0, 32 },
	{ 440, 100, 100, 1 },
	{ 540, 160, 0, 16 },
	{ DATA_LEN, 0, 0, 1 },
};

#define AHEAD_SEQ0	(U32_MAX - 300)

static void queue_purge(void *q)
{
	__skb_queue_purge(q);
}

static struct sk_buff_head *ahead_queue(struct kunit *test, const u8 *data)
{
	struct sk_buff_head *q = kunit_kmalloc(test, sizeof(*q), GFP_KERNEL);
	const struct ahead_piece *p;
	struct sk_buff *skb;

	KUNIT_ASSERT_NOT_NULL(test, q);
	__skb_queue_head_init(q);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, queue_purge, q),
			0);
	for (p = ahead_pieces; p < ahead_pieces + ARRAY_SIZE(ahead_pieces);
	     p++) {
		skb = fx_skb(data + p->start, p->len, p->linear, p->frag);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		TCP_SKB_CB(skb)->seq = AHEAD_SEQ0 + p->start;
		__skb_queue_tail(q, skb);
	}
	return q;
}

/*
 * From where the input's cursor is, @pos of the pattern, to @end (where
 * the octets received end): ahead() counts them, crc() and peek() see
 * them, and nothing past @end.
 */
static void ahead_check(struct kunit *test, struct sw_ddp_tcp_skb_in *in,
			const u8 *data, u32 pos, u32 end)
{
	u8 out[40];
	u32 len, at, n, crc;

	KUNIT_EXPECT_EQ(test, in->in.ahead(&in->in, U32_MAX),
			end - pos - in->in.avail);
	for (len = 1; len <= end - pos; len += 29) {
		crc = ~0U;
		KUNIT_ASSERT_EQ(test, in->in.crc(&in->in, len, &crc), 0);
		KUNIT_EXPECT_EQ(test, crc, crc32c(~0U, data + pos, len));
	}
	for (at = 0; at < end - pos; at += 31) {
		n = min_t(u32, sizeof(out), end - pos - at);
		KUNIT_ASSERT_EQ(test, in->in.peek(&in->in, at, out, n), 0);
		KUNIT_EXPECT_MEMEQ(test, out, data + pos + at, n);
	}
	crc = ~0U;
	KUNIT_EXPECT_NE(test, in->in.crc(&in->in, end - pos + 1, &crc), 0);
	KUNIT_EXPECT_NE(test, in->in.peek(&in->in, end - pos - 1, out, 2), 0);
}

/*
 * From every offset of the first skb, and again after each read: peek()
 * and crc() reach across the queue, and reads go on where they were.
 */
static void tcp_skb_read_ahead(struct kunit *test)
{
	u8 *data = pattern(test);
	struct sk_buff_head *q = ahead_queue(test, data);
	struct sk_buff *first = skb_peek(q), *gap;
	struct sw_ddp_tcp_skb_in in;
	u32 off, pos, n;
	u8 out[7];

	for (off = 0; off < first->len; off += 13) {
		sw_ddp_tcp_skb_in_init(&in, first, off, first->len - off);
		sw_ddp_tcp_skb_in_ahead(&in, q);
		KUNIT_ASSERT_NOT_NULL(test, in.in.ahead);
		for (pos = off; pos < first->len; pos += n) {
			ahead_check(test, &in, data, pos, DATA_LEN);
			n = min_t(u32, sizeof(out), first->len - pos);
			KUNIT_ASSERT_EQ(test, in.in.read(&in.in, out, n), 0);
			KUNIT_EXPECT_MEMEQ(test, out, data + pos, n);
			in.in.avail -= n;
		}
	}

	/* an input cut short of its skb's end (urgent mark): no look ahead */
	sw_ddp_tcp_skb_in_init(&in, first, 0, first->len - 1);
	sw_ddp_tcp_skb_in_ahead(&in, q);
	KUNIT_EXPECT_NULL(test, in.in.ahead);

	/* a hole in the queue: what lies past it does not count */
	gap = skb_peek_next(skb_peek_next(first, q), q);
	__skb_unlink(gap, q);
	kfree_skb(gap);
	sw_ddp_tcp_skb_in_init(&in, first, 5, first->len - 5);
	sw_ddp_tcp_skb_in_ahead(&in, q);
	ahead_check(test, &in, data, 5, ahead_pieces[2].start);
}

static struct kunit_case tcp_skb_test_cases[] = {
	KUNIT_CASE(tcp_skb_read_frags),
	KUNIT_CASE(tcp_skb_read_frag_list),
	KUNIT_CASE(tcp_skb_read_ahead),
	{}
};

static struct kunit_suite tcp_skb_test_suite = {
	.name = "sw_ddp_tcp_skb",
	.test_cases = tcp_skb_test_cases,
};

kunit_test_suites(&tcp_skb_test_suite);
