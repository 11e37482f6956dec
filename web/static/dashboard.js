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
