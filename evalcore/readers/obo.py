"""OBO ontologies: ``[Term]`` stanzas and their ``is_a`` lines become edges; UMLS cross-references become CUIs."""

from __future__ import annotations

from pathlib import Path

from evalcore.data import KGEdges
from evalcore.errors import InputError
from evalcore.readers.lines import CUI_PATTERN, kg_node, split_lines


def umls_cui(xref: str) -> str | None:
    """The CUI an OBO ``xref:`` value names (``UMLS:C...`` or ``UMLS_CUI:C...``); None for any other xref.

    >>> umls_cui("UMLS:C0042449 {source=MESH}"), umls_cui("umls_cui:c0018787"), umls_cui("MESH:D014680")
    ('C0042449', 'C0018787', None)
    """
    if not xref.upper().startswith(("UMLS:", "UMLS_CUI:")):
        return None
    fields = xref.split(":", 1)[1].split()
    cui = fields[0].upper() if fields else ""
    return cui if CUI_PATTERN.match(cui) else None


def is_obo(first: str) -> bool:
    return first.startswith("format-version:") or first == "[Term]"


def read_obo(text: str, display: str) -> KGEdges:
    """OBO terms become nodes; a term with ``xref: UMLS:C...`` becomes its CUI(s), others keep their ID."""
    terms: list[dict] = []
    current: dict | None = None
    for line, content in split_lines(text, display):
        if content.startswith("["):
            current = {"line": line, "parents": [], "cuis": []} if content == "[Term]" else None
            if current is not None:
                terms.append(current)
            continue
        if current is None or ":" not in content:
            continue
        tag, value = content.split(":", 1)
        value = value.split(" ! ")[0].strip()
        if tag == "id":
            current["id"] = kg_node(value.split()[0] if value else "", display, line)
        elif tag == "name":
            current["name"] = value
        elif tag == "is_a":
            current["parents"].append(kg_node(value.split()[0] if value else "", display, line))
        elif tag == "xref" and (cui := umls_cui(value)):
            current["cuis"].append(cui)
        elif tag == "is_obsolete" and value == "true":
            current["obsolete"] = True
    nodes_of: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for term in terms:
        if "id" not in term:
            raise InputError(display, term["line"], "an 'id:' line in every [Term]", "none",
                             plain_expected="an 'id:' line in every [Term] (a concept map file of the research team's)")
        if term.get("obsolete"):
            continue
        nodes_of[term["id"]] = term["cuis"] or [term["id"]]
        for node in nodes_of[term["id"]]:
            names.setdefault(node, term.get("name", node))
    source = Path(display).stem
    edges = {
        (child, parent, source)
        for term in terms
        if term.get("id") in nodes_of
        for parent_id in term["parents"]
        for child in nodes_of[term["id"]]
        for parent in nodes_of.get(parent_id, [parent_id])
        if child != parent
    }
    if not edges:
        raise InputError(display, None, "[Term] stanzas with is_a lines", "no is_a edges",
                         plain_expected="terms linked to broader ones (is_a lines; a concept map file of the research "
                                        "team's)")
    return KGEdges(tuple(sorted(edges)), names, display)
