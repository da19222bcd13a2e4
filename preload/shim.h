/* SPDX-License-Identifier: BSD-3-Clause */
/* Internals shared by the shim's files. Nothing here is exported: the
 * version script exports only the interposed libc names.
 *
 * Manners (doc/shim.md): set up on first use from whichever call
 * comes first; never exit, abort or print (but for CPUSETSHIM_DEBUG=1,
 * once per reason); errno untouched on success; with no usable table
 * everything passes through. The fast path of a call we do not virtualise
 * is one compare and a tail call: no lock, no allocation.
 *
 * Everything declared here is hidden, so that the files reach each other's
 * state as directly as one file would (no GOT). */
#ifndef CPS_PRELOAD_SHIM_H
#define CPS_PRELOAD_SHIM_H

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <glob.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* Linux 5.17's number, the same on every architecture; older headers
 * lack it */
#ifndef SYS_set_mempolicy_home_node
#define SYS_set_mempolicy_home_node 450
#endif

#include "src/mask.h"
#include "src/sets.h"
#include "src/vfiles.h"

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
	int (*chdir)(const char *);
	int (*fchdir)(int);
	/* directories (preload/dir.c) */
	DIR *(*opendir)(const char *);
	DIR *(*fdopendir)(int);
	struct dirent *(*readdir)(DIR *);
	struct dirent64 *(*readdir64)(DIR *);
	int (*closedir)(DIR *);
	int (*scandir)(const char *, struct dirent ***, int (*)(const struct dirent *),
		       int (*)(const struct dirent **, const struct dirent **));
	int (*scandir64)(const char *, struct dirent64 ***, int (*)(const struct dirent64 *),
			 int (*)(const struct dirent64 **, const struct dirent64 **));
	int (*glob)(const char *, int, int (*)(const char *, int), glob_t *);
	int (*glob64)(const char *, int, int (*)(const char *, int), glob64_t *);
	int (*nftw)(const char *, int (*)(const char *, const struct stat *, int, struct FTW *),
		    int, int);
	/* stat, access and links (preload/stat.c, preload/view_sys.c) */
	int (*fstatat)(int, const char *, struct stat *, int);
	int (*statx)(int, const char *, int, unsigned, struct statx *);
	int (*faccessat)(int, const char *, int, int);
	int (*access)(const char *, int);
	ssize_t (*readlinkat)(int, const char *, char *, size_t);
};
extern struct shim_real shim_real __attribute__((visibility("hidden")));

#pragma GCC visibility push(hidden)

#define EXPORT __attribute__((visibility("default")))

/* ---- preload/real.c: resolving the real functions ---- */

/* Fill shim_real (idempotent; the first call from any wrapper). */
void shim_resolve_all(void);
/* Whether shim_real.f is there, resolving first if it is not yet. */
#define SHIM_HAVE_REAL(f) (CPS_LIKELY(shim_real.f != NULL) || (shim_resolve_all(), shim_real.f != NULL))
/* Nonzero while the calling thread is inside dlsym or set-up: its own
 * calls pass straight through. */
extern __thread int shim_resolving;
#if defined(__x86_64__)
extern ptrdiff_t shim_rseq_offset;           /* of struct rseq from %fs:0 */
extern bool shim_rseq_ok;
#endif

/* ---- preload/setup.c: set-up, fork and ancestry ---- */

enum { ST_NEW = 0, ST_BUSY, ST_READY, ST_PASS };
extern int shim_state;             /* ST_* */
extern bool shim_wrap;             /* $CPUSETSHIM_WRAP */
extern struct cps_ctx shim_ctx;    /* the table, writable if we may */
extern pid_t shim_self_pid;
extern uint64_t shim_self_start;
extern uint32_t shim_fallback_set; /* parent's or $CPUSETSHIM_SET */
extern long shim_tid_offset;       /* of the tid inside struct pthread, or -1 */

/* libc's fstatat, behind the shim's own (preload/stat.c). */
struct stat;
int shim_real_fstatat(int dirfd, const char *path, struct stat *st, int flags);

/* Set up (idempotent, cheap after the first call). False: pass through. */
bool shim_ready(void);
/* Whether libc has initialised (its environment readable): before, the
 * shim passes through and caches nothing (preload/env.c). */
bool shim_libc_up(void);
/* The constructor's part: libc is up, the environment is copied. True
 * if CPUSETSHIM_SET names a set (not empty). */
bool shim_env_ctor(void);
/* The shim's variables and TMPDIR as they were when libc came up (NULL
 * before); the secure one NULL in a set-user-id start as well. */
const char *shim_getenv(const char *name);
const char *shim_secure_getenv(const char *name);
/* A process started in secure-execution mode (AT_SECURE: set-user-id,
 * set-group-id, file capabilities): the shim stands aside there. */
bool shim_secure(void);
/* The name of the table in use, once shim_ready() said yes. */
const char *shim_table_name(void);
void shim_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* errno as it is here, put back when the enclosing block ends: the shim
 * keeps errno as the program left it whatever its own calls do. */
static inline void shim_errno_put_back(const int *e)
{
	errno = *e;
}
#define SHIM_KEEP_ERRNO \
	int shim_kept_errno_ __attribute__((cleanup(shim_errno_put_back), unused)) = errno

/* For an interposer whose libc function is not resolved yet: false (and
 * ENOSYS) if it still is not, after set-up. */
static inline int shim_ensure(void *f)
{
	if (!f) {
		shim_ready();
		errno = ENOSYS;
	}
	return f != NULL;
}
/* The calling thread's tid. */
static inline pid_t shim_gettid(void)
{
	return (pid_t)shim_real.syscall(SYS_gettid);
}
/* The tid of a thread (0: unknown). */
pid_t shim_tid_of(pthread_t th);
/* cps_placement_read that waits up to about two seconds for a writer of
 * another process (set-up must not take a busy table for "no set"). */
int shim_placement_wait(pid_t pid, uint64_t start, uint32_t fallback, struct cps_placement *s);
bool shim_repair_dead_writer(void);
/* How long a thread's wanted-mask record waits for a running writer. */
#define SHIM_RECORD_WAIT_MS 2000u

/* ---- preload/setcopy.c: the set copy (hot readers in setcopy.h) ---- */

/* A consistent copy of the caller's set (physical CPUs) for one call. */
struct shim_cpus {
	uint32_t n, nw;
	uint64_t cpus[CPS_MAX_WORDS];
};
/* The caller's set now; false when the shim is passing through. */
bool shim_cpus_now(struct shim_cpus *v);
/* Of the set's n CPUs, how many the kernel has online (its online list
 * read again at most once a second, or when the set changed); n under a
 * test root or when the list cannot be read (preload/counts.c). */
unsigned shim_online_count(unsigned n);
/* The set of another process: its record, else its thread group is ours,
 * else its ancestry (pid 0 or our own: shim_cpus_now). */
bool shim_cpus_of(pid_t pid, struct shim_cpus *v);
/* The same for memory nodes: the set's nodes of the caller (pid 0) or of
 * another process in v->cpus, their count in v->n. */
bool shim_nodes_of(pid_t pid, struct shim_cpus *v);
/* The caller's nodes as the views show them: the test root's
 * CPUSETSHIM_TEST_MEMS, else shim_nodes_of(0) (preload/view_sys.c). */
bool shim_sys_mems(struct shim_cpus *v);
/* Physical mask in buf (size bytes) -> virtual image in place. */
void shim_to_virtual(void *buf, size_t size, const struct shim_cpus *v);
/* A bind of the caller's that wrapped (virtual CPU asked, beyond the n
 * CPUs of set): said once a process under CPUSETSHIM_DEBUG, and counted
 * in the set's slot (set 0: not counted). */
void shim_wrapped(uint32_t set, unsigned long asked, unsigned n);
/* Virtual mask in buf -> physical; 0 CPUs means EINVAL. A wrap in the
 * caller's own set is shim_wrapped's. */
unsigned shim_to_physical(uint64_t *phys, const void *buf, size_t size, const struct shim_cpus *v,
			  uint64_t *virt);

/* ---- preload/mempolicy.c ---- */

/* The memory-policy system call numbers, and syscall(3) of one of them
 * with its node numbers translated (a: the six arguments). */
bool shim_is_mempolicy(long nr);
/* len bytes of the caller's memory at src read (written at dst) through
 * process_vm_readv (writev) on itself: 0, or -EFAULT where the kernel
 * would fault (preload/mempolicy.c) */
int shim_user_read(void *dst, const void *src, size_t len);
int shim_user_write(void *dst, const void *src, size_t len);
long shim_mempolicy(long nr, const long *a);
/* The set's nodes (nw words) as the calling thread's policy, unless the
 * program set its own (preload/mempolicy.c); refresh lock held. */
void shim_mempolicy_follow(const uint64_t *mems, uint32_t nw);

/* ---- preload/affinity.c ---- */

/* Remember what a thread asked for, so a resize keeps it (best effort). */
void shim_record_wanted(pid_t pid, pid_t tid, const uint64_t *virt);
/* In a forked child: the calling thread's remembered masks are not its own. */
void shim_affinity_forked(void);

/* ---- virtual files (preload/view.h for the rest) ---- */

/* A read-only fd holding the virtual contents of path, or -1 with errno
 * untouched when path is not one we virtualise (the caller then opens the
 * real file). flags are the caller's open flags. */
int shim_view_open(int dirfd, const char *path, int flags);
/* Set around a shim_view_open whose descriptor the caller replaces by
 * another open of the same file (freopen): the view must not come from
 * the pool, whose files are kept only by the descriptions handed out. */
extern __thread bool shim_view_no_pool;
/* Whether the test root (CPUSETSHIM_TEST_ROOT, preload/troot.c) is
 * set: 0 not read yet, 1 set, -1 not set. */
extern int shim_troot_state;
/* The one cheap test of a path's bytes, for the interposers that take
 * one (open's slow path, stat, access): true for an absolute path whose
 * second byte cannot begin a view's (cps_vpath_root2, src/vfiles.h; the
 * open stubs test the same), unless the test root may be set (its views
 * lie below it: the cheap tests are off). */
static inline bool shim_path_no_view(const char *p)
{
	return CPS_LIKELY(p && p[0] == '/' && !cps_vpath_root2(p[1])) &&
	       __atomic_load_n(&shim_troot_state, __ATOMIC_RELAXED) < 0;
}
/* Cheap first test on the slow path of every open: may path be a view? */
static inline bool shim_view_path_candidate(const char *p)
{
	return p && p[0] && !shim_path_no_view(p);
}

/* ---- preload/path.c: any spelling of a path, made canonical ---- */

/* The cheap first test: false when (dirfd, path) can be no view, decided
 * with no system call from the path's bytes and what is cached of the
 * working directory. */
bool shim_path_may_view(int dirfd, const char *path);
/* What is known of the working directory (preload/path.c): SHIM_CWD_FAR
 * when it is neither "/" nor in /proc or /sys, so that a relative path
 * without ".." can be no view; read by the open stubs (preload/stubs.h). */
#define SHIM_CWD_FAR 1
/* What the open stubs read (preload/stubs.h), in one line of the cache:
 * libc's open, open64, openat and openat64 (filled once resolved; NULL
 * before) and the state of the working directory. */
struct shim_open_hot {
	void *next[4];
	int cwd_state;
};
extern struct shim_open_hot shim_open_hot;
#define SHIM_OPEN_HOT_CWD 32 /* offsetof(struct shim_open_hot, cwd_state) */
#define shim_cwd_state (shim_open_hot.cwd_state)
/* The working directory may have moved (chdir, fchdir, syscall(2)). */
void shim_cwd_forget(void);
/* The canonical path (src/path.h) of path relative to dirfd, in buf (len
 * bytes), or NULL when it can be no view (pass the call through). cflags:
 * CPS_CANON_NOFOLLOW for calls that do not follow a last link. *dironly:
 * the spelling accepts only a directory (a trailing '/', "." or ".."). No
 * system call and no allocation for a path that can be no view; errno
 * untouched. */
const char *shim_path_resolve(int dirfd, const char *path, int cflags, char *buf, size_t len,
			      bool *dironly);
/* The canonical path of the directory descriptor fd points at, as the
 * kernel says (below the test root: as the same path below /), in buf;
 * false if it cannot be had or names a CPU outside the set. One readlink. */
bool shim_dirfd_canon(int fd, char *buf, size_t len);

#pragma GCC visibility pop

/* libc's fortified entry points, which its headers do not declare. */
int __open_2(const char *, int);
int __open64_2(const char *, int);
int __openat_2(int, const char *, int);
int __openat64_2(int, const char *, int);
long __sysconf(int);

#endif
