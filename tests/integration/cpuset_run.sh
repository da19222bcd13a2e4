#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# cpuset-run: exit codes like env's (127 not found, 126 not executable,
# 1 set refused, 125 its own trouble, else the program's), --set by name
# and id, --cpus beyond the machine, and autoclean sets made by --cpus,
# gone after the program (or when it could not start) and a write.
# --mems: the new set's nodes in the caller's numbers, on this machine's
# nodes, then (root) on four nodes made up in a private mount namespace
# (a tmpfs over /sys/devices/system/node), where sets of some of them
# are made from outside any set and from inside one.
. "$(dirname "$0")/../common.sh"
need timeout coreutils
need nproc coreutils
need getconf libc-bin
REAL_CONF=$(outside getconf _NPROCESSORS_CONF)
two_sets

note "---- cpuset-run ----"
printf '#!/bin/sh\ntrue\n' >"$T/noexec"
chmod 644 "$T/noexec"
expect_status "cpuset-run: a missing program (path)" 127 \
	"$CPUSET_RUN" --set "$S1" "$T/no/such/program"
expect_status "cpuset-run: a missing program (PATH search)" 127 \
	"$CPUSET_RUN" --set "$S1" cpusetshim-itest-no-such-program
expect_status "cpuset-run: a file that is not executable" 126 \
	"$CPUSET_RUN" --set "$S1" "$T/noexec"
expect_eq "cpuset-run --set NAME" "$(in_set itest-one nproc)" 1
expect_status "cpuset-run --set nosuch" 1 "$CPUSET_RUN" --set nosuch true
expect_status "cpuset-run --set 9999 (no such id)" 1 "$CPUSET_RUN" --set 9999 true
beyond=$((REAL_CONF + 3))
expect_status "cpuset-run --cpus $beyond on a $REAL_CONF-CPU machine" 1 \
	"$CPUSET_RUN" --cpus "$beyond" true
expect_status "cpuset-run with no program" 125 "$CPUSET_RUN" --set "$S1"
expect_status "cpuset-run --no-such-option" 125 "$CPUSET_RUN" --no-such-option true
expect_status "cpuset-run --set and --cpus together" 125 \
	"$CPUSET_RUN" --set "$S1" --cpus 1 true
expect_status "cpuset-run: the program's own exit status" 42 \
	with_san "$CPUSET_RUN" --set "$S1" sh -c 'exit 42'

note "---- cpuset-run --cpus: an autoclean set ----"
inside=$(with_san timeout 120 "$CPUSET_RUN" --cpus 1 --name itest-auto sh -c "nproc; \"$CPUSET\" list")
note "$inside"
expect_eq "cpuset-run --cpus 1: nproc inside" "$(printf '%s\n' "$inside" | head -n 1)" 1
expect_match "cpuset-run --cpus 1: the set exists while it runs, autoclean" "$inside" \
	'itest-auto +autoclean'
expect_status "cpuset-run --cpus 1 with a missing program" 127 \
	"$CPUSET_RUN" --cpus 1 --name itest-noexec "$T/no/such/program"
expect_status "cpuset sweep" 0 "$CPUSET" sweep
after=$("$CPUSET" list)
note "$after"
expect_nomatch "cpuset-run --cpus 1: the set is gone after the program and a write" \
	"$after" 'itest-auto'
expect_nomatch "cpuset-run --cpus 1: the set is gone when the program could not start" \
	"$after" 'itest-noexec'
note "---- cpuset-run --mems ----"
NODES=$(cat /sys/devices/system/node/has_memory 2>/dev/null || echo 0)
FIRST=$("$PYTHON3" -c "import sys; print(sys.argv[1].split(',')[0].split('-')[0])" "$NODES")
expect_status "cpuset-run --cpus 0 --mems $FIRST" 0 \
	with_san "$CPUSET_RUN" --cpus 0 --mems "$FIRST" sh -c \
	'"$0" --json show "$CPUSETSHIM_RUN_SET"; cat /sys/devices/system/node/online' "$CPUSET"
expect_eq "--mems $FIRST: the set holds node $FIRST" \
	"$(head -n 1 "$T/out" | "$PYTHON3" -c 'import json,sys; s=json.load(sys.stdin)["set"]; print(s["mems"], s["mems_from"])')" "$FIRST list"
expect_eq "--mems $FIRST: the program sees one node, node 0" "$(sed -n 2p "$T/out")" 0
expect_status "cpuset-run --mems auto" 0 with_san "$CPUSET_RUN" --cpus 0 --mems auto sh -c \
	'"$0" --json show "$CPUSETSHIM_RUN_SET"' "$CPUSET"
expect_eq "--mems auto: the node of CPU 0" \
	"$("$PYTHON3" -c 'import json,sys; s=json.load(sys.stdin)["set"]; print(s["mems_from"])' <"$T/out")" auto
expect_status "cpuset-run --mems 1023: a node the machine lacks" 1 \
	"$CPUSET_RUN" --cpus 0 --mems 1023 true
expect_stderr "(said)" "a node is not present on this machine"
expect_status "cpuset-run --mems 3-1: a malformed list" 125 "$CPUSET_RUN" --cpus 0 --mems 3-1 true
expect_stderr "(said)" "bad node list '3-1'"
expect_status "cpuset-run --mems 0x: a malformed list" 125 "$CPUSET_RUN" --cpus 0 --mems 0x true
expect_status "cpuset-run --mems without --cpus" 125 "$CPUSET_RUN" --mems "$FIRST" true
expect_stderr "(said)" "--mems, --strict, --name and --physical go with --cpus"
expect_status "cpuset-run --mems with --set" 125 "$CPUSET_RUN" --set "$S1" --mems "$FIRST" true
K=$(echo "$NODES" | "$PYTHON3" -c "import sys; sys.path.insert(0, '$SRC/tests/topo'); import compare; print(len(compare.cpulist(sys.stdin.read().strip())))")
# inside a set of the machine's nodes (k of them): nodes 0..k-1, node k
# none of the caller's, whatever the machine numbers its nodes
expect_status "inside a set: --mems $K, beyond its $K nodes (1, as a node the machine lacks)" 1 \
	with_san "$CPUSET_RUN" --cpus 0 sh -c '"$0" --cpus 0 --mems "$1" true' "$CPUSET_RUN" "$K"
expect_stderr "(said)" "node $K is not one of this process's nodes"
expect_status "inside a set: --mems $((K - 1)), its last node" 0 \
	with_san "$CPUSET_RUN" --cpus 0 sh -c '"$0" --cpus 0 --mems "$1" sh -c "\"\$0\" --json show \$CPUSETSHIM_RUN_SET" "$2"' \
	"$CPUSET_RUN" "$((K - 1))" "$CPUSET"
expect_eq "(the machine's last node with memory)" \
	"$("$PYTHON3" -c 'import json,sys; print(json.load(sys.stdin)["set"]["mems"])' <"$T/out")" \
	"$(echo "$NODES" | "$PYTHON3" -c "import sys; sys.path.insert(0, '$SRC/tests/topo'); import compare; print(compare.cpulist(sys.stdin.read().strip())[-1])")"

# four nodes made up: node 0 with this machine's CPUs, nodes 1-3 with
# memory only, their files in the kernel's formats over the real ones in
# a private mount namespace; the table made there has the four for its
# root's nodes. The kernel knows none but its own: a node it lacks is
# beyond the caller's Mems_allowed (refused) unless root says --override,
# and the program's binding to such nodes fails (it runs unbound).
cat >"$T/fake_nodes" <<'NODES'
#!/bin/sh
# (run after the mount: node 0's cpumap is the real one, kept in $T/cpumap)
d=/sys/devices/system/node
cpus=$(cat /sys/devices/system/cpu/online)
for f in online possible has_memory has_normal_memory; do echo 0-3 >"$d/$f"; done
echo 0 >"$d/has_cpu"
for k in 0 1 2 3; do
	mkdir "$d/node$k"
	if [ $k = 0 ]; then
		echo "$cpus" >"$d/node$k/cpulist"
		cp "$T/cpumap" "$d/node$k/cpumap"
	else
		echo >"$d/node$k/cpulist"
		sed 's/[0-9a-f]/0/g' "$d/node0/cpumap" >"$d/node$k/cpumap"
	fi
	echo "10 20 20 20" | awk -v k=$k '{ $(k + 1) = 10; for (i = 1; i <= 4; i++) if (i != k + 1) $i = 20; print }' >"$d/node$k/distance"
	printf 'Node %d MemTotal:       %d kB\n' $k $((1048576 * (k + 1))) >"$d/node$k/meminfo"
done
NODES
# $T/show: what a program of a set made by cpuset-run shows: its set's
# nodes in the table (physical: --physical, as its own numbers are the
# set's 0..k-1), its node list and node 0's first line
cat >"$T/show" <<'SHOW'
#!/bin/sh
"$CPUSET" --physical --json show "$CPUSETSHIM_RUN_SET" | "$PYTHON3" -c 'import json,sys; print(json.load(sys.stdin)["set"]["mems"])'
cat /sys/devices/system/node/online /sys/devices/system/node/node0/meminfo
SHOW
# $T/try: one cpuset-run, as a line "ARGS -> OUTPUT rc=STATUS" of
# $T/tries (spaces squeezed)
cat >"$T/try" <<'TRY'
#!/bin/sh
out=$("$CPUSET_RUN" "$@" 2>&1)
echo "$* -> $(echo "$out" | tr -s '\n ' '  ')rc=$?" >>"$T/tries"
TRY
# $T/inner: the same, from inside a set
cat >"$T/inner" <<'INNER'
#!/bin/sh
for a in "--mems 1" "--mems 0-1" "--mems 2" "--physical --mems 3" "--physical --mems 1"; do
	"$T/try" --override --cpus 0 $a "$T/show" inside
done
INNER
chmod +x "$T/fake_nodes" "$T/show" "$T/try" "$T/inner"
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
	skip "--mems on four made-up nodes" "needs root and unshare (util-linux) for a mount namespace"
else
	CPUSET_RUN=$CPUSET_RUN CPUSET=$CPUSET PYTHON3=$PYTHON3 T=$T \
		unshare -m --propagation private sh -c "
		cat /sys/devices/system/node/node0/cpumap >'$T/cpumap' 2>/dev/null ||
			printf '%x\\n' \$(( (1 << \$(nproc --all)) - 1 )) >'$T/cpumap'
		mount -t tmpfs cpusetshim-nodes /sys/devices/system/node || exit 1
		'$T/fake_nodes' || exit 1
		export CPUSETSHIM_TABLE=\$CPUSETSHIM_TABLE.fake CPUSET_RUN CPUSET PYTHON3 T
		'$CPUSET' init >/dev/null || exit 1
		env $(san_env) '$T/try' --cpus 0 --mems 2 true
		env $(san_env) '$T/try' --override --cpus 0 --mems 2 '$T/show'
		env $(san_env) '$T/try' --override --cpus 0 --mems 1-2 '$T/inner'
		rm -rf /dev/shm/\$CPUSETSHIM_TABLE /dev/shm/\$CPUSETSHIM_TABLE.views.*" >"$T/fake.out" 2>&1
	note "four made-up nodes, 0 with CPUs, 1-3 memory only:"
	show "$T/fake.out"
	show "$T/tries"
	got() { awk -v k="$1 -> " 'index($0, k) == 1 { print substr($0, length(k) + 1) }' "$T/tries"; }
	expect_match "outside any set, --mems 2: beyond the kernel's Mems_allowed or cgroup (exit 1)" \
		"$(got '--cpus 0 --mems 2 true')" "(Mems_allowed|cgroup cpuset).*EACCES.*rc=1$"
	expect_eq "outside any set, --override --mems 2: node 2, seen as node 0" \
		"$(got "--override --cpus 0 --mems 2 $T/show")" "2 0 Node 0 MemTotal: 3145728 kB rc=0"
	expect_match "in a set of nodes 1-2, --mems 1: its node 1 (the machine's 2), seen as node 0" \
		"$(got "--override --cpus 0 --mems 1 $T/show inside")" "^2 0 Node 0 MemTotal: 3145728 kB rc=0"
	expect_eq "in a set of nodes 1-2, --mems 0-1: its two nodes" \
		"$(got "--override --cpus 0 --mems 0-1 $T/show inside")" "1-2 0-1 Node 0 MemTotal: 2097152 kB rc=0"
	expect_match "in a set of nodes 1-2, --mems 2: none of its nodes (exit 1)" \
		"$(got "--override --cpus 0 --mems 2 $T/show inside")" "node 2 is not one of this process's nodes \\(0-1, .*rc=1$"
	expect_match "in a set of nodes 1-2, --physical --mems 3: not in the set (exit 1)" \
		"$(got "--override --cpus 0 --physical --mems 3 $T/show inside")" "not in the parent set.*rc=1$"
	expect_eq "in a set of nodes 1-2, --physical --mems 1: the machine's node 1" \
		"$(got "--override --cpus 0 --physical --mems 1 $T/show inside")" "1 0 Node 0 MemTotal: 2097152 kB rc=0"
	expect_eq "the set of nodes 1-2 itself ran its checks" \
		"$(grep -c -- ' -> ' "$T/tries")" 8
fi

expect_status "cpuset-inspect --check after everything" 0 "$CPUSET_INSPECT" --check

finish
