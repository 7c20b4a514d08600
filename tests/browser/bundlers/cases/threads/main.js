// An app using the package as people do: `import … from 'pexe'`, bundled.
// It fetches a threaded pexe, runs it (the package translates it) with its
// stdout captured, and leaves the outcome in `window.__result`.

import { inspect, run, version } from 'pexe';

async function main() {
  const response = await fetch('./thread.pexe');
  if (!response.ok) throw new Error(`thread.pexe: HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const out = [];
  const result = await run(bytes, { args: ['thread.pexe'], stdout: (chunk) => out.push(...chunk) });
  const stdout = new TextDecoder().decode(new Uint8Array(out));
  document.getElementById('out').textContent = stdout;
  return { version, valid: inspect(bytes).valid, isolated: crossOriginIsolated, ...result, stdout };
}

main().then(
  (result) => (window.__result = result),
  (e) => (window.__result = { error: String(e?.stack ?? e) }),
);
