// The page side of Pepper audio: an AudioContext whose AudioWorklet
// (audio-worklet.js) plays what the plugin's audio thread produces. With
// shared memory the worklet reads the host's ring directly (audio-ring.js);
// without, it takes chunks the host posts through the page. Browsers start
// audio only after a user gesture: until then the plugin's box says so and
// the first click or key press turns the sound on.

/** A player for one plugin; `notice(text | null)` shows or clears the box's message. */
export function createPlayer({ sendToHost, notice }) {
  let ctx = null;
  let node = null;
  let ring = null;
  let stats = { underruns: 0, peak: 0, played: 0 };

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
    async open({ sampleRate, channels, ring: sharedRing }) {
      ring = sharedRing ?? null;
      ctx ??= new AudioContext({ sampleRate, latencyHint: 'interactive' });
      await ctx.audioWorklet.addModule(new URL('./audio-worklet.js', import.meta.url));
      node?.disconnect();
      node = new AudioWorkletNode(ctx, 'pexe-player', {
        numberOfInputs: 0,
        outputChannelCount: [channels],
        processorOptions: { ring, channels },
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
      node?.disconnect();
      ctx?.close().catch(() => {});
      ctx = null;
    },
  };
}
