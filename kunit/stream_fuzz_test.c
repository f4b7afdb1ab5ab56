// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the fuzz (fuzz.c) over the stream pipe (stream_pipe.c).  The
 * pipe hands each segment's ULPDU to fz_mutate() before MPA frames it,
 * so the CRC holds and DDP and RDMAP see every change.
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

kunit_test_suites(&stream_fuzz_suite);
