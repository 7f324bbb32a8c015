/* SPDX-License-Identifier: GPL-2.0-or-later */
/* paths.h: where the installed data and the system-wide rc file are, found at run time. */
#ifndef PMUTOP_PATHS_H
#define PMUTOP_PATHS_H
#include <stddef.h>

/* The installed data directory: $PMUTOP_DATADIR, else ../share/pmutop beside the running
 * binary (so a relocated or DESTDIR tree works). -1 when neither exists: the compiled-in
 * modes and themes are then the only ones. */
int paths_datadir(char *buf, size_t len);

/* A subdirectory of the data directory ("modes", "themes"); -1 as paths_datadir. */
int paths_data_subdir(const char *sub, char *buf, size_t len);

/* The system-wide rc file: $PMUTOP_SYSCONFDIR/pmutoprc, else /etc/pmutoprc. */
int paths_system_rc(char *buf, size_t len);

#endif
