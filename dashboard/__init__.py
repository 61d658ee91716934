"""Multi-Head Attention Explorer: the seed notebook as an interactive Dash dashboard.

Importing the package loads nothing heavy: `dashboard.attention` and `dashboard.training` need numpy only.
"""

from pathlib import Path

ASSETS = Path(__file__).resolve().parent.parent / "assets"


def create_app():
    """The Dash app: layout, callbacks, and the assets folder served from this machine only."""
    from dash import Dash

    from . import server, views, wiring
    from .views import learning

    app = Dash(
        __name__,
        assets_folder=str(ASSETS),
        title="Multi-head attention explorer",
        update_title=None,
        serve_locally=True,
        compress=False,  # server.harden sets up flask-compress with gzip for streamed files too
    )
    app.index_string = app.index_string.replace("<html>", '<html lang="en">', 1)
    app.layout = views.make_layout()
    wiring.wire(app)
    learning.precompute_defaults()
    server.harden(app)
    return app
