"""One meaning per name across the package (issue 34): a module-level constant or class that two modules of
dashboard/ define means the same thing in both, and an import never gives a constant a second name."""

import ast
import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONSTANT = re.compile(r"[A-Z][A-Z0-9_]*")
# A name each module defines for itself, with one meaning and its own value: the module's URL parameters, its
# recorded callbacks, the store its views read.
PER_MODULE = {"URL_PARAMS", "CALLBACKS", "MODEL_STORE"}
# The explorer and class mode are two pages: a component id may have one name on both (HEADS is the h control of
# each), one module of each page defining it.
APPS = ("dashboard.explorer", "dashboard.classmode")


def modules():
    for path in sorted((ROOT / "dashboard").rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        yield name, ast.parse(path.read_text(encoding="utf-8"))


def names(target) -> list[str]:
    """The names an assignment's target binds, tuples unpacked."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for t in target.elts for n in names(t)]
    return []


def definitions() -> dict[str, dict[str, object]]:
    """{NAME: {module: value}} of every module-level UPPER_CASE name a module assigns, and of every class (its
    value the class itself)."""
    found = {}
    for module, tree in modules():
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                bound = [node.name]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                bound = [n for t in targets for n in names(t) if CONSTANT.fullmatch(n)]
            else:
                continue
            for name in bound:
                found.setdefault(name, {})[module] = getattr(importlib.import_module(module), name)
    return found


def same_meaning(where: dict[str, object]) -> bool:
    """Every module that defines the name gives it one value, or a class and the classes that specialise it, or
    it is the id of a component of each page."""
    values = list(where.values())
    if all(isinstance(v, type) for v in values):
        return all(issubclass(v, values[0]) or issubclass(values[0], v) for v in values)
    apps = [next((app for app in APPS if m.startswith(app + ".") or m == app), None) for m in where]
    if sorted(map(str, apps)) == sorted(APPS) and all(isinstance(v, str) for v in values):
        return True
    return len({repr(v) for v in values}) == 1


def test_one_meaning_per_name():
    found = definitions()
    assert len(found) > 400 and found["SEL_HEAD"] == {"dashboard.explorer.ids": "sel-head"}  # it sees the package
    assert found["HEADS"] == {"dashboard.explorer.ids": "heads", "dashboard.classmode.ids": "class-heads"}  # tuples
    differ = {name: sorted(where) for name, where in found.items()
              if name not in PER_MODULE and len(where) > 1 and not same_meaning(where)}
    assert differ == {}


def test_no_import_renames_a_constant():
    """`from .constants import TRAINING_STEPS as STEPS` gave one number two names (and STEPS a second meaning)."""
    renamed = [f"{module}: {a.name} as {a.asname}" for module, tree in modules() for node in tree.body
               if isinstance(node, ast.ImportFrom) for a in node.names
               if a.asname and CONSTANT.fullmatch(a.name) and a.asname != a.name]
    assert renamed == []


def test_the_model_is_a_named_result():
    from dashboard.state import Model, Setting, model

    m = model(Setting(2, 0))
    assert isinstance(m, Model) and m.result.A.shape == (2, 12, 12) and m.example.X.shape == (12, 8)
