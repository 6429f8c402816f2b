// Walk 3: a direct conversion through the library root, as the README's Library example does.
// usage: NODE_V8_COVERAGE=dir node --import tsx direct.mjs <tree> <in.jpg> <out.webp> [readme|defaults]
//   readme:   before createEngine({ converters: [createSharpConverter()] }) (fileconv/converters/sharp)
//             after  createConverter({ converters: [SHARP_REGISTRATION] })  (fileconv/converters/sharp)
//   defaults: the same with defaultConverters() of fileconv/preset
// Coverage: v8.takeCoverage() once the engine/converter is created (start-up), once after convertFile (request path).
import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';

const [tree, input, output, variant = 'readme'] = process.argv.slice(2);
const load = (rel) => import(pathToFileURL(`${tree}/${rel}`).href);
const after = existsSync(`${tree}/src/engine`);
const root = await load('src/index.ts');
let converter;
if (after) {
  const converters =
    variant === 'defaults'
      ? (await load('src/preset/index.ts')).defaultConverters()
      : [(await load('src/converters/sharp/index.ts')).SHARP_REGISTRATION];
  converter = root.createConverter({ converters });
} else {
  const converters =
    variant === 'defaults'
      ? (await load('adapters/preset/index.ts')).defaultConverters()
      : [(await load('adapters/converters/sharp.ts')).createSharpConverter()];
  converter = root.createEngine({ converters });
}
v8.takeCoverage();
const report = await converter.convertFile(input, output);
v8.takeCoverage();
const bytes = readFileSync(output);
const webp = bytes.subarray(0, 4).toString() === 'RIFF' && bytes.subarray(8, 12).toString() === 'WEBP';
console.log(JSON.stringify({ report, webp, size: bytes.length }));
await converter.close?.();
