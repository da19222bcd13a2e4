#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Thread records: a thread id reused by a new
# thread (of the same process or another) does not inherit the pinning
# of the thread that had it, so a resize gives the newcomer the whole set;
# a full thread registry is said, by cpuset-inspect --check and under
# CPUSETSHIM_DEBUG.
. "$(dirname "$0")/common.sh"
need unshare util-linux
need "$PYTHON3" python3
PY=$PYTHON3

# ---- reused thread ids ----
# In a pid namespace of its own, where the next id is ours to choose
# (ns_last_pid), a thread pins itself to virtual CPU 0 and ends, then a
# new thread gets its id; the same with a thread pinned by the main thread
# (no exit handler of its own forgets that record: the record's start
# time tells the newcomer from it); a process pins itself and is killed,
# then a new process gets its id. No newcomer asks for anything.
cat >"$T/reuse.py" <<'PYEOF'
import os, sys, threading, time
d, how = sys.argv[1], sys.argv[2]
leave = threading.Event()
def pin():
    if how == "self":
        os.sched_setaffinity(0, {0})
    # written whole before it is seen (a rename), or main may read it empty
    open(d + "/pinned.tid.tmp", "w").write(str(threading.get_native_id()))
    os.rename(d + "/pinned.tid.tmp", d + "/pinned.tid")
    leave.wait()
t = threading.Thread(target=pin)
t.start()
while not os.path.exists(d + "/pinned.tid"):
    time.sleep(0.001)
old = int(open(d + "/pinned.tid").read())
if how == "other":
    os.sched_setaffinity(old, {0})
leave.set()
t.join()
# start times count in ticks of 10 ms: the newcomer starts in a later one
time.sleep(0.05)
# a thread's id is free again once the kernel has reaped it: try a few
# times to have the new thread made with it
for attempt in range(50):
    stop = threading.Event()
    got = []
    def idle():
        got.append(threading.get_native_id())
        stop.wait()
    with open("/proc/sys/kernel/ns_last_pid", "w") as f:
        f.write(str(old - 1))
    t = threading.Thread(target=idle)
    t.start()
    while not got:
        time.sleep(0.001)
    if got[0] == old:
        break
    stop.set()
    t.join()
    time.sleep(0.02)
open(d + "/new.tid.tmp", "w").write(str(got[0]))
os.rename(d + "/new.tid.tmp", d + "/new.tid")
while not os.path.exists(d + "/go"):
    time.sleep(0.01)
stop.set()
t.join()
PYEOF
cat >"$T/pinself.py" <<'PYEOF'
import os, sys, time
os.sched_setaffinity(0, {0})
open(sys.argv[1] + "/self.pid.tmp", "w").write(str(os.getpid()))
os.rename(sys.argv[1] + "/self.pid.tmp", sys.argv[1] + "/self.pid")
time.sleep(600)
PYEOF
cat >"$T/ns.sh" <<'NSEOF'
set -u
cpus() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status"; }
# (this script has no harness: common.sh's wait_until, written out)
wait_until() {
	_i=0
	until "$@"; do
		[ $_i -lt 2400 ] || return 1
		sleep 0.05
		_i=$((_i + 1))
	done
}
"$CPUSET" create --cpus 0-1 --name reuse >/dev/null
# the same process: a thread's id given to a new thread
for how in self other; do
	rm -f "$T/pinned.tid" "$T/pinned.tid.tmp" "$T/new.tid" "$T/go"
	env $SANENV "$CPUSET_RUN" --set reuse $PY "$T/reuse.py" "$T" $how &
	wait_until [ -s "$T/new.tid" ]
	old=$(cat "$T/pinned.tid") new=$(cat "$T/new.tid")
	echo "same-process-$how ids $old $new"
	"$CPUSET" alloc reuse 1 >/dev/null
	"$CPUSET" alloc reuse 0-1 >/dev/null
	echo "same-process-$how new thread on $(cpus $new)"
	touch "$T/go"
	wait
done
# another process: a killed process's id given to a new process
env $SANENV "$CPUSET_RUN" --set reuse $PY "$T/pinself.py" "$T" &
wait_until [ -s "$T/self.pid" ]
gone=$(cat "$T/self.pid")
kill -9 $gone
wait
echo $((gone - 1)) >/proc/sys/kernel/ns_last_pid
env $SANENV "$CPUSET_RUN" --set reuse $PY -c 'import time; time.sleep(600)' &
newp=$!
# (recorded in the set: cpuset-run has put it there; a loaded machine
# takes its time, 120 s at most)
wait_until eval '"$CPUSET" which $newp >/dev/null 2>&1'
echo "other-process ids $gone $newp"
"$CPUSET" alloc reuse 1 >/dev/null
"$CPUSET" alloc reuse 0-1 >/dev/null
echo "other-process new process on $(cpus $newp)"
kill $newp
NSEOF
CPUSET=$CPUSET CPUSET_RUN=$CPUSET_RUN T=$T PY=$PY SANENV="$(san_env)" \
	unshare --pid --fork --mount-proc sh "$T/ns.sh" >"$T/ns.out" 2>"$T/ns.err"
show "$T/ns.out"
show "$T/ns.err"
for how in self other; do
	case $how in self) who="it pinned itself" ;; *) who="the main thread pinned it" ;; esac
	set -- $(sed -n "s/^same-process-$how ids //p" "$T/ns.out")
	expect_eq "$who: the new thread got the old id (else the test proves nothing)" "${2:-none}" "${1:-}"
	expect_eq "$who: a reused thread id (same process): the new thread has the whole set" \
		"$(sed -n "s/^same-process-$how new thread on //p" "$T/ns.out")" "0-1"
done
set -- $(sed -n 's/^other-process ids //p' "$T/ns.out")
expect_eq "the new process got the old id (else the test proves nothing)" "${2:-none}" "${1:-}"
expect_eq "a reused thread id (another process): the new one has the whole set" \
	"$(sed -n 's/^other-process new process on //p' "$T/ns.out")" "0-1"

# ---- a full thread registry is said ----
"$CPUSET" init --force --max-threads 4 >/dev/null
"$CPUSET" create --cpus 0-1 --name few >/dev/null
with_san env CPUSETSHIM_DEBUG=1 timeout 120 "$CPUSET_RUN" --set few $PY -c '
import os, threading
def pin():
    os.sched_setaffinity(0, {0})
    ready.wait()
ready = threading.Event()
ts = [threading.Thread(target=pin) for i in range(8)]
for t in ts: t.start()
os.sched_setaffinity(0, {1})
ready.set()
for t in ts: t.join()
' 2>"$T/debug.err"
show "$T/debug.err"
expect_eq "CPUSETSHIM_DEBUG says the registry is full, once" \
	"$(grep -c 'thread registry of table .* is full' "$T/debug.err")" 1
expect_status "cpuset-inspect --check" 0 "$CPUSET_INSPECT" --check
expect_match "--check says so" "$(cat "$T/out")" "WARNING: the thread registry is .*could not be recorded"
"$CPUSET_INSPECT" --json >"$T/json"
expect_eq "--json counts them" "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["usage"]["unrecorded_threads"] > 0)' "$T/json")" True
finish
