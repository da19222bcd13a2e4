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
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "shm/table.h"

#define SHM_DIR "/dev/shm/"
#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))
/* The fuzz target builds with a small journal, to restore it fast. */
#ifndef SHM_JOURNAL_BYTES
#define SHM_JOURNAL_BYTES (4u << 20)
#endif
#define JOURNAL_BYTES SHM_JOURNAL_BYTES

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
	if (off > (uint64_t)SSIZE_MAX || off > SHM_MAX_TABLE_BYTES)
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

/* ---- the mapping's guard ----
 *
 * Anyone who may write the table may also shrink its file, and a read of a
 * page past the file's end raises SIGBUS, which would kill the program. A
 * handler, installed when the first table is mapped, looks at the faulting
 * address: inside a table's mapping, it replaces the whole mapping with
 * zeroed anonymous memory (the faulting read is then repeated and reads
 * zeros: no valid set, so readers keep what they had or pass through) and
 * marks the table lost, so nothing more is written there. Any other SIGBUS
 * goes to the handler that was there before, or kills as it would have. */
#define GUARD_SLOTS 32
static struct {
	uintptr_t base;
	size_t size;
	int lost;
} guard_slot[GUARD_SLOTS];
static struct sigaction guard_prev;
static int guard_installed;

static void guard_handler(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	if (si->si_code > 0) { /* a fault, not a signal someone sent */
		for (int i = 0; i < GUARD_SLOTS; i++) {
			uintptr_t b = __atomic_load_n(&guard_slot[i].base, __ATOMIC_ACQUIRE);
			size_t n = __atomic_load_n(&guard_slot[i].size, __ATOMIC_RELAXED);
			if (!b || a - b >= n)
				continue;
			/* the raw system call: async-signal-safe, and no interposer */
			long p = syscall(SYS_mmap, b, n, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			if (p == (long)b) {
				__atomic_store_n(&guard_slot[i].lost, 1, __ATOMIC_RELEASE);
				return;
			}
		}
	}
	if (guard_prev.sa_handler != SIG_DFL && guard_prev.sa_handler != SIG_IGN) {
		if (guard_prev.sa_flags & SA_SIGINFO)
			guard_prev.sa_sigaction(sig, si, uc);
		else
			guard_prev.sa_handler(sig);
		return;
	}
	/* as if we had not been here: the default action, on the fault again */
	struct sigaction d;
	memset(&d, 0, sizeof(d));
	d.sa_handler = SIG_DFL;
	sigaction(SIGBUS, &d, NULL);
	if (si->si_code <= 0)
		raise(sig);
}

static void guard_add(const void *base, size_t size)
{
	int expect = 0;
	if (__atomic_compare_exchange_n(&guard_installed, &expect, 1, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = guard_handler;
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGBUS, &sa, &guard_prev) < 0)
			__atomic_store_n(&guard_installed, 0, __ATOMIC_RELEASE);
	}
	for (int i = 0; i < GUARD_SLOTS; i++) {
		uintptr_t zero = 0;
		/* claim a slot with a placeholder, then publish the range */
		if (__atomic_compare_exchange_n(&guard_slot[i].base, &zero, (uintptr_t)1, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			guard_slot[i].lost = 0;
			__atomic_store_n(&guard_slot[i].size, size, __ATOMIC_RELAXED);
			__atomic_store_n(&guard_slot[i].base, (uintptr_t)base, __ATOMIC_RELEASE);
			return;
		}
	}
}

static int guard_find(const void *base)
{
	for (int i = 0; base && i < GUARD_SLOTS; i++)
		if (__atomic_load_n(&guard_slot[i].base, __ATOMIC_ACQUIRE) == (uintptr_t)base)
			return i;
	return -1;
}

static void guard_remove(const void *base)
{
	int i = guard_find(base);
	if (i >= 0) {
		__atomic_store_n(&guard_slot[i].size, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&guard_slot[i].base, 0, __ATOMIC_RELEASE);
	}
}

bool shm_table_lost(const struct shm_table *t)
{
	int i = guard_find(t->base);
	return i >= 0 && __atomic_load_n(&guard_slot[i].lost, __ATOMIC_ACQUIRE);
}

/* The mapping at base is not lost (its file did not shrink under us). */
static bool guard_installed_ok(const void *base)
{
	int i = guard_find(base);
	return i < 0 || !__atomic_load_n(&guard_slot[i].lost, __ATOMIC_ACQUIRE);
}

/* The uid in $CPUSETSHIM_TABLE_OWNER, or -1. */
static long confirmed_owner(void)
{
	const char *s = getenv("CPUSETSHIM_TABLE_OWNER");
	if (!s || *s < '0' || *s > '9')
		return -1;
	long v = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v > 0xfffffffeL)
			return -1;
	}
	return *s ? -1 : v;
}

static unsigned lock_wait_default(void)
{
	const char *s = getenv("CPUSETSHIM_LOCK_TIMEOUT");
	if (!s || *s < '0' || *s > '9')
		return SHM_LOCK_WAIT_MS;
	unsigned long v = strtoul(s, NULL, 10);
	return v > 3600 ? 3600000u : (unsigned)v * 1000u;
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
	t->faults = (how & SHM_OPEN_FAULTS) != 0;
	how &= ~SHM_OPEN_FAULTS;
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
	/* /dev/shm is everyone's: refuse what another user could have planted.
	 * A shared group table only under a name the caller gave: under the
	 * default one any member of the group could plant it. Root (who may
	 * move anyone) only its own, unless told the owner of a named one. */
	const char *env = getenv("CPUSETSHIM_TABLE");
	bool named = (name && *name) || (env && *env);
	if (me == 0 && st.st_uid != 0 && !(named && confirmed_owner() == (long)st.st_uid)) {
		*why = named ? "the table belongs to another user (root uses another user's table "
			       "only when --table-owner names that user)"
			     : "the table belongs to another user";
		goto fail;
	}
	if (me != 0 && st.st_uid != me && st.st_uid != 0 &&
	    !(named && (st.st_mode & S_IRWXG) && in_group(st.st_gid))) {
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
	guard_add(base, size); /* before the first read: the file may shrink now */
	r = validate_header(base, size, why);
	if (r == 0 && (st.st_mode & 07777 & ~((struct shm_header *)base)->mode & (S_IWGRP | S_IWOTH))) {
		*why = "the table is writable by others though it was not made shared";
		r = -EACCES;
	}
	if (r == 0 && (st.st_mode & S_IWOTH)) {
		*why = "the table is writable by every user";
		r = -EACCES;
	}
	if (r == 0 && !guard_installed_ok(base)) {
		*why = "the table was truncated while it was opened";
		r = -EUCLEAN;
	}
	if (r < 0) {
		guard_remove(base);
		munmap(base, size);
		return r;
	}
	bind_handle(t, base, size);
	t->writable = how == SHM_OPEN_RDWR;
	t->lock_wait_ms = lock_wait_default();
	return 0;
fail:
	close(fd);
	return r;
}

void shm_table_close(struct shm_table *t)
{
	if (t->base) {
		guard_remove(t->base);
		munmap(t->base, t->size);
	}
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
	if (mode & S_IWOTH) {
		/* any user could then move any member's processes */
		*why = "a table writable by every user is refused (share it with a group)";
		return -EINVAL;
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
	guard_add(base, lay.total_size);
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
	guard_remove(base);
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

/* Only on a table opened with SHM_OPEN_FAULTS (the tools, when a test
 * asks): the shim links this floor too and never does. */
#define FAULT()                         \
	do {                            \
		if (t->faults)          \
			shm_fault_point(); \
	} while (0)

/* ---- the undo journal ----
 *
 * The journal is untrusted input like every byte of the table: a writer
 * that was stopped or killed left it, or anyone who may write the table
 * forged it. Before anything is rolled back the whole journal is walked
 * and checked: each entry lies inside the journal's used bytes, points
 * back to the one before it, and restores bytes of the table's data only
 * (the header's counters, the slots), never the header's layout, the lock
 * or the journal itself. A journal that does not check out is refused,
 * and nothing is changed. */

static struct jentry *jent(struct shm_table *t, uint64_t off)
{
	return (struct jentry *)(t->journal + off);
}

/* The bytes an entry may restore, and shm_undo save: [lo, hi) in one of
 * the two data parts of the table. */
static bool restorable(const struct shm_table *t, uint64_t off, uint64_t len)
{
	uint64_t hlo = offsetof(struct shm_header, writes), hhi = offsetof(struct shm_header, lock);
	uint64_t dlo = (uint64_t)(t->sets - t->base), dhi = (uint64_t)(t->journal - t->base);
	if (off >= hlo && off <= hhi && len <= hhi - off)
		return true;
	return off >= dlo && off <= dhi && len <= dhi - off;
}

/* One entry's fields, read once (the bytes may change under us). */
struct jview {
	uint64_t off, len, prev, size;
};

static bool jread(const struct shm_table *t, uint64_t at, uint64_t used, struct jview *v)
{
	if (at > used || used - at < sizeof(struct jentry))
		return false;
	const struct jentry *e = (const struct jentry *)(t->journal + at);
	v->off = __atomic_load_n(&e->off, __ATOMIC_RELAXED);
	v->len = __atomic_load_n(&e->len, __ATOMIC_RELAXED);
	v->prev = __atomic_load_n(&e->prev, __ATOMIC_RELAXED);
	v->size = ALIGN_UP(sizeof(struct jentry) + v->len, 8);
	return v->size <= used - at;
}

/* Walk the journal's jcount entries; the offset of the newest in *last. */
static int journal_walk(const struct shm_table *t, uint32_t n, uint64_t used, uint64_t *last,
			char *why, size_t len)
{
	uint64_t at = 0, prev = 0;
	struct jview v;
	*last = 0;
	if (n == 0)
		return 0;
	if (used > t->journal_size || used % 8) {
		snprintf(why, len, "its undo journal claims %llu bytes of %zu",
			 (unsigned long long)used, t->journal_size);
		return -EUCLEAN;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (!jread(t, at, used, &v)) {
			snprintf(why, len, "undo entry %u of %u lies past the journal's end", i + 1, n);
			return -EUCLEAN;
		}
		if (v.prev != prev) {
			snprintf(why, len, "undo entry %u does not point back to entry %u", i + 1, i);
			return -EUCLEAN;
		}
		if (!restorable(t, v.off, v.len)) {
			snprintf(why, len, "undo entry %u would restore bytes outside the table's data",
				 i + 1);
			return -EUCLEAN;
		}
		prev = at;
		at += v.size;
	}
	*last = prev;
	return 0;
}

int shm_journal_check(const struct shm_table *t, char *why, size_t len)
{
	uint64_t last;
	return journal_walk(t, __atomic_load_n(&t->h->jcount, __ATOMIC_ACQUIRE),
			    __atomic_load_n(&t->h->jused, __ATOMIC_ACQUIRE), &last, why, len);
}

/* Restore every committed entry, newest first, then empty the journal.
 * Idempotent: a repairer killed here leaves the same work for the next.
 * -EUCLEAN (nothing restored) when the journal does not check out. Each
 * entry is checked again as it is applied: the bytes may change under us. */
static int rollback(struct shm_table *t, char *why, size_t len)
{
	struct shm_header *h = t->h;
	uint32_t n = __atomic_load_n(&h->jcount, __ATOMIC_ACQUIRE);
	uint64_t used = __atomic_load_n(&h->jused, __ATOMIC_ACQUIRE), at;
	int r = journal_walk(t, n, used, &at, why, len);
	if (r < 0)
		return r;
	for (uint32_t i = 0; i < n; i++) {
		struct jview v;
		if (!jread(t, at, used, &v) || !restorable(t, v.off, v.len))
			break;
		memcpy(t->base + v.off, t->journal + at + sizeof(struct jentry), v.len);
		if (i + 1 < n) {
			if (v.prev >= at)
				break;
			at = v.prev;
		}
	}
	__atomic_store_n(&h->jcount, 0, __ATOMIC_RELEASE);
	h->jused = 0;
	return 0;
}

int shm_undo(struct shm_table *t, const void *p, size_t len)
{
	struct shm_header *h = t->h;
	const unsigned char *b = p;

	FAULT();
	if (!t->in_write || b < t->base || b > t->base + t->size ||
	    !restorable(t, (uint64_t)(b - t->base), len))
		return -EINVAL;
	if (h == NULL || !h->magic) /* populating a table nobody sees yet */
		return 0;
	uint64_t used = h->jused;
	uint64_t esz = ALIGN_UP(sizeof(struct jentry) + (uint64_t)len, 8);
	if (used > t->journal_size || esz > t->journal_size - used || len > UINT32_MAX)
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

/* ---- the writers' lock ----
 *
 * A process-shared robust mutex: the kernel marks it when its holder dies,
 * and the next writer repairs. Its word is in the table, so it is as
 * untrusted as the rest: a forged word can name any thread, and a stopped
 * writer holds it for as long as it is stopped. Writers therefore wait
 * with a bound, take over a lock whose holder does not exist (as the
 * kernel would have), and otherwise fail, naming the holder. */

#ifdef __GLIBC__
#define LOCK_WORD(h) (&(h)->lock.__data.__lock)
#define LOCK_KIND(h) (&(h)->lock.__data.__kind)
#endif

/* The type word our mutexes get (robust, process-shared). */
static int lock_kind_ours(void)
{
	static int kind = -1;
	if (kind == -1) {
		pthread_mutex_t m;
		pthread_mutexattr_t ma;
		pthread_mutexattr_init(&ma);
		pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
		pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
		pthread_mutex_init(&m, &ma);
		pthread_mutexattr_destroy(&ma);
#ifdef LOCK_KIND
		kind = m.__data.__kind;
#else
		kind = 0;
#endif
		pthread_mutex_destroy(&m);
	}
	return kind;
}

static bool thread_alive(pid_t tid)
{
	return tid > 0 && (kill(tid, 0) == 0 || errno != ESRCH);
}

int shm_lock_state(const struct shm_table *t, pid_t *tid)
{
	*tid = 0;
#ifdef LOCK_WORD
	const struct shm_header *h = t->h;
	if (__atomic_load_n(LOCK_KIND(h), __ATOMIC_RELAXED) != lock_kind_ours())
		return SHM_LOCK_DAMAGED;
	unsigned w = (unsigned)__atomic_load_n(LOCK_WORD(h), __ATOMIC_ACQUIRE);
	pid_t id = (pid_t)(w & FUTEX_TID_MASK);
	*tid = id;
	if (id == 0)
		return (w & FUTEX_OWNER_DIED) ? SHM_LOCK_OWNER_DIED : SHM_LOCK_FREE;
	int saved = errno;
	bool alive = thread_alive(id);
	errno = saved;
	return alive ? SHM_LOCK_HELD : SHM_LOCK_DEAD;
#else
	(void)t;
	return SHM_LOCK_FREE;
#endif
}

/* A word naming a thread that does not exist: make it what the kernel
 * makes of a dead holder's, so the next lock returns EOWNERDEAD. */
static void take_over(struct shm_table *t, pid_t dead)
{
#ifdef LOCK_WORD
	int *word = LOCK_WORD(t->h);
	int w = __atomic_load_n(word, __ATOMIC_ACQUIRE);
	if ((pid_t)((unsigned)w & FUTEX_TID_MASK) != dead)
		return;
	int nw = (int)(((unsigned)w & FUTEX_WAITERS) | FUTEX_OWNER_DIED);
	if (__atomic_compare_exchange_n(word, &w, nw, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, word, FUTEX_WAKE, 1, NULL, NULL, 0);
#else
	(void)t;
	(void)dead;
#endif
}

/* The state letter of a process, from /proc/PID/stat ('?' if unreadable). */
static char proc_state(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	char *r = n > 0 ? (buf[n] = 0, strrchr(buf, ')')) : NULL;
	return r && r[1] == ' ' ? r[2] : '?';
}

/* "name (state)" of a process, from /proc/PID/stat; "?" if unreadable. */
static void proc_label(pid_t pid, char *out, size_t len)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	char *l = n > 0 ? (buf[n] = 0, strchr(buf, '(')) : NULL;
	char *r = l ? strrchr(buf, ')') : NULL;
	if (!l || !r || r[1] != ' ') {
		snprintf(out, len, "?");
		return;
	}
	*r = 0;
	const char *st = r[2] == 'T' ? "stopped" : r[2] == 't' ? "stopped by a debugger"
		       : r[2] == 'Z' ? "a zombie" : r[2] == 'D' ? "in an uninterruptible wait"
		       : r[2] == 'R' ? "running" : "sleeping";
	snprintf(out, len, "%.32s, %s", l + 1, st);
}

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Take the lock, waiting at most t->lock_wait_ms: 0 or EOWNERDEAD, else
 * -errno with t->why set. */
static int lock_bounded(struct shm_table *t)
{
	pthread_mutex_t *m = &t->h->lock;
	int64_t start = mono_ms();
	pid_t holder = 0;
	for (int takeovers = 0;;) {
		/* another type (not robust, not shared, error-checking...) would
		 * change what locking does: never lock a mutex that is not ours */
		if (shm_lock_state(t, &holder) == SHM_LOCK_DAMAGED) {
			snprintf(t->why, sizeof(t->why),
				 "the table is damaged (its lock's type word was overwritten); make "
				 "it again with 'cpuset init --force'");
			return -EUCLEAN;
		}
		int r = pthread_mutex_trylock(m);
		if (r == 0 || r == EOWNERDEAD)
			return r;
		if (r == ENOTRECOVERABLE) {
			snprintf(t->why, sizeof(t->why),
				 "the table is damaged (its lock was left unrecoverable); make it "
				 "again with 'cpuset init --force'");
			return -EUCLEAN;
		}
		if (r != EBUSY && r != EDEADLK)
			return -r;
		int st = shm_lock_state(t, &holder);
		/* the word naming this very thread, which holds no lock (writers
		 * never nest), is forged, as a dead holder's is stale */
		bool mine = r == EDEADLK || holder == (pid_t)syscall(SYS_gettid);
		if ((st == SHM_LOCK_DEAD || mine) && takeovers < 100) {
			take_over(t, holder);
			takeovers++;
			continue;
		}
		int64_t waited = mono_ms() - start;
		/* a stopped holder (job control, a debugger) will not let go
		 * while it stays stopped: no use waiting for it */
		bool stopped = false;
		if (waited >= 100 || t->lock_wait_ms == 0) {
			char c = proc_state(holder);
			stopped = c == 'T' || c == 't';
		}
		if (waited >= (int64_t)t->lock_wait_ms || stopped) {
			char label[64];
			t->holder = holder;
			if (t->lock_wait_ms == 0) {
				snprintf(t->why, sizeof(t->why),
					 "the table's lock is held by pid %d", (int)holder);
				return -EBUSY;
			}
			proc_label(holder, label, sizeof(label));
			if (stopped)
				snprintf(t->why, sizeof(t->why),
					 "the table's lock is held by pid %d (%s): a writer stopped "
					 "inside, which must be resumed or killed; nothing was changed",
					 (int)holder, label);
			else
				snprintf(t->why, sizeof(t->why),
					 "the table's lock is held by pid %d (%s), alive but not letting "
					 "it go for %u s: a writer stuck, or a forged lock word (then "
					 "'cpuset init --force'); nothing was changed",
					 (int)holder, label, (t->lock_wait_ms + 999) / 1000);
			return -EBUSY;
		}
		/* wait in slices, so that a holder that dies is noticed */
		int64_t slice = (int64_t)t->lock_wait_ms - waited;
		if (slice > 50)
			slice = 50;
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += (long)slice * 1000000;
		ts.tv_sec += ts.tv_nsec / 1000000000;
		ts.tv_nsec %= 1000000000;
		r = pthread_mutex_timedlock(m, &ts);
		if (r == 0 || r == EOWNERDEAD)
			return r;
	}
}

int shm_write_begin(struct shm_table *t)
{
	struct shm_header *h = t->h;
	int repaired = 0;

	t->why[0] = 0;
	t->holder = 0;
	if (!t->writable)
		return -EACCES;
	if (shm_table_lost(t)) {
		snprintf(t->why, sizeof(t->why),
			 "the table's file was truncated while in use; make it again with "
			 "'cpuset init --force'");
		return -ESTALE;
	}
	int r = lock_bounded(t);
	if (r < 0)
		return r;
	char jwhy[128];
	if (r == EOWNERDEAD || h->jcount) {
		/* A writer died inside: undo its transaction. */
		if (rollback(t, jwhy, sizeof(jwhy)) < 0) {
			/* Refused whole: the lock goes back as it was, the journal
			 * stays, every writer refuses it the same way */
			snprintf(t->why, sizeof(t->why),
				 "the table is damaged (%s); make it again with 'cpuset init --force'",
				 jwhy);
			if (r == EOWNERDEAD)
				pthread_mutex_consistent(&h->lock);
			pthread_mutex_unlock(&h->lock);
			return -EUCLEAN;
		}
		repaired = r == EOWNERDEAD;
	}
	h->jused = 0; /* a commit killed between its two stores left it */
	uint64_t s = __atomic_load_n(&h->seq, __ATOMIC_RELAXED);
	if (s & 1) {
		/* left odd by a dead writer (or forged): even again */
		__atomic_store_n(&h->seq, s + 1, __ATOMIC_RELEASE);
		repaired = 1;
	}
	if (repaired)
		h->repairs++;
	if (r == EOWNERDEAD)
		pthread_mutex_consistent(&h->lock);
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
	char why[128];
	rollback(t, why, sizeof(why)); /* our own journal: it checks out */
	__atomic_store_n(&h->seq, h->seq + 1, __ATOMIC_RELEASE);
	t->in_write = false;
	pthread_mutex_unlock(&h->lock);
}

/* ---- readers ---- */

int shm_read_stuck(const struct shm_table *t)
{
	pid_t tid;
	uint64_t s = __atomic_load_n(&t->h->seq, __ATOMIC_ACQUIRE);
	if (!(s & 1))
		return -EAGAIN; /* the writer just left: read again */
	/* odd: a writer is inside, if one holds the lock and lives; a counter
	 * that moved meanwhile means writers come and go */
	int st = shm_lock_state(t, &tid);
	if (st == SHM_LOCK_HELD || __atomic_load_n(&t->h->seq, __ATOMIC_ACQUIRE) != s)
		return -EAGAIN;
	return -EOWNERDEAD;
}

int shm_read_wait(const struct shm_table *t, uint64_t *seq, unsigned max_ms)
{
	struct timespec nap = { 0, 1000000 };
	int64_t end = mono_ms() + max_ms;
	for (;;) {
		int r = shm_read_begin(t, seq);
		if (r != -EAGAIN)
			return r;
		if (mono_ms() >= end)
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
