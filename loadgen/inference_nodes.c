/*
 * inference_nodes.c - the inference workload's per-node figures
 * (docs/nodes.md): each endpoint named by its address (host:port, never
 * the credentials a URL may carry) on the scenario host whose ssh host,
 * name or "address" it is, else on its own address; per request its TTFT (a success)
 * and whether it failed.
 */
#include "inference_int.h"

#include "nodes.h"

#include <string.h>

void inf_endpoint_node(struct inf *w, struct endpoint *ep)
{
	const struct gl_scenario *sc = gl_ctx_scenario(w->ctx);
	const char *p = strstr(ep->url, "://"), *end, *at;
	char addr[sizeof(ep->node)] = "", host[sizeof(ep->host)] = "";
	size_t n;

	p = p ? p + 3 : ep->url;
	end = p + strcspn(p, "/?#");
	for (at = p; at < end; at++) /* userinfo@: never kept */
		if (*at == '@')
			p = at + 1;
	n = (size_t)(end - p) < sizeof(addr) - 1 ? (size_t)(end - p) : sizeof(addr) - 1;
	memcpy(addr, p, n);
	addr[n] = '\0';
	/* the host part: "[v6]:port", "name:port" or "name" */
	if (addr[0] == '[') {
		const char *rb = strchr(addr, ']');
		n = rb ? (size_t)(rb - addr - 1) : strlen(addr + 1);
		snprintf(host, sizeof(host), "%.*s", (int)n, addr + 1);
	} else {
		snprintf(host, sizeof(host), "%.*s", (int)strcspn(addr, ":"), addr);
	}
	for (int i = 0; sc && i < sc->n_hosts; i++)
		if (!strcmp(sc->hosts[i].ssh_host, host) || !strcmp(sc->hosts[i].name, host) ||
		    !strcmp(sc->hosts[i].address, host)) {
			snprintf(host, sizeof(host), "%s", sc->hosts[i].name);
			break;
		}
	snprintf(ep->node, sizeof(ep->node), "%s", addr[0] ? addr : "-");
	snprintf(ep->host, sizeof(ep->host), "%s", host[0] ? host : "-");
	gl_node_text_fix(ep->node);
	gl_node_text_fix(ep->host);
}

void inf_node_record(struct inf *w, const struct req *r, int failed, double ttft_ms)
{
	const struct endpoint *ep = &w->eps[r->ep];

	gl_ctx_node(w->ctx, "inference", "endpoint", ep->node, ep->host, "errors", 1, failed ? 1 : 0, failed ? 1 : 0);
	if (!failed)
		gl_ctx_node(w->ctx, "inference", "endpoint", ep->node, ep->host, "ttft_ms", 1, ttft_ms, ttft_ms);
}
