/* SPDX-License-Identifier: BSD-3-Clause */
/* Views made at each open (/proc/stat, status) without a new file per
 * open, and their real files read without an open per view.
 *
 * The pool: a few tmpfs files of this process, in a private directory
 * beside the kept views (<kept dir>/p.<pid>/<slot>, mode 0700), each
 * mapped once (MAP_SHARED). A view is one of them, written through the
 * mapping (truncate(2) by name when its length changes) and opened
 * read-only by name, so an open costs an open(2) of a tmpfs file and a
 * copy, where a new memfd costs its creation, its first pages and a reopen
 * through /proc/self/fd. A file is reused only when no open file
 * description of it is left anywhere: each one handed out holds an
 * exclusive flock(2), which lives as long as the description does
 * (through dup, fork, exec, SCM_RIGHTS and mmap), and the next taker's
 * LOCK_NB on its own new description fails while it does. Nothing but the
 * program's descriptions is held, so nothing of ours sits in its
 * descriptor table.
 *
 * The real files: /proc/stat and the process's own status and stat are kept open
 * (one descriptor each, close-on-exec, placed high) and read with pread at
 * offset 0, which makes procfs produce them again, fresh, as a new open
 * would. The program may have closed the descriptor and got the number
 * again for a file of its own: what pread gives is checked to read as the
 * file (real_looks_right), and only a failed pread or other bytes cost an
 * fstat (a system call at every read costs more than the rest of the
 * view on a machine where one costs a microsecond). Not told apart: a
 * file of the program's that reads as the real one (a copy of /proc/stat
 * put on that number), which gives the view that copy's lines. After a
 * fork the child opens its own.
 *
 * Anything that fails (no directory, a seccomp filter refusing flock or
 * madvise, /dev/shm full, a view larger than a slot) gives -1, and the
 * caller makes the view the old way. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/shim.h"
#include "preload/view.h"
#include "base/util.h"
#include "src/kept_views.h"
#include "src/rawsys.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

#define POOL_SLOTS 8
#define POOL_MAP ((size_t)1 << 20) /* address space reserved per slot */

struct slot {
	int busy;           /* a thread is at it (atomic) */
	unsigned skip;      /* turns to pass it by after finding it held */
	unsigned char *map; /* POOL_MAP bytes of it; NULL: not made yet */
	size_t size;        /* its length; its pages up to there exist */
	dev_t dev;
	ino_t ino;
	/* what it holds, to make it again when read from the start */
	enum cps_vkind k;
	pid_t tid;
	char real[64];
};

static struct {
	int state; /* 0: not tried (for pid), 1: usable, -1: not */
	pid_t pid; /* the process the pool is of: a forked child makes its own */
	unsigned next;
	size_t page, dirlen;
	char dir[SHIM_KEPT_DIR_MAX + 32];
	struct slot s[POOL_SLOTS];
} pool;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
/* Whether any process of this image made a pool: all the destructor reads
 * at an exit that has none. In .data, not in .bss beside pool: the start
 * writes the page of .data (relocations) and a read of pool would fault in
 * a page of .bss at every exit. */
static bool pool_made __attribute__((section(".data")));

/* <pool dir>/<i> (i < 10), without stdio: this is on every open */
static int slot_path(unsigned i, char *buf, size_t len)
{
	size_t dl = pool.dirlen;
	if (i > 9 || dl + 3 > len)
		return -1;
	memcpy(buf, pool.dir, dl);
	buf[dl] = '/';
	buf[dl + 1] = (char)('0' + i);
	buf[dl + 2] = 0;
	return 0;
}

/* Removes a pool directory (flat) under the kept views' directory: the
 * files of slots set in made (all of them for another process's). */
static void remove_pool_dir(const char *dir, unsigned made)
{
	char p[sizeof(pool.dir) + 16];
	for (unsigned i = 0; i < POOL_SLOTS; i++) {
		if (!(made & (1u << i)))
			continue;
		int n = snprintf(p, sizeof(p), "%s/%u", dir, i);
		if (n > 0 && (size_t)n < sizeof(p))
			unlink(p);
	}
	rmdir(dir);
}

/* The pool nm of kept, if its process is gone. */
static void reap_one(const char *kept, const char *nm)
{
	if (nm[0] != 'p' || nm[1] != '.' || !nm[2] || strspn(nm + 2, "0123456789") != strlen(nm + 2))
		return;
	long pid = strtol(nm + 2, NULL, 10);
	if (pid <= 0 || pid == shim_self_pid || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return;
	char p[sizeof(pool.dir)];
	int n = snprintf(p, sizeof(p), "%s/%s", kept, nm);
	if (n > 0 && (size_t)n < sizeof(p))
		remove_pool_dir(p, ~0u);
}

/* Pools of processes that are gone (killed before their exit could
 * remove them), once per process that makes a pool. */
static void reap_dead(const char *kept)
{
	/* the directory by getdents64: the shim's opendir is an interposer */
	int fd = shim_real.open(kept, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char d[4096] __attribute__((aligned(8)));
	long n;
	if (fd < 0)
		return;
	while ((n = cps_sys_getdents64(fd, d, sizeof(d))) > 0)
		for (long i = 0; i + 19 < n;) {
			/* struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name */
			unsigned short rl;
			memcpy(&rl, d + i + 16, sizeof(rl));
			if (rl < 20 || i + rl > n)
				break;
			reap_one(kept, d + i + 19);
			i += rl;
		}
	close(fd);
}

/* Drops a pool (a parent's, inherited by fork; or one whose directory
 * went away): its mappings, not its files. Under pool_lock. */
static void pool_reset(pid_t pid)
{
	for (unsigned i = 0; i < POOL_SLOTS; i++)
		if (pool.s[i].map)
			munmap(pool.s[i].map, POOL_MAP);
	memset(pool.s, 0, sizeof(pool.s));
	pool.state = 0;
	pool.pid = pid;
}

/* A directory of ours nobody else may write (as the kept views'). */
static bool own_dir(const char *d, mode_t mode)
{
	struct stat sb;
	if (mkdir(d, mode) < 0 && errno != EEXIST)
		return false;
	return shim_real_fstatat(AT_FDCWD, d, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode) && sb.st_uid == geteuid() &&
	       !(sb.st_mode & (S_IWGRP | S_IWOTH)) && (mode != 0700 || !(sb.st_mode & 077));
}

static bool pool_ready(void)
{
	pid_t me = shim_self_pid;
	if (CPS_LIKELY(__atomic_load_n(&pool.state, __ATOMIC_ACQUIRE) > 0 && pool.pid == me))
		return true;
	if (pthread_mutex_trylock(&pool_lock) != 0)
		return false;
	if (pool.pid != me)
		pool_reset(me);
	if (pool.state == 0) {
		char kept[SHIM_KEPT_DIR_MAX] = "";
		int n = -1;
		pool.state = -1;
		if (!shim_env_off("CPUSETSHIM_VIEW_POOL") &&
		    cps_kept_dir(kept, sizeof(kept), shim_table_name(), geteuid()) == 0 &&
		    own_dir(kept, 0755))
			n = snprintf(pool.dir, sizeof(pool.dir), "%s/p.%d", kept, (int)me);
		if (n > 0 && (size_t)n < sizeof(pool.dir)) {
			struct stat sb;
			/* the pools of processes killed before their exit: looked
			 * for by one process in 16, and by one that finds a pool of
			 * its own pid left (a killed one's: there are some) */
			if (me % 16 == 0 || shim_real_fstatat(AT_FDCWD, pool.dir, &sb, AT_SYMLINK_NOFOLLOW) == 0)
				reap_dead(kept);
			pool.dirlen = strlen(pool.dir);
			if (own_dir(pool.dir, 0700)) {
				long pg = getpagesize();
				pool.page = pg > 0 ? (size_t)pg : 4096;
				pool_made = true;
				__atomic_store_n(&pool.state, 1, __ATOMIC_RELEASE);
			}
		}
		if (pool.state < 0)
			shim_debug("stat and status views: no pool directory, a new file each open");
	}
	bool ok = pool.state > 0;
	pthread_mutex_unlock(&pool_lock);
	return ok;
}

/* Pages [from, to) of slot s exist after this, or it fails without
 * SIGBUS (a full /dev/shm, a kernel without MADV_POPULATE_WRITE). */
static bool populate(struct slot *s, size_t from, size_t to)
{
	size_t a = (from + pool.page - 1) / pool.page * pool.page;
	size_t b = (to + pool.page - 1) / pool.page * pool.page;
	return b <= a || madvise(s->map + a, b - a, MADV_POPULATE_WRITE) == 0;
}

/* Makes slot i's file and mapping (a file left by a dead process of our
 * pid is taken over). */
static bool slot_make(unsigned i)
{
	struct slot *s = &pool.s[i];
	char p[sizeof(pool.dir) + 16];
	struct stat sb;
	if (slot_path(i, p, sizeof(p)) < 0)
		return false;
	int w = shim_real.open(p, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (w < 0)
		return false;
	void *m = MAP_FAILED;
	if (fstat(w, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == geteuid() &&
	    (size_t)sb.st_size <= POOL_MAP)
		m = mmap(NULL, POOL_MAP, PROT_READ | PROT_WRITE, MAP_SHARED, w, 0);
	close(w);
	if (m == MAP_FAILED)
		return false;
	s->map = m;
	s->size = (size_t)sb.st_size;
	s->dev = sb.st_dev;
	s->ino = sb.st_ino;
	if (!populate(s, 0, s->size)) {
		munmap(m, POOL_MAP);
		s->map = NULL;
		return false;
	}
	return true;
}

/* Slot s (its file named p) holds data after this, or false. */
static bool slot_fill(struct slot *s, const char *p, const char *data, size_t len)
{
	if (len > s->size) {
		if (truncate(p, (off_t)len) < 0)
			return false;
		if (!populate(s, s->size, len)) {
			/* back to the pages it has; failing that, the slot is
			 * made again at its next use (slot_make takes the file
			 * over at its length, every page populated, or fails) */
			if (truncate(p, (off_t)s->size) < 0) {
				munmap(s->map, POOL_MAP);
				s->map = NULL;
			}
			return false;
		}
	}
	memcpy(s->map, data, len);
	if (len < s->size && truncate(p, (off_t)len) < 0)
		return false;
	s->size = len;
	return true;
}

static void slot_release(struct slot *s)
{
	__atomic_store_n(&s->busy, 0, __ATOMIC_RELEASE);
}

int shim_pool_deliver(enum cps_vkind k, const char *real, pid_t tid, const char *data, size_t len,
		      int flags, struct stat *id)
{
	if (len > POOL_MAP || strlen(real) >= sizeof(pool.s[0].real) || !pool_ready())
		return -1;
	char p[sizeof(pool.dir) + 16];
	/* no O_NOFOLLOW, which F_GETFL would show (see kept_oflags): the
	 * pool's directory is ours and writable by no one else */
	int oflags = O_RDONLY | O_NOCTTY |
		     (flags & (O_CLOEXEC | O_NONBLOCK | O_NOATIME | O_NOFOLLOW | SHIM_VIEW_STATUS_FLAGS));
	for (unsigned tries = 0; tries < 2 * POOL_SLOTS; tries++) {
		unsigned i = __atomic_fetch_add(&pool.next, 1, __ATOMIC_RELAXED) % POOL_SLOTS;
		struct slot *s = &pool.s[i];
		if (s->skip) {
			s->skip--;
			continue;
		}
		if (__atomic_exchange_n(&s->busy, 1, __ATOMIC_ACQUIRE))
			continue;
		if ((!s->map && !slot_make(i)) || slot_path(i, p, sizeof(p)) < 0) {
			slot_release(s);
			return -1;
		}
		int fd = shim_real.open(p, oflags);
		if (fd < 0) {
			/* the directory went away (cpuset init --force): this
			 * slot starts again, in a directory made again */
			if (errno == ENOENT) {
				munmap(s->map, POOL_MAP);
				s->map = NULL;
				struct stat sb;
				if (shim_real_fstatat(AT_FDCWD, pool.dir, &sb, AT_SYMLINK_NOFOLLOW) < 0 && pthread_mutex_trylock(&pool_lock) == 0) {
					__atomic_store_n(&pool.state, 0, __ATOMIC_RELEASE);
					pthread_mutex_unlock(&pool_lock);
				}
			}
			slot_release(s);
			return -1;
		}
		/* held by a description of an earlier view: leave it for a while */
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			int e = errno;
			close(fd);
			slot_release(s);
			if (e != EWOULDBLOCK)
				return -1; /* flock refused altogether */
			s->skip = 3;
			continue;
		}
		if (!slot_fill(s, p, data, len)) {
			close(fd);
			slot_release(s);
			return -1;
		}
		s->k = k;
		s->tid = tid;
		strcpy(s->real, real);
		id->st_dev = s->dev;
		id->st_ino = s->ino;
		slot_release(s);
		return fd;
	}
	return -1;
}

int shim_pool_rewound(const struct stat *sb)
{
	if (__atomic_load_n(&pool.state, __ATOMIC_ACQUIRE) <= 0 || pool.pid != shim_self_pid)
		return -1;
	for (unsigned i = 0; i < POOL_SLOTS; i++) {
		struct slot *s = &pool.s[i];
		if (!s->map || s->dev != sb->st_dev || s->ino != sb->st_ino)
			continue;
		if (__atomic_exchange_n(&s->busy, 1, __ATOMIC_ACQUIRE))
			return 0; /* another thread is writing it: fresh enough */
		struct shim_cpus v;
		struct cps_buf b = { 0 };
		char p[sizeof(pool.dir) + 16];
		if (shim_cpus_now(&v) && slot_path(i, p, sizeof(p)) == 0 &&
		    shim_view_build(s->k, s->real, s->tid, &v, &b) == 0)
			slot_fill(s, p, b.p, b.len);
		cps_buf_free(&b);
		slot_release(s);
		return 0;
	}
	return -1;
}

/* At exit, the pool's files go (views still open elsewhere, in a child
 * say, keep working: their files are only unlinked). */
__attribute__((destructor)) static void pool_remove(void)
{
	if (pool_made && pool.state > 0 && pool.pid == getpid()) {
		unsigned made = 0;
		for (unsigned i = 0; i < POOL_SLOTS; i++)
			if (pool.s[i].map)
				made |= 1u << i;
		remove_pool_dir(pool.dir, made);
	}
}

/* ---- the real files, kept open ---- */

/* [0..2]: /proc/stat, our status, our stat; then the CPU files of our
 * cpuset cgroup (a cgroup kind), by path, the last few read. */
#define REAL_CG 4
#define REAL_CG_PATH 256
static struct real_kept {
	int busy;
	int fd; /* -1 (when pid is ours): none */
	pid_t pid;
	dev_t dev;
	ino_t ino;
	size_t last; /* the length read last time */
	char path[REAL_CG_PATH]; /* of a cgroup kind's: its file ("": none) */
} real_kept[3 + REAL_CG] = { [0 ... 2 + REAL_CG] = { .fd = -1 } };
static unsigned real_cg_next;

/* The entry for k (and real, for a cgroup kind: taken over from the oldest
 * when it has none; *fresh then says it must be opened), or NULL;
 * busy on return. */
static struct real_kept *real_entry(enum cps_vkind k, const char *real, bool *fresh)
{
	*fresh = false;
	if (k == CPS_VK_STAT || k == CPS_VK_STATUS || k == CPS_VK_PIDSTAT) {
		struct real_kept *f = &real_kept[k == CPS_VK_STAT ? 0 : k == CPS_VK_STATUS ? 1 : 2];
		return __atomic_exchange_n(&f->busy, 1, __ATOMIC_ACQUIRE) ? NULL : f;
	}
	size_t rl = strlen(real);
	if (!shim_vk_cgroup(k) || rl >= REAL_CG_PATH)
		return NULL;
	for (unsigned i = 3; i < 3 + REAL_CG; i++) {
		struct real_kept *f = &real_kept[i];
		if (__atomic_exchange_n(&f->busy, 1, __ATOMIC_ACQUIRE))
			continue;
		if (!strcmp(f->path, real))
			return f;
		__atomic_store_n(&f->busy, 0, __ATOMIC_RELEASE);
	}
	/* none: the next in turn, its file closed (ours when the number
	 * still names what it opened) */
	struct real_kept *f = &real_kept[3 + __atomic_fetch_add(&real_cg_next, 1,
								 __ATOMIC_RELAXED) % REAL_CG];
	if (__atomic_exchange_n(&f->busy, 1, __ATOMIC_ACQUIRE))
		return NULL;
	struct stat st;
	if (f->fd >= 0 && f->pid == shim_self_pid && fstat(f->fd, &st) == 0 &&
	    st.st_dev == f->dev && st.st_ino == f->ino)
		close(f->fd);
	f->fd = -1;
	f->last = 0;
	memcpy(f->path, real, rl + 1);
	*fresh = true;
	return f;
}

/* Opens path for f. Under f->busy. */
static bool real_open(struct real_kept *f, const char *path)
{
	struct stat sb;
	int fd = shim_real.open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	int hi = fcntl(fd, F_DUPFD_CLOEXEC, SHIM_REAL_FD_MIN);
	if (hi >= 0) {
		close(fd);
		fd = hi;
	}
	if (fstat(fd, &sb) < 0) {
		close(fd);
		return false;
	}
	f->fd = fd;
	f->pid = shim_self_pid;
	f->dev = sb.st_dev;
	f->ino = sb.st_ino;
	return true;
}

/* Whether f's descriptor is still the file it opened (the program may
 * have closed the number and got it again for a file of its own). */
static bool real_still_ours(const struct real_kept *f)
{
	struct stat st;
	return fstat(f->fd, &st) == 0 && st.st_dev == f->dev && st.st_ino == f->ino;
}

/* Whether b[0..n) can be what the real file of kind k gives: the check
 * that stands for an fstat at every read. A descriptor whose number the
 * program closed and got again for a file of its own fails its pread
 * (EBADF; ESPIPE for a pipe or socket, EISDIR) or gives other bytes, and
 * is then checked with fstat. /proc/stat begins "cpu ", a status "Name:",
 * our stat "<our pid> (", a cgroup's CPU list is digits, ',' and '-' to a
 * newline. */
static bool real_looks_right(enum cps_vkind k, const char *b, size_t n)
{
	switch (k) {
	case CPS_VK_STAT: return n >= 4 && !memcmp(b, "cpu ", 4);
	case CPS_VK_STATUS: return n >= 5 && !memcmp(b, "Name:", 5);
	case CPS_VK_PIDSTAT: {
		char d[CPS_DEC_MAX];
		size_t dl = cps_fmt_dec(d, (uint64_t)shim_self_pid);
		return n > dl + 1 && !memcmp(b, d, dl) && b[dl] == ' ' && b[dl + 1] == '(';
	}
	case CPS_VK_CGROUP_CPUS:
	case CPS_VK_CGROUP_MEMS:
		if (!n || b[n - 1] != '\n')
			return false;
		for (size_t i = 0; i + 1 < n; i++)
			if (!((b[i] >= '0' && b[i] <= '9') || b[i] == ',' || b[i] == '-'))
				return false;
		return true;
	default: return false;
	}
}

/* One pread at offset 0 into b: its length (less than cap: the whole
 * file, procfs and kernfs make it whole at 0), cap when it did not fit,
 * or -errno. */
static ssize_t read_at0(int fd, char *b, size_t cap)
{
	ssize_t n;
	do
		n = shim_real.pread(fd, b, cap, 0);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

static int took(struct real_kept *f, char *b, size_t n, char **out, size_t *len)
{
	f->last = n;
	*out = b;
	*len = n;
	return 0;
}

/* Whether f's descriptor is still the one the shim opened: in steady
 * state it is believed without fstat (what its pread gives is checked
 * instead, real_looks_right); one inherited from the parent is checked,
 * and kept only for files that are the same for the child. */
static bool real_believed(struct real_kept *f, enum cps_vkind k, bool fresh)
{
	bool ours = !fresh && f->fd >= 0 && f->pid == shim_self_pid;
	if (!fresh && f->fd >= 0 && f->pid != shim_self_pid) {
		/* inherited from the parent: its status is not ours (a
		 * cgroup's file is the same file for the child) */
		ours = real_still_ours(f);
		if (ours && k != CPS_VK_STAT && !shim_vk_cgroup(k)) {
			close(f->fd);
			ours = false;
		}
		f->pid = shim_self_pid;
	}
	return ours;
}

/* The file did not fit the caller's buffer: read it into a malloc'd one,
 * growing until it fits. 0 with *out set, -errno, or -EAGAIN when the
 * descriptor turned out to be the program's (forgotten, not closed). */
static int read_grown(struct real_kept *f, enum cps_vkind k, char **out, size_t *len)
{
	for (size_t cap = f->last + f->last / 2 + 4096;; cap *= 2) {
		char *b = malloc(cap);
		if (!b)
			return -ENOMEM;
		ssize_t n = read_at0(f->fd, b, cap);
		if (n >= 0 && (size_t)n < cap && !real_looks_right(k, b, (size_t)n) &&
		    !real_still_ours(f)) {
			free(b);
			f->fd = -1; /* the program's: read the usual way */
			return -EAGAIN;
		}
		if (n >= 0 && (size_t)n < cap)
			return took(f, b, (size_t)n, out, len);
		free(b);
		if (n < 0)
			return (int)n;
	}
}

int shim_real_read(enum cps_vkind k, const char *real, char *sb, size_t sbcap, char **out,
		   size_t *len)
{
	/* CPS_VK_PIDSTAT: the process's own stat only (the caller checks) */
	static const char *const paths[3] = { "/proc/stat", "/proc/self/status", "/proc/self/stat" };
	bool fresh;
	struct real_kept *f = shim_real.pread ? real_entry(k, real, &fresh) : NULL;
	if (!f)
		return -EAGAIN;
	const char *path = shim_vk_cgroup(k) ? f->path : paths[f - real_kept];
	bool ours = real_believed(f, k, fresh);
	int r = -EAGAIN;
	if (!ours && !real_open(f, path))
		goto out;
	/* it fitted last time: the caller's buffer first */
	ssize_t n = f->last < sbcap ? read_at0(f->fd, sb, sbcap) : (ssize_t)sbcap;
	if (ours && (n < 0 || ((size_t)n < sbcap && !real_looks_right(k, sb, (size_t)n))) &&
	    !real_still_ours(f)) {
		/* the number is the program's now: forgotten, not closed */
		f->fd = -1;
		if (!real_open(f, path))
			goto out;
		n = f->last < sbcap ? read_at0(f->fd, sb, sbcap) : (ssize_t)sbcap;
	}
	if (n >= 0 && (size_t)n < sbcap) {
		r = took(f, sb, (size_t)n, out, len);
		goto out;
	}
	if (n < 0) {
		r = (int)n;
		goto out;
	}
	r = read_grown(f, k, out, len);
out:
	if (r < 0 && r != -EAGAIN && f->fd >= 0) {
		/* the file went (a cgroup removed): the next read opens it again */
		close(f->fd);
		f->fd = -1;
	}
	__atomic_store_n(&f->busy, 0, __ATOMIC_RELEASE);
	return r;
}
