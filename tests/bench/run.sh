#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The benchmark behind `make bench`: every case natively and through the
# shim in the same session, interleaved (native, shim, native, shim, ...;
# the order flips every round), several rounds; medians, spread (min-max
# over the rounds) and the ratio (median of the per-round shim/native
# ratios, with their min-max). BENCH_QUICK=1: the short form (seconds, no
# verdicts); any case that cannot run fails the benchmark either way.
#
# Sections: calls (one call, or one open+read+close, timed in-process),
# system calls per call (counted under ptrace), start-up of /bin/true,
# resizing a set whose members hold many threads, table look-ups against
# the table's size, an OpenMP kernel. Natively, the programs run pinned to
# the same CPUs the set holds (taskset), so both sides use the same CPUs.
set -u

B=${CPS_BUILDDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BB=$B/tests/bench
CPUSET=$B/cpuset
RUN=$B/cpuset-run
CPUSET_INSPECT=$B/cpuset-inspect
PYTHON3=/usr/bin/python3
# BENCH_SHIM: another build of the shim to measure (cpuset-run loads it
# through CPUSETSHIM_LIB); the tools stay the build tree's.
SHIM=${BENCH_SHIM:-$B/.libs/libcpusetshim.so}
CPUSETSHIM_LIB=$SHIM
export CPUSETSHIM_LIB
QUICK=0
case ${BENCH_QUICK:-} in 1 | yes | true) QUICK=1 ;; esac

if [ $QUICK = 1 ]; then
	ROUNDS=2 MS=2 BATCHES=3 COUNT_N=100 SPAWN_N=10 SPAWN_ROUNDS=2 AB_ROUNDS=1 AB_MS=0.1 AB_PAIRS=11
	RESIZE_SIZES="0 100 1000" ALLOCS=4 OMP_SECONDS=0.05 OMP_ROUNDS=2
	CHURN_MEMBERS=60 CHURN_LIFE="300 900" CHURN_ALLOCS=3 CHURN_GAP=50
	SCALE_SETS=10000 SCALE_PROCS=10000 SCALE_THREADS=100000
else
	ROUNDS=${BENCH_ROUNDS:-11} MS=20 BATCHES=5 COUNT_N=1000 SPAWN_N=100 SPAWN_ROUNDS=11
	AB_ROUNDS=5 AB_MS=0.25 AB_PAIRS=601
	RESIZE_SIZES="0 100 1000 10000" ALLOCS=10 OMP_SECONDS=1.0 OMP_ROUNDS=7
	CHURN_MEMBERS=${BENCH_CHURN_MEMBERS:-1000} CHURN_LIFE="2000 8000" CHURN_ALLOCS=40 CHURN_GAP=200
	SCALE_SETS=10000 SCALE_PROCS=10000 SCALE_THREADS=100000
fi

failed=0
fail() {
	echo "bench: FAIL: $*" >&2
	failed=1
}
die() {
	echo "bench: FAIL: $*" >&2
	exit 1
}

for p in bench_calls bench_spawn bench_threads bench_table bench_omp bench_syscount bench_churn bench_exec; do
	[ -x "$BB/$p" ] || die "no $BB/$p (make bench builds it)"
done
EMPTY=$BB/.libs/libbench_empty.so
WRAP=$BB/.libs/libbench_wrap.so
# the floor of a pass-through (x86-64: a bare jump; elsewhere not measured)
JUMP=$BB/.libs/libbench_jump.so
[ "$(uname -m)" = x86_64 ] && [ -f "$JUMP" ] || JUMP=
JUMP_CASES="open_close_devnull openat_close_devnull open_close_relative openat_close_dirfd"
JUMP_CASES="$JUMP_CASES fopen_fclose_devnull stat_devnull access_devnull lseek_devnull"
JUMP_CASES="$JUMP_CASES lseek_devnull_after_view pread_devnull sched_setaffinity_same"
[ -f "$EMPTY" ] && [ -f "$WRAP" ] || die "no $EMPTY or $WRAP (make bench builds them)"
[ -x "$CPUSET" ] && [ -x "$RUN" ] && [ -f "$SHIM" ] || die "build first (make)"
command -v taskset >/dev/null || die "taskset (util-linux) is needed"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/cpusetshim-bench.XXXXXX") || die "mktemp failed"
CPUSETSHIM_TABLE="cpusetshim-bench.$$"
export CPUSETSHIM_TABLE
unset CPUSETSHIM_SET CPUSETSHIM_WRAP CPUSETSHIM_DEBUG \
	CPUSETSHIM_VIEW_CPUINFO CPUSETSHIM_VIEW_STAT CPUSETSHIM_TEST_UID \
	OMP_NUM_THREADS OMP_THREAD_LIMIT OMP_PLACES OMP_PROC_BIND OMP_DYNAMIC \
	GOMP_CPU_AFFINITY KMP_AFFINITY KMP_HW_SUBSET
holders=""
cleanup() {
	for p in $holders; do kill "$p" 2>/dev/null; done
	for p in $holders; do wait "$p" 2>/dev/null; done
	rm -f "/dev/shm/$CPUSETSHIM_TABLE" "/dev/shm/$CPUSETSHIM_TABLE.small" \
		"/dev/shm/$CPUSETSHIM_TABLE.large"
	rm -rf "/dev/shm/$CPUSETSHIM_TABLE.views."* "$TMP"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# A sanitizer build links libasan into the shim; it must come first in
# LD_PRELOAD of any program that preloads the shim (as in the tests).
BASE_PRELOAD=""
asan=$(LD_PRELOAD='' ldd "$SHIM" 2>/dev/null | awk '/libasan\.so/ { print $3; exit }')
if [ -n "$asan" ]; then
	ubsan=$(LD_PRELOAD='' ldd "$SHIM" 2>/dev/null | awk '/libubsan\.so/ { print $3; exit }')
	BASE_PRELOAD="$asan${ubsan:+ $ubsan}"
	ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0
	export ASAN_OPTIONS
	echo "# sanitizer build: times mean nothing, the cases still run"
fi
if [ -n "$BASE_PRELOAD" ]; then
	LD_PRELOAD=$BASE_PRELOAD
	export LD_PRELOAD
	SHIM_PRELOAD="$BASE_PRELOAD $SHIM"
	EMPTY_PRELOAD="$BASE_PRELOAD $EMPTY"
	WRAP_PRELOAD="$BASE_PRELOAD $WRAP"
	JUMP_PRELOAD="$BASE_PRELOAD $JUMP"
else
	unset LD_PRELOAD
	SHIM_PRELOAD=$SHIM
	EMPTY_PRELOAD=$EMPTY
	WRAP_PRELOAD=$WRAP
	JUMP_PRELOAD=$JUMP
fi

# The private table; the root is what this process may use (unpinned).
"$CPUSET" init --force >/dev/null || die "cpuset init"
ROOT=$("$CPUSET" --json show root | sed -n 's/.*"cpus":"\([^"]*\)".*/\1/p')
[ -n "$ROOT" ] || die "cannot read the root set's CPUs"
# First and last CPU of the root list (a list like 0-3,8)
A=$(echo "$ROOT" | sed 's/[-,].*//')
Z=$(echo "$ROOT" | sed 's/.*[-,]//')
[ "$A" != "$Z" ] || die "the benchmark needs two CPUs (root set: $ROOT)"
"$CPUSET" create --cpus "$Z" --name bench1 >/dev/null || die "create bench1"
"$CPUSET" create --cpus "$A,$Z" --name bench2 >/dev/null || die "create bench2"
for size in $RESIZE_SIZES; do
	"$CPUSET" create --cpus "$A,$Z" --name "resize$size" >/dev/null || die "create resize$size"
done

DATA=$TMP/data
: >"$DATA"
REPORT=$BB/bench_report.txt
exec 3>&1
exec >"$TMP/report"

rev=$(cd "$B" && git rev-parse --short HEAD 2>/dev/null || echo "?")
dirty=$(cd "$B" && git status --porcelain --untracked-files=no 2>/dev/null | head -1)
echo "# cpusetshim benchmark ($([ $QUICK = 1 ] && echo "short form, BENCH_QUICK=1" || echo "full"))"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), commit $rev${dirty:+ + local changes}, $(uname -sr)"
echo "# $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs online to us ($ROOT)," \
	"load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# sets: bench1 = CPU $Z (calls, start-up), bench2 = CPUs $A,$Z (OpenMP), resizeN = $A,$Z, then $A or $Z"
echo "# native runs are pinned with taskset to the same CPUs as the set"
[ -n "${BENCH_SHIM:-}" ] && echo "# shim measured: $SHIM (BENCH_SHIM)"
echo

# ---- 0. this machine: what a system call and a file delivery cost ----

# The floors every figure below stands on, measured first: a bare system
# call (syscall(SYS_getppid), natively) and the delivery of a 2-byte file
# from tmpfs (open, read, read, close: the way of a kept view, at its
# floor). The fastest batch of 3 runs of bench_calls CASE MS BATCHES: a
# neighbour's load only adds, and a floor is what the machine can do.
machine_ns() {
	for _i in 1 2 3; do
		taskset -c "$Z" "$BB/bench_calls" "$1" $MS $BATCHES | awk '{ print $3 }'
	done | sort -n | sed -n 1p
}
MACH_SYSCALL=$(machine_ns syscall_getppid)
MACH_TMPFS=$(machine_ns ref_tmpfs_file)
[ -n "$MACH_SYSCALL" ] && [ -n "$MACH_TMPFS" ] || die "cannot time a bare system call or a tmpfs file here"
echo "## This machine"
echo
echo "| floor | ns (the fastest batch of 3 runs) |"
echo "|---|---|"
echo "| a bare system call: \`syscall(SYS_getppid)\` (\`bench_calls syscall_getppid\`) | $MACH_SYSCALL |"
echo "| a 2-byte file delivered from tmpfs: open, read, read, close (\`bench_calls ref_tmpfs_file\`) | $MACH_TMPFS |"
echo
echo "A view made at each open reads its real file and delivers a file: its floor is the native"
echo "read plus a tmpfs delivery (less the real file's open and close it saves); a kept view's floor"
echo "is the tmpfs delivery itself. On a machine where a system call costs as much as here, each"
echo "system call a view adds weighs more than the rest of its work: the counts are in \"System"
echo "calls per call\"."
echo
echo "this machine: a bare system call $MACH_SYSCALL ns, a tmpfs file delivered $MACH_TMPFS ns" >&3

# ---- statistics (mawk-safe) ----

# stats FILE: lines "CASE MODE ROUND VALUE" -> per case and mode:
# "CASE MODE MEDIAN MIN MAX N", then per case and every mode but the first
# listed in $MODES: "CASE ratio MODE MEDIAN MIN MAX" of VALUE/VALUE(first
# mode) in the same round, and "CASE diff MODE MEDIAN MIN MAX".
STATS_AWK='
function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ v[$1 SUBSEP $2 SUBSEP $3] = $4; if (!($1 in seen)) { seen[$1] = 1; order[++nc] = $1 }
  if (!(($1 SUBSEP $2) in cnt)) cnt[$1 SUBSEP $2] = 0
  k = ++cnt[$1 SUBSEP $2]; x[$1 SUBSEP $2 SUBSEP k] = $4; r[$1 SUBSEP $2 SUBSEP k] = $3 }
END {
	nm = split(modes, m, " ")
	for (c = 1; c <= nc; c++) {
		cs = order[c]
		for (i = 1; i <= nm; i++) {
			n = cnt[cs SUBSEP m[i]]; if (!n) continue
			lo = hi = x[cs SUBSEP m[i] SUBSEP 1]
			for (k = 1; k <= n; k++) { a[k] = x[cs SUBSEP m[i] SUBSEP k]; if (a[k] < lo) lo = a[k]; if (a[k] > hi) hi = a[k] }
			printf "%s %s %.6g %.6g %.6g %d\n", cs, m[i], med(a, n), lo, hi, n
			if (i == 1) continue
			np = 0
			for (k = 1; k <= n; k++) {
				rd = r[cs SUBSEP m[i] SUBSEP k]
				if (!((cs SUBSEP m[1] SUBSEP rd) in v)) continue
				b0 = v[cs SUBSEP m[1] SUBSEP rd]; b1 = x[cs SUBSEP m[i] SUBSEP k]
				np++; q[np] = b0 > 0 ? b1 / b0 : 0; d[np] = b1 - b0
			}
			if (!np) continue
			lo = hi = q[1]; for (k = 1; k <= np; k++) { if (q[k] < lo) lo = q[k]; if (q[k] > hi) hi = q[k] }
			printf "%s ratio %s %.6g %.6g %.6g\n", cs, m[i], med(q, np), lo, hi
			lo = hi = d[1]; for (k = 1; k <= np; k++) { if (d[k] < lo) lo = d[k]; if (d[k] > hi) hi = d[k] }
			printf "%s diff %s %.6g %.6g %.6g\n", cs, m[i], med(d, np), lo, hi
		}
	}
}'
stats() { awk -v modes="$2" "$STATS_AWK" "$1"; }

# Number formatting: 3 significant figures, never exponents.
fmt() { awk -v x="$1" 'BEGIN { a = x < 0 ? -x : x
	if (a >= 100) printf "%.0f", x; else if (a >= 10) printf "%.1f", x; else if (a >= 1) printf "%.2f", x; else printf "%.3f", x }'; }

# verdict KIND TARGET VALUE: "met" / "MISSED" ("-" in the short form)
verdict() {
	[ $QUICK = 1 ] && { echo "-"; return; }
	awk -v t="$2" -v v="$3" 'BEGIN { print (v <= t ? "met" : "MISSED") }'
}

# ---- 1. calls ----

ALL_CASES=$("$BB/bench_calls" --list) || die "bench_calls --list"
# The process's own cpuset cgroup CPU file (v1 cpuset.cpus, else v2
# cpuset.cpus.effective), timed only where it is a view in bench1: there
# it names the last CPU as 0 (or is clipped to it), unlike the real file.
cg_file() {
	m=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpuset(,|$)/ { print $5; exit }' /proc/self/mountinfo)
	p=$(awk -F: '$2 ~ /(^|,)cpuset(,|$)/ { print $3; exit }' /proc/self/cgroup)
	if [ -n "$m" ] && [ -n "$p" ] && [ -r "$m${p%/}/cpuset.cpus" ]; then
		echo "$m${p%/}/cpuset.cpus"
		return
	fi
	m=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	p=$(awk -F: '$1 == 0 { print $3; exit }' /proc/self/cgroup)
	[ -n "$m" ] && [ -r "$m${p%/}/cpuset.cpus.effective" ] && echo "$m${p%/}/cpuset.cpus.effective"
}
BENCH_CGROUP_FILE=$(cg_file)
if [ -n "$BENCH_CGROUP_FILE" ] &&
	[ "$("$RUN" --set bench1 cat "$BENCH_CGROUP_FILE" 2>/dev/null)" != "$(cat "$BENCH_CGROUP_FILE")" ]; then
	export BENCH_CGROUP_FILE
else
	echo "bench: note: read_cgroup_cpus left out: no cpuset cgroup file of this process is a view here${BENCH_CGROUP_FILE:+ ($BENCH_CGROUP_FILE)}" >&2
	echo "Left out: \`read_cgroup_cpus\` (no cpuset cgroup file of this process is a view here)."
	BENCH_CGROUP_FILE=
	ALL_CASES=$(echo "$ALL_CASES" | grep -v '^read_cgroup_cpus$')
fi
# A case reads a file of virtual CPU 0 of bench1 (physical $Z) through the
# shim and the same name natively (physical CPU 0's, or the machine's own
# file): where the machine lacks either (no cache directory, no NUMA node
# directory, an older kernel's topology), the case is left out, saying
# so; any other case that does not run fails the benchmark.
LEFT_OUT=""
for c in $ALL_CASES; do
	f=$("$BB/bench_calls" --file "$c") || die "bench_calls --file $c"
	[ -n "$f" ] || continue
	for g in "$f" "$(echo "$f" | sed "s|/cpu0/|/cpu$Z/|")"; do
		[ -e "$g" ] && continue
		echo "bench: note: $c left out: this machine has no $g" >&2
		echo "Left out: \`$c\` (this machine has no \`$g\`)."
		LEFT_OUT="$LEFT_OUT $c"
		break
	done
done
# kept CASE...: the cases not left out
kept() {
	for c; do
		case " $LEFT_OUT " in *" $c "*) ;; *) printf '%s\n' "$c" ;; esac
	done
}
ALL_CASES=$(kept $ALL_CASES)
[ -z "$LEFT_OUT" ] || echo
# the sized affinity cases are for the in-process section only
CASES=$(echo "$ALL_CASES" | grep -v '^ref_' | grep -v '_[0-9][0-9]*$')
REF_CASES=$(echo "$ALL_CASES" | grep '^ref_')
# target per case: ratio:X (shim/native at most X) or diff:X (at most X ns more)
target_of() {
	case $1 in
	sched_getaffinity | pthread_getaffinity_np | sched_setaffinity_same) echo ratio:1.05 ;;
	sched_getaffinity_* | pthread_getaffinity_np_*) echo diff:5 ;;
	sysconf_nprocessors_* | get_nprocs | get_nprocs_conf) echo ratio:0.01 ;;
	sched_getcpu) echo diff:3 ;;
	get_mempolicy* | set_mempolicy*) echo none ;;
	read_proc_cpuinfo) echo ratio:1.0 ;;
	read_proc_stat | read_proc_self_status) echo ratio:1.2 ;;
	read_* | list_*) echo ratio:1.0 ;;
	*) echo diff:2 ;;
	esac
}
echo "== calls: ns per call (per open+read+close for read_*), $ROUNDS rounds" >&3
: >"$TMP/calls"
calls_native() { taskset -c "$Z" "$BB/bench_calls" "$1" $MS $BATCHES; }
# reference: the call interposed and passed on (libbench_wrap), nothing else
calls_wrap() { taskset -c "$Z" env LD_PRELOAD="$WRAP_PRELOAD" "$BB/bench_calls" "$1" $MS $BATCHES; }
WRAP_CASES="sched_getaffinity pthread_getaffinity_np sched_setaffinity_same sched_getcpu"
AB_CASES="sysconf_pagesize sysconf_clk_tck syscall_getppid open_close_devnull openat_close_devnull
open_close_relative openat_close_dirfd fopen_fclose_devnull stat_devnull access_devnull
lseek_devnull lseek_devnull_after_view pread_devnull"
AB_AFF_CASES="sched_setaffinity_same sched_getcpu"
# the memory-policy calls the shim translates (syscall(3), as libnuma
# calls them): their cost against libc's, for reference (no target)
AB_MEM_CASES="get_mempolicy get_mempolicy_mems_allowed set_mempolicy_bind"
# the affinity reads at four buffer sizes, in both sets, through one call site
AB_SIZED_CASES="sched_getaffinity_8 sched_getaffinity_16 sched_getaffinity_128 sched_getaffinity_1024
pthread_getaffinity_np_8 pthread_getaffinity_np_16 pthread_getaffinity_np_128 pthread_getaffinity_np_1024"
# the views made at each open, through one call site (open; opendir,
# readdir and closedir for the listing; libc reads the physical CPU's core_id)
AB_VIEW_CASES="read_proc_stat read_proc_self_status read_proc_self_stat read_sys_cpu_core_id list_sys_cpu${BENCH_CGROUP_FILE:+ read_cgroup_cpus}"
AB_VIEW_CASES=$(echo $(kept $AB_VIEW_CASES))
calls_shim() { "$RUN" --set bench1 "$BB/bench_calls" "$1" $MS $BATCHES; }
# the kept views made at each open instead, as on a first open
MADE_CASES="read_proc_cpuinfo read_sys_cpu_online"
MADE_CASES=$(echo $(kept $MADE_CASES))
calls_made() { env CPUSETSHIM_KEEP_VIEWS=0 "$RUN" --set bench1 "$BB/bench_calls" "$1" $MS $BATCHES; }
r=1
while [ $r -le $ROUNDS ]; do
	for c in $REF_CASES; do
		out=$(calls_native "$c") || { fail "calls: $c did not run"; continue; }
		set -- $out
		echo "$c native $r $2" >>"$TMP/calls.ref"
	done
	for c in $CASES; do
		if [ $((r % 2)) = 1 ]; then order="native shim"; else order="shim native"; fi
		case " $WRAP_CASES " in
		*" $c "*) if [ $((r % 2)) = 1 ]; then order="native wrap shim"; else order="shim wrap native"; fi ;;
		esac
		case " $MADE_CASES " in
		*" $c "*) if [ $((r % 2)) = 1 ]; then order="native made shim"; else order="shim made native"; fi ;;
		esac
		for mode in $order; do
			out=$(calls_$mode "$c") || { fail "calls: $c ($mode) did not run"; continue; }
			set -- $out
			[ $# = 5 ] && [ "$1" = "$c" ] || { fail "calls: $c ($mode): bad output [$out]"; continue; }
			echo "$c $mode $r $2" >>"$TMP/calls"
			echo "$c $mode $r $5" >>"$TMP/calls.result"
		done
	done
	printf '.' >&3
	r=$((r + 1))
done
echo >&3
# The shim must have been in the way: one CPU, numbered 0.
check_result() {
	[ -n "$(kept "$1")" ] || return 0
	got=$(awk -v c="$1" -v m="$2" '$1 == c && $2 == m { print $4; exit }' "$TMP/calls.result")
	[ "$got" = "$3" ] || fail "calls: $1 ($2) answered [$got], want [$3]: is the shim in the way?"
}
check_result sysconf_nprocessors_onln shim 1
check_result get_nprocs shim 1
check_result sched_getcpu shim 0
check_result sched_getcpu native "$Z"
check_result read_sys_cpu_online shim 2
check_result list_sys_cpu shim 1
check_result sched_getaffinity shim 1

stats "$TMP/calls" "native shim" >"$TMP/calls.stats"
awk '$2 == "native" || $2 == "wrap"' "$TMP/calls" >"$TMP/calls.wrap"
awk '$2 == "native" || $2 == "made"' "$TMP/calls" >"$TMP/calls.made"
stats "$TMP/calls.made" "native made" >"$TMP/calls.made.stats"
stats "$TMP/calls.wrap" "native wrap" >"$TMP/calls.wrap.stats"
echo "## Calls: ns per call (read_*: per open + read to EOF + close), set of 1 CPU"
echo
echo "Command: \`make bench\` (section calls): \`taskset -c $Z bench_calls CASE $MS $BATCHES\`"
echo "against \`cpuset-run --set bench1 bench_calls CASE $MS $BATCHES\`, $ROUNDS rounds."
echo "Each figure of a round is the median of $BATCHES batches of about $MS ms in one process."
echo
echo "| case | native ns: median (min-max) | shim ns: median (min-max) | ratio: median (min-max) | shim - native ns | target | verdict |"
echo "|---|---|---|---|---|---|---|"
for c in $CASES; do
	set -- $(awk -v c="$c" '$1 == c && $2 == "native"' "$TMP/calls.stats") x x x x x x
	nm=$3 nlo=$4 nhi=$5
	set -- $(awk -v c="$c" '$1 == c && $2 == "shim"' "$TMP/calls.stats") x x x x x x
	sm=$3 slo=$4 shi=$5
	set -- $(awk -v c="$c" '$1 == c && $2 == "ratio"' "$TMP/calls.stats") x x x x x x
	rm_=$4 rlo=$5 rhi=$6
	set -- $(awk -v c="$c" '$1 == c && $2 == "diff"' "$TMP/calls.stats") x x x x x x
	dm=$4
	[ "$nm" = x ] || [ "$sm" = x ] && { fail "calls: no figures for $c"; continue; }
	t=$(target_of "$c")
	case $t in
	ratio:*) tv=${t#ratio:}; tt="<= ${tv}x"; v=$(verdict ratio "$tv" "$rm_") ;;
	diff:*) tv=${t#diff:}; tt="<= +$tv ns"; v=$(verdict diff "$tv" "$dm") ;;
	none) tt="(reference)" v="" ;;
	esac
	# a pass-through's few ns are below the noise between processes: judged in one process
	case " $AB_CASES " in *" $c "*) v="in one process, below" ;; esac
	case " $AB_AFF_CASES " in *" $c "*) v="$v; in one process below" ;; esac
	case " $AB_VIEW_CASES sched_getaffinity pthread_getaffinity_np " in *" $c "*) v="$v; in one process below" ;; esac
	[ "$c" = read_proc_cpuinfo ] && tt="$tt (aim 0.25x)"
	echo "| $c | $(fmt $nm) ($(fmt $nlo)-$(fmt $nhi)) | $(fmt $sm) ($(fmt $slo)-$(fmt $shi)) | $(fmt $rm_)x ($(fmt $rlo)-$(fmt $rhi)) | $(fmt $dm) | $tt | $v |"
done
echo
echo "Wrapping alone, same rounds (interleaved with the two above): \`taskset -c $Z env LD_PRELOAD=libbench_wrap.so"
echo "bench_calls CASE $MS $BATCHES\`, a library that interposes the call, calls the next definition and returns its answer."
echo "What the shim adds beyond it is its own work: the set copy's check and the translation."
echo
echo "| case | wrap only ns: median (min-max) | ratio to native: median (min-max) | wrap - native ns | shim - native ns |"
echo "|---|---|---|---|---|"
for c in $WRAP_CASES; do
	set -- $(awk -v c="$c" '$1 == c && $2 == "wrap"' "$TMP/calls.wrap.stats") x x x x x x
	[ "$3" = x ] && { fail "calls: no wrap figures for $c"; continue; }
	wm="$(fmt $3) ($(fmt $4)-$(fmt $5))"
	set -- $(awk -v c="$c" '$1 == c && $2 == "ratio"' "$TMP/calls.wrap.stats") x x x x x x
	wr="$(fmt $4)x ($(fmt $5)-$(fmt $6))"
	set -- $(awk -v c="$c" '$1 == c && $2 == "diff"' "$TMP/calls.wrap.stats") x x x x x x
	wd=$(fmt $4)
	set -- $(awk -v c="$c" '$1 == c && $2 == "diff"' "$TMP/calls.stats") x x x x x x
	echo "| $c | $wm | $wr | $wd | $(fmt $4) |"
done
echo
echo "Kept views made at each open instead, same rounds: \`env CPUSETSHIM_KEEP_VIEWS=0 cpuset-run --set bench1"
echo "bench_calls CASE $MS $BATCHES\`. This is what an open costs when the kept view must be made: the first"
echo "open of a range view by a user of the table, and of cpuinfo once a second (the writing of the"
echo "file, a few us, comes on top)."
echo
echo "| case | made at each open ns: median (min-max) | ratio to native: median (min-max) | made - native ns |"
echo "|---|---|---|---|"
for c in $MADE_CASES; do
	set -- $(awk -v c="$c" '$1 == c && $2 == "made"' "$TMP/calls.made.stats") x x x x x x
	[ "$3" = x ] && { fail "calls: no made-at-open figures for $c"; continue; }
	mm="$(fmt $3) ($(fmt $4)-$(fmt $5))"
	set -- $(awk -v c="$c" '$1 == c && $2 == "ratio"' "$TMP/calls.made.stats") x x x x x x
	mr="$(fmt $4)x ($(fmt $5)-$(fmt $6))"
	set -- $(awk -v c="$c" '$1 == c && $2 == "diff"' "$TMP/calls.made.stats") x x x x x x
	echo "| $c | $mm | $mr | $(fmt $4) |"
done
echo
stats "$TMP/calls.ref" "native" >"$TMP/calls.ref.stats"
echo "References, natively, same rounds: what delivering a 2-byte virtual file costs."
echo "ref_memfd_view is the shim's way for a view made at each open (memfd_create, write, seal, fchmod,"
echo "reopen read-only through /proc/self/fd, close; then read and close); ref_tmpfs_file opens, reads"
echo "and closes a file in /dev/shm made once: the way of a kept view, at its floor."
echo
echo "| reference | ns: median (min-max) |"
echo "|---|---|"
for c in $REF_CASES; do
	set -- $(awk -v c="$c" '$1 == c && $2 == "native"' "$TMP/calls.ref.stats") x x x x x x
	[ "$3" = x ] && { fail "calls: no figures for $c"; continue; }
	echo "| $c | $(fmt $3) ($(fmt $4)-$(fmt $5)) |"
done
echo

# ---- 1b. the same calls, in one process ----

# A pass-through call costs a few ns more at most, far below the noise
# between two processes for a call of microseconds, and the affinity calls'
# few percent are near it. So these are also timed inside one process:
# batches through the program's own call (the shim's, when preloaded)
# alternating with batches through libc's function looked up directly; the
# same run natively is the control (both sides are libc). Short batches
# (AB_MS) and many pairs: a neighbour's burst spoils a few pairs, which
# the median of the pairs' differences leaves out. The sized affinity
# cases and the views go through one call site (a pointer switched
# between batches), so the control differs in nothing but the noise; the
# other cases call the program's function directly and libc's through a
# pointer, which the control shows as a bias of a few ns.
echo "== affinity, views and pass-through calls, in one process, $AB_ROUNDS rounds" >&3
: >"$TMP/ab"
: >"$TMP/ab.ns"
: >"$TMP/ab.q"
AB_ITEMS=""
for c in $AB_SIZED_CASES; do AB_ITEMS="$AB_ITEMS $c@bench1 $c@bench2"; done
for c in $AB_VIEW_CASES $AB_AFF_CASES $AB_MEM_CASES $AB_CASES; do AB_ITEMS="$AB_ITEMS $c@bench1"; done
set_label() { case $1 in bench1) echo "{$Z}" ;; bench2) echo "{$A,$Z}" ;; esac; }
r=1
while [ $r -le $AB_ROUNDS ]; do
	for item in $AB_ITEMS; do
		c=${item%@*} set=${item#*@}
		modes="shim control"
		case " $JUMP_CASES " in *" $c "*) [ -n "$JUMP" ] && modes="$modes jump" ;; esac
		for mode in $modes; do
			ctl=$TMP/ab.ctl.$c.$r
			if [ $mode = jump ]; then
				out=$(taskset -c "$Z" env LD_PRELOAD="$JUMP_PRELOAD" "$BB/bench_calls" --ab "$c" $AB_MS $AB_PAIRS)
			elif [ $mode = shim ]; then
				out=$("$RUN" --set "$set" "$BB/bench_calls" --ab "$c" $AB_MS $AB_PAIRS)
			elif [ -f "$ctl" ]; then
				out=$(cat "$ctl") # one control per case and round, whatever the set
			else
				out=$(taskset -c "$Z" "$BB/bench_calls" --ab "$c" $AB_MS $AB_PAIRS) &&
					echo "$out" >"$ctl"
			fi || { fail "in one process: $c ($mode, $set) did not run"; continue; }
			set -- $out
			[ $# = 7 ] && [ "$1" = "$c" ] || { fail "in one process: $c ($mode): bad output [$out]"; continue; }
			echo "$item $mode $r $4" >>"$TMP/ab"
			[ $mode = shim ] && echo "$item call $r $2" >>"$TMP/ab.ns"
			[ $mode = shim ] && echo "$item ratio $r $(awk -v a="$2" -v b="$3" 'BEGIN { printf "%.6f", a / b }')" >>"$TMP/ab.q"
		done
	done
	printf '.' >&3
	r=$((r + 1))
done
echo >&3
stats "$TMP/ab" "control shim jump" >"$TMP/ab.stats"
stats "$TMP/ab.ns" "call" >"$TMP/ab.ns.stats"
stats "$TMP/ab.q" "ratio" >"$TMP/ab.q.stats"
echo "## Affinity reads, views and pass-through calls, timed inside one process"
echo
echo "Command: \`make bench\` (section in one process): \`cpuset-run --set SET bench_calls --ab CASE $AB_MS $AB_PAIRS\`"
echo "($AB_PAIRS pairs of batches of about $AB_MS ms: the call as the program makes it, through the shim, against"
echo "libc's own function from dlopen(\"libc.so.6\"), the order flipping; the figure is the median difference of"
echo "the pairs), and the control \`taskset -c $Z bench_calls --ab CASE $AB_MS $AB_PAIRS\` without the shim (both sides"
echo "libc: what the method itself shows as a difference, its error). $AB_ROUNDS rounds; medians (min-max) over them."
echo "Cases with a size (bytes of the caller's mask) and the read_ cases call through one call site, a pointer"
echo "switched between batches; the others call the program's function directly and libc's through a pointer."
echo
echo "The floor column: for a pass-through and sched_setaffinity, a bare jump's difference to libc"
echo "(below); for a view made at each open, (libc + a tmpfs delivery - 3 bare system calls) / libc: the"
echo "real file read, less the open, end-of-file read and close that its kept descriptor saves, plus a"
echo "file delivered (This machine, above); else none. A miss no dearer than its floor (a view's ratio at"
echo "most the floor's, a call within 5 ns of the bare jump) says \"at its floor\": no interposer, or no"
echo "view delivered as a file, does better on this machine."
echo
echo "| case | set | ns per call | shim - libc ns | shim / libc | floor | control: libc - libc ns | target | verdict |"
echo "|---|---|---|---|---|---|---|---|---|"
for item in $AB_ITEMS; do
	c=${item%@*} set=${item#*@}
	set -- $(awk -v c="$item" '$1 == c && $2 == "call"' "$TMP/ab.ns.stats") x x x x x x
	ns=$(fmt $3)
	set -- $(awk -v c="$item" '$1 == c && $2 == "shim"' "$TMP/ab.stats") x x x x x x
	[ "$3" = x ] && { fail "in one process: no figures for $c in $set"; continue; }
	sd="$(fmt $3) ($(fmt $4)-$(fmt $5))"
	sm=$3
	set -- $(awk -v c="$item" '$1 == c && $2 == "ratio"' "$TMP/ab.q.stats") x x x x x x
	q="$(fmt $3)x ($(fmt $4)-$(fmt $5))"
	qm=$3
	set -- $(awk -v c="$item" '$1 == c && $2 == "control"' "$TMP/ab.stats") x x x x x x
	cd_="$(fmt $3) ($(fmt $4)-$(fmt $5))"
	case $(target_of "$c") in
	ratio:*) tv=$(target_of "$c"); tv=${tv#ratio:}; tt="<= ${tv}x"; v=$(verdict ratio "$tv" "$qm") ;;
	diff:*) tv=$(target_of "$c"); tv=${tv#diff:}; tt="<= +$tv ns"; v=$(verdict diff "$tv" "$sm") ;;
	none) tt="(reference)" v="" ;;
	esac
	# the floor, and whether a miss is within it (the verdict against it)
	fl="" atfloor=""
	case $c in
	read_proc_stat | read_proc_self_status | read_proc_self_stat | read_cgroup_cpus)
		set -- $(awk -v c="$item" '$1 == c && $2 == "call"' "$TMP/ab.ns.stats") x x x x x x
		if [ "$3" != x ]; then
			fq=$(awk -v s="$3" -v d="$sm" -v t="$MACH_TMPFS" -v y="$MACH_SYSCALL" \
				'BEGIN { l = s - d; f = l > 0 ? (l + t - 3 * y) / l : 0; print (f > 1 ? f : 1) }')
			fl="$(fmt "$fq")x"
			atfloor=$(awk -v q="$qm" -v f="$fq" 'BEGIN { print (q <= f ? "yes" : "") }')
		fi ;;
	*)
		case " $JUMP_CASES " in *" $c "*)
			set -- $(awk -v c="$item" '$1 == c && $2 == "jump"' "$TMP/ab.stats") x x x x x x
			if [ "$3" != x ]; then
				fl="+$(fmt $3) ns"
				atfloor=$(awk -v s="$sm" -v j="$3" 'BEGIN { print (s <= j + 5 ? "yes" : "") }')
			fi ;;
		esac ;;
	esac
	[ "$v" = MISSED ] && [ -n "$atfloor" ] && v="MISSED, at its floor"
	echo "| $c | $(set_label "$set") | $ns | $sd | $q | ${fl:--} | $cd_ | $tt | $v |"
done
echo
if [ -n "$JUMP" ]; then
	echo "The floor of interposing these calls: the same, through a library whose function is one jump to"
	echo "libc's (tests/bench/bench_jump.c: no frame, no test; \`LD_PRELOAD=libbench_jump.so taskset -c $Z"
	echo "bench_calls --ab CASE $AB_MS $AB_PAIRS\`). The shim's figure less this one is what its own work costs."
	echo
	echo "| case | a bare jump - libc ns | shim - libc ns | shim - the bare jump ns |"
	echo "|---|---|---|---|"
	for c in $JUMP_CASES; do
		set -- $(awk -v c="$c@bench1" '$1 == c && $2 == "jump"' "$TMP/ab.stats") x x x x x x
		[ "$3" = x ] && continue
		j="$(fmt $3) ($(fmt $4)-$(fmt $5))" jm=$3
		set -- $(awk -v c="$c@bench1" '$1 == c && $2 == "shim"' "$TMP/ab.stats") x x x x x x
		echo "| $c | $j | $(fmt $3) | $(fmt "$(awk -v a="$3" -v b="$jm" 'BEGIN { print a - b }')") |"
	done
	echo
fi

# ---- 2. system calls per call ----

echo "== system calls per call (ptrace)" >&3
SC_CASES="sched_getaffinity pthread_getaffinity_np sched_setaffinity_same sched_getcpu
sysconf_nprocessors_onln sysconf_nprocessors_conf get_nprocs sysconf_pagesize syscall_getppid
read_proc_cpuinfo read_proc_stat read_sys_cpu_online read_proc_self_status
read_proc_self_stat read_sys_cpu_core_id read_sys_cpu_core_cpus_list read_sys_cpu_shared_cpu_map
read_sys_node_cpumap list_sys_cpu ref_tmpfs_file get_mempolicy set_mempolicy_bind${BENCH_CGROUP_FILE:+ read_cgroup_cpus}"
SC_CASES=$(echo $(kept $SC_CASES))
# syscount MODE CASE N -> "TOTAL NAME=COUNT..." on one line
syscount() {
	if [ "$1" = native ]; then
		set -- "$2" "$3" taskset -c "$Z" "$BB/bench_calls"
	else
		set -- "$2" "$3" "$RUN" --set bench1 "$BB/bench_calls"
	fi
	c=$1 n=$2
	shift 2
	"$BB/bench_syscount" "$@" --count "$c" "$n" 2>"$TMP/sc.err" >/dev/null ||
		{ fail "syscount: $c: $(tail -3 "$TMP/sc.err")"; echo "x"; return; }
	awk -F'[ =]' '/^syscalls total=/ { t = $3 } /^syscall / { s = s " " $2 "=" $3 } END { print t s }' "$TMP/sc.err"
}
# per call: (count(N+1) - count(1)) / N, in total and for each syscall
per_call() {
	echo "$1|$2" | awk -F'|' -v n="$3" '{
		split($1, a, " "); split($2, b, " ")
		for (i = 2; i in a; i++) { split(a[i], kv, "="); one[kv[1]] = kv[2] }
		for (i = 2; i in b; i++) { split(b[i], kv, "="); d = kv[2] - one[kv[1]]; if (d > 0) s = s sprintf(" %s %.2f,", kv[1], d / n) }
		sub(/,$/, "", s)
		printf "%.2f|%s\n", (b[1] - a[1]) / n, s == "" ? " -" : s }'
}
echo "## System calls per call"
echo
echo "Command: \`make bench\` (section syscalls): \`bench_syscount PROGRAM bench_calls --count CASE N\`"
echo "(ptrace, like \`strace -f -c\`), N = 1 and N = $((COUNT_N + 1)); per call = difference / $COUNT_N."
echo
echo "A view's target: the native count plus one (its real file read, for a view made at each open);"
echo "a kept view's and ref_tmpfs_file's: the native count. Verdicts in the full form only."
echo
echo "| case | native: per call (which) | shim: per call (which) | target | verdict |"
echo "|---|---|---|---|---|"
for c in $SC_CASES; do
	line="| $c" nat=""
	for mode in native shim; do
		one=$(syscount $mode "$c" 1)
		many=$(syscount $mode "$c" $((COUNT_N + 1)))
		if [ "$one" = x ] || [ "$many" = x ]; then line="$line | failed"; continue; fi
		pc=$(per_call "$one" "$many" $COUNT_N)
		echo "$c $mode ${pc%%|*}" >>"$TMP/syscalls"
		line="$line | ${pc%%|*} (${pc#*|} )"
		[ $mode = native ] && nat=${pc%%|*}
		got=${pc%%|*}
	done
	case $c in
	read_proc_cpuinfo | read_sys_cpu_online | ref_tmpfs_file) plus=0 ;;
	read_* | list_*) plus=1 ;;
	*) plus="" ;;
	esac
	if [ -n "$plus" ] && [ -n "$nat" ]; then
		tgt=$(awk -v n="$nat" -v p="$plus" 'BEGIN { printf "%.0f", n + p }')
		line="$line | <= $tgt | $(verdict count "$(awk -v t="$tgt" 'BEGIN { print t + 0.05 }')" "$got")"
	else
		line="$line | | "
	fi
	echo "$line |"
done
echo
# The same with strace itself, for the two calls the target counts.
if command -v strace >/dev/null 2>&1 && [ $QUICK = 0 ]; then
	echo "Cross-check with \`strace -f -c\` (through the shim, N = 1 and N = $((COUNT_N + 1))):"
	echo
	for c in sched_getaffinity pthread_getaffinity_np; do
		for n in 1 $((COUNT_N + 1)); do
			strace -f -c -o "$TMP/strace.$n" "$RUN" --set bench1 "$BB/bench_calls" --count "$c" $n >/dev/null 2>&1 ||
				fail "strace: $c"
		done
		t1=$(awk '$NF == "total" { print $4 }' "$TMP/strace.1")
		t2=$(awk '$NF == "total" { print $4 }' "$TMP/strace.$((COUNT_N + 1))")
		s1=$(awk '$NF == "sched_getaffinity" { print $4 }' "$TMP/strace.1")
		s2=$(awk '$NF == "sched_getaffinity" { print $4 }' "$TMP/strace.$((COUNT_N + 1))")
		echo "    $c: $(awk -v a="$t1" -v b="$t2" -v n=$COUNT_N 'BEGIN { printf "%.2f", (b - a) / n }') system calls per call," \
			"$(awk -v a="${s1:-0}" -v b="${s2:-0}" -v n=$COUNT_N 'BEGIN { printf "%.2f", (b - a) / n }') of them sched_getaffinity"
	done
	echo
fi
for c in sched_getaffinity pthread_getaffinity_np; do
	got=$(awk -v c="$c" '$1 == c && $2 == "shim" { print $3 }' "$TMP/syscalls")
	[ "$got" = "1.00" ] || { [ $QUICK = 1 ] && echo "bench: note: $c makes $got system calls per call through the shim (want 1)" >&2; }
done
printf '.\n' >&3

# ---- 3. start-up ----

echo "== start-up of /bin/true, $SPAWN_ROUNDS rounds of $SPAWN_N" >&3
: >"$TMP/spawn"
spawn_native() { taskset -c "$Z" "$BB/bench_spawn" $SPAWN_N -- /bin/true; }
spawn_empty() { taskset -c "$Z" "$BB/bench_spawn" $SPAWN_N -e "LD_PRELOAD=$EMPTY_PRELOAD" -- /bin/true; }
spawn_preload() { taskset -c "$Z" "$BB/bench_spawn" $SPAWN_N -e "LD_PRELOAD=$SHIM_PRELOAD" -- /bin/true; }
spawn_cpusetrun() { taskset -c "$Z" "$BB/bench_spawn" $SPAWN_N -- "$RUN" --set bench1 /bin/true; }
# the floors of a launcher: one linked as cpuset-run is that only execs
# the program, with the shim preloaded into it; and taskset, which binds
spawn_launcher() { taskset -c "$Z" "$BB/bench_spawn" $SPAWN_N -e "LD_PRELOAD=$SHIM_PRELOAD" -- "$BB/bench_exec" /bin/true; }
spawn_taskset() { taskset -c "$Z" "$BB/bench_spawn" $SPAWN_N -- taskset -c "$Z" /bin/true; }
SPAWN_MODES="native empty preload launcher taskset cpusetrun"
# The system calls of one start of each (bench_syscount: the program and
# what it execs), which the load does not change.
count_native() { "$BB/bench_syscount" /bin/true; }
count_empty() { LD_PRELOAD=$EMPTY_PRELOAD "$BB/bench_syscount" /bin/true; }
count_preload() { LD_PRELOAD=$SHIM_PRELOAD "$BB/bench_syscount" /bin/true; }
count_cpusetrun() { "$BB/bench_syscount" "$RUN" --set bench1 /bin/true; }
count_launcher() { LD_PRELOAD=$SHIM_PRELOAD "$BB/bench_syscount" "$BB/bench_exec" /bin/true; }
count_taskset() { "$BB/bench_syscount" taskset -c "$Z" /bin/true; }
for mode in $SPAWN_MODES; do
	n=$(count_$mode 2>&1 >/dev/null | sed -n 's/^syscalls total=//p')
	[ -n "$n" ] || { fail "start-up: cannot count the system calls of $mode"; n="?"; }
	eval "SPAWN_CALLS_$mode=\$n"
done
: >"$TMP/spawn.faults"
: >"$TMP/spawn.cpu"
r=1
while [ $r -le $SPAWN_ROUNDS ]; do
	# the order rotating: round r starts at the (r mod 6)-th mode
	set -- $SPAWN_MODES
	k=$((r % $#))
	while [ $k -gt 0 ]; do
		m=$1
		shift
		set -- "$@" "$m"
		k=$((k - 1))
	done
	for mode in "$@"; do
		out=$(spawn_$mode) || { fail "start-up: $mode did not run"; continue; }
		set -- $out
		echo "true $mode $r $1" >>"$TMP/spawn"
		echo "true $mode $r $4" >>"$TMP/spawn.faults"
		echo "true $mode $r $5" >>"$TMP/spawn.cpu"
	done
	printf '.' >&3
	r=$((r + 1))
done
echo >&3
stats "$TMP/spawn" "$SPAWN_MODES" >"$TMP/spawn.stats"
stats "$TMP/spawn.faults" "$SPAWN_MODES" >"$TMP/spawn.faults.stats"
stats "$TMP/spawn.cpu" "$SPAWN_MODES" >"$TMP/spawn.cpu.stats"
# counts MODE -> "CPU_US RATIO SYSTEM_CALLS PAGE_FAULTS" of one start (processor
# time and faults: the median of the rounds' medians; the ratio, of the rounds' ratios)
counts() {
	awk -v m="$1" '$2 == m { c = $3 } $2 == "ratio" && $3 == m { q = $4 }
		END { printf "%s %s ", c == "" ? "?" : c, q == "" ? 1 : q }' "$TMP/spawn.cpu.stats"
	eval "printf '%s ' \"\$SPAWN_CALLS_$1\""
	awk -v m="$1" '$2 == m { printf "%.0f", $3; f = 1 } END { if (!f) printf "?" }' "$TMP/spawn.faults.stats"
}
echo "## Start-up of /bin/true (spawn to exit, µs)"
echo
echo "Command: \`make bench\` (section start-up): \`taskset -c $Z bench_spawn $SPAWN_N [-e LD_PRELOAD=LIB] -- /bin/true\`"
echo "and \`... bench_spawn $SPAWN_N -- cpuset-run --set bench1 /bin/true\`; $SPAWN_ROUNDS rounds, the order rotating;"
echo "each round's figure is the median of its $SPAWN_N starts. The empty library (no code at all)"
echo "is the floor for anything preloaded; \`bench_exec\` (linked as cpuset-run is, it only execs the"
echo "program, here with the shim preloaded) the floor of any launcher, and taskset another launcher."
echo "Processor µs: a start's user and system time (\`wait4\`; what waits for a CPU on a loaded"
echo "machine leave out), the median over the rounds of each round's median, and the median ratio;"
echo "page faults: a start's minor and major faults (\`wait4\`), likewise; system calls: one start"
echo "under \`bench_syscount\` (the launcher's and the program's). The verdict is on the time."
echo
echo "| mode | µs: median (min-max) | ratio to native: median (min-max) | processor µs (ratio) | system calls | page faults | target | verdict |"
echo "|---|---|---|---|---|---|---|---|"
for mode in $SPAWN_MODES; do
	set -- $(awk -v m="$mode" '$2 == m' "$TMP/spawn.stats") x x x x x x
	[ "$3" = x ] && { fail "start-up: no figures for $mode"; continue; }
	med=$3 lo=$4 hi=$5
	set -- $(counts $mode)
	sc="$(fmt $1) ($(fmt $2)x) | $3 | $4"
	case $mode in
	native) echo "| /bin/true | $(fmt $med) ($(fmt $lo)-$(fmt $hi)) | 1 | $sc | | |"; continue ;;
	empty)
		set -- $(awk '$2 == "ratio" && $3 == "empty"' "$TMP/spawn.stats") x x x x x x
		echo "| LD_PRELOAD=libbench_empty.so /bin/true (reference) | $(fmt $med) ($(fmt $lo)-$(fmt $hi)) | $(fmt $4)x ($(fmt $5)-$(fmt $6)) | $sc | | |"
		continue ;;
	launcher | taskset)
		case $mode in
		launcher) label="bench_exec /bin/true, the shim preloaded (the floor of a launcher)" ;;
		*) label="taskset -c $Z /bin/true (reference)" ;;
		esac
		set -- $(awk -v m="$mode" '$2 == "ratio" && $3 == m' "$TMP/spawn.stats") x x x x x x
		echo "| $label | $(fmt $med) ($(fmt $lo)-$(fmt $hi)) | $(fmt $4)x ($(fmt $5)-$(fmt $6)) | $sc | | |"
		continue ;;
	preload) label="LD_PRELOAD=libcpusetshim.so /bin/true" tv=1.10 ;;
	cpusetrun) label="cpuset-run --set bench1 /bin/true" tv=1.15 ;;
	esac
	floor=
	if [ $mode = cpusetrun ]; then
		floor=$(awk '$2 == "ratio" && $3 == "launcher" { print $4 }' "$TMP/spawn.stats")
		[ -n "$floor" ] && floor="; its floor $(fmt $floor)x"
	fi
	set -- $(awk -v m="$mode" '$2 == "ratio" && $3 == m' "$TMP/spawn.stats") x x x x x x
	echo "| $label | $(fmt $med) ($(fmt $lo)-$(fmt $hi)) | $(fmt $4)x ($(fmt $5)-$(fmt $6)) | $sc | <= ${tv}x$floor | $(verdict ratio $tv $4) |"
done
echo

# ---- 4. resize ----

# One set per size (resizeN), its members holding N threads in all, every
# set's members alive at once; then in each round every set is resized once
# (the order rotating), so all sizes see the same machine.
echo "== resize: alloc with members holding $RESIZE_SIZES threads" >&3
: >"$TMP/resize"
NPROC_HOLD=4
holders=""
for size in $RESIZE_SIZES; do
	[ "$size" -gt 0 ] || continue
	per=$((size / NPROC_HOLD))
	i=1
	while [ $i -le $NPROC_HOLD ]; do
		"$RUN" --set "resize$size" "$BB/bench_threads" $per "$TMP/ready.$size.$i" &
		holders="$holders $!"
		eval "holders_$size=\"\${holders_$size:-} $!\""
		i=$((i + 1))
	done
done
nready=$(($(echo $RESIZE_SIZES | wc -w) * NPROC_HOLD))
case " $RESIZE_SIZES " in *" 0 "*) nready=$((nready - NPROC_HOLD)) ;; esac
w=0
while [ "$(ls "$TMP" | grep -c '^ready\.[0-9]*\.[0-9]*$')" -lt $nready ] && [ $w -lt 1200 ]; do
	sleep 0.1
	w=$((w + 1))
done
[ $w -lt 1200 ] || fail "resize: the members did not start their threads"
for size in $RESIZE_SIZES; do
	total=0
	for p in $(eval echo "\${holders_$size:-}"); do
		n=$(sed -n 's/^Threads:[[:space:]]*//p' "/proc/$p/status")
		total=$((total + ${n:-0}))
	done
	[ "$total" = "$size" ] || fail "resize: the members of resize$size hold $total threads, want $size"
done
k=1
list="$A,$Z"
while [ $k -le $ALLOCS ]; do
	if [ $((k % 2)) = 1 ]; then list=$A; else list=$Z; fi
	order=$RESIZE_SIZES
	j=1
	while [ $j -lt $k ]; do order="$(echo $order | cut -d' ' -f2-) $(echo $order | cut -d' ' -f1)"; j=$((j + 1)); done
	for size in $order; do
		out=$("$BB/bench_spawn" 1 -- "$CPUSET" alloc "resize$size" "$list") ||
			{ fail "resize: cpuset alloc resize$size $list"; continue; }
		set -- $out
		echo "t$size alloc $k $1" >>"$TMP/resize"
	done
	printf '.' >&3
	k=$((k + 1))
done
echo >&3
# every thread followed the last alloc
for p in $holders; do
	bad=$(cat /proc/$p/task/*/status 2>/dev/null | sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' | grep -vcx "$list")
	[ "$bad" = 0 ] || fail "resize: $bad threads of $p are not on CPU $list after the alloc"
done
for p in $holders; do kill "$p" 2>/dev/null; done
for p in $holders; do wait "$p" 2>/dev/null; done
holders=""
stats "$TMP/resize" "alloc" >"$TMP/resize.stats"
echo "## Resize: \`cpuset alloc\` of a set whose $NPROC_HOLD members hold N sleeping threads in all"
echo
echo "Command: \`make bench\` (section resize): for each N, $NPROC_HOLD × \`cpuset-run --set resizeN bench_threads N/$NPROC_HOLD READYFILE\`"
echo "(all sets' members alive at once), then $ALLOCS rounds of \`bench_spawn 1 -- cpuset alloc resizeN LIST\` for every N,"
echo "the order rotating, LIST alternating $A and $Z (every thread moves every time). The time includes starting"
echo "\`cpuset\`; per-thread figures subtract the median alloc of the set with no member."
echo
echo "| threads | ms per alloc: median (min-max) | µs per thread beyond the empty set | time vs 10x fewer threads | target: no faster than linear | verdict |"
echo "|---|---|---|---|---|---|"
base=""
prevmed=""
for size in $RESIZE_SIZES; do
	set -- $(awk -v c="t$size" '$1 == c' "$TMP/resize.stats") x x x x x x
	[ "$3" = x ] && { fail "resize: no figures for $size threads"; continue; }
	med=$3 lo=$4 hi=$5
	[ "$size" = 0 ] && base=$med
	per="-" growth="-" tt="" v=""
	if [ "$size" -gt 0 ] && [ -n "$base" ]; then
		per=$(awk -v m="$med" -v b="$base" -v n="$size" 'BEGIN { printf "%.3f", (m - b) / n }')
	fi
	if [ "$size" -ge 1000 ] && [ -n "$prevmed" ]; then
		# ten times the threads: linear growth is ten times the time at most
		g=$(awk -v a="$med" -v b="$prevmed" 'BEGIN { printf "%.3f", a / b }')
		growth="$(fmt $g)x"
		tt="<= 10x"
		v=$(verdict ratio 10 "$g")
	fi
	prevmed=$med
	echo "| $size | $(fmt $(awk -v x=$med 'BEGIN{print x/1000}')) ($(fmt $(awk -v x=$lo 'BEGIN{print x/1000}'))-$(fmt $(awk -v x=$hi 'BEGIN{print x/1000}'))) | $per | $growth | $tt | $v |"
done
echo

# ---- 4b. resize under churn ----

# One set whose CHURN_MEMBERS members start and exit all the time (each
# lives CHURN_LIFE ms at random, replaced when it exits; three threads,
# one pinned to virtual CPU 0), resized CHURN_ALLOCS times ($A, then $Z:
# every thread moves), and show/list readers running meanwhile. Then
# every thread of every member alive must be inside the set.
echo "== resize under churn: $CHURN_MEMBERS members, $CHURN_ALLOCS allocs" >&3
"$CPUSET" create --cpus "$A,$Z" --name churn >/dev/null || die "create churn"
if "$BB/bench_churn" drive "$RUN" "$CPUSET" churn $CHURN_MEMBERS $CHURN_LIFE 3 \
	$CHURN_ALLOCS $CHURN_GAP "$A" "$Z" 2 >"$TMP/churn" 2>"$TMP/churn.err"; then
	:
else
	fail "churn: bench_churn drive: $(tail -3 "$TMP/churn.err" | tr '\n' ' ')"
fi
churn_sum=$(tail -1 "$TMP/churn")
churn_get() { echo "$churn_sum" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
printf '.\n' >&3
echo "## Resize under churn: \`cpuset alloc\` while $CHURN_MEMBERS members start and exit"
echo
echo "Command: \`make bench\` (section churn): \`bench_churn drive cpuset-run cpuset churn $CHURN_MEMBERS $CHURN_LIFE 3 $CHURN_ALLOCS $CHURN_GAP $A $Z 2\`:"
echo "$CHURN_MEMBERS members of set churn alive at once (\`cpuset-run --set churn bench_churn member 3 LIFE\`, LIFE drawn from"
echo "$(echo $CHURN_LIFE | tr ' ' '-') ms, each replaced when it exits, started at most at twice the rate that keeps them alive),"
echo "$CHURN_ALLOCS × \`cpuset alloc churn $A\` / \`$Z\` in turn, $CHURN_GAP ms apart, timed start to exit; two readers run"
echo "\`cpuset show churn\` and \`cpuset list\` meanwhile. Afterwards every thread of every member alive is checked."
echo
echo "| allocs | median ms | p90 ms | p99 ms | max ms | target | verdict | members started | launches failed | threads checked | outside the set |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
p99=$(churn_get p99_ms) mx=$(churn_get max_ms) outside=$(churn_get outside)
v=$(awk -v a="${p99:-1e9}" -v b="${mx:-1e9}" -v q=$QUICK 'BEGIN { if (q) print "-"; else print (a < 1000 && b < 2000) ? "met" : "MISSED" }')
[ "${outside:-1}" = 0 ] || fail "churn: $outside threads ended outside the set"
echo "| $(churn_get allocs) | $(churn_get median_ms) | $(churn_get p90_ms) | $p99 | $mx | p99 < 1000, max < 2000 | $v | $(churn_get started) | $(churn_get failed_members) (want 0) | $(churn_get checked_threads) | ${outside:-?} (want 0) |"
echo

# ---- 5. table scale ----

echo "== table look-ups: 10 against $SCALE_SETS sets / $SCALE_THREADS threads" >&3
CAPS="--max-sets $((SCALE_SETS + 1)) --max-procs $SCALE_PROCS --max-threads $SCALE_THREADS"
for size in small large; do
	if [ $size = small ]; then fill="10 10 10"; else fill="$SCALE_SETS $SCALE_PROCS $SCALE_THREADS"; fi
	CPUSETSHIM_TABLE=$CPUSETSHIM_TABLE.$size "$CPUSET" init --force $CAPS >/dev/null ||
		die "table scale: cpuset init $CAPS"
	t0=$(date +%s%N)
	CPUSETSHIM_TABLE=$CPUSETSHIM_TABLE.$size "$BB/bench_table" fill $fill >"$TMP/fill.$size" ||
		die "table scale: bench_table fill $fill"
	t1=$(date +%s%N)
	echo "$size $(cat "$TMP/fill.$size") in $(((t1 - t0) / 1000000)) ms" >>"$TMP/fills"
done
: >"$TMP/table"
r=1
while [ $r -le $ROUNDS ]; do
	if [ $((r % 2)) = 1 ]; then order="small large"; else order="large small"; fi
	for size in $order; do
		CPUSETSHIM_TABLE=$CPUSETSHIM_TABLE.$size "$BB/bench_table" time $MS $BATCHES >"$TMP/t.out" ||
			{ fail "table scale: bench_table time ($size)"; continue; }
		awk -v s=$size -v r=$r 'NF == 3 { print $1, s, r, $2 }' "$TMP/t.out" >>"$TMP/table"
		grep '^probes\|^fill' "$TMP/t.out" | sed "s/^/$size /" >"$TMP/probes.$size"
	done
	printf '.' >&3
	r=$((r + 1))
done
echo >&3
stats "$TMP/table" "small large" >"$TMP/table.stats"
echo "## Table scale: look-ups in a table of 10 sets / 10 members / 10 threads against"
echo "## $SCALE_SETS sets / $SCALE_PROCS members / $SCALE_THREADS threads"
echo
echo "Command: \`make bench\` (section table): both tables made with \`cpuset init --force $CAPS\`,"
echo "filled with \`bench_table fill SETS MEMBERS THREADS\`, timed with \`bench_table time $MS $BATCHES\`, $ROUNDS rounds alternating."
echo "hot: one key again and again (what a process does: its own pid, its own threads); spread: every key"
echo "in turn; miss: absent keys. The probes line gives the mean and longest distance of a record from its"
echo "home slot, computed from the table."
sed 's/^/    /' "$TMP/fills"
cat "$TMP/probes.small" "$TMP/probes.large" 2>/dev/null | grep probes | sed 's/^/    /'
echo
echo "| look-up | 10: ns median (min-max) | $SCALE_SETS/$SCALE_THREADS: ns median (min-max) | ratio: median (min-max) | target | verdict |"
echo "|---|---|---|---|---|---|"
for l in $(awk '$2 == "small" { print $1 }' "$TMP/table.stats"); do
	set -- $(awk -v c="$l" '$1 == c && $2 == "small"' "$TMP/table.stats") x x x x x x
	a="$(fmt $3) ($(fmt $4)-$(fmt $5))"
	set -- $(awk -v c="$l" '$1 == c && $2 == "large"' "$TMP/table.stats") x x x x x x
	b="$(fmt $3) ($(fmt $4)-$(fmt $5))"
	set -- $(awk -v c="$l" '$1 == c && $2 == "ratio"' "$TMP/table.stats") x x x x x x
	case $l in
	*_hot) tt="same: <= 1.10x"; v=$(verdict ratio 1.10 "$4") ;;
	*) tt="(reference)"; v="" ;;
	esac
	echo "| $l | $a | $b | $(fmt $4)x ($(fmt $5)-$(fmt $6)) | $tt | $v |"
done
echo
# cpuset-inspect --check of both tables, and of a table of the largest
# capacities holding the small fill: time (ms) and the checker's peak
# memory, beside the table file's size and the bytes it holds
CPUSETSHIM_TABLE=$CPUSETSHIM_TABLE.sparse "$CPUSET" init --force --max-sets $((SCALE_SETS + 1)) \
	--max-procs 1048576 --max-threads 2097152 >/dev/null || die "check: cpuset init (sparse)"
CPUSETSHIM_TABLE=$CPUSETSHIM_TABLE.sparse "$BB/bench_table" fill 10 10 10 >/dev/null ||
	die "check: bench_table fill (sparse)"
echo "## cpuset-inspect --check: time and memory against the table's size"
echo
echo "Command: \`make bench\` (section table): \`cpuset-inspect --check\` of the two tables above and of a"
echo "table made with \`--max-procs 1048576 --max-threads 2097152\` holding the small fill, $ROUNDS rounds;"
echo "peak memory is the checker's maximum resident set (getrusage of the child)."
echo
echo "| table | file MB | data MB | check ms: median (min-max) | peak MB | target: peak below the data + 16 MB | verdict |"
echo "|---|---|---|---|---|---|---|"
for size in small large sparse; do
	f=/dev/shm/$CPUSETSHIM_TABLE.$size
	: >"$TMP/chk"
	peak=0
	r=1
	while [ $r -le $ROUNDS ]; do
		set -- $(CPUSETSHIM_TABLE=$CPUSETSHIM_TABLE.$size "$PYTHON3" -c 'import resource, subprocess, sys, time
t = time.monotonic()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print((time.monotonic() - t) * 1000, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode)' "$CPUSET_INSPECT" --check)
		[ "${3:-1}" = 0 ] || fail "check: cpuset-inspect --check of the $size table exited ${3:-?}"
		echo "$1" >>"$TMP/chk"
		[ "${2:-0}" -gt "$peak" ] && peak=$2
		r=$((r + 1))
	done
	fmb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.1f", b / 1048576 }')
	dmb=$(awk -v k="$(du -k "$f" | cut -f1)" 'BEGIN { printf "%.1f", k / 1024 }')
	pmb=$(awk -v k="$peak" 'BEGIN { printf "%.1f", k / 1024 }')
	med=$(sort -n "$TMP/chk" | awk '{ a[NR] = $1 } END { printf "%s %s %s", a[int((NR + 1) / 2)], a[1], a[NR] }')
	set -- $med
	v=$(awk -v p="$pmb" -v d="$dmb" -v q=$QUICK 'BEGIN { if (q) print "-"; else print (p < d + 16) ? "met" : "MISSED" }')
	[ "$v" = MISSED ] && fail "check: peak memory $pmb MB of the $size table (data $dmb MB)"
	echo "| $size | $fmb | $dmb | $(fmt $1) ($(fmt $2)-$(fmt $3)) | $pmb | < $dmb + 16 | $v |"
done
echo
rm -f "/dev/shm/$CPUSETSHIM_TABLE.small" "/dev/shm/$CPUSETSHIM_TABLE.large" "/dev/shm/$CPUSETSHIM_TABLE.sparse"

# ---- 6. OpenMP ----

echo "== OpenMP kernel, $OMP_ROUNDS rounds" >&3
REPS=$(taskset -c "$A,$Z" "$BB/bench_omp" --calibrate $OMP_SECONDS) || die "bench_omp --calibrate"
: >"$TMP/omp"
r=1
while [ $r -le $OMP_ROUNDS ]; do
	if [ $((r % 2)) = 1 ]; then order="native shim"; else order="shim native"; fi
	for mode in $order; do
		if [ $mode = native ]; then
			out=$(taskset -c "$A,$Z" "$BB/bench_omp" $REPS)
		else
			out=$("$RUN" --set bench2 "$BB/bench_omp" $REPS)
		fi || { fail "OpenMP: $mode did not run"; continue; }
		case $out in
		*"procs=2 threads=2 "*) ;;
		*) fail "OpenMP: $mode: [$out], want 2 procs and a team of 2" ;;
		esac
		echo "kernel $mode $r $(echo "$out" | sed 's/^seconds=\([^ ]*\).*/\1/')" >>"$TMP/omp"
	done
	printf '.' >&3
	r=$((r + 1))
done
echo >&3
stats "$TMP/omp" "native shim" >"$TMP/omp.stats"
echo "## OpenMP kernel in a two-CPU set (seconds)"
echo
echo "Command: \`make bench\` (section OpenMP): \`taskset -c $A,$Z bench_omp $REPS\` against"
echo "\`cpuset-run --set bench2 bench_omp $REPS\` (REPS calibrated to about $OMP_SECONDS s natively), $OMP_ROUNDS rounds."
echo
echo "| native s: median (min-max) | shim s: median (min-max) | ratio: median (min-max) | target | verdict |"
echo "|---|---|---|---|---|"
set -- $(awk '$2 == "native"' "$TMP/omp.stats") x x x x x x
n="$(fmt $3) ($(fmt $4)-$(fmt $5))"
set -- $(awk '$2 == "shim"' "$TMP/omp.stats") x x x x x x
s="$(fmt $3) ($(fmt $4)-$(fmt $5))"
set -- $(awk '$2 == "ratio"' "$TMP/omp.stats") x x x x x x
echo "| $n | $s | $(fmt $4)x ($(fmt $5)-$(fmt $6)) | <= 1.01x | $(verdict ratio 1.01 $4) |"
echo
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

exec 1>&3
cat "$TMP/report"
cp "$TMP/report" "$REPORT" 2>/dev/null || true
if [ $failed != 0 ]; then
	echo "bench: some cases could not run (see FAIL above)" >&2
	exit 1
fi
exit 0
