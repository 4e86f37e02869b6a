# lp: deep LLM profiling on NVIDIA GPUs, as small Unix filters driven by make.
#
#   make                      build bin/lp-* (needs libcsv-dev, libyaml-dev, libsqlite3-dev)
#   make deps                 install those Debian packages (as root)
#   make check                unit and CLI tests (TAP, run by prove)
#   make test                 the same less the four slowest files (the edit loop)
#   make check SAN=1          the same under ASan+UBSan;  VALGRIND=1: valgrind
#   make check FAULT_KILLS=60 the fault test with 60 kills per kind (10 by default)
#   make demo                 the whole pipeline on the bundled H200 capture
#   make fuzz [FUZZ_TIME=600]  libFuzzer harnesses of the readers (clang)
#   make RUN=abc stakeholder_summary.md   one artifact of run abc (rules.mk)
#   make install PREFIX=/usr/local DESTDIR=   uninstall   clean
#   V=1 shows the commands.

include tools/mk/cmdline.mk	# first: what make reads from the command line
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:
.SUFFIXES:
MAKEFLAGS += --warn-undefined-variables --no-builtin-rules
.DEFAULT_GOAL := all

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man/man1
MAN7DIR = $(PREFIX)/share/man/man7
MAN5DIR = $(PREFIX)/share/man/man5
CFLAGS ?= -O2 -g
LDFLAGS ?=
WERROR ?=
SAN ?=
VALGRIND ?=
FAULT_KILLS ?=
V ?=
# What is typed on the command line is data (tools/mk/cmdline.mk): the
# build's switches are read raw and take only their values.
lp_switch = $(if $(filter-out $(2),$(value $(1))),$(error $(1)="$(value $(1))": use $(1)=$(firstword $(2)) or leave it out))
# (V=0 is quiet, as V unset: the convention of automake and CI scripts)
$(call lp_switch,V,1 0)
$(call lp_switch,SAN,1)
$(call lp_switch,VALGRIND,1)
$(call lp_switch,WERROR,-Werror)
$(call lp_switch,LP_AUTO_DEPS,0 1)
$(if $(call lp_nondigit,$(value FAULT_KILLS)),$(error FAULT_KILLS="$(value FAULT_KILLS)": use a whole number))
# B=DIR builds there (the tests' copies of bin/), PREFIX and DESTDIR
# install there: plain paths, as LP_STAGE2_DIR is
$(foreach v,B PREFIX DESTDIR,$(if $(call lp_unsafe_word,$(v),/ + @ :),\
	$(error $(v)="$(value $(v))": use a path of letters, digits and . _ - / + @ :)))
$(if $(call lp_unsafe_word,NVCC_ARCH,),$(error NVCC_ARCH="$(value NVCC_ARCH)": use an arch name, as in NVCC_ARCH=sm_90))
$(if $(call lp_nondigit,$(value FUZZ_TIME)),$(error FUZZ_TIME="$(value FUZZ_TIME)": use a whole number of seconds))
# The compilers and their flags are the words of the command that builds
# the tools, as typed: a '$' in them was make's, expanded at parse time
# (LP_FLAGS_NOW) and in every compile, so none is taken.
$(foreach v,CC CFLAGS LDFLAGS FUZZ_CC NVCC,$(if $(findstring $$,$(value $(v))),\
	$(error $(v) holds a '$$': lp takes the build's flags as typed, never expanded by make (CFLAGS=-O2, not CFLAGS='$$(...)'))))
Q := $(if $(filter 1,$(V)),,@)
# "  CC file" lines, unless V=1 shows the commands or -s silences make
LP_SAY = $(if $(Q),$(if $(findstring s,$(firstword -$(MAKEFLAGS))),,@echo "  $(1)"))

# Sanitizer builds live beside the normal ones, so switching costs nothing.
B := $(if $(filter 1,$(SAN)),bin/san,bin)
LP_SANITIZE := -fsanitize=address,undefined -fno-omit-frame-pointer
SANFLAGS := $(if $(filter 1,$(SAN)),$(LP_SANITIZE))
LP_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wshadow \
	-Wstrict-prototypes $(WERROR) $(SANFLAGS) -MMD -MP -Itools/lib
LDLIBS := -lcsv -lyaml -lm

TOOLS := $(sort $(patsubst tools/%.c,%,$(wildcard tools/lp-*.c)))
BINS := $(TOOLS:%=$(B)/%)
# fuzztrack.c is the fuzz build's alone (make fuzz), never in liblp.a.
LIBSRC := $(filter-out tools/lib/fuzztrack.c,$(wildcard tools/lib/*.c))
LIBOBJ := $(patsubst tools/lib/%.c,$(B)/obj/lib/%.o,$(LIBSRC))
UNITS := $(patsubst tests/unit/%.c,$(B)/test/%,$(wildcard tests/unit/*.c))

.PHONY: all deps check test check-gpu bench bench-run bench-ranks bench-traces bench-aten demo install uninstall clean help settings man lp-tests-built
# Objects and test binaries are kept between builds, not deleted as
# intermediates of the pattern rules.
.SECONDARY: $(TOOLS:%=$(B)/obj/%.o) $(patsubst $(B)/test/%,$(B)/obj/test/%.o,$(UNITS)) \
	$(patsubst tools/%.c,$(B)/obj/%.o,$(wildcard tools/lp-*/*.c))
all: $(BINS)

# One line naming the Debian packages when a library is missing, instead
# of a page of compiler errors; as root with apt-get, it installs them.
# Checked again when this Makefile (its list of packages) changes.
LP_DEBS := libcsv-dev libyaml-dev libsqlite3-dev
LP_AUTO_DEPS ?= 1
$(B)/.deps-ok: Makefile
	$(Q)mkdir -p $(@D)
	$(Q)check() { printf '#include <csv.h>\n#include <yaml.h>\n#include <sqlite3.h>\nint main(void){struct csv_parser p; yaml_parser_t y; sqlite3 *d = 0; (void)p; (void)y; (void)d; return sqlite3_libversion_number() > 0 ? 0 : 1;}\n' \
	  | $(CC) -x c - -o $@.tmp -lcsv -lyaml -lsqlite3 2>/dev/null; }; \
	check || { [ "$(LP_AUTO_DEPS)" = 1 ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  echo "lp: installing $(LP_DEBS) (running as root)" >&2 && \
	  { apt-get install -y -qq $(LP_DEBS) >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq $(LP_DEBS) >/dev/null; }; } && check; } \
	  || { echo "lp: libcsv, libyaml or libsqlite3 is missing: apt-get install $(LP_DEBS) (or: make deps)" >&2; exit 1; }
	$(Q)rm -f $@.tmp && touch $@

# Installs the three libraries on Debian; as root it runs apt-get itself.
deps:
	$(Q)if [ "$$(id -u)" = 0 ]; then \
	  apt-get update && apt-get install -y --no-install-recommends $(LP_DEBS) make gcc libc6-dev perl; \
	else echo "run as root: apt-get install $(LP_DEBS)"; exit 1; fi

# Objects are rebuilt when the flags change, not only when sources do.
LP_FLAGS_NOW := $(CC) $(CFLAGS) $(LP_CFLAGS) $(LDFLAGS)
ifneq ($(file <$(B)/.flags),$(LP_FLAGS_NOW))
$(shell mkdir -p $(B))
$(file >$(B)/.flags,$(LP_FLAGS_NOW))
endif

# The shared library: one family of functions a file, one header a layer
# (tools/lib/util.h, esc.h, prec.h, table.h, nsight.h, run.h).
$(B)/obj/lib/%.o: tools/lib/%.c $(B)/.flags | $(B)/.deps-ok
	$(Q)mkdir -p $(@D)
	$(call LP_SAY,CC      $<)
	$(Q)$(CC) $(CFLAGS) $(LP_CFLAGS) -c -o $@ $<

$(B)/liblp.a: $(LIBOBJ)
	$(call LP_SAY,AR      $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# Each tool is one file (a big one with its parts, below) linked against
# the library.
$(B)/obj/%.o: tools/%.c $(B)/.flags | $(B)/.deps-ok
	$(Q)mkdir -p $(@D)
	$(call LP_SAY,CC      $<)
	$(Q)$(CC) $(CFLAGS) $(LP_CFLAGS) -c -o $@ $<

$(B)/lp-%: $(B)/obj/lp-%.o $(B)/liblp.a
	$(call LP_SAY,LD      $@)
	$(Q)$(CC) $(CFLAGS) $(SANFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(LDLIBS)

# A tool too big for one file keeps its parts (a family of rules, a reader)
# in tools/lp-NAME/*.c, with the header they share there: linked with it,
# before the library, by the rule above (make adds them to its $^).
PARTOBJ = $(patsubst tools/%.c,$(B)/obj/%.o,$(wildcard tools/$(1)/*.c))
$(foreach t,$(TOOLS),$(if $(call PARTOBJ,$(t)),$(eval $(B)/$(t): $(call PARTOBJ,$(t)))))

# lp-graphnodes, lp-gpumetrics, lp-bwceil and lp-injected read nsys's sqlite export,
# lp-import tells one apart: only they link libsqlite3.
$(B)/lp-graphnodes $(B)/lp-gpumetrics $(B)/lp-bwceil $(B)/lp-import $(B)/lp-injected: LDLIBS += -lsqlite3
# lp-bwprobe loads the CUDA driver at run time (dlopen): -ldl, for a C
# library older than glibc 2.34 that keeps dlopen there.
$(B)/lp-bwprobe: LDLIBS += -ldl
# lp-linkprobe loads CUDA and NCCL the same way, and runs a thread a GPU.
$(B)/lp-linkprobe: LDLIBS += -ldl -lpthread

# C unit tests of the library, one file a module, TAP on stdout.
$(B)/obj/test/%.o: tests/unit/%.c tests/unit/tap.h $(B)/.flags | $(B)/.deps-ok
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LP_CFLAGS) -Itests/unit -c -o $@ $<

$(B)/test/%: $(B)/obj/test/%.o $(B)/liblp.a
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# A stand-in CUDA driver for lp-bwprobe's tests (tests/fake/libcuda.c):
# plain, not sanitized, as the real driver is not.
LP_FAKE_CUDA := $(B)/test/libcuda-fake.so
$(LP_FAKE_CUDA): tests/fake/libcuda.c | $(B)/.deps-ok
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -shared -fPIC -o $@ $<

# The README's test command: unit tests and CLI golden tests under prove,
# one file a core at once (each test works in its own folder and never
# touches the build it tests).  tests/timed records each file's wall and
# CPU seconds; after prove's summary (its CPU total: cusr + csys) come the
# ten slowest files, and tests/times.sh bin/check-times.log prints them all.
# The tests' makes get the build's switches from the environment (SAN,
# WERROR), every make of every test: one make with other flags (make help
# too: the Makefile writes $(B)/.flags as it is read) had every tool in $(B)
# rebuilt while the other test files ran them (t0009 took 38 s of CPU in
# make check; "Text file busy" where the flags went back and forth).
LP_JOBS = $(shell nproc 2>/dev/null || echo 2)
LP_TESTS := $(sort $(wildcard tests/t[0-9]*.sh))
lp_prove = $(Q)rm -f $(B)/$(1)-times.log; rc=0; LP_TIMES=$(CURDIR)/$(B)/$(1)-times.log \
	  LP_BIN=$(CURDIR)/$(B) LP_VALGRIND=$(VALGRIND) LP_MAKE_ARGS="$(if $(SAN),SAN=$(SAN))" \
	  SAN=$(SAN) WERROR=$(WERROR) \
	  $(if $(FAULT_KILLS),LP_FAULT_KILLS=$(FAULT_KILLS)) prove -j$(LP_JOBS) --exec tests/timed $(if $(filter 1,$(V)),-v) $(2) \
	  || rc=$$?; tests/times.sh $(B)/$(1)-times.log | sed -n '1,11p;$$p'; exit $$rc
# What the tests run, built a core each at once unless make was given -j
# (a fresh clone's make test: 73 -> 55 s wall).
lp-tests-built:
	$(Q)$(MAKE) --no-print-directory $(if $(findstring -j,$(value MAKEFLAGS)),,-j$(LP_JOBS)) $(BINS) $(UNITS) $(LP_FAKE_CUDA)
check: lp-tests-built
	$(call lp_prove,check,$(UNITS) $(LP_TESTS))
# The edit loop: the unit tests and the files that test the tools one by
# one and a whole import, within a minute of CPU (make check has the make
# DAG, faults, hostile inputs, every fixture and the reports' checks):
# measured 2026-11-28 on this 2-core machine (tests/README.md, "Test times").
LP_QUICK_TESTS := $(addprefix tests/,t0001-topn.sh t0002-ncu2tsv.sh t0003-join-md.sh \
	t0004-cmd.sh t0005-config.sh t0006-inputs-env.sh t0007-summary.sh t0009-tools.sh \
	t0010-live-exports.sh t0011-tables.sh t0013-regions.sh t0014-compare.sh t0015-h200-runs.sh t0021-escape.sh t0024-readers.sh \
	t0033-tool-lines.sh t0035-cost.sh t0036-profile-cost.sh t0041-run-folder.sh t0043-values.sh \
	t0044-joins.sh t0047-gpumetrics.sh t0050-dram-bw.sh t0052-crashes.sh t0060-empty-capture.sh \
	t0064-briefjson.sh t0065-injected.sh t0066-window.sh t0067-rankfall.sh t0068-linkprobe.sh t0070-pack.sh t0071-ncustop.sh)
test: lp-tests-built
	$(call lp_prove,test,$(UNITS) $(LP_QUICK_TESTS))

# Time and peak memory of the parsers on growing inputs, of the readers
# of 1 GB per-instance traces, and of the multi-GPU tables at 8 to 1,024
# ranks (figures only).
bench: $(BINS)
	$(Q)LP_BIN=$(CURDIR)/$(B) tests/bench.sh
	$(Q)LP_BIN=$(CURDIR)/$(B) tests/bench-traces.sh
	$(Q)LP_BIN=$(CURDIR)/$(B) tests/bench-ranks.sh
	$(Q)LP_BIN=$(CURDIR)/$(B) tests/bench-import.sh
	$(Q)tests/bench-run.sh
bench-run: $(BINS)
	$(Q)tests/bench-run.sh
bench-ranks: $(BINS)
	$(Q)LP_BIN=$(CURDIR)/$(B) tests/bench-ranks.sh
# lp-hostside, lp-regions, lp-reginst on 1 GB traces: time and peak RSS
bench-traces: $(BINS)
	$(Q)LP_BIN=$(CURDIR)/$(B) tests/bench-traces.sh
# lp-atenops on 10^5 and 10^6 op ranges: time and peak RSS
bench-aten: $(BINS)
	$(Q)LP_BIN=$(CURDIR)/$(B) tests/bench-aten.sh

# Fuzzing with clang's libFuzzer, ASan and UBSan (tests/fuzz/README.md):
# each harness FUZZ_TIME seconds, seeded from tests/fixtures and run over
# its regression inputs first.  fuzz-smoke: a few seconds each (CI).
FUZZ_CC ?= clang
FUZZ_TIME ?= 600
FUZZ_RUNS := nsys ncu-wide ncu-long tsv yaml md svg json
FUZZ_FLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -DLP_FUZZ -g -O1 \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Itools/lib
# The writers' harnesses read their output back with another parser:
# cmark-gfm (GitHub's Markdown), libxml2, json-c.
FUZZ_PARSER :=
bin/fuzz/fuzz_md: FUZZ_PARSER := -lcmark-gfm -lcmark-gfm-extensions
bin/fuzz/fuzz_svg: FUZZ_PARSER := -I/usr/include/libxml2 -lxml2
bin/fuzz/fuzz_json: FUZZ_PARSER := -ljson-c
bin/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(wildcard tools/lib/*.[ch]) | bin/.deps-ok
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(filter-out tools/lib/nsql.c,$(LIBSRC)) tools/lib/fuzztrack.c -lcsv -lyaml -lm $(FUZZ_PARSER)
.PHONY: fuzz fuzz-smoke
fuzz fuzz-smoke: bin/fuzz/fuzz_nsys bin/fuzz/fuzz_ncu bin/fuzz/fuzz_tsv bin/fuzz/fuzz_yaml \
	bin/fuzz/fuzz_md bin/fuzz/fuzz_svg bin/fuzz/fuzz_json
fuzz:
	$(Q)tests/fuzz/run.sh $(FUZZ_TIME) $(FUZZ_RUNS)
fuzz-smoke:
	$(Q)tests/fuzz/run.sh 5 $(FUZZ_RUNS)

# The CUDA C test workload; it needs nvcc here and a GPU to run.
NVCC ?= nvcc
NVCC_ARCH ?= native
bin/tinyllm: tests/workloads/tinyllm.cu
	$(Q)mkdir -p $(@D)
	$(NVCC) -O2 -arch=$(NVCC_ARCH) -o $@ $< -lcublas

# End-to-end runs of the workloads on a GPU machine with nsys and ncu
# (tests/gpu/README.md); prove's summary, or a plain one without prove.
check-gpu: $(BINS) bin/tinyllm
	$(Q)export LP_BIN=$(CURDIR)/$(B); \
	if command -v prove >/dev/null; then prove --exec '' -v tests/gpu/t[0-9]*.sh; \
	else p=0 f=0; for t in tests/gpu/t[0-9]*.sh; do out=$$($$t); echo "$$out"; \
	  p=$$((p + $$(echo "$$out" | grep -c '^ok'))); f=$$((f + $$(echo "$$out" | grep -c '^not ok'))); done; \
	  echo "$$p passed, $$f failed"; [ $$f = 0 ]; fi

# The whole pipeline on a real H200 run of the PyTorch workload
# (tests/fixtures/h200-torch-v2: nsys, ncu top-N and ncu regions of one run,
# python3 tests/workloads/torch_decoder.py --warmup 0): no GPU.
# Then the advice followed: the same workload on an H100, eager, and
# graphed as the eager run's brief advises (tests/fixtures/h100-graphs e1
# and g2, with their CUDA API traces, so the waterfall splits the idle
# time), and compare.md of the graphed run against the eager one, which
# says whether the advice realized what it predicted; quietly, one line.
LP_DEMO_FILES := $(wildcard tests/fixtures/h200-torch-v2/torch_*.csv)
LP_DEMO_EAGER := $(wildcard tests/fixtures/h100-graphs/e1_*.csv)
LP_DEMO_GRAPHED := $(wildcard tests/fixtures/h100-graphs/g2_*.csv)
# The goals (tools/mk/help.txt) and the settings a user types; the
# settings and what each does are tools/mk/cmdline.mk's (LP_SETTINGS, the
# list the command line is checked against, and lp_doc.NAME); make
# settings prints them as TSV.
help:
	@cat tools/mk/help.txt
	@printf '  %-14s %s\n' $(foreach v,$(LP_SETTINGS),$(v) '$(subst ','\'',$(lp_doc.$(v)))')
# lp(7)'s tables of settings and SET= keys, made again from what defines them
man: $(B)/lp-confget
	$(Q)LP_BIN=$(CURDIR)/$(B) tests/gen-lp7.sh > tools/lp.7.tmp && mv tools/lp.7.tmp tools/lp.7
settings:
	$(lp_settings_info)@:

demo:
	@out=$$($(MAKE) --no-print-directory $(if $(findstring -j,$(value MAKEFLAGS)),,-j$(LP_JOBS)) $(BINS)) || { printf '%s\n' "$$out"; exit 1; }; \
	  n=$$(printf '%s\n' "$$out" | grep -c '^  CC ' || :); [ "$$n" = 0 ] || echo "  BUILD $$n files into $(B)/"
	@out=$$($(MAKE) --no-print-directory RUN=demo IMPORT='$(LP_DEMO_FILES)' MODEL=torch-decoder \
	  topn.tsv kernels.md stakeholder_summary.md brief.json regions.md 2>&1) || { printf '%s\n' "$$out"; exit 1; }; \
	  printf '%s\n' "$$out" | awk '/^  [A-Z]+ +[^ ]+ +(lp-[a-z0-9]+)?$$/ { n++; next } { print } \
	    END { if (n) printf "  RUN   demo: %d steps, a tool each (make RUN=demo V=1 ... shows their commands)\n", n }'
	@echo "demo: $(LP_STAGE2_DIR)/demo/stakeholder_summary.md (details.md, kernels.md, regions.md beside it)"
	$(Q)$(MAKE) -s --no-print-directory RUN=demo-eager IMPORT='$(LP_DEMO_EAGER)' MODEL=torch-decoder stakeholder_summary.md >/dev/null
	$(Q)$(MAKE) -s --no-print-directory RUN=demo-graphed IMPORT='$(LP_DEMO_GRAPHED)' MODEL=torch-decoder stakeholder_summary.md >/dev/null
	$(Q)$(MAKE) -s --no-print-directory RUN=demo-graphed BASE=demo-eager compare.md >/dev/null
	@echo "demo: advice followed (H100): $(LP_STAGE2_DIR)/demo-eager/stakeholder_summary.md, then graphed: $(LP_STAGE2_DIR)/demo-graphed/compare.md"

install: $(BINS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(MAN7DIR) $(DESTDIR)$(MAN5DIR)
	install -m 755 $(BINS) $(DESTDIR)$(BINDIR)/
	install -m 644 $(TOOLS:%=tools/%.1) $(DESTDIR)$(MANDIR)/
	install -m 644 tools/lp.7 $(DESTDIR)$(MAN7DIR)/
	install -m 644 tools/lp.5 $(DESTDIR)$(MAN5DIR)/

uninstall:
	rm -f $(TOOLS:%=$(DESTDIR)$(BINDIR)/%) $(TOOLS:%=$(DESTDIR)$(MANDIR)/%.1) $(DESTDIR)$(MAN7DIR)/lp.7 $(DESTDIR)$(MAN5DIR)/lp.5

clean:
	rm -rf bin

-include $(wildcard $(B)/obj/*.d $(B)/obj/lp-*/*.d $(B)/obj/lib/*.d $(B)/obj/test/*.d)

include rules.mk
$(lp_refuse_own)
