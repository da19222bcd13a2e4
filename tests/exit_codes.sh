#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The exit codes of cpuset, cpuset-inspect and cpuset-run: README's table
# (## Exit codes) and each man page's EXIT STATUS list the same codes, and
# every code of every tool is provoked here (a code with no way to provoke
# it below fails, as does a way to provoke a code the table lacks).
. "$(dirname "$0")/common.sh"
need taskset util-linux
POKE=$B/tests/tablepoke

# ---- the table and the pages agree ----
# README: "| code | cpuset | cpuset-inspect | cpuset-run |" rows
awk '/^## Exit codes/ { on = 1; next } /^## / { on = 0 }
	on && /^\| [0-9]+ \|/ { print }' "$SRC/README.md" >"$T/table"
[ -s "$T/table" ] || die "no exit code table in README.md (## Exit codes)"
readme_codes() { # COLUMN (2: cpuset, 3: cpuset-inspect, 4: cpuset-run)
	awk -F'|' -v c="$1" '{ v = $(c + 1); gsub(/^ +| +$/, "", v)
		if (v !~ /^-( |$)/) { n = $2; gsub(/ /, "", n); print n } }' "$T/table" | sort -n | tr '\n' ' '
}
# a man page's EXIT STATUS: the ".B N" after each ".TP"
man_codes() {
	awk '/^\.SH EXIT STATUS/ { on = 1; next } /^\.SH / { on = 0 }
		on && tp && /^\.B [0-9]+$/ { print $2 } { tp = on && /^\.TP/ }' "$SRC/man/$1" |
		sort -n | tr '\n' ' '
}
col=2
for tool in cpuset cpuset-inspect cpuset-run; do
	r=$(readme_codes $col)
	expect_ne "README's table has codes for $tool" "$r" ""
	expect_eq "$tool(1)'s EXIT STATUS lists README's codes" "$(man_codes $tool.1)" "$r"
	echo "$tool $r" >>"$T/codes"
	col=$((col + 1))
done

# ---- each code provoked ----
"$CPUSET" init --force >/dev/null || die "cpuset init failed"
"$CPUSET" create --cpus 0 --name one >/dev/null || die "cpuset create --cpus 0 failed"
ncpu=$("$CPUSET" --json show root | $PYTHON3 -c 'import json,sys; from itertools import count
s = json.load(sys.stdin)["set"]["cpus"]; n = 0
for p in s.split(","):
	a, _, b = p.partition("-"); n = max(n, int(b or a) + 1)
print(n)')
beyond=$((ncpu + 3))

provoke() { # TOOL CODE: one or more checks that TOOL exits CODE
	case "$1 $2" in
	"cpuset 0")
		expect_status "cpuset 0: list" 0 "$CPUSET" list ;;
	"cpuset 1")
		expect_status "cpuset 1: destroy the root" 1 "$CPUSET" destroy root
		expect_status "cpuset 1: a CPU the machine lacks" 1 "$CPUSET" create --cpus $beyond
		expect_stderr "cpuset 1: it names the machine's CPUs" "not present on this machine (its CPUs: $("$CPUSET" --json show root | $PYTHON3 -c 'import json,sys; print(json.load(sys.stdin)["set"]["cpus"])'))"
		# inside the one-CPU set "one", CPU 1 is beyond its own CPUs
		expect_status "cpuset 1: inside a set, a CPU beyond it" 1 in_set one "$CPUSET" create --cpus 1
		expect_stderr "cpuset 1: it names the set's CPUs" "CPU 1 is not one of this process's CPUs (0,"
		expect_status "cpuset 1: an unknown set" 1 "$CPUSET" show nosuch ;;
	"cpuset 2")
		expect_status "cpuset 2: an unknown command" 2 "$CPUSET" frobnicate
		expect_status "cpuset 2: an all-digit set name" 2 "$CPUSET" create --cpus 0 --name 123
		expect_stderr "cpuset 2: it says what a name is" "not all digits"
		expect_status "cpuset 2: an unknown --table-owner user" 2 "$CPUSET" --table-owner no-such-user-x list ;;
	"cpuset 3")
		expect_status "cpuset 3: no such table (sweep)" 3 "$CPUSET" --table "$CPUSETSHIM_TABLE.none" sweep ;;
	"cpuset 4")
		# a per-CPU kernel thread: the kernel lets no one change its
		# affinity (root passes the set rules)
		k=$(pgrep -x 'ksoftirqd/0|migration/0|cpuhp/0' | head -n 1)
		if [ "$(id -u)" != 0 ] || [ -z "$k" ]; then
			skip "cpuset 4: the kernel refuses to move a process" \
				"needs root and a per-CPU kernel thread in sight"
			return
		fi
		expect_status "cpuset 4: the kernel refuses to move a process" 4 "$CPUSET" attach one "$k"
		expect_stderr "cpuset 4: it is named" "$k ("
		"$CPUSET" destroy one >/dev/null 2>&1
		"$CPUSET" init --force >/dev/null && "$CPUSET" create --cpus 0 --name one >/dev/null ;;
	"cpuset 5")
		expect_status "cpuset 5: a location beyond the machine" 5 "$CPUSET" cpus package:$beyond
		expect_stderr "cpuset 5: it names the packages there are" "this machine has packages 0" ;;
	"cpuset 6")
		expect_status "cpuset 6: a count beyond the machine" 6 "$CPUSET" create --cores $beyond ;;
	"cpuset-inspect 0")
		expect_status "cpuset-inspect 0: --check" 0 "$CPUSET_INSPECT" --check ;;
	"cpuset-inspect 1")
		"$CPUSET" create --cpus 0 --name two >/dev/null
		id=$("$CPUSET" show two | sed -n 's/^id: *//p')
		# set two its own parent, written raw
		"$POKE" "$CPUSETSHIM_TABLE" set "set:$id+4" u32 "$id" >/dev/null
		expect_status "cpuset-inspect 1: --check finds a violation" 1 "$CPUSET_INSPECT" --check
		"$CPUSET" init --force >/dev/null && "$CPUSET" create --cpus 0 --name one >/dev/null ;;
	"cpuset-inspect 2")
		expect_status "cpuset-inspect 2: an unknown option" 2 "$CPUSET_INSPECT" --frobnicate ;;
	"cpuset-inspect 3")
		expect_status "cpuset-inspect 3: no such table" 3 "$CPUSET_INSPECT" --table "$CPUSETSHIM_TABLE.none" ;;
	"cpuset-run 1")
		expect_status "cpuset-run 1: an unknown set" 1 with_san "$CPUSET_RUN" --set nosuch true
		expect_status "cpuset-run 1: a CPU the machine lacks" 1 with_san "$CPUSET_RUN" --cpus $beyond true
		expect_stderr "cpuset-run 1: it names the machine's CPUs" "not present on this machine (its CPUs:"
		expect_status "cpuset-run 1: inside a set, a CPU beyond it" 1 in_set one "$CPUSET_RUN" --cpus 1 true
		expect_stderr "cpuset-run 1: it names the set's CPUs" "CPU 1 is not one of this process's CPUs (0," ;;
	"cpuset-run 123")
		expect_status "cpuset-run 123: a count beyond the machine" 123 with_san "$CPUSET_RUN" --cores $beyond true ;;
	"cpuset-run 124")
		expect_status "cpuset-run 124: a location beyond the machine" 124 with_san "$CPUSET_RUN" --cpus core:$beyond true ;;
	"cpuset-run 125")
		expect_status "cpuset-run 125: an unknown option" 125 with_san "$CPUSET_RUN" --frobnicate true
		expect_status "cpuset-run 125: an all-digit set name" 125 with_san "$CPUSET_RUN" --cpus 0 --name 123 true
		expect_stderr "cpuset-run 125: it says what a name is" "not all digits"
		expect_status "cpuset-run 125: an unknown --table-owner user" 125 \
			with_san "$CPUSET_RUN" --table-owner no-such-user-x --set one true ;;
	"cpuset-run 126")
		expect_status "cpuset-run 126: not executable" 126 with_san "$CPUSET_RUN" --set one /etc/passwd ;;
	"cpuset-run 127")
		expect_status "cpuset-run 127: not found" 127 with_san "$CPUSET_RUN" --set one no-such-program-x ;;
	*)
		fail "$1 exits $2: README's table has the row, this test no way to provoke it" ;;
	esac
}
while read -r tool codes; do
	for code in $codes; do
		provoke "$tool" "$code"
	done
done <"$T/codes"
# cpuset-run's own status is the program's
expect_status "cpuset-run: the program's status" 7 with_san "$CPUSET_RUN" --set one sh -c 'exit 7'

# ---- --table-owner: a user name or a uid, in every tool ----
me=$(id -un)
for tool in "$CPUSET list" "$CPUSET_INSPECT --check" "$CPUSET_RUN --set one true"; do
	expect_status "$(basename "${tool%% *}") --table-owner $me (a name)" 0 \
		with_san ${tool%% *} --table-owner "$me" ${tool#* }
	expect_status "$(basename "${tool%% *}") --table-owner $(id -u) (a uid)" 0 \
		with_san ${tool%% *} --table-owner "$(id -u)" ${tool#* }
done
check "the table is consistent" "$CPUSET_INSPECT" --check
finish
