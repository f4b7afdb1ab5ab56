// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the receive sequence of a DDP Stream Session over SCTP
 * (sctp_seq.c, RFC 5043 §5.2.1, §6.1, §10).  Chunks carry their own
 * DDP-SSN in their data, so what comes out shows what went in; callers'
 * buffers are scribbled over after each call, so a held chunk that was
 * not copied shows too.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "llp_sctp.h"
#include "skb_fixture.h"

#define REC_MAX		64
#define HELD_MAX	(64 * 1024)
#define TCHUNK_LEN	32

struct rec {
	u16 got[REC_MAX];		/* DDP-SSNs delivered, in order */
	const void *data[REC_MAX];	/* where deliver() found them */
	u32 ppid[REC_MAX];
	u32 n;
	u32 bad;			/* delivered with the wrong bytes */
	u32 early_calls;
	unsigned long early_take;	/* bit i: early() takes i % 64 */
	int early_err;			/* early() returns it, if set */
	int fail_ssn;			/* deliver() fails for it, if >= 0 */
};

/* A chunk's data: its DDP-SSN, then filler that depends on it. */
struct tchunk {
	u8 data[TCHUNK_LEN];
	struct sw_ddp_sctp_chunk c;
};

static void tchunk_make(struct tchunk *t, u16 ssn, u32 ppid)
{
	u32 i;

	t->data[0] = ssn >> 8;
	t->data[1] = ssn & 0xff;
	for (i = 2; i < sizeof(t->data); i++)
		t->data[i] = (u8)(ssn * 7 + i);
	t->c = (struct sw_ddp_sctp_chunk){
		.ppid = ppid, .data = t->data, .len = sizeof(t->data),
	};
}

static bool tchunk_intact(const void *data, u16 ssn)
{
	struct tchunk t;

	tchunk_make(&t, ssn, 0);
	return !memcmp(data, t.data, sizeof(t.data));
}

static u16 chunk_ssn(const struct sw_ddp_sctp_chunk *c)
{
	const u8 *p = c->data;

	return p[0] << 8 | p[1];
}

static int rec_deliver(void *ctx, const struct sw_ddp_sctp_chunk *c)
{
	struct rec *r = ctx;
	u16 ssn = chunk_ssn(c);

	if (r->fail_ssn >= 0 && ssn == r->fail_ssn)
		return -EIO;
	if (!tchunk_intact(c->data, ssn))
		r->bad++;
	if (r->n < REC_MAX) {
		r->data[r->n] = c->data;
		r->ppid[r->n] = c->ppid;
		r->got[r->n] = ssn;
	}
	r->n++;
	return 0;
}

static int rec_early(void *ctx, const struct sw_ddp_sctp_chunk *c)
{
	struct rec *r = ctx;

	r->early_calls++;
	if (r->early_err)
		return r->early_err;
	return !!(r->early_take & BIT(chunk_ssn(c) % BITS_PER_LONG));
}

static const struct sw_ddp_sctp_seq_ops rec_ops = {
	.deliver = rec_deliver,
	.early = rec_early,
};

struct seq_fx {
	struct sw_ddp_sctp_seq q;
	struct rec r;
};

static int seq_init(struct kunit *test)
{
	struct seq_fx *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	f->r.fail_ssn = -1;
	test->priv = f;
	return sw_ddp_sctp_seq_init(&f->q, HELD_MAX);
}

static void seq_exit(struct kunit *test)
{
	struct seq_fx *f = test->priv;

	KUNIT_EXPECT_EQ(test, f->r.bad, 0);
	sw_ddp_sctp_seq_fini(&f->q);
}

/* Hand DDP-SSN @ssn over, then scribble on the caller's buffer. */
static int seq_put(struct seq_fx *f, u16 ssn)
{
	struct tchunk t;
	int err;

	tchunk_make(&t, ssn, SCTP_DDP_PPID_SEGMENT);
	err = sw_ddp_sctp_seq_rx(&f->q, ssn, &t.c, &rec_ops, &f->r);
	memset(t.data, 0xee, sizeof(t.data));
	return err;
}

/* Move @next on to @to by chunks in turn, uncounted. */
static void seq_advance(struct kunit *test, struct seq_fx *f, u16 to)
{
	while (f->q.next != to)
		KUNIT_ASSERT_EQ(test, seq_put(f, f->q.next), 0);
	f->r.n = 0;
}

/* In turn: delivered at once, from the caller's own buffer. */
static void seq_in_turn(struct kunit *test)
{
	struct seq_fx *f = test->priv;
	struct tchunk t;
	u16 i;

	for (i = 0; i < 10; i++) {
		tchunk_make(&t, i, i & 1 ? SCTP_DDP_PPID_SESSION_CTRL :
					   SCTP_DDP_PPID_SEGMENT);
		KUNIT_ASSERT_EQ(test, sw_ddp_sctp_seq_rx(&f->q, i, &t.c,
							 &rec_ops, &f->r), 0);
		KUNIT_ASSERT_EQ(test, f->r.n, i + 1);
		KUNIT_EXPECT_EQ(test, f->r.got[i], i);
		KUNIT_EXPECT_PTR_EQ(test, f->r.data[i], (const void *)t.data);
		KUNIT_EXPECT_EQ(test, f->r.ppid[i], t.c.ppid);
	}
	KUNIT_EXPECT_EQ(test, f->q.next, 10);
	KUNIT_EXPECT_EQ(test, f->r.early_calls, 0);
	KUNIT_EXPECT_EQ(test, f->q.held_bytes, 0);
}

/* Ahead of turn and not taken early: copies, delivered in order. */
static void seq_held_in_order(struct kunit *test)
{
	static const u16 order[] = { 3, 1, 5, 2, 4, 0 };
	struct seq_fx *f = test->priv;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(order) - 1; i++) {
		KUNIT_ASSERT_EQ(test, seq_put(f, order[i]), 0);
		KUNIT_EXPECT_EQ(test, f->r.n, 0);
	}
	KUNIT_EXPECT_EQ(test, f->r.early_calls, 5);
	KUNIT_EXPECT_GE(test, f->q.held_bytes, 5 * TCHUNK_LEN);
	KUNIT_ASSERT_EQ(test, seq_put(f, 0), 0);
	KUNIT_ASSERT_EQ(test, f->r.n, 6);
	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_EQ(test, f->r.got[i], i);
	KUNIT_EXPECT_EQ(test, f->q.next, 6);
	KUNIT_EXPECT_EQ(test, f->q.held_bytes, 0);
	KUNIT_EXPECT_TRUE(test, xa_empty(&f->q.held));
}

/* A gap closes partway: only the run behind it goes up. */
static void seq_partial_run(struct kunit *test)
{
	struct seq_fx *f = test->priv;

	KUNIT_ASSERT_EQ(test, seq_put(f, 2), 0);
	KUNIT_ASSERT_EQ(test, seq_put(f, 4), 0);
	KUNIT_ASSERT_EQ(test, seq_put(f, 0), 0);
	KUNIT_EXPECT_EQ(test, f->r.n, 1);
	KUNIT_ASSERT_EQ(test, seq_put(f, 1), 0);
	KUNIT_EXPECT_EQ(test, f->r.n, 3);
	KUNIT_EXPECT_EQ(test, f->q.next, 3);
	KUNIT_ASSERT_EQ(test, seq_put(f, 3), 0);
	KUNIT_ASSERT_EQ(test, f->r.n, 5);
	KUNIT_EXPECT_EQ(test, f->r.got[3], 3);
	KUNIT_EXPECT_EQ(test, f->r.got[4], 4);
}

/* Taken early: marked seen, never delivered again in turn. */
static void seq_early_taken(struct kunit *test)
{
	struct seq_fx *f = test->priv;
	u32 one;

	f->r.early_take = BIT(1) | BIT(2) | BIT(5);
	KUNIT_ASSERT_EQ(test, seq_put(f, 5), 0);
	KUNIT_EXPECT_EQ(test, f->q.held_bytes, 0);
	KUNIT_ASSERT_EQ(test, seq_put(f, 4), 0);
	one = f->q.held_bytes;
	KUNIT_EXPECT_GE(test, one, TCHUNK_LEN);
	KUNIT_ASSERT_EQ(test, seq_put(f, 3), 0);
	KUNIT_ASSERT_EQ(test, seq_put(f, 2), 0);
	KUNIT_ASSERT_EQ(test, seq_put(f, 1), 0);
	KUNIT_EXPECT_EQ(test, f->r.n, 0);
	KUNIT_EXPECT_EQ(test, f->q.held_bytes, 2 * one);
	KUNIT_ASSERT_EQ(test, seq_put(f, 0), 0);
	KUNIT_ASSERT_EQ(test, f->r.n, 3);
	KUNIT_EXPECT_EQ(test, f->r.got[0], 0);
	KUNIT_EXPECT_EQ(test, f->r.got[1], 3);
	KUNIT_EXPECT_EQ(test, f->r.got[2], 4);
	KUNIT_EXPECT_EQ(test, f->q.next, 6);
	KUNIT_EXPECT_EQ(test, f->q.held_bytes, 0);
	/* 6 is in turn: early() is not asked */
	KUNIT_ASSERT_EQ(test, seq_put(f, 6), 0);
	KUNIT_EXPECT_EQ(test, f->r.early_calls, 5);
}

/* §10: next + 32766 is the last DDP-SSN the window takes. */
static void seq_window_edge(struct kunit *test)
{
	struct seq_fx *f = test->priv;

	seq_advance(test, f, 100);
	KUNIT_EXPECT_EQ(test, seq_put(f, 100 + 32766), 0);
	KUNIT_EXPECT_EQ(test, f->r.n, 0);
	KUNIT_EXPECT_EQ(test, seq_put(f, 100 + 32767), -EPROTO);
	KUNIT_EXPECT_TRUE(test, f->q.dead);
}

static void seq_window_far(struct kunit *test)
{
	struct seq_fx *f = test->priv;

	KUNIT_EXPECT_EQ(test, seq_put(f, 40000), -EPROTO);
	KUNIT_EXPECT_EQ(test, f->r.early_calls, 0);
}

/* 16-bit serial arithmetic: 65535 is followed by 0. */
static void seq_wrap(struct kunit *test)
{
	static const u16 order[] = { 1, 65535, 0, 65534, 65533 };
	static const u16 want[] = { 65533, 65534, 0, 1 };	/* 65535 early */
	struct seq_fx *f = test->priv;
	u32 i;

	f->r.early_take = BIT(65535 % BITS_PER_LONG);
	seq_advance(test, f, 65533);
	for (i = 0; i < ARRAY_SIZE(order); i++)
		KUNIT_ASSERT_EQ(test, seq_put(f, order[i]), 0);
	KUNIT_ASSERT_EQ(test, f->r.n, ARRAY_SIZE(want));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_EQ(test, f->r.got[i], want[i]);
	KUNIT_EXPECT_EQ(test, f->q.next, 2);
	/* just before the wrap is before @next now */
	KUNIT_EXPECT_EQ(test, seq_put(f, 65535), -EPROTO);
}

/*
 * Bits are cleared as @next passes them: a DDP-SSN 32768 after one
 * that was seen ahead maps to the same bit, and must not look seen.
 */
static void seq_bits_cleared(struct kunit *test)
{
	struct seq_fx *f = test->priv;

	f->r.early_take = BIT(5);
	KUNIT_ASSERT_EQ(test, seq_put(f, 5), 0);
	KUNIT_ASSERT_EQ(test, seq_put(f, 7), 0);
	seq_advance(test, f, 32770);
	KUNIT_EXPECT_EQ(test, seq_put(f, 32768 + 5), 0);
	KUNIT_EXPECT_EQ(test, seq_put(f, 32768 + 7), 0);
	KUNIT_EXPECT_EQ(test, f->r.n, 0);
	seq_advance(test, f, 32768 + 8);
	KUNIT_EXPECT_FALSE(test, f->q.dead);
	KUNIT_EXPECT_EQ(test, f->q.held_bytes, 0);
}

/* A DDP-SSN already delivered is a replay. */
static void seq_replay_old(struct kunit *test)
{
	struct seq_fx *f = test->priv;

	KUNIT_ASSERT_EQ(test, seq_put(f, 0), 0);
	KUNIT_ASSERT_EQ(test, seq_put(f, 1), 0);
	KUNIT_EXPECT_EQ(test, seq_put(f, 0), -EPROTO);
	KUNIT_EXPECT_EQ(test, f->r.n, 2);
	KUNIT_EXPECT_EQ(test, seq_put(f, 2), -EPROTO);	/* dead */
	KUNIT_EXPECT_EQ(test, f->r.n, 2);
}

/* A DDP-SSN seen ahead (held, or taken early) is a replay too. */
static void seq_replay_ahead(struct kunit *test)
{
	struct seq_fx *f = test->priv;

	KUNIT_ASSERT_EQ(test, seq_put(f, 4), 0);
	KUNIT_EXPECT_EQ(test, seq_put(f, 4), -EPROTO);
	KUNIT_EXPECT_EQ(test, f->r.early_calls, 1);
}

static void seq_replay_early(struct kunit *test)
{
	struct seq_fx *f = test->priv;

	f->r.early_take = BIT(3);
	KUNIT_ASSERT_EQ(test, seq_put(f, 3), 0);
	KUNIT_EXPECT_EQ(test, f->q.held_bytes, 0);
	KUNIT_EXPECT_EQ(test, seq_put(f, 3), -EPROTO);
	KUNIT_EXPECT_EQ(test, f->r.early_calls, 1);
	KUNIT_EXPECT_EQ(test, seq_put(f, 0), -EPROTO);
	KUNIT_EXPECT_EQ(test, f->r.n, 0);
}

/*
 * Held copies stop at held_max; a gap cannot eat memory.  The chunk that
 * does not fit is lost, not the sequence: in its turn it is passed over,
 * and what comes after it is still put in order.
 */
static void seq_held_cap(struct kunit *test)
{
	struct seq_fx *f = test->priv;
	u16 ssn, lost;
	int err = 0;

	sw_ddp_sctp_seq_fini(&f->q);
	KUNIT_ASSERT_EQ(test, sw_ddp_sctp_seq_init(&f->q, 10 * 64), 0);
	for (ssn = 1; ssn < 100 && !err; ssn++)
		err = seq_put(f, ssn);
	lost = ssn - 1;
	KUNIT_EXPECT_EQ(test, err, -ENOBUFS);
	KUNIT_EXPECT_GT(test, lost, 1);
	KUNIT_EXPECT_LE(test, f->q.held_bytes, 10 * 64);
	KUNIT_EXPECT_FALSE(test, f->q.dead);

	KUNIT_ASSERT_EQ(test, seq_put(f, lost + 2), -ENOBUFS);
	KUNIT_ASSERT_EQ(test, seq_put(f, 0), 0);
	KUNIT_EXPECT_EQ(test, f->q.next, lost + 1);
	KUNIT_EXPECT_EQ(test, f->q.held_bytes, 0);
	KUNIT_ASSERT_EQ(test, seq_put(f, lost + 1), 0);
	KUNIT_EXPECT_EQ(test, f->q.next, lost + 3);
	/* 0 to lost - 1, then lost + 1: neither lost one */
	KUNIT_ASSERT_EQ(test, f->r.n, lost + 1);
	for (ssn = 0; ssn < lost; ssn++)
		KUNIT_EXPECT_EQ(test, f->r.got[ssn], ssn);
	KUNIT_EXPECT_EQ(test, f->r.got[lost], lost + 1);
	KUNIT_EXPECT_FALSE(test, f->q.dead);
}

/*
 * A peer that spaces its chunks out, one every 64 DDP-SSNs, makes the
 * xarray take a node of its own for each: the cap counts the nodes too,
 * so what a session holds is never much more than its cap.
 */
static void seq_held_sparse(struct kunit *test)
{
	struct seq_fx *f = test->priv;
	unsigned int held = 0;
	int err = 0;
	u32 ssn;

	for (ssn = 1; ssn < SCTP_DDP_SSN_WINDOW_MAX && !err;
	     ssn += XA_CHUNK_SIZE) {
		err = seq_put(f, ssn);
		held += !err;
	}
	KUNIT_EXPECT_EQ(test, err, -ENOBUFS);
	KUNIT_EXPECT_GT(test, held, 0);
	KUNIT_EXPECT_LE(test, held * sizeof(struct xa_node), HELD_MAX);
	KUNIT_EXPECT_LE(test, f->q.held_bytes, HELD_MAX);
}

/*
 * RFC 5043 §10: sequences that share a pool (the sessions of one
 * association) hold no more together than it allows, each well under its
 * own cap; and what one gives back, by delivery or by its end, another
 * may take.
 */
static void seq_pool_shared(struct kunit *test)
{
	struct seq_fx *f = test->priv;
	struct sw_ddp_sctp_seq other;
	atomic_t pool = ATOMIC_INIT(0);
	u32 pool_max = 8 * 1024;
	struct tchunk t;
	int err = 0;
	u16 ssn;

	KUNIT_ASSERT_EQ(test, sw_ddp_sctp_seq_init(&other, HELD_MAX), 0);
	sw_ddp_sctp_seq_share(&f->q, &pool, pool_max);
	sw_ddp_sctp_seq_share(&other, &pool, pool_max);
	/* the first one takes half the pool, held behind DDP-SSN 0 */
	for (ssn = 1; f->q.held_bytes < pool_max / 2; ssn++)
		KUNIT_ASSERT_EQ(test, seq_put(f, ssn), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&pool), f->q.held_bytes);
	/* the other one fills the rest and is refused, under its own cap */
	for (ssn = 1; ssn < 1000 && !err; ssn++) {
		tchunk_make(&t, ssn, SCTP_DDP_PPID_SEGMENT);
		err = sw_ddp_sctp_seq_rx(&other, ssn, &t.c, &rec_ops, &f->r);
	}
	KUNIT_EXPECT_EQ(test, err, -ENOBUFS);
	KUNIT_EXPECT_LE(test, other.held_bytes, pool_max / 2);
	KUNIT_EXPECT_LE(test, atomic_read(&pool), pool_max);
	KUNIT_EXPECT_EQ(test, atomic_read(&pool),
			f->q.held_bytes + other.held_bytes);
	/* its end gives its share back; the first one delivers all of its */
	sw_ddp_sctp_seq_fini(&other);
	KUNIT_EXPECT_EQ(test, atomic_read(&pool), f->q.held_bytes);
	KUNIT_ASSERT_EQ(test, seq_put(f, 0), 0);
	KUNIT_EXPECT_EQ(test, f->q.held_bytes, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&pool), 0);
	KUNIT_EXPECT_EQ(test, f->r.n, f->q.next);
	/* seq_exit() finishes it; the pool must not see it after that */
	sw_ddp_sctp_seq_share(&f->q, NULL, 0);
}

static void seq_all_max_restore(void *unused)
{
	WRITE_ONCE(sw_ddp_sctp_held_all_max, SW_DDP_SCTP_ALL_HELD_MAX);
}

/*
 * Sequences that share nothing still hold no more together than
 * SW_DDP_SCTP_ALL_HELD_MAX (lowered here to 8 KiB above what is held
 * now), and what one gives back another may take.
 */
static void seq_all_held_cap(struct kunit *test)
{
	struct seq_fx *f = test->priv;
	long base = atomic_long_read(&sw_ddp_sctp_held_all);
	struct sw_ddp_sctp_seq other;
	long room = 8 * 1024;
	struct tchunk t;
	int err = 0;
	u16 ssn, mine;
	u32 one;

	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   seq_all_max_restore,
							   NULL));
	WRITE_ONCE(sw_ddp_sctp_held_all_max, base + room);
	KUNIT_ASSERT_EQ(test, sw_ddp_sctp_seq_init(&other, HELD_MAX), 0);
	KUNIT_ASSERT_EQ(test, seq_put(f, 1), 0);
	one = f->q.held_bytes;		/* what a chunk counts */
	for (mine = 2; f->q.held_bytes < room / 2; mine++)
		KUNIT_ASSERT_EQ(test, seq_put(f, mine), 0);
	for (ssn = 1; ssn < 1000 && !err; ssn++) {
		tchunk_make(&t, ssn, SCTP_DDP_PPID_SEGMENT);
		err = sw_ddp_sctp_seq_rx(&other, ssn, &t.c, &rec_ops, &f->r);
	}
	KUNIT_EXPECT_EQ(test, err, -ENOBUFS);
	KUNIT_EXPECT_LE(test, other.held_bytes, room / 2);
	KUNIT_EXPECT_LE(test, atomic_long_read(&sw_ddp_sctp_held_all),
			base + room);
	sw_ddp_sctp_seq_fini(&other);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&sw_ddp_sctp_held_all),
			base + f->q.held_bytes);
	/* the room it gave back is the first one's to take */
	for (; f->q.held_bytes + one <= room; mine++)
		KUNIT_ASSERT_EQ(test, seq_put(f, mine), 0);
	KUNIT_ASSERT_EQ(test, seq_put(f, 0), 0);
	KUNIT_EXPECT_EQ(test, f->q.held_bytes, 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&sw_ddp_sctp_held_all), base);
}

/* Early-taken chunks cost nothing against the cap. */
static void seq_cap_early_free(struct kunit *test)
{
	struct seq_fx *f = test->priv;
	u16 ssn;

	sw_ddp_sctp_seq_fini(&f->q);
	KUNIT_ASSERT_EQ(test, sw_ddp_sctp_seq_init(&f->q, 0), 0);
	f->r.early_take = ~0UL;
	for (ssn = 1; ssn < 1000; ssn++)
		KUNIT_ASSERT_EQ(test, seq_put(f, ssn), 0);
	KUNIT_ASSERT_EQ(test, seq_put(f, 0), 0);
	KUNIT_EXPECT_EQ(test, f->r.n, 1);
	KUNIT_EXPECT_EQ(test, f->q.next, 1000);
}

/* An error from deliver() ends it, even midway through a run. */
static void seq_dead_deliver(struct kunit *test)
{
	struct seq_fx *f = test->priv;

	f->r.fail_ssn = 2;
	KUNIT_ASSERT_EQ(test, seq_put(f, 3), 0);
	KUNIT_ASSERT_EQ(test, seq_put(f, 2), 0);
	KUNIT_ASSERT_EQ(test, seq_put(f, 1), 0);
	KUNIT_EXPECT_EQ(test, seq_put(f, 0), -EIO);
	KUNIT_EXPECT_EQ(test, f->r.n, 2);	/* 0 and 1, not 3 */
	f->r.fail_ssn = -1;
	KUNIT_EXPECT_EQ(test, seq_put(f, 4), -EPROTO);
	KUNIT_EXPECT_EQ(test, f->r.n, 2);
}

static void seq_dead_early(struct kunit *test)
{
	struct seq_fx *f = test->priv;

	f->r.early_err = -EPROTO;
	KUNIT_EXPECT_EQ(test, seq_put(f, 1), -EPROTO);
	f->r.early_err = 0;
	KUNIT_EXPECT_EQ(test, seq_put(f, 0), -EPROTO);
	KUNIT_EXPECT_EQ(test, f->r.n, 0);
	KUNIT_EXPECT_EQ(test, f->q.held_bytes, 0);
}

/*
 * forget() gives back the held copies of one PPID; their DDP-SSNs are
 * passed over in turn, and the others still go up in order.
 */
static void seq_forget_kind(struct kunit *test)
{
	struct seq_fx *f = test->priv;
	struct tchunk t;
	u32 one;

	KUNIT_ASSERT_EQ(test, seq_put(f, 2), 0);
	one = f->q.held_bytes;	/* each chunk here costs the same */
	KUNIT_ASSERT_GT(test, one, 0);
	tchunk_make(&t, 3, SCTP_DDP_PPID_SESSION_CTRL);
	KUNIT_ASSERT_EQ(test, sw_ddp_sctp_seq_rx(&f->q, 3, &t.c, &rec_ops,
						 &f->r), 0);
	KUNIT_ASSERT_EQ(test, seq_put(f, 4), 0);
	KUNIT_ASSERT_EQ(test, f->q.held_bytes, 3 * one);
	sw_ddp_sctp_seq_forget(&f->q, SCTP_DDP_PPID_SEGMENT);
	KUNIT_EXPECT_EQ(test, f->q.held_bytes, one);
	KUNIT_ASSERT_EQ(test, seq_put(f, 0), 0);
	KUNIT_ASSERT_EQ(test, seq_put(f, 1), 0);
	KUNIT_ASSERT_EQ(test, f->r.n, 3);
	KUNIT_EXPECT_EQ(test, f->r.got[2], 3);
	KUNIT_EXPECT_EQ(test, f->r.ppid[2], (u32)SCTP_DDP_PPID_SESSION_CTRL);
	KUNIT_EXPECT_EQ(test, f->q.next, 5);
	KUNIT_EXPECT_EQ(test, f->q.held_bytes, 0);
	KUNIT_EXPECT_TRUE(test, xa_empty(&f->q.held));
	/* passed over, not forgotten as seen: a replay still fails */
	KUNIT_EXPECT_EQ(test, seq_put(f, 4), -EPROTO);
}

/* fini frees what is held (kmemleak watches); a failed init is safe. */
static void seq_fini_frees(struct kunit *test)
{
	struct seq_fx *f = test->priv;
	int ssn;

	for (ssn = 200; ssn > 0; ssn -= 3)
		KUNIT_ASSERT_EQ(test, seq_put(f, ssn), 0);
	KUNIT_EXPECT_GT(test, f->q.held_bytes, 0);
	sw_ddp_sctp_seq_fini(&f->q);
	KUNIT_EXPECT_TRUE(test, xa_empty(&f->q.held));
	KUNIT_EXPECT_EQ(test, f->q.held_bytes, 0);
	KUNIT_EXPECT_NULL(test, f->q.seen);
	KUNIT_EXPECT_EQ(test, seq_put(f, 0), -EPROTO);
	sw_ddp_sctp_seq_fini(&f->q);	/* twice, as the exit hook does */
}

/*
 * A received chunk left in its skb, as the association's receive side
 * hands segments over: @linear octets in the skb's head, the rest in
 * page fragments, the first @head also copied to @flat.
 */
static struct sk_buff *skb_chunk(struct kunit *test, const u8 *data, u32 len,
				 u32 linear, u8 *flat, u32 head,
				 struct sw_ddp_sctp_chunk *c)
{
	struct sk_buff *skb = fx_skb(data, len, linear, PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	memcpy(flat, data, head);
	*c = (struct sw_ddp_sctp_chunk){
		.ppid = SCTP_DDP_PPID_SEGMENT, .data = flat, .len = len,
		.head = head, .skb = skb,
	};
	return skb;
}

/* Known answer: every range of an skb chunk reads back, none past it. */
static void chunk_copy_skb(struct kunit *test)
{
	static const u32 ranges[][2] = {
		{ 0, 10 }, { 0, 64 }, { 60, 10 }, { 64, 1 }, { 90, 4000 },
		{ 100, 9900 }, { 0, 10000 }, { 9999, 1 }, { 10000, 0 },
	};
	const u32 len = 10000;
	u8 *data = kunit_kmalloc(test, len, GFP_KERNEL);
	u8 *out = kunit_kmalloc(test, len, GFP_KERNEL);
	struct sw_ddp_sctp_chunk c;
	struct sk_buff *skb;
	u8 flat[64];
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, data);
	KUNIT_ASSERT_NOT_NULL(test, out);
	for (i = 0; i < len; i++)
		data[i] = (u8)(i * 31 + i / 251);
	skb = skb_chunk(test, data, len, 100, flat, sizeof(flat), &c);
	KUNIT_EXPECT_EQ(test, sw_ddp_sctp_chunk_flat(&c), 64);
	for (i = 0; i < ARRAY_SIZE(ranges); i++) {
		memset(out, 0xee, len);
		KUNIT_EXPECT_EQ(test, sw_ddp_sctp_chunk_copy(&c, ranges[i][0], out,
							     ranges[i][1]), 0);
		KUNIT_EXPECT_MEMEQ(test, out, data + ranges[i][0],
				   ranges[i][1]);
	}
	/* the flat octets come from @data: they need not be the skb's */
	flat[5] ^= 0xff;
	KUNIT_EXPECT_EQ(test, sw_ddp_sctp_chunk_copy(&c, 5, out, 1), 0);
	KUNIT_EXPECT_EQ(test, out[0], flat[5]);
	KUNIT_EXPECT_EQ(test, sw_ddp_sctp_chunk_copy(&c, 9999, out, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, sw_ddp_sctp_chunk_copy(&c, 10001, out, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sw_ddp_sctp_chunk_copy(&c, 1, out, U32_MAX),
			-EINVAL);
	kfree_skb(skb);
}

/*
 * A chunk ahead of its turn that lives in an skb is held as a copy: the
 * skb goes back to the socket long before its turn comes.
 */
static void seq_held_skb_copied(struct kunit *test)
{
	struct seq_fx *f = test->priv;
	struct sw_ddp_sctp_chunk c;
	struct sk_buff *skb;
	struct tchunk t;
	u8 flat[8];

	tchunk_make(&t, 1, SCTP_DDP_PPID_SEGMENT);
	skb = skb_chunk(test, t.data, sizeof(t.data), 4, flat, sizeof(flat),
			&c);
	KUNIT_ASSERT_EQ(test, sw_ddp_sctp_seq_rx(&f->q, 1, &c, &rec_ops,
						 &f->r), 0);
	KUNIT_EXPECT_EQ(test, f->r.n, 0);
	kfree_skb(skb);
	memset(flat, 0xee, sizeof(flat));
	KUNIT_ASSERT_EQ(test, seq_put(f, 0), 0);
	KUNIT_ASSERT_EQ(test, f->r.n, 2);
	KUNIT_EXPECT_EQ(test, f->r.got[1], 1);	/* intact: seq_exit checks */
	KUNIT_EXPECT_EQ(test, f->q.held_bytes, 0);
}

static struct kunit_case sctp_seq_cases[] = {
	KUNIT_CASE(seq_in_turn),
	KUNIT_CASE(seq_held_in_order),
	KUNIT_CASE(seq_partial_run),
	KUNIT_CASE(seq_early_taken),
	KUNIT_CASE(seq_window_edge),
	KUNIT_CASE(seq_window_far),
	KUNIT_CASE(seq_wrap),
	KUNIT_CASE(seq_bits_cleared),
	KUNIT_CASE(seq_replay_old),
	KUNIT_CASE(seq_replay_ahead),
	KUNIT_CASE(seq_replay_early),
	KUNIT_CASE(seq_held_cap),
	KUNIT_CASE(seq_held_sparse),
	KUNIT_CASE(seq_pool_shared),
	KUNIT_CASE(seq_all_held_cap),
	KUNIT_CASE(seq_cap_early_free),
	KUNIT_CASE(seq_dead_deliver),
	KUNIT_CASE(seq_dead_early),
	KUNIT_CASE(seq_forget_kind),
	KUNIT_CASE(seq_fini_frees),
	KUNIT_CASE(chunk_copy_skb),
	KUNIT_CASE(seq_held_skb_copied),
	{}
};

static struct kunit_suite sctp_seq_suite = {
	.name = "sw_ddp_sctp_seq",
	.init = seq_init,
	.exit = seq_exit,
	.test_cases = sctp_seq_cases,
};

kunit_test_suites(&sctp_seq_suite);
