/*
 * test_prom.c - the Prometheus text parser (harness/lib/prom.c): DCGM exporter
 * text as exporters serve it, label escapes, special values, timestamps,
 * TYPE families, CRLF and a missing last newline, every cap, and garbage
 * answered with the right class and line; DCGM blank sentinels.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "prom.h"

struct got {
	int n;
	char name[8][64];
	char labels[8][256]; /* "k=v;k=v" */
	double value[8];
	int has_ts[8];
	long long ts[8];
	int type[8];
	int line[8];
	int stop_at; /* stop after this many (0: never) */
};

static int collect(void *arg, const struct gl_prom_sample *s)
{
	struct got *g = arg;
	if (g->n < 8) {
		size_t off = 0;
		snprintf(g->name[g->n], sizeof(g->name[0]), "%s", s->name);
		g->labels[g->n][0] = '\0';
		for (int i = 0; i < s->n_labels; i++)
			off += (size_t)snprintf(g->labels[g->n] + off, sizeof(g->labels[0]) - off, "%s%s=%s",
						i ? ";" : "", s->labels[i].name, s->labels[i].value);
		g->value[g->n] = s->value;
		g->has_ts[g->n] = s->has_timestamp;
		g->ts[g->n] = (long long)s->timestamp_ms;
		g->type[g->n] = s->type;
		g->line[g->n] = s->line;
	}
	g->n++;
	return g->stop_at && g->n >= g->stop_at;
}

static int parse(const char *text, const struct gl_prom_limits *lim, struct got *g, struct gl_prom_result *res,
		 struct gl_err *err)
{
	memset(g, 0, sizeof(*g));
	gl_err_clear(err);
	return gl_prom_parse(text, strlen(text), lim, collect, g, res, err);
}

/* garbage: expect class cls at line */
static void bad(const char *text, enum gl_prom_class cls, int line)
{
	struct got g;
	struct gl_prom_result r;
	struct gl_err e = { 0 };
	int rc = parse(text, NULL, &g, &r, &e);
	CHECKF(rc < 0 && r.cls == cls && r.line == line, "'%s': rc %d class %s line %d (%s)", text, rc,
	       gl_prom_class_name(r.cls), r.line, e.msg);
}

int main(void)
{
	struct got g;
	struct gl_prom_result r;
	struct gl_err e = { 0 };
	static const char dcgm[] = "# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).\n"
				   "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"
				   "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-5fd4\",device=\"nvidia0\",modelName="
				   "\"NVIDIA H100 80GB HBM3\",Hostname=\"gpu-a\"} 41\n"
				   "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\",UUID=\"GPU-8a2b\",device=\"nvidia1\",modelName="
				   "\"NVIDIA H100 80GB HBM3\",Hostname=\"gpu-a\"} 44\n"
				   "# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n"
				   "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n"
				   "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-5fd4\"} 112.437000\n"
				   "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\",UUID=\"GPU-8a2b\"} 140737488355328.000000\n"
				   "# TYPE DCGM_FI_DEV_ECC_SBE_VOL_TOTAL counter\n"
				   "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL{gpu=\"0\",UUID=\"GPU-5fd4\"} 5\n";

	/* exporter text */
	CHECK(parse(dcgm, NULL, &g, &r, &e) == 0);
	CHECK(g.n == 5 && r.samples == 5 && r.cls == GL_PROM_OK);
	CHECK(!strcmp(g.name[0], "DCGM_FI_DEV_GPU_TEMP") && g.value[0] == 41 && g.line[0] == 3);
	CHECK(!strcmp(g.labels[1],
		      "gpu=1;UUID=GPU-8a2b;device=nvidia1;modelName=NVIDIA H100 80GB HBM3;Hostname=gpu-a"));
	CHECK(g.type[0] == GL_PROM_GAUGE && g.type[4] == GL_PROM_COUNTER);
	CHECK(g.value[2] == 112.437 && g.value[3] == 140737488355328.0);
	CHECK(!gl_dcgm_is_blank(g.value[2]) && gl_dcgm_is_blank(g.value[3]));

	/* escapes, spaces, trailing comma, empty label set, timestamps, CRLF, no last newline */
	CHECK(parse("m{a=\"x\\\\y\", b = \"q\\\"t\\n\",} 1 -5\r\n\r\n  \t\nn{} 2 1700000000000\r\no 3", NULL, &g, &r,
		    &e) == 0);
	CHECKF(g.n == 3, "%d %s", g.n, e.msg);
	CHECK(!strcmp(g.labels[0], "a=x\\y;b=q\"t\n"));
	CHECK(g.has_ts[0] && g.ts[0] == -5 && g.has_ts[1] && g.ts[1] == 1700000000000LL && !g.has_ts[2]);
	CHECK(g.line[1] == 4 && g.line[2] == 5 && g.value[2] == 3);
	CHECK(parse("", NULL, &g, &r, &e) == 0 && g.n == 0);
	CHECK(parse("# just a comment\n#HELP not meta\n# HELPER no\n", NULL, &g, &r, &e) == 0 && g.n == 0);

	/* special values */
	CHECK(parse("a NaN\nb +Inf\nc -Inf\nd 1e3\ne -0.5\nf inf\ng 0.000001\n", NULL, &g, &r, &e) == 0);
	CHECK(g.n == 7 && isnan(g.value[0]) && g.value[1] == INFINITY && g.value[2] == -INFINITY);
	CHECK(g.value[3] == 1000 && g.value[4] == -0.5 && g.value[5] == INFINITY);
	CHECK(gl_dcgm_is_blank(g.value[0]) && gl_dcgm_is_blank(g.value[1]));

	/* histogram family types */
	CHECK(parse("# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 2\nh_count 1\nh_other 1\n", NULL, &g, &r, &e) ==
	      0);
	CHECK(g.type[0] == GL_PROM_HISTOGRAM && g.type[1] == GL_PROM_HISTOGRAM && g.type[2] == GL_PROM_HISTOGRAM &&
	      g.type[3] == GL_PROM_UNTYPED);

	/* DCGM blanks: INT32 family, INT64 family, FP64 family */
	CHECK(gl_dcgm_is_blank(2147483632.0) && gl_dcgm_is_blank(2147483633.0) && gl_dcgm_is_blank(2147483647.0));
	CHECK(!gl_dcgm_is_blank(2147483631.0) && !gl_dcgm_is_blank(2147483648.0));
	CHECK(parse("x 9223372036854775792\ny 9223372036854775795\n", NULL, &g, &r, &e) == 0);
	CHECK(gl_dcgm_is_blank(g.value[0]) && gl_dcgm_is_blank(g.value[1]));
	CHECK(gl_dcgm_is_blank(140737488355328.0) && gl_dcgm_is_blank(140737488355331.0));
	CHECK(!gl_dcgm_is_blank(140737488355327.0) && !gl_dcgm_is_blank(0) && !gl_dcgm_is_blank(85));

	/* garbage, classified with its line */
	bad("ok 1\n{a=\"b\"} 1\n", GL_PROM_E_NAME, 2);
	bad("ok 1\n9abc 1\n", GL_PROM_E_NAME, 2);
	bad("m-x 1\n", GL_PROM_E_NAME, 1);
	bad("m{a=\"b\" 1\n", GL_PROM_E_LABEL, 1);
	bad("m{a=\"b\n", GL_PROM_E_LABEL, 1);
	bad("m{a=b} 1\n", GL_PROM_E_LABEL, 1);
	bad("m{a=\"\\t\"} 1\n", GL_PROM_E_LABEL, 1);
	bad("m{a=\"1\",a=\"2\"} 1\n", GL_PROM_E_LABEL, 1);
	bad("m{a=\"\xff\"} 1\n", GL_PROM_E_LABEL, 1);
	bad("m{1a=\"x\"} 1\n", GL_PROM_E_NAME, 1);
	bad("m\n", GL_PROM_E_SYNTAX, 1);
	bad("m abc\n", GL_PROM_E_VALUE, 1);
	bad("m 0x10\n", GL_PROM_E_VALUE, 1);
	bad("m 1.2.3\n", GL_PROM_E_VALUE, 1);
	bad("m nan(1)\n", GL_PROM_E_VALUE, 1);
	bad("m 1 12.5\n", GL_PROM_E_VALUE, 1);
	bad("m 1 99999999999999999999\n", GL_PROM_E_VALUE, 1);
	bad("m 1 2 3\n", GL_PROM_E_SYNTAX, 1);
	bad("# TYPE m gaugex\n", GL_PROM_E_META, 1);
	bad("a 1\n\n# TYPE 9m gauge\n", GL_PROM_E_META, 3);
	bad("# HELP\n", GL_PROM_E_META, 1);
	{
		static const char nul[] = "a 1\nb\0 2\n";
		memset(&g, 0, sizeof(g));
		CHECK(gl_prom_parse(nul, sizeof(nul) - 1, NULL, collect, &g, &r, &e) == -GL_EINVAL &&
		      r.cls == GL_PROM_E_BINARY && r.line == 2 && g.n == 1);
	}
	CHECK(parse("m{a=\"\\t\"} 1\n", NULL, &g, &r, &e) == -GL_EINVAL && strstr(e.msg, "line 1, column") &&
	      strstr(e.msg, "(label)"));

	/* caps */
	{
		struct gl_prom_limits lim = { 64, 16, 2, 3 };
		CHECK(parse("a 1\nb 2\nc 3\n", &lim, &g, &r, &e) == 0 && g.n == 3);
		CHECK(parse("a 1\nb 2\nc 3\nd 4\n", &lim, &g, &r, &e) == -GL_ELIMIT && r.cls == GL_PROM_E_SAMPLES &&
		      r.line == 4 && g.n == 3);
		CHECK(parse("a 1\nlong_metric_name_here 1\n", &lim, &g, &r, &e) == -GL_ELIMIT &&
		      r.cls == GL_PROM_E_LINE_SIZE && r.line == 2);
		CHECK(parse("m{a=\"\",b=\"\"} 1\n", &lim, &g, &r, &e) == 0 &&
		      g.n == 1); /* 15 bytes, 2 labels: at the caps */
		CHECK(parse("x{a=\"\",b=\"\",c=\"\"} 1\n", &(struct gl_prom_limits){ 64, 64, 2, 3 }, &g, &r, &e) ==
			      -GL_ELIMIT &&
		      r.cls == GL_PROM_E_LABELS);
		CHECK(parse("a 1\nb 2\nc 3\nd 4\ne 5\nf 6\ng 7\nh 8\ni 9\nj 10\nk 11\nl 12\nm 13\nn 14\no 15\np 16\nq "
			    "17\n",
			    &lim, &g, &r, &e) == -GL_ELIMIT &&
		      r.cls == GL_PROM_E_BODY_SIZE && r.line == 0 && g.n == 0);
	}
	/* the callback stops the parse */
	memset(&g, 0, sizeof(g));
	g.stop_at = 2;
	CHECK(gl_prom_parse("a 1\nb 2\nc 3\n", 12, NULL, collect, &g, &r, &e) == -GL_ESTATE &&
	      r.cls == GL_PROM_E_CALLBACK && g.n == 2);
	/* not NUL-terminated: the parser stops at len */
	{
		char buf[8] = { 'a', ' ', '1', '\n', 'b', ' ', '2', 'X' };
		memset(&g, 0, sizeof(g));
		CHECK(gl_prom_parse(buf, 7, NULL, collect, &g, &r, &e) == 0 && g.n == 2 && g.value[1] == 2);
	}
	return check_done();
}
