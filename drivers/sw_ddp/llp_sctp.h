/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DDP over SCTP (RFC 5043): chunk validation and Stream Session Control
 * messages.  Wire layout lives in <sw_ddp/sctp_ddp.h>; this header is
 * module-internal.
 */
#ifndef SW_DDP_LLP_SCTP_H
#define SW_DDP_LLP_SCTP_H

#include <linux/minmax.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <sw_ddp/sctp_ddp.h>

#include "llp.h"

struct sk_buff;

/* Receive state a chunk is checked against. */
struct sctp_ddp_rx_limits {
	u16 next_ssn;	/* lowest DDP-SSN not yet received */
	u16 window;	/* DDP-SSNs accepted from next_ssn on, <= 32767 */
	u32 max_seg;	/* largest DDP Segment taken (sctp.rst, §9) */
};

u32 sctp_ddp_max_seg(u32 path_limit);
bool sctp_ddp_ssn_in_window(u16 ssn, u16 next, u16 window);
enum sctp_ddp_verdict sctp_ddp_validate_adapt(const void *param, u32 len);
enum sctp_ddp_verdict
sctp_ddp_validate_chunk(u32 ppid, const void *chunk, u32 len,
			const struct sctp_ddp_rx_limits *lim);
int sctp_ddp_session_ctrl_build(u8 *buf, u32 size, u16 ssn,
				enum sctp_ddp_func func, const void *pdata,
				u16 pdata_len);

/*
 * The SCTP LLP is three parts:
 *
 *   sctp_assoc.c, sctp_session.c, cm_sctp.c: associations on kernel SCTP
 *   sockets (adaptation indication, streams), DDP Stream Sessions on
 *   stream pairs (Stream Session Control, PPID 17) with the iw_cm glue,
 *   and the LLP ops of an established session (DDP Segment Chunks, PPID
 *   16, unordered, each with the session's next DDP-SSN).
 *
 *   sctp_seq.c: receive sequencing of one session (below).
 *
 *   sctp_seg.c: one received DDP Segment handed to DDP's receive upcalls.
 */

/*
 * One received Payload Data Chunk of a session, its DDP-SSN taken off:
 * @ppid SCTP_DDP_PPID_SEGMENT (it starts at the DDP control octet) or
 * SCTP_DDP_PPID_SESSION_CTRL (it starts at the Function Code).
 *
 * Its @len octets are at @data, unless @skb is set: then they are in
 * @skb from @skb_off on, and @data holds only the first @head of them,
 * enough for every header (a segment taken straight off the socket, so
 * that its payload is copied once, into place).  A Session Control
 * chunk is always flat.
 */
struct sw_ddp_sctp_chunk {
	u32 ppid;
	const void *data;
	u32 len;
	u32 head;
	const struct sk_buff *skb;
	u32 skb_off;
};

/*
 * Octets of a chunk taken off the socket kept flat: the longest header
 * DDP asks for (untagged, RDMAP Read Request) fits.
 */
#define SW_DDP_SCTP_RX_HEAD	64
static_assert(DDP_UNTAGGED_HDR_LEN + RDMAP_READ_REQ_LEN <= SW_DDP_SCTP_RX_HEAD);

/* Octets of @c readable at c->data */
static inline u32 sw_ddp_sctp_chunk_flat(const struct sw_ddp_sctp_chunk *c)
{
	return c->skb ? min(c->head, c->len) : c->len;
}

int sw_ddp_sctp_chunk_copy(const struct sw_ddp_sctp_chunk *c, u32 off,
			   void *dst, u32 len);

/*
 * What a session does with its chunks, from the association's receive
 * context (process context, one chunk at a time per association).
 */
struct sw_ddp_sctp_seq_ops {
	/*
	 * In DDP-SSN order, each chunk once.  0 to go on; a negative errno
	 * (not -ENOBUFS, which says a chunk was lost) ends the session's
	 * receive side (nothing more is delivered).
	 */
	int (*deliver)(void *ctx, const struct sw_ddp_sctp_chunk *c);
	/*
	 * A chunk ahead of its turn.  1: handled now (a tagged segment
	 * placed as it arrived), nothing to do in turn; 0: keep a copy and
	 * deliver() it in turn; negative: as for deliver().
	 */
	int (*early)(void *ctx, const struct sw_ddp_sctp_chunk *c);
};

/*
 * RFC 5043 §5.2.1, §6.1, §10: a session's receive sequence.  DDP-SSNs
 * start at zero, have no gaps, and are accepted within a window of
 * SCTP_DDP_SSN_WINDOW_MAX from the next expected one; a DDP-SSN before it
 * or seen before is a replay.  Copies held for later are capped at
 * @held_max octets: a peer that leaves a gap and keeps sending beyond it
 * ends the session rather than exhausting memory.  Sessions that share
 * an association may also share a @pool, capped at @pool_max octets, so
 * that a peer cannot multiply the cap by the sessions it opens.  And
 * every sequence together holds at most SW_DDP_SCTP_ALL_HELD_MAX: nothing
 * else bounds how many associations carry sessions that ULPs accepted.
 * Past it a chunk that must be held fails its session, rather than the
 * machine running out of memory.
 */
#define SW_DDP_SCTP_ALL_HELD_MAX	(256L << 20)

struct sw_ddp_sctp_seq {
	u16 next;			/* DDP-SSN of the next chunk in turn */
	unsigned long *seen;		/* received ahead of @next */
	/*
	 * Copies, indexed by DDP-SSN (an xarray, not the list first
	 * planned: finding a chunk's turn costs the same however many
	 * are held and whatever order they came in).
	 */
	struct xarray held;
	u32 held_bytes, held_max;
	atomic_t *pool;			/* held octets of all who share it */
	u32 pool_max;
	bool dead;			/* an error ended it */
};

int sw_ddp_sctp_seq_init(struct sw_ddp_sctp_seq *q, u32 held_max);
void sw_ddp_sctp_seq_share(struct sw_ddp_sctp_seq *q, atomic_t *pool,
			   u32 pool_max);
void sw_ddp_sctp_seq_fini(struct sw_ddp_sctp_seq *q);
void sw_ddp_sctp_seq_forget(struct sw_ddp_sctp_seq *q, u32 ppid);
#if IS_ENABLED(CONFIG_KUNIT)
extern atomic_long_t sw_ddp_sctp_held_all;	/* octets, every sequence */
extern long sw_ddp_sctp_held_all_max;	/* SW_DDP_SCTP_ALL_HELD_MAX */
#endif
/*
 * One chunk with DDP-SSN @ssn arrived.  Return: 0; -EPROTO for a
 * DDP-SSN outside the window or a replay; -ENOBUFS if the chunk, ahead
 * of its turn, could not be held and is lost (it is passed over in turn);
 * or the ops' error.  After an error but -ENOBUFS the sequence takes
 * nothing more.
 */
int sw_ddp_sctp_seq_rx(struct sw_ddp_sctp_seq *q, u16 ssn,
		       const struct sw_ddp_sctp_chunk *c,
		       const struct sw_ddp_sctp_seq_ops *ops, void *ctx);

/*
 * sctp_seg.c: hand one whole DDP Segment (a chunk of PPID 16) to DDP's
 * receive upcalls.  With @early, only a segment DDP may place ahead of
 * its turn is taken (rx->may_place_early()).  Return: 1 taken, 0 not
 * taken (@early only), -EPROTO if DDP failed it (DDP has then started
 * its Terminate: deliver nothing more).
 */
int sw_ddp_sctp_seg_rx(const struct sw_ddp_rx_ops *rx, void *upper,
		       const struct sw_ddp_sctp_chunk *seg, bool early);

#endif /* SW_DDP_LLP_SCTP_H */
