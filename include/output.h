/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output.h: batch output of snapshots as text, CSV or JSON Lines. */
#ifndef PMUTOP_OUTPUT_H
#define PMUTOP_OUTPUT_H
#include "session.h"
#include <stdio.h>

/* What a format's records read beyond the snapshot (its row in the format table says): the
 * run computes these only when something reads them. */
#define OUTPUT_READS_STATS 0x1u	   /* window statistics members (quantiles, deviation) */
#define OUTPUT_READS_SPIKES 0x2u   /* the spike log and the program's own CPU use */
#define OUTPUT_READS_CADENCE 0x4u  /* the cadence line of every frame (frame.self) */
#define OUTPUT_READS_COUNTERS 0x8u /* the OpenMetrics counters (openmetrics.h) */

struct row_key;
struct output_meta {
	const char *backend; /* "perf", "sim", "replay" */
	const char *mode;    /* mode name */
	bool simulated;
	bool replay;
	const char *source; /* replayed file, or NULL */
	const struct source_machine
	    *machine;		 /* JSON "machine" member (recorded sources), or NULL */
	const char *util_source; /* frame.h util_source, or NULL */
	/* Optional extra fields (jitter statistics, spikes): called with the struct output_json *
	 * of each CPU row, open on that row's object after its own members (@rec NULL, @r its row),
	 * and then of the whole record, open on the record after "total" (@row NULL, @r -1). */
	void (*json_extra)(void *ctx, void *rec, void *row, int r);
	/* The offcore breakdown (offcore_nbits 0 in other modes): per bit and row, the total row
	 * (row nrows) last, [row * offcore_nbits + bit]: rate [requests/s], share [0..1] and age
	 * [ticks]; NAN / -1 = none (frame.h). */
	int offcore_nbits;
	const char *const *offcore_names;
	const double *offcore_rate, *offcore_share;
	const int *offcore_age;
	/* Optional lines after a text record. */
	void (*text_extra)(void *ctx, FILE *out);
	void *extra_ctx;
	const struct frame *frame; /* the frame written (output_frame), or NULL */
	/* rows summed by a unit (rows.h): its name ("core") and each row's key; NULL: per CPU */
	const char *row_unit;
	const struct row_key *row_keys;
};

/*
 * A JSON Lines record written straight into memory, in the form jansson dumps with
 * JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10): no blanks, members in the order
 * written, strings escaped as jansson does and, beyond it, DEL, the C1 controls and the
 * bidirectional controls as \uXXXX (so no string can drive a terminal). Every call takes the
 * member's @key inside an object and NULL inside an array. A byte of a key or string that is
 * not UTF-8 is written as text_escape() shows it ("\\xNN": a backslash, x, two hex digits).
 */
#define OUTPUT_JSON_DEPTH 16
struct output_json {
	char *buf;
	size_t len, cap; /* bytes */
	bool oom;	 /* an allocation failed: the record is incomplete */
	int depth;
	int skip;		       /* > 0: inside a member that is left out */
	bool more[OUTPUT_JSON_DEPTH];  /* something is written at this depth: next needs a comma */
	char close[OUTPUT_JSON_DEPTH]; /* '}' or ']' */
};
void output_json_object(struct output_json *w, const char *key);
void output_json_array(struct output_json *w, const char *key);
/* Closes the innermost object or array. */
void output_json_end(struct output_json *w);
/* @v rounded to 6 significant digits as a real ("2.5", "100.0", "1e-5"); null when not finite. */
void output_json_real(struct output_json *w, const char *key, double v);
void output_json_int(struct output_json *w, const char *key, long long v);
void output_json_null(struct output_json *w, const char *key);
void output_json_string(struct output_json *w, const char *key, const char *s);
/* True when @s is valid UTF-8 (what jansson accepts as a string). */
bool output_json_text_ok(const char *s);
/*
 * A member whose value the caller writes itself as JSON text (already escaped and valid, e.g.
 * an object built from fixed keys and numfmt numbers): returns where to write it, with @room
 * bytes free, or NULL when the member is left out or memory ran out; output_json_raw_done()
 * then takes the @n bytes written there.
 */
char *output_json_raw(struct output_json *w, const char *key, size_t room);
void output_json_raw_done(struct output_json *w, size_t n);
/* output_json_raw() keyed by metric @m of the record, named @name: its key made once per mode
 * (as output_json_raw(w, name, room) writes it). */
char *output_json_raw_metric(struct output_json *w, int m, const char *name, size_t room);

/* The @i-th format's name (-f), in table order (the first, text, is the default); NULL past
 * the end. */
const char *output_format_name(size_t i);
/* "text", "csv", "json", "openmetrics" -> the format's row; -1 when unknown. */
int output_format_parse(const char *name);
/* Batch output of the frame's guard and ownership map: JSON members "invalid" (when a count
 * is) and "owners" (when the map was read); text lines "invalid: ..." and "owner: ..."
 * (output_watch.c). */
struct frame;
void output_watch_json(struct output_json *w, const struct frame *f);
void output_watch_text(FILE *out, const struct frame *f);
/* What format @fmt reads (OUTPUT_READS_*); 0 for no such row. */
unsigned output_format_reads(int fmt);
struct frame;
/* Writes one record for frame @f (its snapshot, source, mode and window statistics). Returns 0,
 * or -1 when the stream failed (EPIPE, ENOSPC). */
int output_frame(FILE *out, int fmt, const struct frame *f);
/* Writes the @n bytes of a record at @buf to @out: with write(2) straight to its file when it has
 * one (after what stdio holds: no copy through stdio's buffer; partial writes and EINTR are
 * continued), through stdio for a stream in memory. Returns 0, or -1 with errno (EPIPE, ENOSPC). */
int output_write(FILE *out, const char *buf, size_t n);
/* Formats a metric value for tables: "n/a" for NAN; counts in full below 1e15 (1000000000,
 * never 1e+09), SI-prefixed above; 3 decimals for small values. */
void output_format_value(double v, char *buf, size_t len);
/* As output_format_value, with no more decimals than a value of step @resolution has. */
void output_format_metric(double v, double resolution, char *buf, size_t len);
/* Appends an error bar (frame.h: err, the 95 % half-width) to a formatted value: "1.32" becomes
 * "1.32±0.04"; "±?" when not known yet, "±0" for an exact value. */
void output_append_err(char *buf, size_t len, double err);
/* The mark of a coarse metric value (session.h: metric_detail.coarse) and its legend. */
#define OUTPUT_COARSE_MARK "^"
/* Writes the legend line for the coarse metrics of @snap into @buf ("" when none is coarse). */
void output_coarse_legend(const struct snapshot *snap, char *buf, size_t len);
/* The mark of a value not from one exact count: "*" it combines events measured in different
 * ticks (rotated sets), "^" coarse, "~" scaled (multiplexed); NULL for none. @d may be NULL. */
const char *output_value_mark(const struct snapshot *snap, int m, double running,
			      const struct metric_detail *d);
/* Those marks, the strongest first ("*", "^", "~"). */
extern const char *const output_marks[3];

/* One row's shares of a mode's stacked bar (frame.h: stack), as its cells show them. */
struct output_stack {
	double share[SESSION_MAX_STACK]; /* % of the whole */
	int n;
	bool na;	  /* a share is n/a (or its metric gone): no bar, no top share */
	int top;	  /* index of the largest share, -1: none */
	double sum;	  /* %: drawn as it is, never scaled to 100 */
	bool past_100;	  /* sum beyond 100 + OUTPUT_STACK_SLACK: the bar is cut at 100 % */
	const char *mark; /* the first of "*", "^", "~" its values carry (output_value_mark) */
};
#define OUTPUT_STACK_SLACK 0.5 /* percentage points shares may add past 100 (rounding) */
/* The shares of one row: @stack holds the snapshot's metric index of each (-1: gone); @vals,
 * @running and @detail (may be NULL) are the row's metric arrays. */
void output_stack_row(const struct snapshot *snap, const int *stack, int nstack, const double *vals,
		      const double *running, const struct metric_detail *detail,
		      struct output_stack *st);

/* Compact form with an SI suffix: "20.7M", "512k", "3.21"; "n/a" for NAN. */
void output_format_si(double v, char *buf, size_t len);

#endif
