"""Drawing helpers shared by the pages: escaped markdown, chips, labels, banners, an honest progress bar, and the
names a reader sees (page titles, systems; the words of both readers are written in dashboard.wording)."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable, Sequence
from typing import TypeVar
from urllib.parse import urlencode

import streamlit as st

from dashboard.caching import server_foreground
from dashboard.session import audience, note_ignored_in_address, workspace
from dashboard.sidebar import Settings
from dashboard.wording import Wording, concept_words, page_title_for, refusal, words
from evalcore.app.baselines import Baseline
from evalcore.app.workspace import Workspace
from evalcore.errors import CBIRLensError
from evalcore.relevance.kg import KnowledgeGraph

T = TypeVar("T")
#: Where a select widget's choice is kept by value, beside the widget's own state (see :func:`choose_one`).
KEPT_CHOICE = "kept_choice:"
#: Where the label a keyed choice was last drawn with is kept (:func:`hand_back`).
SHOWN_LABEL = "shown_label:"
MARKDOWN_SPECIAL = set("\\`*_{}[]()#+-.!|<>~:$&")
#: A dash a line may break after (hyphen-minus, hyphen, en dash) with a letter or sign on both sides: inside a word.
WORD_DASH = re.compile(r"(?<=\S)[-\u2010\u2013](?=\S)")
#: Forbids a line break on either side, and is invisible (Unicode's WORD JOINER, U+2060).
WORD_JOINER = "\u2060"


def escape_markdown(text: str) -> str:
    """Backslash-escape every markdown/HTML-significant character so user text shows literally."""
    return "".join("\\" + ch if ch in MARKDOWN_SPECIAL else ch for ch in str(text)).replace("\n", " ")


def unbroken_hyphens(text: str) -> str:
    r"""``text`` with a word joiner after each dash inside a word, for display only: a narrow column then wraps
    "X-Ray Computed Tomography" between words, never as "X-" above "Ray" (markdown cannot carry a ``nowrap`` span
    without raw HTML). The typed hyphen stays, so the browser's find still matches "X-Ray" (a non-breaking hyphen,
    U+2011, would not) and the label looks the same in any font; a copied label carries the invisible joiner, so
    names as data (downloads, keys, the case search) never go through here.

    >>> unbroken_hyphens("X-Ray Computed Tomography - head")
    'X-\u2060Ray Computed Tomography - head'
    """
    return WORD_DASH.sub(r"\g<0>" + WORD_JOINER, text)


#: The most words of a chip's label kept on one line: a two-word name split at a line's end ("CT" above "scan") reads
#: as two chips; a longer one wraps between words, as a narrow column needs.
ONE_LINE_WORDS = 2
NO_BREAK_SPACE = "\u00a0"


#: A label's bracketed end ("Neoplasms (C0027651)", "CT scan (caption: history only)"): a line may break before it.
_BRACKETED_END = re.compile(r"^(?P<name>.*?\S)(?P<end>[ \t]+\([^()]*\))?$", re.DOTALL)


def chip(text: str, colour: str) -> str:
    """A coloured, escaped markdown chip (Streamlit colour directive; never raw HTML) whose label wraps between
    words only, never at a hyphen inside one (:func:`unbroken_hyphens`), and not at all inside a name of at most
    :data:`ONE_LINE_WORDS` words (their spaces no-break spaces); a bracketed end (an ID, a marker) may go to the
    next line, as a narrow card would otherwise break the ID inside ("Neoplasms (C00276" above "51)")."""
    parts = _BRACKETED_END.match(text)
    name, end = (parts["name"], parts["end"] or "") if parts else (text, "")
    shown = unbroken_hyphens(name)
    if len(name.split()) <= ONE_LINE_WORDS:
        shown = re.sub(r"[ \t]+", NO_BREAK_SPACE, shown)
    return f":{colour}-background[{escape_markdown(shown + unbroken_hyphens(end))}]"


def concept_label(ws: Workspace, cui: str, kg: KnowledgeGraph | None = None) -> str:
    """A concept as the reader reads it (:func:`dashboard.wording.concept_words`), by its loaded name, else the KG's."""
    return concept_words(cui, ws.names.get(cui) or (kg.names.get(cui) if kg else None))


def panel_columns(panels: int) -> int:
    """Panels per row: four as two rows of two (three and one left the fourth alone under the first), else up to
    three.

    >>> [panel_columns(p) for p in (1, 2, 3, 4, 5, 6)]
    [1, 2, 3, 2, 3, 3]
    """
    return 2 if panels == 4 else max(1, min(3, panels))


def page_with_concepts(title: str) -> Workspace:
    """A page's title, the session's workspace and its demo banner; the page stops here, pointing to the Data
    page, while no concept sets are loaded."""
    st.title(page_title(title))
    ws = workspace()
    synthetic_banner(ws)
    if not require_concepts(ws):
        st.stop()
    return ws


def page_title(title: str) -> str:
    """A page's heading for the reader: the clinician's plain title where there is one."""
    return page_title_for(title, audience())


def require_concepts(ws: Workspace) -> bool:
    if ws.concepts is None:
        st.info("Load concept sets on the Data page first.")
        return False
    return True


def synthetic_banner(ws: Workspace) -> None:
    if ws.synthetic:
        st.caption("⚠️ Showing the embedded demo: **synthetic data**, modelled on ROCOv2, not real patients.")


class StepProgress:
    """A progress bar over a known number of steps, moved by the work itself: a step advances it when done,
    and a step that reports its own fraction (a pass over the pool, block by block) moves it within."""

    def __init__(self, steps: int):
        self.steps = max(1, steps)
        self.finished = 0
        self.text = ""
        self.bar = st.empty()

    def _draw(self, fraction: float) -> None:
        self.bar.progress(min(1.0, (self.finished + min(1.0, max(0.0, fraction))) / self.steps), text=self.text)

    def run(self, text: str, work: Callable[[Callable[[float], None]], object]):
        """Show ``text``, run ``work(report)`` (``report(fraction)`` may be called with 0..1), count the step."""
        self.text = f"{text} (step {self.finished + 1} of {self.steps})"
        self._draw(0.0)
        result = work(self._draw)
        self.finished += 1
        return result

    def __enter__(self) -> StepProgress:
        # Background work waits while a page computes behind a bar (dashboard.caching.Foreground).
        self._working = server_foreground().working()
        self._working.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._working.__exit__(*exc)
        self.bar.empty()


def _dataset_marker(key: str) -> str:
    return f"{key}__dataset"


def keep_default_for_dataset(key: str, ws: Workspace, default: list) -> None:
    """Set a keyed multiselect to ``default`` whenever other concept sets are loaded (the user's choice stays
    otherwise)."""
    if st.session_state.get(_dataset_marker(key)) != ws.digests["concepts"]:
        st.session_state[_dataset_marker(key)] = ws.digests["concepts"]
        st.session_state[key] = default


def choice_for_dataset(key: str, ws: Workspace, default: list) -> list:
    """What a multiselect kept by :func:`keep_default_for_dataset` and :func:`choose_many` will hold when next drawn
    on ``ws``, without drawing it: the session's last choice on these concept sets, else ``default``."""
    kept = st.session_state.get(KEPT_CHOICE + key)
    if kept is not None and st.session_state.get(_dataset_marker(key)) == ws.digests["concepts"]:
        return list(kept)
    return list(default)


def system_label(system: Baseline | str) -> str:
    """How a system is named on screen and in tables: a baseline by its title, a loaded run by its name."""
    return system.title if isinstance(system, Baseline) else system


def shown_system(system: Baseline | str) -> str:
    """A system's name as the reader sees it: to a clinician, a Table-1 baseline is named by what it does
    ("Reference: the most similar captions"), not by its technical title ("Retrieval by captions (TF-IDF)"); a
    loaded run (a name) by its name, whatever it is called.

    Only for display: tables and results are keyed by :func:`system_label`.
    """
    if audience() != "clinician" or not isinstance(system, Baseline):
        return system_label(system)
    return f"Reference: {system.plain}"


def plain_settings(settings: Settings, has_kg: bool) -> str:
    """The matching settings in a clinician's words: "Only identical concepts count." where nn-IoU reduces to IoU
    (:meth:`~evalcore.relevance.measures.MeasureSpec.effective`: alpha or n 0, or no concept map), else

    "A related concept counts 50% of the same concept, up to 1 link apart in the concept map."
    """
    if settings.relevance.effective(has_kg).key != "nn-iou":
        return "Only identical concepts count."
    links = f"{settings.n} link{'s' if settings.n != 1 else ''}"
    return f"A related concept counts {settings.alpha:.0%} of the same concept, up to {links} apart in the concept map."


def _is_option(value: object, options: Sequence) -> bool:
    """Whether ``value`` equals one of ``options`` (compared by value: options need not be hashable)."""
    return any(value == option for option in options)


def hand_back(key: str, chosen: object, shown: object = None) -> None:
    """Give the widget of ``key`` its choice before it is drawn, only when it changes or is ``shown`` with another
    label than the last time (the clinician's words after the researcher's: the browser keeps showing the label a
    choice had, "Veins (C0042449)", until the choice is sent again): a value set through the session state is sent
    to the browser again. ``shown``: the label (or labels) the choice is drawn with; None where it cannot change."""
    last = st.session_state.get(SHOWN_LABEL + key)
    relabelled = shown is not None and last is not None and last[0] == chosen and last[1] != shown
    if key not in st.session_state or st.session_state[key] != chosen or relabelled:
        st.session_state[key] = chosen
    if shown is not None:
        st.session_state[SHOWN_LABEL + key] = (chosen, shown)


def choose_one(widget: Callable[..., T], label: str, options: Sequence[T], key: str, default: T | None = None,
               **kwargs) -> T:
    """Draw a keyed one-choice widget (``selectbox``, ``select_slider``, ``radio``, ``segmented_control``, of ``st``
    or of a container) whose choice is kept by value, for the session, and is always one of ``options``.

    Streamlit keeps a select widget's value as its shown label: drawn again with other labels (the clinician's
    words, another measure's systems), or after the page was left, it returns a label that is no option, or
    resets. Here the choice is kept by value under :data:`KEPT_CHOICE` and handed back to the widget before it is
    drawn: the widget's value if it is still an option, else the kept choice, else the address's (a link), else
    ``default``, else the first. A choice other than the first fallback is written in the address under ``key``
    (:func:`address_text`), so that a link or a reload reopens the same view.
    """
    options = list(options)
    fallback = default if default is not None and _is_option(default, options) else options[0] if options else None
    candidates = (st.session_state.get(key), st.session_state.get(KEPT_CHOICE + key), _linked(key, options), fallback)
    chosen = next((c for c in candidates if c is not None and _is_option(c, options)), None)
    hand_back(key, chosen, None if chosen is None else kwargs.get("format_func", str)(chosen))
    value = widget(label, options, key=key, **kwargs)
    st.session_state[KEPT_CHOICE + key] = value
    keep_in_address(key, [] if value is None or value == fallback else [value])
    return value


def choose_many(widget: Callable[..., list[T]], label: str, options: Sequence[T], key: str,
                default: Sequence[T] = (), **kwargs) -> list[T]:
    """:func:`choose_one` for a many-choice widget (``multiselect``, ``pills`` with ``selection_mode="multi"``):
    the widget's value if every one of it is an option, else the kept choices that are still options, in their
    order, else the address's; ``default`` (those of it that are options) the first time."""
    options = list(options)
    current, kept = st.session_state.get(key), st.session_state.get(KEPT_CHOICE + key)
    fallback = [v for v in default if _is_option(v, options)]
    if isinstance(current, list | tuple) and all(_is_option(v, options) for v in current):
        chosen = list(current)
    elif kept is not None or current is not None:
        chosen = [v for v in (kept if kept is not None else current) if _is_option(v, options)]
    else:
        linked = _linked_many(key, options, kwargs.get("max_selections"))
        chosen = linked if linked is not None else fallback
    hand_back(key, chosen, tuple(map(kwargs.get("format_func", str), chosen)))
    values = widget(label, options, key=key, **kwargs)
    st.session_state[KEPT_CHOICE + key] = list(values)
    keep_in_address(key, [] if list(values) == fallback else list(values))
    return values


def choose_flag(widget: Callable[..., bool], label: str, key: str, default: bool = False, **kwargs) -> bool:
    """:func:`choose_one` for a switch (``toggle``, ``checkbox``, of ``st`` or of a container): the widget's value,
    else the kept one, else the address's, else ``default``; written in the address where it differs from
    ``default``, so that a link or a reload reopens the view with the switch as it was."""
    kwargs.pop("value", None)  # the choice is handed back through the session state, never given twice
    candidates = (st.session_state.get(key), st.session_state.get(KEPT_CHOICE + key), _linked(key, (True, False)),
                  default)
    chosen = next(candidate for candidate in candidates if isinstance(candidate, bool))
    hand_back(key, chosen)
    value = bool(widget(label, key=key, **kwargs))
    st.session_state[KEPT_CHOICE + key] = value
    keep_in_address(key, [] if value == default else [value])
    return value


def address_text(value: object) -> str:
    """How a choice is written in the address: a system by its name, a number as written, anything else as text.

    >>> address_text(0.5), address_text(10), address_text("run A")
    ('0.5', '10', 'run A')
    """
    return system_label(value) if isinstance(value, Baseline) else f"{value:g}" if isinstance(value, float) \
        else str(value)


def _linked(key: str, options: Sequence[T]) -> T | None:
    """The option the address names under ``key``, or None; a name that is no option is noted, once."""
    if key not in st.query_params:
        return None
    found = _matched(key, options, [st.query_params[key]])
    return found[0] if found else None


def _linked_many(key: str, options: Sequence[T], most: int | None = None) -> list[T] | None:
    """The options the address names under ``key``, each once and at most ``most`` of them (the widget refuses
    more), or None where it names none of them (the choice then falls back to its default, never to an empty one); a
    name that is no option, a repeat or one too many is noted, once."""
    if key not in st.query_params:
        return None
    texts = st.query_params.get_all(key)
    found = list(dict.fromkeys(_matched(key, options, texts)))[:most]  # names that are options, each once
    if len(found) < len(texts):
        note_ignored_in_address(key)
    return found or None


def _matched(key: str, options: Sequence[T], texts: Sequence[str]) -> list[T]:
    by_text = {address_text(option): option for option in options}
    if any(text not in by_text for text in texts):
        note_ignored_in_address(key)
    return [by_text[text] for text in texts if text in by_text]


def linked_text(key: str, valid: Callable[[str], bool]) -> str | None:
    """The text the address holds under ``key`` where ``valid`` (for a choice that is not a select box's: a KG
    endpoint, the leaderboard's metric in focus); one that is not is noted, once, for app.py's one sentence."""
    text = st.query_params.get(key)
    if text is not None and not valid(text):
        note_ignored_in_address(key)
        return None
    return text


def keep_in_address(key: str, values: Sequence[object]) -> None:
    """Write ``values`` in the address under ``key`` (none: remove it), only when that changes it (each write is a
    message to the browser)."""
    texts = [address_text(value) for value in values]
    if not texts:
        if key in st.query_params:
            del st.query_params[key]
    elif st.query_params.get_all(key) != texts:
        st.query_params[key] = texts if len(texts) > 1 else texts[0]


def view_link(url: str, parameters: dict[str, list[str]]) -> str:
    """The address of this view: the page's address without its old query, then ``parameters`` (each name with
    its values, repeated for several).

    >>> view_link("http://host:8501/leaderboard?x=1", {"audience": ["Clinician"], "pq_systems": ["A", "B c"]})
    'http://host:8501/leaderboard?audience=Clinician&pq_systems=A&pq_systems=B+c'
    """
    base = url.split("?", 1)[0].split("#", 1)[0]
    query = urlencode([(name, value) for name, values in parameters.items() for value in values])
    return f"{base}?{query}" if query else base


def load_error(loader: Callable[[], Workspace]) -> Wording | None:
    """Run a loader and keep its workspace; on bad input keep what was loaded before and return why it was refused,
    in both readers' words (:func:`dashboard.wording.refusal`)."""
    try:
        st.session_state["workspace"] = loader()
        return None
    except (CBIRLensError, OSError, zipfile.BadZipFile) as error:
        return refusal(error)


def guarded_load(loader: Callable[[], Workspace]) -> bool:
    """Run a loader; on bad input show why, in the reader's words, and keep what was loaded before."""
    refused = load_error(loader)
    if refused is not None:
        st.error(f"Not loaded: {words(refused)}")
    return refused is None
