/* SPDX-License-Identifier: BSD-3-Clause */
/* cpuset-inspect --top: a live view of the sets (tools/top.h).
 *
 * Each refresh copies the table (as cpuset-inspect does, without the
 * writers' lock) and reads /proc/stat once: the kernel's times of every
 * CPU, which are the sets' times by their CPUs, whoever used them. Then
 * one /proc/PID/stat per member: its threads and its own CPU time, which
 * summed are its set's members' share of those CPUs. That part grows with
 * the members (the man page gives its cost). Files are read with raw
 * system calls: a cpuset-inspect run under the shim still reads the
 * machine's CPUs, in the table's physical numbers. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "shm/registry.h"
#include "src/mask.h"
#include "src/procfs.h"
#include "src/rawsys.h"
#include "tools/cli.h"
#include "tools/top.h"

double top_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int top_init(struct top_state *s, struct cps_ctx *c, bool members)
{
	memset(s, 0, sizeof(*s));
	s->c = c;
	s->members = members;
	s->nw = c->t.mask_words < CPS_MAX_WORDS ? c->t.mask_words : CPS_MAX_WORDS;
	snprintf(s->table, sizeof(s->table), "%s", c->t.name);
	s->statfd = cps_sys_open("/proc/stat", O_RDONLY | O_CLOEXEC);
	if (s->statfd < 0)
		return s->statfd;
	s->bufcap = 1 << 16;
	s->buf = malloc(s->bufcap);
	s->prev = calloc(CPS_MAX_CPUS, sizeof(*s->prev));
	s->cur = calloc(CPS_MAX_CPUS, sizeof(*s->cur));
	if (!s->buf || !s->prev || !s->cur)
		return -ENOMEM;
	return 0;
}

void top_free(struct top_state *s)
{
	if (s->statfd >= 0)
		cps_sys_close(s->statfd);
	free(s->buf);
	free(s->prev);
	free(s->cur);
	free(s->sets);
	free(s->mem);
	free(s->prevmem);
	if (s->copy)
		munmap(s->copy, s->copy_size);
	free(s->ext);
	free(s->copied);
	memset(s, 0, sizeof(*s));
	s->statfd = -1;
}

/* The whole of a file from its start into s->buf, growing it: bytes read
 * or a negative errno. */
static ssize_t read_whole(struct top_state *s, int fd)
{
	size_t n = 0;
	for (;;) {
		if (n + 1 >= s->bufcap) {
			char *b = realloc(s->buf, s->bufcap * 2);
			if (!b)
				return -ENOMEM;
			s->buf = b;
			s->bufcap *= 2;
		}
		long r;
		do
			r = cps_sys4(SYS_pread64, fd, (long)(s->buf + n), (long)(s->bufcap - 1 - n),
				     (long)n);
		while (r == -EINTR);
		if (r < 0)
			return r;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	s->buf[n] = 0;
	return (ssize_t)n;
}

static uint64_t next_u64(const char **p)
{
	const char *q = *p;
	while (*q == ' ')
		q++;
	if (*q == '-')
		q++; /* a negative field (stat's tpgid): read as its digits */
	uint64_t v = 0;
	while (*q >= '0' && *q <= '9')
		v = v * 10 + (uint64_t)(*q++ - '0');
	*p = q;
	return v;
}

/* The cpuN lines of /proc/stat: user nice system idle iowait irq softirq
 * steal (guest and guest_nice are inside user and nice already). */
static int read_proc_stat(struct top_state *s)
{
	ssize_t n = read_whole(s, s->statfd);
	if (n < 0)
		return (int)n;
	for (unsigned i = 0; i < s->ncpus_seen; i++)
		s->cur[i].seen = false;
	const char *p = s->buf;
	while (*p) {
		const char *eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p);
		if (!strncmp(p, "cpu", 3) && p[3] >= '0' && p[3] <= '9') {
			const char *q = p + 3;
			uint64_t cpu = next_u64(&q);
			if (cpu < CPS_MAX_CPUS) {
				uint64_t v[8];
				for (int i = 0; i < 8; i++)
					v[i] = next_u64(&q);
				struct top_cpu *t = &s->cur[cpu];
				t->user = v[0] + v[1];
				t->sys = v[2] + v[5] + v[6];
				t->idle = v[3] + v[4];
				t->other = v[7];
				t->seen = true;
				if (cpu + 1 > s->ncpus_seen)
					s->ncpus_seen = (unsigned)cpu + 1;
			}
		} else if (strncmp(p, "cpu", 3)) {
			break; /* the cpu lines come first */
		}
		p = *eol ? eol + 1 : eol;
	}
	return 0;
}

static uint64_t dsub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0; /* a CPU taken offline and back starts again */
}

/* The interval's ticks of cpu: 0 when it was not there at both samples. */
bool top_cpu_delta(const struct top_state *s, unsigned cpu, uint64_t d[4])
{
	const struct top_cpu *a = &s->prev[cpu], *b = &s->cur[cpu];
	if (!s->have_prev || cpu >= s->ncpus_seen || !a->seen || !b->seen)
		return false;
	d[0] = dsub(b->user, a->user);
	d[1] = dsub(b->sys, a->sys);
	d[2] = dsub(b->idle, a->idle);
	d[3] = dsub(b->other, a->other);
	return true;
}

/* /proc/PID/stat: comm, utime + stime, threads, start time, last CPU. */
static int read_member(struct top_state *s, struct top_member *m)
{
	char path[40];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)m->pid);
	m->threads = -1;
	char buf[1024];
	int n = cps_sys_slurp(path, buf, sizeof(buf), true);
	(void)s;
	if (n <= 0)
		return n < 0 ? n : -ESRCH;
	char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	if (!open || !close || close < open || close[1] != ' ')
		return -ESRCH;
	size_t cl = (size_t)(close - open - 1);
	if (cl >= sizeof(m->comm))
		cl = sizeof(m->comm) - 1;
	memcpy(m->comm, open + 1, cl);
	m->comm[cl] = 0;
	/* fields from 3 (state) on */
	const char *p = close + 2;
	char state = *p;
	uint64_t f[40] = { 0 };
	p++;
	for (int i = 4; i <= 39 && *p; i++)
		f[i] = next_u64(&p);
	if (state == 'Z' || state == 'X' || (m->start && f[22] != m->start))
		return -ESRCH; /* ended, or its pid is another process's now */
	m->ticks = f[14] + f[15];
	m->threads = (int)f[20];
	m->cpu = (int)f[39];
	return 0;
}

/* ---- the table, copied into a buffer kept from refresh to refresh ----
 *
 * As cps_table_copy (src/check.c), but its private buffer stays: only the
 * file's data extents are read again (the holes, most of a table, stay
 * zero pages that were mapped once), so a refresh neither faults the
 * whole table in again nor makes the table's tmpfs pages resident. When
 * the extents are not those of the last copy (a hole punched, the table
 * replaced), the buffer is made afresh. Under the writers' sequence
 * counter, as every reader; a writer that stays inside: what is there. */
/* The file's data extents, in s->ext (grown as needed): how many, or -1
 * when they cannot be read (no SEEK_DATA: the whole mapping is copied). */
static long read_extents(struct top_state *s, int fd, size_t size)
{
	long n = 0;
	for (off_t at = 0; at < (off_t)size; n++) {
		off_t data = lseek(fd, at, SEEK_DATA);
		if (data < 0 && errno != ENXIO)
			return -1;
		if (data < 0 || data >= (off_t)size)
			break;
		off_t hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0 || hole > (off_t)size)
			hole = (off_t)size;
		if ((size_t)n == s->capext) {
			size_t cap = s->capext ? s->capext * 2 : 256;
			off_t(*v)[2] = realloc(s->ext, cap * sizeof(*v));
			if (!v)
				return -1;
			s->ext = v;
			s->capext = cap;
		}
		s->ext[n][0] = data;
		s->ext[n][1] = hole;
		at = hole;
	}
	return n;
}

static int copy_table(struct top_state *s, struct shm_table *out)
{
	struct cps_ctx *c = s->c;
	size_t size = c->t.size;
	char path[SHM_TABLE_NAME_MAX + 16];
	int r = shm_table_path(path, sizeof(path), c->t.name);
	if (r < 0)
		return r;
	int fd = cps_sys_open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	unsigned wait = c->t.lock_wait_ms < 5000 ? c->t.lock_wait_ms : 5000;
	r = -ENOMEM;
	for (int tries = 0; tries < 100; tries++) {
		uint64_t seq;
		bool busy = shm_read_wait(&c->t, &seq, wait) < 0;
		long n = fd >= 0 ? read_extents(s, fd, size) : -1;
		/* the same extents as the copy's: only they are read again */
		bool same = s->copy && s->copy_size == size && n >= 0 && n == s->ncopied &&
			    !memcmp(s->ext, s->copied, (size_t)n * sizeof(s->ext[0]));
		if (!same) {
			if (s->copy)
				munmap(s->copy, s->copy_size);
			s->copy = mmap(NULL, size, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			s->ncopied = -1;
			if (s->copy == MAP_FAILED) {
				s->copy = NULL;
				break;
			}
			s->copy_size = size;
			if (n >= 0) {
				off_t(*v)[2] = realloc(s->copied, ((size_t)n + 1) * sizeof(*v));
				if (v) {
					s->copied = v;
					memcpy(s->copied, s->ext, (size_t)n * sizeof(*v));
					s->ncopied = n;
				}
			}
		}
		if (n >= 0) {
			for (long i = 0; i < n; i++)
				memcpy(s->copy + s->ext[i][0], c->t.base + s->ext[i][0],
				       (size_t)(s->ext[i][1] - s->ext[i][0]));
		} else {
			memcpy(s->copy, c->t.base, size);
		}
		/* a writer that stays inside: what is there, as cpuset-inspect */
		if (!busy && shm_read_retry(&c->t, seq))
			continue;
		r = 0;
		break;
	}
	if (fd >= 0)
		cps_sys_close(fd);
	if (!s->copy)
		return r;
	/* what is there, even if a writer stayed inside */
	shm_table_rebase(out, &c->t, s->copy);
	return 0;
}

static int cmp_member(const void *a, const void *b)
{
	pid_t x = ((const struct top_member *)a)->pid, y = ((const struct top_member *)b)->pid;
	return x < y ? -1 : x > y;
}

static size_t set_index(const struct top_state *s, uint32_t id)
{
	for (size_t lo = 0, hi = s->nsets; lo < hi;) {
		size_t mid = (lo + hi) / 2;
		if (s->sets[mid].id == id)
			return mid;
		if (s->sets[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (size_t)-1;
}

static int cmp_set(const void *a, const void *b)
{
	uint32_t x = ((const struct top_set *)a)->id, y = ((const struct top_set *)b)->id;
	return x < y ? -1 : x > y;
}

/* a is b or one of b's ancestors (parents followed at most 64 deep). */
static bool is_ancestor(const struct top_state *s, uint32_t a, uint32_t b)
{
	for (int depth = 0; depth < 64 && b; depth++) {
		if (a == b)
			return true;
		size_t i = set_index(s, b);
		if (i == (size_t)-1)
			return false;
		b = s->sets[i].parent;
	}
	return false;
}

static int copy_sets(struct top_state *s, const struct shm_table *t)
{
	size_t nw = s->nw;
	s->nsets = 0;
	for (uint32_t i = 0; i < t->set_slots; i++) {
		struct shm_set *ss = shm_set_at(t, i);
		if (!ss->id)
			continue;
		if (s->nsets == s->capsets) {
			size_t cap = s->capsets ? s->capsets * 2 : 64;
			struct top_set *v = realloc(s->sets, cap * sizeof(*v));
			if (!v)
				return -ENOMEM;
			s->sets = v;
			s->capsets = cap;
		}
		struct top_set *x = &s->sets[s->nsets++];
		memset(x, 0, offsetof(struct top_set, cpus));
		x->id = ss->id;
		x->parent = ss->parent;
		x->flags = ss->flags;
		memcpy(x->name, ss->name, sizeof(x->name));
		x->name[sizeof(x->name) - 1] = 0;
		cps_mask_copy(x->cpus, shm_set_mask(t, ss, SHM_MASK_CPUS), nw);
		x->ncpus = cps_mask_count(x->cpus, nw);
		x->members = x->threads_rec = 0;
		x->wrapped = ss->wrapped;
		x->threads = s->members ? 0 : -1;
		x->user = x->sys = x->idle = x->other = 0;
		x->members_busy = s->members && s->have_prev ? 0 : -1;
		x->nshares = 0;
	}
	qsort(s->sets, s->nsets, sizeof(*s->sets), cmp_set);
	return 0;
}

/* The members' records, and with members their own figures. */
static int copy_members(struct top_state *s, const struct shm_table *t)
{
	struct top_member *swap = s->prevmem;
	size_t swapcap = s->capprevmem;
	s->prevmem = s->mem;
	s->nprevmem = s->nmem;
	s->capprevmem = s->capmem;
	s->mem = swap;
	s->capmem = swapcap;
	s->nmem = 0;
	for (uint32_t j = 0; j < t->proc_slots; j++) {
		const struct shm_proc *p = shm_proc_at(t, j);
		/* a record whose process ended is no member (swept at the next write) */
		if (p->pid <= 0 || !cps_proc_alive(p->pid, p->start))
			continue;
		size_t k = set_index(s, p->set);
		if (k == (size_t)-1)
			continue;
		s->sets[k].members++;
		if (!s->members)
			continue;
		if (s->nmem == s->capmem) {
			size_t cap = s->capmem ? s->capmem * 2 : 64;
			struct top_member *v = realloc(s->mem, cap * sizeof(*v));
			if (!v)
				return -ENOMEM;
			s->mem = v;
			s->capmem = cap;
		}
		struct top_member *m = &s->mem[s->nmem++];
		memset(m, 0, sizeof(*m));
		m->pid = p->pid;
		m->set = p->set;
		m->start = p->start;
		m->busy = -1;
		if (read_member(s, m) == 0)
			s->sets[k].threads += m->threads;
	}
	if (!s->members)
		return 0;
	qsort(s->mem, s->nmem, sizeof(*s->mem), cmp_member);
	double dt = s->t_cur - s->t_prev;
	long hz = sysconf(_SC_CLK_TCK);
	for (size_t i = 0; i < s->nmem; i++) {
		struct top_member *m = &s->mem[i];
		struct top_member *o = bsearch(m, s->prevmem, s->nprevmem, sizeof(*m), cmp_member);
		if (o && o->start == m->start && o->threads >= 0 && m->threads >= 0 && dt > 0 && hz > 0)
			m->busy = 100.0 * (double)dsub(m->ticks, o->ticks) / ((double)hz * dt);
		size_t k = set_index(s, m->set);
		if (m->busy > 0 && k != (size_t)-1 && s->sets[k].members_busy >= 0)
			s->sets[k].members_busy += m->busy;
	}
	/* in % of one CPU each, summed: in % of the set's CPUs */
	for (size_t k = 0; k < s->nsets; k++)
		if (s->sets[k].members_busy > 0)
			s->sets[k].members_busy = s->sets[k].ncpus ?
				s->sets[k].members_busy / s->sets[k].ncpus : -1;
	return 0;
}

static void attribute(struct top_state *s)
{
	size_t nw = s->nw;
	for (size_t i = 0; i < s->nsets; i++) {
		struct top_set *x = &s->sets[i];
		for (int cpu = cps_mask_next(x->cpus, nw, -1); cpu >= 0;
		     cpu = cps_mask_next(x->cpus, nw, cpu)) {
			uint64_t d[4];
			if (!top_cpu_delta(s, (unsigned)cpu, d))
				continue;
			x->user += d[0];
			x->sys += d[1];
			x->idle += d[2];
			x->other += d[3];
		}
		/* sharing: a set that is neither its ancestor nor its
		 * descendant holds some of its CPUs */
		for (size_t j = 0; j < s->nsets; j++) {
			struct top_set *y = &s->sets[j];
			if (i == j || !cps_mask_intersects(x->cpus, y->cpus, nw) ||
			    is_ancestor(s, x->id, y->id) || is_ancestor(s, y->id, x->id))
				continue;
			if (x->nshares < TOP_SHARES_SHOWN)
				x->shares[x->nshares] = y->id;
			x->nshares++;
		}
	}
}

int top_sample(struct top_state *s)
{
	double t0 = top_now();
	struct shm_table tbl;
	struct top_cpu *t = s->prev;
	s->prev = s->cur;
	s->cur = t;
	s->have_prev = s->t_cur > 0;
	s->t_prev = s->t_cur;
	int r = read_proc_stat(s);
	s->t_cur = top_now();
	if (r < 0)
		return r;
	if ((r = copy_table(s, &tbl)) < 0)
		return r;
	r = copy_sets(s, &tbl);
	if (r == 0)
		r = copy_members(s, &tbl);
	if (r == 0)
		for (uint32_t k = 0; k < tbl.thread_slots; k++) {
			const struct shm_thread *th = shm_thread_at(&tbl, k);
			if (th->tid <= 0)
				continue;
			long slot = shm_proc_find(&tbl, th->pid);
			if (slot < 0)
				continue;
			size_t i = set_index(s, shm_proc_at(&tbl, (uint32_t)slot)->set);
			if (i != (size_t)-1)
				s->sets[i].threads_rec++;
		}
	if (r == 0)
		attribute(s);
	s->refresh_ms = (top_now() - t0) * 1000.0;
	return r;
}
