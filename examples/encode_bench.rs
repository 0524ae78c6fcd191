//! Micro-benchmark of the DataRow encoder on large_sort-shaped batches.
use kiln::exec::vector::{Batch, Data, TextVec, Vector};
use kiln::types::text::TextFormat;
use kiln::types::{DataType, SqlType};
use kiln::wire::codec::OutBuf;
use kiln::wire::encode::data_rows;

fn main() {
    let n = 2048usize;
    let ints = |f: &dyn Fn(usize) -> i32| Vector::from_data(Data::I32((0..n).map(f).collect()));
    let texts = |f: &dyn Fn(usize) -> String| {
        let mut t = TextVec::with_capacity(n);
        for i in 0..n {
            t.push(f(i).as_bytes());
        }
        Vector::from_data(Data::Text(t))
    };
    let regions = ["North", "South", "East", "West"];
    let batch = Batch::new(
        vec![
            ints(&|i| i as i32 * 13),
            texts(&|i| regions[i % 4].to_string()),
            texts(&|i| format!("prod_{}", (i / 4) % 25)),
            ints(&|i| ((i * 7919) % 100003) as i32),
            ints(&|i| 100 + ((i * 31) % 4900) as i32),
            ints(&|i| ((i * 13) % 2000) as i32 - 1000),
            ints(&|i| 1 + ((i * 17) % 100) as i32),
        ],
        n,
    );
    let t = SqlType::new(DataType::Int4);
    let x = SqlType::new(DataType::Text);
    let types = [t, x, x, t, t, t, t];
    let fmt = TextFormat::default();
    let mut out = OutBuf::default();
    let reps = 2000;
    let mut best = f64::MAX;
    for _ in 0..5 {
        let start = std::time::Instant::now();
        for _ in 0..reps {
            out.buf.clear();
            data_rows(&mut out, &batch, &types, &[], &fmt, 0, n);
        }
        let ns = start.elapsed().as_nanos() as f64 / (reps * n * 7) as f64;
        best = best.min(ns);
    }
    println!("{:.2} ns per cell, {} bytes per batch", best, out.buf.len());
}
