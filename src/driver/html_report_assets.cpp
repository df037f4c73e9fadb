// The HTML report's style sheet and script, inlined into each page so that it needs no other
// file and no network (html_report.hpp).
#include "weft/driver/html_report.hpp"

namespace weft::driver {

const char* html_report_style() {
  return R"css(
:root { --bug: #c62828; --bug-bg: #fdecea; --related: #ef6c00; --related-bg: #fff3e0;
        --lane: #f7f9fc; --line: #d7dde6; --text: #1d2330; --muted: #5d6778; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
       color: var(--text); background: #fff; }
header { padding: 12px 20px; border-bottom: 1px solid var(--line); background: #f2f4f8; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 18px 0 6px; color: var(--bug); }
h3 { font-size: 14px; margin: 14px 0 4px; }
.verdict { font-weight: 600; margin: 2px 0 6px; }
.verdict[data-verdict="bug"] { color: var(--bug); }
.verdict[data-verdict="no bug"] { color: #2e7d32; }
ul.run { display: flex; flex-wrap: wrap; gap: 2px 18px; margin: 0; padding: 0;
         list-style: none; color: var(--muted); }
.layout { display: flex; align-items: flex-start; gap: 16px; padding: 0 20px 20px; }
main { flex: 1 1 auto; min-width: 0; }
.message { font-family: ui-monospace, Menlo, Consolas, monospace; background: var(--bug-bg);
           border-left: 4px solid var(--bug); padding: 6px 10px; margin: 4px 0 10px;
           white-space: pre-wrap; }
.lanes { overflow-x: auto; }
table.interleaving { border-collapse: separate; border-spacing: 0; width: 100%;
                     table-layout: fixed; }
table.interleaving th, table.interleaving td { border-bottom: 1px solid var(--line);
  padding: 2px 8px; vertical-align: top; text-align: left; }
th.thread-column { background: #e8edf5; position: sticky; top: 0; width: 180px; }
th.step-number, td.step-number { color: var(--muted); text-align: right; width: 4.2em;
                                 font-variant-numeric: tabular-nums; }
td.idle { background: var(--lane); border-left: 1px dashed var(--line); }
td.op { border-left: 3px solid #6b8bd6; background: #eef3fd; cursor: pointer; }
td.op:focus, td.op.selected { outline: 2px solid #6b8bd6; outline-offset: -2px; }
.operation { display: block; font-family: ui-monospace, Menlo, Consolas, monospace;
             overflow-wrap: anywhere; }
.where { display: block; color: var(--muted); font-size: 12px; white-space: nowrap;
         overflow: hidden; text-overflow: ellipsis; }
tr.bug-step td { background: var(--bug-bg); }
tr.bug-step td.step-number { color: var(--bug); font-weight: 700; }
tr.bug-step td.step-number::after { content: " \26A0"; }
tr.bug-step td.op { border-left-color: var(--bug); }
td.related-step { border-left-color: var(--related); background: var(--related-bg); }
td.related-step.linked { box-shadow: inset 0 0 0 2px var(--related); }
.legend, .no-inputs, .no-replay { color: var(--muted); font-size: 13px; }
table.inputs { border-collapse: collapse; }
table.inputs th, table.inputs td { border: 1px solid var(--line); padding: 2px 8px; }
.copyable { display: flex; gap: 8px; align-items: center; }
.copyable code { background: #f2f4f8; padding: 3px 6px; border-radius: 4px;
                 font-family: ui-monospace, Menlo, Consolas, monospace; user-select: all;
                 word-break: break-all; }
button.copy { font: inherit; font-size: 12px; padding: 2px 10px; cursor: pointer; }
details.text-report pre { background: #f7f9fc; padding: 8px; overflow-x: auto; }
aside#source-panel { position: sticky; top: 8px; flex: 0 0 360px; max-width: 40%;
  margin-top: 18px; border: 1px solid var(--line); border-radius: 6px; background: #fbfcfe; }
.panel-title { font-weight: 600; padding: 6px 10px; border-bottom: 1px solid var(--line); }
#source-view { padding: 6px 10px; }
.hint { color: var(--muted); }
.source-file { font-size: 12px; color: var(--muted); word-break: break-all; }
pre.source-lines { margin: 4px 0; font-size: 12px; line-height: 1.5; overflow-x: auto; }
.source-line { display: block; }
.source-line.current { background: #fff59d; font-weight: 600; }
.source-missing { color: var(--bug); }
@media (max-width: 900px) { .layout { flex-direction: column; }
  aside#source-panel { position: static; max-width: none; width: 100%; } }
)css";
}

const char* html_report_script() {
  return R"js(
"use strict";
(function () {
  var view = document.getElementById("source-view");
  // Shows the embedded source window of a step in the side panel.
  function show(cell) {
    var id = cell.getAttribute("data-source");
    var source = id && document.getElementById(id);
    if (!source) return;
    view.innerHTML = source.innerHTML;
    document.querySelectorAll("td.op.selected").forEach(function (c) {
      c.classList.remove("selected");
    });
    cell.classList.add("selected");
  }
  // The operations that make one bug (a race's two accesses, a deadlock's waits) light up
  // together when one of them is pointed at.
  function link(cell, on) {
    if (!cell.classList.contains("related-step")) return;
    var section = cell.closest("section.bug");
    section.querySelectorAll("td.related-step").forEach(function (c) {
      c.classList.toggle("linked", on);
    });
  }
  document.querySelectorAll("td.op").forEach(function (cell) {
    cell.addEventListener("click", function () { show(cell); });
    cell.addEventListener("keydown", function (e) { if (e.key === "Enter") show(cell); });
    cell.addEventListener("mouseenter", function () { show(cell); link(cell, true); });
    cell.addEventListener("mouseleave", function () { link(cell, false); });
  });
  document.querySelectorAll("button.copy").forEach(function (button) {
    button.addEventListener("click", function () {
      var code = button.parentNode.querySelector("code");
      var done = function () { button.textContent = "Copied"; };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(code.textContent).then(done, function () {
          select(code);
        });
      } else {
        select(code);
      }
    });
  });
  // Without clipboard access (some browsers refuse it to local files): select the text.
  function select(node) {
    var range = document.createRange();
    range.selectNodeContents(node);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  // Start with the bug's own step shown.
  var first = document.querySelector("tr.bug-step td.op[data-source]");
  if (first) show(first);
})();
)js";
}

}  // namespace weft::driver
