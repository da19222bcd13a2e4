/* SPDX-License-Identifier: BSD-3-Clause */
/* shm/: layout, creation, validation, the journal, the registry slots. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

#include "shm/registry.h"
#include "tests/testlib.h"

static char path_of[256];
static const char *shm_path(const char *name)
{
	snprintf(path_of, sizeof(path_of), "/dev/shm/%s", name);
	return path_of;
}

/* Poke bytes of a table's file directly, as a hostile or broken writer. */
static void poke(const char *name, off_t off, const void *p, size_t len)
{
	int fd = open(shm_path(name), O_RDWR);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, p, len, off), (ssize_t)len);
	close(fd);
}

static void poke_get(const char *name, off_t off, void *p, size_t len)
{
	int fd = open(shm_path(name), O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, p, len, off), (ssize_t)len);
	close(fd);
}

START_TEST(layout_pinned)
{
	/* the format number carries the sizes the layout depends on */
	ck_assert_uint_eq(SHM_VERSION & 0xff, sizeof(long));
	ck_assert_uint_eq((SHM_VERSION >> 8) & 0xffff, sizeof(pthread_mutex_t));
	ck_assert_uint_eq(offsetof(struct shm_header, magic), 0);
	ck_assert_uint_eq(offsetof(struct shm_header, seq) % 64, 0);
	ck_assert_uint_eq(offsetof(struct shm_set, masks) % 8, 0);
	ck_assert_uint_eq(sizeof(struct shm_proc), 32);
	struct shm_header h;
	struct shm_caps c = { 1024, 8192, 32768, 1024 };
	ck_assert_int_eq(shm_layout(&h, &c), 0);
	ck_assert_uint_eq(h.mask_words, 16);
	ck_assert_uint_ge(h.proc_slots, 2 * c.max_procs);
	ck_assert_uint_ge(h.thread_slots, 2 * c.max_threads);
	ck_assert(h.off_sets < h.off_procs && h.off_procs < h.off_threads &&
		  h.off_threads < h.off_journal && h.off_journal < h.total_size);
	/* the summaries: after the threads, in the data part before the
	 * journal, a bit per SHM_GROUP slots */
	ck_assert_uint_eq(h.off_pocc, h.off_threads + (uint64_t)h.thread_slots * h.thread_rsz);
	ck_assert_uint_eq(h.off_tocc, h.off_pocc + 8 * (uint64_t)shm_occ_words(h.proc_slots));
	ck_assert_uint_le(h.off_tocc + 8 * (uint64_t)shm_occ_words(h.thread_slots), h.off_journal);
	ck_assert_uint_eq(shm_occ_words(16384), 4);
	ck_assert_uint_eq(shm_occ_words(16), 1);
	/* 8,192-CPU masks fit; beyond is refused */
	c.mask_bits = 8192;
	ck_assert_int_eq(shm_layout(&h, &c), 0);
	ck_assert_uint_eq(h.mask_words, 128);
	c.mask_bits = 8256;
	ck_assert_int_eq(shm_layout(&h, &c), -EINVAL);
	c.mask_bits = 1000; /* not a multiple of 64 */
	ck_assert_int_eq(shm_layout(&h, &c), -EINVAL);
	/* the magic reads differently in the other byte order */
	ck_assert(SHM_MAGIC != __builtin_bswap64(SHM_MAGIC));
}
END_TEST

START_TEST(default_caps)
{
	struct shm_caps c;
	shm_caps_default(&c);
	ck_assert_uint_ge(c.mask_bits, 1024);
	ck_assert_uint_eq(c.mask_bits % 64, 0);
	ck_assert_uint_ge(c.max_sets, 1024);
}
END_TEST

START_TEST(create_open_modes)
{
	struct cps_ctx c, d;
	const char *n = tl_name();
	tl_init(&c, n, 0, 0, 0, 0, NULL);
	struct stat st;
	ck_assert_int_eq(stat(shm_path(n), &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(cps_open(&d, n, CPS_OPEN_READ), 0);
	ck_assert_uint_eq(d.t.root_id, c.t.root_id);
	ck_assert(!d.t.writable);
	uint32_t id;
	ck_assert_int_eq(cps_create(&d, 0, 0, NULL, NULL, &id), -EACCES);
	cps_close(&d);
	/* no such table */
	ck_assert_int_eq(cps_open(&d, "cpusetshim-check-none", CPS_OPEN_READ), -ENOENT);
	/* names with a slash are refused */
	ck_assert_int_eq(cps_open(&d, "a/b", CPS_OPEN_READ), -EINVAL);
	/* writable by others though made private: refused */
	ck_assert_int_eq(chmod(shm_path(n), 0666), 0);
	ck_assert_int_eq(cps_open(&d, n, CPS_OPEN_READ), -EACCES);
	ck_assert_ptr_nonnull(d.why);
	ck_assert_int_eq(chmod(shm_path(n), 0600), 0);
	/* never through a symbolic link */
	char ln[128];
	snprintf(ln, sizeof(ln), "%s.link", n);
	unlink(shm_path(ln));
	char target[256];
	snprintf(target, sizeof(target), "%s", shm_path(n));
	ck_assert_int_eq(symlink(target, shm_path(ln)), 0);
	ck_assert_int_eq(cps_open(&d, ln, CPS_OPEN_READ), -EACCES);
	unlink(shm_path(ln));
	/* creating over an existing one: EEXIST, the old one untouched */
	struct cps_init_opts o;
	cps_init_opts_default(&o);
	ck_assert_int_eq(cps_init(&d, n, &o), -EEXIST);
	cps_close(&c);
	shm_table_unlink(n);
}
END_TEST

START_TEST(refuse_bad_magic_and_version)
{
	struct cps_ctx c, d;
	const char *n = tl_name();
	tl_init(&c, n, 0, 0, 0, 0, NULL);
	uint64_t magic = c.t.h->magic;
	uint32_t version = c.t.h->version;
	cps_close(&c);

	uint64_t bad = 0x1234;
	poke(n, offsetof(struct shm_header, magic), &bad, sizeof(bad));
	ck_assert_int_eq(cps_open(&d, n, CPS_OPEN_READ), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(d.why, "magic"));
	/* the other byte order is named as such */
	bad = __builtin_bswap64(magic);
	poke(n, offsetof(struct shm_header, magic), &bad, sizeof(bad));
	ck_assert_int_eq(cps_open(&d, n, CPS_OPEN_READ), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(d.why, "byte order"));
	poke(n, offsetof(struct shm_header, magic), &magic, sizeof(magic));
	ck_assert_int_eq(cps_open(&d, n, CPS_OPEN_READ), 0);
	cps_close(&d);

	uint32_t future = version + (1u << 24);
	poke(n, offsetof(struct shm_header, version), &future, sizeof(future));
	ck_assert_int_eq(cps_open(&d, n, CPS_OPEN_WRITE), -EPROTONOSUPPORT);
	ck_assert_ptr_nonnull(strstr(d.why, "newer"));
	poke(n, offsetof(struct shm_header, version), &version, sizeof(version));

	/* capacities that do not match the file's size */
	uint32_t sets = 5000;
	poke(n, offsetof(struct shm_header, caps.max_sets), &sets, sizeof(sets));
	ck_assert_int_eq(cps_open(&d, n, CPS_OPEN_READ), -EUCLEAN);
	/* a truncated table */
	ck_assert_int_eq(truncate(shm_path(n), 100), 0);
	ck_assert_int_eq(cps_open(&d, n, CPS_OPEN_READ), -EBADMSG);
	shm_table_unlink(n);
}
END_TEST

START_TEST(concurrent_create)
{
	/* several processes make the same table at once: one wins, all use it */
	const char *n = tl_name();
	char name[128];
	snprintf(name, sizeof(name), "%s", n);
	shm_table_unlink(name);
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t kids[6];
	for (int i = 0; i < 6; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			char b;
			close(fds[1]);
			ssize_t r = read(fds[0], &b, 1); /* start together */
			(void)r;
			struct cps_ctx c;
			if (cps_open(&c, name, CPS_OPEN_CREATE) < 0)
				_exit(1);
			uint32_t id;
			int e = cps_create(&c, 0, 0, NULL, NULL, &id);
			if (e < 0) { /* say why: the errno and the table's reason */
				fprintf(stderr, "concurrent_create: child: %s (%s)\n", strerror(-e),
					c.why ? c.why : c.t.why);
				_exit(2);
			}
			_exit(0);
		}
	}
	close(fds[0]);
	close(fds[1]);
	for (int i = 0; i < 6; i++) {
		int st;
		waitpid(kids[i], &st, 0);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d: %d", i, st);
	}
	struct cps_ctx c;
	ck_assert_int_eq(cps_open(&c, name, CPS_OPEN_READ), 0);
	ck_assert_uint_eq(c.t.h->nsets, 7); /* the root and six children */
	cps_close(&c);
	shm_table_unlink(name);
}
END_TEST

START_TEST(journal_abort_and_dead_writer)
{
	struct cps_ctx c;
	const char *n = tl_name();
	tl_init(&c, n, 0, 0, 0, 0, NULL);
	struct shm_set *root = shm_set_by_id(&c.t, c.t.root_id);
	char before[SHM_NAME_MAX];
	memcpy(before, root->name, sizeof(before));
	uint64_t seq0 = shm_seq(&c.t);

	ck_assert_int_eq(shm_write_begin(&c.t), 0);
	ck_assert(shm_seq(&c.t) & 1);
	ck_assert_int_eq(shm_write(&c.t, root->name, "changed", 8), 0);
	ck_assert_int_eq(shm_write(&c.t, root->name, "twice", 6), 0);
	shm_write_abort(&c.t);
	ck_assert_str_eq(root->name, before);
	ck_assert(!(shm_seq(&c.t) & 1));
	ck_assert_uint_gt(shm_seq(&c.t), seq0);

	/* a writer that dies inside: the next writer rolls its work back */
	pid_t p = fork();
	if (p == 0) {
		struct cps_ctx k;
		if (cps_open(&k, n, CPS_OPEN_WRITE) < 0)
			_exit(1);
		struct shm_set *r = shm_set_by_id(&k.t, k.t.root_id);
		shm_write_begin(&k.t);
		shm_write(&k.t, r->name, "dying", 6);
		raise(SIGKILL);
	}
	int st;
	waitpid(p, &st, 0);
	ck_assert(WIFSIGNALED(st));
	ck_assert_str_eq(root->name, "dying"); /* the torn state is visible... */
	ck_assert(shm_seq(&c.t) & 1);          /* ...and flagged to readers */
	uint64_t s;
	/* the writer is seen dead at once, not after a wait */
	ck_assert_int_eq(shm_read_begin(&c.t, &s), -EOWNERDEAD);
	ck_assert_int_eq(shm_read_wait(&c.t, &s, 5000), -EOWNERDEAD);
	ck_assert_int_eq(shm_write_begin(&c.t), 1); /* repaired */
	ck_assert_str_eq(root->name, before);
	shm_write_commit(&c.t);
	ck_assert_int_eq(shm_read_begin(&c.t, &s), 0);
	ck_assert_uint_eq(c.t.h->repairs, 1);
	cps_close(&c);
	shm_table_unlink(n);
}
END_TEST

/* The occupancy summary of a registry is exact: a group's bit is set
 * if and only if a record is in one of its slots. */
static void occ_exact(const uint64_t *occ, const unsigned char *recs, uint32_t slots, size_t rsz)
{
	for (uint32_t lo = 0; lo < slots; lo += SHM_GROUP) {
		bool any = false;
		for (uint32_t j = lo; j < lo + SHM_GROUP && j < slots; j++)
			any |= *(const int32_t *)(recs + (size_t)j * rsz) != 0;
		ck_assert_msg(shm_occ_maybe(occ, lo) == any, "group of slot %u: bit %d, records %d", lo,
			      shm_occ_maybe(occ, lo), any);
	}
	/* a walk from a slot anywhere in a group, wrapping, stops at the
	 * first slot whose group is marked: against a slot-by-slot look */
	for (uint32_t from = 0; from < slots; from += 37)
		for (uint32_t n = 0; n < slots; n += 29) {
			uint32_t want = n;
			while (want < slots && !shm_occ_maybe(occ, (from + want) & (slots - 1)))
				want++;
			ck_assert_uint_eq(shm_occ_walk(occ, from, n, slots), want);
		}
}

START_TEST(registry_model)
{
	/* random inserts and removals against a plain array model */
	struct cps_ctx c;
	const char *n = tl_name();
	tl_init(&c, n, 16, 512, 512, 64, NULL);
	static int model[1 << 16];
	memset(model, 0, sizeof(model));
	uint32_t x = 12345;
	int live = 0;
	ck_assert_int_eq(shm_write_begin(&c.t), 0);
	for (int step = 0; step < 20000; step++) {
		x = x * 1103515245u + 12345u;
		pid_t key = (pid_t)(1 + (x >> 8) % 2000); /* many collisions */
		long i = shm_proc_find(&c.t, key);
		ck_assert_int_eq(i >= 0, model[key] != 0);
		if (i >= 0) {
			ck_assert_int_eq(shm_proc_remove(&c.t, (uint32_t)i), 0);
			model[key] = 0;
			live--;
		} else if (live < 512) {
			long j = shm_proc_insert(&c.t, key);
			ck_assert_int_ge(j, 0);
			ck_assert_int_eq(shm_proc_insert(&c.t, key), -EEXIST);
			model[key] = 1;
			live++;
		} else {
			ck_assert_int_eq(shm_proc_insert(&c.t, key), -ENOSPC);
		}
		if (step % 1000 == 999) {
			/* commit from time to time to keep the journal small */
			shm_write_commit(&c.t);
			ck_assert_int_eq(shm_write_begin(&c.t), 0);
		}
		if (step % 97 == 0)
			occ_exact(c.t.pocc, c.t.procs, c.t.proc_slots, c.t.proc_rsz);
	}
	shm_write_commit(&c.t);
	occ_exact(c.t.pocc, c.t.procs, c.t.proc_slots, c.t.proc_rsz);
	ck_assert_uint_eq(c.t.h->nprocs, (uint32_t)live);
	/* the thread registry's, the same way; then emptied: every bit clear */
	ck_assert_int_eq(shm_write_begin(&c.t), 0);
	for (int step = 0; step < 3000; step++) {
		x = x * 1103515245u + 12345u;
		pid_t key = (pid_t)(1 + (x >> 8) % 700);
		long i = shm_thread_find(&c.t, key);
		if (i >= 0)
			ck_assert_int_eq(shm_thread_remove(&c.t, (uint32_t)i), 0);
		else if (c.t.h->nthreads < 512)
			ck_assert_int_ge(shm_thread_insert(&c.t, key), 0);
		if (step % 101 == 0)
			occ_exact(c.t.tocc, c.t.threads, c.t.thread_slots, c.t.thread_rsz);
	}
	for (pid_t k = 1; k <= 700; k++) {
		long i = shm_thread_find(&c.t, k);
		if (i >= 0)
			ck_assert_int_eq(shm_thread_remove(&c.t, (uint32_t)i), 0);
	}
	shm_write_commit(&c.t);
	occ_exact(c.t.tocc, c.t.threads, c.t.thread_slots, c.t.thread_rsz);
	for (uint32_t w = 0; w < shm_occ_words(c.t.thread_slots); w++)
		ck_assert_uint_eq(c.t.tocc[w], 0);
	for (pid_t k = 1; k <= 2000; k++)
		ck_assert_int_eq(shm_proc_find(&c.t, k) >= 0, model[k] != 0);
	cps_close(&c);
	shm_table_unlink(n);
}
END_TEST

START_TEST(registry_rollback_restores_index)
{
	struct cps_ctx c;
	const char *n = tl_name();
	tl_init(&c, n, 16, 64, 64, 64, NULL);
	ck_assert_int_eq(shm_write_begin(&c.t), 0);
	for (pid_t k = 1; k <= 60; k++)
		ck_assert_int_ge(shm_proc_insert(&c.t, k), 0);
	shm_write_commit(&c.t);
	ck_assert_int_eq(shm_write_begin(&c.t), 0);
	for (pid_t k = 1; k <= 60; k += 2)
		ck_assert_int_eq(shm_proc_remove(&c.t, (uint32_t)shm_proc_find(&c.t, k)), 0);
	/* emptied: the summary says so, and the rollback brings it back */
	for (pid_t k = 2; k <= 60; k += 2)
		ck_assert_int_eq(shm_proc_remove(&c.t, (uint32_t)shm_proc_find(&c.t, k)), 0);
	ck_assert_uint_eq(c.t.h->nprocs, 0);
	occ_exact(c.t.pocc, c.t.procs, c.t.proc_slots, c.t.proc_rsz);
	ck_assert_uint_eq(c.t.pocc[0], 0);
	shm_write_abort(&c.t);
	for (pid_t k = 1; k <= 60; k++)
		ck_assert_int_ge(shm_proc_find(&c.t, k), 0);
	ck_assert_uint_eq(c.t.h->nprocs, 60);
	occ_exact(c.t.pocc, c.t.procs, c.t.proc_slots, c.t.proc_rsz);
	cps_close(&c);
	shm_table_unlink(n);
}
END_TEST


/* ---- hostile tables: damaged bytes, forged locks, a table cut short ---- */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A table left by a writer killed after three undo entries: the root's
 * name, then nsets, then next_id. */
static void dead_writer_table(const char *n)
{
	struct cps_ctx c;
	tl_init(&c, n, 16, 64, 64, 64, NULL);
	cps_close(&c);
	pid_t p = fork();
	if (p == 0) {
		struct cps_ctx k;
		if (cps_open(&k, n, CPS_OPEN_WRITE) < 0)
			_exit(1);
		struct shm_set *r = shm_set_by_id(&k.t, k.t.root_id);
		shm_write_begin(&k.t);
		shm_write(&k.t, r->name, "dying", 6);
		shm_write_u32(&k.t, &k.t.h->nsets, 99);
		shm_write_u32(&k.t, &k.t.h->next_id, 77);
		raise(SIGKILL);
	}
	int st;
	waitpid(p, &st, 0);
	ck_assert(WIFSIGNALED(st));
}

static uint64_t off_journal(const char *n)
{
	struct cps_ctx c;
	ck_assert_int_eq(cps_open(&c, n, CPS_OPEN_READ), 0);
	uint64_t o = c.t.h->off_journal;
	cps_close(&c);
	return o;
}

/* Every write is refused, with the remedy named, and nothing changes. */
static void journal_refused(const char *n, const char *what)
{
	struct cps_ctx c;
	ck_assert_int_eq(cps_open(&c, n, CPS_OPEN_WRITE), 0);
	struct shm_set *root = shm_set_by_id(&c.t, c.t.root_id);
	for (int i = 0; i < 2; i++) {
		ck_assert_msg(shm_write_begin(&c.t) == -EUCLEAN, "%s: not refused", what);
		ck_assert_msg(strstr(c.t.why, "cpuset init --force"), "%s: why [%s]", what, c.t.why);
		ck_assert_str_eq(root->name, "dying");
		ck_assert_uint_eq(c.t.h->nsets, 99);
	}
	cps_close(&c);
}

START_TEST(hostile_journal)
{
	const char *n = tl_name();
	/* entry 2's prev pointing 8 bytes into entry 1 (crashed repair before) */
	dead_writer_table(n);
	uint64_t j = off_journal(n);
	uint32_t e0len, e1len;
	poke_get(n, j + 8, &e0len, 4);
	uint64_t e1 = (16 + e0len + 7) / 8 * 8;
	poke_get(n, j + e1 + 8, &e1len, 4);
	uint64_t e2 = e1 + (16 + e1len + 7) / 8 * 8;
	uint32_t bad = (uint32_t)e1 + 8;
	poke(n, (off_t)(j + e2 + 12), &bad, 4);
	journal_refused(n, "prev into an entry");

	/* an entry's length reaching past the journal's end */
	dead_writer_table(n);
	uint32_t huge = 0xfffffff0u;
	poke(n, (off_t)(j + e1 + 8), &huge, 4);
	journal_refused(n, "long entry");

	/* the journal's used bytes beyond its size */
	dead_writer_table(n);
	uint64_t used = ~0ull - 7;
	poke(n, offsetof(struct shm_header, jused), &used, 8);
	journal_refused(n, "jused");

	/* an entry restoring the lock, the layout or the journal itself */
	uint64_t targets[] = { offsetof(struct shm_header, lock), 0, j + 64,
			       offsetof(struct shm_header, total_size) };
	for (size_t i = 0; i < CPS_ARRAY_SIZE(targets); i++) {
		dead_writer_table(n);
		poke(n, (off_t)(j + e1), &targets[i], 8);
		journal_refused(n, "target");
	}

	/* more entries counted than written */
	dead_writer_table(n);
	uint32_t many = 100000;
	poke(n, offsetof(struct shm_header, jcount), &many, 4);
	journal_refused(n, "jcount");

	/* the same table, untouched: the dead writer's work is undone */
	dead_writer_table(n);
	struct cps_ctx c;
	ck_assert_int_eq(cps_open(&c, n, CPS_OPEN_WRITE), 0);
	ck_assert_int_eq(shm_write_begin(&c.t), 1);
	shm_write_commit(&c.t);
	ck_assert_str_eq(shm_set_by_id(&c.t, c.t.root_id)->name, "root");
	ck_assert_uint_eq(c.t.h->nsets, 1);
	cps_close(&c);
	shm_table_unlink(n);
}
END_TEST

START_TEST(forged_lock)
{
	struct cps_ctx c;
	const char *n = tl_name();
	tl_init(&c, n, 16, 64, 64, 64, NULL);
	cps_close(&c);
	ck_assert_int_eq(cps_open(&c, n, CPS_OPEN_WRITE), 0);
	off_t word = offsetof(struct shm_header, lock.__data.__lock);

	/* four bytes claim the lock for pid 1: writers wait with a bound,
	 * then fail naming the holder */
	int32_t one = 1;
	poke(n, word, &one, 4);
	c.t.lock_wait_ms = 300;
	int64_t t0 = now_ms();
	ck_assert_int_eq(shm_write_begin(&c.t), -EBUSY);
	int64_t waited = now_ms() - t0;
	ck_assert_msg(waited >= 250 && waited < 3000, "waited %lld ms", (long long)waited);
	ck_assert_int_eq(c.t.holder, 1);
	ck_assert_msg(strstr(c.t.why, "pid 1 "), "why [%s]", c.t.why);
	pid_t tid;
	ck_assert_int_eq(shm_lock_state(&c.t, &tid), SHM_LOCK_HELD);
	ck_assert_int_eq(tid, 1);
	/* the shim's writer never waits */
	c.t.lock_wait_ms = 0;
	t0 = now_ms();
	ck_assert_int_eq(shm_write_begin(&c.t), -EBUSY);
	ck_assert_int_lt(now_ms() - t0, 200);

	/* a holder that does not exist: taken over as the kernel would */
	pid_t gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	poke(n, word, &gone, 4);
	ck_assert_int_eq(shm_lock_state(&c.t, &tid), SHM_LOCK_DEAD);
	c.t.lock_wait_ms = 5000;
	ck_assert_int_ge(shm_write_begin(&c.t), 0);
	shm_write_commit(&c.t);
	ck_assert_int_eq(shm_lock_state(&c.t, &tid), SHM_LOCK_FREE);

	/* the word naming this very thread: refused at once, never taken over
	 * (it may be a write of ours inside another) */
	int32_t me = (int32_t)syscall(SYS_gettid), zero = 0;
	poke(n, word, &me, 4);
	t0 = now_ms();
	ck_assert_int_eq(shm_write_begin(&c.t), -EDEADLK);
	ck_assert_int_lt(now_ms() - t0, 1000);
	ck_assert_ptr_nonnull(strstr(c.t.why, "this very thread"));
	poke(n, word, &zero, 4);

	/* the mutex's type overwritten: refused, not trusted */
	int32_t kind = 0;
	poke(n, offsetof(struct shm_header, lock.__data.__kind), &kind, 4);
	ck_assert_int_eq(shm_write_begin(&c.t), -EUCLEAN);
	ck_assert_int_eq(shm_lock_state(&c.t, &tid), SHM_LOCK_DAMAGED);
	cps_close(&c);
	shm_table_unlink(n);
}
END_TEST

START_TEST(stopped_writer_bounded_read)
{
	/* a writer stopped inside: readers wait as long as they said, not
	 * seven times longer, and writers name it */
	struct cps_ctx c;
	const char *n = tl_name();
	tl_init(&c, n, 16, 64, 64, 64, NULL);
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t p = fork();
	if (p == 0) {
		struct cps_ctx k;
		if (cps_open(&k, n, CPS_OPEN_WRITE) < 0)
			_exit(1);
		shm_write_begin(&k.t);
		ck_assert_int_eq(write(fds[1], "x", 1), 1);
		raise(SIGSTOP);
		_exit(0);
	}
	char b;
	ck_assert_int_eq(read(fds[0], &b, 1), 1);
	uint64_t s;
	int64_t t0 = now_ms();
	ck_assert_int_eq(shm_read_wait(&c.t, &s, 500), -EAGAIN);
	int64_t waited = now_ms() - t0;
	ck_assert_msg(waited >= 450 && waited < 1500, "waited %lld ms", (long long)waited);
	c.t.lock_wait_ms = 200;
	ck_assert_int_eq(shm_write_begin(&c.t), -EBUSY);
	ck_assert_int_eq(c.t.holder, p);
	ck_assert_msg(strstr(c.t.why, "stopped"), "why [%s]", c.t.why);
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	/* killed: seen dead at once, repaired by the next writer */
	ck_assert_int_eq(shm_read_begin(&c.t, &s), -EOWNERDEAD);
	ck_assert_int_eq(shm_write_begin(&c.t), 1);
	shm_write_commit(&c.t);
	ck_assert_int_eq(shm_read_begin(&c.t, &s), 0);
	/* a counter left odd with the lock free (forged): also repaired */
	uint64_t odd = s + 1;
	poke(n, offsetof(struct shm_header, seq), &odd, 8);
	ck_assert_int_eq(shm_read_begin(&c.t, &s), -EOWNERDEAD);
	ck_assert_int_eq(shm_write_begin(&c.t), 1);
	shm_write_commit(&c.t);
	ck_assert_int_eq(shm_read_begin(&c.t, &s), 0);
	cps_close(&c);
	shm_table_unlink(n);
}
END_TEST

START_TEST(truncated_under_us)
{
	/* the file shrinks under a reader: no SIGBUS, the table is lost */
	struct cps_ctx c;
	const char *n = tl_name();
	tl_init(&c, n, 16, 64, 64, 64, NULL);
	cps_close(&c);
	ck_assert_int_eq(cps_open(&c, n, CPS_OPEN_WRITE), 0);
	ck_assert(!shm_table_lost(&c.t));
	ck_assert_int_eq(truncate(shm_path(n), 4096), 0);
	volatile uint32_t v = shm_proc_at(&c.t, 0)->set; /* past the end now */
	ck_assert_uint_eq(v, 0);
	ck_assert(shm_table_lost(&c.t));
	ck_assert_int_eq(shm_write_begin(&c.t), -ESTALE);
	ck_assert_ptr_nonnull(strstr(c.t.why, "truncated"));
	struct cps_placement snap;
	ck_assert_int_lt(cps_placement_read(&c.t, getpid(), 0, 0, &snap), 0);
	cps_close(&c);
	/* and to nothing at all */
	tl_init(&c, n, 16, 64, 64, 64, NULL);
	ck_assert_int_eq(truncate(shm_path(n), 0), 0);
	ck_assert_uint_eq(shm_seq(&c.t), 0);
	ck_assert(shm_table_lost(&c.t));
	cps_close(&c);
	shm_table_unlink(n);

	/* a SIGBUS that is not the table's still kills as before */
	pid_t p = fork();
	if (p == 0) {
		ck_assert_int_eq(cps_open(&c, "cpusetshim-check-none", CPS_OPEN_READ), -ENOENT);
		tl_init(&c, n, 16, 64, 64, 64, NULL); /* the guard is installed */
		char f[] = "/dev/shm/cpusetshim-check-sigbus.XXXXXX";
		int fd = mkstemp(f);
		unlink(f);
		if (fd < 0 || ftruncate(fd, 8192) < 0)
			_exit(1);
		volatile char *m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
		if (ftruncate(fd, 0) < 0)
			_exit(1);
		(void)m[4096];
		_exit(2);
	}
	int st;
	waitpid(p, &st, 0);
	shm_table_unlink(n);
	/* SIGBUS, or SIGABRT from a sanitizer's handler, which was there
	 * before the guard and is chained to */
	ck_assert_msg(WIFSIGNALED(st) && (WTERMSIG(st) == SIGBUS || WTERMSIG(st) == SIGABRT),
		      "status %#x", st);
}
END_TEST

START_TEST(root_and_foreign_tables)
{
	if (geteuid() != 0)
		return; /* root's rule: tests/multiuser.sh covers the others */
	struct cps_ctx c;
	const char *n = tl_name();
	tl_init(&c, n, 16, 64, 64, 64, NULL);
	cps_close(&c);
	/* a table another user made (uid 4242, no such user needed) */
	ck_assert_int_eq(chown(shm_path(n), 4242, (gid_t)-1), 0);
	unsetenv("CPUSETSHIM_TABLE_OWNER");
	ck_assert_int_eq(cps_open(&c, n, CPS_OPEN_WRITE), -EACCES);
	ck_assert_ptr_nonnull(strstr(c.why, "another user"));
	/* confirmed for another owner: still refused */
	setenv("CPUSETSHIM_TABLE_OWNER", "4243", 1);
	ck_assert_int_eq(cps_open(&c, n, CPS_OPEN_READ), -EACCES);
	/* named and its owner confirmed: used */
	setenv("CPUSETSHIM_TABLE_OWNER", "4242", 1);
	ck_assert_int_eq(cps_open(&c, n, CPS_OPEN_WRITE), 0);
	cps_close(&c);
	unsetenv("CPUSETSHIM_TABLE_OWNER");
	shm_table_unlink(n);
}
END_TEST

START_TEST(shared_and_huge_refused)
{
	struct cps_ctx c;
	struct cps_init_opts o;
	const char *n = tl_name();
	cps_init_opts_default(&o);
	o.mode = 0666;
	ck_assert_int_eq(cps_init(&c, n, &o), -EINVAL);
	ck_assert_ptr_nonnull(strstr(c.why, "every user"));
	o.mode = 0662;
	ck_assert_int_eq(cps_init(&c, n, &o), -EINVAL);
	/* capacities: sane bounds, and the whole table under a gigabyte */
	struct shm_header h;
	struct shm_caps caps = { 1024, 8192, SHM_MAX_THREADS, 8192 };
	ck_assert_int_eq(shm_layout(&h, &caps), -EOVERFLOW);
	caps.max_threads = SHM_MAX_THREADS + 1;
	ck_assert_int_eq(shm_layout(&h, &caps), -EINVAL);
	caps = (struct shm_caps){ SHM_MAX_SETS, SHM_MAX_PROCS, SHM_MAX_THREADS, 1024 };
	ck_assert_int_eq(shm_layout(&h, &caps), 0);
	ck_assert_uint_le(h.total_size, SHM_MAX_TABLE_BYTES);
	/* a header claiming more is refused at open */
	tl_init(&c, n, 16, 64, 64, 64, NULL);
	cps_close(&c);
	uint32_t big = 1u << 24;
	poke(n, offsetof(struct shm_header, caps.max_threads), &big, 4);
	ck_assert_int_eq(cps_open(&c, n, CPS_OPEN_READ), -EUCLEAN);
	shm_table_unlink(n);
}
END_TEST

static Suite *shm_suite(void)
{
	Suite *s = suite_create("shm");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, layout_pinned);
	tcase_add_test(tc, default_caps);
	tcase_add_test(tc, create_open_modes);
	tcase_add_test(tc, refuse_bad_magic_and_version);
	tcase_add_test(tc, concurrent_create);
	tcase_add_test(tc, journal_abort_and_dead_writer);
	tcase_add_test(tc, registry_model);
	tcase_add_test(tc, registry_rollback_restores_index);
	tcase_add_test(tc, hostile_journal);
	tcase_add_test(tc, forged_lock);
	tcase_add_test(tc, stopped_writer_bounded_read);
	tcase_add_test(tc, truncated_under_us);
	tcase_add_test(tc, root_and_foreign_tables);
	tcase_add_test(tc, shared_and_huge_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_run(shm_suite());
}
