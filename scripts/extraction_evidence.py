"""Measure concept extraction from captions against ROCOv2's own concept sets and write docs/EXTRACTION.md.

Usage: python scripts/extraction_evidence.py [--rocov2 DIR] [--ontologies DIR] [--kg EDGES.csv] [--labels CSV]
       [--out docs/EXTRACTION.md] [--splits valid,test] [--no-table1]

Three dictionaries: (a) ROCOv2's ``cui_mapping.csv`` names only, (b) + the built-in imaging vocabulary
(abbreviations), (c) + the open synonyms (MeSH entry terms, UBERON and HPO EXACT synonyms, DOID labels). For each:
the ImageCLEF concept-detection score (mean per-image F1, :func:`evalcore.metrics.detection.detection_f1`, as the
``detection`` command computes it), micro precision and recall, the share of the image-derived (manual) concept
occurrences recovered and the F1 on the caption-derived concepts apart; the most missed and most spurious concepts
of the development split with an example caption; the effect of negation; and Table 1 / nn-CUI@K of the three
Table-1 baselines on the test split computed from extracted concepts beside the same from ROCOv2's concepts.
The tuning rounds' rules and the hand readings are recorded results, not measured here: the document shows them
from docs/extraction_rounds.json (``recorded(NAME)``).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections import Counter
from collections.abc import Mapping
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))  # the plain reference matcher of bench_extract.py, defined once there

import pandas as pd  # noqa: E402
from bench_extract import plain_regex  # noqa: E402
from scipy.stats import chi2_contingency, norm  # noqa: E402

from evalcore.api import extract_concepts  # noqa: E402
from evalcore.data import ConceptSets  # noqa: E402
from evalcore.evaluation.evaluator import Evaluator  # noqa: E402
from evalcore.evaluation.options import Relevance  # noqa: E402
from evalcore.extraction.extractor import ConceptDictionary, mentions, merged_synonyms  # noqa: E402
from evalcore.io.loading import LABEL_MAPPING, load_kg, load_labels  # noqa: E402
from evalcore.io.tables import markdown_table  # noqa: E402
from evalcore.metrics.detection import detection_f1  # noqa: E402
from evalcore.readers import read_captions, read_concept_names, read_concepts, read_synonyms  # noqa: E402
from evalcore.studies import reproduction as rp  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
SYNONYM_FILES = ("mesh/mesh_descriptors_2023.tsv", "uberon/efo-slim.obo", "uberon/vertebrate-head.obo", "hpo/hp.obo",
                 "doid/allXREFinDO.tsv")
REFERENCE = "(0) reference: one regex of the canonical names, no normalisation, no negation"
CONFIGS = ("(a) names", "(b) names + abbreviations", "(c) names + abbreviations + open synonyms")
DEVELOPMENT = "valid"

#: The recorded results of the tuning rounds and hand readings: data the document shows, not computed here.
RECORDED = ROOT / "docs" / "extraction_rounds.json"


@cache
def _recorded_tables() -> dict:
    return json.loads(RECORDED.read_text(encoding="utf-8"))["tables"]


def recorded(name: str) -> tuple[tuple, ...]:
    """The table ``name`` of docs/extraction_rounds.json (what each holds is its ``about``) as a tuple of row tuples.
    A row ``{"rows_of": OTHER}`` stands for the rows of table OTHER; with ``"columns"``, each of them rebuilt: an
    integer takes that cell of the row, a string is itself."""
    rows: list[tuple] = []
    for row in _recorded_tables()[name]["rows"]:
        if not isinstance(row, dict):
            rows.append(tuple(row))
        elif "columns" in row:
            rows.extend(tuple(part if isinstance(part, str) else cells[part] for part in row["columns"])
                        for cells in recorded(row["rows_of"]))
        else:
            rows.extend(recorded(row["rows_of"]))
    return tuple(rows)


SECOND_ROUND = recorded("SECOND_ROUND")
THIRD_ROUND = recorded("THIRD_ROUND")
FOURTH_ROUND = recorded("FOURTH_ROUND")
FIFTH_ROUND = recorded("FIFTH_ROUND")
SIXTH_ROUND = recorded("SIXTH_ROUND")
SEVENTH_ROUND = recorded("SEVENTH_ROUND")
EIGHTH_ROUND = recorded("EIGHTH_ROUND")
NINTH_ROUND = recorded("NINTH_ROUND")
TENTH_ROUND = recorded("TENTH_ROUND")
ELEVENTH_ROUND = recorded("ELEVENTH_ROUND")
TWELFTH_ROUND = recorded("TWELFTH_ROUND")
THIRTEENTH_ROUND = recorded("THIRTEENTH_ROUND")
FOURTEENTH_ROUND = recorded("FOURTEENTH_ROUND")
FIFTEENTH_ROUND = recorded("FIFTEENTH_ROUND")
SIXTEENTH_ROUND = recorded("SIXTEENTH_ROUND")
SEVENTEENTH_ROUND = recorded("SEVENTEENTH_ROUND")
EIGHTEENTH_ROUND = recorded("EIGHTEENTH_ROUND")
NINETEENTH_ROUND = recorded("NINETEENTH_ROUND")
TWENTIETH_ROUND = recorded("TWENTIETH_ROUND")
TWENTY_FIRST_ROUND = recorded("TWENTY_FIRST_ROUND")
TWENTY_SECOND_ROUND = recorded("TWENTY_SECOND_ROUND")
TWENTY_FOURTH_ROUND = recorded("TWENTY_FOURTH_ROUND")
TWENTY_FIFTH_ROUND = recorded("TWENTY_FIFTH_ROUND")
TWENTY_SIXTH_ROUND = recorded("TWENTY_SIXTH_ROUND")
TWENTY_SEVENTH_ROUND = recorded("TWENTY_SEVENTH_ROUND")
TWENTY_EIGHTH_ROUND = recorded("TWENTY_EIGHTH_ROUND")
THIRD_PASS_ROUND = recorded("THIRD_PASS_ROUND")
THIRD_PASS_HEADING = "## Third pass (issue 69): rules added and their gain on valid"
THIRD_PASS_TEXT = ("Mechanisms, not lists, developed on valid only (each row's change measured against the row before it; "
                   "images better or worse by ROCOv2's concept sets); `test` was scored once, after the last rule. "
                   "Several rows trade agreement with ROCOv2 for what the caption says: its curation tags hepatic "
                   "steatosis as Steatohepatitis, an aneurysm's neck as Neck and a chest radiograph's view AP.")
TWENTY_FIFTH_PASS_READING = recorded("TWENTY_FIFTH_PASS_READING")
THIRD_PASS_MORPHOLOGY = recorded("THIRD_PASS_MORPHOLOGY")
MORPHOLOGY_HEADING = "## Third pass (issue 69): derivational morphology"
MORPHOLOGY_TEXT = ("Item 1 of issue 69, mechanisms derived from the dictionary's own names "
                   "(`evalcore.extraction.morphology`: an organ's adjective and prefix rules with their sources), developed "
                   "on valid only, each row measured against the row before it; a derived form is read only as a concept of "
                   "the "
                   "loaded dictionary that alone yields it, never where a name, synonym, vocabulary word or the lexicon "
                   "already writes the word. All the changed valid tags were read: 20 in (b), 19 in (c), all right. "
                   "`test` was scored once, after the last row: (b) 0.7312 (0.73119, from 0.73124), (c) 0.7388 (0.73876,"
                   " from 0.73880); 23 test images gain a tag, 7 of them curated, all 23 right by reading. Extraction "
                   "time on valid is unchanged (one process: (b) 2.51 to 2.67 s before, 2.53 to 2.56 s after; (c) 2.54 "
                   "to 2.59 s, 2.57 to 2.63 s).")
THIRD_PASS_TEST_READING = recorded("THIRD_PASS_TEST_READING")
READING_69_HEADING = "## Read by hand in issue 69's third pass"
READING_69_TEXT = ("Test captions, dictionary (c), one reader (a helper agent), fresh samples; `test` was scored once, "
                   "before the reading (the rows above). Before is the extractor of 1bb881e, the last commit before "
                   "issue 69's rules (they came in with 78cbf87 and 3724b23, whose messages name issues 67 and 68; "
                   "05e449d~1 already holds them and differs from after only by the morphology row's 23 tags); after "
                   "is the code of e98b60a. The two samples fall on images where before and after agree, so the "
                   "before column of precision and recall is the same reading. Each class's captions were found by a "
                   "text search over all 9,927 test captions (the sample column) and every caption whose tags the "
                   "class concerns was read. Precision (99.5 %) meets its target, and so do the lobe, \"without "
                   "findings of\" and steatosis classes (no test caption is French); recall (85.3 %; 92.2 % of the "
                   "stated concepts ROCOv2's vocabulary has) misses 90 %, and two wrong-tag classes miss 2 %: the "
                   "Neck of a \"neck-shaft angle\" (3 of 45) and an AP view assumed for a contrast study or a chest "
                   "radiograph (11 of 181). Wrong tags the recall sample showed beside the precision count: \"left "
                   "main coronary trunk\" as the body's trunk, a tooth's \"cortical plate\" as the Cerebral cortex, "
                   "the Chest on a dog's cervical radiograph, the pulmonary embolism a CT angiogram was made for.")
THIRD_PASS_CLASSES = recorded("THIRD_PASS_CLASSES")
CLASSES_69_HEADING = "## Third pass (issue 69): the two wrong-tag classes the test reading left"
CLASSES_69_TEXT = ("The test reading above left two wrong-tag classes over 2 % of the captions with their trigger: the "
                   "Neck of a \"neck-shaft angle\" (3 of 45) and an AP view assumed for a contrast study or a chest "
                   "radiograph (11 of 181). Mechanisms, developed on valid only, each row measured against the row "
                   "before it; every valid tag that changed was read: 13 images, 13 tags removed and none added, each "
                   "wrong by the rule the row states, 10 of them curated by ROCOv2 (whose curators tag the view of a "
                   "contrast study, and Neck for a bone's or an aneurysm's neck). On valid, dictionaries (b) and (c) "
                   "alike: the AP view is assumed in 151 captions before, 10 of them wrong (contrast studies 8, chest "
                   "radiographs 2), and 1 of the 151 after (the drain study of the last row); 3 captions say "
                   "\"neck-shaft\" or \"neck shaft\", 1 with the Neck before and 0 after; the 5 that say "
                   "pseudoaneurysm and neck, 3 with the Neck before and 0 after. `test` was not scored again. After "
                   "the test reading, the two classes were recounted on test with dictionary (c), counting only: the "
                   "AP view is assumed in 162 of the reading's 181 captions, 1 of them wrong (\"X-rays during hepatic "
                   "venous pressure gradient measurement\", 0.6 %; the other 10 wrong ones no longer, and no right one "
                   "lost); the 5 test captions that say a neck-shaft or neck shaft angle have no Neck (3 before), and "
                   "2 pseudoaneurysm necks lost theirs; no other test image's Neck changed.")
EIGHT_NEGATION_READINGS = recorded("EIGHT_NEGATION_READINGS")
EIGHT_READINGS_CONTEXT_WRONG = recorded("EIGHT_READINGS_CONTEXT_WRONG")
EIGHT_READINGS_MATCHING_WRONG = recorded("EIGHT_READINGS_MATCHING_WRONG")
TWENTY_THIRD_ROUND = recorded("TWENTY_THIRD_ROUND")
HAND_READING = recorded("HAND_READING")
THIRD_PASS_READING = recorded("THIRD_PASS_READING")
THIRD_PASS_VALID_READING = recorded("THIRD_PASS_VALID_READING")
FOURTH_PASS_READING = recorded("FOURTH_PASS_READING")
FOURTH_PASS_VALID_READING = recorded("FOURTH_PASS_VALID_READING")
CLASSES_AT_ZERO = recorded("CLASSES_AT_ZERO")
FIFTH_PASS_READING = recorded("FIFTH_PASS_READING")
FIFTH_PASS_VALID_READING = recorded("FIFTH_PASS_VALID_READING")
SIXTH_PASS_READING = recorded("SIXTH_PASS_READING")
SIXTH_PASS_VALID_READING = recorded("SIXTH_PASS_VALID_READING")
SEVENTH_PASS_READING = recorded("SEVENTH_PASS_READING")
SEVENTH_PASS_VALID_READING = recorded("SEVENTH_PASS_VALID_READING")
EIGHTH_PASS_READING = recorded("EIGHTH_PASS_READING")
EIGHTH_PASS_VALID_READING = recorded("EIGHTH_PASS_VALID_READING")
NINTH_PASS_READING = recorded("NINTH_PASS_READING")
NINTH_PASS_VALID_READING = recorded("NINTH_PASS_VALID_READING")
TENTH_PASS_READING = recorded("TENTH_PASS_READING")
TENTH_PASS_VALID_READING = recorded("TENTH_PASS_VALID_READING")
ELEVENTH_PASS_READING = recorded("ELEVENTH_PASS_READING")
ELEVENTH_PASS_VALID_READING = recorded("ELEVENTH_PASS_VALID_READING")
TWELFTH_PASS_READING = recorded("TWELFTH_PASS_READING")
TWELFTH_PASS_VALID_READING = recorded("TWELFTH_PASS_VALID_READING")
THIRTEENTH_PASS_READING = recorded("THIRTEENTH_PASS_READING")
THIRTEENTH_PASS_VALID_READING = recorded("THIRTEENTH_PASS_VALID_READING")
CLASSES_UNCHANGED = recorded("CLASSES_UNCHANGED")
FOURTEENTH_PASS_READING = recorded("FOURTEENTH_PASS_READING")
FOURTEENTH_PASS_VALID_READING = recorded("FOURTEENTH_PASS_VALID_READING")
FIFTEENTH_PASS_READING = recorded("FIFTEENTH_PASS_READING")
FIFTEENTH_PASS_VALID_READING = recorded("FIFTEENTH_PASS_VALID_READING")
CLASS_LISTINGS_UNCHANGED = recorded("CLASS_LISTINGS_UNCHANGED")
SIXTEENTH_PASS_READING = recorded("SIXTEENTH_PASS_READING")
SIXTEENTH_PASS_VALID_READING = recorded("SIXTEENTH_PASS_VALID_READING")
SEVENTEENTH_PASS_READING = recorded("SEVENTEENTH_PASS_READING")
SEVENTEENTH_PASS_VALID_READING = recorded("SEVENTEENTH_PASS_VALID_READING")
EIGHTEENTH_PASS_READING = recorded("EIGHTEENTH_PASS_READING")
EIGHTEENTH_PASS_VALID_READING = recorded("EIGHTEENTH_PASS_VALID_READING")
NINETEENTH_PASS_READING = recorded("NINETEENTH_PASS_READING")
CLASSES_TWENTIETH_ON = recorded("CLASSES_TWENTIETH_ON")
TWENTIETH_PASS_READING = recorded("TWENTIETH_PASS_READING")
TWENTIETH_PASS_VALID_READING = recorded("TWENTIETH_PASS_VALID_READING")
TWENTY_FIRST_PASS_READING = recorded("TWENTY_FIRST_PASS_READING")
TWENTY_SECOND_PASS_READING = recorded("TWENTY_SECOND_PASS_READING")
TWENTY_SECOND_PASS_SECOND_READING = recorded("TWENTY_SECOND_PASS_SECOND_READING")
TWENTY_SECOND_PASS_VALID_READING = recorded("TWENTY_SECOND_PASS_VALID_READING")
TWENTY_SECOND_PASS_LATER_VALID_READING = recorded("TWENTY_SECOND_PASS_LATER_VALID_READING")
TWENTY_THIRD_PASS_READING = recorded("TWENTY_THIRD_PASS_READING")
TWENTY_FOURTH_PASS_READING = recorded("TWENTY_FOURTH_PASS_READING")
TWENTY_THIRD_PASS_VALID_READING = recorded("TWENTY_THIRD_PASS_VALID_READING")
TWENTY_FIRST_PASS_VALID_READING = recorded("TWENTY_FIRST_PASS_VALID_READING")
NINETEENTH_PASS_VALID_READING = recorded("NINETEENTH_PASS_VALID_READING")


def _wilson(right: int, items: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of ``right`` of ``items``."""
    share, z = right / items, norm.ppf(0.975)
    centre = (share + z * z / (2 * items)) / (1 + z * z / items)
    half = z * (share * (1 - share) / items + z * z / (4 * items * items)) ** 0.5 / (1 + z * z / items)
    return centre - half, centre + half


def _eight_readings_lines() -> list[str]:
    """What the negation readings of test say together: a table, the pooled figure with its Wilson interval, and a
    chi-squared test of whether the readings differ more than their samples do."""
    items = sum(row[2] for row in EIGHT_NEGATION_READINGS)
    wrong = sum(row[3] for row in EIGHT_NEGATION_READINGS)
    right = (items - wrong) / items
    low, high = _wilson(items - wrong, items)
    context_wrong = sum(n for _, n in EIGHT_READINGS_CONTEXT_WRONG)
    if context_wrong + sum(n for _, n in EIGHT_READINGS_MATCHING_WRONG) != wrong:
        raise ValueError("the readers' classes must add up to the wrong items")
    context_low, context_high = _wilson(items - context_wrong, items)
    differ = chi2_contingency([[n - bad, bad] for _, _, n, bad in EIGHT_NEGATION_READINGS])[1]
    table = markdown_table(pd.DataFrame(
        [(reading, sample, f"{n:,}", f"{bad}", f"{100 * (n - bad) / n:.1f} %")
         for reading, sample, n, bad in EIGHT_NEGATION_READINGS],
        columns=["pass", "sample", "items", "wrong", "right"]))
    return [
        "Every negation reading of test since the nineteenth pass (brief 11, fresh captions each time, two "
        "readers and a third on their disputes; the two readers disputed 1 to 5 items of each reading):", "",
        table, "",
        f"Together {items:,} items, {wrong} wrong: {100 * right:.1f} % right (95 % interval "
        f"{100 * low:.1f}-{100 * high:.1f} %). Over six passes the rules added on valid "
        "moved the figure on fresh test captions by nothing one can detect: the eight readings differ no more than "
        f"eight samples of one extractor would (chi-squared test, p = {differ:.2f}), though with about 550 items "
        "each a change of a point would go unseen. Of the 179 wrong decisions, the extractor at the "
        "start of the twenty-fifth pass still makes 164, as rules are built and measured on valid: history 53, a "
        "word sense 28, a denial missed 25, another examination 16, a scope too long 14, other 14, hypothetical 6, "
        "imaged anatomy 5, generic 3. The history class is a long tail: the rules this pass measured for it on "
        "valid (an earlier procedure's anatomy; a sentence with no word of the figure: the table above) remove "
        "far more that the valid readers judge right than wrong, as the earlier passes' did (a symptom's site, "
        "\"patient with\", a patient sentence with no word of the image). This pass's rows change no image's set on "
        "valid or test (one reading's interval is about 1.2 points each way at 1,100 items), so no negation "
        "reading was drawn after them (precision and recall were read: above). Of the 156 tags the readers say "
        "should not have been kept, ROCOv2's own curated concepts hold 98 (history 30 of 53, a word sense 25 of "
        "36: the collection's \"Valve (physical object)\" for a heart valve, \"Neck\" for an aneurysm's neck, "
        "\"Heart\" for \"cardiac\"; a denial missed 22 of 29): there brief 11 and the collection's curation "
        "part, and the extractor's tag is the curators' (of the 23 tags wrongly removed, 18 are curated: errors by "
        "both). Counting the curated word senses as the collection's convention, as the brief counts the assumed "
        "AP view, would give 96.6 %, still short. Reaching the 97 % target needs another mechanism for \"is this "
        "stated of this image\", not more rows.", "",
        "By the readers' own classes (the twenty-sixth pass's count, for the issue's author and not as a "
        f"resolution): {context_wrong} of the {wrong} wrong items are ConText decisions, a cue or its scope ("
        + ", ".join(f"{name} {n}" for name, n in EIGHT_READINGS_CONTEXT_WRONG) + "), and "
        f"{wrong - context_wrong} are matching errors that lie in a cue's sentence ("
        + ", ".join(f"{name} {n}" for name, n in EIGHT_READINGS_MATCHING_WRONG) + "), which the precision "
        "readings measure. The ConText decisions alone are right in "
        f"{100 * (items - context_wrong) / items:.1f} % ({items - context_wrong:,} of {items:,}; 95 % interval "
        f"{100 * context_low:.1f}-{100 * context_high:.1f} %): the issue's \"negated phrases\" may mean these; "
        "the pre-registered figure counts every item, and stays the negation figure of these documents.", ""]


EIGHT_READINGS_LINES = _eight_readings_lines()


def rules_table(rows: tuple[tuple[str, str, str], ...]) -> str:
    """A round's rules in the order added, with the valid F1 of dictionaries (b) and (c) after each."""
    return markdown_table(pd.DataFrame(rows, columns=["rule", "valid F1 (b)", "valid F1 (c)"]))


def readings_lines(test_rows: tuple[tuple[str, ...], ...], when: tuple[str, ...],
                   valid_rows: tuple[tuple[str, str], ...]) -> list[str]:
    """A pass's hand readings: the test table (what, sample, one column per reading in ``when``, target), then the
    valid readings made while developing, if any."""
    test_table = [markdown_table(pd.DataFrame(test_rows, columns=["what", "sample", *when, "target"])), ""]
    if not valid_rows:
        return test_table
    return [*test_table, "On valid, while developing:", "",
            markdown_table(pd.DataFrame(valid_rows, columns=["what", "readings"])), ""]


def scores(truth: ConceptSets, predicted: Mapping[str, frozenset[str]], manual: frozenset[str]) -> dict:
    """Detection F1, micro precision / recall, the manual tags' recall and the F1 on the other concepts."""
    primary = detection_f1(truth, predicted)
    hits = sum(len(predicted[i] & gold) for i, gold in zip(truth.ids, truth.sets))
    made = sum(len(predicted[i]) for i in truth.ids)
    manual_gold = sum(len(gold & manual) for gold in truth.sets)
    manual_hits = sum(len(predicted[i] & gold & manual) for i, gold in zip(truth.ids, truth.sets))
    others = frozenset(truth.vocabulary) | frozenset().union(*predicted.values())
    caption_derived = detection_f1(truth, predicted, subset=others - manual)
    return {"F1": primary.f1, "precision": hits / made if made else float("nan"), "recall": hits / truth.occurrences(),
            "manual recovered": manual_hits / manual_gold, "F1 caption-derived": caption_derived.f1,
            "images scored": primary.images_scored, "empty gold": primary.images_empty_ground_truth}


def as_mapping(sets: ConceptSets) -> dict[str, frozenset[str]]:
    return dict(zip(sets.ids, sets.sets))


def error_table(truth: ConceptSets, predicted: Mapping[str, frozenset[str]], captions: Mapping[str, str],
                names: Mapping[str, str], missed: bool, count: int = 20) -> pd.DataFrame:
    counts: Counter[str] = Counter()
    example: dict[str, str] = {}
    for image_id, gold in zip(truth.ids, truth.sets):
        wrong = gold - predicted[image_id] if missed else predicted[image_id] - gold
        for concept in wrong:
            counts[concept] += 1
            example.setdefault(concept, image_id)
    rows = []
    for concept, times in counts.most_common(count):
        caption = " ".join(captions[example[concept]].split())
        rows.append({"CUI": concept, "name": names.get(concept, "(no name)"), "times": times,
                     "example": f"{example[concept]}: {caption[:150]}{'…' if len(caption) > 150 else ''}"})
    return pd.DataFrame(rows)


def without_negation(captions: Mapping[str, str], dictionary: ConceptDictionary) -> dict[str, frozenset[str]]:
    """Every mention's concept, negated or not: extraction with negation handling switched off."""
    return {image_id: frozenset(m.concept for m in mentions(text, dictionary)) for image_id, text in captions.items()}


def table1_rows(concepts: ConceptSets, captions: Mapping[str, str], kg, labels_path: Path, source: str) -> pd.DataFrame:
    """P@K (modality, organ, both) and nn-CUI@K of the three Table-1 baselines, every ranking and every relevance
    computed from ``concepts`` (labels derived from them through the CUI-to-class mapping)."""
    evaluator = Evaluator(concepts, kg, "undirected", load_labels(labels_path, concepts))
    systems = rp.table1_systems(evaluator, captions)
    names = rp.precision_names() + [f"nn-CUI@{k}" for k in rp.TABLE1_KS]
    evaluation = evaluator.evaluate(systems, names, Relevance(rp.PAPER_MEASURE))
    rows = []
    for system, result in evaluation.systems.items():
        row = {"concepts": source, "system": system}
        for name in names:
            values = result.values[name]
            defined = values[~pd.isna(values)]
            row[name] = 100 * float(defined.mean()) if len(defined) else float("nan")
            if name.startswith("P@5["):
                row[f"queries {name[4:-1]}"] = len(defined)
        rows.append(row)
    return pd.DataFrame(rows)


def run(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rocov2", type=Path, default=DATA / "rocov2")
    parser.add_argument("--ontologies", type=Path, default=DATA / "ontologies")
    parser.add_argument("--kg", type=Path, default=DATA / "kg" / "open_kg_edges.csv")
    parser.add_argument("--labels", type=Path, default=LABEL_MAPPING)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "EXTRACTION.md")
    parser.add_argument("--splits", default="valid,test")
    parser.add_argument("--no-table1", action="store_true")
    args = parser.parse_args(argv)
    started = time.perf_counter()

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - started:7.1f} s] {message}", file=sys.stderr, flush=True)

    names = read_concept_names(args.rocov2 / "cui_mapping.csv")
    synonym_paths = [args.ontologies / f for f in SYNONYM_FILES]
    synonyms = merged_synonyms(*(read_synonyms(path, names=names) for path in synonym_paths))
    dictionaries = {CONFIGS[0]: ConceptDictionary.build(names, abbreviations=False),
                    CONFIGS[1]: ConceptDictionary.build(names),
                    CONFIGS[2]: ConceptDictionary.build(names, synonyms)}
    splits = args.splits.split(",")
    data = {split: (read_captions(args.rocov2 / f"{split}_captions.csv"), read_concepts(args.rocov2 / f"{split}_concepts.csv"),
                    frozenset(read_concepts(args.rocov2 / f"{split}_concepts_manual.csv").vocabulary))
            for split in splits}
    manual = frozenset().union(*(tags for _, _, tags in data.values()))
    score_rows, negation_rows, extracted = [], [], {}
    reference = plain_regex(names)
    for split, (captions, truth, _) in data.items():
        log(f"{split}: {REFERENCE}")
        plain_match = {image_id: reference(text) for image_id, text in captions.items()}
        score_rows.append({"split": split, "dictionary": REFERENCE, **scores(truth, plain_match, manual)})
        for config, dictionary in dictionaries.items():
            log(f"{split}: {config}")
            clock = time.perf_counter()
            sets = extract_concepts(captions, names, synonyms=synonyms if "synonyms" in config else None,
                                    abbreviations="abbreviations" in config)
            seconds = time.perf_counter() - clock
            extracted[split, config] = as_mapping(sets)
            score_rows.append({"split": split, "dictionary": config, **scores(truth, extracted[split, config], manual),
                               "seconds": round(seconds, 2)})
            if config != CONFIGS[0]:
                plain = without_negation(captions, dictionary)
                negation_rows.append({"split": split, "dictionary": config,
                                      **{f"{k} with": v for k, v in scores(truth, extracted[split, config], manual).items()
                                         if k in ("F1", "precision", "recall")},
                                      **{f"{k} without": v for k, v in scores(truth, plain, manual).items()
                                         if k in ("F1", "precision", "recall")},
                                      "concepts dropped as negated": sum(len(plain[i] - extracted[split, config][i])
                                                                         for i in truth.ids),
                                      "of them in ROCOv2's set": sum(len((plain[i] - extracted[split, config][i]) & gold)
                                                                     for i, gold in zip(truth.ids, truth.sets))})
    score_table = pd.DataFrame(score_rows)
    lines = [
        "# Concept sets from captions: how close extraction comes to ROCOv2's concepts",
        "",
        f"Generated by `python scripts/extraction_evidence.py{' ' + ' '.join(argv) if argv else ''}` on "
        f"{time.strftime('%Y-%m-%d')} ({platform.python_version()}, {platform.machine()}).",
        "",
        "The extractor (`evalcore.extraction.extractor`, `python -m evalcore extract`) matches concept names, synonyms, the "
        "built-in imaging vocabulary (`evalcore/extraction/rules/imaging_vocabulary.tsv`) and the built-in synonyms "
        "(`evalcore/extraction/rules/synonyms.tsv`; both with (b) and (c), each row with its source) over normalised "
        "words, longest match first, and drops mentions in a negated scope (`evalcore.extraction.negation`, the rule the "
        "explanations use). Dictionaries: " + "; ".join(CONFIGS) + ". Open synonyms: "
        + ", ".join(f"`{f}`" for f in SYNONYM_FILES) + " from `../shared/data/ontologies`.",
        "",
        f"Development was on `{DEVELOPMENT}` only; `test` was scored at the points each pass's section below names.",
        "",
        "## Concept detection score against ROCOv2's concept sets",
        "",
        "F1: the ImageCLEFmedical concept-detection score, the mean over images of the per-image F1 "
        "(`evalcore.metrics.detection.detection_f1`, what `python -m evalcore detection` reports). Like the official "
        "ImageCLEFmedical evaluator (2025), which reads an empty gold cell as one empty concept, it scores an image "
        "whose gold set is empty 1 when nothing is predicted for it and 0 otherwise (issue 34; until then such images "
        "were left out). Every ROCOv2 image has gold concepts (`empty gold` = 0), so both rules give the same "
        "numbers here. "
        "Precision and recall are micro (over concept occurrences). `manual recovered`: the "
        f"share of the occurrences of the {len(manual)} image-derived tags of `*_concepts_manual.csv` (modality, X-ray "
        "body region, view) that extraction finds; `F1 caption-derived`: the detection F1 restricted to all other "
        "concepts. The reference row is a plain exact match (`plain_regex` of `benchmarks/bench_extract.py`: ROCOv2's "
        "canonical names as one case-insensitive alternation of whole words; issue 24 quotes 0.50, precision 0.72, "
        "recall 0.43 for such a match on test, which this one does not reproduce). `seconds`: the extraction in "
        "this process (names and synonyms already read; the dictionary built), "
        "on this machine; `python benchmarks/bench_extract.py` times the `extract` command end to end.",
        "",
        markdown_table(score_table, digits=4),
        "",
    ]
    targets = {("test", CONFIGS[2]): 0.70, ("valid", CONFIGS[1]): 0.65}
    for (split, config), target in targets.items():
        match = score_table[(score_table.split == split) & (score_table.dictionary == config)]
        if len(match):
            f1 = float(match.F1.iloc[0])
            lines.append(f"- Target F1 >= {target:.2f} on {split} with {config}: **{f1:.4f}**, "
                         f"{'met' if f1 >= target else 'missed by ' + format(target - f1, '.4f')}.")
    full = score_table[score_table.dictionary == CONFIGS[2]]
    lines += ["", "Reading the numbers: the image-derived tags are the ceiling. ROCOv2's curators tagged modality, X-ray "
              "body region and view from the image; a caption often does not say them (\"A giant retroperitoneal "
              "tumor.\" is a CT; nearly half of the radiographs are tagged AP, mostly without a caption saying so). "
              "Extraction recovers "
              + " and ".join(f"{row['manual recovered']:.1%} of them on {row.split}" for _, row in full.iterrows())
              + " with all three sources; the F1 on the caption-derived concepts alone is "
              + " and ".join(f"{row['F1 caption-derived']:.4f} on {row.split}" for _, row in full.iterrows())
              + ". No rule is a label: names, their UMLS lexical variants, the open ontologies' synonyms, the sourced "
              "imaging vocabulary and the built-in synonyms, each a synonym by its cited source (the built-in ones were "
              "chosen by looking at valid's labels: kept where a real synonym raised valid F1). Three rules follow "
              "ROCOv2's curation rather than the caption's words, and are part of the vocabulary (switched off with "
              "it, `--no-abbreviations`): view tags count on plain radiographs only; an imaging procedure is recorded as its "
              "modality (an echocardiogram is "
              "tagged Ultrasonography, as ROCOv2's curators tag it); and a plain radiograph of the abdomen or the "
              "pelvis that names no projection gets that region's standard one, AP (Clark's Positioning in "
              "Radiography; a contrast or fluoroscopic study gets none). The last one is an inference, not something "
              "the caption says: on valid, with dictionary (b), it adds 143 right and 19 wrong AP tags (165 and 83 "
              "before the fifth pass held it to plain radiographs; measured while developing).", ""]
    lines += ["## Rules added in the second round and their gain on valid", "",
              "Measured on `valid` while developing, each rule added on top of the ones above it (the valid F1 of "
              "dictionaries (b) and (c) after the rule, its gain in brackets); these figures are development "
              "history, not recomputed by this script. `test` was scored once, after the last row. Each rule is a "
              "fact with its source in `evalcore/extraction/imaging_vocabulary.py` or `evalcore/extraction/extractor.py`.", "",
              rules_table(SECOND_ROUND), "",
              "Tried and left out: every vocabulary row (modality too) read inside a longer mention (-0.0003 on (c)); "
              "\"lateral\" alone as a radiograph's view (on valid radiograph captions it would add 55 right and 62 "
              "wrong Sagittal tags); the adjectives abdominal, hepatic, pulmonary, renal, cerebral and cranial read "
              "as their nouns (-0.0025, -0.0019, -0.0007, -0.0001, -0.0004, -0.0006 on (c): they name a region more "
              "than the part, \"abdominal pain\"); spinal and vertebral (no change).", "",
              "## Rules added in the third round and their gain on valid", "",
              "The same way, from the last row above. `test` was scored once, after the third round.", "",
              rules_table(THIRD_ROUND), "",
              "Tried and left out: \"dilated\" read as dilatation (152 more wrong Pathological Dilatation tags on valid for "
              "one right one: \"dilated cardiomyopathy\", \"dilated bowel loops\"); the chest's standard projection "
              "(PA by the textbook, but ROCOv2 tags as many chest radiographs AP as PA, many of them bedside films): "
              "not assumed.", "",
              "## Rules added in issue 36's second pass and their gain on valid", "",
              "The same way. `test` was scored once, after the second row (dictionary (c): 0.7207); the rows marked "
              "\"(test reading)\" fix faults found by reading test captions by hand, so the test figures above are "
              "no longer untouched ones.", "",
              rules_table(FOURTH_ROUND), "",
              "## Rules added in issue 36's third pass and their gain on valid", "",
              "The same way, each row after the fixes that reading valid captions by hand called for (four readings "
              "of negation, four of precision, two of recall). `test` was scored and read by hand twice in this pass: "
              "after the row marked \"(test scored)\" (dictionary (c): 0.7211, (b): 0.6984), and after the last row "
              "(the table at the top); the two rows marked \"(test reading)\" mend faults the first test reading "
              "showed, so the last test figures are not untouched ones. Some rows trade agreement with ROCOv2 for what "
              "the caption says: ROCOv2 tags Chest and Abdomen on radiographs only and Fluid behavior on every FLAIR "
              "sequence, so reading \"chest CT\" as Chest costs 0.0049 on valid and not reading fluid in "
              "\"fluid-attenuated\" 0.0006, while a reader counts both right.", "",
              rules_table(FIFTH_ROUND), "",
              "## Rules added in issue 36's fourth pass and their gain on valid", "",
              "The same way, developed on valid only, each row after the fixes that three fresh valid readings of "
              "negation, precision and recall called for; `test` was scored and read by hand after the row marked "
              "\"(test scored and read)\" and again after the last row. The built-in synonyms (rules/synonyms.tsv) "
              "were found where the valid concept sets name a concept the extractor missed, each kept only where "
              "it is a synonym by the cited source and raised valid F1 alone; the rows after the first test scoring gave +0.0234 "
              "(c) on test, about "
              "what they gave on valid (+0.0248). Three rows trade agreement with ROCOv2 for what the caption says "
              "(ROCOv2's curation keeps denied findings and never maps clot to Thrombus).", "",
              rules_table(SIXTH_ROUND), "",
              "## Rules added in issue 36's fifth pass and their gain on valid", "",
              "The same way, developed on valid only, after two fresh valid readings each of negation, precision and "
              "recall; `test` was scored and read once, after the last row. Most rows trade agreement with ROCOv2 "
              "for what the caption says: its curation tags one conjunct of a coordination and seldom a Latin "
              "plural.", "",
              rules_table(SEVENTH_ROUND), "",
              "## Rules added in issue 36's sixth pass and their gain on valid", "",
              "The same way, developed on valid only, after fresh valid readings of negation (92.6 %; 96.0 % without "
              "one case report pasted as a caption), precision (95.5 %) and recall (84.1 % without convention "
              "misses); `test` was scored and read once, after the last row. The plain-radiograph words of the "
              "standard-view rule became sense-word data (role plain-radiograph) on the way, with no change.", "",
              rules_table(EIGHTH_ROUND), "",
              "## Rules added in issue 36's seventh pass and their gain on valid", "",
              "The same way, developed on valid only, with three fresh valid readings on the way (negation twice, "
              "precision twice, recall once); `test` was scored after the fourth row without looking at its items, "
              "and scored and read once, after the last row. Several rows trade agreement with ROCOv2 for what the "
              "caption says: its curation tags what a caption says was removed, the concepts of literature "
              "statements pasted into captions, and a bowel or graft limb as a limb.", "",
              rules_table(NINTH_ROUND), "",
              "## Rules added in issue 36's eighth pass and their gain on valid", "",
              "The same way, developed on valid only, with one fresh valid reading of each kind on the way; `test` "
              "was scored and read once, after the last row. The history row trades agreement with ROCOv2 for what "
              "the caption says: its curation tags the presenting complaint (the oedema of the leg on an abdominal "
              "CT, the dysphagia on a neck CT).", "",
              rules_table(TENTH_ROUND), "",
              "## Rules added in issue 36's ninth pass and their gain on valid", "",
              "The same way: the first row's rules were seen in the eighth pass's test negation reading and each "
              "measured on valid before it was kept; the rest come from one fresh valid reading of each kind (its "
              "figures in the fourth row); `test` was scored and read once, after the last row. Most rows move no "
              "valid set's F1: ROCOv2's curation tags what a caption denies about as often as what it affirms, so "
              "negation is measured by reading.", "",
              rules_table(ELEVENTH_ROUND), "",
              "## Rules added in issue 36's tenth pass and their gain on valid", "",
              "The same way: the rows come from two fresh valid negation readings and one valid precision reading; "
              "the first row's list, conjunction and removal cases were also seen in the ninth pass's test negation "
              "reading, and each was measured on valid before it was kept; `test` was read once, after the fifth "
              "row, its negation sample drawn from test captions no earlier pass had read; the sixth row narrowed a "
              "rule after that reading, and the test F1 above is after it. Most rows lower "
              "agreement with ROCOv2 a little where its curation tags what the caption says was removed or denied.",
              "",
              rules_table(TWELFTH_ROUND), "",
              "## Rules added in issue 36's eleventh pass and their gain on valid", "",
              "The same way: the rows come from two valid negation readings (one of 114 fresh captions, one of 150 "
              "that earlier passes had read before their rules) and a valid precision reading; the third row was "
              "seen in the tenth pass's test reading (its X-ray class) and changes no valid caption; `test` was "
              "scored and read once, after the last row, its negation sample the 106 test captions with a cue no "
              "earlier pass had read and 94 read before.", "",
              rules_table(THIRTEENTH_ROUND), "",
              "## Rules added in issue 36's twelfth pass and their gain on valid", "",
              "The same session, after the eleventh pass's test reading: the rows come from three valid readings "
              "made after it (negation, recall, and every decision in valid's six pasted texts); `test` was scored "
              "and read once more, after the last row (the F1 at the top is after it), its negation sample 200 "
              "test captions with a cue that the eleventh pass's reading had not used (every one read by an "
              "earlier pass).", "",
              rules_table(FOURTEENTH_ROUND), "",
              "## Rules added in issue 36's thirteenth pass and their gain on valid", "",
              "The first two rows come from the twelfth pass's test readings (their error classes and the X-ray "
              "class listing) and were measured on valid, where they change one image; the others from four valid "
              "readings made in this pass (two of negation, two of precision); `test` was scored and read once, "
              "after the last row (the F1 at the top is after it).", "",
              rules_table(FIFTEENTH_ROUND), "",
              "## Rules added in issue 36's fourteenth pass and their gain on valid", "",
              "Two rows carry classes of the thirteenth pass's test readings (word senses, a denied recurrence) "
              "measured on valid; the others come from four valid readings made in this pass (two of precision, "
              "two of negation). Most trade agreement with ROCOv2 for what the caption says: its curators tag the "
              "femur of a femoral access, a renal pelvis as the pelvis and a drain in a vein that drains. `test` was "
              "scored and read once, after the last row (the F1 at the top is after it).", "",
              rules_table(SIXTEENTH_ROUND), "",
              "## Rules added in issue 36's fifteenth pass and their gain on valid", "",
              "The same session, after the fourteenth pass's two test readings: the rows come from the valid "
              "readings of both passes and from classes the test readings showed, each measured on valid (five "
              "rows change no valid caption and say so). `test` was scored and read after the last row by two "
              "more pairs of readers (the F1 at the top is after it).", "",
              rules_table(SEVENTEENTH_ROUND), "",
              "## Rules added in issue 36's sixteenth pass and their gain on valid", "",
              "From four valid readings of the fifteenth pass's extractor; `test` was scored and read after the last "
              "row (the F1 at the top is after it).", "",
              rules_table(EIGHTEENTH_ROUND), "",
              "## Rules added in issue 36's seventeenth pass and their gain on valid", "",
              "From the sixteenth pass's valid readings and the wording of its test errors (one cue, \"not "
              "displayed\", no valid caption has: said in the row); `test` was scored and read after the first "
              "row. The rows after it come from four valid precision readings made after the test reading, and "
              "were not read on test (the F1 at the top is after the last row).", "",
              rules_table(NINETEENTH_ROUND), "",
              "## Rules added in issue 36's eighteenth pass and their gain on valid", "",
              "From two valid negation readings (the seventeenth pass's and this pass's) and a valid precision "
              "reading, and from the classes the seventeenth pass's test reading named (each measured on valid; "
              "cues seen on test only are said so in their rows and sources). Most rows trade agreement with "
              "ROCOv2's curation for what the caption says: the curators tag a differential's alternatives and "
              "the Birth of \"after birth\". `test` was scored and read once, after the fourth row; the fifth to seventh "
              "rows came after the reading and were not read on test (the F1 at the top is after them).", "",
              rules_table(TWENTIETH_ROUND), "",
              "## Rules added in issue 36's nineteenth pass and their gain on valid", "",
              "From seven valid negation readings and five valid precision readings under a rewritten brief (the "
              "readings section below); each row measured on valid, one wording seen on test said so in its row. "
              "Most rows trade agreement with ROCOv2's curation for what the caption says: the curators tag the "
              "patient's history, a balloon dilatation and a congenitally absent structure. `test` was scored and "
              "read once, after the fifth row; the sixth and seventh came after the reading (two more valid readings, "
              "then a review) and were not read on test (the F1 at the top is after them).", "",
              rules_table(TWENTY_FIRST_ROUND), "",
              "## Rules added in issue 36's twentieth pass and their gain on valid", "",
              "From a fresh valid negation reading under brief 11 (two readers, each on half of 200 captions none of "
              "the earlier valid samples held); the pass also made extraction about a fifth faster with the same "
              "mentions (`benchmarks/bench_extract.py`), tested against reading every mention's denial rules and against "
              "lowering each word apart (a capital sigma lowers by its neighbours).", "",
              rules_table(TWENTY_SECOND_ROUND), "",
              "## Rules added in issue 36's twenty-first pass and their gain on valid", "",
              "From two fresh valid negation readings and two valid precision readings under brief 11 (two readers "
              "each on half of each sample; the readings section below), every rule tried measured on valid; one "
              "row is a wording seen on test, said so in its row. `test` was read after the first two rows, once; "
              "the fourth came after the reading, from a review of the pass, and was not read on test.", "",
              rules_table(TWENTY_THIRD_ROUND), "",
              "## Rules added in issue 36's twenty-second pass and their gain on valid", "",
              "From the last fresh valid negation captions (every valid caption with an item has now been read once "
              "under brief 11), two fresh valid precision readings and one of the tags a row adds, and from the "
              "misses the pass's two test readings and the earlier recall readings reported (each row says what it "
              "saw where; a row seen on a test reading was not read on that sample). `test` was read after the "
              "first row and again after the fourth; the fifth to seventh came after both readings.", "",
              rules_table(TWENTY_FOURTH_ROUND), "",
              "## Rules added in issue 36's twenty-third pass and their gain on valid", "",
              "From the wrong decisions of every earlier valid reading (both readers agreeing) that the extractor "
              "still made, each rule measured on valid; a fresh valid precision reading (p50, below) after the "
              "rows and a valid recall reading (vr1) during them. `test` was read once, after every row but the "
              "last before the one that lists what was left out.", "",
              rules_table(TWENTY_FIFTH_ROUND), "",
              "## Rules added in issue 36's twenty-fourth pass and their gain on valid", "",
              "From the wrong decisions of the earlier valid readings that the extractor still makes, each rule "
              "measured on valid.", "",
              rules_table(TWENTY_SIXTH_ROUND), "",
              "## Rules added in issue 36's twenty-fifth pass and their gain on valid", "",
              "From what the twenty-fourth pass's review left and the wrong decisions of the test readings that the "
              "extractor still makes (seen there, measured on valid; precision and recall read on test after "
              "them, negation not: see \"Read by hand in issue 36's twenty-fifth pass\" below).", "",
              rules_table(TWENTY_SEVENTH_ROUND), "",
              "## Rules added in issue 36's twenty-sixth pass and their gain on valid", "",
              "Measured on valid, against its F1 and the 8,664 (image, concept) pairs the valid readings judged; the "
              "first row's case was seen in a test reading. Most raise the F1 of dictionary (b), names alone, "
              "towards (c); (c) changes on 1 valid image. No test reading was drawn after them: see \"What eight "
              "test readings say of negation\" below.", "",
              rules_table(TWENTY_EIGHTH_ROUND), "",
              THIRD_PASS_HEADING, "",
              THIRD_PASS_TEXT, "",
              rules_table(THIRD_PASS_ROUND), "",
              MORPHOLOGY_HEADING, "",
              MORPHOLOGY_TEXT, "",
              rules_table(THIRD_PASS_MORPHOLOGY), "",
              READING_69_HEADING, "",
              READING_69_TEXT, "",
              *readings_lines(THIRD_PASS_TEST_READING, ("before (1bb881e)", "after (e98b60a)"), ()),
              CLASSES_69_HEADING, "",
              CLASSES_69_TEXT, "",
              rules_table(THIRD_PASS_CLASSES), "",
              "## Read by hand (issue 36)", "",
              "Test captions, dictionary (c). The error classes count the captions where the situation occurs "
              "(a lobe of another organ, a fracture not said pathological, ...) and those where the extractor made "
              "the error; before = the extractor before issue 36's second pass.", "",
              markdown_table(pd.DataFrame(HAND_READING, columns=["what", "sample", "before", "after", "target"])),
              "",
              "## Read by hand in issue 36's third pass", "",
              "Test captions, dictionary (c), a fresh random sample and a fresh reader at each reading, so the before "
              "and after columns of one row are not one sample unless said (the negation reading judged the second "
              "pass's decision too where it differed: 91.1 % on the mid-pass sample, 92.7 % on the final one). The "
              "readers differ as much as the extractor does between readings: two readers of the same extractor "
              "found a lobe of another organ in 99 and in 160 test captions, and three valid precision readings of "
              "one extractor gave 95 %, 92 % and 96 %.", "",
              *readings_lines(THIRD_PASS_READING, ("before the pass", "after \"(test scored)\"", "at the end"),
                              THIRD_PASS_VALID_READING),
              "## Read by hand in issue 36's fourth pass", "",
              "Test captions, dictionary (c), scored and read twice: after the row marked \"(test scored and read)\" "
              "(F1 (c) 0.7241, (b) 0.7012) and after the last row (the table at the top), each time a fresh sample "
              "and a fresh reader; the rows after the first reading were developed on valid only, but the first "
              "reading had been seen. The third pass's figures are another sample and another reader.", "",
              *readings_lines(FOURTH_PASS_READING, ("third pass, end", "first reading", "fourth pass, end"),
                              FOURTH_PASS_VALID_READING),
              "## Read by hand in issue 36's fifth pass", "",
              "Test captions, dictionary (c), scored and read once, after the last row of the fifth pass, a fresh "
              "sample and fresh readers; the fourth pass's figures are another sample and other readers. The readers "
              "differ as much as the extractor does between readings: two valid recall readings of nearly the same "
              "extractor gave 74.2 % and 86.2 % without convention misses.", "",
              *readings_lines(FIFTH_PASS_READING, ("fourth pass, end", "fifth pass, end"), FIFTH_PASS_VALID_READING),
              "## Read by hand in issue 36's sixth pass", "",
              "Test captions, dictionary (c), scored and read once, after the last row of the sixth pass, a fresh "
              "sample and fresh readers; the fifth pass's figures are another sample and other readers. Each target "
              "is missed on this reading; precision's 98 % lies above the 95 % interval of 191 of 200.", "",
              *readings_lines(SIXTH_PASS_READING, ("fifth pass, end", "sixth pass, end"), SIXTH_PASS_VALID_READING),
              "## Read by hand in issue 36's seventh pass", "",
              "Test captions, dictionary (c), scored and read once, after the last row of the seventh pass, a fresh "
              "sample and fresh readers; the sixth pass's figures are another sample and other readers. Each target "
              "is missed on this reading; precision's 98 % lies inside the 95 % interval of 193 of 200. The class "
              "listing of this pass is the sixth pass's, entry for entry, so its counts carry over.", "",
              *readings_lines(SEVENTH_PASS_READING, ("sixth pass, end", "seventh pass, end"),
                              SEVENTH_PASS_VALID_READING),
              "## Read by hand in issue 36's eighth pass", "",
              "Test captions, dictionary (c), scored and read once, after the last row of the eighth pass, a fresh "
              "sample and fresh readers; the seventh pass's figures are another sample and other readers. The class "
              "listing of this pass differs from the seventh pass's only where a liver lobe is now named (\"right "
              "hepatic lobe\"), none a lung lobe, so its counts carry over.", "",
              *readings_lines(EIGHTH_PASS_READING, ("seventh pass, end", "eighth pass, end"),
                              EIGHTH_PASS_VALID_READING),
              "## Read by hand in issue 36's ninth pass", "",
              "Test captions, dictionary (c), scored and read once, after the last row of the ninth pass, a fresh "
              "sample and fresh readers; the eighth pass's figures are another sample and other readers, but 35 of "
              "this pass's 200 negation captions were in the eighth pass's sample too (both drawn from the 1,170 "
              "test captions with a cue), which that reading had shown the first row's rules on. Recall "
              "meets its target on this reading, precision and negation do not; the readers differ about as much "
              "as the extractor changes between passes (the test precision readings of the last three passes: "
              "96.5 %, 96.5 %, 95.5 %).", "",
              *readings_lines(NINTH_PASS_READING, ("eighth pass, end", "ninth pass, end"), NINTH_PASS_VALID_READING),
              "## Read by hand in issue 36's tenth pass", "",
              "Test captions, dictionary (c), read once, after the fifth row of the tenth pass, a fresh sample and "
              "fresh readers; the negation sample is 200 of the 312 test captions with a cue that no earlier pass "
              "had read, so it is held out from every rule built from a test reading. Precision and recall meet "
              "their targets on this reading, precision at its edge (its 95 % interval reaches down to 95.0 %, and "
              "the last four passes' test precision readings were 96.5 %, 96.5 %, 95.5 %, 98.0 %); negation does "
              "not, nor the X-ray class of four captions.", "",
              *readings_lines(TENTH_PASS_READING, ("ninth pass, end", "tenth pass, end"), TENTH_PASS_VALID_READING),
              "## Read by hand in issue 36's eleventh pass", "",
              "Test captions, dictionary (c), scored and read once, after the last row of the eleventh pass, fresh "
              "readers; the negation sample is the 106 test captions with a cue that no earlier pass had read and "
              "94 drawn from those read before (whose readings earlier rules were built on), reported apart. "
              "Negation rises on both parts and meets its target only on the held-out part without pasted texts; "
              "precision falls just short of its target on this reading (the last five passes' readings: 96.5 %, "
              "96.5 %, 95.5 %, 98.0 %, 97.5 %); recall of what the words name meets its target at its edge, another "
              "reader counting more judgment calls and conventions apart. The pasted-text rule was right on valid's "
              "six such captions by reading, but on test it also removed a full case report's own findings (16 "
              "decisions in one caption, written without an arrow); keeping the sentences that name the first "
              "sentence's modality, the repair that reading suggests, restored 2 right and 5 wrong sentences of "
              "valid's pasted texts, so it was not built.", "",
              *readings_lines(ELEVENTH_PASS_READING, ("tenth pass, end", "eleventh pass, end"),
                              ELEVENTH_PASS_VALID_READING),
              "## Read by hand in issue 36's twelfth pass", "",
              "Test captions, dictionary (c), scored and read once, after the last row of the twelfth pass (the same "
              "session as the eleventh), fresh readers and fresh samples; no test caption with a cue was left that "
              "no reading had used, so the negation sample is 200 that the eleventh pass's sample did not hold, "
              "each read by an earlier pass. The samples were drawn while the upper/lower variant tried in this "
              "pass was in: the negation sample's statuses are the final extractor's, mention for mention; every "
              "one of the 200 precision tags is the final extractor's too; one recall item changed with the "
              "revert and is counted a miss (\"right inferior lobe\", now only a lobe of the lung). Negation and "
              "precision miss their targets on this reading, recall meets its own.", "",
              *readings_lines(TWELFTH_PASS_READING, ("eleventh pass, end", "twelfth pass, end"),
                              TWELFTH_PASS_VALID_READING),
              "## Read by hand in issue 36's thirteenth pass", "",
              "Test captions, dictionary (c), scored and read once, after the last row of the thirteenth pass, "
              "fresh readers and fresh samples; the negation sample is 200 test captions with a cue that neither "
              "the eleventh nor the twelfth pass's sample held (so none of the captions the first row's classes "
              "were seen in), each read by an earlier pass. Recall and every error class meet their targets on "
              "this reading, the X-ray class for the first time; precision and negation do not, and read lower "
              "than the twelfth pass's (96.5 % and 96.3 %): this precision reader counted five close calls wrong, "
              "and this negation reader judged fewer kept mentions (539 against 706), the easy ones of which raise "
              "the rate. The two valid readings of each made in this pass differ as much (precision 94.5 % and "
              "98.0 %, negation 96.6 % and 95.9 %).", "",
              *readings_lines(THIRTEENTH_PASS_READING, ("twelfth pass, end", "thirteenth pass, end"),
                              THIRTEENTH_PASS_VALID_READING),
              "## Read by hand in issue 36's fourteenth pass", "",
              "Test captions, dictionary (c), scored and read after the last row of the fourteenth pass, fresh "
              "readers and fresh samples; the negation samples are test captions with a cue that none of the last "
              "three passes' samples held. The first reading met every target, precision and negation at their "
              "edge; since readers of one extractor have differed by two to four points, a second reading of the "
              "same extractor on disjoint samples was decided on before the first one's figures were weighed, with "
              "the rule written down first: the issue is resolved only if the two readings pooled meet the targets. "
              "Pooled, precision meets its target (98.0 %, 392 of 400) and negation does not (95.5 %, 1,419 of "
              "1,486: the second reader found 94.0 %, history kept 17 times). Recall and every error class meet "
              "theirs (the class listing is the thirteenth pass's, entry for entry).", "",
              *readings_lines(FOURTEENTH_PASS_READING, ("thirteenth pass, end", "fourteenth pass, first reading",
                                                        "fourteenth pass, second reading"),
                              FOURTEENTH_PASS_VALID_READING),
              "## Read by hand in issue 36's fifteenth pass", "",
              "Test captions, dictionary (c), scored and read after the last row of the fifteenth pass by two fresh "
              "precision readers and two fresh negation readers on disjoint samples (none of the fourteenth pass's "
              "tags, none of the last three passes' negation captions) and one recall reader, the rule written "
              "down before the samples were drawn: the issue is resolved only if the two readings pooled meet the "
              "targets. They do not: precision 96.75 % (387 of 400) and negation 94.5 % (1,361 of 1,440) pooled; "
              "recall and every error class meet theirs. This pass's readings are lower than the fourteenth's by "
              "about as much as two readers of one extractor differ (the fourteenth pass's two negation readers "
              "found 97.1 % and 94.0 %), so they show no gain and no loss the readers could tell apart from their "
              "own spread; one of this pass's rows shows a fault in them (a backward hypothetical scope that took "
              "the lungs before \"tuberculosis could not be excluded\").", "",
              *readings_lines(FIFTEENTH_PASS_READING, ("fourteenth pass, pooled", "fifteenth pass, first readers",
                                                       "fifteenth pass, second readers"),
                              FIFTEENTH_PASS_VALID_READING),
              "## Read by hand in issue 36's sixteenth pass", "",
              "The instrument changed, and was tried on valid before test was read. In fifteen passes two readers of "
              "one extractor on disjoint samples differed by two to four points (this pass's first two valid "
              "negation readers: 97.2 % and 93.5 %), as much as the gap the targets judge, and they counted "
              "different units: some each mention, some each concept. The issue measures negation as "
              "concept-level accuracy, so each item is now a concept of a caption that a mention not kept, or a "
              "mention in a sentence with a context cue (a fixed list of cue words), names, and what is judged is "
              "whether the concept is in the image's set. Two readers judge the same items, and a third decides "
              "the items they disagree on; precision is read the same way. The brief gained one paragraph: "
              "ConText's line between uncertainty (a hedged reading of this image: \"consistent with\", "
              "\"concerning for\", \"may represent\"), which is no negation, and a hypothetical (a conditional, "
              "a recommendation, a possibility to be excluded, a differential list). On valid, two readers of the "
              "same items then found 97.3 % and 97.6 % (negation) and 99.0 % and 99.0 % (precision). The rule was "
              "written down before the test samples were drawn: the issue is resolved only if the adjudicated "
              "figures meet the targets. Precision (99.0 %) and recall (88.8 %; 86.3 % with \"axial\" a stated "
              "Transverse) meet theirs, every error class stays under 5 %, and negation misses: 96.6 % (506 of "
              "524), three items short of 97 %.", "",
              *readings_lines(SIXTEENTH_PASS_READING, ("fifteenth pass", "sixteenth pass, reader 1",
                                                       "sixteenth pass, reader 2", "sixteenth pass, adjudicated"),
                              SIXTEENTH_PASS_VALID_READING),
              "## Read by hand in issue 36's seventeenth pass", "",
              "The sixteenth pass's instrument, unchanged, on a new sample: the rule was written down before the test "
              "samples were drawn. Every test caption with a cue had been read by an earlier pass; the sixteenth "
              "pass's 200 were left out, as this pass's first row changed three of their errors' wordings. On "
              "valid, the same extractor read 96.9 % and 96.0 % (two readers, the same 580 items). On test the "
              "adjudicated figures miss two targets: negation 94.2 % (570 of 605) and precision 96.0 % (192 of "
              "200), where the sixteenth pass's samples found 96.6 % and 99.0 %: samples of 200 captions differ "
              "by as much as the gap the targets judge. Recall (89.0 %; 85.1 % with \"axial\" a stated "
              "Transverse) meets its target and every error class stays under 5 %. The largest classes are the "
              "ones every pass has named: a concept of the patient's history, of another examination or "
              "procedure, or of a finding that is gone, kept from a sentence that is not about this image.", "",
              *readings_lines(SEVENTEENTH_PASS_READING, ("sixteenth pass", "seventeenth pass, reader 1",
                                                         "seventeenth pass, reader 2", "seventeenth pass, adjudicated"),
                              SEVENTEENTH_PASS_VALID_READING),
              "## Read by hand in issue 36's eighteenth pass", "",
              "The same instrument on a new sample, the rule written down before the test samples were drawn; the "
              "sixteenth and seventeenth passes' 200 captions were left out, as rules of both passes came from "
              "their errors' wordings. On valid, the same extractor read 96.2 % and 95.8 % (two readers, the same "
              "578 items; 97.6 % and 97.5 % without pasted or teaching texts). On test the adjudicated figures "
              "miss the same two targets: negation 95.3 % (564 of 592) and precision 96.5 % (193 of 200). Recall "
              "(92.6 %; 90.1 % with \"axial\" a stated Transverse) meets its target and every error class stays "
              "under 5 %. Negation's wrong decisions split evenly between kept (history 5, a denial missed 6) and "
              "removed (a scope over what is stated 6); three come from this pass's own rules, and all three were "
              "mended after the reading (the rows say so): the readers of the frozen extractor judged them.", "",
              *readings_lines(EIGHTEENTH_PASS_READING, ("seventeenth pass", "eighteenth pass, reader 1",
                                                        "eighteenth pass, reader 2", "eighteenth pass, adjudicated"),
                              EIGHTEENTH_PASS_VALID_READING),
              "## Read by hand in issue 36's nineteenth pass", "",
              "The instrument of the sixteenth pass (concept-level items, two readers on the same items, a third on "
              "the items they dispute) with its brief rewritten: the brief and the sampling scripts of earlier passes "
              "were lost with their machine, so brief 11 restates the earlier brief from this document and decides "
              "what the eighteenth pass left open: CT angiography's Angiogram and a plain radiograph's assumed standard "
              "view are judgment calls, right either way (the curators tag Angiogram on 5 of 195 valid CT "
              "angiographies and the assumed AP on 269 of 297 valid mentions), and alternatives a hedge joins by "
              "\"or\" are each a hedged reading. The rule was written down before the test samples were drawn: "
              "resolved only if the adjudicated figures meet every target. Precision (99.5 %, 199 of 200), recall "
              "(85.5 %) and every error class meet theirs; negation misses again: 96.1 % (537 of 559), 6 items "
              "short of 97 %. On valid the same brief's readers found 96.0 % to 98.0 % (seven readings). The wrong "
              "decisions are the classes of every pass: a finding gone in a wording no cue lists (\"was remitted\", "
              "\"complete canalization of\"), history, single word senses, and a scope over an arrow's label.", "",
              *readings_lines(NINETEENTH_PASS_READING, ("eighteenth pass", "nineteenth pass, reader 1",
                                                        "nineteenth pass, reader 2", "nineteenth pass, adjudicated"),
                              NINETEENTH_PASS_VALID_READING),
              "## Read by hand in issue 36's twentieth pass", "",
              "The nineteenth pass's instrument and brief, unchanged, on new samples: the rule was written down "
              "before the samples were drawn (resolved only if the adjudicated figures meet every target), the "
              "extractor frozen with this pass's first rule (the device-part sense). Recall (85.0 %) and every error "
              "class meet their targets; negation (95.6 %, 545 of 570) misses again, and precision (92.5 %, 185 of "
              "200) misses where the nineteenth pass's readers found 99.5 %: other readers of the same brief, on "
              "another sample, counted words of a device's name and an organ's adjective before a valve's part as "
              "wrong senses that earlier readers let pass. Two fresh valid negation readings of this pass found "
              "97.8 % and 95.6 %. The wrong decisions are the long tail every pass has named: the patient's history, "
              "single word senses, a denial in a wording no cue lists.", "",
              *readings_lines(TWENTIETH_PASS_READING, ("nineteenth pass", "twentieth pass, reader 1",
                                                       "twentieth pass, reader 2", "twentieth pass, adjudicated"),
                              TWENTIETH_PASS_VALID_READING),
              "## Read by hand in issue 36's twenty-first pass", "",
              "The same instrument and brief on new samples, read only after two valid readings of the pass met the "
              "targets (negation 97.1 %, precision 98.5 % twice); the rule was written down before the samples were "
              "drawn (resolved only if the adjudicated figures meet every target), the extractor frozen after both "
              "of the pass's rows. Recall (85.1 %) and every error class meet their targets; precision (97.5 %, 195 "
              "of 200) and negation (96.8 %, 490 of 506) miss by one tag and by one item, each target inside its "
              "95 % interval. The wrong decisions are the long tail every pass has named: single word senses, the "
              "patient's history, a denial in a wording no rule reads.", "",
              *readings_lines(TWENTY_FIRST_PASS_READING, ("twentieth pass", "twenty-first pass, reader 1",
                                                          "twenty-first pass, reader 2",
                                                          "twenty-first pass, adjudicated"),
                              TWENTY_FIRST_PASS_VALID_READING),
              "## Read by hand in issue 36's twenty-second pass", "",
              "The same instrument and brief on new samples, the rule written down before the samples were drawn, "
              "the extractor frozen after the pass's first rows (the valid readings v51 and p48). Every error class "
              "meets its target; precision (97.5 %, 195 of 200), negation (96.2 %, 525 of 546) and recall (84.3 %, "
              "269 of 319) miss. The recall reader's misses led to the pass's later rows (\"abdominal\", "
              "\"infiltrates\", \"calcified\", \"splenic\"), which were not read on this sample.", "",
              *readings_lines(TWENTY_SECOND_PASS_READING, ("twenty-first pass", "twenty-second pass, reader 1",
                                                           "twenty-second pass, reader 2",
                                                           "twenty-second pass, adjudicated"),
                              TWENTY_SECOND_PASS_VALID_READING),
              "The pass's second test reading, on new samples, after the rows the first reading's recall misses and "
              "earlier ones led to (the extractor frozen at the fourth row): recall (86.6 %) and every error class "
              "meet their targets (the class listing is the first reading's, entry for entry, in its tags of each "
              "class); precision (96.5 %) and negation (95.8 %) miss, and so do the two readings pooled (97.0 % and "
              "96.0 %). The wrong decisions are the long tail again; those of a wording the rows could read are "
              "the pass's last two rows, not read on test.", "",
              *readings_lines(TWENTY_SECOND_PASS_SECOND_READING, ("twenty-second pass, first reading",
                                                                  "second reading, reader 1",
                                                                  "second reading, reader 2",
                                                                  "second reading, adjudicated"),
                              TWENTY_SECOND_PASS_LATER_VALID_READING),
              "## Read by hand in issue 36's twenty-third pass", "",
              "The same instrument and brief on new samples, the rule written before they were drawn "
              "(`resolved only if this reading and the three readings of the twenty-second and twenty-third passes "
              "pooled meet every target`), the extractor frozen after the pass's rows and its review's fixes. "
              "Precision (99.0 %), recall (89.4 %) and every error class meet their targets on this reading; "
              "negation (96.4 %) misses, and so do the pooled precision (97.7 %) and negation (96.1 %). Nothing "
              "read here was developed on in the pass.", "",
              *readings_lines(TWENTY_THIRD_PASS_READING, ("twenty-second pass, second reading", "reader 1",
                                                          "reader 2", "adjudicated"),
                              TWENTY_THIRD_PASS_VALID_READING),
              "## Read by hand in issue 36's twenty-fourth pass", "",
              "Two readings of one frozen extractor (db1f303: the twenty-third pass's with the \"resembling\" "
              "cues, the pass's one rule then), each on fresh samples with the same instrument and brief, pooled with each other "
              "only; the rule, written before the samples were drawn: `resolved only if the two readings pooled "
              "meet every target`. Precision (98.0 %) and recall (85.6 %) meet their targets pooled, each at its "
              "edge; negation (95.6 %) misses, and its interval (94.3-96.7 %) lies below the target. The error "
              "classes are the twenty-third pass's count on the same captions (the extractor's decisions there "
              "are the same but one lobe tag fewer). After the reading, on valid evidence: the \"resembling\" "
              "cues reverted (the readings had found two of their decisions wrong, which the revert restores), a "
              "state's participle read past adjectives, a vertebra's level in radiology's notation (its class seen "
              "in these recall readings' misses, measured on valid); none was read on test.", "",
              *readings_lines(TWENTY_FOURTH_PASS_READING, ("twenty-third pass", "reading A", "reading B",
                                                           "A and B pooled"), ()),
              "## Read by hand in issue 36's twenty-fifth pass", "",
              "Precision and recall of the extractor that ships (code of 19e0eca: the twenty-fourth pass's rules "
              "after its reading, vertebral levels among them, and this pass's), two readings each on fresh "
              "samples, the same instrument and brief, pooled with each other only; the rule was written before "
              "the samples were drawn. Negation was not read: only 599 test captions with a negation item lie "
              "outside the earlier samples, and two readings would take 400 of them to re-measure negation this "
              "pass did not change (the sample drawn for it, 200 captions, was set aside unread, and stays out of "
              "later samples). So the issue cannot be resolved by this reading: its negation figure stays the "
              "twenty-fourth pass's (95.6 %, below).", "",
              *readings_lines(TWENTY_FIFTH_PASS_READING, ("twenty-fourth pass, pooled", "reading A", "reading B",
                                                          "A and B pooled"), ()),
              "## What eight test readings say of negation (issue 36's twenty-fifth pass)", "",
              *EIGHT_READINGS_LINES,
              "What is left, by the eighteenth pass's readings: on test and valid alike about 4 to 5 of every 100 "
              "context decisions are wrong, and no class holds more than a fifth of them: a concept of the history "
              "or an earlier procedure kept, a denial the cue lists miss (\"no dilated fluid\", \"impossible to "
              "raise the stent\"), a scope that takes a stated finding (\"tuberculosis could not be excluded\" "
              "after a list of what the CT shows), a pasted case report's own sentences. Precision's wrong tags "
              "are single word and abbreviation senses and concepts of the history.", "",
              "What is left, by the fourteenth pass's readings: negation's largest class is still a concept kept "
              "from a sentence about the patient, not this image (history 5 and 17 of the two test readings' "
              "wrong decisions, 5 and 8 on valid: \"after COVID-19 vaccination\", \"in a patient with "
              "metastatic pancreatic cancer\"); then hedges the reader counts as not stated (\"thickening versus "
              "effusion\", \"cannot be excluded\"), a denial not spread over its list (\"absent calcaneus and "
              "talus ossification centers\"), and removal or resolution wordings written after the thing (\"is "
              "no longer present\", \"had disappeared\"). Precision's wrong tags are single word senses "
              "(\"superficial femoral pseudoaneurysm\", \"posterior nasal spine\", a jaw's \"buccal bone "
              "plate\").", "",
              "What is left, by the thirteenth pass's readings: a concept kept from a sentence about the patient, "
              "not this image, is still the largest class on both splits (history 10 of 39 test errors, 10 of 26 "
              "on valid: \"a girl with COVID-19 pneumonia\" on a normal radiograph, \"complete heart block after "
              "pacemaker placement\"); every rule tried for it on valid (\"patient with\", a symptom's site, a "
              "longer history scope) removed as much that the image shows. Imaged anatomy removed where a finding "
              "at it is removed (\"stones in the right upper ureter and renal pelvis had disappeared\"); modal "
              "and recommendation cues that name this image (\"The X-ray was advised when the patient "
              "desaturated\", \"necrosis ... is suggested\"); word senses seen once (a prosthetic condyle, "
              "\"drains into\").", "",
              "What is left, by the tenth pass's readings: a concept kept from a sentence not about this image is "
              "still the largest class on both splits (history and presentation, another examination, generic "
              "statements; on valid a sentence-level rule or a symptom's site as history removed what the image "
              "shows: 5 of 6 sites are the imaged region); imaged anatomy removed where a finding at it is "
              "denied or removed in a phrase the rules read as the anatomy's (\"stones in the right upper ureter "
              "and renal pelvis had disappeared\"); word senses seen once (a plug's lobes, a radius's lip, "
              "\"drain\" as a verb).", "",
              "What is left, by the ninth pass's readings: the largest class on both splits is a concept kept from a "
              "sentence that is not about this image: the patient's history or presentation (\"a 30-year-old "
              "COVID-19 patient presenting with abdominal pain\", vaccination), another examination or a later step "
              "(\"MRI was performed for further evaluation\", \"(not shown)\" after an examination: measured on "
              "valid and left out, as \"this image and the AP view (not shown) showed a normal lumbar spine\" is "
              "also this image), generic statements without a citation (\"X are rare\") and modal ones (\"in "
              "order to\", \"to ensure\": measured on valid and left out, they removed the retina, screws and "
              "nerves the image shows); a removal written as a compound (\"after tumor enucleation\"); word "
              "senses seen once each (a femur's \"neck-shaft angle\", a device's waist, a coronary branch "
              "abbreviated \"PLV: posterior left ventricular\").", "",
              "What is left, by the eighth pass's readings: the history cues, right on valid by its readers, removed "
              "on test what the image shows where a history phrase names the imaged region (\"a history of DDH "
              "(developmental dysplasia of the hips)\" on a long-leg radiograph) or a condition the figure "
              "sentence shows (\"radiograph of a dog suffering from a pneumothorax\"): a history scope should "
              "spare the imaging vocabulary, as a negation's does, which changes nothing on valid (seen on test, "
              "so not built); negation still removes the owner of a denied state (\"no liver capsular "
              "enhancement\", 7 of 26 wrong removals on test) and runs past a list item (5); the patient's "
              "narrative without a history cue (\"a 58-year-old patient with primary biliary cirrhosis\", scores, "
              "vaccination: 10 wrongly kept on test; a cue \"man with\" was measured on valid and left out, as "
              "99 of its 158 removals are tagged by ROCOv2's curation and many are shown); recall misses "
              "inflections ROCOv2's curation does not tag (\"calcified\", \"dilated\", \"infiltrates\") and "
              "vertebral levels written bare (\"L4\": the curation tags a level only where the caption writes "
              "\"L4 level\", 1 of 28 valid captions).", "",
              "What is left, by the seventh pass's readings: concepts of the case history (the largest class of "
              "negation on both splits, 13 of 28 valid errors: a history-clause cue was measured on valid and left "
              "out, as half of the concepts it would drop are what the image shows: the breast mass \"presented "
              "with\", the thyroid nodule of the case history); hypotheses and differentials (\"versus\", \"would "
              "suggest\": ROCOv2's curation tags both alternatives, 7 of 9 valid); negation that denies imaged "
              "anatomy after a relation noun (\"no right ventricle recovery\", \"does not infiltrate the "
              "serosa\": 5 of 9 wrong removals on test); a removal written as a compound (\"after pacemaker "
              "removal\"); recall misses of words ROCOv2's curation does not tag (\"narrowing\" as Stenosis, "
              "\"vessel\", \"calcified\", \"infiltrates\": each lowers valid F1 by its tags) and vertebra levels "
              "(\"L4\", \"C6\").", "",
              "What is left, by the sixth pass's readings: concepts of the case history, of another examination or "
              "procedure and of the literature (the largest class in precision and negation on both splits: a "
              "\"history of\" cue was tried on valid and left out, as chronic conditions of the history are often "
              "what the image shows: cirrhosis, a thyroid nodule); negation that denies imaged anatomy partly absent "
              "or at a denied finding (9 of 16 wrong removals on test); differentials (\"X versus Y\"); synonyms and "
              "split phrases (\"dorsal spine\", \"hepatic hilum\", \"thrombosis of the portal vein\"); an "
              "abbreviation whose long form's last word names a general concept (\"LM: left main trunk\" read as the "
              "body's trunk).", "",
              "What is left, by the fifth pass's readings: negation still denies anatomy where a finding, function or "
              "procedure at it is denied and no word of the phrase tells them apart (7 of the 22 test errors: \"no "
              "abnormality about bronchus and esophagus\", \"embolization was not performed\"), misses other-exam "
              "and absence wordings (\"CT scan (not depicted)\", \"not displayed\": 7), and ends a list too early or "
              "a clause too late (6); precision errors are concepts of the case history (4 of 8: a comorbidity, "
              "the presenting bleeding), a catheter's route (\"via the femoral vein\") and words of a compound "
              "(\"caudal epidural block\", \"soft tissue mass\" of a colonic tumour); recall misses synonyms (17 of "
              "54: \"free air\", \"upper mediastinum\", \"intussusception\"), inflected forms ROCOv2's curation does "
              "not tag (\"infiltrates\", \"dilated\", \"calcified\": left out, each lowers valid F1) and split phrases "
              "(\"parietooccipital\"; \"body and tail of the pancreas\", read since, after the reading).", "",
              "What is left, by the fourth pass's final readings: negation still denies anatomy or a device where a "
              "finding at it is denied without a finding noun the rules know (8 of the 20 test errors: \"resolution of "
              "hypermetabolic lymph nodes\"), runs past a clause boundary into a present finding (5: a comma, \", "
              "and\", \"following\"), and misses cues written after their concept (\"(not displayed)\") or of removal "
              "(\"has been removed\"); precision errors are word senses and words of a compound (\"right atria\" of a "
              "lateral ventricle, \"pelvic stone\" in the renal pelvis, \"superior mesenteric artery\" as Mesentery: 6 "
              "of 9) and concepts of the history; X-ray tags on a CT come from X-ray words that name no radiograph "
              "(\"X-ray beams\" of radiotherapy); recall misses synonyms the open ontologies and the built-in list lack"
              " (\"tracheal bifurcation\", \"orbit floor\": 28 of 67), plural and variant forms (14: \"enlargement\", "
              "\"phalanges\") and vertebral levels (9), and the conventions ROCOv2's curation adds from the image "
              "(plane words, Contrast used).", "",
              "What was left after the third pass, by its readings: negation denies a structure where a finding at it "
              "is denied without a finding noun the rules know (\"no abnormal axillary lymph nodes\", \"no cardiac "
              "activity\"), misses an adjective that describes the denied finding (\"without signs of ischemic "
              "lesions\"), and runs on past a comma into a present finding (\"no pulmonary embolism, pleural effusions "
              "with ...\"); precision errors are word senses (\"hand injection\", \"spine of the scapula\"), display "
              "settings (\"soft tissue window\"), hedged differentials and concepts of the case history; recall misses "
              "are synonyms the open ontologies lack (\"great vessels\", \"Double-J stent\", \"collaterals\"), organ "
              "adjectives that lower agreement with ROCOv2 (pleural, ureteral, abdominal) and vertebral levels "
              "(\"T12\", \"L4\").", ""]
    if DEVELOPMENT in data:
        captions, truth, _ = data[DEVELOPMENT]
        predicted = extracted[DEVELOPMENT, CONFIGS[2]]
        lines += [f"## The 20 most missed concepts ({DEVELOPMENT}, dictionary {CONFIGS[2]})", "",
                  "Each with the first image where it was missed and that image's caption.", "",
                  markdown_table(error_table(truth, predicted, captions, names, missed=True)), "",
                  f"## The 20 most spurious concepts ({DEVELOPMENT}, dictionary {CONFIGS[2]})", "",
                  markdown_table(error_table(truth, predicted, captions, names, missed=False)), ""]
    lines += ["## Negation handling", "",
              "The same dictionaries with every mention kept (negated ones too) against the extractor, which drops "
              "mentions in a negated scope. `of them in ROCOv2's set`: the dropped concepts that ROCOv2's own concept "
              "set of the image lists, i.e. ROCOv2's caption-derived concepts keep negated findings. Against ROCOv2 "
              "negation handling therefore costs a little F1; it is kept because a concept set should say what an "
              "image shows (\"no pneumothorax\" is not a pneumothorax), and the explanations use the same rule.", "",
              markdown_table(pd.DataFrame(negation_rows), digits=4), ""]
    if not args.no_table1 and "test" in data:
        log("Table 1 from ROCOv2's concepts")
        captions, truth, _ = data["test"]
        kg = load_kg([args.kg])
        gold_rows = table1_rows(truth, captions, kg, args.labels, "ROCOv2")
        log("Table 1 from extracted concepts")
        extracted_sets = ConceptSets(truth.ids, tuple(extracted["test", CONFIGS[2]][i] for i in truth.ids),
                                     "extracted concepts")
        extracted_rows = table1_rows(extracted_sets, captions, kg, args.labels, "extracted (c)")
        both = pd.concat([gold_rows, extracted_rows], ignore_index=True)
        lines += ["## Table 1 and nn-CUI@K from extracted concepts (test)", "",
                  "The three Table-1 baselines (retrieval by IoU, by nn-IoU with n = 1, alpha = 0.5 over the open KG, "
                  "and by caption TF-IDF) with every ranking, label (the CUI-to-class mapping "
                  f"`{args.labels.name}`) and relevance computed from ROCOv2's concept sets, then all of it again from "
                  f"the concepts extracted with dictionary {CONFIGS[2]}: what a user who has only captions would "
                  "see. Values in %; P@K over the queries with the label (`queries ...`: how many; with extracted concepts "
                  "an image whose caption states no modality has no modality label); nn-CUI@K is NDCG@K with nn-IoU "
                  "relevance. The ROCOv2 rows are Table 1 of `docs/REPRODUCTION.md`.", "",
                  markdown_table(both), ""]
        shift = (extracted_rows.set_index("system").drop(columns="concepts")
                 - gold_rows.set_index("system").drop(columns="concepts")).drop(
            columns=[c for c in gold_rows.columns if c.startswith("queries")])
        lines += ["Change (extracted - ROCOv2), in points:", "", markdown_table(shift.reset_index()), ""]
    args.out.write_text("\n".join(lines))
    log(f"wrote {args.out}")


if __name__ == "__main__":
    run(sys.argv[1:])
