"""The judging design (evalcore.app.judging): seeded and deterministic, stratified over the two measures' cells by
values the per-pair formulas agree with, weighted toward the pairs the measures rank apart, holding whole cases of
every system's top K, unrelated pairs and repeats shown later; and a judge's place in it."""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
import pytest

from evalcore.app import judging
from evalcore.app.judging import BIN_EDGES, REPEAT_GAP, TOP_K, checked_design_size, pair_design
from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.relevance.formulas import iou, nn_iou
from evalcore.relevance.kg import neighbour_sets
from evalcore.relevance.measures import measure_spec, nn_iou_measure
from tests.conftest import random_world

KEY = "ab" * 32


def world(images: int, depth: int, seed: int = 3):
    """An evaluator over a random world, the two axes (IoU, nn-IoU at alpha 0.5, n 1) ranked to ``depth``, and two
    systems: the nn-IoU ranking and a run of each case's next images."""
    concepts, kg = random_world(seed, images=images, vocabulary=20, edges=30)
    evaluator = Evaluator(concepts, kg)
    axes = [(spec, evaluator.relevance_ranking(spec, depth)) for spec in (measure_spec("iou"), nn_iou_measure(0.5, 1))]
    ids = concepts.ids
    ranked = {ids[row]: tuple(ids[d] for d in axes[1][1].documents[row] if d >= 0) for row in range(len(ids))}
    following = {ids[i]: tuple(ids[(i + step) % len(ids)] for step in range(1, 6)) for i in range(len(ids))}
    return evaluator, kg, axes, {"by nn-IoU": ranked, "next images": following}


def bin_of(value: float) -> int:
    return int(np.searchsorted(BIN_EDGES, value, side="left"))


def test_the_same_inputs_seed_and_size_give_the_same_design_and_others_another():
    evaluator, _, axes, systems = world(80, 79)
    design = pair_design(evaluator, axes, systems, key=KEY, seed=5, size=120)
    assert design == pair_design(evaluator, axes, systems, key=KEY, seed=5, size=120)
    assert len(design) == 120
    for other in (dict(seed=6, size=120, key=KEY), dict(seed=5, size=120, key="cd" * 32)):
        assert pair_design(evaluator, axes, systems, **other).items != design.items


def test_a_design_holds_its_stated_shares():
    evaluator, _, axes, systems = world(80, 79)
    design = pair_design(evaluator, axes, systems, key=KEY, seed=1, size=200)
    counts = design.counts()
    assert counts["repeat"] == 20 and sum(counts.values()) == len(design) == 200
    assert 0 < counts["top"] <= 45 and counts["zero"] == 18 and counts["stratum"] == 180 - counts["top"] - 18
    for part in ("stratum", "zero", "top", "repeat"):
        assert f"{counts[part]} " in design.description
    assert "seed 1" in design.description and "IoU by nn-IoU (alpha=0.5, n=1)" in design.description
    first_showings = [(item.case, item.candidate) for item in design.items if item.occurrence == 1]
    assert len(first_showings) == len(set(first_showings)) == 180
    assert all(item.case != item.candidate for item in design.items)


def test_the_strata_are_spread_evenly_over_the_cells_the_formulas_put_them_in():
    """A pool small enough that the rankings hold every pair: the candidate pairs are the whole pool, so each
    cell's capacity is known; the formulas (not the engine) say which cell a pair is in."""
    evaluator, kg, axes, systems = world(40, 39)
    concepts = evaluator.concepts
    neighbours = neighbour_sets(kg, evaluator.engine.vocabulary, 1)
    capacity: Counter = Counter()
    cell_of = {}
    for a, case in enumerate(concepts.ids):
        for b, candidate in enumerate(concepts.ids):
            if a != b:
                values = iou(concepts.sets[a], concepts.sets[b]), nn_iou(concepts.sets[a], concepts.sets[b], neighbours)
                cell_of[(case, candidate)] = (bin_of(values[0]), bin_of(values[1])) if max(values) > 0 else None
    for seed in range(3):
        design = pair_design(evaluator, axes, systems, key=KEY, seed=seed, size=300)
        top = {(i.case, i.candidate) for i in design.items if i.part == "top"}
        capacity = Counter(cell for pair, cell in cell_of.items() if cell is not None and pair not in top)
        strata = [item for item in design.items if item.part == "stratum"]
        assert strata and all(item.cell == cell_of[(item.case, item.candidate)] for item in strata)
        assert all(cell_of[(i.case, i.candidate)] is None for i in design.items if i.part == "zero")
        taken = Counter(item.cell for item in strata)
        assert design.cells == len(taken)
        for cell, count in taken.items():  # a cell holding fewer than another by more than one gave all it had
            assert all(count >= other - 1 or count == capacity[cell] for other in taken.values()), (cell, taken)
        assert all(taken[cell] > 0 for cell in capacity)


def test_the_pairs_the_measures_rank_apart_are_drawn_more_often(monkeypatch):
    evaluator, _, axes, systems = world(160, 12, seed=8)
    n = len(evaluator.concepts)
    index = evaluator.concepts.index
    ranks = []
    for _, ranking in axes:
        rank = defaultdict(lambda: 12)
        for row in range(n):
            for position, document in enumerate(ranking.documents[row].tolist()):
                rank[(row, document)] = position
        ranks.append(rank)

    def mean_apart(weight: float) -> float:
        monkeypatch.setattr(judging, "DISAGREEMENT_WEIGHT", weight)
        apart = []
        for seed in range(6):
            for item in pair_design(evaluator, axes, systems, key=KEY, seed=seed, size=150).items:
                if item.part == "stratum":
                    pair = (index[item.case], index[item.candidate])
                    apart.append(abs(ranks[0][pair] - ranks[1][pair]))
        return float(np.mean(apart))

    assert mean_apart(3.0) > mean_apart(0.0) * 1.15


def test_the_top_part_holds_whole_cases_of_every_systems_top_k():
    evaluator, _, axes, systems = world(80, 79)
    design = pair_design(evaluator, axes, systems, key=KEY, seed=2, size=200)
    by_case = defaultdict(set)
    for item in design.items:
        if item.part == "top":
            by_case[item.case].add(item.candidate)
    assert by_case and design.top_k == TOP_K and design.systems == ("by nn-IoU", "next images")
    for case, candidates in by_case.items():
        expected = {c for ranking in systems.values() for c in [d for d in ranking[case] if d != case][:TOP_K]}
        assert candidates == expected
    assert f"for {len(by_case)} cases" in design.description


def test_repeats_come_back_after_their_first_showing():
    evaluator, _, axes, systems = world(80, 79)
    design = pair_design(evaluator, axes, systems, key=KEY, seed=4, size=200)
    shown_at = {}
    for position, item in enumerate(design.items):
        pair = (item.case, item.candidate)
        if item.occurrence == 1:
            shown_at[pair] = position
        else:
            assert item.part == "repeat" and position - shown_at[pair] >= REPEAT_GAP
    repeated = [(i.case, i.candidate) for i in design.items if i.part == "repeat"]
    assert len(repeated) == len(set(repeated)) == 20


def test_a_judges_place_is_read_from_the_pairs_judged_in_any_order():
    evaluator, _, axes, systems = world(80, 79)
    design = pair_design(evaluator, axes, systems, key=KEY, seed=4, size=60)
    pairs = [(item.case, item.candidate) for item in design.items]
    assert design.progress([]) == (0, 0)
    assert design.progress(reversed(pairs[:10])) == (10, 10)
    assert design.progress(pairs[1:5]) == (4, 0)  # the first pair not done: the judge is there
    assert design.progress(pairs) == (60, 60)
    repeat = next(p for p, item in enumerate(design.items) if item.part == "repeat")
    once = [pair for pair in pairs[:repeat + 1] if pair != pairs[repeat]] + [pairs[repeat]]
    assert design.progress(once) == (repeat, repeat)  # the pair judged once: its repeat is still to do


def test_a_tiny_collection_gives_what_it_has_and_says_so():
    evaluator, _, axes, systems = world(3, 2)
    design = pair_design(evaluator, axes, systems, key=KEY, seed=1, size=200)
    assert 0 < len(design) < 200 and "fewer pairs than the 200 asked for" in design.description
    alone = Evaluator(evaluator.concepts.subset(evaluator.concepts.ids[:1]))
    axes = [(spec, alone.relevance_ranking(spec, 1)) for spec, _ in axes]
    empty = pair_design(alone, axes, {"none": {}}, key=KEY, size=5)
    assert len(empty) == 0 and "fewer pairs than the 5 asked for" in empty.description


@pytest.mark.parametrize("size", [0, -1, 5001, 2.5, True, "200"])
def test_a_size_that_is_no_number_of_pairs_is_refused(size):
    with pytest.raises(ParameterError, match="size: expected a whole number of pairs from 1 to 5,000"):
        checked_design_size(size)


@pytest.mark.parametrize("options", [dict(seed=-1), dict(seed=1.5), dict(top_k=0)])
def test_a_seed_or_top_k_out_of_range_is_refused(options):
    evaluator, _, axes, systems = world(10, 9)
    with pytest.raises(ParameterError):
        pair_design(evaluator, axes, systems, key=KEY, **{"size": 20, **options})
