#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make fuzz`: the KUnit fuzz cases on seeds make check never runs, round
# after round for FUZZ_MINUTES, in the make check kernel (KASAN, lockdep,
# kmemleak): sw_ddp_mpa_fuzz, sw_ddp_stream_fuzz and sw_ddp_sctp_fuzz
# (hostile segments through the whole receive path, kunit/fuzz.c), the
# MPA Request and Reply fuzz (cm_test.c) and SCTP session control's
# (sctp_session_test.c).  A search for what make check's fixed seeds
# miss, not a test of its own.
#
# Environment: FUZZ_MINUTES (default 30), FUZZ_BASE (the first round's
# seed_base; default a random multiple of FUZZ_STRIDE, printed, so that a
# failure can be repeated with it), FUZZ_STRIDE (seeds between rounds,
# default 256, at least the most seeds a case runs), FUZZ_SUITES (KUnit
# filter_glob, default 'sw_ddp_*.*fuzz*'), SW_DDP_RESULTS (default
# results/fuzz).  Ends with the line `N passed, N failed`, a case being a
# block of seeds.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
results=${SW_DDP_RESULTS:-$top/results/fuzz}
. "$top/scripts/splats.sh"

minutes=${FUZZ_MINUTES:-30}
stride=${FUZZ_STRIDE:-256}
base=${FUZZ_BASE:-$(((SRANDOM % 65536 + 1) * stride))}
suites=${FUZZ_SUITES:-sw_ddp_*.*fuzz*}

rm -rf "$results"
mkdir -p "$results/vm"
"$top/scripts/install-deps.sh" || exit 1
kdir=$("$top/scripts/build-kernel.sh" debug) || exit 1
{ make -C "$top" KDIR="$kdir" clean && make -C "$top" KDIR="$kdir" kunit; } \
	> "$results/build.log" 2>&1 || { tail -20 "$results/build.log"; exit 1; }

cat > "$results/vm/fuzz.conf" <<CONF
FUZZ_MINUTES=$minutes
FUZZ_BASE=$base
FUZZ_STRIDE=$stride
FUZZ_SUITES='$suites'
CONF
echo "fuzz: $minutes minutes of $suites from seed_base $base" \
	"(FUZZ_BASE=$base repeats it)"
VM_TIMEOUT=$((minutes * 60 + 1200)) \
	"$top/scripts/vm-run.sh" "$kdir" "$results/vm" "$top/scripts/guest/fuzz.sh"

all=$results/all.tap
cat "$results/vm/e2e.tap" > "$all" 2>/dev/null
for d in "$results"/vm/round-*/; do
	compgen -G "$d*.ktap" >/dev/null && "$top/scripts/ktap.py" "$d"*.ktap
done >> "$all"
if no_splats "$results/vm"; then
	echo "ok - vm: no kernel splats" >> "$all"
else
	echo "not ok - vm: no kernel splats (see $results/vm/kmsg.log)" >> "$all"
fi
[ "$(cat "$results/vm/exit-status" 2>/dev/null)" = 0 ] ||
	echo "not ok - vm: the guest script ended early (see $results/vm/guest.log)" >> "$all"

rounds=$(wc -l < "$results/vm/rounds" 2>/dev/null || echo 0)
echo "fuzz: $rounds rounds from seed_base $base, stride $stride"
grep '^not ok ' "$all" | sed 's/^/FAILED: /'
echo "Logs: $results"
pass=$(grep -c '^ok ' "$all")
fail=$(grep -c '^not ok ' "$all")
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
