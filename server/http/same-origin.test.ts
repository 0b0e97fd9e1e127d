/**
 * The cross-site rule for writes through the session cookie, header by
 * header, and that every API route gets it by construction.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { crossSiteRefusal } from './same-origin';

const CONSOLE = 'https://keelson.example.com';
const req = (method: string, headers: Record<string, string>) => ({ method, headers: new Headers(headers) });

describe('cross-site writes', () => {
  test('reads pass from anywhere: GET, HEAD and OPTIONS change nothing', () => {
    for (const m of ['GET', 'HEAD', 'OPTIONS', 'get']) assert.equal(crossSiteRefusal(req(m, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }), CONSOLE), null, m);
  });

  test('Sec-Fetch-Site decides when a browser sent it: only same-origin (or the user’s own navigation) passes', () => {
    for (const m of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      assert.equal(crossSiteRefusal(req(m, { 'sec-fetch-site': 'same-origin', origin: CONSOLE }), CONSOLE), null);
      assert.match(crossSiteRefusal(req(m, { 'sec-fetch-site': 'same-site', origin: 'https://other.keelson.example.com' }), CONSOLE)!, /another origin \(https:\/\/other\.keelson\.example\.com\)/);
      assert.match(crossSiteRefusal(req(m, { 'sec-fetch-site': 'cross-site' }), CONSOLE)!, /another site/);
    }
    assert.equal(crossSiteRefusal(req('POST', { 'sec-fetch-site': 'none' }), CONSOLE), null);
    // The browser's word wins over an Origin that happens to match (a page cannot set either; trust the finer one).
    assert.notEqual(crossSiteRefusal(req('POST', { 'sec-fetch-site': 'same-site', origin: CONSOLE }), CONSOLE), null);
  });

  test('without Sec-Fetch-Site, Origin must be the console’s: NEXTAUTH_URL’s origin or the Host the request went to', () => {
    assert.equal(crossSiteRefusal(req('POST', { origin: CONSOLE, host: '10.0.0.5:3000' }), CONSOLE), null, 'behind a reverse proxy');
    assert.equal(crossSiteRefusal(req('POST', { origin: 'http://localhost:3000', host: 'localhost:3000' }), CONSOLE), null, 'the host it was sent to');
    assert.equal(crossSiteRefusal(req('POST', { origin: 'https://keelson.example.com', host: 'keelson.example.com:443' })), null, 'the default port is no difference');
    assert.match(crossSiteRefusal(req('POST', { origin: 'http://localhost:5199', host: 'localhost:3000' }), CONSOLE)!, /sent from http:\/\/localhost:5199/);
    assert.match(crossSiteRefusal(req('POST', { origin: 'null', host: 'localhost:3000' }), CONSOLE)!, /opaque origin/);
    assert.notEqual(crossSiteRefusal(req('POST', { origin: 'not a url', host: 'localhost:3000' }), CONSOLE), null);
    assert.notEqual(crossSiteRefusal(req('POST', { origin: 'http://localhost:3000' }), CONSOLE), null, 'no Host: only NEXTAUTH_URL counts');
    // The scheme is part of an origin: an http page is not the https console.
    assert.notEqual(crossSiteRefusal(req('POST', { origin: 'http://keelson.example.com', host: 'proxy.internal' }), CONSOLE), null);
  });

  test('no Origin and no Sec-Fetch-Site: not a browser’s cross-site request (curl, the CLI, scripts), so it passes', () => {
    assert.equal(crossSiteRefusal(req('POST', {}), CONSOLE), null);
    assert.equal(crossSiteRefusal(req('DELETE', { host: 'localhost:3000' })), null);
  });

  test('the refusal says what to do instead', () => {
    assert.match(crossSiteRefusal(req('POST', { 'sec-fetch-site': 'cross-site' }))!, /must come from the console's own pages.*API token \(Authorization: Bearer/);
  });

  test('every API route outside next-auth’s own authenticates through bearerOrSession, so it gets the rule by construction', () => {
    const routes: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (name === 'route.ts') routes.push(p);
      }
    };
    walk(join(process.cwd(), 'app'));
    assert.ok(routes.length >= 4, routes.join(', '));
    for (const file of routes) {
      const text = readFileSync(file, 'utf8');
      if (file.includes(join('api', 'auth', '[...nextauth]'))) continue; // next-auth checks its own CSRF token
      const viaTrpc = /createContext:[^\n]*\bcreateRequestContext\b/.test(text);
      assert.ok(/bearerOrSession\(/.test(text) || viaTrpc, `${file} must authenticate through bearerOrSession (server/auth/bearer.ts)`);
      assert.ok(!/getServerSession\(/.test(text) || /bearerOrSession\(/.test(text), `${file} reads the session outside bearerOrSession`);
    }
    // tRPC's context is the same function.
    assert.match(readFileSync(join(process.cwd(), 'server/api/request-context.ts'), 'utf8'), /bearerOrSession\(/);
    assert.match(readFileSync(join(process.cwd(), 'server/api/context.ts'), 'utf8'), /contextForRequest\(/);
  });
});
