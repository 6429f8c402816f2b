#!/usr/bin/env node
// Prints the package.json of the image's /opt/fileconv: fileconv's own dependencies and its
// optional peer dependencies (every engine's npm packages: package.json's peerDependencies are
// the one list of them), each pinned to the version package-lock.json holds, so the image runs
// what the tests ran. Read from the lock alone (its root entry repeats package.json's lists), so
// the image's layer is rebuilt when the lock changes and not when a script in package.json does.
// Left out, each for its reason:
const LEFT_OUT = {
  vitest: 'the test helpers for hosts; a server does not run tests',
  express: 'a host framework; the CLI serves on node:http',
  fastify: 'a host framework; the CLI serves on node:http',
  '@ffmpeg/core': 'ffmpeg.wasm, the fallback for a machine without the ffmpeg binary, which the image has',
};

// Written before fileconv's own tarball is added (`npm install <tarball>`), so this layer of the
// image is rebuilt only when the lock changes, not on every source change.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
const pkg = lock.packages[''];

const names = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)].filter(
  (name) => !(name in LEFT_OUT),
);
const dependencies = {};
for (const name of names.sort()) {
  const locked = lock.packages[`node_modules/${name}`];
  if (!locked) throw new Error(`${name} is not in package-lock.json: run npm install`);
  dependencies[name] = locked.version;
}
console.log(
  JSON.stringify(
    { name: 'fileconv-image', private: true, description: 'fileconv and its engines', dependencies },
    null,
    2,
  ),
);
