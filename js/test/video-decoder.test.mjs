// PPB_VideoDecoder's bitstream handling (gl/video-decoder.js): Annex B
// buffers cut into the access units WebCodecs takes, and key frames told
// apart. The decoding itself is WebCodecs' (tests/browser/video.test.mjs).

import test from 'node:test';
import assert from 'node:assert/strict';
import { H264Framer, nalUnits, vpxKeyFrame } from '../src/internal/pepper/gl/video-decoder.js';

const nal = (type, ...body) => [0, 0, 0, 1, type, ...body];
// A slice with first_mb_in_slice 0 starts with the bit 1 (ue(v) 0).
const sps = nal(0x67, 0x42, 0xe0);
const pps = nal(0x68, 0xce);
const idr = nal(0x65, 0x88, 0x84);
const p0 = nal(0x41, 0x9a, 0x02);
const p1 = nal(0x41, 0x9a, 0x03);
const p0second = nal(0x41, 0x40, 0x11); // first_mb_in_slice ≠ 0: the same picture

test('NAL units are found with 3- and 4-byte start codes', () => {
  const units = nalUnits(Uint8Array.from([...sps, 0, 0, 1, 0x68, 0xce]));
  assert.deepEqual(units.map((u) => u.type), [7, 8]);
  assert.deepEqual([...units[1].bytes], [0, 0, 1, 0x68, 0xce]);
});

test('one buffer per picture: each is an access unit, the IDR one a key', () => {
  const f = new H264Framer();
  const a = f.push(Uint8Array.from([...sps, ...pps, ...idr]), 1);
  assert.equal(a.length, 1);
  assert.equal(a[0].key, true);
  assert.equal(a[0].uid, 1);
  assert.deepEqual([...a[0].data], [...sps, ...pps, ...idr]);
  const b = f.push(Uint8Array.from(p0), 2);
  assert.deepEqual(b.map((u) => [u.key, u.uid]), [[false, 2]]);
});

test('several pictures in one buffer are cut at their first slices', () => {
  const f = new H264Framer();
  const out = f.push(Uint8Array.from([...sps, ...pps, ...idr, ...p0, ...p0second, ...p1]), 7);
  assert.equal(out.length, 3);
  assert.deepEqual([...out[1].data], [...p0, ...p0second]);
  assert.deepEqual(out.map((u) => u.key), [true, false, false]);
});

test('parameter sets in their own buffer go with the next picture', () => {
  const f = new H264Framer();
  assert.deepEqual(f.push(Uint8Array.from(sps), 1), []);
  assert.deepEqual(f.push(Uint8Array.from(pps), 2), []);
  const out = f.push(Uint8Array.from(idr), 3);
  assert.equal(out.length, 1);
  assert.equal(out[0].uid, 3, 'the picture is named by the buffer its slice came in');
  assert.deepEqual([...out[0].data], [...sps, ...pps, ...idr]);
});

test('VP8 and VP9 key frames', () => {
  assert.equal(vpxKeyFrame('vp8', Uint8Array.of(0x10, 0x02, 0x00)), true);
  assert.equal(vpxKeyFrame('vp8', Uint8Array.of(0x11, 0x02, 0x00)), false);
  // frame_marker 10, profile 0, show_existing 0, frame_type 0 (key) / 1.
  assert.equal(vpxKeyFrame('vp9', Uint8Array.of(0b10000000)), true);
  assert.equal(vpxKeyFrame('vp9', Uint8Array.of(0b10000100)), false);
  assert.equal(vpxKeyFrame('vp9', Uint8Array.of(0b10001000)), false, 'show_existing_frame');
});
