#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The caller's own numbers: inside a set, cpuset, cpuset-run and
# cpuset-inspect take and show CPUs as the caller sees them (its set's
# CPUs as 0..n-1), --physical the machine's; outside any set the two are
# the same. As in a Slurm task bound to one CPU: CPU 0 is the task's CPU.
. "$(dirname "$0")/common.sh"
need taskset util-linux
need "$PYTHON3" python3

cpus=$(outside taskset -cp $$ | sed 's/.*: //')
A=$(echo "$cpus" | tr ',' '\n' | sed 's/-.*//' | head -n 1)
Z=$(echo "$cpus" | tr ',' '\n' | sed 's/.*-//' | tail -n 1)
[ "$A" != "$Z" ] || skip_all "needs two CPUs this process may run on (it has $cpus)"
expect_status "cpuset init" 0 "$CPUSET" init
ONE=$("$CPUSET" create --cpus "$Z" --name own-one) || die "create own-one"
TWO=$("$CPUSET" create --cpus "$A,$Z" --name own-two) || die "create own-two"
note "CPUs $A and $Z: set {$Z} is $ONE, set {$A,$Z} is $TWO"
jf() { "$PYTHON3" -c 'import json, sys
d = json.load(sys.stdin)
for k in sys.argv[1].split("."):
    d = d[int(k)] if isinstance(d, list) else d[k]
print(d)' "$1"; }

note "---- outside any set: the machine's numbers ----"
expect_eq "outside: list shows {$Z} as $Z" \
	"$("$CPUSET" list | awk -v id="$ONE" '$1 == id { print $NF }')" "$Z"
expect_eq "outside: --physical changes nothing" "$("$CPUSET" --physical list)" "$("$CPUSET" list)"
expect_eq "outside: cpuset-inspect's own_cpus are its cpus" \
	"$("$CPUSET_INSPECT" --json | "$PYTHON3" -c 'import json, sys
print(all(s["own_cpus"] == s["cpus"] for s in json.load(sys.stdin)["sets"]))')" True

note "---- inside set {$Z}: its CPU is CPU 0 ----"
expect_eq "inside {$Z}: list shows its set as 0" \
	"$(in_set own-one "$CPUSET" list | awk -v id="$ONE" '$1 == id { print $NF }')" 0
expect_eq "inside {$Z}: list shows the root as 0 and the machine's $A" \
	"$(in_set own-one "$CPUSET" list | awk '$1 == 1 { print $NF }')" "0+machine:$A"
expect_eq "inside {$Z}: --physical list shows $Z" \
	"$(in_set own-one "$CPUSET" --physical list | awk -v id="$ONE" '$1 == id { print $NF }')" "$Z"
expect_eq "inside {$Z}: free is 0" "$(in_set own-one "$CPUSET" free)" 0
expect_eq "inside {$Z}: show --json has both numbers" \
	"$(in_set own-one "$CPUSET" --json show own-one | jf set.cpus) $(in_set own-one "$CPUSET" --json show own-one | jf set.physical_cpus)" \
	"0 $Z"
sub=$(in_set own-one "$CPUSET" create --cpus 0 --name own-sub)
expect_eq "inside {$Z}: create --cpus 0 makes a set of the machine's CPU $Z" \
	"$("$CPUSET" --json show own-sub | jf set.cpus)" "$Z"
expect_status "inside {$Z}: create --cpus 1 is refused (1, as a CPU the machine lacks)" 1 \
	in_set own-one "$CPUSET" create --cpus 1
expect_stderr "naming the caller's CPUs" "CPU 1 is not one of this process's CPUs (0, those of its set $ONE"
expect_status "inside {$Z}: --physical create --cpus $Z" 0 \
	in_set own-one "$CPUSET" --physical create --cpus "$Z" --name own-phys
expect_status "inside {$Z}: --physical create --cpus $A is refused by the rules" 1 \
	in_set own-one "$CPUSET" --physical create --cpus "$A"
expect_status "inside {$Z}: alloc own-sub 0" 0 in_set own-one "$CPUSET" alloc own-sub 0
expect_eq "inside {$Z}: cpuset-run --cpus 0 runs on the machine's CPU $Z" \
	"$(in_set own-one "$CPUSET_RUN" --cpus 0 "$CPUSET" --physical --json which | jf set.cpus)" "$Z"
expect_status "inside {$Z}: cpuset-run --cpus 1 is refused (1: the set refused)" 1 \
	in_set own-one "$CPUSET_RUN" --cpus 1 true
expect_stderr "naming the caller's CPUs" "not one of this process's CPUs"
expect_eq "inside {$Z}: cpuset-run --physical --cpus $Z runs there" \
	"$(in_set own-one "$CPUSET_RUN" --physical --cpus "$Z" "$CPUSET" --physical --json which | jf set.cpus)" "$Z"
expect_status "cpuset-run --physical without --cpus is bad usage (125)" 125 \
	"$CPUSET_RUN" --physical true

note "---- inside set {$A,$Z}: 0 is $A, 1 is $Z ----"
in_set own-two "$CPUSET" create --cpus 1 --name own-two-b >/dev/null
expect_eq "inside {$A,$Z}: create --cpus 1 is the machine's $Z" \
	"$("$CPUSET" --json show own-two-b | jf set.cpus)" "$Z"
expect_eq "inside {$A,$Z}: show own-two-b says 1" \
	"$(in_set own-two "$CPUSET" --json show own-two-b | jf set.cpus)" 1
expect_eq "inside {$A,$Z}: cpuset-inspect shows both (cpus, own_cpus)" \
	"$(in_set own-two "$CPUSET_INSPECT" --json | "$PYTHON3" -c 'import json, sys
for s in json.load(sys.stdin)["sets"]:
    if s["name"] == "own-two-b":
        print(s["cpus"], s["own_cpus"])')" "$Z 1"
expect_match "inside: cpuset-inspect's text says which set the numbers are of" \
	"$(in_set own-two "$CPUSET_INSPECT")" "this process is in set $TWO"
expect_status "cpuset-inspect --check after everything" 0 "$CPUSET_INSPECT" --check

note "---- a strict set {$Z} of its own table: its strict child's CPU is its 0 ----"
ST=$CPUSETSHIM_TABLE.strict
MAINT=$CPUSETSHIM_TABLE
CPUSETSHIM_TABLE=$ST
sj() { "$@" | jf set.strictly_reserved; }
expect_status "cpuset init (another table)" 0 "$CPUSET" init
expect_status "create --strict --cpus $Z" 0 "$CPUSET" create --strict --cpus "$Z" --name own-st
expect_status "inside: create --strict --cpus 0" 0 \
	in_set own-st "$CPUSET" create --strict --cpus 0 --name own-st-c
expect_eq "strictly_reserved inside is the set's 0, outside the machine's $Z" \
	"$(sj in_set own-st "$CPUSET" --json show own-st) $(sj "$CPUSET" --json show own-st)" "0 $Z"
rm -f "/dev/shm/$ST"
rm -rf "/dev/shm/$ST.views."*
CPUSETSHIM_TABLE=$MAINT
finish
