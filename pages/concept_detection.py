"""Concept detection: the official ImageCLEFmedical F1 (primary, secondary) and the KG-aware soft F1 of uploaded
predictions, or of the concepts found in the captions against the curated concept sets they replaced."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from dashboard.computed import detection_report, extraction_detection_report, kg_of
from dashboard.library import EXTRACTED_SOURCE, SCORE_DECIMALS, CBIRLensError, concept_codes, demo_path
from dashboard.session import through_app
from dashboard.sidebar import controls
from dashboard.ui import chip, choose_one, concept_label, escape_markdown, page_with_concepts
from dashboard.wording import refusal, say, words

through_app()

ws = page_with_concepts("Concept detection")
settings = controls()
st.write("Score predicted concepts against the loaded concept sets, as the ImageCLEFmedical Caption task does: "
         "F1 per image, averaged. The soft F1 also gives partial credit (alpha) to a predicted concept that is a "
         "knowledge-graph neighbour of a true one.")

UPLOADED = "upload"
scored = UPLOADED
if ws.extraction is not None:
    scored = choose_one(st.radio, "Predictions to score", [EXTRACTED_SOURCE, UPLOADED], "detection_source",
                        horizontal=True, format_func=lambda choice: "The concepts found in the captions"
                        if choice == EXTRACTED_SOURCE else "An uploaded file of predicted concepts")
if scored == EXTRACTED_SOURCE:
    if ws.curated is None:
        st.info("There are no curated concept sets to score the concepts found in the captions against: the concept "
                "sets in use were found in these captions themselves, so load a concept sets file of the same images "
                "on the Data page and find the concepts again.")
        st.stop()
    st.caption(f"Ground truth: the curated concept sets of **{escape_markdown(Path(ws.curated.source).name)}** "
               f"({len(ws.curated):,} images). Predictions: the concepts found in the captions with "
               f"{escape_markdown(' and '.join(ws.extraction.sources))}.")
else:
    upload = st.file_uploader(say("upload_predictions"), type=["csv", "txt", "tsv"], key="up_predictions")
    use_demo = ws.synthetic and upload is None
    if upload is None and not use_demo:
        st.info("Upload predictions to score them.")
        st.stop()
    data, name = (upload.getvalue(), upload.name) if upload else (demo_path("concepts.csv").read_bytes(), "demo truth")
    if use_demo:
        st.caption("No upload yet: scoring the demo ground truth against itself with a few concepts dropped, "
                   "to show the page.")
    if ws.extraction is not None:
        st.caption("Ground truth: the concept sets in use, found in the captions.")

subset_text = st.text_area(say("subset_label"),
                           value="C0040405 C1306645 C0024485 C0041618 C0002978 C0032743", key="subset")
subset = concept_codes(subset_text)
if subset:
    st.caption("Subset: " + escape_markdown(", ".join(sorted(ws.shown_names.get(c, c) for c in subset))))
try:
    report = (extraction_detection_report(ws, subset, settings.relevance, settings.kg_mode) if scored == EXTRACTED_SOURCE
              else detection_report(ws, data, name, use_demo, subset, settings.relevance, settings.kg_mode))
except CBIRLensError as error:
    st.error(words(refusal(error)))
    st.stop()
primary, secondary, soft = report.scores.primary, report.scores.secondary, report.scores.soft
sets = report.predicted
kg = kg_of(ws)
c1, c2, c3 = st.columns(3)
c1.metric("F1 (primary)", f"{primary.f1:.4f}")
c2.metric("F1 (secondary, subset)", f"{secondary.f1:.4f}" if secondary and secondary.images_scored else "—")
c3.metric(f"Soft F1 (alpha {settings.alpha}, n {settings.n})", f"{soft.f1:.4f}" if soft else "no KG")
st.caption(f"{primary.images_scored:,} images scored; {primary.images_empty_ground_truth:,} with empty ground truth "
           "(1 when nothing is predicted for them, else 0, as the ImageCLEFmedical evaluator scores them); "
           f"{primary.images_missing_prediction:,} without a prediction (an empty prediction)."
           + (f" Left out: {report.unscored:,} image{'s' if report.unscored != 1 else ''} of the ground truth "
              "without a caption to find concepts in." if report.unscored else ""))
if report.scores.secondary_note:
    st.caption(report.scores.secondary_note[0].upper() + report.scores.secondary_note[1:] + ".")

if report.problems:
    st.subheader("Validation problems")
    st.dataframe(pd.DataFrame(report.problems, columns=["line", "problem"]), hide_index=True, key="problems")
    if report.problems_not_listed:
        st.caption(f"The first {len(report.problems):,} problems by line; {report.problems_not_listed:,} more are "
                   "not listed.")

table = report.rows
st.subheader("Per image")
st.caption("Found: predicted and true. Missed: true but not predicted. Wrong: predicted but not true. Sorted from "
           "the worst image; click a column name to sort, hover a cell for the whole list.")
# Wide enough for the longest ID (ROCOv2's are 24 characters), so no ID is cut.
id_width = int(min(260, 24 + 8 * table.image.str.len().max()))
# Three list columns of medium width fit beside the ID at 1400 px: a wider one pushed "wrong" out of sight.
st.dataframe(table, hide_index=True, key="detection_table", width="stretch",
             column_config={"image": st.column_config.TextColumn(width=id_width),
                            "F1": st.column_config.NumberColumn(format=f"%.{SCORE_DECIMALS}f", width=60),
                            "soft F1": st.column_config.NumberColumn(format=f"%.{SCORE_DECIMALS}f", width=60),
                            "found": st.column_config.ListColumn(width="medium"),
                            "missed": st.column_config.ListColumn(width="medium"),
                            "wrong": st.column_config.ListColumn(width="medium")})
chosen = choose_one(st.selectbox, "One image in full", table.image.tolist(), "detection_image")
truth, predicted = report.truth.get(chosen, frozenset()), sets.get(chosen, frozenset())
for title, concepts, colour in (("Found", truth & predicted, "green"), ("Missed", truth - predicted, "orange"),
                                ("Wrong", predicted - truth, "red")):
    chips = " ".join(chip(concept_label(ws, c, kg), colour) for c in sorted(concepts)) or "none"
    st.markdown(f"**{title}:** {chips}")
