/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dirlist.h: the files of a directory whose names end in a suffix, sorted by name. */
#ifndef PMUTOP_DIRLIST_H
#define PMUTOP_DIRLIST_H

/* The names in @dir ending in @suffix (".mode"), longer than it and not starting with '.',
 * sorted with strcmp, at most @max of them. Returns their number and sets *@names (free with
 * dir_list_free; NULL when there are none); -1 with errno set when @dir cannot be read or memory
 * runs out; -2 when there are more than @max. */
int dir_list(const char *dir, const char *suffix, int max, char ***names);
void dir_list_free(char **names, int n);

#endif
