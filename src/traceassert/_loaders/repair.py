"""Completing JSON that was cut off: a file still being written, or a run that crashed mid-export.

``complete_prefix(text, start)`` checks that ``text[start:]`` is the beginning of one JSON value and
nothing is wrong in it before the end. If so it returns a complete JSON text: cut after the last
complete element, with every container that was still open closed. Each object it closes gets the
member ``"\\u0000truncated": true`` (``_common.TRUNCATED``), so converters can drop the records that
were only partly written; arrays are closed as they are. The scanner is iterative (no recursion).
"""

from __future__ import annotations

import re

__all__ = ["complete_prefix"]

_TOKEN = re.compile(
    r"""[ \t\n\r]*(?:
      (?P<s>"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*")
    | (?P<p>[{}\[\],:])
    | (?P<n>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)(?![0-9A-Za-z.+-])
    | (?P<l>true|false|null|NaN|Infinity|-Infinity)(?![0-9A-Za-z])
    )""",
    re.VERBOSE,
)
_PARTIAL_STRING = re.compile(
    r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*(?:\\(?:u[0-9a-fA-F]{0,3})?)?\Z'
)
_PARTIAL_NUMBER = re.compile(r"-?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?(?:[eE][+-]?[0-9]*)?)?\Z")
_LITERALS = ("true", "false", "null", "NaN", "Infinity", "-Infinity")

_MARKER = '"\\u0000truncated":true}'

# what the scanner expects next
_VALUE, _VALUE_OR_CLOSE, _KEY, _KEY_OR_CLOSE, _COLON, _COMMA_OR_CLOSE = range(6)


def _is_partial_token(rest: str) -> bool:
    if rest.startswith('"'):
        return _PARTIAL_STRING.match(rest) is not None
    if any(lit.startswith(rest) for lit in _LITERALS):
        return True
    return _PARTIAL_NUMBER.match(rest) is not None


def complete_prefix(text: str, start: int) -> tuple[str, int] | None:
    """Repair the value that starts at ``start`` and runs to the end of ``text``.

    Returns ``(json_text, cut)``: ``cut`` is where the kept part of the original ends (``json_text``
    is empty when nothing complete was there). Returns None when the text is not a prefix of a JSON
    value: a syntax error comes before the end, or a complete value is followed by more text.
    """
    n = len(text)
    pos = start
    state = _VALUE
    stack: list[bool] = []  # True: an object, False: an array
    members: list[bool] = []  # whether each open container holds a complete member
    cut = -1
    cut_depth = 0
    token = _TOKEN.match
    while True:
        m = token(text, pos)
        if m is None:
            rest = text[pos:].lstrip(" \t\n\r")
            if rest and not _is_partial_token(rest):
                return None
            break
        end = m.end()
        kind = m.lastgroup
        if kind == "n" and end == n:
            break  # a number at the very end may have lost digits
        pos = end
        complete = False
        if kind == "s":
            if state in (_KEY, _KEY_OR_CLOSE):
                state = _COLON
                continue
            if state not in (_VALUE, _VALUE_OR_CLOSE):
                return None
            complete = True
        elif kind in ("n", "l"):
            if state not in (_VALUE, _VALUE_OR_CLOSE):
                return None
            complete = True
        else:
            punct = m.group("p")
            if punct in "{[":
                if state not in (_VALUE, _VALUE_OR_CLOSE):
                    return None
                stack.append(punct == "{")
                members.append(False)
                state = _KEY_OR_CLOSE if punct == "{" else _VALUE_OR_CLOSE
                cut, cut_depth = pos, len(stack)
                continue
            if punct == ":":
                if state != _COLON:
                    return None
                state = _VALUE
                continue
            if punct == ",":
                if state != _COMMA_OR_CLOSE:
                    return None
                state = _KEY if stack[-1] else _VALUE
                continue
            # a closing bracket
            is_object = punct == "}"
            if not stack or stack[-1] != is_object:
                return None
            if state not in (_COMMA_OR_CLOSE, _KEY_OR_CLOSE if is_object else _VALUE_OR_CLOSE):
                return None
            stack.pop()
            members.pop()
            complete = True
        if complete:
            if not stack:
                # the value is complete: nothing was cut, but something follows it
                rest = text[pos:].strip(" \t\n\r")
                return (text[start:pos], pos) if not rest else None
            members[-1] = True
            state = _COMMA_OR_CLOSE
            cut, cut_depth = pos, len(stack)
    if cut < 0:
        return ("", start)
    closers: list[str] = []
    for depth in range(cut_depth - 1, -1, -1):
        if stack[depth]:
            # an outer object's member (the container closed just before) is now complete as well
            comma = members[depth] or depth < cut_depth - 1
            closers.append(("," if comma else "") + _MARKER)
        else:
            closers.append("]")
    return (text[start:cut] + "".join(closers), cut)
