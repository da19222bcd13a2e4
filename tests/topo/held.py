# SPDX-License-Identifier: BSD-3-Clause
"""Run under the shim: holds the topology views open across a resize.
held.py DIR CPUFILE NODEFILE: lists /sys/devices/system/cpu (keeping the
listing open after its first entry), opens cpu0's CPUFILE (a CPU list of
its topology directory, "core_cpus_list") and NODEFILE (a node's
"/sys/devices/system/node/nodeK/cpulist"; "-" where the machine has no
node), reads them, writes DIR/ready and waits for DIR/go; then finishes
the held listing, reads the held files again, and lists and opens
everything afresh. Prints one "name value" line per answer ("none" for
the node where there is none)."""
import os
import sys
import time

SYS = "/sys/devices/system/cpu"
d, cpufile, nodefile = sys.argv[1:4]


def cpus(names):
    return " ".join(sorted(e for e in names if e.startswith("cpu") and e[3:].isdigit()))


held = os.scandir(SYS)
first = [next(held).name]
f1 = open(SYS + "/cpu0/topology/" + cpufile)
f2 = open(nodefile) if nodefile != "-" else None
print("before-online", open(SYS + "/online").read().strip())
print("before-node", f2.read().strip() if f2 else "none")
f1.read()
open(os.path.join(d, "ready"), "w").close()
for _ in range(600):
    if os.path.exists(os.path.join(d, "go")):
        break
    time.sleep(0.05)
rest = [e.name for e in held]
print("held-listing", cpus(first + rest))
f1.seek(0)
if f2:
    f2.seek(0)
print("held-files", "read" if f1.read() and (not f2 or f2.read()) else "empty")
print("after-listing", cpus(os.listdir(SYS)))
print("after-online", open(SYS + "/online").read().strip())
print("after-node", open(nodefile).read().strip() if f2 else "none")
print("after-cpu0", open(SYS + "/cpu0/topology/core_id").read().strip())
print("after-cpu1", os.access(SYS + "/cpu1/topology", os.F_OK))
sys.stdout.flush()
