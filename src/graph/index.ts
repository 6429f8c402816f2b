export type { ConversionPlan, ConversionStep, FindPathOptions } from './graph.js';
export { ConversionGraph } from './graph.js';
