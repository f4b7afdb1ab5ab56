/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Common ground for the wire-format headers in include/sw_ddp/.
 *
 * These headers define every byte sw_ddp puts on or takes off the wire.
 * They are shared by the kernel module, the KUnit suites and the userspace
 * test tools, so they use only fixed-size types with explicit byte order
 * and never depend on the compiler's bit-field layout.
 */
#ifndef SW_DDP_WIRE_H
#define SW_DDP_WIRE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <asm/byteorder.h>
#else
#include <linux/types.h>
#include <assert.h>
#include <endian.h>
#include <stdbool.h>
#include <stddef.h>

#define cpu_to_be16(x) ((__be16)htobe16(x))
#define cpu_to_be32(x) ((__be32)htobe32(x))
#define cpu_to_be64(x) ((__be64)htobe64(x))
#define be16_to_cpu(x) be16toh((__u16)(x))
#define be32_to_cpu(x) be32toh((__u32)(x))
#define be64_to_cpu(x) be64toh((__u64)(x))

/* Kernel spellings, so the inline helpers read the same on both sides. */
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

/* User space builds define __packed on the command line (tools/Makefile). */
#ifndef __packed
#error "define __packed as the compiler's packed attribute"
#endif
#endif

#endif /* SW_DDP_WIRE_H */
