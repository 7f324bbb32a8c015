/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz.h: helpers shared by the fuzz targets (tests/fuzz/fuzz_*.c). */
#ifndef PMUTOP_FUZZ_H
#define PMUTOP_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The libFuzzer entry point every target defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A target may define this to set how many mutated inputs tests/fuzz/driver.c runs by
 * default (about 2-5 s in a normal build); PMUTOP_FUZZ_RUNS overrides it. */
extern const unsigned long fuzz_default_runs;

/* Fails the run: a property the code under test promises does not hold. */
#define FUZZ_ASSERT(cond)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__,        \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* A NUL-terminated malloc'd copy of @n bytes (embedded NULs end the string early). */
static inline char *fuzz_strndup(const uint8_t *data, size_t n)
{
	char *s = malloc(n + 1);
	if (!s)
		abort();
	if (n)
		memcpy(s, data, n);
	s[n] = '\0';
	return s;
}

/* Takes the first byte of the input (0 when empty). */
static inline unsigned fuzz_take_byte(const uint8_t **data, size_t *size)
{
	if (!*size)
		return 0;
	unsigned b = **data;
	(*data)++;
	(*size)--;
	return b;
}

/* Writes @n bytes to an anonymous file and puts its path ("/proc/self/fd/N") in @path.
 * Returns the fd (close it when done) or aborts. */
static inline int fuzz_memfile(const uint8_t *data, size_t n, char *path, size_t len)
{
	int fd = memfd_create("pmutop-fuzz", MFD_CLOEXEC);
	if (fd < 0) {
		perror("memfd_create");
		abort();
	}
	size_t off = 0;
	while (off < n) {
		ssize_t w = write(fd, data + off, n - off);
		if (w <= 0) {
			perror("write");
			abort();
		}
		off += (size_t)w;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* True when @s (NUL-terminated) holds no control byte (< 0x20 or DEL). */
static inline int fuzz_printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}
#endif
