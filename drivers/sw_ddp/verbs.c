// SPDX-License-Identifier: GPL-2.0
/*
 * sw_ddp verbs: the ib_device_ops that ib_core and user space call.
 *
 * The user ABI is siw's (<rdma/siw-abi.h>, RDMA_DRIVER_SIW), so the stock
 * rdma-core provider libsiw drives sw_ddp devices unmodified.
 *
 * The verbs of each object live with the object: memory regions in mem.c,
 * queue pairs in qp.c, completion queues in cq.c, shared receive queues in
 * srq.c.  This file holds the device-wide verbs and the ops table.
 */
#include <linux/etherdevice.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/siw-abi.h>

#include "sw_ddp.h"
#include "cm.h"
#include "cq.h"
#include "mem.h"
#include "qp.h"
#include "srq.h"
#include "umap.h"

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

	memset(attr, 0, sizeof(*attr));
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_pd = SW_DDP_MAX_PD;

	/* Queues: qp.c, cq.c, srq.c */
	attr->max_qp = SW_DDP_MAX_QP;
	attr->max_qp_wr = SW_DDP_MAX_QP_WR;
	attr->max_send_sge = SW_DDP_MAX_SGE;
	attr->max_recv_sge = SW_DDP_MAX_SGE;
	attr->max_sge_rd = SW_DDP_MAX_SGE_RD;
	attr->max_qp_rd_atom = SW_DDP_MAX_IRD;
	attr->max_qp_init_rd_atom = SW_DDP_MAX_ORD;
	attr->max_res_rd_atom = SW_DDP_MAX_QP * SW_DDP_MAX_IRD;
	attr->max_cq = SW_DDP_MAX_CQ;
	attr->max_cqe = SW_DDP_MAX_CQE;
	attr->max_srq = SW_DDP_MAX_SRQ;
	attr->max_srq_wr = SW_DDP_MAX_SRQ_WR;
	attr->max_srq_sge = SW_DDP_MAX_SGE;

	/* Memory: mem.c */
	attr->max_mr = SW_DDP_MAX_MR;
	attr->max_mr_size = SW_DDP_MAX_MR_SIZE;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_fast_reg_page_list_len = SW_DDP_MAX_FR_PAGES;
	attr->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;

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
	if (err == -ENODEV) {
		/*
		 * The netdev is unregistering.  Its closing sent PORT_ERR,
		 * and ib_core's cache asks after it, from a work item, only
		 * now: a port that is down is the answer, not an error that
		 * ib_core would log on every routine removal.
		 */
		up = false;
		attr->active_speed = IB_SPEED_SDR;
		attr->active_width = IB_WIDTH_1X;
	} else if (err) {
		return err;
	}

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
 * netdev's hardware address (rdma_addr_get_sgid), so that is our only GID
 * (main.c: sw_ddp_dev_mac(), for a netdev without one).
 */
static int sw_ddp_query_gid(struct ib_device *ibdev, u32 port, int index,
			    union ib_gid *gid)
{
	if (index != 0)
		return -EINVAL;

	/* A changed address is announced with IB_EVENT_GID_CHANGE (main.c). */
	memset(gid, 0, sizeof(*gid));
	sw_ddp_dev_mac(to_sdev(ibdev), gid->raw);
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

/*
 * ops.disassociate_ucontext: the device goes away (rdma link del, its
 * netdev's removal, rmmod) under a process that still has it open.  By
 * now ib_core has destroyed every object of @base through its destroy
 * verb, as at the process's exit, and it frees @base next.  Nothing of
 * ours is left to revoke: the rings those objects mapped are ordinary
 * pages, which the process's mappings keep and the kernel no longer
 * touches (umap.c); there is no doorbell page or other device memory to
 * take back.  Having the op is what lets ib_core do this, as for mlx5;
 * without it, unregistering the device waits, with its netdev held,
 * until every such process has exited.
 */
static void sw_ddp_disassociate_ucontext(struct ib_ucontext *base)
{
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

	.alloc_mr = sw_ddp_alloc_mr,
	.alloc_pd = sw_ddp_alloc_pd,
	.alloc_ucontext = sw_ddp_alloc_ucontext,
	.dealloc_pd = sw_ddp_dealloc_pd,
	.dealloc_ucontext = sw_ddp_dealloc_ucontext,
	.disassociate_ucontext = sw_ddp_disassociate_ucontext,
	.dereg_mr = sw_ddp_dereg_mr,
	.get_dma_mr = sw_ddp_get_dma_mr,
	.get_netdev = sw_ddp_get_netdev,
	.get_port_immutable = sw_ddp_get_port_immutable,
	.map_mr_sg = sw_ddp_map_mr_sg,
	.query_device = sw_ddp_query_device,
	.query_gid = sw_ddp_query_gid,
	.query_port = sw_ddp_query_port,
	.reg_user_mr = sw_ddp_reg_user_mr,
	.rereg_user_mr = sw_ddp_rereg_user_mr,

	/* Queues: qp.c, sq.c, rq.c, cq.c, srq.c; their rings: umap.c */
	.create_cq = sw_ddp_create_cq,
	.create_qp = sw_ddp_create_qp,
	.create_srq = sw_ddp_create_srq,
	.destroy_cq = sw_ddp_destroy_cq,
	.destroy_qp = sw_ddp_destroy_qp,
	.destroy_srq = sw_ddp_destroy_srq,
	.iw_add_ref = sw_ddp_iw_add_ref,
	.iw_get_qp = sw_ddp_iw_get_qp,
	.iw_rem_ref = sw_ddp_iw_rem_ref,
	.mmap = sw_ddp_mmap,
	.mmap_free = sw_ddp_mmap_free,
	.modify_qp = sw_ddp_modify_qp,
	.modify_srq = sw_ddp_modify_srq,
	.poll_cq = sw_ddp_poll_cq,
	.post_recv = sw_ddp_post_recv,
	.post_send = sw_ddp_post_send,
	.post_srq_recv = sw_ddp_post_srq_recv,
	.query_qp = sw_ddp_query_qp,
	.query_srq = sw_ddp_query_srq,
	.req_notify_cq = sw_ddp_req_notify_cq,
	.resize_cq = sw_ddp_resize_cq,

	/* Connections: cm.c, llp_tcp.c */
	.iw_accept = sw_ddp_iw_accept,
	.iw_connect = sw_ddp_iw_connect,
	.iw_create_listen = sw_ddp_iw_create_listen,
	.iw_destroy_listen = sw_ddp_iw_destroy_listen,
	.iw_reject = sw_ddp_iw_reject,

	INIT_RDMA_OBJ_SIZE(ib_pd, sw_ddp_pd, base),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sw_ddp_ucontext, base),
	INIT_RDMA_OBJ_SIZE(ib_cq, sw_ddp_cq, base),
	INIT_RDMA_OBJ_SIZE(ib_qp, sw_ddp_qp, base),
	INIT_RDMA_OBJ_SIZE(ib_srq, sw_ddp_srq, base),
};
