export { ConversionGraph } from './graph.js';
export type { ConversionPlan, ConversionStep, FindPathOptions } from './graph.js';
