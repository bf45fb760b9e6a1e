"""Inputs on which a vectorised reader once differed from the line-by-line definition (found by Hypothesis)."""

from __future__ import annotations

import pytest

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
