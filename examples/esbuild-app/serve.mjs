// Serves the built page with a plain node:http server. armatureMiddleware() answers what the page's
// boot() asks for (the project snapshot, the Pyodide worker and Pyodide's files, the confined worker,
// each with its headers); everything else is the app's own files.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { armatureMiddleware } from 'armature/server';

const armature = armatureMiddleware();
const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

const server = createServer((req, res) =>
  armature(req, res, async () => {
    const path = normalize(new URL(req.url ?? '/', 'http://x').pathname === '/' ? '/index.html' : new URL(req.url ?? '/', 'http://x').pathname);
    try {
      const body = await readFile(join('dist', path));
      res.setHeader('Content-Type', types[extname(path)] ?? 'application/octet-stream');
      res.end(body);
    } catch {
      res.statusCode = 404;
      res.end('Not found');
    }
  }),
);
server.listen(Number(process.env.PORT ?? 5173), '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}/`));
