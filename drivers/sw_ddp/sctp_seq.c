// SPDX-License-Identifier: GPL-2.0
/*
 * DDP over SCTP (RFC 5043): the receive sequence of one DDP Stream
 * Session.  SCTP hands up the session's chunks unordered (§10); the
 * DDP-SSN each carries (§5.2.1) restores the order they were sent in.
 *
 * The chunk in turn goes up at once, straight from the caller's buffer.
 * A chunk ahead of its turn is offered to ops->early(): DDP places an
 * RDMA Write segment as it arrives (RFC 5041 §5.3); anything else is
 * copied and held until the chunks before it have come.  Messages thus
 * complete in DDP-SSN order whatever the arrival order (RFC 5041 §5.4).
 *
 * Which DDP-SSNs were seen ahead of @next is one bit each, indexed by the
 * DDP-SSN modulo the window: within the window of §10 no two can share a
 * bit, and a bit is cleared as @next passes it.  Held copies are found by
 * their DDP-SSN in an xarray, so no arrival order makes one chunk cost
 * more than another.
 */
#include <linux/bitmap.h>
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <kunit/visibility.h>

#include "llp_sctp.h"

#define SEQ_SEEN_BITS	(SCTP_DDP_SSN_WINDOW_MAX + 1)

/* A chunk kept for its turn, in sw_ddp_sctp_seq.held at its DDP-SSN. */
struct sctp_seq_held {
	u32 ppid;
	u32 len;
	u8 data[];
};

static unsigned int seq_bit(u16 ssn)
{
	return ssn % SEQ_SEEN_BITS;
}

/*
 * What a held chunk costs against the caps: all of its allocation (at
 * most what kmalloc() would take for it), and a whole node of the xarray
 * that finds it.  Chunks 64 DDP-SSNs apart get a node each (XA_CHUNK_SIZE
 * slots), so a peer that spaces out small chunks makes the nodes most of
 * what it costs us (576 octets each on x86-64, 64 for the copy of a chunk
 * of 32); counted, they stay within the caps.  Chunks held side by side
 * are over-counted, and a session may still hold thousands of them.
 */
static size_t seq_held_size(u32 len)
{
	struct sctp_seq_held *h;

	return kmalloc_size_roundup(struct_size(h, data, len)) +
	       sizeof(struct xa_node);
}

/* Octets held by every sequence there is, and their cap */
VISIBLE_IF_KUNIT atomic_long_t sw_ddp_sctp_held_all = ATOMIC_LONG_INIT(0);
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_held_all);
VISIBLE_IF_KUNIT long sw_ddp_sctp_held_all_max = SW_DDP_SCTP_ALL_HELD_MAX;
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_held_all_max);

/* @size octets held, or (negative) given back, counted where they go. */
static void seq_account(struct sw_ddp_sctp_seq *q, int size)
{
	q->held_bytes += size;
	if (q->pool)
		atomic_add(size, q->pool);
	atomic_long_add(size, &sw_ddp_sctp_held_all);
}

/**
 * sw_ddp_sctp_seq_init() - a new session's receive sequence
 * @q: the sequence
 * @held_max: octets of chunks it may hold for their turn, at most
 *
 * §6.1: the first DDP-SSN of a session is zero.  Process context.
 *
 * Return: 0 or -ENOMEM; sw_ddp_sctp_seq_fini() is safe either way.
 */
int sw_ddp_sctp_seq_init(struct sw_ddp_sctp_seq *q, u32 held_max)
{
	*q = (struct sw_ddp_sctp_seq){ .held_max = held_max };
	xa_init(&q->held);
	q->seen = bitmap_zalloc(SEQ_SEEN_BITS, GFP_KERNEL);
	if (!q->seen) {
		q->dead = true;
		return -ENOMEM;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_seq_init);

/**
 * sw_ddp_sctp_seq_share() - count a sequence's held copies in a pool too
 * @q: the sequence, holding nothing yet
 * @pool: octets held by every sequence that shares it
 * @pool_max: what they may hold together, at most
 */
void sw_ddp_sctp_seq_share(struct sw_ddp_sctp_seq *q, atomic_t *pool,
			   u32 pool_max)
{
	WARN_ON_ONCE(q->held_bytes);
	q->pool = pool;
	q->pool_max = pool_max;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_seq_share);

/**
 * sw_ddp_sctp_seq_fini() - free what a sequence holds
 * @q: the sequence; it refuses every chunk afterwards
 */
void sw_ddp_sctp_seq_fini(struct sw_ddp_sctp_seq *q)
{
	struct sctp_seq_held *h;
	unsigned long ssn;

	xa_for_each(&q->held, ssn, h)
		kvfree(h);
	xa_destroy(&q->held);
	seq_account(q, -(int)q->held_bytes);
	bitmap_free(q->seen);
	q->seen = NULL;
	q->dead = true;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_seq_fini);

/**
 * sw_ddp_sctp_seq_forget() - give back the held copies of one kind
 * @q: the sequence
 * @ppid: the PPID of the chunks its session no longer takes
 *
 * Their DDP-SSNs stay seen: the sequence passes over them in turn, as
 * over chunks placed early, and still orders what comes after them.
 */
void sw_ddp_sctp_seq_forget(struct sw_ddp_sctp_seq *q, u32 ppid)
{
	struct sctp_seq_held *h;
	unsigned long ssn;

	xa_for_each(&q->held, ssn, h) {
		if (h->ppid != ppid)
			continue;
		xa_erase(&q->held, ssn);
		seq_account(q, -(int)seq_held_size(h->len));
		kvfree(h);
	}
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_seq_forget);

/* Copy @c and keep it for its turn. */
static int seq_hold(struct sw_ddp_sctp_seq *q, u16 ssn,
		    const struct sw_ddp_sctp_chunk *c)
{
	size_t size = seq_held_size(c->len);
	struct sctp_seq_held *h;
	int err;

	if (size > q->held_max - q->held_bytes)
		return -ENOBUFS;
	seq_account(q, size);
	if ((q->pool && atomic_read(q->pool) > q->pool_max) ||
	    atomic_long_read(&sw_ddp_sctp_held_all) >
	    READ_ONCE(sw_ddp_sctp_held_all_max)) {
		err = -ENOBUFS;
		goto err;
	}
	/*
	 * The association's receive context is process context.  A chunk
	 * of 64 KiB need not find 128 KiB of contiguous pages.
	 */
	h = kvmalloc(struct_size(h, data, c->len), GFP_KERNEL);
	if (!h) {
		err = -ENOMEM;
		goto err;
	}
	h->ppid = c->ppid;
	h->len = c->len;
	err = sw_ddp_sctp_chunk_copy(c, 0, h->data, c->len);
	if (!err)
		err = xa_insert(&q->held, ssn, h, GFP_KERNEL);
	if (!err)
		return 0;
	kvfree(h);
err:
	seq_account(q, -(int)size);
	return err;
}

/*
 * A chunk ahead of its turn: placed now by the session, or held; one that
 * cannot be held is lost, and passed over in turn as one placed.
 */
static int seq_ahead(struct sw_ddp_sctp_seq *q, u16 ssn,
		     const struct sw_ddp_sctp_chunk *c,
		     const struct sw_ddp_sctp_seq_ops *ops, void *ctx)
{
	int ret = ops->early ? ops->early(ctx, c) : 0;

	if (ret < 0)
		return ret;
	ret = !ret && seq_hold(q, ssn, c) ? -ENOBUFS : 0;
	__set_bit(seq_bit(ssn), q->seen);
	return ret;
}

static int seq_deliver_held(struct sw_ddp_sctp_seq *q,
			    struct sctp_seq_held *h,
			    const struct sw_ddp_sctp_seq_ops *ops, void *ctx)
{
	struct sw_ddp_sctp_chunk c = {
		.ppid = h->ppid, .data = h->data, .len = h->len,
	};
	int err;

	seq_account(q, -(int)seq_held_size(h->len));
	err = ops->deliver(ctx, &c);
	kvfree(h);
	return err;
}

/*
 * @next has just come: move on over every DDP-SSN seen ahead of it,
 * delivering the held copies and passing over those placed early.
 */
static int seq_catch_up(struct sw_ddp_sctp_seq *q,
			const struct sw_ddp_sctp_seq_ops *ops, void *ctx)
{
	struct sctp_seq_held *h;
	int err;

	while (test_bit(seq_bit(q->next), q->seen)) {
		__clear_bit(seq_bit(q->next), q->seen);
		h = xa_erase(&q->held, q->next);
		if (h) {
			err = seq_deliver_held(q, h, ops, ctx);
			if (err)
				return err;
		}
		q->next++;
	}
	return 0;
}

static int seq_rx(struct sw_ddp_sctp_seq *q, u16 ssn,
		  const struct sw_ddp_sctp_chunk *c,
		  const struct sw_ddp_sctp_seq_ops *ops, void *ctx)
{
	int err;

	/* §10: before @next is a replay; past the window cannot be valid */
	if (!sctp_ddp_ssn_in_window(ssn, q->next, SCTP_DDP_SSN_WINDOW_MAX))
		return -EPROTO;
	if (ssn != q->next) {
		if (test_bit(seq_bit(ssn), q->seen))
			return -EPROTO;		/* seen already: a replay */
		return seq_ahead(q, ssn, c, ops, ctx);
	}
	err = ops->deliver(ctx, c);
	if (err)
		return err;
	q->next++;
	return seq_catch_up(q, ops, ctx);
}

/**
 * sw_ddp_sctp_seq_rx() - one chunk of the session has arrived
 * @q: the session's sequence
 * @ssn: the chunk's DDP-SSN
 * @c: the chunk, DDP-SSN taken off; only read during the call
 * @ops: what to do with chunks: deliver() in turn, early() ahead of it
 * @ctx: their context
 *
 * Process context (a held chunk is copied with GFP_KERNEL).  RFC 5043
 * §6.1: a chunk that breaks the sequence ends the session, and so does
 * any error here but -ENOBUFS: the sequence refuses everything afterwards.
 * A chunk ahead of its turn that cannot be held (§10: a cap, or memory)
 * is lost: its DDP-SSN is passed over in turn, as one placed early, and
 * the sequence still orders what comes after it.
 *
 * Return: 0; -EPROTO for a DDP-SSN outside the window, a replay, or a
 * sequence already ended; -ENOBUFS if @c was lost (holding it would
 * pass held_max, pool_max or SW_DDP_SCTP_ALL_HELD_MAX, or memory ran
 * out); or the error deliver() or early() returned.
 */
int sw_ddp_sctp_seq_rx(struct sw_ddp_sctp_seq *q, u16 ssn,
		       const struct sw_ddp_sctp_chunk *c,
		       const struct sw_ddp_sctp_seq_ops *ops, void *ctx)
{
	int err;

	if (q->dead)
		return -EPROTO;
	err = seq_rx(q, ssn, c, ops, ctx);
	if (err && err != -ENOBUFS)
		q->dead = true;
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_seq_rx);
