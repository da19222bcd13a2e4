#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every command block of README.md and of the EXAMPLES of cpuset(1),
# cpuset-run(1), cpuset-inspect(1), cpusetshim(7), cpusetshim-spank(8) and
# cpuset-oci-hook(8),
# in order, as written (tests/doc_blocks.py finds them): each document's
# commands run in one shell of their own, with the tools installed by
# README's build line (make install into a temporary DESTDIR) first on
# PATH, in a private table. A command fails the test when its exit status
# is not the one its transcript shows (0, or an error message shown), and
# on a machine of two CPUs, 0 and 1, as the examples say, when its output
# differs from the transcript's (numbers of three digits or more, such as
# pids and sizes, and dates compared as placeholders). Blocks that cannot
# run as written here are recognised and checked another way, each named
# (tests/README.md lists them): the demo without its apt step, the suite,
# the benchmarks, the package and the Slurm blocks by the tests that run
# them.
. "$(dirname "$0")/common.sh"
need taskset util-linux
need cc gcc
need jq jq
need ps procps

LAB=$CPUSETSHIM_TABLE.lab
at_exit 'rm -f /dev/shm/$LAB; rm -rf /dev/shm/$LAB.views.*; [ -n "$bg" ] && kill $bg 2>/dev/null'
online=$(cat /sys/devices/system/cpu/online)
compare_out=no
[ "$online" = 0-1 ] && [ "$(id -u)" = 0 ] && compare_out=yes
[ "$compare_out" = yes ] || note "outputs not compared: the examples are of root on CPUs 0-1 (here: uid $(id -u), CPUs $online)"

# ---- README's build line: make install into a temporary DESTDIR ----
INST=$T/inst
doc_install() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$B" -s install DESTDIR="$INST" >"$T/install.log" 2>&1
}
if doc_install; then
	pass "README's build line: make install (into DESTDIR=$INST)"
else
	show "$T/install.log"
	die "make install into $INST failed"
fi
IBIN=$(dirname "$(find "$INST" -path '*/bin/cpuset' | head -n 1)")
ISHIM=$(find "$INST" -name libcpusetshim.so | head -n 1)
ILIB=$(dirname "$(find "$INST" -name 'libcpusetctl.so' | head -n 1)")
IINC=$(dirname "$(find "$INST" -name cpusetctl.h | head -n 1)")
for v in IBIN ISHIM ILIB IINC; do
	eval "[ -n \"\$$v\" ] && [ -e \"\$$v\" ]" || die "make install left no $v in $INST"
done
# PATH: the installed tools (cpuset-run with the sanitizer runtimes, in
# such a build, as every test gives them; its shim the installed one)
mkdir -p "$T/bin"
for t in cpuset cpuset-inspect cpuset-oci-hook; do
	printf '#!/bin/sh\nexec "%s/%s" "$@"\n' "$IBIN" "$t" >"$T/bin/$t"
done
printf '#!/bin/sh\nexec env %s CPUSETSHIM_LIB="%s" "%s/cpuset-run" "$@"\n' "$(san_env)" "$ISHIM" "$IBIN" >"$T/bin/cpuset-run"
chmod +x "$T/bin/"*
DOC_SHIM="${SAN_PRELOAD:+$SAN_PRELOAD }$ISHIM"

# ---- one document's steps in one shell ----
# the text as the shell runs it: the example table "lab" is the test's
# own, the shim's installed path this one's, cc finds the installed API,
# --top stops after one refresh
adapt() {
	sed -e "s#\\blab\\b#$LAB#g" \
		-e "s#LD_PRELOAD=/usr/local/lib/libcpusetshim.so#LD_PRELOAD=\"\$DOC_SHIM\"#" \
		-e "s#^cc #cc -I$IINC -L$ILIB -Wl,-rpath,$ILIB #" \
		-e "s#^autoreconf -fi && ./configure && make && make install\$#doc_install#" \
		-e "s#cpuset-inspect --top#cpuset-inspect --top -n 1#" "$1"
}
# placeholders for what changes from run to run: dates, numbers of three
# digits or more (pids, sizes), a process's command after its pid (the
# reader's shell is not this test's)
norm() {
	sed -E -e 's/((Mon|Tue|Wed|Thu|Fri|Sat|Sun) )?(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +[0-9]{1,2} [0-9]{2}:[0-9]{2}(:[0-9]{2})?( [0-9]{4})?/DATE/g' \
		-e 's/[0-9]{3,}/N/g' -e 's/N \([a-z0-9_.-]+\)/N (COMM)/g' "$1"
}
# the transcript's output as this run must print it: the table's name
want_here() {
	sed -e "s#\\blab\\b#$LAB#g" "$1"
}

run_doc() { # DOC
	doc=$1
	name=$(basename "$doc")
	D=$T/doc.$name
	W=$D/work
	mkdir -p "$W"
	$PYTHON3 "$SRC/tests/doc_blocks.py" "$SRC/$doc" "$D" || { fail "$name: its blocks read"; return; }
	expect_ne "$name: blocks found" "$(cat "$D/blocks")" ""
	{
		echo "PATH=$T/bin:\$PATH; export PATH"
		echo "DOC_SHIM='$DOC_SHIM'"
		echo "doc_install() { :; }"
		# a job started with "&" has reached its program (past the
		# launchers: sh, env, cpuset-run, taskset) before the next
		# command, as the example's narrative takes it
		cat <<'EOF'
doc_settle() {
	_i=0
	while [ $_i -lt 200 ]; do
		case $(cat /proc/$1/comm 2>/dev/null) in sh | env | cpuset-run | taskset) ;; *) return ;; esac
		sleep 0.05
		_i=$((_i + 1))
	done
}
EOF
		echo "cd '$W'"
	} >"$D/script.sh"
	for h in "$D"/*.how; do
		n=$(basename "$h" .how)
		how=$(cat "$h")
		case $how in
		run | script)
			adapt "$D/$n.cmd" >"$D/$n.sh"
			printf '{\n%s\n} >"%s" 2>&1 </dev/null\necho $? >"%s"\n' \
				"$(cat "$D/$n.sh")" "$D/$n.out" "$D/$n.rc" >>"$D/script.sh"
			grep -q '&[[:space:]]*$' "$D/$n.sh" && echo 'doc_settle $!' >>"$D/script.sh"
			;;
		"file "*) cp "$D/$n.cmd" "$W/${how#file }" ;;
		esac
	done
	echo 'kill $(jobs -p) 2>/dev/null; exit 0' >>"$D/script.sh"
	timeout -k 10 300 sh "$D/script.sh" >"$D/script.log" 2>&1 ||
		fail "$name: its commands ran within 300 s" "$(tail -n 5 "$D/script.log")"
	for h in "$D"/*.how; do
		n=$(basename "$h" .how)
		how=$(cat "$h")
		first=$(head -n 1 "$D/$n.cmd")
		case $how in
		run | script) check_step "$name" "$n" "$first" "$how" ;;
		"file "*) ;;
		*) recognised "$name" "$how" "$first" "$D/$n.cmd" ;;
		esac
	done
}

check_step() { # NAME N FIRST-LINE HOW
	_d="$1: \$ $(printf '%s' "$3" | cut -c1-70)"
	if [ ! -f "$D/$2.rc" ]; then
		fail "$_d: it ran"
		return
	fi
	rc=$(cat "$D/$2.rc")
	# the transcript ends with an error (and no "echo $?" after it): non-zero
	if ! grep -q 'echo \$?$' "$D/$2.cmd" &&
		tail -n 1 "$D/$2.want" | grep -Eq '^(cpuset|cpuset-run|cpuset-inspect|taskset|Killed)(:|$)'; then
		expect_ne "$_d: fails, as the example shows" "$rc" 0
	else
		expect_eq "$_d: exits 0" "$rc" 0 || show "$D/$2.out"
	fi
	[ "$compare_out" = yes ] && [ "$4" = run ] || return 0
	want_here "$D/$2.want" >"$D/$2.wanth"
	norm "$D/$2.wanth" >"$D/$2.wantn"
	norm "$D/$2.out" >"$D/$2.outn"
	if cmp -s "$D/$2.wantn" "$D/$2.outn"; then
		pass "$_d: its output is the example's"
	else
		fail "$_d: its output is the example's" "$(diff "$D/$2.wantn" "$D/$2.outn" | head -n 20)"
	fi
}

# blocks that cannot run as written in a test: checked another way
recognised() { # NAME HOW FIRST-LINE CMD-FILE
	case $2 in
	demo)
		# scripts/demo.sh less its apt and build steps (deps.sh needs
		# root and the network; the build is this tree's)
		# (its cpuset-run the one on PATH: with the sanitizer runtimes,
		# in such a build, for the programs it runs)
		sed -e '/^sh scripts\/deps.sh$/d' -e '/^sh scripts\/build.sh$/d' \
			-e 's#^cd "$(dirname "$0")/.."$#cd "$CPS_DEMO_TREE"#' \
			-e 's#\./cpuset-run #cpuset-run #' "$SRC/scripts/demo.sh" >"$T/demo.sh"
		expect_status "$1: sh scripts/demo.sh (without deps.sh and build.sh) exits 0" 0 \
			env CPS_DEMO_TREE="$B" PATH="$T/bin:$PATH" timeout 300 sh "$T/demo.sh"
		expect_match "$1: the demo's program sees one CPU" "$(cat "$T/out")" '^1$'
		;;
	suite)
		expect_match "$1: sh scripts/test.sh is what CI runs (.ci/run), this test among its tests" \
			"$(cat "$SRC/.ci/run")" '^sh scripts/test.sh'
		;;
	bench)
		expect_status "$1: make bench is a target (make -n bench)" 0 \
			env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$B" -n bench
		expect_match "$1: its cases run in short in tests/bench/quick.sh" \
			"$(cat "$SRC/tests/bench/Makemodule.am")" '^TESTS.*tests/bench/quick\.sh'
		;;
	package)
		for c in "dpkg-buildpackage -us -uc" "dpkg -i"; do
			expect_match "$1: tests/package.sh runs $c" "$(cat "$SRC/tests/package.sh")" "$c"
		done
		;;
	plugstack)
		expect_match "$1: make install's plugin folder is \$libdir/slurm" \
			"$(cat "$SRC/m4/cps_slurm.m4")" 'libdir.*/slurm'
		expect_match "$1: the package's is slurm-wlm's" "$(cat "$SRC/debian/rules")" \
			'with-slurm-plugindir=/usr/lib/\$\(DEB_HOST_MULTIARCH\)/slurm-wlm'
		;;
	slurm)
		# srun on a private cluster: the Slurm tests run these cases
		for o in 'map_cpu:1' 'cpusetshim=off' 'cpusetshim=preload' '-n2 -c1'; do
			grep -q -- "$o" "$4" || continue
			expect_match "$1: the Slurm tests run srun $o" \
				"$(cat "$SRC"/tests/slurm/*.sh)" "$(printf '%s' "$o" | sed 's/[.]/\\./g')"
		done
		;;
	*) fail "$1: a block of an unknown kind ($2): $3" ;;
	esac
}

for doc in README.md man/cpuset.1 man/cpuset-run.1 man/cpuset-inspect.1 man/cpusetshim.7 \
	man/cpusetshim-spank.8 man/cpuset-oci-hook.8; do
	"$CPUSET" init --force >/dev/null || die "cpuset init failed"
	rm -f "/dev/shm/$LAB"
	run_doc "$doc"
done
check "the table is consistent" "$CPUSET_INSPECT" --check
finish
