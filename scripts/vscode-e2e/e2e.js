// The packaged extension in a real VS Code (code-server), driven by Debian's chromium through
// playwright-core. Started by run.sh, which installs the .vsix with no server path setting and
// writes the workspace: SKILL.md (a scratch copy of examples/skills/netbox-inventory/SKILL.md),
// complete.md, notes.txt, and expected.json (`netbox-lsp check --format json SKILL.md` from the bundled
// binary). Checks, each a FAIL when missing:
//   1. diagnostics: the Problems panel lists every expected finding (code, line, column);
//   2. hover on a correct filter shows its type; hover on the flagged `device_role_id` adds the
//      nearest real filters and does not repeat the diagnostic (VS Code shows it already);
//   3. completion of a filter name: `"rol` in a filters dict offers `role_id`; a .txt file
//      (plaintext) gets its diagnostic;
//   4. quick-fix: "Replace `device_role_id` with `role_id`" applied, saved, the file on disk
//      changed and the diagnostic gone;
//   5. live checks (user settings turn them on, run.sh): the "Verify against NetBox" code lens of
//      the first call in live.md gives its verdict (live-narrowed, source netbox (live)) in the
//      Problems panel and in hover with counts and time; the palette command verifies the
//      document (the second call: live-unchanged).
// Env: CS_URL, WS (workspace folder), SHOTS (screenshots folder). Exit 0 = PASS.
const { chromium } = require('playwright-core');
const fs = require('fs');
const path = require('path');

const URL = process.env.CS_URL;
const WS = process.env.WS;
const SHOTS = process.env.SHOTS || WS;
const t0 = Date.now();
const log = (...a) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(5)} s]`, ...a);
const failures = [];
const check = (ok, what) => { log(ok ? 'ok  ' : 'FAIL', what); if (!ok) failures.push(what); };
const flat = (s) => s.replace(/\s+/g, ' ').trim();

(async () => {
  const expected = JSON.parse(fs.readFileSync(path.join(WS, 'expected.json'), 'utf8'));
  const skill = fs.readFileSync(path.join(WS, 'SKILL.md'), 'utf8').split('\n');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  const page = await browser.newPage({ viewport: { width: 1600, height: 1100 } });
  const shot = (name) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) }).catch(() => {});
  try {
    await page.goto(`${URL}/?folder=${encodeURIComponent(WS)}`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    await page.waitForSelector('.explorer-folders-view', { timeout: 60000 }).catch(() => {});
    log('workbench loaded');

    const open = async (file) => {
      await page.keyboard.press('Control+P');
      await page.waitForSelector('.quick-input-widget input', { timeout: 15000 });
      await page.keyboard.type(file, { delay: 20 });
      await page.waitForSelector(`.quick-input-list .monaco-list-row[aria-label*="${file}"]`, { timeout: 15000 });
      await page.keyboard.press('Enter');
      await page.waitForSelector(`.tab[aria-label*="${file}"]`, { timeout: 20000 });
      await page.keyboard.press('Control+1'); // focus the editor
    };
    const goTo = async (line, col) => {
      await page.keyboard.press('Control+G');
      await page.waitForSelector('.quick-input-widget input', { timeout: 5000 });
      await page.keyboard.type(`${line}:${col}`, { delay: 10 });
      await page.keyboard.press('Enter');
      await page.waitForTimeout(300);
    };
    const posOf = (lines, needle, delta = 2) => {
      for (let i = 0; i < lines.length; i++) {
        const c = lines[i].indexOf(needle);
        if (c >= 0) return [i + 1, c + 1 + delta];
      }
      throw new Error(`${needle} not in the file`);
    };
    const problems = async () =>
      (await page.locator('.markers-panel .monaco-list-row').allInnerTexts()).map(flat);

    // 1. Diagnostics in the Problems panel.
    await open('SKILL.md');
    log('opened SKILL.md');
    const squiggles = await page.waitForSelector('.monaco-editor [class*="squiggly-"]', { timeout: 60000 })
      .then(() => true, () => false);
    check(squiggles, 'squiggles in the editor');
    await page.keyboard.press('Control+Shift+M');
    await page.waitForSelector('.markers-panel .monaco-list-row', { timeout: 20000 }).catch(() => {});
    // Every finding listed; the panel fills as the server publishes.
    const want = expected.map((f) => ({ code: f.code, at: `[Ln ${f.range.start.line + 1}, Col ${f.range.start.character + 1}]` }));
    let rows = [];
    for (let i = 0; i < 40; i++) {
      rows = await problems();
      if (want.every((w) => rows.some((r) => r.includes(w.code) && r.includes(w.at)))) break;
      await page.waitForTimeout(250);
    }
    for (const r of rows) log('  problem:', r.slice(0, 200));
    for (const w of want) check(rows.some((r) => r.includes(w.code) && r.includes(w.at)), `Problems lists ${w.code} ${w.at}`);
    check(expected.length === 6, `the example has its six findings (${expected.length})`);
    await shot('problems');

    // 2. Hover.
    const showHover = async () => {
      await page.keyboard.press('Control+K');
      await page.keyboard.press('Control+I');
      await page.waitForSelector('.monaco-hover-content', { timeout: 5000 }).catch(() => {});
      await page.waitForTimeout(800);
      const texts = await page.locator('.monaco-editor .monaco-hover-content').allInnerTexts().catch(() => []);
      return flat(texts.join(' || '));
    };
    const [sl, sc] = posOf(skill, '"site_id": 12, "device_role_id"');
    await page.keyboard.press('Control+1'); // from the Problems panel back to the editor
    await goTo(sl, sc);
    const good = await showHover();
    log('hover site_id:', good.slice(0, 300));
    check(good.includes('site_id') && good.includes('Type:'), 'hover on `site_id` shows its type');
    await page.keyboard.press('Escape');
    const [rl, rc] = posOf(skill, '"device_role_id"');
    await goTo(rl, rc);
    const bad = await showHover();
    log('hover device_role_id:', bad.slice(0, 600));
    await shot('hover-device_role_id');
    const diag = expected.find((f) => f.code === 'unknown-filter');
    // Rendered Markdown drops backticks: compare without them.
    const plain = (s) => s.replace(/`/g, '');
    const fragment = plain(diag.message).slice(0, 60);
    const times = plain(bad).split(fragment).length - 1;
    check(times === 1, `hover shows the diagnostic once (VS Code's own rendering), not repeated (${times}×)`);
    check(/Nearest filters of/.test(bad) && /role_id: \S+ · (multi-value|single value)/.test(plain(bad)),
      'hover on `device_role_id` adds the nearest real filters with their types');
    await page.keyboard.press('Escape');

    // 3. Completion of a filter name.
    await open('complete.md');
    const comp = fs.readFileSync(path.join(WS, 'complete.md'), 'utf8').split('\n');
    const [cl, cc] = posOf(comp, '"rol"', 4); // after `"rol`
    await goTo(cl, cc);
    await page.keyboard.press('Control+Space');
    const labels = await page.waitForSelector('.suggest-widget .monaco-list-row', { timeout: 15000 })
      .then(() => page.locator('.suggest-widget .monaco-list-row .label-name').allInnerTexts(), () => []);
    log('completion:', labels.slice(0, 12).join(', '));
    await shot('completion');
    check(labels.some((l) => l.trim() === 'role_id'), 'completion after `"rol` offers `role_id`');
    await page.keyboard.press('Escape');

    // 3b. Plain text (`.txt`, which `check` reads) is checked too.
    await open('notes.txt');
    let txt = [];
    for (let i = 0; i < 40; i++) {
      txt = (await problems()).filter((r) => r.includes('unknown-filter') && r.includes('[Ln 1,'));
      if (txt.length) break;
      await page.waitForTimeout(250);
    }
    check(txt.length === 1, 'a .txt file (plaintext) gets its diagnostic');

    // 4. Quick-fix on the scratch copy, then save.
    await open('SKILL.md');
    await goTo(rl, rc);
    await page.keyboard.press('Control+.');
    const title = 'Replace `device_role_id` with `role_id`';
    const item = page.locator('.action-widget .monaco-list-row', { hasText: title }).first();
    const offered = await item.waitFor({ timeout: 15000 }).then(() => true, () => false);
    const items = await page.locator('.action-widget .monaco-list-row').allInnerTexts().catch(() => []);
    log('quick fixes:', items.map(flat).join(' | '));
    check(offered, `quick-fix "${title}" offered`);
    if (offered) {
      // Keyboard, as a user would (the menu's overlay takes pointer events): move to the item, Enter.
      for (let i = 0; i < 6; i++) {
        const focused = await page.locator('.action-widget .monaco-list-row.focused').first().innerText().catch(() => '');
        if (focused.includes(title)) break;
        await page.keyboard.press('ArrowDown');
        await page.waitForTimeout(100);
      }
      await page.keyboard.press('Enter');
      await page.waitForTimeout(500);
      await page.keyboard.press('Control+S');
      let line = '';
      for (let i = 0; i < 40; i++) {
        line = fs.readFileSync(path.join(WS, 'SKILL.md'), 'utf8').split('\n')[rl - 1];
        if (!line.includes('device_role_id')) break;
        await page.waitForTimeout(250);
      }
      log('line', rl, 'on disk now:', line.trim());
      check(line.includes('"role_id": 4') && !line.includes('device_role_id'), 'the fix is applied and saved');
      let left = [];
      for (let i = 0; i < 40; i++) {
        left = await problems();
        if (!left.some((r) => r.includes('unknown-filter') && r.includes(`[Ln ${rl},`))) break;
        await page.waitForTimeout(250);
      }
      check(!left.some((r) => r.includes('unknown-filter') && r.includes(`[Ln ${rl},`)), 'its diagnostic is gone');
      check(left.length >= expected.length - 1, `the other findings stay (${left.length} rows)`);
      await shot('after-fix');
    }

    // 5. Live checks: a code lens on one call, then the palette command on the document.
    await open('live.md');
    const lensSel = '.codelens-decoration a';
    const lenses = await page.waitForSelector(lensSel, { timeout: 30000 })
      .then(() => page.locator(lensSel).allInnerTexts(), () => []);
    log('code lenses:', lenses.join(' | '));
    check(lenses.some((t) => t.includes('Verify document against NetBox (2 calls)')), 'the document lens is shown');
    check(lenses.filter((t) => t.trim() === 'Verify against NetBox').length === 2, 'a lens above each call');
    await page.locator(lensSel, { hasText: /^Verify against NetBox$/ }).first().click();
    const liveRow = async (code, line) => {
      for (let i = 0; i < 60; i++) {
        const r = (await problems()).find((x) => x.includes(code) && x.includes(`[Ln ${line},`));
        if (r) return r;
        await page.waitForTimeout(250);
      }
      return '';
    };
    await page.keyboard.press('Control+Shift+M');
    const narrowed = await liveRow('live-narrowed', 3);
    log('problem:', narrowed);
    check(/19 of 72 objects/.test(narrowed) && /netbox \(live\)/.test(narrowed), 'the lens verified the first call: live-narrowed, 19 of 72, source netbox (live)');
    check(!(await problems()).some((x) => x.includes('live-') && x.includes('[Ln 5,')), 'the other call is not verified by that lens');
    await shot('live-lens');
    await page.keyboard.press('Control+1');
    await goTo(3, 25);
    const liveHover = await showHover();
    log('hover:', liveHover.slice(0, 400));
    check(/NetBox \(live\)/.test(liveHover) && /19 of 72/.test(liveHover) && /checked \d{4}-\d\d-\d\d/.test(liveHover), 'hover shows the verdict with counts and the time of the check');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Shift+P');
    await page.waitForSelector('.quick-input-widget input', { timeout: 5000 });
    await page.keyboard.type('NetBox LSP: Verify Document against My NetBox', { delay: 10 });
    await page.waitForTimeout(500);
    await page.keyboard.press('Enter');
    const unchanged = await liveRow('live-unchanged', 5);
    log('problem:', unchanged);
    check(/ignored device_role_id|ignored `device_role_id`/.test(unchanged), 'the palette command verified the document: live-unchanged on device_role_id');
    await shot('live-document');
  } catch (e) {
    failures.push(String(e && e.stack || e));
    console.error(e);
    await shot('error');
  }
  await browser.close();
  log(failures.length ? `RESULT FAIL (${failures.length}): ${failures.join('; ')}` : 'RESULT PASS');
  process.exit(failures.length ? 1 : 0);
})();
