#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The cpuset tool: every row of DESIGN.md's errno table through the command
# line (exit 1 with the set and the reason named), usage errors (exit 2),
# unusable tables (exit 3), output formats, and a shell confined to a set
# (the first use the README shows).
. "$(dirname "$0")/common.sh"
need "$PYTHON3" python3
need taskset util-linux
need setpriv util-linux
need su util-linux
need pgrep procps
need strace strace

expect_status "help" 0 "$CPUSET" --help
check "help text starts with Usage" grep -q "^Usage: cpuset" "$T/out"
expect_status "version" 0 "$CPUSET" --version
expect_status "no command" 2 "$CPUSET"
expect_status "unknown command" 2 "$CPUSET" frobnicate
expect_stderr "unknown command named" "unknown command 'frobnicate'"
expect_status "bad option" 2 "$CPUSET" --bogus list

# a missing table is made by init and create only (tests/no_table.sh)
expect_status "inspect without table" 3 "$CPUSET_INSPECT"
expect_stderr "inspect says no such table" "no such table"
expect_status "list without table" 3 "$CPUSET" list
expect_status "init makes the table" 0 "$CPUSET" init
expect_status "then list reads it" 0 "$CPUSET" list
expect_eq "root listed" "$(awk 'NR==2 {print $1, $3, $4}' "$T/out")" "1 root strict"

# a shell confined to CPU 1, as the README's first example
out=$(sh -c 'id=$("$1" create --cpus 1 --name demo) && "$1" attach demo $$ && taskset -p $$ && echo "id=$id"' - "$CPUSET")
expect_eq "shell confined" "$(echo "$out" | grep -o 'mask: .*')" "mask: 2"
expect_eq "create prints the id" "$(echo "$out" | grep -o 'id=.*')" "id=2"
expect_status "destroy root refused" 1 "$CPUSET" destroy 1
expect_stderr "destroy root reason" "destroy 1: the root set cannot be destroyed (EINVAL)"

# create
expect_status "create without --cpus" 0 "$CPUSET" create --name nocpus
expect_stderr "says so, naming the CPUs it took" \
	"cpuset: create: no --cpus: the new set has its parent's free CPUs, $("$CPUSET" --json show nocpus | $PYTHON3 -c 'import json,sys; print(json.load(sys.stdin)["set"]["cpus"])')"
"$CPUSET" destroy nocpus
expect_status "create unknown parent" 1 "$CPUSET" create --parent nosuch
expect_stderr "unknown parent named" "set 'nosuch': no such set"
"$CPUSET" create --cpus 0-1 --name loose >/dev/null
expect_status "strict in non-strict" 1 "$CPUSET" create --strict --parent loose --cpus 0
expect_stderr "strict reason" "a strict set can only be made inside a strict set (EINVAL)"
expect_status "duplicate name" 1 "$CPUSET" create --name loose --cpus 0
expect_stderr "duplicate reason" "(EEXIST)"
expect_status "bad name" 2 "$CPUSET" create --name 'a b' --cpus 0
expect_stderr "bad name: what a name is" "bad set name 'a b': a set name is"
expect_status "bad list" 2 "$CPUSET" create --cpus 3-1
expect_stderr "bad list says why" "reversed range"
expect_status "cpu beyond width" 2 "$CPUSET" create --cpus 99999
"$CPUSET" init --force --max-sets 3 >/dev/null
"$CPUSET" create --cpus 0 >/dev/null
"$CPUSET" create --cpus 0 >/dev/null
expect_status "table full" 1 "$CPUSET" create --cpus 0
expect_stderr "full reason" "the table is full (ENOSPC)"
expect_status "init over an existing table" 1 "$CPUSET" init
"$CPUSET" init --force >/dev/null
# EACCES: a table we may read but not write (root without the capability
# that overrides file modes stands for another user)
chmod 0400 /dev/shm/$CPUSETSHIM_TABLE
NOCAP="setpriv --bounding-set=-dac_override,-dac_read_search,-fowner --"
expect_status "table not writable" 1 $NOCAP "$CPUSET" create --cpus 0
expect_stderr "not writable reason" "the table is not writable by this user (EACCES)"
expect_status "but readable" 0 $NOCAP "$CPUSET" list
chmod 0600 /dev/shm/$CPUSETSHIM_TABLE

# destroy
"$CPUSET" create --cpus 0-1 --name p >/dev/null
"$CPUSET" create --cpus 1 --name c --parent p >/dev/null
expect_status "destroy unknown" 1 "$CPUSET" destroy 77
expect_stderr "unknown reason" "no such set (EINVAL)"
expect_status "destroy with child" 1 "$CPUSET" destroy p
expect_stderr "child reason" "the set has child sets (EBUSY)"
expect_status "destroy not owner" 1 env CPUSETSHIM_TEST_UID=4321 "$CPUSET" destroy c
expect_stderr "owner reason" "not the owner of the set (EPERM)"
sleep 600 &
s1=$!
at_exit 'kill $s1 2>/dev/null'
"$CPUSET" attach c $s1
expect_status "destroy with member" 1 "$CPUSET" destroy c
expect_stderr "member reason, the member named" "the set has member processes: $s1 (sleep) (EBUSY)"
# more than three: three named, then how many more
more=
at_exit 'kill $more 2>/dev/null'
for _i in 1 2 3 4; do
	sleep 600 &
	more="$more $!"
	"$CPUSET" attach c $! || fail "attach a sleep to c"
done
expect_status "destroy with five members" 1 "$CPUSET" destroy c
expect_match "three named, then the count" "$(cat "$T/err")" \
	"has member processes: [0-9]+ \\(sleep\\), [0-9]+ \\(sleep\\), [0-9]+ \\(sleep\\) and 2 more \\(EBUSY\\)"
kill $more
wait $more 2>/dev/null
"$CPUSET" sweep >/dev/null

# alloc
expect_status "alloc root" 1 "$CPUSET" alloc 1 0
expect_stderr "alloc root reason" "(EINVAL)"
expect_status "alloc unknown" 1 "$CPUSET" alloc 77 0
expect_status "alloc not present" 1 "$CPUSET" alloc c 0-7
expect_stderr "not present reason, the machine's CPUs named" \
	"is not present on this machine (its CPUs: $("$CPUSET" --json show root | $PYTHON3 -c 'import json,sys; print(json.load(sys.stdin)["set"]["cpus"])'))"
expect_status "alloc removing a child's CPU" 1 "$CPUSET" alloc p 0
expect_stderr "child CPU reason" "still held by a child set (EBUSY)"
"$CPUSET" create --cpus 0 --name narrow >/dev/null
"$CPUSET" create --cpus 0 --name below --parent narrow >/dev/null
expect_status "alloc outside parent" 1 "$CPUSET" alloc below 1
expect_stderr "outside parent reason" "not in the parent set (EACCES)"
expect_status "alloc not owner" 1 env CPUSETSHIM_TEST_UID=4321 "$CPUSET" alloc c 1
expect_stderr "alloc owner reason" "(EPERM)"
"$CPUSET" init --force >/dev/null
"$CPUSET" create --strict --cpus 0 --name s >/dev/null
"$CPUSET" create --cpus 1 --name l >/dev/null
expect_status "alloc strict sibling's CPU" 1 "$CPUSET" alloc l 0-1
expect_stderr "strict sibling reason" "held by a strict sibling set (EBUSY)"
expect_status "strict set takes a sibling's CPU" 1 "$CPUSET" alloc s 0-1
expect_stderr "strict any sibling reason" "this set is strict (EBUSY)"
expect_status "alloc bad usage" 2 "$CPUSET" alloc s
# a migration runs at nice -10 where the kernel allows it (root), else at
# the caller's own priority, and moves the members all the same
sleep 600 &
s3=$!
at_exit 'kill $s3 2>/dev/null'
"$CPUSET" attach l $s3
strace -f -e trace=setpriority -o "$T/prio" "$CPUSET" alloc l 1 >/dev/null 2>&1
if [ "$(id -u)" = 0 ]; then
	expect_match "alloc as root: the migration at nice -10" "$(cat "$T/prio")" "setpriority\(PRIO_PROCESS, 0, -10\) += 0"
else
	expect_match "alloc as a user: asks, is refused, goes on" "$(cat "$T/prio")" "setpriority\(PRIO_PROCESS, 0, -10\) += -1 EACCES"
fi
expect_eq "and the member is moved" "$(taskset -cp $s3 | sed 's/.*: //')" 1
expect_status "free" 0 "$CPUSET" free
expect_eq "free non-strict" "$(cat "$T/out")" "1"
expect_status "free strict" 0 "$CPUSET" free --strict
expect_eq "free strict" "$(cat "$T/out")" "-"

# attach
"$CPUSET" create --name empty --cpus 1 >/dev/null
expect_status "attach unknown set" 1 "$CPUSET" attach 99 $s1
expect_status "attach no such process" 1 "$CPUSET" attach l 4194311
expect_stderr "ESRCH reason" "no such process (ESRCH)"
expect_status "attach bad pid" 2 "$CPUSET" attach l abc
expect_status "attach not owner" 1 env CPUSETSHIM_TEST_UID=4321 "$CPUSET" attach l $s1
expect_stderr "attach owner reason" "not the owner of the set (EPERM)"
su -s /bin/sh nobody -c 'exec sleep 600' &
s2=$!
at_exit 'kill $s2 2>/dev/null'
# su's child, once it runs sleep as nobody (this one's: other tests run
# theirs at the same time)
wait_until eval 's2c=$(pgrep -P $s2 -u nobody -x sleep)'
s2=${s2c:-$s2}
# another user's process: refused unless root
ps_owner=$(stat -c %u /proc/$s2)
expect_eq "helper runs as nobody" "$ps_owner" "$(id -u nobody)"
env CPUSETSHIM_TEST_UID=4321 "$CPUSET" create --cpus 1 --name theirs >/dev/null
expect_status "attach another user's process" 1 env CPUSETSHIM_TEST_UID=4321 "$CPUSET" attach theirs $s2
expect_stderr "process reason" "not allowed to move that process (EPERM)"
expect_status "root moves anyone" 0 "$CPUSET" attach theirs $s2
expect_eq "moved for real" "$(real_cpus $s2)" "1"
# an empty set: no CPUs (made by the API's create without alloc)
expect_status "attach to l" 0 "$CPUSET" attach l $s1
expect_eq "which" "$("$CPUSET" which $s1)" "$("$CPUSET" --json show l | "$PYTHON3" -c 'import json,sys; print(json.load(sys.stdin)["set"]["id"])') l"

# json for list, show, which
"$CPUSET" --json list >"$T/json"
check "list --json: the root first" "$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[0]["name"]=="root"' "$T/json"
"$CPUSET" show l --json >"$T/json"
check "show --json: a member with a pid" "$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["members"][0]["pid"] > 0' "$T/json"
"$CPUSET" --json which $s1 >"$T/json"
check "which --json: the set's name" "$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["set"]["name"]=="l"' "$T/json"

# an AUTOCLEAN set never attached keeps its grace period when the wall
# clock is stepped back (the grace runs on CLOCK_BOOTTIME)
"$CPUSET" create --cpus 1 --autoclean --name graced >/dev/null
STEPBACK=$B/tests/.libs/libstepback.so
check "the step-back clock is built" [ -f "$STEPBACK" ]
expect_eq "the preloaded clock is an hour behind" \
	"$(( $(date +%s) - $(env LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD:}$STEPBACK" date +%s) >= 3500 ))" 1
expect_status "a sweep under a clock stepped back an hour" 0 \
	env LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD:}$STEPBACK" "$CPUSET" sweep
expect_status "the set is still there" 0 "$CPUSET" show graced
expect_status "and goes after its grace period" 0 env CPUSETSHIM_AUTOCLEAN_GRACE=0 sh -c \
	'sleep 1.1; "$1" sweep' - "$CPUSET"
expect_status "(gone)" 1 "$CPUSET" show graced

# unusable tables: exit 3 with a reason, never used
printf 'garbage garbage garbage' >/dev/shm/$CPUSETSHIM_TABLE.bad
chmod 600 /dev/shm/$CPUSETSHIM_TABLE.bad
expect_status "bad magic" 3 "$CPUSET" --table $CPUSETSHIM_TABLE.bad list
expect_stderr "bad magic reason" "refusing to use it"
rm -f /dev/shm/$CPUSETSHIM_TABLE.bad
expect_status "bad table name" 2 "$CPUSET" --table a/b list

json_field() { "$PYTHON3" -c 'import json,sys
d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): d=d[k]
print(d)' "$1" "$2"; }

# memory nodes: the host's own (node 0 alone here; a kernel without NUMA
# has node 0 too), so what the rules say is checked against its nodes
"$CPUSET" init --force >/dev/null
NODES=$(cat /sys/devices/system/node/has_memory 2>/dev/null || echo 0)
FIRST=$(echo "$NODES" | sed 's/[-,].*//')
"$CPUSET" --json show 1 >"$T/json"
expect_eq "the root holds the nodes with memory" "$(json_field "$T/json" set.mems)" "$NODES"
m=$("$CPUSET" create --cpus 0 --name mdef)
"$CPUSET" --json show mdef >"$T/json"
expect_eq "by default a set has its parent's nodes" "$(json_field "$T/json" set.mems)" "$NODES"
expect_eq "(from its parent)" "$(json_field "$T/json" set.mems_from)" "parent"
"$CPUSET" create --cpus 0 --mems auto --name mauto >/dev/null
"$CPUSET" --json show mauto >"$T/json"
N0=$(ls -d /sys/devices/system/cpu/cpu0/node* 2>/dev/null | sed 's/.*node//' | head -1)
expect_eq "auto: the node of CPU 0" "$(json_field "$T/json" set.mems)" "${N0:-0}"
expect_eq "(auto)" "$(json_field "$T/json" set.mems_from)" "auto"
expect_status "a node the machine lacks" 1 "$CPUSET" create --cpus 0 --mems 1023
expect_stderr "lacking node reason" "a node is not present on this machine (or holds no memory) (EINVAL)"
expect_status "a bad node list" 2 "$CPUSET" create --cpus 0 --mems 3-1
expect_stderr "bad node list says why" "bad node list '3-1'"
expect_status "a node beyond the width" 2 "$CPUSET" create --cpus 0 --mems 99999
expect_status "alloc --mems without a set" 2 "$CPUSET" alloc --mems 0
expect_status "alloc --mems alone" 0 "$CPUSET" alloc --mems "$FIRST" mdef
"$CPUSET" --json show mdef >"$T/json"
expect_eq "alloc --mems gave the node" "$(json_field "$T/json" set.mems)" "$FIRST"
expect_eq "(a list)" "$(json_field "$T/json" set.mems_from)" "list"
expect_eq "and kept the CPUs" "$(json_field "$T/json" set.cpus)" "0"
expect_status "alloc CPUs and nodes at once" 0 "$CPUSET" alloc --mems auto mdef 0
expect_status "the root's nodes are fixed" 1 "$CPUSET" alloc --mems "$FIRST" 1
expect_stderr "root nodes reason" "the root set's nodes are fixed when the table is made (EINVAL)"
expect_status "a child's nodes inside its parent's" 0 "$CPUSET" create --parent mdef --cpus 0 --mems "$FIRST" --name mkid
check "cpuset-inspect --check with nodes" "$CPUSET_INSPECT" --check
"$CPUSET_INSPECT" >"$T/insp"
check "inspect shows a set's nodes" grep -q "mems = $FIRST (list)" "$T/insp"
"$CPUSET_INSPECT" --json >"$T/json"
check "inspect --json shows them" "$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); s=[x for x in d["sets"] if x["name"]=="mkid"][0]; assert s["mems"]==sys.argv[2] and s["mems_from"]=="list", s' "$T/json" "$FIRST"
"$CPUSET_INSPECT" --tree >"$T/insp"
check "the tree shows them" grep -q "nodes $NODES" "$T/insp"
# a strict set owns the nodes it is given: no sibling default is left
"$CPUSET" init --force >/dev/null
"$CPUSET" create --strict --cpus 0 --mems "$NODES" --name owner >/dev/null
LASTCPU=$(sed 's/.*[-,]//' /sys/devices/system/cpu/online)
expect_status "no node left for a sibling" 1 "$CPUSET" create --cpus "$LASTCPU"
expect_stderr "no node left reason" "the parent has no node free for such a set (strict siblings own them all) (EBUSY)"
expect_status "nor by a list" 1 "$CPUSET" create --cpus "$LASTCPU" --mems "$FIRST"
expect_stderr "owned node reason" "a node is owned by a strict sibling set (EBUSY)"
expect_status "inside the owner its nodes are free" 0 "$CPUSET" create --parent owner --cpus 0
"$CPUSET" --json show owner >"$T/json"
expect_eq "the owner's nodes, listed as owned by the root" \
	"$("$CPUSET" --json show 1 | "$PYTHON3" -c 'import json,sys; print(json.load(sys.stdin)["set"]["mems_owned"])')" "$NODES"
check "cpuset-inspect --check with owned nodes" "$CPUSET_INSPECT" --check
expect_status "init --mems of a node without memory" 2 "$CPUSET" init --force --mems 1023
expect_stderr "init --mems reason" "hold no memory on this machine"
# a table of an older layout is refused with what to do: a fresh table
# with the layout number of its format changed
as_layout() {
	"$CPUSET" init --force >/dev/null
	"$PYTHON3" -c 'import struct,sys
f=open(sys.argv[1],"r+b"); f.seek(8); v=struct.unpack("<I",f.read(4))[0]
f.seek(8); f.write(struct.pack("<I",(v & 0xffffff) | (int(sys.argv[2]) << 24)))' \
		/dev/shm/$CPUSETSHIM_TABLE "$1"
}
as_layout 1
expect_status "a layout 1 table" 3 "$CPUSET" list
expect_stderr "layout 1 reason" "made by an older cpusetshim (layout 1, without memory nodes)"
as_layout 2
expect_status "a layout 2 table" 3 "$CPUSET" list
expect_stderr "layout 2 reason" "made by an older cpusetshim (layout 2, without threads' start times)"
expect_stderr "and the remedy" "cpuset init --force"
as_layout 3
expect_status "a layout 3 table" 3 "$CPUSET" list
expect_stderr "layout 3 reason" "made by an older cpusetshim (layout 3, without the registries' occupancy summaries)"
# a table belongs to the architecture that made it: one whose header says
# aarch64 (AUDIT_ARCH_AARCH64), with its own format word (a 48-byte mutex)
# or ours, is refused naming it, with what to do; one that names none (an
# older maker of this layout) is ours
"$CPUSET" init --force >/dev/null
POKE="$B/tests/tablepoke"
expect_eq "a new table records our architecture" \
	"$("$POKE" "$CPUSETSHIM_TABLE" get arch u32)" "$("$PYTHON3" -c 'import platform
print({"x86_64": 0xc000003e, "aarch64": 0xc00000b7, "ppc64le": 0xc0000015,
 "s390x": 0x80000016, "riscv64": 0xc00000f3}.get(platform.machine(), 0))')"
for v in same 48; do
	"$CPUSET" init --force >/dev/null
	"$POKE" "$CPUSETSHIM_TABLE" set arch u32 0xc00000b7
	if [ $v = 48 ]; then
		fmt=$("$POKE" "$CPUSETSHIM_TABLE" get version u32)
		"$POKE" "$CPUSETSHIM_TABLE" set version u32 $(((fmt & ~0xffff00) | (48 << 8)))
	fi
	if [ "$(uname -m)" = aarch64 ]; then
		skip "a table of aarch64 ($v format)" "this is aarch64"
		continue
	fi
	expect_status "a table of aarch64 ($v format)" 3 "$CPUSET" list
	expect_stderr "its reason names the architecture" "made by the tools of aarch64 (arm64), not $(uname -m)"
	expect_stderr "and what to do" "use that architecture's tools, or another table name"
done
"$CPUSET" init --force >/dev/null
"$POKE" "$CPUSETSHIM_TABLE" set arch u32 0
check "a table of no recorded architecture is ours" "$CPUSET" list
"$CPUSET" init --force >/dev/null

check "cpuset-inspect --check" "$CPUSET_INSPECT" --check
check "cpuset-inspect --tree" "$CPUSET_INSPECT" --tree
check "the tree shows the root" grep -q "root" "$T/out"
finish
