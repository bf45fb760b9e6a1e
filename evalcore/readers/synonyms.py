"""Synonyms of concepts (CUI -> further names) from the open ontologies and UMLS, for concept extraction.

- OBO files (UBERON, HPO, ...): a ``[Term]``'s ``name`` and its ``EXACT`` synonyms (the OBO 1.4 scope of an
  equivalent name; RELATED, BROAD and NARROW ones are not) become names of the CUIs of its ``xref: UMLS:C...``
  lines; a term without a UMLS cross-reference is mapped by its names as a MeSH descriptor is (below), where the
  concept names are given, else gives none.
- The Human Disease Ontology's ``allXREFinDO.tsv`` (``id, label, xref``): a term's label becomes a name of the CUIs
  of its ``UMLS_CUI:C...`` cross-references.
- MeSH descriptors TSV (``ID, heading, entry terms (|), tree numbers (|), taxa``; no CUIs): a descriptor is mapped to
  the CUIs of the given concept names as ``../shared/data/kg/README`` maps the open KG's MeSH nodes: its heading
  equal to a name, else equal ignoring case, else one entry term equal (ignoring case) to the name of exactly one
  concept; the heading and entry terms become names of those CUIs.
- UMLS ``MRCONSO.RRF``: every English string of a CUI.

:func:`read_synonyms` tells the format from the first line, as the other readers do, and raises
:class:`~evalcore.errors.InputError` naming file, line and what was expected.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from evalcore.errors import InputError, ParameterError
from evalcore.readers.files import Source, read_text
from evalcore.readers.lines import CUI_PATTERN, first_line_of_text, pipe_separated, split_lines
from evalcore.readers.obo import is_obo, umls_cui

Synonyms = dict[str, tuple[str, ...]]

_FORMATS = "an OBO file, UMLS MRCONSO.RRF, the Disease Ontology's allXREFinDO.tsv or a MeSH descriptors TSV"
#: :data:`_FORMATS` for a reader who is not a researcher.
_PLAIN_FORMATS = "a file of other names of concepts, as the research team gives it"
_OBO_SYNONYM = re.compile(r'"((?:[^"\\]|\\.)*)"\s*([A-Z]+)?')
_MESH_ID = re.compile(r"^[A-Z][0-9]{6,9}$")
#: SNOMED CT's words that place a body structure in its hierarchy ("Structure of ...", "... structure": the S node of
#: its structure-entire-part triplets), which an ontology's term name does not write.
_STRUCTURE = re.compile(r"^(?:bone )?structure of\s+|\s+structure$", re.IGNORECASE)


def read_synonyms(source: Source, name: str | None = None, names: Mapping[str, str] | None = None) -> Synonyms:
    """CUI -> synonyms from any of the formats above (``names``, ID -> name, is needed for MeSH descriptors only).

    >>> read_synonyms(b'[Term]\\nid: HP:1\\nname: Pneumothorax\\nsynonym: "Collapsed lung" EXACT []\\n'
    ...               b'xref: UMLS:C0032326\\n', "hp.obo")
    {'C0032326': ('Pneumothorax', 'Collapsed lung')}
    >>> read_synonyms(b"D014680\\tVeins\\tVein|Venae\\tA07.015.908\\t\\n", "mesh.tsv", {"C0042449": "veins"})
    {'C0042449': ('Veins', 'Vein', 'Venae')}
    """
    text, display = read_text(source, name)
    line, first = first_line_of_text(text)
    if not first:
        raise InputError(display, None, _FORMATS, "an empty file", plain_expected=_PLAIN_FORMATS)
    if is_obo(first) or display.lower().endswith(".obo"):
        return _obo_synonyms(text, display, names)
    if display.lower().endswith(".rrf") or pipe_separated(first):
        return _mrconso_synonyms(text, display)
    fields = [field.strip().strip('"') for field in first.split("\t")]
    if len(fields) >= 3 and [f.lower() for f in fields[:3]] == ["id", "label", "xref"]:
        return _doid_synonyms(text, display)
    if len(fields) >= 2 and _MESH_ID.match(fields[0]):
        if names is None:
            raise ParameterError(f"{display}: MeSH descriptors carry no CUIs; give the concept names to map them by")
        return _mesh_synonyms(text, display, names)
    raise InputError(display, line, _FORMATS, repr(first[:60]), plain_expected=_PLAIN_FORMATS)


def _added(synonyms: dict[str, dict[str, None]], cui: str, texts: list[str]) -> None:
    kept = synonyms.setdefault(cui, {})
    for text in texts:
        if text:
            kept.setdefault(text, None)


def _frozen(synonyms: dict[str, dict[str, None]]) -> Synonyms:
    return {cui: tuple(texts) for cui, texts in synonyms.items() if texts}


def _said(name: str) -> str:
    """A name as :func:`_obo_synonyms` compares names: lower case, words only, each without a plural's "s"."""
    return " ".join(word.removesuffix("s") for word in re.findall(r"[a-z0-9]+", name.lower()))



def _inflammation(said: str) -> bool:
    """Whether a name, as :func:`_said` reads it, states an inflammation: a word ending in "-itis" (or "-itide")."""
    return any(word.endswith(("iti", "itide")) or word.endswith("itis") for word in said.split())


def _obo_synonyms(text: str, display: str, names: Mapping[str, str] | None = None) -> Synonyms:
    """An OBO file's names of each UMLS cross-reference's CUI. An ontology's ``xref`` says no relation: a CUI that
    terms of different names cross-reference is the concept of those whose name or EXACT synonym is the CUI's name in
    ``names`` (HPO's "Multiple myeloma" and "Plasmacytoma" both cross-reference Plasmacytoma: only the second's names
    are its synonyms; issue 69), of all where none says it; a CUI one term cross-references keeps its names."""
    synonyms: dict[str, dict[str, None]] = {}
    term: dict | None = None
    claims: dict[str, list[list[str]]] = {}

    exact, folded = _name_lookup(names or {}, bare=True)  # (an OBO term never names SNOMED CT's structure words)

    def close(term: dict | None) -> None:
        if term is not None and not term["obsolete"] and term["names"]:
            # (a term no UMLS cross-reference maps, by its names: UBERON's "middle nasal concha" has none)
            heading, *others = term["names"]
            for cui in term["cuis"] or _cuis_by_name(heading, others, exact, folded):
                claims.setdefault(cui, []).append(term["names"])

    for line, content in split_lines(text, display):
        if content.startswith("["):
            close(term)
            term = {"cuis": [], "names": [], "obsolete": False} if content == "[Term]" else None
            continue
        if term is None or ":" not in content:
            continue
        tag, value = (part.strip() for part in content.split(":", 1))
        if tag == "name":
            term["names"].insert(0, value)
        elif tag == "synonym":
            match = _OBO_SYNONYM.match(value)
            if match is None:
                raise InputError(display, line, 'a synonym line \'synonym: "text" SCOPE [xrefs]\'', repr(content[:60]),
                                 plain_expected='a line of another name: synonym: "the name" EXACT')
            if (match.group(2) or "RELATED") == "EXACT":
                term["names"].append(match.group(1).replace('\\"', '"'))
        elif tag == "xref" and (cui := umls_cui(value)):
            term["cuis"].append(cui)
        elif tag == "is_obsolete" and value == "true":
            term["obsolete"] = True
    close(term)
    for cui, terms in claims.items():
        own = _said(names[cui]) if names and cui in names else None
        if own is not None and len({_said(texts[0]) for texts in terms if texts}) > 1:
            saying = [texts for texts in terms if own in {_said(text) for text in texts}]
            terms = saying or terms
        if own is not None and _inflammation(own):
            # a CUI whose name states an inflammation (-itis) its term's names do not state is narrower than the
            # term: HPO's "Hepatic steatosis" ("Fatty liver") cross-references Steatohepatitis (issue 69)
            terms = [texts for texts in terms if any(_inflammation(_said(text)) for text in texts)]
        for texts in terms:
            _added(synonyms, cui, texts)
    return _frozen(synonyms)


def _doid_synonyms(text: str, display: str) -> Synonyms:
    synonyms: dict[str, dict[str, None]] = {}
    for position, (line, content) in enumerate(split_lines(text, display)):
        if position == 0:
            continue  # the header, checked by the caller
        fields = [field.strip().strip('"') for field in content.split("\t")]
        if len(fields) < 3:
            raise InputError(display, line, "3 tab-separated fields (id, label, xref)", f"{len(fields)} field(s)",
                             plain_expected="3 fields separated by tabs: a code, a name and the concept code it stands for")
        _, label, xref = fields[:3]
        if xref.upper().startswith("UMLS_CUI:"):
            cui = xref.split(":", 1)[1].strip().upper()
            if not CUI_PATTERN.match(cui):
                raise InputError(display, line, "a UMLS_CUI cross-reference to a CUI (C + 7 digits)", repr(xref[:60]),
                                 plain_expected="a concept code of the form C + 7 digits after UMLS_CUI:")
            _added(synonyms, cui, [label])
    return _frozen(synonyms)


def _name_lookup(names: Mapping[str, str], bare: bool = False) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Each concept name -> its CUIs, as written and ignoring case (:func:`_cuis_by_name`); with ``bare``, also
    ignoring case without SNOMED CT's structure words where no other name is written so ("Middle nasal turbinate
    structure" is "middle nasal turbinate", UBERON's EXACT synonym of its middle nasal concha). MeSH descriptors are
    mapped without: read so, their inverted entry terms ("Duct, Cystic") were read where a caption writes the
    words without the comma ("dilated ducts/cystic appearance"; issue 69, ROCOv2 valid).

    >>> _name_lookup({"C0225435": "Middle nasal turbinate structure"}, bare=True)[1]
    {'middle nasal turbinate structure': ['C0225435'], 'middle nasal turbinate': ['C0225435']}
    """
    exact: dict[str, list[str]] = {}
    folded: dict[str, list[str]] = {}
    for concept, concept_name in names.items():
        if CUI_PATTERN.match(concept):
            exact.setdefault(concept_name, []).append(concept)
            folded.setdefault(concept_name.casefold(), []).append(concept)
    for concept, concept_name in names.items() if bare else ():
        written = _STRUCTURE.sub("", concept_name).casefold()
        if CUI_PATTERN.match(concept) and written != concept_name.casefold() and written not in folded:
            folded.setdefault(written, []).append(concept)
    return exact, folded


def _cuis_by_name(heading: str, others: list[str], exact: Mapping[str, list[str]],
                  folded: Mapping[str, list[str]]) -> list[str]:
    """The CUIs a term of no CUI is mapped to as ``../shared/data/kg/README`` maps the open KG's MeSH nodes: its
    heading equal to a name, else equal ignoring case, else one of its ``others`` equal (ignoring case) to the name
    of exactly one concept; none else.

    >>> exact, folded = _name_lookup({"C0225435": "Middle nasal turbinate", "C0013443": "Ear", "C0000002": "Ears"})
    >>> _cuis_by_name("middle nasal concha", ["middle nasal turbinate"], exact, folded)
    ['C0225435']
    >>> _cuis_by_name("EAR", [], exact, folded), _cuis_by_name("concha", ["ear", "ears"], exact, folded)
    (['C0013443'], [])
    """
    cuis = exact.get(heading) or folded.get(heading.casefold())
    if cuis:
        return list(cuis)
    unique = {tuple(folded[term.casefold()]) for term in others if len(folded.get(term.casefold(), ())) == 1}
    return list(unique.pop()) if len(unique) == 1 else []


def _mesh_synonyms(text: str, display: str, names: Mapping[str, str]) -> Synonyms:
    exact, folded = _name_lookup(names)
    synonyms: dict[str, dict[str, None]] = {}
    for line, content in split_lines(text, display):
        fields = content.split("\t")
        if len(fields) < 2 or not _MESH_ID.match(fields[0].strip()) or not fields[1].strip():
            raise InputError(display, line, "a MeSH descriptor row 'ID<TAB>heading<TAB>entry terms (|)...'",
                             repr(content[:60]), plain_expected="a row of a code, a heading and its other names, "
                                                                "separated by tabs")
        heading = fields[1].strip()
        entry_terms = [term.strip() for term in fields[2].split("|")] if len(fields) > 2 else []
        for cui in _cuis_by_name(heading, entry_terms, exact, folded):
            _added(synonyms, cui, [heading, *entry_terms])
    return _frozen(synonyms)


def _mrconso_synonyms(text: str, display: str) -> Synonyms:
    """MRCONSO columns: CUI|LAT|TS|LUI|STT|SUI|ISPREF|AUI|SAUI|SCUI|SDUI|SAB|TTY|CODE|STR|..."""
    synonyms: dict[str, dict[str, None]] = {}
    for line, content in split_lines(text, display):
        fields = content.split("|")
        if len(fields) < 15:
            raise InputError(display, line, "MRCONSO.RRF rows with at least 15 '|'-separated fields", f"{len(fields)}",
                             plain_expected="rows of at least 15 fields separated by '|' (a names file of the research "
                                            "team's)")
        if fields[1] == "ENG" and CUI_PATTERN.match(fields[0]):
            _added(synonyms, fields[0], [fields[14].strip()])
    return _frozen(synonyms)
