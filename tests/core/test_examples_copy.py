"""The repository's copy of the golden files is the shared original, byte for byte."""

import pytest

from tests.golden import EXAMPLES, SHARED_EXAMPLES


@pytest.mark.skipif(
    not SHARED_EXAMPLES.is_dir(), reason="../shared/examples is not beside the repo"
)
def test_golden_files_are_a_faithful_copy_of_the_shared_examples():
    shared = {path.name: path.read_bytes() for path in SHARED_EXAMPLES.iterdir()}
    copied = {path.name: path.read_bytes() for path in EXAMPLES.iterdir()}
    assert copied == shared


def test_all_golden_files_are_in_the_repository():
    names = {path.name for path in EXAMPLES.glob("*.json")}
    assert names >= {"worked-example.json", "eleven-pairs.json", "jiangsu-28.json"}
    assert {f"{name[:-5]}.standings.json" for name in names if ".standings" not in name} <= names
