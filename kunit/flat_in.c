// SPDX-License-Identifier: GPL-2.0
/* KUnit: a flat buffer as mpa_rx input (flat_in.h). */
#include <linux/crc32c.h>
#include <linux/string.h>

#include "flat_in.h"

static int flat_read(struct mpa_rx_in *in, void *dst, u32 len)
{
	struct flat_in *f = container_of(in, struct flat_in, in);

	memcpy(dst, f->pos, len);
	f->pos += len;
	return 0;
}

static u32 flat_mapped(struct mpa_rx_in *in, const u8 **p)
{
	*p = container_of(in, struct flat_in, in)->pos;
	return in->avail;
}

static void flat_skip(struct mpa_rx_in *in, u32 len)
{
	container_of(in, struct flat_in, in)->pos += len;
}

static int flat_peek(struct mpa_rx_in *in, u32 off, void *dst, u32 len)
{
	memcpy(dst, container_of(in, struct flat_in, in)->pos + off, len);
	return 0;
}

static int flat_crc(struct mpa_rx_in *in, u32 len, u32 *crc)
{
	*crc = crc32c(*crc, container_of(in, struct flat_in, in)->pos, len);
	return 0;
}

void flat_in_init(struct flat_in *f, const u8 *pos, u32 len, bool mapped)
{
	*f = (struct flat_in){
		.in = {
			.read = flat_read, .peek = flat_peek, .crc = flat_crc,
			.avail = len,
		},
		.pos = pos,
	};
	if (mapped) {
		f->in.mapped = flat_mapped;
		f->in.skip = flat_skip;
	}
}
