// The report's stylesheet, inlined (the file must open offline). System fonts only. A line under a
// row (tableHtml) wraps to the table's width: a published number's source and caveat are paragraphs,
// so that table fits a 1,024 px window. The Runs table is set tighter than the others and its row
// labels and run ids (each whole, on one line) stay in view: it fits a 1,280 px window and, wider than
// its section, scrolls in it (README "Reports"). On a phone's window (down to 375 px) the page itself
// never scrolls sideways: text wraps (a long token breaks where it would overflow), figures shrink to
// the column, and only a table too wide to wrap scrolls, in its own section, its title, notes and the
// lines under its rows held in view (sticky; a line at most as wide as the section, 100cqi: inside
// min(100%, …) so the cap stays out of the table's column widths, and a table that fits is laid out
// as before).
export const REPORT_CSS = `
:root{--fg:#1d1d1f;--muted:#5f6368;--line:#dadce0;--ok:#1e7b34;--bad:#b3261e;--err:#8a5a00;--bg2:#f6f7f9}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);margin:0 auto;padding:1.5em 2em;max-width:80em;overflow-wrap:break-word}
h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.3em;border-bottom:1px solid var(--line);padding-bottom:.2em;margin-top:2em}h3{font-size:1.05em;margin:1.4em 0 .4em}
nav a{color:#1a56b0}.meta{color:var(--muted)}
table{border-collapse:collapse;margin:.4em 0}
th,td{padding:.25em .7em;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
thead th{border-bottom:1.5px solid #999;font-weight:600}th.group{text-align:center;border-bottom:1px solid #bbb}
.num{text-align:right;font-variant-numeric:tabular-nums}
tbody th{font-weight:500}
tr.paper td,tr.paper th{color:var(--muted);font-style:italic}
tr.ours+tr.paper td,tr.ours+tr.paper th{border-top:1.5px solid #999}
.notes{color:var(--muted);font-size:.9em;margin:.2em 0 0;padding-left:1.2em}
figure{margin:1em 0}figcaption{font-weight:600;margin-bottom:.3em}figure svg{max-width:100%;height:auto}
section.report-table{overflow-x:auto;container-type:inline-size}section.report-table>:not(table){position:sticky;left:0}
table.runs{font-size:.93em}table.runs th,table.runs td{padding:.25em .4em}table.runs thead th{font-size:.9em}
table.runs thead th:first-child,table.runs tbody th{position:sticky;left:0;background:#fff;box-shadow:inset -1px 0 var(--line)}
tr.lined>*{border-bottom:0}tr.under-row td{padding-top:0;color:var(--muted);font-size:.9em}.row-line{overflow-wrap:anywhere}
table:not(.runs) .row-line{position:sticky;left:.7em;max-width:min(100%,100cqi - 1.4em)}
table.runs .row-line{position:sticky;left:.5em;width:max-content;overflow-wrap:normal}table.runs .row-line .v{font-family:ui-monospace,Menlo,monospace}
.filters{display:flex;flex-wrap:wrap;gap:.6em 1.2em;align-items:center;background:var(--bg2);padding:.6em .8em;border-radius:6px}
.filters label{display:flex;gap:.4em;align-items:center}
.filters input{min-width:18em}
.filters select{max-width:100%}
#episode-list{max-height:75vh;overflow-y:auto;overflow-anchor:none}
details.episode{border:1px solid var(--line);border-radius:6px;margin:0 0 .35em;background:#fff}
details.episode>summary{cursor:pointer;padding:.35em .6em;display:flex;gap:.7em;align-items:baseline;flex-wrap:wrap}
details.episode:not([open])>summary{height:2.2em;flex-wrap:nowrap;overflow:hidden;white-space:nowrap}
details.episode:not([open])>summary>span{flex-shrink:0}details.episode:not([open])>summary>.item{flex-shrink:1;min-width:8em;overflow:hidden;text-overflow:ellipsis}details.episode:not([open])>summary>.ans{flex-shrink:1;min-width:0;max-width:40%;overflow:hidden;text-overflow:ellipsis}
details.episode[open]>summary{border-bottom:1px solid var(--line);background:var(--bg2)}
.badge{font-size:.8em;padding:0 .5em;border-radius:1em;color:#fff}
.badge.correct{background:var(--ok)}.badge.incorrect{background:var(--bad)}.badge.error{background:var(--err)}
.where{color:var(--muted);font-family:ui-monospace,Menlo,monospace;font-size:.9em}
.item{flex:1 1 20em;overflow-wrap:anywhere}.ans{color:var(--muted);font-size:.9em;overflow-wrap:anywhere}
.tag{font-size:.8em;border:1px solid #aaa;border-radius:1em;padding:0 .5em;color:#444}
.episode-body{padding:.5em .9em .8em}
.kv{display:flex;gap:.8em;margin:.15em 0}.kv .k{min-width:5.5em;color:var(--muted)}.kv .v{white-space:pre-wrap;overflow-wrap:anywhere}
.kv.error .v{color:var(--err)}
ol.steps{list-style:none;padding:0;margin:.6em 0}
li.step{border-left:3px solid #c5cbd3;padding:.2em .7em;margin:.4em 0}
.step-no{font-size:.8em;color:var(--muted)}
.thought span,.observation span{white-space:pre-wrap;overflow-wrap:anywhere}
.action code{background:#eef3fb;padding:0 .3em;border-radius:3px;white-space:pre-wrap;overflow-wrap:anywhere}
.observation{color:#333}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--bg2);padding:.6em;border-radius:4px;max-height:32em;overflow:auto;font-size:.85em}
details.prompt,p.prompt{margin:.3em 0}p.prompt{padding-left:1.1em;color:var(--muted)}details.prompt>summary{cursor:pointer}
button{margin:.8em 0;padding:.3em 1em}
@media (max-width:640px){
body{padding:1em .75em}.filters label{flex-wrap:wrap}.filters input{min-width:0;max-width:100%}
details.episode:not([open])>summary>.item{min-width:0}details.episode:not([open])>summary>.ans{flex-shrink:1000}
}
`;
