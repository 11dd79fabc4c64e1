//! Temporary files, for what outgrows memory: records written to them through one codec
//! ([`Record`], its fields appended by [`Put`] and read back by [`Get`]), an anonymous file
//! appended to and read back by positional reads ([`TempFile`], one implementation for every
//! user), bytes in memory up to a cap and then in such a file ([`SpillBuffer`]), and sorted
//! runs merged back in key order by one k-way merge ([`Merge`]), which an external sort that
//! keeps the first entries ([`ExternalSort`]) is built on. The engine's spill and id log, the
//! grading partitions, the spool and case lists, and `validate`'s warnings all keep their
//! bytes here.

mod append;
mod buffer;
mod codec;
mod file;
mod memory;
mod merge;
mod sort;

pub use append::AppendFile;
pub use buffer::{Held, SpillBuffer, Spilled};
pub use codec::{corrupt, take, Get, Put, Record};
pub use file::{
    anonymous_file, read_at, scratch_file, temp_error, Appender, Extents, ReadAt, TempFile,
    TempReader, TempWriter,
};
pub use merge::Merge;
pub use sort::{Entry, ExternalSort};
