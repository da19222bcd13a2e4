/* SPDX-License-Identifier: BSD-3-Clause */
/* shm/ — the writers' lock and the transaction around every write
 * (begin, commit, abort, with repair of a dead writer's), and the readers'
 * side of the sequence counter. */
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

#include "base/rawsys.h"
#include "base/util.h"
#include "shm/table.h"
#include "shm/table_internal.h"

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
		cps_sys6(SYS_futex, (long)word, FUTEX_WAKE, 1, 0, 0, 0);
#else
	(void)t;
	(void)dead;
#endif
}

/* /proc/PID/stat into buf (len bytes, NUL-terminated): its length, or
 * 0 when unreadable. */
static ssize_t read_stat(pid_t pid, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = cps_sys_open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? cps_sys_read(fd, buf, len - 1) : -1;
	if (fd >= 0)
		cps_sys_close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n > 0 ? n : 0;
}

/* The state letter of a process, from /proc/PID/stat ('?' if unreadable). */
static char proc_state(pid_t pid)
{
	char buf[512];
	char *r = read_stat(pid, buf, sizeof(buf)) ? strrchr(buf, ')') : NULL;
	return r && r[1] == ' ' ? r[2] : '?';
}

/* "name (state)" of a process, from /proc/PID/stat; "?" if unreadable. */
static void proc_label(pid_t pid, char *out, size_t len)
{
	char buf[512];
	char *l = read_stat(pid, buf, sizeof(buf)) ? strchr(buf, '(') : NULL;
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

/* One attempt at the lock, its type checked first (another type: not
 * robust, not shared, error-checking... would change what locking does:
 * never lock a mutex that is not ours). Returns 0 or EOWNERDEAD (taken),
 * EBUSY or EDEADLK (held: *holder names who holds it, as the lock word
 * read before the attempt says), or -errno with t->why set. */
static int lock_try(struct shm_table *t, pid_t *holder)
{
	if (shm_lock_state(t, holder) == SHM_LOCK_DAMAGED) {
		snprintf(t->why, sizeof(t->why),
			 "the table is damaged (its lock's type word was overwritten); make "
			 "it again with 'cpuset init --force'");
		return -EUCLEAN;
	}
	int r = pthread_mutex_trylock(&t->h->lock);
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
	return r;
}

/* Whether to stop waiting for holder after waited ms: -EBUSY with t->why
 * and t->holder set, or 0 to go on. A stopped holder (job control, a
 * debugger) will not let go while it stays stopped: no use waiting for
 * it. */
static int lock_give_up(struct shm_table *t, pid_t holder, int64_t waited)
{
	bool stopped = false;
	if (waited >= 100 || t->lock_wait_ms == 0) {
		char c = proc_state(holder);
		stopped = c == 'T' || c == 't';
	}
	if (waited < (int64_t)t->lock_wait_ms && !stopped)
		return 0;
	char label[64];
	t->holder = holder;
	if (t->lock_wait_ms == 0) {
		snprintf(t->why, sizeof(t->why), "the table's lock is held by pid %d", (int)holder);
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

/* Wait for the lock at most 50 ms of what is left of the bound (in
 * slices, so that a holder that dies is noticed): pthread_mutex_timedlock's
 * answer. */
static int lock_wait_slice(struct shm_table *t, int64_t waited)
{
	int64_t slice = (int64_t)t->lock_wait_ms - waited;
	if (slice > 50)
		slice = 50;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (long)slice * 1000000;
	ts.tv_sec += ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	return pthread_mutex_timedlock(&t->h->lock, &ts);
}

/* Take the lock, waiting at most t->lock_wait_ms for one holder that
 * makes no progress: 0 or EOWNERDEAD, else -errno with t->why set. The
 * bound is for a writer stuck inside (or a forged lock word), not for a
 * queue: while the lock changes hands (another holder, or the same pid
 * in another transaction, which moves the sequence counter) the clock
 * starts again (for lock_queue_ms in all: 2 min for the tools, none for
 * the shim's own writes), so a launch never fails because others are
 * launching. */
static int lock_bounded(struct shm_table *t)
{
	int64_t start = mono_ms(), first = start;
	pid_t holder = 0, seen_holder = 0;
	uint64_t seen_seq = __atomic_load_n(&t->h->seq, __ATOMIC_ACQUIRE);
	for (int takeovers = 0;;) {
		int r = lock_try(t, &holder);
		if (r == 0 || r == EOWNERDEAD || r < 0)
			return r;
		int st = shm_lock_state(t, &holder);
		/* the word naming this very thread: another handle of ours is
		 * inside (a nested write), or the word is forged. Never taken
		 * over (that would undo our own transaction), never waited for */
		if (r == EDEADLK || holder == cps_sys_gettid()) {
			t->holder = holder;
			snprintf(t->why, sizeof(t->why),
				 "the table's lock names this very thread (pid %d): a write inside "
				 "another, or a forged lock word",
				 (int)holder);
			return -EDEADLK;
		}
		if (st == SHM_LOCK_DEAD && takeovers < 100) {
			take_over(t, holder);
			takeovers++;
			continue;
		}
		uint64_t seq = __atomic_load_n(&t->h->seq, __ATOMIC_ACQUIRE);
		if ((holder != seen_holder || seq != seen_seq) &&
		    mono_ms() - first < (int64_t)t->lock_queue_ms) {
			seen_holder = holder;
			seen_seq = seq;
			start = mono_ms();
		}
		int64_t waited = mono_ms() - start;
		if ((r = lock_give_up(t, holder, waited)) < 0)
			return r;
		r = lock_wait_slice(t, waited);
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
		if (shm_rollback(t, jwhy, sizeof(jwhy)) < 0) {
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
	shm_rollback(t, why, sizeof(why)); /* our own journal: it checks out */
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
	/* MAX_MS bounds each writer's stay, as the lock's wait is bounded
	 * per holder: a counter that moved is another writer (a queue of
	 * them, each brief), and the wait starts again, for lock_queue_ms
	 * in all (none for the shim) */
	struct timespec nap = { 0, 1000000 };
	int64_t first = mono_ms(), end = first + max_ms;
	uint64_t last = __atomic_load_n(&t->h->seq, __ATOMIC_ACQUIRE);
	for (;;) {
		int r = shm_read_begin(t, seq);
		if (r != -EAGAIN)
			return r;
		int64_t now = mono_ms();
		uint64_t cur = __atomic_load_n(&t->h->seq, __ATOMIC_ACQUIRE);
		if (cur != last && now - first < (int64_t)t->lock_queue_ms) {
			last = cur;
			end = now + max_ms;
		}
		if (now >= end)
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
