"""The class deployment: `make serve`, or `python deploy/serve.py [--host 0.0.0.0] [--port 8050]`.

nginx listens for the class and hands complete requests to gunicorn on 127.0.0.1 (deploy/nginx.conf
says why). gunicorn alone would give each slow or unfinished request one of its 2 x 4 threads, and
16 such sockets stopped it. The two start and stop together: on Ctrl-C or SIGTERM, when either
exits, and when this process dies (the kernel sends them SIGTERM); every process has gone within
5 s of any of these. Each runs in a process group of its own, and a stop ends the whole group: nginx's
workers outlive a master that was killed, and would keep the port. A run folder left by a serve.py that was
killed is removed at the next start.
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
sys.path.insert(0, str(ROOT))
from dashboard.server import MAX_BODY, PROXIES_ENV  # noqa: E402 (the app's own body limit, for nginx's)

NGINX = "/usr/sbin/nginx"
WORKERS = 2  # gunicorn's, also in $WEB_CONCURRENCY for the app (its limits are per worker)
# One worker per core, threads to overlap a request's compute with another's I/O, the app loaded once;
# no control socket, whose one default path two servers on a machine would share.
# A stop gives requests in flight 2 s (gunicorn's default, 30 s, kept workers alive long after the server stopped).
GUNICORN = (f"gunicorn --workers {WORKERS} --threads 4 --preload --no-control-socket --graceful-timeout 2"
            " --config deploy/gunicorn_conf.py --bind 127.0.0.1:{port} {module}")
PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """In a child between fork and exec: SIGTERM when this script's process dies, even by SIGKILL."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def launch(cmd: list[str], env: dict | None = None) -> subprocess.Popen:
    """A child in a process group of its own (its pid), which takes its own children."""
    return subprocess.Popen(cmd, cwd=ROOT, preexec_fn=die_with_parent, process_group=0,
                            env=None if env is None else {**os.environ, **env})


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


def stop(proc: subprocess.Popen, group: bool = False) -> None:
    """Terminate, then kill after 10 s; with `group`, then kill what is left of its process group (launch()), such
    as the workers of an nginx master that was killed."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if group:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:  # the group has gone with its leader
            pass


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


def real_ip(proxies: str) -> str:
    """nginx's lines that believe X-Real-IP from the proxies in front of it ($TRUSTED_PROXIES: a TLS front on
    this machine, say); none by default, so a local process cannot pose as any number of clients."""
    trusted = [a.strip() for a in proxies.split(",") if a.strip()]
    if not all(a.replace(".", "").replace(":", "").replace("/", "").isalnum() for a in trusted):
        raise ValueError(f"{PROXIES_ENV}: addresses, separated by commas")
    return "".join(f"set_real_ip_from {a}; " for a in trusted) + ("real_ip_header X-Real-IP;" if trusted else "")


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
            "run": run, "host": args.host, "port": args.port, "app_port": app_port, "max_body": MAX_BODY - 1,
            "real_ip": real_ip(os.environ.get(PROXIES_ENV, ""))})
        procs.append(launch([sys.executable, "-m"] + shlex.split(GUNICORN.format(port=app_port, module="app:server")),
                            {"WEB_CONCURRENCY": str(WORKERS), PROXIES_ENV: "127.0.0.1"}))  # gunicorn trusts its nginx
        wait_for(f"http://127.0.0.1:{app_port}/healthz", procs[0])
        procs.append(launch([NGINX, "-p", str(run), "-e", "stderr", "-c", str(conf), "-g", "daemon off;"]))
        print(f"serving the class on http://{args.host}:{args.port} (gunicorn on 127.0.0.1:{app_port})", flush=True)
        os.wait()  # until nginx or gunicorn exits, or a signal arrives
        return 1
    finally:
        for proc in reversed(procs):
            stop(proc, group=True)
        shutil.rmtree(run, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
