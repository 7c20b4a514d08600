// A made-up System 3.5 game for xsystem35 (kichikuou's page), and the CD
// image its installer reads — generated here, since no real game may be
// in the repository:
//
//   aldArchive(name, payload)   the DRI archive (.ald) xsystem35's dri.c reads
//                               (the generator of tests/all/pepper.rs)
//   scenario(commands)          a scenario page (S350 header + commands)
//   cdImage({ files, audio })   { img, cue }: a raw MODE1/2352 ISO 9660 data
//                               track with GAMEDATA/<files>, then an audio
//                               track, as kichikuou's install.html takes them
//                               (js/cdimage.js: ImgCueReader, ISO9660FileSystem)
//
// The scenario commands are System 3.5's, as xsystem35's cmd_check.c reads
// them: a number is one byte 0x40 + n, ended by 0x7f.

/** The DRI archive (.ald) with one entry `name` holding `payload`. */
export function aldArchive(name, payload) {
  const entry = Buffer.alloc(32 + payload.length);
  entry.writeUInt32LE(32, 0);
  entry.writeUInt32LE(payload.length, 4);
  entry.write(name, 8, 'latin1');
  payload.copy(entry, 32);
  const sectors = Math.ceil(entry.length / 256);
  const out = Buffer.alloc(512 + sectors * 256);
  const b3 = (at, v) => out.writeUIntLE(v, at, 3);
  b3(0, 1);
  b3(3, 2);
  b3(6, 2 + sectors);
  out.set([1, 1, 0], 256);
  entry.copy(out, 512);
  return out;
}

/** A number argument (0…62) ended by 0x7f. */
const num = (n) => [0x40 + n, 0x7f];

/** Scenario commands (each a list of bytes). */
export const CMD = {
  /** `SS n:` play CD music: track n + 1 (cd_play to the page). */
  music: (n) => [...Buffer.from('SS'), ...num(n)],
  /** A message in the message window (Shift_JIS bytes). */
  text: (sjis) => [...sjis],
  /** `A` wait for a key or a click, then the next page of messages. */
  waitKey: () => [...Buffer.from('A')],
  /** `QD n:` save everything to slot n. */
  save: (n) => [...Buffer.from('QD'), ...num(n)],
  /** `ZZ0 n:` quit (xsystem35 posts {command: 'exit', code: sysVar[0]}). */
  quit: (n) => [...Buffer.from('ZZ'), 0, ...num(n)],
};

/** A scenario page: the S350 header, then `commands`. */
export function scenario(commands) {
  const sco = Buffer.alloc(32);
  sco.write('S350', 0, 'latin1');
  sco.writeUInt32LE(32, 4);
  return Buffer.concat([sco, Buffer.from(commands.flat())]);
}

/** "テスト" in Shift_JIS. */
export const SJIS_TEST = [0x83, 0x65, 0x83, 0x58, 0x83, 0x67];

// ------------------------------------------------------------ CD image

const SECTOR = 2048;
const RAW = 2352;

/** An ISO 9660 directory record. */
function dirRecord(name, lba, size, directory) {
  const n = Buffer.from(name, 'latin1');
  const len = 33 + n.length + ((33 + n.length) % 2);
  const r = Buffer.alloc(len);
  r[0] = len;
  r.writeUInt32LE(lba, 2);
  r.writeUInt32BE(lba, 6);
  r.writeUInt32LE(size, 10);
  r.writeUInt32BE(size, 14);
  r.set([96, 7, 15, 12, 0, 0, 36], 18); // 1996-07-15 12:00:00 +09:00
  r[25] = directory ? 2 : 0;
  r.writeUInt16LE(1, 28);
  r.writeUInt16BE(1, 30);
  r[32] = n.length;
  n.copy(r, 33);
  return r;
}

/** `text` space-padded to `n` bytes. */
const chars = (text, n) => Buffer.from(text.padEnd(n, ' ').slice(0, n), 'latin1');

/**
 * The 2048-byte sectors of an ISO 9660 image with one directory `dir`
 * holding `files` ({ name: 'TESTSA.ALD', data }).
 */
export function iso9660(dir, files) {
  const ROOT = 20;
  const SUB = 21;
  let next = 22;
  const placed = files.map((f) => {
    const at = next;
    next += Math.max(1, Math.ceil(f.data.length / SECTOR));
    return { ...f, at };
  });
  const total = next;
  const image = Buffer.alloc(total * SECTOR);
  const sector = (n) => image.subarray(n * SECTOR, (n + 1) * SECTOR);

  // Path tables (L: little-endian, M: big-endian): the root and `dir`.
  const pathTable = (le) => {
    const t = Buffer.alloc(10 + 8 + dir.length + (dir.length % 2));
    t[0] = 1;
    le ? t.writeUInt32LE(ROOT, 2) : t.writeUInt32BE(ROOT, 2);
    le ? t.writeUInt16LE(1, 6) : t.writeUInt16BE(1, 6);
    t[10] = dir.length;
    le ? t.writeUInt32LE(SUB, 12) : t.writeUInt32BE(SUB, 12);
    le ? t.writeUInt16LE(1, 16) : t.writeUInt16BE(1, 16);
    t.write(dir, 18, 'latin1');
    return t;
  };
  const lTable = pathTable(true);
  lTable.copy(sector(18));
  pathTable(false).copy(sector(19));

  // The primary volume descriptor, then the set terminator.
  const pvd = sector(16);
  pvd[0] = 1;
  pvd.write('CD001', 1, 'latin1');
  pvd[6] = 1;
  chars('', 32).copy(pvd, 8);
  chars('PEXE_TEST_GAME', 32).copy(pvd, 40);
  pvd.writeUInt32LE(total, 80);
  pvd.writeUInt32BE(total, 84);
  pvd.writeUInt16LE(1, 120);
  pvd.writeUInt16BE(1, 122);
  pvd.writeUInt16LE(1, 124);
  pvd.writeUInt16BE(1, 126);
  pvd.writeUInt16LE(SECTOR, 128);
  pvd.writeUInt16BE(SECTOR, 130);
  pvd.writeUInt32LE(lTable.length, 132);
  pvd.writeUInt32BE(lTable.length, 136);
  pvd.writeUInt32LE(18, 140);
  pvd.writeUInt32BE(19, 148);
  dirRecord('\0', ROOT, SECTOR, true).copy(pvd, 156);
  chars('', 623).copy(pvd, 190);
  pvd.fill(0x30, 813, 813 + 4 * 17);
  for (const at of [829, 846, 863, 880]) pvd[at] = 0;
  pvd[881] = 1;
  const end = sector(17);
  end[0] = 255;
  end.write('CD001', 1, 'latin1');
  end[6] = 1;

  // The root ('.', '..', dir) and dir ('.', '..', the files).
  Buffer.concat([dirRecord('\0', ROOT, SECTOR, true), dirRecord('\x01', ROOT, SECTOR, true), dirRecord(dir, SUB, SECTOR, true)]).copy(sector(ROOT));
  const entries = [dirRecord('\0', SUB, SECTOR, true), dirRecord('\x01', ROOT, SECTOR, true), ...placed.map((f) => dirRecord(`${f.name};1`, f.at, f.data.length, false))];
  const listing = Buffer.concat(entries);
  if (listing.length > SECTOR) throw new Error('too many files for one directory sector');
  listing.copy(sector(SUB));
  for (const f of placed) f.data.copy(image, f.at * SECTOR);
  return image;
}

const bcd = (n) => ((n / 10) | 0) * 16 + (n % 10);

/** `lba` as the cue sheet's MM:SS:FF (75 frames a second). */
export function msf(lba) {
  const two = (n) => String(n).padStart(2, '0');
  return `${two(Math.floor(lba / 4500))}:${two(Math.floor(lba / 75) % 60)}:${two(lba % 75)}`;
}

/**
 * `iso` (2048-byte sectors) as raw MODE1/2352 sectors: sync, header (the
 * address in BCD, 2 s after the lead-in), the data. The EDC/ECC bytes are
 * left zero: cdimage.js reads only the data.
 */
function mode1(iso) {
  const n = iso.length / SECTOR;
  const out = Buffer.alloc(n * RAW);
  for (let i = 0; i < n; i++) {
    const s = out.subarray(i * RAW, (i + 1) * RAW);
    s.fill(0xff, 1, 11);
    const a = i + 150;
    s[12] = bcd(Math.floor(a / 4500));
    s[13] = bcd(Math.floor(a / 75) % 60);
    s[14] = bcd(a % 75);
    s[15] = 1;
    iso.copy(s, 16, i * SECTOR, (i + 1) * SECTOR);
  }
  return out;
}

/** `seconds` of a `hz` tone, 44.1 kHz 16-bit stereo (CD audio), whole sectors. */
export function tone(seconds, hz) {
  const frames = Math.round(seconds * 75) * (RAW / 4);
  const pcm = Buffer.alloc(frames * 4);
  for (let i = 0; i < frames; i++) {
    const v = Math.round(Math.sin((2 * Math.PI * hz * i) / 44100) * 8000);
    pcm.writeInt16LE(v, i * 4);
    pcm.writeInt16LE(v, i * 4 + 2);
  }
  return pcm;
}

/**
 * A CD image as kichikuou's installer takes it: `{ img, cue }` for a data
 * track (GAMEDATA/<files>) and, when `audio` (CD audio PCM) is given, an
 * audio track 2 after a 2-second pregap. `name` is the .img's file name
 * the cue sheet names.
 */
export function cdImage({ files, audio = null, name = 'TESTGAME.img' }) {
  const data = mode1(iso9660('GAMEDATA', files));
  const dataSectors = data.length / RAW;
  let cue = `FILE "${name}" BINARY\r\n  TRACK 01 MODE1/2352\r\n    INDEX 01 00:00:00\r\n`;
  if (!audio) return { img: data, cue };
  const pregap = Buffer.alloc(150 * RAW);
  cue += `  TRACK 02 AUDIO\r\n    INDEX 00 ${msf(dataSectors)}\r\n    INDEX 01 ${msf(dataSectors + 150)}\r\n`;
  return { img: Buffer.concat([data, pregap, audio]), cue, audioStart: (dataSectors + 150) * RAW };
}
