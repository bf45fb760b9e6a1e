"""Generate the embedded SYNTHETIC demo in data/demo/ (deterministic: same files every run).

About 2,000 images modelled on ROCOv2: a modality, a body region and one or two findings
or structures per image (3-4 real UMLS CUIs), captions written from templates, a small
is_a KG written for the demo, per-image labels, three runs of clearly different quality
and image embeddings for an embedding baseline. Nothing here is real patient data.

Usage: python scripts/make_demo.py [--out data/demo] [--images 2000]
"""

from __future__ import annotations

import argparse
import csv
import io
import random
import zipfile
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

MODALITIES = {  # CUI, name, share, regions it is used for
    "C0040405": ("X-Ray Computed Tomography", 0.34, ["chest", "head", "abdomen", "pelvis", "spine"]),
    "C1306645": ("Plain x-ray", 0.26, ["chest", "pelvis", "spine", "lower limb", "upper limb"]),
    "C0024485": ("Magnetic Resonance Imaging", 0.15, ["head", "spine", "abdomen", "pelvis", "lower limb"]),
    "C0041618": ("Ultrasonography", 0.13, ["abdomen", "pelvis", "breast", "chest"]),
    "C0002978": ("angiogram", 0.08, ["chest", "head", "abdomen"]),
    "C0032743": ("Positron-Emission Tomography", 0.04, ["chest", "abdomen"]),
}
REGIONS = {  # region CUI, name, findings / structures seen there
    "chest": ("C0817096", "Chest", ["C0032227", "C0032326", "C0028259", "C0018787", "C0034052", "C0003483",
                                    "C0225706", "C0225730", "C0004144", "C0032285"]),
    "head": ("C0037303", "Bone structure of cranium", ["C0006104", "C0018944", "C0007776", "C0016733",
                                                       "C0027651", "C0024687"]),
    "abdomen": ("C0000726", "Abdomen", ["C0023884", "C0022646", "C0037993", "C0016976", "C0042458",
                                        "C0032718", "C0006736", "C0003962"]),
    "pelvis": ("C0030797", "Pelvis", ["C0005682", "C0042149", "C0033572", "C0034896"]),
    "spine": ("C0037949", "Vertebral column", ["C0037925", "C0223084", "C0728985"]),
    "lower limb": ("C0023216", "Lower Extremity", ["C0015811", "C0015813", "C0042449"]),
    "upper limb": ("C1140618", "Upper Extremity", ["C0020164", "C0008913"]),
    "breast": ("C0006141", "Breast", ["C0028259", "C0006826"]),
}
NAMES = {
    "C0032227": "Pleural effusion disorder", "C0032326": "Pneumothorax", "C0028259": "Nodule",
    "C0018787": "Heart", "C0034052": "Pulmonary artery structure", "C0003483": "Aorta", "C0225706": "Right lung",
    "C0225730": "Left lung", "C0004144": "Atelectasis", "C0032285": "Pneumonia", "C0006104": "Brain",
    "C0018944": "Hematoma", "C0007776": "Cerebral cortex", "C0016733": "frontal lobe", "C0027651": "Neoplasms",
    "C0024687": "Mandible", "C0023884": "Liver", "C0022646": "Kidney", "C0037993": "Spleen", "C0016976": "Gallbladder",
    "C0042458": "Inferior vena cava structure", "C0032718": "Portal vein structure", "C0006736": "Calculi",
    "C0003962": "Ascites", "C0005682": "Urinary Bladder", "C0042149": "Uterus", "C0033572": "Prostate",
    "C0034896": "Rectum", "C0037925": "Spinal Cord", "C0223084": "Body of vertebra", "C0728985": "Cervical spine",
    "C0015811": "Femur", "C0015813": "Head of femur", "C0042449": "Veins", "C0020164": "Bone structure of humerus",
    "C0008913": "Bone structure of clavicle", "C0006826": "Malignant Neoplasms", "C0005847": "Blood Vessels",
    "C0003842": "Arteries", "C0040395": "Tomography", "C0024109": "Lung", "C0012634": "Disease",
}
# Facts written for the demo (child -> parent): is_a links, except those of PART_OF; DEMO: nodes are intermediate
# terms, not CUIs.
KG_EDGES = [
    ("C0042449", "C0005847"), ("C0003842", "C0005847"), ("C0003483", "C0003842"), ("C0034052", "C0003842"),
    ("C0042458", "C0042449"), ("C0032718", "C0042449"), ("C0040405", "C0040395"), ("C0032743", "C0040395"),
    ("C0024485", "DEMO:magnetic_imaging"), ("DEMO:magnetic_imaging", "C0040395"),
    ("C0225706", "C0024109"), ("C0225730", "C0024109"), ("C0032227", "DEMO:pleural_disorder"),
    ("C0032326", "DEMO:pleural_disorder"), ("DEMO:pleural_disorder", "C0012634"), ("C0004144", "DEMO:lung_disorder"),
    ("C0032285", "DEMO:lung_disorder"), ("DEMO:lung_disorder", "C0012634"), ("C0006826", "C0027651"),
    ("C0027651", "C0012634"), ("C0028259", "DEMO:lesion"), ("C0018944", "DEMO:lesion"), ("C0006736", "DEMO:lesion"),
    ("C0007776", "C0006104"), ("C0016733", "C0007776"), ("C0015813", "C0015811"), ("C0223084", "C0037949"),
    ("C0728985", "C0037949"), ("C0037925", "DEMO:nervous_system"), ("C0006104", "DEMO:nervous_system"),
    ("C0023884", "DEMO:abdominal_viscera"), ("C0037993", "DEMO:abdominal_viscera"),
    ("C0016976", "DEMO:abdominal_viscera"), ("C0022646", "DEMO:abdominal_viscera"),
    ("DEMO:abdominal_viscera", "C0000726"), ("C0005682", "DEMO:pelvic_viscera"), ("C0042149", "DEMO:pelvic_viscera"),
    ("C0033572", "DEMO:pelvic_viscera"), ("C0034896", "DEMO:pelvic_viscera"), ("DEMO:pelvic_viscera", "C0030797"),
    ("C0020164", "DEMO:bone"), ("C0008913", "DEMO:bone"), ("C0015811", "DEMO:bone"), ("C0024687", "DEMO:bone"),
]
# The links above that are part-of relations, not kinds (a cortex is part of the brain, not a kind of brain).
PART_OF = {("C0007776", "C0006104"), ("C0016733", "C0007776"), ("C0015813", "C0015811"), ("C0223084", "C0037949"),
           ("C0728985", "C0037949"), ("DEMO:abdominal_viscera", "C0000726"), ("DEMO:pelvic_viscera", "C0030797")}
DEMO_NAMES = {"DEMO:magnetic_imaging": "Magnetic imaging (demo term)", "DEMO:pleural_disorder": "Pleural disorder",
              "DEMO:lung_disorder": "Lung disorder", "DEMO:lesion": "Lesion (demo term)",
              "DEMO:nervous_system": "Central nervous system structure", "DEMO:abdominal_viscera": "Abdominal viscera",
              "DEMO:pelvic_viscera": "Pelvic viscera", "DEMO:bone": "Bone (demo term)"}
MODALITY_WORDS = {"C0040405": "CT", "C1306645": "X-ray", "C0024485": "MRI", "C0041618": "Ultrasound",
                  "C0002978": "Angiography", "C0032743": "PET"}
TEMPLATES = ["{modality} of the {region} showing {findings}.", "{modality} image ({region}) demonstrates {findings}.",
             "Synthetic case: {modality} of the {region} with {findings} (arrow)."]


def all_names() -> dict[str, str]:
    names = {cui: name for cui, (name, _, _) in MODALITIES.items()}
    names.update({cui: name for cui, name, _ in REGIONS.values()})
    names.update(NAMES)
    return names


def make_images(rng: random.Random, count: int) -> list[tuple[str, str, list[str]]]:
    modality_cuis = list(MODALITIES)
    weights = [MODALITIES[c][1] for c in modality_cuis]
    images = []
    for i in range(1, count + 1):
        modality = rng.choices(modality_cuis, weights)[0]
        region = rng.choice(MODALITIES[modality][2])
        region_cui, _, findings = REGIONS[region]
        chosen = rng.sample(findings, rng.choice([1, 1, 2]))
        cuis = [modality, region_cui, *chosen]
        images.append((f"DEMO_{i:05d}", region, cuis))
    return images


def caption(rng: random.Random, region: str, cuis: list[str], names: dict[str, str]) -> str:
    findings = " and ".join(names[c].lower() for c in cuis[2:])
    return rng.choice(TEMPLATES).format(modality=MODALITY_WORDS[cuis[0]], region=region, findings=findings)


def thumbnail(rng: random.Random, cuis: list[str]) -> bytes:
    """A 64 x 64 grey picture whose texture depends on the modality: a stand-in, not a scan."""
    image = Image.new("L", (64, 64), 10)
    draw = ImageDraw.Draw(image)
    shade = 60 + 30 * list(MODALITY_WORDS).index(cuis[0])
    draw.ellipse((8, 6, 56, 58), fill=shade)
    for _ in range(len(cuis) * 2):
        x, y = rng.randrange(12, 50), rng.randrange(12, 50)
        draw.ellipse((x - 4, y - 4, x + 4, y + 4), fill=min(255, shade + 80))
    draw.text((2, 52), "SYN", fill=255)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def similarity_runs(images, rng: np.random.Generator, depth: int) -> dict[str, list[list[tuple[str, float]]]]:
    """Three systems: noisy nn-IoU-like overlap, a 'visual' one that confuses organs, and near-random."""
    ids = [i for i, _, _ in images]
    vocabulary = sorted({c for _, _, cuis in images for c in cuis})
    index = {c: j for j, c in enumerate(vocabulary)}
    matrix = np.zeros((len(images), len(vocabulary)), dtype=np.float32)
    for row, (_, _, cuis) in enumerate(images):
        matrix[row, [index[c] for c in cuis]] = 1
    sizes = matrix.sum(axis=1)
    intersection = matrix @ matrix.T
    overlap = intersection / (sizes[:, None] + sizes[None, :] - intersection)
    modality = matrix[:, [index[c] for c in MODALITIES if c in index]]
    same_modality = modality @ modality.T
    scores = {
        "overlap-noisy": overlap + rng.normal(0, 0.2, overlap.shape),
        "visual-confused": same_modality + 0.15 * overlap + rng.normal(0, 0.35, overlap.shape),
        "near-random": 0.02 * overlap + rng.random(overlap.shape),
    }
    runs = {}
    for name, score in scores.items():
        np.fill_diagonal(score, -np.inf)
        top = np.argsort(-score, axis=1, kind="stable")[:, :depth]
        runs[name] = [[(ids[j], float(score[q, j])) for j in top[q]] for q in range(len(ids))]
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "data" / "demo"))
    parser.add_argument("--images", type=int, default=2000)
    parser.add_argument("--depth", type=int, default=30)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(20251122)
    names = all_names()
    images = make_images(rng, args.images)
    with open(out / "concepts.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["ID", "CUIs"])
        writer.writerows([image_id, ";".join(cuis)] for image_id, _, cuis in images)
    with open(out / "captions.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["ID", "Caption"])
        writer.writerows([image_id, caption(rng, region, cuis, names)] for image_id, region, cuis in images)
    with open(out / "concept_names.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["CUI", "Canonical name"])
        writer.writerows(sorted({**names, **DEMO_NAMES}.items()))
    with open(out / "kg_edges.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["child", "parent", "source", "relation"])
        writer.writerows([child, parent, "demo", "part_of" if (child, parent) in PART_OF else "is_a"]
                         for child, parent in KG_EDGES)
    with open(out / "labels.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["ID", "modality", "organ"])
        writer.writerows([image_id, MODALITY_WORDS[cuis[0]], region] for image_id, region, cuis in images)
    numpy_rng = np.random.default_rng(7)
    runs_dir = out / "runs"
    runs_dir.mkdir(exist_ok=True)
    for name, ranking in similarity_runs(images, numpy_rng, args.depth).items():
        lines = [f"{images[q][0]} Q0 {doc} {rank} {score:.4f} {name}"
                 for q, items in enumerate(ranking) for rank, (doc, score) in enumerate(items, start=1)]
        (runs_dir / f"{name}.trec").write_text("\n".join(lines) + "\n", encoding="utf-8")
    vocabulary = sorted({c for _, _, cuis in images for c in cuis})
    projection = numpy_rng.normal(size=(len(vocabulary), 32))
    vectors = np.stack([projection[[vocabulary.index(c) for c in cuis]].sum(axis=0) for _, _, cuis in images])
    vectors += numpy_rng.normal(0, 1.5, vectors.shape)
    np.save(out / "image_embeddings.npy", vectors.astype(np.float32))
    (out / "image_embeddings_ids.txt").write_text("\n".join(i for i, _, _ in images) + "\n", encoding="utf-8")
    with zipfile.ZipFile(out / "images.zip", "w", compression=zipfile.ZIP_STORED) as archive:
        for image_id, _, cuis in images:
            info = zipfile.ZipInfo(f"{image_id}.png", date_time=(2025, 1, 1, 0, 0, 0))
            archive.writestr(info, thumbnail(rng, cuis))
    (out / "README.md").write_text(
        "# SYNTHETIC demo data\n\nGenerated by `scripts/make_demo.py`; modelled on ROCOv2 (real CUIs and names of "
        "frequent radiology concepts) but every image, caption, run and embedding is synthetic. The KG edges are "
        "facts written for the demo, is_a links or part-of links (the `relation` column); `DEMO:` nodes are "
        "intermediate terms.\n", encoding="utf-8")
    print(f"wrote {len(images)} synthetic images to {out}")


if __name__ == "__main__":
    main()
