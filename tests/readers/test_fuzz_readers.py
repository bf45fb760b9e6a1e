"""Fuzz every reader: each input either parses or raises InputError naming the file (and the line)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from evalcore.errors import InputError
from evalcore.readers import (
    read_captions,
    read_concept_names,
    read_concepts,
    read_embeddings,
    read_kg,
    read_labels,
    read_predictions,
    read_run,
    read_synonyms,
)

EXAMPLES = 1000
TOKENS = ["ID", "CUIs", "C0040405", "c0817096", "C123", "", "img1", "img1", "q1", "Q0", "1", "-3", "0.5", "nan", "inf",
          "-inf", "1e309", "tag", "child", "parent", "source", "kind", "class", "CUI", "modality", "organ", "CT",
          "format-version: 1.2", "[Term]", "id: U:1", "is_a: U:2", "xref: UMLS:C0042449", "ENG", "P", "PF", "Y",
          "\ufeff", "é", "\x00", "\"", "\"\"", "a" * 3000, "query_id", "image_id", "rank", "score", "v1", "1.5",
          "D014680", "label", "xref", "UMLS_CUI:C0042449", "synonym: \"Vein\" EXACT []"]
SEPARATORS = [",", ";", "\t", " ", "|", ",,", ""]
ENDINGS = ["\n", "\r\n", "\r", ""]


@st.composite
def text_files(draw) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        parts = draw(st.lists(st.sampled_from(TOKENS), min_size=0, max_size=7))
        separator = draw(st.sampled_from(SEPARATORS))
        lines.append(separator.join(parts) + draw(st.sampled_from(ENDINGS)))
    data = "".join(lines).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        cut = draw(st.integers(0, len(data)))
        data = data[:cut]  # truncated file, possibly mid-character
    return data


inputs = st.one_of(text_files(), st.binary(max_size=400), st.sampled_from([b"", b"\xef\xbb\xbf", b"\xff\xfe\x00"]))
READERS = {
    "concepts": read_concepts,
    "run": read_run,
    "kg": read_kg,
    "labels": read_labels,
    "names": read_concept_names,
    "captions": read_captions,
    "embeddings_csv": lambda data, name: read_embeddings(data, name + ".csv"),
    "predictions": lambda data, name: read_predictions(data, name, known_ids={"img1": 0}),
    "synonyms": lambda data, name: read_synonyms(data, name, names={"C0042449": "Veins", "C0040405": "CT"}),
    "synonyms_obo": lambda data, name: read_synonyms(data, name + ".obo"),
    "synonyms_rrf": lambda data, name: read_synonyms(data, name + ".RRF"),
}


@pytest.mark.slow
@pytest.mark.parametrize("reader", list(READERS))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=inputs)
@example(data=b'",ID\nID,"\n')  # found by fuzzing: a quoted header cell holding a line break
def test_reader_parses_or_names_file_and_line(reader, data):
    name = f"fuzz-{reader}"
    try:
        READERS[reader](data, name)
    except InputError as error:
        assert error.source.startswith(name)
        assert str(error).startswith(error.source)
        assert error.line is None or 1 <= error.line <= data.count(b"\n") + data.count(b"\r") + 1
        assert "\n" not in str(error)
