// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the fuzz (fuzz.c) over the stream pipe (stream_pipe.c).  In
 * sw_ddp_stream_fuzz the pipe hands each segment's ULPDU to fz_mutate()
 * before MPA frames it, so the CRC holds and DDP and RDMAP see every
 * change.  In sw_ddp_mpa_fuzz it hands each FPDU, as framed, to
 * fz_mutate_wire(), in each framing MPA may negotiate (CRC, markers,
 * both, neither), and feeds it in one piece or two, mapped or to be
 * read, as TCP may: MPA sees every change first.
 */
#include <kunit/test.h>
#include <linux/workqueue.h>

#include "fuzz.h"
#include "rdmap.h"
#include "stream_pipe.h"

#define SF_BLOCKS	8
#define SF_PER_BLOCK	32

static_assert(SP_BUF_LEN >= FZ_BUF_LEN && SP_MRS >= FZ_MRS);

static unsigned int sf_mutate(struct pipe_end *e, u8 *ulpdu, u32 *len)
{
	return fz_mutate(e->mutate_priv, ulpdu, len);
}

/* No rkey for all memory: only the MRs a case makes are remote. */
static int sf_init(struct kunit *test)
{
	return sp_init_pd(test, 0, NULL);
}

static struct fz_link *sf_link(struct kunit *test)
{
	struct stream_fx *sf = sp_fx(test);
	struct fz_link *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, l);
	l->pd = sf->pd;
	l->mr = sf->mr;
	l->priv = sf;
	for (i = 0; i < 2; i++) {
		l->cq[i] = sf->cq[i];
		l->qp[i] = sf->end[i].qp;
		l->buf[i] = sf->buf[i];
		sf->end[i].ulpdu = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, sf->end[i].ulpdu);
	}
	return l;
}

static struct pipe_end *sf_end(struct fz *fz, int i)
{
	struct stream_fx *sf = fz->link->priv;

	return &sf->end[i];
}

static void sf_arm(struct fz *fz)
{
	int i;

	for (i = 0; i < 2; i++) {
		sf_end(fz, i)->mutate_priv = &fz->end[i];
		sf_end(fz, i)->mutate = sf_mutate;
	}
}

static bool sf_told(struct fz *fz, int i)
{
	struct pipe_end *e = sf_end(fz, i);

	return e->nterm || e->stream->term_rx_len || e->peer->closed;
}

static int sf_nterm(struct fz *fz, int i)
{
	return sf_end(fz, i)->nterm;
}

/* Nothing still placing: each end's sender feeds the other. */
static void sf_quiesce(struct kunit *test, struct fz *fz)
{
	int i, k;

	for (k = 0; k < 2; k++)
		for (i = 0; i < 2; i++)
			flush_work(&sf_end(fz, i)->stream->tx_work);
}

static const struct fz_transport sf_transport = {
	.name = "MPA pipe",
	.per_block = SF_PER_BLOCK,
	.init = sf_init,
	.exit = sp_exit,
	.link = sf_link,
	.arm = sf_arm,
	.told = sf_told,
	.nterm = sf_nterm,
	.quiesce = sf_quiesce,
};

static void stream_fuzz(struct kunit *test)
{
	fz_seeds(test, &sf_transport);
}

static const void *sf_gen_params(const void *prev, char *desc)
{
	return fz_next_block(prev, desc, SF_BLOCKS, SF_PER_BLOCK);
}

/* sw_ddp_mpa_fuzz: its cases, each a framing and a block of seeds */
#define MF_BLOCKS	4
#define MF_PER_BLOCK	16

/* The framings MPA may negotiate (RFC 5044 "Connection Setup") */
static const struct mf_framing {
	bool crc, markers;
} mf_framings[] = {
	{ true, true }, { true, false }, { false, true }, { false, false },
};

/* The parameter is a slot of this array: framing, then block */
static const u8 mf_slot[ARRAY_SIZE(mf_framings) * MF_BLOCKS];

static const struct mf_framing *mf_framing(const void *param)
{
	return &mf_framings[((const u8 *)param - mf_slot) / MF_BLOCKS];
}

static u32 mf_first(const void *param)
{
	return ((const u8 *)param - mf_slot) % MF_BLOCKS * MF_PER_BLOCK;
}

static const void *mf_gen_params(const void *prev, char *desc)
{
	const u8 *p = prev ? (const u8 *)prev + 1 : mf_slot;
	const struct mf_framing *f;

	if (p == mf_slot + ARRAY_SIZE(mf_slot))
		return NULL;
	f = mf_framing(p);
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s, %s: seeds %u to %u",
		 f->crc ? "CRC" : "no CRC", f->markers ? "markers" : "none",
		 fz_seed(mf_first(p)), fz_seed(mf_first(p) + MF_PER_BLOCK - 1));
	return p;
}

static int mf_init(struct kunit *test)
{
	const struct mf_framing *f = mf_framing(test->param_value);

	return sp_init_framing(test, f->crc, f->markers);
}

/* The ULPDU as sent, watched for leaks; spoilt only once framed. */
static unsigned int mf_watch(struct pipe_end *e, u8 *ulpdu, u32 *len)
{
	fz_watch(e->mutate_priv, ulpdu, *len);
	return 1;
}

static unsigned int mf_wire(struct pipe_end *e, struct sp_wire *w)
{
	struct fz_end *fe = e->mutate_priv;
	unsigned int times = fz_mutate_wire(fe, w->p, &w->len, w->size);

	/* as TCP hands it over: in two pieces, or octets to be read */
	if (fz_rand(&fe->rnd, 2))
		w->split = fz_rand(&fe->rnd, w->len + 1);
	w->unmapped = !fz_rand(&fe->rnd, 4);
	return times;
}

static void mf_arm(struct fz *fz)
{
	int i;

	fz->summed = sf_end(fz, 0)->crc;
	for (i = 0; i < 2; i++) {
		sf_end(fz, i)->mutate_priv = &fz->end[i];
		sf_end(fz, i)->mutate = mf_watch;
		sf_end(fz, i)->wire_mutate = mf_wire;
	}
}

static const struct fz_transport mf_transport = {
	.name = "MPA wire",
	.per_block = MF_PER_BLOCK,
	.init = mf_init,
	.exit = sp_exit,
	.link = sf_link,
	.arm = mf_arm,
	.told = sf_told,
	.nterm = sf_nterm,
	.quiesce = sf_quiesce,
};

static void mpa_fuzz(struct kunit *test)
{
	fz_run(test, &mf_transport, mf_first(test->param_value));
}

static struct kunit_case mpa_fuzz_cases[] = {
	KUNIT_CASE_PARAM_ATTR(mpa_fuzz, mf_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite mpa_fuzz_suite = {
	.name = "sw_ddp_mpa_fuzz",
	.init = mf_init,
	.exit = sp_exit,
	.test_cases = mpa_fuzz_cases,
};

static struct kunit_case stream_fuzz_cases[] = {
	KUNIT_CASE_PARAM_ATTR(stream_fuzz, sf_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite stream_fuzz_suite = {
	.name = "sw_ddp_stream_fuzz",
	.init = sf_init,
	.exit = sp_exit,
	.test_cases = stream_fuzz_cases,
};

kunit_test_suites(&stream_fuzz_suite, &mpa_fuzz_suite);
