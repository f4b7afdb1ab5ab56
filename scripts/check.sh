#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: install what is missing, build the debug test kernel
# (cached), build the modules warning-free, prove the 6.1 build, run
# checkpatch, then boot QEMU for the KUnit suites and end-to-end tests.
# Every check is one TAP line; the last line is `N passed, N failed`.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
results=${SW_DDP_RESULTS:-$top/results/check}
rm -rf "$results"
mkdir -p "$results"
host_tap=$results/host.tap
log=$results/host.log
: > "$host_tap"
: > "$log"

. "$top/scripts/splats.sh"

say() { echo "check: $*"; }

# host_check NAME CMD...: one host-side check, output to host.log.
host_check() {
	local name=$1
	shift
	say "$name"
	echo "=== $name" >> "$log"
	if "$@" >> "$log" 2>&1; then
		echo "ok - $name" >> "$host_tap"
	else
		echo "not ok - $name" >> "$host_tap"
		say "  FAILED (see $log)"
	fi
}

build_modules() {
	make -C "$top" KDIR="$kdir" clean >/dev/null &&
		make -C "$top" KDIR="$kdir" W=1 C=2 kunit 2>&1 | tee "$results/build.log" &&
		! grep -E 'warning:|error:' "$results/build.log"
}

summarize() {
	local all=$results/all.tap pass fail skip
	cat "$host_tap" "$results/vm/e2e.tap" > "$all" 2>/dev/null
	if compgen -G "$results/vm/kunit/*.ktap" >/dev/null; then
		"$top/scripts/ktap.py" "$results"/vm/kunit/*.ktap >> "$all"
	fi
	skip=$(grep -c '^ok .*# SKIP' "$all")
	pass=$(($(grep -c '^ok ' "$all") - skip))
	fail=$(grep -c '^not ok ' "$all")
	echo
	echo "KUnit: $(grep -c '^ok - kunit:' "$all") passed," \
		"$(grep -c '^not ok - kunit:' "$all") failed"
	echo "End to end: $(grep -c '^ok ' "$results/vm/e2e.tap" 2>/dev/null)" \
		"passed, $(grep -c '^not ok ' "$results/vm/e2e.tap" 2>/dev/null) failed"
	grep '^not ok ' "$all" | sed 's/^/FAILED: /'
	echo "Logs: $results"
	if [ "$skip" -gt 0 ]; then
		echo "$pass passed, $fail failed, $skip skipped"
	else
		echo "$pass passed, $fail failed"
	fi
	[ "$fail" -eq 0 ]
}

"$top/scripts/install-deps.sh" || { echo "0 passed, 1 failed"; exit 1; }
kdir=$("$top/scripts/build-kernel.sh" debug) || { echo "0 passed, 1 failed"; exit 1; }

host_check "build: modules with W=1 and sparse, warning-free" build_modules
host_check "build: tools (user space, -Werror)" make -C "$top/tools"
host_check "build: Debian 12 6.1 headers (compat-check)" "$top/scripts/compat-check.sh"
host_check "style: checkpatch --strict" env KDIR="$kdir" "$top/scripts/checkpatch.sh"

# The guest tests take 35 to 60 minutes on two cores; a busy or slower
# machine gets room (90 minutes of CI hold this, the kernel build and all).
say "booting the test VM (TCG; this takes a while)"
host_check "vm: boots and runs the guest tests" \
	env VM_TIMEOUT="${VM_TIMEOUT:-4200}" \
	"$top/scripts/vm-run.sh" "$kdir" "$results/vm" "$top/scripts/guest/check.sh"
host_check "vm: no kernel splats (KASAN, lockdep, WARN, BUG, kmemleak)" \
	no_splats "$results/vm"

summarize
