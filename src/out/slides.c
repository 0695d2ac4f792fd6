/* slides.c - --slides --out DIR: a lesson as a deck of SVG slides and an
 * index.html that steps through them (see svg.h). No curses here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/attn.h"
#include "lesson/ask.h"
#include "text/i18n.h"
#include "words/live.h"
#include "lesson/session.h"
#include "svg.h"
#include "outdir.h"

/* The asked cell focused, as the view's reveal does (keys.c focus_ask):
 * the arithmetic then works the answer out. */
static void focus_ask(const Session *s, const Ask *a, SvgFocus *f)
{
    if (a->mref.kind != MM_NONE) { /* a model's: the stage explains the asked matrix (layout.h) */
        MatId b = a->mref.kind == MM_ATTN ? attn_mat_base(a->mref.attn) : M_X;
        if (b >= M_Q && b <= M_V)
            f->fmat = b;
        f->fi = a->i;
        if (a->j >= 0)
            f->fj = a->j;
        layout_clamp_focus(s, &f->fi, &f->fj, f->fmat);
        return;
    }
    int st = session_stage(s);
    bool qkv = st == STAGE_QKV && a->mat >= M_Q && a->mat <= M_V;
    if (a->mat != attn_stage_mat(st) && !qkv)
        return;
    if (qkv)
        f->fmat = a->mat;
    f->fi = a->i;
    if (a->j >= 0)
        f->fj = a->j;
    layout_clamp_focus(s, &f->fi, &f->fj, f->fmat);
}

/* Reveal every open ask of this step; msg gets "Answer: S[1][2] = 0.006". */
static void reveal(Session *s, const Lesson *l, const SvgOpt *o, SvgFocus *f, char *msg, size_t len)
{
    char list[512] = "", name[32], vals[96];
    FmtOpt fo = {l->digits, o->ascii, false};
    const Ask *last = NULL;
    for (int k = 0; k < session_ask_count(s); k++)
        if (session_ask_state(s, k) == ASK_OPEN) {
            last = session_ask_at(s, k);
            ask_name(last, name, sizeof name);
            session_ask_values(s, last, &fo, vals, sizeof vals);
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s = %s", list[0] ? "; " : "", name, vals);
        }
    session_ask_reveal(s);
    if (last)
        focus_ask(s, last, f);
    snprintf(msg, len, _("Answer: %s."), list);
}

/* The HTML text of s: & < > escaped. */
static void html_put(FILE *out, const char *s)
{
    for (; *s; s++)
        if (*s == '&')
            fputs("&amp;", out);
        else if (*s == '<')
            fputs("&lt;", out);
        else if (*s == '>')
            fputs("&gt;", out);
        else if (*s == '"')
            fputs("&quot;", out);
        else
            fputc(*s, out);
}

/* The speaker notes of the slide showing s: the step's whole narration as
 * the slide's moment has it (open asks as "?"), after the lesson's about:
 * on the first slide. malloc'd ("" when there is none), NULL when out of
 * memory. */
static char *slide_notes(const Session *s, const Lesson *l, const SvgOpt *o, bool first)
{
    char *say = session_say(s, o->lang, o->ascii), *about = first ? lesson_about_text(l, o->lang, o->ascii) : NULL;
    char *a = about ? fmt_prose(about, o->ascii) : NULL, *b = say ? fmt_prose(say, o->ascii) : NULL;
    size_t len = (a ? strlen(a) : 0) + (b ? strlen(b) : 0) + 2;
    char *notes = b ? malloc(len) : NULL;
    if (notes)
        snprintf(notes, len, "%s%s%s", a ? a : "", a && *a && *b ? "\n" : "", b);
    free(a);
    free(b);
    free(about);
    free(say);
    return notes;
}

/* The notes as paragraphs (one per line of text). */
static void notes_put(FILE *out, const char *notes)
{
    fputs("<aside class=\"notes\">", out);
    for (const char *p = notes; p && *p;) {
        size_t n = strcspn(p, "\n");
        char *para = strndup(p, n);
        fputs("<p>", out);
        if (para)
            html_put(out, para);
        fputs("</p>", out);
        free(para);
        p += n + (p[n] == '\n');
    }
    fputs("</aside>\n", out);
}

/* index.html: every slide as an <img>, one shown at a time, each with its
 * speaker notes (N shows them under the slide); the corner names the step as
 * the slide's header does ("step 4/14, question"). The script needs no
 * network and works from file://. */
static void write_index(FILE *out, const char *title, char (*label)[64], char **notes, int n, const SvgOpt *o)
{
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n<title>",
            o->lang == LANG_ZH ? "zh-CN" : "en");
    html_put(out, title);
    fputs("</title>\n<style>\n"
          "html, body { margin: 0; height: 100%; background: #000; overflow: hidden; }\n"
          "#deck img { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: contain; display: none; }\n"
          "#deck img.on { display: block; }\n"
          "#count { position: fixed; right: 0.8em; bottom: 0.5em; font: 16px sans-serif; color: #888; }\n"
          ".notes { display: none; }\n"
          "body.notes .notes.on { display: block; position: fixed; left: 0; right: 0; bottom: 0; max-height: 45%; "
          "overflow-y: auto; margin: 0; padding: .6em 1.2em 1.8em; background: rgba(0, 0, 0, .88); color: #eee; "
          "font: 22px/1.4 sans-serif; }\n"
          ".notes p { margin: .3em 0; }\n"
          "@media print { #deck img { position: static; display: block; height: auto; page-break-after: always; }\n"
          "  #count, .notes { display: none; } body { overflow: visible; } }\n"
          "</style>\n</head>\n<body>\n<div id=\"deck\">\n",
          out);
    for (int k = 0; k < n; k++) {
        fprintf(out, "<img src=\"slide-%03d.svg\" alt=\"", k + 1);
        html_put(out, label[k]);
        fputs("\">\n", out);
        notes_put(out, notes[k]);
    }
    fputs("</div>\n<div id=\"count\"></div>\n<script>\n"
          "(function () {\n"
          "  var s = document.querySelectorAll('#deck img'), notes = document.querySelectorAll('#deck .notes');\n"
          "  var n = s.length, at = 0, count = document.getElementById('count');\n"
          "  function show(k) {\n"
          "    at = Math.max(0, Math.min(n - 1, k));\n"
          "    for (var i = 0; i < n; i++) { s[i].className = i === at ? 'on' : ''; "
          "notes[i].className = i === at ? 'notes on' : 'notes'; }\n"
          "    count.textContent = s[at].alt;\n"
          "    document.title = s[at].alt;\n"
          "    if (location.hash !== '#' + (at + 1)) history.replaceState(null, '', '#' + (at + 1));\n"
          "  }\n"
          "  var next = { ArrowRight: 1, ArrowDown: 1, PageDown: 1, ' ': 1, Spacebar: 1, Enter: 1, n: 1 };\n"
          "  var back = { ArrowLeft: 1, ArrowUp: 1, PageUp: 1, Backspace: 1, P: 1, p: 1 };\n"
          "  document.addEventListener('keydown', function (e) {\n"
          "    if (e.altKey || e.ctrlKey || e.metaKey) return;\n"
          "    if (next[e.key]) show(at + 1);\n"
          "    else if (back[e.key]) show(at - 1);\n"
          "    else if (e.key === 'Home') show(0);\n"
          "    else if (e.key === 'End') show(n - 1);\n"
          "    else if (e.key === 'N') document.body.classList.toggle('notes');\n"
          "    else return;\n"
          "    e.preventDefault();\n"
          "  });\n"
          "  document.addEventListener('click', function (e) { show(e.clientX < window.innerWidth / 4 ? at - 1 : at + 1); });\n"
          "  window.addEventListener('hashchange', function () { show(parseInt(location.hash.slice(1), 10) - 1 || 0); });\n"
          "  show(parseInt(location.hash.slice(1), 10) - 1 || 0);\n"
          "})();\n"
          "</script>\n</body>\n</html>\n",
          out);
}

/* One slide into dir/slide-NNN.svg; label gets its name. */
static int one_slide(OutSet *dir, int k, const Session *s, const SvgOpt *o, const SvgFocus *f, const char *msg,
                     bool chrome, const char *label)
{
    char file[32], path[4200];
    snprintf(file, sizeof file, "slide-%03d.svg", k);
    FILE *out = out_open(dir, file, path, sizeof path);
    if (!out)
        return 2;
    if (!svg_frame(out, s, o, f, msg, chrome ? SVG_CHROME : SVG_SLIDE, label)) {
        fprintf(stderr, "%s\n", _("qkvtutor: out of memory"));
        return 2; /* out_end removes it */
    }
    return out_close(dir, out) ? 0 : 2;
}

int slides_write(const Lesson *l, const SvgOpt *o, const char *dir, bool chrome)
{
    OutSet set; /* every slide and index.html, or none (outdir.h) */
    if (!out_begin(&set, dir))
        return 2;
    Lesson from_first = *l; /* from the first step with "next", as a class goes through it */
    from_first.start = 0;
    Session s;
    /* a slide per step, and one more per step that asks */
    char (*label)[64] = malloc(sizeof *label * (size_t)(2 * l->nsteps + 1));
    char **notes = calloc((size_t)(2 * l->nsteps + 1), sizeof *notes);
    if (!label || !notes || !session_init(&s, &from_first)) {
        free(label);
        free(notes);
        out_end(&set, false);
        fprintf(stderr, "%s\n", _("qkvtutor: out of memory"));
        return 2;
    }
    char title[512], name[700], msg[600];
    text_sanitize(text_get(&l->title, o->lang), title, sizeof title, o->ascii);
    SvgFocus f = {0, 0, false, M_Q};
    svg_focus_step(&s, &f);
    int n = 0, rc = 0;
    for (int step = 1; rc == 0; step++) {
        bool asks = session_ask_open(&s) >= 0;
        snprintf(label[n], sizeof label[n], asks ? _("step %d/%d, question") : _("step %d/%d"), step, l->nsteps);
        snprintf(name, sizeof name, "qkvtutor: %s (%s)", title, label[n]);
        notes[n] = slide_notes(&s, l, o, n == 0);
        rc = one_slide(&set, ++n, &s, o, &f, "", chrome, name);
        if (rc == 0 && asks) {
            reveal(&s, l, o, &f, msg, sizeof msg);
            notes[n] = slide_notes(&s, l, o, false);
            snprintf(label[n], sizeof label[n], _("step %d/%d, answer"), step, l->nsteps);
            snprintf(name, sizeof name, "qkvtutor: %s (%s)", title, label[n]);
            rc = one_slide(&set, ++n, &s, o, &f, msg, chrome, name);
        }
        if (rc != 0 || !session_next(&s))
            break;
        svg_focus_step(&s, &f);
    }
    session_free(&s);
    if (rc == 0) {
        char path[4200];
        FILE *out = out_open(&set, "index.html", path, sizeof path);
        snprintf(name, sizeof name, "qkvtutor: %s", title);
        if (out)
            write_index(out, name, label, notes, n, o);
        rc = out && out_close(&set, out) ? 0 : 2;
    }
    for (int k = 0; k < n; k++)
        free(notes[k]);
    free(notes);
    free(label);
    return out_end(&set, rc == 0) ? 0 : 2;
}
