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

  apply();
  system.addEventListener("change", apply);
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
