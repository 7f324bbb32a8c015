/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_complete.c: tokenizer-based completion: unique, common prefix, several, argument kinds. */
#include "complete.h"
#include "harness.h"
#include "ui.h"
#include <stdlib.h>
#include <unistd.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The lead's live data, faked: modes, options, events, metrics. */
static void kinds(void *user, enum command_arg kind, struct complete_list *out)
{
	(void)user;
	static const char *const modes[] = {"cpi", "cache", "dtlb", "itlb", "branch"};
	static const char *const options[] = {"interval", "units", "scale"};
	static const char *const events[] = {"cycles", "instructions", "task-clock"};
	const char *const *v = NULL;
	size_t n = 0;

	if (kind == ARG_MODE)
		v = modes, n = N(modes);
	else if (kind == ARG_OPTION)
		v = options, n = N(options);
	else if (kind == ARG_EVENT)
		v = events, n = N(events);
	for (size_t i = 0; i < n; i++)
		complete_list_add(out, v[i]);
}

/* "line|rest": cursor at '|'. */
static const struct {
	int line;
	const char *before;
	enum complete_status status;
	const char *after;
	const char *matches; /* space-separated */
	int word;
} cases[] = {
    {__LINE__, "mo|", COMPLETE_UNIQUE, "mode |", "", 0},
    /* file arguments: paths (from tests/), a directory without the trailing space */
    {__LINE__, "perf-events fixtures/pmu-ev|", COMPLETE_UNIQUE, "perf-events fixtures/pmu-events/|",
     "", 1},
    {__LINE__, "perf-events fixtures/pmu-events/arch/|", COMPLETE_SEVERAL,
     "perf-events fixtures/pmu-events/arch/|",
     "fixtures/pmu-events/arch/arm64/ fixtures/pmu-events/arch/x86/", 1},
    {__LINE__, "perf-events fixtures/pmu-events/arch/x86/map|", COMPLETE_UNIQUE,
     "perf-events fixtures/pmu-events/arch/x86/mapfile.csv |", "", 1},
    {__LINE__, "mode c|", COMPLETE_SEVERAL, "mode c|", "cache cpi", 1},
    {__LINE__, "mode ca|", COMPLETE_UNIQUE, "mode cache |", "", 1},
    {__LINE__, "mode |", COMPLETE_SEVERAL, "mode |", "branch cache cpi dtlb itlb next prev", 1},
    {__LINE__, "mode x|", COMPLETE_NONE, "mode x|", "", 1},
    {__LINE__, "mode cpi |", COMPLETE_NONE, "mode cpi |", "", 2}, /* max one argument */
    {__LINE__, "re|", COMPLETE_SEVERAL, "re|", "record redraw refresh remove resume", 0},
    {__LINE__, "res|", COMPLETE_UNIQUE, "resume |", "", 0},
    {__LINE__, "ref|", COMPLETE_UNIQUE, "refresh |", "", 0},
    {__LINE__, "se|", COMPLETE_SEVERAL, "se|", "select set", 0},
    {__LINE__, "sp|", COMPLETE_UNIQUE, "spark |", "", 0},
    {__LINE__, "to|", COMPLETE_UNIQUE, "toggle-pause |", "", 0},
    {__LINE__, "add |", COMPLETE_SEVERAL, "add |", "cycles instructions task-clock", 1},
    {__LINE__, "add cycles i|", COMPLETE_UNIQUE, "add cycles instructions |", "", 2},
    {__LINE__, "set |", COMPLETE_SEVERAL, "set |", "interval scale units", 1},
    {__LINE__, "set i| 100", COMPLETE_UNIQUE, "set interval |100", "", 1},
    {__LINE__, "set interval |", COMPLETE_NONE, "set interval |", "", 2},
    {__LINE__, "theme hi|", COMPLETE_UNIQUE, "theme high-contrast |", "", 1},
    {__LINE__, "theme l|", COMPLETE_UNIQUE, "theme light |", "", 1},
    {__LINE__, "th m|", COMPLETE_UNIQUE, "th mono |", "", 1}, /* prefix of the command */
    {__LINE__, "theme |", COMPLETE_SEVERAL, "theme |", "default high-contrast light mono next prev",
     1},
    {__LINE__, "help th|", COMPLETE_UNIQUE, "help theme |", "", 1},
    {__LINE__, "bind F1|", COMPLETE_SEVERAL, "bind F1|", "F1 F10 F11 F12", 1},
    {__LINE__, "bind x mo|", COMPLETE_UNIQUE, "bind x mode |", "", 2},
    {__LINE__, "bind x mode |", COMPLETE_NONE, "bind x mode |", "", 3},
    {__LINE__, "probe |", COMPLETE_UNIQUE, "probe cache |", "", 1},
    {__LINE__, "ro|", COMPLETE_UNIQUE, "rows |", "", 0},
    {__LINE__, "rows c|", COMPLETE_SEVERAL, "rows c|", "cache cluster core cpu", 1},
    {__LINE__, "rows s|", COMPLETE_UNIQUE, "rows socket |", "", 1},
    {__LINE__, "rows socket |", COMPLETE_NONE, "rows socket |", "", 2}, /* one unit */
    {__LINE__, "offcore 1|", COMPLETE_SEVERAL, "offcore 1|", "1 10 11 12 13 14 15", 1},
    {__LINE__, "|", COMPLETE_SEVERAL, "|", NULL, 0},
    {__LINE__, "|mode", COMPLETE_SEVERAL, "|mode", NULL, 0},
    {__LINE__, "m| cpi", COMPLETE_SEVERAL, "m| cpi", "mark messages mode", 0},
    {__LINE__, "mode|", COMPLETE_UNIQUE, "mode |", "", 0},
    {__LINE__, "mode \"c|", COMPLETE_NONE, "mode \"c|", "", 0}, /* open quote */
    {__LINE__, "frob |", COMPLETE_NONE, "frob |", "", 1},
    {__LINE__, "p|", COMPLETE_SEVERAL, "p|", "pause perf-events probe", 0},
    {__LINE__, "  q|", COMPLETE_UNIQUE, "  quit |", "", 0},
    /* a ';' ends a statement, as the command line runs it (command_split): the word after it
     * is a command again */
    {__LINE__, "pause; mo|", COMPLETE_UNIQUE, "pause; mode |", "", 0},
    {__LINE__, "pause;mo|", COMPLETE_UNIQUE, "pause;mode |", "", 0},
    {__LINE__, "pause ; mode c|", COMPLETE_SEVERAL, "pause ; mode c|", "cache cpi", 1},
    {__LINE__, "pause;|", COMPLETE_SEVERAL, "pause;|", NULL, 0},
    {__LINE__, "mode cpi; set |", COMPLETE_SEVERAL, "mode cpi; set |", "interval scale units", 1},
    {__LINE__, "mode 'c;|", COMPLETE_NONE, "mode 'c;|", "", 0}, /* quoted: no statement ends */
    /* a setting's values come from its row in the option table */
    {__LINE__, "set stat m|", COMPLETE_SEVERAL, "set stat m|", "max median min", 2},
    {__LINE__, "set running o|", COMPLETE_SEVERAL, "set running o|", "off on", 2},
    {__LINE__, "set theme mo|", COMPLETE_UNIQUE, "set theme mono |", "", 2},
    {__LINE__, "set mode ca|", COMPLETE_UNIQUE, "set mode cache |", "", 2},
    {__LINE__, "set cpus |", COMPLETE_NONE, "set cpus |", "", 2},
};

/* The tests for a common prefix: candidates sharing more than the typed text. */
static void fixed(void *user, int word, int argc, const char *const *argv,
		  struct complete_list *out)
{
	(void)user, (void)argc, (void)argv;
	if (word == 1) {
		complete_list_add(out, "instructions");
		complete_list_add(out, "instr_retired");
		complete_list_add(out, "my event");
	}
}

int main(void)
{
	struct complete_kinds k = {kinds, NULL};
	char dir[] = "/tmp/pmutop-complete-XXXXXX";

	if (!mkdtemp(dir))
		return 1;
	ui_add_commands();		   /* the screen's commands complete too */
	setenv("XDG_CONFIG_HOME", dir, 1); /* only the built-in themes */
	setenv("PMUTOP_DATADIR", "/nonexistent", 1);
	for (size_t i = 0; i < N(cases); i++) {
		char line[128], got[160], m[512] = "";
		const char *bar = strchr(cases[i].before, '|');
		size_t cur = (size_t)(bar - cases[i].before);
		struct complete_result r;
		snprintf(line, sizeof(line), "%.*s%s", (int)cur, cases[i].before, bar + 1);
		CHECK_INT(complete_line(line, cur, complete_commands, &k, &r), 0);
		snprintf(got, sizeof(got), "%.*s|%s", (int)r.cursor, r.line, r.line + r.cursor);
		for (size_t j = 0; j < r.matches.n; j++)
			snprintf(m + strlen(m), sizeof(m) - strlen(m), "%s%s", j ? " " : "",
				 r.matches.v[j]);
		CHECK(r.status == cases[i].status, "line %d: status %d", cases[i].line, r.status);
		CHECK(strcmp(got, cases[i].after) == 0, "line %d: got '%s'", cases[i].line, got);
		if (cases[i].matches)
			CHECK(strcmp(m, cases[i].matches) == 0, "line %d: matches '%s'",
			      cases[i].line, m);
		if (cases[i].status != COMPLETE_NONE)
			CHECK(r.word == cases[i].word, "line %d: word %d", cases[i].line, r.word);
		complete_result_free(&r);
	}
	/* longest common prefix, and quoting of a completed word with a blank */
	struct complete_result r;
	CHECK_INT(complete_line("add ins", 7, fixed, NULL, &r), 0);
	CHECK(r.status == COMPLETE_PARTIAL && strcmp(r.line, "add instr") == 0 && r.cursor == 9 &&
		  r.matches.n == 2,
	      "common prefix: %s", r.line);
	complete_result_free(&r);
	CHECK_INT(complete_line("add m", 5, fixed, NULL, &r), 0);
	CHECK(r.status == COMPLETE_UNIQUE && strcmp(r.line, "add my\\ event ") == 0, "quoted: %s",
	      r.line);
	complete_result_free(&r);
	CHECK_INT(complete_line("add \"in", 7, fixed, NULL, &r), 0);
	CHECK_INT(r.status, COMPLETE_NONE);
	complete_result_free(&r);
	rmdir(dir);
	return harness_done();
}
