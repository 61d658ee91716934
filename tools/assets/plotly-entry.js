// Only the trace types the dashboard draws: heatmap (2-D views) and mesh3d (the cube's planes); lib/core brings
// scatter (the token projection).
var Plotly = require("plotly.js/lib/core");
Plotly.register([require("plotly.js/lib/heatmap"), require("plotly.js/lib/mesh3d")]);
module.exports = Plotly;
