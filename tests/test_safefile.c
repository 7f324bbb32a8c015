/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_safefile.c: files are never written through a planted symbolic link, nor onto a FIFO or
 * device unless forced; outputs that failed for good. */
#include "harness.h"
#include "safefile.h"
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/pmutop-safefile-XXXXXX";

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "writing %s", path);
}

/* The whole file, or "" when it cannot be read. */
static const char *get(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

static bool is_link(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

static int write_new(FILE *f, void *arg) { return fputs(arg, f) >= 0 ? 0 : -1; }

int main(void)
{
	if (!mkdtemp(dir)) {
		SKIP("mkdtemp failed");
		return harness_done();
	}
	char target[128], link[128], dangling[128], nowhere[128], plain[128];
	path_of(target, sizeof(target), "target");
	path_of(link, sizeof(link), "link");
	path_of(dangling, sizeof(dangling), "dangling");
	path_of(nowhere, sizeof(nowhere), "nowhere");
	path_of(plain, sizeof(plain), "plain");
	put(target, "precious\n");
	CHECK_INT(symlink(target, link), 0);
	CHECK_INT(symlink(nowhere, dangling), 0);

	/* a name the user gave: a link is refused, the reason says so and names --force */
	errno = 0;
	CHECK_INT(safe_create(link, SAFE_CREATE_NAMED), -1);
	int e = errno;
	CHECK_INT(e, ELOOP);
	const char *why = safe_create_reason(link, e);
	CHECK(strstr(why, "symbolic link") && strstr(why, "--force"), "reason: %s", why);
	CHECK(safe_fopen(dangling, SAFE_CREATE_NAMED) == NULL && errno == ELOOP, "dangling link");
	CHECK(access(nowhere, F_OK) != 0, "the dangling link's target was not created");
	CHECK_STR(get(target), "precious\n");
	CHECK(is_link(link), "the link stays");
	/* ... a plain file is created or truncated */
	put(plain, "old contents\n");
	FILE *f = safe_fopen(plain, SAFE_CREATE_NAMED);
	CHECK(f && fputs("new\n", f) >= 0 && fclose(f) == 0, "plain file rewritten");
	CHECK_STR(get(plain), "new\n");
	CHECK(strcmp(safe_create_reason(plain, EACCES), strerror(EACCES)) == 0,
	      "other errors are strerror");
	int fd;

	/* the name of an open descriptor is a link nobody can plant: it is written */
	char fdname[64], viafd[128];
	path_of(viafd, sizeof(viafd), "viafd");
	int memfd = open(viafd, O_WRONLY | O_CREAT, 0644);
	snprintf(fdname, sizeof(fdname), "/proc/self/fd/%d", memfd);
	fd = safe_create(fdname, SAFE_CREATE_NAMED);
	CHECK(memfd >= 0 && fd >= 0, "%s refused: %s", fdname, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (memfd >= 0)
		close(memfd);
	errno = 0;
	CHECK_INT(safe_create(fdname, SAFE_CREATE_NEW), -1);

	/* --force: the link is followed */
	f = safe_fopen(link, SAFE_CREATE_FORCE);
	CHECK(f && fputs("forced\n", f) >= 0 && fclose(f) == 0, "forced through the link");
	CHECK_STR(get(target), "forced\n");
	put(target, "precious\n");

	/* a name pmutop chose: it must be new, a link or a file in the way is EEXIST */
	errno = 0;
	CHECK_INT(safe_create(link, SAFE_CREATE_NEW), -1);
	CHECK_INT(errno, EEXIST);
	errno = 0;
	CHECK_INT(safe_create(dangling, SAFE_CREATE_NEW), -1);
	CHECK_INT(errno, EEXIST);
	CHECK(access(nowhere, F_OK) != 0, "no file created where the dangling link points");
	errno = 0;
	CHECK_INT(safe_create(plain, SAFE_CREATE_NEW), -1);
	CHECK_INT(errno, EEXIST);
	CHECK_STR(get(plain), "new\n");
	char fresh[128];
	path_of(fresh, sizeof(fresh), "fresh");
	fd = safe_create(fresh, SAFE_CREATE_NEW);
	CHECK(fd >= 0, "a new name is created: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	CHECK_STR(get(target), "precious\n");

	/* replacing: a link at the name is replaced by a private regular file */
	CHECK_INT(safe_replace(link, write_new, "replaced\n"), 0);
	CHECK(!is_link(link), "the link was replaced");
	CHECK_STR(get(link), "replaced\n");
	CHECK_STR(get(target), "precious\n");
	struct stat st;
	CHECK(stat(link, &st) == 0 && (st.st_mode & 0777) == 0600, "mode %o", st.st_mode & 0777);
	char missing[160];
	path_of(missing, sizeof(missing), "no-such-dir/file");
	CHECK_INT(safe_replace(missing, write_new, "x"), -1);

	/* a FIFO nobody reads: refused at once (the open never blocks), even with --force */
	char fifo[128];
	path_of(fifo, sizeof(fifo), "fifo");
	CHECK_INT(mkfifo(fifo, 0600), 0);
	errno = 0;
	CHECK_INT(safe_create(fifo, SAFE_CREATE_NAMED), -1);
	e = errno;
	why = safe_create_reason(fifo, e);
	CHECK(strstr(why, "a FIFO, not a regular file") && strstr(why, "--force"), "%s", why);
	errno = 0;
	CHECK_INT(safe_create(fifo, SAFE_CREATE_FORCE), -1);
	e = errno;
	CHECK_INT(e, ENXIO);
	CHECK_STR(safe_create_reason(fifo, e), "a FIFO with no reader (not waited for)");
	/* ... with a reader: refused unless --force, then written */
	int rd = open(fifo, O_RDONLY | O_NONBLOCK);
	CHECK(rd >= 0, "reader: %s", strerror(errno));
	CHECK_INT(safe_create(fifo, SAFE_CREATE_NAMED), -1);
	fd = safe_create(fifo, SAFE_CREATE_FORCE);
	CHECK(fd >= 0 && write(fd, "x", 1) == 1, "forced FIFO: %s", strerror(errno));
	CHECK(fd < 0 || !(fcntl(fd, F_GETFL) & O_NONBLOCK), "the descriptor blocks again");
	if (fd >= 0)
		close(fd);
	if (rd >= 0)
		close(rd);
	/* devices: refused unless --force, /dev/null excepted; nothing is opened */
	errno = 0;
	if (access("/dev/full", W_OK) == 0) {
		CHECK_INT(safe_create("/dev/full", SAFE_CREATE_NAMED), -1);
		why = safe_create_reason("/dev/full", errno);
		CHECK(strstr(why, "a character device"), "%s", why);
	} else {
		SKIP("/dev/full is not writable here");
	}
	fd = safe_create("/dev/null", SAFE_CREATE_NAMED);
	CHECK(fd >= 0, "/dev/null: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	/* the names of open descriptors: written, whatever they are */
	int pfd[2];
	CHECK_INT(pipe(pfd), 0);
	snprintf(fdname, sizeof(fdname), "/dev/fd/%d", pfd[1]);
	fd = safe_create(fdname, SAFE_CREATE_NAMED);
	CHECK(fd >= 0, "%s: %s", fdname, strerror(errno));
	if (fd >= 0)
		close(fd);
	close(pfd[0]);
	close(pfd[1]);

	/* outputs that failed and never recovered */
	char msg[128];
	CHECK(!safe_output_unrecovered(msg, sizeof(msg)), "nothing failed yet");
	safe_output_failed(SAFE_OUT_RECORD, "recording x stopped: boom");
	CHECK(safe_output_unrecovered(msg, sizeof(msg)), "a failure");
	CHECK_STR(msg, "recording x stopped: boom");
	safe_output_ok(SAFE_OUT_FLIGHT);
	CHECK(safe_output_unrecovered(msg, sizeof(msg)),
	      "another output's success recovers nothing");
	safe_output_ok(SAFE_OUT_RECORD);
	CHECK(!safe_output_unrecovered(msg, sizeof(msg)), "recovered");

	unlink(fifo);
	unlink(target);
	unlink(link);
	unlink(dangling);
	unlink(plain);
	unlink(fresh);
	unlink(viafd);
	rmdir(dir);
	return harness_done();
}
