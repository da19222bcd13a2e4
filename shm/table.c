/* SPDX-License-Identifier: BSD-3-Clause */
/* shm/ — the table's file: name, layout, create/open/validate. The
 * guard of its mapping is in guard.c, the undo journal in journal.c, the
 * writers' lock and the readers' side in lock.c. */
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
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/arch.h"
#include "base/rawsys.h"
#include "base/util.h"
#include "shm/table.h"
#include "shm/table_internal.h"


/* Formatting by hand, not with stdio: the shim opens the table in every
 * process start, where the first use of printf's machinery alone costs
 * tens of microseconds of page faults. */
static char *put_str(char *p, char *end, const char *s)
{
	while (*s && p < end)
		*p++ = *s++;
	return *s ? NULL : p;
}

static const char *libc_getenv(const char *name)
{
	return getenv(name);
}
const char *(*cps_getenv)(const char *) = libc_getenv;

int shm_table_name(char *buf, size_t len, const char *explicit_name)
{
	const char *n = explicit_name;
	char def[64];

	if (!n || !*n)
		n = cps_getenv("CPUSETSHIM_TABLE");
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
	h->set_rsz = ALIGN_UP(sizeof(struct shm_set) + SHM_SET_MASKS * 8 * h->mask_words, 64);
	h->proc_rsz = sizeof(struct shm_proc);
	h->thread_rsz = ALIGN_UP(sizeof(struct shm_thread) + 8 * h->mask_words, 8);
	uint64_t off = ALIGN_UP(sizeof(*h), 4096);
	h->off_sets = off;
	off = ALIGN_UP(off + (uint64_t)h->set_slots * h->set_rsz, 4096);
	h->off_procs = off;
	off = ALIGN_UP(off + (uint64_t)h->proc_slots * h->proc_rsz, 4096);
	h->off_threads = off;
	off = ALIGN_UP(off + (uint64_t)h->thread_slots * h->thread_rsz, 4096);
	/* the summaries lie in the data part, before the journal: their
	 * words are journaled as the records are */
	h->off_pocc = off;
	off += 8 * (uint64_t)shm_occ_words(h->proc_slots);
	h->off_tocc = off;
	off = ALIGN_UP(off + 8 * (uint64_t)shm_occ_words(h->thread_slots), 4096);
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
	int fd = cps_sys_open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = cps_sys_read(fd, buf, sizeof(buf) - 1);
	cps_sys_close(fd);
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
	t->pocc = (uint64_t *)(t->base + h->off_pocc);
	t->tocc = (uint64_t *)(t->base + h->off_tocc);
	t->journal_size = h->journal_size;
	t->root_id = h->root_id;
}

/* Why a table of another version is refused: newer, an older layout (and
 * what to do), or neither */
static const char *version_why(uint32_t version)
{
	uint32_t layout = version >> 24;
	if (layout > SHM_LAYOUT)
		return "the table has a newer layout version than this program understands";
	if (layout == 1)
		return "the table was made by an older cpusetshim (layout 1, without memory "
		       "nodes) and is not upgraded in place: make it again with 'cpuset init "
		       "--force' once its sets are no longer used";
	if (layout == 2)
		return "the table was made by an older cpusetshim (layout 2, without threads' "
		       "start times) and is not upgraded in place: make it again with 'cpuset "
		       "init --force' once its sets are no longer used";
	if (layout == 3)
		return "the table was made by an older cpusetshim (layout 3, without the "
		       "registries' occupancy summaries) and is not upgraded in place: make it "
		       "again with 'cpuset init --force' once its sets are no longer used";
	return "the table has another layout version";
}

/* A table belongs to the architecture whose tools made it (its mutex, its
 * sizes and byte order are that ABI's): the refusal names it and says
 * what to do. */
static const char *arch_why(uint32_t arch)
{
	static __thread char why[320];
	const struct cps_arch *a = cps_arch_by_audit(arch), *mine = cps_arch_host();
	char other[40];
	snprintf(other, sizeof(other), "audit architecture %#x", arch);
	snprintf(why, sizeof(why),
		 "the table was made by the tools of %s, not %s: a table belongs to the "
		 "architecture that made it; use that architecture's tools, or another table name "
		 "(--table, CPUSETSHIM_TABLE) for these",
		 a ? a->name : other, mine ? mine->name : "this architecture");
	return why;
}

/* The architecture a table was made on differs from ours (and is known:
 * an older maker recorded none) */
static bool foreign_arch(const struct shm_header *h)
{
	const struct cps_arch *mine = cps_arch_host();
	return h->arch && mine && h->arch != mine->audit;
}

/* The header's layout fields are those its capacities give (want), and
 * the file is as long as they say */
static bool layout_matches(const struct shm_header *want, const struct shm_header *h, size_t size)
{
	return want->mask_words == h->mask_words && want->set_slots == h->set_slots &&
	       want->proc_slots == h->proc_slots && want->thread_slots == h->thread_slots &&
	       want->set_rsz == h->set_rsz && want->proc_rsz == h->proc_rsz &&
	       want->thread_rsz == h->thread_rsz && want->off_sets == h->off_sets &&
	       want->off_procs == h->off_procs && want->off_threads == h->off_threads &&
	       want->off_journal == h->off_journal && want->journal_size == h->journal_size &&
	       want->off_pocc == h->off_pocc && want->off_tocc == h->off_tocc &&
	       want->total_size == h->total_size && h->total_size == size;
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
	if (foreign_arch(h)) {
		*why = arch_why(h->arch);
		return -EPROTONOSUPPORT;
	}
	if (h->version != SHM_VERSION) {
		*why = version_why(h->version);
		return -EPROTONOSUPPORT;
	}
	if (h->header_size != sizeof(*h) || shm_layout(&want, &h->caps) < 0) {
		*why = "the table's header holds impossible capacities";
		return -EUCLEAN;
	}
	if (!layout_matches(&want, h, size)) {
		*why = "the table's layout does not match its capacities";
		return -EUCLEAN;
	}
	if (h->root_id == 0 || h->root_id >= h->set_slots) {
		*why = "the table has no valid root set";
		return -EUCLEAN;
	}
	return 0;
}

void shm_table_rebase(struct shm_table *t, const struct shm_table *from, unsigned char *buf)
{
	*t = *from;
	ptrdiff_t d = buf - from->base;
	t->base = buf;
	t->h = (struct shm_header *)buf;
	t->sets += d;
	t->procs += d;
	t->threads += d;
	t->journal += d;
	t->pocc = (uint64_t *)((unsigned char *)t->pocc + d);
	t->tocc = (uint64_t *)((unsigned char *)t->tocc + d);
	t->writable = false;
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

/* The uid in $CPUSETSHIM_TABLE_OWNER, or -1. */
static long confirmed_owner(void)
{
	const char *s = cps_getenv("CPUSETSHIM_TABLE_OWNER");
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
	const char *s = cps_getenv("CPUSETSHIM_LOCK_TIMEOUT");
	if (!s || *s < '0' || *s > '9')
		return SHM_LOCK_WAIT_MS;
	unsigned long v = strtoul(s, NULL, 10);
	return v > 3600 ? 3600000u : (unsigned)v * 1000u;
}

/* /dev/shm is everyone's: refuse what another user could have planted.
 * A shared group table only under a name the caller gave (named): under
 * the default one any member of the group could plant it. Root (who may
 * move anyone) only its own, unless told the owner of a named one. */
static int owner_trusted(const struct stat *st, bool named, const char **why)
{
	uid_t me = geteuid();
	if (!S_ISREG(st->st_mode)) {
		*why = "the table is not a regular file";
		return -EACCES;
	}
	if (me == 0 && st->st_uid != 0 && !(named && confirmed_owner() == (long)st->st_uid)) {
		*why = named ? "the table belongs to another user (root uses another user's table "
			       "only when --table-owner names that user)"
			     : "the table belongs to another user";
		return -EACCES;
	}
	if (me != 0 && st->st_uid != me && st->st_uid != 0 &&
	    !(named && (st->st_mode & S_IRWXG) && in_group(st->st_gid))) {
		*why = "the table belongs to another user";
		return -EACCES;
	}
	return 0;
}

/* The mapped table's header, its file's mode against the mode it was
 * made with, and its size since the mapping (the guard). */
static int mapped_valid(void *base, size_t size, const struct stat *st, const char **why)
{
	int r = validate_header(base, size, why);
	if (r < 0)
		return r;
	if (st->st_mode & 07777 & ~((struct shm_header *)base)->mode & (S_IWGRP | S_IWOTH)) {
		*why = "the table is writable by others though it was not made shared";
		return -EACCES;
	}
	if (st->st_mode & S_IWOTH) {
		*why = "the table is writable by every user";
		return -EACCES;
	}
	if (!shm_guard_ok(base)) {
		*why = "the table was truncated while it was opened";
		return -EUCLEAN;
	}
	return 0;
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
	int fd = cps_sys_open(path, (how == SHM_OPEN_RDWR ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = fd;
		*why = r == -ENOENT ? "no such table" : r == -ELOOP ? "the table is a symbolic link" : NULL;
		return r == -ELOOP ? -EACCES : r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	const char *env = cps_getenv("CPUSETSHIM_TABLE");
	if ((r = owner_trusted(&st, (name && *name) || (env && *env), why)) < 0)
		goto fail;
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
	shm_guard_add(base, size); /* before the first read: the file may shrink now */
	if ((r = mapped_valid(base, size, &st, why)) < 0) {
		shm_guard_remove(base);
		munmap(base, size);
		return r;
	}
	bind_handle(t, base, size);
	t->file_uid = st.st_uid;
	t->writable = how == SHM_OPEN_RDWR;
	t->lock_wait_ms = lock_wait_default();
	t->lock_queue_ms = SHM_LOCK_QUEUE_MS;
	return 0;
fail:
	close(fd);
	return r;
}

void shm_table_close(struct shm_table *t)
{
	if (t->base) {
		shm_guard_remove(t->base);
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

/* The file a new table is made in, under a private name (tmp): sized,
 * with its mode and group. The descriptor, or a negative errno. */
static int create_private(char *tmp, size_t len, const char *name, mode_t mode, gid_t gid,
			  uint64_t size, const char **why)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(tmp, len, SHM_DIR ".%s.new.%ld.%lx", name, (long)getpid(), (unsigned long)ts.tv_nsec);
	int fd = cps_sys_openat(AT_FDCWD, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		*why = "cannot create the shared-memory object";
		return fd;
	}
	if (fchmod(fd, mode & 07777) < 0 || (gid != (gid_t)-1 && fchown(fd, (uid_t)-1, gid) < 0) ||
	    ftruncate(fd, (off_t)size) < 0) {
		int r = -errno;
		*why = "cannot size or set the permissions of the shared-memory object";
		unlink(tmp);
		close(fd);
		return r;
	}
	return fd;
}

/* A new table's header: its layout, who made it and how, its robust
 * shared lock; the magic stays 0 until the table is whole. */
static int header_init(struct shm_header *h, const struct shm_header *lay, mode_t mode, gid_t gid)
{
	pthread_mutexattr_t ma;
	*h = *lay;
	h->magic = 0; /* set last */
	h->mode = mode & 07777;
	h->gid = (uint32_t)gid;
	h->creator_uid = (uint32_t)geteuid();
	h->created = (uint64_t)time(NULL);
	h->arch = cps_arch_host() ? cps_arch_host()->audit : 0;
	h->next_id = 1;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	int r = -pthread_mutex_init(&h->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	return r;
}

int shm_table_create(struct shm_table *t, const char *name, const struct shm_caps *caps,
		     mode_t mode, gid_t gid,
		     int (*populate)(struct shm_table *, void *), void *arg, const char **why)
{
	const char *dummy;
	char path[SHM_TABLE_NAME_MAX + 16], tmp[SHM_TABLE_NAME_MAX + 64];
	struct shm_header lay;
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
	if ((fd = create_private(tmp, sizeof(tmp), t->name, mode, gid, lay.total_size, why)) < 0)
		return fd;
	void *base = mmap(NULL, lay.total_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		r = -errno;
		goto out_unlink;
	}
	shm_guard_add(base, lay.total_size);
	struct shm_header *h = base;
	if ((r = header_init(h, &lay, mode, gid)) < 0)
		goto out_unmap;
	bind_handle(t, base, lay.total_size);
	t->file_uid = geteuid();
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
	/* its maker writes through it as an opener would: with the same wait */
	t->lock_wait_ms = lock_wait_default();
	t->lock_queue_ms = SHM_LOCK_QUEUE_MS;
	return 0;
out_unmap:
	shm_guard_remove(base);
	munmap(base, lay.total_size);
	memset(t, 0, sizeof(*t));
out_unlink:
	unlink(tmp);
	close(fd);
	return r;
}

