/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_linereader.c: the bounded line reader: limits, CRLF, last line, NUL bytes, FIFOs, slurp. */
#include "harness.h"
#include "linereader.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char buf[4][256];
	static int n;
	char *b = buf[n++ & 3];
	snprintf(b, 256, "%s/%s", tmpdir, name);
	return b;
}

static void write_bytes(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	fwrite(data, 1, len, f);
	fclose(f);
}

/* Reads all of @data (@len bytes) with limit @max and @flags; returns the lines joined by '|'
 * (NUL bytes as '0') and the final status in *rc, the message in @err. */
static const char *read_all(const char *data, size_t len, size_t max, unsigned flags, int *rc,
			    char *err, size_t errlen, bool *torn)
{
	static char out[4096];
	const char *path = tmp_path("in.txt");
	write_bytes(path, data, len);
	out[0] = '\0';
	err[0] = '\0';
	struct linereader *lr = lr_open(path, max, flags, err, errlen);
	if (!lr) {
		*rc = -99;
		return out;
	}
	const char *line;
	size_t n, o = 0, k = 0;
	while ((*rc = lr_next(lr, &line, &n, err, errlen)) == LR_LINE) {
		if (k++ && o < sizeof(out) - 1)
			out[o++] = '|';
		for (size_t i = 0; i < n && o < sizeof(out) - 1; i++)
			out[o++] = line[i] ? line[i] : '0';
		out[o] = '\0';
		if (torn)
			*torn = lr_torn(lr);
	}
	lr_close(lr);
	return out;
}

static const struct {
	int line;
	const char *data;
	size_t len; /* 0: strlen */
	size_t max;
	unsigned flags;
	const char *lines; /* joined by '|' */
	int rc;		   /* final status */
	const char *msg;   /* in the error (NULL: none) */
	bool torn;	   /* the last line had no newline */
} cases[] = {
    {__LINE__, "abc\ndef\n", 0, 3, 0, "abc|def", LR_EOF, NULL, false},
    {__LINE__, "abc\nabcd\n", 0, 3, 0, "abc", LR_ERROR, "in.txt:2: line longer than 3 bytes",
     false},
    {__LINE__, "abcd", 0, 3, 0, "", LR_ERROR, "in.txt:1: line longer than 3 bytes", false},
    {__LINE__, "abc\r\ndef\r\n", 0, 3, 0, "abc|def", LR_EOF, NULL, false}, /* CRLF */
    {__LINE__, "ab\r\r\n", 0, 3, 0, "ab\r", LR_EOF, NULL, false},	   /* only one CR dropped */
    {__LINE__, "abc\ndef", 0, 3, 0, "abc|def", LR_EOF, NULL, true},	   /* no final newline */
    {__LINE__, "abc\ndefg", 0, 3, 0, "abc", LR_ERROR, "in.txt:2: line longer", false},
    {__LINE__, "\n\nx\n", 0, 3, 0, "||x", LR_EOF, NULL, false}, /* empty lines */
    {__LINE__, "", 0, 3, 0, "", LR_EOF, NULL, false},
    {__LINE__, "a\0b\n", 4, 3, 0, "a0b", LR_EOF, NULL, false}, /* NUL kept */
    {__LINE__, "ok\na\0b\n", 7, 3, LR_TEXT, "ok", LR_ERROR, "in.txt:2: NUL byte", false},
    {__LINE__, "x\n", 0, 1, 0, "x", LR_EOF, NULL, false},
};

static void test_cases(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[256];
		int rc;
		bool torn = false;
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].data);
		const char *got = read_all(cases[i].data, len, cases[i].max, cases[i].flags, &rc,
					   err, sizeof(err), &torn);
		CHECK(strcmp(got, cases[i].lines) == 0, "line %d: lines \"%s\", want \"%s\"",
		      cases[i].line, got, cases[i].lines);
		CHECK(rc == cases[i].rc, "line %d: rc %d, want %d (%s)", cases[i].line, rc,
		      cases[i].rc, err);
		if (cases[i].msg)
			CHECK(strstr(err, cases[i].msg), "line %d: err \"%s\"", cases[i].line, err);
		CHECK(torn == cases[i].torn, "line %d: torn %d", cases[i].line, torn);
	}
}

/* The limit exactly, and one more, on a line far longer than the first buffer. */
static void test_exact_limit(void)
{
	size_t max = 100000;
	char *big = malloc(max + 3);
	memset(big, 'x', max + 2);
	big[max] = '\n';
	char err[256];
	int rc;
	read_all(big, max + 1, max, 0, &rc, err, sizeof(err), NULL);
	CHECK(rc == LR_EOF, "exactly the limit: rc %d %s", rc, err);
	big[max] = 'x';
	big[max + 1] = '\n';
	read_all(big, max + 2, max, 0, &rc, err, sizeof(err), NULL);
	CHECK(rc == LR_ERROR && strstr(err, ":1: line longer than 100000 bytes"), "limit+1: %s",
	      err);
	big[max] = '\r'; /* the limit plus CR LF fits */
	read_all(big, max + 2, max, 0, &rc, err, sizeof(err), NULL);
	CHECK(rc == LR_EOF, "limit + CRLF: rc %d %s", rc, err);
	free(big);
}

/* /dev/zero has no newline: the reader stops at the limit, under an address-space limit that
 * an unbounded getline() would exceed at once. */
static void test_dev_zero(void)
{
	char err[256] = "";
	struct linereader *lr = lr_open("/dev/zero", 4u << 20, 0, err, sizeof(err));
	CHECK(lr != NULL, "open /dev/zero: %s", err);
	if (!lr)
		return;
	const char *line;
	size_t n;
	int rc = lr_next(lr, &line, &n, err, sizeof(err));
	CHECK(rc == LR_ERROR && strstr(err, "/dev/zero:1: line longer than 4194304 bytes"),
	      "rc %d err %s", rc, err);
	lr_close(lr);
}

/* A FIFO without a writer: opening does not hang; a non-blocking reader says "again", a
 * whole-file read gives up after LR_WAIT_MS with a message. */
static void test_fifo(void)
{
	const char *path = tmp_path("fifo");
	if (mkfifo(path, 0600) < 0) {
		SKIP("mkfifo: cannot make a FIFO here");
		return;
	}
	char err[256] = "";
	struct linereader *lr = lr_open(path, 100, LR_NONBLOCK, err, sizeof(err));
	CHECK(lr != NULL, "open FIFO: %s", err);
	if (lr) {
		CHECK(lr_is_stream(lr), "a FIFO is a stream");
		const char *line;
		size_t n;
		int rc = lr_next(lr, &line, &n, err, sizeof(err));
		/* no writer yet: not the end, a writer may still come */
		CHECK_INT(rc, LR_AGAIN);
		lr_close(lr);
	}
	/* a writer that sends two lines, one without newline */
	lr = lr_open(path, 100, LR_NONBLOCK, err, sizeof(err));
	int w = open(path, O_WRONLY | O_NONBLOCK);
	CHECK(lr && w >= 0, "open both ends");
	if (lr && w >= 0) {
		const char *line;
		size_t n;
		CHECK_INT(lr_next(lr, &line, &n, err, sizeof(err)), LR_AGAIN);
		CHECK(write(w, "one\ntw", 6) == 6, "write");
		CHECK_INT(lr_wait(lr, 1000), 1);
		CHECK_INT(lr_next(lr, &line, &n, err, sizeof(err)), LR_LINE);
		CHECK_STR(line, "one");
		CHECK_INT(lr_next(lr, &line, &n, err, sizeof(err)), LR_AGAIN);
		CHECK(write(w, "o\n", 2) == 2, "write");
		CHECK_INT(lr_next(lr, &line, &n, err, sizeof(err)), LR_LINE);
		CHECK_STR(line, "two");
		CHECK_INT(lr_lineno(lr), 2);
		lr_unread(lr);
		CHECK_INT(lr_next(lr, &line, &n, err, sizeof(err)), LR_LINE);
		CHECK_STR(line, "two");
		CHECK_INT(lr_lineno(lr), 2);
		close(w);
		w = -1;
		CHECK_INT(lr_next(lr, &line, &n, err, sizeof(err)), LR_EOF);
	}
	if (w >= 0)
		close(w);
	lr_close(lr);
}

static void test_slurp(void)
{
	char err[256] = "";
	const char *path = tmp_path("whole.txt");
	write_bytes(path, "a\r\nbb\nc", 7);
	size_t len = 0;
	char *text = lr_slurp(path, 10, 100, LR_TEXT, &len, err, sizeof(err));
	CHECK(text && strcmp(text, "a\nbb\nc") == 0 && len == 6, "slurp: %s", text ? text : err);
	free(text);
	text = lr_slurp(path, 10, 5, LR_TEXT, &len, err, sizeof(err));
	CHECK(!text && strstr(err, "whole.txt: larger than 5 bytes"), "file limit: %s", err);
	free(text);
	text = lr_slurp(path, 1, 100, LR_TEXT, &len, err, sizeof(err));
	CHECK(!text && strstr(err, "whole.txt:2: line longer than 1 bytes"), "line limit: %s", err);
	free(text);
	text = lr_slurp("/dev/zero", 1000, 1u << 20, LR_TEXT, &len, err, sizeof(err));
	CHECK(!text && strstr(err, "/dev/zero:1: line longer than 1000 bytes"), "zero: %s", err);
	free(text);
	text = lr_slurp("/dev/urandom", LR_TEXT_LINE_MAX, LR_TEXT_FILE_MAX, LR_TEXT, &len, err,
			sizeof(err));
	CHECK(!text && (strstr(err, "/dev/urandom:") || strstr(err, "larger than")), "urandom: %s",
	      err);
	free(text);
	text = lr_slurp(tmp_path("missing"), 10, 10, 0, &len, err, sizeof(err));
	CHECK(!text && strstr(err, "cannot open"), "missing: %s", err);
	free(text);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pmutop-lr.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	/* everything below fits in 256 MB of address space; an unbounded reader would not.
	 * ASan reserves terabytes of address space, so the limit is only set without it. */
#if !defined(__SANITIZE_ADDRESS__)
	struct rlimit rl = {256u << 20, 256u << 20};
	setrlimit(RLIMIT_AS, &rl);
#else
	fprintf(stderr, "note: no address-space limit under AddressSanitizer\n");
#endif
	test_cases();
	test_exact_limit();
	test_dev_zero();
	test_fifo();
	test_slurp();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return harness_done();
}
