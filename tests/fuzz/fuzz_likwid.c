/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_likwid.c: likwid_group_parse of likwid group files for a family picked by the first byte. */
#include "encode.h"
#include "expr.h"
#include "family.h"
#include "fuzz.h"
#include "likwid.h"
#include "mode.h"

const unsigned long fuzz_default_runs = 20000; /* each event tries several libpfm4 names */

#define TEXT_MAX 8192 /* bytes of a group file tried */

/* No control byte but the line breaks of a help text. */
static bool lines_printable(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\n') || *s == 0x7f)
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	static const char *const fams[] = {"skl", "slm", "zen", "cortex_a53", "generic", "xscale2"};
	if (!ready) {
		char err[256];
		FUZZ_ASSERT(encode_init(err, sizeof(err)) == 0);
		ready = true;
	}
	unsigned b = fuzz_take_byte(&data, &size);
	if (size > TEXT_MAX)
		size = TEXT_MAX;
	char *text = fuzz_strndup(data, size), err[512] = "";
	struct likwid_env env = {
	    .family = family_find(fams[b % 6]), .sysfs_root = "", .nominal_hz = b & 8 ? 2.5e9 : 0};
	struct likwid_group_info info;
	struct mode *m =
	    likwid_group_parse("fuzz.txt", "FUZZ", text, &env, &info, err, sizeof(err));
	FUZZ_ASSERT(m || strncmp(err, "fuzz.txt", 8) == 0);
	if (m) {
		FUZZ_ASSERT(strcmp(m->name, "likwid:FUZZ") == 0);
		FUZZ_ASSERT(m->nsets == 1 && m->sets[0].nevents > 0 && m->nmetrics > 0);
		FUZZ_ASSERT(info.mapped <= info.events && info.computed <= info.metrics);
		FUZZ_ASSERT(fuzz_printable(m->title) && lines_printable(m->help));
		for (int i = 0; i < m->nmetrics; i++) {
			FUZZ_ASSERT(fuzz_printable(m->metrics[i].desc));
			FUZZ_ASSERT(strlen(expr_text(m->metrics[i].expr)) < 512);
		}
		struct mode_avail a;
		mode_availability(m, env.family, &a);
		mode_free(m);
	}
	free(text);
	return 0;
}
