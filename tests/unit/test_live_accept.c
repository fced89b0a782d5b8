/*
 * test_live_accept.c - the metrics endpoint's content negotiation
 * (gl_live_wants_openmetrics, live.h): which Accept headers get
 * OpenMetrics 1.0.0 and which the Prometheus text format.
 */
#include <string.h>

#include "check.h"
#include "live.h"

int main(void)
{
	static const struct {
		const char *accept;
		int om;
	} cases[] = {
		/* what Prometheus 2.x sends */
		{ " application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
		  "text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
		  1 },
		{ "application/openmetrics-text", 1 },
		{ "Application/OpenMetrics-Text; version=1.0.0", 1 },
		{ "application/openmetrics-text;version=0.0.1", 1 },
		{ "  application/openmetrics-text ; q=0.9 , text/plain ; q=0.8", 1 },
		{ "text/plain;q=0.5, application/openmetrics-text;q=0.5", 1 }, /* a tie: OpenMetrics */
		{ "", 0 },
		{ " */*", 0 },
		{ " text/plain", 0 },
		{ " text/plain;version=0.0.4", 0 },
		{ "application/openmetrics-text;q=0", 0 },
		{ "application/openmetrics-text;version=2.0.0", 0 },
		{ "application/openmetrics-text;q=0.2,text/plain;q=0.5", 0 },
		{ "application/openmetrics-text;q=0.2,*/*", 0 },
		{ "application/openmetrics-textual", 0 },
		{ "application/json", 0 },
		{ ";;;,,,;q=", 0 },
	};
	char big[4096];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECKF(gl_live_wants_openmetrics(cases[i].accept) == cases[i].om, "Accept:%s -> %s", cases[i].accept,
		       cases[i].om ? "OpenMetrics" : "text");
	/* a media range longer than the parser's scratch: cut, never overrun */
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK(gl_live_wants_openmetrics(big) == 0);
	memcpy(big, "application/openmetrics-text;", 29);
	CHECK(gl_live_wants_openmetrics(big) == 1);
	return check_done();
}
