// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the fuzz (fuzz.c) over SCTP (RFC 5043), the whole way down.
 * Two QPs on DDP Stream Sessions of real kernel SCTP associations over
 * loopback: end 0's session connects to a proxy, a plain SCTP socket
 * that takes the association, and the proxy opens one of its own to end
 * 1's listener.  A kthread carries each message across with its stream
 * and PPID, unordered, as DDP sends it (§5).  Once both sessions are up
 * it also:
 * - spoils them: a DDP Segment's ULPDU by fz_mutate(); now and then the
 *   DDP-SSN (a replay, the window's edge: §10), the PPID (§5.2) or the
 *   stream;
 * - reorders them: it holds some back and sends them after later ones,
 *   as unordered delivery may (§10).  It does so with every seed, seed
 *   0 too: there everything must still arrive, in order where it must.
 * Everything between the sockets and the QPs is the driver's: the
 * association's reader, the session's checks and DDP-SSN sequence, early
 * placement of Writes, the Terminates (Stream Session and RDMAP).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "ddp.h"
#include "fuzz.h"
#include "qp.h"
#include "queue_fixture.h"
#include "rdmap.h"
#include "sctp_llp.h"
#include "sctp_raw.h"
#include "sw_ddp.h"

#define SX_BLOCKS	8
#define SX_PER_BLOCK	16
#define SX_HELD		3	/* messages held back, each way */
#define SX_BUF		(SW_DDP_SCTP_MSG_MAX + 1)	/* more: cut off */
#define SX_WAIT		msecs_to_jiffies(5000)

struct sx_msg {
	u8 *data;
	u32 len, ppid;
	u16 sid;
};

/* One way through the proxy: what end i sends, to the other end. */
struct sx_dir {
	struct socket *in, *out;
	struct fz_end *fe;	/* spoils what comes in, once armed */
	struct sx_msg held[SX_HELD];
	u32 nheld;
	int nterm_in;		/* Terminates end i sent */
	int nterm_out;		/* and those the other end was sent */
	int cut;		/* messages longer than SX_BUF */
	u8 *buf;
};

/* One end: its QP, its session, and what the session's upcalls said. */
struct sx_end {
	struct sw_ddp_qp *qp;
	struct sw_ddp_sctp_session *sess;	/* counted */
	struct completion up;	/* connected (0) or requested (1) */
	struct completion closed;
	int status;
	bool ended;		/* closed(), with @why: before the detach */
	enum sw_ddp_sctp_close why;
};

struct sx_fx {
	struct fz_link link;
	struct ib_mr *mr[FZ_MRS];
	struct sx_end end[2];	/* 0 active, 1 passive */
	struct sw_ddp_sctp_listener *listener;
	struct socket *proxy_listener, *proxy[2];	/* to end 0, end 1 */
	struct task_struct *thread;
	struct sx_dir dir[2];	/* from end 0, from end 1 */
};

/* Cases run one at a time; the suite's init and exit share this. */
static struct sx_fx *the_sx;

/* The upcalls of both ends' sessions (sctp_llp.h), as cm_sctp.c's. */

static int sx_request(struct sw_ddp_sctp_listener *l,
		      struct sw_ddp_sctp_session *s)
{
	struct sx_end *e = l->owner;

	if (e->sess)
		return -EBUSY;	/* an Initiate on a spoilt stream id */
	sw_ddp_sctp_get(s);
	e->sess = s;
	complete(&e->up);
	return 0;
}

static int sx_connected(struct sw_ddp_sctp_session *s, int status)
{
	struct sx_end *e = s->owner;

	e->status = status;
	if (!status)
		e->status = sw_ddp_qp_llp_attach(e->qp, &s->llp,
						 SW_DDP_MAX_IRD,
						 SW_DDP_MAX_ORD);
	complete(&e->up);
	return status ? 0 : e->status;
}

static void sx_closed(struct sw_ddp_sctp_session *s,
		      enum sw_ddp_sctp_close why)
{
	struct sx_end *e = s->owner;

	e->why = why;
	/* @why before @ended: sx_peer_closed() reads them the other way */
	smp_store_release(&e->ended, true);
	sw_ddp_qp_llp_detach(e->qp);
	complete(&e->closed);
}

static const struct sw_ddp_sctp_ops sx_ops = {
	.request = sx_request,
	.connected = sx_connected,
	.closed = sx_closed,
};

/* A Terminate, of the session (§5.2.3) or of RDMAP (RFC 5040 §4.2)? */
static bool sx_is_term(u32 ppid, const u8 *p, u32 len)
{
	const struct sctp_ddp_session_ctrl *h = (const void *)p;

	if (ppid == SCTP_DDP_PPID_SESSION_CTRL)
		return len >= sizeof(*h) &&
		       be16_to_cpu(h->func) == SCTP_DDP_FUNC_TERMINATE;
	return ppid == SCTP_DDP_PPID_SEGMENT && len >= 4 &&
	       !ddp_ctrl_tagged(p[2]) &&
	       rdmap_ctrl_opcode(p[3]) == RDMAP_OP_TERMINATE;
}

static void sx_out(struct sx_dir *d, u16 sid, u32 ppid, const u8 *p, u32 len)
{
	if (sx_is_term(ppid, p, len))
		WRITE_ONCE(d->nterm_out, d->nterm_out + 1);
	sctp_raw_send(d->out, sid, ppid, p, len);
}

static void sx_release(struct sx_dir *d, u32 k)
{
	struct sx_msg m = d->held[k];

	d->held[k] = d->held[--d->nheld];
	sx_out(d, m.sid, m.ppid, m.data, m.len);
	kfree(m.data);
}

/* Everything held (only once armed), in an order the spoiler picks. */
static void sx_release_all(struct sx_dir *d)
{
	while (d->nheld)
		sx_release(d, fz_rand(&READ_ONCE(d->fe)->rnd, d->nheld));
}

/* Held back, sent now, or sent and followed by one held before. */
static void sx_forward(struct sx_dir *d, struct fz_end *fe, u16 sid,
		       u32 ppid, const u8 *p, u32 len)
{
	struct rnd_state *rnd = &fe->rnd;
	u8 *copy;

	if (d->nheld < SX_HELD && !fz_rand(rnd, 4)) {
		copy = kmemdup(p, len ?: 1, GFP_KERNEL);
		if (copy) {
			d->held[d->nheld++] = (struct sx_msg){
				.data = copy, .len = len, .ppid = ppid,
				.sid = sid,
			};
			return;
		}
	}
	sx_out(d, sid, ppid, p, len);
	if (d->nheld && fz_rand(rnd, 2))
		sx_release(d, fz_rand(rnd, d->nheld));
}

static const u32 sx_ppids[] = {
	SCTP_DDP_PPID_SEGMENT, SCTP_DDP_PPID_SESSION_CTRL, 0, 15, 18, U32_MAX,
};

/* What SCTP carries around the segment: a quarter as often. */
static void sx_spoil_chunk(struct fz_end *fe, u16 *sid, u32 *ppid, u8 *p,
			   u32 len)
{
	struct rnd_state *rnd = &fe->rnd;
	u16 ssn;

	if (len < 2 || fz_rand(rnd, 4000) >= fe->rate)
		return;
	fe->spoilt++;
	ssn = p[0] << 8 | p[1];
	switch (fz_rand(rnd, 4)) {
	case 0:		/* a DDP-SSN seen before: a replay */
		ssn -= 1 + fz_rand(rnd, 3);
		break;
	case 1:		/* at the window's edge, or past it */
		ssn += SCTP_DDP_SSN_WINDOW_MAX - 1 + fz_rand(rnd, 3);
		break;
	case 2:
		*ppid = sx_ppids[fz_rand(rnd, ARRAY_SIZE(sx_ppids))];
		return;
	default:	/* another stream: of no session */
		*sid ^= 1 + fz_rand(rnd, 3);
		return;
	}
	p[0] = ssn >> 8;
	p[1] = ssn;
}

/* Carry one message across, if one is there. */
static bool sx_pump(struct sx_dir *d)
{
	struct fz_end *fe = READ_ONCE(d->fe);
	unsigned int times = 1, i;
	u32 ppid = 0, len;
	u16 sid = 0;
	int n;

	n = sctp_raw_recv(d->in, &sid, &ppid, d->buf, SX_BUF, MSG_DONTWAIT);
	if (n <= 0)
		return false;
	if (n == SX_BUF) {	/* no DDP message is so long: lose it */
		d->cut++;
		return true;
	}
	len = n;
	if (sx_is_term(ppid, d->buf, len))
		WRITE_ONCE(d->nterm_in, d->nterm_in + 1);
	if (!fe) {
		sx_out(d, sid, ppid, d->buf, len);
		return true;
	}
	/* the ULPDU from the DDP control octet on; room for a page */
	if (ppid == SCTP_DDP_PPID_SEGMENT && len >= 2 &&
	    len - 2 <= PAGE_SIZE) {
		len -= 2;
		times = fz_mutate(fe, d->buf + 2, &len);
		len += 2;
	}
	sx_spoil_chunk(fe, &sid, &ppid, d->buf, len);
	for (i = 0; i < times; i++)
		sx_forward(d, fe, sid, ppid, d->buf, len);
	return true;
}

static int sx_proxy(void *arg)
{
	struct sx_fx *fx = arg;
	bool busy;
	int i;

	while (!kthread_should_stop()) {
		busy = false;
		for (i = 0; i < 2; i++)
			busy |= sx_pump(&fx->dir[i]);
		if (busy) {
			cond_resched();
			continue;
		}
		for (i = 0; i < 2; i++)
			sx_release_all(&fx->dir[i]);
		usleep_range(500, 1000);
	}
	return 0;
}

static void sx_addr(struct sockaddr_in *sin, __be16 port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin->sin_port = port;
}

static __be16 sx_port(struct kunit *test, struct socket *sock)
{
	struct sockaddr_in sin;

	KUNIT_ASSERT_GE(test, kernel_getsockname(sock,
						 (struct sockaddr *)&sin), 0);
	return sin.sin_port;
}

static void sx_wait(struct kunit *test, struct completion *c)
{
	KUNIT_ASSERT_NE_MSG(test, 0UL, wait_for_completion_timeout(c, SX_WAIT),
			    "no upcall");
}

/*
 * The two sessions through the proxy: end 1's listener, the proxy's
 * association to it, end 0's to the proxy.
 */
static void sx_connect(struct kunit *test, struct sx_fx *fx)
{
	struct sockaddr_storage local, peer;
	struct sockaddr_in *sin = (struct sockaddr_in *)&peer;
	struct sx_end *e = &fx->end[1];
	int i, err;

	sx_addr((struct sockaddr_in *)&local, 0);
	KUNIT_ASSERT_EQ(test, sw_ddp_sctp_listen(&init_net, &local, 4, 0,
						 false, &sx_ops, e,
						 &fx->listener), 0);
	fx->proxy_listener = sctp_raw_socket(test, true);
	KUNIT_ASSERT_EQ(test, kernel_bind(fx->proxy_listener,
					  (struct sockaddr *)&local,
					  sizeof(struct sockaddr_in)), 0);
	KUNIT_ASSERT_EQ(test, kernel_listen(fx->proxy_listener, 1), 0);

	sx_addr(sin, sx_port(test, fx->proxy_listener));
	KUNIT_ASSERT_EQ(test, sw_ddp_sctp_connect(&init_net, &local, &peer,
						  false, NULL, 0, SX_WAIT,
						  &sx_ops, &fx->end[0],
						  &fx->end[0].sess), 0);
	KUNIT_ASSERT_EQ(test, kernel_accept(fx->proxy_listener,
					    &fx->proxy[0], 0), 0);
	fx->proxy[1] = sctp_raw_socket(test, true);
	sx_addr(sin, sx_port(test, fx->listener->sock));
	KUNIT_ASSERT_EQ(test, kernel_connect(fx->proxy[1],
					     (struct sockaddr *)sin,
					     sizeof(*sin), 0), 0);
	for (i = 0; i < 2; i++) {
		fx->proxy[i]->sk->sk_sndtimeo = SX_WAIT;
		fx->dir[i].in = fx->proxy[i];
		fx->dir[i].out = fx->proxy[!i];
		fx->dir[i].buf = kunit_kmalloc(test, SX_BUF, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, fx->dir[i].buf);
	}
	fx->thread = kthread_run(sx_proxy, fx, "sw_ddp_sx");
	KUNIT_ASSERT_FALSE(test, IS_ERR(fx->thread));

	/* the Initiate, through the proxy; the Accept, back */
	sx_wait(test, &e->up);
	sw_ddp_sctp_lock(e->sess);
	err = sw_ddp_qp_llp_attach(e->qp, &e->sess->llp, SW_DDP_MAX_IRD,
				   SW_DDP_MAX_ORD);
	if (!err)
		err = sw_ddp_sctp_accept(e->sess, e, NULL, 0);
	sw_ddp_sctp_unlock(e->sess);
	KUNIT_ASSERT_EQ(test, err, 0);
	sx_wait(test, &fx->end[0].up);
	KUNIT_ASSERT_EQ(test, fx->end[0].status, 0);
}

static int sx_init(struct kunit *test)
{
	struct ib_qp_init_attr attr;
	struct sx_fx *fx;
	struct ib_qp *qp;
	int err, i;

	fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	if (!fx)
		return -ENOMEM;
	the_sx = fx;
	fx->link.mr = fx->mr;
	fx->link.priv = fx;
	/* no rkey for all memory: only the MRs a case makes are remote */
	err = qf_init_pd(test, 0, &fx->link.pd);
	if (err)
		return err;
	for (i = 0; i < 2; i++) {
		init_completion(&fx->end[i].up);
		init_completion(&fx->end[i].closed);
		fx->link.buf[i] = kunit_kzalloc(test, FZ_BUF_LEN, GFP_KERNEL);
		if (!fx->link.buf[i])
			return -ENOMEM;
		fx->link.cq[i] = qf_cq(test, 64);
		qf_init_attr(test, &attr, fx->link.cq[i], 16, 16);
		qp = ib_create_qp(fx->link.pd, &attr);
		if (IS_ERR(qp))
			return PTR_ERR(qp);
		fx->link.qp[i] = qp;
		fx->end[i].qp = to_qp(qp);
	}
	sx_connect(test, fx);
	return 0;
}

static void sx_stop_proxy(struct sx_fx *fx)
{
	if (!IS_ERR_OR_NULL(fx->thread))
		kthread_stop(fx->thread);
	fx->thread = NULL;
}

/*
 * Each QP to ERROR ends its session, whose upcall detaches the QP; a
 * session that never got so far is closed here.
 */
static void sx_end_free(struct sx_end *e)
{
	struct sw_ddp_sctp_session *s = e->sess;

	if (!s)
		return;
	if (READ_ONCE(e->qp->llp) == &s->llp)
		wait_for_completion_timeout(&e->closed, SX_WAIT);
	sw_ddp_sctp_lock(s);
	if (e->qp->llp == &s->llp)
		sw_ddp_qp_llp_detach(e->qp);
	sw_ddp_sctp_close(s);
	sw_ddp_sctp_unlock(s);
	sw_ddp_sctp_put(s);
}

static void sx_exit(struct kunit *test)
{
	struct sx_fx *fx = the_sx;
	int i;

	if (!fx) {	/* sx_init() could not allocate */
		qf_exit(test);
		return;
	}
	for (i = 0; i < 2; i++)
		if (fx->link.qp[i])
			qf_modify_state(fx->link.qp[i], IB_QPS_ERR);
	for (i = 0; i < 2; i++)
		sx_end_free(&fx->end[i]);
	sx_stop_proxy(fx);
	for (i = 0; i < 2; i++) {
		while (fx->dir[i].nheld)
			kfree(fx->dir[i].held[--fx->dir[i].nheld].data);
		if (fx->proxy[i]) {
			sock_no_linger(fx->proxy[i]->sk);	/* ABORT */
			sock_release(fx->proxy[i]);
		}
	}
	if (fx->proxy_listener)
		sock_release(fx->proxy_listener);
	if (fx->listener)
		sw_ddp_sctp_listen_close(fx->listener);
	for (i = 0; i < 2; i++)
		if (fx->link.qp[i])
			ib_destroy_qp(fx->link.qp[i]);
	for (i = 0; i < FZ_MRS; i++)
		if (fx->mr[i])
			ib_dereg_mr(fx->mr[i]);
	if (fx->link.pd)
		ib_dealloc_pd(fx->link.pd);
	the_sx = NULL;
	qf_exit(test);
}

static struct fz_link *sx_link(struct kunit *test)
{
	return &the_sx->link;
}

static void sx_arm(struct fz *fz)
{
	struct sx_fx *fx = fz->link->priv;
	int i;

	for (i = 0; i < 2; i++)
		WRITE_ONCE(fx->dir[i].fe, &fz->end[i]);
}

/*
 * A Stream Session Terminate may wait for SCTP to acknowledge the
 * control message before it (§6.6: it may not overtake the Accept): give
 * it the time a delayed SACK takes, and more.
 */
static bool sx_told(struct fz *fz, int i)
{
	struct sx_fx *fx = fz->link->priv;
	unsigned long end = jiffies + SX_WAIT;

	do {
		if (READ_ONCE(fx->dir[i].nterm_in) ||
		    READ_ONCE(fx->dir[!i].nterm_out))
			return true;
		usleep_range(5000, 10000);
	} while (time_before(jiffies, end));
	return false;
}

/* The peer's Stream Session Terminate came in turn (§6.2). */
static bool sx_peer_closed(struct fz *fz, int i)
{
	struct sx_fx *fx = fz->link->priv;
	struct sx_end *e = &fx->end[i];

	/* pairs with sx_closed(): @why is set once @ended reads true */
	return smp_load_acquire(&e->ended) && e->why == SW_DDP_SCTP_PEER_TERM;
}

static int sx_nterm(struct fz *fz, int i)
{
	struct sx_fx *fx = fz->link->priv;

	return fx->dir[i].nterm_in;
}

/*
 * Both QPs are in ERROR, so nothing places (their sessions' rx_sync()
 * saw to that); stop carrying too.
 */
static void sx_quiesce(struct kunit *test, struct fz *fz)
{
	struct sx_fx *fx = fz->link->priv;

	sx_stop_proxy(fx);
	KUNIT_EXPECT_EQ(test, fx->dir[0].cut + fx->dir[1].cut, 0);
}

static const struct fz_transport sx_transport = {
	.name = "SCTP",
	.per_block = SX_PER_BLOCK,
	.init = sx_init,
	.exit = sx_exit,
	.link = sx_link,
	.arm = sx_arm,
	.told = sx_told,
	.peer_closed = sx_peer_closed,
	.nterm = sx_nterm,
	.quiesce = sx_quiesce,
};

static void sctp_fuzz(struct kunit *test)
{
	fz_seeds(test, &sx_transport);
}

static const void *sx_gen_params(const void *prev, char *desc)
{
	return fz_next_block(prev, desc, SX_BLOCKS, SX_PER_BLOCK);
}

static struct kunit_case sctp_fuzz_cases[] = {
	KUNIT_CASE_PARAM_ATTR(sctp_fuzz, sx_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite sctp_fuzz_suite = {
	.name = "sw_ddp_sctp_fuzz",
	.init = sx_init,
	.exit = sx_exit,
	.test_cases = sctp_fuzz_cases,
};

kunit_test_suites(&sctp_fuzz_suite);
