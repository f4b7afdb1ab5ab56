/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sw_ddp memory: STags, memory regions (MRs), their access checks, and the
 * page walk that places data into registered memory and reads it out.
 *
 * An STag (RFC 5041 §2.3) names a registered buffer.  Ours is a 24-bit
 * index into the device's MR table and, in the low 8 bits, the key the
 * consumer owns (ib_update_fast_reg_key(), siw_ureq_reg_mr.stag_key).
 * lkey == rkey == STag.  Index 0 is never used, so STag 0 names nothing.
 *
 * Using an MR from the data path (any context, softirq included):
 *
 *	mr = sw_ddp_mem_get(sdev, stag);	// NULL: SW_DDP_MEM_INVALID_STAG
 *	sw_ddp_mem_lock(mr);
 *	err = sw_ddp_mem_check_locked(mr, stag, pd, IB_ACCESS_REMOTE_WRITE,
 *				      to, len);
 *	if (!err) {
 *		sw_ddp_mem_iter_start(&it, mr, to, len);
 *		while (sw_ddp_mem_iter_next(&it, &bv))
 *			copy bv.bv_len bytes to bv.bv_page at bv.bv_offset;
 *	}
 *	sw_ddp_mem_unlock(mr);
 *	sw_ddp_mem_put(mr);			// or keep it for the next segment
 *
 * Between lock and unlock the caller is in an "access section": it holds
 * the MR's lock for reading with bottom halves off, so it must not sleep,
 * take a second MR's lock, or invalidate an STag.  Invalidation, fast
 * registration and deregistration take the lock for writing: once they
 * return, no section that saw the old state still touches the memory.
 * A section should cover one DDP segment, and every section must check
 * again: the MR may have been invalidated since the last one.  Pages seen
 * in a section may be used after it (e.g. for zero-copy transmit) only
 * under a page reference taken inside it.
 */
#ifndef SW_DDP_MEM_H
#define SW_DDP_MEM_H

#include <linux/bvec.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

struct sw_ddp_dev;

#define SW_DDP_STAG_KEY_BITS	8
#define SW_DDP_STAG_KEY_MASK	0xffU
#define SW_DDP_STAG_INDEX_MAX	0xffffffU	/* 24 bits */

static inline u32 sw_ddp_stag(u32 index, u8 key)
{
	return index << SW_DDP_STAG_KEY_BITS | key;
}

static inline u32 sw_ddp_stag_index(u32 stag)
{
	return stag >> SW_DDP_STAG_KEY_BITS;
}

static inline u8 sw_ddp_stag_key(u32 stag)
{
	return stag & SW_DDP_STAG_KEY_MASK;
}

/*
 * Why an STag check failed, in the order the checks run.  Each is one
 * error of RFC 5041 §7.2 (DDP, tagged) or RFC 5040 §4.8 (RDMAP, Remote
 * Protection); ddp.c and rdmap.c map them to their Terminate codes.
 */
enum sw_ddp_mem_err {
	SW_DDP_MEM_OK = 0,
	/* "Invalid STag": no MR at the index, wrong key, STag not valid */
	SW_DDP_MEM_INVALID_STAG,
	/* "STag not associated with DDP/RDMAP Stream" (RFC 5041 §8.2) */
	SW_DDP_MEM_PD_MISMATCH,
	/* "Access rights violation" (RDMAP only: DDP has no such code) */
	SW_DDP_MEM_ACCESS,
	/* "TO wrap": TO + length wraps 2^64 */
	SW_DDP_MEM_TO_WRAP,
	/* "Base or bounds violation" */
	SW_DDP_MEM_BASE_BOUNDS,
	/*
	 * "STag cannot be invalidated": not fast-registered, or (remote
	 * invalidation) the MR grants the peer no rights
	 */
	SW_DDP_MEM_CANNOT_INVALIDATE,
};

enum sw_ddp_mr_kind {
	SW_DDP_MR_USER,		/* reg_user_mr: pinned user pages */
	SW_DDP_MR_DMA,		/* get_dma_mr: kernel virtual addresses */
	SW_DDP_MR_FAST_REG,	/* alloc_mr + map_mr_sg + IB_WR_REG_MR */
};

enum sw_ddp_mr_state {
	SW_DDP_MR_INVALID,	/* registered, but the STag may not be used */
	SW_DDP_MR_VALID,
	SW_DDP_MR_GONE,		/* deregistered; backing memory released */
};

/*
 * A fast-registration page list, as map_mr_sg() built it: blocks of
 * 1 << page_shift bytes at kernel virtual addresses, the MR's first byte
 * at first_off into addr[0].
 */
struct sw_ddp_fr_pages {
	u32 npages;
	u32 page_shift;
	u64 first_off;
	bool fresh;		/* mapped since the last IB_WR_REG_MR */
	bool failed;		/* the last map_mr_sg() into it failed */
	u64 addr[];
};

struct sw_ddp_mr {
	struct ib_mr ibmr;
	struct sw_ddp_dev *sdev;
	enum sw_ddp_mr_kind kind;
	refcount_t ref;		/* the MR table's, plus one per user */
	struct rcu_head rcu;

	/* Written under lock for writing; read in access sections. */
	rwlock_t lock;
	enum sw_ddp_mr_state state;
	u32 stag;
	int access;		/* IB_ACCESS_{LOCAL_WRITE,REMOTE_*} */
	struct ib_pd *pd;
	u64 iova;		/* the TO of the MR's first byte */
	u64 length;

	union {
		struct {			/* SW_DDP_MR_USER */
			struct ib_umem *umem;
			struct page **pages;
			unsigned long npages;
			unsigned long first_off; /* in pages[0] */
		} user;
		struct {			/* SW_DDP_MR_FAST_REG */
			struct sw_ddp_fr_pages *active;	/* under lock */
			struct sw_ddp_fr_pages *staged;	/* map_mr_sg's */
			u32 max_pages;
		} fr;
	};
};

static inline struct sw_ddp_mr *to_sw_ddp_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sw_ddp_mr, ibmr);
}

/* Per device: called from sw_ddp_dev_alloc() and sw_ddp_dev_dealloc(). */
void sw_ddp_mem_init(struct sw_ddp_dev *sdev);
void sw_ddp_mem_fini(struct sw_ddp_dev *sdev);

/* Verbs (ib_device_ops) */
struct ib_mr *sw_ddp_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *sw_ddp_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				 u64 iova, int access, struct ib_udata *udata);
struct ib_mr *sw_ddp_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				   u64 length, u64 iova, int access,
				   struct ib_pd *pd, struct ib_udata *udata);
struct ib_mr *sw_ddp_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			      u32 max_num_sg);
int sw_ddp_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int nents,
		     unsigned int *sg_offset);
int sw_ddp_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/* References and access sections */
struct sw_ddp_mr *sw_ddp_mem_get(struct sw_ddp_dev *sdev, u32 stag);
void sw_ddp_mem_put(struct sw_ddp_mr *mr);

static inline void sw_ddp_mem_lock(struct sw_ddp_mr *mr)
	__acquires(&mr->lock)
{
	read_lock_bh(&mr->lock);
}

static inline void sw_ddp_mem_unlock(struct sw_ddp_mr *mr)
	__releases(&mr->lock)
{
	read_unlock_bh(&mr->lock);
}

enum sw_ddp_mem_err sw_ddp_mem_check_locked(const struct sw_ddp_mr *mr,
					    u32 stag, const struct ib_pd *pd,
					    int access, u64 to, u64 len);
enum sw_ddp_mem_err sw_ddp_mem_get_checked(struct sw_ddp_dev *sdev, u32 stag,
					   const struct ib_pd *pd, int access,
					   u64 to, u64 len,
					   struct sw_ddp_mr **mrp);

/* Invalidation and fast registration, as the send queue executes them */
int sw_ddp_mem_invalidate(struct sw_ddp_dev *sdev, const struct ib_pd *pd,
			  u32 stag);
enum sw_ddp_mem_err sw_ddp_mem_remote_invalidate(struct sw_ddp_dev *sdev,
						 const struct ib_pd *pd,
						 u32 stag);
int sw_ddp_mem_fast_reg_check(const struct ib_pd *pd,
			      const struct ib_reg_wr *wr);
int sw_ddp_mem_fast_reg(const struct ib_pd *pd, const struct ib_reg_wr *wr);

/*
 * The page walk, inside an access section: the bytes [to, to + len) of an
 * MR as (page, offset, length) chunks, none crossing a page.  The walk
 * stops early with it->err = -EFAULT only on memory it cannot map: a page
 * of a DMA MR range outside the direct map (the check sees only the first
 * and last byte), or a fast-register list remapped under a registration.
 */
struct sw_ddp_mem_iter {
	struct sw_ddp_mr *mr;
	u64 off;		/* from the MR's first byte */
	u64 left;
	int err;
};

void sw_ddp_mem_iter_start(struct sw_ddp_mem_iter *it, struct sw_ddp_mr *mr,
			   u64 to, u64 len);
bool sw_ddp_mem_iter_next(struct sw_ddp_mem_iter *it, struct bio_vec *bv);
int sw_ddp_mem_bvecs(struct sw_ddp_mr *mr, u64 to, u64 len,
		     struct bio_vec *bv, unsigned int max_bv);
int sw_ddp_mem_copy_to(struct sw_ddp_mr *mr, u64 to, const void *src,
		       u64 len);
int sw_ddp_mem_copy_from(struct sw_ddp_mr *mr, u64 to, void *dst, u64 len);

/*
 * Local SGE lists (Send, Receive, Read sink): resolve each SGE's lkey to
 * a referenced MR and check PD, access and bounds; then walk byte ranges
 * of the list, each SGE's part in its own access section.  mr[] has one
 * slot per SGE (NULL for zero-length SGEs).
 */
typedef int (*sw_ddp_mem_actor_t)(void *ctx, const struct bio_vec *bv);

enum sw_ddp_mem_err sw_ddp_mem_get_sgl(struct sw_ddp_dev *sdev,
				       const struct ib_pd *pd,
				       const struct ib_sge *sge, u32 num_sge,
				       int access, struct sw_ddp_mr **mr,
				       u32 *bad);
void sw_ddp_mem_put_sgl(struct sw_ddp_mr **mr, u32 num_sge);
int sw_ddp_mem_sgl_walk(const struct ib_sge *sge, struct sw_ddp_mr **mr,
			u32 num_sge, const struct ib_pd *pd, int access,
			u64 offset, u64 len, sw_ddp_mem_actor_t actor,
			void *ctx);

#endif /* SW_DDP_MEM_H */
