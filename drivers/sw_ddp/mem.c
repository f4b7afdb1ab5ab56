// SPDX-License-Identifier: GPL-2.0
/*
 * sw_ddp memory: memory regions, STags, access checks and the page walk.
 * mem.h describes what the data path sees; this is how it is kept.
 *
 * Three kinds of MR, one walk.  A user MR (reg_user_mr) pins its pages
 * with ib_umem and keeps them in a flat array.  A DMA MR (get_dma_mr,
 * which ib_alloc_pd() uses for pd->local_dma_lkey) maps the kernel's
 * direct map: sw_ddp registers with no DMA device, so ib_core's virt DMA
 * makes every "DMA address" a kernel virtual address.  A fast-register
 * MR (alloc_mr) gets a page list of such addresses from map_mr_sg and is
 * made valid by an IB_WR_REG_MR on a send queue.
 *
 * Lifetime.  The device's MR table (an xarray by STag index) holds one
 * reference; lookups take more under RCU.  dereg_mr takes the MR out of
 * the table, marks it GONE under its lock for writing (so no access
 * section is still using the memory) and releases the memory there, in
 * process context.  The struct goes with the last reference, after an RCU
 * grace period, so a lookup racing with dereg_mr reads valid memory.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/xarray.h>
#include <kunit/visibility.h>
#include <rdma/ib_umem.h>

#include "sw_ddp.h"
#include "mem.h"

/* The rights an MR can grant; iWARP has no atomics, and we no MWs. */
#define SW_DDP_MR_RIGHTS	(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ)
#define SW_DDP_MR_REMOTE	(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ)
/* Hints that change nothing for a software RNIC. */
#define SW_DDP_MR_IGNORED	(IB_ACCESS_HUGETLB | IB_ACCESS_OPTIONAL)

void sw_ddp_mem_init(struct sw_ddp_dev *sdev)
{
	xa_init_flags(&sdev->mr_xa, XA_FLAGS_ALLOC);
	/* Start the cyclic allocator anywhere: STags are harder to guess. */
	sdev->mr_next = get_random_u32() & SW_DDP_STAG_INDEX_MAX;
	atomic_set(&sdev->num_mr, 0);
}

void sw_ddp_mem_fini(struct sw_ddp_dev *sdev)
{
	/* ib_core deregisters every MR before the device goes. */
	WARN_ON(!xa_empty(&sdev->mr_xa));
	xa_destroy(&sdev->mr_xa);
}

/* Access flags of reg_user_mr, get_dma_mr and IB_WR_REG_MR. */
static int sw_ddp_mr_check_access(int access)
{
	if (access & ~IB_ACCESS_SUPPORTED)
		return -EINVAL;
	/* Atomics, MW binding, zero-based, on-demand paging, flush. */
	if (access & ~(SW_DDP_MR_RIGHTS | SW_DDP_MR_IGNORED))
		return -EOPNOTSUPP;
	/* As ib_check_mr_access(): remote write needs local write. */
	if ((access & IB_ACCESS_REMOTE_WRITE) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

/* A kernel virtual address from ib_core's virt DMA, if it is one. */
static void *sw_ddp_kva(u64 addr)
{
	void *va = (void *)(uintptr_t)addr;

	if ((uintptr_t)addr != addr || !virt_addr_valid(va))
		return NULL;
	return va;
}

static bool sw_ddp_kva_range_ok(u64 addr, u64 len)
{
	return !len || (sw_ddp_kva(addr) && sw_ddp_kva(addr + len - 1));
}

/* An MR not yet in the table, counted against the device's limit. */
static struct sw_ddp_mr *sw_ddp_mr_alloc(struct ib_pd *pd,
					 enum sw_ddp_mr_kind kind)
{
	struct sw_ddp_dev *sdev = to_sdev(pd->device);
	struct sw_ddp_mr *mr;

	if (atomic_inc_return(&sdev->num_mr) > SW_DDP_MAX_MR)
		goto err_count;
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		goto err_count;

	mr->sdev = sdev;
	mr->kind = kind;
	mr->pd = pd;
	mr->state = SW_DDP_MR_INVALID;
	refcount_set(&mr->ref, 1);
	rwlock_init(&mr->lock);
	return mr;

err_count:
	atomic_dec(&sdev->num_mr);
	return ERR_PTR(-ENOMEM);
}

/* Release what an MR maps; nobody may be walking it any more. */
static void sw_ddp_mr_free_memory(struct sw_ddp_mr *mr)
{
	switch (mr->kind) {
	case SW_DDP_MR_USER:
		kvfree(mr->user.pages);
		ib_umem_release(mr->user.umem);
		break;
	case SW_DDP_MR_FAST_REG:
		kfree(mr->fr.active);
		kfree(mr->fr.staged);
		break;
	case SW_DDP_MR_DMA:
		break;
	}
}

/* Undo sw_ddp_mr_alloc() for an MR that never made it into the table. */
static void sw_ddp_mr_discard(struct sw_ddp_mr *mr)
{
	sw_ddp_mr_free_memory(mr);
	atomic_dec(&mr->sdev->num_mr);
	kfree(mr);
}

/*
 * Give the MR an index, and so its STag.  Cyclic allocation keeps a
 * just-freed index (which a peer may still name) unused for long; index 0
 * is never handed out, so STag 0 never names an MR.
 */
static int sw_ddp_mr_insert(struct sw_ddp_mr *mr, u8 key)
{
	struct sw_ddp_dev *sdev = mr->sdev;
	u32 index;
	int err;

	err = xa_alloc_cyclic(&sdev->mr_xa, &index, mr,
			      XA_LIMIT(1, SW_DDP_STAG_INDEX_MAX),
			      &sdev->mr_next, GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;

	mr->stag = sw_ddp_stag(index, key);
	mr->ibmr.lkey = mr->stag;
	mr->ibmr.rkey = mr->stag;
	return 0;
}

static void sw_ddp_mr_set_valid(struct sw_ddp_mr *mr)
{
	write_lock_bh(&mr->lock);
	mr->state = SW_DDP_MR_VALID;
	write_unlock_bh(&mr->lock);
}

/* Deregister: the inverse of sw_ddp_mr_alloc() + sw_ddp_mr_insert(). */
static void sw_ddp_mr_remove(struct sw_ddp_mr *mr)
{
	struct sw_ddp_dev *sdev = mr->sdev;
	u32 index;

	/* Waits out every access section; none starts after this. */
	write_lock_bh(&mr->lock);
	mr->state = SW_DDP_MR_GONE;
	index = sw_ddp_stag_index(mr->stag);
	write_unlock_bh(&mr->lock);

	xa_erase(&sdev->mr_xa, index);
	sw_ddp_mr_free_memory(mr);
	atomic_dec(&sdev->num_mr);
	sw_ddp_mem_put(mr);
}

/**
 * sw_ddp_mem_get() - look an MR up by STag
 * @sdev: the device
 * @stag: the STag; only its index is looked at here
 *
 * Any context.  The key and state are checked by sw_ddp_mem_check_locked().
 *
 * Return: the MR, referenced, or NULL if no MR has that index.
 */
struct sw_ddp_mr *sw_ddp_mem_get(struct sw_ddp_dev *sdev, u32 stag)
{
	struct sw_ddp_mr *mr;

	rcu_read_lock();
	mr = xa_load(&sdev->mr_xa, sw_ddp_stag_index(stag));
	if (mr && !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mem_get);

void sw_ddp_mem_put(struct sw_ddp_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		kfree_rcu(mr, rcu);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mem_put);

/**
 * sw_ddp_mem_check_locked() - may @stag be used for this access?
 * @mr: the MR @stag's index resolved to, in an access section
 * @stag: the STag as the peer or the SGE gave it
 * @pd: the PD of the QP (the stream) using it
 * @access: IB_ACCESS_REMOTE_WRITE, _REMOTE_READ, _LOCAL_WRITE, or 0 for a
 *	local read
 * @to: Tagged Offset (or SGE address) of the first byte
 * @len: length in bytes
 *
 * The checks of RFC 5041 §7.1 (tagged buffers) with RDMAP's access rights
 * (RFC 5040 §4.8), in the order of the error list.  A wrapping TO is
 * reported as such though it also leaves the bounds: it says more.
 *
 * Return: SW_DDP_MEM_OK or the first check that failed.
 */
enum sw_ddp_mem_err sw_ddp_mem_check_locked(const struct sw_ddp_mr *mr,
					    u32 stag, const struct ib_pd *pd,
					    int access, u64 to, u64 len)
{
	u64 end;

	if (mr->state != SW_DDP_MR_VALID || mr->stag != stag)
		return SW_DDP_MEM_INVALID_STAG;
	if (mr->pd != pd)
		return SW_DDP_MEM_PD_MISMATCH;		/* RFC 5041 §8.2 */
	if (access & ~mr->access)
		return SW_DDP_MEM_ACCESS;
	if (check_add_overflow(to, len, &end))
		return SW_DDP_MEM_TO_WRAP;
	if (to < mr->iova || end - mr->iova > mr->length)
		return SW_DDP_MEM_BASE_BOUNDS;
	/* A DMA MR spans the address space; its memory is the direct map. */
	if (mr->kind == SW_DDP_MR_DMA && !sw_ddp_kva_range_ok(to, len))
		return SW_DDP_MEM_BASE_BOUNDS;
	return SW_DDP_MEM_OK;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mem_check_locked);

/**
 * sw_ddp_mem_get_checked() - look up and check an STag in one go
 * @sdev: the device
 * @stag: the STag
 * @pd: the PD of the QP using it
 * @access: the access wanted, as for sw_ddp_mem_check_locked()
 * @to: Tagged Offset (or SGE address) of the first byte
 * @len: length in bytes
 * @mrp: the MR, referenced, on success
 *
 * For checks ahead of the data (posting an SGE, accepting a Read Request);
 * each later access section must check again.  Any context.
 *
 * Return: SW_DDP_MEM_OK, or why not (with no reference taken).
 */
enum sw_ddp_mem_err sw_ddp_mem_get_checked(struct sw_ddp_dev *sdev, u32 stag,
					   const struct ib_pd *pd, int access,
					   u64 to, u64 len,
					   struct sw_ddp_mr **mrp)
{
	enum sw_ddp_mem_err err;
	struct sw_ddp_mr *mr;

	mr = sw_ddp_mem_get(sdev, stag);
	if (!mr)
		return SW_DDP_MEM_INVALID_STAG;

	sw_ddp_mem_lock(mr);
	err = sw_ddp_mem_check_locked(mr, stag, pd, access, to, len);
	sw_ddp_mem_unlock(mr);

	if (err)
		sw_ddp_mem_put(mr);
	else
		*mrp = mr;
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mem_get_checked);

/*
 * Invalidate an STag (RFC 5040 §5.3 for Send with Invalidate; Local
 * Invalidate of the verbs).  Only fast-registered MRs can be invalidated,
 * by a peer only if it could have been given the STag (remote rights).
 * Invalidating an invalid STag is not an error.
 */
static enum sw_ddp_mem_err sw_ddp_mr_invalidate(struct sw_ddp_dev *sdev,
						const struct ib_pd *pd,
						u32 stag, bool remote)
{
	enum sw_ddp_mem_err err = SW_DDP_MEM_OK;
	struct sw_ddp_mr *mr;

	mr = sw_ddp_mem_get(sdev, stag);
	if (!mr)
		return SW_DDP_MEM_INVALID_STAG;

	write_lock_bh(&mr->lock);
	if (mr->state == SW_DDP_MR_GONE || mr->stag != stag)
		err = SW_DDP_MEM_INVALID_STAG;
	else if (mr->pd != pd)
		err = SW_DDP_MEM_PD_MISMATCH;
	else if (mr->kind != SW_DDP_MR_FAST_REG ||
		 (remote && !(mr->access & SW_DDP_MR_REMOTE)))
		err = SW_DDP_MEM_CANNOT_INVALIDATE;
	else
		mr->state = SW_DDP_MR_INVALID;
	write_unlock_bh(&mr->lock);

	sw_ddp_mem_put(mr);
	return err;
}

/**
 * sw_ddp_mem_invalidate() - execute an IB_WR_LOCAL_INV
 * @sdev: the device
 * @pd: the PD of the QP whose send queue executes it
 * @stag: wr->ex.invalidate_rkey
 *
 * Any context but an access section.  Once it returns, no access section
 * uses the MR's memory until the next IB_WR_REG_MR.
 *
 * Return: 0; -EINVAL if @stag names no MR (index or key); -EACCES if the
 * MR is of another PD; -EPERM if it is not a fast-register MR.
 */
int sw_ddp_mem_invalidate(struct sw_ddp_dev *sdev, const struct ib_pd *pd,
			  u32 stag)
{
	switch (sw_ddp_mr_invalidate(sdev, pd, stag, false)) {
	case SW_DDP_MEM_OK:
		return 0;
	case SW_DDP_MEM_PD_MISMATCH:
		return -EACCES;
	case SW_DDP_MEM_CANNOT_INVALIDATE:
		return -EPERM;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mem_invalidate);

/**
 * sw_ddp_mem_remote_invalidate() - the Invalidate STag of a received Send
 * with Invalidate (RFC 5040 §4.1, §5.3)
 * @sdev: the device
 * @pd: the PD of the QP it arrived on
 * @stag: the Invalidate STag
 *
 * Any context but an access section (softirq included).
 *
 * Return: SW_DDP_MEM_OK, _INVALID_STAG, _PD_MISMATCH or
 * _CANNOT_INVALIDATE (not a fast-register MR, or no remote rights).
 */
enum sw_ddp_mem_err sw_ddp_mem_remote_invalidate(struct sw_ddp_dev *sdev,
						 const struct ib_pd *pd,
						 u32 stag)
{
	return sw_ddp_mr_invalidate(sdev, pd, stag, true);
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mem_remote_invalidate);

/*
 * IB_WR_REG_MR applies the page list map_mr_sg built last.  The MR keeps
 * two lists: map_mr_sg writes the staged one, which no access section
 * reads, so a ULP may map the next registration while the current one is
 * still valid; registration swaps them.  Registering again without a new
 * map reuses the active list, unless a map was tried since and failed.
 */
static int sw_ddp_fr_apply_locked(struct sw_ddp_mr *mr,
				  const struct ib_reg_wr *wr)
{
	struct sw_ddp_fr_pages *pl;
	u64 room, end;

	/*
	 * Only an invalid STag may be registered, and only its key changes
	 * (its PD and index: sw_ddp_mem_fast_reg_check()).
	 */
	if (mr->state != SW_DDP_MR_INVALID)
		return mr->state == SW_DDP_MR_VALID ? -EBUSY : -EINVAL;

	/*
	 * After a failed map the ULP has no page list it asked for: the
	 * active one may hold pages it has since unmapped.
	 */
	if (mr->fr.staged->failed)
		return -EINVAL;
	pl = mr->fr.staged->fresh ? mr->fr.staged : mr->fr.active;
	if (!pl->npages)
		return -EINVAL;
	room = ((u64)pl->npages << pl->page_shift) - pl->first_off;
	if (wr->mr->length > room ||
	    check_add_overflow(wr->mr->iova, wr->mr->length, &end))
		return -EINVAL;

	if (pl == mr->fr.staged) {
		swap(mr->fr.active, mr->fr.staged);
		pl->fresh = false;
	}
	mr->stag = wr->key;
	mr->access = wr->access & SW_DDP_MR_RIGHTS;
	/* The ULP may have changed the iova since mapping (xprtrdma does). */
	mr->iova = wr->mr->iova;
	mr->length = wr->mr->length;
	mr->state = SW_DDP_MR_VALID;
	return 0;
}

/**
 * sw_ddp_mem_fast_reg_check() - what an IB_WR_REG_MR may be refused for
 * at post
 * @pd: the PD of the QP it is posted to
 * @wr: the work request
 *
 * What does not change until it runs: an MR of ours, fast-register, of
 * @pd, the key's index its own, and access flags we take.  Whether the
 * STag is invalid and the MR mapped is known only when it runs.
 *
 * Return: 0, or the errno sw_ddp_mem_fast_reg() would return.
 */
int sw_ddp_mem_fast_reg_check(const struct ib_pd *pd,
			      const struct ib_reg_wr *wr)
{
	struct sw_ddp_mr *mr;

	if (!wr->mr || wr->mr->device != pd->device)
		return -EINVAL;
	mr = to_sw_ddp_mr(wr->mr);
	if (mr->kind != SW_DDP_MR_FAST_REG ||
	    sw_ddp_stag_index(wr->key) != sw_ddp_stag_index(mr->stag))
		return -EINVAL;
	if (mr->pd != pd)
		return -EACCES;
	return sw_ddp_mr_check_access(wr->access);
}

/**
 * sw_ddp_mem_fast_reg() - execute an IB_WR_REG_MR
 * @pd: the PD of the QP whose send queue executes it
 * @wr: the work request: MR, new STag (wr->key) and access
 *
 * Kernel QPs only: wr->mr is a kernel pointer.  Any context but an access
 * section.
 *
 * Return: 0; -EINVAL for an MR that is not a mapped fast-register MR or a
 * key with another index; -EOPNOTSUPP/-EINVAL for bad access flags;
 * -EACCES for an MR of another PD; -EBUSY if the STag is still valid.
 */
int sw_ddp_mem_fast_reg(const struct ib_pd *pd, const struct ib_reg_wr *wr)
{
	struct sw_ddp_mr *mr;
	int err;

	err = sw_ddp_mem_fast_reg_check(pd, wr);
	if (err)
		return err;

	mr = to_sw_ddp_mr(wr->mr);
	write_lock_bh(&mr->lock);
	err = sw_ddp_fr_apply_locked(mr, wr);
	write_unlock_bh(&mr->lock);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mem_fast_reg);

/*
 * The page walk.  Each helper finds the chunk at byte @off of the MR:
 * the page, the offset in it, and how far the chunk may run (to the end
 * of the page, or of a fast-register block).
 */
static int sw_ddp_kva_chunk(u64 addr, u64 room, struct bio_vec *bv)
{
	void *va = sw_ddp_kva(addr);

	if (!va)
		return -EFAULT;
	bv->bv_page = virt_to_page(va);
	bv->bv_offset = offset_in_page(va);
	bv->bv_len = min_t(u64, PAGE_SIZE - bv->bv_offset, room);
	return 0;
}

static int sw_ddp_user_chunk(const struct sw_ddp_mr *mr, u64 off,
			     struct bio_vec *bv)
{
	u64 pos = mr->user.first_off + off;
	u64 index = pos >> PAGE_SHIFT;

	if (index >= mr->user.npages)
		return -EFAULT;
	bv->bv_page = mr->user.pages[index];
	bv->bv_offset = offset_in_page(pos);
	bv->bv_len = PAGE_SIZE - bv->bv_offset;
	return 0;
}

static int sw_ddp_fr_chunk(const struct sw_ddp_mr *mr, u64 off,
			   struct bio_vec *bv)
{
	const struct sw_ddp_fr_pages *pl = mr->fr.active;
	u64 block = 1ULL << pl->page_shift;
	u64 pos = pl->first_off + off;
	u64 index = pos >> pl->page_shift;

	/* npages <= max_pages even if a ULP maps while registering */
	if (index >= min(pl->npages, mr->fr.max_pages))
		return -EFAULT;
	return sw_ddp_kva_chunk(pl->addr[index] + (pos & (block - 1)),
				block - (pos & (block - 1)), bv);
}

/**
 * sw_ddp_mem_iter_start() - walk [@to, @to + @len) of an MR
 * @it: the iterator
 * @mr: the MR, in an access section that checked this range
 * @to: the first byte
 * @len: how many bytes
 */
void sw_ddp_mem_iter_start(struct sw_ddp_mem_iter *it, struct sw_ddp_mr *mr,
			   u64 to, u64 len)
{
	it->mr = mr;
	it->off = to - mr->iova;
	it->left = len;
	it->err = 0;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mem_iter_start);

/**
 * sw_ddp_mem_iter_next() - the next chunk of the walk
 * @it: the iterator
 * @bv: the chunk: page, offset in it, length (never crossing the page)
 *
 * Return: false at the end of the range, or on an error in @it->err.
 */
bool sw_ddp_mem_iter_next(struct sw_ddp_mem_iter *it, struct bio_vec *bv)
{
	int err;

	if (!it->left || it->err)
		return false;

	switch (it->mr->kind) {
	case SW_DDP_MR_USER:
		err = sw_ddp_user_chunk(it->mr, it->off, bv);
		break;
	case SW_DDP_MR_DMA:
		err = sw_ddp_kva_chunk(it->off, PAGE_SIZE, bv);
		break;
	case SW_DDP_MR_FAST_REG:
		err = sw_ddp_fr_chunk(it->mr, it->off, bv);
		break;
	default:
		err = -EFAULT;
	}
	if (err) {
		it->err = err;
		return false;
	}

	if (bv->bv_len > it->left)
		bv->bv_len = it->left;
	it->off += bv->bv_len;
	it->left -= bv->bv_len;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mem_iter_next);

/**
 * sw_ddp_mem_bvecs() - describe [@to, @to + @len) of an MR as bio_vecs
 * @mr: the MR, in an access section that checked this range
 * @to: the first byte
 * @len: how many bytes
 * @bv: where to put them
 * @max_bv: room in @bv
 *
 * For an ITER_BVEC iov_iter, e.g. to send with MSG_SPLICE_PAGES.  No page
 * references are taken: take them before leaving the access section.
 *
 * Return: the number of bio_vecs, -E2BIG if @max_bv are too few, or
 * -EFAULT.
 */
int sw_ddp_mem_bvecs(struct sw_ddp_mr *mr, u64 to, u64 len,
		     struct bio_vec *bv, unsigned int max_bv)
{
	struct sw_ddp_mem_iter it;
	struct bio_vec chunk;
	unsigned int n = 0;

	sw_ddp_mem_iter_start(&it, mr, to, len);
	while (sw_ddp_mem_iter_next(&it, &chunk)) {
		if (n == max_bv)
			return -E2BIG;
		bv[n++] = chunk;
	}
	return it.err ?: n;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mem_bvecs);

/* Copy into [@to, @to + @len) of an MR, in an access section. */
int sw_ddp_mem_copy_to(struct sw_ddp_mr *mr, u64 to, const void *src,
		       u64 len)
{
	struct sw_ddp_mem_iter it;
	struct bio_vec bv;

	sw_ddp_mem_iter_start(&it, mr, to, len);
	while (sw_ddp_mem_iter_next(&it, &bv)) {
		memcpy_to_page(bv.bv_page, bv.bv_offset, src, bv.bv_len);
		src += bv.bv_len;
	}
	return it.err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mem_copy_to);

/* Copy out of [@to, @to + @len) of an MR, in an access section. */
int sw_ddp_mem_copy_from(struct sw_ddp_mr *mr, u64 to, void *dst, u64 len)
{
	struct sw_ddp_mem_iter it;
	struct bio_vec bv;

	sw_ddp_mem_iter_start(&it, mr, to, len);
	while (sw_ddp_mem_iter_next(&it, &bv)) {
		memcpy_from_page(dst, bv.bv_page, bv.bv_offset, bv.bv_len);
		dst += bv.bv_len;
	}
	return it.err;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mem_copy_from);

void sw_ddp_mem_put_sgl(struct sw_ddp_mr **mr, u32 num_sge)
{
	u32 i;

	for (i = 0; i < num_sge; i++) {
		if (mr[i])
			sw_ddp_mem_put(mr[i]);
		mr[i] = NULL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mem_put_sgl);

/**
 * sw_ddp_mem_get_sgl() - resolve and check a local SGE list
 * @sdev: the device
 * @pd: the QP's PD
 * @sge: the list (as in ib_send_wr / ib_recv_wr)
 * @num_sge: its length
 * @access: IB_ACCESS_LOCAL_WRITE for a sink (Receive, Read), 0 for a source
 * @mr: one slot per SGE: its MR, referenced, or NULL for a zero-length SGE
 * @bad: on failure, the index of the SGE that failed
 *
 * Return: SW_DDP_MEM_OK, or why @sge[*@bad] failed (no references kept).
 */
enum sw_ddp_mem_err sw_ddp_mem_get_sgl(struct sw_ddp_dev *sdev,
				       const struct ib_pd *pd,
				       const struct ib_sge *sge, u32 num_sge,
				       int access, struct sw_ddp_mr **mr,
				       u32 *bad)
{
	enum sw_ddp_mem_err err;
	u32 i;

	for (i = 0; i < num_sge; i++)
		mr[i] = NULL;

	for (i = 0; i < num_sge; i++) {
		if (!sge[i].length)
			continue;
		err = sw_ddp_mem_get_checked(sdev, sge[i].lkey, pd, access,
					     sge[i].addr, sge[i].length,
					     &mr[i]);
		if (err) {
			sw_ddp_mem_put_sgl(mr, i);
			*bad = i;
			return err;
		}
	}
	return SW_DDP_MEM_OK;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mem_get_sgl);

/* One SGE's part of an SGL walk, in its own access section. */
static int sw_ddp_mem_walk_sge(const struct ib_sge *sge, struct sw_ddp_mr *mr,
			       const struct ib_pd *pd, int access, u64 off,
			       u64 len, sw_ddp_mem_actor_t actor, void *ctx)
{
	struct sw_ddp_mem_iter it;
	struct bio_vec bv;
	u64 addr;
	int err = 0;

	if (!mr || check_add_overflow(sge->addr, off, &addr))
		return -EACCES;

	sw_ddp_mem_lock(mr);
	if (sw_ddp_mem_check_locked(mr, sge->lkey, pd, access, addr, len)) {
		err = -EACCES;	/* e.g. invalidated since it was posted */
		goto out;
	}
	sw_ddp_mem_iter_start(&it, mr, addr, len);
	while (!err && sw_ddp_mem_iter_next(&it, &bv))
		err = actor(ctx, &bv);
	if (!err)
		err = it.err;
out:
	sw_ddp_mem_unlock(mr);
	return err;
}

/**
 * sw_ddp_mem_sgl_walk() - walk bytes of a local SGE list
 * @sge: a list resolved by sw_ddp_mem_get_sgl()
 * @mr: its MRs, as sw_ddp_mem_get_sgl() filled them in
 * @num_sge: its length
 * @pd: the QP's PD, as given to sw_ddp_mem_get_sgl()
 * @access: as given to sw_ddp_mem_get_sgl(); each SGE is checked again
 * @offset: where to start, in bytes from the start of the list
 * @len: how many bytes
 * @actor: called for each chunk, in an access section (must not sleep);
 *	a nonzero return stops the walk and is returned
 * @ctx: for @actor
 *
 * Return: 0; -EMSGSIZE if the list ends before @offset + @len; -EACCES if
 * an SGE no longer passes its check; -EFAULT; or @actor's error.
 */
int sw_ddp_mem_sgl_walk(const struct ib_sge *sge, struct sw_ddp_mr **mr,
			u32 num_sge, const struct ib_pd *pd, int access,
			u64 offset, u64 len, sw_ddp_mem_actor_t actor,
			void *ctx)
{
	u32 i;
	int err;

	for (i = 0; i < num_sge && len; i++) {
		u64 part;

		if (offset >= sge[i].length) {
			offset -= sge[i].length;
			continue;
		}
		part = min_t(u64, len, sge[i].length - offset);
		err = sw_ddp_mem_walk_sge(&sge[i], mr[i], pd, access, offset,
					  part, actor, ctx);
		if (err)
			return err;
		offset = 0;
		len -= part;
	}
	return len ? -EMSGSIZE : 0;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_mem_sgl_walk);

/* Verbs */

struct ib_mr *sw_ddp_get_dma_mr(struct ib_pd *pd, int access)
{
	struct sw_ddp_mr *mr;
	int err;

	err = sw_ddp_mr_check_access(access);
	if (err)
		return ERR_PTR(err);

	mr = sw_ddp_mr_alloc(pd, SW_DDP_MR_DMA);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->access = access & SW_DDP_MR_RIGHTS;
	mr->iova = 0;
	mr->length = U64_MAX;

	err = sw_ddp_mr_insert(mr, 0);
	if (err) {
		sw_ddp_mr_discard(mr);
		return ERR_PTR(err);
	}
	sw_ddp_mr_set_valid(mr);
	return &mr->ibmr;
}

/* Pin the user pages and list them, one struct page per PAGE_SIZE. */
static int sw_ddp_user_pin(struct sw_ddp_mr *mr, u64 start, u64 length,
			   int access)
{
	struct sg_page_iter piter;
	struct ib_umem *umem;
	unsigned long n = 0, npages;

	umem = ib_umem_get(&mr->sdev->ibdev, start, length, access);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	mr->user.umem = umem;

	/*
	 * Near max_mr_size (1 TiB) the list may want more than kvmalloc()
	 * gives (INT_MAX): -ENOMEM then, without its warning.
	 */
	npages = ib_umem_num_pages(umem);
	mr->user.pages = kvcalloc(npages, sizeof(*mr->user.pages),
				  GFP_KERNEL | __GFP_NOWARN);
	if (!mr->user.pages)
		return -ENOMEM;

	for_each_sgtable_page(&umem->sgt_append.sgt, &piter, 0) {
		if (n == npages)
			break;
		mr->user.pages[n++] = sg_page_iter_page(&piter);
	}
	if (n != npages)
		return -EFAULT;
	mr->user.npages = npages;
	mr->user.first_off = ib_umem_offset(umem);
	return 0;
}

/* A user MR, in the table but not yet valid. */
static struct sw_ddp_mr *sw_ddp_user_mr_create(struct ib_pd *pd, u64 start,
					       u64 length, u64 iova,
					       int access, u8 key)
{
	struct sw_ddp_mr *mr;
	u64 end;
	int err;

	err = sw_ddp_mr_check_access(access);
	if (err)
		return ERR_PTR(err);
	if (!length || length > SW_DDP_MAX_MR_SIZE ||
	    check_add_overflow(start, length, &end) ||
	    check_add_overflow(iova, length, &end))
		return ERR_PTR(-EINVAL);

	mr = sw_ddp_mr_alloc(pd, SW_DDP_MR_USER);
	if (IS_ERR(mr))
		return mr;
	mr->access = access & SW_DDP_MR_RIGHTS;
	mr->iova = iova;
	mr->length = length;
	/* ib_core sets these after reg_user_mr, but not after a rereg */
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;

	err = sw_ddp_user_pin(mr, start, length, access);
	if (err)
		goto err_discard;
	err = sw_ddp_mr_insert(mr, key);
	if (err)
		goto err_discard;
	return mr;

err_discard:
	sw_ddp_mr_discard(mr);
	return ERR_PTR(err);
}

/* libsiw sends struct siw_ureq_reg_mr, zeroed but for the key. */
static int sw_ddp_reg_mr_req(struct ib_udata *udata,
			     struct siw_ureq_reg_mr *ureq)
{
	size_t len = sizeof(*ureq);
	int err;

	if (!udata)
		return 0;	/* ib_reg_user_mr() from the kernel */
	if (udata->inlen < len ||
	    udata->outlen < sizeof(struct siw_uresp_reg_mr))
		return -EINVAL;
	if (udata->inlen > len &&
	    !ib_is_udata_cleared(udata, len, udata->inlen - len))
		return -EOPNOTSUPP;

	err = ib_copy_from_udata(ureq, udata, len);
	if (err)
		return err;
	if (memchr_inv(ureq->reserved, 0, sizeof(ureq->reserved)) ||
	    ureq->pad)
		return -EINVAL;
	return 0;
}

struct ib_mr *sw_ddp_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				 u64 iova, int access, struct ib_udata *udata)
{
	struct siw_ureq_reg_mr ureq = {};
	struct sw_ddp_mr *mr;
	int err;

	err = sw_ddp_reg_mr_req(udata, &ureq);
	if (err)
		return ERR_PTR(err);

	mr = sw_ddp_user_mr_create(pd, start, length, iova, access,
				   ureq.stag_key);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	if (udata) {
		struct siw_uresp_reg_mr uresp = { .stag = mr->stag };

		err = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
		if (err) {
			sw_ddp_mr_remove(mr);
			return ERR_PTR(err);
		}
	}
	sw_ddp_mr_set_valid(mr);
	return &mr->ibmr;
}

/*
 * Rereg builds a new MR (new STag, same key) from the old one's attributes
 * and the changed ones; ib_core then destroys the old MR.  If anything
 * fails, the old MR is left as it was.  libsiw has no rereg_mr, so only
 * other users of the uverbs ABI reach this.
 */
struct ib_mr *sw_ddp_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				   u64 length, u64 iova, int access,
				   struct ib_pd *pd, struct ib_udata *udata)
{
	struct sw_ddp_mr *old = to_sw_ddp_mr(ibmr);
	struct sw_ddp_mr *mr;

	if (old->kind != SW_DDP_MR_USER)
		return ERR_PTR(-EINVAL);
	if (flags & ~IB_MR_REREG_SUPPORTED)
		return ERR_PTR(-EOPNOTSUPP);
	/* The siw ABI has no driver data for rereg. */
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EOPNOTSUPP);

	if (!(flags & IB_MR_REREG_TRANS)) {
		start = old->user.umem->address;
		length = old->user.umem->length;
		iova = old->iova;
	}
	if (!(flags & IB_MR_REREG_ACCESS))
		access = old->access;
	if (!(flags & IB_MR_REREG_PD))
		pd = old->pd;

	mr = sw_ddp_user_mr_create(pd, start, length, iova, access,
				   sw_ddp_stag_key(old->stag));
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	sw_ddp_mr_set_valid(mr);
	return &mr->ibmr;
}

static struct sw_ddp_fr_pages *sw_ddp_fr_pages_alloc(u32 max_pages)
{
	struct sw_ddp_fr_pages *pl;

	return kzalloc(struct_size(pl, addr, max_pages), GFP_KERNEL);
}

struct ib_mr *sw_ddp_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			      u32 max_num_sg)
{
	struct sw_ddp_mr *mr;
	int err;

	/* No SG_GAPS or integrity MRs: page lists only. */
	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > SW_DDP_MAX_FR_PAGES)
		return ERR_PTR(-EINVAL);

	mr = sw_ddp_mr_alloc(pd, SW_DDP_MR_FAST_REG);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->fr.max_pages = max_num_sg;
	mr->fr.active = sw_ddp_fr_pages_alloc(max_num_sg);
	mr->fr.staged = sw_ddp_fr_pages_alloc(max_num_sg);
	if (!mr->fr.active || !mr->fr.staged) {
		err = -ENOMEM;
		goto err_discard;
	}
	/* Invalid until an IB_WR_REG_MR. */
	err = sw_ddp_mr_insert(mr, 0);
	if (err)
		goto err_discard;
	return &mr->ibmr;

err_discard:
	sw_ddp_mr_discard(mr);
	return ERR_PTR(err);
}

/* ib_sg_to_pages() callback: one block of mr->page_size bytes. */
static int sw_ddp_fr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sw_ddp_mr *mr = to_sw_ddp_mr(ibmr);
	struct sw_ddp_fr_pages *pl = mr->fr.staged;

	if (pl->npages == mr->fr.max_pages)
		return -ENOMEM;
	if (!sw_ddp_kva_range_ok(addr, ibmr->page_size))
		return -EINVAL;
	pl->addr[pl->npages++] = addr;
	return 0;
}

int sw_ddp_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int nents,
		     unsigned int *sg_offset)
{
	struct sw_ddp_mr *mr = to_sw_ddp_mr(ibmr);
	struct sw_ddp_fr_pages *pl;
	int n;

	if (mr->kind != SW_DDP_MR_FAST_REG)
		return -EINVAL;
	pl = mr->fr.staged;
	pl->fresh = false;
	pl->failed = true;	/* until this map succeeds */
	if (!is_power_of_2(ibmr->page_size) || ibmr->page_size < SZ_4K)
		return -EINVAL;

	pl->npages = 0;
	pl->page_shift = ilog2(ibmr->page_size);
	n = ib_sg_to_pages(ibmr, sg, nents, sg_offset, sw_ddp_fr_set_page);
	if (n > 0) {
		pl->first_off = ibmr->iova & (ibmr->page_size - 1);
		pl->fresh = true;
		pl->failed = false;
	}
	return n;
}

int sw_ddp_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	sw_ddp_mr_remove(to_sw_ddp_mr(ibmr));
	return 0;
}
