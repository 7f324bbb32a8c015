/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe.c: cache-geometry probe engine: pinned pointer-chase sweeps run in budgeted steps. */
#include "probe.h"

#include "cpuset.h"
#include "linereader.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SLOT 64		   /* bytes between chase slots in the size sweep */
#define PAGE 4096	   /* bytes */
#define HUGE (2u << 20)	   /* bytes, THP alignment */
#define STEPS_PER_OCTAVE 8 /* grid: 2^k * (1, 1.125, ..., 1.875) */
#define MIN_SIZE 1024	   /* bytes */
#define REPS 3		   /* timed repetitions of the TLB and seed points (best kept) */
#define SWEEP_REPS 5	   /* ... of a sweep point: short, so one lands between interruptions */
#define SWEEP_REP_MS 0.25
#define LINE_BASE_ROUNDS 8 /* line-size rounds before re-measuring (each a few ms) */
#define LINE_REPS 9
#define LINE_REP_MS 0.15
#define MIN_LOADS 2000
#define WARM_MS 1.0 /* warm-up before the timed repetitions, at most */
#define MAX_POINTS PROBE_MAX_POINTS
#define LINE_BLOCK 512 /* bytes between pair-test nodes (the largest offset is half) */
#define LINE_MIN_NODES 256
#define REMEASURE_SHARE 0.7 /* re-measuring stops at this fraction of the budget */
#define SKIP_SHARE 0.85	    /* TLB and seed phases are left out beyond this fraction */
#define BASE_SHARE 0.35	    /* base sweep rounds end early beyond this fraction ... */
#define BASE_MIN_ROUNDS 3   /* ... once this many are done */

enum phase { PH_INIT, PH_SIZES, PH_LINE, PH_REMEASURE, PH_TLB, PH_SEED, PH_DONE, PH_ERROR };

static const char *const phase_names[] = {
    [PH_INIT] = "starting",  [PH_SIZES] = "working-set sweep",
    [PH_LINE] = "line size", [PH_REMEASURE] = "measuring unstable levels again",
    [PH_TLB] = "TLB reach",  [PH_SEED] = "strided sweep",
    [PH_DONE] = "done",	     [PH_ERROR] = "error",
};

struct map {
	unsigned char *base; /* mapping */
	size_t len;
	unsigned char *p; /* aligned start */
};

struct probe {
	struct probe_opts o;
	char root[512];
	struct probe_result r;
	enum phase phase;
	int round, idx;
	long units_done, units_total;
	char err[200];
	uint64_t rng;
	int perf_fd;
	double rep_ms;
	double est_ns;	   /* latency of the previous point, per load */
	double active_ms;  /* time spent in finished probe_step calls */
	double step_start; /* start of the current one */
	double budget_ms;

	/* working-set sweep */
	int n;
	double *samp;  /* [round][n] ns per load, NAN = not measured */
	double *msamp; /* [round][n] counted misses per load */
	struct map buf;
	size_t chain_n; /* slots linked in buf */
	void *cur;
	int nwin, win_lo[PROBE_MAX_LEVELS], win_hi[PROBE_MAX_LEVELS]; /* unstable levels */
	bool line_pending;  /* an extra line-size round is under way */
	bool sizes_pending; /* an extra sweep round follows it */
	int line_idx;	    /* its next offset */

	/* line size */
	size_t line_nodes;
	uint32_t *order; /* node blocks in chase order; bit 31: entered at A + d */

	/* TLB */
	struct map tbuf, lbuf;
	size_t tchain, lchain;
	int tlb_rounds;
	double *tsamp, *lsamp_t; /* [round][ntlb] */
	void *tcur, *lcur;
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint64_t rnd(struct probe *p)
{
	/* xorshift64* */
	p->rng ^= p->rng >> 12;
	p->rng ^= p->rng << 25;
	p->rng ^= p->rng >> 27;
	return p->rng * 2685821657736338717ull;
}

static uint64_t rnd_below(struct probe *p, uint64_t n) { return (rnd(p) >> 11) % n; }

static int map_alloc(struct map *m, size_t len, bool huge, char *err, size_t errlen)
{
	m->len = len + HUGE;
	m->base = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m->base == MAP_FAILED) {
		m->base = NULL;
		snprintf(err, errlen, "cannot map %zu bytes: %s", len, strerror(errno));
		return -1;
	}
	m->p = (unsigned char *)(((uintptr_t)m->base + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
	madvise(m->base, m->len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	return 0;
}

static void map_free(struct map *m)
{
	if (m->base)
		munmap(m->base, m->len);
	m->base = NULL;
}

/* Follows @n dependent loads from @p; returns where it stopped. */
static void *chase(void *p, uint64_t n)
{
	void **q = p;
	while (n >= 16) {
#define L q = (void **)*q;
		L L L L L L L L L L L L L L L L
#undef L
		    n -= 16;
	}
	while (n--)
		q = (void **)*q;
	return q;
}

static volatile uintptr_t sink;

/* ---- cycle rate ---- */

static const char *root_of(const char *root);

static volatile unsigned long chain_step = 0x9e3779b9ul; /* unknown to the compiler */

/* ns for @n iterations of 16 dependent register-register adds (x += y: one cycle each). Not
 * "add $1": recent cores fold chains of immediate adds at rename (several per cycle), which
 * made the clock read ~7x too high; x += y with y in a register is a real ALU op, and the
 * next one needs its result. */
static double add_chain_ns(uint64_t n)
{
	unsigned long x = 0, y = chain_step; /* registers on every target */
	double t0 = now_ms();
	for (uint64_t i = 0; i < n; i++) {
#if defined(__x86_64__) || defined(__i386__)
		__asm__ volatile(".rept 16\n\tadd %1, %0\n\t.endr" : "+r"(x) : "r"(y));
#elif defined(__aarch64__)
		__asm__ volatile(".rept 16\n\tadd %0, %0, %1\n\t.endr" : "+r"(x) : "r"(y));
#else
		(void)x;
		return 0;
#endif
	}
	sink = (uintptr_t)x;
	return (now_ms() - t0) * 1e6;
}

void probe_clock_reference(const char *root, int cpu, struct probe_clock_ref *ref)
{
	char path[700], line[256];
	memset(ref, 0, sizeof(*ref));
	static const char *const files[] = {"cpuinfo_max_freq", "scaling_cur_freq"};
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cpufreq/%s",
			 root_of(root), cpu, files[i]);
		FILE *f = fopen(path, "r");
		double khz = 0;
		if (f && fscanf(f, "%lf", &khz) == 1 && khz > 0 && khz < 1e8)
			*(i ? &ref->cur_mhz : &ref->max_mhz) = khz / 1e3;
		if (f)
			fclose(f);
	}
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root_of(root));
	FILE *f = fopen(path, "r");
	int proc = -1;
	double first = 0;
	while (f && fgets(line, sizeof(line), f)) {
		double mhz;
		if (sscanf(line, "processor : %d", &proc) == 1 ||
		    sscanf(line, "processor\t: %d", &proc) == 1)
			continue;
		if (strncmp(line, "cpu MHz", 7) == 0 &&
		    sscanf(strchr(line, ':') ? strchr(line, ':') + 1 : line, "%lf", &mhz) == 1 &&
		    mhz > 0 && mhz < 1e5) {
			if (first == 0)
				first = mhz;
			if (proc == cpu)
				ref->cpuinfo_mhz = mhz;
		}
	}
	if (f)
		fclose(f);
	if (ref->cpuinfo_mhz == 0)
		ref->cpuinfo_mhz = first;
}

static void measure_ghz(struct probe *p, struct probe_result *r)
{
	double best = INFINITY;
	uint64_t n = 1 << 16;

	if (add_chain_ns(1000) <= 0) {
		snprintf(r->ghz_source, sizeof(r->ghz_source), "unknown");
		return;
	}
	for (int k = 0; k < 7; k++) {
		double ns = add_chain_ns(n);
		if (ns < 1e6 && k < 3) { /* grow the run to about 1 ms */
			n *= 2;
			k--;
			continue;
		}
		best = fmin(best, ns / (16.0 * n));
	}
	struct probe_clock_ref ref;
	probe_clock_reference(p->root, p->o.cpu, &ref);
	r->ghz = probe_clock_check(isfinite(best) && best > 0 ? 1 / best : 0, &ref, r->ghz_source,
				   sizeof(r->ghz_source));
}

/* ---- L1D miss counter ---- */

static const char *errno_name(int e)
{
	switch (e) {
	case ENOENT:
		return "ENOENT";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case EACCES:
		return "EACCES";
	case EPERM:
		return "EPERM";
	case EINVAL:
		return "EINVAL";
	case ENODEV:
		return "ENODEV";
	case EMFILE:
		return "EMFILE";
	default:
		return "errno";
	}
}

static void open_counter(struct probe *p)
{
	struct perf_event_attr a;

	p->perf_fd = -1;
	if (p->o.no_counter) {
		snprintf(p->r.counter_msg, sizeof(p->r.counter_msg),
			 "L1D miss counter unavailable: not requested");
		return;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HW_CACHE;
	a.config = PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
		   (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		int e = errno;
		snprintf(p->r.counter_msg, sizeof(p->r.counter_msg),
			 "L1D miss counter unavailable: perf_event_open(HW_CACHE L1D read miss): "
			 "%s (%s%s)",
			 strerror(e), errno_name(e),
			 e == ENOENT ? ": no such hardware event; a VM without a PMU?" : "");
		return;
	}
	p->perf_fd = fd;
	p->r.counter_ok = true;
	snprintf(p->r.counter_msg, sizeof(p->r.counter_msg),
		 "L1D miss counter: counting on own thread");
}

static uint64_t read_counter(struct probe *p)
{
	uint64_t v = 0;
	if (p->perf_fd >= 0 && read(p->perf_fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		v = 0;
	return v;
}

/* ---- sysfs ---- */

static int read_line(const char *path, char *buf, size_t len)
{
	if (lr_read_small(path, buf, len) <= 0)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static const char *root_of(const char *root) { return root && *root ? root : ""; }

int probe_sysfs_read(const char *root, int cpu, struct probe_sysfs_cache *out, int max)
{
	int n = 0;

	for (int idx = 0; idx < 16 && n < max; idx++) {
		char path[700], type[16], v[64];
		struct probe_sysfs_cache c = {0};
		size_t sz;
		char e[80];

		snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cache/index%d/type",
			 root_of(root), cpu, idx);
		if (read_line(path, type, sizeof(type)) < 0)
			continue;
		if (strcmp(type, "Data") && strcmp(type, "Unified"))
			continue;
		snprintf(c.type, sizeof(c.type), "%s", type);
		snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cache/index%d/level",
			 root_of(root), cpu, idx);
		if (read_line(path, v, sizeof(v)) < 0 || (c.level = atoi(v)) <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cache/index%d/size",
			 root_of(root), cpu, idx);
		if (read_line(path, v, sizeof(v)) < 0 || probe_parse_size(v, &sz, e, sizeof(e)) < 0)
			continue;
		c.size = (double)sz;
		snprintf(path, sizeof(path),
			 "%s/sys/devices/system/cpu/cpu%d/cache/index%d/coherency_line_size",
			 root_of(root), cpu, idx);
		if (read_line(path, v, sizeof(v)) == 0)
			c.line = atoi(v);
		/* keep one entry per level, sorted */
		int k = 0;
		while (k < n && out[k].level < c.level)
			k++;
		if (k < n && out[k].level == c.level)
			continue;
		memmove(&out[k + 1], &out[k], sizeof(*out) * (size_t)(n - k));
		out[k] = c;
		n++;
	}
	return n;
}

int probe_check_cpu(const char *root, int cpu, char *err, size_t errlen)
{
	char path[600], text[1024], e[100], list[256];
	struct cpuset online;

	if (cpu < 0 || cpu >= CPUSET_MAX) {
		snprintf(err, errlen, "CPU %d is out of range", cpu);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online", root_of(root));
	if (read_line(path, text, sizeof(text)) == 0 &&
	    cpuset_parse(&online, text, e, sizeof(e)) == 0) {
		if (!cpuset_has(&online, cpu)) {
			snprintf(err, errlen, "CPU %d is not online (online: %s)", cpu,
				 cpuset_format(&online, list, sizeof(list)));
			return -1;
		}
		return 0;
	}
	cpu_set_t m;
	if (sched_getaffinity(0, sizeof(m), &m) == 0 &&
	    (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &m))) {
		snprintf(err, errlen, "CPU %d is not online or not allowed for this process", cpu);
		return -1;
	}
	return 0;
}

/* ---- pinning ---- */

static int pin(struct probe *p, cpu_set_t *old)
{
	cpu_set_t m;

	if (sched_getaffinity(0, sizeof(*old), old) < 0)
		CPU_ZERO(old);
	CPU_ZERO(&m);
	CPU_SET(p->o.cpu, &m);
	if (sched_setaffinity(0, sizeof(m), &m) < 0) {
		snprintf(p->err, sizeof(p->err), "cannot pin to CPU %d: %s", p->o.cpu,
			 strerror(errno));
		return -1;
	}
	return 0;
}

static void unpin(cpu_set_t *old)
{
	if (CPU_COUNT(old))
		sched_setaffinity(0, sizeof(*old), old);
}

/* ---- grids ---- */

/* Sizes 2^k * (1 + j/8): the common cache sizes (48K, 1.25M, 1.5M, 12M...) are grid points. */
static int size_grid(double max, double *g, int cap)
{
	int n = 0;
	for (int k = 0; n < cap; k++) {
		double s = floor(MIN_SIZE * exp2(k / STEPS_PER_OCTAVE) *
				 (1 + (double)(k % STEPS_PER_OCTAVE) / STEPS_PER_OCTAVE) / SLOT) *
			   SLOT;
		if (s > max * 1.0001)
			break;
		g[n++] = s;
	}
	return n;
}

/* ---- one timed point ---- */

/* Times dependent loads from *@cur: a warm-up (one pass of the chain, at most WARM_MS) that
 * also calibrates the repetition length, then @reps reps of @rep_ms; returns best ns per load. */
static double time_chase_reps(struct probe *p, void **cur, size_t chain, double *miss, int reps,
			      double rep_ms)
{
	double best = INFINITY;
	double est = p->est_ns > 0.2 ? p->est_ns : 1;
	uint64_t warm = chain, cap = (uint64_t)(WARM_MS * 1e6 / est);

	if (warm > cap)
		warm = cap;
	if (warm < 256)
		warm = 256;
	double t0 = now_ms();
	*cur = chase(*cur, warm);
	double w = (now_ms() - t0) * 1e6 / (double)warm;
	if (w > 0.2)
		est = w;
	uint64_t loads = (uint64_t)(rep_ms * 1e6 / est);
	if (loads < MIN_LOADS)
		loads = MIN_LOADS;
	if (loads > 50000000)
		loads = 50000000;
	if (miss)
		*miss = NAN;
	for (int k = 0; k < reps; k++) {
		uint64_t c0 = read_counter(p);
		double t0 = now_ms();
		*cur = chase(*cur, loads);
		double t = (now_ms() - t0) * 1e6 / (double)loads;
		uint64_t c1 = read_counter(p);
		if (t < best) {
			best = t;
			if (miss && p->perf_fd >= 0)
				*miss = (double)(c1 - c0) / (double)loads;
		}
	}
	sink = (uintptr_t)*cur;
	p->est_ns = best;
	return best;
}

static double time_chase(struct probe *p, void **cur, size_t chain, double *miss)
{
	return time_chase_reps(p, cur, chain, miss, REPS, p->rep_ms);
}

/* Links slots [chain, n) of stride @stride at @base into the random cycle (random insertion keeps
 * the cycle uniformly random); @off gives a byte offset per slot. */
static void grow_chain(struct probe *p, unsigned char *base, size_t stride, size_t *chain, size_t n,
		       bool page_offsets)
{
#define SLOT_AT(j) ((void **)(base + (j)*stride + (page_offsets ? ((j)&63) * 64 : 0)))
	if (*chain == 0 && n > 0) {
		*SLOT_AT(0) = SLOT_AT(0);
		*chain = 1;
	}
	for (size_t j = *chain; j < n; j++) {
		size_t r = rnd_below(p, j);
		void **sj = SLOT_AT(j), **sr = SLOT_AT(r);
		*sj = *sr;
		*sr = sj;
	}
	if (n > *chain)
		*chain = n;
#undef SLOT_AT
}

/* ---- phases ---- */

static double median_of(double *v, int n)
{
	double t[64];
	int k = 0;
	for (int i = 0; i < n && k < 64; i++)
		if (!isnan(v[i]))
			t[k++] = v[i];
	if (!k)
		return NAN;
	for (int i = 1; i < k; i++)
		for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
			double x = t[j];
			t[j] = t[j - 1];
			t[j - 1] = x;
		}
	return k % 2 ? t[k / 2] : (t[k / 2 - 1] + t[k / 2]) / 2;
}

/* The sweep's levels from the rounds so far; remembers the windows of unstable levels. */
static void analyse_sizes(struct probe *p, int rounds)
{
	double col[PROBE_MAX_ROUNDS];

	p->r.sweep_rounds = rounds;
	p->r.samples = p->samp;
	p->nwin = probe_decide_sizes(&p->r, p->samp, rounds, p->win_lo, p->win_hi);
	for (int k = 0; k < p->n && p->perf_fd >= 0; k++) { /* counted L1D misses per load */
		for (int q = 0; q < rounds; q++)
			col[q] = p->msamp[q * p->n + k];
		p->r.points[k].miss_counted = median_of(col, rounds);
	}
}

static double level_size(const struct probe_result *r, int level, double fallback)
{
	if (r->nlevels >= level && r->levels[level - 1].size > 0)
		return r->levels[level - 1].size;
	double s = probe_sysfs_size(r, level);
	return s > 0 ? s : fallback;
}

static void setup_line(struct probe *p)
{
	struct probe_result *r = &p->r;
	double l1 = level_size(r, 1, 32768);
	size_t nodes = (size_t)(l1 / SLOT);

	if (nodes < LINE_MIN_NODES)
		nodes = LINE_MIN_NODES;
	if (nodes > (size_t)r->max_size / LINE_BLOCK)
		nodes = (size_t)r->max_size / LINE_BLOCK;
	p->line_nodes = nodes;
	r->line_buffer = (double)nodes * LINE_BLOCK;
	free(p->order);
	p->order = calloc(nodes, sizeof(uint32_t));
	for (int i = 0; i < PROBE_NLINE; i++)
		r->line_strides[i] = 8 << i;
	for (int q = 0; q < PROBE_LINE_ROUNDS; q++)
		for (int i = 0; i < PROBE_NLINE; i++)
			r->line_samp[q][i] = NAN;
}

/* @a[0..n) = 0..n-1 in random order (Fisher-Yates). */
static void random_permutation(struct probe *p, uint32_t *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		a[i] = (uint32_t)i;
	for (size_t i = n - 1; n > 0 && i > 0; i--) {
		size_t j = rnd_below(p, i + 1);
		uint32_t t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

/* A new random node order for one round, each node entered at A or at A + d at random. */
static void shuffle_pairs(struct probe *p)
{
	random_permutation(p, p->order, p->line_nodes);
	for (size_t i = 0; i < p->line_nodes; i++)
		if (rnd(p) & 1)
			p->order[i] |= 1u << 31;
}

/* Links the pair chain for offset @d: first end of node i -> its other end -> next node. */
static void build_pair_chain(struct probe *p, int d)
{
	size_t n = p->line_nodes;
	unsigned char *base = p->buf.p;
#define END(i, second)                                                                             \
	((void **)(base + (size_t)(p->order[i] & 0x7fffffff) * LINE_BLOCK +                        \
		   ((((p->order[i] >> 31) & 1) ^ (second)) ? (size_t)d : 0)))
	for (size_t i = 0; i < n; i++) {
		*END(i, 0) = END(i, 1);
		*END(i, 1) = END((i + 1) % n, 0);
	}
	p->cur = END(0, 0);
#undef END
}

static void analyse_line(struct probe *p)
{
	struct probe_result *r = &p->r;
	int R = p->r.line_rounds;

	r->line = probe_decide_line(r->line_strides, &r->line_samp[0][0], PROBE_NLINE, R,
				    r->line_ns, &r->line_conf, &r->line_agree, &r->line_unstable);
}

static void setup_tlb(struct probe *p, char *err, size_t errlen)
{
	struct probe_result *r = &p->r;
	double maxp = p->o.quick ? 4096 : 8192;
	int per = 4;
	int n = 0;
	double g[MAX_POINTS];

	for (int k = 0; n < MAX_POINTS; k++) {
		double v = round(8 * exp2((double)k / per));
		if (v > maxp)
			break;
		g[n++] = v;
	}
	r->page_size = PAGE;
	r->ntlb = n;
	r->tlb_pages = calloc((size_t)n, sizeof(double));
	r->tlb_page_ns = calloc((size_t)n, sizeof(double));
	r->tlb_line_ns = calloc((size_t)n, sizeof(double));
	p->tlb_rounds = p->o.rounds < 3 ? p->o.rounds : 3;
	p->tsamp = calloc((size_t)(n * p->tlb_rounds), sizeof(double));
	p->lsamp_t = calloc((size_t)(n * p->tlb_rounds), sizeof(double));
	if (!r->tlb_pages || !r->tlb_page_ns || !r->tlb_line_ns || !p->tsamp || !p->lsamp_t) {
		snprintf(err, errlen, "out of memory");
		return;
	}
	memcpy(r->tlb_pages, g, sizeof(double) * (size_t)n);
	if (map_alloc(&p->tbuf, (size_t)maxp * PAGE, false, err, errlen) < 0 ||
	    map_alloc(&p->lbuf, (size_t)maxp * SLOT, true, err, errlen) < 0)
		return;
}

static void analyse_tlb(struct probe *p)
{
	struct probe_result *r = &p->r;
	int n = r->ntlb, R = p->tlb_rounds;
	double col[16], c[MAX_POINTS];

	for (int k = 0; k < n; k++) {
		for (int q = 0; q < R; q++)
			col[q] = p->tsamp[q * n + k];
		r->tlb_page_ns[k] = median_of(col, R);
		for (int q = 0; q < R; q++)
			col[q] = p->lsamp_t[q * n + k];
		r->tlb_line_ns[k] = median_of(col, R);
	}
	double base = r->tlb_line_ns[0];
	for (int k = 0; k < n; k++)
		c[k] = base + fmax(r->tlb_page_ns[k] - r->tlb_line_ns[k], 0.05 * base);
	struct probe_detect d;
	if (probe_detect_levels(r->tlb_pages, c, n, 0, &d) < 0)
		return;
	/* A TLB holds the last page count before latency rises (the onset, not the midpoint). */
	int nb = 0;
	for (int b = 0; b < d.nbounds && nb < 2; b++, nb++) {
		r->tlb_conf[nb] = d.b[b].confidence;
		r->tlb_entries[nb] = d.b[b].confidence >= 0.5 ? r->tlb_pages[d.b[b].lo] : 0;
	}
	if (nb < 2 && d.open_from >= 0 && d.open_ratio >= 2) {
		/* a rise that has not levelled off by the last page count: onset only */
		r->tlb_conf[nb] = 0.6;
		r->tlb_entries[nb] = r->tlb_pages[d.open_from];
		r->tlb_open[nb] = true;
		nb++;
	}
	r->tlb_nbounds = nb;
}

static void setup_seed(struct probe *p, char *err, size_t errlen)
{
	struct probe_result *r = &p->r;
	double l2 = level_size(r, 2, 1 << 20);
	double top = fmin(r->max_size, fmax(4 * l2, 4.0 * 1024 * 1024));
	if (top > 16.0 * 1024 * 1024)
		top = 16.0 * 1024 * 1024;
	int n = 0;
	for (double s = 4096; s <= top && n < 32; s *= 2)
		n++;
	r->nseed_sizes = n;
	r->seed_sizes = calloc((size_t)n, sizeof(double));
	r->seed_ns = calloc((size_t)(n * PROBE_NSTRIDES), sizeof(double));
	if (!r->seed_sizes || !r->seed_ns) {
		snprintf(err, errlen, "out of memory");
		return;
	}
	for (int i = 0; i < n; i++)
		r->seed_sizes[i] = 4096.0 * exp2(i);
	for (int i = 0; i < PROBE_NSTRIDES; i++)
		r->seed_strides[i] = 4 << i;
}

/* The seed's strided read: independent loads every @stride bytes over @bytes, ns per access. */
static double seed_time(struct probe *p, size_t bytes, int stride)
{
	const volatile uint32_t *a = (const volatile uint32_t *)p->buf.p;
	size_t step = (size_t)stride / 4, words = bytes / 4, per_pass = (words + step - 1) / step;
	double best = INFINITY;
	uint32_t sum = 0;

	for (size_t i = 0; i < words; i += step)
		sum += a[i];
	uint64_t passes = (uint64_t)(p->rep_ms * 1e6 / (0.5 * (double)per_pass)) + 1;
	for (int k = 0; k < REPS; k++) {
		double t0 = now_ms();
		for (uint64_t q = 0; q < passes; q++)
			for (size_t i = 0; i < words; i += step)
				sum += a[i];
		double t = (now_ms() - t0) * 1e6 / ((double)passes * (double)per_pass);
		best = fmin(best, t);
	}
	sink = sum;
	return best;
}

static void analyse_seed(struct probe *p)
{
	struct probe_result *r = &p->r;
	double l1 = level_size(r, 1, 0);
	r->seed_hit_size = r->seed_miss_size = 0;
	if (!(l1 > 0))
		return;
	for (int i = r->nseed_sizes - 1; i >= 0; i--)
		if (r->seed_sizes[i] <= l1 * 1.01 && i + 1 < r->nseed_sizes) {
			r->seed_hit_size = r->seed_sizes[i];
			r->seed_miss_size = r->seed_sizes[i + 1];
			break;
		}
}

/* ---- lifecycle ---- */

struct probe *probe_new(const struct probe_opts *opts, char *err, size_t errlen)
{
	struct probe *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->o = *opts;
	p->perf_fd = -1;
	snprintf(p->root, sizeof(p->root), "%s", root_of(opts->sysfs_root));
	p->o.sysfs_root = p->root;
	if (!p->o.phases)
		p->o.phases = PROBE_ALL;
	if (p->o.rounds <= 0)
		p->o.rounds = 5;
	if (p->o.rounds > PROBE_LINE_ROUNDS / 2)
		p->o.rounds = PROBE_LINE_ROUNDS / 2; /* room left for re-measured rounds */
	if (!p->o.max_size)
		p->o.max_size = (size_t)(p->o.quick ? 8 : 64) << 20;
	if (p->o.max_size < 8192) {
		snprintf(err, errlen, "--max-size must be at least 8K");
		goto fail;
	}
	size_t cap = probe_max_working_set_here();
	if (p->o.max_size > cap) {
		char c[32];
		if (!opts->max_size) { /* the default does not fit this address space or memory */
			p->o.max_size = cap;
		} else {
			snprintf(
			    err, errlen,
			    "--max-size must be at most %s here (a quarter of memory and of the "
			    "address space, at most 4G)",
			    probe_format_size((double)cap, c, sizeof(c)));
			goto fail;
		}
	}
	if (p->o.cpu < 0)
		p->o.cpu = sched_getcpu();
	if (p->o.cpu < 0)
		p->o.cpu = 0;
	if (probe_check_cpu(p->root, p->o.cpu, err, errlen) < 0)
		goto fail;
	p->rep_ms = 0.5;
	p->budget_ms = (p->o.budget_s > 0 ? p->o.budget_s : p->o.quick ? 6 : 15) * 1e3;
	p->rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)p->o.cpu;

	struct probe_result *r = &p->r;
	r->cpu = p->o.cpu;
	r->quick = p->o.quick;
	r->rounds = p->o.rounds;
	r->max_size = (double)p->o.max_size;
	r->nsysfs = probe_sysfs_read(p->root, p->o.cpu, r->sysfs, PROBE_MAX_SYSFS);

	double g[MAX_POINTS];
	p->n = size_grid(r->max_size, g, MAX_POINTS);
	r->npoints = p->n;
	r->points = calloc((size_t)p->n, sizeof(*r->points));
	p->samp = calloc((size_t)p->n * PROBE_MAX_ROUNDS, sizeof(double));
	p->msamp = calloc((size_t)p->n * PROBE_MAX_ROUNDS, sizeof(double));
	if (!r->points || !p->samp || !p->msamp) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < (size_t)p->n * PROBE_MAX_ROUNDS; i++)
		p->samp[i] = p->msamp[i] = NAN;
	for (int k = 0; k < p->n; k++) {
		r->points[k].size = g[k];
		r->points[k].miss_counted = NAN;
		r->points[k].miss_est = NAN;
	}
	if (map_alloc(&p->buf, p->o.max_size, true, err, errlen) < 0)
		goto fail;
	p->units_total = 1;
	if (p->o.phases & PROBE_SIZES)
		p->units_total += (long)p->n * p->o.rounds;
	if (p->o.phases & PROBE_LINE)
		p->units_total += (long)PROBE_NLINE * LINE_BASE_ROUNDS;
	if (p->o.phases & PROBE_TLB)
		p->units_total += (p->o.quick ? 37 : 41) * (p->o.rounds < 3 ? p->o.rounds : 3);
	if (p->o.phases & PROBE_SEED)
		p->units_total += 12L * PROBE_NSTRIDES;
	p->phase = PH_INIT;
	return p;
fail:
	probe_free(p);
	return NULL;
}

void probe_free(struct probe *p)
{
	if (!p)
		return;
	if (p->perf_fd >= 0)
		close(p->perf_fd);
	map_free(&p->buf);
	map_free(&p->tbuf);
	map_free(&p->lbuf);
	free(p->order);
	free(p->samp);
	free(p->msamp);
	free(p->tsamp);
	free(p->lsamp_t);
	free(p->r.points);
	free(p->r.tlb_pages);
	free(p->r.tlb_page_ns);
	free(p->r.tlb_line_ns);
	free(p->r.seed_sizes);
	free(p->r.seed_ns);
	free(p);
}

/* ms of the budget used: the time spent inside probe_step (a front end running the probe between
 * its ticks does not spend the probe's budget while it waits). */
static double used_ms(const struct probe *p) { return p->active_ms + now_ms() - p->step_start; }

static enum phase next_phase(struct probe *p, enum phase from)
{
	static const struct {
		enum phase ph;
		unsigned bit;
	} order[] = {
	    {PH_SIZES, PROBE_SIZES},
	    {PH_LINE, PROBE_LINE},
	    {PH_REMEASURE, PROBE_SIZES | PROBE_LINE},
	    {PH_TLB, PROBE_TLB},
	    {PH_SEED, PROBE_SEED},
	};
	bool late = used_ms(p) > SKIP_SHARE * p->budget_ms;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (order[i].ph <= from || !(p->o.phases & order[i].bit))
			continue;
		if (order[i].ph == PH_REMEASURE && p->nwin == 0 &&
		    !((p->o.phases & PROBE_LINE) && p->r.line_unstable))
			continue;
		if ((order[i].ph == PH_TLB || order[i].ph == PH_SEED) && late) {
			snprintf(p->r.skipped, sizeof(p->r.skipped),
				 "TLB reach and strided sweep skipped: %.0f s of the %.0f s budget "
				 "used",
				 used_ms(p) / 1e3, p->budget_ms / 1e3);
			continue;
		}
		return order[i].ph;
	}
	return PH_DONE;
}

/* Enters @ph: set-up work; returns -1 on error. */
static int enter(struct probe *p, enum phase ph)
{
	char e[160] = "";
	p->phase = ph;
	p->round = p->idx = 0;
	p->est_ns = 0;
	switch (ph) {
	case PH_LINE:
		setup_line(p);
		if (!p->order)
			snprintf(e, sizeof(e), "out of memory");
		break;
	case PH_REMEASURE:
		p->round = p->r.sweep_rounds;
		p->idx = -1; /* the next window point is looked up on the first unit */
		break;
	case PH_TLB:
		setup_tlb(p, e, sizeof(e));
		break;
	case PH_SEED:
		setup_seed(p, e, sizeof(e));
		break;
	case PH_DONE:
		p->r.elapsed_s = used_ms(p) / 1e3;
		break;
	default:
		break;
	}
	if (*e) {
		snprintf(p->err, sizeof(p->err), "%s", e);
		p->phase = PH_ERROR;
		return -1;
	}
	return 0;
}

/* Times sweep point @k for round @q (the chain grows from its current length). */
static void sweep_point(struct probe *p, int q, int k)
{
	size_t slots = (size_t)(p->r.points[k].size / SLOT);
	double miss;

	if (p->chain_n > slots)
		p->chain_n = 0;
	if (p->chain_n == 0)
		p->est_ns = 0;
	grow_chain(p, p->buf.p, SLOT, &p->chain_n, slots, false);
	p->cur = p->buf.p;
	p->samp[q * p->n + k] =
	    time_chase_reps(p, &p->cur, p->chain_n, &miss, SWEEP_REPS, SWEEP_REP_MS);
	p->msamp[q * p->n + k] = miss;
}

/* Times offset @i of the pair test for line round @q (a new node order at each round start). */
static void line_point(struct probe *p, int q, int i)
{
	if (i == 0)
		shuffle_pairs(p);
	build_pair_chain(p, p->r.line_strides[i]);
	p->est_ns = 0;
	p->r.line_samp[q][i] =
	    time_chase_reps(p, &p->cur, 2 * p->line_nodes, NULL, LINE_REPS, LINE_REP_MS);
}

/* Grid point of the unstable windows after @k, or -1. */
static int next_window_point(const struct probe *p, int k)
{
	int best = -1;
	for (int w = 0; w < p->nwin; w++) {
		int c = k + 1 > p->win_lo[w] ? k + 1 : p->win_lo[w];
		if (c <= p->win_hi[w] && (best < 0 || c < best))
			best = c;
	}
	return best;
}

/* One unit of re-measuring: the next point of an extra round over the unstable levels'
 * windows, or of an extra line-size round. Returns 0 when done (stable, out of rounds or out
 * of budget). */
static int remeasure_unit(struct probe *p)
{
	struct probe_result *r = &p->r;
	bool in_budget = used_ms(p) < REMEASURE_SHARE * p->budget_ms;

	if (p->idx < 0) { /* between rounds: choose what to measure again */
		bool sizes = p->nwin > 0 && r->sweep_rounds < PROBE_MAX_ROUNDS;
		bool line = (p->o.phases & PROBE_LINE) && r->line_unstable &&
			    r->line_rounds < PROBE_LINE_ROUNDS;
		if (!in_budget || (!sizes && !line))
			return 0;
		p->round = sizes ? r->sweep_rounds : -1;
		p->idx = line ? -2 : next_window_point(p, -1); /* the cheap line round first */
		p->chain_n = 0;
		p->line_pending = line;
		p->sizes_pending = sizes;
	}
	if (p->idx >= 0) {
		sweep_point(p, p->round, p->idx);
		p->idx = next_window_point(p, p->idx);
		if (p->idx < 0) {
			analyse_sizes(p, p->round + 1);
			r->remeasured++;
			p->sizes_pending = false;
			p->idx = -1;
		}
		return 1;
	}
	/* an extra line-size round, one offset per unit */
	line_point(p, r->line_rounds, p->line_idx);
	if (++p->line_idx == PROBE_NLINE) {
		p->line_idx = 0;
		r->line_rounds++;
		analyse_line(p);
		p->line_pending = false;
		p->idx = p->sizes_pending ? next_window_point(p, -1) : -1;
	}
	return 1;
}

/* One unit of work (a few ms). */
static int unit(struct probe *p)
{
	struct probe_result *r = &p->r;

	switch (p->phase) {
	case PH_INIT:
		measure_ghz(p, r);
		open_counter(p);
		return enter(p, next_phase(p, PH_INIT));
	case PH_SIZES: {
		if (p->idx == 0)
			p->chain_n = 0; /* a new random cycle each round */
		sweep_point(p, p->round, p->idx);
		if (++p->idx == p->n) {
			p->idx = 0;
			/* a slow (loaded) machine stops the base rounds early, keeping time to
			 * measure the unstable levels again */
			bool slow = p->round + 1 >= BASE_MIN_ROUNDS &&
				    used_ms(p) > BASE_SHARE * p->budget_ms;
			if (++p->round == p->o.rounds || slow) {
				analyse_sizes(p, p->round);
				return enter(p, next_phase(p, PH_SIZES));
			}
		}
		break;
	}
	case PH_LINE:
		line_point(p, p->round, p->idx);
		if (++p->idx == PROBE_NLINE) {
			p->idx = 0;
			r->line_rounds = ++p->round;
			if (p->round == LINE_BASE_ROUNDS) {
				analyse_line(p);
				return enter(p, next_phase(p, PH_LINE));
			}
		}
		break;
	case PH_REMEASURE:
		if (remeasure_unit(p) == 0)
			return enter(p, next_phase(p, PH_REMEASURE));
		return 0; /* not counted in the progress: its length depends on the noise */
	case PH_TLB: {
		int n = r->ntlb;
		size_t pages = (size_t)r->tlb_pages[p->idx];
		if (p->idx == 0) {
			p->tchain = p->lchain = 0;
		}
		grow_chain(p, p->tbuf.p, PAGE, &p->tchain, pages, true);
		grow_chain(p, p->lbuf.p, SLOT, &p->lchain, pages, false);
		/* both chains start at slot 0 (offset of page 0 is 0) */
		p->tcur = p->tbuf.p;
		p->lcur = p->lbuf.p;
		p->est_ns = 0;
		p->tsamp[p->round * n + p->idx] = time_chase(p, &p->tcur, p->tchain, NULL);
		p->est_ns = 0;
		p->lsamp_t[p->round * n + p->idx] = time_chase(p, &p->lcur, p->lchain, NULL);
		if (++p->idx == n) {
			p->idx = 0;
			if (++p->round == p->tlb_rounds) {
				analyse_tlb(p);
				return enter(p, next_phase(p, PH_TLB));
			}
		}
		break;
	}
	case PH_SEED: {
		int si = p->idx / PROBE_NSTRIDES, st = p->idx % PROBE_NSTRIDES;
		r->seed_ns[si * PROBE_NSTRIDES + st] =
		    seed_time(p, (size_t)r->seed_sizes[si], r->seed_strides[st]);
		if (++p->idx == r->nseed_sizes * PROBE_NSTRIDES) {
			analyse_seed(p);
			return enter(p, PH_DONE);
		}
		break;
	}
	case PH_DONE:
	case PH_ERROR:
		break;
	}
	p->units_done++;
	return 0;
}

int probe_step(struct probe *p, double budget_ms)
{
	cpu_set_t old;

	if (p->phase == PH_DONE)
		return 0;
	if (p->phase == PH_ERROR)
		return -1;
	if (pin(p, &old) < 0) {
		p->phase = PH_ERROR;
		return -1;
	}
	double t0 = p->step_start = now_ms();
	do {
		if (unit(p) < 0)
			break;
	} while (p->phase != PH_DONE && p->phase != PH_ERROR && now_ms() - t0 < budget_ms);
	p->active_ms += now_ms() - t0;
	p->step_start = now_ms();
	unpin(&old);
	if (p->phase == PH_ERROR)
		return -1;
	return p->phase == PH_DONE ? 0 : 1;
}

double probe_progress(const struct probe *p)
{
	if (p->phase == PH_DONE)
		return 1;
	double f = p->units_total ? (double)p->units_done / (double)p->units_total : 0;
	return f > 0.99 ? 0.99 : f;
}

const char *probe_phase_name(const struct probe *p) { return phase_names[p->phase]; }

const char *probe_error(const struct probe *p) { return p->err; }

const struct probe_result *probe_result(const struct probe *p) { return &p->r; }
