/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: a table patched by a hostile writer.
 *
 * A small table is made once (sets, members, recorded threads). Each input
 * is a list of patches, applied to a fresh copy of that table:
 *
 *   byte 0      what: 0 header, 1 set slots, 2 member slots, 3 thread
 *               slots, 4 undo journal, 5 the lock word, 6 the journal's
 *               state (jcount, jlast, jused), 7 the sequence counter
 *   bytes 1-2   offset (little-endian, taken modulo the part's size)
 *   byte 3      length n (taken modulo 64)
 *   n bytes     the new bytes
 *
 * then every reader, every writer and the checker (cpuset-inspect --check)
 * run on it, under ASan and UBSan: none may crash, read out of bounds,
 * hang or leave the lock taken. A writer's lock wait is 0 (as the shim's),
 * so a forged holder makes writers fail at once. Nothing outside this
 * process is ever moved: migration runs only when every member on record
 * is this process. Run by tests/fuzz.sh. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "src/cpulist.h"
#include "src/sets.h"

int inspect_main(int argc, char **argv); /* tools/cpuset-inspect.c's main */

static char name[96];
static unsigned char *pristine;
static size_t restore_len; /* the whole table (a small journal) */
static struct shm_header lay; /* the layout, as made: patches change it */
static struct cps_ctx raw;  /* our own writable mapping, for the patches */

static void cleanup(void)
{
	shm_table_unlink(name);
}

static void must(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_table: set-up failed: %s\n", what);
		exit(1);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* tests/fuzz.sh names it, and removes it: libFuzzer ends without
	 * running atexit handlers when its time is up */
	const char *given = getenv("CPUSETSHIM_FUZZ_TABLE");
	if (given && *given && strlen(given) < sizeof(name))
		snprintf(name, sizeof(name), "%s", given);
	else
		snprintf(name, sizeof(name), "cpusetshim-fuzz.%d", (int)getpid());
	setenv("CPUSETSHIM_TABLE", name, 1);
	setenv("CPUSETSHIM_LOCK_TIMEOUT", "0", 1);
	atexit(cleanup);
	struct cps_init_opts o;
	struct cps_ctx c;
	uint64_t root = 0x3, one = 0x1, two = 0x2;
	cps_init_opts_default(&o);
	o.caps = (struct shm_caps){ 8, 8, 8, 64 };
	o.cpus = &root;
	o.force = true;
	must(cps_init(&c, name, &o) == 0, "init");
	uint32_t a, b, d;
	must(cps_create(&c, c.t.root_id, 0, "a", &one, &a) == 0, "create a");
	must(cps_create(&c, a, CPS_AUTOCLEAN, "b", &one, &b) == 0, "create b");
	must(cps_create(&c, c.t.root_id, CPS_STRICT, "d", &two, &d) == 0, "create d");
	must(cps_register(&c, getpid(), a) == 0, "register");
	must(cps_thread_record(&c, getpid(), (pid_t)syscall(SYS_gettid), 0, &one, 1) == 0, "record");
	cps_close(&c);
	/* the checker's output is not what is tested */
	int null = open("/dev/null", O_WRONLY);
	if (null >= 0) {
		dup2(null, 1);
		close(null);
	}
	must(cps_open(&raw, name, CPS_OPEN_WRITE) == 0, "open");
	restore_len = raw.t.h->total_size; /* a small journal: see tests/fuzz.sh */
	lay = *raw.t.h;
	pristine = malloc(restore_len);
	must(pristine != NULL, "memory");
	memcpy(pristine, raw.t.base, restore_len);
	return 0;
}

static void patch(const uint8_t *d, size_t n)
{
	const struct shm_header *h = &lay;
	uint64_t oj = h->off_journal;
	while (n >= 4) {
		unsigned what = d[0] % 8;
		size_t off = (size_t)d[1] | (size_t)d[2] << 8, len = d[3] % 64;
		d += 4;
		n -= 4;
		if (len > n)
			len = n;
		size_t lo, size;
		switch (what) {
		case 0: lo = 0; size = sizeof(*h); break;
		case 1: lo = h->off_sets; size = h->off_procs - h->off_sets; break;
		case 2: lo = h->off_procs; size = h->off_threads - h->off_procs; break;
		case 3: lo = h->off_threads; size = oj - h->off_threads; break;
		case 4: lo = oj; size = h->journal_size; break;
		case 5: lo = offsetof(struct shm_header, lock); size = sizeof(h->lock); break;
		case 6: lo = offsetof(struct shm_header, jcount); size = 16; break;
		default: lo = offsetof(struct shm_header, seq); size = 8; break;
		}
		off %= size;
		if (len > size - off)
			len = size - off;
		memcpy(raw.t.base + lo + off, d, len);
		d += len;
		n -= len;
	}
}

/* Every member on record is this process (so migration moves nothing else). */
static int only_us(struct cps_ctx *c)
{
	for (uint32_t i = 0; i < c->t.proc_slots; i++) {
		int32_t p = shm_proc_at(&c->t, i)->pid;
		if (p != 0 && p != getpid())
			return 0;
	}
	return 1;
}

static void readers(struct cps_ctx *c)
{
	uint32_t ids[16], id;
	struct cps_setinfo si;
	struct cps_member m[16];
	struct cps_placement p;
	uint64_t w[CPS_MAX_WORDS];
	char why[160];
	pid_t tid;
	long n = cps_set_list(c, ids, 16);
	for (long i = 0; i < n && i < 16; i++)
		cps_set_get(c, ids[i], &si);
	cps_set_get(c, c->t.root_id, &si);
	cps_members(c, 0, m, 16);
	cps_find(c, "a", &id);
	cps_find(c, "3", &id);
	cps_which(c, 0, &id);
	cps_current(c);
	cps_placement_read(&c->t, getpid(), 0, 0, &p);
	cps_placement_read(&c->t, getpid(), 0, 3, &p);
	cps_thread_lookup(&c->t, (pid_t)syscall(SYS_gettid), w, CPS_MAX_WORDS);
	cps_getfreecpus(c, 0, 0, w);
	shm_journal_check(&c->t, why, sizeof(why));
	shm_lock_state(&c->t, &tid);
}

static void writers(struct cps_ctx *c)
{
	uint64_t one = 0x1, two = 0x2;
	uint32_t id = 0, a = 0;
	c->t.lock_wait_ms = 0;
	cps_repair(c);
	cps_sweep(c);
	if (cps_create(c, 0, 0, "x", &one, &id) == 0)
		cps_destroy(c, id);
	cps_create(c, 0, CPS_STRICT, NULL, &two, &id);
	if (cps_find(c, "a", &a) == 0) {
		if (only_us(c))
			cps_alloc(c, a, &one);
		cps_register(c, getpid(), a);
	}
	cps_thread_record(c, getpid(), (pid_t)syscall(SYS_gettid), 0, &one, 1);
	cps_destroy(c, 3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	memcpy(raw.t.base, pristine, restore_len);
	patch(data, size);
	struct cps_ctx c;
	if (cps_open(&c, name, CPS_OPEN_WRITE) == 0) {
		readers(&c);
		writers(&c);
		readers(&c);
		cps_close(&c);
	}
	char *argv[] = { "cpuset-inspect", "--check", NULL };
	optind = 1;
	inspect_main(2, argv);
	optind = 1;
	return 0;
}
