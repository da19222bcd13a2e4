#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The table as hostile input: each case damages a table with
# raw bytes (tests/tablepoke: no library, no lock, no rules) and checks
# that the tools and programs under the shim refuse it clearly, wait with
# a bound, repair, or pass through, and never crash or hang.
. "$(dirname "$0")/common.sh"
need_fault_points # a dead writer: killed at a write step
POKE=$B/tests/tablepoke
QUERY=$B/tests/prog_query
FAULT_OP=$B/tests/fault_op
TBL=$CPUSETSHIM_TABLE
poke() { "$POKE" "$TBL" "$@"; }
now_ms() { date +%s%3N; }

sleeper=
at_exit '[ -n "$sleeper" ] && kill -CONT $sleeper 2>/dev/null; [ -n "$sleeper" ] && kill $sleeper 2>/dev/null'
sleep 600 &
sleeper=$!

fresh() {
	"$CPUSET" init --force --max-sets 16 --max-procs 32 --max-threads 64 >/dev/null || exit 99
	"$CPUSET" create --cpus 0 --name s0 >/dev/null || exit 99
}

# A writer killed inside its transaction, leaving undo entries.
dead_writer() {
	fresh
	CPUSETSHIM_FAULT_STEP=6 "$CPUSET" create --cpus 0 --name dying >/dev/null 2>&1
	[ "$(poke get jcount u32)" -ge 3 ] || die "a dead writer leaves 3 undo entries or more (left $(poke get jcount u32))"
}

# ---- 3: the undo journal ----
# entry 2's prev pointing 8 bytes into entry 1 made repair crash
dead_writer
poke set jentry:2+12 u32 $(($(poke off jentry:1) - $(poke off journal) + 8))
expect_status "repair refuses a forged journal" 3 "$CPUSET" repair
expect_stderr "the remedy is named" "cpuset init --force"
expect_stderr "the damage is named" "table is damaged"
expect_status "every writer refuses it the same way" 3 "$CPUSET" create --cpus 0
expect_status "a reader says so too" 3 "$CPUSET" list
expect_stderr "the table is damaged, not busy" "table is damaged"
expect_stderr "with its errno" "(EUCLEAN)"
expect_stderr "the writer names the remedy" "cpuset init --force"
env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" "$QUERY" 0.1 >"$T/q" 2>&1
expect_eq "a program under the shim survives it" "$?" 0
# an entry longer than the journal
dead_writer
poke set jentry:1+8 u32 0xfffffff0
expect_status "an entry past the journal's end is refused" 3 "$CPUSET" repair
expect_stderr "and named" "past the journal's end"
# an entry restoring the lock word
dead_writer
poke set jentry:0 u64 "$(poke off lock)"
expect_status "an entry aimed at the lock is refused" 3 "$CPUSET" repair
# after init --force all is well again
expect_status "init --force is the remedy" 0 "$CPUSET" init --force
expect_status "writes work again" 0 "$CPUSET" create --cpus 0

# ---- CPUSETSHIM_SET names a set as cpuset-run --set does ----
# like_run CASE: a program started with CPUSETSHIM_SET=s0 stops before
# main with cpuset-run --set s0's message and exit status
like_run() {
	"$CPUSET_RUN" --set s0 true 2>"$T/run.err"
	want=$?
	env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_SET=s0 "$QUERY" 0.1 >"$T/q" 2>"$T/q.err"
	got=$?
	check "$1: cpuset-run refuses it" [ "$want" -ne 0 ]
	expect_eq "$1: the program's exit status is cpuset-run's ($want)" "$got" "$want"
	expect_eq "$1: its main never ran" "$(cat "$T/q")" ""
	expect_eq "$1: cpuset-run's message" "$(sed 's/^cpusetshim: CPUSETSHIM_SET: //' "$T/q.err")" \
		"$(sed 's/^cpuset-run: //' "$T/run.err")"
}
fresh
"$CPUSET" destroy s0 >/dev/null
like_run "a set that does not exist"
# the first CPU the machine does not have (beyond present), within word 0
absent=$(($(sed 's/.*[-,]//' /sys/devices/system/cpu/present) + 1))
[ "$absent" -lt 63 ] || die "this test needs a machine of fewer than 63 CPUs"
fresh
poke set cpus:2 u64 "$(printf '0x%x' $((1 << absent)))"
like_run "a set whose CPUs are all absent (CPU $absent)"
fresh
poke set cpus:2 u64 "$(printf '0x%x' $(((1 << (absent + 1)) - 1)))"
like_run "a set wider than the machine (0-$absent)"
dead_writer
poke set jentry:2+12 u32 $(($(poke off jentry:1) - $(poke off journal) + 8))
like_run "a dead writer and a journal that fails its check"
expect_match "which names the damage" "$(cat "$T/q.err")" "the table is damaged"
rm -f "/dev/shm/$TBL"
env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_SET=s0 "$QUERY" 0.1 >"$T/q" 2>"$T/q.err"
expect_eq "no table at all: the program stops (exit 1)" "$?" 1
expect_eq "no table at all: no such set" "$(cat "$T/q.err")" \
	"cpusetshim: CPUSETSHIM_SET: set 's0': no such set (EINVAL)"
check "and no table was made" [ ! -e "/dev/shm/$TBL" ]
fresh
env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_SET=s0 "$QUERY" 0.1 >"$T/q" 2>"$T/q.err"
expect_eq "a good set: the program runs" "$?" 0
expect_eq "in its set, silently" "$(cut -d' ' -f2,3,8 "$T/q")$(cat "$T/q.err")" "1 1 1"

# ---- parents that do not lead to the root (raw writes) ----
# s0 (set 2) its own parent: named, repaired, and its destroy leaves the
# root's counts right
fresh
poke set set:2+4 u32 2
expect_status "a set its own parent: the checker" 1 "$CPUSET_INSPECT" --check
expect_match "names it" "$(cat "$T/out")" "set 2 is its own parent"
expect_status "destroy it" 0 "$CPUSET" destroy s0
expect_status "the counts are right after" 0 "$CPUSET_INSPECT" --check
fresh
poke set set:2+4 u32 2
expect_status "repair" 0 "$CPUSET" repair
expect_match "repair says what it did" "$(cat "$T/out")" "1 set whose parents did not lead to the root"
expect_status "the table checks out after repair" 0 "$CPUSET_INSPECT" --check
expect_eq "s0 is the root's child again" "$(poke get set:2+4 u32)" 1
# s0 and b (sets 2 and 3) each other's parent
fresh
"$CPUSET" create --cpus 0 --name b >/dev/null
poke set set:2+4 u32 3
poke set set:3+4 u32 2
expect_status "a cycle: the checker" 1 "$CPUSET_INSPECT" --check
expect_match "names both" "$(cat "$T/out")" "sets (2 -> 3 -> 2|3 -> 2 -> 3) make a cycle of parents"
expect_status "destroy b, s0's parent, is refused" 1 "$CPUSET" destroy b
expect_stderr "it has a child" "the set has child sets (EBUSY)"
expect_eq "s0 keeps its parent" "$(poke get set:2+4 u32)" 3
expect_status "repair" 0 "$CPUSET" repair
expect_match "breaks the cycle (one set put under the root)" "$(cat "$T/out")" "1 set whose parents"
expect_status "the table checks out after repair" 0 "$CPUSET_INSPECT" --check
expect_status "both can go now" 0 "$CPUSET" destroy b
expect_status "both can go now (s0)" 0 "$CPUSET" destroy s0
expect_status "and the counts are right" 0 "$CPUSET_INSPECT" --check

# ---- the occupancy summary cleared by a raw write: a member the walks
# would pass by is named by the checker, and repair marks its group again
fresh
expect_status "attach a member" 0 "$CPUSET" attach s0 $sleeper
expect_eq "its group is marked" "$(poke get pocc u64)" 1
expect_eq "and listed" "$("$CPUSET" show s0 | grep -c "$sleeper")" 1
poke set pocc u64 0
expect_status "a member in a group marked empty: the checker" 1 "$CPUSET_INSPECT" --check
expect_match "names it" "$(cat "$T/out")" \
	"member $sleeper in slot [0-9]+ is in a group the occupancy summary says is empty"
expect_eq "the members' list passes the group" "$("$CPUSET" show s0 | grep -c "$sleeper")" 0
expect_status "repair" 0 "$CPUSET" repair
expect_match "repair says what it did" "$(cat "$T/out")" \
	"repaired: 1 group of the registries' occupancy summaries made again"
expect_status "the table checks out after repair" 0 "$CPUSET_INSPECT" --check
expect_eq "the member is listed again" "$("$CPUSET" show s0 | grep -c "$sleeper")" 1
# a group marked that holds nothing costs a look only, and repair clears it
poke set tocc u64 0x5
expect_status "marked groups without records pass the checker" 0 "$CPUSET_INSPECT" --check
expect_status "repair" 0 "$CPUSET" repair
expect_match "repair clears them" "$(cat "$T/out")" "repaired: 2 groups of the registries"
expect_eq "the thread summary is empty again" "$(poke get tocc u64)" 0

# ---- 6: a forged or held lock word ----
fresh
poke set lockword u32 1
t0=$(now_ms)
expect_status "a lock held by pid 1: the writer gives up" 3 \
	env CPUSETSHIM_LOCK_TIMEOUT=1 "$CPUSET" create --cpus 0
t1=$(now_ms)
expect_stderr "naming the holder" "held by pid 1 "
# (at least its bound; the upper bound is far from it, and from the
# default 10 s: a loaded machine is slow, never by a minute here)
expect_eq "the writer waits its 1 s bound, then gives up, within 60 s ($((t1 - t0)) ms)" \
	"$([ $((t1 - t0)) -ge 1000 ] && [ $((t1 - t0)) -lt 60000 ] && echo yes)" yes
expect_status "the checker reports the held lock" 1 "$CPUSET_INSPECT" --check
expect_match "the checker names the holder" "$(cat "$T/out")" "lock is held by pid 1"
# a stopped writer: held by a live process that does not answer
kill -STOP $sleeper
poke set lockword u32 $sleeper
expect_status "a stopped holder: the writer gives up" 3 \
	env CPUSETSHIM_LOCK_TIMEOUT=1 "$CPUSET" create --cpus 0
expect_stderr "naming it stopped" "held by pid $sleeper (sleep, stopped)"
kill -CONT $sleeper
# a holder that does not exist: taken over, as the kernel would
sh -c 'exit 0' &
gone=$!
wait $gone
poke set lockword u32 $gone
expect_status "a dead holder's lock is taken over" 0 "$CPUSET" create --cpus 0
expect_status "and the table checks out" 0 "$CPUSET_INSPECT" --check
# the mutex's type overwritten
poke set lockkind u32 0
expect_status "a lock of another type is refused" 3 "$CPUSET" create --cpus 0
expect_stderr "as damage" "table is damaged"

# ---- 7: the shim never waits for the writers' lock ----
# a stopped writer holds it (the lock word names a stopped process)
fresh
kill -STOP $sleeper
poke set lockword u32 $sleeper
# (the lock's bound an hour: a program that waited for it would meet the
# 600 s timeout, however fast or slow the machine; one that does not wait
# ends long before)
t0=$(now_ms)
timeout 600 env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_SET=s0 CPUSETSHIM_LOCK_TIMEOUT=3600 \
	"$QUERY" 0.1 - fork >"$T/q" 2>&1
rc=$?
t1=$(now_ms)
expect_eq "set-up and fork under a held lock (bound 1 h): the program runs, not waiting ($((t1 - t0)) ms)" "$rc" 0
expect_eq "it sees its set, and the kernel confines it" "$(cut -d' ' -f2,3,8 "$T/q")" "1 1 1"
kill -CONT $sleeper
poke set lockword u32 0

# ---- 8: a writer dead inside the table ----
dead_writer
t0=$(now_ms)
expect_status "a reader repairs a dead writer's table" 0 "$CPUSET" list
t1=$(now_ms)
check "the reader does not wait for the dead writer ($((t1 - t0)) ms)" [ $((t1 - t0)) -lt 3000 ]
expect_eq "the repair is counted" "$(poke get repairs u64)" 1
expect_status "and the table checks out" 0 "$CPUSET_INSPECT" --check
# a program started in a set meanwhile: no stall, and confined
dead_writer
t0=$(now_ms)
env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_SET=s0 \
	"$QUERY" 0.1 >"$T/q" 2>&1
rc=$?
t1=$(now_ms)
expect_eq "a program in a set runs despite a dead writer" "$rc" 0
check "its start does not wait either ($((t1 - t0)) ms)" [ $((t1 - t0)) -lt 3000 ]
expect_eq "it sees its set, and the kernel confines it" "$(cut -d' ' -f2,3,8 "$T/q")" "1 1 1"
expect_eq "its shim repaired the table" "$(poke get repairs u64)" 1
# (a reader who may not repair: tests/multiuser.sh)

# a writer stopped inside, halfway through moving s0 from CPU 0 to CPU 1:
# its undo entry holds s0's committed CPUs
dead_writer
mask=$(poke off cpus:2)
used=$(poke get jused u64)
at=$(($(poke off journal) + used))
"$POKE" "$TBL" set journal+$used u64 "$mask"
"$POKE" "$TBL" set journal+$((used + 8)) u32 8
"$POKE" "$TBL" set journal+$((used + 12)) u32 "$(poke get jlast u32)"
"$POKE" "$TBL" set journal+$((used + 16)) u64 1
poke set jused u64 $((used + 24))
poke set jlast u32 "$used"
poke set jcount u32 $(($(poke get jcount u32) + 1))
poke set cpus:2 u64 2
kill -STOP $sleeper
poke set lockword u32 $sleeper
t0=$(now_ms)
timeout 600 env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_SET=s0 CPUSETSHIM_LOCK_TIMEOUT=3600 \
	"$QUERY" 0.1 >"$T/q" 2>&1
rc=$?
t1=$(now_ms)
expect_eq "a program started in s0 under a stopped writer (bound 1 h) runs, not waiting for it ($((t1 - t0)) ms)" "$rc" 0
expect_eq "confined to s0's committed CPU (0), not the half-written one" \
	"$(cut -d' ' -f2,3,8,10 "$T/q")" "1 1 1 0"
expect_eq "the stopped writer's work is left alone" "$(poke get cpus:2 u64)" 2
kill -CONT $sleeper
poke set lockword u32 0

# ---- 9: the table truncated under running programs ----
fresh
rm -f "$T/ready"
env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_SET=s0 \
	"$QUERY" 1.5 "$T/ready" >"$T/q" 2>&1 &
q=$!
wait_until [ -e "$T/ready" ]
poke truncate 4096
wait $q
expect_eq "a program under the shim survives its table shrinking" "$?" 0
expect_eq "and keeps its last answers" "$(cut -d' ' -f2,3,5,6 "$T/q")" "1 1 1 1"
# forking members while the table shrinks: every child keeps its parent's
# set copy (none crashes in its registration, none passes through)
for size in 4096 half; do
	fresh
	[ "$size" = half ] && size=$(($(poke size) / 2))
	rm -f "$T/ready"
	for k in 1 2 3 4; do
		env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_SET=s0 \
			"$QUERY" 2 "$T/ready.$k" forkloop >"$T/fq.$k" 2>&1 &
		eval "fq$k=\$!"
	done
	# every member has its set copy (each made its ready file after its
	# first answers) before the cut, however loaded the machine
	wait_until [ -e "$T/ready.1" ] && wait_until [ -e "$T/ready.2" ] &&
		wait_until [ -e "$T/ready.3" ] && wait_until [ -e "$T/ready.4" ] ||
		fail "forking members: not all four ready within ${CPS_WAIT}s"
	poke truncate $size
	for k in 1 2 3 4; do
		eval "wait \$fq$k"
		expect_eq "forking member $k, table cut to $size bytes: exits 0" "$?" 0
		expect_match "forking member $k, table cut to $size bytes: no child crashed or passed through" \
			"$(cat "$T/fq.$k")" "^start 1 1 end 1 1 real 1 first 0 forks [1-9][0-9]* crashed 0 wrong 0$"
	done
	rm -f "$T"/ready.*
done
expect_status "the tools refuse the short table" 3 "$CPUSET" list
poke truncate 0
expect_status "and the empty one" 3 "$CPUSET_INSPECT" --check

# ---- 4: shared tables ----
expect_status "a world-writable table is refused" 2 "$CPUSET" init --force --mode 0666
expect_stderr "with the reason" "every user"
expect_status "a group table is made" 0 "$CPUSET" init --force --mode 0660
expect_stderr "with the trust warning" "one trust domain"
chmod 0666 "/dev/shm/$TBL"
expect_status "a table made world-writable later is refused" 3 "$CPUSET" list
expect_stderr "with the reason" "writable by"

# ---- 15: capacities ----
expect_status "a table of gigabytes is refused" 2 "$CPUSET" init --force --max-threads 2000000 --mask-bits 8192
expect_status "a capacity beyond the bound is refused" 2 "$CPUSET" init --force --max-procs 16777216
# the checker reads only what was written: a large, mostly empty table
# is neither copied whole nor made resident in tmpfs
if command -v fincore >/dev/null 2>&1; then
	"$CPUSET" init --force --max-procs 1048576 --max-threads 2097152 --mask-bits 64 >/dev/null ||
		die "cannot make a large table"
	"$CPUSET" create --cpus 0 --name big >/dev/null
	size=$(poke size)
	check "the checker finds the large table consistent" "$CPUSET_INSPECT" --check
	check "and shows it" "$CPUSET_INSPECT"
	res=$(fincore -b -n -o RES "/dev/shm/$TBL" | tr -d ' ')
	check "leaving it sparse ($res of $size bytes resident)" [ "$res" -lt $((size / 16)) ]
	# nor made resident in the checker: it reads no slot of a hole (a
	# kernel without a shared zero page would fill each page it reads)
	for how in --check --json ''; do
		peak=$("$PYTHON3" -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)' "$CPUSET_INSPECT" $how)
		check "cpuset-inspect ${how:-(show)}: its peak memory ($peak bytes) a fraction of the table's $size" \
			[ "$peak" -lt $((size / 4)) ]
	done
fi
fresh
poke set max_threads u32 16777216
expect_status "a header claiming one is refused at open" 3 "$CPUSET" list

# ---- 1: root and another user's table ----
if [ "$(id -u)" = 0 ]; then
	fresh
	chown 4242 "/dev/shm/$TBL"
	expect_status "root refuses a table another user made" 3 "$CPUSET" list
	expect_stderr "saying whose" "belongs to another user"
	expect_status "unless its owner is confirmed" 0 "$CPUSET" --table-owner 4242 list
	expect_status "but not for another owner" 3 "$CPUSET" --table-owner 4243 list
	expect_status "the checker follows the same rule" 3 "$CPUSET_INSPECT" --check
	expect_status "with the confirmation" 0 "$CPUSET_INSPECT" --table-owner 4242 --check
fi
finish
