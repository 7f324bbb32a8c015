/* command.c: the command table, quoting-aware word splitter, prefix lookup, scripts, help. */
#include "command.h"
#include "keys.h"
#include "textutil.h"
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V COMMAND_VARIADIC

/* Not const: command_set_handler() fills in the handlers. */
static struct command table[] = {
	{.name = "mode", .usage = "mode NAME|next|prev", .min_args = 1, .max_args = 1,
	 .args = {ARG_MODE}, .help = "switch to event mode NAME, or the next/previous mode"},
	{.name = "interval", .usage = "interval MS|+|-", .min_args = 1, .max_args = 1,
	 .args = {ARG_NUMBER}, .help = "set the measurement interval in milliseconds; + and - step it"},
	{.name = "cpus", .usage = "cpus LIST|all", .min_args = 1, .max_args = 1,
	 .args = {ARG_CPUS}, .help = "show only the CPUs in LIST (\"0-3,8\")"},
	{.name = "sort", .usage = "sort COLUMN|next|prev", .min_args = 1, .max_args = 1,
	 .args = {ARG_COLUMN}, .help = "sort the table by COLUMN (again: reverse the order)"},
	{.name = "spark", .usage = "spark METRIC|off", .min_args = 1, .max_args = 1,
	 .args = {ARG_METRIC}, .help = "show a sparkline of METRIC's history per CPU"},
	{.name = "pause", .usage = "pause", .help = "freeze the display (counting goes on)"},
	{.name = "resume", .usage = "resume", .help = "resume updating the display"},
	{.name = "toggle-pause", .usage = "toggle-pause", .help = "pause, or resume when paused"},
	{.name = "theme", .usage = "theme NAME|next|prev", .min_args = 1, .max_args = 1,
	 .args = {ARG_THEME}, .help = "switch the colour theme"},
	{.name = "offcore", .usage = "offcore [BIT...]", .min_args = 0, .max_args = V,
	 .args = {ARG_OFFCORE_BIT}, .help = "offcore request breakdown by request-type bits (0-15)"},
	{.name = "add", .usage = "add EVENT...", .min_args = 1, .max_args = V, .args = {ARG_EVENT},
	 .help = "add events to the current mode"},
	{.name = "remove", .usage = "remove EVENT...", .min_args = 1, .max_args = V,
	 .args = {ARG_EVENT}, .help = "remove events from the current mode"},
	{.name = "define", .usage = "define NAME EVENTS METRICS", .min_args = 3, .max_args = 3,
	 .args = {ARG_TEXT, ARG_EVENT, ARG_TEXT},
	 .help = "define mode NAME: EVENTS a=EV,b=EV; METRICS name=FORMULA,..."},
	{.name = "set", .usage = "set OPTION VALUE", .min_args = 2, .max_args = 2,
	 .args = {ARG_OPTION, ARG_VALUE}, .help = "set an option"},
	{.name = "show", .usage = "show [OPTION]", .min_args = 0, .max_args = 1,
	 .args = {ARG_OPTION}, .help = "show one option, or all"},
	{.name = "bind", .usage = "bind KEY COMMAND...", .min_args = 2, .max_args = V,
	 .args = {ARG_KEY, ARG_COMMAND, ARG_NONE},
	 .help = "bind KEY (q, space, C-l, F1, up, ...) to COMMAND; 'none' unbinds"},
	{.name = "messages", .usage = "messages", .help = "show the message log"},
	{.name = "help", .alias = "?", .usage = "help [COMMAND]", .min_args = 0, .max_args = 1,
	 .args = {ARG_COMMAND}, .help = "show help, for all commands or one"},
	{.name = "quit", .alias = "q", .usage = "quit", .help = "leave pmutop"},
	{.name = "record", .usage = "record FILE", .min_args = 1, .max_args = 1,
	 .args = {ARG_FILE}, .help = "record every sample to FILE"},
	{.name = "stop", .usage = "stop", .help = "stop recording"},
	{.name = "mark", .usage = "mark TEXT...", .min_args = 1, .max_args = V, .args = {ARG_TEXT},
	 .help = "put a marker with TEXT into the recording and history"},
	{.name = "tick", .usage = "tick [N]", .min_args = 0, .max_args = 1, .args = {ARG_NUMBER},
	 .help = "replay: show the next tick (N ticks; negative steps back)"},
	{.name = "jump", .usage = "jump SECONDS|+S|-S|start|end|mark [TEXT]", .min_args = 1,
	 .max_args = V, .args = {ARG_TEXT},
	 .help = "replay: go to a time, relative time, the start or end, or the next mark (with TEXT)"},
	{.name = "rate", .usage = "rate X|+|-", .min_args = 1, .max_args = 1, .args = {ARG_NUMBER},
	 .help = "replay: play at X times the recorded pace (0.5 to 16)"},
	{.name = "probe", .usage = "probe cache [full|stop]", .min_args = 1, .max_args = 2,
	 .args = {ARG_PROBE, ARG_TEXT},
	 .help = "measure cache sizes, line size and TLB reach by timing (quick; 'full' to 64M)"},
	{.name = "sample", .usage = "sample MS", .min_args = 1, .max_args = 1,
	 .args = {ARG_NUMBER}, .help = "read the counters every MS milliseconds (jitter history)"},
	{.name = "refresh", .usage = "refresh MS", .min_args = 1, .max_args = 1,
	 .args = {ARG_NUMBER}, .help = "redraw the screen every MS milliseconds"},
	{.name = "alert", .usage = "alert RULE...", .min_args = 1, .max_args = V,
	 .args = {ARG_RULE}, .help = "spike rule RULE (cpi > 2 on 1-3, mad ipc 6), list or clear"},
	{.name = "export", .usage = "export spikes FILE", .min_args = 2, .max_args = 2,
	 .args = {ARG_TEXT, ARG_FILE}, .help = "write the spike log to FILE (CSV, or JSON Lines for .jsonl)"},
	{.name = "freeze", .usage = "freeze [on|off]", .min_args = 0, .max_args = 1, .args = {ARG_VALUE},
	 .help = "freeze the view and write the flight recording around now; again to follow"},
	{.name = "view", .usage = "view NAME", .min_args = 1, .max_args = 1, .args = {ARG_VIEW},
	 .help = "switch view (table, offcore, spikes, messages, help)"},
	{.name = "select", .usage = "select up|down|pgup|pgdn|top|bottom|CPU", .min_args = 1,
	 .max_args = 1, .args = {ARG_SELECT}, .help = "move the row selection"},
	{.name = "redraw", .usage = "redraw", .help = "repaint the whole screen"},
	{.name = "command-line", .usage = "command-line", .help = "open the : prompt"},
	{.name = NULL},
};

#undef V

const struct command *const command_table = table;
static command_fn fallback;

#define FOR_EACH_COMMAND(c) for (struct command *c = table; c->name; c++)

int command_set_handler(const char *name, command_fn fn)
{
	FOR_EACH_COMMAND(c)
	if (strcmp(c->name, name) == 0) {
		c->handler = fn;
		return 0;
	}
	return -1;
}

void command_set_fallback(command_fn fn) { fallback = fn; }


int command_distance(const char *a, const char *b)
{
	return text_distance(a, b, 0);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const struct command *command_find(const char *word, char *err, size_t errlen)
{
	const char *matches[sizeof(table) / sizeof(table[0])];
	size_t n = 0, len = strlen(word), o;
	char esc[128];
	const char *best = NULL;
	int bestd = 1 << 30;

	FOR_EACH_COMMAND(c)
	if (strcmp(c->name, word) == 0 || (c->alias && strcmp(c->alias, word) == 0))
		return c;
	FOR_EACH_COMMAND(c)
	if (len && strncmp(c->name, word, len) == 0)
		matches[n++] = c->name;
	if (n == 1)
		return command_find(matches[0], err, errlen);
	text_escape(word, TEXT_NUL_TERMINATED, esc, sizeof(esc));
	if (n > 1) {
		qsort(matches, n, sizeof(matches[0]), cmp_str);
		o = (size_t)snprintf(err, errlen, "ambiguous command '%s':", esc);
		for (size_t i = 0; i < n && o < errlen; i++)
			o += (size_t)snprintf(err + o, errlen - o, "%s %s", i ? "," : "", matches[i]);
		return NULL;
	}
	FOR_EACH_COMMAND(c)
	{
		int d = command_distance(word, c->name);
		if (d < bestd)
			bestd = d, best = c->name;
	}
	if (best && len > 1 && (bestd <= 2 || (size_t)bestd * 2 <= len) && (size_t)bestd < len)
		snprintf(err, errlen, "unknown command '%s' (did you mean '%s'?)", esc, best);
	else
		snprintf(err, errlen, "unknown command '%s' (type 'help' for the list)", esc);
	return NULL;
}

/* A growing list of words; sep[i] marks an unquoted ';'. */
struct words {
	char **v;
	bool *sep;
	int n, cap;
};

static int words_push(struct words *w, char *s, bool sep)
{
	if (w->n + 2 > w->cap) {
		int cap = w->cap ? w->cap * 2 : 8;
		char **v = realloc(w->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		w->v = v;
		bool *sp = realloc(w->sep, (size_t)cap * sizeof(*sp));
		if (!sp)
			return -1;
		w->sep = sp;
		w->cap = cap;
	}
	w->sep[w->n] = sep;
	w->v[w->n++] = s;
	w->v[w->n] = NULL;
	return 0;
}

static void words_free(struct words *w)
{
	for (int i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	free(w->sep);
	memset(w, 0, sizeof(*w));
}

static int split(const char *line, struct words *w, char *err, size_t errlen)
{
	size_t len = strlen(line), o = 0;
	char *cur = malloc(len + 1), quote = 0;
	bool inword = false;

	memset(w, 0, sizeof(*w));
	if (!cur || words_push(w, NULL, false) < 0)
		goto oom;
	w->n = 0;
	for (const char *p = line;; p++) {
		char ch = *p;
		if (quote) {
			if (!ch) {
				snprintf(err, errlen, "unterminated %s quote",
					 quote == '"' ? "double" : "single");
				goto fail;
			}
			if (ch == quote) {
				quote = 0;
			} else if (ch == '\\' && quote == '"' && p[1]) {
				cur[o++] = *++p;
			} else {
				cur[o++] = ch;
			}
			continue;
		}
		if (!ch || ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == ';' ||
		    (ch == '#' && !inword)) {
			if (inword) {
				cur[o] = '\0';
				char *s = strdup(cur);
				if (!s || words_push(w, s, false) < 0) {
					free(s);
					goto oom;
				}
				o = 0;
				inword = false;
			}
			if (ch == ';') {
				char *s = strdup(";");
				if (!s || words_push(w, s, true) < 0) {
					free(s);
					goto oom;
				}
			}
			if (!ch || ch == '#')
				break;
			continue;
		}
		inword = true;
		if (ch == '"' || ch == '\'') {
			quote = ch;
		} else if (ch == '\\') {
			if (!p[1]) {
				snprintf(err, errlen, "backslash at the end of the line");
				goto fail;
			}
			cur[o++] = *++p;
		} else {
			cur[o++] = ch;
		}
	}
	free(cur);
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	free(cur);
	words_free(w);
	return -1;
}

int command_split(const char *line, int *argc, char ***argv, char *err, size_t errlen)
{
	struct words w;

	if (split(line, &w, err, errlen) < 0)
		return -1;
	free(w.sep);
	*argc = w.n;
	*argv = w.v;
	return 0;
}

void command_free_words(int argc, char **argv)
{
	if (!argv)
		return;
	for (int i = 0; argc < 0 ? argv[i] != NULL : i < argc; i++)
		free(argv[i]);
	free(argv);
}

char *command_join(int argc, char *const *argv)
{
	size_t len = 1;
	char *out, *o;

	for (int i = 0; i < argc; i++)
		len += 2 * strlen(argv[i]) + 3;
	if (!(o = out = malloc(len)))
		return NULL;
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		if (i)
			*o++ = ' ';
		if (*s && !strpbrk(s, " \t\n\r\"'\\#;")) {
			o = stpcpy(o, s);
		} else if (!strchr(s, '\'')) {
			*o++ = '\'';
			o = stpcpy(o, s);
			*o++ = '\'';
		} else {
			*o++ = '"';
			for (; *s; s++) {
				if (*s == '"' || *s == '\\')
					*o++ = '\\';
				*o++ = *s;
			}
			*o++ = '"';
		}
	}
	*o = '\0';
	return out;
}

/* Looks up and checks one statement; argv[0] becomes the full name. */
static const struct command *resolve(int argc, char **argv, char *err, size_t errlen)
{
	const struct command *c = command_find(argv[0], err, errlen);
	char *name;

	if (!c)
		return NULL;
	if (argc - 1 < c->min_args || (c->max_args >= 0 && argc - 1 > c->max_args)) {
		snprintf(err, errlen, "usage: %s", c->usage);
		return NULL;
	}
	if (strcmp(argv[0], c->name) != 0) {
		if (!(name = strdup(c->name))) {
			snprintf(err, errlen, "out of memory");
			return NULL;
		}
		free(argv[0]);
		argv[0] = name;
	}
	return c;
}

/* Runs (or with ctx == NULL and check set, only checks) each statement of @line. */
static int run_line(struct app_ctx *ctx, const char *line, bool check, char *err, size_t errlen)
{
	struct words w;
	int rc = 0, start = 0;

	if (split(line, &w, err, errlen) < 0)
		return -1;
	for (int i = 0; i <= w.n && rc == 0; i++) {
		if (i < w.n && !w.sep[i])
			continue;
		int argc = i - start;
		char **argv = w.v + start, *saved = argc > 0 ? argv[argc] : NULL;
		if (argc > 0) {
			argv[argc] = NULL; /* handlers see a NULL-terminated statement */
			const struct command *c = resolve(argc, argv, err, errlen);
			command_fn fn = c ? (c->handler ? c->handler : fallback) : NULL;
			if (!c) {
				rc = -1;
			} else if (!check && !fn) {
				snprintf(err, errlen, "command '%s' is not available", c->name);
				rc = -1;
			} else if (!check && fn(ctx, argc, argv, err, errlen) < 0) {
				rc = -1;
			}
			argv[argc] = saved;
		}
		start = i + 1;
	}
	words_free(&w);
	return rc;
}

int command_check(const char *line, char *err, size_t errlen)
{
	return run_line(NULL, line, true, err, errlen);
}

int command_execute(struct app_ctx *ctx, const char *line, char *err, size_t errlen)
{
	return run_line(ctx, line, false, err, errlen);
}

void command_errors_free(struct command_errors *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->msgs[i]);
	free(e->msgs);
	e->msgs = NULL;
	e->n = 0;
}

static void add_error(struct command_errors *e, const char *name, int line, const char *msg)
{
	char buf[1024], **v;

	if (line > 0)
		snprintf(buf, sizeof(buf), "%s:%d: %s", name, line, msg);
	else
		snprintf(buf, sizeof(buf), "%s: %s", name, msg);
	if (!(v = realloc(e->msgs, (e->n + 1) * sizeof(*v))))
		return;
	e->msgs = v;
	if ((v[e->n] = strdup(buf)))
		e->n++;
}

int command_run_text(struct app_ctx *ctx, const char *text, const char *name,
		     struct command_errors *errs)
{
	char *copy = strdup(text), *save, err[512];
	int lineno = 0, nerr = 0;

	if (!copy) {
		add_error(errs, name, 0, "out of memory");
		return 1;
	}
	for (char *p = copy; p; p = save) {
		save = strchr(p, '\n');
		if (save)
			*save++ = '\0';
		lineno++;
		err[0] = '\0';
		if (command_execute(ctx, p, err, sizeof(err)) < 0) {
			add_error(errs, name, lineno, err);
			nerr++;
		}
	}
	free(copy);
	return nerr;
}

int command_run_file(struct app_ctx *ctx, const char *path, struct command_errors *errs)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, n;
	int rc;

	if (!f) {
		add_error(errs, path, 0, strerror(errno));
		return -1;
	}
	buf = malloc(1 << 20);
	n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
	fclose(f);
	if (!buf) {
		add_error(errs, path, 0, "out of memory");
		return -1;
	}
	buf[n] = '\0';
	len = strlen(buf);
	if (len < n)
		add_error(errs, path, 0, "contains a NUL byte; the rest is ignored");
	rc = command_run_text(ctx, buf, path, errs);
	free(buf);
	return rc + (len < n);
}

static int push_line(char ***lines, size_t *n, const char *s)
{
	char **v = realloc(*lines, (*n + 2) * sizeof(*v));

	if (!v)
		return -1;
	*lines = v;
	if (!(v[*n] = strdup(s)))
		return -1;
	v[++*n] = NULL;
	return 0;
}

char **command_help_lines(const struct keymap *km)
{
	char **lines = NULL, buf[256], key[32];
	size_t n = 0;
	int rc = 0;

	rc |= push_line(&lines, &n, "Commands (type ':' first; a unique prefix is enough):");
	FOR_EACH_COMMAND(c)
	{
		int o = snprintf(buf, sizeof(buf), "  %-34s %s", c->usage, c->help);
		if (c->alias && o > 0 && (size_t)o < sizeof(buf))
			snprintf(buf + o, sizeof(buf) - (size_t)o, " (alias %s)", c->alias);
		rc |= push_line(&lines, &n, buf);
	}
	if (km) {
		rc |= push_line(&lines, &n, "");
		rc |= push_line(&lines, &n, "Keys:");
		for (size_t i = 0; i < km->n; i++) {
			snprintf(buf, sizeof(buf), "  %-10s %s",
				 keys_name(km->v[i].key, key, sizeof(key)), km->v[i].command);
			rc |= push_line(&lines, &n, buf);
		}
	}
	if (rc) {
		command_free_words(-1, lines);
		return NULL;
	}
	return lines;
}

static const char *const kind_names[ARG_KIND_COUNT] = {
	[ARG_NONE] = "", [ARG_COMMAND] = "command", [ARG_MODE] = "mode",
	[ARG_NUMBER] = "number", [ARG_CPUS] = "CPU list", [ARG_COLUMN] = "column",
	[ARG_METRIC] = "metric", [ARG_THEME] = "theme", [ARG_OFFCORE_BIT] = "offcore bit",
	[ARG_EVENT] = "event", [ARG_OPTION] = "option", [ARG_VALUE] = "value",
	[ARG_KEY] = "key", [ARG_FILE] = "file", [ARG_TEXT] = "text", [ARG_VIEW] = "view",
	[ARG_PROBE] = "probe", [ARG_RULE] = "rule", [ARG_SELECT] = "row",
};

char **command_help_for(const char *name, char *err, size_t errlen)
{
	const struct command *c = command_find(name, err, errlen);
	char **lines = NULL, buf[256];
	size_t n = 0;
	int rc = 0;

	if (!c)
		return NULL;
	snprintf(buf, sizeof(buf), "usage: %s", c->usage);
	rc |= push_line(&lines, &n, buf);
	rc |= push_line(&lines, &n, c->help);
	if (c->alias) {
		snprintf(buf, sizeof(buf), "alias: %s", c->alias);
		rc |= push_line(&lines, &n, buf);
	}
	if (c->max_args != 0 && c->args[0] != ARG_NONE) {
		size_t o = (size_t)snprintf(buf, sizeof(buf), "arguments:");
		for (int i = 0; i < COMMAND_ARGS_MAX && c->args[i] != ARG_NONE; i++)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, " %s", kind_names[c->args[i]]);
		rc |= push_line(&lines, &n, buf);
	}
	if (rc) {
		command_free_words(-1, lines);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return lines;
}
