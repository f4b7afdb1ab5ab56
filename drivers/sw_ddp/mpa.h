/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MPA (RFC 5044, RFC 6581): CRC, markers, MULPDU, FPDU framing and the
 * MPA Request/Reply frames.  Wire layout lives in <sw_ddp/mpa.h>; this
 * header is module-internal.
 */
#ifndef SW_DDP_MPA_H
#define SW_DDP_MPA_H

#include <linux/bvec.h>
#include <linux/limits.h>
#include <linux/types.h>
#include <sw_ddp/mpa.h>
#include <sw_ddp/rdmap.h>

#include "llp.h"

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

/*
 * Receive framing (mpa_rx.c).  The LLP hands arriving stream octets over
 * as a struct mpa_rx_in: read() copies the next octets and advances.
 * An input whose octets lie in memory may also offer mapped() and
 * skip(): mapped() points at the next octets and says how many follow
 * there in one piece (up to @avail, 0 for none), skip() advances past
 * octets so seen.  An FPDU wholly inside one piece is then framed where
 * it lies, without reads.  An input may also look ahead without
 * consuming anything: peek() copies the @len octets @off after the next
 * one, crc() runs the CRC32c on from @crc over the next @len; both within
 * @avail, or, with ahead(), within @avail and the octets received after
 * the input's that ahead() counts (up to @want at least, if there are).
 * With CRCs, an FPDU wholly received is then checked before anything of
 * it goes up.  hold() says whether an FPDU whose last @rest octets are
 * still to come may be left unread, the input given back unconsumed,
 * until they are here; without it, or if it says no, mpa_rx copies the
 * FPDU aside until it is whole (its stage).
 */
struct mpa_rx_in {
	int (*read)(struct mpa_rx_in *in, void *dst, u32 len);
	u32 (*mapped)(struct mpa_rx_in *in, const u8 **p);
	void (*skip)(struct mpa_rx_in *in, u32 len);
	int (*peek)(struct mpa_rx_in *in, u32 off, void *dst, u32 len);
	int (*crc)(struct mpa_rx_in *in, u32 len, u32 *crc);
	u32 (*ahead)(struct mpa_rx_in *in, u32 want);
	bool (*hold)(struct mpa_rx_in *in, u32 rest);
	u32 avail;
};

/* Octets in memory as an mpa_rx input: the stage, and KUnit's streams. */
struct mpa_flat_in {
	struct mpa_rx_in in;
	const u8 *pos;
};

void mpa_flat_in_init(struct mpa_flat_in *f, const u8 *pos, u32 len,
		      bool mapped);

/* The longest FPDU: ULPDU_Length, 65535 octets of ULPDU, PAD, CRC */
#define MPA_FPDU_MAX	(MPA_FPDU_OVERHEAD + U16_MAX + MPA_ALIGN - 1)
/* ... and its markers on the stream: one per 508 of its octets, two more */
#define MPA_RX_STAGE_MAX \
	(MPA_FPDU_MAX + MPA_MARKER_SIZE * \
	 (MPA_FPDU_MAX / (MPA_MARKER_INTERVAL - MPA_MARKER_SIZE) + 2))

/* The longest header the layer above may ask for (DDP + RDMAP Read Request) */
#define MPA_RX_HDR_MAX	48
/* ULPDU_Length, DDP control, RDMAP control: enough to size the header */
#define MPA_RX_CTRL_END	(MPA_ULPDU_LEN_SIZE + 2)

enum mpa_rx_state {
	MPA_RX_HDR,		/* ULPDU_Length and DDP header */
	MPA_RX_PAYLOAD,		/* pulled by the layer above */
	MPA_RX_TRAILER,		/* PAD and CRC */
};

struct mpa_rx {
	const struct sw_ddp_rx_ops *ops;
	void *upper;
	struct sw_ddp_rx_src src;	/* what the layer above pulls from */
	struct sw_ddp_rx_src whole_src;	/* the same, for a mapped FPDU */
	const u8 *whole;		/* its payload, during payload() */
	struct mpa_rx_in *in;		/* during mpa_rx_feed() only */

	bool crc;
	bool markers;
	u32 marker_base;
	u32 seq;			/* of the next octet */

	enum mpa_rx_state state;
	u32 fpdu_off;			/* octets of this FPDU so far */
	u32 hdr_off;			/* MPA_MARKER_SIZE if a marker led */
	u32 have, need;			/* header or trailer octets */
	u16 ulpdu_len;
	u32 left;			/* payload octets to come */
	u32 pulled, pulled_max;		/* in the current payload() call */
	u32 crc_acc;
	bool crc_good;			/* this FPDU's, checked ahead */
	bool waiting;			/* for the rest of it (hold()) */
	u8 *stage;			/* with CRCs: MPA_RX_STAGE_MAX octets */
	u32 stage_len, stage_have;	/* the FPDU's rest, what is in */
	bool staged;			/* framing from the stage */
	u32 marker_have;
	struct mpa_marker marker;
	u8 hdr[MPA_ULPDU_LEN_SIZE + MPA_RX_HDR_MAX];
	u8 trailer[MPA_ALIGN - 1 + MPA_CRC_SIZE];
	struct sw_ddp_term_err err;	/* sticky */
	struct sw_ddp_term_err held;	/* for this FPDU's CRC to decide */
};

/*
 * Transmit framing (mpa_tx.c): one FPDU at a time, as bio_vecs.  The
 * longest header DDP sends is a Terminate's, which carries its whole
 * RDMAP payload: up to a DDP header and a Read Request header quoted.
 */
#define MPA_TX_HDR_MAX	(DDP_UNTAGGED_HDR_LEN + RDMAP_TERM_MAX_LEN)
/* Without markers, FPDUs with payloads up to this long are built whole */
#define MPA_TX_COPY_MAX	128

struct mpa_tx {
	bool crc_on;
	bool markers;
	bool summing;			/* the CRC field is not summed */
	bool short_whole;		/* see MPA_TX_COPY_MAX */
	u32 marker_base;
	u32 seq;			/* of the next octet we send */
	u32 fpdu_off;
	u32 hdr_off;
	u32 crc;
	struct bio_vec *bv;		/* the FPDU on the wire */
	unsigned int nr_bv, max_bv;
	struct mpa_marker *marks;
	unsigned int nr_marks, max_marks;
	/* ULPDU_Length, header, a short payload, PAD, CRC */
	u8 frame[MPA_ULPDU_LEN_SIZE + MPA_TX_HDR_MAX + MPA_TX_COPY_MAX +
		 MPA_ALIGN - 1 + MPA_CRC_SIZE];
};

int mpa_tx_init(struct mpa_tx *tx, bool crc, bool markers, u32 seq,
		u32 max_ulpdu, unsigned int max_payload_bv);
void mpa_tx_fini(struct mpa_tx *tx);
int mpa_tx_frame(struct mpa_tx *tx, const void *hdr, u32 hdr_len,
		 const struct bio_vec *payload, unsigned int nr_bv, u32 len);

int mpa_rx_init(struct mpa_rx *rx, const struct sw_ddp_rx_ops *ops,
		void *upper, bool crc, bool markers, u32 seq);
void mpa_rx_fini(struct mpa_rx *rx);
struct sw_ddp_term_err mpa_rx_feed(struct mpa_rx *rx, struct mpa_rx_in *in);
bool mpa_rx_idle(const struct mpa_rx *rx);

#endif /* SW_DDP_MPA_H */
