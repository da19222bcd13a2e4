#!/bin/sh
# Concurrency: several processes creating, allocating, attaching,
# destroying and exiting at once for a bounded time; cpuset-inspect --check
# passes throughout and afterwards, and no long-lived member is lost.
. "$(dirname "$0")/common.sh"
SECONDS_LIMIT=${STRESS_SECONDS:-12}

"$CPUSET" init --force --max-sets 256 --max-procs 512 --max-threads 512 >/dev/null
"$CPUSET" create --cpus 0-1 --name keep >/dev/null
keepers=""
for i in 1 2 3 4 5; do
	sleep 600 &
	keepers="$keepers $!"
done
cleanup_hook='touch $TMP/stop; kill $keepers 2>/dev/null'
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
		"$CPUSET" destroy "$name" >/dev/null 2>&1 || echo "destroy $name: $?" >>"$TMP/errors.$w"
	done
	echo "$i" >"$TMP/rounds.$w"
}
checker() {
	n=0
	while [ "$(date +%s)" -lt "$end" ]; do
		if ! "$INSPECT" --check >"$TMP/check.out" 2>&1; then
			cat "$TMP/check.out" >>"$TMP/check.failures"
		fi
		n=$((n + 1))
	done
	echo "$n" >"$TMP/checks"
}
worker 1 & w1=$!
worker 2 & w2=$!
worker 3 & w3=$!
checker & c1=$!
wait $w1 $w2 $w3 $c1

expect "no check failed during the run" "$(cat "$TMP/check.failures" 2>/dev/null)" ""
expect "no destroy refused" "$(cat "$TMP"/errors.* 2>/dev/null)" ""
rounds=$(($(cat "$TMP/rounds.1") + $(cat "$TMP/rounds.2") + $(cat "$TMP/rounds.3")))
echo "stress: $rounds rounds of create/alloc/attach/destroy in ${SECONDS_LIMIT}s, $(cat "$TMP/checks") checks"
[ "$rounds" -ge 6 ] && ok || bad "too few rounds: $rounds"
"$CPUSET" sweep >/dev/null
"$INSPECT" --check >"$TMP/out" 2>&1 && ok || bad "check afterwards: $(cat "$TMP/out")"
expect "only the root and keep remain" "$("$CPUSET" list | awk 'NR>1 {print $3}' | tr '\n' ' ')" "root keep "
expect "no member lost" "$("$CPUSET" --json show keep | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["members"]))')" 5
for p in $keepers; do
	expect "keeper $p still in keep" "$("$CPUSET" which $p)" "2 keep"
	expect "keeper $p confined" "$(real_cpus $p)" "0-1"
done
finish
