# qkvtutor - build, run and test.  `make run` and `make test` set themselves up.

.SUFFIXES:

PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR   = $(PREFIX)/bin
MANDIR   = $(PREFIX)/share/man/man1
DATADIR  = $(PREFIX)/share/qkvtutor
LOCALEDIR = $(PREFIX)/share/locale
DOCDIR   = $(PREFIX)/share/doc/qkvtutor
APPDIR   = $(PREFIX)/share/applications
ICONDIR  = $(PREFIX)/share/icons/hicolor/scalable/apps
# The package's Homepage: field. The project has no public page yet, so it is
# left out unless given (make deb HOMEPAGE=https://...); lintian is told why.
HOMEPAGE ?=
# The man pages name the installed paths: @DATADIR@, @LOCALEDIR@ and
# @DOCDIR@ in src/man are filled in from PREFIX at install (and /usr for deb).
MAN_PAGES = src/man/qkvtutor.1 src/man/zh_CN/qkvtutor.1
MAN_SED  = sed -e 's|@DATADIR@|$(DATADIR)|g' -e 's|@LOCALEDIR@|$(LOCALEDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g'

VERSION  = 0.2.0
CC       = cc
B        = build
PKGS     = ncursesw yaml-0.1 cmocka
DEBS     = libncurses-dev libyaml-dev libcmocka-dev pkg-config gettext tmux

WARN     = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter -Wformat-security
OPT     ?= -O2 -g
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS_VIEW = $(shell pkg-config --libs ncursesw 2>/dev/null)
PKG_LIBS_YAML = $(shell pkg-config --libs yaml-0.1 2>/dev/null)
PKG_LIBS_TEST = $(shell pkg-config --libs cmocka 2>/dev/null)
CFLAGS_ALL = -std=c11 -D_DEFAULT_SOURCE $(WARN) $(OPT) $(PKG_CFLAGS) \
             -DQKV_VERSION='"$(VERSION)"' -DQKV_LOCALEDIR='"$(LOCALEDIR)"' -DQKV_DATADIR='"$(DATADIR)"' $(CFLAGS)
LDLIBS_ALL = -lm $(LDFLAGS)

# One folder per layer (README.md "How the code is laid out"); each folder
# links with the ones below it only: core <- text <- lesson <- words <-
# layout <- ui <- term / out <- main (tests/arch.py checks it).
CORE_SRC   = $(wildcard src/core/*.c)
LESSON_SRC = $(wildcard src/lesson/*.c)
TEXT_SRC   = $(wildcard src/text/*.c)
WORDS_SRC  = $(wildcard src/words/*.c)
LAYOUT_SRC = $(wildcard src/layout/*.c)
UI_SRC     = $(wildcard src/ui/*.c)
TERM_SRC   = $(wildcard src/term/*.c)
OUT_SRC    = $(wildcard src/out/*.c)
MAIN_SRC   = src/main.c $(OUT_SRC)
LESSONS    = $(sort $(wildcard lessons/*.yaml))
# Files lessons name (weights files: weights: {file: weights/NAME.yaml}),
# built in beside the lessons and installed under lessons/weights/.
LESSON_FILES = $(sort $(wildcard lessons/weights/*.yaml))
PO         = $(wildcard src/po/*.po)
MO         = $(PO:src/po/%.po=$(B)/locale/%/LC_MESSAGES/qkvtutor.mo)

.PHONY: all deps run test arch unit oom truth keys-doc check-lessons bad-lessons cli train-cli weights svg slides deb-check numpy torch worksheet worksheet-print install-check e2e \
        asan golden pot clean install uninstall bench fuzz screenshots deb deb-bin web-test check installer

all: deps $(B)/qkvtutor $(MO)

# Install missing Debian packages (apt-get, with sudo when not root); without
# apt-get, say which packages are needed.
deps: $(B)/.deps
$(B)/.deps:
	@mkdir -p $(B)
	@missing=""; \
	 pkg-config --version >/dev/null 2>&1 || missing="pkg-config"; \
	 for p in $(PKGS); do pkg-config --exists $$p 2>/dev/null || missing="$$missing $$p"; done; \
	 command -v msgfmt >/dev/null 2>&1 || missing="$$missing msgfmt"; \
	 command -v tmux >/dev/null 2>&1 || missing="$$missing tmux"; \
	 if [ -n "$$missing" ]; then \
	   echo "qkvtutor: missing:$$missing; installing: $(DEBS)"; \
	   if command -v apt-get >/dev/null 2>&1; then \
	     sh tests/apt.sh qkvtutor $(DEBS) || exit 1; \
	   else \
	     echo "qkvtutor: no apt-get here; please install: $(DEBS)"; exit 1; \
	   fi; \
	 fi
	@touch $@

# The lessons are embedded in the binary: each becomes a byte array, with
# the YAML events libyaml delivers for it recorded at build time
# (tools/lessonrec.c, src/lesson/ydoc.h): the loader replays them instead of
# parsing the built-in bytes. They are made again whenever a lesson or the
# recorder changes.
$(B)/lessons.c: $(LESSONS) $(LESSON_FILES) $(B)/tools/lessonrec Makefile
	@mkdir -p $(B)
	@$(B)/tools/lessonrec $(LESSONS) > $@.rec || { rm -f $@.rec; exit 1; }
	@{ echo '/* generated from lessons/ by make; do not edit */'; \
	   echo '#include "lesson/embedded.h"'; \
	   cat $@.rec; \
	   n=0; for f in $(LESSONS); do \
	     echo "static const unsigned char lesson_$$n[] = {"; \
	     od -An -v -tx1 $$f | sed 's/  */ /g;s/^ //;s/ $$//;s/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	     echo "};"; n=$$((n+1)); done; \
	   echo "const EmbeddedLesson embedded_lessons[] = {"; \
	   n=0; for f in $(LESSONS); do \
	     echo "  {\"$$f\", (const char *)lesson_$$n, sizeof lesson_$$n, QKV_REC_$$n},"; n=$$((n+1)); done; \
	   echo "  {0, 0, 0, 0, 0}"; echo "};"; \
	   echo "const int embedded_count = $$n;"; \
	   n=0; for f in $(LESSON_FILES); do \
	     echo "static const unsigned char file_$$n[] = {"; \
	     od -An -v -tx1 $$f | sed 's/  */ /g;s/^ //;s/ $$//;s/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	     echo "};"; n=$$((n+1)); done; \
	   echo "const EmbeddedFile embedded_files[] = {"; \
	   n=0; for f in $(LESSON_FILES); do \
	     echo "  {\"$$f\", (const char *)file_$$n, sizeof file_$$n},"; n=$$((n+1)); done; \
	   echo "  {0, 0, 0}"; echo "};"; \
	   echo "const int embedded_file_count = $$n;"; } > $@; rm -f $@.rec

# The recorder runs on the build machine: ydoc and skim as the loader uses
# them, with libyaml (and text/'s base for the messages).
LESSONREC_OBJ = $(B)/lesson/ydoc.o $(B)/lesson/ydoctape.o $(B)/lesson/skim.o $(B)/lesson/diag.o $(B)/lesson/fullwidth.o $(B)/text/i18n.o $(B)/text/text.o
$(B)/tools/lessonrec: $(B)/tools/lessonrec.o $(LESSONREC_OBJ)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS_YAML) $(LDLIBS_ALL)
$(B)/tools/%.o: tools/%.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Isrc -MMD -MP -c $< -o $@

# --- objects -------------------------------------------------------------
$(B)/%.o: src/%.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Isrc -MMD -MP -c $< -o $@
$(B)/main.o: Makefile # VERSION
$(B)/lessons.o: $(B)/lessons.c
	$(CC) $(CFLAGS_ALL) -Isrc -c $< -o $@

CORE_OBJ   = $(CORE_SRC:src/%.c=$(B)/%.o)
# The lesson model links with the base below it: its messages are
# translated and its numbers printed by text/ (i18n, num, text, shortest).
# The words about a state (words/) sit above the lesson and below the layout.
LESSON_OBJ = $(LESSON_SRC:src/%.c=$(B)/%.o) $(TEXT_SRC:src/%.c=$(B)/%.o)
WORDS_OBJ  = $(WORDS_SRC:src/%.c=$(B)/%.o)
LAYOUT_OBJ = $(LAYOUT_SRC:src/%.c=$(B)/%.o) $(WORDS_OBJ)
UI_OBJ     = $(UI_SRC:src/%.c=$(B)/%.o) $(LAYOUT_OBJ)
VIEW_OBJ   = $(TERM_SRC:src/%.c=$(B)/%.o) $(UI_OBJ)
MAIN_OBJ   = $(MAIN_SRC:src/%.c=$(B)/%.o) $(B)/lessons.o

# The binary is linked statically (libc, libm, ncursesw, libyaml): no
# dynamic loader, no library to map and relocate at every start, which was
# half of `--json 1`'s time over an empty dynamically linked program
# (`make bench`: startup_ms, ratio_empty). It needs no NSS and no dlopen;
# glibc's static setlocale and gettext read the same locale and catalogues.
# STATIC="-no-pie -Wl,-Bstatic" links only ncursesw and libyaml statically;
# STATIC= links all shared (the Debian package does).
STATIC ?= -static
SHARED_AGAIN = $(if $(filter -static,$(STATIC)),,-Wl,-Bdynamic)
$(B)/qkvtutor: $(CORE_OBJ) $(LESSON_OBJ) $(VIEW_OBJ) $(MAIN_OBJ)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(STATIC) $(PKG_LIBS_VIEW) $(PKG_LIBS_YAML) $(if $(STATIC),$(SHARED_AGAIN)) $(LDLIBS_ALL)

-include $(wildcard $(B)/*/*.d $(B)/*.d)

run: all
	$(B)/qkvtutor

# Translations: the catalogue is compiled next to the binary for `make run`
# and installed under $(LOCALEDIR).
$(B)/locale/%/LC_MESSAGES/qkvtutor.mo: src/po/%.po | deps
	@mkdir -p $(dir $@)
	msgfmt --check -o $@ $<
	@! grep -n '^#, .*fuzzy' $< || { echo "$<: a fuzzy entry is not used (the English shows): translate it and drop the fuzzy flag"; rm -f $@; exit 1; }

# Refresh the template and merge it into each translation (for translators).
pot:
	xgettext --from-code=UTF-8 -k_ -kN_ -c/ -o src/po/qkvtutor.pot --package-name=qkvtutor $(sort $(MAIN_SRC) $(LESSON_SRC) $(TEXT_SRC) $(WORDS_SRC) $(LAYOUT_SRC) $(UI_SRC) $(TERM_SRC) $(wildcard src/web/*.c) $(wildcard src/*/*.h))
	for p in $(PO); do msgmerge -q -U --backup=none $$p src/po/qkvtutor.pot; done

e2e: all
	@sh tests/e2e/run.sh $(B)/qkvtutor

screenshots: all
	@sh tests/e2e/screenshots.sh $(B)/qkvtutor

# --- tests -----------------------------------------------------------------
# Each test links only what it needs: core tests without curses or libyaml.
CORE_TESTS   = test_mat test_rng test_attn test_explain test_trace test_heads test_grad test_modern test_model test_backprop test_copytask
LESSON_TESTS = test_options test_text test_shortest test_action test_load test_skim test_replay test_session test_template test_ask test_live test_heads_lesson test_train test_tracelive test_modelload
LESSON_TESTS += test_traindata
LESSON_TESTS += test_msession
LESSON_TESTS += test_tplmodel
UNIT_TESTS   = $(CORE_TESTS) $(LESSON_TESTS) test_layout test_layout_wide test_narration test_afile test_saveplay test_mlayout test_modeljson

$(B)/tests/%.o: tests/%.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Isrc -Itests -MMD -MP -c $< -o $@

$(CORE_TESTS:%=$(B)/tests/%): $(B)/tests/%: $(B)/tests/%.o $(CORE_OBJ)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS_TEST) $(LDLIBS_ALL)
$(LESSON_TESTS:%=$(B)/tests/%): $(B)/tests/%: $(B)/tests/%.o $(WORDS_OBJ) $(LESSON_OBJ) $(CORE_OBJ) $(B)/lessons.o
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS_YAML) $(PKG_LIBS_TEST) $(LDLIBS_ALL)
$(B)/tests/test_shortest: $(B)/out/json.o # and --json's writer, which prints with it
# The atomic writer with its failures made on purpose: fsync is wrapped.
$(B)/tests/test_afile: $(B)/tests/test_afile.o $(B)/text/afile.o $(B)/text/text.o $(B)/text/i18n.o
	$(CC) $(CFLAGS_ALL) -Wl,--wrap=fsync -o $@ $^ $(PKG_LIBS_TEST) $(LDLIBS_ALL)

# The layout's rules over the grid of lessons, steps, modes and sizes: no
# curses. It generates the 64x64 lesson itself (tests/bench/gen_lesson.sh).
$(B)/tests/test_layout $(B)/tests/test_layout_wide $(B)/tests/test_narration $(B)/tests/truth_render $(B)/tests/test_mlayout: $(B)/tests/%: $(B)/tests/%.o $(LAYOUT_OBJ) $(LESSON_OBJ) $(CORE_OBJ) $(B)/lessons.o
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS_YAML) $(PKG_LIBS_TEST) $(LDLIBS_ALL)

# The core with today's options (append, window, kv_heads, RoPE, online
# softmax) as numbers, for tests/numpy/modern.py: no lesson loader, no JSON.
$(B)/tests/modern_dump: $(B)/tests/modern_dump.o $(CORE_OBJ)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

# A whole model (core/model.h) built from a config and printed stage by
# stage as JSON, for tests/model_ref.py (torch): the core and the printer.
$(B)/tests/model_dump: $(B)/tests/model_dump.o $(CORE_OBJ) $(B)/text/shortest.o $(B)/text/shortest_pow5.o
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

# The truth test (DESIGN.md "The screen never contradicts itself"): every
# screen of every built-in lesson, scripted and after each departure, and
# --dump (--variant 7), read back as text by tests/truth.py: equations that
# reproduce from their printed digits, notices, narration numbers, no answer
# on screen while its question is open. First the checker's own self-test.
truth: $(B)/tests/truth_render $(B)/qkvtutor $(MO)
	@$(PYTHON) tests/truth.py --self-test tests/truth
	@set -e; t=$$(mktemp -d); trap 'rm -rf $$t' EXIT; \
	 $(B)/tests/truth_render >$$t/plans.txt; \
	 for f in $(LESSONS); do for l in en zh; do \
	   echo "@@ DUMP lesson=$$(basename $$f) lang=$$l variant=none"; \
	   LANG=C.UTF-8 $(B)/qkvtutor --dump --lang $$l $$f || echo "@@ DUMPFAIL"; \
	   if grep -q '^ *random:' $$f && ! grep -q '^model:' $$f; then \
	     echo "@@ DUMP lesson=$$(basename $$f) lang=$$l variant=7"; \
	     LANG=C.UTF-8 $(B)/qkvtutor --dump --variant 7 --lang $$l $$f || echo "@@ DUMPFAIL"; fi; \
	 done; done >$$t/dumps.txt; \
	 rc=0; $(PYTHON) tests/truth.py $$t/plans.txt $$t/dumps.txt >$(B)/truth.txt || rc=$$?; \
	 if [ $$rc != 0 ]; then $(PYTHON) tests/truth.py --list-kinds $$t/plans.txt $$t/dumps.txt | sed '$$d'; \
	   echo "truth: every failure, one a line: $(B)/truth.txt"; fi; tail -n 1 $(B)/truth.txt; exit $$rc

# Out of memory on purpose: malloc fails from the n-th call (render.c too).
$(B)/tests/test_oom: $(B)/tests/test_oom.o $(B)/out/render.o $(B)/out/statejson.o $(B)/out/jsonmat.o $(B)/out/modeljson.o $(B)/out/dumpgrid.o $(B)/out/modeldump.o $(B)/out/authoring.o $(B)/out/json.o $(B)/out/worksheet.o $(B)/out/worksheet_features.o $(B)/out/mdtable.o $(WORDS_OBJ) $(LESSON_OBJ) $(CORE_OBJ) $(B)/lessons.o
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS_YAML) $(PKG_LIBS_TEST) $(LDLIBS_ALL)

# A saved lesson replayed and checked as --check checks it (out/checktext.c;
# the view tests link it too, for w).
CHECK_OBJ = $(B)/out/checktext.o $(B)/out/render.o $(B)/out/statejson.o $(B)/out/jsonmat.o $(B)/out/modeljson.o $(B)/out/dumpgrid.o $(B)/out/modeldump.o $(B)/out/authoring.o $(B)/out/json.o $(B)/out/worksheet.o $(B)/out/worksheet_features.o $(B)/out/mdtable.o
$(B)/tests/test_saveplay: $(B)/tests/test_saveplay.o $(CHECK_OBJ) $(LAYOUT_OBJ) $(LESSON_OBJ) $(CORE_OBJ) $(B)/lessons.o
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS_YAML) $(PKG_LIBS_TEST) $(LDLIBS_ALL)
$(B)/tests/test_modeljson: $(B)/tests/test_modeljson.o $(CHECK_OBJ) $(LAYOUT_OBJ) $(LESSON_OBJ) $(CORE_OBJ) $(B)/lessons.o
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS_YAML) $(PKG_LIBS_TEST) $(LDLIBS_ALL)

# The view tests draw on a headless screen (newterm on /dev/null).
VIEW_TESTS = test_view test_keys test_grid test_mview
$(VIEW_TESTS:%=$(B)/tests/%): $(B)/tests/%: $(B)/tests/%.o $(B)/tests/screen.o $(CHECK_OBJ) $(VIEW_OBJ) $(LESSON_OBJ) $(CORE_OBJ) $(B)/lessons.o
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS_VIEW) $(PKG_LIBS_YAML) $(PKG_LIBS_TEST) $(LDLIBS_ALL)

# The view's screen of one step as text, for tests/svg.sh to compare with --svg.
$(B)/tests/svg_screen: $(B)/tests/svg_screen.o $(B)/tests/screen.o $(VIEW_OBJ) $(LESSON_OBJ) $(CORE_OBJ) $(B)/lessons.o
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS_VIEW) $(PKG_LIBS_YAML) $(LDLIBS_ALL)

# The key table of src/ui/keymap.c as text, and the check that README.md's
# key table and the man page's KEYS section say the same (tests/keys_doc.sh).
$(B)/tests/keys_table: $(B)/tests/keys_table.o $(VIEW_OBJ) $(LESSON_OBJ) $(CORE_OBJ) $(B)/lessons.o
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS_VIEW) $(PKG_LIBS_YAML) $(LDLIBS_ALL)

keys-doc: $(B)/tests/keys_table
	@sh tests/keys_doc.sh $(B)/tests/keys_table README.md src/man/qkvtutor.1

# A cmocka binary whose tests were all skipped has not passed: it fails the
# suite (CMOCKA_RUN names the suite in the message).
CMOCKA_RUN = log=$(B)/tests/$$t.log; $(B)/tests/$$t >$$log 2>&1; rc=$$?; cat $$log; \
	 if [ $$rc != 0 ]; then exit 1; fi; \
	 if grep -q '^\[  PASSED  \] 0 test' $$log && grep -q '^\[  SKIPPED \]' $$log; then \
	   echo "FAIL: $$t: every test was skipped, none ran"; exit 1; fi
unit: $(UNIT_TESTS:%=$(B)/tests/%) $(VIEW_TESTS:%=$(B)/tests/%) $(MO)
	@for t in $(UNIT_TESTS) $(VIEW_TESTS); do echo "== $$t"; $(CMOCKA_RUN); done

# Out of memory on purpose (tests/test_oom.c replaces malloc): its own suite,
# on the plain build only. Under ASan, which owns malloc, its tests cannot
# run, so the asan suite leaves it out rather than count five skips as a pass.
oom: $(B)/tests/test_oom
	@for t in test_oom; do echo "== $$t"; $(CMOCKA_RUN); done

# Rewrite the golden screens; review the diff before committing.
golden: $(B)/tests/test_view $(B)/tests/test_mview
	QKV_GOLDEN=1 $(B)/tests/test_view
	QKV_GOLDEN=1 $(B)/tests/test_mview
	@git --no-pager diff --stat -- tests/golden 2>/dev/null || true

# The shape of the code (tests/arch.py, every rule of DESIGN.md
# "Architecture"): includes as the compiler resolves them (CC -E -v's search
# lists, CC -M) point one way, curses only in src/term/, no *_int.h of
# another folder, no circle of includes or of calls (nm on the objects) of
# any length, calls follow the layers, files <= 700 lines, functions <= 60,
# one UTF-8 decoder, one number printer and parser, headers open with their
# contract; then its self-test plants each kind of breach in a scratch copy.
arch: $(B)/qkvtutor
	@$(PYTHON) tests/arch.py --self-test $(B) $(CC) $(CFLAGS_ALL) -Isrc

check-lessons: $(B)/qkvtutor
	@set -e; for f in $(LESSONS) $(wildcard tests/lessons/*.yaml); do \
	  for l in en zh; do $(B)/qkvtutor --check --lang $$l $$f >/dev/null || { echo "FAIL: --check $$f ($$l)"; $(B)/qkvtutor --check --lang $$l $$f; exit 1; }; done; \
	  echo "ok: --check $$f (en, zh)"; done

bad-lessons: $(B)/qkvtutor
	@sh tests/bad_lessons.sh $(B)/qkvtutor

# The command line: exit statuses and exact messages.
cli: $(B)/qkvtutor
	@sh tests/cli.sh $(B)/qkvtutor
# qkvtutor --train (tests/train_cli.sh): its messages, the summary, --steps,
# determinism, Ctrl-C, an unwritable --out, a step not finite, the scores
# against the recipe search's trainer, and the shipped weights file byte
# for byte what the binary makes from lesson 17 (lesson 17's whole
# training, under 40 s).
train-cli: $(B)/qkvtutor $(B)/bench/induction
	@sh tests/train_cli.sh $(B)/qkvtutor $(B)/bench/induction
# lessons/weights/induction-2l.yaml: lesson 17's own train: section, trained
# by this binary from its train.from (the test above checks it is so). It
# trains a copy of the lesson whose weights: are train.from's random ones,
# so that a file that no longer fits the model: (or none) does not stop it.
weights: $(B)/qkvtutor
	@mkdir -p lessons/weights $(B)/weights
	sed 's|^\(  *\)file: weights/induction-2l.yaml|\1random: {seed: 0}|' lessons/17-induction-head.yaml >$(B)/weights/17.yaml
	$(B)/qkvtutor --train $(B)/weights/17.yaml --out lessons/weights/induction-2l.yaml

# --svg: valid XML for every lesson and step in en and zh, and the same text
# as the view's screen (tests/svg.sh). xmllint and python3 are installed when
# missing (tests/need.sh).
svg: $(B)/qkvtutor $(B)/tests/svg_screen $(MO)
	@sh tests/need.sh svg "libxml2-utils python3" sh -c 'command -v xmllint && $(PYTHON) -c "import xml.etree.ElementTree"'; rc=$$?; \
	 if [ $$rc = 3 ]; then exit 0; elif [ $$rc != 0 ]; then exit 1; fi; \
	 PYTHON=$(PYTHON) sh tests/svg.sh $(B)/qkvtutor $(B)/tests/svg_screen $(B)/locale

# --slides: a deck per built-in lesson in en and zh (a slide per step and per
# reveal, valid XML, listed by index.html, no key bar or tally without
# --chrome), and index.html stepping in headless chromium when it is
# installed (tests/slides.sh).
slides: $(B)/qkvtutor $(MO)
	@sh tests/need.sh slides "libxml2-utils python3-yaml" sh -c 'command -v xmllint && $(PYTHON) -c "import yaml"'; rc=$$?; \
	 if [ $$rc = 3 ]; then exit 0; elif [ $$rc != 0 ]; then exit 1; fi; \
	 PYTHON=$(PYTHON) sh tests/slides.sh $(B)/qkvtutor

# The Debian package: built, its file list and control checked, lintian clean
# (tests/deb.sh). dpkg-dev and lintian are installed when missing; without
# apt-get the suite is skipped when dpkg-dev is missing, and runs without
# lintian when only lintian is.
deb-check: all
	@sh tests/need.sh deb-check dpkg-dev sh -c 'command -v dpkg-deb && command -v dpkg-shlibdeps'; rc=$$?; \
	 if [ $$rc = 3 ]; then exit 0; elif [ $$rc != 0 ]; then exit 1; fi; \
	 QKV_SKIP_DIR= sh tests/need.sh deb-check lintian lintian --version; rc=$$?; \
	 if [ $$rc = 3 ]; then echo "deb: lintian skipped"; elif [ $$rc != 0 ]; then exit 1; fi; \
	 $(MAKE) --no-print-directory deb >/dev/null && sh tests/deb.sh $(DEB) $(VERSION) $(MO)
# --worksheet, --answers, --variant: goldens, the key against --json, the
# tables rendered by cmark-gfm (installed when missing; without apt-get the
# suite is counted as skipped)
# (tests/worksheet.sh), and --json --variant K against numpy's seed K
# (tests/numpy/variant.py; python3-numpy and python3-yaml installed when
# missing, skipped without apt-get like the numpy suite).
# Then tests/worksheet_solve.py solves every built-in lesson's sheet (and
# tests/worksheet/solve-all.yaml's and solve-modern.yaml's, the latter with
# every action of lessons 10-13) from its Markdown alone, the lesson's own
# and variants 1-30, en and zh, and must reproduce every answer of the key;
# its self-test first shows that a sheet missing a given fails.
worksheet: $(B)/qkvtutor $(MO)
	@sh tests/need.sh worksheet cmark-gfm sh -c 'command -v cmark-gfm'; [ $$? != 1 ] || exit 1
	@sh tests/worksheet.sh $(B)/qkvtutor
	@sh tests/need.sh worksheet "python3-numpy python3-yaml" $(PYTHON) -c 'import numpy, yaml'; rc=$$?; \
	 if [ $$rc = 3 ]; then exit 0; elif [ $$rc != 0 ]; then exit 1; fi; \
	 $(PYTHON) tests/numpy/variant.py $(B)/qkvtutor && \
	 { $(PYTHON) tests/worksheet_solve.py --self-test $(B)/qkvtutor >$(B)/worksheet-self-test.txt || \
	   { cat $(B)/worksheet-self-test.txt; false; }; } && tail -n 1 $(B)/worksheet-self-test.txt && \
	 $(PYTHON) tests/worksheet_solve.py $(B)/qkvtutor $(LESSONS) tests/worksheet/solve-all.yaml \
	   tests/worksheet/solve-modern.yaml tests/worksheet/solve-cross.yaml tests/worksheet/solve-model.yaml \
	   tests/worksheet/solve-model2.yaml tests/worksheet/solve-model3.yaml

# --class as README.md prints it: its command run as written, the PDFs'
# pages (A4, Letter, a new page per student), no table off the page, the
# Chinese kept (tests/worksheet_print.sh). chromium, fonts-noto-cjk and
# poppler-utils are installed when missing (tests/need.sh).
worksheet-print: $(B)/qkvtutor $(MO)
	@sh tests/need.sh worksheet-print "chromium fonts-noto-cjk poppler-utils" sh -c 'command -v chromium && command -v pdfinfo && fc-list | grep -q "Noto Sans CJK"'; rc=$$?; \
	 if [ $$rc = 3 ]; then exit 0; elif [ $$rc != 0 ]; then exit 1; fi; \
	 sh tests/worksheet_print.sh $(B)/qkvtutor

# --json against numpy's pipeline on lesson 01 and 60 random lessons (1e-12),
# and training (tests/numpy/grad.py): the gradient and 100 steps (1e-12);
# the core's modern options through tests/modern_dump (tests/numpy/modern.py);
# every --json number of every built-in lesson and of the 64-token 8-head
# lesson read back bit for bit and in the fewest digits (tests/numpy/json_roundtrip.py);
# cross-attention and padding keys on 150 random lessons (tests/numpy/cross.py, 1e-12).
# python3-numpy and python3-yaml are installed when missing (tests/need.sh);
# without apt-get the suite is skipped, and `make test` counts it so.
PYTHON ?= /usr/bin/python3
numpy: $(B)/qkvtutor $(B)/tests/modern_dump
	@sh tests/need.sh numpy "python3-numpy python3-yaml" $(PYTHON) -c 'import numpy, yaml'; rc=$$?; \
	 if [ $$rc = 3 ]; then exit 0; elif [ $$rc != 0 ]; then exit 1; fi; \
	 $(PYTHON) tests/numpy/compare.py $(B)/qkvtutor && $(PYTHON) tests/numpy/grad.py $(B)/qkvtutor && \
	 $(PYTHON) tests/numpy/modern.py $(B)/tests/modern_dump && $(PYTHON) tests/numpy/json_roundtrip.py $(B)/qkvtutor && \
	 $(PYTHON) tests/numpy/lessons_modern.py $(B)/qkvtutor && $(PYTHON) tests/numpy/model_lesson.py $(B)/qkvtutor && \
	 $(PYTHON) tests/numpy/cross.py $(B)/qkvtutor 150

# A whole model (core/model.h) against an independent torch float64 model
# (tests/model_ref.py): every stage of 1000 random models to 1e-12, numpy's
# draw order bit for bit, the sampled prediction, and torch's nn.LayerNorm,
# RMSNorm, F.gelu and nn.TransformerEncoderLayer against our block.
# Then 300 random model lessons' --json (tests/model_lesson_ref.py): every
# array against a torch forward of the YAML it wrote, random: and file: weights.
# python3-torch is installed when missing (tests/need.sh); without apt-get
# the suite is skipped, and `make test` counts it so.
torch: $(B)/tests/model_dump $(B)/qkvtutor
	@sh tests/need.sh torch "python3-torch python3-numpy" $(PYTHON) -c 'import torch, numpy'; rc=$$?; \
	 if [ $$rc = 3 ]; then exit 0; elif [ $$rc != 0 ]; then exit 1; fi; \
	 $(PYTHON) tests/model_ref.py $(B)/tests/model_dump 1000 && \
	 $(PYTHON) tests/train_ref.py $(B)/tests/model_dump 120 && \
	 $(PYTHON) tests/model_lesson_ref.py $(B)/qkvtutor 300

# AddressSanitizer + UndefinedBehaviorSanitizer build of the unit tests.
asan:
	@$(MAKE) --no-print-directory -j2 B=$(B)/asan OPT='-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all' \
	   $(UNIT_TESTS:%=$(B)/asan/tests/%) $(VIEW_TESTS:%=$(B)/asan/tests/%)
	@$(MAKE) --no-print-directory B=$(B)/asan OPT='-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all' unit

# Every suite, each in its own make, all of them even when one fails. A suite
# whose tool cannot be had (no apt-get to install it: tests/need.sh) exits 0
# but leaves $(B)/suites/NAME, so it is counted as skipped, not passed; a
# cmocka binary whose tests were all skipped fails its suite (CMOCKA_RUN).
# The last line is "suites: N passed, M failed, K skipped"; under CI=true a
# skipped suite makes `make test` fail.
TEST_SUITES = arch unit oom truth keys-doc check-lessons bad-lessons cli train-cli installer svg slides numpy torch worksheet worksheet-print install-check deb-check e2e hostile valgrind fuzz-smoke asan web-test
# What the suites run, built first two at a time (a suite's own rule would
# build its part alone, one file after another).
TEST_BINS = $(UNIT_TESTS:%=$(B)/tests/%) $(VIEW_TESTS:%=$(B)/tests/%) $(B)/tests/test_oom $(B)/tests/truth_render \
            $(B)/tests/keys_table $(B)/tests/svg_screen $(B)/tests/modern_dump $(B)/tests/model_dump $(B)/tests/save_interrupt $(MO)
# The suites that build and run in a tree of their own go in a second lane,
# beside the others (tests/suites.sh): both cores work, as the builds do.
TEST_HEAVY = valgrind fuzz-smoke asan
test:
	@$(MAKE) --no-print-directory -j2 all $(TEST_BINS)
	@MAKE="$(MAKE)" sh tests/suites.sh $(B)/suites "$(TEST_HEAVY)" $(TEST_SUITES)

# The fast suites (DESIGN.md: at most 90 s), for every change: the shape of
# the code, the unit and view tests (in the second lane, beside the rest),
# the key table, --check of every lesson, the bad lessons, the command line
# and the installer. `make test` runs these and the rest.
CHECK_SUITES = arch unit keys-doc check-lessons bad-lessons cli installer
CHECK_BINS   = $(UNIT_TESTS:%=$(B)/tests/%) $(VIEW_TESTS:%=$(B)/tests/%) $(B)/tests/keys_table $(MO)
check:
	@$(MAKE) --no-print-directory -j2 all $(CHECK_BINS)
	@MAKE="$(MAKE)" sh tests/suites.sh $(B)/check "unit" $(CHECK_SUITES)

# The installer (tests/apt.sh, through tests/need.sh) against a fake apt-get:
# it waits for another apt's lock and prints apt's reason when it fails.
installer:
	@sh tests/apt_test.sh

# Install into a scratch DESTDIR and use the binary from another directory;
# lint the man page when man is available.
install-check: all
	@d=$$(mktemp -d); $(MAKE) --no-print-directory install DESTDIR=$$d PREFIX=/usr >/dev/null && \
	 (cd / && $$d/usr/bin/qkvtutor --check 1 >/dev/null && $$d/usr/bin/qkvtutor --lang zh --help | grep -q "用法") && \
	 test -f $$d/usr/share/qkvtutor/lessons/01-three-tokens.yaml && test -f $$d/usr/share/man/man1/qkvtutor.1 && \
	 (for w in $(LESSON_FILES); do cmp -s $$w $$d/usr/share/qkvtutor/$$w || exit 1; done) && \
	 (for f in $(LESSONS); do grep -q '^ *file:' $$f || continue; cd / && $$d/usr/bin/qkvtutor --check $$d/usr/share/qkvtutor/$$f >/dev/null && \
	   $$d/usr/bin/qkvtutor --check $$(basename $$f .yaml) >/dev/null || { echo "install: $$f does not load"; exit 1; }; done) && \
	 test -f $$d/usr/share/man/zh_CN/man1/qkvtutor.1 && test -f $$d/usr/share/doc/qkvtutor/README.md && \
	 test -f $$d/usr/share/applications/qkvtutor.desktop && test -f $$d/usr/share/icons/hicolor/scalable/apps/qkvtutor.svg && \
	 grep -q '^\.I /usr/share/qkvtutor/lessons/$$' $$d/usr/share/man/man1/qkvtutor.1 && \
	 grep -q '^\.I /usr/share/qkvtutor/lessons/$$' $$d/usr/share/man/zh_CN/man1/qkvtutor.1 && \
	 ! grep -q '@[A-Z]*DIR@' $$d/usr/share/man/man1/qkvtutor.1 $$d/usr/share/man/zh_CN/man1/qkvtutor.1 && \
	 $(MAKE) --no-print-directory uninstall DESTDIR=$$d PREFIX=/usr >/dev/null && \
	 test -z "$$(find $$d -type f)" && rm -rf $$d && echo "install: ok (installed, used from /, uninstalled)" || \
	 { echo "install: FAILED in $$d"; exit 1; }
	@if command -v man >/dev/null 2>&1; then for m in $(MAN_PAGES); do \
	   w=$$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -l $$m 2>&1 >/dev/null); \
	   if [ -n "$$w" ]; then echo "man: $$m: warnings:"; echo "$$w"; exit 1; else echo "man: $$m is clean"; fi; done; \
	 else echo "man: skipped, man is not installed"; fi

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(PREFIX)/share/man/zh_CN/man1 \
	  $(DESTDIR)$(DATADIR)/lessons $(DESTDIR)$(DOCDIR) $(DESTDIR)$(APPDIR) $(DESTDIR)$(ICONDIR)
	install -m 755 $(B)/qkvtutor $(DESTDIR)$(BINDIR)/qkvtutor
	$(MAN_SED) src/man/qkvtutor.1 >$(DESTDIR)$(MANDIR)/qkvtutor.1
	$(MAN_SED) src/man/zh_CN/qkvtutor.1 >$(DESTDIR)$(PREFIX)/share/man/zh_CN/man1/qkvtutor.1
	chmod 644 $(DESTDIR)$(MANDIR)/qkvtutor.1 $(DESTDIR)$(PREFIX)/share/man/zh_CN/man1/qkvtutor.1
	install -m 644 README.md $(DESTDIR)$(DOCDIR)/README.md
	install -m 644 src/debian/qkvtutor.desktop $(DESTDIR)$(APPDIR)/qkvtutor.desktop
	install -m 644 src/debian/qkvtutor.svg $(DESTDIR)$(ICONDIR)/qkvtutor.svg
	install -m 644 $(LESSONS) lessons/README.md $(DESTDIR)$(DATADIR)/lessons/
	$(if $(LESSON_FILES),install -d $(DESTDIR)$(DATADIR)/lessons/weights && install -m 644 $(LESSON_FILES) $(DESTDIR)$(DATADIR)/lessons/weights/)
	for mo in $(MO); do l=$${mo#$(B)/locale/}; l=$${l%%/*}; \
	  install -d $(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES; \
	  install -m 644 $$mo $(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES/qkvtutor.mo; done

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/qkvtutor $(DESTDIR)$(MANDIR)/qkvtutor.1 $(DESTDIR)$(PREFIX)/share/man/zh_CN/man1/qkvtutor.1
	rm -f $(DESTDIR)$(APPDIR)/qkvtutor.desktop $(DESTDIR)$(ICONDIR)/qkvtutor.svg
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)
	for po in $(PO); do l=$$(basename $$po .po); rm -f $(DESTDIR)$(LOCALEDIR)/$$l/LC_MESSAGES/qkvtutor.mo; done

clean:
	rm -rf $(B)

# --- the Debian package ------------------------------------------------------------
# `make deb` stages the package's tree under $(B)/deb/root and builds
# $(B)/qkvtutor_VERSION_ARCH.deb with dpkg-deb. Its binary is compiled
# again in $(B)/debbuild for Debian: PREFIX /usr, dpkg-buildflags' CFLAGS,
# CPPFLAGS and LDFLAGS with hardening=+all (stack protector, fortified
# functions, PIE, full RELRO), every library shared (the Depends come from
# dpkg-shlibdeps). The binary is stripped; the man pages (English and
# Chinese, their FILES naming /usr) and the changelog are gzipped -9n (no
# timestamp); README.md, the desktop entry and its icon go in; everything
# is owned by root. The version has no Debian revision, so the package is
# native and its changelog is changelog.gz (lintian:
# wrong-name-for-changelog-of-native-package for changelog.Debian.gz,
# duplicate-changelog-files for both). The one lintian override
# (src/debian/lintian-overrides) says why.
DEB_ARCH = $(shell dpkg --print-architecture 2>/dev/null)
DEB      = $(B)/qkvtutor_$(VERSION)_$(DEB_ARCH).deb
DEB_ROOT = $(B)/deb/root
DEB_DOC  = $(DEB_ROOT)/usr/share/doc/qkvtutor
DEB_BIN  = $(B)/debbuild/qkvtutor
DEB_MAN_SED = sed -e 's|@DATADIR@|/usr/share/qkvtutor|g' -e 's|@LOCALEDIR@|/usr/share/locale|g' \
              -e 's|@DOCDIR@|/usr/share/doc/qkvtutor|g'

deb-bin: deps
	@command -v dpkg-buildflags >/dev/null || { echo "deb: needs dpkg-buildflags (package dpkg-dev)"; exit 1; }
	@export DEB_BUILD_MAINT_OPTIONS=hardening=+all; \
	 $(MAKE) --no-print-directory -j2 B=$(B)/debbuild PREFIX=/usr STATIC= \
	   OPT="$$(dpkg-buildflags --get CFLAGS) $$(dpkg-buildflags --get CPPFLAGS)" \
	   LDFLAGS="$$(dpkg-buildflags --get LDFLAGS)" $(DEB_BIN) | grep -v '^cc ' || true; test -x $(DEB_BIN)

deb: $(DEB)
$(DEB): deb-bin $(MO) $(LESSONS) $(LESSON_FILES) lessons/README.md $(MAN_PAGES) README.md $(wildcard src/debian/*) LICENSE
	@command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null || \
	 { echo "deb: needs dpkg-deb and dpkg-shlibdeps (packages dpkg and dpkg-dev)"; exit 1; }
	@rm -rf $(DEB_ROOT) $(B)/deb/shlibs && umask 022 && \
	 install -d $(DEB_ROOT)/DEBIAN $(DEB_ROOT)/usr/bin $(DEB_ROOT)/usr/share/man/man1 \
	   $(DEB_ROOT)/usr/share/man/zh_CN/man1 $(DEB_ROOT)/usr/share/qkvtutor/lessons $(DEB_DOC) \
	   $(DEB_ROOT)/usr/share/applications $(DEB_ROOT)/usr/share/icons/hicolor/scalable/apps \
	   $(DEB_ROOT)/usr/share/lintian/overrides && \
	 strip --remove-section=.comment --remove-section=.note -o $(DEB_ROOT)/usr/bin/qkvtutor $(DEB_BIN) && \
	 chmod 755 $(DEB_ROOT)/usr/bin/qkvtutor && \
	 $(DEB_MAN_SED) src/man/qkvtutor.1 | gzip -9n >$(DEB_ROOT)/usr/share/man/man1/qkvtutor.1.gz && \
	 $(DEB_MAN_SED) src/man/zh_CN/qkvtutor.1 | gzip -9n >$(DEB_ROOT)/usr/share/man/zh_CN/man1/qkvtutor.1.gz && \
	 install -m 644 $(LESSONS) lessons/README.md $(DEB_ROOT)/usr/share/qkvtutor/lessons/ && \
	 $(if $(LESSON_FILES),install -d $(DEB_ROOT)/usr/share/qkvtutor/lessons/weights && \
	   install -m 644 $(LESSON_FILES) $(DEB_ROOT)/usr/share/qkvtutor/lessons/weights/ &&) \
	 for mo in $(MO); do l=$${mo#$(B)/locale/}; l=$${l%%/*}; \
	   install -d $(DEB_ROOT)/usr/share/locale/$$l/LC_MESSAGES && \
	   install -m 644 $$mo $(DEB_ROOT)/usr/share/locale/$$l/LC_MESSAGES/qkvtutor.mo || exit 1; done && \
	 install -m 644 src/debian/copyright $(DEB_DOC)/copyright && \
	 install -m 644 README.md $(DEB_DOC)/README.md && \
	 gzip -9n <src/debian/changelog >$(DEB_DOC)/changelog.gz && \
	 install -m 644 src/debian/qkvtutor.desktop $(DEB_ROOT)/usr/share/applications/qkvtutor.desktop && \
	 install -m 644 src/debian/qkvtutor.svg $(DEB_ROOT)/usr/share/icons/hicolor/scalable/apps/qkvtutor.svg && \
	 install -m 644 src/debian/lintian-overrides $(DEB_ROOT)/usr/share/lintian/overrides/qkvtutor && \
	 chmod 644 $(DEB_ROOT)/usr/share/man/man1/qkvtutor.1.gz $(DEB_ROOT)/usr/share/man/zh_CN/man1/qkvtutor.1.gz \
	   $(DEB_DOC)/changelog.gz && \
	 mkdir -p $(B)/deb/shlibs/debian && \
	 printf 'Source: qkvtutor\n\nPackage: qkvtutor\nArchitecture: any\n' >$(B)/deb/shlibs/debian/control && \
	 depends=$$(cd $(B)/deb/shlibs && dpkg-shlibdeps -O -e$(abspath $(DEB_ROOT))/usr/bin/qkvtutor 2>/dev/null | \
	   sed -n 's/^shlibs:Depends=//p') && [ -n "$$depends" ] || { echo "deb: dpkg-shlibdeps found no dependencies"; exit 1; }; \
	 size=$$(du -sk --exclude=DEBIAN $(DEB_ROOT) | cut -f1) && \
	 sed -e 's/@VERSION@/$(VERSION)/' -e 's/@ARCH@/$(DEB_ARCH)/' -e "s/@SIZE@/$$size/" -e "s/@DEPENDS@/$$depends/" \
	   $(if $(HOMEPAGE),-e 's|@HOMEPAGE@|$(HOMEPAGE)|',-e '/^Homepage:/d') src/debian/control >$(DEB_ROOT)/DEBIAN/control && \
	 (cd $(DEB_ROOT) && find usr -type f | LC_ALL=C sort | xargs md5sum >DEBIAN/md5sums) && \
	 chmod 644 $(DEB_ROOT)/DEBIAN/control $(DEB_ROOT)/DEBIAN/md5sums && \
	 dpkg-deb --root-owner-group -Zxz --build $(DEB_ROOT) $@ >/dev/null && echo "deb: $@ (Depends: $$depends)"

# Fuzzing (libFuzzer) and the benchmark have their own rules.
include tests/fuzz/fuzz.mk
include tests/bench/bench.mk
include src/web/web.mk

# A model lesson's worksheet parts (out/mworksheet.c), linked wherever worksheet.o is.
$(B)/tests/test_oom $(B)/tests/test_saveplay $(B)/tests/test_modeljson $(VIEW_TESTS:%=$(B)/tests/%): $(B)/out/mworksheet.o
