/* frame.c - a View's frame, both ways: the layout's input for it (the
 * state, the key bar of keymap.c, the status line) and which plan cell a
 * mouse click hit (dispatch.c reads it); term/ and web/ paint the input. */
#include "ui_int.h"

void ui_layout_input(const View *v, bool mono, LayoutIn *in, char *bar, size_t len)
{
    bool field = view_field_open(v);
    const double *loss = NULL;
    int nloss = session_is_model(&v->s) ? session_loss_history(&v->s, &loss) : 0;
    keys_bar(v, bar, len);
    *in = (LayoutIn){
        .s = &v->s, .lang = v->lang, .ascii = v->ascii, .mono = mono, .present = v->present,
        .mode = v->mode == MODE_EDIT ? LAYOUT_EDIT : LAYOUT_NORMAL,
        .fi = v->fi, .fj = v->fj, .frow = v->frow, .fmat = v->fmat, .emat = v->emat, .ei = v->ei, .ej = v->ej,
        .msg = v->msg, .msg_role = v->msg_role, .keybar = bar, .field = field, .title_card = v->card,
        .cols = v->cols, .rows = v->rows, .mview = v->mview || v->watch, .watch = v->watch,
        .loss = loss, .nloss = nloss, .steps = session_train_steps(&v->s),
    };
}

bool view_hit(const View *v, int y, int x, MatId *id, int *i, int *j, int *role)
{
    return plan_hit(&v->plan, y, x, id, i, j, role);
}
