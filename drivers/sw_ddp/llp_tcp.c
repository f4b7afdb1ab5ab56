// SPDX-License-Identifier: GPL-2.0
/*
 * TCP LLP endpoints: kernel TCP sockets and the MPA Request/Reply exchange
 * (RFC 5044 "Connection Setup", RFC 6581), up to the hand-over of an
 * established stream to the QP.  Frames are built and checked by mpa.c.
 *
 * Lifetime: an endpoint is counted (ep->ref).  Its socket association
 * holds one reference (dropped when the callbacks are restored), a queued
 * work item one, and whoever holds a pointer one.  Socket callbacks run in
 * softirq: they only set event bits and queue the work.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/tcp.h>
#include <linux/wait_bit.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <kunit/visibility.h>

#include "llp_tcp.h"
#include "sw_ddp.h"

static struct workqueue_struct *sw_ddp_tcp_wq;
static LIST_HEAD(sw_ddp_tcp_eps);
static DEFINE_SPINLOCK(sw_ddp_tcp_eps_lock);
static atomic_t sw_ddp_tcp_ep_count = ATOMIC_INIT(0);

static void tcp_ep_work(struct work_struct *work);
static const struct sw_ddp_llp_ops sw_ddp_tcp_llp_ops;

static void tcp_ep_release(struct kref *ref)
{
	struct sw_ddp_tcp_ep *ep = container_of(ref, struct sw_ddp_tcp_ep, ref);

	WARN_ON(ep->sock || ep->listener);
	sw_ddp_tcp_data_free(ep);
	spin_lock(&sw_ddp_tcp_eps_lock);
	list_del(&ep->all);
	spin_unlock(&sw_ddp_tcp_eps_lock);
	mutex_destroy(&ep->mutex);
	kfree(ep);
	if (atomic_dec_and_test(&sw_ddp_tcp_ep_count))
		wake_up_var(&sw_ddp_tcp_ep_count);
}

void sw_ddp_tcp_get(struct sw_ddp_tcp_ep *ep)
{
	kref_get(&ep->ref);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_tcp_get);

/* Process context: the last reference may release a socket's endpoint. */
void sw_ddp_tcp_put(struct sw_ddp_tcp_ep *ep)
{
	kref_put(&ep->ref, tcp_ep_release);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_tcp_put);

void sw_ddp_tcp_lock(struct sw_ddp_tcp_ep *ep)
{
	mutex_lock(&ep->mutex);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_tcp_lock);

void sw_ddp_tcp_unlock(struct sw_ddp_tcp_ep *ep)
{
	mutex_unlock(&ep->mutex);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_tcp_unlock);

static struct sw_ddp_tcp_ep *tcp_ep_alloc(struct net *net,
					  unsigned long timeout,
					  const struct sw_ddp_tcp_ep_ops *ops,
					  void *owner)
{
	struct sw_ddp_tcp_ep *ep = kzalloc(sizeof(*ep), GFP_KERNEL);

	if (!ep)
		return NULL;
	ep->llp.ops = &sw_ddp_tcp_llp_ops;
	kref_init(&ep->ref);
	mutex_init(&ep->mutex);
	ep->net = net;
	INIT_DELAYED_WORK(&ep->work, tcp_ep_work);
	ep->timeout = timeout;
	ep->ops = ops;
	ep->owner = owner;
	INIT_LIST_HEAD(&ep->children);
	INIT_LIST_HEAD(&ep->child);
	atomic_inc(&sw_ddp_tcp_ep_count);
	spin_lock(&sw_ddp_tcp_eps_lock);
	list_add(&ep->all, &sw_ddp_tcp_eps);
	spin_unlock(&sw_ddp_tcp_eps_lock);
	return ep;
}

/* Run the work after @delay; a pending run keeps its own reference. */
static void tcp_ep_kick(struct sw_ddp_tcp_ep *ep, unsigned long delay)
{
	bool pending;

	kref_get(&ep->ref);
	if (delay)
		pending = !queue_delayed_work(sw_ddp_tcp_wq, &ep->work, delay);
	else
		pending = mod_delayed_work(sw_ddp_tcp_wq, &ep->work, 0);
	if (pending)
		kref_put(&ep->ref, tcp_ep_release);	/* never the last */
}

/* Work of the data path (llp_tcp_data.c), on the endpoints' queue. */
void sw_ddp_tcp_queue_work(struct work_struct *work)
{
	queue_work(sw_ddp_tcp_wq, work);
}

static void tcp_ep_event(struct sw_ddp_tcp_ep *ep, int ev)
{
	set_bit(ev, &ep->events);
	tcp_ep_kick(ep, 0);
}

/* Socket callbacks: softirq or process context, sk_callback_lock read. */
static void tcp_sk_state_change(struct sock *sk)
{
	void (*orig)(struct sock *sk) = NULL;
	struct sw_ddp_tcp_ep *ep;

	read_lock_bh(&sk->sk_callback_lock);
	ep = sk->sk_user_data;
	if (ep) {
		orig = ep->saved_state_change;
		tcp_ep_event(ep, SW_DDP_TCP_EV_STATE);
	}
	read_unlock_bh(&sk->sk_callback_lock);
	if (orig)
		orig(sk);
}

static void tcp_sk_data_ready(struct sock *sk)
{
	void (*rx_ready)(struct sw_ddp_tcp_ep *ep);
	struct sw_ddp_tcp_ep *ep;

	read_lock_bh(&sk->sk_callback_lock);
	ep = sk->sk_user_data;
	if (ep) {
		rx_ready = READ_ONCE(ep->rx_ready);
		if (rx_ready)
			rx_ready(ep);
		else
			tcp_ep_event(ep, SW_DDP_TCP_EV_RX);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Take over @sock's callbacks.  An accepted socket was cloned from our
 * listener with our callbacks already in place (@parent then supplies the
 * originals): they find @ep, and queue its work, as soon as it is the
 * socket's user data, and that work may run at once on another CPU, with
 * nobody holding the child's mutex.  So @ep has its socket by then.
 */
static void tcp_ep_attach_sock(struct sw_ddp_tcp_ep *ep, struct socket *sock,
			       struct sw_ddp_tcp_ep *parent)
{
	struct sock *sk = sock->sk;

	kref_get(&ep->ref);
	write_lock_bh(&sk->sk_callback_lock);
	ep->saved_state_change = parent ? parent->saved_state_change :
					  sk->sk_state_change;
	ep->saved_data_ready = parent ? parent->saved_data_ready :
					sk->sk_data_ready;
	WRITE_ONCE(ep->sock, sock);
	sk->sk_user_data = ep;
	sk->sk_state_change = tcp_sk_state_change;
	sk->sk_data_ready = tcp_sk_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
}

/*
 * A graceful close lets out what is still queued to go, a Terminate behind
 * Read Responses, say (RFC 5040 §5.4: the stream's last message), though
 * the peer keeps sending meanwhile.  A socket shut for receive answers
 * such data with a reset (RFC 1122 §4.2.2.13), and so does one closed
 * with it unread, and the reset drops all not yet sent.  So the socket,
 * shut for sending only (FIN queued), outlives its endpoint: it takes
 * what arrives, unread, until the peer acknowledges our FIN, or for
 * SW_DDP_TCP_LINGER_MS.  Then the peer has all we sent, and the socket
 * goes: with a reset if the peer's data lies unread, as any close would
 * send one (which Linux's receiver takes after what it has queued).
 * Nobody waits for it: its own work item releases it.
 *
 * On sw_ddp_tcp_lingering (sw_ddp_tcp_eps_lock) while the work item owns
 * it; off it, whoever took it off does.
 */
struct tcp_linger {
	struct socket *sock;
	void (*saved_state_change)(struct sock *sk);
	unsigned long deadline;
	struct delayed_work work;
	struct list_head all;
};

static LIST_HEAD(sw_ddp_tcp_lingering);

/* Our FIN is out and not yet acknowledged. */
static bool tcp_sock_closing(const struct sock *sk)
{
	return (1 << READ_ONCE(sk->sk_state)) &
	       (TCPF_FIN_WAIT1 | TCPF_CLOSING | TCPF_LAST_ACK);
}

/* As tcp_sk_state_change(): softirq or process context. */
static void tcp_linger_state_change(struct sock *sk)
{
	void (*orig)(struct sock *sk) = NULL;
	struct tcp_linger *l;

	read_lock_bh(&sk->sk_callback_lock);
	l = sk->sk_user_data;
	if (l) {
		orig = l->saved_state_change;
		if (!tcp_sock_closing(sk))
			mod_delayed_work(sw_ddp_tcp_wq, &l->work, 0);
	}
	read_unlock_bh(&sk->sk_callback_lock);
	if (orig)
		orig(sk);
}

/* No callback queues the work any more once this returns. */
static void tcp_linger_detach(struct tcp_linger *l)
{
	struct sock *sk = l->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_state_change = l->saved_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

/* What the peer sent meanwhile, unread, makes the release a reset. */
static void tcp_linger_release(struct tcp_linger *l)
{
	sock_release(l->sock);
	kfree(l);
}

static void tcp_linger_work(struct work_struct *work)
{
	struct tcp_linger *l = container_of(to_delayed_work(work),
					    struct tcp_linger, work);
	unsigned long now = jiffies;

	spin_lock(&sw_ddp_tcp_eps_lock);
	if (list_empty(&l->all)) {	/* not yet ours, or module exit's */
		spin_unlock(&sw_ddp_tcp_eps_lock);
		return;
	}
	if (tcp_sock_closing(l->sock->sk) && time_before(now, l->deadline)) {
		queue_delayed_work(sw_ddp_tcp_wq, &l->work, l->deadline - now);
		spin_unlock(&sw_ddp_tcp_eps_lock);
		return;
	}
	list_del_init(&l->all);
	spin_unlock(&sw_ddp_tcp_eps_lock);
	tcp_linger_detach(l);
	cancel_delayed_work(&l->work);	/* a state change's, meanwhile */
	tcp_linger_release(l);
}

/* Close @sock gracefully; its callbacks are the socket's own again. */
static void tcp_sock_close_graceful(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct tcp_linger *l = NULL;

	kernel_sock_shutdown(sock, SHUT_WR);
	if (tcp_sock_closing(sk))
		l = kzalloc(sizeof(*l), GFP_KERNEL);
	/*
	 * Nothing to wait for (a listener, a reset), or no memory to wait
	 * with: closed at once, as before the linger.
	 */
	if (!l) {
		kernel_sock_shutdown(sock, SHUT_RDWR);
		sock_release(sock);
		return;
	}
	l->sock = sock;
	l->deadline = jiffies + msecs_to_jiffies(SW_DDP_TCP_LINGER_MS);
	INIT_DELAYED_WORK(&l->work, tcp_linger_work);
	INIT_LIST_HEAD(&l->all);
	write_lock_bh(&sk->sk_callback_lock);
	l->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = l;
	sk->sk_state_change = tcp_linger_state_change;
	write_unlock_bh(&sk->sk_callback_lock);

	/* the first run looks at the state: the FIN may be acked by now */
	spin_lock(&sw_ddp_tcp_eps_lock);
	list_add(&l->all, &sw_ddp_tcp_lingering);
	queue_delayed_work(sw_ddp_tcp_wq, &l->work, 0);
	spin_unlock(&sw_ddp_tcp_eps_lock);
}

/* Module exit: what still lingers is closed now, as a close() would. */
static void tcp_linger_flush(void)
{
	struct tcp_linger *l;

	for (;;) {
		spin_lock(&sw_ddp_tcp_eps_lock);
		l = list_first_entry_or_null(&sw_ddp_tcp_lingering,
					     struct tcp_linger, all);
		if (l)
			list_del_init(&l->all);
		spin_unlock(&sw_ddp_tcp_eps_lock);
		if (!l)
			return;
		tcp_linger_detach(l);
		cancel_delayed_work_sync(&l->work);
		tcp_linger_release(l);
	}
}

/* Give the socket its callbacks back and close it (RST if @abortive). */
static void tcp_ep_release_sock(struct sw_ddp_tcp_ep *ep, bool abortive)
{
	struct socket *sock = ep->sock;
	struct sock *sk;

	if (!sock)
		return;
	/* no sender left on the socket */
	sw_ddp_tcp_data_stop(ep, abortive);
	sk = sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_state_change = ep->saved_state_change;
	sk->sk_data_ready = ep->saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	WRITE_ONCE(ep->sock, NULL);	/* tx_room() reads it under RCU */

	if (abortive) {
		sock_no_linger(sk);
		sock_release(sock);
	} else {
		tcp_sock_close_graceful(sock);
	}
	kref_put(&ep->ref, tcp_ep_release);	/* the association's */
}

static int tcp_sock_create(struct net *net, int family, struct socket **sockp)
{
	int err;

	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	/*
	 * kern == 0: like a user's socket, it holds a reference on @net,
	 * which may therefore not go away under an RDMA connection.
	 */
	err = __sock_create(net, family, SOCK_STREAM, IPPROTO_TCP, sockp, 0);
	if (err)
		return err;
	sock_set_reuseaddr((*sockp)->sk);
	/*
	 * TCP's urgent mark (RFC 6093) means nothing to MPA; the octet it
	 * marks is the stream's like any other, so it stays in line rather
	 * than being taken out of it.  Accepted sockets inherit the flag.
	 */
	sock_set_flag((*sockp)->sk, SOCK_URGINLINE);
	return 0;
}

static int tcp_addr_len(const struct sockaddr_storage *addr)
{
	return addr->ss_family == AF_INET ? sizeof(struct sockaddr_in) :
					    sizeof(struct sockaddr_in6);
}

static bool tcp_addr_any(const struct sockaddr_storage *addr)
{
	if (addr->ss_family == AF_INET)
		return ((const struct sockaddr_in *)addr)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return ipv6_addr_any(&((const struct sockaddr_in6 *)addr)->sin6_addr);
}

static int tcp_sock_bind(struct socket *sock,
			 const struct sockaddr_storage *addr, bool v6only)
{
	int err;

	if (v6only && addr->ss_family == AF_INET6) {
		err = ip6_sock_set_v6only(sock->sk);
		if (err)
			return err;
	}
	return kernel_bind(sock, (struct sockaddr *)addr, tcp_addr_len(addr));
}

/**
 * sw_ddp_tcp_listen() - listen for MPA connections
 * @net: network namespace of the device
 * @addr: IPv4 or IPv6 address and port, possibly the wildcard
 * @backlog: TCP backlog, and how many connections may wait for a Request
 * @ifindex: for a wildcard @addr, the only interface to accept on (0: any)
 * @v6only: an IPv6 wildcard does not take IPv4 connections
 * @timeout: jiffies an accepted connection has to send its MPA Request
 * @ops: upcalls; ops->request for each valid Request
 * @owner: the owner's, in ep->owner
 * @epp: the listening endpoint, one reference for the caller
 *
 * Return: 0 or a negative errno.
 */
int sw_ddp_tcp_listen(struct net *net, const struct sockaddr_storage *addr,
		      int backlog, int ifindex, bool v6only,
		      unsigned long timeout, const struct sw_ddp_tcp_ep_ops *ops,
		      void *owner, struct sw_ddp_tcp_ep **epp)
{
	struct sw_ddp_tcp_ep *ep;
	struct socket *sock;
	int err;

	err = tcp_sock_create(net, addr->ss_family, &sock);
	if (err)
		return err;
	if (ifindex && tcp_addr_any(addr))
		sock->sk->sk_bound_dev_if = ifindex;
	err = tcp_sock_bind(sock, addr, v6only);
	if (err)
		goto err_sock;
	ep = tcp_ep_alloc(net, timeout, ops, owner);
	if (!ep) {
		err = -ENOMEM;
		goto err_sock;
	}
	ep->state = SW_DDP_TCP_LISTEN;
	ep->max_children = max(backlog, 1);
	tcp_ep_attach_sock(ep, sock, NULL);
	err = kernel_listen(sock, backlog);
	if (err) {
		mutex_lock(&ep->mutex);
		ep->state = SW_DDP_TCP_CLOSED;
		tcp_ep_release_sock(ep, true);
		mutex_unlock(&ep->mutex);
		sw_ddp_tcp_put(ep);
		return err;
	}
	*epp = ep;
	return 0;

err_sock:
	sock_release(sock);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_tcp_listen);

/*
 * A Reply may go from the owner's call, in the process of whoever
 * answers (rdma_reject() through rdma_ucm): a socket the peer reset
 * after its FIN fails with -EPIPE, and that process is not to be sent
 * SIGPIPE for it.
 */
static int tcp_send_frame(struct sw_ddp_tcp_ep *ep, const u8 *buf, u16 len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	int sent;

	/* A fresh connection's send buffer always takes <= 532 octets. */
	sent = kernel_sendmsg(ep->sock, &msg, &iov, 1, len);
	if (sent < 0)
		return sent;
	return sent == len ? 0 : -EIO;
}

static u32 tcp_seq(struct sw_ddp_tcp_ep *ep, bool tx)
{
	struct sock *sk = ep->sock->sk;
	u32 seq;

	lock_sock(sk);
	seq = tx ? tcp_sk(sk)->write_seq : tcp_sk(sk)->copied_seq;
	release_sock(sk);
	return seq;
}

/*
 * Read (more of) the peer's frame, never past its end: FPDUs may follow
 * at once.  Return: 0 when complete, -EAGAIN for more, or an error.
 */
static int tcp_recv_frame(struct sw_ddp_tcp_ep *ep, bool reply)
{
	const struct mpa_rr_hdr *h = (const void *)ep->rx_frame;
	const char *key = reply ? MPA_KEY_REP : MPA_KEY_REQ;
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	u32 want = sizeof(*h);
	struct kvec iov;
	int n;

	for (;;) {
		if (ep->rx_len >= sizeof(*h)) {
			/* RFC 5044: check the key and PD_Length early */
			if (memcmp(h->key, key, MPA_KEY_LEN) ||
			    mpa_rr_pd_len(h) > MPA_PD_MAX)
				return -EPROTO;
			want = sizeof(*h) + mpa_rr_pd_len(h);
		}
		if (ep->rx_len == want)
			return 0;
		iov.iov_base = ep->rx_frame + ep->rx_len;
		iov.iov_len = want - ep->rx_len;
		n = kernel_recvmsg(ep->sock, &msg, &iov, 1, iov.iov_len,
				   MSG_DONTWAIT);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0)
			return n;
		ep->rx_len += n;
	}
}

static int tcp_take_frame(struct sw_ddp_tcp_ep *ep, bool reply)
{
	int err = tcp_recv_frame(ep, reply);

	if (err)
		return err;
	if (!sw_ddp_term_err_ok(mpa_rr_validate(ep->rx_frame, ep->rx_len,
						reply, &ep->peer)))
		return -EPROTO;
	return 0;
}

/**
 * sw_ddp_tcp_connect() - open a TCP connection and start the MPA exchange
 * @net: network namespace of the device
 * @laddr: local address to bind (port 0: any)
 * @raddr: the responder
 * @v6only: no IPv4-mapped addresses
 * @offer: what the MPA Request asks for; its private data is copied
 * @timeout: jiffies from now to a valid Reply
 * @ops: upcalls; ops->connected reports the outcome, exactly once
 * @owner: the owner's, in ep->owner
 * @epp: the endpoint, one reference for the caller
 *
 * Return: 0 (the outcome follows through ops->connected, possibly before
 * this returns) or a negative errno and no upcall.
 */
int sw_ddp_tcp_connect(struct net *net, const struct sockaddr_storage *laddr,
		       const struct sockaddr_storage *raddr, bool v6only,
		       const struct sw_ddp_mpa_cfg *offer,
		       unsigned long timeout,
		       const struct sw_ddp_tcp_ep_ops *ops, void *owner,
		       struct sw_ddp_tcp_ep **epp)
{
	struct mpa_rr_info req;
	struct sw_ddp_tcp_ep *ep;
	struct socket *sock;
	int err;

	if (laddr->ss_family != raddr->ss_family)
		return -EINVAL;
	ep = tcp_ep_alloc(net, timeout, ops, owner);
	if (!ep)
		return -ENOMEM;
	ep->local = *offer;
	sw_ddp_mpa_offer(offer, &req);
	err = mpa_rr_build(ep->tx_frame, sizeof(ep->tx_frame), &req, false);
	if (err < 0)
		goto err_ep;
	ep->tx_len = err;
	ep->local.pdata = NULL;	/* the frame has the only copy */

	err = tcp_sock_create(net, raddr->ss_family, &sock);
	if (err)
		goto err_ep;
	err = tcp_sock_bind(sock, laddr, v6only);
	if (err)
		goto err_sock;
	tcp_sock_set_nodelay(sock->sk);

	mutex_lock(&ep->mutex);
	tcp_ep_attach_sock(ep, sock, NULL);
	ep->state = SW_DDP_TCP_CONNECTING;
	ep->deadline = jiffies + timeout;
	err = kernel_connect(sock, (struct sockaddr *)raddr,
			     tcp_addr_len(raddr), O_NONBLOCK);
	if (err && err != -EINPROGRESS) {
		ep->state = SW_DDP_TCP_CLOSED;
		tcp_ep_release_sock(ep, true);
		mutex_unlock(&ep->mutex);
		goto err_ep;
	}
	/* Whatever TCP did meanwhile, the work looks at it. */
	set_bit(SW_DDP_TCP_EV_STATE, &ep->events);
	tcp_ep_kick(ep, 0);
	mutex_unlock(&ep->mutex);
	*epp = ep;
	return 0;

err_sock:
	sock_release(sock);
err_ep:
	sw_ddp_tcp_put(ep);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_tcp_connect);

/* Under l->mutex: @ep off its listener's list; was it on it? */
static bool tcp_ep_unlist_child(struct sw_ddp_tcp_ep *ep,
				struct sw_ddp_tcp_ep *l)
{
	bool linked = !list_empty(&ep->child);

	list_del_init(&ep->child);
	/* a full listener takes the next one from TCP's accept queue */
	if (linked && l->nchildren-- == l->max_children &&
	    l->state == SW_DDP_TCP_LISTEN)
		tcp_ep_kick(l, 0);
	return linked;
}

/* After tcp_ep_unlist_child(), its lock dropped: what the link held. */
static void tcp_ep_drop_listener(struct sw_ddp_tcp_ep *ep, bool linked)
{
	struct sw_ddp_tcp_ep *l = ep->listener;

	ep->listener = NULL;
	if (linked)
		sw_ddp_tcp_put(ep);	/* the list's */
	sw_ddp_tcp_put(l);
}

/* Leave the listener's list; the child's reference on it goes too. */
static void tcp_ep_unlink_child(struct sw_ddp_tcp_ep *ep)
{
	struct sw_ddp_tcp_ep *l = ep->listener;
	bool linked;

	if (!l)
		return;
	mutex_lock_nested(&l->mutex, SINGLE_DEPTH_NESTING);
	linked = tcp_ep_unlist_child(ep, l);
	mutex_unlock(&l->mutex);
	tcp_ep_drop_listener(ep, linked);
}

/* Under ep->mutex: the end of the endpoint as far as TCP goes. */
static void tcp_ep_shut(struct sw_ddp_tcp_ep *ep, bool abortive)
{
	ep->state = SW_DDP_TCP_CLOSED;
	if (cancel_delayed_work(&ep->work))
		kref_put(&ep->ref, tcp_ep_release);	/* the run's; not last */
	tcp_ep_release_sock(ep, abortive);
	tcp_ep_unlink_child(ep);
}

/* Active side: report the failure once, then close. */
static void tcp_ep_connect_failed(struct sw_ddp_tcp_ep *ep, int status)
{
	if (status != -ECONNREFUSED)
		ep->peer.pdata_len = 0;
	ep->ops->connected(ep, status);
	tcp_ep_shut(ep, status != -ECONNREFUSED);
}

/*
 * Active side, RFC 6581 §8: a Reply we cannot live with, in a way the RFC
 * has a code for.  The stream is in FPDU mode by now, so a Terminate says
 * why, and the close is graceful to let it out.
 */
static void tcp_ep_connect_terminated(struct sw_ddp_tcp_ep *ep, int status,
				      struct sw_ddp_term_err term)
{
	sw_ddp_tcp_send_term(ep, term);
	ep->peer.pdata_len = 0;
	ep->ops->connected(ep, status);
	tcp_ep_shut(ep, false);
}

static void tcp_ep_connecting(struct sw_ddp_tcp_ep *ep)
{
	struct sock *sk = ep->sock->sk;
	int err;

	switch (READ_ONCE(sk->sk_state)) {
	case TCP_ESTABLISHED:
		err = tcp_send_frame(ep, ep->tx_frame, ep->tx_len);
		if (err) {
			tcp_ep_connect_failed(ep, -ECONNRESET);
			return;
		}
		ep->conn.tx_marker_base = tcp_seq(ep, true);
		ep->state = SW_DDP_TCP_AWAIT_REP;
		/* the Reply may be in already */
		set_bit(SW_DDP_TCP_EV_RX, &ep->events);
		break;
	case TCP_SYN_SENT:
		break;
	default:
		err = sock_error(sk);
		if (err != -ECONNREFUSED && err != -ETIMEDOUT)
			err = -ECONNRESET;
		tcp_ep_connect_failed(ep, err);
	}
}

static void tcp_ep_got_reply(struct sw_ddp_tcp_ep *ep)
{
	u32 tx_base = ep->conn.tx_marker_base;
	struct sw_ddp_term_err term;
	int err;

	if (ep->peer.flags & MPA_FLAG_R) {
		/* RFC 5044: rejected; its private data goes to the ULP */
		tcp_ep_connect_failed(ep, -ECONNREFUSED);
		return;
	}
	err = sw_ddp_mpa_conclude(&ep->local, &ep->peer, &ep->conn, &term);
	ep->conn.tx_marker_base = tx_base;
	ep->conn.rx_marker_base = tcp_seq(ep, false);
	if (err && !sw_ddp_term_err_ok(term)) {
		tcp_ep_connect_terminated(ep, err, term);
		return;
	}
	if (err) {
		tcp_ep_connect_failed(ep, err);
		return;
	}
	/* RFC 6581 §9.2: the data path sends the RTR before anything else */
	ep->llp.rtr_send = ep->conn.rtr_send ? ep->conn.rtr : SW_DDP_RTR_NONE;
	ep->state = SW_DDP_TCP_RDMA;
	if (ep->ops->connected(ep, 0)) {
		tcp_ep_shut(ep, true);
		return;
	}
	/*
	 * A peer gone right after its Reply: that state change may have
	 * been this run's, taken before it was in RDMA mode to act on it.
	 */
	set_bit(SW_DDP_TCP_EV_STATE, &ep->events);
	tcp_ep_kick(ep, 0);
}

static void tcp_ep_await_rep(struct sw_ddp_tcp_ep *ep)
{
	int err = tcp_take_frame(ep, true);

	if (err == -EAGAIN)
		return;
	if (err)
		tcp_ep_connect_failed(ep, err == -EPROTO ? -EPROTO :
						      -ECONNRESET);
	else
		tcp_ep_got_reply(ep);
}

/* Passive side: a whole, valid Request is in; the owner takes it or not. */
static void tcp_ep_got_request(struct sw_ddp_tcp_ep *ep)
{
	struct sw_ddp_tcp_ep *l = ep->listener;
	int err = -ECONNABORTED;
	bool linked;

	ep->conn.rx_marker_base = tcp_seq(ep, false);
	mutex_lock_nested(&l->mutex, SINGLE_DEPTH_NESTING);
	linked = !list_empty(&ep->child);
	if (linked && l->state == SW_DDP_TCP_LISTEN) {
		ep->state = SW_DDP_TCP_GOT_REQ;
		ep->deadline = jiffies + SW_DDP_TCP_ANSWER_TIMEOUTS * ep->timeout;
		err = l->ops->request(l, ep);
		/*
		 * The owner has it now: off the list in the same hold, or
		 * the listener's close would reset it as one no owner saw.
		 */
		if (!err)
			tcp_ep_unlist_child(ep, l);
	}
	mutex_unlock(&l->mutex);
	if (err)
		tcp_ep_shut(ep, true);
	else
		tcp_ep_drop_listener(ep, linked);
}

static void tcp_ep_await_req(struct sw_ddp_tcp_ep *ep)
{
	int err = tcp_take_frame(ep, false);

	if (err == -EAGAIN)
		return;
	if (err)
		tcp_ep_shut(ep, true);	/* nobody knew of it */
	else
		tcp_ep_got_request(ep);
}

static bool tcp_ep_timed(const struct sw_ddp_tcp_ep *ep)
{
	switch (ep->state) {
	case SW_DDP_TCP_CONNECTING:
	case SW_DDP_TCP_AWAIT_REP:
	case SW_DDP_TCP_AWAIT_REQ:
	case SW_DDP_TCP_GOT_REQ:
		return true;
	case SW_DDP_TCP_RDMA:
		return ep->conn.rtr_wait;
	default:
		return false;
	}
}

/* RDMA mode: let the owner know, once, and close. */
static void tcp_ep_rdma_closed(struct sw_ddp_tcp_ep *ep,
			       enum sw_ddp_tcp_close why, bool abortive)
{
	ep->state = SW_DDP_TCP_CLOSED;
	tcp_ep_release_sock(ep, abortive);
	if (why == SW_DDP_TCP_PEER_FIN && sw_ddp_tcp_data_cut_short(ep))
		why = SW_DDP_TCP_PEER_RESET;	/* lost inside an FPDU */
	ep->ops->closed(ep, ep->rtr_expired ? SW_DDP_TCP_RTR_TIMEOUT : why);
}

/*
 * A peer-to-peer responder's RTR did not come within the timeout.  The
 * data path terminates the stream (Local Catastrophic Error) and the QP
 * closes it, gracefully, so the Terminate reaches the peer; the owner
 * hears SW_DDP_TCP_RTR_TIMEOUT either way.  Without a data path to do
 * it, or if the close does not follow within another timeout: a reset.
 */
static void tcp_ep_rtr_timeout(struct sw_ddp_tcp_ep *ep)
{
	int err = -ETIMEDOUT;

	if (!ep->rtr_expired)
		err = sw_ddp_tcp_data_rtr_expired(ep);
	if (err == -EALREADY)
		return;		/* the RTR's event runs the work again */
	if (!err) {
		ep->rtr_expired = true;
		ep->deadline = jiffies + ep->timeout;
		return;
	}
	tcp_ep_rdma_closed(ep, SW_DDP_TCP_RTR_TIMEOUT, true);
}

static void tcp_ep_timeout(struct sw_ddp_tcp_ep *ep)
{
	switch (ep->state) {
	case SW_DDP_TCP_CONNECTING:
	case SW_DDP_TCP_AWAIT_REP:
		tcp_ep_connect_failed(ep, -ETIMEDOUT);
		break;
	case SW_DDP_TCP_RDMA:
		tcp_ep_rtr_timeout(ep);
		break;
	default:
		/*
		 * AWAIT_REQ: no Request.  GOT_REQ: no answer, and none may
		 * ever come (iw_cm drops the request's event if the
		 * listener's cm_id is going); the socket goes, the endpoint
		 * stays for a late answer, which finds it reset.
		 */
		tcp_ep_shut(ep, true);
	}
}

static void tcp_ep_rdma(struct sw_ddp_tcp_ep *ep, unsigned long ev)
{
	int st = READ_ONCE(ep->sock->sk->sk_state);

	if ((ev & BIT(SW_DDP_TCP_EV_RTR)) && ep->conn.rtr_wait) {
		ep->conn.rtr_wait = false;
		ep->ops->rtr(ep);
	}
	if (ev & BIT(SW_DDP_TCP_EV_RESET))
		tcp_ep_rdma_closed(ep, SW_DDP_TCP_LOCAL, true);
	else if (ev & BIT(SW_DDP_TCP_EV_CLOSE))
		tcp_ep_rdma_closed(ep, SW_DDP_TCP_LOCAL, false);
	else if (st == TCP_CLOSE_WAIT)
		tcp_ep_rdma_closed(ep, SW_DDP_TCP_PEER_FIN, false);
	else if (st != TCP_ESTABLISHED)
		tcp_ep_rdma_closed(ep, SW_DDP_TCP_PEER_RESET, true);
}

static void tcp_ep_accept_one(struct sw_ddp_tcp_ep *l, struct socket *sock)
{
	struct sw_ddp_tcp_ep *ep = tcp_ep_alloc(l->net, l->timeout, l->ops,
						l->owner);

	if (!ep) {
		sock_release(sock);
		return;
	}
	tcp_sock_set_nodelay(sock->sk);
	/* Not locked: nobody sees @ep before its socket callbacks do. */
	ep->state = SW_DDP_TCP_AWAIT_REQ;
	ep->deadline = jiffies + l->timeout;
	sw_ddp_tcp_get(l);
	ep->listener = l;
	sw_ddp_tcp_get(ep);			/* the list's */
	list_add_tail(&ep->child, &l->children);
	l->nchildren++;
	tcp_ep_attach_sock(ep, sock, l);
	set_bit(SW_DDP_TCP_EV_RX, &ep->events);	/* may be in already */
	tcp_ep_kick(ep, 0);
	sw_ddp_tcp_put(ep);
}

/*
 * Listener: take the connections TCP has completed, as long as fewer
 * than its backlog wait for their Request.  A peer that connects and
 * sends nothing holds a child until the MPA timeout; the rest wait in
 * TCP's accept queue, which the backlog bounds too.
 */
static void tcp_ep_listen(struct sw_ddp_tcp_ep *l)
{
	struct socket *sock;

	while (l->nchildren < l->max_children &&
	       !kernel_accept(l->sock, &sock, O_NONBLOCK))
		tcp_ep_accept_one(l, sock);
}

static void tcp_ep_step(struct sw_ddp_tcp_ep *ep, unsigned long ev)
{
	if (ev & BIT(SW_DDP_TCP_EV_ABORT) && ep->state != SW_DDP_TCP_CLOSED &&
	    ep->state != SW_DDP_TCP_RDMA) {
		tcp_ep_shut(ep, true);
		return;
	}
	switch (ep->state) {
	case SW_DDP_TCP_LISTEN:
		tcp_ep_listen(ep);
		break;
	case SW_DDP_TCP_CONNECTING:
		tcp_ep_connecting(ep);
		if (ep->state == SW_DDP_TCP_AWAIT_REP)
			tcp_ep_await_rep(ep);
		break;
	case SW_DDP_TCP_AWAIT_REP:
		tcp_ep_await_rep(ep);
		break;
	case SW_DDP_TCP_AWAIT_REQ:
		tcp_ep_await_req(ep);
		break;
	case SW_DDP_TCP_RDMA:
		tcp_ep_rdma(ep, ev);
		break;
	default:
		break;	/* GOT_REQ: the owner acts; CLOSED: nothing to do */
	}
	if (tcp_ep_timed(ep) && time_after_eq(jiffies, ep->deadline))
		tcp_ep_timeout(ep);
}

static void tcp_ep_work(struct work_struct *work)
{
	struct sw_ddp_tcp_ep *ep = container_of(to_delayed_work(work),
						struct sw_ddp_tcp_ep, work);

	mutex_lock(&ep->mutex);
	tcp_ep_step(ep, xchg(&ep->events, 0));
	if (tcp_ep_timed(ep))
		tcp_ep_kick(ep, max_t(long, ep->deadline - jiffies, 1));
	mutex_unlock(&ep->mutex);
	sw_ddp_tcp_put(ep);	/* the run's */
}

/**
 * sw_ddp_tcp_accept() - answer a Request (state GOT_REQ)
 * @ep: the endpoint ops->request gave the owner, its mutex held
 * @local: what we accept with; private data is copied
 *
 * Negotiates and builds the Reply into ep->conn and ep->tx_frame but does
 * not send it: the owner sends it with sw_ddp_tcp_send_reply(), then
 * attaches its QP.  What the initiator sends once it has the Reply waits
 * in the socket until the data path starts.
 *
 * Return: 0; -ECONNRESET if the connection is gone; -EINVAL for too much
 * private data.  On error the endpoint is closed.
 */
int sw_ddp_tcp_accept(struct sw_ddp_tcp_ep *ep,
		      const struct sw_ddp_mpa_cfg *local)
{
	u32 rx_base = ep->conn.rx_marker_base;
	struct mpa_rr_info rep;
	int err;

	lockdep_assert_held(&ep->mutex);
	if (ep->state != SW_DDP_TCP_GOT_REQ || !ep->sock ||
	    READ_ONCE(ep->sock->sk->sk_state) != TCP_ESTABLISHED) {
		err = -ECONNRESET;
		goto err_close;
	}
	sw_ddp_mpa_answer(&ep->peer, local, &rep, &ep->conn);
	/* RFC 6581 §9.2: the data path sends nothing before the RTR */
	ep->llp.rtr_wait = ep->conn.rtr_wait ? ep->conn.rtr : SW_DDP_RTR_NONE;
	err = mpa_rr_build(ep->tx_frame, sizeof(ep->tx_frame), &rep, true);
	if (err < 0)
		goto err_close;
	ep->tx_len = err;
	ep->conn.rx_marker_base = rx_base;
	ep->conn.tx_marker_base = tcp_seq(ep, true) + ep->tx_len;
	return 0;

err_close:
	tcp_ep_shut(ep, true);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_tcp_accept);

/**
 * sw_ddp_tcp_send_reply() - send the Reply sw_ddp_tcp_accept() built
 * @ep: the endpoint, its mutex held
 *
 * Return: 0, the stream is in RDMA mode (and waits for the RTR if
 * ep->conn.rtr_wait); or an error and the endpoint is closed.
 */
int sw_ddp_tcp_send_reply(struct sw_ddp_tcp_ep *ep)
{
	int err = -ECONNRESET;

	lockdep_assert_held(&ep->mutex);
	if (ep->state == SW_DDP_TCP_GOT_REQ && ep->sock)
		err = tcp_send_frame(ep, ep->tx_frame, ep->tx_len);
	if (err) {
		tcp_ep_shut(ep, true);
		return err;
	}
	ep->state = SW_DDP_TCP_RDMA;
	ep->deadline = jiffies + ep->timeout;	/* for the RTR, if awaited */
	/* a peer gone meanwhile is seen by the work */
	set_bit(SW_DDP_TCP_EV_STATE, &ep->events);
	tcp_ep_kick(ep, 0);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_tcp_send_reply);

/**
 * sw_ddp_tcp_reject() - refuse a Request (state GOT_REQ) and close
 * @ep: the endpoint, its mutex held
 * @pdata: private data for the peer
 * @pdata_len: its length
 *
 * RFC 5044: a Reply with R set, of the Request's revision, then a
 * graceful close.
 *
 * Return: 0, -ECONNRESET if the connection was gone, -EINVAL for too much
 * private data.  The endpoint is closed in any case.
 */
int sw_ddp_tcp_reject(struct sw_ddp_tcp_ep *ep, const void *pdata,
		      u16 pdata_len)
{
	struct mpa_rr_info rep = {
		.flags = MPA_FLAG_R | (ep->peer.flags & MPA_FLAG_C),
		.rev = ep->peer.rev,
		.pdata = pdata,
		.pdata_len = pdata_len,
	};
	int err = -ECONNRESET;

	lockdep_assert_held(&ep->mutex);
	if (ep->state == SW_DDP_TCP_GOT_REQ && ep->sock) {
		if (mpa_rr_enhanced(&ep->peer))
			rep.flags |= MPA_FLAG_ENHANCED;
		err = mpa_rr_build(ep->tx_frame, sizeof(ep->tx_frame), &rep,
				   true);
		if (err >= 0)
			err = tcp_send_frame(ep, ep->tx_frame, err);
	}
	tcp_ep_shut(ep, !!err);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_tcp_reject);

/* Listener: stop, and drop the children no owner has seen. */
static void tcp_ep_close_listener(struct sw_ddp_tcp_ep *l)
{
	struct sw_ddp_tcp_ep *ep, *tmp;
	LIST_HEAD(orphans);

	list_splice_init(&l->children, &orphans);
	l->nchildren = 0;
	l->state = SW_DDP_TCP_CLOSED;
	tcp_ep_release_sock(l, false);
	list_for_each_entry_safe(ep, tmp, &orphans, child) {
		list_del_init(&ep->child);
		tcp_ep_event(ep, SW_DDP_TCP_EV_ABORT);
		sw_ddp_tcp_put(ep);	/* the list's */
	}
}

/**
 * sw_ddp_tcp_close() - the owner lets go of an endpoint
 * @ep: the endpoint, its mutex held
 * @abortive: reset the connection rather than close it
 *
 * No upcall follows.  The caller still holds its reference.
 */
void sw_ddp_tcp_close(struct sw_ddp_tcp_ep *ep, bool abortive)
{
	lockdep_assert_held(&ep->mutex);
	if (ep->state == SW_DDP_TCP_LISTEN)
		tcp_ep_close_listener(ep);
	else if (ep->state != SW_DDP_TCP_CLOSED)
		tcp_ep_shut(ep, abortive);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_tcp_close);

/*
 * The data path asks the socket's MSS and send-buffer room holding none of
 * the endpoint's locks, while the endpoint's work may be releasing the
 * socket (before the QP's stream stops).  struct socket is freed after an
 * RCU grace period and TCP socks are SLAB_TYPESAFE_BY_RCU: under
 * rcu_read_lock() both may be read, and a sock being reused meanwhile only
 * spoils an estimate.  NULL once the socket is going.
 */
static struct sock *tcp_ep_sk_rcu(struct sw_ddp_tcp_ep *ep)
{
	struct socket *sock = READ_ONCE(ep->sock);

	return sock ? READ_ONCE(sock->sk) : NULL;
}

/* llp ops: what the data path calls, any context. */
static u32 tcp_llp_max_segment(struct sw_ddp_llp *llp)
{
	struct sw_ddp_tcp_ep *ep = llp_to_tcp_ep(llp);
	struct sock *sk;
	u32 mss = 0;

	rcu_read_lock();
	sk = tcp_ep_sk_rcu(ep);
	if (sk)
		mss = READ_ONCE(tcp_sk(sk)->mss_cache);
	rcu_read_unlock();
	/* 0 once the socket is going: the stream is closing (llp.h) */
	return mpa_mulpdu(mss, ep->conn.tx_markers);
}

static u32 tcp_llp_tx_room(struct sw_ddp_llp *llp)
{
	struct sock *sk;
	int room = 0;

	rcu_read_lock();
	sk = tcp_ep_sk_rcu(llp_to_tcp_ep(llp));
	if (sk)
		room = sk_stream_wspace(sk);
	rcu_read_unlock();
	return room > 0 ? room : 0;
}

static void tcp_llp_close(struct sw_ddp_llp *llp, bool abortive)
{
	tcp_ep_event(llp_to_tcp_ep(llp), abortive ? SW_DDP_TCP_EV_RESET :
						    SW_DDP_TCP_EV_CLOSE);
}

static int tcp_llp_start(struct sw_ddp_llp *llp,
			 const struct sw_ddp_rx_ops *rx, void *upper,
			 unsigned int max_bv)
{
	return sw_ddp_tcp_data_start(llp_to_tcp_ep(llp), rx, upper, max_bv);
}

static void tcp_llp_stop(struct sw_ddp_llp *llp)
{
	sw_ddp_tcp_data_stop(llp_to_tcp_ep(llp), false);
}

static void tcp_llp_rx_sync(struct sw_ddp_llp *llp)
{
	sw_ddp_tcp_data_rx_sync(llp_to_tcp_ep(llp));
}

/*
 * The data path took the RFC 6581 RTR (any context); the owner hears of it
 * through ops->rtr, from the work.
 */
static void tcp_llp_rtr_received(struct sw_ddp_llp *llp)
{
	tcp_ep_event(llp_to_tcp_ep(llp), SW_DDP_TCP_EV_RTR);
}

static const struct sw_ddp_llp_ops sw_ddp_tcp_llp_ops = {
	.max_segment = tcp_llp_max_segment,
	.send_segment = sw_ddp_tcp_send_segment,
	.tx_room = tcp_llp_tx_room,
	.close = tcp_llp_close,
	.rx_sync = tcp_llp_rx_sync,
	.start = tcp_llp_start,
	.stop = tcp_llp_stop,
	.rtr_received = tcp_llp_rtr_received,
};

int sw_ddp_tcp_init(void)
{
	sw_ddp_tcp_wq = alloc_workqueue("sw_ddp_tcp", WQ_UNBOUND, 0);
	return sw_ddp_tcp_wq ? 0 : -ENOMEM;
}

/* Next endpoint with a socket still open, counted; NULL if none. */
static struct sw_ddp_tcp_ep *tcp_ep_next_open(void)
{
	struct sw_ddp_tcp_ep *ep, *found = NULL;

	spin_lock(&sw_ddp_tcp_eps_lock);
	list_for_each_entry(ep, &sw_ddp_tcp_eps, all) {
		if (READ_ONCE(ep->sock) && kref_get_unless_zero(&ep->ref)) {
			found = ep;
			break;
		}
	}
	spin_unlock(&sw_ddp_tcp_eps_lock);
	return found;
}

/*
 * Module exit, after the devices (and so every iw_cm id) are gone: wait
 * for the endpoints' last runs.  One that an owner never let go of (the
 * iw_cm drops a CONNECT_REQUEST it could not deliver) is closed here so
 * that no socket is left calling into this module, and reported.
 */
void sw_ddp_tcp_exit(void)
{
	unsigned long timeout = msecs_to_jiffies(2 * SW_DDP_MPA_TIMEOUT_MS);
	struct sw_ddp_tcp_ep *ep;

	if (!wait_var_event_timeout(&sw_ddp_tcp_ep_count,
				    !atomic_read(&sw_ddp_tcp_ep_count),
				    timeout)) {
		while ((ep = tcp_ep_next_open())) {
			mutex_lock(&ep->mutex);
			sw_ddp_tcp_close(ep, true);
			mutex_unlock(&ep->mutex);
			sw_ddp_tcp_put(ep);
		}
		flush_workqueue(sw_ddp_tcp_wq);
		if (atomic_read(&sw_ddp_tcp_ep_count))
			pr_warn("sw_ddp: %d TCP endpoints leaked\n",
				atomic_read(&sw_ddp_tcp_ep_count));
	}
	tcp_linger_flush();
	destroy_workqueue(sw_ddp_tcp_wq);
}
