#!/bin/sh
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
SHIM=$B/.libs/libcpusetshim.so
QUICK=0
case ${BENCH_QUICK:-} in 1 | yes | true) QUICK=1 ;; esac

if [ $QUICK = 1 ]; then
	ROUNDS=2 MS=2 BATCHES=3 COUNT_N=100 SPAWN_N=10 SPAWN_ROUNDS=2
	RESIZE_SIZES="0 100 1000" ALLOCS=4 OMP_SECONDS=0.05 OMP_ROUNDS=2
	SCALE_SETS=10000 SCALE_PROCS=10000 SCALE_THREADS=100000
else
	ROUNDS=${BENCH_ROUNDS:-11} MS=20 BATCHES=5 COUNT_N=1000 SPAWN_N=100 SPAWN_ROUNDS=11
	RESIZE_SIZES="0 100 1000 10000" ALLOCS=10 OMP_SECONDS=1.0 OMP_ROUNDS=7
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

for p in bench_calls bench_spawn bench_threads bench_table bench_omp bench_syscount; do
	[ -x "$BB/$p" ] || die "no $BB/$p (make bench builds it)"
done
[ -x "$CPUSET" ] && [ -x "$RUN" ] && [ -f "$SHIM" ] || die "build first (make)"
command -v taskset >/dev/null || die "taskset (util-linux) is needed"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/cpusetshim-bench.XXXXXX") || die "mktemp failed"
CPUSETSHIM_TABLE="cpusetshim-bench.$$"
export CPUSETSHIM_TABLE
unset CPUSETSHIM_SET CPUSETSHIM_WRAP CPUSETSHIM_DEBUG CPUSETSHIM_LIB \
	CPUSETSHIM_VIEW_CPUINFO CPUSETSHIM_VIEW_STAT CPUSETSHIM_TEST_UID \
	OMP_NUM_THREADS OMP_THREAD_LIMIT OMP_PLACES OMP_PROC_BIND OMP_DYNAMIC \
	GOMP_CPU_AFFINITY KMP_AFFINITY KMP_HW_SUBSET
holders=""
cleanup() {
	for p in $holders; do kill "$p" 2>/dev/null; done
	for p in $holders; do wait "$p" 2>/dev/null; done
	rm -f "/dev/shm/$CPUSETSHIM_TABLE" "/dev/shm/$CPUSETSHIM_TABLE.small" \
		"/dev/shm/$CPUSETSHIM_TABLE.large"
	rm -rf "$TMP"
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
else
	unset LD_PRELOAD
	SHIM_PRELOAD=$SHIM
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
"$CPUSET" create --cpus "$A,$Z" --name resize >/dev/null || die "create resize"

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
echo "# sets: bench1 = CPU $Z (calls, start-up), bench2 = CPUs $A,$Z (OpenMP), resize = $A,$Z <-> ..."
echo "# native runs are pinned with taskset to the same CPUs as the set"
echo

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

CASES=$("$BB/bench_calls" --list) || die "bench_calls --list"
# target per case: ratio:X (shim/native at most X) or diff:X (at most X ns more)
target_of() {
	case $1 in
	sched_getaffinity | pthread_getaffinity_np | sched_setaffinity_same) echo ratio:1.05 ;;
	sysconf_nprocessors_* | get_nprocs | get_nprocs_conf) echo ratio:0.01 ;;
	sched_getcpu) echo diff:3 ;;
	read_proc_cpuinfo) echo ratio:1.0 ;;
	read_*) echo ratio:1.0 ;;
	*) echo diff:2 ;;
	esac
}
echo "== calls: ns per call (per open+read+close for read_*), $ROUNDS rounds" >&3
: >"$TMP/calls"
calls_native() { taskset -c "$Z" "$BB/bench_calls" "$1" $MS $BATCHES; }
calls_shim() { "$RUN" --set bench1 "$BB/bench_calls" "$1" $MS $BATCHES; }
r=1
while [ $r -le $ROUNDS ]; do
	for c in $CASES; do
		if [ $((r % 2)) = 1 ]; then order="native shim"; else order="shim native"; fi
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
	got=$(awk -v c="$1" -v m="$2" '$1 == c && $2 == m { print $4; exit }' "$TMP/calls.result")
	[ "$got" = "$3" ] || fail "calls: $1 ($2) answered [$got], want [$3]: is the shim in the way?"
}
check_result sysconf_nprocessors_onln shim 1
check_result get_nprocs shim 1
check_result sched_getcpu shim 0
check_result sched_getcpu native "$Z"
check_result read_sys_cpu_online shim 2
check_result sched_getaffinity shim 1

stats "$TMP/calls" "native shim" >"$TMP/calls.stats"
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
	esac
	[ "$c" = read_proc_cpuinfo ] && tt="$tt (aim 0.25x)"
	echo "| $c | $(fmt $nm) ($(fmt $nlo)-$(fmt $nhi)) | $(fmt $sm) ($(fmt $slo)-$(fmt $shi)) | $(fmt $rm_)x ($(fmt $rlo)-$(fmt $rhi)) | $(fmt $dm) | $tt | $v |"
done
echo

# ---- 2. system calls per call ----

echo "== system calls per call (ptrace)" >&3
SC_CASES="sched_getaffinity pthread_getaffinity_np sched_setaffinity_same sched_getcpu
sysconf_nprocessors_onln sysconf_nprocessors_conf get_nprocs sysconf_pagesize syscall_getppid
read_proc_cpuinfo read_proc_stat read_sys_cpu_online read_proc_self_status"
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
echo "| case | native: per call (which) | shim: per call (which) |"
echo "|---|---|---|"
for c in $SC_CASES; do
	line="| $c"
	for mode in native shim; do
		one=$(syscount $mode "$c" 1)
		many=$(syscount $mode "$c" $((COUNT_N + 1)))
		if [ "$one" = x ] || [ "$many" = x ]; then line="$line | failed"; continue; fi
		pc=$(per_call "$one" "$many" $COUNT_N)
		echo "$c $mode ${pc%%|*}" >>"$TMP/syscalls"
		line="$line | ${pc%%|*} (${pc#*|} )"
	done
	echo "$line |"
done
echo
for c in sched_getaffinity pthread_getaffinity_np; do
	got=$(awk -v c="$c" '$1 == c && $2 == "shim" { print $3 }' "$TMP/syscalls")
	[ "$got" = "1.00" ] || { [ $QUICK = 1 ] && echo "bench: note: $c makes $got system calls per call through the shim (want 1)" >&2; }
done
printf '.\n' >&3

# ---- 3. start-up ----

echo "== start-up of /bin/true, $SPAWN_ROUNDS rounds of $SPAWN_N" >&3
: >"$TMP/spawn"
spawn_native() { taskset -c "$Z" "$BB/bench_spawn" $SPAWN_N -- /bin/true; }
spawn_preload() { taskset -c "$Z" "$BB/bench_spawn" $SPAWN_N -e "LD_PRELOAD=$SHIM_PRELOAD" -- /bin/true; }
spawn_cpusetrun() { taskset -c "$Z" "$BB/bench_spawn" $SPAWN_N -- "$RUN" --set bench1 /bin/true; }
r=1
while [ $r -le $SPAWN_ROUNDS ]; do
	case $((r % 3)) in
	1) order="native preload cpusetrun" ;;
	2) order="preload cpusetrun native" ;;
	0) order="cpusetrun native preload" ;;
	esac
	for mode in $order; do
		out=$(spawn_$mode) || { fail "start-up: $mode did not run"; continue; }
		set -- $out
		echo "true $mode $r $1" >>"$TMP/spawn"
	done
	printf '.' >&3
	r=$((r + 1))
done
echo >&3
stats "$TMP/spawn" "native preload cpusetrun" >"$TMP/spawn.stats"
echo "## Start-up of /bin/true (spawn to exit, µs)"
echo
echo "Command: \`make bench\` (section start-up): \`taskset -c $Z bench_spawn $SPAWN_N [-e LD_PRELOAD=libcpusetshim.so] -- /bin/true\`"
echo "and \`... bench_spawn $SPAWN_N -- cpuset-run --set bench1 /bin/true\`; $SPAWN_ROUNDS rounds, the order rotating;"
echo "each round's figure is the median of its $SPAWN_N starts."
echo
echo "| mode | µs: median (min-max) | ratio to native: median (min-max) | target | verdict |"
echo "|---|---|---|---|---|"
for mode in native preload cpusetrun; do
	set -- $(awk -v m="$mode" '$2 == m' "$TMP/spawn.stats") x x x x x x
	[ "$3" = x ] && { fail "start-up: no figures for $mode"; continue; }
	med=$3 lo=$4 hi=$5
	case $mode in
	native) echo "| /bin/true | $(fmt $med) ($(fmt $lo)-$(fmt $hi)) | 1 | | |"; continue ;;
	preload) label="LD_PRELOAD=libcpusetshim.so /bin/true" tv=1.10 ;;
	cpusetrun) label="cpuset-run --set bench1 /bin/true" tv=1.15 ;;
	esac
	set -- $(awk -v m="$mode" '$2 == "ratio" && $3 == m' "$TMP/spawn.stats") x x x x x x
	echo "| $label | $(fmt $med) ($(fmt $lo)-$(fmt $hi)) | $(fmt $4)x ($(fmt $5)-$(fmt $6)) | <= ${tv}x | $(verdict ratio $tv $4) |"
done
echo

# ---- 4. resize ----

echo "== resize: alloc with members holding $RESIZE_SIZES threads" >&3
: >"$TMP/resize"
NPROC_HOLD=4
for size in $RESIZE_SIZES; do
	holders=""
	per=$((size / NPROC_HOLD))
	rm -f "$TMP"/ready.*
	if [ "$size" -gt 0 ]; then
		i=1
		while [ $i -le $NPROC_HOLD ]; do
			"$RUN" --set resize "$BB/bench_threads" $per "$TMP/ready.$i" &
			holders="$holders $!"
			i=$((i + 1))
		done
		w=0
		while [ "$(ls "$TMP" | grep -c '^ready\.[0-9]*$')" -lt $NPROC_HOLD ] && [ $w -lt 1200 ]; do
			sleep 0.1
			w=$((w + 1))
		done
		[ $w -lt 1200 ] || { fail "resize: $size threads did not start"; break; }
		total=0
		for p in $holders; do
			n=$(sed -n 's/^Threads:[[:space:]]*//p' "/proc/$p/status")
			total=$((total + ${n:-0}))
		done
		[ "$total" = "$size" ] || fail "resize: members hold $total threads, want $size"
	fi
	k=1
	list="$A,$Z"
	while [ $k -le $ALLOCS ]; do
		if [ $((k % 2)) = 1 ]; then list=$A; else list=$Z; fi
		out=$("$BB/bench_spawn" 1 -- "$CPUSET" alloc resize "$list") || { fail "resize: cpuset alloc resize $list"; break; }
		set -- $out
		echo "t$size alloc $k $1" >>"$TMP/resize"
		k=$((k + 1))
	done
	# every thread followed the last alloc
	for p in $holders; do
		bad=$(cat /proc/$p/task/*/status 2>/dev/null | sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' | grep -vcx "$list")
		[ "$bad" = 0 ] || fail "resize: $bad threads of $p are not on CPU $list after the alloc"
	done
	for p in $holders; do kill "$p" 2>/dev/null; done
	for p in $holders; do wait "$p" 2>/dev/null; done
	holders=""
	"$CPUSET" alloc resize "$A,$Z" >/dev/null || fail "resize: reset"
	printf '.' >&3
done
echo >&3
stats "$TMP/resize" "alloc" >"$TMP/resize.stats"
echo "## Resize: \`cpuset alloc\` of a set whose $NPROC_HOLD members hold N sleeping threads in all"
echo
echo "Command: \`make bench\` (section resize): $NPROC_HOLD × \`cpuset-run --set resize bench_threads N/$NPROC_HOLD READYFILE\`,"
echo "then $ALLOCS × \`bench_spawn 1 -- cpuset alloc resize LIST\`, LIST alternating $A and $Z (every thread moves every time)."
echo "Per-thread figures subtract the median alloc of the set with no member."
echo
echo "| threads | ms per alloc: median (min-max) | µs per thread beyond the empty set | growth vs 10x fewer threads |"
echo "|---|---|---|---|"
base=""
prev=""
for size in $RESIZE_SIZES; do
	set -- $(awk -v c="t$size" '$1 == c' "$TMP/resize.stats") x x x x x x
	[ "$3" = x ] && { fail "resize: no figures for $size threads"; continue; }
	med=$3 lo=$4 hi=$5
	[ "$size" = 0 ] && base=$med
	per="-" growth="-"
	if [ "$size" -gt 0 ] && [ -n "$base" ]; then
		per=$(awk -v m="$med" -v b="$base" -v n="$size" 'BEGIN { printf "%.3f", (m - b) / n }')
		if [ -n "$prev" ]; then
			growth=$(awk -v a="$per" -v b="$prev" 'BEGIN { if (b > 0) printf "%.2fx per thread", a / b; else print "-" }')
		fi
		prev=$per
	fi
	echo "| $size | $(fmt $(awk -v x=$med 'BEGIN{print x/1000}')) ($(fmt $(awk -v x=$lo 'BEGIN{print x/1000}'))-$(fmt $(awk -v x=$hi 'BEGIN{print x/1000}'))) | $per | $growth |"
done
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
sed 's/^/    /' "$TMP/fills"
cat "$TMP/probes.small" "$TMP/probes.large" 2>/dev/null | grep probes | sed 's/^/    /'
echo
echo "| look-up | 10: ns median (min-max) | $SCALE_SETS/$SCALE_THREADS: ns median (min-max) | ratio: median (min-max) |"
echo "|---|---|---|---|"
for l in $(awk '$2 == "small" { print $1 }' "$TMP/table.stats"); do
	set -- $(awk -v c="$l" '$1 == c && $2 == "small"' "$TMP/table.stats") x x x x x x
	a="$(fmt $3) ($(fmt $4)-$(fmt $5))"
	set -- $(awk -v c="$l" '$1 == c && $2 == "large"' "$TMP/table.stats") x x x x x x
	b="$(fmt $3) ($(fmt $4)-$(fmt $5))"
	set -- $(awk -v c="$l" '$1 == c && $2 == "ratio"' "$TMP/table.stats") x x x x x x
	echo "| $l | $a | $b | $(fmt $4)x ($(fmt $5)-$(fmt $6)) |"
done
echo
rm -f "/dev/shm/$CPUSETSHIM_TABLE.small" "/dev/shm/$CPUSETSHIM_TABLE.large"

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
