import axios from 'axios';
import { readFile } from 'node:fs/promises';
export const get = (url) => axios.get(url);
export const read = (path) => readFile(path, 'utf8');
