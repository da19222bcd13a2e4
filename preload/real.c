/* SPDX-License-Identifier: BSD-3-Clause */
/* Resolving the real functions: every libc function the shim interposes,
 * found once with dlsym(RTLD_NEXT) from whichever wrapper needs it first
 * (and again at set-up), libc's copies the frameless stubs jump to
 * (preload/stubs.h), and, on x86-64, where libc keeps each thread's rseq
 * area. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <stddef.h>

#include "preload/shim.h"
#include "preload/stubs.h"
#include "preload/view.h"

struct shim_real shim_real;
long (*shim_syscall_next)(long, ...); /* shim_real.syscall, for the syscall stub */
#if defined(__x86_64__)
ptrdiff_t shim_rseq_offset;   /* of the thread's struct rseq from %fs:0 */
bool shim_rseq_ok;
#endif

/* Inside dlsym (or set-up): the shim's own calls pass straight through. */
__thread int shim_resolving;

static void *next_sym(const char *name)
{
	dlerror();
	void *p = dlsym(RTLD_NEXT, name);
	const char *e = dlerror();
	if (e || !p)
		return NULL;
	return p;
}

/* The open stubs' copies of libc's functions (preload/stubs.h) */
static void open_resolved(void)
{
	__atomic_store_n(&shim_open_hot.next[0], (void *)shim_real.open, __ATOMIC_RELEASE);
	__atomic_store_n(&shim_open_hot.next[1], (void *)shim_real.open64, __ATOMIC_RELEASE);
	__atomic_store_n(&shim_open_hot.next[2], (void *)shim_real.openat, __ATOMIC_RELEASE);
	__atomic_store_n(&shim_open_hot.next[3], (void *)shim_real.openat64, __ATOMIC_RELEASE);
}

void shim_resolve_all(void)
{
	static int done;
	if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		return;
	shim_resolving++;
#define R(f) *(void **)&shim_real.f = next_sym(#f)
	R(sysconf); R(__sysconf); R(get_nprocs); R(get_nprocs_conf);
	R(sched_getaffinity); R(sched_setaffinity);
	R(pthread_getaffinity_np); R(pthread_setaffinity_np);
	R(pthread_attr_setaffinity_np); R(pthread_attr_getaffinity_np); R(pthread_getattr_np);
	R(pthread_create);
	R(sched_getcpu); R(getcpu); R(syscall);
	R(open); R(open64); R(openat); R(openat64);
	R(__open_2); R(__open64_2); R(__openat_2); R(__openat64_2);
	R(fopen); R(fopen64); R(freopen); R(freopen64);
	R(lseek); R(lseek64); R(pread); R(pread64);
	R(rewind); R(fseek); R(fseeko); R(fseeko64);
	R(chdir); R(fchdir);
	R(opendir); R(fdopendir); R(readdir); R(readdir64); R(closedir);
	R(scandir); R(scandir64); R(glob); R(glob64); R(nftw);
	R(fstatat); R(statx); R(faccessat); R(access); R(readlinkat);
#undef R
	__atomic_store_n(&shim_syscall_next, shim_real.syscall, __ATOMIC_RELEASE);
	/* the open stubs' copies (preload/stubs.h); under the test root
	 * none, so that every path goes to the slow paths (its views lie
	 * below it, where no second byte tells them apart). Before libc is
	 * up the test root is not known yet: none until it is (set-up
	 * resolves again) */
	if (shim_libc_up() && !shim_test_root())
		open_resolved();
#if defined(__x86_64__)
	/* glibc >= 2.35 registers an rseq area per thread and exports where
	 * it is; its sched_getcpu reads the CPU from there. */
	const ptrdiff_t *off = next_sym("__rseq_offset");
	const unsigned *size = next_sym("__rseq_size");
	if (!off)
		off = dlsym(RTLD_DEFAULT, "__rseq_offset");
	if (!size)
		size = dlsym(RTLD_DEFAULT, "__rseq_size");
	if (off && size && *size >= 8) {
		shim_rseq_offset = *off;
		__atomic_store_n(&shim_rseq_ok, true, __ATOMIC_RELEASE);
	}
#endif
	shim_resolving--;
	/* before libc is up the test root is not known yet: again later */
	if (shim_libc_up())
		__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}
