"""The sidebar's shared controls, read back as one typed option (:class:`Settings`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from dashboard.session import AUDIENCES, note_ignored_in_address, say_if_link_dropped
from evalcore.decimals import decimal_integer, finite_decimal
from evalcore.evaluation.options import DEFAULT_ALPHA, DEFAULT_CUTOFFS, DEFAULT_HOPS, Relevance
from evalcore.relevance.kg import KG_MODES
from evalcore.relevance.measures import DEFAULT_MEASURE, MEASURES, MeasureSpec, measure_spec, nn_iou_measure

CUTOFF_CHOICES = (1, 3, 5, 10, 20, 30, 50, 100)
#: The largest n the sidebar's slider offers (and a link may set).
MAX_HOPS = 3
GAINS = ("linear", "exponential")
#: Each sidebar setting's value before the reader moves it: the one place the sidebar's defaults are written.
DEFAULTS = {"audience": "Researcher", "alpha": DEFAULT_ALPHA, "n": DEFAULT_HOPS, "kg_mode": KG_MODES[0], "measure": DEFAULT_MEASURE,
            "ks": list(DEFAULT_CUTOFFS), "gain": GAINS[0]}
#: Once per session: the settings were read from the address.
ADDRESS_READ = "settings_read_from_address"


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

    def options(self) -> Relevance:
        """The evaluation's relevance options: nn-IoU at the sliders' setting, the chosen measure and the gain."""
        return Relevance(self.relevance, self.measure, self.gain)


def controls(alpha: float | None = None, hops: int | None = None) -> Settings:
    """The sidebar's settings (defaults where a control was not drawn yet); with ``alpha`` or ``hops``, the settings
    the sidebar would give with its sliders there (the work prepared for a slider's next step)."""
    alpha = float(st.session_state.get("alpha", DEFAULTS["alpha"])) if alpha is None else alpha
    hops = int(st.session_state.get("n", DEFAULTS["n"])) if hops is None else hops
    return Settings(relevance=nn_iou_measure(alpha, hops), measure=current_measure(alpha, hops),
                    kg_mode=st.session_state.get("kg_mode", DEFAULTS["kg_mode"]),
                    ks=tuple(sorted(st.session_state.get("ks", DEFAULTS["ks"]))) or (10,),
                    gain=st.session_state.get("gain", DEFAULTS["gain"]))


def current_measure(alpha: float | None = None, hops: int | None = None) -> MeasureSpec:
    """The sidebar's relevance measure: its own parameters, alpha and n from the shared sliders (or as given).

    nn-IoU-hops takes one weight per hop up to n; weights are made non-increasing (each at
    most the one before), as the measure requires.
    """
    key = st.session_state.get("measure", DEFAULT_MEASURE)
    measure = MEASURES.get(key, MEASURES[DEFAULT_MEASURE])
    alpha = float(st.session_state.get("alpha", DEFAULTS["alpha"])) if alpha is None else alpha
    hops = int(st.session_state.get("n", DEFAULTS["n"])) if hops is None else hops
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
    key = st.selectbox("relevance measure", list(MEASURES), key="measure",
                       persist_state="session", format_func=lambda k: MEASURES[k].title,
                       help="How two images' concept sets are compared. IoU and nn-IoU are the paper's; the others are "
                            "explained on the 'Choose a measure' page.")
    measure = MEASURES[key]
    if measure.weights:
        hops = int(st.session_state.get("n", DEFAULTS["n"]))
        for hop in range(1, max(1, hops) + 1):
            st.session_state.setdefault(f"measure_w{hop}", 0.5 ** hop)
            st.slider(f"w{hop}: credit of a near match {hop} hop{'s' if hop > 1 else ''} away", 0.0, 1.0,
                      step=0.05, key=f"measure_w{hop}", persist_state="session",
                      disabled=hops == 0)
    for parameter in measure.parameters:
        if parameter.name not in ("alpha", "n"):
            st.session_state.setdefault(f"measure_{key}_{parameter.name}", float(parameter.default))
            st.slider(f"{parameter.name}: {parameter.help}", float(parameter.low), float(parameter.high),
                      step=0.05, key=f"measure_{key}_{parameter.name}", persist_state="session")
    st.caption(f"Relevance: `{current_measure().name}`")


# --- the settings in the page's address -------------------------------------------------------------------------

def _number(low: float, high: float, integer: bool = False, step: float | None = None) -> Callable[[str], object]:
    """A parser of an address's text into a number in [low, high] (on the slider's ``step`` grid), else None; in
    ASCII decimal syntax (:mod:`evalcore.decimals`: int() and float() would also read ``٠.٥`` and ``1_0``)."""
    def parse(text: str) -> object:
        value = decimal_integer(text, 10**6) if integer else finite_decimal(text)
        if value is None:
            return None
        if not low <= value <= high or (step and abs(round((value - low) / step) * step + low - value) > 1e-9):
            return None
        return round(value, 10) if not integer else value
    return parse


def _one_of(choices) -> Callable[[str], object]:
    return lambda text: text if text in choices else None


def _cutoffs(text: str) -> object:
    read = [decimal_integer(v, 10**6) for v in text.split(",") if v]  # (ASCII digits only, as _number)
    values = sorted(set(read)) if None not in read else []
    return values if values and all(v in CUTOFF_CHOICES for v in values) else None


def address_settings() -> dict[str, Callable[[str], object]]:
    """Every setting the address keeps, by its session key (the query parameter's name), with the parser that reads
    it back: the audience, alpha, n, the KG mode, the measure, each measure's own parameters, K and the gain."""
    parsers: dict[str, Callable[[str], object]] = {
        "audience": _one_of(AUDIENCES), "alpha": _number(0.0, 1.0, step=0.1),
        "n": _number(0, MAX_HOPS, integer=True), "kg_mode": _one_of(KG_MODES), "measure": _one_of(MEASURES),
        "ks": _cutoffs, "gain": _one_of(GAINS)}
    for hop in range(1, 4):
        parsers[f"measure_w{hop}"] = _number(0.0, 1.0, step=0.05)
    for measure in MEASURES.values():
        for parameter in measure.parameters:
            if parameter.name not in ("alpha", "n") and not measure.weights:
                parsers[f"measure_{measure.key}_{parameter.name}"] = _number(float(parameter.low),
                                                                             float(parameter.high), step=0.05)
    return parsers


def _address_text(value: object) -> str:
    return ",".join(str(v) for v in value) if isinstance(value, list | tuple) else f"{value:g}" \
        if isinstance(value, float) else str(value)


def settings_from_address() -> None:
    """Once per session, before the sidebar is drawn: each setting the address names, where valid, becomes the
    session's (a reload, or an address sent by someone, opens with the same settings); an invalid one is left at its default and
    noted for app.py's one sentence (and a link Streamlit read none of, holding over 1,000 parameters, is said).
    Then every setting not set yet takes its default, so that no widget is given both a default and a value."""
    say_if_link_dropped()
    if not st.session_state.get(ADDRESS_READ):
        st.session_state[ADDRESS_READ] = True
        for key, parse in address_settings().items():
            if key not in st.query_params:
                continue
            if (value := parse(st.query_params[key])) is not None:
                st.session_state[key] = value
            else:
                note_ignored_in_address(key)
    for key, value in DEFAULTS.items():
        st.session_state.setdefault(key, value)


def settings_to_address() -> None:
    """Every run: the settings that differ from their defaults are written in the address, the others removed
    (a page switch clears the address's parameters; this writes them back)."""
    # Only what changed is written: each write is a message to the browser, which rewrites its address.
    for key in address_settings():
        value = st.session_state.get(key)
        default = DEFAULTS.get(key)
        if value is None or value == default or (key.startswith("measure_") and _is_parameter_default(key, value)):
            if key in st.query_params:
                del st.query_params[key]
        elif st.query_params.get(key) != (text := _address_text(value)):
            st.query_params[key] = text


def _is_parameter_default(key: str, value: object) -> bool:
    if key.startswith("measure_w"):
        return value == 0.5 ** int(key[len("measure_w"):])
    measure_key, _, name = key[len("measure_"):].rpartition("_")
    parameter = next((p for p in MEASURES[measure_key].parameters if p.name == name), None)
    return parameter is not None and value == parameter.default
