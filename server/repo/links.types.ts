/**
 * Links between services of a tenant (Axebow §5.10): a client channel of
 * one service to a server channel of another. `links.ts` keeps them on
 * drizzle, `memory-links.ts` in one process; both run `links.test.ts`.
 */
export interface LinkRow {
  id: number;
  tenantId: number;
  fromService: string;
  fromChannel: string;
  toService: string;
  toChannel: string;
  createdBy: string;
  createdAt: Date;
}

export type LinkEnds = Pick<LinkRow, 'fromService' | 'fromChannel' | 'toService' | 'toChannel'>;

export interface LinkRepository {
  /** The tenant's links, by id. */
  list(tenantId: number): Promise<LinkRow[]>;
  /** Undefined when the same link exists already. */
  add(input: Omit<LinkRow, 'id' | 'createdAt'>): Promise<LinkRow | undefined>;
  /** Removes the link with these ends; false when there is none. */
  remove(tenantId: number, ends: LinkEnds): Promise<boolean>;
  /** Removes every link from or to the service (it is going); how many went. */
  removeForService(tenantId: number, service: string): Promise<number>;
  /** Removes the links of the service's channel; how many went. */
  removeForChannel(tenantId: number, service: string, channel: string): Promise<number>;
}
