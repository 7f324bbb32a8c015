/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_omwrite.c: the OpenMetrics page's row labels made once a page and its kept metadata. */
#include "app.h"
#include "frame.h"
#include "harness.h"
#include "harness_app.h"
#include "openmetrics.h"
#include "options.h"
#include <stdlib.h>

static struct app_ctx app; /* large: static */

static int start(const char *args)
{
	char err[512];
	if (harness_app_start(&app, args, err, sizeof(err)) < 0 ||
	    app_tick(&app, err, sizeof(err)) < 0) {
		CHECK(0, "start \"%s\": %s", args, err);
		return -1;
	}
	return 0;
}

/* The next frame (a tick, then the frame). */
static const struct frame *next_frame(void)
{
	char err[256];
	CHECK(app_tick(&app, err, sizeof(err)) >= 0, "tick: %s", err);
	return app_frame_build(&app);
}

/* om_write() of @f as a string (free it). */
static char *page(const struct frame *f, enum om_flavour fl)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return NULL;
	CHECK(om_write(m, f, fl) == 0, "om_write");
	fclose(m);
	return text;
}

/* The "# " lines of @text, in order (free it). */
static char *meta_lines(const char *text)
{
	char *out = calloc(1, strlen(text) + 1), *o = out;
	for (const char *p = text; out && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
		if (p[0] == '#' && p[1] == ' ') {
			memcpy(o, p, n);
			o += n;
		}
		p += n;
	}
	return out;
}

/*
 * 300 CPUs: rows 0..255 take labels made once a page, the rest are made line by line. Every
 * gauge sample of a CPU row must read family{HEAD,cpu="N"} with the same HEAD (the host and mode
 * labels, as the families of all CPUs write them alone) and each CPU at most once per family (an
 * n/a value is left out), all 300 in most.
 */
static void check_rows(void)
{
	if (start("--backend sim --sim-cpus 300 -i 10 -m cpi --no-rc") < 0)
		return;
	const struct frame *f = next_frame();
	char *text = f ? page(f, OM_OPENMETRICS) : NULL;
	CHECK(text != NULL, "a page");
	if (!text) {
		app_free(&app);
		return;
	}
	/* the head: what a family of all CPUs has between "{" and "}" */
	const char *all = strstr(text, "\npmutop_all_cpus_metric_");
	char head[512] = "";
	if (all) {
		const char *b = strchr(all, '{'), *e = b ? strchr(b, '}') : NULL;
		if (b && e && (size_t)(e - b) < sizeof(head))
			memcpy(head, b + 1, (size_t)(e - b - 1));
	}
	CHECK(head[0] != '\0', "the all-CPUs family's labels");
	int families = 0, rows_seen = 0, bad = 0, full = 0; /* full: families with all 300 */
	char family[128] = "";
	int seen[300];
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[1024];
		snprintf(line, sizeof(line), "%.*s", (int)(n < 1023 ? n : 1023), p);
		p += n + (nl != NULL);
		if (strncmp(line, "# TYPE pmutop_metric_", 21) == 0) {
			full += families && rows_seen == 300;
			families++;
			rows_seen = 0;
			memset(seen, 0, sizeof(seen));
			snprintf(family, sizeof(family), "%.*s", (int)strcspn(line + 7, " "),
				 line + 7);
			continue;
		}
		if (!families || line[0] == '#' || strncmp(line, family, strlen(family)) != 0 ||
		    line[strlen(family)] != '{')
			continue;
		/* family{HEAD,cpu="N"} value */
		char want[700];
		const char *cpu = strstr(line, ",cpu=\"");
		int c = cpu ? atoi(cpu + 6) : -1;
		snprintf(want, sizeof(want), "%s{%s,cpu=\"%d\"} ", family, head, c);
		if (c < 0 || c >= 300 || seen[c]++ || strncmp(line, want, strlen(want)) != 0) {
			if (bad++ < 5)
				CHECK(0, "row line \"%s\", want it to start \"%s\"", line, want);
			continue;
		}
		rows_seen++;
	}
	full += families && rows_seen == 300;
	CHECK(families >= 2 && full >= 2, "%d families per CPU, %d with all 300", families, full);
	CHECK(bad == 0, "%d families or lines not as made line by line", bad);
	free(text);
	app_free(&app);
}

/*
 * The kept metadata: the same frame's page written again after the other flavour has the same
 * bytes; Prometheus pages never get OpenMetrics' # UNIT; after a mode switch the families are
 * the new mode's (their HELP holds each metric's description), and after switching back the
 * metadata is again the first mode's.
 */
static void check_meta(void)
{
	if (start("--backend sim --sim-cpus 2 -i 10 -m cpi --no-rc") < 0)
		return;
	const struct frame *f = next_frame();
	char *om1 = page(f, OM_OPENMETRICS), *prom = page(f, OM_PROMETHEUS),
	     *om2 = page(f, OM_OPENMETRICS);
	CHECK(om1 && om2 && strcmp(om1, om2) == 0, "the same frame's page after a Prometheus one");
	CHECK(prom && !strstr(prom, "# UNIT") && !strstr(prom, "# EOF"), "no # UNIT in Prometheus");
	CHECK(om1 && strstr(om1, "# UNIT") && strstr(om1, "# EOF\n"), "# UNIT in OpenMetrics");
	char *meta_a = om1 ? meta_lines(om1) : NULL;
	char err[256];
	CHECK(app_set_mode(&app, "dcache", err, sizeof(err)) == 0, "switch: %s", err);
	f = next_frame();
	f = next_frame();
	char *om_b = page(f, OM_OPENMETRICS);
	int missing = 0;
	for (int m = 0; om_b && m < f->snap->nmetrics; m++) {
		const char *d = f->snap->metrics[m].desc;
		char help[160];
		snprintf(help, sizeof(help), "# HELP pmutop_"); /* then the family, then it */
		const char *h = om_b;
		bool found = false;
		while (!found && (h = strstr(h, help)) != NULL) {
			const char *sp = strchr(h + 7, ' '), *nl = strchr(h, '\n');
			found = sp && nl && strncmp(sp + 1, d, strlen(d)) == 0 && sp < nl;
			h++;
		}
		if (d[0] && !found && missing++ < 5)
			CHECK(0, "the new mode's HELP \"%s\"", d);
		continue;
	}
	CHECK(f->snap->nmetrics > 0 && missing == 0, "%d of the new mode's metrics' HELP missing",
	      missing);
	char *meta_b = om_b ? meta_lines(om_b) : NULL;
	CHECK(meta_a && meta_b && strcmp(meta_a, meta_b) != 0,
	      "the metadata changed with the mode");
	CHECK(app_set_mode(&app, "cpi", err, sizeof(err)) == 0, "switch back: %s", err);
	f = next_frame();
	f = next_frame();
	char *om_a = page(f, OM_OPENMETRICS);
	char *meta_a2 = om_a ? meta_lines(om_a) : NULL;
	CHECK(meta_a && meta_a2 && strcmp(meta_a, meta_a2) == 0, "the first mode's metadata again");
	free(om1), free(prom), free(om2), free(meta_a), free(om_b), free(meta_b), free(om_a),
	    free(meta_a2);
	app_free(&app);
}

int main(void)
{
	check_rows();
	check_meta();
	return harness_done();
}
