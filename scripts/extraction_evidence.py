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




def _wilson(right: int, items: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of ``right`` of ``items``."""
    share, z = right / items, norm.ppf(0.975)
    centre = (share + z * z / (2 * items)) / (1 + z * z / items)
    half = z * (share * (1 - share) / items + z * z / (4 * items * items)) ** 0.5 / (1 + z * z / items)
    return centre - half, centre + half


def _eight_readings_lines() -> list[str]:
    """What the negation readings of test say together: a table, the pooled figure with its Wilson interval, and a
    chi-squared test of whether the readings differ more than their samples do."""
    readings = recorded("EIGHT_NEGATION_READINGS")
    context_classes = recorded("EIGHT_READINGS_CONTEXT_WRONG")
    matching_classes = recorded("EIGHT_READINGS_MATCHING_WRONG")
    items = sum(row[2] for row in readings)
    wrong = sum(row[3] for row in readings)
    right = (items - wrong) / items
    low, high = _wilson(items - wrong, items)
    context_wrong = sum(n for _, n in context_classes)
    if context_wrong + sum(n for _, n in matching_classes) != wrong:
        raise ValueError("the readers' classes must add up to the wrong items")
    context_low, context_high = _wilson(items - context_wrong, items)
    differ = chi2_contingency([[n - bad, bad] for _, _, n, bad in readings])[1]
    table = markdown_table(pd.DataFrame(
        [(reading, sample, f"{n:,}", f"{bad}", f"{100 * (n - bad) / n:.1f} %")
         for reading, sample, n, bad in readings],
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
        + ", ".join(f"{name} {n}" for name, n in context_classes) + "), and "
        f"{wrong - context_wrong} are matching errors that lie in a cue's sentence ("
        + ", ".join(f"{name} {n}" for name, n in matching_classes) + "), which the precision "
        "readings measure. The ConText decisions alone are right in "
        f"{100 * (items - context_wrong) / items:.1f} % ({items - context_wrong:,} of {items:,}; 95 % interval "
        f"{100 * context_low:.1f}-{100 * context_high:.1f} %): the issue's \"negated phrases\" may mean these; "
        "the pre-registered figure counts every item, and stays the negation figure of these documents.", ""]


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


def recorded_document() -> list[str]:
    """The tuning rounds and hand readings as docs/extraction_rounds.json's ``document`` lists them, in order: a
    string is a line of the document; ``{"rules": NAME}`` a round's rules (:func:`rules_table`); ``{"readings": NAME,
    "when": [...], "valid": NAME}`` a pass's hand readings (:func:`readings_lines`, ``valid`` optional); ``{"table":
    NAME, "columns": [...]}`` a table as recorded; ``{"negation_readings": NAME}`` the negation readings pooled
    (:func:`_eight_readings_lines`, the one part computed here)."""
    lines: list[str] = []
    for part in json.loads(RECORDED.read_text(encoding="utf-8"))["document"]:
        if isinstance(part, str):
            lines.append(part)
        elif "rules" in part:
            lines.append(rules_table(recorded(part["rules"])))
        elif "readings" in part:
            valid = recorded(part["valid"]) if "valid" in part else ()
            lines.extend(readings_lines(recorded(part["readings"]), tuple(part["when"]), valid))
        elif "table" in part:
            lines.append(markdown_table(pd.DataFrame(recorded(part["table"]), columns=part["columns"])))
        else:
            lines.extend(_eight_readings_lines())
    return lines


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
    lines += recorded_document()
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
