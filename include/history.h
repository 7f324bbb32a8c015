/* SPDX-License-Identifier: GPL-2.0-or-later */
/* history.h: the ':' prompt's command history on libedit's history(3), kept across runs. */
#ifndef PMUTOP_HISTORY_H
#define PMUTOP_HISTORY_H
#include <stddef.h>

struct hist; /* names avoid libedit's own history_* symbols */

/* Opens a history of at most @size entries and loads @path if it exists (NULL: the
 * default path). Returns NULL with a cause only when out of memory; an unreadable file
 * is reported in @err but still gives an empty history. */
struct hist *hist_open(const char *path, int size, char *err, size_t errlen);
/* Saves (creating the directory) and frees; -1 with a cause if saving failed. */
int hist_close(struct hist *h, char *err, size_t errlen);
/* Adds an entered line (blank lines and repeats of the newest are skipped); ends a walk. */
void hist_add(struct hist *h, const char *line);
/* Up: the previous (older) entry; the first Up of a walk remembers @current, the line
 * being typed. NULL when there is nothing older. */
const char *hist_prev(struct hist *h, const char *current);
/* Down: the next (newer) entry, then the remembered line; NULL when not walking. */
const char *hist_next(struct hist *h);
/* Ends a walk without changing anything. */
void hist_reset(struct hist *h);
int hist_count(struct hist *h);
#endif
