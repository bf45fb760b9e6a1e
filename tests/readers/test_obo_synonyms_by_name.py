"""Issue 69, recall: an OBO term with no UMLS cross-reference is mapped to a concept by its names, as a MeSH
descriptor is (its name equal to a concept's name, else ignoring case, else one EXACT synonym equal to the name of
exactly one concept); RELATED synonyms are never names. Terms written by hand."""

from __future__ import annotations

from evalcore.readers import read_synonyms

NAMES = {"C1261192": "Ankle region", "C0003086": "Ankle", "C0456973": "Hilar lymphadenopathy"}


def test_a_term_of_no_cui_is_mapped_by_an_exact_synonym() -> None:
    obo = (b'[Term]\nid: UBERON:1\nname: tarsal region\nsynonym: "ankle region" EXACT []\n'
           b'synonym: "tarsus" RELATED []\n')
    assert read_synonyms(obo, "u.obo", names=NAMES) == {"C1261192": ("tarsal region", "ankle region")}


def test_a_term_of_no_cui_is_mapped_by_its_name_ignoring_case() -> None:
    obo = b'[Term]\nid: HP:1\nname: hilar lymphadenopathy\nsynonym: "Hilar adenopathy" EXACT []\n'
    assert read_synonyms(obo, "hp.obo", names=NAMES) == {"C0456973": ("hilar lymphadenopathy", "Hilar adenopathy")}


def test_no_mapping_without_names_or_a_name_that_matches() -> None:
    obo = b'[Term]\nid: UBERON:2\nname: pes\nsynonym: "foot" EXACT []\n'
    assert read_synonyms(obo, "u.obo", names=NAMES) == {}
    assert read_synonyms(b'[Term]\nid: UBERON:3\nname: Ankle\n', "u.obo") == {}


def test_a_term_of_no_cui_is_mapped_past_snomeds_structure_words() -> None:
    obo = b'[Term]\nid: UBERON:4\nname: middle nasal concha\nsynonym: "middle nasal turbinate" EXACT []\n'
    names = {"C0225435": "Middle nasal turbinate structure"}
    assert read_synonyms(obo, "u.obo", names=names) == {"C0225435": ("middle nasal concha", "middle nasal turbinate")}
