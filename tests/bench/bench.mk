# The benchmark: `make bench` prints "bench: NAME VALUE UNIT" lines and a
# verdict per budget (tests/bench/bench.c). It is built with the normal -O2
# objects, draws on a headless screen (tests/screen.c) and times the whole
# `qkvtutor --json 1` process and `qkvtutor --worksheet --answers --variant 7 1`
# (worksheet_ms); when /usr/bin/python3 can import numpy, the
# numpy version of the same pipeline (tests/bench/attn_numpy.py) is timed
# side by side: interleaved by bench's own launcher, and with hyperfine
# (installed with apt-get when missing), whose medians the wall-time budget
# uses. It exits 0 unless a measurement could not be taken.

BENCH_DIR    = $(B)/bench
BENCH_PYTHON ?= /usr/bin/python3
BENCH_ITERS  ?= 2000
BENCH_RUNS   ?= 60

.PHONY: bench

$(BENCH_DIR)/bench: tests/bench/bench.c $(B)/tests/screen.o $(VIEW_OBJ) $(LESSON_OBJ) $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Isrc -Itests -o $@ $^ $(PKG_LIBS_VIEW) $(PKG_LIBS_YAML) $(LDLIBS_ALL)

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

bench: $(B)/qkvtutor $(BENCH_DIR)/bench $(BENCH_DIR)/launch $(BENCH_DIR)/64x64.yaml $(BENCH_DIR)/64x64h8.yaml
	@if ! command -v hyperfine >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then \
	   SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	   { $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq hyperfine; } >/dev/null 2>&1 || true; fi
	@echo "bench: machine: $$(nproc) cores, $$(LC_ALL=C lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), load average $$(cut -d" " -f1-3 /proc/loadavg)"
	@if $(BENCH_PYTHON) -c 'import numpy' 2>/dev/null; then np="--numpy $(BENCH_PYTHON) tests/bench/attn_numpy.py"; \
	   if command -v hyperfine >/dev/null 2>&1 && hyperfine -N --warmup 10 --runs $(BENCH_RUNS) --style none \
	      --export-json $(BENCH_DIR)/hyperfine.json '$(B)/qkvtutor --json 1' '$(BENCH_PYTHON) tests/bench/attn_numpy.py' \
	      '$(B)/qkvtutor --worksheet --answers --variant 7 1' \
	      >$(BENCH_DIR)/hyperfine.log 2>&1; \
	   then np="$$np --hyperfine $(BENCH_DIR)/hyperfine.json"; \
	   else echo "bench: no hyperfine run (see $(BENCH_DIR)/hyperfine.log): the wall ratio is the interleaved one"; fi; \
	 else np=""; fi; \
	 $(BENCH_DIR)/bench -n $(BENCH_ITERS) --proc $(BENCH_DIR)/launch $(B)/qkvtutor $$np lessons/01-three-tokens.yaml $(BENCH_DIR)/64x64.yaml $(BENCH_DIR)/64x64h8.yaml
