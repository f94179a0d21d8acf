"""The whole-number ranges the stored data can hold (pure: no Django). ``tournaments.bounds``
builds the input helpers on these; the tournament file and the settings check them too.

PostgreSQL's ``integer`` holds −2³¹ … 2³¹−1 and ``bigint`` −2⁶³ … 2⁶³−1 (SQLite: up to 2⁶³−1).
Pair numbers, seedings, rounds, tables, deals and versions are ``integer`` columns. The
tournament ``seed`` is a JSON number from which later rounds draw with ``seed × 1000 + round``
(a ``bigint`` column), so it stays below 2⁵³ — exact in every JSON reader, and × 1000 within
``bigint``.
"""

from __future__ import annotations

INT_MIN = -(2**31)
INT_MAX = 2**31 - 1
BIGINT_MAX = 2**63 - 1
SEED_MAX = 2**53 - 1
