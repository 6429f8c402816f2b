/**
 * The web converter page's script (bundled by scripts/build-web.mjs into web/app.js): wires the
 * files list, the PDF tools, the plan and the drop target, once the lists of formats and
 * operations are loaded.
 */
import { type Format, getJson, type Operation } from './api.js';
import { addFiles, convertAll, downloadZip, setFormats } from './batch.js';
import { alertUser, announce, byId } from './dom.js';
import { describeError } from './messages.js';
import { initPdfTools } from './pdf-tools.js';
import { initPlan } from './plan.js';

/** Files inside a dropped folder, read through the entries API (a plain FileList has only the folder). */
async function filesOf(entry: FileSystemEntry): Promise<File[]> {
  if (entry.isFile) {
    return new Promise((resolve) =>
      (entry as FileSystemFileEntry).file(
        (file) => resolve([file]),
        () => resolve([]),
      ),
    );
  }
  if (!entry.isDirectory) return [];
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  const found: File[] = [];
  // readEntries answers in chunks (100 in Chromium) until an empty one.
  for (;;) {
    const chunk = await new Promise<FileSystemEntry[]>((resolve) =>
      reader.readEntries(resolve, () => resolve([])),
    );
    if (chunk.length === 0) return found;
    for (const child of chunk) found.push(...(await filesOf(child)));
  }
}

function watchDrops(): void {
  let depth = 0;
  const root = document.documentElement;
  const carriesFiles = (event: DragEvent) => event.dataTransfer?.types.includes('Files') ?? false;
  document.addEventListener('dragenter', (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    depth += 1;
    root.classList.add('dragging');
  });
  document.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) root.classList.remove('dragging');
  });
  // Without preventDefault the browser would open the dropped file instead.
  document.addEventListener('dragover', (event) => {
    if (carriesFiles(event)) event.preventDefault();
  });
  document.addEventListener('drop', async (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    depth = 0;
    root.classList.remove('dragging');
    const transfer = event.dataTransfer;
    if (!transfer) return;
    const entries = [...transfer.items]
      .map((item) => item.webkitGetAsEntry?.())
      .filter((entry) => entry != null);
    if (entries.length > 0 && entries.some((entry) => entry.isDirectory)) {
      const files: File[] = [];
      for (const entry of entries) files.push(...(await filesOf(entry)));
      addFiles(files);
    } else {
      addFiles([...transfer.files]);
    }
  });
}

async function start(): Promise<void> {
  initPlan();
  const fileInput = byId<HTMLInputElement>('file');
  const folderInput = byId<HTMLInputElement>('folder');
  for (const input of [fileInput, folderInput]) {
    input.addEventListener('change', () => {
      // Hidden files of a folder (.DS_Store, Thumbs.db's kin) are not what anyone meant to convert.
      addFiles([...(input.files ?? [])].filter((file) => !file.name.startsWith('.')));
      input.value = '';
    });
  }
  byId('convert-all').addEventListener('click', convertAll);
  byId('zip-all').addEventListener('click', () => void downloadZip());
  watchDrops();
  try {
    // The operations are an extra (PDF tools): a server without them still converts.
    const [formatList, operationList] = await Promise.all([
      getJson<{ formats: Format[] }>('formats'),
      getJson<{ operations: Operation[] }>('operations').catch(() => ({ operations: [] })),
    ]);
    setFormats(formatList.formats);
    initPdfTools(operationList.operations);
    const readable = formatList.formats.filter((format) => format.targets.length > 0).length;
    announce(`${readable} formats can be converted here.`);
    byId('ready-note').textContent = `${readable} formats can be converted here.`;
    // Files chosen before the lists arrived.
    fileInput.disabled = false;
    folderInput.disabled = false;
  } catch (error) {
    const { message } = describeError(error);
    alertUser(
      `The list of formats could not be loaded: ${message} Reload the page; if it keeps failing, the service may be down.`,
    );
  }
}

void start();
