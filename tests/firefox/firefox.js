// Debian's firefox-esr driven by puppeteer-core over WebDriver BiDi, and the waits a student's eye makes.
// Never a downloaded browser: puppeteer-core brings none, and PUPPETEER_SKIP_DOWNLOAD is set by the runner.
// Run under xvfb (`xvfb-run -a`): headless Firefox with no display has no WebGL, and the cube needs it.
// tests/test_firefox.py starts the app and runs this suite; APP_URL is the app's address.
const path = require("node:path");
const puppeteer = require(path.resolve(__dirname, "..", "node", "node_modules", "puppeteer-core"));

const FIREFOX = process.env.FIREFOX || "/usr/bin/firefox-esr";
const APP_URL = process.env.APP_URL || "http://127.0.0.1:8050";

function launch() {
  return puppeteer.launch({
    browser: "firefox",
    executablePath: FIREFOX,
    headless: false,  // on xvfb's display: WebGL is there, as on a student's screen
    extraPrefsFirefox: { "ui.prefersReducedMotion": 1, "browser.shell.checkDefaultBrowser": false },
  });
}

// A new page of the size given, in a context of its own (its own cookies and storage, as another person's
// browser); `page.errors` collects console errors and uncaught exceptions.
async function open(browser, width = 1280, height = 900) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport({ width, height });
  page.errors = [];
  page.on("console", (m) => m.type() === "error" && page.errors.push(`${m.text()} (${m.location().url || "?"})`));
  page.on("pageerror", (e) => page.errors.push(String(e && e.message ? e.message : e)));
  return page;
}

function waitFor(page, fn, arg, timeout = 30000) {
  return page.waitForFunction(fn, { timeout, polling: 100 }, arg);
}

// Two frames drawn: a scroll's check of which graphs came near the screen has run.
function frames(page) {
  return page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
}

// Every graph shown in the section has data and has painted it (an image, a trace or a WebGL canvas), and no graph
// is waiting on Dash or Plotly. A graph in a hidden box is not shown (the two settings while none is compared).
function drawn(section) {
  const plots = Array.from(document.querySelectorAll(`#${section} .js-plotly-plot`)).filter((gd) => !gd.closest("[hidden]"));
  const busy = window.store && window.store.getState().isLoading;
  return !busy && plots.length > 0 && plots.every((gd) => Array.isArray(gd.data) && gd.data.length > 0
    && !gd.closest(".dash-graph--pending")
    && gd.querySelector(".heatmaplayer image, .scatterlayer .trace path, .gl-container canvas"));
}

// Scroll down the shown tab and back, as a student reading it would (a figure draws as it comes near), then
// wait until every graph of the tab has drawn. Returns how many graphs there are.
async function readTab(page, tab) {
  await page.waitForSelector(`#section-${tab} .js-plotly-plot`);
  for (let y = 0; y < await page.evaluate(() => document.documentElement.scrollHeight); y += 450) {
    await page.evaluate((top) => window.scrollTo(0, top), y);
    await frames(page);
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  await waitFor(page, drawn, `section-${tab}`, 40000);
  return page.evaluate((s) => document.querySelectorAll(`#${s} .js-plotly-plot`).length, `section-${tab}`);
}

// Scroll the graph `id` to the middle of the screen, as a student looking at it, and wait until it has drawn
// and the page has no callback in flight.
async function lookAt(page, id) {
  await page.waitForSelector(`#${id} .js-plotly-plot`);
  await waitFor(page, (id) => {
    document.getElementById(id).scrollIntoView({ block: "center" });
    const gd = document.querySelector(`#${id} .js-plotly-plot`);
    const busy = window.store && window.store.getState().isLoading;  // a callback still on its way (Dash's flag)
    return !busy && Array.isArray(gd.data) && gd.data.length > 0 && !gd.closest(".dash-graph--pending")
      && gd.querySelector(".heatmaplayer image, .scatterlayer .trace path, .gl-container canvas") !== null;
  }, id, 40000);
}

// Click, with the mouse, the visible element under `scope` (a CSS selector) with a line of text `text` (a
// phone's short label sits beside the long one, which is only clipped for screen readers); of several,
// the one nearest to the element `near` (a CSS selector), as the eye picks the button beside a figure.
// It waits for that element to show.
async function clickText(page, scope, text, { tag = "label", near = null, timeout = 20000 } = {}) {
  const handle = await page.waitForFunction(([scope, text, tag, near]) => {
    const found = Array.from(document.querySelectorAll(`${scope} ${tag}`))
      .filter((e) => e.getClientRects().length > 0 && e.innerText.split("\n").some((line) => line.trim() === text));
    const anchor = near && document.querySelector(near);
    if (!anchor || found.length < 2) return found[0];
    const centre = (e) => { const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; };
    const [ax, ay] = centre(anchor);
    const distance = (e) => { const [x, y] = centre(e); return Math.hypot(x - ax, y - ay); };
    return found.sort((a, b) => distance(a) - distance(b))[0];
  }, { timeout, polling: 100 }, [scope, text, tag, near]).catch((e) => {
    throw new Error(`no visible ${tag} "${text}" in ${scope}: ${e.message}`);
  });
  const element = handle.asElement();
  await element.click();
  await handle.dispose();
}

// The value of a URL parameter the page wrote, once it is `want` (the page writes its URL a moment later).
async function urlParam(page, key, want, timeout = 10000) {
  try {
    await waitFor(page, ([key, want]) => new URLSearchParams(location.search).get(key) === want, [key, want], timeout);
  } catch (e) {
    throw new Error(`the URL never held ${key}=${want} in ${timeout} ms: ${await page.evaluate(() => location.search)}`);
  }
}

module.exports = { APP_URL, launch, open, waitFor, frames, drawn, readTab, lookAt, clickText, urlParam };
