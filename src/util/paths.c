/* SPDX-License-Identifier: GPL-2.0-or-later */
/* paths.c: the installed data directory (relative to the binary), the system rc file and the
 * user's XDG directories. */
#include "paths.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int fits(int n, size_t len) { return n >= 0 && (size_t)n < len ? 0 : -1; }

/* The installed data directory: $PMUTOP_DATADIR, else ../share/pmutop beside the running
 * binary (so a relocated or DESTDIR tree works). -1 when neither exists: the compiled-in
 * modes and themes are then the only ones. */
static int paths_datadir(char *buf, size_t len)
{
	const char *env = getenv("PMUTOP_DATADIR");
	if (env && *env)
		return fits(snprintf(buf, len, "%s", env), len);

	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = '\0'; /* the binary's directory, normally PREFIX/bin */
	if (fits(snprintf(buf, len, "%s/../share/pmutop", exe), len) < 0 || !is_dir(buf))
		return -1;
	return 0;
}

int paths_data_subdir(const char *sub, char *buf, size_t len)
{
	char dir[4096];
	if (paths_datadir(dir, sizeof(dir)) < 0)
		return -1;
	return fits(snprintf(buf, len, "%s/%s", dir, sub), len);
}

int paths_user(enum paths_user_kind kind, const char *name, char *buf, size_t len)
{
	const char *xdg = getenv(kind == PATHS_STATE ? "XDG_STATE_HOME" : "XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	if (xdg && xdg[0] == '/')
		return fits(snprintf(buf, len, "%s/pmutop/%s", xdg, name), len);
	if (home && *home)
		return fits(snprintf(buf, len, "%s/%s/pmutop/%s", home,
				     kind == PATHS_STATE ? ".local/state" : ".config", name),
			    len);
	return -1;
}

int paths_system_rc(char *buf, size_t len)
{
	const char *env = getenv("PMUTOP_SYSCONFDIR");
	return fits(snprintf(buf, len, "%s/pmutoprc", env && *env ? env : "/etc"), len);
}
