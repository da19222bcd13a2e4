#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""What a set sees of the machine, in one process (tests/guest/inside.sh:
under TCG every program started costs a second or more).

  views.py read PATHS N          in the set, under the shim: each line of
                                 the file PATHS read as "PATH: TEXT" (TEXT
                                 "ENOENT" for a file that does not exist),
                                 then the listings, counts and libnuma's
                                 nodes, for a set of N CPUs
  views.py want ROOT CPULIST PATHS   outside the shim: the same lines, as
                                 the kernel's files restricted to the set
                                 (tests/topo/compare.py) say they must be

The two outputs are compared line by line.
"""
import contextlib
import ctypes
import io
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "topo"))
import compare  # noqa: E402

SYS = "/sys/devices/system/cpu"
NODE = "/sys/devices/system/node"


def cpu_entries(d):
    try:
        names = os.listdir(d)
    except OSError:
        return "ENOENT"
    own = sorted(int(e[3:]) for e in names if e.startswith("cpu") and e[3:].isdigit())
    return " ".join("cpu%d" % c for c in own)


def node_dirs():
    return sorted((e for e in os.listdir(NODE) if e.startswith("node") and e[4:].isdigit()),
                  key=lambda e: int(e[4:])) if os.path.isdir(NODE) else []


def fields(path, key):
    vals = set()
    with open(path) as f:
        for line in f:
            if line.startswith(key) and ":" in line:
                vals.add(int(line.split(":", 1)[1]))
    return " ".join(str(v) for v in sorted(vals))


def read_side(paths, n):
    out = []
    for p in paths:
        try:
            with open(p) as f:
                out.append("%s: %s" % (p, f.read().rstrip("\n")))
        except FileNotFoundError:
            out.append("%s: ENOENT" % p)
        except OSError as e:
            out.append("%s: ERROR %s" % (p, e.strerror))
    out.append("ls %s: %s" % (SYS, cpu_entries(SYS)))
    for k in node_dirs():
        out.append("ls %s/%s: %s" % (NODE, k, cpu_entries(os.path.join(NODE, k))))
    out.append("cpu%d beyond the set exists: %s" % (n, os.path.exists("%s/cpu%d" % (SYS, n))))
    with open("/proc/cpuinfo") as f:
        out.append("cpuinfo processors: %d" % sum(1 for l in f if l.startswith("processor")))
    with open("/proc/stat") as f:
        out.append("stat cpuN lines: %d" % sum(1 for l in f if l.startswith("cpu") and l[3].isdigit()))
    with open("/proc/self/status") as f:
        allowed = [l.split(":", 1)[1].strip() for l in f if l.startswith("Cpus_allowed_list")]
    out.append("status Cpus_allowed_list: %s" % allowed[0])
    out.append("os.cpu_count: %s" % os.cpu_count())
    out.append("sched_getaffinity: %s" % compare.fmt_list(sorted(os.sched_getaffinity(0))))
    out.append("cpuinfo siblings: %s" % fields("/proc/cpuinfo", "siblings"))
    out.append("cpuinfo cpu cores: %s" % fields("/proc/cpuinfo", "cpu cores"))
    import psutil
    out.append("psutil cores, cpus: %s %s" % (psutil.cpu_count(logical=False), psutil.cpu_count()))
    numa = ctypes.CDLL("libnuma.so.1")
    numa.numa_available()
    out.append("numa_node_of_cpu 0..%d: %s" % (n, " ".join(str(numa.numa_node_of_cpu(c)) for c in range(n + 1))))
    return out


def captured(fn, *args):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn(*args)
    return buf.getvalue().splitlines()


def want_side(root, cpus, paths):
    n = len(cpus)
    # online ones: the counts of a program are of the set's online CPUs
    online = [c for c in cpus if c in compare.cpulist(open(SYS + "/online").read().strip())]
    rank = {p: v for v, p in enumerate(cpus)}
    out = captured(compare.cmd_view, root, cpus, paths)
    out.append("ls %s: %s" % (SYS, " ".join("cpu%d" % v for v in range(n))))
    for k in node_dirs():
        out += ["ls %s/%s: %s" % (NODE, k, l) for l in captured(compare.cmd_entries, root, cpus, [NODE + "/" + k])]
    out.append("cpu%d beyond the set exists: False" % n)
    out.append("cpuinfo processors: %d" % len(online))
    out.append("stat cpuN lines: %d" % len(online))
    vonline = compare.fmt_list([rank[c] for c in online])
    out.append("status Cpus_allowed_list: %s" % vonline)
    out.append("os.cpu_count: %d" % n)
    out.append("sched_getaffinity: %s" % vonline)
    counts = dict(l.split(" ", 1) for l in captured(compare.cmd_counts, root, online))
    out.append("cpuinfo siblings: %s" % counts["siblings"])
    out.append("cpuinfo cpu cores: %s" % counts["cpu-cores"])
    out.append("psutil cores, cpus: %s %d" % (counts["cores"], len(online)))
    out.append("numa_node_of_cpu 0..%d: %s -1" % (n, captured(compare.cmd_node_of, root, cpus)[0]))
    return out


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "read":
        paths = open(sys.argv[2]).read().split()
        print("\n".join(read_side(paths, int(sys.argv[3]))))
    elif len(sys.argv) == 5 and sys.argv[1] == "want":
        paths = open(sys.argv[4]).read().split()
        print("\n".join(want_side(sys.argv[2], compare.cpulist(sys.argv[3]), paths)))
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
