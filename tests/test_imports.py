"""The math is importable without Dash: a notebook, a script or the trainer child needs numpy only."""

import subprocess
import sys

from tests.conftest import ROOT


def test_the_math_imports_without_dash():
    # None in sys.modules makes any `import dash` (or plotly, flask) raise ImportError
    code = ("import sys; sys.modules.update(dash=None, plotly=None, flask=None); "
            "import dashboard.attention, dashboard.training, dashboard.trainer")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True)
