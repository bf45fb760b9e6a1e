"""Convenience loaders that combine readers: several KG files, labels applied to concept
sets, and the ROCOv2 folder layout (:class:`Rocov2Layout`, the one list of the files a load of a ROCOv2 folder
reads)."""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from evalcore.data import ConceptClassMap, ConceptSets, ImageLabels, KGEdges, KGEdgeTable
from evalcore.errors import MAX_NAME_CHARS, CBIRLensError, InputError, one_line
from evalcore.readers import Source, read_captions, read_concept_names, read_concepts, read_kg, read_labels
from evalcore.relevance.kg import KnowledgeGraph
from evalcore.resources import project_root

ROCOV2_SPLITS = ("train", "valid", "test")
PROJECT_ROOT = project_root()  # the checkout, or the installed package's copy of app.py, pages/ and data/
LABEL_MAPPING = PROJECT_ROOT / "data" / "labels" / "rocov2_labels.csv"
#: The suffixes of the run files read from a ROCOv2 folder's ``runs/`` (any other file there is skipped).
RUN_SUFFIXES = (".trec", ".run", ".txt", ".csv")
DATA_ROOTS_VARIABLE = "CBIR_LENS_DATA_ROOTS"
DEFAULT_DATA_ROOTS = (PROJECT_ROOT / "data", PROJECT_ROOT.parent / "shared" / "data")


def data_roots(configured: Sequence[str | Path] = ()) -> tuple[Path, ...]:
    """Folders a server may read data from: ``CBIR_LENS_DATA_ROOTS`` (separated by ``os.pathsep``)
    plus ``configured`` (the dashboard's ``data_roots`` secret); the project's ``data/`` and
    ``../shared/data`` when neither names any. Each is resolved (symbolic links followed).
    """
    named = [entry for entry in os.environ.get(DATA_ROOTS_VARIABLE, "").split(os.pathsep) if entry.strip()]
    named += [str(entry) for entry in configured if str(entry).strip()]
    return tuple(Path(entry).expanduser().resolve() for entry in named) if named else tuple(
        root.resolve() for root in DEFAULT_DATA_ROOTS)


def shown_path(path: str | Path) -> str:
    r"""A path as a message quotes it: on one line, control characters escaped, cut after 80 characters
    (:func:`evalcore.errors.one_line`).

    >>> shown_path("/srv/data/x\0y"), shown_path("/a" * 100)[-20:]
    ('/srv/data/x\\x00y', '/a… (200 characters)')
    """
    return one_line(path, MAX_NAME_CHARS)


def is_under_roots(path: Path, roots: Sequence[Path]) -> bool:
    """Whether the real path of ``path`` (links followed, ``..`` removed) is the real path of one of ``roots`` or
    lies inside one (a root given as a symbolic link holds what lies under the folder it leads to).

    >>> is_under_roots(Path("/srv/data/../etc/passwd"), (Path("/srv/data"),))
    False
    """
    resolved = path.resolve()
    return any(resolved == real or resolved.is_relative_to(real) for real in (root.resolve() for root in roots))


def check_under_roots(path: str | Path, roots: Sequence[Path]) -> Path:
    r"""``path`` resolved (links followed, ``..`` removed) if it exists and lies under one of ``roots``; else
    refused with the one thing that is wrong: no path, a NUL character, a path too long for the system, no such
    file or folder (said only under the roots and the project's own folder, so that the answer reveals nothing of
    the server's other files; a relative path is read from the app's working folder), or a place outside the roots.
    A refusal quotes the path as given and no other: neither the working folder, nor the roots, nor where a link
    leads (a user of a shared server learns nothing of the server's folders from it).

    >>> check_under_roots("/etc/passwd", (Path("/srv/data"),))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evalcore.errors.CBIRLensError: /etc/passwd: expected a folder under the data folders this server may read, found ...
    >>> check_under_roots("data\0", (Path("/srv/data"),))
    Traceback (most recent call last):
    ...
    evalcore.errors.CBIRLensError: data\x00: expected a path, found a NUL character (\0) in it
    """
    text = str(path)
    if not text.strip():
        raise CBIRLensError("expected a folder path, found an empty one")
    if "\0" in text:
        raise CBIRLensError(f"{shown_path(text)}: expected a path, found a NUL character (\\0) in it")
    try:
        resolved = Path(text).expanduser().resolve()
        exists = resolved.exists()
    except OSError as error:
        if error.errno == errno.ENAMETOOLONG:
            raise CBIRLensError(f"{shown_path(text)}: expected a path the system can open, found one too long for it "
                                "(Linux allows names of at most 255 bytes and paths of at most 4,096)") from None
        raise CBIRLensError(f"{shown_path(text)}: cannot be read ({error.strerror})") from None
    except RuntimeError:  # a loop of symbolic links (its message names the resolved path), or "~name" for no user
        raise CBIRLensError(f"{shown_path(text)}: cannot be read (a loop of symbolic links, or ~name for an "
                            "unknown user)") from None
    relative = "" if Path(text).expanduser().is_absolute() else "; a relative path is read from the app's working folder"
    # Whether a path exists is said only within the data folders and the project's own (public) files: elsewhere
    # the answer would tell a user of a shared server which files the server holds.
    if not exists and is_under_roots(resolved, (*roots, PROJECT_ROOT.resolve())):
        raise CBIRLensError(f"{shown_path(text)}: no such file or folder{relative}")
    if exists and is_under_roots(resolved, roots):
        return resolved
    allowed = "" if roots else " (none configured)"
    raise CBIRLensError(
        f"{shown_path(text)}: expected a folder under the data folders this server may read{allowed}, found a path "
        f"outside them{relative}; to allow it, add its folder to the {DATA_ROOTS_VARIABLE} environment variable "
        f"(folders separated by '{os.pathsep}') or to data_roots in .streamlit/secrets.toml and restart the app")


def load_kg(paths: Sequence[Source | KGEdges | KGEdgeTable], sources: Sequence[str] | None = None,
            names: dict[str, str] | None = None) -> KnowledgeGraph:
    """Read and combine KG files (edge lists, MRREL.RRF, OBO) and already read edges; optionally keep
    only some source tags.

    A ``*_names.csv`` file beside an edge list (``open_kg_edges.csv`` -> ``open_kg_names.csv``)
    supplies node names.
    """
    edge_files = [p if isinstance(p, (KGEdges, KGEdgeTable)) else read_kg(p) for p in paths]
    kg = KnowledgeGraph.from_edges(edge_files, sources)
    merged = dict(kg.names)
    for path in paths:
        if isinstance(path, (str, Path)) and (sibling := kg_names_file(path)) is not None:
            merged.update(read_concept_names(sibling))
    merged.update(names or {})
    return replace(kg, names=merged)


def kg_names_file(path: str | Path) -> Path | None:
    """The names file read beside a KG edge list (``open_kg_edges.csv`` -> ``open_kg_names.csv``), if there is one."""
    path = Path(path)
    if not path.name:  # "", "." or "/": no file name to derive one from (reading it is refused, naming it)
        return None
    sibling = path.with_name(path.name.replace("_edges", "_names"))
    return sibling if sibling != path and sibling.is_file() else None


def resolve_labels(labels: ImageLabels | ConceptClassMap, concepts: ConceptSets) -> ImageLabels:
    """The labels of ``concepts``' images: a CUI-to-class mapping applied to their concept sets, or per-image
    labels, refused where they name none of the images (a labels file of another collection scores no query)."""
    if isinstance(labels, ConceptClassMap):
        return labels.labels_for(concepts)
    labelled = next(iter(labels.by_kind.values()), {})
    if labelled and not any(image_id in concepts.index for image_id in labelled):
        loaded = f" ({len(concepts.ids):,} images, e.g. {concepts.ids[0]!r})" if concepts.ids else ""
        raise InputError(labels.source, None, f"labels of images of the concept sets{loaded}",
                         f"none of its {len(labelled):,} IDs (e.g. {next(iter(labelled))!r})",
                         plain_expected=f"labels of the images loaded{loaded}")
    return labels


def load_labels(path: Source, concepts: ConceptSets) -> ImageLabels:
    return resolve_labels(read_labels(path), concepts)


@dataclass(frozen=True)
class Rocov2Layout:
    """Where the files of a ROCOv2 folder lie: the one definition that the loaders (:func:`load_rocov2_folder`,
    :func:`evalcore.app.workspace.load_rocov2` and :func:`~evalcore.app.workspace.load_rocov2_complete`) take their
    paths from and that :func:`evalcore.app.workspace.rocov2_digest` digests (:meth:`files`), so that a file a load
    reads cannot be left out of the digest that shares its workspace between sessions.

    Every path is made from the folder as given (never resolved here: the server's root checks are the loaders'):
    in it ``<split>_concepts.csv``, ``<split>_captions.csv``, ``cui_mapping.csv``, ``images/`` and the run files of
    ``runs/`` (:data:`RUN_SUFFIXES`); beside it, ``../kg/open_kg_edges.csv`` and ``../kg/open_kg_names.csv``; and
    the shipped modality/organ mapping of ROCOv2's concepts (:data:`LABEL_MAPPING`).

    >>> layout = Rocov2Layout()
    >>> [str(path) for path in layout.files("/data/rocov2")]  # doctest: +NORMALIZE_WHITESPACE
    ['/data/rocov2/test_concepts.csv', '/data/rocov2/test_captions.csv', '/data/rocov2/cui_mapping.csv',
     '/data/kg/open_kg_edges.csv', '/data/kg/open_kg_names.csv']
    """

    concepts: str = "{split}_concepts.csv"
    captions: str = "{split}_captions.csv"
    names: str = "cui_mapping.csv"
    images: str = "images"
    runs: str = "runs"
    run_suffixes: tuple[str, ...] = RUN_SUFFIXES
    #: The folder of the KG, beside the ROCOv2 folder (a sibling of it), and its two files.
    kg: str = "kg"
    kg_edges: str = "open_kg_edges.csv"
    kg_names: str = "open_kg_names.csv"
    labels: Path = LABEL_MAPPING

    def concepts_file(self, folder: str | Path, split: str) -> Path:
        return Path(folder) / self.concepts.format(split=split)

    def captions_file(self, folder: str | Path, split: str) -> Path:
        return Path(folder) / self.captions.format(split=split)

    def names_file(self, folder: str | Path) -> Path:
        return Path(folder) / self.names

    def images_folder(self, folder: str | Path) -> Path:
        return Path(folder) / self.images

    def runs_folder(self, folder: str | Path) -> Path:
        return Path(folder) / self.runs

    def run_files(self, folder: str | Path) -> list[Path]:
        """The run files of ``runs/`` in the order they are read (none without the folder)."""
        runs = self.runs_folder(folder)
        return sorted(p for p in runs.iterdir() if p.suffix.lower() in self.run_suffixes) if runs.is_dir() else []

    def kg_edges_file(self, folder: str | Path) -> Path:
        return Path(folder).parent / self.kg / self.kg_edges

    def kg_names_file(self, folder: str | Path) -> Path:
        return Path(folder).parent / self.kg / self.kg_names

    def files(self, folder: str | Path, splits: Sequence[str] = ("test",), runs: bool = True) -> list[Path]:
        """Every file of the folder (and beside it) that a load of ``splits`` may read, whether it exists or not, in
        this order: each split's concepts and captions, the concept names, the KG's edges and names, then (with
        ``runs``) the run files; the shipped :attr:`labels` mapping is not among them (it is the project's)."""
        files = [path for split in splits for path in (self.concepts_file(folder, split),
                                                       self.captions_file(folder, split))]
        files += [self.names_file(folder), self.kg_edges_file(folder), self.kg_names_file(folder)]
        return files + (self.run_files(folder) if runs else [])


#: The layout of a ROCOv2 folder.
ROCOV2_LAYOUT = Rocov2Layout()


@dataclass
class Rocov2Folder:
    concepts: dict[str, ConceptSets] = field(default_factory=dict)
    captions: dict[str, dict[str, str]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    images: Path | None = None


def load_rocov2_folder(folder: str | Path, splits: Sequence[str] = ("test",),
                       roots: Sequence[Path] | None = None, layout: Rocov2Layout = ROCOV2_LAYOUT) -> Rocov2Folder:
    """Recognise the ROCOv2 layout (:class:`Rocov2Layout`): ``<split>_concepts.csv``, ``<split>_captions.csv``,
    ``cui_mapping.csv`` and ``images/``.

    With ``roots`` (a server), the folder and every file read through it must resolve
    under one of them (:func:`check_under_roots`), so a link cannot lead outside.
    """
    root = Path(folder) if roots is None else check_under_roots(folder, roots)
    # Messages and sources name the files under the folder as given, not where it resolved to (a refusal names no
    # path of the server's that the user did not write).
    given = Path(folder)

    def named(path: Path) -> str:
        return str(given / path.relative_to(root))

    def allowed(path: Path) -> Path:
        return path if roots is None else check_under_roots(named(path), roots)

    if not root.is_dir():
        raise CBIRLensError(f"{shown_path(folder)}: not a folder (expected the ROCOv2 layout with "
                            f"{layout.concepts_file('', 'test')})")
    result = Rocov2Folder()
    for split in splits:
        concepts_path = layout.concepts_file(root, split)
        if not concepts_path.exists():
            raise CBIRLensError(f"{shown_path(folder)}: no {concepts_path.name} (expected the ROCOv2 layout)")
        result.concepts[split] = read_concepts(allowed(concepts_path), named(concepts_path))
        captions_path = layout.captions_file(root, split)
        if captions_path.exists():
            result.captions[split] = read_captions(allowed(captions_path), named(captions_path))
    names_path = layout.names_file(root)
    if names_path.exists():
        result.names = read_concept_names(allowed(names_path), named(names_path))
    images = layout.images_folder(root)
    if images.is_dir():
        result.images = allowed(images)
    return result


def combine_concepts(parts: Sequence[ConceptSets], source: str) -> ConceptSets:
    """Concatenate concept files (e.g. train + valid + test) in order; IDs must be unique."""
    ids = tuple(i for part in parts for i in part.ids)
    sets = tuple(s for part in parts for s in part.sets)
    if len(set(ids)) != len(ids):
        raise CBIRLensError(f"{source}: an image ID occurs in more than one concept file")
    return ConceptSets(ids, sets, source)
