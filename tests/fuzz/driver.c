/* SPDX-License-Identifier: GPL-2.0-or-later */
/* driver.c: runs a fuzz target without libFuzzer: its seed corpus, then deterministic mutations. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

/*
 * Usage: fuzz_NAME CORPUS_DIR_OR_FILE...
 *   Every file given (or found in a directory, in name order) runs once as it is; then
 *   PMUTOP_FUZZ_RUNS (default: the target's fuzz_default_runs, else 20000) mutated inputs
 *   made from them by a seeded PRNG (PMUTOP_FUZZ_SEED, default 1) run, stopping early after
 *   PMUTOP_FUZZ_SECONDS (default 60) so a slow sanitizer build stays inside the test timeout.
 *   Inputs grow to at most PMUTOP_FUZZ_MAX_LEN bytes (default 4096, or the largest seed).
 * A property failure aborts; a crash, ASan report or UBSan report (halt_on_error below) kills
 * the process: either way the input is saved to $TMPDIR/pmutop-fuzz-crash-NAME-PID first, and
 * printed in hex when short. Run the binary on that file alone to reproduce.
 */

extern const unsigned long fuzz_default_runs __attribute__((weak));
void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

/* UBSan reports stop the run (the default is to print and go on). */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) { return "halt_on_error=1:print_stacktrace=1"; }

struct input {
	char *name;
	uint8_t *data;
	size_t len;
};

static struct input *inputs;
static size_t ninputs, inputs_cap;

/* The input being run, for the crash report. */
static const uint8_t *volatile cur_data;
static volatile size_t cur_len;
static volatile unsigned long cur_iter;
static char crash_path[512];

static uint64_t rng_state;

/* splitmix64: small, fast and the same everywhere. */
static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in 0..n-1 (n > 0). */
static size_t rnd(size_t n) { return (size_t)(rng() % n); }

static void put_str(const char *s)
{
	ssize_t r = write(2, s, strlen(s));
	(void)r;
}

/* Async-signal-safe: saves and prints the input being run. */
static void report_crash(void)
{
	static volatile sig_atomic_t done;
	if (done)
		return;
	done = 1;
	char num[32];
	int i = (int)sizeof(num) - 1;
	unsigned long it = cur_iter;
	num[i] = '\0';
	do {
		num[--i] = (char)('0' + it % 10);
		it /= 10;
	} while (it && i > 0);
	put_str("\n*** fuzz driver: failure on input #");
	put_str(num + i);
	int fd = open(crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		size_t off = 0;
		while (off < cur_len) {
			ssize_t w = write(fd, (const uint8_t *)cur_data + off, cur_len - off);
			if (w <= 0)
				break;
			off += (size_t)w;
		}
		close(fd);
		put_str(", saved to ");
		put_str(crash_path);
	}
	put_str("\n");
	if (cur_len <= 512) {
		static const char hex[] = "0123456789abcdef";
		char line[3];
		put_str("*** input (hex): ");
		for (size_t k = 0; k < cur_len; k++) {
			line[0] = hex[cur_data[k] >> 4];
			line[1] = hex[cur_data[k] & 15];
			line[2] = '\0';
			put_str(line);
		}
		put_str("\n");
	}
}

static void on_signal(int sig)
{
	report_crash();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void add_input(const char *name, uint8_t *data, size_t len)
{
	if (ninputs == inputs_cap) {
		inputs_cap = inputs_cap ? 2 * inputs_cap : 16;
		inputs = realloc(inputs, inputs_cap * sizeof(*inputs));
		if (!inputs)
			abort();
	}
	inputs[ninputs].name = strdup(name);
	inputs[ninputs].data = data;
	inputs[ninputs].len = len;
	ninputs++;
}

static int read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 4096, len = 0;
	uint8_t *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf)
		abort();
	add_input(path, buf, len);
	return 0;
}

static int only_files(const struct dirent *d) { return d->d_name[0] != '.'; }

static int load_arg(const char *arg)
{
	struct stat st;
	if (stat(arg, &st) < 0) {
		fprintf(stderr, "%s: %s\n", arg, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return read_file(arg);
	struct dirent **ents;
	int n = scandir(arg, &ents, only_files, alphasort);
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", arg, strerror(errno));
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", arg, ents[i]->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && read_file(path) < 0)
			rc = -1;
		free(ents[i]);
	}
	free(ents);
	return rc;
}

static uint8_t *guard_map; /* the mapping: guard_room bytes, then a PROT_NONE page */
static size_t guard_room;

/* Runs one input from a copy that ends right at a PROT_NONE page, so reading past its end
 * faults at once, also inside uninstrumented libc (strtoull and friends). */
static void run_one(const uint8_t *data, size_t len, unsigned long iter)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (!guard_map || len > guard_room) {
		if (guard_map)
			munmap(guard_map, guard_room + page);
		guard_room = (len + page) / page * page;
		guard_map = mmap(NULL, guard_room + page, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (guard_map == MAP_FAILED ||
		    mprotect(guard_map + guard_room, page, PROT_NONE) < 0)
			abort();
	}
	uint8_t *copy = guard_map + guard_room - len;
	if (len)
		memcpy(copy, data, len);
	cur_data = data;
	cur_len = len;
	cur_iter = iter;
	LLVMFuzzerTestOneInput(copy, len);
}

/* ---- mutations: every function edits buf[0..*len) with room for @max bytes ---- */

static const uint8_t interesting_bytes[] = {
    0x00, 0xff, '\n', '"',  '\\', '(',	')',  ' ',  '\t', ',',	':',  '=', '-',
    '+',  '.',	'0',  '9',  '#',  ';',	'{',  '}',  '[',  ']',	'/',  '@', '?',
    '%',  'e',	'x',  0x7f, 0x80, 0xbf, 0xc3, 0xe2, 0xf0, 0x1b, '\r',
};

static const char *const tokens[] = {
    "\n",
    "\"",
    "\\",
    "(",
    ")",
    "((((((((",
    "))))",
    "-1",
    "0",
    "0x",
    "0xffffffffffffffff",
    "4294967295",
    "4294967296",
    "2147483647",
    "2147483648",
    "-2147483649",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "1e308",
    "1e309",
    "-1e308",
    "1e-320",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "-0",
    ".5",
    "1.",
    "1e",
    "\xe2\x80\xa6",
    "\xf0\x9f\x98\x80",
    "\xe4\xb8\xad\xe6\x96\x87",
    "\xcc\x81",
    "\xed\xa0\x80",
    "\xc0\x80",
    "\x1b[31m",
    "\x1b]0;x\x07",
    "%s%n%x",
    "::",
    "/",
    "{}",
    "[]",
    "null",
    "true",
    "false",
    ",",
    "\r\n",
    "\t",
    "\"\"",
    "\\u0000",
    "\\ud800",
    "\\\"",
    "''",
    "#",
    ";",
    "=",
    "??",
    "*",
    "0-4095",
    "4096",
    "-",
    "<not counted>",
    "<not supported>",
    "CPU0",
    "CPU4095",
};

static void mut_flip(uint8_t *buf, size_t *len, size_t max)
{
	(void)max;
	if (*len)
		buf[rnd(*len)] ^= (uint8_t)(1u << rnd(8));
}

static void mut_set(uint8_t *buf, size_t *len, size_t max)
{
	(void)max;
	if (*len)
		buf[rnd(*len)] = (uint8_t)rng();
}

static void mut_interesting(uint8_t *buf, size_t *len, size_t max)
{
	(void)max;
	if (*len)
		buf[rnd(*len)] = interesting_bytes[rnd(sizeof(interesting_bytes))];
}

static void insert_bytes(uint8_t *buf, size_t *len, size_t max, const uint8_t *src, size_t n)
{
	if (*len + n > max) {
		if (*len >= max)
			return;
		n = max - *len;
	}
	size_t at = rnd(*len + 1);
	memmove(buf + at + n, buf + at, *len - at);
	memcpy(buf + at, src, n);
	*len += n;
}

static void mut_insert(uint8_t *buf, size_t *len, size_t max)
{
	uint8_t b[4];
	size_t n = 1 + rnd(sizeof(b));
	for (size_t i = 0; i < n; i++)
		b[i] = rnd(2) ? (uint8_t)rng() : interesting_bytes[rnd(sizeof(interesting_bytes))];
	insert_bytes(buf, len, max, b, n);
}

static void mut_token(uint8_t *buf, size_t *len, size_t max)
{
	const char *t = tokens[rnd(sizeof(tokens) / sizeof(tokens[0]))];
	insert_bytes(buf, len, max, (const uint8_t *)t, strlen(t));
}

static void mut_digits(uint8_t *buf, size_t *len, size_t max)
{
	uint8_t d[400];
	size_t n = 20 + rnd(sizeof(d) - 20);
	for (size_t i = 0; i < n; i++)
		d[i] = (uint8_t)('0' + (i == 0 ? 1 + rnd(9) : rnd(10)));
	insert_bytes(buf, len, max, d, n);
}

static void mut_delete(uint8_t *buf, size_t *len, size_t max)
{
	(void)max;
	if (!*len)
		return;
	size_t at = rnd(*len), n = 1 + rnd(rnd(4) ? 4 : *len - at);
	if (n > *len - at)
		n = *len - at;
	memmove(buf + at, buf + at + n, *len - at - n);
	*len -= n;
}

static void mut_duplicate(uint8_t *buf, size_t *len, size_t max)
{
	if (!*len)
		return;
	size_t from = rnd(*len), n = 1 + rnd(*len - from);
	if (n > 256)
		n = 1 + rnd(256);
	uint8_t tmp[256];
	memcpy(tmp, buf + from, n);
	insert_bytes(buf, len, max, tmp, n);
}

/* Prefix of this input + suffix of another seed. */
static void mut_splice(uint8_t *buf, size_t *len, size_t max)
{
	const struct input *o = &inputs[rnd(ninputs)];
	size_t cut = rnd(*len + 1), from = rnd(o->len + 1), n = o->len - from;
	if (cut + n > max)
		n = max - cut;
	memcpy(buf + cut, o->data + from, n);
	*len = cut + n;
}

/* Replaces a run of digits with an extreme number. */
static void mut_number(uint8_t *buf, size_t *len, size_t max)
{
	if (!*len)
		return;
	size_t at = rnd(*len), end;
	while (at < *len && (buf[at] < '0' || buf[at] > '9'))
		at++;
	if (at == *len)
		return;
	for (end = at; end < *len && buf[end] >= '0' && buf[end] <= '9'; end++)
		;
	static const char *const nums[] = {"0",
					   "1",
					   "-1",
					   "255",
					   "256",
					   "65535",
					   "65536",
					   "2147483648",
					   "4294967296",
					   "18446744073709551615",
					   "18446744073709551616",
					   "99999999999999999999999999",
					   "4095",
					   "4096",
					   "1e400",
					   "0.000000001"};
	const char *s = nums[rnd(sizeof(nums) / sizeof(nums[0]))];
	size_t n = strlen(s);
	if (*len - (end - at) + n > max)
		return;
	memmove(buf + at + n, buf + end, *len - end);
	memcpy(buf + at, s, n);
	*len = *len - (end - at) + n;
}

static void mut_truncate(uint8_t *buf, size_t *len, size_t max)
{
	(void)buf;
	(void)max;
	if (*len)
		*len = rnd(*len);
}

static void mut_fill(uint8_t *buf, size_t *len, size_t max)
{
	(void)max;
	if (!*len)
		return;
	size_t at = rnd(*len), n = 1 + rnd(*len - at < 32 ? *len - at : 32);
	memset(buf + at,
	       rnd(2) ? interesting_bytes[rnd(sizeof(interesting_bytes))] : (uint8_t)rng(), n);
}

/* Copies a whole line of the input to another place (line-based formats). */
static void mut_line(uint8_t *buf, size_t *len, size_t max)
{
	if (!*len)
		return;
	size_t s = rnd(*len), e;
	while (s > 0 && buf[s - 1] != '\n')
		s--;
	for (e = s; e < *len && buf[e] != '\n'; e++)
		;
	if (e < *len)
		e++;
	size_t n = e - s;
	if (!n || n > 1024)
		return;
	uint8_t *tmp = malloc(n);
	if (!tmp)
		abort();
	memcpy(tmp, buf + s, n);
	size_t at = rnd(*len + 1);
	while (at > 0 && at < *len && buf[at - 1] != '\n')
		at--;
	if (*len + n <= max) {
		memmove(buf + at + n, buf + at, *len - at);
		memcpy(buf + at, tmp, n);
		*len += n;
	}
	free(tmp);
}

static void mut_swap(uint8_t *buf, size_t *len, size_t max)
{
	(void)max;
	if (*len < 2)
		return;
	size_t a = rnd(*len), b = rnd(*len);
	uint8_t t = buf[a];
	buf[a] = buf[b];
	buf[b] = t;
}

static void (*const mutators[])(uint8_t *, size_t *, size_t) = {
    mut_flip,	mut_set,    mut_interesting, mut_interesting, mut_insert,    mut_token,
    mut_token,	mut_digits, mut_delete,	     mut_delete,      mut_duplicate, mut_splice,
    mut_number, mut_number, mut_truncate,    mut_fill,	      mut_line,	     mut_swap,
};

static unsigned long env_ulong(const char *name, unsigned long def)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return def;
	char *end;
	unsigned long v = strtoul(s, &end, 0);
	return *end ? def : v;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
		return 2;
	}
	const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	const char *tmp = getenv("TMPDIR");
	snprintf(crash_path, sizeof(crash_path), "%s/pmutop-fuzz-crash-%s-%ld",
		 tmp && *tmp ? tmp : "/tmp", prog, (long)getpid());
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(report_crash);
	else {
		signal(SIGSEGV, on_signal);
		signal(SIGBUS, on_signal);
		signal(SIGFPE, on_signal);
		signal(SIGILL, on_signal);
	}
	signal(SIGABRT, on_signal);

	for (int i = 1; i < argc; i++)
		if (load_arg(argv[i]) < 0)
			return 1;
	if (!ninputs)
		add_input("(empty)", calloc(1, 1), 0);

	unsigned long runs =
	    env_ulong("PMUTOP_FUZZ_RUNS", &fuzz_default_runs ? fuzz_default_runs : 20000);
	unsigned long seed = env_ulong("PMUTOP_FUZZ_SEED", 1);
	double seconds = (double)env_ulong("PMUTOP_FUZZ_SECONDS", 60);
	size_t max = env_ulong("PMUTOP_FUZZ_MAX_LEN", 4096);
	for (size_t i = 0; i < ninputs; i++)
		if (inputs[i].len > max)
			max = inputs[i].len;
	rng_state = seed;

	double t0 = now_s();
	unsigned long done = 0;
	for (size_t i = 0; i < ninputs; i++)
		run_one(inputs[i].data, inputs[i].len, done++);
	printf("%s: %zu seed inputs passed\n", prog, ninputs);

	uint8_t *buf = malloc(max + 1), *prev = malloc(max + 1);
	size_t len = 0, prev_len = 0;
	if (!buf || !prev)
		abort();
	unsigned long m;
	for (m = 0; m < runs; m++) {
		if ((m & 63) == 0 && now_s() - t0 > seconds) {
			printf("%s: stopped after %.0f s (PMUTOP_FUZZ_SECONDS)\n", prog, seconds);
			break;
		}
		/* A quarter of the time keep mutating the last input: deeper changes. */
		if (m && rnd(4) == 0) {
			memcpy(buf, prev, prev_len);
			len = prev_len;
		} else {
			const struct input *in = &inputs[rnd(ninputs)];
			len = in->len;
			memcpy(buf, in->data, len);
		}
		size_t n = 1 + rnd(rnd(8) ? 3 : 8);
		for (size_t k = 0; k < n; k++)
			mutators[rnd(sizeof(mutators) / sizeof(mutators[0]))](buf, &len, max);
		memcpy(prev, buf, len);
		prev_len = len;
		run_one(buf, len, done++);
	}
	free(buf);
	free(prev);
	printf("%s: %lu mutated inputs (seed %lu) in %.1f s\n", prog, m, seed, now_s() - t0);
	printf("%lu passed, 0 failed\n", done);
	for (size_t i = 0; i < ninputs; i++) {
		free(inputs[i].name);
		free(inputs[i].data);
	}
	free(inputs);
	return 0;
}
