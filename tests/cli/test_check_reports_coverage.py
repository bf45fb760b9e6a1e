"""The validation report (``check``, the Data page) counts a file's data rows and says what a file about the
collection's images lacks and adds; the report's HTML escapes every table cell (a hostile-input review, hunt 26)."""

from __future__ import annotations

import io
from html.parser import HTMLParser

import numpy as np
import pytest

from evalcore.app.workspace import (
    Workspace,
    load_rocov2_complete,
    report_table,
    with_captions,
    with_concepts,
    with_embeddings,
    with_images,
    with_kg,
    with_labels,
)
from evalcore.cli import main
from evalcore.errors import InputError
from evalcore.io.tables import format_p_value
from tests import zip_inputs as z

CONCEPTS = b"ID,CUIs\nA,C0000001;C0000002\nB,C0000002\nC,C0000003\nD,C0000001\n"


def collection() -> Workspace:
    """Four images, A to D."""
    return with_concepts(Workspace(), CONCEPTS, "c.csv")


def problems_of(workspace: Workspace) -> str:
    """The problems of the last report row: the file just loaded."""
    return report_table(workspace)[-1]["problems"]


def test_labels_rows_read_are_the_files_data_rows(tmp_path, capsys):
    per_image = b"ID,modality,organ\nA,CT,abdomen\nB,MRI,head\nC,,chest\n"
    (tmp_path / "c.csv").write_bytes(CONCEPTS)
    (tmp_path / "labels.csv").write_bytes(per_image)
    assert main(["check", "--concepts", str(tmp_path / "c.csv"), "--labels", str(tmp_path / "labels.csv")]) == 0
    # rows read was 6 (once a kind); the image without a label is said, as a caption's or an embedding's is
    assert f"| {tmp_path / 'labels.csv'} | labels | 3 | 1 of 4 images has no label |" in capsys.readouterr().out
    mapping = b"kind,class,CUI\nmodality,CT,C0040405\nmodality,X-ray,C0040405\norgan,head,C0018670\n"
    assert report_table(with_labels(collection(), mapping, "map.csv"))[-1]["rows read"] == "3"  # was 2: once a CUI


def test_labels_of_none_of_the_images_are_refused_on_the_data_page_as_on_the_command_line(tmp_path, capsys):
    """Was accepted on the Data page (the command line and the API refused it): every P@K then scored no query."""
    other = b"ID,modality\nX1,CT\nX2,MRI\n"
    with pytest.raises(InputError, match="expected labels of images of the concept sets .*found none of its 2 IDs"):
        with_labels(collection(), other, "other.csv")
    assert problems_of(with_labels(collection(), b"ID,modality\nA,CT\nX2,MRI\n", "l.csv")) == \
        "3 of 4 images have no label; 1 ID is not an image of the collection: X2"
    assert problems_of(with_labels(Workspace(), other, "other.csv")) == "none"  # no collection to compare with yet
    (tmp_path / "c.csv").write_bytes(CONCEPTS)
    (tmp_path / "other.csv").write_bytes(other)
    assert main(["check", "--concepts", str(tmp_path / "c.csv"), "--labels", str(tmp_path / "other.csv")]) == 2
    assert "found none of its 2 IDs" in capsys.readouterr().err


def test_captions_that_cover_few_images_say_so():
    problems = problems_of(with_captions(collection(), b'ID,Caption\nA,"CT of liver"\nE,MRI\n', "cap.csv"))
    assert problems == "3 of 4 images have no caption; 1 ID is not an image of the collection: E"
    every = b"ID,Caption\nA,CT\nB,CT\nC,CT\nD,CT\n"
    assert problems_of(with_captions(collection(), every, "cap.csv")) == "none"


def test_unknown_ids_are_counted_with_a_few_examples():
    captions = b"ID,Caption\n" + b"".join(b"E%d,CT\n" % number for number in range(10)) + b"A,CT\nB,CT\nC,CT\nD,CT\n"
    problems = problems_of(with_captions(collection(), captions, "cap.csv"))
    assert problems == "10 IDs are not images of the collection: E0, E1, E2 and 7 more"


def test_embeddings_name_the_images_they_lack_and_the_ids_they_add(tmp_path, capsys):
    buffer = io.BytesIO()
    np.save(buffer, np.eye(4, 2, dtype=np.float32) + 0.5)
    ids = b"A\nB\nC\nE\n"
    problems = problems_of(with_embeddings(collection(), buffer.getvalue(), "emb.npy", ids, "ids.txt"))
    assert problems == "1 of 4 images has no embedding; 1 ID is not an image of the collection: E"
    # The command line prints the same row.
    for name, data in (("c.csv", CONCEPTS), ("emb.npy", buffer.getvalue()), ("ids.txt", ids)):
        (tmp_path / name).write_bytes(data)
    assert main(["check", "--concepts", str(tmp_path / "c.csv"), "--embeddings", str(tmp_path / "emb.npy"),
                 "--embedding-ids", str(tmp_path / "ids.txt")]) == 0
    assert f"| 4 x 2 | {problems} |" in capsys.readouterr().out


def test_all_zero_embeddings_are_named_on_the_data_page_and_by_retrieve(tmp_path, capsys):
    """Was silent: a vector of zeros has no direction, so every cosine similarity of it is 0 and it ranks all tied."""
    vectors = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0], [0.0, 0.0]], dtype=np.float32)
    buffer = io.BytesIO()
    np.save(buffer, vectors)
    ids = b"A\nB\nC\nD\n"
    problems = problems_of(with_embeddings(collection(), buffer.getvalue(), "emb.npy", ids, "ids.txt"))
    assert problems == "2 embeddings are all zeros (no direction: cosine similarity 0 to every image, all tied): B, D"
    for name, data in (("c.csv", CONCEPTS), ("emb.npy", buffer.getvalue()), ("ids.txt", ids)):
        (tmp_path / name).write_bytes(data)
    assert main(["retrieve", "--concepts", str(tmp_path / "c.csv"), "--by", "embeddings", "--embeddings",
                 str(tmp_path / "emb.npy"), "--embedding-ids", str(tmp_path / "ids.txt"), "--out",
                 str(tmp_path / "run.trec")]) == 0
    assert f"note: {tmp_path / 'emb.npy'}: {problems}" in capsys.readouterr().err
    np.save(buffer := io.BytesIO(), vectors + 0.5)
    assert problems_of(with_embeddings(collection(), buffer.getvalue(), "emb.npy", ids, "ids.txt")) == "none"


def test_a_zip_of_images_names_lacking_images_other_ids_and_files_that_are_no_image():
    data = z.zipped({"A.png": z.png(), "B.png": b"not a png", "ZZZ.png": z.png(seed=1), "C.jpg": z.png(seed=2)})
    ws = with_images(collection(), data, "imgs.zip")
    assert sorted(ws.images) == ["A", "B", "C", "ZZZ"]  # the file that is no image is kept: shown as unreadable
    assert problems_of(ws) == ("1 of 4 images has no image file (shown as text); 1 ID is not an image of the "
                               "collection: ZZZ; 1 file is not a readable PNG or JPEG image: B.png")


def test_a_rocov2_folder_and_an_upload_report_captions_by_one_definition(tmp_path):
    (tmp_path / "test_concepts.csv").write_bytes(CONCEPTS)
    captions = b"ID,Caption\nA,CT\nB,MRI\nE,CT\n"
    (tmp_path / "test_captions.csv").write_bytes(captions)
    folder = load_rocov2_complete(str(tmp_path), (tmp_path,))
    row = next(row for row in report_table(folder) if row["kind"] == "captions")
    assert row["problems"] == problems_of(with_captions(collection(), captions, "cap.csv")) == (
        "2 of 4 images have no caption; 1 ID is not an image of the collection: E")


class Cells(HTMLParser):
    """The text of every table cell of a page, as a browser reads it."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[str] = []
        self.inside = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "td":
            self.inside = True
            self.cells.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self.inside = False

    def handle_data(self, data: str) -> None:
        if self.inside:
            self.cells[-1] += data


def test_report_cells_are_escaped(tmp_path):
    # Two queries on which one system is always right and the other always wrong: a constant difference, whose
    # paired t-test p-value is 0 and shown as "< 0.001".
    (tmp_path / "gt.csv").write_text("ID,CUIs\nq1,C0000001\nq2,C0000001\na,C0000001\nb,C0000002\n")
    (tmp_path / "runs.trec").write_text("q1 Q0 a 1 2 good\nq2 Q0 a 1 2 good\nq1 Q0 b 1 2 bad\nq2 Q0 b 1 2 bad\n")
    out = tmp_path / "r.html"
    assert main(["report", "--concepts", str(tmp_path / "gt.csv"), "--run", str(tmp_path / "runs.trec"),
                 "--k", "1", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "<td>&lt; 0.001</td>" in text and "<td><" not in text.replace("<td><code>", "")
    parser = Cells()
    parser.feed(text)
    assert format_p_value(0.0) in parser.cells  # the text a reader sees, which the CSV and LaTeX exports keep


def test_a_knowledge_graph_of_none_of_the_concepts_is_named_by_check_evaluate_and_detection(tmp_path, capsys):
    """Was silent (hunt 27): the labels file given as --kg was read as edges between image IDs and classes, and
    nn-CUI@10 equalled CUI@10 at exit 0. Its header now says what it is (hunt 28); its rows alone, a graph of other
    IDs, are named."""
    from tests.conftest import DEMO

    concepts, run = DEMO / "concepts.csv", DEMO / "runs" / "overlap-noisy.trec"
    assert main(["check", "--concepts", str(concepts), "--kg", str(DEMO / "labels.csv")]) == 2
    assert "found the header of labels ('ID,modality,organ'): load it as labels" in capsys.readouterr().err
    labels = tmp_path / "label_rows.csv"
    labels.write_text("".join((DEMO / "labels.csv").read_text().splitlines(keepends=True)[1:]))
    assert main(["check", "--concepts", str(concepts), "--kg", str(labels)]) == 0
    said = ("the knowledge graph (2,006 nodes) names none of the concepts of the collection (e.g. C0000726): nn-IoU "
            "gives the numbers of IoU")
    assert f" edges | {said} |" in capsys.readouterr().out
    assert main(["evaluate", "--concepts", str(concepts), "--kg", str(labels), "--run", str(run), "--metrics",
                 "nn-CUI@10", "--json", str(tmp_path / "e.json")]) == 0
    assert f"note: --kg: {said}\n" in capsys.readouterr().err
    assert main(["detection", "--gt", str(concepts), "--pred", str(concepts), "--kg", str(labels), "--json",
                 str(tmp_path / "d.json")]) == 0
    assert f"note: --kg: {said}\n" in capsys.readouterr().err
    assert main(["evaluate", "--concepts", str(concepts), "--kg", str(DEMO / "kg_edges.csv"), "--run", str(run),
                 "--metrics", "nn-CUI@10", "--json", str(tmp_path / "e.json")]) == 0
    assert "--kg:" not in capsys.readouterr().err


def test_a_graph_split_over_files_is_judged_whole():
    """A file of links between the nodes of a file loaded before names no concept itself, yet the graph they make
    together does: no warning (the review of hunt 27's fix)."""
    concepts = with_concepts(Workspace(), b"ID,CUIs\nq,C0000001\na,C0000002\nb,C0000003\n", "c.csv")
    first = with_kg(concepts, b"child,parent\nC0000001,C0000011\nC0000002,C0000012\n", "a.csv")
    assert problems_of(with_kg(first, b"child,parent\nC0000011,C0000012\n", "b.csv")) == "none"
    assert problems_of(with_kg(concepts, b"child,parent\nC0000011,C0000012\n", "b.csv")).startswith(
        "the knowledge graph (2 nodes) names none of the concepts of the collection")
