#!/bin/sh
# Churn (issue 10, items 2, 10, 11, 13): a set resized while its members
# start and exit, with readers of its member list meanwhile: every thread
# ends inside the set and no reader fails (a sanitizer build sees any read
# past a buffer). Latency is not judged here (make bench does). Then: an
# alloc or attach the kernel refuses for some process says so (exit 4,
# the process named, the API's errno); cpuset-run --cpus killed at any
# step leaves no set behind; an AUTOCLEAN set never attached goes after
# its grace period.
. "$(dirname "$0")/common.sh"
CHURN=$B/tests/bench/bench_churn
[ -x "$CHURN" ] || { echo "SKIP: no $CHURN (make check builds it)"; exit 77; }
command -v setpriv >/dev/null || { echo "SKIP: setpriv (util-linux) is needed"; exit 77; }
id nobody >/dev/null 2>&1 || { echo "SKIP: user nobody is needed"; exit 77; }

# ---- resizes under churn: every thread inside the set ----
"$CPUSET" create --cpus 0-1 --name churn >/dev/null
env $(san_env) "$CHURN" drive "$B/cpuset-run" "$CPUSET" churn 150 300 1500 3 10 50 0 1 2 \
	>"$TMP/churn.out" 2>"$TMP/churn.err"
rc=$?
sed 's/^/    | /' "$TMP/churn.err" | head -20
tail -1 "$TMP/churn.out"
expect "churn: every thread inside the set, every alloc and reader fine" "$rc" 0
expect "churn: threads were checked" "$(sed -n 's/.* checked_threads=\([0-9]*\).*/\1/p' "$TMP/churn.out" | awk '{ print ($1 >= 150) }')" 1
"$CPUSET" sweep >/dev/null
"$INSPECT" --check >"$TMP/out" 2>&1 && ok || bad "check after the churn: $(cat "$TMP/out")"

# ---- what the kernel refuses is reported, never success ----
# A set of user nobody holding one of nobody's processes and one of
# root's (root may put any process anywhere): nobody's alloc and attach
# pass the set rules, and the kernel refuses to move root's process.
T2=$CPUSETSHIM_TABLE.nobody
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups --"
cleanup_hook='kill $np $rp 2>/dev/null; rm -f /dev/shm/$T2; rm -rf /dev/shm/$T2.views.*'
$AS_NOBODY "$CPUSET" --table "$T2" init >/dev/null || bad "nobody makes a table"
$AS_NOBODY "$CPUSET" --table "$T2" create --cpus 0-1 --name fixed >/dev/null || bad "nobody makes a set"
$AS_NOBODY sleep 600 &
np=$!
sleep 600 &
rp=$!
$AS_NOBODY "$CPUSET" --table "$T2" attach fixed $np || bad "nobody attaches its process"
"$CPUSET" --table "$T2" --table-owner nobody attach fixed $rp || bad "root attaches its own"
expect_rc "alloc with a member the kernel will not move" 4 $AS_NOBODY "$CPUSET" --table "$T2" alloc fixed 1
expect_err "the process is named" "not moved.*: $rp"
expect_err "the kernel's reason" "EPERM"
expect "the refused process stayed where it was" "$(real_cpus $rp)" "0-1"
expect "the others moved" "$(real_cpus $np)" "1"
expect "the table holds the new CPUs" "$("$CPUSET" --table "$T2" --table-owner nobody --json show fixed | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["set"]["cpus"])')" "1"
# (nobody's attach of root's process is refused by the rules, before the
# kernel: exit 1)
expect_rc "nobody attaching root's process" 1 $AS_NOBODY "$CPUSET" --table "$T2" attach fixed $rp
# the API: -1 and the kernel's errno
api_errno=$(env $(san_env) CPUSETSHIM_TABLE="$T2" $AS_NOBODY /usr/bin/python3 -c '
import ctypes, errno, sys
lib = ctypes.CDLL(sys.argv[1], use_errno=True)
sid = ctypes.c_uint32()
if lib.cpusetctl_find(b"fixed", ctypes.byref(sid)) != 0:
    print("find failed", ctypes.get_errno()); sys.exit()
mask = (ctypes.c_ubyte * 128)()
mask[0] = 1
r = lib.cpusetctl_alloc(sid, ctypes.c_size_t(128), mask)
print(r, errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno()))
' "$B/.libs/libcpusetctl.so" 2>&1)
expect "cpusetctl_alloc: -1, EPERM" "$api_errno" "-1 EPERM"
expect "the API moved nobody's process" "$(real_cpus $np)" "0"
kill $np $rp 2>/dev/null

# ---- cpuset-run --cpus killed at any step leaves no set ----
"$CPUSET" init --force >/dev/null
n=1
while [ $n -le 40 ]; do
	CPUSETSHIM_FAULT_STEP=$n "$B/cpuset-run" --cpus 1 --name kill$n true >/dev/null 2>&1
	n=$((n + 1))
done
"$CPUSET" sweep >/dev/null
expect "no set left by a killed cpuset-run --cpus" "$("$CPUSET" list | awk 'NR > 1 { print $3 }' | tr '\n' ' ')" "root "
"$INSPECT" --check >"$TMP/out" 2>&1 && ok || bad "check after the kills: $(cat "$TMP/out")"

# ---- an AUTOCLEAN set never attached goes after its grace period ----
"$CPUSET" create --autoclean --cpus 0 --name lonely >/dev/null
"$CPUSET" sweep >/dev/null
expect "within its grace period it stays" "$("$CPUSET" list | awk 'NR > 1 { print $3 }' | tr '\n' ' ')" "root lonely "
sleep 2.1
CPUSETSHIM_AUTOCLEAN_GRACE=1 "$CPUSET" sweep >/dev/null
expect "past its grace period it goes" "$("$CPUSET" list | awk 'NR > 1 { print $3 }' | tr '\n' ' ')" "root "
"$CPUSET" create --autoclean --cpus 0 --name used >/dev/null
sleep 600 &
u=$!
"$CPUSET" attach used $u
sleep 2.1
CPUSETSHIM_AUTOCLEAN_GRACE=1 "$CPUSET" sweep >/dev/null
expect "an attached one stays while it has a member" "$("$CPUSET" list | awk 'NR > 1 { print $3 }' | tr '\n' ' ')" "root used "
kill $u
wait $u 2>/dev/null
"$CPUSET" sweep >/dev/null
expect "and goes with its last member" "$("$CPUSET" list | awk 'NR > 1 { print $3 }' | tr '\n' ' ')" "root "
finish
