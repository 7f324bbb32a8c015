/* SPDX-License-Identifier: GPL-2.0-or-later */
/* target.h: what is counted: every CPU (the default), tasks (-p, -t, -u, -- CMD) or cgroups (-G,
 * --for-each-cgroup): the counter rows each needs and the row key each sums into. */
#ifndef PMUTOP_TARGET_H
#define PMUTOP_TARGET_H
#include "topology.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct options;
struct cpuset;

enum target_kind { TARGET_CPUS, TARGET_TASKS, TARGET_CGROUPS };

/* At most this many counter rows (a thread, or a (cgroup, CPU) pair). */
#define TARGET_MAX_ROWS 4096

/*
 * The counter rows of a task or cgroup run. A task row opens its events with pid = TID, cpu = -1
 * (they follow the thread across CPUs); a cgroup row with the cgroup directory's descriptor and
 * PERF_FLAG_PID_CGROUP on one CPU. Rows sum into keys: a process's threads into the process, a
 * cgroup's CPUs into the cgroup.
 */
struct target {
	enum target_kind kind;
	int nrows;
	int *row_pid;	 /* [nrows]: the thread counted, -1 for a cgroup row */
	int *row_cgroup; /* [nrows]: the cgroup directory's descriptor, -1 for a task row */
	int *row_cpu;	 /* [nrows]: the CPU of a cgroup row; for a task row its index */
	int *row_key;	 /* [nrows]: the key (keys[]) it sums into */
	int *row_ncpus;	 /* [nrows]: the CPUs a row already sums (an imported perf stat
			  * --per-core, ... capture's units), NULL: one each */
	int nkeys;
	struct row_key *keys; /* [nkeys]: kind ROWS_TASK (label comm[pid]) or ROWS_CGROUP (path) */
	bool inherit;	      /* -- CMD, -p, -u: threads and children started later count into the
			       * task that started them */
	bool pid_on_cpu; /* a task row counts its thread on row_cpu only (pid = TID, cpu = N) */
	/* -- CMD */
	pid_t child;	   /* the command, 0 none */
	int go_fd;	   /* the pipe the child waits on before its exec, -1 once released */
	int pidfd;	   /* readable when the command ends, -1 none */
	bool child_ended;  /* reaped: status below */
	int child_status;  /* as waitpid gives it */
	char command[128]; /* the command line, for the summary */
	char skipped[256]; /* what was left out (threads gone, over the row limit) */
};

/*
 * Reads @o's -p, -t, -u, -G, --for-each-cgroup and -- CMD into @t (TARGET_CPUS when none is
 * given). The command is forked and waits before its exec until target_release. @cpus are the
 * CPUs a cgroup is counted on. Returns 0, or -1 with @err (nothing is left running).
 */
int target_init(struct target *t, const struct options *o, const char *sysfs_root, const int *cpus,
		int ncpus, char *err, size_t errlen);
/* The directory cgroup paths are under: perf's choice (a cgroup v1 perf_event hierarchy, else the
 * cgroup v2 mount, /sys/fs/cgroup or /sys/fs/cgroup/unified). */
const char *target_cgroup_root(void);
/* --sim-tasks N: N simulated tasks, ids @pid0 + k (the sim's SIM_TASK_PID0), a row and a key
 * each ("cc1[1003]"). Returns 0, or -1 with @err. */
int target_sim(struct target *t, int ntasks, int pid0, char *err, size_t errlen);
/* A cgroup run's rows on the CPUs @cpus instead (:cpus, a CPU that came online): each cgroup's
 * directory on each of them, a cgroup's rows together. Returns the rows, or -1 with @err (too
 * many: nothing changed). */
int target_cgroup_cpus(struct target *t, const int *cpus, int ncpus, char *err, size_t errlen);
/* Lets the command exec (its counters are open and enabled on exec). */
void target_release(struct target *t);
/* Reaps the command when it has ended (no wait). True once it has. */
bool target_reap(struct target *t);
/* The exit status the run ends with for the command: its code, or 128 + its signal. */
int target_exit_status(const struct target *t);
/* Kills and reaps a command still running, closes the cgroup descriptors, frees. */
void target_free(struct target *t);
/* Descriptors the counters of @nevents events need: rows x events (for --explain). */
long target_fds_needed(const struct target *t, int nevents);

/* The run's side (src/engine/app-target.c). */
struct app_ctx;
/* Reads the run's target (after its CPUs are chosen): rows become threads or (cgroup, CPU)
 * pairs; -- CMD is forked and watched. Returns 0, or an exit status with @err. */
int app_target_init(struct app_ctx *app, char *err, size_t errlen);
/* A recording of a task or cgroup run (header "row_keys"): its rows sum into its tasks or
 * cgroups again. 0, or -1 when out of memory. */
int app_target_from_recording(struct app_ctx *app);
/* The counters are open: the command may exec. */
void app_target_release(struct app_ctx *app);
/* perf stat's summary of -- CMD: each event's total over the run and the command's status. */
void app_target_summary(struct app_ctx *app, FILE *out);
/* Counts @t instead of what is counted now (the task view's tasks or cgroups, or TARGET_CPUS:
 * the CPUs chosen again): the counters are reopened on its rows, time and seq go on. @t becomes
 * the run's (the old target is freed); on failure nothing changes and @t stays the caller's. */
int app_swap_target(struct app_ctx *app, struct target *t, char *err, size_t errlen);

#endif
