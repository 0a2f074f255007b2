import { readFile } from 'node:fs/promises';

const text = await readFile(new URL('./data.json', import.meta.url), 'utf8');
export const data = JSON.parse(text);
