"""Write a SYNTHETIC pool of N images whose concept sets are resampled from a real concepts file.

Each synthetic image copies the concept set of a source image drawn uniformly at random, and each
of its concepts is replaced, with probability ``--swap`` (default 0.25), by a concept drawn from the
source's occurrences (so frequent concepts such as the modalities stay frequent). A replacement that
repeats a concept already in the set is dropped. Set sizes, the concept frequencies and most of the
co-occurrence structure (modality with body region) of the source are kept; no set is made up from
scratch. Deterministic: the same source, N, seed and swap give the same file.

Used by benchmarks/bench_scale.py (a 1,000,000-image pool) and by the tests.

Usage: python scripts/make_synthetic_pool.py CONCEPTS.csv N OUT.csv [--seed 0] [--swap 0.25]
e.g.   python scripts/make_synthetic_pool.py ../shared/data/rocov2/train_concepts.csv 1000000 /tmp/pool_1m.csv
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from evalcore.data import ConceptSets  # noqa: E402
from evalcore.errors import CBIRLensError, ParameterError  # noqa: E402
from evalcore.readers import read_concepts  # noqa: E402


def make_pool(source: ConceptSets, size: int, seed: int = 0, swap: float = 0.25, prefix: str = "SYN"
              ) -> ConceptSets:
    """``size`` synthetic images ``{prefix}_0000000, ...`` resampled from ``source`` (see the module docstring).

    >>> source = ConceptSets(("a", "b"), (frozenset({"C0000001", "C0000002"}), frozenset({"C0000003"})))
    >>> pool = make_pool(source, 3, seed=1, swap=0.0)
    >>> pool.ids, all(s in source.sets for s in pool.sets)
    (('SYN_0000000', 'SYN_0000001', 'SYN_0000002'), True)
    """
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
        raise ParameterError(f"the number of images must be a whole number >= 0, got {size!r}")
    if not 0.0 <= swap <= 1.0:
        raise ParameterError(f"swap must be a probability in [0, 1], got {swap!r}")
    if len(source) == 0:
        raise ParameterError(f"{source.source}: no images to resample from")
    vocabulary = np.array(source.vocabulary, dtype=object)
    code = {concept: i for i, concept in enumerate(vocabulary)}
    lengths = np.fromiter((len(s) for s in source.sets), dtype=np.int64, count=len(source))
    flat = np.fromiter((code[c] for s in source.sets for c in sorted(s)), dtype=np.int64, count=int(lengths.sum()))
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])

    rng = np.random.default_rng(seed)
    templates = rng.integers(0, len(source), size=size)
    counts = lengths[templates]
    total = int(counts.sum())
    offsets = np.concatenate([[0], np.cumsum(counts)])
    # Position of every drawn concept inside its template's run of the flat array.
    within = np.arange(total) - np.repeat(offsets[:-1], counts)
    drawn = flat[np.repeat(starts[templates], counts) + within]
    replace = rng.random(total) < swap
    if len(flat):
        drawn[replace] = flat[rng.integers(0, len(flat), size=int(replace.sum()))]
    # Duplicates inside a set (a replacement equal to a kept concept) collapse when the frozenset is built.
    sets = tuple(frozenset(vocabulary[drawn[offsets[i]:offsets[i + 1]]].tolist()) for i in range(size))
    ids = tuple(f"{prefix}_{i:07d}" for i in range(size))
    return ConceptSets(ids, sets, f"synthetic pool of {size:,} (seed {seed}) from {source.source}")


def write_pool(pool: ConceptSets, out: Path) -> None:
    """``ID,CUIs`` with the CUIs sorted and joined by ';', as ROCOv2's concept files."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8", newline="\n") as handle:
        handle.write("ID,CUIs\n")
        handle.writelines(f"{image},{';'.join(sorted(concepts))}\n" for image, concepts in zip(pool.ids, pool.sets))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("concepts", type=Path, help="concepts file to resample from (ROCOv2 or the demo)")
    parser.add_argument("images", type=int, help="number of synthetic images")
    parser.add_argument("out", type=Path, help="CSV to write (ID,CUIs)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--swap", type=float, default=0.25, help="probability of replacing each concept")
    args = parser.parse_args(argv)
    try:
        pool = make_pool(read_concepts(args.concepts), args.images, args.seed, args.swap)
        write_pool(pool, args.out)
    except CBIRLensError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {len(pool):,} synthetic images ({pool.occurrences():,} concepts) to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
