/* SPDX-License-Identifier: GPL-2.0-or-later */
/* history.c: command history on libedit's history(3), saved under the XDG state directory. */
/* libedit (with libbsd and libmd, ~340 KiB resident) is loaded with dlopen the first time the
 * history is used (the prompt's Up, Down or Enter), not at start: a run that never opens the
 * prompt never maps it, and leaves the history file as it was. */
#include "history.h"
#include "linereader.h"
#include "paths.h"
#include "safefile.h"
#include <dlfcn.h>
#include <errno.h>
#include <histedit.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct hist {
	History *h;	/* NULL until first used */
	bool tried;	/* libedit was asked for (h NULL then: it could not be loaded) */
	bool load_file; /* the file passed checked() at open and is read on first use */
	int size;	/* entries kept */
	char path[4096];
	bool walking;
	char *draft;   /* the line being typed when the walk started */
	char err[256]; /* why the first use failed, reported by hist_close */
};

/* libedit's three functions, resolved when it is loaded (kept loaded afterwards) */
static struct {
	History *(*init)(void);
	int (*call)(History *h, HistEvent *ev, int op, ...);
	void (*end)(History *h);
} edit;

static bool edit_load(char *err, size_t errlen)
{
	if (edit.call)
		return true;
	void *lib = dlopen(PMUTOP_EDIT_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *e = dlerror();
		snprintf(err, errlen, "%s", e ? e : PMUTOP_EDIT_SONAME " could not be loaded");
		return false;
	}
	*(void **)&edit.init = dlsym(lib, "history_init");
	*(void **)&edit.end = dlsym(lib, "history_end");
	*(void **)&edit.call = dlsym(lib, "history");
	if (!edit.init || !edit.end || !edit.call) {
		snprintf(err, errlen, "%s has no history(3)", PMUTOP_EDIT_SONAME);
		memset(&edit, 0, sizeof(edit));
		dlclose(lib);
		return false;
	}
	return true;
}

/* The history itself on first use: libedit loaded, the file read. NULL if it cannot be. */
static History *used(struct hist *h)
{
	if (h->h || h->tried)
		return h->h;
	h->tried = true;
	HistEvent ev;
	if (!edit_load(h->err, sizeof(h->err)))
		return NULL;
	if (!(h->h = edit.init())) {
		snprintf(h->err, sizeof(h->err), "out of memory");
		return NULL;
	}
	edit.call(h->h, &ev, H_SETSIZE, h->size);
	edit.call(h->h, &ev, H_SETUNIQUE, 1);
	if (h->load_file && edit.call(h->h, &ev, H_LOAD, h->path) < 0)
		snprintf(h->err, sizeof(h->err), "%.200s: cannot read the history", h->path);
	return h->h;
}

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

	if (!h) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	h->size = size > 0 ? size : 500;
	if (path)
		snprintf(h->path, sizeof(h->path), "%s", path);
	else if (paths_user(PATHS_STATE, "history", h->path, sizeof(h->path)) < 0)
		h->path[0] = '\0';
	h->load_file =
	    h->path[0] && access(h->path, F_OK) == 0 && checked(h->path, err, errlen) == 0;
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
	return edit.call(((struct hist *)arg)->h, &ev, H_SAVE_FP, f) < 0 ? -1 : 0;
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
	rc = 0;
	if (h->h) /* used: saved (unused, the file stays as it was) */
		rc = hist_save(h, err, errlen);
	else if (h->tried && h->err[0]) {
		snprintf(err, errlen, "%s", h->err);
		rc = -1;
	}
	if (h->h)
		edit.end(h->h);
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
	if (used(h))
		edit.call(h->h, &ev, H_ENTER, line);
}

const char *hist_prev(struct hist *h, const char *current)
{
	HistEvent ev;

	if (!h->walking) {
		if (!used(h) || edit.call(h->h, &ev, H_FIRST) < 0)
			return NULL;
		h->walking = true;
		free(h->draft);
		h->draft = strdup(current ? current : "");
		return ev.str;
	}
	/* H_NEXT moves to older entries; at the oldest it fails and the position stays */
	if (edit.call(h->h, &ev, H_NEXT) < 0)
		return NULL;
	return ev.str;
}

const char *hist_next(struct hist *h)
{
	HistEvent ev;

	if (!h->walking)
		return NULL;
	if (!h->h || edit.call(h->h, &ev, H_PREV) < 0) {
		h->walking = false;
		return h->draft ? h->draft : "";
	}
	return ev.str;
}

int hist_count(struct hist *h)
{
	HistEvent ev;

	if (!used(h) || edit.call(h->h, &ev, H_GETSIZE) < 0)
		return 0;
	return ev.num;
}
