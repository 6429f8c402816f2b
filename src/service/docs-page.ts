/**
 * GET /api/docs: the OpenAPI document as one self-contained HTML page, rendered on the server.
 * No script, no CDN, no external stylesheet: it must work offline and behind any CSP. Every
 * value from the document is escaped (descriptions and schema patterns hold <, >, & and quotes).
 */

import type { OpenApiDocument } from './openapi.js';
import type { JsonObject } from './openapi-types.js';

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

const CSS = `
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:980px;padding:1rem 1.5rem;color:#1d232a}
h1{margin-bottom:.2rem}h2{border-bottom:1px solid #ccd;padding-bottom:.2rem;margin-top:2.2rem}
section.op{border:1px solid #d5d9e0;border-radius:6px;margin:1rem 0;padding:.3rem 1rem .8rem}
.op h3{font-family:ui-monospace,monospace;font-size:1rem}
.m{display:inline-block;min-width:4.2rem;text-align:center;border-radius:4px;color:#fff;padding:0 .4rem;margin-right:.5rem}
.get{background:#2f6fb2}.post{background:#2b8a4b}.put{background:#b26d00}.delete{background:#b33}
table{border-collapse:collapse;width:100%;margin:.4rem 0}td,th{border:1px solid #e0e3e8;padding:.25rem .5rem;text-align:left;vertical-align:top}
code,pre{font-family:ui-monospace,monospace;font-size:.85rem}pre{background:#f5f7fa;padding:.5rem;overflow:auto;max-height:24rem}
details summary{cursor:pointer;color:#2f6fb2}nav a{margin-right:1rem}.muted{color:#667}
`;

/** An id for a tag's heading ('Flow A' -> 'tag-flow-a'): ids hold no spaces. */
const tagAnchor = (name: string) => `tag-${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;

const pretty = (value: unknown) => `<pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre>`;

type Schemas = Record<string, JsonObject>;

/** Description text: escaped, then its Markdown `code` spans as <code> (backticks survive escaping). */
const prose = (value: unknown) => escapeHtml(value).replace(/`([^`]+)`/g, '<code>$1</code>');

/**
 * A schema: for a $ref, a link to its component, and the component itself unfolded in place when
 * `schemas` is given (request and success bodies; the error envelope is only linked).
 */
function schemaHtml(schema: unknown, schemas?: Schemas): string {
  const target = (schema as { $ref?: unknown } | undefined)?.$ref;
  if (typeof target === 'string') {
    const name = target.split('/').pop() ?? target;
    const link = `<a href="#schema-${escapeHtml(name)}"><code>${escapeHtml(name)}</code></a>`;
    const component = schemas?.[name];
    return component ? `${link}<details><summary>schema</summary>${pretty(component)}</details>` : link;
  }
  return schema === undefined ? '' : `<details><summary>schema</summary>${pretty(schema)}</details>`;
}

function contentHtml(content: unknown, schemas?: Schemas): string {
  if (!content || typeof content !== 'object') return '<span class="muted">empty body</span>';
  return Object.entries(content as Record<string, { schema?: unknown }>)
    .map(([type, media]) => `<code>${escapeHtml(type)}</code> ${schemaHtml(media.schema, schemas)}`)
    .join('<br>');
}

function parametersHtml(parameters: unknown): string {
  if (!Array.isArray(parameters) || parameters.length === 0) return '';
  const rows = (parameters as JsonObject[]).map(
    (p) =>
      `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${escapeHtml(
        (p.schema as JsonObject | undefined)?.type ?? '',
      )}</td><td>${prose(p.description ?? '')}</td></tr>`,
  );
  return `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>type</th><th>description</th></tr>${rows.join('')}</table>`;
}

/** Rate-limit headers are on every answer (said once at the top); a row lists only the others. */
const isLimitHeader = (name: string) => /^(x-)?ratelimit/i.test(name);

function responsesHtml(responses: unknown, schemas: Schemas): string {
  const rows = Object.entries((responses ?? {}) as Record<string, JsonObject>).map(([status, response]) => {
    const schema = (response.content as Record<string, { schema?: JsonObject }> | undefined)?.[
      'application/json'
    ]?.schema;
    // Error answers narrow the envelope to their codes (allOf): show the envelope's link only.
    const body = Array.isArray(schema?.allOf)
      ? schemaHtml(schema.allOf[0])
      : contentHtml(response.content, schemas);
    const headers = Object.keys((response.headers ?? {}) as JsonObject)
      .filter((name) => !isLimitHeader(name))
      .map((name) => `<code>${escapeHtml(name)}</code>`)
      .join(' ');
    return `<tr><td><b>${escapeHtml(status)}</b></td><td>${prose(response.description)}</td><td>${
      status === '200' || !schema ? body : `<code>application/json</code> ${body}`
    }</td><td>${headers}</td></tr>`;
  });
  return `<h4>Responses</h4><table><tr><th>status</th><th>description / error codes</th><th>body</th><th>headers</th></tr>${rows.join('')}</table>`;
}

function operationHtml(method: string, path: string, operation: JsonObject, schemas: Schemas): string {
  const id = escapeHtml(operation.operationId);
  const body = operation.requestBody as JsonObject | undefined;
  const limit = operation['x-rate-limit'] as JsonObject | undefined;
  return `<section class="op" id="op-${id}">
<h3><span class="m ${escapeHtml(method)}">${escapeHtml(method.toUpperCase())}</span>${escapeHtml(path)}</h3>
<p><b>${escapeHtml(operation.summary)}</b>${operation.description ? ` ${prose(operation.description)}` : ''}</p>
<p class="muted">operationId <code>${id}</code>${
    limit
      ? `; rate limit "${escapeHtml(limit.policy)}": ${escapeHtml(limit.limit)} requests per ${escapeHtml(limit.windowSeconds)} s per IP without a key`
      : ''
  }</p>
${parametersHtml(operation.parameters)}
${body ? `<h4>Request body</h4><div>${prose(body.description ?? '')} ${contentHtml(body.content, schemas)}</div>` : ''}
${responsesHtml(operation.responses, schemas)}
</section>`;
}

export function renderDocsPage(doc: OpenApiDocument): string {
  const byTag = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const tag = String((operation.tags as unknown[] | undefined)?.[0] ?? 'Other');
      byTag.set(tag, [
        ...(byTag.get(tag) ?? []),
        operationHtml(method, path, operation, doc.components.schemas),
      ]);
    }
  }
  const sections = doc.tags
    .filter((tag) => byTag.has(tag.name))
    .map(
      (tag) =>
        `<h2 id="${tagAnchor(tag.name)}">${escapeHtml(tag.name)}</h2><p>${prose(tag.description)}</p>${byTag.get(tag.name)!.join('\n')}`,
    );
  const schemas = Object.entries(doc.components.schemas).map(
    ([name, schema]) =>
      `<h3 id="schema-${escapeHtml(name)}"><code>${escapeHtml(name)}</code></h3>${pretty(schema)}`,
  );
  const server = doc.servers?.[0]?.url;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(doc.info.title)}</title><style>${CSS}</style></head><body>
<h1>${escapeHtml(doc.info.title)}</h1>
<p class="muted">version ${escapeHtml(doc.info.version)}${server ? `; base URL <code>${escapeHtml(server)}</code>` : ''}; machine-readable: <a href="openapi.json">openapi.json</a> (OpenAPI ${escapeHtml(doc.openapi)})</p>
<p>${prose(doc.info.description)}</p>
<p>Authentication is optional: without it a caller is on the Free plan, limited per IP; a paid plan sends <code>Authorization: Bearer &lt;API_KEY&gt;</code> and is limited per account at its plan's rates (see <code>GET /api/usage</code>). Limited answers carry <code>RateLimit-Policy</code>, <code>RateLimit</code> and <code>X-RateLimit-*</code> headers; a 429 carries <code>Retry-After</code>.</p>
<nav>${doc.tags.map((tag) => `<a href="#${tagAnchor(tag.name)}">${escapeHtml(tag.name)}</a>`).join('')}<a href="#schemas">Schemas</a></nav>
${sections.join('\n')}
<h2 id="schemas">Schemas</h2>
${schemas.join('\n')}
</body></html>
`;
}
