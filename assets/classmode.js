// Class mode's clientside callbacks (window.dash_clientside.classmode; dashboard/classmode/). Its app is
// mounted at /class/ (Dash's url_base_pathname, read from the page's own Dash config).
(function () {
  const no = () => window.dash_clientside.no_update;
  const root = () => JSON.parse(document.getElementById("_dash-config").textContent).url_base_pathname;

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    classmode: {
      // /class/ starts a session; /class/CODE is the lecturer's page when this tab holds the session's control
      // token, else a student's. The token comes in the fragment (#control=…, in no request line, so in no
      // access log); it moves to sessionStorage (the CONTROL store) and out of the address bar, which the
      // projector shows. The server checks code and token.
      classPage: function (pathname, hash, control) {
        const code = String(pathname || "").slice(root().length).split("/")[0];
        const given = new URLSearchParams((hash || "").slice(1)).get("control");
        let stored = no();
        if (given && code) control = stored = { code: code, token: given };
        const token = control && control.code === code ? control.token : null;
        const mode = !code ? "start" : token ? "lecturer" : "student";
        const page = { mode: mode, code: code, token: token, origin: window.location.origin };
        const cleared = given ? "" : no();  // dcc.Location then drops it from the address bar
        return [page, stored, cleared, mode !== "start", mode !== "lecturer", mode !== "student"];
      },

      // The join link and code for the projector; the control link only in the lecturer's own box.
      classLinks: function (page) {
        if (!page || page.mode !== "lecturer") return ["", "", ""];
        const join = page.origin + root() + page.code;
        return [join, page.code, join + "#control=" + page.token];
      },

      copyLink: (clicks, boxId) => window.copyFromBox(boxId),

      // A student's anonymous id, kept in localStorage: random, made once per browser. getRandomValues also
      // works on a plain-http classroom address, where crypto.randomUUID does not.
      studentId: function (page, id) {
        if (id) return no();
        const bytes = crypto.getRandomValues(new Uint8Array(16));
        return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      },

      // A student's page polls for the question; no other page does.
      studentPoll: function (page) {
        return !(page && page.mode === "student");
      },
    },
  });
})();
