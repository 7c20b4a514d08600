//! Pepper plugins from the corpus, headless in Node through `pexe run`:
//! stdin lines are posted to the plugin, its messages come out as stdout
//! lines (`js/src/node/run.mjs`). Both Stockfish builds speak UCI (threads
//! included, `stop` answered promptly), the SDK-sized plugins answer their
//! pages' messages, and every Pepper pexe in the corpus starts: it loads
//! (DidCreate said yes) or ends naming the interface it misses — none
//! hangs, none takes the host down. Needs Node.js 20+.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const PPAPI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/ppapi");

fn corpus(rel: &str) -> PathBuf {
    Path::new(PPAPI).join(rel)
}

fn pexe() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pexe"))
}

/// Runs `pexe run [flags] <pexe>` with `input` on stdin (then EOF); kills it
/// after `limit` (a hang is a failure).
fn run_plugin(rel: &str, flags: &[&str], input: &str, limit: Duration) -> Output {
    let mut child = pexe()
        .arg("run")
        .args(flags)
        .arg(corpus(rel))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start the pexe binary");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    wait_with_limit(child, limit, rel)
}

fn wait_with_limit(mut child: Child, limit: Duration, what: &str) -> Output {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{what}: still running after {limit:?}\nstdout:\n{}\nstderr:\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn lines(out: &Output) -> Vec<String> {
    text(&out.stdout).lines().map(str::to_owned).collect()
}

#[test]
fn stockfish_10_speaks_uci_and_searches() {
    let out = run_plugin(
        "niklasf_stockfish_pexe/stockfish.pexe",
        &["--idle-timeout", "8000"],
        "uci\nisready\nposition startpos moves e2e4\ngo depth 10\n",
        Duration::from_secs(120),
    );
    let l = lines(&out);
    assert!(out.status.success(), "exit {:?}\n{}", out.status, text(&out.stderr));
    assert!(l[0].starts_with("Stockfish 170317"), "{l:?}");
    assert!(l.iter().any(|x| x == "uciok"), "{l:?}");
    assert!(l.iter().any(|x| x == "readyok"), "{l:?}");
    assert!(l.iter().any(|x| x.starts_with("info depth 10 ")), "{l:?}");
    let best = l.iter().find(|x| x.starts_with("bestmove ")).expect("a bestmove line");
    assert!(best.len() >= "bestmove e7e5".len(), "{best}");
}

#[test]
fn stockfish_10_searches_on_two_threads() {
    let out = run_plugin(
        "niklasf_stockfish_pexe/stockfish.pexe",
        &["--trace", "--idle-timeout", "8000"],
        "uci\nsetoption name Threads value 2\nisready\nposition startpos\ngo depth 12\n",
        Duration::from_secs(120),
    );
    assert!(out.status.success(), "exit {:?}", out.status);
    let l = lines(&out);
    assert!(l.iter().any(|x| x.starts_with("bestmove ")), "{l:?}");
    // The trace names each thread's calls "[pexe <tid>]": the search ran
    // on two more threads than the main one (Stockfish's main search
    // thread and the helper Threads=2 adds), each in its own Worker.
    let err = text(&out.stderr);
    let created = err.lines().filter(|x| x.contains(" thread_create(") && x.ends_with(" = 0")).count();
    assert!(created >= 2, "{created} threads created");
    let mut tids: Vec<&str> = err
        .lines()
        .filter(|x| x.contains("futex_"))
        .filter_map(|x| x.strip_prefix("[pexe ").and_then(|r| r.split(']').next()))
        .collect();
    tids.sort_unstable();
    tids.dedup();
    assert!(tids.len() >= 3, "threads that waited on futexes: {tids:?}");
}

#[test]
fn stockfish_10_stops_an_infinite_search_promptly() {
    let mut child = pexe()
        .args(["run", "--idle-timeout", "500"])
        .arg(corpus("niklasf_stockfish_pexe/stockfish.pexe"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let wait_for = |prefix: &str, limit: Duration| -> Option<Instant> {
        let end = Instant::now() + limit;
        while let Ok(line) = rx.recv_timeout(end.saturating_duration_since(Instant::now())) {
            if line.starts_with(prefix) {
                return Some(Instant::now());
            }
        }
        None
    };
    stdin.write_all(b"uci\nisready\n").unwrap();
    assert!(wait_for("readyok", Duration::from_secs(60)).is_some(), "no readyok");
    stdin.write_all(b"position startpos\ngo infinite\n").unwrap();
    assert!(wait_for("info depth 5", Duration::from_secs(60)).is_some(), "the search did not start");
    std::thread::sleep(Duration::from_millis(500));
    let sent = Instant::now();
    stdin.write_all(b"stop\n").unwrap();
    let answered = wait_for("bestmove ", Duration::from_secs(10)).expect("no bestmove after stop");
    let took = answered - sent;
    assert!(took < Duration::from_secs(2), "stop took {took:?}");
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

#[test]
fn stockfish_5_speaks_uci() {
    let out = run_plugin(
        "exoticorn_chromefish/stockfish.pexe",
        &["--idle-timeout", "8000"],
        "uci\nisready\nposition startpos\ngo depth 8\n",
        Duration::from_secs(120),
    );
    assert!(out.status.success(), "exit {:?}\n{}", out.status, text(&out.stderr));
    let l = lines(&out);
    assert!(l[0].starts_with("Stockfish 5"), "{l:?}");
    assert!(l.iter().any(|x| x == "uciok") && l.iter().any(|x| x == "readyok"), "{l:?}");
    assert!(l.iter().any(|x| x.starts_with("bestmove ")), "{l:?}");
}

#[test]
fn sdk_plugins_answer_their_pages_messages() {
    // part2's page posts "hello"; the module answers "hello from NaCl".
    let out = run_plugin("lpdevs_PNaCl-examples/part2.pexe", &["--idle-timeout", "500"], "hello\n", Duration::from_secs(60));
    assert!(out.status.success());
    assert_eq!(lines(&out), ["hello from NaCl"]);
    // hello_tutorial posts from its constructor, before any message.
    let out = run_plugin("cptaffe_pnacl-test/hello_tutorial.pexe", &["--idle-timeout", "500"], "", Duration::from_secs(60));
    assert!(out.status.success());
    assert_eq!(lines(&out), ["C++ program online."]);
}

#[test]
fn plugin_attributes_reach_did_create() {
    // Stockfish ignores its attributes, but a plugin that fails DidCreate is
    // reported: webpenc's constructor reads none, so check the life-cycle
    // line for a plugin with attributes instead.
    let out = run_plugin(
        "lpdevs_PNaCl-examples/part2.pexe",
        &["-v", "--attr", "id=nacl_module", "--attr", "width=200", "--idle-timeout", "300"],
        "",
        Duration::from_secs(60),
    );
    assert!(out.status.success());
    assert!(text(&out.stderr).contains("the plugin has loaded"), "{}", text(&out.stderr));
}

/// Every Pepper pexe of the corpus.
fn pepper_pexes() -> Vec<String> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(PPAPI).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "pexe") {
                out.push(f.strip_prefix(PPAPI).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_pepper_pexe_starts_or_names_what_it_lacks() {
    let all = pepper_pexes();
    assert_eq!(all.len(), 17, "{all:?}");
    let mut report = Vec::new();
    for rel in &all {
        let out = run_plugin(rel, &["-v", "--idle-timeout", "1000"], "", Duration::from_secs(90));
        let err = text(&out.stderr);
        let loaded = err.contains("the plugin has loaded");
        let lacks: Vec<&str> = err
            .lines()
            .filter_map(|l| l.strip_prefix("pexe: the plugin asked for "))
            .filter_map(|l| l.strip_suffix(", which this runtime does not provide"))
            .collect();
        assert!(!err.contains("runtime bug"), "{rel}: {err}");
        let code = out.status.code();
        assert!(matches!(code, Some(0 | 1 | 134)), "{rel}: exit {:?}\n{err}", out.status);
        if code == Some(134) {
            // A fault after an interface was refused: the message says so.
            assert!(!lacks.is_empty() && err.contains("guest fault:"), "{rel}: {err}");
        }
        assert!(loaded || !lacks.is_empty(), "{rel}: neither loaded nor named a missing interface\n{err}");
        report.push(format!("{rel}: {} {}", if loaded { "loaded" } else { "not loaded" }, lacks.join(" ")));
    }
    // Shown with --nocapture: the per-pexe state for the closing note.
    for line in report {
        println!("{line}");
    }
}

#[test]
fn a_plugin_that_posts_nothing_ends_after_the_idle_timeout() {
    let start = Instant::now();
    let out = run_plugin("Annonator_AStar-PNaCl/star.pexe", &["--idle-timeout", "300"], "", Duration::from_secs(60));
    assert!(out.status.success(), "{:?} {}", out.status, text(&out.stderr));
    assert!(start.elapsed() < Duration::from_secs(30));
    let mut s = String::new();
    out.stdout.as_slice().read_to_string(&mut s).unwrap();
    assert_eq!(s, "");
}
