// The upgrade graph of a channel as inline SVG (no script, styles from the page's stylesheet).
import type { UpgradeGraph } from '../../client/index.js';
import type { SafeHtml } from './html.js';
import { html } from './html.js';
import { NODE_WIDTH, ROW, layoutGraph } from './graph-layout.js';

export function graphSvg(g: UpgradeGraph, title: string): SafeHtml {
  const l = layoutGraph(g);
  return html`<svg
    class="graph"
    role="img"
    aria-label="${title}"
    width="${l.width}"
    height="${l.height}"
    viewBox="0 0 ${l.width} ${l.height}"
    xmlns="http://www.w3.org/2000/svg"
  >
    <title>${title}</title>
    <defs>
      <marker
        id="arrow"
        viewBox="0 0 10 10"
        refX="9"
        refY="5"
        markerWidth="6"
        markerHeight="6"
        orient="auto-start-reverse"
      >
        <path d="M0 0 L10 5 L0 10 z" class="arrowhead" />
      </marker>
    </defs>
    ${l.edges.map(
      (e) =>
        html`<path
          class="edge ${e.via}"
          d="${e.d}"
          marker-end="url(#arrow)"
          data-from="${e.from}"
          data-to="${e.to}"
          ><title>
            ${e.from} → ${e.to} (${e.via}${e.range !== undefined ? ` ${e.range}` : ''})
          </title></path
        > `,
    )}
    ${l.nodes.map(
      (n) =>
        html`<g
          class="node${n.head ? ' head' : ''}${n.deprecated !== undefined ? ' deprecated' : ''}${n.inChannel ? '' : ' external'}"
          data-name="${n.name}"
          ><rect x="${n.x}" y="${n.y}" width="${NODE_WIDTH}" height="${ROW - 4}" rx="4" /><text
            x="${n.x + 6}"
            y="${n.y + ROW / 2 + 2}"
            >${n.version ?? n.name}${n.head ? ' ★ head' : ''}${n.deprecated !== undefined ? ' ⚠ deprecated' : ''}</text
          ><title>${n.name}${n.deprecated !== undefined ? `: ${n.deprecated}` : ''}</title></g
        > `,
    )}
  </svg>`;
}
