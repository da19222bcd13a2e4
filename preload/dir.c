/* SPDX-License-Identifier: BSD-3-Clause */
/* Listings of the directories whose entries name CPUs
 * (/sys/devices/system/cpu, /sys/bus/cpu/devices, the nodes' nodeK):
 * opendir, fdopendir, readdir, readdir64, scandir, scandir64, closedir.
 *
 * Such a directory is remembered by its descriptor when it is opened
 * (opendir here, or an open in preload/view_sys.c), with the set as it
 * was then, so the whole listing is of one set; a descriptor the shim did
 * not see opened (a copy made by dup, dup2, dup3 or fcntl, one passed
 * over a socket or inherited) is one of ours when fdopendir finds it
 * points at such a directory, with the set as it is then (adopt). readdir
 * then shows each "cpuP" entry of a CPU of the set as "cpuV" (never
 * longer: V <= P, renamed in place in libc's buffer) and skips the other
 * cpuP entries; everything else is as the kernel lists it. Any other
 * directory costs one pointer test per readdir while no such directory
 * was ever opened. glibc's glob and nftw list directories with internal
 * calls an interposer cannot see (doc/limits.md). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "preload/shim.h"
#include "preload/view.h"
#include "src/mask.h"
#include "src/path.h"
#include "src/vpath.h"
#include "src/vsys.h"

#define VDIR_MAX 4096

struct vdir {
	DIR *dir; /* NULL until fdopendir gives it one */
	dev_t dev;
	ino_t ino;
	struct cps_view_input in;
	uint64_t mems[CPS_WORDS_FOR(1024)]; /* the set's nodes, in.k of them */
	size_t cap; /* words of set[] */
	uint64_t set[];
};
/* A few forgotten ones, kept for the next listings (under vdir_lock):
 * a listing costs no malloc and free once one was made. */
#define VDIR_SPARES 4
static struct vdir *vdir_spare[VDIR_SPARES];
static struct vdir **vdirs; /* VDIR_MAX entries, mapped at the first */
static pthread_mutex_t vdir_lock = PTHREAD_MUTEX_INITIALIZER;

/* t forgotten: kept for the next listing, or freed. Under vdir_lock. */
static void spare(struct vdir *t)
{
	for (int i = 0; t && i < VDIR_SPARES; i++)
		if (!vdir_spare[i]) {
			vdir_spare[i] = t;
			return;
		}
	free(t);
}

void shim_dir_remember(int fd, DIR *d, const struct shim_cpus *v, const struct cps_view_input *vin)
{
	struct stat sb = { 0 };
	size_t nw = CPS_WORDS_FOR(cps_mask_last(v->cpus, v->nw) + 1);

	/* the inode is for fdopendir's check only: a DIR we have needs none */
	if ((unsigned)fd >= VDIR_MAX || (!d && fstat(fd, &sb) < 0) ||
	    pthread_mutex_trylock(&vdir_lock))
		return;
	if (!vdirs) {
		void *m = mmap(NULL, VDIR_MAX * sizeof(*vdirs), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED)
			__atomic_store_n(&vdirs, (struct vdir **)m, __ATOMIC_RELEASE);
	}
	struct vdir *t = NULL;
	for (int i = 0; vdirs && i < VDIR_SPARES && !t; i++)
		if (vdir_spare[i] && vdir_spare[i]->cap >= nw) {
			t = vdir_spare[i];
			vdir_spare[i] = NULL;
		}
	if (!t && vdirs && (t = malloc(sizeof(*t) + nw * sizeof(uint64_t))))
		t->cap = nw;
	if (t) {
		t->dir = d;
		t->dev = sb.st_dev;
		t->ino = sb.st_ino;
		memcpy(t->set, v->cpus, nw * sizeof(uint64_t));
		t->in.set = t->set;
		t->in.nw = nw;
		t->in.n = v->n;
		t->in.vallowed = NULL;
		t->in.vnw = 0;
		t->in.k = 0;
		t->in.mems = t->mems;
		t->in.mnw = sizeof(t->mems) / sizeof(t->mems[0]);
		memset(t->mems, 0, sizeof(t->mems));
		if (vin && vin->k) { /* nodes beyond 1023: a set too wide to rename */
			size_t mw = vin->mnw < t->in.mnw ? vin->mnw : t->in.mnw;
			memcpy(t->mems, vin->mems, mw * sizeof(uint64_t));
			t->in.k = cps_mask_count(t->mems, t->in.mnw);
		}
		struct vdir *old = vdirs[fd];
		__atomic_store_n(&vdirs[fd], t, __ATOMIC_RELEASE);
		spare(old);
	}
	pthread_mutex_unlock(&vdir_lock);
}

static void forget(int fd)
{
	if ((unsigned)fd >= VDIR_MAX || !vdirs)
		return;
	pthread_mutex_lock(&vdir_lock);
	struct vdir *t = vdirs[fd];
	__atomic_store_n(&vdirs[fd], NULL, __ATOMIC_RELEASE);
	spare(t);
	pthread_mutex_unlock(&vdir_lock);
}

/* Whether a directory name may be one of ours (preload/path.c's first
 * test: no system call). */
static bool may_be_ours(const char *p)
{
	if (!p || !*p)
		return false;
	return shim_path_may_view(AT_FDCWD, p);
}

/* For the walkers (glob, nftw): a start that may lead into /sys (odd
 * spellings and relative ones included), not any path below /s or /p:
 * every other walk stays glibc's own. */
static bool walk_may_be_ours(const char *p)
{
	if (!may_be_ours(p))
		return false;
	/* below the test root: any (shim_unrooted names it the same path
	 * below /, where the test below would take too few) */
	return p[0] != '/' || !strncmp(p, "/sys", 4) || p[1] == '/' || p[1] == '.' ||
	       shim_unrooted(p) != p;
}

/* The remembered listing d is, or NULL. */
static struct vdir *vdir_of(DIR *d)
{
	struct vdir **tab = __atomic_load_n(&vdirs, __ATOMIC_ACQUIRE);
	int fd;

	if (!tab || !d || (fd = dirfd(d)) < 0 || fd >= VDIR_MAX)
		return NULL;
	struct vdir *t = __atomic_load_n(&tab[fd], __ATOMIC_ACQUIRE);
	return t && t->dir == d ? t : NULL;
}

/* /sys/devices/system/cpu itself: libc's opendir of its path costs its
 * open and fstat; below the kept descriptor it would cost the check that
 * the descriptor is still the directory (an fstat) and fdopendir's fstat
 * and two fcntl, more than the walk they save where a system call is dear */
static bool cpudir_itself(const char *phys)
{
	static const char cd[] = "/sys/devices/system/cpu";
	return !strncmp(phys, cd, sizeof(cd) - 1) &&
	       (!phys[sizeof(cd) - 1] || (phys[sizeof(cd) - 1] == '/' && !phys[sizeof(cd)]));
}

EXPORT DIR *opendir(const char *name)
{
	char canon[PATH_MAX];
	struct shim_vpath vp;

	shim_resolve_all();
	if (!shim_real.opendir) {
		errno = ENOSYS;
		return NULL;
	}
	/* only what may name a /sys directory of ours is looked at */
	if (!shim_sys_lookup(AT_FDCWD, name, O_DIRECTORY, canon, sizeof(canon), &vp))
		return shim_real.opendir(name);
	int k = shim_vpath_sys(&vp) ? vp.kind : CPS_VK_NONE;
	if (k == CPS_VK_ABSENT) {
		errno = ENOENT;
		return NULL;
	}
	if (k <= CPS_VK_NONE)
		return shim_real.opendir(name);
	/* the physical path, below the test root if any (shim_vlookup) */
	const char *phys = shim_vpath_unrooted(&vp), *at = vp.phys;
	bool root = vp.rl != 0;
	DIR *d;
	if (!root && k == CPS_VK_DIR && shim_real.fdopendir && !cpudir_itself(phys)) {
		/* opendir's own flags, below the kept descriptor (cpudir.c) */
		int fd = shim_cpudir_open(phys, O_RDONLY | O_NDELAY | O_DIRECTORY | O_CLOEXEC, 0);
		if (fd < 0)
			return NULL;
		if (!(d = shim_real.fdopendir(fd))) {
			SHIM_KEEP_ERRNO;
			close(fd);
			return NULL;
		}
	} else {
		d = shim_real.opendir(at);
	}
	if (d && k == CPS_VK_DIR) {
		SHIM_KEEP_ERRNO;
		shim_dir_remember(dirfd(d), d, &vp.set.v, &vp.set.in);
	}
	return d;
}

/* The devices of the listings of ours: the CPU directory's and the node
 * directory's (sysfs's both, unless one is mounted over: a copy of the
 * CPU directory with caches added, tests/topo/with_caches.sh), and below
 * the test root theirs too (the captured machine's file system), learnt
 * once per process with two stats (four under a test root); whether dev
 * is one of them. */
static bool listing_dev(dev_t dev)
{
	static dev_t devs[4];
	static int known; /* 0 not yet, 1 devs */
	if (CPS_UNLIKELY(!__atomic_load_n(&known, __ATOMIC_ACQUIRE))) {
		static const char *const dirs[2] = { "/sys/devices/system/cpu",
						     "/sys/devices/system/node" };
		for (int i = 0; i < 4; i++) {
			struct stat sb;
			char rp[PATH_MAX];
			const char *p = dirs[i % 2];
			if (i >= 2)
				p = shim_rooted(p, rp, sizeof(rp)) && strcmp(rp, p) ? rp : NULL;
			dev_t dv = p && shim_real_fstatat(AT_FDCWD, p, &sb, 0) == 0 ? sb.st_dev : 0;
			/* racing first callers find the same devices */
			__atomic_store_n(&devs[i], dv, __ATOMIC_RELAXED);
		}
		/* (before libc is up the test root is not known yet) */
		if (shim_libc_up())
			__atomic_store_n(&known, 1, __ATOMIC_RELEASE);
	}
	for (int i = 0; i < 4; i++)
		if (dev != 0 && dev == __atomic_load_n(&devs[i], __ATOMIC_RELAXED))
			return true;
	return false;
}

/* A directory descriptor the shim did not see opened as a listing of
 * its own: a copy of one (dup, dup2, dup3, F_DUPFD, F_DUPFD_CLOEXEC),
 * one passed over a socket or inherited through exec, one opened by a
 * system call of the program's own. It is one of ours if it points at
 * one of our directories: the set is the caller's now. One fstat for a
 * directory outside sysfs (and the test root's file system), a readlink
 * more for one in it. */
static __attribute__((noinline)) void adopt(int fd, DIR *d)
{
	char canon[PATH_MAX];
	struct shim_vpath vp;
	struct stat sb;
	SHIM_KEEP_ERRNO;

	if (fstat(fd, &sb) < 0 || !listing_dev(sb.st_dev))
		return;
	if (shim_resolving || !shim_dirfd_canon(fd, canon, sizeof(canon)))
		return;
	shim_vlookup(canon, false, &vp);
	if (shim_vpath_sys(&vp) && vp.kind == CPS_VK_DIR)
		shim_dir_remember(fd, d, &vp.set.v, &vp.set.in);
}

EXPORT DIR *fdopendir(int fd)
{
	shim_resolve_all();
	if (!shim_real.fdopendir) {
		errno = ENOSYS;
		return NULL;
	}
	DIR *d = shim_real.fdopendir(fd);
	if (!d || (unsigned)fd >= VDIR_MAX)
		return d;
	struct vdir **tab = __atomic_load_n(&vdirs, __ATOMIC_ACQUIRE);
	struct vdir *t = tab ? __atomic_load_n(&tab[fd], __ATOMIC_ACQUIRE) : NULL;
	if (CPS_UNLIKELY(t != NULL)) {
		struct stat sb;
		SHIM_KEEP_ERRNO;
		/* opened by us as such a directory, and still that file */
		if (!t->dir && fstat(fd, &sb) == 0 && sb.st_dev == t->dev && sb.st_ino == t->ino) {
			t->dir = d;
			return d;
		}
		/* another file on the number now (the listing it had was
		 * closed with close(2), not closedir) */
		forget(fd);
	}
	adopt(fd, d);
	return d;
}

/* The entry as the set's machine lists it: false to skip it. */
static bool show(struct vdir *t, char *name)
{
	char out[NAME_MAX + 1];

	if ((name[0] != 'c' || name[1] != 'p' || name[2] != 'u') &&
	    (!t->in.k || name[0] != 'n' || name[1] != 'o'))
		return true;
	int r = cps_vsys_dirent(name, &t->in, out);
	if (r > 0)
		strcpy(name, out); /* never longer */
	return r >= 0;
}

EXPORT struct dirent *readdir(DIR *d)
{
	if (CPS_UNLIKELY(!shim_real.readdir)) {
		shim_resolve_all();
		if (!shim_real.readdir) {
			errno = ENOSYS;
			return NULL;
		}
	}
	struct vdir *t;
	if (CPS_LIKELY(!__atomic_load_n(&vdirs, __ATOMIC_RELAXED)) || !(t = vdir_of(d)))
		return shim_real.readdir(d);
	struct dirent *e;
	while ((e = shim_real.readdir(d)) && !show(t, e->d_name))
		;
	return e;
}

EXPORT struct dirent64 *readdir64(DIR *d)
{
	if (CPS_UNLIKELY(!shim_real.readdir64)) {
		shim_resolve_all();
		if (!shim_real.readdir64) {
			errno = ENOSYS;
			return NULL;
		}
	}
	struct vdir *t;
	if (CPS_LIKELY(!__atomic_load_n(&vdirs, __ATOMIC_RELAXED)) || !(t = vdir_of(d)))
		return shim_real.readdir64(d);
	struct dirent64 *e;
	while ((e = shim_real.readdir64(d)) && !show(t, e->d_name))
		;
	return e;
}

EXPORT int closedir(DIR *d)
{
	shim_resolve_all();
	if (!shim_real.closedir) {
		errno = ENOSYS;
		return -1;
	}
	if (CPS_UNLIKELY(__atomic_load_n(&vdirs, __ATOMIC_RELAXED) != NULL) && vdir_of(d))
		forget(dirfd(d));
	return shim_real.closedir(d);
}

/* glibc's scandir lists with its internal opendir and readdir: for our
 * directories it is done here with ours. */
#define SCANDIR(NAME, DIRENT, READ)                                                     \
	EXPORT int NAME(const char *dir, struct DIRENT ***list,                          \
			int (*sel)(const struct DIRENT *),                               \
			int (*cmp)(const struct DIRENT **, const struct DIRENT **))      \
	{                                                                                \
		shim_resolve_all();                                                               \
		if (!shim_real.NAME) {                                                    \
			errno = ENOSYS;                                                  \
			return -1;                                                       \
		}                                                                        \
		if (!may_be_ours(dir))                                                   \
			return shim_real.NAME(dir, list, sel, cmp);                       \
		DIR *d = opendir(dir);                                                   \
		if (!d)                                                                  \
			return -1;                                                       \
		if (!vdir_of(d)) {                                                       \
			closedir(d);                                                     \
			return shim_real.NAME(dir, list, sel, cmp);                       \
		}                                                                        \
		struct DIRENT **v = NULL, *e;                                            \
		size_t n = 0, cap = 0;                                                   \
		int saved = errno, err = 0;                                              \
		while ((e = READ(d))) {                                                  \
			if (sel && !sel(e))                                              \
				continue;                                                \
			size_t sz = offsetof(struct DIRENT, d_name) + strlen(e->d_name) + 1; \
			struct DIRENT *c = malloc(sz < sizeof(*c) ? sizeof(*c) : sz);    \
			if (n == cap) {                                                  \
				void *nv = realloc(v, (cap = cap ? cap * 2 : 32) * sizeof(*v)); \
				if (!nv) {                                               \
					free(c);                                         \
					c = NULL;                                        \
				} else {                                                 \
					v = nv;                                          \
				}                                                        \
			}                                                                \
			if (!c) {                                                        \
				err = ENOMEM;                                            \
				break;                                                   \
			}                                                                \
			memcpy(c, e, sz);                                                \
			c->d_reclen = (unsigned short)sz;                                \
			v[n++] = c;                                                      \
		}                                                                        \
		closedir(d);                                                             \
		if (err) {                                                               \
			while (n)                                                        \
				free(v[--n]);                                            \
			free(v);                                                         \
			errno = err;                                                     \
			return -1;                                                       \
		}                                                                        \
		if (cmp && n > 1)                                                        \
			qsort(v, n, sizeof(*v), (int (*)(const void *, const void *))cmp); \
		*list = v;                                                               \
		errno = saved;                                                           \
		return (int)n;                                                           \
	}
SCANDIR(scandir, dirent, readdir)
SCANDIR(scandir64, dirent64, readdir64)

/* glibc's glob lists with internal calls too: for a pattern that may
 * name our directories it is asked to list with ours (GLOB_ALTDIRFUNC). */

static void glob_closedir(void *d)
{
	closedir(d);
}

/* The functions glob is handed: they call the shim's by name. Handing
 * the exports' own addresses would cost a symbol look-up by the loader at
 * every program's start, glob called or not; a call is looked up at its
 * first call. */
static void *glob_opendir(const char *name)
{
	return opendir(name);
}
static void *glob_readdir(void *d)
{
	return readdir(d);
}
static void *glob_readdir64(void *d)
{
	return readdir64(d);
}
static int glob_stat(const char *path, void *st)
{
	return stat(path, st);
}
static int glob_lstat(const char *path, void *st)
{
	return lstat(path, st);
}
static int glob_stat64(const char *path, void *st)
{
	return stat64(path, st);
}
static int glob_lstat64(const char *path, void *st)
{
	return lstat64(path, st);
}

#define GLOB(NAME, GLOB_T, READ, STAT)                                                   \
	EXPORT int NAME(const char *pattern, int flags, int (*errfunc)(const char *, int), \
			GLOB_T *pglob)                                                   \
	{                                                                                \
		if (!SHIM_HAVE_REAL(NAME))                                               \
			return GLOB_NOSPACE;                                             \
		if ((flags & GLOB_ALTDIRFUNC) || !walk_may_be_ours(pattern) || shim_resolving || \
		    !shim_ready())                                                       \
			return shim_real.NAME(pattern, flags, errfunc, pglob);              \
		pglob->gl_closedir = glob_closedir;                                      \
		pglob->gl_readdir = (void *)glob_##READ;                                 \
		pglob->gl_opendir = glob_opendir;                                        \
		pglob->gl_lstat = (void *)glob_l##STAT;                                  \
		pglob->gl_stat = (void *)glob_##STAT;                                    \
		return shim_real.NAME(pattern, flags | GLOB_ALTDIRFUNC, errfunc, pglob);    \
	}
GLOB(glob, glob_t, readdir, stat)
GLOB(glob64, glob64_t, readdir64, stat64)

/* glibc's nftw and ftw list with internal calls as well: a walk that
 * starts where it may meet our directories is done here, with the shim's
 * opendir, readdir and stat, in the order and with the flags nftw(3)
 * describes (FTW_PHYS, FTW_DEPTH, FTW_MOUNT, FTW_ACTIONRETVAL; a walk
 * with FTW_CHDIR is left to libc's). */
#include <ftw.h>

typedef int (*nftw_fn)(const char *, const struct stat *, int, struct FTW *);

struct walk {
	nftw_fn fn;
	int flags;
	dev_t dev;
	/* the directories entered, as glibc's walk keeps them: without
	 * FTW_PHYS a directory met again (through a link: /sys is full of
	 * cycles) is neither reported nor entered */
	struct { dev_t dev; ino_t ino; } *seen;
	size_t nseen, capseen;
	char path[PATH_MAX];
};

/* Whether directory st was entered before; else remembers it. */
static bool walk_seen(struct walk *w, const struct stat *st)
{
	for (size_t i = 0; i < w->nseen; i++)
		if (w->seen[i].ino == st->st_ino && w->seen[i].dev == st->st_dev)
			return true;
	if (w->nseen == w->capseen) {
		size_t cap = w->capseen ? 2 * w->capseen : 64;
		void *m = realloc(w->seen, cap * sizeof(*w->seen));
		if (!m)
			return false;
		w->seen = m;
		w->capseen = cap;
	}
	w->seen[w->nseen].dev = st->st_dev;
	w->seen[w->nseen].ino = st->st_ino;
	w->nseen++;
	return false;
}

/* FTW_ACTIONRETVAL's answers, and a plain nonzero one: stop */
#define WALK_STOP(r) ((w->flags & FTW_ACTIONRETVAL) ? (r) == FTW_STOP : (r) != 0)

/* The type nftw reports for w->path, its stat in *st. */
static int walk_type(const struct walk *w, struct stat *st)
{
	bool stat_ok = ((w->flags & FTW_PHYS) ? lstat(w->path, st) : stat(w->path, st)) == 0;
	if (!stat_ok)
		return !(w->flags & FTW_PHYS) && lstat(w->path, st) == 0 && S_ISLNK(st->st_mode)
			       ? FTW_SLN
			       : FTW_NS;
	if (S_ISDIR(st->st_mode))
		return FTW_D;
	return S_ISLNK(st->st_mode) ? FTW_SL : FTW_F;
}

static int walk_at(struct walk *w, size_t len, int base, int level);

/* The entries of the open directory d (w->path, len bytes), each walked
 * at level + 1: 0, or what stops the walk. */
static int walk_entries(struct walk *w, DIR *d, size_t len, int level)
{
	struct dirent *e;
	int r = 0;
	while ((e = readdir(d))) {
		size_t nl = strlen(e->d_name);
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (len + 1 + nl >= sizeof(w->path))
			continue;
		w->path[len] = '/';
		memcpy(w->path + len + 1, e->d_name, nl + 1);
		r = walk_at(w, len + 1 + nl, (int)len + 1, level + 1);
		w->path[len] = 0;
		if ((w->flags & FTW_ACTIONRETVAL) && r == FTW_SKIP_SIBLINGS)
			return 0;
		if (r)
			return r;
	}
	return 0;
}

static int walk_at(struct walk *w, size_t len, int base, int level)
{
	struct stat st;
	struct FTW f = { base, level };
	int r, type = walk_type(w, &st);

	if (type != FTW_D || ((w->flags & FTW_MOUNT) && level > 0 && st.st_dev != w->dev)) {
		if (type == FTW_D)
			return 0; /* another file system: not entered, not reported */
		r = w->fn(w->path, &st, type, &f);
		return WALK_STOP(r) ? r : 0;
	}
	if (!(w->flags & FTW_PHYS) && walk_seen(w, &st))
		return 0;
	DIR *d = opendir(w->path);
	if (!d) {
		r = w->fn(w->path, &st, FTW_DNR, &f);
		return WALK_STOP(r) ? r : 0;
	}
	if (!(w->flags & FTW_DEPTH)) {
		r = w->fn(w->path, &st, FTW_D, &f);
		if (WALK_STOP(r)) {
			closedir(d);
			return r;
		}
		if ((w->flags & FTW_ACTIONRETVAL) && (r == FTW_SKIP_SUBTREE || r == FTW_SKIP_SIBLINGS)) {
			closedir(d);
			return r == FTW_SKIP_SIBLINGS ? FTW_SKIP_SIBLINGS : 0;
		}
	}
	r = walk_entries(w, d, len, level);
	closedir(d);
	if (r)
		return r;
	if (w->flags & FTW_DEPTH) {
		r = w->fn(w->path, &st, FTW_DP, &f);
		return WALK_STOP(r) ? r : 0;
	}
	return 0;
}

EXPORT int nftw(const char *dir, nftw_fn fn, int nopenfd, int flags)
{
	if (!SHIM_HAVE_REAL(nftw)) {
		errno = ENOSYS;
		return -1;
	}
	if ((flags & FTW_CHDIR) || !walk_may_be_ours(dir) || shim_resolving || !shim_ready())
		return shim_real.nftw(dir, fn, nopenfd, flags);
	struct walk *w = malloc(sizeof(*w));
	struct stat st;
	size_t len = strlen(dir);
	if (!w || len >= sizeof(w->path)) {
		free(w);
		return shim_real.nftw(dir, fn, nopenfd, flags);
	}
	/* a trailing slash is kept as given, but not doubled below */
	while (len > 1 && dir[len - 1] == '/')
		len--;
	memcpy(w->path, dir, len);
	w->path[len] = 0;
	w->fn = fn;
	w->flags = flags;
	w->seen = NULL;
	w->nseen = w->capseen = 0;
	w->dev = stat(w->path, &st) == 0 ? st.st_dev : 0;
	const char *slash = strrchr(w->path, '/');
	int base = slash && slash[1] ? (int)(slash - w->path) + 1 : 0;
	int saved = errno, r = walk_at(w, len, base, 0);
	free(w->seen);
	free(w);
	if (r == FTW_SKIP_SIBLINGS && (flags & FTW_ACTIONRETVAL))
		r = 0;
	if (!r)
		errno = saved;
	return r;
}

_Static_assert(sizeof(struct stat64) == sizeof(struct stat), "stat64 is stat here");
EXPORT int nftw64(const char *dir, int (*fn)(const char *, const struct stat64 *, int, struct FTW *),
		  int nopenfd, int flags)
{
	/* struct stat64 is struct stat on the 64-bit ABIs this builds for */
	return nftw(dir, (nftw_fn)(void *)fn, nopenfd, flags);
}
