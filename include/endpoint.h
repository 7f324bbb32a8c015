/* SPDX-License-Identifier: GPL-2.0-or-later */
/* endpoint.h: the --listen HTTP endpoint that serves GET /metrics from the run loop. */
#ifndef PMUTOP_ENDPOINT_H
#define PMUTOP_ENDPOINT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENDPOINT_MAX_CLIENTS 4 /* connections at once; a new one replaces the oldest */
#define ENDPOINT_BACKLOG                                                                           \
	64 /* connections the kernel completes before pmutop takes them: a few                     \
	    * scrapers and a browser (6 at once) while a tick is computed */
#define ENDPOINT_REQUEST_MAX 4096	  /* bytes of request head read; more is refused */
#define ENDPOINT_TIMEOUT_NS 5000000000ull /* a connection is closed after 5 s, done or not */

struct loop;
struct endpoint;

/* Parses "[ADDR:]PORT" ("9100", "0.0.0.0:9100", "[::1]:9100"; the address defaults to
 * 127.0.0.1). Returns 0, or -1 with a message. */
int endpoint_parse(const char *spec, char *host, size_t hostlen, char *port, size_t portlen,
		   char *err, size_t errlen);
/* Binds and listens (non-blocking); NULL with a message. */
struct endpoint *endpoint_open(const char *spec, char *err, size_t errlen);
/* "127.0.0.1:9100" as bound (port 0 becomes the port the kernel chose). */
const char *endpoint_address(const struct endpoint *ep);
/* Puts the listening socket (and later each connection) under @loop's watch; -1 when the loop
 * watches too many inputs. */
int endpoint_attach(struct endpoint *ep, struct loop *loop);
/* Handles input on @fd if it is the endpoint's; returns true when it was. */
bool endpoint_input(struct endpoint *ep, int fd, uint64_t now_ns);
/* Continues pending writes and closes connections past their time. */
void endpoint_poll(struct endpoint *ep, uint64_t now_ns);
/* The pages GET /metrics returns from now on (copied): @openmetrics to a scraper whose Accept
 * header names application/openmetrics-text, @prometheus (text format 0.0.4) to the others.
 * Returns 0, or -1 when out of memory (the previous pages stay). */
int endpoint_publish(struct endpoint *ep, const char *openmetrics, size_t nopenmetrics,
		     const char *prometheus, size_t nprometheus);
void endpoint_close(struct endpoint *ep);

#endif
