// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the MPA exchange against the kernel's siw, on the wire.
 *
 * A module of its own (sw_ddp_kunit_siw), loaded only by the guest script
 * that sets up its peer (siw_kunit in scripts/guest/tcp.sh): an RDMA
 * device "siw0" on a netdev with 192.0.2.1, `rping -s -P -a 192.0.2.1 -p
 * 7174` (a siw responder) and `rping -c -a 192.0.2.1 -p 7175` retried in a
 * loop (a siw initiator), all in siw0's network namespace, where these
 * tests connect and listen too.  Without siw0 every case fails: a suite
 * that skipped would pass unseen.  The llp_tcp endpoints here stand in for
 * sw_ddp's side; no data path runs, so after the exchange each side just
 * closes.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>

#include "llp_tcp.h"
#include "sw_ddp.h"

#define SIW_ADDR		0xc0000201	/* 192.0.2.1, on siw0 */
#define SIW_SERVER_PORT		7174	/* rping -s on siw */
#define SIW_CLIENT_PORT		7175	/* rping -c on siw connects here */
#define SIW_WAIT		msecs_to_jiffies(5000)
#define SIW_CLIENT_WAIT		msecs_to_jiffies(30000)

struct siw_peer {
	struct completion req_done, conn_done;
	struct sw_ddp_tcp_ep *listener, *conn, *child;
	struct net *net;	/* siw0's netdev's */
	int status;
};

static int siw_request(struct sw_ddp_tcp_ep *l, struct sw_ddp_tcp_ep *child)
{
	struct siw_peer *p = l->owner;

	if (p->child)
		return -EBUSY;	/* one is enough */
	sw_ddp_tcp_get(child);
	p->child = child;
	complete(&p->req_done);
	return 0;
}

static int siw_connected(struct sw_ddp_tcp_ep *ep, int status)
{
	struct siw_peer *p = ep->owner;

	p->status = status;
	complete(&p->conn_done);
	return 0;
}

static void siw_rtr(struct sw_ddp_tcp_ep *ep)
{
}

static void siw_closed(struct sw_ddp_tcp_ep *ep, enum sw_ddp_tcp_close why)
{
}

static const struct sw_ddp_tcp_ep_ops siw_ops = {
	.request = siw_request,
	.connected = siw_connected,
	.rtr = siw_rtr,
	.closed = siw_closed,
};

static void siw_addr(struct sockaddr_storage *ss, u16 port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(SIW_ADDR);
	sin->sin_port = htons(port);
}

static void siw_close(struct sw_ddp_tcp_ep *ep)
{
	if (!ep)
		return;
	sw_ddp_tcp_lock(ep);
	sw_ddp_tcp_close(ep, true);
	sw_ddp_tcp_unlock(ep);
	sw_ddp_tcp_put(ep);
}

static int siw_test_init(struct kunit *test)
{
	struct ib_device *siw = ib_device_get_by_name("siw0", RDMA_DRIVER_SIW);
	struct net_device *ndev;
	struct siw_peer *p;

	KUNIT_ASSERT_NOT_NULL_MSG(test, siw,
				  "no siw0: load from scripts/guest/tcp.sh");
	ndev = ib_device_get_netdev(siw, 1);
	ib_device_put(siw);
	KUNIT_ASSERT_NOT_NULL_MSG(test, ndev, "siw0 has no netdev");
	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	if (p)
		p->net = get_net(dev_net(ndev));
	dev_put(ndev);
	if (!p)
		return -ENOMEM;
	init_completion(&p->req_done);
	init_completion(&p->conn_done);
	test->priv = p;
	return 0;
}

static void siw_test_exit(struct kunit *test)
{
	struct siw_peer *p = test->priv;

	if (!p)
		return;
	siw_close(p->child);
	siw_close(p->conn);
	siw_close(p->listener);
	put_net(p->net);
}

/* Connect to siw's rping server with @offer; return the outcome. */
static int siw_connect(struct kunit *test, const struct sw_ddp_mpa_cfg *offer)
{
	struct siw_peer *p = test->priv;
	struct sockaddr_storage local, remote;
	int err;

	siw_addr(&local, 0);
	siw_addr(&remote, SIW_SERVER_PORT);
	err = sw_ddp_tcp_connect(p->net, &local, &remote, false, offer,
				 SIW_WAIT, &siw_ops, p, &p->conn);
	KUNIT_ASSERT_EQ(test, 0, err);
	KUNIT_ASSERT_NE(test, 0UL,
			wait_for_completion_timeout(&p->conn_done,
						    2 * SIW_WAIT));
	if (p->status)
		kunit_info(test, "status %d, reply of %u octets, flags %#x",
			   p->status, p->conn->rx_len, p->conn->peer.flags);
	return p->status;
}

static const struct sw_ddp_mpa_cfg siw_cfg = {
	.rev = MPA_REV_2, .ird = 4, .ord = 4,
	.rtr = SW_DDP_RTR_WRITE | SW_DDP_RTR_READ,
};

/* Our defaults, siw's defaults: Rev 2, enhanced, no CRC, no markers. */
static void siw_responder_default(struct kunit *test)
{
	struct siw_peer *p = test->priv;
	struct sw_ddp_mpa_conn *c;

	KUNIT_ASSERT_EQ(test, 0, siw_connect(test, &siw_cfg));
	c = &p->conn->conn;
	KUNIT_EXPECT_EQ(test, MPA_REV_2, c->rev);
	KUNIT_EXPECT_TRUE(test, c->enhanced);
	KUNIT_EXPECT_FALSE(test, c->crc);
	KUNIT_EXPECT_FALSE(test, c->tx_markers || c->rx_markers);
	KUNIT_EXPECT_EQ(test, SW_DDP_RTR_NONE, c->rtr);
	KUNIT_EXPECT_LE(test, c->ord, siw_cfg.ord);
}

/* RFC 5044: siw uses CRCs when asked to. */
static void siw_responder_crc(struct kunit *test)
{
	struct sw_ddp_mpa_cfg offer = siw_cfg;
	struct siw_peer *p = test->priv;

	offer.crc = true;
	KUNIT_ASSERT_EQ(test, 0, siw_connect(test, &offer));
	KUNIT_EXPECT_TRUE(test, p->conn->conn.crc);
}

/* siw sends no markers: it refuses a Request that wants them. */
static void siw_responder_markers(struct kunit *test)
{
	struct sw_ddp_mpa_cfg offer = siw_cfg;
	struct siw_peer *p = test->priv;

	offer.markers = true;
	KUNIT_EXPECT_EQ(test, -ECONNREFUSED, siw_connect(test, &offer));
	/* refused by an MPA Reply with R set, not by TCP */
	KUNIT_EXPECT_TRUE(test, p->conn->peer.flags & MPA_FLAG_R);
}

/*
 * RFC 6581 peer-to-peer against siw (its module parameter peer_to_peer
 * off, as by default, still lets it answer a p2p Request) is left out:
 * with no data path here to send the RTR, siw's responder waits for it and
 * our reset then makes siw deliver IW_CM_EVENT_CLOSE in the iw_cm's
 * CONN_RECV state, a BUG() in iwcm.c (siw's bug, seen with 6.12).  It
 * picked the Write RTR, as sw_ddp_mpa_conclude() requires, when tried.
 */

/* Revision 1: siw answers in kind. */
static void siw_responder_rev1(struct kunit *test)
{
	struct sw_ddp_mpa_cfg offer = siw_cfg;
	struct siw_peer *p = test->priv;

	offer.rev = MPA_REV_1;
	KUNIT_ASSERT_EQ(test, 0, siw_connect(test, &offer));
	KUNIT_EXPECT_EQ(test, MPA_REV_1, p->conn->conn.rev);
	KUNIT_EXPECT_FALSE(test, p->conn->conn.enhanced);
}

/* siw connects to us: its Request, and our Reply it takes. */
static void siw_initiator(struct kunit *test)
{
	struct siw_peer *p = test->priv;
	struct sockaddr_storage addr;
	struct sw_ddp_tcp_ep *ep;
	int err;

	siw_addr(&addr, SIW_CLIENT_PORT);
	err = sw_ddp_tcp_listen(p->net, &addr, 4, 0, false, SIW_WAIT,
				&siw_ops, p, &p->listener);
	KUNIT_ASSERT_EQ(test, 0, err);
	KUNIT_ASSERT_NE_MSG(test, 0UL,
			    wait_for_completion_timeout(&p->req_done,
							SIW_CLIENT_WAIT),
			    "no MPA Request from siw's rping -c");
	ep = p->child;
	KUNIT_EXPECT_EQ(test, MPA_REV_2, ep->peer.rev);
	KUNIT_EXPECT_TRUE(test, mpa_rr_enhanced(&ep->peer));
	KUNIT_EXPECT_FALSE(test, ep->peer.flags & (MPA_FLAG_C | MPA_FLAG_M));
	KUNIT_EXPECT_FALSE(test, ep->peer.ird & MPA_V2_IRD_P2P);

	sw_ddp_tcp_lock(ep);
	err = sw_ddp_tcp_accept(ep, &siw_cfg);
	if (!err)
		err = sw_ddp_tcp_send_reply(ep);
	sw_ddp_tcp_unlock(ep);
	KUNIT_ASSERT_EQ(test, 0, err);
	/* siw would reset a Reply it did not like at once */
	msleep(500);
	KUNIT_EXPECT_EQ(test, SW_DDP_TCP_RDMA, READ_ONCE(ep->state));
	KUNIT_EXPECT_FALSE(test, ep->conn.crc);
	KUNIT_EXPECT_TRUE(test, ep->conn.enhanced);
}

static struct kunit_case siw_test_cases[] = {
	KUNIT_CASE(siw_responder_default),
	KUNIT_CASE(siw_responder_crc),
	KUNIT_CASE(siw_responder_markers),
	KUNIT_CASE(siw_responder_rev1),
	KUNIT_CASE_SLOW(siw_initiator),
	{}
};

static struct kunit_suite siw_test_suite = {
	.name = "sw_ddp_cm_siw",
	.init = siw_test_init,
	.exit = siw_test_exit,
	.test_cases = siw_test_cases,
};

kunit_test_suites(&siw_test_suite);

MODULE_DESCRIPTION("KUnit suite for sw_ddp: MPA against the kernel's siw");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
