"""Forms of the round pages: the manual swap of two pairs in a draft, the public table filter.

Validation only; the swap itself is ``pairing.services.swap_pairs``.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tournaments.bounds import BoundedIntegerField
from tournaments.models import Pair


class SwapForm(forms.Form):
    """Two pair numbers whose seats are exchanged (either may be the bye)."""

    pair_a = BoundedIntegerField(
        label=_("参赛对编号 A"),
        min_value=1,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    pair_b = BoundedIntegerField(
        label=_("参赛对编号 B"),
        min_value=1,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )

    def __init__(self, *args: Any, tournament: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tournament = tournament

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        if data["pair_a"] == data["pair_b"]:
            raise forms.ValidationError(gettext("请选择两个不同的参赛对"))
        found = {
            p.number: p
            for p in Pair.objects.filter(
                tournament=self.tournament, number__in=[data["pair_a"], data["pair_b"]]
            )
        }
        for field in ("pair_a", "pair_b"):
            if data[field] not in found:
                self.add_error(field, gettext("没有第%(n)s对") % {"n": data[field]})
            else:
                data[f"{field}_obj"] = found[data[field]]
        return data


class TableFilterForm(forms.Form):
    """The public pairings page's box: a name, a pair number or a table number."""

    q = forms.CharField(label=_("姓名、对号或桌号"), max_length=50, required=False)
