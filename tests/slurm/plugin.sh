# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the Slurm tests after lib.sh's slurm_need: starts the private
# cluster with the plugin enabled (required, a table name of the test's own)
# and defines what the tests share. The cluster is lib.sh's one node
# (slurm_start), or the function SLURM_STARTER names (cluster.sh's
# cluster_start: several nodes).
#
#   $UT          the user's table the plugin uses ("<table>.<uid>")
#   $REPORT      the reporter program (tests/slurm/prog_report)
#   sl CMD...    a Slurm command (in a sanitizer build with the runtimes
#                preloaded, which the tasks' shim needs), stopped after
#                $SL_TIMEOUT s (180): a job that can never start (a
#                drained node) fails its check, not the whole run
#   sl_wait PID  wait for a Slurm command started in the background, as
#                long at most; its exit status
#   sl_held N PAT SRUN-ARGS...  srun a program held until $T/go exists,
#                until N lines of its output match PAT; release ends it
#   set_of LINE  the plugin's name of the set of a reporter line's task
#   check_clean  DESC: no set but the root in $UT, cpuset-inspect --check clean
PLUGIN=$B/slurm/.libs/cpusetshim.so
# a sanitizer build: the daemons get the plugin built without sanitizers
# (slurm/Makemodule.am says why); the tasks still get the sanitized shim
if [ -n "$SAN_PRELOAD" ]; then
	PLUGIN=$B/tests/slurm/cpusetshim-plain.so
	[ -f "$PLUGIN" ] || die "no $PLUGIN (make check builds it in a sanitizer build)"
fi
REPORT=$B/tests/slurm/prog_report
TBASE="cpst-slurm.$$"
UT="$TBASE.$(id -u)"
# the job's tasks get the environment of srun: nothing of a set of ours
unset CPUSETSHIM_SET CPUSETSHIM_RUN_SET LD_PRELOAD
SL_TIMEOUT=${SL_TIMEOUT:-180}
sl() {
	timeout --foreground -k 10 "$SL_TIMEOUT" env -u CPUSETSHIM_TABLE $(san_env) "$@"
}
sl_wait() {
	_w=0 _sw_t0=$(date +%s)
	while kill -0 "$1" 2>/dev/null && [ "$_w" -lt $((SL_TIMEOUT * 10)) ]; do
		tick "$_sw_t0" "a Slurm command (pid $1) to end"
		sleep 0.1
		_w=$((_w + 1))
	done
	if kill -0 "$1" 2>/dev/null; then
		note "a Slurm command (pid $1) still runs after $SL_TIMEOUT s: stopped"
		kill "$1" 2>/dev/null
		sleep 2
		kill -9 "$1" 2>/dev/null
	fi
	wait "$1"
}
# sl_held N PAT SRUN-ARGS...: srun SRUN-ARGS (a program held until $T/go
# exists) in the background, until N lines of its output match PAT (grep);
# $T/held.out has its output, $T/held.err srun's messages, held_pid is
# srun's. An srun that ends without them is noted (its messages and the
# daemons' logs) and tried once more: the daemons share this machine with
# everything else.
sl_count() {
	_c=$(grep -c "$1" "$T/held.out" 2>/dev/null)
	echo "${_c:-0}"
}
sl_held() {
	_sh_n=$1 _sh_pat=$2
	shift 2
	for _sh_try in 1 2; do
		rm -f "$T/go"
		# the files exist before srun starts: a count made before the
		# background shell has opened them is 0, never an error that
		# ends the wait at once
		: >"$T/held.out"
		: >"$T/held.err"
		sl srun "$@" >>"$T/held.out" 2>>"$T/held.err" &
		held_pid=$!
		# until the lines are there, srun has ended (the shell reaps it
		# at its next command substitution), or SL_TIMEOUT has passed
		_sh_t0=$(date +%s)
		_sh_end=$((_sh_t0 + SL_TIMEOUT))
		while [ "$(sl_count "$_sh_pat")" -lt "$_sh_n" ] && [ "$(date +%s)" -lt "$_sh_end" ]; do
			kill -0 "$held_pid" 2>/dev/null || break
			tick "$_sh_t0" "srun $* (try $_sh_try): $_sh_n lines of its tasks"
			sleep 0.05
		done
		[ "$(sl_count "$_sh_pat")" -ge "$_sh_n" ] && return 0
		touch "$T/go"
		sl_wait "$held_pid"
		note "srun $* (try $_sh_try): exit status $?, output:" "$(cat "$T/held.out" "$T/held.err")" \
			"slurmctld:" "$(tail -n 15 "$SL/ctld.log")" "slurmd:" "$(tail -n 15 "$SL/slurmd.log")"
	done
	return 1
}
# release: the held program goes on and ends; srun's status in held_rc
release() {
	touch "$T/go"
	sl_wait "$held_pid"
	held_rc=$?
}
# slurmd (and the slurmstepd it starts) load the plugin too: never a
# sanitizer runtime in them (see above)
SLURM_DAEMON_ENV=
${SLURM_STARTER:-slurm_start} "required $PLUGIN table=$TBASE shim=$SHIM ${PLUGIN_ARGS:-}" || {
	die "the private Slurm cluster did not start"
}
at_exit "rm -f /dev/shm/$UT; rm -rf /dev/shm/$UT.views.*"

# set_of LINE: slurm.<job>.<step>.<task> of a reporter line; step_of LINE:
# slurm.<job>.<step> (the batch step is "batch")
step_of() {
	echo "$1" | sed -n 's/^task [^ ]* job \([0-9]*\) step \([^ ]*\) .*/slurm.\1.\2/p' |
		sed 's/\.4294967291$/.batch/'
}
set_of() {
	echo "$(step_of "$1").$(echo "$1" | cut -d' ' -f2)"
}
# cpus_of NAME: the CPUs of a set of $UT as a comma list, or "none"
cpus_of() {
	_c=$("$CPUSET" --table "$UT" list 2>/dev/null | awk -v n="$1" '$3 == n { print $NF }')
	[ -n "$_c" ] && expand "$_c" || echo none
}
# as Cpus_allowed_list, "0-1,3" -> "0,1,3"
expand() {
	/usr/bin/python3 -c "import sys
out=[]
for p in sys.argv[1].split(','):
    a,_,b=p.partition('-'); out += range(int(a), int(b or a)+1)
print(','.join(map(str,out)))" "$1"
}

# check_clean DESC: once the steps have ended (their clean-up runs in
# slurmstepd after the job is reported done: up to 5 s), the table is gone
# (the user's last job removes it, with its kept views), or holds the root
# alone and is consistent.
check_clean() {
	# (cpuset-inspect, never cpuset list: that would make the table again)
	_i=0 _cc_t0=$(date +%s)
	while [ "$_i" -lt 2400 ]; do
		tick "$_cc_t0" "$1: the table $UT to empty"
		[ -e "/dev/shm/$UT" ] || break
		[ "$("$CPUSET_INSPECT" --table "$UT" --tree 2>/dev/null | wc -l)" -le 1 ] && break
		sleep 0.05
		_i=$((_i + 1))
	done
	# the user's last job on the node took the table with it
	if [ ! -e "/dev/shm/$UT" ]; then
		pass "$1: the unused table is removed"
		expect_eq "$1: its kept views too" "$(ls -d "/dev/shm/$UT.views."* 2>/dev/null)" ""
		return
	fi
	_left=$("$CPUSET_INSPECT" --table "$UT" --tree 2>&1 | awk 'NR > 1')
	expect_eq "$1: no set left behind" "$_left" ""
	# (unless the table went meanwhile)
	if "$CPUSET_INSPECT" --table "$UT" --check >"$T/clean.chk" 2>&1 || [ ! -e "/dev/shm/$UT" ]; then
		pass "$1: cpuset-inspect --check"
	else
		fail "$1: cpuset-inspect --check" "$(cat "$T/clean.chk")"
	fi
}
