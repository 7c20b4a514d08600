// The page's audio player: an AudioWorkletProcessor that plays the frames
// the plugin's audio thread produces, from a shared ring (audio-ring.js
// has the layout and the writer) or, where memory cannot be shared with
// the page, from chunks posted to its port. Self-contained: a worklet
// module is loaded as it is, even from a bundle.

const W = { WRITTEN: 0, READ: 1, CAPACITY: 2, UNDERRUNS: 3, PEAK: 4, CHANNELS: 5 };
const HEADER_BYTES = 32;

/** Reads a ring into output channels; silence where it ran dry. */
export class RingReader {
  constructor(sab) {
    this.words = new Int32Array(sab, 0, 8);
    this.capacity = this.words[W.CAPACITY];
    this.channels = this.words[W.CHANNELS];
    this.samples = new Float32Array(sab, HEADER_BYTES);
  }

  read(outputs) {
    const n = outputs[0].length;
    const avail = (Atomics.load(this.words, W.WRITTEN) - Atomics.load(this.words, W.READ)) | 0;
    const frames = Math.min(n, Math.max(0, avail));
    let at = Atomics.load(this.words, W.READ) >>> 0;
    let peak = 0;
    for (let f = 0; f < frames; f++, at++) {
      const slot = (at % this.capacity) * this.channels;
      for (let c = 0; c < outputs.length; c++) {
        const v = this.samples[slot + Math.min(c, this.channels - 1)];
        outputs[c][f] = v;
        const a = v < 0 ? -v : v;
        if (a > peak) peak = a;
      }
    }
    for (let c = 0; c < outputs.length; c++) outputs[c].fill(0, frames);
    Atomics.add(this.words, W.READ, frames);
    Atomics.notify(this.words, W.READ);
    // Short before anything was written is the start, not an underrun.
    if (frames < n && Atomics.load(this.words, W.WRITTEN) !== 0) Atomics.add(this.words, W.UNDERRUNS, 1);
    const p = Math.round(peak * 1e6);
    if (p > Atomics.load(this.words, W.PEAK)) Atomics.store(this.words, W.PEAK, p);
  }
}

/** Reads posted chunks (interleaved Float32) into output channels. */
class QueueReader {
  constructor(port, channels) {
    this.port = port;
    this.channels = channels;
    this.chunks = [];
    this.offset = 0;
    this.consumed = 0;
    this.stats = { underruns: 0, peak: 0, played: 0 };
    port.onmessage = (e) => this.chunks.push(e.data);
  }

  read(outputs) {
    const n = outputs[0].length;
    let f = 0;
    while (f < n && this.chunks.length) {
      const chunk = this.chunks[0];
      const frames = chunk.length / this.channels;
      for (; f < n && this.offset < frames; f++, this.offset++) {
        for (let c = 0; c < outputs.length; c++) {
          const v = chunk[this.offset * this.channels + Math.min(c, this.channels - 1)];
          outputs[c][f] = v;
          this.stats.peak = Math.max(this.stats.peak, Math.abs(v));
        }
      }
      if (this.offset >= frames) {
        this.chunks.shift();
        this.offset = 0;
      }
    }
    for (let c = 0; c < outputs.length; c++) outputs[c].fill(0, f);
    if (f < n && this.stats.played > 0) this.stats.underruns++;
    this.stats.played += f;
    this.consumed += f;
    // Tell the writer how much room it has, a few times a second.
    if (this.consumed >= 4096) {
      this.port.postMessage({ consumed: this.consumed, ...this.stats });
      this.consumed = 0;
    }
  }
}

if (typeof registerProcessor === 'function') {
  registerProcessor(
    'pexe-player',
    class extends AudioWorkletProcessor {
      constructor(options) {
        super();
        const { ring, channels } = options.processorOptions;
        this.reader = ring ? new RingReader(ring) : new QueueReader(this.port, channels ?? 2);
      }

      process(inputs, outputs) {
        this.reader.read(outputs[0]);
        return true;
      }
    },
  );
}
