/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_syscount — count the system calls a program makes, like
 * `strace -f -c`, with nothing but ptrace (so the benchmark needs no strace).
 *
 *   bench_syscount PROGRAM [ARGS...]
 *
 * Runs PROGRAM and every process and thread it starts under ptrace,
 * counting system-call entries (PTRACE_GET_SYSCALL_INFO); vDSO calls are
 * not system calls and are not seen. Prints PROGRAM's output, then on
 * stderr "syscalls total=N" and one "syscall NAME=N" per number seen (the
 * few this benchmark cares about by name, the rest as nr<NUMBER>). Exits
 * with PROGRAM's status (1 if it was killed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXNR 1024
static unsigned long counts[MAXNR];

static const char *name_of(long nr, char *buf, size_t len)
{
	static const struct {
		long nr;
		const char *name;
	} known[] = {
		{ SYS_sched_getaffinity, "sched_getaffinity" },
		{ SYS_sched_setaffinity, "sched_setaffinity" },
		{ SYS_getcpu, "getcpu" },
		{ SYS_gettid, "gettid" },
		{ SYS_getpid, "getpid" },
		{ SYS_getppid, "getppid" },
		{ SYS_openat, "openat" },
		{ SYS_read, "read" },
		{ SYS_write, "write" },
		{ SYS_close, "close" },
		{ SYS_fcntl, "fcntl" },
		{ SYS_fchmod, "fchmod" },
		{ SYS_memfd_create, "memfd_create" },
		{ SYS_newfstatat, "newfstatat" },
		{ SYS_fstat, "fstat" },
		{ SYS_lseek, "lseek" },
#ifdef SYS_readlink /* none on aarch64 and riscv64 */
		{ SYS_readlink, "readlink" },
#endif
		{ SYS_tgkill, "tgkill" },
		{ SYS_execve, "execve" },
		{ SYS_mmap, "mmap" },
		{ SYS_munmap, "munmap" },
		{ SYS_futex, "futex" },
		{ SYS_exit_group, "exit_group" },
	};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].nr == nr)
			return known[i].name;
	snprintf(buf, len, "nr%ld", nr);
	return buf;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_syscount PROGRAM [ARGS...]\n");
		return 2;
	}
	pid_t child = fork();
	if (child < 0) {
		perror("bench_syscount: fork");
		return 1;
	}
	if (child == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
			perror("bench_syscount: PTRACE_TRACEME");
			_exit(126);
		}
		raise(SIGSTOP);
		execvp(argv[1], argv + 1);
		perror("bench_syscount: exec");
		_exit(127);
	}
	int st;
	if (waitpid(child, &st, 0) < 0 || !WIFSTOPPED(st)) {
		fprintf(stderr, "bench_syscount: the child did not stop\n");
		return 1;
	}
	long opts = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
		    PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL;
	if (ptrace(PTRACE_SETOPTIONS, child, NULL, (void *)opts) < 0 ||
	    ptrace(PTRACE_SYSCALL, child, NULL, NULL) < 0) {
		perror("bench_syscount: ptrace");
		return 1;
	}
	int status = -1;
	unsigned long total = 0;
	for (;;) {
		pid_t w = waitpid(-1, &st, __WALL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			break; /* ECHILD: every tracee is gone */
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (w == child)
				status = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		int sig = WSTOPSIG(st), inject = 0;
		int event = st >> 16;
		if (sig == (SIGTRAP | 0x80)) {
			struct __ptrace_syscall_info si;
			long n = ptrace(PTRACE_GET_SYSCALL_INFO, w, (void *)sizeof(si), &si);
			if (n > 0 && si.op == PTRACE_SYSCALL_INFO_ENTRY) {
				total++;
				if (si.entry.nr < MAXNR)
					counts[si.entry.nr]++;
			}
		} else if (event) {
			/* clone, fork, exec: nothing to deliver */
		} else if (sig != SIGSTOP) {
			/* (a new tracee starts with a SIGSTOP: swallowed) */
			inject = sig;
		}
		ptrace(PTRACE_SYSCALL, w, NULL, (void *)(long)inject);
	}
	fflush(stdout);
	fprintf(stderr, "syscalls total=%lu\n", total);
	for (long nr = 0; nr < MAXNR; nr++) {
		char b[32];
		if (counts[nr])
			fprintf(stderr, "syscall %s=%lu\n", name_of(nr, b, sizeof(b)), counts[nr]);
	}
	return status < 0 ? 1 : status;
}
