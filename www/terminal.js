// The runner's terminal: guest output and the runner's own lines, kept to
// the last MAX_CHARS characters, at a cost per frame that does not grow
// with what the terminal already shows.
//
// Text is queued (write) and shown once per frame (flush): a chatty guest
// would otherwise touch the DOM for every write. What a frame shows goes
// into blocks of whole lines (chunks, at most CHUNK_CHARS each), appended
// after the ones already there; the last, unfinished line waits in a block
// of its own (the open line) until its newline comes. So a frame lays out
// only the lines it adds — before, every flush cut the front of one long
// text node and the browser laid out all 256 K characters again, 40 ms and
// more a frame — and the front is trimmed by removing whole chunks, never
// by editing text. Chunks off screen are not laid out at all
// (content-visibility: auto, style.css), sized meanwhile by their number
// of lines: a burst of output that replaces the whole terminal every frame
// lays out a screenful, not 256 K characters.

const MAX_CHARS = 256_000;
const CHUNK_CHARS = 16_384;

export class Terminal {
  constructor(el) {
    this.el = el;
    /** Queued text: [{ text, cls }], runs of one class joined. */
    this.pending = [];
    this.pendingChars = 0;
    this.frame = 0;
    /** The chunks shown, oldest first: [{ el, chars }] from `head` on. */
    this.chunks = [];
    this.head = 0;
    /** Characters in the chunks and the open line. */
    this.chars = 0;
    /** The block of the unfinished last line (null when the text ends with a newline). */
    this.open = null;
    this.openChars = 0;
    this.endsWithNewline = true;
    this.hintEl = null;
    this.lineHeight = 0;
    this.restick = 0;
  }

  /** Whether nothing was ever shown or queued since the last clear. */
  get empty() {
    return this.chars + this.pendingChars === 0;
  }

  /** Shows `text` (in a faint font) while the terminal is empty. */
  hint(text) {
    if (this.el.childNodes.length) return;
    const el = document.createElement('span');
    el.className = 'hint';
    el.textContent = text;
    this.el.append(el);
    this.hintEl = el;
  }

  dropHint() {
    this.hintEl?.remove();
    this.hintEl = null;
  }

  clear() {
    if (this.frame) cancelAnimationFrame(this.frame);
    cancelAnimationFrame(this.restick);
    this.frame = 0;
    this.el.replaceChildren();
    this.pending = [];
    this.pendingChars = 0;
    this.chunks = [];
    this.head = 0;
    this.chars = 0;
    this.open = null;
    this.openChars = 0;
    this.endsWithNewline = true;
    this.hintEl = null;
  }

  /** Queues `text` (class `cls`: null for stdout, 'err', 'sys …'); shown at the next frame. */
  write(text, cls = null) {
    if (!text) return;
    this.dropHint();
    const last = this.pending.at(-1);
    if (last && last.cls === cls) last.text += text;
    else this.pending.push({ text, cls });
    this.pendingChars += text.length;
    this.endsWithNewline = text.endsWith('\n');
    // Hidden pages have no frames: what the terminal cannot show is dropped now.
    if (this.pendingChars > 2 * MAX_CHARS) this.dropPending(this.pendingChars - MAX_CHARS);
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  /** Drops the first `n` queued characters. */
  dropPending(n) {
    while (n > 0 && this.pending.length) {
      const p = this.pending[0];
      const k = Math.min(n, p.text.length);
      if (k === p.text.length) this.pending.shift();
      else p.text = p.text.slice(k);
      this.pendingChars -= k;
      n -= k;
    }
  }

  /** Shows the queued text now (a frame, or a run's end). */
  flush() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    if (!this.pending.length) return;
    // More than the terminal keeps (a burst): only the end of it is shown,
    // from the start of a line.
    if (this.pendingChars >= MAX_CHARS) {
      this.dropPending(this.pendingChars - MAX_CHARS);
      const first = this.pending[0];
      const nl = first ? first.text.indexOf('\n') : -1;
      if (nl >= 0 && nl < first.text.length - 1) this.dropPending(nl + 1);
      this.el.replaceChildren();
      this.chunks = [];
      this.head = 0;
      this.chars = 0;
      this.open = null;
      this.openChars = 0;
    }
    const atBottom = this.el.scrollHeight - this.el.scrollTop - this.el.clientHeight < 30;
    const pending = this.pending;
    const added = this.pendingChars;
    this.pending = [];
    this.pendingChars = 0;

    // Whole lines into new chunks, the rest into the open line.
    let k = pending.length - 1;
    while (k >= 0 && pending[k].text.lastIndexOf('\n') < 0) k--;
    let chunk = null;
    let chunkChars = 0;
    let chunkLines = 0;
    this.lineHeight ||= parseFloat(getComputedStyle(this.el).lineHeight) || 18;
    const close = () => {
      if (!chunk) return;
      chunk.className = 'chunk';
      // Its size until it is first laid out (then the browser remembers it).
      chunk.style.containIntrinsicSize = `auto ${Math.ceil(chunkLines * this.lineHeight)}px`;
      chunkLines = 0;
      this.el.insertBefore(chunk, this.open);
      this.chunks.push({ el: chunk, chars: chunkChars });
      chunk = null;
      chunkChars = 0;
    };
    for (let i = 0; i <= k; i++) {
      const { text, cls } = pending[i];
      // The text up to its last newline (all of it before the last segment with one).
      const end = i < k ? text.length : text.lastIndexOf('\n') + 1;
      let at = 0;
      while (at < end) {
        if (!chunk) {
          chunk = document.createElement('div');
          // The open line's start belongs to the first new line.
          if (this.open) {
            chunk.append(...this.open.childNodes);
            chunkChars = this.openChars;
            this.openChars = 0;
          }
        }
        // Up to the chunk's size, cut after a newline when there is one.
        let stop = end;
        if (end - at > CHUNK_CHARS - chunkChars) {
          const nl = text.lastIndexOf('\n', at + Math.max(0, CHUNK_CHARS - chunkChars) - 1);
          stop = nl >= at ? nl + 1 : Math.min(end, text.indexOf('\n', at) + 1 || end);
        }
        const piece = at === 0 && stop === text.length ? text : text.slice(at, stop);
        appendText(chunk, piece, cls);
        chunkLines += countLines(piece);
        chunkChars += stop - at;
        at = stop;
        // A chunk ends with a line (a block of its own starts a new line).
        if (chunkChars >= CHUNK_CHARS && text.charCodeAt(stop - 1) === 10) close();
      }
      if (end < text.length) {
        close();
        this.appendOpen(text.slice(end), cls);
      }
    }
    close();
    for (let i = k + 1; i < pending.length; i++) this.appendOpen(pending[i].text, pending[i].cls);
    if (this.open && this.openChars === 0) {
      this.open.remove();
      this.open = null;
    }
    this.chars += added;
    // One line longer than the terminal keeps (no newline for a long while): its front goes.
    if (this.openChars > MAX_CHARS) this.trimOpen(this.openChars - MAX_CHARS);

    // The front: whole chunks, as long as MAX_CHARS remain.
    while (this.head < this.chunks.length && this.chars - this.chunks[this.head].chars >= MAX_CHARS) {
      const first = this.chunks[this.head++];
      first.el.remove();
      this.chars -= first.chars;
    }
    if (this.head > 1024) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
    if (atBottom) {
      this.el.scrollTop = this.el.scrollHeight;
      // Again once the chunks now on screen have been laid out at their real size.
      cancelAnimationFrame(this.restick);
      this.restick = requestAnimationFrame(() => (this.el.scrollTop = this.el.scrollHeight));
    }
  }

  /** Drops the first `n` characters of the open line. */
  trimOpen(n) {
    while (n > 0 && this.open.firstChild) {
      const node = this.open.firstChild;
      const len = node.textContent.length;
      if (len <= n) node.remove();
      else (node.nodeType === Node.TEXT_NODE ? node : node.firstChild).deleteData(0, n);
      const k = Math.min(len, n);
      this.openChars -= k;
      this.chars -= k;
      n -= k;
    }
  }

  appendOpen(text, cls) {
    if (!this.open) {
      this.open = document.createElement('div');
      this.el.append(this.open);
    }
    appendText(this.open, text, cls);
    this.openChars += text.length;
  }
}

function countLines(text) {
  let n = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

/** Appends `text` to `parent`: a text node, or a span of class `cls`. */
function appendText(parent, text, cls) {
  if (!cls) {
    parent.append(text);
    return;
  }
  const span = document.createElement('span');
  span.className = cls;
  span.textContent = text;
  parent.append(span);
}
