// PPB_ImageData;1.0 and PPB_Graphics2D;1.0, 1.1, 1.2: pixels the plugin
// draws in its memory, composited by the browser side onto the page's 2D
// surface.
//
//   PP_ImageDataFormat GetNativeImageDataFormat(void)
//   PP_Bool IsImageDataFormatSupported(PP_ImageDataFormat format)
//   PP_Resource ImageData.Create(PP_Instance instance, PP_ImageDataFormat format,
//       const struct PP_Size* size, PP_Bool init_to_zero)
//   PP_Bool IsImageData(PP_Resource image_data)
//   PP_Bool Describe(PP_Resource image_data, struct PP_ImageDataDesc* desc)
//   void* Map(PP_Resource image_data)
//   void Unmap(PP_Resource image_data)
//
//   PP_Resource Graphics2D.Create(PP_Instance instance, const struct PP_Size* size, PP_Bool is_always_opaque)
//   PP_Bool IsGraphics2D(PP_Resource resource)
//   PP_Bool Describe(PP_Resource graphics_2d, struct PP_Size* size, PP_Bool* is_always_opaque)
//   void PaintImageData(PP_Resource graphics_2d, PP_Resource image_data,
//       const struct PP_Point* top_left, const struct PP_Rect* src_rect)
//   void Scroll(PP_Resource graphics_2d, const struct PP_Rect* clip_rect, const struct PP_Point* amount)
//   void ReplaceContents(PP_Resource graphics_2d, PP_Resource image_data)
//   int32_t Flush(PP_Resource graphics_2d, struct PP_CompletionCallback callback)
//   PP_Bool SetScale(PP_Resource resource, float scale)                        (1.1)
//   float GetScale(PP_Resource resource)                                       (1.1)
//   PP_Bool SetLayerTransform(PP_Resource resource, float scale,
//       const struct PP_Point* origin, const struct PP_Point* translate)       (1.2)
//
// An image's pixels live in guest memory (heap.js), so Map returns a
// pointer the plugin writes through. Paint, Scroll and ReplaceContents are
// queued and take effect at Flush, which reads the images then, as Chrome
// did, into the device's backing store (BGRA or RGBA, premultiplied, as the
// plugin wrote it). A bound device's backing store is then drawn on the
// page's 2D surface (converted to the canvas's unpremultiplied RGBA), and
// the Flush callback runs when the frame is shown (the next animation
// frame; a 16 ms timer where there is none, as in Node).

import { INSTANCE_ID, PP, PP_POINT, PP_RECT } from '../defs.js';

/** PP_ImageDataFormat. BGRA is the native one, as Chrome reported on x86. */
export const FORMAT = Object.freeze({ BGRA_PREMUL: 0, RGBA_PREMUL: 1 });
/** struct PP_ImageDataDesc: format, size (2 × i32), stride. */
const DESC = Object.freeze({ format: 0, width: 4, height: 8, stride: 12, SIZE: 16 });
/** Largest width or height of an image or a device (Chrome's limit was the GPU's). */
export const MAX_SIDE = 16384;
/** Largest image in bytes. */
export const MAX_IMAGE_BYTES = 256 << 20;

const nextFrame = () =>
  new Promise((resolve) => {
    if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => resolve());
    else setTimeout(resolve, 16);
  });

export default (b) => {
  const { mem, resources } = b;
  const image = (id) => resources.get(id, 'ImageData');
  const device = (id) => resources.get(id, 'Graphics2D');

  const readSize = (ptr) => {
    mem.check(ptr, 8);
    return { width: mem.getI32(ptr), height: mem.getI32(ptr + 4) };
  };
  const readRect = (ptr) => {
    mem.check(ptr, PP_RECT.SIZE);
    return {
      x: mem.getI32(ptr + PP_RECT.x),
      y: mem.getI32(ptr + PP_RECT.y),
      width: mem.getI32(ptr + PP_RECT.width),
      height: mem.getI32(ptr + PP_RECT.height),
    };
  };
  const readPoint = (ptr) => {
    mem.check(ptr, PP_POINT.SIZE);
    return { x: mem.getI32(ptr + PP_POINT.x), y: mem.getI32(ptr + PP_POINT.y) };
  };
  const validSize = ({ width, height }) => width > 0 && height > 0 && width <= MAX_SIDE && height <= MAX_SIDE;

  /** Clips `r` to [0, w) × [0, h); null when empty. */
  const clip = (r, w, h) => {
    const x0 = Math.max(0, r.x);
    const y0 = Math.max(0, r.y);
    const x1 = Math.min(w, r.x + r.width);
    const y1 = Math.min(h, r.y + r.height);
    return x1 > x0 && y1 > y0 ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : null;
  };

  /** Copies a rectangle of `img` (guest memory) into the device's store at (dx, dy). */
  const paint = (g, img, src, dx, dy) => {
    const u8 = mem.u8();
    for (let row = 0; row < src.height; row++) {
      const from = img.ptr + (src.y + row) * img.stride + src.x * 4;
      const to = ((dy + row) * g.width + dx) * 4;
      g.store.set(u8.subarray(from, from + src.width * 4), to);
    }
  };

  /** Applies one queued operation to the device's backing store. */
  const apply = (g, op) => {
    switch (op.kind) {
      case 'paint': {
        const img = image(op.image);
        if (!img) return;
        const src = clip(op.src ?? { x: 0, y: 0, width: img.width, height: img.height }, img.width, img.height);
        if (!src) return;
        // The source rectangle lands at top_left + its own position.
        const dst = clip({ x: op.x + src.x, y: op.y + src.y, width: src.width, height: src.height }, g.width, g.height);
        if (!dst) return;
        const srcIn = { x: src.x + (dst.x - (op.x + src.x)), y: src.y + (dst.y - (op.y + src.y)), width: dst.width, height: dst.height };
        paint(g, img, srcIn, dst.x, dst.y);
        return;
      }
      case 'replace': {
        const img = image(op.image);
        if (!img || img.width !== g.width || img.height !== g.height) return;
        paint(g, img, { x: 0, y: 0, width: img.width, height: img.height }, 0, 0);
        return;
      }
      case 'scroll': {
        const area = clip(op.clip ?? { x: 0, y: 0, width: g.width, height: g.height }, g.width, g.height);
        if (!area) return;
        const copy = g.store.slice();
        for (let y = area.y; y < area.y + area.height; y++) {
          const sy = y - op.dy;
          if (sy < area.y || sy >= area.y + area.height) continue;
          for (let x = area.x; x < area.x + area.width; x++) {
            const sx = x - op.dx;
            if (sx < area.x || sx >= area.x + area.width) continue;
            const to = (y * g.width + x) * 4;
            const from = (sy * g.width + sx) * 4;
            g.store[to] = copy[from];
            g.store[to + 1] = copy[from + 1];
            g.store[to + 2] = copy[from + 2];
            g.store[to + 3] = copy[from + 3];
          }
        }
        return;
      }
      default:
        return;
    }
  };

  /** Draws a device's store on the page's 2D surface (unpremultiplied RGBA). */
  const present = (g) => {
    const canvas = b.canvas2d;
    if (!canvas || b.bound !== g.id) return;
    if (canvas.width !== g.width || canvas.height !== g.height) {
      canvas.width = g.width;
      canvas.height = g.height;
    }
    const ctx = (b.context2d ??= canvas.getContext('2d'));
    const out = new ImageData(g.width, g.height);
    const d = out.data;
    const s = g.store;
    const bgra = g.format === FORMAT.BGRA_PREMUL;
    for (let i = 0; i < d.length; i += 4) {
      const a = g.opaque ? 255 : s[i + 3];
      let r = bgra ? s[i + 2] : s[i];
      const gr = s[i + 1];
      let bl = bgra ? s[i] : s[i + 2];
      let gg = gr;
      if (a !== 255 && a !== 0) {
        r = Math.min(255, Math.round((r * 255) / a));
        gg = Math.min(255, Math.round((gg * 255) / a));
        bl = Math.min(255, Math.round((bl * 255) / a));
      }
      d[i] = r;
      d[i + 1] = gg;
      d[i + 2] = bl;
      d[i + 3] = a;
    }
    ctx.putImageData(out, 0, 0);
  };

  // BindGraphics shows a device's current contents at once.
  b.present2d = present;

  const create2d = (cx, instance, sizePtr, opaque) => {
    if (instance !== INSTANCE_ID) return 0;
    const size = readSize(sizePtr);
    if (!validSize(size)) return 0;
    return resources.add('Graphics2D', {
      width: size.width,
      height: size.height,
      opaque: opaque !== 0,
      format: FORMAT.BGRA_PREMUL,
      store: new Uint8Array(size.width * size.height * 4),
      ops: [],
      flushing: false,
      scale: 1,
      destroy() {
        if (b.bound === this.id) b.bound = 0;
        for (const op of this.ops) if (op.image) resources.release(op.image);
        this.ops = [];
      },
    });
  };

  return {
    // ---- ImageData
    'PPB_ImageData;1.0:GetNativeImageDataFormat'() {
      return FORMAT.BGRA_PREMUL;
    },
    'PPB_ImageData;1.0:IsImageDataFormatSupported'(cx, format) {
      return format === FORMAT.BGRA_PREMUL || format === FORMAT.RGBA_PREMUL ? 1 : 0;
    },
    'PPB_ImageData;1.0:Create'(cx, instance, format, sizePtr) {
      if (instance !== INSTANCE_ID) return 0;
      if (format !== FORMAT.BGRA_PREMUL && format !== FORMAT.RGBA_PREMUL) return 0;
      const size = readSize(sizePtr);
      if (!validSize(size)) return 0;
      const stride = size.width * 4;
      if (stride * size.height > MAX_IMAGE_BYTES) return 0;
      // Always zeroed (heap.js), whatever init_to_zero says.
      const ptr = b.heap.alloc(stride * size.height);
      if (ptr === 0) return 0;
      return resources.add('ImageData', {
        format,
        width: size.width,
        height: size.height,
        stride,
        ptr,
        destroy() {
          b.heap.release(this.ptr);
        },
      });
    },
    'PPB_ImageData;1.0:IsImageData'(cx, id) {
      return image(id) ? 1 : 0;
    },
    'PPB_ImageData;1.0:Describe'(cx, id, desc) {
      const img = image(id);
      mem.check(desc, DESC.SIZE);
      if (!img) {
        mem.fill0(desc, DESC.SIZE);
        return 0;
      }
      mem.setI32(desc + DESC.format, img.format);
      mem.setI32(desc + DESC.width, img.width);
      mem.setI32(desc + DESC.height, img.height);
      mem.setI32(desc + DESC.stride, img.stride);
      return 1;
    },
    'PPB_ImageData;1.0:Map'(cx, id) {
      return image(id)?.ptr ?? 0;
    },
    'PPB_ImageData;1.0:Unmap'() {},

    // ---- Graphics2D
    'PPB_Graphics2D;1.0:Create': create2d,
    'PPB_Graphics2D;1.0:IsGraphics2D'(cx, id) {
      return device(id) ? 1 : 0;
    },
    'PPB_Graphics2D;1.0:Describe'(cx, id, sizePtr, opaquePtr) {
      const g = device(id);
      mem.check(sizePtr, 8);
      mem.check(opaquePtr, 4);
      mem.setI32(sizePtr, g ? g.width : 0);
      mem.setI32(sizePtr + 4, g ? g.height : 0);
      mem.setI32(opaquePtr, g?.opaque ? 1 : 0);
      return g ? 1 : 0;
    },
    'PPB_Graphics2D;1.0:PaintImageData'(cx, id, imageId, topLeft, srcRect) {
      const g = device(id);
      if (!g || !image(imageId)) return;
      const at = readPoint(topLeft);
      const src = srcRect === 0 ? null : readRect(srcRect);
      resources.addRef(imageId);
      g.ops.push({ kind: 'paint', image: imageId, x: at.x, y: at.y, src });
    },
    'PPB_Graphics2D;1.0:Scroll'(cx, id, clipRect, amount) {
      const g = device(id);
      if (!g) return;
      const d = readPoint(amount);
      g.ops.push({ kind: 'scroll', clip: clipRect === 0 ? null : readRect(clipRect), dx: d.x, dy: d.y });
    },
    'PPB_Graphics2D;1.0:ReplaceContents'(cx, id, imageId) {
      const g = device(id);
      const img = image(imageId);
      if (!g || !img || img.width !== g.width || img.height !== g.height) return;
      resources.addRef(imageId);
      g.ops.push({ kind: 'replace', image: imageId });
    },
    'PPB_Graphics2D;1.0:Flush'(cx, id, callback) {
      const g = device(id);
      if (!g) return PP.ERROR_BADRESOURCE;
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error === PP.ERROR_BLOCKS_MAIN_THREAD ? PP.ERROR_BADARGUMENT : c.error;
      if (g.flushing) return PP.ERROR_INPROGRESS;
      g.flushing = true;
      const ops = g.ops;
      g.ops = [];
      for (const op of ops) {
        apply(g, op);
        if (op.image) resources.release(op.image);
      }
      present(g);
      return c.finish(
        nextFrame().then(() => {
          g.flushing = false;
          return PP.OK;
        }),
      );
    },
    'PPB_Graphics2D;1.1:SetScale'(cx, id, scale) {
      const g = device(id);
      if (!g || !(scale > 0)) return 0;
      g.scale = scale;
      return 1;
    },
    'PPB_Graphics2D;1.1:GetScale'(cx, id) {
      return device(id)?.scale ?? 0;
    },
    'PPB_Graphics2D;1.2:SetLayerTransform'(cx, id, scale, origin, translate) {
      const g = device(id);
      if (!g || !(scale > 0)) return 0;
      g.layer = { scale, origin: readPoint(origin), translate: readPoint(translate) };
      return 1;
    },
  };
};
