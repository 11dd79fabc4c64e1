//! The straightforward run the streaming engine is tested against: every source read in
//! order, every case kept in memory ([`Adjudication`](crate::oracle::adjudication::Adjudication)), its errors filed per file in line
//! order (a reader's first at equal lines), every case judged at the end.

use crate::oracle::adjudication::{Adjudication, Judged, Location};
use leasejudge::input::{read_source, InputErrors, InputFormat, ParsedRow, Source};
use leasejudge::lease::{Outcome, Timestamp};

/// Reads every source in order and judges every case. `on_row` sees each replayed row with
/// its location and outcome as soon as it is read. Fails with every input error of every
/// source, in file and line order.
pub fn judge_sources(
    sources: &[Source],
    input_format: Option<InputFormat>,
    run_as_of: Option<Timestamp>,
    on_row: &mut dyn FnMut(Location<'_>, &ParsedRow, &Outcome),
) -> Result<Vec<Judged>, InputErrors> {
    let mut adjudication = Adjudication::new();
    let mut all_errors = InputErrors::new();
    for (file_index, source) in sources.iter().enumerate() {
        let mut errors = InputErrors::new();
        read_source(
            source,
            input_format,
            &mut errors,
            &mut |line, row| {
                let at = Location {
                    file_index,
                    file: &source.name,
                    line,
                };
                if let Some(outcome) = adjudication.feed(at, &row) {
                    if let Ok(parsed) = &row {
                        on_row(at, parsed, &outcome);
                    }
                }
            },
            &mut leasejudge::input::NoObserver,
        );
        errors.merge_by_line(adjudication.take_errors());
        all_errors.append(errors);
    }
    if all_errors.is_empty() {
        adjudication.finish(run_as_of)
    } else {
        Err(all_errors)
    }
}
