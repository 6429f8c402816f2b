/** `fileconv/telemetry`: see opentelemetry.ts. */
export * from './opentelemetry.js';
