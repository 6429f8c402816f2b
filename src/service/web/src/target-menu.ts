/**
 * A file's target list: the few targets people usually want for its family first ("Common"),
 * then every other target grouped by its own family (<optgroup>), so a JPEG's 47 targets read
 * as a short list and labelled groups, not one alphabet. A filter box, for long lists, narrows
 * the options to those whose name or label holds the typed text.
 */
import type { Format, Target } from './api.js';
import { h } from './dom.js';

/** The usual targets per source family, most wanted first; only those the server offers are shown. */
export const COMMON_TARGETS: Readonly<Record<string, readonly string[]>> = {
  image: ['webp', 'png', 'jpg', 'avif', 'pdf'],
  video: ['mp4', 'webm', 'gif', 'mp3'],
  audio: ['mp3', 'm4a', 'wav', 'ogg', 'flac'],
  document: ['pdf', 'docx', 'odt', 'txt', 'html'],
  spreadsheet: ['xlsx', 'csv', 'pdf', 'ods'],
  presentation: ['pdf', 'pptx', 'odp'],
  ebook: ['epub', 'pdf', 'azw3', 'mobi'],
  subtitle: ['srt', 'vtt', 'ass'],
  data: ['json', 'csv', 'yaml', 'xml'],
  font: ['woff2', 'ttf', 'otf', 'woff'],
  archive: ['zip', 'tar.gz', '7z'],
};

/** Families in the order the groups are listed; a family the page does not know comes last. */
const FAMILY_ORDER = Object.keys(COMMON_TARGETS);

const FAMILY_LABELS: Readonly<Record<string, string>> = {
  image: 'Images',
  video: 'Video',
  audio: 'Audio',
  document: 'Documents',
  spreadsheet: 'Spreadsheets',
  presentation: 'Presentations',
  ebook: 'E-books',
  subtitle: 'Subtitles',
  data: 'Data',
  font: 'Fonts',
  archive: 'Archives',
};

/** Above this many targets the list gets a filter box. */
export const FILTER_FROM = 10;

/** The <optgroup>s of `source`'s targets: Common first, then one per family, each alphabetical. */
export function targetGroups(source: Format, formats: readonly Format[]): HTMLOptGroupElement[] {
  const byName = new Map(formats.map((format) => [format.name, format]));
  const offered = new Set(source.targets.map((target) => target.format));
  const common = (COMMON_TARGETS[source.family] ?? []).filter((name) => offered.has(name));
  const rest = new Map<string, Target[]>();
  for (const target of source.targets) {
    if (common.includes(target.format)) continue;
    const family = byName.get(target.format)?.family ?? 'other';
    rest.set(family, [...(rest.get(family) ?? []), target]);
  }
  const rank = (family: string) => {
    const index = FAMILY_ORDER.indexOf(family);
    return index === -1 ? FAMILY_ORDER.length : index;
  };
  const option = (name: string) => {
    const choice = new Option(name, name);
    const label = byName.get(name)?.label;
    // The label is what the filter also matches ("Portable Network Graphics" finds png).
    if (label) choice.dataset.label = label;
    return choice;
  };
  const groups: HTMLOptGroupElement[] = [];
  if (common.length > 0) groups.push(group('Common', common.map(option)));
  for (const [family, targets] of [...rest].sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))) {
    const names = targets.map((target) => target.format).sort();
    groups.push(group(FAMILY_LABELS[family] ?? 'Other', names.map(option)));
  }
  return groups;
}

function group(label: string, options: HTMLOptionElement[]): HTMLOptGroupElement {
  const element = h('optgroup', { label });
  element.append(...options);
  return element;
}

/**
 * A search box that hides the options of `select` not matching its text (and groups left
 * empty); when the chosen target is hidden, the first match is chosen and `change` fires.
 */
export function targetFilter(select: HTMLSelectElement, fileName: string): HTMLInputElement {
  const box = h('input', {
    type: 'search',
    class: 'target-filter',
    placeholder: 'Filter formats',
    'aria-label': `Filter formats for ${fileName}`,
    autocomplete: 'off',
    spellcheck: 'false',
  });
  box.addEventListener('input', () => {
    const text = box.value.trim().toLowerCase();
    const matches = (option: HTMLOptionElement) =>
      text === '' ||
      option.value.toLowerCase().includes(text) ||
      (option.dataset.label ?? '').toLowerCase().includes(text);
    for (const option of select.options) option.hidden = !matches(option);
    for (const optgroup of select.querySelectorAll('optgroup')) {
      optgroup.hidden = [...optgroup.querySelectorAll('option')].every((option) => option.hidden);
    }
    const chosen = select.selectedOptions[0];
    const first = [...select.options].find((option) => !option.hidden);
    if (chosen?.hidden && first) {
      select.value = first.value;
      select.dispatchEvent(new Event('change'));
    }
  });
  return box;
}
