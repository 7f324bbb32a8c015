/* SPDX-License-Identifier: GPL-2.0-or-later */
/* embedded.c: lookup in the generated table of built-in files. */
#include "embedded.h"
#include <string.h>

const struct embedded_file *embedded_find(const char *path)
{
	for (const struct embedded_file *f = embedded_files; f->path; f++)
		if (strcmp(f->path, path) == 0)
			return f;
	return NULL;
}
