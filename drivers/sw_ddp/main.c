// SPDX-License-Identifier: GPL-2.0
/*
 * sw_ddp main: the module, `rdma link` types and device lifetime.
 *
 * `rdma link add NAME type sw_ddp netdev IF` creates an iWARP device that
 * runs DDP over TCP (MPA) on IF, `type sw_ddp_sctp` one that runs it over
 * SCTP (RFC 5043).
 * A device lives until `rdma link del`, removal of its netdev, or rmmod.
 *
 * Devices report RDMA_DRIVER_SIW for libsiw's sake, so ib_core's per-driver
 * helpers (ib_unregister_driver(), ib_device_get_by_netdev()) would also
 * find the kernel's siw devices, and siw's would find ours.  sw_ddp
 * therefore keeps its own device list and does not hang its netdev on the
 * ib_device with ib_device_set_netdev(); ib_core asks get_netdev instead.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <kunit/visibility.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_netlink.h>

#include "sw_ddp.h"
#include "cm.h"
#include "mem.h"
#include "qp.h"
#include "stream.h"

static LIST_HEAD(sw_ddp_devices);
static DEFINE_MUTEX(sw_ddp_devices_lock);
static struct workqueue_struct *sw_ddp_wq;

static const char *const sw_ddp_llp_names[] = {
	[SW_DDP_LLP_TCP] = "TCP",
	[SW_DDP_LLP_SCTP] = "SCTP",
};

static struct sw_ddp_dev *sw_ddp_find_locked(const struct net_device *netdev,
					     enum sw_ddp_llp_type llp)
{
	struct sw_ddp_dev *sdev;

	lockdep_assert_held(&sw_ddp_devices_lock);
	list_for_each_entry(sdev, &sw_ddp_devices, list)
		if (sdev->netdev == netdev && sdev->llp == llp &&
		    !sdev->leaving)
			return sdev;
	return NULL;
}

static void sw_ddp_unregister_work(struct work_struct *work)
{
	struct sw_ddp_dev *sdev =
		container_of(work, struct sw_ddp_dev, unregister_work);

	/* Once only, however often queued: later runs find it done. */
	ib_unregister_device(&sdev->ibdev);
	/* May free sdev, work item included; the workqueue allows that. */
	put_device(&sdev->ibdev.dev);
}

/*
 * Unregister from a context that must not wait for it (netdev notifier).
 * The work pins the device's memory, not its registration: the netdev
 * core sends NETDEV_UNREGISTER again every second while the netdev is
 * held, and a work item queued again while it runs waits for that run.
 * Holding a registration reference, it would keep the running
 * unregistration waiting for it forever.
 */
static void sw_ddp_unregister_async(struct sw_ddp_dev *sdev)
{
	get_device(&sdev->ibdev.dev);
	if (!queue_work(sw_ddp_wq, &sdev->unregister_work))
		put_device(&sdev->ibdev.dev);
}

/*
 * ops.dealloc_driver: the last word on a device, after ib_core is done.
 * It leaves the list last, so that module exit, which unregisters what it
 * finds there, waits for an unregistration under way elsewhere (rdma link
 * del, rmmod siw): ib_core runs this under the device's unregistration
 * lock, and a second ib_unregister_device() waits for it.  Found no more,
 * the device has its unregister work queued once again, first: a run that
 * waits for that lock in turn, which destroy_workqueue() at module exit
 * waits for, so that the module stays until its caller has returned from
 * here.  A netdev event meanwhile finds a device ib_core no longer
 * dispatches to.
 */
static void sw_ddp_dev_dealloc(struct ib_device *ibdev)
{
	struct sw_ddp_dev *sdev = to_sdev(ibdev);

	netdev_put(sdev->netdev, &sdev->netdev_tracker);
	sw_ddp_mem_fini(sdev);
	sw_ddp_queues_fini(sdev);

	mutex_lock(&sw_ddp_devices_lock);
	sw_ddp_unregister_async(sdev);
	list_del_init(&sdev->list);
	sdev->gone = true;
	mutex_unlock(&sw_ddp_devices_lock);
}

static const struct ib_device_ops sw_ddp_lifetime_ops = {
	.dealloc_driver = sw_ddp_dev_dealloc,
};

/*
 * The MAC our GID and node GUID are made of: the netdev's, or for one
 * with none (lo's is zero) a random one of our own.  rdma_cm finds an
 * iWARP device by GID 0, and ib_core keeps no zero GID: a device on lo
 * would be found by nothing (cma_bind_loopback() wants GID 0 too).
 */
void sw_ddp_dev_mac(const struct sw_ddp_dev *sdev, u8 *mac)
{
	const struct net_device *netdev = sdev->netdev;

	if (netdev->addr_len == ETH_ALEN &&
	    !is_zero_ether_addr(netdev->dev_addr))
		ether_addr_copy(mac, netdev->dev_addr);
	else
		ether_addr_copy(mac, sdev->own_mac);
}

/* A modified EUI-64 from a MAC, as for IPv6 link-local. */
VISIBLE_IF_KUNIT __be64 sw_ddp_node_guid(const u8 *mac)
{
	u8 eui[8];
	__be64 guid;

	memcpy(eui, mac, 3);
	memcpy(eui + 5, mac + 3, 3);
	eui[0] ^= 2;
	eui[3] = 0xff;
	eui[4] = 0xfe;
	memcpy(&guid, eui, sizeof(guid));
	return guid;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_node_guid);

static struct sw_ddp_dev *sw_ddp_dev_alloc(struct net_device *netdev,
					   enum sw_ddp_llp_type llp)
{
	struct sw_ddp_dev *sdev = ib_alloc_device(sw_ddp_dev, ibdev);
	struct ib_device *ibdev;
	u8 mac[ETH_ALEN];

	if (!sdev)
		return NULL;

	sdev->netdev = netdev;
	eth_random_addr(sdev->own_mac);
	sw_ddp_dev_mac(sdev, mac);
	ibdev = &sdev->ibdev;
	ibdev->node_type = RDMA_NODE_RNIC;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = 1;
	ibdev->node_guid = sw_ddp_node_guid(mac);
	snprintf(ibdev->node_desc, sizeof(ibdev->node_desc),
		 "sw_ddp iWARP over %s", sw_ddp_llp_names[llp]);
	strscpy(ibdev->iw_ifname, netdev->name, sizeof(ibdev->iw_ifname));
	ibdev->iw_driver_flags = IW_F_NO_PORT_MAP;
	ib_set_device_ops(ibdev, &sw_ddp_dev_ops);
	ib_set_device_ops(ibdev, &sw_ddp_lifetime_ops);

	sdev->llp = llp;
	netdev_hold(netdev, &sdev->netdev_tracker, GFP_KERNEL);
	sdev->port_state = sw_ddp_port_is_up(netdev) ? IB_PORT_ACTIVE :
						       IB_PORT_DOWN;
	atomic_set(&sdev->num_ucontext, 0);
	atomic_set(&sdev->num_pd, 0);
	sw_ddp_mem_init(sdev);
	sw_ddp_queues_init(sdev);
	INIT_LIST_HEAD(&sdev->list);
	INIT_WORK(&sdev->unregister_work, sw_ddp_unregister_work);
	return sdev;
}

/*
 * Only to a registered device: ib_core queues work on the device for
 * some events, and one being unregistered has flushed that work already.
 */
static bool sw_ddp_port_event(struct sw_ddp_dev *sdev, enum ib_event_type type)
{
	struct ib_event event = {
		.device = &sdev->ibdev,
		.element.port_num = SW_DDP_PORT,
		.event = type,
	};

	if (!ib_device_try_get(&sdev->ibdev))
		return false;
	ib_dispatch_event(&event);
	ib_device_put(&sdev->ibdev);
	return true;
}

/* A state no event told is told by the next netdev event that can. */
static void sw_ddp_link_changed(struct sw_ddp_dev *sdev)
{
	enum ib_port_state state = sw_ddp_port_is_up(sdev->netdev) ?
				   IB_PORT_ACTIVE : IB_PORT_DOWN;

	if (state == sdev->port_state)
		return;
	if (sw_ddp_port_event(sdev, state == IB_PORT_ACTIVE ?
				    IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR))
		sdev->port_state = state;
}

/*
 * Make a registered device visible to the netdev notifier.  The notifier
 * cannot see a device before this, so under RTNL, where no netdev event
 * runs, catch what happened since newlink looked: a netdev going away
 * (its reg_state changes before NETDEV_UNREGISTER is sent), one moved to
 * another namespace (@net is where it was), a link gone up or down, an
 * address changed (ib_core refreshes its GID cache on the event).  A
 * device already unregistered (rdma link del, rmmod siw) stays off the
 * list.  The caller holds @netdev.
 */
static int sw_ddp_dev_publish(struct sw_ddp_dev *sdev,
			      struct net_device *netdev, struct net *net)
{
	int err = 0;

	rtnl_lock();
	mutex_lock(&sw_ddp_devices_lock);
	if (sdev->gone) {
		mutex_unlock(&sw_ddp_devices_lock);
		rtnl_unlock();
		return -ENODEV;
	}
	if (sw_ddp_find_locked(netdev, sdev->llp))
		err = -EEXIST;	/* lost a race with another link add */
	else if (netdev->reg_state != NETREG_REGISTERED ||
		 !net_eq(dev_net(netdev), net))
		err = -ENODEV;
	else
		list_add_tail(&sdev->list, &sw_ddp_devices);
	mutex_unlock(&sw_ddp_devices_lock);
	if (!err) {
		sw_ddp_link_changed(sdev);
		/* ib_core read the GID at registration: the MAC may be new */
		sw_ddp_port_event(sdev, IB_EVENT_GID_CHANGE);
	}
	rtnl_unlock();

	if (err)
		ib_unregister_device(&sdev->ibdev);
	return err;
}

static int sw_ddp_check_new(const char *name, struct net_device *netdev,
			    enum sw_ddp_llp_type llp)
{
	struct ib_device *other;
	bool dup;

	if (netdev->type != ARPHRD_ETHER && netdev->type != ARPHRD_LOOPBACK) {
		pr_warn("sw_ddp: %s: not an Ethernet or loopback device\n",
			netdev->name);
		return -EINVAL;
	}

	other = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (other) {
		ib_device_put(other);
		pr_warn("sw_ddp: an RDMA device named %s exists\n", name);
		return -EEXIST;
	}

	mutex_lock(&sw_ddp_devices_lock);
	dup = sw_ddp_find_locked(netdev, llp);
	mutex_unlock(&sw_ddp_devices_lock);
	if (dup) {
		pr_warn("sw_ddp: %s already has a sw_ddp %s device\n",
			netdev->name, sw_ddp_llp_names[llp]);
		return -EEXIST;
	}
	return 0;
}

VISIBLE_IF_KUNIT int sw_ddp_newlink(const char *name, struct net_device *netdev,
				    enum sw_ddp_llp_type llp)
{
	struct net *net = dev_net(netdev);
	struct sw_ddp_dev *sdev;
	int err;

	err = sw_ddp_check_new(name, netdev, llp);
	if (err)
		return err;

	sdev = sw_ddp_dev_alloc(netdev, llp);
	if (!sdev)
		return -ENOMEM;

	/*
	 * Ours until we return: once registered, the device may be
	 * unregistered and its driver part torn down (rdma link del,
	 * rmmod siw, its netdev's removal) before this returns.
	 */
	get_device(&sdev->ibdev.dev);
	err = ib_register_device(&sdev->ibdev, name, NULL);
	if (err) {
		ib_dealloc_device(&sdev->ibdev);
		goto out;
	}

	err = sw_ddp_dev_publish(sdev, netdev, net);
	if (!err)
		ibdev_info(&sdev->ibdev, "iWARP over %s on %s\n",
			   sw_ddp_llp_names[llp], netdev->name);
out:
	put_device(&sdev->ibdev.dev);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_newlink);

static int sw_ddp_newlink_tcp(const char *name, struct net_device *netdev)
{
	return sw_ddp_newlink(name, netdev, SW_DDP_LLP_TCP);
}

static int sw_ddp_newlink_sctp(const char *name, struct net_device *netdev)
{
	return sw_ddp_newlink(name, netdev, SW_DDP_LLP_SCTP);
}

static struct rdma_link_ops sw_ddp_tcp_link_ops = {
	.type = "sw_ddp",
	.newlink = sw_ddp_newlink_tcp,
};

static struct rdma_link_ops sw_ddp_sctp_link_ops = {
	.type = "sw_ddp_sctp",
	.newlink = sw_ddp_newlink_sctp,
};

static void sw_ddp_netdev_changed(struct sw_ddp_dev *sdev, unsigned long event)
{
	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		sw_ddp_link_changed(sdev);
		break;
	case NETDEV_CHANGEADDR:
		sw_ddp_port_event(sdev, IB_EVENT_GID_CHANGE);
		break;
	case NETDEV_CHANGENAME:
		strscpy(sdev->ibdev.iw_ifname, sdev->netdev->name,
			sizeof(sdev->ibdev.iw_ifname));
		break;
	case NETDEV_UNREGISTER:
		/*
		 * Also for a netdev moved to another namespace, which stays
		 * registered: a new device may be made on it there at once.
		 */
		sdev->leaving = true;
		sw_ddp_unregister_async(sdev);
		break;
	}
}

static int sw_ddp_netdev_event(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	struct net_device *netdev = netdev_notifier_info_to_dev(ptr);
	struct sw_ddp_dev *sdev;

	ASSERT_RTNL();
	mutex_lock(&sw_ddp_devices_lock);
	list_for_each_entry(sdev, &sw_ddp_devices, list)
		if (sdev->netdev == netdev)
			sw_ddp_netdev_changed(sdev, event);
	mutex_unlock(&sw_ddp_devices_lock);
	return NOTIFY_DONE;
}

static struct notifier_block sw_ddp_netdev_nb = {
	.notifier_call = sw_ddp_netdev_event,
};

/* Unregister every device still alive; used at module exit only. */
static void sw_ddp_unregister_all(void)
{
	struct sw_ddp_dev *sdev;

	for (;;) {
		mutex_lock(&sw_ddp_devices_lock);
		sdev = list_first_entry_or_null(&sw_ddp_devices,
						struct sw_ddp_dev, list);
		if (sdev)
			get_device(&sdev->ibdev.dev);
		mutex_unlock(&sw_ddp_devices_lock);
		if (!sdev)
			return;

		/* Waits for any other unregistration; dealloc unlists it. */
		ib_unregister_device(&sdev->ibdev);
		put_device(&sdev->ibdev.dev);
	}
}

static int __init sw_ddp_init(void)
{
	int err;

	sw_ddp_wq = alloc_workqueue("sw_ddp", WQ_UNBOUND, 0);
	if (!sw_ddp_wq)
		return -ENOMEM;

	err = sw_ddp_stream_init();
	if (err)
		goto err_wq;

	err = sw_ddp_cm_init();
	if (err)
		goto err_stream;

	err = register_netdevice_notifier(&sw_ddp_netdev_nb);
	if (err)
		goto err_cm;

	rdma_link_register(&sw_ddp_tcp_link_ops);
	rdma_link_register(&sw_ddp_sctp_link_ops);
	pr_info("sw_ddp: software iWARP RNIC loaded\n");
	return 0;

err_cm:
	sw_ddp_cm_exit();
err_stream:
	sw_ddp_stream_exit();
err_wq:
	destroy_workqueue(sw_ddp_wq);
	return err;
}

static void __exit sw_ddp_exit(void)
{
	/* No new devices once this returns: newlink runs under link_ops. */
	rdma_link_unregister(&sw_ddp_sctp_link_ops);
	rdma_link_unregister(&sw_ddp_tcp_link_ops);

	unregister_netdevice_notifier(&sw_ddp_netdev_nb);
	flush_workqueue(sw_ddp_wq);
	sw_ddp_unregister_all();
	sw_ddp_cm_exit();	/* after the devices: their cm_ids are gone */
	sw_ddp_stream_exit();	/* no stream is left to kick */
	destroy_workqueue(sw_ddp_wq);
}

module_init(sw_ddp_init);
module_exit(sw_ddp_exit);

MODULE_DESCRIPTION("sw_ddp: software iWARP RNIC (RDMAP/DDP over TCP-MPA and SCTP)");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK("sw_ddp");
MODULE_ALIAS_RDMA_LINK("sw_ddp_sctp");
