"""Read-only queries about registrations shared by pages of every layer: pairs with their
players, and the players' names of many pairs in one query."""

from __future__ import annotations

from collections.abc import Collection

from django.db.models import Prefetch, Q, QuerySet

from tournaments.models import Pair, Player, Round, Table


def names_by_pair(pair_ids: Collection[int]) -> dict[int, str]:
    """``Pair.player_names`` ("张三/李四") of the given pairs by id, in one query of two columns.

    For lists of 50–200 pairs: prefetching ``players`` builds a queryset and a model instance
    per player, which was a third of the pairings page's time.
    """
    names: dict[int, list[str]] = {}
    players = (
        Player.objects.filter(pair_id__in=pair_ids)
        .order_by("pair_id", "position")
        .values_list("pair_id", "name")
    )
    for pair_id, name in players:
        names.setdefault(pair_id, []).append(name)
    return {pair_id: "/".join(listed) for pair_id, listed in names.items()}


def pairs_with_players(queryset: QuerySet[Pair]) -> QuerySet[Pair]:
    """Pairs with their unit and their players in seat order (two queries for any page)."""
    return queryset.select_related("unit").prefetch_related(
        Prefetch("players", queryset=Player.objects.order_by("position"))
    )


def live_table_of(pair: Pair) -> Table | None:
    """The unconfirmed table of a published round ``pair`` sits at (byes excluded), or None:
    withdrawing the pair then has to decide that table (``withdraw_seated_pair`` of pairing)."""
    return (
        Table.objects.filter(
            Q(ns=pair) | Q(ew=pair),
            round__tournament_id=pair.tournament_id,
            round__status=Round.Status.PUBLISHED,
            is_bye=False,
        )
        .exclude(entry_status=Table.EntryStatus.CONFIRMED)
        .select_related("round", "ns__unit", "ew__unit")
        .first()
    )
