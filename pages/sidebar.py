"""The sidebar's shared controls, read back as one typed option (:class:`Settings`)."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from evalcore.measures import DEFAULT_MEASURE, MEASURES, MeasureSpec, measure_spec


@dataclass(frozen=True)
class Settings:
    """What the sidebar sets: nn-IoU at the sliders' alpha and n (``relevance``, the paper's measure, which the
    baselines, qrels and explanations use), the chosen relevance measure with its own parameters, the KG mode, the
    cut-offs K and the NDCG gain. Frozen and compared by value, so a cache hashes it whole."""

    relevance: MeasureSpec
    measure: MeasureSpec
    kg_mode: str
    ks: tuple[int, ...]
    gain: str

    @property
    def alpha(self) -> float:
        return self.relevance.params["alpha"]

    @property
    def n(self) -> int:
        return self.relevance.hops


def controls() -> Settings:
    """The sidebar's settings (defaults where a control was not drawn yet)."""
    alpha, hops = float(st.session_state.get("alpha", 0.5)), int(st.session_state.get("n", 1))
    return Settings(relevance=measure_spec("nn-iou", alpha=alpha, n=hops), measure=current_measure(),
                    kg_mode=st.session_state.get("kg_mode", "undirected"),
                    ks=tuple(sorted(st.session_state.get("ks", [5, 10, 30]))) or (10,),
                    gain=st.session_state.get("gain", "linear"))


def current_measure() -> MeasureSpec:
    """The sidebar's relevance measure: its own parameters, alpha and n from the shared sliders.

    nn-IoU-hops takes one weight per hop up to n; weights are made non-increasing (each at
    most the one before), as the measure requires.
    """
    key = st.session_state.get("measure", DEFAULT_MEASURE)
    measure = MEASURES.get(key, MEASURES[DEFAULT_MEASURE])
    alpha, hops = float(st.session_state.get("alpha", 0.5)), int(st.session_state.get("n", 1))
    if measure.weights:
        weights, previous = {}, 1.0
        for hop in range(1, max(1, hops) + 1):
            previous = min(previous, float(st.session_state.get(f"measure_w{hop}", 0.5 ** hop))) if hops else 0.0
            weights[f"w{hop}"] = previous
        return measure_spec(measure.key, **weights)
    values = {"alpha": alpha, "n": hops}
    for parameter in measure.parameters:
        if parameter.name not in values:
            values[parameter.name] = float(st.session_state.get(f"measure_{measure.key}_{parameter.name}",
                                                                parameter.default))
    return measure_spec(measure.key, **{p.name: values[p.name] for p in measure.parameters})


def measure_controls() -> None:
    """Sidebar: the relevance measure and its own parameters (alpha and n are the shared sliders above)."""
    key = st.selectbox("relevance measure", list(MEASURES), index=list(MEASURES).index(DEFAULT_MEASURE), key="measure",
                       persist_state="session", format_func=lambda k: MEASURES[k].title,
                       help="How two images' concept sets are compared. IoU and nn-IoU are the paper's; the others are "
                            "explained on the 'Choose a measure' page.")
    measure = MEASURES[key]
    if measure.weights:
        for hop in range(1, max(1, int(st.session_state.get("n", 1))) + 1):
            st.slider(f"w{hop}: credit of a near match {hop} hop{'s' if hop > 1 else ''} away", 0.0, 1.0,
                      0.5 ** hop, 0.05, key=f"measure_w{hop}", persist_state="session",
                      disabled=int(st.session_state.get("n", 1)) == 0)
    for parameter in measure.parameters:
        if parameter.name not in ("alpha", "n"):
            st.slider(f"{parameter.name}: {parameter.help}", float(parameter.low), float(parameter.high),
                      float(parameter.default), 0.05, key=f"measure_{key}_{parameter.name}",
                      persist_state="session")
    st.caption(f"Relevance: `{current_measure().name}`")
