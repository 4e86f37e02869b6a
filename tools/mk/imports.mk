# tools/mk/imports.mk, included by rules.mk after tools/mk/settings.mk: what
# the run's inputs are, live or imported, decided before any rule is read.
#
# Provides: LP_LIVE (non-empty when the workload is profiled here) or, for
# IMPORT='files', the rule of $(R)/import.mk (lp-import says what each file
# is, by its content) and its inclusion, which sets LP_IMP_<report> (the nsys
# CSV exports of each report), LP_IMP_REP (a .nsys-rep), LP_IMP_SQLITE (an
# nsys sqlite export with GPU Metrics samples), LP_IMP_NCUCSV,
# LP_IMP_NCUREP, LP_IMP_REGCSV, LP_IMP_REGREP (ncu exports and reports, of
# kernels and of regions) and LP_IMP_PENDING (import.mk not yet made for this
# IMPORT: make re-makes it, then restarts and reads it).  From either:
# LP_HAVE_STATS (nsys stats runs here), LP_HAVE_NCU, LP_NSYS_REPORTS,
# LP_NSYS_NEEDED, LP_HAVE_REPORTS (the nsys reports the run has), LP_NS,
# LP_PER_RANGE, LP_KBASE, LP_KSRC and LP_KSRC_DEM (where the stage's kernels
# are read from).
#
# Also LP_IMP_STAMP, the prerequisite that stands for the imported files
# (make never reads their paths in a rule line).
#
# Expects: R, LP_IMPORT (normalised and its characters checked, by
# settings.mk), $(R)/vars/IMPORT, lp_ne and LP_RESTARTED, B (where lp-import is built), Q,
# LP_UNTMP.

ifneq ($(strip $(value RUN)),)
# Import instead of profiling: IMPORT='files' names nsys and ncu CSV
# exports or .nsys-rep / .ncu-rep reports.  lp-import reads what each file
# is from its content (never its name) and whether they belong together,
# and writes the lists below into import.mk, which make reads back (a
# changed IMPORT re-makes it first).  Their paths go into recipes as they
# are: settings.mk took only plain characters.  A relative path is given
# "./" before it, so that no tool reads one as an option ("-x.csv") and awk
# none as an assignment (a sweep's folder "r=1/").
LP_IMP := $(foreach f,$(LP_IMPORT),$(if $(filter /% ./%,$(f)),$(f),./$(f)))
LP_NSYS_REPORTS := cuda_gpu_kern_sum cuda_gpu_kern_sum_mangled nvtx_sum \
	nvtx_kern_sum nvtx_kern_sum_mangled cuda_api_sum cuda_gpu_mem_time_sum \
	nvtx_pushpop_trace nvtx_gpu_proj_trace cuda_gpu_trace cuda_api_trace \
	graph_node_trace
LP_NSYS_NEEDED := cuda_gpu_kern_sum cuda_gpu_kern_sum_mangled nvtx_sum \
	nvtx_kern_sum nvtx_kern_sum_mangled
# OPS=aten: the traces lp-atenops sweeps must come out of nsys stats
LP_ATEN_REPORTS := nvtx_pushpop_trace cuda_api_trace cuda_gpu_trace
LP_NSYS_NEEDED += $(if $(LP_OPS),$(LP_ATEN_REPORTS))
# IMPORT's blanks separate its paths: a path with a blank reaches here cut
# in two, which the hint names.
lp__blank := (IMPORT's blanks separate paths: a file whose path has a blank is imported from a copy under a plain name)
# (said of the paths as given, before "./")
$(foreach f,$(filter-out %.csv %.sqlite %.nsys-rep %.ncu-rep,$(LP_IMPORT)),\
	$(error IMPORT: $(f): expected a .csv export, an nsys .sqlite export, a .nsys-rep or a .ncu-rep $(lp__blank)))
$(foreach f,$(LP_IMPORT),$(if $(wildcard $(f)),,$(error IMPORT: $(f) does not exist $(lp__blank))))

# make never reads an imported path as a target or a prerequisite: a rule
# line takes '=' as an assignment and ':' as a target pattern, and both are
# in the paths IMPORT allows ("multiple target patterns", "No rule to make
# target", issue 28 item 6).  What depends on the imported files depends
# on LP_IMP_STAMP instead, the size and time of each, rewritten (at parse
# time, as the records of settings.mk are) only when one of them changed;
# recipes name the files themselves.
LP_IMP_STAMP := $(R)/vars/IMPORT.stamp
ifneq ($(strip $(LP_IMP)),)
# (compared stripped: $(file <) of this record was seen to keep its last
# line break now and then, which read as a change and re-made import.mk)
lp__sig := $(strip $(shell stat -L -c '%s %y' -- $(LP_IMP)))
# (a restarted make wrote it already, unless it is a dry run, which did not)
lp__stale := $(if $(and $(LP_RESTARTED),$(if $(LP_DRY),,1)),,$(call lp_ne,$(strip $(file <$(LP_IMP_STAMP))),$(lp__sig)))
ifneq ($(lp__stale),)
ifeq ($(LP_DRY),)
$(shell mkdir -p $(R)/vars)$(file >$(LP_IMP_STAMP).tmp,$(lp__sig))$(shell mv -f $(LP_IMP_STAMP).tmp $(LP_IMP_STAMP))
endif
endif
# make -n and make -q write nothing, and what the imported files are is
# known only once lp-import has read them (import.mk): a dry run of an
# import that is new or changed stops here, saying so.
ifneq ($(LP_DRY),)
$(if $(or $(lp__stale),$(filter $(R)/vars/IMPORT,$(LP_DRY_CHANGED)),$(if $(wildcard $(R)/import.mk),,1)),\
	$(error lp: run $(RUN): IMPORT is new or its files changed: make -n and make -q can say what follows only once make has read them (run make RUN=$(RUN) import.mk)))
endif
endif

LP_IMP_VARS := $(LP_NSYS_REPORTS) cuda_gpu_trace_mangled REP NCUREP NCUCSV REGCSV REGREP \
	SQLITE OTHER LOADED FOR PENDING ATEN
$(foreach v,$(LP_IMP_VARS),$(eval LP_IMP_$(v) :=))
ifneq ($(strip $(LP_IMP)),)
LP_LIVE :=
LP_IMP_MK := $(R)/import.mk
# What each file is; make reads it back before anything else is made.
# lp-import packs the big traces as it reads them (-P): the packs' rule
# (rules.mk) then has nothing to do, and each trace is parsed once.  A new
# lp-tracesort re-makes it too: lp-import removes the packs it did not
# make, and the rule makes them again with that lp-tracesort.
$(LP_IMP_MK): $(R)/vars/IMPORT $(LP_IMP_STAMP) $(B)/lp-import $(B)/lp-tracesort
	$(Q)mkdir -p $(R)/nsys
	$(if $(filter 1,$(V)),,@printf '  %-5s %-30s %s\n' MK '$(patsubst $(LP_STAGE2_DIR)/%,%,$@)' lp-import)
	$(Q)$(B)/lp-import -P $(LP_NS) -- $(LP_IMP) > $@.tmp && printf 'LP_IMP_FOR := %s\n' '$(LP_IMP)' >> $@.tmp && mv $@.tmp $@ $(LP_UNTMP)
include $(LP_IMP_MK)
# make restarts once after it re-made import.mk.  More restarts mean
# import.mk stays older than what it is made from (a clock that went back,
# a file dated in the future): said, with the times, never looped on.
# (make defines MAKE_RESTARTS only from the first restart on)
LP_RESTARTS := $(if $(filter undefined,$(origin MAKE_RESTARTS)),,$(MAKE_RESTARTS))
ifneq ($(filter-out 1 2 3,$(LP_RESTARTS)),)
$(error lp: $(LP_IMP_MK) was re-made $(LP_RESTARTS) times and is still older than what it is made from (modification times: $(shell ls -l --time-style=+%FT%T.%N -- $(LP_IMP_MK) $(R)/vars/IMPORT $(LP_IMP_STAMP) $(B)/lp-import $(B)/lp-tracesort $(LP_IMP) 2>&1 | awk '{ print $$6 " " $$7 }' | sort -r | head -3 | paste -sd, -); now $(shell date +%FT%T.%N)); fix the clock or these files' times (touch), then re-run make)
endif
# Until import.mk says what this IMPORT holds, nothing else is decided.
ifeq ($(and $(LP_IMP_LOADED),$(filter $(LP_IMP_FOR),$(LP_IMP)),$(filter $(LP_IMP),$(LP_IMP_FOR))),)
LP_IMP_PENDING := 1
endif
# one row per kernel launch, with its device: either name spelling (the
# demangled one when both are given)
LP_IMP_cuda_gpu_trace := $(or $(LP_IMP_cuda_gpu_trace),$(LP_IMP_cuda_gpu_trace_mangled))
LP_IMP_NSYSCSV := $(strip $(foreach r,$(LP_NSYS_REPORTS),$(LP_IMP_$(r))))
ifeq ($(LP_IMP_PENDING),)
$(if $(and $(LP_IMP_REP),$(LP_IMP_NSYSCSV)),$(error IMPORT: give a .nsys-rep or its CSV exports, not both))
$(if $(and $(LP_IMP_REP),$(LP_IMP_SQLITE)),$(error IMPORT: give a .nsys-rep or its sqlite export, not both (lp exports the report itself)))
$(if $(LP_IMP_SQLITE),$(if $(or $(LP_IMP_nvtx_gpu_proj_trace),$(LP_IMP_nvtx_pushpop_trace)),,\
	$(error IMPORT: the GPU Metrics samples of $(LP_IMP_SQLITE) go to the stages by their NVTX ranges: import nsys nvtx_gpu_proj_trace or nvtx_pushpop_trace of the same capture too (nsys stats --report nvtx_pushpop_trace))))
$(if $(or $(LP_IMP_REP),$(LP_IMP_cuda_gpu_kern_sum)),,$(error IMPORT: no nsys kernel summary (cuda_gpu_kern_sum) and no .nsys-rep among $(LP_IMP) (make RUN=$(RUN) import.mk says what each file is)))
$(if $(and $(LP_IMP_NCUREP),$(LP_IMP_NCUCSV)),$(error IMPORT: give an ncu report or its CSV exports, not both))
$(if $(word 2,$(LP_IMP_NCUREP)),$(error IMPORT: several ncu reports ($(LP_IMP_NCUREP)): export each (ncu --import R --page raw --csv) and import the CSVs))
endif
LP_HAVE_STATS := $(LP_IMP_REP)
LP_HAVE_NCU := $(LP_IMP_NCUCSV)$(LP_IMP_NCUREP)
else
LP_LIVE := 1
LP_HAVE_STATS := 1
LP_HAVE_NCU := 1
endif

# The nsys reports this run has: all of them after nsys stats, else those
# imported.  The stage's kernels come from nvtx_kern_sum (narrowed to the
# stage's range) when there is one, else from the whole capture's summary;
# the mangled variant, when there is one, is what joins with ncu.
LP_NS := $(R)/nsys/report_
# After nsys stats, the reports that may be missing (no memory operations,
# say) are not prerequisites: lp-summary says what it lacks.
ifneq ($(LP_HAVE_STATS),)
LP_HAVE_REPORTS := $(LP_NSYS_NEEDED)
else
LP_HAVE_REPORTS := $(foreach r,$(LP_NSYS_REPORTS),$(if $(LP_IMP_$(r)),$(r)))
endif
LP_PER_RANGE := $(filter nvtx_kern_sum,$(LP_HAVE_REPORTS))
LP_KBASE := $(if $(LP_PER_RANGE),nvtx_kern_sum,cuda_gpu_kern_sum)
LP_KSRC_DEM := $(if $(filter $(LP_KBASE)_mangled,$(LP_HAVE_REPORTS)),$(LP_NS)$(LP_KBASE).csv)
LP_KSRC := $(LP_NS)$(LP_KBASE)$(if $(LP_KSRC_DEM),_mangled).csv

endif
