"""One cache decorator for the dashboard's computations on a workspace (dashboard.caching.kept_by): it gives the
computation the workspace restricted to the inputs it names, so that the key is their content and nothing else can be
read, then keeps the result in a Streamlit cache hashed through HASH_FUNCS."""

from __future__ import annotations

import inspect
import uuid

import pytest

from dashboard import computed
from dashboard.caching import kept_by
from evalcore.app.workspace import Workspace
from evalcore.data import ConceptSets

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
