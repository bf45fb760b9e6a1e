"""The report for a paper (``cbir-lens report``, the Leaderboard's download): its numbers are ``evaluate --json``'s to
the last shown digit, it loads nothing from anywhere, it escapes every name a user gave, and its command recreates it."""

from __future__ import annotations

import json
import re
import shlex
from html.parser import HTMLParser
from pathlib import Path

import pytest

from dashboard.sidebar import Settings
from evalcore.app.report import report_html, workspace_report
from evalcore.app.scores import shown_scores
from evalcore.app.workspace import file_digest, load_demo
from evalcore.cli import build_parser, main
from evalcore.cli.parser import program_name
from evalcore.evaluation.evaluator import Evaluator
from evalcore.io.tables import SCORE_DECIMALS
from evalcore.relevance.kg import KnowledgeGraph
from evalcore.relevance.measures import measure_spec
from evalcore.version import __version__
from tests.browser.test_browser import CHROMIUM, go, page, server  # noqa: F401 (fixtures of the real-browser test)
from tests.conftest import DEMO, ROOT

CELL = re.compile(r"^(\S+) \[(\S+), (\S+)\]$")


class Tables(HTMLParser):
    """Every table of a page: its attributes and its rows, each cell as (attributes, text)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[dict, list[list[tuple[dict, str]]]]] = []
        self.cell: list | None = None
        self.tags: dict[str, str] = {}  # every tag met -> its attribute names

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags[tag] = " ".join(sorted({*self.tags.get(tag, "").split(), *(name for name, _ in attrs)}))
        if tag == "table":
            self.tables.append((dict(attrs), []))
        elif tag == "tr" and self.tables:
            self.tables[-1][1].append([])
        elif tag in ("td", "th") and self.tables:
            self.cell = [dict(attrs), ""]
            self.tables[-1][1][-1].append(self.cell)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th"):
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell[1] += data

    def of_class(self, name: str) -> list[tuple[dict, list[list[tuple[dict, str]]]]]:
        return [table for table in self.tables if table[0].get("class") == name]


def tables_of(text: str) -> Tables:
    parser = Tables()
    parser.feed(text)
    return parser


def leaderboard_cells(text: str) -> dict[tuple[str, str], tuple[str, str, str]]:
    """(system, metric) -> the shown (mean, CI low, CI high) of every leaderboard cell."""
    cells = {}
    for _, rows in tables_of(text).of_class("leaderboard"):
        for row in rows:
            for attrs, content in row:
                if "data-metric" in attrs:
                    match = CELL.match(content.strip())
                    assert match, content
                    cells[(attrs["data-system"], attrs["data-metric"])] = match.groups()
    return cells


def shown(value: float | None) -> str:
    """A JSON number rounded as the report shows it."""
    return "—" if value is None else f"{value:.{SCORE_DECIMALS}f}"


DEMO_INPUTS = ["--concepts", str(DEMO / "concepts.csv"), "--kg", str(DEMO / "kg_edges.csv"), "--run",
               *(str(path) for path in sorted((DEMO / "runs").glob("*.trec"))), "--labels", str(DEMO / "labels.csv"),
               "--k", "5", "10", "30", "--alpha", "0.5", "--n", "1"]


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory) -> tuple[dict, str, list[str]]:
    """``evaluate --json`` and ``report`` on the same demo inputs: the JSON, the report's text and its argv."""
    folder = tmp_path_factory.mktemp("report")
    assert main(["evaluate", *DEMO_INPUTS, "--json", str(folder / "r.json")]) == 0
    argv = ["report", *DEMO_INPUTS, "--out", str(folder / "report.html")]
    assert main(argv) == 0
    return (json.loads((folder / "r.json").read_text()), (folder / "report.html").read_text(encoding="utf-8"), argv)


@pytest.mark.slow
def test_report_numbers_are_evaluate_jsons_to_the_last_shown_digit(demo_report):
    payload, text, _ = demo_report
    cells = leaderboard_cells(text)
    expected = {(system, metric): (shown(mean), *(shown(bound) for bound in payload["intervals"][system][metric]))
                for system, means in payload["systems"].items() for metric, mean in means.items()}
    assert len(expected) == 3 * 43 and cells == expected


@pytest.mark.slow
def test_report_loads_nothing_from_anywhere(demo_report):
    _, text, _ = demo_report
    assert "http://" not in text and "https://" not in text
    assert not re.search(r"\b(?:src|href|action|srcset)\s*=", text, re.IGNORECASE)
    assert "<script" not in text.lower() and "<link" not in text.lower() and "<iframe" not in text.lower()
    assert "default-src 'none'" in text and "<svg" in text  # figures inline, nothing else may load
    assert len(text.encode()) < 200_000


def test_report_holds_settings_inputs_version_and_the_command_that_recreates_it(demo_report):
    _, text, argv = demo_report
    tables = tables_of(text)
    settings = {row[0][1]: row[1][1] for _, rows in tables.of_class("settings") for row in rows}
    assert settings["relevance measure"] == "nn-iou(alpha=0.5,n=1)" and settings["cut-offs K"] == "5, 10, 30"
    assert settings["KG mode"] == "undirected" and settings["its parameters"] == "alpha = 0.5, n = 1"
    digests = {row[1][1]: row[2][1] for _, rows in tables.of_class("inputs") for row in rows[1:]}
    for path in [DEMO / "concepts.csv", DEMO / "labels.csv", *sorted((DEMO / "runs").glob("*.trec"))]:
        assert digests[str(path)] == file_digest(path.read_bytes())
    assert f"evalcore {__version__}" in text
    command = re.search(r'<pre class="command"><code>(.*?)</code></pre>', text, re.DOTALL).group(1)
    words = shlex.split(command.replace("&#x27;", "'").replace("&quot;", '"').replace("&amp;", "&"))
    assert build_parser().parse_args(words[len(program_name().split()):]) == build_parser().parse_args(argv)
    grids = {attrs["data-metric"] for attrs, _ in tables.of_class("significance")}
    assert grids == {"CUI@10", "nn-CUI@10"}


def test_the_curves_pass_through_the_leaderboard(demo_report):
    """At the report's alpha (and n), each run's curve is its leaderboard nn-CUI@10."""
    _, text, _ = demo_report
    cells = leaderboard_cells(text)
    for attrs, rows in tables_of(text).of_class("curve"):
        column = [cell[1] for cell in rows[0]].index("alpha = 0.5" if attrs["data-axis"] == "alpha" else "n = 1")
        for row in rows[1:]:
            assert row[column][1] == cells[(row[0][1], "nn-CUI@10")][0]


def test_hostile_names_are_escaped(tmp_path):
    (tmp_path / "gt.csv").write_text("ID,CUIs\nq,C0040405;C0042449\nx,C0040405;C0005847\ny,C0040405\nz,C0024485\n")
    (tmp_path / "kg.csv").write_text("child,parent\nC0042449,C0005847\n")
    (tmp_path / "a.trec").write_text("q Q0 x 1 3 <script>alert(1)</script>\nq Q0 y 2 2 <script>alert(1)</script>\n")
    hostile = tmp_path / '"><img src=x onerror=alert(2)>.csv'  # a CSV run is named by its file's stem
    hostile.write_text("query_id,image_id,rank,score\nq,z,1,3\nq,x,2,1\n")
    out = tmp_path / "r.html"
    assert main(["report", "--concepts", str(tmp_path / "gt.csv"), "--kg", str(tmp_path / "kg.csv"), "--run",
                 str(tmp_path / "a.trec"), str(hostile), "--k", "1", "2", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    tags = tables_of(text).tags
    assert "script" not in tags and "img" not in tags and not any(
        attribute.startswith("on") for names in tags.values() for attribute in names.split())
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "&lt;img src=x onerror=alert(2)&gt;" in text
    systems = {attrs["data-system"] for attrs, _ in
               (cell for _, rows in tables_of(text).of_class("leaderboard") for row in rows for cell in row)
               if "data-system" in attrs}
    assert systems == {"<script>alert(1)</script>", '"><img src=x onerror=alert(2)>'}


def test_report_never_writes_over_an_input(tmp_path):
    concepts = tmp_path / "gt.csv"
    concepts.write_bytes((DEMO / "concepts.csv").read_bytes())
    before = concepts.read_bytes()
    assert main(["report", "--concepts", str(concepts), "--run", str(DEMO / "runs" / "overlap-noisy.trec"),
                 "--out", str(concepts)]) == 2
    assert concepts.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["gt.csv"]


@pytest.mark.slow
@pytest.mark.parametrize("with_kg", [True, False])
def test_the_dashboards_report_is_recreated_by_its_command(tmp_path, monkeypatch, with_kg):
    """The Leaderboard's download (:func:`workspace_report` with the sidebar's settings) names the loaded files and
    a command that, run where those names lead, writes a report with the same leaderboard; without a KG it gives no
    KG setting, which report refuses without --kg."""
    ws = load_demo() if with_kg else load_demo().with_inputs(kg_files={})
    kg = KnowledgeGraph.from_edges(tuple(edges for _, edges in ws.kg_files.values()))
    evaluator = Evaluator(ws.concepts, kg, "undirected", ws.resolved_labels())
    nn_iou = measure_spec("nn-iou", alpha=0.5, n=1)
    settings = Settings(relevance=nn_iou, measure=nn_iou, kg_mode="undirected", ks=(5, 10, 30), gain="linear")
    scores = shown_scores(evaluator, [run for _, run in ws.runs.values()], settings.options(), settings.ks)
    report = workspace_report(ws, evaluator, scores.results, settings.options(), settings.kg_mode, settings.ks,
                              ["nn-CUI@5"])
    text = report_html(report)
    assert report.compared[0] == "nn-CUI@5" and {item.digest for item in report.inputs} >= {ws.digests["concepts"]}
    words = shlex.split(report.command)
    assert words[:2] == ["cbir-lens", "report"]
    words[words.index("--out") + 1] = str(tmp_path / "again.html")
    monkeypatch.chdir(ROOT / "data")  # the demo's files are named as the Data page loads them: demo/...
    assert main(words[1:]) == 0
    assert leaderboard_cells((tmp_path / "again.html").read_text(encoding="utf-8")) == leaderboard_cells(text)


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")
def test_the_leaderboard_offers_the_report_in_a_real_browser(request, tmp_path):
    """A click on the Leaderboard's button downloads the report of the demo, as the command line writes it."""
    tab = request.getfixturevalue("page")
    go(tab, "Leaderboard")
    with tab.expect_download() as download:
        tab.get_by_text("Report for the paper (HTML)").first.click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    text = saved.read_text(encoding="utf-8")
    assert saved.name == "cbir_lens_report.html" and "cbir-lens report --concepts demo/concepts.csv" in text
    assert len(leaderboard_cells(text)) == 3 * 43 and "http://" not in text and "https://" not in text


def test_a_report_of_judged_grades_lists_no_setting_of_concept_relevance(tmp_path):
    """Under --qrels no metric is graded by nn-IoU: the measure behind nn- metrics, the KG and its mode are left out
    of the settings (the twenty-sixth pass's hunt found them listed, "knowledge graph none" among them)."""
    qrels = tmp_path / "qrels.txt"
    assert main(["qrels", "--concepts", str(DEMO / "concepts.csv"), "--run", str(DEMO / "runs" / "overlap-noisy.trec"),
                 "--k", "5", "--out", str(qrels)]) == 0
    out = tmp_path / "report.html"
    assert main(["report", "--qrels", str(qrels), "--run", str(DEMO / "runs" / "overlap-noisy.trec"), "--k", "5",
                 "--out", str(out)]) == 0
    settings = out.read_text(encoding="utf-8").split("<h2>Measure settings</h2>")[1]
    assert "judged grades (qrels)" in settings
    assert "nn- metrics graded by" not in settings and "knowledge graph" not in settings and "KG mode" not in settings


def test_named_metrics_set_the_cut_offs_a_report_states_and_draws(tmp_path):
    """Was: with --metrics, the settings said the cut-offs of --k (not the metrics') and the curves were drawn at
    the largest of them (nn-CUI@20 beside CUI@10 and MAP@100); evaluate's JSON recorded --k's too. (--k beside them
    is now refused: tests/cli/test_cli_refusals.py.)"""
    inputs = ["--concepts", str(DEMO / "concepts.csv"), "--kg", str(DEMO / "kg_edges.csv"), "--run",
              str(DEMO / "runs" / "overlap-noisy.trec"), "--metrics", "CUI@10", "MAP@100"]
    assert main(["report", *inputs, "--out", str(tmp_path / "r.html")]) == 0
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (tmp_path / "r.html").read_text(encoding="utf-8")))
    assert "cut-offs K 10, 100 " in text and "Mean nn-CUI@10 over queries" in text and "nn-CUI@20" not in text
    without_kg = inputs[:2] + inputs[4:]  # evaluate refuses a graph no metric of its table reads
    assert main(["evaluate", *without_kg, "--json", str(tmp_path / "e.json")]) == 0
    assert json.loads((tmp_path / "e.json").read_text())["params"]["k"] == [10, 100]
    assert main(["evaluate", *inputs[:-3], "--k", "5", "20", "--json", str(tmp_path / "e.json")]) == 0
    assert json.loads((tmp_path / "e.json").read_text())["params"]["k"] == [5, 20]  # the standard report's


def test_the_curves_pass_through_the_leaderboards_number_under_the_reports_own_settings(tmp_path):
    """Was: the curves were drawn under the default options whatever the report's, so under --empty-queries zero
    the curve at the report's own alpha and n said 0.3167 where its leaderboard said 0.2850 (hunt 27)."""
    lines = (DEMO / "concepts.csv").read_text().splitlines()
    # 200 images with a concept no other image has: queries without a relevant item, which the option scores 0
    lines[1:201] = [f"{line.split(',')[0]},C9{number:06d}" for number, line in enumerate(lines[1:201], start=1)]
    (tmp_path / "concepts.csv").write_text("\n".join(lines) + "\n")
    assert main(["report", "--concepts", str(tmp_path / "concepts.csv"), "--kg", str(DEMO / "kg_edges.csv"), "--run",
                 str(DEMO / "runs" / "visual-confused.trec"), "--empty-queries", "zero", "--query-image", "keep",
                 "--out", str(tmp_path / "r.html")]) == 0
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    [leaderboard] = re.findall(r'data-metric="nn-CUI@10"[^>]*><span class="mean">([0-9.]+)<', text)
    curves = re.findall(r'<table class="curve" data-axis="(alpha|n)"><thead><tr><th>system</th>(.*?)</tr></thead>'
                        r'<tbody><tr>(.*?)</tr>', text)
    assert len(curves) == 2
    for axis, head, row in curves:
        columns = [float(value) for value in re.findall(r"<th>[a-z]+ = ([0-9.]+)</th>", head)]
        own = columns.index(0.5 if axis == "alpha" else 1.0)
        assert re.findall(r"<td>(.*?)</td>", row)[1 + own] == leaderboard


def sections(text: str) -> dict[str, str]:
    """The report's sections by their heading (the text from one ``<h2>`` to the next)."""
    parts = text.split("\n<h2>")
    return {part.split("</h2>", 1)[0]: part for part in parts[1:]}


def without(text: str, *headings: str) -> str:
    """The report's text less the sections of ``headings``."""
    return "\n<h2>".join(part for part in text.split("\n<h2>") if not part.startswith(tuple(f"{h}</h2>" for h in headings)))


NEW_SECTIONS = ("Effect sizes and ANOVA", "Precision-recall")


def test_the_effect_sizes_come_after_the_significance_tests_and_are_the_apis(demo_report):
    """Issue 67: per compared metric, every pair's mean difference and d_z with their intervals, the ANOVA and
    Tukey's HSD, as ``compare --effect-sizes --anova`` computes them (evalcore.api)."""
    import evalcore
    from evalcore import Relevance, Scoring
    from evalcore.relevance.measures import nn_iou_measure

    _, text, _ = demo_report
    assert list(sections(text)) == ["Leaderboard", "Significance", "Effect sizes and ANOVA", "Ablation",
                                    "Precision-recall", "Measure settings", "Inputs", "Recreate"]
    tables = tables_of(text)
    assert {attrs["data-metric"] for attrs, _ in tables.of_class("effects")} == {"CUI@10", "nn-CUI@10"}
    result = evalcore.evaluate(DEMO / "concepts.csv", sorted((DEMO / "runs").glob("*.trec")),
                               Scoring(["nn-CUI@10"]), Relevance(nn_iou_measure(0.5, 1)), kg=DEMO / "kg_edges.csv")
    sizes = evalcore.api.effect_sizes(result, "nn-CUI@10")
    [(_, rows)] = [table for table in tables.of_class("effects") if table[0]["data-metric"] == "nn-CUI@10"]
    assert [[text for _, text in row] for row in rows[1:]] == [
        [pair.system_a, pair.system_b, f"{pair.queries:,}", f"{pair.mean_difference:+.4f}",
         f"[{pair.difference_low:+.4f}, {pair.difference_high:+.4f}]", f"{pair.d_z:+.2f}",
         f"[{pair.d_z_low:+.2f}, {pair.d_z_high:+.2f}]"] for pair in sizes.itertuples()]
    anova = evalcore.api.repeated_measures_anova(result, "nn-CUI@10")
    [(_, rows)] = [table for table in tables.of_class("anova") if table[0]["data-metric"] == "nn-CUI@10"]
    summary = next(anova.summary.itertuples())
    assert [text for _, text in rows[1]][:5] == ["3", "2,000", f"{summary.f:.2f}", "2", "3,998"]
    [(_, rows)] = [table for table in tables.of_class("tukey") if table[0]["data-metric"] == "nn-CUI@10"]
    assert [row[2][1] for row in rows[1:]] == [f"{d:+.4f}" for d in anova.tukey.mean_difference]


def test_the_precision_recall_curves_are_the_means_of_the_iprec_metrics(demo_report):
    """Issue 67: the 11-point curve of each run, drawn inline, its values the means of nn-iprec_at_recall_L that
    ``evaluate`` gives (nn-IoU, the paper's measure, relevant from the threshold 0.5)."""
    payload, text, _ = demo_report
    import evalcore
    from evalcore import Relevance, Scoring
    from evalcore.app.scores import interpolated_precision_names
    from evalcore.relevance.measures import nn_iou_measure

    names = interpolated_precision_names("nn-iou")
    means = evalcore.evaluate(DEMO / "concepts.csv", sorted((DEMO / "runs").glob("*.trec")), Scoring(list(names)),
                              Relevance(nn_iou_measure(0.5, 1)), kg=DEMO / "kg_edges.csv").means()
    [(attrs, rows)] = tables_of(text).of_class("precision-recall")
    assert attrs["data-relevance"] == "nn-iou"
    assert [text for _, text in rows[0]] == ["system", *(f"recall = {level / 10:g}" for level in range(11))]
    assert {row[0][1]: [text for _, text in row[1:]] for row in rows[1:]} == {
        system: [shown(means[system][name]) for name in names] for system in payload["systems"]}
    section = sections(text)["Precision-recall"]
    assert section.count("<svg") == 1 and section.count("<polyline") == 3 and "http" not in section


@pytest.mark.slow
def test_the_new_sections_leave_every_other_section_of_the_demos_report_as_it_was():
    """The report of the demo without its effect sizes and curves is, byte for byte, the report as it was written
    before they were added; with them, it is that text with the two sections inserted."""
    from dataclasses import replace

    from evalcore.app.scores import precision_recall_curves

    ws = load_demo()
    kg = KnowledgeGraph.from_edges(tuple(edges for _, edges in ws.kg_files.values()))
    evaluator = Evaluator(ws.concepts, kg, "undirected", ws.resolved_labels())
    nn_iou = measure_spec("nn-iou", alpha=0.5, n=1)
    settings = Settings(relevance=nn_iou, measure=nn_iou, kg_mode="undirected", ks=(5, 10, 30), gain="linear")
    runs = [run for _, run in ws.runs.values()]
    scores = shown_scores(evaluator, runs, settings.options(), settings.ks)
    curves = precision_recall_curves(evaluator, runs, settings.options(), "nn-iou")
    report = workspace_report(ws, evaluator, scores.results, settings.options(), settings.kg_mode, settings.ks,
                              ["nn-CUI@10"], curves)
    text = report_html(report)
    before = report_html(replace(report, effects=(), precision_recall=None))
    assert report.effects and "Effect sizes" not in before and "Precision-recall" not in before
    assert without(text, *NEW_SECTIONS) == before
    old = sections(before)
    new = sections(text)
    assert list(new) == [*list(old)[:2], NEW_SECTIONS[0], list(old)[2], NEW_SECTIONS[1], *list(old)[3:]]
    assert all(new[heading] == old[heading] for heading in old)
