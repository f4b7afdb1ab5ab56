// SPDX-License-Identifier: GPL-2.0
/*
 * RDMAP (RFC 5040): receive-side checks of the RDMAP control octet and
 * of Read Requests, and the Terminate message codec.
 */
#include <linux/module.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "rdmap.h"

/*
 * RDMA Read Request shape (RFC 5040 §4.4: the message is the 28-octet
 * header, so one segment at MO 0 with L set).  More than 28 octets does
 * not fit the Read Request queue's buffer; fewer leaves a truncated
 * request, for which RFC 5040 has no specific code.
 */
static struct sw_ddp_term_err
rdmap_read_req_shape(const struct ddp_untagged_hdr *h, u32 seg_len)
{
	u32 len = seg_len - DDP_UNTAGGED_HDR_LEN;

	if (h->mo)
		return DDP_ERR_UT_INVALID_MO;
	if (len > RDMAP_READ_REQ_LEN || !ddp_ctrl_last(h->ctrl))
		return DDP_ERR_UT_TOO_LONG;
	if (len < RDMAP_READ_REQ_LEN)
		return RDMAP_ERR_OP_UNSPECIFIED;
	return SW_DDP_TERM_OK;
}

/* RFC 5040 "Terminate Header": at least the Terminate Control word */
static struct sw_ddp_term_err rdmap_term_shape(u32 seg_len)
{
	if (seg_len - DDP_UNTAGGED_HDR_LEN < sizeof(struct rdmap_term_hdr))
		return RDMAP_ERR_OP_UNSPECIFIED;
	return SW_DDP_TERM_OK;
}

static struct sw_ddp_term_err
rdmap_check_untagged(const struct ddp_untagged_hdr *h, u32 seg_len, u8 op)
{
	u32 qn = be32_to_cpu(h->qn);

	/* RFC 5040 §4.2: RDMAP uses queues 0, 1 and 2 only */
	if (qn >= RDMAP_QN_COUNT)
		return DDP_ERR_UT_INVALID_QN;
	/* RFC 5040 §4.2: each opcode has its queue */
	if (qn != rdmap_opcode_qn(op))
		return RDMAP_ERR_OP_OPCODE;
	if (op == RDMAP_OP_READ_REQ)
		return rdmap_read_req_shape(h, seg_len);
	if (op == RDMAP_OP_TERMINATE)
		return rdmap_term_shape(seg_len);
	return SW_DDP_TERM_OK;
}

/**
 * rdmap_validate_ctrl() - check the RDMAP part of a received DDP segment
 * @seg: the segment, starting at the DDP control octet
 * @seg_len: its length as reported by the LLP
 *
 * Call after ddp_validate_segment() accepted the DDP header.  The
 * Invalidate STag of non-invalidating opcodes and the reserved bits are
 * not checked (RFC 5040 §4.1).
 *
 * Return: SW_DDP_TERM_OK or the Terminate error for the first violation.
 */
struct sw_ddp_term_err rdmap_validate_ctrl(const void *seg, u32 seg_len)
{
	const u8 *p = seg;
	u8 op;

	if (seg_len < 2 || seg_len < ddp_hdr_len(p[0]))
		return DDP_ERR_LOCAL_CATASTROPHIC;
	/* RFC 5040 §4.1: RV MUST be 01b */
	if (rdmap_ctrl_rv(p[1]) != RDMAP_VERSION)
		return RDMAP_ERR_OP_VERSION;
	op = rdmap_ctrl_opcode(p[1]);
	/* RFC 5040 §4.2: 1000b..1111b are reserved */
	if (op > RDMAP_OP_LAST)
		return RDMAP_ERR_OP_OPCODE;
	/* RFC 5040 §4.2: the Tagged Flag each opcode must carry */
	if (rdmap_opcode_tagged(op) != ddp_ctrl_tagged(p[0]))
		return RDMAP_ERR_OP_OPCODE;
	if (ddp_ctrl_tagged(p[0]))
		return SW_DDP_TERM_OK;
	return rdmap_check_untagged(seg, seg_len, op);
}
EXPORT_SYMBOL_IF_KUNIT(rdmap_validate_ctrl);

/*
 * A failed check of a Read Request's Data Source as the RFC 5040 Remote
 * Protection Error (Error Type 0x1).
 */
struct sw_ddp_term_err rdmap_src_err(enum sw_ddp_mem_err e)
{
	switch (e) {
	case SW_DDP_MEM_OK:
		return SW_DDP_TERM_OK;
	case SW_DDP_MEM_PD_MISMATCH:
		return RDMAP_ERR_PROT_STAG_NOT_ASSOC;
	case SW_DDP_MEM_ACCESS:
		return RDMAP_ERR_PROT_ACCESS;
	case SW_DDP_MEM_TO_WRAP:
		return RDMAP_ERR_PROT_TO_WRAP;
	case SW_DDP_MEM_BASE_BOUNDS:
		return RDMAP_ERR_PROT_BASE_BOUNDS;
	default:
		return RDMAP_ERR_PROT_INVALID_STAG;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdmap_src_err);

/**
 * rdmap_validate_read_req() - check a Read Request's Data Source
 * @rr: the Read Request header (RFC 5040 §4.4)
 * @src: what its SrcSTag resolved to, or NULL for the wrap check only
 *
 * A zero-length read touches no memory; like a zero-length tagged DDP
 * message (RFC 5041 §5.2) its STag and TO are not checked.
 *
 * Return: SW_DDP_TERM_OK or the RDMAP Remote Protection Error.
 */
struct sw_ddp_term_err
rdmap_validate_read_req(const struct rdmap_read_req_hdr *rr,
			const struct sw_ddp_stag_view *src)
{
	u32 size = be32_to_cpu(rr->size);

	if (!size)
		return SW_DDP_TERM_OK;
	return rdmap_src_err(sw_ddp_stag_check(src, be64_to_cpu(rr->src_to),
					       size, true));
}
EXPORT_SYMBOL_IF_KUNIT(rdmap_validate_read_req);

/* Octets a Terminate with @ti needs, or -EINVAL if @ti is inconsistent. */
static int rdmap_term_len(const struct rdmap_term_info *ti)
{
	u16 hc = ti->hdrct;
	int len = sizeof(struct rdmap_term_hdr);

	if (ti->err.layer > 0xf || (hc & ~RDMAP_TERM_HDRCT_MASK))
		return -EINVAL;
	if ((hc & RDMAP_TERM_HDRCT_R) && !(hc & RDMAP_TERM_HDRCT_D))
		return -EINVAL;
	if (ti->rdmap_len > RDMAP_READ_REQ_LEN ||
	    (ti->rdmap_len && !(hc & RDMAP_TERM_HDRCT_R)))
		return -EINVAL;
	if (hc & (RDMAP_TERM_HDRCT_M | RDMAP_TERM_HDRCT_D))
		len += RDMAP_TERM_SEGLEN_SIZE;
	if (hc & RDMAP_TERM_HDRCT_D) {
		if (!ti->ddp_hdr)
			return -EINVAL;
		len += ddp_hdr_len(ti->ddp_hdr[0]);
	}
	return len + ti->rdmap_len;
}

/**
 * rdmap_term_build() - write the Terminate header and copied headers
 * @buf: destination, the ULP payload of the Terminate DDP message
 * @size: room in @buf
 * @ti: error, Hdrct bits and the headers to copy
 *
 * Return: octets written, -EINVAL for an inconsistent @ti, -ENOSPC.
 */
int rdmap_term_build(u8 *buf, u32 size, const struct rdmap_term_info *ti)
{
	struct rdmap_term_hdr *th = (struct rdmap_term_hdr *)buf;
	int len = rdmap_term_len(ti);
	u32 off = sizeof(*th);

	if (len < 0)
		return len;
	if (len > size)
		return -ENOSPC;
	th->ctrl = rdmap_term_ctrl_make(ti->err, ti->hdrct);
	if (ti->hdrct & (RDMAP_TERM_HDRCT_M | RDMAP_TERM_HDRCT_D)) {
		__be16 seg_len = cpu_to_be16(ti->hdrct & RDMAP_TERM_HDRCT_M ?
					     ti->seg_len : 0);

		memcpy(buf + off, &seg_len, sizeof(seg_len));
		off += RDMAP_TERM_SEGLEN_SIZE;
	}
	if (ti->hdrct & RDMAP_TERM_HDRCT_D) {
		memcpy(buf + off, ti->ddp_hdr, ddp_hdr_len(ti->ddp_hdr[0]));
		off += ddp_hdr_len(ti->ddp_hdr[0]);
	}
	if (ti->rdmap_len)
		memcpy(buf + off, ti->rdmap_hdr, ti->rdmap_len);
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(rdmap_term_build);

/**
 * rdmap_term_parse() - decode a received Terminate's ULP payload
 * @buf: the payload, starting at the Terminate Control word
 * @len: its length
 * @ti: filled in; header pointers point into @buf
 *
 * Octets after what the Hdrct bits announce are ignored.
 *
 * Return: 0, or -EINVAL if the announced headers do not fit.
 */
int rdmap_term_parse(const u8 *buf, u32 len, struct rdmap_term_info *ti)
{
	const struct rdmap_term_hdr *th = (const struct rdmap_term_hdr *)buf;
	u32 off = sizeof(*th);

	memset(ti, 0, sizeof(*ti));
	if (len < off)
		return -EINVAL;
	ti->err = rdmap_term_ctrl_err(th->ctrl);
	ti->hdrct = rdmap_term_ctrl_hdrct(th->ctrl);
	if ((ti->hdrct & RDMAP_TERM_HDRCT_R) &&
	    !(ti->hdrct & RDMAP_TERM_HDRCT_D))
		return -EINVAL;
	if (ti->hdrct & (RDMAP_TERM_HDRCT_M | RDMAP_TERM_HDRCT_D)) {
		if (len - off < RDMAP_TERM_SEGLEN_SIZE)
			return -EINVAL;
		__be16 seg_len;

		memcpy(&seg_len, buf + off, sizeof(seg_len));
		ti->seg_len = be16_to_cpu(seg_len);
		off += RDMAP_TERM_SEGLEN_SIZE;
	}
	if (ti->hdrct & RDMAP_TERM_HDRCT_D) {
		if (len == off || len - off < ddp_hdr_len(buf[off]))
			return -EINVAL;
		ti->ddp_hdr = buf + off;
		off += ddp_hdr_len(buf[off]);
	}
	if (ti->hdrct & RDMAP_TERM_HDRCT_R) {
		ti->rdmap_len = min_t(u32, len - off, RDMAP_READ_REQ_LEN);
		ti->rdmap_hdr = ti->rdmap_len ? buf + off : NULL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdmap_term_parse);
