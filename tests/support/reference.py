"""An independent exact reference for the Swiss engine: networkx's blossom (test-only).

:func:`reference_cost` gives (same-unit meetings, Σ gap) of an optimal pairing; :func:`check_draw`
checks a draw against it; :func:`reference_tables` gives the tables of rules (1)–(4) with one
lexicographic integer weight per edge (networkx computes with Python integers, so any size is
exact). None of it shares code with ``pairing.swiss`` or ``pairing.matching``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from pairing.swiss import SwissDraw, SwissOptions, SwissPair

__all__ = ["check_draw", "reference_cost", "reference_tables"]


def reference_cost(pairs: Sequence[SwissPair], avoid: bool) -> tuple[int, float] | None:
    """(same-unit meetings, Σ gap) of an optimal rematch-free pairing of an even field, by
    networkx's exact blossom; None when no such pairing exists."""
    import networkx as nx

    n = len(pairs)
    fr = [Fraction(p.match_points) for p in pairs]
    span = (max(fr) - min(fr)) if fr else Fraction(0)
    denominator = 1
    for f in fr:
        denominator = denominator * f.denominator // _gcd(denominator, f.denominator)
    big_a = int(span * denominator) * (n // 2) + 1
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    costs: dict[tuple[int, int], int] = {}
    for i in range(n):
        for j in range(i + 1, n):
            if pairs[j].id in pairs[i].opponents or pairs[i].id in pairs[j].opponents:
                continue
            same = avoid and pairs[i].unit is not None and pairs[i].unit == pairs[j].unit
            costs[(i, j)] = int(same) * big_a + int(abs(fr[i] - fr[j]) * denominator)
    top = max(costs.values(), default=0) + 1
    for (i, j), c in costs.items():
        graph.add_edge(i, j, weight=top - c)
    mate = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(mate) != n:
        return None
    same_unit = 0
    gap = Fraction(0)
    for i, j in mate:
        if pairs[i].unit is not None and pairs[i].unit == pairs[j].unit:
            same_unit += 1
        gap += abs(fr[i] - fr[j])
    return same_unit, float(gap)


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def check_draw(pairs: Sequence[SwissPair], draw: SwissDraw, options: SwissOptions) -> list[str]:
    """Problems with ``draw`` against the reference: rematches, unseated pairs, worse cost."""
    problems: list[str] = []
    by_id = {p.id: p for p in pairs}
    seated: list[int] = []
    for t in draw.tables:
        seated += [t.ns, t.ew]
        if t.ew in by_id[t.ns].opponents or t.ns in by_id[t.ew].opponents:
            problems.append(f"rematch at table {t.number}: {t.ns}-{t.ew}")
    if draw.bye is not None:
        seated.append(draw.bye)
    if sorted(seated) != sorted(by_id):
        problems.append("not every pair seated exactly once")
    rest = [p for p in pairs if p.id != draw.bye]
    ref = reference_cost(rest, options.same_unit == "avoid")
    if ref is None:
        problems.append("reference finds no pairing without rematch")
    elif options.same_unit == "allow" and ref[1] != draw.total_gap:
        # Units are not a priority then; only Σ gap is optimised (and counted either way).
        problems.append(f"gap {draw.total_gap} != reference {ref[1]}")
    elif options.same_unit == "avoid" and ref != (draw.same_unit_meetings, draw.total_gap):
        problems.append(f"cost {(draw.same_unit_meetings, draw.total_gap)} != reference {ref}")
    return problems


def reference_tables(
    pairs: Sequence[SwissPair], round_number: int, avoid: bool = True
) -> list[tuple[int, int]] | None:
    """Sorted tables (id pairs) of rules (1)–(4) on an even field, by networkx's blossom on one
    lexicographic integer weight; None when no pairing without a rematch exists.

    The sweep order is the standings order (−CF, rank, id), reversed in even rounds. With m pairs
    in sweep order, K = m² + 1 and c the integer cost A·same_unit + gap (A above any total gap),
    an edge i < j costs c · K^(m+1) + j · K^(m−1−i): Σ j · K^(m−1−i) compares two pairings by
    the partner of the first pair of the sweep whose partner differs (rule 4), and the first term
    dominates it. Exponential weights: only for small fields (tens of pairs).
    """
    import networkx as nx

    order = sorted(pairs, key=lambda p: (-Fraction(p.match_points), p.rank, p.id))
    sweep = order if round_number % 2 == 1 else order[::-1]
    m = len(sweep)
    fr = [Fraction(p.match_points) for p in sweep]
    denominator = 1
    for f in fr:
        denominator = denominator * f.denominator // _gcd(denominator, f.denominator)
    span = int((max(fr) - min(fr)) * denominator) if fr else 0
    big_a = span * (m // 2) + 1
    k = m * m + 1
    graph = nx.Graph()
    graph.add_nodes_from(range(m))
    costs: dict[tuple[int, int], int] = {}
    for i in range(m):
        for j in range(i + 1, m):
            a, b = sweep[i], sweep[j]
            if b.id in a.opponents or a.id in b.opponents:
                continue
            same = avoid and a.unit is not None and a.unit == b.unit
            cost = int(same) * big_a + int(abs(fr[i] - fr[j]) * denominator)
            costs[(i, j)] = cost * k ** (m + 1) + j * k ** (m - 1 - i)
    top = max(costs.values(), default=0) + 1
    for (i, j), c in costs.items():
        graph.add_edge(i, j, weight=top - c)
    mate = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(mate) != m:
        return None
    return sorted(tuple(sorted((sweep[i].id, sweep[j].id))) for i, j in mate)  # type: ignore[misc]


def perfect_matchings(n: int, cost: dict[tuple[int, int], int]) -> list[tuple[int, list[int]]]:
    """Every perfect matching of the graph on vertices 0…n−1 with edge costs ``cost[(i, j)]``
    (i < j), as (total cost, mate), by enumeration — for brute-force checks on tiny graphs."""
    out: list[tuple[int, list[int]]] = []

    def extend(mate: list[int], total: int) -> None:
        free = [v for v in range(n) if mate[v] == -1]
        if not free:
            out.append((total, list(mate)))
            return
        i = free[0]
        for j in free[1:]:
            c = cost.get((i, j))
            if c is not None:
                mate[i], mate[j] = j, i
                extend(mate, total + c)
                mate[i] = mate[j] = -1

    extend([-1] * n, 0)
    return out
