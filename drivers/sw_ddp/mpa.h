/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MPA (RFC 5044, RFC 6581): CRC, markers, MULPDU, FPDU framing and the
 * MPA Request/Reply frames.  Wire layout lives in <sw_ddp/mpa.h>; this
 * header is module-internal.
 */
#ifndef SW_DDP_MPA_H
#define SW_DDP_MPA_H

#include <linux/types.h>
#include <sw_ddp/mpa.h>
#include <sw_ddp/rdmap.h>

/*
 * Where an FPDU sits in its TCP stream.  Markers, when the peer asked
 * for them, lie at every TCP sequence number marker_base + n * 512,
 * where marker_base is the sequence number of the first FPDU octet sent
 * in this direction; @seq is the sequence number of this FPDU's first
 * octet (which is a marker if one falls there).
 */
struct mpa_fpdu_cfg {
	bool markers;
	bool crc;
	u32 marker_base;
	u32 seq;
};

/* Host-order view of an MPA Request or Reply frame. */
struct mpa_rr_info {
	u8 flags;		/* MPA_FLAG_* */
	u8 rev;			/* MPA_REV_1 or MPA_REV_2 */
	/* RFC 6581 data, used when rev is 2 and MPA_FLAG_ENHANCED set */
	u16 ird;		/* with MPA_V2_IRD_P2P, MPA_V2_IRD_RTR_SEND */
	u16 ord;		/* with MPA_V2_ORD_RTR_WRITE, _RTR_READ */
	const u8 *pdata;	/* ULP private data, after the RFC 6581 data */
	u16 pdata_len;
};

u32 mpa_crc32c(const void *buf, u32 len);
u32 mpa_mulpdu(u32 emss, bool markers);
u32 mpa_marker_offset(u32 marker_base, u32 seq);
u32 mpa_fpdu_wire_len(const struct mpa_fpdu_cfg *cfg, u16 ulpdu_len);
int mpa_fpdu_build(u8 *out, u32 size, const void *ulpdu, u16 ulpdu_len,
		   const struct mpa_fpdu_cfg *cfg);
struct sw_ddp_term_err mpa_fpdu_validate(const u8 *wire, u32 wire_len,
					 const struct mpa_fpdu_cfg *cfg,
					 u8 *ulpdu, u32 size, u16 *ulpdu_len);

bool mpa_rr_enhanced(const struct mpa_rr_info *info);
int mpa_rr_build(u8 *out, u32 size, const struct mpa_rr_info *info,
		 bool reply);
struct sw_ddp_term_err mpa_rr_validate(const u8 *frame, u32 len, bool reply,
				       struct mpa_rr_info *info);

#endif /* SW_DDP_MPA_H */
