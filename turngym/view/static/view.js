// Charts of the run and compare pages: uPlot (vendored, see VENDORED.md) over the JSON
// the page embeds. A checkbox per metric chooses what is drawn; uPlot zooms on drag and
// shows the values under the cursor in its legend. Labels are set as text, never HTML.
(function () {
  "use strict";
  var COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
    "#17becf", "#7f7f7f", "#bcbd22"];

  function drawChart(box) {
    var data = JSON.parse(document.getElementById(box.dataset.source).textContent);
    var keys = data.order || Object.keys(data.series);
    var picker = box.querySelector(".picker");
    var plotBox = box.querySelector(".plot");
    var chosen = JSON.parse(box.dataset.initial || "[]").filter(function (k) {
      return k in data.series;
    });
    if (!chosen.length && keys.length) chosen.push(keys[0]);
    var plot = null;

    function redraw() {
      if (plot) plot.destroy();
      var shown = keys.filter(function (k) { return chosen.indexOf(k) >= 0; });
      var series = [{ label: "step" }];
      var columns = [data.steps];
      shown.forEach(function (k) {
        series.push({ label: k, stroke: COLOURS[keys.indexOf(k) % COLOURS.length], width: 2,
          spanGaps: true, points: { show: data.steps.length < 60 } });
        columns.push(data.series[k]);
      });
      plot = new uPlot({
        width: Math.max(plotBox.clientWidth, 400), height: 300,
        scales: { x: { time: false } }, series: series,
        axes: [{ label: "step" }, {}], cursor: { drag: { x: true, y: false } },
      }, columns, plotBox);
    }

    keys.forEach(function (k) {
      var label = document.createElement("label");
      var box2 = document.createElement("input");
      box2.type = "checkbox";
      box2.checked = chosen.indexOf(k) >= 0;
      box2.addEventListener("change", function () {
        if (box2.checked) chosen.push(k); else chosen = chosen.filter(function (c) { return c !== k; });
        redraw();
      });
      label.appendChild(box2);
      label.appendChild(document.createTextNode(" " + k));
      picker.appendChild(label);
    });
    redraw();
  }

  document.querySelectorAll("section.chart").forEach(drawChart);
})();
