/* SPDX-License-Identifier: BSD-3-Clause */
/* lsdup DIR...: each DIR listed through every kind of copy of a
 * descriptor of it, one line each:
 *
 *     DIR METHOD: ENTRY... | openat: ok | openat: NAME errno E...
 *
 * the entries sorted, "." and ".." left out; then every entry named
 * cpuN or nodeN opened relative to the same descriptor (as a directory),
 * and, in a CPU directory (.../cpu, .../devices), cpu<n> (n: the number
 * of cpuN entries listed) expected to be missing. METHOD: opendir (of the path), fdopendir (of a descriptor
 * opened on it), dup, F_DUPFD, F_DUPFD_CLOEXEC, dup2, dup3, scm_rights
 * (passed over a unix socket to this process), orig-closed (a copy
 * listed after the original was closed with close(2)), copy-closed (the
 * original listed after a copy's listing was closed). Exit 1 when a DIR
 * cannot be opened at all. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A numbered entry: "cpu" or "node" and digits. */
static int numbered(const char *n, const char *pre)
{
	size_t l = strlen(pre);
	return !strncmp(n, pre, l) && n[l] && strspn(n + l, "0123456789") == strlen(n + l);
}

/* The line of d (closed here), listed as METHOD. */
static void list(const char *dir, const char *method, DIR *d)
{
	char *names[4096];
	size_t n = 0, ncpu = 0;
	struct dirent *e;

	if (!d) {
		printf("%s %s: errno %d\n", dir, method, errno);
		return;
	}
	/* copies share the offset: a copy listed before leaves it at the end */
	rewinddir(d);
	while ((e = readdir(d)) && n < sizeof(names) / sizeof(names[0]))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			names[n++] = strdup(e->d_name);
	qsort(names, n, sizeof(names[0]), by_name);
	printf("%s %s:", dir, method);
	for (size_t i = 0; i < n; i++)
		printf(" %s", names[i]);
	printf(" | openat:");
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		if (!numbered(names[i], "cpu") && !numbered(names[i], "node"))
			continue;
		ncpu += numbered(names[i], "cpu");
		int fd = openat(dirfd(d), names[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			printf(" %s errno %d", names[i], errno);
			bad = 1;
		} else {
			close(fd);
		}
	}
	/* the CPU directories: cpu<n> is beyond the set */
	const char *base = strrchr(dir, '/');
	if (base && (!strcmp(base, "/cpu") || !strcmp(base, "/devices"))) {
		char beyond[32];
		snprintf(beyond, sizeof(beyond), "cpu%zu", ncpu);
		int fd = openat(dirfd(d), beyond, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT) {
			printf(" %s %s", beyond, fd >= 0 ? "opened" : strerror(errno));
			bad = 1;
			if (fd >= 0)
				close(fd);
		}
	}
	printf("%s\n", bad ? "" : " ok");
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	closedir(d);
}

/* fd passed through a unix socket pair: the descriptor received. */
static int passed(int fd)
{
	int sv[2], got = -1;
	char byte = 'x', ctl[CMSG_SPACE(sizeof(int))];
	struct iovec io = { &byte, 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl,
			    .msg_controllen = sizeof(ctl) };

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sv[0], &m, 0) == 1) {
		memset(ctl, 0, sizeof(ctl));
		m.msg_controllen = sizeof(ctl);
		if (recvmsg(sv[1], &m, MSG_CMSG_CLOEXEC) == 1 && (c = CMSG_FIRSTHDR(&m)) &&
		    c->cmsg_type == SCM_RIGHTS)
			memcpy(&got, CMSG_DATA(c), sizeof(int));
	}
	close(sv[0]);
	close(sv[1]);
	return got;
}

static DIR *copy(int o, const char *method)
{
	int c = -1;

	if (!strcmp(method, "fdopendir"))
		c = o;
	else if (!strcmp(method, "dup"))
		c = dup(o);
	else if (!strcmp(method, "F_DUPFD"))
		c = fcntl(o, F_DUPFD, 0);
	else if (!strcmp(method, "F_DUPFD_CLOEXEC"))
		c = fcntl(o, F_DUPFD_CLOEXEC, 3);
	else if (!strcmp(method, "dup2"))
		c = dup2(o, 200);
	else if (!strcmp(method, "dup3"))
		c = dup3(o, 201, O_CLOEXEC);
	else if (!strcmp(method, "scm_rights"))
		c = passed(o);
	if (c < 0)
		return NULL;
	DIR *d = fdopendir(c);
	if (c != o)
		close(o);
	return d;
}

int main(int argc, char **argv)
{
	static const char *const methods[] = { "fdopendir", "dup", "F_DUPFD", "F_DUPFD_CLOEXEC",
					       "dup2", "dup3", "scm_rights" };
	int status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: lsdup DIR...\n");
		return 2;
	}
	for (int a = 1; a < argc; a++) {
		const char *dir = argv[a];
		int o;

		list(dir, "opendir", opendir(dir));
		for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); m++) {
			if ((o = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
				printf("%s %s: errno %d\n", dir, methods[m], errno);
				status = 1;
				continue;
			}
			list(dir, methods[m], copy(o, methods[m]));
		}
		/* the original closed with close(2), its copy listed */
		if ((o = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
			int c = dup(o);
			close(o);
			list(dir, "orig-closed", c < 0 ? NULL : fdopendir(c));
		}
		/* a copy listed and closed, then the original */
		if ((o = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
			int c = dup(o);
			DIR *d = c < 0 ? NULL : fdopendir(c);
			if (d) {
				readdir(d);
				closedir(d);
			}
			list(dir, "copy-closed", fdopendir(o));
		}
	}
	return status;
}
