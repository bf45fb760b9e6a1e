"""Case view: one query image, large, with the images a system retrieved for it, each with the reason in plain
words and the knowledge-graph path that links it to the query."""

from __future__ import annotations

import streamlit as st

from dashboard.cards import (
    caption_words_toggle,
    counts_caption,
    draw_caption_words,
    draw_paths,
    explanations_for,
    legend,
    query_chips,
    reason_markdown,
    result_chips,
    tie_notes,
)
from dashboard.computed import baselines_with_progress, kg_of
from dashboard.library import IOU, NN_IOU, Baseline, CBIRLensError, changed_top, find_images, image_of
from dashboard.session import audience, through_app
from dashboard.sidebar import controls
from dashboard.ui import choose_flag, choose_one, escape_markdown, page_with_concepts
from dashboard.wording import refusal, say, source_name, words

through_app()

LARGE, SMALL = (520, 520), (200, 200)

ws = page_with_concepts("Case view")
settings = controls()
who = audience()
kg = kg_of(ws)
concepts = ws.concepts

# Retrieval by concept overlap first: its results are the ones the concepts can explain best.
sources: list[Baseline | str] = [b for b in (NN_IOU, IOU) if b.available(ws)] + list(ws.runs)
top = st.columns([3, 2, 1])
system = choose_one(top[0].selectbox, "Images retrieved by", sources, "case_system",
                    format_func=lambda s: source_name(s, who), help=say("case_system_help"))
search = top[1].text_input("Find a case by image ID, concept or caption word", key="case_search",
                           persist_state="session").strip()
count = choose_one(top[2].select_slider, "Images shown", [3, 5, 8], "case_count", default=5)

# Related concepts change the images shown only where nn-IoU does not reduce to IoU (MeasureSpec.effective).
near_matches_count = settings.relevance.effective(has_kg=kg is not None).key == "nn-iou"
related_only = system == NN_IOU and near_matches_count and choose_flag(
    st.toggle, "Only cases where related concepts change the images shown", "case_related", default=True,
    persist_state="session", help=say("related_only_help"))
if isinstance(system, str):
    run = ws.runs[system][1]
    pool = list(run.rankings)
else:
    try:
        runs = baselines_with_progress(ws, [system, IOU] if related_only else [system], settings)
    except CBIRLensError as error:
        st.error(words(refusal(error)))
        st.stop()
    run = runs[system]
    pool = list(run.rankings)
    if related_only:
        changed = changed_top(run, runs[IOU], count)
        pool = [q for q in pool if q in changed]
cases = find_images(ws, (i for i in pool if i in concepts.index), search)
if not cases:
    if search:
        st.warning(f"No case matches {search!r}.")
    elif related_only:
        st.warning(f"No case has its top {count} images changed by related concepts at these settings: turn off "
                   "\"Only cases where related concepts change the images shown\" to see every case.")
    else:
        st.warning(say("no_case"))
    st.stop()


@st.fragment
def case() -> None:
    """The chosen case and its retrieved images: a fragment, so that choosing another case redraws only this part
    of the page (the controls above and the sidebar stay as they are, in the browser too)."""
    query = choose_one(st.selectbox, say("case_choice"), cases, "case_query")
    show_words = caption_words_toggle(ws, "case_caption_words")
    shown = [d for d in run.rankings.get(query, ()) if d != query][:count]
    notes = tie_notes(ws, system, run, query, shown, settings, who)

    left, right = st.columns([2, 3], gap="large")
    with left:
        st.subheader(say("case_heading"))
        image, problem = image_of(ws, query, LARGE)
        if image is not None:
            st.image(image, caption=query, width="stretch")
        else:
            st.info(escape_markdown(problem or f"No image file for {query}."))
        if show_words:
            draw_caption_words(ws, query, kg)
        elif ws.captions.get(query):
            st.text(ws.captions[query])
        chips, denied = query_chips(ws, query, kg)
        query_word = say("case_word")
        st.markdown(f"**{query_word} {'is tagged' if denied else 'shows'}:** " + chips)
    with right:
        st.subheader("Retrieved images")
        if isinstance(system, Baseline):
            st.caption(say("retrieved_by_reference", title=escape_markdown(system.title), plain=system.plain))
        else:
            st.caption(f"By {escape_markdown(system)}.")
        st.caption(legend())
        if not shown:
            st.caption("This system returned nothing for this case.")
        explanations = explanations_for(ws, query, shown, settings)
        for rank, document in enumerate(shown, start=1):
            with st.container(border=True):
                picture_column, text_column = st.columns([1, 3])
                with picture_column:
                    image, problem = image_of(ws, document, SMALL)
                    if image is not None:
                        st.image(image, width="stretch")
                    else:
                        st.caption(escape_markdown(problem) or "[no image file]")
                with text_column:
                    st.markdown(f"**{rank}.** {escape_markdown(document)}")
                    explanation = explanations[document]
                    if explanation is None:
                        st.caption("No concepts are known for this image, so nothing links it to the query.")
                        continue
                    st.markdown(result_chips(ws, explanation, kg))
                    st.markdown(reason_markdown(explanation, who))
                    draw_paths(explanation, direction="LR")
                    st.caption(counts_caption(explanation))
                    if document in notes:
                        st.caption(notes[document])
                    if ws.captions.get(document):
                        with st.expander("Caption", expanded=show_words):
                            if show_words:
                                draw_caption_words(ws, document, kg, legend=False)  # the case's caption has it
                            else:
                                st.text(ws.captions[document])


case()
