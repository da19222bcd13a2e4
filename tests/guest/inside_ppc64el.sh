#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The checks run inside the POWER guest of tests/guest_ppc64el.sh
# (pseries, busybox, ppc64el's C library, the ppc64el build in $B, the
# programs in /p: static and dynamic builds of
# tests/integration/prog_supervised, a cat and lister, dynamic: the
# shim's reader), with what the guests of other architectures share
# (tests/guest/inside_foreign.sh). Prints TAP. Runs as root.
. "$(dirname "$0")/inside_foreign.sh"

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

note "guest: $guest, cpu0's threads $(cat $SYS/cpu0/topology/thread_siblings_list)"
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

tools_init
last=$(expand "$(cat $SYS/online)" | tail -n 1)
# a core's threads (the last CPU's), every other CPU, and a set across
# cores and nodes (node n0's last CPU and node nl's first two)
set_core=$(cat $SYS/cpu$last/topology/thread_siblings_list)
set_alt=$(expand "$(cat $SYS/online)" | awk 'NR % 2 == 1' | compress)
set_cross=$({ expand "$(cat $NODE/node$n0/cpulist)" | tail -n 1; expand "$set_node" | head -n 2; } |
	sort -n | compress)
note "sets: node $nl {$set_node} with its memory, a core's threads {$set_core}, every other CPU {$set_alt}, across nodes {$set_cross}"
tools_set power-node

# no program beyond the dynamic and the static one
set_programs() { :; }
set_views() {
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
}
set_checks "$set_node" "node $nl's set {$set_node}" "$CPUSET_RUN" --set "$id_node" --
node_checks
set_checks "$set_core" "a core's threads {$set_core}" "$CPUSET_RUN" --cpus "$set_core" --
set_checks "$set_alt" "every other CPU {$set_alt}" "$CPUSET_RUN" --cpus "$set_alt" --
set_checks "$set_cross" "across nodes {$set_cross}" "$CPUSET_RUN" --cpus "$set_cross" --

passthrough_checks "$last"

finish_tap
