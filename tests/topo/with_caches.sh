#!/bin/sh
# with_caches.sh COMMAND [ARG...]: COMMAND on this machine as if it had
# cache directories: in a private mount namespace, a copy of
# /sys/devices/system/cpu with cpuN/cache/index0-3 added
# (tests/topo/addcaches.py: L1 and L2 per core, L3 per package, in the
# kernel's formats) is mounted over the real one, for COMMAND and its
# children only; the host's /sys is never changed. A CPU that has cache
# directories keeps its own. Needs root (unshare -m, mount --bind).
# Exits 77 (skipped) without them, else COMMAND's status.
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
	echo "with_caches.sh: needs root and unshare (util-linux) for a mount namespace" >&2
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cpusetshim-caches.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
"${PYTHON3:-python3}" "$here/addcaches.py" "$tmp/cpu" >&2 || exit 1
unshare -m --propagation private sh -c 'mount --bind "$0" /sys/devices/system/cpu && exec "$@"' \
	"$tmp/cpu" "$@"
