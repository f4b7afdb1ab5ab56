// SPDX-License-Identifier: GPL-2.0
/*
 * DDP (RFC 5041): receive-side header validation and segmentation
 * arithmetic.  Every check returns the RFC 5041 §7.2 error the data path
 * puts straight into an RDMAP Terminate.
 */
#include <linux/module.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <kunit/visibility.h>

#include "ddp.h"

static bool sw_ddp_to_in_bounds(const struct sw_ddp_stag_view *v, u64 to,
				u64 len)
{
	/* RFC 5041 §7.1 tagged 3: TO within the registered range */
	if (to < v->base || to - v->base > v->len)
		return false;
	/* RFC 5041 §7.1 tagged 4: TO + payload length within it too */
	return len <= v->len - (to - v->base);
}

/*
 * The checks of RFC 5041 §7.1 for non-zero length tagged segments, also
 * used by RDMAP for a Read Request's Data Source (RFC 5040 Remote
 * Protection Errors).  With no @v only the header-intrinsic TO wrap is checked.
 * A wrapping TO is reported as such even though it also leaves the
 * bounds: it is the more precise diagnosis.
 */
enum sw_ddp_mem_err sw_ddp_stag_check(const struct sw_ddp_stag_view *v,
				      u64 to, u64 len, bool check_access)
{
	u64 end;

	if (v && !v->valid)
		return SW_DDP_MEM_INVALID_STAG;		/* §7.1 tagged 1 */
	if (v && !v->stream_ok)
		return SW_DDP_MEM_PD_MISMATCH;		/* §7.1 tagged 1, §8.2 */
	if (v && check_access && !v->access_ok)
		return SW_DDP_MEM_ACCESS;
	if (check_add_overflow(to, len, &end))
		return SW_DDP_MEM_TO_WRAP;		/* §7.1 tagged 5 */
	if (v && !sw_ddp_to_in_bounds(v, to, len))
		return SW_DDP_MEM_BASE_BOUNDS;		/* §7.1 tagged 2-4 */
	return SW_DDP_MEM_OK;
}
EXPORT_SYMBOL_IF_KUNIT(sw_ddp_stag_check);

/*
 * A failed STag check as the RFC 5041 §7.2 Tagged Buffer Error (Error
 * Type 0x1).  DDP has no code for access rights: that check is RDMAP's,
 * and a violation is its Remote Protection Error (RFC 5040 "Terminate
 * Header"), as the Write or Read Response it was ends up reported.
 */
struct sw_ddp_term_err ddp_stag_err(enum sw_ddp_mem_err e)
{
	switch (e) {
	case SW_DDP_MEM_OK:
		return SW_DDP_TERM_OK;
	case SW_DDP_MEM_PD_MISMATCH:
		return DDP_ERR_T_STAG_NOT_ASSOC;
	case SW_DDP_MEM_ACCESS:
		return RDMAP_ERR_PROT_ACCESS;
	case SW_DDP_MEM_TO_WRAP:
		return DDP_ERR_T_TO_WRAP;
	case SW_DDP_MEM_BASE_BOUNDS:
		return DDP_ERR_T_BASE_BOUNDS;
	default:
		return DDP_ERR_T_INVALID_STAG;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ddp_stag_err);

/**
 * ddp_validate_tagged() - check a received tagged DDP segment
 * @h: its header
 * @seg_len: DDP segment length as reported by the LLP (RFC 5041 §3)
 * @v: the buffer its STag resolved to, or NULL for the header's checks
 *	only (version, T flag, length)
 *
 * Return: SW_DDP_TERM_OK or the RFC 5041 §7.2 Tagged Buffer Error.
 */
struct sw_ddp_term_err ddp_validate_tagged(const struct ddp_tagged_hdr *h,
					   u32 seg_len,
					   const struct sw_ddp_stag_view *v)
{
	u32 len;

	/* RFC 5041 §4.1: DV must be 1; Rsvd is not checked on receive */
	if (ddp_ctrl_dv(h->ctrl) != DDP_VERSION)
		return DDP_ERR_T_VERSION;
	/* RFC 5041 §4.2: T is set to one; the header must be all there */
	if (!ddp_ctrl_tagged(h->ctrl) || seg_len < DDP_TAGGED_HDR_LEN)
		return DDP_ERR_LOCAL_CATASTROPHIC;
	len = seg_len - DDP_TAGGED_HDR_LEN;
	/*
	 * RFC 5041 §5.2: STag and TO MUST NOT be checked at zero length.
	 * Nor, before the STag resolved, the TO alone: §7.1 checks the STag
	 * first, its wrap last.
	 */
	if (!len || !v)
		return SW_DDP_TERM_OK;
	return ddp_stag_err(sw_ddp_stag_check(v, ddp_tagged_to(h), len, false));
}
EXPORT_SYMBOL_IF_KUNIT(ddp_validate_tagged);

/*
 * RFC 5041 §7.1 untagged 2 and 5.  An MSN before the first available
 * buffer (serial arithmetic, §4.3: MSN wraps modulo 2^32) is outside the
 * legal range; one at or past the end of the posted buffers has none.
 */
static struct sw_ddp_term_err ddp_msn_check(const struct sw_ddp_queue_view *v,
					    u32 msn)
{
	u32 ahead = msn - v->msn_first;

	if ((s32)ahead < 0)
		return DDP_ERR_UT_MSN_RANGE;
	if (ahead >= v->nbufs)
		return DDP_ERR_UT_MSN_NO_BUF;
	return SW_DDP_TERM_OK;
}

/* RFC 5041 §7.1 untagged 3 and 4; MO 0 is always a legal start. */
static struct sw_ddp_term_err ddp_mo_check(const struct sw_ddp_queue_view *v,
					   u32 mo, u32 len)
{
	if (mo && mo >= v->buf_len)
		return DDP_ERR_UT_INVALID_MO;
	if (len > v->buf_len - mo)
		return DDP_ERR_UT_TOO_LONG;
	return SW_DDP_TERM_OK;
}

/**
 * ddp_validate_untagged() - check a received untagged DDP segment
 * @h: its header
 * @seg_len: DDP segment length as reported by the LLP (RFC 5041 §3)
 * @v: what the sink has for its QN and MSN, or NULL for header checks
 *
 * RFC 5041 §7.1 lists the checks for non-zero length segments.  A
 * zero-length message still has to be Delivered (§5.2, §5.4), so its QN
 * and MSN are checked as well.  Its MO is checked too, though it places
 * nothing: the last segment's MO and length give the length of the
 * message the ULP is told of (§5.4), which must not pass the buffer's
 * end.
 *
 * Return: SW_DDP_TERM_OK or the RFC 5041 §7.2 Untagged Buffer Error.
 */
struct sw_ddp_term_err
ddp_validate_untagged(const struct ddp_untagged_hdr *h, u32 seg_len,
		      const struct sw_ddp_queue_view *v)
{
	struct sw_ddp_term_err err;
	u32 len;

	/* RFC 5041 §4.1: DV must be 1; Rsvd is not checked on receive */
	if (ddp_ctrl_dv(h->ctrl) != DDP_VERSION)
		return DDP_ERR_UT_VERSION;
	/* RFC 5041 §4.3: T is set to zero; the header must be all there */
	if (ddp_ctrl_tagged(h->ctrl) || seg_len < DDP_UNTAGGED_HDR_LEN)
		return DDP_ERR_LOCAL_CATASTROPHIC;
	if (!v)
		return SW_DDP_TERM_OK;
	if (!v->qn_valid)
		return DDP_ERR_UT_INVALID_QN;		/* §7.1 untagged 1 */
	err = ddp_msn_check(v, be32_to_cpu(h->msn));
	if (!sw_ddp_term_err_ok(err))
		return err;
	len = seg_len - DDP_UNTAGGED_HDR_LEN;
	if (!len)	/* at most at the end, where it adds nothing */
		return be32_to_cpu(h->mo) > v->buf_len ?
		       DDP_ERR_UT_INVALID_MO : SW_DDP_TERM_OK;
	return ddp_mo_check(v, be32_to_cpu(h->mo), len);
}
EXPORT_SYMBOL_IF_KUNIT(ddp_validate_untagged);

/**
 * ddp_validate_segment() - check a DDP segment of either model
 * @seg: the segment, starting at the DDP control octet
 * @seg_len: its length as reported by the LLP
 * @sv: STag resolution for a tagged segment, or NULL
 * @qv: queue state for an untagged segment, or NULL
 *
 * Return: SW_DDP_TERM_OK or the RFC 5041 §7.2 error.
 */
struct sw_ddp_term_err ddp_validate_segment(const void *seg, u32 seg_len,
					    const struct sw_ddp_stag_view *sv,
					    const struct sw_ddp_queue_view *qv)
{
	const u8 *ctrl = seg;

	if (!seg_len)
		return DDP_ERR_LOCAL_CATASTROPHIC;
	if (ddp_ctrl_tagged(*ctrl))
		return ddp_validate_tagged(seg, seg_len, sv);
	return ddp_validate_untagged(seg, seg_len, qv);
}
EXPORT_SYMBOL_IF_KUNIT(ddp_validate_segment);

/* RFC 5041 §5.2: a segment is at most MULPDU, header included. */
u32 ddp_seg_payload_max(u32 mulpdu, bool tagged)
{
	u32 hdr = tagged ? DDP_TAGGED_HDR_LEN : DDP_UNTAGGED_HDR_LEN;

	return mulpdu > hdr ? mulpdu - hdr : 0;
}
EXPORT_SYMBOL_IF_KUNIT(ddp_seg_payload_max);

/*
 * RFC 5041 §5.2: number of segments for a message; a zero-length message
 * consumes exactly one.  0 if @mulpdu cannot hold a header and a payload
 * octet.
 */
u32 ddp_seg_count(u32 msg_len, u32 mulpdu, bool tagged)
{
	u32 max = ddp_seg_payload_max(mulpdu, tagged);

	if (!max)
		return 0;
	return msg_len ? DIV_ROUND_UP(msg_len, max) : 1;
}
EXPORT_SYMBOL_IF_KUNIT(ddp_seg_count);
