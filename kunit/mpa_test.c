// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: MPA framing (RFC 5044) and enhanced connection setup (RFC 6581).
 *
 * CRC known answers are the RFC 3720 Appendix B.4 vectors (octets in
 * wire order); FPDU, marker and frame known answers are octets written
 * from the RFC 5044 figures.  RFC 5044 sections are named by title.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "mpa.h"

#define EXPECT_MPA_ERR(test, got, want)				\
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(got),	\
			sw_ddp_term_err_pack(want))

/* Value of a CRC whose wire octets (least significant first) are given */
static u32 wire_crc(u8 b0, u8 b1, u8 b2, u8 b3)
{
	return b0 | b1 << 8 | b2 << 16 | (u32)b3 << 24;
}

/* RFC 3720 B.4: 32 octets of zeros -> aa 36 91 8a */
static void mpa_crc_zeros(struct kunit *test)
{
	static const u8 buf[32];

	KUNIT_EXPECT_EQ(test, mpa_crc32c(buf, sizeof(buf)),
			wire_crc(0xaa, 0x36, 0x91, 0x8a));
}

/* RFC 3720 B.4: 32 octets of ones -> 43 ab a8 62 */
static void mpa_crc_ones(struct kunit *test)
{
	u8 buf[32];

	memset(buf, 0xff, sizeof(buf));
	KUNIT_EXPECT_EQ(test, mpa_crc32c(buf, sizeof(buf)),
			wire_crc(0x43, 0xab, 0xa8, 0x62));
}

/* RFC 3720 B.4: 32 incrementing octets 00..1f -> 4e 79 dd 46 */
static void mpa_crc_incrementing(struct kunit *test)
{
	u8 buf[32];
	int i;

	for (i = 0; i < 32; i++)
		buf[i] = i;
	KUNIT_EXPECT_EQ(test, mpa_crc32c(buf, sizeof(buf)),
			wire_crc(0x4e, 0x79, 0xdd, 0x46));
}

/* RFC 3720 B.4: 32 decrementing octets 1f..00 -> 5c db 3f 11 */
static void mpa_crc_decrementing(struct kunit *test)
{
	u8 buf[32];
	int i;

	for (i = 0; i < 32; i++)
		buf[i] = 31 - i;
	KUNIT_EXPECT_EQ(test, mpa_crc32c(buf, sizeof(buf)),
			wire_crc(0x5c, 0xdb, 0x3f, 0x11));
}

/* RFC 3720 B.4: an iSCSI SCSI Read (10) Command PDU -> 56 3a 96 d9 */
static void mpa_crc_scsi_read(struct kunit *test)
{
	static const u8 pdu[48] = {
		0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
		0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18,
		0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};

	KUNIT_EXPECT_EQ(test, mpa_crc32c(pdu, sizeof(pdu)),
			wire_crc(0x56, 0x3a, 0x96, 0xd9));
}

/* CRC-32C catalogue check value: "123456789" -> 0xe3069283 */
static void mpa_crc_check_value(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, mpa_crc32c("123456789", 9), 0xe3069283);
}

/* RFC 5044 "FPDU Format": PAD makes the FPDU a multiple of 4 */
static void mpa_pad_lengths(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, mpa_pad_len(0), 2);
	KUNIT_EXPECT_EQ(test, mpa_pad_len(1), 1);
	KUNIT_EXPECT_EQ(test, mpa_pad_len(2), 0);
	KUNIT_EXPECT_EQ(test, mpa_pad_len(3), 3);
	KUNIT_EXPECT_EQ(test, mpa_pad_len(14), 0);
	KUNIT_EXPECT_EQ(test, mpa_pad_len(19), 3);
	KUNIT_EXPECT_EQ(test, mpa_pad_len(65535), 3);
	KUNIT_EXPECT_EQ(test, mpa_fpdu_len(18), 24);
	KUNIT_EXPECT_EQ(test, mpa_fpdu_len(46), 52);
	KUNIT_EXPECT_EQ(test, mpa_fpdu_len(5), 12);
}

static const struct mpa_fpdu_cfg plain_nocrc = { .crc = false };
static const struct mpa_fpdu_cfg plain_crc = { .crc = true };

/* RFC 5044 "FPDU Format": length, ULPDU, zero PAD, CRC slot */
static void mpa_fpdu_build_no_crc(struct kunit *test)
{
	static const u8 ulpdu[] = { 1, 2, 3, 4, 5 };
	static const u8 want[] = {
		0x00, 0x05, 1, 2, 3, 4, 5, 0x00,
		0x00, 0x00, 0x00, 0x00,
	};
	u8 out[16];

	memset(out, 0xee, sizeof(out));
	KUNIT_ASSERT_EQ(test, mpa_fpdu_build(out, sizeof(out), ulpdu, 5,
					     &plain_nocrc), 12);
	KUNIT_EXPECT_MEMEQ(test, out, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, mpa_fpdu_build(out, 11, ulpdu, 5, &plain_nocrc),
			-ENOSPC);
}

/* An FPDU carrying an RDMAP Send of "abcd" (RFC 5040 §4.6), CRC'd */
static const u8 send_fpdu[] = {
	0x00, 0x16,				/* ULPDU_Length 22 */
	0x41, 0x43, 0x00, 0x00, 0x00, 0x00,	/* DDP/RDMAP Send, L */
	0x00, 0x00, 0x00, 0x00,			/* QN 0 */
	0x00, 0x00, 0x00, 0x01,			/* MSN 1 */
	0x00, 0x00, 0x00, 0x00,			/* MO 0 */
	'a', 'b', 'c', 'd',			/* payload, no PAD */
	0x71, 0x64, 0x4d, 0x92,			/* CRC32c, LSB first */
};

/* RFC 5044 "CRC Calculation": CRC over length..PAD, iSCSI byte order */
static void mpa_fpdu_build_crc(struct kunit *test)
{
	u8 out[sizeof(send_fpdu)];

	KUNIT_ASSERT_EQ(test, mpa_fpdu_build(out, sizeof(out), send_fpdu + 2,
					     22, &plain_crc),
			(int)sizeof(send_fpdu));
	KUNIT_EXPECT_MEMEQ(test, out, send_fpdu, sizeof(send_fpdu));
}

/* RFC 5044 "CRC Calculation": receive side of the same FPDU */
static void mpa_fpdu_validate_crc(struct kunit *test)
{
	u8 ulpdu[64], bad[sizeof(send_fpdu)];
	u16 len = 0;

	EXPECT_MPA_ERR(test, mpa_fpdu_validate(send_fpdu, sizeof(send_fpdu),
					       &plain_crc, ulpdu, sizeof(ulpdu),
					       &len), SW_DDP_TERM_OK);
	KUNIT_EXPECT_EQ(test, len, 22);
	KUNIT_EXPECT_MEMEQ(test, ulpdu, send_fpdu + 2, 22);
	memcpy(bad, send_fpdu, sizeof(bad));
	bad[21] ^= 0x01;
	EXPECT_MPA_ERR(test, mpa_fpdu_validate(bad, sizeof(bad), &plain_crc,
					       ulpdu, sizeof(ulpdu), &len),
		       MPA_ERR_CRC);
	/* RFC 5044: without CRCs the field "MUST NOT be checked" */
	EXPECT_MPA_ERR(test, mpa_fpdu_validate(bad, sizeof(bad), &plain_nocrc,
					       ulpdu, sizeof(ulpdu), &len),
		       SW_DDP_TERM_OK);
}

/* RFC 5044 "FPDU Format": ULPDU_Length must agree with the FPDU */
static void mpa_fpdu_length_mismatch(struct kunit *test)
{
	u8 ulpdu[64];
	u16 len;

	EXPECT_MPA_ERR(test, mpa_fpdu_validate(send_fpdu, 24, &plain_nocrc,
					       ulpdu, sizeof(ulpdu), &len),
		       MPA_ERR_MARKER);
	EXPECT_MPA_ERR(test, mpa_fpdu_validate(send_fpdu, 1, &plain_nocrc,
					       ulpdu, sizeof(ulpdu), &len),
		       MPA_ERR_MARKER);
	EXPECT_MPA_ERR(test, mpa_fpdu_validate(send_fpdu, sizeof(send_fpdu),
					       &plain_nocrc, ulpdu, 21, &len),
		       MPA_ERR_LOCAL_CATASTROPHIC);
}

/* RFC 5044 "MPA Markers": every 512 octets from the first FPDU */
static void mpa_marker_offsets(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, mpa_marker_offset(1000, 1000), 0);
	KUNIT_EXPECT_EQ(test, mpa_marker_offset(1000, 1001), 511);
	KUNIT_EXPECT_EQ(test, mpa_marker_offset(1000, 1511), 1);
	KUNIT_EXPECT_EQ(test, mpa_marker_offset(1000, 1512), 0);
	KUNIT_EXPECT_EQ(test, mpa_marker_offset(0, 500), 12);
	/* across the 2^32 wrap of TCP sequence space */
	KUNIT_EXPECT_EQ(test, mpa_marker_offset(0xffffff00, 0x00000100), 0);
	KUNIT_EXPECT_EQ(test, mpa_marker_offset(0xffffff00, 0x00000004), 252);
}

/* RFC 5044 "Marker Format": | RESERVED (16) | FPDUPTR (16) | */
static void mpa_marker_layout(struct kunit *test)
{
	static const u8 want[] = { 0x00, 0x00, 0x01, 0xfc };
	struct mpa_marker m;

	mpa_marker_init(&m, 508);
	KUNIT_EXPECT_MEMEQ(test, &m, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, mpa_marker_fpduptr(&m), 508);
}

static void fill_pattern(u8 *buf, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		buf[i] = i * 7 + 1;
}

static u16 marker_ptr_at(const u8 *wire, u32 off)
{
	return wire[off + 2] << 8 | wire[off + 3];
}

/*
 * RFC 5044 "MPA Markers": the first FPDU of a stream starts on a marker
 * (FPDUPTR 0, ULPDU_Length behind it); one more at 512 points back 508.
 */
static void mpa_marker_fpdu_start(struct kunit *test)
{
	struct mpa_fpdu_cfg cfg = { .markers = true, .crc = true,
				    .marker_base = 1000, .seq = 1000 };
	static u8 ulpdu[600], wire[700];

	fill_pattern(ulpdu, sizeof(ulpdu));
	KUNIT_ASSERT_EQ(test, mpa_fpdu_build(wire, sizeof(wire), ulpdu, 600,
					     &cfg), 616);
	KUNIT_EXPECT_EQ(test, marker_ptr_at(wire, 0), 0);
	KUNIT_EXPECT_EQ(test, wire[0] | wire[1], 0);
	KUNIT_EXPECT_EQ(test, wire[4] << 8 | wire[5], 600);
	KUNIT_EXPECT_EQ(test, wire[6], ulpdu[0]);
	KUNIT_EXPECT_EQ(test, wire[511], ulpdu[505]);
	KUNIT_EXPECT_EQ(test, marker_ptr_at(wire, 512), 508);
	KUNIT_EXPECT_EQ(test, wire[516], ulpdu[506]);
	KUNIT_EXPECT_EQ(test, wire[609], ulpdu[599]);
	KUNIT_EXPECT_EQ(test, wire[610] | wire[611], 0);	/* PAD */
	KUNIT_EXPECT_EQ(test, mpa_crc32c(wire, 612),
			wire_crc(wire[612], wire[613], wire[614], wire[615]));
}

/* RFC 5044 "MPA Markers": an FPDU straddling a marker 12 octets in */
static void mpa_marker_straddle(struct kunit *test)
{
	struct mpa_fpdu_cfg cfg = { .markers = true, .marker_base = 0,
				    .seq = 500 };
	u8 ulpdu[100], wire[128];

	fill_pattern(ulpdu, sizeof(ulpdu));
	KUNIT_ASSERT_EQ(test, mpa_fpdu_build(wire, sizeof(wire), ulpdu, 100,
					     &cfg), 112);
	KUNIT_EXPECT_EQ(test, wire[0] << 8 | wire[1], 100);
	KUNIT_EXPECT_EQ(test, wire[11], ulpdu[9]);
	KUNIT_EXPECT_EQ(test, marker_ptr_at(wire, 12), 12);
	KUNIT_EXPECT_EQ(test, wire[16], ulpdu[10]);
	KUNIT_EXPECT_EQ(test, wire[105], ulpdu[99]);
}

/* RFC 5044 "MPA Markers": a marker between PAD and CRC is CRC'd too */
static void mpa_marker_before_crc(struct kunit *test)
{
	static const u8 ulpdu[10] = { 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 };
	static const u8 want_head[] = {
		0x00, 0x0a, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
		0x00, 0x00, 0x00, 0x0c,
	};
	struct mpa_fpdu_cfg cfg = { .markers = true, .crc = true,
				    .marker_base = 0, .seq = 500 };
	u8 wire[32];

	KUNIT_ASSERT_EQ(test, mpa_fpdu_build(wire, sizeof(wire), ulpdu, 10,
					     &cfg), 20);
	KUNIT_EXPECT_MEMEQ(test, wire, want_head, sizeof(want_head));
	KUNIT_EXPECT_EQ(test, mpa_crc32c(want_head, sizeof(want_head)),
			wire_crc(wire[16], wire[17], wire[18], wire[19]));
}

/* RFC 5044 "MPA Markers": a marker where an FPDU ends is the next's */
static void mpa_marker_at_fpdu_end(struct kunit *test)
{
	struct mpa_fpdu_cfg cfg = { .markers = true, .marker_base = 0,
				    .seq = 496 };

	KUNIT_EXPECT_EQ(test, mpa_fpdu_wire_len(&cfg, 10), 16);
	cfg.seq = 512;
	KUNIT_EXPECT_EQ(test, mpa_fpdu_wire_len(&cfg, 10), 20);
}

/* RFC 5044 "MPA Markers": positions follow TCP seq across 2^32 */
static void mpa_marker_seq_wrap(struct kunit *test)
{
	struct mpa_fpdu_cfg cfg = { .markers = true,
				    .marker_base = 0xfffffe00,
				    .seq = 0xfffffff0 };
	u8 ulpdu[20], wire[40];

	fill_pattern(ulpdu, sizeof(ulpdu));
	KUNIT_ASSERT_EQ(test, mpa_fpdu_build(wire, sizeof(wire), ulpdu, 20,
					     &cfg), 32);
	/* the marker lands on TCP sequence number 0 */
	KUNIT_EXPECT_EQ(test, marker_ptr_at(wire, 16), 16);
	KUNIT_EXPECT_EQ(test, wire[15], ulpdu[13]);
	KUNIT_EXPECT_EQ(test, wire[20], ulpdu[14]);
}

/* RFC 5044 "MPA Markers": two markers inside one long FPDU */
static void mpa_marker_two_in_fpdu(struct kunit *test)
{
	struct mpa_fpdu_cfg cfg = { .markers = true, .marker_base = 0,
				    .seq = 100 };
	static u8 ulpdu[1200], wire[1300];

	fill_pattern(ulpdu, sizeof(ulpdu));
	KUNIT_ASSERT_EQ(test, mpa_fpdu_build(wire, sizeof(wire), ulpdu, 1200,
					     &cfg), 1216);
	KUNIT_EXPECT_EQ(test, marker_ptr_at(wire, 412), 412);
	KUNIT_EXPECT_EQ(test, marker_ptr_at(wire, 924), 924);
	KUNIT_EXPECT_EQ(test, wire[411], ulpdu[409]);
	KUNIT_EXPECT_EQ(test, wire[416], ulpdu[410]);
	KUNIT_EXPECT_EQ(test, wire[928], ulpdu[918]);
}

/* RFC 5044 "Marker Format": a wrong FPDUPTR is error 0x03 */
static void mpa_marker_bad_pointer(struct kunit *test)
{
	struct mpa_fpdu_cfg cfg = { .markers = true, .crc = false,
				    .marker_base = 0, .seq = 500 };
	u8 ulpdu[100], wire[128], out[100];
	u16 len;

	fill_pattern(ulpdu, sizeof(ulpdu));
	mpa_fpdu_build(wire, sizeof(wire), ulpdu, 100, &cfg);
	wire[12] = 0xff;		/* RESERVED: ignored on receive */
	EXPECT_MPA_ERR(test, mpa_fpdu_validate(wire, 112, &cfg, out,
					       sizeof(out), &len),
		       SW_DDP_TERM_OK);
	wire[15] |= 3;			/* low bits: taken as zero */
	EXPECT_MPA_ERR(test, mpa_fpdu_validate(wire, 112, &cfg, out,
					       sizeof(out), &len),
		       SW_DDP_TERM_OK);
	wire[15] = 16;
	EXPECT_MPA_ERR(test, mpa_fpdu_validate(wire, 112, &cfg, out,
					       sizeof(out), &len),
		       MPA_ERR_MARKER);
}

/* Build and receive at several TCP start sequences and lengths */
static void mpa_marker_roundtrip(struct kunit *test)
{
	static const u32 starts[] = { 0, 4, 256, 500, 508 };
	static const u16 lens[] = { 1, 14, 510, 511, 1024, 1500 };
	static u8 ulpdu[1500], wire[1600], out[1500];
	struct mpa_fpdu_cfg cfg = { .markers = true, .crc = true,
				    .marker_base = 0x7ffffe00 };
	unsigned int i, j;
	u16 len;
	int n;

	fill_pattern(ulpdu, sizeof(ulpdu));
	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		for (j = 0; j < ARRAY_SIZE(lens); j++) {
			cfg.seq = cfg.marker_base + starts[i];
			n = mpa_fpdu_build(wire, sizeof(wire), ulpdu, lens[j],
					   &cfg);
			KUNIT_ASSERT_GT(test, n, 0);
			EXPECT_MPA_ERR(test,
				       mpa_fpdu_validate(wire, n, &cfg, out,
							 sizeof(out), &len),
				       SW_DDP_TERM_OK);
			KUNIT_EXPECT_EQ(test, len, lens[j]);
			KUNIT_EXPECT_MEMEQ(test, out, ulpdu, lens[j]);
		}
	}
}

/* RFC 5044 "FPDU Size Considerations", with markers */
static void mpa_mulpdu_markers(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, mpa_mulpdu(1460, true), 1442);
	KUNIT_EXPECT_EQ(test, mpa_mulpdu(1448, true), 1430);
	KUNIT_EXPECT_EQ(test, mpa_mulpdu(1461, true), 1442);
	KUNIT_EXPECT_EQ(test, mpa_mulpdu(536, true), 522);
	KUNIT_EXPECT_EQ(test, mpa_mulpdu(8948, true), 8870);
	KUNIT_EXPECT_EQ(test, mpa_mulpdu(12, true), 2);
	KUNIT_EXPECT_EQ(test, mpa_mulpdu(10, true), 0);
}

/* RFC 5044 "FPDU Size Considerations", without markers */
static void mpa_mulpdu_no_markers(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, mpa_mulpdu(1460, false), 1454);
	KUNIT_EXPECT_EQ(test, mpa_mulpdu(1461, false), 1454);
	KUNIT_EXPECT_EQ(test, mpa_mulpdu(1463, false), 1454);
	KUNIT_EXPECT_EQ(test, mpa_mulpdu(8948, false), 8942);
	KUNIT_EXPECT_EQ(test, mpa_mulpdu(6, false), 0);
	KUNIT_EXPECT_EQ(test, mpa_mulpdu(65535, false), 65526);
}

/* RFC 5044 "FPDU Size Considerations": a MULPDU FPDU fits one EMSS */
static void mpa_mulpdu_fits_emss(struct kunit *test)
{
	static const u32 emss[] = { 536, 1448, 1460, 1461, 8948, 8960 };
	struct mpa_fpdu_cfg cfg = { .markers = true };
	unsigned int i;
	u32 off, wire;

	for (i = 0; i < ARRAY_SIZE(emss); i++) {
		for (off = 0; off < MPA_MARKER_INTERVAL; off += MPA_ALIGN) {
			cfg.seq = off;
			wire = mpa_fpdu_wire_len(&cfg, mpa_mulpdu(emss[i], true));
			KUNIT_EXPECT_LE(test, wire, emss[i]);
		}
		KUNIT_EXPECT_LE(test, mpa_fpdu_len(mpa_mulpdu(emss[i], false)),
				emss[i]);
	}
}

/* RFC 5044 "MPA Request and Reply Frame Format": the two keys */
static const u8 key_req[16] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
};

static const u8 key_rep[16] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
};

/* RFC 5044 Request: |M|C|R|Res|Rev|PD_Length| then Private Data */
static void mpa_rr_request_v1(struct kunit *test)
{
	static const u8 tail[] = { 0x40, 0x01, 0x00, 0x03, 'a', 'b', 'c' };
	struct mpa_rr_info info = {
		.flags = MPA_FLAG_C | MPA_FLAG_R, .rev = MPA_REV_1,
		.pdata = (const u8 *)"abc", .pdata_len = 3,
	};
	u8 out[64];

	/* R is zero in a Request */
	KUNIT_ASSERT_EQ(test, mpa_rr_build(out, sizeof(out), &info, false),
			23);
	KUNIT_EXPECT_MEMEQ(test, out, key_req, 16);
	KUNIT_EXPECT_MEMEQ(test, out + 16, tail, sizeof(tail));
}

/* RFC 5044 Reply: R set by the Responder to reject */
static void mpa_rr_reply_reject(struct kunit *test)
{
	static const u8 tail[] = { 0xa0, 0x01, 0x00, 0x00 };
	struct mpa_rr_info info = {
		.flags = MPA_FLAG_M | MPA_FLAG_R | MPA_FLAG_RSVD_MASK,
		.rev = MPA_REV_1,
	};
	struct mpa_rr_info got;
	u8 out[64];

	KUNIT_ASSERT_EQ(test, mpa_rr_build(out, sizeof(out), &info, true), 20);
	KUNIT_EXPECT_MEMEQ(test, out, key_rep, 16);
	KUNIT_EXPECT_MEMEQ(test, out + 16, tail, sizeof(tail));
	EXPECT_MPA_ERR(test, mpa_rr_validate(out, 20, true, &got),
		       SW_DDP_TERM_OK);
	KUNIT_EXPECT_TRUE(test, got.flags & MPA_FLAG_R);
	KUNIT_EXPECT_EQ(test, got.pdata_len, 0);
	KUNIT_EXPECT_PTR_EQ(test, got.pdata, NULL);
}

/* An RFC 6581 enhanced Request: IRD 16 + P2P, ORD 8 + RDMA Read RTR */
static const u8 v2_tail[] = {
	0x50, 0x02, 0x00, 0x06,		/* C, enhanced, Rev 2, PD_Length 6 */
	0x80, 0x10,			/* A=1 B=0 IRD 16 */
	0x40, 0x08,			/* C=0 D=1 ORD 8 */
	0xaa, 0xbb,			/* ULP private data */
};

/* RFC 6581: IRD/ORD words lead the Private Data, counted in PD_Length */
static void mpa_rr_v2_encode(struct kunit *test)
{
	static const u8 pd[] = { 0xaa, 0xbb };
	struct mpa_rr_info info = {
		.flags = MPA_FLAG_C | MPA_FLAG_ENHANCED, .rev = MPA_REV_2,
		.ird = MPA_V2_IRD_P2P | 16, .ord = MPA_V2_ORD_RTR_READ | 8,
		.pdata = pd, .pdata_len = sizeof(pd),
	};
	u8 out[64];

	KUNIT_ASSERT_EQ(test, mpa_rr_build(out, sizeof(out), &info, false),
			26);
	KUNIT_EXPECT_MEMEQ(test, out, key_req, 16);
	KUNIT_EXPECT_MEMEQ(test, out + 16, v2_tail, sizeof(v2_tail));
}

/* RFC 6581: decode of the same frame */
static void mpa_rr_v2_decode(struct kunit *test)
{
	struct mpa_rr_info info;
	u8 frame[26];

	memcpy(frame, key_req, 16);
	memcpy(frame + 16, v2_tail, sizeof(v2_tail));
	EXPECT_MPA_ERR(test, mpa_rr_validate(frame, 26, false, &info),
		       SW_DDP_TERM_OK);
	KUNIT_EXPECT_EQ(test, info.rev, 2);
	KUNIT_EXPECT_TRUE(test, mpa_rr_enhanced(&info));
	KUNIT_EXPECT_EQ(test, info.ird & MPA_V2_IRD_ORD_MASK, 16);
	KUNIT_EXPECT_TRUE(test, info.ird & MPA_V2_IRD_P2P);
	KUNIT_EXPECT_FALSE(test, info.ird & MPA_V2_IRD_RTR_SEND);
	KUNIT_EXPECT_EQ(test, info.ord & MPA_V2_IRD_ORD_MASK, 8);
	KUNIT_EXPECT_TRUE(test, info.ord & MPA_V2_ORD_RTR_READ);
	KUNIT_EXPECT_FALSE(test, info.ord & MPA_V2_ORD_RTR_WRITE);
	KUNIT_EXPECT_EQ(test, info.pdata_len, 2);
	KUNIT_EXPECT_PTR_EQ(test, info.pdata, (const u8 *)frame + 24);
}

/* A v1 Request frame with @pd_len octets of private data in @frame. */
static u32 v1_frame(u8 *frame, u8 rev, u16 pd_len)
{
	struct mpa_rr_hdr *h = (struct mpa_rr_hdr *)frame;

	memcpy(h->key, key_req, 16);
	h->flags = MPA_FLAG_C;
	h->rev = rev;
	h->pd_len = cpu_to_be16(pd_len);
	memset(frame + 20, 0x5a, pd_len);
	return 20 + pd_len;
}

/* RFC 5044: a frame with the wrong key is an invalid frame (0x04) */
static void mpa_rr_bad_key(struct kunit *test)
{
	struct mpa_rr_info info;
	u8 frame[64];
	u32 len = v1_frame(frame, 1, 0);

	EXPECT_MPA_ERR(test, mpa_rr_validate(frame, len, true, &info),
		       MPA_ERR_REQ_REP);
	frame[15] ^= 0x20;			/* "framE" */
	EXPECT_MPA_ERR(test, mpa_rr_validate(frame, len, false, &info),
		       MPA_ERR_REQ_REP);
}

/* RFC 5044 Rev (1) and RFC 6581 (2): anything else is refused */
static void mpa_rr_bad_revision(struct kunit *test)
{
	static const u8 bad[] = { 0, 3, 255 };
	struct mpa_rr_info info;
	u8 frame[64];
	unsigned int i;
	u32 len;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		len = v1_frame(frame, bad[i], 0);
		EXPECT_MPA_ERR(test, mpa_rr_validate(frame, len, false, &info),
			       MPA_ERR_REQ_REP);
	}
	len = v1_frame(frame, 2, 0);
	EXPECT_MPA_ERR(test, mpa_rr_validate(frame, len, false, &info),
		       SW_DDP_TERM_OK);
}

/* RFC 5044: Private Data is at most 512 octets */
static void mpa_rr_pd_too_long(struct kunit *test)
{
	static u8 frame[20 + 513];
	struct mpa_rr_info info;
	u32 len;

	len = v1_frame(frame, 1, 512);
	EXPECT_MPA_ERR(test, mpa_rr_validate(frame, len, false, &info),
		       SW_DDP_TERM_OK);
	KUNIT_EXPECT_EQ(test, info.pdata_len, 512);
	len = v1_frame(frame, 1, 513);
	EXPECT_MPA_ERR(test, mpa_rr_validate(frame, len, false, &info),
		       MPA_ERR_REQ_REP);
}

/* RFC 5044: PD_Length must match the Private Data present */
static void mpa_rr_pd_mismatch(struct kunit *test)
{
	struct mpa_rr_info info;
	u8 frame[64];
	u32 len = v1_frame(frame, 1, 4);

	EXPECT_MPA_ERR(test, mpa_rr_validate(frame, len - 1, false, &info),
		       MPA_ERR_REQ_REP);
	EXPECT_MPA_ERR(test, mpa_rr_validate(frame, len + 1, false, &info),
		       MPA_ERR_REQ_REP);
	EXPECT_MPA_ERR(test, mpa_rr_validate(frame, 19, false, &info),
		       MPA_ERR_REQ_REP);
}

/* RFC 6581: an enhanced frame must hold the IRD/ORD words */
static void mpa_rr_v2_short(struct kunit *test)
{
	struct mpa_rr_info info;
	u8 frame[64];
	u32 len = v1_frame(frame, 2, 3);

	frame[16] |= MPA_FLAG_ENHANCED;
	EXPECT_MPA_ERR(test, mpa_rr_validate(frame, len, false, &info),
		       MPA_ERR_REQ_REP);
	len = v1_frame(frame, 2, 4);
	frame[16] |= MPA_FLAG_ENHANCED;
	EXPECT_MPA_ERR(test, mpa_rr_validate(frame, len, false, &info),
		       SW_DDP_TERM_OK);
	KUNIT_EXPECT_EQ(test, info.pdata_len, 0);
}

/* RFC 5044: Res, and R in a Request, are "not checked on reception" */
static void mpa_rr_reserved_ignored(struct kunit *test)
{
	struct mpa_rr_info info;
	u8 frame[64];
	u32 len = v1_frame(frame, 1, 4);

	frame[16] |= MPA_FLAG_R | MPA_FLAG_ENHANCED | MPA_FLAG_RSVD_MASK;
	EXPECT_MPA_ERR(test, mpa_rr_validate(frame, len, false, &info),
		       SW_DDP_TERM_OK);
	/* with Rev 1 the enhanced bit is just Res: no IRD/ORD parsed */
	KUNIT_EXPECT_FALSE(test, mpa_rr_enhanced(&info));
	KUNIT_EXPECT_EQ(test, info.pdata_len, 4);
}

/* Frames this side must not send: bad Rev, > 512 octets, no room */
static void mpa_rr_build_rejects(struct kunit *test)
{
	static u8 pd[512], out[600];
	struct mpa_rr_info info = {
		.flags = MPA_FLAG_ENHANCED, .rev = MPA_REV_2,
		.pdata = pd, .pdata_len = 509,
	};

	KUNIT_EXPECT_EQ(test, mpa_rr_build(out, sizeof(out), &info, false),
			-EINVAL);
	info.pdata_len = 508;
	KUNIT_EXPECT_EQ(test, mpa_rr_build(out, sizeof(out), &info, false),
			532);
	KUNIT_EXPECT_EQ(test, mpa_rr_build(out, 531, &info, false), -ENOSPC);
	info.rev = 3;
	KUNIT_EXPECT_EQ(test, mpa_rr_build(out, sizeof(out), &info, false),
			-EINVAL);
}

static struct kunit_case sw_ddp_mpa_cases[] = {
	KUNIT_CASE(mpa_crc_zeros),
	KUNIT_CASE(mpa_crc_ones),
	KUNIT_CASE(mpa_crc_incrementing),
	KUNIT_CASE(mpa_crc_decrementing),
	KUNIT_CASE(mpa_crc_scsi_read),
	KUNIT_CASE(mpa_crc_check_value),
	KUNIT_CASE(mpa_pad_lengths),
	KUNIT_CASE(mpa_fpdu_build_no_crc),
	KUNIT_CASE(mpa_fpdu_build_crc),
	KUNIT_CASE(mpa_fpdu_validate_crc),
	KUNIT_CASE(mpa_fpdu_length_mismatch),
	KUNIT_CASE(mpa_marker_offsets),
	KUNIT_CASE(mpa_marker_layout),
	KUNIT_CASE(mpa_marker_fpdu_start),
	KUNIT_CASE(mpa_marker_straddle),
	KUNIT_CASE(mpa_marker_before_crc),
	KUNIT_CASE(mpa_marker_at_fpdu_end),
	KUNIT_CASE(mpa_marker_seq_wrap),
	KUNIT_CASE(mpa_marker_two_in_fpdu),
	KUNIT_CASE(mpa_marker_bad_pointer),
	KUNIT_CASE(mpa_marker_roundtrip),
	KUNIT_CASE(mpa_mulpdu_markers),
	KUNIT_CASE(mpa_mulpdu_no_markers),
	KUNIT_CASE(mpa_mulpdu_fits_emss),
	KUNIT_CASE(mpa_rr_request_v1),
	KUNIT_CASE(mpa_rr_reply_reject),
	KUNIT_CASE(mpa_rr_v2_encode),
	KUNIT_CASE(mpa_rr_v2_decode),
	KUNIT_CASE(mpa_rr_bad_key),
	KUNIT_CASE(mpa_rr_bad_revision),
	KUNIT_CASE(mpa_rr_pd_too_long),
	KUNIT_CASE(mpa_rr_pd_mismatch),
	KUNIT_CASE(mpa_rr_v2_short),
	KUNIT_CASE(mpa_rr_reserved_ignored),
	KUNIT_CASE(mpa_rr_build_rejects),
	{}
};

static struct kunit_suite sw_ddp_mpa_suite = {
	.name = "sw_ddp_mpa",
	.test_cases = sw_ddp_mpa_cases,
};

kunit_test_suites(&sw_ddp_mpa_suite);
