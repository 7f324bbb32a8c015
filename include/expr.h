/* SPDX-License-Identifier: GPL-2.0-or-later */
/* expr.h: metric formulas: parse once, evaluate every tick; n/a (NAN) instead of bogus numbers. */
#ifndef PMUTOP_EXPR_H
#define PMUTOP_EXPR_H
#include <stddef.h>

/*
 * Grammar (lowest precedence first):
 *   expr    := either ( "??" either )*     a ?? b: a, or b where a is n/a
 *   either  := sum
 *   sum     := product ( ("+" | "-") product )*
 *   product := unary ( ("*" | "/") unary )*
 *   unary   := "-" unary | "+" unary | primary
 *   primary := NUMBER | NAME | "(" expr ")"
 * NUMBER: 12, 1.5, .5, 1e9, 2.5E-3, 0x1f. NAME: [A-Za-z_][A-Za-z0-9_.]*.
 */
struct expr;

/* Parses @text. Returns the formula, or NULL with "column N: message" in @err. */
struct expr *expr_parse(const char *text, char *err, size_t errlen);
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

/* The distinct names @e refers to, in order of first use (owned by @e). Returns the count and
 * sets *@names (may be NULL when there are none). */
int expr_vars(const struct expr *e, const char *const **names);

/* The text @e was parsed from. */
const char *expr_text(const struct expr *e);

#endif
