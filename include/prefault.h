/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prefault.h: maps a buffer's pages in up front, so the ticks that write it later take no fault. */
#ifndef PMUTOP_PREFAULT_H
#define PMUTOP_PREFAULT_H
#include <stddef.h>

/* Maps in the pages of [@p, @p + @n) writable (they must be the caller's own writable memory):
 * madvise(MADV_POPULATE_WRITE) where the kernel has it (5.14+), else a byte of each page written
 * with the value it holds. The contents do not change. */
void mem_prefault(void *p, size_t n);

#endif
