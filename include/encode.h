/* SPDX-License-Identifier: GPL-2.0-or-later */
/* encode.h: event specs (libpfm4 names, raw rNN, sysfs pmu/term/ syntax) -> perf_event_attr. */
#ifndef PMUTOP_ENCODE_H
#define PMUTOP_ENCODE_H
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

struct pmu_family;

/* What the encoder needs to know about the machine the event is for. */
struct encode_ctx {
	const char *sysfs_root;		 /* prefix for /sys lookups ("" or "/" = live) */
	const struct pmu_family *family; /* selects the libpfm4 model for "@::EVENT" */
	int core_pmu_type; /* attr.type for raw "rNN" (4 = PERF_TYPE_RAW; dynamic on ARM/hybrid) */
	bool filters_priv; /* false: the core PMU rejects every exclude_* bit */
};

struct event_encoding {
	struct perf_event_attr attr;
	char pmu[64];	/* "perf", "skl", "raw", "msr", ... */
	char fstr[256]; /* fully qualified name as encoded */
	bool hardware;	/* a hardware counter (needs a core PMU), not a software/msr event */
	bool procfs;	/* proc/NAME/: read from /proc/stat by the backend, no perf event */
	int errpos;	/* on failure: 0-based offset in the spec of what is wrong, -1 unknown */
};

/* Pseudo-events read from /proc/stat per CPU (attr.config of a proc/NAME/ encoding). */
enum encode_proc_field {
	ENCODE_PROC_BUSY, /* user + nice + system + irq + softirq + steal, ns */
	ENCODE_PROC_IDLE, /* idle + iowait, ns */
	ENCODE_PROC_IRQ,  /* irq + softirq, ns */
};
#define ENCODE_TYPE_PROC 0xfffffff0u /* attr.type of proc/NAME/ encodings (never opened) */

/* Initialises libpfm4 once (allowing models this machine lacks). Returns 0 or -1 + @err. */
int encode_init(char *err, size_t errlen);
/* Unloads libpfm4 where it was loaded on demand (its relocated tables are ~2.7 MB resident);
 * the next encoding loads it again. Call between ticks, never while a list is being walked. */
void encode_release(void);
/* Whether libpfm4 is loaded now, and how many times it was loaded (always loaded, once, when
 * linked statically). */
bool encode_loaded(void);
unsigned encode_loads(void);
/* True when @spec names a libpfm4 model ("skl::X", or "@::X" with @family's model) that this
 * libpfm4 build lacks (libpfm4 on ARM has no x86 tables); the model goes to @model. */
bool encode_model_missing(const char *spec, const struct pmu_family *family, char *model,
			  size_t len);

/* Encodes one spec:
 *   perf::CYCLES, cycles, cpu-clock          libpfm4 generic/software events
 *   skl::INST_RETIRED:ANY_P                   a libpfm4 model event (any compiled-in model)
 *   @::INST_RETIRED:ANY_P                     the same, with the model of ctx->family
 *   cycles, L1-dcache-load-misses, cs        perf's generic names (when libpfm4 lacks them)
 *   r03, r1b7:config1=0x10001                 raw event code (hex) for the core PMU
 *   msr/tsc/, cpu/event=0x3c,umask=0/         sysfs PMU syntax (events/ names, format/ terms)
 *   cycles:u, r3c:k, cpu/event=0x3c/uk        perf modifiers u k h (levels), G H (guest/host),
 *                                             I (exclude idle), p (precise_ip, repeatable)
 *   proc/busy/, proc/idle/, proc/irq/         per-CPU time from /proc/stat (ns), not a perf event
 * Returns 0, or -1 with a one-line reason in @err. */
int event_encode(const char *spec, const struct encode_ctx *ctx, struct event_encoding *enc,
		 char *err, size_t errlen);

/* "type=4 config=0x1b7 config1=0x10001 exclude=guest" */
void encode_format(const struct event_encoding *enc, char *buf, size_t len);

/* Fills up to @max names closest to @bad (edit distance over libpfm4's events for the models of
 * @ctx and perf generic events). Returns the number found. */
int encode_suggest(const char *bad, const struct encode_ctx *ctx, char (*out)[96], int max);

/* Calls @fn for every event libpfm4 knows on the active models (and, with @all, every
 * compiled-in model) whose name contains @pattern (case-insensitive; NULL = all). */
typedef void (*encode_list_fn)(void *arg, const char *pmu, const char *event, const char *desc,
			       bool present);
void encode_list(const char *pattern, bool all, encode_list_fn fn, void *arg);

#endif
