// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the stream pipe (stream_pipe.h).  Real PDs, MRs, QPs and CQs
 * from ib_core; real framing and placement; only the socket is missing.
 */
#include <linux/highmem.h>
#include <linux/slab.h>

#include "queue_fixture.h"
#include "rdmap.h"
#include "stream_pipe.h"

/* Cases run one at a time; the suite's init and exit share this. */
static struct stream_fx *the_sf;

static u32 pipe_max_segment(struct sw_ddp_llp *llp)
{
	struct pipe_end *e = container_of(llp, struct pipe_end, llp);

	return READ_ONCE(e->no_segment) ? 0 : SP_SEG_MAX;
}

/*
 * Octets from @e into its peer's MPA receive, as the TCP LLP hands them
 * over: MPA's first error stops reception and goes to the stream
 * (llp.h).  Return: that error, or SW_DDP_TERM_OK (also once stopped).
 */
struct sw_ddp_term_err sp_feed(struct pipe_end *e, const u8 *p, u32 len,
			       bool mapped)
{
	struct pipe_end *to = e->peer;
	struct sw_ddp_term_err err;
	struct mpa_flat_in f;

	if (to->rx_dead || !len)
		return SW_DDP_TERM_OK;
	mpa_flat_in_init(&f, p, len, mapped);
	err = mpa_rx_feed(&to->rx, &f.in);
	if (!sw_ddp_term_err_ok(err)) {
		to->rx_dead = true;
		sw_ddp_stream_rx_ops.error(to->stream, err);
	}
	return err;
}

/* Frame one ULPDU as MPA would, then deliver it to the peer. */
static int pipe_deliver(struct pipe_end *e, const void *hdr, u32 hdr_len,
			const struct bio_vec *bv, unsigned int nr_bv, u32 len)
{
	struct sp_wire w = { .p = e->wire, .size = SP_WIRE_MAX };
	unsigned int times = 1;
	int wire_len;
	u32 i;

	wire_len = mpa_tx_frame(&e->tx, hdr, hdr_len, bv, nr_bv, len);
	if (wire_len < 0)
		return wire_len;
	/* a mutator's longer ULPDU must still fit the wire */
	if (WARN_ON(wire_len > SP_WIRE_MAX))
		return -EMSGSIZE;
	for (i = 0; i < e->tx.nr_bv; i++) {
		memcpy_from_bvec(e->wire + w.len, &e->tx.bv[i]);
		w.len += e->tx.bv[i].bv_len;
	}
	if (e->cut && e->cut < w.len) {
		e->kept = w.len - e->cut;
		w.len = e->cut;
	}
	if (e->wire_mutate)
		times = e->wire_mutate(e, &w);
	w.split = min(w.split, w.len);
	for (i = 0; i < times; i++) {
		sp_feed(e, w.p, w.split, !w.unmapped);
		sp_feed(e, w.p + w.split, w.len - w.split, !w.unmapped);
	}
	return 0;
}

/* The segment flattened, handed to the mutator, framed as it says. */
static int pipe_deliver_mutated(struct pipe_end *e, const void *hdr,
				u32 hdr_len, const struct bio_vec *bv,
				unsigned int nr_bv, u32 len)
{
	unsigned int times, i;
	struct bio_vec rest;
	u32 n = hdr_len;
	int err = 0;

	if (hdr_len + len > PAGE_SIZE)
		return -EMSGSIZE;
	memcpy(e->ulpdu, hdr, hdr_len);
	for (i = 0; i < nr_bv && n < hdr_len + len; i++) {
		u32 piece = min(bv[i].bv_len, hdr_len + len - n);

		memcpy_from_page(e->ulpdu + n, bv[i].bv_page, bv[i].bv_offset,
				 piece);
		n += piece;
	}
	if (n != hdr_len + len)
		return -EINVAL;
	times = e->mutate(e, e->ulpdu, &n);
	hdr_len = min_t(u32, n, MPA_TX_HDR_MAX);
	bvec_set_page(&rest, virt_to_page(e->ulpdu), n - hdr_len, hdr_len);
	for (i = 0; i < times && !err; i++)
		err = pipe_deliver(e, e->ulpdu, hdr_len, &rest, n > hdr_len,
				   n - hdr_len);
	return err;
}

static int pipe_send_segment(struct sw_ddp_llp *llp, const void *hdr,
			     unsigned int hdr_len, const struct bio_vec *bv,
			     unsigned int nr_bv, u32 len, unsigned int flags)
{
	struct pipe_end *e = container_of(llp, struct pipe_end, llp);
	const u8 *ctrl = hdr;
	bool read_resp = ddp_ctrl_tagged(ctrl[0]) &&
			 rdmap_ctrl_opcode(ctrl[1]) == RDMAP_OP_READ_RESP;
	bool last = ddp_ctrl_last(ctrl[0]);
	struct ddp_tagged_hdr resp;
	int err;

	if (!ddp_ctrl_tagged(ctrl[0]) &&
	    rdmap_ctrl_opcode(ctrl[1]) == RDMAP_OP_TERMINATE)
		e->nterm++;
	if (e->closed)
		return -ESHUTDOWN;	/* our close (llp.h) */
	if (e->peer->closed)
		return -ENOTCONN;	/* as a reset come before it */
	if (e->fail_read_resp && read_resp)
		return e->fail_read_resp;
	if (flags & SW_DDP_SEG_NOW) {
		e->nnow++;
		if (e->refuse_now)
			return -EAGAIN;
	}
	if (!e->nsent++) {
		memcpy(e->first, hdr, sizeof(e->first));
		e->first_len = len;
	}
	if (e->zero_resp_any && !len && read_resp) {
		rdmap_tagged_init(&resp, RDMAP_OP_READ_RESP, last, 0x5eed1e55,
				  0xf00dULL << 32);
		hdr = &resp;
		e->nrewritten++;
	}
	if (e->mutate)
		err = pipe_deliver_mutated(e, hdr, hdr_len, bv, nr_bv, len);
	else
		err = pipe_deliver(e, hdr, hdr_len, bv, nr_bv, len);
	if (!err && read_resp && e->read_resp_sent)
		e->read_resp_sent(e, last);
	return err;
}

/* The rest of a segment cut short by pipe_deliver(), now. */
void sp_deliver_kept(struct pipe_end *e)
{
	u32 kept = e->kept;

	e->kept = 0;
	sp_feed(e, e->wire + e->cut, kept, true);
}

static void pipe_close(struct sw_ddp_llp *llp, bool abortive)
{
	container_of(llp, struct pipe_end, llp)->closed = true;
}

static void pipe_rtr_received(struct sw_ddp_llp *llp)
{
	atomic_inc(&container_of(llp, struct pipe_end, llp)->rtr_received);
}

static const struct sw_ddp_llp_ops pipe_ops = {
	.max_segment = pipe_max_segment,
	.send_segment = pipe_send_segment,
	.close = pipe_close,
	.rtr_received = pipe_rtr_received,
};

static struct ib_qp *stream_qp(struct kunit *test, struct stream_fx *sf,
			       int i)
{
	struct ib_qp_init_attr attr;
	struct ib_qp *qp;

	qf_init_attr(test, &attr, sf->cq[i], 16, 16);
	if (i == 1 && sf->srq) {
		attr.srq = sf->srq;
		attr.cap.max_recv_wr = 0;
		attr.cap.max_recv_sge = 0;
	}
	qp = ib_create_qp(sf->pd, &attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	return qp;
}

/* Connect end i to the other: what the connection manager will do. */
static void stream_connect(struct kunit *test, struct stream_fx *sf, int i,
			   const struct rtr_case *rc, u8 reads, bool crc,
			   bool markers)
{
	struct pipe_end *e = &sf->end[i];
	struct sw_ddp_qp *qp;

	e->qp = stream_qp(test, sf, i);
	qp = to_qp(e->qp);
	e->peer = &sf->end[!i];
	e->llp.ops = &pipe_ops;
	e->llp.qp = qp;
	if (rc && i == 0)
		e->llp.rtr_send = rc->send;
	if (rc && i == 1)
		e->llp.rtr_wait = rc->wait;
	e->wire = kunit_kzalloc(test, SP_WIRE_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->wire);
	e->crc = crc;
	e->markers = markers;
	KUNIT_ASSERT_EQ(test, mpa_tx_init(&e->tx, crc, markers, 0, SP_SEG_MAX,
					  8), 0);
	e->stream = sw_ddp_stream_create(qp, &e->llp, reads, reads);
	KUNIT_ASSERT_FALSE(test, IS_ERR(e->stream));
	KUNIT_ASSERT_EQ(test, mpa_rx_init(&e->rx, &sw_ddp_stream_rx_ops,
					  e->stream, crc, markers, 0), 0);
	qp->llp = &e->llp;
	sw_ddp_stream_attach(e->stream);
	KUNIT_ASSERT_EQ(test, qf_modify_state(e->qp, IB_QPS_RTS), 0);
}

/* Stop both ends before freeing either: each one's sender feeds the other. */
void sp_exit(struct kunit *test)
{
	struct stream_fx *sf = the_sf;
	int i;

	for (i = 0; sf && i < 2; i++)
		sf->end[i].closed = true;
	for (i = 0; sf && i < 2; i++)
		if (sf->end[i].stream) {
			sw_ddp_stream_detach(sf->end[i].stream);
			cancel_work_sync(&sf->end[i].stream->tx_work);
		}
	for (i = 0; sf && i < 2; i++) {
		struct pipe_end *e = &sf->end[i];

		if (e->stream)
			sw_ddp_stream_destroy(e->stream);
		if (e->qp) {
			to_qp(e->qp)->llp = NULL;
			ib_destroy_qp(e->qp);
		}
		mpa_tx_fini(&e->tx);
		mpa_rx_fini(&e->rx);
	}
	if (sf && sf->srq)
		ib_destroy_srq(sf->srq);
	if (sf && sf->srq_pd)
		ib_dealloc_pd(sf->srq_pd);
	for (i = 0; sf && i < SP_MRS; i++)
		if (sf->mr[i])
			ib_dereg_mr(sf->mr[i]);
	if (sf && sf->pd)
		ib_dealloc_pd(sf->pd);
	the_sf = NULL;
	qf_exit(test);
}

static void sp_srq_event(struct ib_event *event, void *ctx)
{
	struct stream_fx *sf = ctx;

	if (event->event == IB_EVENT_SRQ_LIMIT_REACHED && sf->srq_event)
		sf->srq_event(sf);
}

/* End 1's SRQ, on a PD of its own. */
static int sp_srq(struct stream_fx *sf)
{
	struct ib_srq_init_attr attr = {
		.event_handler = sp_srq_event,
		.srq_context = sf,
		.attr = { .max_wr = 4, .max_sge = 1 },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_srq *srq;
	struct ib_pd *pd;

	pd = ib_alloc_pd(sf->pd->device, 0);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	sf->srq_pd = pd;
	srq = ib_create_srq(pd, &attr);
	if (IS_ERR(srq))
		return PTR_ERR(srq);
	sf->srq = srq;
	return 0;
}

/* How the two ends are set up */
struct sp_cfg {
	int pd_flags;			/* their PD's */
	const struct rtr_case *rc;	/* RFC 6581 RTR, or NULL */
	u8 reads;			/* IRD and ORD at both ends */
	bool srq;			/* end 1 receives from an SRQ */
	bool crc, markers;		/* MPA framing, both ways */
};

/* The two ends connected as @cfg says; an SRQ has a PD of its own. */
static int sp_setup(struct kunit *test, const struct sp_cfg *cfg)
{
	struct stream_fx *sf;
	int err, i;

	sf = kunit_kzalloc(test, sizeof(*sf), GFP_KERNEL);
	if (!sf)
		return -ENOMEM;
	the_sf = sf;
	err = qf_init_pd(test, cfg->pd_flags, &sf->pd);
	if (err)
		return err;
	for (i = 0; i < 2; i++) {
		sf->cq[i] = qf_cq(test, 64);
		sf->buf[i] = kunit_kzalloc(test, SP_BUF_LEN, GFP_KERNEL);
		if (!sf->buf[i])
			return -ENOMEM;
	}
	if (cfg->srq) {
		err = sp_srq(sf);
		if (err)
			return err;
	}
	for (i = 0; i < 2; i++)
		stream_connect(test, sf, i, cfg->rc, cfg->reads, cfg->crc,
			       cfg->markers);
	return 0;
}

/*
 * The two ends connected, on a PD made with @pd_flags; @rc may be NULL.
 * IRD and ORD 4, MPA with CRCs and without markers, as all that follow.
 */
int sp_init_pd(struct kunit *test, int pd_flags, const struct rtr_case *rc)
{
	return sp_setup(test, &(struct sp_cfg){ .pd_flags = pd_flags,
			.rc = rc, .reads = 4, .crc = true });
}

/* As sp_init(), without an RTR, and IRD and ORD @reads at both ends. */
int sp_init_reads(struct kunit *test, u8 reads)
{
	return sp_setup(test, &(struct sp_cfg){
			.pd_flags = IB_PD_UNSAFE_GLOBAL_RKEY, .reads = reads,
			.crc = true });
}

/* As sp_init(), without an RTR; end 1 receives from an SRQ on its own PD. */
int sp_init_srq(struct kunit *test)
{
	return sp_setup(test, &(struct sp_cfg){
			.pd_flags = IB_PD_UNSAFE_GLOBAL_RKEY, .reads = 4,
			.srq = true, .crc = true });
}

/* As sp_init(), without an RTR, and with or without CRCs as @crc says. */
int sp_init_crc(struct kunit *test, bool crc)
{
	return sp_setup(test, &(struct sp_cfg){
			.pd_flags = IB_PD_UNSAFE_GLOBAL_RKEY, .reads = 4,
			.crc = crc });
}

/*
 * The two ends connected on a PD without an rkey for all memory, no RTR,
 * framing as @crc and @markers say (RFC 5044 §4).
 */
int sp_init_framing(struct kunit *test, bool crc, bool markers)
{
	return sp_setup(test, &(struct sp_cfg){ .reads = 4, .crc = crc,
			.markers = markers });
}

/*
 * As sp_init_pd(), the PD with an rkey for all memory, and the case's
 * parameter, if any, an RFC 6581 RTR case (stream_test.c).
 */
int sp_init(struct kunit *test)
{
	return sp_init_pd(test, IB_PD_UNSAFE_GLOBAL_RKEY, test->param_value);
}

struct stream_fx *sp_fx(struct kunit *test)
{
	return the_sf;
}
