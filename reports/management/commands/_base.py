"""Shared plumbing of the tournament commands: plain one-sentence errors, finding a tournament.

TOURNAMENT_FILE.md "Command line": errors go to standard error as one plain sentence with a
non-zero exit status. Django prints ``CommandError: …``; ``PlainCommand`` prints the sentence
alone. Tests use ``call_command``, which raises the ``CommandError`` itself.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand, CommandError, handle_default_options
from django.db import connections

from tournaments.bounds import INT_MAX, OutOfRange, bounded_int
from tournaments.messages import describe_problems, describe_rule_error, sentence
from tournaments.models import Tournament


class PlainCommand(BaseCommand):
    """A command whose ``CommandError`` is printed as the bare sentence."""

    def run_from_argv(self, argv: list[str]) -> None:
        self._called_from_command_line = True
        parser = self.create_parser(argv[0], argv[1])
        options = parser.parse_args(argv[2:])
        cmd_options = vars(options)
        args = cmd_options.pop("args", ())
        handle_default_options(options)
        try:
            self.execute(*args, **cmd_options)
        except CommandError as error:
            if options.traceback:
                raise
            self.stderr.write(str(error))
            sys.exit(error.returncode)
        finally:
            try:
                connections.close_all()
            except Exception:  # noqa: S110 - as Django's own run_from_argv
                pass


def whole_number(minimum: int = 1, maximum: int = INT_MAX) -> Callable[[str], int]:
    """An argparse ``type``: a whole number a column can hold (``tournaments.bounds``); anything
    else is argparse's one-line usage error, never a database traceback."""

    def parse(text: str) -> int:
        try:
            return bounded_int(text, minimum=minimum, maximum=maximum)
        except OutOfRange:
            raise argparse.ArgumentTypeError(
                f"{text[:30]!r}: a whole number from {minimum} to {maximum}"
            ) from None

    parse.__name__ = "whole number"
    return parse


def get_tournament(slug: str) -> Tournament:
    try:
        return Tournament.objects.get(slug=slug)
    except Tournament.DoesNotExist:
        raise CommandError(sentence("no_tournament", {"slug": slug})) from None


def refusal(error: Exception) -> CommandError:
    """A ``CommandError`` for a service's ``ServiceError``, a core error or a file error."""
    problems = getattr(error, "problems", None)
    if problems:
        return CommandError(describe_problems(problems))
    message = getattr(error, "message", None)
    if isinstance(message, str):
        return CommandError(message)
    if getattr(error, "code", None) is not None:
        return CommandError(describe_rule_error(error))
    return CommandError(str(error))


def plain(value: Any) -> Any:
    """Whole floats as ints for JSON output (2, not 2.0)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
