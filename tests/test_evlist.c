/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_evlist.c: perf-style event lists: tokenizer, encodings of every form, error columns,
 * and groups kept in one counter set by the planner. */
#include "encode.h"
#include "evlist.h"
#include "family.h"
#include "harness.h"
#include "mode.h"

#include <sys/stat.h>
#include <unistd.h>

/* The tokenizer: each item as name|spec|group|column, joined with ' '; or the error column. */
static const struct {
	int line;
	const char *list;
	const char *items; /* NULL: an error */
	int errcol;
	const char *err;
} split_cases[] = {
    {__LINE__, "cycles,instructions", "|cycles|0|1 |instructions|0|8", 0, NULL},
    {__LINE__, "cpu/event=0x3c,umask=0x0/", "|cpu/event=0x3c,umask=0x0/|0|1", 0, NULL},
    {__LINE__, "{cycles,instructions}", "|cycles|1|2 |instructions|1|9", 0, NULL},
    {__LINE__, "{cycles,instructions}:u,cs", "|cycles:u|1|2 |instructions:u|1|9 |cs|0|25", 0, NULL},
    {__LINE__, "{cpu/event=0x3c/,r3c}:uk", "|cpu/event=0x3c/uk|1|2 |r3c:uk|1|18", 0, NULL},
    {__LINE__, "ipc=cycles, ok?=r3c", "ipc|cycles|0|5 ok?|r3c|0|17", 0, NULL},
    {__LINE__, "cpu/event=0x3c,name=clk,umask=0/", "clk|cpu/event=0x3c,umask=0/|0|1", 0, NULL},
    {__LINE__, "cpu/name=clk,event=0x3c/k", "clk|cpu/event=0x3c/k|0|1", 0, NULL},
    {__LINE__, "cpu/event=0x3c,name=my-clock/", "my_clock|cpu/event=0x3c/|0|1", 0, NULL},
    {__LINE__, "{a=cycles,b=instructions},{c=cs,d=migrations}",
     "a|cycles|1|4 b|instructions|1|13 c|cs|2|30 d|migrations|2|35", 0, NULL},
    {__LINE__, "r1b7:config1=0x10001,skl::INST_RETIRED:ANY_P:u",
     "|r1b7:config1=0x10001|0|1 |skl::INST_RETIRED:ANY_P:u|0|22", 0, NULL},
    /* broken lists: the column of what is wrong */
    {__LINE__, "{cycles,instructions", NULL, 1, "not closed"},
    {__LINE__, "cycles,,instructions", NULL, 8, "empty event"},
    {__LINE__, "cycles,", NULL, 8, "empty event after ','"},
    {__LINE__, "cycles}", NULL, 7, "'}' without '{'"},
    {__LINE__, "{a,{b}}", NULL, 4, "groups do not nest"},
    {__LINE__, "{}", NULL, 2, "empty group"},
    {__LINE__, "cs,cpu/event=0x3c", NULL, 7, "unterminated PMU"},
    {__LINE__, "{cycles}:x", NULL, 10, "bad group modifier 'x'"},
    {__LINE__, "{cycles}cs", NULL, 9, "expected ','"},
    {__LINE__, "ipc=", NULL, 5, "no event after \"ipc=\""},
    {__LINE__, "cpu/name=,event=1/", NULL, 10, "empty name= term"},
};

static void test_split(void)
{
	for (size_t i = 0; i < sizeof(split_cases) / sizeof(split_cases[0]); i++) {
		struct evlist_item items[8];
		char err[256] = "", got[4096] = "";
		int col = -1;
		int n = evlist_parse(split_cases[i].list, items, 8, &col, err, sizeof(err));
		if (!split_cases[i].items) {
			CHECK(n < 0, "line %d: parsed", split_cases[i].line);
			CHECK(col == split_cases[i].errcol, "line %d: column %d, want %d (%s)",
			      split_cases[i].line, col, split_cases[i].errcol, err);
			CHECK(strstr(err, split_cases[i].err), "line %d: \"%s\"",
			      split_cases[i].line, err);
			char want[32];
			snprintf(want, sizeof(want), "column %d: ", split_cases[i].errcol);
			CHECK(strncmp(err, want, strlen(want)) == 0, "line %d: \"%s\"",
			      split_cases[i].line, err);
			continue;
		}
		CHECK(n >= 0, "line %d: %s", split_cases[i].line, err);
		for (int k = 0; k < n; k++) {
			size_t u = strlen(got);
			snprintf(got + u, sizeof(got) - u, "%s%s%s|%s|%d|%d", k ? " " : "",
				 items[k].name, items[k].optional ? "?" : "", items[k].spec,
				 items[k].group, items[k].column);
		}
		CHECK_STR(got, split_cases[i].items);
		/* formatted back, the list parses to the same items */
		char again[1024];
		struct evlist_item back[8];
		CHECK(evlist_format(items, n, again, sizeof(again)) == 0, "line %d: format",
		      split_cases[i].line);
		int m = evlist_parse(again, back, 8, NULL, err, sizeof(err));
		CHECK(m == n, "line %d: \"%s\" reparsed to %d items (%s)", split_cases[i].line,
		      again, m, err);
		for (int k = 0; k < n && k < m; k++) {
			CHECK_STR(back[k].spec, items[k].spec);
			CHECK_INT(back[k].group, items[k].group);
		}
	}
	char alias[48];
	evlist_alias("L1-dcache-load-misses", alias, sizeof(alias));
	CHECK_STR(alias, "L1_dcache_load_misses");
	evlist_alias("perf::CYCLES", alias, sizeof(alias));
	CHECK_STR(alias, "CYCLES");
	evlist_alias("msr/tsc/", alias, sizeof(alias));
	CHECK_STR(alias, "msr_tsc");
	/* a name that starts with a digit gets a letter even when it fills the buffer */
	evlist_alias("123456789012345678901234567890123456789012345678901234567890", alias,
		     sizeof(alias));
	CHECK(alias[0] == 'e' && strlen(alias) == sizeof(alias) - 1, "\"%s\"", alias);
}

#define X_USER 1
#define X_KERNEL 2
#define X_HV 4
#define X_HOST 8
#define X_GUEST 16
#define X_IDLE 32
#define ANY (-1)

/* Encodings on the x86-skylake tree (cpu: event 0-7, umask 8-15, edge 18, pc 19, any 21,
 * inv 23, cmask 24-31, offcore_rsp config1:0-63, ldlat config1:0-15; events/ names) and a
 * tree made here with a split field (event = config:0-7,32-35, as AMD's). */
static const struct {
	int line;
	const char *tree; /* "skl" or "split" */
	const char *spec;
	int ok;
	unsigned type;
	unsigned long long config, config1;
	int exclude; /* X_ bits, or ANY */
	int precise;
	int errpos;	 /* 0-based offset of the error, when !ok */
	const char *err; /* when !ok */
} enc_cases[] = {
    /* perf's generic names: PERF_TYPE_HARDWARE (0), SOFTWARE (1), HW_CACHE (3) */
    {__LINE__, "skl", "cycles", 1, 0, 0, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "instructions", 1, 0, 1, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "cache-misses", 1, 0, 3, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "branch-misses", 1, 0, 5, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "ref-cycles", 1, 0, 9, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "stalled-cycles-backend", 1, 0, 8, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "L1-dcache-load-misses", 1, 3, 0x10000, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "L1-dcache-loads", 1, 3, 0x0, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "LLC-store-misses", 1, 3, 0x10102, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "dTLB-load-misses", 1, 3, 0x10003, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "iTLB-load-misses", 1, 3, 0x10004, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "branch-load-misses", 1, 3, 0x10005, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "L1-icache-prefetches", 1, 3, 0x201, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "node-loads", 1, 3, 0x6, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "cs", 1, 1, 3, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "migrations", 1, 1, 4, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "faults", 1, 1, 2, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "major-faults", 1, 1, 6, 0, ANY, 0, 0, NULL},
    /* modifiers: u k h select levels, G H guest/host, I idle, p precise (libpfm4's generic
     * events exclude the guest, as perf does by default) */
    {__LINE__, "skl", "cycles:u", 1, 0, 0, 0, X_KERNEL | X_HV | X_GUEST, 0, 0, NULL},
    {__LINE__, "skl", "cycles:k", 1, 0, 0, 0, X_USER | X_HV | X_GUEST, 0, 0, NULL},
    {__LINE__, "skl", "cycles:uk", 1, 0, 0, 0, X_HV | X_GUEST, 0, 0, NULL},
    {__LINE__, "skl", "cycles:h", 1, 0, 0, 0, X_USER | X_KERNEL | X_GUEST, 0, 0, NULL},
    {__LINE__, "skl", "L1-dcache-load-misses:G", 1, 3, 0x10000, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "r3c:uH", 1, 4, 0x3c, 0, X_KERNEL | X_HV | X_GUEST, 0, 0, NULL},
    {__LINE__, "skl", "r3c:kG", 1, 4, 0x3c, 0, X_USER | X_HV | X_HOST, 0, 0, NULL},
    {__LINE__, "skl", "r3c:uI", 1, 4, 0x3c, 0, X_KERNEL | X_HV | X_IDLE, 0, 0, NULL},
    {__LINE__, "skl", "r1c4:upp", 1, 4, 0x1c4, 0, X_KERNEL | X_HV, 2, 0, NULL},
    {__LINE__, "skl", "r1b7:config1=0x10001:k", 1, 4, 0x1b7, 0x10001, X_USER | X_HV, 0, 0, NULL},
    /* PMU/term=value,.../ with the format/ terms, events/ names, modifiers after the '/' */
    {__LINE__, "skl", "cpu/event=0x3c,umask=0x0/", 1, 4, 0x3c, 0, 0, 0, 0, NULL},
    {__LINE__, "skl", "cpu/event=0xc0,umask=0x1,cmask=2,inv=1,edge=1/", 1, 4, 0x28401c0, 0, 0, 0, 0,
     NULL},
    {__LINE__, "skl", "cpu/event=0x3c,any=1/", 1, 4, 0x20003c, 0, 0, 0, 0, NULL},
    {__LINE__, "skl", "cpu/event=0xb7,umask=0x1,offcore_rsp=0x10001/", 1, 4, 0x1b7, 0x10001, 0, 0,
     0, NULL},
    {__LINE__, "skl", "cpu/config=0x1234,config1=7/", 1, 4, 0x1234, 7, 0, 0, 0, NULL},
    {__LINE__, "skl", "cpu/cpu-cycles/", 1, 4, 0x3c, 0, 0, 0, 0, NULL},
    {__LINE__, "skl", "cpu/cache-misses/", 1, 4, 0x412e, 0, 0, 0, 0, NULL},
    {__LINE__, "skl", "cpu/mem-loads/", 1, 4, 0x1cd, 3, 0, 0, 0, NULL},
    {__LINE__, "skl", "cpu/cache-misses,cmask=1/", 1, 4, 0x100412e, 0, 0, 0, 0, NULL},
    {__LINE__, "skl", "cpu/event=0x3c/u", 1, 4, 0x3c, 0, X_KERNEL | X_HV, 0, 0, NULL},
    {__LINE__, "skl", "cpu/event=0x3c/ukpp", 1, 4, 0x3c, 0, X_HV, 2, 0, NULL},
    {__LINE__, "skl", "cpu/event=0x3c,name=clk/", 1, 4, 0x3c, 0, 0, 0, 0, NULL},
    {__LINE__, "skl", "msr/tsc/", 1, 10, 0, 0, 0, 0, 0, NULL},
    {__LINE__, "split", "amdcore/event=0x1c0/", 1, 4, 0x1000000c0ULL, 0, 0, 0, 0, NULL},
    {__LINE__, "split", "amdcore/event=0xfff/", 1, 4, 0xf000000ffULL, 0, 0, 0, 0, NULL},
    /* libpfm4 names keep working */
    {__LINE__, "skl", "skl::INST_RETIRED:ANY_P", 1, 4, 0xc0, 0, ANY, 0, 0, NULL},
    {__LINE__, "skl", "perf::CYCLES", 1, 0, 0, 0, ANY, 0, 0, NULL},
    /* broken strings: the offset of what is wrong */
    {__LINE__, "skl", "cpu/event=0x3c,umaskk=0x0/", 0, 0, 0, 0, 0, 0, 15,
     "unknown term \"umaskk\" for PMU cpu (terms: any, cmask, edge, event, inv, ldlat, "
     "offcore_rsp, pc, umask, config, config1, config2, name)"},
    {__LINE__, "skl", "cpu/event=zz/", 0, 0, 0, 0, 0, 0, 10, "\"zz\" is not a number"},
    {__LINE__, "skl", "cpu/event=1,nosuch/", 0, 0, 0, 0, 0, 0, 12,
     "cpu has no event \"nosuch\" (events: branch-instructions"},
    {__LINE__, "skl", "nopmu/event=1/", 0, 0, 0, 0, 0, 0, 0, "no PMU \"nopmu\""},
    {__LINE__, "skl", "no-such-event", 0, 0, 0, 0, 0, 0, 0, "unknown event"},
    {__LINE__, "skl", "msr/tsc/u", 0, 0, 0, 0, 0, 0, 8, "cannot filter privilege levels"},
    {__LINE__, "skl", "cycles:pppp", 0, 0, 0, 0, 0, 0, 7, "at most three p"},
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A tree with one PMU whose event field is split (config:0-7,32-35). */
static void make_split_tree(char *root, size_t len)
{
	snprintf(root, len, "/tmp/test_evlist.XXXXXX");
	if (!mkdtemp(root))
		return;
	char d[512];
	const char *parts[] = {"/sys",
			       "/sys/bus",
			       "/sys/bus/event_source",
			       "/sys/bus/event_source/devices",
			       "/sys/bus/event_source/devices/amdcore",
			       "/sys/bus/event_source/devices/amdcore/format"};
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		snprintf(d, sizeof(d), "%s%s", root, parts[i]);
		mkdir(d, 0755);
	}
	snprintf(d, sizeof(d), "%s/sys/bus/event_source/devices/amdcore/type", root);
	write_file(d, "4\n");
	snprintf(d, sizeof(d), "%s/sys/bus/event_source/devices/amdcore/format/event", root);
	write_file(d, "config:0-7,32-35\n");
}

static void test_encode(void)
{
	char err[512], skl[512], split[256];
	CHECK(encode_init(err, sizeof(err)) == 0, "%s", err);
	snprintf(skl, sizeof(skl), "%s/tests/sysfs/x86-skylake", harness_src());
	make_split_tree(split, sizeof(split));
	for (size_t i = 0; i < sizeof(enc_cases) / sizeof(enc_cases[0]); i++) {
		struct encode_ctx ctx = {.sysfs_root =
					     strcmp(enc_cases[i].tree, "skl") == 0 ? skl : split,
					 .family = family_find("skl"),
					 .core_pmu_type = 4,
					 .filters_priv = true};
		struct event_encoding enc;
		char model[32];
		if (encode_model_missing(enc_cases[i].spec, ctx.family, model, sizeof(model))) {
			SKIP("line %d: libpfm4 here has no %s tables", enc_cases[i].line, model);
			continue;
		}
		err[0] = '\0';
		int rc = event_encode(enc_cases[i].spec, &ctx, &enc, err, sizeof(err));
		CHECK((rc == 0) == enc_cases[i].ok, "line %d: %s: rc %d (%s)", enc_cases[i].line,
		      enc_cases[i].spec, rc, err);
		if (!enc_cases[i].ok) {
			if (rc == 0)
				continue;
			CHECK(strstr(err, enc_cases[i].err), "line %d: \"%s\"", enc_cases[i].line,
			      err);
			CHECK(enc.errpos == enc_cases[i].errpos, "line %d: error at %d, want %d",
			      enc_cases[i].line, enc.errpos, enc_cases[i].errpos);
			continue;
		}
		if (rc)
			continue;
		CHECK(enc.attr.type == enc_cases[i].type, "line %d: type %u", enc_cases[i].line,
		      enc.attr.type);
		CHECK(enc.attr.config == enc_cases[i].config, "line %d: config %#llx",
		      enc_cases[i].line, (unsigned long long)enc.attr.config);
		CHECK(enc.attr.config1 == enc_cases[i].config1, "line %d: config1 %#llx",
		      enc_cases[i].line, (unsigned long long)enc.attr.config1);
		CHECK_INT(enc.attr.precise_ip, enc_cases[i].precise);
		if (enc_cases[i].exclude != ANY) {
			int x = enc.attr.exclude_user * X_USER |
				enc.attr.exclude_kernel * X_KERNEL | enc.attr.exclude_hv * X_HV |
				enc.attr.exclude_host * X_HOST | enc.attr.exclude_guest * X_GUEST |
				enc.attr.exclude_idle * X_IDLE;
			CHECK(x == enc_cases[i].exclude, "line %d: %s: exclude bits %#x, want %#x",
			      enc_cases[i].line, enc_cases[i].spec, x, enc_cases[i].exclude);
		}
	}
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", split);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", split);
}

/* A group is one counter set: never split by rotation, even where first fit would split it. */
static void test_groups(void)
{
	char err[256];
	const struct pmu_family *fam = family_find("skl");
	struct mode *m = mode_define("grp", "x=r01,y=r02,{g1=r03,g2=r04,g3=r05},z=r06",
				     "mx=x;my=y;mg=g1+g2+g3;mz=z", err, sizeof(err));
	CHECK(m, "define: %s", err);
	if (!m)
		return;
	struct mode_plan plan;
	int n = mode_plan_sets(m, fam, 3, &plan, err, sizeof(err));
	CHECK(n == 2, "%d sets (%s)", n, err);
	int where[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
	for (int s = 0; s < plan.nsets; s++)
		for (int k = 0; k < plan.set[s].n; k++)
			where[plan.set[s].ev[k]] = s;
	const struct mode_events *ev = plan.events;
	int g1 = mode_event_index(ev, "g1"), g2 = mode_event_index(ev, "g2"),
	    g3 = mode_event_index(ev, "g3");
	CHECK(g1 >= 0 && where[g1] >= 0 && where[g1] == where[g2] && where[g2] == where[g3],
	      "group split over sets %d %d %d", where[g1], where[g2], where[g3]);
	CHECK(ev->events[g1].group == 1 && ev->events[mode_event_index(ev, "x")].group == 0,
	      "group numbers");
	/* a group larger than the counters cannot be counted at all */
	n = mode_plan_sets(m, fam, 2, &plan, err, sizeof(err));
	CHECK(n == -1 && strstr(err, "group 1 needs 3 counters at once, the PMU has 2"), "%d: %s",
	      n, err);
	mode_free(m);
	/* a mode file: "group = a, b" makes events above it one group */
	static const char *const file = "[mode]\nname = g\ntitle = t\n[events *]\n"
					"x = r01\ny = r02\nz = r03\ngroup = y, z\n"
					"[metric m]\nexpr = x + y + z\n";
	m = mode_parse("g.mode", file, err, sizeof(err));
	CHECK(m, "mode file: %s", err);
	if (m) {
		n = mode_plan_sets(m, fam, 1, &plan, err, sizeof(err));
		CHECK(n == -1 && strstr(err, "group 1 needs 2 counters at once"), "%d: %s", n, err);
		n = mode_plan_sets(m, fam, 2, &plan, err, sizeof(err));
		CHECK(n == 2, "mode file: %d sets (%s)", n, err);
		ev = plan.events;
		int y = mode_event_index(ev, "y"), z = mode_event_index(ev, "z");
		for (int s = 0; s < plan.nsets; s++) {
			bool hy = false, hz = false;
			for (int k = 0; k < plan.set[s].n; k++) {
				hy |= plan.set[s].ev[k] == y;
				hz |= plan.set[s].ev[k] == z;
			}
			CHECK(hy == hz, "mode file: y and z in different sets");
		}
		mode_free(m);
	}
	static const struct {
		const char *line, *err;
	} bad_groups[] = {
	    {"group = y, nosuch", "g.mode:8: group: no event \"nosuch\" above in this section"},
	    {"group = y", "g.mode:8: group: name at least two events"},
	};
	for (size_t i = 0; i < sizeof(bad_groups) / sizeof(bad_groups[0]); i++) {
		char text[512];
		snprintf(text, sizeof(text),
			 "[mode]\nname = g\ntitle = t\n[events *]\nx = r01\ny = r02\nz = "
			 "r03\n%s\n[metric m]\nexpr = x\n",
			 bad_groups[i].line);
		m = mode_parse("g.mode", text, err, sizeof(err));
		CHECK(!m && strstr(err, bad_groups[i].err), "%s: \"%s\"", bad_groups[i].line, err);
		mode_free(m);
	}
	/* define with a broken list: the column */
	m = mode_define("bad", "x=r01,{y=r02", "mx=x", err, sizeof(err));
	CHECK(!m && strstr(err, "column 7: group opened here is not closed"), "%s", err);
	mode_free(m);
}

int main(void)
{
	test_split();
	test_encode();
	test_groups();
	return harness_done();
}
