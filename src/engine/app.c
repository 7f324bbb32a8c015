/* SPDX-License-Identifier: GPL-2.0-or-later */
/* app.c: the engine: sets up a run (source, modes, CPUs, session), owns mode, cadence and CPU set.
 */
#include "app.h"
#include "duration.h"
#include "encode.h"
#include "evlist.h"
#include "expr.h"
#include "family.h"
#include "likwid.h"
#include "mode.h"
#include "offcore.h"
#include "paths.h"
#include "perfring.h"
#include "playback.h"
#include "pmuevents.h"
#include "replay.h"
#include "textutil.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void app_log(struct app_ctx *app, enum message_level level, const char *fmt, ...)
{
	if (!app->messages && !(app->messages = calloc(APP_MAX_MESSAGES, sizeof(*app->messages))))
		return;
	struct app_message *m = &app->messages[app->message_head];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->text, sizeof(m->text), fmt, ap);
	va_end(ap);
	m->level = level;
	m->time_s = app->start_ns ? (double)(loop_now_ns() - app->start_ns) / 1e9 : 0;
	app->message_head = (app->message_head + 1) % APP_MAX_MESSAGES;
	if (app->nmessages < APP_MAX_MESSAGES)
		app->nmessages++;
	if (level != MSG_INFO)
		app->warnings++;
	snprintf(app->status, sizeof(app->status), "%s", m->text);
}

struct observer *app_observe(struct app_ctx *app, const struct observer *o)
{
	if (app->nobservers >= APP_MAX_OBSERVERS || app_observer_state(app, o->name))
		return NULL;
	struct observer *copy = NULL;
	for (int i = 0; i < APP_MAX_OBSERVERS && !copy; i++)
		if (!app->observer_slots[i].name)
			copy = &app->observer_slots[i];
	if (!copy || !o->name)
		return NULL;
	*copy = *o;
	app->observers[app->nobservers++] = copy;
	return copy;
}

void app_unobserve(struct app_ctx *app, const char *name)
{
	for (int i = 0; i < app->nobservers; i++)
		if (strcmp(app->observers[i]->name, name) == 0) {
			*app->observers[i] = (struct observer){0}; /* its slot is free */
			memmove(&app->observers[i], &app->observers[i + 1],
				(size_t)(app->nobservers - i - 1) * sizeof(app->observers[0]));
			app->nobservers--;
			return;
		}
}

void *app_observer_state(const struct app_ctx *app, const char *name)
{
	for (int i = 0; i < app->nobservers; i++)
		if (text_eq(app->observers[i]->name, name))
			return app->observers[i]->state;
	return NULL;
}

void app_quit(struct app_ctx *app) { app->quit = true; }

void app_facts(const struct app_ctx *app, struct run_facts *f)
{
	*f = (struct run_facts){.opt = &app->opt,
				.session = app->session,
				.mode = &app->mode,
				.mode_name = app->mode_name,
				.machine = &app->machine,
				.family_key = app->family ? app->family->key : "",
				.source_name = app->source.ops ? app->source.ops->name : "",
				.caps = app->source.ops ? app->source.ops->caps : 0,
				.interval_ms = app->interval_ms,
				.ncpus = app->ncpus,
				.cpus = app->cpus,
				.rows_unit = app->rows.unit,
				.row_key =
				    app->target.kind != TARGET_CPUS ? app->target.row_key : NULL,
				.keys = app->target.keys,
				.loop = app->loop_ready ? (struct loop *)&app->loop : NULL};
}

void app_set_paused(struct app_ctx *app, bool paused) { app->display_paused = paused; }

/* The machine's capability line: the platform summary, and the running mode's optional inputs
 * that do not open here (said once, there, not as a warning on every start). */
static void machine_capability(struct app_ctx *app)
{
	if (app->source.ops->describe)
		return; /* a recording's or a remote board's own line */
	char *cap = app->machine.capability;
	size_t len = sizeof(app->machine.capability);
	if (source_has(&app->source, SOURCE_CAP_THIS_MACHINE))
		snprintf(cap, len, "%s", app->pf.capability);
	else /* the sim runs here but counts nothing of this machine's */
		snprintf(cap, len, "simulated counters (%s): no number is from hardware",
			 app->family ? app->family->desc : "generic PMU");
	size_t n = strlen(cap);
	if (app->optional_missing[0] && n + 1 < len)
		snprintf(cap + n, len - n, "%soptional %s not here", n ? "; " : "",
			 app->optional_missing);
	/* which way --sample counts (perfring.h) */
	const struct backend *b = app->session ? session_backend(app->session) : NULL;
	n = strlen(cap);
	if (b && b->ops && b->ops->queued && app_tick_ms(app) < app->interval_ms && n + 1 < len)
		snprintf(cap + n, len - n,
			 b->ring
			     ? "%ssampling path ring (a cpu-clock leader per CPU, no cross-CPU "
			       "read)"
			     : "%ssampling path read (a read() of every CPU's group per sample)",
			 n ? "; " : "");
}

void app_want_self(struct app_ctx *app, bool wanted) { app->frame_wants_self = wanted; }

static void notify_mode(struct app_ctx *app)
{
	app->mode_changes++;
	for (int i = 0; i < app->nobservers; i++)
		if (app->observers[i]->on_mode)
			app->observers[i]->on_mode(app->observers[i], app);
}

static void note_counter_wrap(struct app_ctx *app);

/* --- modes -> what the session runs ------------------------------------------------------ */

/* --- offcore breakdown ------------------------------------------------------------------- */

/* A bit's share (%) of the requests measured on the row: bit / sum of the non-superset bits
 * that were measured (a formula, so the session compiles and owns it like any other). */
static void offcore_share_formula(const struct session_offcore *map, int bit, char *out, size_t len)
{
	int used = snprintf(out, len, "100 * %s / (", map->names[bit]);
	int k = 0;
	for (int b = 0; b < map->nbits && used > 0 && (size_t)used < len; b++)
		if (!map->superset[b])
			used += snprintf(out + used, len - (size_t)used, "%s(%s ?? 0)",
					 k++ ? " + " : "", map->names[b]);
	if (used > 0 && (size_t)used < len)
		snprintf(out + used, len - (size_t)used, ")");
}

/* Adds one event per selected request bit, rotated over the offcore MSRs, and a share metric. */
static int add_offcore_events(struct app_ctx *app, struct session_mode *out, char *err,
			      size_t errlen)
{
	const struct offcore_model *om = offcore_model_for(app->family);
	if (!om) {
		snprintf(err, errlen, "%s has no OFFCORE_RESPONSE facility", app->family->desc);
		return -1;
	}
	struct offcore_selection sel;
	offcore_selection_all(om, &sel);
	const struct offcore_choice *ch = &app->offcore_choice;
	if (ch->set) {
		sel.nbits = ch->nbits;
		memcpy(sel.bits, ch->bits, sizeof(int) * (size_t)sel.nbits);
	}
	if (ch->response[0]) {
		sel.response = offcore_response_find(om, ch->response);
		if (!sel.response) {
			snprintf(err, errlen, "unknown offcore response \"%s\"", ch->response);
			return -1;
		}
	}
	struct offcore_plan plan;
	if (offcore_plan_make(om, &sel, 0, &plan) < 1) {
		snprintf(err, errlen, "no offcore request bits selected");
		return -1;
	}
	for (int e = 0; e < out->nevents; e++)
		out->events[e].set = -1; /* cycles and instructions count all the time */
	struct session_offcore *map = &out->offcore;
	map->nbits = 0;
	for (int k = 0; k < plan.nslices; k++)
		for (int j = 0; j < plan.slice_n[k]; j++) {
			const struct offcore_bit *bit = offcore_bit_at(om, plan.slice_bits[k][j]);
			if (!bit || out->nevents >= SESSION_MAX_EVENTS || map->nbits >= 16)
				continue;
			struct backend_event *be = &out->events[out->nevents];
			memset(be, 0, sizeof(*be));
			if (offcore_spec(om, bit->bit, sel.response, j, be->spec, sizeof(be->spec),
					 err, errlen) < 0)
				return -1;
			snprintf(be->name, sizeof(be->name), "%s", bit->name);
			be->set = plan.nslices > 1 ? k : -1;
			int b = map->nbits++;
			snprintf(map->names[b], sizeof(map->names[b]), "%s", bit->name);
			map->superset[b] = bit->superset;
			out->nevents++;
		}
	out->nsets = plan.nslices > 1 ? plan.nslices : 0;
	for (int b = 0; b < map->nbits && out->nmetrics < SESSION_MAX_METRICS; b++) {
		if (map->superset[b])
			continue;
		struct session_metric *sm = &out->metrics[out->nmetrics++];
		memset(sm, 0, sizeof(*sm));
		snprintf(sm->name, sizeof(sm->name), "%s", map->names[b]);
		snprintf(sm->unit, sizeof(sm->unit), "%%");
		snprintf(sm->desc, sizeof(sm->desc),
			 "share of offcore requests (request-type bit %s)", map->names[b]);
		offcore_share_formula(map, b, sm->formula, sizeof(sm->formula));
		sm->good = sm->warn = sm->bad = NAN;
		sm->inputs[sm->ninputs++] = out->nevents - map->nbits + b;
	}
	return 0;
}

int app_set_offcore(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	const struct offcore_model *om = offcore_model_for(app->family);
	if (!om) {
		snprintf(err, errlen,
			 "the offcore breakdown needs an Intel core with OFFCORE_RESPONSE; "
			 "%s has none",
			 app->family->desc);
		return -1;
	}
	struct offcore_selection sel;
	offcore_selection_all(om, &sel);
	if (offcore_parse_selection(om, argc, argv, &sel, err, errlen) < 0)
		return -1;
	/* keep the old choice until the new mode opened */
	struct offcore_choice saved = app->offcore_choice, *ch = &app->offcore_choice;
	ch->set = true;
	ch->nbits = sel.nbits;
	memcpy(ch->bits, sel.bits, sizeof(int) * (size_t)sel.nbits);
	snprintf(ch->response, sizeof(ch->response), "%s", sel.response ? sel.response->name : "");
	if (app_set_mode(app, "offcore", err, errlen) < 0) {
		*ch = saved;
		return -1;
	}
	return 0;
}

int app_mode_rows(const struct app_ctx *app, const struct mode *m, int *cpus, char *err,
		  size_t errlen)
{
	const struct platform_pmu *pmu = NULL;
	for (int i = 0; m && m->pmu && i < app->pf.npmus && !pmu; i++)
		if (strcmp(app->pf.pmus[i].name, m->pmu) == 0)
			pmu = &app->pf.pmus[i];
	if (m && m->pmu && !pmu) {
		snprintf(err, errlen,
			 "its events are for the %s core PMU, which this machine lacks", m->pmu);
		return -1;
	}
	if (app->target.kind != TARGET_CPUS) { /* tasks or cgroups keep their rows */
		memcpy(cpus, app->cpus, (size_t)app->ncpus * sizeof(int));
		return app->ncpus;
	}
	int n = 0;
	for (int c = cpuset_next(&app->cpus_chosen, 0); c >= 0 && n < APP_MAX_ROWS;
	     c = cpuset_next(&app->cpus_chosen, c + 1))
		if (!pmu || cpuset_has(&pmu->cpus, c))
			cpus[n++] = c;
	if (n == 0 && pmu) {
		char on[96], asked[96];
		snprintf(err, errlen,
			 "its events count on the %s CPUs (%s) only, and none of them is monitored "
			 "(CPUs %s)",
			 m->pmu, cpuset_format(&pmu->cpus, on, sizeof(on)),
			 cpuset_format(&app->cpus_chosen, asked, sizeof(asked)));
		return -1;
	}
	return n;
}

/* What core PMU @p says it can count, for mode_availability_on. */
static struct mode_event_support pmu_support(const struct platform_pmu *p)
{
	return (struct mode_event_support){.pmu = p->name,
					   .listed = p->has_events_dir ? p->listed : NULL,
					   .nlisted = p->nlisted,
					   .counters = p->num_counters};
}

bool app_event_support(const struct app_ctx *app, struct mode_event_support *sup)
{
	if (!source_has(&app->source, SOURCE_CAP_THIS_MACHINE))
		return false;
	for (int i = 0; i < app->pf.npmus; i++) {
		const struct platform_pmu *p = &app->pf.pmus[i];
		bool used = false;
		for (int r = 0; r < app->ncpus && !used; r++)
			used = cpuset_has(&p->cpus, app->cpus[r]);
		if (p->is_core && p->family && used) {
			*sup = pmu_support(p);
			return true;
		}
	}
	return false;
}

/* Without a core PMU here, a library's mode is available only when each of its events is a
 * software event that encodes here (a perf: group's cpu/topdown-... has no PMU to open on).
 * Returns 0, or -1 with the reason. */
static int encodes_here(const struct app_ctx *app, const struct mode *m, struct mode_avail *a)
{
	struct mode_resolution r;
	if (mode_resolve(m, app->family, &r) < 0 || !r.events)
		return 0;
	struct encode_ctx ctx = app_encode_ctx(app);
	for (int i = 0; i < r.events->nevents; i++) {
		const struct mode_event *ev = &r.events->events[i];
		struct event_encoding enc;
		char err[200];
		if (ev->optional)
			continue;
		if (event_encode(ev->spec, &ctx, &enc, err, sizeof(err)) == 0) {
			if (!enc.hardware)
				continue;
			snprintf(err, sizeof(err),
				 "a hardware event, and there is no hardware PMU");
		}
		a->available = false;
		snprintf(a->reason, sizeof(a->reason), "%s (%s) cannot open here: %s", ev->alias,
			 ev->spec, err);
		return -1;
	}
	return 0;
}

int app_mode_availability(const struct app_ctx *app, const struct mode *m, struct mode_avail *a)
{
	int rc = mode_availability(m, app->family, a);
	if (rc == 0 && m->pmu) {
		int cpus[APP_MAX_ROWS];
		if (app_mode_rows(app, m, cpus, a->reason, sizeof(a->reason)) < 0) {
			a->available = false;
			return -1;
		}
	}
	/* a library's metric group (perf:, likwid:) is listed by the dozen: only those that open */
	if (rc == 0 && source_has(&app->source, SOURCE_CAP_THIS_MACHINE) &&
	    app->pf.core_pmu_count == 0 &&
	    (strncmp(m->name, "perf:", 5) == 0 || strncmp(m->name, "likwid:", 7) == 0))
		return encodes_here(app, m, a);
	if (rc < 0 || !source_has(&app->source, SOURCE_CAP_THIS_MACHINE) ||
	    app->pf.core_pmu_count == 0)
		return rc;
	const char *matched = a->matched;
	const struct mode_events *section = NULL;
	int counters = a->counters;
	for (int i = 0; i < app->pf.npmus; i++) {
		const struct platform_pmu *p = &app->pf.pmus[i];
		bool used = false;
		for (int c = cpuset_next(&app->cpus_chosen, 0); c >= 0 && !used;
		     c = cpuset_next(&app->cpus_chosen, c + 1))
			used = cpuset_has(&p->cpus, c);
		if (m->pmu) /* a mode of one core type: that PMU's CPUs alone count it */
			used = strcmp(p->name, m->pmu) == 0;
		if (!p->is_core || !p->family || !used)
			continue;
		struct mode_event_support sup = pmu_support(p);
		struct mode_avail pa;
		if (mode_availability_on(m, p->family, &sup, &pa) < 0) {
			*a = pa;
			if (app->pf.hybrid && !strstr(pa.reason, p->name))
				snprintf(a->reason, sizeof(a->reason), "%s: %.250s", p->name,
					 pa.reason);
			return -1;
		}
		if (!pa.matched || !matched || strcmp(pa.matched, matched) != 0) {
			a->available = false;
			snprintf(
			    a->reason, sizeof(a->reason),
			    "core types need different events ([events %s] for %s, [events %s] "
			    "for %s); a mode runs one event list on every CPU",
			    matched ? matched : "?", app->family->key,
			    pa.matched ? pa.matched : "?", p->name);
			return -1;
		}
		if (!section) { /* the section this PMU's events pick ([else events]) */
			section = pa.events;
			a->note = pa.note;
			a->events = pa.events;
			a->needed = pa.needed, a->fixed = pa.fixed, a->other = pa.other;
		} else if (pa.events != section) {
			a->available = false;
			snprintf(a->reason, sizeof(a->reason),
				 "core types need different events (%s: %s); a mode runs one event "
				 "list on every CPU",
				 p->name, pa.note ? pa.note : "another [events] section");
			return -1;
		}
		if (pa.counters > 0 && (counters <= 0 || pa.counters < counters))
			counters = pa.counters;
	}
	a->counters = counters;
	a->multiplex = a->counters > 0 && a->needed > a->counters;
	return 0;
}

/* Resolves @m for the app's family into @out. */
static int resolve_mode(struct app_ctx *app, const struct mode *m, struct session_mode *out,
			char *err, size_t errlen)
{
	struct mode_avail avail;
	if (app_mode_availability(app, m, &avail) < 0) {
		snprintf(err, errlen, "mode %s is not available on %s: %s", m->name,
			 app->family->desc, avail.reason);
		return -1;
	}
	struct mode_resolution res;
	struct mode_event_support sup;
	bool on_pmu = app_event_support(app, &sup);
	if (mode_resolve_on(m, app->family, on_pmu ? &sup : NULL, &res) < 0) {
		snprintf(err, errlen, "mode %s: %s", m->name, res.reason);
		return -1;
	}
	if (avail.events)
		res.events = avail.events;
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", m->name);
	if (avail.note)
		snprintf(out->title, sizeof(out->title), "%s [%s]", m->title ? m->title : "",
			 avail.note);
	else
		snprintf(out->title, sizeof(out->title), "%s", m->title ? m->title : "");
	const struct mode_events *ev = res.events;
	if (ev->nevents > SESSION_MAX_EVENTS) {
		snprintf(err, errlen, "mode %s has %d events (at most %d)", m->name, ev->nevents,
			 SESSION_MAX_EVENTS);
		return -1;
	}
	out->nevents = ev->nevents;
	for (int e = 0; e < ev->nevents; e++) {
		snprintf(out->events[e].name, sizeof(out->events[e].name), "%s",
			 ev->events[e].alias);
		snprintf(out->events[e].spec, sizeof(out->events[e].spec), "%s",
			 ev->events[e].spec);
		out->optional[e] = ev->events[e].optional;
	}
	if (m->nmetrics > SESSION_MAX_METRICS) {
		snprintf(err, errlen, "mode %s has %d metrics (at most %d)", m->name, m->nmetrics,
			 SESSION_MAX_METRICS);
		return -1;
	}
	out->nmetrics = m->nmetrics;
	for (int i = 0; i < m->nmetrics; i++) {
		struct session_metric *sm = &out->metrics[i];
		const struct mode_metric *mm = &m->metrics[i];
		snprintf(sm->name, sizeof(sm->name), "%s", mm->name);
		snprintf(sm->unit, sizeof(sm->unit), "%s", mm->unit ? mm->unit : "");
		snprintf(sm->desc, sizeof(sm->desc), "%s", mm->desc ? mm->desc : "");
		snprintf(sm->formula, sizeof(sm->formula), "%s", expr_text(mm->expr));
		snprintf(sm->threshold, sizeof(sm->threshold), "%s",
			 mm->threshold ? mm->threshold : "");
		sm->good = mm->good;
		sm->warn = mm->warn;
		sm->bad = mm->bad;
		sm->better = mm->better;
		const char *const *vars;
		int nv = expr_vars(mm->expr, &vars);
		for (int k = 0;
		     k < nv && sm->ninputs < (int)(sizeof(sm->inputs) / sizeof(sm->inputs[0])); k++)
			for (int e = 0; e < out->nevents; e++)
				if (strcmp(out->events[e].name, vars[k]) == 0)
					sm->inputs[sm->ninputs++] = e;
	}
	for (int i = 0; i < m->nstack && i < SESSION_MAX_STACK; i++)
		snprintf(out->stack[i], sizeof(out->stack[i]), "%s", m->stack[i]);
	out->nstack = m->nstack < SESSION_MAX_STACK ? m->nstack : SESSION_MAX_STACK;
	snprintf(out->drill, sizeof(out->drill), "%s", m->drill ? m->drill : "");
	/* More events than counters: rotate event sets per tick on small PMUs (XScale, ARM:
	 * the seed's "multiple runs"), let the kernel multiplex elsewhere. */
	if (avail.multiplex && avail.counters > 0) {
		static struct mode_plan plan;
		if (mode_plan_sets_on(m, app->family, on_pmu ? &sup : NULL, avail.counters, &plan,
				      err, errlen) > 1) {
			out->nsets = plan.nsets;
			for (int i = 0; i < m->nmetrics; i++)
				out->metrics[i].split = plan.split[i];
			/* an event rotates with the sets that hold it (the first in .set, the
			 * others in .also_in); one in every set (fixed counters, software events)
			 * is counted all the time (-1) */
			for (int e = 0; e < out->nevents; e++) {
				int in = 0, first = -1;
				uint32_t also = 0;
				for (int k = 0; k < plan.nsets; k++)
					for (int j = 0; j < plan.set[k].n; j++)
						if (plan.set[k].ev[j] == e) {
							in++;
							if (first >= 0)
								also |= 1u << k;
							first = first < 0 ? k : first;
						}
				out->events[e].set = in == plan.nsets ? -1 : first;
				out->events[e].also_in = in == plan.nsets ? 0 : also;
			}
		} else {
			out->singletons = true;
		}
	}
	if (m->kind == MODE_KIND_OFFCORE)
		return add_offcore_events(app, out, err, errlen);
	return 0;
}

int app_resolve_mode(struct app_ctx *app, const char *name, struct session_mode *out, char *err,
		     size_t errlen)
{
	const struct mode *m = mode_find(app->modes, name);
	if (!m) {
		snprintf(err, errlen, "unknown mode \"%s\"", name);
		return -1;
	}
	return resolve_mode(app, m, out, err, errlen);
}

_Static_assert(SESSION_MAX_STACK == MODE_MAX_STACK && SESSION_MODE_NAME >= MODE_NAME_MAX + 1,
	       "a mode's stacked bar and drill-down mode fit the session's mode");
_Static_assert(SESSION_MAX_METRICS == MODE_RUN_MAX_METRICS && SESSION_MODE_NAME == MODE_RUN_NAME,
	       "the modes' limits are the session's (mode.h, session.h)");
_Static_assert(PLATFORM_NOTE_MAX <= sizeof(((struct app_message *)0)->text),
	       "a permission hint fits in one message");

/* Adds "NAME" or "NAME (on K of N CPUs)" to the comma-separated @list when it fits; returns 1
 * when it was added. */
static int list_dropped(char *list, size_t len, const char *name, int on, int of)
{
	char item[96];
	if (on == of)
		snprintf(item, sizeof(item), "%s", name);
	else
		snprintf(item, sizeof(item), "%s (on %d of %d CPUs)", name, on, of);
	size_t used = strlen(list);
	if (used + strlen(item) + 3 > len)
		return 0;
	snprintf(list + used, len - used, "%s%s", used ? ", " : "", item);
	return 1;
}

static void apply_cadence(struct app_ctx *app);
#define APP_RING_DRAINS 4 /* drains of the sampling rings per refresh */

int app_run_mode(struct app_ctx *app, const struct session_mode *mode, char *err, size_t errlen)
{
	/* a copy off the stack (142 KiB; session_set_mode may adjust it) */
	struct session_mode *sm = calloc(1, sizeof(*sm));
	if (!sm) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	session_mode_copy(sm, mode);
	if (session_set_mode(app->session, sm, err, errlen) < 0) {
		free(sm);
		return -1;
	}
	session_mode_copy(&app->mode, sm);
	apply_cadence(app); /* the sampling ring path drains once per refresh */
	for (int i = 0; i < session_backend(app->session)->nwarnings; i++)
		app_log(app, MSG_WARN, "%s", session_backend(app->session)->warnings[i]);
	snprintf(app->mode_name, sizeof(app->mode_name), "%s", sm->name);
	app->mode_started_tick = app->ticks;
	notify_mode(app);
	const struct backend *b = session_backend(app->session);
	char dropped[160] = "";
	int ndropped = 0, nlisted = 0;
	app->optional_missing[0] = '\0';
	bool table_full = false; /* ENFILE: the system's file table, not this process's limit */
	bool denied = false, tracepoint = false; /* EACCES/EPERM, on a tracepoint event */
	for (int e = 0; e < sm->nevents; e++) {
		int unsupported = 0, limited = 0;
		const char *why = NULL;
		for (int r = 0; r < b->nrows; r++) {
			const struct backend_status *st = &b->status[r * b->nevents + e];
			if (!st->supported) {
				unsupported++;
				limited += st->err == EMFILE || st->err == ENFILE;
				table_full |= st->err == ENFILE;
				if (st->err == EACCES || st->err == EPERM) {
					denied = true;
					tracepoint |= strncmp(st->encoding, "type=2 ", 7) == 0;
				}
				why = st->reason;
			}
		}
		if (unsupported && limited == unsupported) {
			ndropped++;
			nlisted += list_dropped(dropped, sizeof(dropped), sm->events[e].name,
						limited, b->nrows);
		} else if (unsupported && sm->optional[e]) {
			/* an optional event ("alias? = spec") is a choice the mode made: said once,
			 * in the capability line (its metrics fall back or show n/a) */
			size_t n = strlen(app->optional_missing);
			snprintf(app->optional_missing + n, sizeof(app->optional_missing) - n,
				 "%s%s", n ? ", " : "", sm->events[e].spec);
		} else if (unsupported) {
			app_log(app, MSG_WARN, "%s (%s) not supported on %d of %d CPUs: %s",
				sm->events[e].name, sm->events[e].spec, unsupported, b->nrows, why);
		}
	}
	machine_capability(app);
	if (ndropped) {
		long limit;
		char more[32] = "";
		backend_nofile_free(&limit);
		if (ndropped > nlisted)
			snprintf(more, sizeof(more), " and %d more", ndropped - nlisted);
		app_log(
		    app, MSG_WARN,
		    "open-file limit RLIMIT_NOFILE %ld reached%s: dropped %s%s; the other events "
		    "go on (raise the limit: ulimit -n)",
		    limit, table_full ? " or the system file table is full" : "", dropped, more);
	}
	if (denied && source_has(&app->source, SOURCE_CAP_THIS_MACHINE)) {
		char hint[PLATFORM_NOTE_MAX]; /* the whole hint, in one message of its own */
		platform_permission_hint(&app->pf,
					 tracepoint ? PERF_SCOPE_TRACEPOINT : PERF_SCOPE_CPU, true,
					 hint, sizeof(hint));
		app_log(app, MSG_WARN, "%s", hint);
	}
	free(sm);
	return 0;
}

static void fill_core_types(struct app_ctx *app);
static unsigned monitored_slots(const struct app_ctx *app);
static struct session *new_session(struct app_ctx *app, char *err, size_t errlen);

/* open_mode with @sm, the resolved mode's storage. */
static int open_mode_in(struct app_ctx *app, const struct mode *m, struct session_mode *sm,
			char *err, size_t errlen)
{
	int cpus[APP_MAX_ROWS], n = app_mode_rows(app, m, cpus, err, errlen);
	if (n < 0) {
		char why[320];
		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "mode %s: %s", m->name, why);
		return -1;
	}
	if (n == app->ncpus && memcmp(cpus, app->cpus, (size_t)n * sizeof(int)) == 0) {
		if (resolve_mode(app, m, sm, err, errlen) < 0)
			return -1;
		return app_run_mode(app, sm, err, errlen);
	}
	/* a mode of one core type, or back from one: the rows change, as with :cpus (the old
	 * session counts until the new one opened) */
	int old_n = app->ncpus, old_cpus[APP_MAX_ROWS];
	memcpy(old_cpus, app->cpus, (size_t)old_n * sizeof(int));
	memcpy(app->cpus, cpus, (size_t)n * sizeof(int));
	app->ncpus = n;
	fill_core_types(app);
	struct session *old = app->session, *s = new_session(app, err, errlen);
	if (s) {
		app->session = s;
		if (resolve_mode(app, m, sm, err, errlen) == 0 &&
		    app_run_mode(app, sm, err, errlen) == 0) {
			session_free(old);
			return 0;
		}
		session_free(s);
	}
	app->session = old;
	app->ncpus = old_n;
	memcpy(app->cpus, old_cpus, (size_t)old_n * sizeof(int));
	fill_core_types(app);
	if (old && source_has(&app->source, SOURCE_CAP_THIS_MACHINE)) {
		app->machine.slots = monitored_slots(app);
	}
	return -1;
}

static int open_mode(struct app_ctx *app, const struct mode *m, char *err, size_t errlen)
{
	struct session_mode *sm = malloc(sizeof(*sm)); /* 142 KiB: off the stack */
	if (!sm) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = open_mode_in(app, m, sm, err, errlen);
	free(sm);
	return rc;
}

/* Recorded sources decide mode, interval and CPU changes themselves (playback.h): a replay
 * only runs what was recorded, a remote source asks its agent. */
static int intercepted(struct app_ctx *app, const char *what, const char *arg, char *err,
		       size_t errlen, int *rc)
{
	if (!source_has(&app->source, SOURCE_CAP_RECORDED) || !app->replay)
		return 0;
	*rc = playback_filter(app, what, arg, err, errlen);
	return *rc <= 0;
}

/* A registered mode, or a perf:NAME the perf-events library makes on demand (a metric); when
 * the library makes none, @err says why. */
static const struct mode *lookup_mode(struct app_ctx *app, const char *name, char *err,
				      size_t errlen)
{
	const struct mode *m = mode_find(app->modes, name);
	if (!m && app->perfev && strncmp(name, "perf:", 5) == 0)
		m = pmuevents_mode(app->perfev, app->modes, name, err, errlen);
	return m;
}

int app_set_mode(struct app_ctx *app, const char *name, char *err, size_t errlen)
{
	int rc;
	if (intercepted(app, "mode", name, err, errlen, &rc))
		return rc;
	const struct mode *m = lookup_mode(app, name, err, errlen);
	if (!m && app->perfev && strncmp(name, "perf:", 5) == 0)
		return -1; /* @err: why the library made no mode of it */
	if (!m) {
		/* a mode file of that name (or path) that failed to load: its parse error */
		for (int i = 0; i < app->modes->nwarnings; i++) {
			const char *w = app->modes->warnings[i], *colon = strchr(w, ':');
			if (!colon)
				continue;
			size_t plen = (size_t)(colon - w), nlen = strlen(name);
			const char *base = memrchr(w, '/', plen);
			base = base ? base + 1 : w;
			size_t blen = (size_t)(colon - base);
			if ((plen == nlen && strncmp(w, name, nlen) == 0) ||
			    (blen == nlen + 5 && strncmp(base, name, nlen) == 0 &&
			     strncmp(base + nlen, ".mode", 5) == 0)) {
				snprintf(err, errlen, "mode \"%s\" did not load: %s", name, w);
				return -1;
			}
		}
		int n = 0;
		char list[512] = "";
		for (int i = 0; i < app->modes->n; i++) {
			size_t u = strlen(list);
			snprintf(list + u, sizeof(list) - u, "%s%s", n++ ? ", " : "",
				 app->modes->modes[i]->name);
		}
		snprintf(err, errlen, "unknown or ambiguous mode \"%s\" (modes: %s)", name, list);
		return -1;
	}
	return open_mode(app, m, err, errlen);
}

struct encode_ctx app_encode_ctx(const struct app_ctx *app)
{
	const struct platform_pmu *core =
	    app->ncpus ? platform_core_pmu_for_cpu(&app->pf, app->cpus[0]) : NULL;
	return (struct encode_ctx){.sysfs_root = app->pf.root[0] ? app->pf.root : "/",
				   .family = app->family,
				   .core_pmu_type = core ? core->type : 0,
				   .filters_priv = app->family->filters_priv};
}

const char *app_core_type(const struct app_ctx *app, int cpu)
{
	const char *t = source_has(&app->source, SOURCE_CAP_THIS_MACHINE)
			    ? platform_core_type(&app->pf, cpu)
			    : "";
	const struct replay *rp =
	    source_has(&app->source, SOURCE_CAP_RECORDED) ? app->replay : NULL;
	for (int k = 0; rp && k < rp->f.header.ncpus; k++)
		if (rp->f.header.cpus[k].cpu == cpu)
			t = rp->f.header.cpus[k].core_type;
	return t ? t : "";
}

/* Checks that @spec encodes for this machine; -1 with the reason and the closest event names
 * ("unknown event ... (did you mean perf::CYCLES)") and the 0-based offset in @spec of what is
 * wrong in *@pos otherwise. */
static int app_check_event_at(const struct app_ctx *app, const char *spec, int *pos, char *err,
			      size_t errlen)
{
	struct encode_ctx ctx = app_encode_ctx(app);
	struct event_encoding enc;
	char why[256];
	*pos = 0;
	if (event_encode(spec, &ctx, &enc, why, sizeof(why)) == 0)
		return 0;
	*pos = enc.errpos > 0 ? enc.errpos : 0;
	char sugg[4][96];
	int n = encode_suggest(spec, &ctx, sugg, 4);
	int used = snprintf(err, errlen, "%s", why);
	for (int k = 0; k < n && used > 0 && (size_t)used < errlen; k++)
		used += snprintf(err + used, errlen - (size_t)used, "%s%s",
				 k ? ", " : " (did you mean ", sugg[k]);
	if (n && used > 0 && (size_t)used < errlen)
		snprintf(err + used, errlen - (size_t)used, ")");
	return -1;
}

void app_event_alias(const char *spec, char *alias, size_t len) { evlist_alias(spec, alias, len); }

/* Switches to an ad hoc event list ("cycles=perf::CYCLES,r03", names optional). Returns 0, -2
 * when an event name is unknown (bad input), or -1 when the events cannot be counted. */
static int app_set_events(struct app_ctx *app, const char *name, const char *list, char *err,
			  size_t errlen)
{
	/* "a=perf::CYCLES,r03,{cycles,instructions}" -> every item gets an alias (from its spec
	 * when unnamed) and is checked, errors pointing at its column */
	static struct evlist_item items[EVLIST_MAX_ITEMS];
	char events[4096], why[256];
	int n = evlist_parse(list, items, EVLIST_MAX_ITEMS, NULL, why, sizeof(why));
	if (n < 0) {
		snprintf(err, errlen, "%s", why);
		return -2;
	}
	for (int i = 0; i < n; i++) {
		if (!items[i].name[0])
			evlist_alias(items[i].spec, items[i].name, sizeof(items[i].name));
		int pos = 0;
		if (app_check_event_at(app, items[i].spec, &pos, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "column %d: %s", items[i].column + pos, why);
			return -2;
		}
	}
	if (evlist_format(items, n, events, sizeof(events)) < 0) {
		snprintf(err, errlen, "event list too long");
		return -2;
	}
	/* every event gets a rate per second of each CPU */
	char metrics[4096] = "";
	for (int i = 0; i < n; i++) {
		size_t u = strlen(metrics);
		snprintf(metrics + u, sizeof(metrics) - u, "%s%.24s_ps[/s]=%.47s/ncpus/interval",
			 u ? ";" : "", items[i].name, items[i].name);
	}
	struct mode *m = mode_define(name, events, metrics, err, errlen);
	if (!m)
		return -1;
	if (open_mode(app, m, err, errlen) < 0) {
		mode_free(m);
		return -1;
	}
	mode_register(app->modes, m);
	return 0;
}

/* --- :add / :remove ------------------------------------------------------------------------ */

void app_add_rate_metric(struct session_mode *m, int e)
{
	if (m->nmetrics >= SESSION_MAX_METRICS)
		return;
	struct session_metric *sm = &m->metrics[m->nmetrics++];
	memset(sm, 0, sizeof(*sm));
	char alias[48];
	snprintf(alias, sizeof(alias), "%s", m->events[e].name);
	snprintf(sm->name, sizeof(sm->name), "%.24s_ps", alias);
	snprintf(sm->unit, sizeof(sm->unit), "/s");
	snprintf(sm->desc, sizeof(sm->desc), "%.40s per second per CPU (added)", alias);
	snprintf(sm->formula, sizeof(sm->formula), "%s / ncpus / interval", alias);
	sm->good = sm->warn = sm->bad = NAN;
	sm->inputs[sm->ninputs++] = e;
}

int app_edit_events(struct app_ctx *app, bool add, int argc, char **argv, char *err, size_t errlen)
{
	struct session_mode m = app->mode;
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];
		if (add) {
			static struct evlist_item items[EVLIST_MAX_ITEMS];
			char why[256];
			int n = evlist_parse(arg, items, EVLIST_MAX_ITEMS, NULL, why, sizeof(why));
			if (n < 0) {
				snprintf(err, errlen, "%s", why);
				return -1;
			}
			for (int k = 0; k < n; k++) {
				struct evlist_item *it = &items[k];
				int pos;
				if (!it->name[0])
					evlist_alias(it->spec, it->name, sizeof(it->name));
				if (app_check_event_at(app, it->spec, &pos, why, sizeof(why)) < 0) {
					snprintf(err, errlen, "column %d: %s", it->column + pos,
						 why);
					return -1;
				}
				for (int e = 0; e < m.nevents; e++)
					if (strcmp(m.events[e].name, it->name) == 0) {
						snprintf(err, errlen, "event %s is already counted",
							 it->name);
						return -1;
					}
				if (m.nevents >= SESSION_MAX_EVENTS) {
					snprintf(err, errlen, "at most %d events",
						 SESSION_MAX_EVENTS);
					return -1;
				}
				m.optional[m.nevents] = false;
				struct backend_event *be = &m.events[m.nevents++];
				memset(be, 0, sizeof(*be));
				snprintf(be->name, sizeof(be->name), "%.47s", it->name);
				snprintf(be->spec, sizeof(be->spec), "%s", it->spec);
				app_add_rate_metric(&m, m.nevents -
							    1); /* so the event shows as a column */
			}
		} else {
			int found = -1;
			for (int e = 0; e < m.nevents; e++)
				if (strcmp(m.events[e].name, arg) == 0 ||
				    strcmp(m.events[e].spec, arg) == 0)
					found = e;
			if (found < 0) {
				snprintf(err, errlen, "event %s is not counted in this mode", arg);
				return -1;
			}
			if (m.nevents == 1) {
				snprintf(err, errlen, "cannot remove the last event");
				return -1;
			}
			memmove(&m.events[found], &m.events[found + 1],
				(size_t)(m.nevents - found - 1) * sizeof(m.events[0]));
			memmove(&m.optional[found], &m.optional[found + 1],
				(size_t)(m.nevents - found - 1) * sizeof(m.optional[0]));
			m.nevents--;
			/* metric inputs point at event indices: re-map, dropping metrics that used
			 * it */
			int keep = 0;
			for (int k = 0; k < m.nmetrics; k++) {
				struct session_metric sm = m.metrics[k];
				bool uses = false;
				for (int j = 0; j < sm.ninputs; j++) {
					if (sm.inputs[j] == found)
						uses = true;
					else if (sm.inputs[j] > found)
						sm.inputs[j]--;
				}
				if (!uses)
					m.metrics[keep++] = sm;
			}
			m.nmetrics = keep;
		}
	}
	m.nsets = 0;
	return app_run_mode(app, &m, err, errlen);
}

/* --- CPUs ----------------------------------------------------------------------------------- */

static int choose_cpus(struct app_ctx *app, const char *list, int *cpus, int *ncpus, char *err,
		       size_t errlen)
{
	struct cpuset avail;
	if (app->source.ops->cpus)
		app->source.ops->cpus(app->source.inst, &avail);
	else
		avail = app->pf.online;
	struct cpuset want = avail;
	if (list && app->replay) /* a CPU that came online later in the recording may be asked */
		for (int i = 0; i < app->replay->f.header.ncpus; i++)
			cpuset_add(&avail, app->replay->f.header.cpus[i].cpu);
	if (list) {
		char why[128];
		if (cpuset_parse(&want, list, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "bad CPU list \"%s\": %s", list, why);
			return -1;
		}
		int c;
		cpuset_for_each(c, &want) if (!cpuset_has(&avail, c))
		{
			char buf[128];
			snprintf(err, errlen, "CPU %d is not %s (available: %s)", c,
				 source_has(&app->source, SOURCE_CAP_SIMULATED)	 ? "simulated"
				 : source_has(&app->source, SOURCE_CAP_RECORDED) ? "recorded"
										 : "online",
				 cpuset_format(&avail, buf, sizeof(buf)));
			return -1;
		}
		if (cpuset_count(&want) == 0) {
			snprintf(err, errlen, "empty CPU list");
			return -1;
		}
	}
	int n = 0, c;
	cpuset_for_each(c, &want) if (n < APP_MAX_ROWS) cpus[n++] = c;
	*ncpus = n;
	return 0;
}

/* The core PMU type per row: this machine's sysfs (a recorded or simulated source has none). */
static void fill_core_types(struct app_ctx *app)
{
	bool here = source_has(&app->source, SOURCE_CAP_THIS_MACHINE);
	for (int r = 0; r < app->ncpus; r++) {
		const struct platform_pmu *pmu =
		    here ? platform_core_pmu_for_cpu(&app->pf, app->cpus[r]) : NULL;
		app->core_type[r] = pmu ? pmu->type : 0;
	}
}

/* caps/slots of the monitored CPUs' core PMUs when they all say the same, else 0. */
static unsigned monitored_slots(const struct app_ctx *app)
{
	unsigned slots = 0;
	for (int r = 0; r < app->ncpus; r++) {
		const struct platform_pmu *pmu = platform_core_pmu_for_cpu(&app->pf, app->cpus[r]);
		unsigned s = pmu ? pmu->slots : 0;
		if (!s || (slots && s != slots))
			return 0;
		slots = s;
	}
	return slots;
}

/* The sub-interval sample period (ns), 0 without --sample. */
static uint64_t sampling_ns(const struct app_ctx *app)
{
	return app->sample_ms > 0 && app->sample_ms < app->interval_ms ? app_tick_ns(app) : 0;
}

/* Drains come every quarter refresh: the rings and queues hold twice half a refresh. */
static uint64_t drain_ns(const struct app_ctx *app)
{
	return (uint64_t)app->interval_ms * 1000000ULL / 2;
}

static struct session *new_session(struct app_ctx *app, char *err, size_t errlen)
{
	/* the CPU set may have changed (:cpus): their caps/slots may agree now, or no longer */
	if (source_has(&app->source, SOURCE_CAP_THIS_MACHINE)) {
		app->machine.slots = monitored_slots(app);
	}
	struct session_config cfg = {
	    .source = &app->source,
	    .sysfs_root = app->pf.root[0] ? app->pf.root : "/",
	    .family = app->family,
	    .ncpus = app->ncpus,
	    .cpus = app->cpus,
	    .core_pmu_type = app->core_type,
	    .row_cpus = app->machine.aggregated_cpus,
	    .slots = app->machine.slots,
	    /* --sample: its period and path for a sampling source (perfring.h) */
	    .sample_ns = sampling_ns(app),
	    .sample_path = app->opt.sample_path,
	    .drain_ns = drain_ns(app),
	};
	if (app->target.kind != TARGET_CPUS) { /* a row per thread, or per (cgroup, CPU) */
		cfg.pids = app->target.row_pid;
		cfg.cgroup_fds = app->target.row_cgroup;
		cfg.inherit = app->target.inherit;
		cfg.row_ncpus = app->target.row_ncpus;
		cfg.pid_on_cpu = app->target.pid_on_cpu;
		cfg.exec_pending = &app->exec_pending;
	}
	return session_new(&cfg, err, errlen);
}

/* Reopens the counters on the CPUs @asked (of them, those of the running mode's core PMU for a
 * mode of one core type); on failure the old set keeps counting. */
static int reopen_cpus(struct app_ctx *app, const int *asked, int nasked, char *err, size_t errlen)
{
	struct cpuset old_chosen = app->cpus_chosen;
	cpuset_clear(&app->cpus_chosen);
	for (int r = 0; r < nasked; r++)
		cpuset_add(&app->cpus_chosen, asked[r]);
	const struct mode *m = mode_find(app->modes, app->mode_name);
	int cpus[APP_MAX_ROWS], n;
	/* a cgroup run: each cgroup on each CPU asked (a task's rows follow it anywhere) */
	/* a replay of a task or cgroup run: the recording's row numbers, named by its header and
	 * cpus records (app_target_from_recording), not cgroups to open */
	bool recorded = app->target.kind != TARGET_CPUS && !app->target.row_cgroup &&
			source_has(&app->source, SOURCE_CAP_RECORDED);
	bool cgroups = app->target.kind == TARGET_CGROUPS && !recorded;
	int old_set[APP_MAX_ROWS], nold = 0, c;
	cpuset_for_each(c, &old_chosen) if (nold < APP_MAX_ROWS) old_set[nold++] = c;
	if (recorded) {
		n = nasked < APP_MAX_ROWS ? nasked : APP_MAX_ROWS;
		memcpy(cpus, asked, (size_t)n * sizeof(int));
	} else if (cgroups) {
		n = target_cgroup_cpus(&app->target, asked, nasked, err, errlen);
		if (n < 0) {
			app->cpus_chosen = old_chosen;
			return -1;
		}
		memcpy(cpus, app->target.row_cpu, (size_t)n * sizeof(int));
	} else if ((n = app_mode_rows(app, m, cpus, err, errlen)) < 0) {
		char why[320];
		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "mode %s: %s", m->name, why);
		app->cpus_chosen = old_chosen;
		return -1;
	}
	int old_n = app->ncpus, old_cpus[APP_MAX_ROWS];
	memcpy(old_cpus, app->cpus, (size_t)old_n * sizeof(int));
	memcpy(app->cpus, cpus, (size_t)n * sizeof(int));
	app->ncpus = n;
	fill_core_types(app);
	if (recorded) { /* the new rows' names: the recording's */
		target_free(&app->target);
		if (app_target_from_recording(app) < 0) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	struct session *s = new_session(app, err, errlen);
	session_continue(s, app->session); /* time and seq go on */
	struct session_mode mode = app->mode;
	if (!s || session_set_mode(s, &mode, err, errlen) < 0) {
		session_free(s);
		if (cgroups) {
			char why[64];
			target_cgroup_cpus(&app->target, old_set, nold, why, sizeof(why));
		}
		app->ncpus = old_n;
		memcpy(app->cpus, old_cpus, (size_t)old_n * sizeof(int));
		fill_core_types(app);
		if (recorded) { /* the old rows' names again */
			target_free(&app->target);
			app_target_from_recording(app);
		}
		app->cpus_chosen = old_chosen;
		return -1;
	}
	session_free(app->session);
	app->session = s;
	app->mode_started_tick = app->ticks;
	app_rows_cpus_changed(app); /* a CPU that came online has its place in the rows */
	notify_mode(app);
	return 0;
}

int app_set_cpus(struct app_ctx *app, const char *list, char *err, size_t errlen)
{
	int cpus[APP_MAX_ROWS], n, rc;
	if (intercepted(app, "cpus", list ? list : "all", err, errlen, &rc))
		return rc;
	if (app->target.kind == TARGET_TASKS) { /* cgroups: each counted on the CPUs asked */
		snprintf(err, errlen,
			 "cpus: this run counts tasks, wherever they run; its rows stay the tasks");
		return -1;
	}
	if (choose_cpus(app, list, cpus, &n, err, errlen) < 0)
		return -1;
	if (reopen_cpus(app, cpus, n, err, errlen) < 0)
		return -1;
	app->cpus_all = list == NULL;
	return 0;
}

/* A CPU a --sysfs-root tree's online list no longer has is offline (its row stays); one back is
 * counted again (@say: with a message). On the machine's own sysfs the kernel says it first:
 * the counters of an offline CPU are detached and reopened when it is back. */
static void hold_gone(struct app_ctx *app, bool say)
{
	if (!app->pf.root[0] || strcmp(app->pf.root, "/") == 0)
		return;
	for (int r = 0; r < app->ncpus; r++) {
		bool gone = !cpuset_has(&app->pf.online, app->cpus[r]);
		if (session_hold_offline(app->session, r, gone) && say)
			app_log(app, MSG_INFO,
				gone ? "CPU %d went offline" : "CPU %d is online again",
				app->cpus[r]);
	}
}

static int online_changed(struct app_ctx *app, char *err, size_t errlen);

int app_follow_online(struct app_ctx *app, char *err, size_t errlen)
{
	if (!app->cpus_all || !source_has(&app->source, SOURCE_CAP_THIS_MACHINE) ||
	    source_has(&app->source, SOURCE_CAP_RECORDED) || app->source.ops->cpus)
		return 0;
	int changed = platform_read_online_fd(&app->pf, &app->online_fd);
	if (changed < 0) {
		snprintf(err, errlen, "cannot read the online CPUs");
		return -1;
	}
	return changed == 0 ? 0 : online_changed(app, err, errlen);
}

/* The online CPUs changed: count every CPU now online. Its own frame (16 KiB of CPU numbers),
 * so the check above, made every tick, does not touch that much stack. */
static __attribute__((noinline)) int online_changed(struct app_ctx *app, char *err, size_t errlen)
{
	machine_capability(app);
	hold_gone(app, true);
	/* the CPUs so far (CPUs that went offline keep their rows) and every CPU now online */
	struct cpuset want = app->cpus_chosen;
	int before = cpuset_count(&want), c;
	cpuset_for_each(c, &app->pf.online) cpuset_add(&want, c);
	if (cpuset_count(&want) == before)
		return 0;
	int cpus[APP_MAX_ROWS], n = 0;
	cpuset_for_each(c, &want) if (n < APP_MAX_ROWS) cpus[n++] = c;
	char added[128];
	struct cpuset fresh = want;
	cpuset_for_each(c, &app->cpus_chosen) cpuset_del(&fresh, c);
	cpuset_format(&fresh, added, sizeof(added));
	if (reopen_cpus(app, cpus, n, err, errlen) < 0)
		return -1;
	hold_gone(app, false); /* the new counters: the CPUs still gone stay offline */
	app_log(app, MSG_INFO, "CPU %s came online: counting it", added);
	return 1;
}

int app_follow_source_cpus(struct app_ctx *app, char *err, size_t errlen)
{
	if (!app->session || !app->source.ops->cpus)
		return 0;
	struct cpuset want, have;
	app->source.ops->cpus(app->source.inst, &want);
	cpuset_clear(&have);
	for (int r = 0; r < app->ncpus; r++)
		cpuset_add(&have, app->cpus[r]);
	struct cpuset fresh = want;
	int c;
	cpuset_for_each(c, &have) cpuset_del(&fresh, c);
	if (cpuset_count(&fresh) == 0)
		return 0;
	int cpus[APP_MAX_ROWS], n = 0;
	for (int r = 0; r < app->ncpus; r++)
		cpus[n++] = app->cpus[r];
	cpuset_for_each(c, &fresh) if (n < APP_MAX_ROWS) cpus[n++] = c;
	char added[128];
	cpuset_format(&fresh, added, sizeof(added));
	if (reopen_cpus(app, cpus, n, err, errlen) < 0)
		return -1;
	app_log(app, MSG_INFO, "CPU %s came online: counting it", added);
	return 1;
}

/* --- the cadence: interval, sample, replay rate ------------------------------------------- */

uint64_t app_period_ns(const struct app_ctx *app)
{
	/* samples in rings: the loop drains them four times per refresh (draining reads memory,
	 * no system call), so a window's frame comes at most a quarter of a refresh after its
	 * last sample although the kernel's sampling timer drifts from the loop's */
	const struct backend *b = app->session ? session_backend(app->session) : NULL;
	if (b && b->ring) {
		uint64_t ns = (uint64_t)app->interval_ms * 1000000ULL / APP_RING_DRAINS;
		return b->drain_ns && b->drain_ns < ns ? b->drain_ns : ns;
	}
	double ns = (double)app_tick_ns(app);
	if (source_has(&app->source, SOURCE_CAP_SEEK) && app->speed > 0)
		ns /= app->speed;
	/* 1 ms at the least, 50 us with --sample in us */
	double floor = app->sample_us > 0 ? 5e4 : 1e6;
	return ns < floor ? (uint64_t)floor : (uint64_t)ns;
}

/* The one place the loop's timer follows the cadence. */
static void apply_cadence(struct app_ctx *app)
{
	if (app->loop_ready)
		loop_set_period(&app->loop, app_period_ns(app));
}

int app_set_interval(struct app_ctx *app, long ms, char *err, size_t errlen)
{
	if (ms < DURATION_REFRESH_MIN_MS || ms > 3600000) {
		snprintf(err, errlen, "interval %ld ms is out of range (%d to 3600000)", ms,
			 DURATION_REFRESH_MIN_MS);
		return -1;
	}
	if (app->sample_ms > ms) {
		snprintf(err, errlen, "interval %ld ms is shorter than the sample cadence %ld ms",
			 ms, app->sample_ms);
		return -1;
	}
	char arg[32];
	int rc;
	snprintf(arg, sizeof(arg), "%ld", ms);
	if (intercepted(app, "interval", arg, err, errlen, &rc))
		return rc;
	app->interval_ms = ms;
	apply_cadence(app);
	note_counter_wrap(app);
	return 0;
}

long app_tick_ms(const struct app_ctx *app)
{
	return app->sample_ms > 0 && app->sample_ms < app->interval_ms ? app->sample_ms
								       : app->interval_ms;
}

uint64_t app_tick_ns(const struct app_ctx *app)
{
	if (app->sample_us > 0 && app->sample_ms == 1 && app->interval_ms > 1)
		return (uint64_t)app->sample_us * 1000ULL;
	return (uint64_t)app_tick_ms(app) * 1000000ULL;
}

int app_set_sample(struct app_ctx *app, long ms, long us, char *err, size_t errlen)
{
	if (us > 0)
		ms = 1; /* below 1 ms: app_tick_ns reads sample_us */
	if (ms < 0 || ms > app->interval_ms) {
		snprintf(err, errlen,
			 "sample cadence %ld ms is out of range (1 to the interval, %ld ms)", ms,
			 app->interval_ms);
		return -1;
	}
	if (playback_sample(app, ms, err, errlen) < 0) /* a remote agent: its ticks are samples */
		return -1;
	long was = app->sample_ms, was_us = app->sample_us;
	app->sample_ms = ms;
	app->sample_us = us > 0 ? us : 0;
	/* a sampling source samples at the period it opened with: reopen the mode */
	if ((ms != was || app->sample_us != was_us) && app->session &&
	    session_backend(app->session)->ops && session_backend(app->session)->ops->queued &&
	    app->opt.sample_path != PERFRING_READ) {
		session_set_sampling(app->session, sampling_ns(app), drain_ns(app));
		if (app_run_mode(app, &app->mode, err, errlen) < 0) {
			app->sample_ms = was;
			app->sample_us = was_us;
			session_set_sampling(app->session, sampling_ns(app), drain_ns(app));
			return -1;
		}
	}
	apply_cadence(app);
	return 0;
}

int app_set_speed(struct app_ctx *app, const char *arg, char *err, size_t errlen)
{
	if (!source_has(&app->source, SOURCE_CAP_SEEK)) {
		snprintf(err, errlen, "rate: only a replayed file has a pace (use :interval)");
		return -1;
	}
	static const double steps[] = {0.5, 1, 2, 4, 8, 16};
	double v = app->speed;
	if (strcmp(arg, "+") == 0 || strcmp(arg, "-") == 0) {
		for (int i = 0; i < 6; i++)
			if (arg[0] == '+' ? steps[i] > v + 1e-9 : steps[5 - i] < v - 1e-9) {
				v = arg[0] == '+' ? steps[i] : steps[5 - i];
				break;
			}
	} else {
		char *end;
		v = strtod(arg[0] == 'x' ? arg + 1 : arg, &end);
		if (end == arg || *end || !(v >= 0.5 && v <= 16)) {
			snprintf(err, errlen, "rate: \"%s\" is not from 0.5 to 16", arg);
			return -1;
		}
	}
	app->speed = v;
	apply_cadence(app);
	app_log(app, MSG_INFO, "replay speed x%g", v);
	return 0;
}

/* --- set-up --------------------------------------------------------------------------------- */

int app_load_likwid(struct app_ctx *app, const char *dir, char *err, size_t errlen)
{
	struct likwid_env env = {.family = app->family, .sysfs_root = app->pf.root};
	bool here = source_has(&app->source, SOURCE_CAP_THIS_MACHINE) || app->pf.root[0];
	env.cpu_family = here ? app->pf.cpu_family : -1; /* the sim's family is not this CPU */
	env.cpu_model = here ? app->pf.cpu_model : -1;
	struct likwid_load l;
	bool recorded = source_has(&app->source, SOURCE_CAP_RECORDED);
	struct source_machine rec;
	memset(&rec, 0, sizeof(rec));
	if (recorded && app->source.ops->describe) /* the recorded machine's clock, not ours */
		app->source.ops->describe(app->source.inst, &rec);
	likwid_env_clock(&env, recorded ? NULL : app->pf.root,
			 recorded ? rec.model : app->pf.cpu_model_name);
	int n = likwid_load_dir(app->modes, dir, &env, &l, err, errlen);
	if (n < 0)
		return -1;
	for (int i = 0; i < l.nwarnings; i++)
		app_log(app, MSG_WARN, "%s", l.warnings[i]);
	char edir[200];
	text_escape(l.dir, TEXT_NUL_TERMINATED, edir, sizeof(edir));
	app_log(app, MSG_INFO,
		"likwid groups: %d of %d loaded from %s for %s, %d with every event mapped; "
		"inverseClock: %s",
		l.loaded, l.files, edir, app->family->desc, l.complete,
		env.nominal_hz > 0 ? env.clock_source : "n/a (nominal clock unknown)");
	likwid_load_free(&l);
	return n;
}

/* Built-in, user and --mode-file modes; a --mode-file that cannot be read is a usage error. */
static int load_modes(struct app_ctx *app, char *err, size_t errlen)
{
	/* later files replace earlier modes of the same name: compiled-in, installed, user, -M */
	mode_load_builtin(app->modes);
	char dir[4096], why[512];
	if (paths_data_subdir("modes", dir, sizeof(dir)) == 0)
		mode_load_dir(app->modes, dir);
	if (paths_user(PATHS_CONFIG, "modes", dir, sizeof(dir)) == 0)
		mode_load_dir(app->modes, dir);
	for (int i = 0; i < app->opt.nmode_files; i++)
		if (mode_read_file(app->modes, app->opt.mode_files[i], why, sizeof(why)) == -2) {
			snprintf(err, errlen, "--mode-file: %s", why);
			return -1;
		}
	for (int i = 0; i < app->modes->nwarnings; i++)
		app_log(app, MSG_WARN, "%s", app->modes->warnings[i]);
	if (app->opt.perf_events &&
	    app_load_perf_events(app, app->opt.perf_events, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "--perf-events: %s", why);
		return -1;
	}
	if (app->opt.perf_metric && !app->perfev) {
		snprintf(err, errlen, "-M %s: perf's metrics need --perf-events DIR",
			 app->opt.perf_metric);
		return -1;
	}
	if (app->opt.likwid_groups &&
	    app_load_likwid(app, app->opt.likwid_groups, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "--likwid-groups: %s", why);
		return -1;
	}
	return 0;
}

int app_load_perf_events(struct app_ctx *app, const char *dir, char *err, size_t errlen)
{
	struct pmuev_machine mach;
	platform_pmuev_machine(&app->pf, &mach);
	struct pmuev_lib *lib = pmuevents_open(dir, &mach, err, errlen);
	if (!lib)
		return -1;
	char summary[256], d[200];
	int n = pmuevents_register(lib, app->modes, summary, sizeof(summary));
	pmuevents_free(app->perfev);
	app->perfev = lib;
	text_escape(dir, strlen(dir), d, sizeof(d));
	app_log(app, MSG_INFO, "perf-events %s: %s", d, summary);
	return n;
}

static const char *default_mode(struct app_ctx *app)
{
	const struct mode *cpi = mode_find(app->modes, "cpi");
	struct mode_avail a;
	if (!family_is_a(app->family, "sw") && cpi && app_mode_availability(app, cpi, &a) == 0)
		return "cpi";
	return "sw";
}

/* Where sysfs does not say how many counters an ARM or XScale core PMU has (no
 * caps/num_counters), a live perf run asks the kernel: growing groups on one of its CPUs. */
static void probe_counters(struct app_ctx *app)
{
	if (app->pf.root[0] || !source_has(&app->source, SOURCE_CAP_THIS_MACHINE))
		return;
	bool probed = false;
	for (int i = 0; i < app->pf.npmus; i++) {
		struct platform_pmu *p = &app->pf.pmus[i];
		char path[512], why[256];
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/caps/num_counters",
			 p->name);
		if (!p->is_core || !family_cycle_code(p->family) || access(path, R_OK) == 0)
			continue;
		int cpu = cpuset_next(&p->cpus, 0);
		while (cpu >= 0 && !cpuset_has(&app->pf.online, cpu))
			cpu = cpuset_next(&p->cpus, cpu + 1);
		if (cpu < 0)
			continue;
		int n = platform_probe_counters(p, cpu, &platform_perf_opener, why, sizeof(why));
		if (n > 0) {
			p->num_counters = n;
			p->counters_probed = probed = true;
		} else {
			app_log(app, MSG_WARN, "counters not probed: %s; using the %s table (%d)",
				why, p->family->desc, p->num_counters);
		}
	}
	if (probed)
		platform_describe(&app->pf);
}

/* Judges the interval against the counter wrap in the platform line and warns when it is
 * longer than a core PMU's 32-bit counters take to wrap. */
static void note_counter_wrap(struct app_ctx *app)
{
	if (!source_has(&app->source, SOURCE_CAP_THIS_MACHINE))
		return;
	app->pf.interval_ms = app->interval_ms;
	platform_describe(&app->pf);
	if (!app->source.ops->describe)
		machine_capability(app);
	for (int i = 0; i < app->pf.npmus; i++) {
		char line[320];
		if (app->pf.pmus[i].is_core &&
		    platform_wrap_note(&app->pf.pmus[i], app->interval_ms, line, sizeof(line)))
			app_log(app, MSG_WARN, "%s: %s", app->pf.pmus[i].name, line);
	}
}

/* The machine the numbers come from: the source's description, else this machine's. */
static void describe_machine(struct app_ctx *app)
{
	struct source_machine *m = &app->machine;
	memset(m, 0, sizeof(*m));
	if (app->source.ops->describe) {
		app->source.ops->describe(app->source.inst, m);
		return;
	}
	snprintf(m->host, sizeof(m->host), "%s", app->pf.hostname);
	snprintf(m->kernel, sizeof(m->kernel), "%s", app->pf.kernel);
	snprintf(m->family, sizeof(m->family), "%s", app->family ? app->family->key : "");
	if (!source_has(&app->source, SOURCE_CAP_THIS_MACHINE)) {
		machine_capability(app);
		m->counter_bits = app->opt.sim.counter_bits ? app->opt.sim.counter_bits : 64;
		/* caps/slots only exists on ARMv8.4 PMUs */
		m->slots = family_is_a(app->family, "armv8") ? app->opt.sim.slots : 0;
		m->ncpus = app->ncpus;
		return;
	}
	const struct platform_pmu *pmu =
	    app->ncpus ? platform_core_pmu_for_cpu(&app->pf, app->cpus[0]) : NULL;
	snprintf(m->pmu, sizeof(m->pmu), "%s", pmu ? pmu->name : "");
	if (app->pf.cpu_model_name[0])
		snprintf(m->model, sizeof(m->model), "%s", app->pf.cpu_model_name);
	else if (app->pf.cpu_model >= 0)
		snprintf(m->model, sizeof(m->model), "%d", app->pf.cpu_model);
	machine_capability(app);
	m->counter_bits = 64;
	m->slots = monitored_slots(app);
	m->ncpus = app->ncpus;
}

/* The source named by the options: a remote agent, a recording, or perf / sim. */
static int open_source(struct app_ctx *app, char *err, size_t errlen)
{
	int rc;
	for (int i = 0; i < app->nobservers; i++) /* a plug-in that is the source */
		if (app->observers[i]->open_source &&
		    (rc = app->observers[i]->open_source(app->observers[i], app, &app->replay, err,
							 errlen)) != 0)
			return rc;
	if (app->opt.replay || app->opt.remote)
		return playback_open(app, err, errlen);
	const struct source_ops *ops = source_find(app->opt.backend);
	if (!ops) {
		int n = snprintf(err, errlen, "unknown backend \"%s\" (", app->opt.backend);
		for (size_t i = 0; source_name_at(i) && n >= 0 && (size_t)n < errlen; i++)
			n += snprintf(err + n, errlen - (size_t)n, "%s%s", i ? ", " : "",
				      source_name_at(i));
		if (n >= 0 && (size_t)n < errlen)
			snprintf(err + n, errlen - (size_t)n, ")");
		return 2;
	}
	app->source = (struct source){.ops = ops};
	if (ops->caps & SOURCE_CAP_SIMULATED) { /* a simulated source takes the --sim-* options */
		app->source.inst = &app->opt.sim;
		if (app->opt.sim.offline_cpu >= app->opt.sim.ncpus) {
			snprintf(err, errlen,
				 "--sim-offline: CPU %d is not simulated (--sim-cpus %d)",
				 app->opt.sim.offline_cpu, app->opt.sim.ncpus);
			return 2;
		}
		if (app->opt.sim.spike_cpu >= app->opt.sim.ncpus) {
			snprintf(err, errlen,
				 "--sim-spike: CPU %d is not simulated (--sim-cpus %d)",
				 app->opt.sim.spike_cpu, app->opt.sim.ncpus);
			return 2;
		}
		const char *key = app->opt.sim_family ? app->opt.sim_family : "generic";
		app->family = family_find(key);
		if (!app->family) {
			char esc[64];
			int n = 0;
			text_escape(key, TEXT_NUL_TERMINATED, esc, sizeof(esc));
			n = snprintf(err, errlen,
				     "--sim-family: unknown family \"%s\"; families:", esc);
			for (const struct pmu_family *f = pmu_families;
			     f->key && n >= 0 && (size_t)n < errlen; f++)
				n += snprintf(err + n, errlen - (size_t)n, " %s", f->key);
			return 2;
		}
	} else if (app->opt.sim_family) {
		snprintf(err, errlen, "--sim-family needs --backend sim");
		return 2;
	}
	return 0;
}

/* What a run cannot do without opens before any counter: the loop's timer and signal
 * descriptors, and BACKEND_FD_SPARE free ones (the recording file, the terminal database, files
 * read while running). Counters get what the open-file limit leaves. Returns 0 or 2. */
static int open_essentials(struct app_ctx *app, char *err, size_t errlen)
{
	long limit;
	backend_raise_nofile();
	if (loop_open(&app->loop, err, errlen) < 0) {
		int e = errno;
		if (e == EMFILE || e == ENFILE) {
			size_t n = strlen(err);
			backend_nofile_free(&limit);
			snprintf(
			    err + n, errlen - n,
			    " (the open-file limit RLIMIT_NOFILE is %ld: raise it with ulimit -n)",
			    limit);
		}
		return 2;
	}
	if (backend_nofile_free(&limit) < BACKEND_FD_SPARE) {
		snprintf(
		    err, errlen,
		    "the open-file limit RLIMIT_NOFILE %ld leaves fewer than %d free descriptors "
		    "for the recording file and the terminal: raise it with ulimit -n",
		    limit, BACKEND_FD_SPARE);
		return 2;
	}
	return 0;
}

int app_init(struct app_ctx *app, char *err, size_t errlen)
{
	int rc;
	app->start_ns = loop_now_ns();
	struct timespec now;
	app->start_unix_s = clock_gettime(CLOCK_REALTIME, &now) == 0
				? (double)now.tv_sec + (double)now.tv_nsec / 1e9
				: NAN;
	app->interval_ms = app->opt.interval_ms;
	app->sample_ms = app->opt.sample_ms;
	app->sample_us = app->opt.sample_us;
	app->speed = app->opt.speed > 0 ? app->opt.speed : 1;
	if (platform_detect(&app->pf, app->opt.sysfs_root, err, errlen) < 0)
		return 2;
	if (encode_init(err, errlen) < 0)
		return 1;
	if ((rc = open_essentials(app, err, errlen)) != 0)
		return rc;
	app->family = app->pf.family ? app->pf.family : family_find("sw");
	if (!app->cpus && !(app->cpus = calloc(APP_MAX_ROWS, sizeof(int))))
		return 1;
	if (!app->core_type && !(app->core_type = calloc(APP_MAX_ROWS, sizeof(int))))
		return 1;
	if ((rc = open_source(app, err, errlen)) != 0)
		return rc;
	app->modes = calloc(1, sizeof(*app->modes));
	if (!app->modes) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	mode_registry_init(app->modes);
	if (load_modes(app, err, errlen) < 0)
		return 2;
	if (choose_cpus(app, app->opt.cpus, app->cpus, &app->ncpus, err, errlen) < 0)
		return 2;
	app->cpus_all = !app->opt.cpus || strcmp(app->opt.cpus, "all") == 0;
	cpuset_clear(&app->cpus_chosen);
	for (int r = 0; r < app->ncpus; r++)
		cpuset_add(&app->cpus_chosen, app->cpus[r]);
	if ((rc = app_target_init(app, err, errlen)) != 0)
		return rc;
	app->online_read_ns = loop_now_ns();
	app->online_stat_ok = !app->pf.root[0]; /* no --sysfs-root tree */
	app->online_fd = -1;
	fill_core_types(app);
	probe_counters(app);
	describe_machine(app);
	note_counter_wrap(app);
	if ((rc = app_rows_init(app, err, errlen)) != 0)
		return rc;
	app->session = new_session(app, err, errlen);
	if (!app->session)
		return 1;
	bool recorded = source_has(&app->source, SOURCE_CAP_RECORDED);
	if (app->opt.events) {
		rc = app_set_events(app, "events", app->opt.events, err, errlen);
		if (rc == -2) {
			char why[400];
			snprintf(why, sizeof(why), "-e: %s", err);
			snprintf(err, errlen, "%s", why);
			return 2;
		}
	} else {
		char perf_name[80];
		if (app->opt.perf_metric && app->perfev) { /* whole names, a metric first, lists */
			const struct mode *pm = pmuevents_metrics(
			    app->perfev, app->modes, app->opt.perf_metric, err, errlen);
			if (!pm)
				return 2;
			snprintf(perf_name, sizeof(perf_name), "%s", pm->name);
		} else if (app->opt.perf_metric)
			snprintf(perf_name, sizeof(perf_name), "perf:%s", app->opt.perf_metric);
		const char *name = app->opt.perf_metric ? perf_name
				   : app->opt.mode	? app->opt.mode
				   : recorded		? playback_default_mode(app)
							: default_mode(app);
		if ((app->opt.mode || app->opt.perf_metric) && !recorded &&
		    !lookup_mode(app, name, err, errlen)) {
			char why[400];
			app_set_mode(app, name, why, sizeof(why));
			snprintf(err, errlen, "%s", why);
			return 2;
		}
		rc = app_set_mode(app, name, err, errlen);
	}
	if (rc < 0)
		return 1;
	return 0;
}

/* The backend's key of the CPUs that had a line in its last /proc/stat read, when that read is
 * of this machine's CPUs as the online list is (no --sysfs-root tree); 0 otherwise. */
static uint64_t stat_cpus_key(const struct app_ctx *app)
{
	return app->session && app->online_stat_ok ? session_backend(app->session)->stat_cpus_key
						   : 0;
}

/* Whether the online list is read this tick (app_follow_online): the kernel prints a /proc/stat
 * line for each online CPU, so with a key from the backend the file is read when the key changed
 * (a sysfs read a second is ~20 us of a tick at 1 s, bench/README.md) and every
 * APP_ONLINE_CHECK_NS anyway; without one, every APP_ONLINE_READ_NS. */
static bool online_due(const struct app_ctx *app, uint64_t now)
{
	uint64_t key = stat_cpus_key(app), since = now - app->online_read_ns;
	if (key && app->online_stat_key)
		return key != app->online_stat_key || since >= APP_ONLINE_CHECK_NS;
	return since >= APP_ONLINE_READ_NS;
}

int app_tick(struct app_ctx *app, char *err, size_t errlen)
{
	uint64_t now = loop_now_ns();
	if (app->cpus_all && online_due(app, now)) {
		app->online_read_ns = now;
		app->online_stat_key = stat_cpus_key(app);
		char why[256];
		if (app_follow_online(app, why, sizeof(why)) < 0)
			app_log(app, MSG_WARN, "following CPU hotplug: %s", why);
	}
	int rc = session_tick(app->session, app_tick_ns(app), err, errlen);
	if (rc == 0)
		app_target_release(app); /* primed at zero: -- CMD may exec now */
	if (rc > 0) {
		app->ticks++;
		const struct snapshot *snap = session_snapshot(app->session);
		for (int i = 0; i < app->nobservers; i++)
			if (app->observers[i]->on_tick)
				app->observers[i]->on_tick(app->observers[i], app, snap);
	}
	return rc;
}

int app_queued(struct app_ctx *app)
{
	return app->session && !source_has(&app->source, SOURCE_CAP_RECORDED)
		   ? session_queued(app->session)
		   : -1;
}

int app_next(struct app_ctx *app, char *err, size_t errlen)
{
	if (source_has(&app->source, SOURCE_CAP_RECORDED))
		return playback_tick(app, err, errlen);
	return app_tick(app, err, errlen);
}

int app_pending(const struct app_ctx *app)
{
	return source_has(&app->source, SOURCE_CAP_RECORDED) ? playback_pending(app) : -1;
}

bool app_refresh_due(struct app_ctx *app)
{
	uint64_t w = app->ticks;
	for (int i = 0; i < app->nobservers; i++)
		if (app->observers[i]->window) {
			app->observers[i]->window(app->observers[i], &w);
			break;
		}
	if (w == app->refresh_seen)
		return false;
	app->refresh_seen = w;
	return true;
}

void app_free(struct app_ctx *app)
{
	for (int i = 0; i < app->nobservers; i++) /* in the order registered */
		if (app->observers[i]->close)
			app->observers[i]->close(app->observers[i], app);
	for (int i = 0; i < app->nobservers; i++)
		*app->observers[i] = (struct observer){0};
	app->nobservers = 0;
	session_free(app->session);
	app->session = NULL;
	if (app->online_fd > 0)
		close(app->online_fd);
	app->online_fd = -1;
	playback_free(app);
	frame_store_free(app->frame_store);
	app->frame_store = NULL;
	app_rows_free(app);
	target_free(&app->target); /* after the counters on its cgroups closed */
	pmuevents_free(app->perfev);
	app->perfev = NULL;
	if (app->modes) {
		mode_registry_free(app->modes);
		free(app->modes);
		app->modes = NULL;
	}
	loop_close(&app->loop);
	app->loop_ready = false;
	free(app->messages);
	free(app->cpus);
	free(app->core_type);
	app->messages = NULL;
	app->cpus = app->core_type = NULL;
	app->nmessages = app->message_head = 0;
}

int app_swap_target(struct app_ctx *app, struct target *t, char *err, size_t errlen)
{
	if (t->nrows > APP_MAX_ROWS) {
		snprintf(err, errlen, "%d counter rows: at most %d", t->nrows, APP_MAX_ROWS);
		return -1;
	}
	int *cpus = malloc(APP_MAX_ROWS * sizeof(int)),
	    *old_cpus = malloc(APP_MAX_ROWS * sizeof(int));
	if (!cpus || !old_cpus) {
		free(cpus), free(old_cpus);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	struct target old = app->target;
	int old_n = app->ncpus, n = 0;
	memcpy(old_cpus, app->cpus, (size_t)old_n * sizeof(int));
	app->target = *t;
	if (t->kind == TARGET_CPUS) {
		n = app_mode_rows(app, mode_find(app->modes, app->mode_name), cpus, err, errlen);
	} else {
		int cpu0 = cpuset_next(&app->cpus_chosen, 0);
		for (int r = 0; r < t->nrows; r++) /* a task row encodes for the first CPU's PMU */
			cpus[r] = t->kind == TARGET_TASKS && !t->pid_on_cpu ? (cpu0 < 0 ? 0 : cpu0)
									    : t->row_cpu[r];
		n = t->nrows;
	}
	struct session *s = NULL;
	if (n >= 0) {
		memcpy(app->cpus, cpus, (size_t)n * sizeof(int));
		app->ncpus = n;
		fill_core_types(app);
		s = new_session(app, err, errlen);
	}
	struct session_mode mode = app->mode;
	if (s)
		session_continue(s, app->session); /* time and seq go on */
	if (!s || session_set_mode(s, &mode, err, errlen) < 0) {
		session_free(s);
		app->target = old;
		app->ncpus = old_n;
		memcpy(app->cpus, old_cpus, (size_t)old_n * sizeof(int));
		fill_core_types(app);
		free(cpus), free(old_cpus);
		return -1;
	}
	session_free(app->session); /* its counters on the old cgroups close first */
	app->session = s;
	target_free(&old);
	app->mode_started_tick = app->ticks;
	notify_mode(app);
	free(cpus), free(old_cpus);
	return 0;
}
