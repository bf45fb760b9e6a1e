"""Vectorised readers against the line-by-line definition (tests/line_by_line.py) on generated files:
the same values in the same order, or the same first error, message and line."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from evalcore.errors import InputError
from evalcore.readers import read_concept_names, read_concepts, read_kg, read_pairs, read_predictions, read_runs
from tests import line_by_line
from tests.conftest import OPEN_KG, ROCOV2, needs

EXAMPLES = 600


def outcome(reader, data: bytes, name: str):
    try:
        return "ok", reader(data, name)
    except InputError as error:
        return "error", str(error), error.line


def runs_as_lists(data: bytes, name: str):
    return [(run.name, list(run.rankings.items())) for run in read_runs(data, name)]


QUERIES = ["q1", "q2", "q3", "é"]
DOCUMENTS = ["d1", "d2", "d3", "d4", "q1", "x" * 301]
RANKS = ["1", "2", "3", "4", "0", "-1", "+2", "1_0", "٣", "x", "1000000001", "007", "2"]
SCORES = ["0.5", "1", "-2.5e3", "0.5", "nan", "inf", "1_0.5", "+.5", "1e999", "nan(1)", "x", ".", "٣.5", "-0", "0", "", " "]
TAGS = ["a", "b", "a"]
SPACES = [" "] * 8 + ["  ", "\t", "\x0b", "\xa0", "\u2003", " \t ", "\x1c"]
ENDINGS = ["\n"] * 6 + ["\r\n", "\r", "\n\n", "\n \n"]


@st.composite
def trec_files(draw) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 10))):
        fields = [draw(st.sampled_from(QUERIES)), "Q0", draw(st.sampled_from(DOCUMENTS)), draw(st.sampled_from(RANKS)),
                  draw(st.sampled_from(SCORES)), draw(st.sampled_from(TAGS))]
        if draw(st.integers(0, 9)) == 0:
            del fields[draw(st.integers(0, 5))]
        separators = [draw(st.sampled_from(SPACES)) for _ in fields]
        line = "".join(f + s for f, s in zip(fields, separators))[: -len(separators[-1])]
        if draw(st.integers(0, 9)) == 0:
            line = draw(st.sampled_from(SPACES)) + line + draw(st.sampled_from(SPACES))
        lines.append(line + draw(st.sampled_from(ENDINGS)))
    return "".join(lines).encode("utf-8")


@st.composite
def csv_run_files(draw) -> bytes:
    header = draw(st.sampled_from(["query_id,image_id,rank,score\n", "query_id,image_id,rank\n", "image_id,query_id,score,rank\n",
                                   "query_id,image_id,score\n", "", "\n"]))
    lines = [header]
    for _ in range(draw(st.integers(0, 8))):
        fields = [draw(st.sampled_from(QUERIES)), draw(st.sampled_from(DOCUMENTS)), draw(st.sampled_from(RANKS)),
                  draw(st.sampled_from(SCORES))]
        fields = fields[: draw(st.sampled_from([4, 4, 4, 3, 2]))]
        if draw(st.integers(0, 9)) == 0:
            fields[0] = " " + fields[0]
        if draw(st.integers(0, 14)) == 0:
            fields[1] = '"' + fields[1] + '"'
        lines.append(",".join(fields) + draw(st.sampled_from(ENDINGS)))
    return "".join(lines).encode("utf-8")


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=trec_files())
def test_trec_runs_read_as_line_by_line(data):
    assert outcome(runs_as_lists, data, "r.trec") == outcome(line_by_line.read_runs, data, "r.trec")


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=csv_run_files())
def test_csv_runs_read_as_line_by_line(data):
    assert outcome(runs_as_lists, data, "r.csv") == outcome(line_by_line.read_runs, data, "r.csv")


def generated_run(seed: int, queries: int, depth: int, tags: int = 1, shuffle: bool = False, crlf: bool = False) -> bytes:
    """A run as retrieve writes it (grouped, score descending), or shuffled, with ties and several tags."""
    rng = random.Random(seed)
    lines = []
    for tag in range(tags):
        for query in range(queries):
            documents = rng.sample(range(queries * 2), depth)
            scores = sorted((rng.choice([0.25, 0.5, 0.75, rng.random()]) for _ in range(depth)), reverse=True)
            lines += [f"q{query} Q0 d{doc} {rank} {score:.6g} t{tag}"
                      for rank, (doc, score) in enumerate(zip(documents, scores), start=1)]
    if shuffle:
        rng.shuffle(lines)
    return ("\r\n" if crlf else "\n").join(lines).encode() + b"\n"


@pytest.mark.parametrize("shuffle, tags, crlf", [(False, 1, False), (True, 1, False), (False, 3, True), (True, 2, False)])
def test_generated_runs_read_as_line_by_line(shuffle, tags, crlf):
    data = generated_run(7, queries=400, depth=50, tags=tags, shuffle=shuffle, crlf=crlf)
    assert outcome(runs_as_lists, data, "g.trec") == outcome(line_by_line.read_runs, data, "g.trec")


@pytest.mark.parametrize("position", [0, 5_000, 19_999])
def test_an_error_deep_in_a_generated_run_names_its_line(position):
    lines = generated_run(3, queries=400, depth=50).decode().splitlines(keepends=True)
    for broken in (lines[position].replace(" Q0 ", " "), lines[position].replace(" t0", " 1e999 t0"),
                   lines[position].rsplit(" ", 2)[0] + " nan t0\n", lines[position - 1 if position else 1]):
        data = "".join(lines[:position] + [broken] + lines[position + 1:]).encode()
        assert outcome(runs_as_lists, data, "g.trec") == outcome(line_by_line.read_runs, data, "g.trec")


CONCEPT_IDS = ["img1", "img2", "img3", "img1", "a;b", "a|b", "é", "id", "image", "x" * 301, "", " img2", "img 4"]
CUIS = ["C0040405", "c0817096", "C0040405", "C123", "", " C0000001", "C٠٠٠٠٠٠١", "CUIs", "C00000011"]


@st.composite
def concept_files(draw) -> bytes:
    tab = draw(st.booleans())
    lines = [draw(st.sampled_from(["ID,CUIs", "id,cuis", "image,concepts", "", "ID\tCUIs", "img0,"]))]
    for _ in range(draw(st.integers(0, 8))):
        cuis = draw(st.lists(st.sampled_from(CUIS), min_size=0, max_size=4))
        joined = draw(st.sampled_from([";", ",", ";;", "; "] if tab else [";", ";", "; ", ";;"])).join(cuis)
        shape = draw(st.integers(0, 12))
        image_id = draw(st.sampled_from(CONCEPT_IDS))
        if shape == 0:
            line = image_id
        elif shape == 1:
            line = image_id + ("\t" if tab else ",") + joined + ("\textra" if tab else ",extra")
        elif shape == 2:
            line = ",,"
        elif shape == 3:
            line = '"' + image_id + '",' + joined
        else:
            line = image_id + ("\t" if tab else ",") + joined
        lines.append(line)
    endings = [draw(st.sampled_from(["\n", "\n", "\r\n", "\r", "\n\n", "\n \n"])) for _ in lines]
    return "".join(line + ending for line, ending in zip(lines, endings)).encode("utf-8")


def concepts_as_list(data: bytes, name: str):
    concepts = read_concepts(data, name)
    return list(zip(concepts.ids, concepts.sets))


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=concept_files())
@example(data=b"ID\tCUIs\na;b\t\n")  # found by Hypothesis: a trailing tab is whitespace, so 'a;b' stands alone
def test_concepts_read_as_line_by_line(data):
    assert outcome(concepts_as_list, data, "gt.csv") == outcome(line_by_line.read_concepts, data, "gt.csv")


@pytest.mark.slow
@needs(ROCOV2)
def test_rocov2_concepts_read_as_line_by_line():
    for split in ("train", "valid", "test"):
        data = (ROCOV2 / f"{split}_concepts.csv").read_bytes()
        assert concepts_as_list(data, "gt.csv") == line_by_line.read_concepts(data, "gt.csv")


@st.composite
def prediction_files(draw) -> bytes:
    lines = [draw(st.sampled_from(["ID,CUIs", "image_id\tCUIs", "", "img0,C0000001"]))]
    for _ in range(draw(st.integers(0, 8))):
        cuis = draw(st.lists(st.sampled_from(CUIS), min_size=0, max_size=5))
        joined = draw(st.sampled_from([";", ",", ";", "; ", ";;"])).join(cuis)
        separator = draw(st.sampled_from([",", ",", ",", "\t", "|", ", "]))
        image_id = draw(st.sampled_from(CONCEPT_IDS + ["nope", "q1"]))
        lines.append(draw(st.sampled_from([image_id + separator + joined, image_id, image_id + separator, "  "])))
    endings = [draw(st.sampled_from(["\n", "\n", "\r\n", "\r", "\n\n"])) for _ in lines]
    return "".join(line + ending for line, ending in zip(lines, endings)).encode("utf-8")


def predictions_as_tuple(data: bytes, name: str, known=None):
    predictions = read_predictions(data, name, known_ids=known)
    return predictions.sets, predictions.problems, predictions.problems_not_listed


KNOWN = {name: number for number, name in enumerate(["img0", "img1", "img2", "img3", "é", "a;b", "q1"])}


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=prediction_files(), known=st.sampled_from([None, KNOWN]))
def test_predictions_read_as_line_by_line(data, known):
    assert (outcome(lambda d, n: predictions_as_tuple(d, n, known), data, "pred.csv")
            == outcome(lambda d, n: line_by_line.read_predictions(d, n, known), data, "pred.csv"))


def test_many_concepts_in_one_prediction_are_reported_as_the_validator_does():
    row = "img1," + ";".join(f"C{i % 60:07d}" for i in range(130)) + "\n"
    data = ("ID,CUIs\n" + row + "img2,C0000001;C0000001;c0000001\n").encode()
    assert predictions_as_tuple(data, "p.csv", KNOWN) == line_by_line.read_predictions(data, "p.csv", KNOWN)


@st.composite
def pair_files(draw) -> bytes:
    lines = [draw(st.sampled_from(["a,b", "A,B,extra", "x,y", "", ",", "a"]))]
    for _ in range(draw(st.integers(0, 8))):
        first, second = draw(st.sampled_from(CONCEPT_IDS + ["q1"])), draw(st.sampled_from(CONCEPT_IDS + ["q1"]))
        lines.append(draw(st.sampled_from([f"{first},{second}", f"{first},{second}", f"{first}", f" {first} , {second} ",
                                           f'"{first}",{second}', f"{first},{second},extra", ",,", "  "])))
    endings = [draw(st.sampled_from(["\n", "\n", "\r\n", "\r", "\n\n"])) for _ in lines]
    return "".join(line + ending for line, ending in zip(lines, endings)).encode("utf-8")


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=pair_files())
def test_pairs_read_as_line_by_line(data):
    assert outcome(read_pairs, data, "pairs.csv") == outcome(line_by_line.read_pairs, data, "pairs.csv")


NODES = ["C0042449", "c0005847", "UBERON:0001637", "MESH:D014680", "C0042449", "a b", "x;y", "", "é", "n" * 201]
TAG_VALUES = ["mesh", "", " hpo ", "do id", "é"]


@st.composite
def edge_files(draw) -> bytes:
    delimiter = draw(st.sampled_from([",", "\t"]))
    header = draw(st.sampled_from(["child,parent,source", "child,parent", "Child,Parent,x,Source", "", "C0000001,C0000002"]))
    lines = [header.replace(",", delimiter)]
    for _ in range(draw(st.integers(0, 8))):
        fields = [draw(st.sampled_from(NODES)), draw(st.sampled_from(NODES))]
        fields += draw(st.lists(st.sampled_from(TAG_VALUES), min_size=0, max_size=3))
        if draw(st.integers(0, 9)) == 0:
            fields = fields[:1]
        lines.append(delimiter.join(fields) if draw(st.integers(0, 12)) else '"' + delimiter.join(fields))
    endings = [draw(st.sampled_from(["\n", "\n", "\r\n", "\r", "\n\n"])) for _ in lines]
    return "".join(line + ending for line, ending in zip(lines, endings)).encode("utf-8")


@st.composite
def name_files(draw) -> bytes:
    lines = [draw(st.sampled_from(["CUI,Name", "id,name", "", "C0000001,First"]))]
    for _ in range(draw(st.integers(0, 8))):
        label = draw(st.sampled_from(["Veins", " Veins ", '"Veins, deep"', '"say ""hi"""', '""', "é", '"  x  "', "a\x0bb",
                                      'x"y', "", '"unclosed']))
        node = draw(st.sampled_from(NODES))
        lines.append(draw(st.sampled_from([f"{node},{label}", f"{node},{label}", f"{node}", f"{node},{label},more"])))
    endings = [draw(st.sampled_from(["\n", "\n", "\r\n", "\r", "\n\n"])) for _ in lines]
    return "".join(line + ending for line, ending in zip(lines, endings)).encode("utf-8")


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=edge_files())
def test_kg_edge_lists_read_as_line_by_line(data):
    assert outcome(lambda d, n: read_kg(d, n).edges, data, "kg.csv") == outcome(line_by_line.read_kg_edges, data, "kg.csv")


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=name_files())
def test_concept_names_read_as_line_by_line(data):
    assert (outcome(lambda d, n: list(read_concept_names(d, n).items()), data, "names.csv")
            == outcome(lambda d, n: list(line_by_line.read_concept_names(d, n).items()), data, "names.csv"))


@pytest.mark.slow
@needs(OPEN_KG)
def test_open_kg_files_read_as_line_by_line():
    edges, names = OPEN_KG.read_bytes(), OPEN_KG.with_name("open_kg_names.csv").read_bytes()
    assert read_kg(edges, "kg.csv").edges == line_by_line.read_kg_edges(edges, "kg.csv")
    assert list(read_concept_names(names, "n.csv").items()) == list(line_by_line.read_concept_names(names, "n.csv").items())
    cui_mapping = (ROCOV2 / "cui_mapping.csv").read_bytes()
    assert read_concept_names(cui_mapping, "m.csv") == line_by_line.read_concept_names(cui_mapping, "m.csv")
