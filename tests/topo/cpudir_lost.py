# SPDX-License-Identifier: BSD-3-Clause
# In a set {1}: the shim keeps /sys/devices/system/cpu open (preload/
# cpudir.c). The program takes that descriptor away three ways: closes
# every descriptor above 2, puts another directory on its number, puts a
# regular file on its number. After each, cpu0's core_id and the listing
# must still be the set's ("answer KEY VALUE" lines).
import os
import sys

SYS = "/sys/devices/system/cpu"


def kept():
    """the shim's descriptor of SYS, or -1"""
    for e in os.listdir("/proc/self/fd"):
        try:
            if int(e) >= 900 and os.readlink("/proc/self/fd/" + e) == SYS:
                return int(e)
        except OSError:
            pass
    return -1


def look(tag):
    with open(SYS + "/cpu0/topology/core_id") as f:
        print("%s-core %s" % (tag, f.read().strip()))
    cpus = sorted(e for e in os.listdir(SYS) if e[:3] == "cpu" and e[3:].isdigit())
    print("%s-listing %s" % (tag, " ".join(cpus)))
    try:
        open(SYS + "/cpu1/topology/core_id").close()
        print("%s-cpu1 present" % tag)
    except OSError as e:
        print("%s-cpu1 %s" % (tag, "ENOENT" if e.errno == 2 else e.errno))


look("first")
k = kept()
print("kept %s" % ("yes" if k >= 0 else "no"))
os.closerange(3, 4096)
look("closed")

k = kept()
print("kept-again %s" % ("yes" if k >= 0 else "no"))
d = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
if k >= 0:
    os.dup2(d, k)
look("otherdir")

k = kept()
print("kept-third %s" % ("yes" if k >= 0 else "no"))
f = os.open("/dev/null", os.O_RDONLY)
if k >= 0:
    os.dup2(f, k)
look("file")
