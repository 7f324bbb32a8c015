/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procirq.h: /proc/interrupts, softirqs and stat: per-CPU counts, deltas, top sources; cpufreq. */
#ifndef PMUTOP_PROCIRQ_H
#define PMUTOP_PROCIRQ_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuset.h"

#define PROCIRQ_NAME_MAX 24	     /* bytes, with the NUL */
#define PROCIRQ_DESC_MAX 64	     /* bytes, with the NUL */
#define PROCIRQ_FILE_MAX (64u << 20) /* bytes: larger files are refused */

enum procirq_file { PROCIRQ_INTERRUPTS, PROCIRQ_SOFTIRQS };

/* One row: "LOC:  11324  11177  Local timer interrupts". */
struct procirq_source {
	char name[PROCIRQ_NAME_MAX]; /* without the ':' ("LOC", "24", "IPI0", "TIMER"), escaped */
	char desc[PROCIRQ_DESC_MAX]; /* text after the counts, blanks collapsed, escaped; may be ""
				      */
	bool per_cpu;	/* false for rows with one global count (x86 ERR and MIS, ARM Err) */
	uint64_t total; /* sum over the CPU columns, or the global count */
};

/*
 * One read of either file. The header names the CPU columns ("CPU0 CPU2 CPU3" when CPU 1 is
 * offline); counts are stored by CPU number. Lines that do not fit the header (too few counts,
 * a count that is not a number, a line without ':') are skipped and counted. Rows with a name and
 * no counts at all (ARM32 "FIQ:  usb_fiq") carry nothing and are ignored. Zero-initialise before
 * the first read.
 */
struct procirq_table {
	int ncpu;	     /* highest CPU number in the header + 1 */
	struct cpuset cpus;  /* CPUs that had a column */
	uint64_t *cpu_total; /* [ncpu]: sum of the per-CPU rows; 0 for CPUs without a column */
	size_t nsrc;
	struct procirq_source *src;
	uint64_t *counts;   /* [nsrc * ncpu] */
	size_t skipped;	    /* malformed lines */
	char skip_msg[160]; /* "file:line: message" of the first malformed line, or "" */
};

/* Reads @root + "/proc/interrupts" (or "/proc/softirqs"; root "" is the live system) into @t,
 * replacing its contents. Returns 0, or -1 with "file:line: message" and @t unchanged. */
int procirq_read(struct procirq_table *t, const char *root, enum procirq_file which, char *err,
		 size_t errlen);
/* The same from text; @name is used in messages. */
int procirq_parse(struct procirq_table *t, const char *text, const char *name, char *err,
		  size_t errlen);
void procirq_free(struct procirq_table *t);
size_t procirq_bytes(const struct procirq_table *t);
/* Count of source @i on @cpu (0 when the CPU had no column or the row is global). */
uint64_t procirq_count(const struct procirq_table *t, size_t i, int cpu);
/* Index of the source called @name, or -1. */
long procirq_find(const struct procirq_table *t, const char *name);

/*
 * Per-CPU deltas between two reads, for CPUs 0..ncpu-1: @delta[cpu] is the sum over per-CPU
 * rows of @cur of their increase since @prev (rows matched by name; a row new in @cur counts from
 * 0; a row whose count went down restarted and counts from 0 too). @valid gets the CPUs that had
 * a column in both reads; the others get delta 0 and are n/a (a CPU that went offline or came
 * back). Returns the number of valid CPUs.
 */
int procirq_delta(const struct procirq_table *prev, const struct procirq_table *cur,
		  uint64_t *delta, int ncpu, struct cpuset *valid);

/* One source's increase between two reads. */
struct procirq_top {
	size_t src;	/* index into cur->src */
	uint64_t delta; /* on the chosen CPU, or over all CPUs valid in both reads */
};

/* The @max sources that rose most on @cpu (-1: on all CPUs together), largest first, only
 * those that rose. Returns how many were written. */
size_t procirq_top(const struct procirq_table *prev, const struct procirq_table *cur, int cpu,
		   struct procirq_top *out, size_t max);

/*
 * /proc/stat's per-CPU time: the "cpuN user nice system idle iowait irq softirq steal ..." lines
 * (USER_HZ ticks). The fields kept are the first PROCSTAT_FIELDS; guest times after them are
 * skipped, a missing steal (before Linux 2.6.11) reads 0, and a line with fewer than 7 numbers is
 * skipped as malformed. Parsing stops at the first line after the cpu lines ("intr", which is long
 * on machines with many interrupts); lines of CPUs that @want does not ask for are stepped over
 * without reading their numbers. No sscanf: one pass over the digits.
 */
#define PROCSTAT_FIELDS 8
enum procstat_field {
	PROCSTAT_USER,
	PROCSTAT_NICE,
	PROCSTAT_SYSTEM,
	PROCSTAT_IDLE,
	PROCSTAT_IOWAIT,
	PROCSTAT_IRQ,
	PROCSTAT_SOFTIRQ,
	PROCSTAT_STEAL,
};
/* Parses @len bytes of /proc/stat text: for each cpuN line with N < @ncpu and (@want NULL or
 * @want[N]), stores the fields in @out[N * PROCSTAT_FIELDS + field] and sets @seen[N] (which the
 * caller clears; CPUs that are offline have no line). Returns the number of CPU lines stored. */
int procirq_stat_parse(const char *text, size_t len, int ncpu, const bool *want, uint64_t *out,
		       bool *seen);
/* procirq_stat_parse() that also gives, in @cpus_key, a fingerprint of every CPU number that has
 * a cpuN line (wanted or not, any N): the kernel prints one for each online CPU, so the key
 * changes when the online set does (0: no CPU line). */
int procirq_stat_parse_keyed(const char *text, size_t len, int ncpu, const bool *want,
			     uint64_t *out, bool *seen, uint64_t *cpus_key);
/*
 * /proc/stat read again and again: this machine's file (@root NULL or "") is opened once and
 * read with one pread a time into a buffer that is kept (an open, a read and a close of a procfs
 * file cost ~3x a pread on a descriptor kept open after a sleep, bench/README.md "The sixth
 * round"); a tree's (--sysfs-root) is opened for each read, so a file replaced there is seen.
 * The buffer grows (to PROCIRQ_FILE_MAX) while a read fills it: every CPU's line is in it on
 * machines whose file is larger than the first 64 KiB. Zero-initialise; procstat_file_close()
 * ends it.
 */
struct procstat_file {
	bool open; /* fd is this machine's /proc/stat, kept */
	int fd;
	char *buf;  /* NUL-terminated after a read */
	size_t cap; /* bytes */
};
/* Reads the whole file into @f->buf; returns its length, or -1 (errno set). */
long procstat_file_read(struct procstat_file *f, const char *root);
void procstat_file_close(struct procstat_file *f);

/* Reads @root + "/sys/devices/system/cpu/cpuN/cpufreq/scaling_cur_freq" (kHz).
 * Returns 0, or -1 with a cause (no cpufreq driver, CPU offline, bad content). */
int procirq_cpufreq_khz(const char *root, int cpu, uint64_t *khz, char *err, size_t errlen);

#endif
