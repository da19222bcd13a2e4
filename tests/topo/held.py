"""Run under the shim: holds the topology views open across a resize.
held.py DIR: lists /sys/devices/system/cpu (keeping the listing open after
its first entry), opens cpu0's core_cpus_list and a node map, reads them,
writes DIR/ready and waits for DIR/go; then finishes the held listing,
reads the held files again, and lists and opens everything afresh. Prints
one "name value" line per answer."""
import os
import sys
import time

SYS = "/sys/devices/system/cpu"
d = sys.argv[1]


def cpus(names):
    return " ".join(sorted(e for e in names if e.startswith("cpu") and e[3:].isdigit()))


held = os.scandir(SYS)
first = [next(held).name]
f1 = open(SYS + "/cpu0/topology/core_cpus_list")
f2 = open("/sys/devices/system/node/node0/cpulist")
print("before-online", open(SYS + "/online").read().strip())
print("before-node", f2.read().strip())
f1.read()
open(os.path.join(d, "ready"), "w").close()
for _ in range(600):
    if os.path.exists(os.path.join(d, "go")):
        break
    time.sleep(0.05)
rest = [e.name for e in held]
print("held-listing", cpus(first + rest))
f1.seek(0)
f2.seek(0)
print("held-files", "read" if f1.read() and f2.read() else "empty")
print("after-listing", cpus(os.listdir(SYS)))
print("after-online", open(SYS + "/online").read().strip())
print("after-node", open("/sys/devices/system/node/node0/cpulist").read().strip())
print("after-cpu0", open(SYS + "/cpu0/topology/core_id").read().strip())
print("after-cpu1", os.access(SYS + "/cpu1/topology", os.F_OK))
sys.stdout.flush()
