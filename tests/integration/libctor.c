/* SPDX-License-Identifier: BSD-3-Clause */
/* A library whose constructor asks about CPUs before the shim's own
 * constructor has run (it is preloaded ahead of the shim, and its priority
 * puts it first among its own): the shim must set itself up on that first
 * call and answer for the set (doc/shim.md).
 *
 * Writes "ctor sysconf N mask M" to the file named by $CTOR_OUT, M the
 * affinity mask in hex (as taskset prints it); nothing without $CTOR_OUT.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor(101))) static void ctor_probe(void)
{
	const char *out = getenv("CTOR_OUT");
	if (!out || !*out)
		return;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t m;
	CPU_ZERO(&m);
	int r = pthread_getaffinity_np(pthread_self(), sizeof(m), &m);

	/* the mask in hex, highest nibble first, no leading zeros */
	char hex[CPU_SETSIZE / 4 + 1];
	int top = -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &m))
			top = c;
	size_t k = 0;
	for (int nib = top < 0 ? 0 : top / 4; nib >= 0; nib--) {
		unsigned v = 0;
		for (int b = 0; b < 4; b++)
			if (CPU_ISSET(nib * 4 + b, &m))
				v |= 1u << b;
		hex[k++] = "0123456789abcdef"[v];
	}
	hex[k] = 0;

	char line[256];
	int len = snprintf(line, sizeof(line), "ctor sysconf %ld mask %s\n", n,
			   r == 0 ? hex : "error");
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	ssize_t w = write(fd, line, (size_t)len);
	(void)w;
	close(fd);
}
