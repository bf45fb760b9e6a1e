"""`extract --evidence`: one row per mention the extraction found, agreeing with the concept sets written."""

from __future__ import annotations

import csv
import io
import os
import random

import pytest

from evalcore.api import extract_concepts
from evalcore.cli import main
from evalcore.extraction.caption_concepts import find_caption_concepts
from evalcore.extraction.evidence import EVIDENCE_COLUMNS, evidence_rows
from evalcore.io import outputs
from tests.conftest import ROOT

NAMES = {"C1306645": "Plain x-ray", "C0000726": "Abdomen", "C1999039": "Anterior-Posterior",
         "C0032326": "Pneumothorax", "C0019080": "Hemorrhage", "C0040405": "X-Ray Computed Tomography"}
SYNONYMS = {"C0032326": ["Collapsed lung"]}
#: 0         1         2         3         4         5
#: 012345678901234567890123456789012345678901234567890123
CAPTION = "X-ray of the abdomen: collapsed lung, no hemorrhage."
NO_HEMORRHAGE = f"negation cue 'no' (NegEx (Chapman et al. 2001)) in: {CAPTION}"
AP_RULE = "standard view of C0000726: Clark's Positioning in Radiography: the abdomen's basic projection is AP supine"


def test_a_hand_worked_caption_gives_exact_rows():
    sets, rows = extract_concepts({"a": CAPTION}, NAMES, synonyms=SYNONYMS, evidence=True)
    assert [tuple(row) for row in rows] == [
        ("a", "C1306645", 0, 5, "X-ray", "abbreviation", "kept", ""),
        ("a", "C0000726", 13, 20, "abdomen", "name", "kept", ""),
        ("a", "C1999039", 13, 20, "abdomen", "assumed", "kept", AP_RULE),  # a radiograph of the abdomen, no view said
        ("a", "C0032326", 22, 36, "collapsed lung", "synonym", "kept", ""),
        ("a", "C0019080", 41, 51, "hemorrhage", "name", "negated", NO_HEMORRHAGE),
    ]
    assert all(CAPTION[row.start:row.end] == row.words for row in rows)
    assert sets["a"] == {"C1306645", "C0000726", "C1999039", "C0032326"}


def agree(sets, rows) -> None:
    """Every kept mention's concept is in its image's set; every concept of a set has a kept (or assumed) row."""
    kept: dict[str, set[str]] = {image_id: set() for image_id in sets.ids}
    for row in rows:
        assert row.status in ("kept", "negated", "hypothetical", "history", "other exam", "literature")
        assert row.matched in ("name", "synonym", "abbreviation", "assumed")
        if row.status == "kept":
            kept[row.image_id].add(row.concept)
    assert {image_id: frozenset(concepts) for image_id, concepts in kept.items()} == dict(zip(sets.ids, sets.sets))


@pytest.mark.slow
def test_evidence_agrees_with_the_sets_on_the_demo_captions():
    demo = ROOT / "data" / "demo"
    sets, rows = extract_concepts(demo / "captions.csv", demo / "concept_names.csv", evidence=True)
    assert len(rows) > len(sets)  # (the demo's synthetic captions negate nothing: the random set below does)
    agree(sets, rows)


def test_evidence_agrees_with_the_sets_on_random_captions():
    rng = random.Random(36)
    words = ["x-ray", "CT", "abdomen", "pelvis", "lateral", "no", "without", "but", "collapsed lung", "pneumothorax",
             "hemorrhage", "haemorrhage", "of the", "AP", "chest", ".", ",", "not seen", "if", "bleeding", "seen on",
             "MRI", "[3]", "arrow", "history of"]
    names = {**NAMES, "C0030797": "Pelvis", "C0817096": "Chest", "C0024485": "Magnetic Resonance Imaging"}
    captions = {f"i{k}": " ".join(rng.choice(words) for _ in range(rng.randint(0, 14))) for k in range(400)}
    sets, rows = extract_concepts(captions, names, synonyms=SYNONYMS, evidence=True)
    assert {row.matched for row in rows} == {"name", "synonym", "abbreviation", "assumed"}
    assert {row.status for row in rows} == {"kept", "negated", "hypothetical", "history", "other exam", "literature"}
    assert all(captions[row.image_id][row.start:row.end] == row.words for row in rows)
    agree(sets, rows)


def world(tmp_path):
    (tmp_path / "names.csv").write_text("CUI,Canonical name\n" + "".join(f"{c},{n}\n" for c, n in NAMES.items()))
    (tmp_path / "captions.csv").write_text(f'ID,Caption\na,"{CAPTION}"\n=b,CT\n')
    return tmp_path


def extract(folder, evidence) -> int:
    return main(["extract", "--captions", str(folder / "captions.csv"), "--names", str(folder / "names.csv"),
                 "--out", str(folder / "out.csv"), "--evidence", str(evidence)])


def test_the_cli_writes_the_evidence_file(tmp_path):
    folder = world(tmp_path)
    assert extract(folder, folder / "evidence.csv") == 0
    text = (folder / "evidence.csv").read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == list(EVIDENCE_COLUMNS) and len(rows) == 6
    assert rows[-1] == ["'=b", "C0040405", "0", "2", "CT", "abbreviation", "kept", ""]  # spreadsheet-safe, as check --csv
    assert ["a", "C0019080", "41", "51", "hemorrhage", "name", "negated", NO_HEMORRHAGE] in rows
    assert sorted(p.name for p in folder.iterdir()) == ["captions.csv", "evidence.csv", "names.csv", "out.csv"]


def test_the_evidence_file_is_replaced_only_once_complete(tmp_path, monkeypatch):
    folder = world(tmp_path)
    (folder / "evidence.csv").write_text("earlier\n")
    replace = os.replace

    def failing(source, target):
        if os.path.basename(target) == "evidence.csv":
            raise OSError(28, "No space left on device")
        replace(source, target)

    monkeypatch.setattr(outputs.os, "replace", failing)
    assert extract(folder, folder / "evidence.csv") == 2
    assert (folder / "evidence.csv").read_text() == "earlier\n"
    assert not [p for p in folder.iterdir() if p.name.endswith(".part")]


def test_the_cli_refuses_an_evidence_path_that_is_an_input_or_the_output(tmp_path, capsys):
    folder = world(tmp_path)
    before = (folder / "captions.csv").read_bytes()
    for target in ("captions.csv", "names.csv", "out.csv"):
        assert extract(folder, folder / target) == 2
        assert "--evidence" in capsys.readouterr().err
    assert (folder / "captions.csv").read_bytes() == before and not (folder / "out.csv").exists()


def test_a_hypothetical_mention_names_its_cue_and_status() -> None:
    found = find_caption_concepts({"a": "Chest CT. Follow-up with MRI is recommended. No hemorrhage."},
                                  {"C0040405": "X-Ray Computed Tomography", "C0024485": "Magnetic Resonance Imaging",
                                   "C0019080": "Hemorrhage"})
    rows = {row.words: row for row in evidence_rows(found)}
    assert (rows["MRI"].status, rows["hemorrhage"].status) == ("hypothetical", "negated")
    assert rows["MRI"].rule.startswith("hypothetical cue 'follow up with' (")
    assert rows["hemorrhage"].rule.startswith("negation cue 'no' (")
    assert found.concepts.sets[0] == frozenset({"C0040405"})


def test_an_other_exam_mention_names_its_cue_and_status() -> None:
    names = {"C0040405": "X-Ray Computed Tomography", "C0024485": "Magnetic Resonance Imaging"}
    found = find_caption_concepts({"a": "MRI of the lesion seen on CT.", "b": "Lesion seen on CT."}, names)
    rows = [(row.image_id, row.words, row.status, row.rule.split(" (")[0]) for row in evidence_rows(found)]
    assert rows == [("a", "MRI", "kept", ""), ("a", "CT", "other exam", "other exam cue 'seen on'"),
                    ("b", "CT", "kept", "")]
    assert found.concepts.sets == (frozenset({"C0024485"}), frozenset({"C0040405"}))


def test_a_history_names_its_cue_and_status() -> None:
    """Issue 36, eighth pass: a presenting complaint is the patient's history, not the image's (ConText's historical
    triggers)."""
    names = {"C0040405": "X-Ray Computed Tomography", "C0013604": "Edema", "C0006826": "Malignant Neoplasms"}
    caption = "CT of a man who presented with oedema. A history of cancer; the CT shows edema."
    found = find_caption_concepts({"a": caption}, names, synonyms={"C0013604": ["oedema"], "C0006826": ["cancer"]})
    rows = [(row.words, row.status, row.rule.split(" (")[0]) for row in evidence_rows(found)]
    assert rows == [("CT", "kept", ""), ("oedema", "history", "history cue 'who presented with'"),
                    ("cancer", "history", "history cue 'history of'"), ("CT", "kept", ""), ("edema", "kept", "")]
    assert found.concepts.sets == (frozenset({"C0040405", "C0013604"}),)


def test_a_literature_statement_names_its_citation_and_status() -> None:
    names = {"C0040405": "X-Ray Computed Tomography", "C0027540": "Necrosis", "C0021853": "Intestines"}
    caption = "CT of the abdomen. Common complications include bowel necrosis [33]. Necrosis (arrow) [4]."
    found = find_caption_concepts({"a": caption}, names, synonyms={"C0021853": ["bowel"]})
    rows = [(row.words, row.status, row.rule.split(" (")[0]) for row in evidence_rows(found)]
    assert rows == [("CT", "kept", ""), ("bowel", "literature", "literature cue '[33]'"),
                    ("necrosis", "literature", "literature cue '[33]'"), ("Necrosis", "kept", "")]


def pasted_caption(sentences: int) -> str:
    """A legend's first sentence, a story of ``sentences - 2`` sentences padded past the pasted-text length, and a
    sentence that points into the image."""
    story = [f"On day {day} the patient had a hemorrhage and was reviewed by the ward team and the surgeons as "
             f"planned, before any new imaging of the chest and head was performed." for day in range(sentences - 2)]
    return " ".join(["CT of the abdomen showing a pneumothorax.", *story, "The hemorrhage (arrow) is seen on CT."])


def test_a_pasted_case_reports_later_sentences_are_not_of_the_image() -> None:
    caption = pasted_caption(10)
    assert len(caption) >= 1300
    found = find_caption_concepts({"a": caption}, NAMES)
    rows = [(row.words, row.status, row.rule.split(" (")[0]) for row in evidence_rows(found)]
    story = [("hemorrhage", "literature", "literature cue 'pasted text'")] * 8
    assert rows == [("CT", "kept", ""), ("abdomen", "kept", ""), ("pneumothorax", "kept", ""), *story,
                    ("hemorrhage", "kept", ""),
                    ("CT", "kept", "")]
    # nine sentences are a legend, however long: every mention is kept
    assert {row.status for row in evidence_rows(find_caption_concepts({"a": pasted_caption(9)}, NAMES))} == {"kept"}


def test_a_pasted_texts_later_sentence_spares_no_modality() -> None:
    caption = pasted_caption(10).replace("The hemorrhage (arrow) is seen on CT.", "A later MRI was normal.")
    found = find_caption_concepts({"a": caption}, {**NAMES, "C0024485": "Magnetic Resonance Imaging"})
    assert found.concepts.sets[0] == {"C0040405", "C0000726", "C0032326"}


def test_an_abbreviation_key_takes_the_status_of_its_uses() -> None:
    names = {"C0024485": "Magnetic Resonance Imaging", "C0566602": "Primary sclerosing cholangitis",
             "C0227557": "Right posterior hepatic duct", "C0225860": "Left atrium"}
    captions = {"history": "MRI of a known case of PSC. PSC: primary sclerosing cholangitis.",
                "denied": "Cholangiography shows no RPHD. RPHD, right posterior hepatic duct.",
                # (issue 36, fifteenth pass: a denied aberrant duct presupposes the normal one)
                "aberrant": "Cholangiography shows no ARPHD. ARPHD, aberrant right posterior hepatic duct.",
                "shown": "MRI shows PSC. PSC: primary sclerosing cholangitis.",
                "key only": "MRI of the heart. LA: left atrium."}
    found = find_caption_concepts(captions, names)
    evidence = list(evidence_rows(found))  # rows are yielded once
    rows = {(row.image_id, row.words): (row.status, row.rule.split(" in: ")[0]) for row in evidence}
    assert rows["history", "primary sclerosing cholangitis"] == (
        "history", "history cue 'PSC' (an abbreviation key is a definition, not a statement, and takes the status of "
                   "its uses, under 'known case of')")
    assert rows["denied", "right posterior hepatic duct"][0] == "negated"
    # (sixteenth pass: the key's short form is read as its long form is, its use and its key alike)
    statuses = [(row.image_id, row.words, row.status) for row in evidence]
    assert [status for image, words, status in statuses if (image, words) == ("history", "PSC")] == ["history"] * 2
    assert [status for image, words, status in statuses if (image, words) == ("denied", "RPHD")] == ["negated"] * 2
    assert rows["aberrant", "right posterior hepatic duct"][0] == "kept"
    assert rows["shown", "primary sclerosing cholangitis"][0] == "kept"
    assert rows["key only", "left atrium"][0] == "kept"
