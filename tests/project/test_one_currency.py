"""One currency below the doors: docs/ARCHITECTURE.md's rule that strings are parsed once, at the doors (the CLI, the
API, the dashboard's sidebar), and that below them a relevance setting travels as a
:class:`~evalcore.relevance.measures.MeasureSpec` (or the :class:`~evalcore.evaluation.options.Relevance` option),
never as its text and never as a loose ``alpha, n`` pair.

The check reads every module of evalcore but the doors: no public function or method takes a parameter annotated
``MeasureSpec | str`` (in either order, with or without ``None``, alone or inside another type), or both a
parameter ``alpha`` and a parameter ``n``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "evalcore"

#: The doors, where text and loose values arrive and are turned into specs and options.
DOORS = ("evalcore/api.py", "evalcore/__main__.py", "evalcore/cli/")

#: Functions allowed a loose ``alpha, n`` pair, by module and qualified name, with the reason.
LOOSE_PAIR_ALLOWED: dict[tuple[str, str], str] = {
    # The builders of the currency: the doors hand them the loose values they read, and they validate them once.
    ("evalcore/relevance/measures.py", "nn_iou_measure"): "builds an nn-IoU MeasureSpec from the doors' alpha and n",
    ("evalcore/evaluation/options.py", "Relevance.of"): "builds the Relevance option from the doors' alpha and n",
}
#: relevance/formulas.py holds the definitions a spec's value function calls: they take numbers, not a spec (a
#: spec is made of them, not the other way round). Allowed by name, so that a new function there is looked at.
FORMULAS = {"check_alpha", "check_hop_weights", "iou", "nn_iou", "nn_iou_from_counts", "approximate_matches",
            "dice", "nn_tversky", "nn_tversky_from_counts", "nn_iou_hops", "nn_iou_hops_from_counts", "nn_iou_depth",
            "nn_iou_depth_from_counts"}


def below_the_doors() -> list[Path]:
    return [path for path in sorted(PACKAGE.rglob("*.py"))
            if not path.relative_to(ROOT).as_posix().startswith(DOORS)]


def union_members(annotation: ast.expr | None) -> set[str]:
    """The members of an annotation written ``A | B | ...`` (a string annotation read as code), as text."""
    if annotation is None:
        return set()
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return union_members(ast.parse(annotation.value, mode="eval").body)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return union_members(annotation.left) | union_members(annotation.right)
    if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) in ("Union", "typing.Union", "Optional"):
        inner = annotation.slice
        members = inner.elts if isinstance(inner, ast.Tuple) else [inner]
        return set().union(*(union_members(member) for member in members))
    return {ast.unparse(annotation)}


def takes_text_or_spec(annotation: ast.expr | None) -> bool:
    """Whether a union of MeasureSpec and str appears anywhere in the annotation (``Sequence[MeasureSpec | str]``)."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        annotation = ast.parse(annotation.value, mode="eval").body
    return any({"MeasureSpec", "str"} <= union_members(node) for node in ast.walk(annotation)
               if isinstance(node, (ast.BinOp, ast.Subscript)))


def public_functions(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(qualified name, node) of the module's public functions and the public methods of its public classes."""
    def public(name: str) -> bool:
        return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))

    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and public(node.name):
            found.append((node.name, node))
        elif isinstance(node, ast.ClassDef) and public(node.name):
            found += [(f"{node.name}.{item.name}", item) for item in node.body
                      if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and public(item.name)]
    return found


def parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    arguments = function.args
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]


def violations(path: Path, tree: ast.Module) -> list[str]:
    module = path.relative_to(ROOT).as_posix()
    found = []
    for name, function in public_functions(tree):
        where = f"{module}:{function.lineno} {name}"
        for parameter in parameters(function):
            if takes_text_or_spec(parameter.annotation):
                found.append(f"{where}: {parameter.arg} is annotated {ast.unparse(parameter.annotation)}; take a "
                             "MeasureSpec and let the door parse the text")
        names = {parameter.arg for parameter in parameters(function)}
        allowed = (module, name) in LOOSE_PAIR_ALLOWED or (module == "evalcore/relevance/formulas.py" and name in FORMULAS)
        if {"alpha", "n"} <= names and not allowed:
            found.append(f"{where}: takes a loose alpha, n pair; take a MeasureSpec (or the Relevance option)")
    return found


@pytest.mark.parametrize("path", below_the_doors(), ids=lambda path: path.relative_to(ROOT).as_posix())
def test_no_function_below_the_doors_takes_a_measure_as_text_or_a_loose_alpha_n(path):
    found = violations(path, ast.parse(path.read_text(encoding="utf-8"), str(path)))
    assert not found, "\n".join(found)


def test_the_allowed_functions_still_exist():
    """An exception that names a function no longer there is dropped, not kept as a blind spot."""
    defined = {(path.relative_to(ROOT).as_posix(), name) for path in below_the_doors()
               for name, _ in public_functions(ast.parse(path.read_text(encoding="utf-8")))}
    assert set(LOOSE_PAIR_ALLOWED) <= defined, set(LOOSE_PAIR_ALLOWED) - defined
    formulas = {name for module, name in defined if module == "evalcore/relevance/formulas.py"}
    assert FORMULAS <= formulas, FORMULAS - formulas


def test_the_check_sees_text_and_a_loose_pair():
    source = '''
class Engine:
    def rank(self, measure: MeasureSpec | str | None, k: int): ...
    def _private(self, measure: str | MeasureSpec): ...
def ranking(evaluator, alpha: float, n: int): ...
def fine(measure: "Optional[MeasureSpec]", text: str): ...
def quoted(measure: "Union[str, MeasureSpec]"): ...
def many(measures: Sequence[MeasureSpec | str]): ...
'''
    found = violations(ROOT / "evalcore" / "probe.py", ast.parse(source))
    assert [line.split(":")[1].split()[1] for line in found] == ["Engine.rank", "ranking", "quoted", "many"], found
