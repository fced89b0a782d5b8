/*
 * test_pdf_dates.c - gl_pdf_fix_dates (reports/pdf_dates.c) on PDFs built
 * here with a correct cross-reference table, in the shape Chromium's
 * printer (Skia) writes: the document information dictionary as object 1,
 * a classic xref table, the trailer naming /Info. Checked: both dates
 * become the given time in UTC in a form of their own length (+HH'mm',
 * +HH'mm, Z), nothing else changes and every xref offset still points at
 * its object; two printings that differ in their dates and /ID end up
 * byte for byte equal; a title spelling "/CreationDate (...)" and "endobj"
 * is left alone; forms that cannot be rewritten at their length, a
 * cross-reference stream and a file without startxref are refused and
 * left as they were.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "report.h"
#include "util.h"

#define T_2024_02_29_235959 1709251199LL /* 2024-02-29T23:59:59Z */
#define WHEN (T_2024_02_29_235959 * 1000000000LL + 987654321LL)

static char dir[] = "/tmp/gl-pdfdates.XXXXXX";

/* A PDF of the objects given (numbered from 1), its xref table and a
 * trailer dictionary with extra (e.g. "/Info 1 0 R"); into buf. */
static size_t build_pdf(char *buf, size_t cap, const char *const *objs, int nobj, const char *extra)
{
	size_t off[16], k = 0;

	k += (size_t)snprintf(buf + k, cap - k, "%%PDF-1.4\n%%\xe2\xe3\xcf\xd3\n");
	for (int i = 0; i < nobj; i++) {
		off[i] = k;
		k += (size_t)snprintf(buf + k, cap - k, "%d 0 obj\n%s\nendobj\n", i + 1, objs[i]);
	}
	{
		size_t xref = k;
		k += (size_t)snprintf(buf + k, cap - k, "xref\n0 %d\n0000000000 65535 f \n", nobj + 1);
		for (int i = 0; i < nobj; i++)
			k += (size_t)snprintf(buf + k, cap - k, "%010zu 00000 n \n", off[i]);
		k += (size_t)snprintf(buf + k, cap - k,
				      "trailer\n<</Size %d\n/Root 2 0 R\n%s>>\nstartxref\n%zu\n%%%%EOF", nobj + 1,
				      extra, xref);
	}
	return k;
}

static void write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	CHECKF(f && fwrite(data, 1, len, f) == len && fclose(f) == 0, "%s: %s", path, strerror(errno));
}

static size_t read_file(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, cap, f) : 0;
	if (f)
		fclose(f);
	return n;
}

/* Every in-use xref entry of the file points at "N 0 obj". */
static int offsets_valid(const char *b, size_t len)
{
	const char *sx = memmem(b, len, "startxref\n", 10), *x;
	int first, count, used = 0;

	if (!sx)
		return 0;
	x = b + strtoul(sx + 10, NULL, 10);
	if (x >= b + len || strncmp(x, "xref\n", 5) || sscanf(x + 5, "%d %d", &first, &count) != 2)
		return 0;
	x = strchr(x + 5, '\n') + 1;
	for (int i = 0; i < count; i++, x += 20) {
		char want[32];
		if (x[17] != 'n')
			continue;
		snprintf(want, sizeof(want), "%d 0 obj", first + i);
		if (strncmp(b + strtoul(x, NULL, 10), want, strlen(want)))
			return 0;
		used++;
	}
	return used > 0;
}

static int has(const char *b, size_t n, const char *s)
{
	return memmem(b, n, s, strlen(s)) != NULL;
}

static const char *catalog = "<</Type /Catalog /Pages 3 0 R>>";
static const char *pages = "<</Type /Pages /Kids [] /Count 0>>";

/* pdf written to DIR/name and fixed; the file's bytes after into after */
static int fix(const char *name, const char *pdf, size_t len, char *after, size_t *alen, char *why, size_t n)
{
	char path[128];
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	write_file(path, pdf, len);
	rc = gl_pdf_fix_dates(path, WHEN, why, n);
	*alen = read_file(path, after, 1u << 16);
	return rc;
}

/* Only the bytes of the dates (and /ID) differ, lengths equal. */
static int only_dates_changed(const char *a, size_t alen, const char *b, size_t blen, const char *const *spans)
{
	if (alen != blen)
		return 0;
	for (size_t i = 0; i < alen; i++) {
		int inside = 0;
		if (a[i] == b[i])
			continue;
		for (int s = 0; spans[s]; s++) {
			const char *p = memmem(b, blen, spans[s], strlen(spans[s]));
			while (p && !inside) {
				inside = i >= (size_t)(p - b) && i < (size_t)(p - b) + strlen(spans[s]);
				p = memmem(p + 1, blen - (size_t)(p + 1 - b), spans[s], strlen(spans[s]));
			}
		}
		if (!inside)
			return 0;
	}
	return 1;
}

int main(void)
{
	static char pdf[1u << 16], out[1u << 16], out2[1u << 16];
	char why[600], info[1024];
	size_t len, olen, olen2;
	int rc;

	if (!mkdtemp(dir)) {
		CHECKF(0, "mkdtemp %s: %s", dir, strerror(errno));
		return check_done();
	}

	/* 1. Skia's shape, local time +05'30' */
	{
		const char *objs[] = { "<</Title (report)\n/Creator (HeadlessChrome)\n/Producer (Skia/PDF m156)\n"
				       "/CreationDate (D:20261203075307+05'30')\n/ModDate (D:20261203075308+05'30')>>",
				       catalog, pages };
		const char *spans[] = { "D:20240229235959+00'00'", NULL };
		len = build_pdf(pdf, sizeof(pdf), objs, 3, "/Info 1 0 R\n");
		CHECK(offsets_valid(pdf, len));
		rc = fix("skia.pdf", pdf, len, out, &olen, why, sizeof(why));
		CHECKF(rc == 0, "%s", why);
		CHECKF(has(out, olen, "/CreationDate (D:20240229235959+00'00')\n/ModDate (D:20240229235959+00'00')>>"),
		       "dates: %.200s", out + 100);
		CHECK(olen == len && only_dates_changed(pdf, len, out, olen, spans));
		CHECK(offsets_valid(out, olen));
		/* once more: nothing to change */
		rc = fix("skia.pdf", out, olen, out2, &olen2, why, sizeof(why));
		CHECK(rc == 0 && olen2 == olen && !memcmp(out, out2, olen));
	}

	/* 2. the other lengths of a UTC date: +HH'mm and Z */
	{
		const char *objs[] = { "<</CreationDate (D:20261203075307-08'00)/ModDate (D:20261203155307Z)>>",
				       catalog, pages };
		len = build_pdf(pdf, sizeof(pdf), objs, 3, "/Info 1 0 R\n");
		rc = fix("forms.pdf", pdf, len, out, &olen, why, sizeof(why));
		CHECKF(rc == 0, "%s", why);
		CHECK(olen == len && offsets_valid(out, olen));
		CHECK(has(out, olen, "/CreationDate (D:20240229235959+00'00)/ModDate (D:20240229235959Z)>>"));
	}

	/* 3. two printings, other dates and file identifiers: the same bytes */
	{
		const char *a[] = { "<</Producer (Skia)/CreationDate (D:20261203075307+00'00')/ModDate "
				    "(D:20261203075307+00'00')>>",
				    catalog, pages };
		const char *b[] = { "<</Producer (Skia)/CreationDate (D:20270101120000+01'00')/ModDate "
				    "(D:20270101120001+01'00')>>",
				    catalog, pages };
		size_t blen;
		char pdf_b[4096];
		len = build_pdf(
			pdf, sizeof(pdf), a, 3,
			"/Info 1 0 R\n/ID [<0123456789ABCDEF0123456789ABCDEF> <0123456789abcdef0123456789abcdef>]\n");
		blen = build_pdf(
			pdf_b, sizeof(pdf_b), b, 3,
			"/Info 1 0 R\n/ID [<FEDCBA9876543210FEDCBA9876543210> <00112233445566778899aabbccddeeff>]\n");
		CHECK(len == blen && memcmp(pdf, pdf_b, len) != 0);
		rc = fix("a.pdf", pdf, len, out, &olen, why, sizeof(why));
		CHECKF(rc == 0, "%s", why);
		rc = fix("b.pdf", pdf_b, blen, out2, &olen2, why, sizeof(why));
		CHECKF(rc == 0, "%s", why);
		CHECK(olen == len && olen2 == blen && !memcmp(out, out2, olen));
		CHECK(offsets_valid(out, olen));
		CHECK(!memmem(out, olen, "0123456789", 10) && !memmem(out, olen, "FEDCBA", 6));
		{
			/* both identifiers: 32 hex digits, equal, not all zero */
			const char *id = memmem(out, olen, "/ID [<", 6);
			CHECK(id && id[38] == '>' && id[40] == '<' && !memcmp(id + 6, id + 41, 32) &&
			      strspn(id + 6, "0123456789abcdef") == 32 && strspn(id + 6, "0") < 32);
		}
	}

	/* 4. a title that spells a date key and endobj, in a string */
	{
		const char *objs[] = { "<</Title (x \\(/CreationDate \\(D:19990101000000Z\\)\\) endobj)\n"
				       "/Subject <2F4D6F6444617465>\n/CreationDate (D:20261203075307+00'00')>>",
				       catalog, pages };
		len = build_pdf(pdf, sizeof(pdf), objs, 3, "/Info 1 0 R\n");
		rc = fix("title.pdf", pdf, len, out, &olen, why, sizeof(why));
		CHECKF(rc == 0, "%s", why);
		CHECK(has(out, olen, "(x \\(/CreationDate \\(D:19990101000000Z\\)\\) endobj)"));
		CHECK(has(out, olen, "\n/CreationDate (D:20240229235959+00'00')>>"));
		CHECK(olen == len && offsets_valid(out, olen));
	}

	/* 5. no /Info: nothing to do, nothing changed */
	{
		const char *objs[] = { "<</Producer (x)>>", catalog, pages };
		len = build_pdf(pdf, sizeof(pdf), objs, 3, "");
		rc = fix("noinfo.pdf", pdf, len, out, &olen, why, sizeof(why));
		CHECKF(rc == 0, "%s", why);
		CHECK(olen == len && !memcmp(pdf, out, len));
	}

	/* 6. refused, and left as it was */
	{
		static const struct {
			const char *name, *info, *why;
		} bad[] = {
			{ "nozone.pdf", "<</CreationDate (D:20261203075307)>>", "no form that can be rewritten" },
			{ "hexdate.pdf", "<</CreationDate <443A3230323631323033>>>", "not a plain literal string" },
			{ "escaped.pdf", "<</ModDate (D:2026\\061203075307Z)>>", "not a plain literal string" },
			{ "notdict.pdf", "[1 2 3]", "not a dictionary" },
		};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			const char *objs[] = { bad[i].info, catalog, pages };
			len = build_pdf(pdf, sizeof(pdf), objs, 3, "/Info 1 0 R\n");
			why[0] = '\0';
			rc = fix(bad[i].name, pdf, len, out, &olen, why, sizeof(why));
			CHECKF(rc == -1 && strstr(why, bad[i].why), "%s: rc %d, why '%s'", bad[i].name, rc, why);
			CHECK(olen == len && !memcmp(pdf, out, len));
		}
	}
	{
		/* /Info names an object the table does not have */
		const char *objs[] = { "<</CreationDate (D:20261203075307Z)>>", catalog, pages };
		len = build_pdf(pdf, sizeof(pdf), objs, 3, "/Info 7 0 R\n");
		rc = fix("noobj.pdf", pdf, len, out, &olen, why, sizeof(why));
		CHECKF(rc == -1 && strstr(why, "object 7 is not in use"), "rc %d, why '%s'", rc, why);
	}
	{
		/* a cross-reference stream (PDF 1.5) */
		size_t at = (size_t)snprintf(info, sizeof(info),
					     "%%PDF-1.5\n1 0 obj\n<</CreationDate (D:20261203075307Z)>>\nendobj\n");
		snprintf(info + at, sizeof(info) - at,
			 "2 0 obj\n<</Type /XRef /Size 3 /Info 1 0 R /W [1 2 1] /Length "
			 "0>>\nstream\n\nendstream\nendobj\n"
			 "startxref\n%zu\n%%%%EOF\n",
			 at);
		len = strlen(info);
		rc = fix("xrefstream.pdf", info, len, out, &olen, why, sizeof(why));
		CHECKF(rc == -1 && strstr(why, "cross-reference stream"), "rc %d, why '%s'", rc, why);
		CHECK(olen == len && !memcmp(info, out, len));
	}
	{
		/* cut short: no startxref */
		const char *objs[] = { "<</CreationDate (D:20261203075307Z)>>", catalog, pages };
		len = build_pdf(pdf, sizeof(pdf), objs, 3, "/Info 1 0 R\n");
		len = (size_t)((char *)memmem(pdf, len, "startxref", 9) - pdf);
		rc = fix("cut.pdf", pdf, len, out, &olen, why, sizeof(why));
		CHECKF(rc == -1 && strstr(why, "no startxref"), "rc %d, why '%s'", rc, why);
	}

	{
		char cmd[200];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "note: %s was not removed\n", dir);
	}
	return check_done();
}
