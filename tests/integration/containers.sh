#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Programs in a container image run by cpuset-run through a container
# runtime or a chroot-like launcher (chroot, Charliecloud's ch-run, runc
# run directly on an OCI bundle, in a pid namespace of its own): the
# launcher's whole tree is supervised, so a glibc program, a static one
# (musl, and glibc), and a Go one each see the set, in sets {1} and
# {0,1} and nested in a set, compared with the kernel's truth read
# outside the container; no ld.so error text in the container's output
# (the host's shim path is missing in the image), even with the shim in
# the caller's LD_PRELOAD; --no-supervise said. The image is built here
# from the static busybox, the test programs and the libraries the
# dynamic one needs (no registry). Slow: a go build.
. "$(dirname "$0")/../common.sh"

need gcc gcc
need musl-gcc musl-tools
need busybox busybox-static
need chroot coreutils
need ch-run charliecloud-runtime
need runc runc
need pgrep procps
need go golang-go
BB=$(command -v busybox)
file -L "$BB" 2>/dev/null | grep -q 'statically linked' ||
	skip_all "busybox is not static here (busybox-static)"

# ---- the image ----
IMG=$T/img
mkdir -p "$IMG/bin" "$IMG/etc" "$IMG/dev" "$IMG/proc" "$IMG/sys" "$IMG/tmp" "$IMG/home" "$IMG/root"
cp "$BB" "$IMG/bin/busybox"
for a in sh cat; do ln -s busybox "$IMG/bin/$a"; done
echo "root:x:0:0:root:/root:/bin/sh" >"$IMG/etc/passwd"
echo "root:x:0:" >"$IMG/etc/group"
: >"$IMG/etc/hosts"
: >"$IMG/etc/resolv.conf"
PS=$SRC/tests/integration/prog_supervised.c
gcc -O2 -pthread -o "$IMG/bin/dyn" "$PS" || die "gcc cannot build the dynamic program"
gcc -O2 -static -pthread -o "$IMG/bin/st" "$PS" 2>"$T/cc.err" ||
	skip_all "gcc -static cannot link here: $(head -1 "$T/cc.err")"
musl-gcc -O2 -static -pthread -o "$IMG/bin/musl" "$PS" || die "musl-gcc cannot build"
cp "$SRC/tests/integration/prog_supervised.go" "$T/"
export GO111MODULE=off GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS=
(cd "$T" && CGO_ENABLED=0 go build -o "$IMG/bin/go" prog_supervised.go) 2>"$T/go.err" ||
	skip_all "go build fails here: $(head -1 "$T/go.err")"
# the dynamic program's loader and libraries, at their paths; in a
# sanitizer build also the sanitizer runtimes that with_san preloads
for f in "$IMG/bin/dyn" $(echo "$SAN_PRELOAD" | tr : " "); do
	for l in $(ldd "$f" | grep -o '/[^ ]*') $(echo "$f" | grep -v "^$IMG"); do
		mkdir -p "$IMG$(dirname "$l")"
		cp -L "$l" "$IMG$l"
	done
done
[ ! -e "$IMG$SHIM" ] || die "the image holds the shim's host path $SHIM"

two_sets
export USER=${USER:-$(id -un)}
BUNDLE=$T/bundle
mkdir -p "$BUNDLE"
(cd "$BUNDLE" && runc spec && mv config.json config.json.spec) || die "runc spec failed"
bundle_n=0

# launch L PROG ARGS...: PROG of the image through launcher L
launch() {
	_l=$1
	shift
	case $_l in
	chroot) echo chroot "$IMG" "$@" ;;
	ch-run) echo ch-run "$IMG" -- "$@" ;;
	runc)
		# an OCI bundle: runc's own default configuration, the image
		# read-only as its root, PROG ARGS... its process
		bundle_n=$((bundle_n + 1))
		"$PYTHON3" - "$BUNDLE/config.json" "$IMG" "$@" <<-'PY'
			import json, sys
			c = json.load(open(sys.argv[1] + ".spec"))
			c["process"]["terminal"] = False
			c["process"]["args"] = sys.argv[3:]
			c["root"] = {"path": sys.argv[2], "readonly": True}
			json.dump(c, open(sys.argv[1], "w"))
		PY
		echo runc run --bundle "$BUNDLE" "cps-$$-$bundle_n-$(date +%s%N)" ;;
	esac
}

# no_ldso DESC FILE: FILE holds no text of ld.so
no_ldso() {
	expect_nomatch "$1: no ld.so text" "$(cat "$2")" "ld\.so|cannot be preloaded|LD_PRELOAD"
}

for L in chroot ch-run runc; do
	if [ "$L" = chroot ] && [ -n "$SAN_PRELOAD" ]; then
		skip "chroot in a sanitizer build" "the sanitizer runtimes the programs preload need /proc, which a chroot into the image lacks"
		continue
	fi
	# the image's /tmp: the host's under ch-run, else its own
	go_on=$IMG/tmp/go_on.$$
	[ "$L" = ch-run ] && go_on=/tmp/go_on.$$
	# the launcher runs at all, outside any set
	expect_eq "$L: the image runs outside any set (the machine's answer)" \
		"$(outside $(launch $L /bin/dyn counts))" "$(outside "$IMG/bin/dyn" counts)"
	with_san env CPUSETSHIM_DEBUG=1 "$CPUSET_RUN" --set "$S1" $(launch $L /bin/st counts) \
		>"$T/out" 2>"$T/err"
	expect_match "$L: chosen for supervision as a container runtime" "$(cat "$T/err")" \
		"container runtime: supervised"
	per_set() {
		vlist=$(seq -s, 0 $((n - 1)))
		for p in dyn st musl; do
			with_san "$CPUSET_RUN" --set "$s" $(launch $L /bin/$p counts) >"$T/out" 2>"$T/err"
			expect_eq "$L $p, $t: ONLN CONF nprocs raw affinity" "$(cat "$T/out")" "$n $n $n $vlist"
			no_ldso "$L $p, $t" "$T/err"
			expect_eq "$L $p, $t: cpuinfo, stat, status, online" \
				"$(with_san "$CPUSET_RUN" --set "$s" $(launch $L /bin/$p files) 2>&1 | tr '\n' ' ')" \
				"$n $n $vrange $vrange "
			# held: the kernel's mask of the program read outside
			rm -f "$T/held" "$go_on"
			with_san "$CPUSET_RUN" --set "$s" $(launch $L /bin/$p held /tmp/go_on.$$) \
				>"$T/held" 2>&1 &
			bg=$!
			wait_until grep -q '^pid' "$T/held"
			# its pid outside (runc runs it in a pid namespace of its own)
			pid=$(pgrep -f "^/bin/$p held /tmp/go_on.$$")
			expect_eq "$L $p, $t: the kernel has it on the set's CPUs" \
				"$(real_cpus "$pid" | tr - ,)" "$list"
			touch "$go_on"
			wait $bg
			rm -f "$go_on"
		done
		expect_eq "$L go, $t: NumCPU GOMAXPROCS raw affinity" \
			"$(with_san "$CPUSET_RUN" --set "$s" $(launch $L /bin/go counts) 2>&1)" "$n $n $vlist"
		expect_eq "$L go, $t: cpuinfo, stat, status, online" \
			"$(with_san "$CPUSET_RUN" --set "$s" $(launch $L /bin/go files) 2>&1)" \
			"$n $n $vrange $vrange"
	}
	each_set per_set
	# nested: a set {1} made inside set {0,1}, its CPU 1 the machine's 1
	for p in dyn musl; do
		expect_eq "$L $p: nested, set {1} of set {0,1}" \
			"$(with_san "$CPUSET_RUN" --set "$S2" "$CPUSET_RUN" --cpus 1 $(launch $L /bin/$p counts) 2>&1)" \
			"1 1 1 0"
	done
	# a caller whose LD_PRELOAD holds the shim (a shell in a set): the
	# image has no such path, and ld.so is never asked to load it
	with_san "$CPUSET_RUN" --set "$S2" sh -c \
		"\"$CPUSET_RUN\" --cpus 1 $(launch $L /bin/dyn counts)" >"$T/out" 2>"$T/err"
	expect_eq "$L: from a preloaded shell, the set's numbers" "$(cat "$T/out")" "1 1 1 0"
	no_ldso "$L: from a preloaded shell" "$T/err"
	env LD_PRELOAD="$SHIM_PRELOAD" $(san_env | grep -v LD_PRELOAD) "$CPUSET_RUN" --set "$S1" \
		$(launch $L /bin/dyn counts) >"$T/out" 2>"$T/err"
	expect_eq "$L: the shim in the caller's LD_PRELOAD, the set's numbers" "$(cat "$T/out")" "1 1 1 0"
	no_ldso "$L: the shim in the caller's LD_PRELOAD" "$T/err"
	# --no-supervise: said, and still no ld.so text
	with_san "$CPUSET_RUN" --set "$S1" --no-supervise $(launch $L /bin/dyn counts) >"$T/out" 2>"$T/err"
	expect_match "$L --no-supervise: said" "$(cat "$T/err")" "is a container runtime: with --no-supervise"
	no_ldso "$L --no-supervise" "$T/err"
	expect_eq "$L --no-supervise: the machine's answer, on the set's CPU" "$(cat "$T/out")" \
		"$(outside taskset -c 1 $(launch $L /bin/dyn counts))"
done
finish
