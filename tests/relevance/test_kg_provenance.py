"""Where a KG edge comes from and what it says: the edge list's relation column, KnowledgeGraph.edge_sources and
relation, and the rule that picks the KG page's opening example."""

from __future__ import annotations

import random

import pytest

from evalcore.app.explain import example_path_pair
from evalcore.data import KGEdges
from evalcore.errors import InputError
from evalcore.readers import read_kg
from evalcore.relevance.kg import KnowledgeGraph
from tests.conftest import ROOT


def test_relation_column_is_read_and_checked():
    data = b"child,parent,source,relation\nC0015813,C0015811,demo,part_of\nC0042449,C0005847,mesh,is_a\n" \
           b"C0003842,C0005847,mesh,\n"
    edges = read_kg(data, "kg.csv")
    assert edges.part_of == {("C0015813", "C0015811")}
    assert [e[2] for e in edges.edges] == ["demo", "mesh", "mesh"]
    with pytest.raises(InputError, match=r"kg.csv, line 3: expected a relation is_a or part_of .*'kind_of'"):
        read_kg(data.replace(b"mesh,is_a", b"mesh,kind_of"), "kg.csv")
    assert read_kg(b"child,parent\nC0015813,C0015811\n", "kg.csv").part_of == frozenset()


@pytest.mark.parametrize("seed", range(10))
def test_both_reader_paths_keep_the_same_relations(seed):
    """The columnar path and the line-by-line one (taken when a field is quoted) read the same edges and links."""
    rng = random.Random(seed)
    nodes = [f"C{i:07d}" for i in range(12)]
    rows = [(rng.choice(nodes), rng.choice(nodes), rng.choice(["mesh", "hpo", ""]), rng.choice(["is_a", "part_of", ""]))
            for _ in range(rng.randint(1, 30))]
    rows.append(("C0000001", "C0000002", "mesh", "is_a"))
    lines = ["child,parent,source,relation"] + [",".join(row) for row in rows]
    plain = read_kg(("\n".join(lines) + "\n").encode(), "kg.csv")
    quoted = read_kg(("\n".join(lines[:-1] + ['"C0000001",C0000002,mesh,is_a']) + "\n").encode(), "kg.csv")
    assert plain.edges == quoted.edges and plain.part_of == quoted.part_of
    assert plain.part_of == {(c, p) for c, p, _, r in rows if r == "part_of" and c != p}


@pytest.mark.parametrize("seed", range(10))
def test_edge_sources_and_relations_agree_with_the_files(seed):
    rng = random.Random(seed)
    nodes = [f"n{i}" for i in range(15)]
    files = []
    for tag in rng.sample(["mesh", "hpo", "doid", "uberon"], rng.randint(1, 4)):
        edges = tuple((rng.choice(nodes), rng.choice(nodes), tag) for _ in range(rng.randint(1, 25)))
        edges = tuple(e for e in edges if e[0] != e[1])
        part_of = frozenset((c, p) for c, p, _ in edges if rng.random() < 0.3)
        files.append(KGEdges(edges, {}, tag, part_of))
    kept = sorted({e[2] for f in files for e in f.edges})
    wanted = set(rng.sample(kept, rng.randint(1, len(kept)))) if kept else None
    if not kept:
        return
    kg = KnowledgeGraph.from_edges(files, wanted)
    expected: dict[tuple[str, str], set[str]] = {}
    for f in files:
        for child, parent, tag in f.edges:
            if tag in wanted:
                expected.setdefault((child, parent), set()).add(tag)
    for (child, parent), tags in expected.items():
        assert kg.edge_sources(child, parent) == tuple(sorted(tags))
        says_part = any((child, parent) in f.part_of and any(e[:2] == (child, parent) and e[2] in wanted
                                                               for e in f.edges) for f in files)
        assert kg.relation(child, parent) == ("part_of" if says_part else "is_a")
    assert len(expected) == kg.number_of_edges()


def test_demo_kg_keeps_its_part_of_links():
    from evalcore.io.loading import load_kg

    kg = load_kg([ROOT / "data" / "demo" / "kg_edges.csv"])
    assert kg.relation("C0015813", "C0015811") == "part_of"  # Head of femur -> Femur
    assert kg.relation("C0042449", "C0005847") == "is_a"  # Veins -> Blood Vessels
    assert sum(kg.relation(kg.nodes[i], kg.nodes[j]) == "part_of" for i, j in zip(*kg.parents.nonzero())) == 7


def test_example_pair_prefers_agreed_is_a_links_and_avoids_phenotype_and_part_of():
    """A hand-made graph with the open KG's kinds of links: the most frequent pairs are a phenotype (HPO) link, a
    part-of link and a MeSH-only link; the pair is the is_a link MeSH and UBERON agree on."""
    edges = [KGEdges((("effusion", "edema", "hpo"),), {}),
             KGEdges((("ventricle", "heart", "mesh"), ("carotid", "artery", "mesh")), {}),
             KGEdges((("carotid", "artery", "uberon"), ("lobe", "cortex", "uberon")), {},
                     part_of=frozenset({("lobe", "cortex")}))]
    frequency = {"effusion": 130, "edema": 200, "ventricle": 100, "heart": 300, "lobe": 90, "cortex": 95,
                 "carotid": 18, "artery": 30}
    kg = KnowledgeGraph.from_edges(edges)
    assert example_path_pair(kg, frequency) == ("artery", "carotid")
    without_agreement = KnowledgeGraph.from_edges(edges[:2] + [KGEdges((("lobe", "cortex", "uberon"),), {},
                                                                       part_of=frozenset({("lobe", "cortex")}))])
    assert example_path_pair(without_agreement, frequency) == ("heart", "ventricle")  # MeSH's is_a, the most frequent
    only_phenotype = KnowledgeGraph.from_edges(edges[:1] + [KGEdges((("a", "b", "x"), ("b", "c", "x")), {})])
    assert example_path_pair(only_phenotype, {"effusion": 130, "edema": 200, "a": 5, "c": 5}) == ("a", "c")
