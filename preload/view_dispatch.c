/* Which virtual file a path is (the one place that decides: a new family
 * of views is a new kind here and a text transform in src/views.c), and
 * how each kind is made from the real file and a copy of the set. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/shim.h"
#include "preload/view.h"
#include "src/path.h"
#include "src/vcpuinfo.h"
#include "src/views.h"

/* Cheap first test on the hot path of every open. */
bool shim_view_path_candidate(const char *p)
{
	if (!p)
		return false;
	if (p[0] == '/')
		return (p[1] == 'p' && !strncmp(p, "/proc/", 6)) ||
		       (p[1] == 's' && (!strncmp(p, "/sys/devices/system/cpu", 23) ||
					!strncmp(p, "/sys/devices/system/node", 24) ||
					!strncmp(p, "/sys/bus/cpu/devices", 20)));
	/* relative names we may need to check against the directory fd */
	return !strcmp(p, "cpuinfo") || !strcmp(p, "stat") || !strcmp(p, "online") ||
	       !strcmp(p, "possible") || !strcmp(p, "present") || !strncmp(p, "self/", 5) ||
	       !strncmp(p, "thread-self/", 12) || !strcmp(p, "status") ||
	       (p[0] >= '0' && p[0] <= '9') || cps_path_rel_may_view(p);
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
		return shim_env_off("CPUSETSHIM_VIEW_CPUINFO") ? V_NONE : V_CPUINFO;
	if (!strcmp(r, "stat"))
		return shim_env_off("CPUSETSHIM_VIEW_STAT") ? V_NONE : V_STAT;
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

enum vkind shim_view_classify(int dirfd, const char *path, char *real, size_t rlen)
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


int shim_view_build(enum vkind k, const char *real, pid_t tid, const struct shim_cpus *v,
		      struct cps_buf *out)
{
	uint64_t vallowed[CPS_MAX_WORDS];
	struct cps_view_input s = { v->cpus, v->nw, v->n, vallowed, v->nw };
	char *in = NULL;
	size_t inlen = 0;
	int r = 0;
	/* stat and status: from the descriptor kept open if it can be had */
	if (k != V_RANGE && (k != V_STAT && k != V_STATUS_PROC ? -1 : shim_real_read(k, &in, &inlen)) < 0 &&
	    (r = slurp(real, &in, &inlen)) < 0)
		return r;
	switch (k) {
	case V_CPUINFO: r = cps_view_cpuinfo_set(out, in, inlen, &s); break;
	case V_STAT: r = cps_view_stat(out, in, inlen, &s); break;
	case V_STATUS_PROC:
	case V_STATUS_THREAD:
		if (!shim_thread_vmask(k == V_STATUS_PROC ? (shim_self_pid ? shim_self_pid : getpid()) : tid,
				       v, vallowed, v->nw)) {
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

