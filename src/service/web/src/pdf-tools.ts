/**
 * PDF tools over the PDFs of the files list (GET /api/operations says which the server has):
 * merge in an order set by drag and drop or by the Move up/down buttons, split by page ranges,
 * compress, rotate; and a web page address captured to PDF. Each is one job (jobs/create with
 * {operation, fileKeys, options} or {url, targetFormat: 'pdf'}).
 */
import { type CompletedJob, type Operation, runJob, uploadFile } from './api.js';
import { items, onItemsChange } from './batch.js';
import { announce, byId, h } from './dom.js';
import { describeError, isLimit } from './messages.js';
import { refreshUsage, reportLimit } from './plan.js';

const TOOLS = ['merge', 'split', 'compress', 'rotate'];
/** Print-dialog page ranges: "1-3,5", "7-", "all". */
const PAGE_RANGES = /^\s*(all|\d+(\s*-\s*\d*)?(\s*,\s*\d+(\s*-\s*\d*)?)*)\s*$/i;

let order: File[] = [];
let dragged: number | undefined;

function pdfs(): File[] {
  return items.filter((item) => item.format?.name === 'pdf').map((item) => item.file);
}

function tool(): string {
  return byId<HTMLSelectElement>('pdf-tool').value;
}

function move(from: number, to: number): void {
  if (to < 0 || to >= order.length || from === to) return;
  const [file] = order.splice(from, 1);
  order.splice(to, 0, file!);
  renderOrder();
  announce(`${file!.name} is now number ${to + 1} of ${order.length}.`);
}

function renderOrder(focus?: string): void {
  const list = byId('merge-order');
  list.replaceChildren(
    ...order.map((file, index) => {
      const up = h('button', { type: 'button', class: 'icon-button', disabled: index === 0 }, '↑');
      up.setAttribute('aria-label', `Move ${file.name} up`);
      const down = h(
        'button',
        { type: 'button', class: 'icon-button', disabled: index === order.length - 1 },
        '↓',
      );
      down.setAttribute('aria-label', `Move ${file.name} down`);
      up.addEventListener('click', () => {
        move(index, index - 1);
        focusMoved(file.name, 'up');
      });
      down.addEventListener('click', () => {
        move(index, index + 1);
        focusMoved(file.name, 'down');
      });
      const li = h(
        'li',
        { draggable: 'true', class: 'order-item' },
        h('span', { class: 'name' }, file.name),
        up,
        down,
      );
      li.addEventListener('dragstart', (event) => {
        dragged = index;
        event.dataTransfer?.setData('text/plain', file.name);
      });
      li.addEventListener('dragover', (event) => {
        if (dragged !== undefined) event.preventDefault();
      });
      li.addEventListener('drop', (event) => {
        if (dragged === undefined) return;
        event.preventDefault();
        event.stopPropagation();
        move(dragged, index);
        dragged = undefined;
      });
      li.addEventListener('dragend', () => {
        dragged = undefined;
      });
      return li;
    }),
  );
  if (focus) (list.querySelector(`[aria-label="${CSS.escape(focus)}"]`) as HTMLElement | null)?.focus();
}

/** Keeps focus on the moved file's button (or its other one at the list's end). */
function focusMoved(name: string, direction: 'up' | 'down'): void {
  const list = byId('merge-order');
  const wanted = list.querySelector<HTMLButtonElement>(
    `[aria-label="${CSS.escape(`Move ${name} ${direction}`)}"]`,
  );
  const other = direction === 'up' ? 'down' : 'up';
  (wanted?.disabled
    ? list.querySelector<HTMLElement>(`[aria-label="${CSS.escape(`Move ${name} ${other}`)}"]`)
    : wanted
  )?.focus();
}

/** Keeps the merge order in step with the list: new PDFs at the end, removed ones out. */
function syncPdfs(): void {
  const present = pdfs();
  order = [
    ...order.filter((file) => present.includes(file)),
    ...present.filter((file) => !order.includes(file)),
  ];
  renderOrder();
  const single = byId<HTMLSelectElement>('pdf-file');
  const chosen = single.value;
  single.replaceChildren(...present.map((file, index) => new Option(file.name, String(index))));
  const keep = present.findIndex((file) => file.name === chosen);
  if (keep >= 0) single.value = String(keep);
  byId('pdf-none').hidden = present.length > 0;
  updateTool();
}

function rangesProblem(): string {
  const input = byId<HTMLInputElement>('page-ranges');
  const problem = PAGE_RANGES.test(input.value) ? '' : 'Enter pages like 1-3,5 or 7-.';
  byId('page-ranges-error').textContent = problem;
  if (problem) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
  return problem;
}

function updateTool(): void {
  const name = tool();
  byId('pdf-merge').hidden = name !== 'merge';
  byId('pdf-single').hidden = name === 'merge';
  byId('pdf-split').hidden = name !== 'split';
  byId('pdf-rotate').hidden = name !== 'rotate';
  const run = byId<HTMLButtonElement>('run-tool');
  run.textContent = `Run ${name}`;
  const count = pdfs().length;
  run.disabled = name === 'merge' ? count < 2 : count < 1;
}

function offer(where: HTMLElement, job: CompletedJob): HTMLAnchorElement {
  const name = job.outputName ?? 'result';
  const link = h('a', { href: job.downloadUrl, download: name, class: 'button primary' }, `Download ${name}`);
  where.replaceChildren(link);
  return link;
}

async function runTool(): Promise<void> {
  const name = tool();
  const state = byId('tool-state');
  const result = byId('tool-result');
  if (name === 'split' && rangesProblem()) return;
  const present = pdfs();
  const files = name === 'merge' ? order : [present[Number(byId<HTMLSelectElement>('pdf-file').value)]!];
  const options: Record<string, unknown> =
    name === 'split'
      ? { pages: byId<HTMLInputElement>('page-ranges').value.trim() }
      : name === 'rotate'
        ? { angle: Number(byId<HTMLSelectElement>('rotation').value) }
        : {};
  const run = byId<HTMLButtonElement>('run-tool');
  run.disabled = true;
  result.replaceChildren();
  try {
    const fileKeys = [];
    for (const [index, file] of files.entries()) {
      state.textContent = `Uploading ${file.name} (${index + 1} of ${files.length})`;
      fileKeys.push(await uploadFile(file, 'application/pdf', () => {}));
    }
    state.textContent = `Running ${name}`;
    announce(`Running ${name} on ${files.length} PDF${files.length === 1 ? '' : 's'}.`);
    const job = await runJob({
      operation: name,
      fileKeys,
      ...(Object.keys(options).length ? { options } : {}),
    });
    state.textContent = 'Done';
    offer(result, job).focus();
    announce(`${name} done: ${job.outputName ?? 'result'} is ready.`);
  } catch (error) {
    const { message, code, advice } = describeError(error);
    state.textContent = `Failed: ${message} (${code}) ${advice}`.trim();
    if (isLimit(error)) reportLimit(error);
  } finally {
    updateTool();
    void refreshUsage();
  }
}

async function capturePage(): Promise<void> {
  const input = byId<HTMLInputElement>('page-url');
  const state = byId('url-state');
  const result = byId('url-result');
  const button = byId<HTMLButtonElement>('url-convert');
  let url: URL;
  try {
    url = new URL(input.value.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('protocol');
    input.removeAttribute('aria-invalid');
  } catch {
    input.setAttribute('aria-invalid', 'true');
    state.textContent = 'Enter a full address starting with https:// or http://.';
    return;
  }
  button.disabled = true;
  result.replaceChildren();
  state.textContent = 'Converting';
  announce(`Converting ${url.host} to PDF.`);
  try {
    const job = await runJob({ url: url.href, targetFormat: 'pdf' });
    state.textContent = 'Done';
    offer(result, job).focus();
    announce(`${job.outputName ?? 'The PDF'} is ready.`);
  } catch (error) {
    const { message, code, advice } = describeError(error);
    state.textContent = `Failed: ${message} (${code}) ${advice}`.trim();
    if (isLimit(error)) reportLimit(error);
  } finally {
    button.disabled = false;
    void refreshUsage();
  }
}

export function initPdfTools(operations: Operation[]): void {
  const offered = TOOLS.filter((name) => operations.some((operation) => operation.name === name));
  const select = byId<HTMLSelectElement>('pdf-tool');
  select.replaceChildren(...offered.map((name) => new Option(name, name)));
  byId('pdf-tools').hidden = offered.length === 0;
  select.addEventListener('change', updateTool);
  byId('page-ranges').addEventListener('input', rangesProblem);
  byId('tool-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void runTool();
  });
  byId('url-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void capturePage();
  });
  onItemsChange(syncPdfs);
  syncPdfs();
}
