#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A set never reaches beyond the CPUs the kernel allows its creator, outside
# Slurm: a process under taskset -c 0, and one in a cgroup cpuset of CPU 0
# (v1 or v2, made here and removed after). create, alloc and attach are
# refused with EACCES naming the CPUs and the reason; cpuset-run exits 1 and
# never runs the program in a set it could not enforce, nor does the shim
# for a program started with CPUSETSHIM_SET; it adopts CPUSETSHIM_RUN_SET
# only when its kernel mask lies inside the set;
# the table's root is the machine's online CPUs whoever makes it. And
# members that died, zombies included, leave their sets (cpuset destroy).
. "$(dirname "$0")/common.sh"

need taskset util-linux
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || skip_all "needs 2 CPUs"
AFF=$B/tests/integration/prog_affinity
touch "$T/go"
# what a program under the shim sees and really has: "vmask L real_mask L"
seen() {
	env $(san_env) LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD:}$SHIM" "$@" "$AFF" --hold "$T/go" |
		sed -n 's/.*vmask \([^ ]*\) real_mask \([^ ]*\).*/\1 \2/p'
}
ONLINE=$(cat /sys/devices/system/cpu/online)

# --- the root is the machine's online CPUs, though made under taskset -c 1 ---
taskset -c 1 "$CPUSET" init >/dev/null
"$CPUSET" list >"$T/out"
expect_eq "root made under taskset -c 1" "$(awk '$3 == "root" { print $NF }' "$T/out")" "$ONLINE"

# --- taskset -c 0 ---
expect_status "taskset -c 0: create CPU 1" 1 taskset -c 0 "$CPUSET" create --cpus 1
expect_stderr "names the CPU and the reason" "CPU 1 is outside the caller's affinity (0) (EACCES)"
expect_status "taskset -c 0: create CPU 0" 0 taskset -c 0 "$CPUSET" create --cpus 0 --name zero
expect_status "taskset -c 0: alloc adds CPU 1" 1 taskset -c 0 "$CPUSET" alloc zero 0-1
expect_stderr "alloc names the CPU" "CPU 1 is outside the caller's affinity (0) (EACCES)"
"$CPUSET" create --cpus 0-1 --name wide >/dev/null
expect_status "taskset -c 0: alloc narrowing a wider set" 0 taskset -c 0 "$CPUSET" alloc wide 0-1
expect_status "taskset -c 0: attach into a wider set" 1 taskset -c 0 sh -c '"$1" attach wide $$' - "$CPUSET"
expect_stderr "attach says why" "CPU 1 is outside the caller's affinity (0) (EACCES)"
expect_status "taskset -c 0: cpuset-run --cpus 1" 1 taskset -c 0 "$CPUSET_RUN" --cpus 1 -- true
expect_stderr "cpuset-run names the CPU" "CPU 1 is outside the caller's affinity (0)"
expect_status "taskset -c 0: cpuset-run --set wide" 1 taskset -c 0 "$CPUSET_RUN" --set wide -- true
# nothing of the refused runs is left
"$CPUSET" sweep >/dev/null
expect_eq "no set left by refused runs" "$("$CPUSET" list | awk 'NR > 1 { print $3 }' | sort | tr '\n' ' ')" "root wide zero "
if [ "$(id -u)" = 0 ]; then
	expect_status "root: --override explicitly" 0 taskset -c 0 "$CPUSET" --override create --cpus 1 --name forced
	expect_status "root without --override is refused" 1 taskset -c 0 "$CPUSET" create --cpus 1
else
	expect_status "--override is root's only" 1 "$CPUSET" --override create --cpus 1
fi
# the shim: a set named by the environment that the kernel mask is not
# inside. CPUSETSHIM_SET names it as cpuset-run --set does: the program
# stops before main with cpuset-run's message and status
"$CPUSET" create --cpus 1 --name one >/dev/null
expect_status "CPUSETSHIM_SET under taskset -c 0: the program does not run" 1 \
	taskset -c 0 env $(san_env) LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD:}$SHIM" CPUSETSHIM_SET=one \
	"$AFF" --hold "$T/go"
expect_stderr "it says cpuset-run's reason" \
	"cpusetshim: CPUSETSHIM_SET: attach to set $("$CPUSET" --json show one | "$PYTHON3" -c 'import json,sys; print(json.load(sys.stdin)["set"]["id"])'): CPU 1 is outside the caller's affinity (0) (EACCES)"
expect_eq "nothing on its standard output" "$(cat "$T/out")" ""
expect_eq "CPUSETSHIM_RUN_SET under taskset -c 0: passes through" \
	"$(seen taskset -c 0 env CPUSETSHIM_RUN_SET=one CPUSETSHIM_DEBUG=1 2>"$T/err")" "0 0"
expect_stderr "CPUSETSHIM_DEBUG says why (RUN_SET)" "that CPUSETSHIM_RUN_SET names"
# every view gives that one answer, the machine's, never a mix (a task
# that srun started elsewhere with the client's environment), and the
# launch leaves nothing in the table
views='grep -c ^processor /proc/cpuinfo; cat /sys/devices/system/cpu/online; nproc --all; nproc
	grep Cpus_allowed_list /proc/self/status; grep -c "^cpu[0-9]" /proc/stat'
expect_eq "CPUSETSHIM_RUN_SET under taskset -c 0: every view the machine's" \
	"$(taskset -c 0 env $(san_env) LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD:}$SHIM" CPUSETSHIM_RUN_SET=one sh -c "$views")" \
	"$(taskset -c 0 sh -c "$views")"
expect_eq "and it is no member of the set it named" \
	"$("$CPUSET" --json show one | "$PYTHON3" -c 'import json,sys; print(json.load(sys.stdin)["set"]["members"])')" 0
expect_eq "CPUSETSHIM_SET with both CPUs allowed: confined" "$(seen env CPUSETSHIM_SET=one)" "0 1"
# a set with a CPU the caller may not run on is refused, as by cpuset-run
# (never widened, nor narrowed in silence)
expect_status "CPUSETSHIM_SET=wide under taskset -c 1: refused" 1 \
	taskset -c 1 env $(san_env) LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD:}$SHIM" CPUSETSHIM_SET=wide \
	"$AFF" --hold "$T/go"
expect_stderr "naming the CPU" "CPU 0 is outside the caller's affinity (1) (EACCES)"

# --- a cgroup cpuset of CPU 0 ---
CG=
cg_made=
if [ "$(id -u)" = 0 ] && [ -w /sys/fs/cgroup/cpuset ] && [ -f /sys/fs/cgroup/cpuset/cpuset.cpus ]; then
	CG=/sys/fs/cgroup/cpuset/cpst-allow.$$
	mkdir "$CG" && echo 0 >"$CG/cpuset.cpus" && cat /sys/fs/cgroup/cpuset/cpuset.mems >"$CG/cpuset.mems" &&
		cg_made=v1
elif [ "$(id -u)" = 0 ] && grep -qw cpuset /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	CG=/sys/fs/cgroup/cpst-allow.$$
	echo +cpuset >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	mkdir "$CG" && echo 0 >"$CG/cpuset.cpus" && cg_made=v2
fi
if [ -n "$cg_made" ]; then
	at_exit "rmdir $CG 2>/dev/null"
	# incg CMD...: CMD in the cgroup (a shell that moves itself first)
	printf '#!/bin/sh\necho $$ >"%s/cgroup.procs" && exec "$@"\n' "$CG" >"$T/incg"
	chmod +x "$T/incg"
	incg() { "$T/incg" "$@"; }
	expect_status "cgroup $cg_made {0}: create CPU 1" 1 incg "$CPUSET" create --cpus 1
	expect_stderr "names the cgroup" "CPU 1 is outside the caller's cgroup cpuset ($CG/"
	expect_status "cgroup {0}: cpuset-run --cpus 1" 1 incg "$CPUSET_RUN" --cpus 1 -- true
	expect_stderr "cpuset-run names the cgroup" "outside the caller's cgroup cpuset"
	expect_status "cgroup {0}: cpuset-run --set one" 1 incg "$CPUSET_RUN" --set one -- true
	expect_status "cgroup {0}: cpuset-run --cpus 0 runs" 0 incg env $(san_env) "$CPUSET_RUN" --cpus 0 -- true
	expect_status "cgroup {0}: CPUSETSHIM_SET=one, the program does not run" 1 \
		incg env $(san_env) LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD:}$SHIM" CPUSETSHIM_SET=one \
		"$AFF" --hold "$T/go"
	expect_stderr "cpuset-run's reason (cgroup)" "outside the caller's cgroup cpuset"
	if [ "$(id -u)" = 0 ]; then
		# root forcing its way past the rule: the kernel narrows, cpuset-run refuses to run
		expect_status "cgroup {0}: --override --set wide, narrowed" 1 \
			incg "$CPUSET_RUN" --override --set wide -- true
		expect_stderr "cpuset-run says the kernel narrowed it" \
			"the kernel narrowed the affinity: the set's CPUs are 0-1, the kernel lets this process run on 0"
		expect_status "cgroup {0}: --override --set one, refused" 1 \
			incg "$CPUSET_RUN" --override --set one -- true
		expect_stderr "cpuset-run says the kernel refused it" "the kernel refused the affinity"
	fi
	check "the cgroup is removed" rmdir "$CG"
else
	skip "the cgroup cases" "no writable cpuset cgroup (v1 or v2) here"
fi
# --- members that died: cpuset destroy of an AUTOCLEAN set they leave,
# and a zombie (ended, not reaped) member ---
"$CPUSET" create --cpus 0 --autoclean --name gone >/dev/null
sleep 30 &
p=$!
"$CPUSET" attach gone "$p"
kill "$p"
wait "$p" 2>/dev/null
expect_status "destroy of an AUTOCLEAN set whose members died" 0 "$CPUSET" destroy gone
expect_status "and it is gone" 1 "$CPUSET" show gone
"$CPUSET" create --cpus 0 --name zombie >/dev/null
# a child that ends soon, never reaped by its parent (which sleeps on)
"$PYTHON3" -c 'import os, sys, time
p = os.fork()
if p == 0:
    time.sleep(0.5)
    os._exit(0)
print(p, flush=True)
time.sleep(10)' >"$T/zpid" &
zparent=$!
wait_until [ -s "$T/zpid" ]
z=$(cat "$T/zpid")
check "attach the child while it lives" "$CPUSET" attach zombie "$z"
wait_until eval '[ "$(cut -d" " -f3 "/proc/$z/stat" 2>/dev/null)" = Z ]'
expect_eq "the child is a zombie now" "$(cut -d' ' -f3 "/proc/$z/stat" 2>/dev/null)" Z
expect_status "destroy of a set whose member is a zombie" 0 "$CPUSET" destroy zombie
kill "$zparent" 2>/dev/null
wait "$zparent" 2>/dev/null

check "cpuset-inspect --check" "$CPUSET_INSPECT" --check
finish
