/* SPDX-License-Identifier: GPL-2.0-or-later */
/* harness.h: a tiny table-friendly test harness; prints "N passed, N failed, N skipped". */
#ifndef PMUTOP_TEST_HARNESS_H
#define PMUTOP_TEST_HARNESS_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int harness_passed, harness_failed, harness_skipped;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (cond) {                                                                        \
			harness_passed++;                                                          \
		} else {                                                                           \
			harness_failed++;                                                          \
			fprintf(stderr, "%s:%d: FAIL: %s: ", __FILE__, __LINE__, #cond);           \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
	} while (0)

#define CHECK_INT(got, want)                                                                       \
	do {                                                                                       \
		long long g_ = (long long)(got), w_ = (long long)(want);                           \
		CHECK(g_ == w_, "%s = %lld, want %lld", #got, g_, w_);                             \
	} while (0)

#define CHECK_STR(got, want)                                                                       \
	do {                                                                                       \
		const char *g_ = (got), *w_ = (want);                                              \
		CHECK(g_ &&w_ &&strcmp(g_, w_) == 0, "%s = \"%s\", want \"%s\"", #got,             \
		      g_ ? g_ : "(null)", w_ ? w_ : "(null)");                                     \
	} while (0)

#define CHECK_NEAR(got, want, tol)                                                                 \
	do {                                                                                       \
		double g_ = (got), w_ = (want);                                                    \
		CHECK(fabs(g_ - w_) <= (tol), "%s = %.9g, want %.9g (+-%g)", #got, g_, w_,         \
		      (double)(tol));                                                              \
	} while (0)

/* Records one skipped check, with its reason. */
#define SKIP(...)                                                                                  \
	do {                                                                                       \
		harness_skipped++;                                                                 \
		fprintf(stderr, "%s:%d: SKIP: ", __FILE__, __LINE__);                              \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fputc('\n', stderr);                                                               \
	} while (0)

/* Prints the summary; exit status 1 on failure, 77 when everything skipped. */
static inline int harness_done(void)
{
	printf("%d passed, %d failed, %d skipped\n", harness_passed, harness_failed,
	       harness_skipped);
	if (harness_failed)
		return 1;
	if (harness_passed == 0 && harness_skipped > 0)
		return 77;
	return 0;
}

#define HARNESS_MAX_ARGS 64 /* argv entries harness_argv fills, the NULL included */
/* The argv of a run for options_parse: "pmutop", then the words of @args (split at blanks, no
 * quoting) copied into @buf; words past HARNESS_MAX_ARGS - 2 are dropped. Returns argc. */
static inline int harness_argv(const char *args, char *buf, size_t len, char **argv)
{
	int argc = 0;
	snprintf(buf, len, "%s", args);
	argv[argc++] = "pmutop";
	for (char *save = NULL, *w = strtok_r(buf, " ", &save); w && argc < HARNESS_MAX_ARGS - 1;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	return argc;
}

/* Path of a file under tests/ (tests run with tests/ as working directory). */
static inline const char *harness_src(void)
{
	const char *s = getenv("PMUTOP_SRC");
	return s ? s : "..";
}
#endif
