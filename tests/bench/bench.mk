# The benchmark: `make bench` prints "bench: NAME VALUE UNIT" lines and a
# verdict per budget of DESIGN.md's "Speed and limits" (tests/bench/bench.c).
# It is built with the normal -O2 objects and draws on a headless screen
# (tests/screen.c); whole processes (--json 1, the 8-head lesson's --json,
# the worksheet, --svg, an empty C program linked dynamically and
# statically, and the numpy version of the pipeline when /usr/bin/python3
# can import numpy) are run alternated, one of each per round, through
# tests/bench/launch.c. Bytes per next are measured for every built-in
# lesson. The keypress is also measured end to end on a pty, the real
# binary with its own malloc settings (tests/bench/ptykey.c: key written ->
# first byte of the frame back, on-CPU time and page faults per key).
# It exits 0 unless a measurement could not be taken.

BENCH_DIR    = $(B)/bench
BENCH_PYTHON ?= /usr/bin/python3
BENCH_ITERS  ?= 2000
# A model lesson of lesson 17's shape for json_ms_model (vocab 27, d 16, 2 heads, 2 layers, ctx 14).
BENCH_MODEL  ?= $(firstword $(wildcard lessons/17-induction-head.yaml) tests/lessons/model-17shape.yaml)

.PHONY: bench bench-watch

$(BENCH_DIR)/bench: tests/bench/bench.c $(B)/tests/screen.o $(VIEW_OBJ) $(LESSON_OBJ) $(CORE_OBJ) $(B)/lessons.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Isrc -Itests -o $@ $^ $(PKG_LIBS_VIEW) $(PKG_LIBS_YAML) $(LDLIBS_ALL)

# One keypress end to end on a pty: the real binary, key in -> bytes out.
$(BENCH_DIR)/ptykey: tests/bench/ptykey.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -o $@ $<

$(BENCH_DIR)/launch: tests/bench/launch.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -o $@ $<

# 64 tokens x 64 dimensions, random weights (seed 1), d_k 64.
$(BENCH_DIR)/64x64.yaml: tests/bench/gen_lesson.sh
	@mkdir -p $(dir $@)
	sh tests/bench/gen_lesson.sh 64 64 > $@

# The same with 8 heads of d_k 8 and W_O (keypress_us_8heads_64x64, json_ms_8heads_64x64).
$(BENCH_DIR)/64x64h8.yaml: tests/bench/gen_lesson.sh
	@mkdir -p $(dir $@)
	sh tests/bench/gen_lesson.sh 64 64 8 > $@

# The floor of any process here: an empty C program, linked both ways.
$(BENCH_DIR)/empty_dynamic $(BENCH_DIR)/empty_static: $(BENCH_DIR)/empty_%:
	@mkdir -p $(dir $@)
	printf 'int main(void) { return 0; }\n' | $(CC) -O2 $(if $(filter static,$*),-static) -x c - -o $@

bench: $(B)/qkvtutor $(BENCH_DIR)/bench $(BENCH_DIR)/launch $(BENCH_DIR)/ptykey $(BENCH_DIR)/64x64.yaml $(BENCH_DIR)/64x64h8.yaml \
       $(BENCH_DIR)/empty_dynamic $(BENCH_DIR)/empty_static
	@echo "bench: machine: $$(nproc) cores, $$(LC_ALL=C lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), load average $$(cut -d" " -f1-3 /proc/loadavg)"
	@if $(BENCH_PYTHON) -c 'import numpy' 2>/dev/null; then np="--numpy $(BENCH_PYTHON) tests/bench/attn_numpy.py"; else np=""; fi; \
	 $(BENCH_DIR)/bench -n $(BENCH_ITERS) --proc $(BENCH_DIR)/launch $(B)/qkvtutor \
	   --empty $(BENCH_DIR)/empty_dynamic $(BENCH_DIR)/empty_static $$np --model $(BENCH_MODEL) \
	   lessons/01-three-tokens.yaml $(BENCH_DIR)/64x64.yaml $(BENCH_DIR)/64x64h8.yaml $(LESSONS)
	@$(BENCH_DIR)/ptykey $(BENCH_ITERS) 1 80 24 $(B)/qkvtutor && $(BENCH_DIR)/ptykey $(BENCH_ITERS) 8 80 24 $(B)/qkvtutor
	@$(MAKE) --no-print-directory bench-train
	@$(MAKE) --no-print-directory bench-lesson17
	@$(MAKE) --no-print-directory bench-watch
	@$(MAKE) --no-print-directory bench-web
	@echo "bench: load average at the end $$(cut -d" " -f1-3 /proc/loadavg)"

# The lesson-1 keys alone, for callgrind (tests/bench/keyprof.c).
$(BENCH_DIR)/keyprof: tests/bench/keyprof.c $(B)/tests/screen.o $(VIEW_OBJ) $(LESSON_OBJ) $(CORE_OBJ) $(B)/lessons.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Isrc -Itests -o $@ $^ $(PKG_LIBS_VIEW) $(PKG_LIBS_YAML) $(LDLIBS_ALL)

# One training step (DESIGN.md "Speed and limits"): the core's against
# torch's float32 on one thread, the same model and batch, run alternately
# (5 rounds of 20 steps each); medians, and the budget ratio <= 1/3. Then
# the estimate of lesson 17's 3000 steps on one core.
$(BENCH_DIR)/trainbench: tests/bench/trainbench.c $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Isrc -o $@ $^ $(LDLIBS_ALL)

# Lesson 17's recipe (d 16, norm none, W 0.144, E and P 1, seed 3, Adam 0.01, 2250
# steps): the induction model trained by the core, scores every
# 250 steps (tests/bench/induction.c; INDUCTION_ARGS overrides the recipe).
$(BENCH_DIR)/induction: tests/bench/induction.c $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Isrc -o $@ $^ $(LDLIBS_ALL) -lm

INDUCTION_ARGS ?=
.PHONY: induction
induction: $(BENCH_DIR)/induction
	$(BENCH_DIR)/induction $(INDUCTION_ARGS)

.PHONY: bench-train
bench-train: $(BENCH_DIR)/trainbench
	@if ! $(BENCH_PYTHON) -c 'import torch' 2>/dev/null; then echo "bench: train_step: torch is not installed (python3-torch)"; exit 0; fi; \
	 c=""; t=""; cc=""; tc=""; for r in 1 2 3 4 5; do \
	   o=$$($(BENCH_DIR)/trainbench 20); c="$$c $$(echo $$o | cut -d' ' -f2)"; cc="$$cc $$(echo $$o | cut -d' ' -f6)"; \
	   o=$$($(BENCH_PYTHON) tests/bench/train_torch.py 20); t="$$t $$(echo $$o | cut -d' ' -f2)"; tc="$$tc $$(echo $$o | cut -d' ' -f6)"; done; \
	 med() { printf '%s\n' $$* | sort -g | sed -n 3p; }; mc=$$(med $$c); mt=$$(med $$t); \
	 echo "bench: train_step_ms $$mc ms (rounds:$$c)"; echo "bench: train_step_torch_ms $$mt ms (rounds:$$t)"; \
	 echo "bench: train_step_cpu_ms $$(med $$cc) ms, torch $$(med $$tc) ms (CPU time of the process; rounds:$$cc /$$tc)"; \
	 awk -v c=$$(med $$cc) -v t=$$(med $$tc) 'BEGIN { printf "bench: train_step_cpu_ratio %.3f (the same ratio in CPU time: a loaded machine moves it least)\n", c / t }'; \
	 awk -v c=$$mc -v t=$$mt 'BEGIN { q = c / t; printf "bench: budget train_step_ratio %s (%.3f <= 0.333: the core / torch float32, one thread)\n", q <= 1 / 3 ? "ok" : "OVER", q; \
	   s = c * 3000 / 1000; printf "bench: train_3000_steps_s %.1f s (estimate: 3000 x the median step)\n", s; \
	   printf "bench: budget train_lesson17_s %s (%.1f <= 60 s, estimated)\n", s <= 60 ? "ok" : "OVER", s }'

# Lesson 17's training from scratch, measured: `qkvtutor --train` on its own
# train: section (the whole run, as `make weights` does it), wall and CPU
# time, with the machine's load; the budget is DESIGN.md's 60 s.
.PHONY: bench-lesson17
bench-lesson17: $(B)/qkvtutor
	@mkdir -p $(BENCH_DIR)
	@l=$$(cut -d" " -f1-3 /proc/loadavg); s=$$(date +%s.%N); \
	 t=$$( { /usr/bin/time -f "%U %S" $(B)/qkvtutor --train lessons/17-induction-head.yaml --out $(BENCH_DIR)/lesson17.yaml >$(BENCH_DIR)/lesson17.out 2>$(BENCH_DIR)/lesson17.err; } 2>&1 ) || \
	   { echo "bench: train_lesson17_s: --train failed: $$(tail -n 1 $(BENCH_DIR)/lesson17.err)"; exit 1; }; \
	 e=$$(date +%s.%N); \
	 awk -v s=$$s -v e=$$e -v t="$$t" -v l="$$l" -v steps="$$(sed -n 's/^trained: \([0-9]*\) of.*/\1/p' $(BENCH_DIR)/lesson17.out)" 'BEGIN { \
	   split(t, c, " "); w = e - s; cpu = c[1] + c[2]; \
	   printf "bench: train_lesson17_s %.1f s (%d steps from scratch, CPU %.1f s, load average before %s)\n", w, steps, cpu, l; \
	   printf "bench: budget train_lesson17_measured_s %s (%.1f <= 60 s)\n", w <= 60 ? "ok" : "OVER", w }'

# The watch mode (DESIGN.md "Speed and limits"): lesson 18 from its random
# weights, W on a headless 80x24 screen, the frames the terminal loop draws
# (tests/bench/watchbench.c reads the layer-2 induction score back from the
# screen); the budgets: >= 20 frames/s, the score past 0.5 within 60 s.
$(BENCH_DIR)/watchbench: tests/bench/watchbench.c $(B)/tests/screen.o $(VIEW_OBJ) $(LESSON_OBJ) $(CORE_OBJ) $(B)/lessons.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Isrc -Itests -o $@ $^ $(PKG_LIBS_VIEW) $(PKG_LIBS_YAML) $(LDLIBS_ALL)

.PHONY: bench-watch
bench-watch: $(BENCH_DIR)/watchbench
	@l=$$(cut -d" " -f1-3 /proc/loadavg); \
	 o=$$($(BENCH_DIR)/watchbench lessons/18-watch-it-learn.yaml 120 | head -n 1) || { echo "bench: watch: no score on the screen"; exit 1; }; \
	 set -- $$o; echo "bench: watch_fps $$7 frames/s ($$3 frames in $$5 s, $$9 training steps, load average before $$l)"; \
	 awk -v f=$$7 -v p=$${11} 'BEGIN { printf "bench: budget watch_fps %s (%.1f >= 20 frames/s)\n", (f >= 20 ? "ok" : "OVER"), f; \
	   printf "bench: budget watch_induction_0.5_s %s (%s <= 60 s: a layer-2 head'"'"'s induction score on the screen passes 0.5)\n", (p >= 0 && p <= 60 ? "ok" : "OVER"), (p < 0 ? "not within 120 s" : p) }'
