// A Deployment Manager template registry on loopback for the end-to-end
// tests: the corpus's application-dm-templates laid out as
// raw.githubusercontent.com serves them (/<owner>/<repo>/master/<path>), so
// the guestbook example's registry types are fetched as they would be from
// GitHub, without a network.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join, normalize } from 'node:path';

const root = join(process.cwd(), 'corpus', 'dm', 'application-dm-templates');
const port = Number(process.env.DM_REGISTRY_PORT ?? 4011);

createServer(async (req, res) => {
  const m = /^\/kubernetes\/application-dm-templates\/master\/(.+)$/.exec(req.url ?? '');
  const file = m ? normalize(join(root, decodeURIComponent(m[1]))) : '';
  if (!file.startsWith(root + '/')) return void res.writeHead(404).end('not found');
  try {
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
  } catch {
    res.writeHead(404).end('not found');
  }
}).listen(port, '127.0.0.1');
