#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Synthetic machines for the topology views (tests/topo/random.sh).

  genmachine.py make SEED DIR [--online CPULIST]
                                   write machine SEED's /sys and /proc below
                                   DIR (DIR must not exist); with --online,
                                   only these of its CPUs are online
  genmachine.py describe SEED      one line: the machine's kinds (the words
                                   a failure is classified by), then its
                                   shape, one line per package
  genmachine.py verify SEED DIR    hwloc and lscpu, run natively on DIR (made
                                   by make SEED), read the machine drawn:
                                   PUs, packages, cores, caches, nodes (exit 1
                                   and the differences if not)
  genmachine.py sets SEED [N]      up to N sets of CPUs to try on it (all
                                   shapes without N), one "shape cpulist" a
                                   line, drawn from SEED too

A machine is drawn from SEED alone (Python's random.Random(SEED), stdlib
only), so a seed is a machine: the same seed gives the same bytes. The
files are written as the Linux kernel writes them, so that hwloc
(HWLOC_FSROOT=DIR or lstopo --input DIR), lscpu --sysroot DIR and the
shim's test root read them as a real machine:

  /sys/devices/system/cpu: possible, present, online, offline, kernel_max,
    isolated; cpuN/online; cpuN/topology (drivers/base/topology.c: the ids
    and the sibling masks and lists, per architecture: die and cluster on
    x86 and arm64, book and drawer on s390, the older kernels' smaller
    set of files); cpuN/cache/indexK (drivers/base/cacheinfo.c); cpuN/nodeK
    links; arm64's cpu_capacity. An offline CPU keeps cpuN/online (0) and
    loses topology/ and cache/, and leaves every sibling and cache mask.
  /sys/devices/system/node (drivers/base/node.c): online, possible,
    has_cpu, has_memory, has_normal_memory; nodeK/cpumap, cpulist,
    distance, meminfo, numastat, hugepages, cpuN links.
  /sys/bus/cpu/devices/cpuN and /sys/bus/node/devices/nodeK links.
  /proc/cpuinfo in the architecture's format (x86, arm64, ppc64, s390 in
    the older and the newer layouts, SPARC's one header with a line per
    CPU), /proc/meminfo, and
    /proc/hwloc-nofile-info (what hwloc-gather-topology writes beside a
    capture: the architecture, which hwloc cannot ask a directory for).

Masks are printed as %*pb (nr_cpu_ids bits, 32-bit groups, the first only
as wide as its bits), lists as %*pbl; some machines' topology lists end in
"\\n\\0" as some kernels' binary attributes do.

What is drawn: the architecture; drawers, books (s390), packages, dies,
L3 domains, clusters, cores, SMT (hybrid cores with and without SMT on
x86); caches shared by a core, a cluster, a domain, a die or a package,
with domains and clusters of uneven sizes; NUMA nodes cut at a level of
that tree, numbered densely or apart, and CPU-less memory nodes among
them; sparse package, die, cluster and core ids; CPUs numbered core by
core, SMT threads last, or round-robin over packages; offline CPUs
(CPU 0 among them sometimes, whole SMT levels on POWER); possible CPUs
beyond the present ones (wider masks). Shapes real machines' dumps showed
(tests/fixtures/lscpu-dumps): a kernel without NUMA (no
/sys/devices/system/node), caches described by level, type and CPUs
alone (no size, line or ways), or some levels' caches without some of
those files; cpuinfo blocks that differ by CPU type (arm64 clusters of
up to four core types, x86 hybrids' efficient cores at another clock);
SPARC (sun4u: each CPU a package of id -1; sun4v: cores of 4 or 8
threads), with no cache directory and no CPU hotplug.
"""
import os
import random
import sys


# ---- formats ----

def mask(cpus, nbits):
    """%*pb: nbits bits, 32-bit groups, the first as wide as its bits."""
    m = 0
    for c in cpus:
        m |= 1 << c
    chunks = (nbits + 31) // 32
    first = nbits - 32 * (chunks - 1)
    out = []
    for i in reversed(range(chunks)):
        g = (m >> (32 * i)) & 0xFFFFFFFF
        out.append("%0*x" % (((first + 3) // 4) if i == chunks - 1 else 8, g))
    return ",".join(out)


def clist(cpus):
    """%*pbl: "0-3,8,10-11"; empty for no CPU."""
    cs = sorted(set(cpus))
    out = []
    i = 0
    while i < len(cs):
        j = i
        while j + 1 < len(cs) and cs[j + 1] == cs[j] + 1:
            j += 1
        out.append(str(cs[i]) if i == j else "%d-%d" % (cs[i], cs[j]))
        i = j + 1
    return ",".join(out)


def parse_list(s):
    out = []
    for item in s.strip().split(","):
        if "-" in item:
            a, b = item.split("-")
            out.extend(range(int(a), int(b) + 1))
        elif item:
            out.append(int(item))
    return out


def ids(r, n, sparse, base=0):
    """n increasing ids: 0.. or with gaps (and a start) when sparse."""
    if not sparse:
        return list(range(base, base + n))
    out, x = [], base + r.choice([0, 0, 1, 2, 4, 8, 16, 36])
    for _ in range(n):
        out.append(x)
        x += 1 + r.choice([0, 0, 1, 2, 3, 5, 7, 12])
    return out


# ---- drawing a machine ----

class Cache:
    def __init__(self, level, ctype, size_k, ways, line=64):
        self.level, self.type, self.size_k, self.ways, self.line = level, ctype, size_k, ways, line
        self.cpus = []  # hardware threads (their Cpu objects) sharing it
        self.id = 0


class Cpu:
    def __init__(self, **kw):
        self.__dict__.update(kw)
        self.caches = []
        self.lid = None
        self.online = True


def draw(seed):
    """The machine of SEED: a dict with arch, cpus (logical order),
    nodes, kinds (a set of words) and the file options."""
    r = random.Random("genmachine-%s" % seed)
    arch = r.choice(["x86", "x86", "x86", "arm64", "arm64", "ppc64", "s390"])
    # SPARC, learnt from a dump after the others: a stream of its own
    # decides it, so that every other seed's machine stays as it was
    if random.Random("%s sparc" % seed).random() < 0.08:
        arch = "sparc"
    kinds = {arch}
    threads = []   # Cpu objects in canonical (package, ..., thread) order
    packages = []  # list of lists of cores (a core: list of threads)

    def cache(level, ctype, size_k, ways, members):
        c = Cache(level, ctype, size_k, ways, 128 if arch in ("ppc64", "s390") else 64)
        for t in members:
            c.cpus.append(t)
            t.caches.append(c)
        return c

    sparse_ids = r.random() < 0.35
    if sparse_ids:
        kinds.add("sparse-ids")
    if arch == "x86":
        npkg = r.choice([1, 1, 2, 2, 4])
        hybrid = npkg == 1 and r.random() < 0.2
        ndie = 1 if hybrid else r.choice([1, 1, 1, 2])
        smt = 2 if hybrid else r.choice([1, 2, 2])
        nl3 = 1 if hybrid else r.choice([1, 1, 2, 3])
        uneven = not hybrid and nl3 > 1 and r.random() < 0.5
        pkg_ids = ids(r, npkg, sparse_ids)
        if hybrid:
            kinds.add("hybrid")
        if ndie > 1:
            kinds.add("dies")
        if nl3 > 1:
            kinds.add("multi-l3")
        if smt > 1:
            kinds.add("smt")
        base_cores = r.randint(1, 6)
        l1d, l2p, l3s = r.choice([32, 48]), r.choice([256, 512, 1024, 2048]), \
            r.choice([8192, 16384, 32768])
        for pi, pid in enumerate(pkg_ids):
            pkg = []
            for di in range(ndie):
                # per die: core ids, L3 domains of uneven sizes
                if hybrid:
                    groups = [("P", 2, 1)] * r.randint(1, 4) + \
                             [("E", 1, r.randint(2, 4))] * r.randint(1, 3)
                else:
                    groups = []
                    for _ in range(nl3):
                        k = base_cores if not uneven else r.randint(1, 6)
                        groups.append(("D", smt, k))
                ncores = sum(g[2] for g in groups)
                core_ids = ids(r, ncores, sparse_ids)
                ci = 0
                l3_members = []
                for gi, (kind, gsmt, k) in enumerate(groups):
                    dom = []
                    cluster = []
                    for _ in range(k):
                        core = [Cpu(pkg=pid, pkg_idx=pi, die=di, core_id=core_ids[ci],
                                    thread=t, kind=kind, l3dom=(pi, di, gi if nl3 > 1 else 0),
                                    cluster=(pi, di, gi) if kind == "E" else (pi, di, gi, ci))
                                for t in range(gsmt)]
                        ci += 1
                        threads.extend(core)
                        pkg.append(core)
                        dom.extend(core)
                        cluster.append(core)
                        cache(1, "Data", l1d if kind != "E" else 32, 8, core)
                        cache(1, "Instruction", 32, 8, core)
                        if kind != "E":
                            cache(2, "Unified", l2p, 16, core)
                    if kind == "E":
                        cache(2, "Unified", 2048, 16, [t for c in cluster for t in c])
                    l3_members.append(dom)
                if hybrid or nl3 == 1:
                    cache(3, "Unified", l3s, 16,
                          [t for d in l3_members for t in d])
                else:
                    for d in l3_members:
                        cache(3, "Unified", 16384, 16, d)
            packages.append(pkg)
        if uneven:
            kinds.add("uneven-caches")
    elif arch == "arm64":
        npkg = r.choice([1, 1, 2])
        nclu = r.choice([1, 2, 4, 8])
        smt = 1 if r.random() < 0.85 else r.choice([2, 4])
        uneven = r.random() < 0.3
        l2_cluster = r.random() < 0.4
        l3 = r.choice(["package", "package", "none", "cluster"])
        big_little = npkg == 1 and nclu > 1 and r.random() < 0.3
        kinds.update(["clusters"] if nclu > 1 else [])
        if smt > 1:
            kinds.add("smt")
        if uneven:
            kinds.add("uneven-caches")
        if big_little:
            kinds.add("big-little")
        pkg_ids = ids(r, npkg, sparse_ids or r.random() < 0.5)
        base = r.randint(1, 4)
        clu_id = r.choice([0, 0, 100, 654])
        core_id = 0
        for pi, pid in enumerate(pkg_ids):
            pkg = []
            members = []
            for cl in range(nclu):
                k = r.randint(1, 4) if uneven else base
                clcores = []
                for _ in range(k):
                    core = [Cpu(pkg=pid, pkg_idx=pi, die=0, core_id=core_id, thread=t,
                                kind=("L" if big_little and cl == 0 else "B"),
                                cluster=clu_id, l3dom=(pi, cl if l3 == "cluster" else 0))
                            for t in range(smt)]
                    core_id += 1 if not sparse_ids else r.choice([1, 1, 2])
                    threads.extend(core)
                    pkg.append(core)
                    clcores.append(core)
                    cache(1, "Data", 64, 4, core)
                    cache(1, "Instruction", 64, 4, core)
                    if not l2_cluster:
                        cache(2, "Unified", 512, 8, core)
                allt = [t for c in clcores for t in c]
                if l2_cluster:
                    cache(2, "Unified", 1024, 8, allt)
                if l3 == "cluster":
                    cache(3, "Unified", 4096, 16, allt)
                members.extend(allt)
                clu_id += 1 if not sparse_ids else r.choice([1, 4, 8])
            if l3 == "package":
                cache(3, "Unified", 32768, 16, members)
            packages.append(pkg)
    elif arch == "ppc64":
        npkg = r.choice([1, 2, 2, 4])
        ncores = r.randint(1, 6)
        smt = r.choice([1, 2, 4, 8])
        pair_l3 = r.random() < 0.3
        if smt > 1:
            kinds.add("smt")
        pkg_ids = ids(r, npkg, True) if r.random() < 0.5 else list(range(npkg))
        for pi, pid in enumerate(pkg_ids):
            pkg = []
            pair = []
            for ci in range(ncores):
                core = [Cpu(pkg=pid, pkg_idx=pi, die=0, core_id=None, thread=t, kind="B",
                            cluster=None, l3dom=(pi, ci // 2 if pair_l3 else ci))
                        for t in range(smt)]
                threads.extend(core)
                pkg.append(core)
                cache(1, "Data", 32, 8, core)
                cache(1, "Instruction", 32, 8, core)
                cache(2, "Unified", 512, 8, core)
                pair.append(core)
                if not pair_l3:
                    cache(3, "Unified", 10240, 8, core)
                    pair = []
                elif len(pair) == 2 or ci == ncores - 1:
                    cache(3, "Unified", 10240, 8, [t for c in pair for t in c])
                    pair = []
            packages.append(pkg)
        if pair_l3:
            kinds.add("uneven-caches" if ncores % 2 else "shared-l3")
    elif arch == "sparc":
        # sun4u (UltraSPARC II): each CPU alone, package id -1, core id 0,
        # as one package each to hwloc and lscpu; sun4v (Niagara): one
        # package of cores of 4 or 8 threads
        sun4v = r.random() < 0.5
        kinds.add("sun4v" if sun4v else "sun4u")
        ncores = r.randint(1, 6) if sun4v else r.randint(1, 8)
        smt = r.choice([4, 8]) if sun4v else 1
        if smt > 1:
            kinds.add("smt")
        core_ids = ids(r, ncores, sparse_ids)
        pkg = []
        for ci in range(ncores):
            core = [Cpu(pkg=0 if sun4v else -1, pkg_idx=0 if sun4v else ci, die=0,
                        core_id=core_ids[ci] if sun4v else 0, thread=t, kind="B",
                        cluster=None, l3dom=(0 if sun4v else ci,))
                    for t in range(smt)]
            threads.extend(core)
            if sun4v:
                pkg.append(core)
            else:
                packages.append([core])
        if sun4v:
            packages.append(pkg)
    else:  # s390
        ndrawer = r.choice([1, 2])
        nbook = r.choice([1, 2])
        nsock = r.randint(1, 3)
        smt = r.choice([1, 2])
        if smt > 1:
            kinds.add("smt")
        kinds.add("books")
        core_id = 0
        pi = 0
        sock_ids = ids(r, ndrawer * nbook * nsock, sparse_ids)
        caches = r.random() < 0.5
        for dr in range(ndrawer):
            for bk in range(nbook):
                for _ in range(nsock):
                    pid = sock_ids[pi]
                    pkg = []
                    for _ in range(r.randint(1, 5)):
                        core = [Cpu(pkg=pid, pkg_idx=pi, die=0, core_id=core_id, thread=t,
                                    kind="B", cluster=None, l3dom=(pi,), book=bk + 2 * dr,
                                    drawer=dr)
                                for t in range(smt)]
                        core_id += smt if not sparse_ids else smt * r.choice([1, 2])
                        threads.extend(core)
                        pkg.append(core)
                        if caches:
                            # s390 shows only the private caches, per CPU
                            for t in core:
                                cache(1, "Data", 128, 8, [t])
                                cache(1, "Instruction", 128, 8, [t])
                                cache(2, "Unified", 2048, 8, [t])
                    packages.append(pkg)
                    pi += 1
        if not caches:
            kinds.add("no-caches")

    # ---- logical numbering ----
    order = "core"
    if arch == "x86":
        order = r.choice(["core", "smt-last", "smt-last", "pkg-rr"])
    elif arch == "arm64" and len(packages) > 1:
        order = r.choice(["core", "core", "pkg-rr"])
    pos = {id(t): i for i, t in enumerate(threads)}
    if order == "smt-last":
        threads.sort(key=lambda t: (t.thread, pos[id(t)]))
    elif order == "pkg-rr":
        within = {}
        for t in threads:
            within[id(t)] = sum(1 for u in threads[:pos[id(t)]] if u.pkg_idx == t.pkg_idx)
        threads.sort(key=lambda t: (t.thread, within[id(t)], t.pkg_idx))
    if order == "pkg-rr" and len(packages) > 1 or order == "smt-last" and smt > 1:
        kinds.add("order-" + order)
    for i, t in enumerate(threads):
        t.lid = i
    n = len(threads)
    if arch == "ppc64":
        for pkg in packages:
            for core in pkg:
                for t in core:
                    t.core_id = core[0].lid

    # ---- offline CPUs ----
    if arch == "ppc64" and smt > 1 and r.random() < 0.3:
        mode = r.choice([m for m in (1, 2, 4) if m < smt])
        for t in threads:
            if t.thread >= mode:
                t.online = False
        kinds.add("smt-mode")
    elif arch != "sparc" and n > 2 and r.random() < 0.3:
        # (SPARC's kernel has no CPU hotplug: no cpuN/online)
        k = r.randint(1, max(1, min(3, n // 4)))
        pick = r.sample(range(1, n), k)
        if r.random() < 0.25:
            pick[0] = 0
        for c in pick:
            threads[c].online = False
        kinds.add("offline")
        if not threads[0].online:
            kinds.add("cpu0-offline")
    online = [t for t in threads if t.online]
    if len(online) < 1:
        threads[-1].online = True
        online = [threads[-1]]
    possible = n
    if r.random() < 0.2:
        possible = n + r.choice([1, 8, 32, 64, 100])
        kinds.add("possible-more")

    # ---- NUMA nodes ----
    levels = ["machine", "package"]
    if arch == "x86" and any(t.die for t in threads):
        levels.append("die")
    if len({t.l3dom for t in threads}) > len(packages):
        levels.append("l3")
    if arch in ("s390", "sparc"):
        levels = ["machine"]
    if arch not in ("s390", "sparc") and len(packages) > 1:
        levels.append("package")
    level = r.choice(levels)
    if level == "machine":
        groups = [threads]
    else:
        keyf = {"package": lambda t: t.pkg_idx, "die": lambda t: (t.pkg_idx, t.die),
                "l3": lambda t: t.l3dom}[level]
        units = {}
        for t in sorted(threads, key=lambda t: pos[id(t)]):
            units.setdefault(keyf(t), []).append(t)
        ul = list(units.values())
        # several units per node, sometimes (never across a package
        # boundary below it)
        if level == "package" and len(ul) >= 4 and r.random() < 0.3:
            ul = [ul[i] + ul[i + 1] for i in range(0, len(ul) - 1, 2)] + \
                 ([ul[-1]] if len(ul) % 2 else [])
            kinds.add("node-packages")
        groups = ul
    if len(groups) > 1:
        kinds.add("numa")
        if level in ("die", "l3"):
            kinds.add("nodes-in-package")
    ncpuless = 0
    if r.random() < 0.3:
        ncpuless = r.randint(1, 2)
        kinds.add("cpuless-nodes")
    total = len(groups) + ncpuless
    node_sparse = r.random() < (0.5 if arch == "ppc64" else 0.2)
    nids = ids(r, total, node_sparse)
    if node_sparse:
        kinds.add("sparse-nodes")
    slots = list(range(total))
    cpuless_slots = set()
    if ncpuless:
        # CPU-less nodes after the others, or among them (node 0 too)
        if r.random() < 0.5:
            cpuless_slots = set(slots[-ncpuless:])
        else:
            cpuless_slots = set(r.sample(slots, ncpuless))
            kinds.add("cpuless-among")
    nodes = []
    gi = 0
    for s in slots:
        if s in cpuless_slots:
            nodes.append({"id": nids[s], "cpus": [], "mem_mb": r.choice([1024, 4096, 16384])})
        else:
            for t in groups[gi]:
                t.node = nids[s]
            nodes.append({"id": nids[s], "cpus": sorted(t.lid for t in groups[gi]),
                          "mem_mb": r.choice([2048, 8192, 32768, 65536])})
            gi += 1
    # Some kernels leave an offline CPU in its node's cpumap: where a
    # node holds whole packages (else hwloc itself cannot place the
    # node, having no package for the offline CPU)
    node_keeps_offline = level in ("machine", "package") and r.random() < 0.5
    # distances as firmware gives them: by package, CPU-less nodes far
    pkg_of = {}
    for nd in nodes:
        if nd["cpus"]:
            pkg_of[nd["id"]] = threads[nd["cpus"][0]].pkg_idx
    near, far, memfar = r.choice([11, 12, 16]), r.choice([20, 21, 32]), r.choice([17, 40])
    dist = {}
    for a in nodes:
        for b in nodes:
            ia, ib = a["id"], b["id"]
            if ia == ib:
                d = 10
            elif ia not in pkg_of or ib not in pkg_of:
                d = memfar
            else:
                d = near if pkg_of[ia] == pkg_of[ib] else far
            dist[ia, ib] = d
    node_possible = max(n["id"] for n in nodes) + 1
    if r.random() < 0.3:
        node_possible += r.choice([1, 4, 8])
    # ---- file options ----
    newer = r.random() < 0.75 or arch == "arm64"
    if arch == "sparc":
        newer = False  # its topology files as sparc64 has them
    elif not newer:
        kinds.add("older-kernel")
    nul_lists = newer and r.random() < 0.2
    if nul_lists:
        kinds.add("nul-lists")
    s390_new = arch == "s390" and r.random() < 0.6
    if arch == "s390":
        kinds.add("s390-cpuinfo-" + ("new" if s390_new else "old"))
    if arch == "x86" and not online[0] is threads[0] and False:
        pass
    caches = {}
    for t in threads:
        for c in t.caches:
            caches[id(c)] = c
    cid = {}
    for c in caches.values():
        key = (c.level, c.type)
        c.id = cid.get(key, 0)
        cid[key] = c.id + 1
    # Shapes learnt from real machines' dumps, drawn from a stream of
    # their own so that every earlier seed's machine stays as it was:
    # a kernel without NUMA (no /sys/devices/system/node: every reader
    # takes one node 0 of all CPUs), and caches described only by their
    # level, type and CPUs (no size, line or ways files)
    r2 = random.Random("%s learnt" % seed)
    no_node_dir = (len(nodes) == 1 and nodes[0]["cpus"] and not node_keeps_offline
                   and r2.random() < 0.35)
    if no_node_dir:
        kinds.add("no-node-dir")
        nodes[0]["id"] = 0
        for t in threads:
            t.node = 0
        dist = {(0, 0): 10}
        node_possible = 1
    caches_bare = r2.random() < 0.12
    if caches_bare:
        kinds.add("bare-caches")
    # (each shape added later draws from a stream of its own: a seed's
    # earlier shapes stay as they were)
    # caches of some levels without some of their attributes (the kernel
    # hides size, line, ways and sets where firmware gave 0): L1 with a
    # size beside an L3 without, a size without ways
    cache_drop = {}
    r3 = random.Random("%s some-bare-caches" % seed)
    if not caches_bare and r3.random() < 0.15:
        for key in sorted({(k.level, k.type) for k in caches.values()}):
            cache_drop[key] = {a for a in ("size", "coherency_line_size",
                                           "ways_of_associativity", "number_of_sets")
                               if r3.random() < 0.4}
        if any(cache_drop.values()):
            kinds.add("some-bare-caches")
    # cpuinfo whose blocks differ by CPU type: arm64 clusters of up to four
    # cores' parts (a hybrid of A510, A710, A715 and X3), x86 hybrids whose
    # efficient cores run at another clock
    parts = ["0xd46", "0xd4d", "0xd47", "0xd4e", "0xd05", "0xd0c"]
    types = False
    r4 = random.Random("%s cpu-types" % seed)
    if arch == "arm64" and len({t.cluster for t in threads}) > 1 and r4.random() < 0.4:
        types = True
        chosen = {}
        for t in threads:
            if (t.pkg_idx, t.cluster) not in chosen:
                chosen[t.pkg_idx, t.cluster] = r4.choice(parts[:4])
            t.part = chosen[t.pkg_idx, t.cluster]
    elif "hybrid" in kinds and r4.random() < 0.5:
        types = True
        for t in threads:
            t.part = t.kind
    if types:
        kinds.add("cpu-types")
    return {"seed": seed, "arch": arch, "cpus": threads, "packages": packages,
            "nodes": nodes, "dist": dist, "possible": possible, "node_possible": node_possible,
            "kinds": kinds, "newer": newer, "nul_lists": nul_lists, "s390_new": s390_new,
            "node_keeps_offline": node_keeps_offline, "order": order,
            "node_level": level, "cache_id": arch == "x86" and newer,
            "no_node_dir": no_node_dir, "caches_bare": caches_bare,
            "cache_drop": cache_drop, "cpu_types": types}


# ---- writing it ----

class Tree:
    def __init__(self, root):
        self.root = root

    def w(self, rel, text):
        p = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)

    def ln(self, rel, target):
        p = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        os.symlink(target, p)


def write(m, root):
    os.makedirs(root)
    T = Tree(root)
    cpus = m["cpus"]
    arch = m["arch"]
    nb = m["possible"]
    on = [c for c in cpus if c.online]
    onl = {c.lid for c in on}
    S = "sys/devices/system/cpu"
    lend = "\n\0" if m["nul_lists"] else "\n"

    def lids(ts):
        return sorted(t.lid for t in ts if t.online)

    T.w(S + "/possible", clist(range(nb)) + "\n")
    T.w(S + "/present", clist(range(len(cpus))) + "\n")
    T.w(S + "/online", clist(onl) + "\n")
    T.w(S + "/offline", clist(set(range(nb)) - onl) + "\n")
    T.w(S + "/kernel_max", "%d\n" % (8191 if arch == "x86" else 2047))
    T.w(S + "/isolated", "\n")
    node_of = {c.lid: c.node for c in cpus}
    for c in cpus:
        d = "%s/cpu%d" % (S, c.lid)
        T.ln("sys/bus/cpu/devices/cpu%d" % c.lid, "../../../devices/system/cpu/cpu%d" % c.lid)
        if not m["no_node_dir"]:
            T.ln(d + "/node%d" % c.node, "../../node/node%d" % c.node)
        if (c.lid != 0 or arch != "x86" or not c.online) and arch != "sparc":
            T.w(d + "/online", "1\n" if c.online else "0\n")
        if arch == "arm64":
            T.w(d + "/cpu_capacity", "%d\n" % (
                446 if getattr(c, "part", c.kind) in ("L", "0xd46") else
                1024 if getattr(c, "part", "0xd4e") in ("B", "0xd4e") else 880))
        if arch == "sparc":
            # no cache/ directory: sparc64's own files
            for f, v in (("l1_dcache_size", 16384), ("l1_dcache_line_size", 32),
                         ("l1_icache_size", 16384), ("l1_icache_line_size", 32),
                         ("l2_cache_size", 1048576), ("l2_cache_line_size", 64),
                         ("clock_tick", 248000000)):
                T.w("%s/%s" % (d, f), "%d\n" % v)
        if not c.online:
            continue

        def both(name, ts, listname=None):
            T.w("%s/topology/%s" % (d, name), mask(lids(ts), nb) + "\n")
            T.w("%s/topology/%s" % (d, listname or name + "_list"), clist(lids(ts)) + lend)
        core = [t for t in cpus if t.pkg_idx == c.pkg_idx and t.core_id == c.core_id
                and t.die == c.die]
        pkg = [t for t in cpus if t.pkg_idx == c.pkg_idx]
        T.w(d + "/topology/physical_package_id", "%d\n" % c.pkg)
        T.w(d + "/topology/core_id", "%d\n" % c.core_id)
        both("thread_siblings", core)
        both("core_siblings", pkg)
        if m["newer"]:
            both("core_cpus", core)
            both("package_cpus", pkg)
            if arch == "x86":
                T.w(d + "/topology/die_id", "%d\n" % c.die)
                both("die_cpus", [t for t in pkg if t.die == c.die])
                l2 = [k for k in c.caches if k.level == 2][0]
                T.w(d + "/topology/cluster_id", "%d\n" % (l2.id * 8))
                both("cluster_cpus", l2.cpus)
            elif arch == "arm64":
                T.w(d + "/topology/die_id", "-1\n")
                both("die_cpus", [c])
                T.w(d + "/topology/cluster_id", "%d\n" % c.cluster)
                both("cluster_cpus", [t for t in pkg if t.cluster == c.cluster])
        if arch == "s390":
            T.w(d + "/topology/book_id", "%d\n" % c.book)
            T.w(d + "/topology/drawer_id", "%d\n" % c.drawer)
            both("book_siblings", [t for t in cpus if t.book == c.book])
            both("drawer_siblings", [t for t in cpus if t.drawer == c.drawer])
        for i, k in enumerate(sorted(c.caches, key=lambda k: (k.level, k.type != "Data"))):
            cd = "%s/cache/index%d/" % (d, i)
            T.w(cd + "level", "%d\n" % k.level)
            T.w(cd + "type", k.type + "\n")
            if not m["caches_bare"]:
                drop = m["cache_drop"].get((k.level, k.type), ())
                for f, v in (("size", "%dK" % k.size_k), ("coherency_line_size", k.line),
                             ("ways_of_associativity", k.ways),
                             ("number_of_sets", k.size_k * 1024 // (k.line * k.ways))):
                    if f not in drop:
                        T.w(cd + f, "%s\n" % v)
            T.w(cd + "shared_cpu_map", mask(lids(k.cpus), nb) + "\n")
            T.w(cd + "shared_cpu_list", clist(lids(k.cpus)) + "\n")
            if arch == "x86":
                T.w(cd + "physical_line_partition", "1\n")
            if m["cache_id"]:
                T.w(cd + "id", "%d\n" % k.id)
            if arch == "arm64":
                T.w(cd + "allocation_policy", "ReadWriteAllocate\n")
                T.w(cd + "write_policy", "WriteBack\n")
    # nodes
    N = "sys/devices/system/node"
    nodes = [] if m["no_node_dir"] else m["nodes"]
    all_ids = sorted(n["id"] for n in nodes)
    for f, v in () if m["no_node_dir"] else (
            ("online", all_ids), ("possible", range(m["node_possible"])),
            ("has_cpu", {c.node for c in on}), ("has_memory", all_ids),
            ("has_normal_memory", all_ids)):
        T.w(N + "/" + f, clist(v) + "\n")
    for nd in nodes:
        k = nd["id"]
        d = "%s/node%d" % (N, k)
        T.ln("sys/bus/node/devices/node%d" % k, "../../../devices/system/node/node%d" % k)
        shown = [c for c in nd["cpus"] if c in onl or m["node_keeps_offline"]]
        T.w(d + "/cpumap", mask(shown, nb) + "\n")
        T.w(d + "/cpulist", clist(shown) + "\n")
        T.w(d + "/distance", " ".join(str(m["dist"][k, j]) for j in all_ids) + "\n")
        total = nd["mem_mb"] * 1024
        free = total * 7 // 8
        T.w(d + "/meminfo", "".join(
            "Node %d %-15s %8d kB\n" % (k, name + ":", v) for name, v in
            (("MemTotal", total), ("MemFree", free), ("MemUsed", total - free),
             ("Active", 0), ("Inactive", 0))) +
            "Node %d HugePages_Total:     0\nNode %d HugePages_Free:      0\n"
            "Node %d HugePages_Surp:      0\n" % (k, k, k))
        T.w(d + "/numastat", "numa_hit 1000\nnuma_miss 0\nnuma_foreign 0\n"
            "interleave_hit 0\nlocal_node 1000\nother_node 0\n")
        for hp in ("hugepages-2048kB", "hugepages-1048576kB"):
            for f in ("nr_hugepages", "free_hugepages", "surplus_hugepages"):
                T.w("%s/hugepages/%s/%s" % (d, hp, f), "0\n")
        for c in nd["cpus"]:
            T.ln("%s/cpu%d" % (d, c), "../../cpu/cpu%d" % c)
    memtotal = sum(n["mem_mb"] for n in m["nodes"]) * 1024
    T.w("proc/meminfo", "MemTotal:       %d kB\nMemFree:        %d kB\n"
        "MemAvailable:   %d kB\n" % (memtotal, memtotal * 7 // 8, memtotal * 7 // 8))
    T.w("proc/cpuinfo", cpuinfo(m))
    T.w("proc/hwloc-nofile-info", "OSName: Linux\nOSRelease: 6.1.0\nOSVersion: #1 SMP\n"
        "HostName: machine%s\nArchitecture: %s\n" % (
            m["seed"], {"x86": "x86_64", "arm64": "aarch64", "ppc64": "ppc64le",
                        "s390": "s390x", "sparc": "sparc64"}[arch]))


def cpuinfo(m):
    cpus = m["cpus"]
    on = [c for c in cpus if c.online]
    arch = m["arch"]
    out = []
    if arch == "x86":
        for c in on:
            pkg = [t for t in on if t.pkg_idx == c.pkg_idx]
            cores = {(t.die, t.core_id) for t in pkg}
            l3 = [k for k in c.caches if k.level == 3]
            # the APIC id: package, die, core id and thread bits
            smt_bits = (max(t.thread for t in cpus)).bit_length()
            core_bits = max(t.core_id for t in cpus).bit_length()
            die_bits = max(t.die for t in cpus).bit_length()
            apic = ((((c.pkg_idx << die_bits) | c.die) << core_bits | c.core_id)
                    << smt_bits) | c.thread
            out.append(
                "processor\t: %d\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
                "model name\t: Synthetic(R) CPU %s\nstepping\t: 8\nmicrocode\t: 0x2b000461\n"
                "cpu MHz\t\t: %s\ncache size\t: %d KB\nphysical id\t: %d\n"
                "siblings\t: %d\ncore id\t\t: %d\ncpu cores\t: %d\napicid\t\t: %d\n"
                "initial apicid\t: %d\nfpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: 32\n"
                "wp\t\t: yes\nflags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge "
                "mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx lm constant_tsc "
                "pni ssse3 sse4_1 sse4_2 x2apic popcnt avx avx2\nbugs\t\t: spectre_v1\n"
                "bogomips\t: 4200.00\nclflush size\t: 64\ncache_alignment\t: 64\n"
                "address sizes\t: 46 bits physical, 57 bits virtual\npower management:\n\n"
                % (c.lid, m["seed"], "800.000" if getattr(c, "part", "P") == "E" else "2100.000",
                   l3[0].size_k if l3 else 0, c.pkg, len(pkg), c.core_id,
                   len(cores), apic, apic))
    elif arch == "arm64":
        for c in on:
            out.append(
                "processor\t: %d\nBogoMIPS\t: 100.00\nFeatures\t: fp asimd evtstrm aes pmull "
                "sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp\n"
                "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x%d\n"
                "CPU part\t: %s\nCPU revision\t: 1\n\n"
                % (c.lid, 0 if c.kind == "B" else 2, getattr(
                    c, "part", "0xd0c" if c.kind == "B" else "0xd05")))
    elif arch == "ppc64":
        for c in on:
            out.append("processor\t: %d\ncpu\t\t: POWER9 (raw), altivec supported\n"
                       "clock\t\t: 3800.000000MHz\nrevision\t: 2.2 (pvr 004e 1202)\n\n" % c.lid)
        out.append("timebase\t: 512000000\nplatform\t: PowerNV\nmodel\t\t: 9006-22P\n"
                   "machine\t\t: PowerNV 9006-22P\nfirmware\t: OPAL\nMMU\t\t: Radix\n")
    elif arch == "sparc":
        # one block for the machine: no per-CPU sections, a clock line and
        # a state line per CPU
        sun4v = "sun4v" in m["kinds"]
        out.append("cpu\t\t: %s\nfpu\t\t: %s\npmu\t\t: %s\nprom\t\t: OBP 4.30.4 2009/08/19 07:24\n"
                   "type\t\t: %s\nncpus probed\t: %d\nncpus active\t: %d\n"
                   "D$ parity tl1\t: 0\nI$ parity tl1\t: 0\n"
                   "cpucaps\t\t: flush,stbar,swap,muldiv,v9,mul32,div32,v8plus,vis\n"
                   % ("UltraSparc T2 (Niagara2)" if sun4v else "TI UltraSparc II  (BlackBird)",
                      "UltraSparc T2 integrated FPU" if sun4v else "UltraSparc II integrated FPU",
                      "niagara2" if sun4v else "ultra12", "sun4v" if sun4v else "sun4u",
                      len(cpus), len(on)))
        for c in on:
            out.append("Cpu%dClkTck\t: 000000000ec82e00\n" % c.lid)
        out.append("MMU Type\t: %s\nMMU PGSZs\t: 8K,64K,512K,4MB\nState:\n"
                   % ("Hypervisor (sun4v)" if sun4v else "Spitfire"))
        for c in on:
            out.append("CPU%d:\t\tonline\n" % c.lid)
    else:
        smt = max(c.thread for c in cpus) + 1
        out.append("vendor_id       : IBM/S390\n# processors    : %d\n"
                   "bogomips per cpu: 3033.00\n" % len(on))
        if m["s390_new"]:
            out.append("max thread id   : %d\n" % (smt - 1))
        out.append("features\t: esan3 zarch stfle msa ldisp eimm dfp edat etf3eh highgprs te vx \n")
        if m["s390_new"]:
            out.append("facilities      : 0 1 2 3 4 6 7 8 9 10 12 14 15 16 17 18 19 20\n"
                       "cache0          : level=1 type=Data scope=Private size=128K "
                       "line_size=256 associativity=8\n"
                       "cache1          : level=1 type=Instruction scope=Private size=128K "
                       "line_size=256 associativity=8\n")
        for c in on:
            out.append("processor %d: version = FF,  identification = 0133E8,  "
                       "machine = 2964\n" % c.lid)
        if m["s390_new"]:
            for c in on:
                pkg = [t for t in on if t.pkg_idx == c.pkg_idx]
                out.append("\ncpu number      : %d\nphysical id     : %d\ncore id         : %d\n"
                           "book id         : %d\ndrawer id       : %d\ndedicated       : 0\n"
                           "address         : %d\nsiblings        : %d\ncpu cores       : %d\n"
                           "version         : FF\nidentification  : 0133E8\n"
                           "machine         : 2964\ncpu MHz dynamic : 5000\n"
                           "cpu MHz static  : 5000\n"
                           % (c.lid, c.pkg, c.core_id, c.book, c.drawer,
                              c.core_id + c.thread, len(pkg),
                              len({t.core_id for t in pkg})))
    return "".join(out)


# ---- description and sets ----

def describe(m):
    cpus = m["cpus"]
    out = ["kinds: " + " ".join(sorted(m["kinds"]))]
    out.append("arch %s, %d CPUs (%d online, %d possible), numbering %s, nodes cut at %s"
               % (m["arch"], len(cpus), sum(c.online for c in cpus), m["possible"],
                  m["order"], m["node_level"]))
    for pi, pkg in enumerate(m["packages"]):
        out.append("  package %d (id %d): cores %s" % (
            pi, pkg[0][0].pkg, " ".join(
                "[%s]" % ",".join(("%d" if t.online else "(%d)") % t.lid for t in core)
                for core in pkg)))
    seen = set()
    for c in cpus:
        for k in c.caches:
            if id(k) in seen or k.level < 2:
                continue
            seen.add(id(k))
    byl = {}
    for c in cpus:
        for k in c.caches:
            if k.level >= 2:
                byl.setdefault(k.level, {})[id(k)] = k
    for lv in sorted(byl):
        out.append("  L%d: %s" % (lv, " ".join(
            "{%s}" % clist(t.lid for t in k.cpus) for k in byl[lv].values())))
    for n in m["nodes"]:
        out.append("  node %d: cpus {%s}, %d MB" % (n["id"], clist(n["cpus"]), n["mem_mb"]))
    return "\n".join(out)


def sets(m, limit=None):
    r = random.Random("genmachine-sets-%s" % m["seed"])
    on = [c for c in m["cpus"] if c.online]
    lids = [c.lid for c in on]
    shapes = []
    c = r.choice(on)
    shapes.append(("one-cpu", [c.lid]))
    core = [t.lid for t in on if t.pkg_idx == c.pkg_idx and t.core_id == c.core_id
            and t.die == c.die]
    shapes.append(("core", core))
    firsts = {}
    for t in on:
        firsts.setdefault((t.pkg_idx, t.die, t.core_id), t.lid)
    shapes.append(("thread-per-core", sorted(firsts.values())))
    withcpus = [n for n in m["nodes"] if any(x in set(lids) for x in n["cpus"])]
    nd = r.choice(withcpus)
    shapes.append(("node", [x for x in nd["cpus"] if x in set(lids)]))
    shapes.append(("package", [t.lid for t in on if t.pkg_idx == c.pkg_idx]))
    pk = sorted({t.pkg_idx for t in on})
    if len(pk) > 1:
        a, b = r.sample(pk, 2)
        pa = [t.lid for t in on if t.pkg_idx == a]
        pb = [t.lid for t in on if t.pkg_idx == b]
        shapes.append(("across-packages", sorted(pa[-2:] + pb[:2])))
    k = r.randint(2, max(2, len(lids) // 2)) if len(lids) > 2 else len(lids)
    shapes.append(("sparse", sorted(r.sample(lids, min(k, len(lids))))))
    shapes.append(("first-last", sorted({lids[0], lids[-1]})))
    shapes.append(("all", lids))
    # no duplicate sets
    seen, out = set(), []
    for name, cs in shapes:
        key = tuple(sorted(cs))
        if key and key not in seen:
            seen.add(key)
            out.append((name, sorted(cs)))
    if limit is not None and len(out) > limit:
        out = r.sample(out, limit)
    return out


def verify(m, root):
    """The machine as hwloc and lscpu read it natively is the one drawn:
    its online PUs, packages, cores, L2 and L3 caches and NUMA nodes, and
    lscpu's node, socket and core of every online CPU. Returns a list of
    differences (empty: faithful)."""
    import subprocess
    import xml.etree.ElementTree as ET
    bad = []
    on = [c for c in m["cpus"] if c.online]
    env = dict(os.environ, HWLOC_FSROOT=root, HWLOC_COMPONENTS="-x86")
    env.pop("LD_PRELOAD", None)
    p = subprocess.run(["lstopo-no-graphics", "--of", "xml", "-"], env=env,
                       capture_output=True, text=True)
    if p.returncode != 0 or p.stderr.strip():
        bad.append("lstopo: status %d, stderr %r" % (p.returncode, p.stderr[:2000]))
        return bad
    x = ET.fromstring(p.stdout)

    def cpus_of(o):
        v = o.get("cpuset")
        n = 0
        for g in v.split(","):
            n = (n << 32) | (int(g, 16) if g else 0)
        return frozenset(i for i in range(n.bit_length()) if n >> i & 1)

    def objs(t, attr=None):
        return [o for o in x.iter("object") if o.get("type") == t and
                (attr is None or all(o.get(k) == v for k, v in attr.items()))]

    def want(sets):
        return sorted(sorted(s) for s in {frozenset(s) for s in sets} if s)

    def have(os_):
        return sorted(sorted(cpus_of(o)) for o in os_)

    def cmp(what, h, w):
        if h != w:
            bad.append("%s: hwloc %s, drawn %s" % (what, h, w))

    cmp("PUs", sorted(int(o.get("os_index")) for o in objs("PU")), sorted(c.lid for c in on))
    cmp("packages", have(objs("Package")),
        want([c.lid for c in on if c.pkg_idx == i] for i in range(len(m["packages"]))))
    cores = {}
    for c in on:
        cores.setdefault((c.pkg_idx, c.die, c.core_id), []).append(c.lid)
    cmp("cores", have(objs("Core")), want(cores.values()))
    for lv in (2, 3):
        ks = {}
        for c in on:
            for k in c.caches:
                if k.level == lv:
                    ks[id(k)] = [t.lid for t in k.cpus if t.online]
        cmp("L%d caches" % lv, have(objs("L%dCache" % lv)), want(ks.values()))
    online_set = {c.lid for c in on}
    for nd in m["nodes"]:
        o = objs("NUMANode", {"os_index": str(nd["id"])})
        if len(o) != 1:
            bad.append("node %d: %d objects in hwloc" % (nd["id"], len(o)))
            continue
        w = sorted(c for c in nd["cpus"] if c in online_set)
        if w:
            cmp("node %d" % nd["id"], sorted(cpus_of(o[0])), w)
        if int(o[0].get("local_memory", 0)) != nd["mem_mb"] << 20:
            bad.append("node %d: memory %s" % (nd["id"], o[0].get("local_memory")))
    cmp("nodes", sorted(int(o.get("os_index")) for o in objs("NUMANode")),
        sorted(n["id"] for n in m["nodes"]))
    p = subprocess.run(["lscpu", "--sysroot", root, "-p=cpu,node,socket,core"], env=env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        bad.append("lscpu: status %d, stderr %r" % (p.returncode, p.stderr[:2000]))
        return bad
    rows = {}
    for l in p.stdout.splitlines():
        if not l.startswith("#"):
            f = l.split(",")
            rows[int(f[0])] = f[1:]
    by = {c.lid: c for c in on}
    if sorted(rows) != sorted(by):
        bad.append("lscpu CPUs %s, drawn %s" % (clist(rows), clist(by)))
        return bad
    for lid, (node, sock, core) in rows.items():
        if node != ("" if m["no_node_dir"] else str(by[lid].node)):
            bad.append("lscpu: CPU %d in node %s, drawn %d" % (lid, node, by[lid].node))
    # lscpu numbers sockets itself, among the CPUs of one of its types (a
    # run of alike cpuinfo blocks, compare.cpu_types): in a type, same
    # socket, same package; two types each number theirs from 0
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from compare import cpu_types
    kind = cpu_types(root)
    for a in by:
        for b in by:
            if a < b and kind.get(a) == kind.get(b):
                sp = by[a].pkg_idx == by[b].pkg_idx
                if (rows[a][1] == rows[b][1]) != sp:
                    bad.append("lscpu: CPUs %d and %d socket %s/%s" % (
                        a, b, rows[a][1], rows[b][1]))
                    return bad
    return bad


def main():
    a = sys.argv[1:]
    if len(a) in (3, 5) and a[0] == "make" and (len(a) == 3 or a[3] == "--online"):
        m = draw(a[1])
        if len(a) == 5:
            # the same machine with only these CPUs online, as the kernel
            # shows it after the others went offline
            try:
                keep = set(parse_list(a[4]))
            except ValueError:
                sys.stderr.write("genmachine: --online: not a CPU list: %r\n" % a[4])
                sys.exit(2)
            for c in m["cpus"]:
                c.online = c.online and c.lid in keep
        if os.path.exists(a[2]):
            sys.stderr.write("genmachine: %s exists\n" % a[2])
            sys.exit(2)
        write(m, a[2])
        return
    if len(a) == 2 and a[0] == "describe":
        print(describe(draw(a[1])))
        return
    if len(a) in (2, 3) and a[0] == "sets":
        if len(a) == 3 and not a[2].isdigit():
            sys.stderr.write("genmachine: sets: N is a number, not %r\n" % a[2])
            sys.exit(2)
        for name, cs in sets(draw(a[1]), int(a[2]) if len(a) == 3 else None):
            print(name, clist(cs))
        return
    if len(a) == 3 and a[0] == "verify":
        bad = verify(draw(a[1]), a[2])
        for b in bad:
            print(b)
        sys.exit(1 if bad else 0)
    sys.stderr.write(__doc__)
    sys.exit(2)


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:  # a reader that stopped early (| head)
        sys.exit(0)
