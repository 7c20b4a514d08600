// PP_Resource: browser objects (message loops, views, URL loaders, …) the
// plugin holds by a 32-bit id, with exact reference counts
// (PPB_Core.AddRefResource/ReleaseResource, and one reference per resource
// var). Each resource is `{ kind, refs, ...state }`; `kind` is the
// interface family that made it ('MessageLoop', 'View', 'URLLoader', …),
// so `get(id, kind)` is also the type check every PPB function needs.
// Destroying a resource calls its `destroy()` if it has one (loaders abort
// their fetch, pending callbacks run with PP_ERROR_ABORTED).

export class ResourceTable {
  constructor() {
    /** id → resource */
    this.items = new Map();
    this.nextId = 1;
  }

  get size() {
    return this.items.size;
  }

  /** Adds `resource` (one reference, the creator's); returns its id. */
  add(kind, resource = {}) {
    const id = this.nextId++;
    this.items.set(id, Object.assign(resource, { kind, refs: 1, id }));
    return id;
  }

  /** The live resource `id`, if it is of `kind` (any kind when omitted). */
  get(id, kind) {
    const r = this.items.get(id | 0);
    if (!r || (kind !== undefined && r.kind !== kind)) return null;
    return r;
  }

  /** The kind of resource `id`, or null. */
  kindOf(id) {
    return this.items.get(id | 0)?.kind ?? null;
  }

  addRef(id) {
    const r = this.items.get(id | 0);
    if (r) r.refs++;
    return !!r;
  }

  release(id) {
    const r = this.items.get(id | 0);
    if (!r) return;
    if (--r.refs > 0) return;
    this.items.delete(id | 0);
    r.destroy?.();
  }

  /** Destroys everything (the instance is going away). */
  clear() {
    const all = [...this.items.values()];
    this.items.clear();
    for (const r of all) r.destroy?.();
  }
}
