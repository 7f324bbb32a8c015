/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf.c: system-wide per-CPU counting with perf_event_open, one group per CPU (or per set). */
#include "encode.h"
#include "family.h"
#include "perfring.h"
#include "procirq.h"
#include "source.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* One perf group on one CPU: a leader and its members. */
struct perf_group {
	int leader_fd;	  /* -1 when the group has no event open */
	int nmembers;	  /* events in the group, leader included */
	int *event_index; /* group position -> mode event index */
	uint64_t *ids;	  /* group position -> PERF_EVENT_IOC_ID */
};

struct perf_row {
	int cpu;
	int pid;	 /* the thread counted (cpu -1), -1: the CPU */
	bool pid_on_cpu; /* the thread counted on cpu only (pid = TID, cpu = N) */
	int cgroup_fd;	 /* the cgroup counted on the CPU (PERF_FLAG_PID_CGROUP), -1: none */
	bool offline;
	bool gone; /* its thread ended: offline for good, never reopened (its id may be reused) */
	uint64_t last; /* a task row's first count at the last read: a row that stood still is
			* checked for its end */
	int ngroups;
	struct perf_group *groups;
	int *fds; /* per event, -1 if not open */
};

/* /proc/stat pseudo-events: per CPU, cumulative ns of a field. */
struct proc_source {
	bool used;
	long hz;		   /* USER_HZ */
	uint64_t t0;		   /* monotonic ns at open: enabled/running start */
	struct procstat_file file; /* /proc/stat, kept open: one pread per tick */
	int ncpu;		   /* CPU numbers 0 .. ncpu-1 are parsed */
	bool *want;		   /* [ncpu]: a row of this CPU counts a proc/ event */
	bool *seen;		   /* [ncpu]: its line was in the last read */
	uint64_t *field;	   /* [ncpu * PROCSTAT_FIELDS] jiffies */
	/* [row * nevents + e]: the field (ENCODE_PROC_*) a proc/ event reads, -1 for any other
	 * event: the encodings' procfs and config, which never change once opened, side by side
	 * (a tick reads these bytes, not a 448-byte encoding per event and row) */
	signed char *slot;
};

static uint64_t monotonic_ns(void);

/* A row's samples drained from its ring and not yet read as ticks: a circular queue. */
struct sample_queue {
	size_t cap, head, len;
	uint64_t *t;		/* [cap] sample time, monotonic ns */
	uint64_t *lost;		/* [cap] samples lost just before this one */
	uint64_t lost_next;	/* samples lost since the newest queued one */
	struct raw_count *c;	/* [cap * nevents] cumulative counts */
	uint64_t last_t;	/* the newest sample queued or read: older ones are dropped */
	uint64_t drained;	/* samples this row's last drain added */
	struct raw_count *last; /* [nevents] the row's counts of the last tick */
	bool *last_present;	/* [nevents] */
	uint64_t last_tick_t;	/* the time of the counts in last (ns) */
	/* the kernel's throttling (PERF_RECORD_THROTTLE .. UNTHROTTLE): episodes in time order not
	 * yet wholly counted; the group counts nothing and writes no sample in one */
	struct thr_ep {
		uint64_t start, end; /* ns; end UINT64_MAX while it lasts */
		bool counted;	     /* counted in throttles[] */
	} * ep;			     /* [cap + 2]: the kernel writes a sample at each THROTTLE */
	size_t nep;
	uint64_t thr_upto; /* throttled time is counted through this time (ns) */
	uint64_t drain_t;  /* when the ring was last drained (ns) */
	size_t upto, next; /* perf_queued: its samples up to the horizon, and those ticked */
	/* the last drain found the ring full: samples may be lost, and the kernel writes their
	 * PERF_RECORD_LOST only before its next sample (a window waits for it, as for lost_next) */
	bool lost_maybe;
};

struct perf_priv {
	bool exec_pending; /* the command waits for its exec: its leaders enable on exec */
	struct proc_source proc;
	struct backend_req req;
	struct backend_event *events;
	int *cpus, *core_type;
	struct perf_row *rows;
	struct event_encoding *enc; /* [row * nevents + e] */
	bool *dropped;		    /* [row * nevents + e]: left out for the open-file limit */
	int cur_set;
	uint64_t *readbuf;
	size_t readbuf_len;
	/* task and cgroup rows (task_times), [row * nevents + e]: the kernel's enabled and running
	 * at the last read, and the running time reported so far (ns) */
	struct task_time {
		uint64_t enabled, running, reported;
		double share; /* the last tick's share that ran (0: none yet) */
	} * tt;
	uint64_t tt_wall; /* ns since open at the last read */
	/* the sampling ring path: a cpu-clock leader per row sampling its group */
	bool ring;
	unsigned ring_pages;
	struct perfring *rings;	    /* [row] */
	struct sample_queue *queue; /* [row] */
	uint64_t *lost;		    /* [row] samples lost before the ticks handed out */
	uint64_t *throttled_ns;	    /* [row] time the kernel throttled the group, through the ticks
				     * handed out (ns) */
	uint64_t *throttles;	    /* [row] throttling episodes begun by the ticks handed out */
	uint64_t due_ns; /* the engine's window end at this drain (backend.due_ns), 0: not known */
};

static const struct {
	int err;
	const char *hint;
} errno_hints[] = {
    {EACCES, "permission denied: per-CPU counting needs kernel.perf_event_paranoid <= 0 (-1 for "
	     "tracepoints), root, or CAP_PERFMON (setcap cap_perfmon+ep pmutop)"},
    {EPERM, "not permitted: an exclude bit this PMU cannot honour, or perf_event_paranoid/LSM "
	    "policy; run as root or with CAP_PERFMON"},
    {ENOENT, "no such event on this PMU (no hardware PMU in /sys/bus/event_source/devices, or "
	     "an event for another core type)"},
    {EOPNOTSUPP, "not supported by this PMU (no sampling or no such feature)"},
    {EINVAL, "invalid configuration: bad event code or config1 mask, exclude bits on a PMU "
	     "that cannot filter, or a group that can never fit the counters"},
    {ENODEV, "the CPU is offline"},
    {EMFILE, "too many open files: raise the limit (ulimit -n) or count fewer events/CPUs"},
    {ENFILE, "the system file table is full"},
    {EBUSY, "the PMU is in exclusive use by another tool"},
    {ENOSPC, "no free counter of the required kind (breakpoints) or read buffer too small"},
    {ENXIO, "an extra MSR this event needs is not accessible (virtual machine?)"},
    {E2BIG, "perf_event_attr size mismatch with this kernel"},
    {ESRCH, "the target task does not exist"},
};

const char *perf_errno_hint(int err)
{
	for (size_t i = 0; i < sizeof(errno_hints) / sizeof(errno_hints[0]); i++)
		if (errno_hints[i].err == err)
			return errno_hints[i].hint;
	return "perf_event_open failed";
}

long backend_raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -1;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	return (long)rl.rlim_cur;
}

long backend_nofile_free(long *limit)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > (rlim_t)LONG_MAX / 2) {
		if (limit)
			*limit = -1;
		return LONG_MAX / 2;
	}
	long cur = (long)rl.rlim_cur, used = 0;
	if (limit)
		*limit = cur;
	/* descriptor numbers below the limit that are taken (the limit bounds numbers, not
	 * counts); the directory's own descriptor is one of them but is closed again */
	DIR *d = opendir("/proc/self/fd");
	if (!d) {
		if (errno == EMFILE || errno == ENFILE)
			return 0;
		for (long fd = 0; fd < cur && fd < 65536; fd++) /* no /proc: ask each number */
			if (fcntl((int)fd, F_GETFD) >= 0)
				used++;
		return cur - used;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		if (end != de->d_name && !*end && fd < cur && fd != dirfd(d))
			used++;
	}
	closedir(d);
	return cur > used ? cur - used : 0;
}

/* A row's events: on its CPU, on its thread wherever it runs, or on its cgroup on its CPU. */
static int sys_perf_event_open(struct perf_event_attr *attr, const struct perf_row *row,
			       int group_fd)
{
	if (row->pid >= 0)
		return (int)syscall(SYS_perf_event_open, attr, row->pid,
				    row->pid_on_cpu ? row->cpu : -1, group_fd,
				    PERF_FLAG_FD_CLOEXEC);
	if (row->cgroup_fd >= 0)
		return (int)syscall(SYS_perf_event_open, attr, row->cgroup_fd, row->cpu, group_fd,
				    PERF_FLAG_FD_CLOEXEC | PERF_FLAG_PID_CGROUP);
	return (int)syscall(SYS_perf_event_open, attr, -1, row->cpu, group_fd,
			    PERF_FLAG_FD_CLOEXEC);
}

static void close_row(struct perf_priv *p, struct perf_row *row)
{
	if (p->ring) {
		int r = (int)(row - p->rows);
		perfring_close(&p->rings[r]);
		p->queue[r].len = 0;
	}
	for (int e = 0; e < p->req.nevents; e++)
		if (row->fds[e] >= 0) {
			close(row->fds[e]);
			row->fds[e] = -1;
		}
	for (int g = 0; g < row->ngroups; g++) {
		row->groups[g].leader_fd = -1;
		row->groups[g].nmembers = 0;
	}
}

/* Whether thread @tid has ended: gone from /proc, or a zombie waiting to be reaped (perf stat
 * checks its -p targets in /proc too). */
static bool task_gone(int tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	const char *rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

/* After a task row's read: a row whose counts stood still and whose thread has ended goes
 * offline from the next read on, as a CPU that went offline (this read keeps its last counts);
 * its descriptors are closed. */
static void check_task_end(struct perf_priv *p, struct perf_row *row, const struct raw_count *o,
			   const bool *pr)
{
	uint64_t v = 0;
	for (int e = 0; e < p->req.nevents; e++)
		if (pr[e]) {
			v = o[e].value + o[e].running;
			break;
		}
	if (v == row->last && task_gone(row->pid)) {
		close_row(p, row);
		row->gone = true;
	}
	row->last = v;
}

/* The group an event belongs to on its row. */
static int group_of(const struct perf_priv *p, int e)
{
	if (p->req.singletons)
		return e;
	if (p->req.nsets <= 1)
		return 0;
	/* set -1: counted in every set, in its own always-enabled group */
	if (p->events[e].set < 0)
		return p->req.nsets;
	if (!p->events[e].also_in)
		return p->events[e].set;
	/* in several sets: a group of its own after the always-enabled one, enabled while one of
	 * its sets is selected */
	int g = p->req.nsets + 1;
	for (int k = 0; k < e; k++)
		g += p->events[k].set >= 0 && p->events[k].also_in != 0;
	return g;
}

/* Groups of a rotated request: one per set, the always-enabled one, one per shared event. */
static int rotation_groups(const struct backend_req *req)
{
	int n = req->nsets + 1;
	for (int e = 0; e < req->nevents; e++)
		n += req->events[e].set >= 0 && req->events[e].also_in != 0;
	return n;
}

/* Whether group @gi counts while the current set is selected. */
static bool group_on(const struct perf_priv *p, const struct perf_group *g, int gi)
{
	if (p->req.nsets <= 1 || p->req.singletons || gi == p->req.nsets)
		return true;
	if (gi < p->req.nsets)
		return gi == p->cur_set;
	return g->nmembers > 0 && backend_event_in_set(&p->events[g->event_index[0]], p->cur_set);
}

static void set_status(struct backend *b, int r, int e, int err, const char *extra)
{
	struct backend_status *st = &b->status[r * b->nevents + e];
	st->supported = err == 0;
	st->err = err;
	if (err)
		snprintf(st->reason, sizeof(st->reason), "%s: %s", strerror(err),
			 extra ? extra : perf_errno_hint(err));
	else
		st->reason[0] = '\0';
}

/* Opens every event of row @r: leaders disabled, members attached, then each group enabled. */
static int open_row(struct backend *b, struct perf_priv *p, int r)
{
	struct perf_row *row = &p->rows[r];
	int opened = 0;
	if (p->ring) {
		/* the sampling leader heads the row's one group: the mode's events are members */
		if (perfring_open(&p->rings[r], row->cpu, p->req.sample_ns, p->ring_pages) < 0) {
			if (errno == ENODEV) {
				row->offline = true;
				return 0;
			}
			for (int e = 0; e < p->req.nevents; e++)
				set_status(b, r, e, errno, "the sampling ring did not open");
			return 0;
		}
		row->groups[0].leader_fd = p->rings[r].fd;
		p->queue[r].len = 0;
		p->queue[r].last_t = monotonic_ns();
		p->queue[r].nep = 0;
		p->queue[r].thr_upto = p->queue[r].last_t;
	}
	for (int e = 0; e < p->req.nevents; e++) {
		struct event_encoding *enc = &p->enc[r * p->req.nevents + e];
		if (!b->status[r * b->nevents + e].encoding[0] ||
		    p->dropped[r * p->req.nevents + e])
			continue; /* did not encode, or no descriptor left for it */
		if (enc->procfs && (row->pid >= 0 || row->cgroup_fd >= 0)) {
			set_status(b, r, e, EOPNOTSUPP,
				   "/proc/stat counts CPUs, not a task or a cgroup");
			continue;
		}
		if (enc->procfs) { /* read from /proc/stat, no perf event */
			p->proc.used = true;
			set_status(b, r, e, 0, NULL);
			/* /proc/stat counts in ticks of 1/USER_HZ s */
			b->status[r * b->nevents + e].quantum_ns =
			    1000000000ULL / (uint64_t)p->proc.hz;
			opened++;
			continue;
		}
		struct perf_group *g = &row->groups[group_of(p, e)];
		struct perf_event_attr attr = enc->attr;
		attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
		/* an inherited group's read loses what exited children counted in its members:
		 * each event is read on its own (read_inherited) */
		bool alone = p->req.inherit && row->pid >= 0;
		attr.disabled = g->leader_fd < 0;
		attr.inherit = alone;
		if (alone) { /* its own leader: an inherited event cannot join a group */
			attr.read_format &= ~(uint64_t)PERF_FORMAT_GROUP;
			attr.disabled = 1;
			/* a command waiting for its exec: counted from the exec on, as perf
			 * stat -- CMD */
			attr.enable_on_exec = p->exec_pending;
		}
		attr.sample_period = 0;
		attr.freq = 0;
		if (p->ring) { /* a group's events share their leader's clock */
			attr.use_clockid = 1;
			attr.clockid = CLOCK_MONOTONIC;
		}
		int fd = sys_perf_event_open(&attr, row, alone ? -1 : g->leader_fd);
		if (fd < 0) {
			int err = errno;
			/* a CPU gone offline, a thread that exited: the row is offline */
			if (err == ENODEV || (err == ESRCH && row->pid >= 0)) {
				close_row(p, row);
				row->offline = true;
				return 0;
			}
			set_status(b, r, e, err, NULL);
			continue;
		}
		uint64_t id = 0;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0) {
			set_status(b, r, e, errno, "PERF_EVENT_IOC_ID failed");
			close(fd);
			continue;
		}
		if (alone && !p->exec_pending)
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		if (g->leader_fd < 0)
			g->leader_fd = fd;
		g->event_index[g->nmembers] = e;
		g->ids[g->nmembers] = id;
		g->nmembers++;
		row->fds[e] = fd;
		set_status(b, r, e, 0, NULL);
		opened++;
	}
	row->offline = false;
	for (int gi = 0; gi < row->ngroups; gi++) {
		struct perf_group *g = &row->groups[gi];
		if (g->leader_fd < 0)
			continue;
		bool on = group_on(p, g, gi);
		ioctl(g->leader_fd, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
		if (on && !(p->req.inherit && p->exec_pending && row->pid >= 0))
			ioctl(g->leader_fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	}
	return opened;
}

/* Whether event @e costs a perf descriptor on row @r (it encoded and is not a /proc/stat one). */
static bool takes_fd(const struct backend *b, const struct perf_priv *p, int r, int e)
{
	int i = r * p->req.nevents + e;
	return b->status[i].encoding[0] && !p->enc[i].procfs;
}

/* Fits the counters under RLIMIT_NOFILE, leaving BACKEND_FD_SPARE descriptors free: events are
 * kept in mode order while each fits on every CPU (all proc/ events share one /proc/stat
 * descriptor); the others are dropped with EMFILE and a reason naming the limit. When not even
 * the first event fits on every CPU, it is kept on the CPUs it fits on. */
static void fit_nofile(struct backend *b, struct perf_priv *p)
{
	int n = p->req.nevents, nc = p->req.ncpus;
	long limit, budget = backend_nofile_free(&limit) - BACKEND_FD_SPARE;
	bool proc_kept = false;
	int kept = 0;
	char why[128];
	snprintf(why, sizeof(why),
		 "not opened: RLIMIT_NOFILE %ld has no room for it (raise it: "
		 "ulimit -n)",
		 limit);
	for (int e = 0; e < n; e++) {
		long cost = 0;
		bool proc = false;
		for (int r = 0; r < nc; r++) {
			cost += takes_fd(b, p, r, e);
			proc |= b->status[r * n + e].encoding[0] && p->enc[r * n + e].procfs;
		}
		cost += proc && !proc_kept;
		if (cost <= budget) {
			budget -= cost;
			proc_kept |= proc;
			kept += cost > 0 || proc;
			continue;
		}
		bool partial = !kept && !proc && budget > 0;
		for (int r = 0; r < nc; r++) {
			if (!b->status[r * n + e].encoding[0])
				continue;
			if (partial && budget > 0 && takes_fd(b, p, r, e)) {
				budget--;
				continue;
			}
			p->dropped[r * n + e] = true;
			set_status(b, r, e, EMFILE, why);
		}
		kept += partial;
	}
}

static void perf_close(struct backend *b)
{
	struct perf_priv *p = b->priv;
	if (!p)
		return;
	for (int r = 0; r < p->req.ncpus; r++) {
		close_row(p, &p->rows[r]);
		for (int g = 0; g < p->rows[r].ngroups; g++) {
			free(p->rows[r].groups[g].event_index);
			free(p->rows[r].groups[g].ids);
		}
		free(p->rows[r].groups);
		free(p->rows[r].fds);
	}
	free(p->rows);
	free(p->tt);
	free(p->enc);
	free(p->dropped);
	free(p->events);
	free(p->cpus);
	free(p->core_type);
	free(p->readbuf);
	if (p->queue)
		for (int r = 0; r < p->req.ncpus; r++) {
			free(p->queue[r].t);
			free(p->queue[r].lost);
			free(p->queue[r].c);
			free(p->queue[r].last);
			free(p->queue[r].last_present);
			free(p->queue[r].ep);
		}
	free(p->queue);
	free(p->rings);
	free(p->lost);
	free(p->throttled_ns);
	free(p->throttles);
	b->lost = NULL;
	b->throttled_ns = b->throttles = NULL;
	b->ring = false;
	procstat_file_close(&p->proc.file);
	free(p->proc.want);
	free(p->proc.seen);
	free(p->proc.field);
	free(p->proc.slot);
	free(p);
	b->priv = NULL;
}

static void add_warning(struct backend *b, const char *text)
{
	if (b->nwarnings < (int)(sizeof(b->warnings) / sizeof(b->warnings[0])))
		snprintf(b->warnings[b->nwarnings++], sizeof(b->warnings[0]), "%s", text);
}

/* Whether --sample takes the ring path: asked for, or (auto) a period under PERFRING_AUTO_NS;
 * only CPU rows whose events count together in one group and none read from /proc/stat can
 * be sampled by a leader (a warning says why not when the ring was asked for). */
static bool ring_wanted(struct backend *b, struct perf_priv *p)
{
	const struct backend_req *req = &p->req;
	if (!req->sample_ns || req->sample_path == PERFRING_READ)
		return false;
	if (req->sample_path == PERFRING_AUTO && req->sample_ns >= PERFRING_AUTO_NS)
		return false;
	const char *why = NULL;
	if (req->pids || req->cgroup_fds)
		why = "it samples CPUs, not tasks or cgroups";
	else if (req->nsets > 1 || req->singletons)
		why = "the mode's events do not count together in one group";
	for (int i = 0; !why && i < req->nevents * req->ncpus; i++)
		if (p->enc[i].procfs && b->status[i].encoding[0])
			why = "the mode reads /proc/stat, which no sample carries";
	if (why && req->sample_path == PERFRING_RING) {
		char w[192];
		snprintf(w, sizeof(w), "--sample-path ring: read() instead: %s", why);
		add_warning(b, w);
	}
	return !why;
}

/* Allocates the rings and queues; a first ring that cannot open (no mmap, no permission)
 * leaves the read() path with a warning. Returns -1 only when out of memory. */
static int ring_setup(struct backend *b, struct perf_priv *p)
{
	int n = p->req.nevents, nc = p->req.ncpus;
	uint64_t drain = p->req.drain_ns ? p->req.drain_ns : 1000000000ULL;
	double per_s = 1e9 / (double)p->req.sample_ns;
	p->ring_pages =
	    perfring_pages(per_s * (double)perfring_record_bytes((unsigned)n + 1), drain);
	struct perfring probe;
	int cpu = -1;
	for (int r = 0; r < nc && cpu < 0; r++)
		cpu = p->rows[r].cpu;
	if (perfring_open(&probe, cpu, p->req.sample_ns, p->ring_pages) < 0) {
		char w[192];
		snprintf(w, sizeof(w), "sampling ring: %s: read() instead", strerror(errno));
		add_warning(b, w);
		return 0;
	}
	perfring_close(&probe);
	p->rings = calloc((size_t)nc, sizeof(*p->rings));
	p->queue = calloc((size_t)nc, sizeof(*p->queue));
	p->lost = calloc((size_t)nc, sizeof(*p->lost));
	p->throttled_ns = calloc((size_t)nc, sizeof(*p->throttled_ns));
	p->throttles = calloc((size_t)nc, sizeof(*p->throttles));
	if (!p->rings || !p->queue || !p->lost || !p->throttled_ns || !p->throttles)
		return -1;
	/* a queue holds what a full ring holds (a drain empties it) */
	long page = sysconf(_SC_PAGESIZE);
	double want = (double)(page > 0 ? page : 4096) * p->ring_pages /
			  (double)perfring_record_bytes((unsigned)n + 1) +
		      64;
	size_t cap = want > 1 << 20 ? 1 << 20 : (size_t)want;
	for (int r = 0; r < nc; r++) {
		struct sample_queue *q = &p->queue[r];
		p->rings[r].fd = -1;
		q->cap = cap;
		q->t = calloc(cap, sizeof(*q->t));
		q->lost = calloc(cap, sizeof(*q->lost));
		q->c = calloc(cap * (size_t)(n ? n : 1), sizeof(*q->c));
		q->last = calloc((size_t)(n ? n : 1), sizeof(*q->last));
		q->last_present = calloc((size_t)(n ? n : 1), sizeof(bool));
		q->ep = calloc(cap + 2, sizeof(*q->ep));
		if (!q->t || !q->lost || !q->c || !q->last || !q->last_present || !q->ep)
			return -1;
	}
	/* a read() of a group carries the leader too */
	free(p->readbuf);
	p->readbuf_len = 3 + 2 * ((size_t)n + 1);
	p->readbuf = calloc(p->readbuf_len, sizeof(uint64_t));
	if (!p->readbuf)
		return -1;
	p->ring = true;
	b->ring = true;
	b->lost = p->lost;
	b->throttled_ns = p->throttled_ns;
	b->throttles = p->throttles;
	/* a ring capped at 1024 pages may fill before a refresh: drained a quarter full */
	double fill_s = (double)(page > 0 ? page : 4096) * p->ring_pages /
			(per_s * (double)perfring_record_bytes((unsigned)n + 1));
	b->drain_ns = (uint64_t)(fill_s / 4 * 1e9);
	return 0;
}

/* A drain this long (ns) after a time sees every record the kernel wrote before it: it publishes
 * a record (data_head) right after writing it, in the same interrupt. The loop's drain at a
 * window's end comes 40 to 70 us after it here: a bound of half a period (50 us at 10 kHz) made
 * the window wait for the next drain, a quarter of a refresh later. */
#define PERFRING_VISIBLE_NS 20000ULL

struct drain_ctx {
	struct perf_priv *p;
	int row;
};

/* The next free entry of a row's queue, carrying the samples lost just before it; a full queue
 * drops its oldest, counted lost with the next one (whose cumulative counts hold its own). */
static size_t queue_push(struct sample_queue *q)
{
	if (q->len == q->cap) {
		size_t next = (q->head + 1) % q->cap;
		if (q->len > 1)
			q->lost[next] += q->lost[q->head] + 1;
		else
			q->lost_next += q->lost[q->head] + 1;
		q->head = next;
		q->len--;
	}
	size_t i = (q->head + q->len) % q->cap;
	q->lost[i] = q->lost_next;
	q->lost_next = 0;
	q->len++;
	q->drained++;
	return i;
}

/* Whether the row's group was throttled at @t: an episode begun by then and not ended. */
static bool thr_at(const struct sample_queue *q, uint64_t t)
{
	for (size_t i = 0; i < q->nep; i++)
		if (q->ep[i].start <= t && q->ep[i].end > t)
			return true;
	return false;
}

/* A throttled group stays scheduled: @dt ns later its value is the same and its times went on,
 * as a read() would say, so a tick counts a value of none over that time. Running goes on only in
 * a group that always ran (one multiplexed may not run then: a tick it did not count). */
static void times_on(struct raw_count *c, int n, uint64_t dt)
{
	for (int e = 0; e < n; e++) {
		if (!c[e].enabled)
			continue;
		if (c[e].running >= c[e].enabled)
			c[e].running += dt;
		c[e].enabled += dt;
	}
}

/* Queues counts @c (@pr: present) of the row at @t, its newest. */
static void queue_counts(struct perf_priv *p, struct sample_queue *q, const struct raw_count *c,
			 const bool *pr, uint64_t t)
{
	int n = p->req.nevents;
	size_t i = queue_push(q);
	struct raw_count *to = &q->c[i * (size_t)n];
	for (int e = 0; e < n; e++)
		to[e] = pr[e] ? c[e] : (struct raw_count){0, 0, 0};
	q->t[i] = t;
	q->last_t = t;
}

/*
 * The window's end on a throttled row. The kernel throttled the row's group at the engine's
 * window end (backend.due_ns) and the row's newest sample is older than half a period before
 * it: once @now is @after past the end, a queue entry at the end repeats its newest counts. A
 * throttled group counts nothing, so these are its counts at the end: the window closes on time
 * while every CPU is throttled, its throttled time counted up to the end. Not after lost samples
 * (only the next sample holds what they counted): that window waits for it.
 */
static void thr_boundary(struct perf_priv *p, int r, uint64_t now, uint64_t after)
{
	struct sample_queue *q = &p->queue[r];
	uint64_t due = p->due_ns, half = p->req.sample_ns / 2;
	if (!due || q->last_t + half >= due || now < due + after || q->lost_next || q->lost_maybe ||
	    !thr_at(q, due))
		return;
	int n = p->req.nevents;
	struct raw_count c[n ? n : 1];
	bool pr[n ? n : 1];
	uint64_t t;   /* the time of those counts */
	if (q->len) { /* its newest queued sample */
		size_t tail = (q->head + q->len - 1) % q->cap;
		memcpy(c, &q->c[tail * (size_t)n], (size_t)n * sizeof(*c));
		memset(pr, 1, sizeof(pr));
		t = q->t[tail];
	} else { /* the last tick took it */
		memcpy(c, q->last, (size_t)n * sizeof(*c));
		memcpy(pr, q->last_present, (size_t)n * sizeof(*pr));
		t = q->last_tick_t;
	}
	times_on(c, n, due > t ? due - t : 0);
	queue_counts(p, q, c, pr, due);
}

static void on_sample(void *ctx, const struct perfring_sample *smp)
{
	struct drain_ctx *d = ctx;
	struct perf_priv *p = d->p;
	struct sample_queue *q = &p->queue[d->row];
	if (smp->time_ns <= q->last_t)
		return; /* taken before the read the ticks go on from */
	/* the kernel writes a LOST record before the first sample after a full ring */
	q->lost_maybe = false;
	/* an episode over the window's end ended since; a sample within half a period of the end
	 * is the window's last itself */
	thr_boundary(p, d->row, smp->time_ns, p->req.sample_ns / 2);
	const struct perf_group *g = &p->rows[d->row].groups[0];
	int n = p->req.nevents;
	size_t i = queue_push(q);
	struct raw_count *c = &q->c[i * (size_t)n];
	for (int e = 0; e < n; e++)
		c[e] = (struct raw_count){0, 0, 0};
	for (uint32_t k = 0; k < smp->nr; k++)
		for (int m = 0; m < g->nmembers; m++)
			if (g->ids[m] == smp->vals[2 * k + 1])
				c[g->event_index[m]] = (struct raw_count){
				    smp->vals[2 * k], smp->enabled, smp->running};
	q->t[i] = smp->time_ns;
	q->last_t = smp->time_ns;
}

/* Samples the kernel could not write (the ring was full): counted with the row's next sample,
 * which still holds every count (they are cumulative). The tick that takes it spans the gap: its
 * interval is long, its totals exact, and its lost count is the gap's. */
static void on_lost(void *ctx, uint64_t lost)
{
	struct drain_ctx *d = ctx;
	d->p->queue[d->row].lost_next += lost;
}

/* A THROTTLE opens an episode, an UNTHROTTLE closes it; an UNTHROTTLE alone (its THROTTLE came
 * before the ticks began) closes one open since the last tick counted. */
static void on_throttle(void *ctx, uint64_t t, bool on)
{
	struct drain_ctx *d = ctx;
	struct sample_queue *q = &d->p->queue[d->row];
	struct thr_ep *last = q->nep ? &q->ep[q->nep - 1] : NULL;
	if (on) {
		if (last && last->end == UINT64_MAX)
			return;
		if (q->nep == q->cap + 2) /* full (never: a sample follows each): it lasts on */
			last->end = UINT64_MAX;
		else
			q->ep[q->nep++] = (struct thr_ep){t, UINT64_MAX, false};
	} else if (last && last->end == UINT64_MAX) {
		last->end = t > last->start ? t : last->start;
	} else if (q->nep < q->cap + 2 && t > q->thr_upto) {
		q->ep[q->nep++] = (struct thr_ep){q->thr_upto, t, false};
	}
}

/* Whether the row's group is throttled now (an episode without its end yet). */
static bool thr_open(const struct sample_queue *q)
{
	return q->nep && q->ep[q->nep - 1].end == UINT64_MAX;
}

/* Throttled ns of the row between @a and @b (an open episode lasts to @b). */
static uint64_t thr_overlap(const struct sample_queue *q, uint64_t a, uint64_t b)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < q->nep; i++) {
		uint64_t s = q->ep[i].start > a ? q->ep[i].start : a;
		uint64_t e = q->ep[i].end < b ? q->ep[i].end : b;
		if (e > s)
			sum += e - s;
	}
	return sum;
}

/* Counts the row's throttling through its tick at @t: the time throttled since the last tick
 * (an episode still open counts up to @t) and the episodes begun; drops episodes ended. */
static void thr_account(struct perf_priv *p, int r, uint64_t t)
{
	struct sample_queue *q = &p->queue[r];
	if (t > q->thr_upto) {
		p->throttled_ns[r] += thr_overlap(q, q->thr_upto, t);
		q->thr_upto = t;
	}
	size_t k = 0;
	for (size_t i = 0; i < q->nep; i++) {
		struct thr_ep *e = &q->ep[i];
		if (!e->counted && e->start <= q->thr_upto) {
			e->counted = true;
			p->throttles[r]++;
		}
		if (!(e->counted && e->end <= q->thr_upto))
			q->ep[k++] = *e;
	}
	q->nep = k;
}

static int read_group(struct perf_priv *p, struct perf_group *g, struct raw_count *out,
		      bool *present);

/* Drains every row's ring; returns the ticks ready: the fewest samples queued on a row that
 * counts. A row whose ring stays empty while others fill is checked: a CPU gone offline. */
static int perf_queued(struct backend *b)
{
	struct perf_priv *p = b->priv;
	if (!p->ring)
		return -1;
	static const struct perfring_cb cb = {on_sample, on_lost, on_throttle};
	size_t most = 0;
	int n = p->req.nevents;
	p->due_ns = b->due_ns;
	/* a row silent since before the window's end, not throttled (its timer fired late: a
	 * virtual CPU that did not run) is waited for this long past the end, then read() */
	uint64_t wait = 4 * p->req.sample_ns > 1000000 ? 4 * p->req.sample_ns : 1000000;
	for (int r = 0; r < p->req.ncpus; r++) {
		struct drain_ctx d = {p, r};
		struct sample_queue *q = &p->queue[r];
		struct perf_row *row = &p->rows[r];
		q->drained = 0;
		q->drain_t = monotonic_ns();
		/* the kernel keeps a byte free: it cannot write a record into the last one's room
		 */
		if (!row->offline && p->rings[r].fd >= 0 &&
		    perfring_drain(&p->rings[r], &cb, &d) +
			    perfring_record_bytes((unsigned)n + 1) >=
			p->rings[r].data_size)
			q->lost_maybe = true;
		/* throttled still: the kernel makes a record visible (data_head) well within
		 * PERFRING_VISIBLE_NS of writing it, so an UNTHROTTLE before the end is seen */
		thr_boundary(p, r, q->drain_t, PERFRING_VISIBLE_NS);
		if (p->due_ns && !row->offline && row->groups[0].leader_fd >= 0 && !thr_open(q) &&
		    !q->lost_next && !q->lost_maybe &&
		    q->last_t + p->req.sample_ns / 2 < p->due_ns &&
		    q->drain_t >= p->due_ns + wait) {
			/* as the read path: its counts now, spread back to the end by a tick. Timed
			 * when the read is back: the CPU may write a sample while the read waits
			 * for it (a late timer of a virtual CPU woken by the read); that sample is
			 * older than the read's counts, and is dropped as such (on_sample) instead
			 * of following them with smaller counts */
			struct raw_count c[n ? n : 1];
			bool pr[n ? n : 1];
			memset(pr, 0, sizeof(pr));
			if (read_group(p, &row->groups[0], c, pr) < 0) {
				close_row(p, row);
				row->offline = true;
			} else {
				queue_counts(p, q, c, pr, monotonic_ns());
			}
		}
		if (q->len > most)
			most = q->len;
	}
	size_t ready = SIZE_MAX;
	/* the ticks every row has sampled through: up to the oldest of the rows' newest samples;
	 * a throttled row writes none, and its counts stand still until it ends: it holds the
	 * ticks back only to a period before its drain (a sample in flight) */
	uint64_t horizon = UINT64_MAX, half = p->req.sample_ns / 2;
	for (int r = 0; r < p->req.ncpus; r++) {
		struct sample_queue *q = &p->queue[r];
		q->upto = q->next = 0;
		uint64_t last = q->last_t;
		if (thr_open(q) && q->drain_t > p->req.sample_ns &&
		    q->drain_t - p->req.sample_ns > last)
			last = q->drain_t - p->req.sample_ns;
		if (!p->rows[r].offline && p->rows[r].groups[0].leader_fd >= 0 && last < horizon)
			horizon = last;
	}
	for (int r = 0; r < p->req.ncpus; r++) {
		struct perf_row *row = &p->rows[r];
		if (row->offline) { /* a CPU back online is reopened, its ring with it */
			if (open_row(b, p, r) == 0 && row->offline)
				continue;
			memset(p->queue[r].last_present, 0, (size_t)(n ? n : 1) * sizeof(bool));
		}
		if (row->groups[0].leader_fd < 0)
			continue;
		/* a read() of a throttled group would make the kernel count its throttled time */
		if (p->queue[r].len == 0 && most >= 2 && !thr_open(&p->queue[r])) {
			struct raw_count tmp[n ? n : 1];
			bool pr[n ? n : 1];
			if (read_group(p, &row->groups[0], tmp, pr) < 0) {
				close_row(p, row);
				row->offline = true;
				continue;
			}
		}
		struct sample_queue *q = &p->queue[r];
		if (q->len == 0 && thr_open(q))
			continue;     /* throttled: its ticks repeat its counts */
		size_t upto = q->len; /* samples up to the horizon (the queue is in time order) */
		while (upto && q->t[(q->head + upto - 1) % q->cap] > horizon + half)
			upto--;
		q->upto = upto;
		if (upto < ready)
			ready = upto;
	}
	if (ready == SIZE_MAX)
		return most > 0;
	if (ready == 0) /* a row that counts has no sample yet: the ticks wait for it */
		return 0;
	/* the ticks those samples make: as read_queued() takes them, each every row's samples
	 * within half a period of the earliest one left (a row with few, throttled, is in some) */
	size_t ticks = 0;
	for (;;) {
		uint64_t first = UINT64_MAX;
		for (int r = 0; r < p->req.ncpus; r++) {
			const struct sample_queue *q = &p->queue[r];
			if (q->next < q->upto && q->t[(q->head + q->next) % q->cap] < first)
				first = q->t[(q->head + q->next) % q->cap];
		}
		if (first == UINT64_MAX)
			break;
		for (int r = 0; r < p->req.ncpus; r++) {
			struct sample_queue *q = &p->queue[r];
			while (q->next < q->upto &&
			       q->t[(q->head + q->next) % q->cap] <= first + half)
				q->next++;
		}
		ticks++;
	}
	return ticks > INT_MAX ? INT_MAX : (int)ticks;
}

/*
 * One tick from the queues. Each CPU's timer fires on its own, and a timer that fires late (a
 * virtual CPU that did not run) writes one sample for two periods: ticks follow the samples'
 * times, not their order. The tick is the earliest sample waiting; every row takes its samples
 * up to half a period after it (the last one: counts are cumulative). A row without one there
 * has its counts spread to its next sample. False when no row has a sample.
 * Out of line: only the sampling modes (p->ring) read queued samples.
 */
__attribute__((noinline)) static bool read_queued(struct perf_priv *p, struct raw_count *out,
						  bool *present, bool *offline, uint64_t *t_ns)
{
	int n = p->req.nevents;
	uint64_t first = UINT64_MAX;
	for (int r = 0; r < p->req.ncpus; r++) {
		struct sample_queue *q = &p->queue[r];
		if (!p->rows[r].offline && q->len && q->t[q->head] < first)
			first = q->t[q->head];
	}
	if (first == UINT64_MAX)
		return false;
	uint64_t upto = first + p->req.sample_ns / 2, t = first;
	for (int r = 0; r < p->req.ncpus; r++) {
		struct perf_row *row = &p->rows[r];
		struct sample_queue *q = &p->queue[r];
		struct raw_count *o = out + (size_t)r * n;
		bool *pr = present + (size_t)r * n;
		offline[r] = row->offline;
		if (row->offline || row->groups[0].leader_fd < 0) {
			memset(pr, 0, (size_t)n * sizeof(bool));
			continue;
		}
		long taken = -1;
		while (q->len && q->t[q->head] <= upto) {
			taken = (long)q->head;
			p->lost[r] += q->lost[q->head];
			q->head = (q->head + 1) % q->cap;
			q->len--;
		}
		if (taken < 0) {
			/* no sample in this tick: its timer did not fire (the virtual CPU did not
			 * run) or the kernel throttled it. The counts are spread linearly to the
			 * next sample, as a read() at this time would have seen them; without a
			 * next one a throttled group's times go on; else (lost) they repeat (a
			 * delta of none, not counted). */
			memcpy(o, q->last, (size_t)n * sizeof(*o));
			memcpy(pr, q->last_present, (size_t)n * sizeof(bool));
			size_t h = q->head;
			/* samples lost before its next one, a period away at most: in this tick,
			 * with the other rows' gaps that end here */
			if (q->len && q->lost[h] && q->t[h] <= first + p->req.sample_ns) {
				p->lost[r] += q->lost[h];
				q->lost[h] = 0;
			}
			if (q->len && q->t[h] > q->last_tick_t && first > q->last_tick_t) {
				/* the value by the time the group counted (none while throttled),
				 * its times by the clock (they go on while throttled) */
				uint64_t a = q->last_tick_t;
				uint64_t part = first - a - thr_overlap(q, a, first),
					 span = q->t[h] - a - thr_overlap(q, a, q->t[h]);
				double f = span ? (double)part / (double)span : 0,
				       fw = (double)(first - a) / (double)(q->t[h] - a);
				const struct raw_count *nx = &q->c[h * (size_t)n];
				for (int e = 0; e < n; e++) {
					if (!pr[e] || nx[e].value < o[e].value ||
					    nx[e].enabled < o[e].enabled ||
					    nx[e].running < o[e].running)
						continue;
					o[e].value +=
					    (uint64_t)((double)(nx[e].value - o[e].value) * f);
					o[e].enabled +=
					    (uint64_t)((double)(nx[e].enabled - o[e].enabled) * fw);
					o[e].running +=
					    (uint64_t)((double)(nx[e].running - o[e].running) * fw);
				}
				memcpy(q->last, o, (size_t)n * sizeof(*o));
				q->last_tick_t = first;
			} else if (!q->len && first > q->last_tick_t && thr_at(q, first) &&
				   !q->lost_next && !q->lost_maybe) {
				times_on(o, n, first - q->last_tick_t);
				memcpy(q->last, o, (size_t)n * sizeof(*o));
				q->last_tick_t = first;
			}
			thr_account(p, r, first);
			continue;
		}
		size_t i = (size_t)taken;
		if (q->t[i] > t)
			t = q->t[i];
		const struct raw_count *c = &q->c[i * (size_t)n];
		for (int e = 0; e < n; e++) {
			o[e] = c[e];
			pr[e] = c[e].enabled != 0 || c[e].value != 0;
		}
		memcpy(q->last, o, (size_t)n * sizeof(*o));
		memcpy(q->last_present, pr, (size_t)n * sizeof(bool));
		q->last_tick_t = q->t[i];
		thr_account(p, r, q->t[i]);
	}
	*t_ns = t;
	return true;
}

static int perf_open(struct backend *b, const struct backend_req *req, char *err, size_t errlen)
{
	struct perf_priv *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	b->priv = p;
	p->req = *req;
	p->exec_pending = req->exec_pending && *req->exec_pending;
	int n = req->nevents, nc = req->ncpus;
	p->events = calloc((size_t)n ? (size_t)n : 1, sizeof(*p->events));
	p->cpus = calloc((size_t)nc ? (size_t)nc : 1, sizeof(int));
	p->core_type = calloc((size_t)nc ? (size_t)nc : 1, sizeof(int));
	p->rows = calloc((size_t)nc ? (size_t)nc : 1, sizeof(*p->rows));
	p->enc = calloc((size_t)n * (size_t)nc + 1, sizeof(*p->enc));
	p->dropped = calloc((size_t)n * (size_t)nc + 1, sizeof(*p->dropped));
	b->status = calloc((size_t)n * (size_t)nc + 1, sizeof(*b->status));
	p->readbuf_len = 3 + 2 * (size_t)n;
	p->readbuf = calloc(p->readbuf_len, sizeof(uint64_t));
	if (!p->events || !p->cpus || !p->core_type || !p->rows || !p->enc || !p->dropped ||
	    !b->status || !p->readbuf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(p->events, req->events, (size_t)n * sizeof(*p->events));
	memcpy(p->cpus, req->cpus, (size_t)nc * sizeof(int));
	if (req->core_pmu_type)
		memcpy(p->core_type, req->core_pmu_type, (size_t)nc * sizeof(int));
	p->req.events = p->events;
	p->req.cpus = p->cpus;
	p->req.core_pmu_type = p->core_type;
	b->nrows = nc;
	b->nevents = n;
	b->counter_bits = 64;
	backend_raise_nofile();

	int ngroups = req->singletons ? n : (req->nsets > 1 ? rotation_groups(req) : 1);
	int total_opened = 0;
	p->proc.t0 = monotonic_ns();
	if ((req->pids || req->cgroup_fds) &&
	    !(p->tt = calloc((size_t)nc * (size_t)n + 1, sizeof(*p->tt)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	p->proc.hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
	char first_reason[400] = ""; /* event name: reason */
	for (int r = 0; r < nc; r++) {
		struct perf_row *row = &p->rows[r];
		row->cpu = req->cpus[r];
		row->pid = req->pids ? req->pids[r] : -1;
		row->pid_on_cpu = req->pid_on_cpu;
		row->cgroup_fd = req->cgroup_fds ? req->cgroup_fds[r] : -1;
		row->ngroups = ngroups;
		row->groups = calloc((size_t)ngroups, sizeof(*row->groups));
		row->fds = malloc((size_t)(n ? n : 1) * sizeof(int));
		if (!row->groups || !row->fds) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		for (int e = 0; e < n; e++)
			row->fds[e] = -1;
		for (int g = 0; g < ngroups; g++) {
			row->groups[g].leader_fd = -1;
			row->groups[g].event_index = calloc((size_t)(n ? n : 1), sizeof(int));
			row->groups[g].ids = calloc((size_t)(n ? n : 1), sizeof(uint64_t));
			if (!row->groups[g].event_index || !row->groups[g].ids) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
		}
		const struct pmu_family *fam = req->family;
		struct encode_ctx ctx = {
		    .sysfs_root = req->sysfs_root,
		    .family = fam,
		    .core_pmu_type = p->core_type[r],
		    .filters_priv = fam ? fam->filters_priv : true,
		};
		for (int e = 0; e < n; e++) {
			struct backend_status *st = &b->status[r * n + e];
			char why[160];
			if (event_encode(p->events[e].spec, &ctx, &p->enc[r * n + e], why,
					 sizeof(why)) < 0) {
				st->supported = false;
				st->err = ENOENT;
				snprintf(st->reason, sizeof(st->reason), "%s", why);
				continue;
			}
			encode_format(&p->enc[r * n + e], st->encoding, sizeof(st->encoding));
		}
	}
	fit_nofile(b, p);
	if (ring_wanted(b, p) && ring_setup(b, p) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int r = 0; r < nc; r++) {
		total_opened += open_row(b, p, r);
		for (int e = 0; e < n && !first_reason[0]; e++)
			if (!b->status[r * n + e].supported)
				snprintf(first_reason, sizeof(first_reason), "%s: %s",
					 p->events[e].name, b->status[r * n + e].reason);
	}
	if (p->ring)
		snprintf(b->description, sizeof(b->description),
			 "perf_event, sampling ring every %.6g ms", (double)req->sample_ns / 1e6);
	else
		snprintf(b->description, sizeof(b->description), "perf_event");
	if (total_opened == 0) {
		snprintf(err, errlen, "no event could be counted on any CPU (%s)",
			 first_reason[0] ? first_reason : "no events");
		return -1;
	}
	return 0;
}

/* Fills the proc/NAME/ events of every row from one read of /proc/stat. */
static void read_proc(struct backend *b, struct perf_priv *p, struct raw_count *out, bool *present,
		      const bool *offline, uint64_t now)
{
	b->stat_cpus_key = 0;
	long got = procstat_file_read(&p->proc.file, NULL);
	if (got <= 0)
		return;
	int n = p->req.nevents;
	if (!p->proc.want) { /* the CPUs whose lines are parsed, once */
		for (int r = 0; r < p->req.ncpus; r++)
			if (p->rows[r].cpu + 1 > p->proc.ncpu)
				p->proc.ncpu = p->rows[r].cpu + 1;
		size_t nc = (size_t)p->proc.ncpu + 1;
		p->proc.want = calloc(nc, sizeof(bool));
		p->proc.seen = calloc(nc, sizeof(bool));
		p->proc.field = calloc(nc * PROCSTAT_FIELDS, sizeof(uint64_t));
		p->proc.slot = malloc((size_t)p->req.ncpus * (size_t)n + 1);
		if (!p->proc.want || !p->proc.seen || !p->proc.field || !p->proc.slot) {
			free(p->proc.want), free(p->proc.seen), free(p->proc.field);
			free(p->proc.slot);
			p->proc.want = p->proc.seen = NULL;
			p->proc.field = NULL;
			p->proc.slot = NULL;
			return;
		}
		for (int r = 0; r < p->req.ncpus; r++)
			for (int e = 0; e < n; e++) {
				const struct event_encoding *enc = &p->enc[r * n + e];
				p->proc.slot[r * n + e] = !enc->procfs ? -1
							  : enc->attr.config < 3
							      ? (signed char)enc->attr.config
							      : 0;
				if (enc->procfs)
					p->proc.want[p->rows[r].cpu] = true;
			}
	}
	memset(p->proc.seen, 0, (size_t)p->proc.ncpu * sizeof(bool));
	procirq_stat_parse_keyed(p->proc.file.buf, (size_t)got, p->proc.ncpu, p->proc.want,
				 p->proc.field, p->proc.seen, &b->stat_cpus_key);
	uint64_t ns_per_jiffy = 1000000000ULL / (uint64_t)p->proc.hz;
	for (int r = 0; r < p->req.ncpus; r++) {
		int cpu = p->rows[r].cpu;
		if (offline[r] || !p->proc.seen[cpu])
			continue;
		const uint64_t *v = &p->proc.field[(size_t)cpu * PROCSTAT_FIELDS];
		uint64_t field[3] = {
		    [ENCODE_PROC_BUSY] = v[PROCSTAT_USER] + v[PROCSTAT_NICE] + v[PROCSTAT_SYSTEM] +
					 v[PROCSTAT_IRQ] + v[PROCSTAT_SOFTIRQ] + v[PROCSTAT_STEAL],
		    [ENCODE_PROC_IDLE] = v[PROCSTAT_IDLE] + v[PROCSTAT_IOWAIT],
		    [ENCODE_PROC_IRQ] = v[PROCSTAT_IRQ] + v[PROCSTAT_SOFTIRQ],
		};
		for (int e = 0; e < n; e++) {
			int slot = p->proc.slot[r * n + e];
			if (slot < 0 || !b->status[r * n + e].supported)
				continue;
			uint64_t ns = field[slot] * ns_per_jiffy;
			out[r * n + e] = (struct raw_count){ns, now - p->proc.t0, now - p->proc.t0};
			present[r * n + e] = true;
		}
	}
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Reads one group; returns 0, or -1 if the group was torn apart (CPU went offline). */
static int read_group(struct perf_priv *p, struct perf_group *g, struct raw_count *out,
		      bool *present)
{
	ssize_t want = (ssize_t)((3 + 2 * (size_t)g->nmembers) * sizeof(uint64_t));
	ssize_t got = read(g->leader_fd, p->readbuf, p->readbuf_len * sizeof(uint64_t));
	if (got < (ssize_t)(3 * sizeof(uint64_t)))
		return -1;
	uint64_t nr = p->readbuf[0];
	if (nr < (uint64_t)g->nmembers || got < want)
		return -1; /* members detached: the CPU went offline */
	uint64_t ena = p->readbuf[1], run = p->readbuf[2];
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t value = p->readbuf[3 + 2 * i], id = p->readbuf[4 + 2 * i];
		for (int m = 0; m < g->nmembers; m++)
			if (g->ids[m] == id) {
				int e = g->event_index[m];
				out[e] = (struct raw_count){value, ena, run};
				present[e] = true;
			}
	}
	return 0;
}

/* A task's (or a cgroup's) counter runs only while the task (a task of the cgroup) runs, so its
 * enabled time stops while it sleeps and a tick it slept through would read "not counted". What
 * it stands for is a count of the whole tick: enabled is the time since the counters opened, and
 * running grows each tick by the tick's wall time times the share of it the kernel really
 * counted (running / enabled over the tick: less than 1 when multiplexed), so it never grows
 * more than enabled does. Out of line: only rows of a task or cgroup have them. */
__attribute__((noinline)) static void task_times(struct perf_priv *p, int r, struct raw_count *out,
						 const bool *present, uint64_t wall)
{
	uint64_t dwall = wall > p->tt_wall ? wall - p->tt_wall : 0;
	for (int e = 0; e < p->req.nevents; e++) {
		struct raw_count *c = &out[e];
		struct task_time *t = &p->tt[(size_t)r * (size_t)p->req.nevents + (size_t)e];
		if (!present[e])
			continue;
		uint64_t den = c->enabled > t->enabled ? c->enabled - t->enabled : 0;
		uint64_t drun = c->running > t->running ? c->running - t->running : 0;
		/* a tick the counter did not run at all (a cgroup's event is enabled while another
		 * cgroup runs on the CPU) keeps the last share: its count of 0 stands for the tick
		 */
		/* a thread counted on one CPU runs there only part of its time: its count is what
		 * it did there, never scaled up (its running share is not multiplexing) */
		double share = p->req.pid_on_cpu || !den || drun >= den ? 1.0
			       : drun					? (double)drun / (double)den
			       : t->share > 0				? t->share
									: 1.0;
		t->share = share;
		t->enabled = c->enabled;
		t->running = c->running;
		t->reported += (uint64_t)((double)dwall * share);
		if (t->reported > wall)
			t->reported = wall;
		c->enabled = wall;
		c->running = t->reported;
	}
}

/* A task counted with its children (-- CMD): each event's own read {value, enabled, running}
 * sums the task and its children, live or exited. */
static void read_inherited(struct perf_priv *p, struct perf_row *row, struct raw_count *out,
			   bool *present)
{
	for (int e = 0; e < p->req.nevents; e++) {
		uint64_t v[4]; /* value, enabled, running, id */
		if (row->fds[e] < 0 ||
		    read(row->fds[e], v, sizeof(v)) < (ssize_t)(3 * sizeof(v[0])))
			continue;
		out[e] = (struct raw_count){v[0], v[1], v[2]};
		present[e] = true;
	}
}

static int perf_read(struct backend *b, uint64_t nominal_ns, struct raw_count *out, bool *present,
		     bool *offline, uint64_t *t_ns, char *err, size_t errlen)
{
	(void)nominal_ns;
	(void)err;
	(void)errlen;
	struct perf_priv *p = b->priv;
	int n = p->req.nevents;
	if (p->ring && read_queued(p, out, present, offline, t_ns))
		return 0;
	*t_ns = monotonic_ns();
	if (p->ring) /* a read now (the priming read): older samples are dropped */
		for (int r = 0; r < p->req.ncpus; r++) {
			struct sample_queue *q = &p->queue[r];
			q->len = 0;
			q->last_t = *t_ns;
			/* throttling counts from here: what ended before is dropped */
			q->thr_upto = *t_ns;
			size_t k = 0;
			for (size_t i = 0; i < q->nep; i++)
				if (q->ep[i].end > *t_ns)
					q->ep[k++] = q->ep[i];
			q->nep = k;
		}
	for (int r = 0; r < p->req.ncpus; r++) {
		struct perf_row *row = &p->rows[r];
		struct raw_count *o = out + (size_t)r * n;
		bool *pr = present + (size_t)r * n;
		memset(pr, 0, (size_t)n * sizeof(bool));
		if (row->gone) {
			offline[r] = true;
			continue;
		}
		if (row->offline) {
			/* A CPU that comes back is reopened; its old groups never resume. */
			if (open_row(b, p, r) == 0 && row->offline) {
				offline[r] = true;
				continue;
			}
		}
		offline[r] = false;
		if (p->req.inherit && row->pid >= 0) {
			read_inherited(p, row, o, pr);
			check_task_end(p, row, o, pr);
			continue;
		}
		for (int gi = 0; gi < row->ngroups; gi++) {
			struct perf_group *g = &row->groups[gi];
			if (g->leader_fd < 0)
				continue;
			if (read_group(p, g, o, pr) < 0) {
				close_row(p, row);
				row->offline = true;
				offline[r] = true;
				memset(pr, 0, (size_t)n * sizeof(bool));
				break;
			}
		}
		if (row->pid >= 0 && !offline[r])
			check_task_end(p, row, o, pr);
	}
	uint64_t wall = *t_ns > p->proc.t0 ? *t_ns - p->proc.t0 : 0;
	for (int r = 0; r < p->req.ncpus; r++)
		if (p->rows[r].pid >= 0 || p->rows[r].cgroup_fd >= 0)
			task_times(p, r, out + (size_t)r * n, present + (size_t)r * n, wall);
	p->tt_wall = wall;
	if (p->proc.used)
		read_proc(b, p, out, present, offline, *t_ns);
	/* samples older than these reads are dropped: those the CPUs wrote while a read waited
	 * for them too (their counts are below the read's), so up to the time the reads are back */
	uint64_t back = p->ring ? monotonic_ns() : 0;
	for (int r = 0; p->ring && r < p->req.ncpus;
	     r++) { /* what a tick without samples repeats */
		memcpy(p->queue[r].last, out + (size_t)r * n, (size_t)n * sizeof(*out));
		memcpy(p->queue[r].last_present, present + (size_t)r * n, (size_t)n * sizeof(bool));
		p->queue[r].last_tick_t = *t_ns;
		p->queue[r].last_t = back;
	}
	return 0;
}

static void perf_select_set(struct backend *b, int set)
{
	struct perf_priv *p = b->priv;
	if (p->req.nsets <= 1 || p->req.singletons)
		return;
	p->cur_set = set % p->req.nsets;
	for (int r = 0; r < p->req.ncpus; r++) {
		struct perf_row *row = &p->rows[r];
		for (int gi = 0; gi < row->ngroups; gi++) {
			int fd = row->groups[gi].leader_fd;
			if (fd < 0)
				continue;
			if (gi == p->req.nsets)
				continue; /* the always-counted group */
			ioctl(fd,
			      group_on(p, &row->groups[gi], gi) ? PERF_EVENT_IOC_ENABLE
								: PERF_EVENT_IOC_DISABLE,
			      PERF_IOC_FLAG_GROUP);
		}
	}
}

const struct source_ops source_perf_ops = {
    .name = "perf",
    .caps = SOURCE_CAP_THIS_MACHINE,
    .open = perf_open,
    .read = perf_read,
    .select_set = perf_select_set,
    .close = perf_close,
    .queued = perf_queued,
};
