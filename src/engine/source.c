/* SPDX-License-Identifier: GPL-2.0-or-later */
/* source.c: the sources --backend can name, source kind names, rotated event sets, and freeing a
 * counter set. */
#include "source.h"
#include <stdlib.h>
#include <string.h>

static const struct source_ops *const named_sources[] = {
    &source_perf_ops,
    &source_sim_ops,
    NULL,
};

const struct source_ops *source_find(const char *name)
{
	for (size_t i = 0; named_sources[i]; i++)
		if (strcmp(named_sources[i]->name, name) == 0)
			return named_sources[i];
	return NULL;
}

const char *source_name_at(size_t i)
{
	return i < sizeof(named_sources) / sizeof(named_sources[0]) - 1 ? named_sources[i]->name
									: NULL;
}

const char *source_kind_name(enum source_kind kind)
{
	static const char *const names[SOURCE_KIND_COUNT] = {
	    [SOURCE_PERF] = "perf",
	    [SOURCE_SIM] = "sim",
	    [SOURCE_REPLAY] = "replay",
	    [SOURCE_REMOTE] = "remote",
	};
	return kind < SOURCE_KIND_COUNT ? names[kind] : "?";
}

bool backend_event_in_set(const struct backend_event *ev, int set)
{
	if (ev->set < 0 || ev->set == set)
		return true;
	return set >= 0 && set < 32 && ((ev->also_in >> set) & 1u);
}

void backend_free(struct backend *b)
{
	if (!b)
		return;
	if (b->ops && b->ops->close)
		b->ops->close(b);
	free(b->status);
	b->status = NULL;
}
