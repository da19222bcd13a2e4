#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# CPUs chosen by topology on this machine: locations of cpuset cpus
# against the kernel's topology files and hwloc-calc, outside any set and
# inside one (its own numbers and cores); the exit codes of a bad
# location, a missing object and a count that does not fit (cpuset and
# cpuset-run); counts with --free; cpuset show --topology against what
# lstopo shows inside the set.
. "$(dirname "$0")/../common.sh"
PY=$PYTHON3
CMP="$PY $SRC/tests/topo/compare.py"
need hwloc-calc hwloc
need lstopo-no-graphics hwloc
need taskset util-linux
need "$PY" python3
"$CPUSET" init >/dev/null || die "cpuset init"

# hwloc-calc's comma list of PUs as a range list ("0-3,8")
ranges() { $CMP ranges; }

# the kernel's cores, in order: each online CPU's thread siblings, once;
# and those with a CPU in LIST (whole: all of them), counted
cores_py='
import sys
def cpus(s):
    out = []
    for it in s.strip().split(","):
        if not it or it == "-":
            continue
        a, _, b = it.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out
on = cpus(open("/sys/devices/system/cpu/online").read())
cores = []
for c in on:
    t = open("/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list" % c).read().strip()
    if t not in cores:
        cores.append(t)
if sys.argv[1] == "list":
    print("\n".join(cores))
else:
    free = set(cpus(sys.argv[2]))
    sets = [set(cpus(t)) & set(on) for t in cores]
    print(sum(1 for s in sets if (s <= free if sys.argv[1] == "whole" else s & free)))
'
host_cores() { outside $PY -c "$cores_py" "$@"; }
host_online=$(outside cat /sys/devices/system/cpu/online)
expect_eq "this machine: all" "$("$CPUSET" cpus all)" "$host_online"
k=0
for sib in $(host_cores list); do
	expect_eq "this machine: core:$k is the kernel's thread siblings" \
		"$("$CPUSET" cpus core:$k)" "$sib"
	expect_eq "this machine: core:$k as hwloc-calc" "$("$CPUSET" cpus core:$k)" \
		"$(outside hwloc-calc --po -I pu core:$k | ranges)"
	k=$((k + 1))
done
for t in package numanode pu l2cache; do
	n=$(outside hwloc-calc -N $t all)
	i=0
	while [ $i -lt "$n" ]; do
		expect_eq "this machine: $t:$i as hwloc-calc" "$("$CPUSET" cpus $t:$i)" \
			"$(outside hwloc-calc --po -I pu $t:$i | ranges)"
		i=$((i + 1))
	done
done
if [ -r /sys/devices/system/node/node0/cpulist ]; then
	expect_eq "this machine: numa:0 is node0's cpulist" "$("$CPUSET" cpus numa:0)" \
		"$(cat /sys/devices/system/node/node0/cpulist)"
fi
expect_status "this machine: a bad location (exit 2)" 2 "$CPUSET" cpus corn:0
npk=$(outside hwloc-calc -N package all)
expect_status "this machine: package:$npk is not there (exit 5)" 5 "$CPUSET" cpus package:$npk
expect_stderr "this machine: and the packages there are are named" \
	"package:$npk: this machine has packages 0"
expect_status "this machine: a count that does not fit (exit 6)" 6 "$CPUSET" cpus --cores $((k + 1))
expect_status "cpuset-run: a bad location (exit 125)" 125 with_san "$CPUSET_RUN" --cpus corn:0 true
expect_status "cpuset-run: no such object (exit 124)" 124 with_san "$CPUSET_RUN" --cpus package:$npk true
expect_status "cpuset-run: a count that does not fit (exit 123)" 123 with_san "$CPUSET_RUN" --cores $((k + 1)) true
expect_status "cpuset create: --cpus and --cores exclude each other (exit 2)" 2 \
	"$CPUSET" create --cpus 0 --cores 1

# counts with --free: whole free cores first
free=$("$CPUSET" --physical free --strict)
whole=$(host_cores whole "$free")
some=$(host_cores some "$free")
if [ "$whole" -gt 0 ]; then
	A=$("$CPUSET" create --cores 1 --free --name where-a) || die "create --cores 1 --free"
	got=$("$CPUSET" --physical show where-a | sed -n 's/^cpus: *\([^ ]*\).*/\1/p')
	expect_match "create --cores 1 --free: a whole core of the kernel's" "$(host_cores list)" "^$got\$"
	"$CPUSET" destroy where-a
fi
expect_status "--cores $some --free: every core with a free CPU" 0 "$CPUSET" cpus --cores "$some" --free
expect_status "--cores $((some + 1)) --free does not fit (exit 6)" 6 "$CPUSET" cpus --cores $((some + 1)) --free
expect_stderr "and says what there is" "this machine has $some cores with a free CPU"

# inside a set of the last CPU: its numbers and its cores
m=$(outside taskset -p $$ | sed 's/.*: //')
last=$(echo "$host_online" | tr ',-' '\n\n' | tail -1)
if [ $((0x$m >> last & 1)) -eq 1 ]; then
	S1=$("$CPUSET" create --cpus "$last" --name where-one) || die "cpuset create --cpus $last"
	expect_eq "set {$last}: core:0 is its CPU 0" "$(in_set "$S1" "$CPUSET" cpus core:0)" 0
	expect_eq "set {$last}: core:0 as hwloc-calc inside" "$(in_set "$S1" "$CPUSET" cpus core:0)" \
		"$(in_set "$S1" hwloc-calc --po -I pu core:0 | ranges)"
	in_set "$S1" "$CPUSET" cpus core:1 >/dev/null 2>"$T/err"
	expect_eq "set {$last}: core:1 is not there (exit 5)" "$?" 5
	expect_match "set {$last}: and the set's cores are named" "$(cat "$T/err")" "set $S1 has cores 0\$"
	expect_eq "set {$last}: --physical core:0 is the machine's" \
		"$(in_set "$S1" "$CPUSET" --physical cpus core:0)" "$(host_cores list | head -1)"
	# a set made inside by location holds the machine's CPU $last
	in_set "$S1" "$CPUSET_RUN" --cpus core:0 sh -c 'echo $$ > "$1"; exec sleep 30' sh "$T/pid" &
	bg=$!
	until [ -s "$T/pid" ] || ! kill -0 $bg 2>/dev/null; do sleep 0.05; done
	expect_eq "set {$last}: cpuset-run --cpus core:0 runs on CPU $last" "$(real_cpus "$(cat "$T/pid")")" "$last"
	kill "$(cat "$T/pid")" 2>/dev/null
	wait $bg 2>/dev/null
	# show --topology: the objects lstopo shows inside the set
	"$CPUSET" show --topology "$S1" >"$T/mine" 2>&1
	in_set "$S1" lstopo-no-graphics >"$T/lstopo" 2>&1
	for o in Package Core PU L3 L2 L1d NUMANode; do
		expect_eq "set {$last}: show --topology has lstopo's ${o}s" \
			"$(grep -o "$o L#[0-9]*" "$T/mine" | sort | tr '\n' ' ')" \
			"$(grep -o "$o L#[0-9]*" "$T/lstopo" | sort | tr '\n' ' ')"
	done
	show "$T/mine"
fi

# the whole machine's tree against lstopo's, outside any set
"$CPUSET" show --topology "$("$CPUSET" which | cut -d' ' -f1)" >"$T/mine" 2>&1
outside lstopo-no-graphics >"$T/lstopo" 2>&1
for o in Package Core PU L3 L2 L1d NUMANode; do
	expect_eq "this machine: show --topology has lstopo's ${o}s" \
		"$(grep -o "$o L#[0-9]*" "$T/mine" | sort | tr '\n' ' ')" \
		"$(grep -o "$o L#[0-9]*" "$T/lstopo" | sort | tr '\n' ' ')"
done
finish
