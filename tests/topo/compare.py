#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare what a tool reports inside a set with what the tool's own
restriction of the captured machine reports (tests/topo/).

  compare.py hwloc  ROOT CPULIST GOT.xml   lstopo --of xml inside the set vs
                                           HWLOC_FSROOT=ROOT lstopo --restrict
  compare.py lscpu  FULL CPULIST GOT [ROOT] lscpu -p or -e inside the set vs
                                           FULL (the same on the whole
                                           machine) restricted to the set
                                           (ROOT: the machine, whose cache
                                           ids lscpu -p may print)
  compare.py lscpu-nodes FULL CPULIST GOT ROOT NODES
                                           the same in a set whose memory
                                           nodes are NODES: the NODE column
                                           by their ranks
  compare.py lscpu-numa ROOT CPULIST NODES GOT
                                           lscpu's NUMA lines in that set:
                                           the count, each node's CPUs
  compare.py numactl FULL CPULIST GOT [FULLCPUS]
                                           numactl --hardware, the same way (FULL
                                           made in the set FULLCPUS, if given;
                                           "native": by numactl itself, no shim)
  compare.py shapes ROOT                   the sets to try on ROOT ("all": every
                                           online CPU)
  compare.py cpu-node ROOT CPULIST         "v,node" of each virtual CPU
  compare.py top-files ROOT CPULIST        the CPU directory's own list files
                                           in the set (name, text)
  compare.py read-top ROOT                 under the shim: the same files read
                                           in every spelling
  compare.py node-of-cpu WANT              under the shim: libnuma's node of each
                                           virtual CPU is what WANT (cpu-node's
                                           output) says
  compare.py counts ROOT CPULIST           "cores N" (the set's distinct cores),
                                           "siblings ..." and "cpu-cores ..."
                                           (per package: its CPUs and its
                                           cores in the set, each value once)
  compare.py node-of ROOT CPULIST          the node of each CPU of the set, from
                                           ROOT's node cpumaps (-1: none)
  compare.py entries ROOT CPULIST DIR...   the cpuN entries each DIR (below ROOT)
                                           must list in the set: its own,
                                           restricted and renumbered
                                           ("ENOENT": no such directory)
  compare.py cpuinfo ROOT CPULIST GOT     /proc/cpuinfo read in the set: the
                                           set's blocks, each of its CPU's
                                           type, numbered 0..n-1, its ids
                                           as the ids rule says; the
                                           header's CPU lines and counts
  compare.py file-list ROOT CPULIST       each list and mask file of the set's
                                           CPU, topology and cache directories
                                           as the program names them
  compare.py read-files PATHS              under the shim: "PATH: TEXT" of each
                                           file the file PATHS lists
  compare.py cpu-files ROOT CPULIST GOT    those lines (GOT) as view says
  compare.py names LIST                    "cpu0 cpu1 ..." of a CPU list
  compare.py view ROOT CPULIST PATH...     what each file PATH (as the program
                                           names it, virtual CPUs, without
                                           ROOT) must read in the set, from
                                           ROOT's real files: "PATH: TEXT",
                                           TEXT "ENOENT" where it must not
                                           exist (the real file is missing,
                                           or the CPU is beyond the set)

CPULIST: the set's physical CPUs ("0,1,5,40-47"). The only difference
allowed is the CPUs' numbers, renumbered 0..n-1 in ascending order (and
the ids lscpu makes up itself, which it numbers in order of appearance).
Exit 0 when equal, 1 with a diff when not, 2 on bad input.
"""
import difflib
import os
import re
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


def loose_cores(root, cpus):
    """The set's CPUs (virtual numbers) whose core's threads disagree on
    their core_id (a hypervisor's quirk): hwloc names such a core by the
    core_id of its first thread, which a restriction takes from the whole
    machine and a discovery of the set from the set's first thread, so
    its number is not compared (the views keep each CPU's own core_id)."""
    on = set(cpus)
    out = set()
    for v, x in enumerate(cpus):
        sib = None
        for n in ("thread_siblings", "core_cpus"):
            t = read(root, "sys/devices/system/cpu/cpu%d/topology/%s" % (x, n))
            if t and t.strip("\0\n "):
                sib = mask_cpus(t.strip("\0\n "))
                break
        ids = {read(root, "sys/devices/system/cpu/cpu%d/topology/core_id" % y) for y in (sib or [x])}
        if len(ids) > 1:
            out.add(v)
    return out


def norm_hwloc(xml_text, rank, cpuless_nodes=None, loose=frozenset()):
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
            elif k == "os_index" and e.get("type") == "Core" and loose:
                mine = cpus(e.get("cpuset", ""))
                if any(c.isdigit() and int(c) in loose for c in mine.split(",")):
                    v = "(its threads' core ids disagree)"
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
        holds_node = any(c.tag == "object" and c.get("type") == "NUMANode" for c in o)
        if o.get("type") == "Group" and holds_node and (
                o.get("subtype") == "Cluster" or o.get("kind") == "1001"):
            # a cluster that holds a NUMA node, and the group hwloc makes
            # to attach a node (kind 1001, memory), with the same CPUs: a
            # restriction merges
            # the two into the memory group, a discovery of the set makes
            # the cluster and attaches the node to it. Compared by CPUs.
            for k in ("subtype", "subkind", "os_index", "kind"):
                o.attrib.pop(k, None)
            o.set("subtype", "Cluster-or-memory")
        if o.get("type") == "Group" and o.get("subtype") in ("Book", "Drawer"):
            for k in ("subtype", "subkind", "os_index", "kind"):
                o.attrib.pop(k, None)
            o.set("subtype", "Book-or-Drawer")


def canon_cpukinds(root):
    """The kinds of CPU left in the set: a restriction keeps the
    efficiency ranking of the whole machine's kinds, a discovery of the
    restricted machine ranks the ones it has (one kind: nothing to rank)."""
    kinds = root.findall("cpukind")
    if len(kinds) == 1:
        kinds[0].attrib.pop("forced_efficiency", None)
    # several kinds left: a restriction keeps the whole machine's ranks
    # (0 and 2 of three kinds), a discovery ranks the kinds it has (0, 1)
    effs = sorted({int(k.get("forced_efficiency")) for k in kinds
                   if (k.get("forced_efficiency") or "").lstrip("-").isdigit()})
    for k in kinds:
        e = k.get("forced_efficiency")
        if e is not None and e.lstrip("-").isdigit():
            k.set("forced_efficiency", str(effs.index(int(e))))


def canon_caches(root):
    """Caches (and a core, a die, a package) with the same CPUs one above
    the other: a restriction keeps the order of the whole machine (an L1i
    shared by two cores above each core's L1d; a core above its threads'
    private caches; an L3 shared by several packages above the one
    package left), a discovery of the restricted machine sorts them
    (package and die above caches, L1d above L1i, caches above the core).
    Put every such chain in the discovery's order."""
    def order(o):
        if o.get("type") == "Core":
            return (0, 0)
        if o.get("type") in ("Package", "Die"):
            # above every cache with the same CPUs in a discovery (a
            # restriction keeps an L3 that spanned several packages of
            # the whole machine above the one package left)
            return (-1000 if o.get("type") == "Package" else -999, 0)
        return (-int(o.get("depth", "0")), int(o.get("cache_type", "0")))

    def chained(o):
        return o.get("type", "").endswith("Cache") or o.get("type") in ("Core", "Package", "Die")

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
    child, or of its parent (a machine without caches has no level
    between a package and its node's Group), is dropped, and memory hangs
    from the deepest object that has exactly its parent's CPUs and nodes
    (where a discovery attaches it)."""
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
                if (c.get("type") == "Group" and parent.tag == "object"
                        and key(c) == key(parent)):
                    # the Group goes, its children take its place
                    parent.remove(c)
                    for j, g in enumerate(list(c)):
                        parent.insert(i + j, g)
                    changed = True
                    break
                n = normal(c)
                if len(n) != 1 or key(n[0]) != key(c):
                    continue
                mem = [m for m in c if m.tag == "object" and m.get("type") in MEMORY]
                # memory goes first among the children objects, after
                # the infos (as a discovery writes it)
                at = len([x for x in n[0] if x.tag != "object"])
                if c.get("type") == "Group":
                    # the Group goes, its child takes its place and memory
                    parent.remove(c)
                    for j, m in enumerate(mem):
                        c.remove(m)
                        n[0].insert(at + j, m)
                    parent.insert(i, n[0])
                    changed = True
                    break
                if n[0].get("type") == "Group":
                    # a Group with its parent's CPUs and nodes, its
                    # parent's only child: it goes, its children take
                    # its place
                    g = n[0]
                    k = list(c).index(g)
                    c.remove(g)
                    for j, x in enumerate([x for x in g if x.tag == "object"]):
                        c.insert(k + j, x)
                    changed = True
                    break
                if mem:
                    for j, m in enumerate(mem):
                        c.remove(m)
                        n[0].insert(at + j, m)
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
    loose = loose_cores(root, cpus)
    want, known = norm_hwloc(ref, {p: v for v, p in enumerate(cpus)}, None, loose)
    have, _ = norm_hwloc(got, {v: v for v in range(len(cpus))}, known, loose)
    if want != have:
        fail("hwloc topology of %s in %s" % (root, ",".join(map(str, cpus))), want, have)


NODESETS = ("nodeset", "complete_nodeset", "allowed_nodeset")


def renumber_nodes(xml_text, nodes):
    """The XML with each NUMA node numbered by its rank in nodes (the
    set's memory nodes, virtual node v the v-th), in its os_index and in
    every nodeset: what a discovery of the set's view shows."""
    rank = {p: v for v, p in enumerate(nodes)}
    root = ET.fromstring(xml_text)
    for o in root.iter("object"):
        if o.get("type") == "NUMANode":
            o.set("os_index", str(rank[int(o.get("os_index"))]))
        for k in NODESETS:
            v = o.get(k)
            if v is None or v.startswith("0xf...f"):
                continue
            o.set(k, hwloc_bitmap(sorted(rank[b] for b in parse_bitmap(v))))
    # the distance matrices between nodes name them by number
    for d in root.iter("distances2"):
        if d.get("type") != "NUMANode" or d.get("indexing") != "os":
            continue
        for i in d.iter("indexes"):
            nums = i.text.split()
            i.text = "".join(str(rank[int(x)]) + " " for x in nums)
            i.set("length", str(len(i.text)))
    return ET.tostring(root, encoding="unicode")


def cmd_hwloc_nodes(root, cpus, nodes, got_path):
    """lstopo in a set of CPUs cpus and memory nodes nodes against hwloc's
    own restriction of the machine to those CPUs, then to those nodes,
    its nodes renumbered by their ranks. Both sides without hwloc's
    grouping by distances (HWLOC_GROUPING=0): a discovery groups a few
    nodes by their distances where the whole machine's did not."""
    env = dict(os.environ, HWLOC_FSROOT=root, HWLOC_GROUPING="0")
    env.pop("LD_PRELOAD", None)
    by_cpus = subprocess.run(
        ["lstopo-no-graphics", "--restrict", hwloc_bitmap(cpus), "--of", "xml", "-"],
        env=env, capture_output=True, text=True, check=True).stdout
    ref = subprocess.run(
        ["lstopo-no-graphics", "-i", "-", "--if", "xml", "--restrict",
         "nodeset=" + hwloc_bitmap(nodes), "--of", "xml", "-"],
        input=by_cpus, env=env, capture_output=True, text=True, check=True).stdout
    with open(got_path) as f:
        got = f.read()
    loose = loose_cores(root, cpus)
    want, known = norm_hwloc(renumber_nodes(ref, nodes), {p: v for v, p in enumerate(cpus)}, None, loose)
    have, _ = norm_hwloc(got, {v: v for v in range(len(cpus))}, known, loose)
    if want != have:
        fail("hwloc topology of %s in %s, nodes %s" % (
            root, ",".join(map(str, cpus)), ",".join(map(str, nodes))), want, have)


# ---- lscpu -p / -e ----

# the columns lscpu numbers per CPU type, and the sysfs map each is an
# index into: lscpu -p/-e print a CPU's CORE as the place of its
# thread_siblings among the distinct thread_siblings of its type's CPUs,
# in CPU order (util-linux sys-utils/lscpu-topology.c,
# cputype_read_topology and add_cpuset_to_array; lscpu.c, __fill_id);
# SOCKET and CLUSTER the same with core_siblings, BOOK and DRAWER with
# book_siblings and drawer_siblings
TYPE_COLUMNS = ("CORE", "SOCKET", "BOOK", "DRAWER", "CLUSTER")
TYPE_MAPS = {"CORE": "thread_siblings", "SOCKET": "core_siblings",
             "CLUSTER": "core_siblings", "BOOK": "book_siblings",
             "DRAWER": "drawer_siblings"}
# the /proc/cpuinfo fields that make lscpu start a new CPU type, and the
# member of its type each sets (lscpu-cputype.c: type_patterns, and
# is_different_cputype, which compares only the vendor, model, model
# name and stepping)
TYPE_FIELDS = {"CPU implementer": "vendor", "vendor": "vendor", "vendor_id": "vendor",
               "CPU part": "model", "cpu model": "model", "model": "model",
               "Model Name": "modelname", "cpu": "modelname", "model name": "modelname",
               "CPU variant": "stepping", "stepping": "stepping"}


def cpuinfo_blocks(text):
    """(the lines before the first CPU's, {CPU: its block's lines}) of a
    /proc/cpuinfo; a key "processor" or "cpu number", its trailing number
    (s390's "processor 0") or value the CPU, starts a block"""
    head, blocks, cur = [], {}, None
    for line in text.splitlines():
        key, colon, value = line.partition(":")
        key = key.strip()
        if colon and re.sub(r"\s*[0-9]+$", "", key) in ("processor", "cpu number"):
            num = re.search(r"([0-9]+)$", key)
            v = value.strip()
            if num or v.isdigit():
                cur = int(num.group(1) if num else v)
                blocks.setdefault(cur, [])
        (blocks[cur] if cur is not None else head).append(line)
    return head, blocks


def cpu_types(root, cpus=None, text=None):
    """{CPU: its lscpu type} for a machine that is root's restricted to
    CPUS (all of root's if None), read from root's /proc/cpuinfo (or
    TEXT). lscpu makes a new type whenever a type field's value differs
    from the current type's (lscpu-cputype.c, lscpu_read_cpuinfo): a type
    is a run of consecutive blocks, not the set of CPUs alike, so a set
    that leaves out the CPUs between two runs of one kind makes them one.
    A CPU is given the type current when the next CPU's block starts (or
    the file ends); a CPU without a block the first type (the default)."""
    if text is None:
        try:
            with open(os.path.join(root or "/", "proc/cpuinfo")) as f:
                text = f.read()
        except OSError:
            return {}
    head, blocks = cpuinfo_blocks(text)
    lines = list(head)
    for c in sorted(blocks):
        if cpus is None or c in cpus:
            lines += blocks[c]
    types, ntypes, members, cpu = {}, 0, None, None
    for line in lines:
        key, colon, value = line.partition(":")
        key, value = re.sub(r"\s*[0-9]+$", "", key.strip()), value.strip()
        if not colon or not value:
            continue
        if key in ("processor", "cpu number"):
            if cpu is not None and members is not None:
                types[cpu] = ntypes - 1
            num = re.search(r"([0-9]+)$", line.partition(":")[0].strip())
            cpu = int(num.group(1)) if num else (int(value) if value.isdigit() else None)
            continue
        m = TYPE_FIELDS.get(key)
        if m is None:
            continue
        if members is not None and members.get(m) not in (None, value):
            members = None
        if members is None:
            members, ntypes = {}, ntypes + 1
        members[m] = value
    if cpu is not None and members is not None and cpu not in types:
        types[cpu] = ntypes - 1
    return types


def type_map_keys(root, cpus):
    """{CPU: {column: its map restricted to CPUS}} for TYPE_MAPS's
    columns, None where the file is missing; {} for a CPU without
    topology/thread_siblings (lscpu then leaves it out of every map)."""
    out = {}
    for c in cpus:
        d = "sys/devices/system/cpu/cpu%d/topology/" % c
        if read(root, d + "thread_siblings") is None:
            out[c] = {}
            continue
        keys = {}
        for col, f in TYPE_MAPS.items():
            t = read(root, d + f)
            keys[col] = None if t is None else frozenset(mask_cpus(t)) & frozenset(cpus)
        out[c] = keys
    return out


def lscpu_type_ids(root, cpus):
    """{CPU: {column: id}}: the ids lscpu prints for the type columns on
    a machine that is root's restricted to CPUS: each CPU's map's place
    among the distinct maps of its type's CPUs, in CPU order (TYPE_MAPS,
    cpu_types). Missing from a CPU's dict: no id (lscpu prints none)."""
    types = cpu_types(root, set(cpus))
    first = min(types.values()) if types else None
    keys = type_map_keys(root, cpus)
    seen, out = {}, {}
    for c in sorted(cpus):
        kind = types.get(c, first)
        out[c] = {}
        for col, k in keys[c].items():
            if k is None:
                continue
            lst = seen.setdefault((kind, col), [])
            if k not in lst:
                lst.append(k)
            out[c][col] = str(lst.index(k))
    return out


def renumber_rows(header, rows, cpus, keep=(), ids=None):
    """rows: lists of column strings, the first the CPU. Keeps the set's
    rows, CPU -> virtual; the type columns (TYPE_COLUMNS) as IDS says
    ({CPU: {column: id}}, lscpu_type_ids: what lscpu prints on the
    machine restricted to the set), or, without IDS, renumbered in order
    of first appearance; the cache columns renumbered in order of first
    appearance (lscpu numbers a cache without an id file that way); NODE
    and the ONLINE/MHz columns kept."""
    rank = {p: v for v, p in enumerate(cpus)}
    kept = [r for r in rows if int(r[0]) in rank]
    if len(kept) != len(cpus):
        raise SystemExit("full output lacks CPUs of the set")
    # lscpu -p leaves off the empty cells at the end of a row (a CPU
    # without some cache level): pad to renumber, cut back after
    widths = [len(r) for r in kept]
    phys = [int(r[0]) for r in kept]
    out = [[str(rank[int(r[0])])] + r[1:] + [""] * (len(header) - len(r)) for r in kept]
    for col, name in enumerate(header):
        if col == 0 or name in keep or (name.upper() not in TYPE_COLUMNS + ("CACHE",)
                                        and not is_cache(name)):
            continue
        if ids is not None and name.upper() in TYPE_COLUMNS:
            for r, c in zip(out, phys):
                r[col] = ids.get(c, {}).get(name.upper(), r[col])
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
    return [r[:w] for r, w in zip(out, widths)]


def is_cache(name):
    """A cache column of lscpu -p: L1d, L1i, L2, L3, L4, and the split
    levels some machines have (s390's L2d and L2i)."""
    return re.match(r"L[0-9]+[di]?$", name) is not None


class _CacheNames:
    """Every cache column's name (is_cache), for "in" tests."""

    def __contains__(self, name):
        return is_cache(name)


CACHE_NAMES = _CacheNames()


def uneven_caches(full):
    """Whether some CPU lacks a cache level others have (lscpu -p leaves
    its cells empty or the row short, -e prints fewer ids or "-"). lscpu
    then numbers each CPU's caches by their place, not their level, and
    finds a CPU's caches only from index0 on: what it prints for a CPU
    depends on the other CPUs it read, so the rows of the whole machine
    kept to the set are not what it prints in the set. The caches are
    compared by hwloc's restriction instead."""
    if full and full[0].startswith("#"):
        header = [l for l in full if l.startswith("#")][-1][2:].split(",")
        cols = [i for i, h in enumerate(header) if h in CACHE_NAMES]
        rows = [l.split(",") for l in full if not l.startswith("#")]
        return any(len(r) <= c or r[c] == "" for r in rows for c in cols)
    header = full[0].split()
    cols = [i for i, h in enumerate(header) if ":" in h]
    rows = [l.split() for l in full[1:]]
    return any(len(r) <= c or r[c] == "-" or len(r[c].split(":")) != len(header[c].split(":"))
               for r in rows for c in cols)


def drop_caches(lines):
    """The lines of lscpu -p or -e without the cache columns."""
    if lines and lines[0].startswith("#"):
        header = [l for l in lines if l.startswith("#")][-1][2:].split(",")
        first = min([i for i, h in enumerate(header) if h in CACHE_NAMES] or [len(header)])
        return [l.rstrip("\n") if l.startswith("#") and l[2:].split(",") != header
                else (("# " if l.startswith("#") else "") +
                      ",".join((l[2:] if l.startswith("#") else l).rstrip("\n").split(",")[:first])
                      .rstrip(","))
                for l in lines]
    header = lines[0].split()
    keep = [i for i, h in enumerate(header) if ":" not in h]
    out = []
    for l in lines:
        w = l.split()
        out.append(" ".join(w[i] for i in keep if i < len(w)))
    return out


def has_cache_ids(root):
    """Whether the machine's caches have id files: lscpu -p and -e print
    those ids (kept by a restriction, and by the views) instead of its
    own."""
    import glob
    return bool(root) and bool(glob.glob(os.path.join(
        root, "sys/devices/system/cpu/cpu*/cache/index*/id")))


def node_ranks(header, rows, nodes):
    """rows with their NODE column (-e's NODE, -p's Node) as the set's
    virtual node: the rank of the machine's node in nodes."""
    col = [i for i, h in enumerate(header) if h.upper() == "NODE"]
    rank = {p: v for v, p in enumerate(nodes)}
    for r in rows:
        for c in col:
            if c < len(r) and r[c] not in ("", "-"):
                if int(r[c]) not in rank:
                    raise SystemExit("node %s of a CPU of the set is not one of the set's" % r[c])
                r[c] = str(rank[int(r[c])])
    return rows


def cmd_lscpu(full_path, cpus, got_path, root=None, nodes=None):
    with open(full_path) as f:
        full = f.read().splitlines()
    with open(got_path) as f:
        got = [l + "\n" for l in f.read().splitlines()]
    body = [l for l in (full[1:] if full and not full[0].startswith("#") else full)
            if not l.startswith("#")]
    def first(l):
        return (l.split(",") if "," in l else l.split() or [""])[0].strip()

    if body and all(not first(l).isdigit() for l in body):
        # lscpu printed rows without CPU numbers for the whole machine:
        # its rows cannot be restricted to the set. Inside the set it
        # must print the same rows, one a CPU: exit 3 (an oracle that
        # cannot judge, counted apart) when it does, 1 when not
        gbody = [l for l in (got[1:] if got and not got[0].startswith("#") else got)
                 if not l.startswith("#")]
        blank = sorted(set(" ".join(l.split()) for l in body))
        if len(gbody) != len(cpus) or sorted(set(" ".join(l.split()) for l in gbody)) != blank:
            fail("lscpu of %s (the whole machine's rows have no CPU numbers)" %
                 ",".join(map(str, cpus)), [l + "\n" for l in body], got)
        print("ORACLE: lscpu prints rows without CPU numbers for the whole machine;"
              " in the set it prints %d such rows" % len(gbody))
        sys.exit(3)
    if uneven_caches(full):
        full = drop_caches(full)
        got = [l + "\n" for l in drop_caches([l.rstrip("\n") for l in got])]
    if full and full[0].startswith("#"):
        # -p: comments, then the header as a comment, then CSV rows
        comments = [l for l in full if l.startswith("#")]
        header = comments[-1][2:].split(",")
        rows = [l.split(",") for l in full if not l.startswith("#")]
        out = renumber_rows(header, rows, cpus, CACHE_NAMES if has_cache_ids(root) else (),
                            lscpu_type_ids(root, cpus) if root else None)
        if nodes is not None:
            out = node_ranks(header, out, nodes)
        want = [l + "\n" for l in comments] + [",".join(r) + "\n" for r in out]
    else:
        header = full[0].split()
        cache_col = [i for i, h in enumerate(header) if ":" in h]
        rows = [l.split() for l in full[1:]]
        names = ["CACHE" if i in cache_col else h for i, h in enumerate(header)]
        out = renumber_rows(names, rows, cpus, ("CACHE",) if has_cache_ids(root) else (),
                            lscpu_type_ids(root, cpus) if root else None)
        if nodes is not None:
            out = node_ranks(names, out, nodes)
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


def cmd_numactl_nodes(full_path, cpus, got_path, full_cpus, print_nodes=False):
    """numactl --hardware in a set of cpus whose memory nodes are the
    nodes of its CPUs (the full output, made in the set of full_cpus with
    the machine's own nodes, says which): k nodes numbered 0..k-1 in the
    order of their physical numbers, each with its CPUs of the set, its
    size, and the distances among them. print_nodes: print the physical
    node list instead (CPUSETSHIM_TEST_MEMS)."""
    rank = {p: v for v, p in enumerate(cpus)}
    phys = dict(enumerate(full_cpus)) if full_cpus else None
    nodes, ncpus, size, dist, order = [], {}, {}, {}, []
    with open(full_path) as f:
        lines = f.read().splitlines()
    for i, l in enumerate(lines):
        w = l.split()
        if len(w) >= 3 and w[0] == "node" and w[2] == "cpus:":
            ncpus[int(w[1])] = [phys[int(c)] if phys else int(c) for c in w[3:]]
        elif len(w) >= 3 and w[0] == "node" and w[2] == "size:":
            size[int(w[1])] = " ".join(w[3:])
        elif l.startswith("node distances:"):
            order = [int(x) for x in lines[i + 1].split()[1:]]
            for r in lines[i + 2:]:
                rw = r.replace(":", " ").split()
                if rw:
                    dist[int(rw[0])] = dict(zip(order, rw[1:]))
    nodes = sorted(n for n, cs in ncpus.items() if any(c in rank for c in cs))
    if print_nodes:
        return print(",".join(map(str, nodes)))
    k = len(nodes)
    want = ["available: %d nodes (%s)" % (k, "0" if k == 1 else "0-%d" % (k - 1))]
    for v, n in enumerate(nodes):
        want.append("node %d cpus:%s" % (v, "".join(
            " %d" % rank[c] for c in ncpus[n] if c in rank)))
        want.append("node %d size: %s" % (v, size.get(n, "")))
    if dist:
        want.append("node distances:")
        want.append("node " + "".join("%3d " % v for v in range(k)))
        for v, n in enumerate(nodes):
            want.append("%3d: " % v + "".join("%3s " % dist[n][m] for m in nodes))
    elif "No distance information available." in lines:
        # libnuma found no distance file: neither does the set
        want.append("No distance information available.")
    with open(got_path) as f:
        got = [l for l in f.read().splitlines() if not (l.startswith("node ") and " free: " in l)]
    if want != got:
        fail("numactl --hardware in %s, nodes %s" % (",".join(map(str, cpus)),
                                                      ",".join(map(str, nodes))), want, got)


# ---- the sets tried on a captured machine ----

def read(root, rel):
    try:
        with open(os.path.join(root, rel.lstrip("/"))) as f:
            return f.read().replace("\0", "").strip()
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


def allowed_cpus(root):
    """The CPUs hwloc says the captured process may use (the root object's
    allowed_cpuset), or None if it cannot tell."""
    env = dict(os.environ, HWLOC_FSROOT=root)
    env.pop("LD_PRELOAD", None)
    try:
        x = subprocess.run(["lstopo-no-graphics", "--of", "xml", "-"], env=env,
                           capture_output=True, text=True, check=True).stdout
        o = ET.fromstring(x).find("object")
        return parse_bitmap(o.get("allowed_cpuset"))
    except (OSError, subprocess.CalledProcessError, ET.ParseError, AttributeError,
            TypeError, ValueError):
        return None


def full_cpus_arg(s):
    """FULLCPUS: the set the whole machine's output was made in, or
    "native": made by the tool itself outside any set, in the machine's
    own numbers (tests/topo/machine_checks.sh, numactl_whole)."""
    return None if s == "native" else cpulist(s)


def cmd_shapes(root):
    """name cpulist, one set a line, of every shape: one CPU, one core's
    threads, one thread of each core, a NUMA node, a package, CPUs of two
    packages, a non-contiguous pick (given out of order to whoever makes
    the set), the first and last CPU, the first half, every third CPU, all ("all": every online CPU the
    captured process may use). A
    shape whose CPUs an earlier one (or all) already has is left out."""
    on = online_cpus(root)
    # only CPUs the captured process may use (its cpuset cgroup): no set
    # can hold another, and hwloc refuses to restrict to one
    allowed = allowed_cpus(root)
    if allowed is not None:
        on = [c for c in on if c in allowed]
    onset = set(on)

    def sib(x, *names):
        for n in names:
            t = read(root, "sys/devices/system/cpu/cpu%d/topology/%s" % (x, n))
            if t is not None and t.strip("\0\n "):
                return [y for y in mask_cpus(t.strip("\0\n ")) if y in onset]
        return [x]

    c = on[len(on) // 3]
    for x in on:  # a core with hyperthreads, where there are some
        if len(sib(x, "thread_siblings", "core_cpus")) > 1:
            c = x
            break
    firsts = sorted({min(sib(x, "thread_siblings", "core_cpus")) for x in on})
    pkgs = sorted({tuple(sib(x, "package_cpus", "core_siblings")) for x in on})
    pkg = list(sib(c, "package_cpus", "core_siblings"))
    shapes = [("one", [on[len(on) // 3]]),
              ("core", sib(c, "thread_siblings", "core_cpus")),
              ("threads", firsts)]
    nodes = []
    nd = os.path.join(root, "sys/devices/system/node")
    for e in sorted(os.listdir(nd)) if os.path.isdir(nd) else []:
        if e.startswith("node") and e[4:].isdigit():
            cs = [x for x in mask_cpus(read(root, "sys/devices/system/node/%s/cpumap" % e).strip("\0\n "))
                  if x in onset]
            if cs:
                nodes.append((int(e[4:]), cs))
    nodes.sort()
    if nodes:  # the last node with CPUs: not the one that holds the first CPU
        shapes.append(("node", nodes[-1][1]))
    shapes.append(("package", pkg))
    if len(pkgs) >= 2:
        shapes.append(("packages", sorted(list(pkgs[0][-2:]) + list(pkgs[1][:3]))))
    pick = [on[-1], on[3 % len(on)], on[len(on) // 2 + 1 if len(on) > 2 else 0], on[1 % len(on)]]
    shapes.append(("sparse", list(dict.fromkeys(pick))))
    shapes.append(("ends", [on[0], on[-1]]))
    shapes.append(("half", on[:max(1, len(on) // 2)]))
    shapes.append(("third", on[::3]))
    shapes.append(("all", on))
    seen = {tuple(on)}
    for name, cs in shapes:
        key = tuple(sorted(cs))
        if key in seen and name != "all":
            continue
        seen.add(key)
        print(name, ",".join(str(x) for x in cs))


def cmd_cpu_node(root, cpus):
    """"v,K" for each virtual CPU v: K the node whose cpumap holds p(v)
    (what lscpu -p=cpu,node prints for the set's machine); -1 where no
    node holds it, as on a machine without a node directory (libnuma's
    numa_node_of_cpu answers -1 there, read natively)."""
    node_of = {}
    nd = os.path.join(root, "sys/devices/system/node")
    for e in os.listdir(nd) if os.path.isdir(nd) else []:
        if e.startswith("node") and e[4:].isdigit():
            for c in mask_cpus(read(root, "sys/devices/system/node/%s/cpumap" % e)):
                node_of[c] = int(e[4:])
    for v, p in enumerate(cpus):
        print("%d,%d" % (v, node_of.get(p, -1)))


def numa_lines_norm(lines):
    """lscpu's summary lines with each CPU list as fmt_list writes it:
    lscpu (util-linux's cpulist_create) prints two CPUs in a row as
    "0,1" and three or more as a range, fmt_list every run as a range."""
    return [l.rsplit(": ", 1)[0] + ": " + fmt_list(cpulist(l.rsplit(": ", 1)[1]))
            if "CPU(s): " in l and l.rsplit(": ", 1)[1] else l for l in lines]


def cmd_lscpu_numa(root, cpus, nodes, got_path):
    """lscpu's summary in the set with the memory nodes nodes: NUMA
    node(s) the number of them, and each virtual node's virtual CPUs
    (those whose physical CPU the machine's node holds)."""
    node_of = {}
    nd = os.path.join(root, "sys/devices/system/node")
    for e in os.listdir(nd):
        if e.startswith("node") and e[4:].isdigit():
            for c in mask_cpus(read(root, "sys/devices/system/node/%s/cpumap" % e)):
                node_of[c] = int(e[4:])
    want = ["NUMA node(s): %d" % len(nodes)]
    for v, k in enumerate(nodes):
        vs = [i for i, p in enumerate(cpus) if node_of.get(p) == k]
        want.append("NUMA node%d CPU(s): %s" % (v, fmt_list(vs)))
    with open(got_path) as f:
        got = [" ".join(l.split()) for l in f.read().splitlines() if l.lstrip().startswith("NUMA")]
    got = numa_lines_norm(got)
    if got != want:
        fail("lscpu's NUMA lines in %s, nodes %s" % (",".join(map(str, cpus)),
                                                    ",".join(map(str, nodes))),
             [l + "\n" for l in want], [l + "\n" for l in got])


def cmd_node_of_cpu(want_path):
    """Run under the shim: libnuma's numa_node_of_cpu(v) for each virtual
    CPU v is the node WANT (cpu-node's output, made outside the shim: the
    node whose cpumap holds p(v)) says, and none beyond the set."""
    import ctypes
    numa = ctypes.CDLL("libnuma.so.1")
    if numa.numa_available() < 0:
        print("numa_available() < 0")
        sys.exit(1)
    want = {}
    with open(want_path) as f:
        for l in f:
            v, k = l.split(",")
            want[int(v)] = int(k)
    bad = 0
    for v in sorted(want):
        got = numa.numa_node_of_cpu(v)
        if got != want[v]:
            print("virtual CPU %d: node %d, want %d" % (v, got, want[v]))
            bad = 1
    if numa.numa_node_of_cpu(len(want)) != -1:
        print("virtual CPU %d (beyond the set) has a node" % len(want))
        bad = 1
    sys.exit(bad)


def fmt_list(vs):
    out, vs = [], sorted(vs)
    i = 0
    while i < len(vs):
        j = i
        while j + 1 < len(vs) and vs[j + 1] == vs[j] + 1:
            j += 1
        out.append(str(vs[i]) if i == j else "%d-%d" % (vs[i], vs[j]))
        i = j + 1
    return ",".join(out)


TOP_RANGE = ("online", "possible", "present")
TOP_LIST = ("offline", "isolated", "enabled", "nohz_full")


def width(cpus):
    """the set's possible CPUs: n, or with CPUSETSHIM_WIDE_POSSIBLE=1 its
    highest CPU plus one if more (an array they size holds any CPU number
    read without the shim); virtual CPUs n..w-1 are then possible and
    offline"""
    if os.environ.get("CPUSETSHIM_WIDE_POSSIBLE") != "1":
        return len(cpus)
    return max(len(cpus), max(cpus) + 1 if cpus else 0)


def cmd_top_files(root, cpus):
    """The files of the CPU directory itself that are views, as the set
    sees them: "name<TAB>text" for each one the machine has (text with
    its newline as \\n). A range is 0..n-1; a list is the set's part of
    the real one, renumbered; possible 0..w-1 (width), offline with
    n..w-1 too, kernel_max w-1."""
    rank = {p: v for v, p in enumerate(cpus)}
    n, w = len(cpus), width(cpus)
    for name in TOP_RANGE + ("kernel_max",) + TOP_LIST:
        t = read(root, "sys/devices/system/cpu/" + name)
        if t is None:
            continue
        if name in TOP_RANGE:
            text = fmt_list(range(w if name == "possible" else n))
        elif name == "kernel_max":
            text = str(w - 1)
        else:
            t = t.strip("\0\n ")
            real = [] if t in ("", "(null)") else cpulist(t)
            vs = {rank[c] for c in real if c in rank}
            if name == "offline":
                vs |= set(range(n, w))
            text = fmt_list(sorted(vs))
        print("%s\t%s\\n" % (name, text))


def cmd_read_top(root):
    """Run under the shim: each of the CPU directory's own list files the
    machine has, read in every spelling (below ROOT absolute, with "//"
    and "/./", ".." through a sibling, relative after chdir to the
    directory, relative to a descriptor of it, relative to ROOT): one
    "name<TAB>text" line when they all agree, else a line naming the
    spellings that differ (exit 1)."""
    d = os.path.join(root, "sys/devices/system/cpu")
    bad = 0

    def rd(path, dir_fd=None):
        try:
            fd = os.open(path, os.O_RDONLY, dir_fd=dir_fd)
        except OSError as e:
            return "error %s" % e.strerror
        try:
            return os.read(fd, 65536).decode().replace("\n", "\\n")
        finally:
            os.close(fd)

    here = os.getcwd()
    dfd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    rfd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for name in TOP_RANGE + ("kernel_max",) + TOP_LIST:
        if not os.path.exists(os.path.join(d, name)):
            continue
        got = {"absolute": rd(os.path.join(d, name)),
               "//": rd(d.replace("/system/", "//system//") + "//" + name),
               "/./": rd(d + "/./" + name),
               "..": rd(d + "/cpuidle/../" + name) if os.path.isdir(d + "/cpuidle")
               else rd(d + "/../cpu/" + name),
               "dirfd": rd(name, dir_fd=dfd),
               "root-dirfd": rd("sys/devices/system/cpu/" + name, dir_fd=rfd)}
        os.chdir(d)
        got["chdir"] = rd(name)
        os.chdir(root)
        got["chdir-root"] = rd("sys/devices/system/cpu/" + name)
        os.chdir(here)
        texts = set(got.values())
        if len(texts) == 1:
            print("%s\t%s" % (name, texts.pop()))
        else:
            bad = 1
            print("%s\tspellings differ: %s" % (name, sorted(got.items())))
    sys.exit(bad)


def fmt_mask(cs, nbits):
    """as the kernel prints a cpumask of nbits possible CPUs ("%*pb")"""
    m = 0
    for c in cs:
        m |= 1 << c
    groups = max(1, (nbits + 31) // 32)
    first = nbits % 32 or 32
    out = []
    for g in reversed(range(groups)):
        v = (m >> (32 * g)) & 0xFFFFFFFF
        if g == groups - 1:
            out.append("%0*x" % ((first + 3) // 4, v & ((1 << first) - 1)))
        else:
            out.append("%08x" % v)
    return ",".join(out)


def real_text(root, phys):
    """the real file's text without its end ("\n", "\n\0"), None if it
    does not exist, a PermissionError if it may not be read"""
    try:
        with open(os.path.join(root, phys.lstrip("/")), "rb") as f:
            return f.read().decode().rstrip("\0").rstrip("\n")
    except PermissionError as e:
        return e
    except OSError:
        return None


def kind_of(rest):
    """the kind of a file below cpuN/ (the kernel's names)"""
    base = rest.rsplit("/", 1)[-1]
    if base.endswith("_list"):
        return "list"
    if rest.startswith("cpufreq/") and base in ("related_cpus", "affected_cpus",
                                                 "freqdomain_cpus"):
        return "spacelist"
    if base.endswith("_siblings") or base.endswith("_cpus") or base == "shared_cpu_map":
        return "mask"
    return "same"


def view_of(root, cpus, path):
    rank = {p: v for v, p in enumerate(cpus)}
    n = len(cpus)
    cpu_dir, bus_dir, node_dir = ("/sys/devices/system/cpu/", "/sys/bus/cpu/devices/",
                                  "/sys/devices/system/node/")
    kind, phys = "same", path
    for d in (cpu_dir, bus_dir, node_dir):
        if not path.startswith(d):
            continue
        parts = path[len(d):].split("/")
        if d == node_dir and parts[0] == "has_cpu":
            kind = "has_cpu"
            break
        if d == node_dir and parts[0].startswith("node") and len(parts) >= 2:
            if len(parts) == 2 and parts[1] in ("cpumap", "cpulist"):
                kind = "mask" if parts[1] == "cpumap" else "list"
                break
            d, parts = d + parts[0] + "/", parts[1:]
        if d == cpu_dir and len(parts) == 1:
            kind = {"online": "range", "possible": "possible", "present": "range",
                    "kernel_max": "kernel_max", "offline": "offline", "isolated": "list",
                    "enabled": "list", "nohz_full": "list"}.get(parts[0], "same")
            break
        if parts[0].startswith("cpu") and parts[0][3:].isdigit():
            v = int(parts[0][3:])
            if v >= n:
                return "ENOENT"
            phys = d + "cpu%d" % cpus[v] + "".join("/" + x for x in parts[1:])
            kind = kind_of("/".join(parts[1:])) if len(parts) > 1 else "same"
        break
    text = real_text(root, phys)
    if text is None:
        return "ENOENT"
    if isinstance(text, PermissionError):
        return "EACCES"
    if kind == "same":
        return text
    if kind == "range":
        return fmt_list(range(n))
    if kind == "possible":
        return fmt_list(range(width(cpus)))
    if kind == "kernel_max":
        return str(width(cpus) - 1)
    if kind == "has_cpu":
        keep = []
        for k in cpulist(text):
            m = real_text(root, node_dir + "node%d/cpumap" % k)
            if isinstance(m, str) and set(mask_cpus(m)) & set(cpus):
                keep.append(k)
        return fmt_list(keep)
    if kind == "mask":
        phys_cpus = mask_cpus(text)
    elif kind == "spacelist":
        phys_cpus = [int(x) for x in text.split()]
    else:
        # an empty list as the kernel writes it: "\n", "\0\n" (nohz_full),
        # "(null)", or padded with spaces
        t = text.strip("\0\n ")
        phys_cpus = [] if t in ("", "(null)") else cpulist(t)
    virt = [rank[c] for c in phys_cpus if c in rank]
    if kind == "offline":
        virt = sorted(set(virt) | set(range(n, width(cpus))))
    if kind == "mask":
        return fmt_mask(virt, width(cpus))
    if kind == "spacelist":
        return "".join("%d " % c for c in sorted(virt))
    return fmt_list(virt)


def cmd_view(root, cpus, paths):
    """paths as the program names them: below root, or from / when root
    is "/" """
    r = root.rstrip("/")
    for p in paths:
        rel = p[len(r):] if r and p.startswith(r + "/") else p
        print("%s: %s" % (p, view_of(root, cpus, rel)))


# lines of a cpuinfo header that name a CPU (s390's summary, SPARC's
# clock and state lines) or count them
CPUINFO_CPU_LINE = re.compile(r"^(?:processor (\d+):|Cpu(\d+)ClkTck\s*:|CPU(\d+):)")
CPUINFO_COUNTS = ("# processors", "ncpus probed", "ncpus active")
# the line that opens a CPU's block: "processor : N" (x86, arm64, POWER),
# "cpu number : N" (s390's sections after its header)
CPUINFO_OPEN = ("processor", "cpu number")
# the ids of a block, held to the ids rule (DESIGN.md) apart: the hardware
# names kept, the counts the set's (cpuinfo_ids); the rest of a CPU's
# block is its own
CPUINFO_KEPT = ("physical id", "core id", "apicid", "initial apicid")
CPUINFO_IDS = CPUINFO_KEPT + ("siblings", "cpu cores")


def cpuinfo_ids(text):
    """{CPU: {id: value}} of each "processor : N" block's CPUINFO_IDS"""
    out, cpu = {}, None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if not line.strip():
            cpu = None
        elif key == "processor" and value.isdigit():
            cpu = int(value)
            out[cpu] = {}
        elif cpu is not None and key in CPUINFO_IDS:
            out[cpu][key] = value
    return out


def core_of(root, c, ids):
    """CPU c's core, as the kernel groups threads: its thread siblings'
    list (core_cpus_list, thread_siblings_list); without them its package
    and core id"""
    for f in ("core_cpus_list", "thread_siblings_list"):
        t = real_text(root, "/sys/devices/system/cpu/cpu%d/topology/%s" % (c, f))
        if isinstance(t, str) and t.strip():
            return tuple(cpulist(t))
    return (ids.get("physical id"), ids.get("core id"))


def cpuinfo_ids_bad(root, cpus, real, got):
    """The ids rule in the blocks of GOT: physical id, core id and the APIC
    ids as the physical CPU's block has them; siblings the set's CPUs of
    that package, cpu cores their distinct cores (the kernel's counts, of
    the set)"""
    want, have, bad = cpuinfo_ids(real), cpuinfo_ids(got), []
    for v, c in enumerate(cpus):
        w, g = want.get(c, {}), have.get(v, {})
        exp = {k: w[k] for k in CPUINFO_KEPT if k in w}
        pkg = [p for p in cpus if want.get(p, {}).get("physical id") == w.get("physical id")]
        if "siblings" in w:
            exp["siblings"] = str(len(pkg))
        if "cpu cores" in w:
            exp["cpu cores"] = str(len({core_of(root, p, want.get(p, {})) for p in pkg}))
        if g != exp:
            bad.append("CPU %d (CPU %d's block): ids %s, want %s" % (v, c, g, exp))
    return bad


def cmd_cpuinfo(root, cpus, got_path):
    """/proc/cpuinfo read in the set (GOT): the blocks of the set's CPUs
    (CPUINFO_OPEN), each its physical CPU's own block,
    numbered 0..n-1, its ids as the ids rule says (cpuinfo_ids_bad); the
    header's lines that name a CPU name 0..n-1, its counts n"""
    with open(got_path) as f:
        got = f.read()
    with open(os.path.join(root, "proc/cpuinfo")) as f:
        real = f.read()
    n, bad = len(cpus), []

    def blocks(text):
        """{CPU: its block's other lines}"""
        out, cpu = {}, None
        for line in text.splitlines():
            key, colon, value = line.partition(":")
            if not line.strip():
                cpu = None
            elif key.strip() in CPUINFO_OPEN and value.strip().isdigit():
                cpu = int(value)
                out[cpu] = []
            elif cpu is not None and key.strip() not in CPUINFO_IDS:
                out[cpu].append(line)
        return out
    want_b = blocks(real)
    if want_b:
        got_b = blocks(got)
        if sorted(got_b) != list(range(n)):
            bad.append("blocks of CPUs %s, want 0..%d" % (sorted(got_b), n - 1))
        for v, c in enumerate(cpus):
            if v in got_b and got_b[v] != want_b.get(c):
                bad.append("CPU %d: block %s, want CPU %d's %s" % (v, got_b[v], c, want_b.get(c)))
        bad += cpuinfo_ids_bad(root, cpus, real, got)

    def named(text):
        out = []
        for line in text.splitlines():
            m = CPUINFO_CPU_LINE.match(line)
            if m:
                out.append(int(next(g for g in m.groups() if g is not None)))
        return out
    real_named = named(real)
    if real_named:
        kinds = {}
        for line in real.splitlines():
            m = CPUINFO_CPU_LINE.match(line)
            if m:
                kinds.setdefault(m.lastindex, []).append(int(m.group(m.lastindex)))
        want = sorted(len([c for c in cs if c in set(cpus)]) for cs in kinds.values())
        per = {}
        for line in got.splitlines():
            m = CPUINFO_CPU_LINE.match(line)
            if m:
                per.setdefault(m.lastindex, []).append(int(m.group(m.lastindex)))
        for k, cs in per.items():
            if cs != list(range(len(cs))) or len(cs) != n:
                bad.append("header lines name CPUs %s, want 0..%d" % (cs, n - 1))
        if sorted(len(cs) for cs in per.values()) != want:
            bad.append("header lines per kind %s, want %s" % (
                sorted(len(cs) for cs in per.values()), want))
    for line in got.splitlines():
        key, colon, value = line.partition(":")
        if colon and key.strip() in CPUINFO_COUNTS and value.strip() != str(n):
            bad.append("%s: %s, want %d" % (key.strip(), value.strip(), n))
    if not bad:
        return 0
    print("\n".join(bad))
    print("got:\n" + got[:3000])
    return 1


def cpu_files(root, cpus):
    """the list and mask files of each virtual CPU's topology and cache
    directories (as the program names them, below ROOT), and the CPU
    directory's own"""
    d = os.path.join(root, "sys/devices/system/cpu")
    out = [os.path.join(d, f) for f in TOP_RANGE + TOP_LIST if os.path.exists(os.path.join(d, f))]
    for v, c in enumerate(cpus):
        cd = os.path.join(d, "cpu%d/cache" % c)
        for sub in ["topology"] + ["cache/" + x for x in sorted(
                os.listdir(cd) if os.path.isdir(cd) else []) if x.startswith("index")]:
            p = os.path.join(d, "cpu%d" % c, sub)
            for f in sorted(os.listdir(p)) if os.path.isdir(p) else []:
                if kind_of(sub + "/" + f) in ("list", "mask"):
                    out.append(os.path.join(d, "cpu%d" % v, sub, f))
    return out


def cmd_cpu_files(root, cpus, got_path):
    """GOT: "PATH: TEXT" of each of cpu_files read under the shim (TEXT
    without its end); each as view says"""
    r = root.rstrip("/")
    want = ["%s: %s" % (p, view_of(root, cpus, p[len(r):])) for p in cpu_files(root, cpus)]
    with open(got_path) as f:
        got = f.read().splitlines()
    if got == want:
        return 0
    print("\n".join(difflib.unified_diff(want, got, "want", "got", lineterm="")))
    return 1


def cmd_read_files(paths):
    """under the shim: "PATH: TEXT" of each file the file PATHS names, one
    a line (cpu-files's list; TEXT without its "\n" or "\n\0" end)"""
    with open(paths) as f:
        names = f.read().splitlines()
    for p in names:
        try:
            with open(p, "rb") as f:
                t = f.read().decode().rstrip("\0").rstrip("\n")
        except OSError as e:
            t = "error %s" % e.strerror
        print("%s: %s" % (p, t))


def cmd_counts(root, cpus):
    pkg_cpus, pkg_cores = {}, {}
    for c in cpus:
        t = "sys/devices/system/cpu/cpu%d/topology/" % c
        pkg = read(root, t + "physical_package_id")
        core = (read(root, t + "die_id"), read(root, t + "core_id"))
        if core[1] is None:
            core = ("cpu", c)
        pkg_cpus.setdefault(pkg, set()).add(c)
        pkg_cores.setdefault(pkg, set()).add(core)
    print("cores %d" % sum(len(v) for v in pkg_cores.values()))
    print("siblings " + " ".join(str(x) for x in sorted({len(v) for v in pkg_cpus.values()})))
    print("cpu-cores " + " ".join(str(x) for x in sorted({len(v) for v in pkg_cores.values()})))


def cmd_node_of(root, cpus):
    node_of = {}
    nd = os.path.join(root, "sys/devices/system/node")
    for e in os.listdir(nd) if os.path.isdir(nd) else []:
        if e.startswith("node") and e[4:].isdigit():
            m = read(root, "sys/devices/system/node/%s/cpumap" % e)
            for c in mask_cpus(m) if m else []:
                node_of[c] = int(e[4:])
    print(" ".join(str(node_of.get(p, -1)) for p in cpus))


def cmd_entries(root, cpus, dirs):
    rank = {p: v for v, p in enumerate(cpus)}
    for d in dirs:
        try:
            names = os.listdir(os.path.join(root, d.lstrip("/")))
        except OSError:
            print("ENOENT")
            continue
        own = [int(e[3:]) for e in names if e.startswith("cpu") and e[3:].isdigit()]
        print(" ".join("cpu%d" % rank[p] for p in sorted(own, key=lambda p: rank.get(p, -1))
                       if p in rank))


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "ranges":
        # hwloc-calc's comma list of PUs on stdin, as a range list
        t = sys.stdin.read().strip()
        return print(fmt_list(int(x) for x in t.split(",")) if t else "")
    if len(sys.argv) == 3 and sys.argv[1] == "read-top":
        return cmd_read_top(sys.argv[2])
    if len(sys.argv) == 4 and sys.argv[1] == "top-files":
        return cmd_top_files(sys.argv[2], cpulist(sys.argv[3]))
    if len(sys.argv) >= 5 and sys.argv[1] == "entries":
        return cmd_entries(sys.argv[2], cpulist(sys.argv[3]), sys.argv[4:])
    if len(sys.argv) == 4 and sys.argv[1] == "node-of":
        return cmd_node_of(sys.argv[2], cpulist(sys.argv[3]))
    if len(sys.argv) == 3 and sys.argv[1] == "names":
        return print(" ".join("cpu%d" % c for c in cpulist(sys.argv[2])))
    if len(sys.argv) == 4 and sys.argv[1] == "counts":
        return cmd_counts(sys.argv[2], cpulist(sys.argv[3]))
    if len(sys.argv) == 5 and sys.argv[1] == "cpuinfo":
        sys.exit(cmd_cpuinfo(sys.argv[2], cpulist(sys.argv[3]), sys.argv[4]))
    if len(sys.argv) == 5 and sys.argv[1] == "cpu-files":
        sys.exit(cmd_cpu_files(sys.argv[2], cpulist(sys.argv[3]), sys.argv[4]))
    if len(sys.argv) == 3 and sys.argv[1] == "read-files":
        return cmd_read_files(sys.argv[2])
    if len(sys.argv) == 4 and sys.argv[1] == "file-list":
        return print("\n".join(cpu_files(sys.argv[2], cpulist(sys.argv[3]))))
    if len(sys.argv) >= 5 and sys.argv[1] == "view":
        return cmd_view(sys.argv[2], cpulist(sys.argv[3]), sys.argv[4:])
    if len(sys.argv) == 3 and sys.argv[1] == "shapes":
        return cmd_shapes(sys.argv[2])
    if len(sys.argv) == 4 and sys.argv[1] == "cpu-node":
        return cmd_cpu_node(sys.argv[2], cpulist(sys.argv[3]))
    if len(sys.argv) == 3 and sys.argv[1] == "node-of-cpu":
        return cmd_node_of_cpu(sys.argv[2])
    if len(sys.argv) == 5 and sys.argv[1] == "set-nodes":
        return cmd_numactl_nodes(sys.argv[2], cpulist(sys.argv[3]), None,
                                 full_cpus_arg(sys.argv[4]), True)
    if len(sys.argv) == 6 and sys.argv[1] == "numactl-nodes":
        return cmd_numactl_nodes(sys.argv[2], cpulist(sys.argv[3]), sys.argv[4],
                                 full_cpus_arg(sys.argv[5]))
    if len(sys.argv) == 6 and sys.argv[1] == "numactl":
        return cmd_numactl(sys.argv[2], cpulist(sys.argv[3]), sys.argv[4], full_cpus_arg(sys.argv[5]))
    if len(sys.argv) == 6 and sys.argv[1] == "hwloc-nodes":
        return cmd_hwloc_nodes(sys.argv[2], cpulist(sys.argv[3]), cpulist(sys.argv[4]),
                               sys.argv[5])
    if len(sys.argv) == 7 and sys.argv[1] == "lscpu-nodes":
        return cmd_lscpu(sys.argv[2], cpulist(sys.argv[3]), sys.argv[4], sys.argv[5],
                         cpulist(sys.argv[6]))
    if len(sys.argv) == 6 and sys.argv[1] == "lscpu-numa":
        return cmd_lscpu_numa(sys.argv[2], cpulist(sys.argv[3]), cpulist(sys.argv[4]),
                              sys.argv[5])
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
