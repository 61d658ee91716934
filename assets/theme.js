// Light or dark follows the system setting (Bootstrap 5.3 colour modes).
(function () {
  const dark = window.matchMedia("(prefers-color-scheme: dark)");
  const apply = () => document.documentElement.setAttribute("data-bs-theme", dark.matches ? "dark" : "light");
  apply();
  dark.addEventListener("change", apply);
})();
