// The explorer in Firefox (Gecko), as a student uses it: labels clicked with the mouse, keys pressed on the page.
// Run by tests/test_firefox.py (`xvfb-run -a node --test tests/firefox/`, APP_URL set to the running app).
const test = require("node:test");
const assert = require("node:assert");
const { APP_URL, launch, open, waitFor, readTab, clickText, urlParam, frames } = require("./firefox.js");

// The tab bar's labels as a student reads them at 1280 px, and the section each shows.
const TABS = [["Worked example", "example"], ["Single vs multi-head", "mixing"], ["Equivariance", "equivariance"],
  ["Learning", "learning"], ["Bug clinic", "clinic"]];

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { if (browser) await browser.close(); });

// Each test's page: closed at the end, and its console errors reported there (a test that has none asserts it).
async function withPage(t, fn, width, height) {
  const page = await open(browser, width, height);
  try {
    await fn(page);
    assert.deepStrictEqual(page.errors, [], "console errors or uncaught exceptions");
  } finally {
    await page.browserContext().close();
  }
}

// The per-head heatmaps' subplots on screen: [x, y, width, height] of each head's plotting area.
function heads(page) {
  return page.evaluate(() => {
    const gd = document.querySelector("#heatmaps .js-plotly-plot");
    gd.scrollIntoView({ block: "center" });
    return Array.from(gd.querySelectorAll(".nsewdrag")).map((e) => {
      const b = e.getBoundingClientRect();
      return [b.x, b.y, b.width, b.height];
    });
  });
}

// Click the cell (query r, key j) of the first head's heatmap, with n tokens.
async function clickCell(page, r, j, n = 12) {
  const [[x, y, w, h]] = await heads(page);
  await frames(page);
  await page.mouse.click(x + ((j + 0.5) / n) * w, y + ((r + 0.5) / n) * h);
}

test("every tab loads with no console error and every figure draws", async (t) => {
  await withPage(t, async (page) => {
    await page.goto(APP_URL + "/");
    for (const [label, tab] of TABS) {
      await clickText(page, "#tab", label);
      const graphs = await readTab(page, tab);
      assert.ok(graphs >= 1, `${tab}: no graph`);
      assert.strictEqual(await page.evaluate((s) => document.getElementById(s).offsetParent !== null, `section-${tab}`),
        true, `${tab} not shown`);
    }
  });
});

test("number boxes are typed in: no spin arrows", async (t) => {
  await withPage(t, async (page) => {
    await page.goto(APP_URL + "/?tab=example");
    await readTab(page, "example");
    const looks = await page.evaluate(() => Array.from(document.querySelectorAll('input[type="number"]'))
      .filter((e) => e.getClientRects().length > 0).map((e) => getComputedStyle(e).appearance));
    assert.ok(looks.length >= 3, `number boxes: ${looks}`);  // the seed, the head, the query, the key
    assert.deepStrictEqual(looks, looks.map(() => "textfield"));
  });
});

test("a change of h redraws the heads, and a click on a cell opens its drill-down", async (t) => {
  await withPage(t, async (page) => {
    await page.goto(APP_URL + "/?tab=example");
    await readTab(page, "example");
    assert.strictEqual((await heads(page)).length, 4);
    await clickText(page, "nav", "8");
    await urlParam(page, "h", "8");
    await waitFor(page, () => document.querySelectorAll("#heatmaps .nsewdrag").length === 8);
    await readTab(page, "example");

    await clickCell(page, 5, 9);
    await urlParam(page, "query", "5");
    await urlParam(page, "key", "9");
    await waitFor(page, () => /x_5, x_9/.test(document.getElementById("drilldown").innerText));
  });
});

test("the cube's head buttons bring a head's plane forward", async (t) => {
  await withPage(t, async (page) => {
    await page.goto(APP_URL + "/?tab=example");
    await readTab(page, "example");
    const opacities = () => page.evaluate(() => document.querySelector("#cube .js-plotly-plot").data.map((d) => d.opacity));
    const before = await opacities();
    assert.strictEqual(new Set(before).size, 1, `all planes alike at first: ${before}`);
    await clickText(page, "main", "head 3", { near: "#cube" });
    await waitFor(page, () => {
      const o = document.querySelector("#cube .js-plotly-plot").data.map((d) => d.opacity);
      return o[2] > Math.max(o[0], o[1], o[3]);
    });
    await clickText(page, "main", "all", { near: "#cube" });
    await waitFor(page, () => new Set(document.querySelector("#cube .js-plotly-plot").data.map((d) => d.opacity)).size === 1);
  });
});

test("the keys: 8 sets h, → the next head, P presents the figure, Esc leaves", async (t) => {
  await withPage(t, async (page) => {
    await page.goto(APP_URL + "/?tab=example");
    await readTab(page, "example");
    await clickCell(page, 2, 3);  // the last click was on a figure
    await urlParam(page, "query", "2");
    await page.keyboard.press("8");
    await urlParam(page, "h", "8");
    await waitFor(page, () => document.querySelectorAll("#heatmaps .nsewdrag").length === 8);
    await page.keyboard.press("ArrowRight");
    await urlParam(page, "head", "2");
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("ArrowLeft");
    await urlParam(page, "head", "8");  // round the end
    await page.keyboard.press("p");
    await waitFor(page, () => document.documentElement.classList.contains("presenting"));
    await page.keyboard.press("Escape");
    await waitFor(page, () => !document.documentElement.classList.contains("presenting"));
  });
});

test("the language switch shows the page in Spanish, in the same setting", async (t) => {
  await withPage(t, async (page) => {
    await page.goto(APP_URL + "/?tab=mixing&h=2");
    await readTab(page, "mixing");
    await Promise.all([page.waitForNavigation(), page.select("nav select", "es")]);
    await waitFor(page, () => document.documentElement.lang === "es");
    await urlParam(page, "h", "2");
    await readTab(page, "mixing");
    await clickText(page, "#tab", "Ejemplo resuelto");
    await readTab(page, "example");
  });
});
