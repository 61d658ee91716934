// HTML of the app's own build (the seed's typeset text, never user input) as one element: see
// dashboard/explorer/ui.py, StaticHtml. Its paragraphs and formulas are not Dash components, so
// dash-renderer has nothing of them to check on each update.
window.explorer_static = {
  StaticHtml: ({ id, className, html }) =>
    React.createElement("div", { id, className, dangerouslySetInnerHTML: { __html: html } }),
};
