"""Where the golden tournament files are: a copy of ``../shared/examples-next`` (the golden files
under the revised rules, issue 12) kept in the repository, so that a clone anywhere runs the whole
suite (``test_examples_copy.py`` checks the copy against the originals whenever they sit beside
the repository)."""

from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SHARED_EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "examples-next"
