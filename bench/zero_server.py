#!/usr/bin/env python3
"""A zero-cost "server": the client floor of a workload, measured.

It captures one statement's complete response (RowDescription … ReadyForQuery) from a
real server, then serves it instantly, as one write, to every simple Query it receives
(a `SELECT 1` gets a one-row answer). Timing `psql -f FILE` against it shows what the
client and the round trips cost when the server does no work at all — the lower
bound any server can reach for that workload on this machine.

    python3 bench/zero_server.py --capture "host=127.0.0.1 port=5433 user=u" \\
        --sql "SELECT * FROM bench_data ORDER BY value DESC" --port 5598 &
    psql -h 127.0.0.1 -p 5598 -X -q -A -t -f order_by.sql -o /dev/null

Loopback only; stop it with a signal (it runs until killed).
"""

import argparse
import socket
import struct
import threading


def message(tag, body):
    return tag + struct.pack("!i", len(body) + 4) + body


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def startup(sock, params):
    body = struct.pack("!i", 196608) + b"".join(
        k.encode() + b"\0" + v.encode() + b"\0" for k, v in params.items()) + b"\0"
    sock.sendall(struct.pack("!i", len(body) + 4) + body)
    buf = b""
    while not buf.endswith(b"Z\0\0\0\x05I"):
        chunk = sock.recv(65536)
        if not chunk:
            raise EOFError("server closed the connection during startup")
        buf += chunk


def capture(conninfo, sql):
    kv = dict(part.split("=", 1) for part in conninfo.split())
    sock = socket.create_connection((kv.get("host", "127.0.0.1"), int(kv.get("port", "5432"))))
    startup(sock, {"user": kv.get("user", "postgres"), "database": kv.get("dbname", kv.get("user", "postgres"))})
    sock.sendall(message(b"Q", sql.encode() + b"\0"))
    buf = b""
    while not buf.endswith(b"Z\0\0\0\x05I"):
        buf += sock.recv(1 << 20)
    sock.close()
    return buf


SELECT_ONE = (message(b"T", struct.pack("!h", 1) + b"?column?\0" + struct.pack("!ihihih", 0, 0, 23, 4, -1, 0))
              + message(b"D", struct.pack("!hi", 1, 1) + b"1")
              + message(b"C", b"SELECT 1\0") + message(b"Z", b"I"))

GREETING = message(b"R", struct.pack("!i", 0)) + b"".join(
    message(b"S", k.encode() + b"\0" + v.encode() + b"\0")
    for k, v in [("server_version", "15.0"), ("server_encoding", "UTF8"), ("client_encoding", "UTF8"),
                 ("DateStyle", "ISO, MDY"), ("integer_datetimes", "on"),
                 ("standard_conforming_strings", "on")]) + message(b"K", struct.pack("!ii", 1, 1)) + message(b"Z", b"I")


def serve(conn, canned):
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        while True:
            n = struct.unpack("!i", recv_exact(conn, 4))[0]
            body = recv_exact(conn, n - 4)
            if struct.unpack("!i", body[:4])[0] in (80877103, 80877104):  # SSL / GSSENC
                conn.sendall(b"N")
                continue
            break
        conn.sendall(GREETING)
        while True:
            tag = recv_exact(conn, 1)
            body = recv_exact(conn, struct.unpack("!i", recv_exact(conn, 4))[0] - 4)
            if tag == b"X":
                break
            if tag == b"Q":
                statement = body.rstrip(b"\0").strip().rstrip(b";").strip().upper()
                conn.sendall(SELECT_ONE if statement == b"SELECT 1" else canned)
    except (EOFError, ConnectionError):
        pass
    conn.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--capture", required=True, help="libpq-style conninfo of the server to capture from")
    ap.add_argument("--sql", required=True, help="the statement whose response is replayed")
    ap.add_argument("--port", type=int, required=True)
    args = ap.parse_args()
    canned = capture(args.capture, args.sql)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", args.port))
    listener.listen(16)
    print(f"zero_server: {len(canned)} bytes per answer on 127.0.0.1:{args.port}", flush=True)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, canned), daemon=True).start()


if __name__ == "__main__":
    main()
