/* SPDX-License-Identifier: GPL-2.0-or-later */
/* safefile.c: creating the files pmutop writes without writing through a planted symbolic link. */
#include "safefile.h"
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* open(2) flags per enum safe_create */
static const int create_flags[] = {
    [SAFE_CREATE_NAMED] = O_CREAT | O_TRUNC | O_NOFOLLOW,
    [SAFE_CREATE_FORCE] = O_CREAT | O_TRUNC,
    [SAFE_CREATE_NEW] = O_CREAT | O_EXCL | O_NOFOLLOW,
};

/* Names of descriptors already open (/dev/stdout, /dev/fd/N, /proc/self/fd/N): links in
 * directories only the system writes, which nobody can plant. */
static bool names_descriptor(const char *path)
{
	static const char *const prefixes[] = {"/proc/", "/dev/fd/", "/dev/stdout", "/dev/stderr"};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(path, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

int safe_create(const char *path, enum safe_create how)
{
	int flags = create_flags[how <= SAFE_CREATE_NEW ? how : SAFE_CREATE_NAMED];
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0644);
	if (fd < 0 && errno == ELOOP && how == SAFE_CREATE_NAMED && names_descriptor(path))
		fd = open(path, O_WRONLY | O_CLOEXEC | create_flags[SAFE_CREATE_FORCE], 0644);
	return fd;
}

FILE *safe_fopen(const char *path, enum safe_create how)
{
	int fd = safe_create(path, how);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

const char *safe_create_reason(const char *path, int err)
{
	struct stat st;
	if ((err == ELOOP || err == EEXIST) && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return err == ELOOP ? "it is a symbolic link, not written through (--force writes "
				      "where it points)"
				    : "a symbolic link is in the way, not written through";
	return strerror(err);
}

int safe_replace(const char *path, int (*fill)(FILE *f, void *arg), void *arg)
{
	size_t n = strlen(path);
	char *tmp = malloc(n + 8);
	if (!tmp) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(tmp, path, n);
	memcpy(tmp + n, ".XXXXXX", 8);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int e = errno;
		free(tmp);
		errno = e;
		return -1;
	}
	FILE *f = fdopen(fd, "w");
	int rc = f ? fill(f, arg) : -1, e = errno;
	if (!f)
		close(fd);
	else if (fclose(f) != 0 && rc == 0)
		rc = -1, e = errno;
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -1, e = errno;
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	errno = e;
	return rc;
}
