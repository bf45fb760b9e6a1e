"""The engine orders its own passes (PairwiseEngine.pass_order): measures whose plan's codes give others' values
first, so that IoU after nn-IoU reads nn-IoU's cached codes instead of a pass of its own; the values, tie order
included, are the same in any order."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import numpy as np
import pytest

from evalcore.engine import PairwiseEngine
from evalcore.engine.work import SplitOperand
from evalcore.metrics.registry import parse_metric
from evalcore.relevance.measures import measure_spec
from tests.conftest import random_world

ROOT = Path(__file__).resolve().parents[2]


def keys(measures) -> list[str]:
    return [m.key for m in measures]


def test_the_order_puts_the_measures_whose_plan_serves_others_first():
    given = [measure_spec(name) for name in ("iou", "tversky", "dice", "nn-iou", "nn-iou-depth")]
    assert keys(PairwiseEngine.pass_order(given)) == ["tversky", "nn-iou", "nn-iou-depth", "iou", "dice"]
    # Nothing serves IoU: the order given stands (nn-IoU-depth's and nn-IoU-hops' codes do not give IoU's values).
    unserved = [measure_spec(name) for name in ("iou", "nn-iou-depth", "nn-iou-hops", "dice")]
    assert keys(PairwiseEngine.pass_order(unserved)) == keys(unserved)
    assert PairwiseEngine.pass_order([]) == []


def test_items_come_back_reordered_by_their_measure():
    items = [("a", measure_spec("iou")), ("b", measure_spec("nn-iou", alpha=0.2, n=2)), ("c", measure_spec("dice"))]
    assert [name for name, _ in PairwiseEngine.pass_order(iter(items), lambda item: item[1])] == ["b", "a", "c"]
    assert PairwiseEngine.pass_order(range(3), [items[i][1] for i in range(3)].__getitem__) == [1, 0, 2]


def test_a_measure_the_engine_reduces_is_ordered_as_resolved():
    """nn-IoU at alpha = 0 is IoU: resolved, it is served like IoU, not a server."""
    concepts, kg = random_world(0, images=20)
    engine = PairwiseEngine(concepts, kg=kg)
    given = [measure_spec("nn-iou", alpha=0.0, n=1), measure_spec("nn-iou", alpha=0.5, n=1)]
    assert engine.pass_order(given, engine.resolve) == given[::-1]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_values_are_the_same_in_any_order(seed):
    concepts, kg = random_world(seed, images=50)
    measures = [measure_spec("iou"), measure_spec("dice"), measure_spec("nn-iou", alpha=0.4, n=1 + seed % 2),
                measure_spec("tversky")]
    results = []
    for order in [PairwiseEngine.pass_order(measures), *itertools.permutations(measures)]:
        engine = PairwiseEngine(concepts, kg=kg, block_size=16)
        ranked = {m: engine.rank_by(m, 8, 0.5, 15) for m in order}
        pairs = {m: engine.relevance_by(m) for m in order}
        results.append((ranked, pairs))
    (first_ranked, first_pairs), rest = results[0], results[1:]
    for ranked, pairs in rest:
        for m in measures:
            (summary, top), (expected, expected_top) = ranked[m], first_ranked[m]
            assert np.array_equal(summary.ideal, expected.ideal) and np.array_equal(top, expected_top), m
            assert np.array_equal(summary.relevant_counts, expected.relevant_counts), m
            assert np.array_equal(pairs[m], first_pairs[m]), m


def test_iou_after_nn_iou_runs_no_pass_of_its_own(monkeypatch):
    products = []
    product = SplitOperand.product
    monkeypatch.setattr(SplitOperand, "product", lambda self, left: products.append(left.shape[0]) or product(self, left))
    concepts, kg = random_world(4, images=64)
    nn_iou, iou, dice = measure_spec("nn-iou", alpha=0.5, n=1), measure_spec("iou"), measure_spec("dice")

    engine = PairwiseEngine(concepts, kg=kg, block_size=16)
    for measure in engine.pass_order([iou, dice, nn_iou]):
        engine.rank_by(measure, 5, 0.5, 10)
    assert sum(products) == len(concepts)  # nn-IoU's pass coded each query row once; IoU and Dice read its codes

    products.clear()
    other = PairwiseEngine(concepts, kg=kg, block_size=16)
    for measure in [iou, nn_iou]:  # against the engine's order: IoU codes the pool itself
        other.rank_by(measure, 5, 0.5, 10)
    assert sum(products) == 2 * len(concepts)


def test_an_evaluation_of_iou_and_nn_iou_codes_the_pool_once(monkeypatch):
    from evalcore.evaluation.evaluator import AlignedRun, Evaluator

    concepts, kg = random_world(5, images=60)
    rng = np.random.default_rng(5)
    run = AlignedRun.over_pool("random", rng.integers(-1, len(concepts), size=(len(concepts), 10)))
    products = []
    product = SplitOperand.product
    monkeypatch.setattr(SplitOperand, "product", lambda self, left: products.append(left.shape[0]) or product(self, left))
    evaluator = Evaluator(concepts, kg=kg)
    metrics = ["CUI@10", "nn-CUI@10", "MAP@10", "CUI@10{dice}"]
    frame = evaluator.evaluate([run], metrics).per_query_frame()
    assert sum(products) == len(concepts)  # nn-IoU's pass; IoU's and Dice's read its codes
    for metric in metrics:  # the same as each metric's own table, on an evaluator that coded nothing before
        alone = Evaluator(concepts, kg=kg).evaluate([run], [metric], part_of=metrics).per_query_frame()
        assert len(alone) and frame[frame.metric == parse_metric(metric).name].reset_index(drop=True).equals(alone), metric


def test_no_caller_outside_the_engine_reads_its_plan_choice():
    """The order lives in the engine: the evaluator, the studies and the dashboard call PairwiseEngine.pass_order."""
    outside = [path for folder in ("evalcore", "dashboard", "pages") for path in sorted((ROOT / folder).rglob("*.py"))
               if "engine" not in path.relative_to(ROOT).parts]
    for path in outside:
        names = {node.attr for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(node, ast.Attribute)}
        assert "_plan_of" not in names, path
