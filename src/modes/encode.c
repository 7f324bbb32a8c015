/* encode.c: turns event specs into perf_event_attr via libpfm4, raw codes and sysfs formats. */
#include "encode.h"
#include "family.h"
#include "linereader.h"
#include "textutil.h"
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int pfm_ready;

int encode_init(char *err, size_t errlen)
{
	if (pfm_ready)
		return 0;
	/* Any value enables encoding of compiled-in models the CPU does not have (4.13). */
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 0);
	int ret = pfm_initialize();
	if (ret != PFM_SUCCESS) {
		snprintf(err, errlen, "libpfm4 initialisation failed: %s", pfm_strerror(ret));
		return -1;
	}
	pfm_ready = 1;
	return 0;
}

static void clear_excludes(struct perf_event_attr *attr)
{
	attr->exclude_user = attr->exclude_kernel = attr->exclude_hv = 0;
	attr->exclude_idle = attr->exclude_host = attr->exclude_guest = 0;
}

static int read_small_file(const char *root, const char *path, char *buf, size_t len)
{
	char full[4096];
	snprintf(full, sizeof(full), "%s%s", (root && strcmp(root, "/") != 0) ? root : "", path);
	long got = lr_read_small(full, buf, len);
	if (got < 0)
		return -1;
	size_t n = (size_t)got;
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return -1;
	*out = v;
	return 0;
}

/* Applies @value to the bits a sysfs format string describes ("config:0-7,21", "config1:0-63"). */
static int apply_format(struct perf_event_attr *attr, const char *format, uint64_t value)
{
	char field[16];
	const char *colon = strchr(format, ':');
	if (!colon || (size_t)(colon - format) >= sizeof(field))
		return -1;
	memcpy(field, format, (size_t)(colon - format));
	field[colon - format] = '\0';
	__u64 *target = strcmp(field, "config") == 0	? &attr->config
			: strcmp(field, "config1") == 0 ? &attr->config1
			: strcmp(field, "config2") == 0 ? &attr->config2
							: NULL;
	if (!target)
		return -1;
	const char *p = colon + 1;
	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end == p || lo < 0 || lo > 63)
			return -1;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo || hi > 63)
				return -1;
			p = end;
		}
		for (long bit = lo; bit <= hi; bit++) {
			if (value & 1)
				*target |= 1ULL << bit;
			else
				*target &= ~(1ULL << bit);
			value >>= 1;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return 0;
}

static int apply_terms(struct perf_event_attr *attr, const char *root, const char *pmu,
		       const char *terms, int depth, char *err, size_t errlen);

/* One "name=value" or alias term of the pmu/terms/ syntax. */
static int apply_term(struct perf_event_attr *attr, const char *root, const char *pmu,
		      const char *term, int depth, char *err, size_t errlen)
{
	char path[512], buf[512];
	const char *eq = strchr(term, '=');
	if (!eq) { /* an event alias from <pmu>/events/<name> */
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/events/%s", pmu,
			 term);
		if (depth > 0 || read_small_file(root, path, buf, sizeof(buf)) < 0) {
			snprintf(err, errlen, "%s has no event \"%s\"", pmu, term);
			return -1;
		}
		return apply_terms(attr, root, pmu, buf, depth + 1, err, errlen);
	}
	char name[64];
	if ((size_t)(eq - term) >= sizeof(name)) {
		snprintf(err, errlen, "term too long in \"%s\"", term);
		return -1;
	}
	memcpy(name, term, (size_t)(eq - term));
	name[eq - term] = '\0';
	uint64_t value;
	if (parse_u64(eq + 1, &value) < 0) {
		snprintf(err, errlen, "%s/%s: \"%s\" is not a number", pmu, name, eq + 1);
		return -1;
	}
	if (strcmp(name, "config") == 0) {
		attr->config = value;
		return 0;
	}
	if (strcmp(name, "config1") == 0) {
		attr->config1 = value;
		return 0;
	}
	if (strcmp(name, "config2") == 0) {
		attr->config2 = value;
		return 0;
	}
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/format/%s", pmu, name);
	if (read_small_file(root, path, buf, sizeof(buf)) < 0) {
		snprintf(err, errlen, "%s has no format field \"%s\"", pmu, name);
		return -1;
	}
	if (apply_format(attr, buf, value) < 0) {
		snprintf(err, errlen, "%s: cannot parse format \"%s\" of %s", pmu, buf, name);
		return -1;
	}
	return 0;
}

static int apply_terms(struct perf_event_attr *attr, const char *root, const char *pmu,
		       const char *terms, int depth, char *err, size_t errlen)
{
	char copy[512];
	snprintf(copy, sizeof(copy), "%s", terms);
	char *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*t))
			t++;
		if (*t && apply_term(attr, root, pmu, t, depth, err, errlen) < 0)
			return -1;
	}
	return 0;
}

static const char *const proc_fields[] = {
    [ENCODE_PROC_BUSY] = "busy",
    [ENCODE_PROC_IDLE] = "idle",
    [ENCODE_PROC_IRQ] = "irq",
};

/* "proc/busy/": CPU time from /proc/stat, for utilisation where cpu-clock counts idle time too */
static int encode_proc(const char *spec, struct event_encoding *enc, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(proc_fields) / sizeof(proc_fields[0]); i++) {
		char want[32];
		snprintf(want, sizeof(want), "proc/%s/", proc_fields[i]);
		if (strcmp(spec, want) == 0) {
			enc->attr.type = ENCODE_TYPE_PROC;
			enc->attr.config = i;
			enc->procfs = true;
			snprintf(enc->pmu, sizeof(enc->pmu), "proc");
			snprintf(enc->fstr, sizeof(enc->fstr), "%s", spec);
			return 0;
		}
	}
	snprintf(err, errlen, "unknown proc event \"%s\" (proc/busy/, proc/idle/, proc/irq/)",
		 spec);
	return -1;
}

/* "pmu/terms/" */
static int encode_sysfs(const char *spec, const struct encode_ctx *ctx, struct event_encoding *enc,
			char *err, size_t errlen)
{
	const char *slash = strchr(spec, '/');
	size_t plen = (size_t)(slash - spec), len = strlen(spec);
	if (plen == 0 || plen >= sizeof(enc->pmu) || spec[len - 1] != '/' || len < plen + 2) {
		snprintf(err, errlen, "malformed event \"%s\" (expected pmu/term,term/)", spec);
		return -1;
	}
	memcpy(enc->pmu, spec, plen);
	enc->pmu[plen] = '\0';
	char path[256], buf[64], terms[512];
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", enc->pmu);
	if (read_small_file(ctx->sysfs_root, path, buf, sizeof(buf)) < 0) {
		snprintf(err, errlen, "no PMU \"%s\" in /sys/bus/event_source/devices", enc->pmu);
		return -1;
	}
	uint64_t type;
	if (parse_u64(buf, &type) < 0 || type > INT32_MAX) {
		snprintf(err, errlen, "PMU %s has a bad type \"%s\"", enc->pmu, buf);
		return -1;
	}
	enc->attr.type = (uint32_t)type;
	size_t tlen = len - plen - 2;
	if (tlen >= sizeof(terms))
		tlen = sizeof(terms) - 1;
	memcpy(terms, slash + 1, tlen);
	terms[tlen] = '\0';
	if (apply_terms(&enc->attr, ctx->sysfs_root, enc->pmu, terms, 0, err, errlen) < 0)
		return -1;
	/* Uncore-like and msr PMUs cannot filter privilege levels; core PMUs via sysfs can. */
	enc->hardware = type == PERF_TYPE_RAW || strcmp(enc->pmu, "cpu") == 0 ||
			strncmp(enc->pmu, "cpu_", 4) == 0 || strncmp(enc->pmu, "arm", 3) == 0;
	snprintf(enc->fstr, sizeof(enc->fstr), "%s", spec);
	return 0;
}

/* "r1b7" or "r1b7:config1=0x10001" */
static int encode_raw(const char *spec, const struct encode_ctx *ctx, struct event_encoding *enc,
		      char *err, size_t errlen)
{
	char code[32];
	const char *colon = strchr(spec, ':');
	size_t clen = colon ? (size_t)(colon - spec - 1) : strlen(spec + 1);
	if (clen == 0 || clen >= sizeof(code)) {
		snprintf(err, errlen, "bad raw event \"%s\" (expected rHEX)", spec);
		return -1;
	}
	memcpy(code, spec + 1, clen);
	code[clen] = '\0';
	char *end;
	errno = 0;
	unsigned long long config = strtoull(code, &end, 16);
	if (errno || *end || !isxdigit((unsigned char)code[0])) {
		snprintf(err, errlen, "bad raw event \"%s\" (expected rHEX)", spec);
		return -1;
	}
	enc->attr.type = ctx->core_pmu_type > 0 ? (uint32_t)ctx->core_pmu_type : PERF_TYPE_RAW;
	enc->attr.config = config;
	if (colon) {
		uint64_t v;
		if (strncmp(colon + 1, "config1=", 8) != 0 || parse_u64(colon + 9, &v) < 0) {
			snprintf(err, errlen,
				 "bad raw event modifier \"%s\" (expected :config1=VALUE)",
				 colon + 1);
			return -1;
		}
		enc->attr.config1 = v;
	}
	snprintf(enc->pmu, sizeof(enc->pmu), "raw");
	snprintf(enc->fstr, sizeof(enc->fstr), "%s", spec);
	enc->hardware = true;
	return 0;
}

/* Does this libpfm4 build have the PMU model @model ("skl", "arm_ac53")? libpfm4 is built
 * with the tables of its own architecture only. */
static bool has_model(const char *model)
{
	char err[64];
	pfm_pmu_t p;
	if (encode_init(err, sizeof(err)) < 0)
		return false;
	pfm_for_all_pmus(p)
	{
		pfm_pmu_info_t pi = {.size = sizeof(pi)};
		if (pfm_get_pmu_info(p, &pi) == PFM_SUCCESS && strcmp(pi.name, model) == 0)
			return true;
	}
	return false;
}

bool encode_model_missing(const char *spec, const struct pmu_family *family, char *model,
			  size_t len)
{
	const char *sep = strstr(spec, "::");
	if (!sep)
		return false;
	if (strncmp(spec, "@::", 3) == 0) {
		if (!family || !family->pfm_model)
			return false;
		snprintf(model, len, "%s", family->pfm_model);
	} else {
		snprintf(model, len, "%.*s", (int)(sep - spec), spec);
	}
	return !has_model(model);
}

static int encode_pfm(const char *spec, const struct encode_ctx *ctx, struct event_encoding *enc,
		      char *err, size_t errlen)
{
	char name[256];
	if (strncmp(spec, "@::", 3) == 0) {
		if (!ctx->family || !ctx->family->pfm_model) {
			snprintf(err, errlen,
				 "\"%s\" needs a libpfm4 model, but family %s has none", spec,
				 ctx->family ? ctx->family->key : "(none)");
			return -1;
		}
		snprintf(name, sizeof(name), "%s::%s", ctx->family->pfm_model, spec + 3);
	} else {
		snprintf(name, sizeof(name), "%s", spec);
	}
	if (encode_init(err, errlen) < 0)
		return -1;
	char *fstr = NULL;
	pfm_perf_encode_arg_t arg = {.size = sizeof(arg), .attr = &enc->attr, .fstr = &fstr};
	enc->attr.size = sizeof(enc->attr);
	int ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	char model[32];
	if (ret != PFM_SUCCESS && encode_model_missing(name, NULL, model, sizeof(model))) {
		snprintf(err, errlen,
			 "\"%s\": libpfm4 here has no %s tables (it is built with its own "
			 "architecture's models only)",
			 name, model);
		free(fstr);
		return -1;
	}
	if (ret != PFM_SUCCESS) {
		snprintf(err, errlen, "unknown event \"%s\": %s", name, pfm_strerror(ret));
		free(fstr);
		return -1;
	}
	snprintf(enc->fstr, sizeof(enc->fstr), "%s", fstr ? fstr : name);
	free(fstr);
	const char *sep = strstr(enc->fstr, "::");
	size_t plen = sep ? (size_t)(sep - enc->fstr) : 0;
	if (plen >= sizeof(enc->pmu))
		plen = sizeof(enc->pmu) - 1;
	memcpy(enc->pmu, enc->fstr, plen);
	enc->pmu[plen] = '\0';
	enc->hardware =
	    enc->attr.type != PERF_TYPE_SOFTWARE && enc->attr.type != PERF_TYPE_TRACEPOINT;
	if (enc->attr.type == PERF_TYPE_RAW && ctx->core_pmu_type > 0)
		enc->attr.type = (uint32_t)ctx->core_pmu_type;
	return 0;
}

int event_encode(const char *spec, const struct encode_ctx *ctx, struct event_encoding *enc,
		 char *err, size_t errlen)
{
	memset(enc, 0, sizeof(*enc));
	enc->attr.size = sizeof(enc->attr);
	while (isspace((unsigned char)*spec))
		spec++;
	if (!*spec) {
		snprintf(err, errlen, "empty event name");
		return -1;
	}
	int rc;
	if (strncmp(spec, "proc/", 5) == 0)
		return encode_proc(spec, enc, err, errlen);
	if (strchr(spec, '/'))
		rc = encode_sysfs(spec, ctx, enc, err, errlen);
	else if (spec[0] == 'r' && isxdigit((unsigned char)spec[1]) && !strstr(spec, "::"))
		rc = encode_raw(spec, ctx, enc, err, errlen);
	else
		rc = encode_pfm(spec, ctx, enc, err, errlen);
	if (rc < 0)
		return -1;
	enc->attr.size = sizeof(enc->attr);
	/* PMUs without privilege filtering (msr, XScale, several ARM PMUs) reject any exclude bit.
	 */
	bool core_raw = enc->attr.type == PERF_TYPE_RAW || enc->attr.type == PERF_TYPE_HARDWARE ||
			enc->attr.type == PERF_TYPE_HW_CACHE ||
			(ctx->core_pmu_type > 0 && enc->attr.type == (uint32_t)ctx->core_pmu_type);
	bool sysfs_nonfilter = strchr(spec, '/') && !enc->hardware;
	if (sysfs_nonfilter || (core_raw && !ctx->filters_priv))
		clear_excludes(&enc->attr);
	return 0;
}

void encode_format(const struct event_encoding *enc, char *buf, size_t len)
{
	const struct perf_event_attr *a = &enc->attr;
	if (enc->procfs) {
		snprintf(buf, len, "/proc/stat field %s (no perf event)",
			 proc_fields[a->config < 3 ? a->config : 0]);
		return;
	}
	char ex[64] = "";
	static const struct {
		const char *name;
		int bit;
	} bits[] = {{"user", 0}, {"kernel", 1}, {"hv", 2}, {"idle", 3}, {"host", 4}, {"guest", 5}};
	int flags[] = {a->exclude_user, a->exclude_kernel, a->exclude_hv,
		       a->exclude_idle, a->exclude_host,   a->exclude_guest};
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (flags[bits[i].bit]) {
			size_t u = strlen(ex);
			snprintf(ex + u, sizeof(ex) - u, "%s%s", u ? "," : "", bits[i].name);
		}
	snprintf(buf, len, "type=%u config=%#llx config1=%#llx%s%s", a->type,
		 (unsigned long long)a->config, (unsigned long long)a->config1,
		 ex[0] ? " exclude=" : " exclude=none", ex);
}

struct suggest_state {
	const char *bad;
	const char *model; /* only this pmu (and perf) */
	char (*out)[96];
	int dist[16];
	int n, max;
};

static void suggest_one(void *arg, const char *pmu, const char *event, const char *desc,
			bool present)
{
	(void)desc;
	(void)present;
	struct suggest_state *s = arg;
	if (strcmp(pmu, "perf") != 0 && (!s->model || strcmp(pmu, s->model) != 0))
		return;
	const char *bad = s->bad;
	const char *sep = strstr(bad, "::");
	if (sep)
		bad = sep + 2;
	char upper[96];
	size_t k = 0;
	for (; bad[k] && bad[k] != ':' && k < sizeof(upper) - 1; k++)
		upper[k] = bad[k];
	upper[k] = '\0';
	int d = text_distance(upper, event, 1);
	if (d > 3 + (int)strlen(upper) / 4)
		return;
	char name[96];
	snprintf(name, sizeof(name), "%s::%s", pmu, event);
	int pos = s->n < s->max ? s->n : s->max;
	while (pos > 0 && s->dist[pos - 1] > d)
		pos--;
	if (pos >= s->max)
		return;
	int last = s->n < s->max ? s->n : s->max - 1;
	for (int i = last; i > pos; i--) {
		memcpy(s->out[i], s->out[i - 1], sizeof(s->out[0]));
		s->dist[i] = s->dist[i - 1];
	}
	snprintf(s->out[pos], sizeof(s->out[0]), "%s", name);
	s->dist[pos] = d;
	if (s->n < s->max)
		s->n++;
}

int encode_suggest(const char *bad, const struct encode_ctx *ctx, char (*out)[96], int max)
{
	struct suggest_state s = {.bad = bad, .out = out, .max = max > 16 ? 16 : max};
	if (ctx && ctx->family && ctx->family->pfm_model)
		s.model = ctx->family->pfm_model;
	char model[64];
	const char *sep = strstr(bad, "::");
	if (sep && (size_t)(sep - bad) < sizeof(model)) {
		memcpy(model, bad, (size_t)(sep - bad));
		model[sep - bad] = '\0';
		s.model = model;
	}
	encode_list(NULL, true, suggest_one, &s);
	return s.n;
}

/* A glob ("skl::INST*", "*MISS*") matches "PMU::EVENT" or the event name, case ignored; any
 * other pattern is a substring of either. */
static bool list_match(const char *pattern, const char *pmu, const char *event)
{
	if (!strpbrk(pattern, "*?["))
		return strcasestr(event, pattern) || strcasestr(pmu, pattern);
	char full[256];
	snprintf(full, sizeof(full), "%s::%s", pmu, event);
	return fnmatch(pattern, full, FNM_CASEFOLD) == 0 ||
	       fnmatch(pattern, event, FNM_CASEFOLD) == 0;
}

void encode_list(const char *pattern, bool all, encode_list_fn fn, void *arg)
{
	char err[128];
	if (encode_init(err, sizeof(err)) < 0)
		return;
	pfm_pmu_t p;
	pfm_for_all_pmus(p)
	{
		pfm_pmu_info_t pi = {.size = sizeof(pi)};
		if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS)
			continue;
		if (!all && !pi.is_present)
			continue;
		if (pi.type != PFM_PMU_TYPE_CORE && pi.type != PFM_PMU_TYPE_OS_GENERIC)
			continue;
		for (int i = pi.first_event; i != -1; i = pfm_get_event_next(i)) {
			pfm_event_info_t ei = {.size = sizeof(ei)};
			if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS)
				continue;
			if (pattern && !list_match(pattern, pi.name, ei.name))
				continue;
			fn(arg, pi.name, ei.name, ei.desc ? ei.desc : "", pi.is_present);
		}
	}
}
