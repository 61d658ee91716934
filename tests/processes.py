"""Resident memory of a process and of a gunicorn master's workers, for the hosting tests and the benches."""

import re
from pathlib import Path


def worker_rss_mib(master_pid: int) -> float:
    """Resident memory of the gunicorn master's workers together (their trainer children not counted)."""
    children = Path(f"/proc/{master_pid}/task/{master_pid}/children").read_text().split()
    return sum(rss_mib(int(pid)) for pid in children)


def rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024
