/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sw_ddp builds against Linux 6.12 and Debian 12's 6.1.  Where the two
 * differ in an interface sw_ddp uses, the difference is bridged here, keyed
 * on the kernel version, and nowhere else.
 */
#ifndef SW_DDP_COMPAT_H
#define SW_DDP_COMPAT_H

#include <linux/mm.h>
#include <linux/socket.h>
#include <linux/version.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/*
 * ib_device_ops.create_cq takes the whole uverbs attribute bundle since 6.11
 * (NULL for kernel CQs), the driver's udata before.  Our create_cq takes a
 * struct sw_ddp_cq_uarg * and finds the udata with sw_ddp_cq_udata().
 */
#if KERNEL_VERSION(6, 11, 0) <= LINUX_VERSION_CODE
#define sw_ddp_cq_uarg	uverbs_attr_bundle

static inline struct ib_udata *sw_ddp_cq_udata(struct uverbs_attr_bundle *arg)
{
	return arg ? &arg->driver_udata : NULL;
}
#else
#define sw_ddp_cq_uarg	ib_udata

static inline struct ib_udata *sw_ddp_cq_udata(struct ib_udata *arg)
{
	return arg;
}
#endif

/*
 * Zero-copy transmit hands pages to TCP with MSG_SPLICE_PAGES (6.5 on);
 * before it, the payload is copied like the rest of the FPDU.
 */
#ifdef MSG_SPLICE_PAGES
#define SW_DDP_MSG_SPLICE_PAGES	MSG_SPLICE_PAGES
#else
#define SW_DDP_MSG_SPLICE_PAGES	0
#endif

/*
 * TCP fills skbs from the calling task's page fragment unless a socket
 * opts out (sk_use_task_frag, 6.2 on); before 6.2 only sleeping
 * allocations used it, and our sends from the receive upcall are atomic.
 */
static inline void sw_ddp_sk_no_task_frag(struct sock *sk)
{
#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
	sk->sk_use_task_frag = false;
#endif
}

/*
 * A socket from kernel_accept() is a kernel socket (kern == 1) and holds
 * no reference on its namespace, unless it was cloned from its listener,
 * as TCP's are; SCTP makes a new one.  Take the reference a user's socket
 * holds, which sk_destruct() then drops.  Kernels with
 * sk_net_refcnt_upgrade() (6.15, and stable 6.12) also count a kernel
 * socket as a passive reference, which it gives back; before it, a
 * kernel socket held nothing (and before 6.2 had no namespace tracker).
 * Kbuild looks for it in the kernel's headers.
 */
static inline void sw_ddp_sk_hold_net(struct sock *sk)
{
#ifndef SW_DDP_HAVE_SK_NET_REFCNT_UPGRADE
	struct net *net = sock_net(sk);
#endif

	if (sk->sk_net_refcnt)
		return;
#ifdef SW_DDP_HAVE_SK_NET_REFCNT_UPGRADE
	sk_net_refcnt_upgrade(sk);
#else
#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
	__netns_tracker_free(net, &sk->ns_tracker, false);
#endif
	sk->sk_net_refcnt = 1;
	get_net_track(net, &sk->ns_tracker, GFP_KERNEL);
	sock_inuse_add(net, 1);
#endif
}

/* A VMA's flags change through vm_flags_set() since 6.3, directly before. */
static inline void sw_ddp_vm_flags_set(struct vm_area_struct *vma,
				       vm_flags_t flags)
{
#if KERNEL_VERSION(6, 3, 0) <= LINUX_VERSION_CODE
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

#endif /* SW_DDP_COMPAT_H */
