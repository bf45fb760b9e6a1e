"""Data: upload files or point to a folder; a validation report per file. Loading never drops what is loaded."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from dashboard.background import preparation_notes
from dashboard.caching import SERVER_KEPT_BYTES, server_kept
from dashboard.cards import draw_extraction_evidence
from dashboard.computed import (
    concept_mentions_of,
    concepts_download,
    extraction_coverage,
    found_concepts,
    kg_of,
    rocov2_workspace,
    save_and_keep,
)
from dashboard.library import (
    CBIRLensError,
    report_table,
    size_text,
    with_caption_extraction,
    with_captions,
    with_embeddings,
    with_images,
    with_kg,
    with_labels,
    with_names,
    with_new_concepts,
    with_run,
)
from dashboard.session import (
    FOLDER_PARAMETER,
    FOLDER_STATE,
    demo_workspace,
    forget_saved,
    hold_folder,
    saved_link,
    server_data_roots,
    through_app,
    workspace,
    workspace_store,
)
from dashboard.sidebar import controls
from dashboard.ui import choose_one, concept_label, escape_markdown, guarded_load, load_error, synthetic_banner
from dashboard.wording import Wording, is_clinician, plain_report_row, say, words

through_app()

st.title("Data")
ws = workspace()
clinician = is_clinician()
synthetic_banner(ws)
st.write(say("data_intro"))

left, right = st.columns(2)
with left:
    if st.button("Reload the embedded demo (synthetic)", key="load_demo"):
        if guarded_load(demo_workspace):
            st.session_state.pop(FOLDER_STATE, None)
            st.query_params.pop(FOLDER_PARAMETER, None)
        st.rerun()
with right:
    folder = st.text_input("ROCOv2 folder", value="../shared/data/rocov2", key="rocov2_folder",
                           help="A folder with test_concepts.csv, test_captions.csv, cui_mapping.csv and images/. "
                                "The server reads only folders under its data folders (CBIR_LENS_DATA_ROOTS or the "
                                "data_roots secret).")
    if st.button("Load ROCOv2 folder (test split)", key="load_rocov2",
                 help=say("rocov2_runs_help")):
        bar = st.progress(0.0, text="Reading the ROCOv2 folder")
        loaded = guarded_load(lambda: rocov2_workspace(folder, server_data_roots(),
                                                       lambda fraction, text: bar.progress(min(1.0, fraction), text)))
        bar.empty()
        if loaded:
            # The address names the folder, so that a reload (or the link) opens the same data.
            hold_folder(folder, workspace())
            st.rerun()


def add_uploads(kind: str, files, adder) -> None:
    """Add uploaded files one by one; a bad one is reported and skipped, the rest kept. What became of each file
    is said for as long as the uploader holds it (a refused file's message went at the next click, while the file
    still sat in the uploader), and a load starts the page again, so that the sidebar, drawn before the page,
    counts what is loaded now."""
    loaded = False
    for upload in [f for f in files or [] if f is not None]:
        key = f"seen_{kind}_{upload.file_id}"
        if key not in st.session_state:
            # Set first: a load that stops on an unexpected error is not tried again at every rerun.
            unexpected = f"{upload.name}: reading it stopped on an unexpected error"
            st.session_state[key] = Wording(unexpected, unexpected)
            refused = load_error(lambda data=upload.getvalue(), upload=upload: adder(workspace(), data, upload.name))
            # Why it was refused, in both readers' words (evalcore's message and the clinician's, from its parts).
            st.session_state[key] = refused
            loaded = loaded or refused is None
        refused = st.session_state[key]
        if refused:
            st.error(f"Not loaded: {words(refused)}")
        else:
            st.success(f"Loaded {upload.name}")
    if loaded:
        st.rerun()


def with_run_shown(current, data: bytes, name: str):
    """Read a run with a progress bar: a depth-1000 run of 10 million lines takes seconds."""
    bar = st.progress(0.0, text=f"Reading {name}")
    try:
        return with_run(current, data, name, progress=lambda fraction, message: bar.progress(fraction, text=message))
    finally:
        bar.empty()


st.subheader("Upload")
# A clinician reads the formats without the researcher's file and code names.
upload_labels = {kind: say(f"upload_{kind}") for kind in ("concepts", "labels", "names", "runs", "kg")}


def accepted(*extensions: str) -> list[str] | None:
    """The file types an uploader lists: a clinician is shown none (the format names are the research team's; every
    reader checks what it is given and says what it expected)."""
    return None if clinician else list(extensions)


c1, c2 = st.columns(2)
with c1:
    add_uploads("concepts", [st.file_uploader(upload_labels["concepts"], type=accepted("csv", "txt", "tsv"),
                                              key="up_concepts")], with_new_concepts)
    add_uploads("runs", st.file_uploader(upload_labels["runs"], type=accepted("trec", "txt", "csv", "run"),
                                         accept_multiple_files=True, key="up_runs"), with_run_shown)
    add_uploads("kg", st.file_uploader(upload_labels["kg"],
                                       type=accepted("csv", "tsv", "rrf", "obo", "txt"), accept_multiple_files=True,
                                       key="up_kg"), with_kg)
    add_uploads("labels", [st.file_uploader(upload_labels["labels"], type=accepted("csv"), key="up_labels")], with_labels)
with c2:
    add_uploads("names", [st.file_uploader(upload_labels["names"], type=accepted("csv", "rrf", "txt"),
                                           key="up_names")], with_names)
    add_uploads("captions", [st.file_uploader(say("upload_captions"),
                                              type=accepted("csv"), key="up_captions")],
                with_captions)
    add_uploads("images", [st.file_uploader("Images (a zip of <ID>.png/.jpg files)", type=accepted("zip"),
                                              key="up_images")],
                with_images)
    vectors = st.file_uploader(say("upload_vectors"), type=accepted("npy", "csv", "parquet"), key="up_embeddings")
    ids_file = st.file_uploader(say("upload_vector_ids"), type=accepted("txt"), key="up_embedding_ids")
    if vectors is not None and vectors.name.lower().endswith(".npy") and ids_file is None:
        # Once loaded with an ID list since removed, the vectors stay loaded: nothing to ask for.
        loaded_before = any(key.startswith("seen_embeddings_") and key.endswith(f"_{vectors.file_id}")
                            and st.session_state[key] is None for key in list(st.session_state.keys()))
        if not loaded_before:
            st.info(f"{vectors.name} holds no image IDs: add its ID list (one ID per line, in the order of its rows) "
                    "to load it.")
    elif vectors is not None:
        # The ID list is part of what is loaded: a corrected list beside the same vectors is another load.
        add_uploads(f"embeddings_{ids_file.file_id if ids_file else ''}", [vectors],
                    lambda current, data, name: with_embeddings(current, data, name,
                                                                ids_file.getvalue() if ids_file else None,
                                                                ids_file.name if ids_file else None))

ws = workspace()
st.subheader("Find concepts in the captions")
if not ws.captions:
    st.caption("Load captions (a CSV of image ID and caption) to find the concepts they name.")
else:
    st.write(say("extraction_intro"))
    uploaded_captions = st.session_state.get("up_captions")
    if uploaded_captions is not None and st.session_state.get(f"seen_captions_{uploaded_captions.file_id}"):
        uploaded_captions = None  # refused above, its message shown: read alone, it would be refused again
    which_captions = "loaded"
    if uploaded_captions is not None:
        # A newly uploaded captions file is read alone unless the user says otherwise: a user with captions only
        # has them added to the demo's.
        if st.session_state.get("extract_which__upload") != uploaded_captions.file_id:
            st.session_state["extract_which__upload"] = uploaded_captions.file_id
            st.session_state["extract_which"] = "upload"
        which_captions = st.radio(
            "Captions to read", ["loaded", "upload"], key="extract_which", horizontal=True,
            format_func=lambda choice: f"All loaded captions ({len(ws.captions):,})" if choice == "loaded" else
            f"Only {uploaded_captions.name}, as a collection of its own")
    synonym_uploads = st.file_uploader(
        say("upload_synonyms"), type=accepted("tsv", "obo", "rrf", "txt", "csv"), accept_multiple_files=True,
        key="up_synonyms")
    abbreviations = st.checkbox(say("abbreviations"), value=True,
                                key="extract_abbreviations")
    # The command line's dictionary is the names file alone; the KG's node names are a choice, shown, since on
    # ROCOv2 they lower the F1 against the curators' sets (0.7344 without them, 0.6734 with them).
    kg_names = bool(ws.kg_files) and st.checkbox(say("extract_kg_names"), value=False, key="extract_kg_names",
                                                 help=say("extract_kg_names_help"))
    if st.button("Find concepts in the captions", key="extract_concepts", type="primary"):
        bar = st.progress(0.0, text="Finding concepts in the captions")

        def extracted_workspace():
            # The one extraction step (a saved workspace replays the same): the captions file read alone, if chosen,
            # the synonym files and the option, found through the server's shared cache.
            synonyms = tuple((upload.getvalue(), upload.name) for upload in synonym_uploads or [])
            alone = (uploaded_captions.getvalue(), uploaded_captions.name) if which_captions == "upload" else None
            return with_caption_extraction(workspace(), synonyms, abbreviations, alone, found_concepts,
                                           lambda fraction, text: bar.progress(min(1.0, fraction), text=text),
                                           kg_names)

        extracted = guarded_load(extracted_workspace)
        bar.empty()
        if extracted:
            st.rerun()
    if ws.extraction is not None:
        found = extraction_coverage(ws)
        st.markdown(f"**Concepts found in {found.images:,} caption{'s' if found.images != 1 else ''}** "
                    + ("" if clinician else f"(from {escape_markdown(', '.join(ws.extraction.sources))})"))
        counts = st.columns(3)
        counts[0].metric("Images with no concept found", f"{len(found.without_concept):,}",
                         f"{found.share_without:.1%} of the images", delta_color="off", delta_arrow="off")
        counts[1].metric("Different concepts", f"{found.distinct_concepts:,}")
        counts[2].metric(say("occurrences"), f"{found.occurrences:,}")
        frequent_column, empty_column = st.columns(2)
        with frequent_column:
            st.markdown("**Most frequent concepts**")
            st.dataframe(pd.DataFrame([{"concept": concept_label(ws, concept), "images": images}
                                       for concept, images in found.most_frequent]),
                         hide_index=True, width="stretch", key="extracted_frequent",
                         column_config={"images": st.column_config.NumberColumn(format="localized")})  # 9,927
        with empty_column:
            st.markdown("**Some images with no concept found**")
            if examples := found.examples(ws.captions):
                st.dataframe(pd.DataFrame(examples, columns=["image", "caption"]), hide_index=True,
                             width="stretch", key="extracted_empty")
            else:
                st.caption("None: every caption gave at least one concept.")
        st.download_button(say("download_extracted"), concepts_download(ws),
                           file_name="extracted_concepts.csv", mime="text/csv", key="download_extracted",
                           on_click="ignore")

        st.markdown("**Check the concepts found, image by image**")
        st.caption(say("audit_intro"))
        mentions = concept_mentions_of(ws)
        kg = kg_of(ws)
        # Labels drawn once here: a select box formats its options outside the page's run too.
        labels = {concept: concept_label(ws, concept, kg) for concept in mentions}
        every = ""
        concept_column, image_column = st.columns(2)
        concept = choose_one(concept_column.selectbox, "Concept", [every, *sorted(mentions, key=lambda c: labels[c].lower())],
                             "evidence_concept", format_func=lambda c: labels.get(c, "Any (every image)"))
        # (an image listed but not holding the concept: its caption names it only where it does not count, ruled out
        # or for another reason, which the image's table then says)
        not_counted = say("image_not_counted")
        images = dict.fromkeys(ws.extraction.concepts.ids, True) if concept == every else mentions[concept]
        image = choose_one(image_column.selectbox, "Image", list(images), "evidence_image",
                           format_func=lambda i: i if images.get(i, True) else i + not_counted)
        if concept != every:
            held = sum(images.values())
            st.caption(say("images_with_concept", held=held, s="s" if held != 1 else "", more=len(images) - held))
        draw_extraction_evidence(ws, image, kg)

st.subheader("Loaded")
summary = {
    "concept sets": (f"{len(ws.concepts):,} images" + (", found in the captions" if ws.extraction else ""))
    if ws.concepts else "—",
    **({"curated concept sets": f"{ws.curated.source}, kept to score the extraction (Concept detection page)"}
       if ws.curated is not None and not clinician else {}),
    say("loaded_kg"): ", ".join(ws.kg_files) or "—",
    say("loaded_runs"): ", ".join(ws.runs) or "—",
    "labels": ws.labels.source if ws.labels else "—",
    "concept names": f"{len(ws.names):,}" if ws.names else "—",
    "captions": f"{len(ws.captions):,}" if ws.captions else "—",
    "embeddings": f"{len(ws.embeddings.ids):,}" if ws.embeddings else "—",
    "images": f"{len(ws.images):,} in memory" if ws.images else (str(ws.image_folder) if ws.image_folder else "—"),
}
st.dataframe(pd.DataFrame(summary.items(), columns=["input", "loaded"]), hide_index=True, width="stretch")
st.subheader("Save and share")
held = saved_link()
if held is not None:
    saved_id, expires = held
    st.success(f"Saved. This page's address (and the sidebar's \"Link to this view\") opens this workspace in any "
               f"browser until {expires}. Whoever has the link can open it; nobody can list saved workspaces.")
    try:
        store = workspace_store()
        kept = sum(store.prepared_sizes(saved_id).values())
    except CBIRLensError:
        pass  # the button below says what is wrong with the store
    else:
        bound = size_text(store.max_prepared_bytes)
        st.caption(f"Results kept with the link, so that it opens without computing them again: {size_text(kept)} "
                   f"of at most {bound}." if kept else
                   f"No results are kept with the link yet: they are kept as they are computed (at most {bound}).")
    if st.button("Forget this workspace", key="forget_workspace",
                 help="Deletes its files from the server: the link stops working."):
        try:
            workspace_store().forget(saved_id)
        except CBIRLensError as error:
            st.error(f"Not forgotten: {error}")
        else:
            forget_saved()
            st.rerun()
else:
    try:
        store = workspace_store()
    except CBIRLensError as error:
        st.caption(f"Saving is off on this server: {error}")
    else:
        st.caption(f"Save what is loaded, to come back to it or to send it: its link opens it in any browser, on "
                   f"any machine, for {store.expiry_days:g} days. Whoever has the link can open it; nobody can list "
                   "saved workspaces.")
        if st.button("Save this workspace", key="save_workspace"):
            with st.spinner("Saving the loaded files and the results computed on them"):
                try:
                    save_and_keep(store, ws, controls())
                except CBIRLensError as error:
                    st.error(f"Not saved: {error}")
                else:
                    st.rerun()

notes = preparation_notes(ws)
if notes:
    st.subheader("Prepared in the background")
    st.caption(say("background_intro")
               + f" Results kept on this server for everyone on the same data: {server_kept().total() / 2**20:,.0f} MB"
               f" of {SERVER_KEPT_BYTES / 2**20:,.0f} MB (the least recently used dropped first). As it stood when this page "
               "was drawn:")
    st.markdown("\n".join(f"- {escape_markdown(note)}" for note in notes[:8]))

st.subheader("Validation report")
report = report_table(ws)
if clinician:
    # each column in the words written for a clinician (dashboard.wording); a file's name stays as written
    report = [plain_report_row(row) for row in report]
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
