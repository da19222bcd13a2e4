# SPDX-License-Identifier: BSD-3-Clause
"""Run under the shim: reads files of virtual CPU 0 by the same spelling
before and after a resize (the redirects the shim keeps must follow the
set). reread.py DIR: reads cpu0's core_id and its directory's inode three
times, writes DIR/ready, waits for DIR/go, reads them again, and checks
whether cpu1 exists. Prints one "name value" line per answer."""
import os
import sys
import time

SYS = "/sys/devices/system/cpu"
d = sys.argv[1]


def core():
    with open(SYS + "/cpu0/topology/core_id") as f:
        return f.read().strip()


def ino():
    fd = os.open(SYS + "/cpu0", os.O_RDONLY)
    try:
        return os.fstat(fd).st_ino
    finally:
        os.close(fd)


before = [core() for _ in range(3)]
ib = [ino() for _ in range(3)]
print("before-core", " ".join(sorted(set(before))))
print("before-ino", " ".join(str(i) for i in sorted(set(ib))))
open(os.path.join(d, "ready"), "w").close()
for _ in range(600):
    if os.path.exists(os.path.join(d, "go")):
        break
    time.sleep(0.05)
print("after-core", " ".join(sorted(set(core() for _ in range(3)))))
print("after-ino", " ".join(str(i) for i in sorted(set(ino() for _ in range(3)))))
try:
    with open(SYS + "/cpu1/topology/core_id") as f:
        print("after-cpu1", f.read().strip())
except OSError as e:
    print("after-cpu1", "ENOENT" if e.errno == 2 else e.errno)
sys.stdout.flush()
