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

// Line charts carry their frame (data-x0/x1: plot pixels, data-d0/d1: its steps, data-y0/y1/top/bottom: the y
// mapping) and each line its values (data-x, data-y). A pointer or key position resolves to a STEP over the
// frame, not to the nearest drawn point of one series, so every step of a long (downsampled) run is reachable;
// each series then shows its value at that step (or its nearest, marked @).
var tip = null;
function chartTip() {
  if (!tip) { tip = document.createElement("div"); tip.className = "chart-tip"; tip.setAttribute("role", "status"); document.body.appendChild(tip); }
  return tip;
}
function fmtValue(v) {
  var a = Math.abs(v);
  if (v === 0) { return "0"; }
  if (a >= 1e4 || a < 1e-3) { return v.toExponential(3).replace(/\.?0+e/, "e").replace("e+", "e"); }
  return String(+v.toPrecision(4));
}
function num(svg, name) { return Number(svg.getAttribute("data-" + name)); }
function seriesOf(svg) {
  if (!svg._series) {
    svg._series = Array.prototype.map.call(svg.querySelectorAll(".series[data-x]"), function (el) {
      var xs = el.getAttribute("data-x").split(" ").map(Number), ys = el.getAttribute("data-y").split(" ").map(Number);
      return {el: el, name: el.getAttribute("data-name"), xs: xs, ys: ys, color: el.getAttribute("stroke") || el.getAttribute("fill")};
    });
    var all = true;
    svg._series.forEach(function (s) { s.xs.forEach(function (x) { if (x !== Math.round(x)) { all = false; } }); });
    svg._integral = all;  // steps: every integer in the frame is a step, drawn or not
  }
  return svg._series;
}
function nearestIndex(xs, x) {  // xs ascending
  var lo = 0, hi = xs.length - 1;
  if (hi < 0) { return -1; }
  while (lo < hi) { var mid = (lo + hi) >> 1; if (xs[mid] < x) { lo = mid + 1; } else { hi = mid; } }
  if (lo > 0 && Math.abs(xs[lo - 1] - x) <= Math.abs(xs[lo] - x)) { return lo - 1; }
  return lo;
}
function stepAtPixel(svg, px) {
  var x0 = num(svg, "x0"), x1 = num(svg, "x1"), d0 = num(svg, "d0"), d1 = num(svg, "d1");
  var d = d0 + (Math.min(Math.max(px, x0), x1) - x0) / ((x1 - x0) || 1) * (d1 - d0);
  seriesOf(svg);
  if (svg._integral) { return Math.min(Math.max(Math.round(d), Math.ceil(d0)), Math.floor(d1)); }
  var best = null;
  svg._series.forEach(function (s) { var i = nearestIndex(s.xs, d); if (i >= 0 && (best === null || Math.abs(s.xs[i] - d) < Math.abs(best - d))) { best = s.xs[i]; } });
  return best;
}
function pixelOfStep(svg, step) {
  var x0 = num(svg, "x0"), x1 = num(svg, "x1"), d0 = num(svg, "d0"), d1 = num(svg, "d1");
  return x0 + (step - d0) / ((d1 - d0) || 1) * (x1 - x0);
}
function svgX(svg, ev) {
  var box = svg.getBoundingClientRect(), view = svg.viewBox.baseVal;
  return (ev.clientX - box.left) * view.width / box.width;
}
function showStep(svg, step, at) {
  var t = chartTip(), lines = [];
  seriesOf(svg).forEach(function (s) {
    var i = nearestIndex(s.xs, step);
    if (i < 0) { return; }
    var y = s.smooth ? s.smooth[i] : s.ys[i];
    lines.push('<span style="color:' + s.color + '">■</span> ' + escapeHtml(s.name) + ": <b>" + fmtValue(y) + "</b>" +
               (s.smooth ? ' <span class="muted">raw ' + fmtValue(s.ys[i]) + "</span>" : "") +
               (s.xs[i] !== step ? ' <span class="muted">@' + fmtValue(s.xs[i]) + "</span>" : ""));
  });
  if (!lines.length) { t.style.display = "none"; return; }
  var cursor = svg.querySelector("line.cursor"), cx = pixelOfStep(svg, step);
  if (cursor) {
    cursor.setAttribute("x1", cx); cursor.setAttribute("x2", cx);
    cursor.setAttribute("y1", num(svg, "top") - 2); cursor.setAttribute("y2", svg.viewBox.baseVal.height - num(svg, "bottom"));
  }
  t.innerHTML = '<div class="tip-step">step ' + fmtValue(step) + "</div>" + lines.slice(0, 12).join("<br>") +
                (lines.length > 12 ? '<br><span class="muted">+' + (lines.length - 12) + " more</span>" : "");
  t.style.display = "block";
  t.style.left = Math.min(at.x + 14, window.scrollX + window.innerWidth - t.offsetWidth - 8) + "px";
  t.style.top = (at.y + 14) + "px";
  svg.setAttribute("data-hover", fmtValue(step));
  svg._step = step;
}
document.addEventListener("mousemove", function (ev) {
  var svg = ev.target.closest && ev.target.closest("svg.chart");
  if (!svg || !svg.querySelector(".series[data-x]")) { chartTip().style.display = "none"; return; }
  var step = stepAtPixel(svg, svgX(svg, ev));
  if (step !== null) { showStep(svg, step, {x: ev.pageX, y: ev.pageY}); }
});
function escapeHtml(s) {
  return String(s).replace(/[&<>"]/g, function (c) { return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]; });
}
function openStep(svg, step) {
  window.location.href = svg.getAttribute("data-href").replace("{x}", String(step));
}
// A chart with data-href opens it for the step under the pointer (a reward curve: that step's episodes); a drag
// across a chart inside a zoom form zooms to that step range.
var drag = null;
document.addEventListener("mousedown", function (ev) {
  var svg = ev.target.closest && ev.target.closest("svg.chart[data-zoom]");
  drag = svg ? {svg: svg, x: svgX(svg, ev)} : null;
});
document.addEventListener("mouseup", function (ev) {
  if (!drag) { return; }
  var svg = drag.svg, x = svgX(svg, ev), from = drag.x;
  drag = null;
  if (Math.abs(x - from) < 8) { return; }
  var a = stepAtPixel(svg, Math.min(x, from)), b = stepAtPixel(svg, Math.max(x, from));
  var form = document.getElementById(svg.getAttribute("data-zoom"));
  if (form && a !== null && b !== null && b > a) {
    form.elements["from"].value = a; form.elements["to"].value = b;
    svg._dragged = true;
    form.requestSubmit ? form.requestSubmit() : form.submit();
  }
});
document.addEventListener("click", function (ev) {
  var svg = ev.target.closest && ev.target.closest("svg.chart[data-href]");
  if (!svg || !seriesOf(svg).length) { return; }
  if (svg._dragged) { svg._dragged = false; return; }
  var step = stepAtPixel(svg, svgX(svg, ev));
  if (step !== null) { openStep(svg, step); }
});
// Keyboard: a focused chart moves its cursor a step with ←/→ (PageUp/PageDown: a tenth of the run, Home/End:
// the ends) and opens the step with Enter, as a click would.
document.addEventListener("keydown", function (ev) {
  var svg = ev.target.closest && ev.target.closest("svg.chart");
  if (!svg || !seriesOf(svg).length) { return; }
  var d0 = num(svg, "d0"), d1 = num(svg, "d1"), step = svg._step;
  var big = Math.max(1, Math.round((d1 - d0) / 10));
  var moves = {ArrowRight: 1, ArrowLeft: -1, PageUp: big, PageDown: -big};
  if (ev.key === "Enter" && svg.hasAttribute("data-href") && step !== undefined) { ev.preventDefault(); openStep(svg, step); return; }
  if (ev.key === "Home") { step = d0; } else if (ev.key === "End") { step = d1; }
  else if (moves[ev.key] !== undefined) { step = (step === undefined ? d0 : step) + moves[ev.key]; }
  else { return; }
  ev.preventDefault();
  step = Math.min(Math.max(step, d0), d1);
  if (!svg._integral) { step = stepAtPixel(svg, pixelOfStep(svg, step)); }
  var box = svg.getBoundingClientRect();
  showStep(svg, step, {x: window.scrollX + box.left + (pixelOfStep(svg, step) / svg.viewBox.baseVal.width) * box.width, y: window.scrollY + box.top + 20});
});
document.addEventListener("focusout", function (ev) {
  if (ev.target.closest && ev.target.closest("svg.chart")) { chartTip().style.display = "none"; }
});
// EMA smoothing (as TensorBoard: debiased, weight w in [0, 1)): every line chart on the page is redrawn from its
// values; the raw line stays, faint, beneath.
function ema(ys, w) {
  var out = [], last = 0, n = 0;
  for (var i = 0; i < ys.length; i++) { last = last * w + (1 - w) * ys[i]; n += 1; out.push(last / (1 - Math.pow(w, n))); }
  return out;
}
function yPixel(svg, v) {
  var y0 = num(svg, "y0"), y1 = num(svg, "y1"), top = num(svg, "top"), bottom = num(svg, "bottom"), h = svg.viewBox.baseVal.height;
  if (svg.getAttribute("data-log") === "1") { v = Math.log10(v); }
  return h - bottom - (v - y0) / ((y1 - y0) || 1) * (h - top - bottom);
}
function smoothCharts(w) {
  document.querySelectorAll("svg.chart[data-d0]").forEach(function (svg) {
    seriesOf(svg).forEach(function (s) {
      if (s.el.tagName !== "polyline" || (w === 0 && !s.raw)) { return; }
      if (!s.raw) {
        s.raw = s.el.cloneNode(false);
        s.raw.setAttribute("class", "raw"); s.raw.removeAttribute("data-x"); s.raw.removeAttribute("data-y");
        s.el.parentNode.insertBefore(s.raw, s.el);
      }
      s.smooth = w > 0 ? ema(s.ys, w) : null;
      var ys = s.smooth || s.ys;
      s.el.setAttribute("points", s.xs.map(function (x, i) { return pixelOfStep(svg, x).toFixed(1) + "," + yPixel(svg, ys[i]).toFixed(1); }).join(" "));
      s.raw.style.display = w > 0 ? "" : "none";
    });
    svg.setAttribute("data-smoothing", String(w));
  });
}
function applySmoothing() {
  var input = document.getElementById("smoothing");
  if (!input) { return; }
  var w = Number(input.value);
  var out = document.getElementById("smoothing-value");
  if (out) { out.textContent = w.toFixed(2); }
  try { localStorage.setItem("prove.smoothing", String(w)); } catch (e) { /* private mode */ }
  smoothCharts(w);
}
document.addEventListener("input", function (ev) { if (ev.target.id === "smoothing") { applySmoothing(); } });
document.addEventListener("htmx:afterSettle", applySmoothing);  // live charts swapped in keep the smoothing
document.addEventListener("DOMContentLoaded", function () {
  var input = document.getElementById("smoothing");
  if (!input) { return; }
  try { var kept = localStorage.getItem("prove.smoothing"); if (kept !== null && !input.hasAttribute("data-set")) { input.value = kept; } } catch (e) { /* private mode */ }
  applySmoothing();
});
// The episode list's sort dropdown follows a header sort (the list is swapped in without the form).
document.addEventListener("htmx:afterSettle", function () {
  var label = document.getElementById("sort-label"), select = document.getElementById("sort-select");
  if (label && select) { select.value = label.getAttribute("data-sort") || ""; }
});
