"""Inputs on which a vectorised reader once differed from the line-by-line definition (found by Hypothesis)."""

from __future__ import annotations

import pytest

from evalcore.errors import InputError
from evalcore.readers import read_run
from tests import line_by_line
from tests.readers.test_vectorised_readers import concepts_as_list, outcome


@pytest.mark.parametrize("data", [
    b"ID\tCUIs\nimg1\na;b\t\n",  # "a;b<TAB>" is stripped to the lone field "a;b": an error, as in a CSV file
    b"ID\tCUIs\na|b\t\nimg1\tC0000001\n",
    b"ID\tCUIs\nimg1\t\nab\tC0000001\n",  # "img1<TAB>" is the ID alone, with no concepts
    b"ID\tCUIs\na;b\tC0000001\n",
])
def test_tab_separated_concepts_with_an_empty_last_field(data):
    assert outcome(concepts_as_list, data, "gt.tsv") == outcome(line_by_line.read_concepts, data, "gt.tsv")


@pytest.mark.parametrize("kg_text", [
    b"child,parent\nuberon:0001638,UBERON:0001637\n",  # the columnar path
    b'child,parent\n"uberon:0001638",UBERON:0001637\n',  # a quoted line: the line-by-line path
    b"child\tparent\nuberon:0001638\tuberon:0001637\n",  # a TSV
    b"child,parent\nc0040405,Uberon:0001637\n",
])
def test_a_kg_names_ontology_ids_in_any_case_as_the_concept_sets_do(kg_text):
    """Was: the concepts reader upper-cased "uberon:0001638" and the KG readers kept it, so the KG's node was another
    one and nn-IoU gave IoU's numbers at exit 0 (hunt 28d)."""
    from evalcore.readers import read_kg
    from evalcore.readers.names import read_concept_names

    nodes = {node for edge in read_kg(kg_text, "kg.csv").edges for node in edge[:2]}
    assert nodes <= {"UBERON:0001638", "UBERON:0001637", "C0040405"} and len(nodes) == 2
    assert read_concept_names(b"CUI,Name\nuberon:0001638,liver lobe\nDEMO:x1,a term\n", "n.csv") == {
        "UBERON:0001638": "liver lobe", "DEMO:x1": "a term"}
    assert read_concept_names(b'CUI,Name\n"uberon:0001638","liver, lobe"\n', "n.csv") == {
        "UBERON:0001638": "liver, lobe"}


def test_an_id_missing_in_another_unicode_form_is_quoted_with_its_code_points(tmp_path):
    """Was: a run's 'imágen' in NFD beside the concept sets' NFC one was refused as 'first: 'imágen'', which reads
    the same as the ID the file holds (hunt 28d)."""
    from evalcore.data import Run
    from evalcore.errors import InputError
    from evalcore.evaluation.evaluator import Evaluator
    from evalcore.readers import read_concepts

    concepts = read_concepts("ID,CUIs\nim\u00e1gen,C0040405\nx,C0040405\n".encode(), "c.csv")
    with pytest.raises(InputError, match=r"as code points 'ima\\u0301gen'; Unicode writes some letters in two ways"):
        Evaluator(concepts).evaluate([Run("s", {"ima\u0301gen": ("x",)})], ["CUI@1"])


BOM = b"\xef\xbb\xbf"


def _runs(data: bytes, name: str):
    from evalcore.readers import read_runs

    return [(run.name, list(run.rankings.items())) for run in read_runs(data, name)]


def _predictions(data: bytes, name: str):
    from evalcore.readers import read_predictions

    predictions = read_predictions(data, name)
    return predictions.sets, predictions.problems, predictions.problems_not_listed


def _kg(data: bytes, name: str):
    from evalcore.readers import read_kg

    kg = read_kg(data, name)
    return kg.edges, kg.part_of


def _kg_oracle(data: bytes, name: str):
    return line_by_line.read_kg_edge_list(data, name)


@pytest.mark.parametrize(("reader", "oracle", "data", "name"), [
    # A line that begins with a byte-order mark (the file's own, first, is not text): pyarrow dropped it where a piece
    # of the parsed text begins, so the ID lost it.
    (concepts_as_list, line_by_line.read_concepts, BOM + BOM + b"img1,C0000001\n", "gt.csv"),
    (concepts_as_list, line_by_line.read_concepts, BOM + BOM + b"img1\tC0000001\n", "gt.tsv"),
    (_runs, line_by_line.read_runs, BOM + BOM + b"q1 Q0 d1 1 0.5 t\n", "r.trec"),
    (_runs, line_by_line.read_runs, b" \xef\xbb\xbf \nq1 Q0 d1 1 0.5 t\n", "r.trec"),  # whitespace collapsed first
    (_runs, line_by_line.read_runs, BOM + BOM + b"q1,d1,1\n", "r.csv"),
    (_predictions, line_by_line.read_predictions, BOM + BOM + b"\n", "p.csv"),
    (_kg, _kg_oracle, BOM + BOM + b"C0000001,C0000002\n", "kg.csv"),
    # A CSV run whose header holds a quoted field that goes on over the next line: the fast path split the first line
    # alone and named another CSV error than the records do.
    (_runs, line_by_line.read_runs, b'query_id,"a\nb"image_id,rank\nq1,d1,1\n', "r.csv"),
    (_runs, line_by_line.read_runs, b'\r\n ""q1,d1\rq2,d1,-1,1e999\n', "r.csv"),
    # A relation refused on a line of the usual form comes before the errors of later lines, and a node's edge to
    # itself has its relation checked too, as the definition reads them (the columns checked those after the others,
    # and the self-loops not at all).
    (_kg, _kg_oracle, b"child,parent,source,relation\nC0000001,C0000002,x,foo\na b,C0000002,x,is_a\n", "kg.csv"),
    (_kg, _kg_oracle, b"child\tparent\trelation\nC0000001\tC0000002\tmesh\nx;y\tC0000002\n", "kg.tsv"),
    (_kg, _kg_oracle, b"child,parent,relation\nC0000001,C0000001,foo\nC0000001,C0000002,is_a\n", "kg.csv"),
    (_kg, _kg_oracle, b"child,parent,relation\nC0000001,C0000002,part_of\nC0000003,C0000003,part_of\n", "kg.csv"),
])
def test_fast_path_reads_as_the_definition(reader, oracle, data, name):
    assert outcome(reader, data, name) == outcome(oracle, data, name)


def test_a_refused_relation_is_named_on_its_own_line():
    from evalcore.errors import InputError
    from evalcore.readers import read_kg

    with pytest.raises(InputError) as raised:
        read_kg(b"child,parent,source,relation\nC0000001,C0000002,x,foo\na b,C0000002,x,is_a\n", "kg.csv")
    assert (str(raised.value), raised.value.line) == (
        "kg.csv, line 2: expected a relation is_a or part_of (empty: is_a), found 'foo'", 2)


def test_a_number_written_with_thousands_of_leading_zeros_is_read_as_atol_reads_it():
    """Was: a grade or a rank of over 4,300 digits, zeros included, raised int()'s ValueError, a traceback at the
    command line instead of a line named; trec_eval's atol() reads 000...01 as 1, and so do the readers now."""
    from contextlib import nullcontext

    from evalcore.errors import InputError
    from evalcore.readers import read_qrels, read_run
    from evalcore.readers.columnar import split_by_python

    zeros = b"0" * 5000
    qrels = b"q1 0 d1 " + zeros + b"2\nq1 0 d2 -" + zeros + b"1\n"
    run = b"q1 Q0 d1 " + zeros + b"1 0.5 mine\nq1 Q0 d2 +" + zeros + b"2 0.25 mine\n"
    for split in (split_by_python, nullcontext):  # Python's split, and pyarrow's
        with split():
            assert read_qrels(qrels, "x.qrels").judgments == {"q1": {"d1": 2, "d2": -1}}
            assert read_run(run, "r.trec").rankings == {"q1": ("d1", "d2")}
    assert line_by_line.read_qrels(qrels, "x.qrels") == {"q1": {"d1": 2, "d2": -1}}
    with pytest.raises(InputError, match="line 1: expected a grade between -2"):
        read_qrels(b"q1 0 d1 " + zeros + b"9007199254740993\n", "x.qrels")  # the value counts, not its zeros


@pytest.mark.parametrize("header", ["query_id,image_id,rank,score,score", 'query_id,image_id,rank,score,"SCORE"',
                                    "image_id,query_id,query_id,rank"])
def test_a_csv_run_header_naming_a_column_twice_is_refused(header):
    """Which of two score columns is the score? The first was read, silently; now the header is refused, on the
    columns' path (no quote) and the records' (a quote)."""
    name = header.lower().replace('"', "").split(",")
    repeated = next(column for column in ("query_id", "image_id", "rank", "score") if name.count(column) > 1)
    data = f"{header}\nDEMO_00001,DEMO_00002,1,0.5,0.9\n".encode()
    with pytest.raises(InputError, match=rf"^run\.csv, line 1: expected one column named {repeated}, found 2$"):
        read_run(data, "run.csv")
