"""evalcore/resources.py: the shipped files (app.py, pages/, data/) are found beside evalcore/ in a checkout and in
evalcore/_dashboard inside an installed wheel (tests/project/test_package.py installs one)."""

from __future__ import annotations

from evalcore import resources
from evalcore.resources import demo_path, project_root
from tests.conftest import ROOT


def test_a_checkout_is_its_own_root():
    assert not (resources.INSTALLED_ROOT / "app.py").exists()  # the checkout has no copy inside the package
    assert project_root() == ROOT
    assert demo_path("runs", "near-random.trec") == ROOT / "data" / "demo" / "runs" / "near-random.trec"
    assert demo_path("runs", "near-random.trec").is_file()


def test_an_installed_copy_of_the_dashboard_is_the_root(tmp_path, monkeypatch):
    (tmp_path / "app.py").write_text("")
    monkeypatch.setattr(resources, "INSTALLED_ROOT", tmp_path)
    assert project_root() == tmp_path
    assert demo_path("concepts.csv") == tmp_path / "data" / "demo" / "concepts.csv"


def test_a_folder_without_app_py_is_no_installed_copy(tmp_path, monkeypatch):
    (tmp_path / "data").mkdir()  # a left-over folder of an old install, without the app
    monkeypatch.setattr(resources, "INSTALLED_ROOT", tmp_path)
    assert project_root() == ROOT
