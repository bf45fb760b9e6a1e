"""Judge pairs (a clinician's "Rate similar images"): a named judge grades image pairs of a seeded design, 0, 1 or 2,
one pair at a time, seeing no system and no score; the judgments last on the server, and the link reopens judging
where the judge stopped."""

from __future__ import annotations

import streamlit as st

from dashboard.computed import import_judgments, judging_design, judgment_store
from dashboard.library import (
    DEFAULT_DESIGN_SIZE,
    DEFAULT_SEED,
    MAX_DESIGN_SIZE,
    MAX_JUDGE_CHARS,
    CBIRLensError,
    image_of,
    judge_name_problem,
    judged_collection,
    judgments_csv,
    judgments_qrels,
)
from dashboard.session import through_app
from dashboard.ui import escape_markdown, keep_in_address, linked_text, page_with_concepts
from dashboard.wording import is_clinician, refusal, say, words

through_app()

IMAGE = (520, 520)
#: The address's keys: the judge, and the design's seed and size where they are not the defaults.
JUDGE, SEED, SIZE = "judge", "judge_seed", "judge_size"
#: The name box's key, and where a button's callback leaves a message for the run it triggers.
NAME, NOTE = "judge_name", "judge_note"
LARGEST_SEED = 2**31 - 1

ws = page_with_concepts("Judge pairs")
clinician = is_clinician()
collection = judged_collection(ws)


def whole_number(low: int, high: int):
    """Whether an address's text is a whole number from ``low`` to ``high`` in ASCII digits."""
    return lambda text: text.isascii() and text.isdigit() and low <= int(text) <= high


for key, default, most in ((SEED, DEFAULT_SEED, LARGEST_SEED), (SIZE, DEFAULT_DESIGN_SIZE, MAX_DESIGN_SIZE)):
    if key not in st.session_state:
        linked = linked_text(key, whole_number(0 if key == SEED else 1, most))
        st.session_state[key] = int(linked) if linked is not None else default
if NAME not in st.session_state:
    st.session_state[NAME] = linked_text(JUDGE, lambda text: judge_name_problem(text) is None) or ""

try:
    store = judgment_store()
    judges = store.judges(collection)
except CBIRLensError as error:
    st.error(escape_markdown(words(refusal(error))))
    st.stop()

st.caption(say("judge_intro"))
top = st.columns([2, 2, 1, 1] if not clinician else [2, 2])
top[0].text_input(say("judge_name"), key=NAME, max_chars=MAX_JUDGE_CHARS, persist_state="session",
                  help=say("judge_name_help"))
if judges:
    def pick() -> None:
        st.session_state[NAME] = st.session_state["judge_pick"]

    top[1].selectbox(say("judge_pick"), judges, index=None, key="judge_pick", on_change=pick,
                     placeholder=say("judge_pick_placeholder"))
if not clinician:  # the design's seed and size: a researcher's choice, kept in the link for the judges
    top[2].number_input("Seed", 0, LARGEST_SEED, step=1, key=SEED, persist_state="session",
                        help="The same inputs, seed and size give the same pairs in the same order.")
    top[3].number_input("Pairs", 1, MAX_DESIGN_SIZE, step=10, key=SIZE, persist_state="session",
                        help="How many judgments the design asks of each judge, repeated pairs included.")
seed, size = int(st.session_state[SEED]), int(st.session_state[SIZE])
keep_in_address(SEED, [] if seed == DEFAULT_SEED else [seed])
keep_in_address(SIZE, [] if size == DEFAULT_DESIGN_SIZE else [size])

try:
    design = judging_design(ws, seed, size)
except CBIRLensError as error:
    st.error(escape_markdown(words(refusal(error))))
    st.stop()
st.caption(escape_markdown(say("judge_design", description=design.description)))

if not clinician:
    with st.expander("Import and export judgments"):
        upload = st.file_uploader("Import judgments: CSV judge,case,candidate,grade[,time] (a grade 0, 1, 2 or "
                                  "skipped), or TREC qrels (recorded as the judge 'qrels')",
                                  type=["csv", "qrels", "txt"], key="judgments_upload")
        if st.button("Import", key="judgments_import", disabled=upload is None) and upload is not None:
            try:
                count = import_judgments(ws, upload.getvalue(), upload.name)
                st.success(f"Imported {count:,} judgments from {escape_markdown(upload.name)}.")
            except CBIRLensError as error:
                st.error(escape_markdown(f"Nothing imported: {error}"))
        everyone = store.judgments(collection)
        left, right = st.columns(2)
        left.download_button("Judgments (CSV)", judgments_csv(everyone), file_name="judgments.csv", mime="text/csv",
                             key="judgments_download_csv", disabled=not everyone,
                             help="Every judgment: judge, case, candidate, grade (0-2 or skipped), time (UTC); what "
                                  "the agreement command reads.")
        right.download_button("Graded qrels (TREC)", judgments_qrels(everyone), file_name="judgments.qrels",
                              key="judgments_download_qrels", disabled=not everyone,
                              help="One line a judged pair: its mean grade over the judges (each judge's own "
                                   "grades of a pair averaged first), rounded half up; skipped judgments left out.")

name = str(st.session_state.get(NAME, "")).strip()
if not name:
    keep_in_address(JUDGE, [])
    st.info(say("judge_needs_name"))
    st.stop()
if (problem := judge_name_problem(name)) is not None:
    keep_in_address(JUDGE, [])
    st.error(escape_markdown(say("judge_bad_name", problem=problem)))
    st.stop()
keep_in_address(JUDGE, [name])


def record(position: int, grade: int | None) -> None:
    """A grade's or Skip's click: the judge's judgment of the pair drawn at ``position``, unless a judgment was
    recorded since it was drawn (a second click, another tab), which would put it on the next pair."""
    try:
        judged = store.judgments(collection, name)
        if design.progress((j.case, j.candidate) for j in judged)[1] == position:
            item = design.items[position]
            store.record(collection, name, item.case, item.candidate, grade)
    except CBIRLensError as error:
        st.session_state[NOTE] = words(refusal(error))


def undo(sequence: int) -> None:
    """Undo's click: the judge's last judgment taken back, if it is still the one drawn (``sequence``)."""
    try:
        store.undo(collection, name, sequence)
    except CBIRLensError as error:
        st.session_state[NOTE] = words(refusal(error))


if (note := st.session_state.pop(NOTE, None)) is not None:
    st.error(escape_markdown(note))
try:
    judged = store.judgments(collection, name)
except CBIRLensError as error:
    st.error(escape_markdown(words(refusal(error))))
    st.stop()
done, position = design.progress((j.case, j.candidate) for j in judged)
st.markdown(say("judging_as", name=escape_markdown(name)))
st.progress(done / max(1, len(design)), text=say("judge_progress", done=done, total=len(design)))
last = judged[-1].sequence if judged else 0

if position >= len(design):
    st.success(say("judge_done", total=len(design)))
    st.button(say("judge_undo"), key="judge_undo", shortcut="U", on_click=undo, args=(last,), disabled=not judged)
    st.stop()

item = design.items[position]
show_captions = st.toggle(say("judge_captions"), value=False, key="judge_captions", persist_state="session",
                          help=say("judge_captions_help"))
buttons = st.columns(5)
for grade in (0, 1, 2):
    buttons[grade].button(say(f"grade_{grade}"), key=f"judge_grade_{grade}", shortcut=str(grade), type="primary",
                          on_click=record, args=(position, grade), width="stretch")
buttons[3].button(say("judge_skip"), key="judge_skip", shortcut="S", on_click=record, args=(position, None),
                  width="stretch")
buttons[4].button(say("judge_undo"), key="judge_undo", shortcut="U", on_click=undo, args=(last,),
                  disabled=not judged, width="stretch")
for column, image_id, side in zip(st.columns(2, gap="large"), (item.case, item.candidate),
                                  ("judge_case", "judge_candidate")):
    with column:
        st.subheader(say(side))
        image, problem = image_of(ws, image_id, IMAGE)
        if image is not None:
            st.image(image, caption=image_id, width="stretch")
        else:
            st.info(escape_markdown(problem or say("judge_no_image", image=image_id)))
        if show_captions and ws.captions.get(image_id):
            st.text(ws.captions[image_id])
