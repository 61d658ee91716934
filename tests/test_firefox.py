"""A second engine: the app in Debian's firefox-esr (Gecko), driven by puppeteer-core over WebDriver BiDi
(tests/firefox/, npm: `make node-tools`), under xvfb so WebGL is there (headless Firefox with no display has
none). The smoke suite walks every tab, a change of h, a cell's drill-down, the cube's head buttons, the keys
and the language switch; class mode runs with the lecturer in Chromium and two students in Firefox."""

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "tests" / "firefox"
FIREFOX = "/usr/bin/firefox-esr"


def node_env(app_url: str) -> dict:
    for need in (FIREFOX, shutil.which("xvfb-run"), ROOT / "tests/node/node_modules/puppeteer-core"):
        if not need or not Path(need).exists():
            pytest.fail(f"{need or 'xvfb-run'} is missing: run `make system-deps node-tools`")
    return {**os.environ, "APP_URL": app_url, "FIREFOX": FIREFOX, "PUPPETEER_SKIP_DOWNLOAD": "1"}


def spawn(cmd: list[str], env: dict, out) -> subprocess.Popen:
    """`cmd` on a display of its own (xvfb-run -a: a free one, so two xdist workers do not meet), in its own
    process group, so that `end` stops xvfb-run, Xvfb, node and Firefox together."""
    return subprocess.Popen(["xvfb-run", "-a", *cmd], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)


def end(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def run(cmd: list[str], env: dict, timeout: float) -> str:
    """Run `cmd` to its end (or stop it after `timeout` s); its output, and its exit status last."""
    with tempfile.TemporaryFile("w+") as out:
        proc = spawn(cmd, env, out)
        try:
            proc.wait(timeout=timeout)
        finally:
            end(proc)
        out.seek(0)
        return out.read() + f"\nexit status {proc.returncode}"


def test_the_firefox_smoke_suite_passes(app_url):
    said = run(["node", "--test", "--test-reporter=tap", str(SUITE)], node_env(app_url), timeout=180)
    assert said.endswith("exit status 0"), said[-8000:]
    tests = sum(len(re.findall(r"^test\(", f.read_text(), re.M)) for f in SUITE.glob("*.test.js"))
    assert tests >= 7 and "# fail 0" in said and f"# pass {tests}\n" in said, said[-3000:]


def test_a_class_session_with_the_lecturer_in_chromium_and_students_in_firefox(browser, app_url):
    lecturer = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
    errors = []
    lecturer.on("console", lambda m: m.type == "error" and errors.append(m.text))
    lecturer.on("pageerror", lambda e: errors.append(str(e)))
    lecturer.goto(app_url + "/class")
    lecturer.get_by_role("button", name="start a session").click()
    lecturer.wait_for_selector("#class-qr[src^='data:image/svg+xml']")
    join = lecturer.inner_text("#class-join")
    assert join.startswith(app_url + "/class/")
    lecturer.get_by_role("button", name="pose question").click()
    lecturer.wait_for_selector("#class-prompt:has-text('attend to most?')")

    log = tempfile.TemporaryFile("w+")  # noqa: SIM115 (read and closed below)
    students = spawn(["node", str(SUITE / "students.js"), join], node_env(app_url), log)
    try:
        lecturer.wait_for_selector("#class-count:has-text('2 joined · 2 answered vote 1')", timeout=60_000)
        lecturer.get_by_role("button", name="reveal").click()
        results = lecturer.wait_for_selector("#class-results:has-text('of 2 answers right')").inner_text()
        students.wait(timeout=60)
    except Exception as e:
        log.seek(0)
        e.add_note("the students said: " + log.read()[-4000:])
        raise
    finally:
        end(students)
        log.seek(0)
        said = log.read()
        log.close()
    assert students.returncode == 0, said[-4000:]
    answered = [line.split(" ", 2)[2] for line in said.splitlines() if line.startswith("answered ")]
    assert len(answered) == 2 and answered[0] != answered[1], said
    revealed = [json.loads(line.split(" ", 2)[2]) for line in said.splitlines() if line.startswith("revealed ")]
    assert len(revealed) == 2, said
    right = sum("Well predicted!" in text for text in revealed)  # the projector counts what the phones say
    assert f": {right} of 2 answers right" in results, (results, revealed)  # "The class: 0 of 2 …"
    assert errors == []
    lecturer.context.close()
