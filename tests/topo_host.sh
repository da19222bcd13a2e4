#!/bin/sh
# The machine's description on this machine, in the sets {1} and {0,1}
# (and {0} where the machine has one CPU): lscpu, lstopo, hwloc-calc,
# numactl --hardware, psutil, listings of the CPU directories, the files
# of a CPU by its virtual name and the ones beyond the set.
. "$(dirname "$0")/common.sh"
PY=$PYTHON3
CMP="$PY $SRC/tests/topo/compare.py"
need lscpu util-linux
need lstopo-no-graphics hwloc
need hwloc-calc hwloc
need numactl numactl
need "$PY" python3
$PY -c 'import psutil' 2>/dev/null || skip_all "needs psutil for $PY (Debian package python3-psutil)"
"$CPUSET" init >/dev/null || die "cpuset init"
online=$(cat /sys/devices/system/cpu/online)
case $online in
0) sets="0" ;;
*) sets="1 0-1" ;;
esac
SYS=/sys/devices/system/cpu

for S in $sets; do
	n=$($PY -c "import sys; sys.path.insert(0, '$SRC/tests/topo'); import compare; print(len(compare.cpulist('$S')))")
	p0=${S%%-*}
	last=$((n - 1))
	want_list=$([ $n = 1 ] && echo 0 || echo 0-$last)
	run() { with_san "$CPUSET_RUN" --cpus "$S" -- "$@"; }

	# listings: cpu0..cpu(n-1), nothing beyond
	want=$(seq -f 'cpu%.0f' 0 $last | tr '\n' ' ')
	expect_eq "{$S} ls $SYS" "$(run ls $SYS | grep '^cpu[0-9]' | sort | tr '\n' ' ')" "$want"
	expect_eq "{$S} ls /sys/bus/cpu/devices" "$(run ls /sys/bus/cpu/devices | sort | tr '\n' ' ')" "$want"
	expect_eq "{$S} python listdir" "$(run $PY -c "import os; print(' '.join(sorted(e for e in os.listdir('$SYS') if e[3:].isdigit())) + ' ')")" "$want"
	expect_eq "{$S} glob(3)" "$(run "$B/tests/topo/lsglob" "$SYS/cpu[0-9]*" | tr '\n' ' ')" "$(seq -f "$SYS/cpu%.0f" 0 $last | tr '\n' ' ')"
	expect_eq "{$S} nftw(3)" "$(run "$B/tests/topo/lsglob" -w $SYS | grep -E "^$SYS/cpu[0-9]+\$" | sort | tr '\n' ' ')" "$(seq -f "$SYS/cpu%.0f" 0 $last | tr '\n' ' ')"
	expect_eq "{$S} readlink bus link" "$(run readlink /sys/bus/cpu/devices/cpu$last)" "../../../devices/system/cpu/cpu$last"
	expect_eq "{$S} readlink beyond" "$(run readlink /sys/bus/cpu/devices/cpu$n; echo $?)" 1
	expect_eq "{$S} node0 links" "$(run ls /sys/devices/system/node/node0 | grep '^cpu[0-9]' | sort | tr '\n' ' ')" "$want"
	# the other entries are the kernel's
	expect_eq "{$S} other entries" "$(run ls $SYS | grep -v '^cpu[0-9]')" "$(ls $SYS | grep -v '^cpu[0-9]')"

	# files of virtual CPU 0 are physical CPU p0's; lists in virtual numbers
	expect_eq "{$S} cpu0 core_id" "$(run cat $SYS/cpu0/topology/core_id)" "$(cat $SYS/cpu$p0/topology/core_id)"
	expect_eq "{$S} cpu0 package" "$(run cat $SYS/cpu0/topology/physical_package_id)" "$(cat $SYS/cpu$p0/topology/physical_package_id)"
	expect_eq "{$S} cpu0 thread_siblings_list" "$(run cat $SYS/cpu0/topology/thread_siblings_list)" 0
	expect_eq "{$S} cpu0 package_cpus_list" "$(run cat $SYS/cpu0/topology/package_cpus_list)" "$want_list"
	expect_eq "{$S} cpu0 L3 shared_cpu_list" "$(run cat $SYS/cpu0/cache/index3/shared_cpu_list)" "$want_list"
	expect_eq "{$S} cpu0 core_cpus" "$(run cat $SYS/cpu0/topology/core_cpus)" 1
	for f in online possible present; do
		expect_eq "{$S} $f" "$(run cat $SYS/$f)" "$want_list"
	done
	expect_eq "{$S} kernel_max" "$(run cat $SYS/kernel_max)" $last
	expect_eq "{$S} node0 cpulist" "$(run cat /sys/devices/system/node/node0/cpulist)" "$want_list"
	expect_eq "{$S} node0 cpumap" "$(run cat /sys/devices/system/node/node0/cpumap)" "$([ $n = 1 ] && echo 1 || echo 3)"
	expect_eq "{$S} has_cpu" "$(run cat /sys/devices/system/node/has_cpu)" 0
	# CPUs beyond the set do not exist
	expect_status "{$S} cat cpu$n/online" 1 run cat $SYS/cpu$n/topology/core_id
	expect_stderr "{$S} cat cpu$n ENOENT" "No such file"
	expect_status "{$S} ls cpu$n" 2 run ls $SYS/cpu$n
	expect_status "{$S} stat cpu$n" 1 run stat -c %n $SYS/cpu$n
	expect_eq "{$S} test -e cpu$n" "$(run sh -c "test -e $SYS/cpu$n && echo yes || echo no")" no
	expect_eq "{$S} stat cpu0 is physical cpu$p0" "$(run stat -c %i $SYS/cpu0)" "$(stat -c %i $SYS/cpu$p0)"
	expect_eq "{$S} python stat" "$(run $PY -c "import os; print(os.path.exists('$SYS/cpu$n'), os.path.isdir('$SYS/cpu$last'), os.stat('/sys/bus/cpu/devices/cpu0').st_ino == os.stat('$SYS/cpu0').st_ino)")" "False True True"
	expect_eq "{$S} access cpu$n" "$(run $PY -c "import os; print(os.access('$SYS/cpu$n', os.F_OK), os.access('$SYS/cpu$last/topology', os.X_OK))")" "False True"

	# the tools
	expect_eq "{$S} lscpu CPU(s)" "$(run lscpu | sed -n 's/^CPU(s): *//p')" $n
	expect_eq "{$S} lscpu NUMA node0" "$(run lscpu | sed -n 's/^NUMA node0 CPU(s): *//p')" "$([ $n = 1 ] && echo 0 || echo 0,1)"
	expect_eq "{$S} lscpu -p CPUs" "$(run lscpu -p=cpu | grep -v '^#' | tr '\n' ' ')" "$(seq 0 $last | tr '\n' ' ')"
	run lstopo-no-graphics --of xml - > "$T/got.xml"
	check "{$S} lstopo" $CMP hwloc / "$S" "$T/got.xml"
	expect_eq "{$S} hwloc-calc PUs" "$(run hwloc-calc -N pu all)" $n
	expect_eq "{$S} hwloc-calc cores" "$(run hwloc-calc -N core all)" $n
	expect_eq "{$S} hwloc-calc pu:0 core" "$(run hwloc-calc -I core pu:0)" 0
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
	expect_eq "{$S} numactl --hardware" "$(run numactl --hardware | sed -n 's/^node 0 cpus: *//p')" "$(seq 0 $last | tr '\n' ' ' | sed 's/ $//')"
	expect_eq "{$S} numa_node_of_cpu" "$(run $PY -c "import ctypes; l = ctypes.CDLL('libnuma.so.1'); l.numa_available(); print([l.numa_node_of_cpu(v) for v in range($n + 1)])")" "[$(yes 0 | head -n $n | tr '\n' ' ' | sed 's/ $//; s/ /, /g'), -1]"
	expect_eq "{$S} psutil cores" "$(run $PY -c 'import psutil; print(psutil.cpu_count(logical=False), psutil.cpu_count())')" "$n $n"
	expect_eq "{$S} cpuinfo siblings" "$(run sed -n 's/^siblings[[:space:]]*: //p' /proc/cpuinfo | sort -u)" $n
	expect_eq "{$S} cpuinfo cpu cores" "$(run sed -n 's/^cpu cores[[:space:]]*: //p' /proc/cpuinfo | sort -u)" $n
done
# A resize while a program holds the views open: what it opens afterwards
# is the new set's; what it held stays readable (a listing keeps the set
# it was opened with, as one listing must be of one set).
# resize_running NAME CPUS NEWCPUS SCRIPT: runs tests/topo/SCRIPT in a new
# set NAME of CPUS, waits until it says it is ready, moves the set to
# NEWCPUS and lets it go on; its answers are in $T/NAME ("answer NAME KEY")
resize_running() {
	"$CPUSET" create --cpus "$2" --name "$1" >/dev/null || die "cpuset create"
	rm -f "$T/ready" "$T/go"
	with_san "$CPUSET_RUN" --set "$1" $PY "$SRC/tests/topo/$4" "$T" >"$T/$1" 2>&1 &
	_pid=$!
	for _i in $(seq 1200); do [ -e "$T/ready" ] && break; sleep 0.05; done
	expect_eq "$1: the program is ready" "$(test -e "$T/ready" && echo yes)" yes
	"$CPUSET" alloc "$1" "$3"
	touch "$T/go"
	wait $_pid
	expect_eq "$1: exit status" $? 0
}
answer() { sed -n "s/^$2 //p" "$T/$1"; }
if [ "$sets" = "1 0-1" ]; then
	resize_running held 0-1 1 held.py
	h() { answer held "$1"; }
	expect_eq "resize held: online before" "$(h before-online)" 0-1
	expect_eq "resize held: node before" "$(h before-node)" 0-1
	expect_eq "resize held: the held listing is of one set" "$(h held-listing)" "cpu0 cpu1"
	expect_eq "resize held: held files still read" "$(h held-files)" read
	expect_eq "resize held: a new listing" "$(h after-listing)" cpu0
	expect_eq "resize held: online after" "$(h after-online)" 0
	expect_eq "resize held: node after" "$(h after-node)" 0
	expect_eq "resize held: cpu0 is physical 1" "$(h after-cpu0)" "$(cat $SYS/cpu1/topology/core_id)"
	expect_eq "resize held: cpu1 is gone" "$(h after-cpu1)" False

	# The same spelling before and after a resize that moves virtual CPU 0
	# from physical 1 to physical 0: the redirects the shim keeps follow
	# the set.
	resize_running moved 1 0 reread.py
	r() { answer moved "$1"; }
	expect_eq "moved: cpu0 core_id before is physical 1's" "$(r before-core)" "$(cat $SYS/cpu1/topology/core_id)"
	expect_eq "moved: cpu0 directory before is physical 1's" "$(r before-ino)" "$(stat -c %i $SYS/cpu1)"
	expect_eq "moved: cpu0 core_id after is physical 0's" "$(r after-core)" "$(cat $SYS/cpu0/topology/core_id)"
	expect_eq "moved: cpu0 directory after is physical 0's" "$(r after-ino)" "$(stat -c %i $SYS/cpu0)"
	expect_eq "moved: cpu1 absent in a set of one" "$(r after-cpu1)" ENOENT

	# Eight threads read virtual CPU 0's own files (not the CPU lists:
	# those are views) again and again in a set {1}: more spellings than
	# the shim keeps redirects for, so they are filled, replaced and read
	# by every thread at once; each read must be physical CPU 1's file.
	: >"$T/rr.list"
	for f in $(cd $SYS/cpu1 && find topology cache -type f ! -name '*_list' ! -name '*_cpus' \
		! -name '*siblings*' ! -name shared_cpu_map | sort) uevent online; do
		[ -r "$SYS/cpu1/$f" ] && echo "$SYS/cpu0/$f $(head -n 1 "$SYS/cpu1/$f")" >>"$T/rr.list"
	done
	expect_eq "rereads: files listed" "$(test "$(wc -l <"$T/rr.list")" -ge 20 && echo yes)" yes
	"$CPUSET" create --cpus 1 --name rr >/dev/null || die "cpuset create"
	expect_status "rereads: 8 threads, 200 rounds, every read physical CPU 1's" 0 \
		with_san "$CPUSET_RUN" --set rr "$B/tests/topo/rereads" 8 200 "$T/rr.list"
	show "$T/out"
fi

# The directory the shim keeps open, taken away by the program (closed,
# another directory or a file on its number): the answers stay the set's.
if [ "$sets" = "1 0-1" ]; then
	"$CPUSET" create --cpus 1 --name lost >/dev/null || die "cpuset create"
	mkdir -p "$T/other/cpu0/topology" && echo 999 >"$T/other/cpu0/topology/core_id"
	with_san "$CPUSET_RUN" --set lost $PY "$SRC/tests/topo/cpudir_lost.py" "$T/other" >"$T/lost" 2>&1
	expect_eq "lost: the shim keeps the directory open" "$(answer lost kept)" yes
	expect_eq "lost: and again after the program closed it" "$(answer lost kept-again)" yes
	expect_eq "lost: and again after another directory took its number" \
		"$(answer lost kept-third)" yes
	for t in first closed otherdir file; do
		expect_eq "lost, $t: cpu0 core_id is physical 1's" "$(answer lost $t-core)" \
			"$(cat $SYS/cpu1/topology/core_id)"
		expect_eq "lost, $t: the listing" "$(answer lost $t-listing)" cpu0
		expect_eq "lost, $t: cpu1 absent" "$(answer lost $t-cpu1)" ENOENT
	done
fi
finish
