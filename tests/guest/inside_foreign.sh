# SPDX-License-Identifier: BSD-3-Clause
# What the checks inside the guests of other architectures share
# (tests/guest/inside_arm64.sh, tests/guest/inside_ppc64el.sh; their
# drivers copy this file next to them as /inside_foreign.sh): TAP, CPU
# lists, the tools, the programs in a set, the node views, the
# pass-through path's system calls. Sourced, never run; busybox only.
# The inside script defines, before it calls set_checks:
#     set_programs RUN...  its programs' checks beyond the dynamic and the
#                          static one (set: $S, $W, $k, $vl, $vc)
#     set_views RUN...     its views' checks (cpuinfo, topology)
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() {
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n - $1"
	shift
	for _l in "$@"; do echo "$_l" | sed 's/^/#   /'; done
}
# eq DESC GOT WANT
eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else nok "$1" "got:  [$2]" "want: [$3]"; fi
}
ne() {
	if [ "$2" != "$3" ]; then ok "$1"; else nok "$1" "got [$2], which it must not be"; fi
}
note() { echo "# $*"; }

# expand LIST: a kernel CPU list's numbers, one a line
expand() {
	echo "$1" | tr ',' '\n' | awk -F- 'NF == 1 && $1 != "" { print $1 } NF == 2 { for (i = $1; i <= $2; i++) print i }'
}
# compress: numbers on stdin (sorted) as a kernel CPU list
compress() {
	awk 'BEGIN { s = -1 } { if (s < 0) { s = $1; e = $1 } else if ($1 == e + 1) e = $1;
		else { o = o (o == "" ? "" : ",") (s == e ? s : s "-" e); s = $1; e = $1 } }
		END { if (s >= 0) o = o (o == "" ? "" : ",") (s == e ? s : s "-" e); print o }'
}
# virt SET LIST: LIST's physical CPUs within SET, as the set's virtual list
virt() {
	expand "$1" >/tmp/set.$$
	expand "$2" | awk 'NR == FNR { v[$1] = NR - 1; next } ($1 in v) { print v[$1] }' /tmp/set.$$ - |
		sort -n | compress
	rm -f /tmp/set.$$
}

CPUSET=$B/cpuset CPUSET_RUN=$B/cpuset-run CPUSET_INSPECT=$B/cpuset-inspect
CPUSETSHIM_LIB=$B/.libs/libcpusetshim.so
export CPUSETSHIM_LIB
SYS=/sys/devices/system/cpu NODE=/sys/devices/system/node
# (what the guest is, for the inside script's first note)
guest="$(uname -m), CPUs $(cat $SYS/online), nodes $(cat $NODE/online), with CPUs $(cat $NODE/has_cpu), with memory $(cat $NODE/has_memory)"

# ---- the tools ----
# tools_init: cpuset init; $n0 and $nl, the first and the last node with
# CPUs, $set_node the last one's CPUs
tools_init() {
	"$CPUSET" init >/tmp/out 2>&1
	eq "cpuset init" "$?" 0
	cnodes=$(expand "$(cat $NODE/has_cpu)")
	nl=$(echo "$cnodes" | tail -n 1) n0=$(echo "$cnodes" | head -n 1)
	set_node=$(cat $NODE/node$nl/cpulist)
}
# tools_set NAME: the node's set created ($id_node), named NAME, and seen
tools_set() {
	id_node=$("$CPUSET" create --cpus "$set_node" --mems "$nl" --name "$1" 2>/tmp/err)
	eq "cpuset create --cpus $set_node --mems $nl" "$?" 0
	"$CPUSET_INSPECT" --tree >/tmp/out 2>&1
	eq "cpuset-inspect --tree" "$?" 0
	grep -q "$1" /tmp/out && ok "cpuset-inspect --tree shows the set" ||
		nok "cpuset-inspect --tree shows the set" "$(cat /tmp/out)"
	"$CPUSET_INSPECT" --check >/tmp/out 2>&1
	eq "cpuset-inspect --check" "$?" 0
}

# ---- the programs in each set ----
# set_checks PHYS WHAT RUN...: RUN runs a program in the set
set_checks() {
	S=$1 W=$2
	shift 2
	k=$(expand "$S" | wc -l)
	vl=$(seq 0 $((k - 1)) | compress) vc=$(seq -s, 0 $((k - 1)))
	# (each program's answer on one line: echo joins its words)
	eq "$W: a dynamic program's counts (shim)" "$(echo $("$@" /p/dynamic counts))" "$k $k $k $vc"
	eq "$W: its files (cpuinfo, stat, status, online)" "$(echo $("$@" /p/dynamic files))" "$k $k $vl $vl"
	eq "$W: a static program's counts (supervisor)" "$(echo $("$@" /p/static counts))" "$k $k $k $vc"
	eq "$W: its files" "$(echo $("$@" /p/static files))" "$k $k $vl $vl"
	set_programs "$@"
	ne "$W: without the set, the static program sees the machine" \
		"$(echo $(/p/static counts))" "$k $k $k $vc"
	set_views "$@"
	# (the shim's: the supervisor leaves listings to the kernel)
	eq "$W: /sys/devices/system/cpu's listing" \
		"$("$@" /p/cat -d $SYS | grep '^cpu[0-9]' | sort | tr '\n' ' ')" \
		"$(seq 0 $((k - 1)) | sed 's/^/cpu/' | sort | tr '\n' ' ')"
}
# node_checks: in the node's set, its memory node is the set's node 0,
# with all its CPUs
node_checks() {
	eq "node $nl's set: node/online" "$("$CPUSET_RUN" --set "$id_node" -- /p/cat $NODE/online)" 0
	eq "node $nl's set: node0/cpulist" "$("$CPUSET_RUN" --set "$id_node" -- /p/cat $NODE/node0/cpulist)" \
		"$(seq 0 $(($(expand "$set_node" | wc -l) - 1)) | compress)"
	eq "node $nl's set: Mems_allowed_list" \
		"$("$CPUSET_RUN" --set "$id_node" -- /p/cat /proc/self/status | grep Mems_allowed_list | tr -d ' \t')" \
		"Mems_allowed_list:0"
	eq "node $nl's set: Mems_allowed_list by the supervisor" \
		"$("$CPUSET_RUN" --set "$id_node" -- cat /proc/self/status | grep Mems_allowed_list | tr -d ' \t')" \
		"Mems_allowed_list:0"
}

# ---- the pass-through path: no system call added ----
# passthrough_checks CPU: bench_syscount counts a program's system calls
# (ptrace); the calls of bench_calls --count CASE N, N = 101 less N = 1,
# per call: under the shim (in a set of CPU) as natively
passthrough_checks() {
	calls=$B/tests/bench/bench_calls count=$B/tests/bench/bench_syscount
	for c in syscall_getppid open_close_devnull stat_devnull fopen_fclose_devnull; do
		N=1 a1=$(syscalls env) N=101 a2=$(syscalls env)
		N=1 s1=$(syscalls "$CPUSET_RUN" --cpus "$1" --) N=101 s2=$(syscalls "$CPUSET_RUN" --cpus "$1" --)
		# (rounded: a process's one-time calls, a futex or a sweep, may
		# differ by one between two runs; a call added per call adds 100)
		nat=$(((a2 - a1 + 50) / 100)) shim=$(((s2 - s1 + 50) / 100))
		note "system calls per $c: native $nat, under the shim $shim (totals at N=1: $a1, $s1; at N=101: $a2, $s2)"
		eq "$c: the shim adds no system call per call" "$shim" "$nat"
	done
}
# syscalls RUN...: the system calls of case $c, $N times, run by RUN
syscalls() { "$@" "$count" "$calls" --count "$c" "$N" 2>&1 >/dev/null | sed -n 's/^syscalls total=//p'; }

# finish_tap: the plan; the status, 0 if every check passed
finish_tap() {
	echo "1..$n"
	[ "$failed" -eq 0 ]
}
