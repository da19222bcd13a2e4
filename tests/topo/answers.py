#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""answers.py: what a program in a set reads of the machine's
description, one "PATH: TEXT" line (or a listing) each, for
tests/kept_keys.sh to compare between two tables. Run under the shim
(with or without the test root: the paths are the program's, /sys and
/proc).

The CPU directory's ranges and its listing (by path and through a
descriptor), the node directory's lists and listing, every node's
cpulist, cpumap and distance, the topology and cache lists of the first
and last CPU, /proc/cpuinfo's processor and topology lines."""
import glob
import os

SYS = "/sys/devices/system/cpu"
NODE = "/sys/devices/system/node"


def text(path):
    try:
        with open(path) as f:
            return f.read().strip().replace("\n", "\\n")
    except OSError as e:
        return "errno %d" % e.errno


def listing(path):
    out = []
    for how in ("path", "fd"):
        try:
            if how == "path":
                names = os.listdir(path)
            else:
                fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
                try:
                    names = os.listdir(fd)
                finally:
                    os.close(fd)
            out.append("%s ls-%s: %s" % (path, how, " ".join(sorted(names))))
        except OSError as e:
            out.append("%s ls-%s: errno %d" % (path, how, e.errno))
    return out


def numbered(names, pre):
    return sorted((n for n in names if n.startswith(pre) and n[len(pre):].isdigit()),
                  key=lambda n: int(n[len(pre):]))


def main():
    lines = []
    for f in ("online", "possible", "present", "offline", "kernel_max"):
        lines.append("%s/%s: %s" % (SYS, f, text("%s/%s" % (SYS, f))))
    lines += listing(SYS)
    try:
        cpus = numbered(os.listdir(SYS), "cpu")
    except OSError:
        cpus = []
    for c in cpus[:1] + cpus[-1:]:
        for f in sorted(glob.glob("%s/%s/topology/*" % (SYS, c)) +
                        glob.glob("%s/%s/cache/index*/shared_cpu_*" % (SYS, c))):
            lines.append("%s: %s" % (f, text(f)))
    lines += listing(NODE)
    for f in ("online", "possible", "has_cpu", "has_memory", "has_normal_memory"):
        lines.append("%s/%s: %s" % (NODE, f, text("%s/%s" % (NODE, f))))
    try:
        nodes = numbered(os.listdir(NODE), "node")
    except OSError:
        nodes = []
    for k in nodes:
        for f in ("cpulist", "cpumap", "distance"):
            lines.append("%s/%s/%s: %s" % (NODE, k, f, text("%s/%s/%s" % (NODE, k, f))))
        lines += listing("%s/%s" % (NODE, k))
    try:
        with open("/proc/cpuinfo") as f:
            for l in f:
                if l.split(":")[0].strip() in ("processor", "physical id", "siblings",
                                                "core id", "cpu cores"):
                    lines.append("cpuinfo: " + " ".join(l.split()))
    except OSError as e:
        lines.append("cpuinfo: errno %d" % e.errno)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
