// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: received data in an skb, as a socket hands it up: some octets
 * in its head, the rest in page fragments.
 */
#include <linux/gfp.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/string.h>

#include "skb_fixture.h"

/**
 * fx_skb() - an skb holding a copy of @data
 * @data: the octets
 * @len: how many
 * @linear: this many of them in the skb's head (at most @len)
 * @frag: the rest in fragments of this many, each in a page of its own
 *	  (at most PAGE_SIZE)
 *
 * Return: the skb (kfree_skb() it), or NULL without memory.
 */
struct sk_buff *fx_skb(const void *data, u32 len, u32 linear, u32 frag)
{
	struct sk_buff *skb = alloc_skb(linear, GFP_KERNEL);
	struct page *page;
	u32 off, n;

	if (!skb)
		return NULL;
	skb_put_data(skb, data, linear);
	for (off = linear; off < len; off += n) {
		n = min(len - off, frag);
		page = alloc_page(GFP_KERNEL);
		if (!page) {
			kfree_skb(skb);
			return NULL;
		}
		memcpy(page_address(page), (const u8 *)data + off, n);
		skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, page, 0, n,
				PAGE_SIZE);
	}
	return skb;
}
