// kiln through node-postgres (pg): simple and extended queries, types, transactions,
// and COPY through pg-copy-streams.
// Usage: node node_pg.js HOST PORT
const { Client } = require('pg');
const { from: copyFrom, to: copyTo } = require('pg-copy-streams');
const { Readable } = require('stream');
const { pipeline } = require('stream/promises');
const assert = require('assert');

const [host, port] = [process.argv[2], Number(process.argv[3])];
let passed = 0, failed = 0;

async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log('ok     ' + name);
  } catch (e) {
    failed++;
    console.log('FAILED ' + name + '\n' + (e.stack || e));
  }
}

(async () => {
  const c = new Client({ host, port, user: 'node', database: 'node' });
  await c.connect();
  await check('parameters and types', async () => {
    await c.query('DROP TABLE IF EXISTS np');
    await c.query('CREATE TABLE np (id int, name text, price numeric(10,2), f float8, big bigint, flag boolean, d date, ts timestamp)');
    const r = await c.query('INSERT INTO np VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [1, 'widget', '10.50', 0.25, '9000000000', true, '2024-01-31', '2024-01-31 12:00:00']);
    assert.strictEqual(r.rowCount, 1);
    assert.strictEqual(r.command, 'INSERT');
    const s = await c.query('SELECT * FROM np WHERE id = $1', [1]);
    const row = s.rows[0];
    assert.strictEqual(row.name, 'widget');
    assert.strictEqual(row.price, '10.50');
    assert.strictEqual(row.f, 0.25);
    assert.strictEqual(row.big, '9000000000');
    assert.strictEqual(row.flag, true);
    assert.strictEqual(s.fields.map(f => f.dataTypeID).join(','), '23,25,1700,701,20,16,1082,1114');
  });
  await check('simple query with several statements', async () => {
    const res = await c.query('SELECT 1 AS a; SELECT 2 AS b');
    assert.strictEqual(res.length, 2);
    assert.strictEqual(res[1].rows[0].b, 2);
  });
  await check('transactions and errors', async () => {
    await c.query('BEGIN');
    await c.query("UPDATE np SET name = 'x'");
    await c.query('ROLLBACK');
    assert.strictEqual((await c.query('SELECT name FROM np')).rows[0].name, 'widget');
    await assert.rejects(c.query('SELECT 1/0'), e => e.code === '22012');
    await assert.rejects(c.query('SELECT * FROM nope'), e => e.code === '42P01' && e.position === '15');
    assert.strictEqual((await c.query('SELECT 1 AS one')).rows[0].one, 1);
  });
  await check('named prepared statements', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await c.query({ name: 'twice', text: 'SELECT $1::int * 2 AS v', values: [i] });
      assert.strictEqual(r.rows[0].v, i * 2);
    }
  });
  await check('large results', async () => {
    const r = await c.query('SELECT g, g::text AS t FROM generate_series(1, 20000) g');
    assert.strictEqual(r.rows.length, 20000);
    assert.strictEqual(r.rows[19999].t, '20000');
  });
  await check('COPY through pg-copy-streams', async () => {
    await c.query('DROP TABLE IF EXISTS npcopy');
    await c.query('CREATE TABLE npcopy (id int, name text, price numeric(10,2))');
    // CSV in, written in chunks that cut rows (and a field) in two: one CopyData per chunk.
    const into = c.query(copyFrom('COPY npcopy FROM STDIN WITH (FORMAT csv)'));
    await pipeline(Readable.from(['1,wid', 'get,10.50\n2,"a, b",\n3,', '"say ""hi""",0.10\n4,"",7\n']), into);
    assert.strictEqual(into.rowCount, 4, 'rows reported by COPY FROM STDIN');
    const loaded = await c.query('SELECT id, name, price FROM npcopy ORDER BY id');
    assert.deepStrictEqual(loaded.rows, [
      { id: 1, name: 'widget', price: '10.50' }, { id: 2, name: 'a, b', price: null },
      { id: 3, name: 'say "hi"', price: '0.10' }, { id: 4, name: '', price: '7.00' }]);
    const read = async (sql) => {
      const chunks = [];
      const out = c.query(copyTo(sql));
      for await (const chunk of out) chunks.push(chunk);
      return { text: Buffer.concat(chunks).toString('utf8'), rowCount: out.rowCount };
    };
    assert.deepStrictEqual(await read('COPY (SELECT * FROM npcopy ORDER BY id DESC) TO STDOUT WITH (FORMAT csv, HEADER)'),
      { text: 'id,name,price\n4,"",7.00\n3,"say ""hi""",0.10\n2,"a, b",\n1,widget,10.50\n', rowCount: 4 });
    assert.deepStrictEqual(await read('COPY npcopy (name, id) TO STDOUT'),
      { text: 'widget\t1\na, b\t2\nsay "hi"\t3\n\t4\n', rowCount: 4 });
    // Bad data: 22P02, nothing loaded, and the connection goes on.
    const bad = c.query(copyFrom('COPY npcopy FROM STDIN WITH (FORMAT csv)'));
    await assert.rejects(pipeline(Readable.from(['5,five,1\n', 'six,6,2\n']), bad),
      e => e.code === '22P02' && e.message === 'invalid input syntax for type integer: "six"');
    assert.strictEqual((await c.query('SELECT count(*)::int AS n FROM npcopy')).rows[0].n, 4);
    // COPY FROM STDIN as a plain query: pg answers the CopyInResponse with CopyFail.
    await assert.rejects(c.query('COPY npcopy FROM STDIN'),
      e => e.code === '57014' && e.message === 'COPY from stdin failed: No source stream defined');
    assert.strictEqual((await c.query('SELECT count(*)::int AS n FROM npcopy')).rows[0].n, 4);
  });
  await c.end();
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})().catch(e => { console.log(e); console.log(`${passed} passed, ${failed + 1} failed`); process.exit(1); });
