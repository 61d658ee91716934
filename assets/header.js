// The headers' clientside callbacks (window.dash_clientside.header), in the explorer and in class mode
// (dashboard/prefs.py, dashboard/explorer/header.py, dashboard/classmode/__init__.py). The theme is kept by
// assets/theme.js (window.sitePrefs) in this browser's localStorage, which both apps share.
(function () {
  const no = () => window.dash_clientside.no_update;
  const prefs = () => window.sitePrefs;
  const triggered = () => window.dash_clientside.callback_context.triggered.map((t) => t.prop_id.split(".")[0]);

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    header: {
      // The phone's menu button opens and closes the rest of the header (on a wider page it is all shown).
      toggle: function (clicks, open) {
        return [!open, String(!open)];
      },

      // Explorer: the switch starts at the stored theme, and a choice is stored and applied.
      explorerPrefs: function (theme, themeId) {
        if (triggered().includes(themeId)) {
          prefs().chooseTheme(theme);
          return no();
        }
        const stored = prefs().theme();
        return stored === theme ? no() : stored;
      },

      // Class mode: the theme starts as the browser has it (the explorer's last), and its switch changes it for
      // either app.
      classPrefs: function (theme, themeId) {
        if (triggered().includes(themeId)) {
          prefs().chooseTheme(theme);
          return no();
        }
        const stored = prefs().theme();
        return stored === theme ? no() : stored;
      },
    },
  });
})();
