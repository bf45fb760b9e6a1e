"""Write a SYNTHETIC is_a graph at UMLS scale as MRREL.RRF lines (default: 3.5 M nodes, 8 M edges, 10 M lines).

The hierarchy is deep and a DAG: nodes sit on ``--depth`` levels whose sizes grow geometrically from
``--roots`` roots; every non-root node has one parent on the level above and, on average,
``edges / nodes - 1`` more parents on the one to three levels above (several parents per node, as in
UMLS). Node IDs are distinct random CUIs ``C0000001..C9999999``; the CUIs of ``--include`` concept
files (e.g. ROCOv2's) become nodes below the first few levels, so a real dataset's vocabulary can be
looked up in the graph.

Each edge is written once, as UMLS writes is_a: ``PAR`` with RELA ``inverse_isa`` or empty on the
child's row, or ``CHD`` with RELA ``isa`` or empty on the parent's row. The remaining lines repeat
about a third of the edges in the other direction (as MRREL.RRF holds both) and add relations that
are not is_a (RO, RB, RN, SIB, SY; part_of, location_of, ...), which a reader must skip. Lines come in
a random order. Deterministic: the same options give the same file.

Usage: python scripts/make_synthetic_kg.py OUT.RRF [--nodes 3500000] [--edges 8000000] [--lines 10000000]
           [--depth 24] [--seed 0] [--include ../shared/data/rocov2/test_concepts.csv ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from evalcore.errors import CBIRLensError, ParameterError  # noqa: E402
from evalcore.readers import read_concepts  # noqa: E402

SOURCES = ("MSH", "SNOMEDCT_US", "NCI", "MDR", "LNC", "ICD10CM")
OTHER_RELATIONS = (("RO", "location_of"), ("RO", "has_finding_site"), ("RB", ""), ("RN", ""), ("SIB", ""),
                   ("SY", ""), ("PAR", "part_of"), ("CHD", "has_part"), ("RO", "mapped_to"))
LINES_PER_CHUNK = 1 << 20
FIRST_LEVEL_OF_INCLUDED = 4


def hierarchy(nodes: int, edges: int, depth: int, roots: int, rng: np.random.Generator
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(child, parent)`` node numbers of every edge, exactly ``edges`` distinct pairs, and each node's level.

    >>> child, parent, level = hierarchy(50, 80, 5, 2, np.random.default_rng(0))
    >>> len(child), bool((level[parent] < level[child]).all()), len(set(zip(child, parent)))
    (80, True, 80)
    """
    if not 1 <= roots < nodes or depth < 2:
        raise ParameterError(f"need 1 <= roots < nodes and depth >= 2, got roots={roots}, nodes={nodes}, depth={depth}")
    if not nodes - roots <= edges:
        raise ParameterError(f"every non-root node needs a parent: edges must be >= nodes - roots = {nodes - roots}")
    ratio = _growth(nodes, roots, depth)
    sizes = np.maximum(1, np.round(roots * ratio ** np.arange(depth))).astype(np.int64)
    sizes[0] = roots
    sizes[-1] += nodes - sizes.sum()
    if sizes[-1] < 1:
        raise ParameterError(f"{nodes} nodes cannot fill {depth} levels from {roots} roots")
    starts = np.concatenate([[0], np.cumsum(sizes)])
    level = np.repeat(np.arange(depth), sizes)
    children = np.arange(roots, nodes)
    above = level[children] - 1
    first_parent = starts[above] + (rng.random(len(children)) * sizes[above]).astype(np.int64)
    # Extra parents on the one to three levels above, a little more than needed: repeats are dropped below.
    extra = edges - len(children)
    owners = rng.choice(children, size=int(extra * 1.1) + 16)
    up = np.minimum(rng.integers(1, 4, size=len(owners)), level[owners])
    target = level[owners] - up
    extra_parent = starts[target] + (rng.random(len(owners)) * sizes[target]).astype(np.int64)
    child = np.concatenate([children, owners])
    parent = np.concatenate([first_parent, extra_parent])
    key = child * nodes + parent
    _, first = np.unique(key, return_index=True)
    keep = np.zeros(len(key), dtype=bool)
    keep[first] = True
    keep[: len(children)] = True  # the first parents are distinct pairs already
    optional = np.flatnonzero(keep[len(children):]) + len(children)
    if len(optional) < extra:
        raise ParameterError(f"could not draw {edges:,} distinct edges over {nodes:,} nodes; lower --edges")
    keep[optional] = False
    keep[rng.choice(optional, size=extra, replace=False)] = True
    return child[keep], parent[keep], level


def _growth(nodes: int, roots: int, depth: int) -> float:
    """The ratio r with roots * (1 + r + ... + r^(depth-1)) = nodes (bisection)."""
    low, high = 1.0, float(nodes)
    for _ in range(200):
        middle = (low + high) / 2
        if roots * (middle ** depth - 1) / (middle - 1) < nodes:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def node_cuis(level: np.ndarray, included: list[str], rng: np.random.Generator) -> np.ndarray:
    """A distinct CUI number for every node; the included CUIs go to random nodes below the first levels."""
    nodes = len(level)
    fixed = np.array(sorted({int(c[1:]) for c in included}), dtype=np.int64)
    eligible = np.flatnonzero(level >= min(FIRST_LEVEL_OF_INCLUDED, int(level.max())))
    if len(fixed) > len(eligible):
        raise ParameterError(f"{len(fixed):,} included CUIs do not fit on {len(eligible):,} deep nodes; add nodes")
    numbers = np.zeros(nodes, dtype=np.int64)
    placed = rng.choice(eligible, size=len(fixed), replace=False)
    numbers[placed] = fixed
    free = np.setdiff1d(np.arange(1, 10_000_000), fixed, assume_unique=True)
    rest = np.setdiff1d(np.arange(nodes), placed, assume_unique=True)
    numbers[rest] = rng.choice(free, size=len(rest), replace=False)
    return numbers


def _padded(prefix: str, numbers: np.ndarray, width: int) -> pa.Array:
    return pc.binary_join_element_wise(prefix, pc.utf8_lpad(pc.cast(pa.array(numbers), pa.string()), width, "0"), "")


def mrrel_lines(first: np.ndarray, second: np.ndarray, rel: np.ndarray, rela: np.ndarray, sab: np.ndarray,
                numbering: int) -> bytes:
    """MRREL.RRF rows ``CUI1|AUI1|STYPE1|REL|CUI2|AUI2|STYPE2|RELA|RUI|SRUI|SAB|SL|RG|DIR|SUPPRESS|CVF|``."""
    count = len(first)
    ids = np.arange(numbering, numbering + count, dtype=np.int64)
    sab_text = pa.array(np.asarray(SOURCES, dtype=object)[sab])
    fields = [_padded("C", first, 7), _padded("A", 2 * ids, 8), "AUI", pa.array(rel), _padded("C", second, 7),
              _padded("A", 2 * ids + 1, 8), "AUI", pa.array(rela), _padded("R", ids, 9), "", sab_text, sab_text,
              "", "", "N", "", "\n"]
    lines = pc.binary_join_element_wise(*fields, "|")
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32, count=count + 1, offset=lines.offset * 4)
    return lines.buffers()[2].to_pybytes()[offsets[0]:offsets[-1]]


def write_kg(out: Path, nodes: int, edges: int, lines: int, depth: int, roots: int, seed: int,
             included: list[str]) -> dict[str, int]:
    """Generate the graph and write its MRREL.RRF lines; returns counts for the report."""
    if lines < edges:
        raise ParameterError(f"lines ({lines:,}) must be >= edges ({edges:,}): every edge is written once")
    rng = np.random.default_rng(seed)
    child, parent, level = hierarchy(nodes, edges, depth, roots, rng)
    cui = node_cuis(level, included, rng)
    rest = lines - edges
    repeats = min(edges, rest // 3)
    others = rest - repeats
    # Row kinds: 0-3 an edge as PAR/inverse_isa, PAR/'', CHD/isa, CHD/''; 4 an edge repeated; 5 another relation.
    kind = np.concatenate([rng.integers(0, 4, size=edges), np.full(repeats, 4), np.full(others, 5)])
    edge_of = np.concatenate([np.arange(edges), rng.choice(edges, size=repeats, replace=False),
                              np.zeros(others, dtype=np.int64)])
    order = rng.permutation(lines)
    sab_of_edge = rng.integers(0, len(SOURCES), size=edges)
    other_pairs = rng.integers(0, nodes, size=(others, 2))
    other_relation = rng.integers(0, len(OTHER_RELATIONS), size=others)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as handle:
        for begin in range(0, lines, LINES_PER_CHUNK):
            rows = order[begin:begin + LINES_PER_CHUNK]
            k, e = kind[rows], edge_of[rows]
            # Repeats are written the other way round from the edge's own row: as CHD/isa on the parent's row
            # when the edge's row is a PAR row, else as PAR/inverse_isa on the child's row.
            repeat_as_child_row = (k == 4) & (kind[e] >= 2)
            on_child_row = np.isin(k, (0, 1)) | repeat_as_child_row
            first = np.where(on_child_row, cui[child[e]], cui[parent[e]])
            second = np.where(on_child_row, cui[parent[e]], cui[child[e]])
            rel = np.where(on_child_row, "PAR", "CHD").astype(object)
            rela = np.select([k == 0, k == 2, (k == 4) & on_child_row, (k == 4) & ~on_child_row],
                             ["inverse_isa", "isa", "inverse_isa", "isa"], "").astype(object)
            sab = sab_of_edge[e]
            other = np.flatnonzero(k == 5)
            if len(other):
                position = rows[other] - edges - repeats
                first[other] = cui[other_pairs[position, 0]]
                second[other] = cui[other_pairs[position, 1]]
                relation = np.asarray(OTHER_RELATIONS, dtype=object)[other_relation[position]]
                rel[other], rela[other] = relation[:, 0], relation[:, 1]
                sab[other] = other_relation[position] % len(SOURCES)
            handle.write(mrrel_lines(first, second, rel, rela, sab, begin))
    return {"nodes": nodes, "edges": edges, "lines": lines, "depth": depth, "repeated edges": repeats,
            "other relations": others, "included CUIs": len(set(included))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--nodes", type=int, default=3_500_000)
    parser.add_argument("--edges", type=int, default=8_000_000)
    parser.add_argument("--lines", type=int, default=10_000_000)
    parser.add_argument("--depth", type=int, default=24)
    parser.add_argument("--roots", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--include", type=Path, action="append", default=[],
                        help="concepts file whose CUIs become nodes (repeat to combine)")
    args = parser.parse_args(argv)
    try:
        included = sorted({c for path in args.include for s in read_concepts(path).sets for c in s})
        counts = write_kg(args.out, args.nodes, args.edges, args.lines, args.depth, args.roots, args.seed, included)
    except CBIRLensError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}: " + ", ".join(f"{value:,} {name}" for name, value in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
