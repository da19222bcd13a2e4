#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# with_caches.sh COMMAND [ARG...]: COMMAND on this machine as if it had
# cache directories: in a private mount namespace, a copy of
# /sys/devices/system/cpu with cpuN/cache/index0-3 added
# (tests/topo/addcaches.py: L1 and L2 per core, L3 per package, in the
# kernel's formats) is mounted over the real one, for COMMAND and its
# children only; the host's /sys is never changed. A CPU that has cache
# directories keeps its own. Needs root (unshare -m, mount --bind).
# Exits 77 (skipped) without them, else COMMAND's status.
# The copy is mounted read-only: root may write any file of a tmpfs, and a
# test that tries a write the kernel refuses (a write reopen of online)
# would otherwise truncate the copy for every later program. Writes the
# kernel allows (cpuN/online) fail too, with EROFS: no hotplug in here.
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
	echo "with_caches.sh: needs root and unshare (util-linux) for a mount namespace" >&2
	exit 77
fi
# the copy is made inside the namespace, on a tmpfs of its own (gone with it)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cpusetshim-caches.XXXXXX") || exit 1
trap 'rmdir "$tmp"' EXIT
unshare -m --propagation private sh -c 'mount -t tmpfs -o mode=755 cpusetshim-cpu "$0" &&
	"$1" "$2" "$0/cpu" >&2 && mount --bind "$0/cpu" /sys/devices/system/cpu &&
	mount -o remount,bind,ro /sys/devices/system/cpu || exit 1
	shift 2 && exec "$@"' \
	"$tmp" "${PYTHON3:-python3}" "$here/addcaches.py" "$@"
