#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# cpuset-run's supervisor and a static program (gcc -static, glibc; and
# musl-gcc -static for counts, views, threads and binding):
# counts, affinity both ways, the views, threads, in sets {1} and {0,1}
# and nested, each compared with the kernel's truth read outside the
# program; the ways out of the set; the supervisor killed; a signal storm;
# a set-user-id child; and the unchanged path of a dynamic program.
. "$(dirname "$0")/../common.sh"

need gcc gcc
need taskset util-linux
need musl-gcc musl-tools
P=$T/prog
gcc -O2 -static -pthread -o "$P" "$SRC/tests/integration/prog_supervised.c" 2>"$T/cc.err" ||
	skip_all "gcc -static cannot link here (libc6-dev's static libc): $(head -1 "$T/cc.err")"
two_sets
ROOT=$("$CPUSET" --json list | "$PYTHON3" -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')

# run_bg OUT CMD...: CMD in the background with its stdin kept open by a
# fifo (the prog's waiting modes end at a line on it); sets BG (cpuset-run's
# pid) and FIFO
run_bg() {
	_out=$1
	shift
	FIFO=$T/fifo.$$.$cps_n
	rm -f "$FIFO"
	mkfifo "$FIFO"
	"$@" <"$FIFO" >"$_out" 2>&1 &
	BG=$!
	exec 9>"$FIFO"
}
release() {
	echo >&9
	exec 9>&-
	wait "$BG" 2>/dev/null
}
# wait_line FILE: until FILE has a line (wait_until's bound)
wait_line() {
	wait_until grep -q . "$1"
}

# ---- the choice ----
with_san env CPUSETSHIM_DEBUG=1 "$CPUSET_RUN" --set "$S1" "$P" counts >"$T/out" 2>"$T/err"
expect_match "a static ELF is supervised by itself" "$(cat "$T/err")" "static ELF: supervised"
expect_match "in files mode" "$(cat "$T/err")" "in files mode"
out=$(with_san "$CPUSET_RUN" --set "$S1" sh -c 'echo "[$CPUSETSHIM_SUPERVISED]"; grep "^Seccomp:" /proc/self/status' | tr '\n' ' ')
expect_match "a dynamic program is not: no filter, the preload" "$out" '^\[\] Seccomp:[[:space:]]+0 $'
out=$(with_san "$CPUSET_RUN" --set "$S1" --supervise=calls sh -c 'echo "[$CPUSETSHIM_SUPERVISED]"; grep "^Seccomp:" /proc/self/status' | tr '\n' ' ')
expect_match "--supervise=calls on a dynamic program: a filter, calls mode" "$out" '^\[calls\] Seccomp:[[:space:]]+2 $'
out=$(with_san "$CPUSET_RUN" --set "$S1" --supervise=calls "$P" counts | awk '{ print $4 }')
expect_eq "--supervise=calls: the raw affinity is virtual" "$out" 0
out=$(with_san "$CPUSET_RUN" --set "$S1" --supervise=calls "$P" files | cut -d' ' -f1,2)
expect_eq "--supervise=calls: the files are the kernel's" "$out" "$(outside "$P" files | cut -d' ' -f1,2)"
out=$(with_san "$CPUSET_RUN" --set "$S1" --no-supervise "$P" counts)
expect_eq "--no-supervise: a static program sees the machine again" "$out" \
	"$(outside taskset -c 1 "$P" counts | sed 's/ [0-9,]*$//') 1"
expect_status "--supervise=bad is refused" 125 with_san "$CPUSET_RUN" --set "$S1" --supervise=bad "$P" counts
expect_stderr "and says why" "neither 'files' nor 'calls'"
# container runtimes and clients, by name as found and as links resolve
mkdir -p "$T/rt"
cp /bin/true "$T/rt/docker"
ln -s "$(command -v chroot)" "$T/rt/myroot"
with_san env CPUSETSHIM_DEBUG=1 "$CPUSET_RUN" --set "$S1" "$T/rt/myroot" / "$P" counts >"$T/out" 2>"$T/err"
expect_match "a link to chroot: a container runtime, supervised" "$(cat "$T/err")" \
	"container runtime: supervised"
expect_eq "and the static program inside sees the set" "$(cat "$T/out")" "1 1 1 0"
expect_status "a container client runs" 0 with_san "$CPUSET_RUN" --set "$S1" "$T/rt/docker"
expect_stderr "and is said: its daemon's containers start outside the set" \
	"is a container client: a container it hands to a daemon"
expect_status "a missing program is 127" 127 with_san "$CPUSET_RUN" --set "$S1" --supervise "$T/nothing"
expect_status "the program's status is cpuset-run's" 3 with_san "$CPUSET_RUN" --set "$S1" --supervise sh -c 'exit 3'

# ---- in each set: the kernel's truth read outside ----
per_set() {
	vlist=$(seq -s, 0 $((n - 1)))
	out=$(with_san "$CPUSET_RUN" --set "$s" "$P" counts)
	expect_eq "$t: ONLN CONF get_nprocs and the raw affinity" "$out" "$n $n $n $vlist"
	out=$(with_san "$CPUSET_RUN" --set "$s" "$P" files | tr '\n' ' ')
	expect_eq "$t: cpuinfo's processors, stat's cpuN, status, online" "$out" "$n $n $vrange $vrange "
	out=$(with_san "$CPUSET_RUN" --set "$s" "$P" getcpu)
	expect_match "$t: getcpu is a virtual CPU" "$out" "^0 [0-$((n - 1))] 0$"
	out=$(with_san "$CPUSET_RUN" --set "$s" "$P" threads 3 | sort -u)
	expect_eq "$t: threads see the set" "$out" "$vlist"
	for v in $(seq 0 $((n - 1))); do
		run_bg "$T/bind" with_san "$CPUSET_RUN" --set "$s" "$P" bind "$v" wait
		wait_line "$T/bind"
		pid=$(awk '{ print $2 }' "$T/bind")
		want=$(echo "$phys" | cut -d' ' -f$((v + 1)))
		expect_eq "$t: bound to virtual $v, it says $v" "$(awk '{ print $1, $3 }' "$T/bind")" "ok $v"
		expect_eq "$t: bound to virtual $v, the kernel has it on $want" "$(real_cpus "$pid")" "$want"
		release
	done
	# a view of another process's status is the kernel's own file
	run_bg "$T/bind" with_san "$CPUSET_RUN" --set "$s" --supervise sh -c 'echo $$; read l; cat /proc/$$/status'
	wait_line "$T/bind"
	truth=$(real_cpus "$(head -1 "$T/bind")")
	release
	expect_eq "$t: a child reads its parent's real status, the kernel's" \
		"$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$T/bind")" "$truth"
}
each_set per_set

# ---- a static program of another C library: musl ----
# musl counts CPUs by the raw affinity and reads no /sys file for them:
# the supervisor's answers are all it sees
PM=$T/prog-musl
musl-gcc -O2 -static -pthread -o "$PM" "$SRC/tests/integration/prog_supervised.c" 2>"$T/musl.err" ||
	die "musl-gcc cannot build prog_supervised.c: $(head -3 "$T/musl.err")"
musl_set() {
	vlist=$(seq -s, 0 $((n - 1)))
	expect_eq "$t, musl: ONLN CONF get_nprocs and the raw affinity" \
		"$(with_san "$CPUSET_RUN" --set "$s" "$PM" counts)" "$n $n $n $vlist"
	expect_eq "$t, musl: cpuinfo's processors, stat's cpuN, status, online" \
		"$(with_san "$CPUSET_RUN" --set "$s" "$PM" files | tr '\n' ' ')" "$n $n $vrange $vrange "
	expect_eq "$t, musl: threads see the set" \
		"$(with_san "$CPUSET_RUN" --set "$s" "$PM" threads 3 | sort -u)" "$vlist"
	v=$((n - 1))
	run_bg "$T/bind" with_san "$CPUSET_RUN" --set "$s" "$PM" bind "$v" wait
	wait_line "$T/bind"
	expect_eq "$t, musl: bound to virtual $v, the kernel has it on $(echo "$phys" | cut -d' ' -f$n)" \
		"$(real_cpus "$(awk '{ print $2 }' "$T/bind")")" "$(echo "$phys" | cut -d' ' -f$n)"
	release
}
each_set musl_set
expect_eq "musl, natively in {1}: the machine's numbers (what the supervisor changes)" \
	"$(outside taskset -c 1 "$PM" counts | cut -d' ' -f4)" 1

# the calls' answers on bad arguments are the kernel's: in {0,1}, the
# whole machine, every answer is the native one
out=$(with_san "$CPUSET_RUN" --set "$S2" "$P" edges)
expect_eq "bad sizes, pointers and pids: the kernel's answers" "$out" "$(outside taskset -c 0,1 "$P" edges)"

# a documented limit: glibc's sched_getcpu reads the rseq area, no system
# call reaches the supervisor (doc/limits.md)
out=$(with_san "$CPUSET_RUN" --set "$S1" "$P" schedgetcpu)
expect_eq "set {1}: a static program's sched_getcpu stays physical (rseq)" "$out" 1

# ---- a resize: the supervisor follows it ----
S3=$("$CPUSET" create --cpus 0-1 --name sv-resize) || die "cpuset create sv-resize"
run_bg "$T/rs" with_san "$CPUSET_RUN" --set "$S3" --supervise sh -c "echo \$\$; '$P' counts; read l; '$P' counts; '$P' files"
wait_until eval '[ "$(wc -l <"$T/rs")" -ge 2 ]'
shpid=$(head -1 "$T/rs")
"$CPUSET" alloc "$S3" 1 >/dev/null || fail "cpuset alloc sv-resize 1"
expect_eq "resized to {1}: the kernel has the tree on 1" "$(real_cpus "$shpid")" 1
release
expect_eq "and the supervised program's counts and views follow it" \
	"$(sed -n '2,5p' "$T/rs" | tr '\n' ' ')" "2 2 2 0,1 1 1 1 0 1 1 0 0 "

# ---- kept views: made once for the caller's CPUs, again when they change ----
S4=$("$CPUSET" create --cpus 0-1 --name sv-kept) || die "cpuset create sv-kept"
run_bg "$T/kv" with_san "$CPUSET_RUN" --set "$S4" --supervise sh -c "'$P' kept /proc/cpuinfo; read l; '$P' kept /proc/cpuinfo"
wait_line "$T/kv"
"$CPUSET" alloc "$S4" 1 >/dev/null || fail "cpuset alloc sv-kept 1"
release
expect_eq "cpuinfo in {0,1}: two opens in a row are one file kept, of two CPUs" "$(sed -n 1p "$T/kv")" "same 2"
expect_eq "resized to {1}: made again, of one CPU" "$(sed -n 2p "$T/kv")" "same 1"

# ---- nested: one numbering ----
out=$(with_san "$CPUSET_RUN" --set "$S2" --supervise sh -c "'$CPUSET_RUN' --cpus 1 '$P' counts")
expect_eq "nested cpuset-run --cpus 1 in a supervised {0,1}: the inner set" "$out" "1 1 1 0"
out=$(with_san "$CPUSET_RUN" --set "$S2" --supervise sh -c "'$CPUSET_RUN' --cpus 1 sh -c '\"$P\" counts; \"$P\" files; nproc; taskset -pc \$\$'" | tr '\n' ' ')
expect_match "and its children, static and dynamic (the shim stands aside)" "$out" \
	"^1 1 1 0 1 1 0 0 1 pid [0-9]+'s current affinity list: 0 $"
run_bg "$T/bind" with_san "$CPUSET_RUN" --set "$S2" --supervise "$CPUSET_RUN" --cpus 1 "$P" bind 0 wait
wait_line "$T/bind"
expect_eq "nested: virtual 0 of the inner {1} is physical 1" "$(real_cpus "$(awk '{ print $2 }' "$T/bind")")" 1
release

# a nested cpuset-run takes the caller's own numbers: virtual 0 of a
# supervised {1} is physical 1
run_bg "$T/bind" with_san "$CPUSET_RUN" --set "$S1" --supervise "$CPUSET_RUN" --cpus 0 "$P" bind 0 wait
wait_line "$T/bind"
expect_eq "nested cpuset-run --cpus 0 in a supervised {1}: the program is on physical 1" \
	"$(real_cpus "$(awk '{ print $2 }' "$T/bind")")" 1
release

# ---- the ways out: the kernel mask stays inside ----
run_bg "$T/bind" with_san "$CPUSET_RUN" --set "$S1" "$P" bindraw 0 wait
wait_line "$T/bind"
expect_match "physical CPU 0 asked from {1} by the marked call: EINVAL" "$(cat "$T/bind")" "^Invalid argument"
expect_eq "and the kernel keeps it on 1" "$(real_cpus "$(awk '{ print $3 }' "$T/bind")")" 1
release
run_bg "$T/esc" with_san "$CPUSET_RUN" --set "$S1" --supervise sh -c '
	taskset -pc 0 $$ >/dev/null 2>&1; taskset -p 3 $$ >/dev/null 2>&1
	"'"$CPUSET"'" attach '"$ROOT"' $$ >/dev/null 2>&1; echo attach-root=$?
	"'"$CPUSET"'" attach '"$S2"' $$ >/dev/null 2>&1; echo attach-sibling=$?
	"'"$CPUSET_RUN"'" --physical --cpus 0 true >/dev/null 2>&1; echo run-cpus0=$?
	"'"$P"'" bind 7; echo $$; read l'
wait_until grep -q '^[0-9]*$' "$T/esc"
pid=$(grep '^[0-9]*$' "$T/esc" | tail -1)
expect_eq "taskset, cpuset attach (root, a sibling), cpuset-run --physical --cpus 0, virtual 7: still on 1" \
	"$(real_cpus "$pid")" 1
expect_match "cpuset attach to the root is refused" "$(cat "$T/esc")" "attach-root=[1-9]"
expect_match "cpuset attach to a set of CPU 0 is refused" "$(cat "$T/esc")" "attach-sibling=[1-9]"
expect_match "cpuset-run --physical --cpus 0 is refused" "$(cat "$T/esc")" "run-cpus0=[1-9]"
release
sleep 100 &
outsider=$!
before=$(real_cpus $outsider)
out=$(with_san "$CPUSET_RUN" --set "$S1" "$P" setpid $outsider 0)
expect_eq "setaffinity on a pid outside the tree: EPERM" "$out" "Operation not permitted"
expect_eq "and its mask is unchanged" "$(real_cpus $outsider)" "$before"
out=$(with_san "$CPUSET_RUN" --set "$S1" "$P" setpid 1 0)
expect_eq "setaffinity on pid 1: EPERM" "$out" "Operation not permitted"
out=$(with_san "$CPUSET_RUN" --set "$S1" --supervise sh -c "sh -c 'exit 0' & p=\$!; wait \$p; '$P' setpid \$p 0")
expect_eq "setaffinity on a thread id that ended: ESRCH" "$out" "No such process"
kill $outsider
out=$(with_san "$CPUSET_RUN" --set "$S2" --supervise sh -c "sleep 30 & p=\$!; '$P' setpid \$p 1; cat /proc/\$p/status; kill \$p" |
	sed -n '1p; s/^Cpus_allowed_list:[[:space:]]*//p' | tr '\n' ' ')
expect_eq "setaffinity on another process of the tree: done, and it is on physical 1" "$out" "ok 1 "

# a thread id of the tree reused by a process outside it: root can give a
# new process the id it wants, by clone3's set_tid (kernel 5.5 on), which
# no other process's fork can take first; by ns_last_pid before it
if [ -w /proc/sys/kernel/ns_last_pid ]; then
	run_bg "$T/reuse" with_san "$CPUSET_RUN" --set "$S2" --supervise sh -c \
		"sleep 30 & c=\$!; kill \$c; wait \$c; echo \$c; read l; '$P' setpid \$c 1"
	wait_until grep -qx '[0-9][0-9]*' "$T/reuse"
	c=$(grep -x '[0-9][0-9]*' "$T/reuse" | head -1)
	o=
	how=$(outside "$P" aspid "$c")
	if [ "$how" = ok ]; then
		o=$c
	elif [ "$how" = "Function not implemented" ] || [ "$how" = "Argument list too long" ]; then
		for _i in 1 2 3 4 5 6 7 8 9 10; do
			echo $((c - 1)) >/proc/sys/kernel/ns_last_pid
			sleep 30 &
			o=$!
			[ "$o" = "$c" ] && break
			kill "$o"
			o=
		done
		how="clone3 without set_tid ($how), and ns_last_pid lost the race 10 times"
	fi
	if [ -n "$o" ]; then
		before=$(real_cpus "$o")
		release
		expect_eq "a tree's ended thread id now another's outside: EPERM" "$(tail -1 "$T/reuse")" \
			"Operation not permitted"
		expect_eq "and that process keeps its mask" "$(real_cpus "$o")" "$before"
		kill "$o"
	else
		release
		fail "a thread id reused outside the tree: pid $c not made again ($how)"
	fi
else
	skip "a thread id reused outside the tree" "needs root (ns_last_pid)"
fi

# the same between the supervisor's checks and its call: it pauses there
# (CPUSETSHIM_TEST_SV_PAUSE), the target thread ends, its id goes to a
# process outside the tree, on CPU 0 only; the supervisor goes on
mkdir "$T/pause"
FIFO=$T/fifo.setthread
mkfifo "$FIFO"
with_san env CPUSETSHIM_TEST_SV_PAUSE="$T/pause" "$CPUSET_RUN" --set "$S2" "$P" setthread 1 \
	<"$FIFO" >"$T/st" 2>&1 &
BG=$!
exec 9>"$FIFO"
wait_until [ -s "$T/pause/paused" ]
tid=$(head -1 "$T/st")
if [ -s "$T/pause/paused" ] && [ "$(cat "$T/pause/paused")" = "$tid" ]; then
	echo >&9 # the thread ends
	# its id is free once the kernel has released the thread, shortly
	# after its /proc directory went
	for _i in $(seq 1 200); do
		how=$(outside taskset -c 0 "$P" aspid "$tid")
		[ "$how" = "File exists" ] || break
		sleep 0.05
	done
	touch "$T/pause/go"
	exec 9>&-
	wait $BG
	if [ "$how" = ok ]; then
		expect_eq "a thread id reused between the checks and the call: ESRCH" \
			"$(sed -n 2p "$T/st")" "No such process"
		expect_eq "and the process that has it now keeps its mask, CPU 0" "$(real_cpus "$tid")" 0
		kill "$tid"
	elif [ "$how" = "Function not implemented" ] || [ "$how" = "Argument list too long" ]; then
		skip "a thread id reused between the checks and the call" "clone3 without set_tid: $how"
	else
		fail "a thread id reused between the checks and the call: id $tid not made again" "$how"
	fi
else
	touch "$T/pause/go"
	exec 9>&-
	wait $BG
	fail "the supervisor paused before its call" "$(cat "$T/st" "$T/pause/paused" 2>&1)"
fi

# ---- the tree's guardians killed: the tree ends ----
# the supervisor (cpuset-run), its keeper, both, or the whole process group
# of a cpuset-run started by setsid: no process of the tree is left, a
# daemon (its own session, its parent gone) included
# started PID: the process's start time (/proc/PID/stat, field 22), or
# nothing if there is no such process
started() { sed -n 's/^.*) \(.*\)$/\1/p' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }
for victim in supervisor keeper both group; do
	# not through with_san: $! must be cpuset-run's own pid (supervised,
	# the tree has no preload to give a sanitizer runtime)
	# (the last round's files gone: a wait on them waits for this one's)
	rm -f "$T/daemon" "$T/tree"
	tree="sh -c 'setsid sleep 120 </dev/null >/dev/null 2>&1 & echo \$!' >'$T/daemon'; sleep 120 & echo \$\$; wait"
	if [ $victim = group ]; then
		setsid "$CPUSET_RUN" --set "$S1" --supervise sh -c "$tree" >"$T/tree" 2>&1 &
	else
		"$CPUSET_RUN" --set "$S1" --supervise sh -c "$tree" >"$T/tree" 2>&1 &
	fi
	BG=$!
	wait_line "$T/tree"
	shpid=$(head -1 "$T/tree")
	daemon=$(cat "$T/daemon")
	kids=$(cat /proc/"$shpid"/task/*/children 2>/dev/null)
	keeper=$(cat /proc/$BG/task/*/children 2>/dev/null | awk '{ print $1 }')
	warden=$(cat /proc/"$keeper"/task/*/children 2>/dev/null | awk '{ print $1 }')
	[ -n "$daemon" ] && [ -n "$keeper" ] && [ -n "$warden" ] && kill -0 "$daemon" ||
		fail "the tree started (a daemon $daemon, keeper $keeper, warden $warden)"
	case $victim in
	both) what="the supervisor and the keeper" ;;
	group) what="the process group" ;;
	*) what="the $victim" ;;
	esac
	case $victim in
	supervisor) kill -9 $BG ;;
	keeper) kill -9 "$keeper" ;;
	both) kill -9 $BG "$keeper" ;;
	group)
		expect_eq "setsid cpuset-run: its own process group" "$(ps -o pgid= -p $BG | tr -d ' ')" "$BG"
		env kill -9 -- -$BG # procps kill: the process group
		;;
	esac
	# each process by its pid and start time: a pid the busy machine has
	# given to a new process since is not the one looked at
	procs=
	for p in $shpid $kids $daemon $keeper $warden; do procs="$procs $p:$(started "$p")"; done
	# (a killed process is gone once reaped: its zombie, if any, waits
	# for a parent, and is gone too)
	none_alive() {
		alive=
		for p in $procs; do
			[ -n "${p#*:}" ] && [ "$(started "${p%%:*}")" = "${p#*:}" ] || continue
			[ "$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/${p%%:*}/status" 2>/dev/null)" = Z ] && continue
			alive="$alive ${p%%:*}"
		done
		[ -z "$alive" ]
	}
	if wait_until none_alive; then
		pass "$what killed: the program, its children and a daemon end"
	else
		fail "$what killed: the program, its children and a daemon end" \
			"alive after $CPS_WAIT s:$alive (program $shpid, its children $kids, daemon $daemon, keeper $keeper, warden $warden)" \
			"$(ps -o pid,ppid,pgid,stat,wchan:20,args -p "$(echo $alive | tr ' ' ,)" 2>&1)"
	fi
	[ -n "$alive" ] && kill -9 $alive 2>/dev/null
	wait $BG 2>/dev/null
done

# ---- a signal storm during supervised calls ----
with_san "$CPUSET_RUN" --set "$S2" "$P" loop 20000 >"$T/storm" 2>&1 &
BG=$!
wait_line "$T/storm"
pid=$(head -1 "$T/storm")
sent=0
while kill -0 "$pid" 2>/dev/null && [ $sent -lt 20000 ]; do
	kill -USR1 "$pid" 2>/dev/null
	sent=$((sent + 1))
done
wait $BG
res=$(sed -n 2p "$T/storm")
note "signal storm: $sent signals sent, prog says (wrong, caught): $res"
expect_match "20,000 calls under a signal storm: no wrong answer" "$res" "^0 [0-9]+ 0$"
expect_match "and signals arrived during the calls" "$(echo "$res" | awk '{ print $2 }')" '^([2-9]|[1-9][0-9]+)$'
# the same with a handler without SA_RESTART: a signal before the
# supervisor takes a call ends it with EINTR (doc/limits.md),
# counted here, not checked
with_san "$CPUSET_RUN" --set "$S2" "$P" loopnr 5000 >"$T/storm" 2>&1 &
BG=$!
wait_line "$T/storm"
pid=$(head -1 "$T/storm")
sent=0
while kill -0 "$pid" 2>/dev/null && [ $sent -lt 20000 ]; do
	kill -USR1 "$pid" 2>/dev/null
	sent=$((sent + 1))
done
wait $BG
note "without SA_RESTART (a limit): $sent signals sent, 5,000 calls: wrong, caught, EINTR: $(sed -n 2p "$T/storm")"

# ---- a set-user-id child under no_new_privs ----
if [ "$(id -u)" = 0 ] && cp "$(command -v id)" "$T/id" && chown 65534 "$T/id" && chmod 4755 "$T/id" &&
	[ "$(outside "$T/id" -u)" = 65534 ]; then
	out=$(with_san "$CPUSET_RUN" --set "$S1" --supervise "$T/id" -u)
	expect_eq "a set-user-id child runs with its caller's uid (no_new_privs)" "$out" "$(id -u)"
else
	skip "a set-user-id child" "needs root and a file system that honours set-user-id"
fi

# ---- the unchanged path for a dynamic program ----
out=$(with_san "$CPUSET_RUN" --set "$S1" sh -c 'echo "$LD_PRELOAD"; grep -c ^processor /proc/cpuinfo; nproc; grep "^Seccomp:" /proc/self/status')
expect_match "a dynamic program: the shim preloaded, its views, no filter" "$(echo "$out" | tr '\n' ' ')" \
	"libcpusetshim\.so.* 1 1 Seccomp:[[:space:]]+0 $"
finish
