#!/bin/sh
# Thread records (issue 10, items 12 and 14): a thread id reused by a new
# thread (of the same process or another) does not inherit the pinning
# of the thread that had it, so a resize gives the newcomer the whole set;
# a full thread registry is said, by cpuset-inspect --check and under
# CPUSETSHIM_DEBUG.
. "$(dirname "$0")/common.sh"
command -v unshare >/dev/null || { echo "SKIP: unshare (util-linux) is needed"; exit 77; }
PY=/usr/bin/python3
[ -x $PY ] || { echo "SKIP: /usr/bin/python3 is needed"; exit 77; }

# ---- reused thread ids ----
# In a pid namespace of its own, where the next id is ours to choose
# (ns_last_pid), a thread pins itself to virtual CPU 0 and ends, then a
# new thread gets its id; a process pins itself and is killed, then a new
# process gets its id. Neither newcomer asks for anything.
cat >"$TMP/reuse.py" <<'PYEOF'
import os, sys, threading, time
d = sys.argv[1]
def pin():
    os.sched_setaffinity(0, {0})
    open(d + "/pinned.tid", "w").write(str(threading.get_native_id()))
t = threading.Thread(target=pin)
t.start()
t.join()
old = int(open(d + "/pinned.tid").read())
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
cat >"$TMP/pinself.py" <<'PYEOF'
import os, sys, time
os.sched_setaffinity(0, {0})
open(sys.argv[1] + "/self.pid.tmp", "w").write(str(os.getpid()))
os.rename(sys.argv[1] + "/self.pid.tmp", sys.argv[1] + "/self.pid")
time.sleep(600)
PYEOF
cat >"$TMP/ns.sh" <<'NSEOF'
set -u
cpus() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status"; }
"$CPUSET" create --cpus 0-1 --name reuse >/dev/null
# the same process: a thread's id given to a new thread
env $SANENV "$B/cpuset-run" --set reuse $PY "$TMP/reuse.py" "$TMP" &
for i in $(seq 200); do [ -s "$TMP/new.tid" ] && break; sleep 0.05; done
old=$(cat "$TMP/pinned.tid") new=$(cat "$TMP/new.tid")
echo "same-process ids $old $new"
"$CPUSET" alloc reuse 1 >/dev/null
"$CPUSET" alloc reuse 0-1 >/dev/null
echo "same-process new thread on $(cpus $new)"
touch "$TMP/go"
wait
# another process: a killed process's id given to a new process
env $SANENV "$B/cpuset-run" --set reuse $PY "$TMP/pinself.py" "$TMP" &
for i in $(seq 200); do [ -s "$TMP/self.pid" ] && break; sleep 0.05; done
gone=$(cat "$TMP/self.pid")
kill -9 $gone
wait
echo $((gone - 1)) >/proc/sys/kernel/ns_last_pid
env $SANENV "$B/cpuset-run" --set reuse sleep 600 &
newp=$!
sleep 0.3
echo "other-process ids $gone $newp"
"$CPUSET" alloc reuse 1 >/dev/null
"$CPUSET" alloc reuse 0-1 >/dev/null
echo "other-process new process on $(cpus $newp)"
kill $newp
NSEOF
CPUSET=$CPUSET B=$B TMP=$TMP PY=$PY SANENV="$(san_env)" \
	unshare --pid --fork --mount-proc sh "$TMP/ns.sh" >"$TMP/ns.out" 2>"$TMP/ns.err"
sed 's/^/    | /' "$TMP/ns.out" "$TMP/ns.err"
set -- $(sed -n 's/^same-process ids //p' "$TMP/ns.out")
[ -n "${1:-}" ] && [ "${1:-}" = "${2:-}" ] && ok ||
	bad "the new thread did not get the old id [$*]: the test proves nothing"
expect "a reused thread id (same process): the new thread has the whole set" \
	"$(sed -n 's/^same-process new thread on //p' "$TMP/ns.out")" "0-1"
set -- $(sed -n 's/^other-process ids //p' "$TMP/ns.out")
[ -n "${1:-}" ] && [ "${1:-}" = "${2:-}" ] && ok ||
	bad "the new process did not get the old id [$*]: the test proves nothing"
expect "a reused thread id (another process): the new one has the whole set" \
	"$(sed -n 's/^other-process new process on //p' "$TMP/ns.out")" "0-1"

# ---- a full thread registry is said ----
"$CPUSET" init --force --max-threads 4 >/dev/null
"$CPUSET" create --cpus 0-1 --name few >/dev/null
CPUSETSHIM_DEBUG=1 cpuset_run --set few $PY -c '
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
' 2>"$TMP/debug.err"
sed 's/^/    | /' "$TMP/debug.err"
expect "CPUSETSHIM_DEBUG says the registry is full, once" \
	"$(grep -c 'thread registry of table .* is full' "$TMP/debug.err")" 1
expect_rc "cpuset-inspect --check" 0 "$INSPECT" --check
grep -q "WARNING: the thread registry is .*could not be recorded" "$TMP/out" && ok ||
	bad "--check says nothing of the lost masks: $(cat "$TMP/out")"
"$INSPECT" --json | $PY -c 'import json,sys; u=json.load(sys.stdin)["usage"]; sys.exit(0 if u["unrecorded_threads"] > 0 else 1)' && ok ||
	bad "--json has no unrecorded_threads"
finish
