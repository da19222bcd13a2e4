#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The checks run inside the arm64 guest of tests/guest_arm64.sh (busybox,
# arm64's C library, the arm64 build in $B, the programs in /p: static,
# dynamic and Go builds of tests/integration/prog_supervised, a cat and
# lister, dynamic: the shim's reader).
# Prints TAP. $SUITES: the unit suites (paths in $B), of which it runs
# check_mask and check_cpulist. Runs as root.
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
note "guest: $(uname -m), CPUs $(cat $SYS/online), nodes $(cat $NODE/online), with CPUs $(cat $NODE/has_cpu), with memory $(cat $NODE/has_memory)"
eq "the kernel is arm64's" "$(uname -m)" aarch64
ncpu=$(expand "$(cat $SYS/online)" | wc -l)
[ "$ncpu" -ge 2 ] && [ "$(expand "$(cat $NODE/has_cpu)" | wc -l)" -ge 2 ] ||
	{ echo "1..0 # SKIP not the guest: want 2 nodes with CPUs"; exit 0; }

# ---- the tools ----
"$CPUSET" init >/tmp/out 2>&1
eq "cpuset init" "$?" 0
cnodes=$(expand "$(cat $NODE/has_cpu)")
nl=$(echo "$cnodes" | tail -n 1) n0=$(echo "$cnodes" | head -n 1)
set_node=$(cat $NODE/node$nl/cpulist)
set_one=$(expand "$(cat $SYS/online)" | tail -n 1)
set_cross=$(printf '%s\n%s\n' "$(expand "$(cat $NODE/node$n0/cpulist)" | tail -n 1)" \
	"$(expand "$set_node" | head -n 1)" | sort -n | compress)
note "sets: node $nl {$set_node} with its memory, one CPU {$set_one}, one CPU of each node {$set_cross}"
id_node=$("$CPUSET" create --cpus "$set_node" --mems "$nl" --name arm-node 2>/tmp/err)
eq "cpuset create --cpus $set_node --mems $nl" "$?" 0
"$CPUSET_INSPECT" --tree >/tmp/out 2>&1
eq "cpuset-inspect --tree" "$?" 0
grep -q arm-node /tmp/out && ok "cpuset-inspect --tree shows the set" ||
	nok "cpuset-inspect --tree shows the set" "$(cat /tmp/out)"
"$CPUSET_INSPECT" --check >/tmp/out 2>&1
eq "cpuset-inspect --check" "$?" 0

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
	eq "$W: a Go program's counts (supervisor)" "$(echo $("$@" /p/go counts))" "$k $k $vc"
	eq "$W: its files" "$(echo $("$@" /p/go files))" "$k $k $vl $vl"
	ne "$W: without the set, the static program sees the machine" \
		"$(echo $(/p/static counts))" "$k $k $k $vc"
	# the topology views, by the shim (a dynamic cat) and by the
	# supervisor (busybox's cat, static), against the kernel's files
	bad= badsv=
	v=0
	for p in $(expand "$S"); do
		d=$SYS/cpu$p/topology
		for f in core_id physical_package_id cluster_id thread_siblings_list core_siblings_list \
			package_cpus_list cluster_cpus_list; do
			[ -r "$d/$f" ] || continue
			case $f in
			*_list) want=$(virt "$S" "$(cat "$d/$f")") ;;
			*) want=$(cat "$d/$f") ;;
			esac
			got=$("$@" /p/cat "$SYS/cpu$v/topology/$f" 2>&1)
			[ "$got" = "$want" ] || bad="$bad cpu$v/$f=[$got]want[$want]"
			got=$("$@" cat "$SYS/cpu$v/topology/$f" 2>&1)
			[ "$got" = "$want" ] || badsv="$badsv cpu$v/$f=[$got]want[$want]"
		done
		v=$((v + 1))
	done
	eq "$W: the topology files by the shim are the kernel's, restricted" "$bad" ""
	eq "$W: the topology files by the supervisor are the kernel's, restricted" "$badsv" ""
	# (the shim's: the supervisor leaves listings to the kernel)
	eq "$W: /sys/devices/system/cpu's listing" \
		"$("$@" /p/cat -d $SYS | grep '^cpu[0-9]' | sort | tr '\n' ' ')" \
		"$(seq 0 $((k - 1)) | sed 's/^/cpu/' | sort | tr '\n' ' ')"
}
set_checks "$set_node" "node $nl's set {$set_node}" "$CPUSET_RUN" --set "$id_node" --
# its memory node: the set's node 0, with all its CPUs
eq "node $nl's set: node/online" "$("$CPUSET_RUN" --set "$id_node" -- /p/cat $NODE/online)" 0
eq "node $nl's set: node0/cpulist" "$("$CPUSET_RUN" --set "$id_node" -- /p/cat $NODE/node0/cpulist)" \
	"$(seq 0 $(($(expand "$set_node" | wc -l) - 1)) | compress)"
eq "node $nl's set: Mems_allowed_list" \
	"$("$CPUSET_RUN" --set "$id_node" -- /p/cat /proc/self/status | grep Mems_allowed_list | tr -d ' \t')" \
	"Mems_allowed_list:0"
eq "node $nl's set: Mems_allowed_list by the supervisor" \
	"$("$CPUSET_RUN" --set "$id_node" -- cat /proc/self/status | grep Mems_allowed_list | tr -d ' \t')" \
	"Mems_allowed_list:0"
set_checks "$set_one" "one CPU {$set_one}" "$CPUSET_RUN" --cpus "$set_one" --
set_checks "$set_cross" "a CPU of each node {$set_cross}" "$CPUSET_RUN" --cpus "$set_cross" --

# ---- the pass-through path: no system call added ----
# bench_syscount counts a program's system calls (ptrace); the calls of
# bench_calls --count CASE N, N = 101 less N = 1, per call: under the
# shim as natively
calls=$B/tests/bench/bench_calls count=$B/tests/bench/bench_syscount
for c in syscall_getppid open_close_devnull stat_devnull fopen_fclose_devnull; do
	t() { "$@" "$count" "$calls" --count "$c" "$N" 2>&1 >/dev/null | sed -n 's/^syscalls total=//p'; }
	N=1 a1=$(t env) N=101 a2=$(t env)
	N=1 s1=$(t "$CPUSET_RUN" --cpus "$set_one" --) N=101 s2=$(t "$CPUSET_RUN" --cpus "$set_one" --)
	# (rounded: a process's one-time calls, a futex or a sweep, may
	# differ by one between two runs; a call added per call adds 100)
	nat=$(((a2 - a1 + 50) / 100)) shim=$(((s2 - s1 + 50) / 100))
	note "system calls per $c: native $nat, under the shim $shim (totals at N=1: $a1, $s1; at N=101: $a2, $s2)"
	eq "$c: the shim adds no system call per call" "$shim" "$nat"
done

# ---- the unit suites (last: the slowest part under TCG) ----
# the mask and the CPU lists only: the suites that read the captured
# machines (check_views, check_vsys) print nothing for over 300 s in a
# TCG guest on a loaded host, past the guest's budget. A test's own
# timeout (Check's, 4 s) times 30: an emulated CPU on a loaded host runs
# a test many times slower (check_mask's every-7th-bit test passed 4 s)
for s in $SUITES; do
	case $s in */check_mask | */check_cpulist) ;; *) continue ;; esac
	if (cd "$B" && CK_TAP_LOG_FILE_NAME=- CK_FORK=yes CK_TIMEOUT_MULTIPLIER=30 \
		CPS_FIXTURES=$B/tests/fixtures/unpacked \
		"./$s" >/tmp/suite.out 2>&1); then
		ok "unit suite $s ($(grep -c '^ok ' /tmp/suite.out) checks)"
	else
		nok "unit suite $s" "$(grep -v '^ok ' /tmp/suite.out | tail -n 20)"
	fi
done

echo "1..$n"
[ "$failed" -eq 0 ]
