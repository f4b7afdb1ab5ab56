// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_smoke: drive a sw_ddp device through every verb that needs no
 * connection, with stock libibverbs and its libsiw provider, and check that
 * bad parameters fail cleanly.  One TAP line per check on stdout.
 *
 * usage: verbs_smoke DEVICE [--leave | --hold | --cqs N]
 *
 * With --leave the program exits holding every resource, so the caller can
 * check that the kernel frees them when the process goes away.  With --hold
 * it keeps them, says "# holding", and waits for the device to be removed
 * under it (rdma link del, rmmod): that must come as IBV_EVENT_DEVICE_FATAL,
 * and every resource must still be released without error afterwards.
 * With --cqs N it only creates N CQs of the device's largest size, says
 * "# holding", and keeps them until it is killed: what their rings cost
 * its memory cgroup can then be read (scripts/guest/verbs.sh).
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define CQ_DEPTH	64
#define QP_DEPTH	16
#define SRQ_DEPTH	32
#define NUM_RECV	8
#define BUF_PAGES	4
#define HOLD_MS		(300 * 1000)	/* --hold: for the device to go */

struct smoke {
	struct ibv_context *ctx;
	struct ibv_device_attr dev_attr;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_comp_channel *channel;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_qp *srq_qp;
	char *buf;
	size_t buf_len;
};

static int failures;

/* check(): one TAP line; errno is reported for failed calls. */
static bool check(bool ok, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!ok) {
		printf(" (errno %d: %s)", saved, strerror(saved));
		failures++;
	}
	printf("\n");
	fflush(stdout);
	return ok;
}

/* A call that must fail, with errno set (libibverbs returns or sets it). */
static bool check_refused(bool failed, int err, const char *what)
{
	if (!failed)
		return check(false, "%s is refused", what);
	return check(err != 0, "%s is refused (%s)", what, strerror(err));
}

static struct ibv_context *open_device(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

static void test_device(struct smoke *s)
{
	struct ibv_device_attr *a = &s->dev_attr;
	struct ibv_port_attr port;

	check(!ibv_query_device(s->ctx, a), "query_device");
	check(a->max_qp > 0 && a->max_cq > 0 && a->max_mr > 0 &&
	      a->max_srq > 0 && a->max_pd > 0,
	      "device advertises QPs, CQs, MRs, SRQs and PDs");
	check(a->max_sge == 6 && a->max_qp_wr >= QP_DEPTH &&
	      a->max_cqe >= CQ_DEPTH, "device limits fit the siw ABI");
	check(!ibv_query_port(s->ctx, 1, &port) &&
	      port.state == IBV_PORT_ACTIVE, "query_port: port 1 ACTIVE");
}

static void test_memory(struct smoke *s)
{
	long page = sysconf(_SC_PAGESIZE);
	struct ibv_mr *mr;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;

	s->pd = ibv_alloc_pd(s->ctx);
	if (!check(s->pd, "alloc_pd"))
		return;

	s->buf_len = BUF_PAGES * page;
	s->buf = aligned_alloc(page, s->buf_len + page);
	memset(s->buf, 0xa5, s->buf_len + page);

	/* Start mid-page so the region spans BUF_PAGES + 1 pages. */
	s->mr = ibv_reg_mr(s->pd, s->buf + 100, s->buf_len, access);
	check(s->mr && s->mr->lkey == s->mr->rkey && s->mr->lkey,
	      "reg_mr: user memory, unaligned start, lkey == rkey");

	mr = ibv_reg_mr(s->pd, s->buf, s->buf_len, IBV_ACCESS_REMOTE_WRITE);
	check_refused(!mr, errno, "reg_mr: remote write without local write");
	if (mr)
		ibv_dereg_mr(mr);

	mr = ibv_reg_mr(s->pd, s->buf, s->dev_attr.max_mr_size + 1,
			IBV_ACCESS_LOCAL_WRITE);
	check_refused(!mr, errno, "reg_mr: longer than max_mr_size");
	if (mr)
		ibv_dereg_mr(mr);

	/* ibv_dealloc_pd() returns the errno. */
	check(ibv_dealloc_pd(s->pd) == EBUSY,
	      "dealloc_pd with a registered MR is refused (EBUSY)");
}

static void test_cq(struct smoke *s)
{
	struct ibv_wc wc;
	struct ibv_cq *cq;

	s->channel = ibv_create_comp_channel(s->ctx);
	check(s->channel, "create_comp_channel");
	s->cq = ibv_create_cq(s->ctx, CQ_DEPTH, NULL, s->channel, 0);
	if (!check(s->cq && s->cq->cqe >= CQ_DEPTH, "create_cq"))
		return;

	check(ibv_poll_cq(s->cq, 1, &wc) == 0, "poll_cq: empty CQ gives 0");
	check(!ibv_req_notify_cq(s->cq, 0), "req_notify_cq: next completion");
	check(!ibv_req_notify_cq(s->cq, 1), "req_notify_cq: solicited only");

	cq = ibv_create_cq(s->ctx, s->dev_attr.max_cqe + 1, NULL, NULL, 0);
	check_refused(!cq, errno, "create_cq: more than max_cqe");
	if (cq)
		ibv_destroy_cq(cq);
}

static void test_srq(struct smoke *s)
{
	struct ibv_srq_init_attr init = {
		.attr = { .max_wr = SRQ_DEPTH, .max_sge = 2 },
	};
	struct ibv_srq_attr attr = { .srq_limit = 2 };
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf, .length = 64, .lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int i, err = 0;

	s->srq = ibv_create_srq(s->pd, &init);
	if (!check(s->srq && init.attr.max_wr >= SRQ_DEPTH, "create_srq"))
		return;
	check(!ibv_modify_srq(s->srq, &attr, IBV_SRQ_LIMIT),
	      "modify_srq: arm limit");
	for (i = 0; i < 4 && !err; i++) {
		wr.wr_id = 1000 + i;
		err = ibv_post_srq_recv(s->srq, &wr, &bad);
	}
	check(!err, "post_srq_recv: 4 receives");
	/* libsiw implements no query_srq: nothing of ours to check there. */
}

static struct ibv_qp *create_qp(struct smoke *s, struct ibv_srq *srq,
				uint32_t depth, uint32_t sge,
				enum ibv_qp_type type)
{
	struct ibv_qp_init_attr init = {
		.send_cq = s->cq,
		.recv_cq = s->cq,
		.srq = srq,
		.qp_type = type,
		.cap = {
			.max_send_wr = depth,
			.max_recv_wr = srq ? 0 : depth,
			.max_send_sge = sge,
			.max_recv_sge = srq ? 0 : sge,
			.max_inline_data = 64,
		},
	};

	return ibv_create_qp(s->pd, &init);
}

static void test_qp_create(struct smoke *s)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct ibv_qp *qp;

	s->qp = create_qp(s, NULL, QP_DEPTH, 2, IBV_QPT_RC);
	if (!check(s->qp, "create_qp: RC"))
		return;
	check(!ibv_query_qp(s->qp, &attr, IBV_QP_STATE | IBV_QP_CAP, &init) &&
	      attr.qp_state == IBV_QPS_RESET &&
	      init.cap.max_send_wr >= QP_DEPTH, "query_qp: RESET, capacities");

	s->srq_qp = create_qp(s, s->srq, QP_DEPTH, 2, IBV_QPT_RC);
	check(s->srq_qp, "create_qp: RC on an SRQ");

	qp = create_qp(s, NULL, s->dev_attr.max_qp_wr + 1, 1, IBV_QPT_RC);
	check_refused(!qp, errno, "create_qp: more than max_qp_wr");
	if (qp)
		ibv_destroy_qp(qp);
	qp = create_qp(s, NULL, QP_DEPTH, s->dev_attr.max_sge + 1, IBV_QPT_RC);
	check_refused(!qp, errno, "create_qp: more than max_sge");
	if (qp)
		ibv_destroy_qp(qp);
	qp = create_qp(s, NULL, QP_DEPTH, 1, IBV_QPT_UD);
	check_refused(!qp, errno, "create_qp: UD on an iWARP device");
	if (qp)
		ibv_destroy_qp(qp);
}

static int post_recvs(struct smoke *s, int n)
{
	struct ibv_sge sge = { .length = 256, .lkey = s->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int i, err = 0;

	for (i = 0; i < n && !err; i++) {
		wr.wr_id = i;
		sge.addr = (uintptr_t)s->buf + 100 + 256 * i;
		err = ibv_post_recv(s->qp, &wr, &bad);
	}
	return err;
}

/* Receives posted, then the QP moves to ERROR: each comes back flushed. */
static void test_flush(struct smoke *s)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc[NUM_RECV + 1];
	int n = 0, i, polled, tries = 0;
	bool in_order = true;

	check(!post_recvs(s, NUM_RECV), "post_recv: %d receives", NUM_RECV);
	check(!ibv_modify_qp(s->qp, &attr, IBV_QP_STATE),
	      "modify_qp: to ERROR");

	while (n < NUM_RECV && tries++ < 1000) {
		polled = ibv_poll_cq(s->cq, NUM_RECV + 1 - n, wc + n);
		if (polled < 0)
			break;
		n += polled;
		if (!polled)
			usleep(1000);
	}
	for (i = 0; i < n; i++)
		in_order &= wc[i].wr_id == (uint64_t)i &&
			    wc[i].status == IBV_WC_WR_FLUSH_ERR &&
			    wc[i].qp_num == s->qp->qp_num;
	check(n == NUM_RECV && in_order,
	      "poll_cq: %d of %d receives flushed in order", n, NUM_RECV);
	check(ibv_poll_cq(s->cq, 1, wc) == 0, "poll_cq: nothing more");
}

static void teardown(struct smoke *s)
{
	check(!ibv_destroy_qp(s->qp), "destroy_qp");
	check(!ibv_destroy_qp(s->srq_qp), "destroy_qp on an SRQ");
	check(!ibv_destroy_srq(s->srq), "destroy_srq");
	check(!ibv_destroy_cq(s->cq), "destroy_cq");
	check(!ibv_destroy_comp_channel(s->channel), "destroy_comp_channel");
	check(!ibv_dereg_mr(s->mr), "dereg_mr");
	check(!ibv_dealloc_pd(s->pd), "dealloc_pd");
	check(!ibv_close_device(s->ctx), "close_device");
	free(s->buf);
}

/*
 * --hold: ib_core disassociates the context from a device that goes away
 * while it is open; the async event queue ends with DEVICE_FATAL, verbs
 * then fail, and releasing what was held still succeeds (libibverbs takes
 * EIO from a destroy as "already destroyed").
 */
static void hold(struct smoke *s)
{
	struct pollfd pfd = { .fd = s->ctx->async_fd, .events = POLLIN };
	struct ibv_device_attr attr;
	struct ibv_async_event ev;
	bool fatal = false;
	int err;

	printf("# holding\n");
	fflush(stdout);
	while (!fatal && poll(&pfd, 1, HOLD_MS) == 1 &&
	       !ibv_get_async_event(s->ctx, &ev)) {
		printf("# async event: %s\n", ibv_event_type_str(ev.event_type));
		fatal = ev.event_type == IBV_EVENT_DEVICE_FATAL;
		ibv_ack_async_event(&ev);
	}
	check(fatal, "IBV_EVENT_DEVICE_FATAL once the device is removed");
	err = ibv_query_device(s->ctx, &attr);
	check_refused(err, err, "query_device on the removed device");
}

/* --cqs: @n CQs of max_cqe entries each, held until a signal ends us. */
static int hold_cqs(struct smoke *s, long n)
{
	struct ibv_device_attr a;
	long i;

	if (!check(!ibv_query_device(s->ctx, &a), "query_device"))
		return 1;
	for (i = 0; i < n; i++)
		if (!ibv_create_cq(s->ctx, a.max_cqe, NULL, NULL, 0))
			break;
	if (!check(i == n, "created %ld of %ld CQs of %d CQEs (%s)", i, n,
		   a.max_cqe, i == n ? "none failed" : strerror(errno)))
		return 1;
	printf("# holding\n");
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	struct smoke s = {};

	if (argc < 2) {
		fprintf(stderr,
			"usage: %s DEVICE [--leave | --hold | --cqs N]\n",
			argv[0]);
		return 2;
	}
	s.ctx = open_device(argv[1]);
	if (!check(s.ctx, "open device %s", argv[1]))
		return 1;
	if (argc > 3 && !strcmp(argv[2], "--cqs"))
		return hold_cqs(&s, strtol(argv[3], NULL, 0));

	test_device(&s);
	test_memory(&s);
	if (!s.mr)
		return 1;
	test_cq(&s);
	test_srq(&s);
	if (!s.cq || !s.srq)
		return 1;
	test_qp_create(&s);
	if (!s.qp)
		return 1;
	test_flush(&s);

	if (argc > 2 && !strcmp(argv[2], "--leave"))
		return failures ? 1 : 0;
	if (argc > 2 && !strcmp(argv[2], "--hold"))
		hold(&s);
	teardown(&s);
	return failures ? 1 : 0;
}
