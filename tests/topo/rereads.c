/* SPDX-License-Identifier: BSD-3-Clause */
/* Many threads open and read the same files again and again (run under
 * the shim: the kept redirects of preload/redirect.c are filled, replaced
 * and read by every thread at once).
 *
 *     rereads THREADS ROUNDS LIST
 *
 * LIST has lines "PATH CONTENT" (CONTENT: the file's first line, what it
 * must read). Every thread reads every PATH ROUNDS times, each thread
 * starting at another line. Prints "reads N wrong M" and, for the first
 * few wrong answers, "wrong PATH: GOT"; exits 1 if any read was wrong or
 * failed. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXF 512

static char *paths[MAXF], *want[MAXF];
static int nf, rounds;
static long reads, wrong;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *reader(void *arg)
{
	long me = (long)arg, r = 0, w = 0;
	char buf[4096];

	for (int k = 0; k < rounds; k++)
		for (int j = 0; j < nf; j++) {
			int i = (int)((j + me * 7) % nf);
			int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
			ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
			if (fd >= 0)
				close(fd);
			if (n < 0) {
				snprintf(buf, sizeof(buf), "(%s)", strerror(errno));
				n = (ssize_t)strlen(buf);
			}
			buf[n] = 0;
			buf[strcspn(buf, "\n")] = 0;
			r++;
			if (strcmp(buf, want[i]) != 0) {
				pthread_mutex_lock(&lock);
				if (wrong + w < 5)
					printf("wrong %s: %s (want %s)\n", paths[i], buf, want[i]);
				pthread_mutex_unlock(&lock);
				w++;
			}
		}
	pthread_mutex_lock(&lock);
	reads += r;
	wrong += w;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	char line[8192];
	pthread_t t[64];

	if (argc != 4) {
		fprintf(stderr, "usage: rereads THREADS ROUNDS LIST\n");
		return 2;
	}
	int nt = atoi(argv[1]);
	rounds = atoi(argv[2]);
	FILE *f = fopen(argv[3], "r");
	if (nt < 1 || nt > 64 || rounds < 1 || !f) {
		fprintf(stderr, "rereads: bad arguments\n");
		return 2;
	}
	while (nf < MAXF && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *sp = strchr(line, ' ');
		if (!sp)
			continue;
		*sp = 0;
		paths[nf] = strdup(line);
		want[nf] = strdup(sp + 1);
		nf++;
	}
	fclose(f);
	if (!nf) {
		fprintf(stderr, "rereads: no files listed\n");
		return 2;
	}
	for (long i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, reader, (void *)i);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	printf("reads %ld wrong %ld\n", reads, wrong);
	for (int i = 0; i < nf; i++) {
		free(paths[i]);
		free(want[i]);
	}
	return wrong ? 1 : 0;
}
