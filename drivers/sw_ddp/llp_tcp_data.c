// SPDX-License-Identifier: GPL-2.0
/*
 * The TCP LLP in RDMA mode: FPDUs in and out of the socket.
 *
 * Receive runs in the socket's data_ready callback (softirq, socket
 * locked): tcp_read_sock() hands over the skbs and mpa_rx pulls each
 * FPDU's octets straight out of them, the payload directly into the
 * target memory.  Transmit runs in the stream's work item: mpa_tx frames
 * a segment as bio_vecs and one sendmsg() takes them; TCP copies the
 * payload, so a completion may follow at once, unless the segment is
 * SW_DDP_SEG_ZCOPY (Read Responses), whose pages TCP then references.
 * A short Read Response may also go from data_ready itself
 * (SW_DDP_SEG_NOW), into the socket its Request came in on; what of it
 * the socket does not take there goes first from a work item.
 */
#include <linux/crc32c.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/tcp.h>
#include <kunit/visibility.h>

#include "compat.h"
#include "llp_tcp.h"
#include "rdmap.h"

/* The longest FPDU tcp_data_send_now() sends; longer ones wait. */
#define TCP_DATA_NOW_MAX	256

struct sw_ddp_tcp_data {
	struct mpa_rx rx;
	struct mpa_tx tx;
	const struct sw_ddp_rx_ops *ops;
	void *upper;
	struct sw_ddp_tcp_ep *ep;
	spinlock_t rx_lock;		/* held while reading; rx below */
	bool rx_dead;			/* an error stopped reception */

	struct mutex tx_lock;		/* one sendmsg at a time; stopped */
	bool stopped;			/* also under ep->mutex */
	bool stopping;			/* stop() shuts the socket down */
	int tx_err;			/* set under tx_lock: the rest failed */

	/*
	 * What the socket left of the last SW_DDP_SEG_NOW FPDU, @rest_len
	 * octets: sent, under tx_lock, before any other FPDU, by rest_work
	 * or by the engine's next send_segment(), whichever comes first.
	 * Set with the socket locked and the engine held; cleared under
	 * tx_lock once all of it is in the socket.  A graceful stop() waits
	 * for it (tcp_data_wait_rest()).
	 */
	struct work_struct rest_work;
	unsigned int rest_len;
	u8 rest[TCP_DATA_NOW_MAX];
};

static void tcp_data_rest_work(struct work_struct *work);

/*
 * Move the cursor to the piece holding s->off, after the current one; or
 * leave it NULL if s->off is still in the current one (not mapped) or in
 * no page fragment.
 */
static void tcp_skb_seek(struct sw_ddp_tcp_skb_in *s)
{
	const struct skb_shared_info *sh = skb_shinfo(s->skb);
	unsigned int start = s->cur_end, end;
	int i;

	s->cur = NULL;
	if (s->off < start)
		return;
	for (i = s->frag + 1; i < sh->nr_frags; i++) {
		end = start + skb_frag_size(&sh->frags[i]);
		if (s->off < end) {
			s->frag = i;
			s->cur_start = start;
			s->cur_end = end;
			/* NULL for highmem or memory without a page */
			s->cur = skb_frag_address_safe(&sh->frags[i]);
			return;
		}
		start = end;
	}
}

/*
 * The octets from s->off to the end of its piece, the cursor moved there
 * first; 0 if that piece is not mapped.
 */
static u32 tcp_skb_here(struct sw_ddp_tcp_skb_in *s, const u8 **p)
{
	if (s->off >= s->cur_end || !s->cur) {
		tcp_skb_seek(s);
		if (!s->cur)
			return 0;
	}
	*p = s->cur + (s->off - s->cur_start);
	return s->cur_end - s->off;
}

static int tcp_skb_read(struct mpa_rx_in *in, void *dst, u32 len)
{
	struct sw_ddp_tcp_skb_in *s;
	const u8 *p;
	u32 n;
	int err;

	s = container_of(in, struct sw_ddp_tcp_skb_in, in);
	while (len && (n = tcp_skb_here(s, &p))) {
		n = min(len, n);
		memcpy(dst, p, n);
		s->off += n;
		dst += n;
		len -= n;
	}
	if (!len)
		return 0;
	err = skb_copy_bits(s->skb, s->off, dst, len);
	if (!err)
		s->off += len;
	return err;
}

static u32 tcp_skb_mapped(struct mpa_rx_in *in, const u8 **p)
{
	return min(tcp_skb_here(container_of(in, struct sw_ddp_tcp_skb_in, in),
				p), in->avail);
}

static void tcp_skb_skip(struct mpa_rx_in *in, u32 len)
{
	container_of(in, struct sw_ddp_tcp_skb_in, in)->off += len;
}

/* TCP sequence number of the octet @pos after the input's next one */
static u32 tcp_skb_seq(const struct sw_ddp_tcp_skb_in *s, u32 pos)
{
	return TCP_SKB_CB(s->skb)->seq + s->off + pos;
}

/*
 * The skb queued after the input's that holds stream octet @seq, and
 * where in it; NULL if none does yet.  A socket's receive queue is in
 * stream order with no gap, but its skbs may overlap (one taken from the
 * out-of-order queue with its start received already).
 */
static const struct sk_buff *tcp_skb_find(const struct sw_ddp_tcp_skb_in *s,
					  u32 seq, u32 *off)
{
	struct sk_buff *n = (struct sk_buff *)s->skb;
	u32 start;

	if (!s->queue)
		return NULL;
	while ((n = skb_peek_next(n, s->queue))) {
		start = TCP_SKB_CB(n)->seq;
		if (before(seq, start))
			return NULL;
		if (before(seq, start + n->len)) {
			*off = seq - start;
			return n;
		}
	}
	return NULL;
}

/* mpa_rx_in.ahead: octets queued after the input's, up to @want at least */
static u32 tcp_skb_ahead(struct mpa_rx_in *in, u32 want)
{
	struct sw_ddp_tcp_skb_in *s;
	struct sk_buff *n;
	u32 from, end;

	s = container_of(in, struct sw_ddp_tcp_skb_in, in);
	n = (struct sk_buff *)s->skb;
	from = tcp_skb_seq(s, in->avail);
	end = from;
	while (end - from < want && (n = skb_peek_next(n, s->queue))) {
		if (after(TCP_SKB_CB(n)->seq, end))
			break;
		if (after(TCP_SKB_CB(n)->seq + n->len, end))
			end = TCP_SKB_CB(n)->seq + n->len;
	}
	return end - from;
}

/*
 * Where the octet @pos after the input's next one lies: in the input's
 * skb (@pos within @avail) or in one queued after it; NULL if it has not
 * been received.  *@at is its offset in that skb, *@n how many follow
 * it there.
 */
static const struct sk_buff *tcp_skb_locate(const struct sw_ddp_tcp_skb_in *s,
					    u32 pos, u32 *at, u32 *n)
{
	const struct sk_buff *skb = s->skb;

	if (pos < s->in.avail) {
		*at = s->off + pos;
		*n = s->in.avail - pos;
		return skb;
	}
	skb = tcp_skb_find(s, tcp_skb_seq(s, pos), at);
	if (skb)
		*n = skb->len - *at;
	return skb;
}

static int tcp_skb_peek(struct mpa_rx_in *in, u32 off, void *dst, u32 len)
{
	struct sw_ddp_tcp_skb_in *s;
	const struct sk_buff *skb;
	u32 at, n;
	int err;

	s = container_of(in, struct sw_ddp_tcp_skb_in, in);
	for (; len; len -= n, off += n, dst += n) {
		skb = tcp_skb_locate(s, off, &at, &n);
		if (!skb)
			return -ENODATA;
		n = min(len, n);
		err = skb_copy_bits(skb, at, dst, n);
		if (err)
			return err;
	}
	return 0;
}

/*
 * @len octets of one skb from the cursor @c on: piece by piece where
 * mapped, through a small buffer where not.
 */
static int tcp_skb_sum(struct sw_ddp_tcp_skb_in *c, u32 len, u32 *crc)
{
	u8 buf[128];
	const u8 *p;
	int err;
	u32 n;

	for (; len; len -= n, c->off += n) {
		n = tcp_skb_here(c, &p);
		if (n) {
			n = min(len, n);
		} else {
			n = min_t(u32, len, sizeof(buf));
			err = skb_copy_bits(c->skb, c->off, buf, n);
			if (err)
				return err;
			p = buf;
		}
		*crc = crc32c(*crc, p, n);
	}
	return 0;
}

/*
 * The input's skb on a copy of its cursor, then any queued after it on
 * cursors of their own: nothing is consumed.
 */
static int tcp_skb_crc(struct mpa_rx_in *in, u32 len, u32 *crc)
{
	struct sw_ddp_tcp_skb_in *s, c;
	const struct sk_buff *skb;
	u32 pos, at, n;
	int err;

	s = container_of(in, struct sw_ddp_tcp_skb_in, in);
	for (pos = 0; pos < len; pos += n) {
		skb = tcp_skb_locate(s, pos, &at, &n);
		if (!skb)
			return -ENODATA;
		n = min(len - pos, n);
		if (skb == s->skb)
			c = *s;
		else
			sw_ddp_tcp_skb_in_init(&c, skb, at, n);
		err = tcp_skb_sum(&c, n, crc);
		if (err)
			return err;
	}
	return 0;
}

/**
 * sw_ddp_tcp_skb_in_init() - mpa_rx input over part of an skb
 * @s: the input, its cursor at the linear part
 * @skb: the skb, as tcp_read_sock() hands it over
 * @off: the first octet to read
 * @len: how many octets there are to read
 */
void sw_ddp_tcp_skb_in_init(struct sw_ddp_tcp_skb_in *s,
			    const struct sk_buff *skb, unsigned int off,
			    size_t len)
{
	s->in.read = tcp_skb_read;
	s->in.mapped = tcp_skb_mapped;
	s->in.skip = tcp_skb_skip;
	s->in.peek = tcp_skb_peek;
	s->in.crc = tcp_skb_crc;
	s->in.ahead = NULL;
	s->in.hold = NULL;
	s->in.avail = len;
	s->skb = skb;
	s->off = off;
	s->frag = -1;
	s->cur = skb->data;
	s->cur_start = 0;
	s->cur_end = skb_headlen(skb);
	s->queue = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_tcp_skb_in_init);

/**
 * sw_ddp_tcp_skb_in_ahead() - let an input look past its skb
 * @s: the input, over the rest of its skb
 * @queue: the queue @s->skb is on, in stream order (a socket's receive
 *	   queue, locked), TCP_SKB_CB() seq set
 *
 * peek() and crc() then reach the octets of the skbs after it, as far
 * as ahead() says they go on without a gap.  An input cut short of its
 * skb's end (at an urgent mark) does not look ahead.
 */
void sw_ddp_tcp_skb_in_ahead(struct sw_ddp_tcp_skb_in *s,
			     const struct sk_buff_head *queue)
{
	if (s->off + s->in.avail != s->skb->len)
		return;
	s->queue = queue;
	s->in.ahead = tcp_skb_ahead;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_tcp_skb_in_ahead);

/* What tcp_data_read() hands its actor. */
struct tcp_data_reader {
	struct sw_ddp_tcp_data *d;
	const struct sock *sk;
};

/* The input tcp_data_recv() feeds mpa_rx: an skb on the socket's queue */
struct tcp_data_in {
	struct sw_ddp_tcp_skb_in skb;
	const struct sock *sk;
};

/*
 * mpa_rx_in.hold: an FPDU may stay unread, its CRC to be checked before
 * anything of it goes up, while its last @rest octets come in without
 * our reading: if the window TCP advertised has room for them (TCP does
 * not take back what it advertised, unless net.ipv4.tcp_shrink_window
 * lets it when memory runs short) and so has the receive buffer now.
 * Else mpa_rx copies it aside (its stage) as it arrives.  Once the
 * peer's FIN is in nothing more comes, and none of it is placed: the
 * close finds the stream cut short.
 */
static bool tcp_data_hold(struct mpa_rx_in *in, u32 rest)
{
	const struct sock *sk = container_of(in, struct tcp_data_in,
					     skb.in)->sk;

	if (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN)
		return true;
	return rest <= tcp_receive_window(tcp_sk(sk)) &&
	       rest <= (u32)max(tcp_space(sk), 0);
}

/*
 * tcp_read_sock() actor: every octet is consumed, framed or dropped, but
 * an FPDU left for the rest of it to come (tcp_data_hold()).
 */
static int tcp_data_recv(read_descriptor_t *desc, struct sk_buff *skb,
			 unsigned int off, size_t len)
{
	const struct tcp_data_reader *r = desc->arg.data;
	struct sw_ddp_tcp_data *d = r->d;
	struct sw_ddp_term_err err;
	struct tcp_data_in in;

	if (d->rx_dead)
		return len;	/* the stream is ending: drop */
	sw_ddp_tcp_skb_in_init(&in.skb, skb, off, len);
	sw_ddp_tcp_skb_in_ahead(&in.skb, &r->sk->sk_receive_queue);
	/*
	 * Not an input cut at an urgent mark: tcp_read_sock() offers no
	 * more until we read up to the mark, so the FPDU would never be
	 * whole in it (tcp_data_urg_clear()); mpa_rx stages it instead.
	 */
	if (in.skb.in.ahead)
		in.skb.in.hold = tcp_data_hold;
	in.sk = r->sk;
	err = mpa_rx_feed(&d->rx, &in.skb.in);
	if (!sw_ddp_term_err_ok(err)) {
		d->rx_dead = true;
		d->ops->error(d->upper, err);
		return len;
	}
	return len - in.skb.in.avail;
}

/*
 * A peer's urgent mark, in line (llp_tcp.c), is just a place in the
 * stream to MPA, but tcp_read_sock() stops there and leaves the mark for
 * recvmsg() to clear once it has read past: the stream would stall for
 * good, no Terminate, no error.  Reached, the mark is cleared as recvmsg()
 * clears it, and reading goes on.
 */
static bool tcp_data_urg_clear(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (likely(!READ_ONCE(tp->urg_data)) ||
	    tp->urg_seq != READ_ONCE(tp->copied_seq))
		return false;
	WRITE_ONCE(tp->urg_data, 0);
	tcp_fast_path_check(sk);
	return true;
}

/* Read all the socket holds; the socket locked, by its owner or softirq. */
static void tcp_data_read(struct sw_ddp_tcp_data *d, struct sock *sk)
{
	struct tcp_data_reader r = { .d = d, .sk = sk };
	read_descriptor_t desc = { .arg.data = &r, .count = 1 };

	spin_lock_bh(&d->rx_lock);
	do {
		tcp_read_sock(sk, &desc, tcp_data_recv);
	} while (unlikely(tcp_data_urg_clear(sk)));
	spin_unlock_bh(&d->rx_lock);
}

/*
 * ep->rx_ready: data_ready in RDMA mode, the socket locked, in softirq or
 * by the socket's owner.  Read where the data arrives, as siw does: over
 * veth that is the sender's softirq, which runs on the CPU the sender's
 * engine has to itself (stream.c sends bulk from the next CPU).  A work
 * item on another CPU reading bulk arrivals instead cost a wake-up there
 * per burst and lost (Documentation/performance.rst).
 */
static void tcp_data_rx_ready(struct sw_ddp_tcp_ep *ep)
{
	tcp_data_read(ep->data, ep->sock->sk);
}

/*
 * llp ops rx_sync: the reader that may be running has returned.  Without
 * ep->data no reader ran yet, and the first one will see the caller's
 * state change.
 */
void sw_ddp_tcp_data_rx_sync(struct sw_ddp_tcp_ep *ep)
{
	struct sw_ddp_tcp_data *d;

	/* the caller's QP state store before the load of ep->data */
	smp_mb();
	/* pairs with sw_ddp_tcp_data_start(): rx_lock initialised */
	d = smp_load_acquire(&ep->data);
	if (!d)
		return;
	spin_lock_bh(&d->rx_lock);
	spin_unlock_bh(&d->rx_lock);
}

/**
 * sw_ddp_tcp_data_start() - switch an endpoint to RDMA mode
 * @ep: the endpoint, after the MPA exchange (ep->conn is set)
 * @ops: the layer above's receive upcalls
 * @upper: their context
 * @max_payload_bv: most bio_vecs a segment's payload comes in
 *
 * FPDUs that arrived before are in the socket and are read now.
 *
 * Return: 0 or -ENOMEM.
 */
int sw_ddp_tcp_data_start(struct sw_ddp_tcp_ep *ep,
			  const struct sw_ddp_rx_ops *ops, void *upper,
			  unsigned int max_payload_bv)
{
	struct sw_ddp_mpa_conn *c = &ep->conn;
	struct sw_ddp_tcp_data *d = kzalloc(sizeof(*d), GFP_KERNEL);
	struct sock *sk = ep->sock->sk;
	int err;

	if (!d)
		return -ENOMEM;
	d->ops = ops;
	d->upper = upper;
	d->ep = ep;
	spin_lock_init(&d->rx_lock);
	mutex_init(&d->tx_lock);
	INIT_WORK(&d->rest_work, tcp_data_rest_work);
	err = mpa_tx_init(&d->tx, c->crc, c->tx_markers, c->tx_marker_base,
			  U16_MAX, max_payload_bv);
	if (err)
		goto free;
	err = mpa_rx_init(&d->rx, ops, upper, c->crc, c->rx_markers,
			  c->rx_marker_base);
	if (err)
		goto tx_fini;
	/* d set up before rx_sync sees it; pairs with its acquire */
	smp_store_release(&ep->data, d);

	lock_sock(sk);
	sw_ddp_sk_no_task_frag(sk);	/* tcp_data_send_now() */
	WRITE_ONCE(ep->rx_ready, tcp_data_rx_ready);
	tcp_data_read(d, sk);
	release_sock(sk);
	return 0;

tx_fini:
	mpa_tx_fini(&d->tx);
free:
	kfree(d);
	return err;
}

static bool tcp_data_rest_done(struct sw_ddp_tcp_data *d)
{
	return !READ_ONCE(d->rest_len) || READ_ONCE(d->tx_err);
}

/*
 * A FIN must not end the stream inside the SW_DDP_SEG_NOW FPDU whose rest
 * is still to go: the peer would take the close for a lost connection
 * (RFC 5044, "Connection lost": a stream ending partway through an
 * FPDU).  The rest waits for room, which the peer's reading makes; give
 * it as long as a lingering socket waits for the peer's ACK of our FIN.
 *
 * Return: false if the rest did not go (no room in time, or its send
 * failed): the stream has lost its framing, and ends with a reset.
 */
static bool tcp_data_wait_rest(struct sw_ddp_tcp_data *d)
{
	wait_var_event_timeout(&d->rest_len, tcp_data_rest_done(d),
			       msecs_to_jiffies(SW_DDP_TCP_LINGER_MS));
	return !READ_ONCE(d->rest_len);
}

/**
 * sw_ddp_tcp_data_stop() - leave RDMA mode, before the socket goes
 * @ep: the endpoint
 * @abortive: reset the connection; else shut it down (FIN)
 *
 * Once this returns no receive upcall runs and no segment is being sent;
 * a sender blocked on a full socket is woken by the shutdown or reset.
 * A reset goes out at once, with no FIN before it that the peer could
 * take for a graceful close.  A shutdown waits first, for at most
 * SW_DDP_TCP_LINGER_MS, for the rest of a SW_DDP_SEG_NOW FPDU still to
 * go; a reset instead if it does not go.
 */
void sw_ddp_tcp_data_stop(struct sw_ddp_tcp_ep *ep, bool abortive)
{
	struct sw_ddp_tcp_data *d = ep->data;
	struct sock *sk;

	/* rtr_expired() relies on it to read d->stopped */
	lockdep_assert_held(&ep->mutex);
	if (!d || d->stopped || !ep->sock)
		return;
	sk = ep->sock->sk;
	/*
	 * TCP takes a segment's FIN (tcp_fin(): the state change that may
	 * have brought the endpoint's work here) before it calls data_ready
	 * for the segment's data.  With the socket locked, a segment TCP is
	 * taking in has been read to the end, so data the peer sent before
	 * its FIN is not left unread.
	 */
	lock_sock(sk);
	write_lock_bh(&sk->sk_callback_lock);
	WRITE_ONCE(ep->rx_ready, NULL);
	write_unlock_bh(&sk->sk_callback_lock);
	release_sock(sk);

	/* no upcall sends a SW_DDP_SEG_NOW FPDU from here on */
	if (!abortive && !tcp_data_wait_rest(d))
		abortive = true;
	/* a sender the shutdown or reset cuts short says so: -ESHUTDOWN */
	WRITE_ONCE(d->stopping, true);
	if (abortive)
		tcp_abort(sk, ECONNRESET);
	else	/* not for receive: struct tcp_linger says why */
		kernel_sock_shutdown(ep->sock, SHUT_WR);
	mutex_lock(&d->tx_lock);
	d->stopped = true;
	mutex_unlock(&d->tx_lock);
}

/**
 * sw_ddp_tcp_data_cut_short() - did the peer's stream end inside an FPDU?
 * @ep: the endpoint, its mutex held, its data path stopped (so read up to
 *	the peer's FIN: sw_ddp_tcp_data_stop())
 *
 * RFC 5044 ("Connection lost"): a stream that ends partway through an
 * FPDU was lost, not closed.  One whose reception had failed already
 * ended with its error.
 */
bool sw_ddp_tcp_data_cut_short(struct sw_ddp_tcp_ep *ep)
{
	struct sw_ddp_tcp_data *d = ep->data;
	bool cut;

	lockdep_assert_held(&ep->mutex);
	if (!d)
		return false;
	spin_lock_bh(&d->rx_lock);
	cut = !d->rx_dead && !mpa_rx_idle(&d->rx);
	spin_unlock_bh(&d->rx_lock);
	return cut;
}

/**
 * sw_ddp_tcp_data_rtr_expired() - the peer's RFC 6581 RTR did not come
 * @ep: a peer-to-peer responder's endpoint in RDMA mode, its mutex held
 *
 * MPA ends the stream as it does for a framing error of its own:
 * reception stops, and the layer above sends a Terminate with MPA's
 * "Local Catastrophic Error" (RFC 6581 §8) and has the QP close the
 * stream.  The RTR, if the reader took it just now, wins.
 *
 * Return: 0, the Terminate is on its way; -EALREADY, the RTR arrived
 * (SW_DDP_TCP_EV_RTR is pending); -ENOTCONN, no reader to stop (none
 * started, stopped, or already failed): the caller closes.
 */
int sw_ddp_tcp_data_rtr_expired(struct sw_ddp_tcp_ep *ep)
{
	struct sw_ddp_tcp_data *d = ep->data;
	int err = -ENOTCONN;

	lockdep_assert_held(&ep->mutex);
	if (!d)
		return err;
	/*
	 * Not stopped while we call up: stop() runs under ep->mutex too.
	 * Not tx_lock: a sender may hold it for as long as the peer keeps
	 * its window shut, and only stop(), after us, would wake it.
	 */
	spin_lock_bh(&d->rx_lock);
	if (test_bit(SW_DDP_TCP_EV_RTR, &ep->events)) {
		err = -EALREADY;	/* the reader set it under rx_lock */
	} else if (!d->stopped && !d->rx_dead) {
		d->rx_dead = true;
		d->ops->error(d->upper, MPA_ERR_LOCAL_CATASTROPHIC);
		err = 0;
	}
	spin_unlock_bh(&d->rx_lock);
	return err;
}

void sw_ddp_tcp_data_free(struct sw_ddp_tcp_ep *ep)
{
	struct sw_ddp_tcp_data *d = ep->data;

	if (!d)
		return;
	ep->data = NULL;
	cancel_work_sync(&d->rest_work);
	mpa_tx_fini(&d->tx);
	mpa_rx_fini(&d->rx);
	kfree(d);
}

/*
 * May this piece of an FPDU go out by reference?  The payload's pages
 * may; our own header, marker, PAD and CRC buffers are slab memory that
 * the next FPDU reuses, and must be copied.
 */
static bool tcp_data_splice_ok(const struct bio_vec *bv)
{
	return sendpage_ok(bv->bv_page) && !PageSlab(bv->bv_page);
}

/* All that @msg holds to the socket, waiting for room as needed. */
static int tcp_data_send_msg(struct socket *sock, struct msghdr *msg)
{
	int n;

	while (msg_data_left(msg)) {
		n = sock_sendmsg(sock, msg);
		if (n <= 0)
			return n ? n : -EPIPE;
	}
	return 0;
}

/* All of @bv[0..nr) to the socket, MSG_MORE unless @last. */
static int tcp_data_send_run(struct socket *sock, struct bio_vec *bv,
			     unsigned int nr, size_t len, bool splice,
			     bool last)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };

	if (splice)
		msg.msg_flags |= SW_DDP_MSG_SPLICE_PAGES;
	if (!last)
		msg.msg_flags |= MSG_MORE;
	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, bv, nr, len);
	return tcp_data_send_msg(sock, &msg);
}

/*
 * The rest of an SW_DDP_SEG_NOW FPDU, under tx_lock, before any other
 * FPDU.  A failure sticks: the stream has lost its framing, and every
 * later send fails with it.
 */
static int tcp_data_send_rest(struct socket *sock, struct sw_ddp_tcp_data *d)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	struct kvec kv = { .iov_base = d->rest, .iov_len = d->rest_len };

	lockdep_assert_held(&d->tx_lock);
	if (d->tx_err || !kv.iov_len)
		return d->tx_err;
	iov_iter_kvec(&msg.msg_iter, ITER_SOURCE, &kv, 1, kv.iov_len);
	WRITE_ONCE(d->tx_err, tcp_data_send_msg(sock, &msg));
	if (!d->tx_err)
		WRITE_ONCE(d->rest_len, 0);
	smp_mb();	/* the store before a waiter's check: wake_up_var() */
	wake_up_var(&d->rest_len);	/* tcp_data_wait_rest() */
	return d->tx_err;
}

/*
 * rest_work.  Waits for room if it must, as the engine's sends do; the
 * shutdown or reset of stop() wakes it.  Should the send fail, the
 * socket's own error or close has the endpoint report it (llp_tcp.c),
 * and the engine's next send fails with it.
 */
static void tcp_data_rest_work(struct work_struct *work)
{
	struct sw_ddp_tcp_data *d = container_of(work, struct sw_ddp_tcp_data,
						 rest_work);

	mutex_lock(&d->tx_lock);
	if (!d->stopped)
		tcp_data_send_rest(d->ep->sock, d);
	mutex_unlock(&d->tx_lock);
}

/*
 * The FPDU in runs of pieces that go the same way: copied, or spliced
 * (SW_DDP_SEG_ZCOPY, and never with CRCs: a payload changing after the
 * CRC was computed would make the FPDU fail the peer's check).
 */
static int tcp_data_send_fpdu(struct socket *sock, struct mpa_tx *tx,
			      bool zcopy)
{
	unsigned int i = 0, j;
	size_t len;
	bool splice;
	int err = 0;

	zcopy = zcopy && !tx->crc_on && SW_DDP_MSG_SPLICE_PAGES;
	while (!err && i < tx->nr_bv) {
		splice = zcopy && tcp_data_splice_ok(&tx->bv[i]);
		len = 0;
		for (j = i; j < tx->nr_bv; j++) {
			if (j > i && splice !=
			    (zcopy && tcp_data_splice_ok(&tx->bv[j])))
				break;
			len += tx->bv[j].bv_len;
		}
		err = tcp_data_send_run(sock, &tx->bv[i], j - i, len, splice,
					j == tx->nr_bv);
		i = j;
	}
	return err;
}

/*
 * SW_DDP_SEG_NOW: from our own data_ready, the socket locked by softirq
 * (bh_lock_sock() without an owner) or by the task that owns it, so TCP's
 * send state is ours as under lock_sock().  tx_lock is not taken: the
 * caller holds the stream's engine, the only other sender, and stop() has
 * not begun, or data_ready would not have called us; rest_work, the
 * third, only while rest_len is set.  Nothing may sleep: no wait for
 * room, an atomic allocation, and not the interrupted task's page
 * fragment (sw_ddp_sk_no_task_frag()).
 */
static int tcp_data_send_now(struct sw_ddp_tcp_ep *ep,
			     struct sw_ddp_tcp_data *d, const void *hdr,
			     unsigned int hdr_len, const struct bio_vec *bv,
			     unsigned int nr_bv, u32 len)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	struct sock *sk = ep->sock->sk;
	u32 seq = d->tx.seq;
	gfp_t gfp;
	int n, sent;

	lockdep_assert(lockdep_sock_is_held(sk));
	/* a rest still to go, or its failure: the engine's send sees to it */
	if (READ_ONCE(d->rest_len) || sk->sk_state != TCP_ESTABLISHED ||
	    !sk_stream_memory_free(sk))
		return -EAGAIN;
	n = mpa_tx_frame(&d->tx, hdr, hdr_len, bv, nr_bv, len);
	if (n < 0)
		return n;
	if (n > sizeof(d->rest) || sk_stream_wspace(sk) < n) {
		d->tx.seq = seq;
		return -EAGAIN;
	}
	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, d->tx.bv, d->tx.nr_bv, n);
	gfp = sk->sk_allocation;
	sk->sk_allocation = GFP_ATOMIC;
	sent = tcp_sendmsg_locked(sk, &msg, n);
	sk->sk_allocation = gfp;
	if (sent == n)
		return 0;
	if (sent <= 0) {
		d->tx.seq = seq;	/* nothing went: the engine retries */
		return -EAGAIN;
	}
	/*
	 * Part of the FPDU went: TCP appended what fitted its last, unsent
	 * skb, then found no memory for the next one (a TCP_NOTSENT_LOWAT
	 * reached, the send buffer shrunk under memory pressure, an atomic
	 * allocation failed).  The stream now holds the FPDU's start, so the
	 * rest must follow before any other octet: copied here, as the
	 * header and CRC buffers are the next FPDU's and the payload is the
	 * consumer's, and sent from process context.
	 */
	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, d->tx.bv, d->tx.nr_bv, n);
	iov_iter_advance(&msg.msg_iter, sent);
	if (!copy_from_iter_full(d->rest, n - sent, &msg.msg_iter))
		return -EIO;	/* cannot be: the same pages TCP copied from */
	WRITE_ONCE(d->rest_len, n - sent);
	sw_ddp_tcp_queue_work(&d->rest_work);
	return 0;
}

/* llp ops: one DDP segment as one FPDU, all of it taken by the socket. */
int sw_ddp_tcp_send_segment(struct sw_ddp_llp *llp, const void *hdr,
			    unsigned int hdr_len, const struct bio_vec *bv,
			    unsigned int nr_bv, u32 len, unsigned int flags)
{
	struct sw_ddp_tcp_ep *ep = llp_to_tcp_ep(llp);
	struct sw_ddp_tcp_data *d = ep->data;
	int n, err = 0;

	if (flags & SW_DDP_SEG_NOW)
		return tcp_data_send_now(ep, d, hdr, hdr_len, bv, nr_bv, len);
	mutex_lock(&d->tx_lock);
	if (d->stopped) {
		err = -ESHUTDOWN;
		goto out;
	}
	n = mpa_tx_frame(&d->tx, hdr, hdr_len, bv, nr_bv, len);
	if (n < 0) {
		err = n;
		goto out;
	}
	err = tcp_data_send_rest(ep->sock, d);
	if (!err)
		err = tcp_data_send_fpdu(ep->sock, &d->tx,
					 flags & SW_DDP_SEG_ZCOPY);
	/*
	 * Once stop() has begun, whatever failed the send (its shutdown or
	 * reset, which the socket's lock orders after stopping) is the
	 * close the owner hears of, not a failure.
	 */
	if (err && READ_ONCE(d->stopping))
		err = -ESHUTDOWN;
out:
	mutex_unlock(&d->tx_lock);
	return err;
}

/**
 * sw_ddp_tcp_send_term() - a Terminate from MPA itself, in FPDU mode
 * @ep: the endpoint, past the MPA exchange (ep->conn set), no FPDU sent
 *	yet and no data path on it
 * @err: what it carries, an LLP error (RFC 6581 §8)
 *
 * For connection setup errors the initiator reports in FPDU mode (RFC
 * 6581 §9.1, §9.2): the RDMAP Terminate message (RFC 5040 "Terminate
 * Header") as the stream's first FPDU, on queue 2 with MSN 1, framed as
 * negotiated.  No DDP segment caused it, so only the Terminate Control.
 *
 * Return: 0 or a negative errno; the connection is closed either way.
 */
int sw_ddp_tcp_send_term(struct sw_ddp_tcp_ep *ep, struct sw_ddp_term_err err)
{
	const struct sw_ddp_mpa_conn *c = &ep->conn;
	struct rdmap_term_info ti = { .err = err };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	/* Heap, not stack: the FPDU goes to the socket as page references. */
	struct {
		struct mpa_tx tx;
		u8 hdr[DDP_UNTAGGED_HDR_LEN + sizeof(struct rdmap_term_hdr)];
	} *t = kzalloc(sizeof(*t), GFP_KERNEL);
	int n;

	if (!t)
		return -ENOMEM;
	rdmap_untagged_init((struct ddp_untagged_hdr *)t->hdr,
			    RDMAP_OP_TERMINATE, true, 0, 1, 0);
	n = rdmap_term_build(t->hdr + DDP_UNTAGGED_HDR_LEN,
			     sizeof(t->hdr) - DDP_UNTAGGED_HDR_LEN, &ti);
	if (n < 0)
		goto out;
	n = mpa_tx_init(&t->tx, c->crc, c->tx_markers, c->tx_marker_base,
			sizeof(t->hdr), 0);
	if (n)
		goto out;
	n = mpa_tx_frame(&t->tx, t->hdr, sizeof(t->hdr), NULL, 0, 0);
	if (n > 0) {
		/* a fresh connection's send buffer takes a few octets */
		iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, t->tx.bv,
			      t->tx.nr_bv, n);
		n = sock_sendmsg(ep->sock, &msg);
	}
	mpa_tx_fini(&t->tx);
out:
	kfree(t);
	return n < 0 ? n : 0;
}
