#!/usr/bin/env node
// Runs SQL statements, in order, in ONE chDB session (tables persist from statement to statement) on a fresh
// temporary data path (under $TMPDIR) that is deleted at exit. chDB is the ClickHouse engine in-process: there is
// no server to talk to, so tests that need a modern engine hand their SQL to this script (io.walshadow.testing.Chdb
// and ChdbSession do).
//
//   node chdb-run.mjs STATEMENTS.json      (or "-" to read the JSON from stdin)
//   node chdb-run.mjs --serve              (one request at a time on stdin, until stdin ends)
//
// Batch mode input: a JSON array of strings, one statement each (no splitting on ';', so a statement may contain
// any text). Output on stdout, per statement in order: a header line
//   #chdb-result <index> <byteLength>\n
// followed by exactly <byteLength> bytes of the statement's result as TabSeparated (empty for DDL and INSERT).
// Framing by length rather than by a marker line: TabSeparated data may contain any line, a length cannot lie.
// A statement that carries its own FORMAT clause gets that format instead.
// Exit 0 when all ran. Exit 3 when a statement failed: stdout holds the results before it, stderr names the
// statement's 0-based index, its first line and chDB's message. Exit 2 for usage errors or when chDB cannot load.
//
// Serve mode, for a caller that decides its next statement from the last result (the sink's committer does): each
// request is "<byteLength>\n" and that many bytes of UTF-8 SQL; each answer is "#chdb-result <byteLength>\n" and
// the TabSeparated result, or "#chdb-error <byteLength>\n" and chDB's message (the session stays usable). Exit 0
// when stdin ends, 2 for a malformed request or when chDB cannot load.
//
// chDB comes from $WALSHADOW_CHDB_DIR (deploy/local/chdb.sh path), else the stack's default state dir.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function fail(code, msg) {
  fs.writeSync(2, `chdb-run: ${msg}\n`);
  process.exit(code);
}

if (process.argv.length !== 3) {
  fail(2, 'usage: node chdb-run.mjs STATEMENTS.json|-|--serve');
}
const serve = process.argv[2] === '--serve';
let statements = [];
if (!serve) {
  try {
    const src = process.argv[2] === '-' ? fs.readFileSync(0, 'utf8') : fs.readFileSync(process.argv[2], 'utf8');
    statements = JSON.parse(src);
  } catch (e) {
    fail(2, `cannot read statements: ${e.message}`);
  }
  if (!Array.isArray(statements) || !statements.every((s) => typeof s === 'string')) {
    fail(2, 'statements must be a JSON array of strings');
  }
}

const chdbDir = process.env.WALSHADOW_CHDB_DIR
  || path.join(process.env.WALSHADOW_STATE_DIR || '/var/lib/walshadow-dev', 'chdb');
let Session;
try {
  // createRequire: chDB lives outside this repo, where neither ESM resolution nor NODE_PATH would look.
  ({ Session } = createRequire(path.join(chdbDir, 'node_modules', 'x.js'))('chdb'));
} catch (e) {
  fail(2, `cannot load chdb from ${chdbDir} (run deploy/local/chdb.sh): ${e.message}`);
}

function write(buf) {
  // process.stdout, not fs.writeSync(1): a pipe to the caller may be non-blocking (EAGAIN on a full pipe).
  return new Promise((resolve, reject) => process.stdout.write(buf, (e) => (e ? reject(e) : resolve())));
}

async function serveRequests(session) {
  let buf = Buffer.alloc(0);
  for await (const chunk of process.stdin) {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const nl = buf.indexOf(10);
      if (nl < 0) break;
      const header = buf.subarray(0, nl).toString('latin1');
      if (!/^\d+$/.test(header)) throw new Error(`malformed request header: ${header.slice(0, 80)}`);
      const len = Number(header);
      if (buf.length < nl + 1 + len) break;
      const sql = buf.subarray(nl + 1, nl + 1 + len).toString('utf8');
      buf = buf.subarray(nl + 1 + len);
      let kind = 'result';
      let body;
      try {
        body = Buffer.from((await session.queryAsync(sql, { format: 'TabSeparated' })).bytes());
      } catch (e) {
        kind = 'error';
        body = Buffer.from(String(e.message), 'utf8');
      }
      await write(Buffer.concat([Buffer.from(`#chdb-${kind} ${body.length}\n`, 'latin1'), body]));
    }
  }
  if (buf.length > 0) throw new Error(`stdin ended inside a request (${buf.length} bytes left)`);
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'walshadow-chdb-'));
let session;
let exitCode = 0;
try {
  session = new Session(dataDir);
  if (serve) {
    await serveRequests(session);
  }
  for (let i = 0; i < statements.length; i++) {
    let bytes;
    try {
      // queryAsync + bytes(): the raw result bytes, so String values that are not UTF-8 survive unchanged.
      const r = await session.queryAsync(statements[i], { format: 'TabSeparated' });
      bytes = Buffer.from(r.bytes());
    } catch (e) {
      const first = statements[i].trim().split('\n')[0];
      fs.writeSync(2, `chdb-run: statement #${i} failed: ${first}\n${e.message}\n`);
      exitCode = 3;
      break;
    }
    fs.writeSync(1, `#chdb-result ${i} ${bytes.length}\n`);
    if (bytes.length > 0) {
      fs.writeSync(1, bytes);
    }
  }
} catch (e) {
  fs.writeSync(2, `chdb-run: chdb session failed: ${e.message}\n`);
  exitCode = 2;
} finally {
  try {
    session?.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
process.exit(exitCode);
