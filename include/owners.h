/* SPDX-License-Identifier: GPL-2.0-or-later */
/* owners.h: who holds or competes for the PMUs: perf events of every process, the NMI watchdog,
 * KVM guests, pmutop itself; from a BPF iterator, /proc, or a dump read back. Opens no counter. */
#ifndef PMUTOP_OWNERS_H
#define PMUTOP_OWNERS_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum owner_kind {
	OWNER_WATCHDOG, /* the kernel's NMI watchdog (kernel.nmi_watchdog) */
	OWNER_SELF,	/* this pmutop */
	OWNER_PROCESS,	/* another process's perf event file */
	OWNER_CGROUP,	/* a process's event counting one cgroup (perf stat -G) */
	OWNER_BPF,	/* an event a BPF program is attached to */
	OWNER_KVM,	/* a KVM guest (its vPMU counters are the host's perf events) */
};

/* Where the facts came from. */
enum owners_source {
	OWNERS_NONE,	/* nothing read yet */
	OWNERS_BPF,	/* the task_file BPF iterator: every event's attr, CPU, state, counter */
	OWNERS_PROC,	/* /proc/PID/fd: which processes hold perf event files and how many */
	OWNERS_FIXTURE, /* a dump read back (--owners-from, PMUTOP_OWNERS_FIXTURE) */
};

#define OWNER_COMM_MAX 17
#define OWNER_NAME_MAX 64

/* One perf event (detailed) or one process's perf event files (files > 0, not detailed). */
struct owner_event {
	enum owner_kind kind;
	int pid; /* -1 for the kernel (watchdog) */
	char comm[OWNER_COMM_MAX];
	int cpu;       /* -1: follows a task on any CPU, or unknown */
	int files;     /* not detailed: perf event files the process holds (vCPUs for KVM) */
	bool detailed; /* attr, state and times below are known */
	uint32_t type; /* attr.type */
	uint64_t config;
	int pmu_type;		   /* the PMU the event is on (event->pmu->type), -1 unknown */
	char name[OWNER_NAME_MAX]; /* as perf writes it: "cycles", "cpu-clock", "r01c2",
				      "msr/config=0x0/" */
	bool pinned, exclusive;
	int state; /* perf_event_state: 1 active, 0 inactive, -1 off, -2 error, -3 exit, -4 dead */
	int counter; /* hardware counter index while scheduled, -1 none/unknown */
	int group;   /* the holder's group number (0, 1, ...; order of their leaders), -1 unknown */
	uint64_t enabled_ns, running_ns;
};

struct owners {
	enum owners_source source;
	char note[200];	  /* why this source (e.g. "no BPF iterator: built without libbpf") */
	int nmi_watchdog; /* kernel.nmi_watchdog: 1, 0, -1 unknown */
	bool hw_pmu;	  /* the machine has a hardware core PMU (the watchdog holds a counter) */
	int self_pid;
	struct owner_event *ev;
	int n, cap;
};

/* Collect flags. */
#define OWNERS_NO_BPF 1u /* use /proc even when the BPF iterator is there */

/* Reads the owners of this machine (or of the tree under @root, "" live): the BPF iterator when
 * built in, allowed and @root is "", else /proc. @self_pid is pmutop's own pid. Replaces @o's
 * contents. Returns 0, or -1 with the reason in @err (/proc unreadable). */
int owners_collect(struct owners *o, const char *root, int self_pid, bool hw_pmu, unsigned flags,
		   char *err, size_t errlen);
/* Reads a dump written by owners_write_json (the fixture format; at most OWNERS_DUMP_MAX bytes).
 * Returns 0 or -1 + @err (@o unchanged). owners_parse reads it from memory (@path names it). */
#define OWNERS_DUMP_MAX (16 << 20)
int owners_load(struct owners *o, const char *path, char *err, size_t errlen);
int owners_parse(struct owners *o, const char *text, size_t len, const char *path, char *err,
		 size_t errlen);
/* The listing: text (one line per event or process, grouped by CPU) or one JSON object. */
void owners_write_text(FILE *out, const struct owners *o);
void owners_write_json(FILE *out, const struct owners *o);
void owners_free(struct owners *o);

const char *owner_kind_name(enum owner_kind k);	      /* "watchdog", "self", "process", ... */
const char *owners_source_name(enum owners_source s); /* "bpf", "proc", "fixture", "none" */
/* An event's name as perf writes it, from its attr type and config. */
void owners_event_name(uint32_t type, uint64_t config, char *out, size_t len);
/* Share of its enabled time the event counted (0..1), NAN when unknown. */
double owner_ran(const struct owner_event *e);

/* The facts for the capability line and --explain, one per line into @out ("" none): the
 * watchdog's counter, other processes that hold events (pid, comm, events, CPUs, share),
 * KVM guests; each with its fix where there is one. @self_running is pmutop's own least
 * running fraction in mode @mode (NAN unknown): a shortfall is put beside each holder.
 * Returns the count. */
int owners_summary(const struct owners *o, const char *mode, double self_running, char *out,
		   size_t len);

/* The BPF iterator, when this program was built with it (main registers it; the board agent
 * never does). Returns 0 with the events appended to @o, or -1 with the reason in @err. */
typedef int (*owners_bpf_fn)(struct owners *o, char *err, size_t errlen);
void owners_set_bpf(owners_bpf_fn fn);
int owners_bpf_collect(struct owners *o, char *err, size_t errlen); /* owners_bpf.c */
/* Appends one event (grows the array). Returns the new entry or NULL (out of memory). */
struct owner_event *owners_add(struct owners *o);

/* Reads the map the run's options ask for: --owners-from FILE (or PMUTOP_OWNERS_FIXTURE),
 * else this machine (or the tree under @root); PMUTOP_OWNERS_NO_BPF=1 forces /proc. */
int owners_read(struct owners *o, const char *owners_from, const char *root, bool hw_pmu, char *err,
		size_t errlen);
struct options;
/* --list-owners: the map in text, or JSON with -f json, and the summary. Exit status. */
int owners_report(const struct options *opt, FILE *out, FILE *errout);
/* --explain: "# owners: source ..." and one "# holder: ..." line per holder, with the fix. */
void owners_explain(const struct options *opt, bool hw_pmu, const char *mode, FILE *out);

#endif
