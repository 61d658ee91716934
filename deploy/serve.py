"""The class deployment: `make serve`, or `python deploy/serve.py [--host 0.0.0.0] [--port 8050]`.

nginx listens for the class and hands complete requests to gunicorn on 127.0.0.1 (deploy/nginx.conf
says why). gunicorn alone would give each slow or unfinished request one of its 2 x 4 threads, and
16 such sockets stopped it. The two start and stop together: on Ctrl-C or SIGTERM, when either
exits, and when this process dies (the kernel sends them SIGTERM); every process has gone within
5 s of any of these. A run folder left by a serve.py that was killed is removed at the next start.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NGINX = "/usr/sbin/nginx"
# One worker per core, threads to overlap a request's compute with another's I/O, the app loaded once;
# no control socket, whose one default path two servers on a machine would share.
# A stop gives requests in flight 2 s (gunicorn's default, 30 s, kept workers alive long after the server stopped).
GUNICORN = ("gunicorn --workers 2 --threads 4 --preload --no-control-socket --graceful-timeout 2"
            " --config deploy/gunicorn_conf.py --bind 127.0.0.1:{port} {module}")
PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """In a child between fork and exec: SIGTERM when this script's process dies, even by SIGKILL."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def launch(cmd: list[str]) -> subprocess.Popen:
    return subprocess.Popen(cmd, cwd=ROOT, preexec_fn=die_with_parent)


def wait_for(url: str, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except urllib.error.HTTPError:  # it answers: a 503 says a part is down (the page says which)
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


RUN_PREFIX = "explorer-nginx-"  # nginx's run folder: its configuration, pid file, buffers and cache
OWNER = "serve.pid"  # in the run folder: the serve.py it belongs to


def alive(pid_file: Path) -> bool:
    try:
        os.kill(int(pid_file.read_text().strip()), 0)
    except (OSError, ValueError):
        return False
    return True


def remove_leftovers(tmp: Path = Path(tempfile.gettempdir())) -> None:
    """Run folders of a serve.py that died without cleaning up (a SIGKILL): removed at the next start. A folder
    whose serve.py or nginx still runs is another deployment's, and stays."""
    for run in tmp.glob(RUN_PREFIX + "*"):
        try:
            fresh = time.time() - run.stat().st_mtime < 60
        except OSError:
            continue
        if not (alive(run / OWNER) or alive(run / "nginx.pid") or (fresh and not (run / OWNER).exists())):
            shutil.rmtree(run, ignore_errors=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="0.0.0.0", help="address nginx listens on (default 0.0.0.0)")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", 8050)),
                        help="port nginx listens on (default $PORT or 8050)")
    parser.add_argument("--app-port", type=int, help="gunicorn's port on 127.0.0.1 (default: --port + 1)")
    args = parser.parse_args(argv)
    app_port = args.app_port or args.port + 1

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: sys.exit(0))
    remove_leftovers()
    run = Path(tempfile.mkdtemp(prefix=RUN_PREFIX))
    procs = []
    try:
        (run / OWNER).write_text(str(os.getpid()))
        run.chmod(0o755)  # nginx's workers run as nobody and keep their buffers here
        conf = run / "nginx.conf"
        conf.write_text((ROOT / "deploy/nginx.conf").read_text() % {
            "run": run, "host": args.host, "port": args.port, "app_port": app_port})
        procs.append(launch([sys.executable, "-m"] + shlex.split(GUNICORN.format(port=app_port, module="app:server"))))
        wait_for(f"http://127.0.0.1:{app_port}/healthz", procs[0])
        procs.append(launch([NGINX, "-p", str(run), "-e", "stderr", "-c", str(conf), "-g", "daemon off;"]))
        print(f"serving the class on http://{args.host}:{args.port} (gunicorn on 127.0.0.1:{app_port})", flush=True)
        os.wait()  # until nginx or gunicorn exits, or a signal arrives
        return 1
    finally:
        for proc in reversed(procs):
            stop(proc)
        shutil.rmtree(run, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
