/* output.c: one record per tick in text, CSV or JSON Lines (a stable interface for scripts). */
#include "output.h"
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int output_format_parse(const char *name)
{
	static const char *const names[] = {
	    [OUTPUT_TEXT] = "text", [OUTPUT_CSV] = "csv", [OUTPUT_JSON] = "json"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(names[i], name) == 0)
			return (int)i;
	return -1;
}

void output_format_value(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (v == floor(v) && fabs(v) < 1e7)
		snprintf(buf, len, "%.0f", v);
	else if (v != 0 && (fabs(v) >= 1e7 || fabs(v) < 1e-3))
		snprintf(buf, len, "%.3g", v);
	else if (fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3f", v);
}

void output_format_si(double v, char *buf, size_t len)
{
	static const char suffix[] = " kMGTPE";
	if (isnan(v)) {
		snprintf(buf, len, "n/a");
		return;
	}
	int k = 0;
	double a = fabs(v);
	while (a >= 999.5 && k < 6) {
		a /= 1000;
		v /= 1000;
		k++;
	}
	if (k == 0)
		snprintf(buf, len, a >= 100 ? "%.0f" : "%.3g", v);
	else
		snprintf(buf, len, a >= 100 ? "%.0f%c" : "%.3g%c", v, suffix[k]);
}

static json_t *json_number_or_null(double v)
{
	return isnan(v) || !isfinite(v) ? json_null() : json_real(v);
}

/* Round to 6 significant digits so JSON output is stable and short. */
static double tidy(double v)
{
	if (isnan(v) || v == 0)
		return v;
	char buf[32];
	snprintf(buf, sizeof(buf), "%.6g", v);
	return strtod(buf, NULL);
}

/* Counts print exactly: integers as integers, scaled estimates with full precision. */
static json_t *json_count(double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}

static json_t *events_json(const struct snapshot *snap, const struct count *counts)
{
	json_t *events = json_object();
	for (int e = 0; e < snap->nevents; e++) {
		const struct count *c = &counts[e];
		bool has = c->state == COUNT_OK || c->state == COUNT_SCALED;
		json_t *ev = json_pack(
		    "{s:o,s:o,s:s}", "value", has ? json_count(c->value) : json_null(), "running",
		    json_real(tidy(c->running)), "state", count_state_name(c->state));
		json_object_set_new(events, snap->event_names[e], ev);
	}
	return events;
}

static json_t *metrics_json(const struct snapshot *snap, const double *values)
{
	json_t *metrics = json_object();
	for (int m = 0; m < snap->nmetrics; m++)
		json_object_set_new(metrics, snap->metrics[m].name,
				    json_number_or_null(tidy(values[m])));
	return metrics;
}

static int output_json(FILE *out, const struct output_meta *meta, const struct snapshot *snap)
{
	json_t *cpus = json_array();
	for (int r = 0; r < snap->nrows; r++) {
		json_t *row = json_pack("{s:i}", "cpu", snap->cpus[r]);
		if (snap->offline[r])
			json_object_set_new(row, "offline", json_true());
		json_object_set_new(row, "events",
				    events_json(snap, &snap->counts[r * snap->nevents]));
		json_object_set_new(row, "metrics",
				    metrics_json(snap, &snap->values[r * snap->nmetrics]));
		if (meta->json_extra)
			meta->json_extra(meta->extra_ctx, NULL, row, r);
		json_array_append_new(cpus, row);
	}
	json_t *total = json_object();
	json_object_set_new(total, "events", events_json(snap, snap->total_counts));
	json_object_set_new(total, "metrics", metrics_json(snap, snap->total_values));
	json_t *rec = json_pack("{s:o,s:o,s:s,s:s,s:o,s:I}", "time", json_real(tidy(snap->time_s)),
				"interval_ms", json_real(tidy(snap->interval_s * 1000.0)),
				"backend", meta->backend, "mode", meta->mode, "simulated",
				json_boolean(meta->simulated), "seq", (json_int_t)snap->seq);
	if (meta->replay && meta->source)
		json_object_set_new(rec, "replay", json_string(meta->source));
	json_t *split = NULL;
	for (int m = 0; m < snap->nmetrics; m++)
		if (snap->metrics[m].split) {
			if (!split)
				split = json_array();
			json_array_append_new(split, json_string(snap->metrics[m].name));
		}
	if (split) /* ratios whose events were counted in different rotated sets */
		json_object_set_new(rec, "split_metrics", split);
	json_object_set_new(rec, "cpus", cpus);
	json_object_set_new(rec, "total", total);
	if (meta->json_extra)
		meta->json_extra(meta->extra_ctx, rec, NULL, -1);
	int rc = json_dumpf(rec, out, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(rec);
	if (rc == 0)
		fputc('\n', out);
	return rc;
}

static void csv_row(FILE *out, const struct snapshot *snap, const char *cpu,
		    const struct count *counts, const double *values)
{
	for (int e = 0; e < snap->nevents; e++) {
		const struct count *c = &counts[e];
		bool has = c->state == COUNT_OK || c->state == COUNT_SCALED;
		fprintf(out, "%.6f,%.3f,%s,event,%s,", snap->time_s, snap->interval_s * 1000, cpu,
			snap->event_names[e]);
		if (has && c->value == floor(c->value) && fabs(c->value) < 9007199254740992.0)
			fprintf(out, "%.0f", c->value);
		else if (has)
			fprintf(out, "%.17g", c->value);
		fprintf(out, ",%.4f,%s\n", c->running, count_state_name(c->state));
	}
	for (int m = 0; m < snap->nmetrics; m++) {
		fprintf(out, "%.6f,%.3f,%s,metric,%s,", snap->time_s, snap->interval_s * 1000, cpu,
			snap->metrics[m].name);
		if (!isnan(values[m]))
			fprintf(out, "%.6g", values[m]);
		fprintf(out, ",,%s\n", isnan(values[m]) ? "n/a" : "ok");
	}
}

static void output_csv(FILE *out, const struct snapshot *snap)
{
	if (snap->seq == 1)
		fprintf(out, "time_s,interval_ms,cpu,kind,name,value,running,state\n");
	for (int r = 0; r < snap->nrows; r++) {
		char cpu[16];
		snprintf(cpu, sizeof(cpu), "%d", snap->cpus[r]);
		csv_row(out, snap, cpu, &snap->counts[r * snap->nevents],
			&snap->values[r * snap->nmetrics]);
	}
	csv_row(out, snap, "all", snap->total_counts, snap->total_values);
}

static void text_cell_count(FILE *out, const struct count *c)
{
	char buf[32];
	if (c->state == COUNT_OK || c->state == COUNT_SCALED)
		output_format_value(c->value, buf, sizeof(buf));
	else
		snprintf(buf, sizeof(buf), "%s", count_state_mark(c->state));
	if (c->state == COUNT_SCALED) {
		char pct[40];
		snprintf(pct, sizeof(pct), "%s(%.0f%%)", buf, c->running * 100);
		fprintf(out, " %14s", pct);
	} else {
		fprintf(out, " %14s", buf);
	}
}

static void output_text(FILE *out, const struct output_meta *meta, const struct snapshot *snap)
{
	fprintf(out, "time %.3f s  interval %.1f ms  mode %s  backend %s%s\n", snap->time_s,
		snap->interval_s * 1000, meta->mode, meta->backend,
		meta->simulated ? "  SIMULATED"
		: meta->replay	? "  REPLAY"
				: "");
	fprintf(out, "%5s", "CPU");
	for (int m = 0; m < snap->nmetrics; m++) {
		char h[64];
		snprintf(h, sizeof(h), "%s%s%s%s%s", snap->metrics[m].split ? "*" : "",
			 snap->metrics[m].name, snap->metrics[m].unit[0] ? "[" : "",
			 snap->metrics[m].unit, snap->metrics[m].unit[0] ? "]" : "");
		fprintf(out, " %14.14s", h);
	}
	for (int e = 0; e < snap->nevents; e++)
		fprintf(out, " %14.14s", snap->event_names[e]);
	fputc('\n', out);
	for (int r = 0; r <= snap->nrows; r++) {
		bool total = r == snap->nrows;
		if (total)
			fprintf(out, "%5s", "all");
		else
			fprintf(out, "%5d", snap->cpus[r]);
		for (int m = 0; m < snap->nmetrics; m++) {
			char buf[32];
			output_format_value(total ? snap->total_values[m]
						  : snap->values[r * snap->nmetrics + m],
					    buf, sizeof(buf));
			fprintf(out, " %14s", buf);
		}
		const struct count *counts =
		    total ? snap->total_counts : &snap->counts[r * snap->nevents];
		for (int e = 0; e < snap->nevents; e++)
			text_cell_count(out, &counts[e]);
		fputc('\n', out);
	}
	for (int m = 0; m < snap->nmetrics; m++)
		if (snap->metrics[m].split) {
			fprintf(out, "* ratio of events counted in different rotated sets (never "
				     "together)\n");
			break;
		}
	if (meta->text_extra)
		meta->text_extra(meta->extra_ctx, out);
	fputc('\n', out);
}

int output_snapshot(FILE *out, enum output_format fmt, const struct output_meta *meta,
		    const struct snapshot *snap)
{
	int rc = 0;
	switch (fmt) {
	case OUTPUT_JSON:
		rc = output_json(out, meta, snap);
		break;
	case OUTPUT_CSV:
		output_csv(out, snap);
		break;
	case OUTPUT_TEXT:
		output_text(out, meta, snap);
		break;
	}
	if (fflush(out) != 0 || ferror(out))
		rc = -1;
	return rc;
}
