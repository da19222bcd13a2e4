#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Churn: a set resized while its members
# start and exit, with readers of its member list meanwhile: every thread
# ends inside the set and no reader fails (a sanitizer build sees any read
# past a buffer). Latency is not judged here (make bench does). Then: an
# alloc or attach the kernel refuses for some process says so (exit 4,
# the process named, the API's errno); cpuset-run --cpus killed at any
# step leaves no set behind; an AUTOCLEAN set never attached goes after
# its grace period. A queue of writers holding the lock in turn makes no
# launch fail; one writer that keeps it is named after the bound.
. "$(dirname "$0")/common.sh"
CHURN=$B/tests/bench/bench_churn
[ -x "$CHURN" ] || die "no $CHURN (make check builds it)"
need setpriv util-linux
id nobody >/dev/null 2>&1 || skip_all "needs the user nobody"

# ---- resizes under churn: every thread inside the set ----
"$CPUSET" create --cpus 0-1 --name churn >/dev/null
# (a sanitizer build starts each process several times slower: fewer)
members=120
[ -n "$SAN_PRELOAD" ] && members=40
# The members alive after the last alloc are the ones checked. How many
# there are depends on how fast the machine starts them (a loaded one had
# 10 of 120, or none): the churn runs again until one run has checked a
# member's threads, 5 runs at most, and every run must pass.
rc=0
checked=0
for _run in 1 2 3 4 5; do
	env $(san_env) "$CHURN" drive "$CPUSET_RUN" "$CPUSET" churn $members 300 1500 3 8 50 0 1 2 \
		>"$T/churn.out" 2>"$T/churn.err" || rc=$?
	head -20 "$T/churn.err" >"$T/churn.err20"
	show "$T/churn.err20"
	note "run $_run: $(tail -1 "$T/churn.out")"
	checked=$(sed -n 's/.* checked_threads=\([0-9]*\).*/\1/p' "$T/churn.out")
	[ "$rc" -eq 0 ] && [ "${checked:-0}" -ge 3 ] && break
	[ "$rc" -eq 0 ] || break
	"$CPUSET" sweep >/dev/null
done
expect_eq "churn: every thread inside the set, every alloc and reader fine" "$rc" 0
expect_eq "churn: threads were checked (at least a member's three)" "$([ "${checked:-0}" -ge 3 ] && echo yes)" yes
"$CPUSET" sweep >/dev/null
check "table consistent after the churn" "$CPUSET_INSPECT" --check

# ---- a queue of writers is not a stuck writer ----
# Eight writers take the lock in turn, 500 ms each, three times over
# (about 12 s of holding); with the bound at 4 s per holder (a loaded
# machine stretches a 500 ms hold, never to 4 s), launches and creates
# made meanwhile wait their turn and succeed (counting the wait from their
# first try, they failed). One holder that keeps it until told is still
# refused, named, after 1 s.
FAULT_OP=$B/tests/fault_op
"$CPUSET" create --cpus 0 --name queue >/dev/null
qp=""
for _i in 1 2 3 4 5 6 7 8; do
	FAULT_OP_HELD=$T/queued.$_i "$FAULT_OP" hold 500 3 &
	qp="$qp $!"
done
# the queue has begun once one of them holds the lock
queue_begun() { ls "$T"/queued.* >/dev/null 2>&1; }
wait_until queue_begun
qfail=0
for _i in 1 2 3 4 5 6; do
	env CPUSETSHIM_LOCK_TIMEOUT=4 $(san_env) timeout 120 "$CPUSET_RUN" --set queue true \
		2>>"$T/queue.err" || qfail=$((qfail + 1))
	env CPUSETSHIM_LOCK_TIMEOUT=4 "$CPUSET" create --cpus 0 >/dev/null 2>>"$T/queue.err" ||
		qfail=$((qfail + 1))
done
qheld=0
for _p in $qp; do wait "$_p" || qheld=$((qheld + 1)); done
show "$T/queue.err"
expect_eq "a queue of 8 writers (500 ms each): the holders all wrote" "$qheld" 0
expect_eq "a queue of 8 writers: 6 launches and 6 creates with a 4 s bound, none failed" "$qfail" 0
rm -f "$T/held" "$T/release"
FAULT_OP_HELD=$T/held FAULT_OP_RELEASE=$T/release "$FAULT_OP" hold 1000 1 &
qp=$!
# (held once the file is there: a loaded machine starts it late; held
# until the create has answered, however long that takes)
held() { [ -e "$T/held" ]; }
wait_until held
expect_status "one writer holding on: a create with a 1 s bound is refused" 3 \
	env CPUSETSHIM_LOCK_TIMEOUT=1 "$CPUSET" create --cpus 0
# (the create's first read, of the caller's own set, meets the writer
# inside: it says so after the bound, naming the writer)
expect_stderr "one writer holding on: the writer named" "pid $qp"
touch "$T/release"
wait $qp

# ---- what the kernel refuses is reported, never success ----
# A set of user nobody holding one of nobody's processes and one of
# root's (root may put any process anywhere): nobody's alloc and attach
# pass the set rules, and the kernel refuses to move root's process.
T2=$CPUSETSHIM_TABLE.nobody
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups --"
at_exit 'kill $np $rp 2>/dev/null; rm -f /dev/shm/$T2; rm -rf /dev/shm/$T2.views.*'
check "nobody makes a table" $AS_NOBODY "$CPUSET" --table "$T2" init
check "nobody makes a set" $AS_NOBODY "$CPUSET" --table "$T2" create --cpus 0-1 --name fixed
$AS_NOBODY sleep 600 &
np=$!
# setpriv changes its user before it execs sleep: wait for that
nobody_uid=$(id -u nobody)
wait_until eval '[ "$(stat -c %u /proc/$np 2>/dev/null)" = "$nobody_uid" ]'
check "nobody attaches its process" $AS_NOBODY "$CPUSET" --table "$T2" attach fixed $np
# a root process on record in nobody's table (root's own attach of it is
# refused: tests/attach.sh): its shim joins the set its environment names
env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_TABLE="$T2" CPUSETSHIM_TABLE_OWNER="$nobody_uid" \
	CPUSETSHIM_SET=fixed sleep 600 &
rp=$!
wait_until eval '"$CPUSET" --table "$T2" --table-owner nobody show fixed 2>/dev/null | grep -q "pid $rp "'
check "a root process is on record in nobody's table" sh -c \
	"'$CPUSET' --table '$T2' --table-owner nobody show fixed | grep -q 'pid $rp '"
expect_status "alloc with a member the kernel will not move" 4 $AS_NOBODY "$CPUSET" --table "$T2" alloc fixed 1
expect_stderr "the process is named" "(EPERM): $rp"
expect_stderr "the kernel's reason" "EPERM"
expect_eq "the refused process stayed where it was" "$(real_cpus $rp)" "0-1"
expect_eq "the others moved" "$(real_cpus $np)" "1"
expect_eq "the table holds the new CPUs" "$("$CPUSET" --table "$T2" --table-owner nobody --json show fixed | $PYTHON3 -c 'import json,sys; print(json.load(sys.stdin)["set"]["cpus"])')" "1"
# (nobody's attach of root's process is refused by the rules, before the
# kernel: exit 1)
expect_status "nobody attaching root's process" 1 $AS_NOBODY "$CPUSET" --table "$T2" attach fixed $rp
# the API: -1 and the kernel's errno
api_errno=$(env $(san_env) CPUSETSHIM_TABLE="$T2" $AS_NOBODY $PYTHON3 -c '
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
expect_eq "cpusetctl_alloc: -1, EPERM" "$api_errno" "-1 EPERM"
expect_eq "the API moved nobody's process" "$(real_cpus $np)" "0"
kill $np $rp 2>/dev/null

# ---- cpuset-run --cpus killed at any step leaves no set ----
"$CPUSET" init --force >/dev/null
if have_fault_points; then
	n=1
	while [ $n -le 40 ]; do
		CPUSETSHIM_FAULT_STEP=$n "$CPUSET_RUN" --cpus 1 --name kill$n true >/dev/null 2>&1
		n=$((n + 1))
	done
	"$CPUSET" sweep >/dev/null
	expect_eq "no set left by a killed cpuset-run --cpus" "$("$CPUSET" list | awk 'NR > 1 { print $3 }' | tr '\n' ' ')" "root "
	check "table consistent after the kills" "$CPUSET_INSPECT" --check
else
	skip "no set left by a killed cpuset-run --cpus" "$NO_FAULTS"
fi

# ---- an AUTOCLEAN set never attached goes after its grace period ----
"$CPUSET" create --autoclean --cpus 0 --name lonely >/dev/null
"$CPUSET" sweep >/dev/null
expect_eq "within its grace period it stays" "$("$CPUSET" list | awk 'NR > 1 { print $3 }' | tr '\n' ' ')" "root lonely "
sleep 2.1
CPUSETSHIM_AUTOCLEAN_GRACE=1 "$CPUSET" sweep >/dev/null
expect_eq "past its grace period it goes" "$("$CPUSET" list | awk 'NR > 1 { print $3 }' | tr '\n' ' ')" "root "
"$CPUSET" create --autoclean --cpus 0 --name used >/dev/null
sleep 600 &
u=$!
"$CPUSET" attach used $u
sleep 2.1
CPUSETSHIM_AUTOCLEAN_GRACE=1 "$CPUSET" sweep >/dev/null
expect_eq "an attached one stays while it has a member" "$("$CPUSET" list | awk 'NR > 1 { print $3 }' | tr '\n' ' ')" "root used "
kill $u
wait $u 2>/dev/null
"$CPUSET" sweep >/dev/null
expect_eq "and goes with its last member" "$("$CPUSET" list | awk 'NR > 1 { print $3 }' | tr '\n' ' ')" "root "
finish
