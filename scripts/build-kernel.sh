#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the test kernel from Debian's linux-source-6.12 and print its build
# directory.  The build is cached outside the repository, keyed by the
# config fragments, this script and the source package version, so a second
# run with the same inputs only prints the path.
#
# usage: build-kernel.sh debug|bench
set -euo pipefail

variant=${1:-debug}
here=$(cd "$(dirname "$0")" && pwd)
frags=("$here/kconfig/base.config" "$here/kconfig/$variant.config")
[ -f "${frags[1]}" ] || { echo "build-kernel: no variant '$variant'" >&2; exit 2; }

tarball=/usr/src/linux-source-6.12.tar.xz
[ -f "$tarball" ] || { echo "build-kernel: $tarball missing (run scripts/install-deps.sh)" >&2; exit 2; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)

cache=${SW_DDP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sw_ddp}
key=$( { cat "${frags[@]}" "$0"; echo "$srcver"; } | sha256sum | cut -c1-12)
dir=$cache/kernel-$variant-$key
mkdir -p "$cache"

exec 9>"$dir.lock"
flock 9
if [ -f "$dir/.sw_ddp-built" ]; then
	echo "$dir"
	exit 0
fi

log() { echo "build-kernel: $*" >&2; }
log "building $variant kernel in $dir (first time only)"
rm -rf "$dir"
mkdir -p "$dir"
tar -C "$dir" --strip-components=1 -xf "$tarball"

cat "${frags[@]}" > "$dir/sw_ddp.config"
make -C "$dir" -s KCONFIG_ALLCONFIG="$dir/sw_ddp.config" allnoconfig >&2

# Every line of the fragments must survive Kconfig's dependency resolution.
bad=0
while IFS= read -r line; do
	case "$line" in CONFIG_*=*) ;; *) continue ;; esac
	sym=${line%%=*}
	val=${line#*=}
	if [ "$val" = n ]; then
		grep -q "^$sym=" "$dir/.config" && { log "$sym should be off"; bad=1; }
	else
		grep -qxF "$line" "$dir/.config" || { log "$line did not stick"; bad=1; }
	fi
done < "$dir/sw_ddp.config"
[ $bad -eq 0 ] || { log "config fragment does not apply"; exit 1; }

make -C "$dir" -s -j"$(nproc)" bzImage modules >&2
touch "$dir/.sw_ddp-built"
log "done"
echo "$dir"
