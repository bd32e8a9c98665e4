// The trace viewer's inline style sheet and script. They are constants: no run text ever goes into them (run text is
// escaped into the HTML body only), and the page's Content-Security-Policy forbids every fetch, so the page works
// offline from a file:// URL and cannot reach the network whatever a run's text contains. The script only zooms the
// swimlanes, shows the details of a clicked event and jumps to the violation.

/**
 * The SHA-256 of viewerScript (base64): the policy lets only that script run, so even text that escaped escaping
 * could not run a script or an inline handler. A test recomputes it; change it with the script.
 */
export const viewerScriptSha256 = 'MGmCaelX2kihsnOM6lL7lrPhXyteuqIEv9N+AOJqN2E=';

export const contentSecurityPolicy = `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${viewerScriptSha256}'; img-src data:; form-action 'none'; base-uri 'none'`;

export const viewerCss = `
:root { --label: 150px; --lane: 26px; font: 13px/1.4 system-ui, sans-serif; color: #1d2330; background: #f6f7f9; }
body { margin: 0; padding: 12px 18px 40px; }
h1 { font-size: 18px; margin: 0 0 4px; } h2 { font-size: 15px; margin: 22px 0 6px; } h3 { font-size: 14px; margin: 8px 0; }
h4 { font-size: 12px; margin: 0 0 6px; text-transform: uppercase; letter-spacing: .04em; color: #5b6474; }
code, .mono, td, .text { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
.meta { color: #5b6474; margin: 2px 0 6px; } .empty { color: #8a93a3; font-style: italic; } .cut { color: #8a93a3; }
.verdict { display: inline-block; padding: 1px 8px; border-radius: 3px; color: #fff; font-weight: 600; }
.verdict.pass { background: #2f8a4c; } .verdict.fail { background: #c62828; }
.seed { word-break: break-all; }
.violation { border: 2px solid #c62828; background: #fdecea; border-radius: 4px; padding: 8px 12px; margin: 8px 0; }
.violation .name, .more-violations .name { font-weight: 700; color: #b71c1c; }
.more-violations { margin: 4px 0 8px; } .more-violations td { vertical-align: top; padding: 3px 6px; border-top: 1px solid #f3c4c0; background: #fdecea; } .violation .message { margin: 4px 0; font-family: ui-monospace, monospace; white-space: pre-wrap; }
table.ledger td { vertical-align: top; padding: 2px 6px; border-top: 1px solid #f3c4c0; } .k { color: #7a3b00; }
.tag { display: inline-block; font-size: 11px; padding: 0 5px; margin-right: 4px; border-radius: 3px; background: #e3e7ee; color: #394150; font-family: system-ui, sans-serif; }
.controls { margin: 6px 0; display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
.controls button { font: inherit; padding: 2px 9px; border: 1px solid #aab2c0; border-radius: 3px; background: #fff; cursor: pointer; }
.legend i { position: static; display: inline-block; vertical-align: middle; margin: 0 3px 0 10px; }
.scroll { overflow-x: auto; border: 1px solid #cdd3dc; background: #fff; --zoom: 1; }
.inner { position: relative; width: calc((100% - var(--label)) * var(--zoom) + var(--label)); }
.lane, .axis { display: flex; height: var(--lane); border-bottom: 1px solid #edf0f4; }
.axis { height: 20px; background: #fafbfc; }
.label { position: sticky; left: 0; z-index: 3; flex: 0 0 var(--label); background: #fafbfc; border-right: 1px solid #cdd3dc; padding: 0 8px; line-height: var(--lane); font-weight: 600; white-space: nowrap; overflow: hidden; }
.lane[data-lane=faults] .label { color: #b71c1c; }
.track { position: relative; flex: 1 1 auto; }
.tick { position: absolute; top: 0; height: 20px; border-left: 1px solid #cdd3dc; padding-left: 3px; font-size: 10px; color: #5b6474; white-space: nowrap; }
.track i { position: absolute; top: 6px; width: 3px; height: 14px; margin-left: -1px; background: #607089; cursor: pointer; }
.track i.user { background: #1565c0; width: 5px; } .track i.visible { background: #2e7d32; width: 5px; }
.track i.recover { background: #8e6bbf; }
.track i.fault, .legend i.fault { background: #d32f2f; width: 9px; height: 9px; top: 8px; margin-left: -4px; transform: rotate(45deg); }
.track i.at-violation { outline: 3px solid #c62828; outline-offset: 2px; z-index: 2; }
.track i.selected { outline: 2px solid #000; z-index: 2; }
.track b.noise { position: absolute; bottom: 0; background: #9fb0c8; pointer-events: auto; }
.overlay { position: absolute; top: 0; bottom: 0; left: var(--label); right: 0; pointer-events: none; z-index: 1; }
.vline { position: absolute; top: 0; bottom: 0; border-left: 2px solid #c62828; }
.vline span { position: absolute; top: 2px; left: 3px; background: #c62828; color: #fff; font-size: 10px; padding: 0 4px; white-space: nowrap; border-radius: 2px; }
.phaseline { position: absolute; top: 20px; bottom: 0; border-left: 1px dashed #d32f2f; opacity: .6; }
.gap { position: absolute; top: 0; bottom: 0; width: 6px; margin-left: -3px; background: repeating-linear-gradient(135deg, #cdd3dc 0 2px, transparent 2px 4px); }
.gap span { position: absolute; bottom: 1px; left: 7px; font-size: 10px; color: #5b6474; white-space: nowrap; }
#detail { min-height: 1.4em; padding: 4px 8px; background: #fffde7; border: 1px solid #e8dfa0; white-space: pre-wrap; font-family: ui-monospace, monospace; font-size: 12px; }
.columns { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 10px; }
.col { background: #fff; border: 1px solid #cdd3dc; border-radius: 4px; padding: 8px; max-height: 420px; overflow: auto; }
.bubble { margin: 4px 0; padding: 4px 8px; border-radius: 8px; max-width: 88%; }
.bubble.from-user { margin-left: auto; background: #dcebfb; } .bubble.from-bot { background: #e6f4e7; }
.when { display: block; font-size: 10px; color: #5b6474; }
.text { white-space: pre-wrap; word-break: break-word; }
.entry { border-left: 3px solid #aab2c0; padding: 2px 6px; margin: 4px 0; }
.entry.role-user { border-color: #1565c0; } .entry.role-assistant { border-color: #2e7d32; } .entry.role-tool { border-color: #8e6bbf; }
.entry.off-branch { opacity: .45; text-decoration: line-through; }
.toolcall { color: #6a4a9c; }
.bad { color: #c62828; }
.outbound table, table.log { border-collapse: collapse; width: 100%; background: #fff; }
.outbound td, .outbound th, table.log td { border-bottom: 1px solid #edf0f4; padding: 2px 6px; text-align: left; vertical-align: top; }
table.log tr.fault td { background: #fdecea; } table.log tr.noise-row td { color: #8a93a3; font-style: italic; }
table.log tr.violation-step td { background: #c62828; color: #fff; font-weight: 700; }
table.log tr:target td, table.log tr.flash td { outline: 2px solid #1565c0; }
a.step { color: inherit; }
.hide-noise b.noise, .hide-noise tr.noise-row { display: none; }
`;

export const viewerScript = `
(function () {
  var scroll = document.querySelector('.scroll');
  var detail = document.getElementById('detail');
  var zoom = 1;
  function setZoom(next, centerPercent) {
    var track = scroll.querySelector('.track');
    var before = centerPercent === undefined ? (scroll.scrollLeft + scroll.clientWidth / 2 - 150) / track.clientWidth : centerPercent / 100;
    zoom = Math.max(1, Math.min(next, 4096));
    scroll.style.setProperty('--zoom', String(zoom));
    document.getElementById('zoom-level').textContent = zoom + 'x';
    scroll.scrollLeft = Math.max(0, before * track.clientWidth + 150 - scroll.clientWidth / 2);
  }
  document.getElementById('zoom-in').onclick = function () { setZoom(zoom * 2); };
  document.getElementById('zoom-out').onclick = function () { setZoom(zoom / 2); };
  document.getElementById('zoom-fit').onclick = function () { setZoom(1); };
  document.getElementById('toggle-noise').onchange = function (event) {
    document.body.classList.toggle('hide-noise', !event.target.checked);
  };
  function select(mark) {
    var old = document.querySelector('.track i.selected');
    if (old) old.classList.remove('selected');
    mark.classList.add('selected');
    detail.textContent = mark.getAttribute('title');
    var row = document.getElementById('ev-' + mark.getAttribute('data-i'));
    var flashed = document.querySelector('tr.flash');
    if (flashed) flashed.classList.remove('flash');
    if (row) row.classList.add('flash');
  }
  scroll.addEventListener('click', function (event) {
    var target = event.target;
    if (target && target.tagName === 'I') select(target);
    else if (target && target.tagName === 'B') detail.textContent = target.getAttribute('title');
  });
  function showStep(step, reveal) {
    var mark = scroll.querySelector('.track i[data-i="' + step + '"]');
    if (!mark) return;
    setZoom(Math.max(zoom, 8), parseFloat(mark.style.left));
    select(mark);
    if (reveal) scroll.scrollIntoView({ block: 'nearest' });
  }
  document.querySelectorAll('button.show-step').forEach(function (button) {
    button.onclick = function () { showStep(button.getAttribute('data-step'), true); };
  });
  // A step link jumps to its row of the event log (its href) and selects its mark on the timeline.
  document.querySelectorAll('a.step').forEach(function (link) {
    link.addEventListener('click', function () { showStep(link.getAttribute('data-step'), false); });
  });
})();
`;
