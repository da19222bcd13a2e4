/* lsglob PATTERN: the paths glob(3) matches, one a line; exit 1 when none
 * (a test of the listings through glibc's glob). */
#include <glob.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	glob_t g;

	if (argc != 2) {
		fprintf(stderr, "usage: lsglob PATTERN\n");
		return 2;
	}
	if (glob(argv[1], 0, NULL, &g) != 0)
		return 1;
	for (size_t i = 0; i < g.gl_pathc; i++)
		puts(g.gl_pathv[i]);
	globfree(&g);
	return 0;
}
