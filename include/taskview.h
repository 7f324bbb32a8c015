/* SPDX-License-Identifier: GPL-2.0-or-later */
/* taskview.h: the screen's task and cgroup view: the busiest tasks (/proc) or cgroup v2 groups
 * (cpu.stat) counted live, the set following the busiest list, and one of them per CPU. */
#ifndef PMUTOP_TASKVIEW_H
#define PMUTOP_TASKVIEW_H
#include <stdbool.h>
#include <stddef.h>

struct app_ctx;

enum taskview_kind { TASKVIEW_OFF, TASKVIEW_TASKS, TASKVIEW_CGROUPS };

#define TASKVIEW_MAX 256     /* tasks or cgroups shown at most */
#define TASKVIEW_DEFAULT 20  /* shown when neither the screen nor :set tasks says */
#define TASKVIEW_FD_SPARE 64 /* descriptors left for everything else */
#define TASKVIEW_FOLLOW 5    /* frames between two scans of the list (a new set is reopened) */

/*
 * Opens the list of @kind (or returns to it from one task or cgroup per CPU): scans /proc or
 * the cgroup root now and counts the busiest at once (pid = TID, cpu = -1 per task; the cgroup
 * on every chosen CPU per cgroup). Then at every frame the list is scanned again and, when the
 * busiest set changed, the counters are reopened on the new set. Refused for a run that counts
 * given tasks or cgroups (-p, -G, ...), a recording or the sim. 0, or -1 with @err.
 */
int app_taskview_open(struct app_ctx *app, enum taskview_kind kind, char *err, size_t errlen);
/* Counts the list's row with key id @id (a tid, or a cgroup's index) on each chosen CPU
 * (pid = TID, cpu = N; or the cgroup on CPU N): the CPU table of that task or cgroup. */
int app_taskview_filter(struct app_ctx *app, long id, char *err, size_t errlen);
/* Back to counting the CPUs (the rows and row unit from before). No-op when off. */
int app_taskview_close(struct app_ctx *app, char *err, size_t errlen);
/* What is shown: TASKVIEW_OFF, or the list's kind; *@filtered when one of it per CPU. */
enum taskview_kind app_taskview_kind(const struct app_ctx *app, bool *filtered);
/* :set tasks N (1..TASKVIEW_MAX, 0: as many as the screen has rows for); @fit: the screen's. */
int app_taskview_set_count(struct app_ctx *app, int n, char *err, size_t errlen);
int app_taskview_count(const struct app_ctx *app);
void app_taskview_fit(struct app_ctx *app, int rows);
/* While @held the counted set stays as it is (a recording's rows are those of its header). */
void app_taskview_hold(struct app_ctx *app, bool held);
/* The CPU share (0..1) of the list's row with key id @id over the last frame, as top counts it:
 * a task's run time in /proc/TID/schedstat, a cgroup's usage_usec in cpu.stat, over the time
 * between two frames. NAN: not known yet, gone, or the rows are one per CPU. */
double app_taskview_cpu_share(struct app_ctx *app, long id);
/* One line on what the view shows and how it is counted (the view's title). */
void app_taskview_status(const struct app_ctx *app, char *buf, size_t len);

#endif
