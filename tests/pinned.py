"""The command line's answers on the demo and on ROCOv2 test, recorded so that a change of structure is seen to
change no answer (tests/cli/test_pinned_outputs.py compares; ``python -m tests.pinned`` records anew).

Each case is one command line. What it writes is reduced to a fingerprint that a test can hold in a few
kilobytes and compare: a JSON output as it is (less its timing and the paths it names); a per-query CSV as the
count, sum, sum of squares and position-weighted sum of each (system, metric)'s values; a TREC run or qrels as a
digest of its ranked IDs (where the order comes from exact rational relevance values) and a fingerprint of its
scores. Numbers are compared within 1e-12 relative (the redesign's promise), so a change of the floating-point order
of a sum on another CPU passes and any change of an answer does not. The cases cover every relevance measure of the
registry (relevance and retrieve on the demo) and every command with an answer; the recordings were made with the
code before the redesign (9421bef).
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "data" / "demo"
ROCOV2 = ROOT.parent / "shared" / "data" / "rocov2"
OPEN_KG = ROOT.parent / "shared" / "data" / "kg" / "open_kg_edges.csv"
LABELS = ROOT / "data" / "labels" / "rocov2_labels.csv"
PINNED = Path(__file__).resolve().parent / "pinned"
RELATIVE_TOLERANCE = 1e-12


# Every relevance measure of the registry, with parameters away from their defaults.
MEASURES_PINNED = {
    "iou": "iou",
    "nn_iou": "nn-iou(alpha=0.3,n=2)",
    "dice": "dice",
    "tversky": "tversky(a=0.7,b=0.3)",
    "nn_tversky": "nn-tversky(a=0.7,b=0.3,alpha=0.5,n=1)",
    "nn_iou_hops": "nn-iou-hops(w1=0.5,w2=0.25)",
    "nn_iou_depth": "nn-iou-depth(alpha=0.5,n=2)",
}


def _demo_runs() -> list[str]:
    return sorted(str(path) for path in (DEMO / "runs").glob("*.trec"))


def _demo_pairs(folder: Path) -> str:
    ids = [row["ID"] for row in csv.DictReader((DEMO / "concepts.csv").open(encoding="utf-8"))][:60]
    path = folder / "pairs.csv"
    path.write_text("a,b\n" + "".join(f"{a},{b}\n" for a, b in zip(ids[::2], ids[1::2])), encoding="utf-8")
    return str(path)


def _demo_predictions(folder: Path) -> str:
    """Predictions made from the demo's concept sets: each fifth image loses its first concept and gains another."""
    rows = list(csv.DictReader((DEMO / "concepts.csv").open(encoding="utf-8")))
    lines = ["ID,CUIs"]
    for number, row in enumerate(rows[:400]):
        cuis = row["CUIs"].split(";")
        if number % 5 == 0:
            cuis = [*cuis[1:], "C0040405"]
        lines.append(f"{row['ID']},{';'.join(dict.fromkeys(cuis))}")
    path = folder / "predictions.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def demo_cases(folder: Path) -> dict[str, list[str]]:
    demo, kg, runs, out = str(DEMO / "concepts.csv"), str(DEMO / "kg_edges.csv"), _demo_runs(), str(folder)
    qrels = f"{out}/demo_qrels.txt"
    return {
        "demo_evaluate": ["evaluate", "--concepts", demo, "--kg", kg, "--run", *runs, "--labels", str(DEMO / "labels.csv"),
                          "--k", "5", "10", "30", "--alpha", "0.5", "--n", "1", "--json", f"{out}/demo_evaluate.json",
                          "--per-query", f"{out}/demo_evaluate.csv"],
        "demo_evaluate_tversky": ["evaluate", "--concepts", demo, "--run", *runs, "--k", "10",
                                  "--measure", "tversky(a=0.7,b=0.3)", "--json", f"{out}/demo_evaluate_tversky.json"],
        "demo_evaluate_directed": ["evaluate", "--concepts", demo, "--kg", kg, "--kg-mode", "directed", "--run", *runs,
                                   "--k", "10", "--alpha", "0.3", "--n", "2", "--gain", "exponential",
                                   "--empty-queries", "zero", "--json", f"{out}/demo_evaluate_directed.json"],
        "demo_compare": ["compare", "--concepts", demo, "--kg", kg, "--run", *runs, "--labels", str(DEMO / "labels.csv"),
                         "--metric", "nn-CUI@10", "CUI@10", "P@10[modality]", "--json", f"{out}/demo_compare.json"],
        "demo_qrels": ["qrels", "--concepts", demo, "--kg", kg, "--run", *runs, "--k", "10", "--alpha", "0.5", "--n", "1",
                       "--out", qrels, "--scales", f"{out}/demo_qrels_scales.csv"],
        "demo_evaluate_qrels": ["evaluate", "--qrels", qrels, "--run", *runs, "--k", "10",
                                "--json", f"{out}/demo_evaluate_qrels.json"],
        "demo_retrieve_iou": ["retrieve", "--concepts", demo, "--by", "iou", "--depth", "30",
                              "--out", f"{out}/demo_retrieve_iou.trec"],
        "demo_retrieve_nn_iou": ["retrieve", "--concepts", demo, "--kg", kg, "--by", "nn-iou", "--depth", "30",
                                 "--out", f"{out}/demo_retrieve_nn_iou.trec"],
        "demo_retrieve_dice": ["retrieve", "--concepts", demo, "--measure", "dice", "--depth", "30",
                               "--out", f"{out}/demo_retrieve_dice.trec"],
        "demo_retrieve_captions": ["retrieve", "--concepts", demo, "--by", "embeddings", "--captions",
                                   str(DEMO / "captions.csv"), "--depth", "30", "--out", f"{out}/demo_retrieve_captions.trec"],
        "demo_relevance": ["relevance", "--concepts", demo, "--kg", kg, "--alpha", "0.5", "--n", "1", "--measure",
                           "dice", "--pairs", _demo_pairs(folder), "--out", f"{out}/demo_relevance.csv"],
        **{f"demo_relevance_{label}": ["relevance", "--concepts", demo, "--kg", kg, "--measure", measure, "--pairs",
                                       _demo_pairs(folder), "--out", f"{out}/demo_relevance_{label}.csv"]
           for label, measure in MEASURES_PINNED.items()},
        **{f"demo_retrieve_{label}": ["retrieve", "--concepts", demo, *(["--kg", kg] if label.startswith("nn_") else []),
                                      "--measure", measure, "--depth", "30", "--out", f"{out}/demo_retrieve_{label}.trec"]
           for label, measure in MEASURES_PINNED.items() if label not in ("iou", "nn_iou", "dice")},
        "demo_detection": ["detection", "--gt", demo, "--pred", _demo_predictions(folder), "--kg", kg,
                           "--json", f"{out}/demo_detection.json"],
    }


def rocov2_cases(folder: Path) -> dict[str, list[str]]:
    concepts, out = str(ROCOV2 / "test_concepts.csv"), str(folder)
    runs = [f"{out}/rocov2_retrieve_iou.trec", f"{out}/rocov2_retrieve_nn_iou.trec", f"{out}/rocov2_retrieve_captions.trec"]
    return {
        "rocov2_retrieve_iou": ["retrieve", "--concepts", concepts, "--by", "iou", "--depth", "100", "--out", runs[0]],
        "rocov2_retrieve_nn_iou": ["retrieve", "--concepts", concepts, "--kg", str(OPEN_KG), "--by", "nn-iou",
                                   "--alpha", "0.5", "--n", "1", "--depth", "100", "--out", runs[1]],
        "rocov2_retrieve_captions": ["retrieve", "--concepts", concepts, "--by", "embeddings", "--captions",
                                     str(ROCOV2 / "test_captions.csv"), "--depth", "100", "--out", runs[2]],
        "rocov2_evaluate": ["evaluate", "--concepts", concepts, "--kg", str(OPEN_KG), "--run", *runs, "--labels",
                            str(LABELS), "--k", "5", "10", "30", "--alpha", "0.5", "--n", "1",
                            "--json", f"{out}/rocov2_evaluate.json", "--per-query", f"{out}/rocov2_evaluate.csv"],
        "rocov2_qrels": ["qrels", "--concepts", concepts, "--kg", str(OPEN_KG), "--run", *runs, "--k", "10", "--alpha",
                         "0.5", "--n", "1", "--out", f"{out}/rocov2_qrels.txt", "--scales", f"{out}/rocov2_qrels_scales.csv"],
        "rocov2_compare": ["compare", "--concepts", concepts, "--kg", str(OPEN_KG), "--run", *runs,
                           "--metric", "nn-CUI@10", "CUI@10", "--json", f"{out}/rocov2_compare.json"],
    }


# --- fingerprints -------------------------------------------------------------------------------

def _json_fingerprint(path: Path) -> dict:
    payload = json.loads(path.read_text(encoding="utf-8"))
    payload.pop("wall_seconds", None)
    payload.pop("backend", None)
    params = payload.get("params", {})
    for key in ("concepts", "labels", "kg_files", "runs", "qrels"):
        if params.get(key) is not None:
            params[key] = [Path(p).name for p in params[key]] if isinstance(params[key], list) else Path(params[key]).name
    return payload


def _per_query_fingerprint(path: Path) -> dict:
    """For each (system, metric) of a ``system,query_id,metric,value`` file: how many values, how many NaN, their
    sum, sum of squares and sum weighted by position (which a change of order moves), and a digest of the query IDs."""
    groups: dict[str, dict] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            group = groups.setdefault(f"{row['system']} | {row['metric']}",
                                      {"values": 0, "nan": 0, "sum": 0.0, "squares": 0.0, "weighted": 0.0,
                                       "queries": hashlib.sha256()})
            value = float(row["value"]) if row["value"] else math.nan
            group["values"] += 1
            group["queries"].update(row["query_id"].encode() + b"\n")
            if math.isnan(value):
                group["nan"] += 1
            else:
                group["sum"] += value
                group["squares"] += value * value
                group["weighted"] += value * group["values"]
    for group in groups.values():
        group["queries"] = group["queries"].hexdigest()
    return groups


def _trec_fingerprint(path: Path, order_is_exact: bool) -> dict:
    """Lines, a digest of the ranked IDs (``qid docid rank``) where relevance fixes the order exactly, and the scores'
    sum and sum of squares."""
    lines, ranked, total, squares = 0, hashlib.sha256(), 0.0, 0.0
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            fields = line.split()
            lines += 1
            ranked.update(" ".join(fields[:1] + fields[2:4]).encode() + b"\n")
            score = float(fields[4]) if len(fields) > 4 else 0.0
            total += score
            squares += score * score
    return {"lines": lines, "ranked": ranked.hexdigest() if order_is_exact else None, "score_sum": total,
            "score_squares": squares}


def _csv_fingerprint(path: Path) -> dict:
    rows = list(csv.reader(path.open(encoding="utf-8", newline="")))
    return {"header": rows[0], "rows": rows[1:]}


def _qrels_fingerprint(path: Path) -> dict:
    return {"lines": path.read_text(encoding="utf-8").count("\n"),
            "digest": hashlib.sha256(path.read_bytes()).hexdigest()}


FINGERPRINTS: dict[str, Callable[[Path], dict]] = {
    "json": _json_fingerprint,
    "per_query": _per_query_fingerprint,
    "trec_exact": lambda path: _trec_fingerprint(path, True),
    "trec_scores": lambda path: _trec_fingerprint(path, False),
    "csv": _csv_fingerprint,
    "qrels": _qrels_fingerprint,
}


def _kind(path: Path) -> str:
    if path.suffix == ".json":
        return "json"
    if path.suffix == ".trec":
        return "trec_scores" if "captions" in path.name else "trec_exact"
    if path.name.endswith(("_qrels.txt", "_qrels_scales.csv")):  # one line per query: a digest, not the rows
        return "qrels"
    if path.suffix == ".csv" and path.name.endswith("_evaluate.csv"):
        return "per_query"
    return "csv"


def run_case(name: str, argv: list[str], folder: Path) -> dict:
    """Run one command line in this process and fingerprint every file it wrote in ``folder``."""
    from evalcore.cli import main

    before = set(folder.iterdir())
    status = main(argv)
    if status != 0:
        raise RuntimeError(f"{name}: exit status {status}")
    written = sorted(path for path in set(folder.iterdir()) - before if path.suffix in (".json", ".csv", ".trec", ".txt"))
    return {path.name: {"kind": _kind(path), "fingerprint": FINGERPRINTS[_kind(path)](path)} for path in written}


def record(folder: Path, which: str) -> None:
    """Run the cases of ``which`` ("demo" or "rocov2") and write their fingerprints to tests/pinned/."""
    cases = demo_cases(folder) if which == "demo" else rocov2_cases(folder)
    outputs = {name: run_case(name, argv, folder) for name, argv in cases.items()}
    PINNED.mkdir(exist_ok=True)
    (PINNED / f"{which}.json").write_text(json.dumps(outputs, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def differences(expected: object, found: object, where: str = "") -> list[str]:
    """Where two fingerprints differ: numbers beyond the relative tolerance, anything else unequal."""
    if isinstance(expected, dict) and isinstance(found, dict):
        if set(expected) != set(found):
            return [f"{where}: keys {sorted(set(expected) ^ set(found))} added or missing"]
        return [d for key in expected for d in differences(expected[key], found[key], f"{where}/{key}")]
    if isinstance(expected, list) and isinstance(found, list):
        if len(expected) != len(found):
            return [f"{where}: {len(expected)} items pinned, {len(found)} found"]
        return [d for i, (e, f) in enumerate(zip(expected, found)) for d in differences(e, f, f"{where}[{i}]")]
    if isinstance(expected, float) and isinstance(found, (int, float)) and not isinstance(found, bool):
        if math.isclose(expected, found, rel_tol=RELATIVE_TOLERANCE, abs_tol=1e-15):
            return []
    elif expected == found and type(expected) is type(found):
        return []
    return [f"{where}: pinned {expected!r}, found {found!r}"]


if __name__ == "__main__":
    import tempfile

    for which in sys.argv[1:] or ["demo", "rocov2"]:
        with tempfile.TemporaryDirectory() as folder:
            record(Path(folder), which)
        print(f"recorded {PINNED / which}.json", file=sys.stderr)
