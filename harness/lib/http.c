/*
 * http.c - one HTTP request with libcurl (easy interface), bounded in time
 * and size. See http.h.
 */
#include "http.h"
#include "secrets.h"
#include "stop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

static size_t on_body(char *d, size_t s, size_t n, void *arg)
{
	struct gl_http_resp *r = arg;
	return gl_buf_append(&r->body, d, s * n) == 0 ? s * n : 0;
}

static int on_progress(void *arg, curl_off_t dl_total, curl_off_t dl_now, curl_off_t ul_total, curl_off_t ul_now)
{
	(void)arg, (void)dl_total, (void)dl_now, (void)ul_total, (void)ul_now;
	return gl_stop_interrupts() != 0;
}

void gl_http_stoppable(void *curl)
{
	curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
}

int gl_http_do(const char *method, const char *url, const char *content_type, const char *body,
	       const struct gl_http_opts *o, struct gl_http_resp *resp, struct gl_err *err)
{
	struct gl_http_opts none = { 0 };
	struct curl_slist *h = NULL;
	char tok[16384], hdr[16500], user[512] = "", pass[512] = "";
	CURL *c;
	CURLcode rc;
	int ret = 0;

	if (!o)
		o = &none;
	resp->status = 0;
	gl_buf_init(&resp->body, o->max_body ? o->max_body : (4u << 20));
	if (gl_secret_read(o->token_env, o->token_file, tok, sizeof(tok), err) != 0)
		return -GL_EINVAL;
	if (o->basic_user_env && gl_secret_read(o->basic_user_env, NULL, user, sizeof(user), err) != 0)
		return -GL_EINVAL;
	if (o->basic_pass_env && gl_secret_read(o->basic_pass_env, NULL, pass, sizeof(pass), err) != 0)
		return -GL_EINVAL;
	c = curl_easy_init();
	if (!c)
		return gl_errf(err, GL_ENOMEM, "%s %s: cannot set up libcurl", method, url);
	if (tok[0]) {
		snprintf(hdr, sizeof(hdr), "Authorization: Bearer %s", tok);
		h = curl_slist_append(h, hdr);
		memset(hdr, 0, sizeof(hdr));
		memset(tok, 0, sizeof(tok));
	}
	if (content_type) {
		snprintf(hdr, sizeof(hdr), "Content-Type: %s", content_type);
		h = curl_slist_append(h, hdr);
	}
	h = curl_slist_append(h, "Accept: application/json");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (body)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(o->deadline_ms > 0 ? o->deadline_ms : 30000));
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, resp);
	gl_http_stoppable(c);
	if (o->ca_bundle)
		curl_easy_setopt(c, CURLOPT_CAINFO, o->ca_bundle);
	if (o->client_cert)
		curl_easy_setopt(c, CURLOPT_SSLCERT, o->client_cert);
	if (o->client_key)
		curl_easy_setopt(c, CURLOPT_SSLKEY, o->client_key);
	if (user[0]) {
		curl_easy_setopt(c, CURLOPT_USERNAME, user);
		curl_easy_setopt(c, CURLOPT_PASSWORD, pass);
	}
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);
	if (rc == CURLE_ABORTED_BY_CALLBACK && gl_stop_interrupts())
		ret = gl_errf(err, GL_ESTOPPED, "%s %s: stopped: %s came (the run is stopping)", method, url,
			      gl_stop_name(gl_stop_interrupts()));
	else if (rc != CURLE_OK)
		ret = gl_errf(err, rc == CURLE_OPERATION_TIMEDOUT ? GL_ETIMEDOUT : GL_EIO, "%s %s: %s", method, url,
			      rc == CURLE_WRITE_ERROR ? "response larger than the cap" : curl_easy_strerror(rc));
	memset(pass, 0, sizeof(pass));
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return ret;
}
