"""TREC qrels as columns: the reader's fast path against the line-by-line definition (the same judgments in the same
order, or the same first error, message and line), and the vectorised JudgedRelevance against the per-item one of
tests/line_by_line.py (the same grades, ideal rankings, counts and aligned runs)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from evalcore.data import ConceptSets, JudgmentColumns, Qrels, Run
from evalcore.errors import InputError
from evalcore.evaluation.evaluator import PADDING, QUERY_ITSELF, UNKNOWN, AlignedRun, JudgedRelevance
from evalcore.readers import read_qrels, read_run
from evalcore.readers.columnar import split_by_python
from evalcore.readers.qrels import _qrels_by_columns
from tests import line_by_line

EXAMPLES = 400


def outcome(reader, *arguments):
    try:
        qrels = reader(*arguments)
    except InputError as error:
        return "error", str(error), error.line
    judgments = qrels.judgments if isinstance(qrels, Qrels) else qrels
    return "ok", [(query, list(judgments[query].items())) for query in judgments]


def definition(data: bytes, name: str):
    return outcome(line_by_line.read_qrels, data, name)


def by_python(data: bytes, name: str) -> Qrels:
    """read_qrels with every line split by Python, as the format is defined (never by pyarrow)."""
    with split_by_python():
        return read_qrels(data, name)


def fast_outcome(data: bytes, name: str):
    """The fast path's answer on a file's checked bytes, or None where it leaves the file to the definition."""
    try:
        qrels = _qrels_by_columns(data.removeprefix(b"\xef\xbb\xbf"), name)
    except InputError as error:
        return "error", str(error), error.line
    return None if qrels is None else outcome(lambda: qrels)


# --- hand-worked -----------------------------------------------------------------------------

def test_columns_read_comments_blank_lines_tabs_and_crlf_as_trec_eval():
    data = b"# judged by hand\r\nq2 0 d1 1\r\n\r\n  q1\tQ0  d2 -1 \r\n#q1 0 d9 5\r\nq1 0 d1 0003\r\nq2 0 d2 +2\r\n"
    qrels = read_qrels(data, "x.qrels")
    assert isinstance(qrels.judgments, JudgmentColumns)
    assert list(qrels.judgments) == ["q2", "q1"]
    assert list(qrels.judgments["q1"].items()) == [("d2", -1), ("d1", 3)]
    assert qrels.judgments == {"q2": {"d1": 1, "d2": 2}, "q1": {"d2": -1, "d1": 3}}
    assert qrels == by_python(data, "x.qrels") and len(qrels) == 2


@pytest.mark.parametrize(("data", "message"), [
    (b"q1 0 d1 1\nq1 0 d2\n", "x.qrels, line 2: expected 4 whitespace-separated fields 'qid iter docid grade', found 3 fields"),
    (b"q1 0 d1 1\nq1 0 d1 2\n", "x.qrels, line 2: expected each (query, document) pair judged once (q1 d1 already on "
                                "line 1), found a duplicate"),
    (b"q1 0 d1 1\n\nq2 0 d1 1.5\nq1 0 d1 2\n", "x.qrels, line 3: expected an integer grade (e.g. 0, 1, 2), found '1.5'"),
    (b"q1 0 d1 1\nq2 0 d1 9007199254740993\n", "x.qrels, line 2: expected a grade between -2^53 and 2^53, found "
                                               "9007199254740993"),
    (b"q1 0 " + b"d" * 301 + b" 1\n", "x.qrels, line 1: expected an image ID without spaces (1-300 characters), found "),
    (b"# only a comment\n\n", "x.qrels: expected at least one judgment line 'qid iter docid grade', found none"),
    (b"q1 0 d1 x\nq1 0 d2\n", "x.qrels, line 1: expected an integer grade (e.g. 0, 1, 2), found 'x'"),
    (b"q1 0 d1 1\nq1 0 d2 1 extra\nq1 0 d1 1\n", "x.qrels, line 2: expected 4 whitespace-separated fields"),
    (b"a 0 x 1\nb 0 y 1\nb 0 y 2\na 0 x 3\n", "x.qrels, line 3: expected each (query, document) pair judged once (b y "
                                              "already on line 2)"),
])
def test_columns_name_the_first_offending_line_as_the_definition(data, message):
    with pytest.raises(InputError) as raised:
        read_qrels(data, "x.qrels")
    assert str(raised.value).startswith(message)
    assert definition(data, "x.qrels") == ("error", str(raised.value), raised.value.line)


def test_judgment_columns_from_a_mapping_read_as_the_mapping():
    judgments = {"q": {"b": 2, "a": -1}, "empty": {}, "r": {"a": 1}}
    columns = JudgmentColumns.from_mapping(judgments)
    assert columns == judgments and list(columns) == ["q", "empty", "r"] and list(columns["q"]) == ["b", "a"]
    assert columns.first_repeated() is None and "empty" in columns and "x" not in columns
    grades, judged = columns.grades_of(columns.query_codes(["q", "r", "x", "empty"]), columns.document_codes(["a"] * 4))
    assert grades.tolist() == [-1, 1, 0, 0] and judged.tolist() == [True, True, False, False]


# --- the fast path against the definition, on generated files ----------------------------------

IDS = ["q1", "q2", "d1", "d2", "d3", "é", "a#b", "x" * 301, "x" * 300]
GRADES = ["0", "1", "2", "-1", "+2", "007", "1.5", "x", "1_0", "٣", "9007199254740992", "-9007199254740993", ""]
SPACES = [" "] * 8 + ["  ", "\t", "\x0b", "\xa0", "\u2003", " \t ", "\x1c"]
ENDINGS = ["\n"] * 6 + ["\r\n", "\r", "\n\n", "\n \n"]


@st.composite
def qrels_files(draw) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 10))):
        if draw(st.integers(0, 11)) == 0:
            lines.append(draw(st.sampled_from(["#", "# a comment", " # x y", "#q1 0 d1 1", "\ufeffq1 0 d1 1"])))
        else:
            fields = [draw(st.sampled_from(IDS[:2])), draw(st.sampled_from(["0", "Q0"])), draw(st.sampled_from(IDS)),
                      draw(st.sampled_from(GRADES))]
            if draw(st.integers(0, 9)) == 0:
                del fields[draw(st.integers(0, 3))]
            if draw(st.integers(0, 14)) == 0:
                fields.append("extra")
            separators = [draw(st.sampled_from(SPACES)) for _ in fields]
            line = "".join(f + s for f, s in zip(fields, separators))[: -len(separators[-1])]
            if draw(st.integers(0, 9)) == 0:
                line = draw(st.sampled_from(SPACES)) + line + draw(st.sampled_from(SPACES))
            lines.append(line)
        lines[-1] += draw(st.sampled_from(ENDINGS))
    return "".join(lines).encode("utf-8")


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels_files())
@example(b"q1 0 d1 1\nq1 0 d2 1\nq2 0 d1 1\nq1 0 d2 2\n")
@example(b"q1 0 d1 1\r\nq1  0 d2 1\n")
@example(b"q1 0 d1 1\nq1 0 d1 x\nq1 0 d1 1\n")
def test_read_qrels_equals_the_definition(data):
    expected = definition(data, "g.qrels")
    assert outcome(read_qrels, data, "g.qrels") == expected
    assert fast_outcome(data, "g.qrels") in (expected, None)


def random_qrels_text(seed: int) -> tuple[bytes, dict]:
    """A well-formed qrels file of a few thousand lines, queries and documents interleaved as pools are."""
    rng = random.Random(seed)
    pairs = [(f"q{rng.randrange(60)}", f"doc-{rng.randrange(900)}") for _ in range(rng.randrange(1, 4000))]
    lines, expected = [], {}
    for qid, docid in dict.fromkeys(pairs):
        grade = rng.choice([0, 1, 2, 3, -1, 10**15])
        expected.setdefault(qid, {})[docid] = grade
        lines.append(f"{qid}{rng.choice([' ', '  ', chr(9)])}{rng.choice(['0', 'Q0'])} {docid} {grade}")
        if rng.random() < 0.01:
            lines.append(rng.choice(["# comment", "", "   "]))
    return ("\n".join(lines) + rng.choice(["", "\n"])).encode(), expected


@pytest.mark.parametrize("seed", range(8))
def test_fast_path_equals_the_definition_on_seeded_random_qrels(seed):
    data, expected = random_qrels_text(seed)
    assert fast_outcome(data, "r.qrels") == outcome(by_python, data, "r.qrels") == definition(data, "r.qrels")
    assert _qrels_by_columns(data, "r.qrels").judgments == expected
    lines = data.split(b"\n")
    position = random.Random(seed).randrange(len(lines))
    broken = b"\n".join(lines[:position] + [lines[position] + b" extra", *lines[position + 1:]])
    assert outcome(read_qrels, broken, "r.qrels") == definition(broken, "r.qrels")
    repeated = data + b"\n" + lines[position] if lines[position].strip() else data
    assert outcome(read_qrels, repeated, "r.qrels") == definition(repeated, "r.qrels")


# --- the vectorised relevance against the per-item one -----------------------------------------

def random_world(seed: int):
    rng = random.Random(seed)
    ids = [f"img{i}" for i in range(40)]
    queries = ids[:15] + ["no-concepts-q"]
    judgments = {}
    for query in rng.sample(queries, 11) + ["judged-only"]:
        judgments[query] = {doc: rng.choice([-1, 0, 0, 1, 2, 3]) for doc in rng.sample(ids + ["unknown-doc"], rng.randrange(0, 12))}
    rankings = {}
    for query in rng.sample(queries, 12):
        listed = rng.sample(ids + ["unknown-doc", "other-doc"], rng.randrange(0, 20))
        if rng.random() < 0.5:
            listed.insert(rng.randrange(len(listed) + 1), query)
        rankings[query] = tuple(listed)
    return judgments, Run("r", rankings, "r.trec"), ConceptSets(tuple(ids), tuple(frozenset({i % 3}) for i in range(40)))


def assert_same_alignment(ours, oracle):
    assert ours[0] == oracle[0]
    assert np.array_equal(ours[1], oracle[1])
    assert ours[3] == oracle[3]
    assert (ours[2] is None) == (oracle[2] is None)
    if ours[2] is not None:
        assert ours[2].name == oracle[2].name and ours[2].counts == oracle[2].counts
        assert np.array_equal(ours[2].query_rows, oracle[2].query_rows)
        assert np.array_equal(ours[2].documents, oracle[2].documents)


@pytest.mark.parametrize("seed", range(40))
def test_vectorised_align_ideal_and_counts_equal_the_per_item_ones(seed):
    judgments, run, concepts = random_world(seed)
    ours, oracle = JudgedRelevance(Qrels(judgments)), line_by_line.JudgedRelevanceByItems(judgments)
    depth = random.Random(seed).choice([1, 3, 8, 25])
    for keep_query in (False, True):
        for with_concepts in (None, concepts):
            assert_same_alignment(ours.align(run, depth, with_concepts, keep_query),
                                  oracle.align(run, depth, with_concepts, keep_query))
    judged = [query for query in run.rankings if query in judgments]
    for k in (1, 2, 5, 100):
        assert np.array_equal(ours.ideal(judged, k), oracle.ideal(judged, k))
    for level in (-1, 0, 1, 2, 3, 4):
        assert np.array_equal(ours.relevant_counts(judged, level), oracle.relevant_counts(judged, level))
    assert ours.highest_grade == oracle.highest_grade


@pytest.mark.parametrize("seed", range(20))
def test_vectorised_align_of_an_aligned_run_equals_the_per_item_one(seed):
    judgments, _, concepts = random_world(seed)
    rng = np.random.default_rng(seed)
    rows = rng.choice(np.arange(-1, 16), size=rng.integers(1, 9))  # -1 and a repeated row read as a dict reads them
    documents = rng.choice([*range(40), PADDING, UNKNOWN, QUERY_ITSELF], size=(len(rows), 12))
    documents[:, rng.integers(0, 13):] = PADDING
    aligned = AlignedRun("a", rows.astype(np.int64), documents.astype(np.int64), {})
    ours, oracle = JudgedRelevance(Qrels(judgments)), line_by_line.JudgedRelevanceByItems(judgments)
    for keep_query in (False, True):
        try:
            expected = oracle.align(aligned, 10, concepts, keep_query)
        except InputError as error:
            with pytest.raises(InputError, match="none of its"):
                ours.align(aligned, 10, concepts, keep_query)
            assert "none of its" in str(error)
            continue
        assert_same_alignment(ours.align(aligned, 10, concepts, keep_query), expected)


def test_align_of_a_read_run_and_read_qrels_equals_the_per_item_one():
    rng = random.Random(5)
    lines = [f"q{q} Q0 d{d} {rank} {100 - rank} s" for q in range(30) for rank, d in enumerate(rng.sample(range(80), 40))]
    run = read_run(("\n".join(lines) + "\n").encode(), "s.trec")
    data = "".join(f"q{q} 0 d{d} {(q * 7 + d) % 5 - 1}\n" for q in range(35) for d in range(0, 90, 3)).encode()
    oracle = line_by_line.JudgedRelevanceByItems(line_by_line.read_qrels(data, "q.qrels"), "q.qrels")
    for depth in (10, 50):
        assert_same_alignment(JudgedRelevance(read_qrels(data, "q.qrels")).align(run, depth, None),
                              oracle.align(run, depth, None))


def test_align_refuses_a_run_without_judged_queries_as_before():
    judgments = {"q": {"a": 1}}
    run = Run("r", {"x": ("a",), "y": ()}, "r.trec")
    with pytest.raises(InputError) as ours:
        JudgedRelevance(Qrels(judgments, "j.qrels")).align(run, 5, None)
    with pytest.raises(InputError) as oracle:
        line_by_line.JudgedRelevanceByItems(judgments, "j.qrels").align(run, 5, None)
    assert str(ours.value) == str(oracle.value)
