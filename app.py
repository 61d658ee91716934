"""Start the Multi-Head Attention Explorer.

    python app.py                      # http://127.0.0.1:8050, debug off
    python app.py --host 0.0.0.0 --port 9000
    make serve                         # the class deployment: see README, "Hosting for a class"
"""

import argparse
import os

from dashboard import create_app

# The trainer child (multiprocessing spawn) re-runs this file as __mp_main__: it needs no app.
if __name__ != "__mp_main__":
    app = create_app()
    server = app.server


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", 8050)),
                        help="port (default $PORT or 8050)")
    parser.add_argument("--debug", action="store_true",
                        help="Dash dev tools and reloader; never on a shared network")
    args = parser.parse_args(argv)
    app.run(host=args.host, port=args.port, debug=args.debug)


if __name__ == "__main__":
    main()
