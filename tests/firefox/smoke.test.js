// The explorer in Firefox (Gecko), as a student uses it: labels clicked with the mouse, keys pressed on the page.
// Run by tests/test_firefox.py (`xvfb-run -a node --test tests/firefox/`, APP_URL set to the running app).
const test = require("node:test");
const assert = require("node:assert");
const { APP_URL, launch, open, waitFor, readTab, lookAt, clickText, urlParam, frames } = require("./firefox.js");

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
      if (tab === "example") {  // number boxes are typed in: no spin arrows (Gecko draws them over the digits)
        const looks = await page.evaluate(() => Array.from(document.querySelectorAll('input[type="number"]'))
          .filter((e) => e.getClientRects().length > 0).map((e) => getComputedStyle(e).appearance));
        assert.ok(looks.length >= 3, `number boxes: ${looks}`);  // the seed, the head, the query, the key
        assert.deepStrictEqual(looks, looks.map(() => "textfield"), "number boxes' appearance");
      }
    }
  });
});

// Inline formulas followed by punctuation whose punctuation starts a new line: the formula's TeX and the text.
function strandedPunctuation() {
  const found = [];
  for (const img of document.querySelectorAll(".prose img.formula")) {
    const next = img.parentElement.nextSibling && img.parentElement.classList.contains("math-inline")
      ? img.parentElement.nextSibling : img.nextSibling;
    const after = next && next.nodeType === Node.TEXT_NODE ? next
      : next && next.firstChild && next.firstChild.nodeType === Node.TEXT_NODE ? next.firstChild : null;
    if (!after || !/^[,.;:!?)，。；：）]/.test(after.data) || img.getClientRects().length === 0) continue;
    const range = document.createRange();
    range.setStart(after, 0);
    range.setEnd(after, 1);
    const mark = range.getBoundingClientRect();
    const box = img.getBoundingClientRect();
    if (mark.top >= box.bottom - 1) found.push(`${img.alt} ${after.data.slice(0, 20)}`);
  }
  return found;
}

test("no line starts with the punctuation after an inline formula", async (t) => {
  const phone = ["Example", "Mixing", "Equivariance"];
  for (const width of [390, 1280]) {
    await withPage(t, async (page) => {
      await page.goto(APP_URL + "/?tab=example");
      for (const [i, tab] of ["example", "mixing", "equivariance"].entries()) {
        await clickText(page, "#tab", width < 576 ? phone[i] : TABS[i][0]);
        await page.waitForSelector(`#section-${tab} .prose img.formula`, { visible: true });
        await frames(page);
        assert.deepStrictEqual(await page.evaluate(strandedPunctuation), [], `${tab} at ${width} px`);
      }
    }, width, 900);
  }
});

test("a change of h, a cell's drill-down, and the cube's head buttons", async (t) => {
  await withPage(t, async (page) => {
    await page.goto(APP_URL + "/?tab=example");
    await lookAt(page, "heatmaps");
    assert.strictEqual((await heads(page)).length, 4);
    await clickText(page, "nav", "8");
    await urlParam(page, "h", "8");
    await waitFor(page, () => document.querySelectorAll("#heatmaps .nsewdrag").length === 8);
    await lookAt(page, "heatmaps");

    await clickCell(page, 5, 9);
    await urlParam(page, "query", "5");
    await urlParam(page, "key", "9");
    await waitFor(page, () => /x_5, x_9/.test(document.getElementById("drilldown").innerText));

    await lookAt(page, "cube");
    const opacities = () => page.evaluate(() => document.querySelector("#cube .js-plotly-plot").data.map((d) => d.opacity));
    const before = await opacities();
    assert.strictEqual(before.length, 8);
    assert.strictEqual(new Set(before).size, 1, `all planes alike at first: ${before}`);
    await clickText(page, "main", "head 3", { near: "#cube" });
    await waitFor(page, () => {
      const o = document.querySelector("#cube .js-plotly-plot").data.map((d) => d.opacity);
      return o[2] > Math.max(...o.filter((_, i) => i !== 2));
    });
    await clickText(page, "main", "all", { near: "#cube" });
    await waitFor(page, () => new Set(document.querySelector("#cube .js-plotly-plot").data.map((d) => d.opacity)).size === 1);
  });
});

test("the keys: 8 sets h, → the next head, P presents the figure, Esc leaves", async (t) => {
  await withPage(t, async (page) => {
    await page.goto(APP_URL + "/?tab=example");
    await lookAt(page, "heatmaps");
    await clickCell(page, 2, 3);  // the last click was on a figure
    await urlParam(page, "query", "2");
    await page.keyboard.press("8");
    await urlParam(page, "h", "8");
    await waitFor(page, () => document.querySelectorAll("#heatmaps .nsewdrag").length === 8);
    await page.keyboard.press("ArrowRight");
    await urlParam(page, "head", "2");
    await page.keyboard.press("ArrowLeft", { delay: 40 });  // held as a hand holds a key: each press counts
    await page.keyboard.press("ArrowLeft", { delay: 40 });
    await urlParam(page, "head", "8");  // round the end
    await page.keyboard.press("p");
    await waitFor(page, () => document.documentElement.classList.contains("presenting"));
    await page.keyboard.press("Escape");
    await waitFor(page, () => !document.documentElement.classList.contains("presenting"));
  });
});

test("a number box takes digits only: letters typed into the seed's box are refused", async (t) => {
  await withPage(t, async (page) => {
    await page.goto(APP_URL + "/?tab=example");
    await page.waitForSelector("nav input[type=number]", { visible: true });
    await page.focus("nav input[type=number]");
    await page.keyboard.down("Control");
    await page.keyboard.press("a");
    await page.keyboard.up("Control");
    await page.keyboard.press("Backspace");
    await page.keyboard.type("5ab");  // Gecko keeps the letters (the box then holds no number); Blink refuses them
    assert.strictEqual(await page.$eval("nav input[type=number]", (e) => e.value), "5");
    await urlParam(page, "seed", "5");
  });
});

test("the language switch shows the page in Spanish, in the same setting", async (t) => {
  await withPage(t, async (page) => {
    await page.goto(APP_URL + "/?tab=mixing&h=2");
    await lookAt(page, "mixing-single");
    await Promise.all([page.waitForNavigation(), page.select("nav select", "es")]);
    await waitFor(page, () => document.documentElement.lang === "es");
    await urlParam(page, "h", "2");
    await lookAt(page, "mixing-single");
    await clickText(page, "#tab", "Ejemplo resuelto");
    await lookAt(page, "heatmaps");
    assert.strictEqual((await heads(page)).length, 2);
  });
});

test("a figure's PNG button saves it 1920 px wide, in the dark page's colours", async (t) => {
  await withPage(t, async (page) => {
    // the dark theme chosen before the page loads (a reload after a first load aborted its requests in flight)
    await page.evaluateOnNewDocument(() => {
      if (location.protocol.startsWith("http")) localStorage.setItem("mha-theme", "dark");  // not about:blank's
    });
    await page.goto(APP_URL + "/?tab=example&h=2");
    await waitFor(page, () => document.documentElement.getAttribute("data-bs-theme") === "dark");
    await lookAt(page, "cube");  // the WebGL figure: its image comes from the scene's own canvas
    // the file the click saves, read at once (Plotly revokes its address after the click), not downloaded
    await page.evaluate(() => document.addEventListener("click", (e) => {
      if (!e.target.download) return;
      e.preventDefault();
      const image = new Image();
      image.src = e.target.href;  // an image may load a blob: address (the CSP lets no fetch do it)
      window.savedSlide = { name: e.target.download, image: image.decode().then(() => image) };
    }, true));
    await page.click(".figure-frame:has(#cube) .slide-button");  // PNG, the first
    await waitFor(page, () => window.savedSlide);
    const saved = await page.evaluate(async () => {
      const image = await window.savedSlide.image;
      const canvas = document.createElement("canvas");
      [canvas.width, canvas.height] = [image.width, image.height];
      canvas.getContext("2d").drawImage(image, 0, 0);
      const pixels = canvas.getContext("2d").getImageData(0, 0, image.width, image.height).data;
      let drawn = 0, white = 0;  // pixels drawn on the background; of them, nearly white (luma over 0.93)
      for (let k = 0; k < pixels.length; k += 4) {
        const [r, g, b] = [pixels[k], pixels[k + 1], pixels[k + 2]];
        if (Math.max(Math.abs(r - 33), Math.abs(g - 37), Math.abs(b - 41)) > 30) drawn += 1;
        if (0.2126 * r + 0.7152 * g + 0.0722 * b > 0.93 * 255) white += 1;
      }
      return { name: window.savedSlide.name, width: image.width, drawn: drawn / (pixels.length / 4), white,
        corner: Array.from(pixels.slice(0, 4)) };
    });
    assert.deepStrictEqual([saved.name, saved.width, saved.corner], ["cube.png", 1920, [33, 37, 41, 255]]);
    // the planes drawn, in dark mode's map: nothing nearly white (the light map's zero end, on its colour bar, is)
    assert.ok(saved.drawn > 0.05 && saved.white < 50, JSON.stringify(saved));
  });
});
