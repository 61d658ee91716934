// Helpers the explorer's and class mode's clientside callbacks share (explorer.js, classmode.js, header.js).

// A message the page carries in its language (dashboard/languages.py MESSAGES), its {name}s filled in.
window.pageMessage = function (key, values) {
  let messages = {};
  try { messages = JSON.parse(document.getElementById("browser-messages").dataset.messages); } catch (e) { /* none */ }
  return String(messages[key] || key).replace(/\{(\w+)\}/g, (whole, name) => (values && name in values ? String(values[name]) : whole));
};

// Copy a box's link: the clipboard where the browser allows it (https or localhost), else the link is
// selected for Ctrl+C.
window.copyFromBox = function (boxId) {
  const box = document.getElementById(boxId);
  if (navigator.clipboard && window.isSecureContext) {
    return navigator.clipboard.writeText(box.value).then(() => window.pageMessage("copied"),
      () => window.pageMessage("pressCopy"));
  }
  box.select();
  return window.pageMessage("selectedCopy");
};

// A number box takes no letters (Firefox's would, and then hold no number): what is typed is refused before it
// lands in the box.
document.addEventListener("beforeinput", (event) => {
  const box = event.target;
  if (event.data && box instanceof HTMLInputElement && box.type === "number" && /[^0-9.eE+-]/.test(event.data)) event.preventDefault();
});
