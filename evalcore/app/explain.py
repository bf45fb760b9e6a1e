"""Why a retrieved image is related to the query, in words for each audience (docs/DESIGN.md §2).

:func:`explain_pair` takes two concept sets, a KG, a relevance measure (a
:class:`~evalcore.relevance.measures.MeasureSpec`, any of the registry's; its distance threshold says which near
matches count) and the KG mode. It returns an :class:`Explanation` with

- the exact matches ``A ∩ B``;
- each approximate match of ``N(A,B)`` (a concept of one set outside the other that is within
  n hops of a concept of the other), with its closest partner in the other set and the
  shortest is_a path between them, written from the query's concept to the result's;
- the concepts matched neither way;
- what the scores of IoU, nn-IoU and the chosen measure are made of (:mod:`evalcore.relevance.composition`: counts,
  the registry's formula with the numbers filled in, the value).

The near matches agree with :func:`evalcore.relevance.formulas.approximate_matches` and the values with each measure's
own (tested on random data); the partner is the concept of the other set at the smallest KG distance, ties broken by
name then ID. The module also words the explanation for a clinician (:func:`reason_sentences`),
draws paths as Graphviz DOT (:func:`paths_dot`), counts ties in a ranking
(:func:`tie_counts`), ranks concept search results (:func:`search_concepts`) and picks a
pair of dataset concepts joined by a short path (:func:`example_path_pair`).

Concept tags are not claims: ROCOv2's tags ignore negation ("Without bleeding along the left electrode" is tagged
*Hemorrhage*). Given the two captions and the dictionary concept extraction reads them with, :func:`explain_pair`
tells for each concept whether a caption negates it (:func:`caption_statuses`: the extractor's mentions, so any name,
synonym or imaging abbreviation of the concept counts) and how (:func:`caption_denials`: ruled out, only considered,
of another examination or of the literature), and :func:`reason_sentences` then says the tag is there and what the
caption says of it, instead of "both show" it. Image modalities (:data:`MODALITY_WORDS`) are worded as the kind of
image ("both are CT images").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType

import numpy as np

from evalcore.errors import ParameterError
from evalcore.extraction.evidence import mention_status
from evalcore.extraction.extractor import ConceptDictionary, Mention, mentions
from evalcore.extraction.negation import concept_status, cue_scopes, sentence_at
from evalcore.relevance.composition import Composition, compose
from evalcore.relevance.kg import KnowledgeGraph
from evalcore.relevance.measures import MeasureSpec, measure_spec, nn_iou_measure

AUDIENCES = ("clinician", "researcher")
UP, DOWN = "is_a", "has_child"
#: Image modality concepts -> the plain word for the kind of image. The UMLS CUIs of ROCOv2's manually curated
#: modality tags (Rückert et al. 2024; ``data/labels/rocov2_labels.csv`` maps the same CUIs to these classes).
MODALITY_WORDS: Mapping[str, str] = MappingProxyType({
    "C0040405": "CT",  # X-Ray Computed Tomography
    "C1306645": "X-ray",  # Plain x-ray
    "C0024485": "MRI",  # Magnetic Resonance Imaging
    "C0041618": "ultrasound",  # Ultrasonography
    "C0002978": "angiography",  # angiogram
    "C0032743": "PET",  # Positron-Emission Tomography
    "C1699633": "PET/CT",  # PET/CT scan
})


@dataclass(frozen=True)
class PathStep:
    """One node of a KG path. ``link`` says how it was reached from the previous node:
    ``""`` for the first node, ``"is_a"`` when the previous node is a kind (or a part) of this one (up),
    ``"has_child"`` when this node is a kind (or a part) of the previous one (down). ``relation`` is what the edge
    between them says ("is_a" or "part_of") and ``sources`` the source tags of the files asserting it."""

    node: str
    name: str
    link: str
    relation: str = "is_a"
    sources: tuple[str, ...] = ()


#: How a KG source tag reads to a person: the open KG's tags and UMLS source abbreviations (SAB).
SOURCE_NAMES: Mapping[str, str] = MappingProxyType({
    "mesh": "MeSH", "MSH": "MeSH", "hpo": "the Human Phenotype Ontology", "HPO": "the Human Phenotype Ontology",
    "doid": "the Disease Ontology", "uberon": "the UBERON anatomy ontology", "SNOMEDCT_US": "SNOMED CT",
    "demo": "the demo knowledge graph",
})
#: Well-known clinical vocabularies (MeSH, SNOMED CT through UMLS), preferred for an example path; phenotype
#: ontologies link findings by phenotype ("Pleural effusion is a kind of Edema"), avoided.
WELL_KNOWN_SOURCES = frozenset({"mesh", "MSH", "SNOMEDCT_US"})
PHENOTYPE_SOURCES = frozenset({"hpo", "HPO"})
RELATION_WORDS = MappingProxyType({"is_a": "is a kind of", "part_of": "is part of"})
#: What a clinician reads for a concept no loaded file names (its code would tell them nothing).
UNNAMED = "unnamed concept"


def path_steps(kg: KnowledgeGraph, path: Sequence[tuple[str, str]], names: Mapping[str, str]) -> tuple[PathStep, ...]:
    """A path of :meth:`KnowledgeGraph.shortest_path` as steps with names, the relation and sources of each edge.

    >>> from evalcore.data import KGEdges
    >>> kg = KnowledgeGraph.from_edges([KGEdges((("head", "femur", "demo"),), {}, part_of=frozenset({("head", "femur")}))])
    >>> [(s.name, s.link, s.relation, s.sources) for s in path_steps(kg, kg.shortest_path("femur", "head"), {})]
    [('femur', '', 'is_a', ()), ('head', 'has_child', 'part_of', ('demo',))]
    """
    steps = []
    for i, (node, link) in enumerate(path):
        relation, sources = "is_a", ()
        if i:
            previous = path[i - 1][0]
            child, parent = (previous, node) if link == UP else (node, previous)
            relation, sources = kg.relation(child, parent), kg.edge_sources(child, parent)
        steps.append(PathStep(node, names.get(node, node), link, relation, sources))
    return tuple(steps)


def source_phrase(path: Sequence[PathStep]) -> str:
    """Which ontologies the links of a path come from, in words ("" when none is known).

    >>> source_phrase([PathStep("v", "Veins", ""), PathStep("b", "Blood Vessels", "is_a", "is_a", ("mesh",))])
    'from MeSH'
    >>> source_phrase([PathStep("a", "a", ""), PathStep("b", "b", "is_a", "is_a", ("hpo",)),
    ...                PathStep("c", "c", "is_a", "is_a", ("mesh", "uberon"))])
    'link 1 from the Human Phenotype Ontology; link 2 from MeSH and the UBERON anatomy ontology'
    """
    per_link = [_join([SOURCE_NAMES.get(t, t) for t in step.sources]) for step in path[1:]]
    if not any(per_link):
        return ""
    if len(set(per_link)) == 1:
        return f"from {per_link[0]}"
    return "; ".join(f"link {i} from {words or 'an unnamed source'}" for i, words in enumerate(per_link, start=1))


@dataclass(frozen=True)
class NearMatch:
    """An approximate match: ``concept`` (in N(A,B)) on ``side`` ("query": in A \\ B, or
    "result": in B \\ A) and its closest ``partner`` in the other set; ``path`` runs from the
    query's concept to the result's."""

    concept: str
    side: str
    partner: str
    path: tuple[PathStep, ...]

    @property
    def hops(self) -> int:
        return len(self.path) - 1

    @property
    def query_concept(self) -> str:
        return self.concept if self.side == "query" else self.partner

    @property
    def result_concept(self) -> str:
        return self.partner if self.side == "query" else self.concept


@dataclass(frozen=True)
class Explanation:
    """Everything :func:`explain_pair` found for a (query, result) pair of concept sets."""

    query: frozenset[str]
    result: frozenset[str]
    exact: tuple[str, ...]
    near: tuple[NearMatch, ...]
    unmatched_query: tuple[str, ...]
    unmatched_result: tuple[str, ...]
    #: The measure explained; its distance threshold (:attr:`MeasureSpec.hops`) chose the near matches.
    measure: MeasureSpec
    mode: str
    #: IoU, nn-IoU (at the measure's alpha, 0 where it has none, and its n) and the measure itself.
    iou: Composition
    nn_iou: Composition
    relevance: Composition
    names: Mapping[str, str]
    #: Concept of either set -> (its status in the query's caption, in the result's): "affirmed", "negated" or
    #: "absent" (:func:`caption_statuses`); empty when the captions were not given. Modalities are left out.
    caption_status: Mapping[str, tuple[str, str]] = field(default_factory=lambda: MappingProxyType({}))
    #: Concept -> (the query caption's sentence that negates it, the result caption's), "" where none does.
    negation_evidence: Mapping[str, tuple[str, str]] = field(default_factory=lambda: MappingProxyType({}))
    #: Concept -> (how the query's caption denies it, how the result's does: :func:`caption_denials`), "" where it
    #: does not; only concepts one caption denies.
    denial_kinds: Mapping[str, tuple[str, str]] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def intersection(self) -> int:
        return len(self.exact)

    @property
    def union(self) -> int:
        return len(self.query | self.result)

    @property
    def approximate(self) -> int:
        return len(self.near)

    def name(self, concept: str) -> str:
        """The concept's name (query and result concepts are named here; path nodes in their steps)."""
        return self.names.get(concept, concept)


# --- the explanation ----------------------------------------------------------------------

def explain_pair(query: Iterable[str], result: Iterable[str], kg: KnowledgeGraph | None, measure: MeasureSpec,
                 mode: str = "undirected", names: Mapping[str, str] | None = None,
                 captions: tuple[str, str] | None = None,
                 dictionary: ConceptDictionary | None = None) -> Explanation:
    """Exact matches, near matches with their KG paths, and what the pair's scores are made of under ``measure``.

    With ``captions`` (the query's and the result's caption text) and the ``dictionary`` concepts are found in
    captions by, each concept that is not a modality gets its status in both (:func:`caption_statuses`,
    :attr:`Explanation.caption_status`) and, where negated, the sentence that negates it
    (:attr:`Explanation.negation_evidence`).

    ``measure`` is any measure of the registry; its n (:attr:`MeasureSpec.hops`) chooses the near matches, and its
    alpha (0 where it has none) and n fill in the nn-IoU shown beside IoU and the measure itself.
    Worked example of docs/DESIGN.md §2 (n = 1, alpha = 0.5, KG: vein -> blood vessel):

    >>> from evalcore.data import KGEdges
    >>> kg = KnowledgeGraph.from_edges([KGEdges((("vein", "vessel", "t"),), {"vessel": "blood vessel"})])
    >>> e = explain_pair({"CT", "vein"}, {"CT", "vessel"}, kg, measure_spec("nn-iou", alpha=0.5, n=1))
    >>> e.exact, [(m.concept, m.side, m.partner, m.hops) for m in e.near]
    (('CT',), [('vein', 'query', 'vessel', 1), ('vessel', 'result', 'vein', 1)])
    >>> [(s.name, s.link) for s in e.near[0].path]
    [('vein', ''), ('blood vessel', 'is_a')]
    >>> print(e.iou); print(e.nn_iou)
    IoU = |A ∩ B| / |A ∪ B| = 1 / 3 = 0.333
    nn-IoU = (|A ∩ B| + alpha × |N(A,B)|) / |A ∪ B| = (1 + 0.5 × 2) / 3 = 0.667
    >>> d = ConceptDictionary.build({"C0019080": "Hemorrhage"})
    >>> e = explain_pair({"C0019080"}, {"C0019080"}, None, measure_spec("iou"), names={"C0019080": "Hemorrhage"},
    ...                  captions=("Large hemorrhage.", "Without bleeding along the electrode."), dictionary=d)
    >>> dict(e.caption_status), dict(e.negation_evidence)
    ({'C0019080': ('affirmed', 'negated')}, {'C0019080': ('', 'Without bleeding along the electrode.')})
    """
    if captions is not None and not (isinstance(captions, tuple) and len(captions) == 2
                                     and all(isinstance(text, str) for text in captions)):
        raise ParameterError("captions must be a pair of texts (the query's caption, the result's); "
                             f"give '' for a missing one, got {captions!r}")
    if captions is not None and not isinstance(dictionary, ConceptDictionary):
        raise ParameterError("captions are read with the dictionary concept extraction uses: give "
                             f"dictionary=ConceptDictionary.build(names, ...), got {type(dictionary).__name__}")
    a, b = frozenset(query), frozenset(result)
    nn_iou = compose(a, b, nn_iou_measure(measure.params.get("alpha", 0.0), measure.hops), kg, mode)
    all_names = _Names(names or {}, kg.names if kg is not None else {})
    readings = () if captions is None else tuple(_caption_readings(text, a | b, dictionary) for text in captions)
    near = [*_near_matches(a - b, b, "query", kg, measure.hops, mode, all_names),
            *_near_matches(b - a, a, "result", kg, measure.hops, mode, all_names)]
    near_concepts = {m.concept for m in near}
    return Explanation(
        query=a, result=b, exact=_by_name(a & b, all_names), near=tuple(near),
        unmatched_query=_by_name(a - b - near_concepts, all_names),
        unmatched_result=_by_name(b - a - near_concepts, all_names),
        measure=measure, mode=mode, iou=compose(a, b, measure_spec("iou"), None), nn_iou=nn_iou,
        relevance=nn_iou if measure == nn_iou.spec else compose(a, b, measure, kg, mode),
        names=MappingProxyType({c: all_names[c] for c in a | b if c in all_names}),
        caption_status=MappingProxyType({c: tuple(reading[c][0] for reading in readings)
                                         for c in readings[0]} if readings else {}),
        negation_evidence=MappingProxyType({c: tuple(reading[c][1] for reading in readings)
                                            for c in readings[0] if any(reading[c][1] for reading in readings)}
                                           if readings else {}),
        denial_kinds=MappingProxyType({c: tuple(reading[c][2] for reading in readings)
                                       for c in readings[0] if any(reading[c][2] for reading in readings)}
                                      if readings else {}))


def caption_statuses(caption: str, concepts: Iterable[str], dictionary: ConceptDictionary) -> dict[str, str]:
    """Each concept's status in a caption: "affirmed", "negated" or "absent" (:func:`evalcore.extraction.negation.concept_status`
    of its mentions that :func:`evalcore.extraction.extractor.mentions` finds with ``dictionary``, as concept extraction does:
    a concept is "affirmed" exactly when extraction keeps it). Modalities (:data:`MODALITY_WORDS`) are left out (a
    kind of image, not a finding).

    >>> d = ConceptDictionary.build({"C0040405": "X-Ray Computed Tomography", "C0019080": "Hemorrhage",
    ...                              "C0032227": "Pleural effusion disorder", "C0016658": "Fracture"})
    >>> caption_statuses("CT without bleeding. There was no pleural effusion on both sides.",
    ...                  {"C0040405", "C0019080", "C0032227", "C0016658"}, d)
    {'C0016658': 'absent', 'C0019080': 'negated', 'C0032227': 'negated'}
    """
    return {concept: status for concept, (status, _, _) in _checked_readings(caption, concepts, dictionary).items()}


def caption_denials(caption: str, concepts: Iterable[str], dictionary: ConceptDictionary) -> dict[str, str]:
    """How a caption denies each of ``concepts`` it negates (:func:`caption_statuses`): as the evidence says of its
    mentions (:func:`evalcore.extraction.evidence.mention_status`), "negated" (ruled out), "hypothetical" (only
    considered), "history" (of the patient's history), "other exam" (of another examination) or "literature" (of
    other patients, in a sentence citing the literature, or a pasted case report's story), or "mixed" where its
    mentions are denied in more than one way. Modalities are left out.

    >>> d = ConceptDictionary.build({"C0019080": "Hemorrhage", "C0032227": "Pleural effusion disorder",
    ...                              "C0003962": "Ascites"})
    >>> caption_denials("No bleeding. Follow-up for pleural effusion is recommended. Ascites (arrow) [3].",
    ...                 {"C0019080", "C0032227", "C0003962"}, d)
    {'C0019080': 'negated', 'C0032227': 'hypothetical'}
    >>> caption_denials("CT of the abdomen. Complications include ascites [3].", {"C0003962"}, d)
    {'C0003962': 'literature'}
    """
    return {concept: kind for concept, (_, _, kind) in _checked_readings(caption, concepts, dictionary).items()
            if kind}


def _one_kind(kinds: set[str]) -> str:
    """The one way a concept's mentions (or its two captions) deny it, or "mixed" where they deny it in more than
    one."""
    return next(iter(kinds)) if len(kinds) == 1 else "mixed"


def _checked_readings(caption: str, concepts: Iterable[str],
                      dictionary: ConceptDictionary) -> dict[str, tuple[str, str, str]]:
    """:func:`_caption_readings`, ``concepts`` checked to be a collection of concept IDs."""
    if isinstance(concepts, str) or not isinstance(concepts, Iterable):
        raise ParameterError(f"concepts must be a collection of concept IDs, got {type(concepts).__name__}")
    listed = list(concepts)
    if not all(isinstance(concept, str) for concept in listed):
        raise ParameterError(f"concept IDs must be texts, got {next(c for c in listed if not isinstance(c, str))!r}")
    return _caption_readings(caption, listed, dictionary)


def _caption_readings(caption: str, concepts: Iterable[str], dictionary: ConceptDictionary,
                      limit: int = 120) -> dict[str, tuple[str, str, str]]:
    """Concept -> (its :func:`caption_statuses` status, the sentence of its first mention when negated, else "",
    how the caption denies it (:func:`caption_denials`), else ""), the sentence cut to ``limit`` characters; one
    reading of the caption for all of them."""
    found = mentions(caption, dictionary)
    by_concept: dict[str, list[Mention]] = {}
    for mention in found:
        by_concept.setdefault(mention.concept, []).append(mention)
    scopes: list | None = None  # read only for a concept the caption negates
    readings = {}
    for concept in sorted(concepts):
        if concept in MODALITY_WORDS:
            continue
        said = by_concept.get(concept, [])
        status = concept_status(mention.negated for mention in said)
        sentence = sentence_at(caption, said[0].start) if status == "negated" else ""
        kind = ""
        if status == "negated":
            scopes = cue_scopes(caption, cues=dictionary.cues) if scopes is None else scopes
            kind = _one_kind({mention_status(mention, scopes) for mention in said})
        readings[concept] = (status, sentence if len(sentence) <= limit else sentence[:limit - 1].rstrip() + "…", kind)
    return readings


class _Names(Mapping):
    """Names from the caller first, then the KG's, without copying either (the open KG has 64,000)."""

    def __init__(self, first: Mapping[str, str], second: Mapping[str, str]):
        self.first, self.second = first, second

    def __getitem__(self, key: str) -> str:
        return self.first[key] if key in self.first else self.second[key]

    def __contains__(self, key: object) -> bool:
        return key in self.first or key in self.second

    def __iter__(self):
        return iter({**self.second, **self.first})

    def __len__(self) -> int:
        return len({**self.second, **self.first})


def _by_name(concepts: Iterable[str], names: Mapping[str, str]) -> tuple[str, ...]:
    return tuple(sorted(concepts, key=lambda c: (names.get(c, c).lower(), c)))


def _near_matches(own: frozenset[str], other: frozenset[str], side: str, kg: KnowledgeGraph | None, n: int,
                  mode: str, names: Mapping[str, str]) -> list[NearMatch]:
    """Concepts of ``own`` within n hops of a concept of ``other``, each with its closest partner."""
    if kg is None or n == 0:
        return []
    found = []
    for concept in _by_name(own, names):
        reached = kg.distances_from(concept, n, mode)
        partners = [p for p in other if p != concept and p in reached]
        if not partners:
            continue
        partner = min(partners, key=lambda p: (reached[p], names.get(p, p).lower(), p))
        source, target = (concept, partner) if side == "query" else (partner, concept)
        found.append(NearMatch(concept, side, partner, path_steps(kg, kg.shortest_path(source, target, mode, max_hops=n),
                                                                  names)))
    return found


# --- plain words --------------------------------------------------------------------------

def _join(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``.

    >>> _join(["a"]), _join(["a", "b"]), _join(["a", "b", "c"])
    ('a', 'a and b', 'a, b and c')
    """
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def shown_name(node: str, name: str | None, audience: str) -> str:
    """A concept's name as the audience reads it where ``name`` may be unknown (None): a researcher then reads the
    name as the vocabulary writes it, or the ID; a clinician its :func:`plain_name`, or :data:`UNNAMED`.

    >>> shown_name("C0001", None, "clinician"), shown_name("C0001", None, "researcher")
    ('unnamed concept', 'C0001')
    >>> shown_name("C0032718", "Portal vein structure", "clinician")
    'Portal vein'
    >>> shown_name("C0032718", "Portal vein structure", "researcher")
    'Portal vein structure'
    """
    if audience == "clinician":
        return plain_name(node, name) if name else UNNAMED
    return name or node


#: The hierarchy words SNOMED CT writes into a name, which a clinician does not say: its structure-entire-part
#: triplets' "Structure of ..." and "... structure", ", device", "NOS" and a bracketed semantic tag ("Cor bovinum
#: (disorder)"; but a substance's, which tells it from the finding: "Effusion (substance)"); read off the name's
#: ends, one at a time. "Structure" stays after an adjective ("Pharyngeal
#: structure", "Left ventricular structure": the adjective alone names nothing), but for the nouns among such words
#: ("Cervical canal structure"). "... disorder" and "... finding" stay: "Lung disorder" is no lung.
_PLAIN_NAME_ENDS = re.compile(r"^structure of\s+|,\s*device$|,?\s+NOS$|"
                              r"\s*\((?!(?:body )?substance\))[^()]*\)$|"
                              r"(?:(?<!al)(?<!ar)(?<!ic)(?<!ous)(?<!ed)|(?<=canal)|(?<=metatarsal)|(?<=metacarpal)|"
                              r"(?<=pulvinar))\s+structure$", re.IGNORECASE)
_BONE_STRUCTURE_OF = re.compile(r"^bone structure of\s+(.+)$", re.IGNORECASE)
#: A bone structure's everyday name where the anatomical one is not what a clinician says (Terminologia Anatomica's
#: cranium is the skull; the face's bones are the facial bones).
EVERYDAY_BONES = MappingProxyType({"cranium": "skull", "face": "facial bones"})


def plain_name(node: str, name: str) -> str:
    """A concept's name as a clinician says it: an image modality as the kind of image (:data:`MODALITY_WORDS`, "CT
    scan" for *X-Ray Computed Tomography*), SNOMED CT's hierarchy words left out ("Structure of left kidney" is the
    left kidney, "Cor bovinum (disorder)" cor bovinum, "Stent, device" a stent), a bone structure named
    as a bone ("Bone structure of humerus" is "humerus (bone)", apart from the arm) or by its everyday name
    (:data:`EVERYDAY_BONES`: "Bone structure of cranium" is the skull, "Bone structure of face" the facial bones).
    Researchers read the name as the vocabulary writes it (:func:`shown_name`).

    >>> plain_name("C0040405", "X-Ray Computed Tomography"), plain_name("C0227613", "Structure of right kidney")
    ('CT scan', 'right kidney')
    >>> plain_name("C0020164", "Bone structure of humerus"), plain_name("C0031039", "Pharyngeal structure")
    ('humerus (bone)', 'Pharyngeal structure')
    >>> plain_name("C0037303", "Bone structure of cranium"), plain_name("C0015455", "Bone structure of face")
    ('skull', 'facial bones')
    >>> plain_name("C0038257", "Stent, device"), plain_name("C0024115", "Lung disorder")
    ('Stent', 'Lung disorder')
    """
    if node in MODALITY_WORDS:
        word = MODALITY_WORDS[node]
        return {"CT": "CT scan", "PET": "PET scan"}.get(word, word)
    plain = name.strip()
    while True:
        shorter = _PLAIN_NAME_ENDS.sub("", plain, count=1).strip()
        if shorter == plain or not shorter:
            break
        plain = shorter
    bone = _BONE_STRUCTURE_OF.match(plain)
    if not bone:
        return plain
    return EVERYDAY_BONES.get(bone.group(1).lower(), f"{bone.group(1)} (bone)")


def readable_path(path: Sequence[PathStep], audience: str) -> tuple[PathStep, ...]:
    """``path`` with each step named as the audience reads it (:func:`shown_name`); a step named by its own ID
    has no known name.

    >>> [step.name for step in readable_path([PathStep("X1", "X1", ""), PathStep("v", "vein", "is_a")], "clinician")]
    ['unnamed concept', 'vein']
    """
    return tuple(replace(step, name=shown_name(step.node, None if step.name == step.node else step.name, audience))
                 for step in path)


def path_phrase(path: Sequence[PathStep], emphasise: Callable[[str], str] = str) -> str:
    """A KG path in plain words: "is a kind of" for is_a links, "is part of" for part-of links.

    >>> up = [PathStep("a", "hepatic vein", ""), PathStep("b", "vein", "is_a")]
    >>> path_phrase(up)
    'hepatic vein is a kind of vein'
    >>> path_phrase(up[::-1][:1] + [PathStep("a", "hepatic vein", "has_child")])
    'hepatic vein is a kind of vein'
    >>> path_phrase([PathStep("v", "vein", ""), PathStep("b", "blood vessel", "is_a"), PathStep("r", "artery", "has_child")])
    'vein and artery are both kinds of blood vessel'
    >>> path_phrase([PathStep("x", "x-ray", ""), PathStep("t", "x-ray tomography", "has_child"),
    ...              PathStep("c", "tomography", "is_a")])
    'x-ray tomography is a kind of both x-ray and tomography'
    >>> path_phrase([PathStep("f", "femur", ""), PathStep("h", "head of femur", "has_child", "part_of")])
    'head of femur is part of femur'
    >>> path_phrase([PathStep("l", "lobe", ""), PathStep("c", "cortex", "is_a", "part_of"),
    ...              PathStep("b", "brain", "is_a", "part_of"), PathStep("o", "organ", "is_a")])
    'lobe is part of cortex, which is part of brain, which is a kind of organ'
    """
    names = [emphasise(step.name) for step in path]
    links = [step.link for step in path[1:]]
    verbs = [RELATION_WORDS.get(step.relation, RELATION_WORDS["is_a"]) for step in path[1:]]
    if not links:
        return names[0]
    if all(link == UP for link in links):
        return names[0] + "".join(f"{' ' if i == 0 else ', which '}{verb} {name}"
                                  for i, (verb, name) in enumerate(zip(verbs, names[1:])))
    if all(link == DOWN for link in links):
        # Read from the other end: the edge reaching node i + 1 joins the same two nodes read backwards.
        backwards = [PathStep(s.node, s.name, UP if i else "", path[len(path) - i].relation if i else "is_a",
                              path[len(path) - i].sources if i else ())
                     for i, s in enumerate(path[::-1])]
        return path_phrase(backwards, emphasise)
    turn = next(i for i, link in enumerate(links) if link != links[0])
    first, second = links[:turn], links[turn:]
    if len(set(first)) == 1 and len(set(second)) == 1 and all(step.relation == "is_a" for step in path[1:]):
        pivot = names[turn]
        if first[0] == UP:
            return f"{names[0]} and {names[-1]} are both kinds of {pivot}"
        return f"{pivot} is a kind of both {names[0]} and {names[-1]}"
    sentences = []
    for (previous, link), current, verb in zip(zip(names, links), names[1:], verbs):
        child, parent = (previous, current) if link == UP else (current, previous)
        sentences.append(f"{child} {verb} {parent}")
    return "; ".join(sentences)


#: What the image searched with is called: a clinician reads of a case, a researcher of a query.
QUERY_WORD = {"clinician": "case", "researcher": "query"}


def reason_sentences(explanation: Explanation, audience: str = "clinician",
                     emphasise: Callable[[str], str] = str) -> list[str]:
    """The reasons a result was retrieved, in plain words: the kind of image both are, what both show, the shared
    tags a caption denies, then each near match.

    Clinicians get names only; researchers also get the hop counts. A shared concept that the query's or this
    image's caption negates (:attr:`Explanation.caption_status`) is "tagged", never "shown".

    >>> from evalcore.data import KGEdges
    >>> kg = KnowledgeGraph.from_edges([KGEdges((("hv", "v", "t"),), {"hv": "hepatic vein", "v": "vein"})])
    >>> e = explain_pair({"liver", "v"}, {"liver", "hv"}, kg, measure_spec("nn-iou"), names={"liver": "liver"})
    >>> reason_sentences(e)
    ['both show liver', 'hepatic vein is a kind of vein']
    >>> reason_sentences(explain_pair({"a"}, {"b"}, None, measure_spec("iou")), "researcher")
    ['no concept in common with the query']
    >>> pair, d = {"C0040405", "C0019080"}, ConceptDictionary.build({"C0019080": "Hemorrhage"})
    >>> e = explain_pair(pair, pair, None, measure_spec("iou"), names={"C0019080": "Hemorrhage"},
    ...                  captions=("CT: hemorrhage", "CT without bleeding."), dictionary=d)
    >>> reason_sentences(e)
    ['both are CT images', "both are tagged Hemorrhage, but this image's caption says it is absent"]
    >>> reason_sentences(e, "researcher")[1]
    "both are tagged Hemorrhage, but this image's caption negates every mention of it (NegEx rule): “CT without bleeding”"
    """
    if audience not in AUDIENCES:
        raise ParameterError(f"audience must be one of {AUDIENCES}, got {audience!r}")

    def called(concept: str) -> str:
        return emphasise(shown_name(concept, explanation.names.get(concept), audience))

    modalities = sorted({MODALITY_WORDS[c] for c in explanation.exact if c in MODALITY_WORDS})
    shown, denied = _shown_and_denied(explanation)
    sentences = [f"both are {_join(modalities)} images"] if modalities else []
    if shown:
        sentences.append("both show " + _join([called(c) for c in shown]))
    for (where, kind), concepts in denied.items():
        sentence = _denied_sentence([called(c) for c in concepts], where, audience, kind)
        if audience == "researcher":
            quotes = dict.fromkeys(quote for c in concepts for quote in explanation.negation_evidence[c] if quote)
            sentence += ": " + " / ".join(emphasise(quoted(quote)) for quote in quotes)
        sentences.append(sentence)
    sentences += [_near_sentence(explanation, match, audience, emphasise, called) for match in _one_per_path(explanation)]
    if not sentences:
        sentences.append(f"no concept in common with the {QUERY_WORD[audience]}")
    return sentences


def _shown_and_denied(explanation: Explanation) -> tuple[list[str], dict[tuple[str, str], list[str]]]:
    """The shared concepts that are not modalities: those no caption negates, and the others by whose caption negates
    them ("result", "query" or "both", in that order) and how (:func:`caption_denials`; "mixed" where the two
    captions deny one concept in different ways)."""
    shown: list[str] = []
    denied: dict[tuple[str, str], list[str]] = {}
    for concept in explanation.exact:
        if concept in MODALITY_WORDS:
            continue
        query_status, result_status = explanation.caption_status.get(concept, ("", ""))
        where = {(True, True): "both", (True, False): "query", (False, True): "result"}.get(
            (query_status == "negated", result_status == "negated"))
        if where is None:
            shown.append(concept)
            continue
        kinds = {kind for kind in explanation.denial_kinds.get(concept, ("", "")) if kind} or {"negated"}
        denied.setdefault((where, _one_kind(kinds)), []).append(concept)
    order = {"result": 0, "query": 1, "both": 2}
    return shown, dict(sorted(denied.items(), key=lambda item: order[item[0][0]]))


def _one_per_path(explanation: Explanation) -> list[NearMatch]:
    """The near matches, one per (query concept, result concept) path: a pair near each other both ways is one link."""
    seen: dict[tuple[str, str], NearMatch] = {}
    for match in explanation.near:
        seen.setdefault((match.query_concept, match.result_concept), match)
    return list(seen.values())


def _near_sentence(explanation: Explanation, match: NearMatch, audience: str, emphasise: Callable[[str], str],
                   called: Callable[[str], str]) -> str:
    """A near match's path in words; researchers also read its links and their sources; a concept its caption
    negates is said to be absent."""
    phrase = path_phrase(readable_path(match.path, audience), emphasise)
    if audience == "researcher":
        origin = source_phrase(match.path)
        phrase += f" ({match.hops} link{'s' if match.hops != 1 else ''}{', ' + origin if origin else ''})"
    denials = []
    for concept, side, whose in ((match.query_concept, 0, f"the {QUERY_WORD[audience]}'s caption"),
                                 (match.result_concept, 1, "this image's caption")):
        if explanation.caption_status.get(concept, ("", ""))[side] == "negated":
            kind = explanation.denial_kinds.get(concept, ("", ""))[side] or "negated"
            name = called(concept)
            said = _DENIALS[kind][audience == "researcher"].format(they=name, them=name, is_="is", s="s")
            denials.append(f"{whose} {said}")
    # (one "but" for both sides: "..., but the case's caption ... and this image's caption ...")
    return phrase + (f", but {' and '.join(denials)}" if denials else "")


def quoted(sentence: str) -> str:
    """A caption's sentence quoted inside a reason: in curly quotes, without its own full stop, since the reason's
    punctuation follows the quote ("“no effusion.”." read as a stray mark); an ellipsis or "?" and "!" stay.

    >>> quoted("There was no pleural effusion on both sides."), quoted("Effusion?"), quoted("and so on...")
    ('“There was no pleural effusion on both sides”', '“Effusion?”', '“and so on...”')
    """
    return f"“{sentence[:-1] if sentence.endswith('.') and not sentence.endswith('..') else sentence}”"


#: How a caption denies a concept (:func:`caption_denials`) -> what the caption does with it, for clinicians and for
#: researchers ({they}/{them}: the concept or a pronoun, as subject and object; {is_}: its verb; {s}: the caption's
#: verb ending).
_DENIALS = {
    "negated": ("say{s} {they} {is_} absent", "negate{s} every mention of {them} (NegEx rule)"),
    "hypothetical": ("only consider{s} {them}", "hold{s} every mention of {them} in a hypothetical scope (ConText rule)"),
    "history": ("name{s} {them} only in the patient's history",
                "hold{s} every mention of {them} in a history scope (ConText rule)"),
    "other exam": ("name{s} {them} only for another examination",
                   "hold{s} every mention of {them} in an other-exam scope (ConText rule)"),
    "literature": ("name{s} {them} only when citing other patients or telling the case's story",
                   "hold{s} every mention of {them} in a literature statement (a citing sentence or a pasted case "
                   "report's: ConText rule)"),
    "mixed": ("say{s} {they} {is_} absent or not of this image",
              "negate{s} or leave{s} out every mention of {them} (NegEx and ConText rules)"),
}


def _denied_sentence(names: Sequence[str], where: str, audience: str, kind: str = "negated") -> str:
    """Shared tags that a caption negates, worded as tags with how the caption denies them (:data:`_DENIALS`;
    researchers are told the caption's rule).

    >>> _denied_sentence(["a", "b"], "both", "clinician")
    'both are tagged a and b, but both captions say they are absent'
    >>> _denied_sentence(["a"], "query", "researcher")
    "both are tagged a, but the query's caption negates every mention of it (NegEx rule)"
    >>> _denied_sentence(["a"], "result", "clinician", "literature")
    "both are tagged a, but this image's caption names it only when citing other patients or telling the case's story"
    """
    captions = {"result": "this image's caption", "query": f"the {QUERY_WORD[audience]}'s caption",
                "both": "both captions"}[where]
    plural = len(names) > 1
    said = _DENIALS[kind][audience == "researcher"].format(
        they="they" if plural else "it", them="them" if plural else "it", is_="are" if plural else "is",
        s="" if where == "both" else "s")
    return f"both are tagged {_join(names)}, but {captions} {said}"


# --- drawing ------------------------------------------------------------------------------

def _dot_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def paths_dot(paths: Sequence[Sequence[PathStep]], query_side: Iterable[str] = (), result_side: Iterable[str] = (),
              direction: str = "LR") -> str:
    """Graphviz DOT of KG paths: one node per concept (full name), one arrow per edge (child -> parent) labelled
    ``is a`` or ``part of``.

    Concepts of the query are drawn blue, those of the result orange, intermediate terms grey.

    >>> dot = paths_dot([[PathStep("v", "Veins", ""), PathStep("b", "Blood Vessels", "is_a")]], {"v"}, {"b"})
    >>> '"v" -> "b" [label="is a"]' in dot and 'label="Blood Vessels"' in dot
    True
    """
    query_side, result_side = set(query_side), set(result_side)
    nodes: dict[str, str] = {}
    edges: dict[tuple[str, str], str] = {}
    for path in paths:
        for step in path:
            nodes.setdefault(step.node, step.name)
        for previous, step in zip(path, path[1:]):
            edge = (previous.node, step.node) if step.link == UP else (step.node, previous.node)
            edges[edge] = "part of" if step.relation == "part_of" else "is a"
    lines = [f"digraph {{ rankdir={direction}; bgcolor=transparent; nodesep=0.2; ranksep=0.35;",
             'node [shape=box, style="rounded,filled", fontname="sans-serif", fontsize=11, margin="0.08,0.04"];',
             'edge [fontname="sans-serif", fontsize=9, color="#666666"];']
    for node, name in nodes.items():
        colour = "#cfe2f3" if node in query_side else ("#fde3c8" if node in result_side else "#eeeeee")
        lines.append(f'"{_dot_text(node)}" [label="{_dot_text(name)}", fillcolor="{colour}"];')
    for (child, parent), label in sorted(edges.items()):
        lines.append(f'"{_dot_text(child)}" -> "{_dot_text(parent)}" [label="{label}"];')
    lines.append("}")
    return "\n".join(lines)


# --- ties ---------------------------------------------------------------------------------

def tie_counts(pool_relevance: np.ndarray, ranked: Sequence[int]) -> list[int]:
    """For each ranked candidate (an index into ``pool_relevance``), how many *other* candidates
    of the pool have exactly the same relevance. Entries below 0 (the query itself) never count.

    >>> tie_counts(np.array([0.5, 1.0, 0.5, -1.0, 0.5]), [1, 0, 2])
    [0, 2, 2]
    """
    values = np.asarray(pool_relevance, dtype=np.float64)
    valid = values[values >= 0]
    distinct, counts = np.unique(valid, return_counts=True)
    tally = dict(zip(distinct.tolist(), counts.tolist()))
    return [tally.get(float(values[i]), 1) - 1 for i in ranked]


# --- concept search and an example path -------------------------------------------------

def search_concepts(text: str, labels: Mapping[str, str], popularity: Mapping[str, int] | None = None,
                    limit: int = 300) -> list[str]:
    """Concepts whose ID or name matches ``text``, best first: exact ID or name (plural ``s`` aside), then name prefix,
    then a word of the name starting with it, then substring; within a tier the more frequent
    (``popularity``), then the shorter name. Case-insensitive.

    >>> labels = {"C1": "Attenuation of retinal blood vessels", "C2": "Blood Vessels", "C3": "Blood vessel wall",
    ...           "C4": "Bloodstream"}
    >>> search_concepts("blood vessels", labels)
    ['C2', 'C1']
    >>> search_concepts("blood", labels)
    ['C4', 'C2', 'C3', 'C1']
    >>> search_concepts("c3", labels)
    ['C3']
    """
    needle = " ".join(text.lower().split())
    if not needle:
        return []
    popularity = popularity or {}
    singular = _singular(needle)
    ranked = []
    for concept, name in labels.items():
        lowered = name.lower()
        if needle in (concept.lower(), lowered) or _singular(lowered) == singular:
            tier = 0
        elif lowered.startswith(needle):
            tier = 1
        elif any(word.startswith(needle) for word in lowered.replace(",", " ").split()) or \
                f" {needle}" in lowered:
            tier = 2
        elif needle in lowered or needle in concept.lower():
            tier = 3
        else:
            continue
        ranked.append((tier, -popularity.get(concept, 0), len(name), lowered, concept))
    ranked.sort()
    return [entry[-1] for entry in ranked[:limit]]


def _singular(text: str) -> str:
    """Each word without a plural ``s``, so that "Veins" finds "vein" and "Blood Vessel" "blood vessels".

    >>> _singular("blood vessels")
    'blood vessel'
    """
    return " ".join(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word
                    for word in text.split())


def example_path_pair(kg: KnowledgeGraph, frequency: Mapping[str, int], mode: str = "undirected",
                      max_hops: int = 3) -> tuple[str, str] | None:
    """Two dataset concepts joined by a short KG path that a clinician would accept, to open a path finder on.

    Pairs are taken by distance (1 hop, then 2, ... up to ``max_hops``) and ranked by :func:`_path_tier`: is_a
    links that a well-known vocabulary (:data:`WELL_KNOWN_SOURCES`: MeSH, SNOMED CT) and another source both assert
    first (MeSH's tree alone also files parts under wholes: "Heart Ventricles" under "Heart"), then is_a links of a
    well-known vocabulary, then is_a links of any one source, then paths without a phenotype-ontology link
    (:data:`PHENOTYPE_SOURCES`: HPO files findings by phenotype, "Pleural effusion is a kind of Edema"), then any
    path; within a tier the pair whose rarer concept is the most frequent. The first distance with a pair of the
    first three tiers gives it; failing that, the best pair over all distances. ``None`` if no two are within
    ``max_hops``.

    >>> from evalcore.data import KGEdges
    >>> kg = KnowledgeGraph.from_edges([KGEdges((("vein", "vessel", "mesh"), ("artery", "vessel", "mesh")), {}),
    ...                                 KGEdges((("effusion", "edema", "hpo"),), {})])
    >>> example_path_pair(kg, {"vein": 5, "artery": 9, "effusion": 50, "edema": 60})
    ('artery', 'vein')
    """
    concepts = tuple(sorted(c for c in frequency if c in kg.index))
    best: tuple | None = None
    closer: set[tuple[str, str]] = set()
    for hops in range(1, max_hops + 1):
        matrix = kg.neighbour_matrix(concepts, hops, mode).tocoo()
        pairs = {(concepts[i], concepts[j]) for i, j in zip(matrix.row, matrix.col) if i < j} - closer
        closer |= pairs
        ranked = []
        for pair in pairs:
            steps = path_steps(kg, kg.shortest_path(*pair, mode, max_hops=hops), {})
            low, high = sorted((frequency[pair[0]], frequency[pair[1]]))
            ranked.append((-_path_tier(steps), low, high, pair))
        if not ranked:
            continue
        candidate = max(ranked)
        if best is None or candidate[0] > best[0]:
            best = candidate
        if -candidate[0] <= 2:
            return candidate[-1]
    return None if best is None else best[-1]


def _path_tier(path: Sequence[PathStep]) -> int:
    """0: is_a links each asserted by a well-known vocabulary and another source; 1: is_a links of one well-known
    vocabulary; 2: is_a links of one source; 3: no link from a phenotype ontology alone; 4: any path.

    >>> def link(*sources): return PathStep("b", "Blood Vessels", "is_a", "is_a", sources)
    >>> [_path_tier([PathStep("v", "Veins", ""), link(*sources)])
    ...  for sources in (("mesh", "uberon"), ("mesh",), ("uberon",), ("doid", "hpo"), ("hpo",))]
    [0, 1, 2, 2, 4]
    """
    links = [set(step.sources) for step in path[1:]]
    shared = set.intersection(*links) if links else set()
    if all(step.relation == "is_a" for step in path[1:]):
        if all(len(sources) > 1 and sources & WELL_KNOWN_SOURCES for sources in links):
            return 0
        if shared & WELL_KNOWN_SOURCES:
            return 1
        if shared - PHENOTYPE_SOURCES:
            return 2
    return 4 if any(sources and sources <= PHENOTYPE_SOURCES for sources in links) else 3
