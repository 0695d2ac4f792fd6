#!/bin/sh
# run.sh BINARY - the end-to-end tests: qkvtutor driven through tmux as a
# user would drive it, each test in its own session of a private tmux server.
# Prints "ok: NAME" / "FAIL: NAME" (with the screen), then
# "e2e: N passed, M failed"; exits 1 if any failed.  `make e2e` runs it.
#
# Every wait polls the screen for what should appear (at most E2E_TIMEOUT
# seconds, default 5); there are no fixed sleeps.

. "$(dirname "$0")/lib.sh"
e2e_init "$1"

TITLE="Three tokens through self-attention"
[ -n "$PY" ] || echo "e2e: no python3: the JSON and column-width checks are skipped"
MINUS="−"   # U+2212, as the view prints negative numbers

# ---- helpers for these tests ---------------------------------------------------

# The numbers of one token row of a matrix: the row TOKEN below the header
# line that contains LABEL, change marks removed, up to N numbers (stops at
# the first field that is not one) after the first SKIP (the numbers of the
# boxes to its left in the band: S's before A's); prints "a b c".
row_after()
{
    printf '%s\n' "$SCREEN" | awk -v label="$1" -v tok="$2" -v n="${3:-3}" -v skip="${4:-0}" '
        index($0, label) { on = 1; next }
        on && $1 == tok && $2 ~ /[0-9]/ {
            out = ""; k = 0; s = 0
            for (f = 2; f <= NF && k < n; f++) {
                v = $f; gsub(/▲|▼|✎/, "", v)
                if (v == "") continue
                if (v !~ /^(−|-)?[0-9.]+(e[+-][0-9]+)?$|^NaN$|^-?inf$/) break
                if (s++ < skip) continue
                out = out (k ? " " : "") v; k++
            }
            print out; exit
        }'
}

# Sanity of a whole screen: width, no stray bytes, and columns that line up
# (token rows of one band have their numbers end in the same columns), all
# measured in display cells (East Asian wide = 2).
screen_sane()
{
    [ -n "$PY" ] || return 0
    printf '%s\n' "$SCREEN" | "$PY" -c '
import re, sys, unicodedata
W, H = int(sys.argv[1]), int(sys.argv[2])
toks = sys.argv[3].split()
lines = sys.stdin.read().split("\n")
while lines and lines[-1] == "":
    lines.pop()
def width(s):
    w = 0
    for c in s:
        if unicodedata.combining(c):
            continue
        w += 2 if unicodedata.east_asian_width(c) in "WF" else 1
    return w
bad = []
if len(lines) > H:
    bad.append("%d lines on a %d-line screen" % (len(lines), H))
for n, l in enumerate(lines, 1):
    if width(l) > W:
        bad.append("line %d is %d cells wide" % (n, width(l)))
    if "\ufffd" in l or "\x1b" in l or "^[" in l or re.search(r"[\x00-\x08\x0b-\x1f\x7f]", l):
        bad.append("line %d has stray bytes: %r" % (n, l))
num = re.compile(r"[\u2212-]?\d+\.\d+(?:e[+-]\d+)?|NaN|[\u2212-]?inf")
group = []
def check(group):
    ends = []
    for n, l in group:
        ends.append([width(l[:m.end()]) for m in num.finditer(l)])
    k = min(len(e) for e in ends)
    for (n, l), e in zip(group, ends):
        if e[:k] != ends[0][:k]:
            bad.append("line %d: numbers end at columns %s, line %d at %s" % (n, e[:k], group[0][0], ends[0][:k]))
for n, l in enumerate(lines + [""], 1):
    w = l.split()
    if l.startswith(" ") and not l.startswith("  ") and w and w[0] in toks and num.search(l):
        group.append((n, l))
    else:
        if len(group) > 1:
            check(group)
        group = []
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
' "$1" "$2" "我 love 猫" >"$E2E_TMP/sane.out" 2>&1 && return 0
    WHY="screen not sane: $(head -3 "$E2E_TMP/sane.out" | tr '\n' ';')"
    return 1
}

# ---- 1. step through every stage and back ------------------------------------------

t_steps()
{
    s=t_steps
    start_view $s 80 24 "$BIN" "$L1"
    expect $s "[1 X]" "lesson $L1 did not open at stage 1" || return 1
    n=$(steps_of "$SCREEN")
    [ -n "$n" ] || { fail "no k/N step counter in the header"; return 1; }
    k=1 last=1 seen=1
    for key in n Space NPage n Space NPage n Space NPage n Space NPage n Space NPage; do
        [ "$k" -lt "$n" ] || break
        keys $s $key
        k=$((k + 1))
        expect $s " $k/$n · " "$key did not move to step $k/$n" || return 1
        if screen_asks; then # a question: Space reveals it, on the same step
            keys $s Space
            expect $s "Revealed" "Space did not reveal the answer at step $k" || return 1
        fi
        st=$(ribbon_stage "$SCREEN")
        case $st in
        [1-5]) ;;
        *) fail "step $k: the ribbon marks $st stages, want exactly one [k ...]"; return 1 ;;
        esac
        [ "$st" -ge "$last" ] && [ "$st" -le $((last + 1)) ] ||
            { fail "step $k: the ribbon went from stage $last to $st"; return 1; }
        if [ "$st" != "$last" ]; then
            seen=$seen$st
            case $st in
            3)  screen_re "$(row_re 我 ${MINUS}0.066 0.006 0.044)" ||
                    { fail "stage 3: S row 我 is not −0.066 0.006 0.044"; return 1; }
                screen_re "我 .*0\.044 +· +· +·" ||
                    { fail "stage 3: A is not drawn as dots"; return 1; }
                screen_has "0.313" && { fail "stage 3 already shows A's 0.313"; return 1; } ;;
            4)  screen_re "$(row_re 我 0.313 0.337 0.350)" ||
                    { fail "stage 4: A row 我 is not 0.313 0.337 0.350"; return 1; }
                screen_has "[4 softmax]" || { fail "stage 4: ribbon lacks [4 softmax]"; return 1; } ;;
            5)  screen_re "O = A·V +3×3" || { fail "stage 5: no O = A·V"; return 1; }
                # (the fallback test lesson edits Q before stage 5)
                [ "$L1" != 1 ] || screen_re "$(row_re 我 ${MINUS}0.099 0.161 ${MINUS}0.165)" ||
                    { fail "stage 5: O row 我 is not −0.099 0.161 −0.165"; return 1; } ;;
            esac
            last=$st
        fi
    done
    [ "$seen" = 12345 ] || { fail "stages seen going forward: $seen, want 12345"; return 1; }
    xkey $s home
    expect $s " 1/$n · " "Home did not go to step 1" || return 1
    xkey $s end
    expect $s " $n/$n · " "End did not go to the last step" || return 1
    # Back, one step at a time; placeholders come back.
    last=5 seen=5
    for key in PPage p BSpace PPage p BSpace PPage p BSpace PPage p BSpace PPage p BSpace; do
        [ "$k" -gt 1 ] || break
        keys $s $key
        k=$((k - 1))
        expect $s " $k/$n · " "$key did not move back to step $k/$n" || return 1
        st=$(ribbon_stage "$SCREEN")
        [ "$st" -le "$last" ] 2>/dev/null && [ "$st" -ge $((last - 1)) ] ||
            { fail "back to step $k: the ribbon went from stage $last to $st"; return 1; }
        if [ "$st" != "$last" ]; then
            seen=$seen$st
            case $st in
            4)  # at 80×24 the focused row's bars take the place of O's dots
                screen_has "attention of row" || { fail "back at stage 4: no bars where O's dots were"; return 1; }
                screen_has "O = A·V" && { fail "back at stage 4: O still shown"; return 1; }
                screen_has "${MINUS}0.099" && { fail "back at stage 4: O's numbers still shown"; return 1; } ;;
            3)  screen_re "我 .*0\.044 +· +· +·" || { fail "back at stage 3: A is not drawn as dots"; return 1; }
                screen_has "0.313" && { fail "back at stage 3: A's 0.313 still shown"; return 1; } ;;
            2)  screen_has "S = Q·Kᵀ" && { fail "back at stage 2: S still shown"; return 1; } ;;
            esac
            last=$st
        fi
    done
    [ "$seen" = 54321 ] || { fail "stages seen going back: $seen, want 54321"; return 1; }
    return 0
}

# 1b. At 80×24 the placeholder label is whole: too narrow for the formula
# and "not yet", A's box says "A  3×3 not yet".
t_placeholder_label()
{
    s=t_placeholder_label
    start_view $s 80 24 "$BIN" "$L1P"
    expect $s "[1 X]" || return 1
    keys $s 3
    expect $s "[3 " "3 did not jump to stage 3" || return 1
    expect_re $s "(^| )A  3×3 not yet( |$)" \
        "at 80×24, stage 3: A's placeholder label is cut (want \"A  3×3 not yet\")"
}

# 1c. A key the terminal description does not know (here \e[4~, the End key of
# tmux/screen/PuTTY while TERM says xterm) must not act as its bytes: ncurses
# hands such a sequence over as ESC [ 4 ~, and "4" alone would jump to stage 4.
t_stray_escape()
{
    s=t_stray_escape
    start_view $s 80 24 "$BIN" "$L1P"
    expect $s "[1 X]" || return 1
    n=$(steps_of "$SCREEN")
    tm send-keys -t $s -l -- "$(printf '\033[4~')"     # End, as tmux sends it
    expect $s " $n/$n · " "ESC [ 4 ~ (End inside tmux) did not go to the last step" || return 1
    tm send-keys -t $s -l -- "$(printf '\033[1~')"     # Home
    expect $s " 1/$n · " "ESC [ 1 ~ (Home inside tmux) did not go to the first step" || return 1
    tm send-keys -t $s -l -- "$(printf '\033[99~')"    # a sequence nobody knows
    keys $s n
    expect $s " 2/$n · " "after the bytes ESC [ 9 9 ~ and then n the view is not at step 2/$n" || return 1
    screen_has "[2 Q K V]" || { fail "the stray sequence moved the stage"; return 1; }
}

# ---- 2. the arithmetic of the focused score ------------------------------------

t_focus()
{
    s=t_focus
    start_view $s 80 24 "$BIN" "$L1P"
    expect $s "[1 X]" || return 1
    keys $s 3
    expect $s "[3 " "3 did not jump to stage 3" || return 1
    keys $s k k k Left Left Left        # to (1,1) whatever the step's focus was
    expect $s "score₁₁ = q₁·k₁ =" "k and Left did not move the focus to (1,1)" || return 1
    keys $s l
    expect $s "score₁₂ = q₁·k₂ = (0.149)(${MINUS}0.169) + (${MINUS}0.041)(${MINUS}0.304) + (0.194)(0.094) = 0.006" \
        "the arithmetic of score₁₂ is not the expected line" || return 1
    keys $s Right
    expect $s "score₁₃ = q₁·k₃ =" "Right did not move the focus to (1,3)" || return 1
    keys $s j
    expect $s "score₂₃ = q₂·k₃ =" "j did not move the focus to (2,3)" || return 1
    keys $s Up h
    expect $s "score₁₂ = q₁·k₂ = (0.149)" "Up, h did not come back to (1,2)" || return 1
}

# ---- 3. resize ------------------------------------------------------------------

t_resize()
{
    s=t_resize
    start_view $s 80 24 "$BIN" "$L1P"
    expect $s "[1 X]" || return 1
    tm resize-window -t $s -x 30 -y 8
    size=$(pane_fmt $s '#{pane_width}x#{pane_height}')
    [ "$size" = 30x8 ] || { fail "tmux did not resize the pane to 30x8 (it is $size)"; return 1; }
    expect_re $s "too small|needs at least" "at 30×8 the screen does not say it is too small" || return 1
    screen_has "[1 X]" && { fail "at 30×8 the normal screen is still drawn"; return 1; }
    tm resize-window -t $s -x 120 -y 40
    size=$(pane_fmt $s '#{pane_width}x#{pane_height}')
    [ "$size" = 120x40 ] || { fail "tmux did not resize the pane to 120x40 (it is $size)"; return 1; }
    expect $s "[1 X]" "back at 120×40 the normal screen did not return" || return 1
    expect_gone $s "needs at least" "back at 120×40 the too-small message stays" || return 1
    expect $s "$TITLE" "back at 120×40 the title is missing" || return 1
    screen_sane 120 40
}

# ---- 4. help, and quitting ------------------------------------------------------

t_help()
{
    s=t_help
    start_view $s 80 24 "$BIN" "$L1P"
    expect $s "[1 X]" || return 1
    keys $s '?'
    expect $s "next step" "? did not open the help" || return 1
    screen_has "previous step" || { fail "help lacks \"previous step\""; return 1; }
    keys $s Escape
    expect_gone $s "next step" "Esc did not close the help" || return 1
    expect $s "[1 X]" "after Esc the lesson screen is not back" || return 1
    keys $s '?'
    expect $s "next step" "? did not open the help a second time" || return 1
    keys $s '?'
    expect_gone $s "next step" "? did not close the help" || return 1
    keys $s q
    wait_until session_gone $s || { fail "q did not end the process"; return 1; }
}

# 4b. The help lists every request, quit included, at the smallest size.
t_help_complete()
{
    s=t_help_complete
    start_view $s 80 24 "$BIN" "$L1P"
    expect $s "[1 X]" || return 1
    keys $s '?'
    expect $s "next step" "? did not open the help" || return 1
    wait_stable $s "Esc leaves." || { fail "the help's last line never came"; return 1; }
    screen_re "^ +q, Ctrl-C +quit" || { fail "at 80×24 the help has no \"q, Ctrl-C  quit\" line"; return 1; }
    screen_re "^ +N / \? +the whole narration, where cut / this help" ||
        { fail "at 80×24 the help has no \"N / ?  the whole narration, where cut / this help\" line"; return 1; }
}

# ---- 5. the terminal is restored on every way out ---------------------------------

# restore MODE RC: run the tool from a shell, end it by MODE, check that the
# shell saw exit status RC and that the terminal modes are as before.
restore()
{
    s=t_restore_$1
    f=$E2E_TMP/$1
    start $s 80 24 /bin/sh
    typetext $s "stty -g > $f.before"
    keys $s Enter
    wait_until file_ready "$f.before" || { fail "the shell in the pane did not run stty"; SCREEN=$(cap $s); return 1; }
    typetext $s "ulimit -c 0; sh -c 'echo \$\$ > $f.pid; exec $BIN $L1P'"
    keys $s Enter
    expect $s "[1 X]" "the tool did not start from the shell" || return 1
    wait_until file_ready "$f.pid" || { fail "no pid file"; return 1; }
    pid=$(cat "$f.pid")
    [ "$(pane_fmt $s '#{alternate_on}#{mouse_any_flag}')" = 11 ] ||
        { fail "while the tool runs the alternate screen and the mouse are not on: the check below could not fail"; return 1; }
    case $1 in
    q) keys $s q ;;
    int) keys $s C-c ;;
    quit) keys $s 'C-\' ;;
    *) kill -"$(echo "$1" | tr a-z A-Z)" "$pid" ;;
    esac
    wait_until pid_gone "$pid" || { fail "the tool is still running after $1"; SCREEN=$(cap $s); return 1; }
    # (a separate command: after Ctrl-C the shell drops the rest of the line)
    typetext $s "echo \$? > $f.rc"
    keys $s Enter
    wait_until file_ready "$f.rc" || { fail "the shell did not get control back"; SCREEN=$(cap $s); return 1; }
    rc=$(cat "$f.rc")
    [ "$rc" = "$2" ] || { fail "exit status after $1 is $rc, want $2"; SCREEN=$(cap $s); return 1; }
    typetext $s "stty -g > $f.after; stty -a > $f.stty"
    keys $s Enter
    wait_until file_ready "$f.stty" || { fail "stty did not run after $1"; SCREEN=$(cap $s); return 1; }
    SCREEN=$(cap $s)
    grep -Eq '(^|[ ;])icanon([ ;]|$)' "$f.stty" && grep -Eq '(^|[ ;])echo([ ;]|$)' "$f.stty" ||
        { fail "after $1 the terminal is not sane: $(grep -Eo '[-]?(icanon|echo|isig|icrnl)([ ;]|$)' "$f.stty" | tr -d ' ;\n' | sed 's/\(.\)-/\1 -/g')"; return 1; }
    cmp -s "$f.before" "$f.after" ||
        { fail "after $1 the terminal modes differ from before (stty -g: $(cat "$f.before") → $(cat "$f.after"))"; return 1; }
    [ "$(pane_fmt $s '#{alternate_on}')" = 0 ] || { fail "after $1 the alternate screen is still on"; return 1; }
    [ "$(pane_fmt $s '#{cursor_flag}')" = 1 ] || { fail "after $1 the cursor is still hidden"; return 1; }
    [ "$(pane_fmt $s '#{mouse_any_flag}')" = 0 ] || { fail "after $1 mouse reporting is still on"; return 1; }
    screen_has "[1 X]" && { fail "after $1 the tool's screen was left on the terminal"; return 1; }
    return 0
}

t_restore_q() { restore q 0; }
t_restore_int() { restore int 130; }
t_restore_term() { restore term 143; }
t_restore_hup() { restore hup 129; }
t_restore_quit() { restore quit 131; } # the Ctrl-\ key: SIGQUIT
t_restore_pipe() { restore pipe 141; }
t_restore_usr1() { restore usr1 138; }
t_restore_alrm() { restore alrm 142; }
t_restore_segv() { restore segv 139; } # the crash handler: restores, dies of the signal
t_restore_abrt() { restore abrt 134; }

# ---- 6. Ctrl-Z and fg ----------------------------------------------------------

t_suspend()
{
    s=t_suspend
    f=$E2E_TMP/suspend
    start $s 80 24 /bin/sh
    typetext $s "sh -c 'echo \$\$ > $f.pid; exec $BIN $L1P'"
    keys $s Enter
    expect $s "[1 X]" "the tool did not start from the shell" || return 1
    past_card $s
    wait_until file_ready "$f.pid" || { fail "no pid file"; return 1; }
    pid=$(cat "$f.pid")
    n=$(steps_of "$SCREEN")
    keys $s n
    expect $s " 2/$n · " "n did not step" || return 1
    keys $s C-z
    expect $s "Stopped" "Ctrl-Z: the shell does not report the job stopped" || return 1
    state=$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)
    [ "$state" = T ] || { fail "Ctrl-Z: the process state is \"$state\", want T (stopped)"; return 1; }
    [ "$(pane_fmt $s '#{alternate_on}')" = 0 ] || { fail "Ctrl-Z: the alternate screen is still on"; return 1; }
    typetext $s "stty -a > $f.stty"
    keys $s Enter
    wait_until file_ready "$f.stty" || { fail "the shell did not run stty while the tool was stopped"; return 1; }
    grep -Eq '(^| )icanon( |$)' "$f.stty" && grep -Eq '(^| )echo( |$)' "$f.stty" ||
        { fail "while suspended the terminal is not in cooked mode (no icanon/echo)"; return 1; }
    typetext $s "fg"
    keys $s Enter
    expect $s " 2/$n · " "fg: the screen was not redrawn at step 2" || return 1
    expect $s "$TITLE" "fg: the title was not redrawn" || return 1
    expect $s "Space next" "fg: the key bar was not redrawn" || return 1
    keys $s n
    expect $s " 3/$n · " "after fg the tool does not take keys" || return 1
    keys $s q
    wait_until pid_gone "$pid" || { fail "q after fg did not quit"; return 1; }
}

# ---- 7. no terminal -----------------------------------------------------------------

t_noterm()
{
    out=$E2E_TMP/noterm.out
    "$BIN" "$L1" </dev/null >"$out" 2>&1
    rc=$?
    [ "$rc" = 2 ] || { fail "with stdin from /dev/null the exit status is $rc, want 2"; return 1; }
    grep -q -- "--dump" "$out" || { fail "the message does not mention --dump: $(head -c 200 "$out")"; return 1; }
    [ "$(wc -l <"$out")" -le 2 ] || { fail "the message is more than a line or two: $(head -c 300 "$out")"; return 1; }
    # stdout into a pipe (stdin a terminal would be the same test): the
    # status is qkvtutor's own, not the pipe's last command's.
    rc=$( { "$BIN" "$L1" 2>"$out" </dev/null; echo $? >"$E2E_TMP/noterm.rc"; } | cat >/dev/null
          cat "$E2E_TMP/noterm.rc")
    [ "$rc" = 2 ] || { fail "piped: the exit status is $rc, want 2"; return 1; }
    want="qkvtutor: the interactive view needs a terminal; use --dump to print the walkthrough, or --json for the numbers"
    [ "$(cat "$out")" = "$want" ] || { fail "piped: the message is \"$(head -c 200 "$out")\", want \"$want\""; return 1; }
    return 0
}

# A terminal that cannot address the cursor (newcomer review, defect 13):
# TERM=dumb gets exit 2 and one line pointing to --dump, not a blank screen
# with a stray key bar.
t_dumb()
{
    s=t_dumb
    start $s 80 24 /bin/sh -c "TERM=dumb '$BIN' --lang en $L1 2>&1; echo rc=\$?; sleep 30"
    expect $s "rc=" "the tool under TERM=dumb did not end" || return 1
    want='qkvtutor: the terminal type "dumb" (TERM) cannot move the cursor; use --dump to print the walkthrough, or try TERM=xterm-256color'
    screen_has "rc=2" || { fail "TERM=dumb: the exit status is not 2"; return 1; }
    # (the pane wraps the line at 80 columns: compare without spaces and line ends)
    [ "$(printf '%s\n' "$SCREEN" | tr -d ' \n')" = "$(printf '%s' "$want" | tr -d ' ')rc=2" ] ||
        { fail "TERM=dumb: the screen holds more than the one line (want \"$want\")"; return 1; }
    stop $s
}

# ---- 8. live editing (issue 4) ---------------------------------------------------------

t_edit_experiment()
{
    s=t_edit_experiment
    start_view $s 80 24 "$BIN" "$L1P"
    expect $s "[1 X]" || return 1
    keys $s 4
    expect $s "[4 softmax]" "4 did not jump to the softmax stage" || return 1
    expect_re $s "$(row_re 我 0.313 0.337 0.350)" "A row 我 is not 0.313 0.337 0.350" || return 1
    keys $s :
    expect_re $s "^ :$" "':' did not open the action prompt" || return 1
    typetext $s "Q[1] = K[1] * 5"
    expect $s " :Q[1] = K[1] * 5" "the prompt does not echo what was typed" || return 1
    keys $s Enter
    expect_re $s "$(row_re 我 0.873 0.076 0.052)" "after Q[1] = K[1] * 5 the A row is not 0.873 0.076 0.052" || return 1
    expect $s "0.313 → 0.873" "the bars do not show 0.313 → 0.873" || return 1
    keys $s s
    expect_re $s "$(row_re 我 0.695 0.169 0.136)" "after s the A row is not 0.695 0.169 0.136" || return 1
    expect $s "scale ÷√d" "after s the header does not say scale ÷√d" || return 1
    keys $s u
    expect_re $s "$(row_re 我 0.873 0.076 0.052)" "the first u did not go back to 0.873" || return 1
    keys $s u
    expect_re $s "$(row_re 我 0.313 0.337 0.350)" "the second u did not go back to 0.313 0.337 0.350" || return 1
    keys $s C-r
    expect_re $s "$(row_re 我 0.873 0.076 0.052)" "Ctrl-R did not redo Q[1] = K[1] * 5" || return 1
    keys $s r
    expect_re $s "$(row_re 我 0.313 0.337 0.350)" "r did not reset to the lesson" || return 1
    keys $s :
    expect_re $s "^ :$" || return 1
    typetext $s "Q[9] = 1"
    keys $s Enter
    expect $s " :Q[9] = 1" "after a bad action the prompt should stay open with the text" || return 1
    keys $s Escape
    expect_gone $s " :Q[9] = 1" "Esc did not close the prompt" || return 1
}

t_edit_save()
{
    s=t_edit_save
    dir=$E2E_TMP/save
    mkdir -p "$dir"
    start_view $s 80 24 "$BIN" "$L1P"
    expect $s "[1 X]" || return 1
    keys $s 4
    expect_re $s "$(row_re 我 0.313 0.337 0.350)" "4: A row 我 is not 0.313 0.337 0.350" || return 1
    before=$SCREEN
    keys $s e
    expect $s "Edit" "e did not enter edit mode" || return 1
    keys $s 2
    expect $s "Q[1][1] = 2" "typing 2 in edit mode does not open the cell field" || return 1
    keys $s Enter
    expect_re $s "✎|set by hand" "after setting Q[1][1] = 2 there is no ✎ / \"set by hand\" mark" || return 1
    # From stage 3 on, edit mode's panel works out the stage's focused result, live.
    expect $s "α₁ = exp ÷ sum" "edit mode's arithmetic panel does not show the softmax row" || return 1
    expect_gone $s "0.313  0.337  0.350" "the A row did not change after Q[1][1] = 2" || return 1
    [ "$SCREEN" != "$before" ] || { fail "the screen did not change"; return 1; }
    shown=$(row_after "A  3×3 result" 我 3 3) # edit mode shows S and A below Q K V (A by name where its formula has no room)
    [ -n "$shown" ] || { fail "cannot read A row 我 from the screen"; return 1; }
    keys $s Escape
    keys $s w
    expect_re $s "^ save as: [^ ]+" "w: the save prompt offers no default name" || return 1
    keys $s C-u
    expect_re $s "^ save as: ?$" "Ctrl-U did not clear the name" || return 1
    typetext $s "$dir/saved.yaml"
    keys $s Enter
    expect $s "Saved" "Enter in the save prompt did not say Saved" || return 1
    [ -s "$dir/saved.yaml" ] || { fail "no file at $dir/saved.yaml"; return 1; }
    # Saved: q quits without asking.
    keys $s q
    wait_until session_gone $s || { fail "q after saving did not quit"; return 1; }
    "$BIN" --json "$dir/saved.yaml" >"$dir/saved.json" 2>"$dir/json.err" ||
        { fail "--json of the saved file failed: $(head -c 300 "$dir/json.err")"; return 1; }
    [ -n "$PY" ] || { echo "    (no python3: the JSON checks are skipped)"; return 0; }
    json=$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%.3f" % x for x in d["matrices"]["A"][0]))' "$dir/saved.json" 2>&1) ||
        { fail "--json output does not parse: $json"; return 1; }
    [ "$json" = "$shown" ] || { fail "--json A row 1 is \"$json\", the screen showed \"$shown\""; return 1; }
    "$BIN" --check "$dir/saved.yaml" >"$dir/check.out" 2>&1 ||
        { fail "--check of the saved file failed: $(head -c 300 "$dir/check.out")"; return 1; }
    # Loading it shows what was saved.
    s2=t_edit_save_reopen
    start_view $s2 80 24 "$BIN" "$dir/saved.yaml"
    expect $s2 "[4 softmax]" "the saved lesson does not open at the step it was saved at" || { stop $s2; return 1; }
    got=$(row_after "A  3×3 result" 我 3 3)
    stop $s2
    [ "$got" = "$shown" ] || { fail "reopened: A row 我 is \"$got\", saved \"$shown\""; return 1; }
    return 0
}

t_quit_unsaved()
{
    s=t_quit_unsaved
    start_view $s 80 24 "$BIN" "$L1P"
    expect $s "[1 X]" || return 1
    keys $s 4
    expect $s "[4 softmax]" || return 1
    keys $s s
    expect $s "scale ÷√d" "s did not turn scaling on" || return 1
    keys $s q
    expect $s "unsaved" "q with unsaved edits does not ask first" || return 1
    keys $s x
    expect_gone $s "unsaved" "after x the question stays" || return 1
    alive $s || { fail "x at the unsaved question quit"; return 1; }
    keys $s 5
    expect $s "[5 A·V]" "after x the view does not take keys (5 did not reach stage 5)" || return 1
    keys $s q
    expect $s "unsaved" "the second q does not ask" || return 1
    keys $s y
    wait_until session_gone $s || { fail "y at the unsaved question did not quit"; return 1; }
}

# 8a'. Below 60×18 with unsaved edits, q and Ctrl-C ask in the lines that
# fit (code review 2.4: every key was swallowed); y quits, any other key
# and Ctrl-C stay; Esc goes through; enlarged, the view is as it was.
t_small_unsaved()
{
    s=t_small_unsaved
    start_view $s 80 24 "$BIN" "$L1P"
    expect $s "[1 X]" || return 1
    keys $s s
    expect $s "scale ÷√d" "s did not turn scaling on" || return 1
    tm resize-window -t $s -x 40 -y 10
    expect $s "Enlarge it to save" "at 40×10 with edits the screen does not say how to keep them" || return 1
    keys $s q
    expect $s "Quit and lose your unsaved" "at 40×10, q with edits does not ask" || return 1
    keys $s x
    expect $s "Enlarge it to save" "at 40×10, x at the question does not stay" || return 1
    keys $s C-c
    expect $s "Quit and lose your unsaved" "at 40×10, Ctrl-C with edits does not ask" || return 1
    keys $s C-c
    expect $s "Enlarge it to save" "at 40×10, Ctrl-C at the question does not stay" || return 1
    keys $s Escape
    keys $s q
    expect $s "Quit and lose your unsaved" "at 40×10, q after Esc does not ask" || return 1
    keys $s Escape
    expect $s "Enlarge it to save" "at 40×10, Esc does not close the question" || return 1
    alive $s || { fail "a key that stays quit"; return 1; }
    tm resize-window -t $s -x 80 -y 24
    expect $s "scale ÷√d" "enlarged again, the edit is gone" || return 1
    tm resize-window -t $s -x 40 -y 10
    expect $s "Enlarge it to save" || return 1
    keys $s q
    expect $s "Quit and lose your unsaved" || return 1
    keys $s y
    wait_until session_gone $s || { fail "at 40×10, y at the question did not quit"; return 1; }
}

# 8b'. Ctrl-C is like q (newcomer review, defect 11): at the ':' prompt it
# cancels the line; with unsaved edits it asks; Ctrl-C there stays.
t_ctrlc_unsaved()
{
    s=t_ctrlc_unsaved
    start_view $s 80 24 "$BIN" --lang en "$L1P"
    expect $s "[1 X]" || return 1
    typetext $s ":Q[1] = K[1]"
    keys $s Enter
    expect $s "Q[1] = K[1]: " ":Q[1] = K[1] was not applied" || return 1
    typetext $s ":X[1"
    expect_re $s "^ :X\[1$" "':X[1' is not on the prompt" || return 1
    keys $s C-c
    expect_gone $s ":X[1" "Ctrl-C did not cancel the prompt" || return 1
    alive $s || { fail "Ctrl-C at the prompt quit the tool and lost the edit"; return 1; }
    screen_has "unsaved" && { fail "Ctrl-C at the prompt asked to quit instead of cancelling"; return 1; }
    keys $s C-c
    expect $s "You have unsaved edits. Quit anyway? y quits, w saves, any other key stays." \
        "Ctrl-C with unsaved edits does not ask first" || return 1
    keys $s C-c
    expect_gone $s "unsaved" "a second Ctrl-C at the question did not stay" || return 1
    alive $s || { fail "a second Ctrl-C quit with unsaved edits"; return 1; }
    keys $s C-c
    expect $s "unsaved" "Ctrl-C does not ask again" || return 1
    keys $s y
    wait_until session_gone $s || { fail "y at the unsaved question did not quit"; return 1; }
}

# 8c. A huge typed value keeps the screen readable: S's numbers are shown
# (in some short form) and nothing spills into the next band.
t_edit_huge()
{
    s=t_edit_huge
    start_view $s 80 24 "$BIN" "$L1P"
    expect $s "[1 X]" || return 1
    keys $s 4 :
    expect_re $s "^ :$" "':' did not open the action prompt" || return 1
    typetext $s "Q[1][1] = 1e30"
    keys $s Enter
    expect_gone $s " :Q[1][1] = 1e30" "the action Q[1][1] = 1e30 was not taken" || return 1
    wait_stable $s "[4 softmax]" || { fail "the view is not at stage 4"; return 1; }
    row=$(row_after "S = Q·Kᵀ" 我 3)
    [ "$(printf '%s\n' "$row" | wc -w)" -eq 3 ] ||
        { fail "S row 我 after Q[1][1] = 1e30 shows \"$row\", want three numbers"; return 1; }
    screen_re "·[0-9]|[0-9]·  " && { fail "digits spill into the placeholder next to S"; return 1; }
    screen_sane 80 24
}

# 8b. Lesson 2's script does the experiment itself.
t_lesson2()
{
    [ -n "$L2" ] || { echo "    (no lessons/02-*.yaml yet: skipped)"; return 0; }
    s=t_lesson2
    start_view $s 80 24 "$BIN" "$L2"
    expect $s " 1/" "lesson 2 did not open" || return 1
    n=$(steps_of "$SCREEN") k=1 got=""
    while [ "$k" -lt "$n" ]; do
        keys $s n
        k=$((k + 1))
        expect $s " $k/$n · " "n did not reach step $k" || return 1
        if screen_asks; then
            keys $s Space
            expect $s "Revealed" "Space did not reveal the answer at step $k" || return 1
        fi
        case $got in
        "") screen_re "$(row_re 我 0.873 0.076 0.052)" && screen_has "0.313 → 0.873" && got=873 ;;
        873) screen_re "$(row_re 我 0.695 0.169 0.136)" && got=873,695 ;;
        esac
    done
    [ "$got" = 873,695 ] || { fail "lesson 2 did not show 0.313 → 0.873 then 0.695 0.169 0.136 (saw: ${got:-neither})"; return 1; }
}

# ---- 9. a big terminal -------------------------------------------------------------

t_big()
{
    s=t_big
    start_view $s 120 40 "$BIN" "$L1P"
    expect $s "[1 X]" || return 1
    n=$(steps_of "$SCREEN") k=1
    while :; do
        printf '%s\n' "$SCREEN" | sed -n 1p | grep -qF "$TITLE" || { fail "step $k: the title is not on line 1"; return 1; }
        printf '%s\n' "$SCREEN" | tail -n 1 | grep -q "q quit" || { fail "step $k: the key bar is not on the last line"; return 1; }
        [ "$(printf '%s\n' "$SCREEN" | wc -l)" -eq 40 ] || { fail "step $k: the capture is not 40 lines"; return 1; }
        screen_sane 120 40 || { WHY="step $k: $WHY"; return 1; }
        [ "$k" -lt "$n" ] || break
        keys $s n
        k=$((k + 1))
        expect $s " $k/$n · " "n did not reach step $k" || return 1
    done
    keys $s '?'
    expect $s "next step" "? did not open the help at 120×40" || return 1
    screen_re "quit" || { fail "the help at 120×40 lacks quit"; return 1; }
    screen_sane 120 40
}

# 9c. Chinese at 80×24: every step lines up (CJK is two columns wide).
t_zh()
{
    s=t_zh
    start_view $s 80 24 "$BIN" --lang zh "$L1P"
    expect $s "三个词走完一次自注意力" "--lang zh: the Chinese title is not shown" || return 1
    n=$(steps_of "$SCREEN") k=1
    while :; do
        screen_sane 80 24 || { WHY="zh step $k: $WHY"; return 1; }
        [ "$k" -lt "$n" ] || break
        keys $s n
        k=$((k + 1))
        expect $s " $k/$n · " "n did not reach step $k" || return 1
    done
    keys $s '?'
    expect_re $s "退出" "the help is not in Chinese" || return 1
    screen_sane 80 24
}

# 9b. The help is not cut at any size: its words at 80×24 and 120×40 are
# those at 200×60.
help_words() { printf '%s\n' "$1" | tr -s ' \t' '\n\n' | grep -v '^$' | sort; }

t_big_help()
{
    s=t_big_help
    start_view $s 200 60 "$BIN" "$L1P"
    expect $s "[1 X]" || return 1
    keys $s '?'
    expect $s "next step" "? did not open the help at 200×60" || return 1
    help_words "$SCREEN" >"$E2E_TMP/help.200"
    for size in 120x40 80x24; do
        tm resize-window -t $s -x "${size%x*}" -y "${size#*x}"
        wait_until size_is $s "$size" || { fail "tmux did not resize to $size"; return 1; }
        # (the view redraws on its next key poll, up to 250 ms after the
        # resize; until then tmux shows the old frame cropped, stable too)
        sleep 0.3
        wait_stable $s "next step" || { fail "the help is gone after resizing to $size"; return 1; }
        help_words "$SCREEN" >"$E2E_TMP/help.$size"
        if ! cmp -s "$E2E_TMP/help.200" "$E2E_TMP/help.$size"; then
            fail "at $size the help lacks words it shows at 200×60: $(comm -23 "$E2E_TMP/help.200" "$E2E_TMP/help.$size" | head -8 | tr '\n' ' ')"
            return 1
        fi
    done
}

# ---- 10. NO_COLOR ---------------------------------------------------------------------

t_nocolor()
{
    s=t_nocolor
    start_view $s 80 24 "$BIN" "$L1P"
    expect $s "[1 X]" || return 1
    keys $s 4
    expect $s "α₁ = exp ÷ sum" || return 1
    colour=$SCREEN
    stop $s
    start_view $s 80 24 -e NO_COLOR=1 "$BIN" "$L1P"
    expect $s "[1 X]" "NO_COLOR=1: the lesson did not open" || return 1
    keys $s 4
    expect $s "α₁ = exp ÷ sum" "NO_COLOR=1: 4 did not reach the softmax stage" || return 1
    mono=$SCREEN
    esc=$(capture_e $s)
    # The same text, but for the heatmap: shades in colour, ░▒▓█ in mono.
    # Mono cells of S and A keep a column for the shade: compare words, not columns.
    norm() { printf '%s\n' "$1" | sed 's/[░▒▓█▉▊▋▌▍▎▏]/ /g; s/  */ /g; s/ *$//'; }
    norm "$colour" >"$E2E_TMP/colour.txt"
    norm "$mono" >"$E2E_TMP/mono.txt"
    if ! cmp -s "$E2E_TMP/colour.txt" "$E2E_TMP/mono.txt"; then
        fail "NO_COLOR=1 shows other text: $(diff "$E2E_TMP/colour.txt" "$E2E_TMP/mono.txt" | grep '^[<>]' | head -4 | tr '\n' ' ')"
        return 1
    fi
    printf '%s\n' "$esc" | grep -Eq "$(printf '\033')"'\[([0-9;]*;)?(3[0-7]|4[0-7]|38;5|48;5|38;2|48;2|9[0-7]|10[0-7])[;m]' &&
        { fail "NO_COLOR=1: the screen still has colour codes"; return 1; }
    printf '%s\n' "$esc" | grep -Eq "$(printf '\033')"'\[([0-9;]*;)?7[;m]' ||
        { fail "NO_COLOR=1: nothing is in reverse video (the focus and ribbon need it in mono)"; return 1; }
    printf '%s\n' "$mono" | grep -q '[░▒▓█]' || { fail "NO_COLOR=1: no ░▒▓█ heatmap"; return 1; }
    return 0
}

# The projector theme on a terminal without colours (TERM=vt100): it falls
# back to mono and still marks the focus with reverse video and bold.
t_projector_mono()
{
    s=t_projector_mono
    tm new-session -d -s "$s" -x 80 -y 24 -c "$E2E_ROOT" -e LANG=C.UTF-8 \
        env TERM=vt100 "$BIN" --theme projector "$L1P"   # tmux sets TERM itself; env has the last word
    expect $s "[1 X]" "--theme projector on vt100: the lesson did not open" || return 1
    past_card $s
    keys $s 3
    expect $s "score₁₂ = q₁·k₂" "--theme projector on vt100: 3 did not reach the scores" || return 1
    esc=$(capture_e $s)
    printf '%s\n' "$esc" | grep -Eq "$(printf '\033')"'\[([0-9;]*;)?(3[0-7]|4[0-7]|38;5|48;5)[;m]' &&
        { fail "projector on vt100: colour codes on a terminal without colours"; return 1; }
    printf '%s\n' "$esc" | grep -Eq "$(printf '\033')"'\[([0-9;]*;)?7[;m]' ||
        { fail "projector on vt100: the focus is not in reverse video"; return 1; }
    screen_sane 80 24
}

# ---- 11. the screen never contradicts itself (issue 11) --------------------------------

# An edit at the softmax stage: the effect trace for the focused row, the
# edited-state notice, the status line naming the change and its effect;
# then the output stage, where the trace reaches o₁₁; r takes the notice away.
t_trace_notice()
{
    s=t_trace_notice
    start_view $s 80 24 "$BIN" "$L1P"
    expect $s "[1 X]" || return 1
    keys $s 4 :
    expect_re $s "^ :$" "':' did not open the action prompt" || return 1
    typetext $s "Q[1] = K[1] * 5"
    keys $s Enter
    expect $s "q₁ changed ⇒ s₁₁ ${MINUS}0.066 → 3.013 ⇒ α₁₁ 0.313 → 0.873" "no effect trace after Q[1] = K[1] * 5" || return 1
    screen_has "✎ after Q[1] = K[1] * 5: numbers live, words written for the lesson's numbers" ||
        { fail "no edited-state notice"; return 1; }
    screen_has "Q[1] = K[1] * 5: α₁₁ 0.313 → 0.873. u undoes it." || { fail "the status line does not name the effect"; return 1; }
    keys $s s
    expect $s "scaling ÷√3 ⇒ s₁₁ 3.013 → 1.739 ⇒ α₁₁ 0.873 → 0.695" "s: no trace of the toggle" || return 1
    screen_has "scaling ÷√3: α₁₁ 0.873 → 0.695. u undoes it." || { fail "s: the status line does not name the effect"; return 1; }
    keys $s r
    expect_gone $s "numbers live" "after r the notice stays" || return 1
    keys $s 5 :
    expect_re $s "^ :$" || return 1
    typetext $s "Q[1] = K[1] * 5"
    keys $s Enter
    expect $s "⇒ o₁₁ ${MINUS}0.099 → ${MINUS}0.147" "at stage 5 the trace does not reach o₁₁" || return 1
    screen_sane 80 24
}

# An exercise (tests/live/templates-asks.yaml): "?" until answered; digits go
# to the answer, not to the stage keys; ✗ without the true value (n reveals
# it); ✓; Space reveals; the last step tallies.
t_exercise()
{
    s=t_exercise
    start_view $s 80 24 "$BIN" tests/live/templates-asks.yaml
    expect $s " 1/5 · " "the test lesson did not open" || return 1
    keys $s n
    expect $s "score₁₂ = q₁·k₂ = ?." "step 2: the narration does not ask with ?" || return 1
    screen_has "(0.194)(0.094) = ?" || { fail "step 2: the arithmetic shows the answer"; return 1; }
    screen_has "0-9 answer (1-5 do not jump)" || { fail "step 2: the key bar does not say digits answer"; return 1; }
    typetext $s "3"
    expect $s " answer S[1][2] = 3" "3 did not open the answer field" || return 1
    screen_has " 2/5 · " || { fail "3 jumped away from the question"; return 1; }
    keys $s BSpace
    typetext $s "0.01"
    keys $s Enter
    expect $s "✗ not quite: S[1][2] (your answer: 0.01). Type again, or Space to reveal." "a wrong answer is not graded ✗" || return 1
    screen_has "(0.194)(0.094) = ?" || { fail "after a wrong answer the arithmetic shows the value"; return 1; }
    keys $s n
    expect $s "Revealed: S[1][2] = 0.006. Space goes on." "n did not reveal the answer graded wrong" || return 1
    screen_has "(0.194)(0.094) = 0.006" || { fail "after revealing the arithmetic does not show the value"; return 1; }
    keys $s n
    expect $s "我 weighs ?, ?, ?." "step 3: the row is not asked" || return 1
    typetext $s "0.313 0.337 0.350"
    keys $s Enter
    expect $s "✓ right: A[1] = 0.313, 0.337, 0.350" "a right answer is not graded ✓" || return 1
    keys $s Space
    expect $s "Revealed: A[3][3] = 0.287. Space goes on." "Space did not reveal the open ask" || return 1
    screen_has " 3/5 · " || { fail "Space moved on while a question was open"; return 1; }
    keys $s Space Space Space
    expect $s "Your answers: right 1 of 4, 1 wrong, 2 revealed." "the last step has no tally" || return 1
    screen_sane 80 24
}

# 60×18: at the softmax stage the whole quoted row α₁ is on screen (in A or
# as bars), the narration whole or ending in …
t_small_softmax()
{
    s=t_small_softmax
    start_view $s 60 18 "$BIN" "$L1P"
    expect $s "[1 X]" || return 1
    keys $s 4
    expect $s "α₁ = exp ÷ sum" "4 did not reach the softmax stage at 60×18" || return 1
    screen_re "$(row_re 我 0.313 0.337 0.350)" || screen_re "我 .*0\.313.*love .*0\.337" ||
        { fail "at 60×18 the weights 0.313 0.337 0.350 are not all on screen"; return 1; }
    screen_sane 60 18
}

# 60×18 presentation (lesson 1, projector): at every step N shows the
# step's whole narration (--dump's words, nothing cut, scrolled with Space
# where it is longer than the screen), on a screen that cuts it with …;
# Esc closes it and n goes on.
t_say_whole()
{
    s=t_say_whole
    start_view $s 60 18 "$BIN" --present --theme projector "$L1P"
    expect $s "[1 X]" || return 1
    n=$(steps_of "$SCREEN") k=1 cut=0
    "$BIN" --dump "$L1P" >"$E2E_TMP/say.dump"
    while :; do
        printf '%s\n' "$SCREEN" | grep -q '…$' && cut=$((cut + 1))
        keys $s N
        expect $s "The whole narration" "N opened nothing at step $k" || return 1
        : >"$E2E_TMP/say.$k"
        while :; do
            printf '%s\n' "$SCREEN" >>"$E2E_TMP/say.$k"
            printf '\f\n' >>"$E2E_TMP/say.$k"
            more=$(printf '%s\n' "$SCREEN" | sed -n 's/.*lines [0-9]*-\([0-9]*\) of \([0-9]*\).*/\1 \2/p')
            [ -n "$more" ] && [ "${more% *}" != "${more#* }" ] || break
            keys $s Space
            expect_re $s "lines [0-9]+-[0-9]+ of" || return 1
            wait_stable $s >/dev/null
        done
        why=$($PY - "$E2E_TMP/say.dump" "$E2E_TMP/say.$k" "$k" <<'PYEOF'
import re, sys
dump, caps, k = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
m = re.search(r"^── %s/\d+ ·[^\n]*\n((?:  [^\n]*\n)+)" % k, dump, re.M)
# the narration, without --dump's room line for authors ("  room at 80x24: ...")
say = [l for l in (m.group(1).splitlines() if m else []) if not re.match(r"  (room at|讲解在) ?\d+x\d+", l)]
want = "".join("".join(say).split())
lines = {}
for page in caps.split("\f\n"):
    rows = page.split("\n")
    m = re.search(r"lines (\d+)-(\d+) of", page)
    first = int(m.group(1)) if m else 1
    body = rows[2:-2] if m else rows[2:]
    for i, row in enumerate(body):
        lines.setdefault(first + i, row)
got = "".join("".join(lines[i] for i in sorted(lines)).split())
if not want or got != want:
    print("step %s: N shows %r, the narration is %r" % (k, got[:120], want[:120]))
PYEOF
)
        [ -z "$why" ] || { fail "$why"; return 1; }
        keys $s Escape
        expect_gone $s "The whole narration" "Esc did not close the narration at step $k" || return 1
        [ "$k" -lt "$n" ] || break
        keys $s n
        k=$((k + 1))
        expect $s " $k/$n · " "n did not reach step $k" || return 1
    done
    [ "$cut" -ge 3 ] || { fail "only $cut steps cut their narration at 60×18: the test sees no cut"; return 1; }
}

# ---- 12. two heads (lesson 08) ----------------------------------------------------

# Every step at 80×24 in both languages lines up; at the softmax stage ] and [
# switch the head shown (the ribbon says which, the boxes are the head's own),
# 6 jumps to stage 6 with y₂₁ split by head; in a one-head lesson ] says why
# it does nothing.
t_heads()
{
    L8=$E2E_ROOT/lessons/08-two-heads.yaml
    for lang in en zh; do
        s=t_heads_$lang
        start_view $s 80 24 "$BIN" --lang $lang "$L8"
        expect $s "[1 X]" "lesson 08 did not open ($lang)" || return 1
        n=$(steps_of "$SCREEN") k=1
        while :; do
            screen_sane 80 24 || { WHY="$lang step $k: $WHY"; return 1; }
            [ "$k" -lt "$n" ] || break
            keys $s n
            k=$((k + 1))
            expect $s " $k/$n · " "n did not reach step $k ($lang)" || return 1
            if screen_asks; then # a question: Space reveals it
                keys $s Space
                expect_re $s "Revealed|揭晓" "Space did not reveal the answer at step $k ($lang)" || return 1
            fi
        done
        stop $s
    done
    s=t_heads
    start_view $s 80 24 "$BIN" --lang en "$L8"
    expect $s "[1 X]" || return 1
    keys $s 4
    expect $s "head 1/2" "4: the ribbon does not say head 1/2" || return 1
    expect $s "S1 = Q1·K1ᵀ/√2" "4: head 1's S is not shown" || return 1
    expect $s "α₂ = exp ÷ sum ≈ [0.892, 0.053, 0.003, 0.053]" "4: head 1's weights of 追" || return 1
    keys $s ']'
    expect $s "head 2/2" "]: the ribbon does not say head 2/2" || return 1
    expect $s "S2 = Q2·K2ᵀ/√2" "]: head 2's S is not shown" || return 1
    expect $s "α₂ = exp ÷ sum = [0.028, 0.472, 0.028, 0.472]" "]: head 2's weights of 追" || return 1
    screen_sane 80 24 || return 1
    keys $s '['
    expect $s "head 1/2" "[: back to head 1" || return 1
    expect $s "S1 = Q1·K1ᵀ/√2" || return 1
    keys $s 6
    expect $s "Y = O·Wo" "6: stage 6 is not shown" || return 1
    expect $s "y₂₁ = head 1 0.895 + head 2 0.472 = 1.367" "6: y₂₁ is not split by head" || return 1
    screen_re "h2·1" || { fail "6: O's columns are not labelled by head"; return 1; }
    stop $s
    s=t_heads_one
    start_view $s 80 24 "$BIN" --lang en "$L1"
    expect $s "[1 X]" || return 1
    keys $s ']'
    expect $s "This lesson has one head" "]: a one-head lesson does not say why nothing changed" || return 1
    keys $s 6
    expect $s "no step at stage 6" "6 in a lesson without W_O" || return 1
}

# ---- run them ------------------------------------------------------------------------

T0=$(date +%s)
# A model lesson (tests/lessons/model-2l.yaml): every step sane at 80×24
# and 60×18, } shows layer 2, M every layer × head, i the input in the
# prompt, a token appended through it.
t_model()
{
    LM=$E2E_ROOT/tests/lessons/model-2l.yaml
    for size in "80 24" "60 18"; do
        set -- $size
        s=t_model_$1
        start_view $s "$1" "$2" "$BIN" "$LM"
        expect $s "[1 embed]" "the model lesson did not open at stage 1 ($1×$2)" || return 1
        n=$(steps_of "$SCREEN") k=1
        while :; do
            screen_sane "$1" "$2" || { WHY="$1×$2 step $k: $WHY"; return 1; }
            [ "$k" -lt "$n" ] || break
            keys $s n
            k=$((k + 1))
            expect $s " $k/$n · " "n did not reach step $k ($1×$2)" || return 1
        done
        stop $s
    done
    s=t_model
    start_view $s 80 24 "$BIN" "$LM"
    expect $s "[1 embed]" || return 1
    expect $s "L1.a[1][1] = (x − μ) ÷ σ · g + β" "stage 1: no norm arithmetic" || return 1
    keys $s n
    expect $s "[4 softmax]" "n: not at layer 1's softmax" || return 1
    expect $s "L1/2 ·" "the ribbon does not name layer 1" || return 1
    keys $s '}'
    expect $s "L2/2 ·" "}: the ribbon does not name layer 2" || return 1
    expect $s "Layer 2 of 2." "}: no status line for the layer" || return 1
    keys $s M
    expect $s "L2.H2" "M: the model view has no L2.H2" || return 1
    expect $s "ind  " "M: no induction score" || return 1
    keys $s M i
    expect $s ":tokens = <s> A B C A B" "i: the prompt does not hold the input" || return 1
    typetext $s " D"
    keys $s Enter
    expect $s "7×7" "the appended token: S is not 7×7" || return 1
    keys $s End
    expect $s "[8 next]" "End: not at the next token" || return 1
    expect $s "the most likely" "stage 8: no bars of the top tokens" || return 1
    expect $s "p[6][D] = exp(z − max) ÷ Σ" "stage 8: no softmax of p" || return 1
    stop $s
}

# The watch mode on a model lesson with train: (written here): W trains
# under the loss curve, a key stops it, u undoes the whole run.
t_model_watch()
{
    LW=$E2E_TMP/watch.yaml
    cat >"$LW" <<'YAML'
format: qkvtutor/1
title: watch it learn
vocab: [<s>, A, B, C, D, E, F, G]
tokens: [<s>, A, B, C, D, A, B, C, D]
model: {layers: 2, d_model: 8, heads: 2, ctx: 16}
weights: {random: {seed: 1, scale: 0.3}}
train:
  data: {task: copy, length: [3, 6], seed: 1}
  optimizer: {adam: {lr: 0.01}}
  batch: 16
  steps: 3000
steps:
  - stage: softmax
    layer: 2
    say: Press W.
YAML
    s=t_model_watch
    start_view $s 80 24 "$BIN" "$LW"
    expect $s "[4 softmax]" "the watch lesson did not open" || return 1
    keys $s W
    expect_re $s "loss [0-9.]+ → [0-9.]+ · step [0-9]+ · any key stops" "W: no loss curve" || return 1
    expect $s "L2.H2" "W: the heads are not shown" || return 1
    keys $s x
    expect $s "Stopped after" "a key did not stop the watch mode" || return 1
    keys $s u
    expect $s "Undid the whole training run." "u did not undo the run" || return 1
    stop $s
}

run_test "steps: n/Space/PgDn through the 5 stages, PgUp/p/Backspace back" t_steps
run_test "steps: placeholder label \"not yet\" whole at 80×24" t_placeholder_label
run_test "keys: Home/End as tmux sends them; an unknown escape sequence does nothing" t_stray_escape
run_test "focus: score₁₂ arithmetic at (1,2), arrows and hjkl" t_focus
run_test "resize: 80×24 → 30×8 too small → 120×40" t_resize
run_test "help: ? opens, Esc/? close, q quits" t_help
run_test "help: lists q quit at 80×24" t_help_complete
run_test "restore: terminal sane after q" t_restore_q
run_test "restore: terminal sane after SIGINT (Ctrl-C)" t_restore_int
run_test "restore: terminal sane after SIGTERM" t_restore_term
run_test "restore: terminal sane after SIGHUP" t_restore_hup
run_test "restore: terminal sane after Ctrl-\\ (SIGQUIT)" t_restore_quit
run_test "restore: terminal sane after SIGPIPE" t_restore_pipe
run_test "restore: terminal sane after SIGUSR1" t_restore_usr1
run_test "restore: terminal sane after SIGALRM" t_restore_alrm
run_test "restore: terminal sane after a crash (SIGSEGV)" t_restore_segv
run_test "restore: terminal sane after SIGABRT" t_restore_abrt
run_test "suspend: Ctrl-Z stops, fg redraws" t_suspend
run_test "no terminal: exit 2, points to --dump" t_noterm
run_test "TERM=dumb: exit 2 and one line pointing to --dump, no blank screen" t_dumb
run_test "edit: :Q[1] = K[1] * 5, s, u, u, Ctrl-R, r, bad action" t_edit_experiment
run_test "edit: e 2 Enter, w save, --json/--check/reopen the file" t_edit_save
run_test "edit: q with unsaved edits asks, x stays, y quits" t_quit_unsaved
run_test "edit: below 60×18 with unsaved edits q and Ctrl-C ask, y quits, other keys stay" t_small_unsaved
run_test "edit: Ctrl-C cancels the : prompt, then asks like q; Ctrl-C again stays" t_ctrlc_unsaved
run_test "edit: Q[1][1] = 1e30 keeps the screen readable" t_edit_huge
run_test "lesson 2: the script shows 0.313 → 0.873, then 0.695" t_lesson2
run_test "big: 120×40 step-through, nothing garbled" t_big
run_test "zh: --lang zh at 80×24, every step lines up" t_zh
run_test "help: nothing cut at 80×24 and 120×40 (same words as 200×60)" t_big_help
run_test "NO_COLOR=1: same text, mono theme" t_nocolor
run_test "projector theme on a terminal without colours: mono, focus in reverse" t_projector_mono
run_test "issue 11: the trace, the notice and the effect of :Q[1] = K[1] * 5 and s" t_trace_notice
run_test "issue 11: an exercise answered ✗ and ✓, revealed, tallied" t_exercise
run_test "issue 11: 60×18 softmax shows the whole quoted row" t_small_softmax
run_test "60×18 presentation: N shows every step's whole narration" t_say_whole
run_test "heads: lesson 08 at 80×24 (en, zh), ] [ switch heads, 6 shows Y by head" t_heads
run_test "model lesson: steps at 80×24 and 60×18, } M i, a token appended" t_model
run_test "model lesson: W watches it learn, a key stops, u undoes the run" t_model_watch
T1=$(date +%s)

echo "e2e: took $((T1 - T0)) s"
echo "e2e: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
