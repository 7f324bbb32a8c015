/* SPDX-License-Identifier: GPL-2.0-or-later */
/* target.c: what is counted: tasks from /proc (-p, -t, -u), a command run from its exec
 * (-- CMD) or cgroup v2 groups under /sys/fs/cgroup (-G, --for-each-cgroup). */
#include "target.h"
#include "run_options.h"
#include "textutil.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Where cgroups are counted from, as perf finds it: a cgroup v1 hierarchy with the perf_event
 * controller, else the cgroup v2 mount (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid
 * system). */
static char cgroup_root[PATH_MAX] = "/sys/fs/cgroup";
#define CGROUP_ROOT cgroup_root

static void find_cgroup_root(void)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char line[1024], v2[PATH_MAX] = "";
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char dev[256], dir[PATH_MAX], type[64], opts[512];
		if (sscanf(line, "%255s %4095s %63s %511s", dev, dir, type, opts) != 4)
			continue;
		if (strcmp(type, "cgroup") == 0 && strstr(opts, "perf_event")) {
			snprintf(cgroup_root, sizeof(cgroup_root), "%s", dir);
			fclose(f);
			return;
		}
		if (strcmp(type, "cgroup2") == 0 && !v2[0])
			snprintf(v2, sizeof(v2), "%s", dir);
	}
	fclose(f);
	if (v2[0])
		snprintf(cgroup_root, sizeof(cgroup_root), "%s", v2);
}

const char *target_cgroup_root(void)
{
	find_cgroup_root();
	return cgroup_root;
}

static int add_key(struct target *t, enum row_unit kind, long id, const char *label)
{
	struct row_key *k = realloc(t->keys, (size_t)(t->nkeys + 1) * sizeof(*k));
	if (!k)
		return -1;
	t->keys = k;
	k = &t->keys[t->nkeys];
	memset(k, 0, sizeof(*k));
	k->kind = kind;
	k->id = id;
	k->tuple[0] = t->nkeys;
	snprintf(k->label, sizeof(k->label), "%s", label);
	return t->nkeys++;
}

static int add_row(struct target *t, int pid, int cgroup_fd, int cpu, int key)
{
	if (t->nrows >= TARGET_MAX_ROWS)
		return -1;
	t->row_pid[t->nrows] = pid;
	t->row_cgroup[t->nrows] = cgroup_fd;
	t->row_cpu[t->nrows] = cpu;
	t->row_key[t->nrows] = key;
	t->nrows++;
	return 0;
}

/* "comm[pid]" from /proc/PID/comm (escaped), or "[pid]" when it is gone. */
static void task_label(int pid, char *out, size_t len)
{
	char path[64], comm[64] = "", esc[96];
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	FILE *f = fopen(path, "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	text_escape(comm, strlen(comm), esc, sizeof(esc));
	char pidtxt[16];
	int pl = snprintf(pidtxt, sizeof(pidtxt), "[%d]", pid);
	/* the pid always fits: the name is cut first */
	snprintf(out, len, "%.*s%s", (int)(len - 1 > (size_t)pl ? len - 1 - (size_t)pl : 0), esc,
		 pidtxt);
}

/* Parses "1,2,3" into positive ids; -1 with @err naming the bad item. */
static int parse_ids(const char *list, const char *opt, int **out, int *n, char *err, size_t errlen)
{
	*out = NULL;
	*n = 0;
	const char *p = list;
	while (*p) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (errno || end == p || v <= 0 || v > INT_MAX || (*end && *end != ',')) {
			snprintf(err, errlen, "%s: \"%s\" is not a list of ids (e.g. 1234,1240)",
				 opt, list);
			free(*out);
			return -1;
		}
		int *grown = realloc(*out, (size_t)(*n + 1) * sizeof(int));
		if (!grown) {
			free(*out);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		*out = grown;
		(*out)[(*n)++] = (int)v;
		p = *end ? end + 1 : end;
	}
	if (!*n) {
		snprintf(err, errlen, "%s: empty list", opt);
		return -1;
	}
	return 0;
}

/* Every thread of process @pid, summed into one key. Returns the threads added (0: gone). */
static int add_process(struct target *t, int pid)
{
	char path[64], label[ROW_LABEL_MAX];
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	task_label(pid, label, sizeof(label));
	int key = add_key(t, ROWS_TASK, pid, label), added = 0;
	struct dirent *de;
	while (key >= 0 && (de = readdir(d))) {
		int tid = atoi(de->d_name);
		if (tid <= 0)
			continue;
		if (add_row(t, tid, -1, t->nrows, key) < 0) {
			snprintf(t->skipped, sizeof(t->skipped),
				 "more than %d threads: the rest are left out", TARGET_MAX_ROWS);
			break;
		}
		added++;
	}
	closedir(d);
	return added;
}

/* -u USER: a name or a uid. */
static int parse_user(const char *user, uid_t *uid, char *err, size_t errlen)
{
	struct passwd *pw = getpwnam(user);
	if (pw) {
		*uid = pw->pw_uid;
		return 0;
	}
	char *end;
	errno = 0;
	long v = strtol(user, &end, 10);
	if (errno || end == user || *end || v < 0) {
		snprintf(err, errlen, "-u: no user \"%s\"", user);
		return -1;
	}
	*uid = (uid_t)v;
	return 0;
}

/* Every process of @uid (the owner of /proc/PID, as ps and top show it). */
static int add_user(struct target *t, uid_t uid)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	struct dirent *de;
	int n = 0;
	pid_t self = getpid();
	while ((de = readdir(d))) {
		int pid = atoi(de->d_name);
		struct stat st;
		char path[64];
		if (pid <= 0 || pid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%d", pid);
		if (stat(path, &st) < 0 || st.st_uid != uid)
			continue;
		n += add_process(t, pid) > 0;
		if (t->skipped[0])
			break;
	}
	closedir(d);
	return n;
}

/* One cgroup: a key with its path, a row per CPU. */
static int add_cgroup(struct target *t, const char *rel, const int *cpus, int ncpus, char *err,
		      size_t errlen)
{
	char path[PATH_MAX];
	while (*rel == '/')
		rel++;
	snprintf(path, sizeof(path), "%.2000s/%.2000s", CGROUP_ROOT, rel);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "-G %s: %s (a cgroup v2 path under %s)", rel, strerror(errno),
			 CGROUP_ROOT);
		return -1;
	}
	char label[ROW_LABEL_MAX];
	size_t len = strlen(rel);
	/* a long path keeps its end, the part that tells groups apart */
	snprintf(label, sizeof(label), "%s%s", len >= sizeof(label) ? ".." : "",
		 len >= sizeof(label) ? rel + len - (sizeof(label) - 3) : (*rel ? rel : "/"));
	int key = add_key(t, ROWS_CGROUP, t->nkeys, label);
	if (key < 0) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int c = 0; c < ncpus; c++)
		if (add_row(t, -1, fd, cpus[c], key) < 0) {
			snprintf(err, errlen,
				 "-G: %d cgroups on %d CPUs need more than %d counter groups",
				 t->nkeys, ncpus, TARGET_MAX_ROWS);
			if (c == 0)
				close(fd);
			return -1;
		}
	return 0;
}

/* --for-each-cgroup PATTERN: every directory under the cgroup root whose path matches. */
static int walk_cgroups(struct target *t, const regex_t *re, const char *rel, const int *cpus,
			int ncpus, int depth, char *err, size_t errlen)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%.2000s/%.2000s", CGROUP_ROOT, rel);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	struct dirent *de;
	int rc = 0;
	while (rc == 0 && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		char sub[PATH_MAX];
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		if (regexec(re, sub, 0, NULL, 0) == 0)
			rc = add_cgroup(t, sub, cpus, ncpus, err, errlen);
		if (rc == 0 && depth < 16)
			rc = walk_cgroups(t, re, sub, cpus, ncpus, depth + 1, err, errlen);
	}
	closedir(d);
	return rc;
}

/* Forks @argv, waiting on a pipe before its exec. */
static int start_command(struct target *t, char **argv, int argc, char *err, size_t errlen)
{
	int go[2];
	if (pipe2(go, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "-- %s: pipe: %s", argv[0], strerror(errno));
		return -1;
	}
	size_t used = 0;
	for (int i = 0; i < argc && used < sizeof(t->command); i++)
		used += (size_t)snprintf(t->command + used, sizeof(t->command) - used, "%s%s",
					 i ? " " : "", argv[i]);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "-- %s: fork: %s", argv[0], strerror(errno));
		close(go[0]), close(go[1]);
		return -1;
	}
	if (pid == 0) {
		char c;
		close(go[1]);
		/* the parent opens the counters, then writes one byte (or dies: EOF) */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "pmutop: -- %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(go[0]);
	t->child = pid;
	t->go_fd = go[1];
	t->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	t->inherit = true;
	char label[ROW_LABEL_MAX];
	const char *slash = strrchr(argv[0], '/');
	snprintf(label, sizeof(label), "%.24s[%d]", slash ? slash + 1 : argv[0], (int)pid);
	int key = add_key(t, ROWS_TASK, pid, label);
	if (key < 0 || add_row(t, pid, -1, 0, key) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static int alloc_rows(struct target *t)
{
	t->row_pid = calloc(TARGET_MAX_ROWS, sizeof(int));
	t->row_cgroup = calloc(TARGET_MAX_ROWS, sizeof(int));
	t->row_cpu = calloc(TARGET_MAX_ROWS, sizeof(int));
	t->row_key = calloc(TARGET_MAX_ROWS, sizeof(int));
	return t->row_pid && t->row_cgroup && t->row_cpu && t->row_key ? 0 : -1;
}

int target_init(struct target *t, const struct options *o, const char *sysfs_root, const int *cpus,
		int ncpus, char *err, size_t errlen)
{
	(void)sysfs_root;
	memset(t, 0, sizeof(*t));
	t->go_fd = t->pidfd = -1;
	bool tasks = o->pids || o->tids || o->user || o->command;
	bool cgroups = o->cgroups || o->each_cgroup;
	if (!tasks && !cgroups)
		return 0;
	if (cgroups)
		find_cgroup_root();
	if (alloc_rows(t) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->kind = tasks ? TARGET_TASKS : TARGET_CGROUPS;
	int rc = 0;
	if (o->command)
		rc = start_command(t, o->command, o->ncommand, err, errlen);
	/* a process's threads and children that appear later count into it (inherit), as they
	 * do for -- CMD: nothing it starts is lost */
	if (o->pids || o->user)
		t->inherit = true;
	if (rc == 0 && o->pids) {
		int *ids, n;
		rc = parse_ids(o->pids, "-p", &ids, &n, err, errlen);
		for (int i = 0; rc == 0 && i < n; i++)
			if (add_process(t, ids[i]) == 0) {
				snprintf(err, errlen, "-p %d: no such process", ids[i]);
				rc = -1;
			}
		if (n)
			free(ids);
	}
	if (rc == 0 && o->tids) {
		int *ids, n;
		rc = parse_ids(o->tids, "-t", &ids, &n, err, errlen);
		for (int i = 0; rc == 0 && i < n; i++) {
			char path[64], label[ROW_LABEL_MAX];
			snprintf(path, sizeof(path), "/proc/%d/stat", ids[i]);
			if (access(path, F_OK) < 0) {
				snprintf(err, errlen, "-t %d: no such thread", ids[i]);
				rc = -1;
				break;
			}
			task_label(ids[i], label, sizeof(label));
			int key = add_key(t, ROWS_TASK, ids[i], label);
			if (key < 0 || add_row(t, ids[i], -1, t->nrows, key) < 0) {
				snprintf(err, errlen, "-t: too many threads (at most %d)",
					 TARGET_MAX_ROWS);
				rc = -1;
			}
		}
		if (n)
			free(ids);
	}
	if (rc == 0 && o->user) {
		uid_t uid;
		rc = parse_user(o->user, &uid, err, errlen);
		if (rc == 0 && add_user(t, uid) == 0) {
			snprintf(err, errlen, "-u %s: the user has no process", o->user);
			rc = -1;
		}
	}
	if (rc == 0 && o->cgroups) {
		char *copy = strdup(o->cgroups), *save = NULL;
		if (!copy) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
		}
		for (char *g = copy ? strtok_r(copy, ",", &save) : NULL; rc == 0 && g;
		     g = strtok_r(NULL, ",", &save))
			rc = add_cgroup(t, g, cpus, ncpus, err, errlen);
		free(copy);
	}
	if (rc == 0 && o->each_cgroup) {
		regex_t re;
		int bad = regcomp(&re, o->each_cgroup, REG_EXTENDED | REG_NOSUB);
		if (bad) {
			char why[128];
			regerror(bad, &re, why, sizeof(why));
			snprintf(err, errlen, "--for-each-cgroup \"%s\": %s", o->each_cgroup, why);
			rc = -1;
		} else {
			rc = walk_cgroups(t, &re, "", cpus, ncpus, 0, err, errlen);
			regfree(&re);
			if (rc == 0 && !t->nkeys) {
				snprintf(err, errlen,
					 "--for-each-cgroup \"%s\": no cgroup under %s matches",
					 o->each_cgroup, CGROUP_ROOT);
				rc = -1;
			}
		}
	}
	if (rc < 0)
		target_free(t);
	return rc;
}

int target_cgroup_cpus(struct target *t, const int *cpus, int ncpus, char *err, size_t errlen)
{
	if (t->kind != TARGET_CGROUPS || ncpus < 1) {
		snprintf(err, errlen, "cpus: no CPU to count the cgroups on");
		return -1;
	}
	if ((long)t->nkeys * ncpus > TARGET_MAX_ROWS) {
		snprintf(err, errlen,
			 "cpus: %d cgroups on %d CPUs need more than %d counter groups", t->nkeys,
			 ncpus, TARGET_MAX_ROWS);
		return -1;
	}
	int *fd = calloc((size_t)t->nkeys + 1, sizeof(int)); /* each cgroup's directory */
	if (!fd) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int r = 0; r < t->nrows; r++)
		fd[t->row_key[r]] = t->row_cgroup[r];
	t->nrows = 0;
	for (int k = 0; k < t->nkeys; k++) /* a cgroup's rows together (target_free closes once) */
		for (int c = 0; c < ncpus; c++)
			add_row(t, -1, fd[k], cpus[c], k);
	free(fd);
	return t->nrows;
}

int target_sim(struct target *t, int ntasks, int pid0, char *err, size_t errlen)
{
	/* names a busy machine's tasks have */
	static const char *const comm[] = {"postgres", "nginx", "java", "cc1",	  "python3",
					   "redis",    "ld",	"node", "ffmpeg", "sshd"};
	memset(t, 0, sizeof(*t));
	t->go_fd = t->pidfd = -1;
	if (alloc_rows(t) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->kind = TARGET_TASKS;
	for (int k = 0; k < ntasks; k++) {
		char label[ROW_LABEL_MAX];
		int pid = pid0 + k;
		snprintf(label, sizeof(label), "%s[%d]",
			 comm[k % (int)(sizeof(comm) / sizeof(*comm))], pid);
		int key = add_key(t, ROWS_TASK, pid, label);
		if (key < 0 || add_row(t, pid, -1, t->nrows, key) < 0) {
			snprintf(err, errlen, "--sim-tasks: at most %d tasks", TARGET_MAX_ROWS);
			target_free(t);
			return -1;
		}
	}
	return 0;
}

void target_release(struct target *t)
{
	if (t->go_fd < 0)
		return;
	ssize_t w = write(t->go_fd, "g", 1);
	(void)w;
	close(t->go_fd);
	t->go_fd = -1;
}

bool target_reap(struct target *t)
{
	if (!t->child || t->child_ended)
		return t->child_ended;
	int status;
	if (waitpid(t->child, &status, WNOHANG) == t->child) {
		t->child_ended = true;
		t->child_status = status;
	}
	return t->child_ended;
}

int target_exit_status(const struct target *t)
{
	if (!t->child_ended)
		return 1;
	if (WIFEXITED(t->child_status))
		return WEXITSTATUS(t->child_status);
	if (WIFSIGNALED(t->child_status))
		return 128 + WTERMSIG(t->child_status);
	return 1;
}

long target_fds_needed(const struct target *t, int nevents) { return (long)t->nrows * nevents; }

void target_free(struct target *t)
{
	if (t->go_fd >= 0) { /* never released: the child reads EOF and exits 127 */
		close(t->go_fd);
		t->go_fd = -1;
	}
	if (t->child && !t->child_ended) {
		if (!target_reap(t)) {
			kill(t->child, SIGTERM);
			int status;
			if (waitpid(t->child, &status, 0) == t->child) {
				t->child_ended = true;
				t->child_status = status;
			}
		}
	}
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->pidfd = -1;
	int last = -1;
	for (int r = 0; t->row_cgroup && r < t->nrows; r++)
		if (t->row_cgroup[r] >= 0 && t->row_cgroup[r] != last) {
			last = t->row_cgroup[r];
			close(last);
		}
	free(t->row_pid), free(t->row_cgroup), free(t->row_cpu), free(t->row_key);
	free(t->row_ncpus);
	free(t->keys);
	t->row_pid = t->row_cgroup = t->row_cpu = t->row_key = NULL;
	t->keys = NULL;
	t->nrows = t->nkeys = 0;
}
