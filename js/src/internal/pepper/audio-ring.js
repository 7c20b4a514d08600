// The ring of audio frames between the plugin's audio thread (written by
// the browser side) and the page's AudioWorklet (which plays it): no
// message per buffer, no main-thread involvement.
//
// A SharedArrayBuffer: Int32 words [0] frames written (total), [1] frames
// read (total), [2] capacity in frames, [3] underruns (render quanta the
// worklet found short), [4] peak |sample| seen × 1e6 (for tests and
// meters), [5] channels; then interleaved Float32 samples. Totals only
// grow (mod 2^32): fill = written - read. The writer waits on [1]
// (Atomics.waitAsync) when the ring is full; the worklet notifies [1]
// after each read. The reader is audio-worklet.js (a worklet module must
// stand alone, so it keeps its own copy of the layout; a test checks that
// the two agree).

export const W = Object.freeze({ WRITTEN: 0, READ: 1, CAPACITY: 2, UNDERRUNS: 3, PEAK: 4, CHANNELS: 5 });
export const HEADER_BYTES = 32;

/** A ring for `capacity` frames of `channels` channels. */
export function createRing(capacity, channels = 2) {
  const sab = new SharedArrayBuffer(HEADER_BYTES + capacity * channels * 4);
  const words = new Int32Array(sab, 0, 8);
  words[W.CAPACITY] = capacity;
  words[W.CHANNELS] = channels;
  return sab;
}

/** The writer's view of a ring. */
export class RingWriter {
  constructor(sab) {
    this.words = new Int32Array(sab, 0, 8);
    this.capacity = this.words[W.CAPACITY];
    this.channels = this.words[W.CHANNELS];
    this.samples = new Float32Array(sab, HEADER_BYTES);
  }

  /** Frames buffered and not yet played. */
  fill() {
    return (Atomics.load(this.words, W.WRITTEN) - Atomics.load(this.words, W.READ)) | 0;
  }

  /** Frames that fit now. */
  space() {
    return this.capacity - this.fill();
  }

  /**
   * Resolves true once `frames` fit, false if `cancelled()` turns true
   * first (checked at least every `sliceMs`).
   */
  async waitForSpace(frames, cancelled = () => false, sliceMs = 50) {
    while (this.space() < frames) {
      if (cancelled()) return false;
      const read = Atomics.load(this.words, W.READ);
      const w = Atomics.waitAsync(this.words, W.READ, read, sliceMs);
      if (w.async) await w.value;
    }
    return !cancelled();
  }

  /** Appends interleaved frames (as many as fit); returns the frames written. */
  write(interleaved) {
    const frames = Math.min(interleaved.length / this.channels, this.space());
    let at = Atomics.load(this.words, W.WRITTEN) >>> 0;
    for (let f = 0; f < frames; f++, at++) {
      const slot = (at % this.capacity) * this.channels;
      for (let c = 0; c < this.channels; c++) this.samples[slot + c] = interleaved[f * this.channels + c];
    }
    Atomics.add(this.words, W.WRITTEN, frames);
    return frames;
  }

  /** Render quanta the player found short. */
  underruns() {
    return Atomics.load(this.words, W.UNDERRUNS);
  }

  /** The loudest sample played so far. */
  peak() {
    return Atomics.load(this.words, W.PEAK) / 1e6;
  }
}
