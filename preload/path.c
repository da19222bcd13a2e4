/* SPDX-License-Identifier: BSD-3-Clause */
/* Any spelling of a path, turned into the one canonical path the view
 * dispatch classifies (src/path.h): repeated slashes, ".", "..", relative
 * to the working directory or to a directory fd, the links of /proc and
 * /sys. A path that can be no view costs no system call and no
 * allocation:
 *   - an absolute path whose second byte is none of 'p', 's', '/', '.'
 *     is rejected before anything else (by the stubs already, where the
 *     architecture has them: preload/stubs.h);
 *   - a path relative to the working directory is rejected on a cached
 *     fact: the working directory is "far" (neither "/" nor in /proc or
 *     /sys) and the path has no ".." (in the open family's frameless
 *     stubs already, where there are some, which read shim_cwd_state). chdir and
 *     fchdir, also through syscall(2), forget the fact; it is learnt again
 *     with one getcwd at the next relative path (one system call per
 *     change of directory, none per path);
 *   - a path relative to a directory fd is rejected on its names
 *     (cps_path_rel_may_view) before anything asks where the fd points.
 * Every interposer that takes a path (the open family, stdio, access,
 * readlink, the listings, chdir) goes through here: one place. Under the
 * test root (CPUSETSHIM_TEST_ROOT=R, preload/troot.c) every path may be a
 * view (one test, may_view: the cheap tests are off), and a path below R
 * is taken as the same path below / (shim_unrooted, troot.c) where it
 * comes in: the caller's absolute path, and the directories the kernel
 * names (kernel_dir_virtual); from there on every path is virtual, and
 * the root is put back only where one turns physical (shim_rooted).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/shim.h"
#include "preload/view.h"
#include "src/path.h"
#include "src/rawsys.h"
#include "src/vfiles.h"
#include "src/vpath.h"

#define EXPORT __attribute__((visibility("default")))

/* What is known of the working directory: shim_cwd_state (atomic; the
 * open stubs read it: SHIM_CWD_FAR lets a relative path without ".."
 * through) and, under lock, its path. gen moves at every chdir, so that a
 * getcwd that raced with one is not kept. A forked child keeps them: it
 * has its parent's directory. */
enum { CWD_UNKNOWN = 0, CWD_FAR = SHIM_CWD_FAR, CWD_NEAR };
struct shim_open_hot shim_open_hot __attribute__((aligned(64)));
_Static_assert(__builtin_offsetof(struct shim_open_hot, cwd_state) == SHIM_OPEN_HOT_CWD,
	       "the stubs' offset of cwd_state");
static struct {
	unsigned gen;
	char path[PATH_MAX];
} cwd;
static pthread_mutex_t cwd_lock = PTHREAD_MUTEX_INITIALIZER;

void shim_cwd_forget(void)
{
	__atomic_add_fetch(&cwd.gen, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&shim_cwd_state, CWD_UNKNOWN, __ATOMIC_SEQ_CST);
}

static int far_or_near(const char *p)
{
	return (p[0] == '/' && p[1] == 0) || cps_path_in_views(p) ? CWD_NEAR : CWD_FAR;
}

/* A directory the kernel names (the working directory, a directory fd's
 * link) is physical; canonical names are virtual. Below the test root it
 * is taken as the same path below / first. Below
 * /sys/devices/system/cpu, physical cpuP of the set is virtual cpu<rank>
 * (chdir("cpu0") in a set {1} went to cpu1: relative paths from there are
 * cpu0's); a cpuP outside the set has no virtual name: false, and the
 * path is taken for no view. Below /sys/devices/system/node the same for
 * nodeP, when the set has nodes of its own (a copy of a descriptor of
 * node0 in a set of node 1 points at node1: it is node0's). */
static bool kernel_dir_virtual(char *buf, size_t len)
{
	const char *u = shim_unrooted(buf);
	if (u != buf)
		memmove(buf, u, strlen(u) + 1);
	char *p = buf;
	static const char cpudir[] = "/sys/devices/system/cpu/cpu";
	static const char nodedir[] = "/sys/devices/system/node/node";
	bool cpu = strncmp(p, cpudir, sizeof(cpudir) - 1) == 0;

	if (CPS_LIKELY(!cpu && strncmp(p, nodedir, sizeof(nodedir) - 1) != 0))
		return true;
	const size_t cl = cpu ? sizeof(cpudir) - 1 : sizeof(nodedir) - 1;
	char *e = p + cl;
	unsigned long num = 0;
	while (*e >= '0' && *e <= '9' && num < 1000000)
		num = num * 10 + (unsigned long)(*e++ - '0');
	if (e == p + cl || (*e && *e != '/'))
		return true; /* cpufreq, cpuidle, node's has_cpu...: no one's directory */
	struct shim_cpus v;
	if (!shim_ready())
		return false;
	if (cpu) {
		if (!shim_sys_cpus(&v))
			return false;
	} else {
		/* nodeP is the set's node V when the set has nodes of its own;
		 * without, the nodes keep their numbers */
		struct cps_view_input in = { 0 };
		shim_sys_nodes(&in, &v);
		if (!in.k)
			return true;
	}
	if (num >= CPS_MAX_CPUS || !cps_mask_test(v.cpus, v.nw, (unsigned)num))
		return false;
	char digits[16];
	int nl = snprintf(digits, sizeof(digits), "%u", cps_mask_rank(v.cpus, v.nw, (unsigned)num));
	size_t old = (size_t)(e - (p + cl)), rest = strlen(e);
	if ((size_t)nl > old || (size_t)(p + cl - buf) + (size_t)nl + rest + 1 > len)
		return false; /* never longer: rank <= P */
	memcpy(p + cl, digits, (size_t)nl);
	memmove(p + cl + nl, e, rest + 1);
	return true;
}

/* The working directory into buf; false if it cannot be had (then no
 * relative path is taken for a view). */
static bool cwd_get(char *buf, size_t len)
{
	long n;

	if (__atomic_load_n(&shim_cwd_state, __ATOMIC_ACQUIRE) != CWD_UNKNOWN &&
	    pthread_mutex_trylock(&cwd_lock) == 0) {
		bool ok = shim_cwd_state != CWD_UNKNOWN && strlen(cwd.path) < len;

		if (ok)
			strcpy(buf, cwd.path);
		pthread_mutex_unlock(&cwd_lock);
		if (ok)
			return true;
	}
	unsigned g = __atomic_load_n(&cwd.gen, __ATOMIC_SEQ_CST);
	/* the system call, not libc's getcwd: no allocation, and the kernel's
	 * "(unreachable)" prefix is told by the missing leading '/' */
	n = cps_sys3(SYS_getcwd, (long)buf, (long)len, 0);
	if (n <= 0 || buf[0] != '/')
		return false;
	if (!kernel_dir_virtual(buf, len))
		return false;
	if (pthread_mutex_trylock(&cwd_lock) == 0) {
		if (__atomic_load_n(&cwd.gen, __ATOMIC_SEQ_CST) == g && strlen(buf) < sizeof(cwd.path)) {
			strcpy(cwd.path, buf);
			/* (under the test root it is read by nothing: may_view
			 * takes every path, the stubs have no copies) */
			__atomic_store_n(&shim_cwd_state, far_or_near(buf), __ATOMIC_SEQ_CST);
		}
		pthread_mutex_unlock(&cwd_lock);
	}
	return true;
}

/* The state of the working directory, learnt with one getcwd (kept for the
 * next relative paths); CWD_UNKNOWN if it cannot be had. Out of line: the
 * buffer stays off the stack of the common path. */
static __attribute__((noinline, cold)) int cwd_learn(void)
{
	char buf[PATH_MAX];
	SHIM_KEEP_ERRNO;

	if (!cwd_get(buf, sizeof(buf)))
		return CWD_UNKNOWN;
	return __atomic_load_n(&shim_cwd_state, __ATOMIC_ACQUIRE);
}

/* Our pid without a system call once set-up has it (kept by fork). */
static pid_t own_pid(void)
{
	return __atomic_load_n(&shim_state, __ATOMIC_ACQUIRE) == ST_READY ? shim_self_pid : getpid();
}

/* Where a directory fd points, as the kernel says. */
static bool dirfd_get(int fd, char *buf, size_t len)
{
	char link[40];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = cps_sys_readlink(link, buf, len - 1);
	if (n <= 0 || buf[0] != '/')
		return false;
	buf[n] = '\0';
	return kernel_dir_virtual(buf, len);
}

bool shim_dirfd_canon(int fd, char *buf, size_t len)
{
	char k[PATH_MAX];
	SHIM_KEEP_ERRNO;

	if (!dirfd_get(fd, k, sizeof(k)))
		return false;
	size_t kl = strlen(k);
	if (kl >= len)
		return false;
	memcpy(buf, k, kl + 1);
	return true;
}

/* path[0..plen) resolved by the kernel (relative to base, or to dirfd when
 * base is NULL), into out; false if it is not a directory we can name. */
static bool kernel_resolve(int dirfd, const char *base, const char *path, size_t plen, char *out,
			   size_t outlen)
{
	char v[PATH_MAX], pre[PATH_MAX];
	struct stat sb;
	int n, fd;
	bool ok;

	if (base)
		n = snprintf(v, sizeof(v), "%s/%.*s", base, (int)plen, path);
	else
		n = snprintf(v, sizeof(v), "%.*s", (int)plen, path);
	if (n < 0 || (size_t)n >= sizeof(v))
		return false;
	/* an absolute one (base is) is virtual: the kernel is given its
	 * physical path, below the test root, and its names below
	 * /sys/devices/system physical (cpu0/cpufreq/.. in a set {1} is
	 * physical cpu1's) */
	if (base || path[0] == '/') {
		char canon[PATH_MAX];
		size_t used;
		enum cps_canon c = cps_path_canon(canon, sizeof(canon), NULL, v, own_pid(),
						  shim_gettid(), 0, &used);
		bool sys = (c == CPS_CANON_OK || c == CPS_CANON_DIR) &&
			   !strncmp(canon, "/sys/devices/system/", 20) && shim_ready();
		if (sys ? !shim_view_physical(canon, pre, sizeof(pre))
			: !shim_rooted(v, pre, sizeof(pre)))
			return false; /* cpuN beyond the set, or too long */
	} else {
		memcpy(pre, v, (size_t)n + 1);
	}
	fd = shim_real.openat ? shim_real.openat(base ? AT_FDCWD : dirfd, pre,
						 O_PATH | O_CLOEXEC | O_DIRECTORY)
			      : -1;
	if (fd < 0)
		return false;
	ok = fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode) && dirfd_get(fd, out, outlen);
	close(fd);
	return ok;
}

/* Under the test root, a path outside /proc and /sys (a cgroup hierarchy
 * mounted anywhere in the captured machine), made canonical with no
 * kernel's help: base (or none, path absolute) and path joined, "//" and
 * "." dropped; NULL when it has a "..". */
static const char *rooted_plain(const char *base, const char *path, char *buf, size_t len)
{
	size_t ol = 0;

	for (int part = base ? 0 : 1; part < 2; part++) {
		const char *p = part ? path : base;

		while (*p) {
			const char *s;

			while (*p == '/')
				p++;
			s = p;
			while (*p && *p != '/')
				p++;
			if (p == s || (p - s == 1 && s[0] == '.'))
				continue;
			if (p - s == 2 && s[0] == '.' && s[1] == '.')
				return NULL;
			if (ol + 1 + (size_t)(p - s) + 1 > len)
				return NULL;
			buf[ol++] = '/';
			memcpy(buf + ol, s, (size_t)(p - s));
			ol += (size_t)(p - s);
		}
	}
	if (ol == 0 || len < 2)
		return NULL;
	buf[ol] = '\0';
	return buf;
}

/* shim_path_may_view's answer: no, yes, or yes for any path (under the
 * test root: its views and a captured machine's cgroup files are below
 * it, where no byte tells them apart; the one place path.c asks). */
enum { MAY_NOT = 0, MAY, MAY_ANYWHERE };

static inline int may_view(int dirfd, const char *path)
{
	if (!path || !path[0])
		return MAY_NOT;
	if (CPS_UNLIKELY(shim_test_root() != NULL))
		return MAY_ANYWHERE;
	if (path[0] == '/')
		return cps_vpath_root2(path[1]);
	if (dirfd == AT_FDCWD) {
		int st = __atomic_load_n(&shim_cwd_state, __ATOMIC_ACQUIRE);

		if (CPS_UNLIKELY(st == CWD_UNKNOWN))
			st = cwd_learn();
		if (st == CWD_FAR)
			return cps_path_has_dotdot(path);
		if (st == CWD_NEAR)
			return MAY;
	}
	return cps_path_rel_may_view(path);
}

bool shim_path_may_view(int dirfd, const char *path)
{
	return may_view(dirfd, path) != MAY_NOT;
}

const char *shim_path_resolve(int dirfd, const char *path, int cflags, char *buf, size_t len,
			      bool *dironly)
{
	char base[PATH_MAX], kbase[PATH_MAX];
	const char *b = NULL;
	SHIM_KEEP_ERRNO;
	const char *res = NULL;
	int may = may_view(dirfd, path);

	if (may == MAY_NOT)
		return NULL;
	if (path[0] == '/') {
		/* below the test root: as below / */
		if (CPS_UNLIKELY(may == MAY_ANYWHERE))
			path = shim_unrooted(path);
	} else if (dirfd == AT_FDCWD) {
		if (!cwd_get(base, sizeof(base)))
			goto out;
		b = base;
	} else {
		if (!dirfd_get(dirfd, base, sizeof(base)))
			goto out;
		b = base;
	}

	/* /proc/self and /proc/thread-self are expanded with our ids: asked
	 * only when the path names them */
	pid_t pid = strstr(path, "self") ? own_pid() : 0;
	pid_t tid = pid && strstr(path, "thread-self") ? shim_gettid() : 0;
	for (int round = 0; round < 8; round++) {
		size_t consumed = 0;
		enum cps_canon r = cps_path_canon(buf, len, b, path, pid, tid, cflags, &consumed);

		if (r == CPS_CANON_OK || r == CPS_CANON_DIR) {
			*dironly = r == CPS_CANON_DIR;
			res = buf;
			break;
		}
		if (r != CPS_CANON_KERNEL || consumed == 0 ||
		    !kernel_resolve(dirfd, b, path, consumed, kbase, sizeof(kbase)))
			break;
		memcpy(base, kbase, strlen(kbase) + 1);
		b = base;
		path += consumed;
	}
	/* (under the test root a cgroup's files may be anywhere) */
	if (!res && CPS_UNLIKELY(may == MAY_ANYWHERE))
		res = rooted_plain(b, path, buf, len);
out:
	return res;
}

/* ---- the working directory moves ---- */

/* chdir to a virtual CPU's or node's directory goes to the physical one
 * (cpuN beyond the set: ENOENT, as for open), and the virtual name is
 * kept as the working directory's. */
EXPORT int chdir(const char *path)
{
	if (!shim_real.chdir && (shim_ready(), !shim_ensure(shim_real.chdir)))
		return -1;
	char canon[PATH_MAX], phys[PATH_MAX];
	bool d;
	const char *c = shim_path_may_view(AT_FDCWD, path)
				? shim_path_resolve(AT_FDCWD, path, 0, canon, sizeof(canon), &d)
				: NULL;
	if (c && !strncmp(c, "/sys/devices/system/", 20) && shim_ready()) {
		if (!shim_view_physical(c, phys, sizeof(phys)))
			return -1;
		if (strcmp(phys, c)) {
			int r = shim_real.chdir(phys);
			if (r == 0) {
				shim_cwd_forget();
				if (pthread_mutex_trylock(&cwd_lock) == 0) {
					strcpy(cwd.path, c);
					__atomic_store_n(&shim_cwd_state, CWD_NEAR, __ATOMIC_SEQ_CST);
					pthread_mutex_unlock(&cwd_lock);
				}
			}
			return r;
		}
	}
	int r = shim_real.chdir(path);
	if (r == 0)
		shim_cwd_forget();
	return r;
}

EXPORT int fchdir(int fd)
{
	if (!shim_real.fchdir && (shim_ready(), !shim_ensure(shim_real.fchdir)))
		return -1;
	int r = shim_real.fchdir(fd);
	if (r == 0)
		shim_cwd_forget();
	return r;
}
