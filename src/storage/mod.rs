//! Storage: columnar tables with multi-version concurrency control.
//!
//! Tables ([`table::Table`]) keep rows in row groups of typed column vectors; every row
//! version carries the transaction that created it (`xmin`) and the one that deleted it
//! (`xmax`). [`mvcc`] hands out transaction ids and snapshots and serializes writers.
//! [`vacuum`] removes the versions no snapshot can see any more. Storage knows nothing
//! of SQL: it stores vectors, stamps versions and answers "which rows does this
//! snapshot see".

pub mod advisory;
pub mod index;
pub mod locks;
pub mod mvcc;
pub mod ssi;
pub mod table;
pub mod vacuum;
