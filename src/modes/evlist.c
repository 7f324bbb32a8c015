/* SPDX-License-Identifier: GPL-2.0-or-later */
/* evlist.c: one tokenizer for every event list (-e, :add, define, mode files), perf's syntax. */
#include "evlist.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int fail(int *errcol, int col, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail(int *errcol, int col, char *err, size_t errlen, const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "column %d: %s", col, msg);
	if (errcol)
		*errcol = col;
	return -1;
}

void evlist_alias(const char *spec, char *alias, size_t len)
{
	const char *p = strstr(spec, "::");
	p = p ? p + 2 : spec;
	size_t k = 0;
	for (; *p && k + 1 < len; p++) {
		char c = *p;
		if (c == '/' && p[1] == '\0')
			break; /* "msr/tsc/" -> "msr_tsc" */
		alias[k++] = (char)(isalnum((unsigned char)c) ? c : '_');
	}
	alias[k] = '\0';
	if (k && isdigit((unsigned char)alias[0])) { /* names start with a letter */
		if (k + 1 >= len)
			alias[--k] = '\0'; /* room for the letter */
		memmove(alias + 1, alias, k + 1);
		alias[0] = 'e';
	}
}

/* Length of a leading "name=" or "name?=" (identifier, then '='), else 0. */
static size_t name_prefix(const char *s, bool *optional)
{
	size_t i = 0;
	if (!isalpha((unsigned char)s[0]) && s[0] != '_')
		return 0;
	while (isalnum((unsigned char)s[i]) || s[i] == '_')
		i++;
	size_t end = i;
	*optional = s[i] == '?';
	if (*optional)
		i++;
	while (s[i] == ' ')
		i++;
	if (s[i] != '=' || end >= EVLIST_NAME_MAX)
		return 0;
	return i + 1;
}

/* Moves a name=... term out of PMU/terms/ into @it->name. */
static int take_name_term(struct evlist_item *it, int *errcol, char *err, size_t errlen)
{
	char *open = strchr(it->spec, '/');
	char *close = open ? strchr(open + 1, '/') : NULL;
	if (!close)
		return 0;
	for (char *t = open + 1; t < close;) {
		char *next = t + strcspn(t, ",/");
		if (strncmp(t, "name=", 5) == 0) {
			int col = it->column + (int)(t - it->spec);
			size_t nlen = (size_t)(next - t - 5);
			if (nlen == 0)
				return fail(errcol, col + 5, err, errlen, "empty name= term");
			char raw[EVLIST_NAME_MAX];
			snprintf(raw, sizeof(raw), "%.*s", (int)nlen, t + 5);
			if (!it->name[0])
				evlist_alias(raw, it->name, sizeof(it->name));
			/* drop the term and the comma that joins it to its neighbour */
			char *from = *next == ',' ? next + 1 : next;
			char *to = (t > open + 1 && *next != ',') ? t - 1 : t;
			memmove(to, from, strlen(from) + 1);
			close = strchr(open + 1, '/');
			t = to;
			if (!close)
				break;
			continue;
		}
		t = *next == ',' ? next + 1 : next;
		if (*next == '/')
			break;
	}
	return 0;
}

/* Appends group modifiers "u" / "uk" to a member in the member's own syntax. */
static int add_modifiers(struct evlist_item *it, const char *mods, size_t mlen)
{
	size_t u = strlen(it->spec);
	bool sysfs = u && it->spec[u - 1] == '/';
	int n = snprintf(it->spec + u, sizeof(it->spec) - u, "%s%.*s", sysfs ? "" : ":", (int)mlen,
			 mods);
	return n < 0 || (size_t)n >= sizeof(it->spec) - u ? -1 : 0;
}

int evlist_parse(const char *list, struct evlist_item *items, int max, int *errcol, char *err,
		 size_t errlen)
{
	int n = 0, group = 0, ngroups = 0, group_first = 0, group_col = 0;
	const char *p = list;
	if (errcol)
		*errcol = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		int col = (int)(p - list) + 1;
		if (*p == '{') {
			if (group)
				return fail(errcol, col, err, errlen, "groups do not nest");
			group = ++ngroups;
			group_first = n;
			group_col = col;
			p++;
			continue;
		}
		/* one item: up to a top-level ',' or '}' */
		const char *start = p;
		bool in_slash = false;
		for (; *p; p++) {
			if (*p == '/')
				in_slash = !in_slash;
			else if (!in_slash && (*p == ',' || *p == '}'))
				break;
			else if (!in_slash && *p == '{')
				return fail(errcol, (int)(p - list) + 1, err, errlen,
					    "'{' inside an event (groups do not nest)");
		}
		if (in_slash) {
			const char *open = strchr(start, '/');
			return fail(errcol, (int)(open - list) + 1, err, errlen,
				    "unterminated PMU/.../ (no closing '/')");
		}
		const char *end = p;
		while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (end == start)
			return fail(errcol, col, err, errlen,
				    *p == '}' && n == group_first && group ? "empty group {}"
									   : "empty event");
		if (n >= max)
			return fail(errcol, col, err, errlen, "more than %d events", max);
		struct evlist_item *it = &items[n];
		memset(it, 0, sizeof(*it));
		bool optional = false;
		size_t np = name_prefix(start, &optional);
		if (np) {
			size_t nl = strcspn(start, "?= ");
			snprintf(it->name, sizeof(it->name), "%.*s", (int)nl, start);
			it->optional = optional;
			start += np;
			while (*start == ' ' || *start == '\t')
				start++;
			if (start >= end)
				return fail(errcol, (int)(start - list) + 1, err, errlen,
					    "no event after \"%s=\"", it->name);
		}
		if ((size_t)(end - start) >= sizeof(it->spec))
			return fail(errcol, (int)(start - list) + 1, err, errlen,
				    "event longer than %d bytes", EVLIST_SPEC_MAX - 1);
		memcpy(it->spec, start, (size_t)(end - start));
		it->spec[end - start] = '\0';
		it->column = (int)(start - list) + 1;
		it->group = group;
		if (take_name_term(it, errcol, err, errlen) < 0)
			return -1;
		n++;
		if (*p == '}') {
			if (!group)
				return fail(errcol, (int)(p - list) + 1, err, errlen,
					    "'}' without '{'");
			p++;
			if (*p == ':') { /* group modifiers: {a,b}:u */
				const char *mods = ++p;
				size_t ml = strspn(mods, "ukhGHIpP");
				if (ml == 0 || (mods[ml] && mods[ml] != ',' && mods[ml] != ' '))
					return fail(errcol, (int)(mods + ml - list) + 1, err,
						    errlen,
						    "bad group modifier '%c' (u k h G H I p P)",
						    mods[ml] ? mods[ml] : '?');
				for (int i = group_first; i < n; i++)
					if (add_modifiers(&items[i], mods, ml) < 0)
						return fail(errcol, (int)(mods - list) + 1, err,
							    errlen,
							    "event too long with modifiers");
				p = mods + ml;
			}
			group = 0;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p && *p != ',')
				return fail(errcol, (int)(p - list) + 1, err, errlen,
					    "expected ',' after '}'");
		}
		if (!*p)
			break;
		p++; /* ',' */
		if (!*p && !group)
			return fail(errcol, (int)(p - list) + 1, err, errlen,
				    "empty event after ','");
	}
	if (group)
		return fail(errcol, group_col, err, errlen,
			    "group opened here is not closed ('}')");
	return n;
}

int evlist_format(const struct evlist_item *items, int n, char *buf, size_t len)
{
	size_t u = 0;
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		const struct evlist_item *it = &items[i];
		bool opens = it->group && (i == 0 || items[i - 1].group != it->group);
		bool closes = it->group && (i == n - 1 || items[i + 1].group != it->group);
		int w = snprintf(buf + u, len - u, "%s%s%s%s%s%s%s", i ? "," : "", opens ? "{" : "",
				 it->name, it->optional ? "?" : "", it->name[0] ? "=" : "",
				 it->spec, closes ? "}" : "");
		if (w < 0 || (size_t)w >= len - u)
			return -1;
		u += (size_t)w;
	}
	return 0;
}
