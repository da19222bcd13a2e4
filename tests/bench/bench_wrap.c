/* SPDX-License-Identifier: BSD-3-Clause */
/* A reference preload library: it interposes the getaffinity and
 * setaffinity calls and sched_getcpu the way any wrapper that must act on
 * the answer does (an ordinary call of the next definition, then return),
 * and does nothing else. Timed against native, it shows what wrapping
 * alone costs, before the shim translates anything. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>

#define EXPORT __attribute__((visibility("default")))
/* keeps the compiler from turning the call into a jump */
#define AFTER_CALL(r) __asm__ volatile("" : "+r"(r) : : "memory")

static int (*next_getaff)(pid_t, size_t, cpu_set_t *);
static int (*next_setaff)(pid_t, size_t, const cpu_set_t *);
static int (*next_pgetaff)(pthread_t, size_t, cpu_set_t *);
static int (*next_getcpu)(void);

__attribute__((constructor)) static void resolve(void)
{
	*(void **)&next_getaff = dlsym(RTLD_NEXT, "sched_getaffinity");
	*(void **)&next_setaff = dlsym(RTLD_NEXT, "sched_setaffinity");
	*(void **)&next_pgetaff = dlsym(RTLD_NEXT, "pthread_getaffinity_np");
	*(void **)&next_getcpu = dlsym(RTLD_NEXT, "sched_getcpu");
}

EXPORT int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *mask)
{
	int r = next_getaff(pid, size, mask);
	AFTER_CALL(r);
	return r;
}

EXPORT int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *mask)
{
	int r = next_setaff(pid, size, mask);
	AFTER_CALL(r);
	return r;
}

EXPORT int pthread_getaffinity_np(pthread_t th, size_t size, cpu_set_t *mask)
{
	int r = next_pgetaff(th, size, mask);
	AFTER_CALL(r);
	return r;
}

EXPORT int sched_getcpu(void)
{
	int r = next_getcpu();
	AFTER_CALL(r);
	return r;
}
