/*
 * lab_net.c - the lab's net part: the controller's veth pair, the
 * unreachable route and a network namespace per worker (lab.c says more).
 */
#define _GNU_SOURCE
#include "lab_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- part: net -------------------------------------------------------------------- */

void lab_worker_ip(int w, int host_side, char *out, size_t n)
{
	snprintf(out, n, "10.77.%d.%d", w, host_side ? 1 : 2);
}

/* Workers reach each other's replicas and ranks, as a cluster's nodes do:
 * the host forwards what comes in on a worker's link (the per-link
 * switch, never the machine-wide net.ipv4.ip_forward), and a forward
 * filter of the lab's own (nft table gl_lab_forward) drops whatever would
 * leave the lab's links either way, so nothing from a worker reaches
 * another network and nothing from outside reaches a worker. The table is
 * journaled first; the switches go with the links at `lab down`. 0, or
 * -1 with why in out. */
static int lab_up_forward(struct lab *L, char *out, size_t n)
{
	char p[128];
	int fd;

	lab_journal_add(L, "nft\tgl_lab_forward");
	if (LAB_RUN(out, n, 5000, "nft", "add", "table", "inet", "gl_lab_forward") != 0 ||
	    LAB_RUN(out, n, 5000, "nft", "add", "chain", "inet", "gl_lab_forward", "forward",
		    "{ type filter hook forward priority 0; policy accept; }") != 0 ||
	    LAB_RUN(out, n, 5000, "nft", "add", "rule", "inet", "gl_lab_forward", "forward", "iifname", "\"gl-lab-w*\"",
		    "oifname", "!=", "\"gl-lab-w*\"", "drop") != 0 ||
	    LAB_RUN(out, n, 5000, "nft", "add", "rule", "inet", "gl_lab_forward", "forward", "oifname", "\"gl-lab-w*\"",
		    "iifname", "!=", "\"gl-lab-w*\"", "drop") != 0)
		return -1;
	for (int w = 1; w <= L->workers; w++) {
		snprintf(p, sizeof(p), "/proc/sys/net/ipv4/conf/gl-lab-w%dh/forwarding", w);
		fd = open(p, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, "1\n", 2) != 2) {
			snprintf(out, n, "%s: %s", p, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

void lab_up_net(struct lab *L)
{
	char out[2048], ns[32], h[32], c[32], a[64], ip[32];

	if (!L->root) {
		lab_part(L, "net", 0,
			 "needs root (network namespaces, veth links); workers serve on 127.0.0.1 instead");
		return;
	}
	if (!lab_have("ip")) {
		lab_part(L, "net", 0, "the ip command (iproute2) is not installed");
		return;
	}
	/* 10.77.0.0/16 must be free here: nothing of ours, nothing of the host */
	if ((LAB_RUN(out, sizeof(out), 5000, "ip", "-o", "-4", "addr", "show", "to", "10.77.0.0/16") == 0 && out[0]) ||
	    (LAB_RUN(out, sizeof(out), 5000, "ip", "-4", "route", "show", "root", "10.77.0.0/16") == 0 && out[0])) {
		lab_part(L, "net", 0, "10.77.0.0/16 is already in use on this machine: %.200s", out);
		return;
	}
	/* Nothing for the lab's addresses may leave this machine: while a
	 * worker's link is down (link_flap) its /24 route is gone, and without
	 * this route its packets would follow the default route out. */
	lab_journal_add(L, "route\t10.77.0.0/16");
	if (LAB_RUN(out, sizeof(out), 5000, "ip", "route", "add", "unreachable", "10.77.0.0/16") != 0) {
		lab_part(L, "net", 0, "ip route add unreachable 10.77.0.0/16: %.300s", out);
		return;
	}
	lab_journal_add(L, "link\tgl-lab0");
	/* a veth pair rather than a dummy: kernels without the dummy module have it */
	if (LAB_RUN(out, sizeof(out), 5000, "ip", "link", "add", "gl-lab0", "type", "veth", "peer", "name",
		    "gl-lab0p") != 0 ||
	    LAB_RUN(out, sizeof(out), 5000, "ip", "addr", "add", "10.77.0.1/32", "dev", "gl-lab0") != 0 ||
	    LAB_RUN(out, sizeof(out), 5000, "ip", "link", "set", "gl-lab0p", "up") != 0 ||
	    LAB_RUN(out, sizeof(out), 5000, "ip", "link", "set", "gl-lab0", "up") != 0) {
		lab_part(L, "net", 0, "cannot make the controller's interface gl-lab0: %.300s", out);
		return;
	}
	for (int w = 1; w <= L->workers; w++) {
		snprintf(ns, sizeof(ns), "gl-lab-w%d", w);
		snprintf(h, sizeof(h), "gl-lab-w%dh", w);
		snprintf(c, sizeof(c), "gl-lab-w%dn", w);
		lab_journal_add(L, "netns\t%s", ns);
		if (LAB_RUN(out, sizeof(out), 5000, "ip", "netns", "add", ns) != 0) {
			lab_part(L, "net", 0, "ip netns add %s: %.300s", ns, out);
			return;
		}
		lab_journal_add(L, "link\t%s", h);
		lab_worker_ip(w, 1, ip, sizeof(ip));
		snprintf(a, sizeof(a), "%s/24", ip);
		if (LAB_RUN(out, sizeof(out), 5000, "ip", "link", "add", h, "type", "veth", "peer", "name", c) != 0 ||
		    LAB_RUN(out, sizeof(out), 5000, "ip", "link", "set", c, "netns", ns) != 0 ||
		    LAB_RUN(out, sizeof(out), 5000, "ip", "addr", "add", a, "dev", h) != 0 ||
		    LAB_RUN(out, sizeof(out), 5000, "ip", "link", "set", h, "up") != 0) {
			lab_part(L, "net", 0, "veth %s <-> %s: %.300s", h, c, out);
			return;
		}
		lab_worker_ip(w, 0, ip, sizeof(ip));
		snprintf(a, sizeof(a), "%s/24", ip);
		lab_worker_ip(w, 1, ip, sizeof(ip));
		if (LAB_RUN(out, sizeof(out), 5000, "ip", "-n", ns, "link", "set", "lo", "up") != 0 ||
		    LAB_RUN(out, sizeof(out), 5000, "ip", "-n", ns, "addr", "add", a, "dev", c) != 0 ||
		    LAB_RUN(out, sizeof(out), 5000, "ip", "-n", ns, "link", "set", c, "up") != 0 ||
		    LAB_RUN(out, sizeof(out), 5000, "ip", "-n", ns, "route", "add", "default", "via", ip) != 0) {
			lab_part(L, "net", 0, "addresses in %s: %.300s", ns, out);
			return;
		}
	}
	if (lab_up_forward(L, out, sizeof(out)) != 0) {
		lab_part(L, "net", 0, "forwarding between the workers: %.300s", out);
		return;
	}
	L->net = 1;
	lab_part(L, "net", 1,
		 "%d worker namespaces gl-lab-w1..w%d on 10.77.N.2/24, host side 10.77.N.1 (gl-lab-wNh), "
		 "controller 10.77.0.1 (gl-lab0, a veth pair); workers reach each other through the host",
		 L->workers, L->workers);
}
