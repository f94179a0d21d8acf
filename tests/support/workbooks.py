"""A registration workbook (报名表) with the given rows, as the import page and command read it."""

from __future__ import annotations

import io
from typing import Any

from openpyxl import Workbook

from reports import xlsx


def template_with(rows: list[list[Any]]) -> bytes:
    book = Workbook()
    ws = book.active
    ws.title = "报名表"
    ws.append(list(xlsx.REGISTRATION_HEADERS))
    for row in rows:
        ws.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()
