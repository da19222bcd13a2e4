/* SPDX-License-Identifier: BSD-3-Clause */
/* syscall(2): the three numbers the shim translates
 * (SYS_sched_getaffinity, SYS_sched_setaffinity, SYS_getcpu), raw return
 * values kept, SYS_io_uring_setup's polling CPU, the memory-policy ones
 * (preload/mempolicy.c), and the two that move the working directory (SYS_chdir,
 * SYS_fchdir: preload/path.c forgets it); every other number passes
 * through. Where the architecture has frameless entry points
 * (preload/stubs.h) syscall is a stub and this is its slow path; elsewhere
 * this is syscall itself. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <linux/io_uring.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/setcopy.h"
#include "preload/shim.h"
#include "preload/stubs.h"
#include "preload/view.h"
#include "src/procfs.h"

/* How many arguments the kernel reads for nr, for the numbers the shim
 * acts on; six for the others. */
static int args_of(long nr)
{
	switch (nr) {
	case SYS_chdir:
	case SYS_fchdir:
		return 1;
	case SYS_io_uring_setup:
		return 2;
	case SYS_sched_getaffinity:
	case SYS_sched_setaffinity:
	case SYS_getcpu:
	case SYS_set_mempolicy:
		return 3;
	case SYS_migrate_pages:
	case SYS_set_mempolicy_home_node:
		return 4;
	case SYS_get_mempolicy:
		return 5;
	default: /* mbind and move_pages have six */
		return 6;
	}
}

/* io_uring_setup(entries, params) with a polling thread on a CPU
 * (IORING_SETUP_SQPOLL with IORING_SETUP_SQ_AFF): the CPU is virtual. The
 * call is made with a copy of params naming the physical CPU, and what
 * the kernel writes back is copied to the caller's with its own number. A
 * CPU past the set: EINVAL, the kernel's answer for a CPU outside the
 * caller's cpuset. Anything else, or params the shim cannot read, passes
 * through. */
static long uring_setup(long nr, const long *a)
{
	const uint32_t aff = IORING_SETUP_SQPOLL | IORING_SETUP_SQ_AFF;
	struct io_uring_params p;
	unsigned n, phys;
	if (!a[1] || !shim_ready() || shim_user_read(&p, (const void *)a[1], sizeof(p)) < 0 ||
	    (p.flags & aff) != aff || !shim_count(&n))
		return shim_real.syscall(nr, a[0], a[1]);
	uint32_t v = p.sq_thread_cpu;
	if (v >= n) {
		errno = EINVAL;
		return -1;
	}
	if (!setcopy_pcpu(v, &phys))
		return shim_real.syscall(nr, a[0], a[1]);
	p.sq_thread_cpu = phys;
	long r = shim_real.syscall(nr, a[0], (long)&p);
	if (r < 0)
		return r;
	p.sq_thread_cpu = v;
	if (shim_user_write((void *)a[1], &p, sizeof(p)) < 0) {
		/* the kernel's answer for params it cannot write back */
		shim_real.syscall(SYS_close, r);
		errno = EFAULT;
		return -1;
	}
	return r;
}

/* sched_getaffinity(pid, len, mask): the kernel's mask, in the caller's
 * numbers (the test root's size first) */
static long getaffinity_call(long nr, const long *a, bool ok)
{
	struct shim_cpus v;
	long r = shim_real.syscall(nr, a[0], a[1], a[2]);
	/* r is the kernel's mask size in bytes; keep it */
	r = shim_troot_affinity(r, (size_t)a[1], (void *)a[2]);
	if (r > 0 && ok) {
		SHIM_KEEP_ERRNO;
		pid_t pid = (pid_t)a[0];
		if (pid == 0 || pid == shim_self_pid)
			setcopy_to_virtual((void *)a[2], (size_t)r, (size_t)r);
		else if (shim_cpus_of(pid, &v))
			shim_to_virtual((void *)a[2], (size_t)r, &v);
	}
	return r;
}

/* sched_setaffinity(pid, len, mask): the mask made physical, and what
 * the thread asked for recorded */
static long setaffinity_call(long nr, const long *a, bool ok)
{
	struct shim_cpus v;
	uint64_t phys[CPS_MAX_WORDS], virt[CPS_MAX_WORDS];
	if (!ok || !a[2] || !shim_cpus_of((pid_t)a[0], &v))
		return shim_real.syscall(nr, a[0], a[1], a[2]);
	if (shim_to_physical(phys, (const void *)a[2], (size_t)a[1], &v, virt) == 0) {
		errno = EINVAL;
		return -1;
	}
	long r = shim_real.syscall(nr, a[0], (long)(v.nw * 8), (long)phys);
	if (r == 0) {
		SHIM_KEEP_ERRNO;
		pid_t pid = (pid_t)a[0];
		pid_t tid = pid == 0 ? shim_gettid() : pid;
		pid_t who = pid == 0 || cps_thread_alive(shim_self_pid, pid) ? shim_self_pid : pid;
		shim_record_wanted(who, tid, virt);
	}
	return r;
}

/* getcpu(cpu, node, cache): the CPU in the caller's numbers */
static long getcpu_call(long nr, const long *a, bool ok)
{
	long r = shim_real.syscall(nr, a[0], a[1], a[2]);
	unsigned vc;
	if (r == 0 && a[0] && ok && setcopy_vcpu(*(unsigned *)a[0], &vc))
		*(unsigned *)a[0] = vc;
	return r;
}

/* chdir(path), fchdir(fd): the working directory moves, and what
 * path.c knows of it goes */
static long chdir_call(long nr, const long *a)
{
	long r = shim_real.syscall(nr, a[0]);
	if (r == 0)
		shim_cwd_forget();
	return r;
}

/* The numbers the shim acts on, each to its step; the others pass
 * through. */
static long dispatch(long nr, const long *a)
{
	if (CPS_UNLIKELY(nr == SYS_chdir || nr == SYS_fchdir))
		return chdir_call(nr, a);
	if (CPS_UNLIKELY(shim_is_mempolicy(nr)))
		return shim_mempolicy(nr, a);
	if (CPS_UNLIKELY(nr == SYS_io_uring_setup))
		return uring_setup(nr, a);
	if (CPS_LIKELY(nr != SYS_sched_getaffinity && nr != SYS_sched_setaffinity &&
		       nr != SYS_getcpu))
		return shim_real.syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	bool ok = shim_ready();
	if (nr == SYS_sched_getaffinity)
		return getaffinity_call(nr, a, ok);
	if (nr == SYS_sched_setaffinity)
		return setaffinity_call(nr, a, ok);
	return getcpu_call(nr, a, ok);
}

/* the stub's jump target: kept whatever the linker sees of the asm */
__attribute__((used)) long shim_syscall_slow(long nr, ...)
{
	va_list ap;
	long a[6] = { 0 };
	/* the arguments the number has, no more: a caller passes only those,
	 * and a read past them reads its frame (which an address sanitizer
	 * in the caller reports); a number we pass through may have six */
	int n = args_of(nr);
	va_start(ap, nr);
	for (int i = 0; i < n; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (CPS_UNLIKELY(!shim_real.syscall)) {
		shim_resolve_all();
		if (!shim_real.syscall) {
			errno = ENOSYS;
			return -1;
		}
	}
	return dispatch(nr, a);
}

/* syscall itself where no stub takes the name (preload/stubs.h) */
SHIM_STUB_DEFAULT(syscall, shim_syscall_slow);
