/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prefault.h: maps a buffer's pages in up front, so the ticks that write it later take no fault. */
#ifndef PMUTOP_PREFAULT_H
#define PMUTOP_PREFAULT_H
#include <stdbool.h>
#include <stddef.h>

/* Maps in the pages of [@p, @p + @n) writable (they must be the caller's own writable memory):
 * madvise(MADV_POPULATE_WRITE) where the kernel has it (5.14+), else a byte of each page written
 * with the value it holds. The contents do not change. */
void mem_prefault(void *p, size_t n);

/* The most a ring is mapped in at once when it is made (bytes): mapping in takes 0.2-0.6 ms a
 * MiB here (13 MiB, 30 s at 1 ms on 2 CPUs: 3-8 ms, which made the tick that did it late and a
 * 1 ms sampler miss ~10 samples); bigger rings stay lazy. */
#define MEM_PREFAULT_MAX (2u << 20)
/* A ring is mapped in when made only if the ticks write all of it within this (s): memory it
 * holds that soon anyway. One that takes longer to fill (a baseline history at 1 s: 10 minutes)
 * stays lazy, so the resident memory does not take it all at start. */
#define MEM_PREFAULT_FILL_S 60.0

/* The rule for a ring (the flight recorder's slots, the baseline history) that each tick or
 * window writes a new part of: maps its @bytes at @p in when it is at most MEM_PREFAULT_MAX and
 * @fill_s (s the writes take to reach all of it; NAN or infinity: not known) is at most
 * MEM_PREFAULT_FILL_S. Returns whether it was mapped in. */
bool mem_prefault_ring(void *p, size_t bytes, double fill_s);

#endif
