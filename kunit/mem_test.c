// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: sw_ddp memory regions (mem.c), on a real registered device and
 * real ib_core calls: STag allocation and lookup, the checks of RFC 5041
 * §7.1 and RFC 5040 §4.8, invalidation, fast registration, and the page
 * walk through kernel memory (DMA and fast-register MRs) and pinned user
 * memory (reg_user_mr on a kunit_vm_mmap() mapping).
 *
 * Everything a case creates is released by KUnit actions, in reverse
 * order (MRs, then PDs, then the netdev and with it the device), also
 * when an assertion ends the case early.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/highmem.h>
#include <linux/mman.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "sw_ddp.h"
#include "mem.h"

#define TEST_IBDEV	"swddp_mem0"
#define ALL_RIGHTS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ)

static const u8 mem_test_mac[ETH_ALEN] = { 0x02, 0x00, 0x5e, 0x10, 0x20, 0x31 };

struct mem_test {
	struct sw_ddp_dev *sdev;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_pd *pd2;
	void __user *ubuf;	/* udata for reg_user_mr */
};

static netdev_tx_t mem_test_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static int mem_test_link_ksettings(struct net_device *netdev,
				   struct ethtool_link_ksettings *cmd)
{
	cmd->base.speed = SPEED_10000;
	cmd->base.duplex = DUPLEX_FULL;
	return 0;
}

static const struct net_device_ops mem_test_netdev_ops = {
	.ndo_start_xmit = mem_test_xmit,
};

static const struct ethtool_ops mem_test_ethtool_ops = {
	.get_link_ksettings = mem_test_link_ksettings,
};

/* Unregistering the netdev takes the sw_ddp device on it away. */
static void mem_test_netdev_release(void *netdev)
{
	unregister_netdev(netdev);
	free_netdev(netdev);
}

static void mem_test_dealloc_pd(void *pd)
{
	ib_dealloc_pd(pd);
}

/* For MRs from ib_alloc_mr() / ib_alloc_pd(). */
static void mem_test_dereg(void *mr)
{
	ib_dereg_mr(mr);
}

/* For MRs made by calling the device's ops directly, as uverbs does. */
static void mem_test_dereg_op(void *p)
{
	struct ib_mr *mr = p;

	mr->device->ops.dereg_mr(mr, NULL);
}

KUNIT_DEFINE_ACTION_WRAPPER(mem_test_vfree, vfree, const void *);

static struct ib_pd *mem_test_alloc_pd(struct kunit *test,
				       struct ib_device *ibdev)
{
	struct ib_pd *pd = ib_alloc_pd(ibdev, 0);

	if (IS_ERR(pd) || kunit_add_action_or_reset(test, mem_test_dealloc_pd,
						    pd))
		return NULL;
	return pd;
}

static int mem_test_init(struct kunit *test)
{
	struct net_device *netdev;
	struct mem_test *ctx;
	int err;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;

	netdev = alloc_etherdev(0);
	if (!netdev)
		return -ENOMEM;
	netdev->netdev_ops = &mem_test_netdev_ops;
	netdev->ethtool_ops = &mem_test_ethtool_ops;
	eth_hw_addr_set(netdev, mem_test_mac);
	strscpy(netdev->name, "swddpm%d", sizeof(netdev->name));
	err = register_netdev(netdev);
	if (err) {
		free_netdev(netdev);
		return err;
	}
	err = kunit_add_action_or_reset(test, mem_test_netdev_release, netdev);
	if (err)
		return err;

	err = sw_ddp_newlink(TEST_IBDEV, netdev, SW_DDP_LLP_TCP);
	if (err)
		return err;
	/* No reference kept: the netdev's release must be able to finish. */
	ctx->ibdev = ib_device_get_by_name(TEST_IBDEV, RDMA_DRIVER_UNKNOWN);
	if (!ctx->ibdev)
		return -ENODEV;
	ib_device_put(ctx->ibdev);
	ctx->sdev = to_sdev(ctx->ibdev);

	ctx->pd = mem_test_alloc_pd(test, ctx->ibdev);
	ctx->pd2 = mem_test_alloc_pd(test, ctx->ibdev);
	return ctx->pd && ctx->pd2 ? 0 : -ENOMEM;
}

static struct sw_ddp_mr *smr(struct ib_mr *mr)
{
	return to_sw_ddp_mr(mr);
}

/* Look up and check, keeping no reference. */
static enum sw_ddp_mem_err check(struct kunit *test, u32 stag,
				 struct ib_pd *pd, int access, u64 to, u64 len)
{
	struct mem_test *ctx = test->priv;
	enum sw_ddp_mem_err err;
	struct sw_ddp_mr *mr;

	err = sw_ddp_mem_get_checked(ctx->sdev, stag, pd, access, to, len, &mr);
	if (!err)
		sw_ddp_mem_put(mr);
	return err;
}

/* The data path's way in: look up, check, copy, in one access section. */
static int place(struct kunit *test, u32 stag, struct ib_pd *pd, u64 to,
		 const void *src, u64 len)
{
	struct mem_test *ctx = test->priv;
	struct sw_ddp_mr *mr;
	int err;

	mr = sw_ddp_mem_get(ctx->sdev, stag);
	if (!mr)
		return -ENOENT;
	sw_ddp_mem_lock(mr);
	err = sw_ddp_mem_check_locked(mr, stag, pd, IB_ACCESS_REMOTE_WRITE, to,
				      len) ? -EACCES :
		sw_ddp_mem_copy_to(mr, to, src, len);
	sw_ddp_mem_unlock(mr);
	sw_ddp_mem_put(mr);
	return err;
}

static int fetch(struct kunit *test, u32 stag, struct ib_pd *pd, u64 to,
		 void *dst, u64 len)
{
	struct mem_test *ctx = test->priv;
	struct sw_ddp_mr *mr;
	int err;

	mr = sw_ddp_mem_get(ctx->sdev, stag);
	if (!mr)
		return -ENOENT;
	sw_ddp_mem_lock(mr);
	err = sw_ddp_mem_check_locked(mr, stag, pd, IB_ACCESS_REMOTE_READ, to,
				      len) ? -EACCES :
		sw_ddp_mem_copy_from(mr, to, dst, len);
	sw_ddp_mem_unlock(mr);
	sw_ddp_mem_put(mr);
	return err;
}

static u8 *pattern(struct kunit *test, size_t len, u8 seed)
{
	u8 *p = kunit_kmalloc(test, len, GFP_KERNEL);
	size_t i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < len; i++)
		p[i] = (u8)(i * 7 + i / 251 + seed);
	return p;
}

static void *vbuf(struct kunit *test, size_t size)
{
	void *buf = vzalloc(size);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mem_test_vfree,
							buf), 0);
	return buf;
}

/* Four physically contiguous pages, aligned to their size. */
#define PBUF_ORDER	2

static void mem_test_free_pages(void *buf)
{
	free_pages((unsigned long)buf, PBUF_ORDER);
}

static u8 *pbuf(struct kunit *test)
{
	unsigned long buf = __get_free_pages(GFP_KERNEL | __GFP_ZERO,
					     PBUF_ORDER);

	KUNIT_ASSERT_NE(test, buf, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							mem_test_free_pages,
							(void *)buf), 0);
	return (u8 *)buf;
}

static struct ib_mr *fr_mr(struct kunit *test, struct ib_pd *pd, u32 max)
{
	struct ib_mr *mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, max);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mem_test_dereg,
							mr), 0);
	return mr;
}

static struct ib_mr *dma_mr(struct kunit *test, struct ib_pd *pd, int access)
{
	struct ib_mr *mr = pd->device->ops.get_dma_mr(pd, access);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	mr->device = pd->device;
	mr->pd = pd;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							mem_test_dereg_op, mr),
			0);
	return mr;
}

/* A ULP's scatterlist: one entry per page of [buf + off, + len). */
static struct scatterlist *sgl_of(struct kunit *test, void *buf, size_t off,
				  size_t len, int *nents)
{
	struct mem_test *ctx = test->priv;
	size_t first = offset_in_page(buf + off);
	int i, n = DIV_ROUND_UP(first + len, PAGE_SIZE);
	struct scatterlist *sg;
	u8 *p = (u8 *)buf + off - first;

	sg = kunit_kcalloc(test, n, sizeof(*sg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sg);
	sg_init_table(sg, n);
	for (i = 0; i < n; i++, p += PAGE_SIZE) {
		struct page *page = is_vmalloc_addr(p) ? vmalloc_to_page(p) :
							 virt_to_page(p);
		size_t start = i ? 0 : first;
		size_t room = PAGE_SIZE - start;

		sg_set_page(&sg[i], page, min(room, len), start);
		len -= min(room, len);
	}
	/* Virt DMA: the "DMA addresses" become kernel virtual addresses. */
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(ctx->ibdev, sg, n,
					    DMA_BIDIRECTIONAL), n);
	*nents = n;
	return sg;
}

static int post_reg(struct ib_pd *pd, struct ib_mr *mr, u8 key, int access)
{
	struct ib_reg_wr wr = {
		.mr = mr,
		.access = access,
	};

	ib_update_fast_reg_key(mr, key);
	wr.key = mr->rkey;
	return sw_ddp_mem_fast_reg(pd, &wr);
}

/* map_mr_sg + IB_WR_REG_MR, as a ULP does; returns the TO of byte 0. */
static u64 fast_reg(struct kunit *test, struct ib_pd *pd, struct ib_mr *mr,
		    void *buf, size_t off, size_t len, u8 key, int access)
{
	struct scatterlist *sg;
	int n;

	sg = sgl_of(test, buf, off, len, &n);
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, sg, n, NULL, PAGE_SIZE), n);
	KUNIT_ASSERT_EQ(test, mr->length, len);
	KUNIT_ASSERT_EQ(test, post_reg(pd, mr, key, access), 0);
	return mr->iova;
}

/* 1: STag = 24-bit index | 8-bit key */
static void stag_encoding(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sw_ddp_stag(0x123456, 0xab), 0x123456abU);
	KUNIT_EXPECT_EQ(test, sw_ddp_stag_index(0x123456ab), 0x123456U);
	KUNIT_EXPECT_EQ(test, sw_ddp_stag_key(0x123456ab), 0xab);
	KUNIT_EXPECT_EQ(test, sw_ddp_stag(SW_DDP_STAG_INDEX_MAX, 0xff),
			0xffffffffU);
	KUNIT_EXPECT_EQ(test, sw_ddp_stag_index(0xff), 0U);
}

/* 2: ib_alloc_pd() got its local_dma_lkey from our get_dma_mr */
static void pd_local_dma_lkey(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	u32 lkey = ctx->pd->local_dma_lkey;
	struct sw_ddp_mr *mr;

	KUNIT_EXPECT_NE(test, sw_ddp_stag_index(lkey), 0U);
	KUNIT_EXPECT_EQ(test, sw_ddp_stag_key(lkey), 0);
	mr = sw_ddp_mem_get(ctx->sdev, lkey);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, mr->kind, SW_DDP_MR_DMA);
	KUNIT_EXPECT_EQ(test, mr->ibmr.lkey, lkey);
	KUNIT_EXPECT_EQ(test, mr->ibmr.rkey, lkey);
	sw_ddp_mem_put(mr);

	/* Local write only: ib_alloc_pd() asked for no remote rights. */
	KUNIT_EXPECT_EQ(test, check(test, lkey, ctx->pd, IB_ACCESS_LOCAL_WRITE,
				    (uintptr_t)ctx, sizeof(*ctx)),
			SW_DDP_MEM_OK);
	KUNIT_EXPECT_EQ(test, check(test, lkey, ctx->pd, IB_ACCESS_REMOTE_WRITE,
				    (uintptr_t)ctx, sizeof(*ctx)),
			SW_DDP_MEM_ACCESS);
}

/* 3: many MRs: distinct, non-zero indexes, each found by its STag */
static void stags_unique_and_found(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr[64];
	int i, j;

	for (i = 0; i < ARRAY_SIZE(mr); i++) {
		mr[i] = fr_mr(test, ctx->pd, 4);
		KUNIT_EXPECT_NE(test, sw_ddp_stag_index(mr[i]->rkey), 0U);
		KUNIT_EXPECT_EQ(test, mr[i]->lkey, mr[i]->rkey);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, sw_ddp_stag_index(mr[i]->rkey),
					sw_ddp_stag_index(mr[j]->rkey));
	}
	for (i = 0; i < ARRAY_SIZE(mr); i++) {
		struct sw_ddp_mr *found = sw_ddp_mem_get(ctx->sdev,
							 mr[i]->rkey);

		KUNIT_EXPECT_PTR_EQ(test, found, smr(mr[i]));
		if (found)
			sw_ddp_mem_put(found);
	}
}

/* 4: STag 0, a freed index and an unused one name nothing */
static void lookup_misses(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr = fr_mr(test, ctx->pd, 1);
	u32 stag = mr->rkey;

	KUNIT_EXPECT_NULL(test, sw_ddp_mem_get(ctx->sdev, 0));
	KUNIT_EXPECT_NULL(test, sw_ddp_mem_get(ctx->sdev, 0xff));
	kunit_release_action(test, mem_test_dereg, mr);
	KUNIT_EXPECT_NULL(test, sw_ddp_mem_get(ctx->sdev, stag));
	KUNIT_EXPECT_EQ(test, check(test, stag, ctx->pd, 0, 0, 0),
			SW_DDP_MEM_INVALID_STAG);
}

/* 5: the key is part of the STag */
static void key_mismatch(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr = fr_mr(test, ctx->pd, 1);
	void *buf = vbuf(test, PAGE_SIZE);
	u64 to = fast_reg(test, ctx->pd, mr, buf, 0, 64, 0x42, ALL_RIGHTS);

	KUNIT_EXPECT_EQ(test, check(test, mr->rkey, ctx->pd, 0, to, 64),
			SW_DDP_MEM_OK);
	KUNIT_EXPECT_EQ(test, check(test, mr->rkey ^ 1, ctx->pd, 0, to, 64),
			SW_DDP_MEM_INVALID_STAG);
	KUNIT_EXPECT_EQ(test, check(test, mr->rkey & ~0xffU, ctx->pd, 0, to,
				    64),
			SW_DDP_MEM_INVALID_STAG);
}

/* 6: an STag is usable only on streams of its PD (RFC 5041 §8.2) */
static void pd_mismatch(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr = fr_mr(test, ctx->pd, 1);
	void *buf = vbuf(test, PAGE_SIZE);
	u64 to = fast_reg(test, ctx->pd, mr, buf, 0, 64, 1, ALL_RIGHTS);

	KUNIT_EXPECT_EQ(test, check(test, mr->rkey, ctx->pd2, 0, to, 64),
			SW_DDP_MEM_PD_MISMATCH);
	KUNIT_EXPECT_EQ(test, check(test, ctx->pd->local_dma_lkey, ctx->pd2,
				    0, (uintptr_t)buf, 1),
			SW_DDP_MEM_PD_MISMATCH);
}

/* 7: each right separately */
static void access_rights(struct kunit *test)
{
	static const int wanted[] = { 0, IB_ACCESS_LOCAL_WRITE,
				      IB_ACCESS_REMOTE_WRITE,
				      IB_ACCESS_REMOTE_READ };
	static const int granted[] = {
		0, IB_ACCESS_LOCAL_WRITE, IB_ACCESS_REMOTE_READ,
		IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	};
	struct mem_test *ctx = test->priv;
	void *buf = vbuf(test, PAGE_SIZE);
	int g, w;

	for (g = 0; g < ARRAY_SIZE(granted); g++) {
		struct ib_mr *mr = fr_mr(test, ctx->pd, 1);
		u64 to = fast_reg(test, ctx->pd, mr, buf, 0, 8, g, granted[g]);

		for (w = 0; w < ARRAY_SIZE(wanted); w++)
			KUNIT_EXPECT_EQ_MSG(test,
					    check(test, mr->rkey, ctx->pd,
						  wanted[w], to, 8),
					    (wanted[w] & ~granted[g]) ?
					    SW_DDP_MEM_ACCESS : SW_DDP_MEM_OK,
					    "granted %#x wanted %#x",
					    granted[g], wanted[w]);
	}
}

/* 8: what an MR may not grant, and what makes no sense */
static void access_flags_refused(struct kunit *test)
{
	static const struct {
		int access;
		int err;
	} cases[] = {
		{ IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_ATOMIC, -EOPNOTSUPP },
		{ IB_ACCESS_MW_BIND, -EOPNOTSUPP },
		{ IB_ZERO_BASED, -EOPNOTSUPP },
		{ IB_ACCESS_ON_DEMAND, -EOPNOTSUPP },
		{ IB_ACCESS_REMOTE_WRITE, -EINVAL },	/* no local write */
		{ BIT(15), -EINVAL },			/* not a flag */
	};
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		mr = ctx->ibdev->ops.get_dma_mr(ctx->pd, cases[i].access);
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(mr), cases[i].err,
				    "access %#x", cases[i].access);
		if (!IS_ERR(mr))
			ctx->ibdev->ops.dereg_mr(mr, NULL);
	}
	/* Relaxed ordering is a hint we may ignore. */
	dma_mr(test, ctx->pd, IB_ACCESS_LOCAL_WRITE |
			      IB_ACCESS_RELAXED_ORDERING);

	mr = fr_mr(test, ctx->pd, 1);
	KUNIT_EXPECT_EQ(test, post_reg(ctx->pd, mr, 0, IB_ACCESS_REMOTE_ATOMIC |
				     IB_ACCESS_LOCAL_WRITE), -EOPNOTSUPP);
}

/* 9: [TO, TO + len) exactly at the edges, and one byte past them */
static void bounds_edges(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr = fr_mr(test, ctx->pd, 2);
	void *buf = vbuf(test, 2 * PAGE_SIZE);
	u64 len = PAGE_SIZE + 1000;
	u64 to = fast_reg(test, ctx->pd, mr, buf, 24, len, 2, ALL_RIGHTS);
	u32 stag = mr->rkey;

	KUNIT_EXPECT_EQ(test, check(test, stag, ctx->pd, 0, to, len),
			SW_DDP_MEM_OK);
	KUNIT_EXPECT_EQ(test, check(test, stag, ctx->pd, 0, to + len - 1, 1),
			SW_DDP_MEM_OK);
	KUNIT_EXPECT_EQ(test, check(test, stag, ctx->pd, 0, to + len, 0),
			SW_DDP_MEM_OK);
	KUNIT_EXPECT_EQ(test, check(test, stag, ctx->pd, 0, to - 1, 1),
			SW_DDP_MEM_BASE_BOUNDS);
	KUNIT_EXPECT_EQ(test, check(test, stag, ctx->pd, 0, to, len + 1),
			SW_DDP_MEM_BASE_BOUNDS);
	KUNIT_EXPECT_EQ(test, check(test, stag, ctx->pd, 0, to + len, 1),
			SW_DDP_MEM_BASE_BOUNDS);
	KUNIT_EXPECT_EQ(test, check(test, stag, ctx->pd, 0, to + 1, len),
			SW_DDP_MEM_BASE_BOUNDS);
}

/* 10: TO + len wrapping 2^64 (RFC 5041 §7.1 tagged 5) */
static void to_wrap(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	u32 lkey = ctx->pd->local_dma_lkey;
	struct ib_mr *mr = fr_mr(test, ctx->pd, 1);
	void *buf = vbuf(test, PAGE_SIZE);
	u64 to = fast_reg(test, ctx->pd, mr, buf, 0, 64, 3, ALL_RIGHTS);

	KUNIT_EXPECT_EQ(test, check(test, lkey, ctx->pd, 0, U64_MAX, 1),
			SW_DDP_MEM_TO_WRAP);
	KUNIT_EXPECT_EQ(test, check(test, lkey, ctx->pd, 0, U64_MAX - 7, 16),
			SW_DDP_MEM_TO_WRAP);
	/* TO + len == 2^64 wraps too */
	KUNIT_EXPECT_EQ(test, check(test, mr->rkey, ctx->pd, 0, to,
				    U64_MAX - to + 1),
			SW_DDP_MEM_TO_WRAP);
	KUNIT_EXPECT_EQ(test, check(test, mr->rkey, ctx->pd, 0, to,
				    U64_MAX - to),
			SW_DDP_MEM_BASE_BOUNDS);
}

/* 11: with several faults, the first in RFC order is reported */
static void check_order(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr = fr_mr(test, ctx->pd, 1);
	void *buf = vbuf(test, PAGE_SIZE);
	u64 to = fast_reg(test, ctx->pd, mr, buf, 0, 64, 4,
			  IB_ACCESS_REMOTE_READ);
	u32 stag = mr->rkey;

	/* bad key, other PD, no right, out of bounds */
	KUNIT_EXPECT_EQ(test, check(test, stag ^ 0x80, ctx->pd2,
				    IB_ACCESS_REMOTE_WRITE, to, 65),
			SW_DDP_MEM_INVALID_STAG);
	KUNIT_EXPECT_EQ(test, check(test, stag, ctx->pd2,
				    IB_ACCESS_REMOTE_WRITE, to, 65),
			SW_DDP_MEM_PD_MISMATCH);
	KUNIT_EXPECT_EQ(test, check(test, stag, ctx->pd,
				    IB_ACCESS_REMOTE_WRITE, U64_MAX, 2),
			SW_DDP_MEM_ACCESS);
	KUNIT_EXPECT_EQ(test, check(test, stag, ctx->pd, IB_ACCESS_REMOTE_READ,
				    U64_MAX, 2),
			SW_DDP_MEM_TO_WRAP);
	KUNIT_EXPECT_EQ(test, check(test, stag, ctx->pd, IB_ACCESS_REMOTE_READ,
				    to, 65),
			SW_DDP_MEM_BASE_BOUNDS);
}

/* 12: a DMA MR reaches the kernel's direct map and nothing else */
static void dma_mr_direct_map_only(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	u32 lkey = ctx->pd->local_dma_lkey;
	void *vmem = vbuf(test, PAGE_SIZE);
	void *kmem = kunit_kzalloc(test, 64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, kmem);
	KUNIT_EXPECT_EQ(test, check(test, lkey, ctx->pd, 0, (uintptr_t)kmem,
				    64),
			SW_DDP_MEM_OK);
	KUNIT_EXPECT_EQ(test, check(test, lkey, ctx->pd, 0, (uintptr_t)vmem,
				    64),
			SW_DDP_MEM_BASE_BOUNDS);
	KUNIT_EXPECT_EQ(test, check(test, lkey, ctx->pd, 0, 0x1000, 8),
			SW_DDP_MEM_BASE_BOUNDS);
}

/* 13: DMA MR walk: kernel virtual addresses, across a page boundary */
static void dma_mr_walk(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr = dma_mr(test, ctx->pd, ALL_RIGHTS);
	u8 *buf = pbuf(test);
	u8 *src = pattern(test, PAGE_SIZE + 300, 1);
	u8 *back = kunit_kzalloc(test, PAGE_SIZE + 300, GFP_KERNEL);
	u64 to = (uintptr_t)buf + PAGE_SIZE - 100;

	KUNIT_ASSERT_NOT_NULL(test, back);
	KUNIT_ASSERT_EQ(test, place(test, mr->rkey, ctx->pd, to, src,
				    PAGE_SIZE + 300), 0);
	KUNIT_EXPECT_MEMEQ(test, buf + PAGE_SIZE - 100, src, PAGE_SIZE + 300);
	KUNIT_EXPECT_EQ(test, buf[PAGE_SIZE - 101], 0);
	KUNIT_EXPECT_EQ(test, buf[2 * PAGE_SIZE + 200], 0);
	KUNIT_ASSERT_EQ(test, fetch(test, mr->rkey, ctx->pd, to, back,
				    PAGE_SIZE + 300), 0);
	KUNIT_EXPECT_MEMEQ(test, back, src, PAGE_SIZE + 300);
}

/* 14: a fast-register STag is invalid until IB_WR_REG_MR */
static void fr_invalid_until_registered(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr = fr_mr(test, ctx->pd, 2);
	void *buf = vbuf(test, PAGE_SIZE);
	struct scatterlist *sg;
	int n;

	KUNIT_EXPECT_EQ(test, check(test, mr->rkey, ctx->pd, 0, 0, 0),
			SW_DDP_MEM_INVALID_STAG);
	sg = sgl_of(test, buf, 0, 128, &n);
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, sg, n, NULL, PAGE_SIZE), n);
	KUNIT_EXPECT_EQ(test, check(test, mr->rkey, ctx->pd, 0, mr->iova, 128),
			SW_DDP_MEM_INVALID_STAG);
	KUNIT_ASSERT_EQ(test, post_reg(ctx->pd, mr, 9, IB_ACCESS_LOCAL_WRITE), 0);
	KUNIT_EXPECT_EQ(test, check(test, mr->rkey, ctx->pd,
				    IB_ACCESS_LOCAL_WRITE, mr->iova, 128),
			SW_DDP_MEM_OK);
}

/*
 * 15: fast-register page walk: discontiguous (vmalloc) pages, a start in
 * the middle of a page, placement and chunks across page boundaries.
 */
static void fr_walk_pages(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	size_t off = 100, len = 3 * PAGE_SIZE - 200;
	struct ib_mr *mr = fr_mr(test, ctx->pd, 4);
	u8 *buf = vbuf(test, 3 * PAGE_SIZE);
	u8 *src = pattern(test, len, 2);
	u64 to = fast_reg(test, ctx->pd, mr, buf, off, len, 5, ALL_RIGHTS);
	struct sw_ddp_mem_iter it;
	struct sw_ddp_mr *m;
	struct bio_vec bv;
	u64 total = 0, x = 50;

	KUNIT_ASSERT_EQ(test, place(test, mr->rkey, ctx->pd, to + x, src,
				    len - x), 0);
	KUNIT_EXPECT_MEMEQ(test, buf + off + x, src, len - x);
	KUNIT_EXPECT_EQ(test, buf[off + x - 1], 0);
	KUNIT_EXPECT_EQ(test, buf[off + len], 0);

	/* Chunks: page-bounded, in order, at the right pages. */
	m = smr(mr);
	sw_ddp_mem_lock(m);
	sw_ddp_mem_iter_start(&it, m, to + x, len - x);
	while (sw_ddp_mem_iter_next(&it, &bv)) {
		u8 *want = buf + off + x + total;

		KUNIT_EXPECT_PTR_EQ(test, bv.bv_page, vmalloc_to_page(want));
		KUNIT_EXPECT_EQ(test, bv.bv_offset, offset_in_page(want));
		KUNIT_EXPECT_LE(test, bv.bv_offset + bv.bv_len, PAGE_SIZE);
		total += bv.bv_len;
	}
	sw_ddp_mem_unlock(m);
	KUNIT_EXPECT_EQ(test, it.err, 0);
	KUNIT_EXPECT_EQ(test, total, len - x);
}

/* 16: a ULP may move the iova after mapping (xprtrdma does) */
static void fr_iova_rebased(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr = fr_mr(test, ctx->pd, 3);
	u8 *buf = vbuf(test, 2 * PAGE_SIZE);
	u8 *src = pattern(test, 600, 3);
	struct scatterlist *sg;
	u64 old, to;
	int n;

	sg = sgl_of(test, buf, 3000, PAGE_SIZE, &n);
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, sg, n, NULL, PAGE_SIZE), n);
	old = mr->iova;
	mr->iova = (mr->iova & 0xffffffff) | (0x12345678ULL << 32);
	KUNIT_ASSERT_EQ(test, post_reg(ctx->pd, mr, 6, ALL_RIGHTS), 0);

	to = mr->iova + PAGE_SIZE - 1000;
	KUNIT_ASSERT_EQ(test, place(test, mr->rkey, ctx->pd, to, src, 600), 0);
	KUNIT_EXPECT_MEMEQ(test, buf + 3000 + PAGE_SIZE - 1000, src, 600);
	KUNIT_EXPECT_EQ(test, check(test, mr->rkey, ctx->pd, 0, old, 1),
			SW_DDP_MEM_BASE_BOUNDS);
}

/* 17: blocks larger than a page (map_mr_sg with 8 KiB pages) */
static void fr_large_blocks(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr = fr_mr(test, ctx->pd, 2);
	u8 *buf = pbuf(test);
	u8 *src = pattern(test, 2 * PAGE_SIZE, 4);
	struct scatterlist *sg;
	int n;

	sg = sgl_of(test, buf, 500, 3 * PAGE_SIZE, &n);
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, sg, n, NULL, SZ_8K), n);
	KUNIT_ASSERT_EQ(test, post_reg(ctx->pd, mr, 7, ALL_RIGHTS), 0);
	KUNIT_ASSERT_EQ(test, place(test, mr->rkey, ctx->pd,
				    mr->iova + PAGE_SIZE - 10, src,
				    2 * PAGE_SIZE), 0);
	KUNIT_EXPECT_MEMEQ(test, buf + 500 + PAGE_SIZE - 10, src,
			   2 * PAGE_SIZE);
}

/* 18: register, invalidate, register again with a new key and buffer */
static void fr_reregister_new_key(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr = fr_mr(test, ctx->pd, 2);
	u8 *a = vbuf(test, PAGE_SIZE), *b = vbuf(test, 2 * PAGE_SIZE);
	u8 *src = pattern(test, 256, 5);
	u32 old_stag;
	u64 to;

	to = fast_reg(test, ctx->pd, mr, a, 0, 512, 0x10, ALL_RIGHTS);
	old_stag = mr->rkey;
	KUNIT_ASSERT_EQ(test, place(test, old_stag, ctx->pd, to, src, 256), 0);
	KUNIT_EXPECT_MEMEQ(test, a, src, 256);

	KUNIT_ASSERT_EQ(test, sw_ddp_mem_invalidate(ctx->sdev, ctx->pd,
						    old_stag), 0);
	KUNIT_EXPECT_EQ(test, check(test, old_stag, ctx->pd, 0, to, 1),
			SW_DDP_MEM_INVALID_STAG);

	to = fast_reg(test, ctx->pd, mr, b, PAGE_SIZE - 64, 512,
		      ib_inc_rkey(old_stag) & 0xff, ALL_RIGHTS);
	KUNIT_EXPECT_NE(test, mr->rkey, old_stag);
	KUNIT_EXPECT_EQ(test, sw_ddp_stag_index(mr->rkey),
			sw_ddp_stag_index(old_stag));
	KUNIT_EXPECT_EQ(test, check(test, old_stag, ctx->pd, 0, to, 1),
			SW_DDP_MEM_INVALID_STAG);
	KUNIT_ASSERT_EQ(test, place(test, mr->rkey, ctx->pd, to, src, 256), 0);
	KUNIT_EXPECT_MEMEQ(test, b + PAGE_SIZE - 64, src, 256);
}

/*
 * 19: registering again without a new map reuses the last page list, but
 * not after a map that failed
 */
static void fr_reregister_without_map(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr = fr_mr(test, ctx->pd, 2);
	u8 *buf = vbuf(test, 2 * PAGE_SIZE);
	u8 *src = pattern(test, 300, 6);
	u64 to = fast_reg(test, ctx->pd, mr, buf, 200, PAGE_SIZE, 1,
			  ALL_RIGHTS);
	struct scatterlist *sg;
	u32 stag;
	int n;

	KUNIT_ASSERT_EQ(test, sw_ddp_mem_invalidate(ctx->sdev, ctx->pd,
						    mr->rkey), 0);
	KUNIT_ASSERT_EQ(test, post_reg(ctx->pd, mr, 2, ALL_RIGHTS), 0);
	KUNIT_ASSERT_EQ(test, place(test, mr->rkey, ctx->pd,
				    to + PAGE_SIZE - 300, src, 300), 0);
	KUNIT_EXPECT_MEMEQ(test, buf + 200 + PAGE_SIZE - 300, src, 300);

	/* Not after a map that failed: those pages may be gone. */
	KUNIT_ASSERT_EQ(test, sw_ddp_mem_invalidate(ctx->sdev, ctx->pd,
						    mr->rkey), 0);
	stag = mr->rkey;
	sg = sgl_of(test, buf, 0, 64, &n);
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, sg, n, NULL, SZ_2K), -EINVAL);
	KUNIT_EXPECT_EQ(test, post_reg(ctx->pd, mr, 3, ALL_RIGHTS), -EINVAL);
	KUNIT_EXPECT_EQ(test, check(test, stag, ctx->pd, 0, to, 1),
			SW_DDP_MEM_INVALID_STAG);
	/* A map that succeeds again is registered. */
	fast_reg(test, ctx->pd, mr, buf, 0, 64, 4, ALL_RIGHTS);
}

/* 20: IB_WR_REG_MR refused */
static void fr_register_refused(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr = fr_mr(test, ctx->pd, 1);
	void *buf = vbuf(test, PAGE_SIZE);
	struct ib_reg_wr wr = { .access = IB_ACCESS_LOCAL_WRITE };

	/* nothing mapped yet */
	KUNIT_EXPECT_EQ(test, post_reg(ctx->pd, mr, 1, IB_ACCESS_LOCAL_WRITE),
			-EINVAL);
	fast_reg(test, ctx->pd, mr, buf, 0, 64, 2, IB_ACCESS_LOCAL_WRITE);
	/* still valid */
	KUNIT_EXPECT_EQ(test, post_reg(ctx->pd, mr, 3, IB_ACCESS_LOCAL_WRITE),
			-EBUSY);
	ib_update_fast_reg_key(mr, 2);	/* what is registered */
	KUNIT_ASSERT_EQ(test, sw_ddp_mem_invalidate(ctx->sdev, ctx->pd,
						    mr->rkey), 0);
	/* other PD */
	KUNIT_EXPECT_EQ(test, post_reg(ctx->pd2, mr, 3, IB_ACCESS_LOCAL_WRITE),
			-EACCES);
	/* a key with another index */
	wr.mr = mr;
	wr.key = mr->rkey + 0x100;
	KUNIT_EXPECT_EQ(test, sw_ddp_mem_fast_reg(ctx->pd, &wr), -EINVAL);
	/* not a fast-register MR */
	wr.mr = dma_mr(test, ctx->pd, IB_ACCESS_LOCAL_WRITE);
	wr.key = wr.mr->rkey;
	KUNIT_EXPECT_EQ(test, sw_ddp_mem_fast_reg(ctx->pd, &wr), -EINVAL);
	KUNIT_EXPECT_EQ(test, check(test, mr->rkey, ctx->pd, 0, mr->iova, 1),
			SW_DDP_MEM_INVALID_STAG);
}

/* 21: limits of alloc_mr and map_mr_sg */
static void fr_map_limits(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr = fr_mr(test, ctx->pd, 2);
	void *buf = vbuf(test, 4 * PAGE_SIZE);
	struct scatterlist *sg;
	int n;

	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_mr(ctx->pd, IB_MR_TYPE_MEM_REG,
						  SW_DDP_MAX_FR_PAGES + 1)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_mr(ctx->pd, IB_MR_TYPE_MEM_REG,
						  0)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_mr(ctx->pd, IB_MR_TYPE_SG_GAPS,
						  4)),
			-EOPNOTSUPP);

	/* Four pages into a two-page MR: only a prefix maps. */
	sg = sgl_of(test, buf, 0, 4 * PAGE_SIZE, &n);
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr, sg, n, NULL, PAGE_SIZE), 2);
	KUNIT_EXPECT_EQ(test, mr->length, 2 * PAGE_SIZE);
	/* Blocks smaller than 4 KiB are refused. */
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr, sg, n, NULL, SZ_2K), -EINVAL);
}

/* 22: IB_WR_LOCAL_INV */
static void local_invalidate(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr = fr_mr(test, ctx->pd, 1);
	void *buf = vbuf(test, PAGE_SIZE);
	u64 to = fast_reg(test, ctx->pd, mr, buf, 0, 64, 0x33, ALL_RIGHTS);
	struct sw_ddp_dev *sdev = ctx->sdev;

	KUNIT_EXPECT_EQ(test, sw_ddp_mem_invalidate(sdev, ctx->pd,
						    mr->rkey ^ 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, sw_ddp_mem_invalidate(sdev, ctx->pd2, mr->rkey),
			-EACCES);
	KUNIT_EXPECT_EQ(test, sw_ddp_mem_invalidate(sdev, ctx->pd,
						    ctx->pd->local_dma_lkey),
			-EPERM);
	KUNIT_EXPECT_EQ(test, sw_ddp_mem_invalidate(sdev, ctx->pd, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, check(test, mr->rkey, ctx->pd, 0, to, 64),
			SW_DDP_MEM_OK);

	KUNIT_EXPECT_EQ(test, sw_ddp_mem_invalidate(sdev, ctx->pd, mr->rkey),
			0);
	KUNIT_EXPECT_EQ(test, check(test, mr->rkey, ctx->pd, 0, to, 64),
			SW_DDP_MEM_INVALID_STAG);
	/* again: not an error */
	KUNIT_EXPECT_EQ(test, sw_ddp_mem_invalidate(sdev, ctx->pd, mr->rkey),
			0);
}

/* 23: Send with Invalidate (RFC 5040 §5.3) */
static void remote_invalidate(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *remote = fr_mr(test, ctx->pd, 1);
	struct ib_mr *local = fr_mr(test, ctx->pd, 1);
	void *buf = vbuf(test, PAGE_SIZE);
	struct sw_ddp_dev *sdev = ctx->sdev;
	u64 to;

	to = fast_reg(test, ctx->pd, remote, buf, 0, 64, 1, ALL_RIGHTS);
	fast_reg(test, ctx->pd, local, buf, 0, 64, 1, IB_ACCESS_LOCAL_WRITE);

	KUNIT_EXPECT_EQ(test, sw_ddp_mem_remote_invalidate(sdev, ctx->pd,
							   remote->rkey + 1),
			SW_DDP_MEM_INVALID_STAG);
	KUNIT_EXPECT_EQ(test, sw_ddp_mem_remote_invalidate(sdev, ctx->pd2,
							   remote->rkey),
			SW_DDP_MEM_PD_MISMATCH);
	KUNIT_EXPECT_EQ(test, sw_ddp_mem_remote_invalidate(sdev, ctx->pd,
							   local->rkey),
			SW_DDP_MEM_CANNOT_INVALIDATE);
	KUNIT_EXPECT_EQ(test,
			sw_ddp_mem_remote_invalidate(sdev, ctx->pd,
						     ctx->pd->local_dma_lkey),
			SW_DDP_MEM_CANNOT_INVALIDATE);
	KUNIT_EXPECT_EQ(test, check(test, local->rkey, ctx->pd, 0, to, 1),
			SW_DDP_MEM_OK);

	KUNIT_EXPECT_EQ(test, sw_ddp_mem_remote_invalidate(sdev, ctx->pd,
							   remote->rkey),
			SW_DDP_MEM_OK);
	KUNIT_EXPECT_EQ(test, check(test, remote->rkey, ctx->pd, 0, to, 1),
			SW_DDP_MEM_INVALID_STAG);
}

/* 24: dereg while the data path holds a reference */
static void dereg_with_reference_held(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr = fr_mr(test, ctx->pd, 1);
	void *buf = vbuf(test, PAGE_SIZE);
	u64 to = fast_reg(test, ctx->pd, mr, buf, 0, 64, 1, ALL_RIGHTS);
	int before = atomic_read(&ctx->sdev->num_mr);
	u32 stag = mr->rkey;
	struct sw_ddp_mr *held;

	KUNIT_ASSERT_EQ(test, sw_ddp_mem_get_checked(ctx->sdev, stag, ctx->pd,
						     0, to, 64, &held),
			SW_DDP_MEM_OK);
	kunit_release_action(test, mem_test_dereg, mr);

	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->sdev->num_mr), before - 1);
	KUNIT_EXPECT_NULL(test, sw_ddp_mem_get(ctx->sdev, stag));
	sw_ddp_mem_lock(held);
	KUNIT_EXPECT_EQ(test, sw_ddp_mem_check_locked(held, stag, ctx->pd, 0,
						      to, 64),
			SW_DDP_MEM_INVALID_STAG);
	KUNIT_EXPECT_EQ(test, held->state, SW_DDP_MR_GONE);
	sw_ddp_mem_unlock(held);
	KUNIT_EXPECT_EQ(test, refcount_read(&held->ref), 1);
	sw_ddp_mem_put(held);	/* the last one: freed after RCU */
}

struct dereg_work {
	struct work_struct work;
	struct ib_mr *mr;
	struct completion done;
};

static void dereg_work_fn(struct work_struct *work)
{
	struct dereg_work *w = container_of(work, struct dereg_work, work);

	ib_dereg_mr(w->mr);
	complete(&w->done);
}

/* 25: dereg waits for an access section that is placing data */
static void dereg_waits_for_access_section(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr = fr_mr(test, ctx->pd, 1);
	void *buf = vbuf(test, PAGE_SIZE);
	u64 to = fast_reg(test, ctx->pd, mr, buf, 0, 64, 1, ALL_RIGHTS);
	struct dereg_work w = { .mr = mr };
	struct sw_ddp_mr *held;
	bool waited;

	KUNIT_ASSERT_EQ(test, sw_ddp_mem_get_checked(ctx->sdev, mr->rkey,
						     ctx->pd, 0, to, 64,
						     &held),
			SW_DDP_MEM_OK);
	kunit_remove_action(test, mem_test_dereg, mr);
	INIT_WORK_ONSTACK(&w.work, dereg_work_fn);
	init_completion(&w.done);

	sw_ddp_mem_lock(held);
	queue_work(system_unbound_wq, &w.work);
	mdelay(200);		/* the other CPU runs dereg_mr meanwhile */
	waited = !completion_done(&w.done);
	sw_ddp_mem_unlock(held);

	wait_for_completion(&w.done);
	destroy_work_on_stack(&w.work);
	KUNIT_EXPECT_TRUE(test, waited);
	KUNIT_EXPECT_EQ(test, held->state, SW_DDP_MR_GONE);
	sw_ddp_mem_put(held);
}

/* 26: SW_DDP_MAX_MR, and the count after failures */
static void mr_limit(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	atomic_t *num = &ctx->sdev->num_mr;
	int used = atomic_read(num);
	struct ib_mr *mr;

	atomic_add(SW_DDP_MAX_MR - used, num);
	mr = ib_alloc_mr(ctx->pd, IB_MR_TYPE_MEM_REG, 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(mr), -ENOMEM);
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
	mr = ctx->ibdev->ops.get_dma_mr(ctx->pd, IB_ACCESS_LOCAL_WRITE);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(mr), -ENOMEM);
	if (!IS_ERR(mr))
		ctx->ibdev->ops.dereg_mr(mr, NULL);
	KUNIT_EXPECT_EQ(test, atomic_read(num), SW_DDP_MAX_MR);
	atomic_sub(SW_DDP_MAX_MR - used, num);

	fr_mr(test, ctx->pd, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(num), used + 1);
}

/* 27: bio_vecs for an ITER_BVEC iov_iter */
static void bvecs(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	struct ib_mr *mr = fr_mr(test, ctx->pd, 3);
	u8 *buf = vbuf(test, 3 * PAGE_SIZE);
	u64 to = fast_reg(test, ctx->pd, mr, buf, 100, 2 * PAGE_SIZE + 100, 1,
			  ALL_RIGHTS);
	struct sw_ddp_mr *m = smr(mr);
	struct bio_vec bv[4];
	int n, small;

	sw_ddp_mem_lock(m);
	small = sw_ddp_mem_bvecs(m, to + 10, 2 * PAGE_SIZE, bv, 2);
	n = sw_ddp_mem_bvecs(m, to + 10, 2 * PAGE_SIZE, bv, ARRAY_SIZE(bv));
	sw_ddp_mem_unlock(m);

	KUNIT_EXPECT_EQ(test, small, -E2BIG);
	KUNIT_ASSERT_EQ(test, n, 3);
	KUNIT_EXPECT_PTR_EQ(test, bv[0].bv_page, vmalloc_to_page(buf));
	KUNIT_EXPECT_EQ(test, bv[0].bv_offset, 110U);
	KUNIT_EXPECT_EQ(test, bv[0].bv_len, PAGE_SIZE - 110);
	KUNIT_EXPECT_PTR_EQ(test, bv[1].bv_page,
			    vmalloc_to_page(buf + PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, bv[1].bv_offset, 0U);
	KUNIT_EXPECT_EQ(test, bv[1].bv_len, PAGE_SIZE);
	KUNIT_EXPECT_PTR_EQ(test, bv[2].bv_page,
			    vmalloc_to_page(buf + 2 * PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, bv[2].bv_len, 110U);
}

struct copy_ctx {
	const u8 *src;		/* copy_actor: into the SGEs */
	u8 *dst;		/* read_actor: out of them */
};

static int copy_actor(void *p, const struct bio_vec *bv)
{
	struct copy_ctx *c = p;

	memcpy_to_page(bv->bv_page, bv->bv_offset, c->src, bv->bv_len);
	c->src += bv->bv_len;
	return 0;
}

static int read_actor(void *p, const struct bio_vec *bv)
{
	struct copy_ctx *c = p;

	memcpy_from_page(c->dst, bv->bv_page, bv->bv_offset, bv->bv_len);
	c->dst += bv->bv_len;
	return 0;
}

/* 28: an SGE list across DMA and fast-register MRs, with a gap SGE */
static void sgl_walk_across_sges(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	u8 *a = kunit_kzalloc(test, 100, GFP_KERNEL);
	u8 *b = pbuf(test);
	u8 *v = vbuf(test, 3 * PAGE_SIZE);
	struct ib_mr *mr = fr_mr(test, ctx->pd, 3);
	u64 to = fast_reg(test, ctx->pd, mr, v, 4000, 5000, 1,
			  IB_ACCESS_LOCAL_WRITE);
	u32 lkey = ctx->pd->local_dma_lkey;
	struct ib_sge sge[4] = {
		{ .addr = (uintptr_t)a, .length = 100, .lkey = lkey },
		{ .addr = 0, .length = 0, .lkey = 0xdeadbeef },
		{ .addr = to, .length = 5000, .lkey = mr->lkey },
		{ .addr = (uintptr_t)b + 10, .length = 6000, .lkey = lkey },
	};
	u8 *src = pattern(test, 8050, 7);
	struct copy_ctx c = { .src = src };
	struct sw_ddp_mr *mrs[4];
	u32 bad = 99;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_EQ(test, sw_ddp_mem_get_sgl(ctx->sdev, ctx->pd, sge, 4,
						 IB_ACCESS_LOCAL_WRITE, mrs,
						 &bad),
			SW_DDP_MEM_OK);
	KUNIT_EXPECT_NULL(test, mrs[1]);
	KUNIT_EXPECT_PTR_EQ(test, mrs[2], smr(mr));

	KUNIT_EXPECT_EQ(test, sw_ddp_mem_sgl_walk(sge, mrs, 4, ctx->pd,
						  IB_ACCESS_LOCAL_WRITE, 50,
						  8050, copy_actor, &c), 0);
	KUNIT_EXPECT_MEMEQ(test, a + 50, src, 50);
	KUNIT_EXPECT_MEMEQ(test, v + 4000, src + 50, 5000);
	KUNIT_EXPECT_MEMEQ(test, b + 10, src + 5050, 3000);
	KUNIT_EXPECT_EQ(test, a[49], 0);
	KUNIT_EXPECT_EQ(test, v[9000], 0);
	KUNIT_EXPECT_EQ(test, b[3010], 0);

	c.src = src;
	KUNIT_EXPECT_EQ(test, sw_ddp_mem_sgl_walk(sge, mrs, 4, ctx->pd,
						  IB_ACCESS_LOCAL_WRITE, 11000,
						  101, copy_actor, &c),
			-EMSGSIZE);
	sw_ddp_mem_put_sgl(mrs, 4);
}

/* 29: SGE list checks, and an MR invalidated after posting */
static void sgl_checks(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	u8 *a = kunit_kzalloc(test, 64, GFP_KERNEL);
	u8 *v = vbuf(test, PAGE_SIZE);
	struct ib_mr *ro = fr_mr(test, ctx->pd, 1);
	u64 to = fast_reg(test, ctx->pd, ro, v, 0, 512, 1,
			  IB_ACCESS_REMOTE_READ);
	struct sw_ddp_mr *dma = smr(ctx->pd->__internal_mr);
	u32 lkey = ctx->pd->local_dma_lkey;
	struct ib_sge sge[2] = {
		{ .addr = (uintptr_t)a, .length = 64, .lkey = lkey },
		{ .addr = to, .length = 512, .lkey = ro->lkey ^ 0x80 },
	};
	u8 *out = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct copy_ctx c = { .dst = out };
	unsigned int refs = refcount_read(&dma->ref);
	struct sw_ddp_mr *mrs[2];
	u32 bad = 99;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, out);
	memset(a, 0x3c, 64);
	KUNIT_EXPECT_EQ(test, sw_ddp_mem_get_sgl(ctx->sdev, ctx->pd, sge, 2, 0,
						 mrs, &bad),
			SW_DDP_MEM_INVALID_STAG);
	KUNIT_EXPECT_EQ(test, bad, 1U);
	KUNIT_EXPECT_EQ(test, refcount_read(&dma->ref), refs);

	sge[1].lkey = ro->lkey;
	sge[1].length = 513;
	KUNIT_EXPECT_EQ(test, sw_ddp_mem_get_sgl(ctx->sdev, ctx->pd, sge, 2, 0,
						 mrs, &bad),
			SW_DDP_MEM_BASE_BOUNDS);
	sge[1].length = 512;
	KUNIT_EXPECT_EQ(test, sw_ddp_mem_get_sgl(ctx->sdev, ctx->pd, sge, 2,
						 IB_ACCESS_LOCAL_WRITE, mrs,
						 &bad),
			SW_DDP_MEM_ACCESS);
	KUNIT_EXPECT_EQ(test, sw_ddp_mem_get_sgl(ctx->sdev, ctx->pd2, sge, 2,
						 0, mrs, &bad),
			SW_DDP_MEM_PD_MISMATCH);
	KUNIT_EXPECT_EQ(test, bad, 0U);
	KUNIT_EXPECT_EQ(test, refcount_read(&dma->ref), refs);

	/* A source list: local read is always allowed. */
	KUNIT_ASSERT_EQ(test, sw_ddp_mem_get_sgl(ctx->sdev, ctx->pd, sge, 2, 0,
						 mrs, &bad),
			SW_DDP_MEM_OK);
	KUNIT_EXPECT_EQ(test, refcount_read(&dma->ref), refs + 1);
	KUNIT_EXPECT_EQ(test, sw_ddp_mem_invalidate(ctx->sdev, ctx->pd,
						    ro->rkey), 0);
	KUNIT_EXPECT_EQ(test, sw_ddp_mem_sgl_walk(sge, mrs, 2, ctx->pd, 0, 0,
						  64, read_actor, &c), 0);
	KUNIT_EXPECT_MEMEQ(test, out, a, 64);
	c.dst = out;
	KUNIT_EXPECT_EQ(test, sw_ddp_mem_sgl_walk(sge, mrs, 2, ctx->pd, 0, 60,
						  8, read_actor, &c), -EACCES);
	sw_ddp_mem_put_sgl(mrs, 2);
	KUNIT_EXPECT_EQ(test, refcount_read(&dma->ref), refs);
}

/* User memory: an anonymous mapping in the test's own mm. */
static unsigned long umap(struct kunit *test, size_t len)
{
	unsigned long addr = kunit_vm_mmap(test, NULL, 0, len,
					   PROT_READ | PROT_WRITE,
					   MAP_ANONYMOUS | MAP_PRIVATE, 0);
	void *zero = kunit_kzalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_TRUE(test, addr && !IS_ERR_VALUE(addr));
	KUNIT_ASSERT_NOT_NULL(test, zero);
	/* Fault it in, so what is pinned is what the process sees. */
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)addr, zero, len), 0);
	return addr;
}

#define UDATA_IN	0
#define UDATA_OUT	256

/* reg_user_mr as uverbs calls it, with libsiw's driver data. */
static struct ib_mr *reg_user(struct kunit *test, struct ib_pd *pd,
			      u64 start, u64 len, u64 iova, int access,
			      const void *req, size_t inlen,
			      struct siw_uresp_reg_mr *uresp)
{
	struct mem_test *ctx = test->priv;
	struct ib_udata udata = {
		.inlen = inlen,
		.outlen = sizeof(*uresp),
	};
	struct ib_mr *mr;

	if (!ctx->ubuf)
		ctx->ubuf = (void __user *)umap(test, PAGE_SIZE);
	udata.inbuf = ctx->ubuf + UDATA_IN;
	udata.outbuf = ctx->ubuf + UDATA_OUT;
	KUNIT_ASSERT_EQ(test, copy_to_user(ctx->ubuf + UDATA_IN, req, inlen),
			0);

	mr = pd->device->ops.reg_user_mr(pd, start, len, iova, access, &udata);
	if (IS_ERR(mr))
		return mr;
	mr->device = pd->device;
	mr->pd = pd;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							mem_test_dereg_op, mr),
			0);
	KUNIT_ASSERT_EQ(test, copy_from_user(uresp, ctx->ubuf + UDATA_OUT,
					     sizeof(*uresp)), 0);
	return mr;
}

/* 30: a user MR: key from libsiw, placement into the pinned pages */
static void user_mr_placement(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	unsigned long uaddr = umap(test, 3 * PAGE_SIZE);
	struct siw_ureq_reg_mr ureq = { .stag_key = 0x5a };
	u64 iova = 0x10000000ULL + 300, len = 2 * PAGE_SIZE;
	u8 *src = pattern(test, PAGE_SIZE + 500, 9);
	u8 *back = kunit_kzalloc(test, PAGE_SIZE + 600, GFP_KERNEL);
	struct siw_uresp_reg_mr uresp = {};
	struct ib_mr *mr;

	KUNIT_ASSERT_NOT_NULL(test, back);
	mr = reg_user(test, ctx->pd, uaddr + 300, len, iova, ALL_RIGHTS,
		      &ureq, sizeof(ureq), &uresp);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, uresp.stag, mr->lkey);
	KUNIT_EXPECT_EQ(test, mr->rkey, mr->lkey);
	KUNIT_EXPECT_EQ(test, sw_ddp_stag_key(mr->rkey), 0x5a);
	KUNIT_EXPECT_NE(test, sw_ddp_stag_index(mr->rkey), 0U);

	/* Peer writes at TO iova + 100: lands at uaddr + 400, over a page. */
	KUNIT_ASSERT_EQ(test, place(test, mr->rkey, ctx->pd, iova + 100, src,
				    PAGE_SIZE + 500), 0);
	KUNIT_ASSERT_EQ(test, copy_from_user(back, (void __user *)uaddr + 399,
					     PAGE_SIZE + 502), 0);
	KUNIT_EXPECT_EQ(test, back[0], 0);
	KUNIT_EXPECT_MEMEQ(test, back + 1, src, PAGE_SIZE + 500);
	KUNIT_EXPECT_EQ(test, back[PAGE_SIZE + 501], 0);

	/* The process writes its last bytes; a peer reads them. */
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)uaddr + 300 + len -
					   64, src, 64), 0);
	KUNIT_ASSERT_EQ(test, fetch(test, mr->rkey, ctx->pd, iova + len - 64,
				    back, 64), 0);
	KUNIT_EXPECT_MEMEQ(test, back, src, 64);

	KUNIT_EXPECT_EQ(test, check(test, mr->rkey, ctx->pd, 0, iova + len, 1),
			SW_DDP_MEM_BASE_BOUNDS);
	KUNIT_EXPECT_EQ(test, sw_ddp_mem_remote_invalidate(ctx->sdev, ctx->pd,
							   mr->rkey),
			SW_DDP_MEM_CANNOT_INVALIDATE);
}

/* 31: reg_user_mr refused, and nothing left behind */
static void user_mr_refused(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	unsigned long uaddr = umap(test, 2 * PAGE_SIZE);
	struct siw_ureq_reg_mr ureq = {};
	struct siw_uresp_reg_mr uresp;
	u8 req[16] = {};
	int used = atomic_read(&ctx->sdev->num_mr);
	struct ib_mr *mr;

	mr = reg_user(test, ctx->pd, uaddr, PAGE_SIZE, uaddr, ALL_RIGHTS,
		      &ureq, 4, &uresp);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mr), -EINVAL);		/* short */
	req[2] = 1;
	mr = reg_user(test, ctx->pd, uaddr, PAGE_SIZE, uaddr, ALL_RIGHTS,
		      req, sizeof(ureq), &uresp);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mr), -EINVAL);		/* reserved */
	req[2] = 0;
	req[12] = 1;
	mr = reg_user(test, ctx->pd, uaddr, PAGE_SIZE, uaddr, ALL_RIGHTS,
		      req, sizeof(req), &uresp);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mr), -EOPNOTSUPP);	/* unknown */
	mr = reg_user(test, ctx->pd, uaddr, PAGE_SIZE, uaddr,
		      IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_ATOMIC, &ureq,
		      sizeof(ureq), &uresp);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mr), -EOPNOTSUPP);
	mr = reg_user(test, ctx->pd, uaddr, 0, uaddr, ALL_RIGHTS, &ureq,
		      sizeof(ureq), &uresp);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mr), -EINVAL);		/* empty */
	mr = reg_user(test, ctx->pd, uaddr, SW_DDP_MAX_MR_SIZE + 1, uaddr,
		      ALL_RIGHTS, &ureq, sizeof(ureq), &uresp);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mr), -EINVAL);		/* too big */
	mr = reg_user(test, ctx->pd, uaddr, PAGE_SIZE, U64_MAX - 100,
		      ALL_RIGHTS, &ureq, sizeof(ureq), &uresp);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mr), -EINVAL);		/* TO wraps */
	mr = reg_user(test, ctx->pd, PAGE_SIZE, PAGE_SIZE, PAGE_SIZE,
		      ALL_RIGHTS, &ureq, sizeof(ureq), &uresp);
	KUNIT_EXPECT_TRUE(test, IS_ERR(mr));			/* unmapped */
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->sdev->num_mr), used);

	/* Trailing zeroes are fine. */
	req[12] = 0;
	mr = reg_user(test, ctx->pd, uaddr, PAGE_SIZE, uaddr, ALL_RIGHTS,
		      req, sizeof(req), &uresp);
	KUNIT_EXPECT_FALSE(test, IS_ERR(mr));
}

static struct ib_mr *rereg(struct kunit *test, struct ib_mr *mr, int flags,
			   u64 start, u64 len, u64 iova, int access,
			   struct ib_pd *pd)
{
	struct ib_mr *new = mr->device->ops.rereg_user_mr(mr, flags, start,
							  len, iova, access,
							  pd, NULL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, new);
	new->device = pd->device;
	new->pd = pd;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							mem_test_dereg_op, new),
			0);
	return new;
}

/* 32: rereg_user_mr makes a new MR (new STag, same key) */
static void user_mr_rereg(struct kunit *test)
{
	struct mem_test *ctx = test->priv;
	unsigned long uaddr = umap(test, 2 * PAGE_SIZE);
	struct siw_ureq_reg_mr ureq = { .stag_key = 0x77 };
	u8 *src = pattern(test, 64, 10), *back;
	struct siw_uresp_reg_mr uresp;
	struct ib_mr *mr, *acc, *moved, *other, *bad;

	back = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, back);
	mr = reg_user(test, ctx->pd, uaddr, PAGE_SIZE, uaddr,
		      IB_ACCESS_LOCAL_WRITE, &ureq, sizeof(ureq), &uresp);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);

	acc = rereg(test, mr, IB_MR_REREG_ACCESS, 0, 0, 0, ALL_RIGHTS,
		    ctx->pd);
	KUNIT_EXPECT_NE(test, sw_ddp_stag_index(acc->rkey),
			sw_ddp_stag_index(mr->rkey));
	KUNIT_EXPECT_EQ(test, sw_ddp_stag_key(acc->rkey), 0x77);
	KUNIT_EXPECT_EQ(test, check(test, mr->rkey, ctx->pd,
				    IB_ACCESS_REMOTE_WRITE, uaddr, 64),
			SW_DDP_MEM_ACCESS);
	KUNIT_EXPECT_EQ(test, check(test, acc->rkey, ctx->pd,
				    IB_ACCESS_REMOTE_WRITE, uaddr, 64),
			SW_DDP_MEM_OK);

	moved = rereg(test, acc, IB_MR_REREG_TRANS, uaddr + PAGE_SIZE, 128,
		      0x5000, 0, ctx->pd);
	/* ib_core's rereg sets neither: rdma res show reads them */
	KUNIT_EXPECT_EQ(test, moved->iova, 0x5000);
	KUNIT_EXPECT_EQ(test, moved->length, 128);
	KUNIT_ASSERT_EQ(test, place(test, moved->rkey, ctx->pd, 0x5000 + 8, src,
				    64), 0);
	KUNIT_ASSERT_EQ(test, copy_from_user(back, (void __user *)uaddr +
					     PAGE_SIZE + 8, 64), 0);
	KUNIT_EXPECT_MEMEQ(test, back, src, 64);

	other = rereg(test, moved, IB_MR_REREG_PD, 0, 0, 0, 0, ctx->pd2);
	KUNIT_EXPECT_EQ(test, other->iova, 0x5000);
	KUNIT_EXPECT_EQ(test, other->length, 128);
	KUNIT_EXPECT_EQ(test, check(test, other->rkey, ctx->pd2, 0, 0x5000,
				    128),
			SW_DDP_MEM_OK);
	KUNIT_EXPECT_EQ(test, check(test, other->rkey, ctx->pd, 0, 0x5000,
				    128),
			SW_DDP_MEM_PD_MISMATCH);

	/* 8 is no IB_MR_REREG_* flag */
	bad = mr->device->ops.rereg_user_mr(mr, 8, 0, 0, 0, 0, ctx->pd, NULL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(bad), -EOPNOTSUPP);
}

static struct kunit_case mem_test_cases[] = {
	KUNIT_CASE(stag_encoding),
	KUNIT_CASE(pd_local_dma_lkey),
	KUNIT_CASE(stags_unique_and_found),
	KUNIT_CASE(lookup_misses),
	KUNIT_CASE(key_mismatch),
	KUNIT_CASE(pd_mismatch),
	KUNIT_CASE(access_rights),
	KUNIT_CASE(access_flags_refused),
	KUNIT_CASE(bounds_edges),
	KUNIT_CASE(to_wrap),
	KUNIT_CASE(check_order),
	KUNIT_CASE(dma_mr_direct_map_only),
	KUNIT_CASE(dma_mr_walk),
	KUNIT_CASE(fr_invalid_until_registered),
	KUNIT_CASE(fr_walk_pages),
	KUNIT_CASE(fr_iova_rebased),
	KUNIT_CASE(fr_large_blocks),
	KUNIT_CASE(fr_reregister_new_key),
	KUNIT_CASE(fr_reregister_without_map),
	KUNIT_CASE(fr_register_refused),
	KUNIT_CASE(fr_map_limits),
	KUNIT_CASE(local_invalidate),
	KUNIT_CASE(remote_invalidate),
	KUNIT_CASE(dereg_with_reference_held),
	KUNIT_CASE(dereg_waits_for_access_section),
	KUNIT_CASE(mr_limit),
	KUNIT_CASE(bvecs),
	KUNIT_CASE(sgl_walk_across_sges),
	KUNIT_CASE(sgl_checks),
	KUNIT_CASE(user_mr_placement),
	KUNIT_CASE(user_mr_refused),
	KUNIT_CASE(user_mr_rereg),
	{}
};

static struct kunit_suite mem_test_suite = {
	.name = "sw_ddp_mem",
	.init = mem_test_init,
	.test_cases = mem_test_cases,
};

kunit_test_suites(&mem_test_suite);
