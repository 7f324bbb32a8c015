/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_dirlist.c: directory listings by suffix: sorted, hidden files left out, bounded. */
#include "dirlist.h"
#include "harness.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/pmutop-dirlist-XXXXXX";
static const char *const files[] = {"zeta.mode", "alpha.mode", ".hidden.mode", ".mode",
				    "notes.txt", "mode",       "beta.mode.bak"};

int main(void)
{
	CHECK(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[160];
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		FILE *f = fopen(path, "w");
		CHECK(f && fclose(f) == 0, "creating %s", path);
	}
	char **names;
	int n = dir_list(dir, ".mode", 16, &names);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_STR(names[0], "alpha.mode");
		CHECK_STR(names[1], "zeta.mode");
	}
	dir_list_free(names, n);
	CHECK_INT(dir_list(dir, ".txt", 16, &names), 1);
	dir_list_free(names, 1);
	/* more files than allowed: an error, nothing returned */
	CHECK_INT(dir_list(dir, ".mode", 1, &names), -2);
	CHECK(names == NULL, "names after -2");
	CHECK_INT(dir_list(dir, ".json", 16, &names), 0);
	char missing[160];
	snprintf(missing, sizeof(missing), "%s/no-such-dir", dir);
	errno = 0;
	CHECK_INT(dir_list(missing, ".mode", 16, &names), -1);
	CHECK_INT(errno, ENOENT);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[160];
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
	return harness_done();
}
