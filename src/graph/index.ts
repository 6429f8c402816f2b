export type { ConversionPlan, ConversionStep, ConversionGraphOptions, FindPathOptions } from './graph.js';
export { ConversionGraph } from './graph.js';
