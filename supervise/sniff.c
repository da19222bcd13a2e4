/* SPDX-License-Identifier: BSD-3-Clause */
/* Which programs need the supervisor: the ELF and Go sniffing of the
 * program cpuset-run or the Slurm plugin is asked to run, and whether the
 * caller runs under a supervisor already (doc/supervisor.md). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "supervise/supervise.h"

static int find_prog(const char *prog, const char *path, char *out, size_t len)
{
	if (strchr(prog, '/'))
		return snprintf(out, len, "%s", prog) < (int)len ? 0 : -1;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path;; ) {
		size_t l = strcspn(p, ":");
		if (snprintf(out, len, "%.*s%s%s", (int)l, p, l ? "/" : "", prog) < (int)len &&
		    access(out, X_OK) == 0)
			return 0;
		if (!p[l])
			return -1;
		p += l + 1;
	}
}

static bool note_is_go(const unsigned char *b, size_t len)
{
	/* notes: namesz, descsz, type, name (4-aligned), desc */
	size_t o = 0;
	while (o + 12 <= len) {
		uint32_t nsz, dsz, type;
		memcpy(&nsz, b + o, 4);
		memcpy(&dsz, b + o + 4, 4);
		memcpy(&type, b + o + 8, 4);
		size_t na = (nsz + 3u) & ~3u, da = (dsz + 3u) & ~3u;
		if (o + 12 + na + da > len || na < nsz || da < dsz)
			break;
		if (nsz == 3 && !memcmp(b + o + 12, "Go", 3))
			return true;
		o += 12 + na + da;
	}
	return false;
}

static ssize_t pread_all(int fd, void *b, size_t n, off_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, (char *)b + got, n - got, off + (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -1 : (ssize_t)got;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* A 64-bit little-endian ELF (this tool's own kind): its reason or NULL. */
/* Whether one of the section headers is named .go.buildinfo: every Go
 * binary since 1.13, also without the note. */
static bool has_go_buildinfo(int fd, const Elf64_Ehdr *eh)
{
	bool go = false;
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || !eh->e_shnum || eh->e_shnum >= 4096 ||
	    eh->e_shstrndx >= eh->e_shnum)
		return false;
	Elf64_Shdr *sh = malloc(eh->e_shnum * sizeof(*sh));
	if (sh && pread_all(fd, sh, eh->e_shnum * sizeof(*sh), (off_t)eh->e_shoff) ==
			  (ssize_t)(eh->e_shnum * sizeof(*sh))) {
		Elf64_Shdr *st = &sh[eh->e_shstrndx];
		char *names = st->sh_size <= 65536 ? malloc(st->sh_size + 1) : NULL;
		if (names && pread_all(fd, names, st->sh_size, (off_t)st->sh_offset) ==
				     (ssize_t)st->sh_size) {
			names[st->sh_size] = 0;
			for (unsigned i = 0; i < eh->e_shnum && !go; i++)
				go = sh[i].sh_name < st->sh_size &&
				     !strcmp(names + sh[i].sh_name, ".go.buildinfo");
		}
		free(names);
	}
	free(sh);
	return go;
}

/* A program header's note, read: whether it is Go's build id. */
static bool note_header_is_go(int fd, const Elf64_Phdr *ph)
{
	if (ph->p_type != PT_NOTE || ph->p_filesz > 65536)
		return false;
	unsigned char *b = malloc(ph->p_filesz + 1);
	bool go = b && pread_all(fd, b, ph->p_filesz, (off_t)ph->p_offset) == (ssize_t)ph->p_filesz &&
		  note_is_go(b, ph->p_filesz);
	free(b);
	return go;
}

static const char *elf_kind(int fd)
{
	Elf64_Ehdr eh;
	if (pread_all(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum > 256)
		return NULL;
	Elf64_Phdr ph[256];
	if (pread_all(fd, ph, eh.e_phnum * sizeof(Elf64_Phdr), (off_t)eh.e_phoff) !=
	    (ssize_t)(eh.e_phnum * sizeof(Elf64_Phdr)))
		return NULL;
	bool interp = false, go = false;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_INTERP)
			interp = true;
		if (!go)
			go = note_header_is_go(fd, &ph[i]);
	}
	if (go || has_go_buildinfo(fd, &eh))
		return "Go binary";
	return interp ? NULL : "static ELF";
}

/* The programs that run another from a root file system of their own
 * (an image): the shim's path on the host may be missing there, and the
 * program inside may be static, Go or of another C library, which only
 * the supervisor reaches (doc/containers.md). By the file's name,
 * as found and as its links resolve (docker as a link to podman). */
static const char *const launchers[] = {
	"chroot", "ch-run", "podman", "crun", "runc", "youki", "apptainer",
	"singularity", "enroot", "bwrap", "systemd-nspawn", "lxc-execute",
};

/* Of those, the clients that may hand the container to a daemon
 * (dockerd, containerd), which starts it outside the caller's tree. */
static const char *const clients[] = { "docker", "nerdctl" };

static const char *launcher_name(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	for (size_t i = 0; i < sizeof(clients) / sizeof(clients[0]); i++)
		if (!strcmp(b, clients[i]))
			return SV_CONTAINER_CLIENT;
	for (size_t i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++)
		if (!strcmp(b, launchers[i]))
			return SV_CONTAINER_RUNTIME;
	return NULL;
}

const char *sv_launcher(const char *prog, const char *search)
{
	char path[PATH_MAX], real[PATH_MAX];
	const char *k;
	if (!search)
		search = getenv("PATH");
	if (find_prog(prog, search, path, sizeof(path)) < 0)
		return NULL;
	if ((k = launcher_name(path)))
		return k;
	return realpath(path, real) ? launcher_name(real) : NULL;
}

const char *sv_prog_kind(const char *prog, const char *search)
{
	const char *l = sv_launcher(prog, search);
	return l ? l : sv_prog_sniff(prog, search);
}

const char *sv_prog_sniff(const char *prog, const char *search)
{
	if (!search)
		search = getenv("PATH");
	char path[PATH_MAX];
	for (int depth = 0; depth < 4; depth++) {
		if (find_prog(prog, search, path, sizeof(path)) < 0)
			return NULL;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return NULL;
		char head[PATH_MAX + 2];
		ssize_t n = pread_all(fd, head, sizeof(head) - 1, 0);
		if (n >= 2 && head[0] == '#' && head[1] == '!') {
			/* a script: what its interpreter is */
			close(fd);
			head[n] = 0;
			char *p = head + 2;
			while (*p == ' ' || *p == '\t')
				p++;
			p[strcspn(p, " \t\n")] = 0;
			if (!*p)
				return NULL;
			static char interp[PATH_MAX];
			snprintf(interp, sizeof(interp), "%s", p);
			prog = interp;
			continue;
		}
		/* cpuset-run itself (static, its affinity calls physical by the
		 * marker) decides for the program it runs */
		struct stat a, b;
		if (fstat(fd, &a) == 0 && stat("/proc/self/exe", &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino) {
			close(fd);
			return NULL;
		}
		const char *k = elf_kind(fd);
		close(fd);
		return k;
	}
	return NULL;
}

/* The status file (/proc/PID/status) shows a seccomp filter (Seccomp: 2). */
static bool seccomp_filtered(const char *status)
{
	char line[256];
	bool yes = false;
	FILE *f = fopen(status, "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Seccomp:", 8))
			yes = strtol(line + 8, NULL, 10) == 2;
	if (f)
		fclose(f);
	return yes;
}

/* pid's environment (its start's: /proc/PID/environ) names the
 * supervisor and the kernel shows pid a seccomp filter: pid is of a
 * supervised tree (a container runtime's child, whose own environment is
 * the image's once it executes its program). */
bool sv_supervised(pid_t pid)
{
	char p[64], env[65536];
	bool in_env = false;
	snprintf(p, sizeof(p), "/proc/%d/environ", (int)pid);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, env, sizeof(env) - 1);
	if (fd >= 0)
		close(fd);
	for (ssize_t i = 0; i < n; i += (ssize_t)strnlen(env + i, (size_t)(n - i)) + 1)
		if (!strncmp(env + i, "CPUSETSHIM_SUPERVISED=", 22) && i + 22 < n && env[i + 22])
			in_env = true;
	snprintf(p, sizeof(p), "/proc/%d/status", (int)pid);
	return in_env && seccomp_filtered(p);
}

bool sv_under_supervisor(void)
{
	const char *e = getenv("CPUSETSHIM_SUPERVISED");
	return e && *e && seccomp_filtered("/proc/self/status");
}
