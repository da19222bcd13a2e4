#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Views through every spelling of a path, of every process's stat and of
# the caller's cgroup CPU files, in a one-CPU set {1} and a two-CPU set
# {0,1}: cd and relative names, //, /./, /self/../, a directory fd, the
# /sys/bus/cpu links; ps -o psr and psutil's cpu_num(), also of a process
# outside the set; cpuset.cpus and cpuset.effective_cpus of a cgroup made
# for the test (v1) or cpuset.cpus(.effective) (v2, when this machine's
# unified hierarchy has the cpuset controller); and a program holding each
# view open while its set is resized. What a program says is compared with
# what the kernel did, read outside the shim.
. "$(dirname "$0")/../common.sh"

PY=$PYTHON3
need ps procps
need taskset util-linux
need $PY python3
$PY -c 'import psutil' 2>/dev/null || skip_all "needs psutil for $PY (Debian package python3-psutil)"

# Measured: procps ps hangs with libasan preloaded, shim or not (as top
# does, tests/integration/rewind.sh); psutil and stat make the same checks.
ps_runs=yes
if [ -n "$SAN_PRELOAD" ] &&
	! env LD_PRELOAD="$SAN_PRELOAD" timeout 10 ps -o pid= -p $$ </dev/null >/dev/null 2>&1; then
	note "ps does not run with $SAN_PRELOAD preloaded, even without the shim: not run here"
	ps_runs=no
fi
# in_set_ps SET ARGS...: ps in SET, or nothing where ps cannot run
in_set_ps()
{
	[ $ps_runs = yes ] && in_set "$@"
}
# expect_ps DESC GOT WANT: expect_eq where ps runs
expect_ps()
{
	[ $ps_runs = yes ] && expect_eq "$@"
}

real_mask=$(outside taskset -p $$ | sed 's/.*: //')
[ $((0x$real_mask & 3)) -eq 3 ] ||
	skip_all "needs CPUs 0 and 1 (our real mask is $real_mask)"

expect_status "cpuset init (private table $CPUSETSHIM_TABLE)" 0 "$CPUSET" init
S1=$("$CPUSET" create --cpus 1 --name ptest-one) || die "cpuset create --cpus 1 failed"
S2=$("$CPUSET" create --cpus 0-1 --name ptest-two) || die "cpuset create --cpus 0-1 failed"

# processor numbers of a cpuinfo on stdin, on one line
procs()
{
	awk -F': *' '/^processor/ { printf "%s ", $2 }'
}

# field 39 of a stat line on stdin (the command name may hold spaces)
field39()
{
	sed 's/.*) //' | cut -d' ' -f37
}

# sleepers outside any set, pinned to physical CPUs 0 and 1 (no shim)
# (env itself, not a function: $! is then the sleeper, exec'd by env)
env LD_PRELOAD= taskset -c 0 sleep 3600 </dev/null >/dev/null 2>&1 &
out0=$!
env LD_PRELOAD= taskset -c 1 sleep 3600 </dev/null >/dev/null 2>&1 &
out1=$!
# (once each runs sleep: taskset has pinned it before its exec)
wait_until eval '[ "$(cat /proc/$out0/comm /proc/$out1/comm 2>/dev/null)" = "sleep
sleep" ]'
expect_eq "outside: the sleeper on CPU 1 is on 1" "$(cut -d' ' -f39 /proc/$out1/stat)" 1
expect_eq "outside: the sleeper on CPU 0 is on 0" "$(cut -d' ' -f39 /proc/$out0/stat)" 0
at_exit 'kill $out0 $out1 2>/dev/null'

for s in "$S1" "$S2"; do
	if [ "$s" = "$S1" ]; then
		t="set {1}" n=1 want="0 " range=0 prange=0
		[ "${CPUSETSHIM_WIDE_POSSIBLE-}" = 1 ] && prange=0-1
	else
		t="set {0,1}" n=2 want="0 1 " range=0-1 prange=0-1
	fi

	# ---- one file, every spelling ----
	for c in 'cat /proc/cpuinfo' 'cd /proc && cat cpuinfo' 'cat //proc/cpuinfo' \
		'cat /proc/./cpuinfo' 'cat /proc/self/../cpuinfo' 'cat /proc/thread-self/../../../cpuinfo' \
		'cat ///proc//./cpuinfo' 'cd / && cat proc/cpuinfo' 'cd /tmp && cat ../proc/cpuinfo' \
		'cd /proc/self && cat ../cpuinfo' 'cd /proc && cd self && cd .. && cat ./cpuinfo' \
		'cat /sys/../proc/cpuinfo' 'cat /../proc/cpuinfo'; do
		expect_eq "$t: $c" "$(in_set "$s" sh -c "$c" | procs)" "$want"
	done
	for c in 'cat /sys/devices/system/cpu/online' 'cd /sys/devices/system/cpu && cat online' \
		'cd /sys/devices/system && cat cpu/online' 'cat //sys//devices/system/cpu/./online' \
		'cat /sys/bus/cpu/devices/cpu0/../online' 'cd /sys/bus/cpu/devices/cpu0 && cat ../online' \
		'cd /sys/devices/system/cpu && cat present'; do
		expect_eq "$t: $c" "$(in_set "$s" sh -c "$c" | sort -u)" "$range"
	done
	# possible: the online CPUs', or with CPUSETSHIM_WIDE_POSSIBLE=1 up to
	# the set's highest CPU (1 in both sets)
	for c in 'cat /sys/devices/system/cpu/possible' 'cd /sys/devices/system/cpu && cat possible' \
		'cat //sys//devices/system/cpu/./possible' 'cd /sys/bus/cpu/devices/cpu0 && cat ../possible'; do
		expect_eq "$t: $c" "$(in_set "$s" sh -c "$c")" "$prange"
	done
	# relative to a directory fd (openat), as Python's dir_fd does
	got=$(in_set "$s" $PY -c '
import os
def at(d, p):
    fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with os.fdopen(os.open(p, os.O_RDONLY, dir_fd=fd)) as f:
            return f.read()
    finally:
        os.close(fd)
print(sum(1 for l in at("/proc", "cpuinfo").splitlines() if l.startswith("processor")))
print(sum(1 for l in at("/", "proc/cpuinfo").splitlines() if l.startswith("processor")))
print(sum(1 for l in at("/proc/self", "../cpuinfo").splitlines() if l.startswith("processor")))
print(at("/sys/devices/system/cpu", "online").strip())
print(at("/sys/devices/system", "cpu/online").strip())
print(at("/sys/bus/cpu/devices", "cpu0/../online").strip())
s = at("/proc", "self/stat")
print(int(s[s.rindex(")") + 2:].split()[36]) < '"$n"')
' 2>&1)
	expect_eq "$t: relative to a directory fd" "$(echo $got)" "$n $n $n $range $range $range True"
	# a virtual CPU's directory: its descriptor, and the working directory
	# there (of the shell and of a child that inherits it), are cpu0's;
	# its files named by the physical CPU's
	want_core=$(cat /sys/devices/system/cpu/cpu$([ $n = 1 ] && echo 1 || echo 0)/topology/core_id)
	# the machine's siblings of the set's first CPU, restricted to the
	# set and renumbered (tests/topo/compare.py view)
	want_sib=$($PY "$SRC/tests/topo/compare.py" view / "$([ $n = 1 ] && echo 1 || echo 0,1)" \
		/sys/devices/system/cpu/cpu0/topology/thread_siblings_list | sed 's/^[^ ]* //')
	got=$(in_set "$s" $PY -c '
import os
fd = os.open("/sys/devices/system/cpu/cpu0", os.O_RDONLY | os.O_DIRECTORY)
def at(p):
    with os.fdopen(os.open(p, os.O_RDONLY, dir_fd=fd)) as f:
        return f.read().strip()
print(at("topology/core_id"), at("topology/thread_siblings_list"), at("../online"))
' 2>&1)
	expect_eq "$t: relative to a descriptor of cpu0: core_id, thread_siblings_list, ../online" \
		"$got" "$want_core $want_sib $range"
	expect_eq "$t: cd /sys/devices/system/cpu/cpu0, cat ../online, a child's ../online" \
		"$(in_set "$s" sh -c 'cd /sys/devices/system/cpu/cpu0 && cat ../online && sh -c "cat ../online"' | tr '\n' ' ')" \
		"$range $range "
	if [ $n = 1 ]; then
		expect_status "$t: cd into cpu1 (no such virtual CPU) fails" 2 \
			in_set "$s" sh -c 'cd /sys/devices/system/cpu/cpu1'
	fi
	# not views: the real files, whatever the spelling
	expect_eq "$t: /proc//meminfo is the real file" \
		"$(in_set "$s" sh -c 'cat //proc/./meminfo' | head -n 1 | cut -d: -f1)" MemTotal
	expect_eq "$t: cd /etc && cat hostname (a far directory)" \
		"$(in_set "$s" sh -c 'cd /etc && cat hostname')" "$(cat /etc/hostname)"

	# ---- field 39 ----
	for c in 'cat /proc/self/stat' 'cat /proc/thread-self/stat' 'cd /proc/self && cat stat' \
		'cat //proc/self/./stat' 'cat /proc/$$/stat' 'cat /proc/$$/task/$$/stat'; do
		v=$(in_set "$s" sh -c "$c" | field39)
		if [ -n "$v" ] && [ "$v" -lt $n ]; then
			pass "$t: field 39 of $c is a CPU of the view ($v)"
		else
			fail "$t: field 39 of $c is '$v', not below $n"
		fi
	done
	expect_ps "$t: ps -o psr of itself and of every process: no CPU outside the view" \
		"$(in_set_ps "$s" sh -c 'ps -o psr= -p $$; ps -e -o psr=' |
			awk -v n=$n '$1 >= n { bad++ } END { print (NR > 3 ? bad + 0 : "too few lines: " NR) }')" 0
	expect_eq "$t: psutil cpu_num() of itself and of every process below n" \
		"$(in_set "$s" $PY -c 'import psutil
me = psutil.Process().cpu_num()
allp = [p.cpu_num() for p in psutil.process_iter()]
print(me < '$n', len(allp) > 3 and max(allp) < '$n')')" "True True"
	# a process outside the set on physical CPU 1, and one on CPU 0
	if [ $n = 1 ]; then
		# physical 1 is virtual 0; physical 0 is outside: 0 mod 1
		expect_ps "$t: ps -o psr of the sleepers on CPUs 1 and 0" \
			"$(in_set_ps "$s" ps -o psr= -p $out1,$out0 | tr -d ' ' | sort | uniq -c | awk '{ print $1 "x" $2 }')" "2x0"
		expect_eq "$t: psutil cpu_num() of the sleeper on CPU 1" \
			"$(in_set "$s" $PY -c "import psutil; print(psutil.Process($out1).cpu_num())")" 0
		expect_eq "$t: the sleeper's task stat" \
			"$(in_set "$s" cat /proc/$out1/task/$out1/stat | field39)" 0
	else
		expect_ps "$t: ps -o psr of the sleepers on CPUs 1 and 0 (the whole machine: as they are)" \
			"$(in_set_ps "$s" ps -o psr= -p $out1,$out0 | tr -d ' ' | sort | tr '\n' ' ')" "0 1 "
		expect_eq "$t: psutil cpu_num() of the sleeper on CPU 1" \
			"$(in_set "$s" $PY -c "import psutil; print(psutil.Process($out1).cpu_num())")" 1
	fi
	expect_eq "$t: CPUSETSHIM_VIEW_PIDSTAT=0 leaves stat real" \
		"$(CPUSETSHIM_VIEW_PIDSTAT=0 in_set "$s" cat /proc/$out1/stat | field39)" 1
done

# ---- the cgroup files ----
# The caller's cpuset cgroup, v1: a cgroup made for the test, the runner
# moved into it before cpuset-run starts; removed at the end.
v1mnt=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpuset(,|$)/ { print $5; exit }' /proc/self/mountinfo)
v2mnt=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
cg_checks()
{
	_dir=$1 _files=$2 _label=$3
	for s in "$S1" "$S2"; do
		if [ "$s" = "$S1" ]; then t="set {1}" want=0; else t="set {0,1}" want=0-1; fi
		for f in $_files; do
			expect_eq "$_label, $t: $f" "$(in_cg "$_dir" "$s" cat "$_dir/$f")" "$want"
			expect_eq "$_label, $t: $f through // and ./" \
				"$(in_cg "$_dir" "$s" cat "$(dirname "$_dir")//$(basename "$_dir")/./$f")" "$want"
			expect_eq "$_label, $t: cd to the cgroup, cat $f" \
				"$(in_cg "$_dir" "$s" sh -c "cd '$_dir' && cat $f")" "$want"
		done
		expect_eq "$_label, $t: CPUSETSHIM_VIEW_CGROUP=0 leaves them real" \
			"$(CPUSETSHIM_VIEW_CGROUP=0 in_cg "$_dir" "$s" cat "$_dir/cpuset.cpus")" \
			"$(cat "$_dir/cpuset.cpus")"
		# another cgroup's file is not the caller's: real
		expect_eq "$_label, $t: the parent's cpuset.cpus is real" \
			"$(in_cg "$_dir" "$s" cat "$(dirname "$_dir")/cpuset.cpus")" \
			"$(cat "$(dirname "$_dir")/cpuset.cpus")"
	done
}
# in_cg DIR SET CMD...: CMD in SET, its runner first moved into cgroup DIR
in_cg()
{
	_d=$1 _s=$2
	shift 2
	with_san sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$_d" \
		timeout 120 "$CPUSET_RUN" --set "$_s" "$@"
}
# cg_threads DIR FILES LABEL: eight threads in the set {1}, in cgroup DIR
# (CPUs 0-1), read its FILES 200 times each at once: the shim's kept
# cgroup directories and real files are shared; every read must be the
# view ("0").
cg_threads()
{
	: >"$T/cg.list"
	for f in $2; do echo "$1/$f 0" >>"$T/cg.list"; done
	expect_status "$3: 8 threads read the cgroup's files, every read the view" 0 \
		in_cg_sub "$1" "$S1" "$B/tests/topo/rereads" 8 200 "$T/cg.list"
}
# in_cg in a subshell: its variables are not the caller's (expect_status's)
in_cg_sub() (in_cg "$@")
# cg_moves PARENT FILE LABEL: one process in the set {1}, started in
# cgroup A (CPUs 0-1), reads A's FILE (a view: "0"), moves itself into
# cgroup B (CPU 1), reads B's FILE (its own now: a view, "0", where the
# real file says 1), A's again (not its own any more: real, "0-1"), then
# B's after B's CPUs change to 0 (read fresh: none of the set's, ""). The
# shim keeps its cgroup's directories between reads: this is what says it
# looks again when the process has moved.
cg_moves()
{
	_p=$1 _f=$2 _label=$3 _a="$1/cpusetshim-mvA.$$" _b="$1/cpusetshim-mvB.$$"
	if ! mkdir "$_a" "$_b"; then
		fail "$_label: cgroups for the move test not made under $_p"
		return
	fi
	[ -f "$_p/cpuset.mems" ] && cat "$_p/cpuset.mems" >"$_a/cpuset.mems" &&
		cat "$_p/cpuset.mems" >"$_b/cpuset.mems"
	echo 0-1 >"$_a/$_f"
	echo 1 >"$_b/$_f"
	in_cg "$_a" "$S1" $PY -c '
import os, sys
a, b, f = sys.argv[1:4]
rd = lambda d: open(os.path.join(d, f)).read().strip()
print("A", rd(a))
with open(os.path.join(b, "cgroup.procs"), "w") as w:
    w.write(str(os.getpid()))
print("B", rd(b))
print("A2", rd(a))
with open(os.path.join(b, f), "w") as w:
    w.write("0")
print("B2", rd(b), "end")
' "$_a" "$_b" "$_f" >"$T/cgmove.out" 2>&1
	expect_eq "$_label: own cgroup's $_f before the move" "$(awk '$1 == "A" { print $2 }' "$T/cgmove.out")" 0
	expect_eq "$_label: the new cgroup's $_f after the move (CPU 1 is virtual 0)" \
		"$(awk '$1 == "B" { print $2 }' "$T/cgmove.out")" 0
	expect_eq "$_label: the old cgroup's $_f is real after the move" \
		"$(awk '$1 == "A2" { print $2 }' "$T/cgmove.out")" "$(cat "$_a/$_f")"
	expect_eq "$_label: own cgroup's $_f read fresh after it changed" \
		"$(grep '^B2 ' "$T/cgmove.out")" "B2  end"
	rmdir "$_a" "$_b" || fail "$_label: $_a or $_b not removed"
}
cg_made=
if [ -n "$v1mnt" ] && [ "$(id -u)" = 0 ] && mkdir "$v1mnt/cpusetshim-test.$$" 2>/dev/null; then
	cg_made="$v1mnt/cpusetshim-test.$$"
	cat "$v1mnt/cpuset.mems" >"$cg_made/cpuset.mems"
	echo 0-1 >"$cg_made/cpuset.cpus"
	cg_checks "$cg_made" "cpuset.cpus cpuset.effective_cpus" "cgroup v1"
	cg_threads "$cg_made" "cpuset.cpus cpuset.effective_cpus" "cgroup v1"
	rmdir "$cg_made" || fail "cgroup v1: $cg_made not removed"
	cg_moves "$v1mnt" cpuset.cpus "cgroup v1"
else
	note "cgroup v1 cpuset: no mount or not root here: not checked live (check_vpidstat checks the text)"
fi
if [ -n "$v2mnt" ] && grep -qw cpuset "$v2mnt/cgroup.controllers" 2>/dev/null &&
	[ "$(id -u)" = 0 ] && mkdir "$v2mnt/cpusetshim-test.$$" 2>/dev/null; then
	d="$v2mnt/cpusetshim-test.$$"
	echo +cpuset >"$v2mnt/cgroup.subtree_control" 2>/dev/null
	echo 0-1 >"$d/cpuset.cpus"
	cg_checks "$d" "cpuset.cpus cpuset.cpus.effective" "cgroup v2"
	cg_threads "$d" "cpuset.cpus cpuset.cpus.effective" "cgroup v2"
	rmdir "$d" || fail "cgroup v2: $d not removed"
	cg_moves "$v2mnt" cpuset.cpus "cgroup v2"
else
	note "cgroup v2 here has no cpuset controller (or not root): not checked live (check_vpidstat checks the text)"
fi

# ---- a resize while a program holds each view open ----
# It reads each descriptor it keeps open again from the start, and opens each path
# afresh: both must show the set as it is now.
hold_one()
{
	_from=$1 _to=$2 _label=$3
	shift 3
	hold_n=$((${hold_n:-0} + 1))
	name="ptest-hold$hold_n"
	"$CPUSET" create --cpus "$_from" --name "$name" >/dev/null || { fail "create $name"; return; }
	rm -f "$T/ready" "$T/go"
	in_set "$name" $PY "$SRC/tests/integration/hold_views.py" "$T" "$@" >"$T/hold.out" 2>&1 &
	_p=$!
	wait_until [ -f "$T/ready" ]
	"$CPUSET" alloc "$name" "$_to" || fail "alloc $name $_to"
	touch "$T/go"
	wait $_p
	show "$T/hold.out"
	n_to=$(echo "$_to" | awk -F- '{ print ($2 == "" ? 1 : $2 - $1 + 1) }')
	range_to=$([ "$n_to" = 1 ] && echo 0 || echo 0-$((n_to - 1)))
	for k in held fresh; do
		expect_eq "$_label: $k cpuinfo" "$(awk -v k=$k '$1 == k && $2 == "cpuinfo" { print $3 }' "$T/hold.out")" "$n_to"
		expect_eq "$_label: $k stat" "$(awk -v k=$k '$1 == k && $2 == "stat" { print $3 }' "$T/hold.out")" "$n_to"
		expect_eq "$_label: $k online" "$(awk -v k=$k '$1 == k && $2 == "online" { print $3 }' "$T/hold.out")" "$range_to"
		expect_eq "$_label: $k status" "$(awk -v k=$k '$1 == k && $2 == "status" { print $3 }' "$T/hold.out")" "$range_to"
		for f in pidstat taskstat; do
			v=$(awk -v k=$k -v f=$f '$1 == k && $2 == f { print $3 }' "$T/hold.out")
			if [ -n "$v" ] && [ "$v" -lt "$n_to" ]; then
				pass "$_label: $k $f field 39 ($v) in the view"
			else
				fail "$_label: $k $f field 39 is '$v', not below $n_to"
			fi
		done
		[ $# -gt 0 ] && expect_eq "$_label: $k cgroup" \
			"$(awk -v k=$k '$1 == k && $2 == "cgroup" { print $3 }' "$T/hold.out")" "$range_to"
	done
	"$CPUSET" destroy "$name" 2>/dev/null
}
hold_one 0-1 1 "shrunk {0,1} to {1}"
hold_one 1 0-1 "grown {1} to {0,1}"
if [ -n "$v1mnt" ]; then
	hold_one 0-1 1 "shrunk, cgroup file held" "$v1mnt/cpuset.cpus"
fi

finish
