"""0.1's keyword form of ``evalcore.evaluate`` works for one release, warning with the new spelling."""
from __future__ import annotations

import warnings

import pytest

import evalcore
from evalcore import Relevance, Scoring, Statistics
from evalcore.errors import ParameterError
from evalcore.relevance.measures import parse_measure

CONCEPTS = {"q": {"C0040405", "C0042449"}, "x": {"C0040405", "C0005847"}, "y": {"C0040405"}, "z": {"C0024485"}}
RUNS = {"kg-aware": {"q": ["x", "y", "z"]}, "literal": {"q": ["y", "x", "z"]}}
KG = [("C0042449", "C0005847")]


def test_old_keywords_give_the_new_forms_numbers_and_say_how_to_write_them():
    with pytest.warns(DeprecationWarning) as caught:
        old = evalcore.evaluate(CONCEPTS, RUNS, kg=KG, alpha=0.3, n=1, k=(1, 2), bootstrap_samples=200,
                                measure="dice")
    new = evalcore.evaluate(CONCEPTS, RUNS, Relevance.of(alpha=0.3, n=1, measure=parse_measure("dice")),
                            Scoring(k=(1, 2)), Statistics(bootstrap_samples=200), kg=KG)
    assert old.table().equals(new.table())
    message = str(caught[0].message)
    assert message.startswith("evaluate(alpha=..., n=..., k=..., bootstrap_samples=..., measure=...) is 0.1's")
    assert "Relevance.of(alpha=0.3, n=1, measure='dice'), Scoring(k=(1, 2)), Statistics(bootstrap_samples=200)" \
        in message
    assert caught[0].filename == __file__


def test_the_new_form_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evalcore.evaluate(CONCEPTS, RUNS, Scoring(["CUI@1"]), kg=KG)


def test_an_old_keyword_beside_its_option_object_is_refused_and_an_unknown_one_is_pythons_error():
    with pytest.warns(DeprecationWarning), pytest.raises(ParameterError, match="two Scoring objects"):
        evalcore.evaluate(CONCEPTS, RUNS, Scoring(["CUI@1"]), k=(5,))
    with pytest.raises(TypeError, match="unexpected keyword argument 'alhpa'"):
        evalcore.evaluate(CONCEPTS, RUNS, alhpa=0.3)


def test_kg_sources_filters_the_kg_as_before(tmp_path):
    edges = tmp_path / "kg.csv"
    edges.write_text("child,parent,source\nC0042449,C0005847,MSH\nC0024485,C0005847,SNOMEDCT_US\n")
    with pytest.warns(DeprecationWarning, match=r"kg=as_knowledge_graph\(kg, \['SNOMEDCT_US'\]\)"):
        without = evalcore.evaluate(CONCEPTS, RUNS, kg=edges, kg_sources=["SNOMEDCT_US"], metrics=["nn-CUI@1"])
    with pytest.warns(DeprecationWarning):
        kept = evalcore.evaluate(CONCEPTS, RUNS, kg=edges, kg_sources=["MSH"], metrics=["nn-CUI@1"])
    assert without.means()["kg-aware"]["nn-CUI@1"] < kept.means()["kg-aware"]["nn-CUI@1"] == 1.0
