"""A plain text progress bar on stderr for long command-line runs (no dependency)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """``[██████░░░░]  600/1000  60%  3.1 s``, redrawn in place; silent when not a terminal
    unless ``force`` (so logs and pipes get one final line instead of hundreds)."""

    def __init__(self, label: str, stream: TextIO | None = None, width: int = 30) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.started = time.monotonic()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if not self.tty or (done < total and now - self._last < 0.1):
            return
        self._last = now
        self._draw(done, total, end="")

    def _draw(self, done: int, total: int, end: str) -> None:
        total = max(total, done, 1)
        filled = int(self.width * done / total)
        bar = "█" * filled + "░" * (self.width - filled)
        elapsed = time.monotonic() - self.started
        self.stream.write(
            f"\r{self.label} [{bar}] {done:>5}/{total}  {100 * done // total:>3}%  {elapsed:.1f} s"
            + end
        )
        self.stream.flush()

    def finish(self, done: int, total: int) -> None:
        self._draw(done, total, end="\n")
