/* SPDX-License-Identifier: GPL-2.0-or-later */
/* recorder.h: writes the running session to a recording (-r FILE, :record, :stop, :mark). */
#ifndef PMUTOP_RECORDER_H
#define PMUTOP_RECORDER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct app_ctx;

/*
 * Starts recording to @path ("-" = stdout) with the size limit and rotation of
 * app->opt.record_max / record_keep: writes the header and the running mode, then (as an app
 * hook) one tick per snapshot - the first one preceded by the read before it, so a replay
 * computes the same deltas - and a mode line on every mode or CPU-set switch. A write error
 * (full disk, closed pipe) stops the recording with a message in the app log; monitoring goes
 * on. Returns 0, or -1 with a message (cannot create the file, already recording).
 */
int recorder_start(struct app_ctx *app, const char *path, char *err, size_t errlen);
/* Stops and closes the recording; -1 with a message when none runs or the close failed. */
int recorder_stop(struct app_ctx *app, char *err, size_t errlen);
/* Adds a marker with @text; -1 when not recording or the write failed. */
int recorder_mark(struct app_ctx *app, const char *text, char *err, size_t errlen);
bool recorder_active(const struct app_ctx *app);
/* "REC file.jsonl 123 ticks" or "" (for the header line). */
void recorder_status(const struct app_ctx *app, char *buf, size_t len);
/* The header of a recording of this run: the machine the numbers come from (the recorded one
 * when re-recording a replay), the source, mode cadence and CPUs (@cpus: app->ncpus slots). */
struct rec_header;
struct rec_cpu_info;
void recorder_fill_header(struct app_ctx *app, struct rec_header *h, struct rec_cpu_info *cpus);
/* Parses a size for --record-max: "500k", "64M", "2G", plain bytes. -1 when invalid. */
int recorder_parse_size(const char *text, uint64_t *out);
/* Its inverse: @bytes in the largest unit that is exact ("64M", "500K", "70000"); returns @buf. */
char *recorder_format_size(uint64_t bytes, char *buf, size_t len);

#endif
