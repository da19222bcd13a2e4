/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_churn — resizes of a set while its members start and exit.
 *
 *   bench_churn drive RUN CPUSET SET MEMBERS LIFE_MIN_MS LIFE_MAX_MS THREADS
 *               ALLOCS GAP_MS LIST1 LIST2 [READERS]
 *   bench_churn member THREADS LIFE_MS
 *
 * drive keeps MEMBERS members of SET alive at once, each `RUN --set SET
 * bench_churn member THREADS LIFE` with LIFE drawn from
 * [LIFE_MIN_MS, LIFE_MAX_MS], each replaced by a new one when it exits, so
 * members start and exit all the time. Meanwhile another process runs
 * ALLOCS times `CPUSET alloc SET LIST` (LIST1 and LIST2 in turn, every
 * thread moves every time), GAP_MS apart, from the moment MEMBERS are
 * alive, or after 10 s on a machine too loaded for that (members are
 * started at most at twice the rate that keeps MEMBERS alive: a churn,
 * not all at once), and times each (start to exit, as the
 * resize benchmark does). READERS (default 0) more processes run
 * `CPUSET show SET` and `CPUSET list` in a loop meanwhile: readers of
 * the member list while it grows.
 *
 * After the last alloc no member is started any more; every member that
 * is alive then is waited for until it runs as a member (its threads
 * started, its pinning done), and every thread of every one must be on
 * CPUs of the last LIST (never outside the set, never with no CPU).
 *
 * Prints "alloc K MS" for each alloc, then one line
 *   allocs=K median_ms=.. p90_ms=.. p99_ms=.. max_ms=.. started=..
 *   checked_members=.. checked_threads=.. outside=.. failed_allocs=..
 *   failed_readers=..
 * Exits 1 when a thread ends outside the set, an alloc or a reader
 * fails, or a member cannot run; 2 for bad usage.
 *
 * member makes THREADS threads in all; the first asks the shim for its
 * CPUs (set-up), thread 1 pins itself to virtual CPU 0, the others ask
 * nothing; it lives LIFE_MS and exits.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MASK_WORDS 16 /* 1,024 CPUs */

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void sleep_ms(double ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)((ms - (double)(long)(ms / 1000) * 1000) * 1e6) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* ---- member ---- */

static void *pinner(void *arg)
{
	cpu_set_t cs;
	(void)arg;
	CPU_ZERO(&cs);
	CPU_SET(0, &cs); /* virtual CPU 0 of the set */
	sched_setaffinity(0, sizeof(cs), &cs);
	for (;;)
		pause();
	return NULL;
}

static void *idler(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static int member(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	long nth = atol(argv[2]), life = atol(argv[3]);
	cpu_set_t cs;
	sched_getaffinity(0, sizeof(cs), &cs); /* the shim sets up */
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (long i = 1; i < nth; i++) {
		pthread_t th;
		if (pthread_create(&th, &a, i == 1 ? pinner : idler, NULL) != 0)
			return 1;
	}
	sleep_ms((double)life);
	_exit(0);
}

/* ---- driver ---- */

static int parse_list(const char *s, uint64_t *m)
{
	memset(m, 0, MASK_WORDS * 8);
	while (*s) {
		char *e;
		long a = strtol(s, &e, 10), b = a;
		if (e == s)
			return -1;
		if (*e == '-') {
			s = e + 1;
			b = strtol(s, &e, 10);
			if (e == s)
				return -1;
		}
		if (a < 0 || b < a || b >= MASK_WORDS * 64)
			return -1;
		for (long c = a; c <= b; c++)
			m[c / 64] |= 1ull << (c % 64);
		s = e;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return 0;
}

static pid_t spawn(char **argv)
{
	pid_t pid;
	int e = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
	if (e != 0) {
		fprintf(stderr, "bench_churn: %s: %s\n", argv[0], strerror(e));
		return -1;
	}
	return pid;
}

static int run_wait(char **argv)
{
	pid_t pid = spawn(argv);
	int st;
	if (pid < 0)
		return -1;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The allocator: ALLOCS timed allocs, results on fd out as "K MS RC". */
static void allocator(int out, char *cpuset, char *set, long allocs, long gap, char *l1, char *l2)
{
	for (long k = 0; k < allocs; k++) {
		char *argv[] = { cpuset, "alloc", set, k % 2 ? l2 : l1, NULL };
		double t0 = now_ms();
		int rc = run_wait(argv);
		double t = now_ms() - t0;
		dprintf(out, "%ld %.3f %d\n", k + 1, t, rc);
		sleep_ms((double)gap);
	}
	_exit(0);
}

/* A reader: show and list in a loop until killed; exits 1 at the first
 * failure (a sanitizer's report ends the tool with a non-zero status). */
static void reader(char *cpuset, char *set)
{
	int null = open("/dev/null", O_WRONLY);
	if (null >= 0)
		dup2(null, 1);
	for (;;) {
		char *show[] = { cpuset, "show", set, NULL };
		char *list[] = { cpuset, "list", NULL };
		int a = run_wait(show), b = run_wait(list);
		if (a != 0 || b != 0) {
			fprintf(stderr, "bench_churn: reader: show %d, list %d\n", a, b);
			_exit(1);
		}
	}
}

static int read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	return (int)n;
}

/* Is pid running as a member yet (exec'd, every thread started)? 1 yes,
 * 0 not yet, -1 gone. */
static int member_ready(pid_t pid, long nth)
{
	char path[64], buf[2048];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	char *n = strstr(buf, "Name:\t"), *t = strstr(buf, "\nThreads:\t");
	if (!n || !t)
		return -1;
	if (strncmp(n + 6, "bench_churn", 11) && strncmp(n + 6, "lt-bench_churn", 14))
		return 0;
	if (strstr(buf, "\nState:\tZ"))
		return -1;
	return atol(t + 10) >= nth ? 1 : 0;
}

/* Threads of pid whose kernel mask is not within want (or is empty). */
static int outside(pid_t pid, const uint64_t *want, long *nthreads)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	int bad = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);
		if (tid <= 0)
			continue;
		uint64_t m[MASK_WORDS] = { 0 };
		if (syscall(SYS_sched_getaffinity, tid, sizeof(m), m) < 0)
			continue; /* gone */
		(*nthreads)++;
		int any = 0, out = 0;
		for (int i = 0; i < MASK_WORDS; i++) {
			any |= m[i] != 0;
			out |= (m[i] & ~want[i]) != 0;
		}
		if (!any || out) {
			char s[128];
			snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
			char buf[4096];
			const char *l = "?";
			if (read_small(path, buf, sizeof(buf)) > 0 && (l = strstr(buf, "Cpus_allowed_list:\t")))
				l += 19;
			snprintf(s, sizeof(s), "%s", l);
			s[strcspn(s, "\n")] = 0;
			fprintf(stderr, "bench_churn: thread %d of member %d is on CPUs %s, outside the set\n",
				(int)tid, (int)pid, s);
			bad++;
		}
	}
	closedir(d);
	return bad;
}

static int drive(int argc, char **argv)
{
	if (argc != 13 && argc != 14) {
		fprintf(stderr, "usage: bench_churn drive RUN CPUSET SET MEMBERS LIFE_MIN_MS LIFE_MAX_MS "
				"THREADS ALLOCS GAP_MS LIST1 LIST2 [READERS]\n");
		return 2;
	}
	char *run = argv[2], *cpuset = argv[3], *set = argv[4];
	long members = atol(argv[5]), lmin = atol(argv[6]), lmax = atol(argv[7]);
	long nth = atol(argv[8]), allocs = atol(argv[9]), gap = atol(argv[10]);
	char *l1 = argv[11], *l2 = argv[12];
	long nreaders = argc == 14 ? atol(argv[13]) : 0;
	uint64_t want[MASK_WORDS];
	if (members < 1 || members > 20000 || lmin < 1 || lmax < lmin || nth < 1 || nth > 64 ||
	    allocs < 1 || gap < 0 || nreaders < 0 || nreaders > 8 ||
	    parse_list(allocs % 2 ? l1 : l2, want) < 0) {
		fprintf(stderr, "bench_churn: bad arguments\n");
		return 2;
	}
	char self[4096];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl <= 0)
		return 1;
	self[sl] = 0;
	pid_t *pids = calloc((size_t)members, sizeof(pid_t));
	if (!pids)
		return 1;
	unsigned seed = (unsigned)getpid();
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0)
		return 1;
	pid_t readers[8];
	for (long i = 0; i < nreaders; i++) {
		readers[i] = fork();
		if (readers[i] == 0) {
			close(fds[0]);
			reader(cpuset, set);
		}
	}
	long started = 0, live = 0, failed_starts = 0;
	/* Starts are paced: twice the rate that keeps MEMBERS alive, so the
	 * machine is loaded by a churn, not by a thousand starts at once;
	 * the allocs begin once MEMBERS are alive (or after 10 s), members
	 * starting and exiting all along. */
	double rate = 2.0 * (double)members * 2000.0 / (double)(lmin + lmax), t0 = now_ms();
	pid_t alloc_pid = -1;
	int alloc_done = 0;
	while (!alloc_done) {
		/* a machine too loaded to keep MEMBERS alive at once (the
		 * starts cannot outpace the exits) starts the allocs after 10 s
		 * with those alive, rather than never */
		if (alloc_pid < 0 && (live >= members || (live > 0 && now_ms() - t0 > 10000.0))) {
			if (live < members)
				fprintf(stderr, "bench_churn: %ld of %ld members alive after 10 s: allocs begin\n",
					live, members);
			alloc_pid = fork();
			if (alloc_pid == 0)
				allocator(fds[1], cpuset, set, allocs, gap, l1, l2);
		}
		for (long i = 0; i < members && !alloc_done; i++) {
			if (pids[i] > 0)
				continue;
			if ((double)started >= (now_ms() - t0) * rate / 1000.0)
				break;
			char nths[24], lifes[24];
			snprintf(nths, sizeof(nths), "%ld", nth);
			snprintf(lifes, sizeof(lifes), "%ld", lmin + (long)(rand_r(&seed) % (unsigned)(lmax - lmin + 1)));
			char *mv[] = { run, "--set", set, self, "member", nths, lifes, NULL };
			pids[i] = spawn(mv);
			if (pids[i] < 0)
				return 1;
			started++;
			live++;
		}
		/* reap exited members: their slots are filled again */
		int st;
		pid_t p;
		while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
			if (p == alloc_pid) {
				alloc_done = 1;
				continue;
			}
			for (long i = 0; i < members; i++) {
				if (pids[i] == p) {
					pids[i] = 0;
					live--;
					if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
						if (failed_starts++ < 5)
							fprintf(stderr, "bench_churn: member %d: status %d\n",
								(int)p, st);
					}
				}
			}
		}
		sleep_ms(2);
	}
	close(fds[1]);
	for (long i = 0; i < nreaders; i++)
		kill(readers[i], SIGTERM);
	/* results of the allocs */
	double *t = calloc((size_t)allocs, sizeof(double));
	long nt = 0, failed_allocs = 0;
	FILE *in = fdopen(fds[0], "r");
	long k;
	double ms;
	int rc;
	while (in && fscanf(in, "%ld %lf %d", &k, &ms, &rc) == 3) {
		printf("alloc %ld %.1f\n", k, ms);
		if (rc != 0) {
			fprintf(stderr, "bench_churn: alloc %ld: exit status %d\n", k, rc);
			failed_allocs++;
		}
		if (nt < allocs)
			t[nt++] = ms;
	}
	/* every member alive now, once it runs as one, inside the last list */
	long checked = 0, threads = 0, bad = 0;
	double deadline = now_ms() + 60000;
	for (long i = 0; i < members; i++) {
		if (pids[i] <= 0)
			continue;
		int r;
		while ((r = member_ready(pids[i], nth)) == 0 && now_ms() < deadline)
			sleep_ms(5);
		if (r < 0)
			continue; /* exited meanwhile */
		if (r == 0) {
			fprintf(stderr, "bench_churn: member %d never ran\n", (int)pids[i]);
			bad++;
			continue;
		}
		/* the pinning thread has pinned itself once it sleeps */
		sleep_ms(0.2);
		bad += outside(pids[i], want, &threads);
		checked++;
	}
	for (long i = 0; i < members; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	int failed_readers = 0;
	for (long i = 0; i < nreaders; i++) {
		int st;
		waitpid(readers[i], &st, 0);
		if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM))
			failed_readers++;
	}
	while (waitpid(-1, NULL, 0) > 0)
		;
	qsort(t, (size_t)nt, sizeof(double), cmp_d);
#define PCT(p) (nt ? t[(size_t)((nt - 1) * (p) + 0.999)] : 0)
	printf("allocs=%ld median_ms=%.1f p90_ms=%.1f p99_ms=%.1f max_ms=%.1f started=%ld "
	       "checked_members=%ld checked_threads=%ld outside=%ld failed_allocs=%ld "
	       "failed_members=%ld failed_readers=%d\n",
	       nt, nt ? (nt % 2 ? t[nt / 2] : (t[nt / 2 - 1] + t[nt / 2]) / 2) : 0, PCT(0.90),
	       PCT(0.99), nt ? t[nt - 1] : 0, started, checked, threads, bad, failed_allocs,
	       failed_starts, failed_readers);
	return bad || failed_allocs || failed_readers || failed_starts || nt != allocs ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "member"))
		return member(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "drive"))
		return drive(argc, argv);
	fprintf(stderr, "usage: bench_churn drive ... | bench_churn member THREADS LIFE_MS\n");
	return 2;
}
