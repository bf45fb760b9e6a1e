"""The 'Choose a measure' verdict read against the pairwise test (issue 67, item 3): every lead the sentence states
holds by the page's own :func:`clear_lead`, pair by pair, and every clear pair is stated, in both readers' words; no
group is cut from a ranking."""

from __future__ import annotations

import re
from itertools import permutations

import numpy as np
import pandas as pd
import pytest

from evalcore.data import Run
from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.relevance.measures import measure_spec
from evalcore.studies.measure_comparison import (
    ALL_POWER,
    RESAMPLE_COLUMNS,
    SWAP_RATE,
    MeasureComparison,
    clear_lead,
    compare_measures,
    sampled_power_column,
    verdict,
)
from tests.conftest import random_world

MORE, STEADIER = "more pairs apart", "fewer swaps, level on pairs apart"
#: The measures of the issue's ROCOv2 comparison (alpha 0.6 in the sidebar, so nn-iou at 0.5 and 0.6).
ROCOV2 = ["iou", "nn-iou(alpha=0.6,n=1)", "dice", "tversky(a=0.7,b=0.3)", "nn-tversky(a=0.7,b=0.3,alpha=0.6,n=1)",
          "nn-iou-hops(w1=0.5,w2=0.25)", "nn-iou-depth(alpha=1,n=1)", "nn-iou(alpha=0.5,n=1)"]
#: What a clinician is not asked to read.
JARGON = re.compile(r"p <|quer|sample|swap|system pairs|noise|measure|circular|ranking", re.IGNORECASE)


# --- the pairwise truth, from the resamples alone ---------------------------------------------------------------

def pairwise_leads(comparison: MeasureComparison) -> set[tuple[str, str, str]]:
    """(leader, led, criterion) for every ordered pair of measures: ``clear_lead`` on each query sample's share of
    pairs apart; where neither leads on it, ``clear_lead`` on each split's swap rate (lower is ahead)."""
    power = sampled_power_column(comparison.subsample) if comparison.subsample else ALL_POWER
    values = {key: group.sort_values("resample").value.to_numpy()
              for key, group in comparison.resamples.groupby(["criterion", "measure"])}
    leads = set()
    for a, b in permutations(comparison.table.measure, 2):
        if clear_lead(values[power, a], values[power, b]):
            leads.add((a, b, MORE))
        elif not clear_lead(values[power, b], values[power, a]) and clear_lead(values[SWAP_RATE, b],
                                                                                 values[SWAP_RATE, a]):
            leads.add((a, b, STEADIER))
    return leads


# --- the sentence, read back --------------------------------------------------------------------------------------

def split_names(text: str) -> list[str]:
    """A list as the sentence writes it ("a, b and c"), split outside parentheses: a name holds commas."""
    parts, current, depth, at = [], "", 0, 0
    while at < len(text):
        separator = next((s for s in (", ", " and ") if text.startswith(s, at)), None) if depth == 0 else None
        if separator:
            parts.append(current)
            current, at = "", at + len(separator)
            continue
        depth += {"(": 1, ")": -1}.get(text[at], 0)
        current, at = current + text[at], at + 1
    return [*parts, current]


def researcher_claims(sentence: str, measures: list[str]) -> set[tuple[str, str, str]]:
    """Every "X leads Y" the researcher's sentence states, by criterion."""
    claims = set()
    for clause in sentence.rstrip(".").split("; "):
        clause = re.sub(r"^(No measure leads every other: |of the others, |The evidence favours .+?, which leads "
                        r"every other measure: )", "", clause)
        if found := re.match(r"The evidence favours (.+?): it tells (slightly )?more system pairs apart .* than any "
                             r"other measure", clause):
            claims |= {(found[1], other, MORE) for other in measures if other != found[1]}
        elif found := re.match(r"The evidence favours (.+?) on stability alone: .*, and (.+?) swaps fewer pairs", clause):
            assert found[1] == found[2], clause
            claims |= {(found[1], other, STEADIER) for other in measures if other != found[1]}
        elif found := re.match(r"(.+?) tells more system pairs apart( at p < \S+ on \S+ \S+)? than (.+?) \([\d—]",
                               clause):
            claims |= {(found[1], other, MORE) for other in split_names(found[3])}
        elif clause.startswith("level on pairs apart, "):
            # "level on pairs apart, a swaps fewer pairs across query sets than b and c (...), d fewer than e (...)"
            for leader, led in re.findall(r"(?:^|\), )(\S+) (?:swaps fewer pairs across query sets|fewer) than (.+?) "
                                          r"\([\d—]", clause[len("level on pairs apart, "):]):
                claims |= {(leader, other, STEADIER) for other in split_names(led)}
    assert {name for claim in claims for name in claim[:2]} <= set(measures), claims
    return claims


def clinician_claims(sentence: str, measures: list[str]) -> set[tuple[str, str, str]]:
    """Every "X leads Y" the clinician's sentence states, by criterion."""
    claims = set()
    for clause in sentence.rstrip(".").split("; "):
        clause = re.sub(r"^(No way of matching is ahead of every other: |The evidence favours .+?, ahead of every "
                        r"other way of matching: )", "", clause)
        if found := re.fullmatch(r"(.+?) clearly tells retrieval systems apart more often than (.+)", clause):
            claims |= {(found[1], other, MORE) for other in split_names(found[2])}
        elif found := re.fullmatch(r"(.+?) tells retrieval systems apart as often as (.+?), but more consistently "
                                   r"from one set of cases to another", clause):
            claims |= {(found[1], other, STEADIER) for other in split_names(found[2])}
    assert {name for claim in claims for name in claim[:2]} <= set(measures), claims
    return claims


def favoured(sentence: str) -> str | None:
    found = re.match(r"The evidence favours (.+?)(, which leads| on stability alone|, ahead of every|: )", sentence)
    return found[1] if found else None


def assert_read_against_the_pairs(comparison: MeasureComparison) -> set[tuple[str, str, str]]:
    """Both readers' sentences state exactly the pairwise leads, favour only a measure leading every other, and say
    that the rest tie exactly where some pair is level on both criteria."""
    measures = comparison.table.measure.tolist()
    truth = pairwise_leads(comparison)
    leading_all = [m for m in measures if len({led for leader, led, _ in truth if leader == m}) == len(measures) - 1]
    tied = len(truth) < len(measures) * (len(measures) - 1) // 2
    researcher, clinician = verdict(comparison), verdict(comparison, "clinician")
    assert researcher_claims(researcher, measures) == truth, (researcher, truth)
    assert clinician_claims(clinician, measures) == truth, (clinician, truth)
    for sentence in (researcher, clinician):
        assert favoured(sentence) == (leading_all[0] if leading_all else None), sentence
        assert sentence.startswith("A tie: ") == (not truth), sentence
    assert ("every other pair of measures ties" in researcher) == (bool(truth) and tied), researcher
    assert ("every other comparison between them is too close to call" in clinician) == (bool(truth) and tied)
    assert not JARGON.search(_without(clinician, measures)), clinician
    return truth


def _without(sentence: str, names: list[str]) -> str:
    """``sentence`` less the measures' names (a measure is called by its name, in both readers' words)."""
    for name in sorted(names, key=len, reverse=True):
        sentence = sentence.replace(name, "")
    return sentence


# --- comparisons made by hand --------------------------------------------------------------------------------------

def resamples_of(power: dict[str, np.ndarray], swaps: dict[str, np.ndarray], subsample: int = 100) -> pd.DataFrame:
    rows = [{"measure": m, "criterion": sampled_power_column(subsample), "resample": i, "value": float(v)}
            for m, values in power.items() for i, v in enumerate(values)]
    rows += [{"measure": m, "criterion": SWAP_RATE, "resample": i, "value": float(v)}
             for m, values in swaps.items() for i, v in enumerate(values)]
    return pd.DataFrame(rows, columns=RESAMPLE_COLUMNS)


def made(power: dict[str, np.ndarray], swaps: dict[str, np.ndarray], systems: int = 10,
         left_out: tuple[str, ...] = ()) -> MeasureComparison:
    """A comparison whose table shows the means of its resamples (as :func:`compare_measures` makes it)."""
    table = pd.DataFrame({"measure": list(power), sampled_power_column(100): [v.mean() for v in power.values()],
                          SWAP_RATE: [np.nanmean(swaps[m]) for m in power], "ties@5": [100] * len(power)})
    return MeasureComparison(table, pd.DataFrame(), pd.DataFrame(), "CUI@10",
                             tuple(f"system {i}" for i in range(systems)), 500, subsample=100,
                             resamples=resamples_of(power, swaps),
                             left_out=pd.DataFrame({"system": list(left_out), "left out": ["circular"] * len(left_out)}))


def wave(k: int, samples: int = 20) -> np.ndarray:
    """cos(2 pi k i / samples): zero mean, and orthogonal to every other k, so that a pair's paired differences
    have the mean of the measures' means and a standard deviation known exactly."""
    return np.cos(2 * np.pi * k * np.arange(samples) / samples)


def test_the_issue_case_one_measure_leads_two_of_the_old_tie_group_and_the_rest_tie():
    # ROCOv2 at alpha 0.6 (issue 67): dice, iou and nn-tversky steady from one query sample to the next (0.002),
    # tversky, nn-iou-depth and nn-iou at 0.6 noisy (0.04), the two lowest in between (0.015). Pair by pair (t =
    # mean / SE of the differences, exact here): dice leads iou (t 12), nn-tversky (11.8) and the two lowest (3.7);
    # iou and nn-tversky lead neither (t 1.4 to 1.5), and no lead over a noisy measure, or of one, is clear (t < 1).
    # The old cut-off tied everything down to the lowest share dice does not clearly lead (nn-iou at 0.6, 0.9240):
    # iou and nn-tversky inside the "tie", the two lowest "the others".
    means = dict(zip(ROCOV2, (0.9244, 0.9240, 0.9300, 0.9270, 0.9246, 0.9210, 0.9265, 0.9210)))
    noise = dict(zip(ROCOV2, (0.002, 0.04, 0.002, 0.04, 0.002, 0.015, 0.04, 0.015)))
    common = 0.01 * wave(9)  # what a sample of queries does to every measure
    power = {m: means[m] + common + noise[m] * wave(k) for k, m in enumerate(ROCOV2, start=1)}
    swaps = {m: np.full(50, 0.014) for m in ROCOV2}
    comparison = made(power, swaps, left_out=("Retrieval by IoU", "Retrieval by nn-IoU"))
    led = ["iou", "nn-tversky(a=0.7,b=0.3,alpha=0.6,n=1)", "nn-iou-hops(w1=0.5,w2=0.25)", "nn-iou(alpha=0.5,n=1)"]
    assert assert_read_against_the_pairs(comparison) == {("dice", other, MORE) for other in led}
    shown = comparison.table.set_index("measure")[sampled_power_column(100)]
    assert shown.idxmax() == "dice" and set(shown.nsmallest(2).index) == {ROCOV2[5], ROCOV2[7]}
    assert shown["iou"] > shown["nn-iou(alpha=0.6,n=1)"] < shown["nn-tversky(a=0.7,b=0.3,alpha=0.6,n=1)"]
    assert verdict(comparison) == (
        "No measure leads every other: dice tells more system pairs apart at p < 0.05 on 100-query samples than iou, "
        "nn-tversky(a=0.7,b=0.3,alpha=0.6,n=1), nn-iou-hops(w1=0.5,w2=0.25) and nn-iou(alpha=0.5,n=1) (0.9300 vs "
        "0.9244, 0.9246, 0.9210 and 0.9210); every other pair of measures ties within the noise of the 20 query samples "
        "and the 50 splits into query sets; left out as circular (the ideal ranking under a compared measure): "
        "Retrieval by IoU and Retrieval by nn-IoU.")
    assert verdict(comparison, "clinician") == (
        "No way of matching is ahead of every other: dice clearly tells retrieval systems apart more often than iou, "
        "nn-tversky(a=0.7,b=0.3,alpha=0.6,n=1), nn-iou-hops(w1=0.5,w2=0.25) and nn-iou(alpha=0.5,n=1); every other "
        "comparison between them is too close to call; not judged: Retrieval by IoU and Retrieval by nn-IoU, each the "
        "perfect list under one of these ways of matching (it would win by construction).")
    # No group cut from the ranking: nothing says tversky or nn-iou-depth ahead of the two lowest, which they are
    # on the means shown.
    assert "A tie" not in verdict(comparison) and "more than the others" not in verdict(comparison)


def test_several_measures_lead_each_is_named_with_those_it_leads():
    # Three steady measures 0.1 apart, each ahead of those below; tversky as high as dice but so noisy (0.35) that
    # no lead over it, or of it, is clear (t 1.8 against the others).
    means, noise = {"iou": 0.3, "dice": 0.4, "tversky(a=0.7,b=0.3)": 0.4, "nn-iou": 0.5}, {"tversky(a=0.7,b=0.3)": 0.35}
    power = {m: mean + noise.get(m, 0.01) * wave(k) for k, (m, mean) in enumerate(means.items(), start=1)}
    swaps = {m: np.full(10, 0.02) for m in power}
    comparison = made(power, swaps)
    assert assert_read_against_the_pairs(comparison) == {
        ("nn-iou", "iou", MORE), ("nn-iou", "dice", MORE), ("dice", "iou", MORE)}
    assert verdict(comparison) == (
        "No measure leads every other: nn-iou tells more system pairs apart at p < 0.05 on 100-query samples than iou "
        "and dice (0.5000 vs 0.3000 and 0.4000); dice tells more system pairs apart than iou (0.4000 vs 0.3000); every "
        "other pair of measures ties within the noise of the 20 query samples and the 10 splits into query sets.")


def test_no_clear_pair_is_a_tie_in_both_readers_words():
    rng = np.random.default_rng(3)
    power = {m: 0.9 + rng.normal(0.0, 0.03, 20) for m in ("iou", "dice", "nn-iou")}
    swaps = {m: 0.02 + rng.normal(0.0, 0.01, 30) for m in power}
    comparison = made(power, swaps)
    assert assert_read_against_the_pairs(comparison) == set()
    assert verdict(comparison).startswith("A tie: no measure clearly leads another; all 3 measures tell about as many")
    assert verdict(comparison, "clinician") == ("A tie: no way of matching is clearly ahead of another at telling "
                                                "retrieval systems apart; they are too close to call.")


def test_a_lead_on_stability_is_stated_only_between_measures_level_on_pairs_apart():
    steady = np.linspace(-0.01, 0.01, 20)
    power = {"iou": 0.7 + steady, "dice": 0.7 + steady, "nn-iou": 0.9 + steady}
    swaps = {"iou": np.full(10, 0.03), "dice": np.full(10, 0.01), "nn-iou": np.full(10, 0.05)}
    comparison = made(power, swaps)
    # nn-iou swaps the most, yet leads both on pairs apart; dice is steadier than iou, level with it on pairs apart.
    assert assert_read_against_the_pairs(comparison) == {
        ("nn-iou", "iou", MORE), ("nn-iou", "dice", MORE), ("dice", "iou", STEADIER)}
    assert verdict(comparison, "clinician") == (
        "The evidence favours nn-iou, ahead of every other way of matching: nn-iou clearly tells retrieval systems "
        "apart more often than iou and dice; dice tells retrieval systems apart as often as iou, but more consistently "
        "from one set of cases to another.")
    assert verdict(comparison).endswith(
        "; of the others, level on pairs apart, dice swaps fewer pairs across query sets than iou (0.0100 vs 0.0300).")


@pytest.mark.parametrize("seed", range(40))
def test_on_seeded_comparisons_the_sentence_states_exactly_the_pairwise_leads(seed):
    rng = np.random.default_rng(seed)
    names = rng.permutation(ROCOV2)[:int(rng.integers(2, 8))].tolist()
    samples, splits = int(rng.integers(3, 25)), int(rng.integers(3, 40))
    common, common_swaps = rng.normal(0, 0.02, samples), rng.normal(0, 0.01, splits)
    power = {m: 0.8 + common + rng.choice([0.0, 0.01, 0.03, 0.06]) + rng.normal(0, rng.choice([0.001, 0.01, 0.04]),
                                                                                 samples) for m in names}
    swaps = {m: 0.03 + common_swaps + rng.choice([0.0, 0.005, 0.02]) + rng.normal(0, rng.choice([0.001, 0.01]), splits)
             for m in names}
    assert_read_against_the_pairs(made(power, swaps))


@pytest.mark.slow
def test_on_a_computed_comparison_the_sentence_states_exactly_the_pairwise_leads():
    concepts, kg = random_world(7, images=160, vocabulary=14)
    rng = np.random.default_rng(7)
    ids = list(concepts.ids)
    runs = [Run(f"system{s}", {q: tuple(rng.choice(ids, 12, replace=False)) for q in ids}) for s in range(2)]
    measures = [measure_spec(key) for key in ("iou", "nn-iou", "dice", "tversky", "nn-iou-depth")]
    result = compare_measures(Evaluator(concepts, kg), measures, runs, samples=200, subsample=40, subsample_repeats=6,
                              swap_repeats=12)
    assert_read_against_the_pairs(result)


def test_an_unknown_reader_is_refused():
    with pytest.raises(ParameterError, match="audience must be one of"):
        verdict(made({"iou": np.ones(3)}, {"iou": np.zeros(3)}), "patient")
