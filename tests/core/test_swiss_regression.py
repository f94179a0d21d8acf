"""Issue 17 regression: 800 pairs from 4 units (one holding about half), round 4.

The field is ``simulate_field(800, 3, 4, 1)`` saved to tests/core/data (so it does not depend on
the generator or on the engine that played rounds 1–3). The old engine ran 775–860 s of CPU on
its round 4 and died with ``RecursionError`` deep in its pure-Python blossom. The reference cost
in the file is networkx's exact optimum (tests/support/reference.py, 9 minutes to compute), so
the test does not recompute it.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

from pairing.swiss import SwissOptions, SwissPair, pair_round

DATA = Path(__file__).parent / "data" / "swiss_800_4units_round4.json.gz"


def _load() -> tuple[list[SwissPair], int, tuple[int, float]]:
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        doc = json.load(fh)
    pairs = [
        SwissPair(
            id=pid,
            rank=rank,
            match_points=cf,
            unit=unit,
            opponents=frozenset(opponents),
            had_bye=had_bye,
            ns_count=ns,
            ew_count=ew,
            last_direction=last,
        )
        for pid, rank, cf, unit, opponents, had_bye, ns, ew, last in doc["pairs"]
    ]
    return pairs, doc["round"], (doc["reference"][0], doc["reference"][1])


def test_the_800_pair_four_unit_round_4_is_paired_exactly() -> None:
    pairs, round_number, reference = _load()
    assert len(pairs) == 800
    draw = pair_round(pairs, round_number, SwissOptions(), random.Random(1))
    by_id = {p.id: p for p in pairs}
    seated = [x for t in draw.tables for x in (t.ns, t.ew)]
    assert sorted(seated) == sorted(by_id)
    assert all(t.ew not in by_id[t.ns].opponents for t in draw.tables)
    assert (draw.same_unit_meetings, draw.total_gap) == reference
