/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_pmuevents.c: a perf pmu-events model whose metric file is the input: load, register the
 * perf: modes, their formulas and thresholds, a mode for one metric. */
#include <math.h>
#include <sys/stat.h>

#include "expr.h"
#include "fuzz.h"
#include "mode.h"
#include "pmuevents.h"

const unsigned long fuzz_default_runs = 20000;

static char root[64];

static void put(const char *name, const void *text, size_t len)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", root, name);
	FILE *f = fopen(path, "w");
	if (!f)
		abort();
	if (len && fwrite(text, 1, len, f) != len)
		abort();
	fclose(f);
}

static void cleanup(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
}

/* A library with mapfile.csv and an events file, made once. */
static void setup(void)
{
	static const char events[] =
	    "[{\"EventName\": \"INST_RETIRED.ANY\", \"UMask\": \"0x1\"},"
	    " {\"EventName\": \"CYC\", \"EventCode\": \"0x3c\"},"
	    " {\"EventName\": \"OFF\", \"EventCode\": \"0xb7, 0xbb\", \"UMask\": \"0x1\","
	    "  \"MSRValue\": \"0x10001\"},"
	    " {\"EventName\": \"UNC\", \"EventCode\": \"0x1\", \"Unit\": \"CHA\"}]";
	if (root[0])
		return;
	/* memory-backed where there is one: a file is written per input */
	struct stat st;
	const char *base =
	    stat("/dev/shm", &st) == 0 && access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(root, sizeof(root), "%s/pmutop-fuzz-pmuev-%d", base, (int)getpid());
	char dir[128];
	snprintf(dir, sizeof(dir), "%s/x86/m", root);
	if (mkdir(root, 0700) < 0 || mkdir(dir, 0700) < 0)
		snprintf(dir, sizeof(dir), "%s/x86", root), mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/x86/m", root);
	mkdir(dir, 0700);
	atexit(cleanup);
	put("x86/mapfile.csv", "GenuineIntel-6-5E,v1,m,core\n", 28);
	put("x86/m/events.json", events, strlen(events));
}

static int printable(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	put("x86/m/metrics.json", data, size);
	struct pmuev_machine m = {.arch = "x86",
				  .cpuid = "GenuineIntel-6-5E-3",
				  .num_cpus = 4,
				  .num_online = 4,
				  .num_cores = 2,
				  .num_packages = 1,
				  .num_dies = 1,
				  .smt_on = 1,
				  .slots = -1};
	char err[512] = "";
	struct pmuev_lib *lib = pmuevents_open(root, &m, err, sizeof(err));
	if (!lib) {
		FUZZ_ASSERT(err[0] && printable(err));
		FUZZ_ASSERT(strstr(err, "metrics.json") != NULL); /* the broken file is named */
		return 0;
	}
	struct pmuev_stats st;
	pmuevents_stats(lib, &st);
	FUZZ_ASSERT(st.events == 4 && st.parsed <= st.metrics && st.evaluable <= st.parsed);
	struct mode_registry r;
	mode_registry_init(&r);
	char sum[256];
	int n = pmuevents_register(lib, &r, sum, sizeof(sum));
	FUZZ_ASSERT(n == r.n && printable(sum));
	const char *metric = NULL;
	for (int i = 0; i < r.n; i++) {
		const struct mode *md = r.modes[i];
		FUZZ_ASSERT(mode_name_valid(md->name) && strncmp(md->name, "perf:", 5) == 0);
		FUZZ_ASSERT(md->nsets == 1 && md->sets[0].nevents <= MODE_MAX_EVENTS);
		FUZZ_ASSERT(md->nmetrics > 0 && printable(md->title) && printable(md->source));
		for (int k = 0; k < md->nmetrics; k++) {
			const struct mode_metric *mt = &md->metrics[k];
			FUZZ_ASSERT(printable(mt->name) && printable(mt->desc) &&
				    printable(mt->unit));
			/* what the session compiles: the formula and threshold in pmutop's syntax
			 */
			struct expr *e = expr_parse(expr_text(mt->expr), err, sizeof(err));
			FUZZ_ASSERT(e != NULL && strlen(expr_text(mt->expr)) < PMUEV_FORMULA_MAX);
			expr_free(e);
			if (mt->threshold) {
				e = expr_parse(mt->threshold, err, sizeof(err));
				FUZZ_ASSERT(e != NULL);
				expr_free(e);
			}
			metric = metric ? metric : mt->name;
		}
	}
	if (metric) {
		char name[64];
		snprintf(name, sizeof(name), "%s", metric);
		const struct mode *one = pmuevents_mode(lib, &r, name, err, sizeof(err));
		FUZZ_ASSERT(one || (err[0] && printable(err)));
	}
	mode_registry_free(&r);
	pmuevents_free(lib);
	return 0;
}
