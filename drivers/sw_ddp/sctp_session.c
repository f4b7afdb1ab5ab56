// SPDX-License-Identifier: GPL-2.0
/*
 * DDP Stream Sessions over SCTP (RFC 5043 §6): one per stream pair of an
 * association, from the Initiate to the last Terminate.  Stream Session
 * Control messages (PPID 17) take a session through the legal sequences
 * of §6.2-§6.4; accepted, it is a QP's LLP: DDP Segment Chunks (PPID 16),
 * each with the session's next DDP-SSN, unordered (§10).
 *
 * Receive runs in the association's work with its mutex held: each chunk
 * is checked (llp_sctp.c), put in DDP-SSN order (sctp_seq.c) and, in turn
 * or placed early, handed to DDP (sctp_seg.c) or to the state machine
 * here.  Transmit: segments from the stream's work, control messages from
 * the association's work or the owner's calls, each under the session's
 * tx_mutex, which gives out the DDP-SSNs; nobody waits on the socket with
 * a lock held.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <kunit/visibility.h>

#include "qp.h"
#include "sctp_llp.h"

/* SW_DDP_SCTP_ANSWER_MS; KUnit waits less */
VISIBLE_IF_KUNIT unsigned int sw_ddp_sctp_answer_ms = SW_DDP_SCTP_ANSWER_MS;
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_answer_ms);

enum {
	SCTP_S_EV_CLOSE,	/* llp->ops->close() */
};

/*
 * The DDP-SSN and the largest header DDP hands down (84 octets): a
 * kmalloc() of 128 is naturally aligned, so it never crosses a page and
 * one bio_vec carries it.
 */
#define SCTP_TX_HDR_SIZE	128

static const struct sw_ddp_llp_ops sctp_llp_ops;
static const struct sw_ddp_sctp_seq_ops sctp_seq_ops;

struct sw_ddp_sctp_session *sctp_sess_alloc(struct sw_ddp_sctp_assoc *a,
					    bool active)
{
	struct sw_ddp_sctp_session *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	if (sw_ddp_sctp_seq_init(&s->seq, SW_DDP_SCTP_HELD_MAX))
		goto err;
	sw_ddp_sctp_seq_share(&s->seq, &a->held, SW_DDP_SCTP_ASSOC_HELD_MAX);
	s->tx_hdr = kmalloc(SCTP_TX_HDR_SIZE, GFP_KERNEL);
	if (!s->tx_hdr)
		goto err;
	s->llp.ops = &sctp_llp_ops;
	kref_init(&s->ref);
	mutex_init(&s->tx_mutex);
	spin_lock_init(&s->rx_lock);
	INIT_LIST_HEAD(&s->wait);
	s->active = active;
	s->assoc = a;
	sctp_assoc_get(a);
	return s;

err:
	sw_ddp_sctp_seq_fini(&s->seq);
	kfree(s);
	return NULL;
}

/* §6.4: the session no longer counts against its listener's limit. */
static void sess_unpend(struct sw_ddp_sctp_session *s)
{
	struct sw_ddp_sctp_listener *l = s->listener;

	if (!l)
		return;
	mutex_lock(&l->mutex);
	l->pending--;
	mutex_unlock(&l->mutex);
	s->listener = NULL;
	sctp_listener_put(l);
}

static void sess_release(struct kref *ref)
{
	struct sw_ddp_sctp_session *s =
		container_of(ref, struct sw_ddp_sctp_session, ref);
	struct sw_ddp_sctp_assoc *a = s->assoc;

	sess_unpend(s);
	sw_ddp_sctp_seq_fini(&s->seq);
	kfree(s->tx_bv);
	kfree(s->tx_hdr);
	mutex_destroy(&s->tx_mutex);
	kfree(s);
	sctp_assoc_put(a);
}

void sw_ddp_sctp_get(struct sw_ddp_sctp_session *s)
{
	kref_get(&s->ref);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_get);

/* Process context; not under the association's mutex unless the caller
 * holds another reference on the association.
 */
void sw_ddp_sctp_put(struct sw_ddp_sctp_session *s)
{
	kref_put(&s->ref, sess_release);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_put);

void sw_ddp_sctp_lock(struct sw_ddp_sctp_session *s)
{
	mutex_lock(&s->assoc->mutex);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_lock);

void sw_ddp_sctp_unlock(struct sw_ddp_sctp_session *s)
{
	mutex_unlock(&s->assoc->mutex);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_unlock);

/* Control messages out */

static int sess_ctrl_queue(struct sw_ddp_sctp_session *s,
			   enum sctp_ddp_func func, const void *pdata,
			   u16 pdata_len)
{
	int n = sctp_ddp_session_ctrl_build(s->ctrl_msg, sizeof(s->ctrl_msg),
					    0, func, pdata, pdata_len);

	if (n < 0)
		return n;
	s->ctrl = func;
	s->ctrl_len = n;
	return 0;
}

/*
 * §6.6: a control message may not overtake our previous one.  That one
 * has arrived if the peer answered it (see sess_deliver()), or if SCTP
 * has had everything we sent on its stream acknowledged.
 */
static bool sess_ctrl_proven(struct sw_ddp_sctp_session *s)
{
	if (!s->ctrl_unproven || s->rx_answers > s->ctrl_rx_mark ||
	    sctp_assoc_stream_acked(s->assoc, s->sid))
		s->ctrl_unproven = false;
	return !s->ctrl_unproven;
}

/*
 * SCTP refused our Initiate for good with the association still up: for
 * the peer there is no session, so no chunk of its will free the stream
 * id (as in sess_terminate()).  The connect fails on the association's
 * next run, not at its deadline.
 */
static void sess_initiate_failed(struct sw_ddp_sctp_session *s, int err)
{
	s->rx_end = true;
	s->initiate_err = err;
	sctp_assoc_run_by(s->assoc, jiffies);
}

/* Send the queued control message if it may go and SCTP takes it. */
static void sess_ctrl_flush(struct sw_ddp_sctp_session *s)
{
	struct sctp_ddp_session_ctrl *h = (void *)s->ctrl_msg;
	struct kvec v = { .iov_base = s->ctrl_msg, .iov_len = s->ctrl_len };
	struct sw_ddp_sctp_assoc *a = s->assoc;
	enum sctp_ddp_func func = s->ctrl;
	struct iov_iter it;
	int err;

	if (!func)
		return;
	if (a->state == SW_DDP_SCTP_A_DOWN) {
		s->ctrl = 0;
		s->tx_end = true;
		return;
	}
	if (a->state != SW_DDP_SCTP_A_UP || !s->has_sid)
		return;
	if (func == SCTP_DDP_FUNC_TERMINATE && !sess_ctrl_proven(s)) {
		sctp_assoc_poll(a);
		return;
	}
	mutex_lock(&s->tx_mutex);
	h->ssn = cpu_to_be16(s->tx_ssn);
	iov_iter_kvec(&it, ITER_SOURCE, &v, 1, s->ctrl_len);
	err = s->tx_dead ? -ENOTCONN :
	      sctp_assoc_send(a, s->sid, SCTP_DDP_PPID_SESSION_CTRL, &it);
	if (!err) {
		s->tx_ssn++;
		/* the passive side's segments follow its Accept (§6.2) */
		if (func == SCTP_DDP_FUNC_ACCEPT &&
		    s->seg == SW_DDP_SCTP_SEG_WAIT)
			s->seg = SW_DDP_SCTP_SEG_OPEN;
	}
	mutex_unlock(&s->tx_mutex);
	if (err == -EAGAIN) {
		WRITE_ONCE(a->ctrl_waiting, true);
		sctp_assoc_poll(a);
		return;
	}
	if (err == -ENOMEM || err == -ENOBUFS) {
		/* SCTP is short of memory, the association up: try again */
		sctp_assoc_poll(a);
		return;
	}
	s->ctrl = 0;
	if (err) {
		s->tx_end = true;	/* the association's end follows */
		if (func == SCTP_DDP_FUNC_INITIATE)
			sess_initiate_failed(s, err);
		return;
	}
	pr_debug("sw_ddp: SCTP stream %u: sent control %u, DDP-SSN %u\n",
		 s->sid, func, s->tx_ssn - 1);
	s->ctrl_unproven = true;
	s->ctrl_rx_mark = s->rx_answers;
	if (func == SCTP_DDP_FUNC_TERMINATE || func == SCTP_DDP_FUNC_REJECT)
		s->tx_end = true;
	if (func == SCTP_DDP_FUNC_ACCEPT)
		sctp_assoc_tx_wake(a);
}

/* Our final chunk, a Terminate, after what we still owe the peer. */
static void sess_terminate(struct sw_ddp_sctp_session *s)
{
	if (s->tx_end || s->ctrl == SCTP_DDP_FUNC_TERMINATE ||
	    s->ctrl == SCTP_DDP_FUNC_REJECT)
		return;
	if (s->ctrl == SCTP_DDP_FUNC_INITIATE) {
		/* never sent: for the peer there is no session */
		s->ctrl = 0;
		s->tx_end = true;
		s->rx_end = true;
		return;
	}
	/* an unsent Accept becomes a Terminate: §6.4's sequence */
	sess_ctrl_queue(s, SCTP_DDP_FUNC_TERMINATE, NULL, 0);
	sess_ctrl_flush(s);
}

/* No DDP Segment goes out any more; senders waiting give up. */
static void sess_shut_segments(struct sw_ddp_sctp_session *s)
{
	mutex_lock(&s->tx_mutex);
	s->seg = SW_DDP_SCTP_SEG_SHUT;
	mutex_unlock(&s->tx_mutex);
	sctp_assoc_tx_wake(s->assoc);
}

/* Upcalls */

/* Active side: the outcome, once.  Return the owner's verdict on 0. */
static int sess_connected(struct sw_ddp_sctp_session *s, int status)
{
	int err = 0;

	pr_debug("sw_ddp: SCTP stream %u: connect status %d\n", s->sid,
		 status);
	if (s->owner && s->ops->connected)
		err = s->ops->connected(s, status);
	if (status || err)
		s->owner = NULL;
	return err;
}

static void sess_connect_failed(struct sw_ddp_sctp_session *s, int status)
{
	s->state = SW_DDP_SCTP_CLOSED;
	sess_connected(s, status);
}

/*
 * Active, before the answer: give up.  The Terminate waits until the
 * Initiate is known to have arrived (§6.6), and the stream id until the
 * peer's answer or Terminate comes.
 */
static void sess_abandon(struct sw_ddp_sctp_session *s, int status)
{
	sess_connect_failed(s, status);
	sess_terminate(s);
}

/*
 * Passive, not answered by the owner: a Terminate, not the ULP's Reject
 * (§6.3); its listener slot goes back, and its stream id once that is out.
 */
static void sess_requested_close(struct sw_ddp_sctp_session *s)
{
	sess_unpend(s);
	s->state = SW_DDP_SCTP_CLOSED;
	s->rx_end = true;
	sess_terminate(s);
}

/*
 * An accepted session is closed on our side.  Its segments are dropped
 * from now on (sess_early(), sess_seg_rx()), so those held for their
 * turn go at once; their DDP-SSNs stay seen, for the sequence still
 * orders the peer's final chunk, and a stream id is free only after it.
 */
static void sess_rdma_closed(struct sw_ddp_sctp_session *s)
{
	s->state = SW_DDP_SCTP_CLOSED;
	sw_ddp_sctp_seq_forget(&s->seq, SCTP_DDP_PPID_SEGMENT);
}

/* An accepted session is over for its owner. */
static void sess_finalize(struct sw_ddp_sctp_session *s,
			  enum sw_ddp_sctp_close why)
{
	pr_debug("sw_ddp: SCTP stream %u: session closed (%d)\n", s->sid,
		 why);
	sess_rdma_closed(s);
	s->fail_pending = false;
	if (s->owner && s->ops->closed)
		s->ops->closed(s, why);
	s->owner = NULL;
}

/*
 * An accepted session failed (§6.1) or lost its association (§11.3):
 * the QP goes to ERROR with an asynchronous event.  A QP still in RTS is
 * failed first; its move to ERROR calls llp close(), and the owner hears
 * of the end then.
 */
static void sess_end(struct sw_ddp_sctp_session *s, enum sw_ddp_sctp_close why)
{
	struct sw_ddp_qp *qp = s->llp.qp;

	s->rx_dead = true;
	sess_shut_segments(s);
	if (qp && s->owner && READ_ONCE(qp->state) == SW_DDP_QPS_RTS) {
		s->fail_pending = true;
		s->fail_why = why;
		sw_ddp_qp_fatal(qp);
		return;
	}
	sess_finalize(s, why);
}

/* An accepted session fails: our Terminate, and the QP to ERROR. */
static void sess_rdma_fail(struct sw_ddp_sctp_session *s)
{
	if (s->fail_pending)
		return;
	sess_shut_segments(s);
	sess_terminate(s);
	sess_end(s, SW_DDP_SCTP_FAILED);
}

/*
 * §6.1: a chunk fits none of the legal sequences, or breaks §5.2, §9 or
 * §10: the session ends with a Terminate.  Nothing more is taken from a
 * peer that broke the rules.
 */
static void sess_fail(struct sw_ddp_sctp_session *s)
{
	if (s->rx_end)
		return;
	pr_debug("sw_ddp: SCTP stream %u: session failed in state %d\n",
		 s->sid, s->state);
	s->rx_dead = true;
	s->rx_end = true;
	switch (s->state) {
	case SW_DDP_SCTP_IDLE:
		s->state = SW_DDP_SCTP_CLOSED;
		sess_terminate(s);
		break;
	case SW_DDP_SCTP_INITIATED:
		s->answered = true;
		sess_terminate(s);
		sess_connect_failed(s, -ECONNRESET);
		break;
	case SW_DDP_SCTP_REQUESTED:
		s->peer_gone = true;
		sess_unpend(s);		/* no Initiate waits any more (§6.4) */
		sess_terminate(s);
		break;
	case SW_DDP_SCTP_RDMA:
		sess_rdma_fail(s);
		break;
	default:
		s->answered = true;
		if (!s->ctrl)
			s->tx_end = true;
		break;
	}
}

/*
 * §10: a chunk ahead of its turn could not be held (a cap of sctp_seq.c,
 * or memory) and is lost.  The session ends with our Terminate, as for a
 * violation, but the peer broke no rule: the sequence passes over the
 * lost chunk in its turn and still orders what follows, so the stream id
 * waits for the peer's final chunk, in its turn, as after a close on our
 * side (§6.6).  A lost control chunk is that final chunk: nothing legal
 * follows a Terminate, and one that fits no legal sequence would end the
 * session anyway.  A second lost control chunk is a violation.
 */
static void sess_lost(struct sw_ddp_sctp_session *s, u32 ppid, u16 ssn)
{
	if (s->rx_end)
		return;
	pr_debug("sw_ddp: SCTP stream %u: chunk %u lost in state %d\n",
		 s->sid, ssn, s->state);
	if (ppid == SCTP_DDP_PPID_SESSION_CTRL) {
		if (s->lost_ctrl) {
			sess_fail(s);
			return;
		}
		s->lost_ctrl = true;
		s->lost_ssn = ssn;
	}
	s->rx_dead = true;
	sw_ddp_sctp_seq_forget(&s->seq, SCTP_DDP_PPID_SEGMENT);
	switch (s->state) {
	case SW_DDP_SCTP_INITIATED:
		/* the answer is still to come, at DDP-SSN 0 */
		sess_abandon(s, -ENOBUFS);
		break;
	case SW_DDP_SCTP_RDMA:
		sess_rdma_fail(s);
		break;
	default:
		break;	/* closed on our side: only control chunks are held */
	}
}

/* The sequence has passed the lost control chunk: the peer's final one. */
static void sess_lost_passed(struct sw_ddp_sctp_session *s)
{
	if (s->lost_ctrl &&
	    !sctp_ddp_ssn_in_window(s->lost_ssn, s->seq.next,
				    SCTP_DDP_SSN_WINDOW_MAX))
		s->rx_end = true;
}

/* Control messages in, in DDP-SSN order */

static void sess_save_pdata(struct sw_ddp_sctp_session *s, const u8 *pdata,
			    u32 len)
{
	s->pdata_len = min_t(u32, len, sizeof(s->pdata));
	memcpy(s->pdata, pdata, s->pdata_len);
}

/* Passive: a new session's Initiate goes to the listener's owner. */
static int sess_initiate_rx(struct sw_ddp_sctp_session *s, const u8 *pdata,
			    u32 len)
{
	unsigned long answer = msecs_to_jiffies(READ_ONCE(sw_ddp_sctp_answer_ms));
	struct sw_ddp_sctp_assoc *a = s->assoc;
	struct sw_ddp_sctp_listener *l;
	bool taken = false;

	sess_save_pdata(s, pdata, len);
	l = sctp_listener_find(a);
	if (l) {
		mutex_lock(&l->mutex);
		/* §6.4: a finite number of Initiates wait for the ULP */
		if (!l->closed && l->pending < l->pending_max) {
			s->state = SW_DDP_SCTP_REQUESTED;
			s->ops = l->ops;
			taken = !l->ops->request(l, s);
			if (taken) {
				l->pending++;
				s->listener = l;	/* our reference */
				s->deadline = jiffies + answer;
				sctp_assoc_run_by(a, s->deadline);
			}
		}
		mutex_unlock(&l->mutex);
		if (!taken)
			sctp_listener_put(l);
	}
	if (!taken) {
		/* §5.2.3: not forwarded to the ULP, answered by Terminate */
		s->state = SW_DDP_SCTP_CLOSED;
		s->rx_end = true;
		sess_terminate(s);
	}
	return 0;
}

/*
 * Active: the answer to our Initiate (§6.2-§6.4).  One that comes while
 * the Initiate still waits for room in the send buffer answers nothing
 * the peer has seen: it fits no legal sequence (§6.1), and the session
 * fails before its Initiate goes.
 */
static int sess_answer_rx(struct sw_ddp_sctp_session *s, u16 func,
			  const u8 *pdata, u32 len)
{
	if (func == SCTP_DDP_FUNC_INITIATE || s->ctrl == SCTP_DDP_FUNC_INITIATE)
		return -EPROTO;
	s->answered = true;
	sess_save_pdata(s, pdata, len);
	if (func != SCTP_DDP_FUNC_ACCEPT) {
		/* the Initiate was our only chunk, theirs is final */
		s->rx_end = true;
		s->tx_end = true;
		sess_connect_failed(s, func == SCTP_DDP_FUNC_REJECT ?
				       -ECONNREFUSED : -ECONNRESET);
		return 0;
	}
	s->state = SW_DDP_SCTP_RDMA;
	/* §6.6: the Initiate has arrived; segments may go */
	mutex_lock(&s->tx_mutex);
	if (s->seg == SW_DDP_SCTP_SEG_WAIT)
		s->seg = SW_DDP_SCTP_SEG_OPEN;
	mutex_unlock(&s->tx_mutex);
	sctp_assoc_tx_wake(s->assoc);
	if (sess_connected(s, 0)) {
		sess_shut_segments(s);
		sess_terminate(s);
		sess_rdma_closed(s);
	}
	return 0;
}

/*
 * Passive: the ULP accepted, but the Accept still waits for room in the
 * association's send buffer.  For the peer the session is still
 * requested (§6.3): it may send only its Terminate.
 */
static bool sess_accept_unsent(const struct sw_ddp_sctp_session *s)
{
	return s->ctrl == SCTP_DDP_FUNC_ACCEPT;
}

/* The peer ended an accepted session (§6.2): ours ends too. */
static void sess_peer_term(struct sw_ddp_sctp_session *s)
{
	s->rx_end = true;
	s->rx_dead = true;
	sess_shut_segments(s);
	if (sess_accept_unsent(s)) {
		/* §6.3: it gave up its Initiate; our answer never went */
		s->ctrl = 0;
		s->tx_end = true;
	}
	sess_terminate(s);
	sess_finalize(s, s->fail_pending ? s->fail_why :
					   SW_DDP_SCTP_PEER_TERM);
}

/* Active, given up on (timeout, owner gone): the answer came late. */
static int sess_late_answer(struct sw_ddp_sctp_session *s, u16 func)
{
	s->answered = true;
	if (func == SCTP_DDP_FUNC_ACCEPT) {
		sess_terminate(s);	/* its Terminate ends the session */
		return 0;
	}
	s->rx_end = true;
	s->tx_end = true;
	if (func == SCTP_DDP_FUNC_INITIATE)
		return -EPROTO;
	/*
	 * §6.3: a Reject or Terminate answers the Initiate, our only
	 * chunk, and is the peer's final one: a Terminate still waiting to
	 * follow the Initiate (§6.6) is not sent.
	 */
	if (s->ctrl == SCTP_DDP_FUNC_TERMINATE)
		s->ctrl = 0;
	return 0;
}

static int sess_ctrl_rx(struct sw_ddp_sctp_session *s,
			const struct sw_ddp_sctp_chunk *c)
{
	u16 func = be16_to_cpup(c->data);
	const u8 *pdata = (const u8 *)c->data + sizeof(__be16);
	u32 len = c->len - sizeof(__be16);

	pr_debug("sw_ddp: SCTP stream %u: control %u in state %d\n", s->sid,
		 func, s->state);
	switch (s->state) {
	case SW_DDP_SCTP_IDLE:
		if (func != SCTP_DDP_FUNC_INITIATE)
			return -EPROTO;
		return sess_initiate_rx(s, pdata, len);
	case SW_DDP_SCTP_INITIATED:
		return sess_answer_rx(s, func, pdata, len);
	case SW_DDP_SCTP_REQUESTED:
		/* the active side gave up before the ULP decided */
		if (func != SCTP_DDP_FUNC_TERMINATE)
			return -EPROTO;
		s->rx_end = true;
		s->tx_end = true;
		s->peer_gone = true;
		sess_unpend(s);		/* no Initiate waits any more (§6.4) */
		return 0;
	case SW_DDP_SCTP_RDMA:
		if (func != SCTP_DDP_FUNC_TERMINATE)
			return -EPROTO;
		sess_peer_term(s);
		return 0;
	case SW_DDP_SCTP_CLOSED:
		if (s->active && !s->answered)
			return sess_late_answer(s, func);
		s->rx_end = true;	/* the peer's final chunk */
		return 0;
	default:
		return -EPROTO;
	}
}

/* DDP takes a segment under rx_lock, for sctp_llp_rx_sync(). */
static int sess_seg_to_ddp(struct sw_ddp_sctp_session *s,
			   const struct sw_ddp_sctp_chunk *c, bool early)
{
	int ret;

	spin_lock(&s->rx_lock);
	ret = sw_ddp_sctp_seg_rx(s->rx, s->upper, c, early);
	spin_unlock(&s->rx_lock);
	return ret;
}

/* A DDP Segment in its turn. */
static int sess_seg_rx(struct sw_ddp_sctp_session *s,
		       const struct sw_ddp_sctp_chunk *c)
{
	switch (s->state) {
	case SW_DDP_SCTP_RDMA:
		if (sess_accept_unsent(s))
			return -EPROTO;	/* §6.6: it has no Accept yet */
		/* DDP refused it: it sends its Terminate, then closes */
		if (s->rx && !s->rx_dead && sess_seg_to_ddp(s, c, false) < 0)
			s->rx_dead = true;
		return 0;
	case SW_DDP_SCTP_CLOSED:
		return 0;	/* sent before our Terminate reached the peer */
	default:
		return -EPROTO;	/* §6.6: no segment before the Accept */
	}
}

static int sess_deliver(void *ctx, const struct sw_ddp_sctp_chunk *c)
{
	struct sw_ddp_sctp_session *s = ctx;

	/*
	 * §6.6: an answer, a chunk the peer can only have sent after our
	 * last control message arrived, so that our next may follow it.
	 * To the active side any chunk is: the passive side sends nothing
	 * before our Initiate.  To the passive side only a segment is: the
	 * active side sends those after our Accept (§6.2), but its
	 * Terminate may have crossed the Accept (its Initiate timed out).
	 */
	if (s->active || c->ppid == SCTP_DDP_PPID_SEGMENT)
		s->rx_answers++;
	if (s->rx_end)
		return 0;	/* nothing follows the peer's final chunk */
	if (c->ppid == SCTP_DDP_PPID_SESSION_CTRL)
		return sess_ctrl_rx(s, c);
	return sess_seg_rx(s, c);
}

/* A chunk ahead of its turn: only an RDMA Write segment is placed now. */
static int sess_early(void *ctx, const struct sw_ddp_sctp_chunk *c)
{
	struct sw_ddp_sctp_session *s = ctx;
	int ret;

	/*
	 * §6.3: before our answer has gone out, the peer has sent its one
	 * message, the Initiate, and may follow it only with a Terminate,
	 * which is in turn.  Whatever comes ahead of that can never be
	 * legal: it ends the session now, rather than being held until its
	 * turn does.
	 */
	if (s->state == SW_DDP_SCTP_IDLE ||
	    s->state == SW_DDP_SCTP_REQUESTED || sess_accept_unsent(s))
		return -EPROTO;
	if (c->ppid != SCTP_DDP_PPID_SEGMENT)
		return 0;
	if (s->state == SW_DDP_SCTP_CLOSED ||
	    (s->state == SW_DDP_SCTP_RDMA && (!s->rx || s->rx_dead)))
		return 1;	/* nobody takes it in turn either: drop */
	if (s->state != SW_DDP_SCTP_RDMA)
		return 0;	/* judged in turn */
	ret = sess_seg_to_ddp(s, c, true);
	if (ret < 0) {
		s->rx_dead = true;
		return 1;
	}
	return ret;
}

static const struct sw_ddp_sctp_seq_ops sctp_seq_ops = {
	.deliver = sess_deliver,
	.early = sess_early,
};

/*
 * Nothing more of the session goes on the wire: it is closed, or still
 * with the ULP after the peer gave up its Initiate (§6.2: the peer's
 * Terminate came before the ULP decided; the answer will find it gone).
 */
static bool sess_wire_done(struct sw_ddp_sctp_session *s)
{
	if (!s->tx_end || s->ctrl || s->fail_pending)
		return false;
	return s->state == SW_DDP_SCTP_CLOSED ||
	       (s->state == SW_DDP_SCTP_REQUESTED && s->peer_gone);
}

/*
 * Passive: a session over on both sides gives way to what comes next on
 * its stream; so does one that never heard the peer's final chunk (the
 * peer sent no Terminate of its own, which §6.2 allows) when a new
 * Initiate comes.  An Initiate at DDP-SSN 0 is that even where the old
 * session's DDP-SSN has wrapped to 0: an Initiate only starts a session.
 */
static bool sess_stale(struct sw_ddp_sctp_session *s, u32 ppid,
		       const u8 *msg, u32 len)
{
	const struct sctp_ddp_session_ctrl *h = (const void *)msg;

	if (s->active || !sess_wire_done(s))
		return false;
	return s->rx_end ||
	       (ppid == SCTP_DDP_PPID_SESSION_CTRL && len >= sizeof(*h) &&
		!h->ssn && be16_to_cpu(h->func) == SCTP_DDP_FUNC_INITIATE);
}

static void sess_maybe_free(struct sw_ddp_sctp_session *s);

/* Passive: a session starts with an Initiate at DDP-SSN 0 (§6.1, §6.2). */
static struct sw_ddp_sctp_session *
sess_new_passive(struct sw_ddp_sctp_assoc *a, u16 sid, u32 ppid,
		 const u8 *msg, u32 len)
{
	const struct sctp_ddp_session_ctrl *h = (const void *)msg;
	struct sw_ddp_sctp_session *s;

	if (sid >= a->nstreams || ppid != SCTP_DDP_PPID_SESSION_CTRL ||
	    len < sizeof(*h) || h->ssn ||
	    be16_to_cpu(h->func) != SCTP_DDP_FUNC_INITIATE) {
		net_dbg_ratelimited("sw_ddp: SCTP stream %u: chunk of no session dropped\n",
				    sid);
		return NULL;
	}
	s = sctp_sess_alloc(a, false);
	if (!s)
		return NULL;	/* the peer's timeout tells it */
	s->sid = sid;
	s->has_sid = true;
	s->state = SW_DDP_SCTP_IDLE;
	if (xa_insert(&a->sess, sid, s, GFP_KERNEL)) {
		sw_ddp_sctp_put(s);
		return NULL;
	}
	xa_set_mark(&a->sess, sid, SCTP_SESS_MARK);
	return s;
}

/**
 * sctp_sess_rx() - one received DDP payload data chunk
 * @a: its association, mutex held
 * @sid: its SCTP stream
 * @msg: the chunk's user data from the DDP-SSN on, and its PPID (host
 *	 order); a Session Control chunk flat, a segment's first
 *	 2 + SW_DDP_SCTP_RX_HEAD octets (or all) flat
 */
void sctp_sess_rx(struct sw_ddp_sctp_assoc *a, u16 sid,
		  const struct sw_ddp_sctp_chunk *msg)
{
	const u32 hdr = sizeof(struct sctp_ddp_seg_chunk);
	struct sctp_ddp_rx_limits lim = {
		.window = SCTP_DDP_SSN_WINDOW_MAX,
		.max_seg = SW_DDP_SCTP_SEG_MAX,
	};
	struct sw_ddp_sctp_session *s = xa_load(&a->sess, sid);
	const u8 *flat = msg->data;
	u32 ppid = msg->ppid, len = msg->len;
	struct sw_ddp_sctp_chunk c;
	int err;

	if (WARN_ON_ONCE(sw_ddp_sctp_chunk_flat(msg) <
			 (ppid == SCTP_DDP_PPID_SESSION_CTRL ? len :
			  min(len, hdr + SW_DDP_SCTP_RX_HEAD))))
		return;
	if (s && sess_stale(s, ppid, flat, len)) {
		s->rx_end = true;
		sess_maybe_free(s);
		s = xa_load(&a->sess, sid);
	}
	if (!s && !a->active)
		s = sess_new_passive(a, sid, ppid, flat, len);
	if (!s)
		return;
	if (s->rx_end)
		goto out;
	lim.next_ssn = s->seq.next;
	if (sctp_ddp_validate_chunk(ppid, flat, len, &lim) != SCTP_DDP_OK) {
		sess_fail(s);
		goto out;
	}
	/* the DDP-SSN off */
	c = *msg;
	c.data = flat + hdr;
	c.len = len - hdr;
	if (c.skb) {
		c.head = min(c.head, len) - hdr;
		c.skb_off += hdr;
	}
	err = sw_ddp_sctp_seq_rx(&s->seq, sctp_ddp_ssn(flat), &c,
				 &sctp_seq_ops, s);
	if (err == -ENOBUFS)
		sess_lost(s, ppid, sctp_ddp_ssn(flat));
	else if (err)
		sess_fail(s);
	sess_lost_passed(s);
out:
	/* nothing more goes up: what waits for its turn goes now */
	if (s->rx_end)
		sw_ddp_sctp_seq_fini(&s->seq);
}
EXPORT_SYMBOL_IF_KUNIT(sctp_sess_rx);

/* A message larger than a->rxbuf (SW_DDP_SCTP_MSG_MAX) ends its session. */
void sctp_sess_rx_oversized(struct sw_ddp_sctp_assoc *a, u16 sid)
{
	struct sw_ddp_sctp_session *s = xa_load(&a->sess, sid);

	if (s)
		sess_fail(s);
}

/* Active: a stream pair of its own (§8), chosen cyclically (§6.6). */
static int sess_take_sid(struct sw_ddp_sctp_session *s)
{
	struct sw_ddp_sctp_assoc *a = s->assoc;
	u32 id;
	int err;

	err = xa_alloc_cyclic(&a->sess, &id, s, XA_LIMIT(0, a->nstreams - 1),
			      &a->next_sid, GFP_KERNEL);
	if (err < 0)
		return err;
	xa_set_mark(&a->sess, id, SCTP_SESS_MARK);
	s->sid = id;
	s->has_sid = true;
	s->state = SW_DDP_SCTP_INITIATED;
	sess_ctrl_flush(s);
	return 0;
}

/* The association came up: the session waiting for it sends its Initiate. */
void sctp_sess_assoc_up(struct sw_ddp_sctp_session *s)
{
	int err;

	list_del_init(&s->wait);
	err = sess_take_sid(s);
	if (!err)
		return;		/* the stream id holds the list's reference */
	s->ctrl = 0;
	s->rx_end = true;
	s->tx_end = true;
	sess_connect_failed(s, err);
	sw_ddp_sctp_put(s);	/* the list's */
}

/* §11.3: the association is gone; no Terminate on any stream. */
void sctp_sess_assoc_down(struct sw_ddp_sctp_session *s, int status)
{
	s->ctrl = 0;
	switch (s->state) {
	case SW_DDP_SCTP_WAIT_ASSOC:
		list_del_init(&s->wait);
		s->rx_end = true;
		s->tx_end = true;
		sess_connect_failed(s, status);
		sw_ddp_sctp_put(s);	/* the list's */
		return;
	case SW_DDP_SCTP_INITIATED:
		s->answered = true;
		sess_connect_failed(s, status);
		break;
	case SW_DDP_SCTP_REQUESTED:
		s->peer_gone = true;
		sess_unpend(s);
		break;
	case SW_DDP_SCTP_RDMA:
		if (!s->fail_pending)
			sess_end(s, SW_DDP_SCTP_LOST);
		break;
	default:
		break;
	}
	s->rx_dead = true;
	s->rx_end = true;
	s->tx_end = true;
}

/* The QP left RTS (llp close()): our final chunk follows its last one. */
static void sess_qp_close(struct sw_ddp_sctp_session *s)
{
	if (s->state != SW_DDP_SCTP_RDMA)
		return;
	if (s->fail_pending) {
		sess_finalize(s, s->fail_why);
		return;
	}
	sess_shut_segments(s);
	sess_terminate(s);
	sess_finalize(s, SW_DDP_SCTP_LOCAL);
}

/*
 * §6.6: a stream id is free again once no chunk of the session can be
 * outstanding either way: the peer's final chunk came in DDP-SSN order
 * (so all its chunks did), ours went out, and, for the side that picks
 * ids, SCTP had all we sent on the stream acknowledged.
 */
static void sess_maybe_free(struct sw_ddp_sctp_session *s)
{
	struct sw_ddp_sctp_assoc *a = s->assoc;

	if (!sess_wire_done(s) || !s->rx_end || !s->has_sid)
		return;
	if (s->active && a->state == SW_DDP_SCTP_A_UP &&
	    !sctp_assoc_stream_acked(a, s->sid)) {
		sctp_assoc_poll(a);
		return;
	}
	xa_erase(&a->sess, s->sid);
	s->has_sid = false;
	sw_ddp_sctp_put(s);	/* the stream id's */
}

/*
 * Passive: the owner did not answer in time, and may never: iw_cm drops
 * a request's event, without a word to us, when the listener's cm_id is
 * going.  The session ends for the peer as if the owner had closed it
 * (our Terminate), giving back its listener slot and, in turn, its stream
 * id; a late answer finds it gone.  Only the session's memory waits for
 * an owner that never comes, as a TCP endpoint's does (llp_tcp.c).
 */
static void sess_answer_timeout(struct sw_ddp_sctp_session *s)
{
	pr_debug("sw_ddp: SCTP stream %u: no answer from the ULP\n", s->sid);
	sess_requested_close(s);
}

/* The association's work, for each session with a stream id. */
void sctp_sess_run(struct sw_ddp_sctp_session *s)
{
	if (test_and_clear_bit(SCTP_S_EV_CLOSE, &s->events))
		sess_qp_close(s);
	if (s->state == SW_DDP_SCTP_INITIATED) {
		if (s->initiate_err)
			sess_abandon(s, s->initiate_err);
		else if (time_after_eq(jiffies, s->deadline))
			sess_abandon(s, -ETIMEDOUT);
		else
			sctp_assoc_run_by(s->assoc, s->deadline);
	} else if (s->state == SW_DDP_SCTP_REQUESTED) {
		if (time_after_eq(jiffies, s->deadline))
			sess_answer_timeout(s);
		else
			sctp_assoc_run_by(s->assoc, s->deadline);
	}
	sess_ctrl_flush(s);
	sess_maybe_free(s);
}

/* Under a->mutex: a new active session, its Initiate queued. */
int sctp_sess_connect(struct sw_ddp_sctp_assoc *a, const void *pdata,
		      u16 pdata_len, unsigned long timeout,
		      const struct sw_ddp_sctp_ops *ops, void *owner,
		      struct sw_ddp_sctp_session **sp)
{
	struct sw_ddp_sctp_session *s = sctp_sess_alloc(a, true);
	int err;

	if (!s)
		return -ENOMEM;
	s->ops = ops;
	s->owner = owner;
	s->deadline = jiffies + timeout;
	err = sess_ctrl_queue(s, SCTP_DDP_FUNC_INITIATE, pdata, pdata_len);
	if (!err && a->state == SW_DDP_SCTP_A_UP)
		err = sess_take_sid(s);
	if (err) {
		sw_ddp_sctp_put(s);
		return err;
	}
	if (!s->has_sid) {
		s->state = SW_DDP_SCTP_WAIT_ASSOC;
		list_add_tail(&s->wait, &a->waiting);
	}
	sw_ddp_sctp_get(s);
	*sp = s;
	sctp_assoc_kick(a);	/* for its deadline */
	return 0;
}

/* The owner's calls, under sw_ddp_sctp_lock() */

/* Passive: the Initiate can still be accepted or rejected. */
bool sw_ddp_sctp_requested(struct sw_ddp_sctp_session *s)
{
	lockdep_assert_held(&s->assoc->mutex);
	return s->state == SW_DDP_SCTP_REQUESTED && !s->peer_gone &&
	       s->assoc->state == SW_DDP_SCTP_A_UP;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_requested);

/**
 * sw_ddp_sctp_accept() - accept a requested session (§6.2)
 * @s: the session ops->request gave the owner
 * @owner: the owner's, for ops->closed
 * @pdata: private data for the Accept, copied
 * @pdata_len: at most SCTP_DDP_PDATA_MAX
 *
 * The owner attaches its QP first: segments may follow the Accept at
 * once.  Ours wait for the Accept to go out.
 *
 * Return: 0; -ECONNRESET if the session is gone; -EINVAL.
 */
int sw_ddp_sctp_accept(struct sw_ddp_sctp_session *s, void *owner,
		       const void *pdata, u16 pdata_len)
{
	int err;

	if (!sw_ddp_sctp_requested(s))
		return -ECONNRESET;
	if (pdata_len && !pdata)
		return -EINVAL;
	err = sess_ctrl_queue(s, SCTP_DDP_FUNC_ACCEPT, pdata, pdata_len);
	if (err)
		return err;
	sess_unpend(s);
	s->owner = owner;
	s->state = SW_DDP_SCTP_RDMA;
	sess_ctrl_flush(s);
	/*
	 * An Accept that found no room waits for the work (ctrl_waiting):
	 * room freed before that mark was set would wake nothing.
	 */
	sctp_assoc_kick(s->assoc);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_accept);

/**
 * sw_ddp_sctp_reject() - reject a requested session, by the ULP (§6.3)
 * @s: the session ops->request gave the owner
 * @pdata: private data for the Reject, copied
 * @pdata_len: at most SCTP_DDP_PDATA_MAX
 *
 * Return: 0; -ECONNRESET if the session was gone; -EINVAL.  The session
 * is over for the owner in any case.
 */
int sw_ddp_sctp_reject(struct sw_ddp_sctp_session *s, const void *pdata,
		       u16 pdata_len)
{
	int err = -ECONNRESET;

	if (sw_ddp_sctp_requested(s)) {
		err = pdata_len && !pdata ? -EINVAL :
		      sess_ctrl_queue(s, SCTP_DDP_FUNC_REJECT, pdata,
				      pdata_len);
	}
	if (err) {
		sw_ddp_sctp_close(s);
		return err;
	}
	sess_unpend(s);
	s->state = SW_DDP_SCTP_CLOSED;
	s->rx_end = true;	/* §6.3: the Initiate was all the peer sends */
	sess_ctrl_flush(s);
	sctp_assoc_kick(s->assoc);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_reject);

/**
 * sw_ddp_sctp_close() - the owner lets go of a session; no upcall follows
 * @s: the session, under sw_ddp_sctp_lock(); the caller keeps its reference
 *
 * A requested session is answered with a Terminate (not the ULP's
 * Reject, §6.3), an accepted one ended with one; an Initiate not yet
 * answered keeps its stream until the answer comes.  A QP must have been
 * detached first.
 */
void sw_ddp_sctp_close(struct sw_ddp_sctp_session *s)
{
	lockdep_assert_held(&s->assoc->mutex);
	s->owner = NULL;
	switch (s->state) {
	case SW_DDP_SCTP_WAIT_ASSOC:
		list_del_init(&s->wait);
		s->state = SW_DDP_SCTP_CLOSED;
		s->ctrl = 0;
		s->rx_end = true;
		s->tx_end = true;
		sw_ddp_sctp_put(s);	/* the list's; not the caller's */
		return;
	case SW_DDP_SCTP_INITIATED:
		sess_abandon(s, 0);
		break;
	case SW_DDP_SCTP_REQUESTED:
		sess_requested_close(s);
		break;
	case SW_DDP_SCTP_RDMA:
		s->fail_pending = false;
		sess_rdma_closed(s);
		sess_shut_segments(s);
		sess_terminate(s);
		break;
	default:
		break;
	}
	sctp_assoc_kick(s->assoc);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_close);

/* The LLP ops of an accepted session */

/* §9: what one unfragmented chunk carries, room left for bundling. */
static u32 sctp_llp_max_segment(struct sw_ddp_llp *llp)
{
	return READ_ONCE(llp_to_sctp(llp)->assoc->max_seg);
}

/* Under tx_mutex: [DDP-SSN][header] from our buffer, then the payload. */
static int sess_send_seg(struct sw_ddp_sctp_session *s, const void *hdr,
			 unsigned int hdr_len, const struct bio_vec *bv,
			 unsigned int nr_bv, u32 len)
{
	struct sctp_ddp_seg_chunk *c = (void *)s->tx_hdr;
	u32 n = sizeof(*c) + hdr_len;
	struct iov_iter it;
	int err;

	c->ssn = cpu_to_be16(s->tx_ssn);
	memcpy(s->tx_hdr + sizeof(*c), hdr, hdr_len);
	bvec_set_page(&s->tx_bv[0], virt_to_page(s->tx_hdr), n,
		      offset_in_page(s->tx_hdr));
	memcpy(&s->tx_bv[1], bv, nr_bv * sizeof(*bv));
	iov_iter_bvec(&it, ITER_SOURCE, s->tx_bv, nr_bv + 1, n + len);
	err = sctp_assoc_send(s->assoc, s->sid, SCTP_DDP_PPID_SEGMENT, &it);
	if (!err)
		s->tx_ssn++;
	return err;
}

/*
 * One DDP Segment Chunk (§5.2.2).  Waits, without a lock, for room in the
 * send buffer and, on the passive side, for the Accept to go first.
 */
static int sctp_llp_send_segment(struct sw_ddp_llp *llp, const void *hdr,
				 unsigned int hdr_len,
				 const struct bio_vec *bv, unsigned int nr_bv,
				 u32 len, unsigned int flags)
{
	struct sw_ddp_sctp_session *s = llp_to_sctp(llp);
	struct sw_ddp_sctp_assoc *a = s->assoc;
	int wake, err;

	if (flags & SW_DDP_SEG_NOW)
		return -EAGAIN;	/* the association's work receives: no hurry */
	if (hdr_len + sizeof(struct sctp_ddp_seg_chunk) > SCTP_TX_HDR_SIZE)
		return -EINVAL;
	for (;;) {
		wake = atomic_read(&a->tx_wake);
		mutex_lock(&s->tx_mutex);
		if (s->tx_dead || s->seg == SW_DDP_SCTP_SEG_SHUT)
			err = -ESHUTDOWN;	/* the owner hears why */
		else if (s->seg == SW_DDP_SCTP_SEG_WAIT)
			err = -EAGAIN;
		else if (nr_bv > s->max_bv)
			err = -EINVAL;
		else
			err = sess_send_seg(s, hdr, hdr_len, bv, nr_bv, len);
		mutex_unlock(&s->tx_mutex);
		if (err != -EAGAIN)
			return err;
		/*
		 * A doorbell sends in its caller's system call, which a peer
		 * that keeps its window shut must not hold unkillable: the
		 * stream fails instead, as a TCP send does on a signal.
		 */
		if (wait_event_killable_timeout(a->tx_wait,
						atomic_read(&a->tx_wake) != wake,
						HZ) < 0)
			return -EINTR;
	}
}

/*
 * Room in the association's send buffer, which all its sessions share:
 * an estimate for the doorbell, which then sends a small message itself
 * (one that finds the room gone waits in send_segment(), as it would
 * from the work item).  None before the Accept has gone, or once shut.
 */
static u32 sctp_llp_tx_room(struct sw_ddp_llp *llp)
{
	struct sw_ddp_sctp_session *s = llp_to_sctp(llp);
	int room = 0;

	mutex_lock(&s->tx_mutex);
	if (!s->tx_dead && s->seg == SW_DDP_SCTP_SEG_OPEN)
		room = sk_stream_wspace(s->assoc->sock->sk);
	mutex_unlock(&s->tx_mutex);
	return max(room, 0);
}

static void sctp_llp_close(struct sw_ddp_llp *llp, bool abortive)
{
	struct sw_ddp_sctp_session *s = llp_to_sctp(llp);

	/* abortive or not: a session ends with a Terminate (§6.2) */
	set_bit(SCTP_S_EV_CLOSE, &s->events);
	sctp_assoc_kick(s->assoc);
}

/* From the owner's sw_ddp_qp_llp_attach(), under the association's mutex */
static int sctp_llp_start(struct sw_ddp_llp *llp,
			  const struct sw_ddp_rx_ops *rx, void *upper,
			  unsigned int max_bv)
{
	struct sw_ddp_sctp_session *s = llp_to_sctp(llp);
	struct bio_vec *bv;

	lockdep_assert_held(&s->assoc->mutex);
	bv = kcalloc(max_bv + 1, sizeof(*bv), GFP_KERNEL);
	if (!bv)
		return -ENOMEM;
	mutex_lock(&s->tx_mutex);
	kfree(s->tx_bv);
	s->tx_bv = bv;
	s->max_bv = max_bv;
	mutex_unlock(&s->tx_mutex);
	s->rx = rx;
	s->upper = upper;
	return 0;
}

/* From sw_ddp_qp_llp_detach(): no upcall, no send after this. */
static void sctp_llp_stop(struct sw_ddp_llp *llp)
{
	struct sw_ddp_sctp_session *s = llp_to_sctp(llp);

	lockdep_assert_held(&s->assoc->mutex);
	s->rx = NULL;
	s->upper = NULL;
	sess_shut_segments(s);
}

/*
 * Segments reach DDP in the association's work, under its mutex.  The QP
 * calls this under its state mutex, which that work may take (owner
 * upcalls), so it waits on rx_lock alone.
 */
static void sctp_llp_rx_sync(struct sw_ddp_llp *llp)
{
	struct sw_ddp_sctp_session *s = llp_to_sctp(llp);

	spin_lock(&s->rx_lock);
	spin_unlock(&s->rx_lock);
}

static const struct sw_ddp_llp_ops sctp_llp_ops = {
	.max_segment = sctp_llp_max_segment,
	.send_segment = sctp_llp_send_segment,
	.tx_room = sctp_llp_tx_room,
	.close = sctp_llp_close,
	.rx_sync = sctp_llp_rx_sync,
	.start = sctp_llp_start,
	.stop = sctp_llp_stop,
};
