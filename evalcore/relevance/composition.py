"""What a pair's score is made of, for every measure of the registry: its counts, its formula with the numbers filled
in, and its value (docs/DESIGN.md §2; docs/RELEVANCE_MEASURES.md).

Everything here is read from the measure registry (:mod:`evalcore.relevance.measures`), so a measure added there is
explained with no edit here:

- the **counts** are the ones the measure's :class:`~evalcore.relevance.measures.CountPlan` asks the engine for,
  counted for this one pair, and the **value** is the measure's own value function applied to them (the same bits as
  its per-pair function and the engine, tested for every registered measure);
- the **formula** is the registry's text, and the **arithmetic** is that text with each of its terms replaced by its
  number in this pair: the set sizes (``|A ∩ B|``, ``|A \\ B|``, ``|N_A|``, ...), the measure's parameters by name
  (``alpha``, ``a``, ``b``), and the two sums over near matches the registry writes (hop weights, Wu-Palmer
  credits). A factor written next to another (``alpha |N(A,B)|``, ``a(...)``) is a product, shown ``×``.

A is the query's concept set, B the result's; a near match is a concept of one set outside the other within the
measure's n hops of a concept of the other (:func:`evalcore.relevance.formulas.approximate_matches`), its distance the
hops to its nearest partner.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache

from evalcore.errors import CBIRLensError
from evalcore.relevance.formulas import CREDIT_SCALE, near_match_credit
from evalcore.relevance.kg import KnowledgeGraph, check_hops_and_mode
from evalcore.relevance.measures import CountPlan, MeasureSpec, PairCounts
from evalcore.relevance.taxonomy import credit_sets


@dataclass(frozen=True)
class Pair:
    """The facts of one (query, result) pair that every count and term is read from: the two concept sets, each near
    match's distance to its nearest partner (within the measure's n hops), and the near matches' summed Wu-Palmer
    credit units (measures whose plan counts credit, else None)."""

    query: frozenset[str]
    result: frozenset[str]
    nearest_query: Mapping[str, int]  # concept of A \ B -> hops to the nearest concept of B
    nearest_result: Mapping[str, int]  # concept of B \ A -> hops to the nearest concept of A
    credit: int | None = None

    def near_within(self, hops: int) -> tuple[int, int]:
        """(near matches of A \\ B, of B \\ A) at most ``hops`` hops from their nearest partner."""
        return (sum(1 for d in self.nearest_query.values() if d <= hops),
                sum(1 for d in self.nearest_result.values() if d <= hops))


@dataclass(frozen=True)
class Composition:
    """A pair's score under ``spec``: the counts the engine packs for it (those of the spec it reduces to,
    :meth:`MeasureSpec.effective`), the registry's formula, that formula with the pair's numbers (``substituted``), each
    term's number (``terms``, in the formula's order) and the value."""

    spec: MeasureSpec
    counts: PairCounts
    formula: str
    substituted: str
    terms: tuple[tuple[str, float], ...]
    value: float

    @property
    def title(self) -> str:
        return self.spec.measure.title

    def __str__(self) -> str:
        return f"{self.title} = {self.formula} = {self.substituted} = {self.value:.3f}"


def compose(query: Iterable[str], result: Iterable[str], spec: MeasureSpec, kg: KnowledgeGraph | None,
            mode: str = "undirected") -> Composition:
    """What the score of ``query`` against ``result`` under ``spec`` is made of, near matches taken in ``kg`` (none
    without one) in distance ``mode``.

    Worked example of docs/DESIGN.md §2 (KG: vein is_a blood vessel; n = 1, alpha = 0.5):

    >>> from evalcore.data import KGEdges
    >>> from evalcore.relevance.measures import measure_spec
    >>> kg = KnowledgeGraph.from_edges([KGEdges((("vein", "vessel", "t"),), {})])
    >>> print(compose({"CT", "vein"}, {"CT", "vessel"}, measure_spec("nn-iou", alpha=0.5, n=1), kg))
    nn-IoU = (|A ∩ B| + alpha × |N(A,B)|) / |A ∪ B| = (1 + 0.5 × 2) / 3 = 0.667
    >>> print(compose({"CT", "vein"}, {"CT", "vessel"}, measure_spec("nn-iou-hops", w1=0.5, w2=0.25), kg).substituted)
    (1 + 0.5 × 2 + 0.25 × 0) / 3
    >>> print(compose({"x", "y"}, {"x", "z"}, measure_spec("dice"), None))
    Dice = 2 × |A ∩ B| / (|A| + |B|) = 2 × 1 / (2 + 2) = 0.500
    """
    check_hops_and_mode(spec.hops, mode)
    computed = spec.effective(has_kg=kg is not None)  # as the engine computes it: the same value, fewer counts
    pair = _pair_facts(frozenset(query), frozenset(result), spec.hops, computed.plan(), kg, mode)
    counts = _plan_counts(computed.plan(), pair)
    operands = _operands(spec.measure.formula)
    numbers = {text: _number(kind, text, spec, pair) for text, kind in operands.items()}
    return Composition(spec, counts, formula=_render(spec.measure.formula, lambda text: text, written=True),
                       substituted=_render(spec.measure.formula, lambda text: numbers[text][1], written=False),
                       terms=tuple((text, value) for text, (value, _) in numbers.items() if operands[text] != "number"),
                       value=float(computed.value(counts)))


def _pair_facts(query: frozenset[str], result: frozenset[str], hops: int, plan: CountPlan, kg: KnowledgeGraph | None,
               mode: str) -> Pair:
    """The near matches of the pair within ``hops`` (the measure's n, :attr:`MeasureSpec.hops`) and, where ``plan``
    counts credit, their summed Wu-Palmer credit units (:func:`~evalcore.relevance.formulas.near_match_credit`)."""
    hops = hops if kg is not None else 0

    def nearest(own: frozenset[str], other: frozenset[str]) -> dict[str, int]:
        found = {}
        for concept in own:
            reached = kg.distances_from(concept, hops, mode)
            distances = [reached[partner] for partner in other if partner in reached]
            if distances:
                found[concept] = min(distances)
        return found

    near_query, near_result = (nearest(query - result, result), nearest(result - query, query)) if hops else ({}, {})
    credit = None
    if plan.credit_hops:
        credit = near_match_credit(query, result, credit_sets(kg, tuple(sorted(query | result)), plan.credit_hops, mode))
    return Pair(query, result, near_query, near_result, credit)


def _plan_counts(plan: CountPlan, pair: Pair) -> PairCounts:
    """The counts of ``plan`` for one pair, laid out as the engine lays out its decoded codes."""
    sides = [pair.near_within(hops) for hops in plan.levels]
    near_query, near_result = tuple(q for q, _ in sides), tuple(r for _, r in sides)
    return PairCounts(len(pair.query & pair.result), len(pair.query | pair.result),
                      len(pair.query) if plan.query_size else None,
                      near=() if plan.split else tuple(q + r for q, r in sides),
                      near_query=near_query if plan.split else (), near_candidate=near_result if plan.split else (),
                      credit=pair.credit if plan.credit_hops else None)


# --- the terms of the registry's formulas --------------------------------------------------------------------------

#: The set sizes the formulas write between bars (spaces ignored) -> their number in a pair.
SIZES: Mapping[str, Callable[[Pair], int]] = {
    "A∩B": lambda p: len(p.query & p.result),
    "A∪B": lambda p: len(p.query | p.result),
    "A": lambda p: len(p.query),
    "B": lambda p: len(p.result),
    "A\\B": lambda p: len(p.query - p.result),
    "B\\A": lambda p: len(p.result - p.query),
    "N(A,B)": lambda p: len(p.nearest_query) + len(p.nearest_result),
    "N": lambda p: len(p.nearest_query) + len(p.nearest_result),
    "N_A": lambda p: len(p.nearest_query),
    "N_B": lambda p: len(p.nearest_result),
}
#: The sums over the near matches N(A,B) that the formulas write, by their summand.
SUMMANDS = ("w_{d(x)}", "max_y WuP(x, y)")
_SUM = "sum_{x ∈ N(A,B)} "
_TOKEN = re.compile("|".join([
    r"(?P<sum>" + "|".join(re.escape(_SUM + summand) for summand in SUMMANDS) + ")",
    r"(?P<size>\|[^|]+\|)", r"(?P<number>\d+(?:\.\d+)?)", r"(?P<name>[A-Za-z]\w*)",
    r"(?P<operator>[-+/])", r"(?P<open>\()", r"(?P<close>\))", r"(?P<space>\s+)"]))
_STARTS, _ENDS = {"sum", "size", "number", "name", "open"}, {"sum", "size", "number", "name", "close"}


@cache
def _tokens(formula: str) -> tuple[tuple[str, str, bool], ...]:
    """(kind, text, whether a space precedes it) of each token of a registry formula."""
    tokens, position, spaced = [], 0, False
    while position < len(formula):
        match = _TOKEN.match(formula, position)
        if match is None:
            raise CBIRLensError(f"cannot read the formula {formula!r} at {formula[position:position + 20]!r}: "
                                "evalcore.relevance.composition knows no such term")
        if match.lastgroup == "space":
            spaced = True
        else:
            tokens.append((match.lastgroup, match.group(), spaced))
            spaced = False
        position = match.end()
    return tuple(tokens)


def _operands(formula: str) -> dict[str, str]:
    """Each distinct operand of ``formula`` as written -> its kind."""
    return {text: kind for kind, text, _ in _tokens(formula) if kind in _ENDS - {"close"}}


def _number(kind: str, text: str, spec: MeasureSpec, pair: Pair) -> tuple[float, str]:
    """An operand's number in this pair, and how the arithmetic writes it."""
    if kind == "number":
        return float(text), text
    if kind == "name":
        if text not in spec.params:
            raise CBIRLensError(f"the formula of {spec.key} names {text!r}, which is none of its parameters")
        value = spec.params[text]
        return value, f"{value:g}"
    if kind == "size":
        size = SIZES.get("".join(text[1:-1].split()))
        if size is None:
            raise CBIRLensError(f"the formula of {spec.key} counts {text}, which composition does not know")
        value = size(pair)
        return value, str(value)
    if text.endswith(SUMMANDS[0]):  # hop weights: a near match d hops from its partner earns w_d
        weights = [spec.params[f"w{d}"] for d in range(1, spec.hops + 1)]
        at = [pair.near_within(d) for d in range(spec.hops + 1)]
        exactly = [sum(at[d]) - sum(at[d - 1]) for d in range(1, spec.hops + 1)]
        written = " + ".join(f"{w:g} × {count}" for w, count in zip(weights, exactly))
        return sum(w * count for w, count in zip(weights, exactly)), written
    value = (pair.credit or 0) / CREDIT_SCALE  # Wu-Palmer credits, summed in units of 2^-16
    return value, f"{value:g}"


def _render(formula: str, shown: Callable[[str], str], written: bool) -> str:
    """``formula`` with each operand as ``shown`` gives it; factors side by side become ``×`` (in the ``written``
    formula only where the registry spaced them, so ``a|A\\B|`` stays as written)."""
    tokens = _tokens(formula)
    out = []
    for i, (kind, text, spaced) in enumerate(tokens):
        previous = tokens[i - 1][0] if i else None
        if previous in _ENDS and kind in _STARTS and (spaced or not written):
            out.append(" × ")
        if kind == "operator":
            out.append(f" {text} ")
        elif kind in ("open", "close"):
            out.append(text)
        else:
            text = shown(text)
            # a sum of several terms keeps its own brackets unless it stands between '+' or brackets anyway
            alone = {tokens[i - 1][1] if i else "(", tokens[i + 1][1] if i + 1 < len(tokens) else ")"} <= {"(", ")", "+"}
            out.append(text if alone or " + " not in text else f"({text})")
    return "".join(out)
