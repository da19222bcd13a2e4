#!/bin/sh
# The machine's description on this machine, in the sets {1} and {0,1}
# (and {0} where the machine has one CPU): lscpu, lstopo, hwloc-calc,
# numactl --hardware, psutil, listings of the CPU directories, the files
# of a CPU by its virtual name and the ones beyond the set.
. "$(dirname "$0")/common.sh"
PY=/usr/bin/python3
CMP="$PY $CPS_SRCDIR/tests/topo/compare.py"
for tool in lscpu lstopo-no-graphics hwloc-calc numactl $PY; do
	command -v $tool >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
$PY -c 'import psutil' 2>/dev/null || { echo "SKIP: psutil for $PY not installed"; exit 77; }
"$CPUSET" init >/dev/null || exit 1
online=$(cat /sys/devices/system/cpu/online)
case $online in
0) sets="0" ;;
*) sets="1 0-1" ;;
esac
SYS=/sys/devices/system/cpu

for S in $sets; do
	n=$($PY -c "import sys; sys.path.insert(0, '$CPS_SRCDIR/tests/topo'); import compare; print(len(compare.cpulist('$S')))")
	p0=${S%%-*}
	last=$((n - 1))
	want_list=$([ $n = 1 ] && echo 0 || echo 0-$last)
	run() { cpuset_run --cpus "$S" -- "$@"; }

	# listings: cpu0..cpu(n-1), nothing beyond
	want=$(seq -f 'cpu%.0f' 0 $last | tr '\n' ' ')
	expect "{$S} ls $SYS" "$(run ls $SYS | grep '^cpu[0-9]' | sort | tr '\n' ' ')" "$want"
	expect "{$S} ls /sys/bus/cpu/devices" "$(run ls /sys/bus/cpu/devices | sort | tr '\n' ' ')" "$want"
	expect "{$S} python listdir" "$(run $PY -c "import os; print(' '.join(sorted(e for e in os.listdir('$SYS') if e[3:].isdigit())) + ' ')")" "$want"
	expect "{$S} node0 links" "$(run ls /sys/devices/system/node/node0 | grep '^cpu[0-9]' | sort | tr '\n' ' ')" "$want"
	# the other entries are the kernel's
	expect "{$S} other entries" "$(run ls $SYS | grep -v '^cpu[0-9]')" "$(ls $SYS | grep -v '^cpu[0-9]')"

	# files of virtual CPU 0 are physical CPU p0's; lists in virtual numbers
	expect "{$S} cpu0 core_id" "$(run cat $SYS/cpu0/topology/core_id)" "$(cat $SYS/cpu$p0/topology/core_id)"
	expect "{$S} cpu0 package" "$(run cat $SYS/cpu0/topology/physical_package_id)" "$(cat $SYS/cpu$p0/topology/physical_package_id)"
	expect "{$S} cpu0 thread_siblings_list" "$(run cat $SYS/cpu0/topology/thread_siblings_list)" 0
	expect "{$S} cpu0 package_cpus_list" "$(run cat $SYS/cpu0/topology/package_cpus_list)" "$want_list"
	expect "{$S} cpu0 L3 shared_cpu_list" "$(run cat $SYS/cpu0/cache/index3/shared_cpu_list)" "$want_list"
	expect "{$S} cpu0 core_cpus" "$(run cat $SYS/cpu0/topology/core_cpus)" 1
	for f in online possible present; do
		expect "{$S} $f" "$(run cat $SYS/$f)" "$want_list"
	done
	expect "{$S} kernel_max" "$(run cat $SYS/kernel_max)" $last
	expect "{$S} node0 cpulist" "$(run cat /sys/devices/system/node/node0/cpulist)" "$want_list"
	expect "{$S} node0 cpumap" "$(run cat /sys/devices/system/node/node0/cpumap)" "$([ $n = 1 ] && echo 1 || echo 3)"
	expect "{$S} has_cpu" "$(run cat /sys/devices/system/node/has_cpu)" 0
	# CPUs beyond the set do not exist
	expect_rc "{$S} cat cpu$n/online" 1 run cat $SYS/cpu$n/topology/core_id
	expect_err "{$S} cat cpu$n ENOENT" "No such file"
	expect_rc "{$S} ls cpu$n" 2 run ls $SYS/cpu$n
	expect "{$S} access cpu$n" "$(run $PY -c "import os; print(os.access('$SYS/cpu$n', os.F_OK), os.access('$SYS/cpu$last/topology', os.X_OK))")" "False True"

	# the tools
	expect "{$S} lscpu CPU(s)" "$(run lscpu | sed -n 's/^CPU(s): *//p')" $n
	expect "{$S} lscpu NUMA node0" "$(run lscpu | sed -n 's/^NUMA node0 CPU(s): *//p')" "$([ $n = 1 ] && echo 0 || echo 0,1)"
	expect "{$S} lscpu -p CPUs" "$(run lscpu -p=cpu | grep -v '^#' | tr '\n' ' ')" "$(seq 0 $last | tr '\n' ' ')"
	run lstopo-no-graphics --of xml - > "$TMP/got.xml"
	if $CMP hwloc / "$S" "$TMP/got.xml" > "$TMP/diff"; then ok; else bad "{$S} lstopo"; head -30 "$TMP/diff"; fi
	expect "{$S} hwloc-calc PUs" "$(run hwloc-calc -N pu all)" $n
	expect "{$S} hwloc-calc cores" "$(run hwloc-calc -N core all)" $n
	expect "{$S} hwloc-calc pu:0 core" "$(run hwloc-calc -I core pu:0)" 0
	expect "{$S} numactl --hardware" "$(run numactl --hardware | sed -n 's/^node 0 cpus: *//p')" "$(seq 0 $last | tr '\n' ' ' | sed 's/ $//')"
	expect "{$S} psutil cores" "$(run $PY -c 'import psutil; print(psutil.cpu_count(logical=False), psutil.cpu_count())')" "$n $n"
	expect "{$S} cpuinfo siblings" "$(run sed -n 's/^siblings[[:space:]]*: //p' /proc/cpuinfo | sort -u)" $n
	expect "{$S} cpuinfo cpu cores" "$(run sed -n 's/^cpu cores[[:space:]]*: //p' /proc/cpuinfo | sort -u)" $n
done
finish
