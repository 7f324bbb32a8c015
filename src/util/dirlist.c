/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dirlist.c: the files of a directory whose names end in a suffix, sorted by name. */
#include "dirlist.h"
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void dir_list_free(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int dir_list(const char *dir, const char *suffix, int max, char ***names)
{
	size_t slen = strlen(suffix);
	char **v = NULL;
	int n = 0, rc = 0;
	*names = NULL;
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	for (struct dirent *de; rc == 0 && (de = readdir(d));) {
		size_t len = strlen(de->d_name);
		if (len <= slen || de->d_name[0] == '.' ||
		    strcmp(de->d_name + len - slen, suffix) != 0)
			continue;
		if (n == max) {
			rc = -2;
			break;
		}
		char **grown = realloc(v, (size_t)(n + 1) * sizeof(*v));
		char *copy = grown ? strdup(de->d_name) : NULL;
		if (grown)
			v = grown;
		if (!copy) {
			rc = -1;
			break;
		}
		v[n++] = copy;
	}
	int saved = errno;
	closedir(d);
	if (rc < 0) {
		dir_list_free(v, n);
		errno = rc == -1 ? (saved ? saved : ENOMEM) : 0;
		return rc;
	}
	if (n)
		qsort(v, (size_t)n, sizeof(*v), cmp_name);
	*names = v;
	return n;
}
