/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_command.c: command_split/command_join round trip and command_check (no handlers run). */
#include "command.h"
#include "fuzz.h"

const unsigned long fuzz_default_runs = 300000;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = fuzz_strndup(data, size);
	char err[512] = "";
	int argc = -1;
	char **argv = NULL;
	if (command_split(line, &argc, &argv, err, sizeof(err)) == 0) {
		FUZZ_ASSERT(argc >= 0 && argv && argv[argc] == NULL);
		for (int i = 0; i < argc; i++)
			FUZZ_ASSERT(argv[i] != NULL);
		/* join quotes what needs it: splitting the joined line gives the same words */
		char *joined = command_join(argc, argv);
		FUZZ_ASSERT(joined);
		int argc2 = -1;
		char **argv2 = NULL;
		int rc = command_split(joined, &argc2, &argv2, err, sizeof(err));
		if (rc != 0 || argc2 != argc) {
			fprintf(stderr,
				"join: [%s] -> %d words, split again: rc %d, %d words (%s)\n",
				joined, argc, rc, argc2, err);
			abort();
		}
		for (int i = 0; i < argc; i++) {
			if (strcmp(argv[i], argv2[i]) != 0) {
				fprintf(stderr, "word %d: [%s] joined as [%s] splits to [%s]\n", i,
					argv[i], joined, argv2[i]);
				abort();
			}
		}
		command_free_words(argc2, argv2);
		free(joined);
		if (argc > 0) {
			char e2[256];
			command_find(argv[0], e2, sizeof(e2));
			if (strlen(argv[0]) < 64)
				command_distance(argv[0], "mode");
		}
		command_free_words(argc, argv);
	} else {
		FUZZ_ASSERT(err[0]);
	}
	err[0] = '\0';
	if (command_check(line, err, sizeof(err)) != 0)
		FUZZ_ASSERT(err[0]);
	free(line);
	return 0;
}
