#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The machine's description on this machine, in the sets {C1} and
# {C0,C1} of the first two CPUs this process may use (and {C0} where it
# may use one): lscpu, lstopo, hwloc-calc, numactl --hardware, psutil,
# listings of the CPU directories, the files of a CPU by its virtual name
# and the ones beyond the set (tests/topo/checks.sh); every answer is the
# machine's own restricted to the set, so a machine without caches, NUMA
# nodes or some topology file expects none in the set either.
. "$(dirname "$0")/../common.sh"
PY=$PYTHON3
CMP="$PY $SRC/tests/topo/compare.py"
need lscpu util-linux
need lstopo-no-graphics hwloc
need hwloc-calc hwloc
need numactl numactl
need "$PY" python3
$PY -c 'import psutil' 2>/dev/null || skip_all "needs psutil for $PY (Debian package python3-psutil)"
"$CPUSET" init >/dev/null || die "cpuset init"
. "$SRC/tests/topo/checks.sh"
# The CPUs this process may use (the root set): the sets are {C1} and
# {C0,C1} of its first two, {C0} where it has one.
ROOTCPUS=$("$CPUSET" --json show root | sed -n 's/.*"cpus":"\([^"]*\)".*/\1/p')
set -- $($PY -c "import sys; sys.path.insert(0, '$SRC/tests/topo'); import compare; print(' '.join(map(str, compare.cpulist('$ROOTCPUS'))))")
[ $# -ge 1 ] || die "no CPUs in the root set ($ROOTCPUS)"
C0=$1 C1=${2:-}
case $C1 in
'') sets=$C0 ;;
*) sets="$C1 $C0,$C1" ;;
esac
SYS=/sys/devices/system/cpu

for S in $sets; do
	run() { with_san "$CPUSET_RUN" --cpus "$S" -- "$@"; }
	topo_checks "" "$S" "{$S}"
	# the guest test's judge (tests/guest/views.py) on this machine: its
	# expectation of lscpu -p and -e (the whole machine's, restricted)
	# against the set's, so that a change of tests/topo/compare.py that
	# breaks the judge fails here in seconds, not only in the guest
	mems=$(cat /sys/devices/system/node/has_memory 2>/dev/null) || mems=0
	for o in -p -e; do
		lscpu $o >"$T/full$o" 2>&1
		run lscpu $o >"$T/got$o" 2>&1
		expect_eq "{$S} lscpu $o as the guest test's judge expects" \
			"$($PY "$SRC/tests/guest/views.py" lscpu-got "$T/got$o" "$T/full$o" 2>&1)" \
			"$($PY "$SRC/tests/guest/views.py" lscpu "$T/full$o" "$S" "$mems" 2>&1)"
	done
	# what only this machine's own processes show: the process's set
	set -- $($CMP counts / "$S")
	cores=$2
	shift 3
	siblings=
	while [ $# -gt 0 ] && [ "$1" != cpu-cores ]; do siblings="$siblings${siblings:+ }$1"; shift; done
	shift
	cpucores=$*
	# a PU of its own topology (the views' and field 39 of /proc/self/stat)
	loc=$(run hwloc-bind --get-last-cpu-location)
	expect_eq "{$S} hwloc-bind --get-last-cpu-location is a PU of the set" \
		"$(run hwloc-calc -N pu "$loc" 2>&1) $(run hwloc-calc --intersect pu "$loc" 2>&1 | awk -F, -v n=$n '{ for (i = 1; i <= NF; i++) if ($i >= n) bad = 1 } END { print bad ? "beyond" : "within" }')" \
		"1 within"
	# /proc/self/stat read again and again (the real file kept open), in
	# a forked child too: each its own pid, field 39 a CPU of the set
	expect_eq "{$S} /proc/self/stat, parent and forked child" "$(run $PY -c "
import os
def me():
    f = open('/proc/self/stat').read().rsplit(')', 1)[1].split()
    return (int(open('/proc/self/stat').read().split()[0]) == os.getpid(), int(f[36]) < $n)
a = [me(), me()]
c = os.fork()
if c == 0:
    os.write(1, ('child %s\\n' % (me(),)).encode()); os._exit(0)
os.waitpid(c, 0)
print('parent', a[0], a[1], me())")" "child (True, True)
parent (True, True) (True, True) (True, True)"
	# psutil: the set's CPUs and its cores (distinct package, die and core
	# ids of the machine's topology files)
	expect_eq "{$S} psutil cores" "$(run $PY -c 'import psutil; print(psutil.cpu_count(logical=False), psutil.cpu_count())')" "$cores $n"
	# cpuinfo, per package: the set's CPUs in it, and its cores (where the
	# machine's cpuinfo has these fields: x86's; arm64's has none)
	grep -q '^siblings' /proc/cpuinfo || siblings=
	grep -q '^cpu cores' /proc/cpuinfo || cpucores=
	expect_eq "{$S} cpuinfo siblings" "$(run sed -n 's/^siblings[[:space:]]*: //p' /proc/cpuinfo | sort -nu | tr '\n' ' ' | sed 's/ $//')" "$siblings"
	expect_eq "{$S} cpuinfo cpu cores" "$(run sed -n 's/^cpu cores[[:space:]]*: //p' /proc/cpuinfo | sort -nu | tr '\n' ' ' | sed 's/ $//')" "$cpucores"
done
# A resize while a program holds the views open: what it opens afterwards
# is the new set's; what it held stays readable (a listing keeps the set
# it was opened with, as one listing must be of one set).
# resize_running NAME CPUS NEWCPUS SCRIPT [ARG...]: runs tests/topo/SCRIPT
# (with $T and the ARGs) in a new
# set NAME of CPUS, waits until it says it is ready, moves the set to
# NEWCPUS and lets it go on; its answers are in $T/NAME ("answer NAME KEY")
resize_running() {
	_name=$1 _new=$3 _script=$4
	"$CPUSET" create --cpus "$2" --name "$1" >/dev/null || die "cpuset create"
	shift 4
	rm -f "$T/ready" "$T/go"
	with_san "$CPUSET_RUN" --set "$_name" $PY "$SRC/tests/topo/$_script" "$T" "$@" >"$T/$_name" 2>&1 &
	_pid=$!
	wait_until [ -e "$T/ready" ]
	expect_eq "$_name: the program is ready" "$(test -e "$T/ready" && echo yes)" yes
	"$CPUSET" alloc "$_name" "$_new"
	touch "$T/go"
	wait $_pid
	expect_eq "$_name: exit status" $? 0
}
answer() { sed -n "s/^$2 //p" "$T/$1"; }
if [ -n "$C1" ]; then
	# the held CPU list: the first the machine has of core_cpus_list and
	# its older names; the held node: C1's, if the machine has nodes
	for cf in core_cpus_list thread_siblings_list thread_siblings core_id; do
		[ -e "$SYS/cpu$C0/topology/$cf" ] && break
	done
	nf=-
	for k in $(ls /sys/devices/system/node 2>/dev/null | grep '^node[0-9][0-9]*$'); do
		$CMP names "$(cat /sys/devices/system/node/$k/cpulist)" | grep -qw "cpu$C1" &&
			nf=/sys/devices/system/node/$k/cpulist
	done
	node_view() { [ "$nf" = - ] && echo none || $CMP view / "$1" "$nf" | sed "s|^$nf: ||"; }
	resize_running held "$C0,$C1" "$C1" held.py "$cf" "$nf"
	h() { answer held "$1"; }
	expect_eq "resize held: online before" "$(h before-online)" 0-1
	expect_eq "resize held: node before ($nf)" "$(h before-node)" "$(node_view "$C0,$C1")"
	expect_eq "resize held: the held listing is of one set" "$(h held-listing)" "cpu0 cpu1"
	expect_eq "resize held: held files still read" "$(h held-files)" read
	expect_eq "resize held: a new listing" "$(h after-listing)" cpu0
	expect_eq "resize held: online after" "$(h after-online)" 0
	expect_eq "resize held: node after ($nf)" "$(h after-node)" "$(node_view "$C1")"
	expect_eq "resize held: cpu0 is physical $C1" "$(h after-cpu0)" "$(cat $SYS/cpu$C1/topology/core_id)"
	expect_eq "resize held: cpu1 is gone" "$(h after-cpu1)" False

	# The same spelling before and after a resize that moves virtual CPU 0
	# from physical C1 to physical C0: the redirects the shim keeps follow
	# the set.
	resize_running moved "$C1" "$C0" reread.py
	r() { answer moved "$1"; }
	expect_eq "moved: cpu0 core_id before is physical $C1's" "$(r before-core)" "$(cat $SYS/cpu$C1/topology/core_id)"
	expect_eq "moved: cpu0 directory before is physical $C1's" "$(r before-ino)" "$(stat -c %i $SYS/cpu$C1)"
	expect_eq "moved: cpu0 core_id after is physical $C0's" "$(r after-core)" "$(cat $SYS/cpu$C0/topology/core_id)"
	expect_eq "moved: cpu0 directory after is physical $C0's" "$(r after-ino)" "$(stat -c %i $SYS/cpu$C0)"
	expect_eq "moved: cpu1 absent in a set of one" "$(r after-cpu1)" ENOENT

	# Eight threads read virtual CPU 0's own files (not the CPU lists:
	# those are views) again and again in a set {C1}: every file of the
	# machine's CPU C1 that names no CPU and reads the same twice (the
	# counters of power, cpuidle, cpufreq and thermal_throttle move), so
	# that the redirects the shim keeps (a slot per spelling's hash) are
	# filled, replaced where two share a slot, and read by every thread at
	# once; each read must be physical CPU C1's file.
	: >"$T/rr.list"
	for f in $(cd $SYS/cpu$C1 && find -P . -type f ! -name '*_list' ! -name '*_cpus' \
		! -name '*siblings*' ! -name shared_cpu_map ! -name 'runtime_*' \
		! -path './cpuidle/*' ! -path './cpufreq/*' ! -path './thermal_throttle/*' |
		sed 's|^\./||' | sort); do
		a=$(head -n 1 "$SYS/cpu$C1/$f" 2>/dev/null) || continue
		[ "$(head -n 1 "$SYS/cpu$C1/$f" 2>/dev/null)" = "$a" ] && echo "$SYS/cpu0/$f $a" >>"$T/rr.list"
	done
	# core_id is on every machine; the other files are the machine's
	expect_eq "rereads: files listed, core_id among them" \
		"$(grep -c "^$SYS/cpu0/topology/core_id " "$T/rr.list")" 1
	note "rereads: $(wc -l <"$T/rr.list") files of cpu$C1"
	"$CPUSET" create --cpus "$C1" --name rr >/dev/null || die "cpuset create"
	expect_status "rereads: 8 threads, 200 rounds, every read physical CPU $C1's" 0 \
		with_san "$CPUSET_RUN" --set rr "$B/tests/topo/rereads" 8 200 "$T/rr.list"
	show "$T/out"

	# The directory the shim keeps open, taken away by the program
	# (closed, another directory or a file on its number): the answers
	# stay the set's.
	"$CPUSET" create --cpus "$C1" --name lost >/dev/null || die "cpuset create"
	mkdir -p "$T/other/cpu0/topology" && echo 999 >"$T/other/cpu0/topology/core_id"
	with_san "$CPUSET_RUN" --set lost $PY "$SRC/tests/topo/cpudir_lost.py" "$T/other" >"$T/lost" 2>&1
	expect_eq "lost: the shim keeps the directory open" "$(answer lost kept)" yes
	expect_eq "lost: and again after the program closed it" "$(answer lost kept-again)" yes
	expect_eq "lost: and again after another directory took its number" \
		"$(answer lost kept-third)" yes
	for t in first closed otherdir file; do
		expect_eq "lost, $t: cpu0 core_id is physical $C1's" "$(answer lost $t-core)" \
			"$(cat $SYS/cpu$C1/topology/core_id)"
		expect_eq "lost, $t: the listing" "$(answer lost $t-listing)" cpu0
		expect_eq "lost, $t: cpu1 absent" "$(answer lost $t-cpu1)" ENOENT
	done
fi
finish
