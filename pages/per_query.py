"""Per-query: one query's image, caption and concepts; each system's top-K as image cards that say why."""

from __future__ import annotations

import plotly.express as px
import streamlit as st

from dashboard.cards import (
    arithmetic_markdown,
    caption_words_toggle,
    draw_caption_words,
    draw_paths,
    explanations_for,
    highlighted_caption,
    legend,
    plain_counts,
    query_chips,
    reason_markdown,
    result_chips,
    tie_notes,
)
from dashboard.computed import (
    LeaderboardView,
    baselines_with_progress,
    evaluation_with_progress,
    kg_of,
    leaderboard_metric_names,
)
from dashboard.library import (
    LISTED_IMAGES,
    Baseline,
    CBIRLensError,
    Explanation,
    Run,
    available_baselines,
    default_baselines,
    find_images,
    image_of,
    image_with_id,
    largest_differences,
    metric_family,
    metric_group,
    score_table,
)
from dashboard.session import audience, through_app
from dashboard.sidebar import controls
from dashboard.ui import (
    KEPT_CHOICE,
    choose_flag,
    choose_many,
    choose_one,
    escape_markdown,
    keep_default_for_dataset,
    page_with_concepts,
    shown_system,
    system_label,
)
from dashboard.wording import refusal, say, words

through_app()

ws = page_with_concepts("Per-query view")
settings = controls()
who = audience()
#: What only a researcher is shown: the search for the largest differences, a card's caption and its scores.
researcher = who == "researcher"
kg = kg_of(ws)
concepts = ws.concepts
st.caption(legend())

options = available_baselines(ws)
keep_default_for_dataset("pq_baselines", ws, default_baselines(ws))
chosen_baselines = choose_many(st.multiselect, say("also_show_baselines"), options, "pq_baselines",
                               default=default_baselines(ws), format_func=shown_system)
systems: dict[Baseline | str, Run] = {name: run for name, (_, run) in ws.runs.items()}
try:
    systems.update(baselines_with_progress(ws, chosen_baselines, settings))
except CBIRLensError as error:
    st.error(words(refusal(error)))
    st.stop()
if not systems:
    st.info("No runs loaded: upload run files on the Data page, or choose a baseline above.")
    st.stop()

search = st.text_input(say("find_query"), key="pq_search", persist_state="session").strip()
matches = find_images(ws, concepts.ids, search) if search else list(next(iter(systems.values())).rankings)[:LISTED_IMAGES]
typed_id = image_with_id(ws, search) if search else None
if typed_id is not None and typed_id not in matches:  # an ID typed whole, which the matches cut at 500 left out
    matches = [typed_id, *matches[:LISTED_IMAGES - 1]]
if not matches:
    st.warning(say("no_query_matches", search=search))
    st.stop()

names = list(systems)
chosen = choose_many(st.multiselect, "Systems side by side", names, "pq_systems", default=names[:3], max_selections=4,
                     format_func=shown_system)
k = choose_one(st.select_slider, say("top_k"), [3, 5, 10], "pq_k",
               default=5)

if researcher and choose_flag(st.toggle, "Find queries where two systems differ most", "pq_differences_on",
                              persist_state="session"):
    run_names = tuple(n for n in names if isinstance(n, str))
    extra = tuple(n for n in names if isinstance(n, Baseline))
    metric = choose_one(st.selectbox, "Metric", leaderboard_metric_names(ws, settings), "pq_metric",
                        default="nn-CUI@10")
    try:
        # The metric's group, as the Leaderboard draws it (one evaluation for both pages).
        result = evaluation_with_progress(ws, run_names, extra, settings,
                                          LeaderboardView(metric_group(metric), metric_family(metric), metric))
    except CBIRLensError as error:
        st.error(words(refusal(error)))
        st.stop()
    a_col, b_col = st.columns(2)
    system_a = system_label(choose_one(a_col.selectbox, "System A", names, "pq_a", format_func=system_label))
    system_b = system_label(choose_one(b_col.selectbox, "System B", names, "pq_b", default=names[min(1, len(names) - 1)],
                                       format_func=system_label))
    wide = result.per_query_values(metric)
    if system_a in wide and system_b in wide and system_a != system_b:
        pair, top = largest_differences(wide, system_a, system_b)
        figure = px.scatter(pair, x=system_a, y=system_b, opacity=0.4, hover_name=pair.index,
                            title=f"{metric} per query: {system_a} vs {system_b}")
        figure.add_shape(type="line", x0=0, y0=0, x1=1, y1=1, line={"dash": "dot"})
        st.plotly_chart(figure, key="pq_scatter")
        st.dataframe(score_table(top), key="pq_differences")
        if choose_flag(st.checkbox, "Pick the query from this table", "pq_use_differences", persist_state="session"):
            matches = list(top.index)


def card(document: str, rank: int, explanation: Explanation | None, tie: str | None, show_words: bool) -> None:
    image, problem = image_of(ws, document)
    if image is not None:
        st.image(image, width=140)
    else:
        st.caption(escape_markdown(problem) or "[no image]")
    st.markdown(f"**{rank}.** {escape_markdown(document)}")
    if explanation is None:
        st.caption("No concept set: relevance 0.")
        return
    if show_words:
        st.markdown(highlighted_caption(ws, document))
    elif researcher:
        st.text(ws.captions.get(document, "")[:160])
    st.markdown(result_chips(ws, explanation, kg))
    st.markdown(reason_markdown(explanation, who))
    draw_paths(explanation)
    if researcher:
        st.caption(f"IoU {explanation.iou.value:.3f} · nn-IoU {explanation.nn_iou.value:.3f}")
        with st.expander("How the score is computed"):
            st.caption(arithmetic_markdown(explanation))
    else:
        st.caption(plain_counts(explanation))
    if tie:
        st.caption(tie)


#: Where the page keeps an image ID typed whole in the Query box, with the search it was typed under.
TYPED_QUERY = "pq_typed_query"


def with_typed_query(listed: list[str]) -> list[str]:
    """The listed queries, and first an image ID the reader typed whole in the Query box (which offers only the first
    500) while the search stays as it was, so that it is chosen; a typed text that is no image ID is said, with what
    to do instead. A choice kept from before (no longer listed after a new search) is no typed text."""
    typed = st.session_state.get("pq_query")
    if isinstance(typed, str) and typed not in listed and typed != st.session_state.get(KEPT_CHOICE + "pq_query"):
        found = image_with_id(ws, typed)
        if found is None:
            st.warning(say("query_not_listed", typed=typed, count=len(listed)))
        else:
            st.session_state[TYPED_QUERY] = (search, found)
            st.session_state["pq_query"] = found
    kept = st.session_state.get(TYPED_QUERY)
    return [kept[1], *listed] if kept is not None and kept[0] == search and kept[1] not in listed else listed


@st.fragment
def query_view() -> None:
    """The chosen query and each system's cards: a fragment, so that choosing another query redraws only
    this part of the page (the rest of the page and the sidebar stay as they are, in the browser too)."""
    query = choose_one(st.selectbox, say("query"), with_typed_query(matches), "pq_query", accept_new_options=True,
                       help=say("query_help", count=LISTED_IMAGES))
    show_words = caption_words_toggle(ws, "pq_caption_words")

    left, right = st.columns([1, 3])
    with left:
        image, problem = image_of(ws, query)
        if image is not None:
            st.image(image, caption=query)
        else:
            st.text(problem or f"[no image for {query}]")
    with right:
        st.markdown("**Caption:**")
        if show_words:
            draw_caption_words(ws, query, kg)
        else:
            st.text(ws.captions.get(query, "(no caption loaded)"))
        st.markdown("**Concepts:** " + query_chips(ws, query, kg)[0])

    columns = st.columns(max(1, len(chosen)))
    for column, system in zip(columns, chosen):
        with column:
            st.subheader(shown_system(system))
            ranked = [d for d in systems[system].rankings.get(query, ()) if d != query][:k]
            if not ranked:
                st.caption("This system returned nothing for this query.")
            notes = tie_notes(ws, system, systems[system], query, ranked, settings, who)
            explanations = explanations_for(ws, query, ranked, settings)
            for rank, document in enumerate(ranked, start=1):
                with st.container(border=True):
                    card(document, rank, explanations[document], notes.get(document), show_words)


query_view()
one = len(matches) == 1
st.caption(say("candidates", count=len(matches), ending="y" if one else "ies", s="" if one else "s")
           + (say("candidates_cut", count=LISTED_IMAGES) if len(matches) >= LISTED_IMAGES else ""))
