"""TREC qrels ``qid iter docid grade``, read as trec_eval reads them."""

from __future__ import annotations

from evalcore.data import Qrels
from evalcore.decimals import DECIMAL_INTEGER, bounded_integer
from evalcore.errors import InputError
from evalcore.readers.files import Source, read_text
from evalcore.readers.lines import check_id, split_lines

MAX_GRADE_MAGNITUDE = 1 << 53  # grades become float64 gains, exact only up to 2^53


def read_qrels(source: Source, name: str | None = None) -> Qrels:
    """Read TREC qrels ``qid iter docid grade`` (whitespace-separated) as trec_eval reads them.

    ``iter`` is ignored. The grade must be an integer: trec_eval's ``atol`` would silently
    read ``1.5`` as 1, here it is an error. Negative grades are kept; trec_eval reads them
    as "in the pool but unjudged", which every metric scores like grade 0. Lines starting
    with ``#`` are skipped, as trec_eval's ``get_qrels.c`` does (the readers of pytrec_eval,
    ir_measures and ranx reject them). A (qid, docid) pair judged twice is an error, as in trec_eval.

    >>> read_qrels(b"q1 0 d1 2\\nq1 0 d2 0\\nq2 Q0 d1 1\\n", "x.qrels").judgments["q1"]
    {'d1': 2, 'd2': 0}
    """
    text, display = read_text(source, name)
    judgments: dict[str, dict[str, int]] = {}
    seen: dict[tuple[str, str], int] = {}
    for line, content in split_lines(text, display):
        if content.startswith("#"):
            continue
        fields = content.split()
        if len(fields) != 4:
            raise InputError(display, line, "4 whitespace-separated fields 'qid iter docid grade'", f"{len(fields)} fields")
        qid, docid = check_id(fields[0], display, line), check_id(fields[2], display, line)
        if not DECIMAL_INTEGER.fullmatch(fields[3]):
            raise InputError(display, line, "an integer grade (e.g. 0, 1, 2)", repr(fields[3])[:40])
        grade = bounded_integer(fields[3], MAX_GRADE_MAGNITUDE)
        if grade is None:
            raise InputError(display, line, "a grade between -2^53 and 2^53", fields[3][:40])
        if (qid, docid) in seen:
            raise InputError(display, line, f"each (query, document) pair judged once ({qid} {docid} already on line "
                                            f"{seen[(qid, docid)]})", "a duplicate")
        seen[(qid, docid)] = line
        judgments.setdefault(qid, {})[docid] = grade
    if not judgments:
        raise InputError(display, None, "at least one judgment line 'qid iter docid grade'", "none")
    return Qrels(judgments, display)
