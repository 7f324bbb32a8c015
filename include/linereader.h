/* SPDX-License-Identifier: GPL-2.0-or-later */
/* linereader.h: bounded line reading for every file pmutop reads: recordings, imports, config. */
#ifndef PMUTOP_LINEREADER_H
#define PMUTOP_LINEREADER_H
#include <stdbool.h>
#include <stddef.h>

/*
 * A line reader never holds more than its line limit (plus one read chunk) in memory: a line
 * longer than the limit is an error ("path:LINE: line longer than N bytes") found before the
 * rest of it is read, so /dev/zero or a 100 MB line costs at most the limit. Lines come back
 * without their '\n' and without one '\r' before it (CRLF files), NUL-terminated, with any NUL
 * bytes inside kept (the length counts them) unless LR_TEXT turns them into an error.
 *
 * Files are opened with O_NONBLOCK, so opening a FIFO that has no writer does not hang; for
 * a blocking reader the flag is then cleared again. A non-blocking reader (LR_NONBLOCK, for a
 * stream read from the run loop's poll) returns LR_AGAIN when no whole line is there yet.
 *
 * Usage for a new reader (a metric library, a group file):
 *   struct linereader *lr = lr_open(path, 4096, LR_TEXT, err, sizeof(err));
 *   const char *line; size_t len; int rc;
 *   while ((rc = lr_next(lr, &line, &len, err, sizeof(err))) == LR_LINE)
 *       parse(line, lr_lineno(lr));      // messages: "%s:%ld: ...", lr_name(lr), lr_lineno(lr)
 *   lr_close(lr);                         // rc == LR_ERROR: err says file:line: why
 * or, for a parser that wants the whole text, lr_slurp().
 */

enum lr_status {
	LR_AGAIN = -2, /* LR_NONBLOCK: no complete line yet; poll lr_fd() and call again */
	LR_ERROR = -1, /* message in err; the reader keeps returning it */
	LR_EOF = 0,
	LR_LINE = 1,
};

enum lr_flags {
	LR_TEXT = 1 << 0,     /* a NUL byte is an error ("path:LINE: NUL byte (not a text file)") */
	LR_NONBLOCK = 1 << 1, /* never wait for input: LR_AGAIN instead */
};

#define LR_TEXT_LINE_MAX (64u << 10) /* bytes: a line of a mode, theme, rc or import file */
#define LR_TEXT_FILE_MAX (1u << 20)  /* bytes: a whole mode, theme or rc file */
#define LR_WAIT_MS 10000 /* ms a whole-file read waits for a pipe or FIFO writer's data */

struct linereader;

/* Opens @path ("-" = stdin, not closed by lr_close) with lines of at most @line_max bytes.
 * NULL with "cannot open PATH: reason" in @err. */
struct linereader *lr_open(const char *path, size_t line_max, unsigned flags, char *err,
			   size_t errlen);
/* The next line into *line / *len (valid until the next call). Returns LR_LINE, LR_EOF,
 * LR_AGAIN (LR_NONBLOCK only) or LR_ERROR with "name:LINE: line longer than N bytes",
 * "name:LINE: NUL byte (not a text file)" or "name: read error" in @err. */
int lr_next(struct linereader *lr, const char **line, size_t *len, char *err, size_t errlen);
/* The line last returned comes back again from the next lr_next (one line of look-ahead). */
void lr_unread(struct linereader *lr);
/* Changes the line limit from the next line on (a format whose header tells the size). */
void lr_set_limit(struct linereader *lr, size_t line_max);
long lr_lineno(const struct linereader *lr);	  /* number of the line last returned (1-based) */
bool lr_torn(const struct linereader *lr);	  /* the last line returned had no final newline */
const char *lr_name(const struct linereader *lr); /* escaped, safe on a terminal */
int lr_fd(const struct linereader *lr);
/* True when the input is a pipe, FIFO, socket or character device (data may come late). */
bool lr_is_stream(const struct linereader *lr);
/* After LR_AGAIN: waits up to @timeout_ms (-1: no limit) for input. 1: readable or ended,
 * 0: timed out. */
int lr_wait(const struct linereader *lr, int timeout_ms);
void lr_close(struct linereader *lr);

/* Reads at most @len - 1 bytes of a small file (sysfs, procfs) into @buf, NUL-terminated,
 * without waiting (a FIFO gives what is there, maybe nothing). Returns the bytes read, or -1
 * with errno set. */
long lr_read_small(const char *path, char *buf, size_t len);

/* Reads all of @path into a NUL-terminated malloc'd buffer (*len bytes, optional): each line at
 * most @line_max bytes, the whole at most @file_max ("path: larger than N bytes"). A pipe or
 * FIFO gets LR_WAIT_MS for its data ("path: no data within 10 s (a FIFO without a writer?)").
 * NULL with the message in @err. */
char *lr_slurp(const char *path, size_t line_max, size_t file_max, unsigned flags, size_t *len,
	       char *err, size_t errlen);

#endif
