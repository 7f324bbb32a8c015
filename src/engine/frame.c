/* SPDX-License-Identifier: GPL-2.0-or-later */
/* frame.c: builds the one frame per refresh that the screen, batch output and the agent read. */
#include "app.h"
#include "attrib.h"
#include "family.h"
#include "playback.h"
#include "replay.h"
#include "textutil.h"
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a frame points to: copies, sized by the rows, events and metrics of the last frame. */
struct frame_store {
	int rows, events, metrics; /* capacity */
	struct snapshot snap;
	const struct snapshot_store *shared; /* a reference: snap's arrays are the tick's store's */
	int *cpus;
	bool *offline;
	char (*names)[48];
	struct session_metric *defs;	   /* a copy, when no program shares them */
	const struct metric_program *prog; /* a reference: its definitions are the frame's */
	struct count *counts, *total_counts;
	double *event_age, *values, *total_values, *running, *total_running;
	enum metric_class *classes, *total_classes;
	struct metric_detail *detail;
	double *stat_values, *attrib, *row_bit_rate, *row_bit_share;
	double *err, *err_counts, *truth, *truth_counts;
	double *base_change, *base_err, *base_p, *base_p_adj;
	int *row_bit_age;
	char (*tasks)[48];
	const char **task_ptr;
	const char **core_type;
	struct row_key *row_keys;
	struct source_machine machine;
	char bit_names[FRAME_MAX_BITS][32];
	char util_source[128];	    /* the last one known (a tick where util is n/a has none) ... */
	uint64_t util_mode_changes; /* ... since this session (app->mode_changes) */
	/* the text fill_util_source() built last, and what it was built from */
	char util_built[128];
	unsigned long long util_built_used;
	uint64_t util_built_quantum;
	bool util_built_ok;
	/* the index of the metric "util" (-1 none) among the names of util_prog, which is the
	 * program the store holds (prog) or NULL: found once per program, not by comparing every
	 * metric's name each frame (each name is on a page of its own, in a 5 KiB definition) */
	const struct metric_program *util_prog;
	int util_m;
};

/* @src into @dst (@size bytes, cut to fit, always terminated): snprintf's "%s" without the
 * format parsing, for the texts a frame copies each tick. */
static void copy_text(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);
	memmove(dst, src, n);
	dst[n] = '\0';
}

/* The texts of @parts (NULL-ended) one after another into @dst (@size bytes, cut to fit, always
 * terminated): snprintf's "%s%s..." without the format parsing. */
static void join_text(char *dst, size_t size, const char *const *parts)
{
	size_t len = 0;
	for (; *parts && len + 1 < size; parts++) {
		size_t n = strnlen(*parts, size - 1 - len);
		memmove(dst + len, *parts, n);
		len += n;
	}
	dst[len] = '\0';
}

/* The machine's facts from @src into @dst: each text up to its NUL (the 3 KiB of arrays, most
 * of them unused, are not copied whole each tick). */
static void copy_machine(struct source_machine *dst, const struct source_machine *src)
{
	/* every field is copied below: one added to struct source_machine needs its line here */
	_Static_assert(sizeof(struct source_machine) ==
			   offsetof(struct source_machine, capability) + sizeof(src->capability) +
			       4 * sizeof(int),
		       "copy_machine copies every field of struct source_machine");
	copy_text(dst->host, sizeof(dst->host), src->host);
	copy_text(dst->kernel, sizeof(dst->kernel), src->kernel);
	copy_text(dst->pmu, sizeof(dst->pmu), src->pmu);
	copy_text(dst->family, sizeof(dst->family), src->family);
	copy_text(dst->model, sizeof(dst->model), src->model);
	copy_text(dst->capability, sizeof(dst->capability), src->capability);
	dst->counter_bits = src->counter_bits;
	dst->slots = src->slots;
	dst->ncpus = src->ncpus;
	dst->aggregated_cpus = src->aggregated_cpus;
}

/* The frame's texts, each set afresh by a build (frame.h: the texts last), named once. */
/* one name a line: clang-format moves a list of macro calls on one line at each run */
/* clang-format off */
#define FRAME_TEXTS(X)                                                                             \
	X(pmu_line)                                                                                \
	X(util_source)                                                                             \
	X(banner)                                                                                  \
	X(position)                                                                                \
	X(recorder)                                                                                \
	X(self)                                                                                    \
	X(mode)                                                                                    \
	X(title)                                                                                   \
	X(drill)                                                                                   \
	X(baseline)                                                                                \
	X(guard_line)                                                                              \
	X(owners_lines)
/* clang-format on */
#define TEXT_OFFSET(name) offsetof(struct frame, name),
#define TEXT_SIZE(name) +sizeof(((struct frame *)0)->name)
static const size_t frame_texts[] = {FRAME_TEXTS(TEXT_OFFSET)};
_Static_assert(offsetof(struct frame, pmu_line) FRAME_TEXTS(TEXT_SIZE) == sizeof(struct frame),
	       "the texts are the frame's last fields, each one in FRAME_TEXTS");

#define TEXT_LEN(name) sizeof(((struct frame *)0)->name),
static const size_t frame_text_sizes[] = {FRAME_TEXTS(TEXT_LEN)};

/* *@dst = *@src as far as it means anything (frame.h: the texts last): the fields up to the
 * offcore arrays, those up to nbits, and each text up to its NUL; not the 3 KiB of the frame's
 * arrays and texts whole, read and written every refresh. */
static void frame_assign(struct frame *dst, const struct frame *src)
{
	memcpy(dst, src, offsetof(struct frame, bit_names));
	int nb = src->nbits < 0 ? 0 : src->nbits < FRAME_MAX_BITS ? src->nbits : FRAME_MAX_BITS;
	for (int b = 0; b < nb; b++) {
		dst->bit_names[b] = src->bit_names[b];
		dst->bit_rate[b] = src->bit_rate[b];
		dst->bit_share[b] = src->bit_share[b];
		dst->bit_age[b] = src->bit_age[b];
	}
	for (size_t i = 0; i < sizeof(frame_texts) / sizeof(frame_texts[0]); i++)
		copy_text((char *)dst + frame_texts[i], frame_text_sizes[i],
			  (const char *)src + frame_texts[i]);
}

/* A frame as a build starts it: every field zero up to the offcore arrays (filled up to nbits)
 * and every text "", without clearing the 3 KiB of texts and arrays whole. */
static void frame_clear(struct frame *f)
{
	memset(f, 0, offsetof(struct frame, bit_names));
	for (size_t i = 0; i < sizeof(frame_texts) / sizeof(frame_texts[0]); i++)
		((char *)f)[frame_texts[i]] = '\0';
}

void frame_store_free(struct frame_store *fs)
{
	if (!fs)
		return;
	snapshot_store_release(fs->shared);
	free(fs->cpus);
	free(fs->offline);
	free(fs->names);
	free(fs->defs);
	metric_program_free(fs->prog);
	free(fs->counts);
	free(fs->total_counts);
	free(fs->event_age);
	free(fs->values);
	free(fs->total_values);
	free(fs->running);
	free(fs->total_running);
	free(fs->classes);
	free(fs->total_classes);
	free(fs->detail);
	free(fs->stat_values);
	free(fs->err);
	free(fs->err_counts);
	free(fs->truth);
	free(fs->truth_counts);
	free(fs->base_change);
	free(fs->base_err);
	free(fs->base_p);
	free(fs->base_p_adj);
	free(fs->attrib);
	free(fs->row_bit_rate);
	free(fs->row_bit_share);
	free(fs->row_bit_age);
	free(fs->tasks);
	free(fs->task_ptr);
	free(fs->core_type);
	free(fs->row_keys);
	free(fs);
}

/* Storage for @rows x @events x @metrics; NULL when out of memory. */
static struct frame_store *store_for(struct frame_store *fs, int rows, int events, int metrics)
{
	if (fs && rows <= fs->rows && events <= fs->events && metrics <= fs->metrics)
		return fs;
	frame_store_free(fs);
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return NULL;
	size_t r = (size_t)rows + 1, e = (size_t)events + 1, m = (size_t)metrics + 1;
	fs->rows = rows, fs->events = events, fs->metrics = metrics;
	fs->cpus = calloc(r, sizeof(int));
	fs->offline = calloc(r, sizeof(bool));
	fs->names = calloc(e, sizeof(*fs->names));
	fs->defs = calloc(m, sizeof(*fs->defs));
	fs->counts = calloc(r * e, sizeof(struct count));
	fs->total_counts = calloc(e, sizeof(struct count));
	fs->event_age = calloc(r * e, sizeof(double));
	fs->values = calloc(r * m, sizeof(double));
	fs->total_values = calloc(m, sizeof(double));
	fs->running = calloc(r * m, sizeof(double));
	fs->total_running = calloc(m, sizeof(double));
	fs->classes = calloc(r * m, sizeof(enum metric_class));
	fs->total_classes = calloc(m, sizeof(enum metric_class));
	fs->detail = calloc(r * m, sizeof(*fs->detail));
	fs->stat_values = calloc(r * m, sizeof(double));
	fs->err = calloc(r * m, sizeof(double));
	fs->err_counts = calloc(r * e, sizeof(double));
	fs->truth = calloc(r * m, sizeof(double));
	fs->truth_counts = calloc(r * e, sizeof(double));
	fs->base_change = calloc(r * m, sizeof(double));
	fs->base_err = calloc(r * m, sizeof(double));
	fs->base_p = calloc(r * m, sizeof(double));
	fs->base_p_adj = calloc(r * m, sizeof(double));
	fs->attrib = calloc(r * ATTRIB_NCOLS, sizeof(double));
	fs->row_bit_rate = calloc(r * FRAME_MAX_BITS, sizeof(double));
	fs->row_bit_share = calloc(r * FRAME_MAX_BITS, sizeof(double));
	fs->row_bit_age = calloc(r * FRAME_MAX_BITS, sizeof(int));
	fs->tasks = calloc(r, sizeof(*fs->tasks));
	fs->task_ptr = calloc(r, sizeof(*fs->task_ptr));
	fs->core_type = calloc(r, sizeof(*fs->core_type));
	fs->row_keys = calloc(r, sizeof(*fs->row_keys));
	if (!fs->cpus || !fs->offline || !fs->names || !fs->defs || !fs->counts ||
	    !fs->total_counts || !fs->event_age || !fs->values || !fs->total_values ||
	    !fs->running || !fs->total_running || !fs->classes || !fs->total_classes ||
	    !fs->detail || !fs->stat_values || !fs->err || !fs->err_counts || !fs->truth ||
	    !fs->truth_counts || !fs->base_change || !fs->base_err || !fs->base_p ||
	    !fs->base_p_adj || !fs->attrib || !fs->row_bit_rate || !fs->row_bit_share ||
	    !fs->row_bit_age || !fs->tasks || !fs->task_ptr || !fs->core_type || !fs->row_keys) {
		frame_store_free(fs);
		return NULL;
	}
	return fs;
}

#define COPY(dst, src, n) memcpy((dst), (src), (size_t)(n) * sizeof(*(dst)))

/* The per-tick arrays of @s (which may be @d) copied into the store's own, @d pointing there. */
static void copy_arrays(struct frame_store *fs, struct snapshot *d, const struct snapshot *s)
{
	int r = s->nrows, e = s->nevents, m = s->nmetrics;
#define COPY_ARRAY(field, n)                                                                       \
	COPY(fs->field, s->field, n);                                                              \
	d->field = fs->field;
	SNAPSHOT_ARRAYS(COPY_ARRAY)
#undef COPY_ARRAY
	d->store = NULL;
}

/* @s into the store: the frame never sees later ticks. A session's tick is immutable once
 * published: the frame holds a reference to its arrays (the session writes the next ticks
 * elsewhere); other snapshots (rows' sums, a window's) are copied. */
static const struct snapshot *copy_snapshot(struct frame_store *fs, const struct snapshot *s)
{
	int e = s->nevents, m = s->nmetrics;
	struct snapshot *d = &fs->snap;
	const struct snapshot_store *shared = snapshot_share(s); /* before @s's store is let go */
	snapshot_store_release(fs->shared);
	fs->shared = shared;
	*d = *s;
	d->row_ncpus = NULL; /* the frame's row_keys say it */
	/* The metrics' definitions (m x 5 KiB) and the event names: shared with the compiled
	 * program they came from, which is immutable and lives while a frame store holds it;
	 * copied only without one. */
	bool defs = s->program && s->metrics == metric_program_metrics(s->program);
	bool names = s->program && s->event_names == metric_program_names(s->program);
	if ((defs || names) && fs->prog != s->program) {
		metric_program_hold(s->program);
		metric_program_free(fs->prog);
		fs->prog = s->program;
		fs->util_prog = NULL; /* another program: its index is found again */
	}
	if (!defs) {
		d->program = NULL;
		COPY(fs->defs, s->metrics, m);
		d->metrics = fs->defs;
	}
	if (!names) {
		COPY(fs->names, s->event_names, e);
		d->event_names = (const char(*)[48])fs->names;
	}
	if (!shared)
		copy_arrays(fs, d, s);
	return d;
}

struct snapshot *frame_snapshot_own(struct frame *f, struct frame_store *fs)
{
	if (f->snap != &fs->snap)
		return NULL;
	if (fs->shared) {
		copy_arrays(fs, &fs->snap, &fs->snap);
		snapshot_store_release(fs->shared);
		fs->shared = NULL;
	}
	return &fs->snap;
}

/* The stacked bar's metrics, by name among the snapshot's (:add and :remove may move them). */
static void fill_stack(const struct app_ctx *app, struct frame *f, const struct snapshot *snap)
{
	f->nstack = app->mode.nstack;
	for (int i = 0; i < f->nstack; i++) {
		f->stack[i] = -1;
		for (int m = 0; m < snap->nmetrics; m++)
			if (strcmp(snap->metrics[m].name, app->mode.stack[i]) == 0)
				f->stack[i] = m;
	}
	copy_text(f->drill, sizeof(f->drill), app->mode.drill);
}

/* Core type per row (app_core_type). */
static void fill_core_types(struct app_ctx *app, struct frame_store *fs,
			    const struct snapshot *snap)
{
	for (int r = 0; r < snap->nrows; r++)
		fs->core_type[r] = app_core_type(app, snap->cpus[r]);
}

/* The offcore view's numbers: per bit and row (the total row last) its rate, share and age. A
 * bit measured in this sweep has its rate from the tick that counted it; the ANY bit of Atom
 * counts every request, so it has no share of them. */
__attribute__((noinline)) static void fill_offcore_bits(struct app_ctx *app, struct frame_store *fs,
							struct frame *f,
							const struct snapshot *snap)
{
	const struct session_offcore *map = &app->mode.offcore;
	int nb = map->nbits < FRAME_MAX_BITS ? map->nbits : FRAME_MAX_BITS;
	for (int b = 0; b < nb; b++) {
		/* the bit's event and share metric, by name (:add/:remove may move them) */
		int e = -1, m = -1;
		for (int k = 0; k < snap->nevents; k++)
			if (strcmp(snap->event_names[k], map->names[b]) == 0)
				e = k;
		for (int k = 0; k < snap->nmetrics; k++)
			if (strcmp(snap->metrics[k].name, map->names[b]) == 0)
				m = k;
		snprintf(fs->bit_names[b], sizeof(fs->bit_names[b]), "%s", map->names[b]);
		f->bit_names[b] = fs->bit_names[b];
		int total_age = -1;
		for (int r = 0; r <= snap->nrows; r++) {
			bool total = r == snap->nrows;
			const struct count *c = e < 0	? NULL
						: total ? &snap->total_counts[e]
							: &snap->counts[r * snap->nevents + e];
			bool ok = c && (c->state == COUNT_OK || c->state == COUNT_SCALED);
			double v = m < 0   ? NAN
				   : total ? snap->total_values[m]
					   : snap->values[r * snap->nmetrics + m];
			int age = -1;
			if (ok && !total) {
				age = (int)snap->event_age[r * snap->nevents + e];
				if (total_age < 0 || age < total_age)
					total_age = age; /* the freshest row */
			}
			double *rate = &fs->row_bit_rate[r * nb + b];
			*rate = ok && snap->interval_s > 0 ? c->value / snap->interval_s : NAN;
			fs->row_bit_share[r * nb + b] = map->superset[b] || !ok ? NAN : v / 100;
			fs->row_bit_age[r * nb + b] = total ? total_age : age;
		}
		int t = snap->nrows * nb + b;
		f->bit_rate[b] = fs->row_bit_rate[t];
		f->bit_share[b] = fs->row_bit_share[t];
		f->bit_age[b] = isnan(f->bit_rate[b]) ? -1 : total_age;
		fs->row_bit_age[t] = f->bit_age[b];
	}
	f->nbits = nb;
	f->row_bit_rate = fs->row_bit_rate;
	f->row_bit_share = fs->row_bit_share;
	f->row_bit_age = fs->row_bit_age;
}

void frame_store_cols(struct frame_store *fs, struct frame_cols *c)
{
	*c = (struct frame_cols){.stat_values = fs->stat_values,
				 .err = fs->err,
				 .err_counts = fs->err_counts,
				 .truth = fs->truth,
				 .truth_counts = fs->truth_counts,
				 .base_change = fs->base_change,
				 .base_err = fs->base_err,
				 .base_p = fs->base_p,
				 .base_p_adj = fs->base_p_adj,
				 .attrib = fs->attrib,
				 .tasks = fs->tasks,
				 .task_ptr = fs->task_ptr};
}

/* Whether @text starts with the specs of @mode's events in @used, as fill_util_source() joins
 * them (the mode may have changed since @text was built: a compare, no formatting). */
static bool built_from(const char *text, const struct session_mode *mode, unsigned long long used)
{
	const char *t = text;
	for (int e = 0; e < mode->nevents && e < 64; e++) {
		if (!(used >> e & 1))
			continue;
		if (t != text && *t++ != ' ')
			return false;
		size_t l = strlen(mode->events[e].spec);
		if (strncmp(t, mode->events[e].spec, l) != 0)
			return false;
		t += l;
	}
	return !*t || strncmp(t, " (/proc/stat, ", 14) == 0;
}

/* The offcore view's numbers, when the mode has an offcore map (its code out of line: most
 * modes have none). */
static void fill_offcore(struct app_ctx *app, struct frame_store *fs, struct frame *f,
			 const struct snapshot *snap)
{
	f->nbits = 0;
	if (app->mode.offcore.nbits > 0)
		fill_offcore_bits(app, fs, f, snap);
}

/* fill_util_source()'s text built again (the events used or their step changed): out of line. */
__attribute__((noinline, cold)) static void
util_source_build(struct app_ctx *app, struct frame_store *fs, struct frame *f,
		  const struct backend *b, unsigned long long used, uint64_t key_quantum)
{
	size_t len = 0;
	uint64_t quantum = 0;
	for (int e = 0; e < app->mode.nevents && e < 64 && len + 1 < sizeof(f->util_source); e++) {
		if (!(used >> e & 1))
			continue;
		int n = snprintf(f->util_source + len, sizeof(f->util_source) - len, "%s%s",
				 len ? " " : "", app->mode.events[e].spec);
		len += n > 0 ? (size_t)n : 0;
		for (int r = 0; b->status && e < b->nevents && r < b->nrows; r++)
			if (b->status[r * b->nevents + e].quantum_ns > quantum)
				quantum = b->status[r * b->nevents + e].quantum_ns;
	}
	if (quantum && len + 1 < sizeof(f->util_source))
		snprintf(f->util_source + len, sizeof(f->util_source) - len,
			 " (/proc/stat, %.3g ms ticks)", (double)quantum / 1e6);
	copy_text(fs->util_built, sizeof(fs->util_built), f->util_source);
	fs->util_built_used = used;
	fs->util_built_quantum = key_quantum;
	fs->util_built_ok = true;
}

/* Which events the all-CPU value of the metric "util" was computed from (a mode may offer a
 * fine source with a fallback: mperf over the TSC, else /proc/stat ticks). */
static void fill_util_source(struct app_ctx *app, struct frame_store *fs, struct frame *f,
			     const struct snapshot *s)
{
	f->util_source[0] = '\0';
	const struct backend *b = session_backend(app->session);
	if (s->program && s->program == fs->prog && s->program != fs->util_prog) {
		fs->util_m = -1;
		for (int m = 0; m < s->nmetrics && fs->util_m < 0; m++)
			if (text_eq(s->metrics[m].name, "util"))
				fs->util_m = m;
		fs->util_prog = s->program;
	}
	bool known = s->program && s->program == fs->util_prog;
	int from = !known ? 0 : fs->util_m < 0 ? s->nmetrics : fs->util_m;
	for (int m = from; s->detail && m < s->nmetrics; m++) {
		if (!known && !text_eq(s->metrics[m].name, "util"))
			continue;
		unsigned long long used = s->detail[s->nrows * s->nmetrics + m].used;
		/* the text changes with the events used and their step only: built again then */
		uint64_t key_quantum = 0;
		for (int e = 0; e < app->mode.nevents && e < 64; e++)
			for (int r = 0;
			     (used >> e & 1) && b->status && e < b->nevents && r < b->nrows; r++)
				if (b->status[r * b->nevents + e].quantum_ns > key_quantum)
					key_quantum = b->status[r * b->nevents + e].quantum_ns;
		if (fs->util_built_ok && fs->util_built_used == used &&
		    fs->util_built_quantum == key_quantum &&
		    built_from(fs->util_built, &app->mode, used)) {
			copy_text(f->util_source, sizeof(f->util_source), fs->util_built);
			break;
		}
		util_source_build(app, fs, f, b, used, key_quantum);
		break;
	}
	/* a tick where util is n/a (no /proc/stat tick landed in it) keeps the source last seen in
	 * this session: a new mode, or the same mode with other events (:remove busy idle), has its
	 * own */
	if (fs->util_mode_changes != app->mode_changes) {
		fs->util_mode_changes = app->mode_changes;
		fs->util_source[0] = '\0';
	}
	if (f->util_source[0])
		copy_text(fs->util_source, sizeof(fs->util_source), f->util_source);
	else
		copy_text(f->util_source, sizeof(f->util_source), fs->util_source);
}

/* The header's facts: source, machine, position, recorder, cadence. */
static void fill_header(struct app_ctx *app, struct frame_store *fs, struct frame *f)
{
	const struct backend *b = session_backend(app->session);
	f->source_name = app->source.ops->name;
	f->caps = app->source.ops->caps;
	f->simulated = b->simulated;
	copy_machine(&fs->machine, &app->machine);
	f->machine = &fs->machine;
	f->origin = app->opt.replay ? app->opt.replay : app->opt.remote;
	const char *desc = app->family->desc;
	if (f->simulated)
		join_text(f->pmu_line, sizeof(f->pmu_line),
			  (const char *[]){"SIMULATED ", desc, NULL});
	else if (source_has(&app->source, SOURCE_CAP_THIS_MACHINE) && app->pf.core_pmu_count == 0)
		copy_text(f->pmu_line, sizeof(f->pmu_line), "software events only");
	else if (!source_has(&app->source, SOURCE_CAP_THIS_MACHINE) && app->machine.pmu[0])
		join_text(f->pmu_line, sizeof(f->pmu_line),
			  (const char *[]){desc, " PMU (", app->machine.pmu, ")", NULL});
	else
		join_text(f->pmu_line, sizeof(f->pmu_line), (const char *[]){desc, " PMU", NULL});
	if (f->simulated)
		copy_text(f->banner, sizeof(f->banner), "SIMULATED");
	if (app->replay)
		playback_banner(app, f->banner, sizeof(f->banner));
	if (app->replay) /* a remote source's observer gives its link state instead */
		playback_status(app, f->position, sizeof(f->position));
	copy_text(f->mode, sizeof(f->mode), app->mode_name);
	copy_text(f->title, sizeof(f->title), app->mode.title);
	f->interval_ms = app->interval_ms;
	f->tick_ms = app_tick_ms(app);
	f->speed = app->speed;
	f->ticks = app->ticks;
	f->overruns = app->overruns;
	f->first_tick_pending = app->ticks <= app->mode_started_tick;
}

const struct frame *app_frame_build(struct app_ctx *app)
{
	const struct snapshot *live = app->session ? session_snapshot(app->session) : NULL;
	for (int i = 0; i < app->nobservers; i++) /* a windowing observer: its window's sums */
		if (app->observers[i]->window) {
			uint64_t closed;
			live = app->observers[i]->window(app->observers[i], &closed);
			break;
		}
	if (!live || live->seq == 0)
		return NULL;
	const struct row_key *keys = NULL;
	live = app_rows_snapshot(app, live, &keys);
	struct frame_store *fs =
	    store_for(app->frame_store, live->nrows, live->nevents, live->nmetrics);
	app->frame_store = fs;
	if (!fs)
		return NULL;
	struct frame *f = &app->frame;
	frame_clear(f);
	f->seq = ++app->frames;
	f->snap = copy_snapshot(fs, live);
	f->timestamp = f->snap ? app->start_unix_s + f->snap->time_s : NAN;
	if (keys) {
		COPY(fs->row_keys, keys, live->nrows);
		f->rows = app->rows.unit;
		f->row_keys = fs->row_keys;
	}
	fill_header(app, fs, f);
	fill_util_source(app, fs, f, f->snap);
	fill_core_types(app, fs, f->snap);
	f->core_type = fs->core_type;
	fill_offcore(app, fs, f, f->snap);
	fill_stack(app, f, f->snap);
	for (int i = 0; i < app->nobservers; i++) /* each observer's contribution */
		if (app->observers[i]->fill_frame)
			app->observers[i]->fill_frame(app->observers[i], app, f, fs);
	return f;
}

int frame_copy(struct frame *dst, struct frame_store **store, const struct frame *src)
{
	const struct snapshot *s = src->snap;
	struct frame_store *fs = store_for(*store, s->nrows, s->nevents, s->nmetrics);
	*store = fs;
	if (!fs)
		return -1;
	int r = s->nrows, m = s->nmetrics, nb = src->nbits;
	frame_assign(dst, src);
	dst->snap = copy_snapshot(fs, s);
	copy_machine(&fs->machine, src->machine);
	dst->machine = &fs->machine;
	COPY(fs->core_type, src->core_type, r); /* names that live as long as the run */
	dst->core_type = fs->core_type;
	if (src->row_keys) {
		COPY(fs->row_keys, src->row_keys, r);
		dst->row_keys = fs->row_keys;
	}
	for (int b = 0; b < nb; b++) {
		snprintf(fs->bit_names[b], sizeof(fs->bit_names[b]), "%s", src->bit_names[b]);
		dst->bit_names[b] = fs->bit_names[b];
	}
	if (nb > 0) {
		COPY(fs->row_bit_rate, src->row_bit_rate, (r + 1) * nb);
		COPY(fs->row_bit_share, src->row_bit_share, (r + 1) * nb);
		COPY(fs->row_bit_age, src->row_bit_age, (r + 1) * nb);
		dst->row_bit_rate = fs->row_bit_rate;
		dst->row_bit_share = fs->row_bit_share;
		dst->row_bit_age = fs->row_bit_age;
	}
	if (src->stat_values) {
		COPY(fs->stat_values, src->stat_values, r * m);
		dst->stat_values = fs->stat_values;
	}
	/* error bars and true figures: the total row too */
	const double *from[] = {src->err,	  src->err_counts, src->truth,	src->truth_counts,
				src->base_change, src->base_err,   src->base_p, src->base_p_adj};
	double *to[] = {fs->err,	 fs->err_counts, fs->truth,  fs->truth_counts,
			fs->base_change, fs->base_err,	 fs->base_p, fs->base_p_adj};
	const double **out[] = {&dst->err,	    &dst->err_counts,  &dst->truth,
				&dst->truth_counts, &dst->base_change, &dst->base_err,
				&dst->base_p,	    &dst->base_p_adj};
	for (int k = 0; k < 8; k++)
		if (from[k]) {
			COPY(to[k], from[k], (r + 1) * (k == 1 || k == 3 ? s->nevents : m));
			*out[k] = to[k];
		}
	if (src->nattrib > 0) {
		COPY(fs->attrib, src->attrib, r * src->nattrib);
		dst->attrib = fs->attrib;
		for (int i = 0; i < r; i++) {
			if (src->task && src->task[i])
				snprintf(fs->tasks[i], sizeof(fs->tasks[i]), "%s", src->task[i]);
			fs->task_ptr[i] = src->task && src->task[i] ? fs->tasks[i] : NULL;
		}
		dst->task = fs->task_ptr;
	}
	dst->json_extra = NULL;
	dst->text_extra = NULL;
	dst->extra_state = NULL;
	dst->ring_lost = NULL;
	dst->ring_throttled_ns = dst->ring_throttles = NULL;
	dst->counters = NULL;
	dst->guard = NULL; /* live: the lines are the frame's own */
	dst->owners = NULL;
	return 0;
}

const struct frame *app_frame_step(struct app_ctx *app)
{
	const struct frame *f = app_frame_build(app);
	if (f)
		app->frame.stepped = true;
	return f;
}

void app_frame_again(struct app_ctx *app)
{
	if (!app->display_paused)
		app_frame_step(app);
}

void app_frame_take(struct app_ctx *app, struct frame *dst, struct frame_store **store)
{
	struct frame_store *mine = *store, *built = app->frame_store;
	frame_assign(dst, &app->frame); /* it points into the store that changes hands */
	dst->json_extra = NULL;
	dst->text_extra = NULL;
	dst->extra_state = NULL;
	dst->ring_lost = NULL;
	dst->ring_throttled_ns = dst->ring_throttles = NULL;
	dst->counters = NULL;
	dst->guard = NULL; /* live: the lines are the frame's own */
	dst->owners = NULL;
	if (mine) { /* what the next frame remembers of this one */
		copy_text(mine->util_source, sizeof(mine->util_source), built->util_source);
		mine->util_mode_changes = built->util_mode_changes;
	}
	*store = built;
	app->frame_store = mine; /* the next frame is built there (grown when too small) */
}
