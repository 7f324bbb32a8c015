/* SPDX-License-Identifier: GPL-2.0-or-later */
/* owners_rec.h: the record the owners BPF iterator writes per perf event file (shared layout). */
#ifndef PMUTOP_OWNERS_REC_H
#define PMUTOP_OWNERS_REC_H

#define OWNERS_REC_CGROUP 1u /* event->cgrp set: counts one cgroup */
#define OWNERS_REC_BPF 2u    /* event->prog set: a BPF program is attached */

struct owners_rec {
	unsigned int pid; /* tgid */
	unsigned int fd;
	char comm[16];
	int cpu;	    /* event->cpu, -1 per task */
	int pmu_type;	    /* event->pmu->type */
	int state;	    /* event->state */
	int hw_idx;	    /* event->hw.idx (hardware PMUs only) */
	unsigned int flags; /* OWNERS_REC_* */
	unsigned int pad;
	unsigned long long leader; /* the group leader's address: groups events, never printed */
	unsigned long long self;   /* this event's address */
	unsigned long long enabled, running; /* total_time_enabled/running, ns */
	char pmu_name[24];		     /* event->pmu->name */
	unsigned char attr[48]; /* the UAPI prefix of perf_event_attr: type .. the flag bits */
};

#endif
