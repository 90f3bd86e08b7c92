// `npm run docs:api`: the API reference (docs/api/) generated from the JSDoc of the declarations
// the package ships (dist/types/, made by `npm run build`), with API Extractor and API Documenter.
// API Extractor reads one entry point at a time, so each public entry (`armature`,
// `armature/server`, ...) is extracted on its own and named after its import path.
// test/e2e/package.test.ts regenerates it from the freshly built package and compares.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Every public entry point: its import path and its declaration file under dist/types/. */
export const API_ENTRIES: readonly { name: string; types: string }[] = [
  { name: 'armature', types: 'upgrades/public-types.d.ts' },
  { name: 'armature/server', types: 'src/server/index.d.ts' },
  { name: 'armature/ai-sdk', types: 'src/ai-sdk/index.d.ts' },
  { name: 'armature/node', types: 'src/platform/node-index.d.ts' },
  { name: 'armature/vite', types: 'src/vite/index.d.ts' },
  { name: 'armature/widgets', types: 'src/widgets/index.d.ts' },
];

/** Writes the API reference for the declarations in `typesDir` into `outDir` (emptied first). */
export function generateApiReference(typesDir: string, outDir: string): void {
  const work = join(root, 'dist', 'api-model');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  for (const entry of API_ENTRIES) {
    const file = join(work, `${entry.name.replace('/', '-')}.api.json`);
    const config = ExtractorConfig.prepare({
      configObjectFullPath: join(root, 'api-extractor.json'),
      packageJsonFullPath: join(root, 'package.json'),
      configObject: {
        projectFolder: root,
        mainEntryPointFilePath: join(typesDir, entry.types),
        compiler: {
          overrideTsconfig: {
            compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2024', 'esnext.disposable', 'dom', 'dom.iterable'], types: ['node'], skipLibCheck: true },
          },
        },
        apiReport: { enabled: false },
        docModel: { enabled: true, apiJsonFilePath: file },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Error } },
          // The JSDoc is written for readers of the code (TSDoc's stricter tags aside), and types
          // an entry uses without exporting are documented where they are exported.
          extractorMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
          tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
        },
      },
    });
    const result = Extractor.invoke(config, { localBuild: true, showVerboseMessages: false, messageCallback: (m) => void (m.handled = m.logLevel !== 'error') });
    if (!result.succeeded) throw new Error(`[api-docs] API Extractor failed on ${entry.name} (${result.errorCount} errors)`);
    // One package model per entry, so each gets a page of its own: npm names allow no `/`, so
    // `armature/server` is `armature-server` here and gets its import path back in the text below.
    const model = JSON.parse(readFileSync(file, 'utf8')) as { name: string; canonicalReference: string };
    model.name = modelName(entry.name);
    model.canonicalReference = `${model.name}!`;
    writeFileSync(file, JSON.stringify(model));
  }
  rmSync(outDir, { recursive: true, force: true });
  const documenter = join(root, 'node_modules/@microsoft/api-documenter/bin/api-documenter');
  const r = spawnSync(process.execPath, [documenter, 'markdown', '-i', work, '-o', outDir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`[api-docs] API Documenter failed:\n${r.stdout}${r.stderr}`);
  const shown = new RegExp(`\\b(${API_ENTRIES.slice(1).map((e) => modelName(e.name)).join('|')})\\b(?![\\w.-]*\\.md)`, 'g');
  for (const page of readdirSync(outDir).filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(outDir, page), 'utf8');
    writeFileSync(join(outDir, page), text.replace(shown, (m) => m.replace('-', '/')));
  }
}

/** The model's package name for an entry's import path (`armature/ai-sdk` -> `armature-ai-sdk`). */
function modelName(importPath: string): string {
  return importPath.replace('/', '-');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  generateApiReference(join(root, 'dist', 'types'), join(root, 'docs', 'api'));
  console.error('wrote docs/api/');
}
