"""Data: upload files or point to a folder; a validation report per file. Loading never drops what is loaded."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from evalcore.workspace import (
    load_demo,
    report_table,
    with_captions,
    with_embeddings,
    with_images,
    with_kg,
    with_labels,
    with_names,
    with_new_concepts,
    with_run,
)
from pages.computed import rocov2_workspace
from pages.session import audience, guarded_load, server_data_roots, workspace
from pages.ui import escape_markdown, plain_report_text, synthetic_banner

st.title("Data")
ws = workspace()
clinician = audience() == "clinician"
synthetic_banner(ws)
st.write(f"Load concept sets (the ground truth), a {'concept map' if clinician else 'knowledge graph'}, "
         f"{'the results of retrieval systems' if clinician else 'retrieval runs'} and optional labels, embeddings, "
         "captions and images. Each new file is added to what is already loaded.")

left, right = st.columns(2)
with left:
    if st.button("Reload the embedded demo (synthetic)", key="load_demo"):
        guarded_load(load_demo)
        st.rerun()
with right:
    folder = st.text_input("ROCOv2 folder", value="../shared/data/rocov2", key="rocov2_folder",
                           help="A folder with test_concepts.csv, test_captions.csv, cui_mapping.csv and images/. "
                                "The server reads only folders under its data folders (CBIR_LENS_DATA_ROOTS or the "
                                "data_roots secret).")
    if st.button("Load ROCOv2 folder (test split)", key="load_rocov2",
                 help="Also reads any run files in a runs/ folder inside it."):
        bar = st.progress(0.0, text="Reading the ROCOv2 folder")
        loaded = guarded_load(lambda: rocov2_workspace(folder, server_data_roots(),
                                                       lambda fraction, text: bar.progress(min(1.0, fraction), text)))
        bar.empty()
        if loaded:
            st.rerun()


def add_uploads(kind: str, files, adder) -> None:
    """Add uploaded files one by one; a bad one is reported and skipped, the rest kept."""
    for upload in [f for f in files or [] if f is not None]:
        key = f"seen_{kind}_{upload.file_id}"
        if st.session_state.get(key):
            continue
        st.session_state[key] = True
        data = upload.getvalue()
        if guarded_load(lambda data=data, upload=upload: adder(workspace(), data, upload.name)):
            st.success(f"Loaded {upload.name}")


def with_run_shown(current, data: bytes, name: str):
    """Read a run with a progress bar: a depth-1000 run of 10 million lines takes seconds."""
    bar = st.progress(0.0, text=f"Reading {name}")
    try:
        return with_run(current, data, name, progress=lambda fraction, message: bar.progress(fraction, text=message))
    finally:
        bar.empty()


st.subheader("Upload")
# A clinician reads the formats without the researcher's file and code names.
upload_labels = {
    "concepts": "Concept sets (CSV: image ID, then its concept codes)" if clinician else
                "Concept sets (ID,CUIs CSV or ID<TAB>C1,C2)",
    "labels": "Labels (CSV: image ID, modality, organ)" if clinician else "Labels (ID,modality,organ or kind,class,CUI)",
    "names": "Concept names (CSV: concept code, name)" if clinician else "Concept names (CUI,Name or MRCONSO.RRF)",
    "runs": "Results of retrieval systems (TREC or CSV), several at once" if clinician else
            "Run files (TREC or CSV), several at once",
    "kg": "Concept map files (edge list, MRREL.RRF, OBO)" if clinician else
          "Knowledge graph files (edge list, MRREL.RRF, OBO)",
}
c1, c2 = st.columns(2)
with c1:
    add_uploads("concepts", [st.file_uploader(upload_labels["concepts"], type=["csv", "txt", "tsv"],
                                              key="up_concepts")], with_new_concepts)
    add_uploads("runs", st.file_uploader(upload_labels["runs"], type=["trec", "txt", "csv", "run"],
                                         accept_multiple_files=True, key="up_runs"), with_run_shown)
    add_uploads("kg", st.file_uploader(upload_labels["kg"],
                                       type=["csv", "tsv", "rrf", "obo", "txt"], accept_multiple_files=True,
                                       key="up_kg"), with_kg)
    add_uploads("labels", [st.file_uploader(upload_labels["labels"], type=["csv"], key="up_labels")], with_labels)
with c2:
    add_uploads("names", [st.file_uploader(upload_labels["names"], type=["csv", "rrf", "txt"],
                                           key="up_names")], with_names)
    add_uploads("captions", [st.file_uploader("Captions (ID,Caption)", type=["csv"], key="up_captions")],
                with_captions)
    add_uploads("images", [st.file_uploader("Images (zip of <ID>.png/.jpg)", type=["zip"], key="up_images")],
                with_images)
    vectors = st.file_uploader("Embeddings (.npy, .csv or .parquet with an ID column)", type=["npy", "csv", "parquet"],
                               key="up_embeddings")
    ids_file = st.file_uploader("ID list for a .npy file (one ID per line)", type=["txt"], key="up_embedding_ids")
    if vectors is not None and (not vectors.name.endswith(".npy") or ids_file is not None):
        add_uploads("embeddings", [vectors], lambda current, data, name: with_embeddings(
            current, data, name, ids_file.getvalue() if ids_file else None, ids_file.name if ids_file else None))

ws = workspace()
st.subheader("Loaded")
summary = {
    "concept sets": f"{len(ws.concepts):,} images" if ws.concepts else "—",
    "concept map files" if clinician else "knowledge graph files": ", ".join(ws.kg_files) or "—",
    "systems' results" if clinician else "runs": ", ".join(ws.runs) or "—",
    "labels": ws.labels.source if ws.labels else "—",
    "concept names": f"{len(ws.names):,}" if ws.names else "—",
    "captions": f"{len(ws.captions):,}" if ws.captions else "—",
    "embeddings": f"{len(ws.embeddings.ids):,}" if ws.embeddings else "—",
    "images": f"{len(ws.images):,} in memory" if ws.images else (str(ws.image_folder) if ws.image_folder else "—"),
}
st.dataframe(pd.DataFrame(summary.items(), columns=["input", "loaded"]), hide_index=True, width="stretch")
st.subheader("Validation report")
report = report_table(ws)
if clinician:
    report = [{column: plain_report_text(str(text)) for column, text in row.items()} for row in report]
# Two large columns and the two short ones were wider than the page at 1400 px; the file column is medium (the
# captions below name each file with problems in full).
st.dataframe(pd.DataFrame(report), hide_index=True, width="stretch", key="validation_report",
             column_config={"file": st.column_config.TextColumn(width="medium"),
                            "kind": st.column_config.TextColumn(width="medium"),
                            "rows read": st.column_config.TextColumn(width="small"),
                            "problems": st.column_config.TextColumn(width="large")})
for row in report:
    if row["problems"] != "none":
        st.caption(f"**{escape_markdown(Path(row['file']).name)}**: {escape_markdown(row['problems'])}")
