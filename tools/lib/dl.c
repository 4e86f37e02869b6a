/*
 * dl.c: a library's entry points bound by name into a table of function
 * pointers (the CUDA driver, NCCL), for the tools that load them at run
 * time (lp-bwprobe, lp-linkprobe): lp links neither.
 */
#include <dlfcn.h>
#include <string.h>

#include "util.h"

void
lp_dl_bind(void *h, const char *lib, const struct lp_dlsym *s, size_t n,
    void *api, const char *need)
{
	size_t i;

	for (i = 0; i < n; i++) {
		void *f = dlsym(h, s[i].name);

		if (!f)
			lp_die(LP_EXIT_USAGE, "%s has no %s: %s", lib, s[i].name,
			    need);
		/* POSIX: a function's address goes through dlsym's void * */
		memcpy((char *)api + s[i].off, &f, sizeof f);
	}
}
