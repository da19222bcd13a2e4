#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The Slurm case of `make bench` (alone: `make bench-slurm`): `srun -n2
# true` on a one-node cluster whose plugstack.conf enables the cpusetshim
# SPANK plugin, against the same on an identical cluster without it. Both
# clusters run at once (private slurmctld and slurmd each, as the tests
# start them), and the two sides alternate, the order flipping every round,
# so that both see the same machine. Each round's figure is the mean of
# BENCH_SLURM_N sruns; the report gives medians, min-max and the median of
# the per-round ratios (target: at most 1.05x). Each srun starts on an idle
# node and is timed alone (from its start to its exit).
#
# Skipped (exit 0, with a note) without Slurm, without root (slurmd needs
# it) or without the plugin; BENCH_QUICK=1: two rounds, no verdict.
set -u
B=${CPS_BUILDDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
S=$(cd "$(dirname "$0")/.." && pwd)
QUICK=0
case ${BENCH_QUICK:-} in 1 | yes | true) QUICK=1 ;; esac
ROUNDS=${BENCH_SLURM_ROUNDS:-11} N=${BENCH_SLURM_N:-10}
[ $QUICK = 1 ] && ROUNDS=2 N=2
OUT=$B/tests/bench/bench_slurm.txt

T=$(mktemp -d "${TMPDIR:-/tmp}/cpusetshim-bench-slurm.XXXXXX") || exit 1
exit_hooks=:
at_exit() { exit_hooks="$1; $exit_hooks"; }
trap 'eval "$exit_hooks"; rm -rf "$T"' EXIT
trap 'exit 1' HUP INT TERM
# lib.sh's slurm_need exits 77 with the reason; here that is a note
(. "$S/slurm/lib.sh" && slurm_need) >"$T/need" 2>&1 || {
	echo "== srun -n2 true with and without the SPANK plugin: not run ($(cat "$T/need"))"
	exit 0
}
. "$S/slurm/lib.sh"
unset CPUSETSHIM_TABLE CPUSETSHIM_SET CPUSETSHIM_RUN_SET LD_PRELOAD
TBASE="cpusetshim-bench-slurm.$$"
at_exit "rm -f /dev/shm/$TBASE.*; rm -rf /dev/shm/$TBASE.*.views.*"

# two clusters, each in its own directory: "plugin" and "none"
start() {
	T=$T/$1
	mkdir -p "$T"
	# (slurm_start's own at_exit would stop the last cluster only)
	at_exit() { :; }
	slurm_start "$2" || exit 1
	at_exit() { exit_hooks="$1; $exit_hooks"; }
	eval "conf_$1=\$SLURM_CONF"
	# slurm_stop of this cluster at exit, whatever lib.sh's variables say then
	at_exit "SL=$SL slurm_ctld_pid= slurm_slurmd_pid= slurm_stop"
	SL= slurm_ctld_pid= slurm_slurmd_pid=
	T=${T%/*}
}
start plugin "required $B/slurm/.libs/cpusetshim.so table=$TBASE shim=$B/.libs/libcpusetshim.so"
start none ""
# each cluster's first job pays for loading what it needs: not counted
SLURM_CONF=$conf_plugin srun -n2 true && SLURM_CONF=$conf_none srun -n2 true || {
	echo "bench: FAIL: srun -n2 true does not run" >&2
	exit 1
}

# mean µs of N sruns on cluster $1 (configuration $2). Before each, the
# node is idle again: the job before has been released (which Slurm does
# after srun returned), so no srun waits in the queue for the one before.
run_n() {
	sum=0
	i=0
	while [ $i -lt $N ]; do
		k=0
		while [ "$(SLURM_CONF=$2 sinfo -h -o %T)" != idle ] && [ $k -lt 500 ]; do
			sleep 0.01
			k=$((k + 1))
		done
		t0=$(date +%s%N)
		SLURM_CONF=$2 srun -n2 true || return 1
		t1=$(date +%s%N)
		sum=$((sum + t1 - t0))
		i=$((i + 1))
	done
	echo $((sum / N / 1000))
}
: >"$T/data"
r=1
echo "== srun -n2 true with and without the SPANK plugin, $ROUNDS rounds of $N" >&2
while [ $r -le $ROUNDS ]; do
	order="none plugin"
	[ $((r % 2)) = 0 ] && order="plugin none"
	for m in $order; do
		v=$(eval run_n "$m" "\$conf_$m") || { echo "bench: FAIL: srun on $m" >&2; exit 1; }
		echo "$m $r $v" >>"$T/data"
	done
	printf '.' >&2
	r=$((r + 1))
done
echo >&2
awk -v quick=$QUICK -v rounds=$ROUNDS -v n=$N '
function med(a, k,   i, j, t) {
	for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
{ v[$1, $2] = $3 }
END {
	for (r = 1; r <= rounds; r++) { a[r] = v["none", r]; b[r] = v["plugin", r]; q[r] = b[r] / a[r] }
	lo_a = hi_a = a[1]; lo_b = hi_b = b[1]; lo_q = hi_q = q[1]
	for (r = 1; r <= rounds; r++) {
		if (a[r] < lo_a) lo_a = a[r]; if (a[r] > hi_a) hi_a = a[r]
		if (b[r] < lo_b) lo_b = b[r]; if (b[r] > hi_b) hi_b = b[r]
		if (q[r] < lo_q) lo_q = q[r]; if (q[r] > hi_q) hi_q = q[r]
	}
	mq = med(q, rounds)
	print "## Slurm: srun -n2 true with the SPANK plugin (ms per srun)"
	print ""
	print "Command: `make bench-slurm` (also the last part of `make bench`): two one-node clusters at"
	print "once, one with `required cpusetshim.so` in plugstack.conf, one with an empty plugstack.conf;"
	printf "`SLURM_CONF=... srun -n2 true`, each started on an idle node and timed alone; %d rounds of %d sruns\n", rounds, n
	print "per side (a round'"'"'s figure is their mean), the order flipping every round."
	print ""
	print "| cluster | ms: median (min-max) | ratio: median (min-max) | target | verdict |"
	print "|---|---|---|---|---|"
	printf "| no plugin | %.1f (%.1f-%.1f) | 1 | | |\n", med(a, rounds) / 1000, lo_a / 1000, hi_a / 1000
	printf "| cpusetshim.so | %.1f (%.1f-%.1f) | %.3fx (%.3f-%.3f) | <= 1.05x | %s |\n", med(b, rounds) / 1000, lo_b / 1000, hi_b / 1000, mq, lo_q, hi_q, quick ? "-" : (mq <= 1.05 ? "met" : "MISSED")
}' "$T/data" | tee "$OUT"
