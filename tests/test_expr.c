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
    /* comparisons, logic, conditionals and functions (perf's metric language) */
    {__LINE__, "1 < 2", 1},
    {__LINE__, "2 < 1", 0},
    {__LINE__, "2 > 1", 1},
    {__LINE__, "2 <= 2", 1},
    {__LINE__, "3 >= 4", 0},
    {__LINE__, "2 == 2", 1},
    {__LINE__, "2 != 2", 0},
    {__LINE__, "1 + 1 < 3", 1}, /* + binds tighter than < */
    {__LINE__, "1 < 2 < 3", 1}, /* (1 < 2) < 3 */
    {__LINE__, "3 > 2 > 1", 0}, /* (3 > 2) > 1 */
    {__LINE__, "1 & 0", 0},
    {__LINE__, "2 & 3", 1},
    {__LINE__, "0 | 0", 0},
    {__LINE__, "0 | 5", 1},
    {__LINE__, "1 ^ 1", 0},
    {__LINE__, "1 ^ 0", 1},
    {__LINE__, "1 | 0 & 0", 1}, /* & binds tighter than | */
    {__LINE__, "(1 | 0) & 0", 0},
    {__LINE__, "1 ^ 1 & 0", 1},	    /* & tighter than ^ */
    {__LINE__, "0 | 1 ^ 1", 0},	    /* ^ tighter than | */
    {__LINE__, "1 < 2 & 3 > 4", 0}, /* comparisons tighter than & */
    {__LINE__, "1 and 1", 1},
    {__LINE__, "1 and 0 or 1", 1},
    {__LINE__, "not 0", 1},
    {__LINE__, "not 3", 0},
    {__LINE__, "!0 + 1", 2}, /* unary binds tightest */
    {__LINE__, "not 1 + 1", 1},
    {__LINE__, "7 % 4", 3},
    {__LINE__, "1 + 7 % 4 * 2", 7},
    {__LINE__, "7 % 0", NA},
    {__LINE__, "10 if 1 else 20", 10},
    {__LINE__, "10 if 0 else 20", 20},
    {__LINE__, "1 + 2 if cycles > instructions else 3", 3},
    {__LINE__, "1 if 0 else 2 if 1 else 3", 2}, /* right-associative */
    {__LINE__, "(1 if 0 else 2) * 3", 6},
    {__LINE__, "cycles if 1 else missing", 2000}, /* the branch not taken may be n/a */
    {__LINE__, "missing if 0 else 4", 4},
    {__LINE__, "1 if missing else 2", NA},
    {__LINE__, "min(3, 4)", 3},
    {__LINE__, "max(3, 4)", 4},
    {__LINE__, "min(cycles, instructions) / max(1, zero)", 1000},
    {__LINE__, "max(1 if 0 else 9, 2)", 9},
    {__LINE__, "d_ratio(cycles, instructions)", 2},
    {__LINE__, "d_ratio(cycles, zero)", 0},
    {__LINE__, "d_ratio(1, 0) + 1", 1},
    {__LINE__, "min(missing, 1)", NA},
    {__LINE__, "1 < missing", NA},
    {__LINE__, "max(neg, -5) * min(2,3)", -8},
};

/* perf syntax (EXPR_PERF): names with escapes, PMU prefixes and modifiers, #literals. */
static const struct {
	int line;
	const char *text;
	const char *names; /* the names it refers to, unescaped, joined with '|' */
} perf_cases[] = {
    {__LINE__, "INST_RETIRED.ANY / CPU_CLK_UNHALTED.THREAD",
     "INST_RETIRED.ANY|CPU_CLK_UNHALTED.THREAD"},
    {__LINE__, "cpu@INST_RETIRED.ANY\\,cmask\\=1@ / 2", "cpu@INST_RETIRED.ANY,cmask=1@"},
    {__LINE__, "cpu_core@TOPDOWN.SLOTS@ * #slots", "cpu_core@TOPDOWN.SLOTS@|#slots"},
    {__LINE__, "topdown\\-fe\\-bound / (topdown\\-be\\-bound + 1)",
     "topdown-fe-bound|topdown-be-bound"},
    {__LINE__, "msr@tsc@ / duration_time", "msr@tsc@|duration_time"},
    {__LINE__, "(msr@aperf@ if #SMT_on else 1) / #num_cpus_online",
     "msr@aperf@|#SMT_on|#num_cpus_online"},
    {__LINE__, "CYCLES:k + cycles:u?", "CYCLES:k|cycles:u?"},
    {__LINE__, "has_event(cpu@MEM.X@) * source_count(UNC_A) + strcmp_cpuid_str(0x41)",
     "has_event(cpu@MEM.X@)|source_count(UNC_A)|strcmp_cpuid_str(0x41)"},
    {__LINE__, "#num_dies + #num_cores + #num_packages + #core_wide + #num_cpus",
     "#num_dies|#num_cores|#num_packages|#core_wide|#num_cpus"},
};

/* expr_format: the perf text, printed in pmutop's syntax with names replaced. */
static const struct {
	int line;
	const char *text;
	const char *want;
} format_cases[] = {
    {__LINE__, "a + b * c", "v_a + v_b * v_c"},
    {__LINE__, "(a + b) * c", "(v_a + v_b) * v_c"},
    {__LINE__, "a - (b - c)", "v_a - (v_b - v_c)"},
    {__LINE__, "(a - b) - c", "v_a - v_b - v_c"},
    {__LINE__, "a if b > 1 else c if d else 2", "v_a if v_b > 1 else v_c if v_d else 2"},
    {__LINE__, "(a if b else c) * 2", "(v_a if v_b else v_c) * 2"},
    {__LINE__, "min(a, b) + d_ratio(c, 1e9)", "min(v_a, v_b) + d_ratio(v_c, 1000000000)"},
    {__LINE__, "-(a + b)", "-(v_a + v_b)"},
    {__LINE__, "a & (b | c)", "v_a & (v_b | v_c)"},
    {__LINE__, "a < b & c", "v_a < v_b & v_c"},
    {__LINE__, "0.1 * a", "0.1 * v_a"},
};

static int rename_v(void *ctx, const char *name, char *out, size_t outlen, char *err, size_t errlen)
{
	(void)ctx;
	if (strcmp(name, "bad") == 0) {
		snprintf(err, errlen, "no such thing: %s", name);
		return -1;
	}
	snprintf(out, outlen, "v_%s", name);
	return 0;
}

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
    {__LINE__, "1 if 2", "column 7: 'if' at column 3 needs 'else' but found end of formula"},
    {__LINE__, "1 else 2", "column 3: 'else' without 'if'"},
    {__LINE__, "if 1 else 2", "column 1: operand expected before 'if'"},
    {__LINE__, "1 + else", "column 5: operand expected before 'else'"},
    {__LINE__, "min(1)", "column 6: min() takes two arguments: expected ',' but found ')'"},
    {__LINE__, "max(1, 2", "column 4: unbalanced '(': no matching ')'"},
    {__LINE__, "1 < < 2", "column 5: operand expected before '<'"},
    {__LINE__, "1 & | 2", "column 5: operand expected before '|'"},
    {__LINE__, "1 <", "column 4: operand expected at end of formula"},
    {__LINE__, "a\\-b", "column 2: operator expected before '\\'"}, /* escapes: perf syntax only */
    {__LINE__, "not", "column 4: operand expected at end of formula"},
};

/* Errors of perf syntax. */
static const struct {
	int line;
	const char *text;
	const char *err;
} perf_bad_cases[] = {
    {__LINE__, "a\\", "column 2: '\\' at the end of a name escapes nothing"},
    {__LINE__, "# + 1", "column 1: a literal name expected after '#'"},
    {__LINE__, "has_event()", "column 11: has_event: an event name expected"},
    {__LINE__, "x ?? y", "column 3: operator expected before '?'"},
    {__LINE__, "a if b", "column 7: 'if' at column 3 needs 'else' but found end of formula"},
};

static void check_perf(void)
{
	char err[256];
	for (size_t i = 0; i < sizeof(perf_cases) / sizeof(perf_cases[0]); i++) {
		struct expr *e = expr_parse_flags(perf_cases[i].text, EXPR_PERF, err, sizeof(err));
		CHECK(e != NULL, "line %d: %s", perf_cases[i].line, err);
		if (!e)
			continue;
		const char *const *names;
		char joined[512] = "";
		int n = expr_vars(e, &names);
		for (int k = 0; k < n; k++)
			snprintf(joined + strlen(joined), sizeof(joined) - strlen(joined), "%s%s",
				 k ? "|" : "", names[k]);
		CHECK(strcmp(joined, perf_cases[i].names) == 0, "line %d: names %s, want %s",
		      perf_cases[i].line, joined, perf_cases[i].names);
		expr_free(e);
	}
	for (size_t i = 0; i < sizeof(perf_bad_cases) / sizeof(perf_bad_cases[0]); i++) {
		err[0] = '\0';
		struct expr *e =
		    expr_parse_flags(perf_bad_cases[i].text, EXPR_PERF, err, sizeof(err));
		CHECK(e == NULL, "line %d: parsed", perf_bad_cases[i].line);
		CHECK(strcmp(err, perf_bad_cases[i].err) == 0, "line %d: error \"%s\", want \"%s\"",
		      perf_bad_cases[i].line, err, perf_bad_cases[i].err);
		expr_free(e);
	}
	for (size_t i = 0; i < sizeof(format_cases) / sizeof(format_cases[0]); i++) {
		struct expr *e =
		    expr_parse_flags(format_cases[i].text, EXPR_PERF, err, sizeof(err));
		CHECK(e != NULL, "line %d: %s", format_cases[i].line, err);
		if (!e)
			continue;
		char out[512];
		int n = expr_format(e, rename_v, NULL, out, sizeof(out), err, sizeof(err));
		CHECK(n > 0 && strcmp(out, format_cases[i].want) == 0,
		      "line %d: \"%s\", want \"%s\"", format_cases[i].line, out,
		      format_cases[i].want);
		/* the printed text parses back in pmutop's syntax */
		struct expr *back = expr_parse(out, err, sizeof(err));
		CHECK(back != NULL, "line %d: printed text does not parse: %s",
		      format_cases[i].line, err);
		expr_free(back);
		expr_free(e);
	}
	/* a failing rename and a too small buffer are errors with the reason */
	struct expr *e = expr_parse_flags("a + bad", EXPR_PERF, err, sizeof(err));
	char out[8];
	CHECK(e && expr_format(e, rename_v, NULL, out, sizeof(out), err, sizeof(err)) < 0 &&
		  strcmp(err, "no such thing: bad") == 0,
	      "rename failure: %s", err);
	expr_free(e);
	e = expr_parse_flags("aaaa + bbbb", EXPR_PERF, err, sizeof(err));
	CHECK(e && expr_format(e, rename_v, NULL, out, sizeof(out), err, sizeof(err)) < 0 &&
		  strcmp(err, "formula longer than 7 bytes") == 0,
	      "overflow: %s", err);
	expr_free(e);
	/* nesting is bounded: a deep chain of if/else is refused, not a stack overflow */
	static char deep[4096];
	size_t at = 0;
	for (int k = 0; k < 300; k++)
		at += (size_t)snprintf(deep + at, sizeof(deep) - at, "1 if 1 else ");
	snprintf(deep + at, sizeof(deep) - at, "0");
	e = expr_parse(deep, err, sizeof(err));
	CHECK(e == NULL && strstr(err, "nested too deeply"), "deep if: %s", err);
	expr_free(e);
	/* a long chain is as deep as it is long (evaluated and printed recursively): a 3,000-term
	 * sum, as in a hostile pmu-events file, is refused with the reason; 500 terms still work */
	size_t cap = 3000 * 16 + 16;
	char *chain = malloc(cap), *printed = malloc(cap);
	for (int terms = 3000; terms >= 500; terms -= 2500) {
		at = 0;
		for (int k = 0; k < terms; k++)
			at += (size_t)snprintf(chain + at, cap - at, "%sinterval", k ? " + " : "");
		e = expr_parse_flags(chain, EXPR_PERF, err, sizeof(err));
		if (terms == 3000) {
			CHECK(e == NULL && strstr(err, "nested too deeply (more than 512 levels"),
			      "3000-term sum: %s", err);
			expr_free(e);
		}
	}
	CHECK(e != NULL, "500-term sum: %s", err);
	double v = 0;
	CHECK(e && expr_eval(e, lookup, NULL, &v) == 0 && v == 250, "500 x 0.5 = %g", v);
	CHECK(e && expr_format(e, rename_v, NULL, printed, cap, err, sizeof(err)) > 0 &&
		  strncmp(printed, "v_interval + v_interval", 23) == 0,
	      "500-term sum printed: %s", err);
	expr_free(e);
	free(chain);
	free(printed);
}

int main(void)
{
	char err[160];
	check_perf();
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
