"""Swiss pairing engine (瑞士移位) for pairs events: pure Python, standard library only.

Implements RULES.md §5. The Django side (``pairing.services``) loads the active pairs of a round,
calls :func:`pair_round` and saves the tables; nothing here touches a database, the clock or a
global random generator (randomness comes in as a seeded ``random.Random``).

Priorities for rounds ≥ 2 (RULES.md §5), highest first:

1. no rematch (hard: :class:`PairingError` ``no_pairing_without_rematch``, never a silent rematch);
2. the fewest same-unit meetings (only when ``same_unit == "avoid"``);
3. the smallest total match-point gap Σ|CF(a) − CF(b)| over the tables;
4. ranking neighbours, odd rounds sweeping from the top and even rounds from the bottom: among the
   pairings optimal for (1)–(3), the one that is first in sweep order — the first pair of the sweep
   meets the nearest pair it can, then the next free pair does the same, and so on.

(1)–(3) are solved exactly. A fast path exploits the line structure of the cost (pairs sorted by
match points); when it cannot *prove* optimality it falls back to an exact weighted blossom
algorithm; the modules ``swiss_problem`` (the types and the problem), ``swiss_fast`` (the
greedy fast path with its certificate) and ``swiss_exact`` (segments, bounds, the exact matching)
hold the parts. ``docs/pairing.md`` gives the algorithm, the optimality argument and the cost in n.
"""

from __future__ import annotations

import gc
import random
from collections.abc import Sequence
from fractions import Fraction

from pairing.swiss_exact import exact_blossom, segmented
from pairing.swiss_problem import (
    PairingError,
    Reason,
    SwissDraw,
    SwissOptions,
    SwissPair,
    SwissProblem,
    SwissTable,
    describe,
)

__all__ = [
    "PairingError",
    "Reason",
    "SwissDraw",
    "SwissOptions",
    "SwissPair",
    "SwissTable",
    "describe",
    "pair_round",
]


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------


def pair_round(
    pairs: Sequence[SwissPair], round_number: int, options: SwissOptions, rng: random.Random
) -> SwissDraw:
    """Pair one round of a Swiss pairs event (RULES.md §5). See the module docstring."""
    if options.same_unit not in ("avoid", "allow"):
        raise PairingError("bad_option", option="same_unit", value=options.same_unit)
    if options.round1 not in ("lot", "seeding"):
        raise PairingError("bad_option", option="round1", value=options.round1)
    if round_number < 1:
        raise PairingError("bad_round", round=round_number)
    ids = [p.id for p in pairs]
    if len(set(ids)) != len(ids):
        seen: set[int] = set()
        dup = next(i for i in ids if i in seen or seen.add(i))  # type: ignore[func-returns-value]
        raise PairingError("duplicate_pair", pair=dup)
    if len(pairs) < 2:
        raise PairingError("too_few_pairs", count=len(pairs))
    avoid = options.same_unit == "avoid"
    if round_number == 1:
        order, first_reason = _round1_order(pairs, options, rng)
    else:
        # RULES.md §5: sort by the current standings. Standings rank by CF first (§4); sorting by
        # (-CF, rank) keeps the line structure of the cost even if a caller's rank disagrees.
        order = sorted(pairs, key=lambda p: (-p.match_points, p.rank, p.id))
        first_reason = None
    # The exact core allocates millions of small objects (adjacency dicts, edge tuples) that
    # live until the draw is made: the cyclic garbage collector's passes over them cost time and
    # free nothing, so it is paused for the pairing (and resumed only if it was running). The
    # draw's tables too: at 20,000 pairs the collector's passes over them cost ≈ 0.06 s of 0.32.
    collecting = gc.isenabled()
    gc.disable()
    try:
        bye, bye_reasons, matching = _choose_bye_and_pair(order, round_number, options, rng, avoid)
        return _build_draw(order, round_number, matching, bye, bye_reasons, first_reason, avoid)
    finally:
        if collecting:
            gc.enable()


# --------------------------------------------------------------------------------------------
# Round 1
# --------------------------------------------------------------------------------------------


def _round1_order(
    pairs: Sequence[SwissPair], options: SwissOptions, rng: random.Random
) -> tuple[list[SwissPair], str]:
    """The order round 1 is swept in: a lot drawn from ``rng``, or the seeding slide.

    By lot: sort by id (so the caller's list order does not matter), then shuffle with the seeded
    generator; the same seed gives the same draw. By seeding (RULES.md §5 leaves the scheme open;
    we use the usual Swiss slide so the top seeds do not meet at once): with seeds 1..n the order
    1, h+1, 2, h+2, … (h = n // 2) makes neighbours in the sweep 1–(h+1), 2–(h+2), ….
    """
    if options.round1 == "lot":
        order = sorted(pairs, key=lambda p: p.id)
        rng.shuffle(order)
        return order, "lot"
    seeded = sorted(
        pairs, key=lambda p: (p.seeding is None, p.seeding or 0, p.rank, p.id)
    )  # unseeded pairs last
    if len(seeded) % 2:
        # The bye goes to the lowest seed without a bye; take it out before sliding.
        return seeded, "seeding"
    return _slide(seeded), "seeding"


def _slide(seeded: list[SwissPair]) -> list[SwissPair]:
    half = len(seeded) // 2
    out: list[SwissPair] = []
    for k in range(half):
        out.append(seeded[k])
        out.append(seeded[half + k])
    return out


# --------------------------------------------------------------------------------------------
# Bye and pairing
# --------------------------------------------------------------------------------------------


def _choose_bye_and_pair(
    order: list[SwissPair],
    round_number: int,
    options: SwissOptions,
    rng: random.Random,
    avoid: bool,
) -> tuple[SwissPair | None, list[Reason], list[tuple[SwissPair, SwissPair]]]:
    """Pick the bye (RULES.md §5) and pair the rest.

    The bye goes to the lowest-ranked pair that has not had one; if the others could then not be
    paired without a rematch, to the next one up (RULES.md §5, literally: "the rest could not then
    be paired" means rule (1) only — same-unit and gap are optimised *after* the bye is fixed).
    """
    if len(order) % 2 == 0:
        return None, [], _pair_even(order, round_number, avoid)
    reasons: list[Reason] = []
    if round_number == 1 and options.round1 == "lot":
        # Lot: every pair is level, so the bye is drawn too (the lot order's last pair first).
        candidates = list(reversed(order))
        chosen_code = "bye_lot"
    elif round_number == 1:
        candidates = list(reversed(order))  # lowest seeding first
        chosen_code = "bye_seeding"
    else:
        candidates = list(reversed(order))  # lowest-ranked first
        chosen_code = "bye_lowest_without_bye"
    for cand in candidates:
        if cand.had_bye:
            if chosen_code == "bye_lowest_without_bye":
                reasons.append(
                    Reason(
                        "bye_skipped", (("pair", cand.id), ("rank", cand.rank), ("why", "had_bye"))
                    )
                )
            continue
        rest = [p for p in order if p.id != cand.id]
        if round_number == 1 and options.round1 == "seeding":
            rest = _slide(rest)
        try:
            matching = _pair_even(rest, round_number, avoid)
        except PairingError as exc:
            if exc.code != "no_pairing_without_rematch":
                raise
            reasons.append(
                Reason(
                    "bye_skipped",
                    (("pair", cand.id), ("rank", cand.rank), ("why", "rest_unpairable")),
                )
            )
            continue
        if chosen_code == "bye_lowest_without_bye":
            params: tuple[tuple[str, object], ...] = (("pair", cand.id), ("rank", cand.rank))
        else:
            params = (("pair", cand.id),)
        reasons.append(Reason(chosen_code, params))
        return cand, reasons, matching
    if all(p.had_bye for p in order):
        raise PairingError("no_bye_candidate", count=len(order))
    raise PairingError("no_pairing_without_rematch", count=len(order))


def _pair_even(
    order: list[SwissPair], round_number: int, avoid: bool
) -> list[tuple[SwissPair, SwissPair]]:
    """Optimal pairing of an even field given in standings (or round-1 sweep) order."""
    n = len(order)
    if n == 0:
        return []
    # Sweep order (RULES.md §5): odd rounds from the top, even rounds from the bottom. Round 1
    # sweeps its lot / seeding order from the top.
    sweep = order if round_number % 2 == 1 else list(reversed(order))
    problem = SwissProblem(sweep, avoid)
    mates = None
    if round_number == 1 and not problem.has_opponents:
        mates = _round1_units(problem)
    if mates is None:
        mates = segmented(problem)
    if mates is None:
        mates = exact_blossom(problem)
    pairs: list[tuple[SwissPair, SwissPair]] = []
    for i, j in enumerate(mates):
        if i < j:
            pairs.append((sweep[i], sweep[j]))
    return pairs


# --------------------------------------------------------------------------------------------
# Round 1 with units and no history: exact greedy with a counting oracle
# --------------------------------------------------------------------------------------------


def _round1_units(problem: SwissProblem) -> list[int] | None:
    """Round 1 without history: first-in-lot-order pairing with the fewest same-unit meetings.

    With no forbidden edges, a set R of pairs can be paired with s same-unit meetings at best,
    s = max(0, u_max(R) − |R| / 2) where u_max is the size of R's largest unit (the pairs of the
    largest unit meet outsiders as long as there are any; the rest of the largest unit meet each
    other). So the first free pair of the sweep takes the nearest partner that keeps
    meetings_so_far + s(rest) at the optimum, which is checked by counting: no backtracking.
    """
    n = problem.n
    unit = problem.unit
    counts: dict[int, int] = {}
    for u in unit:
        counts[u] = counts.get(u, 0) + 1
    # freq[c] = number of units with c free pairs; ``biggest`` tracks the largest c in use.
    freq = [0] * (n + 1)
    for c in counts.values():
        freq[c] += 1
    biggest = max(counts.values())

    def take(u: int) -> None:
        nonlocal biggest
        c = counts[u]
        counts[u] = c - 1
        freq[c] -= 1
        freq[c - 1] += 1
        while biggest > 0 and freq[biggest] == 0:
            biggest -= 1

    def give(u: int) -> None:
        nonlocal biggest
        c = counts[u]
        counts[u] = c + 1
        freq[c] -= 1
        freq[c + 1] += 1
        biggest = max(biggest, c + 1)

    def forced(size: int) -> int:
        return max(0, biggest - size // 2) if problem.avoid else 0

    target = forced(n)
    mates = [-1] * n
    remaining = n
    used = 0
    for i in range(n):
        if mates[i] != -1:
            continue
        for j in range(i + 1, n):
            if mates[j] != -1:
                continue
            cost = 1 if problem.avoid and unit[i] == unit[j] else 0
            if used + cost > target:
                continue
            take(unit[i])
            take(unit[j])
            if used + cost + forced(remaining - 2) <= target:
                mates[i], mates[j] = j, i
                used += cost
                remaining -= 2
                break
            give(unit[j])
            give(unit[i])
        else:  # pragma: no cover - the counting argument guarantees a partner
            return None
    return mates


# --------------------------------------------------------------------------------------------
# Tables, directions and reasons
# --------------------------------------------------------------------------------------------


def _seat(a: SwissPair, b: SwissPair) -> tuple[SwissPair, SwissPair, str]:
    """Who sits North-South (RULES.md §5: directions alternate for a pair where possible).

    First balance: the pair with more East-West than North-South seats so far (relative to the
    other) sits NS. Then alternate: a pair that sat EW last time sits NS. Otherwise the
    higher-ranked pair (``a``, the caller passes it first) sits NS.
    """
    need_a = a.ew_count - a.ns_count
    need_b = b.ew_count - b.ns_count
    if need_a != need_b:
        return (a, b, "balance") if need_a > need_b else (b, a, "balance")
    alt_a = {"EW": 1, "NS": -1}.get(a.last_direction or "", 0)
    alt_b = {"EW": 1, "NS": -1}.get(b.last_direction or "", 0)
    if alt_a != alt_b:
        return (a, b, "alternate") if alt_a > alt_b else (b, a, "alternate")
    return a, b, "higher_ranked"


def _cf_text(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def _build_draw(
    order: list[SwissPair],
    round_number: int,
    matching: list[tuple[SwissPair, SwissPair]],
    bye: SwissPair | None,
    bye_reasons: list[Reason],
    first_reason: str | None,
    avoid: bool,
) -> SwissDraw:
    position = {p.id: k for k, p in enumerate(order)}
    exact = {v: Fraction(v) for v in {p.match_points for p in order}}
    tables: list[tuple[int, SwissTable]] = []
    same_unit_meetings = 0
    total_gap = Fraction(0)
    for x, y in matching:
        a, b = (x, y) if position[x.id] < position[y.id] else (y, x)
        reasons: list[Reason] = []
        if first_reason == "lot":
            reasons.append(Reason("lot"))
        elif first_reason == "seeding":
            reasons.append(Reason("seeding", (("seed_a", a.seeding), ("seed_b", b.seeding))))
        elif a.match_points == b.match_points:
            reasons.append(Reason("same_score", (("cf", _cf_text(a.match_points)),)))
        else:
            # RULES.md §5: odd rounds sweep from the top, so the higher pair floats down; even
            # rounds sweep from the bottom, so the lower pair floats up.
            mover, host = (a, b) if round_number % 2 == 1 else (b, a)
            reasons.append(
                Reason(
                    "float",
                    (
                        ("pair", mover.id),
                        ("from", _cf_text(mover.match_points)),
                        ("to", _cf_text(host.match_points)),
                    ),
                )
            )
        if a.unit is not None and a.unit == b.unit:
            same_unit_meetings += 1
            code = "same_unit_forced" if avoid else "same_unit_allowed"
            reasons.append(Reason(code, (("unit", a.unit),)))
        total_gap += abs(exact[a.match_points] - exact[b.match_points])
        ns, ew, why = _seat(a, b)
        if why == "higher_ranked" and first_reason in ("lot", "seeding"):
            # Round 1: no rank yet (everyone on 0), the order is the lot's or the seeding's.
            why = "drawn_first" if first_reason == "lot" else "higher_seeded"
        reasons.append(Reason("direction", (("pair", ns.id), ("seat", "NS"), ("why", why))))
        tables.append((position[a.id], SwissTable(0, ns.id, ew.id, tuple(reasons))))
    tables.sort(key=lambda item: item[0])
    numbered = tuple(SwissTable(k + 1, t.ns, t.ew, t.reasons) for k, (_, t) in enumerate(tables))
    return SwissDraw(
        round=round_number,
        tables=numbered,
        bye=bye.id if bye is not None else None,
        bye_reasons=tuple(bye_reasons),
        same_unit_meetings=same_unit_meetings,
        total_gap=float(total_gap),
    )
