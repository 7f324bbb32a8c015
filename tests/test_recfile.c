/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_recfile.c: recording writer/reader: round trip, crash safety, I/O errors, bad files. */
#include "harness.h"
#include "recfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

static const char *fixture(const char *name)
{
	static char buf[512];
	snprintf(buf, sizeof(buf), "%s/tests/fixtures/rec/%s", harness_src(), name);
	return buf;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

/* ---- escaping ---- */

static const struct {
	int line;
	const char *in;
	size_t len;
	const char *out;
} escape_cases[] = {
    {__LINE__, "cycles", 64, "cycles"},
    {__LINE__, "\x1b[2J", 64, "\\x1b[2J"},
    {__LINE__, "a\\b", 64, "a\\\\b"},
    {__LINE__, "tab\there\r\n", 64, "tab\\x09here\\x0d\\x0a"},
    {__LINE__, "caf\xc3\xa9 \xe2\x82\xac", 64, "caf\xc3\xa9 \xe2\x82\xac"},
    {__LINE__,
     "\xc2\x9b"
     "6n",
     64, "\\xc2\\x9b6n"}, /* C1 CSI */
    {__LINE__, "\xff\xfe", 64, "\\xff\\xfe"},
    {__LINE__, "\xc0\xaf", 64, "\\xc0\\xaf"}, /* overlong '/' */
    {__LINE__, "\xe2\x82", 64, "\\xe2\\x82"}, /* cut sequence */
    {__LINE__, "\x7f", 64, "\\x7f"},
    {__LINE__, "abcdef", 4, "abc"},
    {__LINE__, "ab\x1b", 6, "ab"}, /* the escape does not fit: dropped whole */
    {__LINE__, "", 8, ""},
};

static void test_escape(void)
{
	for (size_t i = 0; i < sizeof(escape_cases) / sizeof(escape_cases[0]); i++) {
		char out[128];
		rec_escape(escape_cases[i].in, out, escape_cases[i].len);
		CHECK(strcmp(out, escape_cases[i].out) == 0, "line %d: got \"%s\"",
		      escape_cases[i].line, out);
	}
}

/* ---- helpers to build records ---- */

static void make_header(struct rec_header *h, int ncpus)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->host, sizeof(h->host), "testhost \"quoted\"");
	snprintf(h->kernel, sizeof(h->kernel), "6.1.0-test");
	snprintf(h->pmu, sizeof(h->pmu), "cpu");
	snprintf(h->family, sizeof(h->family), "skl");
	snprintf(h->model, sizeof(h->model), "Intel(R) Test CPU");
	snprintf(h->backend, sizeof(h->backend), "perf");
	h->interval_ms = 1000;
	h->start_time = 1700000000;
	h->ncpus = ncpus;
	h->cpus = calloc((size_t)ncpus, sizeof(*h->cpus));
	for (int i = 0; i < ncpus; i++) {
		h->cpus[i].cpu = i * 2; /* 0,2,4,...: not contiguous on purpose */
		snprintf(h->cpus[i].core_type, REC_NAME_MAX, "%s", i ? "cpu_atom" : "cpu_core");
	}
}

static struct rec_event events2[2] = {
    {.name = "cycles",
     .spec = "perf::CYCLES",
     .has_encoding = true,
     .type = 4,
     .config = 0x3c,
     .config1 = 0xffffffffffffffffull,
     .config2 = 1ull << 63,
     .exclude = REC_EXCL_HV | REC_EXCL_GUEST},
    {.name = "instructions", .spec = "perf::INSTRUCTIONS"},
};

static void make_tick(struct rec_tick *t, const struct rec_header *h, int n, uint64_t base)
{
	rec_tick_alloc(t, h->ncpus, n);
	t->t = 1.0 + base;
	t->interval_ms = 1000.125;
	for (int c = 0; c < h->ncpus; c++) {
		t->cpus[c].cpu = h->cpus[c].cpu;
		for (int e = 0; e < n; e++) {
			t->cpus[c].c[e].present = true;
			t->cpus[c].c[e].raw = (struct raw_count){
			    base * 100 + (uint64_t)e, base * 1000000000ull, base * 500000000ull};
		}
	}
}

/* ---- round trip ---- */

static void test_round_trip(void)
{
	const char *path = tmp_path("rt.jsonl");
	char err[256] = "";
	struct rec_writer *w = rec_writer_open(path, NULL, err, sizeof(err));
	CHECK(w != NULL, "open: %s", err);
	if (!w)
		return;
	struct rec_header h;
	make_header(&h, 3);
	struct rec_mode m = {.t = 0.25, .name = "cpi", .nevents = 2, .events = events2};
	CHECK_INT(rec_writer_write_header(w, &h, err, sizeof(err)), 0);
	/* tick before mode is a caller error that leaves the writer usable */
	struct rec_tick t;
	make_tick(&t, &h, 2, 1);
	CHECK_INT(rec_writer_write_tick(w, &t, err, sizeof(err)), -1);
	CHECK(!rec_writer_failed(w), "writer failed on a caller error");
	CHECK_INT(rec_writer_write_mode(w, &m, err, sizeof(err)), 0);
	/* extreme values: 0, 2^53+1, 2^63, 2^63+x, UINT64_MAX; absent; offline */
	t.cpus[0].c[0].raw = (struct raw_count){0, 0, 0};
	t.cpus[0].c[1].raw = (struct raw_count){(1ull << 53) + 1, INT64_MAX, (1ull << 63)};
	t.cpus[1].c[0].raw = (struct raw_count){(1ull << 63) + 12345, UINT64_MAX, UINT64_MAX - 1};
	t.cpus[1].c[1].present = false;
	t.cpus[2].offline = true;
	CHECK_INT(rec_writer_write_tick(w, &t, err, sizeof(err)), 0);
	struct rec_mark mk = {.t = 1.5, .text = "phase 2 \"start\" \xc3\xa9\x1b[0m"};
	CHECK_INT(rec_writer_write_mark(w, &mk, err, sizeof(err)), 0);
	struct rec_tick t2;
	make_tick(&t2, &h, 2, 2);
	CHECK_INT(rec_writer_write_tick(w, &t2, err, sizeof(err)), 0);
	/* a mode switch to a one-event mode, then a tick of that shape */
	struct rec_mode m1 = {.t = 2.5, .name = "one", .nevents = 1, .events = &events2[1]};
	CHECK_INT(rec_writer_write_mode(w, &m1, err, sizeof(err)), 0);
	CHECK_INT(rec_writer_write_tick(w, &t2, err, sizeof(err)), -1); /* 2 counters: refused */
	struct rec_tick t3;
	make_tick(&t3, &h, 1, 3);
	CHECK_INT(rec_writer_write_tick(w, &t3, err, sizeof(err)), 0);
	CHECK_INT(rec_writer_ticks(w), 3);
	CHECK_INT(rec_writer_close(w, err, sizeof(err)), 0);

	struct rec_file f;
	int rc = rec_load(path, &f, err, sizeof(err));
	CHECK(rc == 0, "load: %s", err);
	if (rc == 0) {
		CHECK_INT(f.header.version, REC_FORMAT_VERSION);
		CHECK_STR(f.header.host, h.host);
		CHECK_STR(f.header.kernel, h.kernel);
		CHECK_STR(f.header.family, "skl");
		CHECK_STR(f.header.model, h.model);
		CHECK_STR(f.header.backend, "perf");
		CHECK_STR(f.header.pmutop, PMUTOP_VERSION);
		CHECK_INT(f.header.interval_ms, 1000);
		CHECK_INT(f.header.start_time, 1700000000);
		CHECK_INT(f.header.simulated, 0);
		CHECK_INT(f.header.ncpus, 3);
		CHECK_INT(f.header.cpus[2].cpu, 4);
		CHECK_STR(f.header.cpus[0].core_type, "cpu_core");
		CHECK_STR(f.header.cpus[2].core_type, "cpu_atom");
		CHECK_INT(f.nmodes, 2);
		/* t2 follows counters at UINT64_MAX: count, enabled and running all go back, as
		 * after a reset: a gap (kept, its deltas invalid), said with the line */
		CHECK_INT(f.nticks, 3);
		CHECK_INT(f.nmarks, 1);
		CHECK_INT(f.nwarnings, 1);
		CHECK(f.nwarnings == 1 &&
			  strstr(f.warnings[0], "rt.jsonl:5: tick: CPU 0 counter 2 and 1 more: "
						"counters reset") &&
			  strstr(f.warnings[0], "; a gap"),
		      "warning: %s", f.nwarnings ? f.warnings[0] : "");
		CHECK_STR(f.modes[0].name, "cpi");
		CHECK_NEAR(f.modes[0].t, 0.25, 1e-9);
		CHECK_INT(f.modes[0].nevents, 2);
		const struct rec_event *e = &f.modes[0].events[0];
		CHECK_STR(e->name, "cycles");
		CHECK_STR(e->spec, "perf::CYCLES");
		CHECK(e->has_encoding && e->type == 4 && e->config == 0x3c &&
			  e->config1 == UINT64_MAX && e->config2 == 1ull << 63,
		      "encoding lost");
		CHECK_INT(e->exclude, REC_EXCL_HV | REC_EXCL_GUEST);
		CHECK(!f.modes[0].events[1].has_encoding, "null encoding read as present");
		const struct rec_tick *r = &f.ticks[0];
		CHECK_INT(r->mode, 0);
		CHECK_INT(r->nevents, 2);
		CHECK_INT(r->ncpus, 3);
		CHECK_NEAR(r->t, 2.0, 1e-9);
		CHECK_NEAR(r->interval_ms, 1000.125, 1e-9);
		CHECK(r->cpus[0].c[0].present && r->cpus[0].c[0].raw.value == 0, "zero lost");
		CHECK(r->cpus[0].c[1].raw.value == (1ull << 53) + 1, "2^53+1 not exact");
		CHECK(r->cpus[0].c[1].raw.enabled == INT64_MAX, "INT64_MAX not exact");
		CHECK(r->cpus[0].c[1].raw.running == 1ull << 63, "2^63 not exact");
		CHECK(r->cpus[1].c[0].raw.value == (1ull << 63) + 12345, "2^63+x not exact");
		CHECK(r->cpus[1].c[0].raw.enabled == UINT64_MAX, "UINT64_MAX not exact");
		CHECK(r->cpus[1].c[0].raw.running == UINT64_MAX - 1, "UINT64_MAX-1 not exact");
		CHECK(!r->cpus[1].c[1].present, "absent counter read as present");
		CHECK(r->cpus[2].offline && r->cpus[2].cpu == 4, "offline lost");
		CHECK(!r->cpus[2].c[0].present, "offline CPU has a counter");
		CHECK_STR(f.marks[0].text, mk.text);
		CHECK_NEAR(f.marks[0].t, 1.5, 1e-9);
		CHECK_INT(f.ticks[2].mode, 1);
		CHECK_INT(f.ticks[2].nevents, 1);
		CHECK_INT(f.ticks[2].cpus[0].c[0].raw.enabled, 3000000000ll);
		rec_file_free(&f);
	}
	/* a big value must be a JSON string (jansson's integers are int64), small ones integers */
	FILE *fp = fopen(path, "r");
	char line[4096];
	int found_str = 0, found_int = 0;
	while (fp && fgets(line, sizeof(line), fp)) {
		found_str |= strstr(line, "\"9223372036854788153\"") != NULL;
		found_int |= strstr(line, "[9007199254740993,") != NULL;
	}
	if (fp)
		fclose(fp);
	CHECK(found_str, "2^63+12345 not written as a decimal string");
	CHECK(found_int, "2^53+1 not written as an integer");
	rec_tick_free(&t);
	rec_tick_free(&t2);
	rec_tick_free(&t3);
	rec_header_free(&h);
}

/* ---- fixtures and bad files ---- */

static void test_good_fixture(void)
{
	char err[256] = "";
	struct rec_reader *r = rec_reader_open(fixture("good.jsonl"), err, sizeof(err));
	CHECK(r != NULL, "%s", err);
	if (!r)
		return;
	static const struct {
		int line;
		enum rec_kind kind;
		int file_line;
	} want[] = {
	    {__LINE__, REC_HEADER, 1}, {__LINE__, REC_MODE, 2}, {__LINE__, REC_TICK, 3},
	    {__LINE__, REC_MARK, 5},   {__LINE__, REC_TICK, 6}, {__LINE__, REC_TICK, 7},
	    {__LINE__, REC_EOF, 0},
	};
	struct rec_record rec;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		enum rec_kind k = rec_reader_next(r, &rec, err, sizeof(err));
		CHECK(k == want[i].kind, "line %d: kind %d (%s)", want[i].line, k, err);
		if (k == REC_TICK && want[i].file_line == 7) {
			CHECK(rec.u.tick.cpus[1].c[0].raw.value == UINT64_MAX, "string counter");
			CHECK(rec.u.tick.cpus[1].c[1].present, "present counter");
			struct count c;
			struct raw_count z = {0, 0, 0};
			count_delta(&z, &rec.u.tick.cpus[1].c[1].raw, 64, &c);
			CHECK_INT(c.state, COUNT_NOT_COUNTED);
		}
		if (k == REC_TICK && want[i].file_line == 6)
			CHECK(rec.u.tick.cpus[1].offline && !rec.u.tick.cpus[1].c[0].present,
			      "offline CPU without \"c\"");
		if (k == REC_HEADER) {
			CHECK_STR(rec.u.header.model, "85");
			CHECK_STR(rec.u.header.cpus[1].core_type, "cpu_atom");
		}
		if (k != REC_EOF)
			CHECK_INT(rec.line, want[i].file_line);
		rec_record_free(&rec);
	}
	CHECK_INT(rec_reader_nwarnings(r), 1);
	const char *wmsg = rec_reader_warning(r, 0);
	CHECK(wmsg && strstr(wmsg, "good.jsonl:4: unknown record type 'spike' skipped"),
	      "warning: %s", wmsg ? wmsg : "(none)");
	rec_reader_close(r);
}

static void test_fixture_errors(void)
{
	char err[256] = "";
	struct rec_file f;
	/* torn last line: ignored with a warning */
	int rc = rec_load(fixture("truncated.jsonl"), &f, err, sizeof(err));
	CHECK(rc == 0, "truncated: %s", err);
	if (rc == 0) {
		CHECK_INT(f.nticks, 1);
		CHECK_INT(f.nwarnings, 1);
		CHECK(f.nwarnings == 1 && strstr(f.warnings[0], "truncated.jsonl:4: last line is "
								"incomplete"),
		      "warning: %s", f.nwarnings ? f.warnings[0] : "");
		rec_file_free(&f);
	}
	/* a line that does not parse between good ones: skipped with its line number */
	rc = rec_load(fixture("corrupt.jsonl"), &f, err, sizeof(err));
	CHECK(rc == 0, "corrupt: %s", err);
	if (rc == 0) {
		CHECK_INT(f.nticks, 2);
		CHECK(f.nwarnings == 1 && strstr(f.warnings[0], "corrupt.jsonl:4: corrupt line") &&
			  strstr(f.warnings[0], "skipped"),
		      "warning: %s", f.nwarnings ? f.warnings[0] : "");
		rec_file_free(&f);
	}
	static const struct {
		int line;
		const char *file;
		const char *msg;
	} cases[] = {
	    {__LINE__, "future.jsonl",
	     "future.jsonl:1: format version 3 is newer than this pmutop understands (2)"},
	    {__LINE__, "missing.jsonl", "cannot open"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		rc = rec_load(fixture(cases[i].file), &f, err, sizeof(err));
		CHECK(rc == -1 && strstr(err, cases[i].msg), "line %d: rc %d, err \"%s\"",
		      cases[i].line, rc, err);
		CHECK_INT(f.nticks, 0);
	}
	/* hostile strings are stored as read and come out of rec_escape harmless */
	rc = rec_load(fixture("hostile.jsonl"), &f, err, sizeof(err));
	CHECK(rc == 0, "hostile: %s", err);
	if (rc == 0) {
		char out[256];
		const char *strs[] = {f.header.host, f.modes[0].name, f.modes[0].events[0].name,
				      f.modes[0].events[0].spec, f.marks[0].text};
		for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
			rec_escape(strs[i], out, sizeof(out));
			CHECK(!strpbrk(out, "\x1b\x07\r\n") && !strstr(out, "\xc2\x9b"),
			      "string %zu not escaped: %s", i, out);
		}
		rec_escape(f.modes[0].events[0].name, out, sizeof(out));
		CHECK_STR(out, "cyc\\x1b[31mles\\x0d\\x0a");
		rec_file_free(&f);
	}
}

#define HDR "{\"type\":\"header\",\"format\":\"pmutop-recording\",\"version\":1,\"cpus\":[0,1]}\n"
#define HDR2 "{\"type\":\"header\",\"format\":\"pmutop-recording\",\"version\":2,\"cpus\":[0,1]}\n"
#define MODE                                                                                       \
	"{\"type\":\"mode\",\"t\":0,\"name\":\"cpi\",\"events\":[{\"name\":\"a\"},{\"name\":"      \
	"\"b\"}]}\n"
#define TICK(c0)                                                                                   \
	"{\"type\":\"tick\",\"t\":1,\"interval_ms\":1000,\"cpus\":[{\"cpu\":0,\"c\":" c0 "}]}\n"

static const struct {
	int line;
	const char *text;
	const char *msg; /* NULL: must load; "warn:TEXT": loads without ticks, warning TEXT */
} bad_cases[] = {
    {__LINE__, "", "empty file"},
    {__LINE__, "time,CPU0,1,,cycles\n", "bad.jsonl:1: not a pmutop recording"},
    {__LINE__, TICK("[]"), "bad.jsonl:1: not a pmutop recording (first record is 'tick'"},
    {__LINE__, "{\"type\":\"header\",\"format\":\"other\",\"version\":1,\"cpus\":[0]}\n",
     "not a pmutop recording (format \"other\")"},
    {__LINE__, "{\"type\":\"header\",\"format\":\"pmutop-recording\",\"cpus\":[0]}\n",
     "header has no \"version\""},
    {__LINE__,
     "{\"type\":\"header\",\"format\":\"pmutop-recording\",\"version\":\"1\",\"cpus\":[0]}\n",
     "\"version\" must be an integer"},
    {__LINE__, "{\"type\":\"header\",\"format\":\"pmutop-recording\",\"version\":1}\n",
     "header has no \"cpus\""},
    {__LINE__,
     "{\"type\":\"header\",\"format\":\"pmutop-recording\",\"version\":1,\"cpus\":[0,0]}\n",
     "distinct CPU numbers"},
    {__LINE__,
     "{\"type\":\"header\",\"format\":\"pmutop-recording\",\"version\":1,\"cpus\":[99999]}\n",
     "distinct CPU numbers"},
    {__LINE__,
     "{\"type\":\"header\",\"format\":\"pmutop-recording\",\"version\":1,\"cpus\":[0],\"host\":5}"
     "\n",
     "\"host\" must be a string"},
    {__LINE__,
     "{\"type\":\"header\",\"format\":\"pmutop-recording\",\"version\":1,\"cpus\":[0],"
     "\"aggregated_cpus\":1.5}\n",
     "header: \"aggregated_cpus\" must be an integer"},
    {__LINE__,
     "{\"type\":\"header\",\"format\":\"pmutop-recording\",\"version\":1,\"cpus\":[0],"
     "\"aggregated_cpus\":-2}\n",
     "header: \"aggregated_cpus\" = -2 is out of range"},
    {__LINE__, HDR HDR, "bad.jsonl:2: second header"},
    {__LINE__, HDR TICK("[[1,2,3],[1,2,3]]"), "warn:bad.jsonl:2: tick before any mode record"},
    {__LINE__, HDR MODE TICK("[[1,2,3],[1,2,3],[1,2,3]]"),
     "warn:bad.jsonl:3: tick has 3 counters but mode 'cpi' has 2 events"},
    {__LINE__, HDR MODE TICK("[[1,2,3],[-1,2,3]]"),
     "warn:bad.jsonl:3: tick: CPU 0 counter 2 is negative"},
    {__LINE__, HDR MODE TICK("[[1,2,3],[1.5,2,3]]"), "warn:must be an integer"},
    {__LINE__, HDR MODE TICK("[[1,2,3],[18446744073709551616,2,3]]"),
     "warn:bad.jsonl:3: corrupt line"},
    {__LINE__, HDR MODE TICK("[[1,2,3],[\"18446744073709551616\",2,3]]"),
     "warn:does not fit in 64 bits"},
    {__LINE__, HDR MODE TICK("[[1,2,3],[\"12x\",2,3]]"), "warn:is not an unsigned integer"},
    {__LINE__, HDR MODE TICK("[[1,2,3],[1,2]]"), "warn:must be [value,enabled,running] or null"},
    {__LINE__, HDR MODE TICK("[[1,2,3],true]"), "warn:must be [value,enabled,running] or null"},
    {__LINE__, HDR MODE TICK("{}"), "warn:\"c\" must be a list"},
    {__LINE__,
     HDR MODE
     "{\"type\":\"tick\",\"t\":1,\"interval_ms\":1,\"cpus\":[{\"cpu\":7,\"c\":[null,null]}]}\n",
     "warn:CPU 7 is not in the header's CPU list"},
    {__LINE__,
     HDR MODE
     "{\"type\":\"tick\",\"t\":1,\"interval_ms\":1,\"cpus\":[{\"cpu\":-1,\"c\":[null,null]}]}\n",
     "warn:\"cpu\" = -1 is out of range"},
    {__LINE__,
     HDR MODE "{\"type\":\"tick\",\"t\":1,\"interval_ms\":1,\"cpus\":[{\"cpu\":1,\"c\":[null,null]}"
	      ",{\"cpu\":1,\"c\":[null,null]}]}\n",
     "warn:CPU 1 appears twice"},
    {__LINE__, HDR MODE "{\"type\":\"tick\",\"interval_ms\":1,\"cpus\":[]}\n",
     "warn:tick has no \"t\""},
    {__LINE__, HDR MODE "{\"type\":\"tick\",\"t\":\"1\",\"interval_ms\":1,\"cpus\":[]}\n",
     "warn:\"t\" must be a number"},
    {__LINE__, HDR "{\"type\":\"mode\",\"t\":0,\"name\":\"x\",\"events\":[]}\n", "list of 1 to"},
    {__LINE__,
     HDR
     "{\"type\":\"mode\",\"t\":0,\"name\":\"x\",\"events\":[{\"name\":\"a\"},{\"name\":\"a\"}]}\n",
     "lists event 'a' twice"},
    /* each list's members: objects, with what they need, named by their place */
    {__LINE__, HDR "{\"type\":\"mode\",\"t\":0,\"name\":\"x\",\"events\":[{\"name\":\"a\"},3]}\n",
     "bad.jsonl:2: event 2 of mode 'x' must be an object"},
    {__LINE__, HDR "{\"type\":\"mode\",\"t\":0,\"name\":\"x\",\"events\":[{\"name\":\"\"}]}\n",
     "bad.jsonl:2: event 1 has an empty name"},
    {__LINE__,
     HDR "{\"type\":\"mode\",\"t\":0,\"name\":\"x\",\"events\":[{\"name\":\"a\"}],\"metrics\":["
	 "{\"name\":\"m\",\"formula\":\"a\"},[]]}\n",
     "bad.jsonl:2: metric 2 of mode 'x' must be an object"},
    {__LINE__,
     HDR "{\"type\":\"mode\",\"t\":0,\"name\":\"x\",\"events\":[{\"name\":\"a\"}],\"metrics\":["
	 "{\"name\":\"m\",\"formula\":\"\"}]}\n",
     "bad.jsonl:2: metric 1 of mode 'x' needs a name and a formula"},
    {__LINE__,
     HDR "{\"type\":\"mode\",\"t\":0,\"name\":\"x\",\"events\":[{\"name\":\"a\"}],\"metrics\":["
	 "{\"formula\":\"a\"}]}\n",
     "metric 1 has no \"name\""},
    {__LINE__,
     HDR "{\"type\":\"mode\",\"t\":0,\"name\":\"x\",\"events\":[{\"name\":\"a\"}],\"metrics\":"
	 "{}}\n",
     "bad.jsonl:2: mode 'x': \"metrics\" must be a list of at most"},
    {__LINE__,
     HDR "{\"type\":\"mode\",\"t\":0,\"name\":\"x\",\"events\":[{\"name\":\"a\",\"encoding\":{"
	 "\"type\":0,\"config\":\"zz\"}}]}\n",
     "is not an unsigned integer"},
    {__LINE__,
     HDR "{\"type\":\"mode\",\"t\":0,\"name\":\"\\u001b[2Jx\",\"events\":[{\"name\":\"a\"}]}\n"
	 "{\"type\":\"tick\",\"t\":1,\"interval_ms\":1,\"cpus\":[{\"cpu\":0,\"c\":[null,null]}]}\n",
     "warn:mode '\\x1b[2Jx' has 1 events"},
    {__LINE__, HDR "{\"type\":\"cpus\",\"t\":1,\"cpus\":[0,2],\"topology\":{\"2\":[0,0,0,1,3]}}\n",
     "warn:cpus: \"topology\" must map listed CPU numbers to [socket"},
    {__LINE__,
     HDR2 "{\"type\":\"cpus\",\"t\":1,\"cpus\":[0,2],\"topology\":{\"3\":[0,0,0,1,3,0]}}\n",
     "warn:cpus: \"topology\" must map listed CPU numbers"},
    {__LINE__, HDR "{\"type\":\"mark\",\"t\":1}\n", "warn:mark has no \"text\""},
    {__LINE__, HDR "[1,2]\n", "warn:record has no \"type\""},
    {__LINE__, HDR "{\"type\":\"mark\",\"t\":1,\"text\":\"a\",\"text\":\"b\"}\n",
     "warn:corrupt line"},
    {__LINE__, HDR "{\"type\":\"mark\",\"t\":1,\"text\":\"a\\u0000b\"}\n", "warn:corrupt line"},
    /* good ones */
    {__LINE__, HDR MODE TICK("[[1,2,3],null]") "\n\n", NULL},
    {__LINE__, HDR MODE TICK("[[1,2,3],[\"0\",\"18446744073709551615\",0]]"), NULL},
    {__LINE__, HDR MODE "{\"type\":\"tick\",\"t\":1,\"interval_ms\":1,\"cpus\":[]}\n", NULL},
    {__LINE__, HDR "{\"type\":\"spike\"}\n{\"type\":\"mark\",\"t\":1,\"text\":\"x\",\"new\":[1]}",
     NULL},
};

static void test_bad_inputs(void)
{
	const char *path = tmp_path("bad.jsonl");
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		char err[256] = "";
		struct rec_file f;
		write_file(path, bad_cases[i].text);
		int rc = rec_load(path, &f, err, sizeof(err));
		const char *warn = bad_cases[i].msg && strncmp(bad_cases[i].msg, "warn:", 5) == 0
				       ? bad_cases[i].msg + 5
				       : NULL;
		if (!bad_cases[i].msg || warn) {
			CHECK(rc == 0, "line %d: %s", bad_cases[i].line, err);
			if (rc == 0 && warn) {
				CHECK(f.nticks == 0 && f.nwarnings == 1 &&
					  strstr(f.warnings[0], warn) &&
					  strstr(f.warnings[0], "skipped"),
				      "line %d: %d ticks, warning \"%s\"", bad_cases[i].line,
				      f.nticks, f.nwarnings ? f.warnings[0] : "");
			} else if (rc == 0) {
				CHECK(f.nwarnings == 0 || strstr(bad_cases[i].text, "spike"),
				      "line %d: warning %s", bad_cases[i].line,
				      f.nwarnings ? f.warnings[0] : "");
			}
			if (rc == 0)
				rec_file_free(&f);
			continue;
		}
		CHECK(rc == -1 && strstr(err, bad_cases[i].msg), "line %d: rc %d, err \"%s\"",
		      bad_cases[i].line, rc, err);
		CHECK(f.nticks == 0 && f.modes == NULL, "line %d: output not empty",
		      bad_cases[i].line);
	}
}

/* A tick that cannot follow the last good one is skipped, and the tick after it is compared
 * with (and its delta based on) the last good one, not the skipped one. */
#define T2(t, a, b)                                                                                \
	"{\"type\":\"tick\",\"t\":" #t ",\"interval_ms\":1000,\"cpus\":[{\"cpu\":0,\"c\":[" a      \
	"," b "]}]}\n"
static const struct {
	int line;
	const char *bad;  /* the tick between two good ones */
	const char *warn; /* its warning */
} consistency_cases[] = {
    {__LINE__, T2(2, "[50,2000,2000]", "[100,2000,1000]"), "CPU 0 counter 1: count goes back"},
    {__LINE__, T2(2, "[200,1500,5000]", "[100,2000,1000]"),
     "CPU 0 counter 1: running time exceeds enabled time"},
    {__LINE__, T2(2, "[200,500,500]", "[100,2000,1000]"), "counter 1: enabled time goes back"},
    {__LINE__, T2(2, "[200,2000,900]", "[100,2000,1000]"), "running time goes back"},
    {__LINE__, T2(2, "[200,2000,2000]", "[100,3000,3000000]"),
     "counter 2: running time exceeds enabled time"},
    {__LINE__, T2(0.5, "[200,2000,2000]", "[100,2000,1000]"), "time does not advance"},
    {__LINE__, T2(2, "[200,2000,2000]", "[100,2000]"), "must be [value,enabled,running]"},
    {__LINE__, T2(2, "[200,2000,2000]", "[\"x\",2000,2000]"), "is not an unsigned integer"},
    {__LINE__, T2(2, "[200,2000,2000]", "[100,2000,2000],[1,1,1]"),
     "tick has 3 counters but mode 'cpi' has 2 events"},
    {__LINE__, "{\"type\":\"tick\",\"t\":2,\"cpus\":[{\"cpu\":0,\"c\":[[200,2000,2000]\n",
     "corrupt line"},
};

static void test_consistency(void)
{
	const char *path = tmp_path("skip.jsonl");
	const char *good1 = T2(1, "[100,1000,1000]", "[60,1000,500]");
	const char *good2 = T2(3, "[400,3000,3000]", "[160,3000,1500]");
	for (size_t i = 0; i < sizeof(consistency_cases) / sizeof(consistency_cases[0]); i++) {
		char text[4096], err[256] = "";
		snprintf(text, sizeof(text), "%s%s%s%s%s", HDR, MODE, good1,
			 consistency_cases[i].bad, good2);
		write_file(path, text);
		struct rec_file f;
		int rc = rec_load(path, &f, err, sizeof(err));
		CHECK(rc == 0, "line %d: %s", consistency_cases[i].line, err);
		if (rc != 0)
			continue;
		CHECK(f.nticks == 2 && f.nwarnings == 1 &&
			  strstr(f.warnings[0], "skip.jsonl:4: ") &&
			  strstr(f.warnings[0], consistency_cases[i].warn) &&
			  strstr(f.warnings[0], "skipped"),
		      "line %d: %d ticks, warning \"%s\"", consistency_cases[i].line, f.nticks,
		      f.nwarnings ? f.warnings[0] : "");
		if (f.nticks == 2) {
			/* the next tick keeps its own values: its delta is taken from tick 1 */
			CHECK_NEAR(f.ticks[1].t, 3, 1e-9);
			CHECK_INT(f.ticks[1].cpus[0].c[0].raw.value, 400);
			CHECK_INT(f.ticks[1].cpus[0].c[1].raw.running, 1500);
		}
		rec_file_free(&f);
	}
	/* 32-bit counters wrap: a smaller value is a wrap, not a step back */
	char text[4096], err[256] = "";
	snprintf(text, sizeof(text), "%s%s%s%s",
		 "{\"type\":\"header\",\"format\":\"pmutop-recording\",\"version\":1,"
		 "\"cpus\":[0,1],\"counter_bits\":32}\n",
		 MODE, T2(1, "[4294967000,1000,1000]", "null"), T2(2, "[100,2000,2000]", "null"));
	write_file(path, text);
	struct rec_file f;
	int rc = rec_load(path, &f, err, sizeof(err));
	CHECK(rc == 0 && f.nticks == 2 && f.nwarnings == 0, "wrap: rc %d ticks %d %s", rc,
	      rc == 0 ? f.nticks : -1, rc == 0 && f.nwarnings ? f.warnings[0] : err);
	if (rc == 0)
		rec_file_free(&f);
}

/* ---- crash safety and I/O errors ---- */

static void write_preamble(struct rec_writer *w, struct rec_header *h, struct rec_mode *m)
{
	char err[256];
	make_header(h, 2);
	*m = (struct rec_mode){.t = 0, .name = "cpi", .nevents = 2, .events = events2};
	rec_writer_write_header(w, h, err, sizeof(err));
	rec_writer_write_mode(w, m, err, sizeof(err));
}

/* ---- the sampling ring's counts per CPU (lost, throttled ns, throttling episodes) ---- */

/* A tick of CPU 0 with counter @a and the ring member @ring (JSON text). */
#define TR(t, a, ring)                                                                             \
	"{\"type\":\"tick\",\"t\":" #t ",\"interval_ms\":1000,\"cpus\":[{\"cpu\":0,\"c\":[" a      \
	",null],\"ring\":" ring "}]}\n"
static const struct {
	int line;
	const char *bad;  /* the tick between two good ones, or NULL: @ring is fine */
	const char *warn; /* its warning */
} ring_cases[] = {
    {__LINE__, TR(2, "[200,2000,2000]", "[5,1000,2,7]"), "must be [lost,throttled_ns,throttles]"},
    {__LINE__, TR(2, "[200,2000,2000]", "{\"lost\":5}"), "must be [lost,throttled_ns,throttles]"},
    {__LINE__, TR(2, "[200,2000,2000]", "[-1,1000,2]"), "ring count 1 must be an integer"},
    {__LINE__, TR(2, "[200,2000,2000]", "[5,1000.5,2]"), "ring count 2 must be an integer"},
    {__LINE__, TR(2, "[200,2000,2000]", "[5,1000,\"2\"]"), "ring count 3 must be an integer"},
    {__LINE__, TR(2, "[200,2000,2000]", "[9007199254740993,1000,2]"),
     "ring count 1 must be an integer 0..9007199254740992"},
    {__LINE__, TR(2, "[200,2000,2000]", "[18446744073709551615,1000,2]"),
     "too big integer"}, /* the JSON parser refuses it: a corrupt line */
    /* counts go back while the counters go on: not a reset */
    {__LINE__, TR(2, "[200,2000,2000]", "[0,1000,2]"), "CPU 0 ring count 1 goes back"},
    {__LINE__, TR(2, "[200,2000,2000]", "[5,1000,0]"), "CPU 0 ring count 3 goes back"},
};

static void test_ring(void)
{
	/* round trip: a CPU with ring counts, one without (a tick can mix them) */
	const char *path = tmp_path("ring.jsonl");
	char err[256] = "";
	struct rec_writer *w = rec_writer_open(path, NULL, err, sizeof(err));
	CHECK(w != NULL, "open: %s", err);
	if (!w)
		return;
	struct rec_header h;
	struct rec_mode m;
	write_preamble(w, &h, &m);
	struct rec_tick t;
	make_tick(&t, &h, 2, 1);
	t.cpus[0].has_ring = true;
	t.cpus[0].ring[RING_LOST] = 7;
	t.cpus[0].ring[RING_THROTTLED_NS] = 123456789;
	t.cpus[0].ring[RING_THROTTLES] = 3;
	CHECK_INT(rec_writer_write_tick(w, &t, err, sizeof(err)), 0);
	rec_tick_free(&t);
	CHECK_INT(rec_writer_close(w, err, sizeof(err)), 0);
	FILE *fp = fopen(path, "r");
	char line[4096], tick[4096] = "";
	while (fp && fgets(line, sizeof(line), fp))
		if (strstr(line, "\"tick\""))
			snprintf(tick, sizeof(tick), "%s", line);
	if (fp)
		fclose(fp);
	CHECK(strstr(tick, "\"c\":[[100,1000000000,500000000],[101,1000000000,500000000]],"
			   "\"ring\":[7,123456789,3]}") != NULL,
	      "tick line: %s", tick);
	struct rec_file f;
	int rc = rec_load(path, &f, err, sizeof(err));
	CHECK(rc == 0 && f.nticks == 1 && f.nwarnings == 0, "load: %s", err);
	if (rc == 0 && f.nticks == 1) {
		CHECK(f.ticks[0].cpus[0].has_ring, "CPU 0 has ring counts");
		CHECK_INT(f.ticks[0].cpus[0].ring[RING_LOST], 7);
		CHECK_INT(f.ticks[0].cpus[0].ring[RING_THROTTLED_NS], 123456789);
		CHECK_INT(f.ticks[0].cpus[0].ring[RING_THROTTLES], 3);
		CHECK(!f.ticks[0].cpus[1].has_ring, "CPU 2 has none");
		struct rec_tick copy;
		CHECK_INT(rec_tick_copy(&copy, &f.ticks[0]), 0);
		CHECK(copy.cpus[0].has_ring && copy.cpus[0].ring[RING_THROTTLED_NS] == 123456789,
		      "copy keeps the ring counts");
		rec_tick_free(&copy);
	}
	if (rc == 0)
		rec_file_free(&f);
	rec_header_free(&h);

	/* bad ring counts: the tick is skipped with the reason, the next one follows the last good
	 */
	const char *good1 = TR(1, "[100,1000,1000]", "[5,1000,2]");
	const char *good2 = TR(3, "[400,3000,3000]", "[9,2000001000,4]");
	for (size_t i = 0; i < sizeof(ring_cases) / sizeof(ring_cases[0]); i++) {
		char text[4096];
		snprintf(text, sizeof(text), "%s%s%s%s%s", HDR2, MODE, good1, ring_cases[i].bad,
			 good2);
		write_file(path, text);
		rc = rec_load(path, &f, err, sizeof(err));
		CHECK(rc == 0, "line %d: %s", ring_cases[i].line, err);
		if (rc != 0)
			continue;
		CHECK(f.nticks == 2 && f.nwarnings == 1 &&
			  strstr(f.warnings[0], ring_cases[i].warn) &&
			  strstr(f.warnings[0], "skipped"),
		      "line %d: %d ticks, warning \"%s\"", ring_cases[i].line, f.nticks,
		      f.nwarnings ? f.warnings[0] : "");
		if (f.nticks == 2)
			CHECK_INT(f.ticks[1].cpus[0].ring[RING_THROTTLED_NS], 2000001000);
		rec_file_free(&f);
	}
	/* the counts start again with the counters (a reopened ring): a reset, not an error */
	char text[4096];
	snprintf(text, sizeof(text), "%s%s%s%s", HDR2, MODE, good1, TR(2, "[3,10,10]", "[0,0,0]"));
	write_file(path, text);
	rc = rec_load(path, &f, err, sizeof(err));
	CHECK(rc == 0 && f.nticks == 2, "reset: rc %d %s", rc, err);
	if (rc == 0)
		rec_file_free(&f);
}

static void test_kill9(void)
{
	const char *path = tmp_path("kill.jsonl");
	unlink(path);
	pid_t pid = fork();
	if (pid == 0) {
		char err[256];
		struct rec_writer *w = rec_writer_open(path, NULL, err, sizeof(err));
		if (!w)
			_exit(2);
		struct rec_header h;
		struct rec_mode m;
		write_preamble(w, &h, &m);
		for (uint64_t i = 1;; i++) {
			struct rec_tick t;
			make_tick(&t, &h, 2, i);
			rec_writer_write_tick(w, &t, err, sizeof(err));
			rec_tick_free(&t);
		}
	}
	/* wait until a few hundred ticks are on disk (bounded wait), then kill -9 */
	struct stat st;
	for (int i = 0; i < 2000; i++) {
		if (stat(path, &st) == 0 && st.st_size > 100000)
			break;
		struct timespec ts = {0, 5000000};
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	int status;
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "child not killed");
	char err[256] = "";
	struct rec_file f;
	int rc = rec_load(path, &f, err, sizeof(err));
	CHECK(rc == 0, "after kill -9: %s", err);
	if (rc != 0)
		return;
	CHECK(f.nticks > 10, "only %d ticks", f.nticks);
	CHECK(f.nwarnings <= 1, "%d warnings", f.nwarnings);
	int seq = 1;
	for (int i = 0; i < f.nticks; i++)
		seq &= f.ticks[i].cpus[0].c[0].raw.value == (uint64_t)(i + 1) * 100;
	CHECK(seq, "ticks not sequential");
	rec_file_free(&f);
}

/* A CPU set change: the cpus record lets later ticks hold a CPU the header lacks; the loaded
 * header lists every CPU the file counts. Without the record such a tick is skipped. */
static void test_cpus_record(void)
{
	const char *path = tmp_path("cpus.jsonl");
	char err[256] = "";
	struct rec_writer *w = rec_writer_open(path, NULL, err, sizeof(err));
	CHECK(w != NULL, "open: %s", err);
	if (!w)
		return;
	struct rec_header h;
	make_header(&h, 1); /* CPU 0 */
	struct rec_mode m = {.t = 0, .name = "cpi", .nevents = 2, .events = events2};
	CHECK_INT(rec_writer_write_header(w, &h, err, sizeof(err)), 0);
	CHECK_INT(rec_writer_write_mode(w, &m, err, sizeof(err)), 0);
	struct rec_tick t1, t2;
	make_tick(&t1, &h, 2, 1);
	CHECK_INT(rec_writer_write_tick(w, &t1, err, sizeof(err)), 0);
	struct rec_cpu_info two[2] = {{.cpu = 0},
				      {.cpu = 2,
				       .core_type = "cpu_atom",
				       .has_topology = true,
				       .socket = 1,
				       .die = 2,
				       .cluster = 3,
				       .core = 4,
				       .cache_level = 3,
				       .cache = 5}};
	struct rec_cpus c = {.t = 2.0, .ncpus = 2, .cpus = two};
	CHECK_INT(rec_writer_write_cpus(w, &c, err, sizeof(err)), 0);
	struct rec_header h2 = h;
	h2.ncpus = 2;
	h2.cpus = two;
	make_tick(&t2, &h2, 2, 2);
	CHECK_INT(rec_writer_write_tick(w, &t2, err, sizeof(err)), 0);
	CHECK_INT(rec_writer_close(w, err, sizeof(err)), 0);
	struct rec_file f;
	int rc = rec_load(path, &f, err, sizeof(err));
	CHECK(rc == 0, "load: %s", err);
	if (rc == 0) {
		CHECK_INT(f.header.version, 2);
		CHECK_INT(f.nticks, 2);
		CHECK_INT(f.nwarnings, 0);
		CHECK_INT(f.header.ncpus, 2);
		CHECK(f.header.ncpus == 2 && f.header.cpus[1].cpu == 2 &&
			  strcmp(f.header.cpus[1].core_type, "cpu_atom") == 0,
		      "CPU 2 not in the loaded header");
		CHECK(f.nticks == 2 && f.ticks[1].ncpus == 2 && f.ticks[1].cpus[1].cpu == 2,
		      "the tick of CPU 2");
		/* its place came with it (rows by core, socket, ... on replay) */
		const struct rec_cpu_info *ci = f.header.ncpus == 2 ? &f.header.cpus[1] : NULL;
		CHECK(ci && ci->has_topology && ci->socket == 1 && ci->die == 2 &&
			  ci->cluster == 3 && ci->core == 4 && ci->cache_level == 3 &&
			  ci->cache == 5,
		      "CPU 2's topology not carried by the cpus record");
		CHECK(!f.header.cpus[0].has_topology, "CPU 0 got a topology it never had");
		rec_file_free(&f);
	}
	/* the same file without its cpus record: the tick of CPU 2 is skipped */
	FILE *in = fopen(path, "r");
	char text[8192] = "", line[4096];
	while (in && fgets(line, sizeof(line), in))
		if (!strstr(line, "\"type\":\"cpus\""))
			strcat(text, line);
	if (in)
		fclose(in);
	const char *p2 = tmp_path("nocpus.jsonl");
	FILE *out = fopen(p2, "w");
	if (out) {
		fputs(text, out);
		fclose(out);
	}
	rc = rec_load(p2, &f, err, sizeof(err));
	CHECK(rc == 0 && f.nticks == 1 && f.nwarnings == 1 &&
		  strstr(f.warnings[0], "not in the header's CPU list"),
	      "without the cpus record: rc %d, %d ticks", rc, rc == 0 ? f.nticks : -1);
	if (rc == 0)
		rec_file_free(&f);
	rec_tick_free(&t1);
	rec_tick_free(&t2);
	rec_header_free(&h);
}

static void test_enospc(void)
{
	char err[256] = "", err2[256] = "";
	/* a device: refused unless forced */
	struct rec_writer *w = rec_writer_open("/dev/full", NULL, err, sizeof(err));
	CHECK(!w && strstr(err, "/dev/full: it is a character device, not a regular file"), "%s",
	      err);
	struct rec_writer_opts force = {.create = SAFE_CREATE_FORCE};
	w = rec_writer_open("/dev/full", &force, err, sizeof(err));
	if (!w) {
		SKIP("/dev/full: %s", err);
		return;
	}
	struct rec_header h;
	make_header(&h, 2);
	CHECK_INT(rec_writer_write_header(w, &h, err, sizeof(err)), -1);
	CHECK(strstr(err, "recording /dev/full stopped: No space left on device (wrote 0 ticks)"),
	      "%s", err);
	CHECK(rec_writer_failed(w), "not failed");
	struct rec_mark mk = {.t = 1, .text = "x"};
	CHECK_INT(rec_writer_write_mark(w, &mk, err2, sizeof(err2)), -1);
	CHECK_STR(err2, err);
	CHECK_INT(rec_writer_close(w, err2, sizeof(err2)), -1);
	rec_header_free(&h);
}

/* A file size limit makes write(2) short, then EFBIG: the torn line must be cut away. */
static void test_short_write(void)
{
	const char *path = tmp_path("fsize.jsonl");
	unlink(path);
	pid_t pid = fork();
	if (pid == 0) {
		char err[256];
		signal(SIGXFSZ, SIG_IGN);
		struct rlimit rl = {3000, 3000};
		setrlimit(RLIMIT_FSIZE, &rl);
		struct rec_writer *w = rec_writer_open(path, NULL, err, sizeof(err));
		if (!w)
			_exit(2);
		struct rec_header h;
		struct rec_mode m;
		write_preamble(w, &h, &m);
		for (uint64_t i = 1; i < 1000; i++) {
			struct rec_tick t;
			make_tick(&t, &h, 2, i);
			int rc = rec_writer_write_tick(w, &t, err, sizeof(err));
			rec_tick_free(&t);
			if (rc < 0) {
				char want[64];
				snprintf(want, sizeof(want), "(wrote %" PRIu64 " ticks)", i - 1);
				_exit(strstr(err, "fsize.jsonl stopped: File too large") &&
					      strstr(err, want) && rec_writer_failed(w)
					  ? 0
					  : 3);
			}
		}
		_exit(4);
	}
	int status;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
	struct stat st;
	CHECK(stat(path, &st) == 0 && st.st_size <= 3000, "size %lld", (long long)st.st_size);
	char err[256] = "";
	struct rec_file f;
	int rc = rec_load(path, &f, err, sizeof(err));
	CHECK(rc == 0, "%s", err);
	if (rc == 0) {
		CHECK_INT(f.nwarnings, 0); /* no torn line left behind */
		CHECK(f.nticks > 0, "no ticks");
		rec_file_free(&f);
	}
}

static void test_epipe(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		int p[2];
		char err[256];
		if (pipe(p) < 0)
			_exit(2);
		close(p[0]);
		dup2(p[1], STDOUT_FILENO);
		struct rec_writer *w = rec_writer_open("-", NULL, err, sizeof(err));
		struct rec_header h;
		make_header(&h, 1);
		int rc = rec_writer_write_header(w, &h, err, sizeof(err));
		_exit(rc == -1 && strstr(err, "Broken pipe") ? 0 : 3);
	}
	int status;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "EPIPE: child status %d", status);
}

static void test_unwritable(void)
{
	char err[256] = "";
	struct rec_writer *w =
	    rec_writer_open("/nonexistent-dir/rec.jsonl", NULL, err, sizeof(err));
	CHECK(w == NULL && strstr(err, "cannot create recording /nonexistent-dir/rec.jsonl"), "%s",
	      err);
	struct rec_writer_opts o = {.max_bytes = 100};
	w = rec_writer_open("/dev/null", &o, err, sizeof(err));
	CHECK(w == NULL && strstr(err, "a size limit needs a regular file"), "%s", err);
}

static void test_rotation(void)
{
	const char *path = tmp_path("rot.jsonl");
	char name[300], err[256] = "";
	struct rec_writer_opts o = {.max_bytes = 2500, .keep = 2};
	struct rec_writer *w = rec_writer_open(path, &o, err, sizeof(err));
	CHECK(w != NULL, "%s", err);
	if (!w)
		return;
	struct rec_header h;
	struct rec_mode m;
	write_preamble(w, &h, &m);
	const int n = 60;
	for (int i = 1; i <= n; i++) {
		struct rec_tick t;
		make_tick(&t, &h, 2, (uint64_t)i);
		CHECK_INT(rec_writer_write_tick(w, &t, err, sizeof(err)), 0);
		rec_tick_free(&t);
	}
	CHECK_INT(rec_writer_close(w, err, sizeof(err)), 0);
	int total = 0;
	double last_t = 1e99;
	for (int k = 0; k <= 2; k++) {
		struct rec_file f;
		if (k)
			snprintf(name, sizeof(name), "%s.%d", path, k);
		else
			snprintf(name, sizeof(name), "%s", path);
		struct stat st;
		CHECK(stat(name, &st) == 0 && st.st_size <= 2500, "%s: size %lld", name,
		      (long long)st.st_size);
		int rc = rec_load(name, &f, err, sizeof(err));
		CHECK(rc == 0, "%s", err);
		if (rc)
			continue;
		CHECK(f.nmodes == 1 && f.nticks > 0, "%s: %d modes %d ticks", name, f.nmodes,
		      f.nticks);
		CHECK_INT(f.header.ncpus, 2);
		if (k == 0 && f.nticks)
			CHECK_NEAR(f.ticks[f.nticks - 1].t, 1.0 + n, 1e-9);
		if (f.nticks) /* older files hold older ticks */
			CHECK(f.ticks[f.nticks - 1].t < last_t, "%s out of order", name);
		if (f.nticks)
			last_t = f.ticks[0].t;
		total += f.nticks;
		rec_file_free(&f);
	}
	CHECK(total < n, "nothing rotated away (%d ticks)", total);
	snprintf(name, sizeof(name), "%s.3", path);
	CHECK(access(name, F_OK) != 0, "keep=2 left %s", name);
	rec_header_free(&h);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_recfile.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_escape();
	test_round_trip();
	test_good_fixture();
	test_fixture_errors();
	test_bad_inputs();
	test_consistency();
	test_ring();
	test_kill9();
	test_enospc();
	test_cpus_record();
	test_short_write();
	test_epipe();
	test_unwritable();
	test_rotation();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return harness_done();
}
