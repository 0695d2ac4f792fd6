/* ui_int.h - what the UI's files share, and nobody else sees.
 *
 * REQUESTS lists what the user can ask for, with its help text, its key
 * bar label and its handler; BINDINGS (keymap.c) lists the keys for each
 * request, with the label help shows (NULL for a silent alias). The current
 * mode's handler runs first (prompt, edit, help, confirm, answer); keys it
 * does not take fall back to the normal table. Handlers change the View and
 * return FLAG_* for the back end. Only src/ui's own files include this. */
#ifndef QKV_UI_INT_H
#define QKV_UI_INT_H

#include "words/live.h"
#include "ui.h"

#define CTRL(c) ((c) & 0x1f)

typedef int (*Handler)(View *v, UiKey ch);

#define REQUESTS(X) \
    X(REQ_NEXT,    N_("next step"),                         N_("next"),    req_next)    \
    X(REQ_PREV,    N_("previous step"),                     N_("back"),    req_prev)    \
    X(REQ_FIRST,   N_("first / last step"),                 NULL,      req_first)   \
    X(REQ_LAST,    NULL,                                    NULL,      req_last)    \
    X(REQ_STAGE,   N_("jump to that stage"),                NULL,      req_stage)   \
    X(REQ_UP,      N_("focus query row i"),                 NULL,      req_up)      \
    X(REQ_DOWN,    NULL,                                    NULL,      req_down)    \
    X(REQ_LEFT,    N_("focus key column j"),                NULL,      req_left)    \
    X(REQ_RIGHT,   NULL,                                    N_("focus"), req_right) \
    X(REQ_EDIT,    N_("edit mode on the focused row of Q"), N_("edit"),    req_edit)    \
    X(REQ_PROMPT,  N_("action prompt, e.g. Q[1] = K[1] * 5"), N_("action"), req_prompt) \
    X(REQ_SCALE,   N_("toggle scaling: none / divide by sqrt(d_k)"), N_("scale"), req_scale) \
    X(REQ_SOFTMAX, N_("toggle softmax: naive / stable"),    N_("softmax"), req_softmax) \
    X(REQ_MASK,    N_("causal mask; temperature / 2, x 2; positions"), NULL, req_mask) \
    X(REQ_COOLER,  NULL,                                    NULL,      req_cooler)  \
    X(REQ_WARMER,  NULL,                                    NULL,      req_warmer)  \
    X(REQ_POS,     NULL,                                    NULL,      req_pos)     \
    X(REQ_UNDO,    N_("undo / redo / reset to the lesson as written"), N_("undo"), req_undo) \
    X(REQ_REDO,    NULL,                                    NULL,      req_redo)    \
    X(REQ_RESET,   NULL,                                    NULL,      req_reset)   \
    X(REQ_SAVE,    N_("save the current state as a new lesson"), N_("save"), req_save)  \
    X(REQ_ANSWER,  N_("answer a question (ask:); Enter grades it"), NULL, req_answer) \
    X(REQ_LANG,    N_("language (中文 / En); theme; presentation"), N_("中/En"), req_lang) \
    X(REQ_THEME,   NULL,                                    NULL,      req_theme)   \
    X(REQ_PRESENT, NULL,                                    NULL,      req_present) \
    X(REQ_HEAD_PREV, N_("previous / next head (lessons with 2+ heads)"), NULL, req_head_prev) \
    X(REQ_HEAD_NEXT, NULL,                                  NULL,      req_head_next) \
    X(REQ_TARGET,  N_("training: target A's cell / one step / ten"), NULL, req_target) \
    X(REQ_STEP,    NULL,                                    N_("learn"), req_step)    \
    X(REQ_STEP10,  NULL,                                    NULL,      req_step10)  \
    X(REQ_LAYER_PREV, N_("previous / next layer (model lessons)"), NULL, req_layer_prev) \
    X(REQ_LAYER_NEXT, NULL,                                 NULL,      req_layer_next) \
    X(REQ_MODEL_VIEW, N_("model view: every layer and head's pattern with its scores (model lessons)"), NULL, req_model_view) \
    X(REQ_TOKENS,  N_("your own input: opens tokens = ... (model lessons)"), NULL, req_tokens) \
    X(REQ_WATCH,   N_("watch it learn: trains until a key, with the loss curve (model lessons with train:)"), NULL, req_watch) \
    X(REQ_SAY,     N_("the whole narration, where cut / this help"), NULL, req_say) \
    X(REQ_HELP,    NULL,                         N_("help"),    req_help)    \
    X(REQ_QUIT,    N_("quit"),                              N_("quit"),    req_quit)

typedef enum {
#define REQ_ENUM(id, help, bar, fn) id,
    REQUESTS(REQ_ENUM)
#undef REQ_ENUM
    REQ_COUNT
} Request;

/* Every request's handler (requests.c, answer.c, saving.c). */
#define REQ_DECL(id, help, bar, fn) int fn(View *v, UiKey ch);
REQUESTS(REQ_DECL)
#undef REQ_DECL

/* state.c */
void ui_say(View *v, Role r, const char *msg);
void ui_say_change(View *v, EffectWhat what, const char *label);
int ui_act(View *v, const char *text);
void ui_moved(View *v);
bool ui_is_enter(UiKey ch);
bool ui_is_backspace(UiKey ch);
bool ui_answer_key(UiKey ch);
int ui_focus_by(View *v, int di, int dj);
void ui_say_edit_mat(View *v);

/* mkeys.c: g / G in a model lesson (n steps on its loss); u after a watch
 * run (true: the whole run was undone); a key during the watch mode */
int model_steps(View *v, int n);
bool ui_undo_run(View *v);
int ui_watch_stop(View *v);

/* keymap.c */
int keymap_normal_key(View *v, UiKey ch);

/* field.c */
void field_set(Field *f, const char *s);
void field_insert(Field *f, UiKey ch);
bool field_key(Field *f, UiKey ch);
int mode_prompt(View *v, UiKey ch);

/* edit.c */
int mode_edit(View *v, UiKey ch);

/* answer.c */
void answer_reveal(View *v);
int mode_answer(View *v, UiKey ch);

/* saving.c */
int mode_save(View *v, UiKey ch);
int mode_help(View *v, UiKey ch);
int mode_confirm(View *v, UiKey ch);

#endif
