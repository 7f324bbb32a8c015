/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prefault.c: a buffer's pages mapped in when it is made, not by the first write of a tick. */
#include "prefault.h"
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

void mem_prefault(void *p, size_t n)
{
	if (!p || !n)
		return;
	long ps = sysconf(_SC_PAGESIZE);
	uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096;
	/* madvise wants a page-aligned start: the pages holding the buffer, which are mapped
	 * writable as a whole (populating a page already in changes nothing) */
	uintptr_t lo = (uintptr_t)p & ~(page - 1), hi = ((uintptr_t)p + n + page - 1) & ~(page - 1);
	if (madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) == 0)
		return;
	/* an older kernel (EINVAL): a write to each page; reading alone would map the shared zero
	 * page, which the first real write faults out again */
	volatile unsigned char *b = p;
	for (uintptr_t a = (uintptr_t)p; a < (uintptr_t)p + n; a = (a & ~(page - 1)) + page) {
		size_t i = a - (uintptr_t)p;
		b[i] = b[i];
	}
}

bool mem_prefault_ring(void *p, size_t bytes, double fill_s)
{
	/* (a NAN fill time fails the comparison: not known, not mapped in) */
	if (!p || bytes > MEM_PREFAULT_MAX || !(fill_s <= MEM_PREFAULT_FILL_S))
		return false;
	mem_prefault(p, bytes);
	return true;
}
