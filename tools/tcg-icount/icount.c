// SPDX-License-Identifier: GPL-2.0
/*
 * icount: a QEMU TCG plugin that counts the guest kernel's executed
 * instructions per translation block, for Documentation/performance.rst.
 *
 * Sampling profilers under TCG attribute time loosely and vary from boot
 * to boot; instruction counts are exact and repeatable.  Every kernel
 * translation block (vaddr in the upper half) gets a counter of its
 * executions; each time the guest enters the trigger address (give it
 * __x64_sys_syncfs from System.map, and boot with nokaslr) the counts so
 * far go to OUT.N, N = 0, 1, ...  The guest brackets a workload with two
 * "sync -f /" calls; scripts/icount-report.py diffs the two files and
 * maps them to symbols with the guest's /proc/kallsyms.
 *
 *   qemu-system-x86_64 ... -plugin icount.so,trigger=0xffff...,out=/tmp/ic
 *
 * The counters are atomic: the guest's vCPUs run in parallel (thread=multi).
 * A block cut short by an exception still counts whole: noise of a few
 * instructions per page fault or interrupt.
 *
 * Each snapshot also has, per vCPU, all instructions it executed in user
 * space and in the kernel.  A vCPU whose process busy-polls never idles,
 * so its total per message is the round trip's length in instructions,
 * waiting included, which the kernel's blocks alone do not show.
 *
 * scripts/icount.sh builds it and runs the whole measurement.
 */
#include <pthread.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin-abi.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

#define KERNEL_START	0xffff800000000000ULL
#define TABLE_BITS	20			/* 2^20 blocks, far more than used */
#define TABLE_SIZE	1048576
#define MAX_VCPUS	64

struct block {
	uint64_t vaddr;
	uint64_t insns;				/* in the block */
	uint64_t execs;
	bool used;
};

static struct block *table;
static uint64_t trigger;
static const char *out = "icount";
static unsigned int snapshots;
static uint64_t lost;				/* blocks the table had no room for */
/* per vCPU, a cache line each: the vCPU threads add to them all the time */
static struct {
	alignas(64) uint64_t user;
	uint64_t kernel;
} vcpu_insns[MAX_VCPUS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t hash(uint64_t vaddr, uint64_t insns)
{
	uint64_t h = (vaddr ^ (insns << 48)) * 0x9e3779b97f4a7c15ULL;

	return h >> (64 - TABLE_BITS);
}

/* vCPU threads translate in parallel: inserts take table_lock. */
static struct block *block_get(uint64_t vaddr, uint64_t insns)
{
	uint64_t i = hash(vaddr, insns), n;
	struct block *found = NULL;

	pthread_mutex_lock(&table_lock);
	for (n = 0; n < TABLE_SIZE; n++, i = (i + 1) & (TABLE_SIZE - 1)) {
		struct block *b = &table[i];

		if (!b->used) {
			b->vaddr = vaddr;
			b->insns = insns;
			/* complete before a snapshot sees it */
			__atomic_store_n(&b->used, true, __ATOMIC_RELEASE);
			found = b;
			break;
		}
		if (b->vaddr == vaddr && b->insns == insns) {
			found = b;
			break;
		}
	}
	if (!found)
		lost++;
	pthread_mutex_unlock(&table_lock);
	return found;
}

static void snapshot(void)
{
	char path[4096];
	uint64_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s.%u", out, snapshots++);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "# vaddr insns execs (lost blocks %llu)\n",
		(unsigned long long)lost);
	for (i = 0; i < MAX_VCPUS; i++) {
		uint64_t u = __atomic_load_n(&vcpu_insns[i].user,
					     __ATOMIC_RELAXED);
		uint64_t k = __atomic_load_n(&vcpu_insns[i].kernel,
					     __ATOMIC_RELAXED);

		if (u || k)
			fprintf(f, "# vcpu %llu user %llu kernel %llu\n",
				(unsigned long long)i, (unsigned long long)u,
				(unsigned long long)k);
	}
	for (i = 0; i < TABLE_SIZE; i++) {
		struct block *b = &table[i];
		uint64_t execs;

		if (!__atomic_load_n(&b->used, __ATOMIC_ACQUIRE))
			continue;
		execs = __atomic_load_n(&b->execs, __ATOMIC_RELAXED);
		if (execs)
			fprintf(f, "%llx %llu %llu\n",
				(unsigned long long)b->vaddr,
				(unsigned long long)b->insns,
				(unsigned long long)execs);
	}
	fclose(f);
}

static void block_exec(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	__atomic_fetch_add(&b->execs, 1, __ATOMIC_RELAXED);
	if (vcpu < MAX_VCPUS)
		__atomic_fetch_add(&vcpu_insns[vcpu].kernel, b->insns,
				   __ATOMIC_RELAXED);
}

/* A user-space block: only its vCPU's total, @udata its length. */
static void user_exec(unsigned int vcpu, void *udata)
{
	if (vcpu < MAX_VCPUS)
		__atomic_fetch_add(&vcpu_insns[vcpu].user, (uintptr_t)udata,
				   __ATOMIC_RELAXED);
}

static void trigger_exec(unsigned int vcpu, void *udata)
{
	static int busy;

	/* one snapshot at a time; a second vCPU's sync is not one */
	if (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE))
		return;
	snapshot();
	__atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
}

static void tb_trans(uint64_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct block *b;

	if (vaddr < KERNEL_START) {
		void *len = (void *)(uintptr_t)qemu_plugin_tb_n_insns(tb);

		qemu_plugin_register_vcpu_tb_exec_cb(tb, user_exec,
						     QEMU_PLUGIN_CB_NO_REGS, len);
		return;
	}
	if (vaddr == trigger)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, trigger_exec,
						     QEMU_PLUGIN_CB_NO_REGS,
						     NULL);
	b = block_get(vaddr, qemu_plugin_tb_n_insns(tb));
	if (!b)
		return;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, block_exec,
					     QEMU_PLUGIN_CB_NO_REGS, b);
}

static void at_exit(uint64_t id, void *udata)
{
	snapshot();
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(uint64_t id,
					   const struct qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "trigger=", 8)) {
			trigger = strtoull(argv[i] + 8, NULL, 16);
		} else if (!strncmp(argv[i], "out=", 4)) {
			out = argv[i] + 4;
		} else {
			fprintf(stderr, "icount: unknown argument %s\n",
				argv[i]);
			return -1;
		}
	}
	table = calloc(TABLE_SIZE, sizeof(*table));
	if (!table)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
