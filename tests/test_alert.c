/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_alert.c: rule parsing (canonical text and every parse error), evaluation, spike log exports.
 */
#include <jansson.h>
#include <stdint.h>

#include "alert.h"
#include "harness.h"

static const struct {
	int line;
	const char *text;
	const char *want; /* canonical text, or the error message when it starts with "col " */
} parse_cases[] = {
    {__LINE__, "cpi > 2.5", "cpi > 2.5"},
    {__LINE__, "  dtlb_mpki>5 on 2-3 ", "dtlb_mpki > 5 on 2-3"},
    {__LINE__, "util < 10 on 0,4", "util < 10 on 0,4"},
    {__LINE__, "ipc <= 0.5", "ipc <= 0.5"},
    {__LINE__, "ipc\t>=\t-1e3", "ipc >= -1000"},
    {__LINE__, "cpi > 2.5\n", "cpi > 2.5"},
    {__LINE__, "l1d.miss_pct > .5", "l1d.miss_pct > 0.5"},
    {__LINE__, "cpi > 0.1", "cpi > 0.1"},
    {__LINE__, "cpi < 1 on 3,1,2", "cpi < 1 on 1-3"},
    {__LINE__, "mad ipc 5", "mad ipc 5"},
    {__LINE__, "mad llc_mpki 3.5 window 32 floor 0.2 on 0-1",
     "mad llc_mpki 3.5 window 32 floor 0.2 on 0-1"},
    {__LINE__, "mad ipc 4 floor 5%", "mad ipc 4 floor 5%"},
    {__LINE__, "mad ipc 4 on 3 window 16", "mad ipc 4 window 16 on 3"},
    {__LINE__, "mad ipc 4 window 64 floor 1%", "mad ipc 4"},
    {__LINE__, "mad > 3", "mad > 3"},
    {__LINE__, "", "col 1: empty rule"},
    {__LINE__, "   ", "col 4: empty rule"},
    {__LINE__, "> 2", "col 1: expected a metric name or 'mad'"},
    {__LINE__, "2cpi > 1", "col 1: expected a metric name or 'mad'"},
    {__LINE__, "cpi", "col 4: expected >, >=, < or <= after 'cpi'"},
    {__LINE__, "cpi 2.5", "col 5: expected >, >=, < or <= after 'cpi'"},
    {__LINE__, "cpi == 2", "col 5: operator must be >, >=, < or <="},
    {__LINE__, "cpi != 2", "col 5: operator must be >, >=, < or <="},
    {__LINE__, "cpi >", "col 6: expected a number after '>'"},
    {__LINE__, "cpi >= abc", "col 8: expected a number after '>='"},
    {__LINE__, "cpi > 2.5x", "col 7: expected a number after '>'"},
    {__LINE__, "cpi > nan", "col 7: expected a number after '>'"},
    {__LINE__, "cpi > inf", "col 7: expected a number after '>'"},
    {__LINE__, "cpi > 1e999", "col 7: expected a number after '>'"},
    {__LINE__, "cpi < 5%", "col 7: expected a number after '<'"},
    {__LINE__, "cpi > 2 at 3", "col 9: expected 'on' or the end of the rule"},
    {__LINE__, "cpi > 2 on", "col 11: expected a CPU list after 'on'"},
    {__LINE__, "cpi > 2 on 3-1", "col 12: bad CPU list '3-1': "},
    {__LINE__, "cpi > 2 on x", "col 12: bad CPU list 'x': "},
    {__LINE__, "cpi > 2 on 1 2", "col 14: unexpected text after the CPU list"},
    {__LINE__, "cpi > 1\nipc > 2", "col 8: a rule is one line"},
    {__LINE__, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa > 1",
     "col 1: metric name longer than 31 bytes"},
    {__LINE__,
     "cpi > 1 on "
     "0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32,34,36,38,40,42,44,46,48,50,52,54,56,58,60",
     "col 1: rule longer than 95 bytes"},
    {__LINE__, "mad", "col 4: expected a metric name after 'mad'"},
    {__LINE__, "mad 5", "col 5: expected a metric name after 'mad'"},
    {__LINE__, "mad ipc", "col 8: expected a number K after 'mad ipc'"},
    {__LINE__, "mad ipc x", "col 9: expected a number K after 'mad ipc'"},
    {__LINE__, "mad ipc 5%", "col 9: expected a number K after 'mad ipc'"},
    {__LINE__, "mad ipc 0", "col 9: K must be greater than 0"},
    {__LINE__, "mad ipc -2", "col 9: K must be greater than 0"},
    {__LINE__, "mad ipc 5 window", "col 17: expected a number of samples after 'window'"},
    {__LINE__, "mad ipc 5 window 2", "col 18: window must be a whole number from 4 to 65536"},
    {__LINE__, "mad ipc 5 window 10.5", "col 18: window must be a whole number from 4 to 65536"},
    {__LINE__, "mad ipc 5 window 99999", "col 18: window must be a whole number from 4 to 65536"},
    {__LINE__, "mad ipc 5 floor", "col 16: expected a number after 'floor'"},
    {__LINE__, "mad ipc 5 floor -1", "col 17: floor must not be negative"},
    {__LINE__, "mad ipc 5 window 8 window 9",
     "col 20: expected 'window', 'floor', 'on' or the end of the rule"},
    {__LINE__, "mad ipc 5 bogus",
     "col 11: expected 'window', 'floor', 'on' or the end of the rule"},
    {__LINE__, "mad ipc 5 on", "col 13: expected a CPU list after 'on'"},
};

static void check_parse(void)
{
	for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		struct alert_rule r;
		char err[160] = "";
		const char *want = parse_cases[i].want;
		bool want_err = strncmp(want, "col ", 4) == 0;
		memset(&r, 0x5a, sizeof(r));
		int rc = alert_rule_parse(parse_cases[i].text, &r, err, sizeof(err));
		if (want_err) {
			CHECK(rc == -1, "line %d: \"%s\" parsed", parse_cases[i].line,
			      parse_cases[i].text);
			CHECK(strncmp(err, want, strlen(want)) == 0,
			      "line %d: error \"%s\", want \"%s\"", parse_cases[i].line, err, want);
			CHECK(((unsigned char *)&r)[0] == 0x5a, "line %d: rule changed on error",
			      parse_cases[i].line);
		} else {
			CHECK(rc == 0, "line %d: \"%s\": %s", parse_cases[i].line,
			      parse_cases[i].text, err);
			if (rc == 0) {
				CHECK(strcmp(r.text, want) == 0,
				      "line %d: text \"%s\", want \"%s\"", parse_cases[i].line,
				      r.text, want);
				/* The canonical text parses back to itself. */
				struct alert_rule r2;
				CHECK(alert_rule_parse(r.text, &r2, err, sizeof(err)) == 0 &&
					  strcmp(r2.text, r.text) == 0,
				      "line %d: round trip \"%s\"", parse_cases[i].line, r.text);
			}
		}
	}
	struct alert_rule r;
	char err[128];
	CHECK(alert_rule_parse("dtlb_mpki > 5 on 2-3", &r, err, sizeof(err)) == 0, "%s", err);
	CHECK(r.kind == ALERT_THRESHOLD && r.op == ALERT_GT, "kind/op");
	CHECK_STR(r.metric, "dtlb_mpki");
	CHECK_NEAR(r.threshold, 5, 0);
	CHECK(!r.all_cpus && alert_rule_covers(&r, 2) && alert_rule_covers(&r, 3), "covers 2-3");
	CHECK(!alert_rule_covers(&r, 1) && !alert_rule_covers(&r, 4), "not 1 or 4");
	CHECK(alert_rule_parse("mad ipc 3 window 16 floor 2.5%", &r, err, sizeof(err)) == 0, "%s",
	      err);
	CHECK(r.kind == ALERT_MAD && r.window == 16, "mad window");
	CHECK_NEAR(r.k, 3, 0);
	CHECK_NEAR(r.floor_rel, 0.025, 1e-15);
	CHECK(r.all_cpus && alert_rule_covers(&r, 4000) && !alert_rule_covers(&r, -1), "all cpus");
	CHECK(alert_rule_parse("mad ipc 3 floor 0.5", &r, err, sizeof(err)) == 0, "%s", err);
	CHECK_NEAR(r.floor_rel, 0, 0);
	CHECK_NEAR(r.floor_abs, 0.5, 0);
	CHECK(alert_rule_parse("mad > 3", &r, err, sizeof(err)) == 0 && r.kind == ALERT_THRESHOLD,
	      "a metric called mad");
	CHECK_STR(alert_op_name(ALERT_LE), "<=");
}

/* An injected sample: one value per CPU for "ipc" and "util"; other names are unknown. */
struct sample {
	double ipc[8], util[8];
};

static int lookup(void *ctx, int cpu, const char *metric, double *value)
{
	struct sample *s = ctx;
	if (cpu < 0 || cpu >= 8)
		return -1;
	if (strcmp(metric, "ipc") == 0)
		*value = s->ipc[cpu];
	else if (strcmp(metric, "util") == 0)
		*value = s->util[cpu];
	else
		return -1;
	return 0;
}

/* Deterministic noise in [-amp, amp]. */
static double noise(uint32_t *seed, double amp)
{
	*seed = *seed * 1664525u + 1013904223u;
	return ((double)(*seed >> 8) / (double)(1u << 24) * 2 - 1) * amp;
}

static void check_threshold_eval(void)
{
	struct alert_set s;
	struct spike_log log;
	char err[128] = "";
	alert_set_init(&s, 4);
	CHECK(spike_log_init(&log, 16, err, sizeof(err)) == 0, "%s", err);
	CHECK(alert_set_add(&s, "ipc < 0.5 on 2-3", err, sizeof(err)) == 0, "%s", err);
	CHECK(alert_set_add(&s, "util >= 90", err, sizeof(err)) == 0, "%s", err);
	CHECK(alert_set_add(&s, "cpi > 2", err, sizeof(err)) == 0, "%s", err);
	CHECK(alert_set_add(&s, "cpi >", err, sizeof(err)) == -1, "bad rule refused");
	CHECK_STR(err, "col 6: expected a number after '>'");
	CHECK_INT(s.n, 3);
	CHECK_INT(alert_set_bytes(&s), 0); /* no mad rule: no history */
	struct sample smp = {{0.4, 0.4, 0.4, 0.6}, {90, 10, NAN, 95}};
	int total = 0;
	for (int cpu = 0; cpu < 4; cpu++)
		total += alert_set_eval(&s, 1.5, cpu, lookup, &smp, &log);
	CHECK_INT(total, 3); /* ipc on 2; util on 0 and 3; NaN util and unknown cpi skipped */
	CHECK_INT(log.len, 3);
	const struct spike_event *e = spike_log_get(&log, 0);
	CHECK(e && e->cpu == 0, "first spike on cpu 0");
	CHECK_STR(e->metric, "util");
	CHECK_STR(e->rule, "util >= 90");
	CHECK_NEAR(e->baseline, 90, 0);
	e = spike_log_get(&log, 1);
	CHECK(e && e->cpu == 2, "second spike on cpu 2");
	CHECK_STR(e->rule, "ipc < 0.5 on 2-3");
	CHECK_NEAR(e->value, 0.4, 0);
	CHECK_NEAR(e->time_s, 1.5, 0);
	CHECK_NEAR(e->score, -0.1, 1e-12);
	e = spike_log_get(&log, 2);
	CHECK(e && e->cpu == 3 && strcmp(e->metric, "util") == 0, "third spike util on cpu 3");
	CHECK(alert_set_remove(&s, 1) == 0, "remove");
	CHECK(alert_set_remove(&s, 5) == -1, "remove out of range");
	CHECK_INT(s.n, 2);
	CHECK_STR(s.rules[1].text, "cpi > 2");
	CHECK_INT(alert_set_eval(&s, 2, 0, lookup, &smp, NULL), 0);
	alert_set_free(&s);
	spike_log_free(&log);
}

/* Runs @n samples of "ipc" through a set; @gen gives the value. Returns the spike count. */
static int run_series(struct alert_set *s, struct spike_log *log, int n, int ncpu,
		      double (*gen)(int i, int cpu, uint32_t *seed))
{
	uint32_t seed = 12345;
	int spikes = 0;
	struct sample smp;
	memset(&smp, 0, sizeof(smp));
	for (int i = 0; i < n; i++) {
		for (int c = 0; c < ncpu; c++)
			smp.ipc[c] = gen(i, c, &seed);
		for (int c = 0; c < ncpu; c++)
			spikes += alert_set_eval(s, i * 0.01, c, lookup, &smp, log);
	}
	return spikes;
}

static double gen_spike(int i, int cpu, uint32_t *seed)
{
	double v = 1.0 + 0.1 * cpu + noise(seed, 0.005);
	if (i == 150 && cpu == 2)
		return 2.0;
	if (i == 10 && cpu == 1) /* before the window is half full: ignored */
		return 5.0;
	return v;
}

static double gen_dip(int i, int cpu, uint32_t *seed)
{
	double v = 2.0 + noise(seed, 0.02);
	return i == 100 && cpu == 0 ? 1.0 : v;
}

static double gen_drift(int i, int cpu, uint32_t *seed)
{
	return 1.0 + 0.001 * i + 0.0005 * cpu * i + noise(seed, 0.005);
}

static double gen_flat(int i, int cpu, uint32_t *seed)
{
	(void)seed;
	(void)cpu;
	if (i == 100)
		return 1.001; /* 0.1%: under the 1% floor */
	if (i == 150)
		return 1.2;
	return 1.0;
}

static double gen_gaps(int i, int cpu, uint32_t *seed)
{
	if (i % 3 == 1)
		return NAN; /* n/a samples are skipped */
	return gen_spike(i, cpu, seed);
}

static void check_mad_eval(void)
{
	struct alert_set s;
	struct spike_log log;
	char err[128] = "";
	spike_log_init(&log, 64, err, sizeof(err));

	alert_set_init(&s, 4);
	CHECK(alert_set_add(&s, "mad ipc 5", err, sizeof(err)) == 0, "%s", err);
	/* per CPU the ring and the same window sorted (64 doubles each), then the scratch */
	CHECK_INT(alert_set_bytes(&s), 4 * (2 * 64 * 8 + sizeof(struct series_ring)) + 3 * 64 * 8);
	CHECK_INT(run_series(&s, &log, 300, 4, gen_spike), 1);
	const struct spike_event *e = spike_log_get(&log, 0);
	CHECK(e && e->cpu == 2, "spike on cpu 2");
	if (e) {
		CHECK_NEAR(e->time_s, 1.5, 1e-9);
		CHECK_NEAR(e->value, 2.0, 0);
		CHECK_NEAR(e->baseline, 1.2, 0.005);
		CHECK(e->score > 5, "score %g", e->score);
		CHECK_STR(e->rule, "mad ipc 5");
	}

	/* A dip is a spike too, and the rule's CPU list is honoured. */
	spike_log_clear(&log);
	alert_set_free(&s);
	alert_set_init(&s, 4);
	alert_set_add(&s, "mad ipc 6 window 32 on 0", err, sizeof(err));
	CHECK_INT(run_series(&s, &log, 200, 4, gen_dip), 1);
	e = spike_log_get(&log, 0);
	CHECK(e && e->cpu == 0 && e->score < -6, "dip on cpu 0");
	alert_set_free(&s);
	alert_set_init(&s, 4);
	alert_set_add(&s, "mad ipc 6 window 32 on 1-3", err, sizeof(err));
	CHECK_INT(run_series(&s, &log, 200, 4, gen_dip), 0);

	/* A slowly drifting series never fires. */
	alert_set_free(&s);
	alert_set_init(&s, 4);
	alert_set_add(&s, "mad ipc 5", err, sizeof(err));
	CHECK_INT(run_series(&s, &log, 1000, 4, gen_drift), 0);

	/* A perfectly flat series (MAD 0): the floor keeps a 0.1% step quiet, 20% fires. */
	spike_log_clear(&log);
	alert_set_reset(&s);
	CHECK_INT(run_series(&s, &log, 200, 1, gen_flat), 1);
	e = spike_log_get(&log, 0);
	CHECK(e && e->value == 1.2 && e->baseline == 1.0, "flat series step");
	if (e)
		CHECK_NEAR(e->score, 20, 1e-9); /* 0.2 / (1% of 1.0) */

	/* With an absolute floor of 0.5 the 20% step is quiet. */
	alert_set_free(&s);
	alert_set_init(&s, 1);
	alert_set_add(&s, "mad ipc 5 floor 0.05", err, sizeof(err));
	CHECK_INT(run_series(&s, &log, 200, 1, gen_flat), 0);

	/* n/a samples are skipped; the spike is still found. */
	spike_log_clear(&log);
	alert_set_free(&s);
	alert_set_init(&s, 4);
	alert_set_add(&s, "mad ipc 5", err, sizeof(err));
	CHECK_INT(run_series(&s, &log, 300, 4, gen_gaps), 1);
	e = spike_log_get(&log, 0);
	CHECK(e && e->cpu == 2 && e->value == 2.0, "spike found across gaps");
	/* A CPU beyond the history has no mad evaluation (and no crash). */
	struct sample smp = {{0}, {0}};
	CHECK_INT(alert_set_eval(&s, 0, 7, lookup, &smp, &log), 0);
	alert_set_free(&s);
	spike_log_free(&log);
}

/* One value for the reference check below: the metric's value on every CPU. */
static int lookup_one(void *ctx, int cpu, const char *metric, double *value)
{
	(void)cpu;
	(void)metric;
	*value = *(const double *)ctx;
	return isnan(*value) ? -1 : 0;
}

static uint64_t ref_rng = 88172645463325252ULL;
static double ref_uniform(void)
{
	ref_rng ^= ref_rng << 13;
	ref_rng ^= ref_rng >> 7;
	ref_rng ^= ref_rng << 17;
	return (double)(ref_rng >> 11) / 9007199254740992.0;
}

/*
 * A mad rule's spikes (which samples, their baseline and score) against a full recomputation:
 * the median and MAD of the previous W finite values by stats_compute() on every sample, with
 * no sorted window and no shortcut. Random series with NaN gaps, repeated values, steps, heavy
 * tails and zeros, over several windows (wrapping many times) and floors (relative, absolute,
 * zero), and the window resized (a new rule) halfway.
 */
static void check_mad_reference(void)
{
	static const char *const rules[] = {
	    "mad ipc 8 window 64 floor 5%",  "mad ipc 3",
	    "mad ipc 5 window 8 floor 0",    "mad ipc 2.5 window 16 floor 0.2",
	    "mad ipc 8 window 64 floor 200", "mad ipc 1 window 4"};
	for (size_t ri = 0; ri < sizeof(rules) / sizeof(rules[0]); ri++)
		for (int shape = 0; shape < 4; shape++) {
			struct alert_set s;
			struct spike_log log;
			char err[128] = "";
			spike_log_init(&log, 4096, err, sizeof(err));
			alert_set_init(&s, 1);
			CHECK(alert_set_add(&s, rules[ri], err, sizeof(err)) == 0, "%s", err);
			struct alert_rule r = s.rules[0];
			double hist[4096], win[4096], scratch[2 * 4096];
			size_t nh = 0, want = 0, got = 0, bad = 0;
			for (int t = 0; t < 3000; t++) {
				if (t == 1500) { /* resize: the rule again with twice the window */
					char text[ALERT_TEXT_MAX];
					snprintf(text, sizeof(text), "mad ipc %g window %u floor 0",
						 r.k, r.window * 2);
					alert_set_free(&s);
					alert_set_init(&s, 1);
					CHECK(alert_set_add(&s, text, err, sizeof(err)) == 0, "%s",
					      err);
					r = s.rules[0];
					nh = 0;
				}
				double u = ref_uniform(), v;
				switch (shape) {
				case 0: /* noise around 1000 with rare large spikes */
					v = 1000 + 20 * (u - 0.5) + (u > 0.995 ? 900 : 0);
					break;
				case 1: /* few distinct values: ties everywhere */
					v = (double)(int)(u * 4) * 0.25;
					break;
				case 2: /* zeros, negatives and steps */
					v = t % 400 < 200 ? 0.0 : (u < 0.5 ? -3.0 : 5.0 * u);
					break;
				default: /* heavy tails around 1 */
					v = 1 + 0.01 / (u + 1e-6);
				}
				if (ref_uniform() < 0.05)
					v = NAN; /* n/a: skipped, not remembered */
				size_t before = log.total;
				alert_set_eval(&s, t, 0, lookup_one, &v, &log);
				got += log.total - before;
				if (isnan(v))
					continue;
				size_t w = nh < r.window ? nh : r.window;
				if (w > 0 && w * 2 >= r.window) {
					memcpy(win, hist + nh - w, w * sizeof(double));
					struct stats st;
					stats_compute(win, w, scratch, &st);
					double fl = r.floor_rel * fabs(st.median);
					if (fl < r.floor_abs)
						fl = r.floor_abs;
					double scale = st.mad > fl ? st.mad : fl,
					       dev = v - st.median;
					if (fabs(dev) > r.k * scale) {
						want++;
						const struct spike_event *e =
						    log.total > before
							? spike_log_get(&log, log.len - 1)
							: NULL;
						if (!e || e->time_s != t || e->value != v ||
						    e->baseline != st.median ||
						    e->score != dev / scale)
							bad++;
					} else if (log.total > before)
						bad++;
				}
				hist[nh++] = v;
			}
			CHECK(bad == 0 && got == want,
			      "rule '%s' shape %d: %zu spikes, the recomputation %zu, %zu differ",
			      rules[ri], shape, got, want, bad);
			alert_set_free(&s);
			spike_log_free(&log);
		}
}

static char *dump(struct spike_log *log, int json)
{
	char *buf = NULL, err[128];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = json ? spike_log_write_jsonl(log, f, err, sizeof(err))
		      : spike_log_write_csv(log, f, err, sizeof(err));
	CHECK(rc == 0, "export: %s", err);
	fclose(f);
	return buf;
}

static void check_log(void)
{
	struct spike_log log;
	char err[128] = "";
	CHECK(spike_log_init(&log, 0, err, sizeof(err)) == -1, "zero capacity refused");
	CHECK(spike_log_init(&log, 3, err, sizeof(err)) == 0, "%s", err);
	CHECK_INT(spike_log_bytes(&log), 3 * sizeof(struct spike_event));
	CHECK(spike_log_get(&log, 0) == NULL, "empty log");
	for (int i = 0; i < 5; i++) {
		struct spike_event e = {
		    .time_s = i, .cpu = i, .value = i * 1.5, .baseline = 1, .score = NAN};
		snprintf(e.metric, sizeof(e.metric), "util");
		snprintf(e.rule, sizeof(e.rule), i == 4 ? "util < 10 on 0,4" : "util > \"x\"");
		spike_log_push(&log, &e);
	}
	CHECK_INT(log.len, 3);
	CHECK_INT(spike_log_dropped(&log), 2);
	CHECK_INT(spike_log_get(&log, 0)->cpu, 2);
	CHECK_INT(spike_log_get(&log, 2)->cpu, 4);
	CHECK(spike_log_get(&log, 3) == NULL, "past the end");

	char *csv = dump(&log, 0);
	CHECK_STR(csv, "time_s,cpu,metric,value,baseline,score,rule\n"
		       "2.000000,2,util,3,1,,\"util > \"\"x\"\"\"\n"
		       "3.000000,3,util,4.5,1,,\"util > \"\"x\"\"\"\n"
		       "4.000000,4,util,6,1,,\"util < 10 on 0,4\"\n");
	free(csv);

	char *jl = dump(&log, 1);
	int lines = 0;
	for (char *line = jl, *nl; line && *line; line = nl ? nl + 1 : NULL, lines++) {
		nl = strchr(line, '\n');
		CHECK(nl != NULL, "every line ends with a newline");
		json_error_t jerr;
		json_t *o = json_loadb(line, nl ? (size_t)(nl - line) : strlen(line), 0, &jerr);
		CHECK(o && json_is_object(o), "line %d: %s", lines, jerr.text);
		if (!o)
			break;
		CHECK_INT(json_integer_value(json_object_get(o, "cpu")), 2 + lines);
		CHECK_NEAR(json_real_value(json_object_get(o, "value")), (2 + lines) * 1.5, 1e-12);
		CHECK(json_is_null(json_object_get(o, "score")), "NaN score is null");
		CHECK_STR(json_string_value(json_object_get(o, "rule")),
			  lines == 2 ? "util < 10 on 0,4" : "util > \"x\"");
		json_decref(o);
	}
	CHECK_INT(lines, 3);
	free(jl);
	spike_log_clear(&log);
	csv = dump(&log, 0);
	CHECK_STR(csv, "time_s,cpu,metric,value,baseline,score,rule\n");
	free(csv);
	spike_log_free(&log);
}

int main(void)
{
	check_parse();
	check_threshold_eval();
	check_mad_eval();
	check_mad_reference();
	check_log();
	return harness_done();
}
