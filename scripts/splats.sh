# SPDX-License-Identifier: GPL-2.0
# Shared by make check and make fuzz (sourced, not run): what in the
# guest's kernel log fails a run.

splat_re='BUG:|WARNING:|Oops|KASAN|UBSAN|general protection|Call Trace:|'
splat_re+='circular locking|possible recursive locking|suspicious RCU|'
splat_re+='INFO: task|rcu.* stall|self-detected stall|unreferenced object|'
splat_re+='kmemleak: [0-9]+ new suspected|'
splat_re+='waiting for .* to become free'

# no_splats DIR: DIR (the VM's results) has the kernel log of the whole
# run (kmsg.log, guest/init), and neither it, the ring buffer's last part
# nor the console shows any of them.
no_splats() {
	local f
	for f in "$1/kmsg.log" "$1/dmesg.log" "$1/console.log"; do
		[ -f "$f" ] || continue
		! grep -E "$splat_re" "$f" || return 1
	done
	[ -s "$1/kmsg.log" ] && [ -f "$1/dmesg.log" ]
}
