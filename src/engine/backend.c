/* backend.c: the registry of counter backends. */
#include "backend.h"
#include "replay.h"
#include <stdlib.h>
#include <string.h>

static const struct backend_ops *const backends[] = {
	&backend_perf_ops,
	&backend_sim_ops,
	&backend_replay_ops,
	NULL,
};

const struct backend_ops *backend_find(const char *name)
{
	for (size_t i = 0; backends[i]; i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
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
