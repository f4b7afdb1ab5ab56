// SPDX-License-Identifier: GPL-2.0
/*
 * sw_ddp verbs: the ib_device_ops that ib_core and user space call.
 *
 * The user ABI is siw's (<rdma/siw-abi.h>, RDMA_DRIVER_SIW), so the stock
 * rdma-core provider libsiw drives sw_ddp devices unmodified.
 *
 * Only the verbs listed in sw_ddp_dev_ops exist.  Queue pairs, completion
 * queues, memory regions and SRQs are not implemented yet; the device
 * attributes say so by advertising zero of each, and ib_core treats the
 * device as a verbs provider for user space only until they are.
 */
#include <linux/etherdevice.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/siw-abi.h>

#include "sw_ddp.h"

bool sw_ddp_port_is_up(const struct net_device *netdev)
{
	return netif_running(netdev) && netif_carrier_ok(netdev);
}

static int sw_ddp_query_device(struct ib_device *ibdev,
			       struct ib_device_attr *attr,
			       struct ib_udata *udata)
{
	if (udata->inlen || udata->outlen)
		return -EINVAL;

	/* Zero for every object sw_ddp cannot create yet (QP, CQ, MR, SRQ). */
	memset(attr, 0, sizeof(*attr));
	attr->sys_image_guid = ibdev->node_guid;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_pd = SW_DDP_MAX_PD;
	/* `rdma link del` may remove the device. */
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	return 0;
}

static struct net_device *sw_ddp_get_netdev(struct ib_device *ibdev, u32 port)
{
	struct net_device *netdev = to_sdev(ibdev)->netdev;

	dev_hold(netdev);
	return netdev;
}

static int sw_ddp_query_port(struct ib_device *ibdev, u32 port,
			     struct ib_port_attr *attr)
{
	struct net_device *netdev = to_sdev(ibdev)->netdev;
	bool up = sw_ddp_port_is_up(netdev);
	int err;

	memset(attr, 0, sizeof(*attr));
	err = ib_get_eth_speed(ibdev, port, &attr->active_speed,
			       &attr->active_width);
	if (err)
		return err;

	attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
				IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = ib_mtu_int_to_enum(netdev->max_mtu);
	attr->active_mtu = ib_mtu_int_to_enum(READ_ONCE(netdev->mtu));
	attr->gid_tbl_len = 1;
	attr->max_msg_sz = U32_MAX;
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
	return 0;
}

static int sw_ddp_get_port_immutable(struct ib_device *ibdev, u32 port,
				     struct ib_port_immutable *immutable)
{
	/* iWARP has no partitions: no P_Key table. */
	immutable->pkey_tbl_len = 0;
	immutable->gid_tbl_len = 1;
	immutable->core_cap_flags = RDMA_CORE_PORT_IWARP;
	return 0;
}

/*
 * rdma_cm resolves an iWARP peer to a device by the GID that holds the
 * netdev's hardware address (rdma_addr_get_sgid), so that is our only GID.
 */
static int sw_ddp_query_gid(struct ib_device *ibdev, u32 port, int index,
			    union ib_gid *gid)
{
	struct net_device *netdev = to_sdev(ibdev)->netdev;

	if (index != 0)
		return -EINVAL;

	/* A changed address is announced with IB_EVENT_GID_CHANGE (main.c). */
	memset(gid, 0, sizeof(*gid));
	memcpy(gid->raw, netdev->dev_addr,
	       min_t(unsigned int, netdev->addr_len, sizeof(gid->raw)));
	return 0;
}

static int sw_ddp_alloc_ucontext(struct ib_ucontext *base,
				 struct ib_udata *udata)
{
	struct sw_ddp_dev *sdev = to_sdev(base->device);
	struct siw_uresp_alloc_ctx uresp = {};
	int err;

	if (udata->outlen < sizeof(uresp))
		return -EINVAL;

	if (atomic_inc_return(&sdev->num_ucontext) > SW_DDP_MAX_UCONTEXT) {
		err = -ENOMEM;
		goto err_count;
	}

	uresp.dev_id = sdev->ibdev.index;
	err = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
	if (err)
		goto err_count;
	return 0;

err_count:
	atomic_dec(&sdev->num_ucontext);
	return err;
}

static void sw_ddp_dealloc_ucontext(struct ib_ucontext *base)
{
	atomic_dec(&to_sdev(base->device)->num_ucontext);
}

static int sw_ddp_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	struct sw_ddp_dev *sdev = to_sdev(pd->device);

	if (atomic_inc_return(&sdev->num_pd) > SW_DDP_MAX_PD) {
		atomic_dec(&sdev->num_pd);
		return -ENOMEM;
	}
	return 0;
}

static int sw_ddp_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	atomic_dec(&to_sdev(pd->device)->num_pd);
	return 0;
}

const struct ib_device_ops sw_ddp_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_SIW,
	.uverbs_abi_ver = SIW_ABI_VERSION,

	.alloc_pd = sw_ddp_alloc_pd,
	.alloc_ucontext = sw_ddp_alloc_ucontext,
	.dealloc_pd = sw_ddp_dealloc_pd,
	.dealloc_ucontext = sw_ddp_dealloc_ucontext,
	.get_netdev = sw_ddp_get_netdev,
	.get_port_immutable = sw_ddp_get_port_immutable,
	.query_device = sw_ddp_query_device,
	.query_gid = sw_ddp_query_gid,
	.query_port = sw_ddp_query_port,

	INIT_RDMA_OBJ_SIZE(ib_pd, sw_ddp_pd, base),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sw_ddp_ucontext, base),
};
