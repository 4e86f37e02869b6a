/*
 * lp-gpumetrics' shared definitions: the metrics it reports and an
 * instance's sum of one, which the main and the export's reader both use.
 */
#include "gpumetrics.h"

const struct metric metrics[NM] = {
	{ "GR Active [Throughput %]", M_UNIT_PCT, 0 },
	{ "SMs Active [Throughput %]", M_UNIT_PCT, 0 },
	{ "SM Issue [Throughput %]", M_UNIT_PCT, 0 },
	{ "Tensor Active [Throughput %]", M_UNIT_PCT, 0 },
	{ "DRAM Read Bandwidth [Throughput %]", M_UNIT_PCT, 1 },
	{ "DRAM Write Bandwidth [Throughput %]", M_UNIT_PCT, 1 },
	{ "GPC Clock Frequency [MHz]", M_UNIT_MHZ, 0 },
	{ "SYS Clock Frequency [MHz]", M_UNIT_MHZ, 0 },
};

double
inst_sum(const struct inst *in, size_t k)
{
	return (double)in->sum[k].whole + (double)in->sum[k].hz / 1e6 +
	    in->sum[k].frac;
}
