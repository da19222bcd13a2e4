#!/usr/bin/python3
"""Compare what a tool reports inside a set with what the tool's own
restriction of the captured machine reports (tests/topo/).

  compare.py hwloc  ROOT CPULIST GOT.xml   lstopo --of xml inside the set vs
                                           HWLOC_FSROOT=ROOT lstopo --restrict
  compare.py lscpu  FULL CPULIST GOT [ROOT]
                                           lscpu -p or -e inside the set vs
                                           FULL (the same on the whole
                                           machine) restricted to the set
                                           (ROOT: the machine, whose cache id
                                           files lscpu shows as they are)
  compare.py numactl FULL CPULIST GOT [FULLCPUS]
                                           numactl --hardware, the same way (FULL
                                           made in the set FULLCPUS, if given)
  compare.py shapes ROOT                   the sets to try on ROOT ("all": every
                                           online CPU)
  compare.py cpu-node ROOT CPULIST         "v,node" of each virtual CPU
  compare.py node-of-cpu ROOT CPULIST      under the shim: libnuma's node of each
                                           virtual CPU is its physical CPU's

CPULIST: the set's physical CPUs ("0,1,5,40-47"). The only difference
allowed is the CPUs' numbers, renumbered 0..n-1 in ascending order (and
the ids lscpu makes up itself, which it numbers in order of appearance).
Exit 0 when equal, 1 with a diff when not, 2 on bad input.
"""
import difflib
import os
import subprocess
import sys
import xml.etree.ElementTree as ET


def cpulist(s):
    out = set()
    for item in s.strip().split(","):
        if not item:
            continue
        if "-" in item:
            a, b = item.split("-")
            out.update(range(int(a), int(b) + 1))
        else:
            out.add(int(item))
    return sorted(out)


def hwloc_bitmap(cpus):
    m = 0
    for c in cpus:
        m |= 1 << c
    groups = []
    while True:
        groups.append("0x%08x" % (m & 0xFFFFFFFF))
        m >>= 32
        if not m:
            break
    return ",".join(reversed(groups))


def parse_bitmap(s):
    """hwloc's "0xf...f,0x00000003" form; an infinite set is refused."""
    if s.startswith("0xf...f"):
        raise ValueError("infinite bitmap " + s)
    m = 0
    for g in s.split(","):  # an empty group is a zero one
        m = (m << 32) | (int(g, 16) if g else 0)
    return {i for i in range(m.bit_length()) if m >> i & 1}


def fail(what, want, got):
    sys.stdout.writelines(difflib.unified_diff(
        want, got, "restriction of the captured machine", "inside the set", lineterm="\n"))
    print("MISMATCH: " + what)
    sys.exit(1)


# ---- hwloc ----

SKIP_ATTRS = {"gp_index"}
CPU_ATTRS = {"cpuset", "complete_cpuset", "allowed_cpuset"}
SKIP_INFOS = {"ProcessName"}


def norm_hwloc(xml_text, rank, cpuless_nodes=None):
    """One line per element, indented by depth: type, attributes with CPU
    sets mapped through rank (physical -> virtual), PU numbers too; and
    the numbers of the NUMA nodes without CPUs (cpuless_nodes: take these
    as the ones, as the restriction says)."""
    root = ET.fromstring(xml_text)

    def cpus(v):
        try:
            bits = parse_bitmap(v)
        except ValueError:
            return v
        missing = [b for b in bits if b not in rank]
        if missing:
            return "OUTSIDE-SET%s" % sorted(missing)
        return ",".join(str(x) for x in sorted(rank[b] for b in bits))

    def walk(e, depth):
        """The element's lines. Children without CPUs (CPU-less NUMA nodes
        and their groups) come last, sorted: hwloc's restriction keeps
        them where they were, a discovery sorts them by node."""
        if e.tag == "info" and e.get("name") in SKIP_INFOS:
            return []
        attrs = []
        for k in sorted(e.attrib):
            v = e.attrib[k]
            if k in SKIP_ATTRS:
                continue
            if k in CPU_ATTRS:
                v = cpus(v)
            elif k == "os_index" and e.get("type") == "PU":
                v = str(rank.get(int(v), "OUTSIDE-SET" + v))
            attrs.append("%s=%s" % (k, v))
        out = ["  " * depth + e.tag + " " + " ".join(attrs) + "\n"]
        with_cpus, cpuless = [], []
        # infos and attributes before objects (a canon step may have
        # moved an object to the front), memory first among the objects
        # and by number (a discovery sorts them, a restriction keeps the
        # whole machine's order)
        objs = [c for c in e if c.tag == "object"]
        mem = sorted((c for c in objs if c.get("type") in MEMORY),
                     key=lambda c: int(c.get("os_index", "0")))
        for c in ([c for c in e if c.tag != "object"] + mem
                  + [c for c in objs if c.get("type") not in MEMORY]):
            block = walk(c, depth + 1)
            if c.tag == "object" and c.get("cpuset") in ("0x0", "0x00000000"):
                cpuless.append(block)
            else:
                with_cpus.append(block)
        for b in with_cpus + sorted(cpuless):
            out.extend(b)
        return out

    cpuless = drop_cpuless(root, cpuless_nodes)
    canon_memory(root)
    canon_dies(root)
    canon_caches(root)
    canon_cpukinds(root)
    canon_books(root)
    return (["cpu-less NUMA nodes: %s\n" % cpuless] + walk(root, 0),
            {i for i, _ in cpuless})


def canon_dies(root):
    """A Die or a Group that is its parent (its parent's CPUs and nodes,
    its only child), or a Die of a single CPU: a restriction keeps it (the
    whole machine has several dies, of several CPUs), a discovery of the
    restricted machine makes none (as hwloc does on the same machine with
    the other CPUs offline, or makes it where the restriction does not).
    It goes, its children take its place."""
    def one_cpu(o):
        try:
            return len(parse_bitmap(o.get("cpuset"))) == 1
        except ValueError:
            return False

    changed = True
    while changed:
        changed = False
        for parent in root.iter("object"):
            kids = [c for c in parent if c.tag == "object" and c.get("type") not in MEMORY]
            dies = [d for d in kids if d.get("type") in ("Die", "Group") and (
                d.get("type") == "Die" and one_cpu(d) or (
                    len(kids) == 1 and d.get("cpuset") == parent.get("cpuset")
                    and d.get("nodeset") == parent.get("nodeset")))]
            if dies:
                d = dies[0]
                at = list(parent).index(d)
                parent.remove(d)
                for j, x in enumerate([x for x in d if x.tag == "object"]):
                    parent.insert(at + j, x)
                changed = True
                break


def canon_books(root):
    """A book and its drawer with the same CPUs (s390): hwloc keeps one
    Group of the two, the drawer in a restriction, the book in a
    discovery of the restricted machine (as on the same machine with the
    other CPUs offline). Such groups are compared by their CPUs only."""
    for o in root.iter("object"):
        if o.get("type") == "Group" and o.get("subtype") in ("Book", "Drawer"):
            for k in ("subtype", "subkind", "os_index", "kind"):
                o.attrib.pop(k, None)
            o.set("subtype", "Book-or-Drawer")


def canon_cpukinds(root):
    """One kind of CPU left in the set: a restriction keeps the
    efficiency ranking of the whole machine's kinds, a discovery of the
    restricted machine has nothing to rank."""
    kinds = root.findall("cpukind")
    if len(kinds) == 1:
        kinds[0].attrib.pop("forced_efficiency", None)


def canon_caches(root):
    """Caches (and a core) with the same CPUs one above the other: a
    restriction keeps the order of the whole machine (an L1i shared by two
    cores above each core's L1d; a core above its threads' private
    caches), a discovery of the restricted machine sorts them (L1d above
    L1i, caches above the core). Put every such chain in the discovery's
    order."""
    def order(o):
        if o.get("type") == "Core":
            return (0, 0)
        return (-int(o.get("depth", "0")), int(o.get("cache_type", "0")))

    def chained(o):
        return o.get("type", "").endswith("Cache") or o.get("type") == "Core"

    def swap(a, b):
        aa, ba = dict(a.attrib), dict(b.attrib)
        ai = [c for c in a if c.tag != "object"]
        bi = [c for c in b if c.tag != "object"]
        a.attrib.clear(); a.attrib.update(ba)
        b.attrib.clear(); b.attrib.update(aa)
        for c in ai:
            a.remove(c)
        for c in bi:
            b.remove(c)
        for j, c in enumerate(bi):
            a.insert(j, c)
        for j, c in enumerate(ai):
            b.insert(j, c)

    changed = True
    while changed:
        changed = False
        for o in root.iter("object"):
            if not chained(o):
                continue
            kids = [c for c in o if c.tag == "object"]
            if (len(kids) == 1 and chained(kids[0])
                    and kids[0].get("cpuset") == o.get("cpuset")
                    and order(kids[0]) < order(o)):
                swap(o, kids[0])
                changed = True


EMPTY = ("0x0", "0x00000000", "")


def drop_cpuless(root, known=None):
    """NUMA nodes with no CPU of the set are where hwloc's heuristics put
    memory-only nodes, which a restriction (that keeps them where they
    were) and a discovery (that attaches them by locality) place
    differently: they are compared as a list (number, memory), and taken
    out of the tree and of every nodeset with the objects left without
    CPUs."""
    nodes, with_cpus = [], 0
    for o in root.iter("object"):
        if o.get("type") == "NUMANode":
            i = int(o.get("os_index"))
            # a discovery gives a node without CPUs the CPUs of where it
            # attached it: which nodes have none is the restriction's word
            if (i in known) if known is not None else o.get("cpuset") in EMPTY:
                nodes.append((i, o.get("local_memory")))
            else:
                with_cpus |= 1 << i

    def gone(c):
        if c.tag != "object":
            return False
        if c.get("type") == "NUMANode":
            return not with_cpus >> int(c.get("os_index")) & 1
        return c.get("cpuset") in EMPTY

    def prune(e):
        for c in list(e):
            if gone(c):
                e.remove(c)
            else:
                prune(c)
    prune(root)
    for o in root.iter("object"):
        for k in ("nodeset", "complete_nodeset", "allowed_nodeset"):
            if k in o.attrib:
                bits = parse_bitmap(o.get(k)) if not o.get(k).startswith("0xf...f") else set()
                o.set(k, ",".join(str(b) for b in sorted(bits) if with_cpus >> b & 1))
    return sorted(nodes)


MEMORY = ("NUMANode", "MemCache")


def canon_memory(e):
    """Structure hwloc's restriction keeps but a discovery of the same
    machine does not make: a Group with the CPUs and nodes of its only
    child is dropped, and memory hangs from the deepest object that has
    exactly its parent's CPUs and nodes (where a discovery attaches it)."""
    def key(o):
        return (o.get("cpuset"), o.get("nodeset"))

    def normal(o):
        return [c for c in o if c.tag == "object" and c.get("type") not in MEMORY + ("Misc",)
                and not c.get("type", "").endswith("Dev")]

    changed = True
    while changed:
        changed = False
        for parent in e.iter():
            kids = list(parent)
            for i, c in enumerate(kids):
                if c.tag != "object":
                    continue
                n = normal(c)
                if len(n) != 1 or key(n[0]) != key(c):
                    continue
                mem = [m for m in c if m.tag == "object" and m.get("type") in MEMORY]
                if c.get("type") == "Group":
                    # the Group goes, its child takes its place and memory
                    parent.remove(c)
                    for j, m in enumerate(mem):
                        c.remove(m)
                        n[0].insert(j, m)
                    parent.insert(i, n[0])
                    changed = True
                    break
                if mem:
                    for j, m in enumerate(mem):
                        c.remove(m)
                        n[0].insert(j, m)
                    changed = True
                    break
            if changed:
                break


def cmd_hwloc(root, cpus, got_path):
    env = dict(os.environ, HWLOC_FSROOT=root)
    env.pop("LD_PRELOAD", None)
    ref = subprocess.run(
        ["lstopo-no-graphics", "--restrict", hwloc_bitmap(cpus), "--of", "xml", "-"],
        env=env, capture_output=True, text=True, check=True).stdout
    with open(got_path) as f:
        got = f.read()
    want, known = norm_hwloc(ref, {p: v for v, p in enumerate(cpus)})
    have, _ = norm_hwloc(got, {v: v for v in range(len(cpus))}, known)
    if want != have:
        fail("hwloc topology of %s in %s" % (root, ",".join(map(str, cpus))), want, have)


# ---- lscpu -p / -e ----

def renumber_rows(header, rows, cpus, keep_cache=False):
    """rows: lists of column strings, the first the CPU. Keeps the set's
    rows, CPU -> virtual, and each made-up id column renumbered in order
    of first appearance (lscpu numbers its ids that way); NODE and the
    ONLINE/MHz columns kept."""
    rank = {p: v for v, p in enumerate(cpus)}
    kept = [r for r in rows if int(r[0]) in rank]
    if len(kept) != len(cpus):
        raise SystemExit("full output lacks CPUs of the set")
    out = [[str(rank[int(r[0])])] + r[1:] for r in kept]
    for col, name in enumerate(header):
        if col == 0 or name.upper() not in ("CORE", "SOCKET", "BOOK", "DRAWER", "CLUSTER",
                                            "L1D", "L1I", "L2", "L3", "CACHE"):
            continue
        if keep_cache and name.upper() in ("L1D", "L1I", "L2", "L3", "CACHE"):
            continue
        seen = {}
        for r in out:
            parts = r[col].split(":")
            new = []
            for i, p in enumerate(parts):
                if p in ("", "-"):
                    new.append(p)
                    continue
                key = (i, p)
                if key not in seen:
                    seen[key] = str(len([k for k in seen if k[0] == i]))
                new.append(seen[key])
            r[col] = ":".join(new)
    return out


def has_cache_ids(root):
    """lscpu shows a cache's id file where the machine has one (a
    hardware id, kept as it is) and numbers the caches itself where not."""
    d = os.path.join(root, "sys/devices/system/cpu")
    for e in os.listdir(d):
        if e.startswith("cpu") and e[3:].isdigit() and os.path.isdir(os.path.join(d, e, "cache")):
            for i in os.listdir(os.path.join(d, e, "cache")):
                if os.path.exists(os.path.join(d, e, "cache", i, "id")):
                    return True
    return False


def cmd_lscpu(full_path, cpus, got_path, root=None):
    """root: the machine; where its caches have id files, lscpu's cache
    columns are those ids, compared as they are."""
    keep_cache = root is not None and has_cache_ids(root)
    with open(full_path) as f:
        full = f.read().splitlines()
    with open(got_path) as f:
        got = [l + "\n" for l in f.read().splitlines()]
    if full and full[0].startswith("#"):
        # -p: comments, then the header as a comment, then CSV rows
        comments = [l for l in full if l.startswith("#")]
        header = comments[-1][2:].split(",")
        rows = [l.split(",") for l in full if not l.startswith("#")]
        out = renumber_rows(header, rows, cpus, keep_cache)
        want = [l + "\n" for l in comments] + [",".join(r) + "\n" for r in out]
    else:
        header = full[0].split()
        cache_col = [i for i, h in enumerate(header) if ":" in h]
        rows = [l.split() for l in full[1:]]
        names = ["CACHE" if i in cache_col else h for i, h in enumerate(header)]
        out = renumber_rows(names, rows, cpus, keep_cache)
        # lscpu -e pads its columns; compare the cells, not the spacing
        want = [" ".join(header) + "\n"] + [" ".join(r) + "\n" for r in out]
        got = [" ".join(l.split()) + "\n" for l in got]
    if want != got:
        fail("lscpu of %s" % ",".join(map(str, cpus)), want, got)


# ---- numactl --hardware ----

def cmd_numactl(full_path, cpus, got_path, full_cpus=None):
    """full_cpus: the full output was itself made in a set of these
    (physical) CPUs, so its numbers are theirs renumbered."""
    rank = {p: v for v, p in enumerate(cpus)}
    phys = dict(enumerate(full_cpus)) if full_cpus else None
    want = []
    with open(full_path) as f:
        for l in f:
            w = l.split()
            if len(w) >= 3 and w[0] == "node" and w[2] == "cpus:":
                cs = [phys[int(c)] if phys else int(c) for c in w[3:]]
                kept = [str(rank[c]) for c in cs if c in rank]
                l = "node %s cpus:%s\n" % (w[1], "".join(" " + c for c in kept))
            want.append(l)
    with open(got_path) as f:
        got = f.readlines()
    # the free memory of a node is read at each run: compare the others
    def stable(lines):
        return [l for l in lines if not (l.startswith("node ") and " free: " in l)]
    if stable(want) != stable(got):
        fail("numactl --hardware in %s" % ",".join(map(str, cpus)), stable(want), stable(got))


# ---- the sets tried on a captured machine ----

def read(root, rel):
    try:
        with open(os.path.join(root, rel.lstrip("/"))) as f:
            return f.read().strip()
    except OSError:
        return None


def mask_cpus(text):
    return sorted(parse_bitmap(",".join("0x" + g for g in text.split(","))))


def online_cpus(root):
    d = os.path.join(root, "sys/devices/system/cpu")
    out = []
    for e in os.listdir(d):
        if e.startswith("cpu") and e[3:].isdigit():
            c = int(e[3:])
            if read(root, "sys/devices/system/cpu/%s/online" % e) == "0":
                continue
            if read(root, "sys/devices/system/cpu/%s/topology/core_id" % e) is None:
                continue
            out.append(c)
    return sorted(out)


def siblings(root, cpu, name):
    t = read(root, "sys/devices/system/cpu/cpu%d/topology/%s" % (cpu, name))
    return mask_cpus(t)


def cmd_shapes(root):
    """name cpulist, one set a line: one core's hyperthreads, one whole
    package, CPUs of two NUMA nodes, every other CPU, a sparse pick."""
    on = online_cpus(root)
    c = on[len(on) // 3]
    for x in on:  # a core with hyperthreads, where there are some
        if len([y for y in siblings(root, x, "thread_siblings") if y in on]) > 1:
            c = x
            break
    shapes = [("core", [y for y in siblings(root, c, "thread_siblings") if y in on]),
              ("package", [y for y in siblings(root, c, "core_siblings") if y in on])]
    nodes = []
    nd = os.path.join(root, "sys/devices/system/node")
    for e in sorted(os.listdir(nd)) if os.path.isdir(nd) else []:
        if e.startswith("node") and e[4:].isdigit():
            cs = [x for x in mask_cpus(read(root, "sys/devices/system/node/%s/cpumap" % e))
                  if x in on]
            if cs:
                nodes.append((int(e[4:]), cs))
    nodes.sort()
    if len(nodes) >= 2:
        shapes.append(("two-nodes", nodes[0][1][-2:] + nodes[1][1][:3]))
    shapes.append(("every-other", on[::2]))
    # sparse, and given out of order to whoever makes the set
    pick = [on[-1], on[3], on[len(on) // 2 + 1], on[1]]
    shapes.append(("sparse", pick))
    shapes.append(("all", on))
    for name, cs in shapes:
        print(name, ",".join(str(x) for x in cs))


def cmd_cpu_node(root, cpus):
    """"v,K" for each virtual CPU v: K the node whose cpumap holds p(v)
    (what lscpu -p=cpu,node prints for the set's machine)."""
    node_of = {}
    nd = os.path.join(root, "sys/devices/system/node")
    for e in os.listdir(nd):
        if e.startswith("node") and e[4:].isdigit():
            for c in mask_cpus(read(root, "sys/devices/system/node/%s/cpumap" % e)):
                node_of[c] = int(e[4:])
    for v, p in enumerate(cpus):
        print("%d,%d" % (v, node_of[p]))


def cmd_node_of_cpu(root, cpus):
    """Run under the shim: libnuma's numa_node_of_cpu(v) for each virtual
    CPU v is the node whose cpumap holds physical CPU p(v)."""
    import ctypes
    numa = ctypes.CDLL("libnuma.so.1")
    if numa.numa_available() < 0:
        print("numa_available() < 0")
        sys.exit(1)
    node_of = {}
    nd = os.path.join(root, "sys/devices/system/node")
    for e in os.listdir(nd):
        if e.startswith("node") and e[4:].isdigit():
            for c in mask_cpus(read(root, "sys/devices/system/node/%s/cpumap" % e)):
                node_of[c] = int(e[4:])
    bad = 0
    for v, p in enumerate(cpus):
        got = numa.numa_node_of_cpu(v)
        if got != node_of.get(p, -1):
            print("virtual CPU %d (physical %d): node %d, want %d" % (v, p, got, node_of.get(p, -1)))
            bad = 1
    if numa.numa_node_of_cpu(len(cpus)) != -1:
        print("virtual CPU %d (beyond the set) has a node" % len(cpus))
        bad = 1
    sys.exit(bad)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "shapes":
        return cmd_shapes(sys.argv[2])
    if len(sys.argv) == 4 and sys.argv[1] == "cpu-node":
        return cmd_cpu_node(sys.argv[2], cpulist(sys.argv[3]))
    if len(sys.argv) == 4 and sys.argv[1] == "node-of-cpu":
        return cmd_node_of_cpu(sys.argv[2], cpulist(sys.argv[3]))
    if len(sys.argv) == 6 and sys.argv[1] == "numactl":
        return cmd_numactl(sys.argv[2], cpulist(sys.argv[3]), sys.argv[4], cpulist(sys.argv[5]))
    if len(sys.argv) == 6 and sys.argv[1] == "lscpu":
        return cmd_lscpu(sys.argv[2], cpulist(sys.argv[3]), sys.argv[4], sys.argv[5])
    if len(sys.argv) != 5 or sys.argv[1] not in ("hwloc", "lscpu", "numactl"):
        sys.stderr.write(__doc__)
        sys.exit(2)
    cpus = cpulist(sys.argv[3])
    {"hwloc": cmd_hwloc, "lscpu": cmd_lscpu, "numactl": cmd_numactl}[sys.argv[1]](
        sys.argv[2], cpus, sys.argv[4])


if __name__ == "__main__":
    main()
