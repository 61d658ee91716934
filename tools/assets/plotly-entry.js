// Only the trace types the dashboard draws: heatmap (2-D views), surface and scatter3d (the cube);
// lib/core brings scatter (the token projection).
var Plotly = require("plotly.js/lib/core");
Plotly.register([require("plotly.js/lib/heatmap"), require("plotly.js/lib/surface"), require("plotly.js/lib/scatter3d")]);
module.exports = Plotly;
