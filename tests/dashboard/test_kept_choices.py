"""A select widget's choice kept by value (dashboard.ui.choose_one / choose_many): whatever the widget hands back (a
label another audience showed, a value the new options lack, nothing after the page was left), the page gets one of
its options, and the reader's choice when it is still one."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT


def one_choice_script():
    import sys

    import streamlit as st

    sys.path.insert(0, st.session_state["root"])
    from dashboard.ui import choose_one

    options = st.session_state.get("options", ["a", "b", "c"])
    labels = st.session_state.get("labels", {})
    if st.session_state.get("drawn", True):
        value = choose_one(st.selectbox, "Pick", options, "pick", default="b", format_func=lambda o: labels.get(o, o))
        st.session_state["value"] = value


def many_choice_script():
    import sys

    import streamlit as st

    sys.path.insert(0, st.session_state["root"])
    from dashboard.ui import choose_many

    options = st.session_state.get("options", ["a", "b", "c"])
    if st.session_state.get("drawn", True):
        st.session_state["values"] = choose_many(st.multiselect, "Pick", options, "picks", default=["a", "c"])


def app_of(script) -> AppTest:
    app = AppTest.from_function(script, default_timeout=60)
    app.session_state["root"] = str(ROOT)
    return app.run()


def test_one_choice_opens_on_its_default_and_keeps_the_readers_choice():
    app = app_of(one_choice_script)
    assert app.session_state["value"] == "b"
    app.selectbox(key="pick").set_value("c").run()
    assert app.session_state["value"] == "c"


def test_the_choice_holds_when_its_labels_change():
    """The issue-33 path: the other audience labels the options otherwise (in the browser, Streamlit then handed back
    a label that is no option: tests/browser/test_browser_walk.py takes that path)."""
    app = app_of(one_choice_script)
    app.selectbox(key="pick").set_value("c").run()
    app.session_state["labels"] = {"a": "Images with a", "b": "Images with b", "c": "Images with c"}
    app.run()
    assert not app.exception and app.session_state["value"] == "c"
    app.session_state["labels"] = {}
    app.run()
    assert not app.exception and app.session_state["value"] == "c"


def test_a_choice_survives_the_widget_not_being_drawn_and_new_options():
    app = app_of(one_choice_script)
    app.selectbox(key="pick").set_value("c").run()
    app.session_state["drawn"] = False
    app.run()
    app.session_state["drawn"] = True
    app.run()
    assert app.session_state["value"] == "c"
    app.session_state["options"] = ["x", "y"]  # another dataset: the kept choice is no option any more
    app.run()
    assert not app.exception and app.session_state["value"] == "x"


def test_many_choices_keep_only_options_in_their_order():
    app = app_of(many_choice_script)
    assert app.session_state["values"] == ["a", "c"]
    app.multiselect(key="picks").select("b").run()
    assert app.session_state["values"] == ["a", "c", "b"]
    app.session_state["options"] = ["b", "c", "d"]
    app.run()
    assert not app.exception and app.session_state["values"] == ["c", "b"]
    app.session_state["drawn"] = False
    app.run()
    app.session_state["drawn"] = True
    app.run()
    assert app.session_state["values"] == ["c", "b"]
    app.session_state["picks"] = ["Retrieval by IoU"]  # a stale label
    app.run()
    assert not app.exception and app.session_state["values"] == ["c", "b"]


def test_the_address_sets_the_settings_and_an_invalid_value_is_ignored():
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    for key, value in {"audience": "Clinician", "alpha": "0.7", "n": "9", "measure": "dice", "ks": "5,10,7",
                       "gain": "exponential", "kg_mode": "sideways", "measure_tversky_a": "0.25"}.items():
        app.query_params[key] = value
    app.run()
    assert not app.exception, app.exception
    state = app.session_state
    assert (state["audience"], state["alpha"], state["n"], state["measure"], state["ks"], state["gain"],
            state["kg_mode"], state["measure_tversky_a"]) == ("Clinician", 0.7, 1, "dice", [5, 10, 30], "exponential",
                                                             "undirected", 0.25)
    # Written back: what differs from the defaults, nothing invalid.
    shown = {key: app.query_params.get(key) for key in ("audience", "alpha", "n", "measure", "ks", "kg_mode")}
    assert shown["audience"] in ("Clinician", ["Clinician"]) and shown["alpha"] in ("0.7", ["0.7"])
    assert shown["n"] is None and shown["ks"] is None and shown["kg_mode"] is None


# --- choices in the address (issue 37): a link reopens the view ---------------------------------------------------

def linked_app(script, **parameters) -> AppTest:
    app = AppTest.from_function(script, default_timeout=60)
    app.session_state["root"] = str(ROOT)
    for name, value in parameters.items():
        app.query_params[name] = value
    return app.run()


def test_a_choice_is_written_in_the_address_and_a_link_reopens_it():
    app = app_of(one_choice_script)
    assert "pick" not in app.query_params  # the default is not written
    app.selectbox(key="pick").set_value("c").run()
    assert app.query_params["pick"] in ("c", ["c"])  # AppTest shows one value bare
    reopened = linked_app(one_choice_script, pick="c")  # another session opening that address
    assert reopened.session_state["value"] == "c" and not reopened.toast


def test_several_choices_travel_as_repeated_parameters():
    app = app_of(many_choice_script)
    app.multiselect(key="picks").set_value(["b", "c"]).run()
    assert app.query_params["picks"] == ["b", "c"]
    reopened = linked_app(many_choice_script, picks=["c", "b"])
    assert reopened.session_state["values"] == ["c", "b"]


def test_a_link_naming_no_option_opens_the_nearest_view_with_one_sentence():
    app = linked_app(one_choice_script, pick="<script>x</script>")
    assert app.session_state["value"] == "b" and not app.exception
    assert app.session_state["address_ignored"] == ["pick"]  # app.py says it in one toast and clears the list
    many = linked_app(many_choice_script, picks=["c", "zzz"])
    assert many.session_state["values"] == ["c"]


def test_a_link_naming_no_option_of_a_many_choice_falls_back_to_its_default_with_one_sentence():
    """Was an empty choice (issue 67): /per_query?pq_systems=nope drew no system, and a page that stops on an empty
    choice stopped before app.py's sentence."""
    for linked_values in ("nope", ["<script>", "zzz"], ""):
        app = linked_app(many_choice_script, picks=linked_values)
        assert app.session_state["values"] == ["a", "c"] and not app.exception
        assert app.session_state["address_ignored"] == ["picks"]


def flag_script():
    import sys

    import streamlit as st

    sys.path.insert(0, st.session_state["root"])
    from dashboard.ui import choose_flag

    if st.session_state.get("drawn", True):
        st.session_state["on"] = choose_flag(st.toggle, "Differ most", "flag", default=st.session_state.get("d", False))


def test_a_switch_is_written_in_the_address_and_a_link_reopens_it():
    """Issue 67: Per-query's "differ most" switch was not in the link."""
    app = app_of(flag_script)
    assert app.session_state["on"] is False and "flag" not in app.query_params  # the default is not written
    app.toggle(key="flag").set_value(True).run()
    assert app.query_params["flag"] in ("True", ["True"])
    app.session_state["drawn"] = False
    app.run()
    app.session_state["drawn"] = True
    assert app.run().session_state["on"] is True  # kept while the page was left
    reopened = linked_app(flag_script, flag="True")
    assert reopened.session_state["on"] is True and not reopened.toast
    assert reopened.toggle(key="flag").set_value(False).run().session_state["on"] is False
    assert "flag" not in reopened.query_params
    odd = linked_app(flag_script, flag="yes")
    assert odd.session_state["on"] is False and odd.session_state["address_ignored"] == ["flag"]
