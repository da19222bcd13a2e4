# SPDX-License-Identifier: BSD-3-Clause
"""Holds views open across a resize of its set (tests/integration/paths.sh).

usage: hold_views.py DIR [CGROUP_FILE]

Opens each view once and keeps the descriptor; prints "before" lines with
what each says, touches DIR/ready, waits for DIR/go, then reads each held
descriptor again from the start (lseek to 0, as procfs readers do) and
opens each path afresh, and prints "held" and "fresh" lines. A line is
"KIND NAME VALUE"; values are reduced to what the set decides: processor
and cpuN counts, the CPU range, Cpus_allowed_list, field 39, the cgroup
list.
"""
import os
import sys
import time

d = sys.argv[1]
views = {
    "cpuinfo": "/proc/cpuinfo",
    "stat": "/proc/stat",
    "online": "/sys/devices/system/cpu/online",
    "status": "/proc/self/status",
    "pidstat": "/proc/self/stat",
    "taskstat": "/proc/thread-self/stat",
}
if len(sys.argv) > 2:
    views["cgroup"] = sys.argv[2]


def value(name, text):
    if name == "cpuinfo":
        return str(sum(1 for l in text.splitlines() if l.startswith("processor")))
    if name == "stat":
        return str(sum(1 for l in text.splitlines() if l.startswith("cpu") and l[3].isdigit()))
    if name == "status":
        for l in text.splitlines():
            if l.startswith("Cpus_allowed_list:"):
                return l.split()[1]
        return "none"
    if name in ("pidstat", "taskstat"):
        return text[text.rindex(")") + 2:].split()[36]
    return text.strip() or "empty"


def read_fd(fd):
    os.lseek(fd, 0, os.SEEK_SET)
    out = b""
    while True:
        b = os.read(fd, 65536)
        if not b:
            return out.decode()
        out += b


held = {n: os.open(p, os.O_RDONLY) for n, p in views.items()}
for n, fd in held.items():
    print("before", n, value(n, read_fd(fd)))
sys.stdout.flush()
open(os.path.join(d, "ready"), "w").close()
for _ in range(1200):
    if os.path.exists(os.path.join(d, "go")):
        break
    time.sleep(0.05)
for n, fd in held.items():
    print("held", n, value(n, read_fd(fd)))
for n, p in views.items():
    with open(p) as f:
        print("fresh", n, value(n, f.read()))
