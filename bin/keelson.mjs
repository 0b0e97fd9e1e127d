#!/usr/bin/env node
// Installed entry point: runs the TypeScript CLI through tsx.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../server/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
