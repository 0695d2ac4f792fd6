# Fuzzing with libFuzzer (clang): see tests/fuzz/README.md.
#   make fuzz [FUZZ_SECONDS=60]   fuzz each target FUZZ_SECONDS seconds
#   make fuzz-smoke               the regression replay, then 10,000 inputs of each
#                                 target (FUZZ_RUNS, FUZZ_MAXLEN_*); installs
#                                 clang and libclang-rt-dev when the probe fails,
#                                 skipped (recorded for `make test`) without apt-get
#   make fuzz-regress             replay tests/fuzz/regress/ and the seeds, no fuzzing
# The targets compile src/core, src/lesson and src/out/render.c, statejson.c (fuzz_view also
# src/ui and src/term, tests/screen.c and the embedded lessons) themselves with clang
# (-fsanitize=fuzzer,address,undefined) into $(B)/fuzz/; the gcc objects are
# not used. The corpora live in $(B)/fuzz/corpus-*: seeded on every run from
# lessons/, tests/bad/, tests/fuzz/actions.txt and a few key scripts, kept
# between runs, never committed.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR      = $(B)/fuzz
FUZZ_SAN      = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS   = $(CFLAGS_ALL) -O1 -g $(FUZZ_SAN) -Isrc -Itests
FUZZ_SRC      = $(CORE_SRC) $(LESSON_SRC) $(TEXT_SRC) $(WORDS_SRC) src/out/render.c src/out/statejson.c src/out/jsonmat.c src/out/modeljson.c src/out/dumpgrid.c src/out/modeldump.c src/out/authoring.c src/out/json.c
FUZZ_OBJ      = $(FUZZ_SRC:src/%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_VIEW_OBJ = $(TERM_SRC:src/%.c=$(FUZZ_DIR)/obj/%.o) $(UI_SRC:src/%.c=$(FUZZ_DIR)/obj/%.o) $(LAYOUT_SRC:src/%.c=$(FUZZ_DIR)/obj/%.o) $(FUZZ_DIR)/obj/screen.o $(FUZZ_DIR)/obj/lessons.o
FUZZ_TARGETS  = fuzz_lesson fuzz_action fuzz_view
FUZZ_SECONDS_LESSON ?= $(FUZZ_SECONDS)
FUZZ_SECONDS_ACTION ?= $(FUZZ_SECONDS)
FUZZ_SECONDS_VIEW   ?= $(FUZZ_SECONDS)
FUZZ_BINS     = $(FUZZ_TARGETS:%=$(FUZZ_DIR)/%)
FUZZ_OPTS     = -rss_limit_mb=2048 -timeout=10 -print_final_stats=1
FUZZ_PROBE    = $(FUZZ_DIR)/.probe-ok

.PHONY: fuzz fuzz-smoke fuzz-regress fuzz-build fuzz-corpus fuzz-run-lesson fuzz-run-action fuzz-run-view

$(FUZZ_DIR)/obj/%.o: src/%.c | deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@
$(FUZZ_DIR)/obj/%.o: tests/fuzz/%.c | deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@
$(FUZZ_DIR)/obj/screen.o: tests/screen.c | deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@
$(FUZZ_DIR)/obj/lessons.o: $(B)/lessons.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
-include $(wildcard $(FUZZ_DIR)/obj/*.d $(FUZZ_DIR)/obj/*/*.d)

$(FUZZ_DIR)/fuzz_lesson $(FUZZ_DIR)/fuzz_action: $(FUZZ_DIR)/%: $(FUZZ_DIR)/obj/%.o $(FUZZ_OBJ) $(FUZZ_DIR)/obj/lessons.o
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(PKG_LIBS_YAML) $(LDLIBS_ALL)
$(FUZZ_DIR)/fuzz_view: $(FUZZ_DIR)/obj/fuzz_view.o $(FUZZ_OBJ) $(FUZZ_VIEW_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(PKG_LIBS_VIEW) $(PKG_LIBS_YAML) $(LDLIBS_ALL)

# Can clang build a libFuzzer binary here? (clang plus its compiler-rt runtime.)
$(FUZZ_PROBE):
	@mkdir -p $(FUZZ_DIR)
	@printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return d && n; }\n' > $(FUZZ_DIR)/probe.c
	@command -v $(FUZZ_CC) >/dev/null 2>&1 && \
	 $(FUZZ_CC) -fsanitize=fuzzer,address,undefined $(FUZZ_DIR)/probe.c -o $(FUZZ_DIR)/probe >/dev/null 2>&1 && \
	 touch $@ || true
	@rm -f $(FUZZ_DIR)/probe $(FUZZ_DIR)/probe.c

fuzz-build: $(FUZZ_PROBE)
	@test -f $(FUZZ_PROBE) || { echo "fuzz: $(FUZZ_CC) cannot build libFuzzer targets (install clang and libclang-rt-dev)"; exit 1; }
	@$(MAKE) --no-print-directory -j2 $(FUZZ_BINS)

# Seed the corpora: lesson files; one action per line of actions.txt plus
# every do: action written in the lessons; a few key scripts.
fuzz-corpus:
	@mkdir -p $(FUZZ_DIR)/corpus-lesson $(FUZZ_DIR)/corpus-action $(FUZZ_DIR)/corpus-view
	@cp $(LESSONS) tests/bad/*.yaml $(FUZZ_DIR)/corpus-lesson/
	@{ cat tests/fuzz/actions.txt; \
	   sed -n 's/^ *\(do:\|-\) *"\(.*=.*\)" *$$/\2/p' $(LESSONS); } | \
	 awk -v d=$(FUZZ_DIR)/corpus-action '{ f = sprintf("%s/seed-%03d", d, NR); printf "%s", $$0 > f; close(f) }'
	@# key scripts: lesson, lines, columns, then keys (see fuzz_view.c)
	@printf '\000\027\117nnnnnnnnnnpppp\200\201\202\203s\ru\222m' > $(FUZZ_DIR)/corpus-view/seed-walk
	@printf '\001\035\143:Q[1] = K[1] * 5\rnnn\204e\2032\r+-\214\203\203Wq\014\rq' > $(FUZZ_DIR)/corpus-view/seed-edit
	@printf '\002\027\117?\214wsaved.yaml\r\377\005\010nnn\377\060\200LtP\216qy' > $(FUZZ_DIR)/corpus-view/seed-save-resize

# Replay the seeds and the kept crashes (no fuzzing): each must run clean,
# a kept timeout within the smoke run's -timeout too.
# The seeds go in one batch; each kept crash runs alone, so every one that
# still fails is named.
fuzz-regress: fuzz-build fuzz-corpus
	@fail=0; \
	 for t in lesson action view; do \
	  if [ $$t = lesson ]; then seeds="$(LESSONS) $$(ls tests/bad/*.yaml)"; \
	  else seeds="$$(ls $(FUZZ_DIR)/corpus-$$t/seed-*)"; fi; \
	  if $(FUZZ_DIR)/fuzz_$$t $$seeds > $(FUZZ_DIR)/regress-$$t.log 2>&1; then \
	    echo "ok: fuzz-regress fuzz_$$t: $$(echo $$seeds | wc -w) seeds"; \
	  else tail -n 30 $(FUZZ_DIR)/regress-$$t.log; echo "FAIL: fuzz-regress fuzz_$$t: the seeds"; fail=1; fi; \
	  for f in tests/fuzz/regress/$$t-*; do \
	    [ -f "$$f" ] || continue; \
	    if $(FUZZ_DIR)/fuzz_$$t $(FUZZ_OPTS) $$f > $(FUZZ_DIR)/regress-one.log 2>&1; then echo "ok: fuzz-regress $$f"; \
	    else echo "FAIL: fuzz-regress $$f: $$(grep -m1 -E "^fuzz_$$t:|^SUMMARY|ERROR:" $(FUZZ_DIR)/regress-one.log)"; fail=1; fi; \
	  done; \
	 done; exit $$fail

# Fuzz one target for $(1) seconds, or, with FUZZ_RUNS set, for exactly
# FUZZ_RUNS inputs of at most $(3) bytes (the smoke run: an input count, not
# a time box, so a loaded machine runs as many); a crash is left in
# $(FUZZ_DIR)/crash-*. Fewer inputs executed than FUZZ_RUNS fails.
FUZZ_RUNS ?=
define fuzz_run
	@echo "== fuzz_$(2): $(if $(FUZZ_RUNS),$(FUZZ_RUNS) inputs of at most $(3) bytes,$(1) s)"; \
	 $(FUZZ_DIR)/fuzz_$(2) $(FUZZ_OPTS) $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS) -max_len=$(3),-max_total_time=$(1)) \
	   $(if $(wildcard tests/fuzz/$(2).dict),-dict=tests/fuzz/$(2).dict) \
	   -artifact_prefix=$(abspath $(FUZZ_DIR))/crash-$(2)- $(FUZZ_DIR)/corpus-$(2) > $(FUZZ_DIR)/fuzz-$(2).log 2>&1; \
	 rc=$$?; grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ *DONE)' $(FUZZ_DIR)/fuzz-$(2).log | sed 's/^/   /'; \
	 if [ $$rc -ne 0 ]; then tail -n 60 $(FUZZ_DIR)/fuzz-$(2).log; \
	   echo "FAIL: fuzz_$(2) found a crash: $$(ls $(FUZZ_DIR)/crash-$(2)-* 2>/dev/null | head -1)"; \
	   echo "      minimise it with $(FUZZ_DIR)/fuzz_$(2) -minimize_crash=1 FILE and keep it as tests/fuzz/regress/$(2)-NAME"; exit 1; fi; \
	 runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $(FUZZ_DIR)/fuzz-$(2).log); \
	 if [ -n "$(FUZZ_RUNS)" ] && [ "$${runs:-0}" -lt "$(FUZZ_RUNS)" ]; then \
	   echo "FAIL: fuzz_$(2) executed $${runs:-0} inputs, fewer than $(FUZZ_RUNS)"; exit 1; fi; \
	 echo "ok: fuzz_$(2) ran $(if $(FUZZ_RUNS),$${runs} inputs,$(1) s) without a crash"
endef

# The largest input of each target in the smoke run: whole lessons are
# kilobytes; an action is a line; a view script of 6 bytes is a lesson, a
# size and up to 3 keys (a view input costs ~8 ms under ASan).
FUZZ_MAXLEN_LESSON ?= 2048
FUZZ_MAXLEN_ACTION ?= 256
FUZZ_MAXLEN_VIEW   ?= 6

# The three targets run side by side (two at a time on this 2-core
# machine), each report printed whole when its target is done.
fuzz: fuzz-build fuzz-corpus
	@$(MAKE) --no-print-directory -j2 --output-sync=target fuzz-run-lesson fuzz-run-action fuzz-run-view

fuzz-run-lesson:
	$(call fuzz_run,$(FUZZ_SECONDS_LESSON),lesson,$(FUZZ_MAXLEN_LESSON))
fuzz-run-action:
	$(call fuzz_run,$(FUZZ_SECONDS_ACTION),action,$(FUZZ_MAXLEN_ACTION))
fuzz-run-view:
	$(call fuzz_run,$(FUZZ_SECONDS_VIEW),view,$(FUZZ_MAXLEN_VIEW))

# clang and its libFuzzer runtime (Debian: clang, libclang-rt-dev) are
# installed when the probe fails (tests/need.sh); the suite fails if they
# cannot be, and is skipped (counted so by `make test`) only without apt-get.
fuzz-smoke:
	@sh tests/need.sh fuzz-smoke "clang libclang-rt-dev" \
	   sh -c 'rm -f $(FUZZ_PROBE); $(MAKE) --no-print-directory -s $(FUZZ_PROBE); test -f $(FUZZ_PROBE)'; rc=$$?; \
	 if [ $$rc = 3 ]; then exit 0; elif [ $$rc != 0 ]; then exit 1; fi; \
	 $(MAKE) --no-print-directory fuzz-regress && \
	 $(MAKE) --no-print-directory fuzz FUZZ_RUNS=10000

# The hostile-input and interrupted-save tests live beside the fuzzers.
include tests/hostile/hostile.mk
