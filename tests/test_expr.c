/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_expr.c: metric formula parser and evaluator: values, precedence, n/a and every error. */
#include "expr.h"
#include "harness.h"

static const struct {
	const char *name;
	double value;
} vars[] = {
    {"cycles", 2000}, {"instructions", 1000}, {"zero", 0}, {"neg", -4}, {"interval", 0.5},
    {"a.b", 7},	      {"nan_input", NAN},
};

static int lookup(void *ctx, const char *name, double *out)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (strcmp(vars[i].name, name) == 0) {
			*out = vars[i].value;
			return 0;
		}
	return -1;
}

#define NA 1e300 /* marker: expected n/a */

static const struct {
	int line;
	const char *text;
	double want;
} ok_cases[] = {
    {__LINE__, "1", 1},
    {__LINE__, "1 + 2 * 3", 7},
    {__LINE__, "(1 + 2) * 3", 9},
    {__LINE__, "10 - 4 - 3", 3}, /* left associative */
    {__LINE__, "64 / 4 / 2", 8},
    {__LINE__, "2 * 3 + 4 * 5", 26},
    {__LINE__, "-2 * 3", -6},
    {__LINE__, "--2", 2},
    {__LINE__, "+2", 2},
    {__LINE__, "2 * -3", -6},
    {__LINE__, "-(1 + 2)", -3},
    {__LINE__, "1 - -1", 2},
    {__LINE__, "1.5", 1.5},
    {__LINE__, ".5", 0.5},
    {__LINE__, "5.", 5},
    {__LINE__, "1e3", 1000},
    {__LINE__, "2.5E-3", 0.0025},
    {__LINE__, "1e+2", 100},
    {__LINE__, "0x1f", 31},
    {__LINE__, "0XFF", 255},
    {__LINE__, "cycles / instructions", 2},
    {__LINE__, "100 * instructions / cycles", 50},
    {__LINE__, "1000 * instructions / cycles / interval", 1000},
    {__LINE__, "a.b * 2", 14},
    {__LINE__, "  cycles\t/ instructions  ", 2},
    {__LINE__, "neg * neg", 16},
    {__LINE__, "((((1))))", 1},
    /* n/a: division by zero, missing or n/a inputs, non-finite results */
    {__LINE__, "1 / 0", NA},
    {__LINE__, "cycles / zero", NA},
    {__LINE__, "1 / (instructions - 1000)", NA},
    {__LINE__, "missing", NA},
    {__LINE__, "missing * 0", NA},
    {__LINE__, "1 + missing", NA},
    {__LINE__, "nan_input + 1", NA},
    {__LINE__, "1e308 * 10", NA},
    /* fallback operator */
    {__LINE__, "missing ?? 5", 5},
    {__LINE__, "cycles ?? 5", 2000},
    {__LINE__, "1 / zero ?? cycles / instructions", 2},
    {__LINE__, "missing ?? missing", NA},
    {__LINE__, "1 + 1 ?? 5", 2}, /* ?? binds weakest */
};

static const struct {
	int line;
	const char *text;
	const char *err;
} bad_cases[] = {
    {__LINE__, "", "column 1: empty formula"},
    {__LINE__, "   ", "column 4: empty formula"},
    {__LINE__, "(1 + 2", "column 1: unbalanced '(': no matching ')'"},
    {__LINE__, "1 + (2 * (3)", "column 5: unbalanced '(': no matching ')'"},
    {__LINE__, "1 + 2)", "column 6: unbalanced ')'"},
    {__LINE__, ")", "column 1: unbalanced ')'"},
    {__LINE__, "()", "column 2: empty parentheses"},
    {__LINE__, "1 +", "column 4: operand expected at end of formula"},
    {__LINE__, "1 *", "column 4: operand expected at end of formula"},
    {__LINE__, "-", "column 2: operand expected at end of formula"},
    {__LINE__, "1 * / 2", "column 5: operand expected before '/'"},
    {__LINE__, "* 2", "column 1: operand expected before '*'"},
    {__LINE__, "1 $ 2", "column 3: operator expected before '$'"},
    {__LINE__, "$", "column 1: unexpected character '$'"},
    {__LINE__, "1 + #", "column 5: unexpected character '#'"},
    {__LINE__, "a b", "column 3: operator expected before 'b'"},
    {__LINE__, "2 (3)", "column 3: operator expected before '('"},
    {__LINE__, "1.2.3", "column 1: malformed number"},
    {__LINE__, "12abc", "column 1: malformed number"},
    {__LINE__, "1e", "column 1: malformed number: exponent digits expected"},
    {__LINE__, "1e+", "column 1: malformed number: exponent digits expected"},
    {__LINE__, "0x", "column 1: malformed number: hex digits expected after 0x"},
    {__LINE__, "0xfg", "column 1: malformed number"},
    {__LINE__, "1e999", "column 1: number out of range"},
    {__LINE__, "1 ? 2", "column 3: unexpected character '?' (the fallback operator is '\?\?')"},
    {__LINE__, "1 ??", "column 5: operand expected at end of formula"},
    {__LINE__, "(1 + 2]", "column 7: expected ')' but found ']'"},
    {__LINE__, "\x01", "column 1: unexpected character byte 0x01"},
};

int main(void)
{
	char err[160];
	for (size_t i = 0; i < sizeof(ok_cases) / sizeof(ok_cases[0]); i++) {
		err[0] = '\0';
		struct expr *e = expr_parse(ok_cases[i].text, err, sizeof(err));
		CHECK(e != NULL, "line %d: \"%s\": %s", ok_cases[i].line, ok_cases[i].text, err);
		if (!e)
			continue;
		double v = 0;
		int rc = expr_eval(e, lookup, NULL, &v);
		if (ok_cases[i].want == NA) {
			CHECK(rc == -1 && isnan(v), "line %d: \"%s\" = %g, want n/a",
			      ok_cases[i].line, ok_cases[i].text, v);
		} else {
			CHECK(rc == 0, "line %d: \"%s\" gave n/a", ok_cases[i].line,
			      ok_cases[i].text);
			CHECK(fabs(v - ok_cases[i].want) <= 1e-12 * fabs(ok_cases[i].want),
			      "line %d: \"%s\" = %.17g, want %.17g", ok_cases[i].line,
			      ok_cases[i].text, v, ok_cases[i].want);
		}
		CHECK_STR(expr_text(e), ok_cases[i].text);
		expr_free(e);
	}
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		err[0] = '\0';
		struct expr *e = expr_parse(bad_cases[i].text, err, sizeof(err));
		CHECK(e == NULL, "line %d: \"%s\" parsed", bad_cases[i].line, bad_cases[i].text);
		CHECK(strcmp(err, bad_cases[i].err) == 0, "line %d: error \"%s\", want \"%s\"",
		      bad_cases[i].line, err, bad_cases[i].err);
		expr_free(e);
	}

	/* Names referenced, distinct, in order of first use. */
	struct expr *e = expr_parse("1000 * miss / inst + miss / cycles ?? inst", err, sizeof(err));
	CHECK(e != NULL, "%s", err);
	if (e) {
		const char *const *names;
		int n = expr_vars(e, &names);
		CHECK_INT(n, 3);
		if (n == 3) {
			CHECK_STR(names[0], "miss");
			CHECK_STR(names[1], "inst");
			CHECK_STR(names[2], "cycles");
		}
		double v;
		CHECK(expr_eval(e, NULL, NULL, &v) == -1 && isnan(v), "no lookup -> n/a");
		expr_free(e);
	}
	e = expr_parse("42", err, sizeof(err));
	if (e) {
		const char *const *names;
		CHECK_INT(expr_vars(e, &names), 0);
		expr_free(e);
	}
	/* Deep nesting is refused rather than overflowing the stack. */
	char deep[1200];
	memset(deep, '(', 600);
	deep[600] = '1';
	memset(deep + 601, ')', 598);
	deep[1199] = '\0';
	e = expr_parse(deep, err, sizeof(err));
	CHECK(e == NULL && strstr(err, "nested too deeply"), "deep nesting: %s", err);
	memset(deep, '-', 1000);
	deep[1000] = '1';
	deep[1001] = '\0';
	e = expr_parse(deep, err, sizeof(err));
	CHECK(e == NULL && strstr(err, "nested too deeply"), "deep unary: %s", err);
	expr_free(NULL);
	return harness_done();
}
