/*
 * test_node_scores.c - one window's scoring of nodes against their peers
 * (gl_node_zscores, analysis.h; docs/nodes.md), on figures whose answer is
 * known: a replica three times slower stands out, one 10 % slower does not
 * (the spread's floors), a node with too few samples is not judged, fewer
 * than 3 nodes judge nobody, and one failing replica among clean peers is
 * measured against the absolute floor.
 */
#include <math.h>
#include <stdint.h>

#include "analysis.h"
#include "check.h"
#include "figures.h"

static const struct gl_node_figure_def ttft = {
	.kind = "endpoint", .figure = "ttft_ms", .min_scale = 2, .rel_scale = 0.05, .min_n = 3
};
static const struct gl_node_figure_def errs = { .kind = "endpoint", .figure = "errors", .min_scale = 0.02, .min_n = 3 };
static const struct gl_node_figure_def rate = {
	.kind = "endpoint", .figure = "x", .higher_better = 1, .min_scale = 1, .rel_scale = 0.05, .min_n = 1
};

int main(void)
{
	int64_t n4[] = { 10, 10, 10, 10 };
	double z[4];

	/* three times slower: median 40.15, MAD 0.1, spread the floor 2.0 ms */
	{
		double m[] = { 40.0, 40.1, 40.2, 120.0 };
		CHECK(gl_node_zscores(&ttft, m, n4, 4, z) == 4);
		CHECKF(fabs(z[3] - (120.0 - 40.15) / 2.0075) < 1e-3, "z %.3f", z[3]);
		CHECKF(fabs(z[0]) < 0.1 && fabs(z[1]) < 0.1 && fabs(z[2]) < 0.1, "peers %.3f %.3f %.3f", z[0], z[1],
		       z[2]);
	}
	/* 10 % slower than peers that agree to 0.1 ms: within the floors
	 * (5 % of the median), z about 1.9, not 4 */
	{
		double m[] = { 40.0, 40.1, 40.2, 44.0 };
		CHECK(gl_node_zscores(&ttft, m, n4, 4, z) == 4);
		CHECKF(z[3] > 1.5 && z[3] < 2.5, "10 %% slower: z %.3f", z[3]);
	}
	/* too few samples: not judged, and with it only 3 peers remain */
	{
		double m[] = { 40.0, 40.1, 40.2, 120.0 };
		int64_t n[] = { 10, 10, 10, 2 };
		CHECK(gl_node_zscores(&ttft, m, n, 4, z) == 3);
		CHECK(isnan(z[3]) && !isnan(z[0]));
	}
	/* fewer than 3 nodes: nobody judged */
	{
		double m[] = { 40.0, 120.0 };
		int64_t n[] = { 10, 10 };
		CHECK(gl_node_zscores(&ttft, m, n, 2, z) == 0);
		CHECK(isnan(z[0]) && isnan(z[1]));
	}
	/* one replica failing 10 % of its requests among clean peers: MAD 0,
	 * the floor 0.02 makes it z 5; 1 % would be 0.5 */
	{
		double m[] = { 0, 0, 0, 0.10 };
		CHECK(gl_node_zscores(&errs, m, n4, 4, z) == 4);
		CHECKF(fabs(z[3] - 5) < 1e-9 && z[0] == 0, "errors z %.3f", z[3]);
		m[3] = 0.01;
		gl_node_zscores(&errs, m, n4, 4, z);
		CHECKF(fabs(z[3] - 0.5) < 1e-9, "1 %% errors z %.3f", z[3]);
	}
	/* a figure where higher is better: the low one is the worse */
	{
		double m[] = { 100, 101, 99, 50 };
		gl_node_zscores(&rate, m, n4, 4, z);
		CHECKF(z[3] > 4 && z[0] < 1, "lower throughput z %.3f", z[3]);
	}
	return check_done();
}
