"""A refused file, said to a clinician in the words written where it was refused: every InputError the dashboard's
loaders raise on a malformed file of each kind (concept sets, results of retrieval systems, the concept map, labels,
concept names, captions, images, picture similarity vectors, ratings) carries a plain wording of what was expected;
the clinician's message (dashboard.wording.refusal) names the file and line as written and holds no research word,
and the researcher's message is the one evalcore wrote before the plain wordings, byte for byte."""

import numpy as np
import pytest

from dashboard.wording import RESEARCH_WORDS, refusal
from evalcore.app.workspace import (
    Workspace,
    with_captions,
    with_concepts,
    with_embeddings,
    with_images,
    with_kg,
    with_labels,
    with_names,
    with_new_concepts,
    with_run,
)
from evalcore.errors import InputError
from evalcore.readers.files import INPUT_BUDGET_VARIABLE
from evalcore.readers.judgment_columns import read_judgment_columns
from tests.dashboard.test_app_audience import forbidden_in
from tests.hostile_inputs import (
    CONCEPTS,
    EMBEDDING_IDS,
    GARBAGE,
    LATIN1_LINE3,
    NUL_LINE3,
    OBO_HEADER,
    SEMICOLON_HEADER,
    TOO_MANY_CUIS,
    UNCLOSED_QUOTE_LINE3,
    VECTORS,
    npy,
    parquet,
    vector_frame,
    with_nan,
)
from tests.zip_inputs import DAMAGED

HEADER = b"judge,case,candidate,grade\n"
TIMED = b"judge,case,candidate,grade,time\n"
LONG_LINE = b"ID,CUIs\nq,C0040405\n" + b"x" * ((1 << 20) + 1) + b"\n"


def base() -> Workspace:
    return with_concepts(Workspace(), CONCEPTS, "concepts.csv")


def embeddings(ids: bytes | None = EMBEDDING_IDS):
    return lambda workspace, data, name: with_embeddings(workspace, data, name, ids, None if ids is None else "ids.txt")


LOADERS = {
    "concepts": with_new_concepts, "runs": with_run, "map": with_kg, "labels": with_labels, "names": with_names,
    "captions": with_captions, "images": with_images, "vectors": embeddings(), "vectors alone": embeddings(None),
    "judgments": lambda workspace, data, name: read_judgment_columns(data, name),
}
#: (case, loader, file name, bytes): one malformed file per raise site the dashboard's loaders reach.
CASES = [
    # what every text reader checks first
    ("not text", "concepts", "sets.csv", GARBAGE),
    ("latin-1", "concepts", "sets.csv", LATIN1_LINE3),
    ("NUL byte", "captions", "notes.csv", NUL_LINE3),
    ("unclosed quote", "concepts", "sets.csv", UNCLOSED_QUOTE_LINE3),
    ("long field", "concepts", "sets.csv", LONG_LINE),
    ("long line", "runs", "results.txt", b"q Q0 x 1 3 s\n" + b"x" * ((1 << 20) + 1) + b"\n"),
    # concept sets
    ("semicolons", "concepts", "sets.csv", SEMICOLON_HEADER),
    ("captions header", "concepts", "sets.csv", b"ID,Caption\nq,CT of the head\n"),
    ("bad code", "concepts", "sets.csv", b"ID,CUIs\nq,C12\n"),
    ("empty code", "concepts", "sets.csv", b"ID,CUIs\nq,C0040405;;C0042449\n"),
    ("image twice", "concepts", "sets.csv", b"ID,CUIs\nq,C0040405\nq,C0042449\n"),
    ("too many codes", "concepts", "sets.csv", TOO_MANY_CUIS),
    ("three fields", "concepts", "sets.csv", b"ID,CUIs\nq,C0040405,C0042449\n"),
    ("one field with ;", "concepts", "sets.csv", b"ID,CUIs\nq;C0040405\n"),
    ("header only", "concepts", "sets.csv", b"ID,CUIs\n"),
    ("three tab fields", "concepts", "sets.tsv", b"q\tC0040405\tC0042449\n"),
    ("spaced ID", "concepts", "sets.csv", b"ID,CUIs\nq r,C0040405\n"),
    # the results of retrieval systems
    ("five fields", "runs", "results.txt", b"q Q0 x 1 3\n"),
    ("five fields later", "runs", "results.txt", b"q Q0 x 1 3 s\nq Q0 y 2\n"),
    ("word rank", "runs", "results.txt", b"q Q0 x one 3 s\n"),
    ("huge rank", "runs", "results.txt", b"q Q0 x 99999999999999 3 s\n"),
    ("word score", "runs", "results.txt", b"q Q0 x 1 high s\n"),
    ("infinite score", "runs", "results.txt", b"q Q0 x 1 inf s\n"),
    ("overflowing score", "runs", "results.txt", b"q Q0 x 1 1e999 s\n"),
    ("image twice", "runs", "results.txt", b"q Q0 x 1 3 s\nq Q0 x 2 2 s\n"),
    ("rank twice", "runs", "results.txt", b"q Q0 x 1 3 s\nq Q0 y 1 2 s\n"),
    ("blank", "runs", "results.txt", b"\n\n"),
    ("no rank column", "runs", "results.csv", b"query_id,image_id,score\nq,x,1\n"),
    ("two fields", "runs", "results.csv", b"query_id,image_id,rank,score\nq,x\n"),
    ("no score", "runs", "results.csv", b"query_id,image_id,rank,score\nq,x,1,\n"),
    ("score on one row", "runs", "results.csv", b"q,x,1\nq,y,2,5\n"),
    ("semicolons", "runs", "results.txt", b"q;x;1\n"),
    ("sets header", "runs", "results.csv", b"ID,CUIs\nq,C0040405\n"),
    ("the tool's name", "runs", "Retrieval by hand.csv", b"query_id,image_id,rank\nq,x,1\n"),
    ("unknown cases", "runs", "results.txt", b"nobody Q0 x 1 3 s\n"),
    # the concept map
    ("no link", "map", "map.csv", b"child,parent\n"),
    ("bad kind of link", "map", "map.csv", b"child,parent,relation\nC0042449,C0005847,sibling\n"),
    ("one field", "map", "map.csv", b"child,parent\nC0042449\n"),
    ("spaced code", "map", "map.csv", b"child,parent\nC0042449 x,C0005847\n"),
    ("captions header", "map", "map.csv", b"ID,Caption\nq,CT of the head\n"),
    ("semicolons", "map", "map.csv", b"child;parent\nC0042449;C0005847\n"),
    ("short rows", "map", "map.rrf", b"C0042449|A0001|AUI|PAR\n"),
    ("no parent rows", "map", "map.rrf", b"C0042449|A0001|AUI|RO|C0005847|A0002|AUI|other|R0001||MSH|MSH|||N||\n"),
    ("term without id", "map", "map.obo", OBO_HEADER + b"[Term]\nname: vein\n"),
    ("no broader term", "map", "map.obo", OBO_HEADER + b"[Term]\nid: DEMO:0000001\nname: vein\n"),
    # labels
    ("empty", "labels", "labels.csv", b"\n"),
    ("short row", "labels", "labels.csv", b"ID,modality,organ\nq,CT\n"),
    ("image twice", "labels", "labels.csv", b"ID,modality,organ\nq,CT,abdomen\nq,CT,chest\n"),
    ("header only", "labels", "labels.csv", b"ID,modality,organ\n"),
    ("unknown header", "labels", "labels.csv", b"picture,colour\nq,grey\n"),
    ("short code row", "labels", "labels.csv", b"kind,class,CUI\nmodality,CT\n"),
    ("unknown kind", "labels", "labels.csv", b"kind,class,CUI\nsize,large,C0040405\n"),
    ("empty class", "labels", "labels.csv", b"kind,class,CUI\nmodality,,C0040405\n"),
    ("bad code", "labels", "labels.csv", b"kind,class,CUI\nmodality,CT,X1\n"),
    ("no code row", "labels", "labels.csv", b"kind,class,CUI\n"),
    ("semicolons", "labels", "labels.csv", b"ID;modality;organ\nq;CT;abdomen\n"),
    # concept names
    ("header only", "names", "names.csv", b"CUI,Name\n"),
    ("three fields", "names", "names.csv", b"CUI,Name\nC0042449,Veins,Vein\n"),
    ("spaced code", "names", "names.csv", b"CUI,Name\nC0042449 x,Veins\n"),
    ("long name", "names", "names.csv", b"CUI,Name\nC0042449," + b"vein " * 100 + b"\n"),
    ("short rows", "names", "names.rrf", b"C0042449|ENG|P\n"),
    ("sets header", "names", "names.csv", b"ID,CUIs\nq,C0040405\n"),
    ("semicolons", "names", "names.csv", b"CUI;Name\nC0042449;Veins\n"),
    # captions
    ("three fields", "captions", "notes.csv", b"ID,Caption\nq,CT,of the head\n"),
    ("image twice", "captions", "notes.csv", b"ID,Caption\nq,CT\nq,MRI\n"),
    ("sets header", "captions", "notes.csv", b"ID,CUIs\nq,C0040405\n"),
    ("semicolons", "captions", "notes.csv", b"ID;Caption\nq;CT\n"),
    # images
    ("no zip", "images", "pictures.zip", b"not a zip"),
    *[(case, "images", "pictures.zip", make()) for case, (make, _) in DAMAGED.items()],
    # picture similarity vectors
    ("no list", "vectors alone", "vectors.npy", npy(VECTORS)),
    ("not an array", "vectors", "vectors.npy", b"ID,v0\nq,1\n"),
    ("objects", "vectors", "vectors.npy", npy(np.array([{"a": 1}] * 4, dtype=object), allow_pickle=True)),
    ("damaged header", "vectors", "vectors.npy", b"\x93NUMPY\x01\x00\x10\x00{'descr': <f8\n"),
    ("cut short", "vectors", "vectors.npy", npy(VECTORS)[:-8]),
    ("complex", "vectors", "vectors.npy", npy(VECTORS.astype(complex))),
    ("nan", "vectors", "vectors.npy", npy(with_nan(2))),
    ("no values", "vectors", "vectors.npy", npy(np.zeros((4, 0)))),
    ("unreadable parquet", "vectors", "vectors.parquet", b"PAR1 not really"),
    ("no ID column", "vectors", "vectors.parquet", parquet(vector_frame(id_column=None))),
    ("words", "vectors", "vectors.parquet", parquet(vector_frame().assign(v1=["a", "b", "c", "d"]))),
    ("null ID", "vectors", "vectors.parquet", parquet(vector_frame(ids=["q", None, "y", "z"]))),
    ("no ID header", "vectors", "vectors.csv", b"picture,v0\nq,1\n"),
    ("ID alone", "vectors", "vectors.csv", b"ID\nq\n"),
    ("short row", "vectors", "vectors.csv", b"ID,v0,v1\nq,1\n"),
    ("word value", "vectors", "vectors.csv", b"ID,v0\nq,high\n"),
    ("header only", "vectors", "vectors.csv", b"ID,v0\n"),
    ("image twice", "vectors", "vectors.csv", b"ID,v0\nq,1\nq,2\n"),
    ("nan row", "vectors", "vectors.csv", b"ID,v0\nq,1\nx,nan\n"),
    # ratings (the Judging page's import)
    ("empty", "judgments", "ratings.csv", b""),
    ("short header", "judgments", "ratings.csv", b"judge,case\nann,q\n"),
    ("short row", "judgments", "ratings.csv", HEADER + b"ann,q,x\n"),
    ("markup in a name", "judgments", "ratings.csv", HEADER + b"a<b,q,x,1\n"),
    ("empty name", "judgments", "ratings.csv", HEADER + b",q,x,1\n"),
    ("same image", "judgments", "ratings.csv", HEADER + b"ann,q,q,1\n"),
    ("rating 5", "judgments", "ratings.csv", HEADER + b"ann,q,x,5\n"),
    ("word time", "judgments", "ratings.csv", TIMED + b"ann,q,x,1,soon\n"),
    ("header only", "judgments", "ratings.csv", HEADER),
    ("two kinds of time", "judgments", "ratings.csv", TIMED + b"ann,q,x,1,1\nann,q,y,1,2026-01-01T00:00:00\n"),
    ("rated twice", "judgments", "ratings.csv", HEADER + b"ann,q,x,1\nann,q,x,2\n"),
    ("semicolons", "judgments", "ratings.csv", b"judge;case;candidate;grade\nann;q;x;1\n"),
    ("qrels rating 5", "judgments", "ratings.txt", b"q 0 x 5\n"),
    ("qrels same image", "judgments", "ratings.txt", b"q 0 q 1\n"),
    ("qrels three fields", "judgments", "ratings.txt", b"q 0 x 1\nq 0 y\n"),
    ("qrels rated twice", "judgments", "ratings.txt", b"q 0 x 1\nq 0 x 2\n"),
    ("qrels word rating", "judgments", "ratings.txt", b"q 0 x one\n"),
]


#: The researcher's message of each case, as evalcore wrote it before the plain wordings were added (so unchanged).
PINNED = {
    ('concepts', 'not text'):
        'sets.csv, line 2: expected UTF-8 text, found byte 0x80',
    ('concepts', 'latin-1'):
        'sets.csv, line 3: expected UTF-8 text, found byte 0xe9',
    ('captions', 'NUL byte'):
        'notes.csv, line 3: expected text, found a NUL byte (binary file?)',
    ('concepts', 'unclosed quote'):
        'sets.csv, line 3: expected well-formed CSV, found unexpected end of data',
    ('concepts', 'long field'):
        'sets.csv, line 3: expected well-formed CSV, found field larger than field limit (100000)',
    ('runs', 'long line'):
        ('results.txt, line 2: expected a line of at most 1,048,576 bytes, found one of more than 1,048,576 bytes '
         'with no line feed'),
    ('concepts', 'semicolons'):
        ("sets.csv, line 1: expected 'ID,CUIs' (or ImageCLEF 'ID<TAB>C1,C2') with fields separated by ',' or a tab, "
         "found ';' as the delimiter"),
    ('concepts', 'captions header'):
        "sets.csv, line 1: expected rows 'ID,CUIs', found the header of captions ('ID,Caption'): load it as captions",
    ('concepts', 'bad code'):
        ('sets.csv, line 2: expected CUIs of the form C + 7 digits or ontology IDs PREFIX:digits (UBERON:0002298), '
         "found 'C12'"),
    ('concepts', 'empty code'):
        ('sets.csv, line 2: expected CUIs of the form C + 7 digits or ontology IDs PREFIX:digits (UBERON:0002298), '
         "found 'an empty CUI token'"),
    ('concepts', 'image twice'):
        "sets.csv, line 3: expected a new ID ('q' already on line 2), found a duplicate",
    ('concepts', 'too many codes'):
        'sets.csv, line 2: expected at most 500 concepts per image, found 600',
    ('concepts', 'three fields'):
        'sets.csv, line 2: expected 2 fields (ID and CUIs), found 3 fields',
    ('concepts', 'one field with ;'):
        "sets.csv, line 2: expected 2 fields 'ID,CUIs' separated by ',', found 'q;C0040405'",
    ('concepts', 'header only'):
        "sets.csv: expected at least one row 'ID,CUIs', found no data rows",
    ('concepts', 'three tab fields'):
        'sets.tsv, line 1: expected ID<TAB>CUIs, found 3 tab-separated fields',
    ('concepts', 'spaced ID'):
        "sets.csv, line 2: expected an image ID without spaces (1-300 characters), found 'q r'",
    ('runs', 'five fields'):
        "results.txt, line 1: expected 6 whitespace-separated fields 'qid Q0 docid rank score tag', found 5 fields",
    ('runs', 'five fields later'):
        "results.txt, line 2: expected 6 whitespace-separated fields 'qid Q0 docid rank score tag', found 4 fields",
    ('runs', 'word rank'):
        "results.txt, line 1: expected an integer rank, found 'one'",
    ('runs', 'huge rank'):
        'results.txt, line 1: expected a rank between 0 and 1,000,000,000, found 99999999999999',
    ('runs', 'word score'):
        "results.txt, line 1: expected a numeric score, found 'high'",
    ('runs', 'infinite score'):
        'results.txt, line 1: expected a finite score, found inf',
    ('runs', 'overflowing score'):
        'results.txt, line 1: expected a finite score, found 1e999',
    ('runs', 'image twice'):
        "results.txt, line 2: expected each image once per query ('x' already on line 1), found a duplicate",
    ('runs', 'rank twice'):
        ("results.txt, line 2: expected each rank once per query (rank 1 of query 'q' already on line 1), found a "
         'duplicate rank'),
    ('runs', 'blank'):
        'results.txt: expected at least one run line, found none',
    ('runs', 'no rank column'):
        "results.csv, line 1: expected a header 'query_id,image_id,rank[,score]', found no rank column",
    ('runs', 'two fields'):
        "results.csv, line 2: expected fields 'query_id,image_id,rank[,score]', found 2 fields",
    ('runs', 'no score'):
        ('results.csv, line 2: expected a score in field 4 (the file has a score column: every row needs one), found '
         'an empty field'),
    ('runs', 'score on one row'):
        ("results.csv, line 2: expected 3 fields 'query_id,image_id,rank' as on the first row (a score on every row "
         'or on none), found 4 fields'),
    ('runs', 'semicolons'):
        ("results.txt, line 1: expected TREC 'qid Q0 docid rank score tag' or CSV 'query_id,image_id,rank[,score]' "
         "with fields separated by ',' or whitespace or a tab, found ';' as the delimiter"),
    ('runs', 'sets header'):
        ("results.csv, line 1: expected fields 'query_id,image_id,rank[,score]', found the header of concept sets "
         "('ID,CUIs'): load it as concept sets"),
    ('runs', "the tool's name"):
        ("Retrieval by hand.csv: expected a system name not beginning 'Retrieval by ', found 'Retrieval by hand', "
         "named as the tool's own systems (baselines, a measure's own ranking): rename the file or its TREC tag"),
    ('runs', 'unknown cases'):
        ('results.txt: expected query IDs that have a concept set in concepts.csv, found none of the 1 queries of '
         "system 's' does (first: 'nobody')"),
    ('map', 'no link'):
        "map.csv: expected at least one edge 'child,parent', found none",
    ('map', 'bad kind of link'):
        "map.csv, line 2: expected a relation is_a or part_of (empty: is_a), found 'sibling'",
    ('map', 'one field'):
        "map.csv, line 2: expected 2 fields 'child,parent' (is_a, child -> parent), found 1 field",
    ('map', 'spaced code'):
        "map.csv, line 2: expected a node ID (CUI or ontology ID) without spaces, found 'C0042449 x'",
    ('map', 'captions header'):
        ("map.csv, line 1: expected an edge list 'child,parent', found the header of captions ('ID,Caption'): load it "
         'as captions'),
    ('map', 'semicolons'):
        ("map.csv, line 1: expected an edge list 'child,parent' (or MRREL.RRF or OBO) with fields separated by ',' or "
         "a tab, found ';' as the delimiter"),
    ('map', 'short rows'):
        "map.rrf, line 1: expected MRREL.RRF rows with at least 11 '|'-separated fields, found 4",
    ('map', 'no parent rows'):
        'map.rrf: expected PAR/CHD or isa/inverse_isa relations between CUIs, found none',
    ('map', 'term without id'):
        "map.obo, line 4: expected an 'id:' line in every [Term], found none",
    ('map', 'no broader term'):
        'map.obo: expected [Term] stanzas with is_a lines, found no is_a edges',
    ('labels', 'empty'):
        "labels.csv: expected a header 'ID,modality,organ' or 'kind,class,CUI', found an empty file",
    ('labels', 'short row'):
        'labels.csv, line 2: expected 3 fields (ID,modality,organ), an empty one for no label, found 2',
    ('labels', 'image twice'):
        "labels.csv, line 3: expected a new ID, found duplicate 'q'",
    ('labels', 'header only'):
        'labels.csv: expected a label row after the header, found a header-only file',
    ('labels', 'unknown header'):
        "labels.csv, line 1: expected a header 'ID,modality,organ' or 'kind,class,CUI', found picture,colour",
    ('labels', 'short code row'):
        "labels.csv, line 2: expected 3 fields 'kind,class,CUI', found 2 fields",
    ('labels', 'unknown kind'):
        "labels.csv, line 2: expected kind in ('modality', 'organ'), found 'size'",
    ('labels', 'empty class'):
        'labels.csv, line 2: expected a class name, found an empty cell',
    ('labels', 'bad code'):
        "labels.csv, line 2: expected a CUI of the form C + 7 digits, found 'X1'",
    ('labels', 'no code row'):
        "labels.csv: expected at least one row 'kind,class,CUI', found none",
    ('labels', 'semicolons'):
        ("labels.csv, line 1: expected a header 'ID,modality,organ' or 'kind,class,CUI' with fields separated by ',', "
         "found ';' as the delimiter"),
    ('names', 'header only'):
        "names.csv: expected at least one row 'CUI,Name' (or English MRCONSO.RRF rows), found none",
    ('names', 'three fields'):
        'names.csv, line 2: expected 2 fields (CUI,Name); quote names containing commas, found 3 fields',
    ('names', 'spaced code'):
        "names.csv, line 2: expected a concept ID without spaces, found 'C0042449 x'",
    ('names', 'long name'):
        'names.csv, line 2: expected a name of at most 64 words, found 100 words',
    ('names', 'short rows'):
        "names.rrf, line 1: expected MRCONSO.RRF rows with at least 15 '|'-separated fields, found 3",
    ('names', 'sets header'):
        ("names.csv, line 1: expected rows 'CUI,Name' (or MRCONSO.RRF), found the header of concept sets ('ID,CUIs'): "
         'load it as concept sets'),
    ('names', 'semicolons'):
        ("names.csv, line 1: expected 'CUI,Name' (or MRCONSO.RRF) with fields separated by ',', found ';' as the "
         'delimiter'),
    ('captions', 'three fields'):
        'notes.csv, line 2: expected 2 fields (ID,Caption); quote captions containing commas, found 3 fields',
    ('captions', 'image twice'):
        "notes.csv, line 3: expected a new ID, found duplicate 'q'",
    ('captions', 'sets header'):
        ("notes.csv, line 1: expected rows 'ID,Caption', found the header of concept sets ('ID,CUIs'): load it as "
         'concept sets'),
    ('captions', 'semicolons'):
        "notes.csv, line 1: expected 'ID,Caption' with fields separated by ',', found ';' as the delimiter",
    ('images', 'no zip'):
        'pictures.zip: expected a zip archive of <ID>.png/.jpg images',
    ('images', 'bad-crc'):
        ('pictures.zip: scan.png: expected bytes that match the CRC-32 checksum the zip records for them, found other '
         'bytes (the zip was damaged in transfer or on disk: zip the images again)'),
    ('images', 'corrupt-deflate'):
        ('pictures.zip: scan.png: expected a complete deflate stream, found a corrupt one (invalid block type): zip '
         'the images again'),
    ('images', 'encrypted'):
        ('pictures.zip: scan.png: expected a member without a password (zip the images again without encryption), '
         'found an encrypted one'),
    ('images', 'unsupported-method'):
        ('pictures.zip: scan.png: expected a member stored or compressed with deflate (what zip tools write by '
         'default), found compression method 12 (bzip2)'),
    ('vectors alone', 'no list'):
        'vectors.npy: expected an ID list file (one ID per line) beside the .npy file, found none',
    ('vectors', 'not an array'):
        'vectors.npy: expected a NumPy .npy array file (it starts with the bytes \\x93NUMPY), found text',
    ('vectors', 'objects'):
        'vectors.npy: expected a numeric .npy array (N x d), found Python objects (pickled data)',
    ('vectors', 'damaged header'):
        ('vectors.npy: expected a numeric .npy array (N x d), found an unreadable header (ValueError: EOF: reading '
         'array header, expected 16 bytes got 14)'),
    ('vectors', 'cut short'):
        'vectors.npy: expected 96 data bytes after the header, as its shape (4, 3) of float64 says, found 88',
    ('vectors', 'complex'):
        ('vectors.npy: expected real vector values (integers or floats), found complex values (the imaginary part '
         'would be lost) of type complex128'),
    ('vectors', 'nan'):
        'vectors.npy, line 3: expected finite vector values, found NaN or infinity',
    ('vectors', 'no values'):
        'vectors.npy: expected at least one vector value per ID, found vectors of length 0',
    ('vectors', 'unreadable parquet'):
        ("vectors.parquet: expected a readable parquet file, found Could not open Parquet input source '<Buffer>': "
         'Parquet magic bytes not found in'),
    ('vectors', 'no ID column'):
        "vectors.parquet: expected an 'ID' column, found v0, v1, v2",
    ('vectors', 'words'):
        'vectors.parquet: expected numeric vector columns, found non-numeric values',
    ('vectors', 'null ID'):
        'vectors.parquet: expected an ID on every row (row 2 of 4), found a null ID',
    ('vectors', 'no ID header'):
        "vectors.csv, line 1: expected a header starting with 'ID' followed by vector columns, found none",
    ('vectors', 'ID alone'):
        'vectors.csv, line 1: expected at least one vector column after ID, found none',
    ('vectors', 'short row'):
        'vectors.csv, line 2: expected 3 fields, found 2',
    ('vectors', 'word value'):
        "vectors.csv, line 2: expected numeric vector values, found 'high'",
    ('vectors', 'header only'):
        'vectors.csv, line 1: expected rows of an image ID and its vector after the header, found none',
    ('vectors', 'image twice'):
        "vectors.csv, line 3: expected each ID once ('q' already on line 2), found a duplicate",
    ('vectors', 'nan row'):
        'vectors.csv, line 3: expected finite vector values, found NaN or infinity',
    ('judgments', 'empty'):
        ("ratings.csv: expected a header 'judge,case,candidate,grade' (with ',time' where each grading has its time) "
         "and a grading after it, or TREC qrels 'case 0 candidate grade', found an empty file"),
    ('judgments', 'short header'):
        ("ratings.csv, line 1: expected a header 'judge,case,candidate,grade' (with ',time' where each grading has "
         'its time), found judge,case'),
    ('judgments', 'short row'):
        "ratings.csv, line 2: expected 4 fields 'judge,case,candidate,grade', found 3 fields",
    ('judgments', 'markup in a name'):
        ('ratings.csv, line 2: expected a judge\'s name of 1 to 100 printable characters, none of < > & " \' ` (names '
         "are shown in reports), found a name holding '<'"),
    ('judgments', 'empty name'):
        ('ratings.csv, line 2: expected a judge\'s name of 1 to 100 printable characters, none of < > & " \' ` (names '
         'are shown in reports), found an empty name'),
    ('judgments', 'same image'):
        "ratings.csv, line 2: expected a candidate image other than the case image, found 'q'",
    ('judgments', 'rating 5'):
        ('ratings.csv, line 2: expected a grade 0 (not similar), 1 (partly similar), 2 (very similar) or skipped, '
         "found '5'"),
    ('judgments', 'word time'):
        ('ratings.csv, line 2: expected a time: seconds (a number such as 12.5) or an ISO 8601 date-time such as '
         "2026-01-31T09:15:00, found 'soon'"),
    ('judgments', 'header only'):
        ("ratings.csv: expected a header 'judge,case,candidate,grade' (with ',time' where each grading has its time) "
         'and a grading after it, found a header-only file'),
    ('judgments', 'two kinds of time'):
        ('ratings.csv, line 3: expected times of one kind, as on line 2: seconds throughout, found an ISO 8601 '
         'date-time'),
    ('judgments', 'rated twice'):
        ("ratings.csv, line 3: expected each grading once: judge 'ann' graded 'x' for the case 'q' on line 2 already "
         "(a judge grades a pair once in a file without times; a repeated grading needs a 'time' column), found a "
         'duplicate'),
    ('judgments', 'semicolons'):
        ("ratings.csv, line 1: expected a header 'judge,case,candidate,grade' (with ',time' where each grading has "
         "its time) with fields separated by ',', found ';' as the delimiter"),
    ('judgments', 'qrels rating 5'):
        'ratings.txt, line 1: expected a grade 0 (not similar), 1 (partly similar) or 2 (very similar), found 5',
    ('judgments', 'qrels same image'):
        "ratings.txt, line 1: expected a candidate image other than the case image, found 'q'",
    ('judgments', 'qrels three fields'):
        "ratings.txt, line 2: expected 4 whitespace-separated fields 'qid iter docid grade', found 3 fields",
    ('judgments', 'qrels rated twice'):
        ('ratings.txt, line 2: expected each (query, document) pair judged once (q x already on line 1), found a '
         'duplicate'),
    ('judgments', 'qrels word rating'):
        "ratings.txt, line 1: expected an integer grade (e.g. 0, 1, 2), found 'one'",
}


@pytest.fixture(scope="module")
def loaded() -> Workspace:
    return base()


def clinician_rest(wording: str, where: str) -> str:
    """What the clinician's message says after the file and line, which are quoted as written."""
    assert wording.startswith(where), (wording, where)
    return wording[len(where):]


@pytest.mark.parametrize("case, loader, name, data", CASES, ids=[f"{loader}: {case}" for case, loader, _, _ in CASES])
def test_a_refused_file_is_said_to_a_clinician_in_plain_words(loaded, case, loader, name, data):
    with pytest.raises(InputError) as raised:
        LOADERS[loader](loaded, data, name)
    error = raised.value
    said = refusal(error)
    assert said.researcher == str(error) == PINNED[loader, case]  # the researcher's message, unchanged
    assert str(InputError(error.source, error.line, error.expected, error.found)) == str(error)
    assert error.plain_expected, f"{loader}: {case}: no plain wording at {error.expected!r}"
    # the file (and line) as written, as the researcher's message names them
    assert error.source.startswith(name) and PINNED[loader, case].startswith(f"{error.where}: expected ")
    rest = clinician_rest(said.clinician, error.where)
    assert rest.startswith(f": expected {error.plain_expected}"), said.clinician
    assert not RESEARCH_WORDS.search(rest) and not forbidden_in(rest), said.clinician


def test_the_cases_reach_every_kind_the_dashboard_loads():
    assert {loader for _, loader, _, _ in CASES} == set(LOADERS)
    assert set(PINNED) == {(loader, case) for case, loader, _, _ in CASES}


def test_a_file_over_the_size_limit_is_said_without_the_setting(loaded, monkeypatch):
    monkeypatch.setenv(INPUT_BUDGET_VARIABLE, "16")
    with pytest.raises(InputError) as raised:
        with_captions(loaded, b"ID,Caption\nq,CT of the head\n", "notes.csv")
    said = refusal(raised.value)
    assert said.researcher == ("notes.csv: expected at most 16 bytes (raise it with --max-input-bytes or "
                               "CBIR_LENS_MAX_INPUT_BYTES), found 28 bytes")
    assert said.clinician == ("notes.csv: expected a file of at most 16 bytes (the research team can raise this limit), "
                              "found 28 bytes")


def test_labels_of_another_collection_are_refused_in_plain_words(loaded):
    """Labels of none of the loaded images (evalcore.io.loading.resolve_labels, the Data page's labels upload): the
    researcher's message as before, and the clinician's in the plain wording written there."""
    with pytest.raises(InputError) as raised:
        with_labels(loaded, b"ID,modality,organ\nnobody,CT,abdomen\n", "labels.csv")
    ids = loaded.concepts.ids
    assert str(raised.value) == (f"labels.csv: expected labels of images of the concept sets ({len(ids):,} images, "
                                 f"e.g. {ids[0]!r}), found none of its 1 IDs (e.g. 'nobody')")
    clinician = refusal(raised.value).clinician
    assert clinician == (f"labels.csv: expected labels of the images loaded ({len(ids):,} images, e.g. {ids[0]!r}), "
                         "found none of its 1 IDs (e.g. 'nobody')")
    assert not forbidden_in(clinician)


def test_a_found_text_with_research_words_is_not_shown(loaded):
    """What was found is quoted from the file: shown only where it holds no research word."""
    with pytest.raises(InputError) as raised:
        with_new_concepts(loaded, b"ID,CUIs\nq,C0040405\n\"x\" y,C0042449\n", "sets.csv")
    assert refusal(raised.value).clinician == ("sets.csv, line 3: expected well-formed CSV (a field holding a comma or "
                                               "a quote written in quotes, every quote opened closed), found ',' "
                                               "expected after '\"'")
    hidden = InputError("runs.txt", 2, "6 fields", "a run line", plain_expected="result lines of a retrieval system")
    assert refusal(hidden).clinician == "runs.txt, line 2: expected result lines of a retrieval system"
