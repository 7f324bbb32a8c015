/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session.c: drives a backend through ticks and turns raw reads into counts and metrics. */
#include "session.h"
#include "expr.h"
#include "mode.h"
#include "textutil.h"
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The stores a session keeps for its ticks: the one being written, the one the frame shows, one
 * a held frame keeps (a paused screen); a tick when all are held gets a new one. */
#define SESSION_POOL 3

/* One tick's arrays in one block, refcounted (snapshot_share): a session writes a tick into a
 * store nobody else holds, and a frame holds the store of its tick instead of copying it. */
struct snapshot_store {
	int refs; /* the session's while in its pool, and each holder's */
	int nrows, nevents, nmetrics;
	int *cpus;
	bool *offline;
	struct count *counts, *total_counts;
	double *event_age;
	double *values, *total_values, *running, *total_running;
	enum metric_class *classes, *total_classes;
	struct metric_detail *detail;
	max_align_t data[]; /* the arrays above, one after another */
};

struct session {
	/* What a steady tick reads and writes, together at the start: after a sleep each 64-byte
	 * line a tick touches comes from a far cache, and the mode below is 142 KiB. */
	bool open;
	bool primed, start_set;
	int set;			/* rotation: set being counted */
	int ncpus, row_cpus;		/* cfg's */
	int nevents, nmetrics, nsets;	/* the mode's */
	double slots;			/* cfg.slots, NAN unknown */
	const int *row_ncpus;		/* cfg's */
	struct metric_program *program; /* the running mode's compiled metrics */
	/* previous and current raw reads */
	struct raw_count *prev, *cur;
	bool *prev_present, *cur_present;
	bool *offline;
	bool *held; /* per row: shown offline whatever the source reads (session_hold_offline) */
	uint64_t prev_t, cur_t, start_t;
	double time_offset; /* s: the session this one continues ended here (another clock) */
	uint64_t ticks;	    /* full ticks since the mode opened (snap.first) */
	/* carried values for rotation: last measured rate per second and its age */
	double *carry_rate, *carry_running;
	enum count_state *carry_state;
	double *age;
	int *cpus, *core_type;
	/* its event names are the program's (metric_program_names), its arrays a store's of pool */
	struct snapshot snap;
	struct snapshot_store *pool[SESSION_POOL]; /* the stores a tick is written into */
	int npool;
	struct backend backend;
	/* the rest: read when a mode opens, or by a rotating mode's tick */
	struct session_config cfg;
	struct { /* session_continue: the session this one replaces */
		bool valid;
		uint64_t start_t, cur_t, seq;
		double time_s;
	} before;
	double rotation_share[SESSION_MAX_EVENTS]; /* per event: the fraction of sets counting it */
	struct session_mode mode;
};

void session_mode_copy(struct session_mode *dst, const struct session_mode *src)
{
	if (dst == src)
		return;
	int had = dst->nmetrics, n = src->nmetrics;
	if (n < 0 || n > SESSION_MAX_METRICS)
		n = SESSION_MAX_METRICS;
	memcpy(dst, src, offsetof(struct session_mode, metrics));
	memcpy(dst->metrics, src->metrics, (size_t)n * sizeof(src->metrics[0]));
	if (had > n && had <= SESSION_MAX_METRICS) /* what an earlier mode left there */
		memset(dst->metrics + n, 0, (size_t)(had - n) * sizeof(dst->metrics[0]));
	size_t tail = offsetof(struct session_mode, nsets);
	memcpy((char *)dst + tail, (const char *)src + tail, sizeof(*dst) - tail);
}

struct session *session_new(const struct session_config *cfg, char *err, size_t errlen)
{
	struct session *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->cfg = *cfg;
	s->cpus = calloc((size_t)cfg->ncpus + 1, sizeof(int));
	s->core_type = calloc((size_t)cfg->ncpus + 1, sizeof(int));
	s->held = calloc((size_t)cfg->ncpus + 1, sizeof(bool));
	if (!s->cpus || !s->core_type || !s->held) {
		snprintf(err, errlen, "out of memory");
		session_free(s);
		return NULL;
	}
	memcpy(s->cpus, cfg->cpus, (size_t)cfg->ncpus * sizeof(int));
	if (cfg->core_pmu_type)
		memcpy(s->core_type, cfg->core_pmu_type, (size_t)cfg->ncpus * sizeof(int));
	s->cfg.cpus = s->cpus;
	s->cfg.core_pmu_type = s->core_type;
	s->ncpus = cfg->ncpus;
	s->row_cpus = cfg->row_cpus;
	s->row_ncpus = cfg->row_ncpus;
	s->slots = cfg->slots ? (double)cfg->slots : NAN;
	return s;
}

static void free_buffers(struct session *s)
{
	free(s->prev);
	free(s->cur);
	free(s->prev_present);
	free(s->cur_present);
	free(s->offline);
	free(s->carry_rate);
	free(s->carry_running);
	free(s->carry_state);
	free(s->age);
	for (int i = 0; i < s->npool; i++) /* a frame holding one keeps it */
		snapshot_store_release(s->pool[i]);
	s->npool = 0;
	s->prev = s->cur = NULL;
	s->prev_present = s->cur_present = s->offline = NULL;
	s->carry_rate = s->carry_running = s->age = NULL;
	s->carry_state = NULL;
	uint64_t seq = s->snap.seq; /* seq goes on across modes: it never repeats in a run */
	memset(&s->snap, 0, sizeof(s->snap));
	s->snap.seq = seq;
}

/* A store for the mode's rows, events and metrics (one reference, the caller's), its CPUs set;
 * NULL when out of memory. Sized as the session's arrays were: a spare cell each. */
static struct snapshot_store *store_new(const struct session *s)
{
	size_t r = (size_t)s->ncpus, n = (size_t)s->nevents, nm = (size_t)s->nmetrics;
	size_t cells = r * n + 1, mcells = r * (nm ? nm : 1) + 1;
	const size_t sizes[] = {(r + 1) * sizeof(int),
				(r + 1) * sizeof(bool),
				cells * sizeof(struct count),
				(n + 1) * sizeof(struct count),
				cells * sizeof(double),
				mcells * sizeof(double),
				(nm + 1) * sizeof(double),
				mcells * sizeof(double),
				(nm + 1) * sizeof(double),
				mcells * sizeof(enum metric_class),
				(nm + 1) * sizeof(enum metric_class),
				(mcells + nm) * sizeof(struct metric_detail)};
	enum { NARRAYS = sizeof(sizes) / sizeof(sizes[0]) };
	size_t at[NARRAYS], total = 0;
	for (int i = 0; i < NARRAYS; i++) {
		at[i] = total;
		total += (sizes[i] + sizeof(max_align_t) - 1) / sizeof(max_align_t) *
			 sizeof(max_align_t);
	}
	struct snapshot_store *st = calloc(1, sizeof(*st) + total);
	if (!st)
		return NULL;
	char *d = (char *)st->data;
	st->refs = 1;
	st->nrows = s->ncpus, st->nevents = s->nevents, st->nmetrics = s->nmetrics;
	st->cpus = (int *)(d + at[0]);
	st->offline = (bool *)(d + at[1]);
	st->counts = (struct count *)(d + at[2]);
	st->total_counts = (struct count *)(d + at[3]);
	st->event_age = (double *)(d + at[4]);
	st->values = (double *)(d + at[5]);
	st->total_values = (double *)(d + at[6]);
	st->running = (double *)(d + at[7]);
	st->total_running = (double *)(d + at[8]);
	st->classes = (enum metric_class *)(d + at[9]);
	st->total_classes = (enum metric_class *)(d + at[10]);
	st->detail = (struct metric_detail *)(d + at[11]);
	memcpy(st->cpus, s->cpus, r * sizeof(int)); /* the frame outlives the session */
	return st;
}

void snapshot_store_release(const struct snapshot_store *cst)
{
	struct snapshot_store *st = (struct snapshot_store *)cst;
	if (st && --st->refs <= 0)
		free(st);
}

const struct snapshot_store *snapshot_share(const struct snapshot *s)
{
	struct snapshot_store *st = (struct snapshot_store *)s->store;
	/* a copy of a tick with one array replaced (rows.c's sums) is not the store's */
#define OTHER_ARRAY(field, n) || s->field != st->field
	if (!st || s->nrows != st->nrows || s->nevents != st->nevents ||
	    s->nmetrics != st->nmetrics SNAPSHOT_ARRAYS(OTHER_ARRAY))
#undef OTHER_ARRAY
		return NULL;
	st->refs++;
	return st;
}

/* The snapshot's arrays made @st's. */
static void snap_point(struct snapshot *snap, struct snapshot_store *st)
{
	snap->store = st;
#define POINT_ARRAY(field, n) snap->field = st->field;
	SNAPSHOT_ARRAYS(POINT_ARRAY)
#undef POINT_ARRAY
}

/* A store nobody else holds for the tick about to be written: the last tick's when no frame
 * took it, else a free one of the pool, else a new one. -1 when out of memory. */
static int take_store(struct session *s)
{
	const struct snapshot_store *cur = s->snap.store;
	if (cur && cur->refs == 1)
		return 0;
	struct snapshot_store *st = NULL;
	for (int i = 0; i < s->npool && !st; i++)
		if (s->pool[i]->refs == 1)
			st = s->pool[i];
	if (!st) {
		if (!(st = store_new(s)))
			return -1;
		if (s->npool == SESSION_POOL) { /* every one held: the oldest left to its holders */
			snapshot_store_release(s->pool[0]);
			memmove(s->pool, s->pool + 1, (SESSION_POOL - 1) * sizeof(s->pool[0]));
			s->npool--;
		}
		s->pool[s->npool++] = st;
	}
	snap_point(&s->snap, st);
	return 0;
}

int session_set_mode(struct session *s, const struct session_mode *mode, char *err, size_t errlen)
{
	const struct source *src = s->cfg.source;
	const struct source_ops *ops = src ? src->ops : NULL;
	if (!ops) {
		snprintf(err, errlen, "no source to count from");
		return -1;
	}
	if (mode->nevents <= 0 || mode->nevents > SESSION_MAX_EVENTS) {
		snprintf(err, errlen, "mode %s has %d events (1-%d allowed)", mode->name,
			 mode->nevents, SESSION_MAX_EVENTS);
		return -1;
	}
	/* the session's own compiled copy of the metrics: nothing it evaluates belongs to a mode
	 * registry, so redefining or freeing a mode never reaches a running session */
	char names[SESSION_MAX_EVENTS][48];
	for (int e = 0; e < mode->nevents; e++)
		snprintf(names[e], sizeof(names[e]), "%s", mode->events[e].name);
	struct metric_program *prog = metric_program_new(
	    mode->metrics, mode->nmetrics, (const char(*)[48])names, mode->nevents, err, errlen);
	if (!prog)
		return -1;
	struct backend nb = {.ops = ops};
	struct backend_req req = {
	    .inst = src->inst,
	    .sysfs_root = s->cfg.sysfs_root,
	    .family = s->cfg.family,
	    .ncpus = s->cfg.ncpus,
	    .cpus = s->cpus,
	    .core_pmu_type = s->core_type,
	    .nevents = mode->nevents,
	    .events = mode->events,
	    .nsets = mode->nsets,
	    .singletons = mode->singletons,
	    .pids = s->cfg.pids,
	    .cgroup_fds = s->cfg.cgroup_fds,
	    .inherit = s->cfg.inherit,
	    .pid_on_cpu = s->cfg.pid_on_cpu,
	    .exec_pending = s->cfg.exec_pending,
	    .sample_ns = s->cfg.sample_ns,
	    .sample_path = s->cfg.sample_path,
	    .drain_ns = s->cfg.drain_ns,
	};
	if (ops->open(&nb, &req, err, errlen) < 0) {
		backend_free(&nb);
		metric_program_free(prog);
		return -1;
	}
	/* The new mode opened: only now drop the old one. */
	if (s->open)
		backend_free(&s->backend);
	metric_program_free(s->program);
	s->program = prog;
	free_buffers(s);
	s->backend = nb;
	s->open = true;
	session_mode_copy(&s->mode, mode);
	s->nevents = mode->nevents;
	s->nmetrics = mode->nmetrics;
	s->nsets = mode->nsets;
	/* the step of each event's value, the largest over the rows (a quantised source) */
	uint64_t quantum[SESSION_MAX_EVENTS] = {0};
	for (int r = 0; nb.status && r < nb.nrows; r++)
		for (int e = 0; e < mode->nevents && e < nb.nevents; e++)
			if (nb.status[r * nb.nevents + e].quantum_ns > quantum[e])
				quantum[e] = nb.status[r * nb.nevents + e].quantum_ns;
	metric_program_set_quanta(prog, quantum, mode->nevents);
	size_t cells = (size_t)s->cfg.ncpus * (size_t)mode->nevents + 1;
	s->prev = calloc(cells, sizeof(*s->prev));
	s->cur = calloc(cells, sizeof(*s->cur));
	s->prev_present = calloc(cells, sizeof(bool));
	s->cur_present = calloc(cells, sizeof(bool));
	s->offline = calloc((size_t)s->cfg.ncpus + 1, sizeof(bool));
	s->carry_rate = calloc(cells, sizeof(double));
	s->carry_running = calloc(cells, sizeof(double));
	s->carry_state = calloc(cells, sizeof(enum count_state));
	s->age = calloc(cells, sizeof(double));
	if (!s->prev || !s->cur || !s->prev_present || !s->cur_present || !s->offline ||
	    !s->carry_rate || !s->carry_running || !s->carry_state || !s->age ||
	    take_store(s) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < cells; i++)
		s->carry_state[i] = COUNT_NOT_COUNTED;
	for (int e = 0; e < mode->nevents; e++) {
		int in = 0;
		for (int k = 0; k < mode->nsets; k++)
			in += backend_event_in_set(&mode->events[e], k);
		s->rotation_share[e] = mode->nsets > 1 ? (double)in / mode->nsets : 1;
	}
	s->primed = false;
	s->set = 0;
	if (mode->nsets > 1 && s->backend.ops->select_set)
		s->backend.ops->select_set(&s->backend, 0);
	return 0;
}

static double now_offset(struct session *s)
{
	return s->time_offset + (double)(s->cur_t - s->start_t) / 1e9;
}

/* --- metrics: compiled once per mode, evaluated for every row and the total ---------------- */

/* A formula variable bound when the mode opens: an event's index, or a builtin. */
enum {
	VAR_INTERVAL = -1,
	VAR_INTERVAL_NS = -2,
	VAR_NCPUS = -3,
	VAR_TIME = -4,
	VAR_SLOTS = -5,
	VAR_NONE = -6
};

/* What a tick reads of one metric's definition (struct session_metric is 5 KiB of texts with
 * these at its end, a line or two apart for each metric): 48 bytes side by side. */
struct metric_hot {
	double good, warn, bad; /* thresholds as in mode.h (NAN = not set) */
	int better;		/* 0 = none */
	int ninputs;
	unsigned char inputs[8]; /* session_metric.inputs: events, < SESSION_MAX_EVENTS */
	bool split;
};
_Static_assert(SESSION_MAX_EVENTS <= 256, "an event index fits metric_hot.inputs");
_Static_assert(sizeof(((struct metric_hot *)0)->inputs) ==
		   sizeof(((struct session_metric *)0)->inputs) / sizeof(int),
	       "metric_hot.inputs holds every one of session_metric.inputs");

struct metric_program {
	int refs; /* the session's and each frame store's that shares its metrics */
	int n;
	struct session_metric *metrics; /* copies */
	struct metric_hot *hot;		/* [m]: what a tick reads of metrics[m] */
	char (*names)[48];		/* [nevents]: the events' names it was bound to (copies) */
	struct expr **expr;
	int **slot;	   /* [m][var]: what expr_vars()[var] of metric m reads */
	int *slots;	   /* slot's arrays side by side (one block), once compiled */
	struct expr **thr; /* [m]: the threshold formula, or NULL */
	int **thr_slot;
	int nevents;
	double *quantum; /* [event]: the step of its value (ns of a clock tick), 0 = exact */
	/* [m]: the variables of each "a ?? b ?? ..." branch (expr_else_branches, once a mode) */
	unsigned long long (*br)[16];
	int *nbr;
	/* [m]: the variables (bit v, the first 64) bound to an event counted in quanta, set with
	 * the quanta: the only ones resolution_of moves */
	unsigned long long *qvars;
	/* [m]: its formula's variable count and the threshold's (expr_vars), and the events its
	 * variables read: what "every variable used" (a formula without branches) means */
	int *nvars, *thr_nvars;
	unsigned long long *all_vars, *all_events;
	int max_vars; /* the most variables of a formula or threshold */
};

/* Binds every variable of @e to an event of @names or a builtin, once per mode. */
static int *bind_vars(const struct expr *e, const char (*names)[48], int nevents)
{
	const char *const *vars;
	int nv = expr_vars(e, &vars);
	int *slot = calloc((size_t)nv + 1, sizeof(int));
	if (!slot)
		return NULL;
	static const struct {
		const char *name;
		int slot;
	} builtins[] = {{"interval", VAR_INTERVAL},
			{"interval_ns", VAR_INTERVAL_NS},
			{"ncpus", VAR_NCPUS},
			{"time", VAR_TIME},
			{"slots", VAR_SLOTS}};
	for (int v = 0; v < nv; v++) {
		slot[v] = VAR_NONE;
		for (int k = 0; k < nevents && slot[v] == VAR_NONE; k++)
			if (strcmp(names[k], vars[v]) == 0)
				slot[v] = k;
		for (size_t b = 0;
		     b < sizeof(builtins) / sizeof(builtins[0]) && slot[v] == VAR_NONE; b++)
			if (strcmp(builtins[b].name, vars[v]) == 0)
				slot[v] = builtins[b].slot;
	}
	return slot;
}

struct metric_program *metric_program_new(const struct session_metric *metrics, int n,
					  const char (*names)[48], int nevents, char *err,
					  size_t errlen)
{
	struct metric_program *p = calloc(1, sizeof(*p));
	if (!p || !(p->metrics = calloc((size_t)n + 1, sizeof(*p->metrics))) ||
	    !(p->hot = calloc((size_t)n + 1, sizeof(*p->hot))) ||
	    !(p->expr = calloc((size_t)n + 1, sizeof(*p->expr))) ||
	    !(p->slot = calloc((size_t)n + 1, sizeof(*p->slot))) ||
	    !(p->thr = calloc((size_t)n + 1, sizeof(*p->thr))) ||
	    !(p->thr_slot = calloc((size_t)n + 1, sizeof(*p->thr_slot))) ||
	    !(p->br = calloc((size_t)n + 1, sizeof(*p->br))) ||
	    !(p->nbr = calloc((size_t)n + 1, sizeof(*p->nbr))) ||
	    !(p->qvars = calloc((size_t)n + 1, sizeof(*p->qvars))) ||
	    !(p->nvars = calloc((size_t)n + 1, sizeof(*p->nvars))) ||
	    !(p->thr_nvars = calloc((size_t)n + 1, sizeof(*p->thr_nvars))) ||
	    !(p->all_vars = calloc((size_t)n + 1, sizeof(*p->all_vars))) ||
	    !(p->all_events = calloc((size_t)n + 1, sizeof(*p->all_events)))) {
		metric_program_free(p);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->refs = 1;
	p->n = n;
	p->nevents = nevents;
	if (!(p->quantum = calloc((size_t)nevents + 1, sizeof(double))) ||
	    !(p->names = calloc((size_t)nevents + 1, sizeof(*p->names)))) {
		metric_program_free(p);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memcpy(p->names, names, (size_t)nevents * sizeof(*p->names));
	for (int m = 0; m < n; m++) {
		p->metrics[m] = metrics[m];
		struct metric_hot *h = &p->hot[m];
		*h = (struct metric_hot){.good = metrics[m].good,
					 .warn = metrics[m].warn,
					 .bad = metrics[m].bad,
					 .better = metrics[m].better,
					 .split = metrics[m].split};
		for (int k = 0; k < metrics[m].ninputs && k < (int)sizeof(h->inputs); k++)
			if (metrics[m].inputs[k] >= 0 && metrics[m].inputs[k] < SESSION_MAX_EVENTS)
				h->inputs[h->ninputs++] = (unsigned char)metrics[m].inputs[k];
		char why[256];
		if (!metrics[m].formula[0])
			continue; /* no formula: always n/a */
		p->expr[m] = expr_parse(metrics[m].formula, why, sizeof(why));
		if (!p->expr[m]) {
			snprintf(err, errlen, "metric %s: %s", metrics[m].name, why);
			metric_program_free(p);
			return NULL;
		}
		if (!(p->slot[m] = bind_vars(p->expr[m], names, nevents))) {
			snprintf(err, errlen, "out of memory");
			metric_program_free(p);
			return NULL;
		}
		p->nbr[m] = expr_else_branches(p->expr[m], p->br[m], 16);
		const char *const *vars;
		p->nvars[m] = expr_vars(p->expr[m], &vars);
		for (int k = 0; k < p->nvars[m] && k < 64; k++) {
			p->all_vars[m] |= 1ULL << k;
			if (p->slot[m][k] >= 0) /* an event: < SESSION_MAX_EVENTS */
				p->all_events[m] |= 1ULL << p->slot[m][k];
		}
		if (p->nvars[m] > p->max_vars)
			p->max_vars = p->nvars[m];
		if (!metrics[m].threshold[0])
			continue;
		p->thr[m] = expr_parse(metrics[m].threshold, why, sizeof(why));
		if (!p->thr[m] || !(p->thr_slot[m] = bind_vars(p->thr[m], names, nevents))) {
			snprintf(err, errlen, "metric %s: threshold: %s", metrics[m].name,
				 p->thr[m] ? "out of memory" : why);
			metric_program_free(p);
			return NULL;
		}
		p->thr_nvars[m] = expr_vars(p->thr[m], &vars);
		if (p->thr_nvars[m] > p->max_vars)
			p->max_vars = p->thr_nvars[m];
	}
	/* the formulas' slots side by side: a tick reads them all */
	size_t nslots = 0;
	for (int m = 0; m < n; m++)
		nslots += p->slot[m] ? (size_t)p->nvars[m] : 0;
	if ((p->slots = malloc((nslots + 1) * sizeof(int)))) {
		size_t at = 0;
		for (int m = 0; m < n; m++) {
			if (!p->slot[m])
				continue;
			memcpy(p->slots + at, p->slot[m], (size_t)p->nvars[m] * sizeof(int));
			free(p->slot[m]);
			p->slot[m] = p->slots + at;
			at += (size_t)p->nvars[m];
		}
	}
	return p;
}

void metric_program_hold(const struct metric_program *p)
{
	((struct metric_program *)p)->refs++; /* the count only: what it holds stays immutable */
}

const struct session_metric *metric_program_metrics(const struct metric_program *p)
{
	return p->metrics;
}

const char (*metric_program_names(const struct metric_program *p))[48]
{
	return (const char(*)[48])p->names;
}

void metric_program_free(const struct metric_program *cp)
{
	struct metric_program *p = (struct metric_program *)cp;
	if (!p || --p->refs > 0)
		return;
	for (int m = 0; p->expr && m < p->n; m++)
		expr_free(p->expr[m]);
	for (int m = 0; p->slot && !p->slots && m < p->n; m++)
		free(p->slot[m]);
	free(p->slots);
	for (int m = 0; p->thr && m < p->n; m++)
		expr_free(p->thr[m]);
	for (int m = 0; p->thr_slot && m < p->n; m++)
		free(p->thr_slot[m]);
	free(p->thr);
	free(p->thr_slot);
	free(p->slot);
	free(p->expr);
	free(p->metrics);
	free(p->hot);
	free(p->names);
	free(p->quantum);
	free(p->br);
	free(p->nbr);
	free(p->qvars);
	free(p->nvars);
	free(p->thr_nvars);
	free(p->all_vars);
	free(p->all_events);
	free(p);
}

void metric_program_set_quanta(struct metric_program *p, const uint64_t *quantum_ns, int nevents)
{
	for (int e = 0; e < nevents && e < p->nevents; e++)
		p->quantum[e] = (double)quantum_ns[e];
	for (int m = 0; m < p->n; m++) {
		p->qvars[m] = 0;
		if (!p->expr[m])
			continue;
		const char *const *vars;
		int nv = expr_vars(p->expr[m], &vars);
		for (int k = 0; k < nv && k < 64; k++)
			if (p->slot[m][k] >= 0 && p->quantum[p->slot[m][k]] > 0)
				p->qvars[m] |= 1ULL << k;
	}
}

/* One row's inputs as the formulas read them: its counts and each builtin's value, [-VAR_*],
 * made from @in once per row (not per variable). */
struct row_inputs {
	const struct metric_inputs *in;
	double builtin[1 - VAR_NONE];
};

static void row_inputs_set(struct row_inputs *ri, const struct metric_inputs *in)
{
	ri->in = in;
	ri->builtin[0] = NAN; /* unused: 0 is an event */
	ri->builtin[-VAR_INTERVAL] = in->interval_s;
	ri->builtin[-VAR_INTERVAL_NS] = in->interval_s * 1e9;
	ri->builtin[-VAR_NCPUS] = in->ncpus;
	ri->builtin[-VAR_TIME] = in->time_s;
	ri->builtin[-VAR_SLOTS] = in->slots > 0 ? in->slots : NAN;
	ri->builtin[-VAR_NONE] = NAN;
}

/* What one evaluation reads: the row's inputs and the metric's bound variables. */
struct bound_inputs {
	const struct row_inputs *ri;
	const int *slot; /* [var]: the event, or a VAR_* value */
	int nvars;
};

/* Every variable's value of @b this tick (NAN when it has none), once per evaluation (no lookup
 * by name). */
static inline void bound_values(const struct bound_inputs *b, double *vals)
{
	const struct count *counts = b->ri->in->counts;
	for (int v = 0; v < b->nvars; v++) {
		int k = b->slot[v];
		if (k >= 0) {
			const struct count *c = &counts[k];
			vals[v] = c->state == COUNT_OK || c->state == COUNT_SCALED ? c->value : NAN;
		} else {
			vals[v] = b->ri->builtin[-k];
		}
	}
}

static enum metric_class classify(const struct metric_hot *sm, double v)
{
	if (isnan(v))
		return METRIC_NA;
	if (!sm->better)
		return METRIC_NONE;
	struct mode_metric mm = {
	    .good = sm->good, .warn = sm->warn, .bad = sm->bad, .better = sm->better};
	return metric_classify(&mm, v);
}

/* The largest change one quantum more or less of each quantised input (a /proc/stat tick)
 * makes to a value @v computed by @b from the variables in @used: the value's resolution. Every
 * sign combination that keeps the counts at 0 or more is tried, so a ratio like busy / (busy +
 * idle) gets its true step (one tick moved between idle and busy) at 0 % and 100 % too. */
#define RESOLUTION_MAX_VARS 6
static double resolution_of(const struct metric_program *p, const struct bound_inputs *b, int m,
			    const double *vals, double *moved, unsigned long long used, double v)
{
	int qv[RESOLUTION_MAX_VARS], nq = 0;
	unsigned long long q = used & p->qvars[m]; /* the used variables with a quantum */
	for (; q && nq < RESOLUTION_MAX_VARS; q &= q - 1)
		qv[nq++] = __builtin_ctzll(q);
	if (nq == 0)
		return 0;
	double res = 0;
	for (unsigned signs = 0; signs < 1u << nq; signs++) {
		memcpy(moved, vals, (size_t)b->nvars * sizeof(*moved));
		bool negative = false; /* a count never goes below 0 */
		for (int i = 0; i < nq; i++) {
			int e = b->slot[qv[i]];
			double q = p->quantum[e];
			double delta = signs >> i & 1 ? -q : q;
			negative |= b->ri->in->counts[e].value + delta < 0;
			moved[qv[i]] = vals[qv[i]] + delta;
		}
		if (negative)
			continue;
		double w;
		if (expr_eval_values(p->expr[m], moved, &w, NULL) == 0 && fabs(w - v) > res)
			res = fabs(w - v);
	}
	return res;
}

/* The events (bit e) that count in steps (a clock's ticks) where the tick, @interval_s long, is
 * shorter than SESSION_COARSE_STEPS of them: the same for every row of a tick. */
static unsigned long long coarse_events(const struct metric_program *p, int nevents,
					double interval_s)
{
	unsigned long long mask = 0;
	for (int e = 0; e < nevents && e < p->nevents && e < 64; e++)
		if (p->quantum[e] > 0 && interval_s * 1e9 < SESSION_COARSE_STEPS * p->quantum[e])
			mask |= 1ULL << e;
	return mask;
}

/* One metric for one row: its value (NAN = n/a, also when @skip, e.g. an offline row), its
 * class, the least running fraction of its inputs and how precise the value is. */
_Static_assert(SESSION_MAX_EVENTS <= 64, "an event is a bit of a 64-bit mask");
/* @scratch: 2 x p->max_vars doubles. */
static void metric_eval(const struct metric_program *p, int m, const struct row_inputs *ri,
			unsigned long long coarse_mask, double *scratch, bool skip, double *value,
			enum metric_class *cls, double *running, struct metric_detail *detail)
{
	const struct metric_inputs *in = ri->in;
	const struct metric_hot *sm = &p->hot[m];
	double v = NAN;
	bool nc_row = false;
	*detail = (struct metric_detail){0};
	if (!skip && p->expr[m]) {
		struct bound_inputs b = {.ri = ri, .slot = p->slot[m], .nvars = p->nvars[m]};
		double *vals = scratch;
		bound_values(&b, vals);
		unsigned long long used = 0;
		if (expr_eval_values(p->expr[m], vals, &v, &used) < 0)
			v = NAN;
		/* "a ?? b": b stands in where a's events are not in the mode or not supported
		 * (n/s), not where the row has them and did not count them this tick: that value
		 * is n/c (GHz never silently turns into cycles per wall second) */
		const unsigned long long *br = p->br[m];
		int nb = p->nbr[m];
		for (int i = 0; nb > 1 && i < nb; i++) {
			bool bound = true, nc = false;
			for (unsigned long long u = br[i] & p->all_vars[m]; u; u &= u - 1) {
				int e = b.slot[__builtin_ctzll(u)]; /* bit k: expr_vars()[k] */
				bound &= e != VAR_NONE;
				nc |= e >= 0 && (in->counts[e].state == COUNT_NOT_COUNTED ||
						 in->counts[e].state == COUNT_INVALID);
			}
			if (!bound)
				continue;
			if (nc) {
				v = NAN;
				used = 0;
				nc_row = true;
			}
			break;
		}
		if (used == p->all_vars[m] && used) /* each variable: bit k is expr_vars()[k] */
			detail->used = p->all_events[m];
		else
			for (unsigned long long u = used; u; u &= u - 1) {
				int e = b.slot[__builtin_ctzll(u)];
				if (e >= 0) /* < SESSION_MAX_EVENTS: a bit of a 64-bit mask */
					detail->used |= 1ULL << e;
			}
		detail->coarse = (detail->used & coarse_mask) != 0;
		if (isfinite(v))
			detail->resolution =
			    resolution_of(p, &b, m, vals, scratch + p->max_vars, used, v);
	}
	detail->not_counted = nc_row;
	if (!isfinite(v)) {
		/* n/a: no resolution and no inputs; still coarse when a quantised input was
		 * counted in a tick too short for it (a 10 ms read where no /proc/stat tick
		 * landed gives busy + idle = 0) */
		v = NAN;
		bool coarse = false;
		for (int k = 0; !skip && p->expr[m] && k < sm->ninputs; k++) {
			int e = sm->inputs[k];
			const struct count *c = &in->counts[e];
			coarse |= (c->state == COUNT_OK || c->state == COUNT_SCALED) &&
				  (coarse_mask >> e & 1);
		}
		*detail = (struct metric_detail){.coarse = coarse, .not_counted = nc_row};
	}
	*cls = classify(sm, v);
	if (p->thr[m] && isfinite(v)) {
		/* perf's MetricThreshold, over the same events: true is bad, false good */
		struct bound_inputs b = {
		    .ri = ri, .slot = p->thr_slot[m], .nvars = p->thr_nvars[m]};
		double *vals = scratch, t;
		bound_values(&b, vals);
		if (expr_eval_values(p->thr[m], vals, &t, NULL) == 0)
			*cls = t != 0 ? METRIC_BAD : METRIC_GOOD;
	}
	/* the least running fraction of the inputs the value was computed from: an input of a
	 * fallback branch not taken (an unsupported optional mperf) marks nothing */
	double run = 1.0;
	for (int k = 0; k < sm->ninputs; k++) {
		int e = sm->inputs[k];
		if (detail->used && e < 64 && !(detail->used >> e & 1))
			continue;
		const struct count *c = &in->counts[e];
		double rk = (c->state == COUNT_OK || c->state == COUNT_SCALED) ? c->running : 0;
		if (rk < run)
			run = rk;
	}
	*running = run;
	*value = v;
}

/* Whether metric @m's measured inputs on some online row have different ages: a value carried
 * from an earlier tick of the rotation meets one measured in this tick (or in another one). */
static bool inputs_of_different_ticks(const struct snapshot *s, const struct metric_hot *sm)
{
	if (!s->event_age)
		return false;
	for (int r = 0; r < s->nrows; r++) {
		if (s->offline[r])
			continue;
		double lo = INFINITY, hi = -INFINITY;
		for (int k = 0; k < sm->ninputs; k++) {
			size_t i = (size_t)r * (size_t)s->nevents + (size_t)sm->inputs[k];
			const struct count *c = &s->counts[i];
			if (c->state != COUNT_OK && c->state != COUNT_SCALED)
				continue;
			double age = s->event_age[i]; /* as fmin/fmax: a NAN changes nothing */
			if (age < lo)
				lo = age;
			if (age > hi)
				hi = age;
		}
		if (hi > lo)
			return true;
	}
	return false;
}

double snapshot_metric_with(const struct snapshot *s, const struct metric_program *p, int row,
			    int m, int e, double delta)
{
	int n = s->nevents;
	if (!p || m < 0 || m >= p->n || !p->expr[m] || row < 0 || row > s->nrows)
		return NAN;
	bool total = row == s->nrows;
	struct count counts[SESSION_MAX_EVENTS];
	if (n > SESSION_MAX_EVENTS)
		return NAN;
	memcpy(counts, total ? s->total_counts : &s->counts[(size_t)row * n],
	       (size_t)n * sizeof(*counts));
	if (e >= 0 && e < n)
		counts[e].value += delta;
	/* ncpus as snapshot_compute gives it: the rows counted this tick for the total row */
	double per_row = s->row_cpus < 0 ? NAN : s->row_cpus > 1 ? s->row_cpus : 1;
	double ncpus = per_row;
	if (total) {
		int rows = 0;
		for (int r = 0; r < s->nrows; r++) {
			bool counted = false;
			for (int k = 0; k < n && !counted && !s->offline[r]; k++) {
				enum count_state st = s->counts[r * n + k].state;
				counted = st == COUNT_OK || st == COUNT_SCALED;
			}
			rows += counted ? (s->row_ncpus ? s->row_ncpus[r] : 1) : 0;
		}
		ncpus = s->row_ncpus ? rows : rows * per_row;
	} else if (s->row_ncpus) {
		ncpus = s->row_ncpus[row];
	}
	struct metric_inputs in = {.names = s->event_names,
				   .counts = counts,
				   .nevents = n,
				   .interval_s = s->interval_s,
				   .time_s = s->time_s,
				   .ncpus = ncpus,
				   .slots = s->slots};
	struct row_inputs ri;
	row_inputs_set(&ri, &in);
	const char *const *vars;
	struct bound_inputs b = {.ri = &ri, .slot = p->slot[m]};
	b.nvars = expr_vars(p->expr[m], &vars);
	double vals[b.nvars > 0 ? b.nvars : 1], v;
	bound_values(&b, vals);
	if (expr_eval_values(p->expr[m], vals, &v, NULL) < 0 || !isfinite(v))
		return NAN;
	return v;
}

void snapshot_compute(struct snapshot *s)
{
	int n = s->nevents, nm = s->nmetrics;
	/* The total row is made of the rows counted this tick: online, with at least one event
	 * counted (a CPU back from offline has no delta in its first tick). Formulas divide by
	 * ncpus where a per-CPU average is meant (utilisation, GHz), so a row that adds no counts
	 * must not add to ncpus either. */
	bool skip[s->nrows + 1];
	int counted_rows = 0, counted_cpus = 0;
	for (int r = 0; r < s->nrows; r++) {
		skip[r] = true;
		for (int e = 0; e < n && skip[r] && !s->offline[r]; e++) {
			enum count_state st = s->counts[r * n + e].state;
			skip[r] = st != COUNT_OK && st != COUNT_SCALED;
		}
		counted_rows += !skip[r];
		counted_cpus += skip[r] ? 0 : s->row_ncpus ? s->row_ncpus[r] : 1;
	}
	for (int e = 0; e < n; e++)
		count_total(s->counts, s->nrows, n, e, skip, &s->total_counts[e]);
	struct metric_inputs in = {.names = s->event_names,
				   .nevents = n,
				   .interval_s = s->interval_s,
				   .time_s = s->time_s,
				   .slots = s->slots};
	struct count mtotal[n > 0 ? n : 1];
	unsigned long long coarse = s->program ? coarse_events(s->program, n, s->interval_s) : 0;
	double scratch[s->program && s->program->max_vars > 0 ? 2 * s->program->max_vars : 1];
	double per_row = s->row_cpus < 0 ? NAN : s->row_cpus > 1 ? s->row_cpus : 1;
	struct row_inputs ri;
	for (int r = 0; r <= s->nrows; r++) {
		bool total = r == s->nrows;
		in.counts = total ? s->total_counts : &s->counts[r * n];
		in.ncpus = s->row_ncpus ? (total ? counted_cpus : s->row_ncpus[r])
			   : total	? counted_rows * per_row
					: per_row;
		row_inputs_set(&ri, &in);
		for (int m = 0; m < nm; m++) {
			double *v = total ? &s->total_values[m] : &s->values[r * nm + m];
			double *run = total ? &s->total_running[m] : &s->running[r * nm + m];
			enum metric_class *cls =
			    total ? &s->total_classes[m] : &s->classes[r * nm + m];
			const struct row_inputs *mri = &ri;
			struct metric_inputs min;
			struct row_inputs apart_ri;
			if (total) {
				/* a row that did not count one of this metric's inputs (its n/c
				 * cell) stays out of the metric's total and of its ncpus */
				bool mskip[s->nrows + 1], apart = false;
				int rows = 0;
				for (int q = 0; q < s->nrows; q++) {
					mskip[q] = skip[q] || s->detail[q * nm + m].not_counted;
					apart |= mskip[q] != skip[q];
					rows += !mskip[q];
				}
				if (unlikely(apart)) {
					for (int e = 0; e < n; e++)
						count_total(s->counts, s->nrows, n, e, mskip,
							    &mtotal[e]);
					min = in;
					min.counts = mtotal;
					min.ncpus = rows * per_row;
					row_inputs_set(&apart_ri, &min);
					mri = &apart_ri;
				}
			}
			metric_eval(s->program, m, mri, coarse, scratch, !total && s->offline[r], v,
				    cls, run, &s->detail[r * nm + m]);
		}
	}
	/* a metric's inputs can have different ages only where a row's counted events do */
	bool ages_differ = false;
	for (int r = 0; r < s->nrows && s->event_age && !ages_differ; r++) {
		double lo = INFINITY, hi = -INFINITY;
		for (int e = 0; e < n && !s->offline[r]; e++) {
			size_t i = (size_t)r * (size_t)n + (size_t)e;
			enum count_state st = s->counts[i].state;
			if (st != COUNT_OK && st != COUNT_SCALED)
				continue;
			double age = s->event_age[i]; /* as inputs_of_different_ticks */
			if (age < lo)
				lo = age;
			if (age > hi)
				hi = age;
		}
		ages_differ = hi > lo;
	}
	/* the program's compact copy of the definitions when they are its own (a tick reads 48
	 * bytes a metric, not the 5 KiB definition's last lines) */
	bool own = s->program && s->metrics == s->program->metrics;
	for (int m = 0; m < nm && m < SESSION_MAX_METRICS; m++) {
		struct metric_hot h = {0};
		const struct metric_hot *sm = own ? &s->program->hot[m] : &h;
		if (!own)
			h.split = s->metrics[m].split;
		if (!own && ages_differ) {
			h.ninputs = s->metrics[m].ninputs < 8 ? s->metrics[m].ninputs : 8;
			for (int k = 0; k < h.ninputs; k++)
				h.inputs[k] = (unsigned char)s->metrics[m].inputs[k];
		}
		s->split[m] = sm->split || (ages_differ && inputs_of_different_ticks(s, sm));
	}
}

/* Rotation: the set that counted in this tick, read from the triples themselves, so a replay
 * that starts anywhere in the rotation - a flight recording's window - classifies its events
 * exactly as the live run did. A set scores the running time of its rotated events minus that
 * of the rotated events outside it (an event may be in several sets); the best score wins.
 * @phase when nothing ran. Out of line: only modes that rotate sets run it. */
__attribute__((noinline)) static int set_counted(const struct session *s, int phase,
						 const bool *was_offline)
{
	int n = s->mode.nevents, best = phase, nsets = s->mode.nsets;
	double best_ns = 0, score[MODE_MAX_SETS] = {0};
	if (nsets > MODE_MAX_SETS)
		nsets = MODE_MAX_SETS;
	for (int r = 0; r < s->cfg.ncpus; r++) {
		if (s->offline[r] || was_offline[r])
			continue;
		for (int e = 0; e < n; e++) {
			size_t i = (size_t)r * (size_t)n + (size_t)e;
			const struct backend_event *ev = &s->mode.events[e];
			if (ev->set < 0 || !s->cur_present[i] || !s->prev_present[i] ||
			    s->cur[i].running < s->prev[i].running)
				continue;
			double ran = (double)(s->cur[i].running - s->prev[i].running);
			for (int k = 0; k < nsets; k++)
				score[k] += backend_event_in_set(ev, k) ? ran : -ran;
		}
	}
	for (int k = 0; k < nsets; k++)
		if (score[k] > best_ns) {
			best_ns = score[k];
			best = k;
		}
	return best;
}

int session_tick(struct session *s, uint64_t nominal_ns, char *err, size_t errlen)
{
	if (unlikely(!s->open)) {
		snprintf(err, errlen, "no mode is open");
		return -1;
	}
	int n = s->nevents;
	size_t cells = (size_t)s->ncpus * (size_t)n;
	/* swap buffers: cur becomes prev */
	struct raw_count *tr = s->prev;
	s->prev = s->cur;
	s->cur = tr;
	bool *tp = s->prev_present;
	s->prev_present = s->cur_present;
	s->cur_present = tp;
	s->prev_t = s->cur_t;
	bool was_offline[s->ncpus + 1];
	memcpy(was_offline, s->offline, (size_t)s->ncpus * sizeof(bool));
	if (s->backend.ops->read(&s->backend, nominal_ns, s->cur, s->cur_present, s->offline,
				 &s->cur_t, err, errlen) < 0)
		return -1;
	for (int r = 0; r < s->ncpus; r++) /* gone from the online list: offline, as a real
					    * hotplug makes it */
		s->offline[r] |= s->held[r];
	if (unlikely(!s->start_set)) {
		/* a recorded source's clock already counts from the recording's start (a flight
		 * recording's first tick is late in the run): its times stay the recorded ones */
		s->start_t = source_has(s->cfg.source, SOURCE_CAP_RECORDED) ? 0 : s->cur_t;
		s->start_set = true;
		/* continuing a session (the CPU set changed): time goes on from its start on the
		 * same clock, else from where it ended */
		if (s->before.valid && s->start_t != 0) {
			if (s->cur_t >= s->before.cur_t)
				s->start_t = s->before.start_t;
			else
				s->time_offset = s->before.time_s;
		}
	}
	int counted_set = s->set;
	/* the priming read only sets the base: the first set keeps counting into the first tick,
	 * so the first rotation already measures every set */
	if (s->primed && s->nsets > 1 && s->backend.ops->select_set) {
		s->set = (s->set + 1) % s->nsets;
		s->backend.ops->select_set(&s->backend, s->set);
	}
	if (unlikely(!s->primed)) {
		/* the priming read of a mode: no tick; seq goes on (never repeats in a run) */
		s->primed = true;
		s->ticks = 0;
		if (s->before.valid && s->snap.seq < s->before.seq)
			s->snap.seq = s->before.seq;
		return 0;
	}
	if (take_store(s) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->snap.seq++;
	s->snap.first = ++s->ticks == 1;
	s->snap.time_s = now_offset(s);
	s->snap.interval_s = (double)(s->cur_t - s->prev_t) / 1e9;
	s->snap.nrows = s->ncpus;
	s->snap.row_cpus = s->row_cpus;
	s->snap.row_ncpus = s->row_ncpus;
	memcpy(s->snap.offline, s->offline, (size_t)s->ncpus * sizeof(bool));
	s->snap.nevents = n;
	s->snap.event_names = metric_program_names(s->program);
	s->snap.nmetrics = s->nmetrics;
	s->snap.metrics = s->program->metrics;
	s->snap.program = s->program;
	s->snap.slots = s->slots;
	if (s->nsets > 1)
		counted_set = set_counted(s, counted_set, was_offline);
	for (size_t i = 0; i < cells; i++) {
		int r = (int)(i / (size_t)n), e = (int)(i % (size_t)n);
		struct count *c = &s->snap.counts[i];
		if (s->offline[r]) {
			*c = (struct count){.state = COUNT_OFFLINE};
			continue;
		}
		if (!s->cur_present[i]) {
			*c = (struct count){.state = COUNT_NOT_SUPPORTED};
			continue;
		}
		if (!s->prev_present[i] || was_offline[r]) {
			/* reopened after hotplug (or newly present): deltas restart next tick */
			*c = (struct count){.state = COUNT_NOT_COUNTED};
			continue;
		}
		count_delta(&s->prev[i], &s->cur[i], s->backend.counter_bits, c);
		if (s->nsets > 1) {
			/* Rotation: an event outside the counted set keeps its last measured rate.
			 */
			if (s->mode.events[e].set < 0) /* counted in every set */
				continue;
			bool in_set = backend_event_in_set(&s->mode.events[e], counted_set);
			if (in_set && (c->state == COUNT_OK || c->state == COUNT_SCALED)) {
				s->carry_rate[i] = c->value / s->snap.interval_s;
				s->carry_running[i] = c->running;
				s->carry_state[i] = c->state;
				s->age[i] = 0;
				/* its share of the whole rotation: the sets it is in of all sets */
				c->running *= s->rotation_share[e];
				c->state = COUNT_SCALED;
			} else if (s->carry_state[i] == COUNT_OK ||
				   s->carry_state[i] == COUNT_SCALED) {
				s->age[i] += 1;
				c->value = s->carry_rate[i] * s->snap.interval_s;
				c->running = s->carry_running[i] * s->rotation_share[e];
				c->state = COUNT_SCALED;
			} else {
				*c = (struct count){.state = COUNT_NOT_COUNTED};
			}
		}
	}
	if (s->nsets > 1) /* else every age stays 0, as the store was made */
		memcpy(s->snap.event_age, s->age, cells * sizeof(double));
	snapshot_compute(&s->snap);
	return 1;
}

const struct snapshot *session_snapshot(const struct session *s) { return &s->snap; }
const struct backend *session_backend(const struct session *s) { return &s->backend; }

void session_set_sampling(struct session *s, uint64_t sample_ns, uint64_t drain_ns)
{
	s->cfg.sample_ns = sample_ns;
	s->cfg.drain_ns = drain_ns;
}

void session_set_due(struct session *s, double time_s)
{
	double ns = (time_s - s->time_offset) * 1e9; /* after start_t (now_offset backwards) */
	s->backend.due_ns = s->start_set && s->start_t && ns > 0 ? s->start_t + (uint64_t)ns : 0;
}

int session_queued(struct session *s)
{
	if (!s->open || !s->backend.ring || !s->backend.ops->queued)
		return -1;
	return s->backend.ops->queued(&s->backend);
}

void session_raw(const struct session *s, struct session_raw *out)
{
	*out = (struct session_raw){
	    .nrows = s->cfg.ncpus,
	    .nevents = s->open ? s->mode.nevents : 0,
	    .cpus = s->cpus,
	    .prev = s->prev,
	    .cur = s->cur,
	    .prev_present = s->prev_present,
	    .cur_present = s->cur_present,
	    .offline = s->offline,
	    .prev_t = s->prev_t,
	    .cur_t = s->cur_t,
	};
}

bool session_hold_offline(struct session *s, int row, bool held)
{
	if (!s || row < 0 || row >= s->cfg.ncpus || s->held[row] == held)
		return false;
	s->held[row] = held;
	return true;
}

void session_continue(struct session *s, const struct session *before)
{
	if (!s || !before || !before->start_set)
		return;
	s->before.valid = true;
	s->before.start_t = before->start_t;
	s->before.cur_t = before->cur_t;
	s->before.seq = before->snap.seq;
	s->before.time_s = now_offset((struct session *)before);
}

void session_free(struct session *s)
{
	if (!s)
		return;
	if (s->open)
		backend_free(&s->backend);
	metric_program_free(s->program);
	free_buffers(s);
	free(s->cpus);
	free(s->held);
	free(s->core_type);
	free(s);
}
