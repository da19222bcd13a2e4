#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The kept views' names hold everything a view is made of: a view kept
# for one machine, set or node list is never served for another. Through
# the test root, against ONE table whose views directory keeps what each
# run made, every answer (tests/topo/answers.py: the CPU directory's
# ranges and listings, the nodes' lists, listings and maps, the first
# and last CPU's topology and cache lists, cpuinfo; and lscpu -e) must be
# what a fresh table answers for the same machine, CPUs and nodes:
#   - sets that differ only in their nodes, one after the other;
#   - two machines put at the same path, one after the other;
#   - a random sequence of (machine, place, CPUs, nodes), seeded
#     (KEPT_KEYS_SEED, default 1) and bounded in time (KEPT_KEYS_SECONDS,
#     30; KEPT_KEYS_STEPS, 400, at most).
# A kept view serves for a second after it was made: on a busy machine
# the next run may come later, and get views made again under the same
# name. So every kept view a run writes is noted with its contents, and
# a name that ever holds two contents is a name given to two views.
. "$(dirname "$0")/common.sh"
PY=$PYTHON3
need "$PY" python3
need lscpu util-linux
[ -d "${CPS_FIXTURES:-}" ] || die "no unpacked fixtures in CPS_FIXTURES='${CPS_FIXTURES:-}'"
"$CPUSET" init >/dev/null || die "cpuset init"
SEED=${KEPT_KEYS_SEED:-1}
SECONDS_MAX=${KEPT_KEYS_SECONDS:-30}
STEPS=${KEPT_KEYS_STEPS:-400}
ANS=$SRC/tests/topo/answers.py
FRESH=$CPUSETSHIM_TABLE.fresh
VDIR=/dev/shm/$CPUSETSHIM_TABLE.views.$(id -u)
: >"$T/names"
at_exit 'rm -rf "/dev/shm/$FRESH" "/dev/shm/$FRESH.views."*'

# answers TABLE ROOT CPUS NODES: what a program in the set reads ("-":
# no CPUSETSHIM_TEST_MEMS, the machine's nodes as they are)
answers() {
	env CPUSETSHIM_TABLE="$1" $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_TEST_ROOT="$2" \
		CPUSETSHIM_TEST_CPUS="$3" $([ "$4" = - ] || echo "CPUSETSHIM_TEST_MEMS=$4") \
		sh -c '"$1" "$2"; echo "python exit $?"; lscpu --sysroot "$3" -e; echo "lscpu exit $?"' \
		- "$PY" "$ANS" "$2" 2>&1
}
# place MACHINE PLACE: the root of MACHINE (a directory of fixtures) at
# PLACE ("own": its own path; "shared": linked at $T/m, in place of
# whatever was there); the root in $R
there=
place() {
	R=$CPS_FIXTURES/$1
	[ "$2" = shared ] || return 0
	if [ "$there" != "$1" ]; then
		rm -rf "$T/m" && cp -al "$R" "$T/m" || die "cannot link $R at $T/m"
		there=$1
	fi
	R=$T/m
}
# batch FILE: each line MACHINE PLACE CPUS NODES; the one table answers
# them one after the other (so that the views it keeps for one are
# recent, at most a second old, when the next is asked), then a fresh
# table each; one check per line. Returns the lines that differ.
batch() {
	_i=0
	while read -r _m _p _c _n; do
		_i=$((_i + 1))
		place "$_m" "$_p"
		touch "$T/mark"
		answers "$CPUSETSHIM_TABLE" "$R" "$_c" "$_n" >"$T/kept.$_i"
		# the kept views this run wrote: NAME CRC SIZE, and for whom
		find "$VDIR" -maxdepth 1 -type f \( -name 'sys-*' -o -name 'cpuinfo-*' -o -name 'range-*' \) \
			-newer "$T/mark" -exec cksum {} + |
			awk -v w="$_m:$_c:$_n" '{ print $3, $1, $2, w }' >>"$T/names"
	done <"$1"
	# a name is one view: never two contents (whatever the time a kept
	# view serves, which hides a name given to two views on a busy
	# machine)
	_two=$(awk '{ c = $2 " " $3; if (!($1 in first)) { first[$1] = c; who[$1] = $4 }
		else if (first[$1] != c && !($1 in said)) { said[$1] = 1; print $1 ": " who[$1] " and " $4 } }' "$T/names" | head -n 5)
	expect_eq "kept views named once for one content, up to here" "$_two" ""
	_i=0 _bad=0
	while read -r _m _p _c _n; do
		_i=$((_i + 1))
		place "$_m" "$_p"
		rm -rf "/dev/shm/$FRESH" "/dev/shm/$FRESH.views."*
		CPUSETSHIM_TABLE=$FRESH "$CPUSET" init >/dev/null || die "cpuset init of a fresh table"
		answers "$FRESH" "$R" "$_c" "$_n" >"$T/fresh"
		_what="$_m ($_p) CPUs {$_c} nodes {$_n}"
		if ! cmp -s "$T/kept.$_i" "$T/fresh"; then
			fail "$_what: the one table's answers are a fresh table's" \
				"$(diff "$T/fresh" "$T/kept.$_i" | head -n 20)"
			_bad=$((_bad + 1))
		elif ! grep -q '^python exit 0$' "$T/fresh"; then
			fail "$_what: answers.py failed" "$(tail -n 5 "$T/fresh")"
			_bad=$((_bad + 1))
		else
			pass "$_what: the answers of a fresh table"
		fi
	done <"$1"
	return $_bad
}

# ---- sets that differ only in their nodes ----
M=48amd64-4d2n6c-sparse
[ -d "$CPS_FIXTURES/$M" ] || die "no $CPS_FIXTURES/$M"
# the machine's first four nodes (those of CPUs 0-23): the same CPUs with
# them renumbered, with the machine's own numbers, and other node lists
nodes=$(ls "$CPS_FIXTURES/$M/sys/devices/system/node" | sed -n 's/^node\([0-9][0-9]*\)$/\1/p' |
	sort -n | head -n 4 | paste -sd, -)
: >"$T/b"
for N in "$nodes" - "${nodes%%,*}" "$nodes" "${nodes#*,}" -; do
	echo "$M own 0-23 $N" >>"$T/b"
done
batch "$T/b"
grep -q '^lscpu exit 0$' "$T/kept.1" && ! grep -q 'Assertion' "$T/kept.1"
expect_eq "lscpu -e in CPUs 0-23, nodes {$nodes}: runs" "$?" 0

# ---- two machines, one after the other at the same path ----
A=64amd64-4s2n4ca2co B=32amd64-4s2n4c-cgroup
[ -d "$CPS_FIXTURES/$A" ] && [ -d "$CPS_FIXTURES/$B" ] || die "no $A or $B"
printf '%s shared 0-7 -\n' $A $B $A $B >"$T/b"
batch "$T/b"

# ---- a random sequence ----
# each line: MACHINE PLACE CPUS NODES (PLACE own: its own path; shared:
# linked at $T/m, replacing whatever was there)
"$PY" - "$CPS_FIXTURES" "$SEED" "$STEPS" >"$T/plan" <<'EOF' || die "no plan"
import os, random, sys
root, seed, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(seed)
def ids(d, pre):
    try:
        return sorted(int(e[len(pre):]) for e in os.listdir(d) if e.startswith(pre) and e[len(pre):].isdigit())
    except OSError:
        return []
machines = []
for m in sorted(os.listdir(root)):
    cpus = ids(os.path.join(root, m, "sys/devices/system/cpu"), "cpu")
    # offline CPUs lack a topology directory: the set takes online ones
    cpus = [c for c in cpus if os.path.isdir(os.path.join(root, m, "sys/devices/system/cpu/cpu%d/topology" % c))]
    if cpus:
        machines.append((m, cpus, ids(os.path.join(root, m, "sys/devices/system/node"), "node")))
def fmt(vs):
    return ",".join(map(str, sorted(vs)))
for _ in range(steps):
    m, cpus, nodes = rnd.choice(machines)
    if rnd.random() < 0.5:
        a = rnd.randrange(len(cpus))
        s = cpus[a:a + rnd.randint(1, 8)]
    else:
        s = rnd.sample(cpus, rnd.randint(1, min(6, len(cpus))))
    n = "-" if not nodes or rnd.random() < 0.3 else fmt(rnd.sample(nodes, rnd.randint(1, min(4, len(nodes)))))
    print(m, "shared" if rnd.random() < 0.5 else "own", fmt(s), n)
EOF
note "random sequence: KEPT_KEYS_SEED=$SEED, at most $STEPS steps or $SECONDS_MAX s"
start=$(date +%s) done=0 failed=0
# in batches of four, each a line of the plan
while [ $(($(date +%s) - start)) -lt "$SECONDS_MAX" ] && [ "$done" -lt "$STEPS" ] && [ "$failed" -lt 5 ]; do
	sed -n "$((done + 1)),$((done + 4))p" "$T/plan" >"$T/b"
	[ -s "$T/b" ] || break
	batch "$T/b"
	failed=$((failed + $?))
	done=$((done + $(wc -l <"$T/b")))
done
note "random sequence: $done steps in $(($(date +%s) - start)) s, $failed differing"
finish
