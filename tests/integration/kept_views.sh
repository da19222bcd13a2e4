#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Kept views: /sys/devices/system/cpu/online and /proc/cpuinfo served
# from files of the table's views directory (read-only, ours, 0755), the
# same as views made at each open (CPUSETSHIM_KEEP_VIEWS=0), made again
# when old or missing, never taken from a directory of another user or
# one others may write; each table its own directory, removed by cpuset
# init.
. "$(dirname "$0")/../common.sh"
need timeout coreutils
need "$PYTHON3" python3
need stat coreutils
two_sets

note "---- kept views ----"
VDIR="/dev/shm/$CPUSETSHIM_TABLE.views.$(id -u)"
FDLINK='import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); print(os.readlink("/proc/self/fd/%d" % fd)); print(os.read(fd, 65536).decode(), end="")'
rm -rf "$VDIR"
in_set "$S1" "$PYTHON3" -c "$FDLINK" /sys/devices/system/cpu/online >"$T/kv.out"
expect_eq "kept view: online opens a file of the views directory" \
	"$(head -n 1 "$T/kv.out")" "$VDIR/range-1"
expect_eq "kept view: its contents" "$(sed -n 2p "$T/kv.out")" 0
expect_eq "kept view: the directory is ours, 0755" "$(stat -c '%u %a' "$VDIR")" "$(id -u) 755"
expect_eq "kept view: the file is read-only" "$(stat -c '%a' "$VDIR/range-1")" 444
with_san env CPUSETSHIM_KEEP_VIEWS=0 timeout 120 "$CPUSET_RUN" --set "$S1" \
	"$PYTHON3" -c "$FDLINK" /sys/devices/system/cpu/online >"$T/kv.out"
expect_match "CPUSETSHIM_KEEP_VIEWS=0: an unlinked tmpfs file made at the open" \
	"$(head -n 1 "$T/kv.out")" '^/dev/shm/#[0-9]+ [(]deleted[)]$'
expect_eq "CPUSETSHIM_KEEP_VIEWS=0: the same contents" "$(sed -n 2p "$T/kv.out")" 0
nomhz() { grep -v '^cpu MHz' "$@"; }
in_set "$S1" cat /proc/cpuinfo >"$T/ci.kept"
with_san env CPUSETSHIM_KEEP_VIEWS=0 timeout 120 "$CPUSET_RUN" --set "$S1" cat /proc/cpuinfo >"$T/ci.made"
expect_eq "kept cpuinfo: the same as one made at the open (but cpu MHz)" \
	"$(nomhz "$T/ci.kept" | cksum)" "$(nomhz "$T/ci.made" | cksum)"
expect_eq "kept cpuinfo: one processor" "$(grep -c '^processor' "$T/ci.kept")" 1
ci=$(ls "$VDIR" | grep '^cpuinfo-' | head -n 1)
expect_ne "kept cpuinfo: kept in the views directory" "$ci" ""
# past its second, a kept cpuinfo is made again from the real file
if [ -n "$ci" ]; then
	chmod 644 "$VDIR/$ci"
	printf 'processor\t: 7\nstale: yes\n' >"$VDIR/$ci"
	touch -d '1 hour ago' "$VDIR/$ci"
	in_set "$S1" cat /proc/cpuinfo >"$T/ci.again"
	expect_eq "kept cpuinfo: an old one is made again" \
		"$(nomhz "$T/ci.again" | cksum)" "$(nomhz "$T/ci.made" | cksum)"
fi
# a directory someone else owns is not trusted
rm -rf "$VDIR"
mkdir -m 0755 "$VDIR"
printf '0-99\n' >"$VDIR/range-1"
chown -R nobody "$VDIR"
in_set "$S1" "$PYTHON3" -c "$FDLINK" /sys/devices/system/cpu/online >"$T/kv.out"
expect_match "a views directory of another user: not used" "$(head -n 1 "$T/kv.out")" \
	'^/dev/shm/#[0-9]+ [(]deleted[)]$'
expect_eq "a views directory of another user: contents still right" \
	"$(sed -n 2p "$T/kv.out")" 0
rm -rf "$VDIR"
mkdir -m 0777 "$VDIR"
in_set "$S1" "$PYTHON3" -c "$FDLINK" /sys/devices/system/cpu/online >"$T/kv.out"
expect_match "a views directory others may write: not used" "$(head -n 1 "$T/kv.out")" \
	'^/dev/shm/#[0-9]+ [(]deleted[)]$'
rm -rf "$VDIR"
in_set "$S1" cat /sys/devices/system/cpu/online >/dev/null
expect_eq "kept views: made again when missing" "$(cat "$VDIR/range-1" 2>/dev/null)" 0
xt="$CPUSETSHIM_TABLE.x"
env CPUSETSHIM_TABLE="$xt" "$CPUSET" init --force >/dev/null &&
	env CPUSETSHIM_TABLE="$xt" "$CPUSET" create --cpus 1 --name one >/dev/null &&
	with_san env CPUSETSHIM_TABLE="$xt" timeout 120 "$CPUSET_RUN" --set one \
		cat /sys/devices/system/cpu/online >/dev/null
expect_eq "another table: its own views directory" \
	"$(cat "/dev/shm/$xt.views.$(id -u)/range-1" 2>/dev/null)" 0
# a pool of a process killed before its exit removed it: one level down
mkdir "/dev/shm/$xt.views.$(id -u)/p.1" && : >"/dev/shm/$xt.views.$(id -u)/p.1/0"
env CPUSETSHIM_TABLE="$xt" "$CPUSET" init --force >/dev/null
expect_eq "cpuset init removes the table's kept views, a pool's folder with them" \
	"$(ls -d "/dev/shm/$xt.views.$(id -u)" 2>/dev/null)" ""
expect_eq "cpuset init leaves other tables' kept views" "$(cat "$VDIR/range-1" 2>/dev/null)" 0
rm -f "/dev/shm/$xt"

note "---- a kept view reopened to write through its descriptor ----"
# As root, /proc/self/fd/N of a kept view opened O_WRONLY|O_TRUNC, or
# freopen(NULL, "w") of its stream (which opens that link inside libc),
# would truncate the file every process of the table reads. The answer is
# the real file's, as outside the shim (sysfs: EACCES; procfs: opened),
# and the kept views keep their contents.
REOPEN='import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.fopen.restype = libc.freopen.restype = ctypes.c_void_p
libc.freopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p]
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY)
    try:
        w = os.open("/proc/self/fd/%d" % fd, os.O_WRONLY | os.O_TRUNC)
        r = "opened"
        os.close(w)
    except OSError as e:
        r = "errno %d" % e.errno
    f = libc.fopen(p.encode(), b"r")
    g = libc.freopen(None, b"w", f)
    print(p, r, "freopen:", "opened" if g else "errno %d" % ctypes.get_errno())'
outside "$PYTHON3" -c "$REOPEN" /sys/devices/system/cpu/online /proc/cpuinfo >"$T/wr.native"
rm -rf "$VDIR"
in_set "$S2" cat /sys/devices/system/cpu/online /proc/cpuinfo >/dev/null
in_set "$S2" "$PYTHON3" -c "$REOPEN" /sys/devices/system/cpu/online /proc/cpuinfo >"$T/wr.shim"
expect_eq "write reopen of a view (/proc/self/fd, freopen NULL): the real files' answers" \
	"$(cat "$T/wr.shim")" "$(cat "$T/wr.native")"
expect_eq "write reopen of a view: the kept online view keeps its contents" \
	"$(cat "$VDIR/range-2" 2>/dev/null)" "$(in_set "$S2" cat /sys/devices/system/cpu/online)"
expect_eq "write reopen of a view: the kept cpuinfo views keep their size" \
	"$(for f in "$VDIR"/cpuinfo-*; do [ -s "$f" ] || echo "$f is empty"; done)" ""

# The real files behind /proc/stat, status and stat (kept open, read with
# pread, believed without an fstat while they read as such): the program
# closes them, then puts files of its own on their numbers
note "---- the real files kept open, taken away ----"
mkdir -p "$T/lost"
in_set "$S1" "$PYTHON3" "$SRC/tests/integration/real_lost.py" "$T/lost" >"$T/lost.out" 2>&1
expect_eq "real files kept: three, opened by the first views" "$(grep '^kept ' "$T/lost.out")" "kept 3"
for tag in first closed file null pipe dir; do
	expect_eq "real files kept, $tag: the views are the set's" \
		"$(grep "^$tag " "$T/lost.out" | tr '\n' ' ')" \
		"$tag stat 1 $tag status 0 $tag pidstat 0 "
done
expect_eq "real files kept: files put on their numbers are reopened past" \
	"$(grep '^kept-' "$T/lost.out" | tr '\n' ' ')" "kept-file 3 kept-null 3 kept-pipe 3 kept-dir 3 "
expect_eq "real files kept: the program's own files unread" \
	"$(grep '^mine ' "$T/lost.out" | tr '\n' ' ')" "mine offset 0 mine pipe pipe bytes "

finish
