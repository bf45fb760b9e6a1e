"""The NegEx-style rule of evalcore.extraction.negation, read through concept extraction's mentions as the explanations read it:
hand-worked sentences, the real ROCOv2 caption, random texts."""

from __future__ import annotations

import csv
import random
import re
from functools import lru_cache
from pathlib import Path

import pytest

from evalcore.errors import ParameterError
from evalcore.extraction.extractor import ConceptDictionary, mentions
from evalcore.extraction.negation import (
    MAX_SCOPE_WORDS,
    PLACE_PREPOSITIONS,
    POST_NEGATION,
    PRE_NEGATION,
    PSEUDO_NEGATION,
    TERMINATORS,
    concept_status,
    negated_spans,
    sentence_at,
)

ROCOV2 = Path(__file__).resolve().parents[2] / "shared" / "data" / "rocov2"
CONCEPT = "C0000001"


@lru_cache(maxsize=64)
def one_concept(names: tuple[str, ...]) -> ConceptDictionary:
    """A dictionary of one concept called ``names`` (the first its name, the others synonyms)."""
    return ConceptDictionary.build({CONCEPT: names[0]}, {CONCEPT: list(names[1:])}, abbreviations=False)


def mention_status(text: str, names: list[str]) -> str:
    """The status of a concept called ``names`` in ``text``: its mentions found as extraction finds them."""
    return concept_status(m.negated for m in mentions(text, one_concept(tuple(names))))


@pytest.mark.parametrize(("text", "names", "status"), [
    ("CT of the brain without hemorrhage", ["Hemorrhage"], "negated"),
    ("no pneumothorax, no pleural effusion", ["Pneumothorax"], "negated"),
    ("no pneumothorax, no pleural effusion", ["Pleural effusion"], "negated"),
    ("CT shows a large hemorrhage", ["Hemorrhage"], "affirmed"),
    ("no change in the hemorrhage", ["Hemorrhage"], "affirmed"),
    ("no fracture but a large hematoma", ["Hematoma"], "affirmed"),
    ("no fracture but a large hematoma", ["Fracture"], "negated"),
    ("No fracture. Hematoma seen.", ["Hematoma"], "affirmed"),
    ("Pneumothorax was ruled out.", ["Pneumothorax"], "negated"),
    ("The mass is not seen on the second scan", ["Mass"], "negated"),
    ("Not only a mass but also edema", ["Mass"], "affirmed"),
    ("No hemorrhage on day 1; a large hemorrhage on day 3", ["Hemorrhage"], "affirmed"),
    ("No hemorrhage on day 1 and no hemorrhage on day 3", ["Hemorrhage"], "negated"),
    ("MRI of the knee", ["Hemorrhage"], "absent"),
    # A place after the denied finding is not denied; a post-negation cue reaches back over it.
    ("Angiogram shows no blood flow in the distal aorta", ["Aorta"], "affirmed"),
    ("Without bleeding along the left electrode", ["Hemorrhage"], "negated"),
    ("Hemorrhage in the left frontal lobe was ruled out", ["Hemorrhage"], "negated"),
    ("MRI of spine with and without contrast showing C3-C4 discitis", ["Discitis"], "affirmed"),
    ("Negative for metastases", ["Metastasis", "metastases"], "negated"),
    ("Free of any large pleural effusions", ["pleural effusion"], "negated"),
    # The window: a mention more than MAX_SCOPE_WORDS words after the cue is not negated.
    ("No sign of recent change in the size of the left lung mass", ["mass"], "affirmed"),
])
def test_hand_worked_sentences(text: str, names: list[str], status: str) -> None:
    assert mention_status(text, names) == status


def test_status_and_evidence_sentence() -> None:
    assert [concept_status(flags) for flags in ((), (True,), (False,), (True, True), (False, True))] == [
        "absent", "negated", "affirmed", "negated", "affirmed"]
    text = "Chest X-ray. There was no pleural effusion on both sides. No change."
    assert mention_status(text, ["Pleural effusion disorder"]) == "negated"
    assert sentence_at(text, text.index("pleural")) == "There was no pleural effusion on both sides."
    assert sentence_at(text, 0) == "Chest X-ray." and sentence_at(text, len(text)) == sentence_at("", 0) == ""


def test_the_spans_are_the_scopes() -> None:
    text = "Without contrast, no fracture: mild edema"
    assert [text[a:b] for a, b in negated_spans(text)] == ["contrast", "fracture"]
    assert negated_spans("") == []


def test_rocov2_caption_of_009853_negates_hemorrhage() -> None:
    """The real caption: "... Without bleeding along the left electrode. ..." with ROCOv2's name "Hemorrhage"."""
    if not ROCOV2.exists():
        pytest.skip("../shared/data is absent")
    with open(ROCOV2 / "test_captions.csv", newline="", encoding="utf-8") as handle:
        caption = next(row[1] for row in csv.reader(handle) if row[0] == "ROCOv2_2023_test_009853")
    with open(ROCOV2 / "cui_mapping.csv", newline="", encoding="utf-8") as handle:
        names = {row[0]: row[1] for row in csv.reader(handle)}
    assert "Without bleeding" in caption
    assert mention_status(caption, [names["C0019080"]]) == "negated"
    assert mention_status(caption, [names["C0040405"], "CT"]) == "affirmed"
    found = mentions(caption, ConceptDictionary.build(names))  # the whole dictionary, the imaging vocabulary too
    assert concept_status(m.negated for m in found if m.concept == "C0019080") == "negated"
    assert concept_status(m.negated for m in found if m.concept == "C0040405") == "affirmed"


def test_bad_arguments_raise_the_projects_error() -> None:
    with pytest.raises(ParameterError, match="text"):
        negated_spans(None)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="max_words"):
        negated_spans("no mass", 0)


CUE_WORDS = {w for phrase in (*PRE_NEGATION, *POST_NEGATION, *PSEUDO_NEGATION, *TERMINATORS) for w in phrase.split()}
PLAIN_WORDS = ["lesion", "left", "right", "lobe", "the", "of", "a", "in", "CT", "scan", "shows", "large", "small",
               "contrast", "with", "after", "image", "arrow", "mass", "seen", "is", "was", "and", "x-ray", "2.5",
               "cm", "(arrow)", "e.g.", "patient's", "ÉCHO"]
PUNCTUATION = ["", "", "", ",", ".", ";", ":", "!", "?", "\n", " - ", "(", ")"]


def random_text(rng: random.Random, words: list[str], length: int) -> str:
    return " ".join(rng.choice(words) + rng.choice(PUNCTUATION) for _ in range(length))


@pytest.mark.parametrize("seed", range(40))
def test_random_texts(seed: int) -> None:
    rng = random.Random(seed)
    vocabulary = PLAIN_WORDS + sorted(CUE_WORDS) + ["no evidence of", "was ruled out", "no change"]
    text = random_text(rng, vocabulary, rng.randint(0, 40))
    spans = negated_spans(text, rng.randint(1, 8))
    assert all(0 <= a < b <= len(text) for a, b in spans)
    assert all(b1 < a2 for (_, b1), (a2, _) in zip(spans, spans[1:]))  # sorted, apart
    assert mention_status(text, ["lesion"]) in ("affirmed", "negated", "absent")

    plain = [w for w in PLAIN_WORDS if w.lower() not in CUE_WORDS and w != "mass"]
    without_cues = random_text(rng, plain, rng.randint(0, 40))
    assert negated_spans(without_cues) == []
    # A cue just before the only mention of a concept negates it, wherever it stands in a cue-free text.
    words = without_cues.split(" ")
    at = rng.randint(0, len(words))
    cue = rng.choice(["no", "without", "absence of", "negative for", "no evidence of"])
    negated = " ".join(words[:at] + [cue, "hemorrhage"] + words[at:])
    assert mention_status(negated, ["Hemorrhage"]) == "negated", negated
    assert mention_status(re.sub(r"\b" + cue + r"\b ", "", negated, count=1), ["Hemorrhage"]) == "affirmed"


# --- an independent implementation: the same rule token by token, without one combined pattern -----------------

GROUPS = tuple((group, sorted((phrase.split() for phrase in phrases), key=len, reverse=True)) for group, phrases in
               (("pseudo", PSEUDO_NEGATION), ("post", POST_NEGATION), ("pre", PRE_NEGATION), ("stop", TERMINATORS),
                ("place", PLACE_PREPOSITIONS)))
FIRST_WORDS = {words[0] for _, phrases in GROUPS for words in phrases}


def oracle_spans(text: str, max_words: int = MAX_SCOPE_WORDS) -> list[tuple[int, int]]:
    """NegEx over tokens: cues matched at each token (pseudo first, then post, pre, terminators, places; longest
    phrase first, words joined by spaces only), scopes walked token by token."""
    scopes = []
    for sentence in re.finditer(r".*?(?:[.!?]+(?=\s|$)|\n\s*\n)|.+$", text, re.DOTALL):
        tokens = [(m.group().lower(), m.start() + sentence.start(), m.end() + sentence.start())
                  for m in re.finditer(r"[^\W_]+(?:['’][^\W_]+)?|[;:]", sentence.group())]
        cues, i = [], 0
        while i < len(tokens):
            found = None
            for group, phrases in GROUPS if tokens[i][0] in FIRST_WORDS else ():
                for words in phrases:
                    window = tokens[i:i + len(words)]
                    if [w for w, _, _ in window] == words and all(
                            text[a[2]:b[1]].isspace() for a, b in zip(window, window[1:])):
                        found = (group, i, i + len(words))
                        break
                if found:
                    break
            if found:
                cues.append(found)
                i = found[2]
            else:
                i += 1
        starts = {first for _, first, _ in cues}
        for group, first, last in cues:
            if group == "pre":
                inside = []
                for j in range(last, len(tokens)):
                    if j in starts or len(inside) == max_words:
                        break
                    if tokens[j][0] not in (";", ":"):
                        inside.append(tokens[j])
            elif group == "post":
                begin = max([end for g, _, end in cues if g not in ("pseudo", "place") and end <= first], default=0)
                inside = [t for t in tokens[begin:first] if t[0] not in (";", ":")][-max_words:]
            else:
                continue
            if inside:
                scopes.append((inside[0][1], inside[-1][2]))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(scopes):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


@pytest.mark.parametrize("seed", range(40))
def test_agrees_with_a_token_by_token_implementation_on_random_texts(seed):
    rng = random.Random(seed)
    vocabulary = PLAIN_WORDS + sorted(CUE_WORDS) + ["no evidence of", "was ruled out", "no change", "in", "along"]
    text = random_text(rng, vocabulary, rng.randint(0, 60))
    words = rng.randint(1, 8)
    assert negated_spans(text, words) == oracle_spans(text, words), text


def test_agrees_with_a_token_by_token_implementation_on_rocov2_captions():
    if not ROCOV2.exists():
        pytest.skip("../shared/data is absent")
    with open(ROCOV2 / "test_captions.csv", newline="", encoding="utf-8") as handle:
        captions = [row[1] for row in csv.reader(handle)][1:]
    differing = [c for c in captions if negated_spans(c) != oracle_spans(c)]
    assert not differing, differing[:3]
    assert sum(1 for c in captions if negated_spans(c)) > 1000  # the captions do negate things
