// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the MPA connection exchange (llp_tcp.c) on real kernel TCP
 * sockets over loopback in init_net: negotiation outcomes, reject, RTR,
 * the RFC 6581 Terminates of an initiator, and raw sockets playing peers
 * that misbehave.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kthread.h>
#include <linux/net.h>
#include <linux/prandom.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "cm.h"
#include "fuzz.h"
#include "llp_tcp.h"
#include "raw_peer.h"
#include "rdmap.h"
#include "sw_ddp.h"

#define CM_WAIT		msecs_to_jiffies(3000)
#define CM_TIMEOUT	msecs_to_jiffies(2000)	/* handshake, normal tests */
#define CM_SHORT	msecs_to_jiffies(300)	/* when the timeout is tested */
#define CM_BACKLOG	8			/* cm_listen()'s */

/* What one side's upcalls saw. */
struct cm_rec {
	struct completion req_done, conn_done, rtr_done, closed_done;
	int request_ret;		/* what ops->request answers */
	struct sw_ddp_tcp_ep *child;	/* from ops->request, counted */
	int nreq, nconn, nrtr, nclosed;
	int status;
	enum sw_ddp_tcp_close why;
	u8 pdata[MPA_PD_MAX];
	u16 pdata_len;
	struct mpa_rr_info req;		/* the last Request handed up */
	u8 req_pdata[MPA_PD_MAX];
};

static void cm_rec_init(struct cm_rec *r)
{
	memset(r, 0, sizeof(*r));
	init_completion(&r->req_done);
	init_completion(&r->conn_done);
	init_completion(&r->rtr_done);
	init_completion(&r->closed_done);
}

/* Nothing of @r is read after complete(): the test may move on at once. */
static int rec_request(struct sw_ddp_tcp_ep *l, struct sw_ddp_tcp_ep *child)
{
	struct cm_rec *r = l->owner;
	int ret = r->request_ret;

	r->nreq++;
	r->req = child->peer;
	memcpy(r->req_pdata, child->peer.pdata, child->peer.pdata_len);
	r->req.pdata = r->req_pdata;
	if (!ret) {
		sw_ddp_tcp_get(child);
		r->child = child;
	}
	complete(&r->req_done);
	return ret;
}

static int rec_connected(struct sw_ddp_tcp_ep *ep, int status)
{
	struct cm_rec *r = ep->owner;

	r->nconn++;
	r->status = status;
	r->pdata_len = ep->peer.pdata_len;
	if (r->pdata_len)
		memcpy(r->pdata, ep->peer.pdata, r->pdata_len);
	complete(&r->conn_done);
	return 0;
}

static void rec_rtr(struct sw_ddp_tcp_ep *ep)
{
	struct cm_rec *r = ep->owner;

	r->nrtr++;
	complete(&r->rtr_done);
}

static void rec_closed(struct sw_ddp_tcp_ep *ep, enum sw_ddp_tcp_close why)
{
	struct cm_rec *r = ep->owner;

	r->nclosed++;
	r->why = why;
	complete(&r->closed_done);
}

static const struct sw_ddp_tcp_ep_ops rec_ops = {
	.request = rec_request,
	.connected = rec_connected,
	.rtr = rec_rtr,
	.closed = rec_closed,
};

/* RDMA mode, the data path started: what it handed up. */
struct cm_sink {
	atomic_t begun;			/* segments whose header went up */
	atomic_t placed;		/* payload octets taken */
	atomic_t ended;			/* whole segments */
	struct completion error_done;	/* its error() upcall */
	struct sw_ddp_term_err err;
};

struct cm_test {
	struct cm_rec act, pas;
	struct sw_ddp_tcp_ep *listener, *conn;
	struct sockaddr_storage laddr;	/* the listener's, port included */
	struct socket *raw;		/* a misbehaving peer */
	struct cm_sink sink;

	/* a sender on the data path (cm_sender()) */
	struct page *page;
	atomic_t sent;
	int send_err;			/* its last send's */
	struct completion sender_done;
};

static void cm_close_ep(struct sw_ddp_tcp_ep *ep)
{
	if (!ep)
		return;
	sw_ddp_tcp_lock(ep);
	sw_ddp_tcp_close(ep, true);
	sw_ddp_tcp_unlock(ep);
	sw_ddp_tcp_put(ep);
}

static int cm_test_init(struct kunit *test)
{
	struct cm_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	if (!t)
		return -ENOMEM;
	cm_rec_init(&t->act);
	cm_rec_init(&t->pas);
	test->priv = t;
	return 0;
}

static void cm_test_exit(struct kunit *test)
{
	struct cm_test *t = test->priv;

	if (t->raw)
		sock_release(t->raw);
	cm_close_ep(t->pas.child);
	cm_close_ep(t->conn);
	cm_close_ep(t->listener);
	if (t->page)
		__free_page(t->page);
}

static void cm_addr(struct sockaddr_storage *ss, int family, bool any)
{
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = family;
	if (family == AF_INET) {
		((struct sockaddr_in *)ss)->sin_addr.s_addr =
			htonl(any ? INADDR_ANY : INADDR_LOOPBACK);
	} else if (!any) {
		((struct sockaddr_in6 *)ss)->sin6_addr = in6addr_loopback;
	}
}

/* Listen on loopback (or the wildcard), port chosen by the kernel. */
static void cm_listen(struct kunit *test, int family, bool any,
		      unsigned long timeout)
{
	struct cm_test *t = test->priv;
	struct sockaddr_storage ss;

	int err;

	cm_addr(&ss, family, any);
	err = sw_ddp_tcp_listen(&init_net, &ss, CM_BACKLOG, 0, false, timeout,
				&rec_ops, &t->pas, &t->listener);
	KUNIT_ASSERT_EQ(test, 0, err);
	KUNIT_ASSERT_GE(test, kernel_getsockname(t->listener->sock,
						 (struct sockaddr *)&t->laddr),
			0);
	if (any)	/* connect to loopback, at the listener's port */
		cm_addr(&ss, family, false);
	else
		ss = t->laddr;
	if (family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port =
			((struct sockaddr_in *)&t->laddr)->sin_port;
	else
		((struct sockaddr_in6 *)&ss)->sin6_port =
			((struct sockaddr_in6 *)&t->laddr)->sin6_port;
	t->laddr = ss;
}

static void cm_connect(struct kunit *test, const struct sw_ddp_mpa_cfg *offer,
		       unsigned long timeout)
{
	struct cm_test *t = test->priv;
	struct sockaddr_storage local;

	int err;

	cm_addr(&local, t->laddr.ss_family, true);
	err = sw_ddp_tcp_connect(&init_net, &local, &t->laddr, false, offer,
				 timeout, &rec_ops, &t->act, &t->conn);
	KUNIT_ASSERT_EQ(test, 0, err);
}

static void cm_wait(struct kunit *test, struct completion *c)
{
	KUNIT_ASSERT_NE_MSG(test, 0UL, wait_for_completion_timeout(c, CM_WAIT),
			    "no upcall");
}

/* The passive side answers the Request it got. */
static int cm_accept(struct kunit *test, const struct sw_ddp_mpa_cfg *local)
{
	struct cm_test *t = test->priv;
	struct sw_ddp_tcp_ep *ep = t->pas.child;
	int err;

	sw_ddp_tcp_lock(ep);
	err = sw_ddp_tcp_accept(ep, local);
	if (!err)
		err = sw_ddp_tcp_send_reply(ep);
	sw_ddp_tcp_unlock(ep);
	return err;
}

static const struct sw_ddp_mpa_cfg cfg_v2 = {
	.rev = MPA_REV_2, .ird = 4, .ord = 8,
	.rtr = SW_DDP_RTR_WRITE | SW_DDP_RTR_READ | SW_DDP_RTR_SEND,
};

/* Both sides through a whole exchange; returns with both in RDMA mode. */
static void cm_handshake(struct kunit *test, const struct sw_ddp_mpa_cfg *ini,
			 const struct sw_ddp_mpa_cfg *resp)
{
	struct cm_test *t = test->priv;

	cm_connect(test, ini, CM_TIMEOUT);
	cm_wait(test, &t->pas.req_done);
	KUNIT_ASSERT_NOT_NULL(test, t->pas.child);
	KUNIT_ASSERT_EQ(test, 0, cm_accept(test, resp));
	cm_wait(test, &t->act.conn_done);
	KUNIT_ASSERT_EQ(test, 0, t->act.status);
	KUNIT_EXPECT_EQ(test, 1, t->act.nconn);
	KUNIT_EXPECT_EQ(test, 1, t->pas.nreq);
}

static void cm_test_rev2(struct kunit *test)
{
	struct sw_ddp_mpa_cfg ini = cfg_v2, resp = cfg_v2;
	struct cm_test *t = test->priv;
	struct sw_ddp_mpa_conn *a, *p;

	ini.pdata = "hello";
	ini.pdata_len = 5;
	resp.ird = 16;
	resp.ord = 2;
	resp.pdata = "world!";
	resp.pdata_len = 6;
	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	cm_handshake(test, &ini, &resp);

	/* the Request as the responder saw it */
	KUNIT_EXPECT_EQ(test, MPA_REV_2, t->pas.child->peer.rev);
	KUNIT_EXPECT_TRUE(test, mpa_rr_enhanced(&t->pas.child->peer));
	KUNIT_EXPECT_EQ(test, 5, t->pas.child->peer.pdata_len);
	KUNIT_EXPECT_MEMEQ(test, "hello", t->pas.child->peer.pdata, 5);
	KUNIT_EXPECT_EQ(test, 6, t->act.pdata_len);
	KUNIT_EXPECT_MEMEQ(test, "world!", t->act.pdata, 6);

	a = &t->conn->conn;
	p = &t->pas.child->conn;
	KUNIT_EXPECT_TRUE(test, a->enhanced && p->enhanced);
	KUNIT_EXPECT_EQ(test, MPA_REV_2, a->rev);
	KUNIT_EXPECT_FALSE(test, a->crc || p->crc);
	KUNIT_EXPECT_FALSE(test, a->tx_markers || a->rx_markers);
	/* RFC 6581: responder ORD <= initiator IRD, IRD >= initiator ORD */
	KUNIT_EXPECT_EQ(test, 2, p->ord);
	KUNIT_EXPECT_EQ(test, 16, p->ird);
	KUNIT_EXPECT_EQ(test, 8, a->ord);
	KUNIT_EXPECT_EQ(test, 4, a->ird);
	KUNIT_EXPECT_EQ(test, SW_DDP_RTR_NONE, a->rtr);
	KUNIT_EXPECT_FALSE(test, p->rtr_wait);
	/* both ends agree where each direction's FPDUs start */
	KUNIT_EXPECT_EQ(test, a->tx_marker_base, p->rx_marker_base);
	KUNIT_EXPECT_EQ(test, a->rx_marker_base, p->tx_marker_base);
	KUNIT_EXPECT_NE(test, 0U, t->conn->llp.ops->max_segment(&t->conn->llp));
}

/* RDMA mode: what arrives goes to the data path's rx_ready upcall. */
static struct completion *cm_rx_done;

static void cm_rx_ready(struct sw_ddp_tcp_ep *ep)
{
	complete(cm_rx_done);
}

static void cm_test_handover(struct kunit *test)
{
	struct cm_test *t = test->priv;
	DECLARE_COMPLETION_ONSTACK(rx_done);
	struct kvec iov = { .iov_base = "fpdu", .iov_len = 4 };
	struct msghdr msg = {};
	u8 buf[4];

	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	cm_handshake(test, &cfg_v2, &cfg_v2);
	cm_rx_done = &rx_done;
	WRITE_ONCE(t->pas.child->rx_ready, cm_rx_ready);
	KUNIT_ASSERT_EQ(test, 4, kernel_sendmsg(t->conn->sock, &msg, &iov, 1,
						4));
	KUNIT_ASSERT_NE(test, 0UL, wait_for_completion_timeout(&rx_done,
							       CM_WAIT));
	/* the first octets after the Reply, untouched by the exchange */
	iov.iov_base = buf;
	KUNIT_EXPECT_EQ(test, 4, kernel_recvmsg(t->pas.child->sock, &msg,
						&iov, 1, 4, MSG_DONTWAIT));
	KUNIT_EXPECT_MEMEQ(test, "fpdu", buf, 4);
	WRITE_ONCE(t->pas.child->rx_ready, NULL);
}

/* A graceful close by one side is a graceful close for the other, once. */
static void cm_test_close(struct kunit *test)
{
	struct cm_test *t = test->priv;

	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	cm_handshake(test, &cfg_v2, &cfg_v2);
	t->conn->llp.ops->close(&t->conn->llp, false);
	cm_wait(test, &t->act.closed_done);
	cm_wait(test, &t->pas.closed_done);
	KUNIT_EXPECT_EQ(test, SW_DDP_TCP_LOCAL, t->act.why);
	KUNIT_EXPECT_EQ(test, SW_DDP_TCP_PEER_FIN, t->pas.why);
	/* a second close, late socket events: no second upcall */
	t->conn->llp.ops->close(&t->conn->llp, true);
	t->pas.child->llp.ops->close(&t->pas.child->llp, true);
	msleep(100);
	KUNIT_EXPECT_EQ(test, 1, t->act.nclosed);
	KUNIT_EXPECT_EQ(test, 1, t->pas.nclosed);
}

static void cm_test_abort(struct kunit *test)
{
	struct cm_test *t = test->priv;

	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	cm_handshake(test, &cfg_v2, &cfg_v2);
	t->pas.child->llp.ops->close(&t->pas.child->llp, true);
	cm_wait(test, &t->act.closed_done);
	KUNIT_EXPECT_EQ(test, SW_DDP_TCP_PEER_RESET, t->act.why);
	KUNIT_EXPECT_EQ(test, 1, t->act.nclosed);
}

static void cm_test_ipv6_wildcard(struct kunit *test)
{
	struct cm_test *t = test->priv;

	cm_listen(test, AF_INET6, true, CM_TIMEOUT);
	cm_handshake(test, &cfg_v2, &cfg_v2);
	KUNIT_EXPECT_EQ(test, AF_INET6, t->conn->sock->sk->sk_family);
	KUNIT_EXPECT_TRUE(test, t->conn->conn.enhanced);
}

static void cm_test_ipv4_wildcard(struct kunit *test)
{
	cm_listen(test, AF_INET, true, CM_TIMEOUT);
	cm_handshake(test, &cfg_v2, &cfg_v2);
}

/* RFC 5044 revision 1 on either side: no IRD/ORD exchange. */
static void cm_test_rev1(struct kunit *test)
{
	struct sw_ddp_mpa_cfg v1 = cfg_v2;
	struct cm_test *t = test->priv;

	v1.rev = MPA_REV_1;
	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	cm_handshake(test, &cfg_v2, &v1);
	KUNIT_EXPECT_EQ(test, MPA_REV_1, t->conn->conn.rev);
	KUNIT_EXPECT_FALSE(test, t->conn->conn.enhanced);
	KUNIT_EXPECT_FALSE(test, t->pas.child->conn.enhanced);
	KUNIT_EXPECT_EQ(test, cfg_v2.ird, t->conn->conn.ird);
}

static void cm_test_rev1_initiator(struct kunit *test)
{
	struct sw_ddp_mpa_cfg v1 = cfg_v2;
	struct cm_test *t = test->priv;

	v1.rev = MPA_REV_1;
	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	cm_handshake(test, &v1, &cfg_v2);
	KUNIT_EXPECT_EQ(test, MPA_REV_1, t->pas.child->peer.rev);
	KUNIT_EXPECT_EQ(test, MPA_REV_1, t->conn->conn.rev);
	KUNIT_EXPECT_EQ(test, MPA_REV_1, t->pas.child->conn.rev);
}

/* RFC 5044: CRCs when either side asks, the same both ways. */
static void cm_test_crc(struct kunit *test)
{
	struct sw_ddp_mpa_cfg ini = cfg_v2, resp = cfg_v2;
	struct cm_test *t = test->priv;
	int i;

	for (i = 0; i < 4; i++) {
		ini.crc = i & 1;
		resp.crc = i & 2;
		cm_rec_init(&t->act);
		cm_rec_init(&t->pas);
		cm_listen(test, AF_INET, false, CM_TIMEOUT);
		cm_handshake(test, &ini, &resp);
		KUNIT_EXPECT_EQ_MSG(test, i != 0, t->conn->conn.crc, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, i != 0, t->pas.child->conn.crc,
				    "case %d", i);
		cm_test_exit(test);
		t->pas.child = NULL;
		t->conn = NULL;
		t->listener = NULL;
	}
}

/* M: who wants to receive markers gets them; the peer's choice wins. */
static void cm_test_markers(struct kunit *test)
{
	struct sw_ddp_mpa_cfg ini = cfg_v2;
	struct cm_test *t = test->priv;
	struct sw_ddp_mpa_conn *a, *p;

	ini.markers = true;
	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	cm_handshake(test, &ini, &cfg_v2);
	a = &t->conn->conn;
	p = &t->pas.child->conn;
	KUNIT_EXPECT_TRUE(test, a->rx_markers);
	KUNIT_EXPECT_FALSE(test, a->tx_markers);
	KUNIT_EXPECT_TRUE(test, p->tx_markers);
	KUNIT_EXPECT_FALSE(test, p->rx_markers);
	KUNIT_EXPECT_TRUE(test, t->pas.child->peer.flags & MPA_FLAG_M);
}

static void cm_test_markers_responder(struct kunit *test)
{
	struct sw_ddp_mpa_cfg resp = cfg_v2;
	struct cm_test *t = test->priv;

	resp.markers = true;
	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	cm_handshake(test, &cfg_v2, &resp);
	KUNIT_EXPECT_TRUE(test, t->conn->conn.tx_markers);
	KUNIT_EXPECT_TRUE(test, t->pas.child->conn.rx_markers);
	/* MULPDU leaves room for the markers it must send */
	KUNIT_EXPECT_LT(test, t->conn->llp.ops->max_segment(&t->conn->llp),
			t->pas.child->llp.ops->max_segment(&t->pas.child->llp));
}

static void cm_test_reject(struct kunit *test)
{
	struct cm_test *t = test->priv;
	struct sw_ddp_tcp_ep *ep;

	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	cm_connect(test, &cfg_v2, CM_TIMEOUT);
	cm_wait(test, &t->pas.req_done);
	ep = t->pas.child;
	sw_ddp_tcp_lock(ep);
	KUNIT_EXPECT_EQ(test, 0, sw_ddp_tcp_reject(ep, "nope", 4));
	/* once rejected, nothing else */
	KUNIT_EXPECT_EQ(test, -ECONNRESET, sw_ddp_tcp_accept(ep, &cfg_v2));
	sw_ddp_tcp_unlock(ep);
	cm_wait(test, &t->act.conn_done);
	KUNIT_EXPECT_EQ(test, -ECONNREFUSED, t->act.status);
	KUNIT_EXPECT_EQ(test, 4, t->act.pdata_len);
	KUNIT_EXPECT_MEMEQ(test, "nope", t->act.pdata, 4);
	KUNIT_EXPECT_EQ(test, 1, t->act.nconn);
}

/*
 * RFC 6581 §9.1: the responder serves as many Reads as it can, and the
 * initiator issues no more than that.
 */
static void cm_test_ird_capped(struct kunit *test)
{
	struct sw_ddp_mpa_cfg ini = cfg_v2;
	struct cm_test *t = test->priv;

	ini.ord = SW_DDP_MAX_IRD + 1;
	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	cm_handshake(test, &ini, &cfg_v2);
	KUNIT_EXPECT_EQ(test, SW_DDP_MAX_IRD, t->pas.child->conn.ird);
	KUNIT_EXPECT_EQ(test, SW_DDP_MAX_IRD, t->conn->conn.ord);
}

/* RFC 6581 peer-to-peer: one RTR type agreed, the responder waits for it */
static void cm_test_p2p_rtr(struct kunit *test)
{
	struct sw_ddp_mpa_cfg ini = cfg_v2, resp = cfg_v2;
	struct cm_test *t = test->priv;

	ini.p2p = true;
	ini.rtr = SW_DDP_RTR_READ | SW_DDP_RTR_SEND;
	resp.p2p = true;
	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	cm_handshake(test, &ini, &resp);
	KUNIT_EXPECT_EQ(test, SW_DDP_RTR_READ, t->conn->conn.rtr);
	KUNIT_EXPECT_TRUE(test, t->conn->conn.rtr_send);
	KUNIT_EXPECT_EQ(test, SW_DDP_RTR_READ, t->pas.child->conn.rtr);
	KUNIT_EXPECT_FALSE(test, t->pas.child->conn.rtr_send);
	/* what the data path is told: send it first, or wait for it */
	KUNIT_EXPECT_EQ(test, SW_DDP_RTR_READ, t->conn->llp.rtr_send);
	KUNIT_EXPECT_EQ(test, SW_DDP_RTR_NONE, t->conn->llp.rtr_wait);
	KUNIT_EXPECT_EQ(test, SW_DDP_RTR_READ, t->pas.child->llp.rtr_wait);
	KUNIT_EXPECT_EQ(test, SW_DDP_RTR_NONE, t->pas.child->llp.rtr_send);
	KUNIT_EXPECT_EQ(test, 0, t->pas.nrtr);
	sw_ddp_llp_rtr_received(&t->pas.child->llp);
	cm_wait(test, &t->pas.rtr_done);
	sw_ddp_llp_rtr_received(&t->pas.child->llp);
	msleep(50);
	KUNIT_EXPECT_EQ(test, 1, t->pas.nrtr);
	KUNIT_EXPECT_EQ(test, 0, t->pas.nclosed);
}

static void cm_test_rtr_timeout(struct kunit *test)
{
	struct sw_ddp_mpa_cfg ini = cfg_v2, resp = cfg_v2;
	struct cm_test *t = test->priv;

	ini.p2p = true;
	resp.p2p = true;
	cm_listen(test, AF_INET, false, CM_SHORT);
	cm_handshake(test, &ini, &resp);
	KUNIT_EXPECT_EQ(test, SW_DDP_RTR_WRITE, t->pas.child->conn.rtr);
	cm_wait(test, &t->pas.closed_done);
	KUNIT_EXPECT_EQ(test, SW_DDP_TCP_RTR_TIMEOUT, t->pas.why);
	KUNIT_EXPECT_EQ(test, 0, t->pas.nrtr);
	cm_wait(test, &t->act.closed_done);
	KUNIT_EXPECT_EQ(test, SW_DDP_TCP_PEER_RESET, t->act.why);
}

/* The data path: segments of a 2-octet header and any payload. */
static unsigned int sink_hdr_len(void *upper, const u8 *ctrl)
{
	return 2;
}

static struct sw_ddp_term_err sink_begin(void *upper, const void *hdr,
					 unsigned int hdr_len, u32 payload_len)
{
	atomic_inc(&((struct cm_sink *)upper)->begun);
	return SW_DDP_TERM_OK;
}

static struct sw_ddp_term_err sink_payload(void *upper,
					   struct sw_ddp_rx_src *src, u32 len)
{
	u8 buf[16];
	u32 n;

	for (; len; len -= n) {
		n = min_t(u32, len, sizeof(buf));
		if (src->copy(src, buf, n))
			return MPA_ERR_LOCAL_CATASTROPHIC;
		atomic_add(n, &((struct cm_sink *)upper)->placed);
	}
	return SW_DDP_TERM_OK;
}

static struct sw_ddp_term_err sink_end(void *upper)
{
	atomic_inc(&((struct cm_sink *)upper)->ended);
	return SW_DDP_TERM_OK;
}

static void sink_error(void *upper, struct sw_ddp_term_err err)
{
	struct cm_sink *sink = upper;

	sink->err = err;
	complete(&sink->error_done);
}

static const struct sw_ddp_rx_ops sink_ops = {
	.hdr_len = sink_hdr_len,
	.begin = sink_begin,
	.payload = sink_payload,
	.end = sink_end,
	.error = sink_error,
};

/* Start @ep's data path, as a QP's attach does; upcalls go to @sink. */
static void cm_start_data_to(struct kunit *test, struct sw_ddp_tcp_ep *ep,
			     struct cm_sink *sink)
{
	int err;

	init_completion(&sink->error_done);
	sw_ddp_tcp_lock(ep);
	err = ep->llp.ops->start(&ep->llp, &sink_ops, sink, 1);
	sw_ddp_tcp_unlock(ep);
	KUNIT_ASSERT_EQ(test, 0, err);
}

static void cm_start_data(struct kunit *test, struct sw_ddp_tcp_ep *ep)
{
	cm_start_data_to(test, ep, &((struct cm_test *)test->priv)->sink);
}

/*
 * TCP takes a segment's FIN (tcp_fin(), whose state change runs the
 * endpoint's work) before it calls data_ready for the segment's data.
 * This data_ready gives that work, on another CPU, the time to stop the
 * data path first: up to half a second for it to start (it holds the
 * endpoint's mutex as it runs), then 50 ms more.
 */
static struct sw_ddp_tcp_ep *cm_fin_ep;
static void (*cm_fin_data_ready)(struct sock *sk);

static void cm_fin_first_data_ready(struct sock *sk)
{
	int i, more = 50;

	for (i = 0; i < 500 && more && READ_ONCE(cm_fin_ep->rx_ready); i++) {
		if (READ_ONCE(sk->sk_state) != TCP_CLOSE_WAIT)
			break;
		if (mutex_is_locked(&cm_fin_ep->mutex))
			more--;
		mdelay(1);
	}
	cm_fin_data_ready(sk);
}

/* The peer's last FPDU and its FIN in one segment: the FPDU is read. */
static void cm_test_fpdu_with_fin(struct kunit *test)
{
	/* ULPDU_Length 8: 2 octets of header, 6 of payload, PAD, CRC 0 */
	static const u8 fpdu[16] = { 0, 8, 0x41, 0x43, 'f', 'i', 'n', 'a',
				     'l', '!' };
	struct kvec iov = { .iov_base = (void *)fpdu, .iov_len = 16 };
	struct msghdr msg = { .msg_flags = MSG_MORE };
	struct cm_test *t = test->priv;
	struct sock *sk;
	int n;

	if (num_online_cpus() < 2)
		kunit_skip(test, "the endpoint's work needs a second CPU");
	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	cm_handshake(test, &cfg_v2, &cfg_v2);
	cm_start_data(test, t->pas.child);
	sk = t->pas.child->sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	cm_fin_ep = t->pas.child;
	cm_fin_data_ready = sk->sk_data_ready;
	sk->sk_data_ready = cm_fin_first_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);

	/*
	 * Held back by MSG_MORE, the FPDU leaves with the FIN the shutdown
	 * adds to it.  The initiator's endpoint, which takes its socket's
	 * FIN_WAIT for a reset, waits until the shutdown is done.
	 */
	sw_ddp_tcp_lock(t->conn);
	n = kernel_sendmsg(t->conn->sock, &msg, &iov, 1, iov.iov_len);
	if (n == iov.iov_len)
		n = kernel_sock_shutdown(t->conn->sock, SHUT_WR);
	sw_ddp_tcp_unlock(t->conn);
	KUNIT_ASSERT_EQ(test, 0, n);

	cm_wait(test, &t->pas.closed_done);
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->sink.ended));
	KUNIT_EXPECT_FALSE(test, completion_done(&t->sink.error_done));
	KUNIT_EXPECT_EQ(test, SW_DDP_TCP_PEER_FIN, t->pas.why);
}

/* One FPDU from @ep's data path, @len octets of t->page after a header. */
static int cm_send_fpdu(struct cm_test *t, struct sw_ddp_tcp_ep *ep, u32 len,
			unsigned int flags)
{
	static const u8 hdr[2] = { 0x41, 0x43 };
	struct bio_vec bv;

	bvec_set_page(&bv, t->page, len, 0);
	return ep->llp.ops->send_segment(&ep->llp, hdr, sizeof(hdr),
					 len ? &bv : NULL, !!len, len, flags);
}

/* Segments of 4 KiB, until the socket takes no more. */
static int cm_sender(void *arg)
{
	struct cm_test *t = arg;
	int err;

	do {
		err = cm_send_fpdu(t, t->pas.child, SZ_4K, 0);
		if (!err)
			atomic_inc(&t->sent);
	} while (!err);
	t->send_err = err;
	complete(&t->sender_done);
	return 0;
}

/*
 * The responder's data path sends until it waits for room (an initiator
 * that reads nothing).  Return: whether it waits (nothing sent for 200
 * ms, something before).
 */
static bool cm_start_sender(struct kunit *test)
{
	struct cm_test *t = test->priv;
	struct task_struct *task;
	int i, last = -1;

	t->page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->page);
	init_completion(&t->sender_done);
	task = kthread_run(cm_sender, t, "cm_sender");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));

	for (i = 0; i < 50 && last != atomic_read(&t->sent); i++) {
		last = atomic_read(&t->sent);
		msleep(200);
	}
	return i < 50 && last > 0;
}

/*
 * The RTR does not come while the responder's data path waits for room
 * (an initiator that reads nothing): the Terminate's error() upcall does
 * not wait for that sender, which only the close would wake.
 */
static void cm_test_rtr_timeout_sender_waits(struct kunit *test)
{
	struct sw_ddp_mpa_cfg ini = cfg_v2, resp = cfg_v2;
	struct cm_test *t = test->priv;

	ini.p2p = true;
	resp.p2p = true;
	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	cm_handshake(test, &ini, &resp);
	cm_start_data(test, t->pas.child);
	KUNIT_EXPECT_TRUE(test, cm_start_sender(test));
	KUNIT_EXPECT_NE_MSG(test, 0UL,
			    wait_for_completion_timeout(&t->sink.error_done,
							CM_WAIT),
			    "the RTR timeout waited for the sender");
	KUNIT_EXPECT_FALSE(test, completion_done(&t->sender_done));

	/* the initiator resets: the sender's send fails, and it returns */
	cm_close_ep(t->conn);
	t->conn = NULL;
	wait_for_completion(&t->sender_done);
	cm_wait(test, &t->pas.closed_done);
	KUNIT_EXPECT_EQ(test, MPA_ERR_LOCAL_CATASTROPHIC.layer,
			t->sink.err.layer);
	KUNIT_EXPECT_EQ(test, MPA_ERR_LOCAL_CATASTROPHIC.ecode,
			t->sink.err.ecode);
}

/*
 * The responder closes gracefully while its data path waits for room:
 * the send the shutdown cuts short fails with -ESHUTDOWN, the stream's
 * close (llp.h), so that the WR is flushed and the QP not failed.
 */
static void cm_test_close_sender_waits(struct kunit *test)
{
	struct cm_test *t = test->priv;
	struct sw_ddp_tcp_ep *ep;

	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	cm_handshake(test, &cfg_v2, &cfg_v2);
	ep = t->pas.child;
	cm_start_data(test, ep);
	KUNIT_EXPECT_TRUE(test, cm_start_sender(test));

	ep->llp.ops->close(&ep->llp, false);
	if (!wait_for_completion_timeout(&t->sender_done, CM_WAIT)) {
		KUNIT_FAIL(test, "the close left the sender waiting");
		cm_close_ep(t->conn);	/* the initiator's reset wakes it */
		t->conn = NULL;
		wait_for_completion(&t->sender_done);
	}
	cm_wait(test, &t->pas.closed_done);
	KUNIT_EXPECT_EQ(test, -ESHUTDOWN, t->send_err);
	KUNIT_EXPECT_EQ(test, SW_DDP_TCP_LOCAL, t->pas.why);
}

/* cm_send_fpdu()'s FPDU with CRC, no markers: length, header, PAD, CRC */
#define CM_FPDU_LEN(len)	(ALIGN(2 + 2 + (len), 4) + 4)
#define CM_NOW_LEN		64	/* payload of the SW_DDP_SEG_NOW FPDU */
#define CM_NOW_PART		36	/* about what TCP takes of it */

/*
 * FPDUs of at most 1 KiB of payload, @octets of stream in all (a multiple
 * of 4, at least one empty FPDU's).  Return: how many, or -1.
 */
static int cm_send_octets(struct cm_test *t, struct sw_ddp_tcp_ep *ep,
			  u32 octets)
{
	int n;
	u32 f;

	for (n = 0; octets; n++, octets -= f) {
		f = min_t(u32, octets, CM_FPDU_LEN(SZ_1K));
		if (octets - f && octets - f < CM_FPDU_LEN(0))
			f = octets - CM_FPDU_LEN(0);
		if (cm_send_fpdu(t, ep, f - CM_FPDU_LEN(0), 0))
			return -1;
	}
	return n;
}

/* TCP's size goal for @sk's next send, as tcp_xmit_size_goal() left it */
static u32 cm_size_goal(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return max_t(u32, tp->gso_segs * tp->mss_cache, tp->mss_cache);
}

/*
 * A Read Response from data_ready (SW_DDP_SEG_NOW) that TCP takes only in
 * part leaves its rest to go before any other FPDU.  TCP takes part of a
 * send when its last unsent skb has room for less than the FPDU and no
 * new skb may be had; a TCP_NOTSENT_LOWAT brings that about on purpose.
 * The receiver reads nothing, so its window shuts and TCP queues; the
 * last skb is filled to r octets short of TCP's size goal (gso_segs
 * MSSes), and the limit set to what is queued plus one.
 *
 * Returns with the initiator's socket locked and that limit still set
 * (the rest cannot go before the receiver reads), *@lowat the socket's
 * own.  Return: the FPDUs begun on the stream, the partial one included.
 */
static int cm_now_rest_left(struct kunit *test, u32 *lowat)
{
	struct sw_ddp_mpa_cfg crc = cfg_v2;
	struct cm_test *t = test->priv;
	u32 goal = 0, tail_len = 0, r = 0, seq, took;
	int i, k, n, fill, nr = 0, err, sndbuf = SZ_1M;
	struct sw_ddp_tcp_ep *ep;
	struct cm_sink *quiet;
	struct sk_buff *tail;
	struct tcp_sock *tp;
	struct sock *sk;
	bool ready;

	crc.crc = true;
	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	/* the receiver's window a few KiB, from its SYN-ACK on */
	sock_set_rcvbuf(t->listener->sock->sk, SZ_4K);
	cm_handshake(test, &crc, &crc);
	ep = t->conn;
	sk = ep->sock->sk;
	KUNIT_ASSERT_EQ(test, 0, sock_setsockopt(ep->sock, SOL_SOCKET,
						 SO_SNDBUF,
						 KERNEL_SOCKPTR(&sndbuf),
						 sizeof(sndbuf)));
	quiet = kunit_kzalloc(test, sizeof(*quiet), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, quiet);
	cm_start_data_to(test, ep, quiet);
	t->page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, t->page);

	/* FPDUs of 1 KiB until two skbs wait for the window */
	for (i = 0, ready = false; i < 256 && !ready; i++, nr++) {
		KUNIT_ASSERT_EQ(test, 0, cm_send_fpdu(t, ep, SZ_1K, 0));
		lock_sock(sk);
		tail = tcp_write_queue_tail(sk);
		ready = tail && tail != tcp_send_head(sk);
		release_sock(sk);
	}
	KUNIT_ASSERT_TRUE_MSG(test, ready, "the receiver's window never shut");

	/*
	 * One FPDU more, to leave r octets of room, 0 < r < the FPDU; again
	 * should TCP's goal have changed meanwhile.
	 */
	for (i = 0; ; i++) {
		lock_sock(sk);
		tail = tcp_write_queue_tail(sk);
		if (i && tail && tail != tcp_send_head(sk) &&
		    tail->len == goal - r)
			break;		/* the socket stays locked */
		goal = cm_size_goal(sk);
		tail_len = tail ? tail->len : 0;
		release_sock(sk);
		KUNIT_ASSERT_LT_MSG(test, i, 4,
				    "the last skb is not %u short of %u", r,
				    goal);
		for (k = 1; k <= 2; k++) {
			r = CM_NOW_PART +
			    ((k * goal - tail_len - CM_NOW_PART) & 3);
			fill = k * goal - tail_len - r;
			if (fill >= CM_FPDU_LEN(0))
				break;
		}
		KUNIT_ASSERT_GE(test, fill, CM_FPDU_LEN(0));
		n = cm_send_octets(t, ep, fill);
		KUNIT_ASSERT_GT(test, n, 0);
		nr += n;
	}

	tp = tcp_sk(sk);
	*lowat = tp->notsent_lowat;
	seq = tp->write_seq;
	tp->notsent_lowat = tp->write_seq - tp->snd_nxt + 1;
	err = cm_send_fpdu(t, ep, CM_NOW_LEN, SW_DDP_SEG_NOW);
	took = tp->write_seq - seq;
	KUNIT_EXPECT_EQ(test, 0, err);
	KUNIT_EXPECT_EQ_MSG(test, r, took, "TCP took %u of %u", took,
			    CM_FPDU_LEN(CM_NOW_LEN));
	return nr + !err;
}

/* The receiver reads until @nr FPDUs have ended, or it fails. */
static void cm_read_fpdus(struct kunit *test, int nr)
{
	struct cm_test *t = test->priv;
	int i;

	cm_start_data(test, t->pas.child);
	for (i = 0; i < 500 && atomic_read(&t->sink.ended) < nr; i++) {
		if (completion_done(&t->sink.error_done))
			break;
		msleep(20);
	}
	KUNIT_EXPECT_EQ(test, nr, atomic_read(&t->sink.ended));
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(&t->sink.error_done),
			       "the receiver failed: layer %u error %u",
			       t->sink.err.layer, t->sink.err.ecode);
}

/*
 * The rest goes before any other FPDU, and the stream stays whole: the
 * receiver reads all of it, CRCs checked.
 */
static void cm_test_now_rest(struct kunit *test)
{
	struct cm_test *t = test->priv;
	struct sock *sk;
	u32 lowat, seq;
	int nr, err;

	nr = cm_now_rest_left(test, &lowat);
	sk = t->conn->sock->sk;
	/* with room again, the rest still goes first: nothing from here */
	tcp_sk(sk)->notsent_lowat = lowat;
	seq = tcp_sk(sk)->write_seq;
	err = cm_send_fpdu(t, t->conn, CM_NOW_LEN, SW_DDP_SEG_NOW);
	seq = tcp_sk(sk)->write_seq - seq;
	release_sock(sk);
	KUNIT_EXPECT_EQ(test, -EAGAIN, err);
	KUNIT_EXPECT_EQ(test, 0U, seq);
	/* and the engine's next FPDU comes after the rest */
	KUNIT_EXPECT_EQ(test, 0, cm_send_fpdu(t, t->conn, 100, 0));
	cm_read_fpdus(test, nr + 1);
}

/*
 * A graceful close while the rest waits for room: the FIN waits for the
 * rest, which goes once the receiver reads, so the stream does not end
 * inside that FPDU (the peer would take it for a lost connection).
 */
static void cm_test_now_rest_close(struct kunit *test)
{
	struct cm_test *t = test->priv;
	struct sw_ddp_tcp_ep *ep;
	u32 lowat;
	int i, nr;

	nr = cm_now_rest_left(test, &lowat);
	ep = t->conn;
	release_sock(ep->sock->sk);
	ep->llp.ops->close(&ep->llp, false);
	/* the close has begun once reception stops */
	for (i = 0; i < 50 && READ_ONCE(ep->rx_ready); i++)
		msleep(20);
	KUNIT_EXPECT_NULL(test, READ_ONCE(ep->rx_ready));
	msleep(100);
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(&t->act.closed_done),
			       "the close did not wait for the rest");
	cm_read_fpdus(test, nr);
	cm_wait(test, &t->act.closed_done);
	cm_wait(test, &t->pas.closed_done);
	KUNIT_EXPECT_EQ(test, SW_DDP_TCP_LOCAL, t->act.why);
	KUNIT_EXPECT_EQ(test, SW_DDP_TCP_PEER_FIN, t->pas.why);
}

/*
 * The same close with a receiver that reads nothing: the rest is given
 * SW_DDP_TCP_LINGER_MS, then the stream, which a FIN would end inside
 * that FPDU, ends with a reset.
 */
static void cm_test_now_rest_close_stuck(struct kunit *test)
{
	unsigned long linger = msecs_to_jiffies(SW_DDP_TCP_LINGER_MS);
	struct cm_test *t = test->priv;
	struct sw_ddp_tcp_ep *ep;
	unsigned long start;
	u32 lowat;

	cm_now_rest_left(test, &lowat);
	ep = t->conn;
	release_sock(ep->sock->sk);
	start = jiffies;
	ep->llp.ops->close(&ep->llp, false);
	KUNIT_ASSERT_NE_MSG(test, 0UL,
			    wait_for_completion_timeout(&t->act.closed_done,
							2 * linger),
			    "the close waits for the rest for ever");
	KUNIT_EXPECT_GE(test, jiffies - start, linger);
	cm_wait(test, &t->pas.closed_done);
	KUNIT_EXPECT_EQ(test, SW_DDP_TCP_PEER_RESET, t->pas.why);
}

/*
 * RFC 6581 §9.2: a responder answers a peer-to-peer Request in kind, its
 * own p2p setting being the initiator's choice; client-server otherwise.
 */
static void cm_test_p2p_answered(struct kunit *test)
{
	struct sw_ddp_mpa_cfg ini = cfg_v2;
	struct cm_test *t = test->priv;

	ini.p2p = true;
	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	cm_handshake(test, &ini, &cfg_v2);
	KUNIT_EXPECT_EQ(test, SW_DDP_RTR_WRITE, t->conn->llp.rtr_send);
	KUNIT_EXPECT_TRUE(test, t->pas.child->conn.rtr_wait);
	KUNIT_EXPECT_EQ(test, SW_DDP_RTR_WRITE, t->pas.child->llp.rtr_wait);
}

static void cm_test_client_server(struct kunit *test)
{
	struct sw_ddp_mpa_cfg resp = cfg_v2;
	struct cm_test *t = test->priv;

	resp.p2p = true;
	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	cm_handshake(test, &cfg_v2, &resp);
	KUNIT_EXPECT_EQ(test, SW_DDP_RTR_NONE, t->conn->conn.rtr);
	KUNIT_EXPECT_EQ(test, SW_DDP_RTR_NONE, t->conn->llp.rtr_send);
	KUNIT_EXPECT_FALSE(test, t->pas.child->conn.rtr_wait);
	KUNIT_EXPECT_EQ(test, SW_DDP_RTR_NONE, t->pas.child->llp.rtr_wait);
}

/*
 * cm.c: the module parameter peer_to_peer has the connections we initiate
 * ask for peer-to-peer mode, with every RTR type and room for a Read RTR.
 */
static void cm_test_p2p_param(struct kunit *test)
{
	const u8 all = SW_DDP_RTR_WRITE | SW_DDP_RTR_READ | SW_DDP_RTR_SEND;
	struct iw_cm_conn_param p = { .ird = 2, .ord = 0 };
	bool saved = READ_ONCE(sw_ddp_cm_peer_to_peer);
	struct sw_ddp_mpa_cfg cfg;
	struct mpa_rr_info req;

	WRITE_ONCE(sw_ddp_cm_peer_to_peer, false);
	sw_ddp_cm_mpa_cfg(&cfg, &p, true);
	KUNIT_EXPECT_FALSE(test, cfg.p2p);
	KUNIT_EXPECT_EQ(test, 0, cfg.ord);
	sw_ddp_mpa_offer(&cfg, &req);
	KUNIT_EXPECT_FALSE(test, req.ird & MPA_V2_IRD_P2P);

	WRITE_ONCE(sw_ddp_cm_peer_to_peer, true);
	sw_ddp_cm_mpa_cfg(&cfg, &p, true);
	KUNIT_EXPECT_TRUE(test, cfg.p2p);
	KUNIT_EXPECT_EQ(test, all, cfg.rtr);
	KUNIT_EXPECT_EQ(test, 1, cfg.ord);
	sw_ddp_mpa_offer(&cfg, &req);
	KUNIT_EXPECT_TRUE(test, req.ird & MPA_V2_IRD_P2P);
	/* accepting: every RTR type taken, whatever the parameter */
	sw_ddp_cm_mpa_cfg(&cfg, &p, false);
	KUNIT_EXPECT_EQ(test, all, cfg.rtr);
	KUNIT_EXPECT_EQ(test, 0, cfg.ord);
	WRITE_ONCE(sw_ddp_cm_peer_to_peer, saved);
}

/* Negotiation alone: RTR choices, and Replies that cannot be taken. */
static void cm_test_negotiate(struct kunit *test)
{
	struct sw_ddp_mpa_cfg offer = cfg_v2, local = cfg_v2;
	struct sw_ddp_term_err term;
	struct sw_ddp_mpa_conn conn;
	struct mpa_rr_info req, rep;

	offer.p2p = true;
	offer.rtr = 0;			/* p2p, no type: a Write */
	sw_ddp_mpa_offer(&offer, &req);
	sw_ddp_mpa_answer(&req, &local, &rep, &conn);
	KUNIT_EXPECT_EQ(test, SW_DDP_RTR_WRITE, conn.rtr);
	KUNIT_EXPECT_TRUE(test, rep.ord & MPA_V2_ORD_RTR_WRITE);

	/* nothing in common: the responder names what it takes */
	offer.rtr = SW_DDP_RTR_SEND;
	local.rtr = SW_DDP_RTR_WRITE | SW_DDP_RTR_READ;
	sw_ddp_mpa_offer(&offer, &req);
	sw_ddp_mpa_answer(&req, &local, &rep, &conn);
	KUNIT_EXPECT_TRUE(test, conn.rtr_wait);
	KUNIT_EXPECT_TRUE(test, rep.ird & MPA_V2_IRD_P2P);
	KUNIT_EXPECT_FALSE(test, rep.ird & MPA_V2_IRD_RTR_SEND);
	KUNIT_EXPECT_TRUE(test, rep.ord & MPA_V2_ORD_RTR_WRITE);
	KUNIT_EXPECT_TRUE(test, rep.ord & MPA_V2_ORD_RTR_READ);
	/* ... and the initiator terminates: No matching RTR option */
	KUNIT_EXPECT_EQ(test, -EPROTO,
			sw_ddp_mpa_conclude(&offer, &rep, &conn, &term));
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_eq(MPA_ERR_NO_MATCHING_RTR,
						   term));

	/* several types offered back: the initiator sends one of them */
	offer.rtr = SW_DDP_RTR_SEND | SW_DDP_RTR_READ;
	KUNIT_EXPECT_EQ(test, 0, sw_ddp_mpa_conclude(&offer, &rep, &conn,
						     &term));
	KUNIT_EXPECT_EQ(test, SW_DDP_RTR_READ, conn.rtr);
	KUNIT_EXPECT_TRUE(test, conn.rtr_send);
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_ok(term));

	/* peer-to-peer asked for, client-server answered */
	rep.ird &= ~MPA_V2_IRD_P2P;
	KUNIT_EXPECT_EQ(test, -EPROTO,
			sw_ddp_mpa_conclude(&offer, &rep, &conn, &term));
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_eq(MPA_ERR_NO_MATCHING_RTR,
						   term));

	/* a higher revision than asked for: closed, no Terminate */
	offer.rev = MPA_REV_1;
	KUNIT_EXPECT_EQ(test, -EPROTO,
			sw_ddp_mpa_conclude(&offer, &rep, &conn, &term));
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_ok(term));
	/* Rev 2 without the RFC 6581 data, to an enhanced Request */
	offer.rev = MPA_REV_2;
	rep.flags &= ~MPA_FLAG_ENHANCED;
	KUNIT_EXPECT_EQ(test, -EPROTO,
			sw_ddp_mpa_conclude(&offer, &rep, &conn, &term));
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_ok(term));
}

/* RFC 6581 §9.1: IRD and ORD, both ways. */
static void cm_test_negotiate_ird_ord(struct kunit *test)
{
	struct sw_ddp_mpa_cfg offer = cfg_v2, local = cfg_v2;
	struct sw_ddp_term_err term;
	struct sw_ddp_mpa_conn conn;
	struct mpa_rr_info req, rep;

	/* the responder's ORD down to our IRD, its IRD up to our ORD */
	local.ird = 1;
	local.ord = 16;
	sw_ddp_mpa_offer(&offer, &req);
	sw_ddp_mpa_answer(&req, &local, &rep, &conn);
	KUNIT_EXPECT_EQ(test, offer.ird, conn.ord);
	KUNIT_EXPECT_EQ(test, offer.ord, conn.ird);
	KUNIT_EXPECT_EQ(test, offer.ird, rep.ord & MPA_V2_IRD_ORD_MASK);
	KUNIT_EXPECT_EQ(test, offer.ord, rep.ird & MPA_V2_IRD_ORD_MASK);

	/* all ones: no negotiation, ours unchanged, all ones back */
	req.ird = MPA_V2_IRD_ORD_MASK;
	req.ord = MPA_V2_IRD_ORD_MASK;
	sw_ddp_mpa_answer(&req, &local, &rep, &conn);
	KUNIT_EXPECT_EQ(test, local.ord, conn.ord);
	KUNIT_EXPECT_EQ(test, local.ird, conn.ird);
	KUNIT_EXPECT_EQ(test, MPA_V2_IRD_ORD_MASK, rep.ord);
	KUNIT_EXPECT_EQ(test, MPA_V2_IRD_ORD_MASK, rep.ird);
	KUNIT_EXPECT_EQ(test, 0, sw_ddp_mpa_conclude(&offer, &rep, &conn,
						     &term));
	KUNIT_EXPECT_EQ(test, offer.ord, conn.ord);
	KUNIT_EXPECT_EQ(test, offer.ird, conn.ird);

	/* a Read RTR makes the responder serve one Read at least */
	offer.p2p = true;
	offer.rtr = SW_DDP_RTR_READ;
	local.ird = 0;
	offer.ord = 0;
	sw_ddp_mpa_offer(&offer, &req);
	sw_ddp_mpa_answer(&req, &local, &rep, &conn);
	KUNIT_EXPECT_EQ(test, SW_DDP_RTR_READ, conn.rtr);
	KUNIT_EXPECT_EQ(test, 1, conn.ird);
	KUNIT_EXPECT_EQ(test, 1, rep.ird & MPA_V2_IRD_ORD_MASK);

	/* a responder ORD we cannot serve: Insufficient IRD resources */
	offer.p2p = false;
	rep.ord = SW_DDP_MAX_IRD + 1;
	KUNIT_EXPECT_EQ(test, -ENOMEM,
			sw_ddp_mpa_conclude(&offer, &rep, &conn, &term));
	KUNIT_EXPECT_TRUE(test, sw_ddp_term_err_eq(MPA_ERR_INSUFFICIENT_IRD,
						   term));
	/* reported all the same (RFC 6581 §9.1) */
	KUNIT_EXPECT_EQ(test, SW_DDP_MAX_IRD + 1, conn.ird);
}

/* Raw peers. */
static void raw_socket(struct kunit *test, int family)
{
	struct cm_test *t = test->priv;

	int err;

	err = sock_create_kern(&init_net, family, SOCK_STREAM, IPPROTO_TCP,
			       &t->raw);
	KUNIT_ASSERT_EQ(test, 0, err);
	t->raw->sk->sk_rcvtimeo = CM_WAIT;
}

static void raw_send(struct kunit *test, const void *buf, size_t len)
{
	struct cm_test *t = test->priv;
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = {};

	KUNIT_ASSERT_EQ(test, (int)len, kernel_sendmsg(t->raw, &msg, &iov, 1,
						       len));
}

static void raw_connect(struct kunit *test)
{
	struct cm_test *t = test->priv;

	raw_socket(test, AF_INET);
	KUNIT_ASSERT_EQ(test, 0, kernel_connect(t->raw,
						(struct sockaddr *)&t->laddr,
						sizeof(struct sockaddr_in),
						0));
}

/* A raw responder (t->raw) listening on loopback, at t->laddr. */
static void raw_listen(struct kunit *test)
{
	struct cm_test *t = test->priv;
	struct sockaddr_storage ss;

	raw_socket(test, AF_INET);
	cm_addr(&ss, AF_INET, false);
	KUNIT_ASSERT_EQ(test, 0, kernel_bind(t->raw, (struct sockaddr *)&ss,
					     sizeof(struct sockaddr_in)));
	KUNIT_ASSERT_EQ(test, 0, kernel_listen(t->raw, 1));
	KUNIT_ASSERT_GE(test, kernel_getsockname(t->raw,
						 (struct sockaddr *)&t->laddr),
			0);
}

/*
 * The raw responder (raw_listen()) takes our initiator's connection, made
 * with @offer, and reads its Request whole.
 */
static struct socket *raw_accept_request(struct kunit *test,
					 const struct sw_ddp_mpa_cfg *offer,
					 unsigned long timeout)
{
	struct cm_test *t = test->priv;
	u8 buf[sizeof(struct mpa_rr_hdr) + MPA_PD_MAX];
	const struct mpa_rr_hdr *h = (void *)buf;
	struct kvec iov = { .iov_base = buf, .iov_len = sizeof(*h) };
	struct msghdr msg = {};
	struct socket *conn;

	cm_connect(test, offer, timeout);
	KUNIT_ASSERT_EQ(test, 0, kernel_accept(t->raw, &conn, 0));
	conn->sk->sk_rcvtimeo = CM_WAIT;
	KUNIT_ASSERT_EQ(test, (int)sizeof(*h),
			kernel_recvmsg(conn, &msg, &iov, 1, sizeof(*h),
				       MSG_WAITALL));
	KUNIT_ASSERT_MEMEQ(test, MPA_KEY_REQ, h->key, MPA_KEY_LEN);
	iov.iov_base = buf + sizeof(*h);
	iov.iov_len = be16_to_cpu(h->pd_len);
	if (iov.iov_len)
		KUNIT_ASSERT_EQ(test, (int)iov.iov_len,
				kernel_recvmsg(conn, &msg, &iov, 1,
					       iov.iov_len, MSG_WAITALL));
	return conn;
}

/* A bad Request: the responder drops the connection, nobody hears of it */
static void cm_bad_request(struct kunit *test, const struct mpa_rr_hdr *h,
			   size_t len)
{
	struct cm_test *t = test->priv;
	u8 buf[64];
	int got, end;

	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	raw_connect(test);
	raw_send(test, h, len);
	end = raw_peer_drain(t->raw, buf, sizeof(buf), &got);
	KUNIT_EXPECT_TRUE(test, end == 0 || end == -ECONNRESET);
	KUNIT_EXPECT_EQ(test, 0, got);	/* no Reply */
	KUNIT_EXPECT_EQ(test, 0, t->pas.nreq);
}

static void cm_request_hdr(struct mpa_rr_hdr *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->key, MPA_KEY_REQ, MPA_KEY_LEN);
	h->rev = MPA_REV_1;
}

/*
 * A raw initiator (t->raw, receive buffer @rcvbuf) whose rev 1 Request,
 * with CRCs if @crc, the listener's child accepts, asking for markers if
 * @markers (RFC 5044: the raw side is to send them, from its first FPDU
 * octet on): the child in RDMA mode, its data path started, the Reply
 * read.
 */
static struct sw_ddp_tcp_ep *cm_raw_rdma_framing(struct kunit *test,
						 int rcvbuf, bool crc,
						 bool markers)
{
	struct sw_ddp_mpa_cfg resp = cfg_v2;
	struct cm_test *t = test->priv;
	struct kvec iov = {};
	struct msghdr msg = {};
	struct sw_ddp_tcp_ep *ep;
	struct mpa_rr_hdr h;

	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	raw_socket(test, AF_INET);
	sock_set_rcvbuf(t->raw->sk, rcvbuf);
	KUNIT_ASSERT_EQ(test, 0, kernel_connect(t->raw,
						(struct sockaddr *)&t->laddr,
						sizeof(struct sockaddr_in),
						0));
	cm_request_hdr(&h);
	if (crc)
		h.flags |= MPA_FLAG_C;
	raw_send(test, &h, sizeof(h));
	cm_wait(test, &t->pas.req_done);
	ep = t->pas.child;
	KUNIT_ASSERT_NOT_NULL(test, ep);
	resp.markers = markers;
	KUNIT_ASSERT_EQ(test, 0, cm_accept(test, &resp));
	iov.iov_base = &h;
	iov.iov_len = sizeof(h);
	KUNIT_ASSERT_EQ(test, (int)sizeof(h),
			kernel_recvmsg(t->raw, &msg, &iov, 1, sizeof(h),
				       MSG_WAITALL));
	KUNIT_ASSERT_MEMEQ(test, MPA_KEY_REP, h.key, MPA_KEY_LEN);
	KUNIT_ASSERT_EQ(test, crc, ep->conn.crc);
	KUNIT_ASSERT_EQ(test, markers, ep->conn.rx_markers);
	cm_start_data(test, ep);
	return ep;
}

static struct sw_ddp_tcp_ep *cm_raw_rdma(struct kunit *test, int rcvbuf)
{
	return cm_raw_rdma_framing(test, rcvbuf, false, false);
}

/* cm_sender()'s FPDU: its header and 4 KiB need no pad */
#define CM_SENDER_FPDU	(MPA_FPDU_OVERHEAD + 2 + SZ_4K)

/*
 * RFC 5040 §5.4, RFC 1122 §4.2.2.13: a graceful close lets out all that
 * is queued to go though the peer, reading nothing yet (its window shut),
 * keeps sending.  A socket shut for receive, or released with that data
 * unread, would answer it with a reset and drop what is still queued.
 */
static void cm_test_close_lingers(struct kunit *test)
{
	const int sndbuf = SZ_64K;
	struct cm_test *t = test->priv;
	struct sw_ddp_tcp_ep *ep;
	int got, end, sent, err;
	u8 *buf;

	buf = kunit_kmalloc(test, SZ_4K, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	ep = cm_raw_rdma(test, SZ_16K);
	sw_ddp_tcp_lock(ep);
	err = sock_setsockopt(ep->sock, SOL_SOCKET, SO_SNDBUF,
			      KERNEL_SOCKPTR((void *)&sndbuf), sizeof(sndbuf));
	sw_ddp_tcp_unlock(ep);
	KUNIT_ASSERT_EQ(test, 0, err);
	KUNIT_ASSERT_TRUE(test, cm_start_sender(test));

	ep->llp.ops->close(&ep->llp, false);
	KUNIT_ASSERT_NE(test, 0UL,
			wait_for_completion_timeout(&t->sender_done, CM_WAIT));
	cm_wait(test, &t->pas.closed_done);
	sent = atomic_read(&t->sent);
	raw_send(test, "more", 4);

	end = raw_peer_drain(t->raw, buf, SZ_4K, &got);
	KUNIT_EXPECT_EQ_MSG(test, 0, end, "not FIN but %d", end);
	KUNIT_EXPECT_GE(test, got, sent * CM_SENDER_FPDU);
}

/*
 * RFC 5044 "Connection lost": a peer's stream that ends inside an FPDU
 * was not closed gracefully, and the owner hears of a lost connection
 * (cm_test_fpdu_with_fin: one that ends after its last FPDU was).
 */
static void cm_test_fin_inside_fpdu(struct kunit *test)
{
	/* ULPDU_Length 8: its header and 2 of its 6 octets of payload */
	static const u8 part[6] = { 0, 8, 0x41, 0x43, 'h', 'a' };
	struct cm_test *t = test->priv;

	cm_raw_rdma(test, SZ_64K);
	raw_send(test, part, sizeof(part));
	KUNIT_ASSERT_EQ(test, 0, kernel_sock_shutdown(t->raw, SHUT_WR));
	cm_wait(test, &t->pas.closed_done);
	KUNIT_EXPECT_EQ(test, SW_DDP_TCP_PEER_RESET, t->pas.why);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&t->sink.ended));
	KUNIT_EXPECT_FALSE(test, completion_done(&t->sink.error_done));
}

/*
 * With CRCs, an FPDU that comes in two TCP segments is checked whole
 * before anything of it goes up (RFC 5044 §8): nothing while its end is
 * still to come, then all of it; or, its CRC spoilt, none, and the
 * stream's MPA CRC error.  Its first part waits unread where the window
 * has room for the rest; where the receive buffer has not (the child's
 * shrunk after the handshake), or where the first segment ends in TCP's
 * urgent mark (tcp_read_sock() offers nothing past it until it is read
 * up to, so waiting would stall the stream for good), it is staged.  A
 * stream that ends before the rest comes was lost inside the FPDU, and
 * places none of it.
 */
struct cm_pieces_case {
	const char *name;
	bool spoilt, fin, markers;
	bool small_rcvbuf, urgent;
};

static const struct cm_pieces_case cm_pieces_cases[] = {
	{ "whole at last", false, false, false },
	{ "CRC spoilt", true, false, false },
	{ "FIN for the rest", false, true, false },
	{ "markers, whole at last", false, false, true },
	{ "markers, CRC spoilt", true, false, true },
	{ "small buffer, whole at last", false, false, false, true },
	{ "small buffer, CRC spoilt", true, false, false, true },
	{ "small buffer, FIN for the rest", false, true, false, true },
	{ "urgent mark, whole at last", false, false, false, false, true },
	{ "urgent mark, CRC spoilt", true, false, false, false, true },
};

static void cm_pieces_desc(const struct cm_pieces_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cm_pieces, cm_pieces_cases, cm_pieces_desc);

#define CM_PIECES_FIRST		500	/* octets in the first segment */

/* Payload octets: the rest outgrows a shrunk receive buffer's room */
static int cm_pieces_payload(const struct cm_pieces_case *c)
{
	return c->small_rcvbuf ? 16000 : 1000;
}

/*
 * The FPDU, with CRC, of a segment of @payload octets, the stream's
 * first (with @markers, at 0 and every 512 octets in; RFC 5044 "MPA
 * Markers"); *@n its length.
 */
static u8 *cm_pieces_fpdu(struct kunit *test, bool markers, int payload,
			  int *n)
{
	const struct mpa_fpdu_cfg fc = { .crc = true, .markers = markers };
	u8 *ulpdu, *wire;
	int i;

	ulpdu = kunit_kmalloc(test, 2 + payload, GFP_KERNEL);
	wire = kunit_kmalloc(test, 2 * payload, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	KUNIT_ASSERT_NOT_NULL(test, wire);
	ulpdu[0] = 0x41;	/* sink_hdr_len(): 2 octets of header */
	ulpdu[1] = 0x43;
	for (i = 0; i < payload; i++)
		ulpdu[2 + i] = i * 7;
	*n = mpa_fpdu_build(wire, 2 * payload, ulpdu, 2 + payload, &fc);
	KUNIT_ASSERT_GT(test, *n, CM_PIECES_FIRST);
	return wire;
}

/* The sink has the segment whole, or gives up waiting after 2 s. */
static void cm_wait_ended(struct cm_test *t)
{
	int i;

	for (i = 0; i < 100 && !atomic_read(&t->sink.ended); i++)
		msleep(20);
}

/* The FPDU's first CM_PIECES_FIRST octets, its last one urgent if @urg */
static void cm_pieces_first(struct kunit *test, const u8 *wire, bool urg)
{
	struct msghdr msg = { .msg_flags = urg ? MSG_OOB : 0 };
	struct cm_test *t = test->priv;
	struct kvec iov = { .iov_base = (void *)wire,
			    .iov_len = CM_PIECES_FIRST };

	KUNIT_ASSERT_EQ(test, CM_PIECES_FIRST,
			kernel_sendmsg(t->raw, &msg, &iov, 1, iov.iov_len));
}

static void cm_test_crc_in_pieces(struct kunit *test)
{
	const struct cm_pieces_case *c = test->param_value;
	int payload = cm_pieces_payload(c);
	struct cm_test *t = test->priv;
	struct sw_ddp_tcp_ep *ep;
	u8 *wire;
	int n;

	wire = cm_pieces_fpdu(test, c->markers, payload, &n);
	if (c->spoilt)
		wire[n - 1] ^= 0x10;	/* in the CRC field */

	ep = cm_raw_rdma_framing(test, SZ_64K, true, c->markers);
	if (c->small_rcvbuf)
		sock_set_rcvbuf(ep->sock->sk, 0);	/* the least */
	cm_pieces_first(test, wire, c->urgent);
	msleep(100);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&t->sink.begun));
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&t->sink.placed));
	if (c->fin) {
		KUNIT_ASSERT_EQ(test, 0, kernel_sock_shutdown(t->raw, SHUT_WR));
		cm_wait(test, &t->pas.closed_done);
		KUNIT_EXPECT_EQ(test, SW_DDP_TCP_PEER_RESET, t->pas.why);
	} else {
		raw_send(test, wire + CM_PIECES_FIRST, n - CM_PIECES_FIRST);
	}
	if (c->spoilt) {
		cm_wait(test, &t->sink.error_done);
		KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(MPA_ERR_CRC),
				sw_ddp_term_err_pack(t->sink.err));
	} else if (!c->fin) {
		cm_wait_ended(t);
		KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->sink.ended));
	}
	if (c->spoilt || c->fin) {
		KUNIT_EXPECT_EQ(test, 0, atomic_read(&t->sink.begun));
		KUNIT_EXPECT_EQ(test, 0, atomic_read(&t->sink.placed));
		return;
	}
	KUNIT_EXPECT_EQ(test, 1, atomic_read(&t->sink.begun));
	KUNIT_EXPECT_EQ(test, payload, atomic_read(&t->sink.placed));
	KUNIT_EXPECT_FALSE(test, completion_done(&t->sink.error_done));
}

static void cm_test_bad_key(struct kunit *test)
{
	struct mpa_rr_hdr h;

	cm_request_hdr(&h);
	h.key[3] = 'X';
	cm_bad_request(test, &h, sizeof(h));
}

static void cm_test_bad_rev(struct kunit *test)
{
	struct mpa_rr_hdr h;

	cm_request_hdr(&h);
	h.rev = 3;
	cm_bad_request(test, &h, sizeof(h));
}

/* PD_Length over 512: refused at once, without waiting for the data. */
static void cm_test_oversized_pdata(struct kunit *test)
{
	struct mpa_rr_hdr h;

	cm_request_hdr(&h);
	h.pd_len = cpu_to_be16(MPA_PD_MAX + 1);
	cm_bad_request(test, &h, sizeof(h));
}

/* Enhanced, but too short to hold IRD/ORD. */
static void cm_test_short_v2(struct kunit *test)
{
	u8 frame[sizeof(struct mpa_rr_hdr) + 2] = {};
	struct mpa_rr_hdr *h = (void *)frame;

	cm_request_hdr(h);
	h->rev = MPA_REV_2;
	h->flags = MPA_FLAG_ENHANCED;
	h->pd_len = cpu_to_be16(2);
	cm_bad_request(test, h, sizeof(frame));
}

#define CM_FUZZ_SEEDS	64
#define CM_FUZZ_JUNK	128
#define CM_FUZZ_MAX	(sizeof(struct mpa_rr_hdr) + MPA_PD_MAX + 2 * CM_FUZZ_JUNK)

/* A Request as an initiator might send it: either revision, any flags. */
static u32 cm_fuzz_request(struct rnd_state *rnd, u8 *frame, u8 *pdata)
{
	struct mpa_rr_info info = {
		.rev = MPA_REV_1 + fz_rand(rnd, 2),
		.flags = prandom_u32_state(rnd) &
			 (MPA_FLAG_C | MPA_FLAG_M | MPA_FLAG_ENHANCED),
		.ird = prandom_u32_state(rnd),
		.ord = prandom_u32_state(rnd),
		.pdata = pdata,
	};
	int len;

	if (info.rev == MPA_REV_1)
		info.flags &= ~MPA_FLAG_ENHANCED;
	info.pdata_len = fz_rand(rnd, 8) ? fz_rand(rnd, 64) :
			 MPA_PD_MAX - (mpa_rr_enhanced(&info) ? 4 : 0);
	prandom_bytes_state(rnd, pdata, info.pdata_len);
	len = mpa_rr_build(frame, CM_FUZZ_MAX, &info, false);
	return len > 0 ? len : 0;
}

/*
 * The first @len octets of @frame spoilt one way of five, or not at all;
 * the length to send returned.
 */
static u32 cm_fuzz_spoil(struct rnd_state *rnd, u8 *frame, u32 len)
{
	static const u16 pd_edges[] = { 0, 1, 3, 4, 5, MPA_PD_MAX,
					MPA_PD_MAX + 1, U16_MAX };
	struct mpa_rr_hdr *h = (void *)frame;
	u32 i;

	if (!len)
		return 0;
	switch (fz_rand(rnd, 8)) {
	case 0:		/* a bit of the header */
		frame[fz_rand(rnd, sizeof(*h))] ^=
			1 << fz_rand(rnd, 8);
		break;
	case 1:		/* a bit of anything */
		frame[fz_rand(rnd, len)] ^=
			1 << fz_rand(rnd, 8);
		break;
	case 2:		/* PD_Length: an edge, or about what follows */
		i = fz_rand(rnd, ARRAY_SIZE(pd_edges) + 3);
		h->pd_len = cpu_to_be16(i < ARRAY_SIZE(pd_edges) ? pd_edges[i] :
					len - sizeof(*h) + i -
					ARRAY_SIZE(pd_edges) - 1);
		break;
	case 3:		/* cut short */
		return fz_rand(rnd, len);
	case 4:		/* FPDU octets (or noise) right behind it */
		i = 1 + fz_rand(rnd, CM_FUZZ_JUNK);
		prandom_bytes_state(rnd, frame + len, i);
		return len + i;
	default:
		break;
	}
	return len;
}

/*
 * Would a reader of @frame's first @sent octets wait for more?  It takes
 * the frame at the length its header says, and has the key and
 * PD_Length checked as soon as they are in (RFC 5044).
 */
static bool cm_fuzz_short(const u8 *frame, u32 sent, const char *key)
{
	const struct mpa_rr_hdr *h = (const void *)frame;

	if (sent < sizeof(*h))
		return true;
	return !memcmp(h->key, key, MPA_KEY_LEN) &&
	       be16_to_cpu(h->pd_len) <= MPA_PD_MAX &&
	       sent < sizeof(*h) + be16_to_cpu(h->pd_len);
}

/* All of it, or false once the peer reset the connection. */
static bool cm_fuzz_send(struct socket *sock, const u8 *buf, u32 len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = {};

	return kernel_sendmsg(sock, &msg, &iov, 1, len) == (int)len;
}

/*
 * RFC 5044 "Connection Setup", from the listener's side, where anyone
 * may connect: whatever comes as a Request, the owner is handed one that
 * mpa_rr_validate() (proven in mpa_test.c) takes, its fields as sent, or
 * the connection is dropped with no Reply and no word to the owner.  The
 * frame is taken at the length its header says, so what follows it (the
 * first FPDUs) is not part of it; one cut short is followed by a FIN,
 * and every other is judged before the listener's timeout.
 * Seeded: spoilt once or twice (a PD_Length over 512 with more octets
 * behind it than the frame can hold, say), sent in one piece or several
 * with a pause between them.
 */
static void cm_test_request_fuzz(struct kunit *test)
{
	struct cm_test *t = test->priv;
	u8 *frame = kunit_kzalloc(test, CM_FUZZ_MAX, GFP_KERNEL);
	u8 *pdata = kunit_kzalloc(test, MPA_PD_MAX, GFP_KERNEL);
	const struct mpa_rr_hdr *h = (void *)frame;
	struct mpa_rr_info want;
	struct rnd_state rnd;
	int n, nreq = 0, got, end;
	u32 seed, len, sent, at, piece;
	unsigned long start;
	bool valid;
	u8 buf[8];

	KUNIT_ASSERT_NOT_NULL(test, frame);
	KUNIT_ASSERT_NOT_NULL(test, pdata);
	t->pas.request_ret = -ECONNREFUSED;	/* drop it once seen */
	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	for (n = 0; n < CM_FUZZ_SEEDS; n++) {
		seed = fz_seed(n);
		prandom_seed_state(&rnd, seed);
		len = cm_fuzz_request(&rnd, frame, pdata);
		KUNIT_ASSERT_GT(test, len, 0U);
		sent = cm_fuzz_spoil(&rnd, frame, len);
		if (!fz_rand(&rnd, 4))	/* and again */
			sent = cm_fuzz_spoil(&rnd, frame, sent);
		len = sizeof(*h) + be16_to_cpu(h->pd_len);
		valid = sent >= sizeof(*h) && len <= sent &&
			!memcmp(h->key, MPA_KEY_REQ, MPA_KEY_LEN) &&
			sw_ddp_term_err_ok(mpa_rr_validate(frame, len, false,
							   &want));

		reinit_completion(&t->pas.req_done);
		raw_connect(test);
		tcp_sock_set_nodelay(t->raw->sk);
		for (at = 0; at < sent; at += piece) {
			piece = sent - at;
			if (fz_rand(&rnd, 2))
				piece = 1 + fz_rand(&rnd, piece);
			/*
			 * Reset: a bad header before the rest is in, or
			 * the Request refused before what follows it
			 */
			if (!cm_fuzz_send(t->raw, frame + at, piece)) {
				KUNIT_EXPECT_TRUE_MSG(test, !valid || at >= len,
						      "seed %u: reset at %u",
						      seed, at);
				break;
			}
			if (at + piece < sent)
				usleep_range(1000, 2000);
		}
		/* cut short: FIN; anything else is judged without waiting */
		start = jiffies;
		if (cm_fuzz_short(frame, sent, MPA_KEY_REQ))
			kernel_sock_shutdown(t->raw, SHUT_WR);
		if (valid) {
			cm_wait(test, &t->pas.req_done);
			nreq++;
			KUNIT_EXPECT_EQ(test, want.rev, t->pas.req.rev);
			KUNIT_EXPECT_EQ(test, want.flags, t->pas.req.flags);
			KUNIT_EXPECT_EQ(test, want.ird, t->pas.req.ird);
			KUNIT_EXPECT_EQ(test, want.ord, t->pas.req.ord);
			KUNIT_EXPECT_EQ(test, want.pdata_len,
					t->pas.req.pdata_len);
			if (want.pdata_len)
				KUNIT_EXPECT_MEMEQ(test, want.pdata,
						   t->pas.req.pdata,
						   want.pdata_len);
		}
		end = raw_peer_drain(t->raw, buf, sizeof(buf), &got);
		KUNIT_EXPECT_TRUE_MSG(test, end == 0 || end == -ECONNRESET,
				      "seed %u: %d", seed, end);
		KUNIT_EXPECT_EQ_MSG(test, 0, got, "seed %u: a Reply", seed);
		KUNIT_EXPECT_LT_MSG(test, jiffies - start, CM_TIMEOUT,
				    "seed %u: dropped only by the timeout",
				    seed);
		KUNIT_EXPECT_EQ_MSG(test, nreq, t->pas.nreq, "seed %u", seed);
		sock_release(t->raw);
		t->raw = NULL;
		if (test->status == KUNIT_FAILURE)
			return;
	}
	kunit_info(test, "%d of %d Requests handed up\n", nreq, n);
}

/*
 * What an initiator's owner hears of @frame, @sent octets of it, and FIN;
 * *@term what the initiator's Terminate carries (RFC 6581 §8), if it
 * sends one, framed per *@conn.
 */
static int cm_fuzz_reply_status(const struct sw_ddp_mpa_cfg *offer,
				const u8 *frame, u32 sent,
				struct mpa_rr_info *rep,
				struct sw_ddp_mpa_conn *conn,
				struct sw_ddp_term_err *term)
{
	const struct mpa_rr_hdr *h = (const void *)frame;
	u32 len = sizeof(*h) + be16_to_cpu(h->pd_len);

	*term = SW_DDP_TERM_OK;
	if (sent < sizeof(*h))
		return -ECONNRESET;
	/* RFC 5044: the key and PD_Length are checked as soon as they are in */
	if (memcmp(h->key, MPA_KEY_REP, MPA_KEY_LEN) ||
	    be16_to_cpu(h->pd_len) > MPA_PD_MAX)
		return -EPROTO;
	if (sent < len)
		return -ECONNRESET;
	if (!sw_ddp_term_err_ok(mpa_rr_validate(frame, len, true, rep)))
		return -EPROTO;
	if (rep->flags & MPA_FLAG_R)
		return -ECONNREFUSED;
	return sw_ddp_mpa_conclude(offer, rep, conn, term);
}

/*
 * All the initiator sent after its Request, read to its close: the
 * Terminate that @term calls for, framed per @conn, or nothing.  The
 * close is a FIN, unless octets of ours were left unread (@unread),
 * which make it a reset once the FIN is acknowledged (struct tcp_linger).
 */
static void cm_fuzz_expect_term(struct kunit *test, struct socket *sock,
				const struct sw_ddp_mpa_conn *conn,
				struct sw_ddp_term_err term, bool unread)
{
	struct mpa_fpdu_cfg cfg = {
		.crc = conn->crc, .markers = conn->tx_markers,
	};
	u8 fpdu[64];
	int got, end;

	end = raw_peer_drain(sock, fpdu, sizeof(fpdu), &got);
	if (sw_ddp_term_err_ok(term)) {
		KUNIT_EXPECT_EQ(test, 0, got);
		KUNIT_EXPECT_TRUE(test, end == 0 || end == -ECONNRESET);
		return;
	}
	if (unread)
		KUNIT_EXPECT_TRUE(test, end == 0 || end == -ECONNRESET);
	else
		KUNIT_EXPECT_EQ(test, 0, end);
	KUNIT_ASSERT_LE(test, got, (int)sizeof(fpdu));
	raw_peer_check_term(test, fpdu, got, &cfg, term);
}

/*
 * RFC 5044 "Connection Setup", RFC 6581 §8 from the initiator's side:
 * whatever a responder sends as its Reply, the owner hears once, and
 * what it hears is what the Reply says as mpa_rr_validate() and
 * sw_ddp_mpa_conclude() (mpa_test.c) read it: a refusal with its private
 * data, a Reply we cannot live with, or success; a Reply malformed or
 * cut short is a protocol error or a lost connection.  On the wire the
 * initiator sends nothing after its Request but, for a Reply RFC 6581 §8
 * has it terminate, that Terminate in FPDU mode, framed as negotiated.
 * Seeded as cm_test_request_fuzz(), Requests of either revision asking
 * for whatever they may.
 */
static void cm_test_reply_fuzz(struct kunit *test)
{
	struct cm_test *t = test->priv;
	u8 *frame = kunit_kzalloc(test, CM_FUZZ_MAX, GFP_KERNEL);
	u8 *pdata = kunit_kzalloc(test, MPA_PD_MAX, GFP_KERNEL);
	const struct mpa_rr_hdr *h = (void *)frame;
	struct sw_ddp_mpa_conn concluded;
	struct sw_ddp_term_err term;
	struct sw_ddp_mpa_cfg offer;
	struct mpa_rr_info rep;
	struct socket *conn;
	struct rnd_state rnd;
	int n, want, nconn = 0, nok = 0, nterm = 0;
	u32 seed, len, sent, at, piece;

	KUNIT_ASSERT_NOT_NULL(test, frame);
	KUNIT_ASSERT_NOT_NULL(test, pdata);
	raw_listen(test);
	for (n = 0; n < CM_FUZZ_SEEDS; n++) {
		seed = fz_seed(n);
		prandom_seed_state(&rnd, seed);
		offer = (struct sw_ddp_mpa_cfg){
			.rev = MPA_REV_1 + fz_rand(&rnd, 2),
			.crc = fz_rand(&rnd, 2),
			.markers = fz_rand(&rnd, 2),
			.ird = 1 + fz_rand(&rnd, 16),
			.ord = 1 + fz_rand(&rnd, 16),
			.rtr = fz_rand(&rnd, 8),
		};
		offer.p2p = offer.rev == MPA_REV_2 && offer.rtr;
		reinit_completion(&t->act.conn_done);
		conn = raw_accept_request(test, &offer, CM_TIMEOUT);
		tcp_sock_set_nodelay(conn->sk);
		conn->sk->sk_rcvtimeo = CM_WAIT;	/* no drain for ever */

		len = cm_fuzz_request(&rnd, frame, pdata);
		KUNIT_ASSERT_GT(test, len, 0U);
		memcpy(frame, MPA_KEY_REP, MPA_KEY_LEN);
		if (!fz_rand(&rnd, 4))
			frame[MPA_KEY_LEN] |= MPA_FLAG_R;
		sent = cm_fuzz_spoil(&rnd, frame, len);
		if (!fz_rand(&rnd, 4))
			sent = cm_fuzz_spoil(&rnd, frame, sent);
		want = cm_fuzz_reply_status(&offer, frame, sent, &rep,
					    &concluded, &term);

		for (at = 0; at < sent; at += piece) {
			piece = sent - at;
			if (fz_rand(&rnd, 2))
				piece = 1 + fz_rand(&rnd, piece);
			if (!cm_fuzz_send(conn, frame + at, piece))
				break;	/* the initiator gave up */
			if (at + piece < sent)
				usleep_range(1000, 2000);
		}
		if (cm_fuzz_short(frame, sent, MPA_KEY_REP))
			kernel_sock_shutdown(conn, SHUT_WR);
		cm_wait(test, &t->act.conn_done);
		nconn++;
		nok += !want;
		KUNIT_EXPECT_EQ_MSG(test, nconn, t->act.nconn, "seed %u", seed);
		KUNIT_EXPECT_EQ_MSG(test, want, t->act.status, "seed %u", seed);
		if (want == -ECONNREFUSED) {
			KUNIT_EXPECT_EQ(test, rep.pdata_len, t->act.pdata_len);
			if (rep.pdata_len)
				KUNIT_EXPECT_MEMEQ(test, rep.pdata,
						   t->act.pdata,
						   rep.pdata_len);
		}
		cm_close_ep(t->conn);
		t->conn = NULL;
		nterm += !sw_ddp_term_err_ok(term);
		cm_fuzz_expect_term(test, conn, &concluded, term,
				    sent > sizeof(*h) + be16_to_cpu(h->pd_len));
		sock_release(conn);
		if (test->status == KUNIT_FAILURE) {
			kunit_info(test, "seed %u\n", seed);
			return;
		}
	}
	kunit_info(test, "%d of %d Replies accepted, %d terminated\n", nok,
		   n, nterm);
}

/* A peer that says nothing is dropped when the timeout fires. */
static void cm_test_silent_initiator(struct kunit *test)
{
	struct cm_test *t = test->priv;
	unsigned long start;
	u8 buf[8];
	int got, end;

	cm_listen(test, AF_INET, false, CM_SHORT);
	raw_connect(test);
	start = jiffies;
	end = raw_peer_drain(t->raw, buf, sizeof(buf), &got);
	KUNIT_EXPECT_TRUE(test, end == 0 || end == -ECONNRESET);
	KUNIT_EXPECT_GE(test, jiffies - start, CM_SHORT - 1);
	KUNIT_EXPECT_LT(test, jiffies - start, CM_WAIT);
	KUNIT_EXPECT_EQ(test, 0, t->pas.nreq);
}

/*
 * A Request handed up and never answered (iw_cm drops its event when the
 * listener's cm_id is going): its socket goes after
 * SW_DDP_TCP_ANSWER_TIMEOUTS timeouts; the endpoint stays, and a late
 * answer finds the connection reset.
 */
static void cm_test_unanswered_request(struct kunit *test)
{
	const unsigned long wait = SW_DDP_TCP_ANSWER_TIMEOUTS * CM_SHORT;
	struct cm_test *t = test->priv;
	unsigned long start;
	struct mpa_rr_hdr h;
	u8 buf[64];
	int got, end;

	cm_listen(test, AF_INET, false, CM_SHORT);
	raw_connect(test);
	t->raw->sk->sk_rcvtimeo = wait + CM_WAIT;
	cm_request_hdr(&h);
	raw_send(test, &h, sizeof(h));
	cm_wait(test, &t->pas.req_done);
	start = jiffies;
	end = raw_peer_drain(t->raw, buf, sizeof(buf), &got);
	KUNIT_EXPECT_EQ(test, -ECONNRESET, end);
	KUNIT_EXPECT_EQ(test, 0, got);
	KUNIT_EXPECT_GE(test, jiffies - start, wait - CM_SHORT);
	KUNIT_ASSERT_NOT_NULL(test, t->pas.child);
	sw_ddp_tcp_lock(t->pas.child);
	KUNIT_EXPECT_EQ(test, -ECONNRESET,
			sw_ddp_tcp_reject(t->pas.child, NULL, 0));
	sw_ddp_tcp_unlock(t->pas.child);
}

/* Does the passive child's socket reach TCP state @state (polled)? */
static bool cm_child_state(struct cm_test *t, int state)
{
	struct sw_ddp_tcp_ep *ep = t->pas.child;
	unsigned long end = jiffies + CM_WAIT;
	bool there;

	do {
		sw_ddp_tcp_lock(ep);
		there = ep->sock && READ_ONCE(ep->sock->sk->sk_state) == state;
		sw_ddp_tcp_unlock(ep);
		if (!there)
			msleep(20);
	} while (!there && time_before(jiffies, end));
	return there;
}

static bool cm_sigpipe_pending(void)
{
	return sigismember(&current->pending.signal, SIGPIPE) ||
	       sigismember(&current->signal->shared_pending.signal, SIGPIPE);
}

/*
 * The peer half-closes after its Request, then resets: TCP leaves EPIPE
 * on the socket (a reset in CLOSE_WAIT).  The Reply of the owner's
 * reject, sent from the rejecting process (rdma_reject() through
 * rdma_ucm), fails with it, and that process gets no SIGPIPE.
 */
static void cm_test_reject_after_reset(struct kunit *test)
{
	struct cm_test *t = test->priv;
	struct mpa_rr_hdr h;
	bool sigpipe;
	int err;

	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	raw_connect(test);
	cm_request_hdr(&h);
	raw_send(test, &h, sizeof(h));
	cm_wait(test, &t->pas.req_done);
	KUNIT_ASSERT_NOT_NULL(test, t->pas.child);
	KUNIT_ASSERT_EQ(test, 0, kernel_sock_shutdown(t->raw, SHUT_WR));
	KUNIT_ASSERT_TRUE(test, cm_child_state(t, TCP_CLOSE_WAIT));
	sock_no_linger(t->raw->sk);
	sock_release(t->raw);
	t->raw = NULL;
	KUNIT_ASSERT_TRUE(test, cm_child_state(t, TCP_CLOSE));

	allow_signal(SIGPIPE);
	sw_ddp_tcp_lock(t->pas.child);
	err = sw_ddp_tcp_reject(t->pas.child, NULL, 0);
	sw_ddp_tcp_unlock(t->pas.child);
	sigpipe = cm_sigpipe_pending();
	flush_signals(current);
	disallow_signal(SIGPIPE);
	KUNIT_EXPECT_EQ(test, -EPIPE, err);
	KUNIT_EXPECT_FALSE(test, sigpipe);
}

KUNIT_DEFINE_ACTION_WRAPPER(cm_sock_release_action, sock_release,
			    struct socket *);

/*
 * Connections that send no Request hold the listener's backlog and no
 * more of it: the next one waits in TCP's accept queue until one of
 * them goes.
 */
static void cm_test_backlog(struct kunit *test)
{
	struct cm_test *t = test->priv;
	struct socket *idle[CM_BACKLOG];
	struct mpa_rr_hdr h;
	int i;

	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	for (i = 0; i < CM_BACKLOG; i++) {
		KUNIT_ASSERT_EQ(test, 0,
				sock_create_kern(&init_net, AF_INET,
						 SOCK_STREAM, IPPROTO_TCP,
						 &idle[i]));
		KUNIT_ASSERT_EQ(test, 0,
				kunit_add_action_or_reset(test,
							  cm_sock_release_action,
							  idle[i]));
		KUNIT_ASSERT_EQ(test, 0,
				kernel_connect(idle[i],
					       (struct sockaddr *)&t->laddr,
					       sizeof(struct sockaddr_in), 0));
	}
	raw_connect(test);
	cm_request_hdr(&h);
	raw_send(test, &h, sizeof(h));
	KUNIT_EXPECT_EQ(test, 0UL,
			wait_for_completion_timeout(&t->pas.req_done,
						    CM_SHORT));
	/* one goes (FIN): the Request behind them is taken */
	KUNIT_ASSERT_EQ(test, 0, kernel_sock_shutdown(idle[0], SHUT_RDWR));
	cm_wait(test, &t->pas.req_done);
	KUNIT_EXPECT_EQ(test, 1, t->pas.nreq);
}

/* A partial Request, then the listener goes: the child goes with it. */
static void cm_test_listener_gone(struct kunit *test)
{
	struct cm_test *t = test->priv;
	struct mpa_rr_hdr h;
	u8 buf[8];
	int got, end;

	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	raw_connect(test);
	cm_request_hdr(&h);
	raw_send(test, &h, 10);
	msleep(50);
	cm_close_ep(t->listener);
	t->listener = NULL;
	end = raw_peer_drain(t->raw, buf, sizeof(buf), &got);
	KUNIT_EXPECT_TRUE(test, end == 0 || end == -ECONNRESET);
	KUNIT_EXPECT_EQ(test, 0, t->pas.nreq);
}

/* The owner refuses the Request (backlog full): the connection goes. */
static void cm_test_request_refused(struct kunit *test)
{
	struct cm_test *t = test->priv;

	t->pas.request_ret = -ENOMEM;
	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	cm_connect(test, &cfg_v2, CM_TIMEOUT);
	cm_wait(test, &t->act.conn_done);
	KUNIT_EXPECT_EQ(test, -ECONNRESET, t->act.status);
	KUNIT_EXPECT_EQ(test, 1, t->pas.nreq);
}

/* A raw responder to @offer: accept one connection, read the Request. */
static struct socket *raw_serve_offer(struct kunit *test,
				      const struct sw_ddp_mpa_cfg *offer,
				      unsigned long timeout)
{
	raw_listen(test);
	return raw_accept_request(test, offer, timeout);
}

static struct socket *raw_serve(struct kunit *test)
{
	return raw_serve_offer(test, &cfg_v2, CM_SHORT);
}

/*
 * A raw responder accepts @offer with @rep, which the initiator cannot
 * take: it reports @status to its owner and, RFC 6581 §8, sends a
 * Terminate with @want as its first FPDU, then closes gracefully.
 */
static void cm_reply_terminated(struct kunit *test,
				const struct sw_ddp_mpa_cfg *offer,
				const struct mpa_rr_info *rep, int status,
				struct sw_ddp_term_err want)
{
	struct cm_test *t = test->priv;
	struct socket *conn = raw_serve_offer(test, offer, CM_TIMEOUT);
	u8 frame[sizeof(struct mpa_rr_hdr) + 4];
	struct kvec iov = { .iov_base = frame };
	struct mpa_fpdu_cfg cfg = {};	/* no CRC, no markers */
	struct msghdr msg = {};
	int len;

	len = mpa_rr_build(frame, sizeof(frame), rep, true);
	KUNIT_ASSERT_GT(test, len, 0);
	iov.iov_len = len;
	KUNIT_ASSERT_EQ(test, len, kernel_sendmsg(conn, &msg, &iov, 1, len));
	cm_wait(test, &t->act.conn_done);
	KUNIT_EXPECT_EQ(test, status, t->act.status);
	KUNIT_EXPECT_EQ(test, 1, t->act.nconn);

	raw_peer_expect_term(test, conn, &cfg, want);
	sock_release(conn);
}

static const struct mpa_rr_info rep_v2 = {
	.flags = MPA_FLAG_ENHANCED, .rev = MPA_REV_2, .ird = 4, .ord = 4,
};

/* RFC 6581 §9.2: the responder names no RTR type we offered. */
static void cm_test_term_no_matching_rtr(struct kunit *test)
{
	struct sw_ddp_mpa_cfg offer = cfg_v2;
	struct mpa_rr_info rep = rep_v2;

	offer.p2p = true;
	offer.rtr = SW_DDP_RTR_SEND;
	rep.ird |= MPA_V2_IRD_P2P;
	rep.ord |= MPA_V2_ORD_RTR_WRITE | MPA_V2_ORD_RTR_READ;
	cm_reply_terminated(test, &offer, &rep, -EPROTO,
			    MPA_ERR_NO_MATCHING_RTR);
}

/* RFC 6581 §9.2: peer-to-peer asked for, client-server answered. */
static void cm_test_term_p2p_refused(struct kunit *test)
{
	struct sw_ddp_mpa_cfg offer = cfg_v2;

	offer.p2p = true;
	cm_reply_terminated(test, &offer, &rep_v2, -EPROTO,
			    MPA_ERR_NO_MATCHING_RTR);
}

/* RFC 6581 §9.1: the responder issues more Reads than we can serve. */
static void cm_test_term_insufficient_ird(struct kunit *test)
{
	struct mpa_rr_info rep = rep_v2;

	rep.ord = SW_DDP_MAX_IRD + 1;
	cm_reply_terminated(test, &cfg_v2, &rep, -ENOMEM,
			    MPA_ERR_INSUFFICIENT_IRD);
}

/*
 * The responder's Reply and its FIN both reach the initiator's socket
 * while it is owned (held here with lock_sock()): releasing it runs
 * data_ready and state_change back to back, so the endpoint's work most
 * likely runs once for both.  The connection is established, and then
 * closed by the peer: the owner hears both.
 */
static void cm_test_reply_then_fin(struct kunit *test)
{
	struct cm_test *t = test->priv;
	struct socket *conn = raw_serve_offer(test, &cfg_v2, CM_TIMEOUT);
	u8 frame[sizeof(struct mpa_rr_hdr) + 4];
	struct kvec iov = { .iov_base = frame };
	struct msghdr msg = {};
	struct sock *sk;
	int len;

	len = mpa_rr_build(frame, sizeof(frame), &rep_v2, true);
	KUNIT_ASSERT_GT(test, len, 0);
	iov.iov_len = len;
	sw_ddp_tcp_lock(t->conn);
	sk = t->conn->sock->sk;
	sock_hold(sk);
	sw_ddp_tcp_unlock(t->conn);
	lock_sock(sk);
	KUNIT_EXPECT_EQ(test, len, kernel_sendmsg(conn, &msg, &iov, 1, len));
	kernel_sock_shutdown(conn, SHUT_WR);
	msleep(200);		/* both in the socket's backlog */
	release_sock(sk);
	sock_put(sk);
	cm_wait(test, &t->act.conn_done);
	KUNIT_EXPECT_EQ(test, 0, t->act.status);
	cm_wait(test, &t->act.closed_done);
	KUNIT_EXPECT_EQ(test, SW_DDP_TCP_PEER_FIN, t->act.why);
	sock_release(conn);
}

static void cm_test_bad_reply(struct kunit *test)
{
	struct cm_test *t = test->priv;
	struct socket *conn = raw_serve(test);
	struct mpa_rr_hdr h = { .rev = MPA_REV_1 };
	struct kvec iov = { .iov_base = &h, .iov_len = sizeof(h) };
	struct msghdr msg = {};

	memcpy(h.key, MPA_KEY_REQ, MPA_KEY_LEN);	/* wrong key */
	kernel_sendmsg(conn, &msg, &iov, 1, sizeof(h));
	cm_wait(test, &t->act.conn_done);
	KUNIT_EXPECT_EQ(test, -EPROTO, t->act.status);
	sock_release(conn);
}

static void cm_test_silent_responder(struct kunit *test)
{
	struct cm_test *t = test->priv;
	struct socket *conn = raw_serve(test);

	cm_wait(test, &t->act.conn_done);
	KUNIT_EXPECT_EQ(test, -ETIMEDOUT, t->act.status);
	KUNIT_EXPECT_EQ(test, 1, t->act.nconn);
	sock_release(conn);
}

static void cm_test_responder_closes(struct kunit *test)
{
	struct cm_test *t = test->priv;

	sock_release(raw_serve(test));
	cm_wait(test, &t->act.conn_done);
	KUNIT_EXPECT_EQ(test, -ECONNRESET, t->act.status);
}

static void cm_test_no_listener(struct kunit *test)
{
	struct cm_test *t = test->priv;

	/* a port just released, so nobody listens there */
	cm_listen(test, AF_INET, false, CM_TIMEOUT);
	cm_close_ep(t->listener);
	t->listener = NULL;
	cm_connect(test, &cfg_v2, CM_TIMEOUT);
	cm_wait(test, &t->act.conn_done);
	KUNIT_EXPECT_EQ(test, -ECONNREFUSED, t->act.status);
	KUNIT_EXPECT_EQ(test, 0, t->act.pdata_len);
}

static struct kunit_case cm_test_cases[] = {
	KUNIT_CASE(cm_test_rev2),
	KUNIT_CASE(cm_test_handover),
	KUNIT_CASE(cm_test_close),
	KUNIT_CASE(cm_test_abort),
	KUNIT_CASE(cm_test_ipv6_wildcard),
	KUNIT_CASE(cm_test_ipv4_wildcard),
	KUNIT_CASE(cm_test_rev1),
	KUNIT_CASE(cm_test_rev1_initiator),
	KUNIT_CASE(cm_test_crc),
	KUNIT_CASE(cm_test_markers),
	KUNIT_CASE(cm_test_markers_responder),
	KUNIT_CASE(cm_test_reject),
	KUNIT_CASE(cm_test_ird_capped),
	KUNIT_CASE(cm_test_p2p_rtr),
	KUNIT_CASE(cm_test_rtr_timeout),
	KUNIT_CASE(cm_test_rtr_timeout_sender_waits),
	KUNIT_CASE(cm_test_close_sender_waits),
	KUNIT_CASE(cm_test_now_rest),
	KUNIT_CASE(cm_test_now_rest_close),
	KUNIT_CASE_SLOW(cm_test_now_rest_close_stuck),
	KUNIT_CASE(cm_test_close_lingers),
	KUNIT_CASE(cm_test_fin_inside_fpdu),
	KUNIT_CASE_PARAM(cm_test_crc_in_pieces, cm_pieces_gen_params),
	KUNIT_CASE(cm_test_fpdu_with_fin),
	KUNIT_CASE(cm_test_p2p_answered),
	KUNIT_CASE(cm_test_client_server),
	KUNIT_CASE(cm_test_p2p_param),
	KUNIT_CASE(cm_test_negotiate),
	KUNIT_CASE(cm_test_negotiate_ird_ord),
	KUNIT_CASE(cm_test_bad_key),
	KUNIT_CASE(cm_test_bad_rev),
	KUNIT_CASE(cm_test_oversized_pdata),
	KUNIT_CASE(cm_test_short_v2),
	KUNIT_CASE(cm_test_request_fuzz),
	KUNIT_CASE(cm_test_reply_fuzz),
	KUNIT_CASE(cm_test_silent_initiator),
	KUNIT_CASE(cm_test_unanswered_request),
	KUNIT_CASE(cm_test_reject_after_reset),
	KUNIT_CASE(cm_test_backlog),
	KUNIT_CASE(cm_test_listener_gone),
	KUNIT_CASE(cm_test_request_refused),
	KUNIT_CASE(cm_test_bad_reply),
	KUNIT_CASE(cm_test_reply_then_fin),
	KUNIT_CASE(cm_test_term_no_matching_rtr),
	KUNIT_CASE(cm_test_term_p2p_refused),
	KUNIT_CASE(cm_test_term_insufficient_ird),
	KUNIT_CASE(cm_test_silent_responder),
	KUNIT_CASE(cm_test_responder_closes),
	KUNIT_CASE(cm_test_no_listener),
	{}
};

static struct kunit_suite cm_test_suite = {
	.name = "sw_ddp_cm",
	.init = cm_test_init,
	.exit = cm_test_exit,
	.test_cases = cm_test_cases,
};

kunit_test_suites(&cm_test_suite);
