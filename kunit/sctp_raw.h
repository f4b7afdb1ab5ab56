/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit: a hand-driven SCTP peer.  Kernel SCTP sockets (one-to-one
 * style, init_net) that send and receive whole messages with their
 * stream and PPID, so that a suite can say what goes on the wire to a
 * DDP Stream Session, or stand between two of them.
 */
#ifndef SW_DDP_KUNIT_SCTP_RAW_H
#define SW_DDP_KUNIT_SCTP_RAW_H

#include <kunit/test.h>
#include <linux/net.h>

#define SCTP_RAW_STREAMS	16	/* each way */
#define SCTP_RAW_WAIT		msecs_to_jiffies(3000)	/* receive timeout */

struct socket *sctp_raw_socket(struct kunit *test, bool ddp);
int sctp_raw_send(struct socket *sock, u16 sid, u32 ppid, const void *buf,
		  u32 len);
int sctp_raw_recv(struct socket *sock, u16 *sid, u32 *ppid, u8 *buf,
		  u32 size, int flags);

#endif /* SW_DDP_KUNIT_SCTP_RAW_H */
