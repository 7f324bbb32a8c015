/* SPDX-License-Identifier: GPL-2.0-or-later */
/* expr.c: recursive-descent parser for metric formulas, compiled to a flat program evaluated
 * without recursion (the recursive tree evaluator stays as its reference). */
#include "expr.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum node_kind {
	N_NUM,
	N_VAR,
	N_NEG,
	N_NOT,
	N_ADD,
	N_SUB,
	N_MUL,
	N_DIV,
	N_MOD,
	N_ELSE, /* a ?? b */
	N_LT,
	N_GT,
	N_LE,
	N_GE,
	N_EQ,
	N_NE,
	N_AND,
	N_OR,
	N_XOR,
	N_MIN,
	N_MAX,
	N_DRATIO,
	N_IF, /* a if b else c */
};

/* Precedence levels, weakest first: what the printer parenthesises by. */
enum level { L_IF, L_ELSE, L_OR, L_XOR, L_AND, L_CMP, L_SUM, L_PRODUCT, L_UNARY, L_PRIMARY };

/* One row per operator: spelling, node, level (the table the parser and printer share). */
static const struct binop {
	const char *text;
	enum node_kind kind;
	enum level level;
	bool word; /* a keyword ("and"): must not run into a name */
} binops[] = {
    {"??", N_ELSE, L_ELSE, false},  {"|", N_OR, L_OR, false},	    {"or", N_OR, L_OR, true},
    {"^", N_XOR, L_XOR, false},	    {"&", N_AND, L_AND, false},	    {"and", N_AND, L_AND, true},
    {"<=", N_LE, L_CMP, false},	    {">=", N_GE, L_CMP, false},	    {"==", N_EQ, L_CMP, false},
    {"!=", N_NE, L_CMP, false},	    {"<", N_LT, L_CMP, false},	    {">", N_GT, L_CMP, false},
    {"+", N_ADD, L_SUM, false},	    {"-", N_SUB, L_SUM, false},	    {"*", N_MUL, L_PRODUCT, false},
    {"/", N_DIV, L_PRODUCT, false}, {"%", N_MOD, L_PRODUCT, false},
};
#define NBINOPS (sizeof(binops) / sizeof(binops[0]))

/* Functions of two arguments. */
static const struct {
	const char *name;
	enum node_kind kind;
} functions[] = {{"min", N_MIN}, {"max", N_MAX}, {"d_ratio", N_DRATIO}};

/* Words that are operators, never names. */
static const char *const keywords[] = {"if", "else", "and", "or", "not"};

struct node {
	enum node_kind kind;
	int a, b, c; /* child node indices (-1 = none); N_IF: a then, b condition, c else */
	double num;  /* N_NUM */
	int var;     /* N_VAR: index into vars */
	int height;  /* levels of nodes from here down (a leaf: 1) */
};

/* One instruction of the flat program: a register machine that reads its operands where they
 * are (a variable's value, a constant, a temporary: a region and an index) and performs the tree
 * evaluator's operations in the same order, so its results are the same bit for bit. Binary
 * operators are their node kinds (N_ADD ... N_DRATIO); the rest follow them. */
enum opcode {
	OP_NEG = N_IF + 1, /* t[dst] = -a */
	OP_NOT,		   /* t[dst] = not a */
	OP_ELSE,	   /* x ?? y: a finite a goes to t[dst] and jumps to target */
	OP_IF,	 /* condition a: NAN gives n/a in t[dst] and jumps to target2, 0 to target */
	OP_MOVE, /* t[dst] = a, with its variables and those of the condition b (rb < 3) */
	OP_JMP,	 /* to target */
};

enum region { R_VAR, R_CONST, R_TEMP, R_NONE };

struct operand {
	unsigned char r; /* enum region */
	int i;
};

struct op {
	unsigned char code;
	unsigned char ra, rb; /* the operands' regions */
	int a, b, dst;	      /* their indices; dst a temporary */
	int target, target2;  /* jumps: instruction indices */
};

struct expr {
	char *text;
	struct node *nodes;
	int nnodes, cap;
	int root;
	/* the flat program, compiled once at parse time; then with the constants and their zeros
	 * in one block (packed), so an evaluation reads a few neighbouring lines */
	struct op *prog;
	bool packed;
	int nprog;
	double *consts;		   /* the constants */
	unsigned long long *zeros; /* [nconsts]: a constant's variables (none) */
	int nconsts, ntemps;
	struct operand result;	    /* where the value is at the end */
	bool branches;		    /* has ?? or if: the variables used are followed slot by slot */
	unsigned long long allvars; /* without branches: the variables used by a finite value */
	const char **vars;
	int nvars;
	unsigned flags;
};

struct parser {
	struct expr *e;
	const char *s;
	size_t pos;
	char *err;
	size_t errlen;
	int failed;
	int depth;
	bool perf; /* EXPR_PERF: perf's names, escapes and #literals */
};

#define MAX_DEPTH 200 /* nesting of parentheses, unary operators and if/else */
/* The tree as evaluated and printed (both recurse): a chain "a + b + c ..." is as deep as it is
 * long, so its height is bounded as well as the text's nesting, and so is the node count. */
#define MAX_HEIGHT 512
#define MAX_NODES 16384

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
	if (a < 0 && kind != N_NUM && kind != N_VAR)
		return -1;
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
	if (e->nnodes >= MAX_NODES) {
		fail(p, p->pos, "formula too large (more than %d terms and operators)", MAX_NODES);
		return -1;
	}
	int h = 0;
	if (a >= 0)
		h = e->nodes[a].height;
	if (b >= 0 && e->nodes[b].height > h)
		h = e->nodes[b].height;
	if (++h > MAX_HEIGHT) {
		fail(p, p->pos,
		     "formula nested too deeply (more than %d levels of operators, e.g. a sum of "
		     "%d terms)",
		     MAX_HEIGHT, MAX_HEIGHT);
		return -1;
	}
	e->nodes[e->nnodes] =
	    (struct node){.kind = kind, .a = a, .b = b, .c = -1, .var = -1, .height = h};
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

static int var_node(struct parser *p, const char *name, size_t len)
{
	int v = add_var(p, name, len);
	if (v < 0)
		return -1;
	int i = add_node(p, N_VAR, -1, -1);
	if (i >= 0)
		p->e->nodes[i].var = v;
	return i;
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

static bool name_start(const struct parser *p, char c)
{
	return isalpha((unsigned char)c) || c == '_' || (p->perf && (c == '@' || c == '\\'));
}

static bool name_char(const struct parser *p, char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' ||
	       (p->perf && (c == ':' || c == '@' || c == '?'));
}

/* Length of the plain word at @pos (letters, digits, '_', '.'), for keywords. */
static size_t word_len(const char *s)
{
	size_t n = 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '.')
		n++;
	return n;
}

/* Is the keyword @kw next (after blanks)? Does not consume it. */
static bool at_word(struct parser *p, const char *kw)
{
	skip_space(p);
	const char *s = p->s + p->pos;
	size_t n = strlen(kw);
	return strncmp(s, kw, n) == 0 && word_len(s) == n && !(p->perf && name_char(p, s[n])) &&
	       s[n] != '\\';
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

/* Reads a name; in perf syntax with "\x" escapes (kept unescaped) and '@', ':' and '?' inside
 * ("cpu@INST_RETIRED.ANY\,cmask\=1@", "topdown\-fe\-bound"). Returns it malloc'd, or NULL. */
static char *scan_name(struct parser *p, size_t *len)
{
	size_t start = p->pos, n = 0, cap = 64;
	char *buf = malloc(cap);
	if (!buf) {
		fail(p, start, "out of memory");
		return NULL;
	}
	for (;;) {
		char c = p->s[p->pos];
		if (p->perf && c == '\\') {
			c = p->s[p->pos + 1];
			if (!isgraph((unsigned char)c)) {
				fail(p, p->pos, "'\\' at the end of a name escapes nothing");
				free(buf);
				return NULL;
			}
			p->pos += 2;
		} else if (name_char(p, c)) {
			p->pos++;
		} else {
			break;
		}
		if (n + 1 >= cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				fail(p, start, "out of memory");
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		buf[n++] = c;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static int parse_name(struct parser *p)
{
	size_t n;
	char *buf = scan_name(p, &n);
	if (!buf)
		return -1;
	int i = var_node(p, buf, n);
	free(buf);
	return i;
}

/* f(a, b) for min, max, d_ratio; in perf syntax also has_event(NAME), source_count(NAME) and
 * strcmp_cpuid_str(NAME), kept as one name "has_event(NAME)" for the caller to resolve. */

/* The ')' that closes the '(' at @open (of a group or a function call), after blanks; one level
 * of nesting less. */
static int close_paren(struct parser *p, size_t open)
{
	skip_space(p);
	if (p->s[p->pos] != ')') {
		if (p->s[p->pos] == '\0')
			fail(p, open, "unbalanced '(': no matching ')'");
		else
			fail(p, p->pos, "expected ')' but found %s", describe(p->s[p->pos]));
		return -1;
	}
	p->pos++;
	p->depth--;
	return 0;
}
static int parse_call(struct parser *p, size_t start, size_t len)
{
	static const char *const name_funcs[] = {"has_event", "source_count", "strcmp_cpuid_str"};
	const char *fname = p->s + start;
	size_t open = p->pos++;
	if (++p->depth > MAX_DEPTH) {
		fail(p, open, "formula nested too deeply");
		return -1;
	}
	for (size_t k = 0; p->perf && k < sizeof(name_funcs) / sizeof(name_funcs[0]); k++) {
		if (strlen(name_funcs[k]) != len || strncmp(fname, name_funcs[k], len) != 0)
			continue;
		skip_space(p);
		char c = p->s[p->pos];
		if (!name_start(p, c) && !isalnum((unsigned char)c)) {
			fail(p, p->pos, "%s: an event name expected", name_funcs[k]);
			return -1;
		}
		size_t alen;
		char *arg = scan_name(p, &alen);
		if (!arg)
			return -1;
		skip_space(p);
		if (p->s[p->pos] != ')') {
			fail(p, p->pos, "expected ')' but found %s", describe(p->s[p->pos]));
			free(arg);
			return -1;
		}
		p->pos++;
		p->depth--;
		/* one variable "func(NAME)" */
		size_t need = len + alen + 3;
		char *full = malloc(need);
		if (full)
			snprintf(full, need, "%.*s(%s)", (int)len, fname, arg);
		free(arg);
		if (!full) {
			fail(p, start, "out of memory");
			return -1;
		}
		int v = var_node(p, full, strlen(full));
		free(full);
		return v;
	}
	enum node_kind kind = N_MIN;
	for (size_t k = 0; k < sizeof(functions) / sizeof(functions[0]); k++)
		if (strlen(functions[k].name) == len && strncmp(fname, functions[k].name, len) == 0)
			kind = functions[k].kind;
	int a = parse_expr(p);
	if (a < 0)
		return -1;
	skip_space(p);
	if (p->s[p->pos] != ',') {
		fail(p, p->pos, "%.*s() takes two arguments: expected ',' but found %s", (int)len,
		     fname, describe(p->s[p->pos]));
		return -1;
	}
	p->pos++;
	int b = parse_expr(p);
	if (b < 0)
		return -1;
	if (close_paren(p, open) < 0)
		return -1;
	return add_node(p, kind, a, b);
}

static bool is_function(const struct parser *p, const char *s, size_t len)
{
	for (size_t k = 0; k < sizeof(functions) / sizeof(functions[0]); k++)
		if (strlen(functions[k].name) == len && strncmp(s, functions[k].name, len) == 0)
			return true;
	if (!p->perf)
		return false;
	return (len == 9 && strncmp(s, "has_event", 9) == 0) ||
	       (len == 12 && strncmp(s, "source_count", 12) == 0) ||
	       (len == 16 && strncmp(s, "strcmp_cpuid_str", 16) == 0);
}

static int parse_primary(struct parser *p)
{
	skip_space(p);
	char c = p->s[p->pos];
	if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)p->s[p->pos + 1])))
		return parse_number(p);
	if (p->perf && c == '#') {
		/* perf's literals: #smt_on, #num_cpus_online, #slots, ... */
		size_t start = p->pos++;
		while (isalnum((unsigned char)p->s[p->pos]) ||
		       (p->s[p->pos] && strchr("_.-", p->s[p->pos])))
			p->pos++;
		if (p->pos == start + 1) {
			fail(p, start, "a literal name expected after '#'");
			return -1;
		}
		return var_node(p, p->s + start, p->pos - start);
	}
	if (name_start(p, c)) {
		size_t start = p->pos, wl = word_len(p->s + start);
		for (size_t k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++)
			if (at_word(p, keywords[k])) {
				fail(p, start, "operand expected before '%s'", keywords[k]);
				return -1;
			}
		if (wl && is_function(p, p->s + start, wl)) {
			size_t save = p->pos;
			p->pos += wl;
			skip_space(p);
			if (p->s[p->pos] == '(')
				return parse_call(p, start, wl);
			p->pos = save;
		}
		return parse_name(p);
	}
	if (c == '(') {
		size_t open = p->pos++;
		if (++p->depth > MAX_DEPTH) {
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
		return close_paren(p, open) < 0 ? -1 : i;
	}
	if (c == '\0')
		fail(p, p->pos, "operand expected at end of formula");
	else if (c == ')')
		fail(p, p->pos, "unbalanced ')'");
	else if (strchr("+-*/?%<>=&|^,", c))
		fail(p, p->pos, "operand expected before '%c'", c);
	else
		fail(p, p->pos, "unexpected character %s", describe(c));
	return -1;
}

static int parse_unary(struct parser *p)
{
	skip_space(p);
	char c = p->s[p->pos];
	bool word_not = at_word(p, "not");
	if (c == '-' || c == '+' || (c == '!' && p->s[p->pos + 1] != '=') || word_not) {
		if (++p->depth > MAX_DEPTH) {
			fail(p, p->pos, "formula nested too deeply");
			return -1;
		}
		p->pos += word_not ? 3 : 1;
		int a = parse_unary(p);
		p->depth--;
		if (a < 0)
			return -1;
		if (c == '+' && !word_not)
			return a;
		return add_node(p, c == '-' && !word_not ? N_NEG : N_NOT, a, -1);
	}
	return parse_primary(p);
}

/* The operator of @level at the parser's position, or NULL. */
static const struct binop *next_binop(struct parser *p, enum level level)
{
	skip_space(p);
	const char *s = p->s + p->pos;
	for (size_t k = 0; k < NBINOPS; k++) {
		const struct binop *o = &binops[k];
		size_t n = strlen(o->text);
		if (o->level != level || strncmp(s, o->text, n) != 0)
			continue;
		if (o->word ? !at_word(p, o->text) : false)
			continue;
		if (o->kind == N_ELSE && p->perf)
			continue; /* perf names may hold '?' */
		return o;
	}
	return NULL;
}

/* Left-associative binary operators from @level up. */
static int parse_level(struct parser *p, enum level level)
{
	if (level == L_UNARY)
		return parse_unary(p);
	int a = parse_level(p, level + 1);
	while (a >= 0) {
		const struct binop *o = next_binop(p, level);
		if (!o) {
			if (level == L_ELSE && p->s[p->pos] == '?' && !p->perf) {
				fail(p, p->pos,
				     "unexpected character '?' (the fallback operator is '\?\?')");
				return -1;
			}
			break;
		}
		p->pos += strlen(o->text);
		int b = parse_level(p, level + 1);
		if (b < 0)
			return -1;
		a = add_node(p, o->kind, a, b);
	}
	return a;
}

/* expr := either [ "if" either "else" expr ] (perf's conditional, right-associative). */
static int parse_expr(struct parser *p)
{
	int a = parse_level(p, L_ELSE);
	if (a < 0 || !at_word(p, "if"))
		return a;
	size_t at = p->pos;
	if (++p->depth > MAX_DEPTH) {
		fail(p, at, "formula nested too deeply");
		return -1;
	}
	p->pos += 2;
	int cond = parse_level(p, L_ELSE);
	if (cond < 0)
		return -1;
	if (!at_word(p, "else")) {
		fail(p, p->pos, "'if' at column %zu needs 'else' but found %s", at + 1,
		     describe(p->s[p->pos]));
		return -1;
	}
	p->pos += 4;
	int b = parse_expr(p);
	p->depth--;
	if (b < 0)
		return -1;
	int i = add_node(p, N_IF, a, cond);
	if (i >= 0) {
		struct node *n = &p->e->nodes[i];
		n->c = b;
		if (p->e->nodes[b].height >= n->height)
			n->height = p->e->nodes[b].height + 1;
		if (n->height > MAX_HEIGHT) {
			fail(p, at, "formula nested too deeply (more than %d levels of operators)",
			     MAX_HEIGHT);
			return -1;
		}
	}
	return i;
}

void expr_free(struct expr *e)
{
	if (!e)
		return;
	for (int i = 0; i < e->nvars; i++)
		free((char *)e->vars[i]);
	free(e->vars);
	free(e->nodes);
	free(e->prog);
	if (!e->packed) {
		free(e->consts);
		free(e->zeros);
	}
	free(e->text);
	free(e);
}

static int compile(struct expr *e);

struct expr *expr_parse_flags(const char *text, unsigned flags, char *err, size_t errlen)
{
	if (!text)
		text = "";
	struct expr *e = calloc(1, sizeof(*e));
	if (!e || !(e->text = strdup(text))) {
		free(e);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	e->flags = flags;
	struct parser p = {
	    .e = e, .s = e->text, .err = err, .errlen = errlen, .perf = flags & EXPR_PERF};
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
		else if (at_word(&p, "else"))
			fail(&p, p.pos, "'else' without 'if'");
		else if (c)
			fail(&p, p.pos, "operator expected before %s", describe(c));
	}
	if (p.failed || e->root < 0) {
		fail(&p, p.pos, "invalid formula");
		expr_free(e);
		return NULL;
	}
	if (compile(e) < 0) {
		snprintf(err, errlen, "out of memory");
		expr_free(e);
		return NULL;
	}
	return e;
}

struct expr *expr_parse(const char *text, char *err, size_t errlen)
{
	return expr_parse_flags(text, 0, err, errlen);
}

static double truth(double v) { return v != 0 ? 1 : 0; }

/* @used collects the variables the result depends on (bit = index into e->vars): a ?? b keeps
 * only the branch that gave the value, a if c else b the condition and the branch taken. */
static double eval_node(const struct expr *e, int i, const double *vals, unsigned long long *used);

/* A child: a number or a variable read in place (most children are), else its subtree. */
static inline double eval_child(const struct expr *e, int i, const double *vals,
				unsigned long long *used)
{
	const struct node *n = &e->nodes[i];
	if (n->kind == N_NUM)
		return n->num;
	if (n->kind == N_VAR) {
		double v = vals[n->var];
		if (!isnan(v) && n->var < 64)
			*used |= 1ULL << n->var;
		return v;
	}
	return eval_node(e, i, vals, used);
}

static double eval_node(const struct expr *e, int i, const double *vals, unsigned long long *used)
{
	const struct node *n = &e->nodes[i];
	double a, b;
	switch (n->kind) {
	case N_NUM:
	case N_VAR:
		return eval_child(e, i, vals, used);
	case N_NEG:
		return -eval_child(e, n->a, vals, used);
	case N_NOT:
		a = eval_child(e, n->a, vals, used);
		return isnan(a) ? NAN : a == 0;
	case N_ELSE: {
		unsigned long long left = 0;
		a = eval_child(e, n->a, vals, &left);
		if (isfinite(a)) {
			*used |= left;
			return a;
		}
		return eval_child(e, n->b, vals, used);
	}
	case N_IF: {
		double c = eval_child(e, n->b, vals, used);
		if (isnan(c))
			return NAN;
		return eval_child(e, c != 0 ? n->a : n->c, vals, used);
	}
	default:
		break;
	}
	a = eval_child(e, n->a, vals, used);
	b = eval_child(e, n->b, vals, used);
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
	case N_MOD:
		return b == 0 ? NAN : fmod(a, b);
	case N_LT:
		return a < b;
	case N_GT:
		return a > b;
	case N_LE:
		return a <= b;
	case N_GE:
		return a >= b;
	case N_EQ:
		return a == b;
	case N_NE:
		return a != b;
	case N_AND:
		return truth(a) * truth(b);
	case N_OR:
		return truth(a) + truth(b) > 0;
	case N_XOR:
		return truth(a) != truth(b);
	case N_MIN:
		return a < b ? a : b;
	case N_MAX:
		return a > b ? a : b;
	case N_DRATIO:
		return b == 0 ? 0 : a / b;
	default:
		return NAN;
	}
}

int expr_eval_tree(const struct expr *e, const double *vals, double *out, unsigned long long *used)
{
	unsigned long long u = 0;
	double v = e ? eval_node(e, e->root, vals, &u) : NAN;
	if (used)
		*used = isfinite(v) ? u : 0;
	if (!isfinite(v)) {
		*out = NAN;
		return -1;
	}
	*out = v;
	return 0;
}

/* ---- the flat program ----------------------------------------------------------------------- */

static int emit(struct expr *e, struct op op)
{
	/* every node gives at most three instructions (an if: IF, MOVE, JMP; its else: MOVE) */
	if (e->nprog >= 3 * e->nnodes + 1)
		return -1;
	e->prog[e->nprog] = op;
	return e->nprog++;
}

static struct op op2(int code, int dst, struct operand a, struct operand b)
{
	return (struct op){
	    .code = (unsigned char)code, .dst = dst, .ra = a.r, .a = a.i, .rb = b.r, .b = b.i};
}

#define NONE ((struct operand){.r = R_NONE})

/* Appends node @i's code with temporary @t (and those above it) free; *@out is where its value
 * is: a variable's or constant's own place, else temporary @t. Recursion is bounded by the
 * tree's height (MAX_HEIGHT), and so are the temporaries. */
static int compile_node(struct expr *e, int i, int t, struct operand *out)
{
	const struct node *n = &e->nodes[i];
	struct operand a, b, tmp = {.r = R_TEMP, .i = t};
	int at, jmp;
	if (t + 1 > e->ntemps)
		e->ntemps = t + 1;
	switch (n->kind) {
	case N_NUM:
		e->consts[e->nconsts] = n->num;
		*out = (struct operand){.r = R_CONST, .i = e->nconsts++};
		return 0;
	case N_VAR:
		*out = (struct operand){.r = R_VAR, .i = n->var};
		return 0;
	case N_NEG:
	case N_NOT:
		*out = tmp;
		if (compile_node(e, n->a, t, &a) < 0)
			return -1;
		return emit(e, op2(n->kind == N_NEG ? OP_NEG : OP_NOT, t, a, NONE));
	case N_ELSE: /* a; ELSE (a finite: done); b; MOVE */
		e->branches = true;
		*out = tmp;
		if (compile_node(e, n->a, t, &a) < 0 ||
		    (at = emit(e, op2(OP_ELSE, t, a, NONE))) < 0 ||
		    compile_node(e, n->b, t, &b) < 0 || emit(e, op2(OP_MOVE, t, b, NONE)) < 0)
			return -1;
		e->prog[at].target = e->nprog;
		return 0;
	case N_IF: /* cond; IF; then; MOVE; JMP; else; MOVE (the condition kept in t) */
		e->branches = true;
		*out = tmp;
		struct operand c;
		if (compile_node(e, n->b, t, &c) < 0 ||
		    (at = emit(e, op2(OP_IF, t, c, NONE))) < 0 ||
		    compile_node(e, n->a, t + 1, &a) < 0 || emit(e, op2(OP_MOVE, t, a, c)) < 0 ||
		    (jmp = emit(e, op2(OP_JMP, t, NONE, NONE))) < 0)
			return -1;
		e->prog[at].target = e->nprog;
		if (compile_node(e, n->c, t + 1, &b) < 0 || emit(e, op2(OP_MOVE, t, b, c)) < 0)
			return -1;
		e->prog[jmp].target = e->nprog;
		e->prog[at].target2 = e->nprog;
		return 0;
	default:
		*out = tmp;
		if (compile_node(e, n->a, t, &a) < 0 || compile_node(e, n->b, t + 1, &b) < 0)
			return -1;
		return emit(e, op2(n->kind, t, a, b));
	}
}

static int compile(struct expr *e)
{
	/* the condition of an if lives in its temporary while a branch runs: the branch's
	 * temporaries start above it, so there are never more than the tree is high */
	if (!(e->prog = malloc((size_t)(3 * e->nnodes + 1) * sizeof(*e->prog))) ||
	    !(e->consts = malloc((size_t)(e->nnodes + 1) * sizeof(*e->consts))) ||
	    !(e->zeros = calloc((size_t)e->nnodes + 1, sizeof(*e->zeros))))
		return -1;
	if (compile_node(e, e->root, 0, &e->result) < 0)
		return -1;
	for (int v = 0; v < e->nvars && v < 64; v++)
		e->allvars |= 1ULL << v;
	/* the program, the constants and their zeros side by side, each as long as it is */
	size_t np = (size_t)e->nprog * sizeof(*e->prog), nc = (size_t)e->nconsts;
	np = (np + sizeof(double) - 1) / sizeof(double) * sizeof(double);
	char *block = malloc(np + nc * (sizeof(*e->consts) + sizeof(*e->zeros)) + 1);
	if (!block)
		return -1;
	memcpy(block, e->prog, (size_t)e->nprog * sizeof(*e->prog));
	memcpy(block + np, e->consts, nc * sizeof(*e->consts));
	memcpy(block + np + nc * sizeof(*e->consts), e->zeros, nc * sizeof(*e->zeros));
	free(e->prog);
	free(e->consts);
	free(e->zeros);
	e->prog = (struct op *)block;
	e->consts = (double *)(block + np);
	e->zeros = (unsigned long long *)(block + np + nc * sizeof(*e->consts));
	e->packed = true;
	return 0;
}

/* Runs @e's program over the variables' values @vals, with temporaries @t; with @track, @mv
 * holds each variable's bit (0 for NAN) and @mt gets each temporary's variables, as eval_node's
 * @used collects them. Inlined twice, so a program without branches pays nothing for them. */
static inline __attribute__((always_inline)) double run(const struct expr *e, const double *vals,
							double *t, const unsigned long long *mv,
							unsigned long long *mt, bool track)
{
	const double *R[3] = {vals, e->consts, t};
	const unsigned long long *M[3] = {mv, e->zeros, mt};
	const struct op *prog = e->prog;
	for (int pc = 0, n = e->nprog; pc < n; pc++) {
		const struct op *op = &prog[pc];
		double a, b, r;
		switch (op->code) {
#define BIN(kind, expr)                                                                            \
	case kind:                                                                                 \
		a = R[op->ra][op->a];                                                              \
		b = R[op->rb][op->b];                                                              \
		r = isnan(a) || isnan(b) ? NAN : (expr);                                           \
		if (track)                                                                         \
			mt[op->dst] = M[op->ra][op->a] | M[op->rb][op->b];                         \
		t[op->dst] = r;                                                                    \
		continue;
			BIN(N_ADD, a + b)
			BIN(N_SUB, a - b)
			BIN(N_MUL, a * b)
			BIN(N_DIV, b == 0 ? NAN : a / b)
			BIN(N_MOD, b == 0 ? NAN : fmod(a, b))
			BIN(N_LT, a < b)
			BIN(N_GT, a > b)
			BIN(N_LE, a <= b)
			BIN(N_GE, a >= b)
			BIN(N_EQ, a == b)
			BIN(N_NE, a != b)
			BIN(N_AND, truth(a) * truth(b))
			BIN(N_OR, truth(a) + truth(b) > 0)
			BIN(N_XOR, truth(a) != truth(b))
			BIN(N_MIN, a < b ? a : b)
			BIN(N_MAX, a > b ? a : b)
			BIN(N_DRATIO, b == 0 ? 0 : a / b)
#undef BIN
		case OP_NEG:
			r = -R[op->ra][op->a];
			break;
		case OP_NOT:
			a = R[op->ra][op->a];
			r = isnan(a) ? NAN : a == 0;
			break;
		case OP_ELSE:
			a = R[op->ra][op->a];
			if (!isfinite(a))
				continue;
			r = a;
			pc = op->target - 1;
			break;
		case OP_IF:
			a = R[op->ra][op->a];
			if (!isnan(a)) {
				if (a == 0)
					pc = op->target - 1;
				continue;
			}
			r = NAN;
			pc = op->target2 - 1;
			break;
		case OP_MOVE:
			t[op->dst] = R[op->ra][op->a];
			if (track)
				mt[op->dst] =
				    M[op->ra][op->a] | (op->rb < R_NONE ? M[op->rb][op->b] : 0);
			continue;
		case OP_JMP:
			pc = op->target - 1;
			continue;
		default:
			r = NAN;
			break;
		}
		/* unary, ELSE and IF: one operand's variables */
		if (track)
			mt[op->dst] = M[op->ra][op->a];
		t[op->dst] = r;
	}
	return R[e->result.r][e->result.i];
}

/* expr_eval_values with the temporaries @t and, where @used is followed, @mv and @mt given. */
static inline __attribute__((always_inline)) int eval_in(const struct expr *e, const double *vals,
							 double *out, unsigned long long *used,
							 double *t, unsigned long long *mv,
							 unsigned long long *mt)
{
	double v;
	unsigned long long u;
	if (e->branches && used) {
		for (int k = 0; k < e->nvars; k++)
			mv[k] = !isnan(vals[k]) && k < 64 ? 1ULL << k : 0;
		v = run(e, vals, t, mv, mt, true);
		const unsigned long long *M[3] = {mv, e->zeros, mt};
		u = M[e->result.r][e->result.i];
	} else {
		/* without branches every operator gives NAN for a NAN operand: a finite value
		 * read every variable, and none was NAN (with branches and no @used the
		 * variables are not followed: the value is the same) */
		v = run(e, vals, t, NULL, NULL, false);
		u = e->allvars;
	}
	if (used)
		*used = isfinite(v) ? u : 0;
	if (!isfinite(v)) {
		*out = NAN;
		return -1;
	}
	*out = v;
	return 0;
}

/* A formula with more temporaries or variables than the fixed buffers hold. */
static __attribute__((noinline)) int eval_large(const struct expr *e, const double *vals,
						double *out, unsigned long long *used)
{
	double t[e->ntemps + 1];
	unsigned long long mv[e->nvars + 1], mt[e->ntemps + 1];
	return eval_in(e, vals, out, used, t, mv, mt);
}

#define EVAL_SMALL 16 /* temporaries and variables of most formulas */

int expr_eval_values(const struct expr *e, const double *vals, double *out,
		     unsigned long long *used)
{
	if (!e) {
		if (used)
			*used = 0;
		*out = NAN;
		return -1;
	}
	if (e->ntemps > EVAL_SMALL || e->nvars > EVAL_SMALL)
		return eval_large(e, vals, out, used);
	double t[EVAL_SMALL];
	unsigned long long mv[EVAL_SMALL], mt[EVAL_SMALL];
	return eval_in(e, vals, out, used, t, mv, mt);
}

/* Every variable looked up once, before the formula: a name without a value is NAN, which
 * evaluates exactly as a failed lookup does (every operator gives NAN for a NAN operand, and
 * "a ?? b" drops a's variables whenever a is not finite). */
int expr_eval_used(const struct expr *e, expr_lookup_fn lookup, void *ctx, double *out,
		   unsigned long long *used)
{
	int nv = e ? e->nvars : 0;
	double vals[nv > 0 ? nv : 1];
	for (int v = 0; v < nv; v++)
		if (!lookup || lookup(ctx, e->vars[v], &vals[v]) < 0)
			vals[v] = NAN;
	return expr_eval_values(e, vals, out, used);
}

int expr_eval(const struct expr *e, expr_lookup_fn lookup, void *ctx, double *out)
{
	return expr_eval_used(e, lookup, ctx, out, NULL);
}

static unsigned long long node_vars(const struct expr *e, int n, int depth)
{
	if (n < 0 || depth > MAX_DEPTH * 4)
		return 0;
	const struct node *x = &e->nodes[n];
	unsigned long long m = x->kind == N_VAR && x->var >= 0 && x->var < 64 ? 1ULL << x->var : 0;
	return m | node_vars(e, x->a, depth + 1) | node_vars(e, x->b, depth + 1) |
	       node_vars(e, x->c, depth + 1);
}

int expr_else_branches(const struct expr *e, unsigned long long *masks, int max)
{
	int spine[64], n = 0, cur = e ? e->root : -1, k = 0;
	if (cur < 0)
		return 0;
	while (e->nodes[cur].kind == N_ELSE && n < 64) {
		spine[n++] = e->nodes[cur].b;
		cur = e->nodes[cur].a;
	}
	if (k < max)
		masks[k++] = node_vars(e, cur, 0);
	for (int i = n - 1; i >= 0 && k < max; i--)
		masks[k++] = node_vars(e, spine[i], 0);
	return k;
}

int expr_vars(const struct expr *e, const char *const **names)
{
	*names = e->vars;
	return e->nvars;
}

const char *expr_text(const struct expr *e) { return e->text; }

/* ---- printing in pmutop's own syntax -------------------------------------------------------- */

struct printer {
	const struct expr *e;
	expr_rename_fn rename;
	void *ctx;
	char *buf;
	size_t len, at;
	char *err;
	size_t errlen;
	int failed;
	char *name; /* EXPR_FORMAT_MAX bytes: a renamed variable (one per printer, not per level) */
};

static void put(struct printer *pr, const char *s)
{
	size_t n = strlen(s);
	if (pr->failed)
		return;
	if (pr->at + n >= pr->len) {
		pr->failed = 1;
		snprintf(pr->err, pr->errlen, "formula longer than %zu bytes", pr->len - 1);
		return;
	}
	memcpy(pr->buf + pr->at, s, n + 1);
	pr->at += n;
}

static enum level node_level(const struct node *n)
{
	switch (n->kind) {
	case N_NUM:
		return n->num < 0 ? L_UNARY : L_PRIMARY;
	case N_VAR:
	case N_MIN:
	case N_MAX:
	case N_DRATIO:
		return L_PRIMARY;
	case N_NEG:
	case N_NOT:
		return L_UNARY;
	case N_IF:
		return L_IF;
	default:
		for (size_t k = 0; k < NBINOPS; k++)
			if (binops[k].kind == n->kind)
				return binops[k].level;
		return L_PRIMARY;
	}
}

static const char *op_text(enum node_kind kind)
{
	for (size_t k = 0; k < NBINOPS; k++)
		if (binops[k].kind == kind && !binops[k].word)
			return binops[k].text;
	return "?";
}

static void print_node(struct printer *pr, int i, enum level need)
{
	const struct node *n = &pr->e->nodes[i];
	enum level lv = node_level(n);
	char tmp[64];
	if (pr->failed)
		return;
	if (lv < need)
		put(pr, "(");
	switch (n->kind) {
	case N_NUM:
		snprintf(tmp, sizeof(tmp), "%.15g", n->num);
		if (strtod(tmp, NULL) != n->num)
			snprintf(tmp, sizeof(tmp), "%.17g", n->num);
		put(pr, tmp);
		break;
	case N_VAR:
		if (pr->rename(pr->ctx, pr->e->vars[n->var], pr->name, EXPR_FORMAT_MAX, pr->err,
			       pr->errlen) < 0) {
			pr->failed = 1;
			break;
		}
		put(pr, pr->name);
		break;
	case N_NEG:
	case N_NOT:
		put(pr, n->kind == N_NEG ? "-" : "not ");
		print_node(pr, n->a, L_UNARY);
		break;
	case N_MIN:
	case N_MAX:
	case N_DRATIO:
		put(pr, n->kind == N_MIN ? "min(" : n->kind == N_MAX ? "max(" : "d_ratio(");
		print_node(pr, n->a, L_IF);
		put(pr, ", ");
		print_node(pr, n->b, L_IF);
		put(pr, ")");
		break;
	case N_IF:
		print_node(pr, n->a, L_ELSE);
		put(pr, " if ");
		print_node(pr, n->b, L_ELSE);
		put(pr, " else ");
		print_node(pr, n->c, L_IF);
		break;
	default:
		print_node(pr, n->a, lv);
		put(pr, " ");
		put(pr, op_text(n->kind));
		put(pr, " ");
		print_node(pr, n->b, (enum level)(lv + 1));
		break;
	}
	if (lv < need)
		put(pr, ")");
}

int expr_format(const struct expr *e, expr_rename_fn rename, void *ctx, char *buf, size_t len,
		char *err, size_t errlen)
{
	struct printer pr = {.e = e,
			     .rename = rename,
			     .ctx = ctx,
			     .buf = buf,
			     .len = len,
			     .err = err,
			     .errlen = errlen};
	if (!len)
		return -1;
	buf[0] = '\0';
	if (!(pr.name = malloc(EXPR_FORMAT_MAX))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	print_node(&pr, e->root, L_IF);
	free(pr.name);
	return pr.failed ? -1 : (int)pr.at;
}
