"""The login and pair-code attempt counters of ``tournaments.throttle`` (not domain data)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class ThrottleCounter(models.Model):
    """One fixed-window counter of ``tournaments.throttle`` when no Redis is configured: a
    login or pair-code attempt count shared by every worker (see that module). Not domain data;
    rows expire and are swept by the throttle itself."""

    key = models.CharField(max_length=80, primary_key=True)
    count = models.IntegerField(default=0)
    expires_at = models.BigIntegerField(help_text="Unix time (seconds) the window ends")

    class Meta:
        verbose_name = _("尝试计数")
        verbose_name_plural = _("尝试计数")

    def __str__(self) -> str:
        return f"{self.key}: {self.count}"
