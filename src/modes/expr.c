/* SPDX-License-Identifier: GPL-2.0-or-later */
/* expr.c: recursive-descent parser and evaluator for metric formulas. */
#include "expr.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum node_kind { N_NUM, N_VAR, N_NEG, N_ADD, N_SUB, N_MUL, N_DIV, N_ELSE };

struct node {
	enum node_kind kind;
	int a, b;   /* child node indices (-1 = none) */
	double num; /* N_NUM */
	int var;    /* N_VAR: index into vars */
};

struct expr {
	char *text;
	struct node *nodes;
	int nnodes, cap;
	int root;
	const char **vars;
	int nvars;
};

struct parser {
	struct expr *e;
	const char *s;
	size_t pos;
	char *err;
	size_t errlen;
	int failed;
	int depth;
};

static void fail(struct parser *p, size_t col, const char *fmt, ...)
{
	if (p->failed)
		return;
	p->failed = 1;
	int n = snprintf(p->err, p->errlen, "column %zu: ", col + 1);
	if (n < 0 || (size_t)n >= p->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

static int add_node(struct parser *p, enum node_kind kind, int a, int b)
{
	struct expr *e = p->e;
	if (e->nnodes == e->cap) {
		int cap = e->cap ? e->cap * 2 : 16;
		struct node *n = realloc(e->nodes, (size_t)cap * sizeof(*n));
		if (!n) {
			fail(p, p->pos, "out of memory");
			return -1;
		}
		e->nodes = n;
		e->cap = cap;
	}
	e->nodes[e->nnodes] = (struct node){.kind = kind, .a = a, .b = b, .var = -1};
	return e->nnodes++;
}

static int add_var(struct parser *p, const char *name, size_t len)
{
	struct expr *e = p->e;
	for (int i = 0; i < e->nvars; i++)
		if (strlen(e->vars[i]) == len && memcmp(e->vars[i], name, len) == 0)
			return i;
	const char **v = realloc(e->vars, (size_t)(e->nvars + 1) * sizeof(*v));
	char *copy = malloc(len + 1);
	if (v)
		e->vars = v;
	if (!v || !copy) {
		free(copy);
		fail(p, p->pos, "out of memory");
		return -1;
	}
	memcpy(copy, name, len);
	copy[len] = '\0';
	e->vars[e->nvars] = copy;
	return e->nvars++;
}

static void skip_space(struct parser *p)
{
	while (isspace((unsigned char)p->s[p->pos]))
		p->pos++;
}

static const char *describe(char c)
{
	static char buf[32];
	if (c == '\0')
		return "end of formula";
	if (isprint((unsigned char)c))
		snprintf(buf, sizeof(buf), "'%c'", c);
	else
		snprintf(buf, sizeof(buf), "byte 0x%02x", (unsigned char)c);
	return buf;
}

static int parse_expr(struct parser *p);

static int parse_number(struct parser *p)
{
	const char *s = p->s + p->pos;
	size_t start = p->pos, n = 0;
	double v;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		n = 2;
		while (isxdigit((unsigned char)s[n]))
			n++;
		if (n == 2) {
			fail(p, start, "malformed number: hex digits expected after 0x");
			return -1;
		}
		v = (double)strtoull(s + 2, NULL, 16);
	} else {
		int digits = 0;
		while (isdigit((unsigned char)s[n])) {
			n++;
			digits++;
		}
		if (s[n] == '.') {
			n++;
			while (isdigit((unsigned char)s[n])) {
				n++;
				digits++;
			}
		}
		if (!digits) {
			fail(p, start, "malformed number");
			return -1;
		}
		if (s[n] == 'e' || s[n] == 'E') {
			size_t m = n + 1;
			if (s[m] == '+' || s[m] == '-')
				m++;
			if (!isdigit((unsigned char)s[m])) {
				fail(p, start, "malformed number: exponent digits expected");
				return -1;
			}
			while (isdigit((unsigned char)s[m]))
				m++;
			n = m;
		}
		char buf[64];
		if (n >= sizeof(buf)) {
			fail(p, start, "number too long");
			return -1;
		}
		memcpy(buf, s, n);
		buf[n] = '\0';
		errno = 0;
		v = strtod(buf, NULL);
		if (errno == ERANGE && isinf(v)) {
			fail(p, start, "number out of range");
			return -1;
		}
	}
	if (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '.') {
		fail(p, start, "malformed number");
		return -1;
	}
	p->pos += n;
	int i = add_node(p, N_NUM, -1, -1);
	if (i >= 0)
		p->e->nodes[i].num = v;
	return i;
}

static int parse_primary(struct parser *p)
{
	skip_space(p);
	char c = p->s[p->pos];
	if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)p->s[p->pos + 1])))
		return parse_number(p);
	if (isalpha((unsigned char)c) || c == '_') {
		size_t start = p->pos;
		while (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_' ||
		       p->s[p->pos] == '.')
			p->pos++;
		int v = add_var(p, p->s + start, p->pos - start);
		if (v < 0)
			return -1;
		int i = add_node(p, N_VAR, -1, -1);
		if (i >= 0)
			p->e->nodes[i].var = v;
		return i;
	}
	if (c == '(') {
		size_t open = p->pos++;
		if (++p->depth > 200) {
			fail(p, open, "formula nested too deeply");
			return -1;
		}
		skip_space(p);
		if (p->s[p->pos] == ')') {
			fail(p, p->pos, "empty parentheses");
			return -1;
		}
		int i = parse_expr(p);
		if (i < 0)
			return -1;
		skip_space(p);
		if (p->s[p->pos] != ')') {
			if (p->s[p->pos] == '\0')
				fail(p, open, "unbalanced '(': no matching ')'");
			else
				fail(p, p->pos, "expected ')' but found %s",
				     describe(p->s[p->pos]));
			return -1;
		}
		p->pos++;
		p->depth--;
		return i;
	}
	if (c == '\0')
		fail(p, p->pos, "operand expected at end of formula");
	else if (c == ')')
		fail(p, p->pos, "unbalanced ')'");
	else if (strchr("+-*/?", c))
		fail(p, p->pos, "operand expected before '%c'", c);
	else
		fail(p, p->pos, "unexpected character %s", describe(c));
	return -1;
}

static int parse_unary(struct parser *p)
{
	skip_space(p);
	char c = p->s[p->pos];
	if (c == '-' || c == '+') {
		if (++p->depth > 200) {
			fail(p, p->pos, "formula nested too deeply");
			return -1;
		}
		p->pos++;
		int a = parse_unary(p);
		p->depth--;
		if (a < 0)
			return -1;
		return c == '-' ? add_node(p, N_NEG, a, -1) : a;
	}
	return parse_primary(p);
}

static int parse_product(struct parser *p)
{
	int a = parse_unary(p);
	while (a >= 0) {
		skip_space(p);
		char c = p->s[p->pos];
		if (c != '*' && c != '/')
			break;
		p->pos++;
		int b = parse_unary(p);
		if (b < 0)
			return -1;
		a = add_node(p, c == '*' ? N_MUL : N_DIV, a, b);
	}
	return a;
}

static int parse_sum(struct parser *p)
{
	int a = parse_product(p);
	while (a >= 0) {
		skip_space(p);
		char c = p->s[p->pos];
		if (c != '+' && c != '-')
			break;
		p->pos++;
		int b = parse_product(p);
		if (b < 0)
			return -1;
		a = add_node(p, c == '+' ? N_ADD : N_SUB, a, b);
	}
	return a;
}

static int parse_expr(struct parser *p)
{
	int a = parse_sum(p);
	while (a >= 0) {
		skip_space(p);
		if (p->s[p->pos] != '?')
			break;
		if (p->s[p->pos + 1] != '?') {
			fail(p, p->pos,
			     "unexpected character '?' (the fallback operator is '\?\?')");
			return -1;
		}
		p->pos += 2;
		int b = parse_sum(p);
		if (b < 0)
			return -1;
		a = add_node(p, N_ELSE, a, b);
	}
	return a;
}

void expr_free(struct expr *e)
{
	if (!e)
		return;
	for (int i = 0; i < e->nvars; i++)
		free((char *)e->vars[i]);
	free(e->vars);
	free(e->nodes);
	free(e->text);
	free(e);
}

struct expr *expr_parse(const char *text, char *err, size_t errlen)
{
	if (!text)
		text = "";
	struct expr *e = calloc(1, sizeof(*e));
	if (!e || !(e->text = strdup(text))) {
		free(e);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	struct parser p = {.e = e, .s = e->text, .err = err, .errlen = errlen};
	skip_space(&p);
	if (!p.s[p.pos]) {
		fail(&p, p.pos, "empty formula");
		expr_free(e);
		return NULL;
	}
	e->root = parse_expr(&p);
	if (e->root >= 0) {
		skip_space(&p);
		char c = p.s[p.pos];
		if (c == ')')
			fail(&p, p.pos, "unbalanced ')'");
		else if (c)
			fail(&p, p.pos, "operator expected before %s", describe(c));
	}
	if (p.failed || e->root < 0) {
		fail(&p, p.pos, "invalid formula");
		expr_free(e);
		return NULL;
	}
	return e;
}

/* @used collects the variables the result depends on (bit = index into e->vars): a ?? b keeps
 * only the branch that gave the value. */
static double eval_node(const struct expr *e, int i, expr_lookup_fn lookup, void *ctx,
			unsigned long long *used)
{
	const struct node *n = &e->nodes[i];
	double a, b;
	switch (n->kind) {
	case N_NUM:
		return n->num;
	case N_VAR: {
		double v;
		if (!lookup || lookup(ctx, e->vars[n->var], &v) < 0)
			return NAN;
		if (n->var < 64)
			*used |= 1ULL << n->var;
		return v;
	}
	case N_NEG:
		return -eval_node(e, n->a, lookup, ctx, used);
	case N_ELSE: {
		unsigned long long left = 0;
		a = eval_node(e, n->a, lookup, ctx, &left);
		if (isfinite(a)) {
			*used |= left;
			return a;
		}
		return eval_node(e, n->b, lookup, ctx, used);
	}
	default:
		break;
	}
	a = eval_node(e, n->a, lookup, ctx, used);
	b = eval_node(e, n->b, lookup, ctx, used);
	if (isnan(a) || isnan(b))
		return NAN;
	switch (n->kind) {
	case N_ADD:
		return a + b;
	case N_SUB:
		return a - b;
	case N_MUL:
		return a * b;
	case N_DIV:
		return b == 0 ? NAN : a / b;
	default:
		return NAN;
	}
}

int expr_eval_used(const struct expr *e, expr_lookup_fn lookup, void *ctx, double *out,
		   unsigned long long *used)
{
	unsigned long long u = 0;
	double v = e ? eval_node(e, e->root, lookup, ctx, &u) : NAN;
	if (used)
		*used = isfinite(v) ? u : 0;
	if (!isfinite(v)) {
		*out = NAN;
		return -1;
	}
	*out = v;
	return 0;
}

int expr_eval(const struct expr *e, expr_lookup_fn lookup, void *ctx, double *out)
{
	return expr_eval_used(e, lookup, ctx, out, NULL);
}

int expr_vars(const struct expr *e, const char *const **names)
{
	*names = e->vars;
	return e->nvars;
}

const char *expr_text(const struct expr *e) { return e->text; }
