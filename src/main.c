/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c: pmutop entry point: options, one-shot reports, batch mode or the screen. */
#include "app.h"
#include "command.h"
#include "frame.h"
#include "jitter.h"
#include "manpage.h"
#include "openmetrics.h"
#include "output.h"
#include "owners.h"
#include "probe.h"
#include "recorder.h"
#include "remote.h"
#include "report.h"
#include "run.h"
#include "safefile.h"
#include "taskview.h"
#include "textutil.h"
#include "theme.h"
#include "watch.h"
#ifndef PMUTOP_NO_UI
#include "ui.h"
#endif
#include "baseline.h"
#include "uncertainty.h"
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Batch mode: prints each frame; the log goes to stderr. */
struct batch {
	struct app_ctx *app;
	FILE *out; /* stdout, or -o FILE */
	int head;  /* messages printed so far */
};

static void flush_messages(struct batch *bt)
{
	struct app_ctx *app = bt->app;
	int n = (app->message_head - bt->head + APP_MAX_MESSAGES) % APP_MAX_MESSAGES;
	for (int i = 0; i < n; i++)
		text_fprintf(stderr, "pmutop: %s\n",
			     app->messages[(bt->head + i) % APP_MAX_MESSAGES].text);
	bt->head = app->message_head;
}

static void batch_after_tick(void *ctx) { flush_messages(ctx); }

/* Writes the frame. Returns 0, 1 when the reader went away (a clean end), -1 on error. */
static int batch_frame(void *ctx, const struct frame *f)
{
	struct batch *bt = ctx;
	struct app_ctx *app = bt->app;
	flush_messages(bt);
	if (app->opt.record && strcmp(app->opt.record, "-") == 0)
		return 0; /* stdout carries the recording (the agent) */
	if (output_frame(bt->out, app->opt.format, f) < 0) {
		if (errno == EPIPE)
			return 1;
		text_fprintf(stderr, "pmutop: -o %s: %s\n",
			     app->opt.output ? app->opt.output : "(stdout)", strerror(errno));
		return -1;
	}
	return 0;
}

/* -o FILE: created or truncated; a symbolic link there is refused unless --force. NULL with a
 * message on stderr. */
static FILE *open_output(const char *path, bool force)
{
	FILE *f = safe_fopen(path, force ? SAFE_CREATE_FORCE : SAFE_CREATE_NAMED);
	if (!f)
		text_fprintf(stderr, "pmutop: -o %s: %s\n", path, safe_create_reason(path, errno));
	return f;
}

static int run_batch(struct app_ctx *app)
{
	struct batch bt = {.app = app, .out = stdout};
	if (remote_agent_wanted(app) && remote_agent_add(app, command_control) < 0) {
		text_fprintf(stderr, "pmutop: the agent: out of memory\n");
		return 1;
	}
	if (app->opt.output && !(bt.out = open_output(app->opt.output, app->opt.force)))
		return 2;
	app_want_self(app, output_format_reads(app->opt.format) & OUTPUT_READS_CADENCE);
	signal(SIGPIPE, SIG_IGN);
	flush_messages(&bt);
	if (source_has(&app->source, SOURCE_CAP_SIMULATED))
		text_fprintf(
		    stderr,
		    "pmutop: SIMULATED counters (sim backend); no number is from hardware\n");
	struct run_frontend fe = {
	    .ctx = &bt,
	    .on_frame = batch_frame,
	    .after_tick = batch_after_tick,
	    .unpaced = true,
	    .errors_end_run = true,
	};
	int rc = run_loop(app, &fe);
	flush_messages(&bt);
	if (bt.out != stdout && fclose(bt.out) != 0) {
		text_fprintf(stderr, "pmutop: -o %s: %s\n", app->opt.output, strerror(errno));
		rc = 1;
	}
	return rc;
}

#ifdef PMUTOP_NO_UI
static const enum options_program program = OPTIONS_AGENT;
#else
static const enum options_program program = OPTIONS_PMUTOP;
#endif

/* --list-themes: one name per line. */
static int list_themes(void)
{
	char **names;
	size_t n = theme_list(&names);
	for (size_t i = 0; i < n; i++)
		puts(names[i]);
	theme_list_free(names, n);
	return 0;
}

/* --help-roff TEMPLATE: the manual page, from the tables --help and :help print. */
static int write_manpage(const char *template_path)
{
	char err[512];
#ifndef PMUTOP_NO_UI
	ui_add_commands();
#endif
	if (manpage_write(stdout, template_path, program, err, sizeof(err)) < 0) {
		text_fprintf(stderr, "pmutop: %s\n", err);
		return 1;
	}
	return 0;
}

/* -f openmetrics and --listen: the per-event counters, and the endpoint. */
static int start_metrics(struct app_ctx *app, char *err, size_t errlen)
{
	if (!(output_format_reads(app->opt.format) & OUTPUT_READS_COUNTERS) && !app->opt.listen)
		return 0;
	return om_start(app, app->opt.listen, err, errlen);
}

/* The madvise of release_stack_below, from a frame of its own that holds no array, so its frame
 * address is within a few words of the stack pointer: the pages from @lo up to two pages below
 * it. (Measured from release_stack_below's frame address, the range reached into that frame
 * under ASan, whose redzones make it over 8 KiB deep: madvise's return address was zeroed and one
 * start in about 20 jumped to address 0.) */
static __attribute__((noinline)) void release_stack_from(uintptr_t lo, uintptr_t hi, uintptr_t page)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	uintptr_t top = (here & ~(page - 1)) - 2 * page;
	if (here > lo && here < hi && top > lo)
		madvise((void *)lo, top - lo, MADV_DONTNEED);
}

/* Gives the stack pages that start-up touched below this frame back to the kernel (about 60 KiB
 * on the screen: the platform and topology readers' path and file buffers, four frames deep).
 * Below the stack pointer they hold nothing; the loop's calls fault in zero pages as far down as
 * they reach. The [stack] mapping's lower end comes from /proc/self/maps; if it cannot be read,
 * nothing is given back. */
static void release_stack_below(void)
{
	long ps = sysconf(_SC_PAGESIZE); /* madvise rounds the length up to whole pages */
	uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096;
	uintptr_t lo = 0, hi = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", &a, &b) == 2) {
			lo = a, hi = b;
			break;
		}
	}
	fclose(f);
	if (lo) /* two pages of margin below the helper's frame: madvise runs there */
		release_stack_from(lo, hi, page);
}

int main(int argc, char **argv)
{
	static struct app_ctx app;
	char err[1024];
	/* Blocks of 32 KiB and more (state sized by CPUs, rows and metrics, most of it written a
	 * little at a time or never) get pages of their own, which the kernel maps only where they
	 * are written; from the heap, calloc's clearing made all of them resident (120 KiB on the
	 * screen at 2 CPUs). A fixed threshold also keeps glibc from raising it after a free. No
	 * block of that size is allocated per tick. */
	mallopt(M_MMAP_THRESHOLD, 32 * 1024);
	if (argc >= 2 && strcmp(argv[1], "probe") == 0)
		return probe_cli(argc - 2, argv + 2, stdout, stderr);
	if (options_parse_program(&app.opt, program, argc, argv, err, sizeof(err)) < 0) {
		text_fprintf(stderr, "pmutop: %s\n", err);
		return 2;
	}
	if (app.opt.help) {
		options_usage(stdout, program);
		return 0;
	}
	if (app.opt.version) {
		options_version(stdout, program);
		return 0;
	}
	if (app.opt.completion) {
		if (options_completion(stdout, app.opt.completion, program, err, sizeof(err)) < 0) {
			text_fprintf(stderr, "pmutop: %s\n", err);
			return 2;
		}
		return 0;
	}
	if (app.opt.help_roff)
		return write_manpage(app.opt.help_roff);
	if (app.opt.list_themes)
		return list_themes();
#if defined(PMUTOP_BPF) && !defined(PMUTOP_NO_UI)
	owners_set_bpf(owners_bpf_collect); /* the board agent has no BPF iterator */
#endif
	if (app.opt.list_owners)
		return owners_report(&app.opt, stdout, stderr);
	if (app.opt.tasks_top && !app.opt.batch) {
		fprintf(stderr,
			"pmutop: --tasks-top N counts tasks in batch: add -b (on the screen: "
			"T, :set tasks N)\n");
		return 2;
	}
	if (app.opt.sim.unpaced && (!app.opt.batch || !app.opt.iterations)) {
		fprintf(stderr, "pmutop: --sim-unpaced: a batch run (-b) of --backend sim with -n "
				"N, not the screen\n");
		return 2;
	}
	if (app.opt.output && !app.opt.batch) {
		fprintf(stderr, "pmutop: -o FILE writes batch records: add -b\n");
		return 2;
	}
	if (app.opt.theme && app.opt.batch) {
		/* batch output has no colours, but a theme that does not load is still refused */
		struct theme t;
		theme_init_default(&t);
		int bad = theme_load(&t, app.opt.theme, err, sizeof(err)) < 0;
		theme_free(&t);
		if (bad) {
			text_fprintf(stderr, "pmutop: --theme: %s\n", err);
			return 2;
		}
	}
#ifndef PMUTOP_NO_UI
	char stream_path[32];
	if (!app.opt.batch && !app.opt.list_events && !app.opt.list_modes && !app.opt.explain) {
		app.stream_wait = ui_stream_wait; /* q gives up waiting for a FIFO's writer */
		if (app.opt.replay && strcmp(app.opt.replay, "-") == 0 && !isatty(STDIN_FILENO)) {
			/* -R - on the screen: the recording comes on stdin, keys from the terminal
			 */
			int data = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
			int tty = open("/dev/tty", O_RDWR | O_CLOEXEC);
			if (data < 0 || tty < 0 || dup2(tty, STDIN_FILENO) < 0) {
				fprintf(stderr,
					"pmutop: -R - on the screen needs a terminal for the keys "
					"(/dev/tty); use -b for batch output\n");
				return 2;
			}
			close(tty);
			snprintf(stream_path, sizeof(stream_path), "/dev/fd/%d", data);
			app.opt.replay = stream_path;
		}
	}
#endif
	if (app.opt.remote && remote_client_add(&app, err, sizeof(err)) < 0) {
		text_fprintf(stderr, "pmutop: %s\n", err);
		return 1;
	}
	int rc = app_init(&app, err, sizeof(err));
	if (rc == APP_INIT_QUIT) {
		app_free(&app);
		return 0;
	}
	if (rc == 0 && app.opt.list_events)
		rc = report_list_events(&app, app.opt.list_pattern, stdout) + 100;
	else if (rc == 0 && app.opt.list_modes)
		rc = report_list_modes(&app, stdout) + 100;
	else if (rc == 0 && app.opt.explain)
		rc = report_explain(&app, app.opt.explain, stdout, stderr) + 100;
	else if (rc != 0 && (app.opt.list_events || app.opt.list_modes || app.opt.explain) &&
		 app.modes && rc == 1) {
		/* reports still work when no counter opens here */
		rc = app.opt.list_events  ? report_list_events(&app, app.opt.list_pattern, stdout)
		     : app.opt.list_modes ? report_list_modes(&app, stdout)
					  : report_explain(&app, app.opt.explain, stdout, stderr);
		rc += 100;
	}
	if (rc >= 100) {
		struct batch log = {.app = &app}; /* what loading the modes said */
		flush_messages(&log);
		app_free(&app);
		return rc - 100;
	}
	if (rc != 0) {
		text_fprintf(stderr, "pmutop: %s\n", err);
		if (rc == 1 && app.pf.capability[0])
			text_fprintf(stderr, "pmutop: platform: %s\n", app.pf.capability);
		app_free(&app);
		return rc;
	}
	if (jitter_attach(&app, err, sizeof(err)) < 0 || watch_attach(&app, err, sizeof(err)) < 0) {
		text_fprintf(stderr, "pmutop: %s\n", err);
		app_free(&app);
		return 2;
	}
	if (uncertainty_attach(&app, app.opt.error, err, sizeof(err)) < 0 ||
	    baseline_attach(&app, app.opt.baseline, err, sizeof(err)) < 0) {
		text_fprintf(stderr, "pmutop: %s\n", err);
		app_free(&app);
		return 2;
	}
	if (start_metrics(&app, err, sizeof(err)) < 0) {
		text_fprintf(stderr, "pmutop: %s\n", err);
		app_free(&app);
		return 2;
	}
	if (app.opt.tasks_top) { /* the task view's list, in batch: before -r writes its rows */
		if (app_taskview_set_count(&app, app.opt.tasks_top, err, sizeof(err)) < 0 ||
		    app_taskview_open(&app, TASKVIEW_TASKS, err, sizeof(err)) < 0) {
			text_fprintf(stderr, "pmutop: --tasks-top: %s\n", err);
			app_free(&app);
			return 2;
		}
		app_taskview_hold(&app, app.opt.record != NULL); /* the rows of its header */
	}
	/* an output named on the command line that cannot be created is a usage error, as -o */
	if (app.opt.record && recorder_start(&app, app.opt.record, err, sizeof(err)) < 0) {
		text_fprintf(stderr, "pmutop: -r: %s\n", err);
		app_free(&app);
		return 2;
	}
	release_stack_below();
	if (app.opt.batch) {
#ifndef PMUTOP_NO_UI
		ui_add_commands(); /* -c can then say a command is the screen's */
#endif
		/* the rc file and -c before the first tick; a bad line is a usage error */
		struct command_errors errs = {0};
		rc = command_startup(&app, &errs) ? 2 : run_batch(&app);
		for (size_t i = 0; i < errs.n; i++)
			text_fprintf(stderr, "pmutop: %s\n", errs.msgs[i]);
		command_errors_free(&errs);
	} else
#ifdef PMUTOP_NO_UI
	{
		text_fprintf(stderr,
			     "pmutop: this is the board agent, built without the screen: use -b "
			     "(and -r - for pmutop --remote)\n");
		rc = 2;
	}
#else
		rc = ui_run(&app);
#endif
	if (rc == 0 && remote_app_gave_up(&app))
		rc = 1;		/* the reason is in the log */
	if (app.target.child) { /* -- CMD: perf stat's summary, and the command's status */
		app_target_summary(&app, stderr);
		app_free(&app);
		return rc ? rc : target_exit_status(&app.target);
	}
	app_free(&app); /* closes the recording: its last write counts */
	char why[512];
	if (rc == 0 && safe_output_unrecovered(why, sizeof(why))) {
		text_fprintf(stderr, "pmutop: exit 1: an output was not written: %s\n", why);
		rc = 1;
	}
	return rc;
}
