fn main() {
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).unwrap();
        let t = std::time::Instant::now();
        let mut p = pexe::bitstream::Parser::new(&data);
        let mut n = 0u64;
        let r = loop {
            match p.next_event() {
                Ok(pexe::bitstream::Event::End) => break Ok(()),
                Ok(_) => n += 1,
                Err(e) => break Err(e),
            }
        };
        println!("{path}: {n} events {:?} {:?}", r, t.elapsed());
    }
}
