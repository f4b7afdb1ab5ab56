// SPDX-License-Identifier: GPL-2.0
/*
 * mal_peer_sctp: a hostile iWARP peer over SCTP (RFC 5043).
 *
 * On a one-to-one SCTP socket it opens an association with an rdma_victim
 * listener on a sw_ddp_sctp device, indicating DDP adaptation (or not),
 * opens a DDP Stream Session on one stream pair (an Initiate carrying the
 * case's name as private data; the Accept brings the victim's STags), then
 * breaks one rule of RFC 5043 or sends one of mal_ddp.c's segments in a
 * DDP Segment Chunk, and checks what comes back on the session's stream:
 *
 *   - an RDMAP Terminate (PPID 16) with the exact RFC 5040/5041 error,
 *     then the Session Terminate (PPID 17, function 0x004): a segment the
 *     DDP/RDMAP engine refused;
 *   - the Session Terminate alone: a chunk that breaks RFC 5043 itself
 *     (sctp_ddp.h: "ends the DDP Stream Session ... with a Session
 *     Terminate message"; no RDMAP Terminate, which has no error for it);
 *   - the association aborted: no DDP adaptation indicated (§11.1);
 *   - nothing at all: a chunk that belongs to no session is dropped.
 *
 * Every chunk that comes back must be on the session's stream, unordered
 * (§10), PPID 16 or 17 (§5.2), numbered from DDP-SSN 0 without gaps
 * (§5.2.1, §6.1), and nothing may follow the final one.  One TAP line.
 *
 * rdma_victim tags each connection with the Initiate's private data; with
 * --check-victim its log is checked against how each case must leave its
 * victim QP: none, refused, or in ERROR (through a fatal error, or after
 * a graceful close) with the guard memory intact.
 *
 * With --serve it is the passive end instead: it listens, takes one
 * association from a sw_ddp_sctp client (rping -c, say), and answers its
 * Initiate as the case says, on whichever stream the Initiate came.
 *
 * usage: mal_peer_sctp ADDR PORT CASE
 *        mal_peer_sctp --serve ADDR PORT CASE
 *        mal_peer_sctp --list | --victims | --check-victim LOG
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/sctp.h>

#include <sw_ddp/sctp_ddp.h>
#include "mal_ddp.h"

#define TIMEOUT_MS	5000
#define ACCEPT_MS	15000	/* the victim sets up its QP under emulation */
#define QUIET_MS	1000	/* how long "nothing comes back" is watched */
#define FINAL_MS	300	/* and after the final chunk */
#define NSTREAMS	16	/* §8: in and out alike */
#define STREAM		5	/* the session's stream pair: not 0 */
#define SERVE_MS	60000	/* --serve: for the client to come */
#define RX_SSN_MAX	16	/* the victim's chunks kept, by DDP-SSN */
/*
 * The largest DDP Segment sw_ddp takes (sctp_llp.h SW_DDP_SCTP_SEG_MAX):
 * what one unfragmented DATA chunk carries after its DDP-SSN.
 */
#define SEG_LIMIT	(65535 - 16 - 2)
#define MSG_MAX		(sizeof(struct sctp_ddp_seg_chunk) + MAL_SEG_MAX)

enum adapt {
	ADAPT_DDP,	/* 0x00000001 in INIT (§5.1) */
	ADAPT_NONE,	/* no Adaptation Layer Indication */
	ADAPT_OTHER,	/* some other adaptation */
};

/* How the case must leave the victim's QP (rdma_victim's report). */
enum victim_end {
	V_NONE,		/* no connection request reaches it */
	V_REFUSED,	/* one does, but the accept fails */
	V_ERR,		/* ERROR, guards intact */
	V_FATAL,	/* ERROR through a fatal error: IBV_EVENT_QP_FATAL */
	V_CLEAN,	/* ERROR after a graceful close: no async error */
};

/* One chunk of the victim's, its DDP-SSN taken off. */
struct rx_chunk {
	bool got;
	u32 ppid;
	u32 len;
	u8 data[64];	/* its first octets */
};

struct peer {
	int fd;
	int sid;		/* the session's stream; -1: the first chunk's */
	bool up;		/* SCTP_COMM_UP came */
	u16 tx_ssn;		/* our next DDP-SSN (§5.2.1) */
	u16 rx_next;		/* the victim's next DDP-SSN to look at */
	bool adapt_seen;	/* the victim's indication (§11.1) */
	u32 adapt_ind;
	struct victim_info v;
	struct rx_chunk rx[RX_SSN_MAX];
	char what[200];		/* what came back, or what went wrong */
};

struct sctp_case {
	const char *name;
	int (*run)(struct peer *p, const struct sctp_case *c);
	enum victim_end victim;
	enum adapt adapt;
	u32 arg;
	const struct mal_seg_case *seg;	/* the DDP/RDMAP cases */
};

/* One message out or in; one segment being built. */
static u8 msg[MSG_MAX];
static u8 seg[MAL_SEG_MAX];

static int say(struct peer *p, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->what, sizeof(p->what), fmt, ap);
	va_end(ap);
	return rc;
}

#define fail(p, ...)	say(p, -1, __VA_ARGS__)

/* The association */

static int sctp_setopt(int fd, int opt, const void *val, socklen_t len)
{
	return setsockopt(fd, IPPROTO_SCTP, opt, val, len);
}

static int sctp_subscribe(int fd, u16 type)
{
	struct sctp_event ev = {
		.se_assoc_id = SCTP_FUTURE_ASSOC, .se_type = type, .se_on = 1,
	};

	return sctp_setopt(fd, SCTP_EVENT, &ev, sizeof(ev));
}

/* §8: equal stream counts; §5.1: the adaptation indication, or not. */
static int sctp_sock(enum adapt adapt)
{
	struct sctp_initmsg init = {
		.sinit_num_ostreams = NSTREAMS,
		.sinit_max_instreams = NSTREAMS,
	};
	struct sctp_setadaptation ad = {
		.ssb_adaptation_ind = adapt == ADAPT_OTHER ? 0x00000002 :
				      SCTP_DDP_ADAPT_IND_DDP,
	};
	int on = 1, fd = socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);

	if (fd < 0)
		return -1;
	if (sctp_setopt(fd, SCTP_INITMSG, &init, sizeof(init)) ||
	    (adapt != ADAPT_NONE &&
	     sctp_setopt(fd, SCTP_ADAPTATION_LAYER, &ad, sizeof(ad))) ||
	    sctp_setopt(fd, SCTP_RECVRCVINFO, &on, sizeof(on)) ||
	    sctp_subscribe(fd, SCTP_ASSOC_CHANGE) ||
	    sctp_subscribe(fd, SCTP_ADAPTATION_INDICATION) ||
	    sctp_subscribe(fd, SCTP_SHUTDOWN_EVENT)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One message on the session's stream, unordered (§10). */
static int sctp_send(struct peer *p, u32 ppid, const void *buf, size_t len,
		     int flags)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct sctp_sndinfo))];
	} cm = {};
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = &cm, .msg_controllen = sizeof(cm),
	};
	struct sctp_sndinfo *si = (void *)CMSG_DATA(&cm.h);

	cm.h.cmsg_level = IPPROTO_SCTP;
	cm.h.cmsg_type = SCTP_SNDINFO;
	cm.h.cmsg_len = CMSG_LEN(sizeof(*si));
	si->snd_sid = p->sid;
	si->snd_flags = SCTP_UNORDERED;
	si->snd_ppid = htonl(ppid);
	if (sendmsg(p->fd, &m, MSG_NOSIGNAL | flags) != (ssize_t)len)
		return fail(p, "send: %s", strerror(errno));
	return 0;
}

/* A DDP payload data chunk: DDP-SSN @ssn, then @len octets of @body. */
static int send_chunk(struct peer *p, u32 ppid, u16 ssn, const void *body,
		      u32 len, int flags)
{
	struct sctp_ddp_seg_chunk *c = (void *)msg;

	c->ssn = cpu_to_be16(ssn);
	memmove(msg + sizeof(*c), body, len);
	return sctp_send(p, ppid, msg, sizeof(*c) + len, flags);
}

/* §5.2.2: a DDP Segment Chunk with our next DDP-SSN. */
static int send_seg(struct peer *p, const void *seg, u32 len)
{
	return send_chunk(p, SCTP_DDP_PPID_SEGMENT, p->tx_ssn++, seg, len, 0);
}

/* §5.2.3: a DDP Stream Session Control message at DDP-SSN @ssn. */
static int send_ctrl_at(struct peer *p, u16 ssn, u16 func, const void *pdata,
			u32 len, int flags)
{
	u8 body[sizeof(__be16) + 1024];
	__be16 f = cpu_to_be16(func);

	if (len > sizeof(body) - sizeof(f))
		return fail(p, "private data too long for the tool");
	memcpy(body, &f, sizeof(f));
	memcpy(body + sizeof(f), pdata, len);
	return send_chunk(p, SCTP_DDP_PPID_SESSION_CTRL, ssn, body,
			  sizeof(f) + len, flags);
}

static int send_ctrl(struct peer *p, u16 func, const void *pdata, u32 len)
{
	return send_ctrl_at(p, p->tx_ssn++, func, pdata, len, 0);
}

/* What comes back */

static void on_notification(struct peer *p, const union sctp_notification *n,
			    ssize_t len, int *end)
{
	if (len < (ssize_t)sizeof(n->sn_header))
		return;
	switch (n->sn_header.sn_type) {
	case SCTP_ASSOC_CHANGE:
		if (n->sn_assoc_change.sac_state == SCTP_COMM_LOST ||
		    n->sn_assoc_change.sac_state == SCTP_CANT_STR_ASSOC)
			*end = -ECONNRESET;
		else if (n->sn_assoc_change.sac_state == SCTP_SHUTDOWN_COMP)
			*end = -ESHUTDOWN;
		else if (n->sn_assoc_change.sac_state == SCTP_COMM_UP)
			p->up = true;
		break;
	case SCTP_ADAPTATION_INDICATION:
		p->adapt_seen = true;
		p->adapt_ind = n->sn_adaptation_event.sai_adaptation_ind;
		break;
	case SCTP_SHUTDOWN_EVENT:
		*end = -ESHUTDOWN;
		break;
	}
}

static int wait_readable(int fd, long ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, ms > 0 ? ms : 0);
}

/* Keep a data message: each rule of §5.2, §6.1 and §10 it must keep. */
static int on_data(struct peer *p, const struct sctp_rcvinfo *ri, int flags,
		   ssize_t n)
{
	u32 ppid = ntohl(ri->rcv_ppid);
	struct rx_chunk *c;
	u16 ssn;

	if (!(flags & MSG_EOR))
		return fail(p, "a message larger than %zu octets", MSG_MAX);
	if (p->sid < 0)
		p->sid = ri->rcv_sid;
	if (ri->rcv_sid != p->sid)
		return fail(p, "a chunk on stream %u, not %d (§6)",
			    ri->rcv_sid, p->sid);
	if (!(ri->rcv_flags & SCTP_UNORDERED))
		return fail(p, "an ordered chunk (§10: U = 1)");
	if (ppid != SCTP_DDP_PPID_SEGMENT && ppid != SCTP_DDP_PPID_SESSION_CTRL)
		return fail(p, "a chunk with PPID %u (§5.2)", ppid);
	if (n < (ssize_t)sizeof(struct sctp_ddp_seg_chunk))
		return fail(p, "a chunk of %zd octets", n);
	ssn = sctp_ddp_ssn(msg);
	if (ssn >= RX_SSN_MAX || p->rx[ssn].got)
		return fail(p, "DDP-SSN %u out of sequence (§6.1)", ssn);
	c = &p->rx[ssn];
	c->got = true;
	c->ppid = ppid;
	c->len = n - sizeof(struct sctp_ddp_seg_chunk);
	memcpy(c->data, msg + sizeof(struct sctp_ddp_seg_chunk),
	       c->len < sizeof(c->data) ? c->len : sizeof(c->data));
	return 0;
}

/*
 * Read one message within @ms.  Return 1 (a chunk kept), 0 (nothing came,
 * or a notification that ends nothing), -1 (it broke a rule: p->what), or
 * the association's end: -ECONNRESET (aborted) or -ESHUTDOWN (shut down).
 */
static int sctp_recv(struct peer *p, long ms)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct sctp_rcvinfo))];
	} cm;
	struct iovec iov = { .iov_base = msg, .iov_len = sizeof(msg) };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = &cm, .msg_controllen = sizeof(cm),
	};
	struct cmsghdr *h;
	int end = 0;
	ssize_t n;

	if (wait_readable(p->fd, ms) <= 0)
		return 0;
	n = recvmsg(p->fd, &m, 0);
	if (n < 0 && (errno == ECONNRESET || errno == ECONNREFUSED))
		return -ECONNRESET;
	if (n < 0 && errno == ENOTCONN)
		return -ESHUTDOWN;
	if (n < 0)
		return fail(p, "recv: %s", strerror(errno));
	if (!n && !(m.msg_flags & MSG_NOTIFICATION))
		return -ESHUTDOWN;
	if (m.msg_flags & MSG_NOTIFICATION) {
		on_notification(p, (void *)msg, n, &end);
		return end;
	}
	for (h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h))
		if (h->cmsg_level == IPPROTO_SCTP &&
		    h->cmsg_type == SCTP_RCVINFO)
			break;
	if (!h)
		return fail(p, "a message without SCTP_RCVINFO");
	return on_data(p, (void *)CMSG_DATA(h), m.msg_flags, n) ?: 1;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *end_str(int end)
{
	return end == -ECONNRESET ? "the association was aborted" :
	       "the association was shut down";
}

/*
 * Connect without blocking and wait for SCTP_COMM_UP: an association the
 * victim aborts as soon as it is up (§11.1) has still come up first.
 */
static int sctp_open(struct peer *p, const char *addr, const char *port,
		     enum adapt adapt)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	long deadline = now_ms() + TIMEOUT_MS;
	int fl, rc;

	sin.sin_port = htons(atoi(port));
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		return fail(p, "bad address %s", addr);
	p->fd = sctp_sock(adapt);
	if (p->fd < 0)
		return fail(p, "SCTP socket: %s", strerror(errno));
	fl = fcntl(p->fd, F_GETFL);
	if (fl < 0 || fcntl(p->fd, F_SETFL, fl | O_NONBLOCK) ||
	    (connect(p->fd, (struct sockaddr *)&sin, sizeof(sin)) &&
	     errno != EINPROGRESS))
		return fail(p, "SCTP connect: %s", strerror(errno));
	while (!p->up) {
		rc = sctp_recv(p, deadline - now_ms());
		if (rc == 1)
			return fail(p, "data before SCTP_COMM_UP");
		if (rc == -1)
			return rc;
		if (rc < 0)
			return fail(p, "no association: %s", end_str(rc));
		if (!rc && now_ms() >= deadline)
			return fail(p, "no SCTP_COMM_UP within %d ms",
				    TIMEOUT_MS);
	}
	if (fcntl(p->fd, F_SETFL, fl))
		return fail(p, "fcntl: %s", strerror(errno));
	return 0;
}

/* The victim's chunk at DDP-SSN @ssn, waiting @ms for it; NULL: p->what. */
static const struct rx_chunk *chunk_at(struct peer *p, u16 ssn, int ms)
{
	long deadline = now_ms() + ms;
	int rc;

	if (ssn >= RX_SSN_MAX) {
		fail(p, "more chunks than the tool keeps");
		return NULL;
	}
	while (!p->rx[ssn].got) {
		rc = sctp_recv(p, deadline - now_ms());
		if (rc == 1)
			continue;
		if (rc == 0 && now_ms() < deadline)
			continue;
		if (rc == 0)
			fail(p, "nothing at DDP-SSN %u within %d ms", ssn, ms);
		else if (rc != -1)
			fail(p, "%s before DDP-SSN %u came", end_str(rc), ssn);
		return NULL;
	}
	return &p->rx[ssn];
}

static u16 ctrl_func(const struct rx_chunk *c)
{
	return c->ppid == SCTP_DDP_PPID_SESSION_CTRL && c->len >= 2 ?
	       be16_to_cpu(*(const __be16 *)c->data) : 0;
}

static const char *func_str(u16 func)
{
	static const char *const names[] = {
		"control 0", "Initiate", "Accept", "Reject", "Terminate",
	};

	return func < ARRAY_SIZE(names) ? names[func] : "unknown control";
}

/* An RDMAP Terminate (RFC 5040 "Terminate Header"); its error in @err. */
static bool rdmap_terminate(const struct rx_chunk *c,
			    struct sw_ddp_term_err *err)
{
	const struct ddp_untagged_hdr *h = (const void *)c->data;
	const struct rdmap_term_hdr *t = (const void *)(h + 1);

	if (c->ppid != SCTP_DDP_PPID_SEGMENT ||
	    c->len < sizeof(*h) + sizeof(*t) || ddp_ctrl_tagged(h->ctrl) ||
	    rdmap_ctrl_opcode(h->rsvdulp0) != RDMAP_OP_TERMINATE ||
	    be32_to_cpu(h->qn) != RDMAP_QN_TERMINATE)
		return false;
	*err = rdmap_term_ctrl_err(t->ctrl);
	return true;
}

/* Nothing more within @ms; the association may end meanwhile. */
static int nothing_more(struct peer *p, int ms, bool may_end)
{
	long deadline = now_ms() + ms;
	int rc;

	while (now_ms() < deadline) {
		rc = sctp_recv(p, deadline - now_ms());
		if (rc == 1)
			return fail(p, "a chunk at DDP-SSN %u after the last",
				    p->rx_next);
		if (rc == -1)
			return rc;
		if (rc < 0)
			return may_end ? 0 : fail(p, "%s", end_str(rc));
	}
	return 0;
}

/*
 * From the victim's DDP-SSN p->rx_next on: @rdmap's RDMAP Terminate (or,
 * with @rdmap NULL, no segment at all), then the Session Terminate with
 * no private data (§5.2.3), which is final (§6.2).
 */
static int expect_terminates(struct peer *p, const struct sw_ddp_term_err *rdmap)
{
	const struct rx_chunk *c;
	struct sw_ddp_term_err got = {};
	bool term = false;
	u16 func;

	for (;; p->rx_next++) {
		c = chunk_at(p, p->rx_next, TIMEOUT_MS);
		if (!c)
			return -1;
		if (c->ppid == SCTP_DDP_PPID_SEGMENT) {
			if (!rdmap_terminate(c, &got))
				return fail(p, "a segment %02x %02x at DDP-SSN %u",
					    c->data[0], c->data[1], p->rx_next);
			if (!rdmap || term)
				return fail(p, "RDMAP Terminate %x/%x/%02x: want %s",
					    got.layer, got.etype, got.ecode,
					    rdmap ? "one" : "none");
			if (!sw_ddp_term_err_eq(got, *rdmap))
				return fail(p, "RDMAP Terminate %x/%x/%02x, want %x/%x/%02x",
					    got.layer, got.etype, got.ecode,
					    rdmap->layer, rdmap->etype,
					    rdmap->ecode);
			term = true;
			continue;
		}
		func = ctrl_func(c);
		if (func != SCTP_DDP_FUNC_TERMINATE)
			return fail(p, "a Session %s at DDP-SSN %u, want Terminate",
				    func_str(func), p->rx_next);
		if (c->len != sizeof(__be16))
			return fail(p, "%u octets of private data on a Session Terminate",
				    c->len - 2);
		if (rdmap && !term)
			return fail(p, "a Session Terminate without the RDMAP Terminate");
		break;
	}
	p->rx_next++;
	if (nothing_more(p, FINAL_MS, true))
		return -1;
	if (!rdmap)
		return say(p, 0, "Session Terminate");
	return say(p, 0, "RDMAP Terminate %x/%x/%02x, Session Terminate",
		   got.layer, got.etype, got.ecode);
}

/* @c is a Session Control message of function @func, or p->what says. */
static int want_ctrl(struct peer *p, const struct rx_chunk *c, u16 func,
		     const char *what)
{
	if (ctrl_func(c) == func)
		return 0;
	return fail(p, "%s: %s, not %s", what,
		    c->ppid == SCTP_DDP_PPID_SEGMENT ? "a segment" :
		    func_str(ctrl_func(c)), func_str(func));
}

/* §6.2: Initiate (the case's name as private data), then the Accept. */
static int session_open(struct peer *p, const char *name)
{
	const struct rx_chunk *c;

	if (send_ctrl(p, SCTP_DDP_FUNC_INITIATE, name, strlen(name)))
		return -1;
	c = chunk_at(p, 0, ACCEPT_MS);
	if (!c)
		return -1;
	if (want_ctrl(p, c, SCTP_DDP_FUNC_ACCEPT, "the Initiate's answer"))
		return -1;
	if (c->len != sizeof(__be16) + sizeof(p->v))
		return fail(p, "an Accept with %u octets of private data",
			    c->len - 2);
	/* §11.1: the victim indicated DDP in its INIT-ACK */
	if (!p->adapt_seen || p->adapt_ind != SCTP_DDP_ADAPT_IND_DDP)
		return fail(p, "no DDP adaptation indication from the victim");
	memcpy(&p->v, c->data + sizeof(__be16), sizeof(p->v));
	p->rx_next = 1;
	return 0;
}

/* The cases */

/* mal_ddp.c's segment in a DDP Segment Chunk: DDP/RDMAP refuse it. */
static int x_segment(struct peer *p, const struct sctp_case *c)
{
	if (session_open(p, c->name) ||
	    send_seg(p, seg, c->seg->build(&p->v, seg)))
		return -1;
	return expect_terminates(p, &c->seg->expect);
}

/* §5.2: a good Write under a PPID that is neither 16 nor 17. */
static int x_bad_ppid(struct peer *p, const struct sctp_case *c)
{
	if (session_open(p, c->name) ||
	    send_chunk(p, c->arg, p->tx_ssn++, seg, mal_good_write(&p->v, seg),
		       0))
		return -1;
	return expect_terminates(p, NULL);
}

/* §11.1: DDP procedures MUST NOT be performed: the Initiate goes nowhere. */
static int x_no_ddp(struct peer *p, const struct sctp_case *c)
{
	long deadline = now_ms() + TIMEOUT_MS;
	int rc;

	/* it may be too late to send: the abort is what counts */
	send_ctrl(p, SCTP_DDP_FUNC_INITIATE, c->name, strlen(c->name));
	while (now_ms() < deadline) {
		rc = sctp_recv(p, deadline - now_ms());
		if (rc == 1)
			return fail(p, "a DDP chunk on an association without DDP");
		if (rc == -ECONNRESET)
			return say(p, 0, "association aborted");
		if (rc < 0)
			return rc == -1 ? rc : fail(p, "%s", end_str(rc));
	}
	return fail(p, "the association is still up");
}

/* §10: a good Write at a DDP-SSN past the window (next + arg). */
static int x_ssn_gap(struct peer *p, const struct sctp_case *c)
{
	if (session_open(p, c->name) ||
	    send_chunk(p, SCTP_DDP_PPID_SEGMENT, p->tx_ssn + c->arg, seg,
		       mal_good_write(&p->v, seg), 0))
		return -1;
	return expect_terminates(p, NULL);
}

/*
 * §10: a good Write at DDP-SSN next + arg, placed (in turn, or ahead of
 * it), then the same DDP-SSN again: a replay.
 */
static int x_ssn_replay(struct peer *p, const struct sctp_case *c)
{
	u32 len;

	if (session_open(p, c->name))
		return -1;
	len = mal_good_write(&p->v, seg);
	if (send_chunk(p, SCTP_DDP_PPID_SEGMENT, p->tx_ssn + c->arg, seg, len,
		       0) ||
	    nothing_more(p, QUIET_MS, false) ||
	    send_chunk(p, SCTP_DDP_PPID_SEGMENT, p->tx_ssn + c->arg, seg, len,
		       0))
		return -1;
	return expect_terminates(p, NULL);
}

/*
 * §6.1: a stream's first chunk a DDP Segment, not an Initiate: it belongs
 * to no session and is dropped unanswered (sctp_session.c); the stream
 * is still free for a session, which then closes gracefully.
 */
static int x_seg_before_initiate(struct peer *p, const struct sctp_case *c)
{
	if (send_chunk(p, SCTP_DDP_PPID_SEGMENT, 0, seg,
		       mal_send_msg(seg, 1, 0, 16), 0) ||
	    nothing_more(p, QUIET_MS, false) ||
	    session_open(p, c->name) ||
	    send_ctrl(p, SCTP_DDP_FUNC_TERMINATE, NULL, 0))
		return -1;
	return expect_terminates(p, NULL);
}

/*
 * §6.2: segments follow the Accept (Documentation/sctp.rst: "a segment
 * before the Accept" ends the session).  The Initiate and a Send in one
 * SCTP packet (MSG_MORE), so the Send arrives before the ULP can accept:
 * the Initiate is answered by a Terminate, and the ULP's accept fails.
 */
static int x_seg_before_accept(struct peer *p, const struct sctp_case *c)
{
	if (send_ctrl_at(p, p->tx_ssn++, SCTP_DDP_FUNC_INITIATE, c->name,
			 strlen(c->name), MSG_MORE) ||
	    send_seg(p, seg, mal_send_msg(seg, 1, 0, 16)))
		return -1;
	return expect_terminates(p, NULL);
}

/* The case's name, padded with zeros to @len octets of private data. */
static u32 name_pdata(u8 *pd, const char *name, u32 len)
{
	memset(pd, 0, len);
	memcpy(pd, name, strlen(name));
	return len;
}

/*
 * §5.2.3: an Initiate with arg octets of private data: over 512, or more
 * than the ULP can be given whole (iw_cm carries 255 at most): either
 * way the Initiate is not forwarded and a Terminate answers it.
 */
static int x_initiate_pdata(struct peer *p, const struct sctp_case *c)
{
	u8 pd[1024];

	if (send_ctrl(p, SCTP_DDP_FUNC_INITIATE, pd,
		      name_pdata(pd, c->name, c->arg)))
		return -1;
	return expect_terminates(p, NULL);
}

/* A Session Control message, function arg, once the session is up. */
static int x_ctrl(struct peer *p, const struct sctp_case *c, const void *pd,
		  u32 len)
{
	if (session_open(p, c->name) || send_ctrl(p, c->arg, pd, len))
		return -1;
	return expect_terminates(p, NULL);
}

/* §5.2.3: private data on a Terminate */
static int x_term_pdata(struct peer *p, const struct sctp_case *c)
{
	static const u8 pd[4] = { 1, 2, 3, 4 };

	return x_ctrl(p, c, pd, sizeof(pd));
}

/* §5.2.3 an unknown function code, §6.2 a second Initiate */
static int x_bad_ctrl(struct peer *p, const struct sctp_case *c)
{
	return x_ctrl(p, c, NULL, 0);
}

/* §5.2: chunks shorter than their fixed part, arg octets after DDP-SSN */
static int x_short(struct peer *p, const struct sctp_case *c, u32 ppid)
{
	static const u8 body[2];

	if (session_open(p, c->name) ||
	    send_chunk(p, ppid, p->tx_ssn++, body, c->arg, 0))
		return -1;
	return expect_terminates(p, NULL);
}

static int x_short_segment(struct peer *p, const struct sctp_case *c)
{
	return x_short(p, c, SCTP_DDP_PPID_SEGMENT);
}

static int x_short_control(struct peer *p, const struct sctp_case *c)
{
	return x_short(p, c, SCTP_DDP_PPID_SESSION_CTRL);
}

/* RFC 5041 §4.2: a segment cut inside its tagged header (arg octets) */
static int x_truncated(struct peer *p, const struct sctp_case *c)
{
	static const struct sw_ddp_term_err want = DDP_ERR_LOCAL_CATASTROPHIC;

	if (session_open(p, c->name))
		return -1;
	mal_good_write(&p->v, seg);
	if (send_seg(p, seg, c->arg))
		return -1;
	return expect_terminates(p, &want);
}

/*
 * §9: a Write of arg octets, header included, to the 4 KiB read/write
 * region.  Up to SEG_LIMIT the LLP takes it and DDP refuses its bounds;
 * above, the LLP refuses its size first: no RDMAP Terminate.
 */
static int x_seg_size(struct peer *p, const struct sctp_case *c)
{
	static const struct sw_ddp_term_err bounds = DDP_ERR_T_BASE_BOUNDS;
	u32 len;

	if (session_open(p, c->name))
		return -1;
	len = mal_write_to(seg, be32toh(p->v.rw_stag), be64toh(p->v.rw_addr),
			   c->arg - DDP_TAGGED_HDR_LEN);
	if (send_seg(p, seg, len))
		return -1;
	return expect_terminates(p, c->arg <= SEG_LIMIT ? &bounds : NULL);
}

/*
 * §6.1, sctp_seq.c: a gap at the next DDP-SSN, then Sends beyond it
 * until what the victim must hold for their turn passes its cap (8 MiB):
 * the session ends rather than memory running out.  arg: Sends at most.
 */
static int x_hold_flood(struct peer *p, const struct sctp_case *c)
{
	u32 len, i;
	int rc;

	if (session_open(p, c->name))
		return -1;
	len = mal_send_msg(seg, 2, 0, 60000);
	for (i = 1; i <= c->arg; i++) {
		if (send_chunk(p, SCTP_DDP_PPID_SEGMENT, p->tx_ssn + i, seg,
			       len, 0))
			return -1;
		rc = sctp_recv(p, 0);
		if (rc == 1)
			break;
		if (rc < 0)
			return rc == -1 ? rc : fail(p, "%s", end_str(rc));
	}
	return expect_terminates(p, NULL);
}

/* The control: a good Write, then a graceful close by our Terminate. */
static int x_clean_close(struct peer *p, const struct sctp_case *c)
{
	if (session_open(p, c->name) ||
	    send_seg(p, seg, mal_good_write(&p->v, seg)) ||
	    send_ctrl(p, SCTP_DDP_FUNC_TERMINATE, NULL, 0))
		return -1;
	return expect_terminates(p, NULL);
}

#define CASE(n, fn, v, ...) \
	{ .name = (n), .run = (fn), .victim = (v), __VA_ARGS__ }

static const struct sctp_case sctp_cases[] = {
	CASE("control-clean-close", x_clean_close, V_CLEAN),
	CASE("bad-ppid", x_bad_ppid, V_FATAL, .arg = 99),
	CASE("no-adaptation", x_no_ddp, V_NONE, .adapt = ADAPT_NONE),
	CASE("other-adaptation", x_no_ddp, V_NONE, .adapt = ADAPT_OTHER),
	CASE("ssn-beyond-window", x_ssn_gap, V_FATAL,
	     .arg = SCTP_DDP_SSN_WINDOW_MAX),
	CASE("ssn-replay", x_ssn_replay, V_FATAL, .arg = 0),
	CASE("ssn-replay-ahead", x_ssn_replay, V_FATAL, .arg = 2),
	CASE("seg-before-initiate", x_seg_before_initiate, V_CLEAN),
	CASE("seg-before-accept", x_seg_before_accept, V_REFUSED),
	CASE("initiate-pdata-513", x_initiate_pdata, V_NONE,
	     .arg = SCTP_DDP_PDATA_MAX + 1),
	CASE("initiate-pdata-300", x_initiate_pdata, V_NONE, .arg = 300),
	CASE("terminate-pdata", x_term_pdata, V_FATAL,
	     .arg = SCTP_DDP_FUNC_TERMINATE),
	CASE("unknown-function", x_bad_ctrl, V_FATAL, .arg = 0x005),
	CASE("second-initiate", x_bad_ctrl, V_FATAL,
	     .arg = SCTP_DDP_FUNC_INITIATE),
	CASE("empty-segment", x_short_segment, V_FATAL, .arg = 0),
	CASE("short-control", x_short_control, V_FATAL, .arg = 1),
	CASE("truncated-header", x_truncated, V_ERR, .arg = 8),
	CASE("seg-at-limit", x_seg_size, V_ERR, .arg = SEG_LIMIT),
	CASE("seg-over-limit", x_seg_size, V_FATAL, .arg = SEG_LIMIT + 1),
	CASE("msg-over-64k", x_seg_size, V_FATAL, .arg = 70000),
	CASE("hold-flood", x_hold_flood, V_FATAL, .arg = 200),
};

/* Case @i of all: the SCTP ones, then mal_ddp.c's in segment chunks. */
static bool case_at(unsigned int i, struct sctp_case *c)
{
	if (i < ARRAY_SIZE(sctp_cases)) {
		*c = sctp_cases[i];
		return true;
	}
	i -= ARRAY_SIZE(sctp_cases);
	if (i >= mal_seg_ncases)
		return false;
	*c = (struct sctp_case)CASE(mal_seg_cases[i].name, x_segment, V_ERR,
				    .seg = &mal_seg_cases[i]);
	return true;
}

/*
 * --serve: the client's Initiate (any private data), answered by an
 * Accept with arg octets of private data.  §5.2.3 allows 512; iw_cm
 * gives a ULP 255 at most (a u8 length), so the client cannot take more
 * whole: its connect fails, and its Session Terminate ends the session.
 */
static int s_accept_pdata(struct peer *p, const struct sctp_case *c)
{
	const struct rx_chunk *in = chunk_at(p, 0, SERVE_MS);
	u8 pd[1024];

	if (!in)
		return -1;
	if (want_ctrl(p, in, SCTP_DDP_FUNC_INITIATE, "the client's first chunk"))
		return -1;
	if (!p->adapt_seen || p->adapt_ind != SCTP_DDP_ADAPT_IND_DDP)
		return fail(p, "no DDP adaptation indication from the client");
	p->rx_next = 1;
	if (send_ctrl(p, SCTP_DDP_FUNC_ACCEPT, pd,
		      name_pdata(pd, c->name, c->arg)))
		return -1;
	return expect_terminates(p, NULL);
}

static const struct sctp_case serve_cases[] = {
	CASE("accept-pdata-300", s_accept_pdata, V_NONE, .arg = 300),
};

/* Listen on ADDR:PORT ("listening" once it does), take one association. */
static int sctp_serve(struct peer *p, const char *addr, const char *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int lfd = sctp_sock(ADAPT_DDP);

	sin.sin_port = htons(atoi(port));
	if (lfd < 0)
		return fail(p, "SCTP socket: %s", strerror(errno));
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1 ||
	    bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) || listen(lfd, 1)) {
		close(lfd);
		return fail(p, "SCTP listen on %s:%s: %s", addr, port,
			    strerror(errno));
	}
	printf("listening\n");
	fflush(stdout);
	if (wait_readable(lfd, SERVE_MS) > 0)
		p->fd = accept(lfd, NULL, NULL);
	close(lfd);
	if (p->fd < 0)
		return fail(p, "no association within %d ms", SERVE_MS);
	return 0;
}

/* One case, as the active end or (@serve) the passive one. */
static int run(const struct sctp_case *c, const char *addr, const char *port,
	       bool serve)
{
	struct peer p = { .fd = -1, .sid = serve ? -1 : STREAM };
	long start = now_ms();
	int rc;

	rc = serve ? sctp_serve(&p, addr, port) :
		     sctp_open(&p, addr, port, c->adapt);
	if (!rc)
		rc = c->run(&p, c);
	if (p.fd >= 0)
		close(p.fd);
	printf("%s - %s%s: %s (%ld ms)\n", rc ? "not ok" : "ok",
	       serve ? "serve " : "", c->name, p.what, now_ms() - start);
	return !!rc;
}

/* rdma_victim's report on the case: "victim: conn N [NAME]: ..." */
static const char *victim_line(char *log, const char *name)
{
	char tag[128];
	char *line;

	snprintf(tag, sizeof(tag), " [%s]: ", name);
	for (line = strtok(log, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, "victim: ", 8) && strstr(line, tag) &&
		    !strstr(line, ": request, "))
			return line;
	return NULL;
}

static const char *const victim_want[] = {
	[V_NONE] = NULL,
	[V_REFUSED] = "setup failed",
	[V_ERR] = "qp_state ERR async * guards intact",
	[V_FATAL] = "qp_state ERR async local work queue catastrophic error guards intact",
	[V_CLEAN] = "qp_state ERR async none guards intact",
};

static bool victim_ok(const char *line, enum victim_end want)
{
	const char *w = victim_want[want], *star;

	if (!w)
		return !line;
	if (!line)
		return false;
	star = strchr(w, '*');
	if (!star)
		return strstr(line, w);
	/* "qp_state ERR async X guards intact", any X */
	line = strstr(line, "qp_state ERR async ");
	return line && strstr(line, star + 1);
}

static int check_victims(const char *path)
{
	static char log[1 << 20], copy[sizeof(log)];
	struct sctp_case c;
	const char *line;
	unsigned int i;
	size_t n;
	int bad = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		return 2;
	}
	n = fread(log, 1, sizeof(log) - 1, f);
	fclose(f);
	log[n] = 0;
	for (i = 0; case_at(i, &c); i++) {
		memcpy(copy, log, n + 1);
		line = victim_line(copy, c.name);
		if (victim_ok(line, c.victim)) {
			printf("ok - victim of %s: %s\n", c.name,
			       line ?: "no connection");
			continue;
		}
		bad = 1;
		printf("not ok - victim of %s: %s, want %s\n", c.name,
		       line ?: "no connection",
		       victim_want[c.victim] ?: "no connection");
	}
	return bad;
}

int main(int argc, char **argv)
{
	struct sctp_case c;
	unsigned int i, n = 0;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (i = 0; case_at(i, &c); i++)
			printf("%s\n", c.name);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--victims")) {
		for (i = 0; case_at(i, &c); i++)
			n += c.victim != V_NONE;
		printf("%u\n", n);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--check-victim"))
		return check_victims(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "--serve")) {
		for (i = 0; i < ARRAY_SIZE(serve_cases); i++)
			if (!strcmp(serve_cases[i].name, argv[4]))
				return run(&serve_cases[i], argv[2], argv[3],
					   true);
		fprintf(stderr, "mal_peer_sctp: no serve case %s\n", argv[4]);
		return 2;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: %s ADDR PORT CASE | --list | --victims\n"
			"       %s --serve ADDR PORT CASE\n"
			"       %s --check-victim LOG\n",
			argv[0], argv[0], argv[0]);
		return 2;
	}
	for (i = 0; case_at(i, &c); i++)
		if (!strcmp(c.name, argv[3]))
			return run(&c, argv[1], argv[2], false);
	fprintf(stderr, "mal_peer_sctp: no case %s\n", argv[3]);
	return 2;
}
