// The stylesheet and the one script of the pages (served from /static/, as the CSP allows only
// 'self': no inline script or style).

export const CSS = `
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#fafbfc}
header{display:flex;gap:1rem;align-items:center;padding:.6rem 1.2rem;background:#1f3b57;color:#fff}
header a{color:#fff;margin-right:1rem;font-weight:600}
#live{margin-left:auto;font-size:.85rem;color:#cfe3f5}
main{padding:1rem 1.5rem;max-width:1200px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:.5rem;background:#fff;padding:.3rem;z-index:2}
a:focus,button:focus,input:focus,select:focus,[tabindex]:focus{outline:3px solid #f0a020;outline-offset:2px}
table{border-collapse:collapse;margin:.5rem 0}th,td{border-bottom:1px solid #d5dbe1;padding:.3rem .6rem;text-align:left;vertical-align:top}
.digest,.image{font-family:monospace;font-size:.8rem;word-break:break-all}
form.filters,form.upgrades{display:flex;flex-wrap:wrap;gap:.4rem .6rem;align-items:center;margin:.5rem 0 1rem;padding:.6rem;background:#eef2f6;border-radius:6px}
form label{font-size:.85rem;color:#3c4650}input,select{padding:.25rem .35rem}
ul.packages{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:.7rem}
li.package{display:flex;gap:.7rem;background:#fff;border:1px solid #d5dbe1;border-radius:8px;padding:.6rem}
li.package>div{min-width:0;overflow-wrap:anywhere}li.package h2{font-size:1.05rem;margin:0}li.package p{margin:.2rem 0}.meta{font-size:.82rem;color:#4b5560}
.noicon{display:inline-block;width:48px;height:48px;border-radius:8px;background:#d9e4ee;flex:none}
li.package img{flex:none;border-radius:8px}
.dep,.warning{color:#a4262c}.deprecated h2 a{text-decoration:line-through}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dt{font-weight:600}dd{margin:0}
pre{background:#f0f3f6;padding:.6rem;border-radius:6px;overflow:auto}
.graph-wrap{overflow:auto;max-height:640px;border:1px solid #d5dbe1;background:#fff;border-radius:6px}
svg.graph text{font:12px monospace;fill:#1b1f24}
svg.graph rect{fill:#e8f0f8;stroke:#5b7a99}
svg.graph .head rect{fill:#d6f5dd;stroke:#1e7b34;stroke-width:2}
svg.graph .deprecated rect{fill:#fbe3e4;stroke:#a4262c}
svg.graph .external rect{fill:#fff;stroke-dasharray:3 2}
svg.graph .edge{fill:none;stroke:#5b7a99;stroke-width:1.3}
svg.graph .edge.skips{stroke:#a06a00;stroke-dasharray:6 3}
svg.graph .edge.skipRange{stroke:#6a3fa0;stroke-dasharray:2 3}
svg.graph .arrowhead{fill:#5b7a99}
.legend{font-size:.8rem;color:#4b5560}
.catalog-failed{color:#a4262c;border-left:4px solid #a4262c;padding-left:.6rem}
.markdown .cut{color:#4b5560;font-style:italic}
`;

export const SCRIPT = `'use strict';
// Live updates: polls /api/revision with its ETag; when the catalogs change, fetches this page
// again and swaps its <main> (no reload). Copy buttons copy the snippet they name.
(function () {
  var etag = null;
  var live = document.getElementById('live');
  async function poll() {
    try {
      var res = await fetch('/api/revision', { headers: etag ? { 'If-None-Match': etag } : {} });
      if (res.status === 200) {
        etag = res.headers.get('ETag');
        var rev = (await res.json()).revision;
        if (rev !== document.body.dataset.revision) await swap(rev);
      }
    } catch (e) { /* server gone: try again later */ }
    setTimeout(poll, 2000);
  }
  async function swap(rev) {
    var res = await fetch(location.href, { headers: { Accept: 'text/html' } });
    if (!res.ok) return;
    var doc = new DOMParser().parseFromString(await res.text(), 'text/html');
    var main = doc.getElementById('main');
    if (!main) return;
    document.getElementById('main').replaceChildren.apply(document.getElementById('main'), Array.from(main.childNodes));
    document.body.dataset.revision = doc.body.dataset.revision || rev;
    if (live) live.textContent = 'Updated ' + new Date().toLocaleTimeString();
  }
  document.addEventListener('click', function (ev) {
    var t = ev.target;
    if (t && t.matches && t.matches('button.copy')) {
      var el = document.getElementById(t.dataset.copy);
      if (el && navigator.clipboard) navigator.clipboard.writeText(el.textContent).then(function () { t.textContent = 'Copied'; });
    }
  });
  setTimeout(poll, 2000);
})();
`;
