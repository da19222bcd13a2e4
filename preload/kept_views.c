/* SPDX-License-Identifier: BSD-3-Clause */
/* Kept views: the virtual files whose contents do not change at every
 * read (the CPU ranges, cpuinfo), kept as files in the directory beside
 * the table that src/kept_views.h names, so that each open is one open(2)
 * of a tmpfs file. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "preload/shim.h"
#include "preload/view.h"
#include "src/kept_views.h"

/* How long a kept view made from a real file serves before it is made
 * again from it: cpuinfo's "cpu MHz" lines change on real hardware, and a
 * CPU taken offline or SMT switched off changes the topology files. */
#define KEEP_VIEW_NS 1000000000ull

static struct {
	int state; /* 0: not tried yet, 1: the directory is usable, -1: not */
	char dir[SHIM_KEPT_DIR_MAX];
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
 * directory of ours that nobody else may write. Decided once, by a
 * process with a table in use (READY); one without (no table, no set in
 * it, not set up yet) makes nothing and decides nothing: a directory that
 * is there already is still recognised, for a descriptor's target
 * (shim_view_own_file). A thread that finds another deciding (or a child
 * forked meanwhile) makes its view the slow way this time. */
static bool kept_dir_ok(void)
{
	int st = __atomic_load_n(&kept.state, __ATOMIC_ACQUIRE);
	if (CPS_LIKELY(st))
		return st > 0;
	if (pthread_mutex_trylock(&kept_lock) != 0)
		return false;
	bool decide = __atomic_load_n(&shim_state, __ATOMIC_ACQUIRE) == ST_READY;
	if ((st = kept.state) == 0) {
		char d[sizeof(kept.dir)] = "";
		uid_t uid = geteuid();
		struct stat sb;
		st = -1;
		if (!shim_env_off("CPUSETSHIM_KEEP_VIEWS") && *shim_table_name() &&
		    cps_kept_dir(d, sizeof(d), shim_table_name(), uid) == 0 &&
		    (!decide || mkdir(d, 0755) == 0 || errno == EEXIST) &&
		    shim_real_fstatat(AT_FDCWD, d, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode) &&
		    sb.st_uid == uid && !(sb.st_mode & (S_IWGRP | S_IWOTH))) {
			memcpy(kept.dir, d, sizeof(d));
			st = 1;
		} else if (decide) {
			shim_debug("views are made at each open: no usable directory %s", d);
		}
		if (decide)
			__atomic_store_n(&kept.state, st, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&kept_lock);
	return st > 0;
}

const char *shim_kept_dirname(void)
{
	return kept_dir_ok() ? kept.dir : NULL;
}

/* The kept view of kind k for the set in v: an fd on it, or -1. Then
 * *name is its file and *store says whether the caller should make it
 * (missing, or a cpuinfo view past its time) and shim_kept_store() it. */
/* open(2) flags of a kept view: the caller's that mean something for a
 * regular file we read. No O_NOFOLLOW: fcntl(F_GETFL) would show it to
 * the program, where the real file's has none (the caller's own O_NOFOLLOW is kept); and the directory is
 * checked to be ours and writable by no one else, so no one else can put
 * a link in it. */
static int kept_oflags(int flags)
{
	return O_RDONLY | O_NOCTTY |
	       (flags & (O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | SHIM_VIEW_STATUS_FLAGS));
}

int shim_kept_open(enum cps_vkind k, const struct shim_cpus *v, int flags, char *name, size_t len,
		     uint64_t *keyp, bool *store)
{
	*store = false;
	if (!kept_dir_ok())
		return -1;
	uint64_t key = 0, now = 0;
	int n;
	if (k == CPS_VK_RANGE || k == CPS_VK_POSSIBLE) {
		struct cps_view_input in = shim_view_input(v);
		n = snprintf(name, len, "%s/range-%u", kept.dir,
			     k == CPS_VK_RANGE ? v->n : cps_view_width(&in));
	} else {
		key = cps_kept_key(v->cpus, v->nw, v->n);
		n = snprintf(name, len, "%s/cpuinfo-%016llx", kept.dir, (unsigned long long)key);
	}
	if (n < 0 || (size_t)n >= len)
		return -1;
	*keyp = key;
	int oflags = kept_oflags(flags);
	bool check = false;
	if (k == CPS_VK_CPUINFO) {
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
		if (made && made <= now + KEEP_VIEW_NS && now < made + KEEP_VIEW_NS) {
			__atomic_store_n(&kept.ci_key, key, __ATOMIC_RELAXED);
			__atomic_store_n(&kept.ci_until, made + KEEP_VIEW_NS, __ATOMIC_RELAXED);
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
 * readers get one or the other whole), then opens it as shim_kept_open does. */
int shim_kept_store(enum cps_vkind k, const char *name, uint64_t key, const char *data, size_t len,
		      int flags)
{
	static unsigned seq;
	char tmp[sizeof(kept.dir) + 64];
	int n = snprintf(tmp, sizeof(tmp), "%s/.new-%d-%ld-%u", kept.dir, (int)getpid(),
			 (long)shim_gettid(), __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -1;
	int w = shim_real.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
	if (w < 0)
		return -1;
	bool whole = shim_write_all(w, data, len);
	if (close(w) < 0 || !whole || rename(tmp, name) < 0) {
		unlink(tmp);
		return -1;
	}
	if (k == CPS_VK_CPUINFO) {
		__atomic_store_n(&kept.ci_key, key, __ATOMIC_RELAXED);
		__atomic_store_n(&kept.ci_until, now_ns() + KEEP_VIEW_NS, __ATOMIC_RELAXED);
	}
	return shim_real.open(name, kept_oflags(flags));
}


/* The times until which this process found kept /sys views recent: a
 * direct-mapped cache of (the name's hash, until) words, 32 bits each
 * (until in ms, compared across its wrap), one atomic word per entry. */
#define RECENT_SLOTS 256
static uint64_t recent[RECENT_SLOTS];

static uint32_t name_hash(const char *name)
{
	uint32_t h = 2166136261u;
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h | 1; /* never 0: an empty slot */
}

int shim_kept_open_recent(const char *name, int flags)
{
	uint32_t h = name_hash(name);
	uint64_t *slot = &recent[h % RECENT_SLOTS], now = now_ns();
	uint64_t e = __atomic_load_n(slot, __ATOMIC_RELAXED);
	bool known = (uint32_t)(e >> 32) == h && (int32_t)((uint32_t)e - (uint32_t)(now / 1000000)) > 0;
	int fd = shim_real.open(name, kept_oflags(flags));
	if (fd < 0 || known)
		return fd;
	struct stat sb;
	uint64_t made = 0;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
		made = (uint64_t)sb.st_mtim.tv_sec * 1000000000ull + (uint64_t)sb.st_mtim.tv_nsec;
	if (made && made <= now + KEEP_VIEW_NS && now < made + KEEP_VIEW_NS) {
		uint32_t until = (uint32_t)((made + KEEP_VIEW_NS) / 1000000);
		__atomic_store_n(slot, (uint64_t)h << 32 | until, __ATOMIC_RELAXED);
		return fd;
	}
	close(fd);
	return -1;
}

int shim_kept_content(const char *tag, const char *data, size_t len, int flags)
{
	static const char hex[] = "0123456789abcdef";
	char name[sizeof(kept.dir) + 64];
	uint64_t h = 1469598103934665603ull;
	if (!kept_dir_ok())
		return -1;
	size_t dl = strlen(kept.dir), tl = strlen(tag);
	if (dl + 1 + tl + 1 + 16 + 1 + CPS_DEC_MAX > sizeof(name))
		return -1;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)data[i]) * 1099511628211ull;
	/* <dir>/<tag>-<hash>-<length>, no stdio: this is on every open */
	char *p = name;
	memcpy(p, kept.dir, dl);
	p += dl;
	*p++ = '/';
	memcpy(p, tag, tl);
	p += tl;
	*p++ = '-';
	for (int i = 60; i >= 0; i -= 4)
		*p++ = hex[(h >> i) & 15];
	*p++ = '-';
	cps_fmt_dec(p, len);
	int fd = shim_real.open(name, kept_oflags(flags));
	if (fd >= 0 || errno != ENOENT)
		return fd;
	return shim_kept_store(CPS_VK_NONE, name, 0, data, len, flags);
}
