/* SPDX-License-Identifier: GPL-2.0-or-later */
/* owners_bpf.c: loads the task_file iterator and turns its records into owner events. */
#include "owners.h"
#include "owners_rec.h"
#include "textutil.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* libbpf (with libelf and libz, ~290 KiB resident) is loaded with dlopen only while the
 * iterator is loaded and attached, once per run; the attached link's descriptor is kept and
 * each read starts an iteration with the bpf() system call itself, so libbpf is unmapped for
 * the rest of the run. The skeleton's calls go through these pointers. */
static struct libbpf_fns {
	int (*open_skeleton)(struct bpf_object_skeleton *s, const struct bpf_object_open_opts *o);
	int (*load_skeleton)(struct bpf_object_skeleton *s);
	int (*attach_skeleton)(struct bpf_object_skeleton *s);
	void (*detach_skeleton)(struct bpf_object_skeleton *s);
	void (*destroy_skeleton)(struct bpf_object_skeleton *s);
	int (*link_fd)(const struct bpf_link *link);
	libbpf_print_fn_t (*set_print)(libbpf_print_fn_t fn);
} lib;

#define bpf_object__open_skeleton lib.open_skeleton
#define bpf_object__load_skeleton lib.load_skeleton
#define bpf_object__attach_skeleton lib.attach_skeleton
#define bpf_object__detach_skeleton lib.detach_skeleton
#define bpf_object__destroy_skeleton lib.destroy_skeleton
#include "owners_bpf.skel.h"
#undef bpf_object__open_skeleton
#undef bpf_object__load_skeleton
#undef bpf_object__attach_skeleton
#undef bpf_object__detach_skeleton
#undef bpf_object__destroy_skeleton

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

/* Loads libbpf, the program and its link; the link's descriptor (kept) or -1 with errno. */
static int load_link(char *why, size_t whylen)
{
	void *h = dlopen(PMUTOP_BPF_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		text_errorf(why, whylen, "%s", e ? e : "libbpf could not be loaded");
		errno = ENOENT;
		return -1;
	}
	void **slot[] = {(void **)&lib.open_skeleton,	 (void **)&lib.load_skeleton,
			 (void **)&lib.attach_skeleton,	 (void **)&lib.detach_skeleton,
			 (void **)&lib.destroy_skeleton, (void **)&lib.link_fd,
			 (void **)&lib.set_print};
	static const char *const name[] = {"bpf_object__open_skeleton",
					   "bpf_object__load_skeleton",
					   "bpf_object__attach_skeleton",
					   "bpf_object__detach_skeleton",
					   "bpf_object__destroy_skeleton",
					   "bpf_link__fd",
					   "libbpf_set_print"};
	for (size_t i = 0; i < sizeof(slot) / sizeof(slot[0]); i++)
		if (!(*slot[i] = dlsym(h, name[i]))) {
			text_errorf(why, whylen, "%s has no %s", PMUTOP_BPF_SONAME, name[i]);
			dlclose(h);
			errno = ENOSYS;
			return -1;
		}
	why[0] = 0;
	lib.set_print(quiet);
	int fd = -1, err = 0;
	struct owners_bpf *skel = owners_bpf__open_and_load();
	if (!skel)
		err = errno ? errno : EINVAL;
	else if (owners_bpf__attach(skel) < 0)
		err = errno ? errno : EINVAL;
	else if ((fd = fcntl(lib.link_fd(skel->links.owners_dump), F_DUPFD_CLOEXEC, 3)) < 0)
		err = errno;
	if (skel)
		owners_bpf__destroy(skel); /* the kept descriptor holds the link and its program */
	lib.set_print(NULL);
	memset(&lib, 0, sizeof(lib));
	dlclose(h);
	errno = err;
	return fd;
}

/* BPF_ITER_CREATE on @link_fd: a new iteration's descriptor, as libbpf's bpf_iter_create */
static int iter_create(int link_fd)
{
	union bpf_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.iter_create.link_fd = (__u32)link_fd;
	return (int)syscall(__NR_bpf, BPF_ITER_CREATE, &attr, sizeof(attr));
}

int owners_bpf_collect(struct owners *o, char *err, size_t errlen)
{
	/* loaded and attached once (the kernel's BTF is parsed then); each read starts a new
	 * iteration of the same link */
	static int link_fd = -1;
	static int load_errno;
	static char load_why[160];
	if (link_fd < 0 && !load_errno) {
		link_fd = load_link(load_why, sizeof(load_why));
		if (link_fd < 0)
			load_errno = errno ? errno : EINVAL;
	}
	if (link_fd < 0) {
		if (load_why[0])
			text_errorf(err, errlen, "BPF iterator did not load: %s", load_why);
		else
			text_errorf(err, errlen, "BPF iterator did not load: %s%s",
				    strerror(load_errno),
				    load_errno == EPERM || load_errno == EACCES
					? " (needs CAP_BPF and CAP_PERFMON)"
					: "");
		return -1;
	}
	int rc = -1, fd = -1;
	struct leader_seen *seen = NULL;
	int nseen = 0, capseen = 0;
	fd = iter_create(link_fd);
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
