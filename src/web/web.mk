# src/web/web.mk - `make web`: the browser build (DESIGN.md "In the browser").
# Included by the Makefile. build/web/ is a static folder: index.html,
# web.js, web.css and qkvtutor.js (the wasm inside it, so the page works
# from file://, where a browser fetches no separate .wasm). Copy the folder
# as it is to any static host. src/web/embed.js puts the wasm's bytes into
# qkvtutor.js as one string (348 KB gzipped where -sSINGLE_FILE's base64 is
# 443 KB) and src/web/pre.js hands them to emscripten's loader, so it never
# fetch()es anything (the page's Content-Security-Policy would refuse it).
#
# The page parses its lessons with libyaml: QKV_NO_RECORDINGS leaves out the
# native build's recorded YAML events (src/lesson/ydoc.h) and their replay,
# which would add 78 KB to the gzipped page (424 KB against 356 KB, over the
# 350 KB budget).
#
# The same C as the terminal's, compiled with Debian's emscripten: core,
# text, lesson, words, layout and ui, the built-in lessons and the zh_CN catalogue
# (src/web/gettext.c reads the .mo), and libyaml from Debian's source
# package (src/web/libyaml.sh: apt-get source). emscripten is installed
# when missing (tests/need.sh). Debian's emcc needs NODE_PATH for acorn.

EMCC      ?= emcc
EMENV      = NODE_PATH=/usr/share/nodejs
WEB        = $(B)/web
WASM       = $(B)/wasm
WEB_LIB    = $(wildcard src/core/*.c src/lesson/*.c src/text/*.c src/words/*.c src/layout/*.c src/ui/*.c)
WEB_OWN    = $(wildcard src/web/*.c)
WEB_OBJ    = $(WEB_LIB:src/%.c=$(WASM)/%.o) $(WEB_OWN:src/%.c=$(WASM)/%.o) $(WASM)/lessons.o $(WASM)/mo.o
WEB_FILES  = $(WEB)/index.html $(WEB)/web.js $(WEB)/web.css
WEB_CFLAGS = -std=c11 -D_DEFAULT_SOURCE $(WARN) -Os -Isrc -I$(WASM)/yaml/include -DYAML_DECLARE_STATIC \
             -DQKV_VERSION='"$(VERSION)"' -DQKV_LOCALEDIR='"/locale"' -DQKV_DATADIR='"/"' \
             -DQKV_NO_RECORDINGS
WEB_EXPORTS = _web_init,_web_info,_web_open,_web_open_yaml,_web_resize,_web_key,_web_click,\
              _web_wheel,_web_frame,_web_saved,_web_free,_web_width,_web_error,_web_tr,_web_tick,_web_losses,_malloc,_free
WEB_LDFLAGS = -Os --pre-js src/web/pre.js -sMODULARIZE=1 -sEXPORT_NAME=qkvtutor -sALLOW_MEMORY_GROWTH=1 \
              -sENVIRONMENT=web -sEXPORTED_FUNCTIONS=$(subst $(eval) ,,$(WEB_EXPORTS)) \
              -sEXPORTED_RUNTIME_METHODS=UTF8ToString,stringToUTF8,lengthBytesUTF8

.PHONY: web web-deps web-test bench-web
web: $(WEB)/qkvtutor.js $(WEB_FILES)
	@echo "web: $(WEB)/ is the page: $$(cat $(WEB)/* | gzip -9 | wc -c) bytes gzipped"

# emcc, installed from Debian when missing.
web-deps: $(WASM)/.emcc
$(WASM)/.emcc:
	@mkdir -p $(WASM)
	@sh tests/need.sh web emscripten sh -c 'command -v $(EMCC)'; rc=$$?; \
	 if [ $$rc = 3 ]; then echo "web: needs emscripten (Debian: apt-get install emscripten)"; exit 1; \
	 elif [ $$rc != 0 ]; then exit 1; fi
	@touch $@

# libyaml from Debian's source package, compiled for wasm.
$(WASM)/libyaml.a: src/web/libyaml.sh | $(WASM)/.emcc
	@mkdir -p $(WASM)/yaml/obj
	@src=$$(sh src/web/libyaml.sh $(B)/libyaml) || exit 1; \
	 rm -rf $(WASM)/yaml/include && cp -r $$src/include $(WASM)/yaml/include && \
	 v=$$(basename $$src); v=$${v#libyaml-}; \
	 for f in $$src/src/*.c; do \
	   $(EMENV) $(EMCC) -O2 -w -DYAML_DECLARE_STATIC -DYAML_VERSION_STRING="\"$$v\"" \
	     -DYAML_VERSION_MAJOR=$${v%%.*} -DYAML_VERSION_MINOR=$$(echo $$v | cut -d. -f2) \
	     -DYAML_VERSION_PATCH=$$(echo $$v | cut -d. -f3) -I$$src/include -I$$src/src \
	     -c $$f -o $(WASM)/yaml/obj/$$(basename $$f .c).o || exit 1; done; \
	 rm -f $@ && $(EMENV) emar rcs $@ $(WASM)/yaml/obj/*.o && echo "web: libyaml $$v from Debian's source package"

# The arithmetic that training runs (core/: the forward, backpropagation,
# Adam) at -O2, the rest at -Os: a step of lesson 18 in headless chromium
# 10.0 ms against 12.6 ms at -Os (3 ms native), for 2.6 KB more gzipped.
# No -ffast-math: the same doubles. -msimd128 gave 6.0 ms (+3.9 KB), left
# out: a browser without wasm SIMD (Safari before 16.4) would not start.
$(WASM)/core/%.o: WEB_OPT = -O2
$(WASM)/%.o: src/%.c $(WASM)/libyaml.a
	@mkdir -p $(dir $@)
	$(EMENV) $(EMCC) $(WEB_CFLAGS) $(WEB_OPT) -MMD -MP -c $< -o $@

$(WASM)/lessons.o: $(B)/lessons.c $(WASM)/libyaml.a
	$(EMENV) $(EMCC) $(WEB_CFLAGS) -c $< -o $@

# The Chinese catalogue, as bytes for src/web/gettext.c.
$(WASM)/mo.c: $(B)/locale/zh_CN/LC_MESSAGES/qkvtutor.mo
	@mkdir -p $(WASM)
	@{ echo '/* generated from src/po/zh_CN.po by make web; do not edit */'; \
	   echo '#include <stddef.h>'; echo 'extern const unsigned char web_mo[]; extern const size_t web_mo_len;'; \
	   echo 'const unsigned char web_mo[] = {'; \
	   od -An -v -tx1 $< | sed 's/  */ /g;s/^ //;s/ $$//;s/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	   echo '};'; echo 'const size_t web_mo_len = sizeof web_mo;'; } >$@
$(WASM)/mo.o: $(WASM)/mo.c | $(WASM)/.emcc
	$(EMENV) $(EMCC) $(WEB_CFLAGS) -c $< -o $@

$(WASM)/qkvtutor.js: $(WEB_OBJ) $(WASM)/libyaml.a src/web/pre.js
	$(EMENV) $(EMCC) $(WEB_LDFLAGS) -o $@ $(WEB_OBJ) $(WASM)/libyaml.a
$(WEB)/qkvtutor.js: $(WASM)/qkvtutor.js src/web/embed.js
	@mkdir -p $(WEB)
	node src/web/embed.js $(WASM)/qkvtutor.wasm $(WASM)/qkvtutor.js $@

$(WEB)/%: src/web/%
	@mkdir -p $(WEB)
	cp $< $@

-include $(wildcard $(WASM)/*/*.d)

# --- the browser tests (tests/web.py) --------------------------------------------
# The terminal's screens of every built-in lesson (tests/web_plans.c), and
# --json from the C compiled for wasm, run by node (tests/web_json.c; one
# file, -sSINGLE_FILE: the loader then fetches nothing, a trap with node's
# global fetch).
$(B)/tests/web_plans: $(B)/tests/web_plans.o $(B)/tests/screen.o $(VIEW_OBJ) $(LESSON_OBJ) $(CORE_OBJ) $(B)/lessons.o
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(PKG_LIBS_VIEW) $(PKG_LIBS_YAML) $(LDLIBS_ALL)

WEB_JSON_OBJ = $(WEB_LIB:src/%.c=$(WASM)/%.o) $(WASM)/web/gettext.o $(WASM)/out/render.o $(WASM)/out/statejson.o $(WASM)/out/jsonmat.o $(WASM)/out/modeljson.o $(WASM)/out/dumpgrid.o $(WASM)/out/modeldump.o $(WASM)/out/authoring.o $(WASM)/out/json.o \
               $(WASM)/lessons.o $(WASM)/mo.o $(WASM)/tests/web_json.o
$(WASM)/tests/web_json.o: tests/web_json.c $(WASM)/libyaml.a
	@mkdir -p $(dir $@)
	$(EMENV) $(EMCC) $(WEB_CFLAGS) -MMD -MP -c $< -o $@
$(WASM)/web_json.js: $(WEB_JSON_OBJ) $(WASM)/libyaml.a
	$(EMENV) $(EMCC) -O2 -sSINGLE_FILE=1 -sENVIRONMENT=node -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1 \
	  -o $@ $(WEB_JSON_OBJ) $(WASM)/libyaml.a

# make test's suite: the page in headless chromium against the terminal.
# emscripten, chromium, node and python3 are installed when missing
# (tests/need.sh); without apt-get to install them the suite is skipped.
web-test: all
	@sh tests/need.sh web-test "emscripten chromium nodejs python3" sh -c \
	   'command -v $(EMCC) && command -v chromium && command -v node && command -v python3'; rc=$$?; \
	 if [ $$rc = 3 ]; then exit 0; elif [ $$rc != 0 ]; then exit 1; fi; \
	 $(MAKE) --no-print-directory -j2 web $(B)/tests/web_plans $(WASM)/web_json.js >$(B)/web-build.log 2>&1 || \
	   { cat $(B)/web-build.log; echo "FAIL: web: make web failed"; exit 1; }; \
	 tail -n 1 $(B)/web-build.log; $(PYTHON) tests/web.py $(B)

# make bench's browser part (tests/bench/web_bench.py): the page's gzipped
# size, its first frame and a keypress in headless chromium.
bench-web: web
	@command -v chromium >/dev/null 2>&1 || { echo "bench: web skipped: no chromium"; exit 0; }; \
	 $(PYTHON) tests/bench/web_bench.py $(B)
