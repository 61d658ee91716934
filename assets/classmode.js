// Class mode's clientside callbacks (window.dash_clientside.classmode; dashboard/classmode/), at /class/ (Dash's
// url_base_pathname), in the page's language (window.pageMessage, assets/shared.js). The rules it applies before
// the server does come from store/schema.py (client_rules, the RULES store): none is written here. Node loads this
// file as it is (tests/node/classmode_rules.test.js).
(function () {
  // A typed join code as schema.join_code reads it, or null: ≤ `typed` ASCII characters, any case, spaces around.
  function joinCode(typed, rules) {
    let text = String(typed ?? "");
    if (text.length > rules.typed || !/^[\x00-\x7f]*$/.test(text)) return null;
    let start = 0, end = text.length;
    while (start < end && rules.space.includes(text[start])) start++;
    while (end > start && rules.space.includes(text[end - 1])) end--;
    const code = text.slice(start, end).toUpperCase();
    return code.length === rules.length && [...code].every((c) => rules.alphabet.includes(c)) ? code : null;
  }

  // Peer instruction's [discuss, vote again, reveal], each disabled unless the phase may step to it (schema.NEXT).
  function flowDisabled(phase, rules) {
    return ["discuss", "vote2", "revealed"].map((step) => !(rules.next[step] || []).includes(phase));
  }

  const classRules = { joinCode, flowDisabled };
  if (typeof module === "object" && module.exports) {
    module.exports = classRules;
    return;
  }
  const no = () => window.dash_clientside.no_update;
  const root = () => JSON.parse(document.getElementById("_dash-config").textContent).url_base_pathname;
  const ends = {};  // a timer's key: when its vote locks, on this browser's clock

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    classmode: {
      // /class/ is the start page; /class/CODE the lecturer's page if this tab holds the control token, else a
      // student's. The token comes in the fragment (#control=…, in no request line nor access log); it moves to
      // sessionStorage (CONTROL), to localStorage (the start page links back), out of the projector's address bar.
      classPage: function (pathname, hash, control) {
        const code = String(pathname || "").slice(root().length).split("/")[0];
        const given = new URLSearchParams((hash || "").slice(1)).get("control");
        let stored = no();
        if (given && code) control = stored = { code: code, token: given };
        const token = control && control.code === code ? control.token : null;
        const mode = !code ? "start" : token ? "lecturer" : "student";
        const page = { mode: mode, code: code, token: token, origin: window.location.origin };
        const cleared = given ? "" : no();  // dcc.Location then drops it from the address bar
        return [page, stored, stored, cleared, mode !== "start", mode !== "lecturer", mode !== "student"];
      },

      // The join link (its address, then its code, which never breaks), the code, and the lecturer's control link.
      classLinks: function (page) {
        if (!page || page.mode !== "lecturer") return ["", "", "", ""];
        return [page.origin + root(), page.code, page.code, page.origin + root() + page.code + "#control=" + page.token];
      },

      copyLink: (clicks, boxId) => window.copyFromBox(boxId),

      // A typed join code opens its session's page, where the page joins (and the server checks the code).
      joinByCode: function (clicks, submits, typed, rules) {
        const code = joinCode(typed, rules);
        if (!code) return [no(), window.pageMessage("badCode")];
        return [root() + code, ""];
      },

      // Peer instruction's buttons (flowDisabled); the server refuses any other step.
      flowButtons: (question, rules) => flowDisabled(question && question.phase, rules),

      // A vote's timer: the server says how many seconds are left; this page counts them down.
      clockRuns: function (clock) {
        if (clock && typeof clock.remaining === "number") ends[clock.key] = Date.now() + 1000 * clock.remaining;
        return !clock;
      },
      clockText: function (ticks, clock) {
        if (!clock || !(clock.key in ends)) return "";
        const left = Math.max(0, Math.round((ends[clock.key] - Date.now()) / 1000));
        if (!left) return window.pageMessage("timeUp");
        const time = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
        return window.pageMessage("timeLeft", { time: time });
      },
      // A student's page polls for the question; no other page does.
      studentPoll: (page) => !(page && page.mode === "student"),

      // The lecturer's keys (form.LECTURER_KEYS): a key presses its button if shown and enabled, as the explorer's do.
      classKeys: (keys) => document.addEventListener("keydown", (event) => {
        const button = document.getElementById(window.explorerRules.shortcutButton(keys, event, null) || "");
        if (!button || button.disabled || !button.getClientRects().length) return;
        event.preventDefault();
        button.click();
      }),
    },
  });
})();
