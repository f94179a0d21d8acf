"""The repository's copy of the golden files is the shared original, byte for byte
(``../shared/examples-next``: the golden files under the revised RULES.md, issue 12)."""

import pytest

from tests.support.golden import EXAMPLES, SHARED_EXAMPLES

NAMES = ("worked-example", "eleven-pairs", "jiangsu-28", "variants-28", "jiangsu-2017")


def test_the_copy_follows_the_revised_examples():
    assert SHARED_EXAMPLES.name == "examples-next"


@pytest.mark.skipif(
    not SHARED_EXAMPLES.is_dir(), reason="../shared/examples-next is not beside the repo"
)
def test_golden_files_are_a_faithful_copy_of_the_shared_examples():
    shared = {path.name: path.read_bytes() for path in SHARED_EXAMPLES.iterdir()}
    copied = {path.name: path.read_bytes() for path in EXAMPLES.iterdir()}
    assert copied == shared


def test_all_golden_files_are_in_the_repository():
    names = {path.name for path in EXAMPLES.glob("*.json")}
    assert names >= {f"{name}.json" for name in NAMES}
    assert names >= {f"{name}.standings.json" for name in NAMES}
    assert (EXAMPLES / "README.md").is_file()
