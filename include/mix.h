/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mix.h: splitmix64's finaliser, the 64-bit mix pmutop uses wherever it hashes a number (the sim
 * backend's deterministic counts, the key of /proc/stat's CPU lines). */
#ifndef PMUTOP_MIX_H
#define PMUTOP_MIX_H

#include <stdint.h>

static inline uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

#endif
