/* SPDX-License-Identifier: GPL-2.0-or-later */
/* expr.h: metric formulas: parse once, evaluate every tick; n/a (NAN) instead of bogus numbers. */
#ifndef PMUTOP_EXPR_H
#define PMUTOP_EXPR_H
#include <stddef.h>

/*
 * Grammar (lowest precedence first; perf's metric syntax, plus pmutop's "??"):
 *   expr    := either [ "if" either "else" expr ]   a if c else b: a where c is not 0, else b
 *   either  := or ( "??" or )*                      a ?? b: a, or b where a is n/a
 *   or      := xor ( ("|" | "or") xor )*            logical: 1 or 0
 *   xor     := and ( "^" and )*
 *   and     := cmp ( ("&" | "and") cmp )*
 *   cmp     := sum ( ("<" | ">" | "<=" | ">=" | "==" | "!=") sum )*   1 or 0
 *   sum     := product ( ("+" | "-") product )*
 *   product := unary ( ("*" | "/" | "%") unary )*
 *   unary   := "-" unary | "+" unary | ("!" | "not") unary | primary
 *   primary := NUMBER | NAME | FUNC "(" expr "," expr ")" | "(" expr ")"
 * NUMBER: 12, 1.5, .5, 1e9, 2.5E-3, 0x1f. NAME: [A-Za-z_][A-Za-z0-9_.]*. FUNC: min, max,
 * d_ratio (a / b, 0 where b is 0). "if", "else", "and", "or", "not" are not names.
 * With EXPR_PERF (perf's pmu-events MetricExpr): names may also hold ':', '@', '?' and
 * backslash escapes ("cpu@INST_RETIRED.ANY\,cmask\=1@", "topdown\-fe\-bound"; the name is
 * kept unescaped), "#name" is a literal (#smt_on, #slots), has_event(NAME), source_count(NAME)
 * and strcmp_cpuid_str(NAME) become one name "has_event(NAME)" for the caller to resolve, and
 * "??" is not an operator.
 */
struct expr;

/* Parses @text. Returns the formula, or NULL with "column N: message" in @err. */
struct expr *expr_parse(const char *text, char *err, size_t errlen);
#define EXPR_PERF 1u /* perf's metric syntax, see above */
struct expr *expr_parse_flags(const char *text, unsigned flags, char *err, size_t errlen);
void expr_free(struct expr *e);

/* Looks a name up: 0 and *@out, or -1 when the name has no value this tick. */
typedef int (*expr_lookup_fn)(void *ctx, const char *name, double *out);

/* Evaluates @e. Returns 0 with a finite *@out, or -1 with *@out = NAN (n/a) when an input is
 * missing or n/a, a division by zero happens, or the result is not finite. */
int expr_eval(const struct expr *e, expr_lookup_fn lookup, void *ctx, double *out);
/* As expr_eval, and sets *@used (when not NULL) to the variables the value was computed from:
 * bit v = expr_vars()[v] (the first 64); of a ?? b only the branch that gave the value. 0 when
 * the result is n/a. */
int expr_eval_used(const struct expr *e, expr_lookup_fn lookup, void *ctx, double *out,
		   unsigned long long *used);
/* As expr_eval_used with the variables' values given: @vals[v] for expr_vars()[v], NAN where
 * a name has no value. */
int expr_eval_values(const struct expr *e, const double *vals, double *out,
		     unsigned long long *used);
/* As expr_eval_values by recursion over the parsed tree: the reference the flat program that
 * expr_eval_values runs (compiled once by expr_parse) is tested against. */
int expr_eval_tree(const struct expr *e, const double *vals, double *out, unsigned long long *used);

/* The branches of a top-level "a ?? b ?? c" in order (1 when @e has none), each as the
 * variables it reads (bit v = expr_vars()[v], the first 64). Returns the number filled. */
int expr_else_branches(const struct expr *e, unsigned long long *masks, int max);

/* The distinct names @e refers to, in order of first use (owned by @e). Returns the count and
 * sets *@names (may be NULL when there are none). */
int expr_vars(const struct expr *e, const char *const **names);

/* The text @e was parsed from. */
const char *expr_text(const struct expr *e);

/* Gives the text that stands for variable @name in expr_format: a name, a number or a
 * parenthesised formula in pmutop's syntax. Returns 0, or -1 with the reason in @err. */
typedef int (*expr_rename_fn)(void *ctx, const char *name, char *out, size_t outlen, char *err,
			      size_t errlen);
#define EXPR_FORMAT_MAX 4096 /* bytes: the longest replacement of one name */
/* Writes @e in pmutop's syntax (without EXPR_PERF) into @buf, each variable replaced through
 * @rename, parenthesised only where precedence needs it. Returns the length, or -1 with the
 * reason in @err (a rename failed, or the text needs more than @len bytes). */
int expr_format(const struct expr *e, expr_rename_fn rename, void *ctx, char *buf, size_t len,
		char *err, size_t errlen);

#endif
