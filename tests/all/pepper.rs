//! Pepper plugins from the corpus, headless in Node through `pexe run`:
//! stdin lines are posted to the plugin, its messages come out as stdout
//! lines (`js/src/node/run.mjs`). Both Stockfish builds speak UCI (threads
//! included, `stop` answered promptly), the SDK-sized plugins answer their
//! pages' messages, and every Pepper pexe in the corpus starts: it loads
//! (DidCreate said yes) or ends naming the interface it misses — none
//! hangs, none takes the host down; those that probe the socket interfaces
//! start alike with no network, through a socket relay and with `--net`.
//! xsystem35 reads its game from the persistent file system (`--storage`)
//! and its configuration over HTTP (nacl_io's httpfs, a local server).
//! Needs Node.js 20+.

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
    let out = run_plugin("lpdevs_PNaCl-examples/part2.pexe", &["--idle-timeout", "3000"], "hello\n", Duration::from_secs(60));
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

/// A fresh directory under the target's temp dir.
fn scratch_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An AliceSoft DRI archive (`.ald`) holding one entry, the way xsystem35's
/// dri.c reads them: a pointer table (sector 0: its own size in sectors,
/// then the sector of each entry and of the end), a map (sector 1: disk
/// and 1-based pointer of each entry), then the entry: a 32-byte header
/// (data offset, size, name) and the data.
fn ald_archive(name: &str, payload: &[u8]) -> Vec<u8> {
    let mut entry = Vec::new();
    entry.extend_from_slice(&32u32.to_le_bytes());
    entry.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    let mut n = name.as_bytes().to_vec();
    n.resize(24, 0);
    entry.extend_from_slice(&n);
    entry.extend_from_slice(payload);
    let sectors = entry.len().div_ceil(256);
    entry.resize(sectors * 256, 0);
    let b3 = |v: usize| [(v & 0xff) as u8, ((v >> 8) & 0xff) as u8, ((v >> 16) & 0xff) as u8];
    let mut out = vec![0u8; 512];
    out[0..3].copy_from_slice(&b3(1));
    out[3..6].copy_from_slice(&b3(2));
    out[6..9].copy_from_slice(&b3(2 + sectors));
    out[256..259].copy_from_slice(&[1, 1, 0]);
    out.extend_from_slice(&entry);
    out
}

/// What kichikuou's installer (install.html, js/installer-worker.js) puts
/// in the PERSISTENT file system, for a made-up System 3.5 game whose one
/// scenario page saves to slot 1 (`QD 1:`) and quits (`ZZ0 0:`): the
/// archive, the generated `xsystem35.gr`, the font copied to `fonts/`, and
/// the `save/` directory play.html checks for.
fn install_test_game(dir: &Path) {
    let mut sco = b"S350".to_vec();
    sco.extend_from_slice(&32u32.to_le_bytes());
    sco.resize(32, 0);
    sco.extend_from_slice(b"QD\x41\x7f"); // save everything to slot 1 (SaveA)
    sco.extend_from_slice(b"ZZ\x00\x40\x7f"); // quit, posting {command: 'exit', code: sysVar[0]}
    std::fs::write(dir.join("testsa.ald"), ald_archive("test.sco", &sco)).unwrap();
    std::fs::write(dir.join("xsystem35.gr"), "ScenarioA gamedata/testsa.ald\nSaveA gamedata/save/testsa.asd\n").unwrap();
    std::fs::create_dir_all(dir.join("fonts")).unwrap();
    std::fs::copy(
        corpus("kichikuou_kichikuou_github_io/site/xsystem35/fonts/MTLc3m.ttf"),
        dir.join("fonts/MTLc3m.ttf"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("save")).unwrap();
}

#[test]
fn xsystem35_reads_its_game_from_the_persistent_file_system_and_saves_there() {
    // xsystem35 mounts the PERSISTENT HTML5 file system at /gamedata with
    // nacl_io's html5fs (PPB_FileSystem/FileRef/FileIO, blocking calls from
    // its main pthread): `--storage` makes that a host directory.
    let site = corpus("kichikuou_kichikuou_github_io/site");
    let storage = scratch_dir("xsystem35-storage");
    install_test_game(&storage);
    let page = format!("file://{}/play.html", site.display());
    let out = run_plugin(
        "kichikuou_kichikuou_github_io/site/xsystem35/xsystem35.pexe",
        &[
            "-v",
            "--storage",
            storage.to_str().unwrap(),
            "--base-url",
            &page,
            "--attr",
            "PS_VERBOSITY=2",
            "--attr",
            "ARG1=-debuglv",
            "--attr",
            "ARG2=2",
            // It posts nothing while it starts (font, archives): give it time.
            "--idle-timeout",
            "8000",
        ],
        "",
        Duration::from_secs(120),
    );
    let err = text(&out.stderr);
    assert!(out.status.success(), "exit {:?}\n{err}", out.status);
    let l = lines(&out);
    // It read xsystem35.gr and the archive (else "File … is not found"),
    // loaded the TrueType font through FreeType, started, and ran the
    // scenario to its end: QD answered 1 (saved), so ZZ quits with 1.
    assert!(l.iter().any(|x| x == r#"{"command":"set_window_size","width":640,"height":480}"#), "{l:?}\n{err}");
    assert!(l.iter().any(|x| x == r#"{"command":"ready"}"#), "{l:?}\n{err}");
    assert!(l.iter().any(|x| x == r#"{"command":"exit","code":1}"#), "{l:?}\n{err}");
    assert!(err.contains("FontDevice freetype2"), "{err}");
    assert!(!err.contains("not found") && !err.contains("mount failed") && !err.contains("ERROR"), "{err}");
    // The save went through PPB_FileIO into the host directory.
    let save = std::fs::read(storage.join("save/testsa.asd")).expect("the save file");
    assert!(save.starts_with(b"System3.5 SavaData"), "{:?}", &save[..32.min(save.len())]);
    assert!(save.len() > 1000, "{} bytes", save.len());
    let mut names: Vec<String> = std::fs::read_dir(&storage).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["fonts", "save", "testsa.ald", "xsystem35.gr"]);
    std::fs::remove_dir_all(&storage).unwrap();
}

#[test]
fn run_refuses_a_storage_directory_that_is_not_there() {
    let missing = scratch_dir("no-storage").join("missing");
    let out = run_plugin("lpdevs_PNaCl-examples/part2.pexe", &["--storage", missing.to_str().unwrap()], "", Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--storage") && text(&out.stderr).contains("not a directory"), "{}", text(&out.stderr));
}

/// A static HTTP server on 127.0.0.1 for the files under `root`, in a
/// thread: each request's first line ("HEAD /path") is sent on the channel.
/// Paths with `..` are refused (404). Returns the port.
fn serve_files(root: PathBuf) -> (u16, mpsc::Receiver<String>) {
    use std::io::BufRead as _;
    use std::net::TcpListener;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            let tx = tx.clone();
            let root = root.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut first = String::new();
                if reader.read_line(&mut first).is_err() {
                    return;
                }
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                }
                let mut parts = first.split_whitespace();
                let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
                let _ = tx.send(format!("{method} {target}"));
                let path = target.split('?').next().unwrap_or("/");
                let file = (!path.contains("..")).then(|| root.join(path.trim_start_matches('/')));
                let (status, body) = match file.and_then(|f| std::fs::read(f).ok()) {
                    Some(body) => ("200 OK", body),
                    None => ("404 Not Found", Vec::new()),
                };
                let head = format!("HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
                let _ = stream.write_all(head.as_bytes());
                if method != "HEAD" {
                    let _ = stream.write_all(&body);
                }
            });
        }
    });
    (port, rx)
}

#[test]
fn xsystem35_reads_its_configuration_over_http_with_nacl_io_httpfs() {
    // xsystem35 mounts the folder of its .nmf over HTTP as its root
    // (nacl_io's httpfs: URLLoader HEAD for the size, then GET) and reads
    // xsys35rc there before anything else.
    let site = corpus("kichikuou_kichikuou_github_io/site");
    let (port, requests) = serve_files(site);
    let storage = scratch_dir("xsystem35-http-storage");
    install_test_game(&storage);
    let page = format!("http://127.0.0.1:{port}/play.html");
    let out = run_plugin(
        "kichikuou_kichikuou_github_io/site/xsystem35/xsystem35.pexe",
        &["-v", "--storage", storage.to_str().unwrap(), "--base-url", &page, "--idle-timeout", "8000"],
        "",
        Duration::from_secs(120),
    );
    let err = text(&out.stderr);
    assert!(out.status.success(), "exit {:?}\n{err}", out.status);
    let seen: Vec<String> = requests.try_iter().collect();
    let rc = seen.iter().position(|r| r == "GET /xsystem35/xsys35rc").unwrap_or_else(|| panic!("no GET of xsys35rc: {seen:?}"));
    assert!(seen[..rc].iter().any(|r| r == "HEAD /xsystem35/xsys35rc"), "httpfs asks the size first: {seen:?}");
    // What it read there made it start the installed game, which ran to its end.
    let l = lines(&out);
    assert!(l.iter().any(|x| x == r#"{"command":"exit","code":1}"#), "{l:?}\n{err}");
    std::fs::remove_dir_all(&storage).unwrap();
}

/// The corpus Pepper pexes that ask for a socket interface (nacl_io probes
/// them at start-up).
fn socket_plugins() -> Vec<String> {
    let names: [&[u8]; 3] = [b"PPB_TCPSocket", b"PPB_UDPSocket", b"PPB_HostResolver"];
    pepper_pexes()
        .into_iter()
        .filter(|rel| {
            let bytes = std::fs::read(corpus(rel)).unwrap();
            names.iter().any(|n| bytes.windows(n.len()).any(|w| w == *n))
        })
        .collect()
}

/// Starts `pexe relay --port 0 --allow 127.0.0.1:*` and returns it with its URL.
fn start_relay() -> (Child, String) {
    let mut child = pexe()
        .args(["relay", "--port", "0", "--allow", "127.0.0.1:*"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("cannot start pexe relay");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line
        .strip_prefix("pexe relay: listening on ")
        .and_then(|r| r.split(' ').next())
        .unwrap_or_else(|| panic!("relay said {line:?}"))
        .to_owned();
    (child, url)
}

#[test]
fn plugins_that_probe_sockets_start_alike_without_a_network_with_a_relay_and_with_net() {
    let plugins = socket_plugins();
    // glb_nacl.pexe links nacl_io too, but a build without its socket nodes.
    assert_eq!(plugins, ["kichikuou_kichikuou_github_io/xsystem35.pexe", "woodjazz_nsg-library/nsg.pexe"]);
    let (mut relay, url) = start_relay();
    let outcome = |rel: &str, flags: &[&str]| {
        // xsystem35 exits (1) by itself soon after it has loaded; nsg never
        // does and ends idle (0). The grace period is long enough that a
        // busy machine (CI at load 11 took over 1 s) still sees the first.
        let mut all = vec!["-v", "--idle-timeout", "5000"];
        all.extend_from_slice(flags);
        let out = run_plugin(rel, &all, "", Duration::from_secs(90));
        let err = text(&out.stderr);
        assert!(!err.contains("runtime bug") && !err.contains("socket relay"), "{rel} {flags:?}: {err}");
        let lacks: Vec<String> = err
            .lines()
            .filter_map(|l| l.strip_prefix("pexe: the plugin asked for "))
            .map(str::to_owned)
            .collect();
        (err.contains("the plugin has loaded"), out.status.code(), lacks)
    };
    for rel in &plugins {
        let plain = outcome(rel, &[]);
        assert!(plain.0 || !plain.2.is_empty(), "{rel}: {plain:?}");
        assert_eq!(outcome(rel, &["--socket-relay", &url]), plain, "{rel} with the relay");
        assert_eq!(outcome(rel, &["--net", "127.0.0.1:*"]), plain, "{rel} with --net");
    }
    let _ = relay.kill();
    let _ = relay.wait();
}
