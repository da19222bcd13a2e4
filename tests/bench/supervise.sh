#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The supervisor's costs: per call (bench_supervise, built -static here)
# natively (taskset to the same CPUs) and under cpuset-run's supervisor, in
# set {1} (the supervisor shares the program's CPU) and {0,1}; then whole
# programs: a static program's start (cpuset-run --no-supervise against
# --supervise, 200 starts) and a Go build (go build of
# tests/integration/prog_supervised.go from an empty cache). Medians of
# ROUNDS (default 5). Run by hand: sh tests/bench/supervise.sh
. "$(dirname "$0")/../common.sh"

need gcc gcc
need taskset util-linux
ROUNDS=${ROUNDS:-5}
N=${N:-20000}
gcc -O2 -static -o "$T/bs" "$SRC/tests/bench/bench_supervise.c" || skip_all "gcc -static fails"
"$CPUSET" init >/dev/null || die "cpuset init"
S1=$("$CPUSET" create --cpus 1) && S2=$("$CPUSET" create --cpus 0-1) || die "sets"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for spec in "$S1 1" "$S2 0,1"; do
	set -- $spec
	for r in $(seq 1 "$ROUNDS"); do
		outside taskset -c "$2" "$T/bs" "$N" | sed 's/^/native /'
		"$CPUSET_RUN" --set "$1" --supervise "$T/bs" "$N" | sed 's/^/supervised /'
	done >"$T/calls.$1"
	echo "## per call, set {$2}, ns: median of $ROUNDS rounds of $N"
	for op in getaffinity setaffinity open_view open_stat open_other; do
		nat=$(awk -v o=$op '$1 == "native" && $2 == o { print $3 }' "$T/calls.$1" | median)
		sup=$(awk -v o=$op '$1 == "supervised" && $2 == o { print $3 }' "$T/calls.$1" | median)
		echo "$op native=$nat supervised=$sup ratio=$(echo "$sup $nat" | awk '{ printf "%.1f", $1 / $2 }')"
	done
done

starts() {
	_t0=$(date +%s%N)
	for _i in $(seq 1 200); do "$CPUSET_RUN" --set "$S1" "$@" "$T/bs" start; done
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
	cp "$SRC/tests/integration/prog_supervised.go" "$T/"
	gob() {
		rm -rf "$T/gocache"
		_t0=$(date +%s%N)
		(cd "$T" && GO111MODULE=off GOCACHE="$T/gocache" CGO_ENABLED=0 "$@" go build -o gp prog_supervised.go)
		echo $((($(date +%s%N) - _t0) / 1000000))
	}
	for r in $(seq 1 "$ROUNDS"); do
		echo "plain $(gob "$CPUSET_RUN" --set "$S2" --no-supervise)"
		echo "sup $(gob "$CPUSET_RUN" --set "$S2" --supervise)"
	done >"$T/go"
	p=$(awk '$1 == "plain" { print $2 }' "$T/go" | median)
	s=$(awk '$1 == "sup" { print $2 }' "$T/go" | median)
	echo "## go build from an empty cache in {0,1}, ms: --no-supervise=$p --supervise=$s ratio=$(echo "$s $p" | awk '{ printf "%.2f", $1 / $2 }')"
fi
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
