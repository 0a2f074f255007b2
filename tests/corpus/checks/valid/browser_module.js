// A browser ES module kept in a .js file: import/export and top-level await are valid.
import { render } from './render.js';
import * as utils from './utils.js';

export const VERSION = '1.0';

const response = await fetch(import.meta.url);
export default function start(root) {
  render(root, utils.escape(response.statusText));
}
