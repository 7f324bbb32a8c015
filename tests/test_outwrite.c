/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_outwrite.c: output_write(), a record's bytes straight to the stream's file: every byte in
 * order after what stdio held, through partial writes and interrupted calls, EPIPE reported. */
#include "harness.h"
#include "output.h"
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t alarms;
static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* Everything readable from @fd until its end, into a fresh buffer of *len bytes. */
static char *read_all(int fd, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);
	for (;;) {
		if (n == cap) {
			char *nb = realloc(b, cap *= 2);
			if (!nb)
				break;
			b = nb;
		}
		ssize_t k = read(fd, b + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	*len = n;
	return b;
}

/* A record of 4 MiB into a pipe read slowly by a child (which copies it to a file), while a
 * timer interrupts the writer every 200 us (no SA_RESTART): write(2) returns short counts and
 * EINTR, and what the reader got must be what stdio held, then the record, byte for byte. */
static void check_pipe(void)
{
	size_t n = 4u << 20;
	char *rec = malloc(n);
	for (size_t i = 0; i < n; i++)
		rec[i] = (char)('a' + (i * 7 + i / 4093) % 26);
	char tmpl[] = "/tmp/test_outwrite.XXXXXX";
	int out = mkstemp(tmpl);
	int p[2];
	if (!rec || out < 0 || pipe(p) != 0) {
		CHECK(0, "setup: %s", strerror(errno));
		return;
	}
	unlink(tmpl);
	pid_t pid = fork();
	if (pid == 0) { /* the slow reader: small reads with pauses */
		close(p[1]);
		char buf[1500];
		ssize_t k;
		int i = 0;
		while ((k = read(p[0], buf, sizeof(buf))) > 0) {
			if (write(out, buf, (size_t)k) != k)
				_exit(2);
			if (++i % 64 == 0)
				usleep(1000);
		}
		_exit(k == 0 ? 0 : 1);
	}
	close(p[0]);
	FILE *f = fdopen(p[1], "w");
	struct sigaction sa = {.sa_handler = on_alarm}; /* no SA_RESTART: calls are cut short */
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 200}, {0, 200}};
	setitimer(ITIMER_REAL, &it, NULL);
	fputs("held by stdio;", f); /* not flushed yet: it must come first */
	int rc = output_write(f, rec, n);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	CHECK_INT(rc, 0);
	CHECK(alarms > 0, "the timer never interrupted the writer");
	fclose(f);
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the reader failed");
	size_t got_n;
	lseek(out, 0, SEEK_SET);
	char *got = read_all(out, &got_n);
	CHECK_INT((long long)got_n, (long long)(n + 14));
	CHECK(got && got_n == n + 14 && memcmp(got, "held by stdio;", 14) == 0 &&
		  memcmp(got + 14, rec, n) == 0,
	      "the bytes read differ from those written");
	close(out);
	free(got);
	free(rec);
}

/* A reader gone: -1 with EPIPE (SIGPIPE ignored, as batch mode does). */
static void check_epipe(void)
{
	int p[2];
	if (pipe(p) != 0)
		return;
	close(p[0]);
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	FILE *f = fdopen(p[1], "w");
	errno = 0;
	CHECK_INT(output_write(f, "x\n", 2), -1);
	CHECK_INT(errno, EPIPE);
	fclose(f);
	signal(SIGPIPE, old);
}

/* A stream in memory (no file): through stdio, flushed. */
static void check_memstream(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return;
	fputs("a,", m);
	CHECK_INT(output_write(m, "b,c\n", 4), 0);
	CHECK(len == 6 && text && memcmp(text, "a,b,c\n", 6) == 0, "memstream: \"%.*s\"", (int)len,
	      text ? text : "");
	fclose(m);
	free(text);
}

int main(void)
{
	check_pipe();
	check_epipe();
	check_memstream();
	return harness_done();
}
