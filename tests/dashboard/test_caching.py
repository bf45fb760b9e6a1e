"""One cache decorator for the dashboard's computations on a workspace (dashboard.caching.kept_by): it gives the
computation the workspace restricted to the inputs it names, so that the key is their content and nothing else can be
read, then keeps the result in a Streamlit cache hashed through HASH_FUNCS. A computation kept for the server
(dashboard.caching.shared) has its arguments normalised by its decorator too, so that each computation is one public
function: no private twin converts its arguments by hand before calling it."""

from __future__ import annotations

import ast
import importlib
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
        "concept_mentions_of": ("extraction",),
        "engine_evaluator": computed.EVALUATOR_INPUTS, "kg_coverage_of": ("concepts", *computed.KG_INPUTS),
        "concept_frequency": ("concepts",), "searchable_names": ("concepts", *computed.KG_INPUTS),
        "default_pair": ("concepts", *computed.KG_INPUTS), "search_names": ("concepts", *computed.KG_INPUTS),
        "neighbourhood_of": computed.KG_INPUTS, "shortest_path_of": computed.KG_INPUTS,
        "detection_report": ("concepts", *computed.KG_INPUTS),
        "extraction_detection_report": ("extraction", *computed.KG_INPUTS),
        "names_dictionary": computed.NAMES_DICTIONARY_INPUTS, "pair_explanation": computed.EXPLANATION_INPUTS,
        "explanations_of": computed.EXPLANATION_INPUTS,
    }
    assert {name: getattr(computed, name).inputs for name in expected} == expected
    assert not [name for name in vars(computed) if name.startswith("cached_")]


def test_a_dashboard_computation_shares_its_result_across_inputs_it_does_not_read():
    concepts = ConceptSets(("img1", "img2"), (frozenset({"C1", uuid.uuid4().hex}), frozenset({"C1"})))
    ws = workspace(concepts=concepts)
    frequency = computed.concept_frequency(ws)
    assert frequency["C1"] == 2
    assert computed.concept_frequency(ws.with_inputs(captions={"img1": "other"})) == frequency
    assert computed.kg_of(ws) is None  # no KG file: nothing built, nothing kept


#: The twins left in dashboard/ (:func:`twins_in`), by module and name of the function that is a second door to a
#: cached computation, each with why that computation cannot have one function only.
TWINS_LEFT = {
    "computed.rocov2_workspace": "it takes the address's folder name and the server's data roots (app.py's and the "
                                 "Data page's call); the cached one takes the data source they make, which the key is "
                                 "the content of (Rocov2Folder: the digest of the files it reads), a key no argument "
                                 "of the public function gives",
    "computed.saved_workspace": "it notes every link it opens (note_saved), a cache hit included: links to the same "
                                "content share one kept workspace, and each must be noted for keep_prepared",
    "computed.kg_of": "without a KG file there is no index to build: it answers None without asking the KGs' cache, "
                      "where a None kept per set of names (the workspace restricted to the KG's inputs keeps them) "
                      "would take one of its four places and drop a built index",
    "computed.evaluator_of": "a page's door to engine_evaluator: it draws a spinner in its reader's words while the "
                             "engine is built and notes the engine in the session for the sidebar's line, a cache hit "
                             "included; engine_evaluator is read by work prepared in the background and by the other "
                             "computations too, which have no page to draw on and no session to note in",
    "computed.explanations_of": "two levels of one computation, on purpose: a system's list costs one cache lookup "
                                "(each hashes the workspace and the setting) rather than one per card, and a pair in "
                                "several lists (the systems' lists overlap; the clinician's report asks for one pair "
                                "at a time, pair_explanation) is explained once",
}
CACHE_DECORATORS = {"shared", "kept_by", "cache_data", "cache_resource"}
#: Calls that give an argument in another form and compute nothing from it (a class's constructor too, and a
#: method of an argument: ``tuple(results)``, ``Rocov2Folder(folder, roots)``, ``settings.options()``).
CONVERSIONS = frozenset({"tuple", "list", "set", "frozenset", "dict", "sorted", "str", "int", "float", "bool"})


def decorator_name(node: ast.expr) -> str:
    """``shared`` of ``@shared(...)``, ``cache_data`` of ``@st.cache_data(...)``; a call of a call (``shared(...)(f)``)
    too."""
    while isinstance(node, ast.Call):
        node = node.func
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def is_cached(value: object) -> bool:
    """A computation kept by a cache decorator: a Shared, a kept_by function or an st.cache_* function."""
    return isinstance(value, Shared) or (callable(value) and not isinstance(value, type) and hasattr(value, "clear"))


def converts(node: ast.expr, names: set[str], classes: set[str]) -> bool:
    """Whether ``node`` only reads ``names`` (a function's parameters) and converts them: constants, attributes,
    items, displays, and calls of :data:`CONVERSIONS`, of ``classes`` or of a method of what it reads. A call of any
    other function computes something the key of its own (``view.shown(leaderboard_metric_names(ws, settings))``)."""
    match node:
        case ast.Constant():
            return True
        case ast.Name():
            return node.id in names
        case ast.Attribute() | ast.Starred():
            return converts(node.value, names, classes)
        case ast.Subscript():
            return converts(node.value, names, classes) and converts(node.slice, names, classes)
        case ast.Tuple() | ast.List() | ast.Set():
            return all(converts(part, names, classes) for part in node.elts)
        case ast.IfExp():
            return all(converts(part, names, classes) for part in (node.test, node.body, node.orelse))
        case ast.Call(func=ast.Name(id=name)) if name not in CONVERSIONS | classes:
            return False
        case ast.Call(func=ast.Attribute(value=receiver)) if not converts(receiver, names, classes):
            return False
        case ast.Call():
            return all(converts(part, names, classes) for part in [*node.args, *(k.value for k in node.keywords)])
    return False


def forwarded(node: ast.expr, cached: set[str], names: set[str], classes: set[str],
              assigned: dict[str, ast.expr]) -> set[str] | None:
    """The cached functions whose results ``node`` only passes on (one called with its arguments converted, a
    conversion of such calls, one of two of them, a constant), else None."""
    match node:
        case ast.Constant():
            return set()
        case ast.Name(id=name) if name in assigned:
            return forwarded(assigned[name], cached, names, classes, assigned)
        case ast.IfExp() if converts(node.test, names, classes):
            sides = [forwarded(side, cached, names, classes, assigned) for side in (node.body, node.orelse)]
            return None if None in sides else set().union(*sides)
        case ast.Call() if ast.unparse(node.func) in cached:
            arguments = [*node.args, *(k.value for k in node.keywords)]
            return {ast.unparse(node.func)} if all(converts(a, names, classes) for a in arguments) else None
        case ast.Call(func=ast.Name(id=name), args=[argument], keywords=[]) if name in CONVERSIONS:
            return forwarded(argument, cached, names, classes, assigned)
        case ast.GeneratorExp(generators=[loop]) | ast.ListComp(generators=[loop]) if not loop.ifs:
            if not converts(loop.iter, names, classes):
                return None
            bound = {name.id for name in ast.walk(loop.target) if isinstance(name, ast.Name)}
            return forwarded(node.elt, cached, names | bound, classes, assigned)
    return None


def own_nodes(function: ast.FunctionDef) -> list[ast.AST]:
    """The nodes of ``function``'s body, not of the functions and classes defined in it."""
    found, stack = [], list(function.body)
    while stack:
        node = stack.pop()
        found.append(node)
        stack += [child for child in ast.iter_child_nodes(node)
                  if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef)]
    return found


def twins_in(tree: ast.Module, cached: set[str], classes: set[str]) -> dict[str, set[str]]:
    """The twins among ``tree``'s functions, each with the cached functions (of ``cached``) it is a twin of.

    A twin is a second door to a cached computation, cached itself or not, public or private: a function whose every
    result is a cached function's result for its own arguments, converted and nothing computed from them
    (:func:`converts`: ``detection_report(ws, ..., settings)`` returning ``scored_detection(ws, ...,
    settings.relevance, settings.kg_mode)``), whatever else it does on the way (a spinner, a note in the session),
    that result passed on whole or a list of them (a cache of lists of another cache's items); or a cached function
    whose body, docstring aside, is another's (one computation kept twice)."""
    found: dict[str, set[str]] = {}
    bodies: dict[str, str] = {}
    for function in tree.body:
        if not isinstance(function, ast.FunctionDef):
            continue
        names = {argument.arg for argument in ast.walk(function.args) if isinstance(argument, ast.arg)}
        nodes = own_nodes(function)
        targets = [t.id for n in nodes if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)]
        assigned = {n.targets[0].id: n.value for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
                    and isinstance(n.targets[0], ast.Name) and targets.count(n.targets[0].id) == 1}
        results = [forwarded(node.value, cached - {function.name}, names, classes, assigned)
                   for node in nodes if isinstance(node, ast.Return) and node.value is not None]
        if results and None not in results and set().union(*results):
            found[function.name] = set().union(*results)
        if function.name in cached:
            body = ast.dump(ast.Module(function.body[ast.get_docstring(function) is not None:], []))
            if body in bodies:
                found.setdefault(function.name, set()).add(bodies[body])
            bodies.setdefault(body, function.name)
    return found


def dashboard_twins() -> tuple[dict[str, set[str]], set[str]]:
    """The twins in every module of dashboard/ (:func:`twins_in`), as ``{"module.function": cached functions}``, and
    the private cached functions defined there, as ``"module.function"``. A module's cached functions are those its
    decorators keep and those it binds, imported ones too (a door in ``cards`` to a computation of ``computed``)."""
    twins, private = {}, set()
    for path in sorted((ROOT / "dashboard").glob("*.py")):
        module = importlib.import_module(f"dashboard.{path.stem}")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bound = {name for name, value in vars(module).items() if is_cached(value)}
        decorated = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)
                     and any(decorator_name(d) in CACHE_DECORATORS for d in node.decorator_list)}
        classes = {name for name, value in vars(module).items() if isinstance(value, type)}
        twins |= {f"{path.stem}.{name}": called for name, called in twins_in(tree, bound | decorated, classes).items()}
        private |= {f"{path.stem}.{name}" for name in bound if name.startswith("_")
                    and getattr(vars(module)[name], "__module__", None) == module.__name__}
    return twins, private


def test_the_twin_scan_finds_a_door_that_only_converts_its_arguments_and_a_second_cache_of_one_computation():
    """The scan's own check, on issue 66's patterns: a public door turning Settings into (relevance, mode), a cache of
    lists of another cache's items, one computation kept twice, a private cached function behind a door that makes
    its data source; a function that computes an argument or a result of its own is no twin."""
    source = '''
@kept_by(("concepts",))
def scored(ws, subset, relevance, mode): return score(ws.concepts, subset, relevance, mode)
def report(ws, subset, settings):
    """Only converts its arguments."""
    return scored(ws, frozenset(subset), settings.relevance, settings.kg_mode)
@kept_by(("concepts",))
def many(ws, query, results, relevance, mode): return tuple(scored(ws, r, relevance, mode) for r in results)
@kept_by(("concepts",))
def again(ws, subset, relevance, mode):
    """The same computation, kept twice."""
    return score(ws.concepts, subset, relevance, mode)
@shared(server_workspaces)
def _loaded(folder): return folder.load()
def loaded(folder, roots):
    kept = _loaded(Folder(folder, tuple(roots)))
    note(kept)
    return kept
def shown(ws, view, settings): return scored(ws, view.shown(metric_names(ws)), settings.relevance, settings.kg_mode)
def dictionary(ws): return ws.extraction.dictionary if ws.extraction else names(ws)
def counted(ws, settings): return len(scored(ws, (), settings.relevance, settings.kg_mode))
'''
    tree = ast.parse(source)
    cached = {node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.decorator_list}
    assert twins_in(tree, cached | {"names"}, {"Folder"}) == {
        "report": {"scored"}, "many": {"scored"}, "again": {"scored"}, "loaded": {"_loaded"}}


def test_no_twin_is_left_in_the_dashboard_but_those_listed():
    """Each computation is one function with one decorator, which normalises its arguments (issue 66): a second door
    to it (:func:`twins_in`) anywhere in dashboard/ is refused, but those listed with their reasons; a private cached
    function is only the cached half of one of them, and a cached function is bound under its own name."""
    twins, private = dashboard_twins()
    assert set(twins) == set(TWINS_LEFT), f"twins found (door: what it passes on): {twins}"
    assert private <= {f"{door.split('.')[0]}.{name}" for door, called in twins.items() for name in called}
    for path in (ROOT / "dashboard").glob("*.py"):
        module = importlib.import_module(f"dashboard.{path.stem}")
        assert not [name for name, value in vars(module).items() if is_cached(value)
                    and getattr(value, "__module__", None) == module.__name__ and value.__name__ != name]


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
