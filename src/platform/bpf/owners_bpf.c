/* SPDX-License-Identifier: GPL-2.0-or-later */
/* owners_bpf.c: loads the task_file iterator and turns its records into owner events. */
#include "owners.h"
#include "owners_bpf.skel.h"
#include "owners_rec.h"
#include "textutil.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* The group number of @leader among @pid's groups so far (in the order the iterator saw them). */
struct leader_seen {
	unsigned int pid;
	unsigned long long leader;
};

static int group_of(struct leader_seen **seen, int *n, int *cap, unsigned pid,
		    unsigned long long leader)
{
	int k = 0;
	for (int i = 0; i < *n; i++) {
		if ((*seen)[i].pid != pid)
			continue;
		if ((*seen)[i].leader == leader)
			return k;
		k++;
	}
	if (*n == *cap) {
		int c = *cap ? *cap * 2 : 64;
		struct leader_seen *s = realloc(*seen, (size_t)c * sizeof(*s));
		if (!s)
			return -1;
		*seen = s;
		*cap = c;
	}
	(*seen)[(*n)++] = (struct leader_seen){pid, leader};
	return k;
}

int owners_bpf_collect(struct owners *o, char *err, size_t errlen)
{
	/* loaded and attached once (the kernel's BTF is parsed then); each read starts a new
	 * iteration of the same link */
	static struct owners_bpf *skel;
	static int load_errno;
	if (!skel && !load_errno) {
		libbpf_set_print(quiet);
		skel = owners_bpf__open_and_load();
		if (!skel)
			load_errno = errno ? errno : EINVAL;
		else if (owners_bpf__attach(skel) < 0) {
			load_errno = errno ? errno : EINVAL;
			owners_bpf__destroy(skel);
			skel = NULL;
		}
	}
	if (!skel) {
		text_errorf(err, errlen, "BPF iterator did not load: %s%s", strerror(load_errno),
			    load_errno == EPERM || load_errno == EACCES
				? " (needs CAP_BPF and CAP_PERFMON)"
				: "");
		return -1;
	}
	int rc = -1, fd = -1;
	struct leader_seen *seen = NULL;
	int nseen = 0, capseen = 0;
	fd = bpf_iter_create(bpf_link__fd(skel->links.owners_dump));
	if (fd < 0) {
		text_errorf(err, errlen, "BPF iterator did not start: %s", strerror(errno));
		goto out;
	}
	struct owners_rec rec;
	size_t have = 0;
	for (;;) {
		ssize_t n = read(fd, (char *)&rec + have, sizeof(rec) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			text_errorf(err, errlen, "reading the BPF iterator: %s", strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		if (have < sizeof(rec))
			continue;
		have = 0;
		struct perf_event_attr attr;
		memset(&attr, 0, sizeof(attr));
		memcpy(&attr, rec.attr, sizeof(rec.attr));
		struct owner_event *e = owners_add(o);
		if (!e) {
			text_errorf(err, errlen, "out of memory");
			goto out;
		}
		e->kind = rec.flags & OWNERS_REC_BPF	  ? OWNER_BPF
			  : rec.flags & OWNERS_REC_CGROUP ? OWNER_CGROUP
							  : OWNER_PROCESS;
		e->pid = (int)rec.pid;
		text_escape_flags(rec.comm, strnlen(rec.comm, sizeof(rec.comm)), e->comm,
				  sizeof(e->comm), TEXT_ESC_KEEP_BACKSLASH);
		e->cpu = rec.cpu;
		e->files = 1;
		e->detailed = true;
		e->type = attr.type;
		e->config = attr.config;
		e->pmu_type = rec.pmu_type;
		owners_event_name(attr.type, attr.config, e->name, sizeof(e->name));
		/* the clocks have PMUs of their own without a sysfs entry (the kernel rewrites
		 * attr.type to theirs): perf still calls them cpu-clock and task-clock */
		rec.pmu_name[sizeof(rec.pmu_name) - 1] = 0;
		if (attr.type > PERF_TYPE_BREAKPOINT && strcmp(rec.pmu_name, "cpu_clock") == 0)
			snprintf(e->name, sizeof(e->name), "cpu-clock");
		else if (attr.type > PERF_TYPE_BREAKPOINT &&
			 strcmp(rec.pmu_name, "task_clock") == 0)
			snprintf(e->name, sizeof(e->name), "task-clock");
		else if (attr.type > PERF_TYPE_BREAKPOINT && rec.pmu_name[0])
			snprintf(e->name, sizeof(e->name), "%.24s/config=0x%llx/", rec.pmu_name,
				 (unsigned long long)attr.config);
		e->pinned = attr.pinned;
		e->exclusive = attr.exclusive;
		e->state = rec.state;
		e->counter = rec.state == 1 ? rec.hw_idx : -1; /* kept on core PMUs only */
		e->group = group_of(&seen, &nseen, &capseen, rec.pid, rec.leader);
		e->enabled_ns = rec.enabled;
		e->running_ns = rec.running;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(seen);
	return rc;
}
