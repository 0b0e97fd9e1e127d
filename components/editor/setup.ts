/**
 * One-time Monaco setup in the browser: web workers, the createWebWorker
 * shim monaco-yaml needs on Monaco ≥0.53, and YAML schemas per kind.
 * Loaded lazily by the editor components (never on the server).
 */
import { configureMonacoYaml, type MonacoYaml } from 'monaco-yaml';
import * as monaco from './monaco';

export type Monaco = typeof monaco;

type WorkerEnv = { getWorker(moduleId: string, label: string): Worker };

let yaml: MonacoYaml | undefined;

function installWorkers() {
  const g = globalThis as unknown as { MonacoEnvironment?: WorkerEnv };
  if (g.MonacoEnvironment) return;
  g.MonacoEnvironment = {
    getWorker(_moduleId, label) {
      if (label === 'yaml') return new Worker(new URL('monaco-yaml/yaml.worker', import.meta.url));
      if (label === 'editorWorkerService') return new Worker(new URL('monaco-editor/editor/editor.worker', import.meta.url));
      throw new Error(`Unknown Monaco worker label: ${label}`);
    },
  };
  // monaco-yaml still calls createWebWorker({ moduleId, label, createData });
  // since 0.53 Monaco wants { worker }. Build the worker ourselves and pass
  // the createData the way the old loader protocol did.
  const editor = monaco.editor as unknown as { createWebWorker: (o: Record<string, unknown>) => unknown };
  const original = editor.createWebWorker.bind(editor);
  editor.createWebWorker = (opts: Record<string, unknown>) => {
    if ('worker' in opts) return original(opts);
    const worker = g.MonacoEnvironment!.getWorker(String(opts.moduleId), String(opts.label));
    worker.postMessage('ignore');
    worker.postMessage(opts.createData);
    return original({ ...opts, worker });
  };
}


let themed = false;

/**
 * Monaco's light theme with every YAML colour at 4.5:1 or more, also on a
 * diff's changed lines (axe: color-contrast). 'vs' puts its green comments,
 * numbers and keys at 2.4–3.9:1 on its own inserted/removed backgrounds, so
 * those backgrounds are lighter here and those colours darker.
 */
function installTheme() {
  if (themed) return;
  themed = true;
  monaco.editor.defineTheme('keelson', {
    base: 'vs',
    inherit: true,
    rules: [
      { token: 'comment', foreground: '1e6b1e' },
      { token: 'number', foreground: '06663f' },
      { token: 'type', foreground: '1a5e73' },
      { token: 'string', foreground: 'a31515' },
      { token: 'keyword', foreground: '0000ff' },
    ],
    colors: {
      'diffEditor.insertedLineBackground': '#9bb95522',
      'diffEditor.insertedTextBackground': '#9ccc2c33',
      'diffEditor.removedLineBackground': '#ff000018',
      'diffEditor.removedTextBackground': '#ff000022',
    },
  });
  monaco.editor.setTheme('keelson');
}

/** Configure Monaco once; later calls only refresh the schemas. */
export function setupMonaco(schemas?: Record<string, Record<string, unknown>>): Monaco {
  installWorkers();
  installTheme();
  if (schemas) {
    const list = Object.entries(schemas).map(([kind, schema]) => ({
      uri: `keelson://schemas/${kind}.json`,
      fileMatch: [`file:///objects/${kind}/**`],
      schema: schema as never,
    }));
    list.push({ uri: 'keelson://schemas/any-kind.json', fileMatch: ['file:///new/**'], schema: anyKindSchema(schemas) as never });
    if (!yaml) {
      yaml = configureMonacoYaml(monaco as never, {
        enableSchemaRequest: false,
        validate: true,
        hover: true,
        completion: true,
        schemas: list,
      });
    } else {
      yaml.update({ schemas: list });
    }
  }
  return monaco;
}

/**
 * One object of any kind, or a list of them: each object is checked against
 * its own kind's schema (chosen by `kind`), and `---` documents each on
 * their own, so a paste of several kinds reads as the server will read it.
 */
export function anyKindSchema(schemas: Record<string, Record<string, unknown>>): Record<string, unknown> {
  const namesOf = (schema: Record<string, unknown>, kind: string): string[] => {
    const k = (schema.properties as Record<string, { enum?: unknown[] }> | undefined)?.kind;
    return Array.isArray(k?.enum) ? k.enum.map(String) : [kind];
  };
  const kinds = Object.entries(schemas).map(([kind, schema]) => ({ kind, names: namesOf(schema, kind) }));
  return {
    title: 'Keelson objects',
    definitions: {
      object: {
        type: 'object',
        required: ['kind'],
        properties: { kind: { type: 'string', enum: kinds.flatMap((k) => k.names) } },
        allOf: kinds.map(({ kind, names }) => ({
          if: { properties: { kind: { enum: names } }, required: ['kind'] },
          then: { $ref: `keelson://schemas/${kind}.json` },
        })),
      },
    },
    if: { type: 'array' },
    then: { type: 'array', items: { $ref: '#/definitions/object' } },
    else: { $ref: '#/definitions/object' },
  };
}
