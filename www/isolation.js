// Makes the page cross-origin isolated on a static host, through the service
// worker isolation-sw.js: registers it, and reloads the page once when it
// takes control (the reloaded page's response then carries COOP/COEP).
//
// A classic script in <head>, before app.js: scripts/build-site.sh adds it
// to the static site's index.html. The dev server (server.mjs) sends the
// headers itself and its page does not load this script, so
// `server.mjs --no-isolation` really serves a page that is not isolated.
//
// window.pexeIsolation resolves (to whether the page is isolated) once no
// reload is coming; app.js waits for it before starting its Workers. It
// never reloads twice in a row: if the reloaded page is still not isolated
// (no service workers here — a private window, an old browser — or a hard
// reload, which bypasses them), the page runs with one guest thread and
// says so (the badge at the top right).

(function () {
  'use strict';
  var FLAG = 'pexe-isolation-reload';
  var SW = 'isolation-sw.js';
  var REGISTER_MS = 3000;
  var CONTROL_MS = 10000;

  function isolated() {
    try {
      sessionStorage.removeItem(FLAG);
    } catch (e) {
      /* storage may be unavailable */
    }
    return Promise.resolve(true);
  }

  function reloadOnce() {
    var again;
    try {
      again = sessionStorage.getItem(FLAG) !== null;
      sessionStorage.setItem(FLAG, '1');
    } catch (e) {
      again = true; // without sessionStorage, do not risk a reload loop
    }
    if (again) {
      // Tried once this session: keep the flag, do not try again.
      console.warn('pexe: the page is not cross-origin isolated even through the service worker; guests run with one thread');
      return Promise.resolve(false);
    }
    location.reload();
    return new Promise(function () {}); // the page goes away
  }

  function isolate() {
    if (window.crossOriginIsolated) return isolated();
    if (!window.isSecureContext || !('serviceWorker' in navigator)) {
      return Promise.resolve(false); // http:// other than localhost, or no service workers
    }
    var sw = navigator.serviceWorker;
    return within(REGISTER_MS, 'could not be registered', sw.register(SW)).then(
      function (registration) {
        if (!registration) return false; // a browser that blocks service workers quietly
        // Active but this response did not come through it (a hard reload
        // bypasses service workers): a normal reload goes through it.
        var active = registration.active && registration.active.state === 'activated';
        if (sw.controller || active) return reloadOnce();
        return waitForControl(sw);
      },
      function () {
        return false;
      },
    );
  }

  // The new worker claims this page when it activates: then reload.
  function waitForControl(sw) {
    var claimed = new Promise(function (resolve) {
      sw.addEventListener('controllerchange', resolve, { once: true });
    });
    return within(CONTROL_MS, 'did not take control', claimed).then(reloadOnce, function () {
      return false;
    });
  }

  // A registration the browser leaves pending (some block service workers
  // without failing the call) must not keep the page from starting.
  function within(ms, what, promise) {
    return new Promise(function (resolve, reject) {
      var timer = setTimeout(function () {
        reject(new Error('timed out'));
      }, ms);
      promise.then(
        function (v) {
          clearTimeout(timer);
          resolve(v);
        },
        function (e) {
          clearTimeout(timer);
          reject(e);
        },
      );
    }).catch(function (e) {
      console.warn('pexe: the isolation service worker ' + what + ' (' + (e && e.message) + '); guests run with one thread');
      throw e;
    });
  }

  window.pexeIsolation = isolate();
})();
