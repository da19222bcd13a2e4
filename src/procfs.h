/* SPDX-License-Identifier: BSD-3-Clause */
/* Facts about processes, read from /proc: start time, parent, owner,
 * threads. Functions return 0 or a negative errno (-ESRCH: no such
 * process). They read /proc with raw system calls (src/rawsys.h), so the
 * shim uses them too without meeting its own interposers. */
#ifndef CPS_PROCFS_H
#define CPS_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cps_procinfo {
	pid_t pid, ppid;
	pid_t session;     /* stat field 6 */
	uid_t uid;         /* owner of /proc/PID (its effective uid) */
	uint64_t start;    /* start time, clock ticks after boot (stat field 22) */
	int nthreads;      /* stat field 20 */
	int last_cpu;      /* stat field 39 */
	char state;        /* stat field 3: 'R', 'S', ... 'Z' zombie */
};

int cps_proc_info(pid_t pid, struct cps_procinfo *pi);
/* cps_proc_info without the owner (pi->uid 0): /proc/PID/stat alone, one
 * open and one read, for the paths every process start or every member
 * of a sweep pays. */
int cps_proc_stat(pid_t pid, struct cps_procinfo *pi);
/* The start time of thread tid of process pid (stat field 22 of
 * /proc/PID/task/TID/stat, clock ticks after boot), or 0: no such thread,
 * or it has ended. Two threads of one process with one tid, one after
 * the other, differ by it unless both started within one tick. */
uint64_t cps_thread_start(pid_t pid, pid_t tid);
/* True if pid is alive and has this start time (not a reused pid). A
 * zombie (ended, not yet reaped) is not alive; a process whose first
 * thread ended while others run is. */
bool cps_proc_alive(pid_t pid, uint64_t start);
/* False only if the calling process (any of its threads) has no child
 * process, alive or not: one system call, where the children files are
 * one open per thread. */
bool cps_self_has_children(void);
/* False if pid names a thread that is not its process's first (a tid
 * that is no process id); true for a process, or if pid is gone. */
bool cps_proc_is_process(pid_t pid);
/* The process of thread tid (Tgid in /proc/TID/status), or a negative
 * errno. */
pid_t cps_proc_tgid(pid_t tid);
/* True if thread tid of process pid exists. */
bool cps_thread_alive(pid_t pid, pid_t tid);
/* Calls fn for every thread of pid; stops early when fn returns non-zero
 * and returns that value; -ESRCH if the process is gone. */
int cps_proc_each_thread(pid_t pid, int (*fn)(pid_t tid, void *arg), void *arg);
/* Calls fn for every child of thread tid of process pid listed in
 * /proc/PID/task/TID/children (its first 4 KiB); stops early as above;
 * -ENOENT when the kernel has no such file (or the thread is gone). */
int cps_proc_each_child(pid_t pid, pid_t tid, int (*fn)(pid_t child, void *arg), void *arg);
/* The CPUs the kernel has online (/sys/devices/system/cpu/online), nw
 * words: 0, or a negative errno (-EINVAL: unreadable as a CPU list or
 * wider than nw words). */
int cps_online_cpus(uint64_t *m, size_t nw);
/* A CPU or node list file (sysfs, a cgroup's) into m, nw words: 0 (an
 * empty list: no bit), -EINVAL (no list, or a number wider than nw
 * words), or the errno of the read. */
int cps_list_file(const char *path, uint64_t *m, size_t nw);
/* The CPUs the kernel has present (/sys/devices/system/cpu/present), the
 * same way. */
int cps_present_cpus(uint64_t *m, size_t nw);
/* The real uid of pid (the first field of Uid: in /proc/PID/status), or
 * a negative errno. */
long cps_proc_real_uid(pid_t pid);
/* True if pid is the first process of a pid namespace: pid 1 of ours, or
 * a process whose innermost pid (the last of NSpid: in its status) is 1. */
bool cps_proc_is_ns_init(pid_t pid);
/* Calls fn for every process on the machine. */
int cps_proc_each(int (*fn)(pid_t pid, void *arg), void *arg);

#endif
