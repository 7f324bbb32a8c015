/* SPDX-License-Identifier: GPL-2.0-or-later */
/* offcore.h: OFFCORE_RESPONSE request-type bits per model, config1 encodings and the time-slice
 * sweep. */
#ifndef PMUTOP_OFFCORE_H
#define PMUTOP_OFFCORE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OFFCORE_MAX_BITS 16 /* request-type field is at most bits 15:0 */
#define OFFCORE_MAX_SLOTS 2 /* MSR_OFFCORE_RSP_0 and _1 */

struct pmu_family;

/* One request-type bit of MSR_OFFCORE_RSPx. */
struct offcore_bit {
	int bit;	      /* position in config1 (0..15) */
	const char *name;     /* pmutop name (SDM spelling) */
	const char *alias[3]; /* other accepted spellings (libpfm4, later SDMs); NULL-padded */
	const char *pfm_name; /* libpfm4 4.13 umask for exactly this bit, or NULL */
	bool superset; /* counts every request (Atom bit 15 ANY): not one share of the others */
	const char *desc;
};

/* A response filter: the config1 bits above the request field. */
struct offcore_response {
	const char *name; /* "ANY_RESPONSE", "L3_MISS", ... (first entry = default) */
	uint64_t mask;	  /* config1 bits (supplier | snoop, or 15:8 on Nehalem/Westmere) */
	const char *pfm;  /* libpfm4 umasks giving @mask ("LLC_MISS_LOCAL:SNP_ANY"), or NULL */
	const char *desc;
};

struct offcore_model {
	const char *key;		   /* family key: "snb", "slm", ... */
	const char *desc;		   /* "Sandy Bridge" */
	const char *pfm_model;		   /* libpfm4 model prefix */
	const char *pfm_event;		   /* libpfm4 event for RSP_0 */
	bool pfm_combined;		   /* umasks are "<BIT>_<RESPONSE>" (icl/icx/spr OCR) */
	uint64_t event[OFFCORE_MAX_SLOTS]; /* attr.config of RSP_0 / RSP_1 (0 = none) */
	uint64_t valid[OFFCORE_MAX_SLOTS]; /* kernel's valid config1 mask per MSR */
	const char *kernel_table;	   /* "intel_snb_extra_regs" */
	uint16_t request_field;		   /* 0x00ff on Nehalem/Westmere, 0xffff otherwise */
	const struct offcore_bit *bits;	   /* named request bits, ascending */
	int nbits;
	const struct offcore_response *responses; /* [0] = ANY_RESPONSE */
	int nresponses;
	uint16_t rsp0_only;	/* request bits valid on MSR_OFFCORE_RSP_0 only (Goldmont COREWB:
				 * Intel's event list gives it MSRIndex 0x1a6 alone) */
	int slots;		/* distinct offcore configs counting at once per logical CPU */
	const char *slots_note; /* what shares the MSRs */
};

/* Terminated by an entry whose key is NULL. */
extern const struct offcore_model offcore_models[];

/* Table for a family (or its nearest ancestor with one); NULL when the family has no offcore. */
const struct offcore_model *offcore_model_for(const struct pmu_family *family);
/* Table by family key ("snb"); NULL when none. */
const struct offcore_model *offcore_model_find(const char *key);

/* Request bit by name or alias (case-insensitive); NULL when unknown or reserved. */
const struct offcore_bit *offcore_bit_find(const struct offcore_model *m, const char *name);
/* True when request bit @bit may only be programmed on MSR_OFFCORE_RSP_0. */
bool offcore_rsp0_only(const struct offcore_model *m, int bit);
/* Request bit by position; NULL when reserved on @m. */
const struct offcore_bit *offcore_bit_at(const struct offcore_model *m, int bit);
/* Response filter by name (case-insensitive); NULL = unknown. */
const struct offcore_response *offcore_response_find(const struct offcore_model *m,
						     const char *name);
/* Mask of the named request bits (the bits a sweep may use). */
uint64_t offcore_request_mask(const struct offcore_model *m);

/* Checks a config1 for MSR @rsp (0/1) against the kernel's valid mask: 0, or -1 with a cause
 * naming the offending bits and the mask. */
int offcore_check_mask(const struct offcore_model *m, int rsp, uint64_t config1, char *err,
		       size_t errlen);
/* config1 for request bit @bit with response @resp (NULL = default), validated: a reserved or
 * response-field bit or a kernel-rejected value gives -1 and a cause. */
int offcore_config1(const struct offcore_model *m, int bit, const struct offcore_response *resp,
		    uint64_t *config1, char *err, size_t errlen);
/* Raw event spec for event_encode(): "r1b7:config1=0x10001" (RSP_0) or "r1bb:..." (@rsp 1). */
int offcore_spec(const struct offcore_model *m, int bit, const struct offcore_response *resp,
		 int rsp, char *buf, size_t len, char *err, size_t errlen);
/* The libpfm4 name for the same encoding ("snb::OFFCORE_RESPONSE_0:DMND_DATA_RD:ANY_RESPONSE",
 * "icl::OFFCORE_RESPONSE_0:DEMAND_DATA_RD_ANY_RESPONSE"); -1 when libpfm4 4.13 has no name. */
int offcore_pfm_spec(const struct offcore_model *m, int bit, const struct offcore_response *resp,
		     char *buf, size_t len);

/* What the user asked for: ":offcore [BIT...] [response=NAME]". */
struct offcore_selection {
	int bits[OFFCORE_MAX_BITS]; /* ascending bit positions */
	int nbits;
	const struct offcore_response *response;
};

/* Parses words (bit names/aliases, decimal bit numbers, "all", "response=NAME"); no bit words
 * = every named bit. Returns 0, or -1 with a cause (unknown name with the valid ones, reserved
 * bit, unknown response) and @sel unchanged. */
int offcore_parse_selection(const struct offcore_model *m, int argc, char **argv,
			    struct offcore_selection *sel, char *err, size_t errlen);
/* Every named bit, default response. */
void offcore_selection_all(const struct offcore_model *m, struct offcore_selection *sel);

/* Time slices: slice k counts bits[k*slots .. k*slots+slots-1] of the selection. */
struct offcore_plan {
	int slots;
	int nslices;
	int slice_bits[OFFCORE_MAX_BITS][OFFCORE_MAX_SLOTS]; /* bit positions */
	int slice_n[OFFCORE_MAX_BITS];			     /* bits in slice k (1..slots) */
};

/* @slots <= 0: the model's limit. Returns the number of slices (>= 1), -1 for an empty selection.
 */
int offcore_plan_make(const struct offcore_model *m, const struct offcore_selection *sel, int slots,
		      struct offcore_plan *plan);

/* Per-bit result of the sweep. */
struct offcore_bit_stat {
	int bit;
	bool superset;	/* the ANY bit of Atom: not part of @total */
	bool measured;	/* has a value */
	double rate;	/* requests/s, scaled, from the last slice that counted the bit */
	long last_tick; /* tick index of that slice, -1 = never */
	long age;	/* ticks since (0 = measured in the tick just finished), -1 = never */
	double share;	/* rate / total (0..1); -1 for superset bits and never-measured bits */
};

/* Sweep state for one CPU (or for the sum over CPUs: all advance in lockstep). */
struct offcore_sweep {
	struct offcore_plan plan;
	struct offcore_bit_stat stat[OFFCORE_MAX_BITS]; /* in selection order */
	int nstat;
	long tick;	 /* ticks finished */
	int slice;	 /* slice that counts during the current tick */
	double total;	 /* sum of the latest rates of the measured, non-superset bits (req/s) */
	double any_rate; /* latest rate of the superset ANY bit, or -1 when not selected/measured */
};

void offcore_sweep_init(struct offcore_sweep *s, const struct offcore_model *m,
			const struct offcore_plan *plan);
/* Bits counting during the current tick; returns how many (<= OFFCORE_MAX_SLOTS). */
int offcore_sweep_current(const struct offcore_sweep *s, int *bits);
/* Ends a tick: @rates[i] (req/s, scaled) belongs to the i-th bit of the current slice, NAN when it
 * could not be read (keeps the old value). Updates ages and shares and moves to the next slice. */
void offcore_sweep_tick(struct offcore_sweep *s, const double *rates, int n);
/* Stat of bit position @bit, or NULL when not in the sweep. */
const struct offcore_bit_stat *offcore_sweep_stat(const struct offcore_sweep *s, int bit);

#endif
