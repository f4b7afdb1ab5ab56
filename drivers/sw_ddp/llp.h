/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Lower Layer Protocol interface: all that DDP sees of its transport.
 *
 * An LLP endpoint carries one DDP stream (RFC 5041 §1.3): a TCP connection
 * framed by MPA (llp_tcp.c, mpa.c) or a stream of an SCTP association
 * (llp_sctp.c).  DDP calls down through struct sw_ddp_llp_ops; the LLP calls
 * up through the ddp_rx_* functions declared at the end, and knows nothing
 * of STags, queues or RDMAP beyond the header length DDP tells it.
 */
#ifndef SW_DDP_LLP_H
#define SW_DDP_LLP_H

#include <linux/types.h>
#include <linux/bvec.h>
#include <linux/cpumask.h>
#include <linux/smp.h>
#include <sw_ddp/rdmap.h>

struct sw_ddp_llp;
struct sw_ddp_qp;
struct sw_ddp_rx_ops;

/*
 * RFC 6581 §9.2 "Ready to Receive" (RTR) indications, the zero-length
 * messages that may open a peer-to-peer connection; as a bit mask, the
 * types one side offers or takes.
 */
enum sw_ddp_rtr {
	SW_DDP_RTR_NONE = 0,
	SW_DDP_RTR_WRITE = 1,	/* zero-length RDMA Write (C) */
	SW_DDP_RTR_READ = 2,	/* zero-length RDMA Read (D) */
	SW_DDP_RTR_SEND = 4,	/* zero-length Send (B) */
};

/*
 * Where the payload of an arriving segment comes from.  ddp.c pulls it
 * straight into the target memory with copy(), in order, chunk by chunk;
 * the LLP skips markers and feeds its CRC as the bytes go by.  copy()
 * returns 0 once all @len octets are copied, or a negative errno.
 */
struct sw_ddp_rx_src {
	int (*copy)(struct sw_ddp_rx_src *src, void *dst, unsigned int len);
};

struct sw_ddp_llp_ops {
	/*
	 * Largest DDP segment, header included, the LLP carries whole: the
	 * MULPDU for MPA (RFC 5044 §6.1), the maximum DDP segment size for
	 * SCTP (RFC 5043 §9).  May change with the path MTU; DDP reads it
	 * once per message, and a segment built to an older, larger value is
	 * still carried, if not whole.  0 once the stream is closing, as
	 * -ESHUTDOWN from send_segment() says.
	 */
	u32 (*max_segment)(struct sw_ddp_llp *llp);

	/*
	 * Send one DDP segment: hdr_len header octets, then @len payload
	 * octets from the pages in @bv (nr_bv of them).  Runs in process
	 * context and may sleep until the socket has taken the whole
	 * segment (but see SW_DDP_SEG_NOW); returns 0, or a negative errno
	 * once the stream is unusable.  @flags: SW_DDP_SEG_* below.
	 * -ESHUTDOWN: the stream is closing, by our close(), stop() or the
	 * peer's close, or for a failure the LLP reports to its owner
	 * itself.  The segment went in part or not at all; this is no
	 * failure of DDP's, and the owner's teardown follows.
	 */
	int (*send_segment)(struct sw_ddp_llp *llp, const void *hdr,
			    unsigned int hdr_len, const struct bio_vec *bv,
			    unsigned int nr_bv, u32 len, unsigned int flags);

	/*
	 * Octets send_segment() would take now without waiting, as an
	 * estimate (TCP: send buffer room); NULL or 0: unknown, and DDP
	 * then sends only from its work item.
	 */
	u32 (*tx_room)(struct sw_ddp_llp *llp);

	/* Gracefully (abortive == false) or abortively end the stream. */
	void (*close)(struct sw_ddp_llp *llp, bool abortive);

	/*
	 * For the QP (qp.c), not DDP: wait until no receive upcall that
	 * began before this call is still running.  Process context; the
	 * LLP keeps delivering afterwards.  The QP moves to ERROR, then
	 * calls it: every later upcall sees ERROR and places nothing, so
	 * once the flush completions are out no byte lands in a WQE's
	 * buffer.  NULL if the LLP's upcalls never overlap its callers.
	 */
	void (*rx_sync)(struct sw_ddp_llp *llp);

	/*
	 * For the QP (qp.c), not DDP: start delivering received segments
	 * to @rx with @upper, a segment's payload in at most @max_bv pages
	 * when sending; and stop: once stop() returns, no upcall runs and
	 * no send_segment() is under way or will succeed.
	 */
	int (*start)(struct sw_ddp_llp *llp, const struct sw_ddp_rx_ops *rx,
		     void *upper, unsigned int max_bv);
	void (*stop)(struct sw_ddp_llp *llp);

	/*
	 * The data path received the RTR that llp->rtr_wait named (any
	 * context).  Only an LLP that sets rtr_wait needs it.
	 */
	void (*rtr_received)(struct sw_ddp_llp *llp);
};

/*
 * send_segment() flags.  SW_DDP_SEG_ZCOPY: the payload pages may go out
 * by reference (zero copy) instead of being copied: the consumer has no
 * completion that would tell it the memory is free again before the LLP
 * is done with it (see rdmap_tx.c), so the LLP may read it as late as it
 * likes, a retransmission included, as an RNIC's DMA engine would.
 */
#define SW_DDP_SEG_ZCOPY	0x1
/*
 * SW_DDP_SEG_NOW: called from the LLP's own receive upcall, in atomic
 * context, its receive side locked (a Read Response answering the Read
 * Request just delivered).  The LLP takes all of the segment without
 * sleeping (what its transport cannot take at once it keeps, and sends
 * later before any other segment), or returns -EAGAIN having sent none of
 * it and changed nothing; an LLP that cannot send from there always
 * returns -EAGAIN.  The payload is copied before the call returns.
 */
#define SW_DDP_SEG_NOW		0x2

struct sw_ddp_llp {
	const struct sw_ddp_llp_ops *ops;
	struct sw_ddp_qp *qp;
	/*
	 * RFC 6581 peer-to-peer mode, as the LLP negotiated it, set before
	 * the QP attaches: the initiator sends @rtr_send before any other
	 * message; the responder sends nothing until @rtr_wait has arrived,
	 * and takes nothing else first.  NONE otherwise (always for SCTP,
	 * where either side may send first, RFC 6581 §7).
	 */
	enum sw_ddp_rtr rtr_send;
	enum sw_ddp_rtr rtr_wait;
};

/*
 * The receive upcalls: what an LLP calls, in this order for each segment,
 * on the layer above it (ddp.c; a test sink in KUnit).  @upper is the
 * context the LLP was given.  Each returns SW_DDP_TERM_OK or the error a
 * Terminate must carry; after an error the LLP delivers nothing more.
 * The error alone changes nothing: the LLP passes it to error() once it
 * knows the segment arrived as sent, at once where its transport checked
 * that (SCTP's CRC32c, TCP without MPA CRCs), else after the segment's
 * CRC, and reports a bad CRC instead (RFC 5044 §8).
 *
 * Payload may be placed before the LLP has checked the segment's CRC:
 * the header checks of begin() bound every write to the target buffer,
 * and a CRC error ends the stream before the message can complete, so a
 * consumer never sees the data: a ULP buffer's contents are undefined
 * until its message completes.
 */
struct sw_ddp_rx_ops {
	/*
	 * Octets of header to gather, judged from the segment's first two
	 * (DDP control and RDMAP control); the LLP passes them whole to
	 * begin().  At least 2.
	 */
	unsigned int (*hdr_len)(void *upper, const u8 *ctrl);

	struct sw_ddp_term_err (*begin)(void *upper, const void *hdr,
					unsigned int hdr_len, u32 payload_len);

	/*
	 * @len octets of payload, to be pulled from @src in order; called
	 * as often as the LLP needs, summing to begin()'s payload_len.
	 */
	struct sw_ddp_term_err (*payload)(void *upper,
					  struct sw_ddp_rx_src *src, u32 len);

	/* The segment is whole and, where negotiated, its CRC is good. */
	struct sw_ddp_term_err (*end)(void *upper);

	/*
	 * The stream fails with @err: an upcall's, as above, or the LLP's
	 * own (MPA CRC or marker, an RTR that never came).
	 */
	void (*error)(void *upper, struct sw_ddp_term_err err);

	/*
	 * For an LLP that can hand up a segment before earlier ones have
	 * arrived (SCTP, RFC 5043 §10); MPA never asks.  @hdr is the
	 * segment's whole header, as hdr_len() sized it.  True: DDP may
	 * place this segment now, ahead of its turn (RFC 5041 §5.3), as it
	 * completes nothing; the LLP then runs begin(), payload() and end()
	 * for it at once, and never again in turn.  False: the LLP keeps
	 * it and delivers it in turn.  NULL means never.
	 */
	bool (*may_place_early)(void *upper, const void *hdr,
				unsigned int hdr_len);
};

/*
 * Upcall from the data path (any context): the responder's first message
 * was the RTR llp->rtr_wait named (rdmap_rtr.c).  The connection manager
 * then reports the connection established; an LLP that waits does not
 * wait forever (TCP: SW_DDP_MPA_TIMEOUT_MS, then its error() upcall, and
 * the stream sends a Terminate).
 */
static inline void sw_ddp_llp_rtr_received(struct sw_ddp_llp *llp)
{
	llp->ops->rtr_received(llp);
}

/*
 * Where work goes that should leave this CPU: the next online one.  Over
 * veth a peer's receive runs on the sender's CPU, in its softirq; a CPU
 * that goes offline meanwhile only moves the work elsewhere.
 */
static inline unsigned int sw_ddp_next_cpu(void)
{
	unsigned int cpu = cpumask_next(raw_smp_processor_id(),
					cpu_online_mask);

	return cpu < nr_cpu_ids ? cpu : cpumask_first(cpu_online_mask);
}

#endif /* SW_DDP_LLP_H */
