# tools/mk/cmdline.mk, included first by the Makefile: which variables
# make reads from the command line and the environment.
#
# What is typed is data: make never expands it and no shell sees it, and
# make reads only the variables lp names, its settings (LP_SETTINGS,
# lp(7)).  A command-line value overrides the makefile's, so lp's own
# variables typed there (R, Q, LP_BIN, LP_SAY, SHELL, ...) ran a
# NAME='$(shell cmd)' when make first expanded them, at parse time.  Every
# command-line variable that is not a setting is therefore dropped here,
# before any makefile line reads it (the lines above the drop are
# "override": a typed value does not replace them); one that lp defines
# after all is refused, named, once every makefile is read (lp_refuse_own,
# the Makefile's last line); any other (FOO=1, a parent make's) is
# ignored, as make itself would.  The environment never overrides a
# makefile's assignment unless make -e, which is refused; a name of lp's
# in it is not exported (below).
#
# Provides: LP_SETTINGS, LP_VARS (the run's recorded settings), LP_TYPED,
# lp_refuse_own, and the checks of a raw value: empty, space, comma, nl,
# lp_chars, lp_unsafe, lp_unsafe_word, lp_nondigit.

# The settings: the run's (tools/mk/settings.mk records LP_VARS in the run
# folder) and the build's (the Makefile checks each).
override LP_SETTINGS := RUN WORK IMPORT MODEL MODE TOPN COVER NCU_PRESET STAGE SET BASE OPS UNTRACED_GPU \
	LP_STAGE2_DIR REGRESSION CLAIM REALIZED V SAN VALGRIND WERROR FAULT_KILLS B LP_AUTO_DEPS PREFIX DESTDIR \
	CC CFLAGS LDFLAGS FUZZ_CC FUZZ_TIME NVCC NVCC_ARCH
# What each setting does: make help and lp(7)'s table of settings (made by
# tests/gen-lp7.sh from make settings) print these, and nothing else.
override lp_doc.RUN := the run: its folder is LP_STAGE2_DIR/RUN
override lp_doc.WORK := the command to profile live (nsys, then ncu on its top kernels)
override lp_doc.IMPORT := nsys and ncu exports (files or folders) to import instead of profiling
override lp_doc.MODEL := conf/model/MODEL.yaml: shapes of the model (MFU, MBU, floors)
override lp_doc.MODE := deep (ncu preset default) or light (fewer metrics)
override lp_doc.TOPN := kernels and launch configurations ncu profiles at most (run.top_n_kernels, run.top_n_shapes)
override lp_doc.COVER := ncu profiles until they carry this percent of the kernel time of the stage (run.cover_pct)
override lp_doc.NCU_PRESET := the ncu preset: default, light, high or fast
override lp_doc.STAGE := the stage nsys is gated on and ncu profiles (run.stage)
override lp_doc.SET := key=value ... : keys of the presets, overridden for this run (the next table)
override lp_doc.BASE := the run that compare.md and check-regression compare against
override lp_doc.OPS := aten: GPU time per PyTorch op, from the ATen op ranges
override lp_doc.UNTRACED_GPU := a second GPU of the workload's kind, idle: the untraced run goes there, beside the capture (with CUDA_VISIBLE_DEVICES=the workload's one GPU)
override lp_doc.LP_STAGE2_DIR := where the run folders are (tmp/stage2)
override lp_doc.REGRESSION := check-regression: percent slower that fails (5)
override lp_doc.CLAIM := check-regression: the lp-findings rule the run claims to fix
override lp_doc.REALIZED := check-regression: percent of the claimed saving it must realize (50)
override lp_doc.V := 1: the commands; unset or 0: one line a step
override lp_doc.SAN := 1: build and test with ASan and UBSan, in bin/san
override lp_doc.VALGRIND := 1: the tests run every tool under valgrind
override lp_doc.WERROR := -Werror: warnings fail the build (CI)
override lp_doc.FAULT_KILLS := the fault tests: runs killed per kind (10)
override lp_doc.B := the build folder (bin)
override lp_doc.LP_AUTO_DEPS := 0: a missing library is named, never installed with apt-get
override lp_doc.PREFIX := make install: where (/usr/local)
override lp_doc.DESTDIR := make install: a staging root
override lp_doc.CC := the C compiler
override lp_doc.CFLAGS := its flags
override lp_doc.LDFLAGS := the flags of the linker
override lp_doc.FUZZ_CC := the compiler of the fuzzers (clang)
override lp_doc.FUZZ_TIME := make fuzz: seconds per harness (600)
override lp_doc.NVCC := the CUDA compiler of the test workload bin/tinyllm
override lp_doc.NVCC_ARCH := its -arch (native)
# The settings as TSV, NAME<tab>what it does (make settings, tests/gen-lp7.sh)
override lp_settings_info = $(foreach v,$(LP_SETTINGS),$(info $(v)	$(lp_doc.$(v))))
# make's own variables, typed, are refused at once: lp sets some (SHELL)
# and make the others, which dropping would leave undefined (CURDIR).
override LP_MAKE_VARS := SHELL .SHELLFLAGS MAKESHELL MAKEFLAGS MFLAGS GNUMAKEFLAGS MAKEOVERRIDES \
	MAKE MAKELEVEL MAKE_RESTARTS MAKECMDGOALS MAKEFILE_LIST MAKEFILES CURDIR VPATH \
	.DEFAULT_GOAL .RECIPEPREFIX .VARIABLES .FEATURES .INCLUDE_DIRS .EXTRA_PREREQS
override LP_TYPED := $(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),$(v)))
$(if $(filter $(LP_MAKE_VARS),$(LP_TYPED)),$(error $(firstword $(filter $(LP_MAKE_VARS),$(LP_TYPED))) is make's own \
	variable, which lp sets or make does: leave it out of the command line))
$(foreach v,$(filter-out $(LP_SETTINGS) LP_SETTINGS LP_MAKE_VARS LP_TYPED,$(LP_TYPED)),$(eval override undefine $(v)))

# From here on, no variable of lp's holds what was typed.
LP_VARS := WORK IMPORT MODEL MODE TOPN COVER NCU_PRESET STAGE SET BASE OPS UNTRACED_GPU
# (called after the last makefile: the dropped that lp defines)
lp_refuse_own = $(call lp__refuse,$(strip $(foreach v,$(filter-out $(LP_SETTINGS),$(LP_TYPED)),\
	$(if $(filter-out undefined,$(origin $(v))),$(v)))))
lp__refuse = $(if $(1),$(error $(1): lp's own variable$(if $(word 2,$(1)),s), not $(if $(word 2,$(1)),settings,a setting): \
	leave $(if $(word 2,$(1)),them,it) out (the settings: $(LP_SETTINGS))))
# A setting on the command line is not exported into a recipe's
# environment, where make would expand it ('FOO=$(shell ...)' ran there).
# (not a dropped one: unexport would define it, empty)
$(foreach v,$(filter $(LP_SETTINGS),$(LP_TYPED)),$(eval unexport $(v)))

# make -e lets the environment override every assignment of the makefiles.
ifneq ($(findstring e,$(filter-out -%,$(firstword $(MAKEFLAGS)))),)
$(error make -e: the environment would override lp's own variables; run make without -e)
endif
# A variable of the environment is exported to every recipe (and, from
# make 4.4, to $(shell)), with the value the makefiles give it, expanded
# there: one named like a function of lp's (lp_write, LP_SAY) ran it with
# no arguments.  Those of the environment that the makefiles assign
# (their lines, read once here) are not exported, but lp's own export
# (LP_LOCK_HELD) and make's.
lp__assigned := $(shell sed -nE 's/^[[:space:]]*((override|export)[[:space:]]+)*([A-Za-z0-9_.]+)[[:space:]]*(:{0,3}|[?+!])=.*/\3/p; \
	s/^[[:space:]]*(override[[:space:]]+)?define[[:space:]]+([A-Za-z0-9_.]+).*/\2/p' Makefile rules.mk tools/mk/*.mk)
$(foreach v,$(filter-out $(LP_SETTINGS) $(LP_MAKE_VARS) LP_LOCK_HELD,$(filter $(lp__assigned),\
	$(foreach v,$(.VARIABLES),$(if $(filter environment,$(origin $(v))),$(v))))),$(eval unexport $(v)))
# LP_OUTPUT sends a tool's output to a file (lp(5)): set for one command
# by LP_TO, never passed on from make's own environment
unexport LP_OUTPUT

empty :=
space := $(empty) $(empty)
comma := ,
define nl


endef
lp_chars := a b c d e f g h i j k l m n o p q r s t u v w x y z A B C D E F G H \
	I J K L M N O P Q R S T U V W X Y Z 0 1 2 3 4 5 6 7 8 9 . _ -
# Empty when $(1), a variable's name, holds only letters, digits, '.', '_'
# and '-' (and the characters $(2)) besides blanks.  Works on the raw value,
# so "$(...)" in it is never expanded.  lp_unsafe_word: and no blank.
define lp_unsafe
$(strip $(eval lp__left := $$(value $(1)))$(foreach c,$(lp_chars) $(2),$(eval lp__left := $$(subst $(c),,$$(lp__left))))$(lp__left))
endef
lp_unsafe_word = $(or $(call lp_unsafe,$(1),$(2)),$(if $(word 2,x$(value $(1))x),blank))
# what is left of $(1) without its digits (TOPN, FAULT_KILLS: whole numbers)
lp_nondigit = $(subst 0,,$(subst 1,,$(subst 2,,$(subst 3,,$(subst 4,,$(subst 5,,$(subst 6,,$(subst \
	7,,$(subst 8,,$(subst 9,,$(1)))))))))))

# A make that restarts finds the count in MAKE_RESTARTS, from the
# environment: a number, "-" before it when make printed its directory.
# Any other value was not set by make, and would be expanded (imports.mk).
ifeq ($(origin MAKE_RESTARTS),environment)
ifneq ($(or $(if $(value MAKE_RESTARTS),,empty),$(call lp_nondigit,$(patsubst -%,%,$(value MAKE_RESTARTS)))),)
undefine MAKE_RESTARTS
endif
endif
