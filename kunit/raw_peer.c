// SPDX-License-Identifier: GPL-2.0
/* KUnit: a kernel TCP socket playing an MPA peer (raw_peer.h). */
#include <linux/minmax.h>
#include <linux/socket.h>

#include "raw_peer.h"
#include "rdmap.h"

/* Read until EOF or error; return how it ended (0: EOF). */
int raw_peer_drain(struct socket *sock, u8 *buf, size_t size, int *got)
{
	struct kvec iov;
	struct msghdr msg = {};
	int n;

	*got = 0;
	for (;;) {
		iov.iov_base = buf + min_t(size_t, *got, size - 1);
		iov.iov_len = size - min_t(size_t, *got, size - 1);
		n = kernel_recvmsg(sock, &msg, &iov, 1, iov.iov_len, 0);
		if (n <= 0)
			return n;
		*got += n;
	}
}

/*
 * @fpdu, @len octets, is one FPDU framed per @cfg: the stream's first
 * Terminate (RFC 5040: queue 2, MSN 1, whole), carrying @want and no
 * quoted headers.
 */
void raw_peer_check_term(struct kunit *test, const u8 *fpdu, int len,
			 const struct mpa_fpdu_cfg *cfg,
			 struct sw_ddp_term_err want)
{
	struct ddp_untagged_fields f;
	struct sw_ddp_term_err err;
	struct rdmap_term_info ti;
	u8 ulpdu[64];
	u16 ulpdu_len;

	err = mpa_fpdu_validate(fpdu, len, cfg, ulpdu, sizeof(ulpdu),
				&ulpdu_len);
	KUNIT_ASSERT_TRUE(test, sw_ddp_term_err_ok(err));
	KUNIT_ASSERT_EQ(test, DDP_UNTAGGED_HDR_LEN + 4, ulpdu_len);
	KUNIT_EXPECT_EQ(test, ddp_ctrl_make(false, true), ulpdu[0]);
	KUNIT_EXPECT_EQ(test, rdmap_ctrl_make(RDMAP_OP_TERMINATE), ulpdu[1]);
	ddp_untagged_hdr_get((struct ddp_untagged_hdr *)ulpdu, &f);
	KUNIT_EXPECT_EQ(test, RDMAP_QN_TERMINATE, f.qn);
	KUNIT_EXPECT_EQ(test, 1, f.msn);
	KUNIT_EXPECT_EQ(test, 0, f.mo);
	KUNIT_ASSERT_EQ(test, 0, rdmap_term_parse(ulpdu + DDP_UNTAGGED_HDR_LEN,
						  4, &ti));
	KUNIT_EXPECT_EQ(test, 0, ti.hdrct);
	KUNIT_EXPECT_EQ(test, sw_ddp_term_err_pack(want),
			sw_ddp_term_err_pack(ti.err));
}

/* All the peer receives from now on is raw_peer_check_term()'s, and FIN. */
void raw_peer_expect_term(struct kunit *test, struct socket *sock,
			  const struct mpa_fpdu_cfg *cfg,
			  struct sw_ddp_term_err want)
{
	u8 fpdu[64];
	int got, end;

	end = raw_peer_drain(sock, fpdu, sizeof(fpdu), &got);
	KUNIT_EXPECT_EQ(test, 0, end);		/* FIN, not RST */
	raw_peer_check_term(test, fpdu, got, cfg, want);
}
