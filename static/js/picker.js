// Searchable pickers over plain <select multiple data-picker> (the campaign form). The select stays in the form
// and holds the choice, so the form posts as it does without JavaScript and the server's form validates it.
// The picker adds: type to filter, "select all shown", "clear", the count selected, and for runs "top N per
// group", which selects by each option's data-rank (its rank in its group, computed by the server).
(function () {
  "use strict";

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text) e.textContent = text;
    return e;
  }

  function enhance(select) {
    var kind = select.getAttribute("data-picker");
    var options = Array.prototype.slice.call(select.options);
    var box = el("div", { "class": "picker", "data-picker-for": select.id });
    var tools = el("div", { "class": "picker-tools" });
    var search = el("input", {
      type: "search", "class": "picker-search", placeholder: "Type to filter " + options.length + " " + kind + "…",
      "aria-label": "Filter the " + kind,
    });
    var allShown = el("button", { type: "button", "class": "picker-all" }, "Select all shown");
    var clear = el("button", { type: "button", "class": "picker-clear" }, "Clear");
    var count = el("span", { "class": "picker-count", "aria-live": "polite" });
    tools.append(search, allShown, clear);
    var top = null;
    if (kind === "runs") {
      top = el("span", { "class": "picker-top" });
      var topButton = el("button", { type: "button", "class": "picker-top-button" }, "Select the top");
      var n = el("input", { type: "number", min: "1", value: "1", "class": "picker-top-n",
        "aria-label": "How many runs per group" });
      top.append(topButton, n, el("span", {}, "per group (by priority)"));
      tools.append(top);
    }
    var list = el("div", { "class": "picker-list", role: "group", "aria-label": kind });
    var rows = options.map(function (option, k) {
      var id = select.id + "-pick-" + k;
      var row = el("label", { "class": "picker-row", "for": id });
      var check = el("input", { type: "checkbox", id: id });
      check.checked = option.selected;
      check.addEventListener("change", function () { option.selected = check.checked; update(); });
      row.append(check, el("span", { "class": "picker-label" }, option.textContent));
      var group = option.getAttribute("data-group");
      if (group) row.append(el("span", { "class": "picker-meta" }, group + " #" + option.getAttribute("data-rank")));
      list.append(row);
      return { option: option, box: check, row: row, text: (option.textContent + " " + (group || "")).toLowerCase() };
    });
    box.append(tools, list, count);
    select.hidden = true;
    select.after(box);

    function shown() { return rows.filter(function (r) { return !r.row.hidden; }); }
    function update() {
      var chosen = rows.filter(function (r) { return r.option.selected; }).length;
      rows.forEach(function (r) { r.box.checked = r.option.selected; });
      var visible = shown().length;
      count.textContent = chosen + " of " + rows.length + " selected" +
        (visible < rows.length ? " · " + visible + " shown" : "");
    }
    search.addEventListener("input", function () {
      var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      rows.forEach(function (r) {
        r.row.hidden = !words.every(function (w) { return r.text.indexOf(w) !== -1; });
      });
      update();
    });
    // Enter in the filter must not submit the form.
    search.addEventListener("keydown", function (evt) { if (evt.key === "Enter") evt.preventDefault(); });
    allShown.addEventListener("click", function () { shown().forEach(function (r) { r.option.selected = true; }); update(); });
    clear.addEventListener("click", function () { rows.forEach(function (r) { r.option.selected = false; }); update(); });
    if (top) {
      top.querySelector("button").addEventListener("click", function () {
        var limit = parseInt(top.querySelector("input").value, 10) || 1;
        // Replaces the choice: the shown runs ranked 1..N in their group.
        rows.forEach(function (r) { r.option.selected = false; });
        shown().forEach(function (r) { r.option.selected = Number(r.option.getAttribute("data-rank")) <= limit; });
        update();
      });
    }
    // "All loaded runs" makes the list moot: say so by greying it out.
    var all = select.form && select.form.querySelector("input[name=all_runs]");
    if (kind === "runs" && all) {
      var sync = function () { box.classList.toggle("picker-off", all.checked); };
      all.addEventListener("change", sync);
      sync();
    }
    update();
  }

  document.querySelectorAll("select[multiple][data-picker]").forEach(enhance);
  // With the picker, "top N per group" is a button of the run picker; the server's field is for pages without
  // JavaScript (its value, if any, still applies).
  document.querySelectorAll(".no-picker").forEach(function (e) {
    var input = e.querySelector("input");
    if (!input || !input.value) e.hidden = true;
  });
})();
