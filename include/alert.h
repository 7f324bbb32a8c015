/* SPDX-License-Identifier: GPL-2.0-or-later */
/* alert.h: spike rules ("cpi > 2.5 on 2-3", "mad ipc 5"), their evaluation and a bounded spike log.
 */
#ifndef PMUTOP_ALERT_H
#define PMUTOP_ALERT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cpuset.h"
#include "stats.h"

#define ALERT_METRIC_MAX 32 /* bytes, with the NUL */
#define ALERT_TEXT_MAX 96   /* bytes of canonical rule text, with the NUL */
#define ALERT_RULES_MAX 64  /* rules per set */

#define ALERT_MAD_WINDOW 64    /* samples, default W of a mad rule */
#define ALERT_MAD_WINDOW_MIN 4 /* samples */
#define ALERT_MAD_WINDOW_MAX 65536
#define ALERT_MAD_FLOOR_REL 0.01  /* default floor: 1% of |rolling median| */
#define ALERT_MAD_FLOOR_ABS 1e-12 /* always applied, so equal values never flag */

/*
 * Rule grammar (tokens separated by blanks; names are [A-Za-z_][A-Za-z0-9_.]*):
 *   METRIC OP NUMBER [on CPULIST]            OP is one of >  >=  <  <=
 *   mad METRIC K [window W] [floor F[%]] [on CPULIST]
 * A threshold rule fires when the metric's value compares true against NUMBER.
 * A mad rule fires when |x - m| > K * max(MAD, floor) where m and MAD are the median and
 * median absolute deviation of the previous W values of that metric on that CPU (x itself is
 * not in the window). The floor is F, or F% of |m|, default 1% of |m| (and never below 1e-12),
 * so a flat series (MAD 0) does not flag every wiggle. A mad rule stays quiet until its window
 * is half full. Values that are n/a (NaN or unknown metric) are skipped and not remembered.
 * CPULIST is the "0-3,8" syntax; without it the rule applies to every CPU.
 */
enum alert_kind { ALERT_THRESHOLD, ALERT_MAD };
enum alert_op { ALERT_GT, ALERT_GE, ALERT_LT, ALERT_LE };

struct alert_rule {
	enum alert_kind kind;
	char metric[ALERT_METRIC_MAX];
	enum alert_op op; /* threshold rules */
	double threshold; /* threshold rules */
	double k;	  /* mad rules: K, > 0 */
	unsigned window;  /* mad rules: W, samples */
	double floor_abs; /* mad rules: absolute floor of MAD */
	double floor_rel; /* mad rules: floor as a fraction of |median| */
	bool all_cpus;
	struct cpuset cpus;	   /* when !all_cpus */
	char text[ALERT_TEXT_MAX]; /* canonical text, e.g. "cpi > 2.5 on 2-3" */
};

/* Parses one rule. On error returns -1 with "col N: message" in @err (N counts bytes from 1)
 * and leaves @out unchanged. */
int alert_rule_parse(const char *text, struct alert_rule *out, char *err, size_t errlen);
/* True when @rule applies to @cpu. */
bool alert_rule_covers(const struct alert_rule *rule, int cpu);
/* ">", ">=", "<", "<=". */
const char *alert_op_name(enum alert_op op);

/* One detected spike. */
struct spike_event {
	double time_s; /* sample time, seconds (the caller's clock) */
	int cpu;
	char metric[ALERT_METRIC_MAX];
	double value;
	double baseline; /* threshold rules: the threshold; mad rules: the rolling median */
	double score;	 /* mad rules: (value - median) / max(MAD, floor); threshold rules: value -
			    threshold */
	char rule[ALERT_TEXT_MAX];
};

/* A bounded ring of spike events; the oldest are dropped first. */
struct spike_log {
	struct spike_event *ev;
	size_t cap, head, len;
	unsigned long long total; /* events ever pushed */
};

int spike_log_init(struct spike_log *log, size_t cap, char *err, size_t errlen);
void spike_log_free(struct spike_log *log);
void spike_log_clear(struct spike_log *log);
void spike_log_push(struct spike_log *log, const struct spike_event *ev);
/* Event @i, 0 = oldest held; NULL when out of range. */
const struct spike_event *spike_log_get(const struct spike_log *log, size_t i);
/* Events dropped because the log was full. */
unsigned long long spike_log_dropped(const struct spike_log *log);
size_t spike_log_bytes(const struct spike_log *log);
/* CSV with a header row "time_s,cpu,metric,value,baseline,score,rule" (RFC 4180 quoting, n/a
 * values as empty cells). Returns 0, or -1 with a cause on a write error. */
int spike_log_write_csv(const struct spike_log *log, FILE *f, char *err, size_t errlen);
/* JSON Lines: one object per event with the same keys; n/a values are null. */
int spike_log_write_jsonl(const struct spike_log *log, FILE *f, char *err, size_t errlen);

/* Value of @metric on @cpu for the current sample: returns 0, or -1 when unknown or n/a. */
typedef int (*alert_lookup_fn)(void *ctx, int cpu, const char *metric, double *value);

/* A list of rules with the per-CPU history that mad rules need. */
struct alert_set {
	int ncpu; /* CPUs 0..ncpu-1 have history; threshold rules work on any CPU */
	size_t n;
	struct alert_rule rules[ALERT_RULES_MAX];
	double *hist[ALERT_RULES_MAX];		    /* mad rules: ncpu * window values, else NULL */
	struct series_ring *rings[ALERT_RULES_MAX]; /* mad rules: ncpu rings */
	double *scratch;			    /* 3 * largest window */
	size_t scratch_cap;
};

void alert_set_init(struct alert_set *s, int ncpu);
void alert_set_free(struct alert_set *s);
/* Parses and appends a rule. On error returns -1 ("col N: ..." or a limit) and changes nothing. */
int alert_set_add(struct alert_set *s, const char *text, char *err, size_t errlen);
/* Removes rule @i; returns -1 when out of range. */
int alert_set_remove(struct alert_set *s, size_t i);
/* Forgets the history of every mad rule (after a mode switch, say). */
void alert_set_reset(struct alert_set *s);
size_t alert_set_bytes(const struct alert_set *s);
/* Evaluates every rule covering @cpu on one sample, appends spikes to @log (may be NULL) and
 * feeds mad-rule history. Call once per CPU per sample. Returns the number of spikes found. */
int alert_set_eval(struct alert_set *s, double time_s, int cpu, alert_lookup_fn lookup, void *ctx,
		   struct spike_log *log);

#endif
