//! Criterion benchmarks: rows per second through the lease core (`Case::step`) on generated
//! rows already parsed, and through the typed-row parser, so changes to either show up alone.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use leasejudge::generate::{default_mix, write_cases, Options};
use leasejudge::input::{read, CaseRead, InputFormat, NoObserver, ParsedRow, ReadOptions};
use leasejudge::lease::Case;

/// 20,000 generated cases (contiguous), parsed once: each case's rows in order.
fn generated_cases() -> (Vec<u8>, Vec<Vec<ParsedRow>>) {
    let options = Options {
        seed: 1,
        cases: 20_000,
        rows_per_case: (6, 14),
        interleave: 1,
        mix: default_mix(),
    };
    let mut file = Vec::new();
    write_cases(&options, &mut file).expect("writing to memory");
    let mut cases: Vec<Vec<ParsedRow>> = Vec::new();
    let mut errors = leasejudge::input::InputErrors::new();
    let read_options = ReadOptions::default();
    let how = CaseRead::new("bench.csv", InputFormat::Csv, &read_options);
    read(
        &file[..],
        &how,
        &mut errors,
        &mut |_, row| {
            let row = row.expect("generated rows are valid");
            match cases.last_mut() {
                Some(case) if case[0].case_id == row.case_id => case.push(row),
                _ => cases.push(vec![row]),
            }
        },
        &mut NoObserver,
    );
    assert!(errors.is_empty());
    (file, cases)
}

fn bench_core(c: &mut Criterion) {
    let (file, cases) = generated_cases();
    let rows: u64 = cases.iter().map(|case| case.len() as u64).sum();

    let mut group = c.benchmark_group("lease core");
    group.throughput(Throughput::Elements(rows));
    group.bench_function("Case::start + Case::step + verdict", |b| {
        b.iter(|| {
            let mut decided = 0u32;
            for case in &cases {
                let (mut replay, _) = Case::start(&case[0].row).expect("starts with an offer");
                for parsed in &case[1..] {
                    replay.step(&parsed.row).expect("valid rows");
                }
                decided += replay.verdict(None).decision as u32;
            }
            decided
        })
    });
    group.finish();

    let read_options = ReadOptions::default();
    let how = CaseRead::new("bench.csv", InputFormat::Csv, &read_options);
    let mut group = c.benchmark_group("input");
    group.throughput(Throughput::Elements(rows));
    group.bench_function("CSV to typed rows", |b| {
        b.iter(|| {
            let mut count = 0u64;
            let mut errors = leasejudge::input::InputErrors::new();
            read(
                &file[..],
                &how,
                &mut errors,
                &mut |_, row| {
                    count += u64::from(row.is_ok());
                },
                &mut NoObserver,
            );
            count
        })
    });
    group.finish();
}

criterion_group!(benches, bench_core);
criterion_main!(benches);
