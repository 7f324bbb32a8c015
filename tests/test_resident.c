/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_resident.c: state that is mostly room to spare leaves that room unwritten, as the kernel's
 * mincore(2) sees it: an alert set's unused rule slots and the cadence's buffers beyond the ticks
 * seen stay unmapped in a fresh block, and the set and the cadence still work. */
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "alert.h"
#include "cadence.h"
#include "harness.h"

static size_t page;

/* A fresh block of @len bytes from the kernel: every page unmapped until written. */
static void *fresh(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* Resident pages wholly inside [base + from, base + to). */
static int resident_inside(void *base, size_t len, size_t from, size_t to, int *pages)
{
	unsigned char vec[256];
	size_t n = (len + page - 1) / page;
	if (n > sizeof(vec) || mincore(base, len, vec) < 0)
		return -1;
	size_t first = (from + page - 1) / page, last = to / page; /* [first, last) */
	int res = 0;
	*pages = 0;
	for (size_t i = first; i < last && i < n; i++) {
		(*pages)++;
		res += vec[i] & 1;
	}
	return res;
}

static void check_alert_set(void)
{
	size_t len = sizeof(struct alert_set);
	struct alert_set *s = fresh(len);
	CHECK(s != NULL, "mmap of %zu bytes", len);
	if (!s)
		return;
	char err[256];
	alert_set_init(s, 2);
	static const char *const rules[] = {"mad ipc 8 window 64 floor 5%", "cpi > 2.5",
					    "util < 10 on 0", "mad cpi 4 window 16"};
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		CHECK(alert_set_add(s, rules[i], err, sizeof(err)) == 0, "add %s: %s", rules[i],
		      err);
	CHECK_INT(s->n, 4);
	CHECK_STR(s->rules[3].text, "mad cpi 4 window 16");
	CHECK(s->hist[0] && s->rings[0] && !s->hist[1] && !s->rings[1] && s->hist[3],
	      "the mad rules have history, the threshold rules none");
	CHECK(s->scratch && s->scratch_cap == 3 * 64, "scratch for the largest window");
	int pages, res = resident_inside(s, len, offsetof(struct alert_set, rules[4]),
					 offsetof(struct alert_set, hist), &pages);
	CHECK(pages >= 8, "the unused slots span %d whole pages", pages);
	CHECK(res == 0, "unused rule slots: %d of %d pages resident", res, pages);
	CHECK(alert_set_remove(s, 1) == 0 && s->n == 3, "remove");
	CHECK_STR(s->rules[1].text, "util < 10 on 0");
	CHECK(s->hist[2] && !s->hist[3] && !s->rings[3], "the slots after n are cleared");
	alert_set_free(s);
	CHECK(s->n == 0 && s->ncpu == 0 && !s->scratch && s->scratch_cap == 0 && !s->hist[0],
	      "free leaves an empty set");
	res = resident_inside(s, len, offsetof(struct alert_set, rules[4]),
			      offsetof(struct alert_set, hist), &pages);
	CHECK(res == 0, "after free: %d of %d pages of unused slots resident", res, pages);
	alert_set_init(s, 1);
	CHECK(alert_set_add(s, "cpi > 1", err, sizeof(err)) == 0 && s->n == 1, "reused: %s", err);
	alert_set_free(s);
	munmap(s, len);
}

static void check_cadence(void)
{
	size_t len = sizeof(struct cadence);
	struct cadence *c = fresh(len);
	CHECK(c != NULL, "mmap of %zu bytes", len);
	if (!c)
		return;
	const int64_t ms = 1000000;
	cadence_init(c, 0, 10 * ms);
	struct cadence_report r;
	cadence_report(c, &r);
	CHECK(!r.available && r.ticks == 0, "empty report");
	for (int k = 1; k <= 100; k++) /* tick k wakes k us late */
		cadence_tick(c, k * 10 * ms + k * 1000, 1);
	cadence_report(c, &r);
	CHECK_INT(r.ticks, 100);
	CHECK_NEAR(r.p50_ns, 50.5e3, 1e-6);
	CHECK_NEAR(r.max_ns, 100e3, 0);
	/* 100 values written to the ring and copied to the scratch: 800 bytes of each */
	int pages, res = resident_inside(c, len, offsetof(struct cadence, late_buf) + 800,
					 offsetof(struct cadence, scratch), &pages);
	CHECK(pages >= 1 && res == 0, "ring beyond 100 ticks: %d of %d pages resident", res, pages);
	res = resident_inside(c, len, offsetof(struct cadence, scratch) + 800,
			      sizeof(struct cadence), &pages);
	CHECK(pages >= 4 && res == 0, "scratch beyond 100 values: %d of %d pages resident", res,
	      pages);
	CHECK(isnan(r.self_pct) && r.self_cpu == -1, "the fields before the buffers are set");
	munmap(c, len);
}

int main(void)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	check_alert_set();
	check_cadence();
	return harness_done();
}
