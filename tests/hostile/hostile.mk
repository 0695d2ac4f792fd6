# Hostile inputs (tests/hostile/run.sh) and the interrupted-save test
# (tests/hostile/save_interrupt.c):
#   make hostile                 against the normal build
#   make hostile-asan            the same inputs against an ASan+UBSan build
#   make valgrind                tests/valgrind.sh: the lessons, the bad lessons and
#                                a view session under valgrind
# SAVE_ROUNDS sets how many saves are killed (default 200).
# Included from tests/fuzz/fuzz.mk (the Makefile may include it itself; the
# guard keeps the rules single).
ifndef QKV_HOSTILE_MK
QKV_HOSTILE_MK := 1

SAVE_ROUNDS ?= 200

.PHONY: hostile hostile-asan valgrind

$(B)/tests/save_interrupt: tests/hostile/save_interrupt.c $(LESSON_OBJ) $(CORE_OBJ) $(B)/lessons.o | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Isrc -o $@ $^ $(PKG_LIBS_YAML) $(LDLIBS_ALL)

$(B)/hostile/64x64.yaml: tests/bench/gen_lesson.sh
	@mkdir -p $(dir $@)
	sh tests/bench/gen_lesson.sh 64 64 > $@

hostile: $(B)/qkvtutor $(B)/tests/save_interrupt $(B)/hostile/64x64.yaml
	@sh tests/hostile/run.sh $(B)/qkvtutor $(B)/tests/save_interrupt $(B)/hostile/64x64.yaml $(SAVE_ROUNDS)

hostile-asan:
	@HOSTILE_CPU_MS=20000 $(MAKE) --no-print-directory B=$(B)/asan \
	  OPT='-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all' \
	  SAVE_ROUNDS=50 hostile

# valgrind cannot follow malloc and free in a static glibc, and the binary is
# linked statically (Makefile: STATIC): the suite runs one linked shared
# (STATIC=, as the Debian package is), built in $(B)/shared.
valgrind:
	@$(MAKE) --no-print-directory -j2 B=$(B)/shared STATIC= all
	@sh tests/valgrind.sh $(B)/shared/qkvtutor

endif
