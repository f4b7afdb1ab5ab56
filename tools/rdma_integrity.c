// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_integrity: check, byte for byte, that data sent over an RC QP
 * arrives as it left, on the paths an iWARP provider may send by
 * reference (zero copy): Read Responses (sw_ddp, siw), and unsignalled
 * RDMA Writes and Sends of a page or more (siw; sw_ddp copies those, as
 * their buffers may be reused while TCP can still retransmit).
 *
 * Each round has its own pseudo-random pattern, a function of the round
 * and of the byte's offset, so either side can compute what any byte
 * should be.  The server's MR holds the layout below twice; round N
 * writes half N % 2.  A round:
 *
 *  1. the client writes each region from its source buffer into the
 *     server's MR with unsignalled RDMA Writes (varied sizes, SGE counts
 *     and alignments) and posts a signalled Send right behind them.  When
 *     that Send completes, every WR before it has too (an RC send queue
 *     completes in order), so the client overwrites its source buffer at
 *     once, as an application reusing it would ("scribble"; -k leaves
 *     it), and only then waits for the verdict;
 *  2. the server, on that Send, checks all of its MR, both halves and the
 *     guard bytes around every region, and answers ok or what went wrong
 *     where;
 *  3. RDMA Reads, all unsignalled but the last, bring the half the round
 *     before wrote (the guard, in round 1) into a guard-filled buffer,
 *     and the client checks all of that buffer.  As many of them as the
 *     ORD allows go before the Writes, so that each side receives while
 *     it sends; after the last round the client reads that round's half
 *     back the same way;
 *  4. the client sends a few messages into the server's posted receives,
 *     unsignalled, then a signalled Send, scribbles and waits; the server
 *     checks each message, its length and the receive buffer past it.
 *
 * A mismatch ends both sides with status 1 and the offset, expected and
 * actual bytes; no progress for -t seconds ends them with status 3.
 *
 * usage: rdma_integrity -s|-c ADDR PORT [-n ROUNDS] [-t SECONDS] [-k]
 */
#include <errno.h>
#include <endian.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define PAGE		4096u
#define MAGIC		0x494e5447u	/* "INTG" */
#define GAP		64u		/* least guard between two regions */
#define SGE_GAP		100u		/* between one Write's source SGEs */
#define MAX_SGE		6		/* siw's and libsiw's SIW_MAX_SGE */
#define RECV_LEN	65536u		/* each of the server's receives */
#define NRECV		16
#define CTRL_NRECV	4
#define SEND_SLOT	(RECV_LEN + 2 * PAGE)
#define DEPTH		16		/* initiator depth, responder resources */
#define SHOW		16		/* bytes shown from the first bad one */

/* Pattern streams: what the bytes are for, mixed into their seed. */
enum stream { S_DATA = 1, S_SEND, S_GUARD, S_RB_GUARD, S_RECV_GUARD };

/* Where a source starts in its slot, round by round. */
enum src_mode { ALIGNED, FIXED, WANDER };

struct region {
	uint32_t len;
	uint32_t dst_mis;	/* where in its page the target starts */
	enum src_mode mode;
	uint32_t src_mis;	/* FIXED: where in its slot the source starts */
	int nsge;		/* the Write gathers this many SGEs */
	uint32_t sge_gap;	/* between its source SGEs, if not SGE_GAP */
	/* set by layout_init() */
	uint32_t dst;		/* offset in the server's MR */
	uint32_t slot;		/* source slot in the client's buffer */
};

#define REG(l, dm, m, sm, n) \
	{ .len = (l), .dst_mis = (dm), .mode = (m), .src_mis = (sm), .nsge = (n) }
#define REG_GAP(l, dm, m, sm, n, g) \
	{ .len = (l), .dst_mis = (dm), .mode = (m), .src_mis = (sm), \
	  .nsge = (n), .sge_gap = (g) }

/*
 * Sixteen 64 KiB regions, then odd sizes: a page, a page and a byte,
 * 64 KiB less one, 1 MiB, misaligned on both sides, a three-SGE gather,
 * two below a page (copied, not sent by reference), and a six-SGE gather
 * whose SGEs each cover a part of four pages of their own (10000 octets
 * from offset 3000 in a page): 24 pieces of one 60000-octet segment where
 * the MTU allows one (65000 in make check).
 */
static struct region regions[] = {
	REG(65536, 0, ALIGNED, 0, 1),	 REG(65536, 0, WANDER, 0, 1),
	REG(65536, 0, FIXED, 1, 1),	 REG(65536, 512, ALIGNED, 0, 1),
	REG(65536, 0, ALIGNED, 0, 1),	 REG(65536, 0, WANDER, 0, 1),
	REG(65536, 2048, WANDER, 0, 1),	 REG(65536, 4095, FIXED, 4095, 1),
	REG(65536, 0, ALIGNED, 0, 1),	 REG(65536, 8, WANDER, 0, 1),
	REG(65536, 0, FIXED, 2048, 1),	 REG(65536, 1, ALIGNED, 0, 1),
	REG(65536, 0, ALIGNED, 0, 1),	 REG(65536, 0, WANDER, 0, 1),
	REG(65536, 100, WANDER, 0, 1),	 REG(65536, 0, ALIGNED, 0, 1),
	REG(4096, 0, ALIGNED, 0, 1),	 REG(4097, 0, WANDER, 0, 1),
	REG(65535, 7, FIXED, 1, 1),	 REG(1 << 20, 0, ALIGNED, 0, 1),
	REG(8191, 123, FIXED, 3001, 1),	 REG(30000, 0, WANDER, 0, 3),
	REG(4095, 0, WANDER, 0, 1),	 REG(1, 77, WANDER, 0, 1),
	REG_GAP(60000, 0, FIXED, 3000, 6, 3 * PAGE - 10000),
};

#define NREG	ARRAY_SIZE(regions)

/* The Sends of step 4; the last is below a page, so it is copied. */
static const struct send_spec {
	uint32_t len;
	enum src_mode mode;
	uint32_t src_mis;
} sends[] = {
	{ .len = 65536, .mode = ALIGNED }, { .len = 65536, .mode = WANDER },
	{ .len = 65535, .mode = FIXED, .src_mis = 1 },
	{ .len = 4097, .mode = WANDER }, { .len = 100, .mode = WANDER },
};

#define NSEND	ARRAY_SIZE(sends)

static uint32_t half_len;	/* one copy of the layout */
static uint32_t mr_len;		/* the server's MR: two of them */
static uint32_t src_len;	/* the client's source buffer */

/* Accept private data: the server's MR. */
struct integ_mr {
	uint32_t magic;
	uint32_t nreg;
	uint32_t len;
	uint32_t rkey;
	uint64_t addr;
} __packed;

/* Connect private data: how many rounds the client will run. */
struct integ_hello {
	uint32_t magic;
	uint32_t rounds;
} __packed;

enum msg_kind { WRITES_DONE = 1, SENDS_DONE, VERDICT };

/* What the server found. */
enum verdict { V_OK, V_DATA, V_LEN, V_GUARD };

/* Control Sends, both ways, in network byte order. */
struct integ_msg {
	uint32_t magic;
	uint32_t kind;
	uint32_t round;
	uint32_t verdict;
	uint32_t where;		/* region or Send index */
	uint32_t show;		/* valid bytes in expected[], actual[] */
	/* V_DATA, V_GUARD: the first bad byte (MR or Send offset) */
	uint64_t off;		/* V_LEN: the length that came */
	uint8_t expected[SHOW];
	uint8_t actual[SHOW];
} __packed;

struct side {
	bool server, keep;
	int rounds;
	unsigned int timeout;
	struct rdma_event_channel *ech;
	struct rdma_cm_id *listen_id, *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *sch, *rch;
	struct ibv_cq *scq, *rcq;
	bool sarmed, rarmed;
	/* server: data is its MR; client: the Write sources */
	uint8_t *data, *recv, *ctrl, *rb, *sbuf;
	size_t data_len, recv_len, rb_len, sbuf_len;
	struct ibv_mr *data_mr, *recv_mr, *ctrl_mr, *rb_mr, *sbuf_mr;
	uint64_t peer_addr;		/* client: the server's MR */
	uint32_t peer_rkey;
	uint32_t ord;			/* client: Reads in flight at once */
	struct integ_msg *out;		/* control Send buffer */
};

static const char *phase = "setup";
static int cur_round;
static sig_atomic_t failing;	/* set before the alarm is armed */

static void on_alarm(int sig)
{
	char msg[160];
	int n;

	(void)sig;
	if (failing)
		_exit(1);	/* the peer did not hang up in time */
	n = snprintf(msg, sizeof(msg),
		     "integrity: TIMEOUT in round %d (%s): no progress\n",
		     cur_round, phase);
	if (write(2, msg, n) < 0)
		_exit(3);
	_exit(3);
}

static noreturn void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "integrity: FAILED in round %d (%s): ", cur_round,
		phase);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

/* ---- patterns ---------------------------------------------------- */

/* splitmix64's finaliser */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t seed(enum stream st, int round)
{
	return mix64(((uint64_t)st << 32) | (uint32_t)round);
}

/* Byte @off of pattern @s. */
static uint8_t pat_byte(uint64_t s, uint64_t off)
{
	return mix64(s ^ (off >> 3)) >> ((off & 7) * 8);
}

/* Bytes [@off, @off + @len) of pattern @s into @buf. */
static void pat_fill(uint8_t *buf, size_t len, uint64_t s, uint64_t off)
{
	size_t i = 0;
	uint64_t v;

	for (; i < len && (off + i) & 7; i++)
		buf[i] = pat_byte(s, off + i);
	for (; i + 8 <= len; i += 8) {
		v = htole64(mix64(s ^ ((off + i) >> 3)));
		memcpy(buf + i, &v, 8);
	}
	for (; i < len; i++)
		buf[i] = pat_byte(s, off + i);
}

/* Where @buf first differs from pattern @s at @off, or -1. */
static long pat_check(const uint8_t *buf, size_t len, uint64_t s,
		      uint64_t off)
{
	uint8_t want[4096];
	size_t done, n, i;

	for (done = 0; done < len; done += n) {
		n = len - done < sizeof(want) ? len - done : sizeof(want);
		pat_fill(want, n, s, off + done);
		if (!memcmp(buf + done, want, n))
			continue;
		for (i = 0; buf[done + i] == want[i]; i++)
			;
		return done + i;
	}
	return -1;
}

static void show_bytes(const char *what, const uint8_t *b, uint32_t n)
{
	uint32_t i;

	fprintf(stderr, "  %s:", what);
	for (i = 0; i < n; i++)
		fprintf(stderr, " %02x", b[i]);
	fprintf(stderr, "\n");
}

/*
 * A verdict (or a message) about the @n bytes at @buf, which should be
 * pattern @s from @s_off: where they first differ, @bad, and up to SHOW
 * bytes of expected and actual from there.
 */
static void verdict_set(struct integ_msg *v, enum verdict what,
			uint32_t where, uint64_t off, const uint8_t *buf,
			size_t n, size_t bad, uint64_t s, uint64_t s_off)
{
	uint32_t i;

	v->verdict = htobe32(what);
	v->where = htobe32(where);
	v->off = htobe64(off);
	for (i = 0; i < SHOW && bad + i < n; i++) {
		v->actual[i] = buf[bad + i];
		v->expected[i] = pat_byte(s, s_off + bad + i);
	}
	v->show = htobe32(i);
}

static void verdict_bytes(const struct integ_msg *v)
{
	uint32_t n = be32toh(v->show);

	n = n < SHOW ? n : SHOW;
	show_bytes("expected", v->expected, n);
	show_bytes("actual  ", v->actual, n);
}

/* ---- layout ------------------------------------------------------ */

static uint32_t round_up(uint32_t x, uint32_t to)
{
	return (x + to - 1) / to * to;
}

static uint32_t region_gap(const struct region *r)
{
	return r->sge_gap ? r->sge_gap : SGE_GAP;
}

/*
 * The regions in table order, guard bytes around each: a half of the
 * server's MR.  Round N writes half N % 2 and reads the other back.
 */
static void layout_init(void)
{
	uint32_t dst = PAGE, slot = 0, i;

	for (i = 0; i < NREG; i++) {
		struct region *r = &regions[i];

		r->dst = dst + r->dst_mis;
		dst = round_up(r->dst + r->len + GAP, PAGE);
		r->slot = slot;
		slot += round_up(r->len + r->nsge * region_gap(r) + PAGE,
				 PAGE);
	}
	half_len = dst + PAGE;
	mr_len = 2 * half_len;
	src_len = slot;
}

/* Where in the server's MR round @round writes region @i. */
static uint64_t region_to(uint32_t i, int round)
{
	return (uint64_t)(round % 2) * half_len + regions[i].dst;
}

/*
 * What half @half of the server's MR holds once round @round has written
 * its half: that round's pattern, the last round's, or (none yet) the
 * guard; indexed by MR offset.
 */
static uint64_t half_pattern(uint32_t half, int round, int *from)
{
	*from = (uint32_t)round % 2 == half ? round : round - 1;
	return *from ? seed(S_DATA, *from) : seed(S_GUARD, 0);
}

static uint32_t src_shift(enum src_mode mode, uint32_t mis, int round,
			  uint32_t i)
{
	switch (mode) {
	case FIXED:
		return mis;
	case WANDER:
		return (round * 1237u + i * 311u) % PAGE;
	default:
		return 0;
	}
}

/* The readback buffer is the server's MR moved by this much. */
static uint32_t rb_shift(int round)
{
	return (round * 389u) % PAGE;
}

/*
 * SGE @k of region @i's Write in round @round: its source offset, its
 * length, and where in the region it lands.
 */
static void region_sge(uint32_t i, int round, int k, uint32_t *src,
		       uint32_t *len, uint32_t *at)
{
	const struct region *r = &regions[i];
	uint32_t piece = r->len / r->nsge;

	*at = piece * k;
	*len = k == r->nsge - 1 ? r->len - *at : piece;
	*src = r->slot + src_shift(r->mode, r->src_mis, round, i) + *at +
	       k * region_gap(r);
}

/* Source offset of byte @k of region @i in round @round. */
static uint64_t region_src_of(uint32_t i, uint32_t k, int round)
{
	uint32_t src, len, at;
	int j;

	for (j = 0; j < regions[i].nsge; j++) {
		region_sge(i, round, j, &src, &len, &at);
		if (k < at + len)
			return src + (k - at);
	}
	return 0;
}

static uint32_t send_src(uint32_t j, int round)
{
	return j * SEND_SLOT + src_shift(sends[j].mode, sends[j].src_mis,
					 round, j);
}

/* ---- verbs and rdma_cm plumbing ----------------------------------- */

static uint8_t *buf_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap %zu: %s", len, strerror(errno));
	return p;
}

static struct ibv_mr *reg(struct side *s, void *buf, size_t len, int acc)
{
	struct ibv_mr *mr = ibv_reg_mr(s->pd, buf, len, acc);

	if (!mr)
		die("ibv_reg_mr of %zu bytes: %s", len, strerror(errno));
	return mr;
}

static struct rdma_cm_event *cm_event(struct side *s,
				      enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(s->ech, &ev))
		die("rdma_get_cm_event: %s", strerror(errno));
	if (ev->event != want)
		die("%s instead of %s (status %d)", rdma_event_str(ev->event),
		    rdma_event_str(want), ev->status);
	return ev;
}

static void make_qp(struct side *s)
{
	struct ibv_context *ctx = s->id->verbs;
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = NRECV,
			 .max_send_sge = MAX_SGE, .max_recv_sge = 1 },
	};

	s->pd = ibv_alloc_pd(ctx);
	s->sch = ibv_create_comp_channel(ctx);
	s->rch = ibv_create_comp_channel(ctx);
	if (!s->pd || !s->sch || !s->rch)
		die("PD or completion channel: %s", strerror(errno));
	s->scq = ibv_create_cq(ctx, 128, NULL, s->sch, 0);
	s->rcq = ibv_create_cq(ctx, 64, NULL, s->rch, 0);
	if (!s->scq || !s->rcq)
		die("ibv_create_cq: %s", strerror(errno));
	qa.send_cq = s->scq;
	qa.recv_cq = s->rcq;
	if (rdma_create_qp(s->id, s->pd, &qa))
		die("rdma_create_qp: %s", strerror(errno));
	s->ctrl = buf_alloc(PAGE);
	s->ctrl_mr = reg(s, s->ctrl, PAGE, IBV_ACCESS_LOCAL_WRITE);
	s->out = (struct integ_msg *)s->ctrl;
}

/* The next completion on @cq; an error status ends the run. */
static void cq_wait(struct ibv_cq *cq, struct ibv_comp_channel *ch,
		    bool *armed, struct ibv_wc *wc)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			die("ibv_poll_cq: %d", n);
		if (n)
			break;
		if (!*armed) {
			if (ibv_req_notify_cq(cq, 0))
				die("ibv_req_notify_cq: %s", strerror(errno));
			*armed = true;
			continue;	/* poll again: no lost wakeup */
		}
		if (ibv_get_cq_event(ch, &ev_cq, &ev_ctx))
			die("ibv_get_cq_event: %s", strerror(errno));
		ibv_ack_cq_events(ev_cq, 1);
		*armed = false;
	}
	if (wc->status != IBV_WC_SUCCESS)
		die("completion of wr_id %llu (opcode %u): %s",
		    (unsigned long long)wc->wr_id, wc->opcode,
		    ibv_wc_status_str(wc->status));
}

static void send_wait(struct side *s, struct ibv_wc *wc)
{
	cq_wait(s->scq, s->sch, &s->sarmed, wc);
}

static void recv_wait(struct side *s, struct ibv_wc *wc)
{
	cq_wait(s->rcq, s->rch, &s->rarmed, wc);
	if (wc->opcode != IBV_WC_RECV)
		die("receive completion with opcode %u", wc->opcode);
}

/* Wait for the signalled WR @wr_id, the only one outstanding. */
static void send_wait_for(struct side *s, uint64_t wr_id)
{
	struct ibv_wc wc;

	send_wait(s, &wc);
	if (wc.wr_id != wr_id)
		die("completion of wr_id %llu, expected %llu",
		    (unsigned long long)wc.wr_id, (unsigned long long)wr_id);
}

static void post_recv(struct side *s, uint8_t *buf, uint32_t len,
		      uint32_t lkey, uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)buf, len, lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (ibv_post_recv(s->id->qp, &wr, &bad))
		die("ibv_post_recv: %s", strerror(errno));
}

static void post_send(struct side *s, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	if (ibv_post_send(s->id->qp, wr, &bad))
		die("ibv_post_send (wr_id %llu): %s",
		    (unsigned long long)bad->wr_id, strerror(errno));
}

/* s->out as a signalled Send, wr_id @kind; not waited for. */
static void send_ctrl(struct side *s, enum msg_kind kind, int round)
{
	struct ibv_sge sge = { (uintptr_t)s->out, sizeof(*s->out),
			       s->ctrl_mr->lkey };
	struct ibv_send_wr wr = { .wr_id = kind, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };

	s->out->magic = htobe32(MAGIC);
	s->out->kind = htobe32(kind);
	s->out->round = htobe32(round);
	post_send(s, &wr);
}

static void msg_expect(const struct integ_msg *m, uint32_t len,
		       enum msg_kind kind, int round)
{
	if (len != sizeof(*m) || be32toh(m->magic) != MAGIC ||
	    be32toh(m->kind) != kind || be32toh(m->round) != (uint32_t)round)
		die("control message of %u bytes, kind %u round %u; expected kind %u round %d",
		    len, be32toh(m->kind), be32toh(m->round), kind, round);
}

/* Reads in flight: @want, or less if the device allows less. */
static uint8_t rd_depth(struct side *s, int want)
{
	struct ibv_device_attr a;

	if (ibv_query_device(s->id->verbs, &a))
		die("ibv_query_device: %s", strerror(errno));
	if (a.max_qp_init_rd_atom < want)
		want = a.max_qp_init_rd_atom;
	if (a.max_qp_rd_atom < want)
		want = a.max_qp_rd_atom;
	return want;
}

/* ---- server ------------------------------------------------------ */

/* Step 2, one half of the MR: guard gaps and regions, in MR order. */
static bool server_check_half(struct side *s, int round, uint32_t half)
{
	uint64_t guard = seed(S_GUARD, 0), base = (uint64_t)half * half_len;
	uint64_t pos = base, end, data;
	uint32_t i;
	long bad;
	int from;

	data = half_pattern(half, round, &from);
	for (i = 0; i <= NREG; i++) {
		end = base + (i < NREG ? regions[i].dst : half_len);
		bad = pat_check(s->data + pos, end - pos, guard, pos);
		if (bad >= 0) {
			fprintf(stderr,
				"integrity: round %d: guard byte at MR offset %llu, before region %u of half %u, overwritten\n",
				round, (unsigned long long)pos + bad, i, half);
			verdict_set(s->out, V_GUARD, i, pos + bad,
				    s->data + pos, end - pos, bad, guard, pos);
			return false;
		}
		if (i == NREG)
			return true;
		bad = pat_check(s->data + end, regions[i].len, data, end);
		if (bad >= 0) {
			fprintf(stderr,
				"integrity: round %d: region %u (%u bytes at MR offset %llu), written in round %d, wrong from its byte %ld (MR offset %llu)\n",
				round, i, regions[i].len,
				(unsigned long long)end, from, bad,
				(unsigned long long)end + bad);
			verdict_set(s->out, V_DATA, i, end + bad,
				    s->data + end, regions[i].len, bad, data,
				    end);
			return false;
		}
		pos = end + regions[i].len;
	}
	return true;
}

/* Step 2: all of the MR, the half just written first. */
static void server_check_mr(struct side *s, int round)
{
	if (server_check_half(s, round, round % 2))
		server_check_half(s, round, 1 - round % 2);
}

/* The verdict in s->out to the client; after a bad one, wait and exit. */
static void server_reply(struct side *s, int round)
{
	struct rdma_cm_event *ev;

	send_ctrl(s, VERDICT, round);
	send_wait_for(s, VERDICT);
	if (s->out->verdict == htobe32(V_OK))
		return;
	verdict_bytes(s->out);
	fprintf(stderr, "integrity: FAILED in round %d (%s)\n", round, phase);
	/* let the verdict reach the client before the QP goes */
	failing = 1;
	alarm(10);
	if (!rdma_get_cm_event(s->ech, &ev))
		rdma_ack_cm_event(ev);
	exit(1);
}

static void server_repost(struct side *s, uint64_t slot)
{
	uint8_t *buf = s->recv + slot * RECV_LEN;

	pat_fill(buf, RECV_LEN, seed(S_RECV_GUARD, 0), 0);
	post_recv(s, buf, RECV_LEN, s->recv_mr->lkey, slot);
}

/* The next receive's buffer, length and slot. */
static uint8_t *server_recv(struct side *s, uint32_t *len, uint64_t *slot)
{
	struct ibv_wc wc;

	recv_wait(s, &wc);
	*len = wc.byte_len;
	*slot = wc.wr_id;
	return s->recv + wc.wr_id * RECV_LEN;
}

/* Step 4, message @j: its length, its bytes, the guard past it. */
static void server_check_send(struct side *s, int round, uint32_t j,
			      const uint8_t *buf, uint32_t len)
{
	uint64_t data = seed(S_SEND, round), rg = seed(S_RECV_GUARD, 0);
	uint64_t base = (uint64_t)j * RECV_LEN;
	long bad;

	if (s->out->verdict != htobe32(V_OK))
		return;		/* the first one only */
	if (len != sends[j].len) {
		fprintf(stderr,
			"integrity: round %d: Send %u arrived with %u bytes, %u sent\n",
			round, j, len, sends[j].len);
		verdict_set(s->out, V_LEN, j, len, buf, 0, 0, data, base);
		return;
	}
	bad = pat_check(buf, len, data, base);
	if (bad >= 0) {
		fprintf(stderr,
			"integrity: round %d: Send %u (%u bytes) wrong from byte %ld\n",
			round, j, len, bad);
		verdict_set(s->out, V_DATA, j, bad, buf, len, bad, data, base);
		return;
	}
	bad = pat_check(buf + len, RECV_LEN - len, rg, len);
	if (bad >= 0) {
		fprintf(stderr,
			"integrity: round %d: Send %u (%u bytes) changed its receive buffer at byte %ld, past its end\n",
			round, j, len, len + bad);
		verdict_set(s->out, V_GUARD, j, len + bad, buf + len,
			    RECV_LEN - len, bad, rg, len);
	}
}

static void server_round(struct side *s, int round)
{
	uint64_t slot;
	uint32_t len, j;
	uint8_t *buf;

	phase = "waiting for the Writes";
	buf = server_recv(s, &len, &slot);
	msg_expect((const struct integ_msg *)buf, len, WRITES_DONE, round);
	server_repost(s, slot);
	phase = "checking the Writes";
	memset(s->out, 0, sizeof(*s->out));
	server_check_mr(s, round);
	server_reply(s, round);

	phase = "checking the Sends";
	memset(s->out, 0, sizeof(*s->out));
	for (j = 0; j < NSEND; j++) {
		buf = server_recv(s, &len, &slot);
		server_check_send(s, round, j, buf, len);
		server_repost(s, slot);
	}
	buf = server_recv(s, &len, &slot);
	msg_expect((const struct integ_msg *)buf, len, SENDS_DONE, round);
	server_repost(s, slot);
	server_reply(s, round);
	printf("round %d: server: MR of %u bytes (%zu regions) and %zu Sends ok\n",
	       round, mr_len, NREG, NSEND);
	fflush(stdout);
}

static void server_setup(struct side *s)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ;
	uint64_t i;

	make_qp(s);
	s->data_len = mr_len;
	s->data = buf_alloc(mr_len);
	pat_fill(s->data, mr_len, seed(S_GUARD, 0), 0);
	s->data_mr = reg(s, s->data, mr_len, acc);
	s->recv_len = (size_t)NRECV * RECV_LEN;
	s->recv = buf_alloc(s->recv_len);
	s->recv_mr = reg(s, s->recv, s->recv_len, IBV_ACCESS_LOCAL_WRITE);
	for (i = 0; i < NRECV; i++)
		server_repost(s, i);
}

static void server_accept(struct side *s)
{
	struct integ_mr info = {
		.magic = htobe32(MAGIC),
		.nreg = htobe32(NREG),
		.len = htobe32(mr_len),
		.rkey = htobe32(s->data_mr->rkey),
		.addr = htobe64((uintptr_t)s->data),
	};
	struct rdma_conn_param cp = {
		.private_data = &info,
		.private_data_len = sizeof(info),
		.responder_resources = rd_depth(s, DEPTH),
		.initiator_depth = rd_depth(s, DEPTH),
	};

	if (rdma_accept(s->id, &cp))
		die("rdma_accept: %s", strerror(errno));
}

static void server_run(struct side *s, struct addrinfo *ai)
{
	const struct integ_hello *h;
	struct rdma_cm_event *ev;
	int r;

	if (rdma_create_id(s->ech, &s->listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(s->listen_id, ai->ai_addr) ||
	    rdma_listen(s->listen_id, 1))
		die("listen: %s", strerror(errno));
	printf("integrity: server listening\n");
	fflush(stdout);

	/* no alarm: the client comes when it comes (timeout(1) bounds it) */
	ev = cm_event(s, RDMA_CM_EVENT_CONNECT_REQUEST);
	alarm(s->timeout);
	s->id = ev->id;
	h = ev->param.conn.private_data;
	if (ev->param.conn.private_data_len < sizeof(*h) ||
	    be32toh(h->magic) != MAGIC)
		die("a connect request without this tool's private data");
	s->rounds = be32toh(h->rounds);
	server_setup(s);
	server_accept(s);
	rdma_ack_cm_event(ev);
	rdma_ack_cm_event(cm_event(s, RDMA_CM_EVENT_ESTABLISHED));
	printf("integrity: server on %s, %d rounds\n",
	       ibv_get_device_name(s->id->verbs->device), s->rounds);
	fflush(stdout);

	for (r = 1; r <= s->rounds; r++) {
		cur_round = r;
		alarm(s->timeout);
		server_round(s, r);
	}
	phase = "waiting for the disconnect";
	alarm(s->timeout);
	rdma_ack_cm_event(cm_event(s, RDMA_CM_EVENT_DISCONNECTED));
}

/* ---- client ------------------------------------------------------ */

#define WR_WRITE	1000u		/* + region: a Write's wr_id */
#define WR_READ		2000u		/* + region: a Read's */
#define WR_SEND		3000u		/* + index: a Send's */

/* Region @i's Write in round @round, its source filled. */
static void client_write_wr(struct side *s, int round, uint32_t i,
			    struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	const struct region *r = &regions[i];
	uint64_t data = seed(S_DATA, round), to = region_to(i, round);
	uint32_t src, len, at;
	int k;

	for (k = 0; k < r->nsge; k++) {
		region_sge(i, round, k, &src, &len, &at);
		pat_fill(s->data + src, len, data, to + at);
		sge[k] = (struct ibv_sge){ (uintptr_t)s->data + src, len,
					   s->data_mr->lkey };
	}
	*wr = (struct ibv_send_wr){
		.wr_id = WR_WRITE + i, .sg_list = sge, .num_sge = r->nsge,
		.opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { .remote_addr = s->peer_addr + to,
			     .rkey = s->peer_rkey },
	};
}

/*
 * Region @i's Read in round @round: back from the half the round before
 * wrote, to the same place in the readback buffer, moved by rb_shift().
 */
static void client_read_wr(struct side *s, int round, uint32_t i,
			   struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	const struct region *r = &regions[i];

	*sge = (struct ibv_sge){
		(uintptr_t)s->rb + rb_shift(round) + r->dst, r->len,
		s->rb_mr->lkey };
	*wr = (struct ibv_send_wr){
		.wr_id = WR_READ + i, .sg_list = sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ,
		.send_flags = i + 1 == NREG ? IBV_SEND_SIGNALED : 0,
		.wr.rdma = { .remote_addr = s->peer_addr +
					    region_to(i, round - 1),
			     .rkey = s->peer_rkey },
	};
}

/* Chain @n WRs from @wr[0] and post them. */
static void client_post_chain(struct side *s, struct ibv_send_wr *wr,
			      uint32_t n)
{
	uint32_t i;

	for (i = 0; i + 1 < n; i++)
		wr[i].next = &wr[i + 1];
	if (n)
		post_send(s, wr);
}

/*
 * Steps 1 and 3 at once, so that each side receives while it sends: as
 * many Reads of the last round's half as the connection's ORD lets go
 * out at once, then the Writes of this round's half, the signalled Send
 * right behind them (so it completes while the Writes may still be on
 * their way), then the other Reads; only the last Read is signalled.
 * With @writes false, the Reads alone (after the last round).
 */
static uint32_t client_post(struct side *s, int round, bool writes)
{
	struct ibv_send_wr wr[2 * NREG];
	struct ibv_sge rsge[NREG], wsge[NREG][MAX_SGE];
	uint32_t i, n = 0, first = writes ? s->ord : NREG, bytes = 0;

	if (first > NREG)
		first = NREG;
	pat_fill(s->rb, s->rb_len, seed(S_RB_GUARD, round), 0);
	for (i = 0; i < first; i++)
		client_read_wr(s, round, i, &wr[n++], &rsge[i]);
	for (i = 0; writes && i < NREG; i++) {
		client_write_wr(s, round, i, &wr[n++], wsge[i]);
		bytes += regions[i].len;
	}
	client_post_chain(s, wr, n);
	if (writes) {
		memset(s->out, 0, sizeof(*s->out));
		send_ctrl(s, WRITES_DONE, round);
	}
	for (i = first, n = 0; i < NREG; i++)
		client_read_wr(s, round, i, &wr[n++], &rsge[i]);
	client_post_chain(s, wr, n);
	return bytes;
}

/* What the client overwrites its sources with: easy to recognise. */
static uint8_t scribble_byte(int round)
{
	return 0xc0 | (round & 0x3f);
}

/*
 * The signalled Send has completed, so have the WRs before it: their
 * buffers are the application's again.  Reuse them at once, the last
 * posted first, as they are the likeliest to be still on their way.
 * @slot(i) is where source @i starts, for @n sources in @len bytes.
 */
static void client_scribble(struct side *s, uint8_t *buf, size_t len,
			    uint32_t (*slot)(uint32_t), uint32_t n, int round)
{
	size_t end = len;

	while (!s->keep && n--) {
		memset(buf + slot(n), scribble_byte(round), end - slot(n));
		end = slot(n);
	}
}

static uint32_t region_slot(uint32_t i)
{
	return regions[i].slot;
}

static uint32_t send_slot(uint32_t j)
{
	return j * SEND_SLOT;
}

/* The last Read's completion and, with @writes, the Send's, either order. */
static void client_wait_post(struct side *s, int round, bool writes)
{
	bool read = false, sent = !writes;
	struct ibv_wc wc;

	while (!read || !sent) {
		send_wait(s, &wc);
		if (!read && wc.wr_id == WR_READ + NREG - 1) {
			read = true;
		} else if (!sent && wc.wr_id == WRITES_DONE) {
			sent = true;
			client_scribble(s, s->data, s->data_len, region_slot,
					NREG, round);
		} else {
			die("completion of wr_id %llu: not signalled",
			    (unsigned long long)wc.wr_id);
		}
	}
}

/* Are the bad bytes the server saw what the client scribbled? */
static void client_blame(struct side *s, const struct integ_msg *v,
			 int round)
{
	uint32_t n = be32toh(v->show), i;

	if (s->keep || !n || n > SHOW)
		return;
	for (i = 0; i < n; i++)
		if (v->actual[i] != scribble_byte(round))
			return;
	fprintf(stderr,
		"  these look like the client's scribble (%02x), written over its sources once the signalled Send had completed: the payload left the client's memory after its WR had (implicitly) completed\n",
		scribble_byte(round));
}

static void client_bad_write(struct side *s, const struct integ_msg *v,
			     int round)
{
	uint32_t where = be32toh(v->where), k;
	uint64_t off = be64toh(v->off), to;

	if (be32toh(v->verdict) == V_GUARD || where >= NREG) {
		fprintf(stderr,
			"integrity: round %d: the server's MR changed outside the regions: MR offset %llu, before region %u\n",
			round, (unsigned long long)off, where);
		verdict_bytes(v);
		return;
	}
	to = region_to(where, round);
	if (off < to || off >= to + regions[where].len) {
		fprintf(stderr,
			"integrity: round %d: region %u of the other half (MR offset %llu) changed since the last round wrote it\n",
			round, where, (unsigned long long)off);
		verdict_bytes(v);
		return;
	}
	k = off - to;
	fprintf(stderr,
		"integrity: round %d: RDMA Write of region %u (%u bytes, %d SGE, to MR offset %llu) wrong from its byte %u (MR offset %llu, source offset %llu)\n",
		round, where, regions[where].len, regions[where].nsge,
		(unsigned long long)to, k, (unsigned long long)off,
		(unsigned long long)region_src_of(where, k, round));
	verdict_bytes(v);
	client_blame(s, v, round);
}

static void client_bad_send(struct side *s, const struct integ_msg *v,
			    int round)
{
	uint32_t where = be32toh(v->where);
	uint64_t off = be64toh(v->off);

	if (where >= NSEND)
		die("a verdict about Send %u", where);
	switch (be32toh(v->verdict)) {
	case V_LEN:
		fprintf(stderr,
			"integrity: round %d: Send %u of %u bytes arrived with %llu\n",
			round, where, sends[where].len,
			(unsigned long long)off);
		return;
	case V_GUARD:
		fprintf(stderr,
			"integrity: round %d: Send %u of %u bytes changed the receive buffer past its end, at byte %llu\n",
			round, where, sends[where].len,
			(unsigned long long)off);
		verdict_bytes(v);
		return;
	default:
		fprintf(stderr,
			"integrity: round %d: Send %u (%u bytes, from send buffer offset %u) wrong from its byte %llu\n",
			round, where, sends[where].len, send_src(where, round),
			(unsigned long long)off);
		verdict_bytes(v);
		client_blame(s, v, round);
	}
}

/* The server's verdict on step 1 or step 4. */
static void client_verdict(struct side *s, int round, bool writes)
{
	const struct integ_msg *v;
	struct ibv_wc wc;
	uint8_t *buf;

	recv_wait(s, &wc);
	buf = s->recv + wc.wr_id * sizeof(struct integ_msg);
	v = (const struct integ_msg *)buf;
	msg_expect(v, wc.byte_len, VERDICT, round);
	if (v->verdict == htobe32(V_OK)) {
		post_recv(s, buf, sizeof(*v), s->recv_mr->lkey, wc.wr_id);
		return;
	}
	if (writes)
		client_bad_write(s, v, round);
	else
		client_bad_send(s, v, round);
	die("the server found the %s wrong", writes ? "Writes" : "Sends");
}

static noreturn void client_bad_read(const uint8_t *buf, size_t n,
				     long bad, uint64_t s, uint64_t s_off)
{
	struct integ_msg v;

	verdict_set(&v, V_DATA, 0, 0, buf, n, bad, s, s_off);
	verdict_bytes(&v);
	die("RDMA Read data wrong");
}

/*
 * Step 3's check: the regions hold what the last round wrote (the guard
 * before any), the rest of the readback buffer its own guard.
 */
static void client_check_reads(struct side *s, int round)
{
	uint64_t guard = seed(S_RB_GUARD, round), data, from_off;
	uint32_t sh = rb_shift(round), pos = 0, end, i;
	long bad;
	int from;

	data = half_pattern((round - 1) % 2, round - 1, &from);
	for (i = 0; i <= NREG; i++) {
		end = i < NREG ? sh + regions[i].dst : s->rb_len;
		bad = pat_check(s->rb + pos, end - pos, guard, pos);
		if (bad >= 0) {
			fprintf(stderr,
				"integrity: round %d: an RDMA Read wrote outside its sink: readback byte %ld, before region %u\n",
				round, pos + bad, i);
			client_bad_read(s->rb + pos, end - pos, bad, guard,
					pos);
		}
		if (i == NREG)
			return;
		from_off = region_to(i, round - 1);
		bad = pat_check(s->rb + end, regions[i].len, data, from_off);
		if (bad >= 0) {
			fprintf(stderr,
				"integrity: round %d: RDMA Read of region %u (%u bytes from MR offset %llu, written in round %d, to readback offset %u) wrong from its byte %ld\n",
				round, i, regions[i].len,
				(unsigned long long)from_off, from, end, bad);
			client_bad_read(s->rb + end, regions[i].len, bad,
					data, from_off);
		}
		pos = end + regions[i].len;
	}
}

/* Step 4: the Sends, unsignalled, then the signalled one after them. */
static uint32_t client_sends(struct side *s, int round)
{
	struct ibv_send_wr wr[NSEND];
	struct ibv_sge sge[NSEND];
	uint64_t data = seed(S_SEND, round);
	uint32_t j, bytes = 0;
	uint8_t *p;

	for (j = 0; j < NSEND; j++) {
		p = s->sbuf + send_src(j, round);
		pat_fill(p, sends[j].len, data, (uint64_t)j * RECV_LEN);
		sge[j] = (struct ibv_sge){ (uintptr_t)p, sends[j].len,
					   s->sbuf_mr->lkey };
		wr[j] = (struct ibv_send_wr){
			.wr_id = WR_SEND + j, .sg_list = &sge[j], .num_sge = 1,
			.opcode = IBV_WR_SEND,
			.next = j + 1 < NSEND ? &wr[j + 1] : NULL,
		};
		bytes += sends[j].len;
	}
	post_send(s, wr);
	memset(s->out, 0, sizeof(*s->out));
	send_ctrl(s, SENDS_DONE, round);
	return bytes;
}

static long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void client_round(struct side *s, int round)
{
	long start = now_ms();
	uint32_t wbytes, sbytes;

	phase = "Writes and Reads";
	wbytes = client_post(s, round, true);
	client_wait_post(s, round, true);
	client_check_reads(s, round);
	phase = "server checking the Writes";
	client_verdict(s, round, true);

	phase = "Sends";
	sbytes = client_sends(s, round);
	send_wait_for(s, SENDS_DONE);
	client_scribble(s, s->sbuf, s->sbuf_len, send_slot, NSEND, round);
	phase = "server checking the Sends";
	client_verdict(s, round, false);

	printf("round %d: %zu Writes %u B ok, %zu Reads ok, %zu Sends %u B ok (%ld ms)\n",
	       round, NREG, wbytes, NREG, NSEND, sbytes, now_ms() - start);
	fflush(stdout);
}

/* After the last round: read back what it wrote. */
static void client_last_reads(struct side *s, int rounds)
{
	cur_round = rounds + 1;
	phase = "reading back the last round";
	client_post(s, rounds + 1, false);
	client_wait_post(s, rounds + 1, false);
	client_check_reads(s, rounds + 1);
	printf("after round %d: %zu Reads ok\n", rounds, NREG);
}

static void client_setup(struct side *s)
{
	/* iWARP: a Read's sink is the target of tagged Read Responses */
	int sink = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	uint64_t i;

	make_qp(s);
	s->data_len = src_len;
	s->data = buf_alloc(src_len);
	s->data_mr = reg(s, s->data, src_len, IBV_ACCESS_LOCAL_WRITE);
	s->rb_len = half_len + PAGE;
	s->rb = buf_alloc(s->rb_len);
	s->rb_mr = reg(s, s->rb, s->rb_len, sink);
	s->sbuf_len = NSEND * SEND_SLOT;
	s->sbuf = buf_alloc(s->sbuf_len);
	s->sbuf_mr = reg(s, s->sbuf, s->sbuf_len, IBV_ACCESS_LOCAL_WRITE);
	s->recv_len = CTRL_NRECV * sizeof(struct integ_msg);
	s->recv = buf_alloc(s->recv_len);
	s->recv_mr = reg(s, s->recv, s->recv_len, IBV_ACCESS_LOCAL_WRITE);
	for (i = 0; i < CTRL_NRECV; i++)
		post_recv(s, s->recv + i * sizeof(struct integ_msg),
			  sizeof(struct integ_msg), s->recv_mr->lkey, i);
}

static void client_connect(struct side *s, struct addrinfo *ai)
{
	struct integ_hello hello = { htobe32(MAGIC), htobe32(s->rounds) };
	struct rdma_conn_param cp = {
		.private_data = &hello,
		.private_data_len = sizeof(hello),
	};
	const struct integ_mr *m;
	struct rdma_cm_event *ev;
	struct ibv_qp_init_attr qi;
	struct ibv_qp_attr qa;

	if (rdma_create_id(s->ech, &s->id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(s->id, NULL, ai->ai_addr, 5000))
		die("rdma_resolve_addr: %s", strerror(errno));
	rdma_ack_cm_event(cm_event(s, RDMA_CM_EVENT_ADDR_RESOLVED));
	if (rdma_resolve_route(s->id, 5000))
		die("rdma_resolve_route: %s", strerror(errno));
	rdma_ack_cm_event(cm_event(s, RDMA_CM_EVENT_ROUTE_RESOLVED));
	client_setup(s);
	cp.initiator_depth = rd_depth(s, DEPTH);
	cp.responder_resources = rd_depth(s, DEPTH);
	if (rdma_connect(s->id, &cp))
		die("rdma_connect: %s", strerror(errno));
	ev = cm_event(s, RDMA_CM_EVENT_ESTABLISHED);
	m = ev->param.conn.private_data;
	if (ev->param.conn.private_data_len < sizeof(*m) ||
	    be32toh(m->magic) != MAGIC || be32toh(m->nreg) != NREG ||
	    be32toh(m->len) != mr_len)
		die("the server's private data is not this tool's layout");
	s->peer_rkey = be32toh(m->rkey);
	s->peer_addr = be64toh(m->addr);
	rdma_ack_cm_event(ev);
	if (ibv_query_qp(s->id->qp, &qa, IBV_QP_MAX_QP_RD_ATOMIC, &qi))
		die("ibv_query_qp: %s", strerror(errno));
	s->ord = qa.max_rd_atomic ? qa.max_rd_atomic : 1;
}

static void client_run(struct side *s, struct addrinfo *ai)
{
	int r;

	alarm(s->timeout);
	client_connect(s, ai);
	printf("integrity: client on %s, %d rounds, ORD %u, sources %s once complete\n",
	       ibv_get_device_name(s->id->verbs->device), s->rounds, s->ord,
	       s->keep ? "kept" : "overwritten");
	fflush(stdout);
	for (r = 1; r <= s->rounds; r++) {
		cur_round = r;
		alarm(s->timeout);
		client_round(s, r);
	}
	alarm(s->timeout);
	client_last_reads(s, s->rounds);
	phase = "disconnect";
	alarm(s->timeout);
	if (rdma_disconnect(s->id))
		die("rdma_disconnect: %s", strerror(errno));
	rdma_ack_cm_event(cm_event(s, RDMA_CM_EVENT_DISCONNECTED));
}

/* ---- main -------------------------------------------------------- */

static void teardown(struct side *s)
{
	struct ibv_mr *mrs[] = { s->data_mr, s->recv_mr, s->ctrl_mr, s->rb_mr,
				 s->sbuf_mr };
	unsigned int i;

	if (s->id && s->id->qp)
		rdma_destroy_qp(s->id);
	for (i = 0; i < ARRAY_SIZE(mrs); i++)
		if (mrs[i])
			ibv_dereg_mr(mrs[i]);
	if (s->scq)
		ibv_destroy_cq(s->scq);
	if (s->rcq)
		ibv_destroy_cq(s->rcq);
	if (s->sch)
		ibv_destroy_comp_channel(s->sch);
	if (s->rch)
		ibv_destroy_comp_channel(s->rch);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->id)
		rdma_destroy_id(s->id);
	if (s->listen_id)
		rdma_destroy_id(s->listen_id);
	rdma_destroy_event_channel(s->ech);
}

static noreturn void bad_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s -s|-c ADDR PORT [-n ROUNDS] [-t SECONDS] [-k]\n"
		"  -s ADDR PORT  serve on ADDR (the client says how many rounds)\n"
		"  -c ADDR PORT  connect to a server at ADDR\n"
		"  -n ROUNDS     client: rounds, each its own pattern (20)\n"
		"  -t SECONDS    most a round (or the setup) may take (60)\n"
		"  -k            client: leave sources alone once complete\n",
		prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct side s = { .rounds = 20, .timeout = 60 };
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST,
				  .ai_socktype = SOCK_STREAM }, *ai;
	char *addr = NULL;
	int opt, err;

	while ((opt = getopt(argc, argv, "s:c:n:t:k")) != -1) {
		switch (opt) {
		case 's':
		case 'c':
			s.server = opt == 's';
			addr = optarg;
			break;
		case 'n':
			s.rounds = atoi(optarg);
			break;
		case 't':
			s.timeout = atoi(optarg);
			break;
		case 'k':
			s.keep = true;
			break;
		default:
			bad_usage(argv[0]);
		}
	}
	if (!addr || optind != argc - 1 || s.rounds < 1 || s.timeout < 1)
		bad_usage(argv[0]);
	err = getaddrinfo(addr, argv[optind], &hints, &ai);
	if (err) {
		fprintf(stderr, "integrity: %s: %s\n", addr, gai_strerror(err));
		return 2;
	}
	signal(SIGALRM, on_alarm);
	layout_init();
	s.ech = rdma_create_event_channel();
	if (!s.ech)
		die("rdma_create_event_channel: %s", strerror(errno));
	if (s.server)
		server_run(&s, ai);
	else
		client_run(&s, ai);
	alarm(0);
	printf("integrity: %d rounds ok\n", s.rounds);
	freeaddrinfo(ai);
	teardown(&s);
	return 0;
}
