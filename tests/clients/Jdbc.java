// kiln through the PostgreSQL JDBC driver: prepared statements (server-side after the
// threshold), binary transfer, types, batches, transactions, SQLSTATEs and COPY (CopyManager).
// Usage: java -cp postgresql.jar Jdbc.java HOST PORT
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.sql.*;
import java.time.LocalDate;
import java.time.LocalDateTime;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

public class Jdbc {
    static int passed = 0, failed = 0;

    interface Check { void run() throws Exception; }

    static void check(String name, Check c) {
        try {
            c.run();
            passed++;
            System.out.println("ok     " + name);
        } catch (Throwable t) {
            failed++;
            System.out.println("FAILED " + name);
            t.printStackTrace(System.out);
        }
    }

    /// The rows of `rs` as "a,b;a,b;" over `cols`.
    static String rows(ResultSet rs, String... cols) throws SQLException {
        StringBuilder b = new StringBuilder();
        try (rs) {
            while (rs.next()) {
                for (int i = 0; i < cols.length; i++) {
                    b.append(rs.getString(cols[i])).append(i + 1 < cols.length ? "," : ";");
                }
            }
        }
        return b.toString();
    }

    static void expect(boolean cond, String what) {
        if (!cond) throw new AssertionError(what);
    }

    public static void main(String[] args) throws Exception {
        String url = "jdbc:postgresql://" + args[0] + ":" + args[1] + "/jdbc?user=java&prepareThreshold=1";
        try (Connection c = DriverManager.getConnection(url)) {
            check("metadata and server version", () -> {
                DatabaseMetaData md = c.getMetaData();
                expect(md.getDatabaseMajorVersion() == 15, "major version " + md.getDatabaseMajorVersion());
            });
            check("prepared statements and types", () -> {
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE IF EXISTS jt");
                    s.execute("CREATE TABLE jt (id int, name varchar(20), price numeric(10,2), f double precision, big bigint, flag boolean, d date, ts timestamp)");
                }
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO jt VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
                    for (int i = 1; i <= 3; i++) {
                        ps.setInt(1, i);
                        ps.setString(2, "item" + i);
                        ps.setBigDecimal(3, new BigDecimal("10.5").multiply(BigDecimal.valueOf(i)));
                        ps.setDouble(4, i / 4.0);
                        ps.setLong(5, 9_000_000_000L + i);
                        ps.setBoolean(6, i % 2 == 1);
                        ps.setObject(7, LocalDate.of(2024, 1, i));
                        ps.setObject(8, LocalDateTime.of(2024, 1, i, 12, 30, 15));
                        expect(ps.executeUpdate() == 1, "insert count");
                    }
                }
                try (PreparedStatement ps = c.prepareStatement("SELECT * FROM jt WHERE id = ?")) {
                    for (int round = 0; round < 3; round++) {
                        ps.setInt(1, 2);
                        try (ResultSet rs = ps.executeQuery()) {
                            expect(rs.next(), "a row");
                            expect(rs.getString("name").equals("item2"), "name");
                            expect(rs.getBigDecimal("price").equals(new BigDecimal("21.00")), "price " + rs.getBigDecimal("price"));
                            expect(rs.getDouble("f") == 0.5, "double");
                            expect(rs.getLong("big") == 9_000_000_002L, "bigint");
                            expect(!rs.getBoolean("flag"), "bool");
                            expect(rs.getObject("d", LocalDate.class).equals(LocalDate.of(2024, 1, 2)), "date");
                            expect(rs.getObject("ts", LocalDateTime.class).equals(LocalDateTime.of(2024, 1, 2, 12, 30, 15)), "timestamp");
                            expect(rs.getMetaData().getColumnTypeName(3).equals("numeric"), "type name " + rs.getMetaData().getColumnTypeName(3));
                            expect(!rs.next(), "one row");
                        }
                    }
                }
            });
            check("batches and aggregates", () -> {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO jt (id, name) VALUES (?, ?)")) {
                    for (int i = 10; i < 20; i++) {
                        ps.setInt(1, i);
                        ps.setString(2, null);
                        ps.addBatch();
                    }
                    int[] counts = ps.executeBatch();
                    expect(counts.length == 10, "batch size");
                }
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*), count(name), sum(price) FROM jt")) {
                    rs.next();
                    expect(rs.getLong(1) == 13, "count");
                    expect(rs.getLong(2) == 3, "count(name)");
                    expect(rs.getBigDecimal(3).equals(new BigDecimal("63.00")), "sum " + rs.getBigDecimal(3));
                }
            });
            check("transactions and errors", () -> {
                c.setAutoCommit(false);
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("DELETE FROM jt");
                    c.rollback();
                    try (ResultSet rs = s.executeQuery("SELECT count(*) FROM jt")) {
                        rs.next();
                        expect(rs.getLong(1) == 13, "rolled back");
                    }
                    try {
                        s.executeQuery("SELECT 1/0");
                        expect(false, "expected an error");
                    } catch (SQLException e) {
                        expect("22012".equals(e.getSQLState()), "sqlstate " + e.getSQLState());
                    }
                    c.rollback();
                }
                c.setAutoCommit(true);
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT upper('ok')")) {
                    rs.next();
                    expect(rs.getString(1).equals("OK"), "after rollback");
                }
            });
            check("COPY through CopyManager", () -> {
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE IF EXISTS jcopy");
                    s.execute("CREATE TABLE jcopy (id int, name text, price numeric(10,2), d date)");
                }
                CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
                long n = copy.copyIn("COPY jcopy FROM STDIN WITH (FORMAT csv)", new StringReader(
                        "1,widget,10.50,2024-01-31\n2,\"a, b\",,\n3,\"say \"\"hi\"\"\",0.10,2024-02-29\n4,\"\",7,\n"));
                expect(n == 4, "copyIn returned " + n + ", expected 4");
                StringWriter out = new StringWriter();
                n = copy.copyOut("COPY jcopy TO STDOUT", out);
                String want = "1\twidget\t10.50\t2024-01-31\n2\ta, b\t\\N\t\\N\n3\tsay \"hi\"\t0.10\t2024-02-29\n4\t\t7.00\t\\N\n";
                expect(out.toString().equals(want), "copyOut text: expected\n" + want + "got\n" + out);
                expect(n == 4, "copyOut returned " + n + ", expected 4");
                out = new StringWriter();
                n = copy.copyOut("COPY (SELECT id, name FROM jcopy WHERE id > 1 ORDER BY id DESC) TO STDOUT WITH (FORMAT csv, HEADER)", out);
                want = "id,name\n4,\"\"\n3,\"say \"\"hi\"\"\"\n2,\"a, b\"\n";
                expect(out.toString().equals(want), "copyOut csv: expected\n" + want + "got\n" + out);
                expect(n == 3, "copyOut returned " + n + ", expected 3");
                c.setAutoCommit(false);
                try {
                    n = copy.copyIn("COPY jcopy (id) FROM STDIN", new StringReader("100\n101\n"));
                    expect(n == 2, "copyIn in a transaction returned " + n + ", expected 2");
                    c.rollback();
                } finally {
                    c.setAutoCommit(true);
                }
                try {
                    copy.copyIn("COPY jcopy (id, name) FROM STDIN", new StringReader("5\tfive\nsix\t6\n"));
                    expect(false, "expected 22P02 from COPY of 'six' into an int column");
                } catch (SQLException e) {
                    expect("22P02".equals(e.getSQLState()), "sqlstate " + e.getSQLState() + ": " + e.getMessage());
                }
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM jcopy")) {
                    rs.next();
                    expect(rs.getLong(1) == 4, "rows after the rolled back and the failed COPY: " + rs.getLong(1) + ", expected 4");
                }
            });
            check("DatabaseMetaData and ResultSetMetaData", () -> {
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE IF EXISTS jm_child");
                    s.execute("DROP TABLE IF EXISTS jm_parent");
                    s.execute("CREATE TABLE jm_parent (id serial PRIMARY KEY, name varchar(20) NOT NULL UNIQUE, price numeric(10,2) DEFAULT 1.5)");
                    s.execute("CREATE TABLE jm_child (cid bigint PRIMARY KEY, pid int REFERENCES jm_parent ON DELETE CASCADE, note text)");
                    s.execute("CREATE INDEX jm_child_note ON jm_child (note DESC)");
                }
                DatabaseMetaData m = c.getMetaData();
                expect(rows(m.getTables(null, "public", "jm_%", new String[]{"TABLE"}), "TABLE_NAME", "TABLE_TYPE")
                        .equals("jm_child,TABLE;jm_parent,TABLE;"), "getTables");
                String cols = rows(m.getColumns(null, "public", "jm_parent", "%"), "COLUMN_NAME", "TYPE_NAME", "COLUMN_SIZE", "DECIMAL_DIGITS", "IS_NULLABLE", "IS_AUTOINCREMENT");
                expect(cols.equals("id,serial,10,0,NO,YES;name,varchar,20,0,NO,NO;price,numeric,10,2,YES,NO;"), "getColumns: " + cols);
                String pk = rows(m.getPrimaryKeys(null, "public", "jm_parent"), "COLUMN_NAME", "KEY_SEQ", "PK_NAME");
                expect(pk.equals("id,1,jm_parent_pkey;"), "getPrimaryKeys: " + pk);
                String ix = rows(m.getIndexInfo(null, "public", "jm_child", false, false), "INDEX_NAME", "NON_UNIQUE", "COLUMN_NAME", "ASC_OR_DESC", "ORDINAL_POSITION");
                expect(ix.equals("jm_child_pkey,f,cid,A,1;jm_child_note,t,note,D,1;"), "getIndexInfo: " + ix);
                String uq = rows(m.getIndexInfo(null, "public", "jm_parent", true, false), "INDEX_NAME", "COLUMN_NAME");
                expect(uq.equals("jm_parent_name_key,name;jm_parent_pkey,id;"), "getIndexInfo unique: " + uq);
                String fk = rows(m.getImportedKeys(null, "public", "jm_child"), "PKTABLE_NAME", "PKCOLUMN_NAME", "FKCOLUMN_NAME", "FK_NAME", "DELETE_RULE");
                expect(fk.equals("jm_parent,id,pid,jm_child_pid_fkey,0;"), "getImportedKeys: " + fk);
                String ex = rows(m.getExportedKeys(null, "public", "jm_parent"), "FKTABLE_NAME", "FKCOLUMN_NAME");
                expect(ex.equals("jm_child,pid;"), "getExportedKeys: " + ex);
                String best = rows(m.getBestRowIdentifier(null, "public", "jm_parent", DatabaseMetaData.bestRowSession, true), "COLUMN_NAME");
                expect(best.equals("id;"), "getBestRowIdentifier: " + best);
                expect(rows(m.getSchemas(), "TABLE_SCHEM").contains("public;"), "getSchemas");
                try (ResultSet r = m.getTypeInfo()) {
                    int n = 0;
                    while (r.next()) n++;
                    expect(n > 10, "getTypeInfo: " + n + " types");
                }
                try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT id, name, price, id + 1 AS x FROM jm_parent")) {
                    ResultSetMetaData md = r.getMetaData();
                    StringBuilder b = new StringBuilder();
                    for (int i = 1; i <= md.getColumnCount(); i++) {
                        b.append(md.getColumnName(i)).append(':').append(md.getTableName(i)).append(':')
                         .append(md.isAutoIncrement(i)).append(':').append(md.isNullable(i)).append(':')
                         .append(md.getColumnTypeName(i)).append(' ');
                    }
                    String want = "id:jm_parent:true:0:serial name:jm_parent:false:0:varchar price:jm_parent:false:1:numeric x::false:2:int4 ";
                    expect(b.toString().equals(want), "ResultSetMetaData: " + b);
                }
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE jm_child");
                    s.execute("DROP TABLE jm_parent");
                }
            });
        }
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }
}
