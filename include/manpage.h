/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manpage.h: the manual pages, written from the same tables as --help and :help. */
#ifndef PMUTOP_MANPAGE_H
#define PMUTOP_MANPAGE_H
#include "options.h"
#include <stdio.h>

/* Writes @s as roff text: backslashes and minus signs escaped, no control line. */
void manpage_text(FILE *out, const char *s);

/* Copies the template at @path to @out, replacing the lines @OPTIONS@, @COMMANDS@,
 * @SCREEN_COMMANDS@, @SETTINGS@ and @KEYS@ with the tables of @prog and @VERSION@ anywhere
 * with the version. Returns 0, or -1 with a message in @err. */
int manpage_write(FILE *out, const char *path, enum options_program prog, char *err, size_t errlen);

#endif
