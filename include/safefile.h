/* SPDX-License-Identifier: GPL-2.0-or-later */
/* safefile.h: creating the files pmutop writes without writing through a planted symbolic link. */
#ifndef PMUTOP_SAFEFILE_H
#define PMUTOP_SAFEFILE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* How a file is created. */
enum safe_create {
	SAFE_CREATE_NAMED, /* a name the user gave (-r FILE, :record, :export): created or
			    * truncated; a symbolic link there is refused (O_NOFOLLOW), except
			    * the names of open descriptors (/dev/stdout, /dev/fd/N, /proc/...) */
	SAFE_CREATE_FORCE, /* the same with --force: a symbolic link is followed */
	SAFE_CREATE_NEW,   /* a name pmutop chose (flight recordings, a rotated recording): it
			    * must not exist, not even as a link (O_EXCL|O_NOFOLLOW); EEXIST means
			    * the caller picks the next name */
};

/* Opens @path for writing (mode 0644, close-on-exec) as @how says, never blocking: a FIFO,
 * device or socket is refused unless SAFE_CREATE_FORCE (/dev/null and the names of open
 * descriptors excepted), and a forced FIFO without a reader fails at once. Returns the
 * descriptor (blocking), or -1 with errno (ELOOP: @path is a symbolic link and @how is
 * SAFE_CREATE_NAMED; ESPIPE: not a regular file; ENXIO: a FIFO without a reader). */
int safe_create(const char *path, enum safe_create how);
/* The same as a stdio stream ("w"). */
FILE *safe_fopen(const char *path, enum safe_create how);
/* Why safe_create(@path) failed with @err, as a sentence for "PATH: ..." (a refused symbolic link
 * says so and names --force). */
const char *safe_create_reason(const char *path, int err);

/* Replaces @path with what @fill puts into a stream: written to a new file beside it (mkstemp:
 * O_EXCL, mode 0600, never through a link), then renamed over @path, so a symbolic link at @path
 * is replaced, never written through, and a reader never sees half a file. @fill returns 0 or
 * -1. Returns 0, or -1 with errno. */
int safe_replace(const char *path, int (*fill)(FILE *f, void *arg), void *arg);

/* The outputs a user names, for the exit status: one that failed and never recovered (a new
 * :record that works recovers the recording, a later flight recording the flight recorder)
 * makes the run end with status 1. */
enum safe_output { SAFE_OUT_RECORD, SAFE_OUT_FLIGHT, SAFE_OUT_EXPORT, SAFE_OUT_COUNT };
/* @out failed with @msg (which names the path and the reason). */
void safe_output_failed(enum safe_output out, const char *msg);
/* @out was written: a failure before is over. */
void safe_output_ok(enum safe_output out);
/* The first output that failed and never recovered: its message in @buf, true; else false. */
bool safe_output_unrecovered(char *buf, size_t len);

#endif
