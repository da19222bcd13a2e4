# SPDX-License-Identifier: BSD-3-Clause
# The one harness of the shell tests; sourced, never run:
#
#     . "$(dirname "$0")/common.sh"          (tests/*.sh)
#     . "$(dirname "$0")/../common.sh"       (tests/integration/*.sh,
#                                             tests/slurm/*.sh, tests/topo/*.sh)
#
# Every check prints one TAP line ("ok N - DESC" or "not ok N - DESC",
# with "# " diagnostics under a failure); finish prints the plan "1..N" and
# exits 1 if any check failed (or none ran). make check reads the lines
# through automake's TAP driver, so each check is a line of its own.
# tests/README.md tells how to write a test.
#
# Sets: B (build tree), SRC (source tree), PYTHON3, CPUSET, CPUSET_RUN,
# CPUSET_INSPECT (the tools), SHIM (the preload library), SHIM_PRELOAD
# (what LD_PRELOAD must hold to load the shim by hand, sanitizer runtimes
# first), SAN_PRELOAD (the sanitizer runtimes of a sanitizer build, else
# empty), T (a private temporary directory, removed at exit), and a private
# table in CPUSETSHIM_TABLE (removed at exit, with its kept views).
#
# Checks (each returns 0 if it passed, 1 if not):
#           pass DESC | fail DESC [DETAIL...] | check DESC CMD...
#           expect_eq DESC GOT WANT | expect_ne DESC GOT UNWANTED
#           expect_match DESC GOT ERE | expect_nomatch DESC GOT ERE
#           expect_status DESC WANT CMD... (stdout in $T/out, stderr in $T/err)
#           expect_stderr DESC TEXT (the last expect_status's stderr has TEXT)
# Tools:    need CMD [PACKAGE] | need_pkg PACKAGE | skip_all REASON
#           need_fault_points | have_fault_points (skip "..." "$NO_FAULTS")
#           (a missing tool: the rest of the test is skipped, exit 77)
#           skip DESC REASON (one check skipped, the test goes on)
# Running:  in_set SET CMD... | with_san CMD... | san_env | outside CMD...
#           real_cpus PID | at_exit CMD | note TEXT | show FILE
# Waiting:  wait_until CMD... (until CMD succeeds, CPS_WAIT s at most)
#           progress [SECONDS] | tick START WHAT (CPS_TICK: a note a while)
# Sets:     two_sets | each_set FN | seq_join FIRST LAST SEP
# End:      finish | die REASON

cps_dir=$(cd "$(dirname "$0")" && pwd)
case $cps_dir in
*/tests/integration | */tests/bench | */tests/slurm | */tests/topo) cps_top=$(cd "$cps_dir/../.." && pwd) ;;
*) cps_top=$(cd "$cps_dir/.." && pwd) ;;
esac
B=${CPS_BUILDDIR:-$cps_top}
SRC=${CPS_SRCDIR:-$cps_top}
CPUSET=$B/cpuset
CPUSET_RUN=$B/cpuset-run
CPUSET_INSPECT=$B/cpuset-inspect
SHIM=$B/.libs/libcpusetshim.so
# the captured machines, unpacked (make check does it)
CPS_FIXTURES=${CPS_FIXTURES:-$B/tests/fixtures/unpacked}
export CPS_FIXTURES
# Debian's python3 (with python3-psutil), never another one on PATH
PYTHON3=/usr/bin/python3
# cpuset-run finds the shim through CPUSETSHIM_LIB; installed, it knows
# only the installed path.
CPUSETSHIM_LIB=$SHIM
export CPUSETSHIM_LIB

cps_n=0
cps_failed=0

# ---- TAP ----

# one line, and no "#" that the TAP reader would take for a directive
cps_desc() {
	printf '%s' "$*" | tr '\n' ' ' | sed 's/#/\\#/g'
}

# note TEXT: a diagnostic line in the log
note() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

# show FILE: a file's lines as diagnostics
show() {
	[ -f "$1" ] && sed 's/^/#   | /' "$1"
	return 0
}

pass() {
	cps_n=$((cps_n + 1))
	# (no process for a line that needs no change: tests of many checks)
	case $1 in
	*'#'* | *'
'*) echo "ok $cps_n - $(cps_desc "$1")" ;;
	*) echo "ok $cps_n - $1" ;;
	esac
}

# fail DESC [DETAIL...]: each DETAIL becomes diagnostic lines
fail() {
	cps_n=$((cps_n + 1))
	cps_failed=$((cps_failed + 1))
	echo "not ok $cps_n - $(cps_desc "$1")"
	shift
	for _l in "$@"; do
		note "$_l"
	done
	return 1
}

# expect_eq DESC GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "got:  [$2]" "want: [$3]"
	fi
}

# expect_ne DESC GOT UNWANTED
expect_ne() {
	if [ "$2" != "$3" ]; then
		pass "$1"
	else
		fail "$1" "got [$2], wanted anything else"
	fi
}

# expect_match DESC GOT ERE: GOT (may be several lines) has a line matching
expect_match() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then
		pass "$1"
	else
		fail "$1" "no line matches /$3/ in:" "$2"
	fi
}

# expect_nomatch DESC GOT ERE
expect_nomatch() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then
		fail "$1" "a line matches /$3/ in:" "$2"
	else
		pass "$1"
	fi
}

# expect_status DESC WANT CMD...: CMD's exit status is WANT; its stdout is
# kept in $T/out and its stderr in $T/err (shown when the check fails)
expect_status() {
	_d=$1 _w=$2
	shift 2
	"$@" >"$T/out.new" 2>"$T/err.new"
	_s=$?
	mv -f "$T/out.new" "$T/out"
	mv -f "$T/err.new" "$T/err"
	if [ "$_s" = "$_w" ]; then
		pass "$_d"
	else
		fail "$_d" "exit status $_s, want $_w" "stdout: $(head -c 2000 "$T/out")" \
			"stderr: $(head -c 2000 "$T/err")"
	fi
}

# expect_stderr DESC TEXT: the last expect_status's stderr holds TEXT
expect_stderr() {
	if grep -qF -- "$2" "$T/err"; then
		pass "$1"
	else
		fail "$1" "stderr lacks [$2]:" "$(cat "$T/err")"
	fi
}

# check DESC CMD...: CMD exits 0 (its output kept as for expect_status)
check() {
	_d=$1
	shift
	expect_status "$_d" 0 "$@"
}

finish() {
	if [ "$cps_n" -eq 0 ]; then
		fail "the test ran no check"
	fi
	echo "1..$cps_n"
	note "$((cps_n - cps_failed)) passed, $cps_failed failed"
	[ "$cps_failed" -eq 0 ] && exit 0
	exit 1
}

# die REASON: trouble that makes the rest meaningless; a failed check
die() {
	fail "$*"
	finish
}

# skip_all REASON: what remains cannot run here. Exits 77 (automake's
# "skipped"); the TAP lines say why.
skip_all() {
	if [ "$cps_n" -eq 0 ]; then
		echo "1..0 # SKIP $(cps_desc "$*")"
	else
		cps_n=$((cps_n + 1))
		echo "ok $cps_n # SKIP $(cps_desc "$*")"
		echo "1..$cps_n"
		[ "$cps_failed" -eq 0 ] || exit 1
	fi
	exit 77
}

# skip DESC REASON: one check that cannot run here (a TAP "# SKIP" line;
# the test goes on)
skip() {
	cps_n=$((cps_n + 1))
	echo "ok $cps_n - $(cps_desc "$1") # SKIP $(cps_desc "$2")"
}

# todo DESC REASON: one check known to fail here for a cause outside the
# project, named in REASON (a TAP "not ok ... # TODO" line: an expected
# failure, counted apart, never a pass; the test goes on)
todo() {
	cps_n=$((cps_n + 1))
	echo "not ok $cps_n - $(cps_desc "$1") # TODO $(cps_desc "$2")"
}

# need CMD [PACKAGE]: CMD on PATH (or an executable path), else skip.
# Installing is scripts/deps.sh's job, never a test's.
need() {
	if [ -x "$1" ] || command -v "$1" >/dev/null 2>&1; then
		return 0
	fi
	skip_all "needs $1${2:+ (Debian package $2; sh scripts/deps.sh installs it)}"
}

# need_pkg PACKAGE: a Debian package that brings no command (libraries,
# headers), else skip
need_pkg() {
	LD_PRELOAD='' dpkg-query -W -f='${Status}' "$1" 2>/dev/null |
		grep -q "install ok installed" && return 0
	skip_all "needs the Debian package $1 (sh scripts/deps.sh installs it)"
}

# have_fault_points: the build has the test-only fault points of the
# table's writers (CPUSETSHIM_FAULT_STEP); need_fault_points: else skip,
# naming the option ($NO_FAULTS: the reason, for a skip of one check)
NO_FAULTS="no fault points in this build: configure with --enable-fault-injection (sh scripts/build.sh does)"
have_fault_points() {
	grep -q '^#define CPS_FAULT_INJECTION 1' "$B/config.h" 2>/dev/null
}
need_fault_points() {
	have_fault_points || skip_all "$NO_FAULTS"
}

# ---- the environment of every test ----

[ -x "$CPUSET" ] || die "no $CPUSET (build first)"
[ -x "$CPUSET_RUN" ] || die "no $CPUSET_RUN (build first)"
[ -x "$CPUSET_INSPECT" ] || die "no $CPUSET_INSPECT (build first)"
[ -f "$SHIM" ] || die "no $SHIM (build first)"

T=$(mktemp -d "${TMPDIR:-/tmp}/cpusetshim-test.XXXXXX") || die "mktemp failed"

# A private table, never the user's default one nor another test's.
CPUSETSHIM_TABLE="cpusetshim-t.$(basename "$0" .sh).$$"
export CPUSETSHIM_TABLE
unset LD_PRELOAD CPUSETSHIM_SET CPUSETSHIM_RUN_SET CPUSETSHIM_WRAP CPUSETSHIM_DEBUG \
	CPUSETSHIM_VIEW_CPUINFO CPUSETSHIM_VIEW_STAT CPUSETSHIM_KEEP_VIEWS \
	CPUSETSHIM_VIEW_PIDSTAT CPUSETSHIM_VIEW_CGROUP CPUSETSHIM_VIEW_NUMA_MAPS \
	CPUSETSHIM_TEST_UID CPUSETSHIM_FAULT_STEP CPUSETSHIM_FAULT_REPORT
# nproc and the OpenMP runtimes obey these before any CPU count: a CI
# machine's settings must not decide what the programs report.
unset OMP_NUM_THREADS OMP_THREAD_LIMIT OMP_PLACES OMP_PROC_BIND OMP_DYNAMIC \
	GOMP_CPU_AFFINITY KMP_AFFINITY KMP_HW_SUBSET

cps_exit_hooks=:
# at_exit CMD: run CMD (a shell string) when the test ends
at_exit() {
	cps_exit_hooks="$cps_exit_hooks; $1"
}
cps_cleanup() {
	eval "$cps_exit_hooks"
	rm -f "/dev/shm/$CPUSETSHIM_TABLE"
	rm -rf "/dev/shm/$CPUSETSHIM_TABLE.views."*
	rm -rf "$T"
}
trap cps_cleanup EXIT
# (no TERM trap: a background child forked with it could lose a kill sent
# before its exec, and a test waiting for it would hang)
trap 'exit 1' HUP INT

# The real kernel affinity of a task, read outside the shim.
real_cpus() {
	sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status"
}

# ---- waiting ----

# wait_until CMD...: run CMD until it succeeds (0), polling, for at most
# CPS_WAIT seconds of the clock (120; a machine loaded by other work is
# slow, so the bound is generous and only a condition that never comes
# reaches it: 1). A test waits for a condition, never for a fixed time.
CPS_WAIT=${CPS_WAIT:-120}
wait_until() {
	_wu_t0=$(date +%s)
	_wu_end=$((_wu_t0 + CPS_WAIT))
	_wu_nap=0.02
	until "$@"; do
		[ "$(date +%s)" -lt "$_wu_end" ] || return 1
		tick "$_wu_t0" "$*"
		sleep "$_wu_nap"
		case $_wu_nap in 0.02) _wu_nap=0.05 ;; 0.05) _wu_nap=0.1 ;; esac
	done
}

# progress [SECONDS]: a slow test that has just finished a step pushes its
# deadline (tests/run-test.sh, CPS_TEST_EXTEND) SECONDS (600) past now: a
# loaded machine makes each step slower, and a test that goes on making
# steps is not stopped; one that stops making them meets its deadline.
progress() {
	[ -z "${CPS_TEST_EXTEND:-}" ] || echo $(($(date +%s) + ${1:-600})) >"$CPS_TEST_EXTEND"
}

# tick START WHAT: in a wait loop begun at START (date +%s), a note
# "WHAT: still waiting, N s" when CPS_TICK seconds (unset or 0: never)
# have passed since the loop began or since the last such note. A test
# watched for silence (the guest's, tests/guest/boot.sh's GUEST_STALL)
# shows that a bounded wait goes on; a hang outside one stays silent.
tick() {
	[ "${CPS_TICK:-0}" -gt 0 ] || return 0
	_tk_now=$(date +%s)
	_tk_from=${cps_tick_at:-0}
	[ "$_tk_from" -ge "$1" ] || _tk_from=$1
	[ $((_tk_now - _tk_from)) -ge "$CPS_TICK" ] || return 0
	cps_tick_at=$_tk_now
	note "$2: still waiting, $((_tk_now - $1)) s"
}

# ---- sanitizer builds ----

# A sanitizer build links libasan into the shim, and libasan must be the
# first object loaded into any program that preloads the shim: SAN_PRELOAD
# is then the base of LD_PRELOAD for such programs (cpuset-run keeps a
# libasan entry first). Other programs (pgrep, sleep...) must not get it:
# some hang or die with the sanitizer runtimes forced into them.
SAN_PRELOAD=
cps_asan=$(LD_PRELOAD='' ldd "$SHIM" 2>/dev/null | awk '/libasan\.so/ { print $3; exit }')
if [ -n "$cps_asan" ]; then
	cps_ubsan=$(LD_PRELOAD='' ldd "$SHIM" 2>/dev/null | awk '/libubsan\.so/ { print $3; exit }')
	SAN_PRELOAD="$cps_asan${cps_ubsan:+:$cps_ubsan}"
	note "sanitizer build: LD_PRELOAD base for the shim '$SAN_PRELOAD'"
	SHIM_PRELOAD="$SAN_PRELOAD $SHIM"
else
	SHIM_PRELOAD=$SHIM
fi

# san_env: the variables (VAR=VALUE words, for env) that a program which
# loads the shim needs in a sanitizer build; nothing in another build
san_env() {
	[ -n "$SAN_PRELOAD" ] && echo "LD_PRELOAD=$SAN_PRELOAD" \
		"ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0:handle_sigbus=0" \
		"UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
	return 0
}

# with_san CMD...: CMD with the sanitizer runtimes first in LD_PRELOAD (a
# sanitizer build; else as it is). For programs that load the shim:
# cpuset-run and what it runs, or an explicit LD_PRELOAD="$SHIM_PRELOAD".
# In the background, $! is a subshell's: use env $(san_env) CMD there.
with_san() {
	env $(san_env) "$@"
}

# in_set SET CMD...: CMD in set SET through cpuset-run, bounded in time
in_set() {
	_set=$1
	shift
	with_san timeout 120 "$CPUSET_RUN" --set "$_set" "$@"
}

# outside CMD...: CMD with no preload at all: the real machine's answer
outside() {
	env LD_PRELOAD='' "$@"
}

# ---- the two sets of the programs under the shim (tests/integration) ----

# two_sets: in the test's table, set {1} named itest-one (its id in S1)
# and set {0,1} (its id in S2). This process must be able to use CPUs 0
# and 1.
two_sets() {
	need taskset util-linux
	_m=$(outside taskset -p $$ | sed 's/.*: //')
	[ $((0x$_m & 3)) -eq 3 ] || die "the sets need CPUs 0 and 1 (our real mask is $_m)"
	expect_status "cpuset init (private table $CPUSETSHIM_TABLE)" 0 "$CPUSET" init
	S1=$("$CPUSET" create --cpus 1 --name itest-one) || die "cpuset create --cpus 1 failed"
	S2=$("$CPUSET" create --cpus 0-1) || die "cpuset create --cpus 0-1 failed"
	note "set {1} is $S1, set {0,1} is $S2"
}

# each_set FN: FN SET N LIST for set {1} (1 CPU, list 1) and set {0,1}
# (2 CPUs, list 0,1), made by two_sets, with these set for FN: s, n, list
# (its arguments), t ("set {LIST}", to start descriptions), phys (LIST's
# CPUs, space-separated), p0 (the first), vmask (virtual CPUs 0..N-1 as a
# hex mask), kmask (LIST as a hex mask), vrange ("0", or "0-" N-1), w (the
# set's possible CPUs: N, or with CPUSETSHIM_WIDE_POSSIBLE=1 its highest
# CPU plus one if more), wrange (the possible list: "0", or "0-" W-1)
each_set() {
	each_set_fn=$1
	for _es in "$S1 1 1" "$S2 2 0,1"; do
		set -- $_es
		s=$1 n=$2 list=$3
		phys=$(echo "$list" | tr , ' ')
		p0=${list%%,*}
		vmask=$(printf '%x' $(((1 << n) - 1)))
		kmask=0
		for _c in $phys; do
			kmask=$((kmask | (1 << _c)))
		done
		kmask=$(printf '%x' $kmask)
		vrange=0
		[ "$n" -gt 1 ] && vrange="0-$((n - 1))"
		w=$((${list##*,} + 1))
		[ "$w" -ge "$n" ] && [ "${CPUSETSHIM_WIDE_POSSIBLE-}" = 1 ] || w=$n
		wrange=0
		[ "$w" -gt 1 ] && wrange="0-$((w - 1))"
		t="set {$list}"
		note "---- $t (id $s): $n CPU(s) ----"
		$each_set_fn "$s" "$n" "$list"
	done
}

# seq_join FIRST LAST SEP
seq_join() {
	seq -s "$3" "$1" "$2"
}
