#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# podman run in a set, with cpuset-oci-hook installed through its
# hooks.d (--hooks-dir), on an image imported here from a tarball of the
# static busybox, the test programs and the libraries the dynamic one
# needs (no registry). The configuration that runs on this kind of host
# (doc/containers.md, "podman"): runc, the rlimits within podman's own
# (RLIMIT_NOFILE at most the caller's hard limit, RLIMIT_NPROC at most
# the 32768 podman sets itself), no network, a private vfs store.
# - cpuset-run's supervisor (its default for podman): a glibc program,
#   a static one (musl, and glibc) and a Go one see the set, in sets {1}
#   and {0,1} and nested in a set, compared with the kernel's truth read
#   outside; the hook stands aside (a filter of the supervisor's, seen
#   though podman drops the environment), no ld.so text;
# - the hook alone (--no-supervise): podman's conmon is a daemon, so the
#   container is in no set by ancestry; with --cgroup-sets (the site's
#   choice) its runtime's affinity makes it a set: the glibc program sees
#   it, the static and Go ones the machine's numbers on its CPUs (said by
#   cpuset-run); without it, the machine's numbers;
# - --cpuset-cpus names the set's virtual CPUs (the hook alone with
#   --cgroup-sets, and under the supervisor): made physical (the
#   kernel's mask read outside), refused beyond the set;
# - outside any set the hook does nothing.
# Slow: one of SLOW_TESTS.
. "$(dirname "$0")/../common.sh"

need gcc gcc
need musl-gcc musl-tools
need busybox busybox-static
need podman podman
need runc runc
need pgrep procps
need go golang-go
[ "$(id -u)" = 0 ] || skip_all "rootful podman and the hook's mounts need root"
BB=$(command -v busybox)
file -L "$BB" 2>/dev/null | grep -q 'statically linked' ||
	skip_all "busybox is not static here (busybox-static)"
HOOK=$B/cpuset-oci-hook
[ -x "$HOOK" ] || die "no $HOOK (make builds it)"

# ---- the image: a tarball imported into a private store ----
R=$T/rootfs
mkdir -p "$R/bin" "$R/etc" "$R/dev" "$R/proc" "$R/sys" "$R/tmp" "$R/root"
cp "$BB" "$R/bin/busybox"
for a in sh cat grep echo true; do ln -s busybox "$R/bin/$a"; done
echo "root:x:0:0:root:/root:/bin/sh" >"$R/etc/passwd"
echo "root:x:0:" >"$R/etc/group"
PS=$SRC/tests/integration/prog_supervised.c
gcc -O2 -pthread -o "$R/bin/dyn" "$PS" || die "gcc cannot build the dynamic program"
gcc -O2 -static -pthread -o "$R/bin/st" "$PS" 2>"$T/cc.err" ||
	skip_all "gcc -static cannot link here: $(head -1 "$T/cc.err")"
musl-gcc -O2 -static -pthread -o "$R/bin/musl" "$PS" || die "musl-gcc cannot build"
cp "$SRC/tests/integration/prog_supervised.go" "$T/"
export GO111MODULE=off GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS=
(cd "$T" && CGO_ENABLED=0 go build -o "$R/bin/go" prog_supervised.go) 2>"$T/go.err" ||
	skip_all "go build fails here: $(head -1 "$T/go.err")"
for f in "$R/bin/dyn" $(echo "$SAN_PRELOAD" | tr : " "); do
	for l in $(LD_PRELOAD='' ldd "$f" | grep -o '/[^ ]*') $(echo "$f" | grep -v "^$R"); do
		mkdir -p "$R$(dirname "$l")"
		[ -e "$R$l" ] || cp -L "$l" "$R$l"
	done
done
[ ! -e "$R$SHIM" ] || die "the image holds the shim's host path $SHIM"
tar -C "$R" -cf "$T/image.tar" . || die "tar of the image failed"

# podman with a store, run directory and temporary directory of the
# test's own; its runtime runc (crun refuses the hybrid cgroup
# hierarchy); the rlimits it gives the container within its own
PM="podman --root $T/store --runroot $T/run --tmpdir $T/tmp --storage-driver vfs --runtime runc"
PM="$PM --cgroup-manager cgroupfs --events-backend none"
hn=$(sed -n 's/^Max open files  *[^ ]*  *\([^ ]*\).*/\1/p' /proc/self/limits)
hu=$(sed -n 's/^Max processes  *[^ ]*  *\([^ ]*\).*/\1/p' /proc/self/limits)
[ "$hu" = unlimited ] || [ "$hu" -gt 32768 ] && hu=32768
RUNOPTS="--rm --network none --ulimit nofile=$hn:$hn --ulimit nproc=$hu:$hu"
IMAGE=localhost/cpusetshim-test:$$
$PM import "$T/image.tar" "$IMAGE" >/dev/null 2>"$T/err" ||
	die "podman import failed: $(tail -1 "$T/err")"
# podman's defaults fail here (an RLIMIT_NOFILE of 1048576 beyond the
# caller's hard limit): said, not tested (podman's, not ours)
$PM run --rm --network none "$IMAGE" true >/dev/null 2>"$T/err" ||
	note "podman's default rlimits: $(tail -1 "$T/err")"
$PM run $RUNOPTS "$IMAGE" /bin/dyn counts >"$T/out" 2>"$T/err" ||
	skip_all "podman cannot run a container here with runc and the rlimits within its own ($RUNOPTS): $(tail -1 "$T/err")"
expect_eq "podman runs the image outside any set (the machine's answer)" "$(cat "$T/out")" \
	"$(outside "$R/bin/dyn" counts)"

# the hooks.d directories: the hook as installed (cpuset-oci-hook.json),
# pointed at the test's table and shim; and with --cgroup-sets
hooks() {
	mkdir -p "$T/$1"
	"$PYTHON3" - "$SRC/tools/cpuset-oci-hook.json.in" "$T/$1/cpuset-oci-hook.json" "$HOOK" \
		"$CPUSETSHIM_TABLE" "$SHIM" "$2" <<-'PY'
		import json, sys
		src, out, hook, table, shim, extra = sys.argv[1:7]
		h = json.loads(open(src).read().replace("@bindir@/cpuset-oci-hook", hook))
		h["hook"]["args"] += ["--table", table, "--shim", shim] + extra.split()
		json.dump(h, open(out, "w"))
	PY
}
hooks hooks ""
hooks hooks-cg --cgroup-sets
# run DIR PODMAN-ARGS...: podman run with the hooks of DIR
prun() {
	_h=$1
	shift
	$PM --hooks-dir "$T/$_h" run $RUNOPTS "$@"
}
no_ldso() {
	expect_nomatch "$1: no ld.so text" "$(cat "$2")" "ld\.so|cannot be preloaded|LD_PRELOAD"
}
MOUNTS='grep -cE " (/etc/ld\.so\.preload|/dev/cpusetshim/[^ ]*|/dev/shm/cpusetshim\.[0-9]+) " /proc/self/mountinfo'

two_sets
# held P SV HOOKS ARGS...: /bin/P held in set $s, through podman run with
# ARGS (SV: --no-supervise, or "" for the supervisor); its line in
# $T/held, the kernel's CPUs for it read outside in $held_k (none: it
# never ran), podman's status in $held_rc
held() {
	_p=$1 _sv=$2 _h=$3
	shift 3
	rm -f "$R/tmp/go_on" "$T/held"
	with_san "$CPUSET_RUN" --set "$s" $_sv $PM --hooks-dir "$T/$_h" run $RUNOPTS \
		-v "$R/tmp:/tmp" "$@" "$IMAGE" "/bin/$_p" held /tmp/go_on >"$T/held" 2>&1 </dev/null &
	bg=$!
	held_k=none
	wait_until sh -c "grep -q '^pid' '$T/held' || ! kill -0 $bg 2>/dev/null"
	pid=$(pgrep -f "^/bin/$_p held /tmp/go_on")
	[ -n "$pid" ] && held_k=$(real_cpus "$pid" | tr - ,)
	touch "$R/tmp/go_on"
	wait $bg
	held_rc=$?
	rm -f "$R/tmp/go_on"
}

# ---- outside any set: the hook does nothing ----
for h in hooks hooks-cg; do
	prun $h "$IMAGE" sh -c "/bin/dyn counts; $MOUNTS" >"$T/out" 2>"$T/err"
	expect_eq "$h, in no set: the machine's answer, no mount of the hook's" \
		"$(tr '\n' ' ' <"$T/out")" "$(outside "$R/bin/dyn" counts) 0 "
done
progress

# ---- cpuset-run's supervisor, the hook installed ----
per_set() {
	vlist=$(seq -s, 0 $((n - 1)))
	for p in dyn st musl; do
		with_san "$CPUSET_RUN" --set "$s" $PM --hooks-dir "$T/hooks" run $RUNOPTS "$IMAGE" \
			sh -c "/bin/$p counts; $MOUNTS" >"$T/out" 2>"$T/err"
		expect_eq "supervised $p, $t: ONLN CONF nprocs raw affinity; no mount of the hook's" \
			"$(tr '\n' ' ' <"$T/out")" "$n $n $n $vlist 0 "
		no_ldso "supervised $p, $t" "$T/err"
		expect_eq "supervised $p, $t: cpuinfo, stat, status, online" \
			"$(with_san "$CPUSET_RUN" --set "$s" $PM --hooks-dir "$T/hooks" run $RUNOPTS \
				"$IMAGE" /bin/$p files 2>&1 | tr '\n' ' ')" "$n $n $vrange $vrange "
		held "$p" "" hooks
		expect_eq "supervised $p, $t: the kernel has it on the set's CPUs" "$held_k" "$list"
		expect_match "supervised $p, $t: it sees them as 0..n-1" "$(cat "$T/held")" \
			"counts $n $n $n $vlist "
	done
	expect_eq "supervised go, $t: NumCPU GOMAXPROCS raw affinity" \
		"$(with_san "$CPUSET_RUN" --set "$s" $PM --hooks-dir "$T/hooks" run $RUNOPTS "$IMAGE" \
			/bin/go counts 2>&1)" "$n $n $vlist"
	expect_eq "supervised go, $t: cpuinfo, stat, status, online" \
		"$(with_san "$CPUSET_RUN" --set "$s" $PM --hooks-dir "$T/hooks" run $RUNOPTS "$IMAGE" \
			/bin/go files 2>&1)" "$n $n $vrange $vrange"
	progress
}
each_set per_set
# the site's --cgroup-sets under the supervisor: the hook sees its own
# seccomp filter (podman gives conmon none of the supervisor's variables)
# and stands aside
with_san "$CPUSET_RUN" --set "$S1" $PM --hooks-dir "$T/hooks-cg" run $RUNOPTS "$IMAGE" \
	sh -c "/bin/dyn counts; $MOUNTS" >"$T/out" 2>"$T/err"
expect_eq "supervised, the hook with --cgroup-sets: the set's numbers, no mount of the hook's" \
	"$(tr '\n' ' ' <"$T/out")" "1 1 1 0 0 "
for p in dyn musl; do
	expect_eq "supervised $p: nested, set {1} of set {0,1}" \
		"$(with_san "$CPUSET_RUN" --set "$S2" "$CPUSET_RUN" --cpus 1 $PM --hooks-dir "$T/hooks" \
			run $RUNOPTS "$IMAGE" /bin/$p counts 2>&1)" "1 1 1 0"
done

# ---- the hook alone ----
per_set() {
	vlist=$(seq -s, 0 $((n - 1)))
	with_san "$CPUSET_RUN" --set "$s" --no-supervise $PM --hooks-dir "$T/hooks-cg" run $RUNOPTS \
		"$IMAGE" sh -c "/bin/dyn counts; /bin/dyn files" >"$T/out" 2>"$T/err"
	expect_eq "hook alone (--cgroup-sets) dyn, $t: counts, files" "$(tr '\n' ' ' <"$T/out")" \
		"$n $n $n $vlist $n $n $vrange $vrange "
	no_ldso "hook alone dyn, $t" "$T/err"
	expect_match "hook alone, $t: cpuset-run says the runtime's programs are not supervised" \
		"$(cat "$T/err")" "podman is a container runtime: with --no-supervise"
	held dyn --no-supervise hooks-cg
	expect_eq "hook alone dyn, $t: the kernel has it on the set's CPUs" "$held_k" "$list"
	expect_match "hook alone dyn, $t: it sees them as 0..n-1" "$(cat "$T/held")" \
		"counts $n $n $n $vlist files $n $n $vrange $vrange"
	# the programs the preload cannot reach: the machine's numbers, on
	# the set's CPUs
	for p in st musl; do
		held "$p" --no-supervise hooks-cg
		expect_eq "hook alone $p, $t: the kernel has it on the set's CPUs" "$held_k" "$list"
		expect_match "hook alone $p, $t: the machine's numbers" "$(cat "$T/held")" \
			"counts $(outside taskset -c "$list" "$R/bin/$p" counts) "
	done
	expect_eq "hook alone go, $t: NumCPU GOMAXPROCS, the raw affinity physical: the set's CPUs" \
		"$(with_san "$CPUSET_RUN" --set "$s" --no-supervise $PM --hooks-dir "$T/hooks-cg" run \
			$RUNOPTS "$IMAGE" /bin/go counts 2>/dev/null)" "$n $n $list"
	progress
}
each_set per_set
# without --cgroup-sets: conmon, a daemon, leaves the container in no set
s=$S1
with_san "$CPUSET_RUN" --set "$S1" --no-supervise $PM --hooks-dir "$T/hooks" run $RUNOPTS "$IMAGE" \
	sh -c "/bin/dyn counts; $MOUNTS" >"$T/out" 2>"$T/err"
expect_eq "hook alone without --cgroup-sets, set {1}: the machine's numbers on CPU 1, no mount" \
	"$(tr '\n' ' ' <"$T/out")" "$(outside taskset -c 1 "$R/bin/dyn" counts) 0 "

# ---- --cpuset-cpus names the set's virtual CPUs ----
s=$S1
held dyn --no-supervise hooks-cg --cpuset-cpus=0
expect_eq "set {1}, --cpuset-cpus=0: the kernel has it on CPU 1" "$held_k" 1
expect_match "set {1}, --cpuset-cpus=0: it sees one CPU, 0" "$(cat "$T/held")" \
	"counts 1 1 1 0 files 1 1 0 0"
with_san "$CPUSET_RUN" --set "$S1" --no-supervise $PM --hooks-dir "$T/hooks-cg" run $RUNOPTS \
	--cpuset-cpus=1 "$IMAGE" echo ran >"$T/out" 2>"$T/err"
expect_ne "set {1}, --cpuset-cpus=1: not started" "$?" 0
expect_eq "set {1}, --cpuset-cpus=1: its program never ran" "$(cat "$T/out")" ""
expect_match "set {1}, --cpuset-cpus=1: said" "$(cat "$T/err")" \
	"its cpuset names CPUs 1 of its set, whose CPUs are 1 \\(virtual 0\\)"
# under the supervisor (the plain hooks.d file): the runtime's CPUs,
# read from its status, are the set's
held dyn "" hooks --cpuset-cpus=0
expect_eq "set {1}, --cpuset-cpus=0, supervised: the kernel has it on CPU 1" "$held_k" 1
expect_match "set {1}, --cpuset-cpus=0, supervised: the set's numbers" "$(cat "$T/held")" \
	"counts 1 1 1 0 "
held dyn "" hooks --cpuset-cpus=1
expect_eq "set {1}, --cpuset-cpus=1, supervised: never ran" "$held_k" none
expect_ne "set {1}, --cpuset-cpus=1, supervised: podman fails" "$held_rc" 0
s=$S2
for v in 0 1; do
	held dyn --no-supervise hooks-cg --cpuset-cpus=$v
	expect_eq "set {0,1}, --cpuset-cpus=$v: the kernel has it on CPU $v" "$held_k" "$v"
	expect_match "set {0,1}, --cpuset-cpus=$v: it sees one CPU, 0" "$(cat "$T/held")" \
		"counts 1 1 1 0 files 1 1 0 0"
done
$PM rmi -f "$IMAGE" >/dev/null 2>&1
finish
