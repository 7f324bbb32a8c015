/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manpage.c: fills a man-page template with the option, command, setting and key tables. */
#include "manpage.h"
#include "command.h"
#include "keys.h"
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#define TEMPLATE_LINE_MAX 4096 /* bytes; the templates are ours, a longer line is an error */

void manpage_text(FILE *out, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else if (*s == '\n')
			fputs(" ", out);
		else
			fputc(*s, out);
	}
}

static void paragraph(FILE *out, const char *tag, const char *body, const char *alias)
{
	fputs(".TP\n.B ", out);
	manpage_text(out, tag);
	fputc('\n', out);
	manpage_text(out, body);
	if (alias) {
		fputs(" (alias ", out);
		manpage_text(out, alias);
		fputc(')', out);
	}
	fputc('\n', out);
}

static void write_commands(FILE *out, bool screen)
{
	const struct command *c;
	for (size_t i = 0; (c = command_at(i)); i++)
		if (!(c->flags & COMMAND_SCREEN) == !screen)
			paragraph(out, c->usage, c->help, c->alias);
}

static void write_settings(FILE *out, enum options_program prog)
{
	const struct option_def *s;
	for (size_t i = 0; (s = command_setting_at(i)); i++)
		if (prog != OPTIONS_AGENT || !(s->flags & OPTION_SCREEN))
			paragraph(out, s->name, s->set_help ? s->set_help : s->help, NULL);
}

static int write_keys(FILE *out)
{
	struct keymap km;
	char name[32];
	if (keys_map_init(&km) < 0)
		return -1;
	for (size_t i = 0; i < km.n; i++)
		paragraph(out, keys_name(km.v[i].key, name, sizeof(name)), km.v[i].command, NULL);
	keys_map_free(&km);
	/* not bindings: Esc leaves a text view or the command line */
	paragraph(out, "esc", KEYS_ESC_HELP, NULL);
	fprintf(out, ".PP\nA replay adds:\n");
	const char *key, *command;
	for (size_t i = 0; keys_replay_at(i, &key, &command) == 0; i++)
		paragraph(out, key, command, NULL);
	return 0;
}

/* Writes @line with every @VERSION@ replaced. */
static void write_line(FILE *out, const char *line)
{
	static const char tag[] = "@VERSION@";
	for (const char *p; (p = strstr(line, tag)); line = p + sizeof(tag) - 1) {
		fwrite(line, 1, (size_t)(p - line), out);
		fputs(PMUTOP_VERSION, out);
	}
	fputs(line, out);
}

int manpage_write(FILE *out, const char *path, enum options_program prog, char *err, size_t errlen)
{
	FILE *in = fopen(path, "r");
	char line[TEMPLATE_LINE_MAX];
	int lineno = 0, rc = 0;

	if (!in) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), in)) {
		lineno++;
		size_t len = strlen(line);
		if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
			snprintf(err, errlen, "%s:%d: line longer than %d bytes", path, lineno,
				 TEMPLATE_LINE_MAX - 2);
			rc = -1;
		} else if (strcmp(line, "@OPTIONS@\n") == 0)
			options_roff(out, prog);
		else if (strcmp(line, "@COMMANDS@\n") == 0)
			write_commands(out, false);
		else if (strcmp(line, "@SCREEN_COMMANDS@\n") == 0)
			write_commands(out, true);
		else if (strcmp(line, "@SETTINGS@\n") == 0)
			write_settings(out, prog);
		else if (strcmp(line, "@KEYS@\n") == 0) {
			if (write_keys(out) < 0) {
				snprintf(err, errlen, "out of memory");
				rc = -1;
			}
		} else
			write_line(out, line);
	}
	if (rc == 0 && ferror(in)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		rc = -1;
	}
	fclose(in);
	if (rc == 0 && (fflush(out) != 0 || ferror(out))) {
		snprintf(err, errlen, "writing the manual page: %s", strerror(errno));
		rc = -1;
	}
	return rc;
}
