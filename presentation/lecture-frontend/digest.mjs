// One digest of what the lecture front end is built from: package.json, package-lock.json, build.mjs, this file and
// src/. tests/test_lecture_frontend.py computes the same digest in Python, so a change to a source that was not
// followed by `make lecture-frontend` fails the tests.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const SOURCES = ['package.json', 'package-lock.json', 'build.mjs', 'digest.mjs'];

export function sourceDigest(root) {
  const files = [...SOURCES, ...readdirSync(join(root, 'src')).sort().map(name => `src/${name}`)];
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file}\n`);
    hash.update(readFileSync(join(root, file)));
  }
  return hash.digest('hex');
}
