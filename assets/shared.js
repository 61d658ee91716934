// A helper the explorer's and class mode's clientside callbacks share (explorer.js, classmode.js).

// Copy a box's link: the clipboard where the browser allows it (https or localhost), else the link is
// selected for Ctrl+C.
window.copyFromBox = function (boxId) {
  const box = document.getElementById(boxId);
  if (navigator.clipboard && window.isSecureContext) {
    return navigator.clipboard.writeText(box.value).then(() => "link copied", () => "press Ctrl+C to copy");
  }
  box.select();
  return "selected: press Ctrl+C to copy";
};
