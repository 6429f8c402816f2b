// The web converter: picks a file, finds its format from the name, offers the targets
// GET /api/formats lists for it, then runs Flow A (grant, PUT with upload progress, job, polling)
// and offers the result. Several PDFs picked or dropped at once are merged into one, in the
// order given (the `merge` operation of GET /api/operations, where the server offers it). Plain ES module, no dependencies; every URL is relative to this script,
// so the page works wherever the router is mounted.

const api = (path) => new URL(`../api/${path}`, import.meta.url).href;
const $ = (id) => document.getElementById(id);
// Every element the script touches, by id: ui.targetField is #target-field.
const ui = {};
for (const id of [
  ...['form', 'file', 'detected', 'target-field', 'target', 'lossy-note', 'start', 'progress-block'],
  ...['progress', 'percent', 'status', 'error', 'error-message', 'error-advice', 'result', 'again'],
]) {
  ui[id.replace(/-(\w)/g, (_, letter) => letter.toUpperCase())] = $(id);
}

// What to do about each error code of the API (the API's own message says what happened).
const ADVICE = {
  UNSUPPORTED_FORMAT: 'Choose a file in one of the supported formats.',
  UNSUPPORTED_CONVERSION: 'Pick another target format.',
  CONTENT_MISMATCH: 'The contents do not match the file name: check its extension, or save it again.',
  CORRUPT_INPUT: 'The file may be damaged: open it on your computer to check, or export it again.',
  PASSWORD_PROTECTED: 'Remove the password from the file, then try again.',
  INPUT_LIMIT_EXCEEDED: 'Make the file smaller (fewer pixels, pages or minutes), then try again.',
  FILE_TOO_LARGE: 'Choose a smaller file, or use an API key of a plan with a larger limit.',
  REQUEST_TOO_LARGE: 'The request was too large for the service.',
  QUOTA_EXCEEDED: 'You have used all the conversions your plan allows for now; a paid plan allows more.',
  CONVERSION_TIMEOUT: 'The conversion took too long: try a smaller file.',
  CONVERSION_FAILED: 'Try again; if it fails again, try another target format.',
  OVERLOADED: 'The server is busy: try again in a minute.',
  UNAVAILABLE:
    'The service cannot take this right now: try again in a minute; if it keeps failing, tell whoever runs it.',
  URL_EXPIRED: 'The upload link expired: start the conversion again.',
  SIGNATURE_INVALID: 'The upload link was refused: start the conversion again.',
  RESULT_EXPIRED: 'The result has been deleted: convert the file again.',
  URL_UNREACHABLE: 'Check the address, and that the page is online and public.',
  UNSAFE_INPUT: 'The file asks for something the service does not allow (a private address, a local file).',
};
const DEFAULT_ADVICE = 'Try again; if it keeps failing, tell whoever runs this service.';

/** Retry-After in words: "Try again in 30 seconds." / "... in 4 hours." */
function tryAgainIn(seconds) {
  if (seconds < 120) return `Try again in ${seconds} seconds.`;
  if (seconds < 7200) return `Try again in ${Math.ceil(seconds / 60)} minutes.`;
  return `Try again in ${Math.ceil(seconds / 3600)} hours.`;
}

class ApiError extends Error {
  constructor(code, message, retryAfter) {
    super(message);
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

let formats = null; // GET /api/formats' list, once loaded
let operations = []; // GET /api/operations' list (merge, split...), once loaded
let chosen = null; // { file, format } once a convertible file is picked, or { files, merge: true }
let busy = false;

function show(element, visible) {
  element.hidden = !visible;
}

function say(text) {
  ui.status.textContent = text;
}

function showError(message, advice) {
  ui.errorMessage.textContent = message;
  ui.errorAdvice.textContent = advice ?? '';
  show(ui.error, true);
}

function clearMessages() {
  show(ui.error, false);
  show(ui.result, false);
  show(ui.progressBlock, false);
  say('');
}

function setProgress(fraction) {
  const value = Math.max(0, Math.min(100, Math.round(fraction * 100)));
  ui.progress.value = value;
  ui.percent.textContent = `${value}%`;
}

function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** Reads an API answer: the JSON body, or an ApiError with the API's message. */
async function readJson(response) {
  const body = await response.json().catch(() => null);
  if (response.ok && body) return body;
  const retry = Number(response.headers.get('retry-after')) || undefined;
  const error = body?.error;
  throw new ApiError(
    error?.code ?? 'HTTP',
    error?.message ?? `The server answered ${response.status}.`,
    retry,
  );
}

async function postJson(path, body) {
  const init = {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
  return readJson(await fetch(api(path), init));
}

/** The format a file name ends with: the longest matching extension wins (e.g. tar.gz over gz). */
function formatOfName(name) {
  const lower = name.toLowerCase();
  let best = null;
  let bestLength = 0;
  for (const format of formats) {
    for (const ext of format.extensions) {
      if (lower.endsWith(`.${ext}`) && ext.length > bestLength) {
        best = format;
        bestLength = ext.length;
      }
    }
  }
  return best;
}

function labelOf(name) {
  return formats?.find((format) => format.name === name)?.label ?? name.toUpperCase();
}

function updateLossyNote() {
  const target = chosen?.format.targets.find((t) => t.format === ui.target.value);
  ui.lossyNote.textContent = target?.lossy
    ? `Lossy: some quality or detail is lost${target.path?.length > 2 ? ` (via ${target.path.join(' → ')})` : ''}.`
    : '';
}

/** Several files at once: PDFs to merge in the order given, where the server can merge. */
function chooseSeveral(files) {
  const merge = operations.find((operation) => operation.name === 'merge');
  const notPdf = files.find((file) => formatOfName(file.name)?.name !== 'pdf');
  if (!merge || notPdf) {
    showError(
      merge
        ? `${notPdf.name} is not a PDF: only PDFs can be combined here.`
        : 'This server converts one file at a time.',
      merge ? 'Choose PDFs only, or one file to convert.' : 'Choose one file.',
    );
    return;
  }
  if (files.length > merge.maxInputs) {
    showError(`${files.length} files is too many to merge at once.`, `Choose at most ${merge.maxInputs}.`);
    return;
  }
  const empty = files.find((file) => file.size === 0);
  if (empty) {
    showError(`${empty.name} is empty.`, 'Choose files with something in them.');
    return;
  }
  chosen = { files, merge: true };
  const total = files.reduce((sum, file) => sum + file.size, 0);
  ui.detected.textContent = `${files.length} PDFs, ${formatBytes(total)}, merged in this order: ${files.map((file) => file.name).join(', ')}`;
  ui.target.append(new Option('One PDF (merge, in this order)', 'merge'));
  ui.lossyNote.textContent = '';
  show(ui.targetField, true);
  ui.start.disabled = false;
}

function choose(file, all = []) {
  clearMessages();
  chosen = null;
  ui.target.replaceChildren();
  show(ui.targetField, false);
  ui.start.disabled = true;
  ui.detected.textContent = '';
  if (!file) return;
  if (formats && all.length > 1) return chooseSeveral(all);
  if (!formats) {
    say('Loading the list of formats…'); // loadFormats() comes back to this file
    return;
  }
  const dot = file.name.lastIndexOf('.');
  const ext = dot > 0 ? file.name.slice(dot).toLowerCase() : '';
  const format = formatOfName(file.name);
  // Refused here, before anything is sent: the server could not read it either.
  if (!format || format.targets.length === 0) {
    const what = ext ? `${ext} files` : 'files without an extension';
    showError(
      format ? `fileconv cannot convert ${what} on this server.` : `fileconv cannot read ${what}.`,
      'Choose a file in a supported format (images, video, audio, documents, spreadsheets, presentations, e-books, subtitles, data, fonts, archives), ' +
        'or rename it if its extension is wrong.',
    );
    return;
  }
  if (file.size === 0) {
    showError(`${file.name} is empty.`, 'Choose a file with something in it.');
    return;
  }
  chosen = { file, format };
  ui.detected.textContent = `${file.name}: ${format.label}, ${formatBytes(file.size)}`;
  for (const target of format.targets) {
    const option = new Option(`${labelOf(target.format)}${target.lossy ? ' (lossy)' : ''}`, target.format);
    ui.target.append(option);
  }
  updateLossyNote();
  show(ui.targetField, true);
  ui.start.disabled = false;
}

/** PUTs the bytes with XMLHttpRequest, the one browser API that reports upload progress. */
function upload(url, file, contentType) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('content-type', contentType);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) {
        setProgress(event.loaded / event.total);
        ui.percent.textContent += ` of ${formatBytes(event.total)}`;
      }
    };
    xhr.onload = () => {
      if (xhr.status === 200) return resolve();
      let error = null;
      try {
        error = JSON.parse(xhr.responseText).error;
      } catch {}
      reject(new ApiError(error?.code ?? 'HTTP', error?.message ?? `The upload failed (${xhr.status}).`));
    };
    xhr.onerror = () => reject(new TypeError('network'));
    xhr.send(file);
  });
}

async function pollJob(jobId) {
  let delay = 300;
  for (;;) {
    const job = await readJson(await fetch(api(`jobs/${encodeURIComponent(jobId)}`), { cache: 'no-store' }));
    if (job.status === 'completed') return job;
    if (job.status === 'failed' || job.status === 'canceled' || job.status === 'expired') {
      throw new ApiError(
        job.error?.code ?? 'CONVERSION_FAILED',
        job.error?.message ?? `The job was ${job.status}.`,
      );
    }
    say(job.status === 'queued' ? 'Waiting for a free converter…' : 'Converting…');
    setProgress(job.progress ?? 0);
    await new Promise((done) => setTimeout(done, delay));
    delay = Math.min(delay * 1.5, 2000);
  }
}

/** Grant and PUT of one file; returns its fileKey. */
async function send(file, contentType) {
  const grant = await postJson('files/get-upload-url', {
    fileName: file.name,
    fileSize: file.size,
    contentType,
  });
  await upload(grant.uploadUrl, file, contentType);
  return grant.fileKey;
}

/** Shows the download link of a completed job. */
function offer(job) {
  setProgress(1);
  show(ui.progressBlock, false);
  const size = job.outputSize ? ` (${formatBytes(job.outputSize)})` : '';
  const link = Object.assign(document.createElement('a'), {
    id: 'download',
    className: 'button primary',
    href: job.downloadUrl,
    download: job.outputName ?? '',
    textContent: `Download ${job.outputName ?? 'the result'}${size}`,
  });
  $('download')?.remove();
  ui.result.prepend(link);
  show(ui.result, true);
  return link;
}

/** Uploads every chosen PDF, in order, and merges them. */
async function mergeChosen() {
  const fileKeys = [];
  for (const [index, file] of chosen.files.entries()) {
    say(`Uploading ${file.name} (${index + 1} of ${chosen.files.length})…`);
    setProgress(0);
    fileKeys.push(await send(file, 'application/pdf'));
  }
  say('Uploaded. Merging…');
  setProgress(0);
  const { jobId } = await postJson('jobs/create', { operation: 'merge', fileKeys });
  const job = await pollJob(jobId);
  const link = offer(job);
  say(`Done: ${chosen.files.length} PDFs merged into ${job.outputName}.`);
  link.focus();
}

async function convert() {
  if (!chosen || busy) return;
  if (chosen.merge) return run(mergeChosen);
  return run(convertChosen);
}

/** Runs `work` with the controls locked and its errors shown in words. */
async function run(work) {
  busy = true;
  clearMessages();
  for (const control of [ui.file, ui.target, ui.start]) control.disabled = true;
  show(ui.progressBlock, true);
  setProgress(0);
  try {
    await work();
  } catch (error) {
    show(ui.progressBlock, false);
    say('');
    if (error instanceof ApiError) {
      // Rate limits and quotas say when to come back (Retry-After); other codes say what to change.
      const wait = error.retryAfter ? tryAgainIn(error.retryAfter) : '';
      const advice = ADVICE[error.code] ?? (wait ? '' : DEFAULT_ADVICE);
      showError(error.message, `${advice} ${wait}`.trim());
    } else {
      showError('The server could not be reached.', 'Check your connection, then try again.');
    }
  } finally {
    busy = false;
    ui.file.disabled = false;
    ui.target.disabled = false;
    ui.start.disabled = chosen === null;
  }
}

async function convertChosen() {
  const { file, format } = chosen;
  const targetFormat = ui.target.value;
  // The MIME type the browser guessed when it is one of the format's, else the format's own.
  const contentType = format.mimeTypes.includes(file.type) ? file.type : format.mimeTypes[0];
  say(`Uploading ${file.name}…`);
  const fileKey = await send(file, contentType);
  say('Uploaded. Starting the conversion…');
  setProgress(0);
  const { jobId } = await postJson('jobs/create', {
    fileKey,
    sourceFormat: format.name,
    targetFormat,
    fileSize: file.size,
  });
  const job = await pollJob(jobId);
  const link = offer(job);
  say(`Done: ${file.name} converted to ${labelOf(targetFormat)}.`);
  link.focus();
}

ui.file.addEventListener('change', () => choose(ui.file.files?.[0] ?? null, [...(ui.file.files ?? [])]));
ui.target.addEventListener('change', updateLossyNote);
ui.form.addEventListener('submit', (event) => {
  event.preventDefault();
  convert();
});
ui.again.addEventListener('click', () => {
  ui.file.value = '';
  choose(null);
  ui.file.focus();
});

// The whole page is the drop target; without preventDefault the browser would open the file.
let dragDepth = 0;
const root = document.documentElement;
document.addEventListener('dragenter', (event) => {
  event.preventDefault();
  dragDepth += 1;
  root.classList.add('dragging');
});
document.addEventListener('dragleave', () => {
  dragDepth = Math.max(0, dragDepth - 1);
  if (dragDepth === 0) root.classList.remove('dragging');
});
document.addEventListener('dragover', (event) => event.preventDefault());
document.addEventListener('drop', (event) => {
  event.preventDefault();
  dragDepth = 0;
  root.classList.remove('dragging');
  const files = event.dataTransfer?.files;
  if (busy || !files || files.length === 0) return;
  ui.file.files = files; // keeps the input (and what it announces) in step with the drop
  choose(files[0], [...files]);
});

async function loadFormats() {
  try {
    // The operations are an extra (merging several PDFs): a server without them still converts.
    const [formatList, operationList] = await Promise.all([
      readJson(await fetch(api('formats'))),
      fetch(api('operations'))
        .then(readJson)
        .catch(() => ({ operations: [] })),
    ]);
    formats = formatList.formats;
    operations = operationList.operations;
    const readable = formats.filter((format) => format.targets.length > 0).length;
    ui.detected.textContent = `${readable} formats can be converted here.`;
    if (ui.file.files?.length) choose(ui.file.files[0], [...ui.file.files]);
  } catch (error) {
    showError(
      error instanceof ApiError ? error.message : 'The list of formats could not be loaded.',
      'Reload the page; if it keeps failing, the service may be down.',
    );
  }
}

loadFormats();
