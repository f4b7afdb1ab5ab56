/* SPDX-License-Identifier: GPL-2.0 */
/* KUnit: a flat buffer as mpa_rx input, as an LLP would hand it over. */
#ifndef SW_DDP_FLAT_IN_H
#define SW_DDP_FLAT_IN_H

#include "mpa.h"

struct flat_in {
	struct mpa_rx_in in;
	const u8 *pos;
};

/*
 * @len octets at @pos, with peek() and crc() as the TCP LLP offers them.
 * @mapped: offer mapped() and skip() as well, as the TCP LLP does, so
 * that mpa_rx frames FPDUs wholly inside in place.
 */
void flat_in_init(struct flat_in *f, const u8 *pos, u32 len, bool mapped);

#endif /* SW_DDP_FLAT_IN_H */
