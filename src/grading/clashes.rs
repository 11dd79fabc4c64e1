//! Case ids in two case files checked together (spec section 2: a case id may not appear in
//! two files): every case's id and first line go to [`Partitions`] on disk as the files are
//! judged, and ids in two files are found a partition at a time once every file is judged, so
//! memory does not grow with the directory.

use std::collections::HashMap;
use std::io;
use std::path::Path;

use super::partitions::{Partitions, Splitter};
use crate::input::InputError;
use crate::streaming::{clash_error, Location};

/// Every case id of the case files checked together, with its file and first line.
pub struct CasePlaces {
    ids: Partitions,
    /// Per judged file, how many errors were listed once it was judged: where its clashes go.
    errors_after: Vec<u64>,
}

impl CasePlaces {
    /// No ids yet, split by `splitter`.
    pub fn with_splitter(splitter: &Splitter) -> CasePlaces {
        CasePlaces {
            ids: Partitions::new(splitter),
            errors_after: Vec::new(),
        }
    }

    /// No ids yet, split for the ids of the case files at `paths` (those that cannot be
    /// measured, standard input, count for nothing).
    pub fn for_case_files<'a>(paths: impl Iterator<Item = &'a Path>) -> CasePlaces {
        // An id and its place take a few dozen bytes; a case, some hundreds in its file.
        let bytes: u64 = paths
            .filter_map(|path| std::fs::metadata(path).ok())
            .map(|metadata| metadata.len() / 8)
            .sum();
        CasePlaces::with_splitter(&Splitter::for_bytes(bytes))
    }

    /// Adds a case of the file being judged (the `file_index`th): its id and first line.
    pub fn push(&mut self, case_id: &str, line: u64, file_index: usize) {
        self.ids.push(case_id, line, file_index as u64, &[]);
    }

    /// Ends the file being judged, after which `errors_before` errors were listed: where its
    /// clashes go among them.
    pub fn end_file(&mut self, errors_before: usize) {
        self.errors_after.push(errors_before as u64);
    }

    /// Each place of an id after its first, as the error a clash is, with where it goes among
    /// the other errors, in the order the files were judged (`names`: the files' names).
    pub fn clashes(&self, names: &[String]) -> io::Result<Vec<(u64, InputError)>> {
        let mut clashes = Vec::new();
        for part in 0..self.ids.parts() {
            // One partition's ids at a time.
            let mut first: HashMap<String, (usize, u64)> = HashMap::new();
            self.ids.read(part, &mut |row| {
                let file_index = row.tag as usize;
                match first.get(row.case_id) {
                    Some(&(earlier, first_line)) => {
                        let at = Location {
                            file_index,
                            file: &names[file_index],
                            line: row.line,
                        };
                        let error = clash_error(at, row.case_id, &names[earlier], first_line);
                        clashes.push((row.index, self.errors_after[file_index], error));
                    }
                    None => {
                        first.insert(row.case_id.to_owned(), (file_index, row.line));
                    }
                }
                Ok(())
            })?;
        }
        // In the order they were met: file by file, each file's cases in its order.
        clashes.sort_unstable_by_key(|(index, _, _)| *index);
        Ok(clashes
            .into_iter()
            .map(|(_, errors_before, error)| (errors_before, error))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids in two files are found a partition at a time as one map of first places finds
    /// them, in the same order, each placed after its file's errors.
    #[test]
    fn clashes_across_files_are_found_split_as_whole() {
        let names: Vec<String> = (0..3).map(|i| format!("f{i}.csv")).collect();
        let files: Vec<Vec<String>> = vec![
            (0..500).map(|i| format!("c{i}")).collect(),
            (400..900).rev().map(|i| format!("c{i}")).collect(),
            (0..1000).step_by(3).map(|i| format!("c{i}")).collect(),
        ];
        let mut expected = Vec::new();
        let mut first: HashMap<&str, (usize, u64)> = HashMap::new();
        for (file, ids) in files.iter().enumerate() {
            for (line, id) in ids.iter().enumerate() {
                let line = line as u64 + 2;
                match first.get(id.as_str()) {
                    Some(&(earlier, first_line)) => expected.push((
                        file as u64 * 10,
                        clash_error(
                            Location {
                                file_index: file,
                                file: &names[file],
                                line,
                            },
                            id,
                            &names[earlier],
                            first_line,
                        ),
                    )),
                    None => {
                        first.insert(id, (file, line));
                    }
                }
            }
        }
        assert!(expected.len() > 300);
        for parts in [1, 4, 33] {
            let mut places = CasePlaces::with_splitter(&Splitter::with_parts(parts));
            for (file, ids) in files.iter().enumerate() {
                for (line, id) in ids.iter().enumerate() {
                    places.push(id, line as u64 + 2, file);
                }
                places.end_file(file * 10);
            }
            assert_eq!(places.clashes(&names).unwrap(), expected, "{parts} parts");
        }
    }
}
