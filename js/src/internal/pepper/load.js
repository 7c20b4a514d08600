// Pepper's code, for a Pepper plugin only: in Node a command-line program
// never parses it (it is most of the runtime: the GL layer, the PPB
// interfaces, storage, sockets). The host brings it (`host.loadPepper()`):
// Node's imports it on demand; the browser's has it imported statically,
// since bundlers cannot split a Worker's code (Vite's default Worker format)
// — so no `import()` may be reachable from a browser entry.
//
//   await loadPepper(host.loadPepper);  // before a plugin's first thread
//   const { PluginMain } = pepper();    // after it, synchronously

let loaded = null;

/** Takes Pepper's code (modules.js's `PEPPER`) from `loader()` once. */
export async function loadPepper(loader) {
  loaded ??= await loader();
  return loaded;
}

/** What `loadPepper()` loaded; a runtime bug before it has. */
export function pepper() {
  if (!loaded) throw new Error('runtime bug: Pepper is used before loadPepper()');
  return loaded;
}
