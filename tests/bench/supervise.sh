#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The supervisor's case of `make bench`: calls of bench_supervise (linked
# as cpuset-run is, statically where the build allows) natively under
# taskset and through `cpuset-run --supervise` (files mode), both on one
# CPU (the last of ours: the supervisor shares it, as in a set of one),
# interleaved, the order flipping every round; and in each round the floor
# of a supervised call, one seccomp user-notification round trip
# (bench_supervise floor: getppid answered at once by another process).
# Medians (min-max) of the rounds, the median of the per-round ratios,
# the targets, and the floor each target meets: native + one round trip.
#
# BENCH_QUICK=1: two short rounds, no verdict. BENCH_SV_PROGRAMS=1 adds the
# whole programs: a static program's start through cpuset-run and a Go
# build, each --no-supervise against --supervise.
set -u
B=${CPS_BUILDDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
S=$(cd "$(dirname "$0")/../.." && pwd)
BS=$B/tests/bench/bench_supervise
QUICK=0
case ${BENCH_QUICK:-} in 1 | yes | true) QUICK=1 ;; esac
ROUNDS=${BENCH_SV_ROUNDS:-9} N=${BENCH_SV_N:-4000}
[ $QUICK = 1 ] && ROUNDS=2 N=100
die() {
	echo "bench: FAIL: supervisor: $*" >&2
	exit 1
}
[ -x "$BS" ] || die "no $BS (make bench builds it)"
command -v taskset >/dev/null 2>&1 || die "no taskset (util-linux)"
T=$(mktemp -d "${TMPDIR:-/tmp}/cpusetshim-bench-sv.XXXXXX") || exit 1
CPUSETSHIM_TABLE="cpusetshim-bench-sv.$$"
export CPUSETSHIM_TABLE
unset CPUSETSHIM_SET CPUSETSHIM_RUN_SET LD_PRELOAD
trap 'rm -rf "$T" "/dev/shm/$CPUSETSHIM_TABLE" /dev/shm/"$CPUSETSHIM_TABLE".views.*' EXIT
trap 'exit 1' HUP INT TERM

# the last CPU we may use
CPU=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | sed 's/.*-//' | sort -n | tail -n 1)
"$B/cpuset" init --force >/dev/null || die "cpuset init"
SET=$("$B/cpuset" create --cpus "$CPU") || die "cpuset create --cpus $CPU"

# each line: ROUND SIDE OP NS
native() { taskset -c "$CPU" "$BS" "$N" >"$T/o" && sed "s/^/$1 native /" "$T/o"; }
supervised() { "$B/cpuset-run" --set "$SET" --supervise "$BS" "$N" >"$T/o" && sed "s/^/$1 supervised /" "$T/o"; }
for r in $(seq 1 "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then
		native "$r" && supervised "$r"
	else
		supervised "$r" && native "$r"
	fi || die "round $r: bench_supervise $N"
	taskset -c "$CPU" "$BS" floor "$N" >"$T/o" || die "round $r: bench_supervise floor"
	sed "s/^/$r floor /" "$T/o"
done >"$T/all" || exit 1

# stats SIDE OP: median min max of the rounds
stats() {
	awk -v s="$1" -v o="$2" '$2 == s && $3 == o { print $4 }' "$T/all" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)], v[1], v[NR]; else print "- - -" }'
}
# ratios OP: median min max of the per-round supervised / native
ratios() {
	awk -v o="$1" '$3 == o { v[$1 " " $2] = $4; r[$1] = 1 }
		END { for (k in r) if (v[k " native"] > 0) printf "%.2f\n", v[k " supervised"] / v[k " native"] }' \
		"$T/all" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[1], v[NR] }'
}
us() { awk -v v="$1" 'BEGIN { if (v == "-") print "-"; else printf "%.1f", v / 1000 }'; }

# the floor: the round trip the supervisor makes (synchronous wake-ups
# where the kernel has them, as the supervisor asks for them)
set -- $(stats floor notify_sync)
sync_med=$1
set -- $(stats floor notify)
async_med=$1
set -- $(stats floor getppid)
plain_med=$1
rt=$sync_med
case $rt in -1 | -) rt=$async_med ;; esac
rt=$(awk -v a="$rt" -v b="$plain_med" 'BEGIN { print a - b }')

echo "## The supervisor: calls supervised against native"
echo
echo "Command: \`make bench\` (section supervisor): \`bench_supervise $N\` under"
echo "\`taskset -c $CPU\` and through \`cpuset-run --set {$CPU} --supervise\` (files"
echo "mode), interleaved, $ROUNDS rounds; µs per call, median (min-max)."
echo "Floor: one user-notification round trip (\`bench_supervise floor\`),"
echo "$(us "$sync_med") µs with synchronous wake-ups, $(us "$async_med") µs without,"
echo "a plain \`getppid\` $(us "$plain_med") µs: a supervised call costs at least"
echo "its native work and $(us "$rt") µs."
echo
echo "| call | native | supervised | ratio: median (min-max) | target | floor: (native + round trip) / native | verdict |"
echo "|---|---|---|---|---|---|---|"
for c in getaffinity:10 setaffinity:- open_view:2 open_cpuinfo:2 open_stat:- open_other:3; do
	op=${c%%:*} tgt=${c#*:}
	set -- $(stats native "$op")
	nm=$1 nlo=$2 nhi=$3
	set -- $(stats supervised "$op")
	sm=$1 slo=$2 shi=$3
	set -- $(ratios "$op")
	rm_=$1 rlo=$2 rhi=$3
	fl=$(awk -v n="$nm" -v t="$rt" 'BEGIN { printf "%.1f", (n + t) / n }')
	if [ "$tgt" = - ] || [ $QUICK = 1 ]; then
		v=-
	else
		v=$(awk -v r="$rm_" -v g="$tgt" -v f="$fl" 'BEGIN {
			if (r <= g) print "met"
			else if (f > g) print "below the floor (" f "x)"
			else print "MISSED" }')
	fi
	tt=-
	[ "$tgt" != - ] && tt="<= ${tgt}x"
	echo "| $op | $(us "$nm") ($(us "$nlo")-$(us "$nhi")) | $(us "$sm") ($(us "$slo")-$(us "$shi")) | ${rm_}x (${rlo}-${rhi}) | $tt | ${fl}x | $v |"
done
echo
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"

[ "${BENCH_SV_PROGRAMS:-0}" = 1 ] || exit 0

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
starts() {
	_t0=$(date +%s%N)
	for _i in $(seq 1 200); do "$B/cpuset-run" --set "$SET" "$@" "$BS" start; done
	echo $((($(date +%s%N) - _t0) / 200000))
}
for r in $(seq 1 "$ROUNDS"); do
	echo "plain $(starts --no-supervise)"
	echo "sup $(starts --supervise)"
done >"$T/starts"
p=$(awk '$1 == "plain" { print $2 }' "$T/starts" | median)
s=$(awk '$1 == "sup" { print $2 }' "$T/starts" | median)
echo "## a static program's start through cpuset-run, us: --no-supervise=$p --supervise=$s ratio=$(echo "$s $p" | awk '{ printf "%.2f", $1 / $2 }')"

if command -v go >/dev/null 2>&1; then
	S2=$("$B/cpuset" create --cpus "$(taskset -pc $$ | sed 's/.*: //')") || die "cpuset create"
	cp "$S/tests/integration/prog_supervised.go" "$T/"
	gob() {
		rm -rf "$T/gocache"
		_t0=$(date +%s%N)
		(cd "$T" && GO111MODULE=off GOCACHE="$T/gocache" CGO_ENABLED=0 "$@" go build -o gp prog_supervised.go)
		echo $((($(date +%s%N) - _t0) / 1000000))
	}
	for r in $(seq 1 "$ROUNDS"); do
		echo "plain $(gob "$B/cpuset-run" --set "$S2" --no-supervise)"
		echo "sup $(gob "$B/cpuset-run" --set "$S2" --supervise)"
	done >"$T/go"
	p=$(awk '$1 == "plain" { print $2 }' "$T/go" | median)
	s=$(awk '$1 == "sup" { print $2 }' "$T/go" | median)
	echo "## go build from an empty cache in all our CPUs, ms: --no-supervise=$p --supervise=$s ratio=$(echo "$s $p" | awk '{ printf "%.2f", $1 / $2 }')"
fi
