// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the streaming MPA receiver (mpa_rx.c).  Streams are built from
 * FPDUs framed by mpa_fpdu_build(), itself proven by known answers in
 * mpa_test.c, then fed in pieces of every awkward size; the segments that
 * come out must be the ones that went in.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "mpa.h"

#define STREAM_MAX	(MPA_RX_STAGE_MAX + 4)
#define SEGS_MAX	16

struct sink {
	u8 payload[STREAM_MAX];
	u32 payload_len;
	u8 hdr[SEGS_MAX][MPA_RX_HDR_MAX];
	u32 hdr_len[SEGS_MAX];
	u32 begun, ended;
	struct sw_ddp_term_err begin_err;
	/* if payload_fails, segment fail_seg's (from 0) fails half pulled */
	bool payload_fails;
	struct sw_ddp_term_err payload_err;
	u32 fail_seg;
};

/*
 * Every case runs twice: with an input that can only be read, and with
 * one that is also mapped, where FPDUs wholly inside a piece fed are
 * framed in place (mpa_rx_whole()) and the rest octet by octet.
 */
static const bool input_mapped[] = { false, true };

static void input_desc(const bool *mapped, char *desc)
{
	strscpy(desc, *mapped ? "mapped" : "read", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(input, input_mapped, input_desc);

static unsigned int sink_hdr_len(void *upper, const u8 *ctrl)
{
	return ddp_hdr_len(ctrl[0]);
}

static struct sw_ddp_term_err sink_begin(void *upper, const void *hdr,
					 unsigned int hdr_len, u32 payload_len)
{
	struct sink *s = upper;

	if (s->begun < SEGS_MAX) {
		memcpy(s->hdr[s->begun], hdr, hdr_len);
		s->hdr_len[s->begun] = hdr_len;
	}
	s->begun++;
	return s->begin_err;
}

static struct sw_ddp_term_err sink_payload(void *upper,
					   struct sw_ddp_rx_src *src, u32 len)
{
	struct sink *s = upper;

	/* Pull in two pieces, as placement across a page boundary would. */
	u32 first = len / 2;

	if (s->payload_fails && s->begun == s->fail_seg + 1) {
		if (src->copy(src, s->payload + s->payload_len, first))
			return MPA_ERR_LOCAL_CATASTROPHIC;
		return s->payload_err;
	}
	if (s->payload_len + len > STREAM_MAX ||
	    src->copy(src, s->payload + s->payload_len, first) ||
	    src->copy(src, s->payload + s->payload_len + first, len - first))
		return MPA_ERR_LOCAL_CATASTROPHIC;
	s->payload_len += len;
	return SW_DDP_TERM_OK;
}

static struct sw_ddp_term_err sink_end(void *upper)
{
	((struct sink *)upper)->ended++;
	return SW_DDP_TERM_OK;
}

static const struct sw_ddp_rx_ops sink_ops = {
	.hdr_len = sink_hdr_len,
	.begin = sink_begin,
	.payload = sink_payload,
	.end = sink_end,
};

static void rx_exit(void *rx)
{
	mpa_rx_fini(rx);
}

/* A receiver, its stage freed when the test ends */
static struct mpa_rx *rx_new(struct kunit *test)
{
	struct mpa_rx *rx = kunit_kzalloc(test, sizeof(*rx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rx);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_exit, rx), 0);
	return rx;
}

/* mpa_rx_init() to the sink @s, afresh */
static void rx_init(struct kunit *test, struct mpa_rx *rx, struct sink *s,
		    bool crc, bool markers, u32 base)
{
	mpa_rx_fini(rx);
	KUNIT_ASSERT_EQ(test, mpa_rx_init(rx, &sink_ops, s, crc, markers,
					  base), 0);
}

static void expect_err(struct kunit *test, struct sw_ddp_term_err got,
		       struct sw_ddp_term_err want)
{
	KUNIT_EXPECT_EQ(test, got.layer, want.layer);
	KUNIT_EXPECT_EQ(test, got.etype, want.etype);
	KUNIT_EXPECT_EQ(test, got.ecode, want.ecode);
}

struct stream {
	u8 wire[STREAM_MAX];
	u32 len;
	u32 end[SEGS_MAX];		/* where each FPDU ends */
	u32 nfpdu;
	u8 payload[STREAM_MAX];		/* what the sink should see */
	u32 payload_len;
	struct mpa_fpdu_cfg cfg;
};

/* Append one untagged segment (header + patterned payload) as an FPDU. */
static void stream_add(struct kunit *test, struct stream *st, u32 plen,
		       bool last)
{
	u8 *ulpdu = kunit_kzalloc(test, DDP_UNTAGGED_HDR_LEN + plen,
				  GFP_KERNEL);
	struct ddp_untagged_fields f = { .qn = 0, .msn = 1, .mo = 0 };
	struct ddp_untagged_hdr *h = (void *)ulpdu;
	u32 i;
	int n;

	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	ddp_untagged_hdr_init(h, last, &f);
	for (i = 0; i < plen; i++) {
		ulpdu[DDP_UNTAGGED_HDR_LEN + i] = (u8)(st->payload_len + i * 7);
		st->payload[st->payload_len + i] = ulpdu[DDP_UNTAGGED_HDR_LEN + i];
	}
	st->payload_len += plen;

	st->cfg.seq = st->cfg.marker_base + st->len;
	n = mpa_fpdu_build(st->wire + st->len, STREAM_MAX - st->len, ulpdu,
			   DDP_UNTAGGED_HDR_LEN + plen, &st->cfg);
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_LT(test, st->nfpdu, SEGS_MAX);
	st->len += n;
	st->end[st->nfpdu++] = st->len;
}

static struct stream *stream_make(struct kunit *test, bool crc, bool markers,
				  u32 base)
{
	static const u32 plens[] = { 0, 1, 5, 511, 1000, 3, 2047, 64 };
	struct stream *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, st);
	st->cfg = (struct mpa_fpdu_cfg){
		.crc = crc, .markers = markers, .marker_base = base,
	};
	for (i = 0; i < ARRAY_SIZE(plens); i++)
		stream_add(test, st, plens[i], i % 2);
	return st;
}

/* Feed the stream in pieces of @chunk octets; return the first error. */
static struct sw_ddp_term_err feed(struct kunit *test, struct mpa_rx *rx,
				   const u8 *wire, u32 len, u32 chunk)
{
	bool mapped = *(const bool *)test->param_value;
	struct sw_ddp_term_err err = SW_DDP_TERM_OK;
	struct mpa_flat_in f;
	u32 done = 0;

	mpa_flat_in_init(&f, wire, 0, mapped);
	while (done < len && sw_ddp_term_err_ok(err)) {
		f.in.avail = min(chunk, len - done);
		done += f.in.avail;
		err = mpa_rx_feed(rx, &f.in);
	}
	return err;
}

static void check_roundtrip(struct kunit *test, bool crc, bool markers,
			    u32 base)
{
	static const u32 chunks[] = { 1, 2, 3, 4, 7, 13, 512, 1500, 65536 };
	struct stream *st = stream_make(test, crc, markers, base);
	struct sink *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mpa_rx *rx = rx_new(test);
	struct sw_ddp_term_err err;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < ARRAY_SIZE(chunks); i++) {
		memset(s, 0, sizeof(*s));
		s->begin_err = SW_DDP_TERM_OK;
		rx_init(test, rx, s, crc, markers, base);
		err = feed(test, rx, st->wire, st->len, chunks[i]);
		KUNIT_EXPECT_TRUE_MSG(test, sw_ddp_term_err_ok(err),
				      "chunk %u", chunks[i]);
		KUNIT_EXPECT_EQ_MSG(test, s->ended, 8, "chunk %u", chunks[i]);
		KUNIT_EXPECT_EQ(test, s->payload_len, st->payload_len);
		KUNIT_EXPECT_MEMEQ(test, s->payload, st->payload,
				   st->payload_len);
		KUNIT_EXPECT_EQ(test, s->hdr_len[0], DDP_UNTAGGED_HDR_LEN);
		KUNIT_EXPECT_TRUE(test, mpa_rx_idle(rx));
	}
}

/* RFC 5044 "FPDU Format": segments come out whole, however TCP cuts them */
static void mpa_rx_plain(struct kunit *test)
{
	check_roundtrip(test, false, false, 0);
}

/* RFC 5044 "CRC Calculation" checked on the fly */
static void mpa_rx_crc(struct kunit *test)
{
	check_roundtrip(test, true, false, 1000);
}

/* RFC 5044 "MPA Markers": stripped wherever they fall, several bases */
static void mpa_rx_markers(struct kunit *test)
{
	check_roundtrip(test, false, true, 0);
	check_roundtrip(test, true, true, 0xfffffe00);	/* seq wraps */
	check_roundtrip(test, true, true, 12345);
}

static struct sw_ddp_term_err corrupt_and_feed(struct kunit *test,
					       struct stream *st, u32 at,
					       u8 flip, u32 chunk, u32 *ended)
{
	struct sink *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mpa_rx *rx = rx_new(test);
	struct sw_ddp_term_err err;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->begin_err = SW_DDP_TERM_OK;
	rx_init(test, rx, s, st->cfg.crc, st->cfg.markers, st->cfg.marker_base);
	st->wire[at] ^= flip;
	err = feed(test, rx, st->wire, st->len, chunk);
	st->wire[at] ^= flip;
	*ended = s->ended;
	return err;
}

/*
 * Flip the bits @flip at @at; fed in pieces of @chunk and all at once, the
 * stream ends with @want, after the same FPDUs, whichever way they are
 * framed.
 */
static void expect_flip(struct kunit *test, struct stream *st, u32 at,
			u8 flip, u32 chunk, struct sw_ddp_term_err want)
{
	u32 ended, ended_whole;

	expect_err(test, corrupt_and_feed(test, st, at, flip, chunk, &ended),
		   want);
	expect_err(test, corrupt_and_feed(test, st, at, flip, st->len,
					  &ended_whole), want);
	KUNIT_EXPECT_EQ(test, ended, ended_whole);
}

static void expect_corrupt(struct kunit *test, struct stream *st, u32 at,
			   u32 chunk, struct sw_ddp_term_err want)
{
	expect_flip(test, st, at, 0x10, chunk, want);
}

/* RFC 5044 "CRC Calculation": a flipped payload bit is an MPA CRC error */
static void mpa_rx_bad_crc(struct kunit *test)
{
	struct stream *st = stream_make(test, true, false, 0);

	expect_corrupt(test, st, 100, 7, MPA_ERR_CRC);
}

/* The CRC field itself is checked, not summed. */
static void mpa_rx_bad_crc_field(struct kunit *test)
{
	struct stream *st = stream_make(test, true, false, 0);
	u32 first_fpdu = mpa_fpdu_len(DDP_UNTAGGED_HDR_LEN);

	expect_corrupt(test, st, first_fpdu - 1, 1, MPA_ERR_CRC);
}

/* Without negotiated CRCs the field is not checked. */
static void mpa_rx_crc_off_ignores_field(struct kunit *test)
{
	struct stream *st = stream_make(test, false, false, 0);
	u32 first_fpdu = mpa_fpdu_len(DDP_UNTAGGED_HDR_LEN);

	expect_corrupt(test, st, first_fpdu - 1, 3, SW_DDP_TERM_OK);
}

/* RFC 5044 "Marker Format": a wrong FPDUPTR is an MPA marker error */
static void mpa_rx_bad_marker(struct kunit *test)
{
	struct stream *st = stream_make(test, false, true, 0);

	/* Second marker's FPDUPTR (low octet), 512 octets in. */
	expect_corrupt(test, st, 512 + 3, 5, MPA_ERR_MARKER);
}

/*
 * RFC 5044 "MPA Markers": FPDUPTR's two low bits are taken as zero on
 * receive, whatever the sender put there.
 */
static void mpa_rx_marker_low_bits_ignored(struct kunit *test)
{
	struct stream *st = stream_make(test, false, true, 0);

	/* Second marker's FPDUPTR, 512 octets in: set its two low bits. */
	expect_flip(test, st, 512 + 3, 0x03, 5, SW_DDP_TERM_OK);
}

/* A marker's RESERVED half is ignored on receive. */
static void mpa_rx_marker_reserved_ignored(struct kunit *test)
{
	struct stream *st = stream_make(test, false, true, 0);

	expect_corrupt(test, st, 512, 5, SW_DDP_TERM_OK);
}

/*
 * RFC 5041 §4: a ULPDU shorter than its DDP header is all header.  The
 * layer above gets what there is and judges it (§7.2: its version
 * first), and if it took it, framing goes on.  A ULPDU without the two
 * control octets the header is sized from is refused here.
 */
static void mpa_rx_short_ulpdu(struct kunit *test)
{
	static const u8 wire[] = {
		0x00, 0x04,		/* ULPDU_Length 4 */
		0x42, 0x43, 0x00, 0x00,	/* untagged, needs 18; DV 2 */
		0x00, 0x00,		/* PAD */
		0x00, 0x00, 0x00, 0x00,	/* CRC */
	};
	static const u8 one[] = {
		0x00, 0x01,		/* ULPDU_Length 1 */
		0x41, 0x00,		/* DDP control, PAD */
		0x00, 0x00, 0x00, 0x00,	/* CRC */
	};
	struct sink *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	u8 twice[2 * sizeof(wire)];
	struct mpa_rx *rx = rx_new(test);

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->begin_err = DDP_ERR_UT_VERSION;
	rx_init(test, rx, s, false, false, 0);
	expect_err(test, feed(test, rx, wire, sizeof(wire), 64),
		   DDP_ERR_UT_VERSION);
	KUNIT_EXPECT_EQ(test, s->begun, 1);
	KUNIT_EXPECT_EQ(test, s->hdr_len[0], 4);
	KUNIT_EXPECT_MEMEQ(test, s->hdr[0], wire + 2, 4);

	memset(s, 0, sizeof(*s));
	s->begin_err = SW_DDP_TERM_OK;
	memcpy(twice, wire, sizeof(wire));
	memcpy(twice + sizeof(wire), wire, sizeof(wire));
	rx_init(test, rx, s, false, false, 0);
	expect_err(test, feed(test, rx, twice, sizeof(twice), 5),
		   SW_DDP_TERM_OK);
	KUNIT_EXPECT_EQ(test, s->begun, 2);
	KUNIT_EXPECT_EQ(test, s->ended, 2);
	KUNIT_EXPECT_EQ(test, s->payload_len, 0);
	KUNIT_EXPECT_TRUE(test, mpa_rx_idle(rx));

	memset(s, 0, sizeof(*s));
	s->begin_err = SW_DDP_TERM_OK;
	rx_init(test, rx, s, false, false, 0);
	expect_err(test, feed(test, rx, one, sizeof(one), 64),
		   DDP_ERR_LOCAL_CATASTROPHIC);
	KUNIT_EXPECT_EQ(test, s->begun, 0);
}

/* An error from the layer above stops delivery, and stays. */
static void mpa_rx_upper_error_sticks(struct kunit *test)
{
	struct sink *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	int markers;	/* lead the first FPDU; without, it may go whole */
	struct stream *st;
	struct mpa_rx *rx = rx_new(test);

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (markers = 0; markers < 2; markers++) {
		st = stream_make(test, true, markers, 0);
		memset(s, 0, sizeof(*s));
		s->begin_err = DDP_ERR_T_INVALID_STAG;
		rx_init(test, rx, s, true, markers, 0);
		expect_err(test, feed(test, rx, st->wire, st->len, 100),
			   DDP_ERR_T_INVALID_STAG);
		KUNIT_EXPECT_EQ(test, s->begun, 1);
		KUNIT_EXPECT_EQ(test, s->ended, 0);
		KUNIT_EXPECT_EQ(test, s->payload_len, 0);
	}
}

/*
 * Feed @st with the bits @flip at @at flipped (none if @flip is 0), in
 * pieces of each size; the stream ends with @want after @ended FPDUs.
 * The failing one goes up to begin() unless its CRC is bad: cut
 * anywhere, it is checked first, from where it lies or from the stage.
 */
static void expect_upper_held(struct kunit *test, struct stream *st,
			      const struct sink *cfg, u32 at, u8 flip,
			      struct sw_ddp_term_err want, u32 ended)
{
	static const u32 chunks[] = { 1, 7, 16, 64, 90, STREAM_MAX };
	struct sink *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mpa_rx *rx = rx_new(test);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	st->wire[at] ^= flip;
	for (i = 0; i < ARRAY_SIZE(chunks); i++) {
		memset(s, 0, sizeof(*s));
		s->begin_err = cfg->begin_err;
		s->payload_fails = cfg->payload_fails;
		s->payload_err = cfg->payload_err;
		s->fail_seg = cfg->fail_seg;
		rx_init(test, rx, s, true, st->cfg.markers, 0);
		expect_err(test, feed(test, rx, st->wire, st->len, chunks[i]),
			   want);
		KUNIT_EXPECT_EQ_MSG(test, s->ended, ended, "chunk %u",
				    chunks[i]);
		KUNIT_EXPECT_EQ_MSG(test, s->begun, ended + !flip, "chunk %u",
				    chunks[i]);
	}
	st->wire[at] ^= flip;
}

/*
 * RFC 5044 §8: with CRCs, what the layer above finds wrong in an FPDU
 * counts only once its CRC is good; a bad one is an MPA CRC error,
 * however its header or payload looked.  The rest of the FPDU is read
 * for the CRC, and nothing of it goes up; framed whole, none of it.
 */
static void mpa_rx_crc_before_upper(struct kunit *test)
{
	/* the segments' FPDUs: 24, 28, 32 octets, then 511 of payload */
	const u32 fpdu3 = 24 + 28 + 32, payload3 = fpdu3 + 2 + 18;
	struct sink *cfg = kunit_kzalloc(test, sizeof(*cfg), GFP_KERNEL);
	int markers;
	struct stream *st;

	KUNIT_ASSERT_NOT_NULL(test, cfg);
	for (markers = 0; markers < 2; markers++) {
		st = stream_make(test, true, markers, 0);
		cfg->begin_err = DDP_ERR_T_INVALID_STAG;
		cfg->payload_fails = false;
		/* the first FPDU, all header (a marker leads it): its MSN */
		expect_upper_held(test, st, cfg, 12 + 4 * markers, 0,
				  DDP_ERR_T_INVALID_STAG, 0);
		expect_upper_held(test, st, cfg, 12 + 4 * markers, 0x08,
				  MPA_ERR_CRC, 0);
		if (markers)
			continue;
		/* the fourth's payload fails half way; spoilt after that */
		cfg->begin_err = SW_DDP_TERM_OK;
		cfg->payload_fails = true;
		cfg->payload_err = DDP_ERR_T_BASE_BOUNDS;
		cfg->fail_seg = 3;
		expect_upper_held(test, st, cfg, payload3 + 400, 0,
				  DDP_ERR_T_BASE_BOUNDS, 3);
		expect_upper_held(test, st, cfg, payload3 + 400, 0x40,
				  MPA_ERR_CRC, 3);
	}
}

/*
 * A ULPDU of one octet or none is no DDP segment (RFC 5041 §4), but with
 * CRCs it is an MPA CRC error if its CRC is bad.
 */
static void mpa_rx_crc_short_ulpdu(struct kunit *test)
{
	struct mpa_fpdu_cfg fc = { .crc = true };
	struct sink *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	static const u8 ctrl = 0x41;
	struct mpa_rx *rx = rx_new(test);
	u8 wire[16];
	int len, n;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (len = 0; len < 2; len++) {
		n = mpa_fpdu_build(wire, sizeof(wire), &ctrl, len, &fc);
		KUNIT_ASSERT_EQ(test, n, 8);
		memset(s, 0, sizeof(*s));
		s->begin_err = SW_DDP_TERM_OK;
		rx_init(test, rx, s, true, false, 0);
		expect_err(test, feed(test, rx, wire, n, 3),
			   DDP_ERR_LOCAL_CATASTROPHIC);
		KUNIT_EXPECT_EQ(test, s->begun, 0);

		wire[n - 1] ^= 0x20;
		rx_init(test, rx, s, true, false, 0);
		expect_err(test, feed(test, rx, wire, n, 3), MPA_ERR_CRC);
		KUNIT_EXPECT_EQ(test, s->begun, 0);
	}
}

/*
 * An input as the TCP LLP's: @queued octets received after it, which
 * peek() and crc() reach (ahead()), and hold() as @can_hold says.
 */
struct queued_in {
	struct mpa_flat_in f;
	u32 queued;
	bool can_hold;
};

static u32 queued_ahead(struct mpa_rx_in *in, u32 want)
{
	return container_of(in, struct queued_in, f.in)->queued;
}

static bool queued_hold(struct mpa_rx_in *in, u32 rest)
{
	return container_of(in, struct queued_in, f.in)->can_hold;
}

/* How the input of feed_queued() lets an FPDU's rest be seen first */
enum queued_mode {
	QUEUED_AHEAD,	/* all of the stream has been received */
	QUEUED_HOLD,	/* only the input, which may be given back */
	QUEUED_STAGE,	/* only the input, which must be consumed */
	QUEUED_MODES
};

static const char *const queued_mode_name[] = { "ahead", "hold", "stage" };

/*
 * Feed @len octets as a socket hands them over, @chunk more arriving at
 * a time: each input is all that has arrived and was not consumed,
 * and, in @mode QUEUED_AHEAD, what lies past it counts as queued after
 * it.
 */
static struct sw_ddp_term_err feed_queued(struct kunit *test,
					  struct mpa_rx *rx, const u8 *wire,
					  u32 len, u32 chunk,
					  enum queued_mode mode)
{
	bool mapped = *(const bool *)test->param_value;
	struct sw_ddp_term_err err = SW_DDP_TERM_OK;
	u32 done = 0, got = 0;
	struct queued_in q;

	while (done < len && sw_ddp_term_err_ok(err)) {
		if (got == len)
			break;	/* held with all of it in: never whole */
		got = min(len, got + chunk);
		mpa_flat_in_init(&q.f, wire + done, got - done, mapped);
		q.f.in.ahead = queued_ahead;
		q.f.in.hold = queued_hold;
		q.queued = mode == QUEUED_AHEAD ? len - got : 0;
		q.can_hold = mode == QUEUED_HOLD;
		err = mpa_rx_feed(rx, &q.f.in);
		done = got - q.f.in.avail;
		if (mode == QUEUED_STAGE && sw_ddp_term_err_ok(err))
			KUNIT_EXPECT_EQ(test, q.f.in.avail, 0);
	}
	return err;
}

/*
 * FPDU @k of @st with a bit of its CRC flipped, fed as feed_queued():
 * the stream ends there with an MPA CRC error, none of that FPDU seen.
 */
static void expect_spoilt_first(struct kunit *test, struct mpa_rx *rx,
				struct sink *s, struct stream *st, u32 k,
				u32 chunk, enum queued_mode mode)
{
	u8 *crc_end = st->wire + st->end[k] - 1;

	*crc_end ^= 0x04;
	memset(s, 0, sizeof(*s));
	s->begin_err = SW_DDP_TERM_OK;
	rx_init(test, rx, s, true, st->cfg.markers, 0);
	expect_err(test, feed_queued(test, rx, st->wire, st->len, chunk,
				     mode), MPA_ERR_CRC);
	KUNIT_EXPECT_EQ_MSG(test, s->begun, k, "chunk %u %s markers %d",
			    chunk, queued_mode_name[mode], st->cfg.markers);
	KUNIT_EXPECT_EQ(test, s->ended, k);
	*crc_end ^= 0x04;
}

/*
 * RFC 5044 §8 with CRCs: whether the LLP can look past its input, wait
 * for an FPDU's rest or neither (the stage), no FPDU goes up before its
 * CRC is checked, however the stream is cut and wherever its markers
 * fall: one spoilt anywhere (here in its CRC field) stops the stream
 * before anything of it reaches begin(), and a good stream comes
 * through whole.
 */
static void mpa_rx_crc_whole_first(struct kunit *test)
{
	static const u32 chunks[] = { 1, 3, 7, 16, 64, 600 };
	struct sink *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mpa_rx *rx = rx_new(test);
	enum queued_mode mode;
	struct stream *st;
	u32 i, k, chunk;
	int markers;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (markers = 0; markers < 2; markers++) {
		st = stream_make(test, true, markers, 0);
		for (i = 0; i < QUEUED_MODES * ARRAY_SIZE(chunks); i++) {
			chunk = chunks[i / QUEUED_MODES];
			mode = i % QUEUED_MODES;
			memset(s, 0, sizeof(*s));
			s->begin_err = SW_DDP_TERM_OK;
			rx_init(test, rx, s, true, markers, 0);
			expect_err(test, feed_queued(test, rx, st->wire,
						     st->len, chunk, mode),
				   SW_DDP_TERM_OK);
			KUNIT_EXPECT_EQ(test, s->ended, st->nfpdu);
			KUNIT_EXPECT_EQ(test, s->payload_len, st->payload_len);
			KUNIT_EXPECT_MEMEQ(test, s->payload, st->payload,
					   st->payload_len);
			KUNIT_EXPECT_TRUE(test, mpa_rx_idle(rx));
			for (k = 0; k < st->nfpdu; k++)
				expect_spoilt_first(test, rx, s, st, k, chunk,
						    mode);
		}
	}
}

/*
 * Long FPDUs staged as they come in pieces of an MSS: each arrives
 * whole, or, its last octet spoilt, not at all, and while it comes the
 * stream is not at an FPDU boundary (a close there is a lost
 * connection).  The longest there is, ULPDU_Length 65535, with markers
 * (one at its first octet) fills the stage: 130 markers, the last one
 * too far from the FPDU's start for FPDUPTR's 16 bits, so that good, it
 * is placed up to that marker and fails there.  RFC 5044 keeps FPDUs
 * within the EMSS (at most 65495 octets over IPv4), where every FPDUPTR
 * fits: one of 65480 octets, 128 markers included, goes through whole.
 */
struct stage_case {
	u16 ulpdu_len;
	bool markers;
	struct sw_ddp_term_err good;	/* how it ends unspoilt */
};

static void mpa_rx_stage_long(struct kunit *test)
{
	const struct stage_case cases[] = {
		{ U16_MAX, false, SW_DDP_TERM_OK },
		{ U16_MAX, true, MPA_ERR_MARKER },
		{ 64960, true, SW_DDP_TERM_OK },
	};
	struct sink *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	u8 *ulpdu = kunit_kmalloc(test, U16_MAX, GFP_KERNEL);
	struct mpa_rx *rx = rx_new(test);
	const u32 chunk = 1460;
	const struct stage_case *c;
	struct sw_ddp_term_err err;
	struct stream *st;
	int i, spoilt;
	u32 plen;
	u16 ulen;
	bool ok;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, ulpdu);
	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		c = &cases[i];
		plen = c->ulpdu_len - DDP_UNTAGGED_HDR_LEN;
		memset(st, 0, sizeof(*st));
		st->cfg = (struct mpa_fpdu_cfg){
			.crc = true, .markers = c->markers,
		};
		stream_add(test, st, plen, true);
		KUNIT_ASSERT_EQ(test, st->len,
				mpa_fpdu_wire_len(&st->cfg, c->ulpdu_len));
		KUNIT_ASSERT_LE(test, st->len, MPA_RX_STAGE_MAX);
		KUNIT_ASSERT_TRUE(test, c->ulpdu_len == U16_MAX ||
				  st->len == 65480);
		/* the reference walk agrees */
		err = mpa_fpdu_validate(st->wire, st->len, &st->cfg, ulpdu,
					U16_MAX, &ulen);
		KUNIT_EXPECT_EQ_MSG(test, sw_ddp_term_err_ok(err),
				    sw_ddp_term_err_ok(c->good), "case %d", i);
		for (spoilt = 0; spoilt < 2; spoilt++) {
			err = spoilt ? MPA_ERR_CRC : c->good;
			ok = sw_ddp_term_err_ok(err);
			st->wire[st->len - 1] ^= spoilt;
			memset(s, 0, sizeof(*s));
			s->begin_err = SW_DDP_TERM_OK;
			rx_init(test, rx, s, true, c->markers, 0);
			expect_err(test, feed_queued(test, rx, st->wire,
						     st->len - 1, chunk,
						     QUEUED_STAGE),
				   SW_DDP_TERM_OK);
			KUNIT_EXPECT_EQ(test, s->begun, 0);
			KUNIT_EXPECT_FALSE(test, mpa_rx_idle(rx));
			expect_err(test,
				   feed_queued(test, rx,
					       st->wire + st->len - 1, 1,
					       chunk, QUEUED_STAGE), err);
			KUNIT_EXPECT_EQ_MSG(test, s->begun, !spoilt,
					    "case %d spoilt %d", i, spoilt);
			KUNIT_EXPECT_EQ(test, s->ended, ok);
			KUNIT_EXPECT_EQ(test, s->payload_len == plen, ok);
			if (!spoilt)
				KUNIT_EXPECT_MEMEQ(test, s->payload,
						   st->payload,
						   s->payload_len);
			KUNIT_EXPECT_TRUE(test, !ok || mpa_rx_idle(rx));
			st->wire[st->len - 1] ^= spoilt;
		}
	}
}

/* Cut mid-FPDU: the receiver knows it is not at a boundary. */
static void mpa_rx_truncated(struct kunit *test)
{
	struct stream *st = stream_make(test, true, false, 0);
	struct sink *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	static const u32 chunks[] = { 9, STREAM_MAX };
	struct mpa_rx *rx = rx_new(test);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->begin_err = SW_DDP_TERM_OK;
	for (i = 0; i < ARRAY_SIZE(chunks); i++) {
		s->ended = 0;
		rx_init(test, rx, s, true, false, 0);
		expect_err(test, feed(test, rx, st->wire, st->len - 5,
				      chunks[i]), SW_DDP_TERM_OK);
		KUNIT_EXPECT_FALSE(test, mpa_rx_idle(rx));
		KUNIT_EXPECT_EQ(test, s->ended, 7);
	}
}

static struct kunit_case mpa_rx_test_cases[] = {
	KUNIT_CASE_PARAM(mpa_rx_plain, input_gen_params),
	KUNIT_CASE_PARAM(mpa_rx_crc, input_gen_params),
	KUNIT_CASE_PARAM(mpa_rx_markers, input_gen_params),
	KUNIT_CASE_PARAM(mpa_rx_bad_crc, input_gen_params),
	KUNIT_CASE_PARAM(mpa_rx_bad_crc_field, input_gen_params),
	KUNIT_CASE_PARAM(mpa_rx_crc_off_ignores_field, input_gen_params),
	KUNIT_CASE_PARAM(mpa_rx_bad_marker, input_gen_params),
	KUNIT_CASE_PARAM(mpa_rx_marker_low_bits_ignored, input_gen_params),
	KUNIT_CASE_PARAM(mpa_rx_marker_reserved_ignored, input_gen_params),
	KUNIT_CASE_PARAM(mpa_rx_short_ulpdu, input_gen_params),
	KUNIT_CASE_PARAM(mpa_rx_upper_error_sticks, input_gen_params),
	KUNIT_CASE_PARAM(mpa_rx_truncated, input_gen_params),
	KUNIT_CASE_PARAM(mpa_rx_crc_before_upper, input_gen_params),
	KUNIT_CASE_PARAM(mpa_rx_crc_short_ulpdu, input_gen_params),
	KUNIT_CASE_PARAM(mpa_rx_crc_whole_first, input_gen_params),
	KUNIT_CASE_PARAM(mpa_rx_stage_long, input_gen_params),
	{}
};

static struct kunit_suite mpa_rx_test_suite = {
	.name = "sw_ddp_mpa_rx",
	.test_cases = mpa_rx_test_cases,
};

kunit_test_suites(&mpa_rx_test_suite);
