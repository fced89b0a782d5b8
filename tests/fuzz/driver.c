/*
 * driver.c - a plain main() for fuzz targets, so every target also builds
 * with gcc and replays its corpus as an ordinary test: each argument is a
 * file or a directory of files, each file is fed once to
 * LLVMFuzzerTestOneInput. Any crash or sanitizer report fails the test (the
 * targets abort on a broken property). So does a replay that proves
 * nothing: no argument, an argument that does not exist, a directory that
 * cannot be read or holds no input, or an input that cannot be read.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *buf;
	long n;

	if (!f) {
		perror(path);
		return -1;
	}
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s: not a regular file\n", path);
		fclose(f);
		return -1;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "%s: cannot find its size\n", path);
		fclose(f);
		return -1;
	}
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
		fprintf(stderr, "%s: cannot read %ld bytes\n", path, n);
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

/* Replays one argument, adding the inputs replayed to *files; returns 0,
 * or -1 on a failure. */
static int run_arg(const char *arg, int *files)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int n = 0, bad = 0;

	if (stat(arg, &st) != 0) {
		perror(arg);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (run_file(arg) != 0)
			return -1;
		(*files)++;
		return 0;
	}
	if (!(d = opendir(arg))) {
		perror(arg);
		return -1;
	}
	errno = 0;
	while ((e = readdir(d))) {
		char p[4096];
		if (e->d_name[0] == '.')
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", arg, e->d_name) >= (int)sizeof(p)) {
			fprintf(stderr, "%s/%s: path too long\n", arg, e->d_name);
			bad++;
			continue;
		}
		if (run_file(p) == 0)
			n++;
		else
			bad++;
		errno = 0;
	}
	if (errno) {
		perror(arg);
		bad++;
	}
	closedir(d);
	if (n == 0 && !bad)
		fprintf(stderr, "%s: no input in the corpus directory\n", arg);
	*files += n;
	return bad || n == 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	int files = 0, failed = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		if (run_arg(argv[i], &files) != 0)
			failed++;
	}
	printf("replayed %d inputs%s\n", files, failed ? ", FAILED (see above)" : "");
	return failed || files == 0 ? 1 : 0;
}
