/* Internals shared by the shim's files. Nothing here is exported: the
 * version script exports only the interposed libc names. */
#ifndef CPS_PRELOAD_SHIM_H
#define CPS_PRELOAD_SHIM_H

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "src/mask.h"
#include "src/sets.h"

/* The real libc functions, resolved once with dlsym(RTLD_NEXT). */
struct shim_real {
	long (*sysconf)(int);
	long (*__sysconf)(int);
	int (*get_nprocs)(void);
	int (*get_nprocs_conf)(void);
	int (*sched_getaffinity)(pid_t, size_t, cpu_set_t *);
	int (*sched_setaffinity)(pid_t, size_t, const cpu_set_t *);
	int (*pthread_getaffinity_np)(pthread_t, size_t, cpu_set_t *);
	int (*pthread_setaffinity_np)(pthread_t, size_t, const cpu_set_t *);
	int (*pthread_attr_setaffinity_np)(pthread_attr_t *, size_t, const cpu_set_t *);
	int (*pthread_attr_getaffinity_np)(const pthread_attr_t *, size_t, cpu_set_t *);
	int (*pthread_getattr_np)(pthread_t, pthread_attr_t *);
	int (*pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	int (*sched_getcpu)(void);
	int (*getcpu)(unsigned *, unsigned *);
	long (*syscall)(long, ...);
	int (*open)(const char *, int, ...);
	int (*open64)(const char *, int, ...);
	int (*openat)(int, const char *, int, ...);
	int (*openat64)(int, const char *, int, ...);
	int (*__open_2)(const char *, int);
	int (*__open64_2)(const char *, int);
	int (*__openat_2)(int, const char *, int);
	int (*__openat64_2)(int, const char *, int);
	FILE *(*fopen)(const char *, const char *);
	FILE *(*fopen64)(const char *, const char *);
	FILE *(*freopen)(const char *, const char *, FILE *);
	FILE *(*freopen64)(const char *, const char *, FILE *);
	off_t (*lseek)(int, off_t, int);
	off64_t (*lseek64)(int, off64_t, int);
	ssize_t (*pread)(int, void *, size_t, off_t);
	ssize_t (*pread64)(int, void *, size_t, off64_t);
	void (*rewind)(FILE *);
	int (*fseek)(FILE *, long, int);
	int (*fseeko)(FILE *, off_t, int);
	int (*fseeko64)(FILE *, off64_t, int);
};
extern struct shim_real shim_real;

/* Set up (idempotent, cheap after the first call). False: pass through. */
bool shim_ready(void);
/* The name of the table in use, once shim_ready() said yes. */
const char *shim_table_name(void);
void shim_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A consistent copy of the caller's set (physical CPUs) for one call. */
struct shim_cpus {
	uint32_t n, nw;
	uint64_t cpus[CPS_MAX_WORDS];
};
/* The caller's set now; false when the shim is passing through. */
bool shim_cpus_now(struct shim_cpus *v);
/* The virtual image of a thread's kernel mask (tid 0: the caller). */
bool shim_thread_vmask(pid_t tid, const struct shim_cpus *v, uint64_t *vm, size_t vnw);

/* Views: a read-only fd holding the virtual contents of path, or -1 with
 * errno untouched when path is not one we virtualise (the caller then opens
 * the real file). flags are the caller's open flags. */
int shim_view_open(int dirfd, const char *path, int flags);
bool shim_view_path_candidate(const char *path);

/* libc's fortified entry points, which its headers do not declare. */
int __open_2(const char *, int);
int __open64_2(const char *, int);
int __openat_2(int, const char *, int);
int __openat64_2(int, const char *, int);
long __sysconf(int);

#endif
