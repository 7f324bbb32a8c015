/* output.h: batch output of snapshots as text, CSV or JSON Lines. */
#ifndef PMUTOP_OUTPUT_H
#define PMUTOP_OUTPUT_H
#include "session.h"
#include <stdio.h>

enum output_format { OUTPUT_TEXT, OUTPUT_CSV, OUTPUT_JSON };

struct output_meta {
	const char *backend; /* "perf", "sim", "replay" */
	const char *mode;    /* mode name */
	bool simulated;
	bool replay;
	const char *source; /* replayed file, or NULL */
	const struct source_machine
	    *machine; /* JSON "machine" member (recorded sources), or NULL */
	/* Optional extra fields (jitter statistics, spikes): called with the json_t * of each CPU
	 * row (@rec NULL, @r its row) and then of the whole record (@row NULL, @r -1). */
	void (*json_extra)(void *ctx, void *rec, void *row, int r);
	/* Optional lines after a text record. */
	void (*text_extra)(void *ctx, FILE *out);
	void *extra_ctx;
};

/* "text", "csv", "json" -> format; -1 when unknown. */
int output_format_parse(const char *name);
struct frame;
/* Writes one record for frame @f (its snapshot, source, mode and window statistics). Returns 0,
 * or -1 when the stream failed (EPIPE, ENOSPC). */
int output_frame(FILE *out, enum output_format fmt, const struct frame *f);
/* Writes one record for @snap. Returns 0, or -1 when the stream failed (EPIPE, ENOSPC). */
int output_snapshot(FILE *out, enum output_format fmt, const struct output_meta *meta,
		    const struct snapshot *snap);
/* Formats a metric value for tables: "n/a" for NAN, else a width-limited number. */
void output_format_value(double v, char *buf, size_t len);
/* Compact form with an SI suffix: "20.7M", "512k", "3.21"; "n/a" for NAN. */
void output_format_si(double v, char *buf, size_t len);

#endif
