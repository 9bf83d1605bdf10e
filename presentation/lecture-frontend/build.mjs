// Builds the lecture mode's front end into presentation/voila/templates/lecture/static/, where Voila serves it:
// lecture.js and lecture.css (src/index.js with ipywidgets' widget manager, anywidget and the kernel connection), and
// the parts of MathJax 3 the page loads (its TeX-to-HTML component, fonts and TeX extensions). `make lecture-frontend`
// runs this after `npm ci`; the built files are committed, so neither a learner nor Binder needs Node.js.
import * as esbuild from 'esbuild';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceDigest } from './digest.mjs';

const here = dirname(fileURLToPath(import.meta.url));

const out = join(here, '..', 'voila', 'templates', 'lecture', 'static');
mkdirSync(out, { recursive: true });

await esbuild.build({
  entryPoints: [join(here, 'src', 'index.js')],
  bundle: true,
  // LECTURE_DEBUG=1 node build.mjs: readable, each module under a comment naming it (for a profile of the page).
  minify: process.env.LECTURE_DEBUG !== '1',
  format: 'iife',
  target: 'es2020',
  outfile: join(out, 'lecture.js'),
  legalComments: 'linked',
  banner: { js: "performance.mark('lecture:script');" },
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
});

const mathjax = join(here, 'node_modules', 'mathjax', 'es5');
const mathjaxOut = join(out, 'mathjax');
rmSync(mathjaxOut, { recursive: true, force: true });
for (const part of ['tex-chtml.js', 'output/chtml/fonts/woff-v2', 'input/tex/extensions']) {
  cpSync(join(mathjax, part), join(mathjaxOut, part), { recursive: true });
}
cpSync(join(here, 'node_modules', 'mathjax', 'LICENSE'), join(mathjaxOut, 'LICENSE'));

// What the files were built from, checked by tests/test_lecture_frontend.py against the sources in the checkout.
writeFileSync(join(out, 'lecture.digest'), `${sourceDigest(here)}\n`);
