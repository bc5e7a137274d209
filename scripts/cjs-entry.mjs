// Run in a package directory after `tsc -b`: gives `require('<package>')` a CommonJS entry with CommonJS
// types, so `require` and `import` both work and both type-check (are-the-types-wrong: node10, node16-cjs,
// node16-esm, bundler).
//
// The runtime is not duplicated: dist/index.cjs only `require`s the ES module (Node >= 20.19 loads ESM
// synchronously through require), so a program that mixes require and import gets ONE instance of each
// module — no dual-package hazard (two ToolgateError classes, two error-code registries). The types are the
// tsc declarations copied as .d.cts with their relative specifiers pointed at .cjs, because TypeScript reads
// a .d.ts inside a "type": "module" package as ESM, which a CommonJS importer may not `require` (TS1479).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dist = join(process.cwd(), 'dist');
const relative = /((?:from|import)\s*\(?\s*['"])(\.{1,2}\/[^'"]*?)\.js(['"])/g;

function walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else if (entry.name.endsWith('.d.ts')) {
      const text = readFileSync(path, 'utf8')
        .replace(relative, '$1$2.cjs$3')
        .replace(/\n\/\/# sourceMappingURL=.*\n?$/, '\n');
      writeFileSync(`${path.slice(0, -'.d.ts'.length)}.d.cts`, text);
    }
  }
}

walk(dist);
writeFileSync(
  join(dist, 'index.cjs'),
  "'use strict';\n// require(esm): the same module instance `import` gets (see scripts/cjs-entry.mjs in the repository).\nmodule.exports = require('./index.js');\n",
);
