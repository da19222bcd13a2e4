/* SPDX-License-Identifier: BSD-3-Clause */
/* A view's bytes as a descriptor (src/vfd.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "base/util.h"
#include "src/rawsys.h"
#include "src/vfd.h"

#ifndef O_TMPFILE
#define O_TMPFILE (020000000 | O_DIRECTORY)
#endif
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#define MFD_ALLOW_SEALING 0x0002U
#endif
#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#define F_SEAL_WRITE 0x0008
#endif

static int tmpfile_in(const char *dir)
{
	return (int)cps_sys4(SYS_openat, AT_FDCWD, (long)dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
}

/* All of data to fd: 0, or a negative errno (-EIO: a short write). */
static int write_all(int fd, const char *data, size_t len)
{
	size_t off = 0;
	while (off < len) {
		long w = cps_sys3(SYS_write, fd, (long)(data + off), (long)(len - off));
		if (w == -EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? (int)w : -EIO;
		off += (size_t)w;
	}
	return 0;
}

int cps_vfd_write(const char *data, size_t len, unsigned how, const char *tmpdir, mode_t mode)
{
	int fd = -ENOENT;
	bool seal = how & CPS_VFD_SEAL;
	if (how & CPS_VFD_TMPFILE) {
		fd = tmpfile_in("/dev/shm");
		if (fd < 0)
			fd = tmpfile_in(tmpdir && *tmpdir ? tmpdir : "/tmp");
		if (fd >= 0)
			seal = false;
	}
	if (fd < 0) {
		fd = (int)cps_sys3(SYS_memfd_create, (long)"cpusetshim-view",
				   MFD_CLOEXEC | (seal ? MFD_ALLOW_SEALING : 0), 0);
		if (fd < 0)
			return fd;
	}
	int r = write_all(fd, data, len);
	if (r < 0) {
		cps_sys_close(fd);
		return r;
	}
	if (seal)
		cps_sys3(SYS_fcntl, fd, F_ADD_SEALS,
			 F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
	if (mode)
		cps_sys3(SYS_fchmod, fd, (long)mode, 0);
	return fd;
}

int cps_vfd_reopen(int fd, int flags)
{
	/* "/proc/self/fd/" and the number, without stdio */
	char p[14 + CPS_DEC_MAX] = "/proc/self/fd/";
	cps_fmt_dec(p + 14, (uint64_t)fd);
	return cps_sys_open(p, (flags & ~O_ACCMODE) | O_RDONLY);
}

int cps_vfd(const char *data, size_t len, unsigned how, const char *tmpdir, mode_t mode,
	    int flags)
{
	int m = cps_vfd_write(data, len, how, tmpdir, mode);
	if (m < 0)
		return m;
	int fd = cps_vfd_reopen(m, flags);
	cps_sys_close(m);
	return fd;
}
