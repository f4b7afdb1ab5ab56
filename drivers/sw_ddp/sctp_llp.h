/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SCTP LLP (RFC 5043): associations on kernel SCTP sockets
 * (sctp_assoc.c) and the DDP Stream Sessions on their stream pairs
 * (sctp_session.c), up to the hand-over of an established session to a
 * QP as a struct sw_ddp_llp.  cm_sctp.c is their iw_cm owner; KUnit
 * tests are another.  Documentation/sctp.rst says how RFC 5043 maps onto
 * this, and what we chose where the RFC leaves a choice.
 *
 * An association is driven by one work item: socket callbacks (softirq)
 * only set event bits and queue it.  The work reads whole messages off
 * the socket and runs the sessions' state machines, the owner's upcalls
 * included, with the association's mutex held; the owner's own calls
 * into a session take the same mutex (sw_ddp_sctp_lock()).  The data
 * path (send_segment) takes only the session's tx_mutex.  Lock order:
 * association mutex, listener mutex, session tx_mutex, socket lock.
 */
#ifndef SW_DDP_SCTP_LLP_H
#define SW_DDP_SCTP_LLP_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "llp_sctp.h"

/*
 * How long an Initiate may wait for its answer, association setup
 * included.  RFC 5043 leaves it open; as for the MPA exchange.
 */
#define SW_DDP_SCTP_TIMEOUT_MS	4000

/* RFC 9260 §16: RTO.Initial, which SCTP_RTOINFO sets (sctp_assoc.c) */
#define SW_DDP_SCTP_RTO_INITIAL_MS	1000

/*
 * How long a requested session waits for its owner's answer before it
 * ends with our Terminate: longer than any initiator waits for the
 * answer (ours the timeout above), as over TCP (llp_tcp.h).
 */
#define SW_DDP_SCTP_ANSWER_MS	(4 * SW_DDP_SCTP_TIMEOUT_MS)
#if IS_ENABLED(CONFIG_KUNIT)
extern unsigned int sw_ddp_sctp_answer_ms;	/* SW_DDP_SCTP_ANSWER_MS */
#endif

enum {
	/* §8: asked for in INIT, in and out alike */
	SW_DDP_SCTP_STREAMS = 1024,
	/* §6.4: Initiates a listener holds for the ULP, at most */
	SW_DDP_SCTP_PENDING_MAX = 64,
	/*
	 * §9: octets left below the path's limit for a control chunk
	 * (a SACK) to share the packet.
	 */
	SW_DDP_SCTP_BUNDLE_ROOM = 32,
	/* Largest message we take: one unfragmented DATA chunk's payload */
	SW_DDP_SCTP_MSG_MAX = 65536,
	/* §9: the largest DDP Segment we send or take (16: DATA header) */
	SW_DDP_SCTP_SEG_MAX = U16_MAX - 16 - sizeof(struct sctp_ddp_seg_chunk),
	/*
	 * §10: the send buffer bounds the chunks in flight.  Each costs
	 * SCTP well over 512 octets of it, so far fewer than 32767 chunks
	 * of one stream are ever unacknowledged.
	 */
	SW_DDP_SCTP_SNDBUF = 1 << 20,
	/*
	 * SCTP opens its receive window at half the receive buffer.  With
	 * chunks near a 64 KiB path MTU, the default buffer makes that one
	 * chunk: with one in flight the sender must wait for its SACK, which
	 * the receiver delays (200 ms) until a second packet it never gets.
	 */
	SW_DDP_SCTP_RCVBUF = 4 << 20,
	/* Octets of chunks a session holds for their turn (sctp_seq.c) */
	SW_DDP_SCTP_HELD_MAX = 8 << 20,
	/*
	 * And all the sessions of an association together: what a sender
	 * that follows the rules leaves waiting (whatever arrived past a
	 * lost chunk until it comes again) does not grow with the number
	 * of sessions, but a hostile peer's gaps would (RFC 5043 §10).
	 */
	SW_DDP_SCTP_ASSOC_HELD_MAX = 2 * SW_DDP_SCTP_HELD_MAX,
};

static_assert(SW_DDP_SCTP_SNDBUF / 512 < SCTP_DDP_SSN_WINDOW_MAX);

struct sw_ddp_sctp_assoc;
struct sw_ddp_sctp_listener;
struct sw_ddp_sctp_session;

/* Why an accepted session ended, for ops->closed. */
enum sw_ddp_sctp_close {
	SW_DDP_SCTP_PEER_TERM,	/* the peer's Session Terminate: graceful */
	SW_DDP_SCTP_LOCAL,	/* llp->ops->close() */
	SW_DDP_SCTP_FAILED,	/* a chunk broke RFC 5043: we terminated it */
	SW_DDP_SCTP_LOST,	/* the association went down */
};

/*
 * Upcalls to the owner, from the association's work with its mutex held
 * (the owner must not call sw_ddp_sctp_lock() in them).
 */
struct sw_ddp_sctp_ops {
	/*
	 * Listener: a valid Initiate arrived (s->pdata).  Also called with
	 * the listener's mutex held.  Return 0 if the owner took a
	 * reference on @s: sw_ddp_sctp_accept(), _reject() or _close()
	 * follows.  An error answers the Initiate with a Terminate.
	 */
	int (*request)(struct sw_ddp_sctp_listener *l,
		       struct sw_ddp_sctp_session *s);
	/*
	 * Active side, once: 0, the Accept came (s->pdata) and segments may
	 * flow; or the session failed: -ECONNREFUSED (a Reject, s->pdata,
	 * or the association refused), -ECONNRESET (a Terminate or the
	 * association lost), -ETIMEDOUT, -EBUSY (no stream id free), or a
	 * local error: -ENOMEM, -ENOBUFS (no room to hold a chunk of the
	 * answer's), or SCTP's own error sending the Initiate.
	 * A non-zero return after 0 ends the session with a Terminate.
	 */
	int (*connected)(struct sw_ddp_sctp_session *s, int status);
	/* An accepted session ended; once, and no upcall follows. */
	void (*closed)(struct sw_ddp_sctp_session *s,
		       enum sw_ddp_sctp_close why);
};

enum sw_ddp_sctp_assoc_state {
	SW_DDP_SCTP_A_SETUP,	/* up to COMM_UP and the adaptation check */
	SW_DDP_SCTP_A_UP,
	SW_DDP_SCTP_A_DOWN,	/* its socket is released */
};

struct sw_ddp_sctp_assoc {
	struct kref ref;
	struct mutex mutex;		/* all below but the tx fields */
	enum sw_ddp_sctp_assoc_state state;
	bool active;			/* we opened it; we pick stream ids */
	bool comm_up;			/* SCTP_COMM_UP seen */
	bool adapt_ok;			/* the peer indicated DDP (§11.1) */
	struct socket *sock;
	struct net *net;		/* of the socket; not counted */
	/* Active: the key it is shared by (IP, and the peer's port) */
	struct sockaddr_storage key_local, key_peer;
	/* As iw_cm events report them, once up */
	struct sockaddr_storage laddr, raddr;
	int ifindex;			/* passive: its listener's, or 0 */
	u16 nstreams;			/* §8: min(in, out) after COMM_UP */
	atomic_t held;			/* octets its sessions hold (sctp_seq.c) */

	struct xarray sess;		/* stream id -> session, marked */
	u32 next_sid;			/* cyclic allocation */
	struct list_head waiting;	/* active sessions before COMM_UP */

	struct delayed_work work;
	unsigned long events;		/* SCTP_A_EV_*, atomic bitops */
	unsigned long rx_kicked;	/* SCTP_A_RX_KICKED, atomic bitops */
	unsigned long deadline;		/* jiffies: setup done by then */
	unsigned long idle_end;		/* passive, no session: closes then */
	bool idle_set;
	unsigned long timer;		/* jiffies: run again by then */
	bool timer_set;
	bool ctrl_waiting;		/* a control message waits for room */
	bool exiting;			/* module exit took it down */
	int skip_sid;			/* rest of an oversized message, or -1 */
	u32 rx_part;			/* of a message SCTP hands up in parts */
	u16 rx_part_sid;		/* its stream, if rx_part */

	struct list_head table;		/* active ones, by key */
	struct list_head all;		/* every one, for rmmod */

	void (*saved_data_ready)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	struct wait_queue_entry space;	/* on the socket's wait queue */

	/* Transmit side: senders waiting for room or for their turn */
	wait_queue_head_t tx_wait;
	atomic_t tx_wake;
	u32 max_seg;			/* §9, READ_ONCE() */

	u8 *rxbuf;			/* a message (rx_part so far), a head */
};

/*
 * Every session in a->sess carries SCTP_SESS_MARK, for the walks over
 * them: xa_for_each() looks at each empty slot of a node in turn (some
 * 600 instructions for one session, each time the association's work
 * runs), a marked walk finds the next one with a bit search.  XA_MARK_0
 * is the allocator's free mark.
 */
#define SCTP_SESS_MARK	XA_MARK_1
#define sctp_for_each_sess(a, idx, s) \
	xa_for_each_marked(&(a)->sess, idx, s, SCTP_SESS_MARK)

struct sw_ddp_sctp_listener {
	struct kref ref;
	struct mutex mutex;		/* all below */
	bool closed;
	struct socket *sock;
	struct net *net;
	struct work_struct work;
	const struct sw_ddp_sctp_ops *ops;
	void *owner;
	u32 pending, pending_max;	/* §6.4: Initiates with the owner */
	struct sockaddr_storage addr;	/* as bound */
	bool v6only;
	int ifindex;			/* a wildcard's one interface, or 0 */
	struct list_head node;		/* on the open listeners' list */
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
};

enum sw_ddp_sctp_state {
	SW_DDP_SCTP_IDLE,	/* passive: its Initiate is being taken */
	SW_DDP_SCTP_WAIT_ASSOC,	/* active: the association is not up yet */
	SW_DDP_SCTP_INITIATED,	/* active: Initiate sent, no answer yet */
	SW_DDP_SCTP_REQUESTED,	/* passive: the Initiate is with the owner */
	SW_DDP_SCTP_RDMA,	/* accepted: DDP Segments flow */
	SW_DDP_SCTP_CLOSED,	/* over for the owner; its stream drains */
};

/* Whether DDP Segments may be sent. */
enum sw_ddp_sctp_seg_state {
	SW_DDP_SCTP_SEG_WAIT,	/* not yet: no Accept (§6.6) */
	SW_DDP_SCTP_SEG_OPEN,
	SW_DDP_SCTP_SEG_SHUT,	/* never again */
};

struct sw_ddp_sctp_session {
	struct sw_ddp_llp llp;		/* what the QP holds */
	struct kref ref;
	struct sw_ddp_sctp_assoc *assoc;	/* counted */
	struct list_head wait;		/* on assoc->waiting */
	bool active;
	bool has_sid;
	u16 sid;			/* its stream pair (§8) */
	enum sw_ddp_sctp_state state;
	const struct sw_ddp_sctp_ops *ops;
	void *owner;			/* NULL: no more upcalls */
	struct sw_ddp_sctp_listener *listener;	/* REQUESTED: counted */
	unsigned long deadline;		/* INITIATED, REQUESTED: answer by then */
	int initiate_err;		/* our Initiate could not be sent */
	unsigned long events;		/* SCTP_S_EV_*, atomic bitops */
	bool answered;			/* active: Accept, Reject or Terminate */
	bool peer_gone;			/* REQUESTED: it can no longer be taken */

	/* Receive, under the association's mutex */
	struct sw_ddp_sctp_seq seq;
	const struct sw_ddp_rx_ops *rx;	/* set by llp start() */
	void *upper;
	spinlock_t rx_lock;		/* held while DDP takes a segment */
	u32 rx_answers;			/* chunks in turn that answer ours */
	bool rx_end;			/* the peer's final chunk came */
	bool rx_dead;			/* deliver nothing more */
	bool lost_ctrl;			/* a control chunk was lost: */
	u16 lost_ssn;			/* its DDP-SSN */
	bool fail_pending;		/* the QP was failed; close() to come */
	enum sw_ddp_sctp_close fail_why;
	/* The peer's private data, from its Initiate, Accept or Reject */
	u8 pdata[SCTP_DDP_PDATA_MAX];
	u16 pdata_len;

	/* A control message to send, under the association's mutex */
	enum sctp_ddp_func ctrl;	/* 0: none */
	u16 ctrl_len;
	bool ctrl_unproven;		/* our last one may not have arrived */
	u32 ctrl_rx_mark;		/* rx_answers when it was sent */
	bool tx_end;			/* our final chunk is out */
	u8 ctrl_msg[sizeof(struct sctp_ddp_session_ctrl) +
		    SCTP_DDP_PDATA_MAX];

	/* Transmit: DDP-SSNs are shared by segments and control (§5.2.1) */
	struct mutex tx_mutex;		/* below; one sendmsg at a time */
	u16 tx_ssn;
	enum sw_ddp_sctp_seg_state seg;
	bool tx_dead;			/* the socket is gone */
	u8 *tx_hdr;			/* DDP-SSN and a segment's header */
	struct bio_vec *tx_bv;		/* the header, then the payload */
	unsigned int max_bv;
};

static inline struct sw_ddp_sctp_session *
llp_to_sctp(struct sw_ddp_llp *llp)
{
	return container_of(llp, struct sw_ddp_sctp_session, llp);
}

/* The owner's interface. */
int sw_ddp_sctp_init(void);
void sw_ddp_sctp_exit(void);
int sw_ddp_sctp_listen(struct net *net, const struct sockaddr_storage *addr,
		       int backlog, int ifindex, bool v6only,
		       const struct sw_ddp_sctp_ops *ops, void *owner,
		       struct sw_ddp_sctp_listener **lp);
void sw_ddp_sctp_listen_close(struct sw_ddp_sctp_listener *l);
int sw_ddp_sctp_connect(struct net *net, const struct sockaddr_storage *laddr,
			const struct sockaddr_storage *raddr, bool v6only,
			const void *pdata, u16 pdata_len,
			unsigned long timeout,
			const struct sw_ddp_sctp_ops *ops, void *owner,
			struct sw_ddp_sctp_session **sp);
void sw_ddp_sctp_lock(struct sw_ddp_sctp_session *s);
void sw_ddp_sctp_unlock(struct sw_ddp_sctp_session *s);
bool sw_ddp_sctp_requested(struct sw_ddp_sctp_session *s);
int sw_ddp_sctp_accept(struct sw_ddp_sctp_session *s, void *owner,
		       const void *pdata, u16 pdata_len);
int sw_ddp_sctp_reject(struct sw_ddp_sctp_session *s, const void *pdata,
		       u16 pdata_len);
void sw_ddp_sctp_close(struct sw_ddp_sctp_session *s);
void sw_ddp_sctp_get(struct sw_ddp_sctp_session *s);
void sw_ddp_sctp_put(struct sw_ddp_sctp_session *s);

/* sctp_assoc.c, for sctp_session.c */
void sctp_assoc_get(struct sw_ddp_sctp_assoc *a);
void sctp_assoc_put(struct sw_ddp_sctp_assoc *a);
void sctp_assoc_kick(struct sw_ddp_sctp_assoc *a);
int sctp_assoc_send(struct sw_ddp_sctp_assoc *a, u16 sid, u32 ppid,
		    struct iov_iter *it);
bool sctp_assoc_stream_acked(struct sw_ddp_sctp_assoc *a, u16 sid);
void sctp_assoc_tx_wake(struct sw_ddp_sctp_assoc *a);
void sctp_assoc_run_by(struct sw_ddp_sctp_assoc *a, unsigned long when);
void sctp_assoc_poll(struct sw_ddp_sctp_assoc *a);
struct sw_ddp_sctp_listener *
sctp_listener_find(const struct sw_ddp_sctp_assoc *a);
void sctp_listener_put(struct sw_ddp_sctp_listener *l);

/* sctp_session.c, for sctp_assoc.c: under the association's mutex */
struct sw_ddp_sctp_session *sctp_sess_alloc(struct sw_ddp_sctp_assoc *a,
					    bool active);
int sctp_sess_connect(struct sw_ddp_sctp_assoc *a, const void *pdata,
		      u16 pdata_len, unsigned long timeout,
		      const struct sw_ddp_sctp_ops *ops, void *owner,
		      struct sw_ddp_sctp_session **sp);
void sctp_sess_rx(struct sw_ddp_sctp_assoc *a, u16 sid,
		  const struct sw_ddp_sctp_chunk *msg);
void sctp_sess_rx_oversized(struct sw_ddp_sctp_assoc *a, u16 sid);
void sctp_sess_assoc_up(struct sw_ddp_sctp_session *s);
void sctp_sess_assoc_down(struct sw_ddp_sctp_session *s, int status);
void sctp_sess_run(struct sw_ddp_sctp_session *s);

/* sctp_assoc.c; visible for KUnit, under the association's mutex */
#if IS_ENABLED(CONFIG_KUNIT)
struct sctp_rcvinfo;
void sctp_assoc_rx_msg(struct sw_ddp_sctp_assoc *a, int flags, u32 len,
		       const struct sctp_rcvinfo *info);
#endif

#endif /* SW_DDP_SCTP_LLP_H */
