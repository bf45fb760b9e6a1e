"""One cache decorator for the dashboard's computations on a workspace (dashboard.caching.kept_by): it gives the
computation the workspace restricted to the inputs it names, so that the key is their content and nothing else can be
read, then keeps the result in a Streamlit cache hashed through HASH_FUNCS. A computation kept for the server
(dashboard.caching.shared) has its arguments normalised by its decorator too, so that each computation is one public
function: no private twin converts its arguments by hand before calling it."""

from __future__ import annotations

import ast
import inspect
import uuid

import pytest

from dashboard import computed
from dashboard.caching import Shared, kept_by, shared
from evalcore.app.baselines import CAPTIONS, IOU
from evalcore.app.workspace import Workspace
from evalcore.data import ConceptSets
from evalcore.kept import Kept
from evalcore.relevance.measures import measure_spec
from tests.conftest import ROOT

#: What each computation below was given, in order of the calls that computed (a cache hit adds nothing).
SEEN: list[Workspace] = []


@kept_by(("captions",), max_entries=8)
def caption_lengths(ws: Workspace, suffix: str) -> dict[str, int]:
    SEEN.append(ws)
    return {image: len(text + suffix) for image, text in ws.captions.items()}


@kept_by(("captions",), kind="resource", max_entries=8)
def caption_words(ws: Workspace) -> dict[str, list[str]]:
    SEEN.append(ws)
    return {image: text.split() for image, text in ws.captions.items()}


def workspace(**inputs) -> Workspace:
    """A workspace of captions no other test computes on (the caches are the process's), plus ``inputs``."""
    unique = uuid.uuid4().hex
    return Workspace(**{"captions": {"img1": f"CT of the liver {unique}", "img2": "MRI of the knee"},
                        "names": {"C1": "liver"}, **inputs})


@pytest.fixture(autouse=True)
def nothing_seen():
    SEEN.clear()
    yield
    SEEN.clear()


def test_the_computation_is_given_the_workspace_restricted_to_its_inputs():
    ws = workspace(concepts=ConceptSets(("img1",), (frozenset({"C1"}),)))
    lengths = caption_lengths(ws, "")
    (given,) = SEEN
    assert dict(given.captions) == dict(ws.captions) and lengths == {i: len(t) for i, t in ws.captions.items()}
    assert not given.names and given.concepts is None  # inputs outside its list cannot be read
    assert given.digest == ws.restricted_to("captions").digest != ws.digest


def test_workspaces_differing_only_in_an_input_not_read_share_one_result():
    ws = workspace()
    other = ws.with_inputs(names={"C1": "hepar"}, concepts=ConceptSets(("img2",), (frozenset({"C2"}),)))
    assert other.digest != ws.digest
    assert caption_lengths(ws, "!") == caption_lengths(other, "!")
    assert len(SEEN) == 1
    first = caption_words(ws)
    assert caption_words(other) is first and len(SEEN) == 2  # a resource: the one object, shared read-only


def test_a_read_input_or_another_argument_that_differs_computes_again():
    ws = workspace()
    other = ws.with_inputs(captions={**ws.captions, "img2": "MRI of the shoulder"})
    assert caption_lengths(ws, "") != caption_lengths(other, "")
    assert len(SEEN) == 2
    caption_lengths(ws, "?")  # another argument: another key
    assert len(SEEN) == 3
    caption_lengths(ws, "")
    assert len(SEEN) == 3


def test_data_results_are_copies_and_clear_empties_the_cache():
    ws = workspace()
    first = caption_lengths(ws, "")
    first["img1"] = -1  # a reader changing its copy changes no other reader's
    assert caption_lengths(ws, "")["img1"] != -1 and len(SEEN) == 1
    caption_lengths.clear()
    caption_lengths(ws, "")
    assert len(SEEN) == 2


def test_the_decorated_function_keeps_the_computations_name_signature_and_inputs():
    assert caption_lengths.__name__ == "caption_lengths"
    assert list(inspect.signature(caption_lengths).parameters) == ["ws", "suffix"]
    assert caption_lengths.inputs == ("captions",)


def test_a_parameter_keyed_by_hand_or_left_out_of_the_key_is_refused():
    with pytest.raises(TypeError, match="_ignored"):
        kept_by(("captions",))(lambda ws, _ignored: None)
    with pytest.raises(TypeError, match="cache_key"):
        kept_by(("captions",))(lambda ws, cache_key: None)
    with pytest.raises(ValueError, match="kind"):
        kept_by(("captions",), kind="session")  # type: ignore[arg-type]


def test_the_first_argument_must_be_a_workspace():
    with pytest.raises(TypeError, match="Workspace"):
        caption_lengths({"img1": "CT"}, "")  # type: ignore[arg-type]


def test_an_unknown_input_is_refused_on_call():
    unknown = kept_by(("captions", "not an input"))(lambda ws: None)
    with pytest.raises(Exception, match="unknown workspace inputs"):
        unknown(workspace())


def test_the_dashboards_computations_on_a_workspace_are_kept_by_the_inputs_they_read():
    """The former twin pairs, one function each under the public name, restricted by its decorator."""
    expected = {
        "extraction_coverage": ("concepts",), "concepts_download": ("concepts",),
        "concept_mentions_of": ("extraction",), "cached_kg": computed.KG_INPUTS,
        "engine_evaluator": computed.EVALUATOR_INPUTS, "kg_coverage_of": ("concepts", *computed.KG_INPUTS),
        "concept_frequency": ("concepts",), "searchable_names": ("concepts", *computed.KG_INPUTS),
        "default_pair": ("concepts", *computed.KG_INPUTS), "search_names": ("concepts", *computed.KG_INPUTS),
        "neighbourhood_of": computed.KG_INPUTS, "shortest_path_of": computed.KG_INPUTS,
        "scored_detection": ("concepts", *computed.KG_INPUTS), "scored_extraction": ("extraction", *computed.KG_INPUTS),
        "names_dictionary": computed.NAMES_DICTIONARY_INPUTS, "pair_explanation": computed.EXPLANATION_INPUTS,
        "pair_explanations": computed.EXPLANATION_INPUTS,
    }
    assert {name: getattr(computed, name).inputs for name in expected} == expected
    assert not [name for name in vars(computed) if name.startswith("cached_") and name != "cached_kg"]


def test_a_dashboard_computation_shares_its_result_across_inputs_it_does_not_read():
    concepts = ConceptSets(("img1", "img2"), (frozenset({"C1", uuid.uuid4().hex}), frozenset({"C1"})))
    ws = workspace(concepts=concepts)
    frequency = computed.concept_frequency(ws)
    assert frequency["C1"] == 2
    assert computed.concept_frequency(ws.with_inputs(captions={"img1": "other"})) == frequency
    assert computed.kg_of(ws) is None  # no KG file: nothing built, nothing kept


#: The private cached twins left in dashboard/computed.py, each with why its public function cannot be the cached one.
TWINS_LEFT = {
    "_rocov2_workspace": "the public function takes the address's folder name and the server's data roots (app.py's "
                         "and the Data page's call); the cached one takes the data source they make, which the key is "
                         "the content of (Rocov2Folder: the digest of the files it reads), a key no argument of the "
                         "public function gives",
    "_saved_workspace": "the public function notes every link it opens (note_saved), a cache hit included: links to "
                        "the same content share one kept workspace, and each must be noted for keep_prepared",
}
#: Other names of a public computation (the same object, no twin), each with who still reads it under that name.
ALIASES: dict[str, tuple[str, str]] = {}
CACHE_DECORATORS = {"shared", "kept_by", "cache_data", "cache_resource"}


def decorator_name(node: ast.expr) -> str:
    """``shared`` of ``@shared(...)``, ``cache_data`` of ``@st.cache_data(...)``; a call of a call (``shared(...)(f)``)
    too."""
    while isinstance(node, ast.Call):
        node = node.func
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def is_cached(value: object) -> bool:
    """A computation kept by a cache decorator: a Shared, a kept_by function or an st.cache_* function."""
    return isinstance(value, Shared) or (callable(value) and not isinstance(value, type) and hasattr(value, "clear"))


def test_no_private_cached_twin_is_left_in_the_dashboards_computations():
    """Each computation is one public function with one decorator, which normalises its arguments: a private cached
    function called by a public one that only converts them (issue 66's twin pairs) is refused, but those listed."""
    tree = ast.parse((ROOT / "dashboard" / "computed.py").read_text(encoding="utf-8"))
    private = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name.startswith("_") and any(decorator_name(d) in CACHE_DECORATORS for d in node.decorator_list):
                private.add(node.name)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            if decorator_name(node.value) in CACHE_DECORATORS:
                private |= {t.id for t in node.targets if isinstance(t, ast.Name) and t.id.startswith("_")}
    assert private == set(TWINS_LEFT)
    bound = {name for name, value in vars(computed).items() if name.startswith("_") and is_cached(value)}
    assert bound == set(TWINS_LEFT) | set(ALIASES)
    assert all(getattr(computed, alias) is getattr(computed, name) for alias, (name, _) in ALIASES.items())
    # A cached computation defined there is bound under its own name.
    own = {name: value for name, value in vars(computed).items()
           if is_cached(value) and getattr(value, "__module__", None) == computed.__name__}
    assert {name for name, value in own.items() if value.__name__ != name} == set(ALIASES)


def test_a_shared_computation_is_keyed_by_its_arguments_normalised_and_never_by_its_progress():
    store, calls = Kept(), []

    @shared(lambda: store, ("captions",))
    def lengths(ws: Workspace, images: tuple[str, ...], suffix: str = "",
                progress=None) -> dict[str, int]:
        calls.append((ws, images, suffix))
        if progress:
            progress(1.0, "done")
        return {image: len(ws.captions[image] + suffix) for image in images}

    ws = workspace()
    first = lengths(ws, ["img1"])  # a list: given as a tuple, keyed as one
    assert calls == [(calls[0][0], ("img1",), "")] and calls[0][0].digest == ws.restricted_to("captions").digest
    assert lengths(ws, ("img1",), "") is first  # its default given: the same call
    assert lengths(ws, images=("img1",), suffix="", progress=lambda *_: None) is first  # progress is no key
    assert lengths(ws.with_inputs(names={"C9": "spleen"}), ("img1",)) is first  # an input it does not read
    assert lengths.kept(ws, ["img1"]) is first and lengths.kept(ws, ("img2",)) is None
    lengths(ws, ("img1",), "!")
    assert len(calls) == 2
    assert lengths.__name__ == "lengths" and list(inspect.signature(lengths).parameters)[:2] == ["ws", "images"]


def test_given_narrows_the_arguments_and_keyed_also_joins_the_key():
    store, calls = Kept(), []

    @shared(lambda: store, given=lambda ws, word, loud: (ws.restricted_to("captions"), word.lower(), loud),
            keyed_also=lambda ws, *_: tuple(sorted(ws.captions)))
    def mentions(ws: Workspace, word: str, loud: bool) -> int:
        calls.append(word)
        return sum(word in text.lower() for text in ws.captions.values())

    ws = workspace()
    assert mentions(ws, "CT", False) == 1 and calls == ["ct"]
    assert mentions(ws, "ct", False) == 1 and calls == ["ct"]  # given narrowed it: one key
    assert mentions(ws, "ct", True) == 1 and len(calls) == 2
    # keyed_also sees the arguments given (the workspace restricted): another image ID, another key.
    renamed = ws.with_inputs(captions={"img3" if image == "img2" else image: text for image, text in ws.captions.items()})
    mentions(renamed, "ct", False)
    assert len(calls) == 3


def test_a_baselines_run_is_kept_by_what_it_reads_at_the_setting_it_depends_on():
    """baseline_run's decorator restricts the workspace to the baseline's inputs and narrows the sidebar's setting
    to the one its ranking depends on, for a call, for .kept and for .keep alike (keep_prepared and
    keep_results_read read and put the runs kept with a saved workspace through them)."""
    ws = workspace(concepts=ConceptSets(("img1", "img2"), (frozenset({"C1"}), frozenset({"C1", "C2"}))))
    marker = object()
    computed.baseline_run.keep(marker, ws, CAPTIONS, None, "undirected")
    moved = measure_spec("nn-iou", alpha=0.3, n=2)
    assert computed.baseline_run.kept(ws, CAPTIONS, moved, "directed") is marker  # it ranks by neither
    assert computed.baseline_run.kept(ws.with_inputs(names={"C2": "kidney"}), CAPTIONS, moved, "directed") is marker
    assert computed.baseline_run.kept(ws.with_inputs(captions={"img1": "other"}), CAPTIONS, None, "undirected") is None
    assert computed.baseline_run.kept(ws, IOU, None, "undirected") is None
