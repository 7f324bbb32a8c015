/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_outkeys.c: the CSV and JSON records' event and metric names, written from key tables made
 * once per set of names, follow the names when they change (one run after another, modes with
 * other names, then the first again): each record parsed by jansson and by a CSV split. */
#include "app.h"
#include "frame.h"
#include "harness.h"
#include "harness_app.h"
#include "options.h"
#include "output.h"
#include <jansson.h>
#include <stdlib.h>

static struct app_ctx app; /* large: static */

static int start(const char *args)
{
	char err[512];
	if (harness_app_start(&app, args, err, sizeof(err)) < 0 ||
	    app_tick(&app, err, sizeof(err)) < 0 || app_tick(&app, err, sizeof(err)) < 0) {
		CHECK(0, "start \"%s\": %s", args, err);
		return -1;
	}
	return 0;
}

/* The record output_frame() writes for @f in format @name (free it). */
static char *record(const struct frame *f, const char *name)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return NULL;
	CHECK(output_frame(m, output_format_parse(name), f) == 0, "output_frame %s", name);
	fclose(m);
	return text;
}

/* The JSON record's "events" and "metrics" members of every row hold the snapshot's names, in
 * order. */
static void check_json(const struct frame *f, const char *mode)
{
	const struct snapshot *s = f->snap;
	char *text = record(f, "json");
	json_error_t err;
	json_t *root = text ? json_loads(text, 0, &err) : NULL;
	CHECK(root != NULL, "%s: the JSON record does not parse: %s", mode, root ? "" : err.text);
	json_t *cpus = json_object_get(root, "cpus");
	CHECK_INT((long long)json_array_size(cpus), snapshot_cpu_rows(s));
	for (size_t r = 0; r <= json_array_size(cpus); r++) {
		json_t *row = r < json_array_size(cpus) ? json_array_get(cpus, r)
							: json_object_get(root, "total");
		json_t *ev = json_object_get(row, "events"), *me = json_object_get(row, "metrics");
		CHECK_INT((long long)json_object_size(ev), s->nevents);
		CHECK_INT((long long)json_object_size(me), s->nmetrics);
		int i = 0;
		const char *key;
		json_t *v;
		json_object_foreach(ev, key, v) /* jansson keeps the order written */
		{
			if (i < s->nevents)
				CHECK_STR(key, s->event_names[i]);
			i++;
		}
		i = 0;
		json_object_foreach(me, key, v)
		{
			if (i < s->nmetrics)
				CHECK_STR(key, s->metrics[i].name);
			i++;
		}
	}
	json_decref(root);
	free(text);
}

/* Each CSV line's kind and name columns: every row's events, then its metrics, in order. */
static void check_csv(const struct frame *f, const char *mode)
{
	const struct snapshot *s = f->snap;
	char *text = record(f, "csv");
	int line = 0, per_row = s->nevents + s->nmetrics, rows = 0;
	for (char *p = text; p && *p;) {
		char *nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		if (strncmp(p, "time_s,", 7) != 0) { /* not the header */
			char *col[10] = {0};
			int n = 0;
			for (char *q = p; n < 10 && q; n++) { /* the names here need no quoting */
				col[n] = q;
				q = strchr(q, ',');
				if (q)
					*q++ = '\0';
			}
			int k = line % per_row;
			bool ev = k < s->nevents;
			CHECK(n >= 6, "%s: a short line", mode);
			if (n >= 6) {
				CHECK_STR(col[3], ev ? "event" : "metric");
				CHECK_STR(col[4],
					  ev ? s->event_names[k] : s->metrics[k - s->nevents].name);
			}
			line++;
			rows += k == per_row - 1;
		}
		p = nl + 1;
	}
	CHECK_INT(rows, snapshot_cpu_rows(s) + 1);
	free(text);
}

int main(void)
{
	/* the key tables outlive a run: each mode's names must replace the last one's (dcache and
	 * dtlb, icache and itlb: as many names, others) */
	static const char *const modes[] = {"sw", "cpi", "dcache", "dtlb", "icache", "itlb", "sw"};
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		char args[256];
		snprintf(args, sizeof(args), "--backend sim --sim-cpus 2 -i 10 -m %s --no-rc",
			 modes[i]);
		if (start(args) < 0)
			continue;
		const struct frame *f = app_frame_build(&app);
		CHECK(f && f->snap && f->snap->nevents > 0, "%s: no frame", modes[i]);
		if (f && f->snap) {
			check_json(f, modes[i]);
			check_csv(f, modes[i]);
		}
		app_free(&app);
	}
	return harness_done();
}
