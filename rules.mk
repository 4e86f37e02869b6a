# rules.mk: the stage-2 pipeline.  Every artifact of run $(RUN) is a file
# under $(LP_STAGE2_DIR)/$(RUN)/ made from its inputs and the tool that makes
# it, so a re-run of make redoes only what failed or went out of date:
#
#   vars/*             settings given on the command line, kept for later runs
#   config.yaml        resolved config (runner + presets + model + overrides)
#   nsys/config.yaml   the part nsys steps read, ncu/config.yaml likewise
#   inputs.yaml        workload argv or imported exports, model identity
#   env.json           provenance: GPU, driver, tools, host, time, lp revision
#   nsys/profile.cmd   nsys/report.nsys-rep   nsys/export.cmd
#   nsys/report.sqlite nsys/stats.cmd   nsys/report_*.csv  nsys/stats.log
#   untraced/profile.cmd untraced/report.nsys-rep untraced/stats.cmd
#   untraced/report_nvtx_pushpop_trace.csv (the untraced timing run, live)
#   topn.tsv           the stage's top-N kernels (what ncu profiles)
#   ncu/profile.cmd    ncu/report.ncu-rep   ncu/export.cmd   ncu/report.csv
#   ncu/metrics.tsv    kernels.tsv   kernels.md
#   the summary's tables, one filter each: environment.tsv gpu.tsv
#   aggregates.tsv stages.tsv steps.tsv (live: untraced; nsys/steps.tsv the
#   capture's) untraced.tsv
#   hostside.tsv capture_audit.tsv procs.tsv ranks.tsv rank_waterfall.tsv
#   overlap.tsv mfu.tsv mbu.tsv gpumetrics.tsv (bwprobe.tsv) dram_bw.tsv
#   roofline.tsv (roofline.svg) operators.tsv top_kernels.tsv findings.tsv
#   details.md (lp-summary renders the tables), and the brief a person
#   opens first: waterfall.tsv brief.tsv findings_top.tsv
#   stakeholder_summary.md
#   on request: ncu/regions/* regions.tsv region_work.tsv
#   region_instances.tsv regions.md (make RUN=x regions.md), and
#   compare.tsv compare_stages.tsv compare_verdict.tsv compare.md (make RUN=x
#   BASE=y compare.md), and the CI gate (make RUN=x BASE=y check-regression)
#
# The rules follow in that order, one comment each saying why.  What make
# decides before them lives in two included files: tools/mk/settings.mk
# (RUN, the run lock, the settings and their records in vars/, presets,
# overrides) and tools/mk/imports.mk (live or IMPORT, what each imported file
# is, which nsys reports the run has).  Recipe helpers are at the end.

# The artifacts that can be asked for by name: make RUN=abc NAME.
LP_TABLES := environment.tsv gpu.tsv aggregates.tsv stages.tsv steps.tsv hostside.tsv ranks.tsv \
	overlap.tsv mfu.tsv mbu.tsv roofline.tsv operators.tsv top_kernels.tsv findings.tsv regions.tsv \
	region_work.tsv region_instances.tsv profile_cost.tsv alone.tsv \
	aten_ops.tsv aten_opnames.tsv operators_aten.tsv operators_shapes.tsv aten_roofline.tsv \
	operators_roofline.tsv waterfall.tsv brief.tsv findings_top.tsv gpumetrics.tsv kernels_md.tsv dram_bw.tsv \
	untraced.tsv capture_audit.tsv bound.tsv rank_waterfall.tsv
LP_ARTIFACTS := config.yaml inputs.yaml import.mk env.json brief.json topn.tsv procs.tsv injected.tsv kernels.tsv kernels.md bwprobe.tsv linkprobe.tsv \
	stakeholder_summary.md first/stakeholder_summary.md details.md nsys/report.nsys-rep nsys/report.sqlite nsys/stats.log ncu/report.ncu-rep \
	untraced/profile.cmd untraced/report.nsys-rep untraced/report_nvtx_pushpop_trace.csv nsys/steps.tsv \
	ncu/report.csv ncu/metrics.tsv $(LP_TABLES) roofline.svg waterfall.svg regions.md \
	compare.tsv compare_stages.tsv compare_verdict.tsv compare_waterfall.tsv compare_findings.tsv compare.md
LP_BIN := $(B)
include tools/mk/settings.mk tools/mk/imports.mk	# in this order

.PHONY: run clean-run
ifneq ($(strip $(value RUN)),)

# make RUN=abc kernels.md: the artifact of run abc.
$(LP_ARTIFACTS): %: $(R)/%
run: $(R)/stakeholder_summary.md $(R)/kernels.md $(R)/topn.tsv
clean-run:
	$(Q)rm -rf $(R)

# The resolved configs: all presets for the summary; for nsys and for ncu
# only what they read, so editing one tool's preset leaves the other alone.
$(R)/config.yaml: $(LP_PRESETS_ALL) $(R)/vars/presets.all $(R)/vars/overrides.all \
		$(LP_BIN)/lp-confmerge | $(R)
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-confmerge -S $(R)/vars/overrides.all $(LP_PRESETS_ALL)
$(R)/nsys/config.yaml: $(LP_PRESETS_NSYS) $(R)/vars/presets.nsys $(R)/vars/overrides.nsys \
		$(LP_BIN)/lp-confmerge | $(R)/nsys
	$(Q)$(LP_TO) $(LP_BIN)/lp-confmerge -S $(R)/vars/overrides.nsys $(LP_PRESETS_NSYS)
$(R)/ncu/config.yaml: $(LP_PRESETS_NCU) $(R)/vars/presets.ncu $(R)/vars/overrides.ncu \
		$(LP_BIN)/lp-confmerge | $(R)/ncu
	$(Q)$(LP_TO) $(LP_BIN)/lp-confmerge -S $(R)/vars/overrides.ncu $(LP_PRESETS_NCU)

# What is profiled: WORK (or IMPORT) as recorded, and the model's identity.
LP_INPUT_VARS := $(wildcard $(R)/vars/WORK $(R)/vars/IMPORT)
$(R)/inputs.yaml: $(LP_INPUT_VARS) $(LP_MODEL_FILE) $(R)/vars/presets.model $(R)/vars/overrides.model \
		$(LP_BIN)/lp-inputs $(LP_BIN)/lp-confmerge | $(R)
	$(LP_SAY)
	$(Q)$(LP_BIN)/lp-inputs $(if $(LP_LIVE),-w $(R)/vars/WORK,-i $(R)/vars/IMPORT) \
	  $(if $(LP_MODEL_FILE),-m $(LP_MODEL_FILE)) > $@.tmp $(LP_UNTMP)
	$(Q)$(if $(LP_OVR_MODEL),$(LP_BIN)/lp-confmerge -S $(R)/vars/overrides.model $@.tmp > $@.tmp2 && mv $@.tmp2 $@.tmp &&) mv $@.tmp $@ $(LP_UNTMP)

# Provenance, probed once per run (nvidia-smi, nsys, ncu on PATH).
$(R)/env.json: $(R)/inputs.yaml $(LP_BIN)/lp-env
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-env -r '$(LP_REV)' $<

ifneq ($(LP_LIVE),)
# The DRAM bandwidth a device-to-device copy reaches on this machine's GPUs
# (lp-bwprobe), measured once per run before the nsys capture (which waits
# for it), never under a profiler.  Where it cannot run (no CUDA driver, no
# GPU) the table is empty and what it said is kept in bwprobe.log, for
# dram_bw.tsv to give as the reason; the run goes on.  A measurement,
# like the capture: a rebuilt lp-bwprobe does not take it again (on what
# may be another machine by then); removing bwprobe.tsv does.
$(R)/bwprobe.tsv $(R)/bwprobe.log &: $(R)/env.json | $(LP_BIN)/lp-bwprobe
	$(LP_SAY)
	$(Q)if $(LP_BIN)/lp-bwprobe > $(R)/bwprobe.tsv.tmp 2> $(R)/bwprobe.log; then :; else \
	  echo "lp: no DRAM copy probe: $$(cat $(R)/bwprobe.log)" >&2; : > $(R)/bwprobe.tsv.tmp; fi; \
	mv $(R)/bwprobe.tsv.tmp $(R)/bwprobe.tsv

# The all-reduce between this machine's GPUs (lp-linkprobe: NCCL's, loaded
# at run time), the same way: once, before the capture; on a machine with
# one GPU, or no NCCL to load, the table is empty and linkprobe.log says
# why (rank_waterfall.tsv gives it as the reason for its latency floor).
$(R)/linkprobe.tsv $(R)/linkprobe.log &: $(R)/env.json | $(LP_BIN)/lp-linkprobe
	$(LP_SAY)
	$(Q)if $(LP_BIN)/lp-linkprobe > $(R)/linkprobe.tsv.tmp 2> $(R)/linkprobe.log; then :; else \
	  echo "lp: no link probe: $$(cat $(R)/linkprobe.log)" >&2; : > $(R)/linkprobe.tsv.tmp; fi; \
	mv $(R)/linkprobe.tsv.tmp $(R)/linkprobe.tsv

# The nsys command: written whenever its inputs change; the profile below
# re-runs only when the command text itself changed.
$(R)/nsys/profile.cmd: $(R)/nsys/config.yaml $(R)/inputs.yaml $(LP_BIN)/lp-nsyscmd $(LP_BIN)/lp-confget
	$(LP_SAY)
	$(Q)xargs -0 -x -a <($(LP_BIN)/lp-confget -0 workload.argv $(R)/inputs.yaml) \
	  $(LP_BIN)/lp-nsyscmd -o $(R)/nsys/report.tmp -- < $(R)/nsys/config.yaml $(LP_OUT)

# The nsys capture, gated by the stage's NVTX range.  Written under a
# temporary name, so an interrupted run leaves no report that looks whole.
$(R)/nsys/report.nsys-rep: $(R)/nsys/profile.cmd | $(R)/env.json $(R)/bwprobe.tsv $(R)/linkprobe.tsv $(LP_BIN)/lp-runstep
	$(call lp_capture,$(R)/nsys,profiling with nsys,nsys profile failed,\
	  nsys wrote no report: was the NVTX capture range ever pushed? Check the domain and range of the stage (stages in conf/runner/stage2.yaml$(comma) or MODEL=torch-decoder for PyTorch-style LLM@decode_all in the default domain).,nsys profile)

# The untraced timing run: the workload once more under nsys with NVTX
# alone (lp-nsyscmd -u: no CUDA trace, no GPU Metrics, no capture range),
# which times each stage's instances as the workload runs without the
# tracer (untraced.tsv).  Right after the capture, and nothing else of the
# run beside it (the sqlite export waits for it and its stats, so make -j
# runs none).
# Re-run, as the capture, only when its command text changed; written
# under a temporary name.
# UNTRACED_GPU=N (with CUDA_VISIBLE_DEVICES the workload's one GPU): the
# untraced run on GPU N instead, beside the capture, both at once (make
# runs two recipes at a time where it was not told how many), once
# lp-gpupair has shown N to be of the workload's kind and idle
# (untraced/gpu.tsv); the first answer then waits for one run of the
# workload, not two (tests/gpu/README.md: within the workload's own spread
# alone beside the capture; not beside ncu, which still waits for it).
LP_UT_BESIDE := $(LP_UNTRACED_GPU)
LP_UT_GPUVAR := $(wildcard $(R)/vars/UNTRACED_GPU)
ifneq ($(LP_UT_BESIDE),)
MAKEFLAGS += -j2
$(R)/untraced/gpu.tsv: $(LP_UT_GPUVAR) $(LP_BIN)/lp-gpupair | $(R)/untraced
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-gpupair -w "$${CUDA_VISIBLE_DEVICES-}" -u $(LP_UNTRACED_GPU)
endif
$(R)/untraced/profile.cmd: $(R)/nsys/config.yaml $(R)/inputs.yaml $(LP_BIN)/lp-nsyscmd $(LP_BIN)/lp-confget \
		$(LP_UT_GPUVAR) $(if $(LP_UT_BESIDE),$(R)/untraced/gpu.tsv) | $(R)/untraced
	$(LP_SAY)
	$(Q)xargs -0 -x -a <($(LP_BIN)/lp-confget -0 workload.argv $(R)/inputs.yaml) $(LP_BIN)/lp-nsyscmd -u \
	  $(if $(LP_UT_BESIDE),-g $(LP_UNTRACED_GPU)) -o $(R)/untraced/report.tmp -- < $(R)/nsys/config.yaml $(LP_OUT)
$(R)/untraced/report.nsys-rep: $(R)/untraced/profile.cmd | $(LP_BIN)/lp-runstep \
		$(if $(LP_UT_BESIDE),$(R)/env.json $(R)/bwprobe.tsv $(R)/linkprobe.tsv,$(R)/nsys/report.nsys-rep)
	$(call lp_capture,$(R)/untraced,timing the workload untraced (NVTX alone) with nsys,nsys profile of the untraced timing run failed,\
	  nsys wrote no report of the untraced timing run (NVTX alone$(comma) the capture's range).,nsys untraced profile)

$(R)/untraced/stats.cmd: $(R)/nsys/config.yaml $(LP_BIN)/lp-nsyscmd | $(R)/untraced
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-nsyscmd -u -s -o $(R)/untraced/stats.tmp/report -- $(R)/untraced/report.nsys-rep \
	  < $(R)/nsys/config.yaml

# Its one report, the stages' instances: written into a scratch folder
# (nsys stats exports the report to untraced/report.sqlite first), moved
# into place when there.
LP_UT := $(R)/untraced/stats.tmp
$(R)/untraced/report_nvtx_pushpop_trace.csv: $(R)/untraced/report.nsys-rep $(R)/untraced/stats.cmd | $(LP_BIN)/lp-runstep
	$(LP_SAY)
	$(Q)rm -rf $(LP_UT) && mkdir -p $(LP_UT) && $(LP_BIN)/lp-runstep -n '$(LP_NSYS_NEED)' -g -l $(LP_UT)/log -L $(R)/untraced/stats.log.failed \
	  -f $(LP_UT)/report_nvtx_pushpop_trace.csv -m "nsys stats wrote no nvtx_pushpop_trace report of the untraced timing run (log: $(R)/untraced/stats.log.failed)" \
	  -t 'nsys untraced stats' -T $(R)/untraced/stats.time -- sh $(R)/untraced/stats.cmd
	$(Q)mv $(LP_UT)/log $(R)/untraced/stats.log && mv $(LP_UT)/report_nvtx_pushpop_trace.csv $@ && rm -rf $(LP_UT)
else ifneq ($(LP_IMP_REP),)
$(R)/nsys/report.nsys-rep: $(LP_IMP_STAMP) $(R)/vars/IMPORT | $(R)/nsys
	$(LP_SAY)
	$(Q)cp $(LP_IMP_REP) $@.tmp && mv $@.tmp $@ $(LP_UNTMP)
endif

# The traces that lp-hostside, lp-overlap and lp-atenops sweep in time
# order: since nsys 2025.6 the sqlite export (and so what nsys stats reads)
# does not promise row order, so lp-tracesort puts them in time order, in
# bounded memory, as they come in (from nsys stats or IMPORT).
LP_TRACES := cuda_api_trace cuda_gpu_trace nvtx_pushpop_trace graph_node_trace
# The two traces of every launch (millions of rows in a long capture) and
# the NVTX ranges (as many with PyTorch's op ranges) are parsed once, by
# lp-tracesort -p (or lp-import -P as it reads an import), into a packed
# trace (report_NAME.lpt, lp-tracesort(1)) that every filter reads instead
# of the CSV: the CSV stays as nsys wrote it, or is not copied (IMPORT).
LP_PACKED := cuda_api_trace cuda_gpu_trace nvtx_pushpop_trace nvtx_gpu_proj_trace
# (the projection packed in nsys's order, which its readers take: -k)
LP_KEPT := nvtx_gpu_proj_trace
lp_packflags = -p$(if $(filter $(1),$(LP_KEPT)), -k)
lp_ext = $(if $(filter $(1),$(LP_PACKED)),lpt,csv)
LP_PACKS_NEEDED := $(patsubst %,$(LP_NS)%.lpt,$(filter $(LP_PACKED),$(LP_NSYS_NEEDED)))

ifneq ($(LP_HAVE_STATS),)
# The report's sqlite export, made once: the only file with the GPU Metrics
# samples (gpumetrics.tsv) and the CUDA graph nodes (lp-graphnodes), and
# what nsys stats reads.  Written under a temporary name.
$(R)/nsys/export.cmd: $(R)/nsys/config.yaml $(LP_BIN)/lp-nsyscmd
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-nsyscmd -e -o $(R)/nsys/report.tmp.sqlite -- $(R)/nsys/report.nsys-rep \
	  < $(R)/nsys/config.yaml
$(R)/nsys/report.sqlite: $(R)/nsys/report.nsys-rep $(R)/nsys/export.cmd \
		| $(if $(LP_LIVE),$(R)/untraced/report_nvtx_pushpop_trace.csv) $(LP_BIN)/lp-runstep
	$(LP_SAY)
	$(Q)$(LP_BIN)/lp-runstep -n '$(LP_NSYS_NEED)' -c $(R)/nsys/export.cmd -l $(R)/nsys/report.tmp.log -o $(R)/nsys/report.tmp.sqlite \
	  -m 'nsys export wrote no sqlite export. Command: %c' -t 'nsys export' -T $(R)/nsys/export.time -- sh $(R)/nsys/export.cmd
	$(Q)rm -f $(R)/nsys/report.tmp.log && mv $(R)/nsys/report.tmp.sqlite $@

$(R)/nsys/stats.cmd: $(R)/nsys/config.yaml $(LP_BIN)/lp-nsyscmd
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-nsyscmd -s -o $(R)/nsys/stats.tmp/report -- $(R)/nsys/report.sqlite \
	  < $(R)/nsys/config.yaml

# nsys stats writes one CSV a report into a scratch folder; the reports lp
# needs must all be there before any is moved into place.  A capture
# without NVTX or kernel data (an empty nvtx_sum or cuda_gpu_kern_sum:
# nsys stats says "does not contain ... data") is refused here with its
# likely cause, before any table.  Not by that text: nsys says it of any
# empty report, and nvtx_gpu_proj_trace is empty where the ranges'
# process ran no GPU work (a front end whose engine launches the kernels).
lp_empty_capture = the capture holds no $(1) data (nsys stats: \"does not contain $(1) data\"; log: $(R)/nsys/stats.log.failed): \
  nothing of the workload was traced there. A model run in a process forked without exec (Python multiprocessing \"fork\", an engine core) \
  is not traced by nsys, and with --trace-fork-before-exec=true nsys 2025.3.1 still recorded none of its CUDA work (lp(7): forked workers). \
  Start such a worker with spawn (multiprocessing.set_start_method(\"spawn\"), or the engine's own setting) and re-run make; \
  else check that the workload pushes the stages' ranges inside the capture (make RUN=$(RUN) config.yaml: stages, nsys_cli.capture_range)
lp_nodata = -o $(LP_ST)/report_$(2).csv -m "$(call lp_empty_capture,$(1))"
LP_ST := $(R)/nsys/stats.tmp
LP_STATS_CHECKS = $(foreach r,$(LP_NSYS_NEEDED),-f $(LP_ST)/report_$(r).csv -m "nsys stats wrote no $(r) report (log: \
	$(R)/nsys/stats.log.failed)") $(call lp_nodata,NV Tools Extension (NVTX),nvtx_sum) $(call lp_nodata,CUDA kernel,cuda_gpu_kern_sum)
# (every trace nsys stats wrote, needed or not, packed by lp-tracesort -p
# once in place, so that a pack names the CSV where it stays;
# graph_node_trace, the one trace sorted unpacked, is lp-graphnodes')
$(R)/nsys/stats.log $(LP_NSYS_NEEDED:%=$(LP_NS)%.csv) $(LP_PACKS_NEEDED) &: $(R)/nsys/report.sqlite $(R)/nsys/stats.cmd \
		| $(LP_BIN)/lp-tracesort $(LP_BIN)/lp-runstep
	$(LP_SAY)
	$(Q)rm -rf $(LP_ST) && mkdir -p $(LP_ST) && $(LP_BIN)/lp-runstep -n '$(LP_NSYS_NEED)' -g -l $(LP_ST)/log \
	  -L $(R)/nsys/stats.log.failed $(LP_STATS_CHECKS) -t 'nsys stats' -T $(R)/nsys/stats.time -- sh $(R)/nsys/stats.cmd
	$(Q)rm -f $(LP_NS)*.csv $(LP_NS)*.lpt && mv $(LP_ST)/report_* $(R)/nsys/ && $(foreach r,$(LP_PACKED),f=$(LP_NS)$(r) && { [ ! -f $$f.csv ] || \
	  LP_OUTPUT=$$f.lpt $(LP_BIN)/lp-tracesort $(call lp_packflags,$(r)) $$f.csv; } &&) mv $(LP_ST)/log $(R)/nsys/stats.log && rm -rf $(LP_ST)
else
# Imported exports are copied in under the names nsys stats would use;
# per-process parts of one job (lp-import checked that they are) are
# joined, header once, in one pass; a trace is put in time order.
LP_JOIN_AWK = FNR == 1 { if (NR == 1) { h = $$0; f = FILENAME; print; next } if ($$0 != h) { print "IMPORT: " FILENAME ": its header is not that of " f > "/dev/stderr"; exit 1 } next } { print }
# (LP_IMP_STAMP stands for the imported files: imports.mk)
$(foreach r,$(filter-out $(LP_TRACES) $(LP_PACKED),$(LP_HAVE_REPORTS)),$(eval $(LP_NS)$(r).csv: $(LP_IMP_STAMP) $(R)/vars/IMPORT | $(R)/nsys ; \
	$$(Q)$(if $(word 2,$(LP_IMP_$(r))),awk '$$(LP_JOIN_AWK)' $$(LP_IMP_$(r)) > $$@.tmp && mv $$@.tmp $$@,\
	cp $$(LP_IMP_$(r)) $$@.tmp && mv $$@.tmp $$@ $$(LP_UNTMP))))
# (a pack lp-import made as it read the trace, for import.mk, is newer
# than what the rule depends on: lp-tracesort makes only those it did not)
define lp_trace_rule
$(LP_NS)$(1).$(call lp_ext,$(1)): $(LP_IMP_STAMP) $(R)/vars/IMPORT $(if $(filter $(1),$(LP_PACKED)),$(LP_BIN)/lp-import \
		| $(LP_BIN)/lp-tracesort,$(LP_BIN)/lp-tracesort |) $(R)/nsys
	$$(Q)$$(LP_BIN)/lp-tracesort $(if $(filter $(1),$(LP_PACKED)),$(call lp_packflags,$(1))) $$(LP_IMP_$(1)) > $$@.tmp && mv $$@.tmp $$@ $$(LP_UNTMP)
endef
$(foreach r,$(filter $(LP_TRACES) $(LP_PACKED),$(LP_HAVE_REPORTS)),$(eval $(call lp_trace_rule,$(r))))
endif

# The stage's top-N kernels by nsys GPU time: what ncu will profile.
LP_RANGE = "$$($(LP_BIN)/lp-nsyscmd -r < $(R)/nsys/config.yaml)"
# Communication kernels (the comm classes of operators.yaml) are left out:
# a collective replayed alone measures waiting, not work.
# hostside.tsv says whether the stage's kernels are where nvtx_kern_sum
# looks (not in graphs traced whole, not in another process): else an error
# with the cause, never a table that misses them.
# With the kernel trace, the pairs (kernel, launch configuration) of
# shapes.tsv instead, until they carry run.cover_pct of the stage: in a
# live run, where they are what ncu profiles (an import's ncu export holds
# what its own profile chose; its tables show the top kernels).
LP_SHAPES := $(if $(LP_PER_RANGE),$(if $(LP_HAVE_STATS),1,$(and $(LP_IMP_cuda_gpu_trace),$(LP_IMP_nvtx_gpu_proj_trace),1)))
LP_SHAPES_SEL := $(and $(LP_SHAPES),$(LP_LIVE))
# Where the CUDA work ran in another process than the one nsys launched
# (injected.tsv: an engine core a front end started), the kernels: ncu's
# per-launch-config filter is slow there (lp-topn(1), -i).
LP_INJ := $(and $(LP_SHAPES_SEL),$(LP_HAVE_STATS),$(R)/injected.tsv)
$(R)/topn.tsv: $(LP_KSRC) $(R)/nsys/config.yaml $(R)/ncu/config.yaml conf/operators.yaml \
		$(if $(LP_PER_RANGE),$(R)/procs.tsv $(R)/hostside.tsv) $(if $(LP_SHAPES_SEL),$(R)/shapes.tsv) $(LP_INJ) \
		$(LP_BIN)/lp-topn $(LP_BIN)/lp-nsyscmd $(LP_BIN)/lp-confget
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-topn -x conf/operators.yaml $(LP_PID) -n "$$($(LP_BIN)/lp-confget run.top_n_kernels $(R)/ncu/config.yaml)" \
	  $(if $(LP_SHAPES_SEL),-s $(R)/shapes.tsv -S "$$($(LP_BIN)/lp-confget run.top_n_shapes $(R)/ncu/config.yaml)" \
	  -p "$$($(LP_BIN)/lp-confget run.cover_pct $(R)/ncu/config.yaml)") $(if $(LP_INJ),-i $(LP_INJ)) \
	  $(if $(LP_PER_RANGE),-H $(R)/hostside.tsv -r $(LP_RANGE)) $(LP_KSRC)

ifneq ($(LP_LIVE),)
# The metrics this GPU's ncu knows: a preset metric it lacks is dropped and
# said (in profile.cmd and the summary), never left to fail the run.  The
# query (1 to 2 s) is made once per ncu version and set of GPUs (their
# models and driver, by nvidia-smi) and kept in LP_MCACHE for later runs;
# without nvidia-smi's answer it is made each time (lp-ncumetrics(1)).
# After the untraced timing run: under make -j nothing of lp's runs beside
# the two nsys runs (everything else that follows them reads the sqlite
# export, which waits for the untraced run).
LP_MCACHE := $(LP_STAGE2_DIR)/.cache/ncu-metrics
$(R)/ncu/metrics.avail: $(LP_BIN)/lp-ncumetrics | $(R)/ncu $(R)/untraced/report_nvtx_pushpop_trace.csv $(LP_BIN)/lp-runstep
	$(LP_SAY)
	$(Q)$(LP_BIN)/lp-runstep -n '$(LP_NCU_NEED)' -t 'ncu metric query' -T $(R)/ncu/metrics.avail.time -O $@.tmp \
	  -- $(LP_BIN)/lp-ncumetrics -c $(LP_MCACHE) && mv $@.tmp $@ $(LP_UNTMP)

# ncu_cli.target_processes auto: application-only where the process nsys
# launched (injected.tsv) alone ran the stage's kernels (procs.tsv): ncu
# injected into a second process, such as torch.compile's compile worker,
# makes each launch of a selected kernel wait ~0.1 s (tests/gpu/README.md).
LP_INJ_NCU := $(and $(LP_HAVE_STATS),$(R)/injected.tsv)
LP_PROCS_NCU := $(and $(LP_INJ_NCU),$(LP_PER_RANGE),$(R)/procs.tsv)
LP_NCU_K = $(LP_BIN)/lp-ncucmd -k $(R)/topn.tsv < $(R)/ncu/config.yaml
LP_PROCS_OPT := $(if $(LP_INJ_NCU),-I $(LP_INJ_NCU)) $(if $(LP_PROCS_NCU),-K $(LP_PROCS_NCU))
$(R)/ncu/profile.cmd: $(R)/ncu/config.yaml $(R)/inputs.yaml $(R)/topn.tsv $(R)/ncu/metrics.avail \
		$(LP_INJ_NCU) $(LP_PROCS_NCU) $(LP_BIN)/lp-ncucmd $(LP_BIN)/lp-confget
	$(LP_SAY)
	$(Q)xargs -0 -x -a <($(LP_BIN)/lp-confget -0 workload.argv $(R)/inputs.yaml) \
	  $(LP_BIN)/lp-ncucmd -a $(R)/ncu/metrics.avail -k $(R)/topn.tsv -o $(R)/ncu/report.tmp $(LP_PROCS_OPT) \
	  -- < $(R)/ncu/config.yaml $(LP_OUT)

# ncu on exactly the top-N kernels inside the stage.  ncu exits 0 when its
# filters match nothing; that is an error here, with the filters shown.
# lp-ncustop passes ncu's output on and, where ncu cannot stop the
# workload itself (per launch configuration: lp-ncucmd -n), stops it once
# every selected configuration is profiled (topn.tsv's "# stop:"); it
# times the replay (profile.stop.tsv).
LP_NCU_SAYS = -n '$(LP_NCU_NEED)' -p 'profiling with ncu: %c' -e 'ncu failed with exit code %r; fix it and re-run make' \
	-o $(R)/ncu/report.tmp.ncu-rep -m "ncu profiled no kernel (no report written). Filters used:"$$'\n'"$$f"
$(R)/ncu/report.ncu-rep: $(R)/ncu/profile.cmd $(R)/topn.tsv $(R)/ncu/config.yaml $(LP_BIN)/lp-ncustop | $(LP_BIN)/lp-runstep
	$(LP_SAY)
	$(Q)rm -f $(R)/ncu/report.tmp.*; n=$$($(LP_NCU_K) -n) || exit 1; f=$$($(LP_NCU_K) -d); \
	$(LP_BIN)/lp-runstep -k $@ -c $< $(LP_NCU_SAYS) -a -t 'ncu profile' -T $(R)/ncu/profile.time \
	  -- $(LP_BIN)/lp-ncustop -n "$$n" -t $(R)/ncu/profile.stop.tsv -- sh $<
else ifneq ($(LP_IMP_NCUREP),)
$(R)/ncu/report.ncu-rep: $(LP_IMP_STAMP) $(R)/vars/IMPORT | $(R)/ncu
	$(LP_SAY)
	$(Q)cp $(LP_IMP_NCUREP) $@.tmp && mv $@.tmp $@ $(LP_UNTMP)
endif

ifneq ($(or $(LP_LIVE),$(LP_IMP_NCUREP)),)
$(R)/ncu/export.cmd: $(R)/ncu/config.yaml $(LP_BIN)/lp-ncucmd
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-ncucmd -x -- $(R)/ncu/report.ncu-rep < $(R)/ncu/config.yaml

# The report as CSV (--page raw): ncu prints it on stdout.
$(R)/ncu/report.csv: $(R)/ncu/report.ncu-rep $(R)/ncu/export.cmd | $(LP_BIN)/lp-runstep
	$(LP_SAY)
	$(Q)$(LP_BIN)/lp-runstep -n '$(LP_NCU_NEED)' $(if $(LP_LIVE),-t 'ncu export' -T $(R)/ncu/export.time) -O $@.tmp \
	  -- sh $(R)/ncu/export.cmd && mv $@.tmp $@ $(LP_UNTMP)
else ifeq ($(words $(LP_IMP_NCUCSV)),1)
$(R)/ncu/report.csv: $(LP_IMP_STAMP) $(R)/vars/IMPORT | $(R)/ncu
	$(LP_SAY)
	$(Q)cp $(LP_IMP_NCUCSV) $@.tmp && mv $@.tmp $@ $(LP_UNTMP)
endif
# One ncu export is copied in as it is; several are read where they are,
# each result known by its file and ID.
LP_NCU_CSVS := $(if $(word 2,$(LP_IMP_NCUCSV)),$(LP_IMP_NCUCSV),$(R)/ncu/report.csv)
LP_NCU_DEPS := $(if $(word 2,$(LP_IMP_NCUCSV)),$(LP_IMP_STAMP),$(R)/ncu/report.csv)

# Per-kernel metrics from the ncu exports.  Imported ones count only the
# launches inside the stage's range, where the stage's kernels are (their
# push/pop stack says); a live run's ncu was filtered to it already.
LP_NCU_RANGE := $(if $(LP_LIVE),,$(LP_PER_RANGE))
$(R)/ncu/metrics.tsv: $(LP_NCU_DEPS) $(R)/nsys/config.yaml $(LP_BIN)/lp-ncu2tsv $(LP_BIN)/lp-nsyscmd | $(R)/ncu
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-ncu2tsv $(if $(LP_NCU_RANGE),-r $(LP_RANGE)) $(LP_NCU_CSVS)

# The stage's kernels: time and calls from nsys, metrics from ncu.
LP_NCU_LABEL = $(if $(LP_IMP_NCUCSV),"ncu CSV export$(if $(word 2,$(LP_IMP_NCUCSV)),s) $(LP_IMP_NCUCSV)$(if $(word 2,$(LP_IMP_NCUCSV)),, (imported as $(R)/ncu/report.csv))$(if $(LP_NCU_RANGE),$(comma) the launches inside the stage's range)",\
	"ncu $(if $(LP_LIVE),on the top-N kernels of stage $$($(LP_BIN)/lp-confget run.stage $(R)/ncu/config.yaml) ,)($(R)/ncu/report.ncu-rep, exported to $(R)/ncu/report.csv)$(if $(LP_LIVE),$$(sed -n 's/^# lp: \(.*\)/; \1/p' $(R)/ncu/profile.cmd))")
$(R)/kernels.tsv: $(LP_KSRC) $(LP_KSRC_DEM) $(if $(LP_HAVE_NCU),$(R)/ncu/metrics.tsv) \
		$(R)/nsys/config.yaml $(if $(LP_PER_RANGE),$(R)/procs.tsv $(R)/hostside.tsv) $(LP_BIN)/lp-kernjoin $(LP_BIN)/lp-nsyscmd
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-kernjoin $(if $(LP_KSRC_DEM),-d $(LP_KSRC_DEM)) $(LP_PID) $(LP_PGPU) \
	  $(if $(LP_PER_RANGE),-H $(R)/hostside.tsv -r $(LP_RANGE),-T "nsys cuda_gpu_kern_sum, whole capture ($(LP_KSRC))") \
	  $(if $(LP_HAVE_NCU),-m $(R)/ncu/metrics.tsv -M $(LP_NCU_LABEL)) \
	  $(LP_KSRC)

# kernels.md: kernels.tsv's rows with each kernel's roofline class
# (kernels_md.tsv), rendered by lp-summary like every report.
$(R)/kernels_md.tsv: $(R)/kernels.tsv $(R)/roofline.tsv $(R)/vars/rows.kernels_md $(LP_BIN)/lp-kernmd
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-kernmd -n $(LP_KMD_ROWS) -r $(R)/roofline.tsv $<

$(R)/kernels.md: $(R)/kernels_md.tsv $(LP_BIN)/lp-summary
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-summary -t "Top GPU kernels" $<

# ---- the summary's tables: one filter each, exactly its inputs ----

# The reports a table reads: after nsys stats they are all there (the
# optional ones, by the recipe's test); imported, only those given.
lp_rep = $(if $(LP_HAVE_STATS),$(if $(filter $(1),$(LP_NSYS_NEEDED)),$(LP_NS)$(1).$(call lp_ext,$(1))),$(if $(LP_IMP_$(1)),$(LP_NS)$(1).$(call lp_ext,$(1))))
lp_opt = $(if $(LP_HAVE_STATS),$$(test -f $(LP_NS)$(2).$(call lp_ext,$(2)) && echo "$(1) $(LP_NS)$(2).$(call lp_ext,$(2))"),$(if $(LP_IMP_$(2)),$(1) $(LP_NS)$(2).$(call lp_ext,$(2))))
LP_STATS_DONE := $(if $(LP_HAVE_STATS),$(R)/nsys/stats.log)

# The processes that ran kernels and the GPU of each (read once here from
# the traces), and in a multi-GPU run the one ncu profiles (ncu_cli.device,
# "# profiled:") and the one whose kernels alone the kernel tables show
# ("# kernels:", the profiled one where it is known).
$(R)/procs.tsv: $(LP_PRESETS_NCU) $(R)/vars/presets.ncu $(R)/vars/overrides.device \
		$(call lp_rep,nvtx_kern_sum) $(call lp_rep,nvtx_gpu_proj_trace) \
		$(call lp_rep,cuda_gpu_trace) $(LP_STATS_DONE) $(LP_BIN)/lp-procs $(LP_BIN)/lp-confget \
		| $(R)/ncu/config.yaml
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-procs -D "$$($(LP_BIN)/lp-confget -d -1 ncu_cli.device $(R)/ncu/config.yaml)" \
	  $(call lp_opt,-g,nvtx_gpu_proj_trace) $(call lp_opt,-t,cuda_gpu_trace) $(LP_NS)nvtx_kern_sum.csv
# The processes nsys injected, which one it launched and which made CUDA
# calls (nsys's own diagnostics in the export).
$(R)/injected.tsv: $(R)/nsys/report.sqlite $(LP_BIN)/lp-injected
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-injected $(R)/nsys/report.sqlite
LP_PID = $(if $(LP_PER_RANGE),$$(sed -n 's/^\# kernels: /-P /p' $(R)/procs.tsv))
# ... and its GPU, for the kernel tables to say whose kernels they show
# (empty where procs.tsv names none: lp-kernjoin leaves it out)
LP_PGPU = $(if $(LP_PER_RANGE),-G "$$(sed -n 's/^\# kernels_gpu: //p' $(R)/procs.tsv)")

# The stage's kernels per launch configuration (grid, block), each with its
# own nsys time: the launches of cuda_gpu_trace inside the stage's GPU
# projection (nvtx_gpu_proj_trace) on its GPU (procs.tsv), checked kernel
# by kernel against the stage's summary.
LP_SHAPES_DEV = "$$(awk -F'\t' '/^\# kernels: /{ p = substr($$0, 12) } !/^\#/ && p != "" && $$1 == p && $$2 !~ /^n\/a/ { print $$2 }' $(R)/procs.tsv)"
$(R)/shapes.tsv: $(LP_KSRC) $(LP_KSRC_DEM) $(LP_STATS_DONE) $(call lp_rep,cuda_gpu_trace) $(call lp_rep,nvtx_gpu_proj_trace) \
		$(R)/nsys/config.yaml $(R)/procs.tsv $(R)/hostside.tsv $(LP_BIN)/lp-shapes $(LP_BIN)/lp-nsyscmd
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-shapes -r $(LP_RANGE) $(LP_PID) -g $(LP_SHAPES_DEV) -H $(R)/hostside.tsv -p $(LP_NS)nvtx_gpu_proj_trace.lpt \
	  -k $(LP_KSRC) $(if $(LP_KSRC_DEM),-d $(LP_KSRC_DEM)) $(LP_NS)cuda_gpu_trace.lpt


# The GPU's dense peaks: conf/gpus.yaml by the name nvidia-smi (or ncu)
# reports, with the config's gpu.* overrides.
# An imported run has no nvidia-smi record: ncu's export names the GPU, or
# else nsys cuda_gpu_trace's Device.
LP_GPU_NCU := $(if $(LP_LIVE),,$(if $(LP_HAVE_NCU),$(firstword $(LP_NCU_CSVS)),$(firstword $(LP_IMP_REGCSV))))
LP_GPU_NCU_DEP := $(if $(LP_LIVE),,$(if $(LP_HAVE_NCU),$(firstword $(LP_NCU_DEPS)),$(if $(LP_IMP_REGCSV),$(LP_IMP_STAMP))))
$(R)/gpu.tsv: $(LP_PRESETS_ALL) $(R)/vars/presets.all $(R)/vars/overrides.gpu $(R)/env.json \
		$(LP_GPU_NCU_DEP) conf/gpus.yaml $(LP_BIN)/lp-gpu \
		$(if $(LP_LIVE),,$(call lp_rep,cuda_gpu_trace) $(LP_STATS_DONE)) | $(R)/config.yaml
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-gpu -c $(R)/config.yaml $(if $(LP_GPU_NCU),-n $(LP_GPU_NCU)) -t conf/gpus.yaml \
	  $(if $(LP_LIVE),,$(call lp_opt,-d,cuda_gpu_trace)) $(R)/env.json

# A table that reads only a few keys of config.yaml is made after it
# (order-only) but depends on what those keys come from: the presets,
# the record of those keys' overrides (tools/mk/settings.mk) and the
# merge.  Another setting (TOPN) re-makes config.yaml, not the table.
lp_confkeys = $(LP_PRESETS_ALL) $(R)/vars/presets.all $(R)/vars/overrides.$(1) $(LP_BIN)/lp-confmerge

# What was profiled, on what: the GPU gpu.tsv names where nvidia-smi
# did not, so that the report names one GPU throughout.
$(R)/environment.tsv: $(R)/inputs.yaml $(R)/env.json $(R)/gpu.tsv $(LP_BIN)/lp-envtab \
		$(call lp_confkeys,environment) | $(R)/config.yaml
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-envtab -c $(R)/config.yaml -g $(R)/gpu.tsv -i $(R)/inputs.yaml \
	  $(R)/env.json

# The run at a glance, from the nsys summaries and kernels.tsv.
$(R)/aggregates.tsv: $(R)/kernels.tsv $(call lp_rep,cuda_gpu_kern_sum) $(LP_STATS_DONE) \
		$(call lp_rep,cuda_api_sum) $(call lp_rep,cuda_gpu_mem_time_sum) $(LP_BIN)/lp-aggr
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-aggr $(call lp_opt,-g,cuda_gpu_kern_sum) $(call lp_opt,-a,cuda_api_sum) \
	  $(call lp_opt,-m,cuda_gpu_mem_time_sum) $(R)/kernels.tsv

# Wall-time statistics and kernel time of every configured stage.
$(R)/stages.tsv: $(R)/nsys/config.yaml $(call lp_rep,nvtx_sum) $(call lp_rep,nvtx_kern_sum) \
		$(LP_STATS_DONE) $(LP_BIN)/lp-stages
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-stages -c $(R)/nsys/config.yaml $(if $(LP_LIVE),-L) \
	  $(call lp_opt,-k,nvtx_kern_sum) $(call lp_opt,,nvtx_sum)

# Per instance: warm-up, steady state, tokens/s: the workload's own
# times.  A live run's steps.tsv is the untraced timing run's (lp-steps -u:
# NVTX alone, no CUDA trace), which every table of step times reads (MFU,
# MBU, the waterfall, the brief, findings, compare); the capture's own is
# nsys/steps.tsv, and untraced.tsv joins the two: what the capture adds.
# An import has no untraced run: its steps.tsv is the capture's, and its
# untraced.tsv says so in every untraced cell.
ifneq ($(LP_LIVE),)
$(R)/nsys/steps.tsv: $(R)/nsys/config.yaml $(R)/inputs.yaml $(call lp_rep,nvtx_pushpop_trace) \
		$(LP_STATS_DONE) $(LP_BIN)/lp-steps
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-steps -c $(R)/nsys/config.yaml -i $(R)/inputs.yaml \
	  $(call lp_opt,,nvtx_pushpop_trace)
$(R)/steps.tsv: $(R)/nsys/config.yaml $(R)/inputs.yaml $(R)/untraced/report_nvtx_pushpop_trace.csv \
		$(LP_BIN)/lp-steps
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-steps -u -c $(R)/nsys/config.yaml -i $(R)/inputs.yaml \
	  $(R)/untraced/report_nvtx_pushpop_trace.csv
$(R)/untraced.tsv: $(R)/nsys/steps.tsv $(R)/steps.tsv $(LP_BIN)/lp-untraced
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-untraced $(R)/nsys/steps.tsv $(R)/steps.tsv
else
$(R)/steps.tsv: $(R)/nsys/config.yaml $(R)/inputs.yaml $(call lp_rep,nvtx_pushpop_trace) \
		$(LP_STATS_DONE) $(LP_BIN)/lp-steps
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-steps -c $(R)/nsys/config.yaml -i $(R)/inputs.yaml \
	  $(call lp_opt,,nvtx_pushpop_trace)
$(R)/untraced.tsv: $(R)/steps.tsv $(LP_BIN)/lp-untraced
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-untraced -n "the run is imported: lp did not run the workload untraced" \
	  $(R)/steps.tsv
$(R)/untraced/profile.cmd $(R)/untraced/report.nsys-rep $(R)/untraced/report_nvtx_pushpop_trace.csv \
$(R)/nsys/steps.tsv:
	@echo "lp: run $(RUN) imports exports: lp did not run the workload, so it has no untraced timing run (untraced.tsv says so)" >&2; exit 1
endif
# What the capture added, for the tables that say it beside the
# workload's times (the waterfall, the brief, findings): live runs only.
LP_UT_IN := $(if $(LP_LIVE),$(R)/untraced.tsv)

# Where each stage's host time goes: CUDA API calls of its thread by kind,
# the rest (the framework's own work), its kernels and each launch's
# latency to its kernel (correlation IDs).
# CUDA graphs: launches, their kernels, the time blocked on the GPU; and
# whether the stage's kernels are in its range at all (stage_check).
$(R)/hostside.tsv: $(R)/nsys/config.yaml $(call lp_rep,nvtx_pushpop_trace) $(call lp_rep,cuda_api_trace) \
		$(call lp_rep,cuda_gpu_trace) $(call lp_rep,cuda_api_sum) $(LP_STATS_DONE) $(LP_BIN)/lp-hostside
	$(LP_SAY)
	$(Q)$(LP_BIN)/lp-hostside -c $(R)/nsys/config.yaml $(call lp_opt,-a,cuda_api_trace) \
	  $(call lp_opt,-g,cuda_gpu_trace) $(call lp_opt,-s,cuda_api_sum) $(call lp_opt,,nvtx_pushpop_trace) > $@.tmp && mv $@.tmp $@

# Model FLOPs and bytes against the GPU's peaks, mean and steady state.
$(R)/mfu.tsv: $(R)/gpu.tsv $(R)/inputs.yaml $(R)/stages.tsv $(R)/steps.tsv $(LP_BIN)/lp-mfu
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-mfu -g $(R)/gpu.tsv -i $(R)/inputs.yaml -s $(R)/stages.tsv \
	  -t $(R)/steps.tsv
$(R)/mbu.tsv: $(R)/gpu.tsv $(R)/inputs.yaml $(R)/stages.tsv $(R)/steps.tsv $(LP_BIN)/lp-mbu
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-mbu -g $(R)/gpu.tsv -i $(R)/inputs.yaml -s $(R)/stages.tsv \
	  -t $(R)/steps.tsv

# What the GPU did in each stage, as nsys's GPU Metrics sampling measured
# it (tensor active, SMs active, DRAM bandwidth): the samples of the sqlite
# export inside each stage's instances.  The export made here may hold none
# (nsys_cli.gpu_metrics_frequency: 0, a GPU nsys cannot sample): the table
# then says so and the summary leaves it out (-n).  Imported, an nsys
# sqlite export that has samples (lp-import looked), read where it is: the
# rules depend on LP_IMP_STAMP, never on its path (a ':' in it is
# rule text, "target pattern contains no '%'" at every later make).  The
# datasheet's bandwidth (gpu.tsv) bounds the export's.
LP_GM_DB := $(if $(LP_HAVE_STATS),$(R)/nsys/report.sqlite,$(LP_IMP_SQLITE))
LP_GM_DEP := $(if $(LP_HAVE_STATS),$(R)/nsys/report.sqlite,$(if $(LP_IMP_SQLITE),$(LP_IMP_STAMP) $(R)/vars/IMPORT))
LP_GM := $(if $(LP_GM_DB),$(R)/gpumetrics.tsv)
ifneq ($(LP_GM_DB),)
$(R)/gpumetrics.tsv: $(LP_GM_DEP) $(R)/nsys/config.yaml $(R)/gpu.tsv $(call lp_rep,nvtx_gpu_proj_trace) \
		$(call lp_rep,nvtx_pushpop_trace) $(LP_STATS_DONE) $(LP_BIN)/lp-gpumetrics
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-gpumetrics -n -c $(R)/nsys/config.yaml -g $(R)/gpu.tsv \
	  $(call lp_opt,-p,nvtx_gpu_proj_trace) $(call lp_opt,-t,nvtx_pushpop_trace) $(LP_GM_DB)
else
$(R)/gpumetrics.tsv:
	@echo "lp: run $(RUN) has no GPU Metrics samples: it imports no nsys sqlite export with them (nsys profile --gpu-metrics-devices=all, then nsys export --type sqlite; import the .sqlite with the CSVs)" >&2; exit 1
endif

# The DRAM ceiling three ways: the datasheet's (gpu.tsv), the copy probe's
# (live runs; an imported run was not run here, so it has none) and the
# best the workload sustained in the GPU Metrics samples, where the run's
# sqlite export has them.  The roofline and the waterfall show it beside
# the datasheet's figure.
LP_BW_PROBE := $(if $(LP_LIVE),$(R)/bwprobe.tsv)
ifeq ($(LP_LIVE),)
$(R)/bwprobe.tsv $(R)/bwprobe.log:
	@echo "lp: run $(RUN) imports exports: lp did not run on its machine, so it has no copy probe (dram_bw.tsv says so)" >&2; exit 1
endif
$(R)/dram_bw.tsv: $(R)/gpu.tsv $(LP_BW_PROBE) $(LP_GM_DEP) \
		$(LP_BIN)/lp-bwceil
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-bwceil -g $(R)/gpu.tsv $(if $(LP_LIVE),-p $(R)/bwprobe.tsv -e $(R)/bwprobe.log,-P \
	  "the run is imported: lp did not run on its machine$(comma) so there is no copy probe of its GPU") \
	  $(LP_GM_DB)

# The top-N tables of a live run show as many kernels as ncu profiles
# (topn.tsv's "# kernels:": TOPN kernels, or the kernels of its TOPN
# pairs); an import's, artifacts.top_kernels_rows: its ncu ran already,
# so TOPN changes nothing it shows (only topn.tsv, what lp would profile).
LP_TOPN_NOW = $(if $(LP_LIVE),"$$(sed -n 's/^\# kernels: //p' $(R)/topn.tsv)",$(LP_TK_ROWS))
LP_TOPN_DEP = $(if $(LP_LIVE),$(R)/topn.tsv,$(R)/vars/rows.top_kernels)

# Each top kernel against the roofline, and the chart of it.
# A point per launch shape (metrics.tsv); the model config names the
# dimension an unaligned GEMM comes from.
$(R)/roofline.tsv: $(R)/kernels.tsv $(R)/gpu.tsv $(R)/dram_bw.tsv $(R)/inputs.yaml $(LP_TOPN_DEP) $(if $(LP_SHAPES),$(R)/shapes.tsv) \
		$(if $(LP_HAVE_NCU),$(R)/ncu/metrics.tsv) $(LP_BIN)/lp-roofline
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-roofline -n $(LP_TOPN_NOW) -b $(R)/dram_bw.tsv -g $(R)/gpu.tsv -i $(R)/inputs.yaml $(if $(LP_SHAPES),-s $(R)/shapes.tsv) \
	  $(if $(LP_HAVE_NCU),-m $(R)/ncu/metrics.tsv) $(R)/kernels.tsv
$(R)/roofline.svg: $(R)/roofline.tsv $(R)/gpu.tsv $(LP_BIN)/lp-roofsvg
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-roofsvg -g $(R)/gpu.tsv $(R)/roofline.tsv

# GPU time by operator class; only these classes feed it.
$(R)/operators.tsv: $(R)/kernels.tsv conf/operators.yaml $(LP_BIN)/lp-ops
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-ops -o conf/operators.yaml $(R)/kernels.tsv

# The top kernels with their roofline class (communication kernels said so).
$(R)/top_kernels.tsv: $(R)/kernels.tsv $(R)/roofline.tsv $(LP_TOPN_DEP) conf/operators.yaml \
		$(LP_BIN)/lp-topk
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-topk -n $(LP_TOPN_NOW) -o conf/operators.yaml -r $(R)/roofline.tsv $(R)/kernels.tsv

# Multi-process runs: each stage per process (rank), its communication
# and the straggler; each GPU's communication against its compute.
$(R)/ranks.tsv: $(R)/nsys/config.yaml conf/operators.yaml $(call lp_rep,nvtx_pushpop_trace) \
		$(call lp_rep,nvtx_kern_sum) $(if $(LP_PER_RANGE),$(R)/procs.tsv) $(LP_STATS_DONE) $(LP_BIN)/lp-ranks
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-ranks -c $(R)/nsys/config.yaml -o conf/operators.yaml $(call lp_opt,-k,nvtx_kern_sum) \
	  $(if $(LP_PER_RANGE),-p $(R)/procs.tsv) $(call lp_opt,,nvtx_pushpop_trace)
$(R)/overlap.tsv: conf/operators.yaml $(call lp_rep,cuda_gpu_trace) $(LP_STATS_DONE) $(LP_BIN)/lp-overlap
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-overlap -o conf/operators.yaml $(if $(LP_HAVE_STATS),$$(test -f $(LP_NS)cuda_gpu_trace.lpt \
	  && echo $(LP_NS)cuda_gpu_trace.lpt || echo -x),$(if $(LP_IMP_cuda_gpu_trace),$(LP_NS)cuda_gpu_trace.lpt,-x))

# What to do next, ranked by the time it could save.
LP_FINDINGS_IN := $(R)/stages.tsv $(R)/steps.tsv $(LP_UT_IN) $(R)/hostside.tsv $(R)/mfu.tsv $(R)/mbu.tsv \
	$(LP_GM) $(R)/roofline.tsv $(R)/top_kernels.tsv $(R)/gpu.tsv $(R)/ranks.tsv $(R)/overlap.tsv
$(R)/findings.tsv: $(LP_FINDINGS_IN) $(LP_BIN)/lp-findings
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-findings $(if $(LP_LIVE),,-I) $(LP_FINDINGS_IN)

# ---- PyTorch ops (OPS=aten): GPU time per op and input shapes ----
# nsys profile --pytorch=autograd-shapes-nvtx pushes a range per aten op;
# lp-atenops gives each kernel to the innermost op open at its launch.
# The summary's Top Operators are then the ops of the run's stage (by
# name, and by input shapes), instead of the kernel-name classes.
LP_ATEN_IN := $(R)/nsys/config.yaml $(foreach r,$(LP_ATEN_REPORTS),$(call lp_rep,$(r)))
LP_ATEN_NCU := $(and $(LP_HAVE_NCU),$(call lp_rep,cuda_gpu_kern_sum),$(call lp_rep,cuda_gpu_kern_sum_mangled))
# A CUDA graph's kernels go to the op open when their node was captured
# (lp-graphnodes: nsys's sqlite export, the one nsys stats read; imported,
# lp-graphnodes' CSV of it).
LP_GRAPHNODES := $(if $(or $(LP_HAVE_STATS),$(LP_IMP_graph_node_trace)),$(LP_NS)graph_node_trace.csv)
LP_ATEN = $(LP_BIN)/lp-atenops -c $(R)/nsys/config.yaml -a $(LP_NS)cuda_api_trace.lpt \
	  -g $(LP_NS)cuda_gpu_trace.lpt $(if $(LP_ATEN_NCU),-m $(R)/ncu/metrics.tsv \
	  -d $(LP_NS)cuda_gpu_kern_sum.csv -D $(LP_NS)cuda_gpu_kern_sum_mangled.csv) \
	  $(if $(LP_GRAPHNODES),-n $(LP_GRAPHNODES))
LP_ATEN_DEPS := $(LP_ATEN_IN) $(if $(LP_ATEN_NCU),$(R)/ncu/metrics.tsv $(LP_NS)cuda_gpu_kern_sum.csv \
	$(LP_NS)cuda_gpu_kern_sum_mangled.csv) $(LP_GRAPHNODES) $(LP_STATS_DONE) $(LP_BIN)/lp-atenops
ifneq ($(LP_HAVE_STATS),)
$(LP_NS)graph_node_trace.csv: $(R)/nsys/report.sqlite $(LP_BIN)/lp-graphnodes
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-graphnodes $(R)/nsys/report.sqlite
endif
LP_ATEN_TOP = $(LP_BIN)/lp-tabtop -w stage="$$($(LP_BIN)/lp-confget run.stage $(R)/config.yaml)" -n $(LP_TOPN_NOW)
LP_ATEN_MISSING := $(strip $(if $(LP_LIVE),,$(foreach r,$(LP_ATEN_REPORTS),$(if $(LP_IMP_$(r)),,$(r)))))
ifneq ($(LP_ATEN_MISSING),)
$(R)/aten_ops.tsv $(R)/aten_opnames.tsv $(R)/operators_aten.tsv $(R)/operators_shapes.tsv \
$(R)/aten_roofline.tsv $(R)/operators_roofline.tsv:
	@echo "lp: OPS=aten needs nsys $(LP_ATEN_MISSING) among the imported exports (nsys stats --report $(firstword $(LP_ATEN_MISSING)))" >&2; exit 1
else
$(R)/aten_ops.tsv: $(LP_ATEN_DEPS)
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_ATEN) $(LP_NS)nvtx_pushpop_trace.lpt
$(R)/aten_opnames.tsv: $(LP_ATEN_DEPS)
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_ATEN) -N $(LP_NS)nvtx_pushpop_trace.lpt
# The summary's: the run's stage, its first rows (lp-atenops orders by time)
$(R)/operators_aten.tsv: $(R)/aten_opnames.tsv $(LP_TOPN_DEP) $(LP_BIN)/lp-confget $(LP_BIN)/lp-tabtop \
		$(call lp_confkeys,stage) | $(R)/config.yaml
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_ATEN_TOP) $(R)/aten_opnames.tsv
$(R)/operators_shapes.tsv: $(R)/aten_ops.tsv $(LP_TOPN_DEP) $(LP_BIN)/lp-confget $(LP_BIN)/lp-tabtop \
		$(call lp_confkeys,stage) | $(R)/config.yaml
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_ATEN_TOP) $(R)/aten_ops.tsv
# Each op (and shapes) on the roofline, from its kernels' ncu figures
$(R)/aten_roofline.tsv: $(R)/aten_ops.tsv $(R)/gpu.tsv $(LP_BIN)/lp-oproof
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-oproof -g $(R)/gpu.tsv $(R)/aten_ops.tsv
$(R)/operators_roofline.tsv: $(R)/aten_roofline.tsv $(LP_TOPN_DEP) $(LP_BIN)/lp-confget $(LP_BIN)/lp-tabtop \
		$(call lp_confkeys,stage) | $(R)/config.yaml
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_ATEN_TOP) $(R)/aten_roofline.tsv
endif
# An import whose nvtx_sum has op ranges (lp-import says so) and that
# brings the three traces gets them without OPS=aten.
LP_OPS_NOW := $(or $(LP_OPS),$(if $(and $(LP_IMP_ATEN),$(LP_IMP_nvtx_pushpop_trace),\
	$(LP_IMP_cuda_api_trace),$(LP_IMP_cuda_gpu_trace)),aten))
LP_OPS_TABLES := $(if $(LP_OPS_NOW),$(R)/operators_aten.tsv $(R)/operators_shapes.tsv \
	$(if $(LP_ATEN_NCU),$(R)/operators_roofline.tsv),$(R)/operators.tsv)
$(R)/details.md: $(if $(LP_OPS_NOW),$(R)/aten_ops.tsv $(R)/aten_opnames.tsv \
	$(if $(LP_ATEN_NCU),$(R)/aten_roofline.tsv))

# What the profile cost (live runs): each profiling step's wall time, as
# its recipe said and recorded it (*.time), the application runs and the
# ncu replay passes (from the exports), and each against the workload run
# alone once that is timed (make RUN=x alone.tsv: one more run of it).
# lp-cost -R finds the *.time files in the run's folder (lp-cost(1)).
ifneq ($(LP_LIVE),)
LP_COST_REG := $(wildcard $(R)/ncu/regions/exports.list)
$(R)/profile_cost.tsv: $(R)/nsys/report.nsys-rep $(R)/untraced/report_nvtx_pushpop_trace.csv \
		$(R)/nsys/report.sqlite $(R)/nsys/stats.log $(R)/ncu/metrics.avail \
		$(R)/ncu/report.ncu-rep $(R)/ncu/report.csv $(R)/roofline.tsv $(LP_COST_REG) $(wildcard $(R)/alone.tsv) \
		$(LP_UT_GPUVAR) $(LP_BIN)/lp-cost
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-cost -R $(R) $(if $(LP_UT_BESIDE),-b) $(if $(LP_COST_REG),-r $(LP_COST_REG)) $(if $(wildcard $(R)/alone.tsv),-a $(R)/alone.tsv)

# The workload alone, timed once, as the profiles ran it.
$(R)/alone.tsv: $(R)/inputs.yaml $(LP_BIN)/lp-confget | $(LP_BIN)/lp-runstep
	$(LP_SAY)
	$(Q)xargs -0 -x -a <($(LP_BIN)/lp-confget -0 workload.argv $(R)/inputs.yaml) $(LP_BIN)/lp-runstep -a -t 'workload alone' -T $@.tmp \
	  -p 'running the workload alone, to time it' -e 'the workload failed with exit code %r; fix it and re-run make' -O /dev/null -- \
	  && mv $@.tmp $@ $(LP_UNTMP)
else
$(R)/profile_cost.tsv $(R)/alone.tsv:
	@echo "lp: run $(RUN) imports exports: lp did not profile it, so it has no profiling cost to show" >&2; exit 1
endif

# What the capture holds, per process and stage (lp-audit): the launches
# inside each process's own instances, a graphed decode's eager steps.
# It fails closed on ranges around no launch; the brief's identity line
# says what it found partial (lp-brief -A).
# (An import without the API trace has nothing to audit beyond steps.tsv.)
LP_AUDIT := $(if $(or $(LP_HAVE_STATS),$(and $(LP_IMP_nvtx_pushpop_trace),$(LP_IMP_cuda_api_trace))),$(R)/capture_audit.tsv)
$(R)/capture_audit.tsv: $(R)/nsys/config.yaml $(call lp_rep,nvtx_pushpop_trace) $(call lp_rep,cuda_api_trace) \
		$(LP_STATS_DONE) $(LP_BIN)/lp-audit $(if $(LP_PER_RANGE),$(R)/hostside.tsv)
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-audit -c $(R)/nsys/config.yaml $(call lp_opt,-a,cuda_api_trace) \
	  $(call lp_opt,-p,nvtx_pushpop_trace) $(if $(LP_PER_RANGE),-H $(R)/hostside.tsv -r $(LP_RANGE))

# The summary renders the tables, in this order; it computes nothing.
# Once the regions are profiled (make RUN=x regions.md), or when IMPORT
# brings their exports, it shows them too.
LP_SUMMARY_IN := $(R)/brief.tsv $(R)/environment.tsv $(R)/gpu.tsv $(R)/aggregates.tsv $(R)/stages.tsv \
	$(R)/steps.tsv $(if $(LP_LIVE),$(R)/untraced.tsv $(if $(LP_UT_BESIDE),$(R)/untraced/gpu.tsv)) $(R)/hostside.tsv $(LP_AUDIT) $(R)/ranks.tsv $(R)/rank_waterfall.tsv $(R)/overlap.tsv $(R)/mfu.tsv $(R)/mbu.tsv \
	$(LP_GM) $(R)/dram_bw.tsv $(R)/waterfall.tsv $(R)/bound.tsv $(R)/roofline.tsv $(LP_OPS_TABLES) $(R)/top_kernels.tsv $(if $(or $(wildcard $(R)/ncu/regions/exports.list),\
	$(LP_IMP_REGCSV),$(LP_IMP_REGREP)),$(R)/regions.tsv) \
	$(R)/findings.tsv $(if $(LP_LIVE),$(R)/profile_cost.tsv)
$(R)/details.md: $(LP_SUMMARY_IN) $(R)/roofline.svg $(R)/kernels.md conf/details.yaml $(LP_BIN)/lp-summary
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-summary -c conf/details.yaml -t "Details: run $(RUN)" $(LP_SUMMARY_IN)

# The brief, the one screen a person opens first: a verdict and key numbers
# (lp-brief), each step against its physical floor (lp-waterfall), the top
# three findings (lp-tabtop), the roofline as an image, links to the rest.
# The waterfall, its verdict (bound.tsv) and the brief: their inputs and
# words, the same for the whole brief and for the first answer (below),
# which leaves out what comes of ncu (the operator classes, the top kernels).
LP_WF_IN = $(R)/gpu.tsv $(R)/dram_bw.tsv $(R)/inputs.yaml $(R)/stages.tsv $(R)/steps.tsv $(R)/hostside.tsv \
	$(LP_UT_IN) $(LP_BIN)/lp-waterfall
LP_WF = $(LP_BIN)/lp-waterfall -F waterfall.svg -b $(R)/dram_bw.tsv -g $(R)/gpu.tsv -i $(R)/inputs.yaml -s $(R)/stages.tsv \
	-t $(R)/steps.tsv $(LP_UT_IN:%=-u %) -H $(R)/hostside.tsv
LP_BOUND_IN = $(R)/ranks.tsv $(R)/steps.tsv $(LP_BIN)/lp-bound $(call lp_confkeys,brief)
LP_BOUND = $(LP_BIN)/lp-bound -c $(R)/config.yaml -r $(R)/ranks.tsv -t $(R)/steps.tsv
# (the brief's inputs in two parts, its verdict between them: make goes in
# this order, so a stage whose kernels are elsewhere is said by lp-hostside,
# which names both processes, before lp-audit)
LP_BRIEF_IN = $(R)/environment.tsv $(R)/stages.tsv $(R)/steps.tsv $(R)/mbu.tsv $(LP_UT_IN)
LP_BRIEF_IN2 = $(LP_GM) $(LP_AUDIT) $(LP_BIN)/lp-brief $(call lp_confkeys,brief)
LP_BRIEF = $(LP_BIN)/lp-brief -c $(R)/config.yaml -e $(R)/environment.tsv -s $(R)/stages.tsv -t $(R)/steps.tsv \
	$(LP_UT_IN:%=-u %) $(LP_AUDIT:%=-A %) -b $(R)/mbu.tsv $(if $(LP_GM),-G $(R)/gpumetrics.tsv)
$(R)/waterfall.tsv: $(LP_WF_IN) $(if $(LP_OPS_NOW),,$(R)/operators.tsv conf/operators.yaml)
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_WF) $(if $(LP_OPS_NOW),,-o $(R)/operators.tsv -c conf/operators.yaml)
# A step run by several ranks, one bar a rank (lp-rankfall): its kernels
# and communication each split at their floor (the rank's bytes at the
# DRAM bandwidth, the all-reduces' bytes at the link's), and the idle.
# The latency floor a collective is lp-linkprobe's, where the run is live.
LP_LINK_PROBE := $(if $(LP_LIVE),$(R)/linkprobe.tsv)
ifeq ($(LP_LIVE),)
$(R)/linkprobe.tsv $(R)/linkprobe.log:
	@echo "lp: run $(RUN) imports exports: lp did not run on its machine, so it has no link probe (rank_waterfall.tsv says so)" >&2; exit 1
endif
$(R)/rank_waterfall.tsv: $(R)/ranks.tsv $(R)/gpu.tsv $(R)/inputs.yaml $(R)/steps.tsv $(LP_LINK_PROBE) $(LP_BIN)/lp-rankfall
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-rankfall -g $(R)/gpu.tsv -i $(R)/inputs.yaml -t $(R)/steps.tsv \
	  $(if $(LP_LIVE),-l $(R)/linkprobe.tsv -e $(R)/linkprobe.log,-P \
	  "the run is imported: lp did not run on its machine$(comma) so there is no link probe of its GPUs") \
	  $(R)/ranks.tsv
# What bounds the step, from its parts (lp-bound): the brief's verdict.
$(R)/bound.tsv: $(R)/waterfall.tsv $(LP_BOUND_IN) | $(R)/config.yaml
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BOUND) $(R)/waterfall.tsv
LP_BRIEF_LINKS := details.md kernels.md $(if $(filter $(R)/regions.tsv,$(LP_SUMMARY_IN)),regions.md)
$(R)/brief.tsv: $(LP_BRIEF_IN) $(R)/bound.tsv $(R)/top_kernels.tsv $(LP_BRIEF_IN2) | $(R)/config.yaml
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BRIEF) -B $(R)/bound.tsv -k $(R)/top_kernels.tsv -I roofline.svg $(LP_BRIEF_LINKS:%=-L %)
# The brief for machines (CI, dashboards): its tables as one JSON object.
$(R)/brief.json: $(R)/brief.tsv $(R)/bound.tsv $(R)/waterfall.tsv $(R)/findings_top.tsv $(LP_BIN)/lp-briefjson
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-briefjson -b $(R)/brief.tsv -B $(R)/bound.tsv -w $(R)/waterfall.tsv -f $(R)/findings_top.tsv
$(R)/findings_top.tsv: $(R)/findings.tsv $(LP_BIN)/lp-tabtop
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-tabtop -q -n 3 -H finding,evidence,next_step -l details.md $(R)/findings.tsv
$(R)/waterfall.svg: $(R)/waterfall.tsv $(LP_BIN)/lp-wfsvg
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-wfsvg $(R)/waterfall.tsv
# Several ranks: one bar a rank (rank_waterfall.tsv) under the waterfall
# (whose floor is one GPU's); with one process it says "# omit:".
# (the first answer, made first in a live run: below)
LP_FIRST := $(if $(LP_LIVE),$(R)/first/stakeholder_summary.md)
$(R)/stakeholder_summary.md: $(LP_FIRST) $(R)/brief.tsv $(R)/waterfall.tsv $(R)/rank_waterfall.tsv $(R)/findings_top.tsv \
		conf/details.yaml $(LP_BIN)/lp-summary | $(R)/details.md $(R)/kernels.md $(R)/roofline.svg $(R)/waterfall.svg
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-summary -c conf/details.yaml $(R)/brief.tsv $(R)/waterfall.tsv $(R)/rank_waterfall.tsv $(R)/findings_top.tsv

# ---- the first answer: what the nsys passes know, before ncu ----

# A live run's brief from its untraced and traced nsys runs alone: the
# verdict, the key numbers, the waterfall (without its split by operator
# class, which comes from kernels.tsv and so waits for ncu), each rank's
# bars; marked as the first answer (lp-brief -W).  It is the first
# prerequisite of stakeholder_summary.md, so make writes it before ncu
# starts, and says where; stakeholder_summary.md is the whole brief.
$(R)/first/waterfall.tsv: $(LP_WF_IN) | $(R)/first
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_WF)
$(R)/first/waterfall.svg: $(R)/first/waterfall.tsv $(LP_BIN)/lp-wfsvg
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-wfsvg $<
$(R)/first/bound.tsv: $(R)/first/waterfall.tsv $(LP_BOUND_IN) | $(R)/config.yaml
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BOUND) $(R)/first/waterfall.tsv
$(R)/first/brief.tsv: $(LP_BRIEF_IN) $(R)/first/bound.tsv $(LP_BRIEF_IN2) | $(R)/config.yaml
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BRIEF) -W -B $(R)/first/bound.tsv
$(R)/first/stakeholder_summary.md: $(R)/first/brief.tsv $(R)/first/waterfall.tsv $(R)/rank_waterfall.tsv \
		conf/details.yaml $(LP_BIN)/lp-summary | $(R)/first/waterfall.svg
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-summary -c conf/details.yaml $(R)/first/brief.tsv $(R)/first/waterfall.tsv $(R)/rank_waterfall.tsv
	$(Q)echo "lp: the first answer, from the nsys passes (ncu runs next; the whole brief: $(R)/stakeholder_summary.md): $@"

# ---- NVTX regions, each measured whole by ncu (make RUN=x regions.md) ----

# The regions preset (ncu_regions) with the stages and the model; SET=
# ncu_regions.* and stages.* overrides reach it, nothing else.
$(R)/ncu/regions/config.yaml: $(LP_PRESETS_REG) $(R)/vars/presets.regions \
		$(R)/vars/overrides.regions $(LP_BIN)/lp-confmerge | $(R)/ncu/regions
	$(Q)$(LP_TO) $(LP_BIN)/lp-confmerge -S $(R)/vars/overrides.regions $(LP_PRESETS_REG)

LP_RD := $(R)/ncu/regions
ifneq ($(LP_LIVE),)
# One ncu command per nesting depth (lp-ncucmd -R).
$(LP_RD)/profile.cmd: $(LP_RD)/config.yaml $(R)/inputs.yaml $(R)/ncu/metrics.avail \
		$(LP_BIN)/lp-ncucmd $(LP_BIN)/lp-confget
	$(LP_SAY)
	$(Q)xargs -0 -x -a <($(LP_BIN)/lp-confget -0 workload.argv $(R)/inputs.yaml) \
	  $(LP_BIN)/lp-ncucmd -p ncu_regions -R -a $(R)/ncu/metrics.avail -o $(LP_RD)/tmp.d \
	  -- < $(LP_RD)/config.yaml $(LP_OUT)

# ncu over the regions, a depth at a time (lp-ncuregions: a depth whose
# command did not change keeps its report; each report exported to dN.csv).
$(LP_RD)/exports.list: $(LP_RD)/profile.cmd $(LP_RD)/config.yaml $(LP_BIN)/lp-ncuregions $(LP_BIN)/lp-ncucmd \
		| $(LP_BIN)/lp-runstep
	$(LP_SAY)
	$(Q)$(LP_BIN)/lp-runstep -n '$(LP_NCU_NEED)' -- $(LP_BIN)/lp-ncuregions -c $(LP_RD)/config.yaml -o $(LP_RD) -l $@.tmp < $< \
	  && mv $@.tmp $@ $(LP_UNTMP)
else ifneq ($(LP_IMP_REGCSV)$(LP_IMP_REGREP),)
# Imported region exports: CSVs copied, reports exported with local ncu.
$(LP_RD)/exports.list: $(LP_IMP_STAMP) $(R)/vars/IMPORT $(LP_RD)/config.yaml \
		$(LP_BIN)/lp-ncuregions $(LP_BIN)/lp-ncucmd | $(LP_RD) $(LP_BIN)/lp-runstep
	$(LP_SAY)
	$(Q)$(LP_BIN)/lp-runstep $(if $(LP_IMP_REGREP),-n 'ncu:install Nsight Compute to export $(firstword $(LP_IMP_REGREP))') \
	  -- $(LP_BIN)/lp-ncuregions -c $(LP_RD)/config.yaml -o $(LP_RD) -l $@.tmp $(addprefix -C ,$(LP_IMP_REGCSV)) \
	  $(addprefix -r ,$(LP_IMP_REGREP)) < /dev/null && mv $@.tmp $@ $(LP_UNTMP)
else
$(LP_RD)/exports.list:
	@echo "lp: run $(RUN) has no region profile: it imports exports without one (give an ncu export of range or app-range replay in IMPORT=: a CSV export, or a report named *_regions.ncu-rep)" >&2; exit 1
endif

# Each region: GPU duration against nsys's projection, kernels inside.
$(R)/regions.tsv: $(LP_RD)/exports.list $(LP_RD)/config.yaml $(call lp_rep,nvtx_kern_sum) \
		$(call lp_rep,nvtx_gpu_proj_trace) $(LP_STATS_DONE) $(LP_BIN)/lp-regions
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-regions -c $(LP_RD)/config.yaml $(call lp_opt,-k,nvtx_kern_sum) \
	  $(call lp_opt,-p,nvtx_gpu_proj_trace) -l $<

# Each region's FLOPs and bytes against the peaks and the model's FLOPs;
# with kernel replay of a stage, the model math set against tensor-core
# FLOPs leaves out the matmuls that ran on CUDA cores there (a live run's
# kernel table only once it is made: regions never start the kernel step).
LP_REGWORK_SPLIT := $(if $(and $(LP_HAVE_NCU),$(LP_PER_RANGE),$(or $(if $(LP_LIVE),,1),$(wildcard $(R)/kernels.tsv))),\
	$(R)/kernels.tsv $(R)/stages.tsv conf/operators.yaml)
$(R)/region_work.tsv: $(LP_RD)/exports.list $(LP_RD)/config.yaml $(R)/gpu.tsv $(R)/inputs.yaml \
		$(LP_REGWORK_SPLIT) $(LP_BIN)/lp-regwork
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-regwork -c $(LP_RD)/config.yaml -g $(R)/gpu.tsv -i $(R)/inputs.yaml \
	  $(if $(LP_REGWORK_SPLIT),-k $(R)/kernels.tsv -s $(R)/stages.tsv -o conf/operators.yaml) -l $<

# Every instance of every region.
$(R)/region_instances.tsv: $(LP_RD)/exports.list $(LP_RD)/config.yaml \
		$(call lp_rep,nvtx_gpu_proj_trace) $(LP_STATS_DONE) $(LP_BIN)/lp-reginst
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-reginst -c $(LP_RD)/config.yaml $(call lp_opt,-p,nvtx_gpu_proj_trace) -l $<

# Each region's rows as CSV, Markdown and JSON, and the list of them.
$(LP_RD)/index.tsv: $(R)/region_instances.tsv $(LP_BIN)/lp-regsplit | $(LP_RD)
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-regsplit -d $(LP_RD) -p ncu/regions/ $<

$(R)/regions.md: $(R)/regions.tsv $(R)/region_work.tsv $(R)/region_instances.tsv \
		$(LP_RD)/index.tsv $(LP_BIN)/lp-summary
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-summary -t "Regions: run $(RUN)" $(R)/regions.tsv $(R)/region_work.tsv \
	  $(R)/region_instances.tsv $(LP_RD)/index.tsv

# ---- two runs compared (make RUN=b BASE=a compare.md) ----

# BASE is the run compared with, by its name in the same stage-2 folder;
# recorded like the other settings, and a prerequisite through its record
# (vars/BASE), so switching to another base, even an older one, re-makes
# the comparison.  Its tables must be made first (make RUN=a
# stakeholder_summary.md): a later re-run of it refreshes this.
LP_B := $(if $(LP_BASE),$(LP_STAGE2_DIR)/$(LP_BASE))
# What lp-stagediff reads of each run, in its order (lp-stagediff(1)).
LP_CMP_STAGES := stages.tsv steps.tsv mfu.tsv mbu.tsv gpu.tsv env.json inputs.yaml
LP_BASE_FILES := $(addprefix $(LP_B)/,kernels.tsv waterfall.tsv findings.tsv $(LP_CMP_STAGES))
ifneq ($(LP_B),)
$(LP_BASE_FILES):
	@echo "lp: run $(LP_BASE) (BASE) has no $(@F): make RUN=$(LP_BASE) stakeholder_summary.md first" >&2; exit 1

# Kernels before (BASE) and after (this run).
$(R)/compare.tsv: $(LP_B)/kernels.tsv $(R)/kernels.tsv $(R)/vars/BASE $(R)/vars/rows.compare $(LP_BIN)/lp-diff
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-diff -n $(LP_CMP_ROWS) $(LP_B)/kernels.tsv $(R)/kernels.tsv

# Stages before and after, with the noise rule.
LP_CMP_IN := $(addprefix $(LP_B)/,$(LP_CMP_STAGES)) $(addprefix $(R)/,$(LP_CMP_STAGES))
$(R)/compare_stages.tsv: $(LP_CMP_IN) $(R)/vars/BASE $(LP_BIN)/lp-stagediff
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-stagediff $(LP_CMP_IN)

# The verdict that opens compare.md: the largest changes, one sentence each.
$(R)/compare_verdict.tsv: $(R)/compare_stages.tsv $(R)/compare.tsv $(LP_BIN)/lp-verdict
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-verdict $(R)/compare_stages.tsv $(R)/compare.tsv

# The two runs' step waterfalls side by side: which part of the step moved.
$(R)/compare_waterfall.tsv: $(LP_B)/waterfall.tsv $(R)/waterfall.tsv $(R)/vars/BASE $(LP_BIN)/lp-wfdiff
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-wfdiff $(LP_B)/waterfall.tsv $(R)/waterfall.tsv

# Whether BASE's advice worked: each of its findings, the saving it
# predicted a step against the one measured in what it named.
LP_REAL_IN := $(LP_B)/findings.tsv $(R)/compare_stages.tsv $(R)/compare.tsv $(LP_B)/steps.tsv
lp_realized = $(LP_BIN)/lp-realized -f $(LP_B)/findings.tsv -s $(R)/compare_stages.tsv -k $(R)/compare.tsv -t $(LP_B)/steps.tsv
$(R)/compare_findings.tsv: $(LP_REAL_IN) $(LP_BIN)/lp-realized
	$(LP_SAY)
	$(Q)$(LP_TO) $(lp_realized)

$(R)/compare.md: $(R)/compare_verdict.tsv $(R)/compare_findings.tsv $(R)/compare_waterfall.tsv $(R)/compare_stages.tsv \
		$(R)/compare.tsv $(LP_BIN)/lp-summary
	$(LP_SAY)
	$(Q)$(LP_TO) $(LP_BIN)/lp-summary -t "Run $(RUN) against run $(LP_BASE)" $(R)/compare_verdict.tsv \
	  $(R)/compare_waterfall.tsv $(R)/compare_findings.tsv $(R)/compare_stages.tsv $(R)/compare.tsv

# The CI gate (make exits 2 on any failed recipe, so the gate's own
# status, 0 passed, 3 regressed or 1 cannot compare, is also written to
# check-regression.rc in the run folder, with the word and the base):
# fails (exit 3) when a stage's steady state got
# significantly slower by more than REGRESSION percent (default 5), or a
# top kernel's launches did, outside the spread of both runs and by more
# than 1 % of the run's kernel time, unless the run's steady step is
# significantly faster; a stage in one run only, or a table lp cannot
# read, is "cannot compare" (exit 1).  The tools say what moved.
REGRESSION ?= 5
REALIZED ?= 50
CLAIM ?=
ifneq ($(filter check-regression,$(MAKECMDGOALS)),)
ifneq ($(if $(call lp_unsafe,REGRESSION,),,$(shell echo '$(value REGRESSION)' | grep -cxE '[0-9]+(\.[0-9]+)?')),1)
$(error REGRESSION="$(value REGRESSION)": use a percentage, as in REGRESSION=5)
endif
# CLAIM=RULE: BASE's findings of that rule (lp-findings(1)) are the change
# this run claims; the gate also fails (exit 3) where they realized under
# REALIZED percent of their predicted saving a step (lp-realized(1)).
ifneq ($(if $(call lp_unsafe,REALIZED,),,$(shell echo '$(value REALIZED)' | grep -cxE '[0-9]{1,3}')),1)
$(error REALIZED="$(value REALIZED)": use a whole percentage, as in REALIZED=50)
endif
ifneq ($(CLAIM),)
ifneq ($(if $(call lp_unsafe,CLAIM,),,$(shell echo '$(value CLAIM)' | grep -cxE '[a-z][a-z0-9-]*')),1)
$(error CLAIM="$(value CLAIM)": name a rule of lp-findings(1), as in CLAIM=launch-bound)
endif
endif
endif
.PHONY: check-regression
check-regression: $(LP_CMP_IN) $(R)/compare_stages.tsv $(LP_B)/kernels.tsv $(R)/kernels.tsv $(LP_BIN)/lp-gate \
		$(LP_BIN)/lp-stagediff $(LP_BIN)/lp-diff $(if $(CLAIM),$(LP_REAL_IN) $(LP_BIN)/lp-realized)
	$(LP_SAY)
	$(Q)$(LP_BIN)/lp-gate -R $(RUN) -B $(LP_BASE) -t '$(REGRESSION)' $(if $(CLAIM),-c $(CLAIM) -m $(REALIZED)) \
	  -o $(R)/check-regression.rc -- $(LP_BIN)/lp-stagediff -r '$(REGRESSION)' $(LP_CMP_IN) \
	  -- $(LP_BIN)/lp-diff -n $(LP_CMP_ROWS) -r '$(REGRESSION)' -S $(R)/compare_stages.tsv $(LP_B)/kernels.tsv $(R)/kernels.tsv \
	  $(if $(CLAIM),-- $(lp_realized) -c $(CLAIM) -m $(REALIZED))
else
$(R)/compare.tsv $(R)/compare_stages.tsv $(R)/compare_verdict.tsv $(R)/compare_waterfall.tsv $(R)/compare_findings.tsv $(R)/compare.md check-regression:
	@echo "lp: compare with which run? make RUN=$(RUN) BASE=other $(if $(filter check-regression,$@),check-regression,compare.md)" >&2; exit 1
endif


# ---- helpers of the recipes above ----

LP_REV = $(shell git describe --always --dirty 2>/dev/null)

$(R) $(R)/nsys $(R)/ncu $(R)/ncu/regions $(R)/untraced $(R)/first:
	$(Q)mkdir -p $@

# A step that fails takes its half-written $@.tmp with it (make removes
# $@ itself, .DELETE_ON_ERROR): each recipe line that writes one ends with
# LP_UNTMP.
# One line per step as it runs: what it makes (its kind and name) and the
# lp tool that makes it; V=1 shows the commands instead.  (The folders,
# and the slices of the config that nsys and ncu read, have no line.)
LP_KIND_.tsv := TSV
LP_KIND_.md := MD
LP_KIND_.svg := SVG
LP_KIND_.yaml := YAML
LP_KIND_.json := JSON
LP_KIND_.csv := CSV
LP_KIND_.cmd := CMD
LP_KIND_.nsys-rep := NSYS
LP_KIND_.ncu-rep := NCU
LP_KIND_.log := NSYS
LP_KIND_.mk := MK
LP_KIND_.list := LIST
LP_KIND_.avail := NCU
LP_KIND_.time := TIME
LP_KIND_ :=
# (another suffix, .sqlite or .lpt: FILE, read without an undefined variable)
lp_kind = $(or $(if $(filter undefined,$(origin LP_KIND_$(suffix $(1)))),,$(LP_KIND_$(suffix $(1)))),FILE)
LP_SAY = $(if $(filter 1,$(V)),,@printf '  %-5s %-30s %s\n' '$(call lp_kind,$@)' \
	'$(patsubst $(LP_STAGE2_DIR)/%,%,$@)' '$(or $(notdir $(firstword $(filter $(LP_BIN)/lp-%,$^))),$(if \
	$(filter $(LP_STAGE2_DIR)/%,$<),,$(notdir $<)))')
LP_UNTMP = || { rc=$$?; rm -f $@.tmp $@.tmp2; exit $$rc; }
# A tool's stdout made the target: written to $@.tmp, renamed when whole
# (the rules whose tool xargs runs: the others use LP_TO, below).
LP_OUT = > $@.tmp && mv $@.tmp $@ $(LP_UNTMP)
# The same for an lp tool, put before it: the shell execs the tool, which
# writes $@.tmp and renames it when whole (LP_OUTPUT, lp(5)): no shell
# waiting and no mv a step, half of a step's CPU in a run of small tables
# ("$(LP_TO) $(LP_BIN)/lp-x args").
LP_TO = LP_OUTPUT=$@ exec

# A profiling step (a run of nsys, ncu or the workload) goes through
# lp-runstep: the tool it needs on PATH (LP_NSYS_NEED, LP_NCU_NEED: the
# tool, then what to do without it), its wall time said and kept for
# profile_cost.tsv (-t, -T), written before the step's artifact is moved
# into place, so a make killed in between redoes the step and never leaves
# one without the other.
LP_NSYS_NEED := nsys:install Nsight Systems (nsys) and put its bin folder on PATH, or import exports made elsewhere (IMPORT=)
LP_NCU_NEED := ncu:install Nsight Compute
# An nsys capture's recipe (the traced one and the untraced timing run):
# $< the profile.cmd, into $(1)/report.tmp.nsys-rep then $@, kept when the
# command has not changed; $(2) what it says it does, $(3) its failure, $(4)
# what to say when nsys wrote no report, $(5) its step in profile_cost.tsv.
define lp_capture
$(LP_SAY)
$(Q)rm -f $(1)/report.tmp.* && $(LP_BIN)/lp-runstep -k $@ -c $< -n '$(LP_NSYS_NEED)' -p "$(2): %c" \
  -e "$(3) with exit code %r (the workload's own code when it failed); fix it and re-run make" \
  -o $(1)/report.tmp.nsys-rep -m "$(strip $(4)) Command: %c" -a -t '$(5)' -T $(1)/profile.time -- sh $<
endef

endif
