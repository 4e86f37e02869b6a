/* ksum.c: nsys kernel summaries into one row per kernel. */
#include <stdlib.h>

#include "nsight.h"
#include "tap.h"

static void
ks_read(struct lp_ksum *ks, const char *text, const char *range)
{
	FILE *m = fmemopen((void *)text, strlen(text), "r");

	lp_ksum_read(ks, m, "<mem>", range, NULL);
	fclose(m);
}

int
main(void)
{
	struct lp_ksum ks;

	/* the header nsys 2025.3 prints; a name with a comma and quotes */
	ks_read(&ks, "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),"
	    "Max (ns),StdDev (ns),Name\n"
	    "10.0,100,4,25.0,25.0,20,30,1.0,b\n"
	    "50.0,500,1,500.0,500.0,500,500,0.0,\"k<a, \"\"b\"\">\"\n"
	    "10.0,100,2,50.0,50.0,50,50,0.0,a\n", NULL);
	ok(ks.n == 3 && ks.total_ns == 700 && ks.calls == 7, "totals");
	ok(!ks.per_range, "whole-capture summary");
	lp_ksum_sort(&ks);
	is_str(ks.k[0].name, "k<a, \"b\">", "largest first, name unquoted");
	is_str(ks.k[1].name, "a", "ties by name");
	ok(!strcmp(ks.k[2].name, "b") && ks.k[2].calls == 4, "and calls kept");
	lp_ksum_free(&ks);

	ks_read(&ks, "Total Time (us),Instances,Name\n1.5,3,x\n", NULL);
	ok(ks.k[0].total_ns == 1500, "--timeunit us scaled to ns");
	lp_ksum_free(&ks);

	/* nvtx_kern_sum: one range kept, rows of several threads summed */
	ks_read(&ks, "NVTX Range,Style,PID,TID,NVTX Inst,Kern Inst,Total Time (ns),"
	    "Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Kernel Name\n"
	    ",,1,1,0,5,50,10,10,10,10,0,k\n"
	    ":LLM@decode_all,PushPop,1,1,1,2,20,10,10,10,10,0,k\n"
	    ":LLM@decode_all,PushPop,1,2,1,3,30,10,10,10,10,0,k\n"
	    ":LLM@prefill,PushPop,1,1,1,9,90,10,10,10,10,0,k\n",
	    "LLM@decode_all");
	ok(ks.per_range && ks.n == 1 && ks.k[0].total_ns == 50 &&
	    ks.k[0].calls == 5, "range filter and per-thread rows summed");
	is_str(ks.report, "nvtx_kern_sum", "report recognised");
	lp_ksum_free(&ks);
	return tap_done();
}
