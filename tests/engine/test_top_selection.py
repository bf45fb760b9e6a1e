"""The block summary by selection (:func:`~evalcore.engine.kernels.top_keyed`) equals the summary that sorted each row
in full (``tests/line_by_line.py``): the same ideal values, relevant counts and top candidates in the same tie order
(key descending, ties by candidate position), on seeded random keys with many ties."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.engine import KeyedBlock, summarise_block
from evalcore.engine.kernels import mark_self, top_keyed
from tests.line_by_line import summarise_block_by_sorting, top_keyed_per_row


def random_block(rng: np.random.Generator, rows: int, columns: int, distinct: int, in_pool: float
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Keys 1..distinct - 1 (few distinct values: many ties), a share of rows whose query is in the pool (key 0 at its
    own column), and each key's value (ascending, some equal values for different keys)."""
    keys = rng.integers(1, distinct, size=(rows, columns)).astype(np.uint16)
    self_columns = np.where(rng.random(rows) < in_pool, rng.integers(0, columns, rows), -1)
    mark_self(keys, self_columns)
    values = np.concatenate([[-1.0], np.sort(rng.choice(np.linspace(0.0, 1.0, 21), distinct - 1))])
    return keys, values


def assert_same_summary(keys: np.ndarray, values: np.ndarray, k: int, threshold: float, depth: int) -> None:
    got = summarise_block(KeyedBlock(0, len(keys), keys, values), k, threshold, depth)
    expected = summarise_block_by_sorting(keys, values, k, threshold, depth)
    for mine, theirs in zip(got, expected):
        assert mine.shape == theirs.shape and mine.dtype.kind == theirs.dtype.kind
        assert np.array_equal(mine, theirs)


@pytest.mark.parametrize("seed", range(6))
def test_selection_equals_the_full_sort_on_tie_heavy_blocks(seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        rows, columns = int(rng.integers(1, 15)), int(rng.integers(1, 700))
        keys, values = random_block(rng, rows, columns, int(rng.choice([2, 3, 4, 9, 60, 3000])), in_pool=0.6)
        depth = int(rng.choice([0, 1, 5, 100, columns - 1, columns, columns + 7]))
        k = int(rng.choice([1, 10, columns, columns + 3]))
        assert_same_summary(keys, values, k, float(rng.choice([0.0, 0.3, 0.5, 1.0, 2.0])), max(depth, 0))


@pytest.mark.parametrize("seed", range(3))
def test_selection_on_wide_rows_uses_chunks_and_still_equals_the_full_sort(seed):
    """Rows wide enough for chunks of 16 columns (a pool of thousands), with a common key filling most of each row
    and the rest spread: the tie scan crosses several windows."""
    rng = np.random.default_rng(100 + seed)
    keys, values = random_block(rng, 9, 5000, 40, in_pool=0.5)
    common = rng.random(keys.shape) < 0.95
    keys[common & (keys > 0)] = 3
    for k, depth in [(10, 100), (10, 0), (1, 1), (50, 300)]:
        assert_same_summary(keys, values, k, 0.5, depth)


def test_rows_of_all_equal_keys_take_their_first_columns():
    keys = np.full((4, 300), 7, dtype=np.uint16)
    mark_self(keys, np.array([0, 150, -1, 299]))
    values = np.linspace(-1.0, 1.0, 8)
    assert_same_summary(keys, values, 10, 0.5, 100)
    assert top_keyed(keys, 3).tolist() == [[1, 2, 3], [0, 1, 2], [0, 1, 2], [0, 1, 2]]


@pytest.mark.parametrize("seed", range(4))
def test_top_keyed_equals_a_python_sort_per_row(seed):
    rng = np.random.default_rng(200 + seed)
    for _ in range(25):
        rows, columns = int(rng.integers(1, 8)), int(rng.integers(1, 400))
        keys, _ = random_block(rng, rows, columns, int(rng.choice([2, 5, 30, 1000])), in_pool=0.5)
        depth = int(rng.choice([0, 1, 7, 64, columns, columns + 5]))
        assert top_keyed(keys, depth).tolist() == top_keyed_per_row(keys, depth)


def test_depth_past_the_pool_pads_and_the_query_itself_is_never_taken():
    """A pool of one (the query itself) and of two: k and depth both beyond the columns."""
    values = np.array([-1.0, 0.5])
    assert_same_summary(np.zeros((1, 1), dtype=np.uint16), values, 5, 0.5, 4)
    assert_same_summary(np.array([[0, 1], [1, 1]], dtype=np.uint16), values, 5, 0.5, 4)
    ideal, relevant, top = summarise_block(KeyedBlock(0, 2, np.array([[0, 1], [1, 1]], dtype=np.uint16), values),
                                           3, 0.5, 3)
    assert ideal.tolist() == [[0.5, 0.0, 0.0], [0.5, 0.5, 0.0]] and relevant.tolist() == [1, 2]
    assert top.tolist() == [[1, -1, -1], [0, 1, -1]]
