#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""What a set sees of the machine, in one process (tests/guest/inside.sh:
under TCG every program started costs a second or more).

  views.py read PATHS N          in the set, under the shim: each line of
                                 the file PATHS read as "PATH: TEXT" (TEXT
                                 "ENOENT" for a file that does not exist),
                                 then the listings (through every kind of
                                 directory descriptor), counts, the node
                                 files and libnuma's nodes, for a set of N
                                 CPUs
  views.py want ROOT CPULIST MEMLIST PATHS
                                 outside the shim: the same lines, as the
                                 kernel's files restricted to the set's
                                 CPUs and memory nodes (MEMLIST, physical),
                                 nodes renumbered 0..k-1, say they must be
                                 (tests/topo/compare.py)
  views.py numactl FULL CPULIST MEMLIST
  views.py lscpu FULL CPULIST MEMLIST
                                 numactl --hardware's or lscpu's (summary,
                                 -p or -e) text of the whole machine
                                 (FULL) restricted to the set, as the set
                                 must show it
  views.py lscpu-got GOT FULL    the lines of the set's lscpu output GOT
                                 that "lscpu" makes
  views.py judge DIR ROOT CPULIST MEMLIST
                                 want, lscpu's and numactl's expectations
                                 and the set's outputs as compared, all in
                                 one process, as files of DIR (judge())

The two outputs of read and want are compared line by line.
"""
import contextlib
import ctypes
import fcntl
import io
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "topo"))
import compare  # noqa: E402

SYS = "/sys/devices/system/cpu"
NODE = "/sys/devices/system/node"

# every way a program lists a directory: by its path, through its
# descriptor, and through a copy of the descriptor (util-linux, Python's
# os.listdir(fd)); the copies are the shim's descriptor views too
DIR_WAYS = ("opendir", "fdopendir(fd)", "fdopendir(dup(fd))", "fdopendir(dup2)",
            "fdopendir(dup3)", "F_DUPFD", "F_DUPFD_CLOEXEC", "os.listdir(fd)")
# the node files a set's nodes renumber (nodeV's are listed per node)
NODE_FILES = ("online", "possible", "has_cpu", "has_memory", "has_normal_memory")


def libc():
    # the process's own resolution: the shim's interposers first
    c = ctypes.CDLL(None, use_errno=True)
    c.opendir.restype = c.fdopendir.restype = c.readdir.restype = ctypes.c_void_p
    c.opendir.argtypes = [ctypes.c_char_p]
    c.fdopendir.argtypes = [ctypes.c_int]
    c.readdir.argtypes = c.closedir.argtypes = [ctypes.c_void_p]
    return c


def dir_names(c, dirp):
    names = []
    while True:
        e = c.readdir(dirp)
        if not e:
            break
        # struct dirent: d_ino, d_off (8 bytes each), d_reclen, d_type
        names.append(ctypes.string_at(e + 19).decode())
    c.closedir(dirp)
    return names


def list_way(c, path, way):
    """the entries of path listed the given way (DIR_WAYS), or ENOENT"""
    if way == "opendir":
        d = c.opendir(path.encode())
        return dir_names(c, d) if d else None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return None
    try:
        if way == "os.listdir(fd)":
            return os.listdir(fd)
        if way == "fdopendir(fd)":
            d, fd = c.fdopendir(fd), -1
            return dir_names(c, d) if d else None
        cp = {"fdopendir(dup(fd))": lambda: os.dup(fd),
              "fdopendir(dup2)": lambda: os.dup2(fd, 200),
              "fdopendir(dup3)": lambda: os.dup2(fd, 201, inheritable=False),
              "F_DUPFD": lambda: fcntl.fcntl(fd, fcntl.F_DUPFD, 100),
              "F_DUPFD_CLOEXEC": lambda: fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 100)}[way]()
        d = c.fdopendir(cp)
        return dir_names(c, d) if d else None
    finally:
        if fd >= 0:
            os.close(fd)


def numbered(names, prefix):
    """the entries prefixN of names, in order of N"""
    if names is None:
        return "ENOENT"
    own = sorted(int(e[len(prefix):]) for e in names
                 if e.startswith(prefix) and e[len(prefix):].isdigit())
    return " ".join("%s%d" % (prefix, n) for n in own)


def cpu_entries(d):
    try:
        return numbered(os.listdir(d), "cpu")
    except OSError:
        return "ENOENT"


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


def read_text(p):
    try:
        with open(p) as f:
            return f.read().rstrip("\n")
    except FileNotFoundError:
        return "ENOENT"
    except OSError as e:
        return "ERROR %s" % e.strerror


def memtotal(text):
    """a node's meminfo: its first line's node number and its MemTotal"""
    for l in text.splitlines():
        w = l.split()
        if len(w) >= 4 and w[0] == "Node" and w[2] == "MemTotal:":
            return "Node %s MemTotal %s" % (w[1], w[3])
    return text


def read_nodes(k, n):
    """the node files, listings and libnuma's answers in the set (k
    nodes, n CPUs)"""
    out = ["%s/%s: %s" % (NODE, f, read_text("%s/%s" % (NODE, f))) for f in NODE_FILES]
    for v in range(k + 1):
        d = "%s/node%d" % (NODE, v)
        for f in ("cpulist", "cpumap", "distance"):
            out.append("%s/%s: %s" % (d, f, read_text(d + "/" + f)))
        out.append("%s/meminfo: %s" % (d, memtotal(read_text(d + "/meminfo"))))
    for v in range(n):
        out.append("ls %s/cpu%d node links: %s" % (SYS, v, numbered(list_way(libc(), "%s/cpu%d" % (SYS, v), "opendir"), "node")))
    with open("/proc/self/status") as f:
        mems = [l.split(":", 1)[1].strip() for l in f if l.startswith("Mems_allowed_list")]
    out.append("status Mems_allowed_list: %s" % mems[0])
    numa = ctypes.CDLL("libnuma.so.1")
    numa.numa_available()
    numa.numa_node_size64.restype = ctypes.c_longlong
    numa.numa_node_size64.argtypes = [ctypes.c_int, ctypes.c_void_p]
    out.append("numa_max_node: %d" % numa.numa_max_node())
    out.append("numa_num_configured_nodes: %d" % numa.numa_num_configured_nodes())
    out.append("numa_node_of_cpu 0..%d: %s" % (n, " ".join(str(numa.numa_node_of_cpu(c)) for c in range(n + 1))))
    out.append("numa_node_size64 0..%d: %s" % (k, " ".join(str(numa.numa_node_size64(v, None)) for v in range(k + 1))))
    return out


def read_listings(k):
    c = libc()
    out = []
    for way in DIR_WAYS:
        out.append("ls[%s] %s: %s" % (way, SYS, numbered(list_way(c, SYS, way), "cpu")))
        out.append("ls[%s] %s: %s" % (way, NODE, numbered(list_way(c, NODE, way), "node")))
        for v in range(k):
            d = "%s/node%d" % (NODE, v)
            out.append("ls[%s] %s: %s" % (way, d, numbered(list_way(c, d, way), "cpu")))
    return out


def read_side(paths, n, k):
    out = ["%s: %s" % (p, read_text(p)) for p in paths]
    out += read_listings(k)
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
    return out + read_nodes(k, n)


def captured(fn, *args):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn(*args)
    return buf.getvalue().splitlines()


def node_of_cpus(root):
    """{physical CPU: its physical node}"""
    out = {}
    nd = os.path.join(root, NODE.lstrip("/"))
    for e in os.listdir(nd) if os.path.isdir(nd) else []:
        if e.startswith("node") and e[4:].isdigit():
            m = compare.read(root, NODE.lstrip("/") + "/%s/cpumap" % e)
            for c in compare.mask_cpus(m) if m else []:
                out[c] = int(e[4:])
    return out


def want_nodes(root, cpus, mems):
    """read_nodes's lines as the kernel's node files restricted to the
    set say they must be"""
    n, k = len(cpus), len(mems)
    rank = {p: v for v, p in enumerate(cpus)}
    nrank = {p: v for v, p in enumerate(mems)}
    nodeof = node_of_cpus(root)
    out = []
    for f in NODE_FILES:
        real = compare.read(root, NODE.lstrip("/") + "/" + f)
        if real is None:
            out.append("%s/%s: ENOENT" % (NODE, f))
            continue
        keep = compare.cpulist(real)
        if f == "has_cpu":
            keep = [p for p in keep if any(nodeof.get(c) == p for c in cpus)]
        out.append("%s/%s: %s" % (NODE, f, compare.fmt_list([nrank[p] for p in keep if p in nrank])))
    for v in range(k + 1):
        d = "%s/node%d" % (NODE, v)
        if v == k:
            out += ["%s/%s: ENOENT" % (d, f) for f in ("cpulist", "cpumap", "distance", "meminfo")]
            continue
        p = mems[v]
        mine = [rank[c] for c in cpus if nodeof.get(c) == p]
        out.append("%s/cpulist: %s" % (d, compare.fmt_list(mine)))
        out.append("%s/cpumap: %s" % (d, compare.fmt_mask(mine, compare.width(cpus))))
        pd = "%s/node%d/" % (NODE.lstrip("/"), p)
        on = compare.cpulist(compare.read(root, NODE.lstrip("/") + "/online"))
        row = dict(zip(on, (compare.read(root, pd + "distance") or "").split()))
        out.append("%s/distance: %s" % (d, " ".join(row.get(m, "?") for m in mems)))
        mt = memtotal(compare.read(root, pd + "meminfo") or "")
        out.append("%s/meminfo: %s" % (d, mt.replace("Node %d " % p, "Node %d " % v, 1)))
    for v, c in enumerate(cpus):
        link = "node%d" % nrank[nodeof[c]] if nodeof.get(c) in nrank else ""
        out.append("ls %s/cpu%d node links: %s" % (SYS, v, link))
    out.append("status Mems_allowed_list: %s" % compare.fmt_list(range(k)))
    numa = ctypes.CDLL("libnuma.so.1")
    numa.numa_available()
    numa.numa_node_size64.restype = ctypes.c_longlong
    numa.numa_node_size64.argtypes = [ctypes.c_int, ctypes.c_void_p]
    out.append("numa_max_node: %d" % (k - 1))
    out.append("numa_num_configured_nodes: %d" % k)
    out.append("numa_node_of_cpu 0..%d: %s -1" % (n, " ".join(
        str(nrank.get(nodeof.get(c), -1)) for c in cpus)))
    out.append("numa_node_size64 0..%d: %s -1" % (k, " ".join(
        str(numa.numa_node_size64(p, None)) for p in mems)))
    return out


def want_side(root, cpus, mems, paths):
    n = len(cpus)
    # online ones: the counts of a program are of the set's online CPUs
    online = [c for c in cpus if c in compare.cpulist(open(SYS + "/online").read().strip())]
    rank = {p: v for v, p in enumerate(cpus)}
    nodeof = node_of_cpus(root)
    out = captured(compare.cmd_view, root, cpus, paths)
    for way in DIR_WAYS:
        out.append("ls[%s] %s: %s" % (way, SYS, " ".join("cpu%d" % v for v in range(n))))
        out.append("ls[%s] %s: %s" % (way, NODE, " ".join("node%d" % v for v in range(len(mems)))))
        for v, p in enumerate(mems):
            out.append("ls[%s] %s/node%d: %s" % (way, NODE, v, " ".join(
                "cpu%d" % rank[c] for c in cpus if nodeof.get(c) == p)))
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
    return out + want_nodes(root, cpus, mems)


def want_numactl(full, cpus, mems):
    """numactl --hardware of the whole machine (full) restricted to the
    set: its k nodes numbered 0..k-1, each with its CPUs of the set, its
    size, the distances among them"""
    rank = {p: v for v, p in enumerate(cpus)}
    ncpus, size, dist = {}, {}, {}
    lines = full.splitlines()
    for i, l in enumerate(lines):
        w = l.split()
        if len(w) >= 3 and w[0] == "node" and w[2] == "cpus:":
            ncpus[int(w[1])] = [int(c) for c in w[3:]]
        elif len(w) >= 3 and w[0] == "node" and w[2] == "size:":
            size[int(w[1])] = " ".join(w[3:])
        elif l.startswith("node distances:"):
            order = [int(x) for x in lines[i + 1].split()[1:]]
            for r in lines[i + 2:]:
                rw = r.replace(":", " ").split()
                if rw:
                    dist[int(rw[0])] = dict(zip(order, rw[1:]))
    k = len(mems)
    want = ["available: %d nodes (%s)" % (k, "0" if k == 1 else "0-%d" % (k - 1))]
    for v, p in enumerate(mems):
        want.append("node %d cpus:%s" % (v, "".join(
            " %d" % rank[c] for c in ncpus.get(p, []) if c in rank)))
        want.append("node %d size: %s" % (v, size.get(p, "")))
    if dist:
        want.append("node distances:")
        want.append("node " + "".join("%3d " % v for v in range(k)))
        for v, p in enumerate(mems):
            want.append("%3d: " % v + "".join("%3s " % dist[p][m] for m in mems))
    return want


def table(lines):
    """whether lscpu's lines are -p's or -e's (not its summary)"""
    return bool(lines) and (lines[0].startswith("#") or lines[0].split()[:1] == ["CPU"])


def want_lscpu(full, cpus, mems):
    """lscpu's summary, -p or -e of the whole machine restricted to the
    set: the set's rows, CPUs and made-up ids renumbered
    (compare.renumber_rows), each CPU's node by its rank among the set's
    nodes (none when the set lacks it); the summary's NUMA lines"""
    nrank = {p: v for v, p in enumerate(mems)}
    lines = full.splitlines()
    ids = compare.has_cache_ids("/")
    if table(lines) and compare.uneven_caches(lines):
        lines = compare.drop_caches(lines)
    if lines and lines[0].startswith("#"):
        comments = [l for l in lines if l.startswith("#")]
        header = comments[-1][2:].split(",")
        rows = [l.split(",") for l in lines if not l.startswith("#")]
        out = compare.renumber_rows(header, rows, cpus, compare.CACHE_NAMES if ids else (),
                                    compare.lscpu_type_ids("/", cpus))
        col = header.index("Node")
        for r in out:
            r[col] = str(nrank[int(r[col])]) if r[col] and int(r[col]) in nrank else ""
        return comments + [",".join(r) for r in out]
    if lines and lines[0].split()[:1] == ["CPU"]:
        header = lines[0].split()
        cache_col = [i for i, h in enumerate(header) if ":" in h]
        names = ["CACHE" if i in cache_col else h for i, h in enumerate(header)]
        out = compare.renumber_rows(names, [l.split() for l in lines[1:]], cpus,
                                    ("CACHE",) if ids else (), compare.lscpu_type_ids("/", cpus))
        # (lscpu -e has no NODE column on a machine without nodes)
        for col in [i for i, h in enumerate(header) if h == "NODE"]:
            for r in out:
                r[col] = str(nrank[int(r[col])]) if r[col] != "-" and int(r[col]) in nrank else "-"
        return [" ".join(header)] + [" ".join(r) for r in out]
    # the summary: its NUMA lines (the rest is the CPUs' and compared by -p)
    node = {}
    for l in lines:
        if l.strip().startswith("NUMA node") and "CPU(s):" in l:
            node[int(l.split("node", 1)[1].split()[0])] = l.split(":", 1)[1].strip()
    rank = {p: v for v, p in enumerate(cpus)}
    want = ["NUMA node(s): %d" % len(mems)]
    for v, p in enumerate(mems):
        mine = [rank[c] for c in compare.cpulist(node.get(p, "")) if c in rank]
        want.append(" ".join(("NUMA node%d CPU(s): %s" % (v, compare.fmt_list(mine))).split()))
    return want


def got_lscpu(text, full):
    """the lines of lscpu's output that want_lscpu makes: -p's as they
    are, -e's cells without their padding, the summary's NUMA lines
    (without the caches where the whole machine's are uneven)"""
    lines = text.splitlines()
    if table(lines) and table(full.splitlines()) and compare.uneven_caches(full.splitlines()):
        lines = compare.drop_caches(lines)
    if lines and lines[0].startswith("#"):
        return lines
    if lines and lines[0].split()[:1] == ["CPU"]:
        return [" ".join(l.split()) for l in lines]
    return compare.numa_lines_norm([" ".join(l.split()) for l in lines
                                    if l.strip().startswith("NUMA node")])


def judge(d, root, cpus, mems):
    """every expectation of a set in one process (TCG: each program
    started costs seconds): in directory d, from d/paths, the machine's
    outputs d/full.X and the set's d/got.X, writes d/want (read's lines
    as they must be) and, for X in lscpu, lscpu-p, lscpu-e, numactl,
    d/want.X and d/mine.X (the set's output as it is compared)"""
    def rd(name):
        try:
            with open(os.path.join(d, name)) as f:
                return f.read()
        except OSError:
            return ""

    def wr(name, lines):
        with open(os.path.join(d, name), "w") as f:
            f.write("".join(l + "\n" for l in lines))

    wr("want", want_side(root, cpus, mems, rd("paths").split()))
    for x in ("lscpu", "lscpu-p", "lscpu-e"):
        if os.path.exists(os.path.join(d, "got." + x)):
            wr("want." + x, want_lscpu(rd("full." + x), cpus, mems))
            wr("mine." + x, got_lscpu(rd("got." + x), rd("full." + x)))
    wr("want.numactl", want_numactl(rd("full.numactl"), cpus, mems))
    wr("mine.numactl", [l for l in rd("got.numactl").splitlines()
                        if not (l.startswith("node ") and " free: " in l)])


def main():
    a = sys.argv
    if len(a) == 5 and a[1] == "read":
        paths = open(a[2]).read().split()
        print("\n".join(read_side(paths, int(a[3]), int(a[4]))))
    elif len(a) == 6 and a[1] == "judge":
        judge(a[2], a[3], compare.cpulist(a[4]), compare.cpulist(a[5]))
    elif len(a) == 6 and a[1] == "want":
        paths = open(a[5]).read().split()
        print("\n".join(want_side(a[2], compare.cpulist(a[3]), compare.cpulist(a[4]), paths)))
    elif len(a) == 5 and a[1] == "numactl":
        print("\n".join(want_numactl(open(a[2]).read(), compare.cpulist(a[3]),
                                     compare.cpulist(a[4]))))
    elif len(a) == 5 and a[1] == "lscpu":
        print("\n".join(want_lscpu(open(a[2]).read(), compare.cpulist(a[3]),
                                   compare.cpulist(a[4]))))
    elif len(a) == 4 and a[1] == "lscpu-got":
        print("\n".join(got_lscpu(open(a[2]).read(), open(a[3]).read())))
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
