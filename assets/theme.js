// Light, dark or auto (the system's setting), chosen in the header of the explorer and of class mode and
// kept in this browser's localStorage, which both apps share (one origin): a device's choice, as the
// projector's dark room or a phone's own setting is, not part of a link another device opens. Applied
// here, before the page is drawn, as Bootstrap 5.3's data-bs-theme on <html>; assets/header.js sets it when
// the switch changes. Runs in both apps (dashboard/__init__.py ignores it in neither).
(function () {
  const KEY = "mha-theme", LECTURE_KEY = "mha-lecture";
  const SCHEMES = ["light", "dark"];  // Bootstrap's colour modes; any other choice ("auto") follows the system
  const system = window.matchMedia("(prefers-color-scheme: dark)");

  const kept = {};  // where localStorage is turned off, a choice lasts as long as the page
  function read(key) {
    try { return window.localStorage.getItem(key); } catch (e) { return kept[key] ?? null; }
  }
  function write(key, value) {
    kept[key] = value;
    try { window.localStorage.setItem(key, value); } catch (e) { /* kept above */ }
  }
  const choice = () => (SCHEMES.includes(read(KEY)) ? read(KEY) : "auto");

  function apply() {
    const chosen = choice();
    const scheme = SCHEMES.includes(chosen) ? chosen : (system.matches ? "dark" : "light");
    document.documentElement.setAttribute("data-bs-theme", scheme);
    return chosen;
  }

  // Dark mode turns a heatmap's lightness around so that zero is dark like the page (assets/site/app.css:
  // invert(1) hue-rotate(180deg), which keeps hue and saturation only where nothing clips). A diverging
  // map's saturated ends clip there and come out pale: the red-blue map's strongest blue nearly white,
  // its strongest red pink. This filter, which assets/site/theme.css puts on diverging maps, splits
  // each colour into luma Y (Rec. 709 weights, as CSS's hue-rotate uses) and the differences R-Y and B-Y;
  // maps Y through a falling curve (white to the page's dark grey, the darkest ends to about half-bright);
  // keeps 85% of R-Y and B-Y, which fits every colour of the map inside sRGB; and puts them back together.
  // The hue stays, the ends stay saturated, and they contrast more than 4:1 with the dark page.
  const [wr, wg, wb] = [0.2126, 0.7152, 0.0722];
  const LUMA = [0.54, 0.52, 0.48, 0.44, 0.40, 0.35, 0.29, 0.22, 0.17, 0.14, 0.12];  // Y = 0, 0.1, ..., 1
  const CHROMA = 0.85;
  const s = 0.5;  // R-Y and B-Y scaled by s around 0.5: they stay inside 0..1 between the filter's steps
  const split = [wr, wg, wb, 0, 0, s * (1 - wr), -s * wg, -s * wb, 0, 0.5, -s * wr, -s * wg, s * (1 - wb), 0, 0.5,
    0, 0, 0, 1, 0];
  const join = [1, 1 / s, 0, 0, -0.5 / s, 1, -wr / (wg * s), -wb / (wg * s), 0, 0.5 * (wr + wb) / (wg * s),
    1, 0, 1 / s, 0, -0.5 / s, 0, 0, 0, 1, 0];
  const FILTER = '<svg xmlns="http://www.w3.org/2000/svg" aria-hidden="true" focusable="false" width="0" height="0"'
    + ' style="position:absolute;width:0;height:0;overflow:hidden">'
    + '<filter id="dark-diverging" color-interpolation-filters="sRGB">'
    + '<feColorMatrix type="matrix" values="' + split.join(" ") + '"/>'
    + '<feComponentTransfer><feFuncR type="table" tableValues="' + LUMA.join(" ") + '"/>'
    + '<feFuncG type="linear" slope="' + CHROMA + '" intercept="' + (0.5 * (1 - CHROMA)) + '"/>'
    + '<feFuncB type="linear" slope="' + CHROMA + '" intercept="' + (0.5 * (1 - CHROMA)) + '"/></feComponentTransfer>'
    + '<feColorMatrix type="matrix" values="' + join.join(" ") + '"/></filter></svg>';

  function addFilter() {
    if (document.getElementById("dark-diverging")) return;
    document.body.insertAdjacentHTML("beforeend", FILTER);
  }

  apply();
  system.addEventListener("change", apply);
  document.body ? addFilter() : document.addEventListener("DOMContentLoaded", addFilter);
  // Another tab of this browser chose: follow it (its switch shows the new choice at the next load).
  window.addEventListener("storage", (e) => e.key === KEY && apply());

  // For assets/header.js: the stored theme and a new choice; and lecture mode, which the explorer keeps here
  // too (besides its URL) for class mode's pages, a separate app, to take over.
  window.sitePrefs = {
    theme: choice,
    chooseTheme: function (chosen) {
      write(KEY, SCHEMES.includes(chosen) ? chosen : "auto");
      return apply();
    },
    lecture: () => read(LECTURE_KEY) === "1",
    setLecture: (on) => write(LECTURE_KEY, on ? "1" : "0"),
  };
})();
