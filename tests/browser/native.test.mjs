// The page's native downloads in headless Chromium: a corpus pexe opened in
// the page, its x86-64 Linux object made in the analysis Worker through
// the package's native translator module (loaded on first use) and saved
// from the Download menu — an ELF relocatable for x86-64, the bytes
// `pexe translate --target x86_64-linux` writes; the runtime archive the
// menu offers is the package's; the link command dialog shows the
// command for the saved file names.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { CORPUS, REPO, launch, openPage, screenshot, skipReason, testNeeding } from './helpers.mjs';

const skip = skipReason({ corpus: true });
const FANNKUCH = 'cli/binji_pnacl_c/test/benchmark/res/fannkuchredux.pexe';
const CLI = path.join(REPO, 'target', 'release', 'pexe');

async function streamBytes(stream) {
  const chunks = [];
  for await (const c of stream) chunks.push(c);
  return Buffer.concat(chunks);
}

async function download(page, what) {
  await page.click('#download-btn');
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 120_000 }), page.click(`[data-download="${what}"]`)]);
  return { name: dl.suggestedFilename(), bytes: await streamBytes(await dl.createReadStream()) };
}

testNeeding(skip, 'page: native downloads', { timeout: 300_000 }, async (t) => {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: cargo build --release`);
  const env = await launch({ isolation: true });
  t.after(() => env.close());
  const page = await openPage(env, `?url=${encodeURIComponent(`/corpus/${FANNKUCH}`)}`);
  assert.equal(await page.textContent('#file-name'), 'fannkuchredux.pexe');

  // The x86-64 object: ELF64, little-endian, ET_REL, EM_X86_64, the CLI's bytes.
  const obj = await download(page, 'native:x86_64-linux');
  assert.equal(obj.name, 'fannkuchredux-x86_64-linux.o');
  assert.deepEqual([...obj.bytes.subarray(0, 6)], [0x7f, 0x45, 0x4c, 0x46, 2, 1]);
  assert.equal(obj.bytes.readUInt16LE(16), 1, 'e_type ET_REL');
  assert.equal(obj.bytes.readUInt16LE(18), 62, 'e_machine EM_X86_64');
  const cli = execFileSync(CLI, ['translate', '--target', 'x86_64-linux', path.join(CORPUS, FANNKUCH)], { maxBuffer: 1 << 28 });
  assert.ok(obj.bytes.equals(cli), `the page's object (${obj.bytes.length} bytes) differs from the CLI's (${cli.length})`);
  // Its size is shown in the menu once made.
  const size = await page.textContent('[data-size="native:x86_64-linux"]');
  assert.match(size, /\d+(\.\d)? KB/);

  // The runtime archive: the package's.
  const archive = await download(page, 'runtime:x86_64-linux');
  assert.equal(archive.name, 'libpexe_runtime-x86_64-linux.a');
  assert.ok(archive.bytes.equals(fs.readFileSync(path.join(REPO, 'pkg', 'native', archive.name))));

  // The link command for those names.
  await page.click('#download-btn');
  await page.click('[data-download="link"]');
  await page.waitForSelector('#link-dialog:not([hidden])');
  assert.equal(
    await page.inputValue('#link-cmd-x86_64-linux'),
    'cc -static -Wl,--gc-sections -o fannkuchredux-x86_64-linux fannkuchredux-x86_64-linux.o libpexe_runtime-x86_64-linux.a',
  );
  assert.match(await page.inputValue('#link-cmd-aarch64-linux'), /-o fannkuchredux-aarch64-linux fannkuchredux-aarch64-linux\.o libpexe_runtime-aarch64-linux\.a$/);
  await screenshot(page, 'native-link-dialog');
  await page.keyboard.press('Escape');
  assert.equal(await page.isHidden('#link-dialog'), true);

  // AArch64 too, from the module already loaded.
  const arm = await download(page, 'native:aarch64-linux');
  assert.equal(arm.bytes.readUInt16LE(18), 183, 'e_machine EM_AARCH64');
  assert.deepEqual(page.problems, []);
  await page.close();
});
