/** Small helpers over node:util parseArgs with usage errors as exit code 2. */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {}

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}
