/* SPDX-License-Identifier: BSD-3-Clause */
/* tablepoke — read and write raw bytes of a table's file, as a hostile or
 * broken writer would: no library, no lock, no journal, no rules. Only the
 * tests use it, to make the damage each hardening test defends against.
 *
 *   tablepoke NAME off WHERE            the byte offset of WHERE
 *   tablepoke NAME get WHERE u32|i32|u64
 *   tablepoke NAME set WHERE u32|i32|u64 VALUE   (decimal or 0x hex)
 *   tablepoke NAME bytes WHERE HEX      write these bytes
 *   tablepoke NAME copy WHERE LEN TO    copy LEN bytes from WHERE to TO
 *   tablepoke NAME size                 the file's size
 *   tablepoke NAME truncate SIZE        shrink (or grow) the file
 *
 * WHERE is a header field (seq, lockword, jcount, ...), a part of the
 * table (sets, procs, threads, journal, pocc and tocc: the occupancy
 * summaries of the member and thread registries), set:ID (the slot of set ID),
 * cpus:ID (its CPU mask, the first of its masks),
 * proc:I or thread:I (slot I), jentry:K (the K-th undo entry, 0 first,
 * walked by the entries' lengths), optionally followed by +N or -N.
 * The table is found at /dev/shm/NAME. Exit 0, 1 on trouble. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shm/table.h"

static int fd;
static struct shm_header H;

static const struct {
	const char *name;
	size_t off;
} fields[] = {
#define F(n) { #n, offsetof(struct shm_header, n) }
	F(magic), F(version), F(header_size), F(total_size), F(mask_words), F(set_slots),
	F(proc_slots), F(thread_slots), F(set_rsz), F(proc_rsz), F(thread_rsz), F(off_sets),
	F(off_procs), F(off_threads), F(off_journal), F(off_pocc), F(off_tocc), F(journal_size), F(mode), F(gid),
	F(creator_uid), F(root_id), F(created), F(arch), F(seq), F(writes), F(repairs), F(next_id),
	F(nsets), F(nprocs), F(nthreads), F(lock), F(jcount), F(jlast), F(jused),
	{ "max_sets", offsetof(struct shm_header, caps.max_sets) },
	{ "max_procs", offsetof(struct shm_header, caps.max_procs) },
	{ "max_threads", offsetof(struct shm_header, caps.max_threads) },
	{ "mask_bits", offsetof(struct shm_header, caps.mask_bits) },
#ifdef __GLIBC__
	{ "lockword", offsetof(struct shm_header, lock.__data.__lock) },
	{ "lockowner", offsetof(struct shm_header, lock.__data.__owner) },
	{ "lockkind", offsetof(struct shm_header, lock.__data.__kind) },
#endif
#undef F
};

static int die(const char *msg)
{
	fprintf(stderr, "tablepoke: %s\n", msg);
	exit(1);
}

static unsigned long long num(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		die("bad number");
	return v;
}

static void rd(void *p, size_t len, off_t off)
{
	if (pread(fd, p, len, off) != (ssize_t)len)
		die("cannot read the table (past its end?)");
}

static off_t where(const char *w)
{
	char name[64];
	size_t l = strcspn(w, "+-");
	if (l >= sizeof(name))
		die("WHERE too long");
	memcpy(name, w, l);
	name[l] = 0;
	long long delta = 0;
	if (w[l] == '+')
		delta = (long long)num(w + l + 1);
	else if (w[l] == '-')
		delta = -(long long)num(w + l + 1);
	char *colon = strchr(name, ':');
	unsigned long long k = 0;
	if (colon) {
		*colon = 0;
		k = num(colon + 1);
	}
	off_t base = -1;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]) && !colon; i++)
		if (!strcmp(fields[i].name, name))
			base = (off_t)fields[i].off;
	if (base < 0) {
		if (!strcmp(name, "sets"))
			base = (off_t)H.off_sets;
		else if (!strcmp(name, "procs"))
			base = (off_t)H.off_procs;
		else if (!strcmp(name, "threads"))
			base = (off_t)H.off_threads;
		else if (!strcmp(name, "journal"))
			base = (off_t)H.off_journal;
		else if (!strcmp(name, "pocc"))
			base = (off_t)H.off_pocc;
		else if (!strcmp(name, "tocc"))
			base = (off_t)H.off_tocc;
		else if (!strcmp(name, "set") && colon && H.set_slots)
			base = (off_t)(H.off_sets + (k % H.set_slots) * H.set_rsz);
		else if (!strcmp(name, "cpus") && colon && H.set_slots) /* set ID's CPU mask */
			base = (off_t)(H.off_sets + (k % H.set_slots) * H.set_rsz +
				       offsetof(struct shm_set, masks));
		else if (!strcmp(name, "proc") && colon)
			base = (off_t)(H.off_procs + k * H.proc_rsz);
		else if (!strcmp(name, "thread") && colon)
			base = (off_t)(H.off_threads + k * H.thread_rsz);
		else if (!strcmp(name, "jentry") && colon) {
			/* entries: u64 off, u32 len, u32 prev, then len bytes, 8-aligned */
			uint64_t at = 0;
			for (unsigned long long i = 0; i < k; i++) {
				uint32_t len;
				rd(&len, sizeof(len), (off_t)(H.off_journal + at + 8));
				at += (16 + (uint64_t)len + 7) / 8 * 8;
			}
			base = (off_t)(H.off_journal + at);
		} else
			die("unknown WHERE");
	}
	return base + delta;
}

int main(int argc, char **argv)
{
	char path[512];
	if (argc < 3)
		die("usage: tablepoke NAME off|get|set|bytes|copy|size|truncate ...");
	snprintf(path, sizeof(path), "/dev/shm/%s", argv[1]);
	fd = open(path, O_RDWR | O_NOFOLLOW);
	if (fd < 0)
		fd = open(path, O_RDONLY | O_NOFOLLOW);
	if (fd < 0)
		die("cannot open the table");
	struct stat st;
	fstat(fd, &st);
	if (st.st_size >= (off_t)sizeof(H))
		rd(&H, sizeof(H), 0);
	const char *cmd = argv[2];
	if (!strcmp(cmd, "size")) {
		printf("%lld\n", (long long)st.st_size);
	} else if (!strcmp(cmd, "truncate") && argc == 4) {
		if (ftruncate(fd, (off_t)num(argv[3])) < 0)
			die("cannot truncate");
	} else if (!strcmp(cmd, "off") && argc == 4) {
		printf("%lld\n", (long long)where(argv[3]));
	} else if (!strcmp(cmd, "get") && argc == 5) {
		off_t o = where(argv[3]);
		if (!strcmp(argv[4], "u64")) {
			uint64_t v;
			rd(&v, 8, o);
			printf("%llu\n", (unsigned long long)v);
		} else {
			uint32_t v;
			rd(&v, 4, o);
			if (!strcmp(argv[4], "i32"))
				printf("%d\n", (int32_t)v);
			else
				printf("%u\n", v);
		}
	} else if (!strcmp(cmd, "set") && argc == 6) {
		off_t o = where(argv[3]);
		unsigned long long v = strcmp(argv[4], "i32") ? num(argv[5])
							       : (unsigned long long)strtoll(argv[5], NULL, 0);
		size_t len = !strcmp(argv[4], "u64") ? 8 : 4;
		uint64_t v64 = v;
		uint32_t v32 = (uint32_t)v;
		if (pwrite(fd, len == 8 ? (void *)&v64 : (void *)&v32, len, o) != (ssize_t)len)
			die("cannot write");
	} else if (!strcmp(cmd, "bytes") && argc == 5) {
		off_t o = where(argv[3]);
		const char *h = argv[4];
		size_t n = strlen(h) / 2;
		unsigned char b[4096];
		if (strlen(h) % 2 || n > sizeof(b))
			die("bad hex");
		for (size_t i = 0; i < n; i++) {
			char x[3] = { h[2 * i], h[2 * i + 1], 0 };
			b[i] = (unsigned char)strtoul(x, NULL, 16);
		}
		if (pwrite(fd, b, n, o) != (ssize_t)n)
			die("cannot write");
	} else if (!strcmp(cmd, "copy") && argc == 6) {
		off_t from = where(argv[3]), to = where(argv[5]);
		size_t n = (size_t)num(argv[4]);
		unsigned char *b = malloc(n ? n : 1);
		if (!b)
			die("out of memory");
		rd(b, n, from);
		if (pwrite(fd, b, n, to) != (ssize_t)n)
			die("cannot write");
		free(b);
	} else {
		die("bad command");
	}
	return 0;
}
