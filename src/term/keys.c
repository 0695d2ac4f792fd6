/* keys.c - curses keys and mouse events as the UI's (ui.h): the one place
 * that knows KEY_ codes and button bits. */
#include "view_int.h"

UiKey term_key(wint_t ch, bool is_code)
{
    if (!is_code)
        return (UiKey)ch;
    switch (ch) {
    case KEY_UP:        return UI_KEY_UP;
    case KEY_DOWN:      return UI_KEY_DOWN;
    case KEY_LEFT:      return UI_KEY_LEFT;
    case KEY_RIGHT:     return UI_KEY_RIGHT;
    case KEY_HOME:      return UI_KEY_HOME;
    case KEY_END:       return UI_KEY_END;
    case KEY_NPAGE:     return UI_KEY_NPAGE;
    case KEY_PPAGE:     return UI_KEY_PPAGE;
    case KEY_BACKSPACE: return UI_KEY_BACKSPACE;
    case KEY_ENTER:     return UI_KEY_ENTER;
    case KEY_RESIZE:    return UI_KEY_RESIZE;
    default:            return UI_KEY_OTHER;
    }
}

UiMouse term_mouse(unsigned long buttons)
{
    if (buttons & BUTTON4_PRESSED)
        return UI_MOUSE_WHEEL_UP;
    if (buttons & BUTTON5_PRESSED)
        return UI_MOUSE_WHEEL_DOWN;
    if (buttons & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED))
        return UI_MOUSE_CLICK;
    return UI_MOUSE_NONE;
}
