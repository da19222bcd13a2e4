#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Concurrency: several processes creating, allocating, attaching,
# destroying and exiting at once for a bounded time; cpuset-inspect --check
# passes throughout and afterwards, and no long-lived member is lost.
. "$(dirname "$0")/common.sh"
need "$PYTHON3" python3
SECONDS_LIMIT=${STRESS_SECONDS:-12}

"$CPUSET" init --force --max-sets 256 --max-procs 512 --max-threads 512 >/dev/null
"$CPUSET" create --cpus 0-1 --name keep >/dev/null
keepers=""
for i in 1 2 3 4 5; do
	sleep 600 &
	keepers="$keepers $!"
done
at_exit 'touch $T/stop; kill $keepers 2>/dev/null'
"$CPUSET" attach keep $keepers

end=$(($(date +%s) + SECONDS_LIMIT))
worker() {
	w=$1
	i=0
	while [ "$(date +%s)" -lt "$end" ]; do
		i=$((i + 1))
		name="w$w-$i"
		"$CPUSET" create --cpus 0-1 --name "$name" >/dev/null 2>&1 || continue
		"$CPUSET" alloc "$name" $((i % 2)) >/dev/null 2>&1
		sleep 0.05 &
		p=$!
		"$CPUSET" attach "$name" $p >/dev/null 2>&1
		"$CPUSET" create --parent "$name" --autoclean --cpus $((i % 2)) --name "$name.c" >/dev/null 2>&1
		"$CPUSET" alloc "$name" 0-1 >/dev/null 2>&1
		wait $p
		"$CPUSET" destroy "$name.c" >/dev/null 2>&1
		# the member is dead: destroy sweeps it first, so this succeeds
		"$CPUSET" destroy "$name" >/dev/null 2>&1 || echo "destroy $name: $?" >>"$T/errors.$w"
	done
	echo "$i" >"$T/rounds.$w"
}
checker() {
	n=0
	while [ "$(date +%s)" -lt "$end" ]; do
		if ! "$CPUSET_INSPECT" --check >"$T/check.out" 2>&1; then
			cat "$T/check.out" >>"$T/check.failures"
		fi
		n=$((n + 1))
	done
	echo "$n" >"$T/checks"
}
worker 1 & w1=$!
worker 2 & w2=$!
worker 3 & w3=$!
checker & c1=$!
wait $w1 $w2 $w3 $c1

expect_eq "no check failed during the run" "$(cat "$T/check.failures" 2>/dev/null)" ""
expect_eq "no destroy refused" "$(cat "$T"/errors.* 2>/dev/null)" ""
rounds=$(($(cat "$T/rounds.1") + $(cat "$T/rounds.2") + $(cat "$T/rounds.3")))
note "stress: $rounds rounds of create/alloc/attach/destroy in ${SECONDS_LIMIT}s, $(cat "$T/checks") checks"
if [ "$rounds" -ge 6 ]; then pass "6 rounds or more ($rounds)"; else fail "6 rounds or more" "only $rounds"; fi
"$CPUSET" sweep >/dev/null
check "cpuset-inspect --check afterwards" "$CPUSET_INSPECT" --check
expect_eq "only the root and keep remain" "$("$CPUSET" list | awk 'NR>1 {print $3}' | tr '\n' ' ')" "root keep "
expect_eq "no member lost" "$("$CPUSET" --json show keep | "$PYTHON3" -c 'import json,sys; print(len(json.load(sys.stdin)["members"]))')" 5
for p in $keepers; do
	expect_eq "keeper $p still in keep" "$("$CPUSET" which $p)" "2 keep"
	expect_eq "keeper $p confined" "$(real_cpus $p)" "0-1"
done
finish
