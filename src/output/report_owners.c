/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report_owners.c: --list-owners: who holds the PMUs, as text or JSON, without counting. */
#include "output.h"
#include "owners.h"
#include "platform.h"
#include "run_options.h"
#include "textutil.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int owners_read(struct owners *o, const char *owners_from, const char *root, bool hw_pmu, char *err,
		size_t errlen)
{
	const char *fixture = owners_from;
	if (!fixture) {
		const char *env = getenv("PMUTOP_OWNERS_FIXTURE");
		fixture = env && env[0] ? env : NULL;
	}
	o->self_pid = getpid();
	if (fixture)
		return owners_load(o, fixture, err, errlen);
	const char *nobpf = getenv("PMUTOP_OWNERS_NO_BPF");
	unsigned flags = nobpf && strcmp(nobpf, "1") == 0 ? OWNERS_NO_BPF : 0;
	return owners_collect(o, root && strcmp(root, "/") != 0 ? root : "", getpid(), hw_pmu,
			      flags, err, errlen);
}

int owners_report(const struct options *opt, FILE *out, FILE *errout)
{
	static struct platform pf;
	char err[512];
	bool hw = false;
	if (platform_detect(&pf, opt->sysfs_root, err, sizeof(err)) == 0)
		hw = pf.core_pmu_count > 0;
	struct owners o = {0};
	if (owners_read(&o, opt->owners_from, opt->sysfs_root, hw, err, sizeof(err)) < 0) {
		text_fprintf(errout, "pmutop: --list-owners: %s\n", err);
		owners_free(&o);
		return 1;
	}
	if (opt->format == output_format_parse("json"))
		owners_write_json(out, &o);
	else {
		char sum[2048];
		owners_write_text(out, &o);
		if (owners_summary(&o, NULL, NAN, sum, sizeof(sum)) > 0) {
			for (char *line = strtok(sum, "\n"); line; line = strtok(NULL, "\n"))
				text_fprintf(out, "# %s\n", line);
		}
	}
	owners_free(&o);
	return 0;
}

void owners_explain(const struct options *opt, bool hw_pmu, const char *mode, FILE *out)
{
	struct owners o = {0};
	char err[512], sum[2048];
	if (owners_read(&o, opt->owners_from, opt->sysfs_root, hw_pmu, err, sizeof(err)) < 0) {
		text_fprintf(out, "# owners: not known (%s)\n", err);
		owners_free(&o);
		return;
	}
	text_fprintf(out, "# owners: source %s (%s)\n", owners_source_name(o.source), o.note);
	if (owners_summary(&o, mode, NAN, sum, sizeof(sum)) > 0)
		for (char *save = NULL, *l = strtok_r(sum, "\n", &save); l;
		     l = strtok_r(NULL, "\n", &save))
			text_fprintf(out, "# holder: %s\n", l);
	owners_free(&o);
}
