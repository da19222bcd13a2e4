/* SPDX-License-Identifier: BSD-3-Clause */
/* src/ — the meaning of the table: the set rules, membership, the
 * placement the shim reads (the set a process is in, with its CPUs), and
 * migration of member threads.
 *
 * Convention: functions return 0 (or a non-negative value) on success and a
 * negative errno on failure, with exactly the errors of DESIGN.md's table.
 * They never print.
 */
#ifndef CPS_SETS_H
#define CPS_SETS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "src/mask.h"
#include "shm/table.h"
#include "shm/registry.h"

#define CPS_STRICT 0x1u
#define CPS_AUTOCLEAN 0x2u
#define CPS_FLAGS_ALL (CPS_STRICT | CPS_AUTOCLEAN)

/* A caller's handle on a table. */
#define CPS_CGM_PATH 512 /* the cgroup mirror's directory, at most */
struct cps_ctx {
	struct shm_table t;
	uid_t uid;     /* effective uid used for owner checks (test seam) */
	pid_t self;
	/* Static English reason of the last failure, or NULL: each
	 * transaction starts with none (cps_txn_begin), and a check made
	 * before or after one states its own. */
	const char *why;
	bool patient;    /* readers wait for writers (tools); false: never block */
	/* The last attach or alloc: how many processes the kernel refused to
	 * move (wholly or in part), the first few, and its error for the
	 * first. The set rules held; the kernel said no (another user's
	 * process, a privileged one). */
	int unmoved;
	int unmoved_err;
	pid_t unmoved_pid[8];
	/* Of those, how many the owner rule below refused (not the kernel). */
	int unmoved_foreign;
	/* Of those, how many kept pages on nodes a resize of the set's nodes
	 * took away (migrate_pages(2) refused, or left pages behind). */
	int unmoved_pages;
	/* Root acting on a table that is not its own (--table-owner): the
	 * table's owner, whose processes alone it moves; else 0 (root's
	 * own table, or not root). */
	long foreign_uid;
	/* The table's cgroup mirror (src/cgmirror.c), looked for at its first
	 * use: 0 not yet, 1 none, 2 cgm_dir (v2: a cgroup2 hierarchy). */
	int cgm_state;
	bool cgm_v2;
	char cgm_dir[CPS_CGM_PATH];
};

#define CPS_OPEN_READ 0
#define CPS_OPEN_WRITE 1
#define CPS_OPEN_CREATE 2 /* write; make the table with defaults if missing */
/* Or'ed in (tests only): this handle's writes pass the test-only fault
 * points of shm/ (CPS_FAULT_INJECTION builds; see shm_fault_point). */
#define CPS_OPEN_FAULTS 0x100
/* Open a table (name NULL: $CPUSETSHIM_TABLE or the user's default). The
 * uid test seam: when the real effective uid is 0, $CPUSETSHIM_TEST_UID
 * names the uid the owner checks use (root can already do anything, so this
 * grants nothing). */
int cps_open(struct cps_ctx *c, const char *name, int how);
void cps_close(struct cps_ctx *c);

struct cps_init_opts {
	struct shm_caps caps;
	mode_t mode;         /* 0600 by default */
	gid_t gid;           /* (gid_t)-1: the creator's */
	const uint64_t *cpus; /* root CPUs (caps.mask_bits wide), NULL: online & allowed */
	const uint64_t *mems; /* root nodes (the same width), NULL: the nodes with memory */
	bool force;          /* replace an existing table */
};
void cps_init_opts_default(struct cps_init_opts *o);
/* The rule for a root given its CPUs (cpuset init --cpus): every one of
 * them online on this machine. 0, or -EINVAL with those that are not in
 * offline (nw words); 0 when the kernel's list cannot be read. */
int cps_root_cpus_check(const uint64_t *cpus, size_t nw, uint64_t *offline);
/* The same for its nodes (cpuset init --mems): every one of them a node
 * with memory on this machine; -EINVAL with those that are not in absent. */
int cps_root_mems_check(const uint64_t *mems, size_t nw, uint64_t *absent);
/* The nesting rule: NULL if a set with flags may be made in a parent
 * with parent_flags, else the reason (a strict set only in a strict one). */
const char *cps_nesting_refusal(unsigned parent_flags, unsigned flags);
int cps_init(struct cps_ctx *c, const char *name, const struct cps_init_opts *o);

/* The set a process is in: its registry entry, else its nearest registered
 * ancestor's, else the root (0 = the caller). */
int cps_which(struct cps_ctx *c, pid_t pid, uint32_t *id);
/* The caller's current set for create/getfreecpus. */
uint32_t cps_current(struct cps_ctx *c);

/* The five operations. mask arguments are mask_words wide.
 * create: parent 0 = the caller's current set; cpus NULL = none yet. name
 * may be NULL (-EEXIST if taken, -EINVAL if malformed). */
int cps_create(struct cps_ctx *c, uint32_t parent, unsigned flags, const char *name,
	       const uint64_t *cpus, uint32_t *id);
/* A set's memory nodes, given as: its parent's that no strict sibling
 * owns (the default; what mems_own holds then), a list (nodes, mask_words
 * wide), or auto: the nodes holding its CPUs within its parent's (made
 * again whenever its CPUs change), else as the default. A strict set owns
 * a list's or auto's nodes: no sibling may hold them. */
#define CPS_MEMS_PARENT 0u
#define CPS_MEMS_LIST 1u
#define CPS_MEMS_AUTO 2u
struct cps_mems {
	unsigned how;
	const uint64_t *nodes;
};
/* create with nodes (mems NULL: the default). The nodes' errors mirror
 * the CPUs': EINVAL empty list or a node the root lacks, EACCES a node not
 * in the parent or outside the caller's Mems_allowed or cgroup nodes,
 * EBUSY a node a strict sibling owns (for a strict set, any sibling's), or
 * removing a node a child holds, or no node left for the default. */
int cps_create_mems(struct cps_ctx *c, uint32_t parent, unsigned flags, const char *name,
		    const uint64_t *cpus, const struct cps_mems *mems, uint32_t *id);
/* create (with nodes: cps_create_mems's mems, NULL for its default),
 * then attach pid (0: the caller) to the new set, in one transaction:
 * nobody sees the set without its member (cpuset-run --cpus: a kill in
 * between cannot leave an AUTOCLEAN set that never had one). */
int cps_create_attach(struct cps_ctx *c, uint32_t parent, unsigned flags, const char *name,
		      const uint64_t *cpus, const struct cps_mems *mems, pid_t pid,
		      uint32_t *id);
/* alloc of CPUs (NULL: kept) and nodes (NULL: kept, but auto nodes
 * follow new CPUs), in one transaction. */
int cps_alloc_mems(struct cps_ctx *c, uint32_t id, const uint64_t *cpus, const struct cps_mems *mems);
int cps_destroy(struct cps_ctx *c, uint32_t id);
int cps_alloc(struct cps_ctx *c, uint32_t id, const uint64_t *cpus);
int cps_attach(struct cps_ctx *c, uint32_t id, pid_t pid);
/* attach with flags: CPS_ATTACH_DESCENDANTS moves the running
 * descendants of pid that are in no set of their own, of its user and
 * session, with it (without it, pid alone: its threads; its children to
 * come inherit at fork); CPS_ATTACH_FORCE moves pid 1 or the first
 * process of a pid namespace, refused otherwise (-EPERM). */
#define CPS_ATTACH_DESCENDANTS 1u
#define CPS_ATTACH_FORCE 2u
int cps_attach_flags(struct cps_ctx *c, uint32_t id, pid_t pid, unsigned flags);
/* cpuset repair's second half: sets whose parents do not lead to the
 * root (a set its own parent, a cycle: raw writes) put under the root,
 * and every set's children counts and reserved CPUs made again; *moved:
 * how many were put back; and the registries' occupancy summaries made
 * again from their records (*groups: how many groups changed). 0 or a
 * negative errno. */
int cps_repair_tree(struct cps_ctx *c, uint32_t *moved, uint32_t *groups);
/* The symbolic name of an errno the rules return ("EINVAL"), or "error". */
const char *cps_errname(int err);
/* Root on a table that is not its own moves only the table owner's
 * processes (by real uid), and itself: 0, or -EPERM with c->why. */
int cps_foreign_check(struct cps_ctx *c, pid_t pid);
/* The caller's registration removed, its kernel mask left as it is: for a
 * process that is about to end (an AUTOCLEAN set it emptied goes). */
int cps_leave(struct cps_ctx *c);
int cps_getfreecpus(struct cps_ctx *c, uint32_t parent, unsigned flags, uint64_t *out);

/* Look-ups. find: an id ("3") or a name. */
int cps_find(struct cps_ctx *c, const char *id_or_name, uint32_t *id);
/* Whether n is a set name: CPS_NAME_RULE says what one is. */
#define CPS_NAME_RULE "a set name is 1-47 letters, digits, '.', '_' or '-', not all digits"
bool cps_name_ok(const char *n);

/* A consistent copy of one set (lock-free read). */
struct cps_setinfo {
	uint32_t id, parent, flags, uid, nchildren, nmembers, attached;
	char name[SHM_NAME_MAX];
	uint64_t cpus[CPS_MAX_WORDS], reserved[CPS_MAX_WORDS],
		sreserved[CPS_MAX_WORDS];
	/* memory nodes: the set's, its children's, its strict children's
	 * chosen ones; mems_own: chosen (a list or auto), not the parent's */
	uint32_t mems_own;
	uint64_t mems[CPS_MAX_WORDS], mreserved[CPS_MAX_WORDS], msreserved[CPS_MAX_WORDS];
};
int cps_set_get(struct cps_ctx *c, uint32_t id, struct cps_setinfo *out);
/* Ids of all sets in id order; returns how many there are (may exceed max). */
long cps_set_list(struct cps_ctx *c, uint32_t *ids, size_t max);
/* The same into *out (malloc'd, the caller frees it): how many. */
long cps_set_ids(struct cps_ctx *c, uint32_t **out);

/* Registered members (lock-free read): calls fn for each member record
 * of set (0: every set). Returns how many. */
struct cps_member {
	pid_t pid, ppid;
	uint32_t set;
	uid_t uid;
	uint64_t start;
};
long cps_members(struct cps_ctx *c, uint32_t set, struct cps_member *out, size_t max);
/* The member records of set in one read, into *out (malloc'd, the
 * caller frees it): cps_members counts every record it met, the buffer
 * may hold fewer, so a larger one and another read while the count
 * outgrows it (eight times at most, then the last read cut to the
 * buffer). Returns how many are in *out. */
long cps_members_alloc(struct cps_ctx *c, uint32_t set, struct cps_member **out);

/* Remove dead members (and their threads), autoclean what that empties.
 * Runs inside every write; callable alone. Returns how many were removed. */
int cps_sweep(struct cps_ctx *c);

/* Take the writers' lock once and let it go: repairs the table after a
 * writer died inside (returns 1 then, else 0). Changes nothing else. */
int cps_repair(struct cps_ctx *c);

/* Record a process as member of a set without moving it (the shim at start,
 * after fork, after exec): set 0 = keep its current registration or take its
 * ancestor's. */
int cps_register(struct cps_ctx *c, pid_t pid, uint32_t set);
/* Record a thread's wanted virtual mask (vnw words), kept through resizes.
 * tstart: the thread's start time (cps_thread_start; 0: read here), which
 * the record keeps, so that a later thread with the tid is not taken for
 * it. -ESRCH: no such thread. */
int cps_thread_record(struct cps_ctx *c, pid_t pid, pid_t tid, uint64_t tstart,
		      const uint64_t *wanted, size_t vnw);
/* The record of thread tid of process pid goes (the thread ends: a tid
 * reused later is another thread, which asked for nothing). */
int cps_thread_forget(struct cps_ctx *c, pid_t pid, pid_t tid);

/* Move every thread of pid onto set's CPUs through each thread's wanted
 * mask, repeating until no new thread appears. self_single: pid is the
 * caller, which has one thread (its /proc stat just said so, and only it
 * could make another): that thread is moved without a listing of
 * /proc/PID/task. Returns threads moved. */
int cps_migrate_process(struct cps_ctx *c, pid_t pid, uint32_t set, bool self_single);
/* Every member of set, and every process whose nearest registered ancestor
 * is a member. Returns threads moved. */
int cps_migrate_set(struct cps_ctx *c, uint32_t set);
/* The same, and, when from (nodes the set left) is not empty, each
 * process's pages on from moved onto to (the set's nodes now). */
int cps_migrate_set_mems(struct cps_ctx *c, uint32_t set, const uint64_t *from,
			 const uint64_t *to);
/* The calling thread bound to set's nodes when they are not all the
 * root's and it has no policy of its own: 1 bound (the nodes in bound),
 * 0 nothing, -errno. */
int cps_bind_self_mems(struct cps_ctx *c, uint32_t set, uint64_t *bound);

/* What the shim reads: a process's set and its CPUs, consistent at one
 * table sequence (its placement). */
struct cps_placement {
	uint64_t seq;     /* table sequence it was taken at */
	uint32_t set;
	uint32_t n;       /* CPUs in the set */
	uint32_t nw;      /* words of cpus */
	uint64_t cpus[CPS_MAX_WORDS];
	uint32_t nmems;   /* memory nodes in the set */
	uint64_t mems[CPS_MAX_WORDS]; /* its nodes (nw words) */
};
/* Lock-free: the set of pid (its registry entry if its start time matches
 * (start 0: any), else fallback, else the root). -EAGAIN if the table stayed
 * busy, -EOWNERDEAD if the writer inside it is dead (a writer repairs). */
int cps_placement_read(const struct shm_table *t, pid_t pid, uint64_t start, uint32_t fallback,
		 struct cps_placement *s);
/* The same read of the table as it was committed (through a writer inside
 * it, live, stopped or dead: the undo journal holds what it changed); the
 * placement's seq is the table's counter then, odd. cps_placement_read
 * falls back to it for a live writer; -EUCLEAN for a damaged journal. */
int cps_placement_read_committed(const struct shm_table *t, pid_t pid, uint64_t start,
				 uint32_t fallback, struct cps_placement *s);
/* Lock-free: a thread's wanted mask, if recorded (1), else 0. */
int cps_thread_lookup(const struct shm_table *t, pid_t tid, uint64_t *wanted, size_t vnw);

/* The wrap rule (doc/membership.md): true unless $CPUSETSHIM_WRAP=0. */
bool cps_wrap_enabled(void);
/* One more bind of set's that wrapped, in its slot: one atomic add, no
 * transaction, so approximate; nothing when t is not writable. */
void cps_count_wrapped(const struct shm_table *t, uint32_t set);
/* Whether n is a set name: 1-47 letters, digits, '.', '_' or '-', not
 * all digits (the rule of create, and of cpuset-inspect --check). */
bool cps_name_ok(const char *n);

#endif
