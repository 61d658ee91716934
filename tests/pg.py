"""A throwaway PostgreSQL server from Debian's packages, on a free port of 127.0.0.1.

initdb makes a cluster in a temporary folder, pg_ctl starts it and stops it at the end, and the
folder is removed; `pg_ctl(url, "restart")` restarts a running one (or stops or starts it), as an
administrator would. PostgreSQL refuses to run as root, so as root the server runs as the
`postgres` user that Debian's package creates.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

from tests.conftest import free_port

_servers: dict[str, tuple[Path, Path, str | None, str, Path]] = {}  # url: (bin, data, user, options, folder)


def pg_bin() -> Path:
    """The newest PostgreSQL that Debian's packages installed (15 on bookworm)."""
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if not versions:
        raise RuntimeError("PostgreSQL is not installed: run `make system-deps` (Debian's postgresql)")
    return versions[-1].parent


def _run(args: list[str], user: str | None, check: bool = True) -> None:
    cmd = ["runuser", "-u", user, "--"] + args if user else args
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=60)
    if check and done.returncode:
        raise RuntimeError(f"{' '.join(args[:2])} failed: {done.stderr[-2000:]}")


@contextmanager
def postgres_server(fsync: bool = True):
    """Yields the URL of a new server's `postgres` database (user postgres, trusted on loopback)."""
    user = "postgres" if os.geteuid() == 0 else None
    pg = pg_bin()
    folder = Path(tempfile.mkdtemp(prefix="explorer-pg-"))
    data = folder / "data"
    if user:
        shutil.chown(folder, user)
    port = free_port()
    options = f"-h 127.0.0.1 -p {port} -k {folder} -c max_connections=300" + ("" if fsync else " -c fsync=off")
    try:
        _run([str(pg / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8"], user)
        try:
            _run([str(pg / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w",
                  "start"], user)
            url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
            _servers[url] = (pg, data, user, options, folder)
            yield url
        finally:  # also after a start that failed half-way; nothing to stop is no error here
            _servers.pop(f"postgresql://postgres@127.0.0.1:{port}/postgres", None)
            _run([str(pg / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"], user, check=False)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def pg_ctl(url: str, action: str) -> None:
    """Restart ("-m fast": every connection is dropped), stop or start the server postgres_server() runs at
    `url` (or at a database of it); waits until it has done so."""
    pg, data, user, options, folder = _servers[url.rsplit("/", 1)[0] + "/postgres"]
    mode = ["-m", "fast"] if action in ("restart", "stop") else []
    _run([str(pg / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(folder / "log"), *mode, "-w", action], user)
