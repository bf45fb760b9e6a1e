"""Links a hostile run opened (issue 67): a many-choice naming only what is no option falls back to its default
with one sentence on the pages that stopped or drew nothing; a link of more than 1,000 parameters, which Streamlit
reads none of, is said in one sentence."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.session import LINK_PARAMETER_LIMIT
from dashboard.sidebar import DEFAULTS
from tests.conftest import ROOT

APP_TIMEOUT = 180
IGNORED = "Part of this link does not fit the data loaded here or the settings' ranges"


def linked(page: str | None = None, **parameters) -> AppTest:
    """A new session opening the app (at ``page``) at an address with ``parameters``."""
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=APP_TIMEOUT)
    for name, value in parameters.items():
        app.query_params[name] = value
    app.run()
    if page is not None:
        app.switch_page(page)
        app.run()
    return app


def test_a_link_of_more_parameters_than_streamlit_reads_is_said_in_one_sentence():
    """Was silent: Streamlit drops the whole query of a link of over 1,000 parameters (logging a warning only), so the
    view opened at its defaults, as if the link had said nothing."""
    parameters = {f"p{i}": "1" for i in range(LINK_PARAMETER_LIMIT)} | {"alpha": "0.3"}
    app = linked(**parameters)
    assert not app.exception and app.session_state["alpha"] == DEFAULTS["alpha"]
    assert [toast.value for toast in app.toast] == [
        f"This link holds {LINK_PARAMETER_LIMIT + 1:,} parameters, more than the {LINK_PARAMETER_LIMIT:,} Streamlit "
        "reads, so none of its choices were read; the default view is shown instead."]
    app.run()  # said once
    assert not app.toast
    within = linked(**{f"p{i}": "1" for i in range(LINK_PARAMETER_LIMIT - 1)} | {"alpha": "0.3"})
    assert within.session_state["alpha"] == 0.3 and not within.toast


@pytest.mark.slow
def test_per_query_with_only_unknown_systems_draws_its_default_systems_and_says_so():
    app = linked("pages/per_query.py", pq_systems="nope")
    assert not app.exception
    assert app.session_state["pq_systems"] == linked("pages/per_query.py").session_state["pq_systems"]
    assert len(app.session_state["pq_systems"]) == 3
    assert any(toast.value.startswith(IGNORED + " (pq_systems)") for toast in app.toast)


@pytest.mark.slow
def test_ablation_with_only_unknown_metrics_draws_its_default_grid_and_says_so():
    app = linked("pages/ablation.py", ablation_metrics="<script>")
    assert not app.exception
    assert app.session_state["ablation_metrics"] and app.subheader
    assert any(toast.value.startswith(IGNORED + " (ablation_metrics)") for toast in app.toast)


@pytest.mark.parametrize("setting, value", [("alpha", "٠.٣"), ("alpha", "0_3"), ("n", "٢"), ("n", "2_0"),
                                            ("ks", "5,١٠"), ("ks", "1_0"), ("measure_w1", "٠.٢٥")])
def test_a_number_in_other_digits_or_with_underscores_is_no_setting_of_a_link(setting, value):
    """Were read as numbers (issue 67): int() and float() read other scripts' digits and underscores; a link's
    numbers are ASCII decimals, as the command line's and the files'."""
    app = linked(**{setting: value})
    assert not app.exception
    assert setting not in DEFAULTS or app.session_state[setting] == DEFAULTS[setting]
    assert [toast.value for toast in app.toast] == [f"{IGNORED} ({setting}); the nearest view is shown instead."]
