/* SPDX-License-Identifier: GPL-2.0-or-later */
/* paths.h: where the installed data, the system-wide rc file and the user's files are. */
#ifndef PMUTOP_PATHS_H
#define PMUTOP_PATHS_H
#include <stddef.h>

/* A subdirectory of the data directory ("modes", "themes"); -1 as paths_datadir. */
int paths_data_subdir(const char *sub, char *buf, size_t len);

/* The system-wide rc file: $PMUTOP_SYSCONFDIR/pmutoprc, else /etc/pmutoprc. */
int paths_system_rc(char *buf, size_t len);

/* The user's files (the XDG Base Directory specification, the one lookup): configuration
 * under $XDG_CONFIG_HOME, else ~/.config; state (history) under $XDG_STATE_HOME, else
 * ~/.local/state. */
enum paths_user_kind { PATHS_CONFIG, PATHS_STATE };

/* $XDG_..._HOME/pmutop/NAME, else $HOME/.config/pmutop/NAME (.local/state for state); an XDG
 * value that is not absolute is ignored, as the specification says. -1 without either, or
 * when the path does not fit @len. */
int paths_user(enum paths_user_kind kind, const char *name, char *buf, size_t len);

#endif
