/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procirq.c: /proc/interrupts, softirqs and stat: per-CPU counts, deltas, top sources; cpufreq. */
#include "procirq.h"
#include "linereader.h"
#include "mix.h"
#include "textutil.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Rows that carry one machine-wide count even when there are several CPUs. */
static const char *const global_rows[] = {"ERR", "MIS", "Err"};

#define PROC_LINE_MAX (1u << 20) /* bytes: /proc/interrupts and /proc/stat lines (4096 CPUs) */

/* Reads a whole (procfs) file into a NUL-terminated buffer: lines and size bounded. */
static char *slurp(const char *path, size_t limit, char *err, size_t errlen)
{
	return lr_slurp(path, PROC_LINE_MAX < limit ? PROC_LINE_MAX : limit, limit, 0, NULL, err,
			errlen);
}

/* Copies @n bytes, collapsing blank runs and escaping control bytes as \xNN. */
static void copy_escaped(char *dst, size_t dstlen, const char *s, size_t n)
{
	size_t o = 0;
	bool blank = false;
	for (size_t i = 0; i < n && o + 1 < dstlen; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == ' ' || c == '\t') {
			blank = true;
			continue;
		}
		if (blank && o > 0) {
			dst[o++] = ' ';
			if (o + 1 >= dstlen)
				break;
		}
		blank = false;
		if (c < 0x20 || c == 0x7f || c == '\\') {
			if (o + 5 > dstlen)
				break;
			o += (size_t)snprintf(dst + o, dstlen - o, c == '\\' ? "\\\\" : "\\x%02x",
					      c);
		} else {
			dst[o++] = (char)c;
		}
	}
	dst[o] = 0;
}

/* Parses the header "CPU0 CPU1 ..." into column -> CPU numbers. Returns columns, or -1. */
static int parse_header(const char *line, size_t len, int **cols_out)
{
	int *cols = NULL, n = 0, cap = 0, last = -1;
	size_t i = 0;
	while (i < len) {
		while (i < len && isspace((unsigned char)line[i]))
			i++;
		if (i >= len)
			break;
		if (len - i < 4 || strncmp(line + i, "CPU", 3) != 0 ||
		    !isdigit((unsigned char)line[i + 3]))
			goto bad;
		i += 3;
		long cpu = 0;
		while (i < len && isdigit((unsigned char)line[i])) {
			cpu = cpu * 10 + (line[i] - '0');
			if (cpu >= CPUSET_MAX)
				goto bad;
			i++;
		}
		if (i < len && !isspace((unsigned char)line[i]))
			goto bad;
		if (cpu <= last)
			goto bad;
		last = (int)cpu;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			int *nc = realloc(cols, (size_t)cap * sizeof(int));
			if (!nc)
				goto bad;
			cols = nc;
		}
		cols[n++] = (int)cpu;
	}
	if (n == 0)
		goto bad;
	*cols_out = cols;
	return n;
bad:
	free(cols);
	return -1;
}

void procirq_free(struct procirq_table *t)
{
	free(t->cpu_total);
	free(t->src);
	free(t->counts);
	memset(t, 0, sizeof(*t));
}

/* Parses one data line into row @r of @t; returns 1 stored, 0 ignored, -1 malformed (@msg). */
static int parse_row(struct procirq_table *t, const int *cols, int ncol, const char *line,
		     size_t len, uint64_t *row, char *msg, size_t msglen)
{
	struct procirq_source *s = &t->src[t->nsrc];
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	size_t name0 = i;
	while (i < len && line[i] != ':' && line[i] != ' ' && line[i] != '\t')
		i++;
	if (i >= len || line[i] != ':' || i == name0) {
		text_errorf(msg, msglen, "expected 'NAME:' at the start of the line");
		return -1;
	}
	if (i - name0 >= PROCIRQ_NAME_MAX) {
		text_errorf(msg, msglen, "source name longer than %d bytes", PROCIRQ_NAME_MAX - 1);
		return -1;
	}
	memset(s, 0, sizeof(*s));
	copy_escaped(s->name, sizeof(s->name), line + name0, i - name0);
	i++;
	int k = 0;
	uint64_t first = 0;
	while (k < ncol) {
		size_t j = i;
		while (j < len && (line[j] == ' ' || line[j] == '\t'))
			j++;
		if (j >= len || !isdigit((unsigned char)line[j]))
			break;
		size_t d = j;
		uint64_t v = 0;
		bool overflow = false;
		while (d < len && isdigit((unsigned char)line[d])) {
			unsigned digit = (unsigned)(line[d] - '0');
			if (v > (UINT64_MAX - digit) / 10)
				overflow = true;
			v = v * 10 + digit;
			d++;
		}
		if (d < len && line[d] != ' ' && line[d] != '\t')
			break; /* "5-edge" and the like: a description, not a count */
		if (overflow) {
			text_errorf(msg, msglen, "count out of range");
			return -1;
		}
		if (k == 0)
			first = v;
		row[cols[k]] = v;
		k++;
		i = d;
	}
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	size_t end = len;
	while (end > i && (line[end - 1] == ' ' || line[end - 1] == '\t' || line[end - 1] == '\r'))
		end--;
	bool known_global = false;
	for (size_t g = 0; g < sizeof(global_rows) / sizeof(global_rows[0]); g++)
		if (strcmp(s->name, global_rows[g]) == 0)
			known_global = true;
	if (k == 1 && (known_global || (ncol > 1 && end == i))) {
		row[cols[0]] = 0;
		s->per_cpu = false;
		s->total = first;
		return 1;
	}
	if (k == 0 && end > i)
		return 0; /* a name and a description, no counts */
	if (k < ncol) {
		text_errorf(msg, msglen, "expected %d counts, found %d", ncol, k);
		return -1;
	}
	s->per_cpu = true;
	copy_escaped(s->desc, sizeof(s->desc), line + i, end - i);
	for (int c = 0; c < ncol; c++)
		s->total += row[cols[c]];
	return 1;
}

int procirq_parse(struct procirq_table *t, const char *text, const char *name, char *err,
		  size_t errlen)
{
	struct procirq_table n;
	int *cols = NULL, ncol = -1;
	size_t lineno = 0, cap = 0;
	const char *p = text;
	memset(&n, 0, sizeof(n));
	if (!name)
		name = "interrupts";
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *line = p;
		p = nl ? nl + 1 : p + len;
		lineno++;
		while (len > 0 && line[len - 1] == '\r')
			len--;
		size_t b = 0;
		while (b < len && isspace((unsigned char)line[b]))
			b++;
		if (b == len)
			continue; /* blank line */
		if (ncol < 0) {
			ncol = parse_header(line, len, &cols);
			if (ncol < 0) {
				text_errorf(
				    err, errlen,
				    "%s:%zu: expected a header of CPU columns (CPU0 CPU1 ...)",
				    name, lineno);
				goto fail;
			}
			n.ncpu = cols[ncol - 1] + 1;
			for (int c = 0; c < ncol; c++)
				cpuset_add(&n.cpus, cols[c]);
			n.cpu_total = calloc((size_t)n.ncpu, sizeof(uint64_t));
			if (!n.cpu_total)
				goto oom;
			continue;
		}
		if (n.nsrc == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct procirq_source *ns = realloc(n.src, ncap * sizeof(*ns));
			if (!ns)
				goto oom;
			n.src = ns;
			uint64_t *nc = realloc(n.counts, ncap * (size_t)n.ncpu * sizeof(uint64_t));
			if (!nc)
				goto oom;
			n.counts = nc;
			cap = ncap;
		}
		uint64_t *row = n.counts + n.nsrc * (size_t)n.ncpu;
		memset(row, 0, (size_t)n.ncpu * sizeof(uint64_t));
		char msg[96];
		int rc = parse_row(&n, cols, ncol, line, len, row, msg, sizeof(msg));
		if (rc < 0) {
			if (n.skipped++ == 0)
				snprintf(n.skip_msg, sizeof(n.skip_msg), "%s:%zu: %s", name, lineno,
					 msg);
		} else if (rc > 0) {
			if (n.src[n.nsrc].per_cpu)
				for (int c = 0; c < ncol; c++)
					n.cpu_total[cols[c]] += row[cols[c]];
			n.nsrc++;
		}
	}
	if (ncol < 0) {
		text_errorf(err, errlen, "%s:%zu: no header of CPU columns", name,
			    lineno ? lineno : 1);
		goto fail;
	}
	free(cols);
	procirq_free(t);
	*t = n;
	return 0;
oom:
	text_errorf(err, errlen, "%s:%zu: out of memory", name, lineno);
fail:
	free(cols);
	procirq_free(&n);
	return -1;
}

int procirq_read(struct procirq_table *t, const char *root, enum procirq_file which, char *err,
		 size_t errlen)
{
	char path[4096];
	const char *file = which == PROCIRQ_SOFTIRQS ? "/proc/softirqs" : "/proc/interrupts";
	if (snprintf(path, sizeof(path), "%s%s", root ? root : "", file) >= (int)sizeof(path)) {
		text_errorf(err, errlen, "%s: path too long", file);
		return -1;
	}
	if (err && errlen)
		err[0] = 0;
	char *text = slurp(path, PROCIRQ_FILE_MAX, err, errlen);
	if (!text)
		return -1;
	int rc = procirq_parse(t, text, path, err, errlen);
	free(text);
	return rc;
}

size_t procirq_bytes(const struct procirq_table *t)
{
	return (size_t)t->ncpu * sizeof(uint64_t) * (1 + t->nsrc) +
	       t->nsrc * sizeof(struct procirq_source);
}

uint64_t procirq_count(const struct procirq_table *t, size_t i, int cpu)
{
	if (i >= t->nsrc || cpu < 0 || cpu >= t->ncpu || !t->src[i].per_cpu)
		return 0;
	return t->counts[i * (size_t)t->ncpu + (size_t)cpu];
}

long procirq_find(const struct procirq_table *t, const char *name)
{
	for (size_t i = 0; i < t->nsrc; i++)
		if (strcmp(t->src[i].name, name) == 0)
			return (long)i;
	return -1;
}

/* Row of @prev matching row @i of @cur (same index first, then by name), or -1. */
static long match_row(const struct procirq_table *prev, const struct procirq_table *cur, size_t i)
{
	if (i < prev->nsrc && strcmp(prev->src[i].name, cur->src[i].name) == 0)
		return (long)i;
	return procirq_find(prev, cur->src[i].name);
}

static uint64_t row_delta(const struct procirq_table *prev, long pi,
			  const struct procirq_table *cur, size_t i, int cpu)
{
	uint64_t c = procirq_count(cur, i, cpu);
	uint64_t p = pi >= 0 ? procirq_count(prev, (size_t)pi, cpu) : 0;
	return c >= p ? c - p : c;
}

static bool valid_cpu(const struct procirq_table *prev, const struct procirq_table *cur, int cpu)
{
	return cpu >= 0 && cpu < CPUSET_MAX && cpuset_has(&prev->cpus, cpu) &&
	       cpuset_has(&cur->cpus, cpu);
}

int procirq_delta(const struct procirq_table *prev, const struct procirq_table *cur,
		  uint64_t *delta, int ncpu, struct cpuset *valid)
{
	int nvalid = 0;
	cpuset_clear(valid);
	for (int c = 0; c < ncpu; c++) {
		delta[c] = 0;
		if (valid_cpu(prev, cur, c)) {
			cpuset_add(valid, c);
			nvalid++;
		}
	}
	for (size_t i = 0; i < cur->nsrc; i++) {
		if (!cur->src[i].per_cpu)
			continue;
		long pi = match_row(prev, cur, i);
		for (int c = 0; c < ncpu && c < cur->ncpu; c++)
			if (cpuset_has(valid, c))
				delta[c] += row_delta(prev, pi, cur, i, c);
	}
	return nvalid;
}

size_t procirq_top(const struct procirq_table *prev, const struct procirq_table *cur, int cpu,
		   struct procirq_top *out, size_t max)
{
	size_t n = 0;
	if (max == 0)
		return 0;
	for (size_t i = 0; i < cur->nsrc; i++) {
		if (!cur->src[i].per_cpu)
			continue;
		long pi = match_row(prev, cur, i);
		uint64_t d = 0;
		if (cpu >= 0) {
			if (valid_cpu(prev, cur, cpu))
				d = row_delta(prev, pi, cur, i, cpu);
		} else {
			for (int c = 0; c < cur->ncpu; c++)
				if (valid_cpu(prev, cur, c))
					d += row_delta(prev, pi, cur, i, c);
		}
		if (d == 0)
			continue;
		/* Insertion into the sorted top list (largest first, earlier rows win ties). */
		size_t at = n;
		while (at > 0 && out[at - 1].delta < d)
			at--;
		if (at >= max)
			continue;
		size_t last = n < max ? n : max - 1;
		memmove(out + at + 1, out + at, (last - at) * sizeof(*out));
		out[at].src = i;
		out[at].delta = d;
		if (n < max)
			n++;
	}
	return n;
}

/* Reads one decimal number at *p (after blanks): 1 read, 0 none there (the end of the line or
 * not a digit), -1 out of range. */
static int stat_number(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	while (s < end && *s == ' ')
		s++;
	unsigned d;
	if (s >= end || (unsigned)(unsigned char)*s - '0' > 9)
		return 0;
	/* 19 digits always fit: the overflow test (a division) only from the 20th on */
	const char *fits = end - s > 19 ? s + 19 : end;
	uint64_t x = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (end - s >= 8) { /* the first 8 bytes at once: their leading digits, then their value */
		uint64_t c;
		memcpy(&c, s, 8);
		/* a byte is a digit when its high nibble and that of the byte + 6 are both 3 */
		uint64_t odd = ((c & 0xF0F0F0F0F0F0F0F0ULL) |
				(((c + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) ^
			       0x3333333333333333ULL;
		int k = odd ? __builtin_ctzll(odd) / 8 : 8; /* 1..8: s[0] is a digit */
		c <<= 8 * (8 - k); /* the k digits last, behind leading zeros */
		c = (c & 0x0F0F0F0F0F0F0F0FULL) * 2561 >> 8;
		c = (c & 0x00FF00FF00FF00FFULL) * 6553601 >> 16;
		x = (c & 0x0000FFFF0000FFFFULL) * 42949672960001ULL >> 32;
		s += k;
		if (k < 8) {
			*v = x;
			*p = s;
			return 1;
		}
	}
#endif
	for (; s < fits && (d = (unsigned)(unsigned char)*s - '0') <= 9; s++)
		x = x * 10 + d;
	for (; s < end && (d = (unsigned)(unsigned char)*s - '0') <= 9; s++) {
		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	*p = s;
	return 1;
}

int procirq_stat_parse(const char *text, size_t len, int ncpu, const bool *want, uint64_t *out,
		       bool *seen)
{
	uint64_t key;
	return procirq_stat_parse_keyed(text, len, ncpu, want, out, seen, &key);
}

int procirq_stat_parse_keyed(const char *text, size_t len, int ncpu, const bool *want,
			     uint64_t *out, bool *seen, uint64_t *cpus_key)
{
	const char *p = text, *end = text + len;
	int stored = 0;
	*cpus_key = 0;
	bool in_cpus = false;
	while (p < end) {
		if (in_cpus && (end - p < 3 || memcmp(p, "cpu", 3) != 0))
			break; /* the cpu lines are over: the long "intr" line is not scanned */
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		if (eol - p < 4 || memcmp(p, "cpu", 3) != 0) {
			if (in_cpus)
				break; /* the cpu lines are over */
			p = eol + 1;
			continue;
		}
		in_cpus = true;
		const char *s = p + 3;
		p = eol + 1;
		if (*s < '0' || *s > '9')
			continue; /* "cpu " is the sum over all CPUs */
		uint64_t cpu;
		if (stat_number(&s, eol, &cpu) != 1 || s >= eol || *s != ' ')
			continue;
		*cpus_key += mix64(cpu); /* a set's sum differs from another's but by 2^-64 */
		if (cpu >= (uint64_t)(ncpu > 0 ? ncpu : 0) || (want && !want[cpu]))
			continue;
		uint64_t v[PROCSTAT_FIELDS] = {0};
		int n = 0, rc = 1;
		while (n < PROCSTAT_FIELDS && (rc = stat_number(&s, eol, &v[n])) == 1)
			n++;
		if (rc < 0 || n < PROCSTAT_FIELDS - 1 || (s < eol && *s != ' ' && *s != '\r'))
			continue; /* too few numbers, one out of range, or something that is not one
				   */
		memcpy(out + cpu * PROCSTAT_FIELDS, v, sizeof(v));
		seen[cpu] = true;
		stored++;
	}
	return stored;
}

#define PROCSTAT_READ_START 65536 /* bytes: the first buffer (a 600-CPU machine's cpu lines) */

/* One pread of the whole of @fd from its start into @f->buf, grown while a read fills it. */
static long pread_whole(struct procstat_file *f, int fd)
{
	for (;;) {
		if (!f->buf) {
			f->buf = malloc(PROCSTAT_READ_START);
			if (!f->buf)
				return -1;
			f->cap = PROCSTAT_READ_START;
		}
		ssize_t got = pread(fd, f->buf, f->cap - 1, 0);
		if (got < 0)
			return -1;
		if ((size_t)got < f->cap - 1 || f->cap >= PROCIRQ_FILE_MAX) {
			f->buf[got] = '\0';
			return (long)got;
		}
		size_t cap = f->cap * 2 < PROCIRQ_FILE_MAX ? f->cap * 2 : PROCIRQ_FILE_MAX;
		char *grown = realloc(f->buf, cap);
		if (!grown) {
			f->buf[got] = '\0'; /* the lines that fitted */
			return (long)got;
		}
		f->buf = grown;
		f->cap = cap;
	}
}

long procstat_file_read(struct procstat_file *f, const char *root)
{
	if (root && root[0]) { /* a tree: opened for each read */
		char path[4096];
		if (snprintf(path, sizeof(path), "%s/proc/stat", root) >= (int)sizeof(path)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		long got = pread_whole(f, fd);
		int saved = errno;
		close(fd);
		errno = saved;
		return got;
	}
	if (!f->open) {
		f->fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
		if (f->fd < 0)
			return -1;
		f->open = true;
	}
	long got = pread_whole(f, f->fd);
	if (got < 0) { /* opened again at the next read */
		int saved = errno;
		close(f->fd);
		f->open = false;
		errno = saved;
	}
	return got;
}

void procstat_file_close(struct procstat_file *f)
{
	if (f->open)
		close(f->fd);
	free(f->buf);
	memset(f, 0, sizeof(*f));
}

int procirq_cpufreq_khz(const char *root, int cpu, uint64_t *khz, char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq",
		 root ? root : "", cpu);
	if (err && errlen)
		err[0] = 0;
	char *text = slurp(path, 4096, err, errlen);
	if (!text)
		return -1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	while (*end == ' ' || *end == '\n')
		end++;
	bool ok = end != text && isdigit((unsigned char)text[0]) && *end == 0 && errno == 0;
	free(text);
	if (!ok) {
		text_errorf(err, errlen, "%s: expected a frequency in kHz", path);
		return -1;
	}
	*khz = v;
	return 0;
}
