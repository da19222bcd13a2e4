#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Random machines (tests/topo/genmachine.py) through the shim's test
# root: for each machine drawn, and sets of CPUs drawn on it, hwloc
# (lstopo --of xml, hwloc-calc), lscpu -p and -e and numactl --hardware
# under the shim report what the tool's own restriction of the machine to
# the set reports, the CPUs renumbered 0..n-1 (tests/topo/compare.py,
# as tests/topo/machines.sh does for the captured machines). Each machine
# is first read natively by hwloc and lscpu, which must see the machine
# drawn: a failure there is the generator's, not the shim's.
#
# Environment (make check: a fixed seed, a budget of about a minute):
#   RANDMACH_SEED    the first machine's seed (machines SEED, SEED+1, ...)
#   RANDMACH_COUNT   how many machines (24)
#   RANDMACH_SEEDS   these machines instead ("1007 1013": seeds a failure
#                    printed)
#   RANDMACH_SETS    sets tried on each (3; 0: every shape genmachine draws)
#   RANDMACH_BUDGET  seconds after which no new machine is started (90;
#                    0: no limit)
#   RANDMACH_JOBS    machines tried at once (2), each reported whole, in
#                    the order of the seeds
#   RANDMACH_KEEP    a directory: the machines that failed a check (or a
#                    TODO) are left there (mSEED), and the results (one line
#                    per check: tool, result, seed, set, kinds) in
#                    RANDMACH_KEEP/results
#
# A failing case prints its seed, the machine drawn and the commands that
# make it again (to keep it as a fixture) and rerun the tool. Known
# failures of the views are listed below (known_failure): a failing check
# of such a class is a TAP TODO, so that the rest holds; a check of such
# a class that passes is an ordinary pass.
. "$(dirname "$0")/../common.sh"
PY=$PYTHON3
GEN="$PY $SRC/tests/topo/genmachine.py"
CMP="$PY $SRC/tests/topo/compare.py"
BATCH="$PY $SRC/tests/topo/batch.py"
need lstopo-no-graphics hwloc
need hwloc-calc hwloc
need lscpu util-linux
need numactl numactl
need "$PY" python3
"$CPUSET" init >/dev/null || die "cpuset init"
# the machine's CPU model, not this one's from CPUID
export HWLOC_COMPONENTS=-x86

SEED=${RANDMACH_SEED:-20261204}
COUNT=${RANDMACH_COUNT:-24}
SETS=${RANDMACH_SETS:-3}
BUDGET=${RANDMACH_BUDGET:-90}
KEEP=${RANDMACH_KEEP:-}
JOBS=${RANDMACH_JOBS:-2}
case "$SEED$COUNT$SETS$BUDGET$JOBS" in
*[!0-9]*) die "RANDMACH_SEED, _COUNT, _SETS, _BUDGET and _JOBS are numbers" ;;
esac
[ "$JOBS" -gt 0 ] || die "RANDMACH_JOBS is 1 or more"
if [ -n "$KEEP" ]; then
	mkdir -p "$KEEP" || die "cannot make RANDMACH_KEEP=$KEEP"
	RES=$KEEP/results
else
	RES=$T/results
fi
: > "$RES"

# known_failure TOOL KINDS: why checks of TOOL fail on machines of these
# kinds (genmachine.py describe's words), if they are known to; nothing
# if not. Remove a line when the views are fixed.
known_failure() {
	case "$1 $2" in
	"hwloc-calc "*s390*smt*)
		# s390's sysfs lists each thread's caches as its own: in a
		# set holding one thread of a core, that core and its caches
		# have the same CPUs, which hwloc's discovery orders cache
		# first and its restriction core first; a level at two depths
		# is one hwloc-calc -N refuses to count (doc/limits.md)
		echo "s390 with SMT: a core of one thread of the set and its own caches, ordered cache first by a discovery" ;;
	esac
}

# in_machine (a program under the shim that reads machine $1 in the set
# $2): the captured machines' own
. "$SRC/tests/topo/machine_checks.sh"

# the machine being reported: its seed, kinds and scratch directory;
# whether its description was shown already
mseed= mkinds= W= shown=
show_machine() {
	[ -n "$shown" ] && return 0
	shown=1
	if [ -n "$W" ] && [ -s "$W/describe" ]; then
		cat "$W/describe"
	else
		$GEN describe "$mseed"
	fi | sed 's/^/#   /'
	note "  make it again: python3 tests/topo/genmachine.py make $mseed DIR"
}

# verdict TOOL DESC STATUS: one TAP line for a check of TOOL on the
# machine in set $S, its output in $VOUT (else $T/out); a failure of a known class is
# a TODO; STATUS skip: a check the restriction cannot make
verdict() {
	_tool=$1 _desc=$2 _st=$3 _kn=
	[ "$_st" = 0 ] || _kn=$(known_failure "$_tool" "$mkinds")
	if [ "$_st" = skip ]; then
		skip "$_desc" "the restriction has $(echo "$_desc" | sed 's/.*-N //') objects at several depths"
		echo "$_tool skip $mseed $S $mkinds" >> "$RES"
		return 0
	elif [ "$_st" = 0 ]; then
		pass "$_desc"
		_r=pass
	elif [ -n "$_kn" ]; then
		cps_n=$((cps_n + 1))
		echo "not ok $cps_n - $(cps_desc "$_desc") # TODO $(cps_desc "$_kn")"
		_r=todo
	else
		fail "$_desc"
		_r=fail
	fi
	if [ "$_r" != pass ]; then
		show_machine
		head -c 3000 "${VOUT:-$T/out}" | sed 's/^/#   | /'
		[ "$_tool" = genmachine ] || note "  rerun: CPUSETSHIM_TEST_ROOT=DIR CPUSETSHIM_TEST_CPUS=$S LD_PRELOAD=$SHIM $_tool"
	fi
	echo "$_tool $_r $mseed $S $mkinds" >> "$RES"
}

# ---- one machine: try_machine SEED W M, in the background ----
#
# Makes machine SEED in M and runs every program of its checks, their
# outputs in the scratch directory W; each check is a line of W/rec
# (TOOL, STATUS, OUTPUT, SET, DESC, tab-separated), in the order they are
# reported, STATUS a number (0: passed), skip, or @FILE: the status that
# file holds, of a comparison that tests/topo/batch.py makes, one Python
# process for all of a machine's (a start-up each cost more than the
# comparisons on a busy host). The parent reports W/rec (replay).
# record TOOL STATUS OUTPUT DESC (the set in $S)
record() {
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$S" "$4" >>"$W/rec"
}
# queue LIST OUT PROG ARG...: a command for batch.py's LIST
queue() {
	_l=$1
	shift
	(IFS='	'; printf '%s\n' "$*") >>"$_l"
}
try_machine() {
	mseed=$1 W=$2 M=$3
	: >"$W/rec"
	echo 0 >"$W/nsets"
	S=all
	queue "$W/gen" "$W/make" genmachine make "$mseed" "$M"
	queue "$W/gen" "$W/describe" genmachine describe "$mseed"
	queue "$W/gen" "$W/verify" genmachine verify "$mseed" "$M"
	if [ "$SETS" -gt 0 ]; then
		queue "$W/gen" "$W/sets" genmachine sets "$mseed" "$SETS"
	else
		queue "$W/gen" "$W/sets" genmachine sets "$mseed"
	fi
	$BATCH "$W/gen" 2>"$W/gen.err"
	if [ "$(cat "$W/make.st" 2>/dev/null)" != 0 ]; then
		cat "$W/gen.err" "$W/make" >"$W/die" 2>/dev/null
		record die 1 "$W/die" "genmachine make $mseed"
		return
	fi
	mkinds=$(sed -n 's/^kinds: //p' "$W/describe")
	record genmachine "@$W/verify.st" "$W/verify" "machine $mseed ($mkinds): read natively as drawn"
	# the whole machine: lscpu natively, numactl under the shim in all its CPUs
	read -r all <"$M/sys/devices/system/cpu/online"
	lscpu --sysroot "$M" -p >"$W/lscpu-p" 2>&1 && lscpu --sysroot "$M" -e >"$W/lscpu-e" 2>&1 ||
		{ record lscpu 1 "$W/lscpu-p" "machine $mseed: lscpu --sysroot"; return; }
	in_machine "$M" "$all" numactl --hardware >"$W/numactl" 2>&1
	# each set's hwloc bitmap, memory nodes (those of its CPUs), list and
	# mask files, and libnuma's node of each of its CPUs
	i=0
	while read -r shape S; do
		i=$((i + 1))
		queue "$W/plan" "$W/s$i.bm" bitmap "$S"
		queue "$W/plan" "$W/s$i.nodes" compare set-nodes "$W/numactl" "$S" "$all"
		queue "$W/plan" "$W/s$i.paths" compare file-list "$M" "$S"
		queue "$W/plan" "$W/s$i.cpunode" compare cpu-node "$M" "$S"
	done <"$W/sets"
	[ "$i" = 0 ] || $BATCH "$W/plan" 2>"$W/plan.err"
	i=0
	: >"$W/judge"
	while read -r shape S; do
		i=$((i + 1))
		P=$W/s$i
		what="machine $mseed $shape {$S}"
		in_machine "$M" "$S" env HWLOC_FSROOT="$M" lstopo-no-graphics --of xml - >"$P.xml" 2>"$P.err"
		queue "$W/judge" "$P.hwloc" compare hwloc "$M" "$S" "$P.xml"
		record lstopo "@$P.hwloc.st" "$P.hwloc" "$what: lstopo"
		read -r bm <"$P.bm"
		for t in pu core l2cache l3cache package; do
			want=$(env HWLOC_FSROOT="$M" hwloc-calc --restrict "$bm" -N $t all 2>&1)
			got=$(in_machine "$M" "$S" env HWLOC_FSROOT="$M" hwloc-calc -N $t all 2>&1)
			printf 'got:  [%s]\nwant: [%s]\n' "$got" "$want" >"$P.calc-$t"
			case $want in
			*"with multiple depth"*)
				# hwloc's restriction keeps objects of this type at
				# several depths (a core above its threads' private
				# caches beside one below them): it cannot count them
				record hwloc-calc skip "$P.calc-$t" "$what: hwloc-calc -N $t"
				continue ;;
			esac
			[ "$got" = "$want" ]
			record hwloc-calc $? "$P.calc-$t" "$what: hwloc-calc -N $t"
		done
		for o in p e; do
			in_machine "$M" "$S" lscpu --sysroot "$M" -$o >"$P.lscpu-$o" 2>&1
			queue "$W/judge" "$P.cmp-lscpu-$o" compare lscpu "$W/lscpu-$o" "$S" "$P.lscpu-$o" "$M"
			record lscpu "@$P.cmp-lscpu-$o.st" "$P.cmp-lscpu-$o" "$what: lscpu -$o"
		done
		# /proc/cpuinfo: the set's blocks, each its CPU's own (a machine
		# of several CPU types), and a header's CPU lines and counts
		in_machine "$M" "$S" cat "$M/proc/cpuinfo" >"$P.cpuinfo" 2>&1
		queue "$W/judge" "$P.cmp-cpuinfo" compare cpuinfo "$M" "$S" "$P.cpuinfo"
		record cpuinfo "@$P.cmp-cpuinfo.st" "$P.cmp-cpuinfo" "$what: /proc/cpuinfo"
		# every list and mask file of the set's CPUs (lists that end in
		# "\n\0" among them), as the machine's restricted
		in_machine "$M" "$S" $PY "$SRC/tests/topo/compare.py" read-files "$P.paths" >"$P.files" 2>&1
		queue "$W/judge" "$P.cmp-files" compare cpu-files "$M" "$S" "$P.files"
		record files "@$P.cmp-files.st" "$P.cmp-files" "$what: topology and cache lists and masks"
		in_machine "$M" "$S" numactl --hardware >"$P.numactl" 2>&1
		queue "$W/judge" "$P.cmp-numactl" compare numactl "$W/numactl" "$S" "$P.numactl" "$all"
		record numactl "@$P.cmp-numactl.st" "$P.cmp-numactl" "$what: numactl --hardware"
		# the set with the nodes of its CPUs as its memory nodes
		N=
		read -r N <"$P.nodes"
		if [ -n "$N" ]; then
			env $(san_env) CPUSETSHIM_TEST_MEMS="$N" LD_PRELOAD="$SHIM_PRELOAD" \
				CPUSETSHIM_TEST_ROOT="$M" CPUSETSHIM_TEST_CPUS="$S" numactl --hardware >"$P.numactl-n" 2>&1
			queue "$W/judge" "$P.cmp-numactl-n" compare numactl-nodes "$W/numactl" "$S" "$P.numactl-n" "$all"
			record numactl "@$P.cmp-numactl-n.st" "$P.cmp-numactl-n" "$what, nodes {$N}: numactl --hardware"
			# each of the set's node directories listed through every
			# copy of a descriptor of it (tests/topo/lsdup): as opendir
			# lists it, though a copy points at the physical node
			k=$(echo "$N" | tr , '\n' | wc -l)
			: >"$P.lsdup-out"
			for v in $(seq 0 $((k - 1))); do
				d=$M/sys/devices/system/node/node$v
				env $(san_env) CPUSETSHIM_TEST_MEMS="$N" LD_PRELOAD="$SHIM_PRELOAD" \
					CPUSETSHIM_TEST_ROOT="$M" CPUSETSHIM_TEST_CPUS="$S" \
					"$B/tests/topo/lsdup" "$d" >"$P.lsdup" 2>&1
				want=$(grep "^$d opendir: " "$P.lsdup" | sed "s|^$d opendir: ||")
				grep "^$d " "$P.lsdup" | while read -r _d m rest; do
					[ "$rest" = "$want" ] || echo "node$v $m: $rest (opendir: $want)"
				done >>"$P.lsdup-out"
			done
			[ ! -s "$P.lsdup-out" ]
			record lsdup $? "$P.lsdup-out" "$what, nodes {$N}: node directories through copies of a descriptor"
		fi
		in_machine "$M" "$S" $PY "$SRC/tests/topo/compare.py" node-of-cpu "$P.cpunode" >"$P.libnuma" 2>&1
		record libnuma $? "$P.libnuma" "$what: numa_node_of_cpu"
	done <"$W/sets"
	echo "$i" >"$W/nsets"
	[ ! -s "$W/judge" ] || $BATCH "$W/judge" 2>"$W/judge.err"
}

# replay SEED W M: the checks of machine SEED (try_machine's, ended) as
# TAP lines; the machine kept in RANDMACH_KEEP if one did not pass
replay() {
	mseed=$1 W=$2 M=$3
	shown=
	mkinds=$(sed -n 's/^kinds: //p' "$W/describe" 2>/dev/null)
	# (what the shell said while trying it: nothing, unless it broke)
	[ ! -s "$W/log" ] || note "machine $mseed: $(cat "$W/log")"
	while IFS='	' read -r tool st out S desc; do
		case $st in
		@*)
			_f=${st#@} st=
			[ ! -f "$_f" ] || read -r st <"$_f"
			if [ -z "$st" ]; then
				st=1
				echo "no status from tests/topo/batch.py: $(cat "$W/plan.err" "$W/judge.err" 2>/dev/null)" >>"$out"
			fi ;;
		esac
		VOUT=$out
		if [ "$tool" = die ]; then
			show "$out"
			die "$desc"
		fi
		verdict "$tool" "$desc" "$st"
	done <"$W/rec"
	VOUT=
	machines=$((machines + 1))
	sets=$((sets + $(cat "$W/nsets")))
	if [ -n "$shown" ] && [ -n "$KEEP" ]; then
		rm -rf "$KEEP/m$mseed"
		cp -a "$M" "$KEEP/m$mseed"
	fi
	rm -rf "$M" "$W"
}

# Machines of the shapes real machines' dumps showed the generator
# (genmachine.py describe's kinds), tried first whatever the budget:
# 20261210 an s390 of books and drawers and 20261214 an arm64 without a
# node directory, with CPU 0 offline on the first; 20261205 a POWER
# whose caches have no size, line or ways files; 20261223 an arm64 of
# clusters of several core types (cpuinfo blocks that differ by type),
# some caches without some attributes; 20261232 an x86 hybrid (modules
# of efficient cores sharing an L2, blocks by type); 20261231 an x86 of
# dies whose lists end in "\n\0"; 20261410 a POWER with SMT and
# memory-only nodes among its sparse ones; 20261241 a SPARC (sun4v,
# header-only cpuinfo, no node directory); 20261289 an arm64 of two
# packages numbered in turn and clusters of several core types, so that
# lscpu's types (runs of alike cpuinfo blocks) are many, and a set that
# leaves CPUs out joins runs (compare.py cpu_types)
LEARNT_SEEDS="20261210 20261214 20261205 20261223 20261232 20261231 20261410 20261241 20261289"
nlearnt=0
if [ -n "${RANDMACH_SEEDS:-}" ]; then
	seeds=$RANDMACH_SEEDS
else
	nlearnt=$(echo $LEARNT_SEEDS | wc -w)
	seeds="$LEARNT_SEEDS $(seq "$SEED" $((SEED + COUNT - 1)) | grep -vxF "$(echo "$LEARNT_SEEDS" | tr ' ' '\n')")"
fi
seeds=$(echo $seeds)
case $seeds in
*[!0-9\ ]*) die "RANDMACH_SEEDS is a list of numbers" ;;
esac
# The machines and their scratch directories are made on a tmpfs where
# there is one (/dev/shm): a few hundred small files each, which a loaded
# disk makes slower than all their checks; else in T
MROOT=$(mktemp -d /dev/shm/cpusetshim-randmach.XXXXXX 2>/dev/null) || MROOT=$T/machines
mkdir -p "$MROOT"
case $MROOT in "$T"/*) ;; *) at_exit "rm -rf '$MROOT'" ;; esac

start=$(date +%s)
machines=0 sets=0
i=0
# machines tried at once, each by a background try_machine, reported in
# the order of their seeds (the oldest waited for first)
running=
collect() {
	set -- $running
	_s=${1%%:*} _p=${1#*:}
	shift
	running=$*
	wait "$_p"
	replay "$_s" "$MROOT/w$_s" "$MROOT/m$_s"
}
for mseed in $seeds; do
	now=$(date +%s)
	# (the fixed seeds of learnt shapes run whatever the budget)
	if [ "$BUDGET" -gt 0 ] && [ $((now - start)) -ge "$BUDGET" ] && [ "$i" -ge "$nlearnt" ]; then
		note "time budget of ${BUDGET}s spent: $i of $(echo $seeds | wc -w) machines tried"
		break
	fi
	i=$((i + 1))
	# each machine begun pushes the test's deadline on by the per-test
	# limit (tests/run-test.sh, CPS_TEST_EXTEND): the fixed seeds and a
	# long run by hand go on on a loaded host, one machine that hangs
	# still meets the limit
	[ -z "${CPS_TEST_EXTEND:-}" ] || echo $(($(date +%s) + ${CPS_TEST_TIMEOUT:-600})) >"$CPS_TEST_EXTEND"
	# a directory of its own for each machine: the shim keeps its list
	# views by set and path for a second (a machine made where another
	# was would be read as the other within that second)
	rm -rf "$MROOT/w$mseed" "$MROOT/m$mseed"
	mkdir "$MROOT/w$mseed"
	try_machine "$mseed" "$MROOT/w$mseed" "$MROOT/m$mseed" >"$MROOT/w$mseed/log" 2>&1 &
	running="$running $mseed:$!"
	while [ $(echo $running | wc -w) -ge "$JOBS" ]; do
		collect
	done
done
while [ -n "$(echo $running)" ]; do
	collect
done
W=
# A machine made where another was, read in the same set: the second
# machine's lists, not the first's (machine 20261205 has SMT pairs,
# 20261211 none; both 8 CPUs), once the first's kept views are a second
# old: a CPU taken offline or SMT switched off is seen within a second
mseed=20261211 mkinds="same-path" shown= S=0-7
M=$MROOT/same-path
$GEN make 20261205 "$M" && in_machine "$M" "$S" lscpu --sysroot "$M" -p > /dev/null 2>&1 &&
	rm -rf "$M" && $GEN make 20261211 "$M" && lscpu --sysroot "$M" -p > "$T/lscpu-p" 2>&1 ||
	die "genmachine make 20261205, 20261211"
sleep 1.1
in_machine "$M" "$S" lscpu --sysroot "$M" -p > "$T/got" 2>&1
$CMP lscpu "$T/lscpu-p" "$S" "$T/got" "$M" > "$T/out" 2>&1
verdict lscpu "machine 20261211 made where 20261205 was, set {0-7}: lscpu -p" $?

# A machine of more CPU ids than this kernel's masks may hold (machine
# 7100826: 288 possible CPUs; masks here may be of 256): read through the
# shim as on its own kernel. libnuma sizes its masks by what the raw
# sched_getaffinity answers, and a node's cpumap wider than that is
# "Cannot parse cpumap" and one node. Wanted: the size in whole longs of
# the larger of the two kernels, and each node's CPUs as its cpulist
# says, on any host.
mseed=7100826 mkinds="more-ids-than-host" shown=
M=$MROOT/more-ids
$GEN make "$mseed" "$M" || die "genmachine make $mseed"
S=$(cat "$M/sys/devices/system/cpu/possible")
case $(uname -m) in
x86_64) nr=204 ;;
aarch64 | riscv64) nr=123 ;;
ppc64le) nr=223 ;;
*) nr= ;;
esac
if [ -n "$nr" ]; then
size="import ctypes; b = ctypes.create_string_buffer(8192); print(ctypes.CDLL(None).syscall($nr, 0, 8192, b))"
host=$($PY -c "$size")
want=$($PY -c "import sys; h = int(sys.argv[1]); print(max(h, (int(sys.argv[2].split('-')[-1]) + 64) // 64 * 8))" "$host" "$S")
in_machine "$M" "$S" $PY -c "$size" > "$T/got" 2>&1
echo "raw sched_getaffinity: got $(cat "$T/got"), want $want (this kernel's $host)" > "$T/out"
[ "$(cat "$T/got")" = "$want" ]
verdict affinity "machine $mseed, {$S}: raw sched_getaffinity's mask size" $?
else
	note "no sched_getaffinity number known for $(uname -m): its mask size not checked"
fi
in_machine "$M" "$S" numactl --hardware > "$T/got" 2>&1
for d in "$M"/sys/devices/system/node/node[0-9]*; do
	n=${d##*node}
	echo "node $n cpus: $($PY -c 'import sys
out = []
for r in open(sys.argv[1]).read().split(","):
    a, _, b = r.strip().partition("-")
    out += range(int(a), int(b or a) + 1)
print(" ".join(map(str, out)))' "$d/cpulist")"
done | sort > "$T/want"
{ grep -v '^node [0-9]* cpus:' "$T/got" | grep -i 'warn\|cannot'; grep '^node [0-9]* cpus:' "$T/got" | sort; } > "$T/gotn"
diff -u "$T/want" "$T/gotn" > "$T/out"
verdict numactl "machine $mseed, {$S}: numactl --hardware's nodes, no warning" $?

end=$(date +%s)
if [ -n "${RANDMACH_SEEDS:-}" ]; then
	tried=$(echo $seeds | cut -d' ' -f1-$machines | sed 's/ /,/g')
else
	tried="$SEED..$((SEED + machines - 1))"
fi
note "seeds $tried: $machines machines, $sets sets, $((end - start))s"
# counts: by tool, then by kind of machine (a check counts under each of
# its machine's kinds)
awk '{ n[$1]++; r[$1 " " $2]++ }
     END { for (t in n) printf "%-11s %5d checks: %5d pass, %4d fail, %4d todo, %3d skipped\n",
           t, n[t], r[t " pass"], r[t " fail"], r[t " todo"], r[t " skip"] }' "$RES" | sort | sed 's/^/# /'
awk '$2 != "pass" && $2 != "skip" { for (i = 5; i <= NF; i++) bad[$i]++ }
     { for (i = 5; i <= NF; i++) all[$i]++ }
     END { for (k in all) printf "kind %-18s %5d checks, %4d not passed\n", k, all[k], bad[k] }' "$RES" |
	sort | sed 's/^/# /'
finish
