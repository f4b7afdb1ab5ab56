// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_victim: an rdma_cm server for mal_peer to attack.
 *
 * For each connection it registers a read/write region, a read-only
 * region, a region of another PD and receive buffers, all inside one
 * mapping whose every other byte is a guard, tells the peer the STags in
 * its accept private data, and once the connection ends reports the QP's
 * state, whether an async error event came, and whether every byte it
 * did not expose for writing is still intact.  A peer whose private data
 * is a short printable string (mal_peer_sctp: the case's name) sees it
 * as a tag on that connection's lines: "victim: conn N [TAG]: ...".
 *
 * usage: rdma_victim ADDR PORT CONNECTIONS
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#include "victim.h"

#define GUARD		0xa5
#define REGION		4096
#define NRECV		4
#define RECV_LEN	1024
#define WAIT_MS		60000	/* for a connection's end */

/* Layout: guard | rw | guard | ro | guard | other | guard | recv | guard */
enum { RW = 1, RO = 3, OTHER = 5, RECV = 7, NREGIONS = 9 };

struct conn {
	struct rdma_cm_id *id;
	char name[80];		/* "conn N" or "conn N [TAG]" */
	struct ibv_pd *pd, *pd2;
	struct ibv_cq *cq;
	struct ibv_mr *rw, *ro, *other, *recv;
	unsigned char *mem;
};

static unsigned char *region(struct conn *c, int n)
{
	return c->mem + n * REGION;
}

/*
 * A connection request that came while another connection was served,
 * not yet acknowledged: the next one to serve.
 */
static struct rdma_cm_event *next_request;

static struct rdma_cm_event *wait_event(struct rdma_event_channel *ch,
					int timeout_ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, timeout_ms) <= 0 || rdma_get_cm_event(ch, &ev))
		return NULL;
	return ev;
}

/* The next request to serve, or another event of the listener's. */
static struct rdma_cm_event *wait_request(struct rdma_event_channel *ch)
{
	struct rdma_cm_event *ev = next_request;

	next_request = NULL;
	return ev ?: wait_event(ch, 60000);
}

static int setup(struct conn *c)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = NRECV,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		 IBV_ACCESS_REMOTE_READ;
	int i;

	c->mem = mmap(NULL, NREGIONS * REGION, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->mem == MAP_FAILED)
		return -1;
	memset(c->mem, GUARD, NREGIONS * REGION);

	c->pd = ibv_alloc_pd(c->id->verbs);
	c->pd2 = ibv_alloc_pd(c->id->verbs);
	c->cq = ibv_create_cq(c->id->verbs, 16, NULL, NULL, 0);
	if (!c->pd || !c->pd2 || !c->cq)
		return -1;
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	if (rdma_create_qp(c->id, c->pd, &qa))
		return -1;

	c->rw = ibv_reg_mr(c->pd, region(c, RW), REGION, rw);
	c->ro = ibv_reg_mr(c->pd, region(c, RO), REGION, IBV_ACCESS_REMOTE_READ);
	c->other = ibv_reg_mr(c->pd2, region(c, OTHER), REGION, rw);
	c->recv = ibv_reg_mr(c->pd, region(c, RECV), REGION,
			     IBV_ACCESS_LOCAL_WRITE);
	if (!c->rw || !c->ro || !c->other || !c->recv)
		return -1;

	for (i = 0; i < NRECV; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)region(c, RECV) + i * RECV_LEN,
			.length = RECV_LEN, .lkey = c->recv->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		if (ibv_post_recv(c->id->qp, &wr, &bad))
			return -1;
	}
	return 0;
}

static int accept_conn(struct conn *c)
{
	struct victim_info info = {
		.rw_stag = htobe32(c->rw->rkey),
		.rw_len = htobe32(REGION),
		.rw_addr = htobe64((uintptr_t)region(c, RW)),
		.ro_stag = htobe32(c->ro->rkey),
		.ro_len = htobe32(REGION),
		.ro_addr = htobe64((uintptr_t)region(c, RO)),
		.other_stag = htobe32(c->other->rkey),
		.recv_len = htobe32(RECV_LEN),
		.other_addr = htobe64((uintptr_t)region(c, OTHER)),
	};
	struct rdma_conn_param cp = {
		.private_data = &info,
		.private_data_len = sizeof(info),
		.responder_resources = 4,
		.initiator_depth = 4,
	};

	return rdma_accept(c->id, &cp);
}

/* Every byte outside the writable regions still holds the guard. */
static long first_damage(struct conn *c)
{
	long i;

	for (i = 0; i < NREGIONS * REGION; i++) {
		int r = i / REGION;

		if (r == RW || r == OTHER || r == RECV)
			continue;
		if (c->mem[i] != GUARD)
			return i;
	}
	return -1;
}

static const char *async_error(struct conn *c)
{
	struct ibv_async_event ev;
	const char *what = "none";
	int fl = fcntl(c->id->verbs->async_fd, F_GETFL);

	fcntl(c->id->verbs->async_fd, F_SETFL, fl | O_NONBLOCK);
	while (!ibv_get_async_event(c->id->verbs, &ev)) {
		if (ev.event_type == IBV_EVENT_QP_FATAL ||
		    ev.event_type == IBV_EVENT_QP_ACCESS_ERR ||
		    ev.event_type == IBV_EVENT_QP_REQ_ERR)
			what = ibv_event_type_str(ev.event_type);
		ibv_ack_async_event(&ev);
	}
	fcntl(c->id->verbs->async_fd, F_SETFL, fl);
	return what;
}

static void report(struct conn *c)
{
	struct ibv_qp_attr attr = {};
	struct ibv_qp_init_attr init;
	long bad = first_damage(c);

	ibv_query_qp(c->id->qp, &attr, IBV_QP_STATE, &init);
	printf("victim: %s: qp_state %s async %s guards %s",
	       c->name, attr.qp_state == IBV_QPS_ERR ? "ERR" : "not-ERR",
	       async_error(c), bad < 0 ? "intact" : "DAMAGED");
	if (bad >= 0)
		printf(" at %ld", bad);
	printf("\n");
	fflush(stdout);
}

static void teardown(struct conn *c)
{
	if (c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->rw)
		ibv_dereg_mr(c->rw);
	if (c->ro)
		ibv_dereg_mr(c->ro);
	if (c->other)
		ibv_dereg_mr(c->other);
	if (c->recv)
		ibv_dereg_mr(c->recv);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->pd2)
		ibv_dealloc_pd(c->pd2);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->mem && c->mem != MAP_FAILED)
		munmap(c->mem, NREGIONS * REGION);
	rdma_destroy_id(c->id);
}

/* "conn N", and " [TAG]" if the private data is a printable string. */
static void conn_name(struct conn *c, int n, const struct rdma_cm_event *ev)
{
	const char *pd = ev->param.conn.private_data;
	int len = ev->param.conn.private_data_len, i;
	char tag[64];

	for (i = 0; i < len && i < (int)sizeof(tag) - 1 && pd[i]; i++) {
		if (!isgraph((unsigned char)pd[i]))
			break;
		tag[i] = pd[i];
	}
	tag[i] = 0;
	if (i && (i == len || !pd[i]))
		snprintf(c->name, sizeof(c->name), "conn %d [%s]", n, tag);
	else
		snprintf(c->name, sizeof(c->name), "conn %d", n);
}

/* Serve one connection from its CONNECT_REQUEST to its end. */
static void serve(struct rdma_event_channel *ch, struct conn *c0)
{
	struct conn c = *c0;
	struct rdma_cm_event *ev;
	bool up = true;

	if (setup(&c) || accept_conn(&c)) {
		printf("victim: %s: setup failed: %s\n", c.name,
		       strerror(errno));
		fflush(stdout);
		rdma_reject(c.id, NULL, 0);
		teardown(&c);
		return;
	}
	while (up && (ev = wait_event(ch, WAIT_MS))) {
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST &&
		    !next_request) {
			next_request = ev;	/* served next */
			continue;
		}
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			rdma_reject(ev->id, NULL, 0);
		up = ev->id != c.id ||
		     (ev->event != RDMA_CM_EVENT_DISCONNECTED &&
		      ev->event != RDMA_CM_EVENT_CONNECT_ERROR);
		rdma_ack_cm_event(ev);
	}
	report(&c);
	teardown(&c);
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *listen_id;
	int n, conns;

	if (argc != 4) {
		fprintf(stderr, "usage: %s ADDR PORT CONNECTIONS\n", argv[0]);
		return 2;
	}
	inet_pton(AF_INET, argv[1], &sin.sin_addr);
	sin.sin_port = htons(atoi(argv[2]));
	conns = atoi(argv[3]);

	if (!ch || rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen_id, (struct sockaddr *)&sin) ||
	    rdma_listen(listen_id, 4)) {
		perror("victim: listen");
		return 1;
	}
	printf("victim: listening\n");
	fflush(stdout);

	for (n = 0; n < conns; n++) {
		ev = wait_request(ch);
		if (!ev)
			break;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			struct conn c = { .id = ev->id };

			conn_name(&c, n, ev);
			printf("victim: %s: request, %u octets of private data\n",
			       c.name, ev->param.conn.private_data_len);
			rdma_ack_cm_event(ev);
			serve(ch, &c);
		} else {
			rdma_ack_cm_event(ev);
			n--;
		}
	}
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	return 0;
}
