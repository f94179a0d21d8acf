# Issue 29 point 1: a pair's check-in QR code carries its own token, not the pair's code. The
# field is added empty, every existing pair gets a token of its own, then it is made unique.

import secrets

from django.db import migrations, models

import tournaments.models


def fill_tokens(apps, schema_editor):
    Pair = apps.get_model("tournaments", "Pair")
    for pk in Pair.objects.filter(checkin_token__isnull=True).values_list("pk", flat=True):
        Pair.objects.filter(pk=pk).update(checkin_token=secrets.token_urlsafe(12))


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0012_table_round_progress"),
    ]

    operations = [
        migrations.AddField(
            model_name="pair",
            name="checkin_token",
            field=models.CharField(editable=False, max_length=24, null=True, verbose_name="签到码"),
        ),
        migrations.RunPython(fill_tokens, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="pair",
            name="checkin_token",
            field=models.CharField(
                default=tournaments.models.new_checkin_token,
                editable=False,
                max_length=24,
                unique=True,
                verbose_name="签到码",
            ),
        ),
    ]
