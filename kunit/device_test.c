// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: sw_ddp device lifetime and netdev tracking, on a real registered
 * Ethernet netdev and real ib_core registration.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/kthread.h>
#include <linux/rtnetlink.h>
#include <rdma/ib_cache.h>

#include "sw_ddp.h"

#define TEST_IBDEV	"swddp_kunit0"

static const u8 test_mac[ETH_ALEN] = { 0x02, 0x00, 0x5e, 0x10, 0x20, 0x30 };

struct device_test {
	struct net_device *netdev;
	struct ib_event_handler handler;
	struct completion event_done;
	enum ib_event_type last_event;
};

static netdev_tx_t test_xmit(struct sk_buff *skb, struct net_device *netdev)
{
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static int test_get_link_ksettings(struct net_device *netdev,
				   struct ethtool_link_ksettings *cmd)
{
	cmd->base.speed = SPEED_10000;
	cmd->base.duplex = DUPLEX_FULL;
	return 0;
}

static const struct net_device_ops test_netdev_ops = {
	.ndo_start_xmit = test_xmit,
};

static const struct ethtool_ops test_ethtool_ops = {
	.get_link_ksettings = test_get_link_ksettings,
};

static int device_test_init(struct kunit *test)
{
	struct device_test *ctx;
	struct net_device *netdev;
	int err;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;

	netdev = alloc_etherdev(0);
	if (!netdev)
		return -ENOMEM;
	netdev->netdev_ops = &test_netdev_ops;
	netdev->ethtool_ops = &test_ethtool_ops;
	eth_hw_addr_set(netdev, test_mac);
	strscpy(netdev->name, "swddpk%d", sizeof(netdev->name));

	err = register_netdev(netdev);
	if (err) {
		free_netdev(netdev);
		return err;
	}
	rtnl_lock();
	err = dev_open(netdev, NULL);
	rtnl_unlock();

	ctx->netdev = netdev;
	init_completion(&ctx->event_done);
	test->priv = ctx;
	return err;
}

/* Unregistering the netdev must also take any sw_ddp device on it away. */
static void device_test_exit(struct kunit *test)
{
	struct device_test *ctx = test->priv;

	if (ctx->handler.device)
		ib_unregister_event_handler(&ctx->handler);
	unregister_netdev(ctx->netdev);
	free_netdev(ctx->netdev);
}

/*
 * The test device, without holding a reference: a failed assertion must
 * not leave one behind, or unregistering the netdev would wait forever.
 * Only the exit hook's unregister_netdev() removes the device.
 */
static struct ib_device *test_ibdev(void)
{
	struct ib_device *ibdev;

	ibdev = ib_device_get_by_name(TEST_IBDEV, RDMA_DRIVER_UNKNOWN);
	if (ibdev)
		ib_device_put(ibdev);
	return ibdev;
}

static enum ib_port_state port_state(struct kunit *test,
				     struct ib_device *ibdev)
{
	struct ib_port_attr attr;

	KUNIT_ASSERT_EQ(test, ib_query_port(ibdev, SW_DDP_PORT, &attr), 0);
	return attr.state;
}

static void test_event_handler(struct ib_event_handler *handler,
			       struct ib_event *event)
{
	struct device_test *ctx =
		container_of(handler, struct device_test, handler);

	/* ib_core's own GID cache events may come too; watch the port. */
	if (event->event != IB_EVENT_PORT_ERR &&
	    event->event != IB_EVENT_PORT_ACTIVE)
		return;
	WRITE_ONCE(ctx->last_event, event->event);
	complete(&ctx->event_done);
}

/* A modified EUI-64: flip the universal/local bit, put ff:fe in between. */
static void node_guid_from_mac(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sw_ddp_node_guid(test_mac)),
			0x00005efffe102030ULL);
}

/*
 * A netdev with no address (lo's is zero) still gives a device that
 * rdma_cm can find: ib_core keeps no zero GID, and rdma_cm looks an
 * iWARP device up by GID 0.  Ours is then random, and stays.
 */
static void newlink_without_mac(struct kunit *test)
{
	struct device_test *ctx = test->priv;
	static const u8 zero[ETH_ALEN];
	const struct ib_gid_attr *attr;
	struct ib_device *ibdev;
	union ib_gid gid, again;

	rtnl_lock();
	eth_hw_addr_set(ctx->netdev, zero);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test,
			sw_ddp_newlink(TEST_IBDEV, ctx->netdev, SW_DDP_LLP_TCP),
			0);
	ibdev = test_ibdev();
	KUNIT_ASSERT_NOT_NULL(test, ibdev);
	KUNIT_ASSERT_EQ(test, rdma_query_gid(ibdev, SW_DDP_PORT, 0, &gid), 0);
	KUNIT_EXPECT_FALSE(test, is_zero_ether_addr(gid.raw));
	KUNIT_EXPECT_NE(test, be64_to_cpu(ibdev->node_guid), 0ULL);
	attr = rdma_get_gid_attr(ibdev, SW_DDP_PORT, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(attr));
	KUNIT_EXPECT_MEMEQ(test, attr->gid.raw, gid.raw, sizeof(gid.raw));
	rdma_put_gid_attr(attr);
	KUNIT_ASSERT_EQ(test, rdma_query_gid(ibdev, SW_DDP_PORT, 0, &again),
			0);
	KUNIT_EXPECT_MEMEQ(test, again.raw, gid.raw, sizeof(gid.raw));
}

static void newlink_registers_iwarp_device(struct kunit *test)
{
	struct device_test *ctx = test->priv;
	struct ib_device *ibdev;
	union ib_gid gid;

	KUNIT_ASSERT_EQ(test,
			sw_ddp_newlink(TEST_IBDEV, ctx->netdev, SW_DDP_LLP_TCP),
			0);
	ibdev = test_ibdev();
	KUNIT_ASSERT_NOT_NULL(test, ibdev);

	KUNIT_EXPECT_EQ(test, ibdev->node_type, RDMA_NODE_RNIC);
	KUNIT_EXPECT_TRUE(test, rdma_protocol_iwarp(ibdev, SW_DDP_PORT));
	KUNIT_EXPECT_EQ(test, ibdev->ops.driver_id, RDMA_DRIVER_SIW);
	KUNIT_EXPECT_EQ(test, port_state(test, ibdev), IB_PORT_ACTIVE);

	KUNIT_EXPECT_EQ(test, rdma_query_gid(ibdev, SW_DDP_PORT, 0, &gid), 0);
	KUNIT_EXPECT_MEMEQ(test, gid.raw, test_mac, ETH_ALEN);
}

static void newlink_refuses_duplicates(struct kunit *test)
{
	struct device_test *ctx = test->priv;
	struct net_device *netdev = ctx->netdev;

	KUNIT_ASSERT_EQ(test,
			sw_ddp_newlink(TEST_IBDEV, netdev, SW_DDP_LLP_TCP), 0);
	/* Same name, and a second device of the same LLP on the netdev. */
	KUNIT_EXPECT_EQ(test, sw_ddp_newlink(TEST_IBDEV, netdev, SW_DDP_LLP_TCP),
			-EEXIST);
	KUNIT_EXPECT_EQ(test,
			sw_ddp_newlink("swddp_kunit1", netdev, SW_DDP_LLP_TCP),
			-EEXIST);
	KUNIT_EXPECT_NOT_NULL(test, test_ibdev());
	KUNIT_EXPECT_NULL(test, ib_device_get_by_name("swddp_kunit1",
						      RDMA_DRIVER_UNKNOWN));
}

static void newlink_refuses_non_ethernet(struct kunit *test)
{
	struct device_test *ctx = test->priv;
	unsigned short type = ctx->netdev->type;

	ctx->netdev->type = ARPHRD_PPP;
	KUNIT_EXPECT_EQ(test,
			sw_ddp_newlink(TEST_IBDEV, ctx->netdev, SW_DDP_LLP_TCP),
			-EINVAL);
	ctx->netdev->type = type;
	KUNIT_EXPECT_NULL(test, test_ibdev());
}

/* Wait for one async event of the given type, and the port to match it. */
static void expect_port_event(struct kunit *test, struct ib_device *ibdev,
			      enum ib_event_type event,
			      enum ib_port_state state)
{
	struct device_test *ctx = test->priv;

	KUNIT_ASSERT_GT(test,
			wait_for_completion_timeout(&ctx->event_done, 5 * HZ),
			0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->last_event), event);
	KUNIT_EXPECT_EQ(test, port_state(test, ibdev), state);
	reinit_completion(&ctx->event_done);
}

static void port_follows_carrier(struct kunit *test)
{
	struct device_test *ctx = test->priv;
	struct ib_device *ibdev;

	KUNIT_ASSERT_EQ(test,
			sw_ddp_newlink(TEST_IBDEV, ctx->netdev, SW_DDP_LLP_TCP),
			0);
	ibdev = test_ibdev();
	KUNIT_ASSERT_NOT_NULL(test, ibdev);
	INIT_IB_EVENT_HANDLER(&ctx->handler, ibdev, test_event_handler);
	ib_register_event_handler(&ctx->handler);

	netif_carrier_off(ctx->netdev);
	expect_port_event(test, ibdev, IB_EVENT_PORT_ERR, IB_PORT_DOWN);
	netif_carrier_on(ctx->netdev);
	expect_port_event(test, ibdev, IB_EVENT_PORT_ACTIVE, IB_PORT_ACTIVE);
}

static void netdev_unregister_removes_device(struct kunit *test)
{
	struct device_test *ctx = test->priv;

	KUNIT_ASSERT_EQ(test,
			sw_ddp_newlink(TEST_IBDEV, ctx->netdev, SW_DDP_LLP_TCP),
			0);
	/* unregister_netdev() returns once every reference is dropped. */
	unregister_netdev(ctx->netdev);
	KUNIT_EXPECT_NULL(test, test_ibdev());

	/* Leave a registered netdev for the exit hook. */
	free_netdev(ctx->netdev);
	KUNIT_ASSERT_EQ(test, device_test_init(test), 0);
}

struct unregister_run {
	struct net_device *netdev;
	struct completion done;
};

static int unregister_fn(void *arg)
{
	struct unregister_run *run = arg;

	unregister_netdev(run->netdev);
	complete(&run->done);
	return 0;
}

/*
 * The netdev goes while a client holds the device: the device goes once
 * the client lets go, though the netdev core sends NETDEV_UNREGISTER
 * again each second meanwhile (netdev_wait_allrefs_any()).
 */
static void netdev_unregister_while_held(struct kunit *test)
{
	struct device_test *ctx = test->priv;
	struct unregister_run *run;
	struct task_struct *task;
	struct ib_device *ibdev;
	bool gone;

	/* Not the test's: a thread that never ends would still use it. */
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, run);
	run->netdev = ctx->netdev;
	init_completion(&run->done);
	KUNIT_ASSERT_EQ(test,
			sw_ddp_newlink(TEST_IBDEV, ctx->netdev, SW_DDP_LLP_TCP),
			0);
	ibdev = ib_device_get_by_name(TEST_IBDEV, RDMA_DRIVER_UNKNOWN);
	KUNIT_ASSERT_NOT_NULL(test, ibdev);
	task = kthread_run(unregister_fn, run, "sw_ddp_unreg");
	if (IS_ERR(task)) {
		ib_device_put(ibdev);
		kfree(run);
		KUNIT_FAIL_AND_ABORT(test, "kthread_run: %ld", PTR_ERR(task));
	}
	msleep(2500);		/* two of its reminders */
	KUNIT_EXPECT_FALSE(test, completion_done(&run->done));
	ib_device_put(ibdev);

	gone = wait_for_completion_timeout(&run->done, 10 * HZ);
	KUNIT_EXPECT_TRUE_MSG(test, gone, "the netdev is still held");
	if (gone) {
		KUNIT_EXPECT_NULL(test, test_ibdev());
		free_netdev(ctx->netdev);
		kfree(run);
	}
	/* A registered netdev for the exit hook; a stuck one is left. */
	KUNIT_ASSERT_EQ(test, device_test_init(test), 0);
}

/*
 * A netdev moved to another namespace stays registered: it sends
 * NETDEV_UNREGISTER, then NETDEV_REGISTER in the new one, as replayed
 * here.  Its old device goes, but only once its users let go (here a
 * reference held on it); meanwhile a new device may be made on the
 * netdev, as `rdma link add` in the new namespace would.
 */
static void netdev_moved_new_device(struct kunit *test)
{
	struct device_test *ctx = test->priv;
	struct net_device *netdev = ctx->netdev;
	struct ib_device *old, *new;
	int err, i;

	KUNIT_ASSERT_EQ(test,
			sw_ddp_newlink(TEST_IBDEV, netdev, SW_DDP_LLP_TCP), 0);
	old = ib_device_get_by_name(TEST_IBDEV, RDMA_DRIVER_UNKNOWN);
	KUNIT_ASSERT_NOT_NULL(test, old);

	rtnl_lock();
	dev_close(netdev);
	call_netdevice_notifiers(NETDEV_UNREGISTER, netdev);
	call_netdevice_notifiers(NETDEV_REGISTER, netdev);
	rtnl_unlock();
	err = sw_ddp_newlink("swddp_kunit1", netdev, SW_DDP_LLP_TCP);
	KUNIT_EXPECT_EQ(test, 0, err);
	ib_device_put(old);

	/* the old one goes; the new one stays, for the exit hook */
	for (i = 0; i < 50 && test_ibdev(); i++)
		msleep(100);
	KUNIT_EXPECT_NULL(test, test_ibdev());
	new = ib_device_get_by_name("swddp_kunit1", RDMA_DRIVER_UNKNOWN);
	KUNIT_EXPECT_EQ(test, !err, !!new);
	if (new)
		ib_device_put(new);
}

static struct kunit_case device_test_cases[] = {
	KUNIT_CASE(node_guid_from_mac),
	KUNIT_CASE(newlink_registers_iwarp_device),
	KUNIT_CASE(newlink_without_mac),
	KUNIT_CASE(newlink_refuses_duplicates),
	KUNIT_CASE(newlink_refuses_non_ethernet),
	KUNIT_CASE(port_follows_carrier),
	KUNIT_CASE(netdev_unregister_removes_device),
	KUNIT_CASE(netdev_moved_new_device),
	KUNIT_CASE_SLOW(netdev_unregister_while_held),
	{}
};

static struct kunit_suite device_test_suite = {
	.name = "sw_ddp_device",
	.init = device_test_init,
	.exit = device_test_exit,
	.test_cases = device_test_cases,
};

kunit_test_suites(&device_test_suite);

MODULE_DESCRIPTION("KUnit suites for sw_ddp");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
