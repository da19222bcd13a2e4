# Helpers of the shell tests of the tools (sourced). Each test gets a private
# table, removed at exit, and ends with the line "N passed, M failed".
B=${CPS_BUILDDIR:-$(cd "$(dirname "$0")/.." && pwd)}
CPUSET=$B/cpuset
INSPECT=$B/cpuset-inspect
SHIM=$B/.libs/libcpusetshim.so
. "$(dirname "$0")/sanitizer.sh"
unset LD_PRELOAD
# programs under the shim get the sanitizer runtimes first, others never
cpuset_run() {
	env $(san_env) "$B/cpuset-run" "$@"
}
export CPUSETSHIM_TABLE="cpusetshim-t.$(basename "$0" .sh).$$"
unset CPUSETSHIM_TEST_UID CPUSETSHIM_FAULT_STEP CPUSETSHIM_FAULT_REPORT CPUSETSHIM_SET
TMP=$(mktemp -d)
npass=0
nfail=0
cleanup_hook=:
trap 'eval "$cleanup_hook"; rm -rf "$TMP"; rm -f /dev/shm/$CPUSETSHIM_TABLE; rm -rf /dev/shm/$CPUSETSHIM_TABLE.views.*' EXIT

ok() { npass=$((npass + 1)); }
bad() { nfail=$((nfail + 1)); echo "FAIL: $*"; }
# expect DESC GOT WANT
expect() {
	if [ "$2" = "$3" ]; then ok; else bad "$1: got [$2], want [$3]"; fi
}
# expect_rc DESC WANT CMD... (stdout and stderr kept in $TMP/out, $TMP/err)
expect_rc() {
	_d=$1 _w=$2
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	_r=$?
	if [ "$_r" = "$_w" ]; then ok; else bad "$_d: exit $_r, want $_w ($(head -c 300 "$TMP/err"))"; fi
}
# expect_err DESC TEXT: the last expect_rc's stderr holds TEXT
expect_err() {
	if grep -q -- "$2" "$TMP/err"; then ok; else bad "$1: stderr [$(cat "$TMP/err")] lacks [$2]"; fi
}
# The real kernel affinity of a task, read outside the shim.
real_cpus() {
	sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status"
}
finish() {
	echo "$npass passed, $nfail failed"
	[ "$nfail" -eq 0 ]
	exit $?
}
