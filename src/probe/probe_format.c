/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe_format.c: cache-probe output: summary, tables, terminal plot, JSON, and the `probe`
 * command. */
#include "probe.h"
#include "safefile.h"
#include "textutil.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const agree_names[] = {
    [PROBE_AGREE_NONE] = "no sysfs value",   [PROBE_AGREE_OK] = "agrees",
    [PROBE_AGREE_NEAR] = "near (within 2x)", [PROBE_AGREE_MISMATCH] = "MISMATCH (over 2x)",
    [PROBE_AGREE_NOTFOUND] = "not found",    [PROBE_AGREE_BEYOND] = "beyond probed range",
};

static const char *const agree_keys[] = {
    [PROBE_AGREE_NONE] = "no_sysfs",	  [PROBE_AGREE_OK] = "agrees",
    [PROBE_AGREE_NEAR] = "near",	  [PROBE_AGREE_MISMATCH] = "mismatch",
    [PROBE_AGREE_NOTFOUND] = "not_found", [PROBE_AGREE_BEYOND] = "beyond_range",
};

/* A FILE * sink for the formatters: probe_format_table(r, probe_line_file, stdout). */
static void probe_line_file(void *ctx, const char *line)
{
	text_fputs(line, (FILE *)ctx);
	fputc('\n', (FILE *)ctx);
}

__attribute__((format(printf, 3, 4))) static void emit(probe_line_fn fn, void *ctx, const char *fmt,
						       ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fn(ctx, buf);
}

static char *fmt_cycles(const struct probe_result *r, double ns, char *buf, size_t len)
{
	if (r->ghz > 0 && ns > 0)
		snprintf(buf, len, "%.1f", ns * r->ghz);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* Copies @s escaped (strings from files). */
static char *escape(const char *s, char *buf, size_t len)
{
	text_escape(s, TEXT_NUL_TERMINATED, buf, len);
	return buf;
}

void probe_format_summary(const struct probe_result *r, probe_line_fn fn, void *ctx)
{
	char a[32], b[32], c[32], t[40];

	emit(fn, ctx, "Cache probe: CPU %d, %s, %s..%s, %d rounds, %.1f s", r->cpu,
	     r->quick ? "quick" : "full", probe_format_size(1024, a, sizeof(a)),
	     probe_format_size(r->max_size, b, sizeof(b)), r->rounds, r->elapsed_s);
	if (r->ghz > 0)
		emit(fn, ctx, "Cycle rate: %.2f GHz (%s)", r->ghz, r->ghz_source);
	else
		emit(fn, ctx, "Cycle rate: unknown (%s; latencies in ns only)",
		     r->ghz_source[0] ? r->ghz_source : "not measured");
	if (r->warning[0])
		emit(fn, ctx, "WARNING: %s", r->warning);
	emit(fn, ctx, "%-7s %-10s %-5s %8s %7s  %-8s %-5s %s", "level", "measured", "conf",
	     "hit ns", "cycles", "sysfs", "line", "verdict");
	for (int i = 0; i < r->nlevels; i++) {
		const struct probe_level *lv = &r->levels[i];
		const char *type = "";
		for (int k = 0; k < r->nsysfs; k++)
			if (r->sysfs[k].level == lv->level)
				type = r->sysfs[k].type;
		snprintf(a, sizeof(a), "%s",
			 lv->size > 0 ? probe_format_size(lv->size, b, sizeof(b)) : "not found");
		char hit[16] = "-", line[16] = "-", sys[32] = "-";
		if (lv->hit_ns > 0)
			snprintf(hit, sizeof(hit), "%.2f", lv->hit_ns);
		if (lv->sysfs_line > 0)
			snprintf(line, sizeof(line), "%dB", lv->sysfs_line);
		if (lv->sysfs_size > 0)
			probe_format_size(lv->sysfs_size, sys, sizeof(sys));
		emit(fn, ctx, "L%-6d %-10s %-5.2f %8s %7s  %-8s %-5s %s%s%s%s%s", lv->level, a,
		     lv->confidence, hit, fmt_cycles(r, lv->hit_ns, c, sizeof(c)), sys, line,
		     agree_names[lv->agree], *type ? " (" : "", escape(type, t, sizeof(t)),
		     *type ? ")" : "", lv->unstable ? " UNSTABLE" : "");
		if (lv->unstable)
			emit(fn, ctx,
			     "        unstable: the even and odd rounds cross at %s and %s, %d "
			     "point(s) on the wrong side of the step; %d of %d rounds within 15%%",
			     lv->round_min > 0 ? probe_format_size(lv->round_min, a, sizeof(a))
					       : "-",
			     lv->round_max > 0 ? probe_format_size(lv->round_max, b, sizeof(b))
					       : "-",
			     lv->noisy_points, lv->rounds_agree, lv->rounds_used);
		if (lv->evidence[0])
			emit(fn, ctx, "        L%d %s", lv->level, lv->evidence);
	}
	if (r->remeasured > 0)
		emit(fn, ctx, "Measured again: %d extra round(s) over unstable levels",
		     r->remeasured);
	if (r->mem_ns > 0)
		emit(fn, ctx, "memory  %-10s %-5s %8.2f %7s  (%s)", "", "", r->mem_ns,
		     fmt_cycles(r, r->mem_ns, c, sizeof(c)), r->mem_note);
	else
		emit(fn, ctx, "memory  latency %s", r->mem_note);
	if (r->line_buffer > 0) {
		if (r->line > 0)
			emit(
			    fn, ctx,
			    "Line size: %d B (confidence %.2f; pair test, %d/%d rounds agree%s, %s "
			    "buffer)",
			    r->line, r->line_conf, r->line_agree, r->line_rounds,
			    r->line_unstable ? ", UNSTABLE" : "",
			    probe_format_size(r->line_buffer, a, sizeof(a)));
		else
			emit(fn, ctx, "Line size: not found (confidence %.2f)", r->line_conf);
	}
	if (r->ntlb > 0) {
		static const char *const names[] = {"first-level TLB", "second-level TLB"};
		for (int i = 0; i < 2; i++) {
			if (r->tlb_entries[i] > 0)
				emit(fn, ctx,
				     "TLB reach (%s): ~%.0f entries x %s = %s (confidence %.2f%s)",
				     names[i], r->tlb_entries[i],
				     probe_format_size(r->page_size, a, sizeof(a)),
				     probe_format_size(r->tlb_entries[i] * r->page_size, b,
						       sizeof(b)),
				     r->tlb_conf[i],
				     r->tlb_open[i] ? "; rise not levelled off" : "");
			else
				emit(fn, ctx, "TLB reach (%s): not found up to %.0f pages",
				     names[i], r->tlb_pages[r->ntlb - 1]);
		}
	}
	if (r->skipped[0])
		emit(fn, ctx, "%s", r->skipped);
	if (r->counter_msg[0])
		emit(fn, ctx, "%s", r->counter_msg);
}

void probe_format_table(const struct probe_result *r, probe_line_fn fn, void *ctx)
{
	char a[32], c[32], m[32];

	emit(fn, ctx, "%-8s %9s %7s %7s %10s %10s", "size", "ns/load", "cycles", "spread",
	     "L1miss est", "L1miss cnt");
	for (int k = 0; k < r->npoints; k++) {
		const struct probe_point *pt = &r->points[k];
		char est[16] = "-";
		if (!isnan(pt->miss_est))
			snprintf(est, sizeof(est), "%.2f", pt->miss_est);
		if (!isnan(pt->miss_counted))
			snprintf(m, sizeof(m), "%.3f", pt->miss_counted);
		else
			snprintf(m, sizeof(m), "n/a");
		emit(fn, ctx, "%-8s %9.2f %7s %6.1f%% %10s %10s",
		     probe_format_size(pt->size, a, sizeof(a)), pt->ns,
		     fmt_cycles(r, pt->ns, c, sizeof(c)), pt->spread * 100, est, m);
	}
}

void probe_format_plot(const struct probe_result *r, int width, int height, probe_line_fn fn,
		       void *ctx)
{
	char row[1024], lab[32];
	int n = r->npoints;

	if (n < 2 || width < 10 || height < 3)
		return;
	if (width > 900)
		width = 900;
	double lo = INFINITY, hi = 0;
	for (int k = 0; k < n; k++)
		if (r->points[k].ns > 0) {
			lo = fmin(lo, r->points[k].ns);
			hi = fmax(hi, r->points[k].ns);
		}
	if (!(hi > 0))
		return;
	if (hi / lo < 2)
		hi = lo * 2;
	double ylo = log(lo), yhi = log(hi);
	double xlo = log2(r->points[0].size), xhi = log2(r->points[n - 1].size);
	/* column of each point, and of each detected step */
	int col[256];
	for (int k = 0; k < n && k < 256; k++)
		col[k] = (int)lround((log2(r->points[k].size) - xlo) / (xhi - xlo) * (width - 1));
	emit(fn, ctx, "ns/load (log) against working-set size (log); '|' marks a detected step");
	for (int y = height - 1; y >= 0; y--) {
		double v = exp(ylo + (yhi - ylo) * y / (height - 1));
		int w = snprintf(row, sizeof(row), "%8.2f |", v);
		memset(row + w, ' ', (size_t)width);
		row[w + width] = 0;
		for (int b = 0; b < r->detect.nbounds; b++) {
			int cx = (int)lround((log2(r->detect.b[b].size) - xlo) / (xhi - xlo) *
					     (width - 1));
			if (cx >= 0 && cx < width)
				row[w + cx] = '|';
		}
		for (int k = 0; k < n && k < 256; k++) {
			if (!(r->points[k].ns > 0))
				continue;
			int py =
			    (int)lround((log(r->points[k].ns) - ylo) / (yhi - ylo) * (height - 1));
			if (py == y)
				row[w + col[k]] = '*';
		}
		/* trim trailing blanks */
		int e = (int)strlen(row);
		while (e > 0 && row[e - 1] == ' ')
			row[--e] = 0;
		fn(ctx, row);
	}
	int w = snprintf(row, sizeof(row), "%8s +", "");
	memset(row + w, '-', (size_t)width);
	row[w + width] = 0;
	fn(ctx, row);
	/* size labels at every power of 4 that fits */
	w = snprintf(row, sizeof(row), "%8s  ", "");
	memset(row + w, ' ', (size_t)width + 8);
	row[w + width + 8] = 0;
	int last_end = -1;
	for (double s = 1024; s <= r->points[n - 1].size * 1.001; s *= 4) {
		int cx = (int)lround((log2(s) - xlo) / (xhi - xlo) * (width - 1));
		probe_format_size(s, lab, sizeof(lab));
		int len = (int)strlen(lab);
		if (cx <= last_end || cx + len > width + 8)
			continue;
		memcpy(row + w + cx, lab, (size_t)len);
		last_end = cx + len;
	}
	int e = (int)strlen(row);
	while (e > 0 && row[e - 1] == ' ')
		row[--e] = 0;
	fn(ctx, row);
}

static int seed_line(const struct probe_result *r)
{
	if (r->line > 0)
		return r->line;
	for (int i = 0; i < r->nsysfs; i++)
		if (r->sysfs[i].level == 1 && r->sysfs[i].line > 0)
			return r->sysfs[i].line;
	return 64;
}

static double seed_at(const struct probe_result *r, double size, int st)
{
	for (int i = 0; i < r->nseed_sizes; i++)
		if (r->seed_sizes[i] == size)
			return r->seed_ns[i * PROBE_NSTRIDES + st];
	return NAN;
}

void probe_format_seed(const struct probe_result *r, probe_line_fn fn, void *ctx)
{
	char a[32], b[32], buf[512];
	int line = seed_line(r);

	if (r->line_buffer > 0) {
		emit(fn, ctx,
		     "Line size pair test (dependent loads of A then A+d, %s buffer, minimum of %d "
		     "rounds):",
		     probe_format_size(r->line_buffer, a, sizeof(a)), r->line_rounds);
		emit(fn, ctx, "%8s %9s  %s", "offset", "ns/load", "second load");
		for (int i = 0; i < PROBE_NLINE; i++)
			emit(fn, ctx, "%7dB %9.2f  %s", r->line_strides[i], r->line_ns[i],
			     r->line > 0 ? (r->line_strides[i] < r->line ? "same line (hit)"
									 : "next line (miss)")
					 : "-");
	}
	emit(fn, ctx,
	     "Seed miss-rate table for a %d B line (stride in DWORDs of 4 B -> miss rate):", line);
	for (int d = line / 4; d >= 1; d /= 2)
		emit(fn, ctx, "  %3d DWORDs  %6.4f", d, probe_seed_miss_rate(4 * d, line));
	if (r->nseed_sizes <= 0)
		return;
	emit(
	    fn, ctx,
	    "Seed strided sweep (sequential independent loads, ns per access; prefetch helps it):");
	int w = snprintf(buf, sizeof(buf), "%8s", "size");
	for (int s = 0; s < PROBE_NSTRIDES; s++)
		w += snprintf(buf + w, sizeof(buf) - (size_t)w, " %6dB", r->seed_strides[s]);
	fn(ctx, buf);
	for (int i = 0; i < r->nseed_sizes; i++) {
		w = snprintf(buf, sizeof(buf), "%8s",
			     probe_format_size(r->seed_sizes[i], a, sizeof(a)));
		for (int s = 0; s < PROBE_NSTRIDES; s++)
			w += snprintf(buf + w, sizeof(buf) - (size_t)w, " %7.2f",
				      r->seed_ns[i * PROBE_NSTRIDES + s]);
		fn(ctx, buf);
	}
	if (!(r->seed_hit_size > 0)) {
		emit(fn, ctx, "Seed MissTime: not available (no L1 size)");
		return;
	}
	emit(fn, ctx,
	     "Seed formula MISS_RATE*MissTime + (1-MISS_RATE)*HitTime[%s] = AccessTime[%s] "
	     "(estimate):",
	     probe_format_size(r->seed_hit_size, a, sizeof(a)),
	     probe_format_size(r->seed_miss_size, b, sizeof(b)));
	emit(fn, ctx, "%8s %9s %9s %10s %9s", "stride", "miss rate", "HitTime", "AccessTime",
	     "MissTime");
	for (int s = 0; s < PROBE_NSTRIDES; s++) {
		double mr = probe_seed_miss_rate(r->seed_strides[s], line);
		double h = seed_at(r, r->seed_hit_size, s), ac = seed_at(r, r->seed_miss_size, s);
		double mt = probe_seed_miss_time(ac, h, mr);
		char m[24] = "<hit";
		if (mt >= h)
			snprintf(m, sizeof(m), "%.2f", mt);
		emit(fn, ctx, "%7dB %9.3f %9.2f %10.2f %9s", r->seed_strides[s], mr, h, ac, m);
	}
	emit(fn, ctx,
	     "(sequential loads are prefetched: these MissTimes understate the miss cost;");
	emit(fn, ctx, " the dependent-load walk above is the reliable one)");
}

void probe_format_tlb(const struct probe_result *r, probe_line_fn fn, void *ctx)
{
	if (r->ntlb <= 0)
		return;
	emit(fn, ctx,
	     "TLB chase: one load per 4K page vs the same loads packed in lines (ns/load)");
	emit(fn, ctx, "%7s %9s %9s %9s", "pages", "per-page", "packed", "extra");
	for (int k = 0; k < r->ntlb; k++)
		emit(fn, ctx, "%7.0f %9.2f %9.2f %9.2f", r->tlb_pages[k], r->tlb_page_ns[k],
		     r->tlb_line_ns[k], r->tlb_page_ns[k] - r->tlb_line_ns[k]);
}

static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* Writes the raw curve (sysfs, every round of the sweep and of the line test) in the text format
 * of docs/probe.md ("pmutop probe curve 1"); returns 0 or -1. */
static int probe_write_curve(const struct probe_result *r, FILE *out)
{
	char t[40];

	fprintf(out, "# pmutop probe curve 1\n");
	fprintf(out, "cpu %d\nmax_size %.0f\n", r->cpu, r->max_size);
	for (int i = 0; i < r->nsysfs; i++)
		fprintf(out, "sysfs %d %s %.0f %d\n", r->sysfs[i].level,
			escape(r->sysfs[i].type, t, sizeof(t)), r->sysfs[i].size, r->sysfs[i].line);
	fprintf(out, "rounds %d\n", r->sweep_rounds);
	for (int k = 0; k < r->npoints && r->samples; k++) {
		fprintf(out, "size %.0f", r->points[k].size);
		for (int q = 0; q < r->sweep_rounds; q++) {
			double v = r->samples[q * r->npoints + k];
			if (v > 0)
				fprintf(out, " %.3f", v);
			else
				fprintf(out, " -");
		}
		fputc('\n', out);
	}
	if (r->line_buffer > 0) {
		fprintf(out, "line_rounds %d\n", r->line_rounds);
		for (int i = 0; i < PROBE_NLINE; i++) {
			fprintf(out, "line %d", r->line_strides[i]);
			for (int q = 0; q < r->line_rounds; q++)
				fprintf(out, " %.3f", r->line_samp[q][i]);
			fputc('\n', out);
		}
	}
	return ferror(out) ? -1 : 0;
}

int probe_write_json(const struct probe_result *r, FILE *out)
{
	json_t *o = json_object(), *levels = json_array(), *points = json_array(),
	       *sys = json_array();
	char t[40];

	json_object_set_new(o, "cpu", json_integer(r->cpu));
	json_object_set_new(o, "mode", json_string(r->quick ? "quick" : "full"));
	json_object_set_new(o, "max_size", json_real(r->max_size));
	json_object_set_new(o, "rounds", json_integer(r->rounds));
	json_object_set_new(o, "elapsed_s", json_real(r->elapsed_s));
	json_object_set_new(o, "ghz", r->ghz > 0 ? json_real(r->ghz) : json_null());
	json_object_set_new(o, "ghz_source", json_string(r->ghz_source));
	json_object_set_new(o, "warning", r->warning[0] ? json_string(r->warning) : json_null());
	for (int i = 0; i < r->nlevels; i++) {
		const struct probe_level *lv = &r->levels[i];
		json_array_append_new(
		    levels,
		    json_pack(
			"{s:i, s:o, s:f, s:o, s:o, s:o, s:i, s:s, s:b, s:s}", "level", lv->level,
			"size", lv->size > 0 ? json_real(lv->size) : json_null(), "confidence",
			lv->confidence, "hit_ns",
			lv->hit_ns > 0 ? json_real(lv->hit_ns) : json_null(), "hit_cycles",
			lv->hit_ns > 0 && r->ghz > 0 ? json_real(lv->hit_ns * r->ghz) : json_null(),
			"sysfs_size", lv->sysfs_size > 0 ? json_real(lv->sysfs_size) : json_null(),
			"sysfs_line", lv->sysfs_line, "sysfs", agree_keys[lv->agree], "unstable",
			lv->unstable, "evidence", lv->evidence));
	}
	json_object_set_new(o, "levels", levels);
	json_object_set_new(o, "memory_ns", r->mem_ns > 0 ? json_real(r->mem_ns) : json_null());
	json_object_set_new(o, "memory_note", json_string(r->mem_note));
	json_object_set_new(o, "line", r->line > 0 ? json_integer(r->line) : json_null());
	json_object_set_new(o, "line_confidence", json_real(r->line_conf));
	json_object_set_new(o, "line_unstable", json_boolean(r->line_unstable));
	json_object_set_new(o, "remeasured_rounds", json_integer(r->remeasured));
	json_t *tlb = json_array();
	for (int i = 0; i < 2; i++)
		json_array_append_new(
		    tlb,
		    json_pack("{s:o, s:f, s:f}", "entries",
			      r->tlb_entries[i] > 0 ? json_real(r->tlb_entries[i]) : json_null(),
			      "page_size", r->page_size, "confidence", r->tlb_conf[i]));
	json_object_set_new(o, "tlb", tlb);
	json_object_set_new(o, "l1d_counter", json_boolean(r->counter_ok));
	json_object_set_new(o, "l1d_counter_message", json_string(r->counter_msg));
	for (int k = 0; k < r->npoints; k++) {
		const struct probe_point *pt = &r->points[k];
		json_array_append_new(
		    points, json_pack("{s:f, s:o, s:o, s:o, s:o}", "size", pt->size, "ns",
				      num(pt->ns), "spread", num(pt->spread), "l1_miss_est",
				      num(pt->miss_est), "l1_miss_counted", num(pt->miss_counted)));
	}
	json_object_set_new(o, "points", points);
	for (int i = 0; i < r->nsysfs; i++)
		json_array_append_new(sys, json_pack("{s:i, s:s, s:f, s:i}", "level",
						     r->sysfs[i].level, "type",
						     escape(r->sysfs[i].type, t, sizeof(t)), "size",
						     r->sysfs[i].size, "line", r->sysfs[i].line));
	json_object_set_new(o, "sysfs", sys);
	if (r->line_buffer > 0) {
		json_t *lw = json_array();
		for (int i = 0; i < PROBE_NLINE; i++)
			json_array_append_new(lw,
					      json_pack("{s:i, s:o}", "stride", r->line_strides[i],
							"ns", num(r->line_ns[i])));
		json_object_set_new(o, "line_walk", lw);
	}
	if (r->nseed_sizes > 0) {
		json_t *sd = json_array();
		for (int i = 0; i < r->nseed_sizes; i++) {
			json_t *row = json_array();
			for (int s = 0; s < PROBE_NSTRIDES; s++)
				json_array_append_new(row, num(r->seed_ns[i * PROBE_NSTRIDES + s]));
			json_array_append_new(
			    sd, json_pack("{s:f, s:o}", "size", r->seed_sizes[i], "ns", row));
		}
		json_object_set_new(o, "seed_sweep", sd);
	}
	/* ENSURE_ASCII: a sysfs string cannot put a C1 or bidi control on the terminal */
	int rc = json_dumpf(o, out, JSON_COMPACT | JSON_ENSURE_ASCII) < 0 ? -1 : 0;
	fputc('\n', out);
	json_decref(o);
	return rc;
}

static void usage(FILE *f)
{
	text_fprintf(
	    f, "usage: pmutop probe cache [--quick] [--cpu N] [--max-size SIZE] [--json] "
	       "[--dump FILE] [--sysfs-root DIR]\n"
	       "  Measures cache sizes, line size, hit and memory latencies and TLB reach on "
	       "one pinned CPU\n"
	       "  with a random pointer chase, and compares them with sysfs.\n"
	       "  --quick          L1d, line and L2 in a few seconds (sizes to 8M)\n"
	       "  --cpu N          CPU to pin to (default: the current one)\n"
	       "  --max-size SIZE  largest working set, e.g. 64M (default 8M quick, 64M full)\n"
	       "  --json           one JSON object instead of tables\n"
	       "  --dump FILE      also write the raw curve (every round) to FILE\n"
	       "  --sysfs-root DIR read DIR/sys/devices/system/cpu/... instead of /sys\n");
}

/* Value of "--opt V" or "--opt=V"; advances *i. NULL when missing. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (*i + 1 < argc)
		return argv[++*i];
	return NULL;
}

static bool is_opt(const char *arg, const char *name)
{
	size_t n = strlen(name);
	return strncmp(arg, name, n) == 0 && (arg[n] == 0 || arg[n] == '=');
}

int probe_cli(int argc, char **argv, FILE *out, FILE *err)
{
	struct probe_opts o = {.cpu = -1};
	bool json = false;
	const char *dump = NULL;
	char e[200], esc[120];

	if (argc < 1 || !argv[0]) {
		usage(err);
		return 2;
	}
	if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
		usage(out);
		return 0;
	}
	if (strcmp(argv[0], "cache")) {
		text_fprintf(err, "pmutop probe: unknown probe '%s' (known: cache)\n",
			     escape(argv[0], esc, sizeof(esc)));
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(out);
			return 0;
		} else if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--quick")) {
			o.quick = true;
		} else if (is_opt(a, "--cpu")) {
			char *end;
			if (!(v = opt_value(argc, argv, &i, "--cpu"))) {
				text_fprintf(err, "pmutop probe: --cpu needs a CPU number\n");
				return 2;
			}
			long c = strtol(v, &end, 10);
			if (!*v || *end || c < 0 || c > 1 << 20) {
				text_fprintf(err, "pmutop probe: bad CPU number '%s'\n",
					     escape(v, esc, sizeof(esc)));
				return 2;
			}
			o.cpu = (int)c;
		} else if (is_opt(a, "--max-size")) {
			size_t s;
			if (!(v = opt_value(argc, argv, &i, "--max-size"))) {
				text_fprintf(err,
					     "pmutop probe: --max-size needs a size (e.g. 64M)\n");
				return 2;
			}
			if (probe_parse_size(v, &s, e, sizeof(e)) < 0) {
				text_fprintf(err, "pmutop probe: --max-size: %s\n",
					     escape(e, esc, sizeof(esc)));
				return 2;
			}
			o.max_size = s;
		} else if (is_opt(a, "--dump")) {
			if (!(v = opt_value(argc, argv, &i, "--dump")) || !*v) {
				fprintf(err, "pmutop probe: --dump needs a file name\n");
				return 2;
			}
			dump = v;
		} else if (is_opt(a, "--sysfs-root")) {
			if (!(v = opt_value(argc, argv, &i, "--sysfs-root")) || !*v) {
				text_fprintf(err, "pmutop probe: --sysfs-root needs a directory\n");
				return 2;
			}
			o.sysfs_root = v;
		} else {
			text_fprintf(err, "pmutop probe: unknown option '%s' (see --help)\n",
				     escape(a, esc, sizeof(esc)));
			return 2;
		}
	}
	if (o.cpu >= 0 && probe_check_cpu(o.sysfs_root, o.cpu, e, sizeof(e)) < 0) {
		text_fprintf(err, "pmutop probe: %s\n", e);
		return 2;
	}
	size_t cap = probe_max_working_set_here();
	if (o.max_size && (o.max_size < 8192 || o.max_size > cap)) {
		text_fprintf(err, "pmutop probe: --max-size must be between 8K and %s here\n",
			     probe_format_size((double)cap, e, sizeof(e)));
		return 2;
	}
	FILE *df = NULL;
	if (dump && !(df = safe_fopen(dump, SAFE_CREATE_NAMED))) {
		text_fprintf(err, "pmutop probe: --dump %s: %s\n", dump,
			     safe_create_reason(dump, errno));
		return 2;
	}
	struct probe *p = probe_new(&o, e, sizeof(e));
	if (!p) {
		text_fprintf(err, "pmutop probe: %s\n", e);
		if (df)
			fclose(df);
		return 1;
	}
	int rc;
	while ((rc = probe_step(p, 100)) > 0)
		;
	if (rc < 0) {
		text_fprintf(err, "pmutop probe: %s\n", probe_error(p));
		rc = strstr(probe_error(p), "cannot pin") ? 2 : 1;
		probe_free(p);
		if (df)
			fclose(df);
		return rc;
	}
	const struct probe_result *r = probe_result(p);
	if (df) {
		bool bad = probe_write_curve(r, df) < 0;
		if (fclose(df) != 0 || bad) {
			fprintf(err, "pmutop probe: --dump: cannot write '%s'\n",
				escape(dump, esc, sizeof(esc)));
			probe_free(p);
			return 1;
		}
	}
	if (json) {
		rc = probe_write_json(r, out) < 0 ? 1 : 0;
	} else {
		probe_format_summary(r, probe_line_file, out);
		fputc('\n', out);
		probe_format_plot(r, 65, 16, probe_line_file, out);
		fputc('\n', out);
		probe_format_table(r, probe_line_file, out);
		fputc('\n', out);
		probe_format_seed(r, probe_line_file, out);
		fputc('\n', out);
		probe_format_tlb(r, probe_line_file, out);
	}
	probe_free(p);
	return rc;
}
