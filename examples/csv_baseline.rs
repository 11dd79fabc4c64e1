//! The throughput baseline for `bench/run.sh`: a bare csv-crate `ByteRecord` parse of a file,
//! configured as leasejudge's CSV reader is, counting records and cells. This is the floor
//! any CSV adjudication must pay.

use std::fs::File;
use std::io::BufReader;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: csv_baseline FILE");
        return ExitCode::from(2);
    };
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(e) => {
            eprintln!("csv_baseline: {}: {e}", path.to_string_lossy());
            return ExitCode::from(2);
        }
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(BufReader::with_capacity(1 << 16, file));
    let mut record = csv::ByteRecord::new();
    let (mut records, mut cells) = (0u64, 0u64);
    loop {
        match reader.read_byte_record(&mut record) {
            Ok(true) => {
                records += 1;
                cells += record.len() as u64;
            }
            Ok(false) => break,
            Err(e) => {
                eprintln!("csv_baseline: {e}");
                return ExitCode::from(2);
            }
        }
    }
    println!("{records} records, {cells} cells");
    ExitCode::SUCCESS
}
