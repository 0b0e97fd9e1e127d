// Plain JavaScript on purpose: the worker thread starts here whatever ran
// the server (tsx in tests and the CLI, Next.js's compiled server in
// production), registers the TypeScript loader and loads the real worker.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
