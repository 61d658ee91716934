"""The math is importable without Dash: a notebook, a script or the trainer child needs numpy only."""

import subprocess
import sys

from tests.conftest import ROOT


def test_the_math_imports_without_dash():
    # None in sys.modules makes any `import dash` (or plotly, flask) raise ImportError
    code = ("import sys; sys.modules.update(dash=None, plotly=None, flask=None); "
            "import dashboard.attention, dashboard.training, dashboard.trainer")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True)


def test_limits_loads_only_the_cores_constants():
    """limits is a leaf: the bug names, checks and training steps come from dashboard/constants.py, so importing
    it loads none of bugs, checks, training or backprop (issue 34, item 7)."""
    code = ("import sys, dashboard.limits; "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('dashboard'))))")
    loaded = set(subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True,
                                text=True).stdout.split())
    assert loaded == {"dashboard", "dashboard.limits", "dashboard.constants", "dashboard.attention",
                      "dashboard.steps", "dashboard.i18n"}


def test_the_constants_are_the_modules_own():
    from dashboard import bugs, checks, constants, limits, training

    assert list(constants.BUG_NAMES) == [bug.key for bug in bugs.BUGS] == list(limits.BUG_NAMES)
    assert [bug.name for bug in bugs.BUGS] == list(constants.BUG_NAMES.values())
    assert checks.CHECKS is constants.CHECKS and checks.FAST_CHECKS == limits.FAST_CHECKS == constants.FAST_CHECKS
    assert training.TRAINING_STEPS == constants.TRAINING_STEPS == limits.SNAPSHOT_STEPS[-1]


def test_the_explorer_and_class_mode_import_only_what_they_share():
    """Explorer and class mode live apart: neither package imports the other. What both need (the class questions,
    the join code's rule) lives in a shared module, dashboard/questions.py or dashboard/limits.py."""
    import ast

    for package, other in (("explorer", "classmode"), ("classmode", "explorer")):
        for path in sorted((ROOT / "dashboard" / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
                    [node.module or "", *(alias.name for alias in node.names)] if isinstance(node, ast.ImportFrom) else []
                assert not any(other in name.split(".") for name in names), (path.name, names)
