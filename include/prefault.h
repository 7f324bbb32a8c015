/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prefault.h: maps a buffer's pages in up front, so the ticks that write it later take no fault. */
#ifndef PMUTOP_PREFAULT_H
#define PMUTOP_PREFAULT_H
#include <stddef.h>

/* Maps in the pages of [@p, @p + @n) writable (they must be the caller's own writable memory):
 * madvise(MADV_POPULATE_WRITE) where the kernel has it (5.14+), else a byte of each page written
 * with the value it holds. The contents do not change. */
void mem_prefault(void *p, size_t n);

/* The most a ring is mapped in at once when it is made (bytes): the rings are made in the first
 * tick, and mapping in takes 0.2-0.6 ms a MiB here (13 MiB, 30 s at 1 ms on 2 CPUs: 3-8 ms, so
 * that tick came late and a 1 ms sampler missed ~10 samples); bigger rings stay lazy. */
#define MEM_PREFAULT_MAX (2u << 20)

#endif
