// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile DDP/RDMAP segments, whatever the LLP: see mal_ddp.h.
 */
#include <string.h>

#include "mal_ddp.h"

u32 mal_write_to(u8 *seg, u32 stag, u64 to, u32 len)
{
	rdmap_tagged_init((struct ddp_tagged_hdr *)seg, RDMAP_OP_WRITE,
			  true, stag, to);
	memset(seg + DDP_TAGGED_HDR_LEN, 0x5a, len);
	return DDP_TAGGED_HDR_LEN + len;
}

u32 mal_send_msg(u8 *seg, u32 msn, u32 mo, u32 len)
{
	rdmap_untagged_init((struct ddp_untagged_hdr *)seg, RDMAP_OP_SEND,
			    true, 0, msn, mo);
	memset(seg + DDP_UNTAGGED_HDR_LEN, 0x5a, len);
	return DDP_UNTAGGED_HDR_LEN + len;
}

static u32 rw_stag(const struct victim_info *v)
{
	return be32toh(v->rw_stag);
}

static u64 rw_addr(const struct victim_info *v)
{
	return be64toh(v->rw_addr);
}

u32 mal_good_write(const struct victim_info *v, u8 *seg)
{
	return mal_write_to(seg, rw_stag(v), rw_addr(v), 64);
}

/* RFC 5041 §7.1: an STag naming nothing, and one with the wrong key */
u32 mal_bad_stag(const struct victim_info *v, u8 *seg)
{
	return mal_write_to(seg, rw_stag(v) + 0x1000, rw_addr(v), 64);
}

static u32 b_wrong_key(const struct victim_info *v, u8 *seg)
{
	return mal_write_to(seg, rw_stag(v) ^ 0x01, rw_addr(v), 64);
}

/* RFC 5041 §8.2: STag of another PD (not associated with the stream) */
static u32 b_other_pd(const struct victim_info *v, u8 *seg)
{
	return mal_write_to(seg, be32toh(v->other_stag),
			    be64toh(v->other_addr), 64);
}

/* RFC 5041 §7.1: base and bounds */
static u32 b_out_of_bounds(const struct victim_info *v, u8 *seg)
{
	return mal_write_to(seg, rw_stag(v),
			    rw_addr(v) + be32toh(v->rw_len) - 16, 64);
}

static u32 b_below_base(const struct victim_info *v, u8 *seg)
{
	return mal_write_to(seg, rw_stag(v), rw_addr(v) - 8, 64);
}

static u32 b_to_wrap(const struct victim_info *v, u8 *seg)
{
	return mal_write_to(seg, rw_stag(v), ~0ULL - 8, 64);
}

/* RFC 5040: RDMA Write to an STag without remote write access */
static u32 b_write_read_only(const struct victim_info *v, u8 *seg)
{
	return mal_write_to(seg, be32toh(v->ro_stag), be64toh(v->ro_addr), 64);
}

/* RFC 5041 §7.1 untagged: bad QN, MSN with no buffer, MO, too long */
static u32 b_bad_qn(const struct victim_info *v, u8 *seg)
{
	u32 n = mal_send_msg(seg, 1, 0, 16);

	((struct ddp_untagged_hdr *)seg)->qn = cpu_to_be32(5);
	return n;
}

static u32 b_far_msn(const struct victim_info *v, u8 *seg)
{
	return mal_send_msg(seg, 1000, 0, 16);
}

/* MSN 0 is behind the first buffer's MSN 1 (RFC 5041 §4.3: MSNs start at 1) */
static u32 b_old_msn(const struct victim_info *v, u8 *seg)
{
	return mal_send_msg(seg, 0, 0, 16);
}

static u32 b_bad_mo(const struct victim_info *v, u8 *seg)
{
	return mal_send_msg(seg, 1, be32toh(v->recv_len) + 64, 16);
}

static u32 b_too_long(const struct victim_info *v, u8 *seg)
{
	return mal_send_msg(seg, 1, 0, be32toh(v->recv_len) + 1);
}

/* RFC 5040 §4.1: an opcode that does not exist, an RDMAP version 2 */
static u32 b_bad_opcode(const struct victim_info *v, u8 *seg)
{
	u32 n = mal_send_msg(seg, 1, 0, 16);

	((struct ddp_untagged_hdr *)seg)->rsvdulp0 = rdmap_ctrl_make(0xb);
	return n;
}

static u32 b_bad_rdmap_version(const struct victim_info *v, u8 *seg)
{
	u32 n = mal_send_msg(seg, 1, 0, 16);

	((struct ddp_untagged_hdr *)seg)->rsvdulp0 =
		(2 << 6) | RDMAP_OP_SEND;
	return n;
}

/* RFC 5041 §4.1: DDP version must be 1 */
static u32 b_bad_ddp_version(const struct victim_info *v, u8 *seg)
{
	u32 n = mal_good_write(v, seg);

	seg[0] = (seg[0] & ~DDP_CTRL_DV_MASK) | 2;
	return n;
}

const struct mal_seg_case mal_seg_cases[] = {
	{ "bad-stag", mal_bad_stag, DDP_ERR_T_INVALID_STAG },
	{ "wrong-key", b_wrong_key, DDP_ERR_T_INVALID_STAG },
	{ "other-pd", b_other_pd, DDP_ERR_T_STAG_NOT_ASSOC },
	{ "out-of-bounds", b_out_of_bounds, DDP_ERR_T_BASE_BOUNDS },
	{ "below-base", b_below_base, DDP_ERR_T_BASE_BOUNDS },
	{ "to-wrap", b_to_wrap, DDP_ERR_T_TO_WRAP },
	{ "write-read-only", b_write_read_only, RDMAP_ERR_PROT_ACCESS },
	{ "bad-qn", b_bad_qn, DDP_ERR_UT_INVALID_QN },
	{ "far-msn", b_far_msn, DDP_ERR_UT_MSN_NO_BUF },
	{ "old-msn", b_old_msn, DDP_ERR_UT_MSN_RANGE },
	{ "bad-mo", b_bad_mo, DDP_ERR_UT_INVALID_MO },
	{ "too-long", b_too_long, DDP_ERR_UT_TOO_LONG },
	{ "bad-opcode", b_bad_opcode, RDMAP_ERR_OP_OPCODE },
	{ "bad-rdmap-version", b_bad_rdmap_version, RDMAP_ERR_OP_VERSION },
	{ "bad-ddp-version", b_bad_ddp_version, DDP_ERR_T_VERSION },
};

const unsigned int mal_seg_ncases = ARRAY_SIZE(mal_seg_cases);

const struct mal_seg_case *mal_seg_case_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < mal_seg_ncases; i++)
		if (!strcmp(mal_seg_cases[i].name, name))
			return &mal_seg_cases[i];
	return NULL;
}
