"""The command line's answers on the demo and ROCOv2 test are those recorded in tests/pinned/ (tests/pinned.py):
a change of the code's structure changes no answer. After a deliberate change of an answer, record anew with
``python -m tests.pinned`` and say in the commit which answers changed and why."""

from __future__ import annotations

import json

import pytest

from tests import pinned
from tests.conftest import OPEN_KG, ROCOV2, needs


def _compare(which: str, cases: dict[str, list[str]], folder) -> None:
    expected = json.loads((pinned.PINNED / f"{which}.json").read_text(encoding="utf-8"))
    assert set(cases) == set(expected)
    found = {name: pinned.run_case(name, argv, folder) for name, argv in cases.items()}
    problems = pinned.differences(expected, found)
    assert not problems, "\n".join(problems[:20])


@pytest.mark.slow
def test_demo_answers_are_the_pinned_ones(tmp_path):
    _compare("demo", pinned.demo_cases(tmp_path), tmp_path)


@pytest.mark.slow
@needs(ROCOV2 / "test_captions.csv")
@needs(OPEN_KG)
def test_rocov2_test_answers_are_the_pinned_ones(tmp_path):
    _compare("rocov2", pinned.rocov2_cases(tmp_path), tmp_path)


def test_a_changed_answer_is_seen():
    pinned_values = {"a.json": {"systems": {"s": {"CUI@10": 0.5}}, "counts": {"q": 3}}}
    assert pinned.differences(pinned_values, pinned_values) == []
    assert pinned.differences(pinned_values, {"a.json": {"systems": {"s": {"CUI@10": 0.5 + 1e-14}},
                                                         "counts": {"q": 3}}}) == []
    for changed in ({"systems": {"s": {"CUI@10": 0.5 + 1e-11}}, "counts": {"q": 3}},
                    {"systems": {"s": {"CUI@10": 0.5}}, "counts": {"q": 4}},
                    {"systems": {"s": {"CUI@10": 0.5, "CUI@5": 0.1}}, "counts": {"q": 3}}):
        assert pinned.differences(pinned_values, {"a.json": changed})


@pytest.mark.parametrize("which", ["demo", "rocov2"])
def test_pinned_files_hold_every_output(which):
    outputs = json.loads((pinned.PINNED / f"{which}.json").read_text(encoding="utf-8"))
    assert all(outputs.values())  # each case wrote at least one file
    assert any(f["kind"] == "per_query" for files in outputs.values() for f in files.values())
