"""The chief referee corrects a confirmed table on the sheet, one change at a time (issue 15
"Corrections by deal"): the change in the history and the audit log as a sentence, the header
saying who corrected, when and why; the lateness locked once a deal is entered."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from scoring import services as scoring_services
from tests.support.pages import (
    EIGHT,
    client_for,
    fresh,
    make_cast,
    make_tournament,
    page_messages,
    post,
    table_url,
    tokens_of,
)
from tests.support.tournament import enter_tokens, next_round
from tournaments.models import AuditEntry, Table, Tournament


@pytest.fixture
def cast(db: Any) -> dict[str, Any]:
    return make_cast()


@pytest.fixture
def confirmed(cast: dict[str, Any]) -> Table:
    """Table 1 of round 1 with EIGHT entered and confirmed (deal 5 is NS1: 南北上游 对家末游)."""
    tournament = make_tournament(cast)
    table = next_round(tournament, cast["organizer"]).tables.filter(is_bye=False).first()
    table = enter_tokens(table, EIGHT, cast["referee"])
    return scoring_services.confirm_table(table, cast["referee2"], table.version)


def correct(client: Any, table: Table, **data: Any) -> Any:
    return post(client, table_url(table, "correct"), {"version": fresh(table).version, **data})


def test_chief_changes_deal_5_by_tapping_and_the_history_reads_a_sentence(
    cast: dict[str, Any], confirmed: Table
) -> None:
    chief = client_for(cast["chief"])
    page = chief.get(table_url(confirmed) + "?fix=5").content.decode()
    assert 'data-testid="fixing"' in page and "更正第5副" in page
    assert 'data-testid="fix-tap-NS2"' in page and 'data-testid="fix-delete"' in page
    response = correct(
        chief, confirmed, op="replace", position=5, token="NS2", reason="对家是三游，录成末游"
    )
    assert tokens_of(confirmed) == [*EIGHT[:4], "NS2", *EIGHT[5:]]
    entry = AuditEntry.objects.get(table=confirmed, action="correct")
    assert entry.reason == "对家是三游，录成末游" and entry.actor == "chief"
    html = response.content.decode()
    assert "第5副：南北上游 对家末游 → 对家三游（原因：对家是三游，录成末游）" in html
    # The header says who corrected, when and why; the state is 已更正.
    assert 'data-testid="corrected-by"' in html and "已由 chief 于" in html
    assert response.context["status"] == "corrected"
    assert fresh(confirmed).entry_status == "confirmed"


def test_insert_delete_start_and_end_as_corrections(cast: dict[str, Any], confirmed: Table) -> None:
    chief = client_for(cast["chief"])
    # 计副制 (8 deals): a deleted or an inserted deal alone is no complete match — refused by
    # the engine, nothing changes; replacing works.
    response = correct(chief, confirmed, op="replace", position=8, delete="1", reason="多录")
    assert any("8" in m for m in page_messages(response)) and tokens_of(confirmed) == EIGHT
    correct(chief, confirmed, op="insert", position=1, token="NS3", reason="漏录第1副")
    assert tokens_of(confirmed) == EIGHT
    correct(chief, confirmed, op="replace", position=8, token="EW3", reason="第8副东西双下")
    assert tokens_of(confirmed) == [*EIGHT[:7], "EW3"]
    correct(chief, confirmed, op="start", late_side="EW", minutes=7, reason="东西迟到7分钟")
    table = fresh(confirmed)
    assert (table.start_ns, table.start_ew) == (4, 2)
    correct(chief, confirmed, op="end", kind="late_sheet", side="EW", reason="东西迟交记分表")
    assert fresh(confirmed).end_kind == "late_sheet"
    assert AuditEntry.objects.filter(table=confirmed, action="correct").count() == 3
    html = client_for(cast["referee"]).get(table_url(confirmed)).content.decode()
    assert "第8副：东西上游 对家末游 → 对家二游" in html
    assert "起始级：南北2、东西2 → 南北4、东西2" in html
    assert "结束方式：正常结束 → 东西迟交记分表" in html


def test_a_timed_round_takes_an_inserted_or_deleted_deal(cast: dict[str, Any], db: Any) -> None:
    """计时制 (RULES.md §2): the deals completed count, so one deal more or less is a match."""
    tournament = make_tournament(cast)
    Tournament.objects.filter(pk=tournament.pk).update(
        settings={**tournament.settings, "round_format": "timed"}
    )
    table = next_round(tournament, cast["organizer"]).tables.filter(is_bye=False).first()
    table = enter_tokens(table, ["NS3", "EW2", "NS1"], cast["referee"])
    table = scoring_services.confirm_table(table, cast["referee2"], table.version)
    chief = client_for(cast["chief"])
    page = chief.get(table_url(table) + "?fix=4").content.decode()
    assert "在最后添加一副" in page and 'data-testid="fix-delete"' not in page
    correct(chief, table, op="insert", position=2, token="EW3", reason="漏录第2副")
    assert tokens_of(table) == ["NS3", "EW3", "EW2", "NS1"]
    correct(chief, table, op="insert", position=5, token="NS2", reason="漏录最后一副")
    correct(chief, table, op="delete", position=1, reason="第1副不算")
    assert tokens_of(table) == ["EW3", "EW2", "NS1", "NS2"]
    html = chief.get(table_url(table)).content.decode()
    assert "插入第2副：东西上游 对家二游（原因：漏录第2副）" in html
    assert "录入第5副：南北上游 对家三游" in html
    assert "删除第1副：南北上游 对家二游" in html


@pytest.mark.parametrize(
    "data",
    [
        {"op": "replace", "position": 5, "token": "NS2", "reason": "  "},
        {"op": "replace", "position": 9, "token": "NS2", "reason": "x"},
        {"op": "replace", "position": 5, "token": "NS9", "reason": "x"},
        {"op": "replace", "token": "NS2", "reason": "x"},
        {"op": "insert", "position": 10**30, "token": "NS2", "reason": "x"},
        {"op": "end", "kind": "forfeit", "side": "", "reason": "x"},
        {"op": "bogus", "position": 1, "reason": "x\x00"},
    ],
)
def test_a_bad_correction_changes_nothing(
    cast: dict[str, Any], confirmed: Table, data: dict[str, Any]
) -> None:
    before = fresh(confirmed).version
    response = correct(client_for(cast["chief"]), confirmed, **data)
    assert page_messages(response)
    assert tokens_of(confirmed) == EIGHT and fresh(confirmed).version == before


def test_only_the_chief_corrects_and_only_a_confirmed_table(
    cast: dict[str, Any], confirmed: Table
) -> None:
    data = {"op": "replace", "position": 5, "token": "NS2", "reason": "x"}
    response = client_for(cast["referee"]).post(
        table_url(confirmed, "correct"), {"version": confirmed.version, **data}
    )
    assert response.status_code == 403 and tokens_of(confirmed) == EIGHT
    page = client_for(cast["referee"]).get(table_url(confirmed) + "?fix=5").content.decode()
    assert 'data-testid="fix-' not in page


def test_lateness_is_locked_once_a_deal_is_entered(cast: dict[str, Any], db: Any) -> None:
    tournament = make_tournament(cast)
    table = next_round(tournament, cast["organizer"]).tables.filter(is_bye=False).first()
    referee = client_for(cast["referee"])
    post(referee, table_url(table, "start"), {"version": 0, "late_side": "EW", "minutes": 3})
    assert (fresh(table).start_ns, fresh(table).start_ew) == (3, 2)
    table = enter_tokens(fresh(table), ["NS3"], cast["referee"])
    response = post(
        referee,
        table_url(table, "start"),
        {"version": table.version, "late_side": "EW", "minutes": 7},
    )
    assert any("锁定" in m for m in page_messages(response))
    assert fresh(table).start_ns == 3
    # The chief may still change it, audited.
    post(
        client_for(cast["chief"]),
        table_url(table, "start"),
        {"version": fresh(table).version, "late_side": "EW", "minutes": 7},
    )
    assert fresh(table).start_ns == 4
    assert AuditEntry.objects.filter(table=table, action="set_start").exists()


def test_the_audit_log_reads_sentences_with_the_raw_data_one_click_away(
    cast: dict[str, Any], confirmed: Table
) -> None:
    correct(
        client_for(cast["chief"]), confirmed, op="replace", position=5, token="NS2", reason="核对"
    )
    url = reverse("tournaments:audit", args=[confirmed.round.tournament.slug])
    html = client_for(cast["organizer"]).get(url).content.decode()
    assert "第5副：南北上游 对家末游 → 对家三游" in html
    assert '<details class="raw">' in html and "&quot;deals&quot;" in html
    english = client_for(cast["organizer"]).get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Deal 5: NS first" in english, english[english.find("<tbody") :][:2000]


def test_a_penalty_in_the_table_history_reads_a_sentence(cast: dict[str, Any], db: Any) -> None:
    """Issue 15 "Why": the history showed ``pair=6 · kind=foul · deal=3 · jcf=None``."""
    tournament = make_tournament(cast)
    table = next_round(tournament, cast["organizer"]).tables.filter(is_bye=False).first()
    table = enter_tokens(table, ["NS3", "EW2"], cast["referee"])
    chief = client_for(cast["chief"])
    post(
        chief, table_url(table, "foul"), {"version": table.version, "side": "EW", "reason": "看牌"}
    )
    html = chief.get(table_url(table)).content.decode()
    pair = table.ew.number
    assert f"第{pair}对 犯规 第3副" in html, html[html.find('data-testid="history"') :][:1500]
    history = html[html.find('data-testid="history"') :]
    history = history[: history.find("</table>")]
    assert "kind=" not in history and "jcf=" not in history
