/** `fileconv/converters/isolation`: pure-JS converters in child processes of their own (isolated.ts). */
export {
  DEFAULT_ISOLATION,
  type IsolatedFactory,
  type IsolationOptions,
  isolateConverter,
} from './isolated.js';
