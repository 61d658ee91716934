"""gunicorn's hooks for the class deployment (GUNICORN in deploy/serve.py passes this file).

A worker that has finished its requests leaves at once: tearing down an interpreter that holds the preloaded app
(numpy arrays, Dash's layouts, the trained runs) took seconds of CPU on a busy 2-core machine, which kept
workers alive well after the server was told to stop. Nothing is lost: every answer is committed before its
reply, and a trainer child leaves with its worker.
"""

import os
import sys


def worker_exit(server, worker):
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
