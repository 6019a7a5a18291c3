# SPDX-License-Identifier: GPL-2.0
"""C source as text, for the migration kit's scripts (si-timer-audit.py,
si-migrate-scan.py): regular expressions over code with its comments and
literals blanked, and brackets matched by counting."""

import re


def strip_comments(text):
    """Comments and string and character literals become blanks; newlines
    stay, so offsets and line numbers still match the file."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  blank, text, flags=re.S)


def closing(t, i, pair="{}"):
    """Index of the pair[1] closing the pair[0] at t[i] (len(t) if
    unclosed)."""
    step = {pair[0]: 1, pair[1]: -1}
    d = 0
    for j in range(i, len(t)):
        d += step.get(t[j], 0)
        if d == 0:
            return j
    return len(t)


def block_end(t, i):
    """Index of the '}' closing the '{' at t[i] (len(t) if unclosed)."""
    return closing(t, i)


def split_args(s):
    """An argument list's text split at its top-level commas, stripped."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def call_args(text, pos):
    """Arguments of the call whose '(' is at or after pos."""
    start = text.index("(", pos) + 1
    depth, i = 1, start
    while i < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    return split_args(text[start:i - 1])
