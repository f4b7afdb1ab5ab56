/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sw_ddp: a software iWARP RNIC.  Device-wide definitions shared by the
 * module's layers.  See Documentation/design.rst for the layering.
 */
#ifndef SW_DDP_H
#define SW_DDP_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

/* The Lower Layer Protocol a device runs DDP over. */
enum sw_ddp_llp {
	SW_DDP_LLP_TCP,		/* MPA framing on TCP, RFC 5044 */
	SW_DDP_LLP_SCTP,	/* DDP segments in SCTP chunks, RFC 5043 */
};

#define SW_DDP_PORT		1
#define SW_DDP_MAX_UCONTEXT	1024
#define SW_DDP_MAX_PD		(16 * 1024)

struct sw_ddp_dev {
	struct ib_device ibdev;

	/* The netdev this device sends and receives on; held until dealloc. */
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	enum sw_ddp_llp llp;

	/* Last port state reported by an event; written under RTNL only. */
	enum ib_port_state port_state;

	atomic_t num_ucontext;
	atomic_t num_pd;

	/* On sw_ddp_devices, under sw_ddp_devices_lock (main.c). */
	struct list_head list;
	struct work_struct unregister_work;
};

struct sw_ddp_ucontext {
	struct ib_ucontext base;
};

struct sw_ddp_pd {
	struct ib_pd base;
};

static inline struct sw_ddp_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sw_ddp_dev, ibdev);
}

/* main.c; visible for KUnit */
#if IS_ENABLED(CONFIG_KUNIT)
__be64 sw_ddp_node_guid(const struct net_device *netdev);
int sw_ddp_newlink(const char *name, struct net_device *netdev,
		   enum sw_ddp_llp llp);
#endif

/* verbs.c */
extern const struct ib_device_ops sw_ddp_dev_ops;
bool sw_ddp_port_is_up(const struct net_device *netdev);

#endif /* SW_DDP_H */
