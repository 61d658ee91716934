// The headers' clientside callbacks (window.dash_clientside.header), in the explorer and in class mode
// (dashboard/prefs.py, dashboard/explorer/header.py, dashboard/classmode/__init__.py). The theme and lecture
// mode are kept by assets/theme.js (window.sitePrefs) in this browser's localStorage, which both apps share.
(function () {
  const no = () => window.dash_clientside.no_update;
  const prefs = () => window.sitePrefs;
  const triggered = () => window.dash_clientside.callback_context.triggered.map((t) => t.prop_id.split(".")[0]);
  const lectureLink = (href, on) => href.split("?")[0] + (on ? "?lecture=1" : "");

  let shownSeed = null;  // the last valid seed: the one the page shows

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    header: {
      // The phone's menu button opens and closes the rest of the header (on a wider page it is all shown).
      toggle: (clicks, open) => [!open, String(!open)],

      // Explorer: the switch starts at the stored theme, and a choice is stored and applied. Lecture mode
      // lives in the explorer's URL (?lecture=1); it is copied to the browser at every change, the URL's at
      // load included, so that class mode's pages open as the explorer was.
      explorerPrefs: function (theme, lecture, themeId) {
        prefs().setLecture(lecture === true);
        if (triggered().includes(themeId)) {
          prefs().chooseTheme(theme);
          return no();
        }
        const stored = prefs().theme();
        return stored === theme ? no() : stored;
      },

      // Class mode: theme and lecture mode start as the browser has them (the explorer's last), and its own
      // switches change both for either app. Its link back to the explorer takes lecture mode along.
      classPrefs: function (theme, lecture, href, themeId, lectureId) {
        const fired = triggered();
        let outTheme = no(), outLecture = no();
        let on = lecture === true;
        if (fired.includes(themeId)) prefs().chooseTheme(theme);
        else if (fired.includes(lectureId)) prefs().setLecture(on);
        else {  // the page has just loaded
          const stored = prefs().theme();
          if (stored !== theme) outTheme = stored;
          on = prefs().lecture();
          if (on !== (lecture === true)) outLecture = on;
        }
        document.documentElement.classList.toggle("lecture", on);
        const link = lectureLink(href || "/", on);
        return [outTheme, outLecture, link === href ? no() : link];
      },

      // The seed box: a seed outside min..max (or no whole number) is refused, and the box says so, in red,
      // with the message beside it, and the seed the page still shows. The box reports such a value as NaN.
      seedCheck: function (value, min, max, boxId, messageId) {
        const box = document.getElementById(boxId);
        const valid = Number.isInteger(value) && value >= min && value <= max;
        if (valid) shownSeed = value;
        if (box) {  // dbc.Input takes no aria-* props of its own
          box.setAttribute("aria-invalid", String(!valid));
          box.setAttribute("aria-describedby", messageId);
        }
        if (valid) return [false, ""];
        if (shownSeed === null) return [true, window.pageMessage("seedRange", { min, max })];
        return [true, window.pageMessage("seedRangeStill", { min, max, seed: shownSeed })];
      },

      // The link to class mode names the session this browser runs (class mode keeps it in localStorage,
      // dashboard/classmode/ids.py RUNNING): /class then offers the way back to it.
      classLink: function (linkId) {
        const link = document.getElementById(linkId);
        const key = link?.dataset.sessionKey;
        let running = null;
        try { running = JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { running = null; }
        const code = running && typeof running.code === "string"
          && new RegExp(link.dataset.codePattern).test(running.code) ? running.code : null;  // schema.CODE
        return code ? window.pageMessage("classSession", { code }) : window.pageMessage("classMode");
      },

      // A language chosen in the header's switch (dashboard/languages.py): the page again, in that language,
      // its URL otherwise as it is.
      chooseLanguage: function (chosen, pageLanguage) {
        if (!chosen || chosen === pageLanguage) return;
        const cookie = document.getElementById("browser-messages").dataset.choiceCookie;
        document.cookie = `${cookie}=${chosen}; Max-Age=31536000; Path=/; SameSite=Lax`;
        const q = new URLSearchParams(window.location.search);
        q.set("lang", chosen);
        window.location.assign(window.location.pathname + "?" + q.toString() + window.location.hash);
      },

      // <html lang> says the language of the layout the page got; each of the switch's options is named in its
      // own language, so a screen reader says it in that one's voice (dbc.Select takes no lang for an option).
      pageLanguage: function (lang) {
        if (lang) document.documentElement.lang = lang;
        const options = document.querySelectorAll("#language-choice option[value]:not([value=''])");
        options.forEach((option) => { option.lang = option.value; });
      },
    },
  });
})();
