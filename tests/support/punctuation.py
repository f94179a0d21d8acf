"""Full-width punctuation left in an English page: the visible text and the attributes people
read, with the players' and units' names (data, not interface) taken out."""

from __future__ import annotations

import re
from html.parser import HTMLParser

FULL_WIDTH = re.compile(r"[：（），。；！？、【】]")


class _Text(HTMLParser):
    """The visible text and the attributes people read (title, placeholder, aria-label)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        for name, value in attrs:
            if name in ("title", "placeholder", "aria-label", "alt") and value:
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip = max(0, self._skip - 1)

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def offending(html: str, allowed: set[str]) -> list[str]:
    parser = _Text()
    parser.feed(html)
    lines = []
    for part in parser.parts:
        text = part
        for value in allowed:  # players' and units' names are data, not interface
            text = text.replace(value, "")
        if FULL_WIDTH.search(text):
            lines.append(part.strip())
    return lines
