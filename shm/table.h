/* SPDX-License-Identifier: BSD-3-Clause */
/* shm/ — storage of the set table in POSIX shared memory.
 *
 * This layer knows bytes and words: the table's layout, its header and
 * validation, the writers' robust mutex, the readers' sequence counter, the
 * undo journal that makes every write transaction atomic against SIGKILL,
 * and the registry slots (shm/registry.h). It knows nothing of set rules.
 *
 * Convention: functions return 0 (or a non-negative value) on success and a
 * negative errno on failure. Nothing here prints.
 */
#ifndef CPS_SHM_TABLE_H
#define CPS_SHM_TABLE_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/compiler.h"

/* Bytes "CPSHIM\x01\x02": read with the other byte order it is a different
 * number, so a mismatch shows as a bad magic, never as a misread table. */
#define SHM_MAGIC 0x02014d4948535043ULL
/* Layout 2: a set's memory nodes (three more masks and mems_own).
 * Layout 3: a thread record's own start time (tstart).
 * Layout 4: the registries' occupancy summaries (off_pocc, off_tocc). */
#define SHM_LAYOUT 4u
/* The format number also encodes the sizes the layout depends on. */
#define SHM_VERSION                                                         \
	((SHM_LAYOUT << 24) | ((uint32_t)sizeof(pthread_mutex_t) << 8) |    \
	 (uint32_t)sizeof(long))

#define SHM_NAME_MAX 48     /* a set's name, NUL included */
#define SHM_TABLE_NAME_MAX 200

/* Capacities, fixed when the table is made. */
struct shm_caps {
	uint32_t max_sets;
	uint32_t max_procs;
	uint32_t max_threads;
	uint32_t mask_bits; /* width of every mask, a multiple of 64 */
};
/* Defaults fit for a 1,024-CPU machine. */
#define SHM_DEFAULT_SETS 1024u
#define SHM_DEFAULT_PROCS 8192u
#define SHM_DEFAULT_THREADS 32768u
#define SHM_MIN_MASK_BITS 1024u
#define SHM_MAX_MASK_BITS 8192u
/* Sane upper bounds: a table is mapped by every program that asks about
 * CPUs and read whole by the checker, so no capacity may make it huge. */
#define SHM_MAX_SETS 65536u
#define SHM_MAX_PROCS (1u << 20)
#define SHM_MAX_THREADS (1u << 21)
#define SHM_MAX_TABLE_BYTES (1ull << 30)

/* A set slot. masks[] holds SHM_SET_MASKS masks of mask_words each: the
 * set's CPUs, the CPUs its children hold, the CPUs its strict children
 * hold; then the same three for its memory nodes (NUMA node numbers, the
 * same width). mems_own is 1 when the set's nodes were chosen (a list or
 * "auto") rather than taken from its parent: a strict set owns chosen
 * nodes exclusively. A slot is free when id is 0; the slot of id is
 * id % set_slots. */
struct shm_set {
	uint32_t id;
	uint32_t parent;    /* 0 for the root */
	uint32_t flags;
	uint32_t uid;       /* owner */
	uint32_t nchildren;
	uint32_t nmembers;  /* registered member processes */
	uint32_t attached;  /* has ever had a member (AUTOCLEAN) */
	uint32_t created;   /* CLOCK_BOOTTIME seconds when made (AUTOCLEAN grace) */
	uint32_t mems_own;  /* 1: its nodes were chosen, not its parent's (layout 2) */
	/* Binds of its members that named a CPU beyond the set and wrapped
	 * (doc/membership.md, the wrap): added by the shim with one atomic add
	 * outside any transaction, so approximate (a rolled-back
	 * transaction that saved the slot takes back what was added
	 * meanwhile). Was padding, always 0: the layout is the same. */
	uint32_t wrapped;
	char name[SHM_NAME_MAX];
	uint64_t masks[];
};
enum {
	SHM_MASK_CPUS = 0,
	SHM_MASK_RESERVED = 1,
	SHM_MASK_SRESERVED = 2,
	SHM_MASK_MEMS = 3,       /* the set's memory nodes */
	SHM_MASK_MRESERVED = 4,  /* nodes its children hold */
	SHM_MASK_MSRESERVED = 5, /* nodes its strict children own (chosen) */
	SHM_SET_MASKS = 6
};

/* A member process. Keyed by pid (0: free slot) in an open-addressed hash.
 * start is the process's start time (field 22 of /proc/PID/stat), so a
 * reused pid is never taken for the member. */
struct shm_proc {
	int32_t pid;
	uint32_t set;
	uint64_t start;
	int32_t ppid;
	uint32_t uid;
	uint32_t flags;
	uint32_t pad;
};

/* A thread that asked for a mask: its wanted virtual mask. Keyed by tid,
 * and the thread's own start time: a later thread of the process with
 * the same tid (tids are reused) is another thread, which asked for
 * nothing. */
struct shm_thread {
	int32_t tid;
	int32_t pid;
	uint64_t pstart; /* start time of the process it belongs to */
	uint64_t tstart; /* start time of the thread itself */
	uint64_t wanted[];
};

struct shm_header {
	uint64_t magic;
	uint32_t version;
	uint32_t header_size;
	uint64_t total_size;
	struct shm_caps caps;
	uint32_t mask_words;
	uint32_t set_slots, proc_slots, thread_slots;
	uint32_t set_rsz, proc_rsz, thread_rsz; /* record sizes in bytes */
	uint64_t off_sets, off_procs, off_threads, off_journal;
	uint64_t off_pocc, off_tocc; /* occupancy summaries (SHM_GROUP) */
	uint64_t journal_size;
	uint32_t mode;        /* permission bits it was made with */
	uint32_t gid;         /* group of a shared table, or (uint32_t)-1 */
	uint32_t creator_uid;
	uint32_t root_id;
	uint64_t created;     /* time(2) at creation */
	uint32_t arch;        /* AUDIT_ARCH_* of its maker (base/arch.h), 0:
				 unrecorded (an older maker); in the padding
				 before seq, so no layout change */
	/* --- mutable part, below --- */
	_Alignas(64) uint64_t seq; /* odd while a writer is inside */
	uint64_t writes;           /* completed write transactions */
	uint64_t repairs;          /* times a dead writer was repaired */
	uint32_t next_id;
	uint32_t nsets, nprocs, nthreads;
	uint32_t unrecorded;       /* thread masks not recorded: thread registry full */
	_Alignas(64) pthread_mutex_t lock;
	/* undo journal state: entries live at off_journal */
	_Alignas(64) uint32_t jcount; /* committed undo entries */
	uint32_t jlast;               /* offset of the newest entry */
	uint64_t jused;               /* bytes of entries */
};

/* An open table. Sizes and offsets are copied from the header once, when
 * it is validated, and every later access is bounded by these copies: the
 * table's contents are untrusted input. */
struct shm_table {
	unsigned char *base;
	size_t size;
	struct shm_header *h;
	unsigned char *sets, *procs, *threads, *journal;
	uint64_t *pocc, *tocc; /* the registries' occupancy summaries */
	uint32_t set_slots, proc_slots, thread_slots;
	size_t set_rsz, proc_rsz, thread_rsz;
	size_t journal_size;
	uint32_t mask_words;
	uint32_t root_id;
	bool writable;
	bool in_write;
	bool faults; /* opened with SHM_OPEN_FAULTS (tests only) */
	uid_t file_uid; /* the owner of the table's file, at open */
	/* How long shm_write_begin waits for another writer: 0 never waits
	 * (the shim); set from $CPUSETSHIM_LOCK_TIMEOUT (seconds, default
	 * SHM_LOCK_WAIT_MS) at open. */
	unsigned lock_wait_ms;
	/* How long, in all, it waits while the lock changes hands (a queue of
	 * writers, each within lock_wait_ms): SHM_LOCK_QUEUE_MS at open; 0
	 * counts the whole wait against lock_wait_ms (the shim's own
	 * writes, which must never stall its host). */
	unsigned lock_queue_ms;
	/* A private copy's pages that hold data (src/check.c: one bit per
	 * SHM_PRESENT_PAGE bytes, from the table file's extents); NULL: any
	 * page may. A slot in no such page is free (all zero) and is not
	 * read: a large, mostly empty table is walked without touching its
	 * holes, which a kernel that gives no shared zero page would fill. */
	const uint64_t *present;
	pid_t holder;  /* the lock's holder named by the last failure, or 0 */
	char why[320]; /* English reason of the last failure of a writer, or "" */
	char name[SHM_TABLE_NAME_MAX];
};
#define SHM_LOCK_QUEUE_MS 120000u
#define SHM_LOCK_WAIT_MS 10000u

/* How every layer reads the project's variables (CPUSETSHIM_*): getenv,
 * and in the shim the copy it took when libc came up (preload/env.c), so
 * that a program's own edits of its environment do not move it. */
extern const char *(*cps_getenv)(const char *name);

/* The table's name: explicit, else $CPUSETSHIM_TABLE, else
 * "cpusetshim.<euid>". -EINVAL for a name that is not a plain shm name. */
int shm_table_name(char *buf, size_t len, const char *explicit_name);

#define SHM_OPEN_RDONLY 0
#define SHM_OPEN_RDWR 1
#define SHM_OPEN_FAULTS 0x100 /* or'ed in: this handle's writes pass the fault points */
/* Open and validate. Errors: -ENOENT (no table), -EACCES (permissions,
 * or owned by another user, or writable by others when it should not be),
 * -EBADMSG (bad magic: not a table, or the other byte order),
 * -EPROTONOSUPPORT (another layout version), -EUCLEAN (inconsistent
 * sizes), other errnos of open/mmap. *why, if given, gets a static English
 * reason for a failure.
 *
 * Ownership: a table must be the caller's or root's. A group-shared table
 * of one of the caller's groups is accepted only under an explicit name
 * (name, or $CPUSETSHIM_TABLE), never under the default one, which any
 * member of the group could otherwise plant. Root accepts a table of
 * another user only under an explicit name and when
 * $CPUSETSHIM_TABLE_OWNER holds that user's uid (the tools'
 * --table-owner). The mapping is guarded against the file shrinking under
 * it (shm_table_lost). */
int shm_table_open(struct shm_table *t, const char *name, int how, const char **why);
void shm_table_close(struct shm_table *t);

/* t becomes from's handle over a copy of its bytes at buf (a private
 * copy the caller made, as long as from's mapping): every pointer into the
 * table moved to the copy, not writable. */
void shm_table_rebase(struct shm_table *t, const struct shm_table *from, unsigned char *buf);

/* Create a new table named name and populate it (populate runs with the
 * table writable, before anyone can see it; it returns 0 or -errno). The
 * table appears under its name whole or not at all: -EEXIST if it already
 * exists. mode is the permission bits (0600 by default); gid (gid_t)-1
 * keeps the creator's group. t is left open on success. */
int shm_table_create(struct shm_table *t, const char *name, const struct shm_caps *caps,
		     mode_t mode, gid_t gid,
		     int (*populate)(struct shm_table *, void *), void *arg, const char **why);
int shm_table_unlink(const char *name);
/* The table's file, "/dev/shm/" and its name (as shm_table_name resolves
 * it); -EINVAL for a bad name, -ENAMETOOLONG if len is too short. */
int shm_table_path(char *path, size_t len, const char *name);
/* Fill caps with the defaults for this machine. */
void shm_caps_default(struct shm_caps *caps);
/* Compute the layout for caps into a header (no memory touched);
 * -EINVAL for capacities out of range, -EOVERFLOW for a size too large. */
int shm_layout(struct shm_header *h, const struct shm_caps *caps);

/* Writers. begin takes the lock (repairing after a dead writer: the
 * journal is rolled back, so the table is as before that writer's
 * transaction) and opens a transaction; returns 0, 1 if a repair was done,
 * or -errno. commit makes the transaction's writes final; abort rolls them
 * back. Both release the lock.
 *
 * begin waits for another writer at most t->lock_wait_ms. A holder that
 * is dead (the lock word names a thread that does not exist: a forged or
 * stale word) is taken over as the kernel does for a robust mutex, and
 * its transaction rolled back. Failures, with t->why and t->holder set:
 * -EBUSY the lock is held by a live process beyond the wait (the shim's
 * wait is 0: it never blocks); -EUCLEAN the journal or the lock word does
 * not check out (the table is damaged: nothing is changed; "cpuset init
 * --force" makes it again); -ESTALE the table was truncated under us. */
int shm_write_begin(struct shm_table *t);
void shm_write_commit(struct shm_table *t);
void shm_write_abort(struct shm_table *t);
/* Before changing len bytes at p (inside the table), save them in the
 * journal. -ENOSPC when the journal is full (the caller aborts). Each call
 * is one write step and a fault point. */
int shm_undo(struct shm_table *t, const void *p, size_t len);
/* Convenience: save then copy. */
int shm_write(struct shm_table *t, void *dst, const void *src, size_t len);
int shm_write_u32(struct shm_table *t, uint32_t *dst, uint32_t v);

/* Readers: a sequence counter, no lock. read_begin returns 0 and the
 * sequence in *seq; -EOWNERDEAD when the writer inside is dead (the
 * counter is odd and nobody alive holds the lock: a writer repairs, "cpuset
 * repair"); -EAGAIN when a live writer stays inside beyond a short spin.
 * read_retry says whether what was read since is torn. */
int shm_read_stuck(const struct shm_table *t);
static inline int shm_read_begin(const struct shm_table *t, uint64_t *seq)
{
	for (unsigned i = 0; i < 2000; i++) {
		uint64_t s = __atomic_load_n(&t->h->seq, __ATOMIC_ACQUIRE);
		if (CPS_LIKELY(!(s & 1))) {
			*seq = s;
			return 0;
		}
		cps_cpu_relax();
	}
	*seq = 0;
	return shm_read_stuck(t);
}
/* The same for a reader that may wait (the tools, never the shim): sleeps
 * while a live writer is inside, up to max_ms of the clock for each
 * writer (a moved counter is another: a queue, each brief, for
 * lock_queue_ms in all); -EAGAIN after that; -EOWNERDEAD at once when the
 * writer inside is dead. */
int shm_read_wait(const struct shm_table *t, uint64_t *seq, unsigned max_ms);

/* len bytes at p (inside the table) as they were committed: copied, then
 * overlaid with the bytes the undo journal saved for them (oldest last),
 * which is what a rollback would restore. Lets a reader read through a
 * writer that is inside the table, dead or stopped, without waiting.
 * -EUCLEAN if the journal does not check out, -EAGAIN if it kept moving. */
int shm_read_committed(const struct shm_table *t, const void *p, size_t len, void *out);

/* The writers' lock as its word says: SHM_LOCK_FREE; SHM_LOCK_HELD by a
 * live thread (*tid); SHM_LOCK_DEAD, naming a thread that does not exist;
 * SHM_LOCK_OWNER_DIED, left by a holder that died (the next writer
 * repairs); SHM_LOCK_DAMAGED, the mutex's type word is not ours. */
enum { SHM_LOCK_FREE, SHM_LOCK_HELD, SHM_LOCK_DEAD, SHM_LOCK_OWNER_DIED, SHM_LOCK_DAMAGED };
int shm_lock_state(const struct shm_table *t, pid_t *tid);
/* The undo journal checks out (0), else -EUCLEAN with a reason in why
 * (len bytes). Read-only. */
int shm_journal_check(const struct shm_table *t, char *why, size_t len);
/* True once the table's file was found shorter than its mapping (a read
 * hit SIGBUS): its mapping then reads zeros and nothing is written to the
 * table any more. See guard_handler in guard.c. */
bool shm_table_lost(const struct shm_table *t);
static inline bool shm_read_retry(const struct shm_table *t, uint64_t seq)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&t->h->seq, __ATOMIC_RELAXED) != seq;
}
static inline uint64_t shm_seq(const struct shm_table *t)
{
	return __atomic_load_n(&t->h->seq, __ATOMIC_ACQUIRE);
}

/* Slots. */
static inline struct shm_set *shm_set_at(const struct shm_table *t, uint32_t slot)
{
	return (struct shm_set *)(t->sets + (size_t)slot * t->set_rsz);
}
static inline uint64_t *shm_set_mask(const struct shm_table *t, struct shm_set *s, int which)
{
	return s->masks + (size_t)which * t->mask_words;
}
/* The set with this id, or NULL. Safe for readers (may be torn: recheck
 * under the sequence counter). */
static inline struct shm_set *shm_set_by_id(const struct shm_table *t, uint32_t id)
{
	if (id == 0 || t->set_slots == 0)
		return NULL;
	struct shm_set *s = shm_set_at(t, id % t->set_slots);
	return __atomic_load_n(&s->id, __ATOMIC_RELAXED) == id ? s : NULL;
}
/* The occupancy summaries: one bit per SHM_GROUP slots of the member
 * and of the thread registry, set while a record may be in the group
 * (set when one is put there, cleared when the group's last one goes,
 * both journaled with the records), so that a walk over a sparse
 * registry (a table of 8,192 members holding three) passes the empty
 * groups without reading them. A walk without the lock may miss a record
 * put in a moment before, as it would by reading its slot a moment
 * earlier; one inside a read section or the lock sees them all. */
#define SHM_GROUP 64u
static inline uint32_t shm_occ_words(uint32_t slots)
{
	return (slots + SHM_GROUP * 64 - 1) / (SHM_GROUP * 64);
}
static inline bool shm_occ_maybe(const uint64_t *occ, uint32_t slot)
{
	uint32_t g = slot / SHM_GROUP;
	return (__atomic_load_n(&occ[g / 64], __ATOMIC_RELAXED) >> (g % 64)) & 1;
}
/* For a walk of the slots (from + n) % slots, n counting up from 0: the
 * first n' >= n whose slot's group may hold a record, slots when none
 * (the walks start at a free slot, anywhere in a group). */
static inline uint32_t shm_occ_walk(const uint64_t *occ, uint32_t from, uint32_t n,
				    uint32_t slots)
{
	while (n < slots) {
		uint32_t i = (from + n) & (slots - 1);
		if (shm_occ_maybe(occ, i))
			return n;
		n += SHM_GROUP - i % SHM_GROUP;
	}
	return slots;
}

/* Whether the record of len bytes at rec may hold data (t->present). */
#define SHM_PRESENT_PAGE 4096u
static inline bool shm_slot_present(const struct shm_table *t, const void *rec, size_t len)
{
	if (CPS_LIKELY(!t->present))
		return true;
	size_t at = (size_t)((const unsigned char *)rec - t->base);
	for (size_t pg = at / SHM_PRESENT_PAGE; pg <= (at + len - 1) / SHM_PRESENT_PAGE; pg++)
		if (t->present[pg / 64] >> (pg % 64) & 1)
			return true;
	return false;
}
/* A free id whose slot is free (writer); 0 when the table is full. */
uint32_t shm_set_new_id(struct shm_table *t);

/* Test-only fault points (CPS_FAULT_INJECTION builds), passed by the
 * writes of a table opened with SHM_OPEN_FAULTS. With
 * CPUSETSHIM_FAULT_STEP=N in the environment, the process SIGKILLs itself
 * at its N-th write step; with CPUSETSHIM_FAULT_REPORT=FILE it appends the
 * number of steps it took to FILE at exit. */
void shm_fault_point(void);
unsigned long shm_fault_steps(void);

#endif
