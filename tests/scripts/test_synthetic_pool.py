"""scripts/make_synthetic_pool.py: deterministic resampling of a concepts file into an N-image pool."""

from __future__ import annotations

import importlib.util
from collections import Counter

import pytest

from evalcore.errors import ParameterError
from evalcore.readers import read_concepts
from tests.conftest import DEMO, ROOT


def _script():
    spec = importlib.util.spec_from_file_location("make_synthetic_pool", ROOT / "scripts" / "make_synthetic_pool.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def demo():
    return read_concepts(DEMO / "concepts.csv")


def test_same_seed_same_pool_other_seed_other_pool(demo):
    script = _script()
    first, again, other = (script.make_pool(demo, 500, seed) for seed in (7, 7, 8))
    assert first == again
    assert first.sets != other.sets


def test_pool_keeps_the_source_vocabulary_sizes_and_frequencies(demo):
    pool = _script().make_pool(demo, 20_000, seed=3)
    assert len(pool) == 20_000 and len(set(pool.ids)) == 20_000
    assert set(pool.vocabulary) <= set(demo.vocabulary)
    largest = max(len(s) for s in demo.sets)
    assert max(len(s) for s in pool.sets) <= largest
    # Each concept's share of the occurrences stays close to the source's (swaps draw from the occurrences).
    source = Counter(c for s in demo.sets for c in s)
    drawn = Counter(c for s in pool.sets for c in s)
    for concept, count in source.most_common(5):
        assert abs(drawn[concept] / pool.occurrences() - count / demo.occurrences()) < 0.01


def test_without_swaps_every_set_is_a_source_set(demo):
    pool = _script().make_pool(demo, 300, seed=1, swap=0.0)
    assert set(pool.sets) <= set(demo.sets)


def test_written_file_reads_back_identically(demo, tmp_path):
    script = _script()
    out = tmp_path / "pool.csv"
    assert script.main([str(DEMO / "concepts.csv"), "250", str(out), "--seed", "5"]) == 0
    assert read_concepts(out).sets == script.make_pool(demo, 250, seed=5).sets


def test_bad_parameters_are_refused(demo):
    script = _script()
    with pytest.raises(ParameterError, match="whole number"):
        script.make_pool(demo, -1)
    with pytest.raises(ParameterError, match="probability"):
        script.make_pool(demo, 10, swap=1.5)
