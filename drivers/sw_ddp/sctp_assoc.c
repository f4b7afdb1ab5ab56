// SPDX-License-Identifier: GPL-2.0
/*
 * SCTP associations for DDP (RFC 5043 §7, §8, §11): one-to-one (TCP-style)
 * kernel SCTP sockets, one per association, that indicate DDP adaptation
 * in INIT and INIT-ACK, ask for equal stream counts, never fragment, and
 * carry every DDP stream of their sessions (sctp_session.c) between one
 * pair of endpoints.
 *
 * Lifetime: an association is counted.  Its socket holds one reference
 * (dropped when the socket is released), a queued work run one, each
 * session one, and whoever holds a pointer one.
 * Socket callbacks run in softirq: they only set event bits and queue the
 * work, which reads whole messages and runs the sessions.
 */
#include <crypto/sha1.h>
#include <crypto/sha2.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/sctp.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/wait_bit.h>
#include <net/ipv6.h>
#include <net/sctp/structs.h>
#include <net/sctp/ulpevent.h>
#include <net/sock.h>
#include <kunit/visibility.h>

#include "compat.h"
#include "sctp_llp.h"

enum {
	SCTP_A_EV_RX,		/* a message or notification to read */
	SCTP_A_EV_STATE,	/* the socket's state changed */
	SCTP_A_EV_SPACE,	/* room to send a waiting control message */
	SCTP_A_EV_LISTENER,	/* a listener closed: idle yet? */
};

#define SCTP_A_RX_KICKED	0	/* in rx_kicked: a run is due to read */

/* Messages read per run, so that one association cannot hog a worker. */
#define SCTP_RX_BUDGET	64
/* How often a session waiting for SCTP's acknowledgements looks again. */
#define SCTP_POLL	(HZ / 20)

static struct workqueue_struct *sctp_wq;
/* Active associations, by key, for sharing: under sctp_table_lock. */
static LIST_HEAD(sctp_table);
static DEFINE_MUTEX(sctp_table_lock);
/* Every association, for module exit. */
static LIST_HEAD(sctp_all);
static DEFINE_SPINLOCK(sctp_all_lock);
static atomic_t sctp_assoc_count = ATOMIC_INIT(0);
static atomic_t sctp_listener_count = ATOMIC_INIT(0);
/* Open listeners, to find the one an Initiate is for: sctp_listen_lock */
static LIST_HEAD(sctp_listeners);
static DEFINE_MUTEX(sctp_listen_lock);

static void assoc_work(struct work_struct *work);

static void assoc_release(struct kref *ref)
{
	struct sw_ddp_sctp_assoc *a = container_of(ref, struct sw_ddp_sctp_assoc,
						   ref);

	WARN_ON(a->sock || !xa_empty(&a->sess));
	spin_lock(&sctp_all_lock);
	list_del(&a->all);	/* not on it without a socket: still fine */
	spin_unlock(&sctp_all_lock);
	xa_destroy(&a->sess);
	mutex_destroy(&a->mutex);
	kvfree(a->rxbuf);
	kfree(a);
	if (atomic_dec_and_test(&sctp_assoc_count))
		wake_up_var(&sctp_assoc_count);
}

void sctp_assoc_get(struct sw_ddp_sctp_assoc *a)
{
	kref_get(&a->ref);
}

/* Process context, never under a->mutex unless another reference is held. */
void sctp_assoc_put(struct sw_ddp_sctp_assoc *a)
{
	kref_put(&a->ref, assoc_release);
}

static struct sw_ddp_sctp_assoc *assoc_alloc(struct net *net, bool active)
{
	struct sw_ddp_sctp_assoc *a = kzalloc(sizeof(*a), GFP_KERNEL);

	if (!a)
		return NULL;
	a->rxbuf = kvmalloc(SW_DDP_SCTP_MSG_MAX, GFP_KERNEL);
	if (!a->rxbuf) {
		kfree(a);
		return NULL;
	}
	kref_init(&a->ref);
	mutex_init(&a->mutex);
	a->net = net;
	a->active = active;
	a->skip_sid = -1;
	a->max_seg = SCTP_DDP_MIN_SEG_LIMIT;
	xa_init_flags(&a->sess, XA_FLAGS_ALLOC);
	INIT_LIST_HEAD(&a->waiting);
	INIT_LIST_HEAD(&a->table);
	INIT_DELAYED_WORK(&a->work, assoc_work);
	init_waitqueue_head(&a->tx_wait);
	INIT_LIST_HEAD(&a->all);	/* sctp_all from assoc_attach_sock() */
	atomic_inc(&sctp_assoc_count);
	return a;
}

/* Run the work after @delay, here; a pending run keeps its own reference. */
static void assoc_kick_in(struct sw_ddp_sctp_assoc *a, unsigned long delay)
{
	bool pending;

	kref_get(&a->ref);
	if (delay)
		pending = !queue_delayed_work(sctp_wq, &a->work, delay);
	else
		pending = mod_delayed_work(sctp_wq, &a->work, 0);
	if (pending)
		kref_put(&a->ref, assoc_release);	/* never the last */
}

static void assoc_event(struct sw_ddp_sctp_assoc *a, int ev)
{
	set_bit(ev, &a->events);
	assoc_kick_in(a, 0);
}

void sctp_assoc_kick(struct sw_ddp_sctp_assoc *a)
{
	assoc_kick_in(a, 0);
}

/* Senders waiting for room, or for their turn, look again. */
void sctp_assoc_tx_wake(struct sw_ddp_sctp_assoc *a)
{
	atomic_inc(&a->tx_wake);
	wake_up_all(&a->tx_wait);
}

/*
 * Socket callbacks: softirq or process context.
 *
 * What arrives is read on the CPU it arrives on, as over TCP: over veth
 * the softirq that delivers it runs on the sender's CPU, so the run that
 * reads follows the engine that sent, in the same worker, without a
 * wake-up, and the consumer keeps the other CPU to post and poll.  Bulk
 * read on the next CPU instead cost about four context switches and one
 * and a half IPIs per 64 KiB Write (Documentation/performance.rst).
 *
 * One kick per run: until a run begins (and clears SCTP_A_RX_KICKED), it
 * is due to read everything that arrives before it; kicking it again
 * would only take it off its queue and put it back (mod_delayed_work()).
 */
static void assoc_sk_data_ready(struct sock *sk)
{
	struct sw_ddp_sctp_assoc *a;

	read_lock_bh(&sk->sk_callback_lock);
	a = sk->sk_user_data;
	if (a) {
		set_bit(SCTP_A_EV_RX, &a->events);
		if (!test_and_set_bit(SCTP_A_RX_KICKED, &a->rx_kicked))
			assoc_kick_in(a, 0);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

static void assoc_sk_state_change(struct sock *sk)
{
	void (*orig)(struct sock *sk) = NULL;
	struct sw_ddp_sctp_assoc *a;

	read_lock_bh(&sk->sk_callback_lock);
	a = sk->sk_user_data;
	if (a) {
		orig = a->saved_state_change;
		assoc_event(a, SCTP_A_EV_STATE);
	}
	read_unlock_bh(&sk->sk_callback_lock);
	if (orig)
		orig(sk);
}

/*
 * SCTP wakes its socket's wait queue, not sk_write_space(), when sent
 * data is acknowledged and room frees up: this entry sits on that queue.
 */
static int assoc_sk_space(struct wait_queue_entry *wq, unsigned int mode,
			  int sync, void *key)
{
	struct sw_ddp_sctp_assoc *a = container_of(wq, struct sw_ddp_sctp_assoc,
						   space);
	__poll_t ev = key_to_poll(key);

	if (ev && !(ev & EPOLLOUT))
		return 0;
	sctp_assoc_tx_wake(a);
	if (READ_ONCE(a->ctrl_waiting))
		assoc_event(a, SCTP_A_EV_SPACE);
	return 0;
}

/*
 * Once its callbacks are in, the socket may run the association's work
 * on another CPU, and a peer's ABORT may have it release the socket at
 * once: all that release undoes is in place before.
 */
static void assoc_attach_sock(struct sw_ddp_sctp_assoc *a, struct socket *sock)
{
	struct sock *sk = sock->sk;

	kref_get(&a->ref);
	a->sock = sock;
	init_waitqueue_func_entry(&a->space, assoc_sk_space);
	add_wait_queue(sk_sleep(sk), &a->space);
	write_lock_bh(&sk->sk_callback_lock);
	a->saved_data_ready = sk->sk_data_ready;
	a->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = a;
	sk->sk_data_ready = assoc_sk_data_ready;
	sk->sk_state_change = assoc_sk_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
	/*
	 * Walks of sctp_all (a closing listener's kick, module exit) run the
	 * association's work: only now that it has a socket to read.
	 */
	spin_lock(&sctp_all_lock);
	list_add(&a->all, &sctp_all);
	spin_unlock(&sctp_all_lock);
}

/* Give the socket its callbacks back and close it (ABORT if @abortive). */
static void assoc_release_sock(struct sw_ddp_sctp_assoc *a, bool abortive)
{
	struct socket *sock = a->sock;
	struct sock *sk;

	if (!sock)
		return;
	sk = sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = a->saved_data_ready;
	sk->sk_state_change = a->saved_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
	remove_wait_queue(sk_sleep(sk), &a->space);
	a->sock = NULL;
	if (abortive)
		sock_no_linger(sk);	/* RFC 4960 ABORT rather than SHUTDOWN */
	sock_release(sock);
	kref_put(&a->ref, assoc_release);	/* the socket's; not the last */
}

static int sctp_setopt(struct socket *sock, int opt, const void *val,
		       unsigned int len)
{
	return sock->ops->setsockopt(sock, SOL_SCTP, opt,
				     KERNEL_SOCKPTR((void *)val), len);
}

/*
 * The initial retransmission timeout of the socket's associations: RFC
 * 9260 §16's RTO.Initial of 1 s, where Linux still defaults to RFC
 * 4960's 3 s (net.sctp.rto_initial).  It times the INIT and COOKIE ECHO
 * and, until a round trip is measured, the DATA chunks that carry the
 * Initiate and its answer: at 3 s, two of them lost would take longer
 * than SW_DDP_SCTP_TIMEOUT_MS, where TCP's SYN, at RFC 6298's 1 s, gets
 * the MPA Request across.  Never above what the administrator set, nor
 * below the socket's RTO.Min.
 */
static int sctp_sock_set_rto(struct socket *sock)
{
	const struct sctp_sock *sp = sctp_sk(sock->sk);
	struct sctp_rtoinfo rto = {};

	rto.srto_initial = min_t(u32, sp->rtoinfo.srto_initial,
				 SW_DDP_SCTP_RTO_INITIAL_MS);
	rto.srto_initial = max(rto.srto_initial, sp->rtoinfo.srto_min);
	return sctp_setopt(sock, SCTP_RTOINFO, &rto, sizeof(rto));
}

/*
 * The options every DDP association has: the DDP Adaptation Layer
 * Indication in INIT and INIT-ACK (§5.1, §11.1), equal stream counts
 * (§8), no Nagle delay for untagged segments (§11.2), the stream, PPID
 * and flags of each received message, and RFC 9260's RTO.Initial.
 * Associations a listener accepts are made with its options.
 *
 * SCTP fragmentation stays allowed.  Segments are sized to one DATA
 * chunk (§9), so it splits only what the path no longer carries whole:
 * a segment built before the path MTU shrank, or one of the 516 octets
 * §9 requires on a path too small for it.  The alternative, failing the
 * send with -EMSGSIZE, would end a stream that TCP would have carried.
 */
static int sctp_sock_setup(struct socket *sock)
{
	static const struct sctp_setadaptation adapt = {
		.ssb_adaptation_ind = SCTP_DDP_ADAPT_IND_DDP,
	};
	static const struct sctp_event_subscribe events = {
		.sctp_association_event = 1,
		.sctp_shutdown_event = 1,
		.sctp_adaptation_layer_event = 1,
		.sctp_sender_dry_event = 1,
		.sctp_partial_delivery_event = 1,
	};
	static const struct sctp_initmsg init = {
		.sinit_num_ostreams = SW_DDP_SCTP_STREAMS,
		.sinit_max_instreams = SW_DDP_SCTP_STREAMS,
	};
	static const int on = 1;
	struct sock *sk = sock->sk;
	int err;

	err = sctp_setopt(sock, SCTP_ADAPTATION_LAYER, &adapt, sizeof(adapt));
	if (!err)
		err = sctp_setopt(sock, SCTP_EVENTS, &events, sizeof(events));
	if (!err)
		err = sctp_setopt(sock, SCTP_INITMSG, &init, sizeof(init));
	if (!err)
		err = sctp_setopt(sock, SCTP_NODELAY, &on, sizeof(on));
	if (!err)
		err = sctp_setopt(sock, SCTP_RECVRCVINFO, &on, sizeof(on));
	if (!err)
		err = sctp_sock_set_rto(sock);
	if (err)
		return err;
	lock_sock(sk);
	sk->sk_userlocks |= SOCK_SNDBUF_LOCK | SOCK_RCVBUF_LOCK;
	WRITE_ONCE(sk->sk_sndbuf, SW_DDP_SCTP_SNDBUF);
	WRITE_ONCE(sk->sk_rcvbuf, SW_DDP_SCTP_RCVBUF);
	release_sock(sk);
	return 0;
}

static int sctp_addr_len(const struct sockaddr_storage *addr)
{
	return addr->ss_family == AF_INET ? sizeof(struct sockaddr_in) :
					    sizeof(struct sockaddr_in6);
}

static bool sctp_addr_any(const struct sockaddr_storage *addr)
{
	if (addr->ss_family == AF_INET)
		return ((const struct sockaddr_in *)addr)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return ipv6_addr_any(&((const struct sockaddr_in6 *)addr)->sin6_addr);
}

/* @addr without its port: what an association binds to and is keyed by. */
static void sctp_addr_ip(struct sockaddr_storage *ip,
			 const struct sockaddr_storage *addr)
{
	*ip = *addr;
	if (ip->ss_family == AF_INET)
		((struct sockaddr_in *)ip)->sin_port = 0;
	else
		((struct sockaddr_in6 *)ip)->sin6_port = 0;
}

static bool sctp_addr_eq(const struct sockaddr_storage *a,
			 const struct sockaddr_storage *b)
{
	return a->ss_family == b->ss_family &&
	       !memcmp(a, b, sctp_addr_len(a));
}

static int sctp_sock_create(struct net *net, const struct sockaddr_storage *addr,
			    bool v6only, struct socket **sockp)
{
	struct socket *sock;
	int err;

	if (addr->ss_family != AF_INET && addr->ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	/*
	 * kern == 0: like a user's socket, it holds a reference on @net,
	 * which may therefore not go away under an RDMA connection.
	 */
	err = __sock_create(net, addr->ss_family, SOCK_STREAM, IPPROTO_SCTP,
			    &sock, 0);
	if (err)
		return err;
	sock_set_reuseaddr(sock->sk);
	err = sctp_sock_setup(sock);
	if (!err && v6only && addr->ss_family == AF_INET6)
		err = ip6_sock_set_v6only(sock->sk);
	if (err) {
		sock_release(sock);
		return err;
	}
	*sockp = sock;
	return 0;
}

/*
 * The SCTP association behind a one-to-one socket, and what we read of
 * it: §9's limit, where it runs, what of a stream is acknowledged.
 * SCTP has no kernel getsockopt() that would tell us.
 */
static struct sctp_association *assoc_sctp(struct sock *sk)
{
	return list_first_entry_or_null(&sctp_sk(sk)->ep->asocs,
					struct sctp_association, asocs);
}

/*
 * RFC 4895 §6.2: a peer that asked for DATA to be authenticated gets an
 * AUTH chunk in each packet that carries DATA, which SCTP subtracts
 * from a DATA chunk's room before it fragments (sctp_datamsg_from_user()).
 * Its HMAC is SHA-1's or SHA-256's, the only two SCTP offers (§5.1).
 */
static u32 assoc_auth_room(const struct sctp_association *asoc)
{
	const struct sctp_chunks_param *p = asoc->peer.peer_chunks;
	u32 i, n, hmac;

	if (!asoc->peer.auth_capable || !p)
		return 0;
	n = ntohs(p->param_hdr.length);
	n = n > sizeof(p->param_hdr) ? n - sizeof(p->param_hdr) : 0;
	for (i = 0; i < n && p->chunks[i] != SCTP_CID_DATA; i++)
		;
	if (i == n)
		return 0;
	hmac = asoc->default_hmac_id == SCTP_AUTH_HMAC_ID_SHA1 ?
	       SHA1_DIGEST_SIZE : SHA256_DIGEST_SIZE;
	return ALIGN(sizeof(struct sctp_auth_chunk) + hmac, 4);
}

/* §9: the largest segment SCTP carries whole, room left for bundling. */
static void assoc_refresh_limit(struct sw_ddp_sctp_assoc *a)
{
	u32 frag = 0, room = sizeof(struct sctp_ddp_seg_chunk) +
			     SW_DDP_SCTP_BUNDLE_ROOM;
	struct sock *sk = a->sock->sk;
	struct sctp_association *asoc;

	lock_sock(sk);
	asoc = assoc_sctp(sk);
	if (asoc) {
		frag = asoc->frag_point;
		room += assoc_auth_room(asoc);
	}
	release_sock(sk);
	frag = frag > room ? frag - room : 0;
	WRITE_ONCE(a->max_seg, min_t(u32, sctp_ddp_max_seg(frag),
				     SW_DDP_SCTP_SEG_MAX));
}

/* A DATA chunk of stream @sid waits on @queue, not yet sent. */
static bool queued_on_stream(const struct list_head *queue, u16 sid)
{
	struct sctp_chunk *c;

	list_for_each_entry(c, queue, list)
		if (sctp_chunk_stream_no(c) == sid)
			return true;
	return false;
}

/* A DATA chunk of stream @sid on @sent (retransmit, transmitted): unacked. */
static bool unacked_on_stream(const struct list_head *sent, u16 sid)
{
	struct sctp_chunk *c;

	list_for_each_entry(c, sent, transmitted_list)
		if (!c->tsn_gap_acked && sctp_chunk_stream_no(c) == sid)
			return true;
	return false;
}

/*
 * Everything sent so far on stream @sid has reached the peer's SCTP:
 * none of its DATA chunks is still queued, waiting to be sent again, or
 * sent and not acknowledged, cumulatively or by a gap ack.  Per stream:
 * all the sessions to a peer share one association, and the others may
 * keep data in flight for as long as they run.
 */
bool sctp_assoc_stream_acked(struct sw_ddp_sctp_assoc *a, u16 sid)
{
	struct sctp_association *asoc;
	struct sctp_transport *t;
	struct sock *sk;
	bool acked = false;

	if (!a->sock)
		return true;	/* nothing can be outstanding any more */
	sk = a->sock->sk;
	lock_sock(sk);
	asoc = assoc_sctp(sk);
	if (asoc) {
		acked = !queued_on_stream(&asoc->outqueue.out_chunk_list, sid) &&
			!unacked_on_stream(&asoc->outqueue.retransmit, sid);
		list_for_each_entry(t, &asoc->peer.transport_addr_list,
				    transports)
			acked = acked && !unacked_on_stream(&t->transmitted,
							    sid);
	}
	release_sock(sk);
	return acked;
}
EXPORT_SYMBOL_IF_KUNIT(sctp_assoc_stream_acked);

static void sctp_addr_from(struct sockaddr_storage *ss,
			   const union sctp_addr *addr, __be16 port)
{
	memset(ss, 0, sizeof(*ss));
	if (addr->sa.sa_family == AF_INET6) {
		memcpy(ss, &addr->v6, sizeof(addr->v6));
		if (port)
			((struct sockaddr_in6 *)ss)->sin6_port = port;
	} else {
		memcpy(ss, &addr->v4, sizeof(addr->v4));
		if (port)
			((struct sockaddr_in *)ss)->sin_port = port;
	}
}

/* The addresses iw_cm events report: the primary path's, our port. */
static void assoc_fill_addrs(struct sw_ddp_sctp_assoc *a)
{
	struct sock *sk = a->sock->sk;
	struct sctp_association *asoc;

	lock_sock(sk);
	asoc = assoc_sctp(sk);
	if (asoc && asoc->peer.primary_path) {
		sctp_addr_from(&a->raddr, &asoc->peer.primary_addr, 0);
		sctp_addr_from(&a->laddr, &asoc->peer.primary_path->saddr,
			       htons(asoc->base.bind_addr.port));
	}
	release_sock(sk);
}

/* No sender may touch the socket after this (session tx_mutex). */
static void assoc_stop_senders(struct sw_ddp_sctp_assoc *a)
{
	struct sw_ddp_sctp_session *s;
	unsigned long idx;

	sctp_for_each_sess(a, idx, s) {
		mutex_lock(&s->tx_mutex);
		s->tx_dead = true;
		mutex_unlock(&s->tx_mutex);
	}
	list_for_each_entry(s, &a->waiting, wait) {
		mutex_lock(&s->tx_mutex);
		s->tx_dead = true;
		mutex_unlock(&s->tx_mutex);
	}
	sctp_assoc_tx_wake(a);
}

static void assoc_unlist(struct sw_ddp_sctp_assoc *a)
{
	mutex_lock(&sctp_table_lock);
	list_del_init(&a->table);
	mutex_unlock(&sctp_table_lock);
}

/*
 * The association is over (under a->mutex): no new session finds it,
 * the socket closes, and every session learns of it with @status for
 * those still connecting (§11.3: no Terminate on each stream).
 */
static void assoc_down(struct sw_ddp_sctp_assoc *a, int status, bool abortive)
{
	struct sw_ddp_sctp_session *s, *tmp;
	unsigned long idx;

	if (a->state == SW_DDP_SCTP_A_DOWN)
		return;
	pr_debug("sw_ddp: SCTP association %p down (%d%s)\n", a, status,
		 abortive ? ", aborted" : "");
	a->state = SW_DDP_SCTP_A_DOWN;
	assoc_unlist(a);
	assoc_stop_senders(a);
	assoc_release_sock(a, abortive);
	list_for_each_entry_safe(s, tmp, &a->waiting, wait)
		sctp_sess_assoc_down(s, status);
	sctp_for_each_sess(a, idx, s)
		sctp_sess_assoc_down(s, status);
}

/* §8, §11.1: up once COMM_UP came and the peer indicated DDP. */
static void assoc_maybe_up(struct sw_ddp_sctp_assoc *a)
{
	struct sw_ddp_sctp_session *s, *tmp;

	if (a->state != SW_DDP_SCTP_A_SETUP || !a->comm_up || !a->adapt_ok)
		return;
	a->state = SW_DDP_SCTP_A_UP;
	assoc_fill_addrs(a);
	assoc_refresh_limit(a);
	list_for_each_entry_safe(s, tmp, &a->waiting, wait)
		sctp_sess_assoc_up(s);
}

static void assoc_change(struct sw_ddp_sctp_assoc *a,
			 const struct sctp_assoc_change *c)
{
	switch (c->sac_state) {
	case SCTP_COMM_UP:
		/* §8: a DDP stream is a stream pair with one id */
		a->nstreams = min3(c->sac_inbound_streams,
				   c->sac_outbound_streams,
				   (u16)SW_DDP_SCTP_STREAMS);
		a->comm_up = a->nstreams > 0;
		if (!a->comm_up)
			assoc_down(a, -ECONNRESET, true);
		break;
	case SCTP_CANT_STR_ASSOC:
		assoc_down(a, -ECONNREFUSED, true);
		break;
	case SCTP_RESTART:	/* the peer lost every session it had */
		assoc_down(a, -ECONNRESET, true);
		break;
	case SCTP_COMM_LOST:
	case SCTP_SHUTDOWN_COMP:
		assoc_down(a, -ECONNRESET, false);
		break;
	}
}

static void assoc_notification(struct sw_ddp_sctp_assoc *a, u32 len)
{
	const union sctp_notification *n = (const void *)(a->rxbuf +
							 a->rx_part);

	if (len < sizeof(n->sn_header))
		return;
	pr_debug("sw_ddp: SCTP association %p: notification %#x\n", a,
		 n->sn_header.sn_type);
	switch (n->sn_header.sn_type) {
	case SCTP_ASSOC_CHANGE:
		if (len >= sizeof(n->sn_assoc_change))
			assoc_change(a, &n->sn_assoc_change);
		break;
	case SCTP_ADAPTATION_INDICATION:
		/* §11.1: NONE or ANY-OTHER: no DDP on this association */
		if (len >= sizeof(n->sn_adaptation_event) &&
		    n->sn_adaptation_event.sai_adaptation_ind ==
		    SCTP_DDP_ADAPT_IND_DDP)
			a->adapt_ok = true;
		else
			assoc_down(a, -ECONNREFUSED, true);
		break;
	case SCTP_SHUTDOWN_EVENT:	/* the peer sends nothing more */
		assoc_down(a, -ECONNRESET, false);
		break;
	case SCTP_PARTIAL_DELIVERY_EVENT:
		/* the message being skipped ends here, without its end */
		if (len >= sizeof(n->sn_pdapi_event) &&
		    n->sn_pdapi_event.pdapi_indication ==
		    SCTP_PARTIAL_DELIVERY_ABORTED) {
			a->skip_sid = -1;
			a->rx_part = 0;
		}
		break;
	default:
		break;	/* SENDER_DRY: the sessions look at acks below */
	}
	assoc_maybe_up(a);
}

/*
 * One user message, or part of one: a DDP payload data chunk of some
 * session, @len octets at a->rxbuf + a->rx_part.  SCTP hands a message
 * up in parts (partial delivery) when its fragments meet a nearly full
 * receive window, and it fragments ours when the path shrank after DDP
 * sized a segment (§9): the parts are gathered in a->rxbuf up to its
 * MSG_EOR.  What is left of an oversized one is read and dropped up to
 * its MSG_EOR.  Either may also end unseen: a FORWARD-TSN (RFC 3758
 * §3.6) aborts the partial delivery, which SCTP reports only with
 * SCTP_PARTIAL_DELIVERY_EVENT (RFC 6458 §6.1.7; assoc_notification()).
 * Nothing of another stream is delivered while one is partial (no
 * fragment interleave), so a message of another stream says the same.
 */
static void assoc_data(struct sw_ddp_sctp_assoc *a, int flags, u32 len,
		       const struct sctp_rcvinfo *info)
{
	struct sw_ddp_sctp_chunk msg = {};

	if (a->rx_part && a->rx_part_sid != info->rcv_sid) {
		memmove(a->rxbuf, a->rxbuf + a->rx_part, len);
		a->rx_part = 0;
	}
	if (a->skip_sid == info->rcv_sid) {
		if (flags & MSG_EOR)
			a->skip_sid = -1;
		return;
	}
	a->skip_sid = -1;
	if (a->state != SW_DDP_SCTP_A_UP) {
		/* §11.1: DDP only once the peer's indication was checked */
		assoc_down(a, -ECONNREFUSED, true);
		return;
	}
	if (!(flags & MSG_EOR)) {
		if (a->rx_part + len < SW_DDP_SCTP_MSG_MAX) {
			a->rx_part += len;
			a->rx_part_sid = info->rcv_sid;
			return;
		}
		a->rx_part = 0;
		a->skip_sid = info->rcv_sid;
		sctp_sess_rx_oversized(a, info->rcv_sid);
		return;
	}
	msg.ppid = be32_to_cpu((__force __be32)info->rcv_ppid);
	msg.data = a->rxbuf;
	msg.len = a->rx_part + len;
	a->rx_part = 0;
	sctp_sess_rx(a, info->rcv_sid, &msg);
}

/*
 * One message, or part of one, read into a->rxbuf after the parts so far
 * (a->rx_part): a notification, or data with its stream and PPID (@info;
 * data without them is dropped).
 */
VISIBLE_IF_KUNIT void sctp_assoc_rx_msg(struct sw_ddp_sctp_assoc *a,
					int flags, u32 len,
					const struct sctp_rcvinfo *info)
{
	if (flags & MSG_NOTIFICATION)
		assoc_notification(a, len);
	else if (info)
		assoc_data(a, flags, len, info);
}
EXPORT_SYMBOL_IF_KUNIT(sctp_assoc_rx_msg);

/*
 * A whole DDP Segment chunk at the head of the socket's queue is read in
 * place: its headers copied out, its payload left for DDP to copy from
 * the skb straight into the target (one copy, as over TCP).  SCTP takes
 * a message off its queue only in recvmsg(), which only we call, under
 * a->mutex, and the socket is released only under it too: the skb stays
 * at the head, unchanged, until assoc_consume().  Anything else (a
 * notification, Session Control, a message SCTP split) goes through
 * assoc_recv() and a->rxbuf.
 */
static bool assoc_peek(struct sw_ddp_sctp_assoc *a, u16 *sid,
		       struct sw_ddp_sctp_chunk *m)
{
	struct sock *sk = a->sock->sk;
	const struct sctp_ulpevent *ev;
	struct sk_buff *skb;
	bool ok = false;

	if (a->state != SW_DDP_SCTP_A_UP || a->skip_sid >= 0 || a->rx_part)
		return false;
	lock_sock(sk);		/* SCTP's receive queue is the socket's */
	skb = skb_peek(&sk->sk_receive_queue);
	if (skb) {
		ev = sctp_skb2event(skb);
		ok = !(ev->msg_flags & MSG_NOTIFICATION) &&
		     (ev->msg_flags & MSG_EOR) &&
		     be32_to_cpu((__force __be32)ev->ppid) ==
		     SCTP_DDP_PPID_SEGMENT &&
		     skb->len <= SW_DDP_SCTP_MSG_MAX;
		*sid = ev->stream;
	}
	release_sock(sk);
	if (!ok)
		return false;
	*m = (struct sw_ddp_sctp_chunk){
		.ppid = SCTP_DDP_PPID_SEGMENT,
		.data = a->rxbuf,
		.len = skb->len,
		.head = min_t(u32, skb->len, sizeof(struct sctp_ddp_seg_chunk) +
					     SW_DDP_SCTP_RX_HEAD),
		.skb = skb,
	};
	return !skb_copy_bits(skb, 0, a->rxbuf, m->head);
}

/* Take the message assoc_peek() saw off the socket, without copying. */
static int assoc_consume(struct sw_ddp_sctp_assoc *a, u32 len)
{
	struct msghdr msg = {};
	int n;

	iov_iter_discard(&msg.msg_iter, ITER_DEST, len);
	n = sock_recvmsg(a->sock, &msg, MSG_DONTWAIT);
	if (n < 0)
		return n;
	return n == len && (msg.msg_flags & MSG_EOR) ? 0 : -EIO;
}

/*
 * Read one message, or its next part, after the parts so far.  Return:
 * its length (0 and no MSG_NOTIFICATION when the peer is gone), -EAGAIN,
 * or an error.
 */
static int assoc_recv(struct sw_ddp_sctp_assoc *a, int *flags,
		      struct sctp_rcvinfo *info, bool *has_info)
{
	union {
		struct cmsghdr h;
		u8 buf[CMSG_SPACE(sizeof(struct sctp_rcvinfo))];
	} cm;
	struct msghdr msg = { .msg_control = &cm, .msg_controllen = sizeof(cm) };
	struct kvec iov = { .iov_base = a->rxbuf + a->rx_part,
			    .iov_len = SW_DDP_SCTP_MSG_MAX - a->rx_part };
	int n;

	n = kernel_recvmsg(a->sock, &msg, &iov, 1, iov.iov_len, MSG_DONTWAIT);
	if (n < 0)
		return n;
	*flags = msg.msg_flags;
	*has_info = sizeof(cm) - msg.msg_controllen >=
		    CMSG_LEN(sizeof(*info)) &&
		    cm.h.cmsg_level == IPPROTO_SCTP &&
		    cm.h.cmsg_type == SCTP_RCVINFO;
	if (*has_info)
		memcpy(info, cm.buf + sizeof(cm.h), sizeof(*info));
	return n;
}

/* Drain the socket, a budget at a time. */
static void assoc_rx(struct sw_ddp_sctp_assoc *a)
{
	struct sw_ddp_sctp_chunk seg;
	struct sctp_rcvinfo info;
	bool has_info;
	int i, n, flags;
	u16 sid;

	for (i = 0; i < SCTP_RX_BUDGET; i++) {
		if (a->state == SW_DDP_SCTP_A_DOWN)
			return;
		if (assoc_peek(a, &sid, &seg)) {
			sctp_sess_rx(a, sid, &seg);
			if (assoc_consume(a, seg.len)) {
				assoc_down(a, -ECONNRESET, true);
				return;
			}
			continue;
		}
		n = assoc_recv(a, &flags, &info, &has_info);
		if (n == -EAGAIN) {
			/* §11.1: COMM_UP and the indication come together */
			if (a->state == SW_DDP_SCTP_A_SETUP && a->comm_up)
				assoc_down(a, -ECONNREFUSED, true);
			return;
		}
		if (n < 0 || (!n && !(flags & MSG_NOTIFICATION))) {
			assoc_down(a, -ECONNRESET, n < 0);
			return;
		}
		sctp_assoc_rx_msg(a, flags, n, has_info ? &info : NULL);
	}
	set_bit(SCTP_A_EV_RX, &a->events);	/* more, in the next run */
}

/*
 * Nothing left to carry: close gracefully (SHUTDOWN).  A passive
 * association stays while a listener takes Initiates for it: the peer
 * opens the sessions on it and closes it when done.  But not for long
 * with none: ours closes its side as soon as it carries no session, and
 * a peer that connects and never sends an Initiate would pin a socket
 * and a->rxbuf for as long as the listener is open.
 */
static void assoc_idle_check(struct sw_ddp_sctp_assoc *a)
{
	struct sw_ddp_sctp_listener *l;

	if (a->state == SW_DDP_SCTP_A_DOWN || !xa_empty(&a->sess) ||
	    !list_empty(&a->waiting)) {
		a->idle_set = false;
		return;
	}
	/*
	 * Not while it is being set up: a passive one has no session yet,
	 * and the first session of an active one joins after the work may
	 * have run (assoc_get_active()).  Setup ends by its deadline.
	 */
	if (a->state == SW_DDP_SCTP_A_SETUP)
		return;
	if (!a->active) {
		if (!a->idle_set) {
			a->idle_set = true;
			a->idle_end = jiffies +
				      msecs_to_jiffies(SW_DDP_SCTP_TIMEOUT_MS);
		}
		l = time_before(jiffies, a->idle_end) ?
		    sctp_listener_find(a) : NULL;
		if (l) {
			sctp_listener_put(l);
			sctp_assoc_run_by(a, a->idle_end);
			return;
		}
	}
	assoc_down(a, -ECONNRESET, false);
}

/* Under a->mutex: have the work run again by @when at the latest. */
void sctp_assoc_run_by(struct sw_ddp_sctp_assoc *a, unsigned long when)
{
	if (!a->timer_set || time_before(when, a->timer)) {
		a->timer = when;
		a->timer_set = true;
	}
}

void sctp_assoc_poll(struct sw_ddp_sctp_assoc *a)
{
	sctp_assoc_run_by(a, jiffies + SCTP_POLL);
}

static void assoc_run_sessions(struct sw_ddp_sctp_assoc *a)
{
	struct sw_ddp_sctp_session *s;
	unsigned long idx;

	WRITE_ONCE(a->ctrl_waiting, false);
	sctp_for_each_sess(a, idx, s)
		sctp_sess_run(s);
}

static void assoc_step(struct sw_ddp_sctp_assoc *a)
{
	if (a->state != SW_DDP_SCTP_A_DOWN)
		assoc_rx(a);
	if (a->state == SW_DDP_SCTP_A_SETUP &&
	    time_after_eq(jiffies, a->deadline))
		assoc_down(a, -ETIMEDOUT, true);
	if (a->state == SW_DDP_SCTP_A_UP)
		assoc_refresh_limit(a);
	assoc_run_sessions(a);
	assoc_idle_check(a);
	if (a->state == SW_DDP_SCTP_A_SETUP)
		sctp_assoc_run_by(a, a->deadline);
}

static void assoc_work(struct work_struct *work)
{
	struct sw_ddp_sctp_assoc *a = container_of(to_delayed_work(work),
						   struct sw_ddp_sctp_assoc,
						   work);

	mutex_lock(&a->mutex);
	a->timer_set = false;
	/* before the events are taken: what arrives later kicks again */
	clear_bit(SCTP_A_RX_KICKED, &a->rx_kicked);
	xchg(&a->events, 0);	/* one step serves them all */
	assoc_step(a);
	if (a->events)
		assoc_kick_in(a, 0);
	else if (a->timer_set)
		assoc_kick_in(a, max_t(long, a->timer - jiffies, 1));
	mutex_unlock(&a->mutex);
	sctp_assoc_put(a);	/* the run's */
}

/* Under sctp_table_lock: the active association for this key, counted. */
static struct sw_ddp_sctp_assoc *
assoc_find(struct net *net, const struct sockaddr_storage *lip,
	   const struct sockaddr_storage *raddr)
{
	struct sw_ddp_sctp_assoc *a;

	list_for_each_entry(a, &sctp_table, table) {
		if (a->net == net && sctp_addr_eq(&a->key_local, lip) &&
		    sctp_addr_eq(&a->key_peer, raddr)) {
			sctp_assoc_get(a);
			return a;
		}
	}
	return NULL;
}

/* Under sctp_table_lock: a new active association, INIT on its way. */
static struct sw_ddp_sctp_assoc *
assoc_open(struct net *net, const struct sockaddr_storage *lip,
	   const struct sockaddr_storage *raddr, bool v6only,
	   unsigned long timeout)
{
	struct sw_ddp_sctp_assoc *a;
	struct socket *sock;
	int err;

	a = assoc_alloc(net, true);
	if (!a)
		return ERR_PTR(-ENOMEM);
	err = sctp_sock_create(net, raddr, v6only, &sock);
	if (err)
		goto err_assoc;
	err = kernel_bind(sock, (struct sockaddr *)lip, sctp_addr_len(lip));
	if (err)
		goto err_sock;
	err = kernel_connect(sock, (struct sockaddr *)raddr,
			     sctp_addr_len(raddr), O_NONBLOCK);
	if (err && err != -EINPROGRESS)
		goto err_sock;
	a->key_local = *lip;
	a->key_peer = *raddr;
	a->deadline = jiffies + timeout;
	list_add(&a->table, &sctp_table);
	/* whatever SCTP did meanwhile, the work reads it */
	assoc_attach_sock(a, sock);
	assoc_event(a, SCTP_A_EV_RX);
	return a;

err_sock:
	sock_no_linger(sock->sk);
	sock_release(sock);
err_assoc:
	sctp_assoc_put(a);
	return ERR_PTR(err);
}

/* An active association to @raddr from @lip, shared, locked, counted. */
static struct sw_ddp_sctp_assoc *
assoc_get_active(struct net *net, const struct sockaddr_storage *lip,
		 const struct sockaddr_storage *raddr, bool v6only,
		 unsigned long timeout)
{
	struct sw_ddp_sctp_assoc *a;
	int tries;

	for (tries = 0; tries < 3; tries++) {
		mutex_lock(&sctp_table_lock);
		a = assoc_find(net, lip, raddr);
		if (!a)
			a = assoc_open(net, lip, raddr, v6only, timeout);
		mutex_unlock(&sctp_table_lock);
		if (IS_ERR(a))
			return a;
		mutex_lock(&a->mutex);
		if (a->state != SW_DDP_SCTP_A_DOWN)
			return a;
		/* it went down before we got it: unlisted, so try again */
		mutex_unlock(&a->mutex);
		sctp_assoc_put(a);
	}
	return ERR_PTR(-EAGAIN);
}

/**
 * sw_ddp_sctp_connect() - open a DDP Stream Session (active side)
 * @net: network namespace of the device
 * @laddr: local address; its port is not used (§7.2: one address)
 * @raddr: the passive side's address and port
 * @v6only: no IPv4-mapped addresses
 * @pdata: private data for the Initiate, copied
 * @pdata_len: at most SCTP_DDP_PDATA_MAX
 * @timeout: jiffies from now to the answer, association setup included
 * @ops: upcalls; ops->connected reports the outcome, exactly once
 * @owner: the owner's, in s->owner
 * @sp: the session, one reference for the caller
 *
 * An association between the two addresses that is up or coming up is
 * shared; otherwise one is opened.
 *
 * Return: 0 (the outcome follows through ops->connected) or a negative
 * errno and no upcall.
 */
int sw_ddp_sctp_connect(struct net *net, const struct sockaddr_storage *laddr,
			const struct sockaddr_storage *raddr, bool v6only,
			const void *pdata, u16 pdata_len,
			unsigned long timeout,
			const struct sw_ddp_sctp_ops *ops, void *owner,
			struct sw_ddp_sctp_session **sp)
{
	struct sockaddr_storage lip;
	struct sw_ddp_sctp_assoc *a;
	int err;

	if (laddr->ss_family != raddr->ss_family ||
	    pdata_len > SCTP_DDP_PDATA_MAX || (pdata_len && !pdata))
		return -EINVAL;
	if (raddr->ss_family != AF_INET && raddr->ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	sctp_addr_ip(&lip, laddr);
	a = assoc_get_active(net, &lip, raddr, v6only, timeout);
	if (IS_ERR(a))
		return PTR_ERR(a);
	err = sctp_sess_connect(a, pdata, pdata_len, timeout, ops, owner, sp);
	mutex_unlock(&a->mutex);
	sctp_assoc_put(a);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_connect);

/* Listeners */

static void listener_release(struct kref *ref)
{
	struct sw_ddp_sctp_listener *l =
		container_of(ref, struct sw_ddp_sctp_listener, ref);

	WARN_ON(l->sock);
	mutex_destroy(&l->mutex);
	kfree(l);
	if (atomic_dec_and_test(&sctp_listener_count))
		wake_up_var(&sctp_listener_count);
}

static void listener_put(struct sw_ddp_sctp_listener *l)
{
	kref_put(&l->ref, listener_release);
}

void sctp_listener_put(struct sw_ddp_sctp_listener *l)
{
	listener_put(l);
}

/*
 * Does listener @l take Initiates of association @a, and how well (2: @l
 * is bound to its local address, 1: a wildcard)?  A listener bound to an
 * interface takes only what came in there, as its socket does: not an
 * association a listener on another interface accepted.
 */
static int listener_match(const struct sw_ddp_sctp_listener *l,
			  const struct sw_ddp_sctp_assoc *a)
{
	const struct sockaddr_storage *laddr = &a->laddr;
	const struct sockaddr_in6 *l6 = (const void *)&l->addr;
	const struct sockaddr_in *l4 = (const void *)&l->addr;
	const struct sockaddr_in *a4 = (const void *)laddr;

	if (l->net != a->net ||
	    (l->ifindex && a->ifindex && l->ifindex != a->ifindex))
		return 0;

	if (l->addr.ss_family == AF_INET && laddr->ss_family == AF_INET) {
		if (l4->sin_port != a4->sin_port)
			return 0;
		return l4->sin_addr.s_addr == a4->sin_addr.s_addr ? 2 :
		       !l4->sin_addr.s_addr;
	}
	if (l->addr.ss_family != AF_INET6)
		return 0;
	if (laddr->ss_family == AF_INET)	/* an IPv6 wildcard takes v4 */
		return l6->sin6_port == a4->sin_port && !l->v6only &&
		       ipv6_addr_any(&l6->sin6_addr);
	if (laddr->ss_family != AF_INET6 ||
	    l6->sin6_port != ((const struct sockaddr_in6 *)laddr)->sin6_port)
		return 0;
	if (ipv6_addr_equal(&l6->sin6_addr,
			    &((const struct sockaddr_in6 *)laddr)->sin6_addr))
		return 2;
	return ipv6_addr_any(&l6->sin6_addr);
}

/**
 * sctp_listener_find() - the open listener for an association, counted
 * @a: the association, passive
 *
 * Initiates go to whoever listens now on the association's namespace,
 * address and port, not to the listener that accepted it (rdma_cm users
 * close and reopen listeners between connections); a listener bound to
 * the address is preferred to a wildcard one.  A wildcard bound to an
 * interface (one device's, as rdma_cm listens on each) takes only the
 * associations that came in on it.
 *
 * Return: the listener or NULL.
 */
struct sw_ddp_sctp_listener *
sctp_listener_find(const struct sw_ddp_sctp_assoc *a)
{
	struct sw_ddp_sctp_listener *l, *best = NULL;
	int m, best_m = 0;

	mutex_lock(&sctp_listen_lock);
	list_for_each_entry(l, &sctp_listeners, node) {
		m = listener_match(l, a);
		if (m > best_m) {
			best = l;
			best_m = m;
		}
	}
	if (best)
		kref_get(&best->ref);
	mutex_unlock(&sctp_listen_lock);
	return best;
}

/*
 * A listener closed: passive associations left idle may close too.  Each
 * is kicked with the list unlocked, as its reference may be the last once
 * its work has run (assoc_release() takes the list lock); a counted one
 * stays on the list, so the walk goes on from it.
 */
static void assoc_kick_passive(struct net *net)
{
	struct sw_ddp_sctp_assoc *a, *prev = NULL;

	spin_lock(&sctp_all_lock);
	list_for_each_entry(a, &sctp_all, all) {
		if (a->active || a->net != net ||
		    !kref_get_unless_zero(&a->ref))
			continue;
		spin_unlock(&sctp_all_lock);
		assoc_event(a, SCTP_A_EV_LISTENER);
		if (prev)
			sctp_assoc_put(prev);
		prev = a;
		spin_lock(&sctp_all_lock);
	}
	spin_unlock(&sctp_all_lock);
	if (prev)
		sctp_assoc_put(prev);
}

static void listener_kick(struct sw_ddp_sctp_listener *l)
{
	kref_get(&l->ref);
	if (!queue_work(sctp_wq, &l->work))
		listener_put(l);	/* never the last */
}

static void listener_sk_data_ready(struct sock *sk)
{
	struct sw_ddp_sctp_listener *l;

	read_lock_bh(&sk->sk_callback_lock);
	l = sk->sk_user_data;
	if (l)
		listener_kick(l);
	read_unlock_bh(&sk->sk_callback_lock);
}

/* A new association, accepted. */
static void listener_accept_one(struct sw_ddp_sctp_listener *l,
				struct socket *sock)
{
	struct sw_ddp_sctp_assoc *a = assoc_alloc(l->net, false);

	/* As the listener's: the namespace stays while the association does */
	sw_ddp_sk_hold_net(sock->sk);
	if (!a) {
		sock_no_linger(sock->sk);
		sock_release(sock);
		return;
	}
	/*
	 * Not locked: nobody sees @a before its socket callbacks do, nor
	 * (sctp_all) before it has its socket; what they start may run at
	 * once (assoc_attach_sock()).
	 */
	a->deadline = jiffies + msecs_to_jiffies(SW_DDP_SCTP_TIMEOUT_MS);
	a->ifindex = l->ifindex;
	assoc_attach_sock(a, sock);
	assoc_event(a, SCTP_A_EV_RX);	/* COMM_UP may be in already */
	sctp_assoc_put(a);
}

static void listener_work(struct work_struct *work)
{
	struct sw_ddp_sctp_listener *l =
		container_of(work, struct sw_ddp_sctp_listener, work);
	struct socket *sock;

	mutex_lock(&l->mutex);
	while (!l->closed && !kernel_accept(l->sock, &sock, O_NONBLOCK))
		listener_accept_one(l, sock);
	mutex_unlock(&l->mutex);
	listener_put(l);	/* the run's */
}

/**
 * sw_ddp_sctp_listen() - take DDP associations and their sessions
 * @net: network namespace of the device
 * @addr: IPv4 or IPv6 address and port, possibly the wildcard
 * @backlog: SCTP backlog, and the Initiates held for the owner (§6.4,
 *	     at most SW_DDP_SCTP_PENDING_MAX)
 * @ifindex: for a wildcard @addr, the only interface to accept on (0: any)
 * @v6only: an IPv6 wildcard does not take IPv4 associations
 * @ops: upcalls; ops->request for each Initiate
 * @owner: the owner's, in l->owner
 * @lp: the listener, one reference for the caller
 *
 * Return: 0 or a negative errno.
 */
int sw_ddp_sctp_listen(struct net *net, const struct sockaddr_storage *addr,
		       int backlog, int ifindex, bool v6only,
		       const struct sw_ddp_sctp_ops *ops, void *owner,
		       struct sw_ddp_sctp_listener **lp)
{
	struct sw_ddp_sctp_listener *l;
	struct socket *sock;
	struct sock *sk;
	int err;

	err = sctp_sock_create(net, addr, v6only, &sock);
	if (err)
		return err;
	sk = sock->sk;
	if (ifindex && sctp_addr_any(addr))
		sk->sk_bound_dev_if = ifindex;
	err = kernel_bind(sock, (struct sockaddr *)addr, sctp_addr_len(addr));
	if (!err)
		err = kernel_listen(sock, backlog);
	l = err ? NULL : kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l) {
		sock_release(sock);
		return err ?: -ENOMEM;
	}
	kref_init(&l->ref);
	mutex_init(&l->mutex);
	INIT_WORK(&l->work, listener_work);
	l->net = net;
	l->addr = *addr;	/* the port SCTP chose, if it did */
	kernel_getsockname(sock, (struct sockaddr *)&l->addr);
	l->v6only = v6only;
	l->ifindex = sk->sk_bound_dev_if;
	l->ops = ops;
	l->owner = owner;
	l->pending_max = clamp(backlog, 1, SW_DDP_SCTP_PENDING_MAX);
	l->sock = sock;
	atomic_inc(&sctp_listener_count);

	write_lock_bh(&sk->sk_callback_lock);
	l->saved_data_ready = sk->sk_data_ready;
	sk->sk_user_data = l;
	sk->sk_data_ready = listener_sk_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	mutex_lock(&sctp_listen_lock);
	list_add(&l->node, &sctp_listeners);
	mutex_unlock(&sctp_listen_lock);
	listener_kick(l);	/* associations may be in already */
	*lp = l;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_listen);

/**
 * sw_ddp_sctp_listen_close() - stop listening and drop the caller's reference
 * @l: the listener
 *
 * No ops->request runs for @l once this returns.  Sessions already
 * given to the owner go on; the associations they run on stay until
 * their peers close them, or until they are idle (assoc_idle_check()).
 */
void sw_ddp_sctp_listen_close(struct sw_ddp_sctp_listener *l)
{
	struct socket *sock;
	struct sock *sk;

	mutex_lock(&sctp_listen_lock);
	list_del(&l->node);
	mutex_unlock(&sctp_listen_lock);
	mutex_lock(&l->mutex);
	l->closed = true;
	sock = l->sock;
	l->sock = NULL;
	sk = sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = l->saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	sock_release(sock);
	mutex_unlock(&l->mutex);
	assoc_kick_passive(l->net);
	listener_put(l);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_sctp_listen_close);

/**
 * sctp_assoc_send() - send one message on stream @sid, unordered (§10)
 * @a: the association; the caller holds the session's tx_mutex and has
 *     checked that the socket is still there (!s->tx_dead)
 * @sid: the stream (§8)
 * @ppid: SCTP_DDP_PPID_SEGMENT or SCTP_DDP_PPID_SESSION_CTRL (§5.2)
 * @it: the whole message, from its DDP-SSN on
 *
 * Never waits: SCTP takes the message whole or not at all.
 *
 * Return: 0; -EAGAIN if the send buffer is full; -EMSGSIZE if SCTP
 * refuses a message that large; another error once the association is
 * failing.
 */
int sctp_assoc_send(struct sw_ddp_sctp_assoc *a, u16 sid, u32 ppid,
		    struct iov_iter *it)
{
	union {
		struct cmsghdr h;
		u8 buf[CMSG_SPACE(sizeof(struct sctp_sndinfo))];
	} cm = {};
	struct sctp_sndinfo *info = (void *)(cm.buf + sizeof(cm.h));
	struct msghdr msg = {
		.msg_control = &cm,
		.msg_controllen = sizeof(cm),
		.msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL,
	};
	size_t len = iov_iter_count(it);
	int n;

	cm.h.cmsg_level = IPPROTO_SCTP;
	cm.h.cmsg_type = SCTP_SNDINFO;
	cm.h.cmsg_len = CMSG_LEN(sizeof(*info));
	info->snd_sid = sid;
	info->snd_flags = SCTP_UNORDERED;	/* §10: U = 1 on every chunk */
	info->snd_ppid = (__force u32)cpu_to_be32(ppid);
	msg.msg_iter = *it;
	n = sock_sendmsg(a->sock, &msg);
	if (n < 0)
		return n;
	return n == len ? 0 : -EIO;
}
EXPORT_SYMBOL_IF_KUNIT(sctp_assoc_send);

/*
 * The associations' work receives every DDP segment: high priority, so it
 * runs before a consumer busy-polling its CQ gets the CPU back; per CPU,
 * so that a kick can choose where it runs.
 */
int sw_ddp_sctp_init(void)
{
	sctp_wq = alloc_workqueue("sw_ddp_sctp", WQ_HIGHPRI, 0);
	return sctp_wq ? 0 : -ENOMEM;
}

/* Next association not yet taken down at exit, counted; NULL if none. */
static struct sw_ddp_sctp_assoc *assoc_next_left(void)
{
	struct sw_ddp_sctp_assoc *a, *found = NULL;

	spin_lock(&sctp_all_lock);
	list_for_each_entry(a, &sctp_all, all) {
		if (!a->exiting && kref_get_unless_zero(&a->ref)) {
			a->exiting = true;
			found = a;
			break;
		}
	}
	spin_unlock(&sctp_all_lock);
	return found;
}

/*
 * Module exit, after the devices (and so every iw_cm id) are gone: wait
 * for the associations to end as their sessions drain.  What is left
 * then (a peer that never answers) is aborted, so that no socket calls
 * into this module any more, and reported if it still cannot be freed.
 */
void sw_ddp_sctp_exit(void)
{
	unsigned long timeout = msecs_to_jiffies(SW_DDP_SCTP_TIMEOUT_MS);
	struct sw_ddp_sctp_assoc *a;

	if (!wait_var_event_timeout(&sctp_assoc_count,
				    !atomic_read(&sctp_assoc_count), timeout)) {
		while ((a = assoc_next_left())) {
			mutex_lock(&a->mutex);
			assoc_down(a, -ECONNRESET, true);
			assoc_run_sessions(a);	/* their stream ids go */
			mutex_unlock(&a->mutex);
			if (cancel_delayed_work_sync(&a->work))
				sctp_assoc_put(a);	/* the run's */
			sctp_assoc_put(a);
		}
		flush_workqueue(sctp_wq);
		if (atomic_read(&sctp_assoc_count))
			pr_warn("sw_ddp: %d SCTP associations leaked\n",
				atomic_read(&sctp_assoc_count));
	}
	flush_workqueue(sctp_wq);
	if (atomic_read(&sctp_listener_count))
		pr_warn("sw_ddp: %d SCTP listeners leaked\n",
			atomic_read(&sctp_listener_count));
	destroy_workqueue(sctp_wq);
}
