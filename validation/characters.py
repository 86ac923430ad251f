"""Characters that cannot be seen: rejected in ground-truth values, escaped wherever text is shown.

A value can look right and be wrong: `Ingrid So\u0301lvang` (a combining accent), `Ed\u200bWood` (a
zero-width space), `Еd Wood` (a Cyrillic Е), a no-break space, a NUL or a CR. Such values are refused at
the input boundary with the character named; text from input data is compared in one Unicode
normalisation (NFC), and every message and terminal line shows invisible characters as escapes, so two
strings that differ never look the same, and no input can send a terminal control sequence.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from validation import paths

FORM = "NFC"  # the one normalisation every text from input data is compared in
# Control characters a value may hold: line breaks and tabs of multi-line answers.
_ALLOWED_CONTROLS = frozenset("\n\t")
# Categories of characters that cannot be seen: controls, format characters (zero-width, bidi, BOM, soft
# hyphen), line and paragraph separators, private use, unassigned code points.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cn", "Cs"})
_WORD = re.compile(r"\w+")
_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE")  # the alphabets whose letters look alike


def is_hidden(char: str) -> bool:
    """A character that shows as nothing, or as a space that is not one (U+0020 is the only space)."""
    category = unicodedata.category(char)
    return category in _HIDDEN_CATEGORIES or (category == "Zs" and char != " ")


def visible(text: str) -> str:
    """`text` with every hidden character written as an escape (`\\u200b`, `\\x1b`, `\\n`), so a message
    or a terminal line shows exactly what is there and cannot move the cursor, clear the screen or
    change colours."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(_escape(c) if is_hidden(c) else c for c in text)


def _escape(char: str) -> str:
    special = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    if char in special:
        return special[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def normalised(value: Any) -> Any:
    """Every string (keys too) of a JSON value in NFC: a letter and its combining accent become one."""
    if isinstance(value, str):
        return value if value.isascii() else unicodedata.normalize(FORM, value)
    if isinstance(value, dict):
        return {normalised(k): normalised(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalised(v) for v in value]
    return value


def plain_ascii(value: Any) -> bool:
    """Every string of a JSON value (keys too) printable ASCII: `normalised` leaves it as it is and
    `value_problems` finds nothing in it (most answers), so both can be skipped."""
    if isinstance(value, str):
        return value.isascii() and value.isprintable()
    if isinstance(value, dict):
        return all(isinstance(key, str) and plain_ascii(key) and plain_ascii(child) for key, child in value.items())
    if isinstance(value, list):
        return all(plain_ascii(child) for child in value)
    return True


def mixed_script_word(text: str) -> str | None:
    """The first word whose letters come from two alphabets that look alike (a Cyrillic `е` in a Latin
    word), or None."""
    if text.isascii():
        return None
    for match in _WORD.finditer(text):
        word = match.group()
        if word.isascii():
            continue
        scripts = {script for c in word if c.isalpha() and (script := _script(c))}
        if len(scripts) > 1:
            return word
    return None


def _script(char: str) -> str | None:
    name = unicodedata.name(char, "")
    return next((script for script in _SCRIPTS if name.startswith(script)), None)


def value_problems(value: Any, root: str = "$") -> Iterator[tuple[str, str, str]]:
    """(JSON path, code, message) for every string of a ground truth (keys included) that holds a hidden
    character, or a word mixing look-alike alphabets. Values are checked after `normalised`."""
    stack: list[tuple[Any, str]] = [(value, root)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict):
            for key, child in reversed(list(node.items())):
                inner = paths.child(where, str(key))
                yield from _string_problems(str(key), inner, "key")
                stack.append((child, inner))
        elif isinstance(node, list):
            stack.extend((child, paths.index(where, i)) for i, child in reversed(list(enumerate(node))))
        elif isinstance(node, str):
            yield from _string_problems(node, where, "value")


def _string_problems(text: str, where: str, what: str) -> Iterator[tuple[str, str, str]]:
    if text.isascii() and text.isprintable():
        return
    hidden = sorted({c for c in text if c not in _ALLOWED_CONTROLS and is_hidden(c)})
    if hidden:
        names = ", ".join(f"{_escape(c)} ({_name(c)})" for c in hidden)
        shown = paths.shorten(visible(text))
        yield where, "invisible_character", f"the {what} '{shown}' holds {names}: remove it or type what it stands for"
    word = mixed_script_word(text)
    if word is not None:
        scripts = ", ".join(sorted({s for c in word if (s := _script(c))}))
        letters = ", ".join(f"{_escape(c)} {_name(c)}" for c in dict.fromkeys(word) if not c.isascii())
        yield where, "mixed_script", f"the word '{word}' mixes {scripts} letters ({letters}): retype it in one alphabet"


def _name(char: str) -> str:
    return unicodedata.name(char, "") or _CONTROL_NAMES.get(char, f"control character {unicodedata.category(char)}")


_CONTROL_NAMES = {"\0": "NUL", "\r": "CARRIAGE RETURN", "\x1b": "ESCAPE", "\x7f": "DELETE", "\x08": "BACKSPACE"}
