/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rows.c: rows keyed by a unit (core, die, socket, cluster, cache, core type): counts summed per
 * key, then the mode's formulas over the sums. */
#include "rows.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	const char *help;
} unit_table[ROWS_NKINDS] = {
    [ROWS_CPU] = {"cpu", "one row per CPU (the default)"},
    [ROWS_CORE] = {"core", "one row per core, SMT siblings summed: S0-D0-C1 (perf --per-core)"},
    [ROWS_DIE] = {"die", "one row per die: S0-D0 (perf --per-die)"},
    [ROWS_SOCKET] = {"socket", "one row per socket: S0 (perf --per-socket)"},
    [ROWS_CLUSTER] = {"cluster", "one row per CPU cluster: S0-D0-CLS0 (perf --per-cluster)"},
    [ROWS_CACHE] = {"cache",
		    "one row per last-level cache domain: S0-D0-L3-ID0 (perf --per-cache)"},
    [ROWS_TYPE] = {"type", "one row per core type (hybrid, big.LITTLE): cpu_core, cpu_atom"},
    [ROWS_TASK] = {"task", "one row per process or thread counted (-p, -t, -u, -- CMD)"},
    [ROWS_CGROUP] = {"cgroup", "one row per cgroup counted (-G, --for-each-cgroup)"},
    [ROWS_NODE] = {"node", "one row per NUMA node: N0 (an imported perf stat --per-node)"},
};

const char *rows_unit_name(enum row_unit u)
{
	return u >= 0 && u < ROWS_NKINDS ? unit_table[u].name : "?";
}

const char *rows_unit_help(enum row_unit u)
{
	return u >= 0 && u < ROWS_NKINDS ? unit_table[u].help : "";
}

const char *rows_unit_list(void) { return "cpu|core|die|socket|cluster|cache|type"; }

int rows_unit_parse(const char *name, enum row_unit *out, char *err, size_t errlen)
{
	int found = -1, matches = 0;
	size_t len = strlen(name);
	for (int u = 0; u < ROWS_NUNITS && len; u++) {
		if (strcmp(unit_table[u].name, name) == 0) {
			*out = (enum row_unit)u;
			return 0;
		}
		if (strncmp(unit_table[u].name, name, len) == 0)
			found = u, matches++;
	}
	if (matches == 1) {
		*out = (enum row_unit)found;
		return 0;
	}
	snprintf(err, errlen, "rows: %s unit \"%.40s\" (units: %s)",
		 matches > 1 ? "ambiguous" : "unknown", name, rows_unit_list());
	return -1;
}

void rows_key_of(const struct topology *t, enum row_unit unit, int cpu, struct row_key *out)
{
	const struct topo_cpu *c = topology_cpu(t, cpu);
	memset(out, 0, sizeof(*out));
	out->kind = unit;
	out->id = cpu;
	out->first_cpu = cpu;
	out->ncpus = 1;
	int *k = out->tuple;
	if (unit == ROWS_CPU) {
		k[0] = cpu;
		snprintf(out->label, sizeof(out->label), "%d", cpu);
		return;
	}
	if (unit == ROWS_TYPE) {
		/* grouped by name; the tuple is set by the caller (order of first appearance) */
		snprintf(out->label, sizeof(out->label), "%s", c && c->type[0] ? c->type : "cpu");
		return;
	}
	if (!c || !c->known) { /* a row of its own, after the known ones */
		k[0] = INT_MAX, k[1] = cpu;
		snprintf(out->label, sizeof(out->label), "CPU%d", cpu);
		return;
	}
	switch (unit) {
	case ROWS_CORE:
		k[0] = c->socket, k[1] = c->die, k[2] = c->core;
		snprintf(out->label, sizeof(out->label), "S%d-D%d-C%d", c->socket, c->die, c->core);
		break;
	case ROWS_DIE:
		k[0] = c->socket, k[1] = c->die;
		snprintf(out->label, sizeof(out->label), "S%d-D%d", c->socket, c->die);
		break;
	case ROWS_SOCKET:
		k[0] = c->socket;
		snprintf(out->label, sizeof(out->label), "S%d", c->socket);
		break;
	case ROWS_CLUSTER:
		k[0] = c->socket, k[1] = c->die, k[2] = c->cluster;
		snprintf(out->label, sizeof(out->label), "S%d-D%d-CLS%d", c->socket, c->die,
			 c->cluster);
		break;
	case ROWS_CACHE:
		k[0] = c->socket, k[1] = c->die, k[2] = c->cache_level, k[3] = c->cache;
		snprintf(out->label, sizeof(out->label), "S%d-D%d-L%d-ID%d", c->socket, c->die,
			 c->cache_level, c->cache);
		break;
	default:
		break;
	}
}

/* Storage for up to @rows groups of @events and @metrics, and @cpus CPU rows. */
struct rows_agg {
	int rows, events, metrics, cpus; /* capacity */
	struct snapshot snap;
	struct row_key *keys, *sorted;
	int *first_cpu, *row_ncpus, *group_of, *order;
	bool *offline, *skip;
	struct count *counts;
	double *age, *values, *running, *run_sum;
	int *nrows, *ncounted;
	bool *scaled, *invalid;
	enum metric_class *classes;
	struct metric_detail *detail;
	struct count total_counts[SESSION_MAX_EVENTS + 1];
	double total_values[SESSION_MAX_METRICS + 1], total_running[SESSION_MAX_METRICS + 1];
	enum metric_class total_classes[SESSION_MAX_METRICS + 1];
};

void rows_agg_free(struct rows_agg *a)
{
	if (!a)
		return;
	free(a->keys);
	free(a->sorted);
	free(a->first_cpu);
	free(a->row_ncpus);
	free(a->group_of);
	free(a->order);
	free(a->offline);
	free(a->skip);
	free(a->counts);
	free(a->age);
	free(a->values);
	free(a->running);
	free(a->run_sum);
	free(a->nrows);
	free(a->ncounted);
	free(a->scaled);
	free(a->invalid);
	free(a->classes);
	free(a->detail);
	free(a);
}

static struct rows_agg *agg_for(struct rows_agg *a, int rows, int events, int metrics)
{
	if (a && rows <= a->rows && events <= a->events && metrics <= a->metrics)
		return a;
	rows_agg_free(a);
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	size_t r = (size_t)rows + 1, e = (size_t)events + 1, m = (size_t)metrics + 1;
	a->rows = rows, a->events = events, a->metrics = metrics;
	a->keys = calloc(r, sizeof(*a->keys));
	a->sorted = calloc(r, sizeof(*a->sorted));
	a->first_cpu = calloc(r, sizeof(int));
	a->row_ncpus = calloc(r, sizeof(int));
	a->group_of = calloc(r, sizeof(int));
	a->order = calloc(r, sizeof(int));
	a->offline = calloc(r, sizeof(bool));
	a->skip = calloc(r, sizeof(bool));
	a->counts = calloc(r * e, sizeof(struct count));
	a->age = calloc(r * e, sizeof(double));
	a->run_sum = calloc(r * e, sizeof(double));
	a->nrows = calloc(r * e, sizeof(int));
	a->ncounted = calloc(r * e, sizeof(int));
	a->scaled = calloc(r * e, sizeof(bool));
	a->invalid = calloc(r * e, sizeof(bool));
	a->values = calloc(r * m, sizeof(double));
	a->running = calloc(r * m, sizeof(double));
	a->classes = calloc(r * m, sizeof(enum metric_class));
	a->detail = calloc((r + 1) * m, sizeof(struct metric_detail));
	if (!a->keys || !a->sorted || !a->first_cpu || !a->row_ncpus || !a->group_of || !a->order ||
	    !a->offline || !a->skip || !a->counts || !a->age || !a->run_sum || !a->nrows ||
	    !a->ncounted || !a->scaled || !a->invalid || !a->values || !a->running || !a->classes ||
	    !a->detail) {
		rows_agg_free(a);
		return NULL;
	}
	return a;
}

static int cmp_keys(const struct row_key *a, const struct row_key *b)
{
	for (int i = 0; i < 4; i++)
		if (a->tuple[i] != b->tuple[i])
			return a->tuple[i] < b->tuple[i] ? -1 : 1;
	return strcmp(a->label, b->label);
}

static int cmp_order(const void *a, const void *b, void *keys)
{
	const struct row_key *k = keys;
	int ia = *(const int *)a, ib = *(const int *)b;
	int c = cmp_keys(&k[ia], &k[ib]);
	return c ? c : ia - ib;
}

/* Groups the CPU rows of @s by key, in key order (a core by socket, die, core id; a core type
 * where it first appears): a->keys[group], a->group_of[row]. Returns the number of groups. */
static int group_rows(struct rows_agg *a, const struct snapshot *s, enum row_unit unit,
		      const struct topology *t)
{
	struct row_key *rk = a->sorted; /* per row */
	int ntypes = 0;
	for (int r = 0; r < s->nrows; r++) {
		rows_key_of(t, unit, s->cpus[r], &rk[r]);
		if (unit == ROWS_TYPE) { /* the rank of its type's first appearance (a few types) */
			int k = 0;
			while (k < r && strcmp(rk[k].label, rk[r].label) != 0)
				k++;
			rk[r].tuple[0] = k < r ? rk[k].tuple[0] : ntypes++;
		}
		a->order[r] = r;
	}
	qsort_r(a->order, (size_t)s->nrows, sizeof(int), cmp_order, rk);
	int ng = 0;
	for (int i = 0; i < s->nrows; i++) {
		int r = a->order[i];
		if (ng == 0 || cmp_keys(&a->keys[ng - 1], &rk[r]) != 0) {
			a->keys[ng] = rk[r];
			a->keys[ng].id = unit == ROWS_CPU ? s->cpus[r] : ng;
			a->keys[ng].ncpus = 0;
			ng++;
		}
		struct row_key *g = &a->keys[ng - 1];
		if (s->cpus[r] < g->first_cpu)
			g->first_cpu = s->cpus[r];
		g->ncpus++;
		a->group_of[r] = ng - 1;
	}
	return ng;
}

/* Groups the rows by given keys: a->keys[k] = @keys[k], a->group_of[r] = @row_key[r]. */
static int group_by_keys(struct rows_agg *a, const struct snapshot *s, const struct row_key *keys,
			 int nkeys, const int *row_key)
{
	for (int k = 0; k < nkeys; k++) {
		a->keys[k] = keys[k];
		a->keys[k].ncpus = 0;
		a->keys[k].first_cpu = INT_MAX;
	}
	for (int r = 0; r < s->nrows; r++) {
		struct row_key *g = &a->keys[row_key[r]];
		if (s->cpus[r] < g->first_cpu)
			g->first_cpu = s->cpus[r];
		g->ncpus++;
		a->group_of[r] = row_key[r];
	}
	for (int k = 0; k < nkeys; k++)
		if (a->keys[k].first_cpu == INT_MAX)
			a->keys[k].first_cpu = 0;
	return nkeys;
}

static const struct snapshot *aggregate(struct rows_agg **agg, const struct snapshot *s,
					enum row_unit unit, const struct topology *t,
					const struct row_key *given, int nkeys, const int *row_key,
					const struct row_key **keys)
{
	*keys = NULL;
	if ((unit == ROWS_CPU && !given) || s->row_cpus || !s->program || s->nrows <= 0)
		return NULL;
	int n = s->nevents, nm = s->nmetrics;
	struct rows_agg *a = agg_for(*agg, s->nrows > nkeys ? s->nrows : nkeys, n, nm);
	*agg = a;
	if (!a)
		return NULL;
	int ng = given ? group_by_keys(a, s, given, nkeys, row_key) : group_rows(a, s, unit, t);
	/* the rows the all row is made of (snapshot_compute): online, something counted */
	for (int r = 0; r < s->nrows; r++) {
		a->skip[r] = true;
		for (int e = 0; e < n && a->skip[r] && !s->offline[r]; e++) {
			enum count_state st = s->counts[r * n + e].state;
			a->skip[r] = st != COUNT_OK && st != COUNT_SCALED;
		}
	}
	size_t cells = (size_t)ng * (size_t)n;
	memset(a->counts, 0, cells * sizeof(*a->counts));
	memset(a->run_sum, 0, cells * sizeof(double));
	memset(a->nrows, 0, cells * sizeof(int));
	memset(a->ncounted, 0, cells * sizeof(int));
	memset(a->scaled, 0, cells * sizeof(bool));
	memset(a->invalid, 0, cells * sizeof(bool));
	for (size_t i = 0; i < cells; i++)
		a->age[i] = -1;
	for (int g = 0; g < ng; g++) {
		a->offline[g] = true;
		a->row_ncpus[g] = 0;
		a->first_cpu[g] = a->keys[g].first_cpu;
	}
	/* count_total's rule per group: values add, running is the mean over the group's rows
	 * that exist, a scaled or missing member makes the sum scaled */
	for (int r = 0; r < s->nrows; r++) {
		int g = a->group_of[r];
		a->offline[g] &= s->offline[r];
		a->row_ncpus[g] += !a->skip[r];
		if (a->skip[r])
			continue;
		for (int e = 0; e < n; e++) {
			const struct count *c = &s->counts[r * n + e];
			size_t i = (size_t)g * (size_t)n + (size_t)e;
			if (c->state == COUNT_OFFLINE || c->state == COUNT_NOT_SUPPORTED)
				continue;
			a->nrows[i]++;
			a->invalid[i] |= c->state == COUNT_INVALID;
			if (c->state == COUNT_OK || c->state == COUNT_SCALED) {
				a->counts[i].value += c->value;
				a->run_sum[i] += c->running;
				a->ncounted[i]++;
				a->scaled[i] |= c->state == COUNT_SCALED;
				double age = s->event_age ? s->event_age[r * n + e] : 0;
				if (a->age[i] < 0 || age < a->age[i])
					a->age[i] = age; /* the freshest member */
			}
		}
	}
	for (size_t i = 0; i < cells; i++) {
		struct count *c = &a->counts[i];
		int g = (int)(i / (size_t)(n > 0 ? n : 1));
		if (a->invalid[i])
			*c = (struct count){.state = COUNT_INVALID};
		else if (a->ncounted[i])
			c->state =
			    a->scaled[i] || a->ncounted[i] < a->nrows[i] ? COUNT_SCALED : COUNT_OK;
		else
			c->state = a->nrows[i]	   ? COUNT_NOT_COUNTED
				   : a->offline[g] ? COUNT_OFFLINE
						   : COUNT_NOT_SUPPORTED;
		c->running = a->ncounted[i] ? a->run_sum[i] / a->nrows[i] : 0;
		if (a->age[i] < 0)
			a->age[i] = 0;
	}
	for (int g = 0; g < ng; g++) {
		a->keys[g].ncpus = given && given[g].ncpus > 0 ? given[g].ncpus /* as imported */
				   : a->row_ncpus[g]	       ? a->row_ncpus[g]
							       : a->keys[g].ncpus;
		/* a process is one unit however many threads it has: per-task rates, not per
		 * thread averages */
		a->row_ncpus[g] = unit == ROWS_TASK ? 1 : a->keys[g].ncpus;
	}
	struct snapshot *d = &a->snap;
	*d = *s;
	d->nrows = ng;
	d->cpus = a->first_cpu;
	d->row_ncpus = a->row_ncpus;
	d->offline = a->offline;
	d->counts = a->counts;
	d->event_age = a->age;
	d->values = a->values;
	d->running = a->running;
	d->classes = a->classes;
	d->detail = a->detail;
	d->total_counts = a->total_counts;
	d->total_values = a->total_values;
	d->total_running = a->total_running;
	d->total_classes = a->total_classes;
	snapshot_compute(d);
	/* tasks and cgroups: the all row is computed over them (a task counts once, not once
	 * per thread) */
	if (given) {
		*keys = a->keys;
		return d;
	}
	/* the all row is the per-CPU snapshot's, exactly */
	memcpy(a->total_counts, s->total_counts, (size_t)n * sizeof(struct count));
	memcpy(a->total_values, s->total_values, (size_t)nm * sizeof(double));
	memcpy(a->total_running, s->total_running, (size_t)nm * sizeof(double));
	memcpy(a->total_classes, s->total_classes, (size_t)nm * sizeof(enum metric_class));
	memcpy(&a->detail[(size_t)ng * (size_t)nm], &s->detail[(size_t)s->nrows * (size_t)nm],
	       (size_t)nm * sizeof(struct metric_detail));
	memcpy(d->split, s->split, sizeof(d->split));
	*keys = a->keys;
	return d;
}

const int *rows_group_of(const struct rows_agg *agg) { return agg ? agg->group_of : NULL; }

const struct snapshot *rows_aggregate(struct rows_agg **agg, const struct snapshot *s,
				      enum row_unit unit, const struct topology *t,
				      const struct row_key **keys)
{
	return aggregate(agg, s, unit, t, NULL, 0, NULL, keys);
}

const struct snapshot *rows_aggregate_keys(struct rows_agg **agg, const struct snapshot *s,
					   const struct row_key *keys, int nkeys,
					   const int *row_key, const struct row_key **out)
{
	return aggregate(agg, s, keys && nkeys ? keys[0].kind : ROWS_TASK, NULL, keys, nkeys,
			 row_key, out);
}
