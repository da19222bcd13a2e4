#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The memory-policy system calls under the shim (preload/mempolicy.c),
# through syscall(3) as libnuma makes them:
# - on this machine's kernel, in a set: every answer the kernel's own
#   (the set's nodes are the machine's nodes with memory, numbered from 0);
# - on a fake kernel of four nodes preloaded after the shim
#   (tests/fakenuma.c), with the test root's CPUSETSHIM_TEST_MEMS naming
#   the set's nodes 1 and 3: virtual nodes 0 and 1. The fake logs what the
#   kernel was handed, so each translation is checked both ways.
. "$(dirname "$0")/common.sh"
need "$PYTHON3" python3
PROG=$B/tests/prog_mempolicy
FAKE=$B/tests/.libs/libfakenuma.so
[ -x "$PROG" ] && [ -f "$FAKE" ] || die "no $PROG or $FAKE (make check builds them)"

ARGS="allowed 65 allowed 2 allowed 1025 bind 0 65 policy 65 bind 1023 1025 pagenode mbind 0 65 query 3 move 0 move 1 home 0 home 1 fault allowed 0 badmode highbit bind 0 40000 policy 65537 allowed 65537 bind 0 0 bind 0,8192 8194 bind 0,20000 32769 staticrel 0 65 migrate 1 0 migrate 0,1 0 movemany 300 299 1 movemany 3 2 1"

# this kernel: the shim in a set of one CPU gives exactly the native answers
# when the set's nodes are the machine's (one node here, or the machine's
# nodes when they are numbered 0..n-1)
NODES=$(cat /sys/devices/system/node/has_memory 2>/dev/null || echo 0)
"$CPUSET" init --force >/dev/null
"$PROG" $ARGS >"$T/native" 2>&1
with_san "$CPUSET_RUN" --cpus 0 -- "$PROG" $ARGS >"$T/shim" 2>&1
case $NODES in
0|0-*)
	expect_eq "this kernel: the shim's answers are the kernel's" "$(cat "$T/shim")" "$(cat "$T/native")" ;;
*)	skip "this kernel: the machine's nodes ($NODES) are not numbered from 0" ;;
esac
grep Mems /proc/self/status >"$T/native.status"
with_san "$CPUSET_RUN" --cpus 0 -- grep Mems /proc/self/status >"$T/shim.status"
case $NODES in
0|0-*)
	expect_eq "this kernel: status's Mems_allowed lines are the kernel's" \
		"$(cat "$T/shim.status")" "$(cat "$T/native.status")" ;;
*)	skip "this kernel: the machine's nodes ($NODES) are not numbered from 0" ;;
esac
# under the test root the set's nodes are 1 and 3 (of a machine of
# more): the task is allowed those of them this kernel allows it, by
# their ranks
want=$("$PYTHON3" -c 'import sys
allowed=set()
for part in sys.argv[1].split(","):
    if part:
        a,_,b=part.partition("-"); allowed.update(range(int(a),int(b or a)+1))
print(",".join(str(i) for i,n in enumerate((1,3)) if n in allowed))' \
	"$(sed -n 's/^Mems_allowed_list:\t//p' /proc/self/status)")
env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_TEST_ROOT="$T" CPUSETSHIM_TEST_MEMS=1,3 \
	grep Mems_allowed_list /proc/self/status >"$T/troot.status"
expect_eq "status under the test root: the set's nodes {1,3} the kernel allows, renumbered" \
	"$(cut -f2 "$T/troot.status")" "$want"
# numa_maps by the set's nodes {1,3}: another process's, read outside and
# under the shim; each N<node>= and the policy's nodes renumbered (this
# machine's nodes outside {1,3} read as 2 + their number), in order
# what other processes change between two reads: how many map a page
# (mapmax=) and which pages are active (active=)
steady() { sed 's/ mapmax=[0-9]*//; s/ active=[0-9]*//' "$@"; }
sleep 30 &
sp=$!
at_exit "kill $sp 2>/dev/null"
# settled first: its start (the locale's files mapped, the heap grown)
# changes its maps, and a loaded machine stretches that start; two reads
# alike 0.1 s apart, the process asleep
settled=
for _i in $(seq 1 100); do
	a=$(steady "/proc/$sp/numa_maps")
	sleep 0.1
	if [ "$(cut -d' ' -f3 "/proc/$sp/stat")" = S ] && [ "$a" = "$(steady "/proc/$sp/numa_maps")" ]; then
		settled=1
		break
	fi
done
[ -n "$settled" ] || die "sleep 30 (pid $sp) did not settle in 10 s"
outside cat "/proc/$sp/numa_maps" >"$T/nm.real" 2>&1
env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_TEST_ROOT="$T" CPUSETSHIM_TEST_MEMS=1,3 \
	cat "/proc/$sp/numa_maps" >"$T/nm.view" 2>&1
"$PYTHON3" - "$T/nm.real" >"$T/nm.want" <<'PY'
import re, sys
mems = [1, 3]
def v(p):
    return mems.index(p) if p in mems else len(mems) + p
def nodes(text):
    out = set()
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.update(v(n) for n in range(int(a), int(b or a) + 1))
    out = sorted(out)
    runs, i = [], 0
    while i < len(out):
        j = i
        while j + 1 < len(out) and out[j + 1] == out[j] + 1:
            j += 1
        runs.append(str(out[i]) if i == j else "%d-%d" % (out[i], out[j]))
        i = j + 1
    return ",".join(runs)
for line in open(sys.argv[1]).read().splitlines():
    m = re.match(r"(\S+ )((?:prefer \(many\)|weighted interleave|\S+?))(?:(=\S*?)?:(\S+))?( .*|)$", line)
    addr, mode, flags, nl, rest = m.groups()
    pol = mode + (flags or "") + (":" + nodes(nl) if nl else "")
    fields = rest.split(" ")[1:]
    ns = sorted((v(int(f[1:f.index("=")])), f[f.index("="):]) for f in fields
                if re.match(r"N\d+=", f))
    out, done = [], False
    for f in fields:
        if re.match(r"N\d+=", f):
            if not done:
                out += ["N%d%s" % x for x in ns]
                done = True
        else:
            out.append(f)
    print(addr + pol + "".join(" " + f for f in out))
PY
expect_eq "numa_maps of another process by the set's nodes {1,3}, its own lines" \
	"$(wc -l <"$T/nm.view")" "$(wc -l <"$T/nm.real")"
expect_eq "numa_maps: N<node>= and the policy's nodes renumbered, in order" \
	"$(steady "$T/nm.view")" "$(steady "$T/nm.want")"
expect_eq "numa_maps: this machine's node 0, outside {1,3}, reads as 2" \
	"$(grep -c ' N2=' "$T/nm.view")" "$(grep -c ' N0=' "$T/nm.real")"
expect_eq "numa_maps without nodes of the set's own: the file as it is" \
	"$(env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_TEST_ROOT="$T" cat "/proc/$sp/numa_maps" 2>&1 | steady)" \
	"$(steady "$T/nm.real")"
expect_eq "numa_maps with CPUSETSHIM_VIEW_NUMA_MAPS=0: the file as it is" \
	"$(env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_TEST_ROOT="$T" CPUSETSHIM_TEST_MEMS=1,3 \
		CPUSETSHIM_VIEW_NUMA_MAPS=0 cat "/proc/$sp/numa_maps" 2>&1 | steady)" "$(steady "$T/nm.real")"
kill $sp 2>/dev/null

# the captured cgroup's node lists (v1 cpuset.mems, 0-3) by the set's
# nodes {1,3}: 0-1; without nodes of its own: as captured
mkdir -p "$T/cg/proc/self" "$T/cg/sys/fs/cgroup/cpuset/job"
printf '4:cpuset:/job\n' >"$T/cg/proc/self/cgroup"
printf '30 20 0:26 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n' >"$T/cg/proc/self/mountinfo"
printf '0-3\n' >"$T/cg/sys/fs/cgroup/cpuset/job/cpuset.mems"
printf '0-3\n' >"$T/cg/sys/fs/cgroup/cpuset/job/cpuset.effective_mems"
printf '2\n' >"$T/cg/sys/fs/cgroup/cpuset/cpuset.mems"
for f in cpuset.mems cpuset.effective_mems; do
	expect_eq "the cgroup's $f by the set's nodes {1,3}" \
		"$(env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_TEST_ROOT="$T/cg" CPUSETSHIM_TEST_MEMS=1,3 \
			cat "$T/cg/sys/fs/cgroup/cpuset/job/$f" 2>&1)" "0-1"
	expect_eq "the cgroup's $f without nodes of the set's own: as it is" \
		"$(env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_TEST_ROOT="$T/cg" \
			cat "$T/cg/sys/fs/cgroup/cpuset/job/$f" 2>&1)" "0-3"
done
expect_eq "another cgroup's cpuset.mems: not the caller's, as it is" \
	"$(env $(san_env) LD_PRELOAD="$SHIM_PRELOAD" CPUSETSHIM_TEST_ROOT="$T/cg" CPUSETSHIM_TEST_MEMS=1,3 \
		cat "$T/cg/sys/fs/cgroup/cpuset/cpuset.mems" 2>&1)" "2"
expect_eq "this kernel: a node the set lacks is refused" "$(sed -n 6p "$T/shim")" "-1 22"
expect_eq "this kernel: moving a page to it too (ENODEV)" "$(sed -n 11p "$T/shim")" "-1 19 12345"
expect_eq "this kernel: an unreadable mask is EFAULT, no crash" "$(sed -n 14p "$T/shim")" "-1 14"
expect_eq "this kernel: a bad mode comes first, as the kernel checks it" "$(sed -n 16p "$T/shim")" "-1 22"
expect_eq "this kernel: a node beyond MAX_NUMNODES is EINVAL" "$(sed -n 17p "$T/shim")" "-1 22"
expect_eq "this kernel: a mask longer than a page is EINVAL" "$(sed -n 18p "$T/shim")" "-1 22"

# a set of the table (its nodes: this machine's) on the fake kernel of
# nodes 0-3: the fake's other nodes are no nodes of the set
rm -f "$T/klog"
env $(san_env) LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD:}$FAKE" FAKENUMA_LOG="$T/klog" FAKENUMA_NODES=0-3 \
	"$CPUSET_RUN" --cpus 0 -- "$PROG" allowed 1025 bind 0 65 >"$T/set" 2>&1
expect_eq "a table's set: MEMS_ALLOWED is its nodes, renumbered" "$(sed -n 1p "$T/set")" \
	"0 0 $("$PYTHON3" -c 'import sys
n=set()
for part in sys.argv[1].split(","):
    a,_,b=part.partition("-"); n.update(range(int(a),int(b or a)+1))
print(",".join(str(i) for i in range(len(n))))' "$NODES")"
expect_eq "a table's set: bind to virtual 0 is its first node" "$(tail -1 "$T/klog")" \
	"set_mempolicy 2 $(echo "$NODES" | sed 's/[-,].*//')"

# the fake kernel of nodes 0-3; the set's nodes 1 and 3 (the test root's)
mkdir -p "$T/root"
fake() {
	rm -f "$T/klog"
	env $(san_env) LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD:}$SHIM:$FAKE" CPUSETSHIM_TEST_ROOT="$T/root" \
		CPUSETSHIM_TEST_MEMS=1,3 FAKENUMA_NODES=0-3 FAKENUMA_LOG="$T/klog" \
		FAKENUMA_PAGES=3,-14,0,1 FAKENUMA_NODE=3 "$PROG" "$@"
}
got() { fake "$@" 2>&1 | tail -1; }
klog() { tail -1 "$T/klog" 2>/dev/null; }

expect_eq "MEMS_ALLOWED: the set's two nodes, 0 and 1" "$(got allowed 65)" "0 0 0,1"
expect_eq "MEMS_ALLOWED: a mask of one bit (maxnode 2) holds node 0" "$(got allowed 2)" "0 0 0"
expect_eq "MEMS_ALLOWED: a wide mask (maxnode 4097)" "$(got allowed 4097)" "0 0 0,1"
expect_eq "MEMS_ALLOWED: maxnode below the set's nodes is EINVAL" "$(got allowed 1)" "-1 22"
expect_eq "bind to virtual 1" "$(got bind 1 65)" "0 0"
expect_eq "(the kernel gets node 3)" "$(klog)" "set_mempolicy 2 3"
expect_eq "bind to virtual 0-1" "$(got bind 0-1 65)" "0 0"
expect_eq "(the kernel gets nodes 1 and 3)" "$(klog)" "set_mempolicy 2 1,3"
expect_eq "maxnode - 1 bits are read: maxnode 2 is node 0 alone" "$(got bind 0-1 2)" "0 0"
expect_eq "(the kernel gets node 1)" "$(klog)" "set_mempolicy 2 1"
expect_eq "a mask of 129 bits" "$(got bind 1 129)" "0 0"
expect_eq "(node 3)" "$(klog)" "set_mempolicy 2 3"
expect_eq "a node outside the set is refused" "$(got bind 2 65)" "-1 22"
expect_eq "(the kernel is not asked)" "$(cat "$T/klog" 2>/dev/null)" ""
expect_eq "nodes outside the set are left out" "$(got bind 1,2,40 65)" "0 0"
expect_eq "(node 3 alone)" "$(klog)" "set_mempolicy 2 3"
expect_eq "relative nodes fold onto the set" "$(got relbind 2-3 65)" "0 0"
expect_eq "(nodes 1 and 3, static)" "$(klog)" "set_mempolicy 32770 1,3"
expect_eq "the policy read back: virtual" "$(got bind 1 65 policy 65)" "0 0 2 1"
expect_eq "the policy read back in a wide mask" "$(got bind 0-1 65 policy 3000)" "0 0 2 0,1"
expect_eq "MPOL_F_NODE: the interleave node 3 is virtual 1" "$(got next)" "0 0 1"
expect_eq "MPOL_F_NODE|MPOL_F_ADDR: a page on node 3" "$(got pagenode)" "0 0 1"
expect_eq "mbind to virtual 0" "$(got mbind 0 65)" "0 0"
expect_eq "(the kernel gets node 1)" "$(klog)" "mbind 2 1 0"
expect_eq "mbind to a node outside the set" "$(got mbind 5 65)" "-1 22"
expect_eq "move_pages status: 3 -> 1, an error kept, node 0 outside the set -> 2 + 0, 1 -> 0" \
	"$(got query 4)" "0 0 1 -14 2 0"
expect_eq "move_pages nodes 1,0 -> 3,1, status back to 1,0" "$(got move 1,0)" "0 0 1 0"
expect_eq "(the kernel gets 3 1)" "$(klog)" "move_pages 2 3 1"
expect_eq "move_pages to a node the set lacks: ENODEV, the entry before it moved" \
	"$(got move 0,2)" "-1 19 0 12345"
expect_eq "move_pages of 300 entries, the last to a node the set lacks: ENODEV" \
	"$(got movemany 300 299 2)" "-1 19 299 299"
expect_eq "(the 299 before it moved, past the shim's chunk of 256: node 1)" \
	"$(klog | cut -d' ' -f1-3)" "move_pages 43 1"
expect_eq "move_pages whose first entry is a node the set lacks: nothing moved" \
	"$(got movemany 3 0 5)" "-1 19 0 0"
expect_eq "migrate_pages 0 -> 1" "$(got migrate 0 1)" "0 0"
expect_eq "(the kernel gets 1 -> 3)" "$(klog)" "migrate_pages 0 1 3"
expect_eq "migrate_pages from a node the set lacks: nothing to move, 0" "$(got migrate 2 1)" "0 0"
expect_eq "(the kernel gets no node -> 3)" "$(klog)" "migrate_pages 0 - 3"
expect_eq "migrate_pages from 0 and a node the set lacks" "$(got migrate 0,5 1)" "0 0"
expect_eq "(the kernel gets 1 -> 3)" "$(klog)" "migrate_pages 0 1 3"
expect_eq "maxnode 0 with a mask: EINVAL, the kernel not asked" "$(got bind 0 0)" "-1 22"
expect_eq "(nothing asked)" "$(cat "$T/klog" 2>/dev/null)" ""
expect_eq "MPOL_F_STATIC_NODES with MPOL_F_RELATIVE_NODES: the kernel's answer" \
	"$(got staticrel 0 65)" "-1 22"
expect_eq "a node bit at 8,192 (beyond MAX_NUMNODES): EINVAL" "$(got bind 0,8192 8194)" "-1 22"
expect_eq "set_mempolicy_home_node 1" "$(got home 1)" "0 0"
expect_eq "(node 3)" "$(klog)" "home_node 3"
expect_eq "set_mempolicy_home_node outside the set" "$(got home 2)" "-1 22"
expect_eq "an unreadable mask: EFAULT" "$(got fault)" "-1 14"
finish
