#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# cpuset-oci-hook, run by runc as the createRuntime hook its bundle's
# config.json lists (no cpuset-run supervisor): a dynamic glibc program of
# an image built here sees its set's numbers through the hook alone, in
# sets {1} and {0,1} and in a set nested in another, its kernel mask read
# outside the container; under the supervisor the hook stands aside; a
# container in no set is left untouched (no mount, no file); with
# --cgroup-sets a container given a cpuset by runc itself is numbered
# from 0; a user other than root finds
# its table; a set-user-id program gets the shim, which stands aside.
# The container's own cpuset (linux.resources.cpu.cpus, podman's
# --cpuset-cpus) names the set's virtual CPUs: made physical in its
# cgroup (the kernel's mask read outside), refused beyond the set,
# numbered from 0 inside; under the supervisor too; left alone outside
# any set.
# Hostile images: /etc a symbolic link to a host directory,
# /etc/ld.so.preload one to a host file (refused, the host untouched), an
# LD_PRELOAD of the image's own (the shim still loaded, the image's
# library too), writes through every mounted file (refused: read-only).
# The hook's own refusals: a bad state (2), no table (0, nothing).
# Slow: one of SLOW_TESTS.
. "$(dirname "$0")/../common.sh"

need gcc gcc
need busybox busybox-static
need runc runc
need pgrep procps
need taskset util-linux
[ "$(id -u)" = 0 ] || skip_all "runc and the hook's mounts need root"
BB=$(command -v busybox)
file -L "$BB" 2>/dev/null | grep -q 'statically linked' ||
	skip_all "busybox is not static here (busybox-static)"
HOOK=$B/cpuset-oci-hook
[ -x "$HOOK" ] || die "no $HOOK (make builds it)"

# ---- the image ----
IMG=$T/img
mkdir -p "$IMG/bin" "$IMG/lib" "$IMG/etc" "$IMG/dev" "$IMG/proc" "$IMG/sys" "$IMG/tmp" "$IMG/root"
cp "$BB" "$IMG/bin/busybox"
for a in sh cat grep echo cmp id env; do ln -s busybox "$IMG/bin/$a"; done
echo "root:x:0:0:root:/root:/bin/sh" >"$IMG/etc/passwd"
gcc -O2 -pthread -o "$IMG/bin/dyn" "$SRC/tests/integration/prog_supervised.c" ||
	die "gcc cannot build the dynamic program"
cp "$IMG/bin/dyn" "$IMG/bin/dyn-suid"
chmod 4755 "$IMG/bin/dyn-suid"
# the image's own preload library: it says it is loaded
printf '%s\n' '#include <stdio.h>' \
	'__attribute__((constructor)) static void hello(void) { fputs("imagelib: loaded\n", stderr); }' \
	>"$T/imagelib.c"
gcc -O2 -shared -fPIC -o "$IMG/lib/imagelib.so" "$T/imagelib.c" || die "gcc cannot build a library"
# the programs' loader and libraries, the shim's (its path inside is the
# hook's), and in a sanitizer build the sanitizer runtimes
for f in "$IMG/bin/dyn" "$SHIM" $(echo "$SAN_PRELOAD" | tr : " "); do
	for l in $(LD_PRELOAD='' ldd "$f" | grep -o '/[^ ]*') $(echo "$f" | grep -v "^$IMG\|$SHIM"); do
		mkdir -p "$IMG$(dirname "$l")"
		[ -e "$IMG$l" ] || cp -L "$l" "$IMG$l"
	done
done
[ ! -e "$IMG$SHIM" ] || die "the image holds the shim's host path $SHIM"
[ ! -e "$IMG/etc/ld.so.preload" ] || die "the image has an /etc/ld.so.preload"

two_sets
SHIM_SUM=$(cksum <"$SHIM")
# the hook's mounts inside: the container's /proc/self/mountinfo lines
MOUNTS='grep -E " (/etc/ld\.so\.preload|/dev/cpusetshim/[^ ]*|/dev/shm/cpusetshim\.[0-9]+) " /proc/self/mountinfo'

# bundle DIR ROOT OPTS -- ARGS...: an OCI bundle in DIR (runc spec's
# configuration), ROOT its read-only root, ARGS its process, and OPTS
# (words): hook (the hook listed, at createRuntime; stage=S at S instead),
# suid (set-user-id bits honoured: no no_new_privs),
# hook-cg (with --cgroup-sets), cpus=L
# (runc gives it a cpuset), mems=L (memory nodes), uid=U, preload=P (LD_PRELOAD of the image,
# after the sanitizer runtimes)
bundle() {
	_d=$1 _r=$2 _o=$3
	shift 4
	mkdir -p "$_d"
	[ -f "$T/config.spec" ] || (cd "$T" && runc spec && mv config.json config.spec) ||
		die "runc spec failed"
	"$PYTHON3" - "$T/config.spec" "$_d/config.json" "$_r" "$_o" "$HOOK" "$CPUSETSHIM_TABLE" \
		"$SHIM" "$SAN_PRELOAD" "$(san_env | tr ' ' '\n' | grep -v '^LD_PRELOAD=' | tr '\n' ' ')" "$@" <<-'PY'
		import json, sys
		spec, out, root, opts, hook, table, shim, san, sanenv = sys.argv[1:10]
		c = json.load(open(spec))
		p = c["process"]
		p["terminal"] = False
		p["args"] = sys.argv[10:]
		c["root"] = {"path": root, "readonly": True}
		o = dict(w.split("=", 1) if "=" in w else (w, "") for w in opts.split())
		pre = ":".join(x for x in (san, o.get("preload")) if x)
		if pre or "preload" in o:
		    p["env"].append("LD_PRELOAD=" + pre)
		p["env"] += sanenv.split()
		if "suid" in o:
		    p["noNewPrivileges"] = False
		if "uid" in o:
		    p["user"] = {"uid": int(o["uid"]), "gid": int(o["uid"])}
		for k in ("cpus", "mems"):
		    if k in o:
		        c["linux"].setdefault("resources", {}).setdefault("cpu", {})[k] = o[k]
		args = [hook, "--table", table, "--shim", shim]
		if "hook-cg" in o:
		    args.append("--cgroup-sets")
		if "hook" in o or "hook-cg" in o:
		    c["hooks"] = {o.get("stage", "createRuntime"): [{"path": hook, "args": args}]}
		json.dump(c, open(out, "w"))
	PY
}
n_run=0
# run DIR: runc run on the bundle DIR (output in $T/out, $T/err)
run() {
	n_run=$((n_run + 1))
	runc run --bundle "$1" "cps-hook-$$-$n_run" >"$T/out" 2>"$T/err" </dev/null
}
no_ldso() {
	expect_nomatch "$1: no ld.so text" "$(cat "$T/err")" "ld\.so|cannot be preloaded|LD_PRELOAD"
}

# ---- the hook by itself ----
echo '{"pid": 1' | "$HOOK" --table "$CPUSETSHIM_TABLE" >"$T/out" 2>"$T/err"
expect_eq "a state that is not JSON: exit 2" "$?" 2
expect_match "a state that is not JSON: said" "$(cat "$T/err")" 'no valid "pid"'
echo "{\"pid\": $$, \"bundle\": \"$T/nowhere\"}" | "$HOOK" --table "no-such-table.$$" >"$T/out" 2>&1
expect_eq "no table: exit 0, nothing said" "$?:$(cat "$T/out")" "0:"
echo "{\"pid\": $$, \"bundle\": \"$T/nowhere\"}" | "$HOOK" --table "$CPUSETSHIM_TABLE" --dry-run >"$T/out" 2>&1
expect_eq "a process in no set, --dry-run: nothing to do" "$?:$(cat "$T/out")" \
	"0:container $$: in no set: nothing to do"
progress

# ---- a container in no set: untouched ----
bundle "$T/b0" "$IMG" hook -- sh -c "/bin/dyn counts; $MOUNTS; true"
run "$T/b0"
expect_eq "in no set: runc with the hook runs" "$?" 0
expect_eq "in no set: the machine's answer, no mount of the hook's" "$(cat "$T/out")" \
	"$(outside "$IMG/bin/dyn" counts)"
expect_eq "in no set: nothing made in the image" \
	"$(ls -A "$IMG/etc" "$IMG/dev" | tr '\n' ' ')" "$IMG/dev:  $IMG/etc: passwd "
expect_eq "in no set: nothing left in the host's /dev/shm" "$(ls /dev/shm | grep -c '^cpusetshim-oci')" 0
progress

# ---- in a set: the hook alone ----
per_set() {
	vlist=$(seq -s, 0 $((n - 1)))
	bundle "$T/b1" "$IMG" hook -- /bin/dyn counts
	with_san "$CPUSET_RUN" --set "$s" --no-supervise runc run --bundle "$T/b1" "cps-hook-$$-$s-c" \
		>"$T/out" 2>"$T/err" </dev/null
	expect_eq "$t, the hook alone: ONLN CONF nprocs raw affinity" "$(cat "$T/out")" "$n $n $n $vlist"
	no_ldso "$t, the hook alone" "$T/err"
	[ "$(cat /sys/devices/system/cpu/online)" = 0-1 ] && [ "$n" = 2 ] &&
		expect_eq "$t: the host's own answer (the set is the machine)" "$(cat "$T/out")" \
			"$(outside "$IMG/bin/dyn" counts)"
	bundle "$T/b1" "$IMG" hook -- /bin/dyn files
	with_san "$CPUSET_RUN" --set "$s" --no-supervise runc run --bundle "$T/b1" "cps-hook-$$-$s-f" \
		>"$T/out" 2>"$T/err" </dev/null
	expect_eq "$t, the hook alone: cpuinfo, stat, status, online" "$(tr '\n' ' ' <"$T/out")" \
		"$n $n $vrange $vrange "
	# the kernel's truth, read outside the container
	rm -f "$IMG/tmp/go_on"
	bundle "$T/b1" "$IMG" hook -- /bin/dyn held /tmp/go_on
	with_san "$CPUSET_RUN" --set "$s" --no-supervise runc run --bundle "$T/b1" "cps-hook-$$-$s-h" \
		>"$T/held" 2>&1 </dev/null &
	bg=$!
	wait_until grep -q '^pid' "$T/held"
	pid=$(pgrep -f "^/bin/dyn held /tmp/go_on")
	expect_eq "$t, the hook alone: the kernel has it on the set's CPUs" \
		"$(real_cpus "$pid" | tr - ,)" "$list"
	expect_match "$t, the hook alone: it sees them as 0..n-1" "$(cat "$T/held")" \
		"counts $n $n $n $vlist "
	touch "$IMG/tmp/go_on"
	wait $bg
	rm -f "$IMG/tmp/go_on"
	progress
}
# (the image's /tmp is read-only inside: the held program waits for a
# file the test makes outside, in the image's directory)
each_set per_set

# a shell in the set runs runc (no cpuset-run in between)
bundle "$T/b1" "$IMG" hook -- /bin/dyn counts
with_san "$CPUSET_RUN" --set "$S1" sh -c "exec runc run --bundle '$T/b1' cps-hook-$$-sh" \
	>"$T/out" 2>"$T/err" </dev/null
expect_eq "set {1}, runc from a shell in it: the set's numbers" "$(cat "$T/out")" "1 1 1 0"
no_ldso "set {1}, runc from a shell in it"

# nested: a set {1} made inside set {0,1}, runc started in it
bundle "$T/b1" "$IMG" hook -- /bin/dyn counts
with_san "$CPUSET_RUN" --set "$S2" "$CPUSET_RUN" --cpus 1 --no-supervise runc run --bundle "$T/b1" \
	"cps-hook-$$-n" >"$T/out" 2>"$T/err" </dev/null
expect_eq "nested, set {1} of set {0,1}, the hook alone: the set's numbers" "$(cat "$T/out")" "1 1 1 0"
no_ldso "nested, the hook alone"

# at prestart (where the hooks.d file puts it), the same
bundle "$T/b1" "$IMG" "hook stage=prestart" -- /bin/dyn counts
with_san "$CPUSET_RUN" --set "$S1" --no-supervise runc run --bundle "$T/b1" "cps-hook-$$-pre" \
	>"$T/out" 2>"$T/err" </dev/null
expect_eq "set {1}, the hook at prestart: the set's numbers" "$(cat "$T/out")" "1 1 1 0"

# under the supervisor: the hook stands aside (the supervisor answers)
bundle "$T/b1" "$IMG" hook -- sh -c "/bin/dyn counts; $MOUNTS"
with_san "$CPUSET_RUN" --set "$S1" runc run --bundle "$T/b1" "cps-hook-$$-sv" >"$T/out" 2>"$T/err" </dev/null
expect_eq "set {1}, supervised: the set's numbers, no mount of the hook's" "$(cat "$T/out")" "1 1 1 0"

# a user of the image other than root finds its table
bundle "$T/b1" "$IMG" "hook uid=1000" -- sh -c '/bin/dyn counts; id -u'
with_san "$CPUSET_RUN" --set "$S1" --no-supervise runc run --bundle "$T/b1" "cps-hook-$$-u" \
	>"$T/out" 2>"$T/err" </dev/null
expect_eq "set {1}, uid 1000 inside: the set's numbers" "$(tr '\n' ' ' <"$T/out")" "1 1 1 0 1000 "
# a set-user-id program (a copy of root's) run by that user: ld.so.preload
# loads the shim into it, which stands aside in secure-execution mode,
# whatever its caller's environment (here a set that does not exist, and
# the debug switch; doc/limits.md): the machine's numbers on the set's
# CPU, and not a word
bundle "$T/b1" "$IMG" "hook suid uid=1000" -- env CPUSETSHIM_DEBUG=1 CPUSETSHIM_SET=nosuch /bin/dyn-suid counts
with_san "$CPUSET_RUN" --set "$S1" --no-supervise runc run --bundle "$T/b1" "cps-hook-$$-s" \
	>"$T/out" 2>"$T/err" </dev/null
expect_eq "set {1}, a set-user-id program: the machine's numbers on the set's CPU" \
	"$(cat "$T/out")" "$(outside taskset -c 1 "$IMG/bin/dyn" counts)"
expect_nomatch "set {1}, a set-user-id program: the shim says nothing" \
	"$(grep -v 'is a container runtime: with --no-supervise' "$T/err")" "cpusetshim|cpuset-run"
# (the same without the bit: the shim follows the environment, and
# refuses the set it names)
bundle "$T/b1" "$IMG" "hook suid uid=1000" -- env CPUSETSHIM_DEBUG=1 CPUSETSHIM_SET=nosuch /bin/dyn counts
with_san "$CPUSET_RUN" --set "$S1" --no-supervise runc run --bundle "$T/b1" "cps-hook-$$-s2" \
	>"$T/out" 2>"$T/err" </dev/null
expect_match "set {1}, the same program without the bit: the set it names refused" \
	"$(cat "$T/out" "$T/err")" "nosuch.*no such set"
progress

# ---- a cpuset given by the runtime, with --cgroup-sets ----
bundle "$T/b2" "$IMG" "hook-cg cpus=1" -- /bin/dyn counts
run "$T/b2"
expect_eq "runc's cpuset {1}, --cgroup-sets: numbered from 0" "$(cat "$T/out")" "1 1 1 0"
bundle "$T/b2" "$IMG" "hook cpus=1" -- /bin/dyn counts
run "$T/b2"
expect_eq "runc's cpuset {1}, without --cgroup-sets: the machine's numbers on CPU 1" \
	"$(cat "$T/out")" "$(outside taskset -c 1 "$IMG/bin/dyn" counts)"
progress

# ---- the container's own cpuset, named in the set's virtual CPUs ----
# held S SV OPTS: the held program in a bundle with OPTS, run by runc
# from cpuset-run in set S (SV: --no-supervise, or "" for the
# supervisor); its line in $T/held, the kernel's CPUs for it read
# outside in $held_k, and runc's status in $held_rc
held() {
	rm -f "$IMG/tmp/go_on" "$T/held"
	bundle "$T/bh" "$IMG" "$3" -- /bin/dyn held /tmp/go_on
	n_run=$((n_run + 1))
	with_san "$CPUSET_RUN" --set "$1" $2 runc run --bundle "$T/bh" "cps-hook-$$-$n_run" \
		>"$T/held" 2>&1 </dev/null &
	bg=$!
	held_k=none
	wait_until sh -c "grep -q '^pid' '$T/held' || ! kill -0 $bg 2>/dev/null"
	pid=$(pgrep -f "^/bin/dyn held /tmp/go_on")
	[ -n "$pid" ] && held_k=$(real_cpus "$pid" | tr - ,)
	touch "$IMG/tmp/go_on"
	wait $bg
	held_rc=$?
	rm -f "$IMG/tmp/go_on"
}
# set {1}: its virtual CPU 0 is the machine's 1 (runc writes 0 into the
# cgroup; the hook makes it 1), numbered from 0 inside
held "$S1" --no-supervise "hook cpus=0"
expect_eq "set {1}, cpuset 0: the kernel has it on CPU 1" "$held_k" 1
expect_match "set {1}, cpuset 0: it sees one CPU, 0" "$(cat "$T/held")" "counts 1 1 1 0 files 1 1 0 0"
# set {1} has no virtual CPU 1: refused, said, never run
bundle "$T/b1" "$IMG" "hook cpus=1" -- sh -c 'echo ran'
with_san "$CPUSET_RUN" --set "$S1" --no-supervise runc run --bundle "$T/b1" "cps-hook-$$-c1" \
	>"$T/out" 2>"$T/err" </dev/null
expect_ne "set {1}, cpuset 1: the container is not started" "$?" 0
expect_eq "set {1}, cpuset 1: its program never ran" "$(cat "$T/out")" ""
expect_match "set {1}, cpuset 1: said" "$(cat "$T/err")" \
	"its cpuset names CPUs 1 of its set, whose CPUs are 1 \\(virtual 0\\): not started"
# set {0,1}: each CPU alone, a child set of one CPU numbered from 0
for v in 0 1; do
	held "$S2" --no-supervise "hook cpus=$v"
	expect_eq "set {0,1}, cpuset $v: the kernel has it on CPU $v" "$held_k" "$v"
	expect_match "set {0,1}, cpuset $v: it sees one CPU, 0" "$(cat "$T/held")" "counts 1 1 1 0 files 1 1 0 0"
done
# under the supervisor (the hook mounts nothing): the cgroup made the
# set's CPU all the same, and the supervisor shows the set's numbering
held "$S1" "" "hook cpus=0"
expect_eq "set {1}, cpuset 0, supervised: the kernel has it on CPU 1" "$held_k" 1
expect_match "set {1}, cpuset 0, supervised: the set's numbers" "$(cat "$T/held")" "counts 1 1 1 0 "
held "$S1" "" "hook cpus=1"
expect_ne "set {1}, cpuset 1, supervised: not started" "$held_rc" 0
expect_eq "set {1}, cpuset 1, supervised: never ran" "$held_k" none
# in no set the hook leaves runc's cpuset as it is
bundle "$T/b2" "$IMG" "hook cpus=0" -- sh -c 'grep Cpus_allowed_list /proc/self/status'
run "$T/b2"
expect_eq "in no set, cpuset 0: runc's CPU 0, as it was" "$(cat "$T/out")" "Cpus_allowed_list:	0"
progress

# ---- the container's own memory nodes, named in the set's virtual nodes ----
# the sets' nodes: the machine's with memory (has_memory, else online,
# else node 0 alone: the table's rule), as cpuset show says; virtual 0
# is the first, and the set has no virtual node K (its count)
nodes=$(cat /sys/devices/system/node/has_memory 2>/dev/null)
[ -n "$nodes" ] || nodes=$(cat /sys/devices/system/node/online 2>/dev/null)
[ -n "$nodes" ] || nodes=0
expect_eq "set {1}: the machine's memory nodes" \
	"$("$CPUSET" show "$S1" | sed -n 's/^mems: *\([^ ]*\).*/\1/p')" "$nodes"
node0=$("$PYTHON3" -c 'import sys
n = [int(x) for r in sys.argv[1].split(",") for x in (lambda a: range(int(a[0]), int(a[-1]) + 1))(r.split("-"))]
print(n[0], len(n))' "$nodes")
nk=${node0#* } node0=${node0% *}
vnodes=0
[ "$nk" -gt 1 ] && vnodes="0-$((nk - 1))"
# the container's cpuset.mems, read outside (v1's cpuset hierarchy, else
# v2's)
cg_mems() {
	_cg=$(awk -F: '$2 ~ /(^|,)cpuset(,|$)/ { print $3 }' "/proc/$1/cgroup")
	if [ -n "$_cg" ]; then
		_mnt=$(awk '$(NF-2) == "cgroup" && $NF ~ /(^|,)cpuset(,|$)/ { print $5; exit }' /proc/self/mountinfo)
	else
		_cg=$(awk -F: '$1 == 0 { print $3 }' "/proc/$1/cgroup")
		_mnt=$(awk '$(NF-2) == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	fi
	cat "$_mnt$_cg/cpuset.mems" 2>/dev/null || echo "no cpuset.mems at $_mnt$_cg"
}
# set {1}, nodes 0: the cgroup has the set's first node, the container a
# set of it, numbered from 0 (the shim's Mems_allowed_list inside)
rm -f "$IMG/tmp/go_on" "$T/held"
bundle "$T/bh" "$IMG" "hook mems=0" -- /bin/dyn held /tmp/go_on
with_san "$CPUSET_RUN" --set "$S1" --no-supervise runc run --bundle "$T/bh" "cps-hook-$$-m0" \
	>"$T/held" 2>&1 </dev/null &
bg=$!
wait_until sh -c "grep -q '^pid' '$T/held' || ! kill -0 $bg 2>/dev/null"
pid=$(pgrep -f "^/bin/dyn held /tmp/go_on")
mems_k=none
[ -n "$pid" ] && mems_k=$(cg_mems "$pid")
touch "$IMG/tmp/go_on"
wait $bg
expect_eq "set {1}, mems 0: the container ran" "$?" 0
rm -f "$IMG/tmp/go_on"
expect_eq "set {1}, mems 0: its cgroup's cpuset.mems is the set's node $node0" "$mems_k" "$node0"
bundle "$T/b1" "$IMG" "hook mems=0" -- /bin/dyn mems
with_san "$CPUSET_RUN" --set "$S1" --no-supervise runc run --bundle "$T/b1" "cps-hook-$$-m0s" \
	>"$T/out" 2>"$T/err" </dev/null
expect_eq "set {1}, mems 0: its set's nodes, numbered from 0" "$?:$(cat "$T/out")" "0:0"
# no virtual node K: refused by the hook, said, never run (the hook
# alone: a runtime may refuse a node the machine lacks before it; with
# runc, not started either way)
with_san "$CPUSET_RUN" --set "$S1" --no-supervise sh -c 'echo $$; exec sleep 600' >"$T/pid" &
bg=$!
wait_until test -s "$T/pid"
bundle "$T/b3" "$IMG" "hook mems=$nk" -- sh -c 'echo ran'
printf '{"pid": %s, "bundle": "%s"}' "$(cat "$T/pid")" "$T/b3" |
	with_san "$HOOK" --table "$CPUSETSHIM_TABLE" --shim "$SHIM" >"$T/out" 2>"$T/err"
expect_eq "set {1}, mems $nk: the hook refuses (exit 1)" "$?" 1
expect_match "set {1}, mems $nk: said" "$(cat "$T/err")" \
	"its cpuset names memory nodes $nk of its set, whose memory nodes are $nodes \\(virtual $vnodes\\): not started"
kill "$(cat "$T/pid")" "$bg" 2>/dev/null
wait "$bg" 2>/dev/null
bundle "$T/b1" "$IMG" "hook mems=$nk" -- sh -c 'echo ran'
with_san "$CPUSET_RUN" --set "$S1" --no-supervise runc run --bundle "$T/b1" "cps-hook-$$-m1" \
	>"$T/out" 2>"$T/err" </dev/null
expect_ne "set {1}, mems $nk: the container is not started" "$?" 0
expect_eq "set {1}, mems $nk: its program never ran" "$(cat "$T/out")" ""
note "set {1}, mems $nk through runc: $(tail -n 2 "$T/err" | tr '\n' ' ')"
progress

# ---- hostile images ----
# /etc a symbolic link to a directory of the host's
H=$T/hostile
cp -a "$IMG" "$H"
mkdir "$T/hostetc"
rm -rf "$H/etc"
ln -s "$T/hostetc" "$H/etc"
bundle "$T/b3" "$H" hook -- sh -c 'echo ran'
with_san "$CPUSET_RUN" --set "$S1" --no-supervise runc run --bundle "$T/b3" "cps-hook-$$-e" \
	>"$T/out" 2>"$T/err" </dev/null
expect_ne "/etc a symbolic link: the container is not started" "$?" 0
expect_eq "/etc a symbolic link: its program never ran" "$(cat "$T/out")" ""
expect_match "/etc a symbolic link: said" "$(cat "$T/err")" "/etc in its image cannot be used \(a symbolic link"
expect_eq "/etc a symbolic link: nothing made in the host's directory" "$(ls -A "$T/hostetc")" ""
# /etc/ld.so.preload a symbolic link to a file of the host's
rm "$H/etc"
mkdir "$H/etc"
echo "the host's" >"$T/victim"
ln -s "$T/victim" "$H/etc/ld.so.preload"
bundle "$T/b3" "$H" hook -- sh -c 'echo ran'
with_san "$CPUSET_RUN" --set "$S1" --no-supervise runc run --bundle "$T/b3" "cps-hook-$$-p" \
	>"$T/out" 2>"$T/err" </dev/null
expect_ne "/etc/ld.so.preload a symbolic link: the container is not started" "$?" 0
expect_match "/etc/ld.so.preload a symbolic link: said" "$(cat "$T/err")" \
	"/etc/ld.so.preload in its image is not a regular file"
expect_eq "/etc/ld.so.preload a symbolic link: the host's file as it was, not mounted over" \
	"$(cat "$T/victim"):$(grep -c "$T/victim" /proc/self/mountinfo)" "the host's:0"
# the image's own LD_PRELOAD, and its own /etc/ld.so.preload
for pre in /lib/imagelib.so ""; do
	bundle "$T/b1" "$IMG" "hook preload=$pre" -- /bin/dyn counts
	with_san "$CPUSET_RUN" --set "$S1" --no-supervise runc run --bundle "$T/b1" "cps-hook-$$-l" \
		>"$T/out" 2>"$T/err" </dev/null
	expect_eq "LD_PRELOAD='$pre' of the image: the set's numbers" "$(cat "$T/out")" "1 1 1 0"
	no_ldso "LD_PRELOAD='$pre' of the image"
done
bundle "$T/b1" "$IMG" "hook preload=/lib/imagelib.so" -- /bin/dyn counts
with_san "$CPUSET_RUN" --set "$S1" --no-supervise runc run --bundle "$T/b1" "cps-hook-$$-l2" \
	>"$T/out" 2>"$T/err" </dev/null
expect_match "the image's LD_PRELOAD: its library loaded too" "$(cat "$T/err")" "imagelib: loaded"
rm "$H/etc/ld.so.preload"
echo /lib/imagelib.so >"$H/etc/ld.so.preload"
bundle "$T/b3" "$H" hook -- /bin/dyn counts
with_san "$CPUSET_RUN" --set "$S1" --no-supervise runc run --bundle "$T/b3" "cps-hook-$$-o" \
	>"$T/out" 2>"$T/err" </dev/null
expect_eq "the image's own /etc/ld.so.preload: the set's numbers" "$(cat "$T/out")" "1 1 1 0"
expect_match "the image's own /etc/ld.so.preload: its library still loaded" "$(cat "$T/err")" \
	"imagelib: loaded"
# writes through the mounted files: refused; the mounts read-only,
# nosuid, nodev
bundle "$T/b1" "$IMG" hook -- sh -c '
	for f in /etc/ld.so.preload /dev/shm/cpusetshim.0 /dev/cpusetshim/libcpusetshim.so; do
		if echo x 2>/dev/null >>"$f"; then echo "$f written"; else echo "$f refused"; fi
	done
	m=$('"$MOUNTS"'); echo "$m" | grep -c .; echo "$m" | grep -v " ro,nosuid,nodev" | grep -c .'
with_san "$CPUSET_RUN" --set "$S1" --no-supervise runc run --bundle "$T/b1" "cps-hook-$$-w" \
	>"$T/out" 2>"$T/err" </dev/null
expect_eq "writes through the mounted files: refused; every mount ro,nosuid,nodev" \
	"$(tr '\n' ' ' <"$T/out")" \
	"/etc/ld.so.preload refused /dev/shm/cpusetshim.0 refused /dev/cpusetshim/libcpusetshim.so refused 3 0 "
expect_eq "the host's shim as it was" "$(cksum <"$SHIM")" "$SHIM_SUM"
expect_eq "nothing left in the host's /dev/shm" "$(ls /dev/shm | grep -c '^cpusetshim-oci')" 0
finish
