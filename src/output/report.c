/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.c: --list-events, --list-modes and --explain (encodings and opens, without counting). */
#include "report.h"
#include "encode.h"
#include "evlist.h"
#include "mode.h"
#include "owners.h"
#include "platform.h"
#include "source.h"
#include "textutil.h"
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct list_state {
	FILE *out;
	const char *last_pmu;
	int n, opens;
	struct app_ctx *app;
	bool try_open; /* live machine: say which events the kernel here opens */
};

static int try_open(struct perf_event_attr attr, int cpu);

static void list_one(void *arg, const char *pmu, const char *event, const char *desc, bool present)
{
	struct list_state *s = arg;
	if (!s->last_pmu || strcmp(s->last_pmu, pmu) != 0) {
		text_fprintf(s->out, "\n%s%s:\n", pmu,
			     present ? "" : " (not this CPU; encodable with a pmu:: prefix)");
		s->last_pmu = pmu;
	}
	char first[100];
	snprintf(first, sizeof(first), "%s", desc);
	char *nl = strchr(first, '\n');
	if (nl)
		*nl = '\0';
	const char *mark = "";
	if (s->try_open) {
		char spec[160], err[160];
		snprintf(spec, sizeof(spec), "%s::%s", pmu, event);
		struct encode_ctx ctx = {.sysfs_root = "/",
					 .family = s->app->family,
					 .core_pmu_type = s->app->core_type[0],
					 .filters_priv = true};
		struct event_encoding enc;
		bool ok = event_encode(spec, &ctx, &enc, err, sizeof(err)) == 0 &&
			  try_open(enc.attr, s->app->cpus[0]) == 0;
		mark = ok ? "[opens] " : "[not here] ";
		s->opens += ok;
	}
	text_fprintf(s->out, "  %s::%-40s %s%s\n", pmu, event, mark, first);
	s->n++;
}

int report_list_events(struct app_ctx *app, const char *pattern, FILE *out)
{
	text_fprintf(out, "# platform: %s\n", app->pf.capability);
	text_fprintf(out, "# family: %s (%s)\n", app->family->key, app->family->desc);
	if (app->pf.core_pmu_count == 0)
		text_fprintf(
		    out,
		    "# the kernel here opens software events and other PMUs only (%s); hardware "
		    "events below encode but will not open\n",
		    "no core PMU in /sys/bus/event_source/devices");
	struct list_state s = {.out = out,
			       .app = app,
			       .try_open = app->pf.root[0] == '\0' && app->ncpus > 0 &&
					   source_has(&app->source, SOURCE_CAP_THIS_MACHINE)};
	/* With a pattern every compiled-in model is searched; without one, the active ones. */
	encode_list(pattern, pattern != NULL, list_one, &s);
	text_fprintf(out, "\nPMUs the kernel here exposes (sysfs syntax pmu/event/):\n");
	for (int i = 0; i < app->pf.npmus; i++)
		text_fprintf(out, "  %-20s type %d%s\n", app->pf.pmus[i].name, app->pf.pmus[i].type,
			     app->pf.pmus[i].is_core ? " (core PMU)" : "");
	if (s.try_open)
		text_fprintf(out, "\n%d events, %d of them open on CPU %d here\n", s.n, s.opens,
			     app->cpus[0]);
	else
		text_fprintf(out, "\n%d events\n", s.n);
	return 0;
}

/* The CPUs a report speaks of: a mode's rows (app_mode_rows), or the run's. */
struct report_rows {
	int cpus[APP_MAX_ROWS];
	int n;
};

/* Core PMUs of this machine that hold a CPU of @rows (none for a recorded or simulated run). */
static bool pmu_in_use(const struct app_ctx *app, const struct platform_pmu *p,
		       const struct report_rows *rows)
{
	if (!p->is_core || !p->family || !source_has(&app->source, SOURCE_CAP_THIS_MACHINE))
		return false;
	for (int r = 0; r < rows->n; r++)
		if (cpuset_has(&p->cpus, rows->cpus[r]))
			return true;
	return false;
}

/* "# core type armv8_cortex_a53 (CPUs 0-3): cortex_a53, perf type 8, 6 counters (probed)" and
 * the counter width against the interval, per core PMU in use. */
static void print_core_types(const struct app_ctx *app, const struct report_rows *rows, FILE *out)
{
	if (source_has(&app->source, SOURCE_CAP_THIS_MACHINE) && app->pf.core_pmu_count == 0)
		text_fprintf(out, "# counters: no core PMU here, so none counted or probed\n");
	for (int i = 0; i < app->pf.npmus; i++) {
		const struct platform_pmu *p = &app->pf.pmus[i];
		char set[256], wrap[320];
		if (!pmu_in_use(app, p, rows))
			continue;
		platform_wrap_note(p, app->interval_ms, wrap, sizeof(wrap));
		text_fprintf(out,
			     "# core type %s (CPUs %s): family %s, perf type %d, %d programmable "
			     "counters%s; %s\n",
			     p->name, cpuset_format(&p->cpus, set, sizeof(set)), p->family->key,
			     p->type, p->num_counters,
			     p->counters_probed			      ? " (probed)"
			     : p->num_counters == p->family->counters ? " (family table)"
								      : " (caps/num_counters)",
			     wrap);
	}
}

int report_list_modes(struct app_ctx *app, FILE *out)
{
	text_fprintf(out, "# family: %s (%s), %d programmable counters\n", app->family->key,
		     app->family->desc, app->family->counters);
	static struct report_rows rows;
	char why[256];
	rows.n = app_mode_rows(app, NULL, rows.cpus, why, sizeof(why));
	print_core_types(app, &rows, out);
	int w = 10; /* the name column: as wide as the longest name (perf:..., likwid:...) */
	for (int i = 0; i < app->modes->n; i++)
		if ((int)strlen(app->modes->modes[i]->name) > w)
			w = (int)strlen(app->modes->modes[i]->name);
	text_fprintf(out, "%-*s %-9s %9s %6s %6s %-11s %-10s %s\n", w, "MODE", "STATUS",
		     "NEED/HAVE", "FIXED", "OTHER", "MULTIPLEX", "FROM", "TITLE / REASON");
	for (int i = 0; i < app->modes->n; i++) {
		const struct mode *m = app->modes->modes[i];
		struct mode_avail a;
		/* where it came from: compiled in (modes/x.mode), a file, a library, a command */
		const char *from = !m->source				  ? "-"
				   : strncmp(m->source, "modes/", 6) == 0 ? "built-in"
									  : m->source;
		if (app_mode_availability(app, m, &a) < 0) {
			text_fprintf(out, "%-*s %-9s %9s %6s %6s %-11s %-10s %s\n", w, m->name,
				     "n/a", "-", "-", "-", "-", from, a.reason);
			continue;
		}
		/* as the run does it: event sets the planner rotates, else the kernel multiplexes
		 */
		static struct mode_plan plan;
		struct mode_event_support sup;
		char perr[256];
		const char *mux =
		    !a.multiplex ? "no"
		    : a.counters > 0 &&
			    mode_plan_sets_on(m, app->family,
					      app_event_support(app, &sup) ? &sup : NULL,
					      a.counters, &plan, perr, sizeof(perr)) > 1
			? "rotate sets"
			: "kernel";
		char muxbuf[32];
		int needed = a.needed;
		if (m->kind == MODE_KIND_OFFCORE) {
			/* one offcore event per request bit, swept over the offcore MSRs */
			static struct session_mode sm;
			char err[256];
			if (app_resolve_mode(app, m->name, &sm, err, sizeof(err)) == 0) {
				int slices = sm.nsets > 1 ? sm.nsets : 1;
				needed += (sm.nevents - a.fixed - a.other + slices - 1) / slices;
				snprintf(muxbuf, sizeof(muxbuf), "%d slices", slices);
				mux = muxbuf;
			}
		}
		char need[24];
		if (a.counters > 0)
			snprintf(need, sizeof(need), "%d/%d", needed, a.counters);
		else
			snprintf(need, sizeof(need), "%d/?", needed);
		text_fprintf(out, "%-*s %-9s %9s %6d %6d %-11s %-10s %s%s%s%s\n", w, m->name,
			     "available", need, a.fixed, a.other, mux, from,
			     m->title ? m->title : "", a.note ? " [" : "", a.note ? a.note : "",
			     a.note ? "]" : "");
	}
	return 0;
}

/* Tries to open @attr on @cpu without counting; returns 0 or the errno. */
static int try_open(struct perf_event_attr attr, int cpu)
{
	attr.disabled = 1;
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	int fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* Returns 0, or -1 when @spec does not encode. */
static int explain_event(struct app_ctx *app, const struct report_rows *rows, const char *alias,
			 const char *spec, FILE *out)
{
	char err[256];
	struct event_encoding enc;
	struct encode_ctx ctx = app_encode_ctx(app);
	const struct platform_pmu *first =
	    rows->n ? platform_core_pmu_for_cpu(&app->pf, rows->cpus[0]) : NULL;
	if (first && first->type > 0) /* the core type the rows are of (a mode of one core type) */
		ctx.core_pmu_type = first->type;
	if (event_encode(spec, &ctx, &enc, err, sizeof(err)) < 0) {
		char sugg[5][96];
		int n = encode_suggest(spec, &ctx, sugg, 5);
		text_fprintf(out, "  %-22s %-36s cannot encode: %s", alias, spec, err);
		for (int i = 0; i < n; i++)
			text_fprintf(out, "%s%s", i ? ", " : "; did you mean ", sugg[i]);
		fputc('\n', out);
		return -1;
	}
	char desc[200];
	encode_format(&enc, desc, sizeof(desc));
	text_fprintf(out, "  %-22s %-36s %s\n", alias, spec, desc);
	/* big.LITTLE: a raw event opens with each core type's own perf type (<pmu>/type) */
	for (int i = 0; app->pf.hybrid && enc.hardware && i < app->pf.npmus; i++) {
		const struct platform_pmu *p = &app->pf.pmus[i];
		struct event_encoding pe;
		char set[128], line[320];
		if (!pmu_in_use(app, p, rows))
			continue;
		ctx.core_pmu_type = p->type;
		if (event_encode(spec, &ctx, &pe, err, sizeof(err)) < 0)
			snprintf(line, sizeof(line), "cannot encode: %s", err);
		else
			encode_format(&pe, line, sizeof(line));
		text_fprintf(out, "  %-22s %-36s on %s (CPUs %s): %s\n", "", "", p->name,
			     cpuset_format(&p->cpus, set, sizeof(set)), line);
	}
	bool live = app->pf.root[0] == '\0' && source_has(&app->source, SOURCE_CAP_THIS_MACHINE);
	if (enc.procfs) {
		text_fprintf(out, "  %-22s %-36s %s\n", "", "",
			     access("/proc/stat", R_OK) == 0 ? "readable here"
							     : "/proc/stat not readable");
		return 0;
	}
	if (!live) {
		text_fprintf(out, "  %-22s %-36s (opens not tried: %s)\n", "", "",
			     app->pf.root[0] ? "the sysfs root stands for another machine"
					     : "sim backend");
		return 0;
	}
	int ok = 0;
	bool denied = false;
	for (int r = 0; r < rows->n; r++) {
		/* hybrid: the raw type follows the CPU's core PMU */
		struct perf_event_attr attr = enc.attr;
		const struct platform_pmu *core =
		    platform_core_pmu_for_cpu(&app->pf, rows->cpus[r]);
		if (enc.hardware && attr.type == PERF_TYPE_RAW && core && core->type > 0)
			attr.type = (uint32_t)core->type;
		int e = try_open(attr, rows->cpus[r]);
		if (e == 0)
			ok++;
		else
			text_fprintf(out, "  %-22s %-36s CPU %d: %s: %s\n", "", "", rows->cpus[r],
				     strerror(e), perf_errno_hint(e));
		denied |= e == EACCES || e == EPERM;
	}
	if (denied) {
		char hint[PLATFORM_NOTE_MAX];
		platform_permission_hint(
		    &app->pf,
		    enc.attr.type == PERF_TYPE_TRACEPOINT ? PERF_SCOPE_TRACEPOINT : PERF_SCOPE_CPU,
		    true, hint, sizeof(hint));
		text_fprintf(out, "  %-22s %-36s %s\n", "", "", hint);
	}
	text_fprintf(out, "  %-22s %-36s opens on %d of %d CPUs\n", "", "", ok, rows->n);
	return 0;
}

/* How many descriptors counting @nevents events on the run's rows needs, against the limit. */
static void explain_fds(const struct app_ctx *app, int nevents, FILE *out)
{
	const struct target *t = &app->target;
	long need = (long)app->ncpus * nevents, limit;
	backend_raise_nofile();
	long room = backend_nofile_free(&limit) - BACKEND_FD_SPARE;
	const char *rows = t->kind == TARGET_TASKS     ? "threads"
			   : t->kind == TARGET_CGROUPS ? "(cgroup, CPU) pairs"
						       : "CPUs";
	text_fprintf(out, "  descriptors: %d %s x %d events = %ld perf_event descriptors",
		     app->ncpus, rows, nevents, need);
	if (t->kind != TARGET_CPUS)
		text_fprintf(out, " for %d %s", t->nkeys,
			     t->kind == TARGET_TASKS ? "tasks" : "cgroups");
	if (limit < 0)
		text_fprintf(out, "; no RLIMIT_NOFILE\n");
	else
		text_fprintf(out, "; RLIMIT_NOFILE %ld leaves room for %ld: %s\n", limit, room,
			     need <= room ? "fits"
					  : "does not fit (events that do not fit are left out, "
					    "each named)");
}

int report_explain(struct app_ctx *app, const char *what, FILE *out, FILE *errout)
{
	const struct mode *m = mode_find(app->modes, what);
	text_fprintf(out, "# platform: %s\n# family: %s (%s)\n", app->pf.capability,
		     app->family->key, app->family->desc);
	if (source_has(&app->source, SOURCE_CAP_THIS_MACHINE) || app->opt.owners_from)
		owners_explain(&app->opt, app->pf.core_pmu_count > 0, what, out); /* who else */
	static struct report_rows rows;
	char why[320];
	rows.n = app_mode_rows(app, m, rows.cpus, why, sizeof(why));
	if (m && rows.n < 0) {
		text_fprintf(out, "mode %s: %s\n  not available: %s\n", m->name,
			     m->title ? m->title : "", why);
		return 1;
	}
	if (!m) { /* an event list: the run's rows */
		rows.n = app->ncpus;
		memcpy(rows.cpus, app->cpus, (size_t)app->ncpus * sizeof(int));
	}
	if (m) {
		struct mode_resolution res;
		text_fprintf(out, "mode %s: %s\n", m->name, m->title ? m->title : "");
		/* a library mode names the metrics it had to leave out */
		for (const char *h = m->help; h && *h;) {
			size_t n = strcspn(h, "\n");
			if (strncmp(h, "not evaluated: ", 15) == 0)
				text_fprintf(out, "  %.*s\n", (int)n, h);
			h += n + (h[n] == '\n');
		}
		struct mode_event_support sup;
		if (mode_resolve_on(m, app->family, app_event_support(app, &sup) ? &sup : NULL,
				    &res) < 0) {
			text_fprintf(out, "  not available on %s: %s\n", app->family->key,
				     res.reason);
			return 1;
		}
		static struct session_mode sm;
		char err[256];
		if (app_resolve_mode(app, m->name, &sm, err, sizeof(err)) < 0) {
			text_fprintf(out, "  %s\n", err);
			return 1;
		}
		print_core_types(app, &rows, out);
		if (m->pmu) {
			char set[128];
			struct cpuset on;
			cpuset_clear(&on);
			for (int r = 0; r < rows.n; r++)
				cpuset_add(&on, rows.cpus[r]);
			text_fprintf(out, "  counts on the %s CPUs only: %s\n", m->pmu,
				     cpuset_format(&on, set, sizeof(set)));
		}
		text_fprintf(out, "  events for family %s (section %s)%s:\n", app->family->key,
			     res.matched, sm.nsets > 1 ? ", rotated in sets" : "");
		if (res.events->note)
			text_fprintf(out, "  note: %s\n", res.events->note);
		for (int e = 0; e < sm.nevents; e++) {
			char alias[64];
			if (sm.nsets > 1 && sm.events[e].set < 0)
				snprintf(alias, sizeof(alias), "%s [always]", sm.events[e].name);
			else if (sm.nsets > 1) {
				/* "[set 0]", "[sets 0 2]" for an event shared by several sets */
				int u =
				    snprintf(alias, sizeof(alias), "%s [set%s", sm.events[e].name,
					     sm.events[e].also_in ? "s" : "");
				for (int k = 0; k < sm.nsets && u > 0 && (size_t)u < sizeof(alias);
				     k++)
					if (backend_event_in_set(&sm.events[e], k))
						u += snprintf(alias + u, sizeof(alias) - (size_t)u,
							      " %d", k);
				if (u > 0 && (size_t)u < sizeof(alias))
					snprintf(alias + u, sizeof(alias) - (size_t)u, "]");
			} else
				snprintf(alias, sizeof(alias), "%s", sm.events[e].name);
			explain_event(app, &rows, alias, sm.events[e].spec, out);
		}
		explain_fds(app, sm.nevents, out);
		text_fprintf(out, "  metrics:\n");
		for (int i = 0; i < sm.nmetrics; i++)
			text_fprintf(out, "  %-22s %s%s%s%s = %s\n", sm.metrics[i].name,
				     sm.metrics[i].unit[0] ? "[" : "", sm.metrics[i].unit,
				     sm.metrics[i].unit[0] ? "] " : "", sm.metrics[i].desc,
				     sm.metrics[i].formula);
		/* the mode's help, one line each (a likwid group's LONG text and what does not
		 * run here) */
		for (const char *h = m->help; h && *h;) {
			size_t n = strcspn(h, "\n");
			text_fprintf(out, "  | %.*s\n", (int)n, h);
			h += n + (h[n] == '\n');
		}
		return 0;
	}
	static struct evlist_item items_[EVLIST_MAX_ITEMS];
	char perr[256];
	int bad = 0, items = evlist_parse(what, items_, EVLIST_MAX_ITEMS, NULL, perr, sizeof(perr));
	if (items < 0) {
		fprintf(errout, "pmutop: --explain: %s\n", perr);
		return 2;
	}
	for (int i = 0; i < items; i++) {
		char alias[EVLIST_NAME_MAX + 16];
		if (items_[i].group)
			snprintf(alias, sizeof(alias), "%.47s [group %d]", items_[i].name,
				 items_[i].group);
		else
			snprintf(alias, sizeof(alias), "%.47s", items_[i].name);
		bad += explain_event(app, &rows, alias, items_[i].spec, out) < 0;
	}
	explain_fds(app, items, out);
	if (bad == items) { /* nothing named a mode or an event that encodes */
		text_fprintf(
		    errout,
		    "pmutop: --explain: \"%s\" is neither a mode nor an event this machine knows\n",
		    what);
		return 2;
	}
	return 0;
}
