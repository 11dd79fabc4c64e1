use leasejudge::lease::Shortcut;
use leasejudge::shortcuts::*;
fn main() {
    let graded: u32 = std::env::args().nth(1).unwrap().parse().unwrap();
    let s = Shortcut::from_name(&std::env::args().nth(2).unwrap()).unwrap();
    let t = std::time::Instant::now();
    match find_catching_case(s, graded, Bounds::CATCH) {
        Finding::Caught { rows, .. } => println!("caught {} rows", rows.len()),
        Finding::NotCaught(c) => println!("{c:?}"),
    }
    eprintln!("{:?}", t.elapsed());
}
