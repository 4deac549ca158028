// Light progressive enhancement: every page works without it.
// - forms with data-confirm ask first; - j / k move between queue rows, Enter opens one;
// - "/" focuses the page's search field; - the health page refreshes the doctor panel in place while it runs.
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
  // The doctor panel: while its run is going, fetch the panel alone and swap it in (the page is not
  // reloaded, so nothing the reviewer scrolled to or typed is lost); stop once it says done or failed.
  function pollDoctor() {
    var el = document.querySelector("#doctor[data-doctor-running]");
    if (!el) { return; }
    window.fetch(el.getAttribute("data-refresh"), { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        var box = document.createElement("template");
        box.innerHTML = html || "";
        var fresh = box.content.querySelector("#doctor");
        if (!fresh) { return; }  // logged out or an error page: leave the panel as it is
        el.replaceWith(fresh);
        window.setTimeout(pollDoctor, 1500);
      }, function () { window.setTimeout(pollDoctor, 5000); });
  }
  if (document.querySelector("#doctor[data-doctor-running]")) { window.setTimeout(pollDoctor, 1000); }
})();
