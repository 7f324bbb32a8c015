/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_rotation.c: event-set rotation ("multiple runs") on the sim backend with a 2-counter PMU:
 * carried values, events shared by several sets, and the per-tick split mark. */
#include "family.h"
#include "harness.h"
#include "session.h"

extern const struct source_ops source_sim_ops; /* backends/sim.c */

static void test_carry(void)
{
	int cpus[] = {0, 1};
	struct sim_opts sim;
	sim_opts_default(&sim);
	sim.seed = 7;
	const uint64_t tick_ns = 10000000; /* 10 ms of virtual time per tick */
	struct source src = {.ops = &source_sim_ops, .inst = &sim};
	struct session_config cfg = {.source = &src,
				     .sysfs_root = "/",
				     .family = family_find("xscale1"),
				     .ncpus = 2,
				     .cpus = cpus};
	char err[256];
	struct session *s = session_new(&cfg, err, sizeof(err));
	CHECK(s != NULL, "%s", err);
	/* two sets of one programmable event each, plus CCNT counted all the time */
	struct session_mode mode = {.name = "rot",
				    .nevents = 4,
				    .nsets = 3,
				    .events = {{"ccnt", "rfe", -1},
					       {"a", "r0b miss", 0},
					       {"b", "r0a access", 1},
					       {"c", "r07 instr", 2}},
				    .nmetrics = 1,
				    .metrics = {{.name = "ratio",
						 .formula = "a / b",
						 .ninputs = 2,
						 .inputs = {1, 2},
						 .split = true}}};
	CHECK(session_set_mode(s, &mode, err, sizeof(err)) == 0, "%s", err);
	CHECK_INT(session_tick(s, tick_ns, err, sizeof(err)), 0); /* priming read */
	double last_value[4] = {0};
	for (int tick = 1; tick <= 9; tick++) {
		CHECK_INT(session_tick(s, tick_ns, err, sizeof(err)), 1);
		const struct snapshot *snap = session_snapshot(s);
		CHECK_NEAR(snap->interval_s, 0.01, 1e-12);
		int counted = (tick - 1) % 3; /* set 0 counts from the open into tick 1 */
		for (int r = 0; r < 2; r++) {
			const struct count *c = &snap->counts[r * 4];
			/* CCNT: every tick, whole interval */
			CHECK(c[0].state == COUNT_OK, "tick %d ccnt state %s", tick,
			      count_state_name(c[0].state));
			CHECK_NEAR(c[0].running, 1.0, 1e-12);
			for (int e = 1; e < 4; e++) {
				int set = e - 1;
				double age = snap->event_age[r * 4 + e];
				if (set == counted) {
					CHECK(c[e].state == COUNT_SCALED, "tick %d ev %d measured",
					      tick, e);
					CHECK_NEAR(c[e].running, 1.0 / 3, 1e-12);
					CHECK_NEAR(age, 0, 0);
					if (r == 0)
						last_value[e] = c[e].value;
				} else if (tick < set + 1) {
					/* not measured yet: set k first counts at tick k + 1 */
					CHECK(c[e].state == COUNT_NOT_COUNTED,
					      "tick %d ev %d not yet counted", tick, e);
				} else {
					/* carried: the last measured rate times this (equal)
					 * interval, exactly */
					CHECK(c[e].state == COUNT_SCALED, "tick %d ev %d carried",
					      tick, e);
					if (r == 0)
						CHECK_NEAR(c[e].value, last_value[e], 0);
					CHECK(age >= 1 && age <= 2, "tick %d ev %d age %.0f", tick,
					      e, age);
				}
			}
		}
		/* the ratio combines the latest values of a and b, once both were measured */
		if (tick >= 2) {
			double a = snap->counts[1].value, b = snap->counts[2].value;
			CHECK_NEAR(snap->values[0], a / b, 1e-12);
		}
		CHECK(snap->metrics[0].split && snap->split[0], "ratio flagged as split");
	}
	session_free(s);
}

/* CCNT (every set) over a rotated event, an event shared by two of three sets, and the split
 * mark per tick: a value carried from an earlier tick combined with a fresh one is split. */
static void test_split_per_tick(void)
{
	int cpus[] = {0, 1};
	struct sim_opts sim;
	sim_opts_default(&sim);
	sim.seed = 11;
	const uint64_t tick_ns = 10000000; /* 10 ms */
	struct source src = {.ops = &source_sim_ops, .inst = &sim};
	struct session_config cfg = {.source = &src,
				     .sysfs_root = "/",
				     .family = family_find("xscale1"),
				     .ncpus = 2,
				     .cpus = cpus};
	char err[256];
	struct session *s = session_new(&cfg, err, sizeof(err));
	CHECK(s != NULL, "%s", err);
	/* sets: 0 = {a, c}, 1 = {b, c}, 2 = {b, d}; CCNT in all three */
	struct session_mode mode = {
	    .name = "split",
	    .nevents = 5,
	    .nsets = 3,
	    .events = {{"ccnt", "rfe", -1, 0},
		       {"a", "r0b miss", 0, 0},
		       {"b", "r0a access", 1, 1u << 2},
		       {"c", "r07 instr", 0, 1u << 1},
		       {"d", "r00 imiss", 2, 0}},
	    .nmetrics = 4,
	    .metrics = {{.name = "cpa", .formula = "ccnt / a", .ninputs = 2, .inputs = {0, 1}},
			{.name = "ac", .formula = "a / c", .ninputs = 2, .inputs = {1, 3}},
			{.name = "bc", .formula = "b / c", .ninputs = 2, .inputs = {2, 3}},
			{.name = "bd", .formula = "b / d", .ninputs = 2, .inputs = {2, 4}}}};
	CHECK(session_set_mode(s, &mode, err, sizeof(err)) == 0, "%s", err);
	CHECK_INT(session_tick(s, tick_ns, err, sizeof(err)), 0);
	/* the sets of each event, and in which ticks each metric's inputs are all fresh */
	static const bool in_set[5][3] = {{1, 1, 1}, {1, 0, 0}, {0, 1, 1}, {1, 1, 0}, {0, 0, 1}};
	for (int tick = 1; tick <= 9; tick++) {
		CHECK_INT(session_tick(s, tick_ns, err, sizeof(err)), 1);
		const struct snapshot *snap = session_snapshot(s);
		int counted = (tick - 1) % 3;
		for (int e = 0; e < 5; e++) {
			const struct count *c = &snap->counts[e];
			double age = snap->event_age[e];
			int nin = in_set[e][0] + in_set[e][1] + in_set[e][2];
			if (in_set[e][counted]) {
				CHECK(age == 0 && c->state != COUNT_NOT_COUNTED,
				      "tick %d event %s measured (age %.0f)", tick,
				      snap->event_names[e], age);
				CHECK_NEAR(c->running, nin / 3.0, 1e-12);
			}
		}
		/* from tick 3 on every event was measured: each metric is split exactly when its
		 * inputs' ages differ, i.e. not all of them counted in this tick */
		for (int m = 0; m < 4 && tick >= 3; m++) {
			const struct session_metric *sm = &snap->metrics[m];
			bool fresh0 = in_set[sm->inputs[0]][counted],
			     fresh1 = in_set[sm->inputs[1]][counted];
			bool want =
			    fresh0 != fresh1 || (!fresh0 && snap->event_age[sm->inputs[0]] !=
								snap->event_age[sm->inputs[1]]);
			CHECK(snap->split[m] == want, "tick %d (set %d): %s split %d, want %d",
			      tick, counted, sm->name, snap->split[m], want);
			CHECK(!sm->split, "%s is not split by the plan", sm->name);
		}
		/* CCNT over a: split in the ticks a is carried, not where a is fresh */
		if (tick >= 2)
			CHECK(snap->split[0] == (counted != 0), "tick %d cpa split %d", tick,
			      snap->split[0]);
		/* b / c share set 1: never split there */
		if (counted == 1)
			CHECK(!snap->split[2], "tick %d bc counted together", tick);
	}
	session_free(s);
}

int main(void)
{
	test_carry();
	test_split_per_tick();
	return harness_done();
}
