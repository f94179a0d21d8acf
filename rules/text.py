"""Names and text people type or import (issue 29 point 10), pure: no Django.

- ``normalise_name(text)``: NFKC (full-width Ｚｈａｎｇ is Zhang, a compatibility ideograph
  such as U+F9F4 its unified 林), inner runs of spaces made one, the ends trimmed: the form a
  name is stored in, whichever way it was typed, pasted or imported.
- ``check_text(text)`` / ``text_problem(text)``: refuse what no name or reason needs and what
  makes two names look alike or hides text — NUL (PostgreSQL cannot store it), a lone
  surrogate (no encoding can write it), control characters (a line break only where
  ``multiline``), invisible characters (zero-width spaces, the BOM, fillers: a "name" of only
  ``\\u200b`` looks empty) and the bidi controls (``\\u202e`` turns the text around on screen).
  ``TextError`` carries the problem's code, worded by ``tournaments.messages``.
- ``skeleton(text)``: what a name looks like, for finding look-alikes — NFKC, the Cyrillic and
  Greek letters that look Latin written as the Latin letter (``Zh\\u0430ng`` with a Cyrillic а is
  ``zhang``), a few katakana that look like Chinese characters written as those, case folded,
  spaces dropped. Two different names with one skeleton are "confusable": registration and the
  import warn about them, and search finds either by typing the other.

The registration services, the Excel import and the tournament file all use these, so a name
is the same whichever door it came in by.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from .errors import RuleError

# Bidi controls (Unicode's Bidi_Control property): embedding, override, isolate, the marks.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
# Characters that draw nothing although they are not format characters (category Cf is refused
# as a whole): fillers and blanks that make a name look empty or two names look alike.
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e")
LINE_BREAKS = frozenset("\n\r\t")

# Letters of other scripts drawn like a Latin letter (from Unicode's confusables, UTS #39, the
# ones a name can carry), and katakana drawn like a Chinese character.
_LOOK_ALIKE = {
    # Cyrillic
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "У": "Y", "Х": "X", "І": "I", "Ј": "J", "Ѕ": "S", "Ԛ": "Q", "Ԝ": "W", "Ү": "Y",
    "Ѵ": "V", "Ӏ": "I",
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ј": "j",
    "ѕ": "s", "ԁ": "d", "һ": "h", "ӏ": "l", "ԛ": "q", "ԝ": "w", "ү": "y", "ѵ": "v", "ё": "ë",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    "α": "a", "ο": "o", "ν": "v", "ι": "i", "κ": "k", "ρ": "p", "υ": "u", "χ": "x",
    # Latin look-alikes of Latin letters
    "ı": "i", "ɑ": "a", "ɡ": "g", "ʏ": "y",
    # Katakana that look like Chinese characters
    "ー": "一", "ロ": "口", "エ": "工", "カ": "力", "タ": "夕", "ニ": "二", "ハ": "八", "ト": "卜",
    "〇": "○",
}  # fmt: skip
_LOOK_ALIKE_TABLE = str.maketrans(_LOOK_ALIKE)


class TextError(RuleError):
    """A text that cannot be stored or shown as typed; ``code`` says why."""


def check_text(text: str, *, multiline: bool = False) -> None:
    """Raise ``TextError`` for a NUL, a lone surrogate, a control character (line breaks and
    tabs allowed when ``multiline``), an invisible character or a bidi control."""
    for char in text:
        category = unicodedata.category(char)
        if char == "\x00":
            raise TextError("nul_character")
        if category == "Cs":
            raise TextError("lone_surrogate")
        if char in BIDI_CONTROLS:
            raise TextError("bidi_control")
        if category == "Cc" and not (multiline and char in LINE_BREAKS):
            raise TextError("control_character")
        if category == "Cf" or char in BLANKS:
            raise TextError("invisible_character")


def text_problem(text: str, *, multiline: bool = False) -> str | None:
    """``check_text``'s code, or None when the text is fine (for a parser collecting
    problems)."""
    try:
        check_text(text, multiline=multiline)
    except TextError as error:
        return error.code
    return None


def normalise_name(text: str) -> str:
    """NFKC, one space between words, no space at the ends (check the text first: NFKC keeps
    the characters ``check_text`` refuses)."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def name_problem(text: str) -> str | None:
    """What is wrong with a name as given (``check_text``'s code), or ``empty_text`` when
    nothing is left once normalised."""
    return text_problem(text) or (None if normalise_name(text) else "empty_text")


def skeleton(text: str) -> str:
    """What ``text`` looks like (see the module's docstring): equal skeletons, look-alikes."""
    shown = unicodedata.normalize("NFKC", text).translate(_LOOK_ALIKE_TABLE)
    return "".join(shown.casefold().split())


def confusable(a: str, b: str) -> bool:
    """Two different names that look the same."""
    return a != b and skeleton(a) == skeleton(b)


def confusable_pairs(names: Iterable[str]) -> list[tuple[str, str]]:
    """Every two different names among ``names`` that look the same, each look-alike group
    once per different spelling: ``[("Zhang Wei", "Zh\\u0430ng Wei")]``."""
    first: dict[str, str] = {}
    found: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for name in names:
        key = skeleton(name)
        if not key:
            continue
        earlier = first.setdefault(key, name)
        if earlier != name and (earlier, name) not in seen:
            seen.add((earlier, name))
            found.append((earlier, name))
    return found
