// kiln through node-postgres (pg): simple and extended queries, types, transactions.
// Usage: node node_pg.js HOST PORT
const { Client } = require('pg');
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
  await c.end();
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})().catch(e => { console.log(e); console.log(`${passed} passed, ${failed + 1} failed`); process.exit(1); });
