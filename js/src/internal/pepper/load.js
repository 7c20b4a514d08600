// Pepper's code, loaded only for a Pepper plugin: a command-line program
// never parses it (it is most of the runtime: the GL layer, the PPB
// interfaces, storage, sockets).
//
//   await loadPepper();                 // before a plugin's first thread
//   const { PluginMain } = pepper();    // after it, synchronously

let loaded = null;

/** Loads the plugin side and the browser side once; resolves to `pepper()`. */
export async function loadPepper() {
  if (!loaded) {
    const [plugin, browser, relay] = await Promise.all([
      import('./plugin.js'),
      import('./browser.js'),
      import('./net/relay-client.js'),
    ]);
    loaded = {
      PluginMain: plugin.PluginMain,
      pepperImports: plugin.pepperImports,
      Browser: browser.Browser,
      relayNetwork: relay.relayNetwork,
    };
  }
  return loaded;
}

/** What `loadPepper()` loaded; a runtime bug before it has. */
export function pepper() {
  if (!loaded) throw new Error('runtime bug: Pepper is used before loadPepper()');
  return loaded;
}
