# SPDX-License-Identifier: BSD-3-Clause
# A task of tests/guest/inside_cgroup2.sh that tries to leave its step's
# cgroup, without the shim, as an unprivileged user (nobody, as a site's
# tasks run): taskset to a CPU outside its cgroup's cpuset, its pid into
# the root cgroup's cgroup.procs, its own cgroup's parent's and a cgroup's
# whose cgroup.procs anyone may write. Prints one line, then waits until the file argv[1]
# exists (argv[2] s at most, 300 by default), so that its mask and cgroup
# can be read from outside:
#   leave TASK pid PID taskset-cpu CPU rc RC root ERR parent ERR open ERR
# (ERR an errno name, or "moved").
import errno
import os
import subprocess
import sys
import time


def cpulist(t):
    out = []
    for p in t.strip().split(","):
        if p:
            a, _, b = p.partition("-")
            out += range(int(a), int(b or a) + 1)
    return out


cg = [l[3:].strip() for l in open("/proc/self/cgroup") if l.startswith("0::")][0]
mine = cpulist(open("/sys/fs/cgroup" + cg + "/cpuset.cpus.effective").read())
other = [c for c in cpulist(open("/sys/devices/system/cpu/online").read()) if c not in mine]
os.setgroups([])
os.setgid(65534)
os.setuid(65534)
pid = os.getpid()
# the file it waits for must be one it can see, else it would wait to the end
if not os.access(os.path.dirname(os.path.abspath(sys.argv[1])), os.X_OK):
    sys.exit("leave.py: uid %d cannot look up %s" % (os.getuid(), sys.argv[1]))
res = []
if other:
    r = subprocess.run(["taskset", "-p", "-c", str(other[0]), str(pid)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    res.append("taskset-cpu %d rc %d" % (other[0], r.returncode))
else:
    res.append("taskset-cpu none")
for name, path in (("root", "/sys/fs/cgroup/cgroup.procs"),
                   ("parent", "/sys/fs/cgroup" + os.path.dirname(cg) + "/cgroup.procs"),
                   ("open", "/sys/fs/cgroup/cpstest-open/cgroup.procs")):
    try:
        with open(path, "w") as f:
            f.write(str(pid))
        res.append("%s moved" % name)
    except OSError as e:
        res.append("%s %s" % (name, errno.errorcode.get(e.errno, str(e.errno))))
print("leave %s pid %d %s" % (os.environ.get("SLURM_PROCID", "-"), pid, " ".join(res)), flush=True)
end = time.time() + (int(sys.argv[2]) if len(sys.argv) > 2 else 300)
while not os.path.exists(sys.argv[1]) and time.time() < end:
    time.sleep(0.1)
