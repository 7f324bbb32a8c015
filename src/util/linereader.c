/* SPDX-License-Identifier: GPL-2.0-or-later */
/* linereader.c: bounded line reading (limit checked before allocating), FIFO-safe opening. */
#include "linereader.h"
#include "textutil.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIRST_CAP 4096 /* bytes: the buffer grows from here up to the line limit */

struct linereader {
	int fd;
	bool own;	/* close fd at the end */
	int orig_flags; /* of a borrowed fd, restored at the end (-1: untouched) */
	bool stream;
	bool fifo; /* a FIFO or pipe: end of file only once a writer came and went */
	unsigned flags;
	size_t max;   /* bytes per line, '\n' and a '\r' before it not counted */
	char *buf;    /* cap + 1 bytes (room for the NUL after a last line) */
	size_t cap;   /* at most max + 2: a line, its '\r' and its '\n' */
	size_t start; /* first byte of the next line */
	size_t end;   /* bytes read */
	size_t scan;  /* bytes before this have no '\n' (from start) */
	size_t next;  /* start of the line after the one returned */
	long lineno;
	bool eof, torn, failed, pushed;
	const char *line; /* last line returned (for lr_unread) */
	size_t len;
	char name[256];
	char failmsg[400];
};

static struct linereader *make(int fd, bool own, const char *name, size_t line_max, unsigned flags,
			       char *err, size_t errlen)
{
	struct linereader *lr = calloc(1, sizeof(*lr));
	if (!lr) {
		text_errorf(err, errlen, "out of memory");
		return NULL;
	}
	lr->fd = fd;
	lr->own = own;
	lr->flags = flags;
	lr->max = line_max ? line_max : 1;
	text_escape(name, TEXT_NUL_TERMINATED, lr->name, sizeof(lr->name));
	struct stat st;
	bool known = fstat(fd, &st) == 0;
	lr->fifo = known && S_ISFIFO(st.st_mode);
	lr->stream = known && (lr->fifo || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode));
	int fl = fcntl(fd, F_GETFL);
	lr->orig_flags = -1;
	if (fl >= 0) {
		int want = flags & LR_NONBLOCK ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
		if (want != fl && fcntl(fd, F_SETFL, want) == 0 && !own)
			lr->orig_flags = fl;
	}
	return lr;
}

struct linereader *lr_open(const char *path, size_t line_max, unsigned flags, char *err,
			   size_t errlen)
{
	if (strcmp(path, "-") == 0)
		return make(STDIN_FILENO, false, "-", line_max, flags, err, errlen);
	/* O_NONBLOCK: a FIFO without a writer opens at once instead of hanging in open() */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		char ep[256];
		text_escape(path, TEXT_NUL_TERMINATED, ep, sizeof(ep));
		text_errorf(err, errlen, "cannot open %s: %s", ep, strerror(errno));
		return NULL;
	}
	struct linereader *lr = make(fd, true, path, line_max, flags, err, errlen);
	if (!lr)
		close(fd);
	return lr;
}

static int fail(struct linereader *lr, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(struct linereader *lr, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(lr->failmsg, sizeof(lr->failmsg), fmt, ap);
	va_end(ap);
	lr->failed = true;
	text_errorf(err, errlen, "%s", lr->failmsg);
	return LR_ERROR;
}

static int too_long(struct linereader *lr, char *err, size_t errlen)
{
	return fail(lr, err, errlen, "%s:%ld: line longer than %zu bytes", lr->name, lr->lineno + 1,
		    lr->max);
}

/* True when a FIFO's writers have gone (Linux reports POLLHUP only once one has been there). */
static bool hung_up(const struct linereader *lr)
{
	struct pollfd p = {.fd = lr->fd, .events = POLLIN};
	return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR));
}

/* Makes room after end (moving the pending line to the front, growing up to the limit).
 * Returns the free bytes, 0 when the pending line already fills the largest buffer. */
static size_t room(struct linereader *lr)
{
	if (lr->start > 0) {
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->end -= lr->start;
		lr->scan -= lr->start;
		lr->start = 0;
	}
	size_t limit = lr->max + 2;
	if (lr->end == lr->cap && lr->cap < limit) {
		size_t nc = lr->cap ? lr->cap * 2 : FIRST_CAP;
		if (nc > limit || nc < lr->cap)
			nc = limit;
		char *b = realloc(lr->buf, nc + 1);
		if (!b)
			return 0;
		lr->buf = b;
		lr->cap = nc;
	}
	return lr->cap - lr->end;
}

/* Returns the line [start, nl) (nl == end for a last line without newline). */
static int give(struct linereader *lr, size_t nl, bool torn, const char **line, size_t *len,
		char *err, size_t errlen)
{
	size_t n = nl - lr->start;
	if (n > 0 && lr->buf[lr->start + n - 1] == '\r')
		n--;
	if (n > lr->max)
		return too_long(lr, err, errlen);
	char *s = lr->buf + lr->start;
	s[n] = '\0';
	lr->lineno++;
	if ((lr->flags & LR_TEXT) && memchr(s, '\0', n))
		return fail(lr, err, errlen, "%s:%ld: NUL byte (not a text file)", lr->name,
			    lr->lineno);
	lr->next = torn ? nl : nl + 1;
	lr->torn = torn;
	lr->line = s;
	lr->len = n;
	*line = s;
	*len = n;
	return LR_LINE;
}

int lr_next(struct linereader *lr, const char **line, size_t *len, char *err, size_t errlen)
{
	*line = NULL;
	*len = 0;
	if (lr->failed) {
		text_errorf(err, errlen, "%s", lr->failmsg);
		return LR_ERROR;
	}
	if (lr->pushed) {
		lr->pushed = false;
		lr->lineno++;
		*line = lr->line;
		*len = lr->len;
		return LR_LINE;
	}
	if (lr->line) { /* the line returned last is done with */
		lr->start = lr->scan = lr->next;
		lr->line = NULL;
	}
	for (;;) {
		char *nl = lr->scan < lr->end ? memchr(lr->buf + lr->scan, '\n', lr->end - lr->scan)
					      : NULL;
		if (nl)
			return give(lr, (size_t)(nl - lr->buf), false, line, len, err, errlen);
		lr->scan = lr->end;
		/* no newline: more than max + 1 bytes (a '\r' may still end it) cannot fit */
		if (lr->end - lr->start > lr->max + 1)
			return too_long(lr, err, errlen);
		if (lr->eof) {
			if (lr->end > lr->start)
				return give(lr, lr->end, true, line, len, err, errlen);
			return LR_EOF;
		}
		size_t space = room(lr);
		if (space == 0) {
			if (lr->cap < lr->max + 2)
				return fail(lr, err, errlen, "%s: out of memory", lr->name);
			return too_long(lr, err, errlen);
		}
		if (space > (1u << 20))
			space = 1u << 20;
		ssize_t n = read(lr->fd, lr->buf + lr->end, space);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (lr->flags & LR_NONBLOCK)
				return LR_AGAIN;
			lr_wait(lr, -1); /* someone made a blocking reader's fd non-blocking */
			continue;
		}
		if (n < 0)
			return fail(lr, err, errlen, "%s: %s", lr->name, strerror(errno));
		if (n == 0 && lr->fifo && !hung_up(lr)) {
			/* a FIFO whose writer has not come yet reads as end of file too */
			if (lr->flags & LR_NONBLOCK)
				return LR_AGAIN;
			lr_wait(lr, -1);
			continue;
		}
		if (n == 0)
			lr->eof = true;
		lr->end += (size_t)n;
	}
}

void lr_unread(struct linereader *lr)
{
	if (lr->line && !lr->pushed) {
		lr->pushed = true;
		lr->lineno--;
	}
}

void lr_set_limit(struct linereader *lr, size_t line_max) { lr->max = line_max ? line_max : 1; }
long lr_lineno(const struct linereader *lr) { return lr->lineno; }
bool lr_torn(const struct linereader *lr) { return lr->torn; }
const char *lr_name(const struct linereader *lr) { return lr->name; }
int lr_fd(const struct linereader *lr) { return lr->fd; }
bool lr_is_stream(const struct linereader *lr) { return lr->stream; }

int lr_wait(const struct linereader *lr, int timeout_ms)
{
	if (lr->eof || lr->failed || lr->pushed)
		return 1;
	struct pollfd p = {.fd = lr->fd, .events = POLLIN};
	for (;;) {
		int n = poll(&p, 1, timeout_ms);
		if (n < 0 && errno == EINTR)
			continue;
		return n != 0;
	}
}

void lr_close(struct linereader *lr)
{
	if (!lr)
		return;
	if (lr->own)
		close(lr->fd);
	else if (lr->orig_flags >= 0)
		fcntl(lr->fd, F_SETFL, lr->orig_flags);
	free(lr->buf);
	free(lr);
}

long lr_read_small(const char *path, char *buf, size_t len)
{
	if (len == 0) {
		errno = EINVAL;
		return -1;
	}
	buf[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	size_t n = 0;
	while (n < len - 1) {
		ssize_t r = read(fd, buf + n, len - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (r < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return (long)n;
}

char *lr_slurp(const char *path, size_t line_max, size_t file_max, unsigned flags, size_t *len,
	       char *err, size_t errlen)
{
	struct linereader *lr = lr_open(path, line_max, flags | LR_NONBLOCK, err, errlen);
	if (!lr)
		return NULL;
	size_t cap = 0, n = 0;
	char *out = NULL;
	const char *line;
	size_t ll;
	int rc;
	for (;;) {
		rc = lr_next(lr, &line, &ll, err, errlen);
		if (rc == LR_AGAIN) {
			if (lr_wait(lr, LR_WAIT_MS))
				continue;
			text_errorf(err, errlen,
				    "%s: no data within %d s (a FIFO without a writer?)", lr->name,
				    LR_WAIT_MS / 1000);
			rc = LR_ERROR;
		}
		if (rc != LR_LINE)
			break;
		size_t add = ll + !lr->torn;
		if (n + add > file_max) {
			text_errorf(err, errlen, "%s: larger than %zu bytes", lr->name, file_max);
			rc = LR_ERROR;
			break;
		}
		if (n + add + 1 > cap) {
			size_t nc = cap ? cap * 2 : 4096;
			while (nc < n + add + 1)
				nc *= 2;
			if (nc > file_max + 1)
				nc = file_max + 1;
			char *b = realloc(out, nc);
			if (!b) {
				text_errorf(err, errlen, "%s: out of memory", lr->name);
				rc = LR_ERROR;
				break;
			}
			out = b;
			cap = nc;
		}
		memcpy(out + n, line, ll);
		n += ll;
		if (!lr->torn)
			out[n++] = '\n';
	}
	lr_close(lr);
	if (rc == LR_ERROR) {
		free(out);
		return NULL;
	}
	if (!out && !(out = malloc(1))) {
		text_errorf(err, errlen, "out of memory");
		return NULL;
	}
	out[n] = '\0';
	if (len)
		*len = n;
	return out;
}
