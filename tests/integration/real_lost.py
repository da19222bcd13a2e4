# SPDX-License-Identifier: BSD-3-Clause
"""The real files behind the views made at each open, taken away.

usage: real_lost.py WORKDIR

The shim keeps /proc/stat, /proc/self/status and /proc/self/stat open
(descriptors at 900 or above) and reads them with pread, believing the
descriptor without an fstat as long as what it reads looks like the file
(preload/view_pool.c). The program takes those descriptors away: closes
every descriptor above 2; then puts on each number a file of its own (a
regular file with other bytes, /dev/null, a pipe, a directory). After
each, prints "TAG stat N", "TAG status LIST", "TAG pidstat CPU" (the
number of cpuN lines, Cpus_allowed_list, field 39) and "TAG mine ..."
(whether the program's own files are unread: the pipe still holds its
bytes, the regular file's offset is still 0).
"""
import os
import sys

REAL = {"/proc/stat": "stat", "/proc/%d/status" % os.getpid(): "status",
        "/proc/%d/stat" % os.getpid(): "pidstat"}


def kept():
    """the shim's descriptors of the real files: {kind: fd}"""
    out = {}
    for e in os.listdir("/proc/self/fd"):
        try:
            n = int(e)
            t = os.readlink("/proc/self/fd/" + e)
        except (OSError, ValueError):
            continue
        if n >= 900 and t in REAL:
            out[REAL[t]] = n
    return out


def look(tag):
    with open("/proc/stat") as f:
        s = f.read()
    print("%s stat %d" % (tag, sum(1 for l in s.splitlines() if l[:3] == "cpu" and l[3:4].isdigit())))
    with open("/proc/self/status") as f:
        st = [l.split()[1] for l in f if l.startswith("Cpus_allowed_list:")]
    print("%s status %s" % (tag, st[0] if st else "none"))
    with open("/proc/self/stat") as f:
        p = f.read()
    print("%s pidstat %s" % (tag, p[p.rindex(")") + 2:].split()[36]))
    sys.stdout.flush()


look("first")
print("kept %d" % len(kept()))
os.closerange(3, 4096)
look("closed")

d = sys.argv[1]
reg = os.path.join(d, "mine")
with open(reg, "w") as f:
    f.write("not a proc file\n" * 8)
r, w = os.pipe()
os.write(w, b"pipe bytes")
mine = [os.open(reg, os.O_RDONLY), os.open("/dev/null", os.O_RDONLY), r,
        os.open(d, os.O_RDONLY | os.O_DIRECTORY)]
for i, name in enumerate(["file", "null", "pipe", "dir"]):
    k = kept()
    print("kept-%s %d" % (name, len(k)))
    for fd in k.values():
        os.dup2(mine[i], fd)
    look(name)
print("mine offset %d" % os.lseek(mine[0], 0, os.SEEK_CUR))
os.set_blocking(r, False)
print("mine pipe %s" % os.read(r, 64).decode())
