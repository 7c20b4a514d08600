// The page side of Pepper audio: an AudioContext whose AudioWorklet
// (audio-worklet.js) plays what the plugin's audio thread produces. With
// shared memory the worklet reads the host's ring directly (audio-ring.js);
// without, it takes chunks the host posts through the page. Browsers start
// audio only after a user gesture: until then the plugin's box says so and
// the first click or key press turns the sound on. Meanwhile (and whenever
// the context is not running) the plugin's frames are consumed silently at
// the real rate: Chrome played plugin audio without a gesture, and apps
// wait for their sounds to end (Maelstrom's loading screen waits for its
// first sound), so the stream must move as if it were heard.

/** A player for one plugin; `notice(text | null)` shows or clears the box's message. */
export function createPlayer({ sendToHost, notice }) {
  let ctx = null;
  let node = null;
  let ring = null;
  let stats = { underruns: 0, peak: 0, played: 0 };
  let rate = 0;
  let channels = 1;
  // The silent clock: a timer that consumes frames while the context is not running.
  let clock = null;
  const dropped = []; // chunk mode: frame counts of chunks not played

  const running = () => ctx?.state === 'running';

  const stopClock = () => {
    if (clock) clearInterval(clock.timer);
    clock = null;
    // Chunks kept back while silent count as consumed: the worklet never sees them.
    let frames = 0;
    for (const n of dropped.splice(0)) frames += n;
    if (frames) sendToHost({ type: 'audio-consumed', frames });
  };

  const startClock = () => {
    if (clock || !ctx || running() || ctx.state === 'closed') return;
    clock = { last: performance.now(), timer: 0 };
    clock.timer = setInterval(() => {
      if (!ctx || running()) return stopClock();
      const now = performance.now();
      let due = Math.floor(((now - clock.last) / 1000) * rate);
      if (due <= 0) return;
      clock.last += (due * 1000) / rate;
      if (ring) {
        const w = new Int32Array(ring, 0, 8);
        const avail = (Atomics.load(w, 0) - Atomics.load(w, 1)) | 0;
        const n = Math.min(due, Math.max(0, avail));
        Atomics.add(w, 1, n);
        Atomics.notify(w, 1);
        return;
      }
      let frames = 0;
      while (due > 0 && dropped.length) {
        const n = Math.min(due, dropped[0]);
        frames += n;
        due -= n;
        if ((dropped[0] -= n) === 0) dropped.shift();
      }
      if (frames) sendToHost({ type: 'audio-consumed', frames });
    }, 20);
  };

  const resumeOnGesture = () => {
    if (!ctx || ctx.state !== 'suspended') return;
    notice('Sound is off: click or press a key to turn it on');
    const resume = () => {
      ctx?.resume().then(() => notice(null), () => {});
      removeEventListener('pointerdown', resume, true);
      removeEventListener('keydown', resume, true);
    };
    addEventListener('pointerdown', resume, true);
    addEventListener('keydown', resume, true);
  };

  return {
    /** The host opened a stream: `{ sampleRate, channels, ring? }`. */
    async open({ sampleRate, channels: count, ring: sharedRing }) {
      ring = sharedRing ?? null;
      rate = sampleRate;
      channels = count;
      if (!ctx) {
        ctx = new AudioContext({ sampleRate, latencyHint: 'interactive' });
        ctx.addEventListener('statechange', () => (running() ? stopClock() : startClock()));
      }
      startClock();
      await ctx.audioWorklet.addModule(new URL('./audio-worklet.js', import.meta.url));
      node?.disconnect();
      node = new AudioWorkletNode(ctx, 'pexe-player', {
        numberOfInputs: 0,
        outputChannelCount: [count],
        processorOptions: { ring, channels: count },
      });
      if (!ring) {
        // Chunk mode: tell the host how much was played, for pacing.
        node.port.onmessage = (e) => {
          stats = { underruns: e.data.underruns, peak: e.data.peak, played: e.data.played };
          sendToHost({ type: 'audio-consumed', frames: e.data.consumed });
        };
      }
      node.connect(ctx.destination);
      resumeOnGesture();
    },
    /** Chunk mode: frames from the host. */
    data(samples) {
      if (!running()) {
        dropped.push(samples.length / channels);
        startClock();
        return;
      }
      node?.port.postMessage(samples, [samples.buffer]);
    },
    close() {
      node?.disconnect();
      node = null;
    },
    /** What was played: { underruns, peak, state }. */
    stats() {
      if (ring) {
        const w = new Int32Array(ring, 0, 8);
        return { underruns: Atomics.load(w, 3), peak: Atomics.load(w, 4) / 1e6, played: Atomics.load(w, 1) >>> 0, state: ctx?.state };
      }
      return { ...stats, state: ctx?.state };
    },
    destroy() {
      stopClock();
      node?.disconnect();
      ctx?.close().catch(() => {});
      ctx = null;
    },
  };
}
