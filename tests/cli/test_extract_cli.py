"""`extract` through the CLI and the API, hostile captions files, and the synonym readers (hand-made files and the
open ontologies of ../shared/data)."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys

import pytest

from evalcore.api import extract_concepts
from evalcore.cli import build_parser, main
from evalcore.errors import InputError, ParameterError
from evalcore.readers import read_concepts, read_synonyms
from tests import hostile_inputs as h
from tests.conftest import ROCOV2, ROOT, SHARED, needs

NAMES = b"CUI,Canonical name\nC0040405,X-Ray Computed Tomography\nC0019080,Hemorrhage\nC0006104,Brain\n" \
        b"C1306645,Plain x-ray\nC0817096,Chest\nC0032326,Pneumothorax\n"
CAPTIONS = b'ID,Caption\na,CT of the brain without hemorrhage\nb,"Chest X-ray: pneumothorax, no hemorrhage"\nc,A photo\n'


@pytest.fixture
def world(tmp_path):
    (tmp_path / "names.csv").write_bytes(NAMES)
    (tmp_path / "captions.csv").write_bytes(CAPTIONS)
    return tmp_path


def run_extract(folder, *extra: str, captions: str = "captions.csv") -> int:
    return main(["extract", "--captions", str(folder / captions), "--names", str(folder / "names.csv"), *extra,
                 "--out", str(folder / "out.csv")])


def test_extract_writes_rocov2_concepts(world, capsys):
    assert run_extract(world) == 0
    assert (world / "out.csv").read_text() == ("ID,CUIs\na,C0006104;C0040405\nb,C0032326;C0817096;C1306645\nc,\n")
    concepts = read_concepts(world / "out.csv")
    assert concepts.ids == ("a", "b", "c") and concepts["c"] == frozenset()
    assert "3 captions: 2 with at least one concept" in capsys.readouterr().err


def test_extract_options(world):
    (world / "syn.obo").write_bytes(b'[Term]\nid: HP:1\nname: Pneumothorax\nsynonym: "Collapsed lung" EXACT []\n'
                                    b"xref: UMLS:C0032326\n")
    (world / "captions2.csv").write_bytes(b"ID,Caption\na,CT: collapsed lung\n")
    assert run_extract(world, "--synonyms", str(world / "syn.obo"), "--no-abbreviations", captions="captions2.csv") == 0
    assert (world / "out.csv").read_text() == "ID,CUIs\na,C0032326\n"


def test_extract_refuses_to_overwrite_an_input(world, capsys):
    code = main(["extract", "--captions", str(world / "captions.csv"), "--names", str(world / "names.csv"),
                 "--out", str(world / "names.csv")])
    assert code == 2 and (world / "names.csv").read_bytes() == NAMES
    assert "--out" in capsys.readouterr().err


HOSTILE_CAPTIONS = [
    ("empty", b"", ("bad.csv", "ID,Caption")),
    ("header only", b"ID,Caption\n", ("bad.csv", "ID,Caption")),
    ("binary", h.GARBAGE, ("bad.csv", "line", "UTF-8")),
    ("png", h.PNG_HEADER, ("bad.csv", "line 1", "UTF-8")),
    ("nul byte", b"ID,Caption\nq,CT\x00\n", ("bad.csv", "line 2", "text")),
    ("unknown column", b"ID,Caption,Score\nq,CT,3\n", ("bad.csv", "line 2", "2 fields")),
    ("unquoted comma", b"ID,Caption\nq,CT, axial view\n", ("bad.csv", "line 2", "2 fields")),
    ("duplicate ID", b"ID,Caption\nq,CT\nq,MRI\n", ("bad.csv", "line 3", "duplicate")),
    ("unclosed quote", b'ID,Caption\nq,CT\nx,"never closed\ny,CT\n', ("bad.csv", "line 3", "CSV")),
    ("huge line", b"ID,Caption\nq," + h.LONG_FIELD + b"\n", ("bad.csv", "line 2")),
    ("semicolons", b"ID;Caption\nq;CT\n", ("bad.csv", "line 1", "';'")),
]


@pytest.mark.parametrize(("content", "words"), [case[1:] for case in HOSTILE_CAPTIONS],
                         ids=[case[0] for case in HOSTILE_CAPTIONS])
def test_hostile_captions_exit_2_with_one_line(world, capsys, content, words):
    (world / "bad.csv").write_bytes(content)
    (world / "out.csv").write_bytes(b"earlier\n")
    assert run_extract(world, captions="bad.csv") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and all(w in err[0] for w in words), err
    assert (world / "out.csv").read_bytes() == b"earlier\n"


@pytest.mark.parametrize(("content", "ids"), [
    (b"q,CT of the brain\nx,Chest X-ray\n", "q,x"),  # no header: the first row is an image
    (b"Image,Caption\nq,CT of the brain\n", "q"),  # a header: both fields name columns
    (b"image_id,caption\nq,CT of the brain\n", "q"),
])
def test_captions_with_and_without_a_header(world, content, ids):
    (world / "plain.csv").write_bytes(content)
    assert run_extract(world, captions="plain.csv") == 0
    assert ",".join(read_concepts(world / "out.csv").ids) == ids


@pytest.mark.subprocess
def test_a_fifo_is_refused_without_blocking(world):
    os.mkfifo(world / "pipe.csv")
    process = subprocess.run([sys.executable, "-m", "evalcore", "extract", "--captions", "pipe.csv", "--names",
                              "names.csv", "--out", "out.csv"], cwd=world, capture_output=True, text=True, timeout=60,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert process.returncode == 2
    assert process.stderr.count("\n") == 1 and "pipe.csv" in process.stderr and "regular file" in process.stderr


def test_api_merges_names_files_and_takes_mappings(world):
    (world / "kg_names.csv").write_bytes(b"id,name\nC0019080,Bleeding\nUBERON:0000955,brain\n")
    sets = extract_concepts(world / "captions.csv", [world / "names.csv", world / "kg_names.csv"])
    assert sets["b"] == {"C0032326", "C0817096", "C1306645"}
    # "Bleeding", the second file's name of C0019080, is read as its synonym.
    assert extract_concepts({"x": "Bleeding seen"}, [world / "names.csv", world / "kg_names.csv"])["x"] == {"C0019080"}
    with_ids = extract_concepts({"x": "brain"}, world / "kg_names.csv", ontology_ids=True)
    assert with_ids["x"] == {"UBERON:0000955"}
    seen: list[tuple[float, str]] = []
    sets = extract_concepts({"x": "CT"}, {"C0040405": "CT"}, synonyms={"C0040405": ["scanner"]},
                            progress=lambda fraction, label: seen.append((fraction, label)))
    assert seen == [(0.0, "Building the dictionary of concept names"), (1.0, "Reading 1 captions")]
    assert sets["x"] == {"C0040405"}


# --- synonym readers ---------------------------------------------------------------------------------------------


def test_obo_synonyms_keep_exact_ones_through_umls_xrefs():
    text = (b"format-version: 1.2\n\n[Term]\nid: HP:1\nname: Pneumothorax\nsynonym: \"Collapsed lung\" EXACT []\n"
            b"synonym: \"Air in chest\" RELATED []\nxref: UMLS:C0032326\n\n[Term]\nid: HP:2\nname: No xref\n\n"
            b"[Term]\nid: HP:3\nname: Gone\nxref: UMLS:C0000001\nis_obsolete: true\n\n[Typedef]\nid: part_of\n"
            b"xref: UMLS:C0000002\n")
    assert read_synonyms(text, "hp.obo") == {"C0032326": ("Pneumothorax", "Collapsed lung")}
    with pytest.raises(InputError, match=r"hp\.obo, line 4: expected a synonym line"):
        read_synonyms(b"[Term]\nid: HP:1\nname: X\nsynonym: unquoted EXACT []\n", "hp.obo")


def test_doid_and_mrconso_synonyms():
    doid = (b'id\tlabel\txref\n"DOID:1"\t"pneumothorax"\t"UMLS_CUI:C0032326"\n"DOID:1"\t"pneumothorax"\t"MESH:D1"\n')
    assert read_synonyms(doid, "allXREFinDO.tsv") == {"C0032326": ("pneumothorax",)}
    with pytest.raises(InputError, match=r"line 2: expected a UMLS_CUI cross-reference"):
        read_synonyms(b'id\tlabel\txref\n"DOID:1"\t"x"\t"UMLS_CUI:banana"\n', "allXREFinDO.tsv")
    with pytest.raises(InputError, match=r"line 2: expected 3 tab-separated fields"):
        read_synonyms(b'id\tlabel\txref\n"DOID:1"\n', "allXREFinDO.tsv")
    assert read_synonyms(h.MRCONSO_ROW + h.MRCONSO_ROW.replace(b"|Veins|", b"|Vein|"),
                         "MRCONSO.RRF") == {"C0042449": ("Veins", "Vein")}
    with pytest.raises(InputError, match=r"MRCONSO\.RRF, line 1: expected MRCONSO\.RRF rows"):
        read_synonyms(b"C0042449|ENG|P\n", "MRCONSO.RRF")


def test_mesh_synonyms_map_by_heading_then_case_then_unique_entry_term():
    names = {"C0042449": "Veins", "C0005847": "blood vessels", "C0018787": "Heart", "C0000001": "Cor",
             "C0000002": "Cor", "UBERON:1": "Arteries"}
    mesh = (b"D014680\tVeins\tVein|Venae\tA07.015.908\t\n"          # heading, exactly
            b"D001808\tBlood Vessels\tVessel, Blood\tA07.015\t\n"    # heading, ignoring case
            b"D006321\tHeart Muscle\tHeart|Cor\tA07.541\t\n"         # one entry term names one CUI; Cor names two
            b"D001158\tArteries\tArtery\tA07.015.114\t\n")           # the ontology ID is no CUI
    assert read_synonyms(mesh, "mesh.tsv", names) == {
        "C0042449": ("Veins", "Vein", "Venae"), "C0005847": ("Blood Vessels", "Vessel, Blood"),
        "C0018787": ("Heart Muscle", "Heart", "Cor")}
    with pytest.raises(ParameterError, match="concept names"):
        read_synonyms(mesh, "mesh.tsv")
    with pytest.raises(InputError, match=r"mesh\.tsv, line 2: expected a MeSH descriptor row"):
        read_synonyms(b"D014680\tVeins\tVein\n\tno id\n", "mesh.tsv", names)


@pytest.mark.parametrize(("content", "found"), [(b"", "an empty file"), (b"just,some,csv\n", "'just,some,csv'")])
def test_unknown_synonym_files_are_named(content, found):
    with pytest.raises(InputError, match=f"syn.txt.*expected an OBO file.*found {found}"):
        read_synonyms(content, "syn.txt")


@needs(SHARED / "ontologies" / "mesh" / "mesh_descriptors_2023.tsv")
def test_synonyms_of_the_open_ontologies():
    from evalcore.readers import read_concept_names

    names = read_concept_names(ROCOV2 / "cui_mapping.csv")
    ontologies = SHARED / "ontologies"
    mesh = read_synonyms(ontologies / "mesh" / "mesh_descriptors_2023.tsv", names=names)
    assert "Vein" in mesh["C0042449"] and set(mesh) <= set(names)
    assert 550 <= len(mesh) <= 580  # the open KG README maps 569 descriptors (420 + 48 + 101) the same way
    hpo = read_synonyms(ontologies / "hpo" / "hp.obo")
    assert len(hpo) > 10_000 and all(cui.startswith("C") and len(cui) == 8 for cui in hpo)
    doid = read_synonyms(ontologies / "doid" / "allXREFinDO.tsv")
    assert len(doid) > 5_000
    uberon = read_synonyms(ontologies / "uberon" / "efo-slim.obo")
    assert {"uterine cervix", "cervix uteri"} <= set(uberon["C0007874"])


@pytest.mark.slow
@needs(ROCOV2 / "valid_captions.csv")
def test_extract_on_rocov2_valid_through_the_cli(tmp_path):
    out = tmp_path / "valid_extracted.csv"
    assert main(["extract", "--captions", str(ROCOV2 / "valid_captions.csv"), "--names",
                 str(ROCOV2 / "cui_mapping.csv"), "--out", str(out)]) == 0
    rows = list(csv.reader(open(out)))
    assert rows[0] == ["ID", "CUIs"] and len(rows) == 9_905
    assert rows[1][0] == "ROCOv2_2023_valid_000001" and {"C1306645", "C0817096"} <= set(rows[1][1].split(";"))


def test_the_extraction_overview_quotes_the_test_f1_the_evidence_document_measured():
    """The claim of the extractor's test F1 in docs/CONCEPTS_FROM_CAPTIONS.md (the README's until issue 66) is the
    figure `scripts/extraction_evidence.py` last wrote to docs/EXTRACTION.md (dictionary (c) on test), not a figure
    of an earlier pass."""
    import re

    overview = (ROOT / "docs" / "CONCEPTS_FROM_CAPTIONS.md").read_text(encoding="utf-8")
    claimed = re.search(r"the concept-detection F1 is (0\.\d{4}) on test", overview)
    document = (ROOT / "docs" / "EXTRACTION.md").read_text(encoding="utf-8")
    measured = re.search(r"^\| test \| \(c\) names \+ abbreviations \+ open synonyms \| (0\.\d{4}) \|", document, re.M)
    assert claimed and measured and claimed.group(1) == measured.group(1)


def test_the_rules_help_names_every_kind_a_rules_file_takes(capsys):
    """The help of --rules lists the kinds from the reader's own list (it once left out history, and the tenth
    pass's negation-compound and other-exam-after)."""
    from evalcore.extraction.user_rules import KINDS

    with pytest.raises(SystemExit):
        main(["extract", "--help"])
    shown = " ".join(capsys.readouterr().out.split()).replace("- ", "-")
    assert all(kind in shown for kind in KINDS), [kind for kind in KINDS if kind not in shown]


def test_the_extraction_overview_names_every_kind_a_rules_file_takes():
    """The list of a rules file's kinds in docs/CONCEPTS_FROM_CAPTIONS.md (the README's until issue 66) is the
    reader's own (issue 36, twenty-second pass: negation-suffix and negation-compound-lesion were added to both)."""
    from evalcore.extraction.user_rules import KINDS

    overview = (ROOT / "docs" / "CONCEPTS_FROM_CAPTIONS.md").read_text(encoding="utf-8")
    listed = overview[overview.index("(kinds: `synonym`"):]
    listed = set(re.findall(r"`([a-z-]+)`", listed[:listed.index("The vocabulary also carries")]))
    assert listed == set(KINDS), listed ^ set(KINDS)


@pytest.mark.subprocess
def test_extract_on_worker_processes_writes_the_same_file(world, monkeypatch, capsys):
    import evalcore.extraction.extractor as extractor

    assert run_extract(world, "--workers", "1") == 0
    alone = (world / "out.csv").read_bytes()
    monkeypatch.setattr(extractor, "PARALLEL_MINIMUM", 0)
    monkeypatch.setattr(extractor, "PROGRESS_BLOCK", 1)
    # by default a worker per core, for a collection as large as PARALLEL_MINIMUM
    assert build_parser().parse_args(["extract", "--captions", "c", "--names", "n", "--out", "o"]).workers == 0
    assert run_extract(world) == 0
    assert (world / "out.csv").read_bytes() == alone
    assert run_extract(world, "--workers", "2") == 0
    assert (world / "out.csv").read_bytes() == alone
    assert run_extract(world, "--workers", "-1") == 2
    assert "workers must be a whole number >= 0" in capsys.readouterr().err


# A hostile-input hunt of the twenty-fifth pass: each of these exited 0 with a wrong result, or named no line.
@pytest.mark.parametrize(("names", "words"), [
    # an unquoted comma cut "Foramen Ovale, Patent" to "Foramen Ovale", which then matched the caption
    (b"CUI,Canonical name\nC0016522,Foramen Ovale, Patent\nC0018787,Heart\n",
     ["names.csv, line 2", "2 fields", "quote names containing commas", "3 fields"]),
    (b"CUI,Canonical name\nC0018787,Heart,x,y\n", ["names.csv, line 2", "4 fields"]),
])
def test_a_names_row_of_more_than_two_fields_is_refused(world, capsys, names, words):
    (world / "names.csv").write_bytes(names)
    assert run_extract(world) == 2 and not (world / "out.csv").exists()
    err = capsys.readouterr().err
    assert all(word in err for word in words) and "Traceback" not in err


def test_a_names_file_without_a_header_keeps_a_first_ontology_id(world):
    """The header was told by a first field that is no CUI, so "UBERON:0000948,heart" was dropped as a header."""
    (world / "names.csv").write_bytes(b"UBERON:0000948,heart\nMESH:D006330,heart disease\nUBERON:0002048,lung\n")
    (world / "captions.csv").write_bytes(b"ID,Caption\nx1,heart and lung\n")
    assert run_extract(world, "--ontology-ids", "--no-abbreviations") == 0
    assert (world / "out.csv").read_text() == "ID,CUIs\nx1,UBERON:0000948;UBERON:0002048\n"


def test_a_rule_about_a_concept_the_names_lack_is_refused(world, capsys):
    """A mistyped ID (C0018878 for C0018787) did nothing, silently."""
    (world / "rules.tsv").write_text("kind\twords\tconcept\tsource\nsynonym\tcerebrum\tC0006104\tours\n"
                                     "synonym\tcardiac silhouette\tC0018878\tours\n", encoding="utf-8")
    assert run_extract(world, "--rules", str(world / "rules.tsv")) == 2 and not (world / "out.csv").exists()
    err = capsys.readouterr().err
    assert "rules.tsv, line 3" in err and "column 3 (concept): an ID of the loaded names" in err and "C0018878" in err


@pytest.mark.parametrize(("content", "words"), [
    (b"kind\twords\tconcept\tsource\nsynonym\tbig heart\tC0006104\tme\nsynonym\tbig \xff heart\tC0006104\tme\n",
     ["rules.tsv, line 3", "UTF-8", "0xff"]),
    (b"kind\twords\tconcept\tsource\nsynonym\tbig\x00heart\tC0006104\tme\n", ["rules.tsv, line 2", "NUL"]),
])
def test_a_rules_file_that_is_no_text_names_its_line(world, capsys, content, words):
    (world / "rules.tsv").write_bytes(content)
    assert run_extract(world, "--rules", str(world / "rules.tsv")) == 2
    err = capsys.readouterr().err
    assert all(word in err for word in words) and "Traceback" not in err


def test_a_rules_path_that_is_a_directory_says_so(world, capsys):
    assert run_extract(world, "--rules", str(world)) == 2
    assert "a directory" in capsys.readouterr().err


def test_a_failure_to_write_the_evidence_leaves_the_earlier_sets_too(world, capsys, monkeypatch):
    """The hunt's sixth finding: out.csv was replaced before the evidence failed (a file size limit), leaving one
    run's sets beside another run's evidence. Both are written and synced before either is renamed into place."""
    import errno

    from evalcore.io import outputs

    (world / "out.csv").write_text("earlier sets\n")
    (world / "evidence.csv").write_text("earlier evidence\n")
    synced, real_fsync = [], outputs.os.fsync

    def fsync_then_fail(descriptor):
        synced.append(descriptor)
        if len(synced) == 2:
            raise OSError(errno.EFBIG, "File too large")
        real_fsync(descriptor)

    monkeypatch.setattr(outputs.os, "fsync", fsync_then_fail)
    assert run_extract(world, "--evidence", str(world / "evidence.csv")) == 2
    assert "could not write the output file (File too large)" in capsys.readouterr().err
    assert (world / "out.csv").read_text() == "earlier sets\n"
    assert (world / "evidence.csv").read_text() == "earlier evidence\n"
    assert sorted(path.name for path in world.iterdir()) == ["captions.csv", "evidence.csv", "names.csv", "out.csv"]
