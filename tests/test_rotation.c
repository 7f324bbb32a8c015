/* test_rotation.c: event-set rotation ("multiple runs") on the sim backend with a 2-counter PMU. */
#include "family.h"
#include "harness.h"
#include "session.h"

int main(void)
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
		int counted = tick % 3; /* the priming read consumed set 0 */
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
				} else if (tick < (set == 0 ? 3 : set)) {
					/* not measured yet: set k first counts at tick k (set 0 at
					 * tick 3) */
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
		if (tick >= 3) {
			double a = snap->counts[1].value, b = snap->counts[2].value;
			CHECK_NEAR(snap->values[0], a / b, 1e-12);
		}
		CHECK(snap->metrics[0].split, "ratio flagged as split");
	}
	session_free(s);
	return harness_done();
}
