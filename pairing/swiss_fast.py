"""The Swiss engine's fast path (``docs/pairing.md``): pair top-down within the score groups and
accept the result only when a lower bound certifies that no pairing costs less; otherwise the
exact path decides. Pure (no Django).
"""

from __future__ import annotations

from pairing.swiss_problem import SwissProblem, unit_surplus

# --------------------------------------------------------------------------------------------
# Fast path: first-in-sweep-order matching that reaches the parity lower bound
# --------------------------------------------------------------------------------------------

# Backtracking steps allowed per pair before the fast path gives up and the exact blossom runs.
_BUDGET_PER_PAIR = 20
_BUDGET_BASE = 20_000
# And candidate partners looked at (a level of the same-unit count's dynamic programme counts as
# 10): a search that succeeds looks at ≤ 70 per pair on every benchmark field; one that backtracks
# little but scans far (712 pairs of a 3-unit field, 10,000 pairs, round 5) looked at 25,000 per
# pair — 14.6 s — before failing. Giving up sooner only hands the segment to the exact core.
_WORK_PER_PAIR = 200
_WORK_BASE = 200_000


def fast_path(problem: SwissProblem) -> list[int] | None:
    """Depth-first search, in sweep order, for a matching of cost exactly the lower bound.

    Lower bound: Σ|CF gap| = Σ over cuts (between consecutive score levels) of the cut's length
    times the number of tables crossing it, and that number has the parity of the count of pairs
    above the cut; and every pairing has at least s_lb same-unit meetings (the largest unit
    beyond half the field, :func:`unit_surplus`). So no pairing costs less than
    (s_lb same-unit meetings, Σ length of odd cuts), and a pairing reaches it exactly when it has
    s_lb same-unit meetings and crosses every cut at most once. The search enumerates exactly
    those pairings, in lexicographic sweep order, so the first one found is optimal for (1)–(3)
    *and* first in sweep order (rule 4). It returns None when none exists (or the budget of
    backtracking steps or of candidates looked at runs out): the exact core then decides.
    """
    n = problem.n
    lvl = problem.lvl
    odd = problem.odd
    bad = problem.bad
    unit = problem.unit
    avoid = problem.avoid
    nlev = len(problem.level_cf)
    free_in_level = list(problem.sizes)
    crossed = [False] * max(nlev - 1, 0)
    mates = [-1] * n
    stack: list[tuple[int, int]] = []
    budget = _BUDGET_BASE + _BUDGET_PER_PAIR * n
    work = _WORK_BASE + _WORK_PER_PAIR * n
    # Unit counts of the free pairs per level, for the majority prune below: a level's free pairs
    # can be paired without a same-unit meeting only if no unit holds more than half of them
    # (one more if one of them may still float out). A necessary condition, so pruning on it
    # never loses a solution; without it the search drifts into hopeless ends of big levels.
    counts: list[dict[int, int]] = [{} for _ in range(nlev)]
    for k in range(n):
        d = counts[lvl[k]]
        d[unit[k]] = d.get(unit[k], 0) + 1
    freq: list[list[int]] = []
    big: list[int] = []
    for level in range(nlev):
        f = [0] * (problem.sizes[level] + 2)
        for c in counts[level].values():
            f[c] += 1
        freq.append(f)
        big.append(max(counts[level].values()))

    def take(level: int, u: int) -> None:
        d = counts[level]
        c = d[u]
        d[u] = c - 1
        f = freq[level]
        f[c] -= 1
        f[c - 1] += 1
        if c == big[level] and f[c] == 0:
            big[level] = c - 1

    def give(level: int, u: int) -> None:
        d = counts[level]
        c = d[u]
        d[u] = c + 1
        f = freq[level]
        f[c] -= 1
        f[c + 1] += 1
        if c + 1 > big[level]:
            big[level] = c + 1

    # Same-unit budget: every pairing has at least s_target meetings (the largest unit beyond
    # half the field can only meet itself), so (s_target, parity bound) is still a lower bound,
    # and the search allows exactly s_target meetings. A level whose free pairs hold b of one
    # unit among f, with e pairs that may still float in or out, needs at least
    # ⌈(2b − f − e)/2⌉ meetings of its own; the sum over the levels (with the most generous e,
    # exact ones for the two levels a candidate table touches) must fit in the budget left.
    s_target = unit_surplus(problem)[1]
    used = 0
    if s_target > 0:
        # Each step costs a dynamic programme over the levels: a smaller budget of steps.
        budget = _BUDGET_BASE // 10 + 2 * n

    def allowance(level: int) -> int:
        e = 0
        if level > 0 and odd[level - 1] and not crossed[level - 1]:
            e += 1
        if level < nlev - 1 and odd[level] and not crossed[level]:
            e += 1
        return e

    def need(level: int, free: int, e: int) -> int:
        x = 2 * big[level] - free - e
        return (x + 1) // 2 if x > 0 else 0

    need_gen = [need(level, free_in_level[level], allowance(level)) for level in range(nlev)]
    need_sum = sum(need_gen)

    def refresh(lo: int, hi: int) -> None:
        nonlocal need_sum
        for level in range(lo, hi + 1):
            need_sum -= need_gen[level]
            need_gen[level] = need(level, free_in_level[level], allowance(level))
            need_sum += need_gen[level]

    # With a budget (s_target > 0) the generous per-level sum is too weak (it lets one float
    # help both levels it touches), so the search uses the exact least count of meetings the
    # level counts allow: a dynamic programme over the levels from the current one, whose state
    # is the unit of the pair floating across the next odd cut (every odd cut not yet crossed is
    # crossed exactly once in a pairing that meets the bound; a float may also pass over a level).
    none = -(1 << 40)
    other = none + 1  # a float of a unit that is the largest neither where it leaves nor lands
    anon = none + 2  # a float of a unit largest where it leaves, not tracked where it lands
    classes = sorted(
        {u for level in range(nlev) for u, c in counts[level].items() if c == big[level]}
    )
    tracked = set(classes)
    classes.append(other)

    def is_big(level: int, u: int) -> bool:
        return u != other and u != anon and counts[level].get(u, 0) == big[level] > 0

    def least_meetings(start: int) -> int:
        nonlocal work
        work -= 10 * (nlev - start)
        cur: dict[int, int] = {none: 0}
        for level in range(start, nlev):
            cut_open = level < nlev - 1 and odd[level] and not crossed[level]
            f = free_in_level[level]
            b = big[level]
            nxt: dict[int, int] = {}
            for state, cost in cur.items():
                if state != none and cut_open:  # the float passes over this level
                    c = cost + need(level, f, 0) if f else cost
                    if c < nxt.get(state, c + 1):
                        nxt[state] = c
                f1 = f + (state != none)
                b1 = b + (1 if state != none and is_big(level, state) else 0)
                if cut_open:
                    if f1 == 0:
                        continue
                    # "anon" only where a largest unit of the level is not tracked (it became
                    # the largest as its rivals were seated): it may leave, helping this level.
                    anon_ok = any(c == b and u not in tracked for u, c in counts[level].items())
                    for cl in classes if not anon_ok else [*classes, anon]:
                        bb = b1 - (1 if cl == anon or is_big(level, cl) else 0)
                        x = 2 * bb - (f1 - 1)
                        c = cost + ((x + 1) // 2 if x > 0 else 0)
                        if c < nxt.get(cl, c + 1):
                            nxt[cl] = c
                else:
                    x = 2 * b1 - f1
                    c = cost + ((x + 1) // 2 if x > 0 else 0)
                    if c < nxt.get(none, c + 1):
                        nxt[none] = c
            cur = nxt
        return cur.get(none, n)

    if avoid and (need_sum > s_target or (s_target > 0 and least_meetings(0) > s_target)):
        return None  # the units' majorities need more same-unit meetings than the bound allows
    i = 0
    j_start = 1
    while True:
        while i < n and mates[i] != -1:
            i += 1
        if i == n:
            return mates
        li = lvl[i]
        found = -1
        # Level check: all pairs before i are seated, so the free pairs of level li pair among
        # themselves except one that floats across the next cut, if that cut is odd and unused.
        can_float = li < nlev - 1 and odd[li] and not crossed[li]
        if (free_in_level[li] % 2 == 1) == can_float:
            bad_i = bad[i]
            unit_i = unit[i]
            j = j_start
            prev = lvl[j - 1] if j - 1 > i else li
            while j < n:
                work -= 1
                if work < 0:
                    return None
                lj = lvl[j]
                if lj != prev:
                    # j enters a lower level: the cut must be odd and not yet crossed.
                    if not odd[lj - 1] or crossed[lj - 1]:
                        break
                    prev = lj
                if mates[j] == -1 and j not in bad_i:
                    if not avoid:
                        found = j
                        break
                    s_add = 1 if unit[j] == unit_i else 0
                    if used + s_add <= s_target:
                        take(li, unit_i)
                        take(lj, unit[j])
                        # Exact allowances: nothing can float into li any more (every pair
                        # before i is seated) nor into lj (i is its float from above).
                        e_i = 1 if lj == li and can_float else 0
                        total = need_sum - need_gen[li]
                        total += need(li, free_in_level[li] - 1 - (lj == li), e_i)
                        if lj != li:
                            e_j = 1 if lj < nlev - 1 and odd[lj] and not crossed[lj] else 0
                            total += need(lj, free_in_level[lj] - 1, e_j) - need_gen[lj]
                        if s_target > 0 and used + s_add + total <= s_target:
                            # Tighter: apply the table, count exactly from level li on.
                            free_in_level[li] -= 1
                            free_in_level[lj] -= 1
                            for c in range(li, lj):
                                crossed[c] = True
                            total = max(total, least_meetings(li))
                            for c in range(li, lj):
                                crossed[c] = False
                            free_in_level[li] += 1
                            free_in_level[lj] += 1
                        give(lj, unit[j])
                        give(li, unit_i)
                        if used + s_add + total <= s_target:
                            found = j
                            break
                j += 1
        if found == -1:
            if not stack:
                return None
            budget -= 1
            if budget < 0:
                return None
            i, j = stack.pop()
            mates[i] = mates[j] = -1
            free_in_level[lvl[i]] += 1
            free_in_level[lvl[j]] += 1
            give(lvl[i], unit[i])
            give(lvl[j], unit[j])
            for c in range(lvl[i], lvl[j]):
                crossed[c] = False
            if avoid:
                used -= 1 if unit[i] == unit[j] else 0
                refresh(lvl[i], lvl[j])
            j_start = j + 1
            continue
        j = found
        mates[i] = j
        mates[j] = i
        free_in_level[li] -= 1
        free_in_level[lvl[j]] -= 1
        take(li, unit[i])
        take(lvl[j], unit[j])
        for c in range(li, lvl[j]):
            crossed[c] = True
        if avoid:
            used += 1 if unit[i] == unit[j] else 0
            refresh(li, lvl[j])
        stack.append((i, j))
        i += 1
        while i < n and mates[i] != -1:
            i += 1
        j_start = i + 1
