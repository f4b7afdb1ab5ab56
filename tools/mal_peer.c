// SPDX-License-Identifier: GPL-2.0
/*
 * mal_peer: a hostile iWARP peer on a plain TCP socket.
 *
 * It completes a valid MPA v2 handshake with an rdma_victim listener,
 * sends one crafted segment (mal_ddp.c's, or an MPA case of its own; or,
 * for read-flood, thousands of Read Requests), and checks that the
 * Terminate which comes back carries the error RFC 5040/5041/5044
 * require.  One TAP line.
 *
 * usage: mal_peer ADDR PORT CASE      (mal_peer --list: the cases)
 *
 * Wire formats come from include/sw_ddp, as in the kernel.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sw_ddp/mpa.h>
#include "mal_ddp.h"

#define TIMEOUT_MS	5000
#define FRAME_MAX	MAL_SEG_MAX

struct peer {
	int fd;
	bool crc;
	struct victim_info v;
};

struct mal_case {
	const char *name;
	bool want_crc;
	/* Build the ULPDU (a DDP Segment); return its length. */
	u32 (*build)(const struct victim_info *v, u8 *ulpdu);
	/* Spoil the framed FPDU, if the case is about MPA itself. */
	void (*mangle)(u8 *fpdu, u32 len);
	/* Send the FPDU's first URGENT_LEN octets as TCP urgent data. */
	bool urgent;
	/* Instead of one segment, a flood of Read Requests (read-flood). */
	bool flood;
	struct sw_ddp_term_err expect;
};

/* The urgent mark lands on the last of them: a DDP header octet. */
#define URGENT_LEN	(MPA_ULPDU_LEN_SIZE + 1)

/* CRC32c (Castagnoli), bitwise: slow and obviously right, for a tool. */
static u32 crc32c(u32 crc, const u8 *p, size_t len)
{
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = crc >> 1 ^ (0x82f63b78 & -(crc & 1));
	}
	return crc;
}

/* read-flood: what is left to send as we read, an FPDU at each read. */
static const u8 *more;
static u32 more_len, more_step;

static void send_more(int fd)
{
	ssize_t n = send(fd, more, more_len < more_step ? more_len : more_step,
			 MSG_DONTWAIT | MSG_NOSIGNAL);

	if (n > 0) {
		more += n;
		more_len -= n;
	} else if (errno != EAGAIN) {
		more_len = 0;
	}
}

static int read_full(int fd, void *buf, size_t len)
{
	struct pollfd pfd = { .fd = fd };
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		pfd.events = POLLIN | (more_len ? POLLOUT : 0);
		if (poll(&pfd, 1, TIMEOUT_MS) <= 0)
			return -ETIMEDOUT;
		if (pfd.revents & POLLOUT)
			send_more(fd);
		if (!(pfd.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = read(fd, (u8 *)buf + got, len - got);
		if (n <= 0)
			return n ? -errno : -ECONNRESET;
		got += n;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t len)
{
	return write(fd, buf, len) == (ssize_t)len ? 0 : -EIO;
}

/* RFC 5044 / RFC 6581: MPA v2 request, IRD = ORD = 4, no markers. */
static int mpa_connect(struct peer *p, bool crc)
{
	u8 frame[sizeof(struct mpa_rr_hdr) + sizeof(struct mpa_v2_conn_data)];
	struct mpa_rr_hdr *h = (struct mpa_rr_hdr *)frame;
	struct mpa_v2_conn_data *v2 = (void *)(h + 1);
	u8 pd[MPA_PD_MAX];
	u16 pd_len;

	memcpy(h->key, MPA_KEY_REQ, MPA_KEY_LEN);
	h->flags = MPA_FLAG_ENHANCED | (crc ? MPA_FLAG_C : 0);
	h->rev = MPA_REV_2;
	h->pd_len = cpu_to_be16(sizeof(*v2));
	v2->ird = cpu_to_be16(4);
	v2->ord = cpu_to_be16(4);
	if (write_full(p->fd, frame, sizeof(frame)) ||
	    read_full(p->fd, h, sizeof(*h)))
		return -EIO;
	pd_len = mpa_rr_pd_len(h);
	if (memcmp(h->key, MPA_KEY_REP, MPA_KEY_LEN) ||
	    h->flags & MPA_FLAG_R || pd_len > sizeof(pd) ||
	    read_full(p->fd, pd, pd_len))
		return -EPROTO;
	/* RFC 5044: CRCs are used if either side asked for them. */
	p->crc = crc || h->flags & MPA_FLAG_C;
	if (h->flags & MPA_FLAG_ENHANCED && pd_len >= sizeof(*v2) +
	    sizeof(p->v)) {
		memcpy(&p->v, pd + sizeof(*v2), sizeof(p->v));
		return 0;
	}
	return -EPROTO;
}

static u32 fpdu_frame(const struct peer *p, u8 *out, const u8 *ulpdu,
		      u32 len)
{
	struct mpa_fpdu_hdr *h = (struct mpa_fpdu_hdr *)out;
	u32 n = MPA_ULPDU_LEN_SIZE + len, crc;

	h->ulpdu_len = cpu_to_be16(len);
	memcpy(out + MPA_ULPDU_LEN_SIZE, ulpdu, len);
	memset(out + n, 0, mpa_pad_len(len));
	n += mpa_pad_len(len);
	crc = p->crc ? ~crc32c(~0U, out, n) : 0;
	out[n++] = crc;
	out[n++] = crc >> 8;
	out[n++] = crc >> 16;
	out[n++] = crc >> 24;
	return n;
}

/*
 * RFC 5044 "CRC Calculation": one payload bit of a good Write (its header
 * passes, so only the CRC can catch the flip) flipped after the CRC.
 */
static void m_flip_bit(u8 *fpdu, u32 len)
{
	fpdu[MPA_ULPDU_LEN_SIZE + DDP_TAGGED_HDR_LEN + 3] ^= 0x08;
}

/*
 * read-flood: Read Requests for the victim's read-only region, far more
 * than it can answer while we read nothing.  Its Read Responses fill
 * both ends' buffers, its IRD fills, and the next Read Request has no
 * buffer (RFC 5041 §7.2: 0x2/0x02).  The Terminate then waits behind
 * megabytes of Read Responses, which we read slowly while our Read
 * Requests keep coming: the close that follows it must not reset the
 * connection before the Terminate is out (RFC 5040 §5.4: the stream's
 * last message).
 */
#define FLOOD_READS	8192	/* the first half, then one at each read */
#define FLOOD_FPDU	(MPA_ULPDU_LEN_SIZE + DDP_UNTAGGED_HDR_LEN + \
			 RDMAP_READ_REQ_LEN + MPA_CRC_SIZE)
#define FLOOD_STALL_MS	500	/* no room this long: the victim stopped */
#define FLOOD_READ_US	500	/* between FPDUs read, while sending */
#define FLOOD_RCVBUF	16384	/* a small window: the rest waits to go */

static u32 flood_build(const struct peer *p, u8 *out)
{
	u8 ulpdu[DDP_UNTAGGED_HDR_LEN + RDMAP_READ_REQ_LEN];
	struct rdmap_read_req rr = {
		.sink_stag = 0x1200,	/* ours: never checked by the victim */
		.size = be32toh(p->v.ro_len),
		.src_stag = be32toh(p->v.ro_stag),
		.src_to = be64toh(p->v.ro_addr),
	};
	u32 i, n = 0;

	for (i = 0; i < FLOOD_READS; i++) {
		rdmap_untagged_init((struct ddp_untagged_hdr *)ulpdu,
				    RDMAP_OP_READ_REQ, true, 0, i + 1, 0);
		rdmap_read_req_put((void *)(ulpdu + DDP_UNTAGGED_HDR_LEN), &rr);
		n += fpdu_frame(p, out + n, ulpdu, sizeof(ulpdu));
	}
	return n;
}

/* Send @len octets, or as many as the victim takes; return how many. */
static u32 flood_send(int fd, const u8 *buf, u32 len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	u32 off = 0;
	ssize_t n;

	while (off < len) {
		n = send(fd, buf + off, len - off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0)
			off += n;
		else if ((n < 0 && errno != EAGAIN) ||
			 poll(&pfd, 1, FLOOD_STALL_MS) <= 0)
			break;
	}
	return off;
}

/*
 * The MPA cases; the DDP/RDMAP ones (mal_ddp.c) come first.
 *
 * urgent-mark: TCP's urgent mark (MSG_OOB) inside an FPDU, whose Terminate
 * proves the octet under the mark was read in line and the stream went on
 * past the mark.  (Left to tcp_read_sock(), the stream stopped there for
 * good: no Terminate; an octet taken out of line would leave the FPDU
 * short, and no Terminate either.)
 */
static const struct mal_case mpa_cases[] = {
	{ .name = "bad-crc", .want_crc = true, .build = mal_good_write,
	  .mangle = m_flip_bit, .expect = MPA_ERR_CRC },
	{ .name = "urgent-mark", .build = mal_bad_stag, .urgent = true,
	  .expect = DDP_ERR_T_INVALID_STAG },
	{ .name = "read-flood", .flood = true,
	  .expect = DDP_ERR_UT_MSN_NO_BUF },
};

/* The FPDU, all of it, or its first octets as urgent data, then the rest. */
static int send_fpdu(const struct mal_case *c, int fd, const u8 *fpdu,
		     u32 len)
{
	if (!c->urgent)
		return write_full(fd, fpdu, len);
	if (send(fd, fpdu, URGENT_LEN, MSG_OOB) != URGENT_LEN)
		return -EIO;
	return write_full(fd, fpdu + URGENT_LEN, len - URGENT_LEN);
}

/* Read FPDUs until a Terminate; return its error. */
static int read_terminate(struct peer *p, struct sw_ddp_term_err *err)
{
	static u8 buf[FRAME_MAX];
	struct ddp_untagged_hdr *h = (void *)buf;
	struct rdmap_term_hdr *t = (void *)(h + 1);
	struct mpa_fpdu_hdr fh;
	u32 len;
	int rc;

	for (;;) {
		rc = read_full(p->fd, &fh, sizeof(fh));
		if (rc)
			return rc;
		len = mpa_fpdu_ulpdu_len(&fh);
		rc = read_full(p->fd, buf, len + mpa_pad_len(len) +
				   MPA_CRC_SIZE);
		if (rc)
			return rc;
		if (more_len)	/* read-flood: a slow reader, still sending */
			usleep(FLOOD_READ_US);
		if (len >= sizeof(*h) + sizeof(*t) &&
		    !ddp_ctrl_tagged(h->ctrl) &&
		    rdmap_ctrl_opcode(h->rsvdulp0) == RDMAP_OP_TERMINATE)
			break;
	}
	*err = rdmap_term_ctrl_err(t->ctrl);
	return 0;
}

/* @rcvbuf: a receive buffer that small (0: the system's). */
static int connect_to(const char *addr, const char *port, int rcvbuf)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sin.sin_port = htons(atoi(port));
	if (fd < 0 || inet_pton(AF_INET, addr, &sin.sin_addr) != 1 ||
	    (rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				  sizeof(rcvbuf))) ||
	    connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("mal_peer: connect");
		return -1;
	}
	return fd;
}

static int run(const struct mal_case *c, const char *addr, const char *port)
{
	static u8 ulpdu[FRAME_MAX], fpdu[FRAME_MAX + 16];
	static u8 flood[FLOOD_READS * FLOOD_FPDU];
	struct sw_ddp_term_err got;
	struct peer p = {};
	u32 len;
	int rc;

	p.fd = connect_to(addr, port, c->flood ? FLOOD_RCVBUF : 0);
	if (p.fd < 0 || mpa_connect(&p, c->want_crc)) {
		printf("not ok - %s: MPA handshake failed\n", c->name);
		return 1;
	}
	if (c->flood) {
		len = flood_build(&p, flood);
		more = flood + flood_send(p.fd, flood, len / 2);
		more_len = flood + len - more;
		more_step = FLOOD_FPDU;
		rc = 0;
	} else {
		len = fpdu_frame(&p, fpdu, ulpdu, c->build(&p.v, ulpdu));
		if (c->mangle)
			c->mangle(fpdu, len);
		rc = send_fpdu(c, p.fd, fpdu, len);
	}
	if (!rc)
		rc = read_terminate(&p, &got);
	close(p.fd);
	if (rc) {
		printf("not ok - %s: no Terminate (%s)\n", c->name,
		       strerror(-rc));
		return 1;
	}
	if (!sw_ddp_term_err_eq(got, c->expect)) {
		printf("not ok - %s: Terminate %x/%x/%02x, want %x/%x/%02x\n",
		       c->name, got.layer, got.etype, got.ecode,
		       c->expect.layer, c->expect.etype, c->expect.ecode);
		return 1;
	}
	printf("ok - %s: Terminate %x/%x/%02x\n", c->name, got.layer,
	       got.etype, got.ecode);
	return 0;
}

/* Case @i of all: the DDP/RDMAP ones, then the MPA ones. */
static bool case_at(unsigned int i, struct mal_case *c)
{
	if (i < mal_seg_ncases) {
		const struct mal_seg_case *s = &mal_seg_cases[i];

		*c = (struct mal_case){ .name = s->name, .build = s->build,
					.expect = s->expect };
		return true;
	}
	i -= mal_seg_ncases;
	if (i >= ARRAY_SIZE(mpa_cases))
		return false;
	*c = mpa_cases[i];
	return true;
}

int main(int argc, char **argv)
{
	struct mal_case c;
	unsigned int i;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (i = 0; case_at(i, &c); i++)
			printf("%s\n", c.name);
		return 0;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: %s ADDR PORT CASE | --list\n", argv[0]);
		return 2;
	}
	for (i = 0; case_at(i, &c); i++)
		if (!strcmp(c.name, argv[3]))
			return run(&c, argv[1], argv[2]);
	fprintf(stderr, "mal_peer: no case %s\n", argv[3]);
	return 2;
}
