/* Opening a virtual file: a kept view (preload/kept_views.c) when its
 * kind is kept, else the view made now into a memfd reopened read-only;
 * the views made at each open are remembered for the rewind table
 * (preload/rewind.c). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/shim.h"
#include "preload/view.h"
#include "src/views.h"

/* All of data to fd; false on an error or a short write. */
bool shim_write_all(int fd, const char *data, size_t len)
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
	if (mfd < 0) {
		/* refused (a seccomp filter, an old kernel): an unlinked
		 * tmpfs file does as well, unsealed */
		shim_debug("memfd_create: %s; an unlinked file instead", strerror(errno));
		mfd = shim_real.open("/dev/shm", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (mfd < 0) {
			const char *t = getenv("TMPDIR");
			mfd = shim_real.open(t && *t ? t : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		}
		if (mfd < 0)
			return -1;
		sealed = false;
	}
	if (!shim_write_all(mfd, data, len)) {
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

int shim_view_fd(const char *data, size_t len, int flags)
{
	return make_fd(data, len, flags, true);
}

int shim_view_open(int dirfd, const char *path, int flags)
{
	char real[512], name[SHIM_KEPT_NAME_MAX];
	struct shim_cpus v;
	bool ro = (flags & O_ACCMODE) == O_RDONLY && !(flags & (O_DIRECTORY | O_PATH | O_CREAT));
	enum vkind k = ro ? shim_view_classify(dirfd, path, real, sizeof(real)) : V_NONE;
	/* the /sys families (and the test root) first: they take any flags.
	 * /proc/stat and the status files are none of theirs (no magic link
	 * on the way): no need to canonicalise their names, the costliest
	 * part of such an open (two system calls) */
	if (k != V_STAT && k != V_STATUS_PROC && k != V_STATUS_THREAD) {
		int sfd = shim_sys_open(dirfd, path, flags, 0);
		if (sfd != -1)
			return sfd;
	}
	if (k == V_NONE || !shim_cpus_now(&v))
		return -1;

	SHIM_KEEP_ERRNO;
	bool store = false;
	uint64_t key = 0;
	int fd = -1;
	if (k == V_RANGE || k == V_CPUINFO) {
		fd = shim_kept_open(k, &v, flags, name, sizeof(name), &key, &store);
		if (fd >= 0)
			return fd;
	}
	struct cps_buf out = { 0 };
	int r = shim_view_build(k, real, 0, &v, &out);
	if (r == 0 && store)
		fd = shim_kept_store(k, name, key, out.p, out.len, flags);
	if (r == 0 && fd < 0) {
		bool kept_kind = k == V_RANGE || k == V_CPUINFO;
		struct stat id;
		if (!kept_kind && (fd = shim_pool_deliver(k, real, k == V_STATUS_THREAD ? shim_gettid() : 0,
						       out.p, out.len, flags, &id)) >= 0) {
			shim_rewind_remember(fd, k, real, &id);
		} else {
			fd = make_fd(out.p, out.len, flags, kept_kind);
			if (fd >= 0 && !kept_kind)
				shim_rewind_remember(fd, k, real, NULL);
		}
	}
	cps_buf_free(&out);
	if (fd < 0)
		shim_debug("view of %s failed; passing the real file through", real);
	return fd;
}

