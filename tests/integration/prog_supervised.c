/* SPDX-License-Identifier: BSD-3-Clause */
/* What a program the preload cannot reach (built with -static) sees of
 * its CPUs; tests/integration/supervise.sh runs it under cpuset-run's
 * supervisor and compares with the kernel's truth read outside it.
 *
 *   prog_supervised counts       ONLN CONF nprocs affinity-list
 *   prog_supervised files        cpuinfo's processors, /proc/stat's cpuN
 *                                lines, status's Cpus_allowed_list, online
 *   prog_supervised mems         status's Mems_allowed_list
 *   prog_supervised bind V       sched_setaffinity(0, {V}) (raw), then
 *                                prints the affinity list and waits for
 *                                a line on stdin
 *   prog_supervised bindraw P    the same with the physical marker word
 *   prog_supervised setpid PID V sched_setaffinity(PID, {V}): the errno
 *   prog_supervised setthread V  a thread that ends at a line on stdin;
 *                                prints its id, then the errno of
 *                                sched_setaffinity(its id, {V})
 *   prog_supervised aspid PID    a child made with thread id PID
 *                                (clone3's set_tid, root), which waits
 *                                60 s (its stdout closed); prints "ok"
 *                                or clone3's error
 *   prog_supervised threads N    N threads each print their affinity
 *   prog_supervised loop N       prints its pid, waits for a first
 *                                SIGUSR1, then makes N raw
 *                                sched_getaffinity calls while SIGUSR1
 *                                may arrive (SA_RESTART): prints the
 *                                wrong answers, the signals caught and
 *                                the calls that ended with EINTR
 *   prog_supervised loopnr N     the same with a handler without
 *                                SA_RESTART (a native call never ends
 *                                with EINTR)
 *   prog_supervised uring CPU    io_uring_setup(2) by syscall(2) with a
 *                                polling thread (IORING_SETUP_SQPOLL) on
 *                                CPU (IORING_SETUP_SQ_AFF): "ok PID C"
 *                                (C: the params' CPU after the call),
 *                                then waits for a line on stdin; or the
 *                                error
 *   prog_supervised uringbad     io_uring_setup's answers on NULL params,
 *                                unreadable ones, and read-only ones with
 *                                a polling thread on CPU 0
 *   prog_supervised getcpu       the getcpu system call's CPU
 *   prog_supervised schedgetcpu  sched_getcpu(3) (glibc: the rseq area)
 *   prog_supervised edges        the affinity calls' answers (return
 *                                value, errno) on bad sizes, pointers
 *                                and pids
 *   prog_supervised held FILE    one line "pid P counts ... files ..."
 *                                (counts' and files' fields, the lists
 *                                last), then waits (60 s at most) until
 *                                FILE exists: the Slurm tests read the
 *                                kernel's mask outside meanwhile
 *   prog_supervised kept FILE    FILE opened twice in a row, up to 100
 *                                times, until both opens are the same
 *                                file (a view kept): "same" or "new",
 *                                then the last open's lines that start
 *                                with "processor"
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435 /* the same on every architecture */
#endif

static long raw_get(pid_t pid, cpu_set_t *s)
{
	CPU_ZERO(s);
	return syscall(SYS_sched_getaffinity, pid, sizeof(*s), s);
}

static void print_list(const cpu_set_t *s)
{
	const char *sep = "";
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, s)) {
			printf("%s%d", sep, i);
			sep = ",";
		}
	printf("\n");
}

static int count_lines(const char *path, const char *prefix, int digit_after)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char line[4096];
	int n = 0;
	size_t pl = strlen(prefix);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, prefix, pl) && (!digit_after || (line[pl] >= '0' && line[pl] <= '9')))
			n++;
	fclose(f);
	return n;
}

static void print_field(const char *path, const char *prefix)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	size_t pl = strlen(prefix);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, prefix, pl)) {
			char *v = line + pl;
			while (*v == ' ' || *v == '\t')
				v++;
			printf("%s", v);
			fclose(f);
			return;
		}
	if (f)
		fclose(f);
	printf("?\n");
}

/* The value after prefix on path's first line that has it, or "?". */
static void get_field(const char *path, const char *prefix, char *v, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	size_t pl = strlen(prefix);
	snprintf(v, len, "?");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, prefix, pl)) {
			char *p = line + pl;
			p += strspn(p, " \t");
			p[strcspn(p, "\n")] = 0;
			snprintf(v, len, "%s", p);
			break;
		}
	if (f)
		fclose(f);
}

static int kept(const char *file)
{
	struct stat a, b;
	int same = 0, fd = -1;
	for (int i = 0; i < 100 && !same; i++) {
		if (fd >= 0)
			close(fd);
		int f1 = open(file, O_RDONLY | O_CLOEXEC);
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (f1 < 0 || fd < 0)
			return 1;
		same = fstat(f1, &a) == 0 && fstat(fd, &b) == 0 && a.st_dev == b.st_dev &&
		       a.st_ino == b.st_ino;
		close(f1);
	}
	FILE *f = fdopen(fd, "r");
	char line[512];
	int n = 0;
	while (f && fgets(line, sizeof(line), f))
		n += !strncmp(line, "processor", 9);
	if (f)
		fclose(f);
	printf("%s %d\n", same ? "same" : "new", n);
	return 0;
}

static int held(const char *file)
{
	cpu_set_t s;
	char status[4096], online[4096];
	printf("pid %d counts %ld %ld %d ", (int)getpid(), sysconf(_SC_NPROCESSORS_ONLN),
	       sysconf(_SC_NPROCESSORS_CONF), get_nprocs());
	if (raw_get(0, &s) < 0)
		printf("error:%s", strerror(errno));
	else
		for (int i = 0, n = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &s))
				printf("%s%d", n++ ? "," : "", i);
	get_field("/proc/self/status", "Cpus_allowed_list:", status, sizeof(status));
	get_field("/sys/devices/system/cpu/online", "", online, sizeof(online));
	printf(" files %d %d %s %s\n", count_lines("/proc/cpuinfo", "processor", 0),
	       count_lines("/proc/stat", "cpu", 1), status, online);
	fflush(stdout);
	for (int w = 0; w < 3000 && access(file, F_OK) != 0; w++)
		usleep(20000);
	return 0;
}

static void *thread_main(void *arg)
{
	cpu_set_t s;
	(void)arg;
	raw_get(0, &s);
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&m);
	print_list(&s);
	pthread_mutex_unlock(&m);
	return NULL;
}

/* setthread's thread: says its id, ends at a line */
static volatile pid_t reader_tid;
static void *reader_main(void *arg)
{
	(void)arg;
	char b[8];
	reader_tid = (pid_t)syscall(SYS_gettid);
	return fgets(b, sizeof(b), stdin) ? NULL : NULL;
}

static volatile sig_atomic_t signals;
static void on_signal(int sig)
{
	(void)sig;
	signals++;
}

int main(int argc, char **argv)
{
	cpu_set_t s;
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "counts")) {
		printf("%ld %ld %d ", sysconf(_SC_NPROCESSORS_ONLN), sysconf(_SC_NPROCESSORS_CONF),
		       get_nprocs());
		if (raw_get(0, &s) < 0)
			printf("error:%s\n", strerror(errno));
		else
			print_list(&s);
		return 0;
	}
	if (!strcmp(argv[1], "kept") && argc > 2)
		return kept(argv[2]);
	if (!strcmp(argv[1], "held") && argc > 2)
		return held(argv[2]);
	if (!strcmp(argv[1], "files")) {
		printf("%d ", count_lines("/proc/cpuinfo", "processor", 0));
		printf("%d ", count_lines("/proc/stat", "cpu", 1));
		fflush(stdout);
		print_field("/proc/self/status", "Cpus_allowed_list:");
		print_field("/sys/devices/system/cpu/online", "");
		return 0;
	}
	if (!strcmp(argv[1], "mems")) {
		print_field("/proc/self/status", "Mems_allowed_list:");
		return 0;
	}
	if ((!strcmp(argv[1], "bind") || !strcmp(argv[1], "bindraw")) && argc > 2) {
		CPU_ZERO(&s);
		CPU_SET(atoi(argv[2]), &s);
		long size = sizeof(s);
		if (!strcmp(argv[1], "bindraw"))
			size |= (long)0x43505350 << 32;
		long r = syscall(SYS_sched_setaffinity, 0, size, &s);
		printf("%s %d ", r < 0 ? strerror(errno) : "ok", (int)getpid());
		raw_get(0, &s);
		print_list(&s);
		fflush(stdout);
		char b[8];
		if (argc > 3)
			return fgets(b, sizeof(b), stdin) ? 0 : 0;
		return 0;
	}
	if (!strcmp(argv[1], "setpid") && argc > 3) {
		CPU_ZERO(&s);
		CPU_SET(atoi(argv[3]), &s);
		long r = syscall(SYS_sched_setaffinity, atoi(argv[2]), sizeof(s), &s);
		printf("%s\n", r < 0 ? strerror(errno) : "ok");
		return 0;
	}
	if (!strcmp(argv[1], "setthread") && argc > 2) {
		pthread_t t;
		pthread_create(&t, NULL, reader_main, NULL);
		for (int w = 0; !reader_tid && w < 10000; w++)
			usleep(1000);
		printf("%d\n", (int)reader_tid);
		fflush(stdout);
		CPU_ZERO(&s);
		CPU_SET(atoi(argv[2]), &s);
		long r = syscall(SYS_sched_setaffinity, reader_tid, sizeof(s), &s);
		printf("%s\n", r < 0 ? strerror(errno) : "ok");
		pthread_join(t, NULL);
		return 0;
	}
	if (!strcmp(argv[1], "aspid") && argc > 2) {
		pid_t want = (pid_t)atoi(argv[2]);
		/* clone3's argument as the kernel's uapi has it (5.5 on):
		 * spelled here, musl's headers have no linux/ */
		struct {
			uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
			uint64_t stack, stack_size, tls, set_tid, set_tid_size;
		} ca = {
			.exit_signal = SIGCHLD,
			.set_tid = (uint64_t)(uintptr_t)&want,
			.set_tid_size = 1,
		};
		long r = syscall(SYS_clone3, &ca, sizeof(ca));
		if (r == 0) {
			/* the caller's $(...) ends at the parent's answer */
			close(1);
			close(2);
			sleep(60);
			_exit(0);
		}
		printf("%s\n", r < 0 ? strerror(errno) : "ok");
		return 0;
	}
	if (!strcmp(argv[1], "threads") && argc > 2) {
		int n = atoi(argv[2]);
		pthread_t t[64];
		for (int i = 0; i < n && i < 64; i++)
			pthread_create(&t[i], NULL, thread_main, NULL);
		for (int i = 0; i < n && i < 64; i++)
			pthread_join(t[i], NULL);
		return 0;
	}
	if ((!strcmp(argv[1], "loop") || !strcmp(argv[1], "loopnr")) && argc > 2) {
		struct sigaction sa = { .sa_handler = on_signal,
					.sa_flags = strcmp(argv[1], "loop") ? 0 : SA_RESTART };
		sigaction(SIGUSR1, &sa, NULL);
		printf("%d\n", (int)getpid());
		fflush(stdout);
		/* the storm has begun: the first signal (10 s at most) */
		for (int w = 0; !signals && w < 10000; w++)
			usleep(1000);
		long n = atol(argv[2]), bad = 0, eintr = 0;
		cpu_set_t want;
		raw_get(0, &want);
		for (long i = 0; i < n; i++) {
			long r = raw_get(0, &s);
			eintr += r < 0 && errno == EINTR;
			if (r < 0 || !CPU_EQUAL(&s, &want))
				bad++;
		}
		printf("%ld %ld %ld\n", bad, (long)signals, eintr);
		return 0;
	}
	if (!strcmp(argv[1], "edges")) {
		static unsigned long m[256];
		static const struct { const char *what; long nr, pid, len; void *p; } c[] = {
			{ "get len 4", SYS_sched_getaffinity, 0, 4, m },
			{ "get len 2052", SYS_sched_getaffinity, 0, 2052, m },
			{ "get len 2048", SYS_sched_getaffinity, 0, 2048, m },
			{ "get bad pointer", SYS_sched_getaffinity, 0, 8, (void *)8 },
			{ "set bad pointer", SYS_sched_setaffinity, 0, 8, (void *)8 },
			{ "get no pid", SYS_sched_getaffinity, 999999, 8, m },
			{ "set no pid", SYS_sched_setaffinity, 999999, 8, m },
		};
		m[0] = 1;
		for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			errno = 0;
			long r = syscall(c[i].nr, c[i].pid, c[i].len, c[i].p);
			printf("%s: %ld %d\n", c[i].what, r, r < 0 ? errno : 0);
		}
		return 0;
	}
	if (!strcmp(argv[1], "schedgetcpu")) {
		printf("%d\n", sched_getcpu());
		return 0;
	}
	if (!strcmp(argv[1], "uring") && argc > 2) {
		/* the uapi's struct io_uring_params (Linux 5.1 on), spelled
		 * here: musl's headers have no linux/ */
		struct {
			uint32_t sq_entries, cq_entries, flags, sq_thread_cpu, sq_thread_idle;
			uint32_t features, wq_fd, resv[3];
			uint64_t off[10];
		} p;
		memset(&p, 0, sizeof(p));
		p.flags = 1u << 1 | 1u << 2; /* IORING_SETUP_SQPOLL | IORING_SETUP_SQ_AFF */
		p.sq_thread_cpu = (uint32_t)atoi(argv[2]);
		p.sq_thread_idle = 60000; /* ms: the thread stays while we wait */
		long fd = syscall(425 /* SYS_io_uring_setup, every architecture */, 4, &p);
		if (fd < 0) {
			printf("%s\n", strerror(errno));
			return 0;
		}
		printf("ok %d %u\n", (int)getpid(), p.sq_thread_cpu);
		fflush(stdout);
		char b[8];
		return fgets(b, sizeof(b), stdin) ? 0 : 0;
	}
	if (!strcmp(argv[1], "uringbad")) {
		long pg = sysconf(_SC_PAGESIZE);
		uint32_t *ro = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ro == MAP_FAILED)
			return 1;
		ro[2] = 1u << 1 | 1u << 2; /* flags: SQPOLL | SQ_AFF, CPU 0 */
		ro[4] = 10;                /* sq_thread_idle, ms */
		/* unreadable: PROT_NONE (an unmapped page could be mapped
		 * again meanwhile, by the shim's first use among others) */
		mprotect((char *)ro + pg, (size_t)pg, PROT_NONE);
		mprotect(ro, (size_t)pg, PROT_READ);
		void *c[] = { NULL, (char *)ro + pg, ro };
		for (unsigned i = 0; i < 3; i++) {
			errno = 0;
			long r = syscall(425, 4, c[i]);
			printf("%ld %d\n", r < 0 ? r : 0, r < 0 ? errno : 0);
			if (r >= 0)
				close((int)r);
		}
		return 0;
	}
	if (!strcmp(argv[1], "getcpu")) {
		unsigned cpu = 99, node = 99;
		long r = syscall(SYS_getcpu, &cpu, &node, NULL);
		printf("%ld %u %u\n", r, cpu, node);
		return 0;
	}
	return 2;
}
