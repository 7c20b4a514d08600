// PPB_View;1.0, 1.1, 1.2: the snapshot of the instance's view that
// DidChangeView receives (browser.js viewResource).
//
//   PP_Bool IsView(PP_Resource resource)
//   PP_Bool GetRect(PP_Resource resource, struct PP_Rect* rect)
//   PP_Bool IsFullscreen(PP_Resource resource)
//   PP_Bool IsVisible(PP_Resource resource)
//   PP_Bool IsPageVisible(PP_Resource resource)
//   PP_Bool GetClipRect(PP_Resource resource, struct PP_Rect* clip)
//   float GetDeviceScale(PP_Resource resource)                       (1.1)
//   float GetCSSScale(PP_Resource resource)                          (1.1)
//   PP_Bool GetScrollOffset(PP_Resource resource, struct PP_Point* offset)   (1.2)
//
// Rectangles are in CSS pixels, relative to the viewport (GetRect) or to
// the instance (GetClipRect), as Chrome gave them.

import { PP_POINT, PP_RECT } from '../defs.js';

export default (b) => {
  const view = (id) => b.resources.get(id, 'View');
  const rect = (out, r) => {
    b.mem.check(out, PP_RECT.SIZE);
    b.mem.setI32(out + PP_RECT.x, Math.round(r.x));
    b.mem.setI32(out + PP_RECT.y, Math.round(r.y));
    b.mem.setI32(out + PP_RECT.width, Math.round(r.width));
    b.mem.setI32(out + PP_RECT.height, Math.round(r.height));
  };
  const flag = (id, name) => {
    const v = view(id);
    return v && v[name] ? 1 : 0;
  };
  return {
    'PPB_View;1.0:IsView'(cx, id) {
      return view(id) ? 1 : 0;
    },
    'PPB_View;1.0:GetRect'(cx, id, out) {
      const v = view(id);
      if (!v) return 0;
      rect(out, v.rect);
      return 1;
    },
    'PPB_View;1.0:IsFullscreen'(cx, id) {
      return flag(id, 'fullscreen');
    },
    'PPB_View;1.0:IsVisible'(cx, id) {
      return flag(id, 'visible');
    },
    'PPB_View;1.0:IsPageVisible'(cx, id) {
      return flag(id, 'pageVisible');
    },
    'PPB_View;1.0:GetClipRect'(cx, id, out) {
      const v = view(id);
      if (!v) return 0;
      rect(out, v.clip);
      return 1;
    },
    'PPB_View;1.1:GetDeviceScale'(cx, id) {
      return view(id)?.deviceScale ?? 0;
    },
    'PPB_View;1.1:GetCSSScale'(cx, id) {
      return view(id)?.cssScale ?? 0;
    },
    'PPB_View;1.2:GetScrollOffset'(cx, id, out) {
      const v = view(id);
      if (!v) return 0;
      b.mem.check(out, PP_POINT.SIZE);
      b.mem.setI32(out + PP_POINT.x, Math.round(v.scroll.x));
      b.mem.setI32(out + PP_POINT.y, Math.round(v.scroll.y));
      return 1;
    },
  };
};
