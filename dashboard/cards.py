"""Drawing an explanation (evalcore.app.explain) for the Per-query cards and the Case view: concept chips,
the plain-words reason, the KG paths as a small graph, the arithmetic and the tie note."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st

from dashboard.computed import caption_dictionary_of, explanations_of, pool_relevance_of
from dashboard.session import audience
from dashboard.sidebar import Settings
from dashboard.ui import chip, choose_flag, concept_label, escape_markdown, unbroken_hyphens
from dashboard.wording import EVIDENCE_COLUMNS, evidence_cells, is_clinician, say, status_words, words
from evalcore.app.baselines import IOU, Baseline
from evalcore.app.explain import (
    QUERY_WORD,
    Explanation,
    caption_denials,
    paths_dot,
    readable_path,
    reason_sentences,
    tie_counts,
)
from evalcore.app.workspace import Workspace, image_evidence
from evalcore.data import Run
from evalcore.extraction.caption_concepts import CaptionPiece, caption_pieces
from evalcore.extraction.extractor import Mention

CHIP_COLOURS = {"exact": "green", "near": "orange", "none": "gray"}
#: A tag its caption denies, marked by how (evalcore.app.explain.caption_denials).
DENIED = {"negated": " (caption says absent)", "hypothetical": " (caption only considers it)",
          "history": " (caption: history only)",
          "other exam": " (caption: another examination)", "literature": " (caption: other patients)",
          "mixed": " (caption: absent or not this image's)"}
def legend() -> str:
    """What the chips' colours mean, in the reader's words."""
    query = QUERY_WORD[audience()]
    return (f"Green: the same concept as the {query}. Orange: a related concept (near one of the {query}'s in the "
            f"concept map). Grey: not in the {query}.")
#: The end of reasons whose last quote ends in punctuation of its own ("?", "!", an escaped one, or the "…" of a cut
#: sentence), closing quote and emphasis after it: no full stop follows.
QUOTE_WITH_ITS_MARK = re.compile(r"(?:\\?[.!?]|…)”\**$")


def emphasise(name: str) -> str:
    return f"*{escape_markdown(name)}*"


def reason_markdown(explanation: Explanation, who: str) -> str:
    """"**Why:** Both show *liver*; *hepatic vein* is a kind of *vein*." (markdown, names escaped); a quote that
    ends in punctuation takes no second mark after it."""
    text = "; ".join(reason_sentences(explanation, who, emphasise))
    return f"**Why:** {text[0].upper()}{text[1:]}{'' if QUOTE_WITH_ITS_MARK.search(text) else '.'}"


def result_chips(ws: Workspace, explanation: Explanation, kg) -> str:
    """The result's concepts coloured by how they match the query's; a shared tag this image's caption denies says
    so."""
    near = {m.concept for m in explanation.near if m.side == "result"}
    chips = []
    for concept in sorted(explanation.result, key=lambda c: (c not in explanation.query, c not in near,
                                                             explanation.name(c).lower())):
        kind = "exact" if concept in explanation.query else ("near" if concept in near else "none")
        label = concept_label(ws, concept, kg)
        if explanation.caption_status.get(concept, ("", ""))[1] == "negated":
            label += DENIED[explanation.denial_kinds.get(concept, ("", ""))[1] or "negated"]
        chips.append(chip(label, CHIP_COLOURS[kind]))
    return " ".join(chips) if chips else "_(no concepts)_"


def query_chips(ws: Workspace, query: str, kg) -> tuple[str, bool]:
    """The query's concepts as chips, a tag its own caption denies marked how ("(caption says absent)"), and whether one
    is (then the image is "tagged" with them rather than "showing" them)."""
    concepts = ws.concepts[query] if query in ws.concepts.index else frozenset()
    denied = caption_denials(ws.captions.get(query, ""), concepts, caption_dictionary_of(ws))
    chips = " ".join(chip(concept_label(ws, c, kg) + DENIED.get(denied.get(c, ""), ""), "blue")
                     for c in sorted(concepts, key=lambda c: concept_label(ws, c, kg).lower()))
    return chips, bool(denied)


def plain_counts(explanation: Explanation) -> str:
    """How much the two images share, without metric names.

    "Shares 3 of the case's 4 concepts; 1 more pair of concepts is related."
    """
    size = len(explanation.query)
    text = f"Shares {explanation.intersection} of the case's {size} concept{'s' if size != 1 else ''}"
    pairs = len({(m.query_concept, m.result_concept) for m in explanation.near})
    if pairs:
        text += f"; {pairs} more pair{'s' if pairs != 1 else ''} of concepts {'is' if pairs == 1 else 'are'} related"
    return text + "."


def arithmetic_markdown(explanation: Explanation) -> str:
    """IoU and nn-IoU with the counts filled in, and the sets they count."""
    lines = [f"`{explanation.iou}`", f"`{explanation.nn_iou}`"]
    if explanation.relevance.spec.key not in ("iou", "nn-iou"):
        lines.append(f"`{explanation.relevance}`")
    lines.append(f"|A ∩ B| = {explanation.intersection}, |N(A,B)| = {explanation.approximate} "
                 f"(alpha = {explanation.nn_iou.spec.params['alpha']:g}, n = {explanation.measure.hops}, {explanation.mode}), "
                 f"|A ∪ B| = {explanation.union}")
    return "  \n".join(lines)


def counts_caption(explanation: Explanation) -> str:
    """What a result's score counts, under its card: the arithmetic for a researcher (:func:`arithmetic_markdown`),
    the shared concepts without metric names for a clinician (:func:`plain_counts`)."""
    return plain_counts(explanation) if is_clinician() else arithmetic_markdown(explanation)


def draw_paths(explanation: Explanation, direction: str = "BT") -> None:
    """The KG paths of the near matches as one small graph (full names; query's concepts blue, result's orange)."""
    paths, seen = [], set()
    for match in explanation.near:
        key = (match.query_concept, match.result_concept)
        if key not in seen:
            seen.add(key)
            paths.append(readable_path(match.path, audience()))
    if paths:
        dot = paths_dot(paths, explanation.query, explanation.result - explanation.query, direction)
        st.graphviz_chart(dot, width="content")


def tie_notes(ws: Workspace, system: Baseline | str, run: Run, query: str, shown: list[str], settings: Settings,
              who: str) -> dict[str, str]:
    """For each shown image, a note when its rank among equals is decided by the tie rule.

    Retrieval by relevance orders images of equal relevance by their position in the concept file; a run
    with tied scores keeps the order of its file.
    """
    notes: dict[str, str] = {}
    baseline = system if isinstance(system, Baseline) else None
    if baseline is not None and baseline.by_relevance and query in ws.concepts.index:
        label = "IoU" if baseline == IOU else "nn-IoU"
        values = pool_relevance_of(ws, baseline, query, settings)
        positions = [ws.concepts.index[d] for d in shown if d in ws.concepts.index]
        for document, position, ties in zip([d for d in shown if d in ws.concepts.index], positions,
                                            tie_counts(values, positions)):
            if ties:
                notes[document] = say("tie_relevance", ties=ties, s="s" if ties != 1 else "",
                                      verb="is" if ties == 1 else "are", label=label, value=values[position])
    elif run.scores and query in run.scores:
        scores = np.asarray(run.scores[query], dtype=np.float64)
        ranked = run.rankings[query]
        for document in shown:
            if document in ranked:
                same = int((scores == scores[ranked.index(document)]).sum()) - 1
                if same:
                    notes[document] = (f"Same score as {same:,} other{'s' if same != 1 else ''} in this system's list; "
                                       "order as in its file.")
    return notes


def explanations_for(ws: Workspace, query: str, documents: list[str], settings: Settings) -> dict[str, Explanation | None]:
    """The explanation of each (query, retrieved image) pair, None where either has no concept set."""
    concepts = ws.concepts
    known = tuple(d for d in documents if d in concepts.index) if query in concepts.index else ()
    found = dict(zip(known, explanations_of(ws, query, known, settings.relevance, settings.kg_mode)))
    return {document: found.get(document) for document in documents}


# --- the caption words behind extracted concepts -------------------------------------------------------------

#: How a caption's words are marked: those that gave a concept violet, those that did not count grey and struck
#: through, so that they differ in hue, in lightness and without colour at all (violet beside red read as one colour,
#: and to a reader who tells neither). Green, orange and blue mark concepts.
WORDS_COLOURS = {"counted": "violet", "negated": "gray"}


def marked_words(text: str, status: str) -> str:
    """Caption words marked as ``status`` ("counted" or "negated", :data:`WORDS_COLOURS`): a chip
    (:func:`dashboard.ui.chip`) whose words take its colour too, struck through where they did not count.

    >>> marked_words("fracture", "negated").endswith("[:gray[~~fracture~~]]"), marked_words("CT", "counted")[-13:]
    (True, '[:violet[CT]]')
    """
    colour = WORDS_COLOURS[status]
    head, _, body = chip(text, colour).partition("[")
    strike = "~~" if status == "negated" else ""
    return f"{head}[:{colour}[{strike}{body.removesuffix(']')}{strike}]]"


def words_legend() -> str:
    """What the highlighted caption's marks mean, in the reader's words (a tooltip's plain text)."""
    return say("words_legend")


def words_key() -> str:
    """The highlighted caption's key as drawn under it: a sample of each mark, then :func:`words_legend`."""
    return f"{marked_words(say('words_counted'), 'counted')} {marked_words(say('words_not_counted'), 'negated')} " \
           f"{words_legend()}"


def caption_words_toggle(ws: Workspace, key: str) -> bool:
    """The switch that shows the caption words behind each concept; drawn (and possibly on) only where the concept
    sets were found in the captions."""
    if ws.extraction is None:
        return False
    return choose_flag(st.toggle, say("words_toggle"), key, help=words_legend())


def highlighted_caption(ws: Workspace, image_id: str, pieces: Sequence[CaptionPiece] | None = None) -> str:
    """The image's caption as markdown, the words that gave a concept and negated mentions in the colours of
    :data:`WORDS_COLOURS`; ``pieces``: the caption's :func:`~evalcore.extraction.caption_concepts.caption_pieces`
    where the caller has them (its words' statuses need the caption's cue scopes, the colours do not)."""
    caption = ws.extraction.captions.get(image_id, "")
    if pieces is None:
        pieces = caption_pieces(caption, ws.extraction.mentions_of(image_id))
    if not pieces or not caption:
        return "_(no caption)_"
    return "".join(marked_words(piece.text, "counted") if piece.counted else
                   marked_words(piece.text, "negated") if piece.negated else
                   escape_markdown(unbroken_hyphens(piece.text)) for piece in pieces)


def draw_caption_words(ws: Workspace, image_id: str, kg, legend: bool = True) -> None:
    """The highlighted caption with its key (``legend``: once per page, not in every result card), and, per concept,
    the words it came from (those that did not count said so, with why)."""
    pieces, words = ws.extraction.evidence(image_id)
    st.markdown(highlighted_caption(ws, image_id, pieces))
    if legend:
        st.caption(words_key())
    if not words:
        st.caption("No concept was found in this caption.")
        return
    def not_counted(status: str) -> str:
        return say("not_counted_word", status=status_words(status))

    assumed = f" ({say('assumed')})"
    lines = []
    for concept, found in words.items():
        quoted = ", ".join(f"“{escape_markdown(word.text)}”{not_counted(word.status) if word.negated else ''}"
                           f"{assumed if word.assumed and not word.negated else ''}" for word in found)
        lines.append(f"- **{escape_markdown(concept_label(ws, concept, kg))}** ← {quoted}")
    st.markdown("\n".join(lines))


# --- an extraction audited image by image (the Data page) ------------------------------------------------------

#: Pixels of the evidence table's verdict column: its longest value whole ("no: other exam", "hypothetical").
VERDICT_WIDTH = 120


def evidence_table(ws: Workspace, image_id: str, kg, mentions: Sequence[Mention] | None = None) -> pd.DataFrame:
    """One row per mention in the image's caption (:func:`evalcore.app.workspace.image_evidence`; ``mentions``: the
    caption's, where the caller has them): the words, the concept (named where names are loaded), what matched, kept
    or negated, and the rule, in the reader's words."""
    caption = ws.extraction.captions.get(image_id, "")
    return pd.DataFrame([{"words": row.words, "concept": concept_label(ws, row.concept, kg),
                          **evidence_cells(row, caption)} for row in image_evidence(ws.extraction, image_id, mentions)])


def draw_extraction_evidence(ws: Workspace, image_id: str, kg) -> None:
    """The image's extracted set, its caption with the words behind each concept highlighted
    (:func:`highlighted_caption`) and a row per mention (:func:`evidence_table`)."""
    found = ws.extraction.concepts[image_id] if image_id in ws.extraction.concepts.index else frozenset()
    chips = " ".join(chip(concept_label(ws, c, kg), WORDS_COLOURS["counted"])
                     for c in sorted(found, key=lambda c: concept_label(ws, c, kg).lower()))
    st.markdown(f"**{escape_markdown(image_id)}:** {chips or '_(no concept found)_'}")
    mentions = ws.extraction.mentions_of(image_id)  # read once for the highlighted caption and the table
    st.markdown(highlighted_caption(ws, image_id, caption_pieces(ws.extraction.captions.get(image_id, ""), mentions)))
    st.caption(words_key())
    table = evidence_table(ws, image_id, kg, mentions)
    if table.empty:
        st.caption("No concept is named in this caption.")
        return
    # Five columns in the page's width at 1400 px: the verdict column is as wide as its longest value ("no: other
    # exam", "no: literature"), the rule takes what is left (a short words column cut names such as "portal vein
    # structure"). The verdict comes third, so that a narrow page (900 px), which scrolls the table sideways, still
    # shows whether each mention counted.
    short, _, wide = (words(column) for column in EVIDENCE_COLUMNS)
    st.dataframe(table, hide_index=True, width="stretch", key="evidence_table",
                 column_config={wide: st.column_config.TextColumn(width="medium"),
                                short: st.column_config.TextColumn(width=VERDICT_WIDTH)})
