/* SPDX-License-Identifier: GPL-2.0 */
/* KUnit: a kernel TCP socket playing an MPA peer. */
#ifndef SW_DDP_RAW_PEER_H
#define SW_DDP_RAW_PEER_H

#include <kunit/test.h>
#include <linux/net.h>

#include "mpa.h"

int raw_peer_drain(struct socket *sock, u8 *buf, size_t size, int *got);
void raw_peer_check_term(struct kunit *test, const u8 *fpdu, int len,
			 const struct mpa_fpdu_cfg *cfg,
			 struct sw_ddp_term_err want);
void raw_peer_expect_term(struct kunit *test, struct socket *sock,
			  const struct mpa_fpdu_cfg *cfg,
			  struct sw_ddp_term_err want);

#endif /* SW_DDP_RAW_PEER_H */
