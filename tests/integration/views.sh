#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The virtual files under the shim, in {1} and {0,1}, as cat and grep
# read them and parsed outside the shim: /proc/cpuinfo (the set's blocks,
# renumbered), /proc/stat (the set's lines, the total their sum),
# CPUSETSHIM_VIEW_CPUINFO=0 and CPUSETSHIM_VIEW_STAT=0, Cpus_allowed_list
# in /proc/self/status, /sys/devices/system/cpu/online; then every view
# checked by a C program, also under a seccomp filter that refuses
# memfd_create (and flock). Kept views: kept_views.sh; rewind: rewind.sh.
. "$(dirname "$0")/../common.sh"
need timeout coreutils
need grep grep
PROG_AFF="$B/tests/integration/prog_affinity"
[ -x "$PROG_AFF" ] || die "no $PROG_AFF (make check builds it)"
two_sets

# Relays the ok:/FAIL: lines of a checking program into our counters.
relay()
{
	_pfx=$1 _file=$2
	while IFS= read -r _l; do
		case $_l in
		"ok: "*) pass "$_pfx: ${_l#ok: }" ;;
		"FAIL: "*) fail "$_pfx: ${_l#FAIL: }" ;;
		*) note "  | $_l" ;;
		esac
	done <"$_file"
}

views() {
	# /proc and /sys as cat reads them, parsed outside the shim
	in_set "$s" cat /proc/cpuinfo >"$T/cpuinfo"
	expect_eq "$t: /proc/cpuinfo processor numbers" \
		"$(awk -F': *' '/^processor/ { printf "%s ", $2 }' "$T/cpuinfo")" \
		"$(seq_join 0 $((n - 1)) ' ') "
	if grep -q '^apicid' /proc/cpuinfo; then
		# the blocks kept must be those of the set's physical CPUs
		want_apic=$(outside awk -F': *' -v phys="$phys" '
			BEGIN { k = split(phys, p, " "); for (i = 1; i <= k; i++) inset[p[i]] = 1 }
			/^processor/ { cpu = $2 }
			/^apicid/ && (cpu in inset) { printf "%s ", $2 }' /proc/cpuinfo)
		expect_eq "$t: /proc/cpuinfo apicids are the set's CPUs'" \
			"$(awk -F': *' '/^apicid/ { printf "%s ", $2 }' "$T/cpuinfo")" "$want_apic"
	fi
	in_set "$s" cat /proc/stat >"$T/stat"
	expect_eq "$t: /proc/stat cpuN lines" \
		"$(awk '/^cpu[0-9]/ { printf "%s ", $1 }' "$T/stat")" \
		"$(for i in $(seq 0 $((n - 1))); do printf 'cpu%s ' "$i"; done)"
	expect_eq "$t: /proc/stat total lines" "$(grep -c '^cpu ' "$T/stat")" 1
	expect_eq "$t: /proc/stat total is the sum of the set's lines" "$(awk '
		/^cpu / { for (i = 2; i <= NF; i++) tot[i] = $i; nf = NF }
		/^cpu[0-9]/ { for (i = 2; i <= NF; i++) sum[i] += $i }
		END {
			for (i = 2; i <= nf; i++)
				if (tot[i] != sum[i])
					printf "field %d: %s != %s ", i, tot[i], sum[i]
		}' \
		"$T/stat")" ""
	expect_eq "$t: /proc/stat other lines untouched" \
		"$(grep -c '^intr ' "$T/stat") $(grep -c '^ctxt ' "$T/stat")" "1 1"
	expect_eq "$t: CPUSETSHIM_VIEW_CPUINFO=0 leaves /proc/cpuinfo real" \
		"$(with_san env CPUSETSHIM_VIEW_CPUINFO=0 timeout 120 "$CPUSET_RUN" --set "$s" \
			grep -c '^processor' /proc/cpuinfo)" "$(grep -c '^processor' /proc/cpuinfo)"
	expect_eq "$t: CPUSETSHIM_VIEW_STAT=0 leaves /proc/stat real" \
		"$(with_san env CPUSETSHIM_VIEW_STAT=0 timeout 120 "$CPUSET_RUN" --set "$s" \
			grep -c '^cpu[0-9]' /proc/stat)" "$(grep -c '^cpu[0-9]' /proc/stat)"
	expect_eq "$t: Cpus_allowed_list in /proc/self/status" \
		"$(in_set "$s" grep Cpus_allowed_list /proc/self/status | awk '{ print $2 }')" \
		"$vrange"
	expect_eq "$t: /sys/devices/system/cpu/online" \
		"$(in_set "$s" cat /sys/devices/system/cpu/online)" "$vrange"
	expect_eq "$t: /sys/devices/system/cpu/present" \
		"$(in_set "$s" cat /sys/devices/system/cpu/present)" "$vrange"
	expect_eq "$t: /sys/devices/system/cpu/possible (up to the set's highest CPU)" \
		"$(in_set "$s" cat /sys/devices/system/cpu/possible)" "$wrange"
	off=
	[ "$w" -gt "$n" ] && off=$n && [ "$w" -gt $((n + 1)) ] && off="$n-$((w - 1))"
	expect_eq "$t: /sys/devices/system/cpu/offline (possible, not online)" \
		"$(in_set "$s" cat /sys/devices/system/cpu/offline)" "$off"
	expect_eq "$t: /sys/devices/system/cpu/kernel_max" \
		"$(in_set "$s" cat /sys/devices/system/cpu/kernel_max)" "$((w - 1))"
	expect_eq "$t: the cpuN directories are the online CPUs'" \
		"$(in_set "$s" ls /sys/devices/system/cpu | grep '^cpu[0-9]' | sort | tr '\n' ' ')" \
		"$(for c in $(seq 0 $((n - 1))); do echo cpu$c; done | sort | tr '\n' ' ')"

	# Under a seccomp filter that refuses memfd_create (and flock, so
	# no pool file can be claimed), or kills the process that calls it:
	# every view still delivered, virtual, made at each open too (no kept
	# views, no pool)
	for _env in "" CPUSETSHIM_KEEP_VIEWS=0 CPUSETSHIM_VIEW_POOL=0; do
		for _fl in "" flock kill; do
			case $_fl in
			kill) _what="memfd_create kills" ;;
			flock) _what="memfd_create and flock refused" ;;
			*) _what="memfd_create refused" ;;
			esac
			with_san env $_env timeout 120 "$CPUSET_RUN" --set "$s" \
				"$PROG_AFF" --filtered "$n" "$list" $_fl >"$T/aff.out" 2>&1
			_st=$?
			if [ $_st = 77 ]; then
				skip "$t: views, $_what ${_env:-}" \
					"no seccomp filter here: $(cat "$T/aff.out")"
				continue
			fi
			expect_eq "$t: views, $_what ${_env:-}: exit status" "$_st" 0
			relay "$t: views, seccomp ${_fl:-memfd} ${_env:-}" "$T/aff.out"
		done
	done
}
each_set views

# A /proc/cpuinfo of a format the view cannot read (no CPU's section, no
# line naming a CPU): programs read the file as it is, as without the
# shim, never an error. Root: a private mount namespace with such a file
# bound over this machine's.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	printf 'machine\t: unknown\nsomething : 1\n\nmore\n' >"$T/odd-cpuinfo"
	# a kept cpuinfo view made less than a second ago (the checks above)
	# serves as it is (doc/shim.md): none, so the view is made from the
	# file bound here
	rm -f "/dev/shm/$CPUSETSHIM_TABLE.views.$(id -u)"/cpuinfo-*
	for _env in "" CPUSETSHIM_KEEP_VIEWS=0; do
		_got=$(unshare -m sh -c "mount --bind '$T/odd-cpuinfo' /proc/cpuinfo &&
			exec env $(san_env) $_env timeout 120 '$CPUSET_RUN' --set '$S1' cat /proc/cpuinfo" 2>&1)
		expect_eq "a cpuinfo the view cannot read is the file as it is ${_env:-(kept views)}" \
			"$_got" "$(cat "$T/odd-cpuinfo")"
	done
else
	skip "a cpuinfo the view cannot read is the file as it is" "not root, or no mount namespace here"
fi
finish
