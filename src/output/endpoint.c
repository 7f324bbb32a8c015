/* SPDX-License-Identifier: GPL-2.0-or-later */
/* endpoint.c: a small non-blocking HTTP/1.x server for GET /metrics, driven by the run loop. */
#include "endpoint.h"
#include "loop.h"
#include "openmetrics.h"
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

struct client {
	int fd; /* -1: free */
	uint64_t since_ns;
	char req[ENDPOINT_REQUEST_MAX];
	size_t nreq;
	char *resp; /* the response being written, NULL before the request is complete */
	size_t nresp, sent;
};

struct endpoint {
	int fd;
	char address[96];
	struct loop *loop;
	struct client clients[ENDPOINT_MAX_CLIENTS];
	char *page[2]; /* by enum om_flavour */
	size_t npage[2];
};

int endpoint_parse(const char *spec, char *host, size_t hostlen, char *port, size_t portlen,
		   char *err, size_t errlen)
{
	const char *colon = strrchr(spec, ':'), *p;
	const char *h = "127.0.0.1", *pt = spec;
	size_t hl = strlen(h);
	if (colon) {
		h = spec;
		hl = (size_t)(colon - spec);
		pt = colon + 1;
		if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {
			h++;
			hl -= 2;
		}
	}
	long v = 0;
	for (p = pt; *p >= '0' && *p <= '9' && v <= 65535; p++)
		v = v * 10 + (*p - '0');
	if (p == pt || *p || v > 65535) {
		snprintf(err, errlen, "--listen: \"%.64s\" is not [ADDR:]PORT with a port 0..65535",
			 spec);
		return -1;
	}
	if (hl == 0 || hl >= hostlen) {
		snprintf(err, errlen, "--listen: \"%.64s\": no address before the port", spec);
		return -1;
	}
	for (size_t i = 0; i < hl; i++)
		if (!((h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'z') ||
		      (h[i] >= 'A' && h[i] <= 'Z') || strchr(".-:", h[i]))) {
			snprintf(err, errlen, "--listen: \"%.64s\": bad address", spec);
			return -1;
		}
	memcpy(host, h, hl);
	host[hl] = '\0';
	snprintf(port, portlen, "%ld", v);
	return 0;
}

struct endpoint *endpoint_open(const char *spec, char *err, size_t errlen)
{
	char host[64], port[8];
	struct addrinfo hints = {.ai_family = AF_UNSPEC,
				 .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE | AI_NUMERICSERV},
			*res = NULL;
	if (endpoint_parse(spec, host, sizeof(host), port, sizeof(port), err, errlen) < 0)
		return NULL;
	int rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0) {
		snprintf(err, errlen, "--listen %s: %s", spec, gai_strerror(rc));
		return NULL;
	}
	int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, res->ai_addr, res->ai_addrlen) < 0 || listen(fd, ENDPOINT_BACKLOG) < 0) {
		snprintf(err, errlen, "--listen %s: %s", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		return NULL;
	}
	freeaddrinfo(res);
	struct endpoint *ep = calloc(1, sizeof(*ep));
	if (!ep) {
		close(fd);
		snprintf(err, errlen, "--listen: out of memory");
		return NULL;
	}
	ep->fd = fd;
	for (int i = 0; i < ENDPOINT_MAX_CLIENTS; i++)
		ep->clients[i].fd = -1;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char h[64] = "?", s[8] = "?";
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
		getnameinfo((struct sockaddr *)&ss, sl, h, sizeof(h), s, sizeof(s),
			    NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(ep->address, sizeof(ep->address), strchr(h, ':') ? "[%s]:%s" : "%s:%s", h, s);
	return ep;
}

const char *endpoint_address(const struct endpoint *ep) { return ep->address; }

int endpoint_attach(struct endpoint *ep, struct loop *loop)
{
	ep->loop = loop;
	return loop_watch(loop, ep->fd);
}

static void drop(struct endpoint *ep, struct client *c)
{
	if (c->fd < 0)
		return;
	if (ep->loop)
		loop_unwatch(ep->loop, c->fd);
	close(c->fd);
	free(c->resp);
	c->fd = -1;
	c->resp = NULL;
}

/* Sends what the socket takes now; the rest waits for the next poll. */
static void flush(struct endpoint *ep, struct client *c)
{
	while (c->resp && c->sent < c->nresp) {
		ssize_t n =
		    send(c->fd, c->resp + c->sent, c->nresp - c->sent, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			c->sent += (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		break; /* the client went away */
	}
	drop(ep, c);
}

static void respond(struct endpoint *ep, struct client *c, int status, const char *reason,
		    const char *type, const char *body, size_t nbody)
{
	char head[256];
	int nh = snprintf(head, sizeof(head),
			  "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			  "Connection: close\r\n\r\n",
			  status, reason, type, nbody);
	bool head_only = strncmp(c->req, "HEAD ", 5) == 0;
	c->nresp = (size_t)nh + (head_only ? 0 : nbody);
	c->resp = malloc(c->nresp ? c->nresp : 1);
	if (!c->resp) {
		drop(ep, c);
		return;
	}
	memcpy(c->resp, head, (size_t)nh);
	if (!head_only && nbody)
		memcpy(c->resp + nh, body, nbody);
	c->sent = 0;
	flush(ep, c);
}

/* Does the request head have an Accept header that names OpenMetrics? */
static bool accepts_openmetrics(const char *req)
{
	for (const char *line = strchr(req, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		if (strncasecmp(line + 1, "Accept:", 7) != 0)
			continue;
		size_t len = strcspn(line + 1, "\r\n");
		const char *hit = strstr(line + 1, "application/openmetrics-text");
		return hit && hit < line + 1 + len;
	}
	return false;
}

static void handle_request(struct endpoint *ep, struct client *c)
{
	static const char not_found[] = "only /metrics is served here\n";
	static const char bad[] = "bad request\n";
	char method[8] = "", path[256] = "";
	if (sscanf(c->req, "%7s %255s HTTP/1.%*c", method, path) != 2) {
		respond(ep, c, 400, "Bad Request", "text/plain", bad, sizeof(bad) - 1);
		return;
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
		respond(ep, c, 405, "Method Not Allowed", "text/plain", bad, sizeof(bad) - 1);
		return;
	}
	size_t plen = strcspn(path, "?");
	if (plen != 8 || strncmp(path, "/metrics", 8) != 0) {
		respond(ep, c, 404, "Not Found", "text/plain", not_found, sizeof(not_found) - 1);
		return;
	}
	/* Prometheus asks for OpenMetrics in its Accept header; curl and older scrapers do not */
	enum om_flavour fl = accepts_openmetrics(c->req) ? OM_OPENMETRICS : OM_PROMETHEUS;
	static const char empty[2][8] = {"# EOF\n", ""}; /* before the first frame */
	respond(ep, c, 200, "OK",
		fl == OM_OPENMETRICS ? OM_CONTENT_TYPE_OPENMETRICS : OM_CONTENT_TYPE_PROMETHEUS,
		ep->page[fl] ? ep->page[fl] : empty[fl],
		ep->page[fl] ? ep->npage[fl] : strlen(empty[fl]));
}

static void accept_clients(struct endpoint *ep, uint64_t now_ns)
{
	for (;;) {
		int fd = accept4(ep->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return; /* EAGAIN, or a connection that went away before it was taken */
		/* a free slot, else the oldest connection's: idle connections cannot keep a
		 * scraper out (a few connections at most) */
		struct client *c = NULL, *oldest = &ep->clients[0];
		for (int i = 0; i < ENDPOINT_MAX_CLIENTS && !c; i++) {
			if (ep->clients[i].fd < 0)
				c = &ep->clients[i];
			else if (ep->clients[i].since_ns < oldest->since_ns)
				oldest = &ep->clients[i];
		}
		if (!c) {
			drop(ep, oldest);
			c = oldest;
		}
		if (loop_watch(ep->loop, fd) < 0) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->since_ns = now_ns;
		c->nreq = 0;
		c->resp = NULL;
	}
}

static void read_request(struct endpoint *ep, struct client *c)
{
	if (c->resp) { /* answered already: whatever else comes is not read */
		char sink[512];
		if (recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT) == 0)
			drop(ep, c);
		return;
	}
	ssize_t n = recv(c->fd, c->req + c->nreq, sizeof(c->req) - 1 - c->nreq, MSG_DONTWAIT);
	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			drop(ep, c);
		return;
	}
	c->nreq += (size_t)n;
	c->req[c->nreq] = '\0';
	if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n"))
		handle_request(ep, c);
	else if (c->nreq >= sizeof(c->req) - 1) {
		static const char big[] = "request head too large\n";
		respond(ep, c, 431, "Request Header Fields Too Large", "text/plain", big,
			sizeof(big) - 1);
	}
}

bool endpoint_input(struct endpoint *ep, int fd, uint64_t now_ns)
{
	if (fd == ep->fd) {
		accept_clients(ep, now_ns);
		return true;
	}
	for (int i = 0; i < ENDPOINT_MAX_CLIENTS; i++)
		if (ep->clients[i].fd == fd) {
			read_request(ep, &ep->clients[i]);
			return true;
		}
	return false;
}

void endpoint_poll(struct endpoint *ep, uint64_t now_ns)
{
	for (int i = 0; i < ENDPOINT_MAX_CLIENTS; i++) {
		struct client *c = &ep->clients[i];
		if (c->fd < 0)
			continue;
		if (now_ns - c->since_ns > ENDPOINT_TIMEOUT_NS)
			drop(ep, c);
		else if (c->resp)
			flush(ep, c);
	}
}

int endpoint_publish(struct endpoint *ep, const char *openmetrics, size_t nopenmetrics,
		     const char *prometheus, size_t nprometheus)
{
	const char *text[2] = {[OM_OPENMETRICS] = openmetrics, [OM_PROMETHEUS] = prometheus};
	size_t len[2] = {[OM_OPENMETRICS] = nopenmetrics, [OM_PROMETHEUS] = nprometheus};
	char *page[2];
	for (int i = 0; i < 2; i++)
		if (!(page[i] = malloc(len[i] ? len[i] : 1))) {
			if (i)
				free(page[0]);
			return -1;
		}
	for (int i = 0; i < 2; i++) {
		memcpy(page[i], text[i], len[i]);
		free(ep->page[i]);
		ep->page[i] = page[i];
		ep->npage[i] = len[i];
	}
	return 0;
}

void endpoint_close(struct endpoint *ep)
{
	if (!ep)
		return;
	for (int i = 0; i < ENDPOINT_MAX_CLIENTS; i++)
		drop(ep, &ep->clients[i]);
	if (ep->loop)
		loop_unwatch(ep->loop, ep->fd);
	close(ep->fd);
	free(ep->page[0]);
	free(ep->page[1]);
	free(ep);
}
