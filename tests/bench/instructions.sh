#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Instructions per call of bench_calls cases under two builds of the shim,
# side by side: callgrind counts (valgrind), which the machine's load does
# not change. Each build runs in a one-CPU set of a private table made by
# its own cpuset (the table layouts of two builds may differ); the
# program is this tree's bench_calls in both. A case's figure is the
# count for N = 1001 calls less N = 1, over 1000.
#
#   sh tests/bench/instructions.sh BEFORE_TREE AFTER_TREE [CASE...]
#
# BEFORE_TREE, AFTER_TREE: built source trees (scripts/build.sh), e.g. a
# git worktree of an older commit and this one. Without cases, the hot
# paths and the views (the list below). Needs valgrind; by hand, not a
# test.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_TREE AFTER_TREE [CASE...]" >&2; exit 2; }
before=$(cd "$1" && pwd) after=$(cd "$2" && pwd)
shift 2
command -v valgrind >/dev/null || { echo "$0: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
calls=$top/tests/bench/bench_calls
[ -x "$calls" ] || { echo "$0: no $calls: make check TESTS= first" >&2; exit 2; }
for t in "$before" "$after"; do
	[ -x "$t/cpuset" ] && [ -x "$t/cpuset-run" ] && [ -f "$t/.libs/libcpusetshim.so" ] ||
		{ echo "$0: $t is not a built tree" >&2; exit 2; }
done
[ $# -gt 0 ] || set -- sched_getaffinity sched_setaffinity_same pthread_getaffinity_np \
	sysconf_nprocessors_onln get_nprocs sched_getcpu syscall_getppid open_close_devnull \
	openat_close_dirfd open_close_relative stat_devnull fopen_fclose_devnull \
	read_proc_cpuinfo read_proc_stat read_sys_cpu_online read_proc_self_status \
	read_proc_self_stat read_sys_cpu_core_cpus_list read_sys_node_cpumap \
	read_sys_cpu_core_id list_sys_cpu get_mempolicy

work=$(mktemp -d /tmp/cpusetshim-instr.XXXXXX) || exit 1
cpu=$(($(getconf _NPROCESSORS_ONLN) - 1))
tb=cpusetshim-instr-b.$$ ta=cpusetshim-instr-a.$$
cleanup() {
	rm -rf "$work" "/dev/shm/$tb" "/dev/shm/$ta" "/dev/shm/$tb.views."* "/dev/shm/$ta.views."*
}
trap cleanup EXIT
trap 'exit 1' INT TERM
for x in "$before:$tb" "$after:$ta"; do
	t=${x%%:*} n=${x#*:}
	CPUSETSHIM_TABLE=$n "$t/cpuset" init --force >/dev/null &&
		CPUSETSHIM_TABLE=$n "$t/cpuset" create --name i1 --cpus "$cpu" >/dev/null ||
		{ echo "$0: cannot make a set of CPU $cpu with $t/cpuset" >&2; exit 1; }
done

# count TREE TABLE CASE N: instructions of the whole run
count() {
	rm -f "$work"/cg.*
	CPUSETSHIM_TABLE=$2 CPUSETSHIM_LIB=$1/.libs/libcpusetshim.so \
		valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$work/cg.%p" \
		"$1/cpuset-run" --set i1 "$calls" --count "$3" "$4" >/dev/null 2>"$work/err" ||
		{ echo "$0: $3 under $1 failed: $(tail -n 3 "$work/err")" >&2; return 1; }
	# the program's file: the last process (cpuset-run execs it)
	f=$(ls -t "$work"/cg.* | head -n 1)
	sed -n 's/^\(summary\|totals\): *\([0-9]*\).*/\2/p' "$f" | head -n 1
}

printf '%-30s %8s %8s\n' case before after
for c in "$@"; do
	b1=$(count "$before" "$tb" "$c" 1) && b2=$(count "$before" "$tb" "$c" 1001) &&
		a1=$(count "$after" "$ta" "$c" 1) && a2=$(count "$after" "$ta" "$c" 1001) || continue
	printf '%-30s %8d %8d\n' "$c" $(((b2 - b1) / 1000)) $(((a2 - a1) / 1000))
done
