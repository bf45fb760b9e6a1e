"""The registry of relevance measures: canonical names, parameters, per-pair functions and engine plans.

A measure with its parameters is written ``key`` or ``key(name=value,...)``, e.g. ``dice``,
``tversky(a=0.7,b=0.3)``, ``nn-iou(alpha=0.5,n=1)``, ``nn-iou-hops(w1=0.5,w2=0.25)``. That text is
the one canonical name used by the CLI (``--measure``), the dashboard, the caches and the
``measure`` entry of an evaluation's parameters; :func:`parse_measure` also accepts the values
positionally (``tversky(0.7, 0.3)``). Metric names carry the measure's key when it is neither IoU
nor nn-IoU, as a suffix: ``CUI@10{dice}`` (see :mod:`evalcore.metrics.registry`).

=================  =========================  ==============================================
key                parameters (default)       relevance of query A and candidate B
=================  =========================  ==============================================
``iou``            none                       ``|A ∩ B| / |A ∪ B|``
``nn-iou``         alpha (0.5), n (1)         ``(|A ∩ B| + alpha |N(A,B)|) / |A ∪ B|``
``dice``           none                       ``2 |A ∩ B| / (|A| + |B|)``
``tversky``        a (0.7), b (0.3)           ``|A∩B| / (|A∩B| + a|A\\B| + b|B\\A|)``
``nn-tversky``     a, b, alpha, n             docs/DESIGN.md §2
``nn-iou-hops``    w1 (0.5), w2 (0.25), ...   a near match d hops from its partner earns w_d
``nn-iou-depth``   alpha (1.0), n (1)         a near match earns alpha x Wu-Palmer similarity
=================  =========================  ==============================================

Each measure tells the engine which counts of a pair it needs (a :class:`CountPlan`) and
computes its value from them with the same ``*_from_counts`` function as its per-pair function,
so both give the same bits. Definitions and worked examples: docs/RELEVANCE_MEASURES.md.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from evalcore.decimals import finite_decimal
from evalcore.errors import ParameterError
from evalcore.relevance.formulas import (
    check_alpha,
    check_hop_weights,
    dice,
    iou,
    nn_iou,
    nn_iou_depth,
    nn_iou_depth_from_counts,
    nn_iou_from_counts,
    nn_iou_hops,
    nn_iou_hops_from_counts,
    nn_tversky,
    nn_tversky_from_counts,
)
from evalcore.relevance.kg import MAX_HOPS, KnowledgeGraph, check_hops_and_mode, neighbour_distances, neighbour_sets

DEFAULT_MEASURE = "nn-iou"


@dataclass(frozen=True)
class CountPlan:
    """Which counts of a (query, candidate) pair the engine packs into one integer code.

    ``levels``: one near-match count per entry, cumulative within that many hops (0 = none,
    a digit that stays 0); ``split``: near matches of the query's and of the candidate's side in
    separate digits; ``query_size``: |A| as a digit; ``credit_hops``: the near matches' summed
    Wu-Palmer credit units within that many hops (0 = no credit digit).
    """

    levels: tuple[int, ...] = (0,)
    split: bool = False
    query_size: bool = False
    credit_hops: int = 0


@dataclass(frozen=True)
class PairCounts:
    """The counts of pairs (Python ints or equal-shape arrays) that a measure's value is computed from."""

    intersection: Any
    union: Any
    query_size: Any = None  # |A|, only for plans with ``query_size``
    near: tuple = ()  # per level: near matches of both sides
    near_query: tuple = ()  # per level, split plans: near matches in A \ B
    near_candidate: tuple = ()  # per level, split plans: near matches in B \ A
    credit: Any = None  # summed credit units (plans with ``credit_hops``)

    def near_total(self, level: int = -1):
        if self.near:
            return self.near[level]
        if self.near_query:
            return self.near_query[level] + self.near_candidate[level]
        return 0


@dataclass(frozen=True)
class PairContext:
    """What the per-pair functions read from the KG, built once per (KG, vocabulary, mode, n)."""

    neighbours: Mapping[str, frozenset[str]] = field(default_factory=dict)
    distances: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    credits: Mapping[str, Mapping[str, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class Parameter:
    """One parameter: its values lie in [low, high]; ``label`` names it in plain words (axis titles), and an
    ablation sweeps it over ``sweep`` (default [low, high]; n stops at 3 hops, as in the paper's ablation)."""

    name: str
    default: float
    low: float
    high: float
    integer: bool = False
    help: str = ""
    label: str = ""
    sweep: tuple[float, float] | None = None

    @property
    def sweep_range(self) -> tuple[float, float]:
        """The values an ablation sweeps this parameter over."""
        return self.sweep if self.sweep is not None else (self.low, self.high)


@dataclass(frozen=True)
class Measure:
    """One registry entry. ``weights``: the parameters are hop weights w1..wn (n = how many are given)."""

    key: str
    title: str
    summary: str
    formula: str
    source: str
    parameters: tuple[Parameter, ...]
    uses_kg: bool
    plan: Callable[[dict[str, float]], CountPlan]
    value: Callable[[PairCounts, dict[str, float]], Any]
    pair: Callable[[frozenset[str], frozenset[str], PairContext, dict[str, float]], float]
    reduce: Callable[[dict[str, float], bool], tuple[str, dict[str, float]] | None] = lambda p, kg: None
    weights: bool = False

    def parameter(self, name: str) -> Parameter:
        for parameter in self.parameters:
            if parameter.name == name:
                return parameter
        if self.weights and re.fullmatch(r"w[1-9]", name) and int(name[1:]) <= MAX_HOPS:
            hops = int(name[1:])
            return Parameter(name, 0.5 ** hops, 0.0, 1.0, False, f"credit of a near match {hops} hops away",
                             f"weight of concepts related at {hops} hop{'s' if hops > 1 else ''}")
        takes = "w1, w2, ..." if self.weights else ", ".join(p.name for p in self.parameters) or "none"
        raise ParameterError(f"measure {self.key} has no parameter {name!r}; it takes {takes}")


@dataclass(frozen=True)
class MeasureSpec:
    """A measure with all its parameters; ``name`` is its canonical text. Build with :func:`measure_spec`."""

    key: str
    parameters: tuple[tuple[str, float], ...] = ()

    @property
    def measure(self) -> Measure:
        return MEASURES[self.key]

    @property
    def params(self) -> dict[str, float]:
        return dict(self.parameters)

    @property
    def name(self) -> str:
        if not self.parameters:
            return self.key
        return f"{self.key}({','.join(f'{n}={_format(v)}' for n, v in self.parameters)})"

    def __str__(self) -> str:
        return self.name

    @property
    def uses_kg(self) -> bool:
        return self.measure.uses_kg

    @property
    def hops(self) -> int:
        """The KG distance the measure looks at (0 for measures without a KG)."""
        params = self.params
        if self.measure.weights:
            return len(params)
        return int(params.get("n", 0))

    def with_parameters(self, **changes: float) -> MeasureSpec:
        return measure_spec(self.key, **{**self.params, **changes})

    def effective(self, has_kg: bool) -> MeasureSpec:
        """The simplest spec with the same values: e.g. nn-IoU at alpha = 0 or without a KG is IoU.

        Only reductions that give the same floating-point values are made (tested).
        """
        reduced = self.measure.reduce(self.params, has_kg)
        return self if reduced is None else measure_spec(reduced[0], **reduced[1]).effective(has_kg)

    def plan(self) -> CountPlan:
        return self.measure.plan(self.params)

    def value(self, counts: PairCounts):
        return self.measure.value(counts, self.params)

    def context(self, kg: KnowledgeGraph | None, vocabulary: tuple[str, ...], mode: str = "undirected") -> PairContext:
        """The KG lookups the per-pair function needs, for concepts of ``vocabulary``."""
        hops = self.hops
        if not self.uses_kg or kg is None or hops == 0:
            return PairContext()
        if self.key == "nn-iou-depth":
            from evalcore.relevance.taxonomy import credit_sets

            return PairContext(credits=credit_sets(kg, vocabulary, hops, mode))
        if self.measure.weights:
            return PairContext(distances=neighbour_distances(kg, vocabulary, hops, mode))
        return PairContext(neighbours=neighbour_sets(kg, vocabulary, hops, mode))

    def pair_function(self, kg: KnowledgeGraph | None, vocabulary: tuple[str, ...],
                      mode: str = "undirected") -> Callable[[frozenset[str], frozenset[str]], float]:
        """The plain per-pair function with its KG lookups bound: ``f(A, B)``."""
        context = self.context(kg, vocabulary, mode)
        params = self.params
        function = self.measure.pair
        return lambda a, b: function(a, b, context, params)


def _format(value: float) -> str:
    """Shortest text that reads back as the same float; whole numbers without '.0' (up to 10^16, beyond which a
    float's digits are no longer all its own: an error quoting 1e308 says "1e+308", not 309 digits).

    >>> _format(2.0), _format(0.5), _format(1e308)
    ('2', '0.5', '1e+308')
    """
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e16 else repr(value)


# --- the measures ------------------------------------------------------------------------

ALPHA = Parameter("alpha", 0.5, 0.0, 1.0, False, "credit of a near match, relative to an exact match",
                  "weight of related concepts")
HOPS = Parameter("n", 1, 0, MAX_HOPS, True, "KG distance threshold: neighbours are at most n is_a links apart",
                 "largest link distance of related concepts", (0, 3))
TVERSKY_A = Parameter("a", 0.7, 0.0, 1.0, False, "weight of the query's concepts missing from the candidate",
                      "weight of the query's concepts the candidate lacks")
DEPTH_ALPHA = Parameter("alpha", 1.0, 0.0, 1.0, False, "scale of the Wu-Palmer credit (1: the credit is the similarity)",
                        "weight of related concepts, by depth")
TVERSKY_B = Parameter("b", 0.3, 0.0, 1.0, False, "weight of the candidate's concepts missing from the query",
                      "weight of the candidate's concepts the query lacks")


def _iou_value(counts: PairCounts, p: dict) -> Any:
    return nn_iou_from_counts(counts.intersection, 0, counts.union, 0.0)


def _nn_iou_value(counts: PairCounts, p: dict) -> Any:
    return nn_iou_from_counts(counts.intersection, counts.near_total(), counts.union, p["alpha"])


def _tversky_counts(counts: PairCounts):
    """(|A\\B|, |B\\A|, |N_A|, |N_B|); a symmetric plan knows only the totals, given as (total, 0, total, 0)."""
    if counts.query_size is None:
        return counts.union - counts.intersection, 0, counts.near_total(), 0
    near_query = counts.near_query[-1] if counts.near_query else 0
    near_candidate = counts.near_candidate[-1] if counts.near_candidate else 0
    return (counts.query_size - counts.intersection, counts.union - counts.query_size, near_query, near_candidate)


def _tversky_value(counts: PairCounts, p: dict) -> Any:
    only_a, only_b, near_a, near_b = _tversky_counts(counts)
    return nn_tversky_from_counts(counts.intersection, only_a, only_b, near_a, near_b, p.get("alpha", 0.0),
                                  p.get("a", 0.5), p.get("b", 0.5))


def _tversky_plan(p: dict) -> CountPlan:
    """Symmetric weights need only nn-IoU's counts (and share its codes); asymmetric ones need |A| and the sides."""
    hops = int(p.get("n", 0)) if p.get("alpha", 0.0) > 0 else 0
    if p.get("a", 0.5) == p.get("b", 0.5):
        return CountPlan(levels=(hops,))
    return CountPlan(levels=(hops,) if hops else (), split=hops > 0, query_size=True)


def _hops_value(counts: PairCounts, p: dict) -> Any:
    weights = _weights(p)
    return nn_iou_hops_from_counts(counts.intersection, counts.near, counts.union, weights)


def _weights(p: Mapping[str, float]) -> tuple[float, ...]:
    return tuple(p[f"w{d}"] for d in range(1, len(p) + 1))


def _reduce_nn_iou(p: dict, has_kg: bool):
    return ("iou", {}) if not has_kg or p["alpha"] == 0 or p["n"] == 0 else None


def _reduce_nn_tversky(p: dict, has_kg: bool):
    if not has_kg or p["alpha"] == 0 or p["n"] == 0:
        return "tversky", {"a": p["a"], "b": p["b"]}
    return ("nn-iou", {"alpha": p["alpha"], "n": p["n"]}) if p["a"] == p["b"] == 1 else None


def _reduce_tversky(p: dict, has_kg: bool):
    if p["a"] == p["b"] == 1:
        return "iou", {}
    return ("dice", {}) if p["a"] == p["b"] == 0.5 else None


def _reduce_hops(p: dict, has_kg: bool):
    weights = list(_weights(p))
    while weights and weights[-1] == 0:
        weights.pop()
    if not has_kg or not weights:
        return "iou", {}
    if len(set(weights)) == 1:
        return "nn-iou", {"alpha": weights[0], "n": len(weights)}
    return None if len(weights) == len(p) else ("nn-iou-hops", {f"w{d}": w for d, w in enumerate(weights, start=1)})


def _reduce_depth(p: dict, has_kg: bool):
    return ("iou", {}) if not has_kg or p["alpha"] == 0 or p["n"] == 0 else None


MEASURES: dict[str, Measure] = {m.key: m for m in [
    Measure("iou", "IoU", "share of concepts the two images have in common",
            "|A ∩ B| / |A ∪ B|", "Jaccard 1912; docs/DESIGN.md §2", (), False,
            plan=lambda p: CountPlan(), value=_iou_value,
            pair=lambda a, b, c, p: iou(a, b)),
    Measure("nn-iou", "nn-IoU", "IoU that also credits concepts within n hops in the knowledge graph",
            "(|A ∩ B| + alpha |N(A,B)|) / |A ∪ B|", "Wei, Kurtz, Cloppet 2025; docs/DESIGN.md §2", (ALPHA, HOPS), True,
            plan=lambda p: CountPlan(levels=(int(p["n"]),)), value=_nn_iou_value,
            pair=lambda a, b, c, p: nn_iou(a, b, c.neighbours, p["alpha"]), reduce=_reduce_nn_iou),
    Measure("dice", "Dice", "shared concepts over the average number of concepts of the two images",
            "2 |A ∩ B| / (|A| + |B|)", "Dice 1945; Tversky with a = b = 0.5", (), False,
            plan=lambda p: CountPlan(), value=lambda counts, p: _tversky_value(counts, {"a": 0.5, "b": 0.5}),
            pair=lambda a, b, c, p: dice(a, b)),
    Measure("tversky", "Tversky", "shared concepts against the query's missing (a) and the candidate's extra (b) ones",
            "|A∩B| / (|A∩B| + a|A\\B| + b|B\\A|)", "Tversky 1977; docs/DESIGN.md §2", (TVERSKY_A, TVERSKY_B), False,
            plan=_tversky_plan, value=_tversky_value,
            pair=lambda a, b, c, p: nn_tversky(a, b, {}, 0.0, p["a"], p["b"]), reduce=_reduce_tversky),
    Measure("nn-tversky", "nn-Tversky", "Tversky where each near match moves alpha from its own tally to the shared one",
            "(|A∩B| + alpha|N|) / (|A∩B| + alpha|N| + a(|A\\B| - alpha|N_A|) + b(|B\\A| - alpha|N_B|))",
            "docs/DESIGN.md §2", (TVERSKY_A, TVERSKY_B, ALPHA, HOPS), True,
            plan=_tversky_plan, value=_tversky_value,
            pair=lambda a, b, c, p: nn_tversky(a, b, c.neighbours, p["alpha"], p["a"], p["b"]), reduce=_reduce_nn_tversky),
    Measure("nn-iou-hops", "nn-IoU-hops", "nn-IoU where a near match d hops from its partner earns w_d",
            "(|A ∩ B| + sum_{x ∈ N(A,B)} w_{d(x)}) / |A ∪ B|", "docs/RELEVANCE_MEASURES.md", (), True,
            plan=lambda p: CountPlan(levels=tuple(range(1, len(p) + 1))), value=_hops_value,
            pair=lambda a, b, c, p: nn_iou_hops(a, b, c.distances, _weights(p)), reduce=_reduce_hops, weights=True),
    Measure("nn-iou-depth", "nn-IoU-depth",
            "nn-IoU where a near match earns the Wu-Palmer similarity of its closest partner (deep links count more)",
            "(|A ∩ B| + alpha sum_{x ∈ N(A,B)} max_y WuP(x, y)) / |A ∪ B|",
            "Wu & Palmer 1994; docs/RELEVANCE_MEASURES.md", (DEPTH_ALPHA, HOPS), True,
            plan=lambda p: CountPlan(levels=(), credit_hops=int(p["n"])),
            value=lambda counts, p: nn_iou_depth_from_counts(counts.intersection, counts.credit, counts.union, p["alpha"]),
            pair=lambda a, b, c, p: nn_iou_depth(a, b, c.credits, p["alpha"]), reduce=_reduce_depth),
]}


def measure_spec(key: str, **params: float) -> MeasureSpec:
    """A validated :class:`MeasureSpec`; parameters not given take the registry's defaults.

    >>> measure_spec("tversky", a=0.8).name
    'tversky(a=0.8,b=0.3)'
    >>> measure_spec("nn-iou-hops", w1=0.5, w2=0.2, w3=0.1).name
    'nn-iou-hops(w1=0.5,w2=0.2,w3=0.1)'
    """
    measure = MEASURES.get(key)
    if measure is None:
        raise ParameterError(f"unknown relevance measure {key!r}; known: {', '.join(MEASURES)}")
    values: dict[str, float] = {}
    if measure.weights:
        names = sorted(params, key=lambda name: int(name[1:]) if re.fullmatch(r"w\d+", name) else -1)
        for name in names:
            measure.parameter(name)
        if not params:
            params = {"w1": 0.5, "w2": 0.25}
        expected = [f"w{d}" for d in range(1, len(params) + 1)]
        if sorted(params) != sorted(expected):
            raise ParameterError(f"{key}: give the hop weights w1..wn without gaps, got {', '.join(sorted(params))}")
        weights = check_hop_weights(_number(key, name, params[name]) for name in expected)
        return MeasureSpec(key, tuple(zip(expected, weights)))
    for name in params:
        measure.parameter(name)
    for parameter in measure.parameters:
        raw = params.get(parameter.name, parameter.default)
        value = _number(key, parameter.name, raw)
        if parameter.integer:
            if value != int(value):
                raise ParameterError(f"{key}: {parameter.name} must be a whole number, got {raw!r}")
            value = int(value)
            check_hops_and_mode(value, "undirected")
        elif not parameter.low <= value <= parameter.high:
            raise ParameterError(f"{key}: {parameter.name} must lie in [{_format(parameter.low)}, "
                                 f"{_format(parameter.high)}], got {_format(value)}")
        values[parameter.name] = value
    return MeasureSpec(key, tuple(values.items()))


def nn_iou_measure(alpha: float = ALPHA.default, n: int = HOPS.default, mode: str = "undirected") -> MeasureSpec:
    """nn-IoU(alpha, n) as a measure: the one spelling of an nn-IoU spec in the code (the paper's defaults, alpha 0.5
    and n 1, where none is given), validated with the messages of the entry points that take ``alpha`` and ``n``
    (alpha in [0, 1], n a whole number of hops in 0..MAX_HOPS, a known KG mode).

    >>> nn_iou_measure(0.5, 1).name, nn_iou_measure() == nn_iou_measure(0.5, 1)
    ('nn-iou(alpha=0.5,n=1)', True)
    >>> nn_iou_measure(0, 1).effective(has_kg=True).name  # IoU at alpha = 0 or n = 0
    'iou'
    """
    alpha = check_alpha(alpha)
    check_hops_and_mode(n, mode)
    return measure_spec("nn-iou", alpha=alpha, n=n)


def _number(key: str, name: str, raw: Any) -> float:
    """A parameter's value; written as text, in plain ASCII decimal syntax: float() would also read other scripts'
    digits ("٠.٧") and underscores ("0_7" is 7)."""
    if isinstance(raw, str):
        value = finite_decimal(raw)
        if value is None:
            raise ParameterError(f"{key}: {name} must be a number in digits 0-9 such as 0.5 (finite), got {raw[:40]!r}")
        return value
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise ParameterError(f"{key}: {name} must be a number, got {raw!r}") from None
    if not math.isfinite(value):
        raise ParameterError(f"{key}: {name} must be a finite number, got {raw!r}")
    return value


_CALL = re.compile(r"^\s*(?P<key>[A-Za-z][A-Za-z0-9-]*)\s*(?:\((?P<arguments>[^()]*)\))?\s*$")


def parse_measure(text: str, defaults: Mapping[str, float] | None = None) -> MeasureSpec:
    """Read a measure's canonical text (``key`` or ``key(name=value,...)``; values may be positional).

    Parameters missing from the text take ``defaults`` where it names them (the CLI passes
    ``--alpha`` and ``--n`` this way), else the registry's defaults.

    >>> parse_measure("tversky(0.8, b=0.2)").name
    'tversky(a=0.8,b=0.2)'
    >>> parse_measure("nn-iou", {"alpha": 0.3, "n": 2}).name
    'nn-iou(alpha=0.3,n=2)'
    >>> parse_measure("nn-iou-hops(0.5, 0.25)").name
    'nn-iou-hops(w1=0.5,w2=0.25)'

    A parameter named twice, or given by position and by name, is refused:

    >>> parse_measure("nn-iou(alpha=0.5,alpha=0.1)")
    Traceback (most recent call last):
      ...
    evalcore.errors.ParameterError: 'nn-iou(alpha=0.5,alpha=0.1)': alpha is given twice (0.5 and 0.1); give it once
    """
    if not isinstance(text, str):
        raise ParameterError(f"a measure's text is a string such as 'nn-iou(alpha=0.5,n=1)', got {text!r}")
    match = _CALL.match(text)
    if match is None:
        raise ParameterError(f"cannot read the relevance measure {text!r}: expected key or key(name=value,...), "
                             f"with key one of {', '.join(MEASURES)}")
    key = match.group("key").lower()
    if key not in MEASURES:
        raise ParameterError(f"unknown relevance measure {key!r}; known: {', '.join(MEASURES)}")
    measure = MEASURES[key]
    given: dict[str, Any] = {}
    arguments = [a.strip() for a in (match.group("arguments") or "").split(",") if a.strip()]
    positional_names = [p.name for p in measure.parameters] if not measure.weights else [
        f"w{d}" for d in range(1, MAX_HOPS + 1)]
    for position, argument in enumerate(arguments):
        name, equals, value = argument.partition("=")
        if equals:
            name, value = name.strip().lower(), value.strip()
        elif position < len(positional_names) and not any("=" in a for a in arguments[:position]):
            name, value = positional_names[position], argument
        else:
            raise ParameterError(f"{text!r}: too many or misplaced values for {key}")
        if name in given:
            # Taking the last value would silently drop the first one the user wrote.
            raise ParameterError(f"{text!r}: {name} is given twice ({given[name]} and {value}); give it once")
        given[name] = value
    if not measure.weights and defaults:
        for parameter in measure.parameters:
            if parameter.name not in given and parameter.name in defaults:
                given[parameter.name] = defaults[parameter.name]
    return measure_spec(key, **given)


def default_measures() -> list[MeasureSpec]:
    """Every registry measure at its default parameters, in registry order."""
    return [measure_spec(key) for key in MEASURES]


def metric_tag(measure: MeasureSpec) -> str:
    """How metric names carry a measure: '' for IoU, 'nn-' prefix for nn-IoU, else the key in braces.

    >>> metric_tag(measure_spec("iou")), metric_tag(measure_spec("nn-iou", alpha=0.2, n=2)), metric_tag(measure_spec("dice"))
    ('', 'nn-', '{dice}')
    """
    return {"iou": "", "nn-iou": "nn-"}.get(measure.key, "{" + measure.key + "}")
