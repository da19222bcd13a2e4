/* shm/: layout, creation, validation, the journal, the registry slots. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>

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
			if (cps_create(&c, 0, 0, NULL, NULL, &id) < 0)
				_exit(2);
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
	ck_assert_int_eq(shm_read_begin(&c.t, &s), -EAGAIN);
	ck_assert_int_eq(shm_write_begin(&c.t), 1); /* repaired */
	ck_assert_str_eq(root->name, before);
	shm_write_commit(&c.t);
	ck_assert_int_eq(shm_read_begin(&c.t, &s), 0);
	ck_assert_uint_eq(c.t.h->repairs, 1);
	cps_close(&c);
	shm_table_unlink(n);
}
END_TEST

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
	}
	shm_write_commit(&c.t);
	ck_assert_uint_eq(c.t.h->nprocs, (uint32_t)live);
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
	shm_write_abort(&c.t);
	for (pid_t k = 1; k <= 60; k++)
		ck_assert_int_ge(shm_proc_find(&c.t, k), 0);
	ck_assert_uint_eq(c.t.h->nprocs, 60);
	cps_close(&c);
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
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_run(shm_suite());
}
