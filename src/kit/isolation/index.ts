/** `fileconv/converters/isolation`: pure-JS converters in child processes of their own (isolated.ts). */
export {
  DEFAULT_ISOLATION,
  type IsolatedConverterName,
  type IsolationOptions,
  isolateConverter,
} from './isolated.js';
