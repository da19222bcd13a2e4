#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Two copies of the shim in one process, under different file names:
# one translates, the other stands aside. Seen where
# a call goes from one copy to the next definition: syscall(2) of
# sched_setaffinity, and pthread_setaffinity_np. In a set of one CPU with
# CPUSETSHIM_WRAP=0, virtual CPU 0 is that CPU; translated twice, the
# physical number is taken for a virtual one beyond the set, and the call
# fails with EINVAL.
. "$(dirname "$0")/common.sh"
need "$PYTHON3" python3
PY=$PYTHON3
[ "$(nproc --all)" -ge 2 ] || skip_all "needs two CPUs"

last=$(($(nproc --all) - 1))
"$CPUSET" create --cpus $last --name one >/dev/null
cp "$SHIM" "$T/libcpusetshim-copy.so"
cat >"$T/set0.py" <<'PYEOF'
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
mask = (ctypes.c_ubyte * 128)()
mask[0] = 1  # virtual CPU 0
r = libc.syscall(203, 0, ctypes.c_size_t(128), mask)  # SYS_sched_setaffinity, x86-64
print("syscall", r, errno.errorcode.get(ctypes.get_errno(), 0) if r else "ok")
th = libc.pthread_self()
libc.pthread_self.restype = ctypes.c_ulong
r = libc.pthread_setaffinity_np(ctypes.c_ulong(libc.pthread_self()), ctypes.c_size_t(128), mask)
print("pthread", r, errno.errorcode.get(r, r) if r else "ok")
print("cpus", sorted(os.sched_getaffinity(0)))
sys.stdout.flush()
# the kernel's mask, read from outside (the shim shows this process its
# own status in virtual numbers)
d = sys.argv[1]
open(d + "/pid", "w").write(str(os.getpid()))
import time
while not os.path.exists(d + "/go"):
    time.sleep(0.01)
PYEOF
[ "$(uname -m)" = x86_64 ] || skip_all "the syscall number is x86-64's"

# the copy is in LD_PRELOAD already; cpuset-run puts its own first
env $(san_env) LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD:}$T/libcpusetshim-copy.so" CPUSETSHIM_WRAP=0 \
	CPUSETSHIM_DEBUG=1 "$CPUSET_RUN" --set one $PY "$T/set0.py" "$T" >"$T/out" 2>"$T/err" &
wait_until [ -s "$T/pid" ]
real=$(real_cpus "$(cat "$T/pid")")
touch "$T/go"
wait
rm -f "$T/go" "$T/pid"
show "$T/out"
show "$T/err"
expect_eq "syscall(sched_setaffinity) with two copies: translated once" "$(grep '^syscall' "$T/out")" "syscall 0 ok"
expect_eq "pthread_setaffinity_np with two copies: translated once" "$(grep '^pthread' "$T/out")" "pthread 0 ok"
expect_eq "the program sees virtual CPU 0" "$(grep '^cpus' "$T/out")" "cpus [0]"
expect_eq "the kernel has the set's CPU" "$real" "$last"
expect_match "CPUSETSHIM_DEBUG says which copy stands aside" "$(cat "$T/err")" "another copy of the shim .* stands aside"
# one copy alone: no such word
touch "$T/go"
with_san env CPUSETSHIM_WRAP=0 CPUSETSHIM_DEBUG=1 "$CPUSET_RUN" --set one $PY "$T/set0.py" "$T" \
	>"$T/out" 2>"$T/err"
expect_eq "one copy: syscall" "$(grep '^syscall' "$T/out")" "syscall 0 ok"
expect_eq "one copy: says nothing of another" "$(grep -c 'stands aside' "$T/err")" 0
finish
