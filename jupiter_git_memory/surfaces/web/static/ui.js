// Light progressive enhancement: every page works without it.
// - forms with data-confirm ask first; - j / k move between queue rows, Enter opens one;
// - "/" focuses the page's search field; - the health page refreshes the doctor summary while it runs.
(function () {
  "use strict";
  document.addEventListener("submit", function (ev) {
    var msg = ev.target.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) { ev.preventDefault(); }
  });
  document.addEventListener("keydown", function (ev) {
    var t = ev.target;
    if (ev.ctrlKey || ev.metaKey || ev.altKey || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) { return; }
    if (ev.key === "/") {
      var search = document.querySelector("[data-search]");
      if (search) { ev.preventDefault(); search.focus(); }
      return;
    }
    if (ev.key !== "j" && ev.key !== "k") { return; }
    var rows = Array.prototype.slice.call(document.querySelectorAll("tr.row a.rowlink"));
    if (!rows.length) { return; }
    var i = rows.indexOf(document.activeElement);
    i = ev.key === "j" ? Math.min(rows.length - 1, i + 1) : Math.max(0, i < 0 ? 0 : i - 1);
    rows[i].focus();
    ev.preventDefault();
  });
  var doc = document.querySelector("[data-doctor-running]");
  if (doc) { window.setTimeout(function () { window.location.reload(); }, 3000); }
})();
