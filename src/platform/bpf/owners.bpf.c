/* SPDX-License-Identifier: GPL-2.0-or-later */
/* owners.bpf.c: iter/task_file program: one owners_rec per perf event file of every process. */
#include "owners_rec.h"
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* perf_event_open's files are anonymous inodes named "[perf_event]" (what /proc/PID/fd shows
 * as anon_inode:[perf_event]); the name is checked because perf_fops is not a symbol every
 * kernel lists */
static const char perf_name[] = "[perf_event]";

static bool is_perf_event(struct file *file)
{
	char name[sizeof(perf_name)] = {};
	const unsigned char *d_name = BPF_CORE_READ(file, f_path.dentry, d_name.name);
	if (bpf_probe_read_kernel_str(name, sizeof(name), d_name) != sizeof(name))
		return false;
	for (unsigned i = 0; i < sizeof(name); i++)
		if (name[i] != perf_name[i])
			return false;
	return true;
}

SEC("iter/task_file")
int owners_dump(struct bpf_iter__task_file *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct file *file = ctx->file;
	struct owners_rec rec = {};
	if (!task || !file)
		return 0;
	if (!is_perf_event(file))
		return 0;
	struct perf_event *ev = (struct perf_event *)file->private_data;
	if (!ev)
		return 0;
	rec.pid = task->tgid;
	rec.fd = ctx->fd;
	bpf_probe_read_kernel_str(rec.comm, sizeof(rec.comm), task->comm);
	rec.cpu = BPF_CORE_READ(ev, cpu);
	rec.pmu_type = BPF_CORE_READ(ev, pmu, type);
	rec.state = BPF_CORE_READ(ev, state);
	bpf_probe_read_kernel_str(rec.pmu_name, sizeof(rec.pmu_name), BPF_CORE_READ(ev, pmu, name));
	rec.hw_idx = BPF_CORE_READ(ev, hw.idx);
	rec.leader = (unsigned long long)BPF_CORE_READ(ev, group_leader);
	rec.self = (unsigned long long)ev;
	rec.enabled = BPF_CORE_READ(ev, total_time_enabled);
	rec.running = BPF_CORE_READ(ev, total_time_running);
	if (bpf_core_field_exists(ev->cgrp) && BPF_CORE_READ(ev, cgrp))
		rec.flags |= OWNERS_REC_CGROUP;
	if (bpf_core_field_exists(ev->prog) && BPF_CORE_READ(ev, prog))
		rec.flags |= OWNERS_REC_BPF;
	bpf_probe_read_kernel(rec.attr, sizeof(rec.attr), &ev->attr);
	bpf_seq_write(seq, &rec, sizeof(rec));
	return 0;
}
