/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sw_ddp: a software iWARP RNIC.  Device-wide definitions shared by the
 * module's layers.  See Documentation/design.rst for the layering.
 */
#ifndef SW_DDP_H
#define SW_DDP_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include "compat.h"

/* The Lower Layer Protocol a device runs DDP over. */
enum sw_ddp_llp_type {
	SW_DDP_LLP_TCP,		/* MPA framing on TCP, RFC 5044 */
	SW_DDP_LLP_SCTP,	/* DDP segments in SCTP chunks, RFC 5043 */
};

#define SW_DDP_PORT		1

/*
 * Device limits: what query_device advertises and what the verbs enforce.
 * Work queue and CQ sizes are rounded up to powers of two.
 */
#define SW_DDP_MAX_UCONTEXT	1024
#define SW_DDP_MAX_PD		(16 * 1024)
#define SW_DDP_MAX_QP		(16 * 1024)
#define SW_DDP_MAX_QP_WR	(16 * 1024)
#define SW_DDP_MAX_SGE		SIW_MAX_SGE	/* fixed by the siw ABI */
#define SW_DDP_MAX_SGE_RD	1	/* one Data Sink per Read (RFC 5040 §4.4) */
#define SW_DDP_MAX_INLINE	SIW_MAX_INLINE
#define SW_DDP_MAX_ORD		128	/* RDMA Reads in flight, per QP */
#define SW_DDP_MAX_IRD		128	/* RDMA Reads served, per QP */
#define SW_DDP_MAX_CQ		(16 * 1024)
#define SW_DDP_MAX_CQE		(64 * 1024)
#define SW_DDP_MAX_SRQ		(4 * 1024)
#define SW_DDP_MAX_SRQ_WR	(16 * 1024)
#define SW_DDP_MAX_MR		(64 * 1024)
#define SW_DDP_MAX_MR_SIZE	BIT_ULL(40)
#define SW_DDP_MAX_FR_PAGES	1024	/* fast-registration page list */

struct sw_ddp_dev {
	struct ib_device ibdev;

	/* The netdev this device sends and receives on; held until dealloc. */
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	enum sw_ddp_llp_type llp;
	/* The GID's address while the netdev has none (lo): random. */
	u8 own_mac[ETH_ALEN];

	/* Last port state reported by an event; written under RTNL only. */
	enum ib_port_state port_state;

	atomic_t num_ucontext;
	atomic_t num_pd;

	/* Queues (qp.c, cq.c, srq.c): counts against the limits above. */
	atomic_t num_qp;
	atomic_t num_cq;
	atomic_t num_srq;
	atomic_t cq_ids;
	/* QPN -> QP for the iw_cm; its lock is IRQ-safe (qp.c). */
	struct xarray qp_xa;
	u32 qp_next;		/* cyclic QPN allocation, under qp_xa's lock */

	/* Memory regions by STag index, looked up under RCU (mem.c). */
	struct xarray mr_xa;
	u32 mr_next;		/* cyclic index allocation, under mr_xa's lock */
	atomic_t num_mr;

	/* On sw_ddp_devices, under sw_ddp_devices_lock (main.c). */
	struct list_head list;
	bool gone;			/* dealloc_driver has run */
	bool leaving;			/* its netdev went; unregistering */
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

/* main.c */
void sw_ddp_dev_mac(const struct sw_ddp_dev *sdev, u8 *mac);

/* main.c; visible for KUnit */
#if IS_ENABLED(CONFIG_KUNIT)
__be64 sw_ddp_node_guid(const u8 *mac);
int sw_ddp_newlink(const char *name, struct net_device *netdev,
		   enum sw_ddp_llp_type llp);
#endif

/* verbs.c */
extern const struct ib_device_ops sw_ddp_dev_ops;
bool sw_ddp_port_is_up(const struct net_device *netdev);

#endif /* SW_DDP_H */
