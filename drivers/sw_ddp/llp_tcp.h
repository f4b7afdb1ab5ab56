/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The TCP LLP endpoint: a kernel TCP socket, the MPA Request/Reply
 * exchange on it (RFC 5044 "Connection Setup", RFC 6581) and, once that
 * is done, the stream handed to the QP as a struct sw_ddp_llp.
 *
 * An endpoint is driven by one work item: socket callbacks (softirq) only
 * set event bits and queue it.  Its owner (cm.c, or a KUnit test) learns
 * what happened through struct sw_ddp_tcp_ep_ops, called from that work
 * with ep->mutex held; the owner's own calls into an endpoint take the
 * same mutex (sw_ddp_tcp_lock()), so all of an endpoint's state, the
 * owner's included, changes under one lock.
 */
#ifndef SW_DDP_LLP_TCP_H
#define SW_DDP_LLP_TCP_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <linux/workqueue.h>

#include "llp.h"
#include "mpa.h"

/*
 * How long the MPA exchange may take, TCP connect included, and how long a
 * responder waits for the RTR (RFC 6581) after its Reply.  RFC 5044 leaves
 * the value to the implementation ("Connection Setup" asks for a timer);
 * a few seconds is plenty on any network RDMA runs on.
 */
#define SW_DDP_MPA_TIMEOUT_MS	4000

/*
 * How many of those a Request handed to the owner waits for its answer
 * before its socket goes: longer than any initiator waits for the Reply
 * (ours the timeout above, siw's five seconds).
 */
#define SW_DDP_TCP_ANSWER_TIMEOUTS	4

/*
 * A socket closed gracefully stays open for receive, with nobody reading,
 * at most this long for the peer to acknowledge our FIN (struct
 * tcp_linger in llp_tcp.c).
 */
#define SW_DDP_TCP_LINGER_MS	3000

/* What one side asks for, before negotiation. */
struct sw_ddp_mpa_cfg {
	u8 rev;			/* highest MPA revision: 1 or 2 */
	bool crc;		/* ask for CRCs */
	bool markers;		/* ask to receive markers */
	bool p2p;		/* initiator: ask for peer-to-peer mode */
	u8 rtr;			/* SW_DDP_RTR_* types we can send or take */
	u16 ird;		/* RDMA Reads we serve */
	u16 ord;		/* RDMA Reads we issue */
	const void *pdata;	/* ULP private data */
	u16 pdata_len;
};

/* The outcome of the exchange: all the data path needs (RFC 5044 §7.1). */
struct sw_ddp_mpa_conn {
	u8 rev;
	bool enhanced;		/* RFC 6581 IRD/ORD exchanged */
	bool crc;		/* both directions (RFC 5044: either side asks) */
	bool tx_markers;	/* the peer asked for markers (its M bit) */
	bool rx_markers;	/* we asked for them */
	u32 tx_marker_base;	/* TCP seq of our first FPDU octet */
	u32 rx_marker_base;	/* TCP seq of the peer's first FPDU octet */
	u16 ird;
	u16 ord;
	enum sw_ddp_rtr rtr;	/* agreed RTR type; NONE without p2p */
	bool rtr_send;		/* initiator: send the RTR as first FPDU */
	bool rtr_wait;		/* responder: RTR not received yet */
};

enum sw_ddp_tcp_state {
	SW_DDP_TCP_IDLE,
	SW_DDP_TCP_LISTEN,
	SW_DDP_TCP_CONNECTING,	/* active: TCP SYN sent */
	SW_DDP_TCP_AWAIT_REP,	/* active: MPA Request sent */
	SW_DDP_TCP_AWAIT_REQ,	/* passive: connection accepted */
	SW_DDP_TCP_GOT_REQ,	/* passive: Request given to the owner */
	SW_DDP_TCP_RDMA,	/* exchange done: the stream is the QP's */
	SW_DDP_TCP_CLOSED,
};

/* What the endpoint's work has to look at: bits of ep->events. */
enum {
	SW_DDP_TCP_EV_RX,	/* data readable */
	SW_DDP_TCP_EV_STATE,	/* TCP state changed */
	SW_DDP_TCP_EV_ABORT,	/* drop it (the listener went away) */
	SW_DDP_TCP_EV_CLOSE,	/* llp->ops->close(), graceful */
	SW_DDP_TCP_EV_RESET,	/* llp->ops->close(), abortive */
	SW_DDP_TCP_EV_RTR,	/* the RTR arrived */
};

/* Why an endpoint in RDMA mode stopped. */
enum sw_ddp_tcp_close {
	SW_DDP_TCP_PEER_FIN,	/* peer closed its side: graceful */
	SW_DDP_TCP_PEER_RESET,	/* connection reset or lost */
	SW_DDP_TCP_LOCAL,	/* llp->ops->close() */
	SW_DDP_TCP_RTR_TIMEOUT,	/* RFC 6581 RTR never came */
};

struct sw_ddp_tcp_ep;
struct sw_ddp_tcp_data;

/*
 * Upcalls to the owner, from the endpoint's work with ep->mutex held (the
 * owner must not call sw_ddp_tcp_lock() on @ep in them).  Each happens at
 * most once per endpoint.
 */
struct sw_ddp_tcp_ep_ops {
	/*
	 * Listener: @child has received a valid MPA Request (child->peer).
	 * Also called with @listener's mutex held.  Return 0 when the owner
	 * took @child (sw_ddp_tcp_accept() or _reject() follows, or _close());
	 * an error closes @child.
	 */
	int (*request)(struct sw_ddp_tcp_ep *listener,
		       struct sw_ddp_tcp_ep *child);
	/*
	 * Active side: 0 and ep->conn set, the stream is in RDMA mode; or the
	 * exchange failed: -ECONNREFUSED (MPA Reply with R set, its private
	 * data in ep->peer), -ETIMEDOUT, -ECONNRESET, -EPROTO, ... and the
	 * endpoint is closed.  Return non-zero to close it after a success.
	 */
	int (*connected)(struct sw_ddp_tcp_ep *ep, int status);
	/*
	 * RDMA mode, RFC 6581 peer-to-peer responder: the data path took
	 * the peer's RTR (sw_ddp_llp_rtr_received()).
	 */
	void (*rtr)(struct sw_ddp_tcp_ep *ep);
	/* RDMA mode ended; the socket is closed. */
	void (*closed)(struct sw_ddp_tcp_ep *ep, enum sw_ddp_tcp_close why);
};

struct sw_ddp_tcp_ep {
	struct sw_ddp_llp llp;		/* what the QP holds in RDMA mode */
	struct kref ref;
	struct mutex mutex;		/* everything below */
	enum sw_ddp_tcp_state state;
	struct socket *sock;
	struct net *net;		/* of the socket; not counted */

	/* Socket callbacks we replaced, restored when we let go. */
	void (*saved_state_change)(struct sock *sk);
	void (*saved_data_ready)(struct sock *sk);

	struct delayed_work work;
	unsigned long events;		/* SW_DDP_TCP_EV_*, atomic bitops */
	unsigned long timeout;		/* jiffies, per MPA exchange */
	unsigned long deadline;
	bool rtr_expired;		/* RDMA mode: Terminated for no RTR */

	const struct sw_ddp_tcp_ep_ops *ops;
	void *owner;

	/*
	 * RDMA mode: the data path's receive upcall, called from data_ready
	 * (softirq or the socket owner's release_sock(), socket locked) once
	 * set with WRITE_ONCE() at sw_ddp_qp_llp_attach() time.  Data that
	 * arrived before is waiting in the socket: the data path reads it
	 * after setting @rx_ready.  (A sender short of room waits in
	 * sendmsg(), woken by TCP's own write_space.)
	 */
	void (*rx_ready)(struct sw_ddp_tcp_ep *ep);
	struct sw_ddp_tcp_data *data;	/* llp_tcp_data.c, RDMA mode */

	/*
	 * Listener: children not yet given to the owner, at most its
	 * backlog (the rest wait in TCP's accept queue); child: its parent
	 */
	struct list_head children;
	u32 nchildren, max_children;
	struct list_head child;
	struct sw_ddp_tcp_ep *listener;
	struct list_head all;		/* sw_ddp_tcp_eps, for rmmod */

	/* Active side: the Request as sent; passive: the Reply to send. */
	struct sw_ddp_mpa_cfg local;
	u8 tx_frame[sizeof(struct mpa_rr_hdr) + MPA_PD_MAX];
	u16 tx_len;

	/* The peer's frame, as received; peer.pdata points into it. */
	u8 rx_frame[sizeof(struct mpa_rr_hdr) + MPA_PD_MAX];
	u16 rx_len;
	struct mpa_rr_info peer;

	struct sw_ddp_mpa_conn conn;
};

static inline struct sw_ddp_tcp_ep *llp_to_tcp_ep(struct sw_ddp_llp *llp)
{
	return container_of(llp, struct sw_ddp_tcp_ep, llp);
}

int sw_ddp_tcp_init(void);
void sw_ddp_tcp_exit(void);

int sw_ddp_tcp_listen(struct net *net, const struct sockaddr_storage *addr,
		      int backlog, int ifindex, bool v6only,
		      unsigned long timeout, const struct sw_ddp_tcp_ep_ops *ops,
		      void *owner, struct sw_ddp_tcp_ep **epp);
int sw_ddp_tcp_connect(struct net *net, const struct sockaddr_storage *laddr,
		       const struct sockaddr_storage *raddr, bool v6only,
		       const struct sw_ddp_mpa_cfg *offer,
		       unsigned long timeout,
		       const struct sw_ddp_tcp_ep_ops *ops, void *owner,
		       struct sw_ddp_tcp_ep **epp);

void sw_ddp_tcp_lock(struct sw_ddp_tcp_ep *ep);
void sw_ddp_tcp_unlock(struct sw_ddp_tcp_ep *ep);
int sw_ddp_tcp_accept(struct sw_ddp_tcp_ep *ep,
		      const struct sw_ddp_mpa_cfg *local);
int sw_ddp_tcp_send_reply(struct sw_ddp_tcp_ep *ep);
int sw_ddp_tcp_reject(struct sw_ddp_tcp_ep *ep, const void *pdata,
		      u16 pdata_len);
void sw_ddp_tcp_close(struct sw_ddp_tcp_ep *ep, bool abortive);
void sw_ddp_tcp_get(struct sw_ddp_tcp_ep *ep);
void sw_ddp_tcp_put(struct sw_ddp_tcp_ep *ep);

/*
 * llp_tcp_data.c: FPDUs on the socket in RDMA mode
 *
 * mpa_rx input over part of an skb.  mpa_rx reads an FPDU in small
 * pieces (length, header, payload, trailer), so the piece of skb data
 * the last read ended in is remembered: the linear part (frag -1) or
 * page fragment frag, [cur_start, cur_end) of the skb, mapped at cur.
 * Reads copy from there; data that is not mapped so (highmem, memory
 * without a page, a frag_list) goes through skb_copy_bits().  With a
 * queue (sw_ddp_tcp_skb_in_ahead()), peek() and crc() also reach into
 * the skbs queued after this one, by their TCP sequence numbers.
 */
struct sw_ddp_tcp_skb_in {
	struct mpa_rx_in in;
	const struct sk_buff *skb;
	unsigned int off;
	const u8 *cur;
	int frag;
	unsigned int cur_start, cur_end;
	const struct sk_buff_head *queue;
};

void sw_ddp_tcp_skb_in_init(struct sw_ddp_tcp_skb_in *s,
			    const struct sk_buff *skb, unsigned int off,
			    size_t len);
void sw_ddp_tcp_skb_in_ahead(struct sw_ddp_tcp_skb_in *s,
			     const struct sk_buff_head *queue);

int sw_ddp_tcp_data_start(struct sw_ddp_tcp_ep *ep,
			  const struct sw_ddp_rx_ops *ops, void *upper,
			  unsigned int max_payload_bv);
void sw_ddp_tcp_data_stop(struct sw_ddp_tcp_ep *ep, bool abortive);
void sw_ddp_tcp_data_rx_sync(struct sw_ddp_tcp_ep *ep);
bool sw_ddp_tcp_data_cut_short(struct sw_ddp_tcp_ep *ep);
int sw_ddp_tcp_data_rtr_expired(struct sw_ddp_tcp_ep *ep);
void sw_ddp_tcp_data_free(struct sw_ddp_tcp_ep *ep);
void sw_ddp_tcp_queue_work(struct work_struct *work);
int sw_ddp_tcp_send_segment(struct sw_ddp_llp *llp, const void *hdr,
			    unsigned int hdr_len, const struct bio_vec *bv,
			    unsigned int nr_bv, u32 len, unsigned int flags);
int sw_ddp_tcp_send_term(struct sw_ddp_tcp_ep *ep, struct sw_ddp_term_err err);

/* mpa_neg.c: negotiation (RFC 5044 "Connection Setup", RFC 6581), no I/O */
void sw_ddp_mpa_answer(const struct mpa_rr_info *req,
		       const struct sw_ddp_mpa_cfg *local,
		       struct mpa_rr_info *rep, struct sw_ddp_mpa_conn *conn);
int sw_ddp_mpa_conclude(const struct sw_ddp_mpa_cfg *offer,
			const struct mpa_rr_info *rep,
			struct sw_ddp_mpa_conn *conn,
			struct sw_ddp_term_err *term);
void sw_ddp_mpa_offer(const struct sw_ddp_mpa_cfg *offer,
		      struct mpa_rr_info *req);

#endif /* SW_DDP_LLP_TCP_H */
