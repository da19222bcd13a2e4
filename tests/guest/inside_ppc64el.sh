#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The checks run inside the POWER guest of tests/guest_ppc64el.sh
# (pseries, busybox, ppc64el's C library, the ppc64el build in $B, the
# programs in /p: static and dynamic builds of
# tests/integration/prog_supervised, a cat and lister, dynamic: the
# shim's reader). Prints TAP. Runs as root.
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

# power_cpuinfo SET: the kernel's /proc/cpuinfo restricted to SET (a
# CPU list): the blocks opened by "processor : P" of the set's CPUs,
# renumbered 0..k-1 in the set's order, the lines outside every block
# (POWER's trailer: timebase, platform, model, machine, MMU) as they are
power_cpuinfo() {
	expand "$1" | awk 'NR == FNR { v[$1] = NR - 1; next }
		/^processor[ \t]*:/ { split($0, f, ":"); p = f[2] + 0; inb = 1; keep = (p in v)
			if (keep) { sub(/:.*/, ": " v[p]); print }; next }
		inb && /^$/ { inb = 0; if (keep) print; next }
		inb { if (keep) print; next }
		{ print }' - /proc/cpuinfo
}

CPUSET=$B/cpuset CPUSET_RUN=$B/cpuset-run CPUSET_INSPECT=$B/cpuset-inspect
CPUSETSHIM_LIB=$B/.libs/libcpusetshim.so
export CPUSETSHIM_LIB
SYS=/sys/devices/system/cpu NODE=/sys/devices/system/node
note "guest: $(uname -m), CPUs $(cat $SYS/online), nodes $(cat $NODE/online), with CPUs $(cat $NODE/has_cpu), with memory $(cat $NODE/has_memory), cpu0's threads $(cat $SYS/cpu0/topology/thread_siblings_list)"
eq "the kernel is ppc64le's" "$(uname -m)" ppc64le
grep -q '^platform[[:space:]]*: pSeries' /proc/cpuinfo && ok "the machine is a pseries (cpuinfo's platform)" ||
	nok "the machine is a pseries (cpuinfo's platform)" "$(tail -n 6 /proc/cpuinfo)"
ncpu=$(expand "$(cat $SYS/online)" | wc -l)
[ "$ncpu" -ge 4 ] && [ "$(expand "$(cat $NODE/has_cpu)" | wc -l)" -ge 2 ] ||
	{ echo "1..0 # SKIP not the guest: want 4 CPUs and 2 nodes with CPUs"; exit 0; }
# the guest's cpuinfo is POWER's: a block a CPU, numbered as the online list
eq "cpuinfo: a block a CPU, numbered as the kernel's CPUs" \
	"$(sed -n 's/^processor[[:space:]]*: //p' /proc/cpuinfo | compress)" "$(cat $SYS/online)"
eq "cpuinfo: each block names a POWER CPU" "$(grep -c '^cpu[[:space:]]*: POWER' /proc/cpuinfo)" "$ncpu"

# ---- the tools ----
"$CPUSET" init >/tmp/out 2>&1
eq "cpuset init" "$?" 0
cnodes=$(expand "$(cat $NODE/has_cpu)")
nl=$(echo "$cnodes" | tail -n 1) n0=$(echo "$cnodes" | head -n 1)
set_node=$(cat $NODE/node$nl/cpulist)
last=$(expand "$(cat $SYS/online)" | tail -n 1)
# a core's threads (the last CPU's), every other CPU, and a set across
# cores and nodes (node n0's last CPU and node nl's first two)
set_core=$(cat $SYS/cpu$last/topology/thread_siblings_list)
set_alt=$(expand "$(cat $SYS/online)" | awk 'NR % 2 == 1' | compress)
set_cross=$({ expand "$(cat $NODE/node$n0/cpulist)" | tail -n 1; expand "$set_node" | head -n 2; } |
	sort -n | compress)
note "sets: node $nl {$set_node} with its memory, a core's threads {$set_core}, every other CPU {$set_alt}, across nodes {$set_cross}"
id_node=$("$CPUSET" create --cpus "$set_node" --mems "$nl" --name power-node 2>/tmp/err)
eq "cpuset create --cpus $set_node --mems $nl" "$?" 0
"$CPUSET_INSPECT" --tree >/tmp/out 2>&1
eq "cpuset-inspect --tree" "$?" 0
grep -q power-node /tmp/out && ok "cpuset-inspect --tree shows the set" ||
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
	ne "$W: without the set, the static program sees the machine" \
		"$(echo $(/p/static counts))" "$k $k $k $vc"
	# POWER's cpuinfo, whole, by the shim and by the supervisor
	power_cpuinfo "$S" >/tmp/want
	"$@" /p/cat /proc/cpuinfo >/tmp/got 2>&1
	cmp -s /tmp/got /tmp/want && ok "$W: POWER's cpuinfo by the shim is the kernel's, restricted" ||
		nok "$W: POWER's cpuinfo by the shim is the kernel's, restricted" "got:" "$(cat /tmp/got)" "want:" "$(cat /tmp/want)"
	"$@" cat /proc/cpuinfo >/tmp/got 2>&1
	cmp -s /tmp/got /tmp/want && ok "$W: POWER's cpuinfo by the supervisor is the kernel's, restricted" ||
		nok "$W: POWER's cpuinfo by the supervisor is the kernel's, restricted" "got:" "$(cat /tmp/got)" "want:" "$(cat /tmp/want)"
	# the topology views, by the shim (a dynamic cat) and by the
	# supervisor (busybox's cat, static), against the kernel's files:
	# every file of the set's CPUs read by one program (a line each)
	: >/tmp/tnames
	: >/tmp/twant
	v=0
	for p in $(expand "$S"); do
		d=$SYS/cpu$p/topology
		for f in core_id physical_package_id thread_siblings_list core_siblings_list \
			core_cpus_list package_cpus_list; do
			[ -r "$d/$f" ] || continue
			case $f in
			*_list) virt "$S" "$(cat "$d/$f")" ;;
			*) cat "$d/$f" ;;
			esac >>/tmp/twant
			echo "$SYS/cpu$v/topology/$f" >>/tmp/tnames
		done
		v=$((v + 1))
	done
	"$@" /p/cat $(cat /tmp/tnames) >/tmp/tgot 2>&1
	bad=$(paste -d'|' /tmp/tnames /tmp/tgot /tmp/twant | awk -F'|' '$2 != $3 { printf " %s=[%s]want[%s]", $1, $2, $3 }')
	"$@" cat $(cat /tmp/tnames) >/tmp/tgot 2>&1
	badsv=$(paste -d'|' /tmp/tnames /tmp/tgot /tmp/twant | awk -F'|' '$2 != $3 { printf " %s=[%s]want[%s]", $1, $2, $3 }')
	ne "$W: there are topology files to compare" "$(wc -l </tmp/tnames)" 0
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
set_checks "$set_core" "a core's threads {$set_core}" "$CPUSET_RUN" --cpus "$set_core" --
set_checks "$set_alt" "every other CPU {$set_alt}" "$CPUSET_RUN" --cpus "$set_alt" --
set_checks "$set_cross" "across nodes {$set_cross}" "$CPUSET_RUN" --cpus "$set_cross" --

# ---- the pass-through path: no system call added ----
# bench_syscount counts a program's system calls (ptrace); the calls of
# bench_calls --count CASE N, N = 101 less N = 1, per call: under the
# shim as natively
calls=$B/tests/bench/bench_calls count=$B/tests/bench/bench_syscount
for c in syscall_getppid open_close_devnull stat_devnull fopen_fclose_devnull; do
	t() { "$@" "$count" "$calls" --count "$c" "$N" 2>&1 >/dev/null | sed -n 's/^syscalls total=//p'; }
	N=1 a1=$(t env) N=101 a2=$(t env)
	N=1 s1=$(t "$CPUSET_RUN" --cpus "$last" --) N=101 s2=$(t "$CPUSET_RUN" --cpus "$last" --)
	# (rounded: a process's one-time calls may differ by one between
	# two runs; a call added per call adds 100)
	nat=$(((a2 - a1 + 50) / 100)) shim=$(((s2 - s1 + 50) / 100))
	note "system calls per $c: native $nat, under the shim $shim (totals at N=1: $a1, $s1; at N=101: $a2, $s2)"
	eq "$c: the shim adds no system call per call" "$shim" "$nat"
done

echo "1..$n"
[ "$failed" -eq 0 ]
