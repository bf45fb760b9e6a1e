"""The comparison of systems in a clinician's words, to share: one self-contained HTML page (no script, no external
address, as the report for a paper, :mod:`evalcore.app.report`) that says which system finds more similar images, by
how much and how sure ("likely real" or "could be chance", the Leaderboard's grid in the clinician's view), with a
few example cases and why each system's first image was found (the Case view's reasons,
:func:`evalcore.app.explain.reason_sentences`).

:func:`plain_report` gathers a :class:`PlainReport` from an evaluation (:class:`~evalcore.app.scores.Scores`), the
systems' ranked lists and a function that explains a pair of images (the dashboard's cached
:func:`~evalcore.app.explain.explain_pair`); :func:`plain_report_html` writes it, escaping every text a user gave
(system names, image IDs, captions, concept names). Scores are shown as every page shows them
(:data:`~evalcore.io.tables.SCORE_DECIMALS` decimals).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from evalcore.app.explain import Explanation, reason_sentences, shown_name
from evalcore.app.report import CONTENT_POLICY, SIGNIFICANCE_LEVEL, escaped, score
from evalcore.app.scores import Scores
from evalcore.app.workspace import Workspace
from evalcore.io.tables import plain_metric_help, plain_metric_label
from evalcore.version import __version__

#: How many example cases the report shows.
EXAMPLE_CASES = 3
TITLE = "Which system finds similar images best"
STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 900px; color: #222; line-height: 1.5; }
table { border-collapse: collapse; margin: 0.5em 0 1.2em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.real { background: #d4edda; }
.chance { background: #f8e5c9; }
.case { border: 1px solid #ddd; border-radius: 6px; padding: 0.2em 1em 0.6em; margin: 1em 0; }
.why { margin: 0.2em 0 0.6em; }
.caption { color: #555; font-style: italic; }
footer { color: #666; font-size: 0.9em; margin-top: 2em; }
"""


def plain_verdict(p_value: float) -> str:
    """How sure a difference is, in a clinician's words: "likely real" below the corrected 5 % level the
    researcher's grid marks green, "could be chance" above it, "could not be compared" where no case was scored by
    both systems.

    >>> plain_verdict(0.001), plain_verdict(0.2), plain_verdict(float("nan"))
    ('likely real', 'could be chance', 'could not be compared')
    """
    if not math.isfinite(p_value):
        return "could not be compared"
    return "likely real" if p_value < SIGNIFICANCE_LEVEL else "could be chance"


def why_line(explanation: Explanation) -> str:
    """Why an image was found for a case, as the Case view says it to a clinician
    (:func:`~evalcore.app.explain.reason_sentences`), as one sentence.

    >>> from evalcore.relevance.measures import measure_spec
    >>> from evalcore.app.explain import explain_pair
    >>> why_line(explain_pair({"liver"}, {"liver", "kidney"}, None, measure_spec("iou"), names={"liver": "liver"}))
    'Both show liver.'
    """
    text = "; ".join(reason_sentences(explanation, "clinician"))
    return f"{text[0].upper()}{text[1:]}."


@dataclass(frozen=True)
class PlainSystem:
    """A system as the report names it, its mean score with the range it would likely fall in on another sample
    of images (``low``, ``high``) and the number of cases it was scored on."""

    name: str
    mean: float
    low: float
    high: float
    cases: int


@dataclass(frozen=True)
class Difference:
    """How far the best system is above ``other`` (its mean over the cases both were scored on) and the corrected
    p-value of that difference, said as :func:`plain_verdict`."""

    other: str
    difference: float
    p_value: float

    @property
    def verdict(self) -> str:
        return plain_verdict(self.p_value)


@dataclass(frozen=True)
class FoundImage:
    """The first image a system found for a case (None where it found none), why (:func:`why_line`) and the
    system's score on that case."""

    system: str
    image: str | None
    why: str
    score: float


@dataclass(frozen=True)
class ExampleCase:
    """A case: its image ID, its caption, its concepts in plain words, and what each system compared found first."""

    case: str
    caption: str
    concepts: tuple[str, ...]
    found: tuple[FoundImage, ...]


@dataclass(frozen=True)
class PlainReport:
    """What the clinician's report holds: the score's plain name and meaning, the matching settings in words, the
    systems best first, the best one's difference from each other one, and the example cases."""

    score_name: str
    score_meaning: str
    settings: str
    systems: tuple[PlainSystem, ...]
    differences: tuple[Difference, ...]
    cases: tuple[ExampleCase, ...]
    version: str = __version__


def example_cases(values: pd.DataFrame, best: str, other: str | None, usable: Callable[[str], bool],
                  count: int = EXAMPLE_CASES) -> list[str]:
    """The ``count`` cases (rows of ``values``, a cases x systems table of one score) where ``best`` scores most
    above ``other`` (where there is no other, where ``best`` scores highest), among those ``usable`` accepts; ties
    in the table's order.

    >>> values = pd.DataFrame({"a": [0.9, 0.5, 0.8, 0.6], "b": [0.1, 0.5, 0.2, None]}, index=["q1", "q2", "q3", "q4"])
    >>> example_cases(values, "a", "b", lambda case: case != "q3", 2), example_cases(values, "a", None, bool, 2)
    (['q1', 'q2'], ['q1', 'q3'])
    """
    if other is None:
        order = values[best].dropna().sort_values(ascending=False, kind="stable")
    else:
        pair = values[[best, other]].dropna()
        order = (pair[best] - pair[other]).sort_values(ascending=False, kind="stable")
    chosen: list[str] = []
    for case in order.index:
        if len(chosen) == count:
            break
        if usable(case):
            chosen.append(case)
    return chosen


def plain_report(scores: Scores, metric: str, ws: Workspace, shown: Mapping[str, str],
                 rankings: Mapping[str, Mapping[str, Sequence[str]]],
                 explain: Callable[[str, str], Explanation | None], settings: str,
                 count: int = EXAMPLE_CASES) -> PlainReport:
    """The report of ``metric`` over the systems of ``scores``: each named as ``shown`` names it (else as it is),
    the best mean first; the best one's difference from each other one (the Holm-corrected randomization p-values
    of the Leaderboard's grid); and ``count`` example cases of ``ws`` (:func:`example_cases` against the second
    best) with the first image each of the best two systems found (their ``rankings``, the case's own image left
    out) and why (``explain(case, image)``, None where either has no concept set). ``settings``: the matching
    settings in words."""
    rows = scores.summary()
    rows = rows[rows.metric == metric].sort_values("mean", ascending=False, kind="stable", na_position="last")
    ordered = list(rows.system)
    systems = tuple(PlainSystem(shown.get(row.system, row.system), row.mean, row.low, row.high, int(row.queries))
                    for row in rows.itertuples(index=False))
    best = ordered[0]
    second = ordered[1] if len(ordered) > 1 else None
    differences: dict[str, Difference] = {}
    for pair in scores.comparisons(metric) if second is not None else ():
        if best in (pair.system_a, pair.system_b):
            other, sign = (pair.system_b, 1) if pair.system_a == best else (pair.system_a, -1)
            differences[other] = Difference(shown.get(other, other), sign * pair.mean_difference,
                                            pair.p_randomization_holm)
    values = scores.per_query_values(metric)
    compared = [system for system in (best, second) if system is not None]

    def first_image(system: str, case: str) -> str | None:
        return next((image for image in rankings[system].get(case, ()) if image != case), None)

    def found(system: str, case: str) -> FoundImage:
        image = first_image(system, case)
        explanation = explain(case, image) if image is not None else None
        why = (why_line(explanation) if explanation is not None else
               "Nothing links it to the case: no concepts are known for this image." if image is not None else
               "This system found no image for this case.")
        return FoundImage(shown.get(system, system), image, why, float(values.at[case, system]))

    def usable(case: str) -> bool:
        return case in ws.concepts.index and all(first_image(system, case) is not None for system in compared)

    names = ws.shown_names
    cases = tuple(ExampleCase(case, ws.captions.get(case, ""),
                              tuple(sorted({shown_name(c, names.get(c), "clinician") for c in ws.concepts[case]},
                                           key=str.lower)),
                              tuple(found(system, case) for system in compared))
                  for case in example_cases(values, best, second, usable, count))
    return PlainReport(plain_metric_label(metric), plain_metric_help(metric), settings, systems,
                       tuple(differences[system] for system in ordered if system in differences), cases)


# --- the HTML ------------------------------------------------------------------------------------------------

def plain_report_html(report: PlainReport) -> str:
    """The report as one HTML page that loads nothing (no script, no link, no image file): the answer first, then
    how sure, every system's score, the example cases and what the score measures. Every text a user gave is
    escaped."""
    sections = [headline_section(report), differences_section(report), systems_section(report),
                cases_section(report)]
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_POLICY}">',
        f"<title>{TITLE}</title>", f"<style>{STYLE}</style>", "</head>", "<body>", f"<h1>{TITLE}</h1>",
        *sections,
        f"<footer>Made with CBIR Lens {escaped(report.version)}. {escaped(report.settings)}</footer>",
        "</body>", "</html>", ""])


def headline_section(report: PlainReport) -> str:
    """Which system finds more similar images, by how much and how sure, in one paragraph."""
    best = report.systems[0]
    scale = f"on a score from 0 to 1 where higher is better ({escaped(report.score_name)})"
    if not report.differences:
        return (f'<p class="answer">One system was compared: <strong>{escaped(best.name)}</strong> scores '
                f"{score(best.mean)} {scale}, over {best.cases:,} cases.</p>")
    other = report.differences[0]
    second = next(system for system in report.systems if system.name == other.other)
    if not other.difference > 0:
        answer = (f"<strong>{escaped(best.name)}</strong> and <strong>{escaped(second.name)}</strong> find images "
                  f"alike: both score {score(best.mean)} {scale}.")
    else:
        answer = (f"<strong>{escaped(best.name)}</strong> finds more similar images than <strong>"
                  f"{escaped(second.name)}</strong>: it scores {score(best.mean)} against {score(second.mean)} "
                  f"{scale}, {score(other.difference)} higher.")
    sure = (f"This difference is <strong>{other.verdict}</strong>." if math.isfinite(other.p_value) else
            "No case was scored by both systems: how sure cannot be said.")
    return f'<p class="answer">{answer} {sure}</p><p>{escaped(report.score_meaning)}</p>'


def differences_section(report: PlainReport) -> str:
    """The best system against each other one: how much higher, and whether that is likely real."""
    if not report.differences:
        return ""
    best = escaped(report.systems[0].name)
    rows = "".join(
        f'<tr><td>{best} against {escaped(d.other)}</td><td>{score(d.difference)}</td>'
        f'<td class="{"real" if d.verdict == "likely real" else "chance"}">{d.verdict}</td></tr>'
        for d in report.differences)
    return "\n".join([
        "<h2>How sure</h2>",
        "<p>&ldquo;Likely real&rdquo;: chance alone would give a difference this large less than 5 times in 100, "
        "allowing for the several systems compared. &ldquo;Could be chance&rdquo;: it would more often.</p>",
        f'<table class="differences"><thead><tr><th>systems</th><th>how much higher</th><th>how sure</th></tr>'
        f"</thead><tbody>{rows}</tbody></table>"])


def systems_section(report: PlainReport) -> str:
    """Every system's score with the range it would likely fall in on another sample of images."""
    rows = "".join(f"<tr><td>{escaped(s.name)}</td><td>{score(s.mean)}</td><td>{score(s.low)} to {score(s.high)}"
                   f"</td><td>{s.cases:,}</td></tr>" for s in report.systems)
    return "\n".join([
        "<h2>Every system</h2>",
        f"<p>The score: {escaped(report.score_name)}. The range: where the score would likely fall on another "
        "sample of images.</p>",
        f'<table class="systems"><thead><tr><th>system</th><th>score</th><th>likely range</th><th>cases</th></tr>'
        f"</thead><tbody>{rows}</tbody></table>"])


def cases_section(report: PlainReport) -> str:
    """The example cases: each with its caption and concepts, then the first image each system found and why."""
    if not report.cases:
        return "<h2>Example cases</h2><p>No case could be shown: no system found an image with known concepts.</p>"
    count = len(report.cases)
    parts = [f"<h2>{'Three' if count == 3 else count} example case{'s' if count != 1 else ''}</h2>",
             "<p>Where the best system is most ahead: the first image each system found for the case, and why it "
             "was found.</p>"]
    for example in report.cases:
        found = "".join(
            f'<li><strong>{escaped(item.system)}</strong> found {escaped(item.image or "nothing")} first (its score on '
            f'this case: {score(item.score)}).<p class="why">Why: {escaped(item.why)}</p></li>'
            for item in example.found)
        caption = f'<p class="caption">{escaped(example.caption)}</p>' if example.caption else ""
        concepts = escaped(", ".join(example.concepts) or "none known")
        parts.append(f'<section class="case"><h3>Case {escaped(example.case)}</h3>{caption}'
                     f"<p>Its concepts: {concepts}.</p><ul>{found}</ul></section>")
    return "\n".join(parts)
