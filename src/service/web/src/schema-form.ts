/**
 * Option fields generated from the JSON Schema GET /api/formats gives for a conversion (or GET
 * /api/operations for a tool): one labelled field per property, checked in the browser against
 * the schema (type, minimum/maximum, enum) before anything is sent, so a typo costs no upload.
 */
import type { JsonSchema } from './api.js';
import { h, newId } from './dom.js';

export interface OptionFields {
  /** The fields, in a role=group named by the caller. */
  element: HTMLElement;
  /** The values the user gave (empty fields are left to the server's defaults). */
  values(): Record<string, unknown>;
  /** Whether every field holds a valid value (or none). */
  valid(): boolean;
}

/** "maxWidth" -> "Max width": the label when the schema gives no title. */
export function labelFor(name: string, schema: JsonSchema): string {
  if (schema.title) return schema.title;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The property's allowed values when it is an enum (enum, or anyOf/oneOf of consts). */
function choicesOf(schema: JsonSchema): unknown[] | undefined {
  if (schema.enum) return schema.enum;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.every((alternative) => 'const' in alternative)) {
    return alternatives.map((alternative) => alternative.const);
  }
  return undefined;
}

function typeOf(schema: JsonSchema): string | undefined {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type) return type;
  return (schema.anyOf ?? schema.oneOf)?.map(typeOf).find((t) => t !== undefined && t !== 'null');
}

/** Why a number field's text is not acceptable, or '' when it is. */
export function numberProblem(text: string, schema: JsonSchema, integer: boolean): string {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) return 'Enter a number.';
  if (integer && !Number.isInteger(value)) return 'Enter a whole number.';
  if (schema.minimum !== undefined && value < schema.minimum) return `Enter ${schema.minimum} or more.`;
  if (schema.maximum !== undefined && value > schema.maximum) return `Enter ${schema.maximum} or less.`;
  if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum)
    return `Enter more than ${schema.exclusiveMinimum}.`;
  if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum)
    return `Enter less than ${schema.exclusiveMaximum}.`;
  return '';
}

interface Field {
  row: HTMLElement;
  read(): { value?: unknown; problem: string };
}

function numberField(id: string, schema: JsonSchema, integer: boolean, onChange: () => void): Field {
  const input = h('input', {
    id,
    type: 'number',
    inputmode: integer ? 'numeric' : 'decimal',
    min: schema.minimum ?? schema.exclusiveMinimum,
    max: schema.maximum ?? schema.exclusiveMaximum,
    step: integer ? 1 : 'any',
    placeholder: schema.default === undefined ? undefined : String(schema.default),
  });
  const message = h('span', { id: `${id}-error`, class: 'field-error' });
  const read = () => {
    // A value the browser cannot parse reads as '' with badInput set: still a problem.
    if (input.value === '' && !input.validity.badInput) return { problem: '' };
    const problem = input.validity.badInput ? 'Enter a number.' : numberProblem(input.value, schema, integer);
    return { value: problem ? undefined : Number(input.value), problem };
  };
  input.addEventListener('input', () => {
    const { problem } = read();
    message.textContent = problem;
    if (problem) {
      input.setAttribute('aria-invalid', 'true');
      input.setAttribute('aria-describedby', message.id);
    } else {
      input.removeAttribute('aria-invalid');
      input.removeAttribute('aria-describedby');
    }
    onChange();
  });
  return { row: h('span', {}, input, message), read };
}

function choiceField(id: string, schema: JsonSchema, choices: unknown[], onChange: () => void): Field {
  const select = h('select', { id });
  const defaultText = schema.default === undefined ? '' : ` (${String(schema.default)})`;
  select.append(new Option(`Default${defaultText}`, ''));
  for (const [index, choice] of choices.entries()) select.append(new Option(String(choice), String(index)));
  select.addEventListener('change', onChange);
  return {
    row: select,
    read: () => ({ value: select.value === '' ? undefined : choices[Number(select.value)], problem: '' }),
  };
}

function booleanField(id: string, schema: JsonSchema, onChange: () => void): Field {
  const input = h('input', { id, type: 'checkbox', checked: schema.default === true });
  input.addEventListener('change', onChange);
  // Only a change from the default is sent.
  return {
    row: input,
    read: () => ({
      value: input.checked === (schema.default === true) ? undefined : input.checked,
      problem: '',
    }),
  };
}

function textField(id: string, schema: JsonSchema, onChange: () => void): Field {
  const input = h('input', {
    id,
    type: 'text',
    maxlength: schema.maxLength,
    placeholder: schema.default === undefined ? undefined : String(schema.default),
  });
  input.addEventListener('input', onChange);
  return { row: input, read: () => ({ value: input.value === '' ? undefined : input.value, problem: '' }) };
}

/** The fields of a schema's properties; onChange runs after each edit (to re-check "Convert all"). */
export function optionFields(
  schema: JsonSchema | null,
  groupName: string,
  onChange: () => void,
): OptionFields {
  const fields: [string, Field][] = [];
  const element = h('div', { role: 'group', 'aria-label': groupName, class: 'options' });
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    const id = newId('opt');
    const choices = choicesOf(property);
    const type = typeOf(property);
    const field = choices
      ? choiceField(id, property, choices, onChange)
      : type === 'integer' || type === 'number'
        ? numberField(id, property, type === 'integer', onChange)
        : type === 'boolean'
          ? booleanField(id, property, onChange)
          : type === 'string'
            ? textField(id, property, onChange)
            : undefined; // objects and arrays: the API's defaults
    if (!field) continue;
    const hint = property.description ? h('small', { class: 'hint' }, property.description) : null;
    element.append(
      h('div', { class: 'option' }, h('label', { for: id }, labelFor(name, property)), field.row, hint),
    );
    fields.push([name, field]);
  }
  if (fields.length === 0) element.append(h('p', { class: 'hint' }, 'No options for this conversion.'));
  return {
    element,
    values() {
      const values: Record<string, unknown> = {};
      for (const [name, field] of fields) {
        const { value } = field.read();
        if (value !== undefined) values[name] = value;
      }
      return values;
    },
    valid: () => fields.every(([, field]) => field.read().problem === ''),
  };
}
