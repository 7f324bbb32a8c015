/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe.h: cache-geometry probe (pointer-chase latency sweep, line size, TLB reach, seed AMAT
 * table). */
#ifndef PMUTOP_PROBE_H
#define PMUTOP_PROBE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROBE_MAX_BOUNDS 8   /* latency steps one curve may hold */
#define PROBE_MAX_LEVELS 4   /* cache levels reported */
#define PROBE_MAX_SYSFS 8    /* sysfs cache entries kept */
#define PROBE_NSTRIDES 7     /* seed strides: 4..256 B */
#define PROBE_NLINE 6	     /* line-size pair offsets: 8..256 B */
#define PROBE_MAX_POINTS 160 /* working-set sizes in one sweep */
#define PROBE_MAX_ROUNDS 24  /* sweep rounds, the re-measured ones included */
#define PROBE_LINE_ROUNDS 16 /* line-size rounds */

/* ---- pure boundary detection (src/probe_detect.c) ---- */

/* One step between two latency plateaus. */
struct probe_bound {
	double size;	   /* bytes: where the curve crosses the midpoint of the two plateaus */
	double below_ns;   /* plateau latency before the step */
	double above_ns;   /* plateau latency after the step */
	double confidence; /* 0..1: step height against noise, and plateau support */
	int lo, hi;	   /* grid indices of the plateau end before and start after the step */
	int below_from;	   /* grid index where the plateau before the step starts (fit only) */
	int above_to;	   /* grid index where the plateau after the step ends (fit only) */
};

struct probe_detect {
	int nbounds;
	struct probe_bound b[PROBE_MAX_BOUNDS];
	double first_ns; /* latency of the first plateau (0 when none) */
	double last_ns;	 /* latency of the last plateau (0 when none) */
	bool tail_flat;	 /* the curve ends on a plateau (no unfinished rise) */
	int open_from;	 /* index where an unfinished rise of at least jump_min begins; -1 = none */
	double open_ratio; /* last point over the last plateau, when open_from >= 0 */
	double noise;	   /* relative noise per point used (log units) */
	double jump_min;   /* smallest plateau ratio accepted as a step */
};

/* Decides the cache levels of @r (points[].size, sysfs and max_size set) from the sweep samples
 * @samp[round * r->npoints + k] (ns per load, NAN = not measured): fills points[].ns (minimum
 * over rounds) and spread, detect, levels, mem_ns/mem_note, miss_est and warning. A level is
 * unstable when the minimum curves of the even and of the odd rounds cross its step more than
 * 15% apart, or the minimum curve has points on the wrong side of it; for
 * each unstable level @win_lo/@win_hi (PROBE_MAX_LEVELS entries, may be NULL) get the grid
 * window to measure again. Returns the number of unstable levels. */
struct probe_result;
int probe_decide_sizes(struct probe_result *r, const double *samp, int rounds, int *win_lo,
		       int *win_hi);
/* The sysfs size of cache @level in @r (bytes), 0 when sysfs has none. */
double probe_sysfs_size(const struct probe_result *r, int level);

/* Finds the latency steps of a curve over an ascending size grid. @noise is the relative noise of
 * one point (0.03 = 3%); <= 0 estimates it from the curve. Steps smaller than max(1.3x,
 * exp(6*noise)) are not reported. Returns the number of steps, or -1 (bad input) with @out cleared.
 */
int probe_detect_levels(const double *sizes, const double *latency_ns, int n, double noise,
			struct probe_detect *out);

/* Maps cache levels to the steps of @d: @bound_of[L - 1] is the step that ends level L, or -1
 * when the plateau below a step sits more than 1.5x above the plateau after the previous step
 * (the latency rose without a trusted step: that level was missed, so it is "not found" rather
 * than given the next step's size). Returns the number of levels mapped (at most @max). */
int probe_assign_levels(const struct probe_detect *d, int *bound_of, int max);

/* Line size from a within-page random walk at strides @strides (bytes, ascending): fits
 * t(s) = hit + min(1, s/L) * (miss - hit) for L in 16..512 and returns the best L (bytes),
 * or 0 when the curve shows no L1 miss cost (not found). @confidence gets 0..1. */
int probe_detect_line(const int *strides, const double *ns, int n, double *confidence);

/* Line size from the pair test: each chase node loads a 512 B-aligned address A and then A + d
 * (@offsets d, ascending); the second load hits while d is below the line size and misses from
 * it on. @samp[round * @n + i] is ns per load (NAN = not measured). Fits a step low/high over
 * the per-offset minimum across rounds, writes it to @ns_out, and returns the smallest offset
 * that starts the high side (bytes), or 0 when no step of at least 1.12x is found. @confidence
 * gets 0..1; @agree gets how many rounds alone decide the same line size; @unstable is set
 * unless the minimum curves of the even and of the odd rounds each give that size. */
int probe_decide_line(const int *offsets, const double *samp, int n, int rounds, double *ns_out,
		      double *confidence, int *agree, bool *unstable);

/* The seed's miss rate for a stride over a line: min(1, stride/line). */
double probe_seed_miss_rate(int stride_bytes, int line_bytes);
/* The seed's formula MISS_RATE*MissTime + (1-MISS_RATE)*HitTime = AccessTime, solved for MissTime.
 * Returns NAN when @miss_rate <= 0. */
double probe_seed_miss_time(double access_ns, double hit_ns, double miss_rate);

/* Largest working set the probe may map: min(4 GiB, @ram_bytes / 4, @size_max / 4), rounded
 * down to a MiB; @ram_bytes 0 = unknown (not used). Safe for a 32-bit @size_max. */
uint64_t probe_max_working_set(uint64_t ram_bytes, uint64_t size_max);
/* The same for this process: physical memory from sysconf, SIZE_MAX. */
size_t probe_max_working_set_here(void);

/* Parses "64M", "512K", "1G", "4096", "2MiB" (binary units). Returns 0, or -1 with a message. */
int probe_parse_size(const char *text, size_t *bytes, char *err, size_t errlen);
/* Writes 1536 as "1.5K", 2097152 as "2M"; returns @buf. */
char *probe_format_size(double bytes, char *buf, size_t len);

/* ---- sysfs ---- */

struct probe_sysfs_cache {
	int level;
	char type[16]; /* "Data", "Unified" (escaped) */
	double size;   /* bytes */
	int line;      /* bytes, 0 when unknown */
};

/* Reads <root>/sys/devices/system/cpu/cpu<cpu>/cache/index*; data and unified caches only, by
 * level.
 * @root may be NULL or "" for "/". Returns the count (0 when absent). */
int probe_sysfs_read(const char *root, int cpu, struct probe_sysfs_cache *out, int max);
/* The clock the system reports for @cpu under @root: cpufreq's cpuinfo_max_freq and
 * scaling_cur_freq, and /proc/cpuinfo's "cpu MHz" (MHz; 0 where absent). */
struct probe_clock_ref {
	double max_mhz, cur_mhz, cpuinfo_mhz;
};
void probe_clock_reference(const char *root, int cpu, struct probe_clock_ref *ref);
/* Whether the timing chain's @chain_ghz can be trusted against @ref: returns the GHz to use, or
 * 0 with the reason in @why (cycles are then not printed). Above the highest clock the system
 * reports (+15 % for turbo steps cpufreq does not list) or below a fifth of it, the chain ran
 * faster or slower than one step per cycle; with no reference at all only 0.02-7 GHz passes. */
double probe_clock_check(double chain_ghz, const struct probe_clock_ref *ref, char *why,
			 size_t len);
/* Checks that @cpu is online (<root>/sys/devices/system/cpu/online, else the affinity mask).
 * Returns 0, or -1 with a message. */
int probe_check_cpu(const char *root, int cpu, char *err, size_t errlen);

/* ---- the probe ---- */

enum probe_phase_bits {
	PROBE_SIZES = 1 << 0, /* working-set sweep (pointer chase) */
	PROBE_LINE = 1 << 1,  /* line size (within-page random walk) */
	PROBE_TLB = 1 << 2,   /* page-strided chase */
	PROBE_SEED = 1 << 3,  /* the seed's sequential strided sweep */
	PROBE_ALL = 0xf,
};

struct probe_opts {
	int cpu;	 /* CPU to pin to; -1 = the current one */
	size_t max_size; /* bytes; 0 = 8M quick, 64M full (capped by probe_max_working_set_here) */
	bool quick;
	const char *sysfs_root; /* NULL or "" = "/" */
	unsigned phases;	/* PROBE_* bits; 0 = PROBE_ALL */
	int rounds;		/* 0 = 3 quick, 5 full */
	bool no_counter;	/* do not try the L1D miss counter */
	double budget_s; /* s spent inside probe_step: re-measuring stops at 70%, TLB and seed are
			    skipped past 85%; 0 = 15 s full, 6 s quick */
};

enum probe_agree {
	PROBE_AGREE_NONE,     /* no sysfs value */
	PROBE_AGREE_OK,	      /* within 25% */
	PROBE_AGREE_NEAR,     /* within 2x */
	PROBE_AGREE_MISMATCH, /* over 2x apart */
	PROBE_AGREE_NOTFOUND, /* sysfs has it, the probe did not find it */
	PROBE_AGREE_BEYOND,   /* sysfs size beyond the probed range */
};

/* Classifies a measured size (0 = not found) against sysfs (0 = none) over a probe up to @max_size.
 */
enum probe_agree probe_compare(double measured, double sysfs, double max_size);
/* The tolerance a level's size must meet against sysfs: 15% for L1, 30% beyond. */
double probe_level_tolerance(int level);

struct probe_point {
	double size;	     /* bytes */
	double ns;	     /* median over rounds of the best rep, per load */
	double spread;	     /* relative MAD over rounds */
	double miss_est;     /* L1 misses per load estimated from latency (seed formula) */
	double miss_counted; /* L1D read misses per load counted; NAN when unavailable */
};

struct probe_level {
	int level;	   /* 1, 2, 3... */
	double size;	   /* bytes; 0 = not found */
	double confidence; /* 0..1 (curve confidence times round agreement) */
	double hit_ns;	   /* plateau latency of this level; 0 = unknown */
	double sysfs_size; /* bytes; 0 = none */
	int sysfs_line;	   /* bytes */
	enum probe_agree agree;
	int plateau_from, plateau_to; /* grid indices of the plateau hit_ns comes from; -1 = none */
	bool unstable;	  /* the two halves of the rounds cross more than 15% apart, or the curve
			     crosses the midpoint more than once */
	int noisy_points; /* points of the minimum curve on the wrong side of the step */
	int rounds_agree, rounds_used; /* rounds whose own crossing lies within 15% of size */
	double round_min, round_max;   /* bytes: the halves' crossings (0 = a half has none) */
	char evidence[200]; /* why it disagrees with sysfs or is not found; "" = agrees */
};

struct probe_result {
	int cpu;
	double ghz; /* cycles per ns; 0 = unknown or not trusted (no cycle figures printed) */
	char ghz_source[200]; /* how it was found, or why it is not trusted */
	double max_size;      /* bytes probed */
	bool quick;
	int rounds;

	int npoints;
	struct probe_point *points;
	int sweep_rounds;      /* rounds in samples (base and re-measured) */
	const double *samples; /* [round * npoints + k] ns per load, NAN = not measured */
	int remeasured;	       /* extra rounds spent on unstable levels */
	struct probe_detect detect;
	int nlevels;
	struct probe_level levels[PROBE_MAX_LEVELS];
	double mem_ns; /* memory latency; 0 = not found */
	char mem_note[96];

	int line; /* bytes; 0 = not found */
	double line_conf;
	double line_buffer;	       /* bytes */
	int line_strides[PROBE_NLINE]; /* pair offsets d (bytes) */
	double line_ns[PROBE_NLINE];   /* per offset, minimum over rounds, ns per load */
	int line_rounds, line_agree;   /* rounds measured, rounds deciding the same size */
	bool line_unstable;
	double line_samp[PROBE_LINE_ROUNDS][PROBE_NLINE]; /* ns per load; NAN = not measured */

	int ntlb;
	double *tlb_pages;   /* pages in the chase */
	double *tlb_page_ns; /* one load per page */
	double *tlb_line_ns; /* same loads packed in lines */
	int tlb_nbounds;
	double tlb_entries[2]; /* pages at each TLB step (0 = not found) */
	double tlb_conf[2];
	bool tlb_open[2]; /* rise still going at the end: onset only */
	double page_size; /* bytes */

	int nseed_sizes;
	double *seed_sizes;		      /* bytes */
	int seed_strides[PROBE_NSTRIDES];     /* bytes */
	double *seed_ns;		      /* [size][stride], ns per access */
	double seed_hit_size, seed_miss_size; /* bytes used for the formula; 0 = not available */

	bool counter_ok;
	char counter_msg[200];

	int nsysfs;
	struct probe_sysfs_cache sysfs[PROBE_MAX_SYSFS];
	char warning[160]; /* "" or why results are unreliable */
	char skipped[96];  /* "" or the phases left out to stay within the time budget */
	double elapsed_s;  /* s spent inside probe_step */
};

struct probe;

struct probe *probe_new(const struct probe_opts *opts, char *err, size_t errlen);
/* Does about @budget_ms of work (at least one unit). Returns 1 while more remains, 0 when finished,
 * -1 on error (see probe_error). The thread is pinned only while it runs. */
int probe_step(struct probe *p, double budget_ms);
double probe_progress(const struct probe *p); /* 0..1 */
const char *probe_phase_name(const struct probe *p);
const char *probe_error(const struct probe *p);
/* The result, complete once probe_step returned 0 (partial before). */
const struct probe_result *probe_result(const struct probe *p);
void probe_free(struct probe *p);

/* ---- output ---- */

typedef void (*probe_line_fn)(void *ctx, const char *line);

void probe_format_summary(const struct probe_result *r, probe_line_fn fn, void *ctx);
void probe_format_table(const struct probe_result *r, probe_line_fn fn, void *ctx);
/* Latency against working-set size, log-log, @width x @height character cells of plot area. */
void probe_format_plot(const struct probe_result *r, int width, int height, probe_line_fn fn,
		       void *ctx);
void probe_format_seed(const struct probe_result *r, probe_line_fn fn, void *ctx);
void probe_format_tlb(const struct probe_result *r, probe_line_fn fn, void *ctx);
/* Writes the result as one JSON object (jansson) and a newline; returns 0 or -1. */
int probe_write_json(const struct probe_result *r, FILE *out);

/* `pmutop probe cache [options]`: argv[0] is "cache". Returns 0 ok, 1 failure, 2 usage. */
int probe_cli(int argc, char **argv, FILE *out, FILE *err);

#endif
