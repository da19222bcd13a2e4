#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# cpuset-inspect --top: a spinning member's one-CPU set reads busy, a set
# on a CPU nobody of ours spins on reads what the kernel says of that CPU
# over the same time, overlapping non-strict sets are marked shared (a
# parent and its child are not), the members' own share of their set's
# CPUs beside the CPUs' load, the threads of a set's members read from the
# kernel, the member column, text without escape codes when not on a
# terminal, lines that fit the terminal's width (and COLUMNS), redrawn at
# once when it is resized, and on a terminal q, Ctrl-C and Ctrl-Z with the
# terminal restored. Every wait is for a condition (wait_until, and the
# terminal's own state in the pty scripts), bounded generously: the test
# holds on a machine loaded by other work.
. "$(dirname "$0")/common.sh"
need timeout coreutils
need taskset util-linux
need "$PYTHON3" python3

# Two CPUs this process may use: A for the quiet set, Z for the spinner.
cpus=$(outside taskset -cp $$ | sed 's/.*: //')
A=$(echo "$cpus" | tr ',' '\n' | sed 's/-.*//' | head -n 1)
Z=$(echo "$cpus" | tr ',' '\n' | sed 's/.*-//' | tail -n 1)
[ "$A" != "$Z" ] || skip_all "needs two CPUs this process may run on (it has $cpus)"

expect_status "cpuset init" 0 "$CPUSET" init
SPIN=$("$CPUSET" create --cpus "$Z" --name top-spin) || die "create top-spin"
TWIN=$("$CPUSET" create --cpus "$Z" --name top-twin) || die "create top-twin"
QUIET=$("$CPUSET" create --cpus "$A" --name top-quiet) || die "create top-quiet"
KID=$("$CPUSET" create --parent top-quiet --cpus "$A" --name top-kid) || die "create top-kid"
# a name longer than the columns of an 80-column view leave it (47 bytes)
LONGNAME=top-a-name-longer-than-a-narrow-view-has-room-f
LONG=$("$CPUSET" create --parent top-kid --cpus "$A" --name "$LONGNAME") || die "create $LONGNAME"
note "CPUs $A (quiet) and $Z (spin); sets spin $SPIN, twin $TWIN, quiet $QUIET, kid $KID, long $LONG"

env $(san_env) "$CPUSET_RUN" --set top-spin sh -c 'while :; do :; done' &
spinner=$!
at_exit "kill $spinner 2>/dev/null"
in_spin() { [ "$("$CPUSET" which "$spinner" 2>/dev/null)" = "$SPIN top-spin" ]; }
wait_until in_spin
expect_eq "the spinner runs in its set" "$(kill -0 "$spinner" 2>&1 && "$CPUSET" which "$spinner")" \
	"$SPIN top-spin"
# a program of three threads (none of which sets a mask) in top-kid
env $(san_env) "$CPUSET_RUN" --set top-kid "$PYTHON3" -c '
import threading, time
for i in range(2):
    threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
time.sleep(600)' &
three=$!
at_exit "kill $three 2>/dev/null"
three_up() { [ "$(sed -n 's/^Threads:[[:space:]]*//p' "/proc/$three/status" 2>/dev/null)" = 3 ]; }
wait_until three_up || fail "the three-thread program started" "$(cat "/proc/$three/status" 2>&1)"

note "---- bad usage ----"
expect_status "-d 0 is refused" 2 "$CPUSET_INSPECT" --top -d 0 -n 1
expect_status "-d x is refused" 2 "$CPUSET_INSPECT" --top -d x -n 1
expect_status "-n 0 is refused" 2 "$CPUSET_INSPECT" --top -n 0
expect_status "-n without --top is refused" 2 "$CPUSET_INSPECT" -n 2
expect_status "--members without --top is refused" 2 "$CPUSET_INSPECT" --members
expect_status "--top with --check is refused" 2 "$CPUSET_INSPECT" --top --check -n 1

note "---- JSON lines over several refreshes ----"
head -n 1 /proc/stat >/dev/null
cat /proc/stat >"$T/stat0"
expect_status "--top --json -d 0.5 -n 6" 0 timeout 600 "$CPUSET_INSPECT" --top --json -d 0.5 -n 6
cat /proc/stat >"$T/stat1"
cp "$T/out" "$T/top.json"
show "$T/top.json"
res=$("$PYTHON3" - "$T/top.json" "$T/stat0" "$T/stat1" "$A" "$Z" "$SPIN" "$TWIN" "$QUIET" "$KID" <<'EOF'
import json, sys
path, s0, s1, A, Z, spin, twin, quiet, kid = sys.argv[1:]
A, Z, spin, twin, quiet, kid = int(A), int(Z), int(spin), int(twin), int(quiet), int(kid)
lines = [json.loads(l) for l in open(path)]
def cpu_busy(f, cpu):
    for l in open(f):
        if l.startswith("cpu%d " % cpu):
            v = [int(x) for x in l.split()[1:9]]
            return v[0] + v[1] + v[2] + v[5] + v[6], sum(v)
b0, t0 = cpu_busy(s0, A)
b1, t1 = cpu_busy(s1, A)
host = 100.0 * (b1 - b0) / (t1 - t0) if t1 > t0 else 0.0
def sets(l):
    return {s["id"]: s for s in l["sets"]}
busy = lambda s: s["user"] + s["system"]
spin_b = [busy(sets(l)[spin]) for l in lines]
quiet_b = [busy(sets(l)[quiet]) for l in lines]
def cpulist(t):
    out = []
    for part in t.split(","):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out
# each set's user, system and idle are its CPUs', weighted by their ticks,
# in the same refresh (a one-CPU set's are its CPU's)
def attributed(l):
    cpus = {c["cpu"]: c for c in l["cpus"]}
    for st in l["sets"]:
        mine = [cpus[c] for c in cpulist(st["cpus"]) if c in cpus]
        ticks = sum(c["ticks"] for c in mine)
        if ticks != st["ticks"]:
            return False
        for k in ("user", "system", "idle"):
            want = sum(c[k] * c["ticks"] for c in mine) / ticks if ticks else 0.0
            if abs(want - st[k]) > 0.2:
                return False
    return True
same = all(attributed(l) for l in lines)
last = sets(lines[-1])
print("lines", len(lines))
print("spin_mean %.1f" % (sum(spin_b) / len(spin_b)))
print("quiet_mean %.1f" % (sum(quiet_b) / len(quiet_b)))
print("host_quiet %.1f" % host)
print("quiet_is_its_cpu", same)
print("spin_members", last[spin]["members"], "ncpus", last[spin]["ncpus"], "cpus", last[spin]["cpus"])
print("spin_shared", last[spin]["shared"], last[spin]["shares_with"])
print("twin_shared", last[twin]["shared"], last[twin]["shares_with"])
print("quiet_shared", last[quiet]["shared"], last[quiet]["shares_with"])
print("kid_shared", last[kid]["shared"])
print("root_shared", last[1]["shared"])
# at least -d (a loaded machine makes them longer, never shorter)
print("intervals_ok", all(0.45 <= l["interval"] < 600 for l in lines))
EOF
) || fail "the JSON lines parse" "$res"
note "$res"
get() { printf '%s\n' "$res" | sed -n "s/^$1 //p"; }
expect_eq "6 JSON lines for -n 6" "$(get lines)" 6
expect_eq "every line's interval is at least -d" "$(get intervals_ok)" True
spin_mean=$(get spin_mean)
[ "${spin_mean%.*}" -ge 60 ] 2>/dev/null &&
	pass "a spinning member's one-CPU set is busy (mean $spin_mean% >= 60% over 6 refreshes)" ||
	fail "a spinning member's one-CPU set is busy (mean $spin_mean%, want >= 60%)"
quiet_mean=$(get quiet_mean)
host=$(get host_quiet)
d=$("$PYTHON3" -c "print(int(abs($quiet_mean - $host)))")
[ "$d" -le 25 ] &&
	pass "the quiet set reads its CPU's load ($quiet_mean% against /proc/stat's $host% over the same time)" ||
	fail "the quiet set reads its CPU's load ($quiet_mean% against /proc/stat's $host% over the same time)"
expect_eq "each set's user, system, idle and ticks are its CPUs' in each refresh" \
	"$(get quiet_is_its_cpu)" True
expect_eq "the spinning set: 1 member, CPU $Z" "$(get spin_members)" "1 ncpus 1 cpus $Z"
expect_eq "overlapping non-strict sets are marked shared (spin)" "$(get spin_shared)" "True [$TWIN]"
expect_eq "overlapping non-strict sets are marked shared (twin)" "$(get twin_shared)" "True [$SPIN]"
expect_eq "a set and its child are not shared (parent)" "$(get quiet_shared)" "False []"
expect_eq "a set and its child are not shared (child)" "$(get kid_shared)" False
expect_eq "the root, every set's ancestor, is not shared" "$(get root_shared)" False

note "---- the member column ----"
expect_status "--top --json --members -n 2" 0 timeout 600 "$CPUSET_INSPECT" --top --json --members -d 0.5 -n 2
m=$(tail -n 1 "$T/out" | "$PYTHON3" -c '
import json, sys
l = json.load(sys.stdin)
for m in l["members"]:
    if m["pid"] == int(sys.argv[1]):
        print(m["set"], m["alive"], m["threads"], m["cpu"], m["command"], m.get("busy", -1) >= 0)
' "$spinner")
expect_eq "--members: the spinner's set, threads, CPU, command, its CPU time read" "$m" "$SPIN True 1 $Z sh True"
expect_status "without --members no member is read" 0 timeout 600 "$CPUSET_INSPECT" --top --json -d 0.2 -n 1
expect_nomatch "without --members: no members in the line" "$(cat "$T/out")" '"members":\['

note "---- the CPUs' load and the members' share, the threads ----"
# refreshes until one in which the spinner had CPU time (on a loaded
# machine an interval can pass without it), then that line's figures
r=$("$PYTHON3" - "$CPUSET_INSPECT" "$spinner" "$SPIN" "$TWIN" "$KID" "${CPS_WAIT:-120}" <<'EOF'
import json, subprocess, sys, time
prog, spinner, spin, twin, kid, bound = sys.argv[1:]
spinner, spin, twin, kid = int(spinner), int(spin), int(twin), int(kid)
p = subprocess.Popen([prog, "--top", "--json", "--members", "-d", "0.5"], stdout=subprocess.PIPE)
end = time.time() + float(bound)
found = None
for line in p.stdout:
    l = json.loads(line)
    me = [m for m in l["members"] if m["pid"] == spinner]
    if me and me[0].get("busy", 0) > 0:
        found = (l, me[0])
        break
    if time.time() > end:
        break
p.kill()
p.wait()
if not found:
    print("no refresh in which the spinner ran")
    sys.exit(0)
l, me = found
sets = {s["id"]: s for s in l["sets"]}
s, t, k = sets[spin], sets[twin], sets[kid]
# one member on one CPU: the set's members' share is that member's figure
print("spin_share_is_its_member", abs(s["members_busy"] - me["busy"]) <= 0.15,
      s["members_busy"], me["busy"])
print("spin_share_within_load", s["members_busy"] <= s["busy"] + 0.15, s["members_busy"], s["busy"])
print("twin_load_is_spins", t["busy"] == s["busy"], "share", t["members_busy"])
print("busy_is_user_system", all(abs(x["busy"] - x["user"] - x["system"]) <= 0.15 for x in l["sets"]))
print("kid_threads", k["threads"])
EOF
)
note "$r"
get() { printf '%s\n' "$r" | sed -n "s/^$1 //p"; }
expect_match "the spinner's set: its members' share is its member's CPU time" \
	"$(get spin_share_is_its_member)" '^True '
expect_match "the spinner's set: the members' share is within the CPUs' load" \
	"$(get spin_share_within_load)" '^True '
expect_eq "a set on the same CPU without members: the CPU's load, a share of 0" \
	"$(get twin_load_is_spins)" "True share 0.0"
expect_eq "a set's busy figure is its CPUs' user and system" "$(get busy_is_user_system)" True
expect_eq "--json without --members: the threads of a three-thread member" "$(get kid_threads)" 3
expect_status "--top -n 1 (text, no --members)" 0 timeout 600 "$CPUSET_INSPECT" --top -d 0.3 -n 1
show "$T/out"
expect_match "the columns name the CPUs' load and the members' share" "$(cat "$T/out")" \
	'^ID +NAME +CPUS +N +MEMBERS +THREADS +CPUS-BUSY% +MEMBERS-BUSY% +SHARED$'
expect_match "without --members: the three threads in THREADS" "$(cat "$T/out")" \
	"^$KID +top-kid +$A +1 +1 +3 +[0-9.]+ +[0-9.]+ "
expect_match "the set without members: its share 0.0" "$(cat "$T/out")" \
	"^$TWIN +top-twin +$Z +1 +0 +0 +[0-9.]+ +0\\.0 +shared:$SPIN\$"

note "---- the width: COLUMNS, or whole lines, when not on a terminal ----"
expect_status "--top -n 1 into a pipe, no COLUMNS" 0 timeout 600 env -u COLUMNS "$CPUSET_INSPECT" --top -d 0.3 -n 1
expect_match "no COLUMNS: a long name whole" "$(cat "$T/out")" "^$LONG +$LONGNAME +$A "
expect_status "--top -n 1 into a pipe, COLUMNS=50" 0 timeout 600 env COLUMNS=50 "$CPUSET_INSPECT" --top -d 0.3 -n 1
show "$T/out"
expect_eq "COLUMNS=50: no line is longer" "$(awk 'length > 50' "$T/out" | wc -l)" 0
expect_match "COLUMNS=50: the long name cut, marked +" "$(cat "$T/out")" "^$LONG +top-a-n\\+ +$A "

note "---- on a terminal: its width, and a resize redrawn at once ----"
r=$("$PYTHON3" - "$CPUSET_INSPECT" "$LONGNAME" "${CPS_WAIT:-120}" <<'EOF'
import fcntl, os, pty, re, select, struct, sys, termios, time
prog, longname, bound = sys.argv[1], sys.argv[2].encode(), float(sys.argv[3])
def size(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
pid, fd = pty.fork()
if pid == 0:
    size(0, 40, 160)
    # -d of an hour: every screen after the first is a resize's
    os.environ.pop("COLUMNS", None)
    os.execv(prog, [prog, "--top", "-d", "3600"])
out = b""
def frames():
    return out.split(b"\x1b[H\x1b[2J")[1:]
def wait_frames(n):
    global out
    end = time.time() + bound
    # a frame is whole when the next one starts, or when its last line came
    # a screen is whole at its last line, the long name's set (the last id)
    while time.time() < end and not (len(frames()) >= n and
                                     re.search(rb"top-a-n[^\r]*\r\n", frames()[n - 1])):
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                out += os.read(fd, 65536)
            except OSError:
                return
def widths(fr):
    lines = re.sub(rb"\x1b\[[0-9;?]*[a-zA-Z]", b"", fr).split(b"\r\n")
    return max(len(l) for l in lines), lines
wait_frames(1)
w1, l1 = widths(frames()[0]) if frames() else (0, [])
whole = any(longname in l for l in l1)
size(fd, 40, 60)
wait_frames(2)
w2, l2 = widths(frames()[1]) if len(frames()) > 1 else (999, [])
cut = any(re.match(rb"^[0-9]+ +top-a-n\+ ", l) for l in l2)
os.write(fd, b"q")
st = None
end = time.time() + bound
while time.time() < end:
    p, s = os.waitpid(pid, os.WNOHANG)
    if p:
        st = os.waitstatus_to_exitcode(s)
        break
    select.select([fd], [], [], 0.1)
    try:
        os.read(fd, 65536)
    except OSError:
        pass
if st is None:
    os.kill(pid, 9)
print("wide", len(frames()) >= 1, w1 <= 160, whole)
print("narrow", len(frames()) >= 2, w2 <= 60, cut, w2)
print("status", st)
EOF
)
note "$r"
expect_match "160 columns: the screen drawn at once, no line longer, the long name whole" "$r" \
	"^wide True True True$"
expect_match "resized to 60: drawn again at once, no line longer (none wrapped), the name cut" \
	"$r" "^narrow True True True "
expect_match "q quits" "$r" "^status 0$"

note "---- text, not on a terminal ----"
expect_status "--top -n 2 into a pipe" 0 timeout 600 "$CPUSET_INSPECT" --top -d 0.2 -n 2
expect_eq "no escape code in the text" "$(tr -dc '\033' <"$T/out" | wc -c)" 0
expect_eq "two refreshes, each with its heading" "$(grep -c '^cpuset-inspect --top' "$T/out")" 2
expect_match "the spinning set's line, marked shared" "$(cat "$T/out")" \
	"^$SPIN +top-spin +$Z +1 +1 .*shared:$TWIN\$"

note "---- on a terminal: q and Ctrl-C ----"
for key in q ctrl-c; do
	r=$("$PYTHON3" - "$CPUSET_INSPECT" "$key" "${CPS_WAIT:-120}" <<'EOF'
import os, pty, select, sys, termios, time
prog, key, bound = sys.argv[1], sys.argv[2], float(sys.argv[3])
# the terminal's modes before the program runs, read by the child (after
# its exec the program may change them before this process is scheduled)
rp, wp = os.pipe()
pid, fd = pty.fork()
if pid == 0:
    os.close(rp)
    os.write(wp, repr(termios.tcgetattr(0)).encode())
    os.close(wp)
    os.execv(prog, [prog, "--top", "-d", "0.2"])
os.close(wp)
before = eval(os.read(rp, 65536))
out = b""
def read_for(sec, until=None):
    global out
    end = time.time() + sec
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                d = os.read(fd, 65536)
            except OSError:
                return
            if not d:
                return
            out += d
            if until and until in out:
                return
read_for(bound, b"SHARED")
shown = b"SHARED" in out
raw = not (termios.tcgetattr(fd)[3] & (termios.ICANON | termios.ECHO))
os.write(fd, b"q" if key == "q" else b"\x03")
status = None
end = time.time() + bound
while time.time() < end:
    read_for(0.2)
    p, st = os.waitpid(pid, os.WNOHANG)
    if p:
        status = os.waitstatus_to_exitcode(st)
        break
if status is None:
    os.kill(pid, 9)
# what it wrote before it ended, to the end (the pty gives EIO then)
read_for(bound, b"\x1b[?1049l")
after = termios.tcgetattr(fd)
print("shown", shown, "raw_while_running", raw)
print("status", status)
print("restored", after[3] == before[3], out.rstrip().endswith(b"\x1b[?1049l"))
EOF
)
	note "$r"
	expect_match "$key: the view is drawn, keys read one by one" "$r" "^shown True raw_while_running True"
	expect_match "$key quits, status 0" "$r" "^status 0$"
	expect_match "$key: the terminal's modes and main screen are back" "$r" "^restored True True$"
done

note "---- on a terminal: Ctrl-Z gives the terminal back, fg takes it again ----"
r=$("$PYTHON3" - "$CPUSET_INSPECT" "${CPS_WAIT:-120}" <<'EOF'
import os, pty, select, signal, sys, termios, time
prog, bound = sys.argv[1], float(sys.argv[2])
rp, wp = os.pipe()
pid, fd = pty.fork()
if pid == 0:
    # a job-control shell in miniature: the program in a process group of
    # its own, in the foreground, its parent in the same session (so that
    # the group is not orphaned and a stop signal stops it)
    os.close(rp)
    # the modes before the program runs (it may change them at once)
    lflag = termios.tcgetattr(0)[3]
    c = os.fork()
    if c == 0:
        os.setpgid(0, 0)
        while os.tcgetpgrp(0) != os.getpgrp():
            time.sleep(0.01)
        os.execv(prog, [prog, "--top", "-d", "0.2"])
    os.setpgid(c, c)
    os.tcsetpgrp(0, c)
    os.write(wp, b"%d %d\n" % (c, lflag))
    while True:
        p, st = os.waitpid(c, os.WUNTRACED)
        if os.WIFEXITED(st) or os.WIFSIGNALED(st):
            os._exit(os.waitstatus_to_exitcode(st) & 0xff)
os.close(wp)
child, before = [int(x) for x in os.read(rp, 64).split()]
out = b""
def read_for(sec):
    global out
    end = time.time() + sec
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                d = os.read(fd, 65536)
            except OSError:
                return
            if not d:
                return
            out += d
def state():
    try:
        return open("/proc/%d/stat" % child).read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"
def drawn_after(n, sec):
    end = time.time() + sec
    while b"SHARED" not in out[n:] and time.time() < end:
        read_for(0.2)
drawn_after(0, bound)
os.write(fd, b"\x1a")
end = time.time() + bound
while state() != "T" and time.time() < end:
    read_for(0.1)
stopped = state() == "T"
end = time.time() + bound
while not out.rstrip().endswith(b"\x1b[?1049l") and time.time() < end:
    read_for(0.1)
modes_back = termios.tcgetattr(fd)[3]
given_back = modes_back == before and out.rstrip().endswith(b"\x1b[?1049l")
n = len(out)
os.kill(child, signal.SIGCONT)
drawn_after(n, bound)
taken_again = b"\x1b[?1049h" in out[n:] and not (termios.tcgetattr(fd)[3] & termios.ECHO)
os.write(fd, b"q")
status = None
end = time.time() + bound
while time.time() < end:
    read_for(0.1)
    p, st = os.waitpid(pid, os.WNOHANG)
    if p:
        status = os.waitstatus_to_exitcode(st)
        break
if status is None:
    os.kill(child, 9)
print("stopped", stopped, "given_back", given_back, "taken_again", taken_again, "status", status)
# what was seen, for the log
print("modes before %o, when stopped %o, the output's end %r" % (before, modes_back, out[-40:]),
      file=sys.stderr)
EOF
)
note "$r"
expect_eq "Ctrl-Z stops it with the terminal given back; continued, it draws again; q quits" "$r" \
	"stopped True given_back True taken_again True status 0"

note "---- the benchmark's program (make bench, section top), short ----"
if [ -x "$B/tests/bench/bench_top" ]; then
	bt=$CPUSETSHIM_TABLE.bench
	at_exit "rm -f /dev/shm/$bt"
	CPUSETSHIM_TABLE=$bt "$CPUSET" init --force >/dev/null || die "cpuset init $bt"
	expect_status "bench_top 40 4 3" 0 env CPUSETSHIM_TABLE="$bt" "$B/tests/bench/bench_top" 40 4 3
	show "$T/out"
	expect_match "bench_top: every member counted and read" "$(cat "$T/out")" \
		'^members_counted 40 read 40$'
	expect_match "bench_top: both refresh costs reported" "$(cat "$T/out")" \
		'^members [0-9.]+ [0-9.]+ [0-9.]+$'
else
	skip "bench_top" "not built (make check builds it)"
fi

kill "$spinner" 2>/dev/null
wait "$spinner" 2>/dev/null
finish
