// Components of the explorer's own, in the namespace explorer_static (dashboard/explorer/ui.py).
window.explorer_static = {
  // HTML of the app's own build (the seed's typeset text, a panel of numbers built by ui.to_html) as one
  // element: its paragraphs and tables are not Dash components, so dash-renderer has nothing of them to check on
  // each update.
  StaticHtml: ({ id, className, html }) =>
    React.createElement("div", { id, className, dangerouslySetInnerHTML: { __html: html } }),

  // A tab's section. Its contents mount the first time it is shown and stay mounted after, so a figure and
  // its camera persist across tab switches, while a tab never visited costs the page nothing: no React tree,
  // no empty Plotly graphs, no selectors for dash-renderer to run on each dispatch.
  TabSection: ({ id, hidden, children }) => {
    const [shown, setShown] = React.useState(!hidden);
    if (!hidden && !shown) setShown(true);  // React re-renders at once, with the contents mounted
    return React.createElement("section", { id, hidden }, shown ? children : null);
  },
};
