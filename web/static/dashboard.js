// Keep live lists bounded: a container with data-trim="N" keeps its first N children.
function trimLists() {
  document.querySelectorAll("[data-trim]").forEach(function (el) {
    var keep = parseInt(el.getAttribute("data-trim"), 10);
    while (el.children.length > keep) { el.removeChild(el.lastElementChild); }
  });
}
document.addEventListener("htmx:afterSettle", trimLists);
document.addEventListener("htmx:sseMessage", trimLists);
document.addEventListener("htmx:sseMessage", function () {
  document.querySelectorAll("tr.empty").forEach(function (row) {
    if (row.parentElement && row.parentElement.children.length > 1) { row.remove(); }
  });
});
// Mark the page while an SSE stream is connected (the browser tests wait on it; handy when debugging).
document.addEventListener("htmx:sseOpen", function () { document.body.setAttribute("data-sse", "open"); });
document.addEventListener("htmx:sseError", function () { document.body.setAttribute("data-sse", "error"); });
// Copy buttons: data-copy holds the text (an id, a JSON value); data-copy-next copies the shown <pre> instead.
document.addEventListener("click", function (ev) {
  var button = ev.target.closest && ev.target.closest("button.copy");
  if (!button) { return; }
  ev.preventDefault();
  var text = button.getAttribute("data-copy");
  if (text === null) {
    var next = button.nextElementSibling || (button.parentElement && button.parentElement.nextElementSibling);
    text = next ? next.textContent : "";
  }
  var done = function () {
    button.classList.add("copied");
    button.setAttribute("data-copied", "1");
    setTimeout(function () { button.classList.remove("copied"); }, 1200);
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
  } else { fallbackCopy(text); done(); }
});
function fallbackCopy(text) {
  var area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed"; area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  try { document.execCommand("copy"); } catch (e) { /* nothing else to try */ }
  document.body.removeChild(area);
  window.lastCopied = text;
}

// Chart hover: the line charts carry their values (data-x, data-y per series); show the nearest step's values.
var tip = null;
function chartTip() {
  if (!tip) { tip = document.createElement("div"); tip.className = "chart-tip"; document.body.appendChild(tip); }
  return tip;
}
function fmtValue(v) {
  var a = Math.abs(v);
  if (v === 0) { return "0"; }
  if (a >= 1e4 || a < 1e-3) { return v.toExponential(3).replace(/\.?0+e/, "e").replace("e+", "e"); }
  return String(+v.toPrecision(4));
}
function seriesOf(svg) {
  if (!svg._series) {
    svg._series = Array.prototype.map.call(svg.querySelectorAll(".series[data-x]"), function (el) {
      var xs = el.getAttribute("data-x").split(" ").map(Number), ys = el.getAttribute("data-y").split(" ").map(Number);
      var pts = (el.getAttribute("points") || "").trim().split(" ").map(function (p) { return Number(p.split(",")[0]); });
      if (el.tagName === "circle") { pts = [Number(el.getAttribute("cx"))]; }
      return {name: el.getAttribute("data-name"), xs: xs, ys: ys, px: pts, color: el.getAttribute("stroke") || el.getAttribute("fill")};
    });
  }
  return svg._series;
}
function nearest(s, px) {
  var best = -1, dist = Infinity;
  for (var i = 0; i < s.px.length; i++) {
    var d = Math.abs(s.px[i] - px);
    if (d < dist) { dist = d; best = i; }
  }
  return best;
}
function svgX(svg, ev) {
  var box = svg.getBoundingClientRect(), view = svg.viewBox.baseVal;
  return (ev.clientX - box.left) * view.width / box.width;
}
document.addEventListener("mousemove", function (ev) {
  var svg = ev.target.closest && ev.target.closest("svg.chart");
  var t = chartTip();
  if (!svg || !svg.querySelector(".series[data-x]")) { t.style.display = "none"; return; }
  var px = svgX(svg, ev), lines = [], stepX = null, cursorX = null;
  seriesOf(svg).forEach(function (s) {
    var i = nearest(s, px);
    if (i < 0) { return; }
    if (stepX === null) { stepX = s.xs[i]; cursorX = s.px[i]; }
    lines.push('<span style="color:' + s.color + '">■</span> ' + escapeHtml(s.name) + ": <b>" + fmtValue(s.ys[i]) + "</b>" +
               (s.xs[i] !== stepX ? ' <span class="muted">@' + fmtValue(s.xs[i]) + "</span>" : ""));
  });
  if (!lines.length) { t.style.display = "none"; return; }
  var cursor = svg.querySelector("line.cursor");
  if (cursor) {
    var view = svg.viewBox.baseVal;
    cursor.setAttribute("x1", cursorX); cursor.setAttribute("x2", cursorX);
    cursor.setAttribute("y1", 22); cursor.setAttribute("y2", view.height - 28);
  }
  t.innerHTML = "<div>step " + fmtValue(stepX) + "</div>" + lines.slice(0, 12).join("<br>");
  t.style.display = "block";
  t.style.left = Math.min(ev.pageX + 14, window.scrollX + window.innerWidth - t.offsetWidth - 8) + "px";
  t.style.top = (ev.pageY + 14) + "px";
  svg.setAttribute("data-hover", fmtValue(stepX));
});
function escapeHtml(s) {
  return String(s).replace(/[&<>"]/g, function (c) { return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]; });
}
// A chart with data-href opens it for the step under the pointer (a reward curve: that step's episodes).
document.addEventListener("click", function (ev) {
  var svg = ev.target.closest && ev.target.closest("svg.chart[data-href]");
  if (!svg) { return; }
  var series = seriesOf(svg);
  if (!series.length) { return; }
  var i = nearest(series[0], svgX(svg, ev));
  if (i >= 0) { window.location.href = svg.getAttribute("data-href").replace("{x}", String(series[0].xs[i])); }
});
