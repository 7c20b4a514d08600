// The page fits the screens people use: a phone (390×844, touch) and a small
// laptop (1024×700). In every main view — open/overview, listing, function,
// statistics, the runner's terminal, the Plugin view, the keyboard help —
// nothing sticks out sideways (the page never scrolls horizontally; wide
// content scrolls inside its own panel), every overview card is inside the
// screen, the controls are on screen, and the virtualized listing still
// renders a screenful of rows and scrolls to its end.
//
// Screenshots: target/screenshots/layout-{phone,laptop}-<view>.png (the
// phone's are full-page: there the page scrolls vertically). They are kept
// for people to look at; the overflow assertions are the check.

import assert from 'node:assert/strict';
import { SIZES, horizontalOverflow, launch, openPage, screenshot, skipReason, testNeeding } from './helpers.mjs';

const skip = skipReason({ corpus: true });
const PRINTF = '/corpus/cli/binji_pnacl_c/test/res/printf.pexe';
const PART2 = '/corpus/ppapi/lpdevs_PNaCl-examples/part2.pexe';

/** Asserts nothing sticks out of the screen and keeps a screenshot. */
async function fits(page, size, sizeName, view) {
  const r = await horizontalOverflow(page, size.width);
  assert.equal(r.innerWidth, size.width, `${sizeName} ${view}: the layout viewport grew to ${r.innerWidth} px`);
  assert.ok(r.scrollWidth <= size.width, `${sizeName} ${view}: the page is ${r.scrollWidth} px wide on a ${size.width} px screen; sticking out: ${r.offenders.join(', ')}`);
  assert.deepEqual(r.offenders, [], `${sizeName} ${view}: elements off-screen`);
  await screenshot(page, `layout-${sizeName}-${view}`, { fullPage: size.mobile });
}

/** Asserts that each selector's element is visible and inside the screen horizontally. */
async function onScreen(page, size, selectors) {
  for (const sel of selectors) {
    const box = await page.locator(sel).boundingBox();
    assert.ok(box, `${sel} is visible`);
    assert.ok(box.x >= 0 && box.x + box.width <= size.width + 0.5, `${sel} at x ${box.x}..${box.x + box.width} on a ${size.width} px screen`);
  }
}

for (const [sizeName, size] of Object.entries(SIZES)) {
  testNeeding(skip, `layout: ${sizeName} (${size.width}×${size.height})`, { timeout: 300_000 }, async (t) => {
    const env = await launch({ isolation: true });
    t.after(() => env.close());

    await t.test('overview: the cards are inside the screen', async () => {
      const page = await openPage(env, `?url=${encodeURIComponent(PRINTF)}`, size);
      await onScreen(page, size, ['#open-file', '#sample-select', '#url-input', '#download-btn', '#help-btn', '#file-name', '#run-btn', '.tabs']);
      const cards = await page.locator('#view-overview .card').evaluateAll((els) =>
        els.map((el) => {
          const r = el.getBoundingClientRect();
          return { title: el.querySelector('h3')?.textContent, left: r.left, right: r.right, width: r.width };
        }),
      );
      assert.ok(cards.length >= 4, `${cards.length} cards`);
      for (const c of cards) {
        assert.ok(c.left >= 0 && c.right <= size.width, `card "${c.title}" spans ${c.left}..${c.right} on a ${size.width} px screen`);
        assert.ok(c.width >= 250, `card "${c.title}" is ${c.width} px wide`);
      }
      await fits(page, size, sizeName, 'overview');

      // The listing: a screenful of rows, few in the DOM, its end reachable.
      await page.evaluate(() => window.pexeApp.showTab('listing'));
      await page.waitForFunction(() => document.querySelectorAll('#listing .lrow').length > 0, null, { timeout: 60_000 });
      const listing = await page.locator('#listing').boundingBox();
      assert.ok(listing.height >= 250, `the listing is ${listing.height} px high`);
      assert.ok(listing.x >= 0 && listing.x + listing.width <= size.width);
      const visibleRows = await page.evaluate(() => {
        const box = document.getElementById('listing').getBoundingClientRect();
        return [...document.querySelectorAll('#listing .lrow')].filter((r) => {
          const b = r.getBoundingClientRect();
          return b.top >= box.top && b.bottom <= box.bottom;
        }).length;
      });
      assert.ok(visibleRows >= 12, `${visibleRows} listing rows on screen`);
      const lines = await page.evaluate(() => window.pexeApp.inspector.listView.count);
      await page.evaluate(() => {
        const el = document.getElementById('listing');
        el.scrollTop = el.scrollHeight;
      });
      await page.waitForFunction((n) => document.querySelector(`#listing .lrow[data-index="${n - 1}"]`), lines);
      assert.ok((await page.locator('#listing .lrow').count()) < 200);
      // Sideways, the listing scrolls inside itself and its header follows.
      await page.evaluate(() => {
        const el = document.getElementById('listing');
        el.scrollTop = 0;
        el.scrollLeft = 10_000;
      });
      await page.waitForFunction(() => document.querySelector('.listing-head').scrollLeft === document.getElementById('listing').scrollLeft);
      await fits(page, size, sizeName, 'listing');

      // One function: its PNaClAsm and WAT panes.
      await page.evaluate(() => window.pexeApp.inspector.openFunction(window.pexeApp.summary.functions.find((f) => f.name === 'main').id));
      await page.waitForFunction(() => /ret/.test(document.getElementById('fn-asm').textContent) && /\(func/.test(document.getElementById('fn-wat').textContent));
      for (const id of ['#fn-asm', '#fn-wat']) {
        const b = await page.locator(id).boundingBox();
        assert.ok(b.height >= 100, `${id} is ${b.height} px high`);
      }
      await fits(page, size, sizeName, 'function');

      await page.evaluate(() => window.pexeApp.showTab('stats'));
      await page.waitForSelector('#view-stats table.grid');
      await fits(page, size, sizeName, 'stats');

      // The keyboard help.
      await page.evaluate(() => (document.getElementById('help').hidden = false));
      await onScreen(page, size, ['#help .modal-box']);
      await fits(page, size, sizeName, 'help');
      assert.deepEqual(page.problems, []);
      await page.close();
    });

    await t.test('runner: a program prints in the terminal', async () => {
      const page = await openPage(env, '?sample=hello', size);
      await page.click('#run-btn');
      await page.waitForFunction(() => window.__pexeLastRun?.done === true, null, { timeout: 60_000 });
      await page.locator('#terminal').scrollIntoViewIfNeeded();
      await onScreen(page, size, ['#run-btn', '#stop-btn', '#args-input', '#env-input', '#stdin-input', '#exit-status', '#terminal', '#dock-btn']);
      assert.match(await page.textContent('#terminal'), /Hello from pexe!/);
      await fits(page, size, sizeName, 'runner');
      assert.deepEqual(page.problems, []);
      await page.close();
    });

    await t.test('plugin view: the box and the console', async () => {
      const page = await openPage(env, `?url=${encodeURIComponent(PART2)}`, size);
      assert.equal(await page.evaluate(() => window.pexeApp.mode), 'plugin');
      await page.click('#run-btn');
      await page.waitForFunction(() => window.__pexePlugin?.loaded === true, null, { timeout: 60_000 });
      await page.fill('#console-input', 'hello');
      await page.press('#console-input', 'Enter');
      await page.waitForFunction(() => window.__pexePlugin.messages.includes('hello from NaCl'));
      await page.locator('#console-input').scrollIntoViewIfNeeded();
      await onScreen(page, size, ['#plugin-box', '#console-log', '#console-input', '#console-send', '#mode-plugin', '#stop-btn']);
      const log = await page.locator('#console-log').boundingBox();
      assert.ok(log.height >= 80, `the console is ${log.height} px high`);
      await fits(page, size, sizeName, 'plugin');
      assert.deepEqual(page.problems, []);
      await page.close();
    });
  });
}
