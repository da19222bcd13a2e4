#!/bin/sh
# The cpuset tool: every row of DESIGN.md's errno table through the command
# line (exit 1 with the set and the reason named), usage errors (exit 2),
# unusable tables (exit 3), output formats, and the issue's own check.
. "$(dirname "$0")/common.sh"

expect_rc "help" 0 "$CPUSET" --help
grep -q "^Usage: cpuset" "$TMP/out" && ok || bad "help text"
expect_rc "version" 0 "$CPUSET" --version
expect_rc "no command" 2 "$CPUSET"
expect_rc "unknown command" 2 "$CPUSET" frobnicate
expect_err "unknown command named" "unknown command 'frobnicate'"
expect_rc "bad option" 2 "$CPUSET" --bogus list

# a missing table is made by the first write, never by a read of inspect
expect_rc "inspect without table" 3 "$INSPECT"
expect_err "inspect says no such table" "no such table"
expect_rc "list makes the table" 0 "$CPUSET" list
expect "root listed" "$(awk 'NR==2 {print $1, $3, $4}' "$TMP/out")" "1 root strict"

# the issue's check: a shell confined to CPU 1
out=$(sh -c 'id=$("$1" create --cpus 1 --name demo) && "$1" attach demo $$ && taskset -p $$ && echo "id=$id"' - "$CPUSET")
expect "shell confined" "$(echo "$out" | grep -o 'mask: .*')" "mask: 2"
expect "create prints the id" "$(echo "$out" | grep -o 'id=.*')" "id=2"
expect_rc "destroy root refused" 1 "$CPUSET" destroy 1
expect_err "destroy root reason" "destroy 1: the root set cannot be destroyed (EINVAL)"

# create
expect_rc "create unknown parent" 1 "$CPUSET" create --parent nosuch
expect_err "unknown parent named" "set 'nosuch': no such set"
"$CPUSET" create --cpus 0-1 --name loose >/dev/null
expect_rc "strict in non-strict" 1 "$CPUSET" create --strict --parent loose --cpus 0
expect_err "strict reason" "a strict set can only be made inside a strict set (EINVAL)"
expect_rc "duplicate name" 1 "$CPUSET" create --name loose --cpus 0
expect_err "duplicate reason" "(EEXIST)"
expect_rc "bad name" 1 "$CPUSET" create --name 'a b' --cpus 0
expect_rc "bad list" 2 "$CPUSET" create --cpus 3-1
expect_err "bad list says why" "reversed range"
expect_rc "cpu beyond width" 2 "$CPUSET" create --cpus 99999
"$CPUSET" init --force --max-sets 3 >/dev/null
"$CPUSET" create --cpus 0 >/dev/null
"$CPUSET" create --cpus 0 >/dev/null
expect_rc "table full" 1 "$CPUSET" create --cpus 0
expect_err "full reason" "the table is full (ENOSPC)"
expect_rc "init over an existing table" 1 "$CPUSET" init
"$CPUSET" init --force >/dev/null
# EACCES: a table we may read but not write (root without the capability
# that overrides file modes stands for another user)
chmod 0400 /dev/shm/$CPUSETSHIM_TABLE
NOCAP="setpriv --bounding-set=-dac_override,-dac_read_search,-fowner --"
expect_rc "table not writable" 1 $NOCAP "$CPUSET" create --cpus 0
expect_err "not writable reason" "the table is not writable by this user (EACCES)"
expect_rc "but readable" 0 $NOCAP "$CPUSET" list
chmod 0600 /dev/shm/$CPUSETSHIM_TABLE

# destroy
"$CPUSET" create --cpus 0-1 --name p >/dev/null
"$CPUSET" create --cpus 1 --name c --parent p >/dev/null
expect_rc "destroy unknown" 1 "$CPUSET" destroy 77
expect_err "unknown reason" "no such set (EINVAL)"
expect_rc "destroy with child" 1 "$CPUSET" destroy p
expect_err "child reason" "the set has child sets (EBUSY)"
expect_rc "destroy not owner" 1 env CPUSETSHIM_TEST_UID=4321 "$CPUSET" destroy c
expect_err "owner reason" "not the owner of the set (EPERM)"
sleep 600 &
s1=$!
cleanup_hook='kill $s1 2>/dev/null'
"$CPUSET" attach c $s1
expect_rc "destroy with member" 1 "$CPUSET" destroy c
expect_err "member reason" "the set has member processes (EBUSY)"

# alloc
expect_rc "alloc root" 1 "$CPUSET" alloc 1 0
expect_err "alloc root reason" "(EINVAL)"
expect_rc "alloc unknown" 1 "$CPUSET" alloc 77 0
expect_rc "alloc not present" 1 "$CPUSET" alloc c 0-7
expect_err "not present reason" "not present on this machine (EINVAL)"
expect_rc "alloc removing a child's CPU" 1 "$CPUSET" alloc p 0
expect_err "child CPU reason" "still held by a child set (EBUSY)"
"$CPUSET" create --cpus 0 --name narrow >/dev/null
"$CPUSET" create --cpus 0 --name below --parent narrow >/dev/null
expect_rc "alloc outside parent" 1 "$CPUSET" alloc below 1
expect_err "outside parent reason" "not in the parent set (EACCES)"
expect_rc "alloc not owner" 1 env CPUSETSHIM_TEST_UID=4321 "$CPUSET" alloc c 1
expect_err "alloc owner reason" "(EPERM)"
"$CPUSET" init --force >/dev/null
"$CPUSET" create --strict --cpus 0 --name s >/dev/null
"$CPUSET" create --cpus 1 --name l >/dev/null
expect_rc "alloc strict sibling's CPU" 1 "$CPUSET" alloc l 0-1
expect_err "strict sibling reason" "held by a strict sibling set (EBUSY)"
expect_rc "strict set takes a sibling's CPU" 1 "$CPUSET" alloc s 0-1
expect_err "strict any sibling reason" "this set is strict (EBUSY)"
expect_rc "alloc bad usage" 2 "$CPUSET" alloc s
expect_rc "free" 0 "$CPUSET" free
expect "free non-strict" "$(cat "$TMP/out")" "1"
expect_rc "free strict" 0 "$CPUSET" free --strict
expect "free strict" "$(cat "$TMP/out")" "-"

# attach
"$CPUSET" create --name empty --cpus 1 >/dev/null
expect_rc "attach unknown set" 1 "$CPUSET" attach 99 $s1
expect_rc "attach no such process" 1 "$CPUSET" attach l 4194311
expect_err "ESRCH reason" "no such process (ESRCH)"
expect_rc "attach bad pid" 2 "$CPUSET" attach l abc
expect_rc "attach not owner" 1 env CPUSETSHIM_TEST_UID=4321 "$CPUSET" attach l $s1
expect_err "attach owner reason" "not the owner of the set (EPERM)"
su -s /bin/sh nobody -c 'exec sleep 600' &
s2=$!
cleanup_hook='kill $s1 $s2 2>/dev/null'
sleep 0.2
s2=$(pgrep -u nobody -n sleep || echo $s2)
# another user's process: refused unless root
ps_owner=$(stat -c %u /proc/$s2)
expect "helper runs as nobody" "$ps_owner" "$(id -u nobody)"
env CPUSETSHIM_TEST_UID=4321 "$CPUSET" create --cpus 1 --name theirs >/dev/null
expect_rc "attach another user's process" 1 env CPUSETSHIM_TEST_UID=4321 "$CPUSET" attach theirs $s2
expect_err "process reason" "not allowed to move that process (EPERM)"
expect_rc "root moves anyone" 0 "$CPUSET" attach theirs $s2
expect "moved for real" "$(real_cpus $s2)" "1"
# an empty set: no CPUs (made by the API's create without alloc)
expect_rc "attach to l" 0 "$CPUSET" attach l $s1
expect "which" "$("$CPUSET" which $s1)" "$("$CPUSET" --json show l | python3 -c 'import json,sys; print(json.load(sys.stdin)["set"]["id"])') l"

# json for list, show, which
"$CPUSET" --json list | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[0]["name"]=="root"' && ok || bad "list json"
"$CPUSET" show l --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["members"][0]["pid"] > 0' && ok || bad "show json"
"$CPUSET" --json which $s1 | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["set"]["name"]=="l"' && ok || bad "which json"

# unusable tables: exit 3 with a reason, never used
printf 'garbage garbage garbage' >/dev/shm/$CPUSETSHIM_TABLE.bad
chmod 600 /dev/shm/$CPUSETSHIM_TABLE.bad
expect_rc "bad magic" 3 "$CPUSET" --table $CPUSETSHIM_TABLE.bad list
expect_err "bad magic reason" "refusing to use it"
rm -f /dev/shm/$CPUSETSHIM_TABLE.bad
expect_rc "bad table name" 2 "$CPUSET" --table a/b list

"$INSPECT" --check >"$TMP/out" 2>&1 && ok || bad "check: $(cat "$TMP/out")"
"$INSPECT" --tree >"$TMP/out" && grep -q "root" "$TMP/out" && ok || bad "tree"
finish
