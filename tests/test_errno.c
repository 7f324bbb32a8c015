/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_errno.c: every perf_event_open errno becomes one sentence saying what to do. */
#include "harness.h"
#include "source.h"
#include <errno.h>

static const struct {
	int line;
	int err;
	const char *must_say; /* the advice the user needs */
} cases[] = {
    {__LINE__, EACCES, "CAP_PERFMON"},
    {__LINE__, EACCES, "perf_event_paranoid <= 0"},
    {__LINE__, EACCES, "-1 for tracepoints"},
    {__LINE__, EPERM, "exclude bit"},
    {__LINE__, ENOENT, "no such event on this PMU"},
    {__LINE__, EOPNOTSUPP, "not supported"},
    {__LINE__, EINVAL, "config1"},
    {__LINE__, EINVAL, "exclude bits"},
    {__LINE__, ENODEV, "offline"},
    {__LINE__, EMFILE, "ulimit -n"},
    {__LINE__, ENFILE, "file table"},
    {__LINE__, EBUSY, "exclusive"},
    {__LINE__, ENOSPC, "counter"},
    {__LINE__, ENXIO, "MSR"},
    {__LINE__, E2BIG, "size"},
    {__LINE__, 9999, "perf_event_open failed"},
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *hint = perf_errno_hint(cases[i].err);
		CHECK(hint && strstr(hint, cases[i].must_say),
		      "line %d: errno %d: \"%s\" lacks \"%s\"", cases[i].line, cases[i].err,
		      hint ? hint : "(null)", cases[i].must_say);
		CHECK(hint && !strchr(hint, '\n'), "line %d: one line", cases[i].line);
	}
	/* a reason is "strerror: hint" and is never cut short */
	struct backend_status st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = snprintf(st.reason, sizeof(st.reason), "%s: %s", strerror(cases[i].err),
				 perf_errno_hint(cases[i].err));
		CHECK(n > 0 && (size_t)n < sizeof(st.reason), "line %d: %d bytes cut to %zu",
		      cases[i].line, n, sizeof(st.reason));
	}
	/* distinct advice for distinct causes */
	CHECK(strcmp(perf_errno_hint(ENOENT), perf_errno_hint(EINVAL)) != 0, "ENOENT vs EINVAL");
	CHECK(strcmp(perf_errno_hint(EACCES), perf_errno_hint(EMFILE)) != 0, "EACCES vs EMFILE");
	/* raising the open-files limit never lowers it */
	long before = backend_raise_nofile();
	CHECK(before > 0 && backend_raise_nofile() == before, "RLIMIT_NOFILE stays raised (%ld)",
	      before);
	return harness_done();
}
