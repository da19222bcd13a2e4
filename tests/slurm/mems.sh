#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The SPANK plugin's memory nodes on a private one-node Slurm cluster: each
# task's set gets the nodes Slurm gives it (--mem-bind=map_mem, mask_mem,
# rank: a list of nodes), or the nodes of its CPUs (nothing said, none,
# local: auto), each compared with the machine's nodes read outside
# (/sys); the task sees them renumbered from 0; a binding naming a node
# without memory fails the task with the reason. The forms of
# SLURM_MEM_BIND themselves are tests/check_membind's.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/lib.sh"
slurm_need
. "$(dirname "$0")/plugin.sh"

NCPU=$(getconf _NPROCESSORS_ONLN)
[ "$NCPU" -ge 2 ] || skip_all "needs 2 CPUs (this machine has $NCPU)"

# the machine's truth, read outside: the node of CPU C (node 0 without
# node directories: a kernel without NUMA has one node), the nodes with
# memory
node_of_cpu() {
	_n=$(ls -d /sys/devices/system/cpu/cpu"$1"/node[0-9]* 2>/dev/null | sed 's/.*node//' | head -n 1)
	echo "${_n:-0}"
}
machine_mems() {
	cat /sys/devices/system/node/has_memory 2>/dev/null || echo 0
}
# mems_of NAME: "MEMS FROM" of a set of $UT, from cpuset-inspect --json
mems_of() {
	"$CPUSET_INSPECT" --table "$UT" --json 2>/dev/null | /usr/bin/python3 -c '
import json, sys
for s in json.load(sys.stdin)["sets"]:
    if s["name"] == sys.argv[1]:
        print(s["mems"], s["mems_from"])' "$1"
}

# run_held N SRUN-ARGS...: srun the reporter with --hold and its view of
# SLURM_MEM_BIND and Mems_allowed_list, until N reporter lines are there
run_held() {
	_n=$1
	shift
	sl_held "$_n" ': task' --label "$@" sh -c 'echo "bind [$SLURM_MEM_BIND] mems $(sed -n "s/^Mems_allowed_list:[[:space:]]*//p" /proc/self/status)"; exec "$0" --hold "$1"' \
		"$REPORT" "$T/go"
}
line() { sed -n "s/^ *$1: //p" "$T/held.out" | grep "^$2"; }

# case DESC WANT-FROM SLURM-BIND-PATTERN SRUN-ARGS...: $NTASKS (2) tasks of one CPU;
# each task's set has the nodes WANT-FROM says ("auto": those of its CPU;
# "list N": node N), and the task sees them from 0
case_of() {
	_d=$1 _from=$2 _pat=$3
	shift 3
	_nt=${NTASKS:-2}
	run_held "$_nt" -n"$_nt" -c1 "$@" || { fail "$_d: the tasks ran" "$(cat "$T/held.err")"; return; }
	for t in $(seq 0 $((_nt - 1))); do
		l=$(line $t task)
		cpu=$(real_cpus "$(echo "$l" | sed -n 's/.* pid \([0-9]*\) .*/\1/p')")
		case $_from in
		auto) want="$(node_of_cpu "$cpu") auto" ;;
		list*) want="${_from#list } list" ;;
		esac
		expect_eq "$_d task $t (CPU $cpu): its set's nodes" "$(mems_of "$(set_of "$l")")" "$want"
		expect_match "$_d task $t: Slurm's SLURM_MEM_BIND" "$(line $t bind)" "^bind \[$_pat"
		expect_eq "$_d task $t: it sees its nodes from 0" "$(line $t bind | sed 's/.* mems //')" \
			"$(seq -s, 0 $(($(echo "${want% *}" | tr , '\n' | grep -c .) - 1)))"
	done
	release
	expect_eq "$_d: srun exit" "$held_rc" 0
	check_clean "$_d"
}

case_of "no --mem-bind" auto "\]"
case_of "--mem-bind=none" auto "quiet,none\]" --mem-bind=none
case_of "--mem-bind=local" auto "quiet,local\]" --mem-bind=local
first=$(machine_mems | sed 's/[-,].*//')
case_of "--mem-bind=map_mem:$first" "list $first" "quiet,map_mem:$first\]" --mem-bind=map_mem:"$first"
case_of "--mem-bind=mask_mem" "list $first" "quiet,mask_mem:" \
	--mem-bind=mask_mem:"$(/usr/bin/python3 -c "print(hex(1 << $first))")"
# rank: node local-id (Slurm fails a task whose node the machine lacks)
if [ "$first" = 0 ]; then
	NTASKS=1 case_of "--mem-bind=rank" "list 0" "quiet,rank\]" --mem-bind=rank
else
	skip "--mem-bind=rank" "node 0 holds no memory here"
fi

# a node without memory: the task fails, saying why
none=$(/usr/bin/python3 -c "
import sys
have=set()
for p in sys.argv[1].split(','):
    a,_,b=p.partition('-'); have |= set(range(int(a), int(b or a)+1))
print(next(n for n in range(1024) if n not in have))" "$(machine_mems)")
out=$(sl srun -n1 -c1 --mem-bind=map_mem:"$none" sh -c 'echo ran; echo "[$SLURM_MEM_BIND]"' 2>"$T/err")
if echo "$out" | grep -q "^\[quiet,map_mem:$none\]"; then
	fail "map_mem:$none (no memory there): the task does not run" "$out"
elif grep -q "cpusetshim: task 0: SLURM_MEM_BIND: node(s) $none hold no memory here" "$T/err" "$SL/slurmd.log"; then
	pass "map_mem:$none (no memory there): the task fails, the reason logged"
	expect_nomatch "map_mem:$none: the program did not run" "$out" "^ran"
else
	# Slurm itself refused the binding before any task started
	expect_nomatch "map_mem:$none: refused (by Slurm)" "$out" "^ran"
	note "Slurm refused map_mem:$none itself:" "$(cat "$T/err")"
fi
check_clean "map_mem:$none"

finish
