// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: DDP over SCTP (RFC 5043): adaptation indication, payload data
 * chunks, Stream Session Control, and DDP-SSN serial arithmetic.
 *
 * Known answers are octets written from the RFC 5043 §5 figures.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "llp_sctp.h"
#include "ddp.h"

/* RFC 5043 §5.1, §5.2, §12: the assigned numbers */
static void sctp_ddp_assigned_numbers(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, SCTP_DDP_PPID_SEGMENT, 16);
	KUNIT_EXPECT_EQ(test, SCTP_DDP_PPID_SESSION_CTRL, 17);
	KUNIT_EXPECT_EQ(test, SCTP_DDP_ADAPT_IND_DDP, 0x00000001);
	KUNIT_EXPECT_EQ(test, SCTP_DDP_ADAPT_PARAM_TYPE, 0xc006);
	KUNIT_EXPECT_EQ(test, SCTP_DDP_FUNC_INITIATE, 0x001);
	KUNIT_EXPECT_EQ(test, SCTP_DDP_FUNC_ACCEPT, 0x002);
	KUNIT_EXPECT_EQ(test, SCTP_DDP_FUNC_REJECT, 0x003);
	KUNIT_EXPECT_EQ(test, SCTP_DDP_FUNC_TERMINATE, 0x004);
}

/* RFC 5043 §5.1: | Type = 0xC006 | Length | Adaptation Indication | */
static void sctp_ddp_adapt_encode(struct kunit *test)
{
	static const u8 want[] = {
		0xc0, 0x06, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01,
	};
	struct sctp_ddp_adapt_param p;

	sctp_ddp_adapt_param_init(&p);
	KUNIT_EXPECT_MEMEQ(test, &p, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_adapt(want, sizeof(want)),
			SCTP_DDP_OK);
}

/* RFC 5043 §11.1: any other indication means no DDP on the association */
static void sctp_ddp_adapt_reject(struct kunit *test)
{
	u8 p[8] = { 0xc0, 0x06, 0x00, 0x08, 0x00, 0x00, 0x00, 0x02 };

	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_adapt(p, 8),
			SCTP_DDP_BAD_ADAPT);
	p[7] = 0x01;
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_adapt(p, 7), SCTP_DDP_BAD_LEN);
	p[3] = 0x0c;
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_adapt(p, 8), SCTP_DDP_BAD_LEN);
	p[3] = 0x08;
	p[1] = 0x05;
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_adapt(p, 8), SCTP_DDP_BAD_LEN);
}

/* RFC 5043 §5.2.2: | DDP-SSN | DDP Segment (RFC 5041) ... | */
static void sctp_ddp_segment_chunk(struct kunit *test)
{
	static const u8 chunk[] = {
		0x12, 0x34,				/* DDP-SSN */
		0xc1, 0x40, 0x00, 0x00, 0x00, 0x07,	/* tagged, STag 7 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40,
		0xde, 0xad,				/* payload */
	};
	const struct ddp_tagged_hdr *h = (const void *)(chunk + 2);
	struct sctp_ddp_rx_limits lim = {
		.next_ssn = 0x1234, .window = 16, .max_seg = 516,
	};

	KUNIT_EXPECT_EQ(test, sctp_ddp_ssn(chunk), 0x1234);
	KUNIT_EXPECT_TRUE(test, ddp_ctrl_tagged(h->ctrl));
	KUNIT_EXPECT_EQ(test, ddp_tagged_stag(h), 7);
	KUNIT_EXPECT_EQ(test, ddp_tagged_to(h), 0x40);
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(SCTP_DDP_PPID_SEGMENT,
						      chunk, sizeof(chunk),
						      &lim), SCTP_DDP_OK);
}

/* RFC 5043 §5.2.3 and §6.1: Initiate, DDP-SSN 0 at session start */
static void sctp_ddp_initiate_encode(struct kunit *test)
{
	static const u8 want[] = { 0x00, 0x00, 0x00, 0x01, 'h', 'i' };
	u8 buf[16];

	KUNIT_ASSERT_EQ(test, sctp_ddp_session_ctrl_build(buf, sizeof(buf), 0,
							  SCTP_DDP_FUNC_INITIATE,
							  "hi", 2), 6);
	KUNIT_EXPECT_MEMEQ(test, buf, want, sizeof(want));
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(SCTP_DDP_PPID_SESSION_CTRL,
						      buf, 6, NULL),
			SCTP_DDP_OK);
}

/* RFC 5043 §5.2.3: Accept and Reject may carry zero-length data */
static void sctp_ddp_accept_reject_encode(struct kunit *test)
{
	static const u8 accept[] = { 0x00, 0x01, 0x00, 0x02 };
	static const u8 reject[] = { 0x00, 0x01, 0x00, 0x03, 0x7f };
	u8 buf[16];

	KUNIT_ASSERT_EQ(test, sctp_ddp_session_ctrl_build(buf, sizeof(buf), 1,
							  SCTP_DDP_FUNC_ACCEPT,
							  NULL, 0), 4);
	KUNIT_EXPECT_MEMEQ(test, buf, accept, sizeof(accept));
	KUNIT_ASSERT_EQ(test, sctp_ddp_session_ctrl_build(buf, sizeof(buf), 1,
							  SCTP_DDP_FUNC_REJECT,
							  "\x7f", 1), 5);
	KUNIT_EXPECT_MEMEQ(test, buf, reject, sizeof(reject));
}

/* RFC 5043 §5.2.3: Terminate MUST NOT include Private Data */
static void sctp_ddp_terminate_no_pdata(struct kunit *test)
{
	static const u8 want[] = { 0xff, 0xff, 0x00, 0x04 };
	u8 buf[16] = { 0xff, 0xff, 0x00, 0x04, 0x00 };

	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(SCTP_DDP_PPID_SESSION_CTRL,
						      buf, 4, NULL),
			SCTP_DDP_OK);
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(SCTP_DDP_PPID_SESSION_CTRL,
						      buf, 5, NULL),
			SCTP_DDP_PDATA_ON_TERM);
	KUNIT_EXPECT_EQ(test, sctp_ddp_session_ctrl_build(buf, sizeof(buf),
							  0xffff,
							  SCTP_DDP_FUNC_TERMINATE,
							  "x", 1), -EINVAL);
	KUNIT_ASSERT_EQ(test, sctp_ddp_session_ctrl_build(buf, sizeof(buf),
							  0xffff,
							  SCTP_DDP_FUNC_TERMINATE,
							  NULL, 0), 4);
	KUNIT_EXPECT_MEMEQ(test, buf, want, sizeof(want));
}

/* RFC 5043 §5.2.3: "Private Data length MUST NOT exceed 512 bytes" */
static void sctp_ddp_pdata_limit(struct kunit *test)
{
	static u8 buf[4 + 513], pd[513];

	KUNIT_EXPECT_EQ(test, sctp_ddp_session_ctrl_build(buf, sizeof(buf), 0,
							  SCTP_DDP_FUNC_INITIATE,
							  pd, 513), -EINVAL);
	KUNIT_EXPECT_EQ(test, sctp_ddp_session_ctrl_build(buf, 515, 0,
							  SCTP_DDP_FUNC_INITIATE,
							  pd, 512), -ENOSPC);
	KUNIT_ASSERT_EQ(test, sctp_ddp_session_ctrl_build(buf, sizeof(buf), 0,
							  SCTP_DDP_FUNC_ACCEPT,
							  pd, 512), 516);
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(SCTP_DDP_PPID_SESSION_CTRL,
						      buf, 516, NULL),
			SCTP_DDP_OK);
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(SCTP_DDP_PPID_SESSION_CTRL,
						      buf, 517, NULL),
			SCTP_DDP_BAD_PDATA);
}

/* RFC 5043 §5.2.3: only function codes 0x001..0x004 are defined */
static void sctp_ddp_bad_function(struct kunit *test)
{
	u8 buf[4] = { 0x00, 0x00, 0x00, 0x00 };

	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(SCTP_DDP_PPID_SESSION_CTRL,
						      buf, 4, NULL),
			SCTP_DDP_BAD_FUNC);
	buf[3] = 0x05;
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(SCTP_DDP_PPID_SESSION_CTRL,
						      buf, 4, NULL),
			SCTP_DDP_BAD_FUNC);
	buf[2] = 0x01;
	buf[3] = 0x01;
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(SCTP_DDP_PPID_SESSION_CTRL,
						      buf, 4, NULL),
			SCTP_DDP_BAD_FUNC);
	KUNIT_EXPECT_EQ(test, sctp_ddp_session_ctrl_build(buf, 4, 0, 5,
							  NULL, 0), -EINVAL);
}

/* RFC 5043 §5.2: chunks shorter than their fixed part; unknown PPIDs */
static void sctp_ddp_short_and_ppid(struct kunit *test)
{
	static const u8 buf[4] = { 0x00, 0x00, 0x00, 0x01 };

	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(SCTP_DDP_PPID_SESSION_CTRL,
						      buf, 3, NULL),
			SCTP_DDP_BAD_LEN);
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(SCTP_DDP_PPID_SEGMENT,
						      buf, 2, NULL),
			SCTP_DDP_BAD_LEN);
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(0, buf, 4, NULL),
			SCTP_DDP_BAD_PPID);
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(18, buf, 4, NULL),
			SCTP_DDP_BAD_PPID);
}

/* RFC 5043 §9: max segment at least 516; larger segments rejected */
static void sctp_ddp_segment_size(struct kunit *test)
{
	static u8 chunk[2 + 517];
	struct sctp_ddp_rx_limits lim = {
		.next_ssn = 0, .window = 1, .max_seg = sctp_ddp_max_seg(300),
	};

	KUNIT_EXPECT_EQ(test, lim.max_seg, 516);
	KUNIT_EXPECT_EQ(test, sctp_ddp_max_seg(1452), 1452);
	chunk[2] = 0x41;
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(SCTP_DDP_PPID_SEGMENT,
						      chunk, 2 + 516, &lim),
			SCTP_DDP_OK);
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(SCTP_DDP_PPID_SEGMENT,
						      chunk, 2 + 517, &lim),
			SCTP_DDP_SEG_TOO_BIG);
}

/* RFC 5043 §10 with RFC 1982 serial arithmetic on 16 bits */
static void sctp_ddp_ssn_order(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sctp_ddp_ssn_before(1, 2));
	KUNIT_EXPECT_FALSE(test, sctp_ddp_ssn_before(2, 1));
	KUNIT_EXPECT_FALSE(test, sctp_ddp_ssn_before(5, 5));
	KUNIT_EXPECT_TRUE(test, sctp_ddp_ssn_before(0, 0x7fff));
	KUNIT_EXPECT_FALSE(test, sctp_ddp_ssn_before(0x7fff, 0));
	KUNIT_EXPECT_EQ(test, sctp_ddp_ssn_delta(10, 14), 4);
}

/* RFC 5043 §10: DDP-SSN order survives the 0xFFFF -> 0 wrap */
static void sctp_ddp_ssn_wrap(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sctp_ddp_ssn_before(0xffff, 0x0000));
	KUNIT_EXPECT_FALSE(test, sctp_ddp_ssn_before(0x0000, 0xffff));
	KUNIT_EXPECT_TRUE(test, sctp_ddp_ssn_before(0xfff0, 0x000f));
	KUNIT_EXPECT_TRUE(test, sctp_ddp_ssn_before(0x8001, 0x0000));
	KUNIT_EXPECT_FALSE(test, sctp_ddp_ssn_before(0x0000, 0x8001));
	KUNIT_EXPECT_EQ(test, sctp_ddp_ssn_delta(0xfffe, 0x0001), 3);
}

/* RFC 5043 §10: the window of legal DDP-SSNs across the wrap */
static void sctp_ddp_ssn_window(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sctp_ddp_ssn_in_window(0xfff0, 0xfff0, 32));
	KUNIT_EXPECT_TRUE(test, sctp_ddp_ssn_in_window(0x000f, 0xfff0, 32));
	KUNIT_EXPECT_FALSE(test, sctp_ddp_ssn_in_window(0x0010, 0xfff0, 32));
	KUNIT_EXPECT_FALSE(test, sctp_ddp_ssn_in_window(0xffef, 0xfff0, 32));
	KUNIT_EXPECT_FALSE(test, sctp_ddp_ssn_in_window(7, 7, 0));
}

/* RFC 5043 §10: never more than 32767 DDP-SSNs in flight */
static void sctp_ddp_ssn_window_cap(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sctp_ddp_ssn_in_window(32766, 0, 40000));
	KUNIT_EXPECT_FALSE(test, sctp_ddp_ssn_in_window(32767, 0, 40000));
	KUNIT_EXPECT_FALSE(test, sctp_ddp_ssn_in_window(0x8000, 0, 0xffff));
}

/* RFC 5043 §10: a chunk outside the window ends the session */
static void sctp_ddp_chunk_ssn_check(struct kunit *test)
{
	u8 seg[20] = { 0x00, 0x05, 0x41 };
	u8 ctrl[4] = { 0x00, 0x04, 0x00, 0x02 };
	struct sctp_ddp_rx_limits lim = {
		.next_ssn = 5, .window = 4, .max_seg = 1000,
	};

	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(SCTP_DDP_PPID_SEGMENT,
						      seg, 20, &lim),
			SCTP_DDP_OK);
	seg[1] = 9;
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(SCTP_DDP_PPID_SEGMENT,
						      seg, 20, &lim),
			SCTP_DDP_BAD_SSN);
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(SCTP_DDP_PPID_SESSION_CTRL,
						      ctrl, 4, &lim),
			SCTP_DDP_BAD_SSN);
	ctrl[1] = 8;
	KUNIT_EXPECT_EQ(test, sctp_ddp_validate_chunk(SCTP_DDP_PPID_SESSION_CTRL,
						      ctrl, 4, &lim),
			SCTP_DDP_OK);
}

static struct kunit_case sw_ddp_sctp_ddp_cases[] = {
	KUNIT_CASE(sctp_ddp_assigned_numbers),
	KUNIT_CASE(sctp_ddp_adapt_encode),
	KUNIT_CASE(sctp_ddp_adapt_reject),
	KUNIT_CASE(sctp_ddp_segment_chunk),
	KUNIT_CASE(sctp_ddp_initiate_encode),
	KUNIT_CASE(sctp_ddp_accept_reject_encode),
	KUNIT_CASE(sctp_ddp_terminate_no_pdata),
	KUNIT_CASE(sctp_ddp_pdata_limit),
	KUNIT_CASE(sctp_ddp_bad_function),
	KUNIT_CASE(sctp_ddp_short_and_ppid),
	KUNIT_CASE(sctp_ddp_segment_size),
	KUNIT_CASE(sctp_ddp_ssn_order),
	KUNIT_CASE(sctp_ddp_ssn_wrap),
	KUNIT_CASE(sctp_ddp_ssn_window),
	KUNIT_CASE(sctp_ddp_ssn_window_cap),
	KUNIT_CASE(sctp_ddp_chunk_ssn_check),
	{}
};

static struct kunit_suite sw_ddp_sctp_ddp_suite = {
	.name = "sw_ddp_sctp_ddp",
	.test_cases = sw_ddp_sctp_ddp_cases,
};

kunit_test_suites(&sw_ddp_sctp_ddp_suite);
