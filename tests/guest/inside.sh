#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The checks run inside the guest of tests/guest.sh (tests/guest/boot.sh:
# 2 packages, 2 threads a core, 2 NUMA nodes with CPUs and one with memory
# only, a real kernel's /sys and /proc: the shim's production path, no
# test root). Sets drawn from the guest's own sysfs: one CPU, one package,
# one node, and one core of each package (two nodes); in each, what
# lscpu, lstopo, hwloc-calc, numactl --hardware, libnuma and the shim's
# /proc and /sys files show is the kernel's truth restricted to the set
# (tests/guest/views.py, tests/topo/compare.py). Then a CPU of a set taken offline and back with
# members running, and memory placement.
#
# GUEST_MODE=noshim runs the sets' checks with the same CPUs (taskset)
# but without the shim: they must fail, which tests/guest.sh asserts, so
# that a harness that lost the shim on the way cannot pass.
# GUEST_MODE=nonodes runs the checks of the sets of nodes under the shim
# in sets of their CPUs with the machine's nodes: what a shim that does
# not translate nodes shows; they must fail too.
#
# Needs CPS_BUILDDIR and CPS_SRCDIR (tests/guest.sh sets them); runs as
# root, since it takes a CPU offline: only in a guest, never on a host.
. "$CPS_SRCDIR/tests/common.sh"
PY=$PYTHON3
CMP="$PY $SRC/tests/topo/compare.py"
need lscpu util-linux
need lstopo-no-graphics hwloc
need hwloc-calc hwloc
need numactl numactl
need taskset util-linux
need "$PY" python3
$PY -c 'import psutil' 2>/dev/null || skip_all "needs psutil for $PY (Debian package python3-psutil)"
mode=${GUEST_MODE:-shim}
[ "$(id -u)" = 0 ] || skip_all "runs as root in the guest"
"$CPUSET" init >/dev/null || die "cpuset init"
SYS=/sys/devices/system/cpu
NODE=/sys/devices/system/node
VIEWS="$PY $SRC/tests/guest/views.py"

# list LIST: the CPUs of a kernel CPU list, space-separated
list() { $PY -c "import sys; sys.path.insert(0, '$SRC/tests/topo'); import compare; print(' '.join(map(str, compare.cpulist('$1'))))"; }
# join CPUs...: one comma-separated list
join() { echo "$@" | tr ' ' '\n' | sort -nu | tr '\n' , | sed 's/,$//'; }
first() { echo "$1" | tr ' ' '\n' | head -n 1; }
lastof() { echo "$1" | tr ' ' '\n' | tail -n 1; }
pkgfile=package_cpus_list
[ -e "$SYS/cpu0/topology/$pkgfile" ] || pkgfile=core_siblings_list
thrfile=thread_siblings_list

# never on a machine of one node: the point is the guest's nodes
nodes_cpu=$(cat $NODE/has_cpu 2>/dev/null)
[ "$(list "$nodes_cpu" | wc -w)" -ge 2 ] ||
	die "not the guest: nodes with CPUs [$nodes_cpu], want two or more"

# ---- the sets, from the guest's own sysfs ----
online=$(list "$(cat $SYS/online)")
cnodes=$(list "$nodes_cpu")
n0=$(first "$cnodes") nl=$(lastof "$cnodes")
set_cpu=$(lastof "$online")
set_pkg=$(join $(list "$(cat $SYS/cpu0/topology/$pkgfile)"))
set_node=$(join $(list "$(cat $NODE/node$nl/cpulist)"))
a=$(lastof "$(list "$(cat $NODE/node$n0/cpulist)")")
b=$(first "$(list "$(cat $NODE/node$nl/cpulist)")")
set_cross=$(join $(list "$(cat $SYS/cpu$a/topology/$thrfile)") $(list "$(cat $SYS/cpu$b/topology/$thrfile)"))
note "guest: CPUs $(cat $SYS/online), nodes $(cat $NODE/online), with CPUs $nodes_cpu, with memory $(cat $NODE/has_memory)"
note "guest: cpu0's package $set_pkg, its threads $(cat $SYS/cpu0/topology/$thrfile)"
note "sets: one CPU {$set_cpu}, one package {$set_pkg}, node $nl {$set_node}, a core of each end node {$set_cross}"
# a node with memory and no CPU
mnode=$(for k in $(list "$(cat $NODE/has_memory)"); do
	case " $(list "$nodes_cpu") " in *" $k "*) ;; *) echo "$k" ;; esac
done | head -n 1)
set_n0=$(join $(list "$(cat $NODE/node$n0/cpulist)"))
# the sets of nodes: CPUS/NODES (physical), GUEST_NODE_SETS instead
if [ "${GUEST_NODE_SETS+set}" = set ]; then
	node_sets=$GUEST_NODE_SETS
elif [ -n "$mnode" ]; then
	node_sets="$set_node/$nl $set_node/$n0 $set_n0/$mnode $(join $(list "$set_n0") $(list "$set_node"))/$nl,$mnode"
else
	node_sets="$set_node/$nl $set_node/$n0"
fi
note "sets of nodes (CPUs/nodes): $node_sets"

# the machine's nodes with memory: the root set's, every set's unless
# it is given its own
allmems=$(cat $NODE/has_memory)
case $mode in
shim) run() { with_san "$CPUSET_RUN" --cpus "$S" ${M:+--mems "$M"} -- "$@"; } ;;
# the set's CPUs with the shim, but the machine's nodes: what a shim
# without node translation shows
nonodes) run() { with_san "$CPUSET_RUN" --cpus "$S" -- "$@"; } ;;
noshim) run() { taskset -c "$S" "$@"; } ;;
*) die "GUEST_MODE=$mode: shim, nonodes or noshim" ;;
esac

# the whole machine's outputs, once: the sets restrict them
for o in "" -p -e; do lscpu $o >"$T/full.lscpu${o}" 2>&1; done
numactl --hardware >"$T/full.numactl" 2>&1

# set_checks S W [M]: in the set S (physical CPUs) with the memory
# nodes M (physical; default the machine's, not renumbered), every file
# of its first and last CPU by their virtual names, the CPU directory's
# own files, the nodes' files, the listings of the CPU and node
# directories through every kind of descriptor, /proc's counts, status,
# libnuma, psutil (one program: tests/guest/views.py), then lscpu (its
# summary's nodes, -p and -e), lstopo and numactl --hardware, each
# against the kernel's truth restricted to S and M, M's nodes numbered
# 0..k-1. Without node translation (nonodes), lscpu and lstopo are left
# out: the rest is enough to fail.
set_checks() {
	S=$1 W=$2 M=${3-}
	mems=${M:-$allmems}
	phys=$(list "$S")
	n=$(echo $phys | wc -w)
	k=$(list "$mems" | wc -w)
	J=$T/judge
	rm -rf "$J" && mkdir "$J" && cp "$T"/full.* "$J"/
	v=0
	for p in $phys; do
		if [ "$v" = 0 ] || [ "$v" = $((n - 1)) ]; then
			(cd "$SYS/cpu$p" && find topology cache -type f 2>/dev/null) | sed "s|^|$SYS/cpu$v/|" >>"$J/paths"
			echo "$SYS/cpu$v/topology/cluster_cpus_list" >>"$J/paths"
		fi
		v=$((v + 1))
	done
	for f in online possible present kernel_max offline isolated enabled nohz_full; do
		echo "$SYS/$f"
	done >>"$J/paths"
	echo "$SYS/cpu$n/topology/core_id" >>"$J/paths"
	sort -u -o "$J/paths" "$J/paths"
	# in the set
	run $PY "$SRC/tests/guest/views.py" read "$J/paths" "$n" "$k" >"$J/got" 2>&1
	st_lscpu=
	if [ "$mode" != nonodes ]; then
		for o in "" -p -e; do
			run lscpu $o >"$J/got.lscpu$o" 2>"$J/err.lscpu$o"
			st_lscpu="$st_lscpu $?"
		done
		if [ -n "$M" ]; then
			run env HWLOC_GROUPING=0 lstopo-no-graphics --of xml - >"$J/got.xml" 2>&1
		else
			run lstopo-no-graphics --of xml - >"$J/got.xml" 2>&1
		fi
	fi
	run numactl --hardware >"$J/got.numactl" 2>&1
	# outside: every expectation in one process
	$VIEWS judge "$J" / "$S" "$mems" >"$J/judge.out" 2>&1 || { note "$W views.py judge said:"; show "$J/judge.out"; }
	grep -q "^/" "$J/got" || { note "$W views.py in the set said:"; show "$J/got"; }
	# the files as one check, the rest a check a line
	grep "^/" "$J/want" >"$J/want.files"
	grep "^/" "$J/got" >"$J/got.files"
	if diff "$J/want.files" "$J/got.files" >"$J/diff"; then
		pass "$W $(wc -l <"$J/want.files") files of cpu0 and cpu$((n - 1)), $SYS and the nodes ($(grep -c ': ENOENT$' "$J/want.files") absent)"
	else
		fail "$W the files of cpu0 and cpu$((n - 1)), $SYS and the nodes" "$(cat "$J/diff")"
	fi
	grep -v "^/" "$J/want" >"$J/want.rest"
	grep -v "^/" "$J/got" >"$J/got.rest"
	while IFS= read -r w; do
		key=${w%%: *}
		g=$(grep -F "$key: " "$J/got.rest" | head -n 1)
		expect_eq "$W $key" "${g#*: }" "${w#*: }"
	done <"$J/want.rest"
	set -- $st_lscpu
	for o in "" -p -e; do
		[ "$mode" = nonodes ] && break
		st=$1
		shift
		if [ "$st" = 0 ] && diff "$J/want.lscpu$o" "$J/mine.lscpu$o" >"$J/diff"; then
			pass "$W lscpu${o:+ $o}"
		else
			fail "$W lscpu${o:+ $o}" "exit status $st; stderr: $(cat "$J/err.lscpu$o")" "$(cat "$J/diff")"
		fi
	done
	if [ "$mode" = nonodes ]; then
		:
	elif [ -n "$M" ]; then
		check "$W lstopo" $CMP hwloc-nodes / "$S" "$M" "$J/got.xml"
	else
		check "$W lstopo" $CMP hwloc / "$S" "$J/got.xml"
	fi
	if diff "$J/want.numactl" "$J/mine.numactl" >"$J/diff"; then
		pass "$W numactl --hardware"
	else
		fail "$W numactl --hardware" "$(cat "$J/diff")"
	fi
}

done_sets=
# (without the shim, one set is enough to fail; without its nodes, the
# sets of nodes alone)
case $mode in
shim) sets=${GUEST_SETS-$set_cpu $set_node $set_pkg $set_cross} ;;
noshim) sets=${GUEST_SETS-$set_node} ;;
*) sets= ;;
esac
# a slow or loaded host (TCG runs every guest CPU on the host's) checks
# fewer sets: past GUEST_SET_BUDGET seconds (150) of set checks, sets
# beyond the first two are left out, and said
t_sets=$(date +%s)
nsets=0
for S in $sets; do
	case " $done_sets " in *" $S "*) continue ;; esac
	if [ $nsets -ge 2 ] && [ $(($(date +%s) - t_sets)) -ge "${GUEST_SET_BUDGET:-150}" ]; then
		note "set {$S} left out: ${GUEST_SET_BUDGET:-150} s of set checks spent (GUEST_SET_BUDGET)"
		continue
	fi
	nsets=$((nsets + 1))
	done_sets="$done_sets $S"
	set_checks "$S" "{$S}"
done
# ---- sets of their own nodes, renumbered 0..k-1 ----
# one node (the CPUs' own), another node (the CPUs then have none of the
# set's), the memory-only node, and two nodes (one of them memory only);
# all of them, whatever the time spent: they are what renumbers nodes
[ "$mode" = noshim ] || for SM in $node_sets; do
	set_checks "${SM%/*}" "{${SM%/*} mems ${SM#*/}}" "${SM#*/}"
done
[ "$mode" = shim ] || finish

# ---- a CPU of a set taken offline and back, members running ----
# The set: node n0's CPUs; the CPU: its last (cpu3 in the guest of
# tests/guest/boot.sh), which no thread of the workload pins itself to
# (threads 0 and 1 pin themselves to virtual CPUs 0 and 1).
S=$(join $(list "$(cat $NODE/node$n0/cpulist)"))
OFF=$(lastof "$(list "$S")")
note "---- set {$S}: cpu$OFF offline and back, with members running ----"
mkdir "$T/wl"
"$CPUSET" create --cpus "$S" --name hot >/dev/null || die "cpuset create --cpus $S --name hot"
with_san "$CPUSET_RUN" --set hot -- "$B/tests/integration/prog_workload" "$T/wl" 2 &
wl=$!
at_exit "touch '$T/wl/stop'; kill $wl 2>/dev/null; echo 1 >$SYS/cpu$OFF/online 2>/dev/null"
two_members() { [ "$(ls "$T/wl" | grep -c '^view\.[0-9]*$')" -ge 2 ]; }
wait_until two_members
members=$(ls "$T/wl" | sed -n 's/^view\.\([0-9]*\)$/\1/p' | tr '\n' ' ')
expect_eq "{$S} two members running" "$(echo $members | wc -w)" 2
# confined: every thread of every member may run only on S, and ran last
# on an online CPU of S
confined() {
	$PY - "$S" $members <<'PY'
import os, sys
sys.path.insert(0, os.environ["CPS_SRCDIR"] + "/tests/topo")
import compare
s = set(compare.cpulist(sys.argv[1]))
on = set(compare.cpulist(open("/sys/devices/system/cpu/online").read().strip()))
bad = []
for pid in sys.argv[2:]:
    for tid in os.listdir("/proc/%s/task" % pid):
        try:
            st = open("/proc/%s/task/%s/status" % (pid, tid)).read()
            last = int(open("/proc/%s/task/%s/stat" % (pid, tid)).read().rsplit(")", 1)[1].split()[36])
        except OSError:
            continue
        allowed = set(compare.cpulist([l for l in st.splitlines() if l.startswith("Cpus_allowed_list")][0].split(":")[1].strip()))
        if not allowed <= s or last not in s & on:
            bad.append("%s/%s allowed %s last %d" % (pid, tid, compare.fmt_list(allowed), last))
print("\n".join(bad) if bad else "confined")
PY
}
# what the members see (prog_workload's view files, rewritten every 10
# ms): every count is of the set's online CPUs, online their virtual list
member_views() {
	_w=$(cd "$SRC/tests/topo" && $PY -c "
import compare
s = compare.cpulist('$S'); on = compare.cpulist(open('$SYS/online').read().strip())
v = [i for i, p in enumerate(s) if p in on]
print('n=%d online=%s cpuinfo=%d stat=%d affinity=%d' % ((len(v), compare.fmt_list(v)) + (len(v),) * 3))")
	# (a view is rewritten within 10 ms: a few seconds under TCG at most)
	views_are() {
		_g=$(for m in $members; do cat "$T/wl/view.$m"; done | sort -u)
		[ "$_g" = "$_w" ]
	}
	wait_until views_are
	# the counts the kernel gives per call (cpuinfo, stat, affinity)
	expect_eq "$1: the members' cpuinfo, stat and affinity counts" \
		"$(echo "$_g" | sed 's/^n=[^ ]* online=[^ ]* //')" "$(echo "$_w" | sed 's/^n=[^ ]* online=[^ ]* //')"
	# the online list and sysconf's count: the set's CPUs online, the
	# view and the count read again within a second of a change
	expect_eq "$1: the members' sysconf(_SC_NPROCESSORS_ONLN) and online" \
		"$(echo "$_g" | sed 's/ cpuinfo=.*//')" "$(echo "$_w" | sed 's/ cpuinfo=.*//')"
}
expect_eq "{$S} before: the members are confined" "$(confined)" confined
member_views "{$S} before"
echo 0 >"$SYS/cpu$OFF/online"
expect_eq "cpu$OFF is offline" "$(cat $SYS/cpu$OFF/online)" 0
# (the kernel moves the members' threads off it: each has run since on
# an online CPU of the set)
is_confined() { [ "$(confined)" = confined ]; }
wait_until is_confined
expect_eq "{$S} cpu$OFF offline: the members are confined" "$(confined)" confined
member_views "{$S} cpu$OFF offline"
# a program started now in the members' set: the kernel gives every
# affinity without the offline CPU, and the allowance rule judges online
# CPUs only, so it joins
run() { with_san "$CPUSET_RUN" --set hot -- "$@"; }
run true >"$T/attach" 2>&1
expect_eq "{$S} cpu$OFF offline: a new program joins the members' set" \
	"$(cat "$T/attach")" ""
echo 1 >"$SYS/cpu$OFF/online"
expect_eq "cpu$OFF is online again" "$(cat $SYS/cpu$OFF/online)" 1
wait_until is_confined
expect_eq "{$S} cpu$OFF back: the members are confined" "$(confined)" confined
member_views "{$S} cpu$OFF back"
touch "$T/wl/stop"
wait $wl
expect_eq "{$S} the members ended cleanly" $? 0

# ---- memory ----
# Sets have CPUs only today; the memory of a set (its nodes, renumbered,
# and placement) goes here when sets own NUMA nodes:
#   - bind: numactl --membind=0 in a set of one node: the pages on the
#     set's node (/proc/PID/numa_maps read outside the shim);
#   - interleave: numactl --interleave=all spreads over the set's nodes
#     only;
#   - move_pages: nodes[] in and status[] out in the set's numbers;
#   - a resize of the set's nodes moves a member's pages from node to
#     node (numa_maps before and after).
# Today's behaviour, until then: numactl --membind in a set takes the
# machine's node numbers, so the memory-only node is reachable, and a
# member's anonymous pages land there.
if [ -z "$mnode" ]; then
	fail "a node with memory and no CPU in the guest" "has_memory $(cat $NODE/has_memory), has_cpu $nodes_cpu"
else
	S=$set_cpu
	rm -f "$T/mem.ready"
	with_san "$CPUSET_RUN" --cpus "$S" -- numactl --membind="$mnode" $PY -c "
import os, time
b = bytearray(32 << 20)
for i in range(0, len(b), 4096): b[i] = 1
open('$T/mem.ready', 'w').write(str(os.getpid()))
while not os.path.exists('$T/mem.stop'): time.sleep(0.1)
" &
	mp=$!
	wait_until test -s "$T/mem.ready"
	pid=$(cat "$T/mem.ready" 2>/dev/null)
	# anonymous pages per node, read outside the shim
	got=$(awk -v m="$mnode" '/anon=/ { for (i = 1; i <= NF; i++) if ($i ~ /^N[0-9]+=/) {
		split(substr($i, 2), a, "="); if (a[1] == m) on += a[2]; else off += a[2] } }
		END { print (on >= 8192 ? "on" : "short " on + 0), off + 0 }' "/proc/$pid/numa_maps" 2>&1)
	note "{$S} numactl --membind=$mnode: anonymous pages on node $mnode: ${got%% *} (32 MiB or more), elsewhere: ${got##* }"
	expect_eq "{$S} numactl --membind=$mnode (memory only): 32 MiB on node $mnode" "${got%% *}" on
	touch "$T/mem.stop"
	wait $mp
fi
# ---- a set's nodes: the default policy, and a resize that moves pages ----
# A member that sets no policy allocates on its set's nodes (the shim binds
# it), from a CPU of another node, where the kernel's default (local)
# would place them; `cpuset alloc --mems` moves its pages after the commit
# (migrate_pages). numa_maps read outside the shim.
# anonymous pages of $1 on node $2: "on" (32 MiB or more) or "short N", then elsewhere
pages_on() {
	awk -v m="$2" '/anon=/ { for (i = 1; i <= NF; i++) if ($i ~ /^N[0-9]+=/) {
		split(substr($i, 2), a, "="); if (a[1] == m) on += a[2]; else off += a[2] } }
		END { print (on >= 8192 ? "on" : "short " on + 0), off + 0 }' "/proc/$1/numa_maps" 2>&1
}
# anonymous pages of $1 on node $2, then elsewhere, as two numbers
pages_count() {
	awk -v m="$2" '/anon=/ { for (i = 1; i <= NF; i++) if ($i ~ /^N[0-9]+=/) {
		split(substr($i, 2), a, "="); if (a[1] == m) on += a[2]; else off += a[2] } }
		END { print on + 0, off + 0 }' "/proc/$1/numa_maps" 2>/dev/null || echo 0 0
}
# member SET TAG: a member of SET touching 32 MiB; its pid in $pid
member_mem() {
	rm -f "$T/$2.ready" "$T/$2.stop" "$T/$2.more" "$T/$2.more.done"
	with_san "$CPUSET_RUN" --set "$1" -- $PY -c "
import os, time
b = bytearray(32 << 20)
for i in range(0, len(b), 4096): b[i] = 1
open('$T/$2.ready', 'w').write(str(os.getpid()))
while not os.path.exists('$T/$2.stop'):
	if os.path.exists('$T/$2.more') and not os.path.exists('$T/$2.more.done'):
		os.sched_getaffinity(0)  # through the shim: sees the set's new nodes
		c = bytearray(32 << 20)
		for i in range(0, len(c), 4096): c[i] = 1
		open('$T/$2.more.done', 'w').write('1')
	time.sleep(0.1)
" &
	mpid=$!
	wait_until test -s "$T/$2.ready"
	pid=$(cat "$T/$2.ready" 2>/dev/null)
}
if [ "$mode" = shim ]; then
	c0=$(first "$(list "$(cat $NODE/node$n0/cpulist)")")
	cl=$(first "$(list "$(cat $NODE/node$nl/cpulist)")")
	"$CPUSET" create --cpus "$cl" --mems "$n0" --name memres >/dev/null ||
		fail "cpuset create --cpus $cl --mems $n0 --name memres"
	member_mem memres res
	got=$(pages_on "$pid" "$n0")
	note "{$cl} mems {$n0}, no policy: pages on node $n0: ${got%% *}, elsewhere: ${got##* }"
	expect_eq "{$cl} mems {$n0}, no policy: 32 MiB on node $n0" "${got%% *}" on
	t0=$(date +%s%N)
	"$CPUSET" alloc --mems "$nl" memres >"$T/alloc.out" 2>&1
	expect_eq "cpuset alloc --mems $nl memres" "$? $(cat "$T/alloc.out")" "0 "
	t1=$(date +%s%N)
	got=$(pages_on "$pid" "$nl")
	note "after alloc --mems $nl ($(( (t1 - t0) / 1000000 )) ms): pages on node $nl: ${got%% *}, elsewhere: ${got##* }"
	expect_eq "alloc memres --mems $nl: the member's 32 MiB moved to node $nl" "${got%% *}" on
	# its next allocation, after a call through the shim, on the new node.
	# The loop may touch a few pages of its own before that call, under the
	# old binding (a thread sees the change at its next call): the 32 MiB
	# (8,192 pages) are what must land on the new node, not elsewhere.
	before=$(pages_count "$pid" "$nl")
	touch "$T/res.more"
	wait_until test -s "$T/res.more.done"
	after=$(pages_count "$pid" "$nl")
	don=$(( ${after%% *} - ${before%% *} )); doff=$(( ${after##* } - ${before##* } ))
	note "after 32 MiB more: pages on node $nl: +$don, elsewhere: +$doff"
	expect_eq "the member's next 32 MiB, after the shim saw the change, on node $nl (8,192 pages or more; under 256 elsewhere)" \
		"$([ "$don" -ge 8192 ] && [ "$doff" -lt 256 ] && echo yes)" yes
	# its numa_maps through the shim, read by a process of its set: the
	# set's node $nl is node 0 there, holding what node $nl holds outside
	# (the member still runs and may touch pages between the readings:
	# the view's count lies between the two outside it, within 64)
	outside=$(pages_count "$pid" "$nl")
	view=$(with_san "$CPUSET_RUN" --set memres -- $PY -c 'import sys; sys.stdout.write(open(sys.argv[1]).read())' \
		"/proc/$pid/numa_maps" 2>&1 |
		awk '/anon=/ { for (i = 1; i <= NF; i++) if ($i ~ /^N0=/) n += substr($i, 4) } END { print n + 0 }')
	outside2=$(pages_count "$pid" "$nl")
	lo=${outside%% *} hi=${outside2%% *}
	[ "$lo" -le "$hi" ] || { lo=${outside2%% *}; hi=${outside%% *}; }
	note "numa_maps in the set: N0 anonymous pages $view; outside: node $nl ${outside%% *} before, ${outside2%% *} after"
	expect_eq "numa_maps through the shim: the set's node $nl is N0, with its pages (within 64)" \
		"$([ "$lo" -ge 16384 ] && [ "$view" -ge $((lo - 64)) ] && [ "$view" -le $((hi + 64)) ] && echo yes)" yes
	touch "$T/res.stop"
	wait $mpid
	# against migratepages(8) doing the same move
	if command -v migratepages >/dev/null; then
		numactl --membind="$n0" $PY -c "
import os, time
b = bytearray(32 << 20)
for i in range(0, len(b), 4096): b[i] = 1
open('$T/mp.ready', 'w').write(str(os.getpid()))
while not os.path.exists('$T/mp.stop'): time.sleep(0.1)
" &
		mpid=$!
		wait_until test -s "$T/mp.ready"
		pid=$(cat "$T/mp.ready")
		t0=$(date +%s%N)
		migratepages "$pid" "$n0" "$nl"
		t1=$(date +%s%N)
		note "migratepages $pid $n0 $nl: $(( (t1 - t0) / 1000000 )) ms, pages on node $nl: $(pages_on "$pid" "$nl")"
		touch "$T/mp.stop"
		wait $mpid
	fi
	"$CPUSET" create --cpus "$c0" --mems "$nl" --name memone >/dev/null ||
		fail "cpuset create --cpus $c0 --mems $nl --name memone"
	member_mem memone one
	got=$(pages_on "$pid" "$nl")
	note "{$c0} mems {$nl}, no policy: pages on node $nl: ${got%% *}, elsewhere: ${got##* }"
	expect_eq "{$c0} mems {$nl}, no policy: 32 MiB on node $nl" "${got%% *}" on
	touch "$T/one.stop"
	wait $mpid
	# ---- the cgroup mirror: the kernel confines a set's memory ----
	# A program that set its own policy without the shim (numactl
	# --membind of node $n0, physical, no preload), attached to a set of
	# node $nl: without a mirror its own binding holds; with the table's
	# cgroup mirror (cgroup on places the set's members) its cgroup's
	# cpuset.mems are {$nl}, and the kernel moves its pages there and
	# places its next allocation there, its own binding notwithstanding; a
	# change of the set's nodes is the kernel's too. numa_maps and status
	# read outside the shim.
	"$CPUSET" create --cpus "$c0" --mems "$nl" --name memcg >/dev/null ||
		fail "cpuset create --cpus $c0 --mems $nl --name memcg"
	rm -f "$T/cg.ready" "$T/cg.more" "$T/cg.more.done" "$T/cg.stop"
	numactl --membind="$n0" $PY -c "
import os, time
b = bytearray(32 << 20)
for i in range(0, len(b), 4096): b[i] = 1
open('$T/cg.ready', 'w').write(str(os.getpid()))
while not os.path.exists('$T/cg.stop'):
	if os.path.exists('$T/cg.more') and not os.path.exists('$T/cg.more.done'):
		c = bytearray(32 << 20)
		for i in range(0, len(c), 4096): c[i] = 1
		open('$T/cg.more.done', 'w').write('1')
	time.sleep(0.1)
" &
	mpid=$!
	wait_until test -s "$T/cg.ready"
	pid=$(cat "$T/cg.ready" 2>/dev/null)
	memsof() { sed -n 's/^Mems_allowed_list:[[:space:]]*//p' "/proc/$1/status"; }
	got=$(pages_on "$pid" "$n0")
	expect_eq "its own --membind=$n0, no shim: 32 MiB on node $n0" "${got%% *}" on
	"$CPUSET" attach memcg "$pid" >"$T/att.out" 2>&1
	expect_eq "cpuset attach memcg (no mirror)" "$? $(cat "$T/att.out")" "0 "
	# (the attach has taken: the member may run on the set's CPU only, and
	# has run there since; the kernel has had its chance to move pages)
	ran_on() { [ "$(real_cpus "$1")" = "$2" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f37)" = "$2" ]; }
	wait_until ran_on "$pid" "$c0"
	got=$(pages_on "$pid" "$n0")
	expect_eq "no mirror: its own binding holds, its 32 MiB stay on node $n0" "${got%% *}" on
	expect_ne "no mirror: its Mems_allowed_list is not the set's node alone" "$(memsof "$pid")" "$nl"
	"$CPUSET" cgroup on >"$T/cg.out" 2>&1
	expect_eq "cpuset cgroup on (cgroup2 here)" "$? $(cat "$T/cg.out")" "0 cgroup: /sys/fs/cgroup/$CPUSETSHIM_TABLE"
	expect_eq "the member is in the set's cgroup" \
		"$(sed -n 's/^0:://p' "/proc/$pid/cgroup")" "/$CPUSETSHIM_TABLE/s$("$CPUSET" --json show memcg | $PY -c 'import json,sys; print(json.load(sys.stdin)["set"]["id"])')"
	expect_eq "its Mems_allowed_list (the kernel's) is node $nl" "$(memsof "$pid")" "$nl"
	got=$(pages_on "$pid" "$nl")
	note "mirror on: pages on node $nl: ${got%% *}, elsewhere: ${got##* }"
	expect_eq "mirror on: its 32 MiB moved to node $nl by the kernel" "${got%% *}" on
	before=$(pages_count "$pid" "$nl")
	touch "$T/cg.more"
	wait_until test -s "$T/cg.more.done"
	after=$(pages_count "$pid" "$nl")
	don=$(( ${after%% *} - ${before%% *} )); doff=$(( ${after##* } - ${before##* } ))
	note "its next 32 MiB: pages on node $nl: +$don, elsewhere: +$doff"
	expect_eq "its next 32 MiB on node $nl despite its own binding (8,192 pages or more; under 256 elsewhere)" \
		"$([ "$don" -ge 8192 ] && [ "$doff" -lt 256 ] && echo yes)" yes
	"$CPUSET" alloc --mems "$n0" memcg >"$T/alloc.out" 2>&1
	expect_eq "cpuset alloc --mems $n0 memcg (mirror on)" "$? $(cat "$T/alloc.out")" "0 "
	expect_eq "its Mems_allowed_list follows: node $n0" "$(memsof "$pid")" "$n0"
	got=$(pages_count "$pid" "$n0")
	note "after alloc --mems $n0: pages on node $n0: ${got%% *}, elsewhere: ${got##* }"
	expect_eq "its 64 MiB on node $n0 (16,384 pages or more; under 256 elsewhere)" \
		"$([ "${got%% *}" -ge 16384 ] && [ "${got##* }" -lt 256 ] && echo yes)" yes
	touch "$T/cg.stop"
	wait $mpid
	"$CPUSET" destroy memcg >/dev/null 2>&1
	"$CPUSET" cgroup off >"$T/cg.out" 2>&1
	expect_eq "cpuset cgroup off" "$? $(cat "$T/cg.out") $([ -d "/sys/fs/cgroup/$CPUSETSHIM_TABLE" ] && echo left)" "0 cgroup: none "
fi
finish
