/* SPDX-License-Identifier: GPL-2.0-or-later */
/* embedded.h: built-in copies of the mode and theme files (generated table). */
#ifndef PMUTOP_EMBEDDED_H
#define PMUTOP_EMBEDDED_H
#include <stddef.h>

struct embedded_file {
	const char *path; /* relative to the source tree, e.g. "modes/cpi.mode" */
	const char *text; /* NUL-terminated contents */
	size_t size;	  /* bytes, without the NUL */
};

/* Terminated by an entry whose path is NULL. */
extern const struct embedded_file embedded_files[];

/* Returns the file whose path is @path, or NULL. */
const struct embedded_file *embedded_find(const char *path);

#endif
