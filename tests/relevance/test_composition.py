"""What a pair's score is made of, for every measure of the registry: the explained value is the measure's own, and
the registry's formula with the pair's numbers filled in computes it."""

from __future__ import annotations

import ast
import operator
import random
import re
from dataclasses import replace

import pytest

from evalcore.app.explain import explain_pair
from evalcore.errors import CBIRLensError
from evalcore.relevance.composition import compose
from evalcore.relevance.measures import MEASURES, CountPlan, Measure, measure_spec
from tests.conftest import random_world

OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}


def evaluate(arithmetic: str) -> float:
    """The number an explanation's arithmetic stands for; x / 0 is 0, as the formulas define it."""
    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant):
            return float(node.value)
        left, right = value(node.left), value(node.right)
        if isinstance(node.op, ast.Div):
            return left / right if right else 0.0
        return OPERATORS[type(node.op)](left, right)

    return value(ast.parse(arithmetic.replace("×", "*"), mode="eval").body)


def random_specs(key: str, rng: random.Random) -> list:
    """The measure at its defaults and at two random settings (n up to 3 hops)."""
    measure = MEASURES[key]
    specs = [measure_spec(key)]
    for _ in range(2):
        if measure.weights:
            weights = sorted((rng.choice([0.0, 0.25, 0.5, 1.0]) for _ in range(rng.randint(1, 3))), reverse=True)
            specs.append(measure_spec(key, **{f"w{d}": w for d, w in enumerate(weights, start=1)}))
        else:
            specs.append(measure_spec(key, **{p.name: rng.randint(0, 3) if p.integer else
                                              rng.choice([p.low, p.high, round(rng.uniform(p.low, p.high), 2)])
                                              for p in measure.parameters}))
    return specs


@pytest.mark.parametrize("key", sorted(MEASURES))
@pytest.mark.parametrize("seed", range(3))
def test_every_registered_measure_explains_its_own_value(key, seed):
    concepts, kg = random_world(seed)
    rng = random.Random(seed)
    for spec in random_specs(key, rng):
        for mode in ("undirected", "directed"):
            own = spec.pair_function(kg, concepts.vocabulary, mode)
            for _ in range(8):
                a, b = rng.choice(concepts.sets), rng.choice(concepts.sets)
                composition = compose(a, b, spec, kg, mode)
                assert composition.value == own(a, b), (spec.name, sorted(a), sorted(b))
                assert explain_pair(a, b, kg, spec, mode).relevance == composition
                # The terms add up: the formula with the pair's numbers computes the value, and names nothing else.
                assert re.fullmatch(r"[\d.e+\-/×() ]+", composition.substituted), composition.substituted
                assert evaluate(composition.substituted) == pytest.approx(composition.value, rel=1e-5, abs=1e-12)
                counts = composition.counts
                assert counts.intersection == len(a & b) and counts.union == len(a | b)
                assert 0 <= counts.near_total() <= counts.union - counts.intersection


def test_a_new_measure_explains_with_no_edit_elsewhere(monkeypatch):
    coverage = Measure("coverage", "Coverage", "share of the query's concepts the result has", "|A ∩ B| / |A|",
                       "a test", (), False, plan=lambda p: CountPlan(query_size=True),
                       value=lambda counts, p: counts.intersection / counts.query_size if counts.query_size else 0.0,
                       pair=lambda a, b, c, p: len(a & b) / len(a) if a else 0.0)
    monkeypatch.setitem(MEASURES, "coverage", coverage)
    e = explain_pair({"x", "y"}, {"x", "z", "w"}, None, measure_spec("coverage"))
    assert str(e.relevance) == "Coverage = |A ∩ B| / |A| = 1 / 2 = 0.500"
    assert e.relevance.terms == (("|A ∩ B|", 1), ("|A|", 2))
    # A formula written with a term nothing counts is refused by name, not shown half filled in.
    monkeypatch.setitem(MEASURES, "coverage", replace(coverage, formula="|A ∩ B| / min(|A|, |B|)"))
    with pytest.raises(CBIRLensError, match="min"):
        compose({"x"}, {"x"}, measure_spec("coverage"), None)


def test_worked_examples_of_the_measures_the_dashboard_did_not_explain(worked_kg):
    vein, vessel, ct = "C0042449", "C0005847", "C0040405"
    hops = compose({ct, vein}, {ct, vessel}, measure_spec("nn-iou-hops", w1=0.5, w2=0.25), worked_kg)
    assert hops.substituted == "(1 + 0.5 × 2 + 0.25 × 0) / 3" and hops.value == pytest.approx(2 / 3)
    dice = compose({"x", "y"}, {"x", "z"}, measure_spec("dice"), None)
    assert (dice.formula, dice.substituted, dice.value) == ("2 × |A ∩ B| / (|A| + |B|)", "2 × 1 / (2 + 2)", 0.5)
