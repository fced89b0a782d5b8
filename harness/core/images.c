/*
 * images.c - the images the workloads run (those whose ops say imaged,
 * plugin.h; images.h). Read at run start with the inventory; what the
 * scenario names, what each host's runtime holds under that name, and
 * what the Kubernetes pods of the workload report they run.
 */
#define _GNU_SOURCE
#include "images.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "imageref.h"
#include "inventory.h"
#include "paths.h"
#include "plugin.h"

struct coll {
	const struct gl_scenario *sc;
	const cJSON *hosts;
	int64_t end_ns;
	cJSON *out;
};

/* Printable ASCII of outside text (a pod's image, a tool's message): the
 * manifest must stay valid UTF-8 whatever a host or API printed. */
static void clean(const char *s, size_t n, char *out, size_t outn)
{
	size_t k = 0;

	while (n && (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t'))
		s++, n--;
	for (size_t i = 0; i < n && s[i] && k + 1 < outn && s[i] != '\n' && s[i] != '\r'; i++)
		out[k++] = (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f ? s[i] : '?';
	while (k && out[k - 1] == ' ')
		k--;
	out[k] = '\0';
}

static cJSON *entry(struct coll *c, const char *workload, const char *source)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "workload", workload);
	cJSON_AddStringToObject(o, "source", source);
	cJSON_AddItemToArray(c->out, o);
	return o;
}

/* The common tail of every entry: image, digest or null, pinned (the
 * image is named by digest), status and reason (null when measured). */
static void finish(cJSON *o, const char *image, const char *digest, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void finish(cJSON *o, const char *image, const char *digest, const char *fmt, ...)
{
	char ref_digest[GL_IMAGE_DIGEST_LEN + 1] = "", why[600];
	va_list ap;

	if (image) {
		cJSON_AddStringToObject(o, "image", image);
		if (gl_image_ref_check(image, ref_digest, NULL) != 0)
			ref_digest[0] = '\0';
	} else {
		cJSON_AddNullToObject(o, "image");
	}
	if (digest && digest[0])
		cJSON_AddStringToObject(o, "digest", digest);
	else
		cJSON_AddNullToObject(o, "digest");
	cJSON_AddBoolToObject(o, "pinned", ref_digest[0] != '\0');
	cJSON_AddStringToObject(o, "status", digest && digest[0] ? "measured" : "unavailable");
	if (!fmt) {
		cJSON_AddNullToObject(o, "reason");
		return;
	}
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	cJSON_AddStringToObject(o, "reason", why);
}

/* Milliseconds one command may take now; < 100: the budget is spent. */
static int64_t deadline_ms(const struct coll *c)
{
	int64_t left = (c->end_ns - gl_now_ns()) / 1000000;

	return left < GL_INVENTORY_CMD_MS ? left : GL_INVENTORY_CMD_MS;
}

/* "" when the inventory reached the host, else why not. */
static const char *unreachable(const struct coll *c, const char *host)
{
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c->hosts, host), "kernel");
	const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(k, "why"));

	return why && !strncmp(why, "host not reachable", 18) ? why : "";
}

/* One inspect tool on one host: 0 and f filled, 127 when the tool is not
 * there, else -1 with why. */
static int inspect(struct coll *c, const struct gl_host *h, const char *tool, const char *image,
		   struct gl_image_found *f, char *why, size_t whyn)
{
	const char *crictl[] = { "crictl", "inspecti", "-o", "json", image, NULL };
	const char *docker[] = { "docker", "image", "inspect", image, NULL };
	int is_crictl = !strcmp(tool, "crictl");
	struct gl_exec_result r;
	struct gl_err err = { 0 };
	int64_t dl = deadline_ms(c);
	char line[300];
	int rc = -1;

	gl_buf_init(&r.out, 1);
	if (dl < 100) {
		snprintf(why, whyn, "not collected: the inventory's time budget was spent");
		goto out;
	}
	if (gl_host_exec(h, is_crictl ? crictl : docker, dl, &r, &err) != 0) {
		snprintf(why, whyn, "%s", err.msg);
		goto out;
	}
	if (r.exit_status == 127) {
		rc = 127;
		goto out;
	}
	if (r.exit_status != 0) {
		clean(r.out.data ? r.out.data : "", r.out.len, line, sizeof(line));
		snprintf(why, whyn, "%s exited %d: %s", is_crictl ? "crictl inspecti" : "docker image inspect",
			 r.exit_status, line[0] ? line : "(no output)");
		goto out;
	}
	rc = is_crictl ? gl_image_parse_crictl(r.out.data, r.out.len, image, f, &err)
		       : gl_image_parse_docker(r.out.data, r.out.len, image, f, &err);
	if (rc)
		snprintf(why, whyn, "%s", err.msg);
	rc = rc ? -1 : 0;
out:
	gl_buf_free(&r.out);
	return rc;
}

/* The image as each reachable host's runtime holds it: crictl, else
 * docker. */
static void from_hosts(struct coll *c, const char *workload, const char *image)
{
	for (int i = 0; i < c->sc->n_hosts; i++) {
		const struct gl_host *h = &c->sc->hosts[i];
		const char *down = unreachable(c, h->name);
		struct gl_image_found f;
		char why_c[400] = "", why_d[400] = "";
		int rc_c, rc_d = 127;
		cJSON *o = entry(c, workload, "host");

		cJSON_AddStringToObject(o, "host", h->name);
		if (down[0]) {
			finish(o, image, NULL, "%s", down);
			continue;
		}
		rc_c = inspect(c, h, "crictl", image, &f, why_c, sizeof(why_c));
		if (rc_c == 0) {
			cJSON_AddStringToObject(o, "command", "crictl inspecti -o json");
			cJSON_AddStringToObject(o, "repo_digest", f.repo_digest);
			finish(o, image, f.digest, NULL);
			continue;
		}
		rc_d = inspect(c, h, "docker", image, &f, why_d, sizeof(why_d));
		if (rc_d == 0) {
			cJSON_AddStringToObject(o, "command", "docker image inspect");
			cJSON_AddStringToObject(o, "repo_digest", f.repo_digest);
			finish(o, image, f.digest, NULL);
		} else if (rc_c == 127 && rc_d == 127) {
			finish(o, image, NULL, "neither crictl nor docker found on the host");
		} else {
			finish(o, image, NULL, "%s%s%s", rc_c == 127 ? "" : why_c,
			       rc_c != 127 && rc_d != 127 ? "; " : "", rc_d == 127 ? "" : why_d);
		}
	}
}

struct pods_arg {
	struct coll *c;
	const char *workload;
};

static int on_pod(void *arg, const struct gl_pod_image *pi)
{
	struct pods_arg *a = arg;
	char pod[256], ctr[256], image[GL_IMAGE_REF_MAX], id[GL_IMAGE_REF_MAX];
	cJSON *o = entry(a->c, a->workload, "kubernetes");

	clean(pi->pod, strlen(pi->pod), pod, sizeof(pod));
	clean(pi->container, strlen(pi->container), ctr, sizeof(ctr));
	clean(pi->image, strlen(pi->image), image, sizeof(image));
	clean(pi->image_id, strlen(pi->image_id), id, sizeof(id));
	cJSON_AddStringToObject(o, "pod", pod);
	cJSON_AddStringToObject(o, "container", ctr);
	if (pi->digest[0])
		finish(o, image[0] ? image : NULL, pi->digest, NULL);
	else
		finish(o, image[0] ? image : NULL, NULL,
		       "the container's imageID '%s' holds no sha256 digest "
		       "(not started yet?)",
		       id);
	return 0;
}

/* Append s to b percent-encoded (RFC 3986 unreserved kept). */
static void url_escape(struct gl_buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char u = (unsigned char)*s;
		if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '-' ||
		    u == '.' || u == '_' || u == '~')
			gl_buf_append(b, s, 1);
		else
			gl_buf_printf(b, "%%%02X", u);
	}
}

/* GET the pods of image_source's namespace matching its selector. */
static void from_kubernetes(struct coll *c, const char *workload, const cJSON *src)
{
	const char *api = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(src, "kubernetes"));
	const char *ns = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(src, "namespace"));
	const char *sel = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(src, "pod_selector"));
	const char *ca = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(src, "ca_bundle"));
	struct gl_http_opts ho = { 0 };
	struct gl_http_resp r = { 0 };
	struct gl_err err = { 0 };
	struct pods_arg pa = { c, workload };
	struct gl_buf url;
	char real[PATH_MAX], msg[300];
	size_t n;
	int rc;

	gl_buf_init(&url, 8192);
	if (!api || !ns || !sel) { /* validate requires them */
		finish(entry(c, workload, "kubernetes"), NULL, NULL,
		       "image_source needs kubernetes, namespace and "
		       "pod_selector");
		goto out;
	}
	ho.token_env = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(src, "token_env"));
	if (ca) {
		if (gl_path_confine(c->sc->path, c->sc->root, ca, real, sizeof(real), &err) != 0) {
			finish(entry(c, workload, "kubernetes"), NULL, NULL, "ca_bundle: %s", err.msg);
			goto out;
		}
		ho.ca_bundle = real;
	}
	ho.deadline_ms = deadline_ms(c);
	ho.max_body = GL_IMAGE_OUT_MAX;
	n = strlen(api);
	while (n && api[n - 1] == '/')
		n--;
	gl_buf_printf(&url, "%.*s/api/v1/namespaces/", (int)n, api);
	url_escape(&url, ns);
	gl_buf_printf(&url, "/pods?labelSelector=");
	url_escape(&url, sel);
	if (ho.deadline_ms < 100) {
		finish(entry(c, workload, "kubernetes"), NULL, NULL,
		       "not collected: the inventory's time budget was spent");
		goto out;
	}
	if (url.cut || gl_http_do("GET", url.data, NULL, NULL, &ho, &r, &err) != 0) {
		finish(entry(c, workload, "kubernetes"), NULL, NULL, "%s",
		       url.cut ? "the request URL is too long" : err.msg);
		goto out;
	}
	if (r.status != 200) {
		cJSON *st = cJSON_ParseWithLength(r.body.data ? r.body.data : "", r.body.len);
		const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "message"));
		clean(m ? m : "", m ? strlen(m) : 0, msg, sizeof(msg));
		finish(entry(c, workload, "kubernetes"), NULL, NULL, "GET %s: HTTP %ld%s%s", url.data, r.status,
		       msg[0] ? ": " : "", msg);
		cJSON_Delete(st);
		goto out;
	}
	rc = gl_image_parse_pods(r.body.data ? r.body.data : "", r.body.len, on_pod, &pa, &err);
	if (rc < 0)
		finish(entry(c, workload, "kubernetes"), NULL, NULL, "GET %s: %s", url.data, err.msg);
	else if (rc == 0)
		finish(entry(c, workload, "kubernetes"), NULL, NULL,
		       "no started container in the pods matching "
		       "'%s' in namespace %s",
		       sel, ns);
out:
	gl_buf_free(&r.body);
	gl_buf_free(&url);
}

cJSON *gl_images_collect(const struct gl_scenario *sc, const cJSON *hosts, int64_t end_ns)
{
	struct coll c = { sc, hosts, end_ns, cJSON_CreateArray() };

	if (!c.out)
		return NULL;
	for (int i = 0; i < sc->n_workloads; i++) {
		const struct gl_workload_spec *w = &sc->workloads[i];
		const struct gl_workload_ops *ops = gl_workload_find(w->name);
		const char *image = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(w->cfg, "image"));
		const cJSON *src = cJSON_GetObjectItemCaseSensitive(w->cfg, "image_source");
		char d[GL_IMAGE_DIGEST_LEN + 1];
		if (!ops || !ops->imaged)
			continue;
		if (image) {
			if (gl_image_ref_check(image, d, NULL) != 0) { /* validate refuses it: never here */
				finish(entry(&c, w->name, "scenario"), NULL, NULL, "not an image reference");
				continue;
			}
			if (d[0])
				finish(entry(&c, w->name, "scenario"), image, d, NULL);
			else
				finish(entry(&c, w->name, "scenario"), image, NULL,
				       "named by tag only: the scenario does not pin a digest");
			from_hosts(&c, w->name, image);
		}
		if (cJSON_IsObject(src))
			from_kubernetes(&c, w->name, src);
	}
	return c.out;
}
