"""Multi-Head Attention Explorer: the seed notebook as an interactive Dash dashboard."""

from pathlib import Path

from dash import Dash

ASSETS = Path(__file__).resolve().parent.parent / "assets"


def create_app() -> Dash:
    """The Dash app: layout, callbacks, and the assets folder served from this machine only."""
    from . import callbacks, layout, server

    app = Dash(
        __name__,
        assets_folder=str(ASSETS),
        title="Multi-head attention explorer",
        update_title=None,
        serve_locally=True,
        compress=False,  # server.harden sets up flask-compress with gzip for streamed files too
    )
    app.layout = layout.make_layout()
    callbacks.register(app)
    callbacks.precompute_defaults()
    server.harden(app)
    return app
