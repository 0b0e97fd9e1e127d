/** Schemas shared by the REST routes: names in paths and Axebow's query flags. */
import { z } from 'zod';
import { IDENTIFIER_RE } from '../../engine/model/kinds';

/** A tenant, account, environment, service or resource name in a path. */
export const pathName = z.string().regex(IDENTIFIER_RE, 'must start with a letter and hold only letters, digits, "_" or "-" (at most 64)');
/** A user name in a path (users file names may hold more characters). */
export const pathUser = z.string().min(1).max(128);

/** `?flag=true|false` (absent: undefined). */
export const queryFlag = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1')
  .optional();
