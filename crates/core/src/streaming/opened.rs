//! A case file as the run opened it: its first read, the two halves of a split file and every
//! case that comes back read through the one handle opened first (positional reads), so that
//! a file renamed or replaced under the run is never seen; one changed in place (truncated,
//! rewritten, appended to) is found by its size and modification time when its reading ends
//! and when a case is read again, and is an input error ([`FileChanged`](crate::input::FileChanged)).

use std::fs::File;
use std::io::{self, Read};
use std::sync::Arc;

use super::watch::InputCopy;
use crate::input::{check_unchanged, FileStamp, InputError, InputFormat};
use crate::store::ReadAt;

/// An open case file (or the copy of standard input) and what it was when opened.
#[derive(Clone)]
pub(super) struct OpenedFile {
    /// The name it is reported by.
    name: String,
    /// The handle every read goes through, held until the run has finished with the file
    /// (a file whose reading has ended is never read again).
    file: Arc<File>,
    /// What it was when opened (`None`: not a regular file, or the copy of standard input,
    /// which grows as it is read).
    stamp: Option<FileStamp>,
    /// The copy, when this is the copy of an input that cannot be read again.
    copy: Option<Arc<InputCopy>>,
}

impl OpenedFile {
    /// Opens the case file at `path`, named `name`, of `format` (a workbook too large is
    /// refused by its size); a failure is the whole-file input error every reader reports.
    pub(super) fn open(
        name: &str,
        path: &std::path::Path,
        format: InputFormat,
    ) -> Result<OpenedFile, InputError> {
        let file = crate::input::open_case_file(path, format)
            .map_err(|e| InputError::unreadable(name, 0, e))?;
        let stamp = FileStamp::of_file(&file).map_err(|e| InputError::unreadable(name, 0, e))?;
        Ok(OpenedFile {
            name: name.to_owned(),
            file: Arc::new(file),
            stamp,
            copy: None,
        })
    }

    /// The copy of an input that cannot be read again (standard input, a pipe), named `name`.
    pub(super) fn spool(name: &str, spool: &Arc<InputCopy>) -> OpenedFile {
        OpenedFile {
            name: name.to_owned(),
            file: Arc::clone(spool.file()),
            stamp: None,
            copy: Some(Arc::clone(spool)),
        }
    }

    /// Whether it can be read again as it was read (a copy that stopped cannot): an error
    /// saying why not.
    pub(super) fn readable_again(&self) -> io::Result<()> {
        match &self.copy {
            Some(copy) => copy.whole(&self.name),
            None => Ok(()),
        }
    }

    /// The handle.
    pub(super) fn handle(&mut self) -> io::Result<Arc<File>> {
        Ok(Arc::clone(&self.file))
    }

    /// The handle, shared.
    pub(super) fn shared(&self) -> io::Result<Arc<File>> {
        Ok(Arc::clone(&self.file))
    }

    /// A reader of the whole file from where its handle stands (its start: it was just
    /// opened), by plain reads, which a FIFO allows too.
    pub(super) fn sequential(&self) -> io::Result<Sequential> {
        self.shared().map(Sequential)
    }

    /// A reader from byte `offset` on, by positional reads (several may read at once).
    pub(super) fn reader(&self, offset: u64) -> io::Result<ReadAt> {
        self.shared().map(|file| ReadAt { file, offset })
    }

    /// Its size when it was opened, if it is a regular file.
    pub(super) fn len(&self) -> Option<u64> {
        self.stamp.as_ref().map(FileStamp::len)
    }

    /// Checks that the file read through `file` (its handle) is as it was when opened: an
    /// error carrying [`FileChanged`](crate::input::FileChanged) if it is not.
    pub(super) fn check_read(&self, file: &File) -> io::Result<()> {
        match &self.stamp {
            Some(stamp) => check_unchanged(&self.name, stamp, file),
            None => Ok(()),
        }
    }

    /// Checks the file through its own handle (see [`OpenedFile::check_read`]).
    pub(super) fn check(&self) -> io::Result<()> {
        self.check_read(&self.file)
    }
}

/// Plain reads of a shared handle.
pub(super) struct Sequential(Arc<File>);

impl Read for Sequential {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        (&*self.0).read(buf)
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;
    use std::sync::Arc;

    use super::*;
    use crate::input::{FileChanged, InputErrors, RowResult, Source};
    use crate::matrix::CsvMatrix;
    use crate::streaming::ids::SeenIds;
    use crate::streaming::run::StreamRun;
    use crate::streaming::spill::assemble;
    use crate::streaming::{row_hash, Location};

    const HEADER: &str =
        "case_id,event,observed_at,job_id,lease_id,generation,holder,lease_duration\n";

    /// A file whose case `c0` comes back at its end, after four others closed it (two cases
    /// open at most); its first offer lasts `duration` seconds, the others `others`.
    fn cases(duration: u32, others: u32) -> String {
        let mut text = String::from(HEADER);
        text.push_str(&format!(
            "c0,offer,2026-01-01T10:00:00Z,j0,L0,1,w,{duration}\n"
        ));
        for i in 1..5 {
            text.push_str(&format!(
                "c{i},offer,2026-01-01T10:00:00Z,j{i},L{i},1,w,{others}\n"
            ));
        }
        text.push_str("c0,ack,2026-01-01T10:00:05Z,,L0,1,w,\n");
        text
    }

    /// The rows of `text`, read from memory.
    fn rows(text: &str) -> Vec<(u64, RowResult)> {
        let mut rows = Vec::new();
        let options = crate::input::ReadOptions::default();
        let how = crate::input::CaseRead::new("work.csv", InputFormat::Csv, &options);
        crate::input::read(
            text.as_bytes(),
            &how,
            &mut crate::input::InputErrors::new(),
            &mut |line, row| rows.push((line, row)),
            &mut crate::input::NoObserver,
        );
        rows
    }

    /// The matrix of a run over the file at `path`, opened first, fed the rows of `text`
    /// (what was in it when it was opened); `meddle` runs before the row of line
    /// `meddle_at` is fed.
    fn judged(path: &Path, text: &str, meddle_at: u64, meddle: &dyn Fn()) -> io::Result<Vec<u8>> {
        let source = Source {
            name: "work.csv".into(),
            path: Some(path.to_owned()),
            options: Default::default(),
        };
        let opened = OpenedFile::open(&source.name, path, InputFormat::Csv).unwrap();
        let mut run = StreamRun::new(
            None,
            2,
            Some(&CsvMatrix),
            Arc::new(SeenIds::for_ids(100)),
            false,
        )?;
        run.begin_file(
            0,
            &source.name,
            InputFormat::Csv,
            &source.options,
            Some(opened),
        );
        for (line, row) in rows(text) {
            if line == meddle_at {
                meddle();
            }
            let at = Location {
                file_index: 0,
                file: &source.name,
                line,
            };
            run.feed_hashed(at, &row, row_hash(&row))?;
        }
        run.end_file(InputErrors::new())?;
        assert!(run.errors.is_empty());
        assert_eq!(run.came_back_count, 1, "c0 came back");
        let mut out = Vec::new();
        assemble(&mut out, &CsvMatrix, vec![run.spill.close()?])?;
        Ok(out)
    }

    fn changed(result: io::Result<Vec<u8>>) -> String {
        let e = result.expect_err("the change is found");
        FileChanged::of(&e).expect("a FileChanged").how.clone()
    }

    #[test]
    fn a_case_that_comes_back_is_read_again_from_the_file_first_opened() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work.csv");
        let (old, new) = (cases(30, 30), cases(3, 31));
        fs::write(&work, &old).unwrap();
        let expected = judged(&work, &old, 0, &|| {}).unwrap();
        // The old matrix: c0 acked in time.
        assert!(
            String::from_utf8_lossy(&expected).contains("c0,j0,L0,1,w,2026-01-01T10:00:00Z,30,")
        );

        // Another file renamed over it before c0 comes back (at line 7): the file opened
        // first is read again, and the matrix is the old file's.
        let renamed = judged(&work, &old, 7, &|| {
            fs::write(dir.path().join("new.csv"), &new).unwrap();
            fs::rename(dir.path().join("new.csv"), &work).unwrap();
        });
        assert_eq!(renamed.unwrap(), expected);

        // Changed in place: found, never read as a mix.
        fs::write(&work, &old).unwrap();
        let truncated = judged(&work, &old, 7, &|| {
            fs::OpenOptions::new()
                .write(true)
                .open(&work)
                .unwrap()
                .set_len(40)
                .unwrap();
        });
        assert!(changed(truncated).contains("has 40 now"));
        fs::write(&work, &old).unwrap();
        let rewritten = judged(&work, &old, 7, &|| fs::write(&work, &new).unwrap());
        assert!(changed(rewritten).contains("bytes when it was opened"));
    }

    #[test]
    fn a_file_changed_in_place_is_found_when_its_reading_ends() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work.csv");
        let old = cases(30, 30);
        fs::write(&work, &old).unwrap();
        let opened_at = fs::metadata(&work).unwrap().modified().unwrap();
        // The rows fed: the file's, then one more (line 8), before which the same bytes are
        // written again, after c0 came back and was read again (line 7): only the
        // modification time tells, and the end of the file's reading looks at it.
        let fed = format!("{old}c9,offer,2026-01-01T10:00:00Z,j9,L9,1,w,30\n");
        let rewritten = judged(&work, &fed, 8, &|| {
            fs::write(&work, &old).unwrap();
            fs::OpenOptions::new()
                .write(true)
                .open(&work)
                .unwrap()
                .set_modified(opened_at + std::time::Duration::from_secs(7))
                .unwrap();
        });
        assert!(changed(rewritten).contains("written to after it was opened"));
    }
}
