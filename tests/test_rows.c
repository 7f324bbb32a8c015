/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_rows.c: the topology read from sysfs trees, unit names, and rows keyed by a unit in a sim
 * run: keys, sums with an offline sibling, switching units, refusals that change nothing. */
#include "app.h"
#include "harness.h"
#include "harness_app.h"
#include "options.h"
#include "rows.h"
#include "topology.h"
#include <stdlib.h>
#include <string.h>

static char root_buf[4096];
static const char *tree(const char *name)
{
	snprintf(root_buf, sizeof(root_buf), "%s/tests/sysfs/%s", harness_src(), name);
	return root_buf;
}

static int notes_with(const struct topology *t, const char *needle)
{
	int n = 0;
	for (int i = 0; i < t->nnotes; i++)
		n += strstr(t->notes[i], needle) != NULL;
	return n;
}

/* The values are the files of tests/sysfs/x86-2s-smt (make-fixtures.sh writes them). */
static void test_topology_smt(void)
{
	struct topology t;
	struct cpuset cpus;
	char err[64];
	cpuset_parse(&cpus, "0-7", err, sizeof(err));
	CHECK_INT(topology_read(&t, tree("x86-2s-smt"), &cpus, NULL, NULL), 0);
	const struct topo_cpu *c = topology_cpu(&t, 5); /* the second thread of S0's core 1 */
	CHECK(c && c->known, "CPU 5 not known");
	if (c) {
		CHECK_INT(c->socket, 0);
		CHECK_INT(c->die, 0);
		CHECK_INT(c->core, 1);
		CHECK_INT(c->cluster, 2);
		CHECK_INT(c->cache_level, 3);
		CHECK_INT(c->cache, 0);
	}
	c = topology_cpu(&t, 6);
	CHECK(c && c->socket == 1 && c->core == 0 && c->cache == 1, "CPU 6: S1 C0 L3 1");
	CHECK_INT(t.nnotes, 0);
	struct row_key k;
	rows_key_of(&t, ROWS_CORE, 6, &k);
	CHECK_STR(k.label, "S1-D0-C0");
	rows_key_of(&t, ROWS_CACHE, 6, &k);
	CHECK_STR(k.label, "S1-D0-L3-ID1");
	rows_key_of(&t, ROWS_CLUSTER, 3, &k);
	CHECK_STR(k.label, "S1-D0-CLS10");
	rows_key_of(&t, ROWS_DIE, 3, &k);
	CHECK_STR(k.label, "S1-D0");
	rows_key_of(&t, ROWS_CPU, 3, &k);
	CHECK_STR(k.label, "3");
	topology_free(&t);
}

/* No die_id (arm64), no topology/ at all (old trees): the fallbacks, each said once. */
static void test_topology_missing(void)
{
	struct topology t;
	struct cpuset cpus;
	char err[64];
	cpuset_parse(&cpus, "0-5", err, sizeof(err));
	CHECK_INT(topology_read(&t, tree("arm-biglittle-topo"), &cpus, NULL, NULL), 0);
	CHECK_INT(notes_with(&t, "no die_id"), 1);
	const struct topo_cpu *c = topology_cpu(&t, 4);
	CHECK(c && c->known && c->die == 0 && c->cluster == 1 && c->cache_level == 2 &&
		  c->cache == 1,
	      "CPU 4: D0 (no die_id), cluster 1, L2 id 1");
	topology_free(&t);
	cpuset_parse(&cpus, "0-3", err, sizeof(err));
	CHECK_INT(topology_read(&t, tree("x86-skylake"), &cpus, NULL, NULL), 0);
	CHECK_INT(t.nnotes, 1);
	CHECK_INT(notes_with(&t, "no topology/ for CPU 0-3"), 1);
	struct row_key k;
	rows_key_of(&t, ROWS_SOCKET, 2, &k);
	CHECK_STR(k.label, "CPU2");
	topology_free(&t);
}

static void test_unit_names(void)
{
	enum row_unit u = ROWS_CPU;
	char err[160];
	CHECK_INT(rows_unit_parse("sock", &u, err, sizeof(err)), 0);
	CHECK_INT(u, ROWS_SOCKET);
	CHECK_INT(rows_unit_parse("cpu", &u, err, sizeof(err)), 0); /* exact beats prefix */
	CHECK_INT(u, ROWS_CPU);
	CHECK_INT(rows_unit_parse("c", &u, err, sizeof(err)), -1);
	CHECK(strstr(err, "ambiguous unit \"c\""), "%s", err);
	CHECK_INT(rows_unit_parse("", &u, err, sizeof(err)), -1);
	CHECK_INT(rows_unit_parse("thread", &u, err, sizeof(err)), -1);
	CHECK(strstr(err, "units: cpu|core|die|socket|cluster|cache|type"), "%s", err);
	for (int i = 0; i < ROWS_NUNITS; i++) {
		CHECK_INT(rows_unit_parse(rows_unit_name((enum row_unit)i), &u, err, sizeof(err)),
			  0);
		CHECK_INT(u, i);
	}
}

static struct app_ctx app;

static int start(const char *args, char *err, size_t errlen)
{
	if (harness_app_start(&app, args, err, errlen) < 0)
		return -1;
	return app_tick(&app, err, errlen) < 0 ? -1 : 0; /* priming read */
}

static int event_index(const struct snapshot *s, const char *name)
{
	for (int e = 0; e < s->nevents; e++)
		if (strcmp(s->event_names[e], name) == 0)
			return e;
	return -1;
}

/* A core whose sibling is offline is that one CPU: its counts, ncpus 1 (ghz per CPU). */
static void test_run(void)
{
	char err[256], args[512];
	snprintf(args, sizeof(args),
		 "--backend sim --sim-cpus 8 --seed 5 -m cpi -i 100 --no-rc --sim-offline 4:2-3 "
		 "--sysfs-root %s",
		 tree("x86-2s-smt"));
	if (start(args, err, sizeof(err)) < 0) {
		CHECK(0, "start: %s", err);
		return;
	}
	CHECK_INT(app.rows.unit, ROWS_CPU);
	CHECK_INT(app_set_rows(&app, ROWS_CORE, err, sizeof(err)), 0);
	for (int tick = 1; tick <= 5; tick++) {
		if (app_tick(&app, err, sizeof(err)) < 0) {
			CHECK(0, "tick: %s", err);
			break;
		}
		const struct snapshot *cpu = session_snapshot(app.session);
		int cyc = event_index(cpu, "cycles");
		double c0 = cpu->counts[0 * cpu->nevents + cyc].value;
		double c4 = cpu->counts[4 * cpu->nevents + cyc].value;
		/* a CPU adds to its row what it counted: nothing when offline or in the tick it
		 * comes back (no delta), as the all row (snapshot_compute) */
		bool off4 = true;
		for (int e = 0; e < cpu->nevents; e++) {
			enum count_state st = cpu->counts[4 * cpu->nevents + e].state;
			off4 &= st != COUNT_OK && st != COUNT_SCALED;
		}
		double total = cpu->total_counts[cyc].value;
		const struct frame *f = app_frame_build(&app);
		CHECK(f && f->row_keys && f->snap->nrows == 4, "tick %d: 4 core rows", tick);
		if (!f || !f->row_keys)
			break;
		CHECK_STR(f->row_keys[0].label, "S0-D0-C0");
		CHECK_INT(f->row_keys[0].ncpus, off4 ? 1 : 2);
		CHECK_NEAR(f->snap->counts[0 * f->snap->nevents + cyc].value, c0 + (off4 ? 0 : c4),
			   0);
		CHECK_NEAR(f->snap->total_counts[cyc].value, total, 0);
		int ghz = -1;
		for (int m = 0; m < f->snap->nmetrics; m++)
			if (strcmp(f->snap->metrics[m].name, "ghz") == 0)
				ghz = m;
		if (ghz >= 0)
			CHECK_NEAR(f->snap->values[ghz],
				   (c0 + (off4 ? 0 : c4)) / (off4 ? 1 : 2) / f->snap->interval_s /
				       1e9,
				   1e-9);
		if (tick == 2)
			CHECK(off4 && cpu->offline[4],
			      "CPU 4 offline in tick 2 (--sim-offline 4:2-3)");
		if (tick == 1 || tick == 5)
			CHECK(!off4, "CPU 4 counts in tick %d", tick);
	}
	/* back to CPUs; a refusal changes nothing */
	CHECK_INT(app_set_rows(&app, ROWS_CPU, err, sizeof(err)), 0);
	app_tick(&app, err, sizeof(err));
	const struct frame *f = app_frame_build(&app);
	CHECK(f && !f->row_keys && f->snap->nrows == 8, "back to 8 CPU rows");
	CHECK_INT(app_set_rows(&app, ROWS_SOCKET, err, sizeof(err)), 0);
	CHECK_INT(app_set_rows(&app, (enum row_unit)99, err, sizeof(err)), -1);
	CHECK_INT(app.rows.unit, ROWS_SOCKET);
	app_free(&app);

	/* a capture without topology refuses, and the rows stay per CPU */
	snprintf(args, sizeof(args), "-R %s/tests/fixtures/perfstat/sw-percpu.csv --no-rc",
		 harness_src());
	if (start(args, err, sizeof(err)) < 0) {
		CHECK(0, "start: %s", err);
		return;
	}
	CHECK_INT(app_set_rows(&app, ROWS_CORE, err, sizeof(err)), -1);
	CHECK(strstr(err, "no CPU topology"), "%s", err);
	CHECK_INT(app.rows.unit, ROWS_CPU);
	app_free(&app);
}

int main(void)
{
	test_topology_smt();
	test_topology_missing();
	test_unit_names();
	test_run();
	return harness_done();
}
