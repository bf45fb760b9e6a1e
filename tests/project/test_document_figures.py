"""Figures and option lists that docs/ states, checked against the code that defines them: each test reads the
document's own words, so that a change on either side without the other fails here. (They were the README's until
issue 66 moved them to docs/CLI.md, docs/DASHBOARD.md and docs/DESIGN.md; docs/LIMITS.md's table is checked by
tests/project/test_documents.py.)"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from dashboard.caching import SERVER_KEPT_BYTES
from evalcore.app import store, workspace
from evalcore.cli import main
from evalcore.cli.parser import build_parser
from evalcore.engine import executors
from evalcore.metrics.registry import parse_metric
from evalcore.readers import files, runs
from tests.conftest import DEMO, ROOT

CLI = (ROOT / "docs" / "CLI.md").read_text(encoding="utf-8")
DASHBOARD = (ROOT / "docs" / "DASHBOARD.md").read_text(encoding="utf-8")
DESIGN = (ROOT / "docs" / "DESIGN.md").read_text(encoding="utf-8")
SCALE = (ROOT / "docs" / "SCALE.md").read_text(encoding="utf-8")
SCALE_KG = (ROOT / "docs" / "SCALE_KG.md").read_text(encoding="utf-8")
UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def flat(text: str) -> str:
    """The text with every run of white space one space, so that a sentence is found wherever its lines break."""
    return re.sub(r"\s+", " ", text)


def one_match(pattern: str, text: str) -> re.Match:
    found = list(re.finditer(pattern, flat(text)))
    assert len(found) == 1, f"{pattern!r} matches {len(found)} times"
    return found[0]


def stated_bytes(pattern: str, text: str) -> int:
    """The size the one match of ``pattern`` states: its groups ``number`` and ``unit`` (``512 MiB``, ``2 GiB``)."""
    match = one_match(pattern, text)
    return int(match["number"]) * UNITS[match["unit"]]


def command_options() -> dict[str, set[str]]:
    """Every command of ``python -m evalcore`` with the option strings its parser takes."""
    parser = build_parser()
    commands = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    return {name: {option for action in command._actions for option in action.option_strings}
            for name, command in commands.choices.items()}


def named_commands(sentence: str) -> set[str]:
    return set(re.findall(r"`(\w+)`", sentence))


# --- CAG@K's largest values ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("document, pattern", [
    ("DASHBOARD", r"CAG@K, a sum of discounted gains whose largest value[^:]*: `MetricSpec\.largest`"),
    ("DESIGN", r"CAG@K is not bounded by 1: at best \(every item fully relevant\) it is [^(]*"
               r"\(`MetricSpec\.largest`\)"),
])
def test_the_documents_state_the_largest_cag_values_metric_spec_gives(document, pattern):
    sentence = one_match(pattern, DOCUMENTS[document]).group(0)
    stated = {int(k): value for value, k in re.findall(r"(\d+\.\d{4}) at K = (\d+)", sentence)}
    assert sorted(stated) == [5, 10, 30]
    assert stated == {k: f"{parse_metric(f'CAG@{k}').largest:.4f}" for k in stated}
    assert stated == {5: "0.7419", 10: "2.0013", 30: "6.6193"}  # the documents' figures, should they lose them


# --- sizes the documents state beside the constants that set them ---------------------------------------------------

SIZE = r"(?P<number>\d+) (?P<unit>[KMG]iB)"
STATED_SIZES = [
    ("CLI", rf"up to {SIZE} \(`DEFAULT_MAX_RUN_BYTES`\)", files.DEFAULT_MAX_RUN_BYTES),
    ("CLI", rf"\(`DEFAULT_MAX_RUN_BYTES`\), every other input {SIZE}\.", files.DEFAULT_MAX_FILE_BYTES),
    ("CLI", rf"A TREC run given as a path is read {SIZE} at a time", runs.RUN_PIECE_BYTES),
    ("CLI", rf"may hold at most {SIZE} \(`MAX_LINE_BYTES`", files.MAX_LINE_BYTES),
    ("DASHBOARD", rf"\(`MAX_SESSION_IMAGE_BYTES`, {SIZE}\)", workspace.MAX_SESSION_IMAGE_BYTES),
    ("DASHBOARD", rf"\(`MAX_SERVER_IMAGE_BYTES`, {SIZE}\)", workspace.MAX_SERVER_IMAGE_BYTES),
    ("DASHBOARD", rf"an image over {SIZE} \(`MAX_IMAGE_BYTES`\)", workspace.MAX_IMAGE_BYTES),
    ("DASHBOARD", rf"expands to more than {SIZE} in all \(`MAX_ZIP_TOTAL`\)", workspace.MAX_ZIP_TOTAL),
    ("DASHBOARD", rf"bound it: {SIZE} a workspace", store.DEFAULT_MAX_WORKSPACE_BYTES),
    ("DASHBOARD", rf"a workspace, {SIZE} in all by default", store.DEFAULT_MAX_STORE_BYTES),
    ("DASHBOARD", rf"results bounded at {SIZE};", SERVER_KEPT_BYTES),
    ("DASHBOARD", rf"with its link \(at most {SIZE}\)", store.DEFAULT_MAX_PREPARED_BYTES),
    ("SCALE_KG", rf"read in line-aligned pieces of {SIZE};", files.READ_PIECE_BYTES),
    ("SCALE_KG", rf"byte budget for this format: {SIZE},", files.DEFAULT_MAX_MRREL_BYTES),
    ("SCALE", rf"one under {SIZE} \(`MIN_MEMORY_PER_WORKER`", executors.MIN_MEMORY_PER_WORKER),
]
DOCUMENTS = {"CLI": CLI, "DASHBOARD": DASHBOARD, "DESIGN": DESIGN, "SCALE": SCALE, "SCALE_KG": SCALE_KG}


@pytest.mark.parametrize("document, pattern, constant", STATED_SIZES,
                         ids=["DEFAULT_MAX_RUN_BYTES", "DEFAULT_MAX_FILE_BYTES", "RUN_PIECE_BYTES", "MAX_LINE_BYTES",
                              "MAX_SESSION_IMAGE_BYTES", "MAX_SERVER_IMAGE_BYTES", "MAX_IMAGE_BYTES", "MAX_ZIP_TOTAL",
                              "DEFAULT_MAX_WORKSPACE_BYTES", "DEFAULT_MAX_STORE_BYTES", "SERVER_KEPT_BYTES",
                              "DEFAULT_MAX_PREPARED_BYTES", "READ_PIECE_BYTES",
                              "DEFAULT_MAX_MRREL_BYTES", "MIN_MEMORY_PER_WORKER"])
def test_a_stated_size_is_the_constant_that_sets_it(document, pattern, constant):
    assert stated_bytes(pattern, DOCUMENTS[document]) == constant


def test_the_dashboard_page_states_the_zip_member_limit_and_the_workspace_expiry():
    members = one_match(r"more than (?P<count>[\d,]+) members \(`MAX_ZIP_MEMBERS`\)", DASHBOARD)
    assert int(members["count"].replace(",", "")) == workspace.MAX_ZIP_MEMBERS
    assert int(one_match(r"It is kept (\d+) days", DASHBOARD).group(1)) == store.DEFAULT_EXPIRY_DAYS
    pixels = one_match(r"at most (?P<count>\d+) M pixels \(`MAX_IMAGE_PIXELS`", DASHBOARD)
    assert int(pixels["count"]) * 1_000_000 == workspace.MAX_IMAGE_PIXELS


def test_the_dashboard_page_names_the_store_folders_in_the_order_the_code_tries_them(tmp_path: Path):
    sentence = one_match(r"else `CBIR_LENS_STORE`, else `\$XDG_DATA_HOME/cbir-lens/store` \(an absolute "
                         r"`XDG_DATA_HOME` only\), else `~/\.local/share/cbir-lens/store`", DASHBOARD)
    assert sentence
    assert store.default_store_directory({"CBIR_LENS_STORE": str(tmp_path), "XDG_DATA_HOME": "/x"}) == tmp_path
    assert store.default_store_directory({"XDG_DATA_HOME": "/x"}) == Path("/x/cbir-lens/store")
    assert store.default_store_directory({"XDG_DATA_HOME": "x"}) == Path.home() / ".local/share/cbir-lens/store"


# --- which commands take which options ------------------------------------------------------------------------------

SCALE_OUT = {"--workers", "--scheduler", "--memory-per-worker"}


@pytest.mark.subprocess
def test_the_cli_page_names_the_commands_that_scale_out():
    sentence = one_match(r"\*\*Scale-out\*\* \(docs/SCALE\.md\): [^:]*? take `--workers N`", CLI).group(0)
    options = command_options()
    named = named_commands(sentence.split("):", 1)[1])
    assert named == {name for name, taken in options.items() if SCALE_OUT <= taken}
    # extract's --workers is its own (docs/CLI.md: "here and `extract --workers`"), without a scheduler
    assert {name for name, taken in options.items() if taken & SCALE_OUT} == named | {"extract"}
    assert "`extract --workers`" in flat(CLI)


def test_the_cli_page_says_relevance_takes_the_backend_options_but_no_scale_out_option():
    sentence = one_match(r"`relevance` scores a list of given pairs, not a pass over the pool, and takes no "
                         r"scale-out options \(([^)]*)\); its `--backend` and `--device` are only checked", CLI)
    relevance = command_options()["relevance"]
    assert set(re.findall(r"`(--[\w-]+)`", sentence.group(1))) == SCALE_OUT
    assert not relevance & SCALE_OUT
    assert {"--backend", "--device"} <= relevance


def test_the_cli_page_names_the_commands_that_take_backend_jax():
    sentence = one_match(r"`--backend jax` \(on ([^;]*);", CLI).group(1)
    assert named_commands(sentence) == {name for name, taken in command_options().items() if "--backend" in taken}
    assert all("--device" in taken for taken in command_options().values() if "--backend" in taken)


# --- the shape of evaluate --json -----------------------------------------------------------------------------------

def test_the_cli_page_lists_the_keys_evaluate_json_has(tmp_path: Path):
    shape = one_match(r"`evaluate` writes `(\{\"systems\".*?\})`: means", CLI).group(1)
    stated = re.findall(r"(?:^\{|\}, |\.\.\., )\"(\w+)\": ", shape)
    out = tmp_path / "e.json"
    assert main(["evaluate", "--concepts", str(DEMO / "concepts.csv"), "--run", str(DEMO / "runs" / "overlap-noisy.trec"),
                 "--metrics", "CUI@10", "--json", str(out)]) == 0
    written = json.loads(out.read_text(encoding="utf-8"))
    assert stated == list(written)
    assert f'"backend": "{written["backend"]}"' in shape
