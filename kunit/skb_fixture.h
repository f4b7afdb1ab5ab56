/* SPDX-License-Identifier: GPL-2.0 */
/* KUnit: received data in an skb, as a socket hands it up. */
#ifndef SW_DDP_SKB_FIXTURE_H
#define SW_DDP_SKB_FIXTURE_H

#include <linux/skbuff.h>

struct sk_buff *fx_skb(const void *data, u32 len, u32 linear, u32 frag);

#endif /* SW_DDP_SKB_FIXTURE_H */
