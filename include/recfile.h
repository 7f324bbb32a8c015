/* SPDX-License-Identifier: GPL-2.0-or-later */
/* recfile.h: pmutop recordings (JSON Lines): in-memory records, a crash-safe writer, a reader. */
#ifndef PMUTOP_RECFILE_H
#define PMUTOP_RECFILE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counts.h"
#include "safefile.h"

/*
 * File format (docs/recording-format.md is the user-facing spec). One JSON object per line,
 * each with a "type"; the first line is the header:
 *
 *   {"type":"header","format":"pmutop-recording","version":1,...}
 *   {"type":"mode","t":0.0,"name":"cpi","events":[{"name":"cycles","spec":..,"encoding":..}]}
 *   {"type":"tick","t":1.0,"interval_ms":1000.2,"cpus":[{"cpu":0,"c":[[v,ena,run],null]}]}
 *     (a sampling ring run adds "ring":[lost,throttled_ns,throttles] per CPU, cumulative)
 *   {"type":"mark","t":3.5,"text":"started the build"}
 *   {"type":"cpus","t":4.0,"cpus":[0,1],"core_types":{...}}   (version 2: the CPUs counted from
 *     here on, after one came online or a :cpus; later ticks may hold any of them and of the
 *     header's; a reader of version 1 refuses the file by its header's version)
 *
 * Counter triples are the raw CUMULATIVE {value, enabled ns, running ns} of include/counts.h;
 * consumers compute deltas with count_delta(). Numbers up to INT64_MAX are JSON integers;
 * larger uint64 values (2^63 .. 2^64-1) are written as decimal strings ("9223372036854775808")
 * because JSON parsers commonly hold integers in int64. The reader accepts both forms for
 * every counter and rejects anything else (negative, fractional, above 2^64-1).
 * Unknown record types and unknown keys are skipped (with a warning for unknown types), so
 * later versions can add records such as "spike" without breaking this reader.
 *
 * Strings read from a file (event names, mode names, marks, host, ...) are stored as read;
 * pass them through rec_escape() before they reach a terminal.
 */

#define REC_FORMAT_NAME "pmutop-recording"
#define REC_FORMAT_VERSION 2 /* 2: "cpus" records (the CPU set changed); 1 is read too */
#define REC_NAME_MAX 64	     /* bytes incl. NUL: event/mode/pmu/family/backend/core-type names */
#define REC_SPEC_MAX 256     /* bytes incl. NUL: event specs ("perf::CYCLES", "r01b7") */
#define REC_TEXT_MAX 256     /* bytes incl. NUL: host, kernel, model, mark text */
#define REC_MAX_CPU 4096     /* CPU numbers are 0 .. REC_MAX_CPU-1 (= CPUSET_MAX) */
#define REC_MAX_EVENTS 256   /* events per mode */
#define REC_HEAD_LINE_MAX (1u << 20) /* bytes: a line before the header told the CPUs */
#define REC_MAX_LINE (128u << 20)    /* bytes: no line of any recording is longer */
#define REC_MAX_SLOTS 64	     /* header "slots": issue slots per cycle */
#define REC_RING_MAX (1LL << 53)     /* a tick's ring counts (lost, ns throttled, episodes) */

/* Exclude bits of an event encoding, as in struct perf_event_attr. */
enum rec_exclude {
	REC_EXCL_USER = 1 << 0,
	REC_EXCL_KERNEL = 1 << 1,
	REC_EXCL_HV = 1 << 2,
	REC_EXCL_IDLE = 1 << 3,
	REC_EXCL_HOST = 1 << 4,
	REC_EXCL_GUEST = 1 << 5,
};

/* Header: what was measured, where and how. Owned arrays: cpus. */
struct rec_header {
	int version;		   /* format version of the file (1) */
	char pmutop[REC_NAME_MAX]; /* pmutop version that wrote it */
	char host[REC_TEXT_MAX];
	char kernel[REC_TEXT_MAX];  /* uname -r */
	char pmu[REC_NAME_MAX];	    /* sysfs PMU name ("cpu", "armv8_cortex_a53") */
	char family[REC_NAME_MAX];  /* pmu_family key */
	char model[REC_TEXT_MAX];   /* CPU model; written as a string, integer accepted */
	char backend[REC_NAME_MAX]; /* "perf", "sim", "replay" */
	char source[REC_NAME_MAX];  /* optional origin: "perf-stat-csv", "perf-stat-json", "" */
	bool simulated;		    /* counters were made up (sim backend) */
	unsigned interval_ms;	    /* nominal tick interval */
	unsigned counter_bits; /* width of the raw counters (32 wraps; 0 or 64 = kernel counts) */
	unsigned slots;	       /* issue slots per cycle of the cores (caps/slots), 0 unknown */
	int64_t start_time;    /* unix seconds */
	int ncpus;
	/* 0: a row per CPU; N > 0: the file's one row sums N CPUs (perf stat without -A); -1: an
	 * unknown number. Header member "aggregated_cpus", written when not 0. */
	int aggregated_cpus;
	char rows[16]; /* header "rows": the unit rows were keyed by when recording began ("core"),
			* "" per CPU */
	struct rec_cpu_info {
		int cpu;
		char core_type[REC_NAME_MAX]; /* "cpu_core", "cpu_atom", "" when not hybrid */
		/* header "topology": {"CPU": [socket, die, cluster, core, cache level, cache id]}
		 * (topology.h), for rows keyed by a core, socket, ... on replay */
		bool has_topology;
		int socket, die, cluster, core, cache_level, cache;
		/* header "row_keys" (a task or cgroup run, then "cpus" are row numbers): the task
		 * ("sh[12]") or cgroup path the row sums into; "" none */
		char key[48];
		int key_cpus; /* the CPUs the key's row sums when known (a perf stat --per-core,
			       * ... import: perf's "cpus" column), 0 = the rows it holds */
	} * cpus;	      /* monitored CPUs, in file order */
};

/* One event of a mode. The encoding is what the perf backend opened (absent for replays of
 * foreign data or the sim backend). */
struct rec_event {
	char name[REC_NAME_MAX]; /* alias used by formulas ("cycles") */
	char spec[REC_SPEC_MAX]; /* event as given ("perf::CYCLES") */
	bool has_encoding;
	uint32_t type; /* perf_event_attr.type */
	uint64_t config, config1, config2;
	unsigned exclude; /* enum rec_exclude bits */
	uint64_t
	    quantum_ns; /* the value counts ns in steps of this (/proc/stat ticks); 0 = exact */
};

/* A metric of a mode as the run computed it, so that a replay without the mode's definition
 * (a -M or perf: mode, a define'd one) computes it as well. */
#define REC_MAX_METRICS 64
#define REC_FORMULA_MAX 4096 /* bytes incl. NUL */
struct rec_metric {
	char name[REC_NAME_MAX];
	char unit[16];
	char formula[REC_FORMULA_MAX]; /* expr.h syntax over the mode's event names */
};

/* A mode switch: from now on tick counters are in this event order. Owned: events, metrics. */
struct rec_mode {
	double t; /* s since start */
	char name[REC_NAME_MAX];
	int nevents;
	struct rec_event *events;
	int nmetrics; /* 0: none recorded (a version 2 writer before metrics, or none) */
	struct rec_metric *metrics;
};

/* One counter of one CPU in a tick. present == false: not supported / not opened. */
struct rec_counter {
	bool present;
	struct raw_count raw; /* cumulative value, enabled ns, running ns */
};

struct rec_cpu {
	int cpu;
	bool offline;	       /* the CPU was offline; counters are all absent */
	struct rec_counter *c; /* nevents counters, in the mode's event order */
	/* the sampling ring's kernel counts on this CPU (enum ring_count), cumulative as the
	 * backend keeps them; has_ring false: the tick carries none (a read() path, older files) */
	bool has_ring;
	uint64_t ring[RING_NCOUNTS];
};

/* One sample of every CPU. Owned: cpus and their counters (rec_tick_alloc/rec_tick_free). */
struct rec_tick {
	double t;	    /* s since start */
	double interval_ms; /* measured length of this tick */
	int mode;	    /* reader: index of the mode record in force (0 = first mode) */
	int nevents;	    /* counters per CPU (= the mode's nevents) */
	int ncpus;
	struct rec_cpu *cpus;
};

struct rec_mark {
	double t; /* s since start */
	char text[REC_TEXT_MAX];
};

enum rec_kind {
	REC_AGAIN = -2, /* a non-blocking stream has no whole record yet */
	REC_ERROR = -1,
	REC_EOF = 0,
	REC_HEADER,
	REC_MODE,
	REC_TICK,
	REC_MARK,
	REC_CPUS, /* version 2: the CPU set changed */
};

/* A "cpus" record: the CPUs counted from @t on (core types as in the header). */
struct rec_cpus {
	double t;
	int ncpus;
	struct rec_cpu_info *cpus;
};

/* One record as returned by rec_reader_next(); only the member named by kind is valid. */
struct rec_record {
	enum rec_kind kind;
	int line; /* line number it came from */
	union {
		struct rec_header header;
		struct rec_mode mode;
		struct rec_tick tick;
		struct rec_mark mark;
		struct rec_cpus cpus;
	} u;
};

/* Allocates a zeroed tick for @ncpus CPUs x @nevents counters (one block); -1 on ENOMEM. */
int rec_tick_alloc(struct rec_tick *tick, int ncpus, int nevents);
void rec_tick_free(struct rec_tick *tick);
void rec_header_free(struct rec_header *h);
int rec_tick_copy(struct rec_tick *dst, const struct rec_tick *src);
/* Adds the CPUs of @c that @h lacks to @h's list (after the others). -1 on ENOMEM. */
int rec_header_add_cpus(struct rec_header *h, const struct rec_cpus *c);
/* Frees what the record owns and sets kind to REC_EOF. */
void rec_record_free(struct rec_record *r);

/* Writes @in into @out (always NUL-terminated, truncated to @len) with control characters,
 * DEL, ESC sequences and invalid UTF-8 bytes replaced by visible "\xNN"; backslash becomes
 * "\\". Valid printable UTF-8 is kept. Safe to print on a terminal. */
void rec_escape(const char *in, char *out, size_t len);

/* ---- writer ---- */

struct rec_writer_opts {
	uint64_t max_bytes;	 /* rotate when a file would grow past this (0 = no limit) */
	unsigned keep;		 /* rotated files kept: FILE.1 (newest) .. FILE.keep; 0 acts as 1 */
	bool sync;		 /* fdatasync() after every record (power-loss safety; slow) */
	enum safe_create create; /* a user's name (the default: a symbolic link is refused),
				  * --force, or a name pmutop chose (must be new) */
};

struct rec_writer;

/* Creates (truncates) @path as opts->create says (safefile.h), or stdout for "-". @opts may be
 * NULL. Returns NULL with a message in @err (and errno, EEXIST for a name that must be new)
 * when the file cannot be created, or when opts->max_bytes is set and the output is not a
 * regular file (rotation renames files). A rotated recording's new file must be new. */
struct rec_writer *rec_writer_open(const char *path, const struct rec_writer_opts *opts, char *err,
				   size_t errlen);

/*
 * Each call formats one record and writes it as one whole line with write(2): nothing is
 * buffered in the process, so after kill -9 the file holds every record written so far and
 * at most a torn last line (which the reader ignores with a warning).
 * Returns 0, or -1 with a message in @err:
 *   - caller errors (tick before header/mode, tick->nevents != mode's nevents): -1, the
 *     writer stays usable;
 *   - I/O errors (ENOSPC, EIO, EPIPE, ...): the writer enters the failed state, truncates a
 *     torn line away on regular files, and from then on every call returns -1 with
 *     "recording stopped: No space left on device (wrote N ticks)" without writing anything.
 *     The caller keeps monitoring and shows the message.
 * The header must come first, then a mode, then ticks; write_mode again on a mode switch.
 * EPIPE does not raise SIGPIPE (it is blocked around the write).
 */
int rec_writer_write_header(struct rec_writer *w, const struct rec_header *h, char *err,
			    size_t errlen);
int rec_writer_write_mode(struct rec_writer *w, const struct rec_mode *m, char *err, size_t errlen);
int rec_writer_write_tick(struct rec_writer *w, const struct rec_tick *t, char *err, size_t errlen);
int rec_writer_write_mark(struct rec_writer *w, const struct rec_mark *m, char *err, size_t errlen);
/* The CPU set changed: the CPUs counted from @c->t on (also starts rotated files). */
int rec_writer_write_cpus(struct rec_writer *w, const struct rec_cpus *c, char *err, size_t errlen);
bool rec_writer_failed(const struct rec_writer *w);
uint64_t rec_writer_ticks(const struct rec_writer *w); /* ticks written since open */
/* Closes the file; returns -1 (message in @err) if the writer had failed or close failed. */
int rec_writer_close(struct rec_writer *w, char *err, size_t errlen);

/* ---- reader ---- */

struct rec_reader;

/* Opens @path ("-" = stdin) for streaming. NULL with a message when it cannot be opened. */
struct rec_reader *rec_reader_open(const char *path, char *err, size_t errlen);
struct linereader;
/* Reads records from @lr (the caller closes it after rec_reader_close); its last line, if
 * lr_unread() put it back, is read first. With LR_NONBLOCK, rec_reader_next returns REC_AGAIN
 * while no whole line is there. */
struct rec_reader *rec_reader_from(struct linereader *lr, char *err, size_t errlen);
/* Whether @cur can follow @prev (the last good tick of the same mode): time advances; no
 * enabled or running time goes back; running grows no more than enabled; a count does not go
 * back (64-bit) or by more than half the range (narrower @counter_bits) or exceed its width.
 * -1 with "CPU N counter K: reason" in @why. A counter whose count, enabled and running time all
 * start again was reset (re-opened, the board rebooted): 1 with the reason in @why, the tick is
 * good (its deltas are invalid, a gap, and the next ones count from it). */
int rec_tick_check(const struct rec_tick *prev, const struct rec_tick *cur, unsigned counter_bits,
		   char *why, size_t whylen);

/*
 * Reads the next record into @out (caller frees it with rec_record_free()). Returns its
 * kind, REC_EOF at the end, REC_AGAIN (non-blocking streams), or REC_ERROR with
 * "path:line: message" in @err; after an error the reader keeps returning REC_ERROR.
 * Errors: the first record is not a header of a known version ("format version 2 is newer
 * than this pmutop understands (1)"), a bad header or mode record, a line longer than
 * rec_line_max(). Skipped with a "path:line: ...; tick skipped" warning, so that the last
 * good tick stays the base of the next delta: a tick with a field of the wrong type, a
 * counter that is not a non-negative integer < 2^64, a counter count other than its mode's,
 * a CPU not in the header or repeated, a tick before any mode, and a tick that
 * rec_tick_check() rejects. Also skipped with a warning: lines that are not JSON, records
 * without a type, bad marks, unknown record types. A torn last line (no newline, not
 * parseable) ends the stream with a warning; unknown keys are ignored.
 */
enum rec_kind rec_reader_next(struct rec_reader *r, struct rec_record *out, char *err,
			      size_t errlen);
/* Warnings collected so far ("path:line: ..."), oldest first; valid until close. */
int rec_reader_nwarnings(const struct rec_reader *r);
const char *rec_reader_warning(const struct rec_reader *r, int i);
void rec_reader_close(struct rec_reader *r);

/* A whole recording in memory (rec_load) or an imported perf stat file (perfstat.h). */
/* A CPU set change of a loaded recording (its cpus record): from tick @tick on, the first @ncpus
 * CPUs of the loaded header's list are counted. */
struct rec_cpu_step {
	int tick;
	int ncpus;
};

struct rec_file {
	struct rec_header header;
	/* the CPU set changes, in file order (the header then lists every CPU the file counts, in
	 * order of appearance); ncpus_first: the header's own CPUs, before any change */
	int nsteps, cap_steps, ncpus_first;
	struct rec_cpu_step *steps;
	int nmodes;
	struct rec_mode *modes;
	int nticks;
	struct rec_tick *ticks; /* ticks[i].mode indexes modes[] */
	int nmarks;
	struct rec_mark *marks;
	int nwarnings;
	char **warnings; /* "path:line: ..." */
};

/* Loads all of @path. Returns 0, or -1 with "path:line: message" (and @out left empty). */
int rec_load(const char *path, struct rec_file *out, char *err, size_t errlen);
/* The same from an open reader (closed by the caller). */
int rec_load_lr(struct linereader *lr, struct rec_file *out, char *err, size_t errlen);
void rec_file_free(struct rec_file *f);
/* A cpus record read after @f's ticks so far: its new CPUs join the header's list and count from
 * the next tick on. 0, or -1 when out of memory. */
int rec_file_add_cpus(struct rec_file *f, const struct rec_cpus *c);
/* How many of the header's CPUs (the first ones) are counted at tick @tick. */
int rec_file_ncpus_at(const struct rec_file *f, int tick);
/* The first @n ticks were dropped (a long live stream): the changes' tick numbers follow. */
void rec_file_drop_ticks(struct rec_file *f, int n);
/* Appends a formatted warning to @f (used by importers); -1 on ENOMEM. */
int rec_file_warn(struct rec_file *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), cold));

#endif
