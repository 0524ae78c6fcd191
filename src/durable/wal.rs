//! The redo log's records and segment files.
//!
//! A segment `wal-<n>` is a sequence of frames `[len u32][crc32 u32][payload]`. A
//! committed transaction is its `Insert` / `Delete` records (column batches, see
//! [`super::codec`]) followed by its `Commit` record, each carrying the transaction's id
//! (a large transaction is appended in pieces, and other transactions' records may come
//! between them); all of one transaction's records are in one segment. `Sequence`
//! records (nextval and setval are not transactional) stand alone. Reading stops at the
//! first frame that is short or whose checksum fails — a write torn by a crash — and a
//! transaction without its `Commit` is dropped.

use std::path::{Path, PathBuf};

use super::codec::Reader;
use crate::error::Result;

pub const INSERT: u8 = 1;
pub const DELETE: u8 = 2;
pub const SEQUENCE: u8 = 3;
pub const COMMIT: u8 = 4;

/// A frame's header: length and checksum.
const HEADER: usize = 8;

/// The path of segment `n` in `dir`.
pub fn segment_path(dir: &Path, n: u64) -> PathBuf {
    dir.join(format!("wal-{n:016}"))
}

/// The numbers of the segments in `dir`, ascending.
pub fn segments(dir: &Path) -> std::io::Result<Vec<u64>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let name = e?.file_name();
        if let Some(n) = name
            .to_str()
            .and_then(|s| s.strip_prefix("wal-"))
            .and_then(|s| s.parse::<u64>().ok())
        {
            out.push(n);
        }
    }
    out.sort_unstable();
    Ok(out)
}

/// Appends `payload` as one frame.
pub fn frame(payload: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    out.extend_from_slice(payload);
}

/// A row record's payload up to its batch: `kind`, the transaction, the table's name.
pub fn payload_start(kind: u8, txn: u64, table: &str, out: &mut Vec<u8>) {
    out.push(kind);
    out.extend_from_slice(&txn.to_le_bytes());
    put_name(table, out);
}

/// A commit record's payload.
pub fn commit_payload(txn: u64, out: &mut Vec<u8>) {
    out.push(COMMIT);
    out.extend_from_slice(&txn.to_le_bytes());
}

/// A sequence record's payload up to its state: `kind`, the sequence's name.
pub fn sequence_payload(name: &str, out: &mut Vec<u8>) {
    out.push(SEQUENCE);
    put_name(name, out);
}

fn put_name(name: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(&(name.len() as u32).to_le_bytes());
    out.extend_from_slice(name.as_bytes());
}

/// The whole frames at the start of `bytes` (their payloads), and how many bytes they
/// take: reading stops at the first torn or damaged frame.
pub fn frames(bytes: &[u8]) -> (Vec<&[u8]>, usize) {
    let mut out = Vec::new();
    let mut pos = 0;
    while bytes.len() - pos >= HEADER {
        let h = &bytes[pos..pos + HEADER];
        let len = u32::from_le_bytes([h[0], h[1], h[2], h[3]]) as usize;
        let crc = u32::from_le_bytes([h[4], h[5], h[6], h[7]]);
        let start = pos + HEADER;
        if len == 0 || len > bytes.len() - start {
            break;
        }
        let payload = &bytes[start..start + len];
        if crc32fast::hash(payload) != crc {
            break;
        }
        out.push(payload);
        pos = start + len;
    }
    (out, pos)
}

/// A record read back.
pub enum Record<'a> {
    /// Rows transaction `txn` stored in (or deleted from) table `table`; they count
    /// once its commit record is read.
    Rows {
        kind: u8,
        txn: u64,
        table: String,
        batch: Reader<'a>,
    },
    /// A sequence's state: the last value and whether nextval returned it.
    Sequence {
        name: String,
        last: i64,
        called: bool,
    },
    Commit {
        txn: u64,
    },
}

pub fn parse(payload: &[u8]) -> Result<Record<'_>> {
    let mut r = Reader::new(payload);
    let kind = r.u8()?;
    Ok(match kind {
        INSERT | DELETE => {
            let txn = r.u64()?;
            let table = r.string()?;
            Record::Rows {
                kind,
                txn,
                table,
                batch: r,
            }
        }
        SEQUENCE => {
            let name = r.string()?;
            let last = r.i64()?;
            let called = r.u8()? != 0;
            Record::Sequence { name, last, called }
        }
        COMMIT => Record::Commit { txn: r.u64()? },
        _ => return Err(super::codec::corrupt("an unknown log record")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_stops_at_a_torn_or_damaged_frame() {
        let mut log = Vec::new();
        frame(b"first", &mut log);
        frame(b"second", &mut log);
        let whole = log.len();
        frame(b"third", &mut log);
        // Every cut inside the third frame keeps exactly the first two.
        for cut in whole..log.len() {
            let (got, used) = frames(&log[..cut]);
            assert_eq!(got, vec![&b"first"[..], &b"second"[..]]);
            assert_eq!(used, whole);
        }
        // A flipped byte in the second frame's payload ends the log before it.
        let mut bad = log.clone();
        bad[whole - 1] ^= 1;
        assert_eq!(frames(&bad).0, vec![&b"first"[..]]);
        // Zeros after the last frame (space a file system kept) end the log.
        let mut zeros = log.clone();
        zeros.extend_from_slice(&[0; 64]);
        assert_eq!(frames(&zeros).1, log.len());
        // A length pointing past the end is a torn frame, not an allocation.
        let mut long = log.clone();
        long[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(frames(&long).0.is_empty());
    }
}
