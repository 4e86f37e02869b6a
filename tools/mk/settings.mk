# tools/mk/settings.mk, included by rules.mk: what make must know of a run
# before its first rule, from the command line and the run's records.
#
# Provides: the make helpers the pipeline uses (lp_badname, lp_ne,
# lp_cmdline, lp_write); LP_STAGE2_DIR and
# LP_DEFAULT_MODE (read from conf/runner/stage2.yaml with awk, since no tool
# is built yet); and, when RUN is given: R (the run's folder), the run lock,
# LP_<NAME> for each setting of LP_VARS (the command line's value, else the
# one recorded in $(R)/vars/NAME), LP_MODE_NOW, LP_SET_WORDS and lp_unsplit,
# the preset files (LP_RUNNER, LP_NCU_PRESET, LP_MODEL_FILE, LP_PRESETS_*)
# and the overrides (LP_OVR_*), each list also recorded in $(R)/vars/ so that
# a changed one re-makes what reads it.
#
# Expects: LP_ARTIFACTS (the artifact goals, for "RUN is required"),
# LP_VARS and the helpers space, comma, nl, lp_unsafe, lp_unsafe_word and
# lp_nondigit (tools/mk/cmdline.mk).
#
# Order matters and is kept here: the lock is taken before any file of the
# run is read; every value is checked before anything is recorded; a record
# is rewritten only when its value changed (make -q stays true).

# What is typed on the command line is data: make never expands it and it
# is never exported into a recipe's environment (make would expand it there,
# running any "$(shell ...)" it holds).  Each is read raw, with $(value).
unexport RUN LP_STAGE2_DIR $(LP_VARS)
lp_cmdline = $(filter command line,$(origin $(1)))
# Non-empty when the strings $(1) and $(2) differ.
lp_ne = $(if $(and $(findstring x$(1)y,x$(2)y),$(findstring x$(2)y,x$(1)y)),,1)

ifneq ($(call lp_cmdline,LP_STAGE2_DIR),)
$(if $(call lp_unsafe_word,LP_STAGE2_DIR,/ + : @),\
	$(error LP_STAGE2_DIR="$(value LP_STAGE2_DIR)": use a path of letters, digits and . _ - / + : @))
endif

# The runner config is read here with awk, once, for the keys make itself
# needs before any tool is built (as SECTION.KEY=VALUE words, the first of
# a key counting); lp-confget reads everything else.
lp__runner := $(shell awk '/^[^ \#]/{s=$$1;next} NF>1&&$$1~/:$$/{print substr(s,1,length(s)-1) "." substr($$1,1,length($$1)-1) "=" $$2}' conf/runner/stage2.yaml 2>/dev/null)
lp_conf2 = $(patsubst $(1).$(2)=%,%,$(firstword $(filter $(1).$(2)=%,$(lp__runner))))
# What the file says is checked here with make's functions alone: it goes
# into recipes and shells as it is (a backtick in it ran there).
LP_STAGE2_DIR := $(or $(call lp_conf2,artifacts,stage2_dir),tmp/stage2)
$(if $(call lp_cmdline,LP_STAGE2_DIR),,$(if $(call lp_unsafe_word,LP_STAGE2_DIR,/ + : @),\
	$(error conf/runner/stage2.yaml: artifacts.stage2_dir: use a path of letters, digits and . _ - / + : @, got "$(LP_STAGE2_DIR)")))
LP_DEFAULT_MODE := $(or $(call lp_conf2,run,mode),deep)
# The rows of three reports, each in one place (the runner config),
# checked as whole numbers here; recorded per run below, so that a change
# re-makes that report only.  lp_rows,VAR,KEY: artifacts.KEY into VAR.
lp_whole = $(and $(1),$(if $(or $(call lp_nondigit,$(1)),$(filter 0%,$(1))),,1))
define lp_rows
$(1) := $$(call lp_conf2,artifacts,$(2))
$$(if $$(call lp_whole,$$($(1))),,\
	$$(error conf/runner/stage2.yaml: artifacts.$(2): expected a whole number from 1, got "$$($(1))"))
endef
$(eval $(call lp_rows,LP_KMD_ROWS,kernels_md_rows))
$(eval $(call lp_rows,LP_CMP_ROWS,compare_rows))
$(eval $(call lp_rows,LP_TK_ROWS,top_kernels_rows))

RUN ?=
LP_RUN_GOALS := $(filter $(LP_ARTIFACTS) run clean-run check-regression,$(MAKECMDGOALS)) \
	$(filter $(LP_STAGE2_DIR)/%,$(MAKECMDGOALS))

ifneq ($(strip $(LP_RUN_GOALS)),)
ifeq ($(strip $(value RUN)),)
$(error RUN is required, as in: make RUN=abc stakeholder_summary.md)
endif
endif

# A run's name (RUN, BASE): letters, digits, '.', '_' and '-', not starting
# with '.' or '-' (so never "..", "." or an option).  $(1) is the variable.
lp_badname = $(or $(call lp_unsafe_word,$(1),),$(filter .% -%,$(value $(1))))

ifneq ($(strip $(value RUN)),)
ifneq ($(call lp_badname,RUN),)
$(error RUN="$(value RUN)": use letters, digits, '.', '_' and '-', not starting with '.' or '-')
endif
R := $(LP_STAGE2_DIR)/$(RUN)

# One make of a run at a time: a second make of the same RUN waits here,
# before it reads or writes anything of the run, until the first has
# finished.  The lock (flock, util-linux) on $(LP_STAGE2_DIR)/.lock/RUN is
# held by a process that lives as long as this make (and up to 0.01 s
# more, which a make started right after waits out quietly; 0.1 s before,
# most of a quick make's wall time), so a killed make releases it too.  A make that re-executes itself, or one that this make
# starts (make RUN=demo demo), holds it already.
LP_LOCK_FILE := $(abspath $(LP_STAGE2_DIR)/.lock/$(RUN))
LP_RESTARTED := $(filter-out undefined,$(origin MAKE_RESTARTS))
# make -n and make -q write nothing in the run folder (LP_DRY, below too).
# (MAKEFLAGS's first word holds the one-letter options, "n" or "rnq", and
# only when there are some: "--warn-undefined-variables" is not one)
lp__flags := $(filter-out -%,$(firstword $(MAKEFLAGS)))
LP_DRY := $(if $(or $(findstring n,$(lp__flags)),$(findstring q,$(lp__flags))),1)
LP_LOCKED :=
ifeq ($(origin MAKE_RESTARTS)$(filter $(LP_LOCK_FILE),$(value LP_LOCK_HELD)),undefined)
LP_LOCKED := 1
export LP_LOCK_HELD := $(LP_LOCK_FILE)
LP_LOCK := $(shell command -v flock >/dev/null || { echo "no flock"; exit 0; }; \
	$(if $(wildcard $(LP_STAGE2_DIR)/.lock/.),,mkdir -p $(LP_STAGE2_DIR)/.lock &&) exec 9>>$(LP_STAGE2_DIR)/.lock/$(RUN) || exit 0; \
	flock -n 9 || flock -w 1 9 || { echo "lp: run $(RUN) is being made by another make; waiting for it to finish" >&2; flock 9; } && \
	{ tail --pid=$$PPID -s 0.01 -f /dev/null </dev/null >/dev/null 2>&1 & } && echo locked)
ifneq ($(LP_LOCK),locked)
$(error lp: cannot lock run $(RUN) ($(LP_STAGE2_DIR)/.lock/$(RUN)): $(or $(LP_LOCK),see above)$(if $(filter no flock,$(LP_LOCK)), (flock is in util-linux)))
endif
endif

# The run folder is written only through files lp creates: a symbolic
# link planted in it (as kernels.tsv.tmp, vars/SET.tmp) would have a
# recipe write through it to whatever it names, and so would a hard link
# (a second name of a file outside: "> $@.tmp" opens the file it names,
# as do the logs and step times written in place).  One is refused, named.
# In the same pass, a .tmp that a make left behind, killed or stopped (on
# a full disk, $(file >) stops make with the record's .tmp written empty,
# before the rename), is removed by the next make that takes the lock:
# while it holds it, no other writes one.  (Not a restarted make, nor one
# that its parent's lock covers: that parent may be writing one.)
lp__links := $(wordlist 1,6,$(shell find $(R) -type l -printf 'l:%p\n' -o -type f -links +1 -printf 'h:%p\n' \
	$(if $(and $(LP_LOCKED),$(if $(LP_DRY),,1)),-o -type f \( -name '*.tmp' -o -name '*.tmp2' \) -delete) 2>/dev/null))
LP_LINKS := $(patsubst l:%,%,$(filter l:%,$(lp__links)))
$(if $(LP_LINKS),$(error run folder $(R) holds symbolic links ($(strip $(LP_LINKS))): lp writes only files it creates there; remove them (find $(R) -type l -delete), or use another RUN))
LP_HARDLINKS := $(patsubst h:%,%,$(filter h:%,$(lp__links)))
$(if $(LP_HARDLINKS),$(error run folder $(R) holds files with another name too, hard links ($(strip $(LP_HARDLINKS))): lp writes only files it creates there; remove them (find $(R) -type f -links +1 -delete), or copy the run without links (cp -a, not cp -al)))

# Settings given on the command line are recorded in $(R)/vars/NAME, so a
# later "make RUN=..." without them re-uses them; NAME= clears one.  A value
# is checked before it is recorded, so a refused one is never kept.  A file
# is rewritten only when its value changes (make -q stays true).
$(foreach v,$(LP_VARS),$(eval LP_$(v) := $$(if $$(call lp_cmdline,$(v)),$$(value $(v)),$$(if \
	$$(wildcard $(R)/vars/$(v)),$$(file <$(R)/vars/$(v))))))
# IMPORT is a list of paths: its blanks and line breaks only separate them.
# Recorded normalised, so that a make restarted with the value passed on
# (import.mk re-made), which drops a trailing blank, finds it unchanged.
LP_IMPORT := $(strip $(subst $(nl),$(space),$(LP_IMPORT)))

# A run needs its workload or its exports: said here, naming both, not by
# lp-inputs failing on a missing record.
ifneq ($(filter-out clean-run,$(LP_RUN_GOALS)),)
$(if $(or $(strip $(LP_WORK)),$(strip $(LP_IMPORT)),$(wildcard $(R)/inputs.yaml)),,\
	$(error run $(RUN) has neither WORK nor IMPORT: give the workload (make RUN=$(RUN) WORK='python3 app.py ...' MODEL=...) or its exports (make RUN=$(RUN) IMPORT='exports/*.csv' MODEL=...)))
endif
$(foreach v,MODEL MODE TOPN COVER NCU_PRESET STAGE,$(if $(call lp_unsafe_word,LP_$(v),),\
	$(error $(v)="$(LP_$(v))": use letters, digits, '.', '_' and '-')))
$(if $(findstring $(nl),$(LP_WORK)),$(error WORK holds a line break: give the workload as one command line))
# IMPORT's paths go into recipes: the block below reads what each file is;
# here only its characters are checked, so that a refused one is not kept.
lp__imp := $(subst $(comma),,$(subst $(space),,$(strip $(LP_IMPORT))))
$(if $(call lp_unsafe,lp__imp,/ + @ = : ~),\
	$(error IMPORT: use paths of letters, digits and . _ - / + @ = $(comma) : ~ only (copy the file to a plain name)))
$(if $(LP_BASE),$(if $(call lp_badname,LP_BASE),\
	$(error BASE="$(LP_BASE)": use letters, digits, '.', '_' and '-', not starting with '.' or '-')))
$(if $(filter $(RUN),$(LP_BASE)),\
	$(error BASE=$(LP_BASE) is this run: compare with another run (BASE= clears it)))
# OPS=aten: PyTorch operator ranges (rules.mk, "PyTorch ops").
$(if $(filter-out aten,$(LP_OPS)),$(error OPS="$(LP_OPS)": use OPS=aten (PyTorch op ranges) or OPS= (none)))
$(if $(LP_TOPN),$(if $(or $(call lp_nondigit,$(LP_TOPN)),$(filter 0%,$(LP_TOPN))),\
	$(error TOPN="$(LP_TOPN)": use a whole number from 1)))
$(if $(LP_UNTRACED_GPU),$(if $(call lp_nondigit,$(LP_UNTRACED_GPU)),\
	$(error UNTRACED_GPU="$(LP_UNTRACED_GPU)": give the index nvidia-smi lists the GPU under (UNTRACED_GPU= clears it))))
# COVER: one of the words 1 to 100
lp_pcts := $(foreach a,1 2 3 4 5 6 7 8 9,$(a) $(foreach b,0 1 2 3 4 5 6 7 8 9,$(a)$(b))) 100
$(if $(LP_COVER),$(if $(filter $(LP_COVER),$(lp_pcts)),,\
	$(error COVER="$(LP_COVER)": use a whole percentage from 1 to 100)))

# SET is KEY=VALUE words; a value in double quotes keeps its blanks (one
# space each), \" and \\ in it being a quote and a backslash.  lp_split
# makes one word of each KEY=VALUE: inside quotes a blank becomes @s, and
# @, \\ and \" are @a, @b and @q, until lp_unsplit puts them back.
lp_split = $(strip $(eval lp__in :=)$(eval lp__out :=)$(foreach w,$(subst \",@q,$(subst \\,@b,$(subst @,@a,$(1)))),\
	$(eval lp__out := $$(lp__out)$$(if $$(lp__in),@s,$$(space))$$(w))$(if $(call lp__odd,$(w)),\
	$(eval lp__in := $$(if $$(lp__in),,1))))$(if $(lp__in),$(error SET: a quote is not closed (a value with blanks is KEY="a b"; SET= clears a recorded SET)))$(lp__out))
lp__odd = $(subst "",,$(subst $(space),,$(filter ",$(subst ",$(space)"$(space),$(1)))))
lp_unsplit = $(subst @a,@,$(subst @s,$(space),$(subst @b,\\,$(subst @q,\",$(1)))))
LP_SET_WORDS := $(call lp_split,$(LP_SET))
$(foreach w,$(LP_SET_WORDS),$(if $(filter =%,$(w)),$(error SET: "$(call lp_unsplit,$(w))" is not KEY=VALUE))\
	$(eval lp__key := $$(firstword $$(subst =,$$(space),$$(w))))$(if $(and $(findstring =,$(w)),\
	$(if $(call lp_unsafe_word,lp__key,),,1)),,$(error SET: "$(call lp_unsplit,$(w))" is not KEY=VALUE)))

# The runner's keys that make reads itself (above, with awk) follow SET
# as config.yaml does, where a later override wins: the rows and
# run.mode.  The stage-2 folder holds the run's records (vars/SET among
# them): SET cannot move it.  lp_setval,KEY: SET's last KEY=VALUE, its
# value unquoted.
lp_setval = $(patsubst "%",%,$(patsubst $(1)=%,%,$(lastword $(filter $(1)=%,$(LP_SET_WORDS)))))
$(if $(filter artifacts.stage2_dir=%,$(LP_SET_WORDS)),$(error SET: artifacts.stage2_dir: the stage-2 folder \
	holds the run's records (its vars/SET among them): give LP_STAGE2_DIR=DIR, or edit conf/runner/stage2.yaml))
$(foreach k,kernels_md_rows compare_rows top_kernels_rows,$(if $(call lp_setval,artifacts.$(k)),\
	$(if $(call lp_whole,$(call lp_setval,artifacts.$(k))),,$(error SET: artifacts.$(k)="$(call lp_unsplit,$(call \
	lp_setval,artifacts.$(k)))": expected a whole number from 1))))
LP_KMD_ROWS := $(or $(call lp_setval,artifacts.kernels_md_rows),$(LP_KMD_ROWS))
LP_CMP_ROWS := $(or $(call lp_setval,artifacts.compare_rows),$(LP_CMP_ROWS))
LP_TK_ROWS := $(or $(call lp_setval,artifacts.top_kernels_rows),$(LP_TK_ROWS))
$(if $(LP_MODE),$(if $(filter deep light,$(LP_MODE)),,$(error MODE="$(call lp_unsplit,$(LP_MODE))": use deep or light)))
LP_MODE_NOW := $(or $(call lp_setval,run.mode),$(LP_MODE),$(LP_DEFAULT_MODE))
ifeq ($(filter deep light,$(LP_MODE_NOW)),)
$(error $(if $(call lp_setval,run.mode),SET: run.mode,MODE)="$(call lp_unsplit,$(LP_MODE_NOW))": use deep or light)
endif

# Presets: the runner, one nsys preset, the ncu preset of the mode (or
# NCU_PRESET) and the model.  The GPU table and the operator classes are
# read only by the filters that need them (lp-gpu, lp-ops).
LP_RUNNER := conf/runner/stage2.yaml
LP_NSYS_PRESET := conf/profiling/nsys/nsys.default.yaml
ifeq ($(LP_NCU_PRESET),regions)
$(error NCU_PRESET=regions: NCU_PRESET picks the kernel step's preset (default, light, high); the regions preset is the one make RUN=$(RUN) regions.md uses, changed with SET='ncu_regions.KEY=VALUE' (NCU_PRESET= clears the setting))
endif
# (the typed NCU_PRESET is recorded below: the file takes its name after)
lp__ncu_file := conf/profiling/ncu/ncu.$(or $(LP_NCU_PRESET),$(if $(filter light,$(LP_MODE_NOW)),light,default)).yaml
LP_MODEL_FILE := $(if $(LP_MODEL),conf/model/$(LP_MODEL).yaml)
$(foreach f,$(lp__ncu_file) $(LP_MODEL_FILE),$(if $(wildcard $(f)),,$(error $(f) does not exist)))

# Only now, every value checked: the record.  $(file <) drops the last
# line break, and $(file >) adds one only where the text lacks it, so a
# value ending in one (SET=$'a=1\n') is written with one more.
# A make restarted (after re-making import.mk) has the same values: it
# writes no record.  Rewriting one there made it newer than import.mk
# (seen with SAN=1 and LP_BIN in the environment, make check SAN=1 on a
# fresh clone), and make restarted until it gave up.
# make -n and make -q write nothing: a record that would change is, in
# that make only, a target always out of date (LP_DRY_CHANGED below), so
# the dry run shows what the setting would re-make.
# The record is written to NAME.tmp, made afresh ($(file >) opens what is
# there, a link planted since the check above too: every vars/*.tmp is
# removed before the first), then renamed with the others (lp_recs_done,
# at the end): two shells a make, not two a record.
LP_DRY_CHANGED :=
lp__recs :=
lp_write = $(if $(and $(LP_RESTARTED),$(if $(LP_DRY),,1)),,$(if $(or $(if $(wildcard $(1)),,1),$(call lp_ne,$(file <$(1)),$(2))),\
	$(if $(LP_DRY),$(eval LP_DRY_CHANGED += $(1)),\
	$(if $(lp__recs),,$(shell mkdir -p $(dir $(1)) && rm -f $(dir $(1))*.tmp))$(eval lp__recs += $(1))$(file >$(1).tmp,$(2)$(nl)))))
lp_recs_done = $(if $(lp__recs),$(shell for f in $(lp__recs); do mv -f $$f.tmp $$f || exit; done)$(eval lp__recs :=))
$(foreach v,$(LP_VARS),$(if $(call lp_cmdline,$(v)),$(call lp_write,$(R)/vars/$(v),$(LP_$(v)))))
LP_NCU_PRESET := $(lp__ncu_file)

# Overrides, split by the tool they concern so that an ncu setting never
# re-runs nsys.  Each list is one KEY=VALUE a line (lp-confmerge -S), a
# quoted value with its blanks.
LP_OVR_ALL := $(if $(LP_MODE),run.mode=$(LP_MODE)) \
	$(if $(LP_TOPN),run.top_n_kernels=$(LP_TOPN) run.top_n_shapes=$(LP_TOPN)) $(if $(LP_COVER),run.cover_pct=$(LP_COVER)) \
	$(if $(LP_STAGE),run.stage=$(LP_STAGE)) $(LP_SET_WORDS) \
	$(if $(LP_OPS),nsys_cli.pytorch=autograd-shapes-nvtx)
LP_OVR_NSYS := $(filter nsys_cli.% capture.% stages.% run.stage=%,$(LP_OVR_ALL))
LP_OVR_NCU := $(filter ncu_cli.% capture.% stages.% run.%,$(LP_OVR_ALL))
lp_put = $(call lp_write,$(R)/vars/$(1),$(call lp_unsplit,$(subst $(space),$(nl),$(strip $(2)))))
$(call lp_put,overrides.all,$(LP_OVR_ALL))
$(call lp_put,overrides.nsys,$(LP_OVR_NSYS))
$(call lp_put,overrides.ncu,$(LP_OVR_NCU))
# Which presets each config is merged from: make sees a switch to another
# (older) preset file only through these records.
LP_REG_PRESET := conf/profiling/ncu/ncu.regions.yaml
LP_PRESETS_ALL := $(LP_RUNNER) $(LP_NSYS_PRESET) $(LP_NCU_PRESET) $(LP_REG_PRESET) $(LP_MODEL_FILE)
LP_PRESETS_REG := $(LP_RUNNER) $(LP_REG_PRESET) $(LP_MODEL_FILE)
LP_PRESETS_NSYS := $(LP_RUNNER) $(LP_NSYS_PRESET) $(LP_MODEL_FILE)
LP_PRESETS_NCU := $(LP_RUNNER) $(LP_NCU_PRESET) $(LP_MODEL_FILE)
$(call lp_put,presets.all,$(LP_PRESETS_ALL))
$(call lp_put,presets.nsys,$(LP_PRESETS_NSYS))
$(call lp_put,presets.ncu,$(LP_PRESETS_NCU))
$(call lp_put,presets.model,$(LP_MODEL_FILE))
$(call lp_put,presets.regions,$(LP_PRESETS_REG))
# (the kernel selection, run.top_n_* and run.cover_pct, is not the regions')
LP_OVR_REG := $(filter-out run.top_n_% run.cover_pct=%,$(filter ncu_regions.% stages.% run.%,$(LP_OVR_ALL)))
$(call lp_put,overrides.regions,$(LP_OVR_REG))
# The one key a table reads from a whole config, recorded apart so that
# another setting of that config does not re-make it: the GPU procs.tsv
# shows (ncu_cli.device), the GPU's peaks given by hand (gpu.*).
$(call lp_put,overrides.device,$(filter ncu_cli.device=%,$(LP_OVR_NCU)))
$(call lp_put,overrides.gpu,$(filter gpu.%,$(LP_OVR_ALL)))
# Likewise the keys of config.yaml that environment.tsv, brief.tsv and the
# PyTorch op tables read, so that TOPN (run.top_n_*) re-makes none of
# them where their text does not show it: the profiled stage (run.stage,
# its stages.* range) for all; environment.tsv of a live run also says
# how lp chose the kernels ncu profiled (run.mode, run.cover_pct,
# run.top_n_shapes), while that of an import says lp chose none.
$(call lp_put,overrides.stage,$(filter run.stage=%,$(LP_OVR_ALL)))
# the brief's verdict reads the stage and brief.bound_pct
$(call lp_put,overrides.brief,$(filter run.stage=% brief.%,$(LP_OVR_ALL)))
$(call lp_put,overrides.environment,$(filter run.stage=% stages.% $(if $(strip $(LP_IMPORT)),,\
	run.mode=% run.cover_pct=% run.top_n_shapes=%),$(LP_OVR_ALL)))
$(call lp_put,rows.kernels_md,$(LP_KMD_ROWS))
$(call lp_put,rows.compare,$(LP_CMP_ROWS))
$(call lp_put,rows.top_kernels,$(LP_TK_ROWS))
# SET=model.*: the model's numbers (MFU, MBU, regions' model FLOPs) as well
LP_OVR_MODEL := $(filter model.%,$(LP_OVR_ALL))
$(call lp_put,overrides.model,$(LP_OVR_MODEL))
$(lp_recs_done)
# In a dry run, the records that would change make what reads them out of
# date (make -n lists it, make -q says so) without being written.
ifneq ($(strip $(LP_DRY_CHANGED)),)
.PHONY: $(LP_DRY_CHANGED)
$(LP_DRY_CHANGED): ;
endif
endif
