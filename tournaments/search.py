"""Finding a player by what a player types on a phone: part of the name in simplified or
traditional characters, the full pinyin ("zhangwei", "zhang wei") or the initials ("zw").

Look-alikes (issue 29 point 10): a name and a query are compared by what they look like
(``rules.text.skeleton``), so "Zhang Wei" finds ``Zh\u0430ng Wei`` (a Cyrillic а) and the other
way round; ``look_alikes`` lists the registered names that look the same as another but differ
(registration and the import warn about them).

Traditional characters are read as simplified (``zhconv``, a simplified/traditional dictionary);
pinyin comes from ``pypinyin``, with every reading of a surname's character (曾 is "zeng" or
"ceng", 单 "shan" or "dan") and "v"/"u" both accepted for ü (吕 "lv", "lu").

The pinyin of a tournament's players is computed once per registration change (the key holds
``Tournament.results_version``, bumped by every registration) and kept in the cache.

May touch: ``tournaments`` models (read only) and the cache.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache as once
from pathlib import Path

import zhconv.zhconv
from django.core.cache import cache
from django.utils.translation import gettext as _
from pypinyin import Style, lazy_pinyin, pinyin

from rules.text import skeleton
from tournaments.models import Player, Tournament

INDEX_CACHE_SECONDS = 24 * 3600
_LATIN = re.compile(r"^[a-z]+$")
_MAX_READINGS = 4


@once
def _load_dictionary() -> None:
    """zhconv's dictionary, read once by path (its own loader leaves the file open)."""
    zhconv.zhconv.loaddict(str(Path(zhconv.zhconv.__file__).with_name("zhcdict.json")))


def simplified(text: str) -> str:
    """``text`` with traditional characters written simplified (張偉 → 张伟)."""
    _load_dictionary()
    return str(zhconv.zhconv.convert(text, "zh-cn"))


def name_matches(name: str, query: str) -> bool:
    """Whether ``query`` finds this player's ``name`` (as ``search_pairs`` does)."""
    query = query.strip()
    if not query or query.isdigit():
        return False
    if any(spelling in name for spelling in spellings(query)) or query in simplified(name):
        return True
    if skeleton(query) in skeleton(name):
        return True
    wanted = _compact(skeleton(query))
    return bool(_LATIN.match(wanted)) and any(k.startswith(wanted) for k in name_keys(name))


def is_pinyin_query(query: str) -> bool:
    """A query of Latin letters (spaces and apostrophes aside; a look-alike of one, such as a
    Cyrillic а, counts as its Latin letter): searched as pinyin too."""
    return bool(_LATIN.match(_compact(skeleton(query))))


def _compact(text: str) -> str:
    return re.sub(r"[\s'’·]+", "", text).lower().replace("ü", "v")


_CJK = re.compile(r"[\u3400-\u9fff]")


def name_keys(name: str) -> tuple[str, ...]:
    """The spellings a name is found by: for each reading of the surname, the pinyin from each
    syllable on ("zhangwei", "wei") and the initials ("zw"), with "u" for "v" (ü) as well. A
    name without Chinese characters is its letters ("tom")."""
    name = simplified(name.strip())
    if not name:
        return ()
    if not _CJK.search(name):
        return (_compact(skeleton(name)),)
    rest = lazy_pinyin(name[1:], style=Style.NORMAL, errors="default")
    readings = pinyin(name[0], style=Style.NORMAL, heteronym=True, errors="default")
    first = readings[0][:_MAX_READINGS] if readings and readings[0] else [name[0]]
    keys: list[str] = []
    for head in first:
        syllables = [_compact(s) for s in (head, *rest) if s.strip()]
        tails = ["".join(syllables[i:]) for i in range(len(syllables))]
        for key in (*tails, "".join(s[0] for s in syllables if s)):
            for variant in (key, key.replace("v", "u")):
                if variant and variant not in keys:
                    keys.append(variant)
    return tuple(keys)


def _index(tournament: Tournament) -> list[tuple[int, tuple[str, ...]]]:
    """(pair id, the pinyin keys of one player) for every player of the tournament, cached
    under the tournament's results version (one query and ~30 µs a name when it changes)."""
    key = (
        f"pinyin-index:2:{tournament.pk}:{tournament.created_at.timestamp():.6f}:"
        f"{tournament.results_version}"
    )
    index = cache.get(key)
    if index is None:
        names = Player.objects.filter(pair__tournament=tournament).values_list("pair_id", "name")
        index = [(pair_id, name_keys(name)) for pair_id, name in names]
        cache.set(key, index, INDEX_CACHE_SECONDS)
    return index


def pairs_by_pinyin(tournament: Tournament, query: str, limit: int) -> list[int]:
    """Ids of the pairs with a player one of whose spellings (``name_keys``) starts with
    ``query``: "zhangw", "wei", "zw" find 张伟; "angw" does not."""
    wanted = _compact(skeleton(query))
    if not _LATIN.match(wanted):
        return []
    found: list[int] = []
    for pair_id, keys in _index(tournament):
        if pair_id in found:
            continue
        if any(key.startswith(wanted) for key in keys):
            found.append(pair_id)
            if len(found) >= limit:
                break
    return found


def look_alikes(
    tournament: Tournament, names: Iterable[str] | None = None
) -> list[tuple[str, int, str, int]]:
    """Registered players whose names look the same but differ (``rules.text.skeleton``), as
    (name, its pair's number, the look-alike, its pair's number) — only those involving one of
    ``names`` when given (the names just registered). One query."""
    rows = Player.objects.filter(pair__tournament=tournament).order_by("pair__number", "position")
    first: dict[str, tuple[str, int]] = {}
    wanted = None if names is None else set(names)
    found: list[tuple[str, int, str, int]] = []
    for name, number in rows.values_list("name", "pair__number"):
        key = skeleton(name)
        earlier = first.setdefault(key, (name, number))
        if earlier[0] != name and (wanted is None or {earlier[0], name} & wanted):
            found.append((earlier[0], earlier[1], name, number))
    return found


def look_alike_warnings(tournament: Tournament, names: Iterable[str] | None = None) -> list[str]:
    """``look_alikes`` as the sentences registration and the import show (warnings: two
    people may really be called so, but usually one of them was typed or pasted wrongly)."""
    return [
        _("“%(a)s”（第%(pa)s对）与“%(b)s”（第%(pb)s对）看起来相同，但字符不同：请核对是否输入有误")
        % {"a": a, "pa": pa, "b": b, "pb": pb}
        for a, pa, b, pb in look_alikes(tournament, names)
    ]


def spellings(query: str) -> tuple[str, ...]:
    """The query as typed and, if it differs, in simplified characters."""
    query = query.strip()
    other = simplified(query)
    return (query,) if other == query else (query, other)


__all__ = [
    "is_pinyin_query",
    "look_alike_warnings",
    "look_alikes",
    "name_keys",
    "name_matches",
    "pairs_by_pinyin",
    "simplified",
    "spellings",
]
