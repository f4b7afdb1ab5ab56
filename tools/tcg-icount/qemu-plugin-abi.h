/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of QEMU's TCG plugin C ABI (API version 1, QEMU 7.2, Debian
 * 12) that icount.c uses, declared here so that no QEMU development
 * headers are needed.  Opaque handles stay opaque; ids are uint64_t.
 */
#ifndef TCG_ICOUNT_QEMU_PLUGIN_ABI_H
#define TCG_ICOUNT_QEMU_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#define QEMU_PLUGIN_EXPORT	__attribute__((visibility("default")))

struct qemu_plugin_tb;
struct qemu_info_t;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
};

void qemu_plugin_register_vcpu_tb_trans_cb(uint64_t id,
					   void (*cb)(uint64_t id,
						      struct qemu_plugin_tb *tb));
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  void (*cb)(unsigned int vcpu,
						     void *udata),
					  enum qemu_plugin_cb_flags flags,
					  void *udata);
void qemu_plugin_register_atexit_cb(uint64_t id,
				    void (*cb)(uint64_t id, void *udata),
				    void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

#endif /* TCG_ICOUNT_QEMU_PLUGIN_ABI_H */
