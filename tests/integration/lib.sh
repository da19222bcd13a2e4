# Shell helpers of the integration tests; sourced, never run.
#
# Sets: B (build tree), SRC (source tree), CPUSET, CPUSET_RUN,
# CPUSET_INSPECT (the tools, libtool wrappers or real binaries alike),
# SHIM (the preload library), SHIM_PRELOAD (what LD_PRELOAD must hold to
# load the shim by hand, sanitizer runtimes first), T (a private temp dir),
# and a private table per run in CPUSETSHIM_TABLE.
#
# Every check goes through expect_* so the log shows what was expected and
# what came; finish prints "N passed, M failed" and exits 1 if any failed.
# Nothing is ever skipped: a missing dependency is installed, and if that
# is impossible the run fails.

itest_dir=$(cd "$(dirname "$0")" && pwd)
B=${CPS_BUILDDIR:-$(cd "$itest_dir/../.." && pwd)}
SRC=${CPS_SRCDIR:-$B}
CPUSET="$B/cpuset"
CPUSET_RUN="$B/cpuset-run"
CPUSET_INSPECT="$B/cpuset-inspect"
SHIM="$B/.libs/libcpusetshim.so"

itest_pass=0
itest_fail=0

# ---- assertions ----

ok()
{
	itest_pass=$((itest_pass + 1))
	echo "ok: $1"
}

fail()
{
	itest_fail=$((itest_fail + 1))
	echo "FAIL: $1"
}

# expect_eq DESC GOT WANT
expect_eq()
{
	if [ "$2" = "$3" ]; then
		ok "$1 (= '$3')"
	else
		fail "$1: expected '$3', got '$2'"
	fi
}

# expect_ne DESC GOT UNWANTED
expect_ne()
{
	if [ "$2" != "$3" ]; then
		ok "$1 ('$2' is not '$3')"
	else
		fail "$1: expected anything but '$3', got it"
	fi
}

# expect_match DESC GOT ERE: GOT (may be several lines) has a line matching
expect_match()
{
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then
		ok "$1 (matches /$3/)"
	else
		fail "$1: expected a line matching /$3/, got '$2'"
	fi
}

# expect_nomatch DESC GOT ERE
expect_nomatch()
{
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then
		fail "$1: expected no line matching /$3/, got '$2'"
	else
		ok "$1 (nothing matches /$3/)"
	fi
}

# expect_status DESC WANT CMD...: runs CMD, output into the log
expect_status()
{
	_d=$1 _w=$2
	shift 2
	"$@" >"$T/status.out" 2>&1
	_s=$?
	sed 's/^/    | /' "$T/status.out"
	expect_eq "$_d: exit status" "$_s" "$_w"
}

# Fatal trouble in the harness itself: counts as a failure, then stops.
die()
{
	fail "$*"
	finish
}

finish()
{
	echo "$itest_pass passed, $itest_fail failed"
	if [ "$itest_fail" -ne 0 ] || [ "$itest_pass" -eq 0 ]; then
		exit 1
	fi
	exit 0
}

# ---- dependencies ----

itest_apt_updated=

# Installs Debian package PKG (root only).
install_pkg()
{
	if [ "$(id -u)" -ne 0 ]; then
		echo "cannot install $1: not root"
		return 1
	fi
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "cannot install $1: no apt-get"
		return 1
	fi
	if [ -z "$itest_apt_updated" ]; then
		DEBIAN_FRONTEND=noninteractive LD_PRELOAD='' apt-get update -qq || return 1
		itest_apt_updated=1
	fi
	DEBIAN_FRONTEND=noninteractive LD_PRELOAD='' apt-get install -y -qq "$1" >/dev/null
}

# need CMD PKG: makes sure CMD is on PATH, installing PKG if it is not.
need()
{
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "# $1 missing: installing $2"
	install_pkg "$2" && command -v "$1" >/dev/null 2>&1 ||
		die "need $1 (package $2) and could not install it"
}

# need_pkg PKG: a package that brings no command (libraries, headers).
need_pkg()
{
	LD_PRELOAD='' dpkg-query -W -f='${Status}' "$1" 2>/dev/null |
		grep -q "install ok installed" && return 0
	echo "# package $1 missing: installing it"
	install_pkg "$1" || die "need package $1 and could not install it"
}

# ---- the environment of every run ----

[ -x "$CPUSET" ] || die "no $CPUSET (build first)"
[ -x "$CPUSET_RUN" ] || die "no $CPUSET_RUN (build first)"
[ -f "$SHIM" ] || die "no $SHIM (build first)"

T=$(mktemp -d "${TMPDIR:-/tmp}/cpusetshim-itest.XXXXXX") || die "mktemp failed"

# A private table, never the user's default one nor another test's.
CPUSETSHIM_TABLE="cpusetshim-itest.$$"
export CPUSETSHIM_TABLE
unset CPUSETSHIM_SET CPUSETSHIM_WRAP CPUSETSHIM_DEBUG CPUSETSHIM_LIB \
	CPUSETSHIM_VIEW_CPUINFO CPUSETSHIM_VIEW_STAT
# nproc and the OpenMP runtimes obey these before any CPU count: a CI
# machine's settings must not decide what the programs report.
unset OMP_NUM_THREADS OMP_THREAD_LIMIT OMP_PLACES OMP_PROC_BIND OMP_DYNAMIC \
	GOMP_CPU_AFFINITY KMP_AFFINITY KMP_HW_SUBSET

itest_cleanup()
{
	rm -f "/dev/shm/$CPUSETSHIM_TABLE"
	rm -rf "/dev/shm/$CPUSETSHIM_TABLE.views."*
	rm -rf "$T"
}
trap itest_cleanup EXIT
trap 'exit 1' HUP INT TERM

. "$(dirname "$0")/../sanitizer.sh"
SHIM_PRELOAD=$SHIM
if [ -n "$SAN_PRELOAD" ]; then
	LD_PRELOAD=$SAN_PRELOAD
	ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	export LD_PRELOAD ASAN_OPTIONS UBSAN_OPTIONS
	SHIM_PRELOAD="$LD_PRELOAD $SHIM"
else
	unset LD_PRELOAD
fi
BASE_PRELOAD=${LD_PRELOAD:-}

# Runs CMD with no preload at all: the real machine's answer.
outside()
{
	env LD_PRELOAD='' "$@"
}

# Runs CMD in set SET through cpuset-run, bounded in time.
in_set()
{
	_set=$1
	shift
	timeout 120 "$CPUSET_RUN" --set "$_set" "$@"
}
