"""Issue 12's acceptance: hand-computed cases of the revised rules through ``import_tournament``
and ``standings --json`` — a late scoresheet, a deal loss inside a round with a later foul, an
extra deal on a level tie, a stage-counted A failure, a double-only pass and a forfeit on the 28
scale. Every figure below was worked out by hand from RULES.md (the comments show the levels
deal by deal) before the code was run.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

FIGURES = ("cf", "jcf", "wins", "draws", "losses", "level_difference", "upgrades")


def tournament(settings: dict[str, Any], pairs: int, tables: list[dict[str, Any]], **extra: Any):
    return {
        "format": "guandan-tournament",
        "version": 1,
        "name": "规则验收",
        "settings": {"rounds": 1, "seed": 12, **settings},
        "units": [],
        "pairs": [
            {"id": k, "players": [f"甲{k}", f"乙{k}"], "unit": None, "status": "active"}
            for k in range(1, pairs + 1)
        ],
        "teams": [],
        "rounds": [{"number": 1, "status": "finished", "tables": tables}],
        "penalties": extra.get("penalties", []),
    }


def standings(tmp_path, data: dict[str, Any], slug: str) -> list[dict[str, Any]]:
    path = tmp_path / f"{slug}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    out = io.StringIO()
    call_command("import_tournament", str(path), "--slug", slug, stdout=out)
    assert out.getvalue().strip() == slug
    out = io.StringIO()
    call_command("standings", slug, "--json", stdout=out)
    return json.loads(out.getvalue())["rows"]


def figures(row: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(row[key] for key in FIGURES)


def import_fails(tmp_path, data: dict[str, Any], slug: str) -> str:
    """The import is refused, nothing is written; the command's sentences."""
    path = tmp_path / f"{slug}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        call_command("import_tournament", str(path), "--slug", slug, stdout=io.StringIO())
    assert not Tournament.objects.filter(slug=slug).exists()
    return str(caught.value)


def test_late_scoresheet(tmp_path):
    # RULES.md §2 "Late scoresheet": "the responsible side is scored as a forfeit loss (0 CF,
    # 0 JCF, a loss) while the other side keeps the real result of the deals played."
    # Table 1, 1 (NS) against 2 (EW): NS3 2→5, NS3 →8, EW1 (at 8) 2→3, NS2 (at 3) 8→10,
    # EW2 3→5, NS1 10→J, EW1 5→6, NS1 J→Q. Q against 6: JC 6, 19:7 — but NS (the winner, who
    # hands the sheet in) is late: pair 1 gets 0 CF, 0 JCF, a loss, 0 级差, 0 升级数; pair 2
    # keeps its real loss: 0 CF, 7 JCF, 级差 −6, 升级数 6 − 2 = 4.
    # Table 2, 3 against 4: NS1/EW1 alternately to 5:5, then NS1, NS1: 7 against 5, 15:11.
    data = tournament(
        {},
        4,
        [
            {
                "table": 1,
                "ns": 1,
                "ew": 2,
                "deals": ["NS3", "NS3", "EW1", "NS2", "EW2", "NS1", "EW1", "NS1"],
                "end": {"late_sheet": "ns"},
            },
            {
                "table": 2,
                "ns": 3,
                "ew": 4,
                "deals": ["NS1", "EW1", "NS1", "EW1", "NS1", "EW1", "NS1", "NS1"],
            },
        ],
    )
    rows = standings(tmp_path, data, "late-sheet")
    assert [(row["pair"], row["decided_by"]) for row in rows] == [
        (3, None),
        (4, "cf"),
        (2, "jcf"),
        (1, "jcf"),
    ]
    by_pair = {row["pair"]: figures(row) for row in rows}
    #                  cf jcf  W  D  L  级差 升级数
    assert by_pair == {
        3: (2, 15, 1, 0, 0, 2, 5),
        4: (0, 11, 0, 0, 1, -2, 3),
        2: (0, 7, 0, 0, 1, -6, 4),
        1: (0, 0, 0, 0, 1, 0, 0),
    }
    assert {row["pair"]: row["opponents_cf"] for row in rows} == {3: 0, 4: 2, 2: 0, 1: 0}


def test_deal_loss_inside_a_round_with_a_later_foul(tmp_path):
    # RULES.md §3 "本副判负 … scored exactly like a foul, but it is not a 犯规".
    # 1 (NS) against 2 (EW): NS2 2→4 (NS on stage); lose:NS → EW +3 at 4: 2→5 (EW on stage);
    # EW1 →6; foul:NS → EW +3: →9; NS3 (at 9) 4→7; EW2 (at 7) 9→J; NS1 (at J) 7→8;
    # EW1 (at 8) J→Q. 8 against Q: JC 4, 9:17; 升级数 6 and 10.
    data = tournament(
        {},
        2,
        [
            {
                "table": 1,
                "ns": 1,
                "ew": 2,
                "deals": ["NS2", "lose:NS", "EW1", "foul:NS", "NS3", "EW2", "NS1", "EW1"],
            }
        ],
        penalties=[{"round": 1, "table": 1, "pair": 1, "kind": "foul", "deal": 4}],
    )
    rows = standings(tmp_path, data, "deal-loss")
    assert [row["pair"] for row in rows] == [2, 1]
    assert figures(rows[0]) == (2, 17, 1, 0, 0, 4, 10)
    assert figures(rows[1]) == (0, 9, 0, 0, 1, -4, 6)


def test_extra_deal_on_a_level_tie(tmp_path):
    # RULES.md §2 "Level tie": "when the levels are equal after the last regular deal …, one
    # more deal is played from the current levels; it decides the match."
    # NS1/EW1 alternately: 3/2, 3/3, 4/3, 4/4, 5/4, 5/5, 6/5, 6/6 — equal after deal 8, EW on
    # stage at 6. The extra deal EW2: 6→8. 6 against 8: JC 2, 11:15; 升级数 4 and 6.
    deals = ["NS1", "EW1"] * 4
    data = tournament(
        {"tie": "extra_deal"}, 2, [{"table": 1, "ns": 1, "ew": 2, "deals": [*deals, "EW2"]}]
    )
    rows = standings(tmp_path, data, "extra-deal")
    assert [row["pair"] for row in rows] == [2, 1]
    assert figures(rows[0]) == (2, 15, 1, 0, 0, 2, 6)
    assert figures(rows[1]) == (0, 11, 0, 0, 1, -2, 4)
    # Without the setting a ninth deal is refused; with it, only after equal levels.
    data["settings"]["tie"] = "draw"
    assert "超过本轮规定的 8 副" in import_fails(tmp_path, data, "extra-deal-draw")
    data["settings"]["tie"] = "extra_deal"
    data["rounds"][0]["tables"][0]["deals"] = [*deals[:-1], "NS1", "EW2"]  # 7:5 after deal 8
    import_fails(tmp_path, data, "extra-deal-untied")


def test_stage_counted_failures_at_a(tmp_path):
    # RULES.md §1 "Failed attempts at A" with a_fail_count stage (seed 002): "a stay on stage at
    # A that ends by losing a deal (a win at A with the partner last keeps the side on stage and
    # is not a failure)"; reset_to_2 after 3.
    # NS3 ×4: NS 2→5→8→J→A, on stage at A. NS1: stays A on stage (not a failure). EW3: EW 2→5,
    # failure 1. NS1 (at EW's 5): NS stays A, back on stage — not an attempt. NS1: stays A (not a
    # failure). EW1: EW 5→6, failure 2. NS1 (at 6): on stage again. EW2: EW 6→8, failure 3 → NS
    # drops to 2. NS2 (at EW's 8): NS 2→4. 4 against 8: JC 4, 9:17; 升级数 2 and 6.
    deals = ["NS3"] * 4 + ["NS1", "EW3", "NS1", "NS1", "EW1", "NS1", "EW2", "NS2"]
    settings = {
        "deals_per_round": 12,
        "a_rule": "reset_to_2",
        "a_attempts": 3,
        "a_fail_count": "stage",
    }
    data = tournament(settings, 2, [{"table": 1, "ns": 1, "ew": 2, "deals": deals}])
    rows = standings(tmp_path, data, "a-stage")
    assert [row["pair"] for row in rows] == [2, 1]
    assert figures(rows[0]) == (2, 17, 1, 0, 0, 4, 6)
    assert figures(rows[1]) == (0, 9, 0, 0, 1, -4, 2)
    # Counted by deal (the default), the wins at A with the partner last fail too: NS drops to
    # 2 on the 8th deal (failures: deal 5, deal 6, deal 8) and ends at 5 against 8: 10:16.
    data["settings"]["a_fail_count"] = "deal"
    rows = standings(tmp_path, data, "a-deal")
    assert figures(rows[1]) == (0, 10, 0, 0, 1, -3, 3)


def test_double_only_pass(tmp_path):
    # RULES.md §1 "How A is passed": double_only — "only with the partner 2nd".
    # NS3 ×4: NS at A, on stage. NS2 (partner 3rd): not past A under double_only, NS stays at
    # A on stage. NS3: 过A (15). 15 against 2: JC 13, 26:0; 升级数 13 and 0; the match ends
    # after 6 deals.
    deals = ["NS3"] * 4 + ["NS2", "NS3"]
    data = tournament(
        {"a_pass": "double_only"}, 2, [{"table": 1, "ns": 1, "ew": 2, "deals": deals}]
    )
    rows = standings(tmp_path, data, "double-only")
    assert figures(rows[0]) == (2, 26, 1, 0, 0, 13, 13) and rows[0]["pair"] == 1
    assert figures(rows[1]) == (0, 0, 0, 0, 1, -13, 0)
    # By default the NS2 at A already passes A, so the sixth deal is refused.
    data["settings"].pop("a_pass")
    assert "过A后不能再有牌局" in import_fails(tmp_path, data, "double-only-default")


def test_forfeit_and_bye_on_the_28_scale(tmp_path):
    # RULES.md §2 "Forfeit": "the present pair gets 2 CF + 17 JCF on the 26:0 scale (the scale's
    # value for a 4-level win, so 18 on the 28 scale)"; "Bye: default the same as a forfeit win".
    # Table 2, 3 against 4: EW3 →5, EW3 →8, NS1 (at 8) →3, EW2 (at 3) →10, NS2 (at 10) →5,
    # EW1 (at 5) →J, NS1 (at J) →6, EW1 (at 6) →Q. 6 against Q: JC 6, 8:20 on the 28 scale.
    data = tournament(
        {"scale": "28"},
        5,
        [
            {"table": 1, "ns": 1, "ew": 2, "deals": [], "end": {"forfeit": "ew"}},
            {
                "table": 2,
                "ns": 3,
                "ew": 4,
                "deals": ["EW3", "EW3", "NS1", "EW2", "NS2", "EW1", "NS1", "EW1"],
            },
            {"bye": 5},
        ],
    )
    rows = standings(tmp_path, data, "forfeit-28")
    assert rows[0]["pair"] == 4
    assert {row["pair"] for row in rows[1:3]} == {1, 5}  # equal on everything: the lot
    assert rows[2]["decided_by"] == "lot"
    assert [row["pair"] for row in rows][3:] == [3, 2]
    by_pair = {row["pair"]: figures(row) for row in rows}
    assert by_pair == {
        4: (2, 20, 1, 0, 0, 6, 10),
        1: (2, 18, 1, 0, 0, 0, 0),
        5: (2, 18, 1, 0, 0, 0, 0),
        3: (0, 8, 0, 0, 1, -6, 4),
        2: (0, 0, 0, 0, 1, 0, 0),
    }
