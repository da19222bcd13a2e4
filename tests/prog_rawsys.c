/* SPDX-License-Identifier: BSD-3-Clause */
/* base/rawsys.h on the architecture it is built for (tests/cross.sh runs
 * it under QEMU's user mode): the system calls the shim makes itself, each
 * with its architecture's convention. Exit 0 and "rawsys: ok", or 1 and the
 * call that failed. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "base/rawsys.h"

int main(void)
{
	/* mmap: shm/guard.c's replacement of a mapping (s390x passes the
	 * six arguments in memory) */
	char *a = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	long p = cps_sys_mmap(a, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			      -1, 0);
	if (p != (long)a) {
		printf("rawsys: cps_sys_mmap over %p gave %ld\n", (void *)a, p);
		return 1;
	}
	a[4097] = 1; /* writable now */
	/* a bad descriptor: a negative errno, errno untouched */
	errno = 0;
	p = cps_sys_mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, 9999, 0);
	if (p != -EBADF || errno != 0) {
		printf("rawsys: cps_sys_mmap of fd 9999 gave %ld (errno %d)\n", p, errno);
		return 1;
	}
	/* open and read */
	int fd = cps_sys_open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	char buf[64];
	if (fd < 0 || cps_sys_read(fd, buf, sizeof(buf)) <= 0) {
		printf("rawsys: open/read of /proc/self/stat gave %d\n", fd);
		return 1;
	}
	if (cps_sys_open("/nonexistent/rawsys", O_RDONLY) != -ENOENT) {
		printf("rawsys: open of a missing file is not -ENOENT\n");
		return 1;
	}
	printf("rawsys: ok\n");
	return 0;
}
