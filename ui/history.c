/* SPDX-License-Identifier: GPL-2.0-or-later */
/* history.c: command history on libedit's history(3), saved under the XDG state directory. */
#include "history.h"
#include "linereader.h"
#include "paths.h"
#include "safefile.h"
#include <errno.h>
#include <histedit.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct hist {
	History *h;
	char path[4096];
	bool walking;
	char *draft; /* the line being typed when the walk started */
};

/* libedit reads the history with unbounded lines: first make sure it is a small text file
 * (regular, lines and size bounded as for the rc file). -1 with the reason in @err. */
static int checked(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file, history not read", path);
		return -1;
	}
	char why[512];
	char *text =
	    lr_slurp(path, LR_TEXT_LINE_MAX, LR_TEXT_FILE_MAX, LR_TEXT, NULL, why, sizeof(why));
	if (!text) {
		snprintf(err, errlen, "%s; history not read", why);
		return -1;
	}
	free(text);
	return 0;
}

struct hist *hist_open(const char *path, int size, char *err, size_t errlen)
{
	struct hist *h = calloc(1, sizeof(*h));
	HistEvent ev;

	if (!h || !(h->h = history_init())) {
		free(h);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	history(h->h, &ev, H_SETSIZE, size > 0 ? size : 500);
	history(h->h, &ev, H_SETUNIQUE, 1);
	if (path)
		snprintf(h->path, sizeof(h->path), "%s", path);
	else if (paths_user(PATHS_STATE, "history", h->path, sizeof(h->path)) < 0)
		h->path[0] = '\0';
	if (h->path[0] && access(h->path, F_OK) == 0 && checked(h->path, err, errlen) == 0 &&
	    history(h->h, &ev, H_LOAD, h->path) < 0)
		snprintf(err, errlen, "%s: cannot read the history", h->path);
	return h;
}

/* mkdir -p of the directory part of @path. */
static int make_parent(const char *path)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

static int save_to(FILE *f, void *arg)
{
	HistEvent ev;
	return history(((struct hist *)arg)->h, &ev, H_SAVE_FP, f) < 0 ? -1 : 0;
}

/* Written beside the file and renamed over it: a symbolic link planted there is replaced,
 * never written through. */
static int hist_save(struct hist *h, char *err, size_t errlen)
{
	if (!h->path[0]) {
		snprintf(err, errlen, "no history file (HOME is not set)");
		return -1;
	}
	if (make_parent(h->path) < 0) {
		snprintf(err, errlen, "%s: %s", h->path, strerror(errno));
		return -1;
	}
	if (safe_replace(h->path, save_to, h) < 0) {
		snprintf(err, errlen, "%s: cannot write the history: %s", h->path, strerror(errno));
		return -1;
	}
	return 0;
}

int hist_close(struct hist *h, char *err, size_t errlen)
{
	int rc;

	if (!h)
		return 0;
	rc = hist_save(h, err, errlen);
	history_end(h->h);
	free(h->draft);
	free(h);
	return rc;
}

void hist_reset(struct hist *h)
{
	h->walking = false;
	free(h->draft);
	h->draft = NULL;
}

void hist_add(struct hist *h, const char *line)
{
	HistEvent ev;

	hist_reset(h);
	if (!line[strspn(line, " \t")])
		return;
	history(h->h, &ev, H_ENTER, line);
}

const char *hist_prev(struct hist *h, const char *current)
{
	HistEvent ev;

	if (!h->walking) {
		if (history(h->h, &ev, H_FIRST) < 0)
			return NULL;
		h->walking = true;
		free(h->draft);
		h->draft = strdup(current ? current : "");
		return ev.str;
	}
	/* H_NEXT moves to older entries; at the oldest it fails and the position stays */
	if (history(h->h, &ev, H_NEXT) < 0)
		return NULL;
	return ev.str;
}

const char *hist_next(struct hist *h)
{
	HistEvent ev;

	if (!h->walking)
		return NULL;
	if (history(h->h, &ev, H_PREV) < 0) {
		h->walking = false;
		return h->draft ? h->draft : "";
	}
	return ev.str;
}

int hist_count(struct hist *h)
{
	HistEvent ev;

	if (history(h->h, &ev, H_GETSIZE) < 0)
		return 0;
	return ev.num;
}
