/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queue rings shared with user space: how they are allocated and mapped.
 */
#ifndef SW_DDP_UMAP_H
#define SW_DDP_UMAP_H

#include <rdma/ib_verbs.h>

void *sw_ddp_ring_alloc(size_t size, bool user);
int sw_ddp_ring_publish(struct ib_ucontext *uctx, void *ring, size_t size,
			struct rdma_user_mmap_entry **entry, u64 *key);
void sw_ddp_ring_free(void *ring, struct rdma_user_mmap_entry *entry);

/* ib_device_ops */
int sw_ddp_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void sw_ddp_mmap_free(struct rdma_user_mmap_entry *entry);

#endif /* SW_DDP_UMAP_H */
