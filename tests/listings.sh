#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# What the listings show. Members: only processes that run; a record whose
# process ended (its start time no longer matches) is counted apart as
# dead until the next write sweeps it, in --tree, the default view,
# --json, --top, 'cpuset list', 'show' and their JSON. Names: a set name
# forged in the table and a member's own process name (PR_SET_NAME) reach
# a terminal with every control byte and every byte that is not UTF-8 as
# \ooo, and JSON stays valid (control characters \u00XX, bytes that are
# not UTF-8 \ufffd); --check names a set whose name breaks the rule.
. "$(dirname "$0")/common.sh"
need "$PYTHON3" python3
POKE=$B/tests/tablepoke
TBL=$CPUSETSHIM_TABLE

expect_status "init" 0 "$CPUSET" init

# jq_set ID KEY FILE: KEY of set ID in a JSON listing (a list of sets, or
# cpuset-inspect's object with its "sets")
jq_set() {
	"$PYTHON3" -c '
import json, sys
d = json.load(open(sys.argv[3]))
sets = d["sets"] if isinstance(d, dict) else d
print([s for s in sets if s["id"] == int(sys.argv[1])][0][sys.argv[2]])
' "$1" "$2" "$3"
}

# ---- a member that ended ----
expect_status "cpuset-run --cpus 1 true" 0 with_san "$CPUSET_RUN" --cpus 1 true
"$CPUSET_INSPECT" --json >"$T/j" || die "cpuset-inspect --json failed"
ended=$("$PYTHON3" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(str(s["id"]) for s in d["sets"] if "autoclean" in s["flags"]))
' "$T/j")
expect_match "the autoclean set of the run is still there" "$ended" '^[0-9]+$'
expect_eq "--json: no live member" "$(jq_set "$ended" members "$T/j")" 0
expect_eq "--json: one dead" "$(jq_set "$ended" dead_members "$T/j")" 1
tree=$("$CPUSET_INSPECT" --tree | grep -- "-- $ended ")
expect_match "--tree: no live member, the dead one said" "$tree" '0 members \(and 1 dead\)'
"$CPUSET_INSPECT" >"$T/v" || die "cpuset-inspect failed"
check "the default view counts no live member" grep -q "members = 0, dead members = 1" "$T/v"
check "and marks the record dead" grep -q "dead: swept on the next write" "$T/v"
expect_status "cpuset list" 0 "$CPUSET" list
expect_eq "list: 0 live, 1 dead" "$(awk -v id="$ended" '$1 == id { print $6, $7 }' "$T/out")" "0+1 dead"
"$CPUSET" --json list >"$T/l" || die "cpuset --json list failed"
expect_eq "list --json: members" "$(jq_set "$ended" members "$T/l")" 0
expect_eq "list --json: dead_members" "$(jq_set "$ended" dead_members "$T/l")" 1
"$CPUSET" show "$ended" >"$T/v" || die "cpuset show failed"
check "show: no live member" grep -q "^members: *0 (and 1 dead" "$T/v"
check "show: the pid marked dead" grep -q "\[dead\]" "$T/v"
"$CPUSET_INSPECT" --top --json -n 1 >"$T/top" || die "--top --json failed"
top_members=$("$PYTHON3" -c '
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
print([s for s in d["sets"] if s["id"] == int(sys.argv[2])][0]["members"])
' "$T/top" "$ended")
expect_eq "--top: no member" "$top_members" 0

# a live one is counted
env $(san_env) "$CPUSET_RUN" --cpus 0 sleep 600 &
live=$!
at_exit 'kill $live 2>/dev/null'
for _ in $(seq 600); do
	"$CPUSET" which "$live" 2>/dev/null | grep -qv '^1 ' && break
	sleep 0.1
done
lset=$("$CPUSET" which "$live" | cut -d' ' -f1)
tree=$("$CPUSET_INSPECT" --tree | grep -- "-- $lset ")
expect_match "--tree: a running member counts" "$tree" ' 1 member,'
kill $live
wait $live 2>/dev/null
tree=$("$CPUSET_INSPECT" --tree | grep -- "-- $lset ")
expect_match "--tree: not once it ended" "$tree" '0 members \(and 1 dead\)'
# the next write sweeps the dead
"$CPUSET" sweep >/dev/null
"$CPUSET_INSPECT" --json >"$T/j"
check "a sweep forgets the dead" test "$(grep -c '"alive":false' "$T/j")" -eq 0

# ---- names made safe ----
# safe FILE: every line is UTF-8 without a control character
cat >"$T/safe.py" <<'EOF'
import sys
b = open(sys.argv[1], "rb").read()
try:
    t = b.decode("utf-8")
except UnicodeDecodeError as e:
    sys.exit("not UTF-8: %s" % e)
bad = [c for c in t if (ord(c) < 32 and c != "\n") or 0x7f <= ord(c) < 0xa0]
if bad:
    sys.exit("control characters: %r" % bad)
EOF
safe() {
	if "$PYTHON3" "$T/safe.py" "$2" 2>"$T/why"; then
		pass "$1"
	else
		fail "$1" "$(cat "$T/why")"
	fi
}
# jname FILE: each set name of a JSON listing, as Python's repr
jnames() {
	"$PYTHON3" -c '
import json, sys
d = json.load(open(sys.argv[1]))
sets = d["sets"] if isinstance(d, dict) else d
for s in sets:
    print(ascii(s["name"]))
' "$1"
}

evil=$("$CPUSET" create --cpus 0 --name evilname) || die "create failed"
# ESC ] 0 ; pwned BEL, ESC [ 2 J, a CSI of C1 (c2 9b) and two bytes that
# are not UTF-8, then a backslash and "ok"
"$POKE" "$TBL" bytes "set:$evil+40" 1b5d303b70776e6564071b5b324ac29bfffe5c6f6b00 ||
	die "tablepoke failed"
want='\033]0;pwned\007\033[2J\302\233\377\376\\ok'
"$CPUSET_INSPECT" --tree >"$T/o"
safe "--tree: no control byte reaches the terminal" "$T/o"
check "--tree: the name in octal escapes" grep -qF -- "$evil $want" "$T/o"
"$CPUSET_INSPECT" >"$T/o"
safe "the default view: none" "$T/o"
check "the default view: the name escaped" grep -qF -- "name = $want" "$T/o"
"$CPUSET" list >"$T/o"
safe "cpuset list: none" "$T/o"
check "cpuset list: the name escaped" grep -qF -- "$want" "$T/o"
"$CPUSET" show "$evil" >"$T/o"
safe "cpuset show: none" "$T/o"
"$CPUSET_INSPECT" --top -n 1 >"$T/o"
safe "--top: none" "$T/o"
jwant="'\\x1b]0;pwned\\x07\\x1b[2J\\x9b\\ufffd\\ufffd\\\\ok'"
for cmd in "$CPUSET_INSPECT --json" "$CPUSET --json list"; do
	$cmd >"$T/o"
	expect_status "$cmd: valid JSON" 0 "$PYTHON3" -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/o"
	check "$cmd: the name, not UTF-8 as U+FFFD" grep -qxF -- "$jwant" "$(jnames "$T/o" >"$T/n"; echo "$T/n")"
done
"$CPUSET_INSPECT" --top --json -n 1 >"$T/o"
expect_status "--top --json: valid JSON" 0 "$PYTHON3" -c '
import json, sys
for line in open(sys.argv[1]): json.loads(line)' "$T/o"
expect_status "--check finds the bad name" 1 "$CPUSET_INSPECT" --check
cp "$T/out" "$T/c"
check "--check names the set and the rule" \
	grep -qF "set $evil's name '$want' breaks the naming rule" "$T/c"
safe "--check: no control byte either" "$T/c"

# a member that renames itself with escape bytes
"$CPUSET" init --force >/dev/null
env $(san_env) "$CPUSET_RUN" --cpus 1 "$PYTHON3" -c '
import ctypes, time
ctypes.CDLL(None).prctl(15, b"\x1b[31mred\x07\xff\x9b", 0, 0, 0)
time.sleep(600)' &
renamed=$!
at_exit 'kill $renamed 2>/dev/null'
for _ in $(seq 600); do
	grep -q red "/proc/$renamed/comm" 2>/dev/null && break
	sleep 0.1
done
check "the member renamed itself" grep -q red "/proc/$renamed/comm"
"$CPUSET_INSPECT" --top --members -n 1 >"$T/o"
safe "--top --members: no control byte of its name" "$T/o"
# (its column may cut the name short)
check "--top --members: its name escaped" grep -qF '\033[31mred\007' "$T/o"
"$CPUSET_INSPECT" --top --members --json -n 1 >"$T/o"
cmd=$("$PYTHON3" -c '
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
print(ascii([m["command"] for m in d["members"] if m["pid"] == int(sys.argv[2])][0]))
' "$T/o" "$renamed")
expect_eq "--top --members --json: valid, its name decoded" "$cmd" "'\\x1b[31mred\\x07\\ufffd\\ufffd'"
kill $renamed
finish
