"""The tabular documents: titled, paginated tables (``render_table`` / ``render_sections``) and
the pairing lists, standings and penalty reports built on them."""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import BinaryIO

from reportlab.lib.pagesizes import A4, landscape
from reportlab.pdfgen.canvas import Canvas

from reports.pdf.common import (
    MARGIN,
    MUTED,
    ZEBRA,
    Progress,
    binary_streams,
    cell_text,
    draw_box,
    draw_grid,
    draw_text,
    fit,
    format_number,
    new_canvas,
    print_time,
    shade,
)
from reports.rows import (
    PairingList,
    PenaltyReport,
    Standings,
)
from tournaments.wording import printed_side

# --- tabular documents --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Column:
    label: str
    width: float  # relative; scaled to the page width
    align: str = "center"


@dataclass(frozen=True, slots=True)
class Section:
    """One titled table of a tabular document; a document is one or more sections, each
    starting on a new page with its own page numbers."""

    title: str
    subtitle: str
    columns: Sequence[Column]
    rows: Sequence[Sequence[str]]
    notes: Sequence[str] = ()
    orientation: str = "portrait"
    empty: str = "（无）"


def render_table(
    title: str,
    subtitle: str,
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    target: BinaryIO | None = None,
    orientation: str = "portrait",
    notes: Sequence[str] = (),
    progress: Progress | None = None,
    printed_at: str | None = None,
    empty: str = "（无）",
) -> bytes:
    """A titled, paginated table (see ``render_sections``)."""
    section = Section(title, subtitle, columns, rows, notes, orientation, empty)
    return render_sections([section], target, progress, printed_at)


def render_sections(
    sections: Sequence[Section],
    target: BinaryIO | None = None,
    progress: Progress | None = None,
    printed_at: str | None = None,
) -> bytes:
    """Sections one after another in one PDF."""
    buffer = target if target is not None else io.BytesIO()
    first = sections[0] if sections else Section("", "", (), ())
    pagesize = landscape(A4) if first.orientation == "landscape" else A4
    stamp = print_time() if printed_at is None else printed_at
    with binary_streams():
        c = new_canvas(buffer, first.title, pagesize)
        for section in sections:
            _draw_section(c, section, stamp, progress)
        c.save()
    return buffer.getvalue() if isinstance(buffer, io.BytesIO) else b""


def _draw_section(c: Canvas, s: Section, stamp: str, progress: Progress | None) -> None:
    """Draw one section: the header repeats on every page, "第 x 页 共 y 页" below.

    Rows have one fixed height, so the page count is known before drawing. Long cells are cut
    with "…" rather than wrapped, so a row never breaks the rhythm of the list.
    """
    pagesize = landscape(A4) if s.orientation == "landscape" else A4
    c.setPageSize(pagesize)
    page_w, page_h = pagesize
    columns, rows, notes, title = s.columns, s.rows, s.notes, s.title
    width = page_w - 2 * MARGIN
    scale = width / sum(col.width for col in columns)
    widths = [col.width * scale for col in columns]
    row_h = 17.0
    header_h = 22.0
    first_top = page_h - MARGIN - 52
    other_top = page_h - MARGIN - 24
    notes_h = 14.0 * len(notes)
    bottom = MARGIN + 12
    first_rows = max(1, int((first_top - header_h - bottom) // row_h))
    other_rows = max(1, int((other_top - header_h - bottom) // row_h))
    n = len(rows)
    pages = 1 if n <= first_rows else 1 + math.ceil((n - first_rows) / other_rows)
    # Notes go after the last row; give them a page of their own if they do not fit.
    last_rows = n if pages == 1 else n - first_rows - (pages - 2) * other_rows
    last_capacity = first_rows if pages == 1 else other_rows
    if notes and (last_capacity - last_rows) * row_h < notes_h + 24:
        pages += 1
    index = 0
    for page in range(1, pages + 1):
        if page == 1:
            draw_text(
                c, page_w / 2, page_h - MARGIN - 16, fit(title, width, 16), 16, "center", bold=True
            )
            draw_text(c, page_w / 2, page_h - MARGIN - 36, s.subtitle, 11, "center", MUTED)
            table_top = first_top
            capacity = first_rows
        else:
            draw_text(
                c,
                MARGIN,
                page_h - MARGIN - 10,
                fit(f"{title}　{s.subtitle}", width, 9),
                9,
                color=MUTED,
            )
            table_top = other_top
            capacity = other_rows
        chunk = rows[index : index + capacity]
        index += len(chunk)
        if chunk or page == 1:
            shade(c, MARGIN, table_top - header_h, width, header_h)
            xx = MARGIN
            for col, w in zip(columns, widths, strict=True):
                cell_text(c, xx, table_top - header_h, w, header_h, col.label, 9.5)
                xx += w
            for i, row in enumerate(chunk):
                yy = table_top - header_h - (i + 1) * row_h
                if i % 2 == 1:
                    shade(c, MARGIN, yy, width, row_h, ZEBRA)
                xx = MARGIN
                for col, w, text in zip(columns, widths, row, strict=True):
                    cell_text(c, xx, yy, w, row_h, text, 9.5, col.align)
                    xx += w
            body = header_h + len(chunk) * row_h
            draw_grid(c, MARGIN, table_top, widths, [header_h] + [row_h] * len(chunk), 0.3)
            draw_box(c, MARGIN, table_top - body, width, body, 0.9)
            if not rows:
                draw_text(c, MARGIN + 4, table_top - header_h - 16, s.empty, 10, color=MUTED)
            after = table_top - body - (18 if rows else 36)
        else:
            after = table_top - 10
        if page == pages and notes:
            for k, note in enumerate(notes):
                draw_text(c, MARGIN, after - k * 14, fit(note, width, 9.5), 9.5)
        draw_text(c, page_w / 2, MARGIN - 6, f"第 {page} 页  共 {pages} 页", 8.5, "center", MUTED)
        draw_text(c, page_w - MARGIN, MARGIN - 6, f"打印时间 {stamp}", 8, "right", MUTED)
        c.showPage()
        if progress:
            progress(page, pages)


# --- pairing lists ------------------------------------------------------------------------


def render_pairings(doc: PairingList, target: BinaryIO | None = None) -> bytes:
    """The round's pairing list twice: by table, then by pair number (players look themselves
    up); a bye is listed as 轮空. One PDF, the second list starting on a new page. A team
    event's list starts with its matches (teams, tables)."""
    sections = [pairings_by_table(doc), pairings_by_pair(doc)]
    if doc.matches or doc.bye_team:
        sections.insert(0, pairings_by_match(doc))
    return render_sections(sections, target)


def pairings_by_match(doc: PairingList) -> Section:
    """A team round (RULES.md §6): each match, its teams (the first NS at 甲) and tables."""
    columns = (
        Column("场次", 7),
        Column("队（甲桌南北）", 30, "left"),
        Column("单位", 18, "left"),
        Column("队（甲桌东西）", 30, "left"),
        Column("单位", 18, "left"),
        Column("桌号", 12),
    )
    rows = [
        (
            str(m.match),
            m.home,
            m.home_unit,
            m.away,
            m.away_unit,
            "、".join(str(n) for n in m.tables),
        )
        for m in doc.matches
    ]
    notes = [f"轮空队：{doc.bye_team}"] if doc.bye_team else []
    notes.append("每场两桌：甲桌（2m−1）与甲1桌（2m），两队交叉就座，两桌成绩合并计算。")
    return Section(
        doc.tournament, f"第 {doc.round_number} 轮 团体赛对阵表", columns, rows, notes=notes
    )


def pairings_by_table(doc: PairingList) -> Section:
    columns = (
        Column("桌号", 7),
        Column("南北对号", 9),
        Column("南北牌手", 24, "left"),
        Column("单位", 16, "left"),
        Column("东西对号", 9),
        Column("东西牌手", 24, "left"),
        Column("单位", 16, "left"),
    )
    rows = []
    byes = []
    for line in doc.lines:
        if line.ew is None:
            byes.append(line.ns)
            continue
        rows.append(
            (
                str(line.table_number),
                str(line.ns.number),
                line.ns.names,
                line.ns.unit,
                str(line.ew.number),
                line.ew.names,
                line.ew.unit,
            )
        )
    notes = [
        f"轮空：第 {p.number} 对　{p.names}{'（' + p.unit + '）' if p.unit else ''}" for p in byes
    ]
    return Section(
        doc.tournament,
        f"第 {doc.round_number} 轮 对阵表（按桌号）",
        columns,
        rows,
        notes=notes,
    )


def pairings_by_pair(doc: PairingList) -> Section:
    columns = (
        Column("对号", 8),
        Column("牌手", 26, "left"),
        Column("单位", 18, "left"),
        Column("桌号", 8),
        Column("方向", 8),
        Column("对手", 8),
        Column("对手牌手", 24, "left"),
    )
    entries: list[tuple[int, tuple[str, ...]]] = []
    for line in doc.lines:
        if line.ew is None:
            entries.append(
                (
                    line.ns.number,
                    (
                        str(line.ns.number),
                        line.ns.names,
                        line.ns.unit,
                        printed_side("BYE"),
                        "",
                        "",
                        "",
                    ),
                )
            )
            continue
        for me, other, side in ((line.ns, line.ew, "NS"), (line.ew, line.ns, "EW")):
            entries.append(
                (
                    me.number,
                    (
                        str(me.number),
                        me.names,
                        me.unit,
                        str(line.table_number),
                        printed_side(side),
                        str(other.number),
                        other.names,
                    ),
                )
            )
    entries.sort(key=lambda e: e[0])
    return Section(
        doc.tournament,
        f"第 {doc.round_number} 轮 对阵表（按对号）",
        columns,
        [row for _, row in entries],
    )


# --- standings ----------------------------------------------------------------------------


def standings_title(doc: Standings) -> str:
    kind = "团体" if doc.teams else ""
    if doc.final:
        return f"最终{kind}排名"
    if doc.after_round == 0:
        return f"{kind}排名（比赛开始前）"
    return f"第 {doc.after_round} 轮后{kind}排名"


def render_standings(doc: Standings, target: BinaryIO | None = None) -> bytes:
    """Every tiebreak column of the preset and the criterion that decided each row."""
    columns = [
        Column("名次", 6),
        Column("队号" if doc.teams else "对号", 6),
        Column("队名" if doc.teams else "牌手", 20, "left"),
        Column("单位", 14, "left"),
    ]
    for col in doc.columns:
        columns.append(Column(col.label, max(6.0, 2.2 * len(col.label))))
    columns += [Column("胜/平/负", 9), Column("扣分", 5), Column("名次依据", 10)]
    rows = []
    for line in doc.lines:
        rows.append(
            [str(line.rank), str(line.pair.number), line.pair.names, line.pair.unit]
            + [format_number(line.values.get(col.key)) for col in doc.columns]
            + [
                f"{line.wins}/{line.draws}/{line.losses}",
                format_number(line.deductions) if line.deductions else "",
                line.decided_by,
            ]
        )
    order = doc.criteria or tuple(col.label for col in doc.columns)
    notes = [f"排名依据（依次）：{'、'.join(order)}"] if order else []
    if doc.preset:
        notes.append(f"破同分规则：{doc.preset}")
    who = "该队" if doc.teams else "该对"
    notes.append(f"“名次依据”为将{who}与上一名分开的项目；级差分已扣除判罚扣分。")
    notes.extend(doc.notes)
    if doc.settings:
        notes.append("赛事设置：" + "；".join(f"{label} {value}" for label, value in doc.settings))
    return render_table(
        doc.tournament,
        standings_title(doc),
        columns,
        rows,
        target,
        orientation="landscape" if len(columns) > 10 else "portrait",
        notes=notes,
    )


# --- penalties ----------------------------------------------------------------------------


def render_penalties(doc: PenaltyReport, target: BinaryIO | None = None) -> bytes:
    columns = (
        Column("轮次", 5),
        Column("桌号", 5),
        Column("对号", 5),
        Column("受罚选手", 10, "left"),
        Column("类别", 9),
        Column("副数", 5),
        Column("扣分", 5),
        Column("原因", 28, "left"),
        Column("裁判", 8, "left"),
        Column("时间", 13),
    )
    rows = [
        (
            format_number(p.round_number),
            format_number(p.table_number),
            str(p.pair.number),
            p.player or p.pair.names,
            p.kind,
            format_number(p.deal),
            format_number(p.jcf),
            p.reason,
            p.referee,
            p.time,
        )
        for p in doc.lines
    ]
    scope = f"第 {doc.round_number} 轮" if doc.round_number else "全部轮次"
    return render_table(
        doc.tournament,
        f"判罚记录（{scope}）",
        columns,
        rows,
        target,
        orientation="landscape",
        empty="（本范围内没有判罚记录）",
    )
