/* SPDX-License-Identifier: GPL-2.0-or-later */
/* recfile.c: pmutop recordings: record memory, escaping, crash-safe writer, checking reader. */
#include "recfile.h"
#include "jsonbound.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cpuset.h"
#include "linereader.h"
#include "textutil.h"

#define MAX_WARNINGS 1000

/* Exclude bits and their JSON keys. */
static const struct {
	unsigned bit;
	const char *key;
} exclude_table[] = {
    {REC_EXCL_USER, "exclude_user"}, {REC_EXCL_KERNEL, "exclude_kernel"},
    {REC_EXCL_HV, "exclude_hv"},     {REC_EXCL_IDLE, "exclude_idle"},
    {REC_EXCL_HOST, "exclude_host"}, {REC_EXCL_GUEST, "exclude_guest"},
};
#define NEXCLUDE (sizeof(exclude_table) / sizeof(exclude_table[0]))

/* ---- record memory ---- */

int rec_tick_alloc(struct rec_tick *tick, int ncpus, int nevents)
{
	memset(tick, 0, sizeof(*tick));
	if (ncpus < 0 || nevents < 0)
		return -1;
	size_t head = (size_t)ncpus * sizeof(struct rec_cpu);
	size_t body = (size_t)ncpus * (size_t)nevents * sizeof(struct rec_counter);
	char *mem = calloc(1, head + body + 1);
	if (!mem)
		return -1;
	tick->cpus = (struct rec_cpu *)mem;
	struct rec_counter *c = (struct rec_counter *)(mem + head);
	for (int i = 0; i < ncpus; i++)
		tick->cpus[i].c = c + (size_t)i * (size_t)nevents;
	tick->ncpus = ncpus;
	tick->nevents = nevents;
	return 0;
}

void rec_tick_free(struct rec_tick *tick)
{
	free(tick->cpus);
	tick->cpus = NULL;
	tick->ncpus = 0;
}

void rec_header_free(struct rec_header *h)
{
	free(h->cpus);
	h->cpus = NULL;
	h->ncpus = 0;
}

static void rec_mode_free(struct rec_mode *m)
{
	free(m->events);
	m->events = NULL;
	m->nevents = 0;
	free(m->metrics);
	m->metrics = NULL;
	m->nmetrics = 0;
}

int rec_tick_copy(struct rec_tick *dst, const struct rec_tick *src)
{
	if (rec_tick_alloc(dst, src->ncpus, src->nevents) < 0)
		return -1;
	dst->t = src->t;
	dst->interval_ms = src->interval_ms;
	dst->mode = src->mode;
	for (int i = 0; i < src->ncpus; i++) {
		dst->cpus[i].cpu = src->cpus[i].cpu;
		dst->cpus[i].offline = src->cpus[i].offline;
		dst->cpus[i].has_ring = src->cpus[i].has_ring;
		memcpy(dst->cpus[i].ring, src->cpus[i].ring, sizeof(dst->cpus[i].ring));
		memcpy(dst->cpus[i].c, src->cpus[i].c,
		       (size_t)src->nevents * sizeof(struct rec_counter));
	}
	return 0;
}

int rec_header_add_cpus(struct rec_header *h, const struct rec_cpus *c)
{
	for (int i = 0; i < c->ncpus; i++) {
		bool have = false;
		for (int k = 0; k < h->ncpus && !have; k++)
			have = h->cpus[k].cpu == c->cpus[i].cpu;
		if (have)
			continue;
		struct rec_cpu_info *v = realloc(h->cpus, (size_t)(h->ncpus + 1) * sizeof(*v));
		if (!v)
			return -1;
		h->cpus = v;
		h->cpus[h->ncpus++] = c->cpus[i];
	}
	return 0;
}

void rec_record_free(struct rec_record *r)
{
	switch (r->kind) {
	case REC_HEADER:
		rec_header_free(&r->u.header);
		break;
	case REC_MODE:
		rec_mode_free(&r->u.mode);
		break;
	case REC_TICK:
		rec_tick_free(&r->u.tick);
		break;
	case REC_CPUS:
		free(r->u.cpus.cpus);
		r->u.cpus.cpus = NULL;
		break;
	default:
		break;
	}
	r->kind = REC_EOF;
}

/* ---- escaping ---- */

void rec_escape(const char *in, char *out, size_t len)
{
	text_escape(in, TEXT_NUL_TERMINATED, out, len);
}

/* Escaped copy of a file string for messages (static ring of buffers, 4 at a time). */
static const char *esc(const char *s)
{
	static char ring[4][160];
	static int next;
	char *b = ring[next++ & 3];
	rec_escape(s, b, sizeof(ring[0]));
	return b;
}

/* ---- writer ---- */

struct rec_writer {
	int fd;
	bool own_fd;  /* we opened it (not stdout) */
	bool regular; /* regular file: can truncate, rotate */
	bool failed;
	char *path;
	struct rec_writer_opts opts;
	uint64_t bytes;		/* complete lines in the current file */
	uint64_t ticks;		/* ticks written since open */
	uint64_t ticks_in_file; /* ticks in the current file (rotation) */
	char *header_line;	/* kept to start rotated files */
	char *cpus_line;	/* the last CPU set change, after the header */
	char *mode_line;
	int mode_nevents; /* -1: no mode yet */
	char failmsg[256];
	char *buf; /* tick formatting buffer */
	size_t cap, len;
};

struct rec_writer *rec_writer_open(const char *path, const struct rec_writer_opts *opts, char *err,
				   size_t errlen)
{
	struct rec_writer *w = calloc(1, sizeof(*w));
	if (!w || !(w->path = strdup(path))) {
		free(w);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (opts)
		w->opts = *opts;
	if (w->opts.keep == 0)
		w->opts.keep = 1;
	w->mode_nevents = -1;
	if (strcmp(path, "-") == 0) {
		w->fd = STDOUT_FILENO;
	} else {
		w->fd = safe_create(path, w->opts.create);
		if (w->fd < 0) {
			int e = errno;
			snprintf(err, errlen, "cannot create recording %s: %s", esc(path),
				 safe_create_reason(path, e));
			free(w->path);
			free(w);
			errno = e;
			return NULL;
		}
		w->own_fd = true;
	}
	struct stat st;
	w->regular = fstat(w->fd, &st) == 0 && S_ISREG(st.st_mode);
	if (w->regular && !w->own_fd) /* stdout redirected to a file: append after what is there */
		w->bytes = (uint64_t)lseek(w->fd, 0, SEEK_CUR);
	if (w->opts.max_bytes && !(w->regular && w->own_fd)) {
		snprintf(err, errlen, "recording %s: a size limit needs a regular file", esc(path));
		rec_writer_close(w, NULL, 0);
		return NULL;
	}
	return w;
}

static int writer_fail(struct rec_writer *w, char *err, size_t errlen, const char *what, int e)
{
	w->failed = true;
	snprintf(w->failmsg, sizeof(w->failmsg),
		 "recording %s stopped: %s%s (wrote %" PRIu64 " ticks)", esc(w->path), what,
		 strerror(e), w->ticks);
	snprintf(err, errlen, "%s", w->failmsg);
	return -1;
}

/* write(2) all of @buf; on a pipe, EPIPE must not raise SIGPIPE. Returns bytes written;
 * sets *e on error. */
static size_t write_all(struct rec_writer *w, const char *buf, size_t len, int *e)
{
	sigset_t pipeset, old, pending;
	bool guard = !w->regular, was_pending = false;
	if (guard) {
		sigemptyset(&pipeset);
		sigaddset(&pipeset, SIGPIPE);
		sigpending(&pending);
		was_pending = sigismember(&pending, SIGPIPE);
		sigprocmask(SIG_BLOCK, &pipeset, &old);
	}
	size_t done = 0;
	*e = 0;
	while (done < len) {
		ssize_t n = write(w->fd, buf + done, len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			*e = errno;
			break;
		}
		if (n == 0) {
			*e = EIO;
			break;
		}
		done += (size_t)n;
	}
	if (guard) {
		if (*e == EPIPE && !was_pending) {
			struct timespec zero = {0, 0};
			while (sigtimedwait(&pipeset, NULL, &zero) < 0 && errno == EINTR)
				;
		}
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	return done;
}

/* Writes complete lines, or nothing: a torn line is truncated away on regular files. */
static int write_lines(struct rec_writer *w, const char *buf, size_t len, char *err, size_t errlen)
{
	int e;
	size_t done = write_all(w, buf, len, &e);
	if (e) {
		if (done > 0 && w->regular) {
			if (ftruncate(w->fd, (off_t)w->bytes) == 0)
				lseek(w->fd, (off_t)w->bytes, SEEK_SET);
		}
		return writer_fail(w, err, errlen, "", e);
	}
	w->bytes += len;
	if (w->opts.sync && w->regular && fdatasync(w->fd) < 0)
		return writer_fail(w, err, errlen, "", errno);
	return 0;
}

static int rotate(struct rec_writer *w, char *err, size_t errlen)
{
	size_t plen = strlen(w->path) + 16;
	char *from = malloc(plen), *to = malloc(plen);
	int rc = 0;
	if (!from || !to) {
		rc = writer_fail(w, err, errlen, "cannot rotate: ", ENOMEM);
		goto out;
	}
	for (unsigned k = w->opts.keep; k > 1; k--) {
		snprintf(from, plen, "%s.%u", w->path, k - 1);
		snprintf(to, plen, "%s.%u", w->path, k);
		if (rename(from, to) < 0 && errno != ENOENT) {
			rc = writer_fail(w, err, errlen, "cannot rotate: ", errno);
			goto out;
		}
	}
	snprintf(to, plen, "%s.1", w->path);
	if (rename(w->path, to) < 0) {
		rc = writer_fail(w, err, errlen, "cannot rotate: ", errno);
		goto out;
	}
	close(w->fd);
	w->fd = safe_create(w->path, SAFE_CREATE_NEW); /* renamed away just now */
	if (w->fd < 0) {
		w->own_fd = false;
		rc = writer_fail(w, err, errlen, "cannot rotate: ", errno);
		goto out;
	}
	w->bytes = 0;
	w->ticks_in_file = 0;
	if (w->header_line && write_lines(w, w->header_line, strlen(w->header_line), err, errlen))
		rc = -1;
	else if (w->cpus_line && write_lines(w, w->cpus_line, strlen(w->cpus_line), err, errlen))
		rc = -1;
	else if (w->mode_line && write_lines(w, w->mode_line, strlen(w->mode_line), err, errlen))
		rc = -1;
out:
	free(from);
	free(to);
	return rc;
}

/* Writes one record line (ending in '\n'), rotating first when it would pass max_bytes. */
static int write_record(struct rec_writer *w, const char *line, size_t len, char *err,
			size_t errlen)
{
	if (w->failed) {
		snprintf(err, errlen, "%s", w->failmsg);
		return -1;
	}
	if (w->opts.max_bytes && w->regular && w->own_fd && w->ticks_in_file > 0 &&
	    w->bytes + len > w->opts.max_bytes && rotate(w, err, errlen) < 0)
		return -1;
	return write_lines(w, line, len, err, errlen);
}

/* A JSON string; invalid UTF-8 (from a foreign file) is stored escaped instead. */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s);
	if (!j) {
		char tmp[4 * REC_SPEC_MAX];
		rec_escape(s, tmp, sizeof(tmp));
		j = json_string(tmp);
	}
	return j;
}

static json_t *jhex(uint64_t v)
{
	char tmp[32];
	snprintf(tmp, sizeof(tmp), "0x%" PRIx64, v);
	return json_string(tmp);
}

/* Seconds rounded to microseconds; 0 when not finite. */
static double usec_round(double t) { return isfinite(t) ? round(t * 1e6) / 1e6 : 0; }
/* Tick times keep the backend clock's nanoseconds, so a replay measures the same intervals. */
static double nsec_round(double t) { return isfinite(t) ? round(t * 1e9) / 1e9 : 0; }

/* ENSURE_ASCII: a string from a mode file, the kernel or an agent is stored as it is, but as
 * \uXXXX beyond ASCII, so no C1 or bidirectional control reaches a terminal that shows the
 * file (jansson escapes the C0 controls itself). */
#define DUMP_FLAGS                                                                                 \
	(JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15) | JSON_ENSURE_ASCII)

/* Dumps @o (consumed) as one line with '\n'; NULL on ENOMEM. */
static char *dump_line(json_t *o)
{
	char *s = o ? json_dumps(o, DUMP_FLAGS) : NULL;
	json_decref(o);
	if (!s)
		return NULL;
	size_t n = strlen(s);
	char *line = realloc(s, n + 2);
	if (!line) {
		free(s);
		return NULL;
	}
	line[n] = '\n';
	line[n + 1] = '\0';
	return line;
}

/* "cpus":[N,...] and, when any CPU has one, "core_types":{"N":"type"} into @o (takes @cpus and
 * @types). */
static void put_cpus(json_t *o, json_t *cpus, json_t *types, bool any_type,
		     const struct rec_cpu_info *c, int n)
{
	for (int i = 0; i < n; i++) {
		json_array_append_new(cpus, json_integer(c[i].cpu));
		if (c[i].core_type[0]) {
			char key[16];
			snprintf(key, sizeof(key), "%d", c[i].cpu);
			json_object_set_new(types, key, jstr(c[i].core_type));
			any_type = true;
		}
	}
	json_object_set_new(o, "cpus", cpus);
	if (any_type)
		json_object_set_new(o, "core_types", types);
	else
		json_decref(types);
}

/* "topology":{"N":[socket, die, cluster, core, cache level, cache id]} into @o for the CPUs of
 * @c that have one (none: no member). */
static void put_topology(json_t *o, const struct rec_cpu_info *c, int n)
{
	json_t *topo = json_object();
	for (int i = 0; i < n; i++) {
		if (!c[i].has_topology)
			continue;
		char key[16];
		snprintf(key, sizeof(key), "%d", c[i].cpu);
		json_object_set_new(topo, key,
				    json_pack("[iiiiii]", c[i].socket, c[i].die, c[i].cluster,
					      c[i].core, c[i].cache_level, c[i].cache));
	}
	if (json_object_size(topo))
		json_object_set_new(o, "topology", topo);
	else
		json_decref(topo);
}

int rec_writer_write_header(struct rec_writer *w, const struct rec_header *h, char *err,
			    size_t errlen)
{
	if (w->failed) {
		snprintf(err, errlen, "%s", w->failmsg);
		return -1;
	}
	if (w->header_line) {
		snprintf(err, errlen, "recording: header already written");
		return -1;
	}
	json_t *o = json_object(), *cpus = json_array(), *types = json_object();
	bool any_type = false;
	json_object_set_new(o, "type", json_string("header"));
	json_object_set_new(o, "format", json_string(REC_FORMAT_NAME));
	json_object_set_new(o, "version", json_integer(REC_FORMAT_VERSION));
	json_object_set_new(o, "pmutop", jstr(h->pmutop[0] ? h->pmutop : PMUTOP_VERSION));
	json_object_set_new(o, "host", jstr(h->host));
	json_object_set_new(o, "kernel", jstr(h->kernel));
	json_object_set_new(o, "pmu", jstr(h->pmu));
	json_object_set_new(o, "family", jstr(h->family));
	json_object_set_new(o, "model", jstr(h->model));
	put_cpus(o, cpus, types, any_type, h->cpus, h->ncpus);
	put_topology(o, h->cpus, h->ncpus);
	if (h->rows[0])
		json_object_set_new(o, "rows", jstr(h->rows));
	if (h->ncpus && h->cpus[0].key[0]) { /* a task or cgroup run: each row's key */
		json_t *keys = json_array();
		for (int i = 0; i < h->ncpus; i++)
			json_array_append_new(keys, jstr(h->cpus[i].key));
		json_object_set_new(o, "row_keys", keys);
		json_t *kc =
		    json_array(); /* the CPUs each key sums (a perf stat --per-core import) */
		bool any = false;
		for (int i = 0; i < h->ncpus; i++) {
			json_array_append_new(kc, json_integer(h->cpus[i].key_cpus));
			any |= h->cpus[i].key_cpus > 0;
		}
		if (any)
			json_object_set_new(o, "row_key_cpus", kc);
		else
			json_decref(kc);
	}
	json_object_set_new(o, "interval_ms", json_integer(h->interval_ms));
	if (h->counter_bits && h->counter_bits < 64)
		json_object_set_new(o, "counter_bits", json_integer(h->counter_bits));
	if (h->aggregated_cpus)
		json_object_set_new(o, "aggregated_cpus", json_integer(h->aggregated_cpus));
	if (h->slots)
		json_object_set_new(o, "slots", json_integer(h->slots));
	json_object_set_new(o, "backend", jstr(h->backend));
	if (h->source[0])
		json_object_set_new(o, "source", jstr(h->source));
	json_object_set_new(o, "simulated", json_boolean(h->simulated));
	json_object_set_new(o, "start_time", json_integer(h->start_time));
	char *line = dump_line(o);
	if (!line) {
		snprintf(err, errlen, "recording: out of memory");
		return -1;
	}
	w->header_line = line;
	return write_record(w, line, strlen(line), err, errlen);
}

int rec_writer_write_cpus(struct rec_writer *w, const struct rec_cpus *c, char *err, size_t errlen)
{
	if (w->failed) {
		snprintf(err, errlen, "%s", w->failmsg);
		return -1;
	}
	if (!w->header_line) {
		snprintf(err, errlen, "recording: cpus written before the header");
		return -1;
	}
	if (c->ncpus < 1 || c->ncpus > REC_MAX_CPU) {
		snprintf(err, errlen, "recording: %d CPUs", c->ncpus);
		return -1;
	}
	json_t *o = json_object();
	json_object_set_new(o, "type", json_string("cpus"));
	json_object_set_new(o, "t", json_real(usec_round(c->t)));
	put_cpus(o, json_array(), json_object(), false, c->cpus, c->ncpus);
	put_topology(o, c->cpus, c->ncpus); /* a CPU that came online has its place in rows */
	if (c->cpus[0].key[0]) { /* a task or cgroup run: the rows by number, each row's key */
		json_t *keys = json_array();
		for (int i = 0; i < c->ncpus; i++)
			json_array_append_new(keys, jstr(c->cpus[i].key));
		json_object_set_new(o, "row_keys", keys);
	}
	char *line = dump_line(o);
	if (!line) {
		snprintf(err, errlen, "recording: out of memory");
		return -1;
	}
	free(w->cpus_line);
	w->cpus_line = line;
	return write_record(w, line, strlen(line), err, errlen);
}

int rec_writer_write_mode(struct rec_writer *w, const struct rec_mode *m, char *err, size_t errlen)
{
	if (w->failed) {
		snprintf(err, errlen, "%s", w->failmsg);
		return -1;
	}
	if (!w->header_line) {
		snprintf(err, errlen, "recording: mode written before the header");
		return -1;
	}
	json_t *o = json_object(), *evs = json_array();
	json_object_set_new(o, "type", json_string("mode"));
	json_object_set_new(o, "t", json_real(usec_round(m->t)));
	json_object_set_new(o, "name", jstr(m->name));
	for (int i = 0; i < m->nevents; i++) {
		const struct rec_event *e = &m->events[i];
		json_t *je = json_object();
		json_object_set_new(je, "name", jstr(e->name));
		json_object_set_new(je, "spec", jstr(e->spec));
		if (e->has_encoding) {
			json_t *enc = json_object();
			json_object_set_new(enc, "type", json_integer(e->type));
			json_object_set_new(enc, "config", jhex(e->config));
			json_object_set_new(enc, "config1", jhex(e->config1));
			json_object_set_new(enc, "config2", jhex(e->config2));
			for (size_t k = 0; k < NEXCLUDE; k++)
				json_object_set_new(
				    enc, exclude_table[k].key,
				    json_boolean(e->exclude & exclude_table[k].bit));
			json_object_set_new(je, "encoding", enc);
		} else {
			json_object_set_new(je, "encoding", json_null());
		}
		if (e->quantum_ns)
			json_object_set_new(je, "quantum_ns",
					    json_integer((json_int_t)e->quantum_ns));
		json_array_append_new(evs, je);
	}
	json_object_set_new(o, "events", evs);
	if (m->nmetrics > 0) {
		json_t *ms = json_array();
		for (int i = 0; i < m->nmetrics && i < REC_MAX_METRICS; i++) {
			json_t *jm = json_object();
			json_object_set_new(jm, "name", jstr(m->metrics[i].name));
			if (m->metrics[i].unit[0])
				json_object_set_new(jm, "unit", jstr(m->metrics[i].unit));
			json_object_set_new(jm, "formula", jstr(m->metrics[i].formula));
			json_array_append_new(ms, jm);
		}
		json_object_set_new(o, "metrics", ms);
	}
	char *line = dump_line(o);
	if (!line) {
		snprintf(err, errlen, "recording: out of memory");
		return -1;
	}
	free(w->mode_line);
	w->mode_line = line;
	w->mode_nevents = m->nevents;
	return write_record(w, line, strlen(line), err, errlen);
}

static int buf_printf(struct rec_writer *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int buf_printf(struct rec_writer *w, const char *fmt, ...)
{
	if (!w->buf) { /* no NULL + 0 arithmetic on the first record */
		w->buf = malloc(4096);
		if (!w->buf)
			return -1;
		w->cap = 4096;
		w->len = 0;
	}
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(w->buf + w->len, w->cap - w->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return -1;
		if ((size_t)n < w->cap - w->len) {
			w->len += (size_t)n;
			return 0;
		}
		size_t cap = (w->cap + (size_t)n + 1) * 2;
		char *b = realloc(w->buf, cap);
		if (!b)
			return -1;
		w->buf = b;
		w->cap = cap;
	}
}

/* A real number as jansson writes it with JSON_REAL_PRECISION(15). */
static int buf_real(struct rec_writer *w, double v)
{
	char tmp[40];
	snprintf(tmp, sizeof(tmp), "%.15g", isfinite(v) ? v : 0.0);
	if (!strpbrk(tmp, ".e"))
		strcat(tmp, ".0");
	return buf_printf(w, "%s", tmp);
}

static int buf_u64(struct rec_writer *w, uint64_t v)
{
	return buf_printf(w, v <= INT64_MAX ? "%" PRIu64 : "\"%" PRIu64 "\"", v);
}

int rec_writer_write_tick(struct rec_writer *w, const struct rec_tick *t, char *err, size_t errlen)
{
	if (w->failed) {
		snprintf(err, errlen, "%s", w->failmsg);
		return -1;
	}
	if (w->mode_nevents < 0) {
		snprintf(err, errlen, "recording: tick written before a mode");
		return -1;
	}
	if (t->nevents != w->mode_nevents) {
		snprintf(err, errlen, "recording: tick has %d counters but the mode has %d events",
			 t->nevents, w->mode_nevents);
		return -1;
	}
	int rc = 0;
	w->len = 0;
	rc |= buf_printf(w, "{\"type\":\"tick\",\"t\":");
	rc |= buf_real(w, nsec_round(t->t));
	rc |= buf_printf(w, ",\"interval_ms\":");
	rc |= buf_real(w, isfinite(t->interval_ms) ? round(t->interval_ms * 1e3) / 1e3 : 0);
	rc |= buf_printf(w, ",\"cpus\":[");
	for (int i = 0; i < t->ncpus && rc == 0; i++) {
		const struct rec_cpu *c = &t->cpus[i];
		rc |= buf_printf(w, "%s{\"cpu\":%d,%s\"c\":[", i ? "," : "", c->cpu,
				 c->offline ? "\"offline\":true," : "");
		for (int e = 0; e < t->nevents; e++) {
			const struct rec_counter *k = &c->c[e];
			if (e)
				rc |= buf_printf(w, ",");
			if (!k->present || c->offline) {
				rc |= buf_printf(w, "null");
				continue;
			}
			rc |= buf_printf(w, "[");
			rc |= buf_u64(w, k->raw.value);
			rc |= buf_printf(w, ",");
			rc |= buf_u64(w, k->raw.enabled);
			rc |= buf_printf(w, ",");
			rc |= buf_u64(w, k->raw.running);
			rc |= buf_printf(w, "]");
		}
		rc |= buf_printf(w, "]");
		/* the sampling ring's kernel counts: "ring":[lost,throttled_ns,throttles] */
		for (int k = 0; c->has_ring && k < RING_NCOUNTS; k++) {
			rc |= buf_printf(w, k ? "," : ",\"ring\":[");
			rc |= buf_u64(w, c->ring[k]);
		}
		rc |= buf_printf(w, c->has_ring ? "]}" : "}");
	}
	rc |= buf_printf(w, "]}\n");
	if (rc) {
		snprintf(err, errlen, "recording: out of memory");
		return -1;
	}
	if (write_record(w, w->buf, w->len, err, errlen) < 0)
		return -1;
	w->ticks++;
	w->ticks_in_file++;
	return 0;
}

int rec_writer_write_mark(struct rec_writer *w, const struct rec_mark *m, char *err, size_t errlen)
{
	if (w->failed) {
		snprintf(err, errlen, "%s", w->failmsg);
		return -1;
	}
	if (!w->header_line) {
		snprintf(err, errlen, "recording: mark written before the header");
		return -1;
	}
	json_t *o = json_object();
	json_object_set_new(o, "type", json_string("mark"));
	json_object_set_new(o, "t", json_real(usec_round(m->t)));
	json_object_set_new(o, "text", jstr(m->text));
	char *line = dump_line(o);
	if (!line) {
		snprintf(err, errlen, "recording: out of memory");
		return -1;
	}
	int rc = write_record(w, line, strlen(line), err, errlen);
	free(line);
	return rc;
}

bool rec_writer_failed(const struct rec_writer *w) { return w->failed; }
uint64_t rec_writer_ticks(const struct rec_writer *w) { return w->ticks; }

int rec_writer_close(struct rec_writer *w, char *err, size_t errlen)
{
	if (!w)
		return 0;
	int rc = 0;
	if (w->failed) {
		snprintf(err, errlen, "%s", w->failmsg);
		rc = -1;
	}
	if (w->own_fd && w->fd >= 0 && close(w->fd) < 0 && rc == 0) {
		snprintf(err, errlen, "recording %s: %s", esc(w->path), strerror(errno));
		rc = -1;
	}
	free(w->header_line);
	free(w->cpus_line);
	free(w->mode_line);
	free(w->buf);
	free(w->path);
	free(w);
	return rc;
}

/* ---- reader ---- */

struct rec_reader {
	struct linereader *lr;
	bool own_lr; /* opened by rec_reader_open */
	char *path;  /* escaped, for messages */
	int line;
	bool failed, done;
	char failmsg[512];
	bool have_header;
	struct cpuset cpus; /* from the header */
	int mode_index;	    /* -1: no mode yet */
	int mode_nevents;
	char mode_name[REC_NAME_MAX];
	unsigned counter_bits; /* from the header (0: 64) */
	bool have_last;
	struct rec_tick last; /* the last good tick of the mode in force: the next one's base */
	int nwarn;
	char **warn;
	int suppressed;
};

/* The longest line a recording may have: REC_HEAD_LINE_MAX before the header; after it, what
 * a tick of @ncpus CPUs x @nevents counters can take (at most REC_MAX_LINE). A longer line is
 * an error "file:line: line longer than N bytes", found before it is read whole. */
static size_t rec_line_max(int ncpus, int nevents)
{
	if (ncpus <= 0 || nevents <= 0)
		return REC_HEAD_LINE_MAX;
	/* a CPU entry: {"cpu":4095,"offline":false,"c":[...],"ring":[l,t,n]} (ring counts up to
	 * 16 digits); a counter: three 20-digit numbers as strings with commas, brackets and some
	 * spaces */
	uint64_t n = REC_HEAD_LINE_MAX + (uint64_t)ncpus * (128 + (uint64_t)nevents * 80);
	return n > REC_MAX_LINE ? REC_MAX_LINE : (size_t)n;
}

struct rec_reader *rec_reader_from(struct linereader *lr, char *err, size_t errlen)
{
	struct rec_reader *r = calloc(1, sizeof(*r));
	if (!r || !(r->path = strdup(lr_name(lr)))) {
		free(r);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->lr = lr;
	r->line = (int)lr_lineno(lr);
	lr_set_limit(lr, REC_HEAD_LINE_MAX);
	r->mode_index = -1;
	return r;
}

struct rec_reader *rec_reader_open(const char *path, char *err, size_t errlen)
{
	struct linereader *lr = lr_open(path, REC_HEAD_LINE_MAX, 0, err, errlen);
	struct rec_reader *r = lr ? rec_reader_from(lr, err, errlen) : NULL;
	if (r)
		r->own_lr = true;
	else
		lr_close(lr);
	return r;
}

static void reader_warn(struct rec_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void reader_warn(struct rec_reader *r, const char *fmt, ...)
{
	char msg[512];
	int n = snprintf(msg, sizeof(msg), "%s:%d: ", r->path, r->line);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	if (r->nwarn >= MAX_WARNINGS) {
		r->suppressed++;
		snprintf(msg, sizeof(msg), "%s: %d more warnings not shown", r->path,
			 r->suppressed);
		free(r->warn[r->nwarn - 1]);
		r->warn[r->nwarn - 1] = strdup(msg);
		return;
	}
	char **w = realloc(r->warn, (size_t)(r->nwarn + 1) * sizeof(*w));
	if (!w)
		return;
	r->warn = w;
	if ((w[r->nwarn] = strdup(msg)))
		r->nwarn++;
}

int rec_reader_nwarnings(const struct rec_reader *r) { return r->nwarn; }
const char *rec_reader_warning(const struct rec_reader *r, int i)
{
	return i >= 0 && i < r->nwarn ? r->warn[i] : NULL;
}

void rec_reader_close(struct rec_reader *r)
{
	if (!r)
		return;
	if (r->own_lr)
		lr_close(r->lr);
	rec_tick_free(&r->last);
	for (int i = 0; i < r->nwarn; i++)
		free(r->warn[i]);
	free(r->warn);
	free(r->path);
	free(r);
}

/* Parse context: where we are, for messages. */
struct pctx {
	struct rec_reader *r;
	char msg[400];
};

static int perr(struct pctx *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(struct pctx *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* Optional/required string member into a fixed buffer. */
static int get_str(struct pctx *p, json_t *o, const char *what, const char *key, bool required,
		   char *dst, size_t size)
{
	json_t *v = json_object_get(o, key);
	dst[0] = '\0';
	if (!v || json_is_null(v)) {
		if (required)
			return perr(p, "%s has no \"%s\"", what, key);
		return 0;
	}
	if (!json_is_string(v))
		return perr(p, "%s: \"%s\" must be a string", what, key);
	if (json_string_length(v) >= size)
		return perr(p, "%s: \"%s\" is longer than %zu bytes", what, key, size - 1);
	memcpy(dst, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

static int get_num(struct pctx *p, json_t *o, const char *what, const char *key, bool required,
		   double *dst)
{
	json_t *v = json_object_get(o, key);
	*dst = 0;
	if (!v) {
		if (required)
			return perr(p, "%s has no \"%s\"", what, key);
		return 0;
	}
	if (!json_is_number(v))
		return perr(p, "%s: \"%s\" must be a number", what, key);
	*dst = json_number_value(v);
	if (!isfinite(*dst) || *dst < 0 || *dst > 1e15)
		return perr(p, "%s: \"%s\" is out of range", what, key);
	return 0;
}

static int get_int(struct pctx *p, json_t *o, const char *what, const char *key, bool required,
		   int64_t min, int64_t max, int64_t *dst)
{
	json_t *v = json_object_get(o, key);
	*dst = 0;
	if (!v) {
		if (required)
			return perr(p, "%s has no \"%s\"", what, key);
		return 0;
	}
	if (!json_is_integer(v))
		return perr(p, "%s: \"%s\" must be an integer", what, key);
	*dst = json_integer_value(v);
	if (*dst < min || *dst > max)
		return perr(p, "%s: \"%s\" = %" PRId64 " is out of range", what, key, *dst);
	return 0;
}

static int get_bool(struct pctx *p, json_t *o, const char *what, const char *key, bool *dst)
{
	json_t *v = json_object_get(o, key);
	*dst = false;
	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return perr(p, "%s: \"%s\" must be true or false", what, key);
	*dst = json_is_true(v);
	return 0;
}

/* A uint64 written as a JSON integer or as a decimal (or 0x hex, @hex) string. */
static int parse_u64(struct pctx *p, json_t *v, const char *what, bool hex, uint64_t *dst)
{
	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0)
			return perr(p, "%s is negative", what);
		*dst = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		int base = 10;
		if (hex && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			s += 2;
			base = 16;
		}
		size_t n = strlen(s);
		if (n == 0 || n > 20 ||
		    strspn(s, base == 16 ? "0123456789abcdefABCDEF" : "0123456789") != n)
			return perr(p, "%s: \"%s\" is not an unsigned integer", what,
				    esc(json_string_value(v)));
		errno = 0;
		unsigned long long x = strtoull(s, NULL, base);
		if (errno == ERANGE)
			return perr(p, "%s: %s does not fit in 64 bits", what,
				    esc(json_string_value(v)));
		*dst = x;
		return 0;
	}
	if (json_is_real(v))
		return perr(p, "%s must be an integer, not %g", what, json_real_value(v));
	return perr(p, "%s must be an unsigned integer", what);
}

#define TOPOLOGY_SHAPE                                                                             \
	"\"topology\" must map listed CPU numbers to [socket, die, cluster, core, cache level, "   \
	"cache id] (integers 0..1000000)"

/* "topology" of a header or cpus record (absent or null: none) into @cpus, the @n CPUs @seen
 * lists; -1 when it is not of TOPOLOGY_SHAPE. */
static int get_topology(json_t *o, struct rec_cpu_info *cpus, int n, const struct cpuset *seen)
{
	json_t *topo = json_object_get(o, "topology");
	if (!topo || json_is_null(topo))
		return 0;
	if (!json_is_object(topo))
		return -1;
	const char *key;
	json_t *val;
	json_object_foreach(topo, key, val)
	{
		char *end;
		long cpu = strtol(key, &end, 10);
		if (!*key || *end || cpu < 0 || cpu >= REC_MAX_CPU || !cpuset_has(seen, (int)cpu) ||
		    !json_is_array(val) || json_array_size(val) != 6)
			return -1;
		int v[6];
		for (int k = 0; k < 6; k++) {
			json_t *num = json_array_get(val, (size_t)k);
			if (!json_is_integer(num) || json_integer_value(num) < 0 ||
			    json_integer_value(num) > 1000000)
				return -1;
			v[k] = (int)json_integer_value(num);
		}
		for (int k = 0; k < n; k++)
			if (cpus[k].cpu == cpu) {
				struct rec_cpu_info *ci = &cpus[k];
				ci->has_topology = true;
				ci->socket = v[0], ci->die = v[1], ci->cluster = v[2];
				ci->core = v[3], ci->cache_level = v[4], ci->cache = v[5];
			}
	}
	return 0;
}

static int parse_header(struct pctx *p, json_t *o, struct rec_header *h)
{
	char format[REC_NAME_MAX];
	int64_t v;
	double d;
	memset(h, 0, sizeof(*h));
	if (get_str(p, o, "header", "format", true, format, sizeof(format)) < 0)
		return -1;
	if (strcmp(format, REC_FORMAT_NAME) != 0)
		return perr(p, "not a pmutop recording (format \"%s\")", esc(format));
	if (get_int(p, o, "header", "version", true, INT32_MIN, INT32_MAX, &v) < 0)
		return -1;
	if (v > REC_FORMAT_VERSION)
		return perr(p,
			    "format version %" PRId64 " is newer than this pmutop understands (%d)",
			    v, REC_FORMAT_VERSION);
	if (v < 1)
		return perr(p, "bad format version %" PRId64, v);
	h->version = (int)v;
	if (get_str(p, o, "header", "pmutop", false, h->pmutop, sizeof(h->pmutop)) < 0 ||
	    get_str(p, o, "header", "host", false, h->host, sizeof(h->host)) < 0 ||
	    get_str(p, o, "header", "kernel", false, h->kernel, sizeof(h->kernel)) < 0 ||
	    get_str(p, o, "header", "pmu", false, h->pmu, sizeof(h->pmu)) < 0 ||
	    get_str(p, o, "header", "family", false, h->family, sizeof(h->family)) < 0 ||
	    get_str(p, o, "header", "backend", false, h->backend, sizeof(h->backend)) < 0 ||
	    get_str(p, o, "header", "source", false, h->source, sizeof(h->source)) < 0 ||
	    get_bool(p, o, "header", "simulated", &h->simulated) < 0)
		return -1;
	json_t *model = json_object_get(o, "model");
	if (json_is_integer(model))
		snprintf(h->model, sizeof(h->model), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(model));
	else if (get_str(p, o, "header", "model", false, h->model, sizeof(h->model)) < 0)
		return -1;
	if (get_num(p, o, "header", "interval_ms", false, &d) < 0)
		return -1;
	if (!(d >= 0 && d <= 86400000))
		return perr(p, "header: \"interval_ms\" must be from 0 to 86400000");
	h->interval_ms = (unsigned)d;
	if (get_num(p, o, "header", "counter_bits", false, &d) < 0)
		return -1;
	if (d != 0 && (d < 16 || d > 64 || d != (double)(unsigned)d))
		return perr(p, "header: \"counter_bits\" must be an integer from 16 to 64");
	h->counter_bits = (unsigned)d;
	int64_t agg;
	if (get_int(p, o, "header", "aggregated_cpus", false, -1, REC_MAX_CPU, &agg) < 0)
		return -1;
	h->aggregated_cpus = (int)agg;
	if (get_num(p, o, "header", "slots", false, &d) < 0)
		return -1;
	if (d > REC_MAX_SLOTS || d != (double)(unsigned)d)
		return perr(p, "header: \"slots\" must be an integer from 1 to %d", REC_MAX_SLOTS);
	h->slots = (unsigned)d;
	json_t *st = json_object_get(o, "start_time");
	if (st && !json_is_number(st))
		return perr(p, "header: \"start_time\" must be a number");
	if (st && !(json_number_value(st) > -9.2e18 && json_number_value(st) < 9.2e18))
		return perr(p, "header: \"start_time\" is out of range");
	h->start_time = st ? (int64_t)json_number_value(st) : 0;

	json_t *cpus = json_object_get(o, "cpus");
	if (!cpus)
		return perr(p, "header has no \"cpus\"");
	if (!json_is_array(cpus) || json_array_size(cpus) == 0 ||
	    json_array_size(cpus) > REC_MAX_CPU)
		return perr(p, "header: \"cpus\" must be a list of 1 to %d CPU numbers",
			    REC_MAX_CPU);
	h->ncpus = (int)json_array_size(cpus);
	h->cpus = calloc((size_t)h->ncpus, sizeof(*h->cpus));
	if (!h->cpus)
		return perr(p, "out of memory");
	struct cpuset seen;
	cpuset_clear(&seen);
	size_t i;
	json_t *c;
	json_array_foreach(cpus, i, c)
	{
		if (!json_is_integer(c) || json_integer_value(c) < 0 ||
		    json_integer_value(c) >= REC_MAX_CPU)
			goto bad_cpu;
		int cpu = (int)json_integer_value(c);
		if (cpuset_has(&seen, cpu))
			goto bad_cpu;
		cpuset_add(&seen, cpu);
		h->cpus[i].cpu = cpu;
	}
	json_t *types = json_object_get(o, "core_types");
	if (types && !json_is_null(types)) {
		if (!json_is_object(types))
			goto bad_types;
		const char *key;
		json_t *val;
		json_object_foreach(types, key, val)
		{
			char *end;
			long cpu = strtol(key, &end, 10);
			if (!*key || *end || cpu < 0 || cpu >= REC_MAX_CPU ||
			    !cpuset_has(&seen, (int)cpu))
				goto bad_types;
			if (!json_is_string(val) || json_string_length(val) >= REC_NAME_MAX)
				goto bad_types;
			for (int k = 0; k < h->ncpus; k++)
				if (h->cpus[k].cpu == cpu)
					strcpy(h->cpus[k].core_type, json_string_value(val));
		}
	}
	if (get_topology(o, h->cpus, h->ncpus, &seen) < 0)
		goto bad_topo;
	json_t *rows = json_object_get(o, "rows");
	if (rows && !json_is_null(rows)) {
		if (!json_is_string(rows) || json_string_length(rows) >= sizeof(h->rows))
			goto bad_rows;
		snprintf(h->rows, sizeof(h->rows), "%s", json_string_value(rows));
	}
	json_t *keys = json_object_get(o, "row_keys");
	if (keys && !json_is_null(keys)) {
		if (!json_is_array(keys) || json_array_size(keys) != (size_t)h->ncpus)
			goto bad_keys;
		json_array_foreach(keys, i, c)
		{
			if (!json_is_string(c) || json_string_length(c) == 0 ||
			    json_string_length(c) >= sizeof(h->cpus[i].key))
				goto bad_keys;
			snprintf(h->cpus[i].key, sizeof(h->cpus[i].key), "%s",
				 json_string_value(c));
		}
	}
	json_t *kc = json_object_get(o, "row_key_cpus");
	if (kc && !json_is_null(kc)) {
		if (!keys || !json_is_array(kc) || json_array_size(kc) != (size_t)h->ncpus)
			goto bad_key_cpus;
		json_array_foreach(kc, i, c)
		{
			if (!json_is_integer(c) || json_integer_value(c) < 0 ||
			    json_integer_value(c) > REC_MAX_CPU)
				goto bad_key_cpus;
			h->cpus[i].key_cpus = (int)json_integer_value(c);
		}
		/* a key's CPUs are the same on each of its rows */
		for (int r = 0; r < h->ncpus; r++)
			for (int q = 0; q < r; q++)
				if (h->cpus[q].key_cpus != h->cpus[r].key_cpus &&
				    strcmp(h->cpus[q].key, h->cpus[r].key) == 0) {
					char k[4 * sizeof(h->cpus[r].key)];
					rec_escape(h->cpus[r].key, k, sizeof(k));
					int a = h->cpus[q].key_cpus, b = h->cpus[r].key_cpus;
					rec_header_free(h);
					return perr(p,
						    "header: \"row_key_cpus\" gives row key '%s' "
						    "%d and %d CPUs",
						    k, a, b);
				}
	}
	p->r->cpus = seen;
	p->r->counter_bits = h->counter_bits;
	lr_set_limit(p->r->lr, rec_line_max(h->ncpus, REC_MAX_EVENTS));
	return 0;
bad_cpu:
	rec_header_free(h);
	return perr(p, "header: \"cpus\" must hold distinct CPU numbers 0..%d", REC_MAX_CPU - 1);
bad_types:
	rec_header_free(h);
	return perr(p, "header: \"core_types\" must map listed CPU numbers to short names");
bad_topo:
	rec_header_free(h);
	return perr(p, "header: " TOPOLOGY_SHAPE);
bad_rows:
	rec_header_free(h);
	return perr(p, "header: \"rows\" must be a unit name (cpu, core, socket, ...)");
bad_keys:
	rec_header_free(h);
	return perr(p, "header: \"row_keys\" must name a task or cgroup per row");
bad_key_cpus:
	rec_header_free(h);
	return perr(p, "header: \"row_key_cpus\" must give a CPU count 0..%d per row key",
		    REC_MAX_CPU);
}

static int parse_encoding(struct pctx *p, json_t *enc, struct rec_event *e, const char *what)
{
	int64_t v;
	if (!json_is_object(enc))
		return perr(p, "%s: \"encoding\" must be an object or null", what);
	if (get_int(p, enc, what, "type", true, 0, UINT32_MAX, &v) < 0)
		return -1;
	e->type = (uint32_t)v;
	static const char *const keys[] = {"config", "config1", "config2"};
	uint64_t *dst[] = {&e->config, &e->config1, &e->config2};
	for (int k = 0; k < 3; k++) {
		json_t *c = json_object_get(enc, keys[k]);
		char w[REC_NAME_MAX + 32];
		snprintf(w, sizeof(w), "%s: \"%s\"", what, keys[k]);
		if (c && parse_u64(p, c, w, true, dst[k]) < 0)
			return -1;
	}
	for (size_t k = 0; k < NEXCLUDE; k++) {
		bool b;
		if (get_bool(p, enc, what, exclude_table[k].key, &b) < 0)
			return -1;
		if (b)
			e->exclude |= exclude_table[k].bit;
	}
	e->has_encoding = true;
	return 0;
}

/* The members of the list @arr (its length checked by the caller): *@items gets one zeroed item
 * of @size bytes per member (NULL for none), *@n their number, and @item parses each from its
 * object, named @kind N in messages ("event 2"). */
typedef int (*item_fn)(struct pctx *p, json_t *j, const char *what, void *items, size_t i,
		       struct rec_mode *m);
static int parse_items(struct pctx *p, json_t *arr, struct rec_mode *m, const char *kind,
		       size_t size, void **items, int *n, item_fn item)
{
	*n = (int)json_array_size(arr);
	*items = *n ? calloc((size_t)*n, size) : NULL;
	if (*n && !*items)
		return perr(p, "out of memory");
	size_t i;
	json_t *j;
	json_array_foreach(arr, i, j)
	{
		char what[64];
		snprintf(what, sizeof(what), "%s %zu", kind, i + 1);
		if (!json_is_object(j))
			return perr(p, "%s of mode '%s' must be an object", what, esc(m->name));
		if (item(p, j, what, *items, i, m) < 0)
			return -1;
	}
	return 0;
}

/* Event @i of a mode's events @items: {"name", "spec", "encoding", "quantum_ns"}. */
static int parse_event(struct pctx *p, json_t *je, const char *what, void *items, size_t i,
		       struct rec_mode *m)
{
	struct rec_event *events = items, *e = &events[i];
	if (get_str(p, je, what, "name", true, e->name, sizeof(e->name)) < 0 ||
	    get_str(p, je, what, "spec", false, e->spec, sizeof(e->spec)) < 0)
		return -1;
	if (!e->name[0])
		return perr(p, "%s has an empty name", what);
	for (size_t k = 0; k < i; k++)
		if (strcmp(events[k].name, e->name) == 0)
			return perr(p, "mode '%s' lists event '%s' twice", esc(m->name),
				    esc(e->name));
	json_t *enc = json_object_get(je, "encoding");
	if (enc && !json_is_null(enc) && parse_encoding(p, enc, e, what) < 0)
		return -1;
	int64_t quantum;
	if (get_int(p, je, what, "quantum_ns", false, 0, 3600000000000LL, &quantum) < 0)
		return -1;
	e->quantum_ns = (uint64_t)quantum;
	return 0;
}

/* Metric @i of a mode's metrics @items: {"name", "unit", "formula"}. */
static int parse_metric(struct pctx *p, json_t *jm, const char *what, void *items, size_t i,
			struct rec_mode *m)
{
	struct rec_metric *rm = &((struct rec_metric *)items)[i];
	if (get_str(p, jm, what, "name", true, rm->name, sizeof(rm->name)) < 0 ||
	    get_str(p, jm, what, "unit", false, rm->unit, sizeof(rm->unit)) < 0 ||
	    get_str(p, jm, what, "formula", true, rm->formula, sizeof(rm->formula)) < 0)
		return -1;
	if (!rm->name[0] || !rm->formula[0])
		return perr(p, "%s of mode '%s' needs a name and a formula", what, esc(m->name));
	return 0;
}

static int parse_mode(struct pctx *p, json_t *o, struct rec_mode *m)
{
	memset(m, 0, sizeof(*m));
	if (get_num(p, o, "mode", "t", true, &m->t) < 0 ||
	    get_str(p, o, "mode", "name", true, m->name, sizeof(m->name)) < 0)
		return -1;
	json_t *evs = json_object_get(o, "events");
	if (!evs)
		return perr(p, "mode '%s' has no \"events\"", esc(m->name));
	if (!json_is_array(evs) || json_array_size(evs) == 0 ||
	    json_array_size(evs) > REC_MAX_EVENTS)
		return perr(p, "mode '%s': \"events\" must be a list of 1 to %d events",
			    esc(m->name), REC_MAX_EVENTS);
	void *items;
	int rc =
	    parse_items(p, evs, m, "event", sizeof(*m->events), &items, &m->nevents, parse_event);
	m->events = items;
	if (rc < 0)
		goto fail;
	json_t *ms = json_object_get(o, "metrics"); /* optional: the run's formulas */
	if (ms && !json_is_null(ms)) {
		if (!json_is_array(ms) || json_array_size(ms) > REC_MAX_METRICS) {
			perr(p, "mode '%s': \"metrics\" must be a list of at most %d metrics",
			     esc(m->name), REC_MAX_METRICS);
			goto fail;
		}
		rc = parse_items(p, ms, m, "metric", sizeof(*m->metrics), &items, &m->nmetrics,
				 parse_metric);
		m->metrics = items;
		if (rc < 0)
			goto fail;
	}
	return 0;
fail:
	rec_mode_free(m);
	return -1;
}

/* A CPU's optional "ring": [lost, throttled_ns, throttles], integers 0..REC_RING_MAX. */
static int parse_ring(struct pctx *p, json_t *jc, struct rec_cpu *c)
{
	json_t *ring = json_object_get(jc, "ring");
	if (!ring)
		return 0;
	if (!json_is_array(ring) || json_array_size(ring) != RING_NCOUNTS)
		return perr(p, "tick: CPU %d: \"ring\" must be [lost,throttled_ns,throttles]",
			    c->cpu);
	for (int k = 0; k < RING_NCOUNTS; k++) {
		json_t *v = json_array_get(ring, (size_t)k);
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > REC_RING_MAX)
			return perr(p, "tick: CPU %d: ring count %d must be an integer 0..%" PRId64,
				    c->cpu, k + 1, (int64_t)REC_RING_MAX);
		c->ring[k] = (uint64_t)json_integer_value(v);
	}
	c->has_ring = true;
	return 0;
}

static int parse_tick(struct pctx *p, json_t *o, struct rec_tick *t)
{
	struct rec_reader *r = p->r;
	double ts, iv;
	memset(t, 0, sizeof(*t));
	if (r->mode_index < 0)
		return perr(p, "tick before any mode record");
	if (get_num(p, o, "tick", "t", true, &ts) < 0 ||
	    get_num(p, o, "tick", "interval_ms", true, &iv) < 0)
		return -1;
	json_t *cpus = json_object_get(o, "cpus");
	if (!cpus)
		return perr(p, "tick has no \"cpus\"");
	if (!json_is_array(cpus) || json_array_size(cpus) > REC_MAX_CPU)
		return perr(p, "tick: \"cpus\" must be a list");
	if (rec_tick_alloc(t, (int)json_array_size(cpus), r->mode_nevents) < 0)
		return perr(p, "out of memory");
	t->t = ts;
	t->interval_ms = iv;
	t->mode = r->mode_index;
	struct cpuset seen;
	cpuset_clear(&seen);
	size_t i;
	json_t *jc;
	json_array_foreach(cpus, i, jc)
	{
		struct rec_cpu *c = &t->cpus[i];
		int64_t cpu;
		if (!json_is_object(jc)) {
			perr(p, "tick: CPU entry %zu must be an object", i + 1);
			goto fail;
		}
		if (get_int(p, jc, "tick", "cpu", true, 0, REC_MAX_CPU - 1, &cpu) < 0 ||
		    get_bool(p, jc, "tick", "offline", &c->offline) < 0)
			goto fail;
		if (!cpuset_has(&r->cpus, (int)cpu)) {
			perr(p, "tick: CPU %" PRId64 " is not in the header's CPU list", cpu);
			goto fail;
		}
		if (cpuset_has(&seen, (int)cpu)) {
			perr(p, "tick: CPU %" PRId64 " appears twice", cpu);
			goto fail;
		}
		cpuset_add(&seen, (int)cpu);
		c->cpu = (int)cpu;
		json_t *cs = json_object_get(jc, "c");
		if (!cs && c->offline)
			continue;
		if (!cs) {
			perr(p, "tick: CPU %d has no \"c\"", c->cpu);
			goto fail;
		}
		if (!json_is_array(cs)) {
			perr(p, "tick: CPU %d: \"c\" must be a list", c->cpu);
			goto fail;
		}
		if ((int)json_array_size(cs) != r->mode_nevents) {
			perr(p, "tick has %zu counters but mode '%s' has %d events",
			     json_array_size(cs), esc(r->mode_name), r->mode_nevents);
			goto fail;
		}
		size_t e;
		json_t *tr;
		json_array_foreach(cs, e, tr)
		{
			char what[64];
			if (json_is_null(tr))
				continue;
			if (!json_is_array(tr) || json_array_size(tr) != 3) {
				perr(p,
				     "tick: CPU %d counter %zu must be [value,enabled,running] or "
				     "null",
				     c->cpu, e + 1);
				goto fail;
			}
			uint64_t *dst[] = {&c->c[e].raw.value, &c->c[e].raw.enabled,
					   &c->c[e].raw.running};
			for (size_t k = 0; k < 3; k++) {
				snprintf(what, sizeof(what), "tick: CPU %d counter %zu", c->cpu,
					 e + 1);
				if (parse_u64(p, json_array_get(tr, k), what, false, dst[k]) < 0)
					goto fail;
			}
			c->c[e].present = !c->offline;
		}
		if (parse_ring(p, jc, c) < 0)
			goto fail;
	}
	return 0;
fail:
	rec_tick_free(t);
	return -1;
}

static int parse_mark(struct pctx *p, json_t *o, struct rec_mark *m)
{
	memset(m, 0, sizeof(*m));
	if (get_num(p, o, "mark", "t", true, &m->t) < 0 ||
	    get_str(p, o, "mark", "text", true, m->text, sizeof(m->text)) < 0)
		return -1;
	return 0;
}

/* {"type":"cpus","t":T,"cpus":[N,...],"core_types":{...},"topology":{...}}: the CPUs counted
 * from T on (their places as in the header); ticks after it may hold them as well as the
 * header's. */
static int parse_cpus(struct pctx *p, json_t *o, struct rec_cpus *c)
{
	memset(c, 0, sizeof(*c));
	if (get_num(p, o, "cpus", "t", true, &c->t) < 0)
		return -1;
	json_t *cpus = json_object_get(o, "cpus"), *types = json_object_get(o, "core_types"), *v;
	if (!json_is_array(cpus) || json_array_size(cpus) == 0 ||
	    json_array_size(cpus) > REC_MAX_CPU)
		return perr(p, "cpus: \"cpus\" must be a list of 1 to %d CPU numbers", REC_MAX_CPU);
	if (types && !json_is_null(types) && !json_is_object(types))
		return perr(p, "cpus: \"core_types\" must be an object");
	c->ncpus = (int)json_array_size(cpus);
	if (!(c->cpus = calloc((size_t)c->ncpus, sizeof(*c->cpus))))
		return perr(p, "out of memory");
	struct cpuset seen;
	cpuset_clear(&seen);
	size_t i;
	json_array_foreach(cpus, i, v)
	{
		int cpu = json_is_integer(v) ? (int)json_integer_value(v) : -1;
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) >= REC_MAX_CPU || cpuset_has(&seen, cpu)) {
			free(c->cpus);
			c->cpus = NULL;
			return perr(p, "cpus: \"cpus\" must hold distinct CPU numbers 0..%d",
				    REC_MAX_CPU - 1);
		}
		cpuset_add(&seen, cpu);
		c->cpus[i].cpu = cpu;
		char key[16];
		snprintf(key, sizeof(key), "%d", cpu);
		json_t *ty = types && json_is_object(types) ? json_object_get(types, key) : NULL;
		if (json_is_string(ty) && json_string_length(ty) < REC_NAME_MAX)
			strcpy(c->cpus[i].core_type, json_string_value(ty));
	}
	if (get_topology(o, c->cpus, c->ncpus, &seen) < 0) {
		free(c->cpus);
		c->cpus = NULL;
		return perr(p, "cpus: " TOPOLOGY_SHAPE);
	}
	json_t *keys = json_object_get(o, "row_keys"); /* a task or cgroup run's rows */
	if (keys && !json_is_null(keys)) {
		bool ok = json_is_array(keys) && json_array_size(keys) == (size_t)c->ncpus;
		json_array_foreach(keys, i, v)
		{
			ok = ok && json_is_string(v) && json_string_length(v) > 0 &&
			     json_string_length(v) < sizeof(c->cpus[i].key);
			if (ok)
				snprintf(c->cpus[i].key, sizeof(c->cpus[i].key), "%s",
					 json_string_value(v));
		}
		if (!ok) {
			free(c->cpus);
			c->cpus = NULL;
			return perr(p, "cpus: \"row_keys\" must name a task or cgroup per row");
		}
	}
	int cpu;
	cpuset_for_each(cpu, &seen) cpuset_add(&p->r->cpus, cpu);
	lr_set_limit(p->r->lr,
		     rec_line_max(cpuset_count(&p->r->cpus),
				  p->r->mode_nevents > 0 ? p->r->mode_nevents : REC_MAX_EVENTS));
	return 0;
}

static enum rec_kind reader_fail(struct rec_reader *r, char *err, size_t errlen, const char *msg)
{
	r->failed = true;
	if (r->line > 0)
		snprintf(r->failmsg, sizeof(r->failmsg), "%s:%d: %s", r->path, r->line, msg);
	else
		snprintf(r->failmsg, sizeof(r->failmsg), "%s: %s", r->path, msg);
	snprintf(err, errlen, "%s", r->failmsg);
	return REC_ERROR;
}

/* Slack for "ran longer than enabled": the kernel's rounding can put running a few ns ahead. */
#define RUN_SLACK_NS 1000

/* CPU @c's ring counts against the same CPU's @pc in the tick before: a count that goes back is
 * noted in @back (a reset when the counters reset too). The throttled time is not held against
 * the ticks' distance: each CPU's count runs to its own sample, and a CPU whose group was
 * throttled takes its samples later than the others (by up to an episode, hundreds of ms). */
static void ring_check(const struct rec_cpu *pc, const struct rec_cpu *c, char *back,
		       size_t backlen)
{
	if (!c->has_ring || !pc || pc->offline || !pc->has_ring || back[0])
		return;
	for (int k = 0; k < RING_NCOUNTS; k++)
		if (c->ring[k] < pc->ring[k]) {
			snprintf(back, backlen, "CPU %d ring count %d goes back", c->cpu, k + 1);
			return;
		}
}

int rec_tick_check(const struct rec_tick *prev, const struct rec_tick *cur, unsigned counter_bits,
		   char *why, size_t whylen)
{
	if (!(cur->t > prev->t)) {
		snprintf(why, whylen, "time does not advance (t %.9g after %.9g)", cur->t, prev->t);
		return -1;
	}
	if (cur->nevents != prev->nevents)
		return 0; /* another mode: nothing to compare */
	unsigned bits = counter_bits && counter_bits < 64 ? counter_bits : 64;
	uint64_t mask = bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
	char reset[160] = "";	 /* the first counter that started again */
	char ring_back[96] = ""; /* the first ring count that went back (a reset, with counters) */
	int nreset = 0;
	for (int i = 0; i < cur->ncpus; i++) {
		const struct rec_cpu *c = &cur->cpus[i], *pc = NULL;
		if (c->offline)
			continue;
		for (int k = 0; k < prev->ncpus && !pc; k++)
			if (prev->cpus[(i + k) % prev->ncpus].cpu == c->cpu)
				pc = &prev->cpus[(i + k) % prev->ncpus];
		for (int e = 0; e < cur->nevents; e++) {
			const struct raw_count *v = &c->c[e].raw;
			if (!c->c[e].present)
				continue;
			const char *bad = NULL;
			if (v->running > v->enabled + RUN_SLACK_NS)
				bad = "running time exceeds enabled time";
			else if (v->value > mask)
				bad = "count is wider than the counter";
			if (!bad && pc && !pc->offline && pc->c[e].present) {
				const struct raw_count *pv = &pc->c[e].raw;
				uint64_t dv = (v->value - pv->value) & mask;
				if (v->enabled < pv->enabled && v->running <= pv->running &&
				    (v->value < pv->value || dv > mask / 2)) {
					/* count, enabled and running time all start again: the
					 * counter was reset (re-opened, the board rebooted) */
					if (!nreset++)
						snprintf(reset, sizeof(reset), "CPU %d counter %d",
							 c->cpu, e + 1);
					continue;
				}
				if (v->enabled < pv->enabled)
					bad = "enabled time goes back";
				else if (v->running < pv->running)
					bad = "running time goes back";
				else if (v->running - pv->running >
					 v->enabled - pv->enabled + RUN_SLACK_NS)
					bad = "ran longer than it was enabled";
				else if (bits >= 64 && v->value < pv->value)
					bad = "count goes back"; /* narrow ones wrap: any advance */
			}
			if (bad) {
				snprintf(why, whylen, "CPU %d counter %d: %s", c->cpu, e + 1, bad);
				return -1;
			}
		}
		ring_check(pc, c, ring_back, sizeof(ring_back));
	}
	if (ring_back[0] && !reset[0]) { /* ring counts start again only when the counters do */
		snprintf(why, whylen, "%s", ring_back);
		return -1;
	}
	if (reset[0]) {
		if (nreset > 1)
			snprintf(why, whylen,
				 "%s and %d more: counters reset (counts and times "
				 "start again)",
				 reset, nreset - 1);
		else
			snprintf(why, whylen, "%s: counter reset (count and times start again)",
				 reset);
		return 1;
	}
	return 0;
}

enum rec_kind rec_reader_next(struct rec_reader *r, struct rec_record *out, char *err,
			      size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (r->failed) {
		snprintf(err, errlen, "%s", r->failmsg);
		return REC_ERROR;
	}
	for (;;) {
		if (r->done)
			return REC_EOF;
		const char *buf;
		size_t n;
		char lerr[400];
		int lrc = lr_next(r->lr, &buf, &n, lerr, sizeof(lerr));
		if (lrc == LR_AGAIN)
			return REC_AGAIN;
		if (lrc == LR_ERROR) {
			/* the line reader's message names file and line already */
			r->failed = true;
			snprintf(r->failmsg, sizeof(r->failmsg), "%s", lerr);
			snprintf(err, errlen, "%s", r->failmsg);
			return REC_ERROR;
		}
		if (lrc == LR_EOF) {
			r->done = true;
			if (!r->have_header) {
				r->line = 0;
				return reader_fail(r, err, errlen,
						   "empty file, not a pmutop recording");
			}
			return REC_EOF;
		}
		r->line = (int)lr_lineno(r->lr);
		bool torn = lr_torn(r->lr);
		if (strspn(buf, " \t\r\n") == n)
			continue;
		/* a NUL byte ends the JSON parser's input early: said as it is (a torn last line,
		 * a crash's zero-filled tail, is the incomplete line below) */
		if (memchr(buf, '\0', n) && !(torn && r->have_header)) {
			struct pctx p = {.r = r};
			if (!r->have_header) {
				perr(&p, "not a pmutop recording (NUL byte: not a text file)");
				return reader_fail(r, err, errlen, p.msg);
			}
			reader_warn(r, "corrupt line (NUL byte) skipped");
			continue;
		}
		json_error_t jerr;
		char jwhy[160];
		json_t *o = jsonb_loadb(buf, n, JSON_REJECT_DUPLICATES, JSONB_LINE_FACTOR, &jerr,
					jwhy, sizeof(jwhy));
		struct pctx p = {.r = r};
		if (!o && jerr.line <= 0) { /* out of memory or over the bound: no syntax error */
			perr(&p, "line of %zu bytes %s", n, jwhy);
			return reader_fail(r, err, errlen, p.msg);
		}
		if (!o) {
			if (torn && r->have_header) {
				reader_warn(r, "last line is incomplete (recording interrupted?), "
					       "ignored");
				r->done = true;
				return REC_EOF;
			}
			if (!r->have_header) {
				perr(&p, "not a pmutop recording (not JSON: %s)", jerr.text);
				return reader_fail(r, err, errlen, p.msg);
			}
			reader_warn(r, "corrupt line (%s, column %d) skipped", jerr.text,
				    jerr.column);
			continue;
		}
		json_t *jt = json_object_get(o, "type");
		const char *type = json_is_string(jt) ? json_string_value(jt) : NULL;
		int rc = 0;
		if (!json_is_object(o) || !type) {
			if (r->have_header) {
				reader_warn(r, "record has no \"type\", skipped");
				json_decref(o);
				continue;
			}
			rc = perr(&p, "not a pmutop recording (no header)");
		} else if (!r->have_header && strcmp(type, "header") != 0) {
			rc = perr(&p, "not a pmutop recording (first record is '%s', not a header)",
				  esc(type));
		} else if (strcmp(type, "header") == 0) {
			if (r->have_header)
				rc = perr(&p, "second header record");
			else if ((rc = parse_header(&p, o, &out->u.header)) == 0) {
				out->kind = REC_HEADER;
				r->have_header = true;
			}
		} else if (strcmp(type, "mode") == 0) {
			if ((rc = parse_mode(&p, o, &out->u.mode)) == 0) {
				out->kind = REC_MODE;
				r->mode_index++;
				r->mode_nevents = out->u.mode.nevents;
				strcpy(r->mode_name, out->u.mode.name);
				lr_set_limit(r->lr,
					     rec_line_max(cpuset_count(&r->cpus), r->mode_nevents));
			}
		} else if (strcmp(type, "tick") == 0) {
			char why[400];
			if (parse_tick(&p, o, &out->u.tick) < 0) {
				reader_warn(r, "%s; tick skipped", p.msg);
				json_decref(o);
				continue;
			}
			int chk = r->have_last && r->last.mode == out->u.tick.mode
				      ? rec_tick_check(&r->last, &out->u.tick, r->counter_bits, why,
						       sizeof(why))
				      : 0;
			if (chk < 0) {
				reader_warn(r, "tick: %s; tick skipped", why);
				rec_tick_free(&out->u.tick);
				json_decref(o);
				continue;
			}
			if (chk >
			    0) /* a gap: this tick's deltas are invalid, the next ones right */
				reader_warn(r, "tick: %s; a gap: no value (invalid) for this tick",
					    why);
			rec_tick_free(&r->last);
			r->have_last = rec_tick_copy(&r->last, &out->u.tick) == 0;
			out->kind = REC_TICK;
		} else if (strcmp(type, "cpus") == 0) {
			if (parse_cpus(&p, o, &out->u.cpus) < 0) {
				reader_warn(r, "%s; cpus record skipped", p.msg);
				json_decref(o);
				continue;
			}
			out->kind = REC_CPUS;
		} else if (strcmp(type, "mark") == 0) {
			if (parse_mark(&p, o, &out->u.mark) < 0) {
				reader_warn(r, "%s; mark skipped", p.msg);
				json_decref(o);
				continue;
			}
			out->kind = REC_MARK;
		} else {
			reader_warn(r, "unknown record type '%s' skipped", esc(type));
			json_decref(o);
			continue;
		}
		json_decref(o);
		if (rc < 0) {
			out->kind = REC_EOF;
			return reader_fail(r, err, errlen, p.msg);
		}
		out->line = r->line;
		return out->kind;
	}
}

/* ---- load all ---- */

int rec_file_warn(struct rec_file *f, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char **w = realloc(f->warnings, (size_t)(f->nwarnings + 1) * sizeof(*w));
	if (!w)
		return -1;
	f->warnings = w;
	if (!(w[f->nwarnings] = strdup(msg)))
		return -1;
	f->nwarnings++;
	return 0;
}

int rec_file_add_cpus(struct rec_file *f, const struct rec_cpus *c)
{
	int before = f->header.ncpus;
	if (rec_header_add_cpus(&f->header, c) < 0)
		return -1;
	if (f->header.ncpus == before)
		return 0;
	if (f->nsteps == f->cap_steps) {
		int nc = f->cap_steps ? 2 * f->cap_steps : 4;
		struct rec_cpu_step *s = realloc(f->steps, (size_t)nc * sizeof(*s));
		if (!s)
			return -1;
		f->steps = s;
		f->cap_steps = nc;
	}
	if (f->nsteps == 0)
		f->ncpus_first = before;
	f->steps[f->nsteps++] = (struct rec_cpu_step){.tick = f->nticks, .ncpus = f->header.ncpus};
	return 0;
}

int rec_file_ncpus_at(const struct rec_file *f, int tick)
{
	if (f->nsteps == 0)
		return f->header.ncpus;
	int n = f->ncpus_first;
	for (int i = 0; i < f->nsteps && f->steps[i].tick <= tick; i++)
		n = f->steps[i].ncpus;
	return n;
}

void rec_file_drop_ticks(struct rec_file *f, int n)
{
	for (int i = 0; i < f->nsteps; i++)
		f->steps[i].tick = f->steps[i].tick > n ? f->steps[i].tick - n : 0;
}

void rec_file_free(struct rec_file *f)
{
	free(f->steps);
	f->steps = NULL;
	f->nsteps = f->cap_steps = 0;
	rec_header_free(&f->header);
	for (int i = 0; i < f->nmodes; i++)
		rec_mode_free(&f->modes[i]);
	for (int i = 0; i < f->nticks; i++)
		rec_tick_free(&f->ticks[i]);
	for (int i = 0; i < f->nwarnings; i++)
		free(f->warnings[i]);
	free(f->modes);
	free(f->ticks);
	free(f->marks);
	free(f->warnings);
	memset(f, 0, sizeof(*f));
}

/* Grows *arr (of @size-byte items) so that index @n fits; -1 on ENOMEM. */
static int grow(void **arr, int n, int *cap, size_t size)
{
	if (n < *cap)
		return 0;
	int nc = *cap ? *cap * 2 : 16;
	void *a = realloc(*arr, (size_t)nc * size);
	if (!a)
		return -1;
	*arr = a;
	*cap = nc;
	return 0;
}

int rec_load(const char *path, struct rec_file *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	struct linereader *lr = lr_open(path, REC_HEAD_LINE_MAX, 0, err, errlen);
	if (!lr)
		return -1;
	int rc = rec_load_lr(lr, out, err, errlen);
	lr_close(lr);
	return rc;
}

int rec_load_lr(struct linereader *lr, struct rec_file *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	struct rec_reader *r = rec_reader_from(lr, err, errlen);
	if (!r)
		return -1;
	int cmodes = 0, cticks = 0, cmarks = 0, rc = 0;
	struct rec_record rec;
	for (;;) {
		enum rec_kind k = rec_reader_next(r, &rec, err, errlen);
		if (k == REC_AGAIN) { /* a stream: the caller bounded the wait for its start */
			lr_wait(lr, -1);
			continue;
		}
		if (k == REC_EOF)
			break;
		if (k == REC_ERROR) {
			rc = -1;
			break;
		}
		int g = 0;
		switch (k) {
		case REC_HEADER:
			out->header = rec.u.header;
			break;
		case REC_MODE:
			if (!(g = grow((void **)&out->modes, out->nmodes, &cmodes,
				       sizeof(rec.u.mode))))
				out->modes[out->nmodes++] = rec.u.mode;
			break;
		case REC_TICK:
			if (!(g = grow((void **)&out->ticks, out->nticks, &cticks,
				       sizeof(rec.u.tick))))
				out->ticks[out->nticks++] = rec.u.tick;
			break;
		case REC_MARK:
			if (!(g = grow((void **)&out->marks, out->nmarks, &cmarks,
				       sizeof(rec.u.mark))))
				out->marks[out->nmarks++] = rec.u.mark;
			break;
		case REC_CPUS: /* the rows: every CPU the file counts, in order of appearance */
			g = rec_file_add_cpus(out, &rec.u.cpus);
			rec_record_free(&rec);
			break;
		default:
			break;
		}
		if (g < 0) {
			rec_record_free(&rec);
			snprintf(err, errlen, "%s: out of memory", lr_name(lr));
			rc = -1;
			break;
		}
	}
	for (int i = 0; rc == 0 && i < rec_reader_nwarnings(r); i++)
		rec_file_warn(out, "%s", rec_reader_warning(r, i));
	rec_reader_close(r);
	if (rc < 0)
		rec_file_free(out);
	return rc;
}
