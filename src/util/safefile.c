/* SPDX-License-Identifier: GPL-2.0-or-later */
/* safefile.c: creating the files pmutop writes without writing through a planted symbolic link. */
#include "safefile.h"
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
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

/* /dev/null: a device that never blocks and keeps nothing, the usual "discard this output" */
static bool is_dev_null(const struct stat *st)
{
	struct stat null;
	return S_ISCHR(st->st_mode) && stat("/dev/null", &null) == 0 && S_ISCHR(null.st_mode) &&
	       st->st_rdev == null.st_rdev;
}

/* A FIFO, device or socket where a file was asked for: writing there may block (a FIFO with no
 * reader, a terminal) or reach hardware. Refused unless --force, /dev/null and the names of
 * open descriptors excepted. */
static bool refused_kind(const struct stat *st, const char *path, enum safe_create how)
{
	return !S_ISREG(st->st_mode) && how != SAFE_CREATE_FORCE && !is_dev_null(st) &&
	       !names_descriptor(path);
}

int safe_create(const char *path, enum safe_create how)
{
	int flags = create_flags[how <= SAFE_CREATE_NEW ? how : SAFE_CREATE_NAMED];
	struct stat st;
	/* looked at before the open: opening a device can act on it */
	if (how == SAFE_CREATE_NAMED && stat(path, &st) == 0 && !S_ISDIR(st.st_mode) &&
	    refused_kind(&st, path, how)) {
		errno = ESPIPE; /* open(2) never says ESPIPE: "not a regular file, refused" */
		return -1;
	}
	/* O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of blocking the loop */
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK | flags, 0644);
	if (fd < 0 && errno == ELOOP && how == SAFE_CREATE_NAMED && names_descriptor(path))
		fd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK | create_flags[SAFE_CREATE_FORCE],
			  0644);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && refused_kind(&st, path, how)) { /* swapped in since stat */
		close(fd);
		errno = ESPIPE;
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
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
	if ((err == ESPIPE || err == ENXIO) && stat(path, &st) == 0) {
		const char *kind = S_ISFIFO(st.st_mode)	  ? "a FIFO"
				   : S_ISCHR(st.st_mode)  ? "a character device"
				   : S_ISBLK(st.st_mode)  ? "a block device"
				   : S_ISSOCK(st.st_mode) ? "a socket"
							  : NULL;
		if (kind && err == ESPIPE) {
			static char why[128];
			snprintf(why, sizeof(why),
				 "it is %s, not a regular file: not written (--force writes to it)",
				 kind);
			return why;
		}
		if (S_ISFIFO(st.st_mode)) /* --force, and nobody reads */
			return "a FIFO with no reader (not waited for)";
	}
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

/* per output: the message of its last failure, "" when it works (one run per process) */
static char output_failure[SAFE_OUT_COUNT][512];

void safe_output_failed(enum safe_output out, const char *msg)
{
	if (out < SAFE_OUT_COUNT)
		snprintf(output_failure[out], sizeof(output_failure[out]), "%s",
			 msg && *msg ? msg : "failed");
}

void safe_output_ok(enum safe_output out)
{
	if (out < SAFE_OUT_COUNT)
		output_failure[out][0] = '\0';
}

bool safe_output_unrecovered(char *buf, size_t len)
{
	for (int i = 0; i < SAFE_OUT_COUNT; i++)
		if (output_failure[i][0]) {
			snprintf(buf, len, "%s", output_failure[i]);
			return true;
		}
	return false;
}
