"""The clinician's view: only the pages meant for a clinician, and on them no research jargon anywhere a reader can
see it (titles, captions, labels, tooltips, table headers and short tables' cells, metric labels, chart titles,
axes, legends and colour bars, download buttons); switching the audience keeps the workspace and the settings."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from google.protobuf.json_format import MessageToDict
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest

from evalcore.app.baselines import available_baselines
from evalcore.errors import CBIRLensError
from evalcore.io.tables import metric_family, metric_group, plain_metric_label
from tests.conftest import ROCOV2, ROOT, declared_pages, needs

TIMEOUT = 300
#: As app.py declares them: a new page is declared there once, not again here.
CLINICIAN_PAGES, RESEARCHER_PAGES = declared_pages()
FORBIDDEN = {
    "CUI": re.compile(r"\bCUI"),
    "IoU": re.compile(r"\bIoU\b"),
    "NDCG": re.compile(r"\bNDCG", re.IGNORECASE),
    "alpha": re.compile(r"\balpha\b", re.IGNORECASE),
    "bootstrap": re.compile(r"\bbootstrap", re.IGNORECASE),
    "qrels": re.compile(r"\bqrels", re.IGNORECASE),
    "KG": re.compile(r"\bKG\b"),
    "F1": re.compile(r"\bF1\b"),
    "p-value": re.compile(r"p-value|\bp <|\bp \(", re.IGNORECASE),
    "Holm": re.compile(r"\bHolm"),
    "concept ID": re.compile(r"\bC\d{7}\b"),
    "query": re.compile(r"\bquer(?:y|ies)\b", re.IGNORECASE),
    "precision": re.compile(r"\bprecision\b", re.IGNORECASE),
    "file format": re.compile(r"\b(?:TREC|NPY|PARQUET|MRREL|MRCONSO|OBO)\b", re.IGNORECASE),
    "Table-1": re.compile(r"\bTable.1\b", re.IGNORECASE),
    "run file": re.compile(r"\brun files?\b|\bruns?:|\ba loaded run\b", re.IGNORECASE),
}
#: Proto fields whose strings a reader sees (ids, keys, urls and form ids are not shown).
SHOWN_FIELDS = {"label", "help", "body", "caption", "options", "placeholder", "title", "text", "value", "default",
                "delta", "name", "rawValues",
                "type"}  # a file uploader lists its file types ("NPY, CSV, PARQUET")
SHORT_TABLE = 60
DOT_LABEL = re.compile(r'label\s*=\s*"((?:[^"\\]|\\.)*)"|label\s*=\s*<(.*?)>\s*[,\]]')


@pytest.fixture(autouse=True)
def app_runs_its_navigation(monkeypatch):
    """Every run executes app.py, as on a server.

    A server leaves the pages-folder mode for good once app.py calls ``st.navigation``; AppTest resets that flag
    before every run and, finding a ``pages/`` folder, runs a switched-to page's file alone: no sidebar, no
    audience, no navigation built by app.py.
    """
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)


def forbidden_in(text: str) -> list[str]:
    """The jargon found in one text (markdown escapes removed first: ``C0042449`` may be written ``C0042449``)."""
    plain = text.replace("\\", "")
    return [word for word, pattern in FORBIDDEN.items() if pattern.search(plain)]


def strings(value, keys: set[str] | None = None, under: str = "") -> Iterator[str]:
    """Every string in a proto-as-dict under a shown field."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from strings(item, keys, key)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item, keys, under)
    elif isinstance(value, str) and (keys is None or under in keys):
        yield value


def plotly_texts(spec: dict) -> Iterator[str]:
    """A figure's titles, axis titles and tick labels, legend and colour-bar titles, trace names and text."""
    layout = spec.get("layout", {})
    for key, part in layout.items():
        if isinstance(part, dict) and (key.startswith(("xaxis", "yaxis", "legend", "coloraxis")) or key == "title"):
            yield from strings(part, {"text", "title", "ticktext"})
    yield from strings(layout.get("title", {}))
    for annotation in layout.get("annotations", []):
        yield str(annotation.get("text", ""))
    for trace in spec.get("data", []):
        yield from strings({k: trace.get(k) for k in ("name", "text", "hovertext", "x", "y") if k in trace})
        yield from strings(trace.get("colorbar", {}), {"text", "title"})
        yield from strings(trace.get("marker", {}).get("colorbar", {}), {"text", "title"})


def dataframe_texts(node) -> Iterator[str]:
    """Header (a column's configured label, else its name), tooltips, and every cell of a short table."""
    frame = node.value
    frame = getattr(frame, "data", frame)  # a Styler's frame
    config = json.loads(node.proto.columns) if node.proto.columns else {}
    for column in frame.columns:
        shown = config.get(str(column), {})
        if not shown.get("hidden"):
            yield shown.get("label", str(column))
    yield from (str(n) for n in frame.index.names if n is not None and "_index" not in config)
    yield from strings(config, {"label", "help"})
    if len(frame) <= SHORT_TABLE:
        yield from (str(i) for i in frame.index)
        for column in frame.columns:
            if not config.get(str(column), {}).get("hidden"):
                yield from (str(v) for v in frame[column].tolist())


def element_texts(node) -> Iterator[str]:
    kind = getattr(node, "type", "")
    proto = getattr(node, "proto", None)
    if kind == "dataframe":
        yield from dataframe_texts(node)
        return
    if proto is None:
        pass
    elif kind == "plotly_chart":
        spec = proto.plotly_chart.spec if hasattr(proto, "plotly_chart") else proto.spec
        yield from plotly_texts(json.loads(spec))
    elif kind == "graphviz_chart":
        spec = proto.graphviz_chart.spec if hasattr(proto, "graphviz_chart") else proto.spec
        for quoted, html in DOT_LABEL.findall(spec):
            yield quoted or html
    elif kind not in ("imgs", "image", "empty"):
        yield from strings(MessageToDict(proto), SHOWN_FIELDS)
    for child in getattr(node, "children", {}).values():
        yield from element_texts(child)


def jargon_on(app: AppTest) -> dict[str, list[str]]:
    """{text: jargon found} over every element of the page and the sidebar."""
    found = {}
    for text in element_texts(app._tree):
        if words := forbidden_in(text):
            found[text[:160]] = words
    return found


def clinician_app() -> AppTest:
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    app.session_state["audience"] = "Clinician"
    app.run()
    assert not app.exception, app.exception
    return app


def test_the_collector_finds_jargon_in_each_kind_of_element():
    assert forbidden_in("nn-CUI@10") and forbidden_in("IoU 0.5") and forbidden_in("p (corrected)")
    assert forbidden_in("Veins (C0042449)") and forbidden_in("ALPHA = 0.5") and forbidden_in("95% bootstrap CI")
    assert not forbidden_in("Shares 3 of the case's 4 concepts") and not forbidden_in("kg_mode")
    assert forbidden_in("Shares 3 of the query's 4 concepts") and forbidden_in("500 candidate queries listed")
    assert forbidden_in("Average precision") and forbidden_in("2GB per file • NPY, CSV, PARQUET")
    assert forbidden_in("runs: no run files: the leaderboard computes the Table-1 baselines")
    figure = {"layout": {"yaxis": {"title": {"text": "nn-CUI@10"}}},
              "data": [{"type": "heatmap", "colorbar": {"title": {"text": "p (corrected)"}}}]}
    assert [forbidden_in(t) for t in plotly_texts(figure) if forbidden_in(t)] == [["CUI"], ["p-value"]]
    assert DOT_LABEL.findall('a [label="Veins (C0042449)"]') == [("Veins (C0042449)", "")]


@pytest.mark.parametrize("page", CLINICIAN_PAGES)
def test_a_clinician_page_shows_no_jargon(page):
    app = clinician_app()
    if page != "pages/data.py":
        app.switch_page(page).run()
    assert not app.exception, app.exception
    assert app.title, "the page drew nothing"
    assert not jargon_on(app), jargon_on(app)


def test_the_clinician_sidebar_is_drawn_on_every_page():
    app = clinician_app()
    app.switch_page("pages/case_view.py").run()
    assert [r.value for r in app.sidebar.radio] == ["Clinician"]
    assert app.sidebar.slider(key="alpha").label == "How much a related concept counts"


def test_the_clinician_leaderboard_with_every_baseline_shows_no_jargon():
    app = clinician_app()
    app.switch_page("pages/leaderboard.py").run()
    app.multiselect(key="baselines").set_value(available_baselines(app.session_state["workspace"])).run()
    assert not app.exception, app.exception
    for toggle in app.toggle:  # whatever a clinician may fold out, folded out
        toggle.set_value(True).run()
    assert not app.exception, app.exception
    assert len(app.dataframe) >= 2
    assert not jargon_on(app), jargon_on(app)


def test_a_clinician_navigates_only_the_clinician_pages():
    app = clinician_app()
    registered = {str(info["script_path"]).removeprefix(str(ROOT) + "/") for info in app._registered_pages.values()}
    assert registered == set(CLINICIAN_PAGES)
    titles = [info["page_name"] for info in app._registered_pages.values()]
    assert not [t for t in titles if forbidden_in(t)]
    for page in RESEARCHER_PAGES:
        with pytest.raises(ValueError):
            app.switch_page(page)
    researcher = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert {str(info["script_path"]).removeprefix(str(ROOT) + "/")
            for info in researcher._registered_pages.values()} == set(CLINICIAN_PAGES + RESEARCHER_PAGES)


@pytest.mark.slow
@pytest.mark.parametrize("page", RESEARCHER_PAGES)
def test_switching_to_clinician_on_a_researcher_page_lands_on_the_comparison_and_keeps_everything(page):
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    workspace = app.session_state["workspace"]
    app.switch_page(page).run()
    assert not app.exception, app.exception
    app.session_state["alpha"] = 0.8
    app.session_state["n"] = 2
    app.session_state["measure"] = "dice"
    app.session_state["gain"] = "exponential"
    app.sidebar.radio(key="audience").set_value("Clinician").run()
    assert not app.exception, app.exception
    assert app.title[0].value == "Which system finds similar images best"
    assert not jargon_on(app), jargon_on(app)
    # The browser's address is now the comparison's (AppTest would otherwise ask for the page it switched to last).
    app.switch_page("pages/leaderboard.py")
    app.sidebar.radio(key="audience").set_value("Researcher").run()
    assert not app.exception, app.exception
    assert app.session_state["workspace"] is workspace
    assert (app.session_state["alpha"], app.session_state["n"], app.session_state["measure"],
            app.session_state["gain"]) == (0.8, 2, "dice", "exponential")
    assert app.title[0].value == "Leaderboard"
    assert app.slider(key="alpha").value == 0.8 and app.selectbox(key="measure").value == "dice"


def shown_metrics(app: AppTest) -> list[str]:
    """The metrics offered by the Leaderboard's chart, by name (the box shows them in plain words; AppTest would
    format a value outside the script run, so values are set through the session state)."""
    labels = set(app.selectbox(key="focus_metric").options)
    families = ("CUI", "MAP", "R", "ERR", "CAG", "RBP", "CAG-RBP")
    candidates = [f"{prefix}{family}{at}" for prefix in ("", "nn-") for family in families
                  for at in ("", *(f"@{k}" for k in (1, 3, 5, 10, 20, 30, 50, 100)))]
    candidates += [f"P@{k}[{target}]" for k in (1, 3, 5, 10, 20, 30, 50, 100)
                   for target in ("modality", "organ", "modality+organ")]
    found = []
    for name in candidates:
        try:
            if plain_metric_label(name) in labels:
                found.append(name)
        except CBIRLensError:
            continue
    assert len(found) == len(labels), sorted(labels)
    return found


@pytest.mark.slow
def test_every_group_and_score_of_the_clinician_leaderboard_shows_no_jargon():
    app = clinician_app()
    app.switch_page("pages/leaderboard.py").run()
    metrics = shown_metrics(app)
    assert len(metrics) >= 10
    for metric in metrics:
        app.session_state["leaderboard_group"] = metric_group(metric)
        if metric_group(metric) == "other":
            app.session_state["leaderboard_family"] = metric_family(metric)
        app.session_state["focus_metric"] = metric
        app.run()
        assert not app.exception, app.exception
        assert not jargon_on(app), (metric, jargon_on(app))


def test_the_clinician_per_query_view_of_a_near_match_shows_no_jargon():
    app = clinician_app()
    app.switch_page("pages/per_query.py").run()
    app.text_input(key="pq_search").input("DEMO_00004").run()
    app.selectbox(key="pq_query").set_value("DEMO_00004").run()
    assert not app.exception, app.exception
    assert any("*Head of femur* is part of *Femur*" in m.value for m in app.markdown)
    assert len(app.get("graphviz_chart")) >= 1
    assert not jargon_on(app), jargon_on(app)


@pytest.mark.slow
def test_every_source_of_the_clinician_case_view_shows_no_jargon():
    app = clinician_app()
    app.switch_page("pages/case_view.py").run()
    # the concept baselines in the clinician's short words, which fit a 900-px page's select box
    assert app.selectbox(key="case_system").options[:2] == ["Shared or related concepts", "Shared concepts"]
    for source in app.selectbox(key="case_system").options:
        app.selectbox(key="case_system").select(source).run()
        assert not app.exception, app.exception
        assert not jargon_on(app), (source, jargon_on(app))


def test_the_clinician_concept_map_of_a_searched_path_shows_no_jargon():
    # The searches are set before the page is first drawn: AppTest formats a drawn concept box outside the script
    # run, where the audience cannot be read.
    app = clinician_app()
    app.session_state["kg_from_search"] = "Veins"
    app.session_state["kg_to_search"] = "Blood Vessels"
    app.switch_page("pages/knowledge_graph.py").run()
    assert not app.exception, app.exception
    assert app.title[0].value == "Concept map"
    assert any("Distance: 1 hop" in m.value for m in app.markdown)
    assert not jargon_on(app), jargon_on(app)


def test_the_clinician_progress_steps_show_no_jargon(monkeypatch):
    import dashboard.ui

    steps = []
    run = dashboard.ui.StepProgress.run

    def recorded(self, text, work):  # each step's text as its bar shows it, once the step has set it
        return run(self, text, lambda report: (steps.append(self.text), work(report))[1])

    monkeypatch.setattr(dashboard.ui.StepProgress, "run", recorded)
    app = clinician_app()
    app.switch_page("pages/leaderboard.py").run()
    app.multiselect(key="baselines").set_value(available_baselines(app.session_state["workspace"])).run()
    app.switch_page("pages/case_view.py").run()
    assert not app.exception, app.exception
    assert len(set(steps)) >= 5, steps
    assert not {step: forbidden_in(step) for step in steps if forbidden_in(step)}


@pytest.mark.slow
@needs(ROCOV2)
@pytest.mark.parametrize("page", CLINICIAN_PAGES)
def test_a_clinician_page_on_rocov2_shows_no_jargon(page):
    # ROCOv2 names 13 of its concepts nowhere and reads HPO and MeSH terms into its concept map.
    app = clinician_app()
    app.text_input(key="rocov2_folder").set_value(str(ROCOV2))
    app.button(key="load_rocov2").click().run()
    assert not app.exception, app.exception
    assert app.session_state["workspace"].label.startswith("ROCOv2")
    if page != "pages/data.py":
        app.switch_page(page).run()
    assert not app.exception, app.exception
    assert not jargon_on(app), jargon_on(app)


@pytest.mark.parametrize("page", ["pages/per_query.py", "pages/case_view.py", "pages/knowledge_graph.py"])
def test_a_concept_without_a_name_shows_no_id_to_a_clinician(page):
    app = clinician_app()
    workspace = app.session_state["workspace"]
    app.session_state["workspace"] = workspace.with_inputs(names={})
    app.switch_page(page).run()
    assert not app.exception, app.exception
    assert "unnamed concept" in " ".join(element_texts(app._tree))
    assert not jargon_on(app), jargon_on(app)
