// SPDX-License-Identifier: GPL-2.0
/*
 * sw_ddp user-mapped rings: the SQ, RQ, SRQ and CQ arrays of the siw ABI.
 *
 * libsiw learns an mmap offset (the "key") for each ring from the create
 * verb's response and maps num_entries * entry_size bytes at that offset of
 * the uverbs file.  The keys are ib_core's rdma_user_mmap_entry offsets, so
 * ib_core resolves them, refuses a wrong length or a private mapping, and
 * drops them with the ucontext.
 *
 * Lifetime: a published ring belongs to its mmap entry and is freed in
 * mmap_free, when the object that published it has removed the entry and
 * no mmap() is using it any more.  A VMA made earlier keeps its pages by
 * their own page references, so user space never sees freed memory, and
 * the kernel never touches a ring after removing its entry.
 *
 * Ring memory is zeroed, so nothing of the kernel's leaks, and a user's
 * is charged to the memory cgroup of the task that creates the queue, as
 * the pages of its MRs count against its locked memory: a user allowed
 * to open the uverbs device pins no more than its cgroup lets it (a
 * cgroup at its limit reclaims, or OOM-kills, as for any memory charged
 * to it).  vmalloc_user() cannot charge, so user rings come from
 * __vmalloc() and are mapped page by page, as remap_vmalloc_range()
 * would; page aligned, where vmalloc_user() aligns to SHMLBA, which is
 * a page wherever the data cache does not alias (x86, arm64).
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/siw-abi.h>

#include "compat.h"
#include "umap.h"

struct sw_ddp_umap {
	struct rdma_user_mmap_entry base;
	void *ring;
};

static struct sw_ddp_umap *to_umap(struct rdma_user_mmap_entry *entry)
{
	return container_of(entry, struct sw_ddp_umap, base);
}

/*
 * Zeroed ring memory; if @user, mappable to user space and charged to
 * the caller's memory cgroup.  Freed with vfree().
 */
void *sw_ddp_ring_alloc(size_t size, bool user)
{
	if (user)
		return __vmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_ZERO |
				 __GFP_NOWARN);
	return vzalloc(size);
}

/*
 * Offer @ring (from sw_ddp_ring_alloc(size, true)) to mmap() and return the
 * key for libsiw.  On success the entry owns the ring: release both with
 * sw_ddp_ring_free().  On failure the caller still owns the ring.
 *
 * libsiw takes the key SIW_INVAL_UOBJ_KEY to mean "no ring", and that value
 * is page aligned, so keys start above it.
 */
int sw_ddp_ring_publish(struct ib_ucontext *uctx, void *ring, size_t size,
			struct rdma_user_mmap_entry **entry, u64 *key)
{
	u32 first = (SIW_INVAL_UOBJ_KEY >> PAGE_SHIFT) + 1;
	struct sw_ddp_umap *umap;
	int err;

	umap = kzalloc(sizeof(*umap), GFP_KERNEL);
	if (!umap)
		return -ENOMEM;

	umap->ring = ring;
	err = rdma_user_mmap_entry_insert_range(uctx, &umap->base, size, first,
						U32_MAX);
	if (err) {
		kfree(umap);
		return err;
	}
	*entry = &umap->base;
	*key = rdma_user_mmap_get_offset(&umap->base);
	return 0;
}

/* Free a ring, published (@entry set) or not; NULL @ring is a no-op. */
void sw_ddp_ring_free(void *ring, struct rdma_user_mmap_entry *entry)
{
	if (entry)
		rdma_user_mmap_entry_remove(entry);
	else
		vfree(ring);
}

/*
 * Map all of @ring's pages, as many as the VMA has: the ring was
 * published with its size, and its mmap entry takes only a VMA of that
 * size, so they are the pages its allocation has.  Each page holds a
 * reference of the VMA's own.
 */
static int umap_ring(struct vm_area_struct *vma, void *ring)
{
	unsigned long off;
	int err;

	sw_ddp_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	for (off = 0; off < vma->vm_end - vma->vm_start; off += PAGE_SIZE) {
		err = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(ring + off));
		if (err)
			return err;
	}
	return 0;
}

/* ops.mmap: map the ring behind the key in vm_pgoff. */
int sw_ddp_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	int err;

	/* NULL also for a private mapping or a length other than the ring's */
	entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!entry)
		return -EINVAL;

	err = umap_ring(vma, to_umap(entry)->ring);
	rdma_user_mmap_entry_put(entry);
	return err;
}

/* ops.mmap_free: the last reference to a ring's entry is gone. */
void sw_ddp_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct sw_ddp_umap *umap = to_umap(entry);

	vfree(umap->ring);
	kfree(umap);
}
