/**
 * The files list: every file picked, dropped or found in a folder, each with its detected
 * format, its own target and options, and its own state. "Convert all" runs them through Flow A
 * three at a time; a failure stops only its own file (a quota or rate refusal also stops the
 * queue: every next request would be refused the same way).
 */
import {
  ApiError,
  type CompletedJob,
  type Format,
  fetchResult,
  runJob,
  type Target,
  uploadFile,
} from './api.js';
import { alertUser, announce, appendSpaced, byId, formatBytes, h, newId, saveBlob } from './dom.js';
import { describeError, isLimit } from './messages.js';
import { refreshUsage, reportLimit } from './plan.js';
import { type OptionFields, optionFields } from './schema-form.js';
import { FILTER_FROM, targetFilter, targetGroups } from './target-menu.js';
import { makeZip, uniqueNames } from './zip.js';

const CONCURRENCY = 3;

type State = 'ready' | 'waiting' | 'uploading' | 'converting' | 'done' | 'failed' | 'unreadable';

export interface Item {
  file: File;
  format: Format | undefined;
  state: State;
  job?: CompletedJob;
  fields?: OptionFields;
  li: HTMLLIElement;
  select?: HTMLSelectElement;
  stateText: HTMLElement;
  outcome: HTMLElement;
  removeButton: HTMLButtonElement;
  formatText: HTMLElement;
  /** Re-reads the chosen target (options, labels) after the select changed. */
  retarget?: () => void;
}

export const items: Item[] = [];
let formats: Format[] = [];
const listeners: (() => void)[] = [];
let queue: Item[] = [];
let active = 0;

/** The PDF tools follow the list (which PDFs there are). */
export function onItemsChange(listener: () => void): void {
  listeners.push(listener);
}

export function setFormats(list: Format[]): void {
  formats = list;
}

/** The format a file is: its name's longest matching extension (tar.gz over gz), else its MIME type. */
export function detectFormat(file: File): Format | undefined {
  const lower = file.name.toLowerCase();
  let best: Format | undefined;
  let bestLength = 0;
  for (const format of formats) {
    for (const ext of format.extensions) {
      if (lower.endsWith(`.${ext}`) && ext.length > bestLength) {
        best = format;
        bestLength = ext.length;
      }
    }
  }
  return best ?? (file.type ? formats.find((format) => format.mimeTypes.includes(file.type)) : undefined);
}

/** A first target a person most likely wants: the one other files of this format use, else by family. */
const USUAL: Record<string, string[]> = {
  image: ['jpg', 'png'],
  document: ['pdf'],
  spreadsheet: ['xlsx', 'pdf'],
  presentation: ['pdf'],
  audio: ['mp3'],
  video: ['mp4'],
  ebook: ['pdf', 'epub'],
};

function defaultTarget(format: Format): string {
  const sibling = items.find((item) => item.format === format && item.select)?.select?.value;
  if (sibling) return sibling;
  const names = format.targets.map((target) => target.format);
  // Never the file's own format first (a JPEG photo to JPEG is rarely what was meant).
  const usual = USUAL[format.family]?.find((name) => name !== format.name && names.includes(name));
  return usual ?? names.find((name) => name !== format.name) ?? names[0] ?? '';
}

function targetOf(item: Item): Target | undefined {
  return item.format?.targets.find((target) => target.format === item.select?.value);
}

function setState(item: Item, state: State, text: string): void {
  item.state = state;
  item.stateText.textContent = text;
  item.li.dataset.state = state;
  item.removeButton.disabled = state === 'waiting' || state === 'uploading' || state === 'converting';
  if (item.select) item.select.disabled = item.removeButton.disabled;
}

function showFailure(item: Item, error: unknown): void {
  const { message, code, advice } = describeError(error);
  setState(item, 'failed', `Failed: ${message}`);
  item.outcome.replaceChildren(h('p', { class: 'reason' }, `Error code ${code}. ${advice}`.trim()));
}

function contentTypeOf(item: Item): string {
  const types = item.format?.mimeTypes ?? [];
  return types.includes(item.file.type) ? item.file.type : (types[0] ?? 'application/octet-stream');
}

async function convert(item: Item): Promise<void> {
  const format = item.format!;
  const targetFormat = item.select!.value;
  item.outcome.replaceChildren();
  setState(item, 'uploading', 'Uploading 0 %');
  summarize();
  try {
    const fileKey = await uploadFile(item.file, contentTypeOf(item), (fraction) => {
      item.stateText.textContent = `Uploading ${Math.round(fraction * 100)} %`;
    });
    setState(item, 'converting', 'Converting');
    summarize();
    const options = item.fields?.values() ?? {};
    const job = await runJob(
      {
        fileKey,
        sourceFormat: format.name,
        targetFormat,
        fileSize: item.file.size,
        ...(Object.keys(options).length > 0 ? { options } : {}),
      },
      (progress) => {
        const percent = Math.round((progress.progress ?? 0) * 100);
        item.stateText.textContent =
          progress.status === 'queued' ? 'Converting (waiting)' : `Converting ${percent} %`;
      },
    );
    item.job = job;
    const name = job.outputName ?? `${item.file.name}.${targetFormat}`;
    setState(item, 'done', 'Done');
    const size = job.outputSize ? h('span', { class: 'size' }, ` ${formatBytes(job.outputSize)}`) : '';
    item.outcome.replaceChildren(
      h('a', { href: job.downloadUrl, download: name, class: 'button' }, `Download ${name}`),
      size,
    );
  } catch (error) {
    showFailure(item, error);
    correctFormat(item, error);
    if (isLimit(error)) {
      // Every next request would be refused the same way: stop the queue, keep those files ready.
      for (const waiting of queue) setState(waiting, 'ready', 'Ready');
      queue = [];
      reportLimit(error);
    }
  }
}

/**
 * The API tells the truth on upload: a file whose content is another format than its name says
 * (a JPEG named .png) is refused with CONTENT_MISMATCH and the detected format; the item then
 * takes that format and its targets, so "Convert all" tries again with what the file really is.
 */
function correctFormat(item: Item, error: unknown): void {
  if (!(error instanceof ApiError) || error.code !== 'CONTENT_MISMATCH') return;
  const truth = formats.find((format) => format.name === error.details.detected);
  if (!truth || truth === item.format || truth.targets.length === 0 || !item.select) return;
  item.format = truth;
  item.formatText.textContent = `${truth.label} (by its content)`;
  item.select.replaceChildren(...targetGroups(truth, formats));
  item.select.value = defaultTarget(truth);
  item.retarget?.();
  item.outcome.append(
    h('p', { class: 'hint' }, `Its content is ${truth.label}: pick a target for it and convert again.`),
  );
}

function pump(): void {
  while (active < CONCURRENCY && queue.length > 0) {
    const item = queue.shift()!;
    active += 1;
    void convert(item).finally(() => {
      active -= 1;
      pump();
      summarize();
      if (active === 0 && queue.length === 0) void refreshUsage();
    });
  }
}

/** The polite summary: said on state changes, never on every percent. */
function summarize(): void {
  const count = (...states: State[]) => items.filter((item) => states.includes(item.state)).length;
  const done = count('done');
  const failed = count('failed', 'unreadable');
  const working = count('waiting', 'uploading', 'converting');
  if (working > 0) {
    announce(`Converting: ${done} done, ${failed} failed, ${working} to go.`);
  } else if (done + failed > 0) {
    announce(`Finished: ${done} converted, ${failed} failed.`);
  }
  updateButtons();
}

function runnable(item: Item): boolean {
  return item.state === 'ready' || item.state === 'failed';
}

function updateButtons(): void {
  const convertAll = byId<HTMLButtonElement>('convert-all');
  const invalid = items.some((item) => runnable(item) && item.fields && !item.fields.valid());
  // Not disabled when everything is converted: the button keeps keyboard focus through a batch.
  convertAll.disabled = invalid || items.length === 0;
  byId('convert-hint').textContent = invalid ? 'Correct the options marked invalid first.' : '';
  byId<HTMLButtonElement>('zip-all').disabled = !items.some((item) => item.state === 'done');
}

export function convertAll(): void {
  alertUser('');
  for (const item of items) {
    if (!runnable(item) || queue.includes(item)) continue;
    if (item.fields && !item.fields.valid()) continue;
    setState(item, 'waiting', 'Waiting');
    queue.push(item);
  }
  if (queue.length === 0 && active === 0) announce('Nothing left to convert: add files first.');
  else summarize();
  pump();
}

function changed(): void {
  updateButtons();
  for (const listener of listeners) listener();
}

/** Options follow the target: rebuilt from its schema whenever the target changes. */
function buildOptions(item: Item, panel: HTMLElement): void {
  item.fields = optionFields(targetOf(item)?.options ?? null, `Options for ${item.file.name}`, updateButtons);
  panel.replaceChildren(item.fields.element);
}

function useForAllLabel(item: Item): string {
  return `Use ${item.select?.value} for all ${item.format?.name} files`;
}

function buildItem(file: File): Item {
  const format = detectFormat(file);
  const li = h('li', { class: 'file' });
  const stateText = h('span', { class: 'state' });
  const outcome = h('div', { class: 'outcome' });
  const removeButton = h('button', { type: 'button', class: 'link-button' }, `Remove ${file.name}`);
  const formatText = h('span', { class: 'format' }, format ? format.label : 'unknown format');
  const item: Item = { file, format, state: 'ready', li, stateText, outcome, removeButton, formatText };
  const header = h(
    'div',
    { class: 'file-head' },
    h('span', { class: 'name' }, file.name),
    formatText,
    h('span', { class: 'size' }, formatBytes(file.size)),
  );
  appendSpaced(li, header);
  const readable = format && format.targets.length > 0;
  if (!readable || file.size === 0) {
    const dot = file.name.lastIndexOf('.');
    const what = dot > 0 ? `${file.name.slice(dot).toLowerCase()} files` : 'files without an extension';
    const message =
      file.size === 0
        ? `${file.name} is empty.`
        : format
          ? `fileconv cannot convert ${what} on this server.`
          : `fileconv cannot read ${what}.`;
    appendSpaced(li, stateText, outcome, removeButton);
    showFailure(item, new ApiError(file.size === 0 ? 'CORRUPT_INPUT' : 'UNSUPPORTED_FORMAT', message));
    item.state = 'unreadable';
    removeButton.disabled = false;
  } else {
    const selectId = newId('target');
    const select = h('select', { id: selectId });
    select.append(...targetGroups(format, formats));
    select.value = defaultTarget(format);
    const filter = format.targets.length > FILTER_FROM ? targetFilter(select, file.name) : undefined;
    item.select = select;
    const lossy = h('span', { class: 'note' });
    const useForAll = h('button', { type: 'button', class: 'link-button' }, useForAllLabel(item));
    const panel = h('div', { id: newId('options'), hidden: true });
    const toggle = h(
      'button',
      { type: 'button', class: 'link-button', 'aria-expanded': 'false', 'aria-controls': panel.id },
      `Options for ${file.name}`,
    );
    const onTarget = () => {
      useForAll.textContent = useForAllLabel(item);
      lossy.textContent = targetOf(item)?.lossy ? 'lossy' : '';
      buildOptions(item, panel);
      updateButtons();
    };
    item.retarget = onTarget;
    select.addEventListener('change', onTarget);
    useForAll.addEventListener('click', () => {
      for (const other of items) {
        if (other.format !== item.format || !other.select || other.select.disabled) continue;
        if (other.select.value === select.value) continue;
        other.select.value = select.value;
        other.select.dispatchEvent(new Event('change'));
      }
      announce(`${select.value} chosen for every ${item.format?.name} file.`);
    });
    toggle.addEventListener('click', () => {
      const open = toggle.getAttribute('aria-expanded') !== 'true';
      toggle.setAttribute('aria-expanded', String(open));
      panel.hidden = !open;
    });
    appendSpaced(
      li,
      h(
        'div',
        { class: 'target' },
        h('label', { for: selectId }, `Convert ${file.name} to`),
        select,
        filter,
        lossy,
      ),
      h('div', { class: 'actions' }, useForAll, toggle, removeButton),
      panel,
      h('div', { class: 'progress' }, stateText),
      outcome,
    );
    onTarget();
    setState(item, 'ready', 'Ready');
  }
  removeButton.addEventListener('click', () => {
    const index = items.indexOf(item);
    items.splice(index, 1);
    li.remove();
    // Focus goes to the next file's Remove button, else back to "Choose files".
    const next = items[index] ?? items[index - 1];
    (next ? next.removeButton : byId('file')).focus();
    announce(`${file.name} removed.`);
    changed();
  });
  return item;
}

export function addFiles(files: Iterable<File>): void {
  const list = byId('files');
  let added = 0;
  for (const file of files) {
    const item = buildItem(file);
    items.push(item);
    list.append(item.li);
    added += 1;
  }
  if (added > 0) announce(`${added} file${added === 1 ? '' : 's'} added; ${items.length} in the list.`);
  changed();
}

/** Fetches every result and saves them as one zip, each under its output name. */
export async function downloadZip(): Promise<void> {
  const done = items.filter((item) => item.state === 'done' && item.job);
  const button = byId<HTMLButtonElement>('zip-all');
  button.disabled = true;
  announce(`Preparing a zip of ${done.length} results…`);
  try {
    const names = uniqueNames(done.map((item) => item.job?.outputName ?? item.file.name));
    const entries = [];
    for (const [index, item] of done.entries()) {
      const data = new Uint8Array(await fetchResult(item.job!.downloadUrl));
      entries.push({ name: names[index]!, data });
    }
    saveBlob(makeZip(entries), 'fileconv-results.zip');
    announce(
      `Zip of ${entries.length} result${entries.length === 1 ? '' : 's'} ready: fileconv-results.zip.`,
    );
  } catch (error) {
    const { message, code } = describeError(error);
    alertUser(`The zip could not be made: ${message} (${code}). Download the results one by one.`);
  } finally {
    updateButtons();
  }
}
