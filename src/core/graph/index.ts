export type { ConversionGraphOptions, ConversionPlan, ConversionStep, FindPathOptions } from './graph.js';
export { ConversionGraph } from './graph.js';
