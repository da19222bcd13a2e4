/* shm/ — the table's segment: layout, create/open/validate, writers' lock
 * with crash repair through an undo journal, fault points. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "shm/table.h"

#define SHM_DIR "/dev/shm/"
#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))
#define JOURNAL_BYTES (4u << 20)

/* One undo entry: len bytes that stood at off, followed by the bytes. prev
 * is the journal offset of the previous entry, so rollback walks back. */
struct jentry {
	uint64_t off;
	uint32_t len;
	uint32_t prev;
	unsigned char data[];
};

/* Formatting by hand, not with stdio: the shim opens the table in every
 * process start, where the first use of printf's machinery alone costs
 * tens of microseconds of page faults. */
static char *put_str(char *p, char *end, const char *s)
{
	while (*s && p < end)
		*p++ = *s++;
	return *s ? NULL : p;
}

int shm_table_name(char *buf, size_t len, const char *explicit_name)
{
	const char *n = explicit_name;
	char def[64];

	if (!n || !*n)
		n = getenv("CPUSETSHIM_TABLE");
	if (!n || !*n) {
		/* "cpusetshim.<euid>" */
		char *p = put_str(def, def + sizeof(def), "cpusetshim.");
		cps_fmt_dec(p, (unsigned)geteuid());
		n = def;
	}
	if (*n == '/')
		n++;
	size_t l = strlen(n);
	if (l == 0 || l >= len || l >= SHM_TABLE_NAME_MAX - 16 || strchr(n, '/') ||
	    !strcmp(n, ".") || !strcmp(n, ".."))
		return -EINVAL;
	memcpy(buf, n, l + 1);
	return 0;
}

static uint32_t pow2_at_least(uint64_t x)
{
	uint64_t p = 16;
	while (p < x)
		p <<= 1;
	return (uint32_t)p;
}

int shm_layout(struct shm_header *h, const struct shm_caps *c)
{
	if (c->max_sets < 2 || c->max_sets > SHM_MAX_SETS || c->max_procs < 1 ||
	    c->max_procs > SHM_MAX_PROCS || c->max_threads < 1 ||
	    c->max_threads > SHM_MAX_THREADS || c->mask_bits < 64 ||
	    c->mask_bits > SHM_MAX_MASK_BITS || c->mask_bits % 64)
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	h->magic = SHM_MAGIC;
	h->version = SHM_VERSION;
	h->header_size = sizeof(*h);
	h->caps = *c;
	h->mask_words = c->mask_bits / 64;
	/* One spare slot so that a full table still has a free id to probe. */
	h->set_slots = c->max_sets + 1;
	/* Load factor at most one half keeps probe sequences short. */
	h->proc_slots = pow2_at_least((uint64_t)c->max_procs * 2);
	h->thread_slots = pow2_at_least((uint64_t)c->max_threads * 2);
	h->set_rsz = ALIGN_UP(sizeof(struct shm_set) + 3 * 8 * h->mask_words, 64);
	h->proc_rsz = sizeof(struct shm_proc);
	h->thread_rsz = ALIGN_UP(sizeof(struct shm_thread) + 8 * h->mask_words, 8);
	uint64_t off = ALIGN_UP(sizeof(*h), 4096);
	h->off_sets = off;
	off = ALIGN_UP(off + (uint64_t)h->set_slots * h->set_rsz, 4096);
	h->off_procs = off;
	off = ALIGN_UP(off + (uint64_t)h->proc_slots * h->proc_rsz, 4096);
	h->off_threads = off;
	off = ALIGN_UP(off + (uint64_t)h->thread_slots * h->thread_rsz, 4096);
	h->off_journal = off;
	h->journal_size = JOURNAL_BYTES;
	off += h->journal_size;
	if (off > (uint64_t)SSIZE_MAX)
		return -EOVERFLOW;
	h->total_size = off;
	return 0;
}

static unsigned possible_cpus(void)
{
	/* "0-N" or a list: the highest number + 1 is what masks must hold. */
	char buf[256];
	int fd = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	unsigned hi = 0;
	for (char *p = buf; *p;) {
		if (*p >= '0' && *p <= '9') {
			unsigned long v = strtoul(p, &p, 10);
			if (v < SHM_MAX_MASK_BITS && v + 1 > hi)
				hi = (unsigned)v + 1;
		} else {
			p++;
		}
	}
	return hi;
}

void shm_caps_default(struct shm_caps *c)
{
	unsigned bits = possible_cpus();
	c->max_sets = SHM_DEFAULT_SETS;
	c->max_procs = SHM_DEFAULT_PROCS;
	c->max_threads = SHM_DEFAULT_THREADS;
	if (bits < SHM_MIN_MASK_BITS)
		bits = SHM_MIN_MASK_BITS;
	c->mask_bits = (uint32_t)ALIGN_UP(bits, 64);
	if (c->mask_bits > SHM_MAX_MASK_BITS)
		c->mask_bits = SHM_MAX_MASK_BITS;
}

static void bind_handle(struct shm_table *t, void *base, size_t size)
{
	struct shm_header *h = base;
	t->base = base;
	t->size = size;
	t->h = h;
	t->mask_words = h->mask_words;
	t->set_slots = h->set_slots;
	t->proc_slots = h->proc_slots;
	t->thread_slots = h->thread_slots;
	t->set_rsz = h->set_rsz;
	t->proc_rsz = h->proc_rsz;
	t->thread_rsz = h->thread_rsz;
	t->sets = t->base + h->off_sets;
	t->procs = t->base + h->off_procs;
	t->threads = t->base + h->off_threads;
	t->journal = t->base + h->off_journal;
	t->journal_size = h->journal_size;
	t->root_id = h->root_id;
}

/* Every field of the header that fixes the layout must be exactly what the
 * capacities give: anything else is a corrupt or hostile table. */
static int validate_header(const struct shm_header *h, size_t size, const char **why)
{
	struct shm_header want;
	if (size < sizeof(*h)) {
		*why = "the table is shorter than its header";
		return -EUCLEAN;
	}
	if (h->magic != SHM_MAGIC) {
		*why = h->magic == __builtin_bswap64(SHM_MAGIC)
			       ? "the table was made with the other byte order"
			       : "bad magic: this is not a cpusetshim table, or it is half made";
		return -EBADMSG;
	}
	if (h->version != SHM_VERSION) {
		*why = (h->version >> 24) > SHM_LAYOUT
			       ? "the table has a newer layout version than this program understands"
			       : "the table has another layout version";
		return -EPROTONOSUPPORT;
	}
	if (h->header_size != sizeof(*h) || shm_layout(&want, &h->caps) < 0) {
		*why = "the table's header holds impossible capacities";
		return -EUCLEAN;
	}
	if (want.mask_words != h->mask_words || want.set_slots != h->set_slots ||
	    want.proc_slots != h->proc_slots || want.thread_slots != h->thread_slots ||
	    want.set_rsz != h->set_rsz || want.proc_rsz != h->proc_rsz ||
	    want.thread_rsz != h->thread_rsz || want.off_sets != h->off_sets ||
	    want.off_procs != h->off_procs || want.off_threads != h->off_threads ||
	    want.off_journal != h->off_journal || want.journal_size != h->journal_size ||
	    want.total_size != h->total_size || h->total_size != size) {
		*why = "the table's layout does not match its capacities";
		return -EUCLEAN;
	}
	if (h->root_id == 0 || h->root_id >= h->set_slots) {
		*why = "the table has no valid root set";
		return -EUCLEAN;
	}
	return 0;
}

static int open_path(char *path, size_t len, const char *name)
{
	/* SHM_DIR "%s", or -ENAMETOOLONG if it does not fit with its NUL */
	char *p = len ? put_str(path, path + len - 1, SHM_DIR) : NULL;
	if (p)
		p = put_str(p, path + len - 1, name);
	if (!p)
		return -ENAMETOOLONG;
	*p = 0;
	return 0;
}

int shm_table_path(char *path, size_t len, const char *name)
{
	char n[SHM_TABLE_NAME_MAX];
	int r = shm_table_name(n, sizeof(n), name);
	return r < 0 ? r : open_path(path, len, n);
}

static bool in_group(gid_t g)
{
	if (getegid() == g)
		return true;
	gid_t groups[256];
	int n = getgroups(CPS_ARRAY_SIZE(groups), groups);
	for (int i = 0; i < n; i++)
		if (groups[i] == g)
			return true;
	return false;
}

int shm_table_open(struct shm_table *t, const char *name, int how, const char **why)
{
	const char *dummy;
	char path[SHM_TABLE_NAME_MAX + 16];
	struct stat st;
	int r;

	if (!why)
		why = &dummy;
	*why = NULL;
	memset(t, 0, sizeof(*t));
	r = shm_table_name(t->name, sizeof(t->name), name);
	if (r < 0) {
		*why = "invalid table name";
		return r;
	}
	if ((r = open_path(path, sizeof(path), t->name)) < 0)
		return r;
	int fd = open(path, (how == SHM_OPEN_RDWR ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		*why = r == -ENOENT ? "no such table" : r == -ELOOP ? "the table is a symbolic link" : NULL;
		return r == -ELOOP ? -EACCES : r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	uid_t me = geteuid();
	r = -EACCES;
	if (!S_ISREG(st.st_mode)) {
		*why = "the table is not a regular file";
		goto fail;
	}
	/* /dev/shm is everyone's: refuse what another user could have planted. */
	if (me != 0 && st.st_uid != me && st.st_uid != 0 &&
	    !((st.st_mode & S_IRWXG) && in_group(st.st_gid))) {
		*why = "the table belongs to another user";
		goto fail;
	}
	if (st.st_size < (off_t)sizeof(struct shm_header)) {
		*why = "bad magic: this is not a cpusetshim table, or it is half made";
		r = -EBADMSG;
		goto fail;
	}
	size_t size = (size_t)st.st_size;
	void *base = mmap(NULL, size, PROT_READ | (how == SHM_OPEN_RDWR ? PROT_WRITE : 0),
			  MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		r = -errno;
		goto fail;
	}
	close(fd);
	r = validate_header(base, size, why);
	if (r == 0 && (st.st_mode & 07777 & ~((struct shm_header *)base)->mode & (S_IWGRP | S_IWOTH))) {
		*why = "the table is writable by others though it was not made shared";
		r = -EACCES;
	}
	if (r < 0) {
		munmap(base, size);
		return r;
	}
	bind_handle(t, base, size);
	t->writable = how == SHM_OPEN_RDWR;
	return 0;
fail:
	close(fd);
	return r;
}

void shm_table_close(struct shm_table *t)
{
	if (t->base)
		munmap(t->base, t->size);
	memset(t, 0, sizeof(*t));
}

int shm_table_unlink(const char *name)
{
	char n[SHM_TABLE_NAME_MAX], path[SHM_TABLE_NAME_MAX + 16];
	int r = shm_table_name(n, sizeof(n), name);
	if (r < 0 || (r = open_path(path, sizeof(path), n)) < 0)
		return r;
	return unlink(path) < 0 ? -errno : 0;
}

int shm_table_create(struct shm_table *t, const char *name, const struct shm_caps *caps,
		     mode_t mode, gid_t gid,
		     int (*populate)(struct shm_table *, void *), void *arg, const char **why)
{
	const char *dummy;
	char path[SHM_TABLE_NAME_MAX + 16], tmp[SHM_TABLE_NAME_MAX + 64];
	struct shm_header lay;
	pthread_mutexattr_t ma;
	int r, fd;

	if (!why)
		why = &dummy;
	*why = NULL;
	memset(t, 0, sizeof(*t));
	if ((r = shm_table_name(t->name, sizeof(t->name), name)) < 0) {
		*why = "invalid table name";
		return r;
	}
	if ((r = shm_layout(&lay, caps)) < 0) {
		*why = "capacities out of range";
		return r;
	}
	if ((r = open_path(path, sizeof(path), t->name)) < 0)
		return r;
	/* Made under a private name, published whole by link(2): nobody can
	 * open a half-made table, and of two creators exactly one wins. */
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(tmp, sizeof(tmp), SHM_DIR ".%s.new.%ld.%lx", t->name, (long)getpid(),
		 (unsigned long)ts.tv_nsec);
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = -errno;
		*why = "cannot create the shared-memory object";
		return r;
	}
	if (fchmod(fd, mode & 07777) < 0 || (gid != (gid_t)-1 && fchown(fd, (uid_t)-1, gid) < 0) ||
	    ftruncate(fd, (off_t)lay.total_size) < 0) {
		r = -errno;
		*why = "cannot size or set the permissions of the shared-memory object";
		goto out_unlink;
	}
	void *base = mmap(NULL, lay.total_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		r = -errno;
		goto out_unlink;
	}
	struct shm_header *h = base;
	*h = lay;
	h->magic = 0; /* set last */
	h->mode = mode & 07777;
	h->gid = (uint32_t)gid;
	h->creator_uid = (uint32_t)geteuid();
	h->created = (uint64_t)time(NULL);
	h->next_id = 1;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	r = -pthread_mutex_init(&h->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	if (r < 0)
		goto out_unmap;
	bind_handle(t, base, lay.total_size);
	t->writable = true;
	t->in_write = true;
	r = populate ? populate(t, arg) : 0;
	t->in_write = false;
	if (r < 0) {
		*why = "cannot populate the new table";
		goto out_unmap;
	}
	t->root_id = h->root_id;
	__atomic_store_n(&h->magic, SHM_MAGIC, __ATOMIC_RELEASE);
	if (link(tmp, path) < 0) {
		r = -errno;
		*why = r == -EEXIST ? "the table already exists" : "cannot publish the table";
		goto out_unmap;
	}
	unlink(tmp);
	close(fd);
	return 0;
out_unmap:
	munmap(base, lay.total_size);
	memset(t, 0, sizeof(*t));
out_unlink:
	unlink(tmp);
	close(fd);
	return r;
}

/* ---- fault points (test only) ---- */

#ifdef CPS_FAULT_INJECTION
static unsigned long fault_steps, fault_at;
static const char *fault_report;
static int fault_ready;

static void fault_report_steps(void)
{
	FILE *f = fopen(fault_report, "a");
	if (f) {
		fprintf(f, "%lu\n", fault_steps);
		fclose(f);
	}
}

void shm_fault_point(void)
{
	if (!fault_ready) {
		const char *s = getenv("CPUSETSHIM_FAULT_STEP");
		fault_at = s ? strtoul(s, NULL, 10) : 0;
		fault_report = getenv("CPUSETSHIM_FAULT_REPORT");
		if (fault_report)
			atexit(fault_report_steps);
		fault_ready = 1;
	}
	if (++fault_steps == fault_at)
		raise(SIGKILL);
}
unsigned long shm_fault_steps(void)
{
	return fault_steps;
}
#else
void shm_fault_point(void)
{
}
unsigned long shm_fault_steps(void)
{
	return 0;
}
#endif

/* The shim links this floor too; only the tools enable fault points, by
 * defining this to 1 (see tools/cli.c). */
extern int cps_fault_points_enabled;
int cps_fault_points_enabled;
#define FAULT()                                 \
	do {                                    \
		if (cps_fault_points_enabled)   \
			shm_fault_point();      \
	} while (0)

/* ---- the undo journal ---- */

static struct jentry *jent(struct shm_table *t, uint64_t off)
{
	return (struct jentry *)(t->journal + off);
}

/* Restore every committed entry, newest first, then empty the journal.
 * Idempotent: a repairer killed here leaves the same work for the next. */
static void rollback(struct shm_table *t)
{
	struct shm_header *h = t->h;
	uint32_t n = h->jcount;
	uint64_t off = 0, last = 0;
	uint32_t walked = 0;

	for (; walked < n; walked++) {
		if (off + sizeof(struct jentry) > t->journal_size)
			break;
		struct jentry *e = jent(t, off);
		uint64_t esz = ALIGN_UP(sizeof(*e) + (uint64_t)e->len, 8);
		if (off + esz > t->journal_size)
			break;
		last = off;
		off += esz;
	}
	if (walked == 0)
		goto done;
	for (uint32_t i = 0; i < walked; i++) {
		struct jentry *e = jent(t, last);
		if (e->off <= t->size && e->len <= t->size - e->off &&
		    e->off >= offsetof(struct shm_header, writes))
			memcpy(t->base + e->off, e->data, e->len);
		if (i + 1 < walked) {
			if (e->prev >= last)
				break;
			last = e->prev;
		}
	}
done:
	__atomic_store_n(&h->jcount, 0, __ATOMIC_RELEASE);
	h->jused = 0;
}

int shm_undo(struct shm_table *t, const void *p, size_t len)
{
	struct shm_header *h = t->h;
	const unsigned char *b = p;

	FAULT();
	if (!t->in_write || b < t->base + offsetof(struct shm_header, writes) ||
	    b > t->base + t->size ||
	    len > (size_t)(t->base + t->size - b))
		return -EINVAL;
	if (h == NULL || !h->magic) /* populating a table nobody sees yet */
		return 0;
	uint64_t used = h->jused;
	uint64_t esz = ALIGN_UP(sizeof(struct jentry) + len, 8);
	if (used + esz > t->journal_size || len > UINT32_MAX)
		return -ENOSPC;
	struct jentry *e = jent(t, used);
	e->off = (uint64_t)(b - t->base);
	e->len = (uint32_t)len;
	e->prev = 0;
	if (h->jcount) {
		e->prev = h->jlast;
	}
	memcpy(e->data, b, len);
	h->jused = used + esz;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	h->jlast = (uint32_t)used;
	__atomic_store_n(&h->jcount, h->jcount + 1, __ATOMIC_RELEASE);
	return 0;
}

int shm_write(struct shm_table *t, void *dst, const void *src, size_t len)
{
	int r = shm_undo(t, dst, len);
	if (r == 0)
		memmove(dst, src, len);
	return r;
}

int shm_write_u32(struct shm_table *t, uint32_t *dst, uint32_t v)
{
	return shm_write(t, dst, &v, sizeof(v));
}

int shm_write_begin(struct shm_table *t)
{
	struct shm_header *h = t->h;
	int repaired = 0;

	if (!t->writable)
		return -EACCES;
	int r = pthread_mutex_lock(&h->lock);
	if (r == EOWNERDEAD) {
		/* A writer died inside: undo its transaction. */
		rollback(t);
		uint64_t s = h->seq;
		__atomic_store_n(&h->seq, (s | 1) + 1, __ATOMIC_RELEASE);
		h->repairs++;
		pthread_mutex_consistent(&h->lock);
		repaired = 1;
	} else if (r != 0) {
		return -r;
	}
	if (h->jcount)
		rollback(t);
	t->in_write = true;
	__atomic_store_n(&h->seq, h->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return repaired;
}

void shm_write_commit(struct shm_table *t)
{
	struct shm_header *h = t->h;
	FAULT();
	__atomic_store_n(&h->jcount, 0, __ATOMIC_RELEASE);
	h->jused = 0;
	h->writes++;
	FAULT();
	__atomic_store_n(&h->seq, h->seq + 1, __ATOMIC_RELEASE);
	t->in_write = false;
	pthread_mutex_unlock(&h->lock);
}

void shm_write_abort(struct shm_table *t)
{
	struct shm_header *h = t->h;
	rollback(t);
	__atomic_store_n(&h->seq, h->seq + 1, __ATOMIC_RELEASE);
	t->in_write = false;
	pthread_mutex_unlock(&h->lock);
}

int shm_read_wait(const struct shm_table *t, uint64_t *seq, unsigned max_ms)
{
	struct timespec nap = { 0, 100000 };
	for (unsigned waited_us = 0;; waited_us += 100) {
		if (shm_read_begin(t, seq) == 0)
			return 0;
		if (waited_us >= max_ms * 1000u)
			return -EAGAIN;
		nanosleep(&nap, NULL);
	}
}

uint32_t shm_set_new_id(struct shm_table *t)
{
	struct shm_header *h = t->h;
	uint32_t id = h->next_id;
	for (uint32_t i = 0; i < t->set_slots; i++) {
		if (id == 0 || id == UINT32_MAX)
			id = 1;
		struct shm_set *s = shm_set_at(t, id % t->set_slots);
		if (s->id == 0) {
			if (shm_write_u32(t, &h->next_id, id + 1) < 0)
				return 0;
			return id;
		}
		id++;
	}
	return 0;
}
