# qkvtutor - build, run and test.  `make run` and `make test` set themselves up.

.SUFFIXES:

PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR   = $(PREFIX)/bin
MANDIR   = $(PREFIX)/share/man/man1
DATADIR  = $(PREFIX)/share/qkvtutor
LOCALEDIR = $(PREFIX)/share/locale

VERSION  = 0.1.0
CC       = cc
B        = build
PKGS     = ncursesw yaml-0.1 libcjson cmocka
DEBS     = libncurses-dev libyaml-dev libcjson-dev libcmocka-dev pkg-config gettext tmux

WARN     = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
OPT     ?= -O2 -g
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS_VIEW = $(shell pkg-config --libs ncursesw 2>/dev/null)
PKG_LIBS_YAML = $(shell pkg-config --libs yaml-0.1 2>/dev/null)
PKG_LIBS_JSON = $(shell pkg-config --libs libcjson 2>/dev/null)
PKG_LIBS_TEST = $(shell pkg-config --libs cmocka 2>/dev/null)
CFLAGS_ALL = -std=c11 -D_DEFAULT_SOURCE $(WARN) $(OPT) $(PKG_CFLAGS) \
             -DQKV_VERSION='"$(VERSION)"' -DQKV_LOCALEDIR='"$(LOCALEDIR)"' -DQKV_DATADIR='"$(DATADIR)"' $(CFLAGS)
LDLIBS_ALL = -lm $(LDFLAGS)

CORE_SRC   = $(wildcard src/core/*.c)
LESSON_SRC = $(wildcard src/lesson/*.c)
VIEW_SRC   = $(wildcard src/view/*.c)
MAIN_SRC   = src/main.c src/render.c
LESSONS    = $(sort $(wildcard lessons/*.yaml))

.PHONY: all deps run test unit check-lessons bad-lessons view-test e2e asan golden \
        clean install uninstall bench fuzz screenshots

all: deps $(B)/qkvtutor

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
	     SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	     $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(DEBS) >/dev/null || exit 1; \
	   else \
	     echo "qkvtutor: no apt-get here; please install: $(DEBS)"; exit 1; \
	   fi; \
	 fi
	@touch $@

# The lessons are embedded in the binary: each becomes a byte array.
$(B)/lessons.c: $(LESSONS) Makefile
	@mkdir -p $(B)
	@{ echo '/* generated from lessons/ by make; do not edit */'; \
	   echo '#include "lesson/embedded.h"'; \
	   n=0; for f in $(LESSONS); do \
	     echo "static const unsigned char lesson_$$n[] = {"; \
	     od -An -v -tx1 $$f | sed 's/  */ /g;s/^ //;s/ $$//;s/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	     echo "};"; n=$$((n+1)); done; \
	   echo "const EmbeddedLesson embedded_lessons[] = {"; \
	   n=0; for f in $(LESSONS); do \
	     echo "  {\"$$f\", (const char *)lesson_$$n, sizeof lesson_$$n},"; n=$$((n+1)); done; \
	   echo "  {0, 0, 0}"; echo "};"; \
	   echo "const int embedded_count = $$n;"; } > $@

# --- objects -------------------------------------------------------------
$(B)/%.o: src/%.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Isrc -MMD -MP -c $< -o $@
$(B)/lessons.o: $(B)/lessons.c
	$(CC) $(CFLAGS_ALL) -Isrc -c $< -o $@

CORE_OBJ   = $(CORE_SRC:src/%.c=$(B)/%.o)
LESSON_OBJ = $(LESSON_SRC:src/%.c=$(B)/%.o)
VIEW_OBJ   = $(VIEW_SRC:src/%.c=$(B)/%.o)
MAIN_OBJ   = $(MAIN_SRC:src/%.c=$(B)/%.o) $(B)/lessons.o

$(B)/qkvtutor: $(CORE_OBJ) $(LESSON_OBJ) $(VIEW_OBJ) $(MAIN_OBJ)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS_VIEW) $(PKG_LIBS_YAML) $(PKG_LIBS_JSON) $(LDLIBS_ALL)

-include $(wildcard $(B)/*/*.d $(B)/*.d)

run: all
	$(B)/qkvtutor

# --- tests -----------------------------------------------------------------
# Each test links only what it needs: core tests without curses or libyaml.
CORE_TESTS   = test_mat test_rng test_attn test_explain
LESSON_TESTS = test_text test_action test_load test_session
UNIT_TESTS   = $(CORE_TESTS) $(LESSON_TESTS)

$(B)/tests/%.o: tests/%.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Isrc -Itests -MMD -MP -c $< -o $@

$(CORE_TESTS:%=$(B)/tests/%): $(B)/tests/%: $(B)/tests/%.o $(CORE_OBJ)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS_TEST) $(LDLIBS_ALL)
$(LESSON_TESTS:%=$(B)/tests/%): $(B)/tests/%: $(B)/tests/%.o $(LESSON_OBJ) $(CORE_OBJ) $(B)/lessons.o
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS_YAML) $(PKG_LIBS_TEST) $(LDLIBS_ALL)

# The view tests draw on a headless screen (newterm on /dev/null).
$(B)/tests/test_view: $(B)/tests/test_view.o $(B)/tests/screen.o $(VIEW_OBJ) $(LESSON_OBJ) $(CORE_OBJ) $(B)/lessons.o
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS_VIEW) $(PKG_LIBS_YAML) $(PKG_LIBS_TEST) $(LDLIBS_ALL)

unit: $(UNIT_TESTS:%=$(B)/tests/%) $(B)/tests/test_view
	@set -e; for t in $(UNIT_TESTS) test_view; do echo "== $$t"; $(B)/tests/$$t; done

# Rewrite the golden screens; review the diff before committing.
golden: $(B)/tests/test_view
	QKV_GOLDEN=1 $(B)/tests/test_view
	@git --no-pager diff --stat -- tests/golden 2>/dev/null || true

check-lessons: $(B)/qkvtutor
	@set -e; for f in $(LESSONS); do \
	  for l in en zh; do $(B)/qkvtutor --check --lang $$l $$f >/dev/null || { echo "FAIL: --check $$f ($$l)"; $(B)/qkvtutor --check --lang $$l $$f; exit 1; }; done; \
	  echo "ok: --check $$f (en, zh)"; done

bad-lessons: $(B)/qkvtutor
	@sh tests/bad_lessons.sh $(B)/qkvtutor

# AddressSanitizer + UndefinedBehaviorSanitizer build of the unit tests.
asan:
	@$(MAKE) --no-print-directory B=$(B)/asan OPT='-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all' unit

test: all unit check-lessons bad-lessons asan
	@echo "make test: all passed"

clean:
	rm -rf $(B)
