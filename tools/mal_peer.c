// SPDX-License-Identifier: GPL-2.0
/*
 * mal_peer: a hostile iWARP peer on a plain TCP socket.
 *
 * It completes a valid MPA v2 handshake with an rdma_victim listener,
 * sends one crafted segment, and checks that the Terminate which comes
 * back carries the error RFC 5040/5041/5044 require.  One TAP line.
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

#include <sw_ddp/ddp.h>
#include <sw_ddp/mpa.h>
#include <sw_ddp/rdmap.h>
#include "victim.h"

#define TIMEOUT_MS	5000
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define FRAME_MAX	(70 * 1024)

struct peer {
	int fd;
	bool crc;
	u32 msn;
	struct victim_info v;
};

struct mal_case {
	const char *name;
	bool want_crc;
	/* Build the ULPDU; return its length. */
	u32 (*build)(struct peer *p, u8 *ulpdu);
	void (*mangle)(struct peer *p, u8 *fpdu, u32 len);
	struct sw_ddp_term_err expect;
};

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

static int read_full(int fd, void *buf, size_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		if (poll(&pfd, 1, TIMEOUT_MS) <= 0)
			return -ETIMEDOUT;
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

static u32 write_to(u8 *ulpdu, u32 stag, u64 to, u32 len)
{
	rdmap_tagged_init((struct ddp_tagged_hdr *)ulpdu, RDMAP_OP_WRITE,
			  true, stag, to);
	memset(ulpdu + DDP_TAGGED_HDR_LEN, 0x5a, len);
	return DDP_TAGGED_HDR_LEN + len;
}

static u32 send_msg(u8 *ulpdu, u32 msn, u32 mo, u32 len)
{
	rdmap_untagged_init((struct ddp_untagged_hdr *)ulpdu, RDMAP_OP_SEND,
			    true, 0, msn, mo);
	memset(ulpdu + DDP_UNTAGGED_HDR_LEN, 0x5a, len);
	return DDP_UNTAGGED_HDR_LEN + len;
}

static u32 rw_stag(const struct peer *p)
{
	return be32toh(p->v.rw_stag);
}

static u64 rw_addr(const struct peer *p)
{
	return be64toh(p->v.rw_addr);
}

/* RFC 5041 §7.1: an STag naming nothing, and one with the wrong key */
static u32 b_bad_stag(struct peer *p, u8 *u)
{
	return write_to(u, rw_stag(p) + 0x1000, rw_addr(p), 64);
}

static u32 b_wrong_key(struct peer *p, u8 *u)
{
	return write_to(u, rw_stag(p) ^ 0x01, rw_addr(p), 64);
}

/* RFC 5041 §8.2: STag of another PD (not associated with the stream) */
static u32 b_other_pd(struct peer *p, u8 *u)
{
	return write_to(u, be32toh(p->v.other_stag),
			be64toh(p->v.other_addr), 64);
}

/* RFC 5041 §7.1: base and bounds */
static u32 b_out_of_bounds(struct peer *p, u8 *u)
{
	return write_to(u, rw_stag(p),
			rw_addr(p) + be32toh(p->v.rw_len) - 16, 64);
}

static u32 b_below_base(struct peer *p, u8 *u)
{
	return write_to(u, rw_stag(p), rw_addr(p) - 8, 64);
}

static u32 b_to_wrap(struct peer *p, u8 *u)
{
	return write_to(u, rw_stag(p), ~0ULL - 8, 64);
}

/* RFC 5040: RDMA Write to an STag without remote write access */
static u32 b_write_read_only(struct peer *p, u8 *u)
{
	return write_to(u, be32toh(p->v.ro_stag), be64toh(p->v.ro_addr), 64);
}

/* RFC 5041 §7.1 untagged: bad QN, MSN with no buffer, MO, too long */
static u32 b_bad_qn(struct peer *p, u8 *u)
{
	u32 n = send_msg(u, 1, 0, 16);

	((struct ddp_untagged_hdr *)u)->qn = cpu_to_be32(5);
	return n;
}

static u32 b_far_msn(struct peer *p, u8 *u)
{
	return send_msg(u, 1000, 0, 16);
}

/* MSN 0 is behind the first buffer's MSN 1 (RFC 5041 §4.3: MSNs start at 1) */
static u32 b_old_msn(struct peer *p, u8 *u)
{
	return send_msg(u, 0, 0, 16);
}

static u32 b_bad_mo(struct peer *p, u8 *u)
{
	return send_msg(u, 1, be32toh(p->v.recv_len) + 64, 16);
}

static u32 b_too_long(struct peer *p, u8 *u)
{
	return send_msg(u, 1, 0, be32toh(p->v.recv_len) + 1);
}

/* RFC 5040 §4.1: an opcode that does not exist, an RDMAP version 2 */
static u32 b_bad_opcode(struct peer *p, u8 *u)
{
	u32 n = send_msg(u, 1, 0, 16);

	((struct ddp_untagged_hdr *)u)->rsvdulp0 = rdmap_ctrl_make(0xb);
	return n;
}

static u32 b_bad_rdmap_version(struct peer *p, u8 *u)
{
	u32 n = send_msg(u, 1, 0, 16);

	((struct ddp_untagged_hdr *)u)->rsvdulp0 =
		(2 << 6) | RDMAP_OP_SEND;
	return n;
}

/* RFC 5041 §4.1: DDP version must be 1 */
static u32 b_bad_ddp_version(struct peer *p, u8 *u)
{
	u32 n = write_to(u, rw_stag(p), rw_addr(p), 64);

	u[0] = (u[0] & ~DDP_CTRL_DV_MASK) | 2;
	return n;
}

/* A good Write: its header passes, so only the CRC can catch the flip. */
static u32 b_good_write(struct peer *p, u8 *u)
{
	return write_to(u, rw_stag(p), rw_addr(p), 64);
}

/* RFC 5044 "CRC Calculation": one payload bit flipped after the CRC */
static void m_flip_bit(struct peer *p, u8 *fpdu, u32 len)
{
	fpdu[MPA_ULPDU_LEN_SIZE + DDP_TAGGED_HDR_LEN + 3] ^= 0x08;
}

static const struct mal_case cases[] = {
	{ "bad-stag", false, b_bad_stag, NULL, DDP_ERR_T_INVALID_STAG },
	{ "wrong-key", false, b_wrong_key, NULL, DDP_ERR_T_INVALID_STAG },
	{ "other-pd", false, b_other_pd, NULL, DDP_ERR_T_STAG_NOT_ASSOC },
	{ "out-of-bounds", false, b_out_of_bounds, NULL,
	  DDP_ERR_T_BASE_BOUNDS },
	{ "below-base", false, b_below_base, NULL, DDP_ERR_T_BASE_BOUNDS },
	{ "to-wrap", false, b_to_wrap, NULL, DDP_ERR_T_TO_WRAP },
	{ "write-read-only", false, b_write_read_only, NULL,
	  RDMAP_ERR_PROT_ACCESS },
	{ "bad-qn", false, b_bad_qn, NULL, DDP_ERR_UT_INVALID_QN },
	{ "far-msn", false, b_far_msn, NULL, DDP_ERR_UT_MSN_NO_BUF },
	{ "old-msn", false, b_old_msn, NULL, DDP_ERR_UT_MSN_RANGE },
	{ "bad-mo", false, b_bad_mo, NULL, DDP_ERR_UT_INVALID_MO },
	{ "too-long", false, b_too_long, NULL, DDP_ERR_UT_TOO_LONG },
	{ "bad-opcode", false, b_bad_opcode, NULL, RDMAP_ERR_OP_OPCODE },
	{ "bad-rdmap-version", false, b_bad_rdmap_version, NULL,
	  RDMAP_ERR_OP_VERSION },
	{ "bad-ddp-version", false, b_bad_ddp_version, NULL,
	  DDP_ERR_T_VERSION },
	{ "bad-crc", true, b_good_write, m_flip_bit, MPA_ERR_CRC },
};

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
		if (len >= sizeof(*h) + sizeof(*t) &&
		    !ddp_ctrl_tagged(h->ctrl) &&
		    rdmap_ctrl_opcode(h->rsvdulp0) == RDMAP_OP_TERMINATE)
			break;
	}
	*err = rdmap_term_ctrl_err(t->ctrl);
	return 0;
}

static int connect_to(const char *addr, const char *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sin.sin_port = htons(atoi(port));
	if (fd < 0 || inet_pton(AF_INET, addr, &sin.sin_addr) != 1 ||
	    connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("mal_peer: connect");
		return -1;
	}
	return fd;
}

static int run(const struct mal_case *c, const char *addr, const char *port)
{
	static u8 ulpdu[FRAME_MAX], fpdu[FRAME_MAX + 16];
	struct sw_ddp_term_err got;
	struct peer p = { .msn = 1 };
	u32 len;
	int rc;

	p.fd = connect_to(addr, port);
	if (p.fd < 0 || mpa_connect(&p, c->want_crc)) {
		printf("not ok - %s: MPA handshake failed\n", c->name);
		return 1;
	}
	len = fpdu_frame(&p, fpdu, ulpdu, c->build(&p, ulpdu));
	if (c->mangle)
		c->mangle(&p, fpdu, len);
	rc = write_full(p.fd, fpdu, len);
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

int main(int argc, char **argv)
{
	size_t i;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (i = 0; i < ARRAY_SIZE(cases); i++)
			printf("%s\n", cases[i].name);
		return 0;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: %s ADDR PORT CASE | --list\n", argv[0]);
		return 2;
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		if (!strcmp(cases[i].name, argv[3]))
			return run(&cases[i], argv[1], argv[2]);
	fprintf(stderr, "mal_peer: no case %s\n", argv[3]);
	return 2;
}
