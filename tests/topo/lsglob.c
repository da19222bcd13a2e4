/* SPDX-License-Identifier: BSD-3-Clause */
/* lsglob PATTERN: the paths glob(3) matches, one a line; exit 1 when none.
 * lsglob -w DIR: the paths nftw(3) walks under DIR (not following links),
 * one a line. Tests of the listings through glibc's own walkers. */
#define _GNU_SOURCE
#include <ftw.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>

static int show(const char *path, const struct stat *sb, int type, struct FTW *f)
{
	(void)sb;
	(void)f;
	if (type != FTW_NS)
		puts(path);
	return 0;
}

int main(int argc, char **argv)
{
	glob_t g;

	if (argc == 3 && !strcmp(argv[1], "-w"))
		return nftw(argv[2], show, 16, FTW_PHYS) == 0 ? 0 : 1;
	if (argc != 2) {
		fprintf(stderr, "usage: lsglob PATTERN | lsglob -w DIR\n");
		return 2;
	}
	if (glob(argv[1], 0, NULL, &g) != 0)
		return 1;
	for (size_t i = 0; i < g.gl_pathc; i++)
		puts(g.gl_pathv[i]);
	globfree(&g);
	return 0;
}
