#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The two ways cpuset-run could treat a container runtime, measured on
# Charliecloud's ch-run with an image built here (the static busybox and
# bench_supervise built dynamic, with its loader and libraries):
#   look through: the program inside, a dynamic glibc one, preloaded with
#     a copy of the shim the image can reach (ch-run binds the host's
#     /tmp, where the copy is: what a bind mount of the shim gives);
#   supervise: cpuset-run's supervisor over ch-run's whole tree (what
#     cpuset-run does).
# Per call (ns, bench_supervise's raw affinity calls, which the shim's
# syscall(3) translates) and per start (us, 100 starts of
# "ch-run IMG -- /bin/bs start"), natively (taskset), looked through and
# supervised, in set {1} and {0,1}. Medians of ROUNDS (default 5). Run by
# hand: sh tests/bench/containers.sh
. "$(dirname "$0")/../common.sh"

need gcc gcc
need taskset util-linux
need busybox busybox-static
need ch-run charliecloud-runtime
ROUNDS=${ROUNDS:-5}
N=${N:-20000}
IMG=$T/img
mkdir -p "$IMG/bin" "$IMG/etc" "$IMG/dev" "$IMG/proc" "$IMG/sys" "$IMG/tmp" "$IMG/home"
cp "$(command -v busybox)" "$IMG/bin/busybox"
ln -s busybox "$IMG/bin/sh"
echo "root:x:0:0:root:/root:/bin/sh" >"$IMG/etc/passwd"
echo "root:x:0:" >"$IMG/etc/group"
: >"$IMG/etc/hosts"
: >"$IMG/etc/resolv.conf"
gcc -O2 -o "$IMG/bin/bs" "$SRC/tests/bench/bench_supervise.c" || die "gcc"
for l in $(ldd "$IMG/bin/bs" | grep -o '/[^ ]*'); do
	mkdir -p "$IMG$(dirname "$l")"
	cp -L "$l" "$IMG$l"
done
cp "$SHIM" "$T/libcpusetshim.so"
export USER=${USER:-$(id -un)}
"$CPUSET" init >/dev/null || die "cpuset init"
S1=$("$CPUSET" create --cpus 1) && S2=$("$CPUSET" create --cpus 0-1) || die "sets"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# way SET LIST WAY CMD...: CMD run the WAY way
way() {
	_s=$1 _l=$2 _w=$3
	shift 3
	case $_w in
	native) outside taskset -c "$_l" "$@" ;;
	through) "$CPUSET_RUN" --set "$_s" env LD_PRELOAD="$T/libcpusetshim.so" "$@" ;;
	supervised) "$CPUSET_RUN" --set "$_s" "$@" ;;
	esac
}
ways="native through supervised"
for spec in "$S1 1" "$S2 0,1"; do
	set -- $spec
	s=$1 l=$2
	for r in $(seq 1 "$ROUNDS"); do
		for w in $ways; do
			way "$s" "$l" "$w" ch-run "$IMG" -- /bin/bs "$N" | sed "s/^/$w /"
			_t0=$(date +%s%N)
			for _i in $(seq 1 100); do way "$s" "$l" "$w" ch-run "$IMG" -- /bin/bs start; done
			echo "$w start $((($(date +%s%N) - _t0) / 100000))"
		done
	done >"$T/r.$s"
	echo "## set {$l}: medians of $ROUNDS rounds (calls: ns, $N each; start: us)"
	for op in getaffinity setaffinity start; do
		line=$op
		for w in $ways; do
			line="$line $w=$(awk -v o=$op -v w=$w '$1 == w && $2 == o { print $3 }' "$T/r.$s" | median)"
		done
		echo "$line"
	done
done
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
