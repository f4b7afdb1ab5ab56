// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a hand-driven SCTP peer (sctp_raw.h).
 */
#include <linux/in.h>
#include <linux/sctp.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <sw_ddp/sctp_ddp.h>

#include "sctp_raw.h"

static int raw_setopt(struct socket *sock, int opt, const void *val,
		      unsigned int len)
{
	return sock->ops->setsockopt(sock, SOL_SCTP, opt,
				     KERNEL_SOCKPTR((void *)val), len);
}

/*
 * An IPv4 socket, with the DDP adaptation indication (RFC 5043 §4) or
 * without, SCTP_RAW_STREAMS streams, no notifications, each message's
 * stream and PPID reported; receives wait SCTP_RAW_WAIT.
 */
struct socket *sctp_raw_socket(struct kunit *test, bool ddp)
{
	static const struct sctp_setadaptation adapt = {
		.ssb_adaptation_ind = SCTP_DDP_ADAPT_IND_DDP,
	};
	static const struct sctp_initmsg init = {
		.sinit_num_ostreams = SCTP_RAW_STREAMS,
		.sinit_max_instreams = SCTP_RAW_STREAMS,
	};
	static const struct sctp_event_subscribe none = {};
	static const int on = 1;
	struct socket *sock;

	KUNIT_ASSERT_EQ(test, 0, sock_create_kern(&init_net, AF_INET,
						  SOCK_STREAM, IPPROTO_SCTP,
						  &sock));
	if ((ddp && raw_setopt(sock, SCTP_ADAPTATION_LAYER, &adapt,
			       sizeof(adapt))) ||
	    raw_setopt(sock, SCTP_INITMSG, &init, sizeof(init)) ||
	    raw_setopt(sock, SCTP_EVENTS, &none, sizeof(none)) ||
	    raw_setopt(sock, SCTP_RECVRCVINFO, &on, sizeof(on))) {
		sock_release(sock);
		KUNIT_FAIL_AND_ABORT(test, "SCTP socket options");
	}
	sock->sk->sk_rcvtimeo = SCTP_RAW_WAIT;
	return sock;
}

/* One message on stream @sid, unordered, as DDP sends (RFC 5043 §5). */
int sctp_raw_send(struct socket *sock, u16 sid, u32 ppid, const void *buf,
		  u32 len)
{
	union {
		struct cmsghdr h;
		u8 buf[CMSG_SPACE(sizeof(struct sctp_sndinfo))];
	} cm = {};
	struct sctp_sndinfo *info = (void *)(cm.buf + sizeof(cm.h));
	struct msghdr msg = { .msg_control = &cm,
			      .msg_controllen = sizeof(cm) };
	struct kvec v = { .iov_base = (void *)buf, .iov_len = len };

	cm.h.cmsg_level = IPPROTO_SCTP;
	cm.h.cmsg_type = SCTP_SNDINFO;
	cm.h.cmsg_len = CMSG_LEN(sizeof(*info));
	info->snd_sid = sid;
	info->snd_flags = SCTP_UNORDERED;
	info->snd_ppid = (__force u32)cpu_to_be32(ppid);
	return kernel_sendmsg(sock, &msg, &v, 1, len);
}

/*
 * The next message (its first @size octets), its stream and PPID;
 * -EAGAIN after the receive timeout, or at once with MSG_DONTWAIT.
 */
int sctp_raw_recv(struct socket *sock, u16 *sid, u32 *ppid, u8 *buf,
		  u32 size, int flags)
{
	union {
		struct cmsghdr h;
		u8 buf[CMSG_SPACE(sizeof(struct sctp_rcvinfo))];
	} cm = {};
	struct msghdr msg = { .msg_control = &cm,
			      .msg_controllen = sizeof(cm) };
	struct kvec v = { .iov_base = buf, .iov_len = size };
	struct sctp_rcvinfo info;
	int n;

	n = kernel_recvmsg(sock, &msg, &v, 1, size, flags);
	if (n <= 0)
		return n;
	memcpy(&info, cm.buf + sizeof(cm.h), sizeof(info));
	*sid = info.rcv_sid;
	*ppid = be32_to_cpu((__force __be32)info.rcv_ppid);
	return n;
}
