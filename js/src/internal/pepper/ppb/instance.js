// PPB_Instance;1.0: binding a graphics device to the instance.
//
//   PP_Bool BindGraphics(PP_Instance instance, PP_Resource device)
//   PP_Bool IsFullFrame(PP_Instance instance)
//
// The instance keeps its own reference to the bound device; 0 unbinds.
// Embeds are never full-frame (that was for MIME-type handlers).

import { INSTANCE_ID } from '../defs.js';

/** Resource kinds that can be bound (the graphics interfaces add them). */
export const BINDABLE = new Set(['Graphics2D', 'Graphics3D']);

export default (b) => ({
  'PPB_Instance;1.0:BindGraphics'(cx, instance, device) {
    if (instance !== INSTANCE_ID) return 0;
    if (device === 0) {
      if (b.bound) b.resources.release(b.bound);
      b.bound = 0;
      b.embedder.bindGraphics?.(null);
      return 1;
    }
    const r = b.resources.get(device);
    if (!r || !BINDABLE.has(r.kind)) return 0;
    if (b.bound === device) return 1;
    b.resources.addRef(device);
    if (b.bound) b.resources.release(b.bound);
    b.bound = device;
    b.embedder.bindGraphics?.(r);
    if (r.kind === 'Graphics2D') b.present2d?.(r);
    return 1;
  },
  'PPB_Instance;1.0:IsFullFrame'() {
    return 0;
  },
});
