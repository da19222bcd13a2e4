#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The caller's own node numbers: inside a set, cpuset create and alloc
# take --mems as the set's nodes numbered 0..n-1 (as --cpus its CPUs),
# refuse a node beyond them, and show a set's nodes in them (show --json);
# --physical and a caller outside any set take the machine's. The machine
# here has four nodes: a private mount namespace's
# /sys/devices/system/node (root), with --override for the kernel's
# Mems_allowed, which names the real machine's nodes.
if [ -z "${OWN_NODES_NS:-}" ] && [ "$(id -u)" = 0 ] &&
	unshare --mount --propagation private true 2>/dev/null; then
	OWN_NODES_NS=1 exec unshare --mount --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/common.sh"
need "$PYTHON3" python3
[ "$(id -u)" = 0 ] || skip_all "needs root (a mount namespace's /sys/devices/system/node)"
[ -n "${OWN_NODES_NS:-}" ] || skip_all "needs unshare --mount (util-linux), not allowed here"

N=$T/node
mkdir -p "$N" || die "mkdir $N"
for k in 0 1 2 3; do
	mkdir -p "$N/node$k" || die "mkdir $N/node$k"
	if [ "$k" = 0 ]; then cat /sys/devices/system/cpu/online; else echo; fi >"$N/node$k/cpulist"
done
for f in has_memory has_normal_memory online possible; do echo 0-3 >"$N/$f"; done
mount --bind "$N" /sys/devices/system/node || skip_all "cannot bind-mount /sys/devices/system/node here"
expect_eq "the namespace's machine has nodes 0-3" "$(cat /sys/devices/system/node/has_memory)" 0-3

jf() { "$PYTHON3" -c 'import json, sys
d = json.load(sys.stdin)
for k in sys.argv[1].split("."):
    d = d[int(k)] if isinstance(d, list) else d[k]
print(d)' "$1"; }
O=--override

expect_status "cpuset init --mems 0-3" 0 "$CPUSET" init --force --mems 0-3
PAR=$("$CPUSET" $O create --cpus 0 --mems 1,2 --name nodes-par) || die "create nodes-par"
expect_eq "outside: --mems 1,2 are the machine's" "$("$CPUSET" --json show nodes-par | jf set.mems)" 1-2

note "---- inside set $PAR of the machine's nodes {1,2}: they are nodes 0 and 1 ----"
expect_status "inside: create --mems 0" 0 in_set nodes-par "$CPUSET" $O create --cpus 0 --mems 0 --name nodes-a
expect_eq "inside: create --mems 0 made a set of the machine's node 1" \
	"$("$CPUSET" --json show nodes-a | jf set.mems)" 1
expect_status "inside: create --mems 1" 0 in_set nodes-par "$CPUSET" $O create --cpus 0 --mems 1 --name nodes-b
expect_eq "inside: create --mems 1 made a set of the machine's node 2" \
	"$("$CPUSET" --json show nodes-b | jf set.mems)" 2
expect_status "inside: create --mems 2 is refused (1, as a CPU beyond the set)" 1 \
	in_set nodes-par "$CPUSET" $O create --cpus 0 --mems 2 --name nodes-c
expect_stderr "naming the caller's nodes" "node 2 is not one of this process's nodes (0-1, those of its set $PAR"
expect_status "inside: alloc --mems 0-1 nodes-a" 0 in_set nodes-par "$CPUSET" $O alloc --mems 0-1 nodes-a
expect_eq "inside: alloc --mems 0-1 gave the machine's nodes 1-2" \
	"$("$CPUSET" --json show nodes-a | jf set.mems)" 1-2
expect_status "inside: alloc --mems 3 is refused" 1 in_set nodes-par "$CPUSET" $O alloc --mems 3 nodes-b
expect_stderr "naming the caller's nodes" "node 3 is not one of this process's nodes (0-1"
expect_eq "inside: alloc refused changed nothing" "$("$CPUSET" --json show nodes-b | jf set.mems)" 2
expect_status "inside: --physical create --mems 2" 0 \
	in_set nodes-par "$CPUSET" $O --physical create --cpus 0 --mems 2 --name nodes-p
expect_eq "inside: --physical --mems 2 is the machine's node 2" \
	"$("$CPUSET" --json show nodes-p | jf set.mems)" 2
expect_status "inside: --physical create --mems 3 is refused by the rules (not the parent's)" 1 \
	in_set nodes-par "$CPUSET" $O --physical create --cpus 0 --mems 3
expect_nomatch "(by the set rules, not as the caller's numbers)" "$(cat "$T/err")" "not one of this process's"
expect_status "inside: cpuset-run --mems 2 is refused (1, as a CPU beyond the set)" 1 \
	in_set nodes-par "$CPUSET_RUN" --cpus 0 --mems 2 -- true
expect_stderr "naming the caller's nodes" "node 2 is not one of this process's nodes (0-1, those of its set $PAR"
expect_status "inside: cpuset-run --mems of a malformed list is bad usage (125)" 125 \
	in_set nodes-par "$CPUSET_RUN" --cpus 0 --mems 0-x -- true

note "---- shown from inside: the set's numbers, +machine: for the others ----"
expect_eq "inside: show --json nodes-b has mems 1 and physical_mems 2" \
	"$(in_set nodes-par "$CPUSET" --json show nodes-b | jf set.mems) $(in_set nodes-par "$CPUSET" --json show nodes-b | jf set.physical_mems)" \
	"1 2"
expect_eq "inside: the root's nodes are 0-1+machine:0,3" \
	"$(in_set nodes-par "$CPUSET" --json show 1 | jf set.mems)" "0-1+machine:0,3"
expect_eq "inside: --physical show shows the machine's" \
	"$(in_set nodes-par "$CPUSET" --physical --json show nodes-b | jf set.mems)" 2
expect_eq "outside: show --json has no physical_mems" \
	"$("$CPUSET" --json show nodes-b | "$PYTHON3" -c 'import json, sys; print("physical_mems" in json.load(sys.stdin)["set"])')" False
expect_status "cpuset-inspect --check after everything" 0 "$CPUSET_INSPECT" --check
finish
