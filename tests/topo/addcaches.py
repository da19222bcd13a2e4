#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Copy the host's /sys/devices/system/cpu into DEST, adding the cache
directories a machine without them lacks: per CPU, index0-3 (L1 data, L1
instruction and L2 shared by the core's threads, L3 by the package's
CPUs), in the kernel's formats (the same as tests/topo/genmachine.py
writes). tests/topo/with_caches.sh mounts DEST over the real directory
in a private mount namespace, so that the suite meets a machine with
cache directories on a host that has none.

Usage: addcaches.py DEST [SRC]   (SRC: /sys/devices/system/cpu)
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from genmachine import clist, mask, parse_list  # noqa: E402  the kernel's formats, once


def copy_tree(src, dst):
    """Directories, readable regular files' contents and symbolic links
    (as they are: relative ones resolve the same once mounted in place)."""
    os.makedirs(dst, exist_ok=True)
    for name in sorted(os.listdir(src)):
        s, d = os.path.join(src, name), os.path.join(dst, name)
        if os.path.islink(s):
            os.symlink(os.readlink(s), d)
        elif os.path.isdir(s):
            copy_tree(s, d)
        else:
            try:
                with open(s, "rb") as f:
                    data = f.read()
            except OSError:
                continue  # write-only or refusing: left out
            with open(d, "wb") as f:
                f.write(data)
            os.chmod(d, os.stat(s).st_mode & 0o777)


def read(path, default=None):
    """A file's text (a trailing NUL of some kernels' lists dropped)."""
    try:
        with open(path) as f:
            return f.read().replace("\0", "")
    except OSError:
        return default


def main():
    if len(sys.argv) not in (2, 3):
        sys.stderr.write(__doc__)
        return 2
    dst = sys.argv[1]
    src = sys.argv[2] if len(sys.argv) == 3 else "/sys/devices/system/cpu"
    copy_tree(src, dst)
    cpus = sorted(int(n[3:]) for n in os.listdir(src) if re.fullmatch(r"cpu[0-9]+", n))
    # the masks' width: the kernel's own masks here, else possible's highest + 1
    width = None
    for c in cpus:
        w = read("%s/cpu%d/topology/core_cpus" % (src, c))
        if w:
            width = sum(8 if i else len(g) for i, g in enumerate(reversed(w.strip().split(",")))) * 4
            break
    if width is None:
        width = max(parse_list(read(src + "/possible", "0"))) + 1
    made = 0
    for c in cpus:
        top = "%s/cpu%d/topology" % (src, c)
        if not os.path.isdir(top) or os.path.isdir("%s/cpu%d/cache/index0" % (src, c)):
            continue  # no topology (an offline CPU, older kernels), or caches already
        core = parse_list(read(top + "/thread_siblings_list", str(c)))
        pkg = parse_list(read(top + "/core_siblings_list", "") or read(top + "/package_cpus_list", str(c)))
        core_id = int(read(top + "/core_id", "0"))
        pkg_id = int(read(top + "/physical_package_id", "0"))
        for i, (level, ctype, size_k, ways, members, cid) in enumerate([
                (1, "Data", 32, 8, core, core_id),
                (1, "Instruction", 32, 8, core, core_id),
                (2, "Unified", 512, 8, core, core_id),
                (3, "Unified", 16384, 16, pkg, pkg_id)]):
            d = "%s/cpu%d/cache/index%d/" % (dst, c, i)
            os.makedirs(d)
            for name, text in [("level", "%d" % level), ("type", ctype), ("size", "%dK" % size_k),
                               ("coherency_line_size", "64"),
                               ("ways_of_associativity", "%d" % ways),
                               ("number_of_sets", "%d" % (size_k * 1024 // (64 * ways))),
                               ("physical_line_partition", "1"),
                               ("shared_cpu_map", mask(members, width)),
                               ("shared_cpu_list", clist(members)), ("id", "%d" % cid)]:
                with open(d + name, "w") as f:
                    f.write(text + "\n")
            made += 1
    print("%s: %d CPUs, %d cache directories added" % (dst, len(cpus), made))
    return 0


if __name__ == "__main__":
    sys.exit(main())
