/* SPDX-License-Identifier: GPL-2.0-or-later */
/* owners.c: the PMU ownership map: /proc scan, the BPF hook, dump/read-back, text and summary. */
#include "owners.h"
#include "textutil.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static owners_bpf_fn bpf_fn;

void owners_set_bpf(owners_bpf_fn fn) { bpf_fn = fn; }

static const char *const kind_names[] = {"watchdog", "self", "process", "cgroup", "bpf", "kvm"};
static const char *const source_names[] = {"none", "bpf", "proc", "fixture"};

const char *owner_kind_name(enum owner_kind k)
{
	return (unsigned)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "?";
}

const char *owners_source_name(enum owners_source s)
{
	return (unsigned)s < sizeof(source_names) / sizeof(source_names[0]) ? source_names[s] : "?";
}

struct owner_event *owners_add(struct owners *o)
{
	if (o->n == o->cap) {
		int cap = o->cap ? o->cap * 2 : 32;
		struct owner_event *ev = realloc(o->ev, (size_t)cap * sizeof(*ev));
		if (!ev)
			return NULL;
		o->ev = ev;
		o->cap = cap;
	}
	struct owner_event *e = &o->ev[o->n++];
	memset(e, 0, sizeof(*e));
	e->cpu = -1;
	e->pmu_type = -1;
	e->counter = -1;
	e->group = -1;
	return e;
}

void owners_free(struct owners *o)
{
	free(o->ev);
	memset(o, 0, sizeof(*o));
}

static void reset(struct owners *o)
{
	o->n = 0;
	o->note[0] = 0;
	o->source = OWNERS_NONE;
	o->nmi_watchdog = -1;
}

/* perf's names (tools/perf/util/parse-events.c event_symbols_hw/sw, evsel__hw_cache). */
static const char *const hw_names[] = {"cycles",
				       "instructions",
				       "cache-references",
				       "cache-misses",
				       "branches",
				       "branch-misses",
				       "bus-cycles",
				       "stalled-cycles-frontend",
				       "stalled-cycles-backend",
				       "ref-cycles"};
static const char *const sw_names[] = {
    "cpu-clock",	"task-clock",	"page-faults",	"context-switches",
    "cpu-migrations",	"minor-faults", "major-faults", "alignment-faults",
    "emulation-faults", "dummy",	"bpf-output",	"cgroup-switches"};
static const char *const cache_names[] = {"L1-dcache", "L1-icache", "LLC", "dTLB",
					  "iTLB",      "branch",    "node"};
/* perf writes "L1-dcache-loads" for accesses and "L1-dcache-load-misses" for misses */
static const char *const cache_ops[][2] = {
    {"loads", "load"}, {"stores", "store"}, {"prefetches", "prefetch"}};

void owners_event_name(uint32_t type, uint64_t config, char *out, size_t len)
{
	uint64_t c = config & 0xffffffffULL; /* the extended hardware type sits in bits 32-63 */
	switch (type) {
	case PERF_TYPE_HARDWARE:
		if (c < sizeof(hw_names) / sizeof(hw_names[0])) {
			snprintf(out, len, "%s", hw_names[c]);
			return;
		}
		break;
	case PERF_TYPE_SOFTWARE:
		if (config < sizeof(sw_names) / sizeof(sw_names[0])) {
			snprintf(out, len, "%s", sw_names[config]);
			return;
		}
		break;
	case PERF_TYPE_HW_CACHE: {
		unsigned id = c & 0xff, op = (c >> 8) & 0xff, res = (c >> 16) & 0xff;
		if (id < 7 && op < 3 && res < 2) {
			snprintf(out, len, "%s-%s%s", cache_names[id], cache_ops[op][res],
				 res ? "-misses" : "");
			return;
		}
		break;
	}
	case PERF_TYPE_RAW:
		snprintf(out, len, "r%llx", (unsigned long long)config);
		return;
	case PERF_TYPE_TRACEPOINT:
		snprintf(out, len, "tracepoint/config=%llu/", (unsigned long long)config);
		return;
	case PERF_TYPE_BREAKPOINT:
		snprintf(out, len, "mem:breakpoint");
		return;
	}
	snprintf(out, len, "type%u/config=0x%llx/", type, (unsigned long long)config);
}

double owner_ran(const struct owner_event *e)
{
	if (!e->detailed || e->enabled_ns == 0)
		return NAN;
	double r = (double)e->running_ns / (double)e->enabled_ns;
	return r > 1 ? 1 : r;
}

static int read_int_file(const char *path, int dflt)
{
	FILE *f = fopen(path, "r");
	int v;
	if (!f)
		return dflt;
	if (fscanf(f, "%d", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

/* Whether PMU type @type is a core (hardware) PMU under <root>/sys: "cpu", "cpu_core",
 * "cpu_atom", "armv8_..." (only there does a counter index mean a hardware counter). */
static bool core_pmu_type(const char *root, int type)
{
	if (type == PERF_TYPE_RAW)
		return true;
	if (type <= PERF_TYPE_BREAKPOINT)
		return false;
	static const char *const names[] = {"cpu_core", "cpu_atom", "armv"};
	char path[4600];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (i == 2) {
			char dir[4200];
			snprintf(dir, sizeof(dir), "%s/sys/bus/event_source/devices", root);
			DIR *d = opendir(dir);
			struct dirent *de;
			bool hit = false;
			while (d && !hit && (de = readdir(d))) {
				if (strncmp(de->d_name, "arm", 3) != 0)
					continue;
				snprintf(path, sizeof(path), "%s/%s/type", dir, de->d_name);
				hit = read_int_file(path, -1) == type;
			}
			if (d)
				closedir(d);
			if (hit)
				return true;
			continue;
		}
		snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/%s/type", root,
			 names[i]);
		if (read_int_file(path, -1) == type)
			return true;
	}
	return false;
}

/* perf's alias from <pmu>/events/<alias> ("event=0x00" -> "msr/tsc/") when the event's config
 * is a plain event code. */
static void alias_name(const char *dir, const char *pmu, struct owner_event *e)
{
	char path[4600];
	snprintf(path, sizeof(path), "%s/%s/events", dir, pmu);
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strchr(de->d_name, '.'))
			continue; /* .scale, .unit */
		char file[4900], text[128];
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		FILE *f = fopen(file, "r");
		if (!f)
			continue;
		unsigned long long code;
		char rest[8];
		int n =
		    fgets(text, sizeof(text), f) ? sscanf(text, "event=%llx%7s", &code, rest) : 0;
		fclose(f);
		if (n == 1 && code == e->config) {
			snprintf(e->name, sizeof(e->name), "%.24s/%.32s/", pmu, de->d_name);
			break;
		}
	}
	closedir(d);
}

/* Renames "typeN/config=.../" with the PMU's sysfs name where <root>/sys has type N. */
static void name_dynamic(const char *root, struct owner_event *e)
{
	if (e->type <= PERF_TYPE_BREAKPOINT ||
	    (strncmp(e->name, "type", 4) != 0 && !strstr(e->name, "/config=0x")))
		return;
	char dir[4200];
	snprintf(dir, sizeof(dir), "%s/sys/bus/event_source/devices", root);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[4600];
		snprintf(path, sizeof(path), "%s/%s/type", dir, de->d_name);
		FILE *f = fopen(path, "r");
		unsigned t;
		int ok = f && fscanf(f, "%u", &t) == 1;
		if (f)
			fclose(f);
		if (ok && t == e->type) {
			snprintf(e->name, sizeof(e->name), "%.40s/config=0x%llx/", de->d_name,
				 (unsigned long long)e->config);
			alias_name(dir, de->d_name, e);
			break;
		}
	}
	closedir(d);
}

static void read_comm(const char *root, int pid, char *out, size_t len)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/proc/%d/comm", root, pid);
	out[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char raw[64];
	if (fgets(raw, sizeof(raw), f)) {
		raw[strcspn(raw, "\n")] = 0;
		text_escape_flags(raw, strlen(raw), out, len, TEXT_ESC_KEEP_BACKSLASH);
	}
	fclose(f);
}

/* /proc/PID/fd: perf event files and KVM vCPUs per process. @perf false: KVM only. */
static int proc_scan(struct owners *o, const char *root, bool perf, char *err, size_t errlen)
{
	char dir[4200];
	snprintf(dir, sizeof(dir), "%s/proc", root);
	DIR *d = opendir(dir);
	if (!d) {
		text_errorf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || pid > 0x7fffffff)
			continue;
		char fddir[4300];
		snprintf(fddir, sizeof(fddir), "%s/%ld/fd", dir, pid);
		DIR *fd = opendir(fddir);
		if (!fd)
			continue; /* gone, or not ours to read */
		int nperf = 0, nvcpu = 0;
		struct dirent *fe;
		while ((fe = readdir(fd))) {
			if (fe->d_name[0] == '.')
				continue;
			char link[4600], target[128];
			snprintf(link, sizeof(link), "%s/%s", fddir, fe->d_name);
			ssize_t n = readlink(link, target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = 0;
			if (strcmp(target, "anon_inode:[perf_event]") == 0)
				nperf++;
			else if (strncmp(target, "anon_inode:kvm-vcpu", 19) == 0)
				nvcpu++;
		}
		closedir(fd);
		if (perf && nperf) {
			struct owner_event *e = owners_add(o);
			if (!e)
				break;
			e->kind = pid == o->self_pid ? OWNER_SELF : OWNER_PROCESS;
			e->pid = (int)pid;
			e->files = nperf;
			read_comm(root, (int)pid, e->comm, sizeof(e->comm));
		}
		if (nvcpu) {
			struct owner_event *e = owners_add(o);
			if (!e)
				break;
			e->kind = OWNER_KVM;
			e->pid = (int)pid;
			e->files = nvcpu;
			read_comm(root, (int)pid, e->comm, sizeof(e->comm));
		}
	}
	closedir(d);
	return 0;
}

static void add_watchdog(struct owners *o)
{
	if (o->nmi_watchdog != 1 || !o->hw_pmu)
		return;
	for (int i = 0; i < o->n; i++)
		if (o->ev[i].kind == OWNER_WATCHDOG)
			return; /* a dump that names it per CPU */
	struct owner_event *e = owners_add(o);
	if (!e)
		return;
	e->kind = OWNER_WATCHDOG;
	e->pid = -1;
	snprintf(e->comm, sizeof(e->comm), "kernel");
	snprintf(e->name, sizeof(e->name), "cycles");
	e->pinned = true;
}

static int cmp_event(const void *a, const void *b)
{
	const struct owner_event *x = a, *y = b;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	/* a total order, so a dump read back lists the same owners in the same order */
	if (x->counter != y->counter)
		return x->counter < y->counter ? -1 : 1;
	if (x->files != y->files)
		return x->files < y->files ? -1 : 1;
	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	if (x->config != y->config)
		return x->config < y->config ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->enabled_ns != y->enabled_ns)
		return x->enabled_ns < y->enabled_ns ? -1 : 1;
	if (x->running_ns != y->running_ns)
		return x->running_ns < y->running_ns ? -1 : 1;
	if (x->pinned != y->pinned)
		return x->pinned ? 1 : -1;
	if (x->exclusive != y->exclusive)
		return x->exclusive ? 1 : -1;
	return strcmp(x->comm, y->comm);
}

int owners_collect(struct owners *o, const char *root, int self_pid, bool hw_pmu, unsigned flags,
		   char *err, size_t errlen)
{
	const char *r = root ? root : "";
	char path[4200];
	reset(o);
	o->self_pid = self_pid;
	o->hw_pmu = hw_pmu;
	snprintf(path, sizeof(path), "%s/proc/sys/kernel/nmi_watchdog", r);
	o->nmi_watchdog = read_int_file(path, -1);
	char why[160] = "";
	if (r[0])
		snprintf(why, sizeof(why), "the sysfs root stands for another machine");
	else if (flags & OWNERS_NO_BPF)
		snprintf(why, sizeof(why), "BPF iterator not asked for");
	else if (!bpf_fn)
		snprintf(why, sizeof(why), "built without the BPF iterator (libbpf)");
	else if (bpf_fn(o, why, sizeof(why)) == 0) {
		o->source = OWNERS_BPF;
		snprintf(o->note, sizeof(o->note), "BPF iterator over tasks' files");
		for (int i = 0; i < o->n; i++) {
			if (o->ev[i].pid == self_pid)
				o->ev[i].kind = OWNER_SELF;
			name_dynamic(r, &o->ev[i]);
			if (!core_pmu_type(r, o->ev[i].pmu_type))
				o->ev[i].counter = -1;
		}
		proc_scan(o, r, false, err, errlen); /* KVM guests: their vCPU files */
		add_watchdog(o);
		if (o->n > 1)
			qsort(o->ev, (size_t)o->n, sizeof(*o->ev), cmp_event);
		return 0;
	} else
		o->n = 0; /* what a failed iterator left */
	if (proc_scan(o, r, true, err, errlen) < 0)
		return -1;
	o->source = OWNERS_PROC;
	snprintf(o->note, sizeof(o->note),
		 "/proc: perf event files per process, events unknown (%s)%s", why,
		 !r[0] && geteuid() != 0 ? "; other users' processes need root" : "");
	add_watchdog(o);
	if (o->n > 1)
		qsort(o->ev, (size_t)o->n, sizeof(*o->ev), cmp_event);
	return 0;
}

/* ---- the dump: one JSON object, written and read back ---- */

static const char *const state_names[] = {"dead", "exit", "error", "off", "inactive", "active"};

static const char *state_name(int s) { return s >= -4 && s <= 1 ? state_names[s + 4] : "unknown"; }

static json_t *event_json(const struct owner_event *e)
{
	json_t *j = json_object();
	json_object_set_new(j, "kind", json_string(owner_kind_name(e->kind)));
	json_object_set_new(j, "pid", json_integer(e->pid));
	json_object_set_new(j, "comm", json_string(e->comm));
	json_object_set_new(j, "cpu", json_integer(e->cpu));
	if (!e->detailed) {
		json_object_set_new(j, "files", json_integer(e->files));
		if (e->name[0])
			json_object_set_new(j, "event", json_string(e->name));
		if (e->counter >= 0)
			json_object_set_new(j, "counter", json_integer(e->counter));
		if (e->pinned)
			json_object_set_new(j, "pinned", json_true());
		return j;
	}
	json_object_set_new(j, "event", json_string(e->name));
	json_object_set_new(j, "type", json_integer(e->type));
	json_object_set_new(j, "config", json_integer((json_int_t)e->config));
	json_object_set_new(j, "pmu_type", json_integer(e->pmu_type));
	json_object_set_new(j, "pinned", json_boolean(e->pinned));
	json_object_set_new(j, "exclusive", json_boolean(e->exclusive));
	json_object_set_new(j, "state", json_string(state_name(e->state)));
	json_object_set_new(j, "counter", json_integer(e->counter));
	json_object_set_new(j, "group", json_integer(e->group));
	json_object_set_new(j, "enabled_ns", json_integer((json_int_t)e->enabled_ns));
	json_object_set_new(j, "running_ns", json_integer((json_int_t)e->running_ns));
	double ran = owner_ran(e);
	json_object_set_new(j, "ran", isnan(ran) ? json_null() : json_real(ran));
	return j;
}

json_t *owners_json(const struct owners *o);
json_t *owners_json(const struct owners *o)
{
	json_t *j = json_object(), *a = json_array();
	json_object_set_new(j, "source", json_string(owners_source_name(o->source)));
	json_object_set_new(j, "note", json_string(o->note));
	json_object_set_new(j, "nmi_watchdog", json_integer(o->nmi_watchdog));
	json_object_set_new(j, "hw_pmu", json_boolean(o->hw_pmu));
	for (int i = 0; i < o->n; i++)
		json_array_append_new(a, event_json(&o->ev[i]));
	json_object_set_new(j, "owners", a);
	return j;
}

void owners_write_json(FILE *out, const struct owners *o)
{
	json_t *j = owners_json(o);
	char *s = json_dumps(j, JSON_COMPACT);
	if (s)
		fprintf(out, "%s\n", s);
	free(s);
	json_decref(j);
}

static int lookup(const char *const *names, int n, const char *s)
{
	for (int i = 0; s && i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

static long long jint(json_t *o, const char *key, long long dflt)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? json_integer_value(v) : dflt;
}

/* An int member in @lo..@hi (absent: @dflt); false when present and out of range or no
 * integer, with the member named in @bad. */
static bool jint_in(json_t *o, const char *key, long long lo, long long hi, int dflt, int *out,
		    const char **bad)
{
	json_t *v = json_object_get(o, key);
	*out = dflt;
	if (!v)
		return true;
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
		*bad = key;
		return false;
	}
	*out = (int)json_integer_value(v);
	return true;
}

int owners_load(struct owners *o, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		text_errorf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	char buf[8192];
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (len + n > OWNERS_DUMP_MAX) {
			text_errorf(err, errlen, "%s: larger than %d bytes", path, OWNERS_DUMP_MAX);
			free(text);
			fclose(f);
			return -1;
		}
		if (len + n > cap) {
			cap = (len + n) * 2;
			char *t = realloc(text, cap);
			if (!t) {
				free(text);
				fclose(f);
				text_errorf(err, errlen, "out of memory");
				return -1;
			}
			text = t;
		}
		memcpy(text + len, buf, n);
		len += n;
	}
	fclose(f);
	int rc = owners_parse(o, text ? text : "", len, path, err, errlen);
	free(text);
	return rc;
}

int owners_parse(struct owners *o, const char *text, size_t len, const char *path, char *err,
		 size_t errlen)
{
	json_error_t je;
	json_t *j = json_loadb(text, len, JSON_DISABLE_EOF_CHECK, &je);
	if (!j) {
		text_errorf(err, errlen, "%s:%d: %s", path, je.line, je.text);
		return -1;
	}
	json_t *a = json_object_get(j, "owners");
	if (!json_is_object(j) || !json_is_array(a)) {
		text_errorf(err, errlen, "%s: not an owners dump (no \"owners\" array)", path);
		json_decref(j);
		return -1;
	}
	struct owners tmp = {0};
	reset(&tmp);
	tmp.self_pid = o->self_pid;
	long long wd = jint(j, "nmi_watchdog", -1);
	tmp.nmi_watchdog = wd >= -1 && wd <= 1 ? (int)wd : -1;
	tmp.hw_pmu = json_is_true(json_object_get(j, "hw_pmu"));
	size_t i;
	json_t *v;
	json_array_foreach(a, i, v)
	{
		const char *kind = json_string_value(json_object_get(v, "kind"));
		int k = lookup(kind_names, 6, kind);
		if (k < 0) {
			text_errorf(err, errlen, "%s: owner %zu: unknown kind \"%s\"", path, i,
				    kind ? kind : "");
			json_decref(j);
			owners_free(&tmp);
			return -1;
		}
		struct owner_event *e = owners_add(&tmp);
		if (!e)
			break;
		e->kind = (enum owner_kind)k;
		const char *bad = NULL;
		int ty = 0;
		if (!jint_in(v, "pid", -1, INT_MAX, -1, &e->pid, &bad) ||
		    !jint_in(v, "cpu", -1, 65535, -1, &e->cpu, &bad) ||
		    !jint_in(v, "files", 0, INT_MAX, 0, &e->files, &bad) ||
		    !jint_in(v, "counter", -1, INT_MAX, -1, &e->counter, &bad) ||
		    !jint_in(v, "pmu_type", -1, INT_MAX, -1, &e->pmu_type, &bad) ||
		    !jint_in(v, "group", -1, INT_MAX, -1, &e->group, &bad) ||
		    !jint_in(v, "type", 0, INT_MAX, 0, &ty, &bad)) {
			text_errorf(err, errlen, "%s: owner %zu: \"%s\" is not an integer in range",
				    path, i, bad);
			json_decref(j);
			owners_free(&tmp);
			return -1;
		}
		const char *s = json_string_value(json_object_get(v, "comm"));
		text_escape_flags(s ? s : "", s ? strlen(s) : 0, e->comm, sizeof(e->comm),
				  TEXT_ESC_KEEP_BACKSLASH);
		e->pinned = json_is_true(json_object_get(v, "pinned"));
		s = json_string_value(json_object_get(v, "event"));
		if (s)
			text_escape_flags(s, strlen(s), e->name, sizeof(e->name),
					  TEXT_ESC_KEEP_BACKSLASH);
		e->detailed = json_object_get(v, "type") != NULL;
		if (!e->detailed) { /* what a dump of a file count holds, and no more */
			e->group = e->pmu_type = -1;
			continue;
		}
		e->files = 1; /* one event, one file */
		e->type = (uint32_t)ty;
		e->config = (uint64_t)jint(v, "config", 0);
		if (!s)
			owners_event_name(e->type, e->config, e->name, sizeof(e->name));
		e->exclusive = json_is_true(json_object_get(v, "exclusive"));
		int st = lookup(state_names, 6, json_string_value(json_object_get(v, "state")));
		e->state = st < 0 ? -1 : st - 4;
		e->enabled_ns = (uint64_t)jint(v, "enabled_ns", 0);
		e->running_ns = (uint64_t)jint(v, "running_ns", 0);
	}
	json_decref(j);
	owners_free(o);
	*o = tmp;
	o->source = OWNERS_FIXTURE;
	char shown[160];
	text_escape_flags(path, strlen(path), shown, sizeof(shown), TEXT_ESC_KEEP_BACKSLASH);
	snprintf(o->note, sizeof(o->note), "read from %.150s", shown);
	if (o->n > 1)
		qsort(o->ev, (size_t)o->n, sizeof(*o->ev), cmp_event);
	return 0;
}

/* ---- text ---- */

static void flags_text(const struct owner_event *e, char *out, size_t len)
{
	snprintf(out, len, "%s%s%s", e->pinned ? "pinned" : "",
		 e->pinned && e->exclusive ? "," : "", e->exclusive ? "exclusive" : "");
	if (!out[0])
		snprintf(out, len, "-");
}

void owners_write_text(FILE *out, const struct owners *o)
{
	text_fprintf(out, "# owners: source %s (%s); nmi_watchdog %s\n",
		     owners_source_name(o->source), o->note,
		     o->nmi_watchdog < 0 ? "unknown"
		     : o->nmi_watchdog	 ? "1"
					 : "0");
	text_fprintf(out, "%-4s %-8s %7s %-16s %-30s %-16s %5s %-8s %s\n", "CPU", "OWNER", "PID",
		     "COMM", "EVENT", "FLAGS", "RAN", "STATE", "COUNTER");
	for (int i = 0; i < o->n; i++) {
		const struct owner_event *e = &o->ev[i];
		char cpu[16], pid[16], ran[16], ctr[16], fl[32], ev[96];
		snprintf(cpu, sizeof(cpu), e->cpu < 0 ? "any" : "%d", e->cpu);
		snprintf(pid, sizeof(pid), e->pid < 0 ? "-" : "%d", e->pid);
		snprintf(ctr, sizeof(ctr), e->counter < 0 ? "-" : "%d", e->counter);
		flags_text(e, fl, sizeof(fl));
		double r = owner_ran(e);
		snprintf(ran, sizeof(ran), isnan(r) ? "-" : "%.0f%%", r * 100);
		if (e->detailed && e->kind == OWNER_SELF && e->group >= 0)
			snprintf(ev, sizeof(ev), "%s [group %d]", e->name, e->group);
		else if (e->detailed || e->name[0])
			snprintf(ev, sizeof(ev), "%s", e->name);
		else
			snprintf(ev, sizeof(ev), "%d %s", e->files,
				 e->kind == OWNER_KVM ? "vCPUs" : "perf event files");
		text_fprintf(out, "%-4s %-8s %7s %-16s %-30s %-16s %5s %-8s %s\n", cpu,
			     owner_kind_name(e->kind), pid, e->comm[0] ? e->comm : "-", ev, fl, ran,
			     e->detailed ? state_name(e->state) : "-", ctr);
	}
	if (o->n == 0)
		text_fprintf(out, "(no perf event is held by any process)\n");
}

/* ---- summary ---- */

/* "0-1,3" from a sorted list of CPUs. */
static void cpus_text(const int *cpus, int n, char *out, size_t len)
{
	size_t u = 0;
	out[0] = 0;
	for (int i = 0; i < n && u < len; i++) {
		int j = i;
		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		u += (size_t)snprintf(out + u, len - u, "%s%d", u ? "," : "", cpus[i]);
		if (j > i && u < len)
			u += (size_t)snprintf(out + u, len - u, "-%d", cpus[j]);
		i = j;
	}
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static void append(char *out, size_t len, size_t *u, int *count, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void append(char *out, size_t len, size_t *u, int *count, const char *fmt, ...)
{
	if (*u >= len)
		return;
	if (*u)
		*u += (size_t)snprintf(out + *u, len - *u, "\n");
	va_list ap;
	va_start(ap, fmt);
	if (*u < len)
		*u += (size_t)vsnprintf(out + *u, len - *u, fmt, ap);
	va_end(ap);
	(*count)++;
}

int owners_summary(const struct owners *o, const char *mode, double self_running, char *out,
		   size_t len)
{
	size_t u = 0;
	int count = 0;
	out[0] = 0;
	/* the watchdog */
	for (int i = 0; i < o->n; i++) {
		const struct owner_event *e = &o->ev[i];
		if (e->kind != OWNER_WATCHDOG)
			continue;
		char where[32] = "";
		if (e->cpu >= 0)
			snprintf(where, sizeof(where), " on CPU %d", e->cpu);
		if (e->counter >= 0)
			append(
			    out, len, &u, &count,
			    "counter %d%s held by the NMI watchdog (sysctl kernel.nmi_watchdog=0 "
			    "frees it)",
			    e->counter, where);
		else
			append(out, len, &u, &count,
			       "a counter%s held by the NMI watchdog (sysctl kernel.nmi_watchdog=0 "
			       "frees it)",
			       where);
		/* one line for the watchdog: the rest is the same on every CPU */
		break;
	}
	/* other holders, one line per process: its events, CPUs and least share */
	int *seen = calloc((size_t)o->n + 1, sizeof(int));
	int *cpus = calloc((size_t)o->n + 1, sizeof(int));
	for (int i = 0; seen && cpus && i < o->n; i++) {
		const struct owner_event *e = &o->ev[i];
		if (seen[i] || e->kind == OWNER_WATCHDOG || e->kind == OWNER_SELF)
			continue;
		if (e->kind == OWNER_KVM) {
			seen[i] = 1;
			append(
			    out, len, &u, &count,
			    "pid %d %s runs a KVM guest (%d vCPUs): its vPMU counts on the host's "
			    "counters",
			    e->pid, e->comm, e->files);
			continue;
		}
		char names[160] = "";
		size_t nu = 0;
		int ncpu = 0, files = 0;
		bool any_cpu = false, detailed = false, pinned = false, hw = false;
		double least = NAN;
		enum owner_kind kind = e->kind;
		for (int k = i; k < o->n; k++) {
			const struct owner_event *f = &o->ev[k];
			if (seen[k] || f->pid != e->pid || f->kind == OWNER_KVM ||
			    f->kind == OWNER_WATCHDOG)
				continue;
			seen[k] = 1;
			files =
			    f->files > INT_MAX - files ? INT_MAX : files + f->files; /* saturate */
			detailed |= f->detailed;
			/* competes for hardware counters (a file count alone: it may) */
			hw |= !f->detailed || f->type == PERF_TYPE_HARDWARE ||
			      f->type == PERF_TYPE_HW_CACHE || f->type == PERF_TYPE_RAW ||
			      f->pmu_type == PERF_TYPE_RAW || f->counter >= 0;
			pinned |= f->pinned;
			if (f->kind != OWNER_PROCESS)
				kind = f->kind;
			if (f->cpu < 0)
				any_cpu = true;
			else {
				bool dup = false;
				for (int c = 0; c < ncpu; c++)
					dup |= cpus[c] == f->cpu;
				if (!dup)
					cpus[ncpu++] = f->cpu;
			}
			double r = owner_ran(f);
			if (!isnan(r) && (isnan(least) || r < least))
				least = r;
			if (f->name[0] && nu < sizeof(names)) {
				/* each name once */
				char key[OWNER_NAME_MAX + 3], tmp[sizeof(names) + 3];
				snprintf(key, sizeof(key), ",%s,", f->name);
				snprintf(tmp, sizeof(tmp), ",%s,", names);
				if (!strstr(tmp, key))
					nu += (size_t)snprintf(names + nu, sizeof(names) - nu,
							       "%s%s", nu ? "," : "", f->name);
			}
		}
		qsort(cpus, (size_t)ncpu, sizeof(int), cmp_int);
		char set[96];
		cpus_text(cpus, ncpu, set, sizeof(set));
		char share[48] = "", mux[96] = "";
		if (!isnan(least) && least < 0.995)
			snprintf(share, sizeof(share), ", ran %.0f %% of its time", least * 100);
		if (hw && !isnan(self_running) && self_running < 0.995)
			snprintf(mux, sizeof(mux), ": your %.40s mode multiplexes at %.0f %%",
				 mode && mode[0] ? mode : "running", self_running * 100);
		const char *what = kind == OWNER_CGROUP ? " (cgroup events)"
				   : kind == OWNER_BPF	? " (a BPF program's events)"
							: "";
		if (!detailed)
			append(out, len, &u, &count, "pid %d %s holds %d perf event files%s%s",
			       e->pid, e->comm, files, what, mux);
		else
			append(out, len, &u, &count, "pid %d %s holds %s%s%s%s%s%s%s%s", e->pid,
			       e->comm, names[0] ? names : "events", what,
			       ncpu > 1 ? " on CPUs "
			       : ncpu	? " on CPU "
					: "",
			       set, any_cpu ? (ncpu ? " and per task" : " per task") : "",
			       pinned ? " (pinned)" : "", share, mux);
	}
	free(seen);
	free(cpus);
	int others = 0;
	for (int i = 0; i < o->n; i++)
		others += o->ev[i].kind != OWNER_SELF;
	if (!isnan(self_running) && self_running < 0.995 && !others)
		append(out, len, &u, &count,
		       "your %.40s mode ran %.0f %% of the time with no other holder: more events "
		       "than counters",
		       mode && mode[0] ? mode : "running", self_running * 100);
	return count;
}
