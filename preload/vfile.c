/* The open family: virtual /proc and /sys files for the set (cpuinfo,
 * stat, status, online/possible/present), all from one copy of the set.
 *
 * A virtual file is an ordinary read-only file, so read, pread, lseek,
 * fstat, mmap, stdio and O_CLOEXEC behave as on a regular file. Views that
 * do not change at every read (the CPU ranges, cpuinfo) are kept in a
 * directory beside the table (src/kept_views.h) and each open is one open(2)
 * of a tmpfs file; the others (stat, status) are made at each open as a
 * sealed memfd reopened read-only.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "preload/shim.h"
#include "src/kept_views.h"
#include "src/views.h"

#define EXPORT __attribute__((visibility("default")))

enum vkind { V_NONE, V_CPUINFO, V_STAT, V_STATUS_PROC, V_STATUS_THREAD, V_RANGE };

static bool env_off(const char *name)
{
	const char *s = getenv(name);
	return s && s[0] == '0' && s[1] == 0;
}

/* Cheap first test on the hot path of every open. */
bool shim_view_path_candidate(const char *p)
{
	if (!p)
		return false;
	if (p[0] == '/')
		return (p[1] == 'p' && !strncmp(p, "/proc/", 6)) ||
		       (p[1] == 's' && !strncmp(p, "/sys/devices/system/cpu/", 24));
	/* relative names we may need to check against the directory fd */
	return !strcmp(p, "cpuinfo") || !strcmp(p, "stat") || !strcmp(p, "online") ||
	       !strcmp(p, "possible") || !strcmp(p, "present") || !strncmp(p, "self/", 5) ||
	       !strncmp(p, "thread-self/", 12) || !strcmp(p, "status") ||
	       (p[0] >= '0' && p[0] <= '9');
}

static bool is_own_pid(const char *s, size_t len)
{
	char buf[16];
	int n = snprintf(buf, sizeof(buf), "%d", (int)getpid());
	return (size_t)n == len && !memcmp(buf, s, len);
}

static enum vkind classify_proc(const char *r)
{
	/* r: the path below /proc/ */
	if (!strcmp(r, "cpuinfo"))
		return env_off("CPUSETSHIM_VIEW_CPUINFO") ? V_NONE : V_CPUINFO;
	if (!strcmp(r, "stat"))
		return env_off("CPUSETSHIM_VIEW_STAT") ? V_NONE : V_STAT;
	if (!strcmp(r, "self/status"))
		return V_STATUS_PROC;
	if (!strcmp(r, "thread-self/status"))
		return V_STATUS_THREAD;
	const char *slash = strchr(r, '/');
	if (slash && is_own_pid(r, (size_t)(slash - r))) {
		if (!strcmp(slash, "/status"))
			return V_STATUS_PROC;
		char tb[32];
		snprintf(tb, sizeof(tb), "/task/%d/status", (int)syscall(SYS_gettid));
		if (!strcmp(slash, tb))
			return V_STATUS_THREAD;
	}
	if (!strncmp(r, "self/task/", 10)) {
		char tb[32];
		snprintf(tb, sizeof(tb), "%d/status", (int)syscall(SYS_gettid));
		if (!strcmp(r + 10, tb))
			return V_STATUS_THREAD;
	}
	return V_NONE;
}

static enum vkind classify(int dirfd, const char *path, char *real, size_t rlen)
{
	char base[256];
	const char *abs = path;
	if (path[0] != '/') {
		if (dirfd == AT_FDCWD)
			return V_NONE;
		/* relative to a directory fd: where does it point? */
		char link[64];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
		ssize_t n = readlink(link, base, sizeof(base) - 1);
		if (n <= 0)
			return V_NONE;
		base[n] = 0;
		size_t bl = (size_t)n, pl = strlen(path);
		if (bl + 1 + pl + 1 > sizeof(base))
			return V_NONE;
		base[bl] = '/';
		memcpy(base + bl + 1, path, pl + 1);
		abs = base;
	}
	size_t al = strlen(abs);
	if (al + 1 > rlen)
		return V_NONE;
	memcpy(real, abs, al + 1);
	if (!strncmp(abs, "/proc/", 6))
		return classify_proc(abs + 6);
	if (!strncmp(abs, "/sys/devices/system/cpu/", 24)) {
		const char *r = abs + 24;
		if (!strcmp(r, "online") || !strcmp(r, "possible") || !strcmp(r, "present"))
			return V_RANGE;
	}
	return V_NONE;
}

static int slurp(const char *path, char **out, size_t *len)
{
	int fd = shim_real.open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t cap = 16384, n = 0;
	char *b = malloc(cap);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		if (n == cap) {
			char *nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				close(fd);
				return -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(b);
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*out = b;
	*len = n;
	return 0;
}

/* All of data to fd; false on an error or a short write. */
static bool write_all(int fd, const char *data, size_t len)
{
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		off += (size_t)w;
	}
	return true;
}

/* A view made at its open: a memfd holding data, reopened read-only with
 * the caller's flags, like the real file. sealed: no one may change it
 * (mode 0444, as the real files). Unsealed (mode 0644): its contents are
 * made again in place when the reader goes back to the start (see
 * view_rewound), as the real file's are. */
static int make_fd(const char *data, size_t len, int flags, bool sealed)
{
	int mfd = memfd_create("cpusetshim-view", MFD_CLOEXEC | (sealed ? MFD_ALLOW_SEALING : 0));
	if (mfd < 0)
		return -1;
	if (!write_all(mfd, data, len)) {
		close(mfd);
		return -1;
	}
	if (sealed)
		fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
	fchmod(mfd, sealed ? 0444 : 0644);
	char p[64];
	snprintf(p, sizeof(p), "/proc/self/fd/%d", mfd);
	int fd = shim_real.open(p, O_RDONLY | (flags & (O_CLOEXEC | O_NONBLOCK | O_NOATIME)));
	close(mfd);
	return fd;
}

/* The contents of view k of the real file real, for the set in v; tid:
 * the thread of a thread's status (0: the caller). */
static int build_view(enum vkind k, const char *real, pid_t tid, const struct shim_cpus *v,
		      struct cps_buf *out)
{
	uint64_t vallowed[CPS_MAX_WORDS];
	struct cps_view_input s = { v->cpus, v->nw, v->n, vallowed, v->nw };
	char *in = NULL;
	size_t inlen = 0;
	int r = 0;
	if (k != V_RANGE && (r = slurp(real, &in, &inlen)) < 0)
		return r;
	switch (k) {
	case V_CPUINFO: r = cps_view_cpuinfo(out, in, inlen, &s); break;
	case V_STAT: r = cps_view_stat(out, in, inlen, &s); break;
	case V_STATUS_PROC:
	case V_STATUS_THREAD:
		if (!shim_thread_vmask(k == V_STATUS_PROC ? getpid() : tid, v, vallowed, v->nw)) {
			r = -EINVAL;
			break;
		}
		r = cps_view_status(out, in, inlen, &s);
		break;
	case V_RANGE: r = cps_view_cpurange(out, &s); break;
	default: r = -EINVAL;
	}
	free(in);
	return r;
}

/* ---- reading a view again from the start ----
 *
 * The real /proc/stat and status files are made again when a reader goes
 * back to the start: top keeps /proc/stat open and does rewind() and
 * fflush(), others lseek() to 0 or pread() at 0. The views made at each
 * open are remembered by descriptor (the ones opened through the shim,
 * below VFD_MAX) and made again in place, in the same file, when the
 * program calls one of those on them: its offset and stdio's buffer
 * handling stay as they are, only the contents are new. */
#define VFD_MAX 4096
struct vfd {
	enum vkind k;
	pid_t tid;     /* of a thread's status */
	dev_t dev;     /* the view's file, to tell it from a later file */
	ino_t ino;     /* that got the same descriptor number */
	char real[];
};
static struct vfd **vfds; /* VFD_MAX entries, mapped at the first view */
static pthread_mutex_t vfd_lock = PTHREAD_MUTEX_INITIALIZER;

static void vfd_remember(int fd, enum vkind k, const char *real)
{
	struct stat sb;
	if ((unsigned)fd >= VFD_MAX || fstat(fd, &sb) < 0 || pthread_mutex_trylock(&vfd_lock))
		return;
	if (!vfds) {
		void *m = mmap(NULL, VFD_MAX * sizeof(*vfds), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED)
			__atomic_store_n(&vfds, (struct vfd **)m, __ATOMIC_RELEASE);
	}
	size_t rl = strlen(real) + 1;
	struct vfd *t = vfds ? malloc(sizeof(*t) + rl) : NULL;
	if (t) {
		t->k = k;
		t->tid = k == V_STATUS_THREAD ? (pid_t)syscall(SYS_gettid) : 0;
		t->dev = sb.st_dev;
		t->ino = sb.st_ino;
		memcpy(t->real, real, rl);
		struct vfd *old = vfds[fd];
		__atomic_store_n(&vfds[fd], t, __ATOMIC_RELEASE);
		free(old);
	}
	pthread_mutex_unlock(&vfd_lock);
}

/* fd is going back to the start: if it is one of our views, make its
 * contents again. Keeps errno; does nothing it cannot do safely. */
static void view_rewound(int fd)
{
	struct vfd **tab = __atomic_load_n(&vfds, __ATOMIC_ACQUIRE);
	if ((unsigned)fd >= VFD_MAX || !__atomic_load_n(&tab[fd], __ATOMIC_ACQUIRE))
		return;
	int saved = errno;
	if (pthread_mutex_trylock(&vfd_lock))
		goto out;
	struct vfd *t = vfds[fd];
	struct stat sb;
	struct shim_cpus v;
	if (fstat(fd, &sb) < 0 || sb.st_dev != t->dev || sb.st_ino != t->ino) {
		/* closed since, and the number given to another file */
		__atomic_store_n(&vfds[fd], NULL, __ATOMIC_RELEASE);
		free(t);
	} else if (shim_cpus_now(&v)) {
		struct cps_buf b = { 0 };
		char p[64];
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		int w;
		if (build_view(t->k, t->real, t->tid, &v, &b) == 0 &&
		    (w = shim_real.open(p, O_RDWR | O_CLOEXEC)) >= 0) {
			if (write_all(w, b.p, b.len))
				ftruncate(w, (off_t)b.len);
			close(w);
		}
		cps_buf_free(&b);
	}
	pthread_mutex_unlock(&vfd_lock);
out:
	errno = saved;
}

/* ---- kept views (src/kept_views.h) ---- */

/* How long a kept cpuinfo view serves before it is made again from the
 * real file: its "cpu MHz" lines change on real hardware. */
#define KEEP_CPUINFO_NS 1000000000ull

static struct {
	int state; /* 0: not tried yet, 1: the directory is usable, -1: not */
	char dir[320];
	/* the cpuinfo view last seen fresh, and until when it serves */
	uint64_t ci_key, ci_until;
} kept;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Our directory of kept views: made if missing, used only if it is a
 * directory of ours that nobody else may write. Decided once; a thread
 * that finds another deciding (or a child forked meanwhile) makes its
 * view the slow way this time. */
static bool kept_dir_ok(void)
{
	int st = __atomic_load_n(&kept.state, __ATOMIC_ACQUIRE);
	if (CPS_LIKELY(st))
		return st > 0;
	if (pthread_mutex_trylock(&kept_lock) != 0)
		return false;
	if ((st = kept.state) == 0) {
		char d[sizeof(kept.dir)] = "";
		uid_t uid = geteuid();
		struct stat sb;
		st = -1;
		if (!env_off("CPUSETSHIM_KEEP_VIEWS") &&
		    cps_kept_dir(d, sizeof(d), shim_table_name(), uid) == 0 &&
		    (mkdir(d, 0755) == 0 || errno == EEXIST) && lstat(d, &sb) == 0 &&
		    S_ISDIR(sb.st_mode) && sb.st_uid == uid && !(sb.st_mode & (S_IWGRP | S_IWOTH))) {
			memcpy(kept.dir, d, sizeof(d));
			st = 1;
		} else {
			shim_debug("views are made at each open: no usable directory %s", d);
		}
		__atomic_store_n(&kept.state, st, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&kept_lock);
	return st > 0;
}

/* The kept view of kind k for the set in v: an fd on it, or -1. Then
 * *name is its file and *store says whether the caller should make it
 * (missing, or a cpuinfo view past its time) and kept_store() it. */
/* open(2) flags of a kept view: the caller's that mean something for a
 * regular file we read */
static int kept_oflags(int flags)
{
	return O_RDONLY | O_NOFOLLOW | O_NOCTTY | (flags & (O_CLOEXEC | O_NONBLOCK));
}

static int kept_open(enum vkind k, const struct shim_cpus *v, int flags, char *name, size_t len,
		     uint64_t *keyp, bool *store)
{
	*store = false;
	if (!kept_dir_ok())
		return -1;
	uint64_t key = 0, now = 0;
	int n;
	if (k == V_RANGE) {
		n = snprintf(name, len, "%s/range-%u", kept.dir, v->n);
	} else {
		key = cps_kept_key(v->cpus, v->nw, v->n);
		n = snprintf(name, len, "%s/cpuinfo-%016llx", kept.dir, (unsigned long long)key);
	}
	if (n < 0 || (size_t)n >= len)
		return -1;
	*keyp = key;
	int oflags = kept_oflags(flags);
	bool check = false;
	if (k == V_CPUINFO) {
		now = now_ns();
		check = !(__atomic_load_n(&kept.ci_key, __ATOMIC_RELAXED) == key &&
			  now < __atomic_load_n(&kept.ci_until, __ATOMIC_RELAXED));
	}
	int fd = shim_real.open(name, oflags);
	if (fd >= 0 && !check)
		return fd;
	if (fd >= 0) {
		/* made by another process of ours maybe: is it recent enough? */
		struct stat sb;
		uint64_t made = 0;
		if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
			made = (uint64_t)sb.st_mtim.tv_sec * 1000000000ull +
			       (uint64_t)sb.st_mtim.tv_nsec;
		if (made && made <= now + KEEP_CPUINFO_NS && now < made + KEEP_CPUINFO_NS) {
			__atomic_store_n(&kept.ci_key, key, __ATOMIC_RELAXED);
			__atomic_store_n(&kept.ci_until, made + KEEP_CPUINFO_NS, __ATOMIC_RELAXED);
			return fd;
		}
		close(fd);
	} else if (errno != ENOENT) {
		return -1;
	}
	*store = true;
	return -1;
}

/* Writes a view under name (a new file renamed over the old one, so
 * readers get one or the other whole), then opens it as kept_open does. */
static int kept_store(enum vkind k, const char *name, uint64_t key, const char *data, size_t len,
		      int flags)
{
	static unsigned seq;
	char tmp[sizeof(kept.dir) + 64];
	int n = snprintf(tmp, sizeof(tmp), "%s/.new-%d-%ld-%u", kept.dir, (int)getpid(),
			 (long)syscall(SYS_gettid), __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -1;
	int w = shim_real.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
	if (w < 0)
		return -1;
	bool whole = write_all(w, data, len);
	if (close(w) < 0 || !whole || rename(tmp, name) < 0) {
		unlink(tmp);
		return -1;
	}
	if (k == V_CPUINFO) {
		__atomic_store_n(&kept.ci_key, key, __ATOMIC_RELAXED);
		__atomic_store_n(&kept.ci_until, now_ns() + KEEP_CPUINFO_NS, __ATOMIC_RELAXED);
	}
	return shim_real.open(name, kept_oflags(flags));
}

int shim_view_open(int dirfd, const char *path, int flags)
{
	char real[512], name[sizeof(kept.dir) + 48];
	struct shim_cpus v;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_DIRECTORY | O_PATH | O_CREAT)))
		return -1;
	enum vkind k = classify(dirfd, path, real, sizeof(real));
	if (k == V_NONE || !shim_cpus_now(&v))
		return -1;

	int saved = errno;
	bool store = false;
	uint64_t key = 0;
	int fd = -1;
	if (k == V_RANGE || k == V_CPUINFO) {
		fd = kept_open(k, &v, flags, name, sizeof(name), &key, &store);
		if (fd >= 0) {
			errno = saved;
			return fd;
		}
	}
	struct cps_buf out = { 0 };
	int r = build_view(k, real, 0, &v, &out);
	if (r == 0 && store)
		fd = kept_store(k, name, key, out.p, out.len, flags);
	if (r == 0 && fd < 0) {
		bool kept_kind = k == V_RANGE || k == V_CPUINFO;
		fd = make_fd(out.p, out.len, flags, kept_kind);
		if (fd >= 0 && !kept_kind)
			vfd_remember(fd, k, real);
	}
	cps_buf_free(&out);
	errno = saved;
	if (fd < 0)
		shim_debug("view of %s failed; passing the real file through", real);
	return fd;
}

/* ---- the interposers ---- */

static int mode_of(int flags, va_list ap)
{
	if (flags & (O_CREAT | __O_TMPFILE))
		return va_arg(ap, int);
	return 0;
}

#define VIEW_OR(dirfd, path, flags)                                                   \
	do {                                                                          \
		if (CPS_UNLIKELY(shim_view_path_candidate(path)) && shim_ready()) {    \
			int vfd_ = shim_view_open((dirfd), (path), (flags));          \
			if (vfd_ >= 0)                                                 \
				return vfd_;                                           \
		}                                                                     \
	} while (0)

static int ensure(void *f)
{
	if (!f) {
		shim_ready();
		errno = ENOSYS;
	}
	return f != NULL;
}

#if defined(__x86_64__)
/* The pass-through of the open calls with no frame at all: an absolute
 * path that starts with neither "/p" nor "/s" can be no view
 * (shim_view_path_candidate), so the call jumps to libc's with the
 * caller's registers and stack as they were, mode included when there is
 * one. Everything else (relative paths, NULL, /proc and /sys, libc's not
 * resolved yet) goes to the C wrappers below, also untouched. */
void *shim_open_next[4]; /* libc's open, open64, openat, openat64 */
void shim_vfile_resolved(void);
void shim_vfile_resolved(void)
{
	__atomic_store_n(&shim_open_next[0], (void *)shim_real.open, __ATOMIC_RELEASE);
	__atomic_store_n(&shim_open_next[1], (void *)shim_real.open64, __ATOMIC_RELEASE);
	__atomic_store_n(&shim_open_next[2], (void *)shim_real.openat, __ATOMIC_RELEASE);
	__atomic_store_n(&shim_open_next[3], (void *)shim_real.openat64, __ATOMIC_RELEASE);
}
#ifdef __CET__
#define VF_ENDBR "endbr64\n"
#else
#define VF_ENDBR ""
#endif
#define OPEN_STUB(name, pathreg, slot, slow)                                          \
	__asm__(".text\n"                                                             \
		".globl " name "\n"                                                   \
		".type " name ", @function\n"                                         \
		".p2align 4\n" name ":\n" VF_ENDBR                                    \
		"testq " pathreg ", " pathreg "\n"                                    \
		"je 1f\n"                                                             \
		"cmpb $0x2f, (" pathreg ")\n"     /* '/' */                           \
		"jne 1f\n"                                                            \
		"movzbl 1(" pathreg "), %r11d\n"                                      \
		"cmpl $0x70, %r11d\n"             /* 'p' */                           \
		"je 1f\n"                                                             \
		"cmpl $0x73, %r11d\n"             /* 's' */                           \
		"je 1f\n"                                                             \
		"movq shim_open_next+" slot "(%rip), %r11\n"                          \
		"testq %r11, %r11\n"                                                  \
		"je 1f\n"                                                             \
		"jmp *%r11\n"                                                         \
		"1:\n"                                                                \
		"jmp " slow "\n"                                                      \
		".size " name ", .-" name "\n")
OPEN_STUB("open", "%rdi", "0", "shim_open_slow");
OPEN_STUB("open64", "%rdi", "8", "shim_open64_slow");
OPEN_STUB("openat", "%rsi", "16", "shim_openat_slow");
OPEN_STUB("openat64", "%rsi", "24", "shim_openat64_slow");
int shim_open_slow(const char *path, int flags, ...);
int shim_open64_slow(const char *path, int flags, ...);
int shim_openat_slow(int dirfd, const char *path, int flags, ...);
int shim_openat64_slow(int dirfd, const char *path, int flags, ...);
#define OPEN_C(name) __attribute__((used)) shim_##name##_slow
#else
#define OPEN_C(name) EXPORT name
#endif

int OPEN_C(open)(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = mode_of(flags, ap);
	va_end(ap);
	VIEW_OR(AT_FDCWD, path, flags);
	if (!shim_real.open && (shim_ready(), !ensure(shim_real.open)))
		return -1;
	return shim_real.open(path, flags, mode);
}

int OPEN_C(open64)(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = mode_of(flags, ap);
	va_end(ap);
	VIEW_OR(AT_FDCWD, path, flags);
	if (!shim_real.open64 && (shim_ready(), !ensure(shim_real.open64)))
		return -1;
	return shim_real.open64(path, flags, mode);
}

int OPEN_C(openat)(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = mode_of(flags, ap);
	va_end(ap);
	VIEW_OR(dirfd, path, flags);
	if (!shim_real.openat && (shim_ready(), !ensure(shim_real.openat)))
		return -1;
	return shim_real.openat(dirfd, path, flags, mode);
}

int OPEN_C(openat64)(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = mode_of(flags, ap);
	va_end(ap);
	VIEW_OR(dirfd, path, flags);
	if (!shim_real.openat64 && (shim_ready(), !ensure(shim_real.openat64)))
		return -1;
	return shim_real.openat64(dirfd, path, flags, mode);
}

EXPORT int __open_2(const char *path, int flags)
{
	VIEW_OR(AT_FDCWD, path, flags);
	if (!shim_real.__open_2 && (shim_ready(), !ensure(shim_real.__open_2)))
		return -1;
	return shim_real.__open_2(path, flags);
}

EXPORT int __open64_2(const char *path, int flags)
{
	VIEW_OR(AT_FDCWD, path, flags);
	if (!shim_real.__open64_2 && (shim_ready(), !ensure(shim_real.__open64_2)))
		return -1;
	return shim_real.__open64_2(path, flags);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	VIEW_OR(dirfd, path, flags);
	if (!shim_real.__openat_2 && (shim_ready(), !ensure(shim_real.__openat_2)))
		return -1;
	return shim_real.__openat_2(dirfd, path, flags);
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	VIEW_OR(dirfd, path, flags);
	if (!shim_real.__openat64_2 && (shim_ready(), !ensure(shim_real.__openat64_2)))
		return -1;
	return shim_real.__openat64_2(dirfd, path, flags);
}

/* stdio: only plain reading modes can be virtual ("r", "rb", "re", "rm"...). */
static int read_mode_flags(const char *mode)
{
	if (!mode || mode[0] != 'r')
		return -1;
	int fl = O_RDONLY;
	for (const char *m = mode + 1; *m && *m != ','; m++) {
		if (*m == '+' )
			return -1;
		if (*m == 'e')
			fl |= O_CLOEXEC;
	}
	return fl;
}

static FILE *view_fopen(const char *path, const char *mode)
{
	int fl = read_mode_flags(mode);
	if (fl < 0 || !shim_view_path_candidate(path) || path[0] != '/' || !shim_ready())
		return NULL;
	int fd = shim_view_open(AT_FDCWD, path, fl);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, mode);
	if (!f) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

EXPORT FILE *fopen(const char *path, const char *mode)
{
	/* an absolute path that starts with neither "/p" nor "/s" can be
	 * no view (shim_view_path_candidate): straight to libc's */
	if (CPS_LIKELY(path && path[0] == '/' && path[1] != 'p' && path[1] != 's' &&
		       shim_real.fopen))
		return shim_real.fopen(path, mode);
	FILE *f = view_fopen(path, mode);
	if (f)
		return f;
	if (!shim_real.fopen && (shim_ready(), !ensure(shim_real.fopen)))
		return NULL;
	return shim_real.fopen(path, mode);
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
	/* an absolute path that starts with neither "/p" nor "/s" can be
	 * no view (shim_view_path_candidate): straight to libc's */
	if (CPS_LIKELY(path && path[0] == '/' && path[1] != 'p' && path[1] != 's' &&
		       shim_real.fopen64))
		return shim_real.fopen64(path, mode);
	FILE *f = view_fopen(path, mode);
	if (f)
		return f;
	if (!shim_real.fopen64 && (shim_ready(), !ensure(shim_real.fopen64)))
		return NULL;
	return shim_real.fopen64(path, mode);
}

static FILE *view_freopen(FILE *(*real)(const char *, const char *, FILE *), const char *path,
			  const char *mode, FILE *stream)
{
	int fl = read_mode_flags(mode);
	if (fl < 0 || !path || !shim_view_path_candidate(path) || path[0] != '/' || !shim_ready())
		return real(path, mode, stream);
	int fd = shim_view_open(AT_FDCWD, path, fl);
	if (fd < 0)
		return real(path, mode, stream);
	char p[64];
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	FILE *f = real(p, mode, stream);
	int e = errno;
	close(fd);
	errno = e;
	return f;
}

EXPORT FILE *freopen(const char *path, const char *mode, FILE *stream)
{
	if (!shim_real.freopen && (shim_ready(), !ensure(shim_real.freopen)))
		return NULL;
	return view_freopen(shim_real.freopen, path, mode, stream);
}

EXPORT FILE *freopen64(const char *path, const char *mode, FILE *stream)
{
	if (!shim_real.freopen64 && (shim_ready(), !ensure(shim_real.freopen64)))
		return NULL;
	return view_freopen(shim_real.freopen64, path, mode, stream);
}

/* ---- going back to the start (see view_rewound) ----
 *
 * Each is one test of a pointer that stays NULL until the process opens
 * a view made at its open, then libc's function. */

#define REWOUND(fd, cond)                                                            \
	do {                                                                          \
		struct vfd **tab_ = __atomic_load_n(&vfds, __ATOMIC_RELAXED);         \
		if (CPS_UNLIKELY(tab_ != NULL) && (cond)) {                            \
			int fd_ = (fd);                                                \
			if ((unsigned)fd_ < VFD_MAX &&                                 \
			    __atomic_load_n(&tab_[fd_], __ATOMIC_RELAXED))             \
				view_rewound(fd_);                                     \
		}                                                                     \
	} while (0)

EXPORT off_t lseek(int fd, off_t off, int whence)
{
	REWOUND(fd, off == 0 && whence == SEEK_SET);
	if (!shim_real.lseek && (shim_ready(), !ensure(shim_real.lseek)))
		return -1;
	return shim_real.lseek(fd, off, whence);
}

EXPORT off64_t lseek64(int fd, off64_t off, int whence)
{
	REWOUND(fd, off == 0 && whence == SEEK_SET);
	if (!shim_real.lseek64 && (shim_ready(), !ensure(shim_real.lseek64)))
		return -1;
	return shim_real.lseek64(fd, off, whence);
}

EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	REWOUND(fd, off == 0);
	if (!shim_real.pread && (shim_ready(), !ensure(shim_real.pread)))
		return -1;
	return shim_real.pread(fd, buf, n, off);
}

EXPORT ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	REWOUND(fd, off == 0);
	if (!shim_real.pread64 && (shim_ready(), !ensure(shim_real.pread64)))
		return -1;
	return shim_real.pread64(fd, buf, n, off);
}

EXPORT void rewind(FILE *f)
{
	REWOUND(fileno(f), true);
	if (!shim_real.rewind && (shim_ready(), !ensure(shim_real.rewind)))
		return;
	shim_real.rewind(f);
}

EXPORT int fseek(FILE *f, long off, int whence)
{
	REWOUND(fileno(f), off == 0 && whence == SEEK_SET);
	if (!shim_real.fseek && (shim_ready(), !ensure(shim_real.fseek)))
		return -1;
	return shim_real.fseek(f, off, whence);
}

EXPORT int fseeko(FILE *f, off_t off, int whence)
{
	REWOUND(fileno(f), off == 0 && whence == SEEK_SET);
	if (!shim_real.fseeko && (shim_ready(), !ensure(shim_real.fseeko)))
		return -1;
	return shim_real.fseeko(f, off, whence);
}

EXPORT int fseeko64(FILE *f, off64_t off, int whence)
{
	REWOUND(fileno(f), off == 0 && whence == SEEK_SET);
	if (!shim_real.fseeko64 && (shim_ready(), !ensure(shim_real.fseeko64)))
		return -1;
	return shim_real.fseeko64(f, off, whence);
}
