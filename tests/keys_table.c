/* keys_table - print the key table of src/ui/keymap.c, one help-screen line
 * per output line: KEYS, a tab, the help text (English). tests/keys_doc.sh
 * checks README.md and the man page against it. */
#include <stdio.h>

void keys_help_lines(void (*line)(const char *keys, const char *help, void *ctx), void *ctx);

static void print_line(const char *keys, const char *help, void *ctx)
{
    printf("%s\t%s\n", keys, help);
    (void)ctx;
}

int main(void)
{
    keys_help_lines(print_line, NULL);
    return ferror(stdout) || fflush(stdout) != 0;
}
