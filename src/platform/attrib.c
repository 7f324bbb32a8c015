/* SPDX-License-Identifier: GPL-2.0-or-later */
/* attrib.c: attribution sources per CPU: own software perf counters, procirq, cpufreq, tasktop. */
#include "attrib.h"
#include "linereader.h"
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

const char *const attrib_col_names[ATTRIB_NCOLS] = {
    [ATTRIB_CS] = "cs_s",	    [ATTRIB_MIGR] = "migr_s", [ATTRIB_IRQ] = "irq_s",
    [ATTRIB_SOFTIRQ] = "softirq_s", [ATTRIB_SMI] = "smi",     [ATTRIB_MHZ] = "mhz",
    [ATTRIB_TASK] = "task_pct",
};

enum { SRC_CS, SRC_MIGR, SRC_SMI, NSRC };

int attrib_col_find(const char *name)
{
	for (int i = 0; i < ATTRIB_NCOLS; i++)
		if (strcmp(attrib_col_names[i], name) == 0)
			return i;
	return -1;
}

static void note(struct attrib *a, const char *fmt, const char *what)
{
	size_t u = strlen(a->note);
	if (u + 2 < sizeof(a->note))
		snprintf(a->note + u, sizeof(a->note) - u, u ? "; " : "");
	u = strlen(a->note);
	snprintf(a->note + u, sizeof(a->note) - u, fmt, what);
}

static int open_counter(uint32_t type, uint64_t config, int cpu)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	return (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* msr/smi/: type and config from sysfs ("event=0x04"); -1 when absent. */
static int smi_event(const char *root, uint32_t *type, uint64_t *config)
{
	char path[1200], buf[64];
	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/msr/type", root);
	unsigned t;
	int ok = lr_read_small(path, buf, sizeof(buf)) > 0 && sscanf(buf, "%u", &t) == 1;
	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/msr/events/smi", root);
	unsigned long long c;
	ok = ok && lr_read_small(path, buf, sizeof(buf)) > 0 && sscanf(buf, "event=%llx", &c) == 1;
	if (!ok)
		return -1;
	*type = t;
	*config = c;
	return 0;
}

int attrib_init(struct attrib *a, const char *root, int nrows, const int *cpus, unsigned slow_ms,
		int exclude_pid, bool perf_events, char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->root, sizeof(a->root), "%s", root && strcmp(root, "/") != 0 ? root : "");
	a->nrows = nrows;
	a->slow_ms = slow_ms;
	for (int r = 0; r < nrows; r++)
		if (cpus[r] + 1 > a->ncpu_max)
			a->ncpu_max = cpus[r] + 1;
	a->cpus = malloc((size_t)nrows * sizeof(int));
	a->fd = malloc((size_t)nrows * NSRC * sizeof(int));
	a->prev = calloc((size_t)nrows * NSRC, sizeof(uint64_t));
	a->val = malloc((size_t)nrows * ATTRIB_NCOLS * sizeof(double));
	a->mhz = malloc((size_t)nrows * sizeof(double));
	a->irq_delta = calloc((size_t)a->ncpu_max + 1, sizeof(uint64_t));
	if (!a->cpus || !a->fd || !a->prev || !a->val || !a->mhz || !a->irq_delta) {
		attrib_free(a);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(a->cpus, cpus, (size_t)nrows * sizeof(int));
	for (int i = 0; i < nrows * ATTRIB_NCOLS; i++)
		a->val[i] = NAN;
	for (int r = 0; r < nrows; r++)
		a->mhz[r] = NAN;
	uint32_t smi_type = 0;
	uint64_t smi_config = 0;
	bool smi = perf_events && smi_event(a->root, &smi_type, &smi_config) == 0;
	int failed[NSRC] = {0};
	for (int r = 0; r < nrows; r++) {
		int *fd = &a->fd[r * NSRC];
		fd[SRC_CS] = perf_events ? open_counter(PERF_TYPE_SOFTWARE,
							PERF_COUNT_SW_CONTEXT_SWITCHES, cpus[r])
					 : -1;
		fd[SRC_MIGR] = perf_events ? open_counter(PERF_TYPE_SOFTWARE,
							  PERF_COUNT_SW_CPU_MIGRATIONS, cpus[r])
					   : -1;
		fd[SRC_SMI] = smi ? open_counter(smi_type, smi_config, cpus[r]) : -1;
		for (int s = 0; s < NSRC; s++)
			failed[s] += fd[s] < 0;
	}
	if (!perf_events)
		note(a, "%s", "switches, migrations and SMIs need the perf backend");
	else {
		if (failed[SRC_CS])
			note(a, "context switches n/a on %s CPUs (perf_event_open failed)",
			     failed[SRC_CS] == nrows ? "all" : "some");
		if (!smi)
			note(a, "%s", "SMIs n/a (no msr/smi/ event here)");
		else if (failed[SRC_SMI])
			note(a, "SMIs n/a on %s CPUs (msr/smi/ did not open)",
			     failed[SRC_SMI] == nrows ? "all" : "some");
	}
	char why[256];
	if (tasktop_init(&a->tt, a->root, a->ncpu_max, slow_ms, exclude_pid, why, sizeof(why)) == 0)
		a->tt_ok = true;
	else
		note(a, "busiest task n/a: %s", why);
	return 0;
}

void attrib_free(struct attrib *a)
{
	if (a->fd)
		for (int i = 0; i < a->nrows * NSRC; i++)
			if (a->fd[i] >= 0)
				close(a->fd[i]);
	for (int k = 0; k < 2; k++) {
		procirq_free(&a->irq[k]);
		procirq_free(&a->softirq[k]);
	}
	if (a->tt_ok)
		tasktop_free(&a->tt);
	free(a->cpus);
	free(a->fd);
	free(a->prev);
	free(a->val);
	free(a->mhz);
	free(a->irq_delta);
	memset(a, 0, sizeof(*a));
}

/* Per-CPU rates from the newest two reads of one /proc file into column @col. */
static void irq_rates(struct attrib *a, struct procirq_table *t, enum procirq_file which, bool *ok,
		      int col, double dt)
{
	char why[256];
	int nxt = !a->cur;
	if (procirq_read(&t[nxt], a->root, which, why, sizeof(why)) < 0) {
		if (*ok || !a->primed)
			note(a, "%s", why);
		*ok = false;
		return;
	}
	bool have_prev = *ok && a->primed;
	*ok = true;
	if (!have_prev || dt <= 0)
		return;
	struct cpuset valid;
	procirq_delta(&t[a->cur], &t[nxt], a->irq_delta, a->ncpu_max, &valid);
	for (int r = 0; r < a->nrows; r++)
		if (cpuset_has(&valid, a->cpus[r]))
			a->val[r * ATTRIB_NCOLS + col] = (double)a->irq_delta[a->cpus[r]] / dt;
}

void attrib_sample(struct attrib *a, uint64_t now_ns)
{
	double dt = a->primed ? (double)(now_ns - a->last_ns) / 1e9 : 0;
	for (int i = 0; i < a->nrows * ATTRIB_NCOLS; i++)
		a->val[i] = NAN;
	static const int col_of[NSRC] = {
	    [SRC_CS] = ATTRIB_CS, [SRC_MIGR] = ATTRIB_MIGR, [SRC_SMI] = ATTRIB_SMI};
	for (int r = 0; r < a->nrows; r++)
		for (int s = 0; s < NSRC; s++) {
			int fd = a->fd[r * NSRC + s];
			uint64_t v;
			if (fd < 0 || read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
				continue;
			uint64_t *p = &a->prev[r * NSRC + s];
			if (a->primed && dt > 0 && v >= *p) {
				double d = (double)(v - *p);
				a->val[r * ATTRIB_NCOLS + col_of[s]] = s == SRC_SMI ? d : d / dt;
			}
			*p = v;
		}
	bool first_irq = !a->primed;
	irq_rates(a, a->irq, PROCIRQ_INTERRUPTS, &a->irq_ok, ATTRIB_IRQ, dt);
	irq_rates(a, a->softirq, PROCIRQ_SOFTIRQS, &a->softirq_ok, ATTRIB_SOFTIRQ, dt);
	(void)first_irq;
	a->cur = !a->cur;
	if (!a->primed || now_ns - a->last_slow_ns >= (uint64_t)a->slow_ms * 1000000ULL) {
		a->last_slow_ns = now_ns;
		for (int r = 0; r < a->nrows; r++) {
			uint64_t khz;
			char why[160];
			a->mhz[r] =
			    procirq_cpufreq_khz(a->root, a->cpus[r], &khz, why, sizeof(why)) == 0
				? (double)khz / 1000.0
				: NAN;
		}
	}
	for (int r = 0; r < a->nrows; r++)
		a->val[r * ATTRIB_NCOLS + ATTRIB_MHZ] = a->mhz[r];
	if (a->tt_ok) {
		char why[256];
		if (tasktop_scan(&a->tt, now_ns, why, sizeof(why)) < 0) {
			note(a, "busiest task: %s", why);
			a->tt_ok = false;
		}
	}
	if (a->tt_ok && a->tt.scans >= 2)
		for (int r = 0; r < a->nrows; r++) {
			const struct tasktop_cpu *t = tasktop_cpu(&a->tt, a->cpus[r]);
			a->val[r * ATTRIB_NCOLS + ATTRIB_TASK] = t && t->valid ? t->cpu_pct : 0;
		}
	a->last_ns = now_ns;
	a->primed = true;
}

const double *attrib_values(const struct attrib *a, int row) { return &a->val[row * ATTRIB_NCOLS]; }

const struct tasktop_cpu *attrib_task(const struct attrib *a, int row)
{
	if (!a->tt_ok)
		return NULL;
	const struct tasktop_cpu *c = tasktop_cpu(&a->tt, a->cpus[row]);
	return c && c->valid ? c : NULL;
}

size_t attrib_bytes(const struct attrib *a)
{
	size_t b = (size_t)a->nrows * (sizeof(int) * (1 + NSRC) + sizeof(uint64_t) * NSRC +
				       sizeof(double) * (ATTRIB_NCOLS + 1)) +
		   (size_t)(a->ncpu_max + 1) * sizeof(uint64_t);
	for (int k = 0; k < 2; k++)
		b += procirq_bytes(&a->irq[k]) + procirq_bytes(&a->softirq[k]);
	if (a->tt_ok)
		b += tasktop_bytes(&a->tt);
	return b;
}
