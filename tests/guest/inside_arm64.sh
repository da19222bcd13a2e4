#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The checks run inside the arm64 guest of tests/guest_arm64.sh (busybox,
# arm64's C library, the arm64 build in $B, the programs in /p: static,
# dynamic and Go builds of tests/integration/prog_supervised, a cat and
# lister, dynamic: the shim's reader), with what the guests of other
# architectures share (tests/guest/inside_foreign.sh).
# Prints TAP. $SUITES: the unit suites (paths in $B), of which it runs
# check_mask and check_cpulist. Runs as root.
. "$(dirname "$0")/inside_foreign.sh"

note "guest: $guest"
eq "the kernel is arm64's" "$(uname -m)" aarch64
ncpu=$(expand "$(cat $SYS/online)" | wc -l)
[ "$ncpu" -ge 2 ] && [ "$(expand "$(cat $NODE/has_cpu)" | wc -l)" -ge 2 ] ||
	{ echo "1..0 # SKIP not the guest: want 2 nodes with CPUs"; exit 0; }

tools_init
set_one=$(expand "$(cat $SYS/online)" | tail -n 1)
set_cross=$(printf '%s\n%s\n' "$(expand "$(cat $NODE/node$n0/cpulist)" | tail -n 1)" \
	"$(expand "$set_node" | head -n 1)" | sort -n | compress)
note "sets: node $nl {$set_node} with its memory, one CPU {$set_one}, one CPU of each node {$set_cross}"
tools_set arm-node

# the Go program, under the supervisor
set_programs() {
	eq "$W: a Go program's counts (supervisor)" "$(echo $("$@" /p/go counts))" "$k $k $vc"
	eq "$W: its files" "$(echo $("$@" /p/go files))" "$k $k $vl $vl"
}
# the topology views, by the shim (a dynamic cat) and by the supervisor
# (busybox's cat, static), against the kernel's files
set_views() {
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
}
set_checks "$set_node" "node $nl's set {$set_node}" "$CPUSET_RUN" --set "$id_node" --
node_checks
set_checks "$set_one" "one CPU {$set_one}" "$CPUSET_RUN" --cpus "$set_one" --
set_checks "$set_cross" "a CPU of each node {$set_cross}" "$CPUSET_RUN" --cpus "$set_cross" --

passthrough_checks "$set_one"

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

finish_tap
