"""Concept sets found in captions as a workspace holds them (evalcore.extraction.caption_concepts, workspace.caption_concepts and
with_extracted_concepts): hand-worked cases, invariants on seeded random captions, and agreement with a plain
recount."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from evalcore.app.workspace import (
    Workspace,
    caption_concepts,
    extraction_names,
    load_demo,
    with_concepts,
    with_extracted_concepts,
)
from evalcore.cli import main
from evalcore.data import ConceptSets, KGEdges
from evalcore.errors import CBIRLensError, InputError
from evalcore.extraction.caption_concepts import caption_pieces, concept_words, find_caption_concepts
from evalcore.extraction.evidence import evidence_rows
from evalcore.extraction.extractor import PROGRESS_BLOCK, Mention, coverage, extract

NAMES = {"C0040405": "X-Ray Computed Tomography", "C0019080": "Hemorrhage", "C0006104": "Brain",
         "C0032227": "Pleural effusion", "C0032326": "Pneumothorax", "C0024109": "Lung"}
CAPTIONS = {"a": "CT of the brain without haemorrhage.", "b": "No pneumothorax, no pleural effusion.",
            "c": "CT shows a large hemorrhage and pleural effusions.", "d": "Normal study."}


def test_hand_worked_collection():
    found = find_caption_concepts(CAPTIONS, NAMES)
    assert [sorted(s) for s in found.concepts.sets] == [["C0006104", "C0040405"], [],
                                                        ["C0019080", "C0032227", "C0040405"], []]
    pieces, words = found.evidence("a")
    assert [(p.text, p.counted, p.negated) for p in pieces] == [
        ("CT", ("C0040405",), ()), (" of the ", (), ()), ("brain", ("C0006104",), ()), (" without ", (), ()),
        ("haemorrhage", (), ("C0019080",)), (".", (), ())]
    assert words == {"C0040405": (("CT", "kept", False),), "C0006104": (("brain", "kept", False),),
                     "C0019080": (("haemorrhage", "negated", False),)}
    # "pleural effusion" is one mention (longest match), "pleural effusions" matched through its plural.
    assert found.evidence("c")[1]["C0032227"] == (("pleural effusions", "kept", False),)
    assert found.evidence("unknown") == ([], {})


def test_coverage_hand_worked():
    found = find_caption_concepts(CAPTIONS, NAMES)
    report = coverage(found.concepts, top=2)
    assert (report.images, report.without_concept, report.share_without) == (4, ("b", "d"), 0.5)
    assert report.examples(CAPTIONS, 1) == (("b", "No pneumothorax, no pleural effusion."),)
    assert report.most_frequent == (("C0040405", 2), ("C0006104", 1))  # ties by ID
    assert (report.distinct_concepts, report.occurrences) == (4, 5)


def test_pieces_of_overlapping_mentions_cover_each_stretch():
    # Two layers of a dictionary may match overlapping words: "left wrist" (a name) and "wrist" (a region tag).
    mentions = [Mention("C1", 0, 10, "left wrist", False, "name"), Mention("C2", 5, 10, "wrist", False, "abbreviation"),
                Mention("C3", 5, 10, "wrist", True, "name")]
    pieces = caption_pieces("left wrist X-ray", mentions)
    assert [(p.text, p.counted, p.negated) for p in pieces] == [
        ("left ", ("C1",), ()), ("wrist", ("C1", "C2"), ("C3",)), (" X-ray", (), ())]
    assert concept_words(mentions, ["kept", "kept", "negated"]) == {
        "C1": (("left wrist", "kept", False),), "C2": (("wrist", "kept", False),), "C3": (("wrist", "negated", False),)}


def test_each_caption_word_says_how_it_counted():
    """Issue 36, eighth pass (screenshot review): the words behind a concept carry their evidence status, so the
    Per-query and Case view say why words did not count (the patient's history, only considered, ...)."""
    names = {"C0040405": "X-Ray Computed Tomography", "C0003962": "Ascites", "C0019080": "Hemorrhage",
             "C0032326": "Pneumothorax"}
    found = find_caption_concepts({"a": "CT of a man who presented with ascites. No hemorrhage. Follow-up for "
                                        "pneumothorax is recommended. Hemorrhage (arrow)."}, names)
    _, words = found.evidence("a")
    assert {concept: [(word.text, word.status) for word in said] for concept, said in words.items()} == {
        "C0040405": [("CT", "kept")], "C0003962": [("ascites", "history")],
        "C0019080": [("hemorrhage", "negated"), ("Hemorrhage", "kept")], "C0032326": [("pneumothorax", "hypothetical")]}
    assert [word.negated for word in words["C0019080"]] == [True, False]
    # ... as the evidence rows say of the same mentions
    assert {(row.words, row.status) for row in evidence_rows(found)} == {
        (word.text, word.status) for said in words.values() for word in said}


def test_an_assumed_standard_view_is_marked_as_not_said():
    names = {"C1306645": "Plain x-ray", "C0000726": "Abdomen", "C1999039": "Anterior-Posterior"}
    found = find_caption_concepts({"a": "Abdominal X-ray", "b": "Lateral abdominal X-ray"}, names)
    assert [sorted(s) for s in found.concepts.sets] == [["C0000726", "C1306645", "C1999039"], ["C0000726", "C1306645"]]
    words = found.evidence("a")[1]
    assert words["C1999039"] == (("Abdominal", "kept", True),) and words["C0000726"] == (("Abdominal", "kept", False),)
    assert "C1999039" not in found.evidence("b")[1]


def test_caption_words_are_listed_once_whatever_their_case():
    """Issue 33: "pneumothorax" and "Pneumothorax" were listed as two words of one concept; the first spelling stays,
    and a negated mention stays apart from an affirmed one (it says something else)."""
    found = find_caption_concepts({"a": "Pneumothorax on the left, pneumothorax on the right. No PNEUMOTHORAX after "
                                        "drainage; no pneumothorax now."}, NAMES)
    assert found.evidence("a")[1] == {"C0032326": (("Pneumothorax", "kept", False), ("PNEUMOTHORAX", "negated", False))}


def random_captions(seed: int, count: int = 80) -> dict[str, str]:
    """Captions of name words, their plurals, abbreviations, negation cues and filler, in any case, seeded."""
    rng = random.Random(seed)
    words = ["CT", "MRI", "brain", "lung", "lungs", "hemorrhage", "pleural", "effusion", "effusions", "no",
             "without", "shows", "pneumothorax", "of", "the", "and", ",", ".", "X-ray", "large", "ruled out"]

    def written(word: str) -> str:
        return rng.choice([word, word, word.capitalize(), word.upper()])

    return {f"img{i}": " ".join(written(rng.choice(words)) for _ in range(rng.randint(0, 14))) for i in range(count)}


@pytest.mark.parametrize("seed", range(5))
def test_kept_sets_agree_with_the_mentions_found_again(seed):
    captions = random_captions(seed)
    names = {**NAMES, "C0024485": "Magnetic Resonance Imaging"}
    found = find_caption_concepts(captions, names)
    dictionary = found.dictionary
    for image_id, caption in captions.items():
        assert found.concepts[image_id] == extract(caption, dictionary)
        pieces, words = found.evidence(image_id)
        assert "".join(p.text for p in pieces) == caption
        counted = {c for p in pieces for c in p.counted}
        assert counted == found.concepts[image_id]  # every extracted concept is shown, nothing else counted
        assert {c for c, found_words in words.items() if any(not word.negated for word in found_words)} == counted
        assert set(words) <= set(names)
        # Each word once whatever its case, in the spelling of its first mention.
        again = found.mentions_of(image_id)
        for concept, found_words in words.items():
            keys = [(w.text.casefold(), w.negated, w.assumed) for w in found_words]
            firsts = {}
            for m in again:
                if m.concept == concept:
                    firsts.setdefault((m.text.casefold(), m.negated, m.source == "assumed"), m.text)
            assert keys == list(firsts) and [w.text for w in found_words] == list(firsts.values())
    # Deterministic: the same input gives the same sets and digest.
    again = find_caption_concepts(dict(captions), dict(names))
    assert again.concepts == found.concepts and again.digest == found.digest


@pytest.mark.parametrize("seed", range(3))
def test_coverage_agrees_with_a_plain_recount(seed):
    rng = random.Random(seed)
    ids = tuple(f"i{k}" for k in range(50))
    sets = tuple(frozenset(rng.sample([f"C{j:07d}" for j in range(8)], rng.randint(0, 3))) for _ in ids)
    report = coverage(ConceptSets(ids, sets), top=5)
    counts = Counter()
    for concept_set in sets:
        counts.update(concept_set)
    empty = [i for i, s in zip(ids, sets) if len(s) == 0]
    assert report.without_concept == tuple(empty)
    assert report.examples({i: f"caption {i}" for i in ids}, 3) == tuple((i, f"caption {i}") for i in empty[:3])
    assert report.occurrences == sum(len(s) for s in sets) and report.distinct_concepts == len(counts)
    expected = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:5]
    assert list(report.most_frequent) == expected


def test_extraction_names_take_the_kg_names_as_more_names():
    ws = Workspace(names={"C0000001": "Vein"}, kg_files={"kg.csv": ("d", KGEdges((), {
        "C0000001": "Veins", "C0000002": "Artery", "UBERON:1": "vessel"}))})
    assert extraction_names(ws) == ({"C0000001": "Vein", "C0000002": "Artery", "UBERON:1": "vessel"},
                                    {"C0000001": ["Veins"]})


@pytest.mark.slow
def test_with_extracted_concepts_on_the_demo_keeps_the_rest_and_the_caller_s_workspace():
    demo = load_demo()
    before = dict(demo.digests)
    found = caption_concepts(demo)
    new = with_extracted_concepts(demo, found, "loaded captions")
    assert demo.digests == before and demo.extraction is None  # the caller's workspace is unchanged
    assert new.extraction is found and new.concepts is found.concepts
    assert set(new.concepts.ids) == set(demo.captions)
    assert new.digests["concepts"] != before["concepts"] and new.digests["extraction"] != before["extraction"]
    for kept in ("runs", "kg_files", "labels", "captions", "embeddings", "images"):
        assert new.digests[kept] == before[kept], kept
    assert new.label == demo.label and new.synthetic
    assert new.reports[-1].kind == "concept sets found in the captions"
    # Concept sets read from a file afterwards drop the extraction (its words would explain other sets).
    assert with_concepts(new, b"ID,CUIs\nDEMO_00001,C0040405\n", "gt.csv").extraction is None


def test_different_captions_never_share_a_digest():
    names = {"C0040405": "X-Ray Computed Tomography"}
    one = Workspace(names=names, captions={"a": "CT", "b": "X-ray computed tomography"})
    other = Workspace(names=names, captions={"a": "CT scan", "b": "X-ray computed tomography"})
    first = with_extracted_concepts(one, caption_concepts(one), "x")
    second = with_extracted_concepts(other, caption_concepts(other), "x")
    assert first.concepts == second.concepts  # the same concept sets ...
    assert first.digests["concepts"] != second.digests["concepts"]  # ... from other captions
    assert first.restricted_to("concepts").digest != second.restricted_to("concepts").digest
    again = with_extracted_concepts(one, caption_concepts(one), "x")
    assert again.digests["concepts"] == first.digests["concepts"]
    assert with_extracted_concepts(one, caption_concepts(one, abbreviations=False), "x").digests["concepts"] \
        != first.digests["concepts"]


def test_captions_read_alone_become_their_own_collection():
    demo = load_demo()
    mine = demo.with_inputs(captions={"mine1": "CT of the liver", "mine2": "Normal."})
    new = with_extracted_concepts(demo, caption_concepts(mine), "mine.csv")
    assert new.concepts.ids == ("mine1", "mine2") and dict(new.captions) == dict(mine.captions)
    assert new.label == "Uploaded (mine.csv)" and not new.synthetic
    assert new.reports[-1].problems == (
        "1 image (50.0%) has no concept found in the caption; left out, being about other images: run 'near-random', "
        "run 'overlap-noisy', run 'visual-confused', labels, embeddings, 2,000 images of other IDs")
    assert not new.runs and new.labels is None and new.embeddings is None and not new.images
    assert new.kg_files == demo.kg_files and new.names == demo.names
    # A run with a query of the new collection stays (every demo run ranks DEMO_00001).
    run = demo.runs["near-random"][1]
    mixed = demo.with_inputs(captions={next(iter(run.rankings)): "CT", "mine2": "Normal."})
    assert list(with_extracted_concepts(demo, caption_concepts(mixed), "mine.csv").runs) == list(demo.runs)


def test_synonym_files_add_names_and_bad_ones_name_file_and_line():
    ws = Workspace(names={"C0032326": "Pneumothorax"}, captions={"a": "Collapsed lung on the left.",
                                                                 "b": "Pneumothorax."})
    obo = b'[Term]\nid: HP:1\nname: Pneumothorax\nsynonym: "Collapsed lung" EXACT []\nxref: UMLS:C0032326\n'
    assert caption_concepts(ws).concepts["a"] == frozenset()
    found = caption_concepts(ws, ((obo, "hp.obo"),))
    assert found.concepts["a"] == {"C0032326"} and "synonyms from hp.obo" in found.sources
    with pytest.raises(InputError, match=r"bad\.tsv, line 1: expected"):
        caption_concepts(ws, ((b"not a synonym file\n", "bad.tsv"),))


def test_no_captions_no_cui_names_or_no_concept_found_is_refused():
    with pytest.raises(CBIRLensError, match="no captions loaded"):
        caption_concepts(Workspace(names=NAMES))
    with pytest.raises(CBIRLensError, match=r"no concept ID given is a CUI \(C and 7 digits; found e.g. 'UBERON"):
        caption_concepts(Workspace(names={"UBERON:0000955": "brain"}, captions={"a": "brain"}))
    with pytest.raises(CBIRLensError, match="none of the 2 captions names one of the 6 concepts loaded"):
        caption_concepts(Workspace(names=NAMES, captions={"a": "Normal study.", "b": "No pneumothorax."}))


def test_names_without_a_cui_are_refused_at_every_door(tmp_path):
    (tmp_path / "captions.csv").write_text("ID,Caption\na,brain\n", encoding="utf-8")
    (tmp_path / "names.csv").write_text("ID,Name\nUBERON:0000955,brain\n", encoding="utf-8")
    with pytest.raises(CBIRLensError, match="no concept ID given is a CUI"):
        find_caption_concepts({"a": "brain"}, {"UBERON:0000955": "brain"})
    assert main(["extract", "--captions", str(tmp_path / "captions.csv"), "--names", str(tmp_path / "names.csv"),
                 "--out", str(tmp_path / "out.csv")]) == 2
    assert not (tmp_path / "out.csv").exists()
    assert main(["extract", "--captions", str(tmp_path / "captions.csv"), "--names", str(tmp_path / "names.csv"),
                 "--out", str(tmp_path / "out.csv"), "--ontology-ids"]) == 0


@pytest.mark.slow
def test_progress_moves_from_the_dictionary_to_the_last_caption():
    captions = {f"img{i}": "CT of the brain" for i in range(5000)}
    reports = []
    find_caption_concepts(captions, NAMES, progress=lambda fraction, text: reports.append((fraction, text)))
    fractions = [fraction for fraction, _ in reports]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] == 1.0
    # The dictionary, then one report per block of captions and one at the end.
    blocks = -(-5000 // PROGRESS_BLOCK)
    assert [text for _, text in reports] == ["Building the dictionary of concept names"] + ["Reading 5,000 captions"] * blocks
    assert 0.0 < fractions[1] < fractions[2] < 1.0
