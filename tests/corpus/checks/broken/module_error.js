import { x } from './x.js';
export const y = x +;
