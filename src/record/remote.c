/* SPDX-License-Identifier: GPL-2.0-or-later */
/* remote.c: the remote client (agent over a transport command, reconnects) and agent controls. */
#include "remote.h"
#include "cpuset.h"
#include "frame.h"
#include "jsonbound.h"
#include "loop.h"
#include "mode.h"
#include "observer.h"
#include "recfile.h"
#include "replay.h"
#include "run_options.h"
#include "textutil.h"
#include "words.h"
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BACKOFF_MIN_MS 1000
#define BACKOFF_MAX_MS 30000
#define OPEN_TIMEOUT_MS 20000
#define MAX_LINE (64u << 20)

struct remote {
	char host[256];
	struct replay *replay; /* the recording the stream feeds (the source's instance) */
	char last_error[512];  /* the agent's last stderr line */
	pid_t pid;
	int to_fd, out_fd, err_fd; /* agent stdin, stdout, stderr; -1 when closed */
	char *buf;		   /* partial stdout line */
	size_t len, cap;
	char ebuf[1024]; /* partial stderr line */
	size_t elen;
	char *header_line, *mode_line;
	char *cpus_line; /* this stream's last CPU set change (read between header and mode) */
	int memfd;
	bool watched;
	bool have_header; /* of this connection */
	int mode_index;	  /* replay mode index of this stream's last mode, -1 none */
	double t_offset;  /* s added to this stream's times */
	double last_t;	  /* s, last tick appended */
	unsigned backoff_ms;
	uint64_t retry_at_ns; /* 0: connected or connecting */
	int connections;
	int failures;	   /* reconnect attempts since the last tick */
	bool gave_up;	   /* --reconnect attempts used up */
	time_t lost_since; /* wall clock of the link loss (0: connected) */
	bool gap_pending;  /* the next tick after a reconnect gets a mark saying so */
	double lost_t;	   /* s, the last tick before the link was lost */
	uint64_t lost_ns;  /* loop clock when it was lost */
	char state[200];
};

#define RM(app) ((struct remote *)app_observer_state((app), "remote"))

/* The run as the engine has it now (observer.h). */
static struct run_facts facts(const struct app_ctx *app)
{
	struct run_facts f;
	app_facts(app, &f);
	return f;
}

static void set_state(struct remote *rm, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define RECONNECT_BATCH 5 /* --reconnect default in batch mode */

/* The reconnect attempts allowed (-1: forever). */
static int reconnect_limit(const struct app_ctx *app)
{
	const struct options *opt = facts(app).opt;
	int n = opt->reconnect;
	if (n == OPTIONS_RECONNECT_DEFAULT)
		return opt->batch ? RECONNECT_BATCH : OPTIONS_RECONNECT_FOREVER;
	return n;
}

/* One more failed attempt: false, with the run ended and the reason logged, when they are used
 * up. */
static bool may_retry(struct app_ctx *app, const char *why)
{
	struct remote *rm = RM(app);
	int limit = reconnect_limit(app);
	if (limit < 0 || rm->failures++ < limit)
		return true;
	rm->gave_up = true;
	rm->retry_at_ns = 0;
	app_log(app, MSG_ERROR, "%s: gave up after %d reconnect attempt%s (--reconnect %d): %s",
		rm->host, limit, limit == 1 ? "" : "s", limit, why);
	set_state(rm, "DISCONNECTED: gave up after %d attempts", limit);
	app_quit(app);
	return false;
}

static void set_state(struct remote *rm, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rm->state, sizeof(rm->state), fmt, ap);
	va_end(ap);
}

/* ---- what goes to the board: checked, and quoted for its shell ---- */

/* Characters no POSIX shell treats specially: a word of only these is passed as it is. */
static const char shell_plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "0123456789_@%+=:,./-";

/*
 * @s as one word of the remote shell's command line: the transport (like ssh) joins the words
 * after the host with spaces and gives the line to the board's shell, so each word is quoted:
 * as it is when it is plain, else in single quotes with each ' written '\''. Malloc'd.
 */
static char *shell_word(const char *s)
{
	size_t n = strlen(s), quotes = 0;
	if (n && strspn(s, shell_plain) == n)
		return strdup(s);
	for (const char *p = s; *p; p++)
		quotes += *p == '\'';
	char *w = malloc(n + 3 * quotes + 3), *o = w;
	if (!w)
		return NULL;
	*o++ = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return w;
}

/* The host as the transport gets it: not empty, no option ("-oProxyCommand=..." would be one
 * even after "--" for some transports), no blank or control character. */
static int check_host(const char *host, char *err, size_t errlen)
{
	char e[200];
	text_escape(host, TEXT_NUL_TERMINATED, e, sizeof(e));
	if (!*host || *host == '-' || strpbrk(host, " \t\n") ||
	    !text_is_safe(host, strlen(host), 0)) {
		snprintf(err, errlen,
			 "--remote \"%s\": a host is [USER@]HOST, and must not start with '-' or "
			 "hold blanks or control characters",
			 e);
		return -1;
	}
	return 0;
}

/* A mode name or a CPU list for the agent (-m, -C, "mode", "cpus"): checked before it is sent. */
static int check_mode_name(const char *mode, char *err, size_t errlen)
{
	if (mode_name_valid(mode))
		return 0;
	char e[200];
	text_escape(mode, TEXT_NUL_TERMINATED, e, sizeof(e));
	snprintf(err, errlen, "bad mode name \"%s\" for the agent (" MODE_NAME_RULE ")", e);
	return -1;
}

static int check_cpu_list(const char *cpus, bool all_ok, char *err, size_t errlen)
{
	struct cpuset set;
	char why[160], e[200];
	if (all_ok && strcmp(cpus, "all") == 0)
		return 0;
	if (*cpus && strspn(cpus, "0123456789,-") == strlen(cpus) &&
	    cpuset_parse(&set, cpus, why, sizeof(why)) == 0)
		return 0;
	text_escape(cpus, TEXT_NUL_TERMINATED, e, sizeof(e));
	snprintf(err, errlen, "bad CPU list \"%s\" for the agent (e.g. 0-3,8%s)", e,
		 all_ok ? " or all" : "");
	return -1;
}

/* What the agent is started with: the host, the mode (@mode, or NULL) and -C. */
static int check_start(const struct app_ctx *app, const char *mode, char *err, size_t errlen)
{
	if (check_host(RM(app)->host, err, errlen) < 0 ||
	    (mode && check_mode_name(mode, err, errlen) < 0) ||
	    (facts(app).opt->cpus && check_cpu_list(facts(app).opt->cpus, false, err, errlen) < 0))
		return -1;
	return 0;
}

/* argv of "TRANSPORT -- HOST AGENT -b -r - ..." (malloc'd words; those after the host quoted for
 * the remote shell). */
static int build_argv(struct app_ctx *app, char ***out, char *err, size_t errlen)
{
	int tc, ac;
	char **tv, **av;
	const char *mode = facts(app).mode_name[0] ? facts(app).mode_name : facts(app).opt->mode;
	if (check_start(app, mode, err, errlen) < 0)
		return -1;
	if (words_argv(facts(app).opt->transport, &tc, &tv, err, errlen) < 0)
		return -1;
	/* The default agent: pmutop-agent where the board has it, else pmutop. These words are
	 * ours (no user text), so they go to the remote shell unquoted. */
	static const char default_agent[] =
	    "exec \"$(command -v pmutop-agent || command -v pmutop || echo pmutop-agent)\"";
	bool given = facts(app).opt->agent != NULL;
	if (given ? words_argv(facts(app).opt->agent, &ac, &av, err, errlen) < 0
		  : words_argv("-", &ac, &av, err, errlen) < 0) { /* one word, replaced below */
		words_argv_free(tc, tv);
		return -1;
	}
	if (tc == 0 || ac == 0) {
		snprintf(err, errlen, "--transport and --agent must not be empty");
		words_argv_free(tc, tv);
		words_argv_free(ac, av);
		return -1;
	}
	/* the agent ticks at the sample cadence (--sample): this side sums its ticks into the
	 * interval's windows, as it sums its own samples */
	long tick = facts(app).interval_ms, sample = facts(app).opt->sample_ms;
	char ms[32];
	snprintf(ms, sizeof(ms), "%ld", sample > 0 && sample < tick ? sample : tick);
	/* the agent is run by these arguments and its control lines, not by an rc file there */
	const char *fixed[] = {"-b", "-r", "-", "--no-rc", "-i", ms, NULL, NULL, NULL, NULL};
	int nf = 6;
	if (mode) {
		fixed[nf++] = "-m";
		fixed[nf++] = mode;
	}
	if (facts(app).opt->cpus) {
		fixed[nf++] = "-C";
		fixed[nf++] = facts(app).opt->cpus;
	}
	char **v = calloc((size_t)(tc + ac + nf + 3), sizeof(char *));
	if (!v) {
		snprintf(err, errlen, "out of memory");
		words_argv_free(tc, tv);
		words_argv_free(ac, av);
		return -1;
	}
	int n = 0;
	bool oom = false;
	for (int i = 0; i < tc; i++)
		v[n++] = tv[i];
	v[n++] = strdup("--"); /* the host is never an option of the transport */
	v[n++] = strdup(RM(app)->host);
	for (int i = 0; i < ac; i++) {
		oom |= !(v[n++] = given ? shell_word(av[i]) : strdup(default_agent));
		free(av[i]);
	}
	for (int i = 0; i < nf; i++)
		oom |= !(v[n++] = shell_word(fixed[i]));
	free(tv);
	free(av);
	for (int i = 0; i < n; i++)
		oom |= !v[i];
	if (oom) {
		snprintf(err, errlen, "out of memory");
		for (int i = 0; i < n; i++)
			free(v[i]);
		free(v);
		return -1;
	}
	*out = v;
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int spawn(struct app_ctx *app, char *err, size_t errlen)
{
	struct remote *rm = RM(app);
	char **argv;
	if (build_argv(app, &argv, err, errlen) < 0)
		return -1;
	int in[2] = {-1, -1}, out[2] = {-1, -1}, er[2] = {-1, -1};
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(er, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		for (int i = 0; i < 2; i++)
			close_fd(&in[i]), close_fd(&out[i]), close_fd(&er[i]);
		words_argv_free(-1, argv);
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		setpgid(0, 0); /* one group: the client ends the transport and what it started */
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(er[1], 2);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	int e = errno;
	words_argv_free(-1, argv);
	close(in[0]);
	close(out[1]);
	close(er[1]);
	if (pid < 0) {
		close(in[1]), close(out[0]), close(er[0]);
		snprintf(err, errlen, "fork: %s", strerror(e));
		return -1;
	}
	rm->pid = pid;
	rm->to_fd = in[1];
	rm->out_fd = out[0];
	rm->err_fd = er[0];
	fcntl(rm->out_fd, F_SETFL, O_NONBLOCK);
	fcntl(rm->err_fd, F_SETFL, O_NONBLOCK);
	fcntl(rm->to_fd, F_SETFL, O_NONBLOCK);
	rm->len = rm->elen = 0;
	rm->have_header = false;
	rm->watched = false;
	rm->retry_at_ns = 0;
	rm->connections++;
	if (rm->lost_since) { /* the values stay stale until the first tick */
		char since[32];
		struct tm tm;
		strftime(since, sizeof(since), "%H:%M:%S", localtime_r(&rm->lost_since, &tm));
		set_state(rm, "DISCONNECTED since %s (values are stale): reconnecting", since);
	} else
		set_state(rm, "connecting to %s", rm->host);
	remote_app_attach(app);
	return 0;
}

/* Ends the agent (its group), reaps it and describes how it ended. */
static void reap(struct remote *rm, char *how, size_t len)
{
	snprintf(how, len, "agent ended");
	if (rm->pid <= 0)
		return;
	int status = 0;
	pid_t w = waitpid(rm->pid, &status, WNOHANG);
	if (w == 0) {
		kill(-rm->pid, SIGTERM);
		kill(rm->pid, SIGTERM);
		for (int i = 0; i < 50 && (w = waitpid(rm->pid, &status, WNOHANG)) == 0; i++)
			usleep(10000);
		if (w == 0) {
			kill(-rm->pid, SIGKILL);
			kill(rm->pid, SIGKILL);
			w = waitpid(rm->pid, &status, 0);
		}
	}
	if (w == rm->pid && WIFEXITED(status))
		snprintf(how, len, "agent exited with status %d", WEXITSTATUS(status));
	else if (w == rm->pid && WIFSIGNALED(status))
		snprintf(how, len, "agent killed by signal %d", WTERMSIG(status));
	rm->pid = -1;
}

static void disconnect(struct app_ctx *app, char *how, size_t len)
{
	struct remote *rm = RM(app);
	struct loop *loop = facts(app).loop;
	if (loop) {
		if (rm->out_fd >= 0)
			loop_unwatch(loop, rm->out_fd);
		if (rm->err_fd >= 0)
			loop_unwatch(loop, rm->err_fd);
	}
	close_fd(&rm->to_fd);
	close_fd(&rm->out_fd);
	close_fd(&rm->err_fd);
	reap(rm, how, len);
}

static void link_lost(struct app_ctx *app, const char *why)
{
	struct remote *rm = RM(app);
	char how[128];
	disconnect(app, how, sizeof(how));
	if (!rm->lost_since) {
		rm->lost_since = time(NULL);
		rm->lost_t = rm->last_t;
		rm->lost_ns = loop_now_ns();
		rm->gap_pending = true;
	}
	char reason[300];
	snprintf(reason, sizeof(reason), "link lost (%s, %s)", why, how);
	if (!may_retry(app, reason))
		return;
	rm->retry_at_ns = loop_now_ns() + (uint64_t)rm->backoff_ms * 1000000ULL;
	app_log(app, MSG_ERROR, "link to %s lost (%s, %s); history kept, reconnecting in %u s",
		rm->host, why, how, rm->backoff_ms / 1000);
	char since[32];
	struct tm tm;
	strftime(since, sizeof(since), "%H:%M:%S", localtime_r(&rm->lost_since, &tm));
	set_state(rm, "DISCONNECTED since %s (values are stale): reconnecting in %u s", since,
		  rm->backoff_ms / 1000);
	rm->backoff_ms = rm->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : rm->backoff_ms * 2;
	/* no tick comes while the link is down: the screen gets the last tick's numbers again,
	 * marked stale, with the link's state (batch output prints only new ticks) */
	app_frame_again(app);
}

/* Parses @line in the context of this stream's header and mode into @rec (a memfd holds the
 * three lines, so the recording reader checks it as it would a file). */
static int parse(struct remote *rm, const char *line, size_t len, bool with_mode,
		 struct rec_record *rec, char *err, size_t errlen)
{
	if (rm->memfd < 0 && (rm->memfd = memfd_create("pmutop-remote", MFD_CLOEXEC)) < 0) {
		snprintf(err, errlen, "memfd_create: %s", strerror(errno));
		return -1;
	}
	if (ftruncate(rm->memfd, 0) < 0 || lseek(rm->memfd, 0, SEEK_SET) < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	const char *parts[3] = {rm->header_line, rm->cpus_line, with_mode ? rm->mode_line : NULL};
	for (int i = 0; i < 3; i++)
		if (parts[i] && (write(rm->memfd, parts[i], strlen(parts[i])) < 0 ||
				 write(rm->memfd, "\n", 1) < 0)) {
			snprintf(err, errlen, "%s", strerror(errno));
			return -1;
		}
	if (write(rm->memfd, line, len) < 0 || write(rm->memfd, "\n", 1) < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", rm->memfd);
	struct rec_reader *r = rec_reader_open(path, err, errlen);
	if (!r)
		return -1;
	enum rec_kind k = REC_EOF;
	memset(rec, 0, sizeof(*rec));
	for (;;) {
		struct rec_record tmp;
		enum rec_kind n = rec_reader_next(r, &tmp, err, errlen);
		if (n == REC_ERROR) {
			/* "/proc/self/fd/N:3: msg" -> "msg" */
			char *p = strstr(err, ": ");
			if (p)
				memmove(err, p + 2, strlen(p + 2) + 1);
			rec_record_free(rec);
			k = REC_ERROR;
			break;
		}
		if (n == REC_EOF)
			break;
		rec_record_free(rec);
		*rec = tmp;
		k = n;
	}
	if (k != REC_ERROR && rec_reader_nwarnings(r) > 0) {
		/* the line was skipped ("/proc/self/fd/N:3: why; tick skipped" -> "why") */
		const char *w = rec_reader_warning(r, 0), *p = strstr(w, ": ");
		snprintf(err, errlen, "%s", p ? p + 2 : w);
		rec_record_free(rec);
		k = REC_ERROR;
	}
	rec_reader_close(r);
	return k == REC_ERROR ? -1 : 0;
}

/* One complete line of the agent's stream. Returns 1 for a new tick. */
static int stream_line(struct app_ctx *app, const char *line, size_t len)
{
	struct remote *rm = RM(app);
	struct replay *r = rm->replay;
	json_error_t jerr;
	json_t *o = jsonb_loadb(line, len, 0, JSONB_LINE_FACTOR, &jerr, NULL, 0);
	const char *type = o && json_is_string(json_object_get(o, "type"))
			       ? json_string_value(json_object_get(o, "type"))
			       : NULL;
	char kind[16];
	snprintf(kind, sizeof(kind), "%s", type ? type : "");
	json_decref(o);
	char err[512] = "";
	struct rec_record rec;
	memset(&rec, 0, sizeof(rec));
	if (strcmp(kind, "header") == 0) {
		free(rm->header_line);
		free(rm->mode_line);
		free(rm->cpus_line);
		rm->mode_line = rm->cpus_line = NULL;
		rm->header_line = strndup(line, len);
		rm->have_header = false;
		if (!rm->header_line || parse(rm, "", 0, false, &rec, err, sizeof(err)) < 0 ||
		    rec.kind != REC_HEADER) {
			app_log(app, MSG_ERROR, "%s: bad header from the agent: %s", rm->host, err);
			if (rec.kind)
				rec_record_free(&rec);
			return 0;
		}
		rm->have_header = true;
		if (!r->f.header.ncpus) {
			r->f.header = rec.u.header;
			memset(&rec.u.header, 0, sizeof(rec.u.header));
		} else { /* a reconnect: the board may count more CPUs now */
			struct rec_cpus c = {.ncpus = rec.u.header.ncpus,
					     .cpus = rec.u.header.cpus};
			if (rec_file_add_cpus(&r->f, &c) < 0)
				app_log(app, MSG_ERROR, "%s: out of memory", rm->host);
		}
		/* a new stream starts its times at 0: on the board's clock (its start_time, whole
		 * seconds) the reconnect comes after the outage; never before what we have */
		double after =
		    r->f.nticks ? rm->last_t + (double)facts(app).interval_ms / 1000.0 : 0;
		double board =
		    r->f.nticks ? (double)(rec.u.header.start_time - r->f.header.start_time) : 0;
		rm->t_offset = board > after && board < after + 31536000.0 ? board : after;
		/* the outage as this side measured it (the board's clock has whole seconds) */
		double outage = rm->gap_pending && rm->lost_ns
				    ? rm->lost_t + (double)(loop_now_ns() - rm->lost_ns) / 1e9
				    : 0;
		if (outage > rm->t_offset)
			rm->t_offset = outage;
		rec_record_free(&rec);
		return 0;
	}
	if (!rm->have_header)
		return 0;
	bool is_mode = strcmp(kind, "mode") == 0;
	if (!is_mode && strcmp(kind, "tick") != 0 && strcmp(kind, "mark") != 0 &&
	    strcmp(kind, "cpus") != 0)
		return 0; /* a later record type: skipped */
	if (!is_mode && !rm->mode_line)
		return 0;
	if (parse(rm, line, len, !is_mode, &rec, err, sizeof(err)) < 0) {
		char e[600];
		rec_escape(err, e, sizeof(e));
		app_log(app, MSG_ERROR, "%s: bad line from the agent skipped: %s", rm->host, e);
		return 0;
	}
	int rc = 0;
	if (rec.kind == REC_MODE && !mode_name_valid(rec.u.mode.name)) {
		char e[REC_NAME_MAX * 4];
		rec_escape(rec.u.mode.name, e, sizeof(e));
		app_log(app, MSG_ERROR, "%s: mode line with a bad mode name \"%s\" skipped",
			rm->host, e);
		rec_record_free(&rec);
		return 0;
	}
	switch (rec.kind) {
	case REC_MODE:
		free(rm->mode_line);
		rm->mode_line = strndup(line, len);
		rec.u.mode.t += rm->t_offset;
		if (replay_append_mode(r, &rec.u.mode) == 0)
			rm->mode_index = r->f.nmodes - 1;
		break;
	case REC_TICK:
		rec.u.tick.t += rm->t_offset;
		rec.u.tick.mode = rm->mode_index;
		if (r->f.nticks && r->f.ticks[r->f.nticks - 1].mode == rm->mode_index &&
		    rec_tick_check(&r->f.ticks[r->f.nticks - 1], &rec.u.tick,
				   r->f.header.counter_bits, err, sizeof(err)) < 0) {
			/* never the base of the next delta */
			char e[600];
			rec_escape(err, e, sizeof(e));
			app_log(app, MSG_ERROR, "%s: bad tick from the agent skipped: tick: %s",
				rm->host, e);
			break;
		}
		rm->last_t = rec.u.tick.t;
		if (replay_append_tick(r, &rec.u.tick) == 0)
			rc = 1;
		break;
	case REC_MARK:
		rec.u.mark.t += rm->t_offset;
		replay_append_mark(r, &rec.u.mark);
		break;
	case REC_CPUS: /* the board's CPU set changed: the ticks after it may hold the new CPUs,
			* which get their rows there (playback follows the stream's mode) */
		free(rm->cpus_line);
		rm->cpus_line = strndup(line, len);
		if (rec_file_add_cpus(&r->f, &rec.u.cpus) < 0)
			app_log(app, MSG_ERROR, "%s: out of memory", rm->host);
		break;
	default:
		break;
	}
	rec_record_free(&rec);
	if (rc && rm->gap_pending) { /* a reconnect is a marked gap, in the history and marks */
		struct rec_mark gap = {.t = rm->last_t};
		struct tm tm;
		char since[16];
		strftime(since, sizeof(since), "%H:%M:%S", localtime_r(&rm->lost_since, &tm));
		snprintf(gap.text, sizeof(gap.text),
			 "gap: link to %.100s lost at %s (after t %.3f s), reconnected", rm->host,
			 since, rm->lost_t);
		replay_append_mark(r, &gap);
		rm->gap_pending = false;
	}
	if (rc) {
		rm->failures = 0;
		rm->lost_since = 0;
	}
	if (rc && rm->backoff_ms != BACKOFF_MIN_MS) {
		if (rm->connections > 1)
			app_log(app, MSG_INFO, "reconnected to %s", rm->host);
		rm->backoff_ms = BACKOFF_MIN_MS;
	}
	if (rc)
		set_state(rm, "connected to %s", rm->host);
	return rc;
}

/* Reads what the agent wrote on stdout. Returns new ticks; -1 at end of file. */
static int read_stream(struct app_ctx *app)
{
	struct remote *rm = RM(app);
	int ticks = 0;
	for (;;) {
		if (rm->cap - rm->len < 65536) {
			size_t nc = rm->cap ? rm->cap * 2 : 131072;
			char *b = realloc(rm->buf, nc);
			if (!b)
				return -1;
			rm->buf = b;
			rm->cap = nc;
		}
		ssize_t n = read(rm->out_fd, rm->buf + rm->len, rm->cap - rm->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0)
			return -1;
		rm->len += (size_t)n;
		size_t start = 0;
		for (size_t i = 0; i < rm->len; i++)
			if (rm->buf[i] == '\n') {
				ticks += stream_line(app, rm->buf + start, i - start);
				start = i + 1;
			}
		memmove(rm->buf, rm->buf + start, rm->len - start);
		rm->len -= start;
		if (rm->len > MAX_LINE)
			return -1;
	}
	return ticks;
}

static void read_errors(struct app_ctx *app)
{
	struct remote *rm = RM(app);
	for (;;) {
		ssize_t n = read(rm->err_fd, rm->ebuf + rm->elen, sizeof(rm->ebuf) - 1 - rm->elen);
		if (n <= 0)
			break;
		rm->elen += (size_t)n;
		rm->ebuf[rm->elen] = '\0';
		char *nl;
		while ((nl = strchr(rm->ebuf, '\n')) || rm->elen == sizeof(rm->ebuf) - 1) {
			if (!nl)
				nl = rm->ebuf + rm->elen - 1;
			*nl = '\0';
			char e[1024];
			rec_escape(rm->ebuf, e, sizeof(e));
			if (e[0]) {
				app_log(app, MSG_WARN, "%s: %s", rm->host, e);
				snprintf(rm->last_error, sizeof(rm->last_error), "%.*s",
					 (int)sizeof(rm->last_error) - 1, e);
			}
			size_t used = (size_t)(nl - rm->ebuf) + 1;
			memmove(rm->ebuf, nl + 1, rm->elen - used + 1);
			rm->elen -= used;
		}
	}
}

void remote_app_poll(struct app_ctx *app)
{
	struct remote *rm = RM(app);
	if (rm->retry_at_ns && loop_now_ns() >= rm->retry_at_ns) {
		char err[512];
		if (spawn(app, err, sizeof(err)) < 0) {
			app_log(app, MSG_ERROR, "%s: %s", rm->host, err);
			if (!may_retry(app, err))
				return;
			rm->retry_at_ns = loop_now_ns() + (uint64_t)rm->backoff_ms * 1000000ULL;
		} else {
			app_log(app, MSG_INFO, "reconnecting to %s", rm->host);
		}
	}
	remote_app_attach(app);
}

/* A control line for the agent: one line of text; a mode name, a CPU list, a number as the
 * argument of mode, cpus and interval. */
static int check_control(const char *line, char *err, size_t errlen)
{
	if (!text_is_safe(line, strlen(line), TEXT_ESC_KEEP_BACKSLASH) || strchr(line, '\t')) {
		char e[200];
		text_escape(line, TEXT_NUL_TERMINATED, e, sizeof(e));
		snprintf(err, errlen, "not sent to the agent: control characters in \"%s\"", e);
		return -1;
	}
	const char *arg = strchr(line, ' ');
	size_t verb = arg ? (size_t)(arg - line) : strlen(line);
	arg = arg ? arg + 1 : "";
	if (verb == 4 && strncmp(line, "mode", 4) == 0)
		return check_mode_name(arg, err, errlen);
	if (verb == 4 && strncmp(line, "cpus", 4) == 0)
		return check_cpu_list(arg, true, err, errlen);
	if (verb == 8 && strncmp(line, "interval", 8) == 0 &&
	    (!*arg || strspn(arg, "0123456789") != strlen(arg))) {
		snprintf(err, errlen, "not sent to the agent: the interval is a number of ms");
		return -1;
	}
	return 0;
}

bool remote_app_gave_up(const struct app_ctx *app) { return RM(app) && RM(app)->gave_up; }

int remote_app_send(struct app_ctx *app, const char *line, char *err, size_t errlen)
{
	struct remote *rm = RM(app);
	if (check_control(line, err, errlen) < 0)
		return -1;
	if (rm->to_fd < 0) {
		snprintf(err, errlen, "not connected to %s", rm->host);
		return -1;
	}
	char buf[600];
	int n = snprintf(buf, sizeof(buf), "%s\n", line);
	if (n < 0 || (size_t)n >= sizeof(buf) || write(rm->to_fd, buf, (size_t)n) != n) {
		snprintf(err, errlen, "sending to %s: %s", rm->host, strerror(errno));
		return -1;
	}
	return 0;
}

/* --- the client as an observer of the run ---------------------------------------------------- */

static int obs_attach(struct observer *o, struct app_ctx *app, struct loop *loop)
{
	(void)o, (void)loop;
	remote_app_attach(app);
	return 0;
}

static int obs_input(struct observer *o, struct app_ctx *app, int fd)
{
	struct remote *rm = o->state;
	if (fd < 0 || (fd != rm->out_fd && fd != rm->err_fd))
		return 0;
	remote_app_input(app, fd);
	return 2; /* ticks may be waiting */
}

static void obs_timer(struct observer *o, struct app_ctx *app, const struct loop_event *ev)
{
	(void)o, (void)ev;
	remote_app_poll(app);
}

/* The header's position: the link's state. */
static void obs_fill_frame(struct observer *o, struct app_ctx *app, struct frame *f,
			   struct frame_store *fs)
{
	(void)app, (void)fs;
	const struct remote *rm = o->state;
	snprintf(f->position, sizeof(f->position), "%.*s", (int)sizeof(f->position) - 1, rm->state);
	f->stale = rm->lost_since != 0 || rm->gave_up;
}

static void obs_close(struct observer *o, struct app_ctx *app)
{
	struct remote *rm = o->state;
	if (rm->to_fd >= 0)
		remote_app_send(app, "quit", (char[64]){0}, 64);
	char how[128];
	disconnect(app, how, sizeof(how));
	close_fd(&rm->memfd);
	free(rm->buf);
	free(rm->header_line);
	free(rm->cpus_line);
	free(rm->mode_line);
	free(rm);
}

static int obs_forward(struct observer *o, struct app_ctx *app, const char *line, char *err,
		       size_t errlen)
{
	(void)o;
	return remote_app_send(app, line, err, errlen);
}

/* Starts the agent and waits (up to 20 s) for its header, mode and first tick. */
static int obs_open_source(struct observer *o, struct app_ctx *app, struct replay **replay,
			   char *err, size_t errlen)
{
	struct remote *rm = o->state;
	struct replay *r = calloc(1, sizeof(*r));
	*replay = NULL;
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	snprintf(rm->host, sizeof(rm->host), "%s", facts(app).opt->remote);
	rm->to_fd = rm->out_fd = rm->err_fd = rm->memfd = -1;
	rm->pid = -1;
	rm->mode_index = -1;
	rm->backoff_ms = BACKOFF_MIN_MS;
	char name[300];
	snprintf(name, sizeof(name), "%s", facts(app).opt->remote);
	replay_init_live(r, name);
	rm->replay = r;
	*replay = r; /* the engine's source from now on, also when the rest fails */
	if (check_start(app, facts(app).opt->mode, err, errlen) < 0)
		return 2; /* bad usage: nothing is run */
	if (spawn(app, err, errlen) < 0)
		return 1;
	/* the screen needs the CPUs and the first mode: wait for the first tick */
	uint64_t deadline = loop_now_ns() + OPEN_TIMEOUT_MS * 1000000ULL;
	while (r->f.nticks == 0) {
		uint64_t now = loop_now_ns();
		if (now >= deadline) {
			snprintf(err, errlen, "%s: no data from the agent within %d s (%s)",
				 rm->host, OPEN_TIMEOUT_MS / 1000, facts(app).opt->transport);
			return 1;
		}
		struct pollfd p[2] = {{rm->out_fd, POLLIN, 0}, {rm->err_fd, POLLIN, 0}};
		if (poll(p, 2, (int)((deadline - now) / 1000000ULL) + 1) < 0 && errno != EINTR)
			break;
		read_errors(app);
		if (read_stream(app) < 0) {
			char how[128];
			read_errors(app);
			disconnect(app, how, sizeof(how));
			snprintf(err, errlen, "%s: the agent ended before sending data (%s)%s%s",
				 rm->host, how, rm->last_error[0] ? ": " : "", rm->last_error);
			return 1;
		}
	}
	set_state(rm, "connected to %s", rm->host);
	return 0;
}

int remote_client_add(struct app_ctx *app, char *err, size_t errlen)
{
	struct remote *rm = calloc(1, sizeof(*rm));
	struct observer o = {.name = "remote",
			     .state = rm,
			     .open_source = obs_open_source,
			     .forward = obs_forward,
			     .attach = obs_attach,
			     .on_input = obs_input,
			     .on_timer = obs_timer,
			     .fill_frame = obs_fill_frame,
			     .close = obs_close};
	if (!rm || !app_observe(app, &o)) {
		free(rm);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rm->to_fd = rm->out_fd = rm->err_fd = rm->memfd = -1;
	rm->pid = -1;
	return 0;
}

bool remote_app_active(const struct app_ctx *app) { return RM(app) != NULL; }

void remote_app_attach(struct app_ctx *app)
{
	struct remote *rm = RM(app);
	struct loop *loop = facts(app).loop;
	if (!rm || rm->watched || !loop || rm->out_fd < 0)
		return;
	loop_watch(loop, rm->out_fd);
	loop_watch(loop, rm->err_fd);
	rm->watched = true;
}

int remote_app_input(struct app_ctx *app, int fd)
{
	struct remote *rm = RM(app);
	if (!rm || fd < 0)
		return -1;
	if (fd == rm->err_fd) {
		read_errors(app);
		return 0;
	}
	if (fd != rm->out_fd)
		return -1;
	int n = read_stream(app);
	if (n < 0) {
		read_errors(app);
		link_lost(app, "the stream ended");
		return 0;
	}
	return n;
}

/* ---- the agent ---- */

bool remote_agent_wanted(const struct app_ctx *app)
{
	struct stat st;
	return facts(app).opt->batch && facts(app).opt->record &&
	       strcmp(facts(app).opt->record, "-") == 0 && fstat(STDIN_FILENO, &st) == 0 &&
	       (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

/* The agent's state: what runs its control lines (the front end's command table). */
struct agent {
	remote_control_fn control;
};

static void agent_input(struct app_ctx *app, const struct agent *ag, int fd)
{
	static char buf[4096];
	static size_t len;
	ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			app_quit(app); /* the client is gone */
		return;
	}
	len += (size_t)n;
	buf[len] = '\0';
	char *start = buf, *nl;
	while ((nl = strchr(start, '\n'))) {
		*nl = '\0';
		if (nl > start && nl[-1] == '\r')
			nl[-1] = '\0';
		char err[512] = "";
		if (ag->control(app, start, err, sizeof(err)) < 0) {
			char e[1024];
			rec_escape(err, e, sizeof(e));
			text_fprintf(stderr, "pmutop: %s\n", e);
		}
		start = nl + 1;
	}
	len = strlen(start);
	memmove(buf, start, len + 1);
	if (len >= sizeof(buf) - 1)
		len = 0; /* an endless line: drop it */
}

/* The agent as an observer of the run: its control lines on stdin. */
static int agent_attach(struct observer *o, struct app_ctx *app, struct loop *loop)
{
	(void)o;
	if (loop_watch(loop, STDIN_FILENO) < 0) {
		app_log(app, MSG_ERROR, "the agent: too many inputs to watch");
		return -1;
	}
	return 0;
}

static int agent_on_input(struct observer *o, struct app_ctx *app, int fd)
{
	if (fd != STDIN_FILENO)
		return 0;
	agent_input(app, o->state, fd); /* the end of its input is the client going away */
	return 1;
}

int remote_agent_add(struct app_ctx *app, remote_control_fn control)
{
	static struct agent ag; /* one agent per process: it reads stdin */
	ag.control = control;
	struct observer o = {
	    .name = "agent", .state = &ag, .attach = agent_attach, .on_input = agent_on_input};
	return app_observe(app, &o) ? 0 : -1;
}
